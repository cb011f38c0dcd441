"""Statistical functions of the array API on the device: sum, prod, mean, std,
var, max, min, cumulative_sum, cumulative_prod.

Each runs aclnn operators (aclnnReduceSum, aclnnProd/aclnnProdDim, aclnnMean,
aclnnStd, aclnnVar, aclnnAmax, aclnnAmin, aclnnCumsum, aclnnCumprod, composed
with element-wise operators where CANN lacks a dtype) on the current stream of
``x``'s device and returns a new array. ``axis`` is None (all axes), an int or a tuple of ints
(negative values count from the end); ``keepdims`` keeps reduced axes as
length 1. Bad axes raise ``numpy.exceptions.AxisError`` (a ValueError and
IndexError), repeated axes ValueError, unsupported dtypes TypeError.
"""
import numpy as np

from . import _array_type, _data_type, _elementwise, _ops
from ._elementwise import dtype_kind, check_dtype_supported
from ._operator_table import operator_dtypes

__all__ = ["sum", "prod", "mean", "std", "var", "max", "min", "cumulative_sum",
           "cumulative_prod"]

_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)
_FLOAT64 = np.dtype(np.float64)

# The dtypes each reduction takes (kernels/aclnn_dtypes.tsv, the operator table).
_REDUCE_SUM = operator_dtypes("aclnnReduceSum")
_MEAN = operator_dtypes("aclnnMean")
_AMAX = operator_dtypes("aclnnAmax")
_PROD = operator_dtypes("aclnnProd")
_STD_VAR = operator_dtypes("aclnnStd")
_CUMSUM = operator_dtypes("aclnnCumsum")
_CUMPROD = operator_dtypes("aclnnCumprod")
_INT32 = np.dtype(np.int32)


