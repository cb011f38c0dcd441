"""Statistics (NumPy's chapter): order statistics (``max``, ``min``, ``ptp``,
``percentile``, ``quantile``, ``median`` and their NaN-ignoring forms), averages and
variances (``mean``, ``average``, ``std``, ``var``, ``nanmean``...), correlating
(``cov``, ``corrcoef``) and histograms (``histogram``, ``histogram2d``, ``histogramdd``,
``histogram_bin_edges``, ``bincount``, ``digitize``), with NumPy's
signatures, composed on the device from the array API reductions, aclnnSort,
aclnnSearchSorted, aclnnGather and aclnnCumsum. Work runs on the current stream of
the operands' device.
"""
import builtins
import math
import operator
import warnings

import numpy as np

from ._core import _creation, _manipulation, _ops, _searching, _sorting, _utility
from ._core import _elementwise as ew
from ._core import _statistical as st
from ._core._data_type import BFLOAT16
from ._core._indexing import take, take_along_axis
from ._core._linear_algebra import matmul
from ._core._transfer import asarray
from ._indexing import diagonal
from ._math import amax, amin
from ._operands import (as_device, axis_argument, axis_tuple, check_no_unsupported, float_dtype,
                        into, is_array, nan_replaced)
from ._core._data_type import normalize_dtype
from ._core._array import NPUArray
from ._math import sum
from ._operands import NO_VALUE, keepdims_flag

__all__ = ["mean", "std", "var", "ptp", "nanmean", "nanvar", "nanstd",
           "average", "quantile", "percentile", "median", "nanquantile", "nanpercentile",
           "nanmedian", "bincount", "histogram", "cov", "corrcoef"]


# -- NumPy signatures of the array API reductions ------------------------------------------

