"""Host<->device and device<->device copy primitives, used by DeviceMemory and the array layer.

Rules (the same for every caller):

* On a device's default stream, or with ``blocking=True``, a copy is synchronous:
  it waits for the work already queued on the stream, then copies on the calling
  thread (aclrtMemcpy) and is complete on return. Device-to-device copies on another
  stream are always asynchronous (nothing on the host is waiting for them).
* Otherwise it is asynchronous, in stream order, and never races:
  - pinned host memory is copied directly; the array is kept alive until the copy ran;
  - pageable host memory is staged through pooled pinned blocks, in pieces, so the
    host-side hop of one piece overlaps the device hop of the previous one; a block
    returns to the pool with an event recorded after its copy. A host-to-device copy
    has read all of ``src`` when it returns: the caller may reuse it at once;
  - for device-to-host into pageable memory the final host copy of each piece is a
    host function queued, after that piece's device copy, on the stream's companion
    stream (so it overlaps the next piece's device copy), and the stream then waits
    for the companion: ``dst`` holds the data once the stream has been synchronised
    (or an event recorded on it afterwards has completed);
  - on an idle stream the first staged piece is small and probes the device: when the
    stream has already run its copy by the time the host looks (aclrtStreamQuery: a
    device that finishes before the host looks, as npusim's does with short copies),
    the stream is idle and the rest is copied directly with aclrtMemcpy (which accepts
    pageable memory): one hop instead of two, still in stream order. A busy stream (or
    a real NPU, whose copies are still in flight when the host looks) gets the pipeline.
    What the probe found is remembered per device (the last probe's answer): on a device
    that kept up, a later copy on an idle stream is copied directly from the start,
    without a probe (the probe's two hops and pinned block cost a 1 MiB copy a third
    of its time).
"""
import collections
import contextlib
import threading

import numpy as np

from .._acl import AclError, InvalidValueError, backend, check, ffi, lib
from . import _capture_guard as _capture
from ._device import activate, peer_access_enabled
from ._pinned import is_pinned_address, staging_pool
from ._stream import as_stream, default_streams, get_current_stream, host_functions_available
from . import _profiler

STAGING_CHUNK = 4 << 20   # bytes per staged piece queued behind other work: large enough
                          # to stream, small enough that the two hops overlap
PROBE_CHUNK = 64 << 10    # bytes of the first staged piece, which tells whether the device
                          # keeps up (then the rest is copied directly)
ACL_ERROR_RT_PARAM_INVALID = 107000

_keeps_up = {}   # device id -> whether its last probe's copy was done before the host looked
_retained = collections.deque()    # (event, object) kept alive until the event completes
_retained_lock = threading.Lock()
_spare_events = {}   # device id -> events whose work completed, recorded again by _retain
SPARE_EVENTS = 64    # at most this many kept per device


def _retain(obj, stream):
    """Keeps `obj` alive until the work queued so far on `stream` is done. The event that
    tells is a spare one of the device when there is one: creating an event costs more
    than a small copy."""
    with _retained_lock:
        spares = _spare_events.get(stream.device.id)
        spare = spares.pop() if spares else None
    event = stream.record(spare)
    with _retained_lock:
        _retained.append((event, obj))
    _purge_retained()


def _purge_retained():
    """Drops the objects whose copies are done (oldest first; stops at the first pending)."""
    with _retained_lock:
        while _retained:
            event, obj = _retained[0]
            try:
                if not event.query():
                    return
                spares = _spare_events.setdefault(event.device, [])
                if len(spares) < SPARE_EVENTS:
                    spares.append(event)
            except AclError:  # recorded in a graph capture: the graph keeps using `obj`
                _captured.append(obj)
            _retained.popleft()


