"""Covariance of a data set bigger than one NPU's memory limit, with Dask over every NPU.

A (rows, features) float64 matrix X is split into row chunks; each chunk is
loaded on the worker that owns it (generated there from a per-chunk seed, as a
reader would load a file shard, then uploaded once) and never leaves its
device. Each worker computes its chunks' Gram matrices X_i^T X_i
(aclnnMatmul) and column sums (aclnnReduceSum); Dask adds the partial results
in a tree, moving only those small (features x features) partials between
workers, through pinned host memory. The client forms the covariance matrix
on its device and downloads it once. NumPy computes the same covariance from
the same chunks for the check.

    python examples/dask_multi_npu.py [--workers 1,2,4,8] [--rows 262144]
        [--features 32] [--chunk-rows 8192] [--memory-limit 16MiB] [--repeat 3]

Every worker's device pool is limited to ``--memory-limit``
(``NPUARRAY_MEMORY_LIMIT``) and the data set is larger than that, so it only
fits split over devices or streamed chunk by chunk. Workers run with
``NPUARRAY_TRANSFER_GUARD=disallow``: an implicit host copy of a chunk would
fail the run. On npusim the NPUs are simulated on this machine's CPU cores,
shared by all workers: the timings are simulated-device timings, not NPU ones.

Prints, per worker count: wall time (cluster already started; best and median
of ``--repeat`` runs), bytes moved per run host->device (the input, once, and
partial results arriving on a worker or the client) and device->host (partial
results leaving a worker, counted by the chunk serialisers of every process,
and the downloaded result), each device's memory peaks (bytes in use by arrays,
sampled every 2 ms, and bytes held by its pool, the pool's high-water mark),
and the largest difference from NumPy; then a summary table with NumPy's time
for the same work on the host. Exits with status 1 when a result differs by
more than 1e-9 (relative).
"""
import argparse
import statistics
import sys
import time

import numpy as np

MAX_RELATIVE_ERROR = 1e-9


def load_chunk(block_info=None, *, features, seed):
    """The chunk ``block_info`` asks for, loaded on this worker's device."""
    import npuarray as npx
    info = block_info[None]
    (start, stop), _ = info["array-location"]
    return npx.asarray(host_chunk(start, stop, features, seed, info["chunk-location"][0]))


def host_chunk(start, stop, features, seed, index):
    """Rows [start, stop) of the data set: correlated features with offsets."""
    rng = np.random.default_rng([seed, index])
    mixing = np.random.default_rng(seed).standard_normal((features, features)) / features
    return rng.standard_normal((stop - start, features)) @ (np.eye(features) + mixing) + 3.0


def chunk_statistics(block):
    """(1, features + 1, features): the chunk's Gram matrix with its column sums below."""
    import npuarray as npx
    gram = npx.matmul(npx.matrix_transpose(block), block)
    sums = npx.sum(block, axis=0, keepdims=True)
    return npx.expand_dims(npx.concat([gram, sums], axis=0), axis=0)


