"""Moving NPUArrays between the host and devices, and the transfer guard.

Uploads (``asarray``) and downloads (``to_host`` / ``asnumpy``) run on the
current stream of the array's device (or the ``stream=`` given): synchronous on
a default stream, asynchronous on another stream, pageable host memory staged
through the pinned pool by the runtime's copy primitives
(``npuarray.runtime._transfer``). A blocking read waits for the stream that
used the array's buffer last, not for the whole device.

Every read of device data by the host goes through ``_read_to_host``, which
first runs ``host_read_hooks`` (the runtime's capture guard is one: it raises
CaptureError before the runtime is touched). Implicit reads (``__array__``,
``__bool__``, ``__int__``, ``__float__``, ``__complex__``, ``__index__``,
``format(x, spec)`` of a 0-d array, NumPy functions without a device
implementation; uploads of host operands, ``implicit_upload``) additionally
obey the transfer guard; explicit ones (``to_host``, ``asnumpy``, ``item``,
``tolist``) always work. ``repr``/``str`` are allowed under every guard level,
as in JAX and CuPy: printing is an explicit request to see the values, and a
failing ``repr`` would break debuggers and error messages.

DLPack: ``__dlpack__`` exports device memory as kDLExtDev (12), as torch_npu
does, or a host copy for ``dl_device=(kDLCPU, 0)``; ``from_dlpack`` imports
host producers (upload) and device producers (device copy).
"""
import contextlib
import logging
import os
import sys
import threading

import numpy as np

from .. import _acl, runtime
from . import _array_type, _dlpack, _manipulation, _ops
from ._shape import c_strides
from ..runtime import _capture_guard, _memory_pool
from ._data_type import BFLOAT16, normalize_dtype
from ..runtime._device import as_device_id, peer_access_enabled
from ..runtime._stream import current_stream_of
from ..runtime._transfer import copy_device_to_device, copy_device_to_host, copy_host_to_device

__all__ = ["asarray", "asnumpy", "from_dlpack", "transfer_guard", "ImplicitTransferError"]

_GUARD_LEVELS = ("allow", "log", "disallow")
_ACL_ERROR_RT_STREAM_CAPTURED = 107027
_guard_state = threading.local()
_logger = logging.getLogger("npuarray")
# Span reads (download the memory a strided view covers, select on the host)
# are used while they move at most this many times the view's own bytes.
_SPAN_READ_FACTOR = 4

host_read_hooks = [_capture_guard.check_host_read]
"""Callables ``hook(what)`` run before any host read of device data; a hook
raises to forbid the read. The runtime's capture guard is one: CaptureError in
a thread that is capturing a graph (the runtime never imports this layer)."""


class ImplicitTransferError(TypeError):
    """An implicit device-to-host transfer was attempted while
    ``npuarray.transfer_guard("disallow")`` (or NPUARRAY_TRANSFER_GUARD=disallow)
    is in effect. The message names the explicit call to use instead."""


# -- the transfer guard ------------------------------------------------------------------------

def _check_level(level):
    if level not in _GUARD_LEVELS:
        raise ValueError(f"transfer guard level must be one of {', '.join(_GUARD_LEVELS)}; "
                         f"got {level!r}")
    return level


# The process default, read once when npuarray is imported.
_DEFAULT_GUARD = os.environ.get("NPUARRAY_TRANSFER_GUARD", "").strip().lower() or "allow"


def guard_level():
    """The transfer guard level of this thread: the innermost ``transfer_guard``
    block, else NPUARRAY_TRANSFER_GUARD (as set when npuarray was imported),
    else "allow". ValueError when the variable holds an unknown level."""
    stack = vars(_guard_state).get("stack")
    return stack[-1] if stack else _check_level(_DEFAULT_GUARD)


