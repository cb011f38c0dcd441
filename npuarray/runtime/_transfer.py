"""Host<->device and device<->device copy primitives, used by DeviceMemory and the array layer.

Rules (the same for every caller):

* On a device's default stream, or with ``blocking=True``, a copy is synchronous:
  it waits for the work already queued on the stream, then copies on the calling
  thread (aclrtMemcpy) and is complete on return. Device-to-device copies on another
  stream are always asynchronous (nothing on the host is waiting for them).
* Otherwise it is asynchronous, in stream order, and never races:
  - pinned host memory is copied directly; the array is kept alive until the copy ran;
  - pageable host memory is staged through pooled pinned blocks (in chunks, so the
    host-side copy of one chunk overlaps the device copy of the previous one); a
    block returns to the pool with an event recorded after its copy;
  - for device-to-host into pageable memory the final host copy of each chunk is a
    host function queued, after that chunk's device copy, on the stream's companion
    stream (so it overlaps the next chunk's device copy), and the stream then waits
    for the companion: ``dst`` holds the data once the stream has been synchronised
    (or an event recorded on it afterwards has completed).
"""
import collections
import contextlib
import threading

import numpy as np

from .._acl import AclError, InvalidValueError, check, ffi, lib
from . import _capture_guard as _capture
from ._device import activate, peer_access_enabled
from ._pinned import host_address, is_pinned, staging_pool
from ._stream import as_stream, get_current_stream, host_functions_available
from . import _profiler

STAGING_CHUNK = 4 << 20   # bytes per staged piece: large enough to stream, small enough to overlap
ACL_ERROR_RT_PARAM_INVALID = 107000

_retained = collections.deque()    # (event, object) kept alive until the event completes
_retained_lock = threading.Lock()


def _retain(obj, stream):
    """Keeps `obj` alive until the work queued so far on `stream` is done."""
    event = stream.record()
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
            except AclError:  # recorded in a graph capture: the graph keeps using `obj`
                _captured.append(obj)
            _retained.popleft()


_captured = []   # objects read by captured copies: they live as long as the process


def _as_bytes(array, what):
    """A flat uint8 view of the C-contiguous ndarray `array`."""
    if not isinstance(array, np.ndarray):
        raise TypeError("%s must be a numpy.ndarray, got %s" % (what, type(array).__name__))
    if array.dtype.hasobject:
        raise TypeError("%s has dtype %s: object arrays cannot be copied to a device"
                        % (what, array.dtype))
    if not array.flags.c_contiguous:
        raise ValueError("%s must be C-contiguous" % what)
    return array.reshape(-1).view(np.uint8)


def _is_synchronous(stream, blocking):
    return blocking or stream.is_default


def copy_host_to_device(dst_ptr, src, stream, *, blocking):
    """Copies the bytes of the ndarray `src` to device address `dst_ptr` (int) on `stream`
    (None: current stream). Non-contiguous `src` is made contiguous first. Synchronous on a
    default stream or with blocking=True, else asynchronous (see module docstring)."""
    if isinstance(src, np.ndarray) and not src.flags.c_contiguous:
        src = np.ascontiguousarray(src)
    data = _as_bytes(src, "the source")
    nbytes = data.nbytes
    stream = as_stream(stream)
    if _capture.active:
        _capture.check_host_copy("a host-to-device copy", stream)
    if nbytes == 0:
        return
    activate(stream.device.id)
    kind = lib.ACL_MEMCPY_HOST_TO_DEVICE
    span = _profiler.active and _profiler.begin_copy(kind, nbytes, stream)
    dst = ffi.cast("void *", dst_ptr)
    if _is_synchronous(stream, blocking):
        _copy_after_stream(dst, _ptr(src), nbytes, kind, stream)
    elif is_pinned(src):
        check(lib.aclrtMemcpyAsync(dst, nbytes, _ptr(src), nbytes, kind, stream.handle),
              "aclrtMemcpyAsync")
        _retain(src, stream)
    else:
        _staged_host_to_device(dst_ptr, data, stream)
    if span:
        _profiler.end(span)


