"""Mathematical functions (NumPy's chapter): trigonometric, hyperbolic, rounding,
exponents and logarithms, arithmetic, complex parts, extrema (``maximum``, ``amax``,
``nanmax``...), sums, products and differences (``sum``, ``cumsum``, ``nansum``,
``diff``...) and the miscellaneous ones (``clip``, ``sqrt``, ``convolve``, ``interp``).

The array API's element-wise functions are aclnn operators (``_core._elementwise``);
NumPy's other names here are aliases of them or compositions on the device, each on
the current stream of the operands' device. Integer inputs of the floating functions
compute in float64, as NumPy's ufunc loops do. The ``numpy_*`` functions are the
NumPy-signature forms (``numpy.sum(a, axis, dtype, out, keepdims)``) that
``numpy.sum(x)`` on an NPUArray reaches through ``__array_function__``.
"""
import math

import numpy as np

from ._core import _creation, _manipulation, _searching
from ._core import _elementwise as ew
from ._core import _statistical as st
from ._core._data_type import result_type
from ._core._elementwise import (abs, acos, acosh, add, asin, asinh, atan, atan2, atanh, ceil,
                                 clip, conj, copysign, cos, cosh, divide, exp, expm1, floor,
                                 floor_divide, hypot, imag, log, log1p, log2, log10, logaddexp,
                                 maximum, minimum, multiply, negative, nextafter, positive, pow,
                                 real, reciprocal, remainder, round, sign, signbit, sin, sinh,
                                 sqrt, square, subtract, tan, tanh, trunc)
from ._core._indexing import take
from ._core._linear_algebra import matmul
from ._core._statistical import cumulative_prod, cumulative_sum, prod, sum
from ._core._utility import diff
from ._operands import (all_nan, as_device, axis_argument, check_no_unsupported, float_dtype,
                        into, is_array, nan_replaced)

__all__ = ["abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "ceil",
           "clip", "conj", "copysign", "cos", "cosh", "divide", "exp", "expm1", "floor",
           "floor_divide", "hypot", "imag", "log", "log10", "log1p", "log2", "logaddexp",
           "maximum", "minimum", "multiply", "negative", "nextafter", "positive", "pow",
           "real", "reciprocal", "remainder", "round", "sign", "signbit", "sin", "sinh",
           "sqrt", "square", "subtract", "tan", "tanh", "trunc", "cumulative_prod",
           "cumulative_sum", "prod", "sum", "diff", "around", "rint", "fix", "deg2rad",
           "rad2deg", "sinc", "exp2", "cbrt", "heaviside", "fabs", "fmax", "fmin",
           "nan_to_num", "convolve", "correlate", "amax", "amin", "cumsum", "cumprod",
           "nanprod", "nanmax", "nanmin", "nancumsum", "nancumprod", "interp",
           "absolute", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
           "arctanh", "degrees", "mod", "nansum", "power", "radians", "true_divide"]

# Same functions as the array API's, under NumPy's names.
arcsin, arccos, arctan, arctan2 = ew.asin, ew.acos, ew.atan, ew.atan2
arcsinh, arccosh, arctanh = ew.asinh, ew.acosh, ew.atanh
absolute, power, true_divide, mod = ew.abs, ew.pow, ew.divide, ew.remainder


def _floating(x, name):
    """``x`` as a device array of the floating dtype NumPy's statistics and
    non-ufunc functions compute in (float64 for bool and integers)."""
    x = as_device(x, name)
    dtype = float_dtype(x.dtype)
    return x if x.dtype == dtype else _manipulation.astype(x, dtype)


def _ufunc_floating(x, name):
    """``x`` as a device array of the floating dtype NumPy's unary ufunc loops
    pick: the smallest that holds the integers exactly (int8 -> float16,
    int16 -> float32, int32 and int64 -> float64)."""
    x = as_device(x, name)
    if x.dtype.kind in "fc":
        return x
    return _manipulation.astype(x, np.promote_types(x.dtype, np.float16))


def around(a, decimals=0):
    """Round to ``decimals`` decimals, halves to even (``numpy.around`` /
    ``numpy.round``): aclnnRound of ``a * 10**decimals`` divided back, as NumPy
    computes it; integers are returned as they are for ``decimals >= 0`` and
    rounded in float64 and cast back otherwise."""
    a = as_device(a, "around")
    if decimals == 0:
        return ew.round(a)
    if a.dtype.kind in "biu":
        if decimals >= 0:
            return _manipulation.copy_array(a)
        scale = 10.0 ** -decimals
        rounded = ew.multiply(ew.round(ew.divide(_manipulation.astype(a, np.float64), scale)),
                              scale)
        return _manipulation.astype(rounded, a.dtype)
    scale = 10.0 ** decimals
    return ew.divide(ew.round(ew.multiply(a, scale)), scale)


