"""Set functions of the array API standard on the device: unique_all, unique_counts,
unique_inverse, unique_values, isin.

The unique functions run aclnnUnique2 on the flattened input. Its result length
depends on the data, so the current stream is synchronised once and the length
read with aclGetViewShape. Values come out in ascending order (NumPy's order);
equality is the standard's value equality: every NaN is distinct, -0.0 equals
0.0. aclnnUnique2 has no complex kernel: complex values are made int64 keys in
NumPy's complex order first. The first-occurrence indices of ``unique_all`` are
composed on the device from the inverse indices, without a second
synchronisation. isin sorts or compares on the device without synchronising.
"""
from collections import namedtuple

import numpy as np

from . import _array_type, _data_type, _elementwise, _manipulation, _ops, _statistical, _transfer
from ._data_type import BFLOAT16, BOOL, default_index
from ._elementwise import dtype_kind
from ._operator_table import operator_dtypes

__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values", "isin"]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])

# aclnnUnique2 takes every real dtype (hicann/ops-nn index/unique_consecutive/docs/
# aclnnUnique2.md); complex ones go through int64 keys (_complex_keys).
_SEARCHSORTED = operator_dtypes("aclnnSearchSorted")
_SORT = operator_dtypes("aclnnSort")
_ISIN_TENSOR_SCALAR = operator_dtypes("aclnnIsInTensorScalar")
# Equality-preserving casts into the dtypes aclnnSearchSorted takes (uint64 to int64
# wraps modulo 2**64: one-to-one, which is all that equality needs).
_SEARCHABLE = {BOOL: np.dtype(np.uint8), BFLOAT16: np.dtype(np.float32),
               np.dtype(np.uint16): np.dtype(np.int32), np.dtype(np.uint32): np.dtype(np.int64),
               np.dtype(np.uint64): np.dtype(np.int64)}
# isin compares every pair up to this many comparisons, and sorts x2 beyond; pairs are
# compared in blocks of at most this size.
_PAIRWISE_LIMIT = 1 << 22


def _check_array(name, x):
    if not isinstance(x, _array_type.NPUArray):
        raise TypeError(f"{name}() needs an NPUArray, got {type(x).__name__}")


def _prefix(x, length):
    """The first ``length`` elements of the 1-D result ``x`` of a data-dependent
    operator: a view, or a compact copy when most of ``x`` is unused."""
    view = type(x)._from_buffer(x._buffer, (length,), (1,), x._offset, x._dtype)
    return _ops.copy(view) if 2 * length < x._shape[0] else view


def _unique(name, x, want_inverse, want_counts):
    """(values, inverse indices with x's shape or None, counts or None) by aclnnUnique2,
    with one synchronisation of the current stream."""
    _check_array(name, x)
    if dtype_kind(x._dtype) == "c":
        values, inverse, counts, _ = _unique_complex(name, x)
        return values, inverse if want_inverse else None, counts if want_counts else None
    for hook in _transfer.host_read_hooks:
        hook(f"{name} (a data-dependent shape)")
    device = x._buffer.device
    stream = _ops.current_stream(device)
    size = x.size
    source = x.reshape((size,))  # 1-D: the kernel's fast path (a copy only for odd views)
    values = _ops.empty((size,), x._dtype, device, stream)
    inverse = _ops.empty((size,), default_index, device, stream) if want_inverse else None
    counts = _ops.empty((size,), default_index, device, stream) if want_counts else None
    length = 0
    if size:
        _ops.launch("aclnnUnique2", source, True, want_inverse, want_counts, values, inverse,
                    counts, stream=stream)
        stream.synchronize()
        length = _ops.view_shape(values)[0]
    return (_prefix(values, length), inverse.reshape(x._shape) if want_inverse else None,
            _prefix(counts, length) if want_counts else None)


