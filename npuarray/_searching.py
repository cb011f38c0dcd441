"""Searching functions of the array API on the device: argmax, argmin.

aclnnArgMax / aclnnArgMin reduce one dimension and return int64 indices; with
``axis=None`` the array is searched flattened (C order), as NumPy does.
"""
import numpy as np

from . import _ops
from ._data_type import BOOL
from ._elementwise import _kind, _supported, _dtypes_of
from ._statistical import normalize_axes, uint64_order_keys

__all__ = ["argmax", "argmin"]

_INDEX = np.dtype(np.int64)
# Dtypes CANN documents for aclnnArgMax / aclnnArgMin: hicann/ops-math
# math/arg_max_v2/docs/aclnnArgMax.md, math/arg_min/docs/aclnnArgMin.md.
_ARG = _dtypes_of("float32", "float16", "bfloat16", "float64", "int8", "int16", "int32",
                  "int64", "uint8")


def _flat(x, stream):
    """``x`` as a 1-D C-order view (a contiguous copy first when needed)."""
    if not _ops.is_c_contiguous(x):
        x = _ops.copy(x, stream=stream)
    size = 1
    for n in x._shape:
        size *= n
    return type(x)._from_buffer(x._buffer, (size,), (1,), x._offset, x._dtype)


def _arg_extremum(name, op, x, axis, keepdims):
    if not isinstance(x, _ops._array_type or _ops._npuarray_type()):
        raise TypeError(f"{name}() needs an NPUArray, got {type(x).__name__}")
    if _kind(x._dtype) == "c":
        raise TypeError(f"{name}() does not support complex dtype {x._dtype}")
    if x._dtype == np.uint64:  # no uint64 kernel: int64 keys in the same order
        x = uint64_order_keys(x)
    ndim = len(x._shape)
    if axis is not None and not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{name}(): axis must be an int or None, got {axis!r}")
    device = x._buffer.device
    stream = _ops.get_current_stream(device)
    compute = np.dtype(np.uint8) if x._dtype == BOOL else _supported(x._dtype, _ARG, name)
    if axis is None:
        if 0 in x._shape:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        source, dim = _flat(x, stream), 0
        shape = (1,) * ndim if keepdims else ()
    else:
        (dim,) = normalize_axes(int(axis), ndim, name)
        if x._shape[dim] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        source = x
        shape = tuple(1 if i == dim else n for i, n in enumerate(x._shape)) if keepdims \
            else tuple(n for i, n in enumerate(x._shape) if i != dim)
    out = _ops.empty(shape, _INDEX, device, stream)
    if 0 in shape:
        return out
    if source._dtype != compute:
        source = _ops.cast(source, compute, stream=stream)
    # The kernel's out has the shape of its own reduction; keepdims for a
    # flattened search is a reshape of the 0-d result.
    target = out if axis is not None else \
        type(out)._from_buffer(out._buffer, (), (), 0, _INDEX)
    _ops.launch(op, source, dim, axis is not None and keepdims, target, stream=stream)
    return out


def argmax(x, /, *, axis=None, keepdims=False):
    """Indices (int64) of the maxima of ``x`` along ``axis`` (array API ``argmax``,
    ``numpy.argmax``): aclnnArgMax. ``axis=None`` searches the flattened array;
    the first occurrence wins; uint64 is searched through order-preserving int64
    keys (aclnnAdds). Empty input raises ValueError, complex TypeError."""
    return _arg_extremum("argmax", "aclnnArgMax", x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    """Indices (int64) of the minima of ``x`` along ``axis`` (array API ``argmin``,
    ``numpy.argmin``): aclnnArgMin. Same rules as ``argmax``."""
    return _arg_extremum("argmin", "aclnnArgMin", x, axis, keepdims)