def numpy_mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``numpy.mean`` (aclnnMean), cast to ``dtype`` when given."""
    check_no_unsupported("mean", where=where)
    a = as_device(a, "mean")
    if dtype is not None and np.dtype(dtype).kind in "fc":
        a = _manipulation.astype(a, dtype, copy=False)
    result = st.mean(a, axis=axis_argument(axis), keepdims=keepdims)
    return into(result if dtype is None else _manipulation.astype(result, dtype, copy=False),
                out)


def _moment(function, a, axis, dtype, out, ddof, keepdims, correction, where):
    check_no_unsupported(function.__name__, where=where)
    a = as_device(a, function.__name__)
    if correction is not None and ddof:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    if dtype is not None:
        a = _manipulation.astype(a, dtype, copy=False)
    result = function(a, axis=axis_argument(axis), correction=ddof if correction is None
                      else correction, keepdims=keepdims)
    return into(result, out)


def numpy_var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
              mean=None, correction=None):
    """``numpy.var`` (aclnnVar or composed; see ``npuarray.var``)."""
    check_no_unsupported("var", mean=mean)
    return _moment(st.var, a, axis, dtype, out, ddof, keepdims, correction, where)


def numpy_std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
              mean=None, correction=None):
    """``numpy.std`` (aclnnStd or composed; see ``npuarray.std``)."""
    check_no_unsupported("std", mean=mean)
    return _moment(st.std, a, axis, dtype, out, ddof, keepdims, correction, where)


def ptp(a, axis=None, out=None, keepdims=False):
    """Range ``max - min`` over ``axis`` (``numpy.ptp``; aclnnAmax, aclnnAmin)."""
    a = as_device(a, "ptp")
    return into(ew.subtract(amax(a, axis, keepdims=keepdims), amin(a, axis, keepdims=keepdims)),
                out)


# -- NaN-ignoring reductions ---------------------------------------------------------------

def _nan_count(a, nan, axis, keepdims):
    """Number of non-NaN elements over ``axis``, in a's (floating) dtype."""
    valid = ew.logical_not(nan) if nan is not None else ew.equal(a, a)
    return st.sum(valid, axis=axis_argument(axis), dtype=float_dtype(a.dtype), keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean of the non-NaN elements; NaN for an all-NaN slice (``numpy.nanmean``)."""
    a = as_device(a, "nanmean")
    compute = np.dtype(dtype) if dtype is not None else float_dtype(a.dtype)
    a = _manipulation.astype(a, compute, copy=False)
    filled, nan = nan_replaced(a, 0, "nanmean")
    total = st.sum(filled, axis=axis_argument(axis), keepdims=keepdims)
    return into(ew.divide(total, _nan_count(a, nan, axis, keepdims)), out)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance of the non-NaN elements, divided by count - ``ddof``; NaN when
    that is <= 0 (``numpy.nanvar``)."""
    a = as_device(a, "nanvar")
    compute = np.dtype(dtype) if dtype is not None else float_dtype(a.dtype)
    a = _manipulation.astype(a, compute, copy=False)
    filled, nan = nan_replaced(a, 0, "nanvar")
    count = _nan_count(a, nan, axis, True)
    mean = ew.divide(st.sum(filled, axis=axis_argument(axis), keepdims=True), count)
    deviation = ew.subtract(a, mean)
    if nan is not None:
        deviation = ew.where(nan, 0, deviation)
    squares = ew.real(ew.multiply(deviation, ew.conj(deviation))) \
        if compute.kind == "c" else ew.multiply(deviation, deviation)
    divisor = ew.subtract(count, ddof)
    result = ew.divide(st.sum(squares, axis=axis_argument(axis), keepdims=True),
                       ew.where(ew.greater(divisor, 0), divisor, np.nan))
    if not keepdims:
        result = _manipulation.squeeze(result, axis=axis_tuple(axis, a.ndim)) \
            if a.ndim else result
    return into(result, out)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Square root of ``nanvar`` (``numpy.nanstd``)."""
    return into(ew.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims)), out)


# -- weighted average ----------------------------------------------------------------------

def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weighted mean over ``axis`` (``numpy.average``): ``sum(a * w) / sum(w)``;
    ``weights`` has ``a``'s shape, or is 1-D along a single ``axis``.
    ``returned``: also the sum of the weights, broadcast to the result.
    ZeroDivisionError is not raised: a zero weight sum gives inf / NaN.
    TypeError / ValueError for weights of the wrong shape."""
    a = as_device(a, "average")
    if weights is None:
        avg = st.mean(a, axis=axis_argument(axis), keepdims=keepdims)
        if not returned:
            return avg
        count = a.size // builtins.max(avg.size, 1)  # elements averaged per result
        return avg, _creation.full(avg.shape, count, dtype=avg.dtype, device=a.device)
    w = as_device(weights, "average")
    dtype = float_dtype(np.result_type(a.dtype, w.dtype))
    a, w = _manipulation.astype(a, dtype, copy=False), _manipulation.astype(w, dtype, copy=False)
    if w.shape != a.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = axis_tuple(axis, a.ndim)
        if w.shape != tuple(a.shape[i] for i in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        shape = [1] * a.ndim
        for i in axes:
            shape[i] = a.shape[i]
        w = _manipulation.reshape(w, tuple(shape))
    total = st.sum(_manipulation.broadcast_to(w, a.shape), axis=axis_argument(axis), keepdims=keepdims)
    avg = ew.divide(st.sum(ew.multiply(a, w), axis=axis_argument(axis), keepdims=keepdims), total)
    return (avg, total) if returned else avg


# -- order statistics ----------------------------------------------------------------------

_QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")
# median's method: "midpoint" with NumPy's median arithmetic, the mean of the two middle
# elements (_middle_mean) rather than an interpolation.
_MEDIAN = object()


def _quantile_levels(q, name, device):
    """``q`` as a device float64 array (0-d or 1-D); ValueError outside [0, 1]."""
    if isinstance(q, (list, tuple, int, float, np.ndarray, np.generic)):
        levels = np.asarray(q, dtype=np.float64)
        if levels.ndim > 1:
            raise ValueError(f"{name}: q must be a scalar or 1-D")
        if not ((levels >= 0) & (levels <= 1)).all():
            raise ValueError("Quantiles must be in the range [0, 1]")
        return asarray(levels, device=device)
    levels = _manipulation.astype(as_device(q, name), np.float64, copy=False)
    if levels.ndim > 1:
        raise ValueError(f"{name}: q must be a scalar or 1-D")
    if levels.size and not _utility.all(ew.logical_and(ew.greater_equal(levels, 0),
                                                       ew.less_equal(levels, 1))).item():
        raise ValueError("Quantiles must be in the range [0, 1]")
    return levels


def _lerp(low, high, t):
    """NumPy's interpolation ``low + (high - low) * t``, from ``high`` when t >= 0.5
    (exact at both ends). As NumPy, ``high - low`` is computed in the elements' own
    dtype (wrapping for integers), the rest in the promoted dtype of ``t``."""
    diff = ew.subtract(high, low)
    return ew.where(ew.greater_equal(t, 0.5), ew.subtract(high, ew.multiply(diff, 1 - t)),
                    ew.add(low, ew.multiply(diff, t)))


def _reduced_last(a, axes):
    """``a`` with the ``axes`` moved to the end and merged into one: (kept..., N)."""
    kept = [i for i in range(a.ndim) if i not in axes]
    moved = _manipulation.permute_dims(a, tuple(kept + list(axes)))
    count = 1
    for i in axes:
        count *= a.shape[i]
    return _manipulation.reshape(moved, tuple(a.shape[i] for i in kept) + (count,))


def _quantile_dtype(dtype, q):
    """The result dtype NumPy 2 gives: ``a``'s dtype promoted with ``q``'s, a Python
    number being weak (``percentile(float32, 50)`` is float32, ``[5, 50]`` float64),
    float64 where that is not floating."""
    if dtype == BFLOAT16 or dtype.kind == "b" or (isinstance(q, (builtins.bool, int, float))
                                                  and not isinstance(q, np.generic)):
        return float_dtype(dtype)
    promoted = np.result_type(dtype, q.dtype if is_array(q) else np.asarray(q).dtype)
    return float_dtype(promoted)


def _quantile(a, q, axis, out, method, keepdims, name, *, ignore_nan):
    a = as_device(a, name)
    if a.dtype.kind == "c":
        raise TypeError(f"{name}: complex input is not supported (as in NumPy)")
    if method not in _QUANTILE_METHODS and method is not _MEDIAN:
        raise ValueError(f"{name}: method {method!r} is not supported by npuarray "
                         f"(supported: {', '.join(_QUANTILE_METHODS)})")
    levels = _quantile_levels(q, name, a.device)
    # NumPy keeps the dtype for the methods that pick an element
    dtype = a.dtype if method in ("lower", "higher", "nearest") and a.dtype.kind in "iuf" \
        else _quantile_dtype(a.dtype, q)
    axes = axis_tuple(axis, a.ndim)
    rows = _reduced_last(_manipulation.reshape(a, (1,)) if a.ndim == 0 else a,
                         axes if a.ndim else (0,))
    if rows.dtype == np.bool_:
        rows = _manipulation.astype(rows, np.uint8)
    if not ignore_nan and rows.shape[-1] and rows.dtype in _KTHVALUE_DTYPES \
            and not is_array(q):
        result = _selected_quantiles(rows, np.asarray(q, dtype=np.float64).reshape(-1), method,
                                     dtype)
    else:
        result = _sorted_quantiles(rows, levels, method, dtype, ignore_nan)
    return into(_quantile_layout(result, levels.ndim, a.shape, axes, keepdims), out)


# Dtypes of aclnnKthvalue (CANN's aclnnKthvalue.md, Atlas A2 / A3 column).
_KTHVALUE_DTYPES = frozenset(map(np.dtype, (np.float16, np.float32, np.int8, np.int16, np.int32,
                                            np.int64, np.uint8)))


def _kth_smallest(rows, rank):
    """The element of ``rank`` (from 0) of each row (last axis): aclnnKthvalue."""
    stream = _ops.stream_of(rows)
    values = _ops.empty(rows.shape[:-1], rows.dtype, rows.device, stream)
    indices = _ops.empty(rows.shape[:-1], np.dtype(np.int64), rows.device, stream)
    _ops.launch("aclnnKthvalue", rows, rank + 1, -1, False, values, indices, stream=stream)
    return values


def _selected_quantiles(rows, levels, method, dtype):
    """Quantiles at the host ``levels`` from the order statistics they need, each
    found by aclnnKthvalue in linear time (no sort): (kept..., nq)."""
    last = rows.shape[-1] - 1
    position = levels * last
    low = np.floor(position).astype(np.int64)
    # NumPy interpolates towards the next element even at a whole position (inf there
    # gives NaN); "higher" and the median take the element at the ceiling
    high = np.ceil(position).astype(np.int64) if method is _MEDIAN or method == "higher" \
        else np.minimum(low + 1, last)
    if method == "nearest":
        low = high = np.clip(np.around(position), 0, last).astype(np.int64)
    needed = set(low.tolist()) | (set() if method in ("lower", "nearest") else
                                  set(high.tolist()))
    raw = {r: _kth_smallest(rows, r) for r in sorted(needed)}

    def gathered(ranks, as_dtype=True):
        values = _manipulation.stack([raw[r] for r in ranks.tolist()], axis=-1)
        return _manipulation.astype(values, dtype, copy=False) if as_dtype else values

    result = gathered(low) if method in ("lower", "nearest") else \
        gathered(high) if method == "higher" else None
    if result is None:
        frac = position - low
        if method is _MEDIAN:
            result = gathered(low) if (frac == 0).all() else \
                _middle_mean(gathered(low), gathered(high), dtype)
        else:
            if method == "midpoint":
                frac = np.where(frac == 0, 0.0, 0.5)
            result = _manipulation.astype(
                _lerp(gathered(low, False), gathered(high, False),
                      _to_device(frac.astype(dtype), rows)), dtype, copy=False)
    if dtype.kind == "f" and rows.dtype.kind == "f":  # a NaN in the row (its max) gives NaN
        result = ew.where(ew.isnan(st.max(rows, axis=-1, keepdims=True)), np.nan, result)
    return result


def _to_device(values, like):
    return asarray(values, device=like.device)


def _sorted_quantiles(rows, levels, method, dtype, ignore_nan):
    """Quantiles at the device ``levels`` from the rows sorted with aclnnSort (NaN
    last; ``ignore_nan``: each row uses its non-NaN prefix): (kept..., nq)."""
    rows = _sorting.sort(rows, axis=-1)
    length = rows.shape[-1]
    kept = rows.shape[:-1]
    flat = _manipulation.reshape(levels, (-1,))
    if ignore_nan and dtype.kind == "f" and rows.dtype.kind == "f":
        count = st.sum(ew.logical_not(ew.isnan(rows)), axis=-1, dtype=np.int64, keepdims=True)
        position = ew.multiply(flat, _manipulation.astype(ew.subtract(count, 1), np.float64))
        empty = ew.equal(count, 0)
    else:
        position = ew.multiply(flat, float(length - 1))
        empty = None
    position = _manipulation.broadcast_to(position, kept + flat.shape)
    low = ew.floor(position)
    frac = _manipulation.astype(ew.subtract(position, low), dtype)
    last = builtins.max(length - 1, 0)
    low_index = _manipulation.astype(ew.clip(low, 0, last), np.int64)
    above = ew.ceil(position) if method == "higher" else ew.add(low, 1)  # as above
    if empty is not None:  # the next element of the non-NaN prefix
        above = ew.minimum(above, _manipulation.astype(ew.subtract(count, 1), np.float64))
    high_index = _manipulation.astype(ew.clip(above, 0, last), np.int64)
    if method == "nearest":
        low_index = high_index = _manipulation.astype(ew.clip(ew.round(position), 0, last),
                                                      np.int64)
    result = _interpolate(rows, low_index, high_index, frac, method, dtype)
    if empty is not None:
        result = ew.where(empty, np.nan, result)
    elif dtype.kind == "f" and rows.dtype.kind == "f" and length:
        result = ew.where(ew.isnan(rows[..., -1:]), np.nan, result)  # NaN propagates
    return result


def _interpolate(rows, low_index, high_index, frac, method, dtype):
    if rows.shape[-1] == 0:
        return _creation.full(low_index.shape, np.nan, dtype=dtype, device=rows.device)
    low_raw = _gather_last(rows, low_index)
    low = _manipulation.astype(low_raw, dtype, copy=False)
    if method in ("lower", "nearest"):
        return low
    high_raw = _gather_last(rows, high_index)
    high = _manipulation.astype(high_raw, dtype, copy=False)
    if method == "higher":
        return high
    if method is _MEDIAN:
        return ew.where(ew.equal(frac, 0), low, _middle_mean(low, high, dtype))
    if method == "midpoint":
        frac = ew.where(ew.equal(frac, 0), frac, 0.5)
    return _manipulation.astype(_lerp(low_raw, high_raw, frac), dtype, copy=False)


def _middle_mean(low, high, dtype):
    """NumPy's median of an even slice: the ``mean`` of its two middle elements, their
    sum halved (in float32 for float16, as ``numpy.mean`` accumulates it)."""
    compute = np.dtype(np.float32) if dtype == np.float16 else dtype
    total = ew.add(_manipulation.astype(low, compute, copy=False),
                   _manipulation.astype(high, compute, copy=False))
    return _manipulation.astype(ew.divide(total, 2), dtype, copy=False)


def _gather_last(rows, index):
    if rows.ndim == 1:
        return take(rows, index)
    return take_along_axis(rows, index, axis=-1)


def _quantile_layout(result, q_ndim, shape, axes, keepdims):
    """(kept..., nq) -> NumPy's layout: the q axis first (dropped for a scalar
    q), then the kept axes, or ``shape`` with the reduced axes of length 1."""
    result = _manipulation.moveaxis(result, -1, 0)
    if keepdims:
        kept_shape = tuple(1 if i in axes else n for i, n in enumerate(shape))
        result = _manipulation.reshape(result, result.shape[:1] + kept_shape)
    if q_ndim == 0:
        result = _manipulation.reshape(result, result.shape[1:])
    return result


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """The ``q``-th quantiles (``q`` in [0, 1], scalar or 1-D) of ``a`` over
    ``axis`` (``numpy.quantile``): the neighbouring order statistics selected by
    aclnnKthvalue (one launch each, no sort) for host ``q`` and the dtypes it
    takes, else aclnnSort along the reduced axes and aclnnGather; then NumPy's interpolation
    for ``method`` "linear" (default), "lower", "higher", "nearest",
    "midpoint". A slice holding NaN gives NaN. Floating input keeps its dtype,
    integers give float64. ValueError for q outside [0, 1] or another method,
    TypeError for complex input or ``weights``."""
    check_no_unsupported("quantile", weights=weights, interpolation=interpolation)
    return _quantile(a, q, axis, out, method, keepdims, "quantile", ignore_nan=False)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """``quantile(a, q / 100, ...)`` (``numpy.percentile``)."""
    check_no_unsupported("percentile", weights=weights, interpolation=interpolation)
    return _quantile(a, _percent(q, "percentile"), axis, out, method, keepdims,
                     "percentile", ignore_nan=False)


def _percent(q, name):
    """``q / 100``, keeping what NumPy's result dtype depends on: a Python number stays
    one (weak), NumPy scalars and arrays keep their dtype, sequences become float64."""
    if isinstance(q, (builtins.bool, int, float)) and not isinstance(q, np.generic):
        return q / 100
    if isinstance(q, (list, tuple)):
        return np.true_divide(np.asarray(q, dtype=np.float64), 100)
    if isinstance(q, (np.ndarray, np.generic)):
        return np.true_divide(q, 100)
    return ew.divide(as_device(q, name), 100)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median over ``axis``: the middle element of the slice in sorted order, or
    the mean of the two middle ones, computed as NumPy does (their sum halved;
    ``numpy.median``). The middle elements are selected by aclnnKthvalue (no
    sort); float64, which aclnnKthvalue lacks, is sorted (aclnnSort). NaN for a
    slice holding NaN (aclnnAmax of the slice); floating input keeps its dtype,
    integers give float64. Runs on the current stream."""
    return _quantile(a, 0.5, axis, out, _MEDIAN, keepdims, "median", ignore_nan=False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    """``quantile`` of the non-NaN elements; NaN for an all-NaN slice
    (``numpy.nanquantile``): NaNs sort last, so each slice interpolates among
    its first ``count(non-NaN)`` sorted elements."""
    check_no_unsupported("nanquantile", weights=weights, interpolation=interpolation)
    return _quantile(a, q, axis, out, method, keepdims, "nanquantile", ignore_nan=True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    """``nanquantile(a, q / 100, ...)`` (``numpy.nanpercentile``)."""
    check_no_unsupported("nanpercentile", weights=weights, interpolation=interpolation)
    return _quantile(a, _percent(q, "nanpercentile"), axis, out, method, keepdims,
                     "nanpercentile", ignore_nan=True)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median of the non-NaN elements; NaN for an all-NaN slice (``numpy.nanmedian``)."""
    return _quantile(a, 0.5, axis, out, _MEDIAN, keepdims, "nanmedian", ignore_nan=True)


# -- counting ------------------------------------------------------------------------------

def _counts_by_value(index, length, weights):
    """For k in [0, length): how many elements of the int32 or int64 1-D ``index`` (all in
    [0, length)) equal k, as int64, or the sum of their ``weights`` (float32 or
    float64, that dtype): aclnnBincount."""
    stream = _ops.stream_of(index)
    dtype = np.dtype(np.int64) if weights is None else weights.dtype
    out = _ops.empty((length,), dtype, index.device, stream)
    if length:
        _ops.launch("aclnnBincount", index, weights, 0, out, stream=stream)
    return out


def bincount(x, weights=None, minlength=0):
    """Number of occurrences (or sum of ``weights``) of each value 0..max(x) of
    the non-negative 1-D integer array ``x``, at least ``minlength`` long
    (``numpy.bincount``). The length depends on the data: min(x) and max(x)
    are read from the device (16 bytes) to size the result. TypeError for
    non-integer ``x``, ValueError for negative values, ``x`` not 1-D or
    ``weights`` of another shape."""
    x = as_device(x, "bincount")
    if x.dtype.kind not in "biu":
        raise TypeError(f"Cannot cast array data from dtype('{x.dtype}') to "
                        f"dtype('int64') according to the rule 'safe'")
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1
                         else "object of too small depth for desired array")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if weights is not None:
        weights = _manipulation.astype(as_device(weights, "bincount"), np.float64)
        if weights.shape != x.shape:
            raise ValueError("The weights and list don't have the same length.")
    length = minlength
    if x.size:
        low, high = _manipulation.stack([st.min(x), st.max(x)]).tolist()
        if low < 0:
            raise ValueError("'list' argument must have no negative elements")
        length = builtins.max(int(high) + 1, minlength)
    if not x.size:
        return _creation.zeros((length,), dtype=np.float64 if weights is not None
                               else np.int64, device=x.device)
    return _counts_by_value(_manipulation.astype(x, np.int64, copy=False), length, weights)


def _uniform_bin_index(a, edges, low, high, bins):
    """Bin of each element of ``a`` for ``bins`` equal bins between the edges
    ``low`` and ``high``, ``bins`` for elements outside: NumPy's computation
    (scaled position, then corrected against the actual edges)."""
    scaled = ew.multiply(ew.divide(ew.subtract(a, low), high - low), bins)
    index = _manipulation.astype(scaled, np.int64)
    inside = ew.logical_and(ew.greater_equal(a, low), ew.less_equal(a, high))
    index = ew.where(inside, ew.clip(index, 0, bins - 1), 0)
    index = ew.subtract(index, _manipulation.astype(ew.less(a, take(edges, index)), np.int64))
    above = ew.logical_and(ew.greater_equal(a, take(edges, ew.add(index, 1))),
                           ew.not_equal(index, bins - 1))
    index = ew.add(index, _manipulation.astype(above, np.int64))
    return ew.where(inside, index, bins)


# aclnnSearchSorted's dtypes (hicann/ops-math math/search_sorted/docs/aclnnSearchSorted.md)
_SEARCHSORTED_FLOATS = frozenset(map(np.dtype, (np.float16, np.float32, np.float64)))


def _searchable_edges(edges, low, high, bins):
    """The uniform ``edges`` with the last one moved up one ulp (so that
    aclnnSearchSorted, right side, puts an element equal to it in the last bin), or
    None where NumPy's bin numbers may differ from the position among the edges:
    edges closer than a few ulps (NumPy's arithmetic index, corrected by one
    bin at most, is exact only when they are apart), or no float above the last."""
    dtype = edges.dtype
    if dtype not in _SEARCHSORTED_FLOATS:
        return None
    host = (np.arange(bins + 1, dtype=type(low)) * ((high - low) / type(low)(bins)) + low)
    host[bins] = high
    host = host.astype(dtype)
    with np.errstate(over="ignore"):  # edges at the dtype's largest finite value
        top = np.nextafter(host[bins], dtype.type(np.inf))
        gap = 8 * np.spacing(np.max(np.abs(host)))
    if not (np.isfinite(top) and np.isfinite(gap)) or np.min(np.diff(host)) <= gap:
        return None
    moved = asarray(np.array([top], dtype), device=edges.device)
    return _manipulation.concat([edges[:bins], moved])


def _searched_bin_counts(a, searchable, bins, weights):
    """Counts (or sums of ``weights``) of the elements of ``a`` in each of the ``bins``
    bins of the ``_searchable_edges``: aclnnSearchSorted (right side, int32) gives
    0 below the first edge, ``bins + 1`` above the last or for NaN, then
    aclnnBincount over ``bins + 2``."""
    stream = _ops.stream_of(a)
    a = _manipulation.astype(a, searchable.dtype, copy=False)
    index = _ops.empty(a.shape, np.dtype(np.int32), a.device, stream)
    _ops.launch("aclnnSearchSorted", searchable, a, True, True, None, index, stream=stream)
    return _counts_by_value(index, bins + 2, weights)[1:bins + 1]


def _check_bins_apart(low, high, bins, dtype):
    """ValueError where NumPy's histogram refuses equal bins: edges (numpy.linspace of
    the bins + 1 edges, on the host) that do not increase strictly, a range too narrow
    for the dtype."""
    host = np.linspace(low, high, bins + 1, dtype=dtype)
    if np.any(host[:-1] >= host[1:]):
        raise ValueError(f"Too many bins for data range. Cannot create {bins} "
                         f"finite-sized bins.")


# aclnnHistc's self dtypes (hicann/ops-math math/histogram_v2/docs/aclnnHistc.md) whose
# elements compare with NumPy's edges exactly: float32 against float32 edges, integers
# (converted to float64 as NumPy converts them) against float64 edges.
_HISTC_EDGE_DTYPES = {np.dtype(np.float32): np.dtype(np.float32),
                      **{np.dtype(t): np.dtype(np.float64)
                         for t in (np.int8, np.int16, np.int32, np.int64, np.uint8)}}


def _histc_fits(a, edges):
    return a.dtype in _HISTC_EDGE_DTYPES and _HISTC_EDGE_DTYPES[a.dtype] == edges.dtype


def _histc_counts(a, bins, low, high):
    """int64 counts of the elements of ``a`` in ``bins`` equal bins from ``low`` to
    ``high`` (scalars of the dtype NumPy computes the edges in): one aclnnHistc pass,
    whose edges are NumPy's (computed in that dtype) when they are well apart
    (``_searchable_edges``)."""
    stream = _ops.stream_of(a)
    out = _ops.empty((bins,), np.dtype(np.int64), a.device, stream)
    scalar_dtype = np.dtype(type(low))
    _ops.launch("aclnnHistc", a, bins, _ops.acl_scalar(float(low), scalar_dtype),
                _ops.acl_scalar(float(high), scalar_dtype), out, stream=stream)
    return out


def _edge_bin_index(a, edges):
    bins = edges.shape[0] - 1
    index = ew.subtract(_searching.searchsorted(edges, a, side="right"), 1)
    index = ew.where(ew.equal(a, edges[-1]), bins - 1, index)
    inside = ew.logical_and(ew.greater_equal(a, edges[0]), ew.less_equal(a, edges[-1]))
    return ew.where(inside, index, bins)


def _histogram_edges(a, bins, range_, dtype):
    """(edges, low, high) of ``bins`` equal bins over ``range_`` or a's range (read
    from the device: two scalars). As NumPy, the edges are computed in the
    type of the range (a's floating dtype, or float64 for a given range or
    integer data): ``arange * step + low`` on the device, the last edge set to
    ``high``, then cast to ``dtype``."""
    if range_ is not None:
        low, high = (float(v) for v in range_)
        if low > high:
            raise ValueError("max must be larger than min in range parameter.")
        compute = np.dtype(np.float64)
    elif a.size:
        compute = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
        low, high = _manipulation.stack([st.min(a), st.max(a)]).tolist()
    else:
        low, high, compute = 0.0, 1.0, np.dtype(np.float64)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError(f"autodetected range of [{low}, {high}] is not finite")
    low, high = compute.type(low), compute.type(high)
    if low == high:
        low, high = low - compute.type(0.5), high + compute.type(0.5)
    step = (high - low) / compute.type(bins)
    edges = ew.add(ew.multiply(_creation.arange(bins + 1, dtype=compute, device=a.device),
                               step), low)
    edges[bins] = high
    return _manipulation.astype(edges, dtype, copy=False), low, high


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002  NumPy's name
    """Histogram of the flattened ``a`` (``numpy.histogram``): ``bins`` equal bins
    over ``range`` (default: a's min and max, read from the device) or the given
    monotonic edges; the last bin includes its right edge, values outside are
    ignored. Other equal bins whose edges are a few ulps apart or more are found
    by aclnnSearchSorted on the edges and counted by aclnnBincount (two passes
    over ``a``); closer edges follow NumPy's arithmetic bin numbers (aclnnSWhere,
    aclnnGather), as do explicit edges (aclnnSearchSorted), then aclnnBincount.
    Runs on the current stream. Returns (hist,
    bin_edges): int64 counts, or float64 sums of ``weights``, or a float64
    density; given edges are returned in their own dtype, as NumPy. A string
    ``bins`` names one of NumPy's estimators ("auto", "fd", "doane", "rice",
    "scott", "sqrt", "stone", "sturges"), computed from statistics read from
    the device. ValueError for an unknown estimator, bins < 1, non-monotonic
    edges, a non-finite range or one too narrow for ``bins`` distinct edges in
    the dtype (NumPy's "Too many bins"); TypeError for an estimator with weights.
    Equal bins of float32 or integer data without weights, whose edges are a
    few ulps apart or more, are counted in one aclnnHistc pass."""
    a = _manipulation.reshape(as_device(a, "histogram"), (-1,))
    dtype = float_dtype(a.dtype)
    if isinstance(bins, str):
        bins = _estimated_bin_count(a, bins, range, weights)
    searchable = index = None
    if isinstance(bins, (int, np.integer)):
        if bins < 1:
            raise ValueError("`bins` must be positive, when an integer")
        edges, low, high = _histogram_edges(a, int(bins), range, dtype)
        _check_bins_apart(low, high, int(bins), dtype)
        searchable = _searchable_edges(edges, low, high, int(bins)) if a.size else None
        if searchable is None:
            index = _uniform_bin_index(a, edges, low, high, int(bins))
    else:
        edges = _explicit_edges(bins, a.device, "bins")
        compare = np.result_type(a.dtype, edges.dtype)  # as NumPy's comparisons promote
        index = _edge_bin_index(_manipulation.astype(a, compare, copy=False),
                                _manipulation.astype(edges, compare, copy=False))
    count = edges.shape[0] - 1
    if weights is not None:
        weights = _manipulation.reshape(as_device(weights, "histogram"), (-1,))
        if weights.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
        weights = _manipulation.astype(weights, float_dtype(weights.dtype))
    if not a.size:
        hist = _creation.zeros((count,), dtype=np.int64 if weights is None else weights.dtype,
                               device=a.device)
    elif weights is None and searchable is not None and _histc_fits(a, edges):
        hist = _histc_counts(a, count, low, high)
    elif searchable is not None:
        hist = _searched_bin_counts(a, searchable, count, weights)
    else:
        hist = _counts_by_value(index, count + 1, weights)[:count]
    if density:
        widths = _manipulation.astype(_utility.diff(edges), np.float64)
        hist = ew.divide(ew.divide(hist, widths), st.sum(hist))
    return hist, edges


# -- covariance ----------------------------------------------------------------------------

def _observations(m, y, rowvar, dtype, name):
    x = as_device(m, name)
    if x.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    # NumPy computes in at least float64: result_type(m, y, float64).
    compute = np.dtype(dtype) if dtype is not None else np.result_type(x.dtype, np.float64)
    if y is not None:
        y = as_device(y, name)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
        compute = np.result_type(compute, float_dtype(y.dtype)) if dtype is None else compute
    x = _manipulation.astype(_at_least_2d(x), compute)
    if not rowvar and x.shape[0] != 1:
        x = _manipulation.permute_dims(x, (1, 0))
    if y is not None:
        y = _manipulation.astype(_at_least_2d(y), compute)
        if not rowvar and y.shape[0] != 1:
            y = _manipulation.permute_dims(y, (1, 0))
        x = _manipulation.concat([x, y], axis=0)
    return x


def _at_least_2d(x):
    return x if x.ndim == 2 else _manipulation.reshape(x, (1, -1))


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """Covariance matrix of the variables in the rows of ``m`` (columns when not
    ``rowvar``), with ``y`` as extra variables (``numpy.cov``): the deviations
    from the (weighted) means, multiplied by their conjugate transpose with
    aclnnMatmul, divided by N - ddof (``bias``: N) or NumPy's weighted
    normalisation for ``fweights`` / ``aweights``. ValueError for more than
    2 dimensions or weights of another length."""
    x = _observations(m, y, rowvar, dtype, "cov")
    if ddof is None:
        ddof = 0 if bias else 1
    weights = None
    if fweights is not None:
        weights = _manipulation.astype(as_device(fweights, "cov"), np.float64)
    if aweights is not None:
        aw = _manipulation.astype(as_device(aweights, "cov"), np.float64)
        weights = aw if weights is None else ew.multiply(weights, aw)
    if weights is not None and weights.shape != (x.shape[1],):
        raise ValueError("incompatible numbers of samples and weights")
    avg, weight_sum = average(x, axis=1, weights=weights, returned=True)
    weight_sum = weight_sum[0]
    if weights is None:
        factor = x.shape[1] - ddof
    elif ddof == 0:
        factor = weight_sum
    elif aweights is None:
        factor = ew.subtract(weight_sum, ddof)
    else:
        factor = ew.subtract(weight_sum, ew.divide(
            ew.multiply(st.sum(ew.multiply(weights, aw)), ddof), weight_sum))
    deviation = ew.subtract(x, _manipulation.expand_dims(avg, axis=1))
    weighted = deviation if weights is None else ew.multiply(deviation, weights)
    product = matmul(deviation, ew.conj(_manipulation.permute_dims(weighted, (1, 0))))
    return _manipulation.squeeze(ew.divide(product, factor))


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients: ``cov`` normalised by the standard
    deviations, real parts clipped to [-1, 1] (``numpy.corrcoef``)."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return ew.divide(c, c)
    d = diagonal(c)
    stddev = ew.sqrt(ew.real(d))
    c = ew.divide(ew.divide(c, _manipulation.expand_dims(stddev, axis=1)),
                  _manipulation.expand_dims(stddev, axis=0))
    if c.dtype.kind == "c":
        return ew.add(ew.clip(ew.real(c), -1, 1), ew.multiply(ew.clip(ew.imag(c), -1, 1), 1j))
    return ew.clip(c, -1, 1)


# -- Binning: digitize, bin edges, multi-dimensional histograms -----------------------------

__all__ += ["digitize", "histogram_bin_edges", "histogramdd", "histogram2d"]


def digitize(x, bins, right=False):
    """Index (int64, ``x``'s shape) of the bin of ``bins`` (1-D, monotonically
    increasing or decreasing) each element of ``x`` falls in
    (``numpy.digitize``): aclnnSearchSorted on the (reversed, when
    decreasing) bins, ``right`` choosing which edge a bin includes. The
    direction is one aclnnAll read by the host. ValueError for bins that are
    not 1-D or not monotonic, TypeError for complex ``x``."""
    x = as_device(x, "digitize")
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    bins = as_device(bins, "digitize")
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array" if bins.ndim > 1 else
                         "object of too small depth for desired array")
    dtype = np.result_type(x.dtype, bins.dtype)
    x, bins = _manipulation.astype(x, dtype, copy=False), _manipulation.astype(bins, dtype,
                                                                              copy=False)
    later, earlier = bins[1:], bins[:-1]  # compared, not subtracted: unsigned bins wrap
    increasing, decreasing = _manipulation.stack(
        [_utility.all(ew.greater_equal(later, earlier)),
         _utility.all(ew.less_equal(later, earlier))]).tolist()
    side = "left" if right else "right"
    if increasing:
        return _searching.searchsorted(bins, x, side=side)
    if not decreasing:
        raise ValueError("bins must be monotonically increasing or decreasing")
    flipped = _manipulation.flip(bins, axis=0)
    return ew.subtract(bins.shape[0], _searching.searchsorted(flipped, x, side=side))


