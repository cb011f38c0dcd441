"""Which path an explicit copy of DeviceMemory takes, and that each one keeps its checks.

The copy primitives choose per call: a default stream or ``blocking=True`` copies
synchronously (aclrtSynchronizeStream, then aclrtMemcpy); pinned host memory on another
stream goes through aclrtMemcpyAsync; pageable memory on an idle stream of a device that
kept up is copied directly (aclrtMemcpy; on npusim with its query, in one call), else
staged. The device id, the default stream and the pinned ranges are looked up once per
call: these tests pin down that the choice and the errors (freed memory, sizes, streams
of another device, non-streams, object dtypes) are what they were, for 1 MiB (npusim's
copy engine) and odd sizes."""
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray._acl import InvalidValueError
from npuarray.runtime import _transfer as runtime_transfer

SIZES = [1, 4097, 1 << 20, (1 << 20) + 13]


@pytest.fixture
def acl_calls(monkeypatch):
    """The names of the ACL calls the copy primitives check, in order."""
    calls = []
    real_check = runtime_transfer.check

    def check(ret, name, *args):
        calls.append(name)
        return real_check(ret, name, *args)
    monkeypatch.setattr(runtime_transfer, "check", check)
    return calls


@pytest.fixture
def kept_up(monkeypatch):
    """Device 0's last probe found it keeping up (as npusim's idle device does)."""
    monkeypatch.setattr(runtime_transfer, "_keeps_up", {0: True})


def upload_on_an_idle_stream(data, acl_calls):
    """A new DeviceMemory holding `data`, uploaded without blocking on a new, idle stream,
    which takes one direct aclrtMemcpy; returns (memory, stream)."""
    memory = npx.DeviceMemory(data.nbytes)
    stream = npx.Stream()
    stream.synchronize()
    acl_calls.clear()
    memory.copy_from_host(data, stream=stream, blocking=False)
    assert acl_calls == ["aclrtMemcpy"]
    return memory, stream


def read_back(memory, nbytes):
    return memory.copy_to_host(np.empty(nbytes, np.uint8), nbytes=nbytes)


@pytest.mark.parametrize("nbytes", SIZES)
def test_default_stream_copies_are_synchronous_even_when_not_blocking(
        random_bytes, acl_calls, nbytes):
    data = random_bytes(nbytes)
    expected = data.copy()
    memory = npx.DeviceMemory(nbytes)
    default = npx.get_current_stream()
    assert default.is_default
    acl_calls.clear()
    memory.copy_from_host(data, stream=default, blocking=False)
    assert acl_calls == ["aclrtSynchronizeStream", "aclrtMemcpy"]
    data[:] = 0
    np.testing.assert_array_equal(read_back(memory, nbytes), expected)
    out = np.zeros(nbytes, np.uint8)
    acl_calls.clear()
    memory.copy_to_host(out, stream=default, blocking=False)
    assert acl_calls == ["aclrtSynchronizeStream", "aclrtMemcpy"]
    np.testing.assert_array_equal(out, expected)  # complete on return, no synchronisation


@pytest.mark.parametrize("nbytes", SIZES)
def test_pinned_buffers_on_a_stream_are_queued(random_bytes, acl_calls, nbytes):
    data = random_bytes(nbytes)
    pinned = npx.empty_pinned(nbytes, np.uint8)
    pinned[:] = data
    memory = npx.DeviceMemory(nbytes)
    stream = npx.Stream()
    acl_calls.clear()
    memory.copy_from_host(pinned, stream=stream, blocking=False)
    assert acl_calls[0] == "aclrtMemcpyAsync"
    back = npx.empty_pinned(nbytes, np.uint8)
    acl_calls.clear()
    memory.copy_to_host(back, stream=stream, blocking=False)
    assert acl_calls[0] == "aclrtMemcpyAsync"
    stream.synchronize()
    np.testing.assert_array_equal(back, data)


@pytest.mark.skipif(npx.backend().name != "npusim",
                    reason="npusim's device runs an idle stream's copies before the host looks")
@pytest.mark.parametrize("nbytes", SIZES)
def test_pageable_buffers_on_an_idle_stream_go_direct_and_are_free_on_return(
        random_bytes, acl_calls, kept_up, nbytes):
    data = random_bytes(nbytes)
    expected = data.copy()
    memory, stream = upload_on_an_idle_stream(data, acl_calls)
    data[:] = 0                          # the source may be reused once the call returns
    out = np.zeros(nbytes, np.uint8)
    acl_calls.clear()
    memory.copy_to_host(out, stream=stream, blocking=False)
    assert acl_calls == ["aclrtMemcpy"]
    stream.synchronize()
    np.testing.assert_array_equal(out, expected)


