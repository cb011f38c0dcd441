"""k-means clustering of scikit-learn's handwritten digits, entirely on the NPU.

The 1797 8x8 digit images (64 features each, ``sklearn.datasets.load_digits``)
are uploaded once from pinned host memory on a non-default stream; every
iteration then runs on the device: squared distances through ``matmul``,
labels through ``argmin``, the centroid update through a one-hot ``matmul`` and
``sum``, and one value (how far the centroids moved) is read back to test
convergence. The same algorithm runs in NumPy from the same initial centroids,
and the two are compared:

    python examples/digits_kmeans.py [--clusters 10] [--seed 0] [--max-iter 100] [--repeat 5]

Prints iterations, inertia (NPU and NumPy), the fraction of identical labels,
cluster purity against the true digit labels and the wall time of each: of the
first run, which includes one-time set-up (the stream, the pinned buffer, the
pool's first blocks), and the best of ``--repeat`` runs (each library's runs one
after another, so neither runs while the other's threads are still busy); exits
with status 1 when the labels agree on fewer than 99.9 % of the points or the
inertias differ by more than 1e-4 (relative).
"""
import argparse
import sys
import time

import numpy as np
from sklearn.datasets import load_digits

import npuarray as npx

MIN_LABEL_AGREEMENT = 0.999
MAX_INERTIA_DIFFERENCE = 1e-4


# ---------------------------------------------------------------------------
# One k-means iteration on the device (a pure function of device arrays, so it
# can also be captured into a graph and replayed).

def squared_distances(x, centroids):
    """(n, k) squared Euclidean distances: |x|^2 - 2 x.c + |c|^2."""
    x_sq = npx.sum(x * x, axis=1, keepdims=True)             # (n, 1)
    c_sq = npx.sum(centroids * centroids, axis=1)            # (k,)
    return x_sq - 2.0 * npx.matmul(x, centroids.T) + c_sq


def kmeans_step(x, centroids):
    """One Lloyd iteration: (new centroids (k, d), labels (n,) int64, shift).

    ``shift`` is a 0-d device array, the summed squared movement of the
    centroids; an empty cluster keeps its centroid.
    """
    k = centroids.shape[0]
    labels = npx.argmin(squared_distances(x, centroids), axis=1)           # (n,)
    clusters = npx.arange(k, dtype=labels.dtype, device=x.device)         # (k,)
    one_hot = (npx.reshape(labels, (-1, 1)) == clusters).astype(x.dtype)  # (n, k)
    counts = npx.sum(one_hot, axis=0)                                     # (k,)
    sums = npx.matmul(one_hot.T, x)                                       # (k, d)
    means = sums / npx.reshape(npx.maximum(counts, 1.0), (-1, 1))
    new_centroids = npx.where(npx.reshape(counts > 0, (-1, 1)), means, centroids)
    shift = npx.sum((new_centroids - centroids) ** 2)
    return new_centroids, labels, shift


def inertia(x, centroids):
    """0-d device array: the sum of squared distances to the nearest centroid."""
    return npx.sum(npx.min(squared_distances(x, centroids), axis=1))


def kmeans_npu(data, initial, max_iter, tol):
    """k-means on the device; returns (labels, inertia, iterations) on the host."""
    stream = npx.Stream()
    pinned = npx.empty_pinned(data.shape, data.dtype)
    pinned[...] = data
    with stream:
        x = npx.asarray(pinned)                 # asynchronous: pinned source
        centroids = npx.asarray(initial)
        for iteration in range(1, max_iter + 1):
            centroids, labels, shift = kmeans_step(x, centroids)
            if float(shift.to_host()) <= tol:   # the one read-back per iteration
                break
        labels = npx.argmin(squared_distances(x, centroids), axis=1)
        total = float(inertia(x, centroids).to_host())
        return labels.to_host(), total, iteration


# ---------------------------------------------------------------------------
# The same algorithm in NumPy