def _explicit_edges(bins, device, name):
    """Given bin edges as a device array (lists uploaded), checked 1-D,
    at least two and increasing (one aclnnAny read by the host)."""
    if is_array(bins):
        edges = bins
    else:
        edges = asarray(np.asarray(bins), device=device)
    if edges.ndim != 1 or edges.shape[0] < 2:
        raise ValueError(f"`{name}` must be 1d, when an array")
    if _utility.any(ew.less(edges[1:], edges[:-1])).item():
        raise ValueError(f"`{name}` must increase monotonically, when an array")
    return edges


def _bin_count(bins, name):
    if isinstance(bins, str):
        raise ValueError(f"{name}: bins={bins!r} estimators are not supported by npuarray")
    try:
        count = operator.index(bins)
    except TypeError:
        raise TypeError(f"`{name}` must be an integer, when a scalar") from None
    if count < 1:
        raise ValueError(f"`{name}` must be positive, when an integer")
    return count


def _edges_dtype(a, range_):
    """The dtype NumPy computes ``a``'s equal-width bin edges in: ``a``'s floating
    dtype, float64 for integers, bool or a given range of Python numbers."""
    return a.dtype if a.dtype.kind == "f" and range_ is None else np.dtype(np.float64)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002  NumPy's name
    """The bin edges ``numpy.histogram`` uses for ``a`` (``numpy.histogram_bin_edges``):
    ``bins + 1`` equal-width edges over ``range`` or ``a``'s min and max (read
    from the device) as ``arange * step + low`` (aclnnArange, aclnnMul,
    aclnnAdd) in ``a``'s floating dtype (float64 for integers), or the given
    edges in their own dtype; a string ``bins`` names one of NumPy's
    estimators, as in ``histogram`` (``weights`` refused with them, as NumPy's
    TypeError). TypeError for complex ``a`` (no order on the device)."""
    a = _manipulation.reshape(as_device(a, "histogram_bin_edges"), (-1,))
    if isinstance(bins, str):
        bins = _estimated_bin_count(a, bins, range, weights)
    if np.ndim(bins) == 0 and not is_array(bins):
        count = _bin_count(bins, "bins")
        edges, low, high = _histogram_edges(a, count, range, float_dtype(a.dtype))
        _check_bins_apart(low, high, count, edges.dtype)
        return edges
    return _explicit_edges(bins, a.device, "bins")