def _ranks(part):
    """For each element of the real 1-D ``part``, the index of its value among the
    sorted distinct values (the inverse of aclnnUnique2; the distinct values
    themselves, and so their number, are not needed: no synchronisation)."""
    stream = _ops.stream_of(part)
    scratch = _ops.empty(part._shape, part._dtype, part.device, stream)
    ranks = _ops.empty(part._shape, default_index, part.device, stream)
    _ops.launch("aclnnUnique2", part, True, True, False, scratch, ranks, None, stream=stream)
    return ranks


def _complex_keys(flat):
    """int64 keys of the complex 1-D ``flat`` whose order is NumPy's complex order,
    equal exactly for equal values: (real, imag) lexicographic, then R + nan j by
    real part, nan + R j by imaginary part, nan + nan j last (a class term of n**2;
    ranks below n). NaN parts have distinct ranks, so such values stay distinct."""
    n = flat.size
    parts = _manipulation.complex_parts(flat)
    real, imag = _ranks(parts[:, 0]), _ranks(parts[:, 1])
    nan_real = _elementwise.not_equal(parts[:, 0], parts[:, 0])
    nan_imag = _elementwise.not_equal(parts[:, 1], parts[:, 1])
    real_first = _elementwise.add(_elementwise.multiply(real, n), imag)
    imag_first = _elementwise.add(_elementwise.multiply(imag, n), real)
    by_imag = _elementwise.logical_and(nan_real, _elementwise.logical_not(nan_imag))
    order = _elementwise.where(by_imag, imag_first, real_first)
    classes = _elementwise.add(_elementwise.multiply(_ops.cast(nan_real, default_index), 2),
                               _ops.cast(nan_imag, default_index))
    return _elementwise.add(_elementwise.multiply(classes, n * n), order)


def _unique_complex(name, x):
    """(values, inverse indices with x's shape, counts, first-occurrence indices) of
    complex ``x`` in NumPy's lexicographic (real, imag) order: aclnnUnique2 has no
    complex kernel, so the distinct pairs (rank of the real part, rank of the
    imaginary part) are found as int64 keys (one synchronisation), and the values
    taken at their first occurrences (aclnnIndexSelect)."""
    flat = x.reshape((x.size,))
    device, stream = x._buffer.device, _ops.stream_of(x)
    if not flat.size:
        nothing = _ops.empty((0,), default_index, device, stream)
        return (_ops.empty((0,), x._dtype, device, stream),
                _ops.empty(x._shape, default_index, device, stream), nothing, nothing)
    _, inverse, counts = _unique(name, _complex_keys(flat), True, True)
    first = _first_indices(inverse, counts._shape[0])
    values = _ops.empty(first._shape, x._dtype, device, stream)
    _ops.launch("aclnnIndexSelect", flat, 0, first, values, stream=stream)
    return values, inverse.reshape(x._shape), counts, first


def _first_indices(inverse, length):
    """Index of the first occurrence of each unique value, from the flat inverse
    indices: the keys ``inverse * n + position`` are distinct, so aclnnUnique2 sorts
    them; the first key of each value's run gives its position (aclnnMaskedSelect of
    the run starts, whose count is the known ``length``: no synchronisation)."""
    n = inverse.size
    stream = _ops.stream_of(inverse)
    if not n:
        return _ops.empty((0,), default_index, inverse.device, stream)
    positions = _ops.arange_(_ops.empty((n,), default_index, inverse.device, stream), 0, n, 1)
    keys = _elementwise.add(_elementwise.multiply(inverse.reshape((n,)), n), positions)
    ordered = _ops.empty((n,), default_index, inverse.device, stream)
    _ops.launch("aclnnUnique2", keys, True, False, False, ordered, None, None, stream=stream)
    groups = _elementwise.floor_divide(ordered, n)
    starts = _manipulation.concat([
        _ops.fill_(_ops.empty((1,), BOOL, inverse.device, stream), True),
        _elementwise.not_equal(groups[1:], groups[:-1])])
    first = _ops.empty((n,), default_index, inverse.device, stream)
    _ops.launch("aclnnMaskedSelect", _elementwise.remainder(ordered, n), starts, first,
                stream=stream)
    return _prefix(first, length)