def _copy_after_stream(dst, src, nbytes, kind, stream):
    """A synchronous copy: waits for the work queued on `stream`, then copies on the calling
    thread (aclrtMemcpy), with no hand-off to the stream's worker. Pinned or pageable alike."""
    check(lib.aclrtSynchronizeStream(stream.handle), "aclrtSynchronizeStream")
    check(lib.aclrtMemcpy(dst, nbytes, src, nbytes, kind), "aclrtMemcpy")


def _staged_host_to_device(dst_ptr, data, stream):
    pool = staging_pool()
    for offset in range(0, data.nbytes, STAGING_CHUNK):
        piece = data[offset:offset + STAGING_CHUNK]
        with _staging_block(pool, piece.nbytes, stream) as block:
            block[:piece.nbytes] = piece
            check(lib.aclrtMemcpyAsync(ffi.cast("void *", dst_ptr + offset), piece.nbytes,
                                       _ptr(block), piece.nbytes,
                                       lib.ACL_MEMCPY_HOST_TO_DEVICE, stream.handle),
                  "aclrtMemcpyAsync")


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
    data = _as_bytes(dst, "the destination")
    if not dst.flags.writeable:
        raise ValueError("the destination array is read-only")
    nbytes = data.nbytes
    stream = as_stream(stream)
    if _capture.active:
        _capture.check_host_copy("a device-to-host copy", stream)
    if nbytes == 0:
        return
    activate(stream.device.id)
    kind = lib.ACL_MEMCPY_DEVICE_TO_HOST
    span = _profiler.active and _profiler.begin_copy(kind, nbytes, stream)
    src = ffi.cast("void *", src_ptr)
    if is_pinned(dst) and not _is_synchronous(stream, blocking):
        check(lib.aclrtMemcpyAsync(_ptr(dst), nbytes, src, nbytes, kind, stream.handle),
              "aclrtMemcpyAsync")
        _retain(dst, stream)
    elif _is_synchronous(stream, blocking) or not host_functions_available():
        # Without host functions an asynchronous copy into pageable memory cannot be
        # completed in stream order, so it is done synchronously.
        _copy_after_stream(_ptr(dst), src, nbytes, kind, stream)
    else:
        _staged_device_to_host(data, src_ptr, stream)
    if span:
        _profiler.end(span)


def _staged_device_to_host(data, src_ptr, stream):
    """Device copies into pinned blocks on `stream`; the host copies out of them run on the
    stream's companion, each after its block's device copy, so the two overlap. `stream`
    then waits for the companion: its later work and its synchronisation cover the data."""
    pool = staging_pool()
    companion = stream.companion()
    for offset in range(0, data.nbytes, STAGING_CHUNK):
        piece = data[offset:offset + STAGING_CHUNK]
        block = pool.acquire(piece.nbytes)
        try:
            check(lib.aclrtMemcpyAsync(_ptr(block), piece.nbytes,
                                       ffi.cast("void *", src_ptr + offset), piece.nbytes,
                                       lib.ACL_MEMCPY_DEVICE_TO_HOST, stream.handle),
                  "aclrtMemcpyAsync")
            companion.wait_event(stream.record())
            companion.launch_host_func(_unstage(piece, block, pool))  # it releases the block
        except BaseException:  # (Ctrl-C too) the queued copy may still write the block
            pool.release(block, _event_after(stream))
            raise
    stream.wait_event(companion.record())


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
    return ffi.cast("void *", host_address(array))


def check_fits(count, dest_max, api):
    """InvalidValueError (ACL_ERROR_RT_PARAM_INVALID, 107000) when count > destMax, as ACL does."""
    if count > dest_max:
        raise InvalidValueError(ACL_ERROR_RT_PARAM_INVALID, api,
                                "count (%d bytes) is larger than destMax (%d bytes)"
                                % (count, dest_max))

