"""Spilling NPUArray chunks from the device to pinned host memory and disk (NPUHostFile), in
one process and on a LocalNPUCluster worker whose persisted array is four times its spill
threshold."""
import numpy as np
import pytest

pytest.importorskip("dask.array", reason="dask is not installed (pip install 'npuarray[dask]')")
pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install 'npuarray[dask]')")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client, wait  # noqa: E402

import npuarray as npx  # noqa: E402
from npuarray.dask import LocalNPUCluster  # noqa: E402
from npuarray.dask._spill import (NPUHostFile, device_nbytes,  # noqa: E402
                                  parse_device_memory_limit, spill_stats)

CHUNK = 128 * 1024  # bytes: a size class of the pool (no rounding)
THRESHOLD = 8 * CHUNK


def chunk(value, dtype=np.float64):
    return npx.asarray(np.full(CHUNK // np.dtype(dtype).itemsize, value, dtype))


@pytest.fixture
def store(tmp_path):
    data = NPUHostFile(device_memory_limit=4 * CHUNK, memory_limit=3 * CHUNK,
                       worker_local_directory=str(tmp_path))
    yield data
    data.close()


# -- in one process --------------------------------------------------------------------------

def test_least_recently_used_chunks_go_to_host_then_disk_and_come_back(store):
    pool = npx.get_default_memory_pool()
    base = pool.used_bytes()
    before = spill_stats()
    for i in range(12):
        store[("x", i)] = chunk(i)
        assert pool.used_bytes() - base <= 4 * CHUNK
    tiers = store.tier_bytes()
    assert tiers["device"] == 4 * CHUNK
    assert 0 < tiers["host"] <= 3 * CHUNK + 1024  # the pinned copies (and their headers)
    assert tiers["disk"] >= 5 * CHUNK  # the rest
    assert list(store.device.fast.order) == [("x", i) for i in range(8, 12)]  # the most recent
    assert spill_stats()["spilled"] - before["spilled"] == 8 * CHUNK
    for i in [0, 5, 11, 0]:  # from disk, from host, from the device, from the device again
        value = store[("x", i)]
        assert isinstance(value, npx.NPUArray)
        np.testing.assert_array_equal(value.to_host(), np.full(CHUNK // 8, float(i)))
        del value
        assert pool.used_bytes() - base <= 4 * CHUNK
    assert list(store.device.fast.order)[-2:] == [("x", 11), ("x", 0)]  # read: most recently used
    assert spill_stats()["unspilled"] - before["unspilled"] == 2 * CHUNK
    assert len(store) == 12 and set(store) == {("x", i) for i in range(12)}


def test_host_objects_stay_on_the_host_and_containers_count_their_chunks(store):
    store["meta"] = np.arange(5)
    store["pair"] = (chunk(1.0), 3)
    store["dict"] = {"a": chunk(2.0)}
    assert store.tier_bytes()["device"] == 2 * CHUNK
    assert device_nbytes(store["pair"]) == CHUNK and device_nbytes(np.ones(3)) == 0
    for i in range(4):
        store[i] = chunk(i)  # pushes both containers off the device
    pair = store["pair"]
    assert isinstance(pair, tuple) and pair[1] == 3
    np.testing.assert_array_equal(pair[0].to_host(), np.ones(CHUNK // 8))
    np.testing.assert_array_equal(store["dict"]["a"].to_host(), np.full(CHUNK // 8, 2.0))
    np.testing.assert_array_equal(store["meta"], np.arange(5))
    del store["meta"], store["pair"], store[0]
    assert "meta" not in store and "pair" not in store and 0 not in store and 1 in store
    store[1] = np.zeros(2)  # replaced by a host object: leaves the device tier
    assert isinstance(store[1], np.ndarray) and 1 not in store.device.fast


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.complex64, np.bool_, np.uint64])
def test_spilled_chunks_keep_dtype_and_values_through_disk(tmp_path, rng, dtype):
    data = NPUHostFile(device_memory_limit=1, memory_limit=1, worker_local_directory=str(tmp_path))
    host = (rng.standard_normal((33, 7)) * 50).astype(dtype)
    data["a"] = npx.asarray(host)
    data["b"] = npx.asarray(host[::-1])  # over both limits: both on disk at once
    assert data.tier_bytes()["device"] == 0 and data.tier_bytes()["disk"] > 0
    np.testing.assert_array_equal(data["a"].to_host(), host)
    assert data["b"].dtype == host.dtype
    data.close()


def test_a_chunk_spilled_while_its_stream_still_computes_it_is_complete(store, rng):
    # The D2H copy runs on the transfer stream after an event on the producing stream: the
    # spilled bytes are the finished product, with no device-wide synchronisation.
    host = rng.standard_normal((256, 256))
    a = npx.asarray(host)
    stream = npx.Stream()
    with stream:
        product = a @ a + 1.0  # queued on `stream`, not synchronised
        store["p"] = product
        del product
        for i in range(5):
            store[i] = chunk(i)  # spills "p" at once
    assert "p" not in store.device.fast
    np.testing.assert_allclose(store["p"].to_host(), host @ host + 1.0, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(store["p"].to_host(), (a @ a + 1.0).to_host())


def test_device_memory_limit_parsing():
    pool = npx.MemoryPool(0, limit=64 * 2**20)
    assert parse_device_memory_limit("1MiB", pool) == 2**20
    assert parse_device_memory_limit(0.25, pool) == 16 * 2**20
    assert parse_device_memory_limit("0.5", pool) == 32 * 2**20
    assert parse_device_memory_limit(3000, pool) == 3000
    assert parse_device_memory_limit("0", pool) == parse_device_memory_limit(None) == 0
    unlimited = npx.MemoryPool(0)
    assert parse_device_memory_limit(0.5, unlimited) == npx.Device(0).mem_info()[1] // 2
    for bad in (-1, "-2MiB", "lots"):
        with pytest.raises(ValueError, match="device memory limit"):
            parse_device_memory_limit(bad, pool)


# -- on a worker -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def spilling(tmp_path_factory):
    """One worker: spill threshold 8 chunks, host memory for 8 more (then disk), and a pool
    whose hard limit is the threshold plus one chunk: more in use raises OutOfMemoryError."""
    # Dask's memory monitor watches the process's RSS, which on npusim holds the simulated
    # device memory too: only the tiers' own limits are under test here.
    monitor_off = {f"distributed.worker.memory.{k}": False
                   for k in ("target", "spill", "pause", "terminate")}
    with dask.config.set(monitor_off), LocalNPUCluster(
            1, memory_limit=THRESHOLD + CHUNK, device_memory_limit=THRESHOLD,
            host_memory_limit=THRESHOLD, env={"NPUSIM_NUM_THREADS": "1"},
            local_directory=str(tmp_path_factory.mktemp("spill"))) as cluster, \
            Client(cluster) as client:
        yield cluster, client


def test_a_persisted_array_four_times_the_threshold_computes_right(spilling, rng):
    cluster, client = spilling
    rows = CHUNK // (8 * 128)
    host = rng.standard_normal((32 * rows, 128))  # 32 chunks: 4x the threshold
    x = da.from_array(host, chunks=(rows, 128)).map_blocks(npx.asarray, meta=npx.empty((0, 0)))
    x = client.persist(x)
    wait(x)
    report = cluster.device_reports(client)["npu-0"]
    assert report["spill_threshold_bytes"] == THRESHOLD
    assert report["limit_bytes"] == THRESHOLD + CHUNK
    assert report["device_count"] == 1  # the worker sees only its NPU
    assert report["device_bytes"] <= THRESHOLD
    assert 0 < report["host_bytes"] <= THRESHOLD + 4096
    assert report["disk_bytes"] >= 8 * CHUNK
    key = x.__dask_keys__()[0][0]
    assert client.run(lambda dask_worker: type(dask_worker.data[key]).__name__) == \
        {cluster.workers["npu-0"].worker_address: "NPUArray"}

    # Each task reads a spilled chunk back (the device tier makes room first) and keeps only
    # a small result: the pool's hard limit holds throughout.
    total, largest, row_min = client.compute([x.sum(axis=0), x.max(), x.min(axis=1)], sync=True)
    np.testing.assert_allclose(total.to_host(), host.sum(axis=0), rtol=1e-12, atol=1e-10)
    assert largest.to_host() == host.max()
    np.testing.assert_array_equal(row_min.to_host(), host.min(axis=1))
    report = cluster.device_reports(client)["npu-0"]
    assert report["peak_used_bytes"] <= THRESHOLD + CHUNK
    assert report["unspilled"] >= 24 * CHUNK and report["spilled"] >= 24 * CHUNK

    # Operations with their own temporaries (a float64 matmul's partial products): the
    # pool's hard limit is lifted, spilling still keeps the stored chunks under the threshold.
    client.run(lambda: npx.get_default_memory_pool().set_limit(0))
    gram = client.compute(x.T @ (x * 2.0), sync=True)
    np.testing.assert_allclose(gram.to_host(), host.T @ (host * 2.0), rtol=1e-10)
    assert cluster.device_reports(client)["npu-0"]["device_bytes"] <= THRESHOLD


def test_the_worker_metrics_show_each_tier(spilling):
    cluster, client = spilling
    x = client.persist(da.ones((40 * 128, 128), chunks=(128, 128)).map_blocks(
        npx.asarray, meta=npx.empty((0, 0))))
    wait(x)
    address = cluster.workers["npu-0"].worker_address
    expected = client.run(lambda dask_worker: dask_worker.data.tier_bytes())[address]
    assert expected["host"] > 0 and expected["disk"] > 0
    async def heartbeat(dask_worker):
        await dask_worker.heartbeat()
    client.run(heartbeat)
    metrics = client.scheduler_info()["workers"][address]["metrics"]
    assert {tier: metrics[f"npu_{tier}_bytes"] for tier in expected} == expected
    assert metrics["spilled_bytes"]["disk"] == expected["disk"]
    np.testing.assert_array_equal(client.compute(x.sum(), sync=True).to_host(), 40 * 128 * 128)