@contextlib.contextmanager
def transfer_guard(level):
    """Control implicit device-to-host transfers in this thread inside the block.

    ``level``: "allow" (default), "log" (each implicit transfer logs a warning on
    the "npuarray" logger) or "disallow" (it raises ImplicitTransferError, a
    TypeError naming the explicit call). Implicit: ``numpy.asarray(x)``,
    ``bool(x)``, ``int(x)``, ``float(x)``, ``complex(x)``, ``operator.index(x)``,
    a NumPy function without a device version run on host copies, and host
    arrays uploaded as operands (``x + numpy_array``). Explicit and always allowed: ``x.to_host()``,
    ``npuarray.asnumpy(x)``, ``x.item()``, ``x.tolist()``, ``repr(x)``.
    Thread-local; nested blocks restore the outer level. The process default
    comes from NPUARRAY_TRANSFER_GUARD (read at import). ValueError for an
    unknown level.
    """
    _check_level(level)
    stack = vars(_guard_state).setdefault("stack", [])
    stack.append(level)
    try:
        yield
    finally:
        stack.pop()


def implicit_to_host(x, what, explicit):
    """``x`` as a NumPy array for an implicit transfer ``what`` (e.g. "bool(x)"),
    after the transfer guard allowed it; ``explicit`` names the call to use."""
    check_implicit(f"{what} copies an array of shape {x.shape} from {_device_name(x)} "
                   f"to the host implicitly; use {explicit} to transfer explicitly")
    return _read_to_host(x, what)


def check_implicit(message):
    """Apply the transfer guard to the implicit transfer ``message`` describes:
    nothing under "allow", a warning on the "npuarray" logger naming the
    caller's file and line under "log", ImplicitTransferError under "disallow"."""
    level = guard_level()
    if level == "allow":
        return
    if level == "disallow":
        raise ImplicitTransferError(message + " (transfer_guard is 'disallow')")
    _logger.warning("%s: %s", _caller_line(), message)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))


