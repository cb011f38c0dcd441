"""npuarray's registrations with Dask (array dispatches, chunk serialisers), made without
``import npuarray.dask``.

**Dispatches.** Dask joins, contracts and counts chunks through ``dask.array.dispatch``
lookups keyed by the chunk type; without these registrations it falls back to NumPy's
functions, which download every chunk through ``__array__`` (and raise under
``transfer_guard("disallow")``). Each registration below calls npuarray's own array API
function, so the work stays on the chunk's device, on the current stream of that device.

Dask registers CuPy's dispatches lazily: ``Dispatch.register_lazy("cupy", ...)`` in
``dask.array.backends`` runs the registration the first time a lookup meets a
``cupy.ndarray``. Dask cannot name npuarray there, so npuarray asks for the same
treatment itself (:func:`register_lazily`: Dask then runs :func:`register` the first
time one of its lookups meets an NPUArray), at the first moment both are loaded:

- ``dask.array`` already imported when npuarray is: right away;
- otherwise: a ``sys.meta_path`` finder watches for ``dask.array`` and asks as
  soon as that package has finished executing, then removes itself.

**Chunk serialisers.** ``dask.distributed`` sends a chunk to another worker (or to the
client) by serialising it. The ``dask`` serialisation family below does that explicitly:
the sender downloads the chunk into a pinned host buffer with an asynchronous D2H copy on
a per-device transfer stream (aclrtMemcpyAsync) and ships that buffer as the frame; the
receiver stages the frame into a pinned buffer and uploads it with an asynchronous H2D
copy on its own transfer stream. Each side waits for its copy on that stream only, before
the pinned buffer is handed to the network layer or released. :func:`transfer_stats`
counts the bytes moved. They are registered the way ``distributed`` registers CuPy's:
``dask_serialize.register_lazy("npuarray")`` as soon as ``distributed.protocol`` has
loaded (a second finder), so a client that never imports ``npuarray.dask`` still
receives NPUArray results.

Users who never import Dask pay two finders that compare module names; Dask is never
imported from here (the registrations import it inside their functions, once it is
loaded).
"""
import importlib.util
import math
import sys
import threading
import warnings

import numpy as np

from ._core import _transfer
from ._core._array import NPUArray
from ._core._data_type import float64, isdtype
from ._creation import asarray, empty, full
from ._indexing import take
from ._linear_algebra import einsum, tensordot
from ._manipulation import astype, concat
from ._math import sum as sum_
from ._sorting import sort
from ._ufunc import divide, isnan, logical_not
from .runtime._device import get_device
from .runtime._pinned import empty_pinned
from .runtime._stream import Stream

__all__ = ["install", "register", "register_lazily", "register_serializers", "transfer_stats"]


# -- Dask's array dispatches ------------------------------------------------------------------

def _concatenate(arrays, axis=0):
    """``dask.array.dispatch.concatenate_lookup``: aclnnCat (``npuarray.concat``)."""
    return concat(list(arrays), axis=axis)


def _tensordot(a, b, axes=2):
    """``tensordot_lookup``: ``npuarray.tensordot`` (aclnnMatmul on permuted views)."""
    return tensordot(a, b, axes=axes)


def _take(a, indices, axis=None):
    """``take_lookup``: ``npuarray.take`` (aclnnIndexSelect); host indices are uploaded."""
    if not isinstance(indices, NPUArray):
        indices = asarray(np.asarray(indices, dtype=np.int64), device=a.device)
    return take(a, indices, axis=axis)


def _einsum(subscripts, *operands, **kwargs):
    """``einsum_lookup``: ``npuarray.einsum`` (contractions as aclnnMatmul /
    aclnnReduceSum on permuted views). Dask passes NumPy's ``casting`` and
    ``order``; npuarray's einsum takes them with NumPy's meaning."""
    return einsum(subscripts, *operands, **kwargs)


def _divide(x1, x2, out=None, dtype=None):
    """``divide_lookup`` (Dask's ``numpy_compat.divide``): aclnnDiv
    (``npuarray.divide``), then aclnnCast to ``dtype`` when given."""
    if out is not None:
        raise TypeError("npuarray's divide dispatch takes no out= (Dask never passes one)")
    quotient = divide(x1, x2)
    return quotient if dtype is None else astype(quotient, np.dtype(dtype))


def _sizeof(x):
    """``dask.sizeof.sizeof``: the bytes the chunk's elements take on its device
    (Dask's default, ``sys.getsizeof``, counts only the Python object)."""
    return int(x.nbytes)