def _sample_columns(sample):
    """The D columns (1-D device arrays of N elements) of an (N, D) array or a
    sequence of D 1-D arrays, as ``numpy.histogramdd`` takes them."""
    if is_array(sample):
        sample = sample if sample.ndim == 2 else _manipulation.reshape(sample, (-1, 1))
        return [sample[:, i] for i in builtins.range(sample.shape[1])]
    columns = [_manipulation.reshape(as_device(c, "histogramdd"), (-1,)) for c in sample]
    if len({c.shape for c in columns}) > 1:
        raise ValueError("setting an array element with a sequence. The requested array has "
                         "an inhomogeneous shape after 1 dimensions.")
    return columns


def _axis_bins(column, bins, range_, i):
    """(edges, bin of each element: 0 below, 1..n inside, n+1 above or NaN) of
    one dimension of ``histogramdd``: aclnnSearchSorted on the edges, the
    right-most edge counted in the last bin (aclnnEqTensor, aclnnSWhere)."""
    if np.ndim(bins) == 0 and not is_array(bins):
        count = _bin_count(bins, f"bins[{i}]")
        edges = _histogram_edges(column, count, range_, _edges_dtype(column, range_))[0]
    else:
        edges = as_device(bins, "histogramdd") if is_array(bins) else \
            asarray(np.asarray(bins), device=column.device)
        if edges.ndim != 1:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
        if _utility.any(ew.less(edges[1:], edges[:-1])).item():
            raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
    dtype = np.result_type(column.dtype, edges.dtype)
    keys = _manipulation.astype(edges, dtype, copy=False)
    values = _manipulation.astype(column, dtype, copy=False)
    index = _searching.searchsorted(keys, values, side="right")
    return edges, ew.where(ew.equal(values, keys[-1]), ew.subtract(index, 1), index)


