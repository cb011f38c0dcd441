"""Host<->device copies around 1 MiB, the size from which npusim shares a transfer between
the calling thread and its copy engine (up to the 4 MiB of its block-wise parallel copy;
kernels/runtime/copy.c, copy_engine.c), checked against NumPy: every byte arrives and none
beyond, in both directions, synchronous and asynchronous, from any alignment; in order with
the stream's earlier work and with events; the source free for reuse once an asynchronous
pageable copy returned; the same buffers copied again with new contents (a repeated copy
starts at the other end); two threads copying at once, also through one stream; refused on a
stream being captured into a graph, as every host copy is.
"""
import contextlib
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray import _acl
from npuarray._acl import CaptureError, check, ffi, lib
from conftest import run_threads

MIB = 1 << 20
SIZES = [1, 3, MIB - 1, MIB, MIB + 1, 3 * MIB + 13]
GUARD = 0xA5  # the bytes around a copy's destination, which it must not touch
PAD = 64

needs_capture = pytest.mark.skipif(
    not _acl.available("aclmdlRICaptureBegin"),
    reason="the loaded provider has no aclmdlRICaptureBegin (graph capture)")


def malloc_host(nbytes):
    ptr = ffi.new("void **")
    check(lib.aclrtMallocHost(ptr, nbytes), "aclrtMallocHost")
    return ptr[0]