def test_a_freed_memory_is_refused_before_any_copy(acl_calls):
    memory = npx.DeviceMemory(1 << 20)
    memory.free()
    stream = npx.Stream()
    acl_calls.clear()
    with pytest.raises(InvalidValueError, match="freed") as info:
        memory.copy_from_host(np.ones(1 << 20, np.uint8), stream=stream, blocking=False)
    assert info.value.code == 107000
    with pytest.raises(InvalidValueError, match="freed"):
        memory.copy_to_host(np.ones(1 << 20, np.uint8), stream=stream, blocking=False)
    assert acl_calls == []


def test_a_source_larger_than_the_memory_is_refused(acl_calls):
    memory = npx.DeviceMemory(1 << 20)
    stream = npx.Stream()
    acl_calls.clear()
    with pytest.raises(InvalidValueError, match=r"count \(1048577 bytes\) is larger than "
                                                r"destMax \(1048576 bytes\)") as info:
        memory.copy_from_host(np.ones((1 << 20) + 1, np.uint8), stream=stream, blocking=False)
    assert info.value.code == 107000
    assert acl_calls == []
    data = np.arange(1 << 20, dtype=np.uint32).view(np.uint8)[: 1 << 20]
    memory.copy_from_host(data, stream=stream, blocking=False)   # exactly the size: fine
    stream.synchronize()
    np.testing.assert_array_equal(read_back(memory, 1 << 20), data)


@pytest.mark.skipif(npx.device_count() < 2, reason="needs a second device")
def test_a_stream_of_another_device_is_refused():
    memory = npx.DeviceMemory(1 << 20, device=0)
    with npx.Device(1):
        other = npx.Stream()
    with pytest.raises(InvalidValueError, match="the stream is on device 1 but the memory "
                                                "is on device 0"):
        memory.copy_from_host(np.ones(1 << 20, np.uint8), stream=other, blocking=False)
    with pytest.raises(InvalidValueError, match="the stream is on device 1"):
        memory.copy_to_host(np.ones(1 << 20, np.uint8), stream=other, blocking=False)
    same = npx.Stream(npx.Device(0))      # another Device object of the same id: accepted
    data = np.full(1 << 20, 7, np.uint8)
    memory.copy_from_host(data, stream=same, blocking=False)
    same.synchronize()
    np.testing.assert_array_equal(read_back(memory, 1 << 20), data)


def test_non_streams_and_object_arrays_are_type_errors():
    memory = npx.DeviceMemory(64)
    with pytest.raises(TypeError, match="expected an npuarray.Stream, got int"):
        memory.copy_from_host(np.ones(64, np.uint8), stream=1, blocking=False)
    with pytest.raises(TypeError, match="object arrays cannot be copied to a device"):
        memory.copy_from_host(np.array([object()] * 8), stream=npx.Stream(), blocking=False)


@pytest.mark.skipif(npx.backend().name != "npusim",
                    reason="npusim's device runs an idle stream's copies before the host looks")
@pytest.mark.parametrize("one_call", [True, False], ids=["npusim_memcpy_if_idle", "two calls"])
def test_the_idle_check_and_copy_with_and_without_the_one_call_form(
        random_bytes, acl_calls, kept_up, monkeypatch, one_call):
    """npusim answers the idle check and copies in one call; a provider without it (CANN)
    queries the stream, then copies: the same copies either way, busy streams staged."""
    if not one_call:
        monkeypatch.setattr(runtime_transfer, "_memcpy_if_idle", None)
    nbytes = (1 << 20) + 5
    data = random_bytes(nbytes)
    memory, stream = upload_on_an_idle_stream(data, acl_calls)
    np.testing.assert_array_equal(read_back(memory, nbytes), data)
    release = threading.Event()
    stream.launch_host_func(lambda: release.wait(30))
    try:
        acl_calls.clear()
        memory.copy_from_host(data[::-1], stream=stream, blocking=False)
        assert "aclrtMemcpy" not in acl_calls and "aclrtMemcpyAsync" in acl_calls
    finally:
        release.set()
    stream.synchronize()
    np.testing.assert_array_equal(read_back(memory, nbytes), data[::-1])
