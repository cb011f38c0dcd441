"""The seed workflows (000, 001, 004) through the Python runtime objects: Device, Stream,
Event, pinned memory, DeviceMemory; and the semantics of current devices and streams."""
import threading
import time

import numpy as np
import pytest

import npuarray as npx

SIZE = 1 << 20


# -- devices -------------------------------------------------------------------------------

def test_device_count_and_current_device():
    assert npx.device_count() == 8  # NPUSIM_DEVICE_COUNT default
    assert npx.get_device() == npx.Device(0)
    with npx.Device(3) as device:
        assert device.id == 3
        assert npx.get_device().id == 3
        with npx.Device(5):
            assert npx.get_device().id == 5
        assert npx.get_device().id == 3
    assert npx.get_device().id == 0


def test_current_device_is_thread_local():
    seen = []
    with npx.Device(2):
        thread = threading.Thread(target=lambda: seen.append(npx.get_device().id))
        thread.start()
        thread.join()
    assert seen == [0]


def test_mem_info_reports_allocations():
    device = npx.Device(1)
    free_before, total = device.mem_info()
    assert 0 < free_before <= total
    memory = npx.DeviceMemory(64 << 20, device=1)
    free_after, total_after = device.mem_info()
    assert total_after == total
    assert free_before - free_after >= 64 << 20
    memory.free()
    assert device.mem_info()[0] == free_before


# -- copies through DeviceMemory -----------------------------------------------------------

def test_host_to_device_to_host_sync_pageable(random_bytes):
    data = random_bytes(SIZE)
    memory = npx.DeviceMemory(SIZE)
    memory.copy_from_host(data)
    np.testing.assert_array_equal(memory.copy_to_host(), data)


def test_host_to_device_to_host_sync_pinned(random_bytes):
    data = npx.empty_pinned(SIZE, np.uint8)
    data[:] = random_bytes(SIZE)
    out = npx.zeros_pinned(SIZE, np.uint8)
    memory = npx.DeviceMemory(SIZE)
    memory.copy_from_host(data)
    assert memory.copy_to_host(out) is out
    np.testing.assert_array_equal(out, data)


@pytest.mark.parametrize("pinned", [True, False], ids=["pinned", "pageable"])
def test_async_round_trip_on_a_stream(random_bytes, pinned):
    data = random_bytes(3 * SIZE + 123)
    if pinned:
        source = npx.empty_pinned(data.shape, np.uint8)
        source[:] = data
        out = npx.zeros_pinned(data.shape, np.uint8)
    else:
        source, out = data.copy(), np.zeros_like(data)
    memory = npx.DeviceMemory(data.nbytes)
    with npx.Stream() as stream:
        memory.copy_from_host(source, blocking=False)
        if not pinned:
            source[:] = 0  # pageable input was staged: the caller may reuse it at once
        memory.copy_to_host(out, blocking=False)
        stream.synchronize()
    np.testing.assert_array_equal(out, data)


