"""NumPy's array-manipulation names (``numpy.concatenate``, ``numpy.hstack``,
``numpy.split``, ``numpy.pad`` ...) composed on the device from the array API
functions (views where NumPy returns views; copies with aclnnInplaceCopy,
gathers with aclnnIndexSelect). Work runs on the current stream of the
operands' device.
"""
import math
import operator
import warnings

import numpy as np

from ._core import (_creation, _elementwise, _indexing, _manipulation, _searching,
                    _statistical, _transfer)
from ._core._manipulation import (astype, broadcast_arrays, broadcast_shapes, broadcast_to, concat,
                                  expand_dims, flip, moveaxis, permute_dims, repeat, roll, squeeze,
                                  stack, swapaxes, unstack)
from ._core._array import NPUArray
from ._operands import as_device, axis_tuple, into, is_c_ordered, is_fortran

__all__ = ["astype", "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat",
           "expand_dims", "flip", "moveaxis", "permute_dims", "repeat", "reshape", "roll",
           "squeeze", "stack", "swapaxes", "tile", "unstack", "concatenate", "transpose",
           "ravel", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack",
           "column_stack", "array_split", "split", "hsplit", "vsplit", "dsplit", "fliplr",
           "flipud", "rot90", "pad", "append", "delete", "insert", "resize", "rollaxis",
           "copyto", "block", "trim_zeros", "require", "shape", "ndim", "size", "row_stack",
           "broadcast"]