def _empty(shape, dtype=None, **kwargs):
    """``empty_lookup`` (Dask's meta arrays): ``npuarray.empty``; NumPy's
    ``order=`` is accepted for C order only, as npuarray arrays are C-contiguous."""
    order = kwargs.pop("order", "C")
    if order != "C":
        raise ValueError(f"npuarray creates C-ordered arrays only, got order={order!r}")
    return empty(shape, dtype=dtype, **kwargs)


def _counted_shape(shape, axis, keepdims):
    if axis is None:
        axis = tuple(range(len(shape)))
    elif not isinstance(axis, (tuple, list)):
        axis = (axis,)
    axis = {a % len(shape) for a in axis} if shape else set()
    count = math.prod(shape[a] for a in axis)
    kept = tuple(1 if a in axis else n for a, n in enumerate(shape) if keepdims or a not in axis)
    return count, kept


def _numel(x, **kwargs):
    """``numel_lookup``: the element count along ``axis`` as a device array of
    the reduced shape (``npuarray.full``), as Dask's ``_numel_arraylike``."""
    count, shape = _counted_shape(x.shape, kwargs.get("axis"), kwargs.get("keepdims", False))
    return full(shape, count, dtype=kwargs.get("dtype", np.float64), device=x.device)


def _nannumel(x, **kwargs):
    """``nannumel_lookup``: the count of non-NaN elements along ``axis``
    (aclnnIsNan, aclnnLogicalNot, aclnnReduceSum on the device)."""
    dtype = kwargs.get("dtype", np.float64)
    valid = logical_not(isnan(x))
    return sum_(astype(valid, dtype), axis=kwargs.get("axis"),
                   keepdims=kwargs.get("keepdims", False))


def _percentile(a, q, method="linear"):
    """``percentile_lookup`` for a 1-D chunk: ``(percentiles, len(a))`` as
    NumPy's linear ``percentile``: aclnnSort then two aclnnIndexSelect and a
    linear interpolation on the device; only the positions (from ``q`` and the
    chunk length) are computed on the host. The ``len(q)`` percentiles are then
    downloaded explicitly (``to_host``): Dask merges the chunks' percentiles
    with NumPy on the host (``dask.array.percentile.merge_percentiles``), and
    ``da.percentile`` returns a NumPy-backed array. Other methods raise ValueError."""
    n = a.shape[0]
    if n == 0:
        return None, n
    if method != "linear":
        raise ValueError(f"npuarray chunks support percentile method 'linear' only, got {method!r}")
    if isinstance(q, NPUArray):  # Dask makes q like the chunk; the positions need it here
        q = q.to_host()
    position = np.asarray(list(q), dtype=np.float64) / 100.0 * (n - 1)
    low = np.floor(position).astype(np.int64)
    high = np.minimum(low + 1, n - 1)
    float_dtype = a.dtype if isdtype(a.dtype, "real floating") else float64
    ordered = sort(astype(a, float_dtype))
    device = a.device
    below = take(ordered, asarray(low, device=device))
    above = take(ordered, asarray(high, device=device))
    weight = asarray((position - low).astype(float_dtype), device=device)
    return (below + weight * (above - below)).to_host(), n


def _to_numpy(data, **kwargs):
    """``to_numpy_dispatch`` (``Array.to_backend("numpy")``): an explicit download,
    ``NPUArray.to_host`` (aclrtMemcpy D2H)."""
    return data.to_host(**kwargs)


# Dask's lookup (in dask.array.dispatch) -> npuarray's implementation.
_IMPLEMENTATIONS = {
    "concatenate_lookup": _concatenate, "tensordot_lookup": _tensordot,
    "einsum_lookup": _einsum, "take_lookup": _take, "empty_lookup": _empty,
    "divide_lookup": _divide, "numel_lookup": _numel, "nannumel_lookup": _nannumel,
    "percentile_lookup": _percentile, "to_numpy_dispatch": _to_numpy,
}


def _lookups():
    """(Dask dispatch, npuarray implementation) pairs, ``dask.sizeof`` included."""
    # Dask is optional and heavy: imported here, once the caller has loaded it.
    from dask.array import dispatch
    from dask.sizeof import sizeof
    return [(getattr(dispatch, name), function) for name, function in _IMPLEMENTATIONS.items()] \
        + [(sizeof, _sizeof)]


def register():
    """Register every dispatch above for NPUArray (Dask calls this lazily)."""
    for lookup, implementation in _lookups():
        lookup.register(NPUArray, implementation)


def register_lazily():
    """Ask Dask to call :func:`register` when one of its lookups meets an NPUArray,
    and make NPUArray a chunk type Dask handles in arithmetic and NumPy calls
    mixing Dask arrays and NPUArrays (``dask.array.register_chunk_type``, as
    Dask does for CuPy) instead of deferring to it."""
    # Dask is optional and heavy: imported here, once the caller has loaded it.
    from dask.array.chunk_types import is_valid_chunk_type, register_chunk_type
    for lookup, _ in _lookups():
        lookup.register_lazy("npuarray", register)
    if not is_valid_chunk_type(NPUArray):
        register_chunk_type(NPUArray)


