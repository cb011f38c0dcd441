"""npusim_memcpy_if_idle: aclrtStreamQuery, then aclrtMemcpy only when the stream has run
everything queued on it (npuarray's direct copy of pageable memory on an idle stream, in
one call). Busy streams and failed queries copy nothing and answer NPUSIM_STREAM_BUSY;
the copy's own errors are aclrtMemcpy's."""
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray._acl import ffi, lib

pytestmark = pytest.mark.skipif(npx.backend().name != "npusim",
                                reason="npusim_memcpy_if_idle is npusim's own function")

H2D, D2H = lib.ACL_MEMCPY_HOST_TO_DEVICE, lib.ACL_MEMCPY_DEVICE_TO_HOST
BUSY = lib.NPUSIM_STREAM_BUSY


def device(memory):
    return ffi.cast("void *", memory.ptr)


@pytest.mark.parametrize("nbytes", [1, 4097, 1 << 20, (3 << 20) + 5])
def test_an_idle_stream_copies_both_ways(random_bytes, nbytes):
    data = random_bytes(nbytes)
    memory = npx.DeviceMemory(nbytes)
    stream = npx.Stream()
    stream.synchronize()
    assert lib.npusim_memcpy_if_idle(device(memory), nbytes, ffi.from_buffer(data), nbytes,
                                     H2D, stream.handle) == 0
    out = np.zeros(nbytes, np.uint8)
    assert lib.npusim_memcpy_if_idle(ffi.from_buffer(out), nbytes, device(memory), nbytes,
                                     D2H, stream.handle) == 0
    np.testing.assert_array_equal(out, data)


def test_a_busy_stream_copies_nothing(random_bytes):
    nbytes = 1 << 20
    memory = npx.DeviceMemory(nbytes)
    memory.memset(0)
    stream = npx.Stream()
    release = threading.Event()
    stream.launch_host_func(lambda: release.wait(30))
    data = random_bytes(nbytes)
    try:
        assert lib.npusim_memcpy_if_idle(device(memory), nbytes, ffi.from_buffer(data),
                                         nbytes, H2D, stream.handle) == BUSY
    finally:
        release.set()
    stream.synchronize()
    assert not memory.copy_to_host().any()
    assert lib.npusim_memcpy_if_idle(device(memory), nbytes, ffi.from_buffer(data), nbytes,
                                     H2D, stream.handle) == 0
    np.testing.assert_array_equal(memory.copy_to_host(), data)


def test_a_stream_that_is_not_live_is_busy_and_the_query_error_is_the_recent_one():
    memory = npx.DeviceMemory(64)
    memory.memset(0)
    data = np.ones(64, np.uint8)
    bogus = ffi.cast("void *", 0x10)
    assert lib.npusim_memcpy_if_idle(device(memory), 64, ffi.from_buffer(data), 64, H2D,
                                     bogus) == BUSY
    assert "aclrtStreamQuery" in ffi.string(lib.aclGetRecentErrMsg()).decode()
    assert not memory.copy_to_host().any()


@pytest.mark.parametrize("case", ["count above destMax", "freed device memory", "bad kind"])
def test_copy_errors_are_aclrtMemcpys(case):
    memory = npx.DeviceMemory(64)
    freed = npx.DeviceMemory(64)
    freed_ptr = device(freed)
    freed.free()
    host = np.zeros(128, np.uint8)
    stream = npx.Stream()
    stream.synchronize()
    args = {"count above destMax": (device(memory), 64, ffi.from_buffer(host), 128, H2D),
            "freed device memory": (freed_ptr, 64, ffi.from_buffer(host), 64, H2D),
            "bad kind": (device(memory), 64, ffi.from_buffer(host), 64, 99)}[case]
    expected = lib.aclrtMemcpy(*args)
    assert expected != 0
    assert lib.npusim_memcpy_if_idle(*args, stream.handle) == expected
