"""Set routines (NumPy's chapter): ``unique`` with NumPy's ``return_*`` options and
the array API's ``unique_all``/``unique_counts``/``unique_inverse``/``unique_values``
(aclnnUnique2, aclnnSort), ``isin``. Work runs on the current stream of the operands'
device.
"""
from ._core import _elementwise as ew
from ._core import _manipulation, _searching, _set
from ._core import _statistical as st
from ._core._set import isin, unique_all, unique_counts, unique_inverse, unique_values
from ._operands import as_device

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values", "unique"]


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