def test_async_staged_copy_of_many_chunks(random_bytes):
    data = random_bytes(20 << 20)  # several staging chunks, so the pipeline is exercised
    memory = npx.DeviceMemory(data.nbytes)
    out = np.zeros_like(data)
    stream = npx.Stream()
    memory.copy_from_host(data, stream=stream, blocking=False)
    memory.copy_to_host(out, stream=stream, blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(out, data)


def test_copy_of_typed_and_strided_arrays(rng):
    data = rng.standard_normal((64, 33))
    memory = npx.DeviceMemory(data[:, ::2].nbytes)
    memory.copy_from_host(data[:, ::2])  # non-contiguous: copied as its C-order bytes
    back = np.empty((64, 17))
    memory.copy_to_host(back)
    np.testing.assert_array_equal(back, data[:, ::2])


def test_device_to_device_sync_and_async(random_bytes):
    data = random_bytes(SIZE)
    a, b, c = (npx.DeviceMemory(SIZE) for _ in range(3))
    a.copy_from_host(data)
    b.copy_from_device(a)                    # default stream: synchronous
    np.testing.assert_array_equal(b.copy_to_host(), data)
    stream = npx.Stream()
    c.copy_from_device(b, stream=stream)     # another stream: asynchronous, in order
    out = npx.zeros_pinned(SIZE, np.uint8)
    c.copy_to_host(out, stream=stream, blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(out, data)


def test_memset_sync_and_async():
    memory = npx.DeviceMemory(4096)
    memory.memset(0xAB)
    np.testing.assert_array_equal(memory.copy_to_host(), np.full(4096, 0xAB, np.uint8))
    stream = npx.Stream()
    memory.memset(0x11, stream=stream)
    out = memory.copy_to_host(stream=stream)  # blocking by default
    np.testing.assert_array_equal(out, np.full(4096, 0x11, np.uint8))


def test_inter_device_copy_with_peer_access(random_bytes):
    data = random_bytes(SIZE)
    dev2, dev3 = npx.Device(2), npx.Device(3)
    assert dev2.can_access_peer(dev3) and dev3.can_access_peer(dev2)
    dev2.enable_peer_access(dev3)
    dev3.enable_peer_access(dev2)
    src = npx.DeviceMemory(SIZE, device=2)
    src.copy_from_host(data)
    dst = npx.DeviceMemory(SIZE, device=3)
    dst.copy_from_device(src)
    np.testing.assert_array_equal(dst.copy_to_host(), data)


def test_inter_device_copy_without_peer_access_is_staged(random_bytes):
    data = random_bytes(SIZE)
    assert not npx.Device(0).can_access_peer(npx.Device(4))  # different PCIe switches
    src = npx.DeviceMemory(SIZE, device=0)
    src.copy_from_host(data)
    dst = npx.DeviceMemory(SIZE, device=4)
    dst.copy_from_device(src)
    np.testing.assert_array_equal(dst.copy_to_host(), data)


# -- streams and events --------------------------------------------------------------------

def test_default_stream_is_created_by_npuarray_and_per_device():
    s0 = npx.default_stream()
    assert s0 is npx.default_stream(0) and s0.is_default
    assert s0.handle != npx._acl.ffi.NULL
    assert npx.default_stream(1).device.id == 1
    assert npx.get_current_stream() is s0


def test_with_stream_sets_and_restores_the_current_stream():
    outer, inner = npx.Stream(), npx.Stream()
    with outer:
        assert npx.get_current_stream() is outer
        with inner:
            assert npx.get_current_stream() is inner
        assert npx.get_current_stream() is outer
    assert npx.get_current_stream() is npx.default_stream()


def test_stream_of_another_device_becomes_current_for_that_device():
    other = npx.Stream(device=6)
    with other:
        assert npx.get_device().id == 6
        assert npx.get_current_stream() is other
        assert npx.get_current_stream(0) is npx.default_stream(0)
    assert npx.get_device().id == 0
    assert npx.get_current_stream(6) is npx.default_stream(6)


def test_current_stream_is_thread_local():
    stream = npx.Stream()
    seen = []
    with stream:
        thread = threading.Thread(target=lambda: seen.append(npx.get_current_stream()))
        thread.start()
        thread.join()
    assert seen == [npx.default_stream()]


def test_event_synchronize_and_query(random_bytes):
    data = random_bytes(SIZE)
    stream = npx.Stream()
    gate = threading.Event()
    stream.launch_host_func(lambda: gate.wait(5))
    memory = npx.DeviceMemory(SIZE)
    memory.copy_from_host(data, stream=stream, blocking=False)
    event = stream.record()
    assert not event.query() and not stream.query()
    gate.set()
    event.synchronize()
    assert event.query()
    out = memory.copy_to_host(stream=stream)
    np.testing.assert_array_equal(out, data)


def test_event_elapsed_time_measures_a_delay():
    stream = npx.Stream()
    start, end = npx.Event(timing=True), npx.Event(timing=True)
    start.record(stream)
    stream.launch_host_func(lambda: time.sleep(0.05))
    end.record(stream)
    end.synchronize()
    elapsed = start.elapsed_time(end)
    assert 40.0 <= elapsed < 5000.0


def test_elapsed_time_needs_timing_events():
    stream = npx.Stream()
    a, b = npx.Event(), npx.Event()
    a.record(stream)
    b.record(stream)
    b.synchronize()
    with pytest.raises(ValueError, match="timing=True"):
        a.elapsed_time(b)


def test_waiting_on_an_event_of_the_same_stream_is_legal():
    stream = npx.Stream()
    event = stream.record()
    stream.wait_event(event)
    stream.synchronize()
    assert stream.query()


def test_cross_stream_ordering_through_an_event():
    """The consumer sees the producer's data although the producer is delayed."""
    producer, consumer = npx.Stream(), npx.Stream()
    source = npx.zeros_pinned(SIZE, np.uint8)
    memory = npx.DeviceMemory(SIZE)

    def slow_fill():
        time.sleep(0.2)
        source[:] = 42
    producer.launch_host_func(slow_fill)
    memory.copy_from_host(source, stream=producer, blocking=False)
    consumer.wait_event(producer.record())
    out = memory.copy_to_host(stream=consumer)  # blocking on the consumer only
    np.testing.assert_array_equal(out, np.full(SIZE, 42, np.uint8))


def test_host_functions_run_in_stream_order():
    stream = npx.Stream()
    order = []
    for index in range(20):
        stream.launch_host_func(lambda i=index: order.append(i))
    stream.synchronize()
    assert order == list(range(20))


def test_host_function_exception_is_raised_at_synchronize():
    stream = npx.Stream()
    ran = []

    def fails():
        raise KeyError("boom")
    stream.launch_host_func(fails)
    stream.launch_host_func(lambda: ran.append(True))  # the stream keeps going
    with pytest.raises(KeyError, match="boom"):
        stream.synchronize()
    assert ran == [True]
    stream.synchronize()  # reported once


def test_launch_host_func_needs_a_callable():
    with pytest.raises(TypeError):
        npx.Stream().launch_host_func(42)


def test_device_synchronize_waits_for_all_streams(random_bytes):
    data = random_bytes(SIZE)
    streams = [npx.Stream() for _ in range(3)]
    outs = [npx.zeros_pinned(SIZE, np.uint8) for _ in streams]
    memories = [npx.DeviceMemory(SIZE) for _ in streams]
    for stream, memory, out in zip(streams, memories, outs):
        stream.launch_host_func(lambda: time.sleep(0.05))
        memory.copy_from_host(data, stream=stream, blocking=False)
        memory.copy_to_host(out, stream=stream, blocking=False)
    npx.synchronize()
    assert all(stream.query() for stream in streams)
    for out in outs:
        np.testing.assert_array_equal(out, data)


# -- pinned memory -------------------------------------------------------------------------

def test_pinned_arrays():
    array = npx.empty_pinned((3, 5), np.float32)
    assert array.shape == (3, 5) and array.dtype == np.float32
    assert npx.is_pinned(array) and npx.is_pinned(array[1:, ::2])
    assert not npx.is_pinned(np.empty((3, 5), np.float32))
    assert not npx.is_pinned(array.copy())
    zeros = npx.zeros_pinned(7, np.int64)
    np.testing.assert_array_equal(zeros, np.zeros(7, np.int64))
    assert npx.empty_pinned(0).size == 0
    with pytest.raises(ValueError):
        npx.empty_pinned((-1, 2))


def test_pinned_memory_is_freed_when_collected():
    import gc
    from npuarray.runtime import _pinned
    array = npx.empty_pinned(1 << 16, np.uint8)
    view = array[10:20]
    start = array.__array_interface__["data"][0]
    del array
    gc.collect()
    assert _pinned._is_pinned_range(start, start + 1)  # the view keeps it alive
    del view
    gc.collect()
    assert not _pinned._is_pinned_range(start, start + 1)


def test_a_lookup_remembered_before_a_free_never_names_the_freed_memory(monkeypatch):
    """The last allocation found is remembered with the registry it was found in: a lookup
    that finished (in another thread) after the allocation was freed cannot make a later
    lookup of that address answer True."""
    import gc
    from npuarray.runtime import _pinned
    array = npx.empty_pinned(1 << 16, np.uint8)
    start = array.__array_interface__["data"][0]
    before = _pinned._ranges
    assert _pinned._is_pinned_range(start, start + 100)
    del array
    gc.collect()
    # As if a lookup of the old registry had just finished: its answer is stale.
    monkeypatch.setattr(_pinned, "_last_found", (start, start + (1 << 16), before))
    assert not _pinned._is_pinned_range(start, start + 100)
    assert not npx.is_pinned(np.empty(10))


def test_the_registry_finds_each_of_many_allocations_and_none_between():
    from npuarray.runtime import _pinned
    arrays = [npx.empty_pinned(4096 + 64 * i, np.uint8) for i in range(40)]
    for array in arrays[::-1] + arrays:
        assert npx.is_pinned(array) and npx.is_pinned(array[1:-1])
    for array in arrays:
        begin = array.__array_interface__["data"][0]
        assert _pinned.is_pinned_address(begin, array.nbytes)
        assert not _pinned.is_pinned_address(begin, array.nbytes + 4096 * 1024)
        assert not _pinned.is_pinned_address(begin - 1, 2)


# -- asynchronous means asynchronous -------------------------------------------------------

@pytest.mark.parametrize("pinned", [True, False], ids=["pinned", "pageable"])
def test_async_copies_never_wait_for_the_stream(random_bytes, pinned):
    """With the stream held back by a host function, non-blocking copies return at once
    (no silent synchronisation) and the data is right once the stream has run."""
    data = random_bytes(9 << 20)   # more than one staging chunk
    source = npx.empty_pinned(data.shape, np.uint8) if pinned else np.empty_like(data)
    source[:] = data
    out = npx.zeros_pinned(data.shape, np.uint8) if pinned else np.zeros_like(data)
    memory = npx.DeviceMemory(data.nbytes)
    stream = npx.Stream()
    gate = threading.Event()
    stream.launch_host_func(lambda: gate.wait(10))
    memory.copy_from_host(source, stream=stream, blocking=False)
    memory.copy_to_host(out, stream=stream, blocking=False)
    assert not stream.query()          # both copies are queued behind the gate
    assert not out.any()
    gate.set()
    stream.synchronize()
    np.testing.assert_array_equal(out, data)


def test_blocking_copy_on_a_stream_waits_for_earlier_work(random_bytes):
    data = random_bytes(SIZE)
    memory = npx.DeviceMemory(SIZE)
    stream = npx.Stream()
    stream.launch_host_func(lambda: time.sleep(0.1))
    memory.copy_from_host(data, stream=stream, blocking=False)
    out = memory.copy_to_host(stream=stream, blocking=True)
    np.testing.assert_array_equal(out, data)


def test_wait_stream_orders_two_streams(random_bytes):
    data = random_bytes(SIZE)
    first, second = npx.Stream(), npx.Stream()
    a, b = npx.DeviceMemory(SIZE), npx.DeviceMemory(SIZE)
    first.launch_host_func(lambda: time.sleep(0.1))
    a.copy_from_host(data, stream=first, blocking=False)
    second.wait_stream(first)
    b.copy_from_device(a, stream=second)
    np.testing.assert_array_equal(b.copy_to_host(stream=second), data)


def test_host_function_error_is_raised_by_device_synchronize():
    stream = npx.Stream(device=7)
    stream.launch_host_func(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        npx.Device(7).synchronize()
    npx.Device(7).synchronize()


def test_finalizers_leave_the_threads_acl_device_alone():
    """Releasing memory or a stream of another device (garbage collection can do it between
    any activate() and the ACL call after it) restores the thread's ACL device."""
    from npuarray._acl import ffi, lib
    from npuarray.runtime._device import activate
    memory, stream = npx.DeviceMemory(4096, device=3), npx.Stream(device=3)
    activate(0)
    del memory, stream
    device = ffi.new("int32_t *")
    lib.aclrtGetDevice(device)
    assert device[0] == 0


def test_host_functions_through_callbacks_when_the_runtime_lacks_host_funcs(monkeypatch,
                                                                             random_bytes):
    """CANN 8.1 has no aclrtLaunchHostFunc: host functions then go through
    aclrtLaunchCallback and a report thread, with the same ordering and error rules."""
    from npuarray.runtime import _stream
    monkeypatch.setattr(_stream, "_launch_host_function", _stream._launch_with_callback)
    stream = npx.Stream()
    order = []
    for index in range(10):
        stream.launch_host_func(lambda i=index: order.append(i))
    stream.launch_host_func(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        stream.synchronize()
    assert order == list(range(10))
    data = random_bytes(9 << 20)      # a staged D2H unstages through host functions
    memory = npx.DeviceMemory(data.nbytes)
    memory.copy_from_host(data, stream=stream)
    out = np.zeros_like(data)
    memory.copy_to_host(out, stream=stream, blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(out, data)
    del stream                        # unsubscribed, then destroyed
    import gc
    gc.collect()
    again = npx.Stream()
    again.launch_host_func(lambda: order.append("again"))
    again.synchronize()
    assert order[-1] == "again"


def test_runtime_calls_inside_a_host_function_are_refused_not_hung():
    stream = npx.Stream()
    stream.launch_host_func(lambda: stream.synchronize())   # would wait for itself forever
    with pytest.raises(RuntimeError, match="not allowed inside a stream host function"):
        stream.synchronize()
    stream.launch_host_func(lambda: npx.DeviceMemory(16))
    with pytest.raises(RuntimeError, match="host function"):
        stream.synchronize()


def test_zero_sized_memory_and_copies():
    empty = npx.DeviceMemory(0)
    assert empty.ptr == 0 and empty.nbytes == 0
    empty.copy_from_host(np.empty(0, np.uint8))
    assert empty.copy_to_host().shape == (0,)
    empty.memset(1)
    memory = npx.DeviceMemory(64)
    memory.copy_from_host(np.empty(0, np.float32), stream=npx.Stream(), blocking=False)


def test_an_event_can_be_recorded_again():
    stream = npx.Stream()
    event = npx.Event()
    memory = npx.DeviceMemory(SIZE)
    for value in (1, 2, 3):
        memory.memset(value, stream=stream)
        event.record(stream)
        event.synchronize()
        assert event.query()
        np.testing.assert_array_equal(memory.copy_to_host(stream=stream),
                                      np.full(SIZE, value, np.uint8))


def test_an_event_stays_on_its_device():
    event = npx.Event()
    event.record(npx.Stream(device=0))
    with pytest.raises(ValueError, match="belongs to device 0"):
        event.record(npx.Stream(device=1))


def test_devices_and_streams_accept_device_objects():
    device = npx.Device(2)
    stream = npx.Stream(device)
    assert stream.device == device
    assert npx.default_stream(device) is npx.default_stream(2)
    assert npx.get_current_stream(device) is npx.default_stream(2)
    memory = npx.DeviceMemory(16, device=device)
    assert memory.device == device
    with pytest.raises(TypeError):
        npx.Stream(device="2")