def rint(x):
    """Round to the nearest integer, halves to even (``numpy.rint``; aclnnRound);
    integers give float64, as NumPy's loop does."""
    return ew.round(_ufunc_floating(x, "rint"))


def fix(x):
    """Round towards zero (``numpy.fix``; aclnnTrunc); integers stay integers."""
    return ew.trunc(as_device(x, "fix"))


def deg2rad(x):
    """Degrees to radians: ``x * pi / 180`` (``numpy.deg2rad`` / ``radians``)."""
    return ew.multiply(_ufunc_floating(x, "deg2rad"), math.pi / 180)


def rad2deg(x):
    """Radians to degrees: ``x * 180 / pi`` (``numpy.rad2deg`` / ``degrees``)."""
    return ew.multiply(_ufunc_floating(x, "rad2deg"), 180 / math.pi)


radians, degrees = deg2rad, rad2deg


def sinc(x):
    """Normalised sinc ``sin(pi x) / (pi x)``, 1 at 0 (``numpy.sinc``, with
    NumPy's formula: x = 0 is replaced by 1e-20)."""
    x = _floating(x, "sinc")
    y = ew.multiply(ew.where(ew.equal(x, 0), 1e-20, x), math.pi)
    return ew.divide(ew.sin(y), y)


def exp2(x):
    """``2 ** x`` (``numpy.exp2``; aclnnPowScalarTensor)."""
    return ew.pow(2.0, _ufunc_floating(x, "exp2"))


def cbrt(x):
    """Real cube root ``sign(x) * |x| ** (1/3)`` (``numpy.cbrt``)."""
    x = _ufunc_floating(x, "cbrt")
    if x.dtype.kind == "c":
        raise TypeError("cbrt: complex input is not supported (as in NumPy)")
    return ew.multiply(ew.sign(x), ew.pow(ew.abs(x), 1.0 / 3.0))


def heaviside(x1, x2):
    """Heaviside step: 0 for x1 < 0, ``x2`` at 0, 1 for x1 > 0, NaN for NaN
    (``numpy.heaviside``)."""
    x1 = _floating(x1, "heaviside")
    if x1.dtype.kind == "c":
        raise TypeError("heaviside: complex input is not supported (as in NumPy)")
    step = ew.where(ew.less(x1, 0), 0.0, ew.where(ew.greater(x1, 0), 1.0, x2))
    return ew.where(ew.isnan(x1), x1, step)


def fabs(x):
    """Absolute value of real input, in a floating dtype (``numpy.fabs``)."""
    return ew.abs(_ufunc_floating(x, "fabs"))


def _ignoring_nan(combined, x1, x2):
    """``combined`` with NaN operands replaced by the other operand (both NaN: NaN)."""
    if is_array(x1):
        combined = ew.where(ew.isnan(x1), x2, combined)
    if is_array(x2):
        combined = ew.where(ew.isnan(x2), x1, combined)
    return combined


def fmax(x1, x2):
    """Element-wise maximum ignoring NaNs: NaN only when both are NaN (``numpy.fmax``)."""
    return _ignoring_nan(ew.maximum(x1, x2), x1, x2)


def fmin(x1, x2):
    """Element-wise minimum ignoring NaNs (``numpy.fmin``)."""
    return _ignoring_nan(ew.minimum(x1, x2), x1, x2)


