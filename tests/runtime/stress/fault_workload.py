"""A workload for fault injection (run in a subprocess with NPUSIM_FAULT_INJECT set).

Rounds of three parts: k-means steps (examples/digits_kmeans.py's algorithm on random data),
a graph capture and replay, and staged (pageable) asynchronous copies on a stream. Each part
is checked against NumPy. A part that fails must fail with a typed exception (an
npuarray.AclError or a MemoryError); after it, the device and pinned pools must be back to
their baseline once its arrays are gone, and the next round must be correct. Prints one JSON
line: {"rounds", "faults", "typed", "injected", "wrong", "leaked_device", "leaked_pinned",
"errors"}.
"""
import gc
import json
import sys

import numpy as np

import npuarray as npx

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 4


def kmeans_part(rng):
    data = rng.random((256, 8))
    centroids = data[:4].copy()
    x, c = npx.asarray(data), npx.asarray(centroids)
    for _ in range(2):
        d2 = npx.sum(x * x, axis=1, keepdims=True) - 2.0 * npx.matmul(x, c.T) + npx.sum(c * c, axis=1)
        labels = npx.argmin(d2, axis=1)
        expected = ((data * data).sum(1, keepdims=True) - 2.0 * data @ centroids.T
                    + (centroids * centroids).sum(1)).argmin(1)
        if not np.array_equal(labels.to_host(), expected):
            return False
        one_hot = (npx.reshape(labels, (-1, 1)) == npx.arange(4)).astype(x.dtype)
        c = npx.matmul(one_hot.T, x) / npx.reshape(npx.maximum(npx.sum(one_hot, axis=0), 1.0), (-1, 1))
        hot = (expected[:, None] == np.arange(4)).astype(float)
        centroids = (hot.T @ data) / np.maximum(hot.sum(0), 1.0)[:, None]
    return np.allclose(c.to_host(), centroids)


def graph_part(rng):
    host = rng.random((64, 16))
    with npx.Stream() as stream:
        x = npx.asarray(host)
        stream.synchronize()
        graph = npx.Graph()
        with graph.capture():
            y = npx.sum(x * x, axis=1)
        ok = True
        for _ in range(2):
            fresh = rng.random((64, 16))
            x[...] = npx.asarray(fresh)
            graph.replay()
            ok &= np.allclose(y.to_host(), (fresh * fresh).sum(1))
        return ok


def copy_part(rng):
    data = rng.random(300_000)  # 2.4 MB: staged through pinned blocks
    with npx.Stream() as stream:
        x = npx.asarray(data)
        out = x.to_host(blocking=False)
        stream.synchronize()
        back = np.empty_like(data)
        (x * 2).to_host(out=back, blocking=False)
        stream.synchronize()
    return np.array_equal(out, data) and np.array_equal(back, data * 2)


def main():
    rng = np.random.default_rng(0)
    pool, pinned = npx.get_default_memory_pool(), npx.get_default_pinned_memory_pool()
    npx.synchronize()
    base_device, base_pinned = pool.used_bytes(), pinned.used_bytes()
    report = {"rounds": ROUNDS, "faults": 0, "typed": 0, "injected": 0, "wrong": 0,
              "leaked_device": 0, "leaked_pinned": 0, "errors": []}
    for _ in range(ROUNDS):
        for part in (kmeans_part, graph_part, copy_part):
            try:
                if not part(rng):
                    report["wrong"] += 1
            except (npx.AclError, MemoryError) as exc:
                report["faults"] += 1
                report["typed"] += 1
                report["injected"] += "injected fault" in str(exc)
            except Exception as exc:  # untyped: reported
                report["faults"] += 1
                report["errors"].append(f"{part.__name__}: {type(exc).__name__}: {exc}")
            gc.collect()
            try:
                npx.synchronize()
            except npx.AclError as exc:  # a failed asynchronous task surfaces here once
                report["injected"] += "injected fault" in str(exc)
            report["leaked_device"] = max(report["leaked_device"], pool.used_bytes() - base_device)
            report["leaked_pinned"] = max(report["leaked_pinned"], pinned.used_bytes() - base_pinned)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
