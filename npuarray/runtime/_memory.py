"""DeviceMemory: one raw aclrtMalloc block and explicit copies in and out of it."""
import operator
import weakref

import numpy as np

from .._acl import InvalidValueError, check, ffi, lib
from . import _device, _profiler
from ._device import Device, activate, as_device_id, keep_at_exit
from ._pinned import empty_pinned
from ._stream import as_stream, check_stream_device, current_stream_of
from ._transfer import (check_fits, copy_device_to_device, copy_device_to_host,
                        copy_host_to_device)

ACL_ERROR_RT_PARAM_INVALID = 107000
_SIZE_MAX = (1 << 64) - 1


class DeviceMemory:
    """`nbytes` bytes of device memory on `device` (default: the current device), from
    aclrtMalloc (64-byte aligned); freed by ``free()`` or when garbage collected (after the
    last stream that used it has finished with it).

    ``.ptr`` is the device address (int), ``.nbytes`` the size in bytes, ``.device`` the
    Device. Copies run on `stream` (default: the current stream of the memory's device):
    synchronous on the default stream or with ``blocking=True``; asynchronous otherwise,
    with pageable host buffers staged through pinned memory. Raises OutOfMemoryError
    (a MemoryError) when the device is full, InvalidValueError for sizes that do not fit.
    """
    __slots__ = ("ptr", "nbytes", "device", "_last_stream", "_finalizer", "__weakref__")

    def __init__(self, nbytes, device=None):
        nbytes = operator.index(nbytes)
        if nbytes < 0:
            raise ValueError("nbytes must be >= 0, got %d" % nbytes)
        if nbytes > _SIZE_MAX:
            raise ValueError("nbytes %d is too big: aclrtMalloc takes at most 2**64 - 1 bytes"
                             % nbytes)
        device_id = as_device_id(device)
        self.device = Device(device_id)
        self.nbytes = nbytes
        self._last_stream = [None]   # shared with the finalizer, which waits for it
        if nbytes == 0:
            self.ptr = 0
            self._finalizer = None
            return
        activate(device_id)
        ptr = ffi.new("void **")
        check(lib.aclrtMalloc(ptr, nbytes, lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
        self.ptr = int(ffi.cast("uintptr_t", ptr[0]))
        self._finalizer = keep_at_exit(
            weakref.finalize(self, _free_device, device_id, ptr[0], self._last_stream))

    def free(self):
        """Returns the memory to the device now (after its last stream's work). Using the
        object afterwards raises InvalidValueError."""
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None

    def _check_alive(self, api):
        if self.ptr and self._finalizer is None:
            raise InvalidValueError(ACL_ERROR_RT_PARAM_INVALID, api,
                                    "this DeviceMemory was freed")

    def _stream_for(self, stream, api):
        """The stream a copy of this memory runs on, remembered so that freeing waits for it."""
        if self._finalizer is None and self.ptr:  # (_check_alive's test, inline: every copy)
            self._check_alive(api)
        device = self.device
        stream = current_stream_of(device) if stream is None else as_stream(stream)
        if stream.device.id != device.id:  # (check_stream_device's test, inline: every copy)
            check_stream_device(stream, device.id, api)
        self._last_stream[0] = stream
        return stream

    def copy_from_host(self, src, *, stream=None, blocking=True):
        """Copies the bytes of the array-like `src` to the start of this memory (H2D,
        aclrtMemcpy / aclrtMemcpyAsync). InvalidValueError (107000) when src.nbytes > nbytes."""
        src = np.asarray(src)
        stream = self._stream_for(stream, "aclrtMemcpyAsync")
        if src.nbytes > self.nbytes:
            check_fits(src.nbytes, self.nbytes, "aclrtMemcpyAsync")
        copy_host_to_device(self.ptr, src, stream, blocking=blocking)

    def copy_to_host(self, dst=None, *, nbytes=None, stream=None, blocking=True):
        """Copies the first `nbytes` bytes of this memory (default: ``dst.nbytes``, or all
        of it when `dst` is None: a new uint8 array, pinned when the copy is asynchronous)
        into the writable C-contiguous ndarray `dst` (D2H); returns `dst`.
        InvalidValueError (107000) when the copy is larger than the memory; ValueError
        when `dst` does not hold exactly `nbytes` bytes, or when it is smaller than the
        memory and `nbytes` is not given (copying only the start must be asked for: it
        used to happen silently). Asynchronous copies are valid once the stream is
        synchronised."""
        stream = self._stream_for(stream, "aclrtMemcpyAsync")
        if dst is None:
            synchronous = blocking or stream.is_default
            count = self.nbytes if nbytes is None else operator.index(nbytes)
            dst = (np.empty if synchronous else empty_pinned)(count, np.uint8)
        if not isinstance(dst, np.ndarray):
            raise TypeError("dst must be a numpy.ndarray, got %s" % type(dst).__name__)
        count = dst.nbytes if nbytes is None else operator.index(nbytes)
        check_fits(count, self.nbytes, "aclrtMemcpyAsync")
        if nbytes is None and count < self.nbytes:
            raise ValueError("dst has %d bytes, the memory %d; pass nbytes=%d to copy only "
                             "its start" % (count, self.nbytes, count))
        if dst.nbytes != count:
            raise ValueError("dst has %d bytes, nbytes is %d" % (dst.nbytes, count))
        copy_device_to_host(dst, self.ptr, stream, blocking=blocking)
        return dst

    def copy_from_device(self, src_mem, *, stream=None):
        """Copies all of the DeviceMemory `src_mem` to the start of this memory (D2D; between
        devices directly when peer access is enabled, else through pinned host memory)."""
        if not isinstance(src_mem, DeviceMemory):
            raise TypeError("copy_from_device needs a DeviceMemory, got %s"
                            % type(src_mem).__name__)
        src_mem._check_alive("aclrtMemcpyAsync")
        stream = self._stream_for(stream, "aclrtMemcpyAsync")
        src_mem._last_stream[0] = stream  # the copy reads it there
        check_fits(src_mem.nbytes, self.nbytes, "aclrtMemcpyAsync")
        copy_device_to_device(self.ptr, self.device.id, src_mem.ptr, src_mem.device.id,
                              src_mem.nbytes, stream)

    def memset(self, value, *, stream=None):
        """Sets every byte to `value` (aclrtMemsetAsync); synchronous on the default stream."""
        stream = self._stream_for(stream, "aclrtMemsetAsync")
        if self.nbytes == 0:
            return
        activate(self.device.id)
        span = _profiler.active and _profiler.begin_stream_work("memset", "aclrtMemsetAsync",
                                                                stream, self.nbytes)
        check(lib.aclrtMemsetAsync(ffi.cast("void *", self.ptr), self.nbytes, int(value),
                                   self.nbytes, stream.handle), "aclrtMemsetAsync")
        if span:
            _profiler.end(span)
        if stream.is_default:
            stream.synchronize()

    def __repr__(self):
        return "<npuarray.DeviceMemory 0x%x, %d bytes on device %d>" % (
            self.ptr, self.nbytes, self.device.id)


def _free_device(device_id, ptr, last_stream):
    def release():
        stream = last_stream[0]
        activate(device_id)
        if stream is not None:
            lib.aclrtSynchronizeStream(stream.handle)  # its queued copies may still use ptr
        lib.aclrtFree(ptr)
    _device.release_later_if_needed(release)
