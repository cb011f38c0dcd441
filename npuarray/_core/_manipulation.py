"""Shape manipulation (array API "Manipulation Functions") and ``astype``.

Reshapes, axis permutations, inserted or removed size-1 axes and broadcasts
are views: they share the buffer and change only shape, strides (elements) and
offset, computed on the host without device work. When a reshape cannot be a
view, the data is copied on the device (aclnnInplaceCopy); ``astype`` runs
aclnnCast. All work runs on the current stream of the array's device.
"""
import math
import numpy as np

from . import _array_type, _ops
from ._data_type import normalize_dtype, result_type
from ._shape import broadcast_shapes, c_strides, normalize_axis_index, normalize_axis_tuple

__all__ = ["reshape", "permute_dims", "expand_dims", "squeeze", "broadcast_to",
           "broadcast_arrays", "broadcast_shapes", "astype", "matrix_transpose",
           "moveaxis", "swapaxes", "concat", "stack", "unstack", "flip", "roll", "tile",
           "repeat"]

def _check_array(x, name="x"):
    if not isinstance(x, _array_type.NPUArray):
        raise TypeError(f"{name} must be an NPUArray, got {type(x).__name__}; "
                        "convert it with npuarray.asarray")


# -- copies and casts --------------------------------------------------------------------------