def kmeans_numpy(data, initial, max_iter, tol):
    x, centroids = data, initial.copy()
    k = centroids.shape[0]
    for iteration in range(1, max_iter + 1):
        d2 = (x * x).sum(axis=1, keepdims=True) - 2.0 * (x @ centroids.T) \
            + (centroids * centroids).sum(axis=1)
        labels = d2.argmin(axis=1)
        one_hot = (labels[:, None] == np.arange(k)).astype(x.dtype)
        counts = one_hot.sum(axis=0)
        means = (one_hot.T @ x) / np.maximum(counts, 1.0)[:, None]
        new_centroids = np.where((counts > 0)[:, None], means, centroids)
        shift = float(((new_centroids - centroids) ** 2).sum())
        centroids = new_centroids
        if shift <= tol:
            break
    d2 = (x * x).sum(axis=1, keepdims=True) - 2.0 * (x @ centroids.T) \
        + (centroids * centroids).sum(axis=1)
    return d2.argmin(axis=1), float(d2.min(axis=1).sum()), iteration


# ---------------------------------------------------------------------------

def purity(labels, truth, k):
    """Fraction of points whose cluster's most common true digit is their own."""
    return sum(np.bincount(truth[labels == c]).max() for c in range(k)
               if np.any(labels == c)) / len(truth)


def timed(kmeans, repeat, *args):
    """(the wall times in seconds of ``repeat`` runs of ``kmeans(*args)``, its result)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = kmeans(*args)
        times.append(time.perf_counter() - start)
    return times, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clusters", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-iter", type=int, default=100)
    parser.add_argument("--tol", type=float, default=0.0,
                        help="stop when the centroids moved by at most this much (squared)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="timed runs of each (the first includes one-time set-up)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    digits = load_digits()
    data = digits.data.astype(np.float32)
    rng = np.random.default_rng(args.seed)
    initial = data[rng.choice(len(data), args.clusters, replace=False)]

    npu_times, (npu_labels, npu_inertia, npu_iters) = timed(
        kmeans_npu, args.repeat, data, initial, args.max_iter, args.tol)
    np_times, (np_labels, np_inertia, np_iters) = timed(
        kmeans_numpy, args.repeat, data, initial, args.max_iter, args.tol)

    agreement = float(np.mean(npu_labels == np_labels))
    difference = abs(npu_inertia - np_inertia) / abs(np_inertia)
    print(f"digits: {data.shape[0]} x {data.shape[1]}, k = {args.clusters}, "
          f"backend: {npx.backend().name}")
    print(f"iterations        NPU {npu_iters:>12d}   NumPy {np_iters:>12d}")
    print(f"inertia           NPU {npu_inertia:>12.2f}   NumPy {np_inertia:>12.2f}   "
          f"relative difference {difference:.2e}")
    print(f"identical labels  {agreement:.2%}")
    print(f"cluster purity    NPU {purity(npu_labels, digits.target, args.clusters):.2%}"
          f"   NumPy {purity(np_labels, digits.target, args.clusters):.2%}")
    simulated = npx.backend().name == "npusim"
    print(f"wall time         NPU {npu_times[0] * 1e3:>9.1f} ms   NumPy "
          f"{np_times[0] * 1e3:>9.1f} ms   (first run)")
    print(f"                  NPU {min(npu_times) * 1e3:>9.1f} ms   NumPy "
          f"{min(np_times) * 1e3:>9.1f} ms   (best of {args.repeat})"
          + ("   (npusim: the NPU simulated on this machine's CPUs, which NumPy shares)"
             if simulated else ""))
    ok = agreement >= MIN_LABEL_AGREEMENT and difference <= MAX_INERTIA_DIFFERENCE
    print("OK: NPU and NumPy agree" if ok else
          f"FAIL: labels must agree on >= {MIN_LABEL_AGREEMENT:.1%} of points and inertia "
          f"within {MAX_INERTIA_DIFFERENCE:g} (relative)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