def normalize_axes(axis, ndim, name):
    """``axis`` (None, int or tuple of ints) as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if not isinstance(axis, tuple) else axis
    result = []
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"{name}(): axis must be an int or a tuple of ints, got {a!r}")
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(int(a), ndim)
        result.append(int(a) % ndim)
    if len(set(result)) != len(result):
        raise ValueError(f"{name}(): repeated axis in {axis!r}")
    return tuple(sorted(result))


def reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def check_array(name, x):
    if not isinstance(x, _array_type.NPUArray):
        raise TypeError(f"{name}() needs an NPUArray, got {type(x).__name__}")


# Memoised plans of reductions that launch one operator on ``x`` as it is (no cast, no
# temporary): small reductions are launch-bound, and validating the axes, computing the
# result's shape and making the aclIntArray of dims cost more than the kernel. Keyed by
# _plan_key(); a plan is (operator, the first-phase arguments between self and out, result
# shape, result dtype): ``_ops.reduction_result(x, *plan)`` runs it in one call of the
# operator's C helper, or returns None when that does not apply (a graph capture, negative
# strides) and the caller goes on with the general path. Its aclIntArray of dims stays alive
# (and unchanged) with it.
_plans = {}
_PLAN_CACHE_SIZE = 512


def _plan_key(op, x, axis, keepdims, dtype):
    """The plan cache key of reducing ``x`` with ``op``, or None when the call
    must take the general path: not an array, or an ``axis`` / ``dtype`` that
    could compare equal to a different one (bools equal 0 and 1) or not hash."""
    if not isinstance(x, _array_type.NPUArray):
        return None
    if not (axis is None or type(axis) is int
            or (type(axis) is tuple and all(type(a) is int for a in axis))):
        return None
    if dtype is not None and not isinstance(dtype, (type, np.dtype)):
        return None
    return (op, x._dtype, x._shape, axis, bool(keepdims), dtype)


def reduction_in_c(op):
    """A decorator for a public function or NPUArray method reducing with ``op``
    (aclnnReduceSum for ``sum``, aclnnAmax, aclnnAmin) that calls ``sum``, ``max``
    or ``min`` below for ``(x, axis, keepdims=...)``: such a call whose plan is
    memoised runs in C without entering Python (``_ops.fast_reduction``)."""
    return lambda function: _ops.fast_reduction(op, _plans, function)


def _reduce(op, x, axes, keepdims, out_dtype, compute, *, acl_dtype_arg, key=None):
    """Launches ``op`` reducing ``x`` (cast to ``compute``) over ``axes`` into a
    new array of ``out_dtype`` (through a ``compute`` temporary when they differ).
    A ``key`` (from _plan_key) memoises the launch when it is a single one."""
    device = x._buffer.device
    stream = _ops.current_stream(device)
    shape = reduced_shape(x._shape, axes, keepdims)
    out = _ops.empty(shape, out_dtype, device, stream)
    if 0 in shape:
        return out
    source = x if x._dtype == compute else _ops.cast(x, compute, stream=stream)
    if not axes:  # nothing to reduce: the values themselves
        return _ops.copy_(out, source, stream=stream)
    target = out if out_dtype == compute else _ops.empty(shape, compute, device, stream)
    params = (_ops.dims_array(axes), bool(keepdims))
    if acl_dtype_arg:
        params += (_data_type.to_acl_dtype(compute),)
    if key is not None and source is x and target is out:
        if len(_plans) >= _PLAN_CACHE_SIZE:
            _plans.clear()
        _plans[key] = (op, params, shape, out_dtype)
    _ops.launch(op, source, *params, target, stream=stream)
    if target is not out:
        _ops.copy_(out, target, stream=stream)
    return out


def _fill_reduction(x, axes, keepdims, dtype, value):
    """The result of reducing over zero elements: ``value`` everywhere."""
    device = x._buffer.device
    stream = _ops.current_stream(device)
    out = _ops.empty(reduced_shape(x._shape, axes, keepdims), dtype, device, stream)
    return _ops.fill_(out, value, stream=stream)


def _sum_dtype(dtype):
    """NumPy's / the array API's default accumulation dtype of ``sum``."""
    kind = dtype_kind(dtype)
    if kind in "bi":
        return _INT64
    if kind == "u":
        return _UINT64
    return dtype


def sum(x, /, *, axis=None, dtype=None, keepdims=False):  # noqa: A001  array API name
    """Sum of the elements of ``x`` over ``axis`` (array API ``sum``, ``numpy.sum``):
    aclnnReduceSum.

    ``dtype`` (default: int64 for bool and signed integers, uint64 for unsigned
    integers, ``x.dtype`` for floating and complex) is the accumulation and
    result dtype. Unsigned sums are accumulated in int64 (same bits modulo
    2**64). The sum over no elements is 0.
    """
    key = _plan_key("aclnnReduceSum", x, axis, keepdims, dtype)
    plan = _plans.get(key)
    if plan is not None:
        out = _ops.reduction_result(x, *plan)
        if out is not None:
            return out
    check_array("sum", x)
    axes = normalize_axes(axis, len(x._shape), "sum")
    out_dtype = _sum_dtype(x._dtype) if dtype is None else _data_type.normalize_dtype(dtype)
    if 0 in x._shape:
        return _fill_reduction(x, axes, keepdims, out_dtype, 0)
    compute = _accumulation_compute(out_dtype, _REDUCE_SUM, "sum")
    return _reduce("aclnnReduceSum", x, axes, keepdims, out_dtype, compute,
                   acl_dtype_arg=True, key=key)


def _accumulation_compute(out_dtype, supported, name):
    """The dtype a sum or product into ``out_dtype`` is computed in: ``out_dtype``
    itself when the operator has it; int64 for other integers (the low bits of
    sums and products only depend on the operands' low bits, so casting the
    int64 result to ``out_dtype`` is exact modulo its width); else the nearest
    wider supported dtype."""
    if out_dtype in supported:
        return out_dtype
    if dtype_kind(out_dtype) in "iu":
        return _INT64
    return check_dtype_supported(out_dtype, supported, name)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """Product of the elements of ``x`` over ``axis`` (array API ``prod``,
    ``numpy.prod``): aclnnProd when every axis is reduced, else aclnnProdDim once
    per reduced axis.

    ``dtype`` (default: int64 for bool and signed integers, uint64 for unsigned
    integers, ``x.dtype`` for floating and complex) is the accumulation and
    result dtype; integer products wrap modulo 2**bits as NumPy's. The product
    over no elements is 1. Raises TypeError (non-array input or dtype),
    AxisError (a ValueError and IndexError) for a bad axis."""
    check_array("prod", x)
    axes = normalize_axes(axis, len(x._shape), "prod")
    out_dtype = _sum_dtype(x._dtype) if dtype is None else _data_type.normalize_dtype(dtype)
    if 0 in x._shape:
        return _fill_reduction(x, axes, keepdims, out_dtype, 1)
    compute = _accumulation_compute(out_dtype, _PROD, "prod")
    device = x._buffer.device
    stream = _ops.current_stream(device)
    shape = reduced_shape(x._shape, axes, keepdims)
    out = _ops.empty(shape, out_dtype, device, stream)
    result = x if x._dtype == compute else _ops.cast(x, compute, stream=stream)
    acl_dtype = _data_type.to_acl_dtype(compute)
    if len(axes) == len(x._shape) and axes:
        # aclnnProd writes a 0-d result; keepdims only changes the shape, not the data.
        target = out if out_dtype == compute else _ops.empty(shape, compute, device, stream)
        scalar_view = type(target)._from_buffer(target._buffer, (), (), 0, compute)
        _ops.launch("aclnnProd", result, acl_dtype, scalar_view, stream=stream)
        result = target
    else:
        # Highest axis first, so the lower axes keep their positions.
        for axis_ in reversed(axes):
            reduced = reduced_shape(result._shape, (axis_,), keepdims)
            target = _ops.empty(reduced, compute, device, stream)
            _ops.launch("aclnnProdDim", result, axis_, keepdims, acl_dtype, target,
                        stream=stream)
            result = target
    if result is not out:
        _ops.copy_(out, result, stream=stream)
    return out


def mean(x, /, *, axis=None, keepdims=False):
    """Arithmetic mean of ``x`` over ``axis`` (array API ``mean``, ``numpy.mean``):
    aclnnMean. Floating and complex dtypes keep their dtype (float16/bfloat16
    accumulate in float32); bool and integers give float64, as NumPy. The mean
    of no elements is nan."""
    key = _plan_key("aclnnMean", x, axis, keepdims, None)
    plan = _plans.get(key)
    if plan is not None:
        out = _ops.reduction_result(x, *plan)
        if out is not None:
            return out
    check_array("mean", x)
    axes = normalize_axes(axis, len(x._shape), "mean")
    out_dtype = _FLOAT64 if dtype_kind(x._dtype) in "biu" else x._dtype
    if 0 in x._shape:
        return _fill_reduction(x, axes, keepdims, out_dtype, float("nan"))
    compute = check_dtype_supported(out_dtype, _MEAN, "mean")
    return _reduce("aclnnMean", x, axes, keepdims, out_dtype, compute, acl_dtype_arg=True,
                   key=key)


def _correction_divisor(name, x, axes, correction):
    """M - correction, M the number of elements reduced per result."""
    if isinstance(correction, bool) or not isinstance(correction, (int, float, np.integer,
                                                                   np.floating)):
        raise TypeError(f"{name}(): correction must be an int or a float, got {correction!r}")
    count = 1
    for a in axes:
        count *= x._shape[a]
    return count, count - correction


def _moment_key(op, x, axis, correction, keepdims):
    """The plan cache key of a std / var, or None: _plan_key with the correction, an
    int or a float other than NaN (which would match itself only by identity)."""
    key = _plan_key(op, x, axis, keepdims, None)
    if key is None or type(correction) not in (int, float) or correction != correction:
        return None
    return key + (correction,)


def _moment(name, x, axis, correction, keepdims, *, root):
    """var (``root`` False) or std of ``x``; see ``var``."""
    key = _moment_key("aclnnStd" if root else "aclnnVar", x, axis, correction, keepdims)
    plan = _plans.get(key)
    if plan is not None:
        out = _ops.reduction_result(x, *plan)
        if out is not None:
            return out
    check_array(name, x)
    axes = normalize_axes(axis, len(x._shape), name)
    kind = dtype_kind(x._dtype)
    if kind == "c":
        raise TypeError(f"{name}() does not support complex dtype {x._dtype}")
    count, divisor = _correction_divisor(name, x, axes, correction)
    out_dtype = _data_type.default_float if kind in "biu" else x._dtype
    shape = reduced_shape(x._shape, axes, keepdims)
    device = x._buffer.device
    stream = _ops.current_stream(device)
    if 0 in shape:
        return _ops.empty(shape, out_dtype, device, stream)
    if divisor <= 0:  # the standard's special case (NumPy would give inf or nan)
        return _fill_reduction(x, axes, keepdims, out_dtype, float("nan"))
    if out_dtype in _STD_VAR and axes:
        return _native_moment(x, axes, correction, keepdims, root, count, divisor, stream,
                              key)
    return _composed_moment(x, axes, keepdims, out_dtype, root, divisor, stream)


def _native_moment(x, axes, correction, keepdims, root, count, divisor, stream, key):
    """aclnnStd (integer correction) or aclnnVar (correction 0 or 1), memoised under
    ``key`` (from _moment_key) as a single launch; any other correction scales the
    population moment by M / (M - correction)."""
    shape = reduced_shape(x._shape, axes, keepdims)
    out = _ops.empty(shape, x._dtype, x._buffer.device, stream)
    dims = _ops.dims_array(axes)
    single = None
    if root and float(correction).is_integer():
        single = ("aclnnStd", (dims, int(correction), bool(keepdims)))
    elif not root and correction in (0, 1):
        single = ("aclnnVar", (dims, correction == 1, bool(keepdims)))
    if single is not None:
        op, params = single
        if key is not None:
            if len(_plans) >= _PLAN_CACHE_SIZE:
                _plans.clear()
            _plans[key] = (op, params, shape, x._dtype)
        _ops.launch(op, x, *params, out, stream=stream)
        return out
    if root:
        _ops.launch("aclnnStd", x, dims, 0, keepdims, out, stream=stream)
        return _elementwise.multiply(out, float(np.sqrt(count / divisor)))
    _ops.launch("aclnnVar", x, dims, False, keepdims, out, stream=stream)
    return _elementwise.multiply(out, count / divisor)


def _composed_moment(x, axes, keepdims, dtype, root, divisor, stream):
    """sum((x - mean(x))**2) / (M - correction) in ``dtype`` (two passes, as NumPy)
    from aclnnMean, aclnnSub, aclnnMul, aclnnReduceSum and aclnnDivs: dtypes
    aclnnStd / aclnnVar lack (float64, integers) and reductions over no axes."""
    values = x if x._dtype == dtype else _ops.cast(x, dtype, stream=stream)
    centered = _elementwise.subtract(values, mean(values, axis=axes, keepdims=True))
    squares = sum(_elementwise.multiply(centered, centered), axis=axes, keepdims=keepdims)
    result = _elementwise.divide(squares, float(divisor))
    return _elementwise.sqrt(result) if root else result


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """Variance of ``x`` over ``axis`` (array API ``var``, ``numpy.var`` with
    ``ddof=correction``): sum of squared deviations from the mean divided by
    M - ``correction`` (M: the number of elements reduced).

    float32, float16 and bfloat16 run aclnnVar (correction 0 or 1; other values
    scale the population variance by M / (M - correction)); float64 and
    integers (giving float64) are composed of aclnnMean, aclnnSub, aclnnMul,
    aclnnReduceSum and aclnnDivs. NaN where M - correction <= 0, as the
    standard says. Raises TypeError for complex input or a non-number
    correction, AxisError for a bad axis."""
    return _moment("var", x, axis, correction, keepdims, root=False)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    """Standard deviation of ``x`` over ``axis`` (array API ``std``, ``numpy.std``
    with ``ddof=correction``): the square root of ``var``. float32, float16 and
    bfloat16 run aclnnStd (its int64 correction; a fractional one scales the
    result by sqrt(M / (M - correction))); float64 and integers are composed as
    for ``var``, then aclnnSqrt. Same errors and special cases as ``var``."""
    return _moment("std", x, axis, correction, keepdims, root=True)


def _extremum(name, op, x, axis, keepdims):
    key = _plan_key(op, x, axis, keepdims, None)
    plan = _plans.get(key)
    if plan is not None:
        out = _ops.reduction_result(x, *plan)
        if out is not None:
            return out
    check_array(name, x)
    axes = normalize_axes(axis, len(x._shape), name)
    if dtype_kind(x._dtype) == "c":
        raise TypeError(f"{name}() does not support complex dtype {x._dtype}")
    if any(x._shape[a] == 0 for a in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no "
                         f"identity")
    if x._dtype == _UINT64:
        keys = _reduce(op, uint64_order_keys(x), axes, keepdims, _INT64, _INT64,
                       acl_dtype_arg=False)
        return _reinterpret(_elementwise.add(keys, _UINT64_SHIFT), _UINT64)
    compute = check_dtype_supported(x._dtype, _AMAX, name)
    return _reduce(op, x, axes, keepdims, x._dtype, compute, acl_dtype_arg=False, key=key)


# Adding -2**63 to uint64 bits read as int64 maps 0..2**64-1 onto -2**63..2**63-1 in order
# (it flips the top bit); adding it again maps back.
_UINT64_SHIFT = -2**63


def _reinterpret(x, dtype):
    """The view of ``x``'s bytes as ``dtype`` of the same item size (no copy)."""
    return type(x)._from_buffer(x._buffer, x._shape, x._strides, x._offset, dtype)


