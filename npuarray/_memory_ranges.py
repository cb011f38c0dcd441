"""NumPy's memory-range routines for NPUArrays (``numpy.shares_memory``,
``numpy.may_share_memory``).

They read only array metadata (device address of the first element, shape,
byte strides, item size, device), never the data: nothing is copied and no
operator runs. An NPUArray and host data never share memory (device memory
and host memory are distinct); two host objects are NumPy's business and
are answered by NumPy.
"""
import numbers

import numpy as np

from ._operands import is_array

__all__ = ["shares_memory", "may_share_memory"]


def _max_work(max_work):
    """NumPy's ``max_work`` validation (ValueError for anything else)."""
    if max_work is None:
        return None
    if isinstance(max_work, bool) or not isinstance(max_work, numbers.Integral):
        raise ValueError("max_work must be an integer")
    if max_work < -1:
        raise ValueError("Invalid value for max_work")
    return int(max_work)


def _bounds(x):
    """The byte range ``[low, high)`` an NPUArray's elements span."""
    low = high = x.data_ptr
    for n, stride in zip(x.shape, x.strides):
        reach = (n - 1) * stride
        low, high = (low + reach, high) if reach < 0 else (low, high + reach)
    return low, high + x.itemsize


def _offsets(x):
    """The sorted distinct byte addresses of an NPUArray's elements."""
    offsets = np.full((), x.data_ptr, dtype=np.int64)
    for n, stride in zip(x.shape, x.strides):
        offsets = np.add.outer(offsets, np.arange(n, dtype=np.int64) * stride)
    return np.unique(offsets)


def _exact_overlap(a, b):
    """True when an element of ``a`` and one of ``b`` overlap in memory: for
    each element of ``b``, the last element of ``a`` starting before its end
    must end after its start."""
    starts_a, starts_b = _offsets(a), _offsets(b)
    before = np.searchsorted(starts_a, starts_b + b.itemsize, side="left")
    found = before > 0
    return bool(np.any(starts_a[before[found] - 1] + a.itemsize > starts_b[found]))


def _device_overlap(a, b, max_work, bounds_only_default):
    """The answer for two NPUArrays (None when they are not both NPUArrays)."""
    if not (is_array(a) and is_array(b)):
        return None
    if a.device != b.device or a.size == 0 or b.size == 0:
        return False
    (low_a, high_a), (low_b, high_b) = _bounds(a), _bounds(b)
    if high_a <= low_b or high_b <= low_a:
        return False
    if max_work == 0 or (max_work is None and bounds_only_default):
        return True
    return _exact_overlap(a, b)


def may_share_memory(a, b, /, max_work=None):
    """Whether ``a`` and ``b`` might share memory (``numpy.may_share_memory``).

    By default (``max_work`` None or 0) only the memory bounds are compared:
    True means the byte ranges the two NPUArrays span overlap on one device.
    ``max_work=-1`` or a positive value answers exactly, as
    :func:`shares_memory`. An NPUArray and host data never share memory;
    two host objects are answered by NumPy. ValueError for a ``max_work``
    that is not an integer of at least -1."""
    max_work = _max_work(max_work)
    answer = _device_overlap(a, b, max_work, bounds_only_default=True)
    if answer is not None:
        return answer
    if is_array(a) or is_array(b):
        return False
    return bool(np.may_share_memory(a, b, max_work=max_work))


def shares_memory(a, b, /, max_work=-1):
    """Whether ``a`` and ``b`` have an element in common in memory
    (``numpy.shares_memory``).

    For two NPUArrays on one device the answer is exact for ``max_work`` -1
    (the default), None or positive: the elements' byte addresses are
    enumerated from the metadata (never exponential, so a positive
    ``max_work`` is never exceeded). ``max_work=0`` compares the bounds only
    and raises ``numpy.exceptions.TooHardError`` when they overlap, as
    NumPy's. An NPUArray and host data never share memory; two host objects
    are answered by NumPy. ValueError for a bad ``max_work``."""
    max_work = _max_work(max_work)
    answer = _device_overlap(a, b, max_work, bounds_only_default=False)
    if answer is True and max_work == 0:
        raise np.exceptions.TooHardError("Exceeded max_work")
    if answer is not None:
        return answer
    if is_array(a) or is_array(b):
        return False
    return bool(np.shares_memory(a, b, max_work=max_work))
