"""Indexing routines (NumPy's chapter): ``take``, ``take_along_axis``
(aclnnIndexSelect / aclnnGather), ``put`` (aclnnIndexPutImpl), ``choose``,
``compress``, ``diagonal``, ``ravel_multi_index``, ``unravel_index``, composed on the
device, on the current stream of the operands' device. ``x[key]`` itself is
NPUArray's (``_core._indexing``).
"""
import builtins
import operator

import numpy as np

from ._core import _creation, _manipulation, _searching
from ._core import _elementwise as ew
from ._core._indexing import take, take_along_axis
from ._core._transfer import asarray
from ._operands import as_device, axis_tuple, into

__all__ = ["take", "take_along_axis", "put", "unravel_index", "ravel_multi_index", "choose",
           "compress", "diagonal"]


def _wrap_indices(indices, n, mode, name):
    """Integer device ``indices`` into an axis of length ``n`` for ``mode``
    "raise" (negative from the end; IndexError when any is out of range,
    checked with a one-byte read), "wrap" or "clip"."""
    if mode == "wrap":
        return ew.remainder(indices, n)
    if mode == "clip":
        return ew.clip(indices, 0, n - 1)
    if mode != "raise":
        raise ValueError(f"{name}: clipmode must be one of 'clip', 'raise', or 'wrap'")
    if indices.size:
        bad = ew.logical_or(ew.less(indices, -n), ew.greater_equal(indices, n))
        if _searching.count_nonzero(bad).item():
            raise IndexError(f"{name}: index out of bounds for axis 0 with size {n}")
    return ew.where(ew.less(indices, 0), ew.add(indices, n), indices)


def _int_indices(ind, name):
    if isinstance(ind, (int, np.integer)):
        ind = [int(ind)]
    if isinstance(ind, (list, tuple)):
        ind = asarray(np.asarray(ind, dtype=np.int64))
    ind = as_device(ind, name)
    if ind.dtype.kind not in "iu":
        raise TypeError(f"{name}: indices must be integers, got {ind.dtype}")
    return _manipulation.reshape(_manipulation.astype(ind, np.int64, copy=False), (-1,))


def put(a, ind, v, mode="raise"):
    """``a.flat[ind] = v`` in place, ``v`` repeated to the length of ``ind``
    (``numpy.put``; aclnnIndexPutImpl). ``a`` must be C-contiguous (ValueError
    otherwise); ``mode`` as in NumPy: IndexError for an index out of range with
    "raise"."""
    if not hasattr(a, "_buffer"):
        raise TypeError(f"put: a must be an NPUArray, got {type(a).__name__}")
    if not a.is_c_contiguous():
        raise ValueError("put: a must be C-contiguous to be written through its flat view")
    flat = _manipulation.reshape(a, (-1,))
    ind = _wrap_indices(_int_indices(ind, "put"), flat.shape[0], mode, "put")
    if not ind.size:
        return
    values = _manipulation.reshape(_manipulation.astype(as_device(v, "put"), a.dtype), (-1,))
    if values.shape[0] != ind.shape[0]:
        if not values.shape[0]:
            return
        values = take(values, ew.remainder(
            _creation.arange(ind.shape[0], dtype=np.int64, device=a.device), values.shape[0]))
    flat[ind] = values


def _dims(shape, name):
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    dims = tuple(operator.index(n) for n in dims)
    if any(n < 0 for n in dims):
        raise ValueError(f"{name}: dimensions must be non-negative")
    return dims


def _int64_coordinates(x, name):
    x = as_device(x, name)
    if x.dtype.kind not in "iu":
        raise TypeError(f"{name}: only int indices permitted, got {x.dtype}")
    return _manipulation.astype(x, np.int64, copy=False)


def _any_outside(x, low, high):
    """Whether any element of the int64 device array ``x`` lies outside [low, high)
    (a one-byte read)."""
    return bool(x.size) and bool(_searching.count_nonzero(ew.logical_or(
        ew.less(x, low), ew.greater_equal(x, high))).item())


