"""Dask beyond one machine and one NPU's memory, measured on this machine with npusim.

    python benchmarks/dask_nodes.py [--size 1024] [--chunk 256] [--repeat 3]

1. Two "nodes": a scheduler process and two ``dask npu worker`` commands on 127.0.0.1,
   each with its own simulated NPU. Prints how long the workers took to join, the time
   to result of a chunked float32 matmul with reductions (best and median of
   ``--repeat``; checked against NumPy), and the bytes moved between the workers per
   run (Dask's count of bytes sent by workers, and the bytes the chunk serialisers
   downloaded into pinned memory).
2. Spilling: one worker whose persisted array is four times its spill threshold
   (``device_memory_limit``) against the same run without a threshold: time of the
   persist plus three reductions, the peak bytes in use on the device (sampled every
   2 ms) and the bytes spilled.
3. Worker loss: the two-node matmul with one worker process killed (SIGKILL) halfway
   through against the same run undisturbed: time to result (checked against NumPy).

On npusim the NPUs are simulated on this machine's CPU cores: the timings are
simulated-device timings, not NPU ones.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client, wait  # noqa: E402

import npuarray as npx  # noqa: E402
from npuarray.dask import LocalNPUCluster  # noqa: E402


def env(**extra):
    out = {**os.environ, "NPUSIM_DEVICE_COUNT": "1", "NPUSIM_NUM_THREADS": "1", **extra}
    out["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    return out


def start_scheduler(tmp):
    path = os.path.join(tmp, "scheduler.json")
    process = subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                                "--port", "0", "--no-dashboard", "--scheduler-file", path],
                               env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not os.path.exists(path) or not os.path.getsize(path):
        time.sleep(0.05)
    time.sleep(0.2)
    with open(path) as f:
        return process, json.load(f)["address"]


def start_node(address, prefix, tmp):
    log = open(os.path.join(tmp, f"{prefix}.log"), "wb")
    return subprocess.Popen([sys.executable, "-m", "npuarray.dask", "worker", address, "--host",
                             "127.0.0.1", "--name-prefix", prefix, "--memory-limit", "0",
                             "--local-directory", os.path.join(tmp, prefix)],
                            env=env(), stdout=log, stderr=subprocess.STDOUT)


def reports(client):
    from npuarray.dask._worker import device_report
    names = {a: w["name"] for a, w in client.scheduler_info(n_workers=-1)["workers"].items()}
    return {names[a]: r for a, r in client.run(device_report).items()}


def load_block(seed, dtype, block_info=None):
    """The block ``block_info`` asks for, generated on the worker (as a reader would load
    a file shard) and uploaded once: one device allocation per chunk."""
    import npuarray as npx
    info = block_info[None]
    return npx.asarray(host_block(seed, info["chunk-location"], info["chunk-shape"], dtype))


def host_block(seed, location, shape, dtype):
    return np.random.default_rng([seed, *location]).standard_normal(shape).astype(dtype)


def loaded(seed, shape, chunk, dtype):
    """(the Dask array of NPUArray chunks loaded on the workers, the same on the host)."""
    x = da.map_blocks(load_block, seed, dtype, chunks=da.core.normalize_chunks(chunk, shape),
                      dtype=dtype, meta=npx.empty((0, 0), dtype=dtype))
    blocks = [[host_block(seed, (i, j), (len(range(*rows)), len(range(*cols))), dtype)
               for j, cols in enumerate(_bounds(x.chunks[1]))]
              for i, rows in enumerate(_bounds(x.chunks[0]))]
    return x, np.block(blocks)


def _bounds(sizes):
    edges = np.cumsum((0,) + sizes)
    return list(zip(edges[:-1], edges[1:]))


def matmul_job(client, x, y):
    product = x @ y
    return client.compute([product, product.sum(axis=0), product.max()])


def check_matmul(results, a, b):
    product, sums, largest = (r.to_host() for r in results)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(product, expected, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(sums, expected.sum(axis=0), rtol=1e-3, atol=1e-2)
    assert abs(largest - expected.max()) <= 1e-3 * abs(expected.max())


def two_nodes(args, tmp):
    scheduler, address = start_scheduler(tmp)
    nodes = []
    try:
        with Client(address, timeout=120) as client:
            start = time.perf_counter()
            nodes = [start_node(address, p, tmp) for p in ("a", "b")]
            client.wait_for_workers(2, timeout=180)
            up = time.perf_counter() - start
            shape = (args.size, args.size)
            (x, a), (y, b) = (loaded(seed, shape, args.chunk, np.float32) for seed in (0, 1))
            times, sent, downloaded = [], [], []
            for _ in range(args.repeat):
                before = reports(client)
                t = time.perf_counter()
                results = client.gather(matmul_job(client, x, y))
                times.append(time.perf_counter() - t)
                check_matmul(results, a, b)
                after = reports(client)
                sent.append(sum(after[n]["sent_bytes"] - before[n]["sent_bytes"] for n in after))
                downloaded.append(sum(after[n]["device_to_host"] - before[n]["device_to_host"]
                                      for n in after))
            print(f"two nodes: workers up in {up:.2f} s; {args.size}^2 float32 matmul + sum + max "
                  f"in {args.chunk}^2 chunks: best {min(times):.3f} s, median "
                  f"{statistics.median(times):.3f} s; per run {statistics.median(sent) / 2**20:.2f}"
                  f" MiB sent by workers, {statistics.median(downloaded) / 2**20:.2f} MiB through "
                  "pinned memory")
            worker_loss(args, client, (x, a), (y, b), min(times))
    finally:
        for node in nodes:
            node.send_signal(signal.SIGTERM)
        for node in nodes:
            node.wait(60)
        scheduler.terminate()
        scheduler.wait(60)


def worker_loss(args, client, xa, yb, undisturbed):
    (x, a), (y, b) = xa, yb
    times = []
    for _ in range(args.repeat):
        client.wait_for_workers(2, timeout=180)
        victim = sorted(client.scheduler_info(n_workers=-1)["workers"])[0]
        pid = client.run(os.getpid, workers=[victim])[victim]
        t = time.perf_counter()
        futures = matmul_job(client, x, y)
        time.sleep(undisturbed / 2)
        os.kill(pid, signal.SIGKILL)
        results = client.gather(futures)
        times.append(time.perf_counter() - t)
        check_matmul(results, a, b)
    print(f"worker loss: undisturbed best {undisturbed:.3f} s; one worker killed halfway: best "
          f"{min(times):.3f} s, median {statistics.median(times):.3f} s (right results)")


def spilling(args, tmp):
    chunk_bytes = args.chunk * args.chunk * 8
    threshold = 8 * chunk_bytes
    rows = 4 * threshold // (args.chunk * 8)
    x, host = loaded(2, (rows, args.chunk), args.chunk, np.float64)
    monitor_off = {f"distributed.worker.memory.{k}": False
                   for k in ("target", "spill", "pause", "terminate")}
    for label, limit in (("no threshold", 0), ("threshold = 1/4 of the array", threshold)):
        with dask.config.set(monitor_off), LocalNPUCluster(
                1, device_memory_limit=limit, env={"NPUSIM_NUM_THREADS": "1"},
                local_directory=os.path.join(tmp, "spill")) as cluster, Client(cluster) as client:
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                persisted = client.persist(x)
                wait(persisted)
                total, largest, row_min = client.compute(
                    [persisted.sum(axis=0), persisted.max(), persisted.min(axis=1)], sync=True)
                times.append(time.perf_counter() - t)
                np.testing.assert_allclose(total.to_host(), host.sum(axis=0), atol=1e-9)
                assert largest.to_host() == host.max()
                np.testing.assert_array_equal(row_min.to_host(), host.min(axis=1))
                del persisted
            report = cluster.device_reports(client)["npu-0"]
        runs = len(times)
        print(f"spilling, {host.nbytes / 2**20:.1f} MiB persisted, {label}: best "
              f"{min(times):.3f} s, median {statistics.median(times):.3f} s; peak "
              f"{report['peak_used_bytes'] / 2**20:.2f} MiB in use on the device "
              f"(threshold + one chunk = {(threshold + chunk_bytes) / 2**20:.2f} MiB); "
              f"{report['spilled'] / runs / 2**20:.1f} MiB spilled and "
              f"{report['unspilled'] / runs / 2**20:.1f} MiB read back per run")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--chunk", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        two_nodes(args, tmp)
        spilling(args, tmp)


if __name__ == "__main__":
    main()