def _replace_non_finite(x, nan, posinf, neginf):
    info = np.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    infinite = ew.isinf(x)
    positive = ew.greater(x, 0)
    x = ew.where(ew.isnan(x), nan, x)
    x = ew.where(ew.logical_and(infinite, positive), posinf, x)
    return ew.where(ew.logical_and(infinite, ew.logical_not(positive)), neginf, x)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``x`` with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by
    ``neginf`` (default: the dtype's largest / most negative finite value),
    in the real and imaginary parts of complex input (``numpy.nan_to_num``;
    aclnnSWhere). ``copy=False`` writes the result into ``x``. Integers and
    bools are returned unchanged (copied unless ``copy=False``)."""
    x = as_device(x, "nan_to_num")
    if x.dtype.kind in "biu":
        return _manipulation.copy_array(x) if copy else x
    if x.dtype.kind == "c":
        real = _replace_non_finite(ew.real(x), nan, posinf, neginf)
        imag = _replace_non_finite(ew.imag(x), nan, posinf, neginf)
        result = ew.add(real, ew.multiply(imag, 1j))
    else:
        result = _replace_non_finite(x, nan, posinf, neginf)
    if not copy:
        x[...] = result
        return x
    return result


def _sliding_product(a, v, start, length):
    """``out[k] = sum_j a[start + k - j] * v[j]`` for k < ``length``, a zero
    outside: windows of the zero-padded ``a`` gathered with aclnnIndexSelect,
    times the reversed ``v`` (aclnnMatmul)."""
    m = v.shape[0]
    padded = _manipulation.concat([_creation.zeros((m - 1,), dtype=a.dtype, device=a.device),
                                   a, _creation.zeros((m - 1,), dtype=a.dtype,
                                                      device=a.device)])
    rows = _creation.arange(start, start + length, dtype=np.int64, device=a.device)
    window = ew.add(_manipulation.reshape(rows, (-1, 1)),
                    _creation.arange(m, dtype=np.int64, device=a.device))
    gathered = _manipulation.reshape(take(padded, _manipulation.reshape(window, (-1,))),
                                     (length, m))
    return matmul(gathered, _manipulation.flip(v, axis=0))


def _convolution_operands(a, v, name):
    a, v = as_device(a, name), as_device(v, name)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"{name}: object too deep for desired array")
    if not a.size:
        raise ValueError("a cannot be empty")
    if not v.size:
        raise ValueError("v cannot be empty")
    dtype = result_type(a.dtype, v.dtype)
    return _manipulation.astype(a, dtype, copy=False), _manipulation.astype(v, dtype,
                                                                           copy=False)


def _convolve(a, v, mode):
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    if mode == "full":
        return _sliding_product(a, v, 0, n + m - 1)
    if mode == "same":
        return _sliding_product(a, v, (m - 1) // 2, n)
    if mode == "valid":
        return _sliding_product(a, v, m - 1, n - m + 1)
    raise ValueError(f"mode must be one of 'full', 'same', 'valid', got {mode!r}")


def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-D arrays (``numpy.convolve``): each
    output is the dot product of a window of the zero-padded longer operand
    with the reversed shorter one (aclnnIndexSelect windows, aclnnMatmul).
    ``mode``: "full" (n + m - 1), "same" (max(n, m)), "valid" (max - min + 1).
    ValueError for empty or non-1-D inputs or another mode."""
    a, v = _convolution_operands(a, v, "convolve")
    return _convolve(a, v, mode)


def correlate(a, v, mode="valid"):
    """Cross-correlation ``sum_n a[n + k] * conj(v[n])`` of two 1-D arrays
    (``numpy.correlate``): the convolution of ``a`` with the reversed conjugate
    of ``v``, reversed back when ``v`` is the longer one, as NumPy."""
    a, v = _convolution_operands(a, v, "correlate")
    reversed_v = _manipulation.flip(ew.conj(v) if v.dtype.kind == "c" else v, axis=0)
    return _convolve(a, reversed_v, mode)


def amax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Largest element over ``axis`` (``numpy.amax`` / ``numpy.max``; aclnnAmax).
    ``initial`` takes part in the maximum; ``where`` is not supported."""
    check_no_unsupported("amax", where=where)
    result = st.max(as_device(a, "amax"), axis=axis_argument(axis), keepdims=keepdims)
    return into(result if initial is None else ew.maximum(result, initial), out)


def amin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Smallest element over ``axis`` (``numpy.amin`` / ``numpy.min``; aclnnAmin)."""
    check_no_unsupported("amin", where=where)
    result = st.min(as_device(a, "amin"), axis=axis_argument(axis), keepdims=keepdims)
    return into(result if initial is None else ew.minimum(result, initial), out)


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` (None: of the flattened array) (``numpy.cumsum``;
    aclnnCumsum). Integers accumulate in int64 / uint64, as NumPy."""
    return _cumulative(st.cumulative_sum, a, axis, dtype, out, "cumsum")


def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along ``axis`` (``numpy.cumprod``; aclnnCumprod)."""
    return _cumulative(st.cumulative_prod, a, axis, dtype, out, "cumprod")


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    """Sum treating NaN as zero (``numpy.nansum``; aclnnSWhere, aclnnReduceSum)."""
    filled, _ = nan_replaced(a, 0, "nansum")
    return numpy_sum(filled, axis, dtype, out, keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    """Product treating NaN as one (``numpy.nanprod``)."""
    filled, _ = nan_replaced(a, 1, "nanprod")
    return numpy_prod(filled, axis, dtype, out, keepdims)


def nanmax(a, axis=None, out=None, keepdims=False):
    """Maximum ignoring NaN; NaN for an all-NaN slice (``numpy.nanmax``)."""
    filled, nan = nan_replaced(a, -np.inf, "nanmax")
    result = amax(filled, axis, keepdims=keepdims)
    if nan is not None:
        result = ew.where(all_nan(nan, axis, keepdims), np.nan, result)
    return into(result, out)


def nanmin(a, axis=None, out=None, keepdims=False):
    """Minimum ignoring NaN; NaN for an all-NaN slice (``numpy.nanmin``)."""
    filled, nan = nan_replaced(a, np.inf, "nanmin")
    result = amin(filled, axis, keepdims=keepdims)
    if nan is not None:
        result = ew.where(all_nan(nan, axis, keepdims), np.nan, result)
    return into(result, out)


def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum treating NaN as zero (``numpy.nancumsum``)."""
    return cumsum(nan_replaced(a, 0, "nancumsum")[0], axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product treating NaN as one (``numpy.nancumprod``)."""
    return cumprod(nan_replaced(a, 1, "nancumprod")[0], axis, dtype, out)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points (``xp``, ``fp``) at ``x``
    (``numpy.interp``): aclnnSearchSorted for the interval, aclnnGather of its
    ends, NumPy's slope formula; ``left`` / ``right`` (default fp[0] / fp[-1])
    outside [xp[0], xp[-1]]. float64 result (complex128 for complex ``fp``).
    ValueError for empty or mismatched ``xp`` / ``fp``; ``period`` is not
    supported (TypeError)."""
    check_no_unsupported("interp", period=period)
    x, xp, fp = (as_device(v, "interp") for v in (x, xp, fp))
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("object too deep for desired array")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if not xp.shape[0]:
        raise ValueError("array of sample points is empty")
    out_dtype = np.dtype(np.complex128 if fp.dtype.kind == "c" else np.float64)
    x = _manipulation.astype(x, np.float64, copy=False)
    xp = _manipulation.astype(xp, np.float64, copy=False)
    fp = _manipulation.astype(fp, out_dtype, copy=False)
    n = xp.shape[0]
    left = fp[0] if left is None else left
    right = fp[-1] if right is None else right
    if n == 1:
        inside = _manipulation.broadcast_to(fp[0], x.shape)
    else:
        low = ew.clip(ew.subtract(_searching.searchsorted(xp, x, side="right"), 1), 0, n - 2)
        x0, x1 = take(xp, low), take(xp, ew.add(low, 1))
        y0, y1 = take(fp, low), take(fp, ew.add(low, 1))
        slope = ew.divide(ew.subtract(y1, y0), ew.subtract(x1, x0))
        inside = ew.add(ew.multiply(slope, ew.subtract(x, x0)), y0)
        inside = ew.where(ew.equal(x, xp[-1]), fp[-1], inside)
    result = ew.where(ew.less(x, xp[0]), left, ew.where(ew.greater(x, xp[-1]), right, inside))
    return _manipulation.astype(result, out_dtype, copy=False)


def _cumulative(function, a, axis, dtype, out, name):
    a = as_device(a, name)
    if axis is None:
        a, axis = _manipulation.reshape(a, (-1,)), 0
    if a.ndim == 0:
        a = _manipulation.reshape(a, (1,))
    return into(function(a, axis=axis, dtype=dtype), out)


def numpy_sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.sum`` (aclnnReduceSum); ``initial`` is added, ``where`` is not supported."""
    check_no_unsupported("sum", where=where)
    a = as_device(a, "sum")
    result = st.sum(a, axis=axis_argument(axis), dtype=dtype, keepdims=keepdims)
    return into(result if initial is None else ew.add(result, initial), out)


def numpy_prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.prod`` (aclnnProd); ``initial`` multiplies the result."""
    check_no_unsupported("prod", where=where)
    a = as_device(a, "prod")
    result = st.prod(a, axis=axis_argument(axis), dtype=dtype, keepdims=keepdims)
    return into(result if initial is None else ew.multiply(result, initial), out)
