"""Sorting functions of the array API on the device: sort, argsort.

Both sort along one axis on the current stream of ``x``'s device with aclnnSort
(``stable=True``: it takes a stability flag) or aclnnArgsort (``stable=False``;
CANN does not document it as stable). NaNs sort to the end in both orders, as
NumPy; equal elements keep their original order when ``stable`` (also when
descending, as the standard says).

CANN's kernels put NaN first when descending, so descending floats sort their
negation ascending. Dtypes CANN lacks are sorted through order-preserving keys
made on the device: bool as uint8 (argsort), float64 as int64 keys built from
its bits (values then gathered by the indices), nothing for complex (the
standard does not order complex numbers: TypeError).
"""
import numpy as np

from . import _array_type, _elementwise, _ops
from ._shape import c_strides
from ._data_type import BOOL
from ._elementwise import dtype_kind
from ._operator_table import operator_dtypes
from ._statistical import normalize_axes

__all__ = ["argsort", "sort"]

_INDEX = np.dtype(np.int64)
_UINT8 = np.dtype(np.uint8)
_FLOAT64 = np.dtype(np.float64)
_INT64_MAX = 2**63 - 1
_SORT = operator_dtypes("aclnnSort")
_ARGSORT = operator_dtypes("aclnnArgsort")


def _check(name, x, axis, descending, stable):
    if not isinstance(x, _array_type.NPUArray):
        raise TypeError(f"{name}() needs an NPUArray, got {type(x).__name__}")
    if dtype_kind(x._dtype) == "c":
        raise TypeError(f"{name}() does not support complex dtype {x._dtype}: the array API "
                        f"defines no order on complex numbers")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{name}(): axis must be an int, got {axis!r}")
    for flag, value in (("descending", descending), ("stable", stable)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name}(): {flag} must be a bool, got {value!r}")
    (dim,) = normalize_axes(int(axis), len(x._shape), name)
    return dim


def _float64_keys(x, descending):
    """int64 keys whose ascending order is the order of the float64 ``x`` (or its
    reverse when ``descending``), NaN last: -0.0 becomes +0.0 (they compare
    equal), the bits of negative floats are mirrored (INT64_MAX - bits) so they
    order below the positive ones, and NaN gets the largest key."""
    bits = _elementwise.add(x, 0.0)  # -0.0 + 0.0 == +0.0
    bits = type(bits)._from_buffer(bits._buffer, bits._shape, bits._strides, bits._offset,
                                   _INDEX)
    keys = _elementwise.where(_elementwise.less(bits, 0),
                              _elementwise.subtract(_INT64_MAX, bits), bits)
    if descending:  # no key is INT64_MIN (that would be a NaN), so negation is exact
        keys = _elementwise.negative(keys)
    return _elementwise.where(_elementwise.not_equal(x, x), _INT64_MAX, keys)


def _sort_keys(x, descending, supported):
    """(keys, sort keys descending?, keys are negated x): what the kernel sorts for
    ``x``, in a dtype of ``supported``."""
    kind = dtype_kind(x._dtype)
    if x._dtype == _FLOAT64:
        return _float64_keys(x, descending), False, False
    if x._dtype == BOOL and BOOL not in supported:
        return _ops.cast(x, _UINT8, stream=_ops.stream_of(x)), descending, False
    if kind == "f" and descending:  # CANN puts NaN first when descending
        return _elementwise.negative(x), False, True
    return x, descending, False