def _caller_line():
    """``file:line`` of the innermost frame outside npuarray and NumPy: the user's
    line that asked for the transfer."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith((_PACKAGE_DIR, _NUMPY_DIR)) \
                and not filename.startswith("<frozen"):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"


def implicit_upload(host, what):
    """The host operand ``host`` (a NumPy array or scalar, a list) of ``what`` as an
    NPUArray on the current device: an implicit host-to-device transfer, under the
    transfer guard like the implicit downloads."""
    shape = np.shape(host)
    check_implicit(f"{what} copies a host array of shape {shape} to the device "
                   f"implicitly; use npuarray.asarray() to transfer explicitly")
    return asarray(host)


# -- device to host ----------------------------------------------------------------------------

def to_host(x, *, stream=None, out=None, blocking=True):
    """Copy ``x`` to a host ``numpy.ndarray`` of the same shape and dtype.

    ``stream``: where the copy runs (default: the current stream of x's device).
    ``out``: a C-contiguous, writeable ndarray of x's shape and dtype to fill
    (ValueError / TypeError otherwise). ``blocking=False`` on a non-default
    stream: the copy is enqueued (into ``out`` or a new pinned array, which is
    returned) and the result is valid once that stream has been synchronised;
    on a default stream copies are always synchronous. Explicit: never refused
    by the transfer guard. Uses aclrtMemcpy(Async) (D2H); non-contiguous views
    are compacted first on the device (aclnnInplaceCopy) or read as the memory
    span they cover. Mirrors ``cupy.ndarray.get``.
    """
    return _read_to_host(x, "to_host()", stream=stream, out=out, blocking=blocking)


def asnumpy(x, *, stream=None, out=None, blocking=True):
    """``x`` as a ``numpy.ndarray``: ``x.to_host(stream=, out=, blocking=)`` for
    an NPUArray, ``numpy.asarray(x)`` (copied into ``out`` when given) for
    anything else. Mirrors ``cupy.asnumpy``."""
    if isinstance(x, _array_type.NPUArray):
        return to_host(x, stream=stream, out=out, blocking=blocking)
    host = np.asarray(x)
    if out is None:
        return host
    np.copyto(out, host)
    return out


def _read_to_host(x, what, *, stream=None, out=None, blocking=True):
    """The one path by which the host reads device data."""
    if stream is None and out is None and blocking:  # the common case of a small array,
        host = _ops.read_to_host(x)                   # in C (same rules), else None
        if host is not None:
            return host
    for hook in host_read_hooks:
        hook(what)
    device = x._buffer.device
    if stream is None:
        stream = current_stream_of(device)
    elif stream.device != device:
        raise ValueError(f"the stream is on npu:{stream.device.id} but the array is on "
                         f"npu:{device.id}")
    last = x._buffer.stream
    _refuse_during_capture(what, stream, None if last is stream else last)
    if out is not None:
        _check_out(x, out)
    if x.size == 0:
        return np.empty(x.shape, x.dtype) if out is None else out
    if x.is_c_contiguous():
        return _download(x, stream, out, blocking)
    if blocking and _span_elements(x)[1] <= _SPAN_READ_FACTOR * x.size:
        return _read_span(x, stream, out)
    compact = _ops.empty(x.shape, x.dtype, device, stream)
    _ops.copy_(compact, x)
    return _download(compact, stream, out, blocking)


def _refuse_during_capture(what, *streams):
    """CaptureError (ACL_ERROR_RT_STREAM_CAPTURED) before a read would
    synchronise a stream that is being captured (which CANN refuses, 107027)."""
    for stream in streams:
        if stream is not None and _memory_pool.capturing(stream):
            raise _acl.CaptureError(
                _ACL_ERROR_RT_STREAM_CAPTURED, what,
                f"{what} reads device data on the host, which waits for a stream that "
                "is being captured into a graph; read it after the capture ends")


def _check_out(x, out):
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
    if out.shape != x.shape:
        raise ValueError(f"out has shape {out.shape}, the array has shape {x.shape}")
    if out.dtype != x.dtype:
        raise TypeError(f"out has dtype {out.dtype}, the array has dtype {x.dtype}")
    if not (out.flags.c_contiguous and out.flags.writeable):
        raise ValueError("out must be a C-contiguous, writeable numpy.ndarray")


def _new_host(shape, dtype, blocking):
    return np.empty(shape, dtype) if blocking else runtime.empty_pinned(shape, dtype)


def _download(x, stream, out, blocking):
    """Copy the C-contiguous view ``x`` into ``out`` (or a new array)."""
    if out is None:
        out = _new_host(x.shape, x.dtype, blocking)
    _order_read(x._buffer, stream, blocking)
    copy_device_to_host(out, x.data_ptr, stream, blocking=blocking)
    return out


def _order_read(buffer, stream, blocking):
    """Order a read of ``buffer`` on ``stream`` after the work that produced it.
    A blocking copy synchronises ``stream`` itself, so the host waits for the
    buffer's last stream only when that is another one."""
    if blocking:
        if buffer.stream is not stream:
            buffer.host_wait()
    else:
        buffer.prepare(stream)


def _span_elements(x):
    """(first element offset, element count) of the memory the view covers."""
    low = high = x._offset
    for n, s in zip(x._shape, x._strides):
        if s < 0:
            low += (n - 1) * s
        else:
            high += (n - 1) * s
    return low, high - low + 1


def _read_span(x, stream, out):
    """Blocking read of the memory span the view covers, then the view's
    elements selected on the host (cheaper than a device copy for dense views)."""
    low, count = _span_elements(x)
    span = np.empty(count, x.dtype)
    _order_read(x._buffer, stream, blocking=True)
    copy_device_to_host(span, x._buffer.ptr + low * x.dtype.itemsize, stream, blocking=True)
    view = np.lib.stride_tricks.as_strided(span[x._offset - low:], x.shape, x.strides)
    if out is None:
        return view.copy()
    np.copyto(out, view)
    return out


# -- host to device ----------------------------------------------------------------------------

def _host_array(obj, dtype):
    """``obj`` as a C-contiguous NumPy array of a supported dtype."""
    host = np.asarray(obj, dtype=dtype)
    native = normalize_dtype(host.dtype)  # TypeError for object, str, float128, ...
    if native != host.dtype or host.dtype.byteorder == ">" or not host.flags.c_contiguous:
        host = np.asarray(host, dtype=native, order="C")
    return host


def upload(host, device, stream):
    """A new NPUArray on ``device`` holding the C-contiguous ``host`` array,
    copied on ``stream`` (aclrtMemcpy(Async), H2D)."""
    x = _ops.empty(host.shape, host.dtype, device, stream)
    if host.size:
        copy_host_to_device(x._buffer.ptr, host, stream, blocking=False)
    return x


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """Convert ``obj`` to an NPUArray (array API ``asarray``).

    ``obj``: an NPUArray, a NumPy array, a nested sequence, a Python scalar, or
    an object with ``__array__`` or the buffer protocol. ``dtype``: the result
    dtype (default: ``obj``'s; Python bool/int/float/complex become bool,
    int64, float64, complex128). ``device``: an ``npuarray.Device`` or id
    (default: ``obj``'s device for NPUArrays, else the current device).
    ``copy``: True always copies; False never does (ValueError when a copy is
    needed, e.g. for any host object); None copies only when needed.
    Host data is uploaded on the current stream of the device (synchronous on
    the default stream, asynchronous on another; aclrtMemcpy(Async)); a dtype
    change on the device runs aclnnCast. Raises TypeError for unsupported
    dtypes, OverflowError for Python ints out of the dtype's range.
    """
    if dtype is not None:
        dtype = normalize_dtype(dtype)
    if isinstance(obj, _array_type.NPUArray):
        return _from_array(obj, dtype, device, copy)
    if _holds_arrays(obj):
        return _stack_sequence(obj, dtype, device, copy)
    if copy is False:
        raise ValueError("asarray(copy=False) cannot upload host data without a copy")
    host = _host_array(obj, dtype)
    device = runtime.Device(as_device_id(device))
    return upload(host, device, current_stream_of(device))


def _holds_arrays(obj):
    """Whether ``obj`` is a (nested) list or tuple with an NPUArray inside."""
    return isinstance(obj, (list, tuple)) and any(
        isinstance(e, _array_type.NPUArray) or _holds_arrays(e) for e in obj)


def _first_array(obj):
    return obj if isinstance(obj, _array_type.NPUArray) else next(
        _first_array(e) for e in obj if isinstance(e, _array_type.NPUArray) or _holds_arrays(e))


def _stack_sequence(items, dtype, device, copy):
    """A sequence holding NPUArrays: the items stacked on the device
    (aclnnInplaceCopy into the result), with no host round trip."""
    if copy is False:
        raise ValueError("asarray(copy=False) cannot stack a sequence without a copy")
    if device is None:
        device = _first_array(items).device
    arrays = [asarray(e, device=device) for e in items]
    stacked = _manipulation.stack(arrays)
    return stacked if dtype is None else _manipulation.astype(stacked, dtype, copy=False)


def _from_array(x, dtype, device, copy):
    target = x.device if device is None else runtime.Device(as_device_id(device))
    cast = dtype is not None and dtype != x.dtype
    moved = target != x.device
    if copy is False and (cast or moved):
        raise ValueError(f"asarray(copy=False) would need a copy "
                         f"({'dtype ' + str(dtype) if cast else 'device ' + repr(target)})")
    if moved:
        x = to_device(x, target)
    if cast:
        return _manipulation.astype(x, dtype)
    if copy and not moved:
        return _manipulation.copy_array(x)
    return x


# -- device to device --------------------------------------------------------------------------

def to_device(x, device, /, *, stream=None):
    """``x`` on ``device`` (an ``npuarray.Device`` or id; array API
    ``to_device``): ``x`` itself when it is there already, else a C-contiguous
    copy. The copy runs on ``stream``, a stream of the target device (default:
    its current stream): a peer copy (aclrtMemcpyAsync, D2D) when the target
    device has enabled peer access to the source, ordered by events after the
    work queued on ``x`` (and later work on ``x`` waits for the copy); else
    staged through pinned host memory after the host has waited for that work.
    Synchronous when ``stream`` is a default stream."""
    target = runtime.Device(as_device_id(device))
    source = x.device
    if target == source:
        return x
    stream = runtime.get_current_stream(target) if stream is None else stream
    if stream.device != target:
        raise ValueError(f"to_device: the stream is on npu:{stream.device.id}, the "
                         f"target device is npu:{target.id}")
    if not x.is_c_contiguous():
        x = _manipulation.copy_array(x)
    y = _ops.empty(x.shape, x.dtype, target, stream)
    if x.size:
        if peer_access_enabled(target.id, source.id):
            # The copy reads x on `stream`: it waits for x's pending writes, and x's
            # next use (and the reuse of its block) waits for the copy.
            x._buffer.prepare(stream)
        else:
            x._buffer.host_wait()  # the staged copy reads x synchronously
        copy_device_to_device(y._buffer.ptr, target, x.data_ptr, source, x.nbytes, stream)
    return y


# -- printing and pickling ---------------------------------------------------------------------

def _device_name(x):
    return f"npu:{x.device.id}"


def _values_for_display(x):
    """(host values to print, array2string options), or (None, {}) during a
    capture. An array NumPy would summarise (more than the print threshold's
    elements) is cut on the device to the edge items of each long axis plus
    one hidden filler element, so printing a huge array reads only a few
    elements; printed with threshold 0 it shows exactly NumPy's summary."""
    options = np.get_printoptions()
    edge = options["edgeitems"]
    cut = x
    if x.size > options["threshold"]:
        for axis, n in enumerate(x.shape):
            if n > 2 * edge + 1:
                keep = np.r_[0:edge + 1, n - edge:n]  # element `edge` is never shown
                cut = cut[(slice(None),) * axis + (keep,)]
    try:
        host = _read_to_host(cut, "repr(x)")
    except _acl.CaptureError:
        return None, {}
    return host, ({"threshold": 0} if cut is not x else {})


def array_repr(x):
    """``NPUArray([...], dtype=..., device='npu:N')``: NumPy's layout of the
    values (summarised as NumPy does), then the dtype and the device."""
    host, options = _values_for_display(x)
    prefix = "NPUArray("
    tail = f"dtype={x.dtype}, device='{_device_name(x)}')"
    if host is None:
        return f"{prefix}<not readable during graph capture>, shape={x.shape}, {tail}"
    body = np.array2string(host, separator=", ", prefix=prefix, **options)
    if host.size == 0 and host.ndim != 1:
        tail = f"shape={x.shape}, " + tail
    return f"{prefix}{body}, {tail}"


def array_str(x):
    """NumPy's ``str`` of the values followed by the device, e.g.
    ``[1. 2.] on npu:0``."""
    host, options = _values_for_display(x)
    if host is None:
        return f"<not readable during graph capture> on {_device_name(x)}"
    return f"{np.array2string(host, separator=' ', **options)} on {_device_name(x)}"


# -- DLPack ------------------------------------------------------------------------------------
# Legacy (unversioned) DLManagedTensor, dlpack.h 1.x, in capsules made and consumed in C
# (npuarray/_core/_dlpack.c); exported the way torch_npu exports NPU tensors: kDLExtDev (12),
# data at the first element, strides in elements, byte_offset 0.

KDL_CPU, KDL_EXT_DEV = 1, 12
# DLDataTypeCode by NumPy kind: kDLBool, kDLInt, kDLUInt, kDLFloat, kDLComplex.
_DL_CODES = {"b": 6, "i": 0, "u": 1, "f": 2, "c": 5}
_DL_BFLOAT = 4

_DL_DTYPES = {(code, dtype.itemsize * 8): dtype for dtype, code in (
    (np.dtype(np.bool_), 6), (np.dtype(np.int8), 0), (np.dtype(np.int16), 0),
    (np.dtype(np.int32), 0), (np.dtype(np.int64), 0), (np.dtype(np.uint8), 1),
    (np.dtype(np.uint16), 1), (np.dtype(np.uint32), 1), (np.dtype(np.uint64), 1),
    (np.dtype(np.float16), 2), (np.dtype(np.float32), 2), (np.dtype(np.float64), 2),
    (BFLOAT16, _DL_BFLOAT), (np.dtype(np.complex64), 5), (np.dtype(np.complex128), 5))}


def _dl_dtype(dtype):
    """(DLDataTypeCode, bits) of a NumPy dtype."""
    return (_DL_BFLOAT if dtype == BFLOAT16 else _DL_CODES[dtype.kind], dtype.itemsize * 8)


def dlpack(x, *, stream=None, max_version=None, dl_device=None, copy=None):
    """DLPack export (array API ``__dlpack__``): a "dltensor" capsule.

    On the array's device (``dl_device`` None or ``(12, id)``): the device
    memory itself as kDLExtDev (12), as torch_npu does; a view with negative
    strides is copied first (BufferError with ``copy=False``); ``copy=True``
    always exports a copy. The host waits for the work queued on the buffer
    unless ``stream == -1``. ``dl_device=(1, 0)`` (kDLCPU): a host copy
    (BufferError with ``copy=False``). Other devices: BufferError."""
    if dl_device is not None and tuple(dl_device) == (KDL_CPU, 0):
        if copy is False:
            raise BufferError("exporting an NPUArray to the CPU needs a copy (copy=False)")
        return to_host(x).__dlpack__()
    if dl_device is not None and tuple(dl_device) != (KDL_EXT_DEV, x.device.id):
        raise BufferError(f"cannot export an array on npu:{x.device.id} to DLPack device "
                          f"{tuple(dl_device)}")
    needs_copy = any(st < 0 for st in x._strides)
    if needs_copy and copy is False:
        raise BufferError("a view with negative strides cannot be exported without a copy")
    if copy or needs_copy:
        x = _manipulation.copy_array(x)
    if stream != -1:
        x._buffer.host_wait()
    return _device_capsule(x)


def _device_capsule(x):
    """A "dltensor" capsule of the device memory of ``x`` (no negative strides), made
    in C (``_dlpack.export``): its tensor holds ``x`` until the consumer's call of the
    deleter, or until the capsule is destroyed unconsumed."""
    return _dlpack.export(x, x.data_ptr, (KDL_EXT_DEV, x.device.id), x.shape, x._strides,
                          _dl_dtype(x.dtype))


def from_dlpack(x, /, *, device=None, copy=None):
    """An NPUArray from any DLPack producer (array API ``from_dlpack``).

    NPUArrays go through ``asarray``. Host producers (kDLCPU: NumPy, PyTorch
    CPU, ...) are uploaded. Device producers (kDLExtDev, e.g. torch_npu) are
    copied on the device (aclrtMemcpyAsync D2D) into pool memory, so
    ``copy=False`` raises BufferError for them and for host data. TypeError for
    objects without ``__dlpack__``; BufferError for other device types."""
    if isinstance(x, _array_type.NPUArray):
        return asarray(x, device=device, copy=copy)
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"{type(x).__name__} does not implement the DLPack protocol")
    device_type, device_id = x.__dlpack_device__()
    if copy is False:
        raise BufferError("npuarray cannot share memory with another DLPack producer "
                          "(copy=False)")
    if device_type == KDL_CPU:
        return asarray(np.from_dlpack(x), device=device)
    if device_type != KDL_EXT_DEV:
        raise BufferError(f"cannot import DLPack device type {device_type}")
    # The capsule is ours once consumed; ``release`` calls the producer's deleter when
    # dropped, after the copy.
    release, data, (_, device_id), shape, strides, dl_dtype = _dlpack.consume(x.__dlpack__())
    return _import_device_tensor(data, device_id, shape, strides, dl_dtype, device)


def _import_device_tensor(data, device_id, shape, strides, dl_dtype, device):
    """Copy a kDLExtDev tensor (compact strides only) at address ``data`` of device
    ``device_id`` into a new NPUArray on ``device`` (default: the same device)."""
    code, bits, lanes = dl_dtype
    dtype = _DL_DTYPES.get((code, bits))
    if dtype is None or lanes != 1:
        raise BufferError(f"unsupported DLPack dtype (code {code}, {bits} bits, "
                          f"{lanes} lanes)")
    if strides is not None and strides != c_strides(shape):
        raise BufferError("only C-contiguous DLPack device tensors can be imported")
    source = runtime.Device(device_id)
    target = source if device is None else runtime.Device(as_device_id(device))
    stream = runtime.get_current_stream(target)
    y = _ops.empty(shape, dtype, target, stream)
    if y.size:
        runtime.get_current_stream(source).synchronize()  # the producer's pending work
        copy_device_to_device(y._buffer.ptr, target, data, source, y.nbytes, stream)
        stream.synchronize()  # the producer may free its memory once we return
    return y


def rebuild_pickled(host, device_id):
    """Unpickling: upload ``host`` to device ``device_id``."""
    return asarray(host, device=device_id)