def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """Multi-dimensional histogram of the N points of ``sample`` ((N, D) array
    or D arrays of N) (``numpy.histogramdd``): per dimension ``bins`` (an int or
    edges, one for all dimensions or one per dimension) over ``range``, each
    point's bin by aclnnSearchSorted, the bins combined into one flat index
    (aclnnMul, aclnnAdd) and counted with aclnnBincount. Returns (hist float64
    of shape (n0, n1, ...), list of edges); ``density`` divides by the total
    and the bin volumes. ValueError for mismatched bins / range counts or
    weights, bad bins as ``histogram``; TypeError for complex samples (no order
    on the device)."""
    columns = _sample_columns(sample)
    dims = len(columns)
    if isinstance(bins, (list, tuple)) or is_array(bins) and bins.ndim:
        if len(bins) != dims:
            raise ValueError("The dimension of bins must be equal to the dimension of the "
                             "sample x.")
    else:
        bins = [bins] * dims
    ranges = [None] * dims if range is None else list(range)
    if len(ranges) != dims:
        raise ValueError("range argument must have one entry per dimension")
    binned = [_axis_bins(c, b, r, i) for i, (c, b, r) in enumerate(zip(columns, bins, ranges))]
    edges = [e for e, _ in binned]
    shape = tuple(e.shape[0] + 1 for e in edges)
    flat = binned[0][1]
    for (_, index), size in zip(binned[1:], shape[1:]):
        flat = ew.add(ew.multiply(flat, size), index)
    if weights is not None:
        weights = _manipulation.reshape(as_device(weights, "histogramdd"), (-1,))
        if weights.shape != flat.shape:
            raise ValueError("weights should have the same shape as the sample's points")
        weights = _manipulation.astype(weights, np.float64)
    hist = _manipulation.astype(_counts_by_value(flat, math.prod(shape), weights), np.float64,
                                copy=False)
    core = tuple(builtins.slice(1, -1) for _ in shape)
    hist = _manipulation.reshape(hist, shape)[core]
    if density:
        total = st.sum(hist)
        for i, e in enumerate(edges):
            widths_shape = [1] * dims
            widths_shape[i] = -1
            hist = ew.divide(hist, _manipulation.reshape(_utility.diff(e), tuple(widths_shape)))
        hist = ew.divide(hist, total)
    return hist, edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """Two-dimensional histogram of the points (``x``, ``y``)
    (``numpy.histogram2d``): :func:`histogramdd` of the two columns; ``bins``
    an int or edges for both, or a pair of them. Returns (hist float64,
    xedges, yedges)."""
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