def uint64_order_keys(x):
    """int64 keys ordered as the uint64 values of ``x`` (aclnnAdds on the bits):
    how operators without a uint64 kernel order, compare or search uint64."""
    return _elementwise.add(_reinterpret(x, _INT64), _UINT64_SHIFT)


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001  array API name
    """Maximum of ``x`` over ``axis`` (array API ``max``, ``numpy.max``), NaN
    propagating: aclnnAmax. Real dtypes (uint64 through order-preserving int64
    keys); reducing over a zero-length axis raises ValueError, as NumPy."""
    return _extremum("max", "aclnnAmax", x, axis, keepdims)


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001  array API name
    """Minimum of ``x`` over ``axis`` (array API ``min``, ``numpy.min``), NaN
    propagating: aclnnAmin. Real dtypes (uint64 through order-preserving int64
    keys); reducing over a zero-length axis raises ValueError, as NumPy."""
    return _extremum("min", "aclnnAmin", x, axis, keepdims)


# ---------------------------------------------------------------------------
# Cumulative sums and products

def axis_slice(x, dim, start, stop):
    """The view ``x[..., start:stop, ...]`` with the slice on axis ``dim``."""
    return x[(slice(None),) * dim + (slice(start, stop),)]


def _scan_axis(name, x, axis):
    """(x as at least 1-D, the scanned axis): ``axis`` may be omitted for 1-D input
    only; 0-d input is scanned as a 1-element 1-D array, as NumPy does."""
    if not x._shape:
        x = type(x)._from_buffer(x._buffer, (1,), (1,), x._offset, x._dtype)
    if axis is None:
        if len(x._shape) > 1:
            raise ValueError(f"{name}(): axis is required for arrays of more than one "
                             f"dimension (got {len(x._shape)} dimensions)")
        axis = 0
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{name}(): axis must be an int or None, got {axis!r}")
    (dim,) = normalize_axes(int(axis), len(x._shape), name)
    return x, dim