# -- chunk serialisers ------------------------------------------------------------------------

_lock = threading.Lock()
_moved = {"device_to_host": 0, "host_to_device": 0}
_streams = {}  # device id -> the stream chunk transfers use on that device


def transfer_stats():
    """Bytes this process moved device->host and host->device for chunk transfers."""
    with _lock:
        return dict(_moved)


def _count(direction, nbytes):
    with _lock:
        _moved[direction] += nbytes


def _transfer_stream(device):
    with _lock:
        stream = _streams.get(device.id)
        if stream is None:
            stream = _streams[device.id] = Stream(device)
        return stream


def serialize_npuarray(x):
    """A header (shape, dtype name) and one frame: the chunk in pinned host memory."""
    stream = _transfer_stream(x.device)
    host = empty_pinned(x.shape, x.dtype)
    x.to_host(stream=stream, out=host, blocking=False)
    stream.synchronize()
    _count("device_to_host", host.nbytes)
    header = {"shape": list(x.shape), "dtype": x.dtype.name}
    return header, [memoryview(host.reshape(-1).view(np.uint8))]


def deserialize_npuarray(header, frames):
    """The chunk on this process's current device, uploaded from a pinned buffer."""
    dtype = np.dtype(header["dtype"])
    shape = tuple(header["shape"])
    host = empty_pinned(shape, dtype)
    if host.nbytes:
        host.reshape(-1).view(np.uint8)[...] = np.frombuffer(frames[0], np.uint8)
    device = get_device()
    stream = _transfer_stream(device)
    x = _transfer.upload(host, device, stream)
    stream.synchronize()  # the pinned staging buffer is released on return
    _count("host_to_device", host.nbytes)
    return x


def register_serializers():
    """Registers the two functions above as ``distributed``'s ``dask`` serialisers of
    NPUArray (``import npuarray`` asks for this as soon as ``distributed.protocol`` is
    loaded; the worker and cluster modules of ``npuarray.dask`` at import)."""
    # distributed is optional and heavy: imported here, once the caller has loaded it.
    from distributed.protocol import dask_deserialize, dask_serialize
    dask_serialize.register(NPUArray)(serialize_npuarray)
    dask_deserialize.register(NPUArray)(deserialize_npuarray)


# -- registering as soon as Dask is loaded ----------------------------------------------------

_WATCHED = "dask.array"


def _register_lazily():
    # Only called once dask.array is complete.
    try:
        register_lazily()
    except Exception as error:  # never break the user's `import dask.array`
        warnings.warn(f"npuarray could not register its Dask dispatches: {error!r}; "
                      "`import npuarray.dask` registers them explicitly", RuntimeWarning,
                      stacklevel=2)


def _register_serializers_lazily():
    try:
        # distributed is optional: imported here, once it has loaded.
        from distributed.protocol import dask_deserialize, dask_serialize
        dask_serialize.register_lazy("npuarray")(register_serializers)
        dask_deserialize.register_lazy("npuarray")(register_serializers)
    except Exception as error:  # never break the user's `import distributed`
        warnings.warn(f"npuarray could not register its chunk serialisers: {error!r}; "
                      "`import npuarray.dask` registers them explicitly", RuntimeWarning,
                      stacklevel=2)


class _ImportWatcher:
    """A ``sys.meta_path`` finder (only ``find_spec`` is needed) that finds nothing
    itself: when the ``watched`` module is imported, it wraps the real loader so
    that ``register`` follows the module's code."""
    watched = None
    register = None

    def find_spec(self, fullname, path, target=None):
        if fullname != self.watched:
            return None
        sys.meta_path.remove(self)  # once; importlib.util.find_spec below must not see it
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        execute = spec.loader.exec_module
        register = type(self).register

        def exec_module(module):
            execute(module)
            register()
        spec.loader.exec_module = exec_module
        return spec


class _DaskArrayFinder(_ImportWatcher):
    watched = _WATCHED
    register = staticmethod(_register_lazily)


class _DistributedProtocolFinder(_ImportWatcher):
    watched = "distributed.protocol"
    register = staticmethod(_register_serializers_lazily)


def install():
    """Registers now what is loaded (``dask.array``, ``distributed.protocol``),
    the rest when it will be."""
    for finder in (_DaskArrayFinder, _DistributedProtocolFinder):
        if finder.watched in sys.modules:
            finder.register()
        elif not any(isinstance(f, finder) for f in sys.meta_path):
            sys.meta_path.insert(0, finder())