def _check_casting(name, arrays, dtype, casting):
    for a in arrays:
        if not np.can_cast(a.dtype, dtype, casting=casting):
            raise TypeError(f"{name}: cannot cast array data from {a.dtype} to {dtype} "
                            f"according to the rule {casting!r}")


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join a sequence of arrays along ``axis`` (None: flattened first) into a
    new array (``numpy.concatenate``; array API ``concat`` with aclnnInplaceCopy
    into each slice). ``dtype``: cast the inputs first, checked by ``casting``
    (TypeError). ValueError for mismatched shapes, AxisError for a bad axis."""
    arrays = [as_device(a, "concatenate") for a in arrays]
    if dtype is not None:
        dtype = np.dtype(dtype)
        _check_casting("concatenate", arrays, dtype, casting)
        arrays = [_manipulation.astype(a, dtype, copy=False) for a in arrays]
    return into(_manipulation.concat(arrays, axis=axis), out)


def transpose(a, axes=None):
    """View of ``a`` with its axes permuted (reversed when ``axes`` is None;
    ``numpy.transpose``, array API ``permute_dims``). No copy."""
    a = as_device(a, "transpose")
    if axes is None:
        axes = tuple(range(a.ndim))[::-1]
    return _manipulation.permute_dims(a, tuple(axes))


def ravel(a, order="C"):
    """The elements of ``a`` as a 1-D array, a view when possible
    (``numpy.ravel``). ``order``: "C" (rows) or "F" (columns); "A" and "K"
    read in C order, as NumPy does for C-contiguous arrays. ValueError else."""
    a = as_device(a, "ravel")
    if order == "F":
        a = _manipulation.permute_dims(a, tuple(range(a.ndim))[::-1])
    elif order not in ("C", "A", "K"):
        raise ValueError(f"ravel: order must be one of 'C', 'F', 'A', 'K', got {order!r}")
    return _manipulation.reshape(a, (-1,))


# The shape each atleast_Nd gives an array of fewer dimensions (NumPy's rules).
_AT_LEAST_SHAPES = {
    1: lambda a: (1,),
    2: lambda a: (1,) * (2 - a.ndim) + a.shape,
    3: lambda a: {0: (1, 1, 1), 1: (1, a.size, 1), 2: a.shape + (1,)}[a.ndim],
}


def _at_least(arrays, ndim):
    result = []
    for a in arrays:
        a = as_device(a, f"atleast_{ndim}d")
        result.append(a if a.ndim >= ndim else
                      _manipulation.reshape(a, _AT_LEAST_SHAPES[ndim](a)))
    return result


def _one_or_tuple(arrays):
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


def atleast_1d(*arys):
    """Views of the inputs with at least one dimension (``numpy.atleast_1d``):
    one array for one input, else a tuple."""
    return _one_or_tuple(_at_least(arys, 1))


def atleast_2d(*arys):
    """Views with at least two dimensions: 0-d -> (1, 1), (N,) -> (1, N)."""
    return _one_or_tuple(_at_least(arys, 2))


def atleast_3d(*arys):
    """Views with at least three dimensions: 0-d -> (1, 1, 1), (N,) -> (1, N, 1),
    (M, N) -> (M, N, 1) (``numpy.atleast_3d``)."""
    return _one_or_tuple(_at_least(arys, 3))


def _sequence(tup, name):
    if not isinstance(tup, (list, tuple)):
        raise TypeError(f"{name}: arrays to stack must be passed as a sequence")
    if not tup:
        raise ValueError("need at least one array to concatenate")
    return tup


def hstack(tup, *, dtype=None, casting="same_kind"):
    """Join along the second axis (the first for 1-D inputs) (``numpy.hstack``)."""
    arrays = _at_least(_sequence(tup, "hstack"), 1)
    return concatenate(arrays, axis=0 if arrays[0].ndim == 1 else 1, dtype=dtype,
                       casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """Join along the first axis after ``atleast_2d`` (``numpy.vstack``)."""
    return concatenate(_at_least(_sequence(tup, "vstack"), 2), axis=0, dtype=dtype,
                       casting=casting)


def dstack(tup):
    """Join along the third axis after ``atleast_3d`` (``numpy.dstack``)."""
    return concatenate(_at_least(_sequence(tup, "dstack"), 3), axis=2)


def column_stack(tup):
    """1-D inputs become columns, 2-D inputs are joined along the second axis
    (``numpy.column_stack``)."""
    arrays = []
    for a in _sequence(tup, "column_stack"):
        a = as_device(a, "column_stack")
        arrays.append(_manipulation.reshape(a, (-1, 1)) if a.ndim < 2 else a)
    return concatenate(arrays, axis=1)


def _slice_along(a, axis, start, stop):
    key = (slice(None),) * axis + (slice(start, stop),)
    return a[key]


def array_split(ary, indices_or_sections, axis=0):
    """Views of ``ary`` split along ``axis``: into N parts of near-equal length
    (the first ``len % N`` one longer) for an int N, or at the given indices
    (``numpy.array_split``). ValueError for N <= 0."""
    ary = as_device(ary, "array_split")
    axis = axis_tuple(axis, ary.ndim)[0]
    length = ary.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(length, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    else:
        bounds = [0, *[operator.index(i) for i in indices_or_sections], length]
    return [_slice_along(ary, axis, start, stop) for start, stop in zip(bounds, bounds[1:])]


def split(ary, indices_or_sections, axis=0):
    """``array_split``, but an int N must divide the axis length (ValueError
    otherwise; ``numpy.split``)."""
    ary = as_device(ary, "split")
    if isinstance(indices_or_sections, (int, np.integer)):
        length = ary.shape[axis_tuple(axis, ary.ndim)[0]]
        if indices_or_sections and length % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """``split`` along the second axis (the first for 1-D arrays)."""
    ary = as_device(ary, "hsplit")
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """``split`` along the first axis of an array of 2 or more dimensions."""
    ary = as_device(ary, "vsplit")
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """``split`` along the third axis of an array of 3 or more dimensions."""
    ary = as_device(ary, "dsplit")
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


def fliplr(m):
    """View with the columns (axis 1) reversed (``numpy.fliplr``)."""
    m = as_device(m, "fliplr")
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return _manipulation.flip(m, axis=1)


def flipud(m):
    """View with the rows (axis 0) reversed (``numpy.flipud``)."""
    m = as_device(m, "flipud")
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return _manipulation.flip(m, axis=0)


def rot90(m, k=1, axes=(0, 1)):
    """View of ``m`` rotated by 90 degrees ``k`` times in the plane ``axes``,
    from the first towards the second (``numpy.rot90``; flips and a transpose).
    ValueError for axes that are equal or not two."""
    m = as_device(m, "rot90")
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    a0, a1 = axis_tuple(axes[0], m.ndim)[0], axis_tuple(axes[1], m.ndim)[0]
    if a0 == a1:
        raise ValueError("Axes must be different.")
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return _manipulation.flip(m, axis=(a0, a1))
    order = list(range(m.ndim))
    order[a0], order[a1] = order[a1], order[a0]
    if k == 1:
        return _manipulation.permute_dims(_manipulation.flip(m, axis=a1), tuple(order))
    return _manipulation.flip(_manipulation.permute_dims(m, tuple(order)), axis=a1)


def _pad_widths(pad_width, ndim):
    widths = np.broadcast_to(np.asarray(pad_width), (ndim, 2))
    if widths.dtype.kind not in "iu":
        raise TypeError("pad: pad_width must be of integral type")
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    return [tuple(int(v) for v in row) for row in widths]


def _source_index(n, before, after, mode, device):
    """Device int64 index, for each position of a padded axis, of the element
    of the original axis (length ``n``) it copies."""
    index = _creation.arange(-before, n + after, dtype=np.int64, device=device)
    if mode == "edge":
        return _elementwise.clip(index, 0, n - 1)
    if mode == "wrap":
        return _elementwise.remainder(index, n)
    if mode == "symmetric":
        period = _elementwise.remainder(index, 2 * n)
        return _elementwise.where(period >= n, 2 * n - 1 - period, period)
    if n == 1:  # reflect around a single element: it repeats
        return _elementwise.multiply(index, 0)
    period = _elementwise.remainder(index, 2 * n - 2)
    return _elementwise.where(period >= n, 2 * n - 2 - period, period)


_PAD_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")


def pad(array, pad_width, mode="constant", *, constant_values=0):
    """``array`` padded by ``pad_width`` (an int, a (before, after) pair, or one
    pair per axis) (``numpy.pad``). Modes: "constant" (a full array with the
    input copied in, ``constant_values`` a scalar or per-axis pairs), "edge",
    "wrap", "reflect", "symmetric" (a gather per axis with aclnnIndexSelect of
    a device index). ValueError for other modes or negative widths, and for
    an empty axis with a mode that reads it."""
    array = as_device(array, "pad")
    widths = _pad_widths(pad_width, array.ndim)
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode {mode!r} is not supported by npuarray (supported: "
                         f"{', '.join(_PAD_MODES)})")
    if mode == "constant":
        return _pad_constant(array, widths, constant_values)
    result = array
    for axis, (before, after) in enumerate(widths):
        n = array.shape[axis]
        if not before and not after:
            continue
        if n == 0:
            raise ValueError(f"can't extend empty axis {axis} using modes other than "
                             f"'constant' or 'empty'")
        index = _source_index(n, before, after, mode, array.device)
        result = _indexing.take(result, index, axis=axis)
    return result


def _pad_constant(array, widths, constant_values):
    shape = tuple(n + b + a for n, (b, a) in zip(array.shape, widths))
    values = np.broadcast_to(np.asarray(constant_values), (array.ndim, 2)) \
        if np.ndim(constant_values) else None
    first = constant_values if values is None else 0
    out = _creation.full(shape, first, dtype=array.dtype, device=array.device)
    inner = tuple(slice(b, b + n) for n, (b, _) in zip(array.shape, widths))
    out[inner] = array
    if values is not None:  # NumPy fills axis by axis, later axes over the corners
        for axis, ((before, after), (low, high)) in enumerate(zip(widths, values.tolist())):
            head = (slice(None),) * axis
            if before:
                out[head + (slice(0, before),)] = low
            if after:
                out[head + (slice(shape[axis] - after, None),)] = high
    return out


def _operand(x):
    """An NPUArray as it is; host data (scalars, lists, NumPy arrays) uploaded
    with NumPy's dtype for it (``numpy.asarray``'s), as NumPy's routines take
    array-likes: an explicit transfer of the argument."""
    if isinstance(x, NPUArray):
        return x
    return _transfer.asarray(np.asarray(x))


def append(arr, values, axis=None):
    """``arr`` followed by ``values`` along ``axis`` (None: both flattened), a
    new array (``numpy.append``; aclnnInplaceCopy into each part on the current
    stream). The dtype is ``result_type`` of both as arrays (NumPy's
    ``concatenate``); ValueError for mismatched shapes."""
    arr, values = _operand(arr), _operand(values)
    if axis is None:
        arr, values = reshape(arr, (-1,)), reshape(values, (-1,))
        axis = 0
    return concatenate((arr, values), axis=axis)


def _along(arr, axis, name):
    """(``arr``, axis) with ``arr`` flattened for ``axis`` None, as NumPy's
    delete and insert do."""
    if axis is None:
        return reshape(arr, (-1,)), 0
    return arr, axis_tuple(axis, arr.ndim)[0]


def _host_indices(obj, n, name):
    """``obj`` (an int, slice, sequence or integer/bool array; device ones read
    back, a small index transfer) as host int64 positions along an axis of
    length ``n``."""
    if isinstance(obj, slice):
        return np.arange(*obj.indices(n), dtype=np.int64)
    if isinstance(obj, NPUArray):
        obj = obj.to_host()
    indices = np.array(obj)
    if indices.dtype == np.bool_:
        if indices.ndim != 1:
            raise ValueError(f"boolean array argument obj to {name} must be one dimensional")
        return np.flatnonzero(indices)
    if indices.size == 0 and not isinstance(obj, np.ndarray):
        return indices.astype(np.int64)
    if indices.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return indices.astype(np.int64)


def delete(arr, obj, axis=None):
    """``arr`` without the sub-arrays at positions ``obj`` along ``axis`` (None:
    flattened), a new array (``numpy.delete``): the kept positions gathered with
    aclnnIndexSelect on the current stream. ``obj`` is an int, slice, integer
    sequence or a boolean mask of the axis' length (device ``obj`` is read back).
    IndexError for an index out of range; ValueError for a mask of another length."""
    arr, axis = _along(_operand(arr), axis, "delete")
    n = arr.shape[axis]
    if isinstance(obj, NPUArray):
        obj = obj.to_host()
    keep = np.ones(n, bool)
    if not isinstance(obj, slice) and np.asarray(obj).dtype == np.bool_:
        mask = np.asarray(obj)
        if mask.shape != (n,):
            raise ValueError(f"boolean array argument obj to delete must be one dimensional "
                             f"and match the axis length of {n}")
        keep = ~mask
    else:
        indices = _host_indices(obj, n, "delete")
        outside = (indices < -n) | (indices >= n)
        if outside.any():
            raise IndexError(f"index {indices[outside].flat[0]} is out of bounds for axis "
                             f"{axis} with size {n}")
        keep[indices] = False
    return _indexing.take(arr, _transfer.asarray(np.flatnonzero(keep), device=arr.device),
                          axis=axis)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the positions ``obj`` along
    ``axis`` (None: flattened), a new array of ``arr``'s dtype (``numpy.insert``):
    ``arr`` and the values (cast to ``arr.dtype``, broadcast as NumPy does) are
    joined, then put in order with one aclnnIndexSelect on the current stream.
    The order is computed on the host from ``obj`` (an int, slice, sequence or
    boolean mask; device ``obj`` is read back). IndexError for a position
    outside [-n, n]."""
    arr, axis = _along(_operand(arr), axis, "insert")
    n = arr.shape[axis]
    indices = _host_indices(obj, n, "insert")
    if indices.ndim > 1:
        raise ValueError("index array argument obj to insert must be one dimensional "
                         "or scalar")
    values = astype(_operand(values), arr.dtype, copy=False)
    if values.ndim < arr.ndim:
        values = reshape(values, (1,) * (arr.ndim - values.ndim) + values.shape)
    if indices.size == 1:
        index = int(indices.item())
        if index < -n or index > n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        index += n if index < 0 else 0
        if indices.ndim == 0:
            values = moveaxis(values, 0, axis)
        numnew = values.shape[axis]
        positions = np.arange(index, index + numnew)
    else:
        if indices.size and (indices.min() < -n or indices.max() > n):
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        positions = np.where(indices < 0, indices + n, indices)
        numnew = positions.size
        order = np.argsort(positions, kind="stable")
        positions[order] += np.arange(numnew)
    shape = list(arr.shape)
    shape[axis] = numnew
    values = broadcast_to(values, tuple(shape))
    source = np.empty(n + numnew, np.int64)
    old = np.ones(n + numnew, bool)
    old[positions] = False
    source[old] = np.arange(n)
    source[positions] = n + np.arange(numnew)
    joined = concat([arr, values], axis=axis)
    return _indexing.take(joined, _transfer.asarray(source, device=arr.device), axis=axis)


