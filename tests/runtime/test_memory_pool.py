"""The caching, stream-ordered device memory pool: statistics, reuse, limit, streams."""
import pickle
import threading
import time

import numpy as np
import pytest

import npuarray as npx
from npuarray.runtime import _memory_pool as mp


def test_size_classes():
    assert mp.round_size(0) == 512 and mp.round_size(1) == 512
    assert mp.round_size(513) == 1024
    assert mp.round_size(1 << 20) == 1 << 20
    for n in (1_000_001, 3 << 20, 5_000_000, 123_456_789):
        size = mp.round_size(n)
        assert n <= size <= n * 1.125 + 512
        assert mp.round_size(size) == size


@pytest.mark.parametrize("text, expected", [
    ("0", 0), ("1024", 1024), ("512M", 512 << 20), ("2GiB", 2 << 30), ("3 kb", 3072),
])
def test_limit_parsing(text, expected):
    assert mp.parse_limit(text, lambda: 1 / 0) == expected


def test_limit_parsing_percentages_and_garbage():
    assert mp.parse_limit("25%", lambda: 4000) == 1000
    assert mp.parse_limit(" 12.5 % ", lambda: 8000) == 1000
    for text in ("lots", "-1", "5 apples"):
        with pytest.raises(ValueError):
            mp.parse_limit(text, lambda: 4000)


@pytest.fixture
def pool():
    """A private pool on device 3, so the statistics are this test's own."""
    pool = mp.MemoryPool(3)
    yield pool
    pool.free_all_blocks()


def test_statistics_and_reuse(pool):
    stream = npx.default_stream(3)
    a = pool.allocate(1000, stream)
    assert a.nbytes == 1000 and a.device == npx.Device(3)
    assert pool.used_bytes() == 1024 and pool.total_bytes() == 1024
    ptr = a.ptr
    del a
    assert pool.used_bytes() == 0 and pool.total_bytes() == 1024
    assert pool.n_free_blocks() == 1
    b = pool.allocate(900, stream)  # same size class, same stream: reused at once
    assert b.ptr == ptr
    assert pool.total_bytes() == 1024
    del b
    pool.free_all_blocks()
    assert pool.total_bytes() == 0 and pool.n_free_blocks() == 0


def test_default_pool_counts_arrays():
    pool = npx.get_default_memory_pool()
    before = pool.used_bytes()
    x = npx.zeros((1024, 1024), dtype=npx.float32)
    assert pool.used_bytes() >= before + (4 << 20)
    assert pool.total_bytes() >= pool.used_bytes()
    view = x[::2]
    del x
    assert pool.used_bytes() >= before + (4 << 20)  # the view keeps the block
    del view
    assert pool.used_bytes() == before


def test_limit_raises_out_of_memory_and_recovers(pool):
    stream = npx.default_stream(3)
    pool.set_limit(1 << 20)
    held = pool.allocate(600_000, stream)
    with pytest.raises(npx.OutOfMemoryError) as info:
        pool.allocate(600_000, stream)
    error = info.value
    assert isinstance(error, MemoryError)
    assert error.requested == 600_000 and error.limit == 1 << 20
    assert "600000" in str(error)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and copy.requested == 600_000 and copy.limit == 1 << 20
    del held
    again = pool.allocate(600_000, stream)  # the pool still works
    assert again.ptr
    del again
    pool.set_limit(0)


def test_cached_blocks_are_freed_before_giving_up(pool):
    stream = npx.default_stream(3)
    pool.set_limit(3 << 20)
    blocks = [pool.allocate(1 << 20, stream) for _ in range(3)]
    del blocks
    assert pool.total_bytes() == 3 << 20 and pool.used_bytes() == 0
    big = pool.allocate(2 << 20, stream)  # only fits after the cache is released
    assert pool.total_bytes() <= 3 << 20
    del big
    pool.set_limit(0)


def test_set_limit_validation(pool):
    with pytest.raises(ValueError):
        pool.set_limit(-1)
    with pytest.raises(ValueError):
        pool.set_limit(fraction=1.5)
    pool.set_limit(fraction=0.5)
    assert pool.get_limit() == npx.Device(3).mem_info()[1] // 2
    pool.set_limit(None)
    assert pool.get_limit() == 0


def test_device_out_of_memory_is_an_out_of_memory_error():
    pool = mp.MemoryPool(4)
    free, total = npx.Device(4).mem_info()
    with pytest.raises(npx.OutOfMemoryError):
        pool.allocate(total + (1 << 30), npx.default_stream(4))
    buffer = pool.allocate(1024, npx.default_stream(4))
    assert buffer.ptr


def test_block_freed_on_a_busy_stream_is_not_handed_to_another_stream():
    """Stream 1 is held back by a host function; its pending work still reads a
    freed block. Stream 2 must get other memory, and stream 1's result must be
    right once it runs."""
    rng = np.random.default_rng()
    host = rng.standard_normal(4096).astype(np.float32) + 1.0
    s1, s2 = npx.Stream(), npx.Stream()
    released = threading.Event()
    with s1:
        x = npx.asarray(host)
        s1.synchronize()
        s1.launch_host_func(lambda: released.wait(5))
        y = x * 2  # queued behind the host function: still reads x
        x_ptr = x._buffer.ptr
        del x
    with s2:
        z = npx.full((4096,), 7.0, dtype=npx.float32)
        assert z._buffer.ptr != x_ptr
        z_host = z.to_host()
    released.set()
    s1.synchronize()
    np.testing.assert_array_equal(z_host, np.full(4096, 7.0, np.float32))
    np.testing.assert_array_equal(y.to_host(stream=s1), host * 2)