def copy_array(x):
    """A C-contiguous copy of ``x`` on its device and current stream
    (aclnnInplaceCopy; ``numpy.copy``)."""
    out = _ops.empty(x.shape, x.dtype, x.device, _ops.stream_of(x))
    if x.size:
        _ops.copy_(out, x)
    return out


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype`` (array API ``astype``; aclnnCast on the
    current stream). ``copy=False`` returns ``x`` itself when the dtype (and
    device) already match. ``device``: move the result there (``to_device``).
    Casting follows C/NumPy (float to int truncates toward zero; complex to
    real drops the imaginary part). TypeError for unsupported dtypes."""
    _check_array(x)
    dtype = normalize_dtype(dtype)
    if dtype == x.dtype:
        result = copy_array(x) if copy else x
    elif x.size == 0:
        result = _ops.empty(x.shape, dtype, x.device, _ops.stream_of(x))
    else:
        result = _ops.cast(x, dtype)
    return result if device is None else result.to_device(device)


# -- reshape -----------------------------------------------------------------------------------

def _resolve_shape(shape, size):
    if isinstance(shape, (int, np.integer)) or hasattr(shape, "__index__"):
        shape = (shape,)
    try:
        shape = tuple(operator_index(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be a tuple of integers, got {shape!r}") from None
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1 or any(n < -1 for n in shape):
        raise ValueError(f"invalid shape {shape}: at most one -1 and no other "
                         "negative sizes")
    known = 1
    for n in shape:
        if n != -1:
            known *= n
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape an array of size {size} into shape {shape}")
        shape = shape[:unknown[0]] + (size // known,) + shape[unknown[0] + 1:]
    elif known != size:
        raise ValueError(f"cannot reshape an array of size {size} into shape {shape}")
    return shape


def operator_index(n):
    """``n.__index__()`` (ints, NumPy integers, 0-d integer arrays)."""
    try:
        return n.__index__()
    except AttributeError:
        raise TypeError(f"{type(n).__name__} is not an integer") from None


def _view_strides(shape, strides, new_shape):
    """Strides (elements) giving ``new_shape`` as a view of the C-order element
    sequence of (shape, strides), or None when no view exists (NumPy's
    ``_attempt_nocopy_reshape``)."""
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    new_strides = [0] * len(new_shape)
    oi = ni = 0
    while ni < len(new_shape) and oi < len(old):
        nj, oj = ni + 1, oi + 1
        new_size, old_size = new_shape[ni], old[oi][0]
        while new_size != old_size:
            if new_size < old_size:
                new_size *= new_shape[nj]
                nj += 1
            else:
                old_size *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):  # the merged old axes must be contiguous
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        new_strides[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            new_strides[k - 1] = new_strides[k] * new_shape[k]
        ni, oi = nj, oj
    last = new_strides[ni - 1] if ni else 1
    for k in range(ni, len(new_shape)):  # trailing size-1 axes
        new_strides[k] = last
    return tuple(new_strides)


def reshape(x, /, shape, *, copy=None):
    """``x`` with a new ``shape`` (one entry may be -1) and the same elements in
    C order (array API ``reshape``). A view when the strides allow it; else a
    C-contiguous copy on the device (aclnnInplaceCopy). ``copy=True`` always
    copies, ``copy=False`` raises ValueError when a view is impossible. Raises
    ValueError when the sizes do not match."""
    _check_array(x)
    shape = _resolve_shape(shape, x.size)
    if copy:
        x = copy_array(x)
    if x.size == 0 or x._strides == c_strides(x._shape):
        return x._view(shape, c_strides(shape), x._offset)
    strides = _view_strides(x._shape, x._strides, shape)
    if strides is None:
        if copy is False:
            raise ValueError(f"cannot reshape the view of shape {x.shape} and strides "
                             f"{x.strides} to {shape} without a copy (copy=False)")
        x = copy_array(x)
        strides = c_strides(shape)
    return x._view(shape, strides, x._offset)


# -- axes --------------------------------------------------------------------------------------

def permute_dims(x, /, axes):
    """View of ``x`` with its axes reordered: axis ``i`` of the result is axis
    ``axes[i]`` of ``x`` (array API ``permute_dims``, ``numpy.transpose``).
    ValueError unless ``axes`` is a permutation of ``range(x.ndim)``."""
    _check_array(x)
    axes = normalize_axis_tuple(tuple(axes), x.ndim)
    if len(axes) != x.ndim:
        raise ValueError(f"axes {axes} do not match an array of {x.ndim} dimensions")
    return x._view([x._shape[a] for a in axes], [x._strides[a] for a in axes], x._offset)


def matrix_transpose(x, /):
    """View with the last two axes swapped (array API); ValueError below 2-D."""
    _check_array(x)
    return x.mT


def swapaxes(x, axis1, axis2, /):
    """View with two axes exchanged (``numpy.swapaxes``)."""
    _check_array(x)
    order = list(range(x.ndim))
    a, b = normalize_axis_index(axis1, x.ndim), normalize_axis_index(axis2, x.ndim)
    order[a], order[b] = order[b], order[a]
    return permute_dims(x, order)


def moveaxis(x, source, destination, /):
    """View with axes moved to new positions (array API ``moveaxis``)."""
    _check_array(x)
    source = normalize_axis_tuple(source, x.ndim)
    destination = normalize_axis_tuple(destination, x.ndim)
    if len(source) != len(destination):
        raise ValueError("source and destination must have the same number of axes")
    order = [a for a in range(x.ndim) if a not in source]
    for dst, src in sorted(zip(destination, source)):
        order.insert(dst, src)
    return permute_dims(x, order)


def expand_dims(x, /, axis=0):
    """View of ``x`` with size-1 axes inserted at ``axis`` (an int or a tuple,
    positions in the result; array API ``expand_dims``). AxisError (a
    ValueError and IndexError) for out-of-range axes."""
    _check_array(x)
    axes = sorted(normalize_axis_tuple(axis, x.ndim + (len(axis) if isinstance(
        axis, (tuple, list)) else 1)))
    shape, strides = list(x._shape), list(x._strides)
    for a in axes:
        stride = shape[a] * strides[a] if a < len(shape) else 1
        shape.insert(a, 1)
        strides.insert(a, stride)
    return x._view(shape, strides, x._offset)


def squeeze(x, /, axis=None):
    """View of ``x`` without the size-1 axes ``axis`` (an int or tuple; None:
    every size-1 axis, as NumPy). ValueError when an axis is not of size 1."""
    _check_array(x)
    if axis is None:
        axes = tuple(i for i, n in enumerate(x._shape) if n == 1)
    else:
        axes = normalize_axis_tuple(axis, x.ndim)
    for a in axes:
        if x._shape[a] != 1:
            raise ValueError(f"cannot squeeze axis {a} of size {x._shape[a]} "
                             f"(shape {x.shape})")
    keep = [i for i in range(x.ndim) if i not in axes]
    return x._view([x._shape[i] for i in keep], [x._strides[i] for i in keep], x._offset)


# -- broadcasting ------------------------------------------------------------------------------

def complex_parts(x):
    """A view of complex ``x``'s bytes as real numbers of shape ``x.shape + (2,)``: the
    real parts at ``[..., 0]``, the imaginary parts at ``[..., 1]``."""
    part = np.dtype(np.float32 if x._dtype == np.complex64 else np.float64)
    return _array_type.NPUArray._from_buffer(x._buffer, x._shape + (2,), tuple(2 * s for s in x._strides)
                                 + (1,), 2 * x._offset, part)


def check_writable(x):
    """ValueError when ``x`` repeats elements (a zero stride on an axis longer than 1, as
    broadcast_to makes): NumPy makes such views read-only, since a write through one
    element would change all its repeats."""
    if any(s == 0 and n > 1 for n, s in zip(x._shape, x._strides)):
        raise ValueError("assignment destination is read-only (a broadcast view repeats "
                         "its elements; copy it first)")


def fold_batch(x, batch):
    """``x`` (..., R, C) broadcast to the batch shape ``batch`` and reshaped to
    (prod(batch), R, C): for operators that take fewer dimensions than the array
    API allows (a copy where the broadcast or the strides require one)."""
    matrix = x._shape[-2:]
    return reshape(broadcast_to(x, tuple(batch) + matrix), (math.prod(batch),) + matrix)


def broadcast_to(x, /, shape):
    """Read-only view of ``x`` broadcast to ``shape`` (stride 0 on the repeated axes;
    array API ``broadcast_to``): assigning to it raises ValueError, as in NumPy.
    ValueError when ``x``'s shape is not compatible with ``shape``."""
    _check_array(x)
    shape = tuple(operator_index(n) for n in (shape if isinstance(shape, (tuple, list))
                                               else (shape,)))
    lead = len(shape) - x.ndim
    if lead < 0 or any(n < 0 for n in shape):
        raise ValueError(f"cannot broadcast an array of shape {x.shape} to {shape}")
    strides = [0] * lead
    for n, s, target in zip(x._shape, x._strides, shape[lead:]):
        if n == target:
            strides.append(s)
        elif n == 1:
            strides.append(0)
        else:
            raise ValueError(f"cannot broadcast an array of shape {x.shape} to {shape}")
    return x._view(shape, strides, x._offset)


