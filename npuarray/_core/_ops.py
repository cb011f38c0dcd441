"""The one place that launches aclnn operators.

Every device computation of npuarray goes through :func:`launch`, which runs
CANN's two-phase convention (docs/acl-abi.md §7.1) on the current stream:
``aclnn<Op>GetWorkspaceSize(args..., &size, &executor)`` validates and builds
the executor, a workspace comes from the stream-ordered pool, and
``aclnn<Op>(workspace, size, executor, stream)`` enqueues the work.

The launch path is kept lean because small operations are dominated by host
overhead: the aclTensor describing an array view is created once and cached on
the array (destroyed with it), the aclTensors of operator results are memoised
by (address, shape, dtype) so a recycled pool block reuses its descriptor,
common scalars are cached, operator entry points are looked up once and the two
out-parameters are reused per thread.

The common cases run in C (``npuarray/_core/_fastpath.c``, set up by
``configure_fastpath`` with one ``FastPathState``): NPUArray's operators (``x + y``,
``x + 2.0``, ``2.0 - x``, ``x += y``, ``x[...] = y``), new results (``empty``), unary
and reduction launches, fills and small reads, each falling back to its one Python
path (``launch``, ``empty``, ...) for everything else: a graph capture, a stream
switch, a pool miss, a CANN install without the C helper. ``reduction_result`` and
``matmul_result`` run both phases of their operators in one call of npuarray's C
helper (``npuarray/_acl/_launch.c``, in the npusim extension), which calls the loaded
provider's entry points, CANN's or npusim's, through their addresses.
"""
import functools
import math
import threading

import numpy as np

from .. import _acl
from .._acl import ffi, lib
from . import _array_type
from ._data_type import SUPPORTED_DTYPES, to_acl_dtype
from ._fastpath_state import FastPathState
from ._shape import broadcast_shapes, c_strides
from ..runtime._memory_pool import allocate
from ..runtime._memory_pool import default_pools, pool_overrides as _pool_overrides
from ..runtime import get_current_stream
from ..runtime import _capture_guard
from ..runtime._stream import current_stream_of
from ..runtime._device import activate
from ..runtime import _device, _memory_pool, _profiler, _stream

# The C launch helper (npuarray/_acl/_launch.c) lives in the npusim extension and calls
# whichever provider is loaded through the addresses of its entry points: the CANN path
# gets the same single call. Without the extension (a CANN-only install that did not
# build it) the fast paths launch from Python.
try:
    from .._npusim import ffi as _helper_ffi, lib as _helper_lib
    _launch_helper = _helper_lib.npuarray_aclnn_launch
    _NEEDS_WORKSPACE = _helper_lib.NPUARRAY_NEEDS_WORKSPACE
except (ImportError, AttributeError):
    _launch_helper = None
# The C fast path of NPUArray's operators (npuarray/_core/_fastpath.c, see configure_fastpath).
try:
    from . import _fastpath
except ImportError:
    _fastpath = None

__all__ = []  # internal: used by the array layer and the operator modules

ACL_FORMAT_ND = 2               # aclFormat (docs/acl-abi.md §2.3)
ACLNN_ERR_PARAM_INVALID = 161002  # aclnn status (docs/acl-abi.md §3.3)
ACL_ERROR_API_NOT_SUPPORT = 200001  # aclError (docs/acl-abi.md §3.1)

_NULL = ffi.NULL
_phases = {}                     # op name -> (first phase, second phase)
_out_params = threading.local()  # per thread: (uint64_t* size, aclOpExecutor** executor)
_new_object = object.__new__


# ---------------------------------------------------------------------------
# aclTensor, aclScalar, aclIntArray handles

def acl_tensor(x):
    """The ``aclTensor*`` describing the view ``x`` (shape, strides in elements,
    offset from the storage start, 1-D storage of the whole buffer, format ND),
    created on first use (or taken from the descriptor cache, ``_view_tensor``)
    and cached in ``x._acl_tensor``; destroyed with ``aclDestroyTensor`` when no
    array and no cache entry uses it."""
    handle = x._acl_tensor
    if handle is None:
        handle = x._acl_tensor = _view_tensor(x)
    return handle


def _create_tensor(x):
    return ffi.gc(_new_tensor(x), lib.aclDestroyTensor)