def test_block_of_an_idle_stream_is_reused_by_another_stream():
    pool = mp.MemoryPool(5)
    s1, s2 = npx.Stream(5), npx.Stream(5)
    a = pool.allocate(10_000, s1)
    ptr = a.ptr
    del a
    s1.synchronize()
    b = pool.allocate(10_000, s2)
    assert b.ptr == ptr
    del b
    pool.free_all_blocks()


def test_cross_stream_use_is_ordered_by_events():
    """An array written on stream 1 (delayed) and read on stream 2 sees the write."""
    rng = np.random.default_rng()
    host = rng.standard_normal(10_000).astype(np.float32)
    s1, s2 = npx.Stream(), npx.Stream()
    with s1:
        x = npx.asarray(host)
        s1.launch_host_func(lambda: time.sleep(0.2))
        y = x + 1
    with s2:
        z = y * 3
        result = z.to_host(blocking=False)
    s2.synchronize()
    np.testing.assert_allclose(result, (host + 1) * 3, rtol=1e-6)


def test_using_pool_routes_allocations():
    private = mp.MemoryPool(0)
    default = npx.get_default_memory_pool(0)
    before = default.used_bytes()
    with npx.using_pool(private):
        x = npx.empty((1000,), dtype=npx.float64)
        assert private.used_bytes() == 8192
        assert default.used_bytes() == before
    y = npx.empty((1000,), dtype=npx.float64)
    assert private.used_bytes() == 8192
    del x, y
    assert private.used_bytes() == 0
    private.free_all_blocks()


def test_memory_limit_from_environment(run_python):
    code = ("import npuarray as npx\n"
            "pool = npx.get_default_memory_pool()\n"
            "assert pool.get_limit() == 1 << 20, pool.get_limit()\n"
            "x = npx.empty((100_000,), dtype=npx.float32)\n"
            "try:\n"
            "    npx.empty((300_000,), dtype=npx.float32)\n"
            "except npx.OutOfMemoryError as e:\n"
            "    assert e.limit == 1 << 20\n"
            "else:\n"
            "    raise SystemExit('no OutOfMemoryError')\n")
    result = run_python(code, NPUARRAY_MEMORY_LIMIT="1M")
    assert result.returncode == 0, result.stderr


def test_arrays_made_before_a_capture_can_be_used_in_it(rng):
    """A captured wait needs a captured record (CANN: 107024), so an array last
    used on another stream is ordered by the host before the captured work."""
    from npuarray._acl import check, ffi, lib
    host = rng.standard_normal(1000).astype(np.float32)
    x = npx.asarray(host) * 2  # pending work on the default stream
    stream = npx.Stream()
    graph = ffi.new("aclmdlRI *")
    with stream:
        check(lib.aclmdlRICaptureBegin(stream.handle, 0), "aclmdlRICaptureBegin")
        try:
            y = x + 1
        finally:
            check(lib.aclmdlRICaptureEnd(stream.handle, graph), "aclmdlRICaptureEnd")
        for _ in range(2):
            check(lib.aclmdlRIExecuteAsync(graph[0], stream.handle), "aclmdlRIExecuteAsync")
        stream.synchronize()
    check(lib.aclmdlRIDestroy(graph[0]), "aclmdlRIDestroy")
    np.testing.assert_allclose(y.to_host(), host * 2 + 1, rtol=1e-6)


def test_host_reads_are_refused_while_the_stream_is_captured(rng):
    from npuarray._acl import check, ffi, lib
    host = rng.standard_normal(10).astype(np.float32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(npx.empty_pinned(10, np.float32))  # pinned: allowed in capture
        check(lib.aclmdlRICaptureBegin(stream.handle, 0), "aclmdlRICaptureBegin")
        try:
            y = x + 1
            for read in (y.to_host, lambda: float(y[0]), lambda: np.asarray(y)):
                with pytest.raises(npx.CaptureError):
                    read()
            assert "not readable" in repr(y)
        finally:
            graph = ffi.new("aclmdlRI *")
            check(lib.aclmdlRICaptureEnd(stream.handle, graph), "aclmdlRICaptureEnd")
        x[...] = npx.asarray(host)  # new inputs, then replay
        check(lib.aclmdlRIExecuteAsync(graph[0], stream.handle), "aclmdlRIExecuteAsync")
        np.testing.assert_allclose(y.to_host(), host + 1, rtol=1e-6)
    check(lib.aclmdlRIDestroy(graph[0]), "aclmdlRIDestroy")


def test_free_all_blocks_of_one_stream(pool):
    s1, s2 = npx.Stream(3), npx.Stream(3)
    a, b = pool.allocate(4096, s1), pool.allocate(8192, s2)
    del a, b
    assert pool.total_bytes() == 4096 + 8192
    pool.free_all_blocks(stream=s1)
    assert pool.total_bytes() == 8192 and pool.n_free_blocks() == 1
    pool.free_all_blocks()
    assert pool.total_bytes() == 0
