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
        [--features 32] [--chunk-rows 8192] [--memory-limit 16MiB]

Every worker's device pool is limited to ``--memory-limit``
(``NPUARRAY_MEMORY_LIMIT``) and the data set is larger than that, so it only
fits split over devices or streamed chunk by chunk. Workers run with
``NPUARRAY_TRANSFER_GUARD=disallow``: an implicit host copy of a chunk would
fail the run. On npusim the NPUs are simulated on this machine's CPU cores,
shared by all workers: the timings are simulated-device timings, not NPU ones.

Prints, per worker count: wall time (cluster already started), bytes moved
host->device (the input, once, and partial results arriving on a worker or
the client) and device->host (partial results leaving a worker, counted by the
chunk serialisers of every process, and the downloaded result), each device's memory peak (the pool in use,
sampled every 2 ms), and the largest difference from NumPy; exits with status 1 when a result differs by more than 1e-9 (relative).
"""
import argparse
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


def run(n_workers, args, expected):
    from distributed import Client

    from npuarray.dask import LocalNPUCluster
    from npuarray.dask._serialize import transfer_stats
    env = {"NPUARRAY_TRANSFER_GUARD": "disallow"}
    with LocalNPUCluster(n_workers, memory_limit=args.memory_limit, env=env) as cluster, \
            Client(cluster) as client:
        client.run(lambda: None)  # every worker is up before the clock starts
        client_before = transfer_stats()
        start = time.perf_counter()
        covariance = covariance_on_cluster(
            client, args.rows, args.features, args.chunk_rows, args.seed)
        seconds = time.perf_counter() - start
        reports = cluster.device_reports(client)
        moved = [transfer_stats(), *reports.values()]  # the client's device, then the workers'
        for direction in client_before:
            moved[0][direction] -= client_before[direction]
    error = float(np.max(np.abs(covariance - expected)) / np.max(np.abs(expected)))
    return {"workers": n_workers, "seconds": seconds, "error": error, "reports": reports,
            "input": args.rows * args.features * 8,  # each chunk is uploaded once
            "h2d": sum(m["host_to_device"] for m in moved),
            "d2h": sum(m["device_to_host"] for m in moved),
            "result": covariance.nbytes}


def mebibytes(n):
    return f"{n / 2**20:.2f} MiB"


def kibibytes(n):
    return f"{n / 2**10:.1f} KiB"


def print_run(result):
    peaks = ", ".join(f"{name}: {mebibytes(r['peak_used_bytes'])} of {mebibytes(r['limit_bytes'])}"
                      for name, r in sorted(result["reports"].items()))
    print(f"{result['workers']} worker(s): {result['seconds']:.2f} s (simulated NPUs), "
          f"max relative error {result['error']:.1e}")
    print(f"    host->device: {mebibytes(result['input'])} input + {kibibytes(result['h2d'])} "
          f"chunk transfers; device->host: {kibibytes(result['d2h'])} chunk transfers + "
          f"{kibibytes(result['result'])} result")
    print(f"    device memory peaks (pool in use, sampled): {peaks}")


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
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    print(f"data set: {args.rows} x {args.features} float64 = "
          f"{mebibytes(args.rows * args.features * 8)} in chunks of {args.chunk_rows} rows; "
          f"device memory limit {args.memory_limit} per NPU")
    expected = covariance_numpy(args.rows, args.features, args.chunk_rows, args.seed)
    failed = False
    for n in counts:
        result = run(n, args, expected)
        print_run(result)
        failed |= not result["error"] <= MAX_RELATIVE_ERROR
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
