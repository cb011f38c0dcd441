"""Sorting, searching, and counting (NumPy's chapter): ``sort``, ``argsort``,
``partition``, ``argpartition`` (aclnnSort), ``argmax``/``argmin`` and their NaN-ignoring
forms (aclnnArgMax / aclnnArgMin), ``nonzero``, ``argwhere``, ``flatnonzero``,
``extract`` (aclnnNonzero), ``where`` (aclnnSWhere), ``searchsorted``
(aclnnSearchSorted), ``count_nonzero``, ``lexsort`` and ``sort_complex`` (stable
aclnnSort passes). Work runs on the current stream of the
operands' device.
"""

import numpy as np

from ._core import _elementwise as ew
from ._core import _creation, _indexing, _manipulation, _searching, _sorting, _utility
from ._core._indexing import take
from ._core._searching import count_nonzero, nonzero
from ._operands import (all_nan, as_device, axis_tuple, check_no_unsupported, into, is_array,
                        nan_replaced)
from ._core._array import NPUArray
from ._operands import NO_VALUE, keepdims_flag, operands

__all__ = ["argsort", "sort", "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted",
           "where", "nanargmax", "nanargmin", "argwhere", "flatnonzero", "extract",
           "partition", "argpartition"]


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """Index of the maximum ignoring NaN (``numpy.nanargmax``). ValueError for an
    all-NaN slice (checked with a one-byte read of the device)."""
    result = _nan_arg(_searching.argmax, a, axis, -np.inf, "nanargmax")
    return into(_manipulation.expand_dims(result, axis=axis) if keepdims and axis is not None
                else result, out)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the minimum ignoring NaN (``numpy.nanargmin``)."""
    result = _nan_arg(_searching.argmin, a, axis, np.inf, "nanargmin")
    return into(_manipulation.expand_dims(result, axis=axis) if keepdims and axis is not None
                else result, out)


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


def extract(condition, arr):
    """The elements of the flattened ``arr`` where the flattened ``condition`` is
    non-zero (``numpy.extract``)."""
    arr = _manipulation.reshape(as_device(arr, "extract"), (-1,))
    condition = _manipulation.reshape(as_device(condition, "extract"), (-1,))
    return take(arr, _searching.nonzero(condition[:arr.shape[0]])[0])


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


def _nan_arg(function, a, axis, value, name):
    filled, nan = nan_replaced(a, value, name)
    if nan is not None and all_nan(nan, axis, False).size and \
            _utility.any(all_nan(nan, axis, False)).item():
        raise ValueError("All-NaN slice encountered")
    return function(filled, axis=axis)


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


# -- Sorting by several keys; complex sorting --------------------------------------------------

__all__ += ["lexsort", "sort_complex"]


def _lexsort_permutation(keys, axis):
    """The stable permutation ordering by ``keys`` (the last primary): a stable
    aclnnSort per key, from the first to the last, each of the key gathered
    in the current order (aclnnGather)."""
    order = _sorting.argsort(keys[0], axis=axis, stable=True)
    for key in keys[1:]:
        ranked = _indexing.take_along_axis(key, order, axis=axis)
        order = _indexing.take_along_axis(order, _sorting.argsort(ranked, axis=axis,
                                                                  stable=True), axis=axis)
    return order


def lexsort(keys, axis=-1):
    """Indices (int64) that sort by several keys, the last key primary and
    ties broken by the earlier ones (``numpy.lexsort``): ``keys`` a sequence of
    same-shaped arrays or the rows of an array. Stable aclnnSort passes with
    aclnnGather on the keys' stream; a complex key sorts by real part, then
    imaginary part. TypeError for no keys, ValueError for keys of different
    shapes, AxisError for a bad axis."""
    if is_array(keys):
        keys = [keys[i] for i in range(keys.shape[0])] if keys.ndim else []
    keys = [as_device(k, "lexsort") for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if any(k.shape != keys[0].shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    # A complex key orders by real part, then imaginary part: two real keys.
    keys = [part for k in keys for part in ((ew.imag(k), ew.real(k)) if k.dtype.kind == "c"
                                            else (k,))]
    if keys[0].ndim == 0:
        # NumPy sorts 0-d keys as one element, along axis 0 or -1 only.
        axis_tuple(axis, 1)
        return _creation.zeros((), dtype=np.int64, device=keys[0].device)
    (axis,) = axis_tuple(axis, keys[0].ndim)
    return _lexsort_permutation(keys, axis)


def sort_complex(a):
    """``a`` sorted along its last axis by real part, then imaginary part, as a
    complex array (``numpy.sort_complex``): real input sorted (aclnnSort) and
    cast to complex64 (8- and 16-bit integers) or complex128 (the rest, as
    NumPy); complex input ordered by two stable sorts (aclnnSort,
    aclnnGather)."""
    a = as_device(a, "sort_complex")
    if a.ndim == 0:
        raise np.exceptions.AxisError(-1, 0)
    if a.dtype.kind != "c":
        small = a.dtype.kind in "iu" and a.dtype.itemsize <= 2
        return _manipulation.astype(_sorting.sort(a, axis=-1),
                                    np.complex64 if small else np.complex128)
    order = _lexsort_permutation([ew.imag(a), ew.real(a)], a.ndim - 1)
    return _indexing.take_along_axis(a, order, axis=-1)


# -- NumPy's signature and the standard's, in one function (NumPy 2's): the call without
# NumPy's extra keywords is the array API function's own ------------------------------

def _arg_extremum(name, function, a, axis, out, keepdims):
    result = function(as_device(a, name), axis=axis, keepdims=keepdims_flag(keepdims))
    return into(result, out)


def argmax(a, /, axis=None, out=None, *, keepdims=False):
    """Index of the largest element over ``axis`` (``numpy.argmax``, array API
    ``argmax``): aclnnArgMax; ``out`` an int64 NPUArray."""
    return _arg_extremum("argmax", _searching.argmax, a, axis, out, keepdims)


def argmin(a, /, axis=None, out=None, *, keepdims=False):
    """Index of the smallest element over ``axis`` (``numpy.argmin``): aclnnArgMin."""
    return _arg_extremum("argmin", _searching.argmin, a, axis, out, keepdims)


def where(condition, x=NO_VALUE, y=NO_VALUE, /):
    """``x`` where ``condition`` holds, else ``y`` (``numpy.where``, array API
    ``where``: aclnnSWhere); with ``condition`` alone, its ``nonzero`` indices.
    Scalars only give a 0-d device array. ValueError for only one of x, y."""
    if x is NO_VALUE and y is NO_VALUE:
        return _searching.nonzero(as_device(condition, "where"))
    if x is NO_VALUE or y is NO_VALUE:
        raise ValueError("either both or neither of x and y should be given")
    condition = as_device(condition, "where")
    x, y = operands("where", [x, y]) if not (
        isinstance(x, NPUArray) or isinstance(y, NPUArray)) else \
        [as_device(v, "where") if isinstance(v, (np.ndarray, list, tuple)) else v
         for v in (x, y)]
    return ew.where(condition, x, y)


_SORT_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _sort_args(name, a, axis, kind, order):
    if order is not None:
        raise TypeError(f"{name}: order= (fields of structured arrays) is not supported: "
                        f"npuarray arrays have no fields")
    if kind not in _SORT_KINDS:
        raise ValueError(f"{name}: sort kind must be one of 'quick', 'heap', or 'stable' "
                         f"(got {kind!r})")
    a = as_device(a, name)
    if axis is None:
        return _manipulation.reshape(a, (-1,)), -1
    return a, axis


def sort(a, /, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """Sorted copy along ``axis`` (None: of the flattened array) (``numpy.sort``,
    array API ``sort``): aclnnSort, always stable (every ``kind`` gives the stable
    order); ``descending`` as the standard's."""
    a, axis = _sort_args("sort", a, axis, kind, order)
    return _sorting.sort(a, axis=axis, descending=descending, stable=True)


def argsort(a, /, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """Indices that sort ``a`` along ``axis`` (``numpy.argsort``, array API
    ``argsort``): aclnnSort's indices, stable."""
    a, axis = _sort_args("argsort", a, axis, kind, order)
    return _sorting.argsort(a, axis=axis, descending=descending, stable=True)


def searchsorted(a, v, /, side="left", sorter=None):
    """Insertion indices of ``v`` into the sorted 1-D ``a`` (``numpy.searchsorted``,
    array API ``searchsorted``): aclnnSearchSorted. ``v`` an array, a host array or
    a Python or NumPy scalar; ``sorter`` the indices that sort ``a``."""
    if isinstance(v, np.generic):
        v = v.item()  # compared by value; the result is an index either way
    elif isinstance(v, (np.ndarray, list, tuple)):
        v = as_device(v, "searchsorted")
    if sorter is not None:
        sorter = as_device(sorter, "searchsorted")
    return _searching.searchsorted(as_device(a, "searchsorted"), v, side=side, sorter=sorter)
