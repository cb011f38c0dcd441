"""Set routines (NumPy's chapter): ``unique`` with NumPy's ``return_*`` options and
the array API's ``unique_all``/``unique_counts``/``unique_inverse``/``unique_values``
(aclnnUnique2, aclnnSort), ``isin``, and the 1-D set operations ``union1d``,
``intersect1d``, ``setdiff1d``, ``setxor1d``. Work runs on the current stream of the operands'
device.
"""
import builtins

import numpy as np

from ._core import _creation, _indexing, _manipulation, _searching, _set, _sorting, _utility
from ._core import _elementwise as ew
from ._core import _statistical as st
from ._core._data_type import result_type
from ._core._indexing import take
from ._core._set import unique_all, unique_counts, unique_inverse, unique_values
from ._operands import as_device
from ._sorting import lexsort

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values", "unique"]


def _unique_flat(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
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
    if return_counts and not (return_index or return_inverse):
        values, counts = _set.unique_counts(flat)  # one aclnnUnique2, no inverse indices
        if equal_nan and floating and values.size:
            values, _, _, counts = _merge_nans(values, None, None, counts)
        return values, counts
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


def _merge_nans(values, index, inverse, counts):
    """The unique results with the trailing NaNs (sorted last, one entry each
    in aclnnUnique2) merged into one entry, as NumPy's ``equal_nan=True``
    (``index`` and ``inverse`` may be None: not computed)."""
    nans = _searching.count_nonzero(ew.isnan(values)).item()
    if nans < 2:
        return values, index, inverse, counts
    first = values.shape[0] - nans
    values = values[:first + 1]
    if index is not None:
        index = _manipulation.concat([index[:first], _manipulation.reshape(
            st.min(index[first:]), (1,))])
    counts = _manipulation.concat([counts[:first], _manipulation.reshape(
        st.sum(counts[first:]), (1,))])
    return values, index, None if inverse is None else ew.minimum(inverse, first), counts


# -- NumPy's set operations on 1-D arrays ----------------------------------------------------

__all__ += ["union1d", "intersect1d", "setdiff1d", "setxor1d"]


def _flat(ar, name):
    return _manipulation.reshape(as_device(ar, name), (-1,))


def _selected(values, mask):
    """``values[mask]`` for a 1-D bool ``mask``: aclnnNonzero then aclnnIndexSelect."""
    return take(values, _searching.nonzero(mask)[0])


def _joined(ar1, ar2, name):
    """The two flattened operands, in their promoted dtype."""
    a, b = _flat(ar1, name), _flat(ar2, name)
    dtype = result_type(a.dtype, b.dtype)
    a = _manipulation.astype(a, dtype, copy=False)
    b = _manipulation.astype(b, dtype, copy=False)
    return a, b


def _stable_order(values):
    """The stable sorting permutation of 1-D ``values``: aclnnSort, complex
    values by real part then imaginary part (``lexsort``), as NumPy orders them."""
    if values.dtype.kind == "c":
        return lexsort([ew.imag(values), ew.real(values)])
    return _sorting.argsort(values, stable=True)


def _sorted(values):
    """1-D ``values`` sorted as NumPy sorts them (complex: by real, then imaginary part)."""
    if values.dtype.kind == "c":
        return take(values, _stable_order(values))
    return _sorting.sort(values)


def union1d(ar1, ar2):
    """Sorted unique values in either of the flattened arrays (``numpy.union1d``):
    ``unique`` of the concatenation (aclnnInplaceCopy, aclnnUnique2), in the
    promoted dtype."""
    a, b = _joined(ar1, ar2, "union1d")
    return unique(_manipulation.concat([a, b]))


def _common_values(a, b, assume_unique):
    """Sorted values in both 1-D ``a`` and ``b`` (of one dtype): the distinct
    values of each (aclnnUnique2, every NaN its own value, as none matches
    anything), then those occurring twice among the distinct values of both
    (aclnnUnique2 with counts, aclnnEqScalar, aclnnNonzero, aclnnIndexSelect).
    A zero in both keeps ``a``'s sign, as a stable sort of the two would."""
    if not assume_unique:
        a, b = _set.unique_values(a), _set.unique_values(b)
    values, counts = _set.unique_counts(_manipulation.concat([a, b]))
    return _selected(values, ew.equal(counts, 2))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """Sorted unique values in both flattened arrays (``numpy.intersect1d``):
    the distinct values of each, then those found twice among the distinct
    values of both (aclnnUnique2, aclnnEqScalar, aclnnNonzero,
    aclnnIndexSelect); three synchronisations for data-dependent lengths, and
    one for the selection. ``return_indices`` adds the index of each value's
    first occurrence in each flattened input (int64): then the uniques of each
    are concatenated and stably sorted (aclnnSort) and equal neighbours kept.
    ``assume_unique`` skips the uniques (then the inputs must be unique)."""
    a, b = _joined(ar1, ar2, "intersect1d")
    if not return_indices:
        return _common_values(a, b, assume_unique)
    index_a = index_b = None
    if not assume_unique:
        a, index_a = unique(a, return_index=True)
        b, index_b = unique(b, return_index=True)
    joined = _manipulation.concat([a, b])
    order = _stable_order(joined)
    ordered = take(joined, order)
    same = ew.equal(ordered[1:], ordered[:-1])
    common = _selected(ordered[:-1], same)
    first = _selected(order[:-1], same)
    second = ew.subtract(_selected(order[1:], same), a.shape[0])
    if index_a is not None:
        first, second = take(index_a, first), take(index_b, second)
    return common, first, second


def setdiff1d(ar1, ar2, assume_unique=False):
    """Sorted unique values of ``ar1`` that are not in ``ar2`` (``numpy.setdiff1d``):
    ``unique(ar1)`` (aclnnUnique2) masked by ``isin(..., invert=True)``; with
    ``assume_unique`` the flattened ``ar1`` in its order."""
    a = _flat(ar1, "setdiff1d")
    a = a if assume_unique else unique(a)
    return _selected(a, isin(a, _flat(ar2, "setdiff1d"), invert=True))


def setxor1d(ar1, ar2, assume_unique=False):
    """Sorted unique values in exactly one of the flattened arrays
    (``numpy.setxor1d``): the uniques of each concatenated and sorted
    (aclnnUnique2, aclnnSort), the values unequal to both neighbours kept."""
    a, b = _joined(ar1, ar2, "setxor1d")
    if not assume_unique:
        a, b = unique(a), unique(b)
    ordered = _sorted(_manipulation.concat([a, b]))
    if not ordered.shape[0]:
        return ordered
    true = _creation.ones((1,), dtype=np.bool_, device=ordered.device)
    flag = _manipulation.concat([true, ew.not_equal(ordered[1:], ordered[:-1]), true])
    return _selected(ordered, ew.logical_and(flag[1:], flag[:-1]))


# -- NumPy's signature and the standard's, in one function (NumPy 2's): the call without
# NumPy's extra keywords is the array API function's own ------------------------------

def isin(element, test_elements, /, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements`` (``numpy.isin``,
    array API ``isin``), in ``element``'s shape; either may be a host array or
    sequence (uploaded). ``assume_unique`` and ``kind`` are hints NumPy may ignore;
    so does npuarray."""
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: {kind!r}. Please use None, 'sort' or 'table'.")
    return _set.isin(as_device(element, "isin"), as_device(test_elements, "isin"),
                     invert=builtins.bool(invert))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):  # noqa: A002  NumPy's name
    """Sorted unique elements (``numpy.unique``), or with ``axis`` the unique
    sub-arrays along it in lexicographic order: a stable sort per column
    (aclnnSort), neighbours compared (aclnnNeTensor, aclnnAny), the first of each
    run kept (aclnnIndexSelect). ``return_index`` (first occurrences),
    ``return_inverse`` and ``return_counts`` as NumPy's."""
    if axis is None:
        return _unique_flat(ar, return_index, return_inverse, return_counts,
                                 equal_nan=equal_nan, sorted=sorted)
    a = as_device(ar, "unique")
    axis = _manipulation.normalize_axis_tuple(axis, a.ndim)[0]
    moved = _manipulation.moveaxis(a, axis, 0)
    n, rest = moved.shape[0], moved.shape[1:]
    rows = _manipulation.reshape(moved, (n, -1))
    order = _creation.arange(n, dtype=np.int64, device=a.device)
    for j in range(rows.shape[1] - 1, -1, -1):  # stable sorts, last key first
        keys = _indexing.take(rows[:, j], order)
        order = _indexing.take(order, _sorting.argsort(keys, stable=True))
    ordered = _indexing.take(rows, order, axis=0)
    first = _creation.ones((builtins.min(n, 1),), dtype=np.bool_, device=a.device)
    changed = _utility.any(ew.not_equal(ordered[1:], ordered[:-1]), axis=1) if n > 1 else \
        _creation.zeros((0,), dtype=np.bool_, device=a.device)
    starts = _manipulation.concat([first, changed])
    positions = _searching.nonzero(starts)[0]
    values = _manipulation.reshape(_indexing.take(ordered, positions, axis=0),
                                   (positions.shape[0],) + rest)
    result = [_manipulation.moveaxis(values, 0, axis)]
    if return_index:
        result.append(_indexing.take(order, positions))
    if return_inverse:
        group = ew.subtract(st.cumulative_sum(_manipulation.astype(starts, np.int64)), 1)
        result.append(_indexing.take(group, _sorting.argsort(order, stable=True)))
    if return_counts:
        ends = _manipulation.concat([positions[1:], _creation.full(
            (1,), n, dtype=np.int64, device=a.device)])
        result.append(ew.subtract(ends, positions))
    return result[0] if len(result) == 1 else tuple(result)