def covariance_on_cluster(client, rows, features, chunk_rows, seed):
    """The covariance matrix of the data set, computed by the cluster, on the host."""
    import dask.array as da

    import npuarray as npx
    chunks = (chunk_rows,) * (rows // chunk_rows) + ((rows % chunk_rows,) if rows % chunk_rows else ())
    x = da.map_blocks(load_chunk, chunks=(chunks, (features,)), dtype=np.float64,
                      meta=npx.empty((0, 0)), features=features, seed=seed)
    partials = x.map_blocks(chunk_statistics, chunks=((1,) * len(chunks), (features + 1,),
                                                      (features,)),
                            new_axis=2, dtype=np.float64, meta=npx.empty((0, 0, 0)))
    totals = client.compute(partials.sum(axis=0)).result()  # on the client's device
    gram, sums = totals[:features], totals[features:]
    centred = gram - npx.matmul(npx.matrix_transpose(sums), sums) / rows
    return (centred / (rows - 1)).to_host()


def covariance_numpy(rows, features, chunk_rows, seed):
    blocks = [host_chunk(start, min(start + chunk_rows, rows), features, seed, i)
              for i, start in enumerate(range(0, rows, chunk_rows))]
    return np.cov(np.concatenate(blocks), rowvar=False)


def moved_bytes(client, cluster):
    """(host->device, device->host) bytes the client and every worker moved for chunk
    transfers so far, and the workers' device reports."""
    from npuarray._dask_hook import transfer_stats
    reports = cluster.device_reports(client)
    stats = [transfer_stats(), *reports.values()]  # the client's device, then the workers'
    return (sum(s["host_to_device"] for s in stats), sum(s["device_to_host"] for s in stats),
            reports)


def run(n_workers, args, expected):
    from distributed import Client

    from npuarray.dask import LocalNPUCluster
    env = {"NPUARRAY_TRANSFER_GUARD": "disallow"}
    seconds, errors = [], []
    with LocalNPUCluster(n_workers, memory_limit=args.memory_limit, env=env) as cluster, \
            Client(cluster) as client:
        client.run(lambda: None)  # every worker is up before the clock starts
        for _ in range(args.repeat):
            h2d_before, d2h_before, _ = moved_bytes(client, cluster)
            start = time.perf_counter()
            covariance = covariance_on_cluster(
                client, args.rows, args.features, args.chunk_rows, args.seed)
            seconds.append(time.perf_counter() - start)
            h2d_after, d2h_after, reports = moved_bytes(client, cluster)
            errors.append(float(np.max(np.abs(covariance - expected)) / np.max(np.abs(expected))))
    return {"workers": n_workers, "best": min(seconds), "median": statistics.median(seconds),
            "error": max(errors), "reports": reports,
            "input": args.rows * args.features * 8,  # each chunk is uploaded once per run
            "h2d": h2d_after - h2d_before, "d2h": d2h_after - d2h_before,  # the last run's
            "result": covariance.nbytes}


def mebibytes(n):
    return f"{n / 2**20:.2f} MiB"


def kibibytes(n):
    return f"{n / 2**10:.1f} KiB"


def print_run(result):
    peaks = ", ".join(f"{name}: {mebibytes(r['peak_used_bytes'])} in use, "
                      f"{mebibytes(r['peak_pool_bytes'])} held of {mebibytes(r['limit_bytes'])}"
                      for name, r in sorted(result["reports"].items()))
    print(f"{result['workers']} worker(s): best {result['best']:.2f} s, median "
          f"{result['median']:.2f} s (simulated NPUs), max relative error {result['error']:.1e}")
    print(f"    per run, host->device: {mebibytes(result['input'])} input + "
          f"{kibibytes(result['h2d'])} chunk transfers; device->host: "
          f"{kibibytes(result['d2h'])} chunk transfers + {kibibytes(result['result'])} result")
    print(f"    device memory peaks: {peaks}")


def print_summary(results, numpy_seconds):
    print()
    print("| NPUs | best s | median s | host->device | device->host | peak in use / held per "
          "device (max) | max rel. error |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        used = max(d["peak_used_bytes"] for d in r["reports"].values())
        held = max(d["peak_pool_bytes"] for d in r["reports"].values())
        print(f"| {r['workers']} | {r['best']:.2f} | {r['median']:.2f} | "
              f"{mebibytes(r['input'] + r['h2d'])} | {kibibytes(r['d2h'] + r['result'])} | "
              f"{mebibytes(used)} / {mebibytes(held)} | {r['error']:.1e} |")
    print(f"NumPy on the host, one process (generation + covariance): {numpy_seconds:.2f} s. "
          "npusim's NPUs are simulated on this machine's CPU cores, shared by every worker.")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2,4,8",
                        help="comma-separated worker (NPU) counts to run")
    parser.add_argument("--rows", type=int, default=262144)
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--chunk-rows", type=int, default=8192)
    parser.add_argument("--memory-limit", default="16MiB",
                        help="each device's pool limit (NPUARRAY_MEMORY_LIMIT)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="runs per worker count")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    counts = [int(n) for n in args.workers.split(",")]
    print(f"data set: {args.rows} x {args.features} float64 = "
          f"{mebibytes(args.rows * args.features * 8)} in chunks of {args.chunk_rows} rows; "
          f"device memory limit {args.memory_limit} per NPU")
    start = time.perf_counter()
    expected = covariance_numpy(args.rows, args.features, args.chunk_rows, args.seed)
    numpy_seconds = time.perf_counter() - start
    results = []
    for n in counts:
        results.append(run(n, args, expected))
        print_run(results[-1])
    print_summary(results, numpy_seconds)
    return 0 if all(r["error"] <= MAX_RELATIVE_ERROR for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
