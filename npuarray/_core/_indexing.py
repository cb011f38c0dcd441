"""Indexing NPUArrays with NumPy's rules.

Basic indices (integers, slices with any step, ``...``, ``None``) make views:
offset and strides are computed on the host, the buffer is shared, nothing
runs on the device. Out-of-range integers raise IndexError.

Advanced indices (integer arrays, boolean masks; integers next to them count
as advanced, as in NumPy) make copies on the device with aclnn operators:

* ``x[mask]`` alone: aclnnMaskedSelect. Its result size depends on the data:
  the stream is synchronised and the size read back with aclGetViewShape.
* integer arrays: aclnnIndex over the indexed axes moved to the front; the
  result axes are then placed where NumPy places them.
* a mask combined with other advanced indices becomes integer arrays (its
  true positions: aclnnMaskedSelect of an aclnnArange, unravelled).
* ``x[mask] = scalar``: aclnnInplaceMaskedFillScalar, or aclnnSWhere for the
  dtypes it lacks (no synchronisation);
  other advanced assignments: aclnnIndexPutImpl; basic ones fill or copy the
  view (aclnnInplaceFillScalar / aclnnInplaceCopy, broadcasting the value).

Index arrays are bounds-checked before use: host arrays (lists, NumPy) on the
host before upload, device arrays with aclnnAmin / aclnnAmax and a read of the
two values (a synchronisation), so an out-of-range index is an IndexError as
in NumPy instead of a device fault. Negative indices count from the end.
"""
import operator

import numpy as np

from . import (_array_type, _creation, _elementwise, _manipulation, _ops, _statistical,
               _transfer)
from .. import runtime
from ._data_type import BOOL, bfloat16, check_scalar_fits, default_index
from ._shape import normalize_axis_index

__all__ = ["take", "take_along_axis"]

_INT64 = default_index


# -- parsing the key ---------------------------------------------------------------------------

class _Index:
    """One advanced index: device int64 ``array`` selecting along one axis."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


class _Mask:
    """A boolean mask (device bool array) over ``array.ndim`` axes."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _is_integer(k):
    if isinstance(k, (bool, np.bool_)):
        return False
    try:
        operator.index(k)
    except TypeError:
        return False
    return not isinstance(k, _array_type.NPUArray)


def _classify(k, device):
    """None, Ellipsis, a slice, an int, a bool, a _Mask or an _Index (host
    sequences uploaded to ``device``)."""
    if k is None or k is Ellipsis or isinstance(k, slice):
        return k
    if isinstance(k, (bool, np.bool_)):
        return bool(k)
    if _is_integer(k):
        return operator.index(k)
    if isinstance(k, _array_type.NPUArray):
        if k.device != device:
            raise ValueError(f"the index array is on npu:{k.device.id} and the indexed "
                             f"array on npu:{device.id}; move one with to_device()")
        if k.dtype == BOOL:
            if k.ndim == 0:  # NumPy: a 0-d mask indexes like the Python bool it holds
                return _read_scalar(k, "a 0-d boolean index")
            return _Mask(k)
        if k.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer or boolean "
                             f"type, got {k.dtype}")
        if k.ndim == 0:  # NumPy: a 0-d integer array indexes like the int it holds
            return _read_scalar(k, "a 0-d integer index")
        return _Index(k)
    if isinstance(k, (list, tuple, np.ndarray)):
        host = np.asarray(k)
        if host.dtype == np.bool_:
            if host.ndim == 0:
                return bool(host)
            return _Mask(_upload(host, device))
        if host.size == 0 and host.dtype.kind == "f":
            host = host.astype(_INT64)  # [] indexes like an empty integer array
        if host.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer or boolean "
                             f"type, got {host.dtype}")
        return _Index(host)  # uploaded once its axis length is known (bounds check)
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and integer or "
                     f"boolean arrays are valid indices, got {type(k).__name__}")


def _read_scalar(k, what):
    """The value of a 0-d device index as a Python bool or int: the key's shape or
    offset depends on it, so it is read (one synchronisation, as for any
    data-dependent shape)."""
    for hook in _transfer.host_read_hooks:
        hook(f"{what} (a data-dependent shape)")
    return k.to_host().item()


def _consumed(k):
    if isinstance(k, _Mask):
        return k.array.ndim
    return 0 if k is None or k is Ellipsis or isinstance(k, bool) else 1


