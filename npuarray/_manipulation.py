"""NumPy's array-manipulation names (``numpy.concatenate``, ``numpy.hstack``,
``numpy.split``, ``numpy.pad`` ...) composed on the device from the array API
functions (views where NumPy returns views; copies with aclnnInplaceCopy,
gathers with aclnnIndexSelect). Work runs on the current stream of the
operands' device.
"""
import operator

import numpy as np

from ._core import _creation, _elementwise, _indexing, _manipulation
from ._core._manipulation import (astype, broadcast_arrays, broadcast_shapes, broadcast_to,
                                  concat, expand_dims, flip, moveaxis, permute_dims, repeat,
                                  reshape, roll, squeeze, stack, swapaxes, tile, unstack)
from ._operands import as_device, axis_tuple, into

__all__ = ["astype", "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat",
           "expand_dims", "flip", "moveaxis", "permute_dims", "repeat", "reshape", "roll",
           "squeeze", "stack", "swapaxes", "tile", "unstack", "concatenate", "transpose",
           "ravel", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack",
           "column_stack", "array_split", "split", "hsplit", "vsplit", "dsplit", "fliplr",
           "flipud", "rot90", "pad"]


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