def malloc_device(nbytes):
    ptr = ffi.new("void **")
    check(lib.aclrtMalloc(ptr, nbytes, lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
    return ptr[0]


def host_view(ptr, nbytes):
    """A writable uint8 array over host (or npusim device) memory at `ptr`."""
    return np.frombuffer(ffi.buffer(ptr, nbytes), dtype=np.uint8)


def copy(dst, src, nbytes, kind, stream):
    if stream is None:
        check(lib.aclrtMemcpy(dst, nbytes, src, nbytes, kind), "aclrtMemcpy")
    else:
        check(lib.aclrtMemcpyAsync(dst, nbytes, src, nbytes, kind, stream), "aclrtMemcpyAsync")


@pytest.mark.parametrize("nbytes", SIZES)
@pytest.mark.parametrize("src_offset,dst_offset", [(0, 0), (1, 0), (0, 7), (13, 5)])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_round_trip_lands_exactly(in_fresh_thread, random_bytes, nbytes, src_offset, dst_offset,
                                  asynchronous):
    """Host -> device -> host from and to unaligned addresses (the streaming copy's head
    and tail), with guard bytes on both sides of each destination."""
    data = random_bytes(nbytes)
    span = nbytes + 2 * PAD

    def body():
        check(lib.aclrtSetDevice(0), "aclrtSetDevice")
        stream = None
        if asynchronous:
            handle = ffi.new("aclrtStream *")
            check(lib.aclrtCreateStream(handle), "aclrtCreateStream")
            stream = handle[0]
        src, back, dev = malloc_host(span), malloc_host(span), malloc_device(span)
        try:
            for ptr in (back, dev):
                check(lib.aclrtMemset(ptr, span, GUARD, span), "aclrtMemset")
            host_view(src, span)[PAD + src_offset:PAD + src_offset + nbytes] = data
            h2d_dst = ffi.cast("char *", dev) + PAD + dst_offset
            d2h_dst = ffi.cast("char *", back) + PAD + src_offset
            copy(h2d_dst, ffi.cast("char *", src) + PAD + src_offset, nbytes,
                 lib.ACL_MEMCPY_HOST_TO_DEVICE, stream)
            copy(d2h_dst, h2d_dst, nbytes, lib.ACL_MEMCPY_DEVICE_TO_HOST, stream)
            if stream is not None:
                check(lib.aclrtSynchronizeStream(stream), "aclrtSynchronizeStream")
            device = host_view(dev, span).copy()   # npusim's device memory is host memory
            result = host_view(back, span).copy()
        finally:
            for ptr in (src, back):
                check(lib.aclrtFreeHost(ptr), "aclrtFreeHost")
            check(lib.aclrtFree(dev), "aclrtFree")
            if stream is not None:
                check(lib.aclrtDestroyStream(stream), "aclrtDestroyStream")
        return device, result

    device, result = in_fresh_thread(body)
    if npx.backend().name == "npusim":
        expected = np.full(span, GUARD, np.uint8)
        expected[PAD + dst_offset:PAD + dst_offset + nbytes] = data
        np.testing.assert_array_equal(device, expected)
    expected = np.full(span, GUARD, np.uint8)
    expected[PAD + src_offset:PAD + src_offset + nbytes] = data
    np.testing.assert_array_equal(result, expected)


def test_zero_bytes_is_a_no_op(random_bytes):
    memory = npx.DeviceMemory(MIB)
    data = random_bytes(MIB)
    memory.copy_from_host(data)
    stream = npx.Stream()
    memory.copy_from_host(np.empty(0, np.uint8), stream=stream, blocking=False)
    memory.copy_from_host(np.empty(0, np.uint8))
    empty = np.empty(0, np.uint8)
    assert memory.copy_to_host(empty, nbytes=0, stream=stream, blocking=False) is empty
    check(lib.aclrtMemcpyAsync(ffi.cast("void *", memory.ptr), MIB, ffi.from_buffer(data), 0,
                               lib.ACL_MEMCPY_HOST_TO_DEVICE, stream.handle), "aclrtMemcpyAsync")
    stream.synchronize()
    np.testing.assert_array_equal(memory.copy_to_host(), data)


@contextlib.contextmanager
def held(stream):
    """Holds `stream` back behind a host function until the block ends."""
    release = threading.Event()
    stream.launch_host_func(lambda: release.wait(30))
    try:
        yield
    finally:
        release.set()


@pytest.mark.parametrize("nbytes", [MIB - 1, MIB, MIB + 1, 3 * MIB + 13])
@pytest.mark.parametrize("host", ["pinned", "pageable"])
def test_copies_wait_for_the_streams_earlier_work(random_bytes, nbytes, host):
    """Queued behind a held stream: upload, then download; nothing moves until the stream
    runs, then both run in order (the download sees the upload)."""
    data = random_bytes(nbytes)
    memory = npx.DeviceMemory(nbytes)
    memory.copy_from_host(np.zeros(nbytes, np.uint8))
    source = npx.empty_pinned(nbytes, np.uint8) if host == "pinned" else np.empty(nbytes, np.uint8)
    source[:] = data
    out = npx.empty_pinned(nbytes, np.uint8) if host == "pinned" else np.empty(nbytes, np.uint8)
    out[:] = 0
    stream = npx.Stream()
    with held(stream):
        memory.copy_from_host(source, stream=stream, blocking=False)
        memory.copy_to_host(out, stream=stream, blocking=False)
        assert not out.any()                      # still behind the held work
    stream.synchronize()
    np.testing.assert_array_equal(out, data)


@pytest.mark.parametrize("nbytes", [MIB, MIB + 1])
def test_an_event_after_an_upload_orders_another_streams_download(random_bytes, nbytes):
    data = random_bytes(nbytes)
    memory = npx.DeviceMemory(nbytes)
    memory.copy_from_host(np.zeros(nbytes, np.uint8))
    source = npx.empty_pinned(nbytes, np.uint8)
    source[:] = data
    out = npx.empty_pinned(nbytes, np.uint8)
    out[:] = 0
    upload, download = npx.Stream(), npx.Stream()
    with held(upload):
        memory.copy_from_host(source, stream=upload, blocking=False)
        uploaded = upload.record()
        download.wait_event(uploaded)
        memory.copy_to_host(out, stream=download, blocking=False)
        assert not download.query()               # waits for the held upload
    uploaded.synchronize()
    download.synchronize()
    np.testing.assert_array_equal(out, data)


@pytest.mark.parametrize("nbytes", [MIB - 1, MIB, MIB + 1, 3 * MIB + 13])
@pytest.mark.parametrize("busy", [False, True], ids=["idle", "held"])
def test_pageable_source_is_free_once_an_async_upload_returns(random_bytes, nbytes, busy):
    data = random_bytes(nbytes)
    expected = data.copy()
    memory = npx.DeviceMemory(nbytes)
    stream = npx.Stream()
    with held(stream) if busy else contextlib.nullcontext():
        memory.copy_from_host(data, stream=stream, blocking=False)
        data[:] = 0                               # the caller reuses its buffer at once
    stream.synchronize()
    np.testing.assert_array_equal(memory.copy_to_host(), expected)


def test_two_threads_copy_at_once(random_bytes):
    sizes = [MIB - 1, MIB, MIB + 1, 2 * MIB + 7]
    payloads = {n: random_bytes(n) for n in sizes}
    failures = []
    start = threading.Barrier(2)

    def worker(pinned):
        try:
            stream = npx.Stream()
            start.wait(30)
            for _ in range(8):
                for nbytes, data in payloads.items():
                    memory = npx.DeviceMemory(nbytes)
                    source = npx.empty_pinned(nbytes, np.uint8) if pinned else data.copy()
                    source[:] = data
                    out = npx.empty_pinned(nbytes, np.uint8) if pinned else np.empty(nbytes, np.uint8)
                    memory.copy_from_host(source, stream=stream, blocking=False)
                    memory.copy_to_host(out, stream=stream, blocking=False)
                    stream.synchronize()
                    if not np.array_equal(out, data):
                        failures.append((pinned, nbytes))
        except BaseException as exc:  # handed to the test thread
            failures.append(exc)

    run_threads(worker, [(True,), (False,)])
    assert failures == []


@pytest.mark.parametrize("nbytes", [MIB, MIB + 1, 2 * MIB - 1, 3 * MIB + 13])
def test_the_same_buffers_copied_again_with_new_contents(random_bytes, nbytes):
    host = random_bytes(nbytes)
    out = np.empty(nbytes, np.uint8)
    memory = npx.DeviceMemory(nbytes)
    stream = npx.Stream()
    for round_ in range(6):
        host[round_::7] += 1                      # new contents each round, at both ends too
        host[-1], host[0] = round_ + 1, round_ + 2
        expected = host.copy()
        asynchronous = round_ % 3 != 2
        memory.copy_from_host(host, stream=stream, blocking=not asynchronous)
        host[:] = 0                               # free for reuse once the upload returned
        memory.copy_to_host(out, stream=stream, blocking=not asynchronous)
        stream.synchronize()
        np.testing.assert_array_equal(out, expected)
        host[:] = expected


def test_two_threads_copy_through_one_stream(random_bytes):
    stream = npx.Stream()
    sizes = [MIB, MIB + 1, 3 * MIB + 13]
    failures = []
    start = threading.Barrier(2)

    def worker(seed, buffers):
        try:
            start.wait(30)
            for round_ in range(6):
                for host, memory, out in buffers:
                    host[round_::5] ^= seed
                    expected = host.copy()
                    memory.copy_from_host(host, stream=stream, blocking=False)
                    memory.copy_to_host(out, stream=stream, blocking=False)
                    stream.synchronize()
                    if not np.array_equal(out, expected):
                        failures.append((seed, host.nbytes, round_))
        except BaseException as exc:  # handed to the test thread
            failures.append(exc)

    run_threads(worker, [(seed, [(random_bytes(n), npx.DeviceMemory(n), np.empty(n, np.uint8))
                                 for n in sizes]) for seed in (0x5A, 0xC3)])
    assert failures == []


@needs_capture
@pytest.mark.parametrize("host", ["pinned", "pageable"])
def test_host_copies_on_a_capturing_stream_are_refused(random_bytes, host):
    data = random_bytes(MIB)
    memory = npx.DeviceMemory(MIB)
    memory.copy_from_host(data)
    buffer = npx.empty_pinned(MIB, np.uint8) if host == "pinned" else np.empty(MIB, np.uint8)
    buffer[:] = 0
    stream = npx.Stream()
    graph = npx.Graph()
    with graph.capture(stream):
        with pytest.raises(CaptureError):
            memory.copy_from_host(buffer, stream=stream, blocking=False)
        with pytest.raises(CaptureError):
            memory.copy_to_host(buffer, stream=stream, blocking=False)
    graph.destroy()
    assert not buffer.any()
    np.testing.assert_array_equal(memory.copy_to_host(), data)