def unique_values(x, /):
    """The distinct values of the flattened ``x``, ascending (array API
    ``unique_values``, ``numpy.unique_values``): aclnnUnique2 on the current
    stream, synchronised once for the data-dependent length. NaNs are distinct
    and come last; -0.0 and 0.0 are one value. Complex values come in NumPy's
    order (by real, then imaginary part; those with a NaN part last), through
    int64 keys (aclnnUnique2 has no complex kernel; more device work, still one
    synchronisation). TypeError for non-arrays."""
    return _unique("unique_values", x, False, False)[0]


def unique_counts(x, /):
    """``(values, counts)`` of the flattened ``x`` (array API ``unique_counts``,
    ``numpy.unique_counts``): the ascending distinct values and how often each
    occurs (int64). aclnnUnique2, one synchronisation; rules of
    ``unique_values``."""
    values, _, counts = _unique("unique_counts", x, False, True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    """``(values, inverse_indices)`` (array API ``unique_inverse``,
    ``numpy.unique_inverse``): the ascending distinct values and, with ``x``'s
    shape, the int64 index into ``values`` of each element. aclnnUnique2, one
    synchronisation; rules of ``unique_values``."""
    values, inverse, _ = _unique("unique_inverse", x, True, False)
    return UniqueInverseResult(values, inverse)


def unique_all(x, /):
    """``(values, indices, inverse_indices, counts)`` (array API ``unique_all``,
    ``numpy.unique_all``): ``unique_inverse`` and ``unique_counts`` plus the
    index (int64, into the flattened ``x``) of each value's first occurrence.
    aclnnUnique2 (twice), aclnnMaskedSelect and element-wise operators; one
    synchronisation; rules of ``unique_values``."""
    _check_array("unique_all", x)
    if dtype_kind(x._dtype) == "c":
        values, inverse, counts, indices = _unique_complex("unique_all", x)
        return UniqueAllResult(values, indices, inverse, counts)
    values, inverse, counts = _unique("unique_all", x, True, True)
    indices = _first_indices(inverse, values._shape[0])
    return UniqueAllResult(values, indices, inverse, counts)


# ---------------------------------------------------------------------------
# isin

def _out_of_range(value, dtype):
    try:
        _data_type.check_scalar_fits(value, dtype)
    except OverflowError:
        return True
    return False


def _operand(value, dtype, device, stream):
    """An array operand of isin as an NPUArray of ``dtype`` (scalars become 0-d)."""
    if isinstance(value, _array_type.NPUArray):
        return _elementwise.as_dtype(value, dtype, stream)
    return _elementwise.full_scalar(value, dtype, device, stream)


def _isin_pairwise(x1, x2):
    """Whether each element of 1-D ``x1`` equals one of 1-D ``x2``: aclnnEqTensor of
    every pair (in blocks) and aclnnAmax over each row."""
    rows = max(1, _PAIRWISE_LIMIT // x2.size)
    other = x2.reshape((1, x2.size))
    column = x1.reshape((x1.size, 1))
    blocks = [_statistical.max(_elementwise.equal(column[start:start + rows], other), axis=1)
              for start in range(0, x1.size, rows)]
    return blocks[0] if len(blocks) == 1 else _manipulation.concat(blocks)


def _sorted_table(x2):
    """The values of ``x2`` in ascending order: aclnnSort of the flattened values (no
    synchronisation), or for the dtypes it lacks (float64) the distinct values by
    aclnnUnique2 (one synchronisation for their number)."""
    if x2._dtype not in _SORT:
        return _unique("isin", x2, False, False)[0]
    stream = _ops.stream_of(x2)
    flat = x2.reshape((x2.size,))
    table = _ops.empty(flat._shape, flat._dtype, flat.device, stream)
    order = _ops.empty(flat._shape, default_index, flat.device, stream)
    _ops.launch("aclnnSort", flat, False, 0, False, table, order, stream=stream)
    return table


def _isin_sorted(x1, x2):
    """Whether each element of ``x1`` equals one of ``x2``: aclnnSearchSorted of ``x1``
    in the sorted values of ``x2``, aclnnIndexSelect of the value found there and
    aclnnEqTensor."""
    table = _sorted_table(x2)
    stream = _ops.stream_of(x1)
    positions = _ops.empty(x1._shape, default_index, x1.device, stream)
    _ops.launch("aclnnSearchSorted", table, x1, False, False, None, positions, stream=stream)
    positions = _elementwise.minimum(positions, table.size - 1)
    found = _ops.empty((x1.size,), x1._dtype, x1.device, stream)
    _ops.launch("aclnnIndexSelect", table, 0, positions.reshape((x1.size,)), found,
                stream=stream)
    return _elementwise.equal(found.reshape(x1._shape), x1)


def _isin_scalar(x1, value, invert, stream):
    """isin against one Python scalar: aclnnIsInTensorScalar in ``x1``'s dtype."""
    out = _ops.empty(x1._shape, BOOL, x1.device, stream)
    if out.size:
        _ops.launch("aclnnIsInTensorScalar", x1, _ops.acl_scalar(value, x1._dtype), False,
                    bool(invert), out, stream=stream)
    return out


def isin(x1, x2, /, *, invert=False):
    """Whether each element of ``x1`` equals some element of ``x2`` (array API
    ``isin``, ``numpy.isin``; ``invert=True`` negates): a bool array of ``x1``'s
    shape (0-d for a scalar ``x1``). Elements compare by value equality in the
    promoted dtype (NaN matches nothing).

    Runs on the current stream: a Python scalar ``x2`` is one
    aclnnIsInTensorScalar; small inputs compare every pair (aclnnEqTensor,
    aclnnAmax), larger ones search the sorted values of ``x2`` (aclnnSort,
    aclnnSearchSorted, aclnnIndexSelect, aclnnEqTensor); neither synchronises,
    except large float64 ``x2``, sorted as its distinct values by aclnnUnique2
    (one synchronisation). One of ``x1``, ``x2`` may be a Python scalar. TypeError
    when neither is an NPUArray or a scalar is of an unsupported type."""
    arrays = [a for a in (x1, x2) if isinstance(a, _array_type.NPUArray)]
    if not arrays:
        raise TypeError("isin() needs at least one NPUArray operand")
    for value in (x1, x2):
        if not isinstance(value, _array_type.NPUArray):
            _elementwise.scalar_operand("isin", value)
    device = _elementwise.same_device("isin", *arrays)
    stream = _ops.current_stream(device)
    dtype = _data_type.result_type(x1, x2)
    x1_is_array = isinstance(x1, _array_type.NPUArray)
    shape = x1._shape if x1_is_array else ()
    if any(_out_of_range(v, dtype) for v in (x1, x2) if not isinstance(v, _array_type.NPUArray)):
        # an int outside an integer dtype matches nothing, as in NumPy's comparisons
        return _ops.fill_(_ops.empty(shape, BOOL, device, stream), bool(invert), stream=stream)
    if x1_is_array and not isinstance(x2, _array_type.NPUArray) \
            and dtype in _ISIN_TENSOR_SCALAR:
        return _isin_scalar(_elementwise.as_dtype(x1, dtype, stream), x2, invert, stream)
    a = _operand(x1, dtype, device, stream)
    b = _operand(x2, dtype, device, stream)
    if not a.size or not b.size:
        return _ops.fill_(_ops.empty(shape, BOOL, device, stream), bool(invert) and a.size > 0)
    compute = _SEARCHABLE.get(dtype, dtype)
    if a.size * b.size <= _PAIRWISE_LIMIT or compute not in _SEARCHSORTED or dtype_kind(dtype) == "c":
        found = _isin_pairwise(a.reshape((a.size,)), b.reshape((b.size,))).reshape(shape)
    else:
        found = _isin_sorted(_elementwise.as_dtype(a, compute, stream),
                             _elementwise.as_dtype(b, compute, stream))
    return _elementwise.logical_not(found) if invert else found
