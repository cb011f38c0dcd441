"""Statistical reductions of the array API on the device: sum, mean, max, min.

Each runs one aclnn reduction (aclnnReduceSum, aclnnMean, aclnnAmax,
aclnnAmin) over the given axes on the current stream of ``x``'s device and
returns a new array. ``axis`` is None (all axes), an int or a tuple of ints
(negative values count from the end); ``keepdims`` keeps reduced axes as
length 1. Bad axes raise ``numpy.exceptions.AxisError`` (a ValueError and
IndexError), repeated axes ValueError, unsupported dtypes TypeError.
"""
import numpy as np

from . import _data_type, _ops
from ._elementwise import _kind, _supported, _dtypes_of

__all__ = ["sum", "mean", "max", "min"]

_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)
_FLOAT64 = np.dtype(np.float64)

# Dtypes CANN documents for each reduction (reference section 7.2).
_REDUCE_SUM = _dtypes_of("float16", "float32", "float64", "bfloat16", "int8", "int16",
                         "int32", "int64", "uint8", "bool", "complex64", "complex128")
_MEAN = _dtypes_of("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32",
                   "int64", "uint8", "complex64", "complex128")
_AMAX = _dtypes_of("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32",
                   "int64", "uint8", "bool")


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


def _reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _check_array(name, x):
    if not isinstance(x, _ops._array_type or _ops._npuarray_type()):
        raise TypeError(f"{name}() needs an NPUArray, got {type(x).__name__}")


def _reduce(op, x, axes, keepdims, out_dtype, compute, *, acl_dtype_arg):
    """Launches ``op`` reducing ``x`` (cast to ``compute``) over ``axes`` into a
    new array of ``out_dtype`` (through a ``compute`` temporary when they differ)."""
    device = x._buffer.device
    stream = _ops.current_stream(device)
    shape = _reduced_shape(x._shape, axes, keepdims)
    out = _ops.empty(shape, out_dtype, device, stream)
    if 0 in shape:
        return out
    source = x if x._dtype == compute else _ops.cast(x, compute, stream=stream)
    if not axes:  # nothing to reduce: the values themselves
        return _ops.copy_(out, source, stream=stream)
    target = out if out_dtype == compute else _ops.empty(shape, compute, device, stream)
    dims = _ops.acl_int_array(axes)
    if acl_dtype_arg:
        _ops.launch(op, source, dims, keepdims, _data_type.to_acl_dtype(compute), target,
                    stream=stream)
    else:
        _ops.launch(op, source, dims, keepdims, target, stream=stream)
    if target is not out:
        _ops.copy_(out, target, stream=stream)
    return out


def _fill_reduction(x, axes, keepdims, dtype, value):
    """The result of reducing over zero elements: ``value`` everywhere."""
    device = x._buffer.device
    stream = _ops.current_stream(device)
    out = _ops.empty(_reduced_shape(x._shape, axes, keepdims), dtype, device, stream)
    return _ops.fill_(out, value, stream=stream)


def _sum_dtype(dtype):
    """NumPy's / the array API's default accumulation dtype of ``sum``."""
    kind = _kind(dtype)
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
    _check_array("sum", x)
    axes = normalize_axes(axis, len(x._shape), "sum")
    out_dtype = _sum_dtype(x._dtype) if dtype is None else _data_type.normalize_dtype(dtype)
    if 0 in x._shape:
        return _fill_reduction(x, axes, keepdims, out_dtype, 0)
    compute = out_dtype if out_dtype in _REDUCE_SUM else \
        _INT64 if _kind(out_dtype) == "u" else _supported(out_dtype, _REDUCE_SUM, "sum")
    return _reduce("aclnnReduceSum", x, axes, keepdims, out_dtype, compute,
                   acl_dtype_arg=True)


def mean(x, /, *, axis=None, keepdims=False):
    """Arithmetic mean of ``x`` over ``axis`` (array API ``mean``, ``numpy.mean``):
    aclnnMean. Floating and complex dtypes keep their dtype (float16/bfloat16
    accumulate in float32); bool and integers give float64, as NumPy. The mean
    of no elements is nan."""
    _check_array("mean", x)
    axes = normalize_axes(axis, len(x._shape), "mean")
    out_dtype = _FLOAT64 if _kind(x._dtype) in "biu" else x._dtype
    if 0 in x._shape:
        return _fill_reduction(x, axes, keepdims, out_dtype, float("nan"))
    compute = _supported(out_dtype, _MEAN, "mean")
    return _reduce("aclnnMean", x, axes, keepdims, out_dtype, compute, acl_dtype_arg=True)


def _extremum(name, op, x, axis, keepdims):
    _check_array(name, x)
    axes = normalize_axes(axis, len(x._shape), name)
    if _kind(x._dtype) == "c":
        raise TypeError(f"{name}() does not support complex dtype {x._dtype}")
    if x._dtype == _UINT64:
        raise TypeError(f"{name}() does not support dtype uint64: {op} has no uint64 "
                        f"kernel and no wider integer dtype exists")
    if any(x._shape[a] == 0 for a in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no "
                         f"identity")
    compute = _supported(x._dtype, _AMAX, name)
    return _reduce(op, x, axes, keepdims, x._dtype, compute, acl_dtype_arg=False)


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001  array API name
    """Maximum of ``x`` over ``axis`` (array API ``max``, ``numpy.max``), NaN
    propagating: aclnnAmax. Real dtypes except uint64; reducing over a
    zero-length axis raises ValueError, as NumPy."""
    return _extremum("max", "aclnnAmax", x, axis, keepdims)


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001  array API name
    """Minimum of ``x`` over ``axis`` (array API ``min``, ``numpy.min``), NaN
    propagating: aclnnAmin. Real dtypes except uint64; reducing over a
    zero-length axis raises ValueError, as NumPy."""
    return _extremum("min", "aclnnAmin", x, axis, keepdims)