def broadcast_arrays(*arrays):
    """Read-only views of ``arrays`` broadcast to their common shape, as a tuple
    (array API ``broadcast_arrays``; no device work). ValueError when the
    shapes do not broadcast."""
    for a in arrays:
        _check_array(a, "every array")
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)


# -- joining (device copies into slices of the result) -----------------------------------------

def _joined(arrays, what):
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f"{what} needs at least one array")
    for a in arrays:
        _check_array(a, "every array")
    device = arrays[0].device
    for a in arrays[1:]:
        if a.device != device:
            raise ValueError(f"{what}: arrays are on different devices "
                             f"(npu:{device.id} and npu:{a.device.id})")
    return arrays, result_type(*arrays), device


def concat(arrays, /, *, axis=0):
    """Join arrays along an existing ``axis`` (None: flatten them first; array
    API ``concat``). Each input is copied into its slice of the result with
    aclnnInplaceCopy on the current stream. ValueError for mismatched shapes
    or devices."""
    arrays, dtype, device = _joined(arrays, "concat")
    if axis is None:
        arrays, axis = [reshape(a, (-1,)) for a in arrays], 0
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis_index(axis, ndim)
    for a in arrays:
        if a.ndim != ndim or a.shape[:axis] + a.shape[axis + 1:] != \
                arrays[0].shape[:axis] + arrays[0].shape[axis + 1:]:
            raise ValueError(f"concat: shapes {[a.shape for a in arrays]} differ outside "
                             f"axis {axis}")
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    out = _ops.empty(tuple(shape), dtype, device, _ops.stream_of(arrays[0]))
    start = 0
    for a in arrays:
        if a.size:
            index = (slice(None),) * axis + (slice(start, start + a.shape[axis]),)
            _ops.copy_(out[index], a)
        start += a.shape[axis]
    return out


def stack(arrays, /, *, axis=0):
    """Join arrays of one shape along a new ``axis`` (array API ``stack``;
    aclnnInplaceCopy per input). ValueError for mismatched shapes or devices."""
    arrays, _, _ = _joined(arrays, "stack")
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ValueError(f"stack: all arrays must have one shape, got "
                         f"{[a.shape for a in arrays]}")
    axis = normalize_axis_index(axis, len(shape) + 1)
    return concat([expand_dims(a, axis) for a in arrays], axis=axis)