def _launch_sort(keys, dim, descending, stable, values):
    """Indices (int64) sorting ``keys`` along ``dim``; the sorted keys go to
    ``values`` when it is given (aclnnSort), else aclnnArgsort unless stable."""
    stream = _ops.stream_of(keys)
    indices = _ops.empty(keys._shape, _INDEX, keys._buffer.device, stream)
    if values is None and not stable:
        _ops.launch("aclnnArgsort", keys, dim, descending, indices, stream=stream)
        return indices
    if values is None:
        values = _ops.empty(keys._shape, keys._dtype, keys._buffer.device, stream)
    _ops.launch("aclnnSort", keys, bool(stable), dim, descending, values, indices,
                stream=stream)
    return indices


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """Indices (int64, the shape of ``x``) that sort ``x`` along ``axis`` (array API
    ``argsort``, ``numpy.argsort``; ``descending`` as the standard): aclnnSort
    when ``stable`` (its values discarded), else aclnnArgsort. NaNs go last in
    both orders. Real dtypes (float64 through int64 keys, bool through uint8).
    Raises TypeError for complex or non-array input, AxisError (a ValueError and
    IndexError) for a bad axis, including any axis of a 0-d array (as NumPy)."""
    dim = _check("argsort", x, axis, descending, stable)
    if 0 in x._shape:
        return _ops.empty(x._shape, _INDEX, x._buffer.device, _ops.stream_of(x))
    keys, keys_descending, _ = _sort_keys(x, descending, _ARGSORT)
    return _launch_sort(keys, dim, keys_descending, stable, None)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """A sorted copy of ``x`` along ``axis`` (array API ``sort``, ``numpy.sort``;
    ``descending`` as the standard): aclnnSort. NaNs go last in both orders;
    float64 is sorted by int64 keys and its values gathered by the resulting
    indices (aclnnIndexSelect), so -0.0 and NaN payloads survive. Same dtypes
    and errors as ``argsort``."""
    dim = _check("sort", x, axis, descending, stable)
    stream = _ops.stream_of(x)
    if 0 in x._shape:
        return _ops.empty(x._shape, x._dtype, x._buffer.device, stream)
    keys, keys_descending, negated = _sort_keys(x, descending, _SORT)
    if keys._dtype != x._dtype:
        return _gather_along(x, _launch_sort(keys, dim, keys_descending, stable, None),
                               dim)
    values = _ops.empty(x._shape, x._dtype, x._buffer.device, stream)
    _launch_sort(keys, dim, keys_descending, stable, values)
    return _elementwise.negative(values) if negated else values


def _gather_along(x, indices, dim):
    """``x`` gathered along ``dim`` by int64 ``indices`` of ``x``'s shape (NumPy
    ``take_along_axis``) with one aclnnIndexSelect over the flattened ``x``: the
    element at a position p is x's element at p with its ``dim`` coordinate
    replaced by ``indices[p]``, i.e. flat(p) + (indices[p] - p[dim]) * stride."""
    stream = _ops.stream_of(x)
    device = x._buffer.device
    source = x if x.is_c_contiguous() else _ops.copy(x, stream=stream)
    shape = x._shape
    size = 1
    for n in shape:
        size *= n
    stride = c_strides(shape)[dim]
    flat = _ops.arange_(_ops.empty((size,), _INDEX, device, stream), 0, size, 1, stream=stream)
    along = _ops.arange_(_ops.empty((shape[dim],), _INDEX, device, stream), 0, shape[dim], 1,
                         stream=stream)
    along = type(along)._from_buffer(along._buffer, tuple(n if i == dim else 1 for i, n in
                                                          enumerate(shape)),
                                     tuple(1 if i == dim else 0 for i in range(len(shape))),
                                     0, _INDEX)
    flat = type(flat)._from_buffer(flat._buffer, shape, c_strides(shape), 0, _INDEX)
    shift = _elementwise.multiply(_elementwise.subtract(indices, along), stride)
    positions = _elementwise.add(flat, shift)
    positions = type(positions)._from_buffer(positions._buffer, (size,), (1,), 0, _INDEX)
    flat_source = type(source)._from_buffer(source._buffer, (size,), (1,), source._offset,
                                            source._dtype)
    out = _ops.empty((size,), x._dtype, device, stream)
    _ops.launch("aclnnIndexSelect", flat_source, 0, positions, out, stream=stream)
    return type(out)._from_buffer(out._buffer, shape, c_strides(shape), 0,
                                  x._dtype)