# -- NumPy's bin-count estimators (bins="auto", "fd", "sturges", ...) ------------------------
# Each reads a few statistics of the data from the device (min, max, std, mean,
# quartiles: scalars in the data's dtype, as NumPy's) and applies NumPy's formula to
# them on the host (numpy/lib/_histograms_impl.py).

def _host_scalar(x):
    return x.to_host()[()]


def _unsigned_subtract(a, b):
    """``a - b`` of NumPy scalars, in the unsigned type for signed integers (NumPy's
    ``_unsigned_subtract``: no overflow)."""
    dtype = np.result_type(a, b)
    if dtype.kind == "i":
        unsigned = np.dtype(f"u{dtype.itemsize}")
        return np.subtract(np.asarray(a, dtype), np.asarray(b, dtype), casting="unsafe",
                           dtype=unsigned)
    return np.subtract(a, b, dtype=dtype)


def _ptp_of(x):
    low, high = _manipulation.stack([st.min(x), st.max(x)]).to_host()
    return _unsigned_subtract(high, low)


def _width_sqrt(x):
    return _ptp_of(x) / np.sqrt(x.size)


def _width_sturges(x):
    return _ptp_of(x) / (np.log2(x.size) + 1.0)


def _width_rice(x):
    return _ptp_of(x) / (2.0 * x.size ** (1.0 / 3))