def _parse(x, key):
    """The key as a list of classified entries, the ellipsis expanded."""
    if not isinstance(key, tuple):
        key = (key,)
    entries = [_classify(k, x.device) for k in key]
    if sum(1 for k in entries if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(_consumed(k) for k in entries)
    if consumed > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, "
                         f"but {consumed} were indexed")
    fill = [slice(None)] * (x.ndim - consumed)
    if Ellipsis in entries:
        at = next(i for i, k in enumerate(entries) if k is Ellipsis)
        return entries[:at] + fill + entries[at + 1:]
    return entries + fill


def _is_advanced(entries):
    return any(isinstance(k, (_Index, _Mask)) for k in entries)


# -- basic indexing: views ---------------------------------------------------------------------

def _check_int(i, n, axis):
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
    return i % n


def _basic_view(x, entries):
    """The view selected by ints, slices, None and bools (a bool adds an axis
    of length 1 for True, 0 for False, as NumPy does)."""
    shape, strides, offset, axis = [], [], x._offset, 0
    for k in entries:
        if k is None or isinstance(k, bool):
            shape.append(1 if k is None or k else 0)
            strides.append(0)
            continue
        n, s = x._shape[axis], x._strides[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            shape.append(length)
            strides.append(s * step)
            if length:
                offset += start * s
        else:
            offset += _check_int(k, n, axis) * s
        axis += 1
    shape.extend(x._shape[axis:])  # axes not named by the key are kept whole
    strides.extend(x._strides[axis:])
    return x._view(shape, strides, offset)


# -- advanced indexing -------------------------------------------------------------------------

def _split(x, entries):
    """Apply the basic entries, keeping the axes of advanced ones (ints among
    advanced indices count as advanced). Returns the view, the advanced
    (view axis, entry) pairs, and whether they are adjacent in the key."""
    basic, advanced, positions, axis = [], [], [], 0
    for position, k in enumerate(entries):
        if isinstance(k, (_Index, _Mask)) or (isinstance(k, int) and not isinstance(k, bool)):
            width = _consumed(k)
            advanced.append((axis, k))
            positions.append(position)
            basic.extend([slice(None)] * width)
            axis += width
        else:
            basic.append(k)
            axis += 1
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    return _basic_view(x, basic), advanced, adjacent


def _upload(host, device):
    return _transfer.upload(np.asarray(host, order="C"), device,
                            runtime.get_current_stream(device))


def _device_index(entry, n, axis, device):
    """Device int64 index array for ``entry`` along an axis of length ``n``,
    checked to lie in [-n, n) and made non-negative."""
    if isinstance(entry, int):
        return _upload(np.array(_check_int(entry, n, axis), dtype=_INT64), device)
    index = entry.array
    if isinstance(index, np.ndarray):
        if index.size and (index.min() < -n or index.max() >= n):
            bad = index[(index < -n) | (index >= n)].flat[0]
            raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
        return _upload(np.where(index < 0, index + n, index).astype(_INT64), device)
    if index.dtype != _INT64:
        index = _ops.cast(index, _INT64)
    if index.size:
        for hook in _transfer.host_read_hooks:
            hook("indexing with a device integer array (its bounds are checked on the host)")
        bounds = _manipulation.stack([_statistical.min(index), _statistical.max(index)])
        low, high = (int(v) for v in bounds.to_host())  # one read: one synchronisation
        if low < -n or high >= n:
            raise IndexError(f"index {low if low < -n else high} is out of bounds for "
                             f"axis {axis} with size {n}")
        if low < 0:
            index = _elementwise.remainder(index, n)
    return index


def _nonzero(mask):
    """The true positions of a device bool mask as one int64 index array per
    mask axis (aclnnArange, aclnnMaskedSelect, then unravelled on the device)."""
    stream = _ops.stream_of(mask)
    if mask.size == 0:
        return [_ops.empty((0,), _INT64, mask.device, stream) for _ in mask.shape]
    flat_positions = _ops.empty((mask.size,), _INT64, mask.device, stream)
    _ops.arange_(flat_positions, 0, mask.size, 1)
    flat = _masked_select(flat_positions.reshape(mask.shape), mask)
    indices, step = [], mask.size
    for n in mask.shape:
        step //= n
        indices.append(_elementwise.remainder(_elementwise.floor_divide(flat, step), n)
                       if step > 1 else _elementwise.remainder(flat, n))
    return indices


def _check_mask(mask, shape, first_axis):
    """IndexError unless each mask axis has the length of its array axis or, as NumPy
    allows, 0 (an empty mask selects nothing)."""
    for i, (m, n) in enumerate(zip(mask.shape, shape)):
        if m != n and m != 0:
            raise IndexError(f"boolean index did not match indexed array along axis "
                             f"{first_axis + i}; size of axis is {n} but size of "
                             f"corresponding boolean axis is {m}")


def _masked_select(x, mask):
    """1-D array of the elements of ``x`` where the same-shaped ``mask`` is
    true, in C order (aclnnMaskedSelect; synchronises the stream to read the
    data-dependent length with aclGetViewShape)."""
    if x.dtype not in _MASKED_SELECT_DTYPES:
        return _masked_select_bits(x, mask)
    for hook in _transfer.host_read_hooks:
        hook("boolean mask indexing (a data-dependent shape)")
    stream = _ops.stream_of(x)
    out = _ops.empty((x.size,), x.dtype, x.device, stream)
    if x.size == 0:
        return out
    _ops.launch("aclnnMaskedSelect", x, mask, out, stream=stream)
    stream.synchronize()
    shape = _ops.view_shape(out)
    return out._view((shape[0] if shape else 1,), (1,), 0)


# hicann/ops-math aclnnMaskedSelect docs (docs/acl-abi.md §7.2)
_MASKED_SELECT_DTYPES = frozenset(map(np.dtype, (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.float16, np.float32,
    np.float64, bfloat16)))


def _masked_select_bits(x, mask):
    """``_masked_select`` for the dtypes aclnnMaskedSelect lacks, which it only has to
    move: unsigned ones as the signed dtype of the same width, complex ones as
    (real, imag) pairs selected by the mask repeated over the pair."""
    if x.dtype.kind == "c":
        parts = _manipulation.complex_parts(x)
        pairs = _manipulation.broadcast_to(mask.reshape(mask.shape + (1,)), parts.shape)
        flat = _masked_select(parts, pairs)
        return _array_type.NPUArray._from_buffer(flat._buffer, (flat.size // 2,), (1,), 0, x.dtype)
    flat = _masked_select(_same_bits(x), mask)
    return _array_type.NPUArray._from_buffer(flat._buffer, flat.shape, (1,), 0, x.dtype)


def _front(view, axes):
    """``view`` with ``axes`` moved to the front, the other axes after in order."""
    rest = [a for a in range(view.ndim) if a not in axes]
    return _manipulation.permute_dims(view, list(axes) + rest), rest


def _place(result, count, at):
    """Move the ``count`` leading axes of ``result`` to position ``at``."""
    if not at:
        return result
    order = list(range(count, count + at)) + list(range(count)) + \
        list(range(count + at, result.ndim))
    return _manipulation.permute_dims(result, order)


def _index_arrays(view, advanced):
    """(axes, int64 index arrays broadcast to one shape) for the advanced entries."""
    axes, arrays = [], []
    for axis, entry in advanced:
        if isinstance(entry, _Mask):
            mask = entry.array
            _check_mask(mask, view.shape[axis:axis + mask.ndim], axis)
            axes.extend(range(axis, axis + mask.ndim))
            arrays.extend(_nonzero(mask))
        else:
            axes.append(axis)
            arrays.append(_device_index(entry, view.shape[axis], axis, view.device))
    try:
        shape = _manipulation.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         f"with shapes {' '.join(str(a.shape) for a in arrays)}") from None
    return axes, [_ops.copy(_manipulation.broadcast_to(a, shape)) for a in arrays], shape


def _advanced_get(x, entries):
    view, advanced, adjacent = _split(x, entries)
    if len(advanced) == 1 and isinstance(advanced[0][1], _Mask):
        axis, mask = advanced[0][0], advanced[0][1].array
        _check_mask(mask, view.shape[axis:axis + mask.ndim], axis)
        moved, rest = _front(view, range(axis, axis + mask.ndim))
        rest_shape = tuple(view.shape[a] for a in rest)
        if moved.size == 0 or mask.size == 0:
            count = int(_read_scalar(_statistical.sum(mask), "boolean mask indexing")) \
                if mask.size else 0
            selected = _ops.empty((count,) + rest_shape, x.dtype, x.device,
                                  _ops.stream_of(x))
        else:
            full_mask = _manipulation.broadcast_to(
                mask.reshape(mask.shape + (1,) * len(rest)), moved.shape)
            flat = _masked_select(moved, full_mask)
            selected = flat.reshape((-1,) + rest_shape) if rest_shape else flat
        return _place(selected, 1, axis)
    axes, arrays, shape = _index_arrays(view, advanced)
    moved, rest = _front(view, axes)
    out_shape = tuple(shape) + tuple(view.shape[a] for a in rest)
    stream = _ops.stream_of(x)
    out = _ops.empty(out_shape, x.dtype, x.device, stream)
    if out.size:
        source, target = (moved, out) if x.dtype in _INDEX_DTYPES else \
            (_same_bits(moved), _same_bits(out))  # aclnnIndex only moves the bits
        indices = _ops.acl_tensor_list(arrays, stream)
        _ops.launch("aclnnIndex", source, indices, target, stream=stream)
    return _place(out, len(shape), axes[0]) if adjacent else out


_SIMPLE = (int, slice)  # key entries of the fast path (exact types: bool is excluded)


def getitem(x, key):
    """``x[key]`` with NumPy semantics (see the module docstring): a view for
    basic keys, a device copy for advanced ones. IndexError for out-of-range
    or malformed indices."""
    if type(key) in _SIMPLE and x._shape:
        return _basic_view(x, (key,))
    if type(key) is tuple and len(key) <= len(x._shape) and \
            all(type(k) in _SIMPLE for k in key):
        return _basic_view(x, key)
    entries = _parse(x, key)
    if not _is_advanced(entries):
        return _basic_view(x, entries)
    return _advanced_get(x, entries)


# -- assignment --------------------------------------------------------------------------------

def _is_scalar(value):
    return isinstance(value, (bool, int, float, complex, np.generic))


def _as_device_value(value, dtype, device):
    """``value`` as an NPUArray on ``device`` (host data uploaded as ``dtype``;
    sequences of NPUArrays stacked on the device)."""
    if isinstance(value, _array_type.NPUArray):
        if value.device != device:
            raise ValueError(f"cannot assign an array on npu:{value.device.id} to an "
                             f"array on npu:{device.id}; move it with to_device()")
        return value
    return _transfer.asarray(value, dtype=dtype, device=device)


def _assign(view, value):
    """Write ``value`` (scalar, NPUArray, host array) into ``view``, broadcast."""
    if _is_scalar(value):
        check_scalar_fits(value, view.dtype)
        value = value.item() if isinstance(value, np.generic) else value
        np.array(value, dtype=view.dtype)  # refuse what NumPy refuses (NaN to int)
        _ops.fill_(view, value)
        return
    _ops.copy_(view, _as_device_value(value, view.dtype, view.device))


def _advanced_set(x, entries, value):
    view, advanced, adjacent = _split(x, entries)
    if any(s < 0 for s in view._strides):
        # In-place operators need non-negative strides: work on a copy.
        scratch = _manipulation.copy_array(view)
        _advanced_set(scratch, _rebase(advanced, view.ndim), value)
        _ops.copy_(view, scratch)
        return
    if len(advanced) == 1 and isinstance(advanced[0][1], _Mask) and _is_scalar(value):
        axis, mask = advanced[0][0], advanced[0][1].array
        _check_mask(mask, view.shape[axis:axis + mask.ndim], axis)
        check_scalar_fits(value, view.dtype)
        value = value.item() if isinstance(value, np.generic) else value
        moved, rest = _front(view, range(axis, axis + mask.ndim))
        if moved.size and mask.size:
            full_mask = _manipulation.broadcast_to(
                mask.reshape(mask.shape + (1,) * len(rest)), moved.shape)
            _masked_fill(moved, full_mask, value)
        return
    axes, arrays, shape = _index_arrays(view, advanced)
    moved, rest = _front(view, axes)
    result_shape = tuple(shape) + tuple(view.shape[a] for a in rest)
    if adjacent and axes[0]:  # NumPy's layout of x[key]: the index axes at axes[0]
        numpy_shape = result_shape[len(shape):len(shape) + axes[0]] + tuple(shape) + \
            result_shape[len(shape) + axes[0]:]
    else:
        numpy_shape = result_shape
    values = _as_device_value(value, view.dtype, view.device)
    if values.dtype != view.dtype:
        values = _ops.cast(values, view.dtype)
    try:
        values = _manipulation.broadcast_to(values, numpy_shape)
    except ValueError:
        raise ValueError(f"shape mismatch: value array of shape {values.shape} could not "
                         f"be broadcast to indexing result of shape {numpy_shape}") from None
    if adjacent and axes[0]:
        count = len(shape)
        order = list(range(axes[0], axes[0] + count)) + list(range(axes[0])) + \
            list(range(axes[0] + count, values.ndim))
        values = _manipulation.permute_dims(values, order)
    if not moved.size or not values.size:
        return
    stream = _ops.stream_of(x)
    values = _ops.copy(values)
    if moved.dtype not in _INDEX_PUT_DTYPES:
        moved, values = _same_bits(moved), _same_bits(values)
    indices = _ops.acl_tensor_list(arrays, stream)
    _ops.launch("aclnnIndexPutImpl", moved, indices, values, False, False, stream=stream)


# The dtypes of aclnnInplaceMaskedFillScalar and aclnnIndexPutImpl (docs/acl-abi.md §7.2).
_MASKED_FILL_DTYPES = frozenset(map(np.dtype, (
    np.bool_, np.int8, np.int32, np.int64, np.float16, np.float32, bfloat16)))
_INDEX_PUT_DTYPES = frozenset(map(np.dtype, (
    np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32,
    np.float64, bfloat16)))
# The dtypes of aclnnIndex (docs/acl-abi.md §7.2: no uint16/32/64, no complex128).
_INDEX_DTYPES = frozenset(map(np.dtype, (
    np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32,
    np.float64, bfloat16, np.complex64)))
# aclnnIndex and aclnnIndexPutImpl only move values, so the dtypes they lack go through a
# view of the same bytes: unsigned as signed of the same width, complex as trailing
# (real, imag) pairs.
_SAME_WIDTH_SIGNED = {np.dtype(np.uint16): np.dtype(np.int16),
                      np.dtype(np.uint32): np.dtype(np.int32),
                      np.dtype(np.uint64): np.dtype(np.int64)}


def _same_bits(a):
    """A view of ``a``'s bytes as a dtype aclnnIndex and aclnnIndexPutImpl support."""
    if a.dtype in _SAME_WIDTH_SIGNED:
        return _array_type.NPUArray._from_buffer(a._buffer, a.shape, a._strides, a._offset,
                                     _SAME_WIDTH_SIGNED[a.dtype])
    return _manipulation.complex_parts(a)


def _masked_fill(target, mask, value):
    """``target[mask] = value`` for a same-shaped bool ``mask``: aclnnInplaceMaskedFillScalar,
    or aclnnSWhere(mask, value, target) into ``target`` for the dtypes the former lacks."""
    if target.dtype in _MASKED_FILL_DTYPES:
        _ops.launch("aclnnInplaceMaskedFillScalar", target, mask,
                    _ops.acl_scalar(value, target.dtype))
        return
    filler = _creation.full((), value, dtype=target.dtype, device=target.device)
    _ops.launch("aclnnSWhere", mask, filler, target, target)


def _rebase(advanced, ndim):
    """Entries indexing a copy of the split view as ``advanced`` indexed it."""
    starts = dict(advanced)
    entries, axis = [], 0
    while axis < ndim:
        entry = starts.get(axis)
        entries.append(slice(None) if entry is None else entry)
        axis += 1 if entry is None else _consumed(entry)
    return entries


def setitem(x, key, value):
    """``x[key] = value`` with NumPy semantics: ``value`` (a scalar, NPUArray,
    NumPy array or nested list) is broadcast to ``x[key]``'s shape and cast to
    ``x.dtype``. Runs on the current stream. ValueError for shapes that do not
    broadcast, arrays on another device or a read-only (broadcast) ``x``;
    IndexError for bad indices; OverflowError for Python ints that do not fit
    the dtype."""
    if key is Ellipsis:
        _set_all(x, value)
        return
    _manipulation.check_writable(x)
    entries = _parse(x, key)
    if not _is_advanced(entries):
        _assign(_basic_view(x, entries), value)
        return
    _advanced_set(x, entries, value)


def _set_all_in_python(x, value):
    """``x[...] = value`` by the general path (``x[...]`` is ``x`` itself); returns ``x``."""
    _manipulation.check_writable(x)
    _assign(x, value)
    return x


# x[...] = y for an NPUArray y of x's shape and dtype on x's device: aclnnInplaceCopy(x, y)
# in C (_ops.fast_binary_operator's in-place mode, with the same checks), else the general
# path. (The graph workflow updates its inputs this way between replays.)
_set_all = _ops.fast_binary_operator("aclnnInplaceCopy", _ops.COPY_PLANS, {},
                                     _set_all_in_python, mode="in-place")


# -- take, take_along_axis -------------------------------------------------------------------

# hicann/ops-nn index/gather_elements_v2/docs/aclnnGather.md (self and out)
_GATHER_DTYPES = frozenset(map(np.dtype, (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, bfloat16)))


def _check_take_args(name, x, indices):
    for arg in (x, indices):
        if not isinstance(arg, _array_type.NPUArray):
            raise TypeError(f"{name}() needs NPUArrays, got {type(arg).__name__}")
    if indices.dtype.kind not in "iu":
        raise TypeError(f"{name}(): indices must have an integer dtype, got {indices.dtype}")
    if indices.device != x.device:
        raise ValueError(f"{name}(): indices are on npu:{indices.device.id} and x on "
                         f"npu:{x.device.id}; move one with to_device()")


def take(x, indices, /, *, axis=None):
    """Elements of ``x`` at ``indices`` along ``axis`` (array API ``take``,
    ``numpy.take``): aclnnIndexSelect on the current stream of ``x``'s device.

    ``indices`` is an integer NPUArray (1-D in the standard; N-D as in NumPy gives
    ``x.shape[:axis] + indices.shape + x.shape[axis + 1:]``); negative indices count
    from the end. ``axis`` may be omitted only for 1-D (or 0-d) ``x``. The indices
    are bounds-checked on the device (aclnnAmin / aclnnAmax, one synchronisation):
    an index outside ``[-n, n)`` raises IndexError. TypeError for non-arrays or
    non-integer indices; ValueError for a missing ``axis``; ``AxisError`` for a bad
    one."""
    _check_take_args("take", x, indices)
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"take(): axis is required for a {x.ndim}-D array")
        x, axis = x.reshape((x.size,)), 0
    axis = normalize_axis_index(axis, x.ndim)
    n = x.shape[axis]
    index = _device_index(_Index(indices), n, axis, x.device)
    flat = index.reshape((index.size,))
    shape = x.shape[:axis] + (flat.size,) + x.shape[axis + 1:]
    stream = _ops.stream_of(x)
    out = _ops.empty(shape, x.dtype, x.device, stream)
    if out.size:
        _ops.launch("aclnnIndexSelect", x, axis, flat, out, stream=stream)
    return out.reshape(x.shape[:axis] + indices.shape + x.shape[axis + 1:])


def take_along_axis(x, indices, /, *, axis=-1):
    """Elements of ``x`` at the 1-D ``indices`` along ``axis`` (array API
    ``take_along_axis``, ``numpy.take_along_axis``): aclnnGather on the current
    stream of ``x``'s device.

    ``indices`` is an integer NPUArray with ``x``'s number of axes; outside ``axis``
    the two broadcast against each other, and the result has the broadcast shape
    with ``indices.shape[axis]`` along ``axis``. Negative indices count from the
    end; the indices are bounds-checked on the device (one synchronisation) and
    one outside ``[-n, n)`` raises IndexError. Complex ``x`` is gathered as pairs
    of real numbers (aclnnGather has no complex kernel). TypeError for non-arrays
    or non-integer indices; ValueError when the numbers of axes differ or the
    shapes do not broadcast; ``AxisError`` for a bad ``axis``."""
    _check_take_args("take_along_axis", x, indices)
    if indices.ndim != x.ndim:
        raise ValueError(f"take_along_axis(): indices has {indices.ndim} axes, x {x.ndim}: "
                         f"they must match")
    if x.ndim == 0:
        raise ValueError("take_along_axis() needs an array with at least one axis")
    axis = normalize_axis_index(axis, x.ndim)
    n = x.shape[axis]
    index = _device_index(_Index(indices), n, axis, x.device)
    outer = _manipulation.broadcast_shapes(x.shape[:axis] + (1,) + x.shape[axis + 1:],
                                           index.shape[:axis] + (1,) + index.shape[axis + 1:])
    source = _manipulation.broadcast_to(x, outer[:axis] + (n,) + outer[axis + 1:])
    index = _manipulation.broadcast_to(index, outer[:axis] + (indices.shape[axis],) +
                                       outer[axis + 1:])
    stream = _ops.stream_of(x)
    out = _ops.empty(index.shape, x.dtype, x.device, stream)
    if not out.size:
        return out
    target = out
    if x.dtype not in _GATHER_DTYPES:  # complex: gather (real, imag) pairs
        source, target = _manipulation.complex_parts(source), _manipulation.complex_parts(out)
        index = _manipulation.broadcast_to(index.reshape(index.shape + (1,)), target.shape)
    _ops.launch("aclnnGather", source, axis, index, target, stream=stream)
    return out
