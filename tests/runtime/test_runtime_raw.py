"""The data-transfer and synchronisation workflows of the AscendCL documents (seeds 000, 001,
004), through the raw binding ``npuarray._acl.lib`` with CANN's own call sequences.

Each test runs on a fresh thread: raw aclrtSetDevice calls change the calling thread's
ACL state, which the Python runtime objects of the main thread must not see.
"""
import numpy as np
import pytest

from npuarray._acl import check, ffi, lib
from npuarray.runtime import _device

SIZE = 1 << 20  # the documents' 1 MiB


def ok(ret, api="acl call"):
    check(ret, api)


def malloc_host(nbytes):
    ptr = ffi.new("void **")
    ok(lib.aclrtMallocHost(ptr, nbytes), "aclrtMallocHost")
    return ptr[0]


def malloc_device(nbytes, policy=None):
    ptr = ffi.new("void **")
    policy = lib.ACL_MEM_MALLOC_HUGE_FIRST if policy is None else policy
    ok(lib.aclrtMalloc(ptr, nbytes, policy), "aclrtMalloc")
    return ptr[0]


def create_stream():
    stream = ffi.new("aclrtStream *")
    ok(lib.aclrtCreateStream(stream), "aclrtCreateStream")
    return stream[0]


def create_event(flags):
    event = ffi.new("aclrtEvent *")
    ok(lib.aclrtCreateEventExWithFlag(event, flags), "aclrtCreateEventExWithFlag")
    return event[0]


def write_host(ptr, data):
    ffi.memmove(ptr, data.tobytes(), data.nbytes)


def read_host(ptr, nbytes):
    return np.frombuffer(ffi.buffer(ptr, nbytes)[:], dtype=np.uint8)


def upload(data):
    """Device memory holding `data` (through a pinned buffer and a synchronous copy)."""
    host = malloc_host(data.nbytes)
    write_host(host, data)
    dev = malloc_device(data.nbytes)
    ok(lib.aclrtMemcpy(dev, data.nbytes, host, data.nbytes, lib.ACL_MEMCPY_HOST_TO_DEVICE))
    ok(lib.aclrtFreeHost(host))
    return dev


def download(dev, nbytes):
    host = malloc_host(nbytes)
    ok(lib.aclrtMemcpy(host, nbytes, dev, nbytes, lib.ACL_MEMCPY_DEVICE_TO_HOST))
    data = read_host(host, nbytes).copy()
    ok(lib.aclrtFreeHost(host))
    return data


def test_run_mode_is_host(in_fresh_thread):
    def body():
        ok(lib.aclrtSetDevice(0))
        mode = ffi.new("aclrtRunMode *")
        ok(lib.aclrtGetRunMode(mode), "aclrtGetRunMode")
        assert mode[0] == lib.ACL_HOST
    in_fresh_thread(body)


def test_intra_host_sync_copy(in_fresh_thread, random_bytes):
    data = random_bytes(SIZE)

    def body():
        ok(lib.aclrtSetDevice(0))
        a, b = malloc_host(SIZE), malloc_host(SIZE)
        ok(lib.aclrtMemset(b, SIZE, 0, SIZE), "aclrtMemset")
        write_host(a, data)
        ok(lib.aclrtMemcpy(b, SIZE, a, SIZE, lib.ACL_MEMCPY_HOST_TO_HOST), "aclrtMemcpy")
        np.testing.assert_array_equal(read_host(b, SIZE), data)
        ok(lib.aclrtFreeHost(a))
        ok(lib.aclrtFreeHost(b))
    in_fresh_thread(body)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_host_to_device_and_back(in_fresh_thread, random_bytes, asynchronous):
    data = random_bytes(SIZE)

    def body():
        ok(lib.aclrtSetDevice(0))
        host, dev = malloc_host(SIZE), malloc_device(SIZE)
        back = malloc_host(SIZE)
        write_host(host, data)
        ok(lib.aclrtMemset(back, SIZE, 0, SIZE))
        if asynchronous:
            stream = create_stream()
            ok(lib.aclrtMemcpyAsync(dev, SIZE, host, SIZE, lib.ACL_MEMCPY_HOST_TO_DEVICE, stream))
            ok(lib.aclrtMemcpyAsync(back, SIZE, dev, SIZE, lib.ACL_MEMCPY_DEVICE_TO_HOST, stream))
            ok(lib.aclrtSynchronizeStream(stream), "aclrtSynchronizeStream")
            ok(lib.aclrtDestroyStream(stream), "aclrtDestroyStream")
        else:
            ok(lib.aclrtMemcpy(dev, SIZE, host, SIZE, lib.ACL_MEMCPY_HOST_TO_DEVICE))
            ok(lib.aclrtMemcpy(back, SIZE, dev, SIZE, lib.ACL_MEMCPY_DEVICE_TO_HOST))
        np.testing.assert_array_equal(read_host(back, SIZE), data)
        for ptr in (host, back):
            ok(lib.aclrtFreeHost(ptr))
        ok(lib.aclrtFree(dev), "aclrtFree")
    in_fresh_thread(body)