def _scan(name, x, axis, dtype, include_initial, identity, launch_scan, supported):
    """The shared frame of cumulative_sum / cumulative_prod: dtype rules, the
    initial value, casting to an operator dtype and back."""
    check_array(name, x)
    x, dim = _scan_axis(name, x, axis)
    out_dtype = _sum_dtype(x._dtype) if dtype is None else _data_type.normalize_dtype(dtype)
    device = x._buffer.device
    stream = _ops.current_stream(device)
    shape = list(x._shape)
    if include_initial:
        shape[dim] += 1
    out = _ops.empty(tuple(shape), out_dtype, device, stream)
    body = out
    if include_initial:
        _ops.fill_(axis_slice(out, dim, 0, 1), identity, stream=stream)
        body = axis_slice(out, dim, 1, shape[dim])
    if 0 in x._shape:
        return out
    compute = _accumulation_compute(out_dtype, supported, name) if supported else out_dtype
    source = x if x._dtype == compute else _ops.cast(x, compute, stream=stream)
    if compute == out_dtype:
        target = body
    elif compute.itemsize == out_dtype.itemsize and dtype_kind(compute) in "iu" \
            and dtype_kind(out_dtype) in "iu":  # int64 results are the bits of the uint64 ones
        target = type(body)._from_buffer(body._buffer, body._shape, body._strides,
                                         body._offset, compute)
    else:
        target = _ops.empty(x._shape, compute, device, stream)
    launch_scan(source, dim, compute, target, stream)
    if target._dtype != out_dtype:
        _ops.copy_(body, target, stream=stream)
    return out