def _width_scott(x):
    return (24.0 * np.pi ** 0.5 / x.size) ** (1.0 / 3.0) * _host_scalar(st.std(_float(x)))


def _width_fd(x):
    high, low = percentile(x, [75, 25]).to_host()
    return 2.0 * np.subtract(high, low) * x.size ** (-1.0 / 3.0)


def _width_doane(x):
    if x.size <= 2:
        return 0.0
    sg1 = np.sqrt(6.0 * (x.size - 2) / ((x.size + 1.0) * (x.size + 3)))
    values = _float(x)
    sigma = _host_scalar(st.std(values))
    if not sigma > 0.0:
        return 0.0
    skew = ew.divide(ew.subtract(values, st.mean(values)), sigma)
    g1 = _host_scalar(st.mean(ew.multiply(ew.multiply(skew, skew), skew)))
    return _ptp_of(x) / (1.0 + np.log2(x.size) + np.log2(1.0 + np.absolute(g1) / sg1))


def _width_stone(x, range_):
    """Stone's rule: the bin count in 1..max(100, sqrt(n)) minimising the
    estimated L2 risk, one device histogram (aclnnBincount) per candidate."""
    n, ptp_x = x.size, _ptp_of(x)
    if n <= 1 or ptp_x == 0:
        return 0

    def risk(nbins):
        p = ew.divide(histogram(x, bins=nbins, range=range_)[0], n)
        return (2 - (n + 1) * _host_scalar(st.sum(ew.multiply(p, p)))) / (ptp_x / nbins)

    upper = builtins.max(100, int(np.sqrt(n)))
    nbins = builtins.min(builtins.range(1, upper + 1), key=risk)
    if nbins == upper:
        warnings.warn("The number of bins estimated may be suboptimal.", RuntimeWarning,
                      stacklevel=4)
    return ptp_x / nbins