def _new_tensor(x):
    """A new ``aclTensor*`` for the view ``x``, owned by the caller."""
    buffer = x._buffer
    shape = x._shape
    storage = (buffer.nbytes // x._dtype.itemsize,)
    handle = lib.aclCreateTensor(shape, len(shape), to_acl_dtype(x._dtype), x._strides,
                                 x._offset, ACL_FORMAT_ND, storage, 1,
                                 ffi.cast("void *", buffer.ptr))
    if handle == _NULL:
        _acl.check(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor")
    return handle


def acl_tensor_list(arrays, stream):
    """An ``aclTensorList*`` of fresh aclTensors for the NPUArrays ``arrays`` (the
    list owns and destroys them; aclDestroyTensorList when it dies), their
    buffers prepared for ``stream``. Their strides must be non-negative."""
    tensors = []
    for a in arrays:
        a._buffer.prepare(stream)
        tensors.append(_new_tensor(a))
    handle = lib.aclCreateTensorList(tensors, len(tensors))
    if handle == _NULL:
        _acl.check(ACLNN_ERR_PARAM_INVALID, "aclCreateTensorList")
    return ffi.gc(handle, lib.aclDestroyTensorList)


def view_shape(x):
    """The shape recorded in ``x``'s aclTensor (aclGetViewShape): for the output
    of an operator with a data-dependent length (``_SHAPE_WRITING_OPS``), the shape
    it wrote, once its stream has run it."""
    dims, ndims = ffi.new("int64_t **"), ffi.new("uint64_t *")
    _acl.check(lib.aclGetViewShape(acl_tensor(x), dims, ndims), "aclGetViewShape")
    shape = tuple(int(dims[0][i]) for i in range(ndims[0]))
    lib.npuarray_free_dims(dims[0])  # the caller owns the array (new[] on CANN, malloc on npusim)
    return shape


_scalars = {}
_SCALAR_CACHE_SIZE = 1024


def acl_scalar(value, dtype):
    """An ``aclScalar*`` holding the Python number ``value`` converted to
    ``dtype`` (a NumPy dtype; ``aclCreateScalar`` copies it). Cached: the same
    (value, dtype) returns the same handle. Raises OverflowError when an int
    does not fit an integer dtype."""
    kind = type(value)
    if kind is float and not value:  # 0.0 and -0.0 compare equal but differ: the sign joins
        key = (kind, value, dtype, math.copysign(1.0, value))  # the key
    else:
        key = (kind, value, dtype)
    handle = _scalars.get(key)
    if handle is None:
        handle = _create_scalar(value, dtype)
        if kind is not complex and value == value:  # NaN never compares equal
            if len(_scalars) >= _SCALAR_CACHE_SIZE:
                _scalars.clear()
            _scalars[key] = handle
    return handle


def _create_scalar(value, dtype):
    host = np.array(value, dtype=dtype)
    handle = lib.aclCreateScalar(ffi.cast("void *", host.ctypes.data), to_acl_dtype(dtype))
    if handle == _NULL:
        _acl.check(ACLNN_ERR_PARAM_INVALID, "aclCreateScalar")
    return ffi.gc(handle, lib.aclDestroyScalar)


def acl_int_array(values):
    """An ``aclIntArray*`` of the ints ``values`` (e.g. reduction dims)."""
    values = tuple(values)
    handle = lib.aclCreateIntArray(values, len(values))
    if handle == _NULL:
        _acl.check(ACLNN_ERR_PARAM_INVALID, "aclCreateIntArray")
    return ffi.gc(handle, lib.aclDestroyIntArray)


# ---------------------------------------------------------------------------
# Launching

def _lookup(op_name):
    try:
        phases = (getattr(lib, op_name + "GetWorkspaceSize"), getattr(lib, op_name))
    except AttributeError:
        raise _acl.NotSupportedError(
            ACL_ERROR_API_NOT_SUPPORT, op_name, f"{op_name} is not available in the loaded provider "
            f"({_acl.backend()})") from None
    _phases[op_name] = phases
    return phases


def _new_out_params():
    value = _out_params.value = (ffi.new("uint64_t *"), ffi.new("aclOpExecutor **"))
    return value


def launch(op_name, *args, stream=None):
    """Runs aclnn operator ``op_name`` (e.g. ``"aclnnAdd"``) on ``stream``
    (default: the current stream of the first array argument's device).

    ``args`` are the first-phase arguments without the two trailing
    out-parameters: NPUArrays become their cached aclTensors (and their
    buffers are prepared for the stream, so cross-stream use is ordered by
    events; a view with negative strides, which an aclTensor cannot describe,
    is first copied to a contiguous array), ``None`` becomes NULL, anything
    else (cdata handles, ints, bools) is passed as is. The workspace comes
    from the memory pool and goes back to it (stream-ordered) after the
    launch. An operator whose first phase takes only object pointers runs both
    phases in one call of the C helper (``npuarray/_acl/_launch.c``); others, or
    all without the helper, call the two phases from Python. Errors raise
    ``AclError`` subclasses with the operator's message."""
    if op_name not in _phases:
        _lookup(op_name)  # NotSupportedError before any work
    array_type = _array_type.NPUArray
    if stream is None:
        stream = _stream_of_first_array(args, array_type)
    if op_name in _SHAPE_WRITING_OPS:
        for position in _SHAPE_WRITING_OPS[op_name]:
            out = args[position]
            if out is not None:
                out._acl_tensor = _create_tensor(out)
    capturing = _capture_guard.active
    converted = []
    copies = None  # materialised views: their memory must outlive the enqueue
    for arg in args:
        if isinstance(arg, array_type):
            handle = arg._acl_tensor
            if handle is None:
                if arg._strides and min(arg._strides) < 0:
                    arg = _without_negative_strides(arg, stream)
                    copies = copies or []
                    copies.append(arg)
                handle = acl_tensor(arg)
            buffer = arg._buffer
            # prepare() has nothing to do for a buffer last used on this stream outside
            # a capture; skipping the call matters for small operations.
            if capturing or buffer._stream is not stream:
                buffer.prepare(stream)
            arg = handle
        elif arg is None:
            arg = _NULL
        converted.append(arg)
    activate(stream.device.id)  # CANN launches in the context of the stream's device
    span = _profiler.active and _recorder.begin(op_name, args, stream)
    helper = _pointer_entry_points.get(op_name) or _pointer_entry_points_of(op_name)
    count = len(converted)
    if helper[2] != count:  # other parameters, no helper (or a wrong call: cffi says so)
        _launch_in_python(op_name, converted, stream)
    else:  # both phases in one call of the C helper
        ret = _launch_helper(helper[0], helper[1], count, *converted, *_NULLS[count:],
                             stream.handle)
        if ret:
            _nonzero_helper_result(op_name, ret, stream)
    if span:
        _recorder.end(span, stream, stream.device.id)


def _result(layout, shape, dtype, device, stream):
    """A new C-contiguous array (``layout``: its bytes and strides) from the
    pool for ``stream``, with its aclTensor from the descriptor cache. Only
    outside a graph capture (the callers check): allocate()'s capture routing
    is skipped, and so is the rest of its call chain when this thread uses the
    device's default pool (the hot path of every small operation)."""
    out = empty_result(shape, dtype, device, stream)  # the common case, in C
    if out is not None:
        return out
    pool = default_pools.get(device.id)
    if pool is None or vars(_pool_overrides).get("overrides"):
        buffer = allocate(layout[0], device, stream)  # first use, or inside using_pool()
    else:
        buffer = pool.allocate(layout[0], stream)
    out = _new_object(_array_type.NPUArray)  # NPUArray._from_buffer, inline
    out._buffer = buffer
    out._shape = shape
    out._strides = layout[1]
    out._offset = 0
    out._dtype = dtype
    out._acl_tensor = _whole_tensors.get((buffer.ptr, shape, dtype)) or _whole_tensor(out)
    return out


def _nonzero_helper_result(op_name, ret, stream):
    """After the C helper returned ``ret`` (not 0): AclError naming the phase
    that failed, or the launch of an operator that wants a workspace (the pool
    gives one, in stream order)."""
    if ret != _NEEDS_WORKSPACE:
        failed_in_first = _helper_lib.npuarray_aclnn_failed_phase() == 1
        _acl.check(ret, op_name + "GetWorkspaceSize" if failed_in_first else op_name)
    size_out, executor_out = _helper_ffi.new("uint64_t *"), _helper_ffi.new("void **")
    _helper_lib.npuarray_aclnn_pending(size_out, executor_out)
    size = size_out[0]
    executor = ffi.cast("aclOpExecutor *", int(_helper_ffi.cast("uintptr_t", executor_out[0])))
    workspace = allocate(size, stream.device, stream)
    ret = _phases[op_name][1](ffi.cast("void *", workspace.ptr), size, executor, stream.handle)
    if ret:
        _acl.check(ret, op_name)


def _launch_in_python(op_name, pointers, stream):
    first, second = _phases.get(op_name) or _lookup(op_name)
    try:
        size_out, executor_out = _out_params.value
    except AttributeError:
        size_out, executor_out = _new_out_params()
    ret = first(*pointers, size_out, executor_out)
    if ret:
        _acl.check(ret, op_name + "GetWorkspaceSize")
    _second_phase(op_name, second, size_out, executor_out, stream)


_PYTHON_LAUNCH = (None, None)  # launch from Python (no helper, or phases that are not C)
# op name -> (void* first phase, void* second phase) or _PYTHON_LAUNCH. Emptied in place,
# never rebound, when the provider's functions change: the C fast path holds this dict.
_entry_points = {}
# op name -> (first phase, second phase, n) when its first phase takes n = 2 to 4 object
# pointers (and the two out-parameters), the C helper's signature, else (None, None, 0).
_pointer_entry_points = {}
_NULLS = (_NULL,) * 4


def _pointer_entry_points_of(op_name):
    entry_points = _entry_points.get(op_name) or _entry_points_of(op_name)
    count = 0
    if entry_points is not _PYTHON_LAUNCH:
        try:
            parameters = ffi.typeof(_phases[op_name][0]).args
        except TypeError:  # not a C function cffi can describe
            parameters = ()
        if 4 <= len(parameters) <= 6 and all(p.kind == "pointer" for p in parameters):
            count = len(parameters) - 2
    helper = _pointer_entry_points[op_name] = (*entry_points, count)
    return helper


def _entry_points_of(op_name):
    """The addresses of ``op_name``'s two phases for the C helper, or
    ``_PYTHON_LAUNCH`` when there is no helper or a phase is not a C function
    (a provider without the operator raises its NotSupportedError when called)."""
    first, second = _phases.get(op_name) or _lookup(op_name)
    entry_points = _PYTHON_LAUNCH
    if _launch_helper is not None:
        try:
            entry_points = (ffi.cast("void *", first), ffi.cast("void *", second))
        except TypeError:
            pass
    _entry_points[op_name] = entry_points
    return entry_points


# ---------------------------------------------------------------------------
# The C fast path (npuarray/_core/_fastpath.c): the common case of NPUArray's operators, of
# new results (empty, _result), unary and reduction launches, small reads and
# DeviceBuffer.__del__, each falling back to the Python code it stands in for. Without the
# extension (or with a cffi whose object layout it does not know) everything runs here.

class _LaunchRecorder:
    """How the Python launch paths (``launch``, ``reduction_result``, ``matmul_result``)
    record a launch while a profile runs: ``begin(op_name, args, stream)`` -> span, then
    ``end(span, stream, device_id)``. The profiler's Python hooks, until
    ``configure_fastpath`` switches to the C recorder of the fast paths
    (``_fastpath.launch_begin`` / ``launch_end``: the same records at a fraction of the
    cost)."""
    __slots__ = ("begin", "end")

    def __init__(self):
        self.begin = _profiler.begin_launch
        self.end = _end_in_python


def _end_in_python(span, stream, device_id):
    _profiler.end(span)


_recorder = _LaunchRecorder()


def configure_fastpath(array_type, array_slots, host_read_hooks):
    """Hands ``_fastpath`` its one state object (``FastPathState``: NPUArray
    ``array_type`` with its slot map ``array_slots``, the runtime's published state,
    this module's caches; ``host_read_hooks``: ``_transfer``'s list of the callables told
    of implicit host reads) and makes ``DeviceBuffer.__del__`` its C release. True when
    the fast paths are on; False without the extension or the launch helper. Raises
    TypeError (RuntimeError) when the state lacks what the C code reads. Called once,
    when NPUArray exists."""
    if _fastpath is None or _launch_helper is None:
        return False
    _fastpath.configure(fastpath_state(array_type, array_slots, host_read_hooks))
    buffer_type = _memory_pool.DeviceBuffer
    if not isinstance(vars(buffer_type)["__del__"], _fastpath.BufferRelease):
        buffer_type.__del__ = _fastpath.BufferRelease(buffer_type.__del__)
    _fastpath.finalize_in_c(buffer_type)
    _recorder.begin, _recorder.end = _fastpath.launch_begin, _fastpath.launch_end
    _profiler.recording.event_times = _fastpath.event_times
    _profiler.recording.new_log = _fastpath.LaunchLog
    return True


def fastpath_state(array_type, array_slots, host_read_hooks):
    """The ``FastPathState`` of this process (see ``configure_fastpath``)."""
    sample = ffi.cast("void *", 0x1000)
    return FastPathState(
        array_type=array_type, array_slots=array_slots,
        buffer_type=_memory_pool.DeviceBuffer, buffer_slots=_memory_pool.BUFFER_SLOTS,
        pool_type=_memory_pool.MemoryPool, pool_slots=_memory_pool.POOL_SLOTS,
        stream_type=_stream.Stream, stream_slots={"handle": "handle"},
        device_type=_device.Device, device_slots={"id": "id"},
        capture_active=_capture_guard.active, process=_device.process_state,
        recording=_profiler.recording, profiler_begin=_profiler.begin_launch,
        profiler_end=_profiler.end, profiler_take_event=_profiler.take_event,
        profiler_record_event=_profiler.record_timing_event,
        profiler_capturing=_profiler.capturing, stream_locals=_stream.thread_state,
        device_locals=_device.thread_state, pool_locals=_pool_overrides,
        default_streams=_stream.default_streams, default_pools=default_pools,
        activate=activate, whole_tensors=_whole_tensors, whole_tensor=_whole_tensor,
        view_tensor=acl_tensor,
        scalars=_scalars, acl_scalar=acl_scalar, entry_table=_entry_points,
        entry_points=_fast_entry_points, launch_status=_fast_launch_status,
        read_status=_fast_read_status, host_read_hooks=host_read_hooks,
        capture_read_hook=_capture_guard.check_host_read, host_empty=np.empty,
        capture_info=_address_of(lib.aclmdlRICaptureGetInfo),
        synchronize_stream=_address_of(lib.aclrtSynchronizeStream),
        memcpy=_address_of(lib.aclrtMemcpy), record_event=_address_of(lib.aclrtRecordEvent),
        memcpy_device_to_host=lib.ACL_MEMCPY_DEVICE_TO_HOST,
        pointer_type=ffi.typeof("void *"), pointer_sample=sample,
        pointer_sample_address=int(ffi.cast("uintptr_t", sample)),
        elapsed_time=_address_of(lib.aclrtEventElapsedTime))


def fastpath_counts():
    """How many operations each C fast path has run, by path (``_fastpath.counts()``:
    "arrays", "scalar", "in_place", "unary", "reduction", "empty", "fill", "read",
    "matmul"); an empty dict without the extension. For tests that the common cases stay
    in C."""
    return _fastpath.counts() if _fastpath is not None else {}


def fast_binary_operator(op_name, direct, scalar_direct, operator, *, mode="forward"):
    """NPUArray's binary operator for ``op_name``: ``operator`` (the Python one), with
    its common case in C when the fast path is on (``direct``, ``scalar_direct``: the
    plan's tables of the operand dtypes the operator takes as they are; ``mode``:
    "forward", "reflected" or "in-place", see ``_fastpath.BinaryOperator``)."""
    if _fastpath is None:
        return operator
    return _fastpath.BinaryOperator(op_name, direct, scalar_direct, operator, mode=mode)


def fast_reduction(op_name, plans, function):
    """``function`` (a reduction's public function or NPUArray method: ``sum(x,
    axis=None, ..., keepdims=False)``) with its common case in C when the fast
    path is on: a call with one NPUArray, an axis and keepdims whose launch
    ``plans`` memoised (``_fastpath.ReductionFunction``)."""
    if _fastpath is None:
        return function
    return _fastpath.ReductionFunction(op_name, plans, function)


def fast_matmul(plans, cube_math_type, function):
    """``function`` (``matmul(x1, x2)``, the public function or ``NPUArray.__matmul__``)
    with its common case in C when the fast path is on: two NPUArrays whose product
    ``plans`` memoised ({(dtype1, dtype2, shape1, shape2): result shape}: one aclnnMatmul
    with ``cube_math_type`` of the operands as they are), a view operand's aclTensor from
    the descriptor cache of views (``_fastpath.MatmulFunction``)."""
    if _fastpath is None:
        return function
    return _fastpath.MatmulFunction(plans, _view_tensors, cube_math_type, function)


def _not_in_c(*args):
    return None


# Each returns None when its common case does not apply (the caller then takes its Python
# path); see their docstrings in _fastpath:
#   unary_result(op_name, x, dtype): op_name(x) into a new array of dtype (aclnnExp, ...);
#   read_to_host(x): x.to_host() of a small C-contiguous array;
#   _reduction_in_c(x, op_name, params, shape, dtype): reduction_result's common case;
#   empty_result(shape, dtype, device, stream): a new array from the pool's free list.
#   _fill_in_c(x, value): fill_'s common case (value: an aclScalar), True when done.
unary_result = _fastpath.unary_result if _fastpath is not None else _not_in_c
_fill_in_c = _fastpath.fill if _fastpath is not None else _not_in_c
read_to_host = _fastpath.read_to_host if _fastpath is not None else _not_in_c
_reduction_in_c = _fastpath.reduction_result if _fastpath is not None else _not_in_c
empty_result = _fastpath.empty_result if _fastpath is not None else _not_in_c


# aclnnInplaceCopy(selfRef, src) takes every dtype as it is (the plans of a copy between
# arrays of one dtype: no alpha, the result in selfRef's dtype).
COPY_PLANS = {(dtype, dtype): (None, dtype) for dtype in SUPPORTED_DTYPES}
# _copy_in_c(dst, src): copy_'s common case (one shape and dtype, no partial overlap, both
# last used on the current stream), dst when done, else None.
_copy_in_c = fast_binary_operator("aclnnInplaceCopy", COPY_PLANS, {}, _not_in_c,
                                  mode="in-place")


def _fast_entry_points(op_name):
    """The addresses (ints) of ``op_name``'s two phases for ``_fastpath``, or None
    when it must launch from Python."""
    entry_points = _entry_points.get(op_name) or _entry_points_of(op_name)
    if entry_points is _PYTHON_LAUNCH:
        return None
    return tuple(int(ffi.cast("uintptr_t", address)) for address in entry_points)


def _address_of(function):
    """The address (int) of a provider's C function, or None (a stub of a function the
    provider lacks)."""
    try:
        return int(ffi.cast("uintptr_t", ffi.cast("void *", function)))
    except TypeError:
        return None


def _fast_read_status(status, phase):
    """AclError for ``_fastpath.read_to_host``'s failed call: aclrtSynchronizeStream
    (``phase`` 1) or aclrtMemcpy (2)."""
    _acl.check(status, "aclrtSynchronizeStream" if phase == 1 else "aclrtMemcpy")


def _fast_launch_status(op_name, status, phase, workspace_size, executor, stream):
    """After ``_fastpath``'s launch of ``op_name`` on ``stream`` did not end in one
    go: AclError naming the ``phase`` (1 or 2) that returned ``status``, else the
    operator asked for a workspace of ``workspace_size`` bytes (``executor``: its
    address): the second phase runs here with one from the pool."""
    if status:
        _acl.check(status, op_name + "GetWorkspaceSize" if phase == 1 else op_name)
    workspace = allocate(workspace_size, stream.device, stream)
    ret = _phases[op_name][1](ffi.cast("void *", workspace.ptr), workspace_size,
                              ffi.cast("aclOpExecutor *", executor), stream.handle)
    if ret:
        _acl.check(ret, op_name)


def _second_phase(op_name, second, size_out, executor_out, stream):
    """``aclnn<Op>(workspace, size, executor, stream)`` after a successful first
    phase, with a workspace from the pool when the operator asks for one."""
    size = size_out[0]
    executor = executor_out[0]
    if size:
        workspace = allocate(size, stream.device, stream)
        ret = second(ffi.cast("void *", workspace.ptr), size, executor, stream.handle)
    else:
        ret = second(_NULL, 0, executor, stream.handle)
    if ret:
        _acl.check(ret, op_name)


def _stream_of_first_array(args, array_type):
    for arg in args:
        if isinstance(arg, array_type):
            return current_stream_of(arg._buffer.device)
    raise TypeError("launch() needs an NPUArray argument or an explicit stream")


# ---------------------------------------------------------------------------
# Views with negative strides (x[::-1]): CANN's aclTensor strides are
# non-negative, so such a view is the flip of a view that aclTensor can
# describe; inputs are materialised with one aclnnFlip over every reversed
# axis, destinations are written through the flipped view.

def _flip_view(x, axes):
    """The view of x's elements reversed along ``axes`` (no copy)."""
    strides = list(x._strides)
    offset = x._offset
    for axis in axes:
        offset += (x._shape[axis] - 1) * strides[axis]
        strides[axis] = -strides[axis]
    return type(x)._from_buffer(x._buffer, x._shape, tuple(strides), offset, x._dtype)


def _negative_axes(x):
    return tuple(i for i, s in enumerate(x._strides) if s < 0 and x._shape[i] > 1)


def _nonnegative_view(x):
    """``x`` with the negative strides of its length-0/1 axes (which never
    step) replaced by 0; ``x`` itself when it has none."""
    if not x._strides or min(x._strides) >= 0:
        return x
    strides = tuple(0 if s < 0 else s for s in x._strides)
    return type(x)._from_buffer(x._buffer, x._shape, strides, x._offset, x._dtype)


def _without_negative_strides(x, stream):
    """``x`` itself, written with non-negative strides when possible, else a
    contiguous copy made on the device."""
    axes = _negative_axes(x)
    if not axes:
        return _nonnegative_view(x)
    return _flip_into(x, axes, empty(x._shape, x._dtype, stream.device, stream), stream)


# aclnnFlip's self dtypes lack the unsigned integers wider than a byte; a flip
# moves bytes only, so those run as the signed type of the same width.
_FLIP_AS = {np.dtype(np.uint16): np.dtype(np.int16), np.dtype(np.uint32): np.dtype(np.int32),
            np.dtype(np.uint64): np.dtype(np.int64)}


def _flip_into(x, axes, out, stream):
    """``out`` (x's shape and dtype, non-negative strides) = the elements of
    ``x``, whose strides are negative along ``axes`` (and only there): one
    aclnnFlip of the view that reads them forwards (hicann/ops-nn
    index/reverse_v2/docs/aclnnFlip.md)."""
    forwards, target = _nonnegative_view(_flip_view(x, axes)), out
    dtype = _FLIP_AS.get(x._dtype)
    if dtype is not None:
        forwards, target = _reinterpreted(forwards, dtype), _reinterpreted(out, dtype)
    launch("aclnnFlip", forwards, dims_array(axes), target, stream=stream)
    return out


def _reinterpreted(x, dtype):
    """The view of x's elements as ``dtype``, of the same item size."""
    return type(x)._from_buffer(x._buffer, x._shape, x._strides, x._offset, dtype)


def broadcast_view(x, shape):
    """The view of ``x`` broadcast to ``shape`` (zero strides; no copy). The
    caller has checked that the shapes broadcast."""
    lead = len(shape) - len(x._shape)
    strides = (0,) * lead + tuple(
        0 if n == 1 and m != 1 else s
        for n, m, s in zip(x._shape, shape[lead:], x._strides))
    return type(x)._from_buffer(x._buffer, tuple(shape), strides, x._offset, x._dtype)


# ---------------------------------------------------------------------------
# Arrays made by operators

# aclTensors of whole C-contiguous arrays, memoised by (address, shape, dtype): such a
# descriptor depends on nothing else, so an operator result that gets a recycled pool block
# with the same shape and dtype (every iteration of a loop) reuses the aclTensor instead of
# paying aclCreateTensor + aclDestroyTensor (~3 us from Python). Handles are refcounted
# cdata: one evicted from the cache lives on while an array still uses it.
_whole_tensors = {}
_DESCRIPTOR_CACHE_SIZE = 4096  # entries of each descriptor cache (and of _layouts)
# Operators that rewrite the shape of output aclTensors when they run (a data-dependent
# length, read back with aclGetViewShape), with the positions of those outputs in the
# launch arguments: launch() gives them private aclTensors, so that a memoised one is never
# changed.
_SHAPE_WRITING_OPS = {"aclnnMaskedSelect": (-1,), "aclnnNonzero": (-1,), "aclnnUnique2": (-3, -1)}


def _whole_tensor(x):
    return _memoised_tensor(_whole_tensors, (x._buffer.ptr, x._shape, x._dtype), x)


def _memoised_tensor(cache, key, x):
    """``x``'s aclTensor from the descriptor ``cache`` under ``key``, made and filed
    there on a miss (a full cache is emptied first: entries still used by arrays live
    on in them)."""
    handle = cache.get(key)
    if handle is None:
        handle = _create_tensor(x)
        if len(cache) >= _DESCRIPTOR_CACHE_SIZE:
            cache.clear()
        cache[key] = handle
    return handle


_layouts = {}  # (shape, dtype) -> (bytes, C-order strides) of a non-empty result


def _layout(shape, dtype):
    """(bytes, strides) of a C-contiguous array of ``shape`` and ``dtype``,
    memoised; None when it is empty."""
    size = 1
    for n in shape:
        size *= n
    if not size:
        return None
    if len(_layouts) >= _DESCRIPTOR_CACHE_SIZE:
        _layouts.clear()
    layout = _layouts[(shape, dtype)] = (size * dtype.itemsize, c_strides(shape))
    return layout


def empty(shape, dtype, device, stream):
    """A new C-contiguous NPUArray of ``shape`` and NumPy ``dtype`` on ``device``,
    its memory taken from the pool for use on ``stream`` (uninitialised)."""
    out = empty_result(shape, dtype, device, stream)  # the common case, in C
    if out is not None:
        return out
    size = 1
    for n in shape:
        size *= n
    buffer = allocate(size * dtype.itemsize, device, stream)
    x = _array_type.NPUArray._from_buffer(
        buffer, shape, c_strides(shape), 0, dtype)
    if size:
        x._acl_tensor = _whole_tensors.get((buffer.ptr, shape, dtype)) or _whole_tensor(x)
    return x


# current_stream(device): this thread's stream of the innermost ``with stream:`` block
# of an npuarray.Device, else the device's default stream (the runtime's fast accessor).
current_stream = current_stream_of


def stream_of(x):
    """The current stream of ``x``'s device: where operations on ``x`` run."""
    return current_stream_of(x._buffer.device)


# ---------------------------------------------------------------------------
# Copies, fills, casts (used by the array layer and the operator modules)

def _check_same_device(name, a, b):
    if a._buffer.device != b._buffer.device:
        raise ValueError(f"{name}: arrays are on different devices: {a._buffer.device} "
                         f"and {b._buffer.device}; move one with to_device()")


def overlaps(a, b):
    """Whether two views may touch the same bytes (conservative: same buffer and
    intersecting element ranges)."""
    if a._buffer is not b._buffer:
        return False
    return _extent(a)[0] < _extent(b)[1] and _extent(b)[0] < _extent(a)[1]


def _extent(x):
    low = high = x._offset
    for n, s in zip(x._shape, x._strides):
        if n > 1:
            if s > 0:
                high += (n - 1) * s
            else:
                low += (n - 1) * s
    return low, high + 1


def copy_(dst, src, *, stream=None):
    """Copies ``src`` into the view ``dst`` in place with aclnnInplaceCopy: any
    strides on both sides, ``src`` broadcast to ``dst.shape``, dtype converted
    (NumPy ``copyto(dst, src, casting="unsafe")``). Overlapping views copy
    through a temporary. Runs on ``stream`` (default: the current stream).
    Raises ValueError when the shapes do not broadcast or the devices differ."""
    if stream is None and _copy_in_c(dst, src) is not None:  # the common case, in C
        return dst
    _check_same_device("copy", dst, src)
    if broadcast_shapes(dst._shape, src._shape) != dst._shape:
        raise ValueError(f"could not broadcast input array from shape {src._shape} "
                         f"into shape {dst._shape}")
    if 0 in dst._shape:
        return dst
    stream = stream or get_current_stream(dst._buffer.device)
    if overlaps(dst, src):
        src = copy(src, stream=stream)
    axes = _negative_axes(dst)
    target = dst
    if axes:  # write through the flipped view, reading src flipped alike
        src = _flip_view(broadcast_view(src, dst._shape), axes)
        target = _flip_view(dst, axes)
    target = _nonnegative_view(target)
    reversed_axes = _negative_axes(src)
    if reversed_axes and src._dtype == dst._dtype and src._shape == dst._shape:
        _flip_into(src, reversed_axes, target, stream)  # one launch, not a flip and a copy
    else:
        launch("aclnnInplaceCopy", target, src, stream=stream)
    return dst


def copy(x, *, stream=None):
    """A new C-contiguous copy of ``x`` (aclnnInplaceCopy; aclnnFlip for a view
    with negative strides)."""
    stream = stream or get_current_stream(x._buffer.device)
    out = empty(x._shape, x._dtype, x._buffer.device, stream)
    if 0 in x._shape:
        return out
    axes = _negative_axes(x)
    if axes:
        _flip_into(x, axes, out, stream)
    else:
        launch("aclnnInplaceCopy", out, x, stream=stream)
    return out


def fill_(dst, value, *, stream=None):
    """Sets every element of the view ``dst`` to the Python scalar ``value``
    converted to ``dst.dtype`` (aclnnInplaceFillScalar). OverflowError when an
    int does not fit an integer dtype."""
    if 0 in dst._shape:
        return dst
    axes = _negative_axes(dst)
    if stream is None and not axes:  # the common case, in C
        if dst._acl_tensor is None:  # (a view made by indexing: from the descriptor cache)
            acl_tensor(dst)
        if _fill_in_c(dst, acl_scalar(value, dst._dtype)):
            return dst
    target = _nonnegative_view(_flip_view(dst, axes) if axes else dst)  # same elements
    launch("aclnnInplaceFillScalar", target, acl_scalar(value, dst._dtype), stream=stream)
    return dst


def arange_(out, start, stop, step, *, stream=None):
    """Fills the 1-D array ``out`` with ``start, start + step, ...`` (stopping
    before ``stop``) with aclnnArange; ``out`` must have the length of that
    sequence. The scalars are float64 for floating ``out``, int64 otherwise."""
    if out._shape[0] == 0:
        return out
    kind = out._dtype.kind
    scalar_dtype = np.dtype(np.int64 if kind in "biu" else np.float64)
    launch("aclnnArange", acl_scalar(start, scalar_dtype), acl_scalar(stop, scalar_dtype),
           acl_scalar(step, scalar_dtype), out, stream=stream)
    return out


def cast(x, dtype, *, stream=None):
    """A new C-contiguous array with ``x``'s values converted to the NumPy
    ``dtype`` (aclnnCast; NumPy ``astype`` semantics: floats to integers
    truncate, out-of-range values wrap as the C conversion does)."""
    if stream is None:  # the common case, in C
        out = unary_result("aclnnCast", x, dtype, to_acl_dtype(dtype))
        if out is not None:
            return out
    stream = stream or get_current_stream(x._buffer.device)
    out = empty(x._shape, dtype, x._buffer.device, stream)
    if 0 not in x._shape:
        launch("aclnnCast", x, to_acl_dtype(dtype), out, stream=stream)
    return out


# ---------------------------------------------------------------------------
# Descriptors of views, and single-launch reductions and products

# aclTensors of views, memoised by everything the descriptor holds: the buffer's address
# and size (the storage), shape, strides, offset and dtype. ``c.T`` or ``x[:, 0]`` is a new
# view on every call, and aclCreateTensor + aclDestroyTensor from Python cost more than a
# small operator; equal keys describe equal tensors, so a view of a recycled block that
# happens to match an old one reuses its descriptor correctly. Handles are refcounted cdata,
# as in ``_whole_tensors``; launch() gives outputs of ``_SHAPE_WRITING_OPS`` private ones.
_view_tensors = {}


def _view_tensor(x):
    buffer = x._buffer
    key = (buffer.ptr, buffer.nbytes, x._shape, x._strides, x._offset, x._dtype)
    return _memoised_tensor(_view_tensors, key, x)


def _described(x):
    """``x``'s aclTensor (made now when needed), or None for a view with negative
    strides, which an aclTensor cannot describe (launch() copies those)."""
    handle = x._acl_tensor
    if handle is None and not (x._strides and min(x._strides) < 0):
        handle = acl_tensor(x)
    return handle


# aclIntArrays of reduction dims, memoised by their values (a tuple of ints): no operator
# changes an aclIntArray, and making one from Python costs about as much as a small launch.
_int_arrays = {}
_INT_ARRAY_CACHE_SIZE = 1024


def dims_array(values):
    """The shared ``aclIntArray*`` of the tuple of ints ``values`` (see acl_int_array)."""
    handle = _int_arrays.get(values)
    if handle is None:
        handle = acl_int_array(values)
        if len(_int_arrays) >= _INT_ARRAY_CACHE_SIZE:
            _int_arrays.clear()
        _int_arrays[values] = handle
    return handle


# The C helpers with the exact first-phase signature of each operator that takes other than
# object pointers (npuarray/_acl/_launch.h), by operator.
_EXACT_HELPERS = {} if _launch_helper is None else {
    "aclnnAmax": _helper_lib.npuarray_aclnn_launch_reduce,
    "aclnnAmin": _helper_lib.npuarray_aclnn_launch_reduce,
    "aclnnReduceSum": _helper_lib.npuarray_aclnn_launch_reduce_dtype,
    "aclnnMean": _helper_lib.npuarray_aclnn_launch_reduce_dtype,
    "aclnnArgMax": _helper_lib.npuarray_aclnn_launch_reduce_index,
    "aclnnArgMin": _helper_lib.npuarray_aclnn_launch_reduce_index,
    "aclnnStd": _helper_lib.npuarray_aclnn_launch_std,
    "aclnnVar": _helper_lib.npuarray_aclnn_launch_var,
    "aclnnMatmul": _helper_lib.npuarray_aclnn_launch_matmul,
}


_exact_launchers = {}  # op name -> its helper bound to its entry points, or _PYTHON_LAUNCH


def _exact_launcher(op_name):
    entry_points = _entry_points.get(op_name) or _entry_points_of(op_name)
    launcher = _PYTHON_LAUNCH if entry_points is _PYTHON_LAUNCH else \
        functools.partial(_EXACT_HELPERS[op_name], *entry_points)
    _exact_launchers[op_name] = launcher
    return launcher


def _launch_exact(op_name, args, stream):
    """``op_name``'s two phases on its first-phase ``args`` (handles and values,
    without the out-parameters) on ``stream``, whose buffers are prepared: one
    call of its exact-signature C helper, else the two calls from Python."""
    launcher = _exact_launchers.get(op_name) or _exact_launcher(op_name)
    activate(stream.device.id)  # CANN launches in the context of the stream's device
    if launcher is _PYTHON_LAUNCH:
        return _launch_in_python(op_name, args, stream)
    ret = launcher(*args, stream.handle)
    if ret:
        _nonzero_helper_result(op_name, ret, stream)


def reduction_result(x, op_name, params, shape, dtype):
    """``x`` reduced by ``op_name`` into a new C-contiguous array of the non-empty
    ``shape`` and ``dtype``, or None when this fast path does not apply (a graph
    capture, a view with negative strides): the caller then takes launch().

    ``params`` are the first-phase arguments between ``self`` and ``out``:
    (aclIntArray dim, keepDim) for aclnnAmax / aclnnAmin, (dim, keepDim,
    aclDataType) for aclnnReduceSum / aclnnMean, (int dim, keepdim) for
    aclnnArgMax / aclnnArgMin, (dim, int correction, keepdim) for aclnnStd,
    (dim, unbiased, keepdim) for aclnnVar. Runs on the current stream of ``x``'s device,
    the result's memory from the pool and its aclTensor from the descriptor cache.
    Its common case runs in C
    (``_fastpath.reduction_result``)."""
    out = _reduction_in_c(x, op_name, params, shape, dtype)
    if out is not None:
        return out
    handle = x._acl_tensor or _described(x)
    if handle is None or _capture_guard.active:
        return None
    buffer = x._buffer
    device = buffer.device
    stream = current_stream_of(device)
    out = _result(_layouts.get((shape, dtype)) or _layout(shape, dtype), shape, dtype, device,
                  stream)
    if buffer._stream is not stream:
        buffer.prepare(stream)
    span = _profiler.active and _recorder.begin(op_name, (x, out), stream)
    # _launch_exact() inline: this is the whole cost of a small reduction besides the result
    launcher = _exact_launchers.get(op_name) or _exact_launcher(op_name)
    activate(device.id)
    if launcher is _PYTHON_LAUNCH:
        _launch_in_python(op_name, (handle, *params, out._acl_tensor), stream)
    else:
        ret = launcher(handle, *params, out._acl_tensor, stream.handle)
        if ret:
            _nonzero_helper_result(op_name, ret, stream)
    if span:
        _recorder.end(span, stream, device.id)
    return out


def matmul_result(x1, x2, shape, cube_math_type):
    """``x1 @ x2`` (aclnnMatmul with ``cube_math_type``) as a new C-contiguous
    array of the non-empty ``shape`` and ``x1``'s dtype, for operands on one
    device of a dtype aclnnMatmul takes (the caller checked), or None when this
    fast path does not apply (a graph capture, a view with negative strides).
    Views such as ``c.T`` get their aclTensor from the descriptor cache."""
    t1 = x1._acl_tensor or _described(x1)
    t2 = x2._acl_tensor or _described(x2)
    if t1 is None or t2 is None or _capture_guard.active:
        return None
    buffer1, buffer2 = x1._buffer, x2._buffer
    device = buffer1.device
    stream = current_stream_of(device)
    dtype = x1._dtype
    out = _result(_layouts.get((shape, dtype)) or _layout(shape, dtype), shape, dtype, device,
                  stream)
    if buffer1._stream is not stream:
        buffer1.prepare(stream)
    if buffer2._stream is not stream:
        buffer2.prepare(stream)
    span = _profiler.active and _recorder.begin("aclnnMatmul", (x1, x2, out), stream)
    _launch_exact("aclnnMatmul", (t1, t2, out._acl_tensor, cube_math_type), stream)
    if span:
        _recorder.end(span, stream, device.id)
    return out