def unravel_index(indices, shape, order="C"):
    """The coordinates in an array of ``shape`` of the flat ``indices`` (an integer
    NPUArray or scalar): a tuple of int64 arrays of ``indices``' shape, one per
    dimension (``numpy.unravel_index``; aclnnFloorDivide and aclnnRemainder on the
    current stream). ValueError for an index outside [0, prod(shape)) (checked
    with a one-byte read) or a bad ``order``; TypeError for non-integer indices."""
    if order not in ("C", "F"):
        raise ValueError("unravel_index: order must be 'C' or 'F'")
    dims = _dims(shape, "unravel_index")
    rest = _int64_coordinates(indices, "unravel_index")
    size = int(np.prod(dims, dtype=np.int64))
    if _any_outside(rest, 0, size):
        raise ValueError(f"unravel_index: index out of bounds for array with size {size}")
    if not rest.size:
        return tuple(_manipulation.astype(rest, np.int64, copy=True) for _ in dims)
    coordinates = []
    for n in (reversed(dims) if order == "C" else dims):   # the fastest-varying axis first
        coordinates.append(ew.remainder(rest, n))
        rest = ew.floor_divide(rest, n)
    return tuple(reversed(coordinates)) if order == "C" else tuple(coordinates)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat indices into an array of shape ``dims`` of the coordinates
    ``multi_index`` (a sequence of integer NPUArrays or scalars, one per dimension,
    broadcast together): int64 (``numpy.ravel_multi_index``; aclnnMuls and aclnnAdd
    on the current stream). ``mode`` ("raise", "wrap" or "clip", or one per
    dimension) as in NumPy: ValueError for a coordinate out of range with "raise"
    (a one-byte read per dimension)."""
    if order not in ("C", "F"):
        raise ValueError("ravel_multi_index: order must be 'C' or 'F'")
    dims = _dims(dims, "ravel_multi_index")
    coordinates = [_int64_coordinates(c, "ravel_multi_index") for c in multi_index]
    if len(coordinates) != len(dims):
        raise ValueError(f"ravel_multi_index: parameter multi_index must be a sequence of "
                         f"length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims):
        raise ValueError(f"ravel_multi_index: mode must have length {len(dims)}")
    coordinates = _manipulation.broadcast_arrays(*coordinates)
    flat, stride = None, 1
    axes = range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))
    for axis in axes:
        c = _fit_coordinate(coordinates[axis], dims[axis], modes[axis])
        term = c if stride == 1 else ew.multiply(c, stride)
        flat = term if flat is None else ew.add(flat, term)
        stride *= dims[axis]
    return flat


def _fit_coordinate(c, n, mode):
    if mode == "raise":
        if _any_outside(c, 0, n):
            raise ValueError("ravel_multi_index: invalid entry in coordinates array")
        return c
    if mode == "wrap":
        return ew.remainder(c, n) if n else c
    if mode == "clip":
        return ew.clip(c, 0, max(n - 1, 0))
    raise ValueError("ravel_multi_index: clipmode must be one of 'clip', 'raise', or 'wrap'")


def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for every position (``numpy.choose``): the choices
    stacked, then aclnnGather along the new axis; ``a`` and the choices
    broadcast together."""
    a = as_device(a, "choose")
    choices = [as_device(c, "choose") for c in choices]
    if a.dtype.kind not in "iu":
        raise TypeError(f"choose: a must hold integers, got {a.dtype}")
    arrays = _manipulation.broadcast_arrays(a, *choices)
    index = arrays[0]
    n = len(choices)
    if mode == "raise":
        if index.size and _searching.count_nonzero(ew.logical_or(
                ew.less(index, 0), ew.greater_equal(index, n))).item():
            raise ValueError("invalid entry in choice array")
    else:
        index = _wrap_indices(index, n, mode, "choose")
    stacked = _manipulation.stack(list(arrays[1:]), axis=0)
    index = _manipulation.expand_dims(_manipulation.astype(index, np.int64), axis=0)
    result = take_along_axis(stacked, index, axis=0)[0]
    return into(result, out)


def compress(condition, a, axis=None, out=None):
    """Slices of ``a`` along ``axis`` (None: the flattened array) where the 1-D
    ``condition`` is true; a shorter condition covers the first slices
    (``numpy.compress``; aclnnNonzero, aclnnIndexSelect)."""
    a = as_device(a, "compress")
    condition = _manipulation.reshape(as_device(condition, "compress"), (-1,))
    if axis is None:
        a, axis = _manipulation.reshape(a, (-1,)), 0
    axis = axis_tuple(axis, a.ndim)[0]
    if condition.shape[0] > a.shape[axis]:
        raise IndexError(f"compress: condition of length {condition.shape[0]} is longer "
                         f"than axis {axis} of length {a.shape[axis]}")
    selected = _searching.nonzero(condition)[0]
    return into(take(a, selected, axis=axis), out)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """View of the diagonal ``offset`` of the planes ``axis1`` x ``axis2``, as a
    last axis (``numpy.diagonal``; no copy, strides). ValueError for fewer
    than 2 dimensions or equal axes."""
    a = as_device(a, "diagonal")
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1, axis2 = axis_tuple(axis1, a.ndim)[0], axis_tuple(axis2, a.ndim)[0]
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    rows, cols = a.shape[axis1], a.shape[axis2]
    start = a._offset
    if offset >= 0:
        length = builtins.max(0, builtins.min(rows, cols - offset))
        start += offset * a._strides[axis2] if length else 0
    else:
        length = builtins.max(0, builtins.min(rows + offset, cols))
        start += -offset * a._strides[axis1] if length else 0
    keep = [i for i in range(a.ndim) if i not in (axis1, axis2)]
    shape = [a.shape[i] for i in keep] + [length]
    strides = [a._strides[i] for i in keep] + [a._strides[axis1] + a._strides[axis2]]
    return a._view(shape, strides, start)