def _launch_cumsum(source, dim, compute, target, stream):
    _ops.launch("aclnnCumsum", source, dim, _data_type.to_acl_dtype(compute), target,
                stream=stream)


def _launch_cumprod(source, dim, compute, target, stream):
    if compute not in _CUMPROD:  # complex: CANN's aclnnCumprod has no complex kernel
        return _cumprod_by_doubling(source, dim, target, stream)
    _ops.launch("aclnnCumprod", source, _ops.acl_scalar(dim, _INT32),
                _data_type.to_acl_dtype(compute), target, stream=stream)


def _cumprod_by_doubling(source, dim, target, stream):
    """Running products along ``dim`` from aclnnMul in ceil(log2 n) steps
    (Hillis-Steele scan): after the step of width w, y[i] is the product of
    x[i-2w+1 .. i]."""
    n = source._shape[dim]
    running = _ops.copy(source, stream=stream)
    width = 1
    while width < n:
        upper = axis_slice(running, dim, width, n)
        products = _elementwise.multiply(upper, axis_slice(running, dim, 0, n - width))
        _ops.copy_(upper, products, stream=stream)
        width *= 2
    _ops.copy_(target, running, stream=stream)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running sums of ``x`` along ``axis`` (array API ``cumulative_sum``,
    ``numpy.cumulative_sum``): aclnnCumsum.

    ``axis`` may be omitted for 1-D input only (else ValueError); 0-d input is
    treated as 1-D, as NumPy. ``dtype`` (default: int64 for bool and signed
    integers, uint64 for unsigned integers, ``x.dtype`` otherwise) is the
    accumulation and result dtype (unsigned and narrow integer results are
    accumulated in int64, the same bits modulo the result's width).
    ``include_initial`` prepends the additive identity 0 along ``axis`` (the
    result is one longer there). Raises TypeError for non-array input or a bad
    dtype, AxisError for a bad axis."""
    return _scan("cumulative_sum", x, axis, dtype, include_initial, 0, _launch_cumsum,
                 _CUMSUM)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running products of ``x`` along ``axis`` (array API ``cumulative_prod``,
    ``numpy.cumulative_prod``): aclnnCumprod; complex dtypes, which aclnnCumprod
    lacks, are scanned with aclnnMul in log2(n) steps. Same ``axis``, ``dtype``
    and error rules as ``cumulative_sum``; ``include_initial`` prepends the
    multiplicative identity 1."""
    return _scan("cumulative_prod", x, axis, dtype, include_initial, 1, _launch_cumprod,
                 _CUMPROD | {np.dtype(np.complex64), np.dtype(np.complex128)})
