"""NumPy's searching, selection and set names (``numpy.argwhere``,
``numpy.put``, ``numpy.choose``, ``numpy.compress``, ``numpy.extract``,
``numpy.partition``, ``numpy.unique`` with ``return_*``, ``numpy.interp``)
composed on the device from aclnnNonzero, aclnnIndexSelect / aclnnGather,
aclnnIndexPutImpl, aclnnSort, aclnnUnique2 and aclnnSearchSorted, on the
current stream of the operands' device.
"""
import operator

import numpy as np

from .._core import _creation, _elementwise as ew, _manipulation, _searching, _set, _sorting
from .._core import _statistical as st
from .._core._indexing import take, take_along_axis
from ._common import as_device, axis_tuple, check_no_unsupported, into

__all__ = ["argwhere", "flatnonzero", "put", "choose", "compress", "extract", "partition",
           "argpartition", "unique", "interp", "unravel_index", "ravel_multi_index"]


def argwhere(a):
    """Indices of the non-zero elements, one row per element: (N, a.ndim) int64
    (``numpy.argwhere``; aclnnNonzero). A 0-d input counts as 1-D."""
    a = as_device(a, "argwhere")
    if a.ndim == 0:
        return argwhere(_manipulation.reshape(a, (1,)))[:, :0]
    return _manipulation.stack(list(_searching.nonzero(a)), axis=1)


def flatnonzero(a):
    """Indices of the non-zero elements of the flattened ``a`` (``numpy.flatnonzero``)."""
    return _searching.nonzero(_manipulation.reshape(as_device(a, "flatnonzero"), (-1,)))[0]


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
        from .._core._transfer import asarray
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
    from .._core._ops import is_c_contiguous
    if not is_c_contiguous(a):
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


def extract(condition, arr):
    """The elements of the flattened ``arr`` where the flattened ``condition`` is
    non-zero (``numpy.extract``)."""
    arr = _manipulation.reshape(as_device(arr, "extract"), (-1,))
    condition = _manipulation.reshape(as_device(condition, "extract"), (-1,))
    return take(arr, _searching.nonzero(condition[:arr.shape[0]])[0])


def _check_kth(a, kth, axis):
    n = a.shape[axis] if a.ndim else 1
    for k in np.atleast_1d(np.asarray(kth)).tolist():
        if not isinstance(k, int):
            raise TypeError("Partition index must be integer")
        if not -n <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")


def _partition_operand(name, a, kth, axis, order):
    """(``a`` on the device, flattened when ``axis`` is None; the axis), after
    checking ``order`` and ``kth`` as NumPy does."""
    check_no_unsupported(name, order=order)
    a = as_device(a, name)
    if axis is None:
        a, axis = _manipulation.reshape(a, (-1,)), -1
    axis = axis_tuple(axis, a.ndim)[0]
    _check_kth(a, kth, axis)
    return a, axis


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A copy of ``a`` with the element at each ``kth`` position where sorting
    would put it, smaller ones before and larger after (``numpy.partition``):
    the fully sorted array (aclnnSort), which is such a partition. ValueError
    for kth out of range."""
    a, axis = _partition_operand("partition", a, kth, axis, order)
    return _sorting.sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition ``a`` (``numpy.argpartition``): the stable sorting
    permutation (aclnnArgsort), which partitions at every kth."""
    a, axis = _partition_operand("argpartition", a, kth, axis, order)
    return _sorting.argsort(a, axis=axis)


def _merge_nans(values, index, inverse, counts):
    """The unique results with the trailing NaNs (sorted last, one entry each
    in aclnnUnique2) merged into one entry, as NumPy's ``equal_nan=True``."""
    nans = _searching.count_nonzero(ew.isnan(values)).item()
    if nans < 2:
        return values, index, inverse, counts
    first = values.shape[0] - nans
    values = values[:first + 1]
    index = _manipulation.concat([index[:first], _manipulation.reshape(
        st.min(index[first:]), (1,))])
    counts = _manipulation.concat([counts[:first], _manipulation.reshape(
        st.sum(counts[first:]), (1,))])
    return values, index, ew.minimum(inverse, first), counts


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):  # noqa: A002  NumPy's name
    """Sorted unique elements of the flattened ``ar`` (``numpy.unique``;
    aclnnUnique2), with the index of each value's first occurrence
    (``return_index``), the index into the uniques of every element, in
    ``ar``'s shape (``return_inverse``) and the counts (``return_counts``).
    NaNs count as one value unless ``equal_nan=False`` (merging them reads
    their number from the device). ValueError for ``axis`` other than None."""
    if axis is not None:
        raise ValueError("unique: only axis=None is supported by npuarray")
    ar = as_device(ar, "unique")
    flat = _manipulation.reshape(ar, (-1,))
    floating = ar.dtype.kind in "fc"
    if not (return_index or return_inverse or return_counts):
        values = _set.unique_values(flat)
        if equal_nan and floating and values.size:
            nans = _searching.count_nonzero(ew.isnan(values)).item()
            values = values[:values.shape[0] - nans + 1] if nans > 1 else values
        return values
    values, index, inverse, counts = _set.unique_all(flat)
    if equal_nan and floating and values.size:
        values, index, inverse, counts = _merge_nans(values, index, inverse, counts)
    result = [values]
    if return_index:
        result.append(index)
    if return_inverse:
        result.append(_manipulation.reshape(inverse, ar.shape))
    if return_counts:
        result.append(counts)
    return tuple(result)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points (``xp``, ``fp``) at ``x``
    (``numpy.interp``): aclnnSearchSorted for the interval, aclnnGather of its
    ends, NumPy's slope formula; ``left`` / ``right`` (default fp[0] / fp[-1])
    outside [xp[0], xp[-1]]. float64 result (complex128 for complex ``fp``).
    ValueError for empty or mismatched ``xp`` / ``fp``; ``period`` is not
    supported (TypeError)."""
    check_no_unsupported("interp", period=period)
    x, xp, fp = (as_device(v, "interp") for v in (x, xp, fp))
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("object too deep for desired array")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if not xp.shape[0]:
        raise ValueError("array of sample points is empty")
    out_dtype = np.dtype(np.complex128 if fp.dtype.kind == "c" else np.float64)
    x = _manipulation.astype(x, np.float64, copy=False)
    xp = _manipulation.astype(xp, np.float64, copy=False)
    fp = _manipulation.astype(fp, out_dtype, copy=False)
    n = xp.shape[0]
    left = fp[0] if left is None else left
    right = fp[-1] if right is None else right
    if n == 1:
        inside = _manipulation.broadcast_to(fp[0], x.shape)
    else:
        low = ew.clip(ew.subtract(_searching.searchsorted(xp, x, side="right"), 1), 0, n - 2)
        x0, x1 = take(xp, low), take(xp, ew.add(low, 1))
        y0, y1 = take(fp, low), take(fp, ew.add(low, 1))
        slope = ew.divide(ew.subtract(y1, y0), ew.subtract(x1, x0))
        inside = ew.add(ew.multiply(slope, ew.subtract(x, x0)), y0)
        inside = ew.where(ew.equal(x, xp[-1]), fp[-1], inside)
    result = ew.where(ew.less(x, xp[0]), left, ew.where(ew.greater(x, xp[-1]), right, inside))
    return _manipulation.astype(result, out_dtype, copy=False)

