"""Dask's array dispatches for NPUArray chunks, as Dask registers CuPy's.

Dask joins, contracts and counts chunks through ``dask.array.dispatch``
lookups keyed by the chunk type; without these registrations it falls back to
NumPy's functions, which download every chunk through ``__array__`` (and raise
under ``transfer_guard("disallow")``). Each registration below calls
npuarray's own array API function, so the work stays on the chunk's device, on
the current stream of that device.

:func:`register` is installed with ``register_lazy("npuarray", ...)`` (by
``import npuarray`` as soon as ``dask.array`` is loaded, see
``npuarray._dask_hook``): Dask runs it the first time one of its lookups
meets an NPUArray, as it does for CuPy.
"""
import math

import numpy as np

from ._core._array import NPUArray
from ._core._data_type import float64, isdtype
from ._creation import asarray, empty, full
from ._indexing import take
from ._linear_algebra import einsum, tensordot
from ._logic import isnan, logical_not
from ._manipulation import astype, concat
from ._math import divide, sum as sum_
from ._sorting import sort

__all__ = ["register"]


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