_captured = []   # objects read by captured copies: they live as long as the process
_thread_state = threading.local()   # .status: the thread's aclrtStreamStatus for queries
_STREAM_COMPLETE = lib.ACL_STREAM_STATUS_COMPLETE
_VOID_P, _UINTPTR = ffi.typeof("void *"), ffi.typeof("uintptr_t")  # (parsed once: hot paths)
# npusim's aclrtStreamQuery + aclrtMemcpy in one call (_copied_if_idle); CANN has none.
if backend().name == "npusim":
    _memcpy_if_idle, _STREAM_BUSY = lib.npusim_memcpy_if_idle, lib.NPUSIM_STREAM_BUSY
else:
    _memcpy_if_idle = _STREAM_BUSY = None


def _host_array(array, what):
    """`array` itself; TypeError unless it is a numpy.ndarray of a non-object dtype."""
    if not isinstance(array, np.ndarray):
        raise TypeError("%s must be a numpy.ndarray, got %s" % (what, type(array).__name__))
    if array.dtype.hasobject:
        raise TypeError("%s has dtype %s: object arrays cannot be copied to a device"
                        % (what, array.dtype))
    return array


def _caught_up(stream):
    """Whether `stream` has already run everything queued on it (aclrtStreamQuery, which
    never blocks). A copy the device finished before the host looked needs no event: its
    host memory is free at once. Always False while a capture is active (captured work has
    not run) and when the query fails (the event path is always safe)."""
    if _capture.active:
        return False
    status = getattr(_thread_state, "status", None)
    if status is None:  # one per thread: a new one would cost as much as the query
        status = _thread_state.status = ffi.new("aclrtStreamStatus *")
    return (lib.aclrtStreamQuery(stream.handle, status) == 0
            and status[0] == _STREAM_COMPLETE)


def _copied_if_idle(dst, src, nbytes, kind, device_id, stream):
    """Copies pageable memory directly (aclrtMemcpy, one hop, which accepts pageable memory)
    when `stream` is idle and its device kept up with the last probe (see the module
    docstring): in stream order, the stream being idle. Returns whether it did; else
    nothing is done and the copy is to be staged. npusim does the query and the copy in one
    call (npusim_memcpy_if_idle)."""
    if not _keeps_up.get(device_id) or _capture.active:  # (captured work has not run)
        return False
    if _memcpy_if_idle is None:
        if not _caught_up(stream):
            return False
        ret = lib.aclrtMemcpy(dst, nbytes, src, nbytes, kind)
    else:
        ret = _memcpy_if_idle(dst, nbytes, src, nbytes, kind, stream.handle)
        if ret == _STREAM_BUSY:
            return False
    check(ret, "aclrtMemcpy")
    return True


def copy_host_to_device(dst_ptr, src, stream, *, blocking):
    """Copies the bytes of the ndarray `src` to device address `dst_ptr` (int) on `stream`
    (None: current stream). Non-contiguous `src` is made contiguous first. Synchronous on a
    default stream or with blocking=True, else asynchronous (see module docstring)."""
    src = _host_array(src, "the source")
    if not src.flags.c_contiguous:
        src = np.ascontiguousarray(src)
    nbytes = src.nbytes
    stream = as_stream(stream)
    if _capture.active:
        _capture.check_host_copy("a host-to-device copy", stream)
    if nbytes == 0:
        return
    # (one call per copy: the device id, the buffer and its address are looked up once)
    device_id = stream.device.id
    activate(device_id)
    kind = lib.ACL_MEMCPY_HOST_TO_DEVICE
    span = _profiler.active and _profiler.begin_copy(kind, nbytes, stream)
    dst = ffi.cast(_VOID_P, dst_ptr)
    host = ffi.from_buffer(src)
    if blocking or default_streams.get(device_id) is stream:
        _copy_after_stream(dst, host, nbytes, kind, stream)
    elif is_pinned_address(int(ffi.cast(_UINTPTR, host)), nbytes):
        check(lib.aclrtMemcpyAsync(dst, nbytes, host, nbytes, kind, stream.handle),
              "aclrtMemcpyAsync")
        _retain_unless_done(src, stream)
    elif not _copied_if_idle(dst, host, nbytes, kind, device_id, stream):
        _staged_host_to_device(dst_ptr, src.reshape(-1).view(np.uint8), stream)
    if span:
        _profiler.end(span)