def _width_auto(x):
    fd, sturges = _width_fd(x), _width_sturges(x)
    return builtins.min(fd, sturges) if fd else sturges


_WIDTHS = {"auto": _width_auto, "fd": _width_fd, "doane": _width_doane,
           "rice": _width_rice, "scott": _width_scott, "sqrt": _width_sqrt,
           "sturges": _width_sturges}


def _float(x):
    return x if x.dtype.kind == "f" else _manipulation.astype(x, np.float64)


def _outer_edges(a, range_):
    """NumPy's ``_get_outer_edges``: the range, or a's min and max (NumPy scalars
    read from the device), widened by 0.5 each way when equal."""
    if range_ is not None:
        first, last = range_
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif not a.size:
        first, last = 0, 1
    else:
        first, last = _manipulation.stack([st.min(a), st.max(a)]).to_host()
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _estimated_bin_count(a, name, range_, weights):
    """The number of equal bins NumPy's estimator ``name`` picks for ``a``."""
    if name not in _WIDTHS and name != "stone":
        raise ValueError(f"{name!r} is not a valid estimator for `bins`")
    if weights is not None:
        raise TypeError("Automated estimation of the number of bins is not supported for "
                        "weighted data")
    first, last = _outer_edges(a, range_)
    if range_ is not None:
        a = take(a, _searching.nonzero(ew.logical_and(ew.greater_equal(a, first),
                                                      ew.less_equal(a, last)))[0])
    if not a.size:
        return 1
    width = _width_stone(a, range_) if name == "stone" else _WIDTHS[name](a)
    if not width:
        return 1
    if a.dtype.kind in "iu" and width < 1:
        width = 1
    return int(np.ceil(_unsigned_subtract(last, first) / width))


# -- NumPy's signature and the standard's, in one function (NumPy 2's): the call without
# NumPy's extra keywords is the array API function's own ------------------------------

def _floating(dtype):
    """Whether ``dtype`` is a floating or complex dtype (bfloat16 included)."""
    return dtype.kind in "fc" or dtype == BFLOAT16


def _float_dtype(dtype):
    return dtype if _floating(dtype) else float_dtype(dtype)


def _masked_count(a, axis, keepdims, where, dtype):
    """Number of elements over ``axis`` where ``where`` holds, in ``dtype``."""
    mask = _manipulation.broadcast_to(as_device(where, "mean"), a.shape)
    return st.sum(_manipulation.astype(mask, dtype), axis=axis, keepdims=keepdims)


def mean(a, /, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Arithmetic mean over ``axis`` (``numpy.mean``, array API ``mean``): aclnnMean;
    integers in float64. ``dtype`` the computation and result dtype, ``where`` a
    bool mask of the elements averaged (NaN where none is), ``out`` an NPUArray."""
    keepdims = keepdims_flag(keepdims)
    axis = axis_argument(axis)
    if out is None and dtype is None and where is True and type(a) is NPUArray \
            and _floating(a.dtype):
        return st.mean(a, axis=axis, keepdims=keepdims)
    a = as_device(a, "mean")
    compute = normalize_dtype(dtype) if dtype is not None else _float_dtype(a.dtype)
    compute_in = compute if _floating(compute) else np.dtype(np.float64)
    a = _manipulation.astype(a, compute_in, copy=False)
    if where is True:
        result = st.mean(a, axis=axis, keepdims=keepdims)
    else:
        total = sum(a, axis=axis, keepdims=keepdims, where=where)
        result = ew.divide(total, _masked_count(a, axis, keepdims, where, compute_in))
    if result.dtype != compute:
        result = _manipulation.astype(result, compute)
    return into(result, out)


def _central_moment(name, root, a, axis, dtype, out, ddof, keepdims, where, mean_, correction):
    keepdims = keepdims_flag(keepdims)
    axis = axis_argument(axis)
    if correction is not NO_VALUE and correction is not None:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    function = st.std if root else st.var
    if out is None and dtype is None and where is True and mean_ is NO_VALUE \
            and type(a) is NPUArray and _floating(a.dtype):
        return function(a, axis=axis, correction=ddof, keepdims=keepdims)
    a = as_device(a, name)
    compute = normalize_dtype(dtype) if dtype is not None else _float_dtype(a.dtype)
    a = _manipulation.astype(a, compute if _floating(compute) else np.float64, copy=False)
    if where is True and mean_ is NO_VALUE:
        result = function(a, axis=axis, correction=ddof, keepdims=keepdims)
    else:
        centre = mean(a, axis=axis, keepdims=True, where=where) if mean_ is NO_VALUE \
            else as_device(mean_, name)
        deviation = ew.subtract(a, centre)
        squares = ew.multiply(deviation, ew.conj(deviation)) if a.dtype.kind == "c" \
            else ew.square(deviation)
        if squares.dtype.kind == "c":
            squares = ew.real(squares)
        total = sum(squares, axis=axis, keepdims=keepdims, where=where)
        count = _masked_count(a, axis, keepdims, where, total.dtype) if where is not True \
            else np.prod([a.shape[i] for i in _axes(axis, a.ndim)])
        result = ew.divide(total, ew.maximum(ew.subtract(count, ddof), 0)
                           if not isinstance(count, (int, np.integer)) else
                           builtins.max(count - ddof, 0))
        if root:
            result = ew.sqrt(result)
    if dtype is not None and result.dtype != compute:
        result = _manipulation.astype(result, compute)
    return into(result, out)


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(_manipulation.normalize_axis_tuple(axis, ndim))


def var(a, /, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=NO_VALUE, correction=NO_VALUE):  # noqa: A002  NumPy's name
    """Variance over ``axis`` (``numpy.var``, array API ``var``): aclnnVar, or
    composed on the device for ``where`` / ``mean``. ``ddof`` (NumPy) or
    ``correction`` (the standard) is subtracted from the count (ValueError when
    both are given); ``dtype``, ``out``, ``keepdims``, ``where`` as NumPy's."""
    return _central_moment("var", False, a, axis, dtype, out, ddof, keepdims, where, mean,
                           correction)


def std(a, /, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=NO_VALUE, correction=NO_VALUE):  # noqa: A002  NumPy's name
    """Standard deviation over ``axis`` (``numpy.std``, array API ``std``): aclnnStd
    (or composed), ``ddof`` / ``correction`` as ``var``'s."""
    return _central_moment("std", True, a, axis, dtype, out, ddof, keepdims, where, mean,
                           correction)