def resize(a, new_shape):
    """A new array of shape ``new_shape`` filled with ``a``'s elements in C order,
    repeated as needed (``numpy.resize``; aclnnIndexSelect of the repeated flat
    positions on the current stream); zeros when ``a`` is empty. ValueError for
    negative dimensions."""
    a = _operand(a)
    new_shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    new_shape = tuple(operator.index(d) for d in new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    size = int(np.prod(new_shape, dtype=np.int64))
    if not a.size or not size:
        return _creation.zeros(new_shape, dtype=a.dtype, device=a.device)
    flat = reshape(a, (-1,))
    positions = _elementwise.remainder(
        _creation.arange(size, dtype=np.int64, device=a.device), a.size)
    return reshape(_indexing.take(flat, positions), new_shape)


def rollaxis(a, axis, start=0):
    """View of ``a`` with ``axis`` moved before position ``start``
    (``numpy.rollaxis``; no copy). AxisError for ``axis`` out of range,
    ValueError-like AxisError for ``start`` outside [-ndim, ndim]."""
    a = as_device(a, "rollaxis")
    n = a.ndim
    axis = axis_tuple(axis, n)[0]
    if not -n <= start < n + 1:
        raise np.exceptions.AxisError(
            f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if start < 0:
        start += n
    if axis < start:
        start -= 1
    if axis == start:
        return a
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return permute_dims(a, tuple(axes))


def copyto(dst, src, casting="same_kind", where=True):
    """``dst[...] = src`` broadcast, only where ``where`` holds (``numpy.copyto``;
    aclnnInplaceCopy, or aclnnSWhere with a mask, on the current stream).
    TypeError when ``src``'s dtype cannot be cast to ``dst``'s by ``casting``
    (Python scalars are weak, NEP 50) or ``dst`` is not an NPUArray; ValueError
    when shapes do not broadcast."""
    if not isinstance(dst, NPUArray):
        raise TypeError(f"copyto: dst must be an NPUArray, got {type(dst).__name__}")
    if isinstance(src, (bool, int, float, complex)):
        if not np.can_cast(np.result_type(src, np.empty(0, dst.dtype)), dst.dtype, casting):
            raise TypeError(f"Cannot cast scalar from {type(src).__name__} to {dst.dtype} "
                            f"according to the rule {casting!r}")
        src = _creation.full((), src, dtype=dst.dtype, device=dst.device)
    else:
        src = _operand(src)
        if not np.can_cast(src.dtype, dst.dtype, casting):
            raise TypeError(f"Cannot cast array data from {src.dtype} to {dst.dtype} "
                            f"according to the rule {casting!r}")
    src = broadcast_to(astype(src, dst.dtype, copy=False), dst.shape)
    if where is True:
        dst[...] = src
        return
    mask = _operand(where)
    if mask.dtype != np.bool_:
        raise TypeError(f"copyto: where must be boolean, got {mask.dtype}")
    dst[...] = _elementwise.where(broadcast_to(mask, dst.shape), src, dst)


def _block_depth(arrays, index):
    if isinstance(arrays, tuple):
        raise TypeError(f"{index} is a tuple. Only lists can be used to arrange blocks, and "
                        f"np.block does not allow implicit conversion from tuple to ndarray.")
    if not isinstance(arrays, list):
        return 0, [_operand(arrays).ndim]
    if not arrays:
        raise ValueError(f"List at {index} cannot be empty")
    depths, ndims = set(), []
    for i, item in enumerate(arrays):
        depth, leaves = _block_depth(item, f"{index}[{i}]")
        depths.add(depth)
        ndims += leaves
    if len(depths) != 1:
        raise ValueError(f"List depths are mismatched at {index}: the lists nested in it "
                         f"have depths {sorted(depths)}")
    return depths.pop() + 1, ndims


def _block(arrays, depth, result_ndim):
    if not isinstance(arrays, list):
        a = _operand(arrays)
        return reshape(a, (1,) * (result_ndim - a.ndim) + a.shape)
    parts = [_block(item, depth - 1, result_ndim) for item in arrays]
    return concat(parts, axis=-depth)


def block(arrays):
    """An array assembled from nested lists of blocks (``numpy.block``): the
    innermost lists are joined along the last axis, each outer level along the
    axis before (aclnnInplaceCopy into each slice, on the current stream); blocks
    get leading length-1 axes up to the result's dimensions. The dtype is the
    blocks' ``result_type``. ValueError for empty lists, mismatched nesting or
    shapes; TypeError for tuples."""
    depth, ndims = _block_depth(arrays, "arrays")
    result_ndim = max(depth, *ndims)
    if depth == 0:
        return _manipulation.copy_array(_block(arrays, 0, result_ndim))
    leaves = []

    def collect(item):
        if isinstance(item, list):
            for sub in item:
                collect(sub)
        else:
            leaves.append(_operand(item))
    collect(arrays)
    dtype = np.result_type(*[leaf.dtype for leaf in leaves])
    return astype(_block(arrays, depth, result_ndim), dtype, copy=False)


def trim_zeros(filt, trim="fb", axis=None):
    """View of ``filt`` without its leading (``"f"``) and/or trailing (``"b"``)
    zeros along ``axis`` (None: every axis; the bounding box of the non-zero
    elements), as ``numpy.trim_zeros`` (2.2 and later). The box comes from
    aclnnNonzero, aclnnAmin and aclnnAmax on the current stream and one read of
    2 x ndim positions. ValueError for a ``trim`` other than "f", "b", "fb", "bf"."""
    filt = as_device(filt, "trim_zeros")
    trim = trim.lower()
    if trim not in ("fb", "bf", "f", "b"):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    axes = axis_tuple(axis, filt.ndim)
    if not axes:
        return filt
    coordinates = _searching.nonzero(filt)
    if not coordinates or not coordinates[0].size:
        start = stop = [0] * filt.ndim
    else:
        bounds = _transfer.asnumpy(stack(
            [stack([_statistical.min(c), _statistical.max(c)]) for c in coordinates]))
        start = bounds[:, 0] if "f" in trim else [None] * filt.ndim
        stop = bounds[:, 1] + 1 if "b" in trim else [None] * filt.ndim
    key = tuple(slice(None if start[d] is None else int(start[d]),
                      None if stop[d] is None else int(stop[d])) if d in axes else slice(None)
                for d in range(filt.ndim))
    return filt[key]


def require(a, dtype=None, requirements=None, *, like=None):
    """``a`` as an NPUArray meeting ``requirements`` (``numpy.require``): "C"
    (C-contiguous), "F" (Fortran-contiguous), "A" (either), "W" (writeable),
    "O" (owns its data), "E" (ensure array); a copy (aclnnInplaceCopy on the
    current stream) only when one is needed. ``dtype`` casts. ValueError for
    "C" with "F", or an unknown requirement; host data is uploaded."""
    if like is not None:
        raise TypeError("require: like= is not supported by npuarray")
    names = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F",
             "F_CONTIGUOUS": "F", "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W",
             "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}
    try:  # a string is a sequence of one-letter flags, as in NumPy
        wanted = {names[r.upper()] for r in requirements or ()}
    except KeyError as e:
        raise KeyError(f"require: unknown requirement {e.args[0]!r}") from None
    if "C" in wanted and "F" in wanted:
        raise ValueError("Cannot specify both 'C' and 'F' order")
    a = _operand(a)
    if dtype is not None:
        a = astype(a, dtype, copy=False)
    if "C" in wanted and not a.is_c_contiguous():
        a = _manipulation.copy_array(a)
    if "F" in wanted and not a.flags.f_contiguous:
        a = _fortran_copy(a)
    if ("W" in wanted and not a.flags.writeable) or ("O" in wanted and not a.flags.owndata):
        a = _fortran_copy(a) if "F" in wanted else _manipulation.copy_array(a)
    return a


def _fortran_copy(a):
    """A Fortran-ordered copy of ``a``: the C-ordered copy of its transpose, transposed."""
    reverse = tuple(range(a.ndim))[::-1]
    return permute_dims(_manipulation.copy_array(permute_dims(a, reverse)), reverse)


def shape(a):
    """The shape of ``a`` (``numpy.shape``): an NPUArray's ``shape`` attribute (no
    device work, no transfer); NumPy's answer for anything else."""
    return a.shape if isinstance(a, NPUArray) else np.shape(a)


def ndim(a):
    """The number of dimensions of ``a`` (``numpy.ndim``; metadata only)."""
    return a.ndim if isinstance(a, NPUArray) else np.ndim(a)


def size(a, axis=None):
    """The number of elements of ``a``, or its length along ``axis`` (an int or a
    tuple of ints; ``numpy.size``; metadata only). AxisError for a bad axis."""
    if not isinstance(a, NPUArray):
        return np.size(a, axis)
    if axis is None:
        return a.size
    return math.prod(a.shape[i] for i in axis_tuple(axis, a.ndim))


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """Deprecated alias of ``vstack`` (``numpy.row_stack``): DeprecationWarning, as
    NumPy 2 gives, then ``vstack``."""
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.",
                  DeprecationWarning, stacklevel=2)
    return vstack(tup, dtype=dtype, casting=casting)


class broadcast:  # noqa: N801  NumPy's name
    """The broadcast of its arguments (``numpy.broadcast``): ``shape``, ``nd``/``ndim``,
    ``size``, ``numiter``; ``iters`` the flat iterators of the broadcast views
    (no copies) and iteration tuples of 0-d device elements, ``index`` the position
    reached, ``reset()`` back to 0. Host data is uploaded; ValueError when the
    shapes do not broadcast (at most 64 arguments, as NumPy)."""

    def __init__(self, *args):
        if len(args) > 64:
            raise ValueError(f"Need at most 64 array objects, got {len(args)}")
        arrays = [_operand(a) for a in args]
        self.shape = broadcast_shapes(*(a.shape for a in arrays))
        self._views = [broadcast_to(a, self.shape) for a in arrays]
        self.index = 0

    nd = property(lambda self: len(self.shape))
    ndim = nd
    numiter = property(lambda self: len(self._views))
    size = property(lambda self: math.prod(self.shape))
    iters = property(lambda self: tuple(v.flat for v in self._views))

    def __iter__(self):
        return self

    def __next__(self):
        if self.index >= self.size:
            raise StopIteration
        position = np.unravel_index(self.index, self.shape) if self.shape else ()
        self.index += 1
        return tuple(v[position] for v in self._views)

    def reset(self):
        """Back to the first element."""
        self.index = 0


# -- NumPy's signature and the standard's, in one function (NumPy 2's): the call without
# NumPy's extra keywords is the array API function's own ------------------------------

def tile(A, reps, /):  # noqa: N803  NumPy's name
    """``A`` repeated ``reps`` times per axis (``numpy.tile``, array API ``tile``):
    ``reps`` an int or a tuple."""
    reps = (operator.index(reps),) if not isinstance(reps, (tuple, list)) else tuple(reps)
    return _manipulation.tile(as_device(A, "tile"), reps)


def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    """``a`` with a new ``shape`` (``numpy.reshape``, array API ``reshape``): a view
    when the strides allow, else a device copy (``copy=False`` raises then).
    ``order="F"`` reads and writes the elements in Fortran order (the transpose's
    reshape, transposed); "A" uses Fortran order for a Fortran-contiguous ``a``."""
    if shape is None:
        if newshape is None:
            raise TypeError("reshape() missing 1 required positional argument: 'shape'")
        shape = newshape
    a = as_device(a, "reshape")
    if order == "A":
        order = "F" if is_fortran(a) and not is_c_ordered(a) else "C"
    if order == "C":
        return _manipulation.reshape(a, shape, copy=copy)
    if order != "F":
        raise ValueError(f"order must be one of 'C', 'F', 'A' (got {order!r})")
    shape = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(shape)
    flipped = _manipulation.permute_dims(a, tuple(range(a.ndim - 1, -1, -1)))
    result = _manipulation.reshape(flipped, shape[::-1], copy=copy)
    return _manipulation.permute_dims(result, tuple(range(len(shape) - 1, -1, -1)))