def _retain_unless_done(obj, stream):
    """Keeps `obj` alive until the copy just queued on `stream` ran (nothing to keep when
    the stream has already run it)."""
    if not _caught_up(stream):
        _retain(obj, stream)
    elif _retained:
        _purge_retained()


def _copy_after_stream(dst, src, nbytes, kind, stream):
    """A synchronous copy: waits for the work queued on `stream`, then copies on the calling
    thread (aclrtMemcpy), with no hand-off to the stream's worker. Pinned or pageable alike."""
    check(lib.aclrtSynchronizeStream(stream.handle), "aclrtSynchronizeStream")
    check(lib.aclrtMemcpy(dst, nbytes, src, nbytes, kind), "aclrtMemcpy")


def _first_chunk(stream):
    """The size of the first staged piece: 0 when the stream is idle and its device kept up
    with the last probe (copy everything directly), a small probe when the stream is idle
    otherwise (it may be a device that keeps up), else a full piece (it will be queued
    behind work)."""
    if not _caught_up(stream):
        return STAGING_CHUNK
    return 0 if _keeps_up.get(stream.device.id) else PROBE_CHUNK


def _probed(stream, chunk, done):
    """Remembers what a probe (a first piece of PROBE_CHUNK bytes on an idle stream) found:
    whether the stream had run its copy by the time the host looked."""
    if chunk == PROBE_CHUNK:
        _keeps_up[stream.device.id] = done