def test_intra_device_sync_and_async(in_fresh_thread, random_bytes):
    data = random_bytes(SIZE)

    def body():
        ok(lib.aclrtSetDevice(0))
        a, b, c = upload(data), malloc_device(SIZE), malloc_device(SIZE)
        ok(lib.aclrtMemcpy(b, SIZE, a, SIZE, lib.ACL_MEMCPY_DEVICE_TO_DEVICE))
        stream = create_stream()
        ok(lib.aclrtMemcpyAsync(c, SIZE, b, SIZE, lib.ACL_MEMCPY_DEVICE_TO_DEVICE, stream))
        ok(lib.aclrtSynchronizeStream(stream))
        ok(lib.aclrtDestroyStream(stream))
        np.testing.assert_array_equal(download(b, SIZE), data)
        np.testing.assert_array_equal(download(c, SIZE), data)
        for ptr in (a, b, c):
            ok(lib.aclrtFree(ptr))
    in_fresh_thread(body)


def test_inter_device_copy_after_enabling_peer_access(in_fresh_thread, random_bytes):
    """Seed 000 "Inter-Device Data Transfer": query, enable both ways, copy device 0 -> 1."""
    data = random_bytes(10)
    peer_access_before = set(_device._peer_access)

    def body():
        can = ffi.new("int32_t *")
        ok(lib.aclrtDeviceCanAccessPeer(can, 0, 1), "aclrtDeviceCanAccessPeer")
        assert can[0] == 1  # devices 0 and 1 share a simulated PCIe switch
        ok(lib.aclrtSetDevice(0))
        ok(lib.aclrtDeviceEnablePeerAccess(1, 0), "aclrtDeviceEnablePeerAccess")
        dev0 = malloc_device(10, lib.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
        ok(lib.aclrtMemset(dev0, 10, 1, 10))
        host = malloc_host(10)
        write_host(host, data)
        ok(lib.aclrtMemcpy(dev0, 10, host, 10, lib.ACL_MEMCPY_HOST_TO_DEVICE))
        ok(lib.aclrtSetDevice(1))
        ok(lib.aclrtDeviceEnablePeerAccess(0, 0), "aclrtDeviceEnablePeerAccess")
        dev1 = malloc_device(10, lib.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
        ok(lib.aclrtMemset(dev1, 10, 0, 10))
        ok(lib.aclrtMemcpy(dev1, 10, dev0, 10, lib.ACL_MEMCPY_DEVICE_TO_DEVICE), "aclrtMemcpy")
        np.testing.assert_array_equal(download(dev1, 10), data)
        ok(lib.aclrtFree(dev1))
        ok(lib.aclrtSetDevice(0))
        ok(lib.aclrtFree(dev0))
        ok(lib.aclrtFreeHost(host))
        # Peer access is process-wide: disable only what npuarray.Device had not enabled
        # before, so the Python layer's record of it stays true for later tests.
        for device, peer in ((0, 1), (1, 0)):
            if (device, peer) not in peer_access_before:
                ok(lib.aclrtSetDevice(device))
                ok(lib.aclrtDeviceDisablePeerAccess(peer), "aclrtDeviceDisablePeerAccess")
    in_fresh_thread(body)


def test_event_synchronisation(in_fresh_thread, random_bytes):
    """Seed 004: record an event after work, synchronise on it, the work is done."""
    data = random_bytes(SIZE)

    def body():
        ok(lib.aclrtSetDevice(0))
        event = create_event(lib_flag("ACL_EVENT_CAPTURE_STREAM_PROGRESS"))
        stream = create_stream()
        host, dev, back = malloc_host(SIZE), malloc_device(SIZE), malloc_host(SIZE)
        write_host(host, data)
        ok(lib.aclrtMemcpyAsync(dev, SIZE, host, SIZE, lib.ACL_MEMCPY_HOST_TO_DEVICE, stream))
        ok(lib.aclrtMemcpyAsync(back, SIZE, dev, SIZE, lib.ACL_MEMCPY_DEVICE_TO_HOST, stream))
        ok(lib.aclrtRecordEvent(event, stream), "aclrtRecordEvent")
        ok(lib.aclrtSynchronizeEvent(event), "aclrtSynchronizeEvent")
        status = ffi.new("aclrtEventRecordedStatus *")
        ok(lib.aclrtQueryEventStatus(event, status), "aclrtQueryEventStatus")
        assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE
        np.testing.assert_array_equal(read_host(back, SIZE), data)
        ok(lib.aclrtDestroyStream(stream))
        ok(lib.aclrtDestroyEvent(event), "aclrtDestroyEvent")
        for ptr in (host, back):
            ok(lib.aclrtFreeHost(ptr))
        ok(lib.aclrtFree(dev))
    in_fresh_thread(body)


def lib_flag(name):
    """Event flag values of acl_rt.h (macros, so not in the cdef)."""
    return {"ACL_EVENT_SYNC": 0x1, "ACL_EVENT_CAPTURE_STREAM_PROGRESS": 0x2,
            "ACL_EVENT_TIME_LINE": 0x8}[name]


@ffi.callback("void(void *)")
def _sleep_then_write(args):
    """Host function: waits, then fills the pinned buffer `args` points to with 7s.
    It delays the producer stream so that a missing event wait would be seen."""
    import time
    time.sleep(0.2)
    block = ffi.cast("uint8_t **", args)[0]
    ffi.memmove(block, b"\x07" * 4096, 4096)


def test_cross_stream_ordering_through_an_event(in_fresh_thread):
    """Seed 004: s2 waits on an event recorded on s1; s2's copy sees what s1 produced."""
    def body():
        ok(lib.aclrtSetDevice(0))
        event = create_event(lib_flag("ACL_EVENT_SYNC"))
        s1, s2 = create_stream(), create_stream()
        pinned, dev, back = malloc_host(4096), malloc_device(4096), malloc_host(4096)
        ok(lib.aclrtMemset(pinned, 4096, 0, 4096))
        ok(lib.aclrtMemset(back, 4096, 0, 4096))
        box = ffi.new("uint8_t **", ffi.cast("uint8_t *", pinned))
        # producer: slow host function writes the pinned buffer, then H2D
        ok(lib.aclrtLaunchHostFunc(s1, _sleep_then_write, box), "aclrtLaunchHostFunc")
        ok(lib.aclrtMemcpyAsync(dev, 4096, pinned, 4096, lib.ACL_MEMCPY_HOST_TO_DEVICE, s1))
        ok(lib.aclrtRecordEvent(event, s1))
        # consumer: waits for the event, then D2H
        ok(lib.aclrtStreamWaitEvent(s2, event), "aclrtStreamWaitEvent")
        ok(lib.aclrtMemcpyAsync(back, 4096, dev, 4096, lib.ACL_MEMCPY_DEVICE_TO_HOST, s2))
        ok(lib.aclrtSynchronizeStream(s2))
        assert bytes(ffi.buffer(back, 4096)) == b"\x07" * 4096
        ok(lib.aclrtSynchronizeStream(s1))
        for stream in (s2, s1):
            ok(lib.aclrtDestroyStream(stream))
        ok(lib.aclrtDestroyEvent(event))
        for ptr in (pinned, back):
            ok(lib.aclrtFreeHost(ptr))
        ok(lib.aclrtFree(dev))
    in_fresh_thread(body)


def test_device_synchronisation(in_fresh_thread, random_bytes):
    """Seed 004: aclrtSynchronizeDevice waits for the work of every stream of the device."""
    data = random_bytes(SIZE)

    def body():
        ok(lib.aclrtSetDevice(0))
        streams = [create_stream() for _ in range(3)]
        host = malloc_host(SIZE)
        write_host(host, data)
        devs = [malloc_device(SIZE) for _ in streams]
        backs = [malloc_host(SIZE) for _ in streams]
        for stream, dev, back in zip(streams, devs, backs):
            ok(lib.aclrtMemset(back, SIZE, 0, SIZE))
            ok(lib.aclrtMemcpyAsync(dev, SIZE, host, SIZE, lib.ACL_MEMCPY_HOST_TO_DEVICE, stream))
            ok(lib.aclrtMemcpyAsync(back, SIZE, dev, SIZE, lib.ACL_MEMCPY_DEVICE_TO_HOST, stream))
        ok(lib.aclrtSynchronizeDevice(), "aclrtSynchronizeDevice")
        for stream, dev, back in zip(streams, devs, backs):
            status = ffi.new("aclrtStreamStatus *")
            ok(lib.aclrtStreamQuery(stream, status), "aclrtStreamQuery")
            assert status[0] == lib.ACL_STREAM_STATUS_COMPLETE
            np.testing.assert_array_equal(read_host(back, SIZE), data)
            ok(lib.aclrtDestroyStream(stream))
            ok(lib.aclrtFree(dev))
            ok(lib.aclrtFreeHost(back))
        ok(lib.aclrtFreeHost(host))
    in_fresh_thread(body)