def unstack(x, /, *, axis=0):
    """Views of ``x`` along ``axis``, as a tuple (array API ``unstack``)."""
    _check_array(x)
    axis = normalize_axis_index(axis, x.ndim)
    moved = moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


def flip(x, /, *, axis=None):
    """View of ``x`` with the order of elements reversed along ``axis`` (an
    int, a tuple, or None for all axes; array API ``flip``): negated strides,
    no copy."""
    _check_array(x)
    axes = range(x.ndim) if axis is None else normalize_axis_tuple(axis, x.ndim)
    strides, offset = list(x._strides), x._offset
    for a in axes:
        if x._shape[a] > 1:
            offset += (x._shape[a] - 1) * strides[a]
            strides[a] = -strides[a]
    return x._view(x._shape, strides, offset)


def roll(x, /, shift, *, axis=None):
    """``x`` with elements shifted cyclically by ``shift`` along ``axis``
    (ints or tuples of equal length; None: over the flattened array, then
    reshaped; array API ``roll``). Two slice copies per axis on the device
    (aclnnInplaceCopy)."""
    _check_array(x)
    if axis is None:
        return reshape(roll(reshape(x, (-1,)), shift, axis=0), x.shape)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) != len(axes):
        raise ValueError("roll: shift and axis must have the same length")
    totals = {}
    for s, a in zip(shifts, axes):
        a = normalize_axis_index(a, x.ndim)
        totals[a] = totals.get(a, 0) + operator_index(s)
    result = x
    for a, s in totals.items():
        n = x.shape[a]
        s = s % n if n else 0
        if s:
            out = _ops.empty(x.shape, x.dtype, x.device, _ops.stream_of(x))
            head = (slice(None),) * a
            _ops.copy_(out[head + (slice(s, None),)], result[head + (slice(None, n - s),)])
            _ops.copy_(out[head + (slice(None, s),)], result[head + (slice(n - s, None),)])
            result = out
    return copy_array(result) if result is x else result


def tile(x, repetitions, /):
    """``x`` repeated ``repetitions[i]`` times along each axis (array API
    ``tile``): a broadcast view copied once on the device."""
    _check_array(x)
    reps = tuple(operator_index(r) for r in repetitions)
    if any(r < 0 for r in reps):
        raise ValueError(f"tile repetitions must be >= 0, got {reps}")
    ndim = max(len(reps), x.ndim)
    reps = (1,) * (ndim - len(reps)) + reps
    base = reshape(x, (1,) * (ndim - x.ndim) + x.shape)
    interleaved = reshape(base, tuple(v for n in base.shape for v in (1, n)))
    wide = broadcast_to(interleaved, tuple(v for r, n in zip(reps, base.shape)
                                           for v in (r, n)))
    return reshape(copy_array(wide), tuple(r * n for r, n in zip(reps, base.shape)))


def repeat(x, repeats, /, *, axis=None):
    """Each element of ``x`` repeated (array API ``repeat``). An int
    ``repeats``: a broadcast view copied once (aclnnInplaceCopy). A sequence
    (one count per element along ``axis``): the gather indices are built
    from the host counts and applied with aclnnIndex. ``axis=None`` works on
    the flattened array. ValueError for negative or mismatched counts."""
    _check_array(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = normalize_axis_index(axis, x.ndim)
    if isinstance(repeats, _array_type.NPUArray):
        repeats = repeats.to_host()
    if isinstance(repeats, (int, np.integer)):
        if repeats < 0:
            raise ValueError(f"repeats must be >= 0, got {repeats}")
        expanded = expand_dims(x, axis + 1)
        shape = list(expanded.shape)
        shape[axis + 1] = int(repeats)
        flat = list(x.shape)
        flat[axis] *= int(repeats)
        return reshape(copy_array(broadcast_to(expanded, tuple(shape))), tuple(flat))
    counts = np.asarray(repeats, dtype=np.int64)
    if counts.ndim != 1 or counts.shape[0] not in (1, x.shape[axis]) or (counts < 0).any():
        raise ValueError(f"repeats must hold one count >= 0 per element along axis {axis}")
    index = np.repeat(np.arange(x.shape[axis]), np.broadcast_to(counts, (x.shape[axis],)))
    return x[(slice(None),) * axis + (index,)]