def _staged_host_to_device(dst_ptr, data, stream):
    """Hop 1 (pageable bytes into a pinned block) on the calling thread, hop 2 (the block to
    the device) queued on `stream`, piece by piece; each block returns to the pool with an
    event after its hop 2, and the next piece takes another, so hop 1 of the next piece
    overlaps hop 2 of this one. On an idle stream the first piece is small: when the
    stream has already run a piece's hop 2 by the time the host looks (an idle, fast
    device), the rest is copied directly (aclrtMemcpy, one hop instead of two; in stream
    order, the stream being idle), and so is all of a later copy on an idle stream of
    that device."""
    nbytes, offset, chunk = data.nbytes, 0, _first_chunk(stream)
    while offset < nbytes and chunk:
        piece = data[offset:offset + chunk]
        offset += piece.nbytes
        done = _stage_up(dst_ptr + offset - piece.nbytes, piece, stream)
        _probed(stream, chunk, done)
        if done:
            break
        chunk = STAGING_CHUNK
    if offset < nbytes:
        activate(stream.device.id)  # (a new pinned block may have switched the device)
        check(lib.aclrtMemcpy(ffi.cast("void *", dst_ptr + offset), nbytes - offset,
                              ffi.from_buffer(data[offset:]), nbytes - offset,
                              lib.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")


def _stage_up(dst_ptr, piece, stream):
    """Queues the copy of `piece` to `dst_ptr` through a pinned block; returns whether the
    stream has already run it (then the block is free at once)."""
    pool, count = staging_pool(), piece.nbytes
    block = pool.acquire(count)
    try:
        block[:count] = piece
        check(lib.aclrtMemcpyAsync(ffi.cast("void *", dst_ptr), count, ffi.from_buffer(block),
                                   count, lib.ACL_MEMCPY_HOST_TO_DEVICE, stream.handle),
              "aclrtMemcpyAsync")
        done = _caught_up(stream)
    except BaseException:  # (Ctrl-C too) the queued copy may still read the block
        pool.release(block, _event_after(stream))
        raise
    pool.release(block, None if done else _event_after(stream))
    return done


@contextlib.contextmanager
def _staging_block(pool, nbytes, stream):
    """A pinned block of ``pool`` for a copy queued on ``stream`` inside the block;
    it returns to the pool with an event recorded on ``stream`` on the way out,
    also when an exception (Ctrl-C) arrives after the copy was queued: the
    device may still be reading or writing it."""
    block = pool.acquire(nbytes)
    try:
        yield block
    finally:
        pool.release(block, _event_after(stream))


def _event_after(stream):
    """An event recorded on ``stream`` now, or None after waiting for the stream
    when it cannot be recorded (the block is then free at once)."""
    try:
        return stream.record()
    except AclError:
        lib.aclrtSynchronizeStream(stream.handle)
        return None


def copy_device_to_host(dst, src_ptr, stream, *, blocking):
    """Copies ``dst.nbytes`` bytes from device address `src_ptr` (int) into the writable,
    C-contiguous ndarray `dst` on `stream` (None: current stream). Synchronous on a default
    stream or with blocking=True; else asynchronous: `dst` is valid once the stream's work
    up to this call is done (synchronise the stream, or an event recorded after it)."""
    flags = _host_array(dst, "the destination").flags
    if not flags.c_contiguous:
        raise ValueError("the destination must be C-contiguous")
    if not flags.writeable:
        raise ValueError("the destination array is read-only")
    nbytes = dst.nbytes
    stream = as_stream(stream)
    if _capture.active:
        _capture.check_host_copy("a device-to-host copy", stream)
    if nbytes == 0:
        return
    device_id = stream.device.id
    activate(device_id)
    kind = lib.ACL_MEMCPY_DEVICE_TO_HOST
    span = _profiler.active and _profiler.begin_copy(kind, nbytes, stream)
    src = ffi.cast(_VOID_P, src_ptr)
    host = ffi.from_buffer(dst)
    if blocking or default_streams.get(device_id) is stream:
        _copy_after_stream(host, src, nbytes, kind, stream)
    elif is_pinned_address(int(ffi.cast(_UINTPTR, host)), nbytes):
        check(lib.aclrtMemcpyAsync(host, nbytes, src, nbytes, kind, stream.handle),
              "aclrtMemcpyAsync")
        _retain_unless_done(dst, stream)
    elif not host_functions_available():
        # Without host functions an asynchronous copy into pageable memory cannot be
        # completed in stream order, so it is done synchronously.
        _copy_after_stream(host, src, nbytes, kind, stream)
    elif not _copied_if_idle(host, src, nbytes, kind, device_id, stream):
        _staged_device_to_host(dst.reshape(-1).view(np.uint8), src_ptr, stream)
    if span:
        _profiler.end(span)


def _staged_device_to_host(data, src_ptr, stream):
    """Hop 1 (device to a pinned block) queued on `stream`, hop 2 (the block into `data`) a
    host function on the stream's companion after it, piece by piece, so hop 2 of one piece
    overlaps hop 1 of the next; `stream` then waits for the companion: its later work and
    its synchronisation cover the data. On an idle stream the first piece is small: when
    the stream has already run a piece's hop 1 by the time the host looks (an idle, fast
    device), the host unstages that piece itself and copies the rest directly
    (aclrtMemcpy, one hop instead of two; in stream order, the stream being idle), and
    all of a later copy on an idle stream of that device."""
    nbytes, offset, chunk, deferred = data.nbytes, 0, _first_chunk(stream), False
    try:
        while offset < nbytes and chunk:
            piece = data[offset:offset + chunk]
            offset += piece.nbytes
            done = _stage_down(piece, src_ptr + offset - piece.nbytes, stream)
            _probed(stream, chunk, done)
            if done:
                break
            chunk, deferred = STAGING_CHUNK, True
        if offset < nbytes:
            activate(stream.device.id)  # (a new pinned block may have switched the device)
            check(lib.aclrtMemcpy(ffi.from_buffer(data[offset:]), nbytes - offset,
                                  ffi.cast("void *", src_ptr + offset), nbytes - offset,
                                  lib.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")
    finally:  # also after an error: the pieces already queued finish in stream order
        if deferred:  # pieces are unstaged by the companion
            stream.wait_event(stream.companion().record())


def _stage_down(piece, src_ptr, stream):
    """Queues the copy of `src_ptr` into `piece` through a pinned block; returns whether
    the stream had already run it (then `piece` holds the data), else the companion
    unstages it after the stream's copy."""
    pool, count = staging_pool(), piece.nbytes
    block = pool.acquire(count)
    try:
        check(lib.aclrtMemcpyAsync(ffi.from_buffer(block), count, ffi.cast("void *", src_ptr),
                                   count, lib.ACL_MEMCPY_DEVICE_TO_HOST, stream.handle),
              "aclrtMemcpyAsync")
        if _caught_up(stream):
            piece[:] = block[:count]
            pool.release(block)
            return True
        companion = stream.companion()
        companion.wait_event(stream.record())
        companion.launch_host_func(_unstage(piece, block, pool))  # it releases the block
    except BaseException:  # (Ctrl-C too) the queued copy may still write the block
        pool.release(block, _event_after(stream))
        raise
    return False


def _unstage(piece, block, pool):
    def finish():  # runs after the device copy into `block`
        piece[:] = block[:piece.nbytes]
        pool.release(block)
    return finish


def copy_device_to_device(dst_ptr, dst_device, src_ptr, src_device, nbytes, stream):
    """Copies `nbytes` from device address `src_ptr` on device `src_device` to `dst_ptr` on
    `dst_device` (ints or Devices), on `stream` (None: the current stream of `dst_device`).

    Same device, or a peer `dst_device` has enabled access to (Device.enable_peer_access):
    one device copy in stream order. Otherwise the bytes go through pinned host memory:
    the source side is read on `src_device`'s current stream, which the host waits for.
    Synchronous on a default stream, else asynchronous."""
    dst_device, src_device = int(dst_device), int(src_device)
    stream = get_current_stream(dst_device) if stream is None else as_stream(stream)
    if nbytes == 0:
        return
    activate(stream.device.id)
    span = _profiler.active and _profiler.begin_copy(lib.ACL_MEMCPY_DEVICE_TO_DEVICE, nbytes,
                                                     stream)
    if src_device == dst_device or peer_access_enabled(stream.device.id, src_device):
        dst, src = ffi.cast("void *", dst_ptr), ffi.cast("void *", src_ptr)
        kind = lib.ACL_MEMCPY_DEVICE_TO_DEVICE
        if stream.is_default:
            _copy_after_stream(dst, src, nbytes, kind, stream)
        else:
            check(lib.aclrtMemcpyAsync(dst, nbytes, src, nbytes, kind, stream.handle),
                  "aclrtMemcpyAsync")
        if span:
            _profiler.end(span)
        return
    with _staging_block(staging_pool(), nbytes, stream) as block:
        copy_device_to_host(block[:nbytes], src_ptr, get_current_stream(src_device),
                            blocking=True)
        activate(stream.device.id)
        check(lib.aclrtMemcpyAsync(ffi.cast("void *", dst_ptr), nbytes, _ptr(block), nbytes,
                                   lib.ACL_MEMCPY_HOST_TO_DEVICE, stream.handle),
              "aclrtMemcpyAsync")
    if stream.is_default:
        check(lib.aclrtSynchronizeStream(stream.handle), "aclrtSynchronizeStream")
    if span:
        _profiler.end(span)


def _ptr(array):
    return ffi.from_buffer(array)


def check_fits(count, dest_max, api):
    """InvalidValueError (ACL_ERROR_RT_PARAM_INVALID, 107000) when count > destMax, as ACL does."""
    if count > dest_max:
        raise InvalidValueError(ACL_ERROR_RT_PARAM_INVALID, api,
                                "count (%d bytes) is larger than destMax (%d bytes)"
                                % (count, dest_max))

