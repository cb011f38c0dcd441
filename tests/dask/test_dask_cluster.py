"""LocalNPUCluster: one spawned dask.distributed worker per NPU; chunk transfers through pinned memory."""
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("dask.array", reason="dask is not installed (pip install 'npuarray[dask]')")
pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install 'npuarray[dask]')")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client  # noqa: E402
from distributed.protocol import deserialize, serialize  # noqa: E402

import npuarray as npx  # noqa: E402
from npuarray.dask import LocalNPUCluster  # noqa: E402
from npuarray import _dask_hook  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64, np.float16,
          np.float32, np.float64, np.complex64, np.complex128]


@pytest.fixture(scope="module")
def client():
    with LocalNPUCluster(2, memory_limit="64MiB") as cluster, Client(cluster) as client:
        yield client


# -- serialisation (in this process) ---------------------------------------------------------

def roundtrip(x):
    header, frames = serialize(x, serializers=["dask"])
    assert header["serializer"] == "dask"
    return deserialize(header, frames, deserializers=["dask"]), frames


@pytest.mark.parametrize("dtype", DTYPES)
def test_chunk_roundtrip_through_pinned_memory(rng, dtype):
    host = (rng.standard_normal((3, 5)) * 10).astype(dtype)
    before = _dask_hook.transfer_stats()
    with npx.transfer_guard("disallow"):
        y, frames = roundtrip(npx.asarray(host))
    assert isinstance(y, npx.NPUArray) and y.dtype == host.dtype
    np.testing.assert_array_equal(y.to_host(), host)
    after = _dask_hook.transfer_stats()
    assert after["device_to_host"] - before["device_to_host"] == host.nbytes
    assert after["host_to_device"] - before["host_to_device"] == host.nbytes


def test_sent_frame_is_the_pinned_buffer(rng):
    x = npx.asarray(rng.standard_normal(6))
    _, frames = serialize(x, serializers=["dask"])
    assert npx.is_pinned(frames[0].obj.base)


def test_bfloat16_and_odd_views_roundtrip(rng):
    import ml_dtypes
    host = rng.standard_normal((4, 6))
    for view, expected in [(npx.asarray(host).T, host.T),
                           (npx.asarray(host)[::-1, ::2], host[::-1, ::2]),
                           (npx.asarray(np.float64(2.5)), np.float64(2.5)),
                           (npx.empty((0, 3)), np.empty((0, 3)))]:
        np.testing.assert_array_equal(roundtrip(view)[0].to_host(), expected)
    bf16 = host.astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(roundtrip(npx.asarray(bf16))[0].to_host(), bf16)


# -- the cluster -----------------------------------------------------------------------------

def test_each_worker_sees_only_its_device(client):
    def visible():
        import npuarray as npx
        return os.environ["ASCEND_RT_VISIBLE_DEVICES"], npx.device_count(), npx.get_device().id
    seen = sorted(client.run(visible).values())
    assert seen == [("0", 1, 0), ("1", 1, 0)]


def test_workers_are_spawned_processes(client):
    def start_method():
        import multiprocessing
        return multiprocessing.get_start_method(allow_none=True), os.getpid()
    methods = client.run(start_method)
    assert {m for m, _ in methods.values()} == {"spawn"}
    assert len({pid for _, pid in methods.values()} | {os.getpid()}) == 3


def test_computation_over_two_devices_matches_numpy(client, rng):
    host = rng.standard_normal((64, 6))
    x = client.scatter(npx.asarray(host))  # on the client's device; moves through pinned memory
    with dask.config.set({"array.backend": "npuarray"}):
        ones = da.ones((64, 6), chunks=(8, 6))
    total = (ones * 2 + 1).sum(axis=0)  # chunks spread over both workers, partials move
    np.testing.assert_array_equal(client.compute(total).result().to_host(), np.full(6, 192.0))
    doubled = client.submit(lambda a: a * 2, x).result()
    np.testing.assert_array_equal(doubled.to_host(), host * 2)
    reports = client.run(lambda: __import__("npuarray.dask._worker", fromlist=["_"]).device_report())
    assert sum(r["device_to_host"] for r in reports.values()) > 0
    assert all(r["limit_bytes"] == 64 * 2**20 for r in reports.values())
    assert all(r["peak_used_bytes"] > 0 for r in reports.values())


def test_rechunk_moves_chunks_between_workers(client, rng):
    host = rng.standard_normal((16, 16))
    x = da.from_array(host, chunks=(4, 16)).map_blocks(npx.asarray, meta=npx.empty((0, 0)))
    y = x.rechunk((16, 4)).T
    result = client.compute(y).result()
    assert isinstance(result, npx.NPUArray)
    np.testing.assert_array_equal(result.to_host(), host.T)


def test_random_chunks_drawn_on_workers_match_local_draws(client):
    # Per-chunk seeds travel with the tasks: any worker, device or scheduler draws the same.
    with dask.config.set({"array.backend": "npuarray"}):
        x = da.random.default_rng(21).standard_normal((64, 4), chunks=(8, 4))
        local = da.random.default_rng(21).standard_normal((64, 4), chunks=(8, 4))
    remote = client.compute(x).result()
    assert isinstance(remote, npx.NPUArray)
    np.testing.assert_array_equal(remote.to_host(), local.compute(scheduler="sync").to_host())


def test_task_error_reaches_the_client_and_the_cluster_still_works(client):
    def bad_axis():
        import npuarray as npx
        return npx.concat([npx.ones((2, 2)), npx.ones((2, 2))], axis=5)
    with pytest.raises((IndexError, ValueError)):
        client.submit(bad_axis, pure=False).result()
    assert client.submit(lambda: float(__import__("npuarray").ones(3).sum().to_host()),
                         pure=False).result() == 3.0


@pytest.mark.parametrize("n_workers", [0, 9])
def test_worker_count_out_of_range_raises(n_workers):
    with pytest.raises(ValueError, match="NPUs are visible"):
        LocalNPUCluster(n_workers, devices=range(8))


def test_example_runs_on_two_devices_and_checks_numpy():
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "dask_multi_npu.py"), "--workers", "2",
         "--rows", "4096", "--features", "8", "--chunk-rows", "256", "--memory-limit", "64KiB",
         "--repeat", "2"],
        capture_output=True, text=True, timeout=240,
        env={**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 worker(s): best" in result.stdout and "simulated NPUs" in result.stdout
    assert "held of 0.06 MiB" in result.stdout  # each device's pool limit, smaller than the data
    row = next(line for line in result.stdout.splitlines() if line.startswith("| 2 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert float(cells[1]) <= float(cells[2])  # best <= median
    assert cells[3].endswith("MiB") and float(cells[3].split()[0]) >= 4096 * 8 * 8 / 2**20
    assert float(cells[6]) <= 1e-9
