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
import warnings

import numpy as np

from ._core import _creation, _manipulation, _searching, _utility
from ._core import _elementwise as ew
from ._core import _statistical as st
from ._core._data_type import result_type
from ._core._elementwise import (abs, acos, acosh, add, asin, asinh, atan, atan2, atanh, ceil,
                                 conj, copysign, cos, cosh, divide, exp, expm1, floor,
                                 floor_divide, hypot, log, log1p, log2, log10, logaddexp, maximum,
                                 minimum, multiply, negative, nextafter, positive, pow, reciprocal,
                                 remainder, sign, signbit, sin, sinh, sqrt, square, subtract, tan,
                                 tanh, trunc)
from ._core._indexing import take
from ._core._linear_algebra import matmul
from .linalg import cross as _linalg_cross
from ._core._utility import diff
from ._operands import (all_nan, as_device, axis_argument, axis_tuple, check_no_unsupported,
                        float_dtype, into, is_array, nan_replaced, with_ufunc_out)
from ._core import _namespace
from ._core._array import NPUArray
from ._operands import NO_VALUE, given, keepdims_flag, ordered, out_array, store

__all__ = ["abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "ceil",
           "clip", "conj", "copysign", "cos", "cosh", "divide", "exp", "expm1", "floor",
           "floor_divide", "hypot", "imag", "log", "log10", "log1p", "log2", "logaddexp",
           "maximum", "minimum", "multiply", "negative", "nextafter", "positive", "pow",
           "real", "reciprocal", "remainder", "round", "sign", "signbit", "sin", "sinh",
           "sqrt", "square", "subtract", "tan", "tanh", "trunc", "cumulative_prod",
           "cumulative_sum", "prod", "sum", "diff", "around", "rint", "fix", "deg2rad",
           "rad2deg", "sinc", "exp2", "cbrt", "heaviside", "fabs", "fmax", "fmin",
           "nan_to_num", "convolve", "correlate", "max", "min", "amax", "amin", "cumsum", "cumprod",
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


def _rounded(a, decimals=0):
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


# -- NumPy's other arithmetic, exponent and complex-part functions ---------------------------
# The ufuncs among them take ``out=`` (``with_ufunc_out``).

__all__ += ["fmod", "float_power", "divmod", "modf", "frexp", "ldexp", "gcd", "lcm", "angle",
            "conjugate", "logaddexp2", "spacing", "real_if_close", "ediff1d", "cross",
            "trapezoid", "gradient", "unwrap"]

conjugate = ew.conj


def _ufunc_dtypes(ufunc, *operands):
    """The dtypes NumPy's ``ufunc`` gives for these operands (NEP 50: Python
    scalars weak), found by calling it on empty host arrays of the operands'
    dtypes; NumPy's TypeError (``UFuncTypeError``) for dtypes it has no loop for."""
    probes = [np.empty(0, x.dtype) if is_array(x) else x for x in operands]
    result = ufunc(*probes)
    return tuple(np.dtype(r.dtype) for r in result) if isinstance(result, tuple) else (
        np.dtype(result.dtype),)


def _in_dtype(x, dtype, name):
    """``x`` as a device array of ``dtype`` (scalars uploaded, arrays cast)."""
    x = as_device(x, name)
    return x if x.dtype == dtype else _manipulation.astype(x, dtype)


# The dtype in which aclnnFmodTensor (double, float16, bfloat16, float, int8, uint8, int32,
# int64) takes each of NumPy's fmod loop dtypes, every value exactly; uint64 has none.
_FMOD_INPUT = {np.dtype(t): np.dtype(w) for t, w in (
    (np.int8, np.int8), (np.uint8, np.uint8), (np.int16, np.int32), (np.uint16, np.int32),
    (np.int32, np.int32), (np.uint32, np.int64), (np.int64, np.int64),
    (np.float16, np.float16), (np.float32, np.float32), (np.float64, np.float64))}


@with_ufunc_out
def fmod(x1, x2, /):
    """Element-wise C remainder ``x1 - trunc(x1 / x2) * x2``, with the sign of
    ``x1`` (``numpy.fmod``), broadcast: one aclnnFmodTensor on the current stream
    of the operands' device (int16, uint16 and uint32 widened for it; uint64,
    which it cannot hold, as aclnnRemainderTensor, equal there since unsigned
    operands have one sign). Floats: exact, NaN for ``x2 == 0`` or infinite
    ``x1``; integer division by zero gives 0, as NumPy. Dtypes as NumPy's loops
    (bool -> int8; TypeError for complex)."""
    (dtype,) = _ufunc_dtypes(np.fmod, x1, x2)
    a, b = _in_dtype(x1, dtype, "fmod"), _in_dtype(x2, dtype, "fmod")
    if dtype not in _FMOD_INPUT:
        return ew.remainder(a, b)
    work = _FMOD_INPUT[dtype]
    a, b = (_manipulation.astype(x, work, copy=False) for x in (a, b))
    return _manipulation.astype(ew.launch_binary_op("aclnnFmodTensor", a, b, work), dtype,
                                copy=False)


@with_ufunc_out
def float_power(x1, x2, /):
    """Element-wise ``x1 ** x2`` in float64 (complex128 for complex operands)
    whatever the inputs (``numpy.float_power``; aclnnCast, aclnnPowTensorTensor):
    negative integer powers are allowed, NaN for a negative base and a
    non-integer real power."""
    (dtype,) = _ufunc_dtypes(np.float_power, x1, x2)
    return ew.pow(_in_dtype(x1, dtype, "float_power"), _in_dtype(x2, dtype, "float_power"))


@with_ufunc_out
def divmod(x1, x2, /):  # noqa: A001  NumPy's name
    """``(x1 // x2, x1 % x2)`` element-wise (``numpy.divmod``; aclnnFloorDivide,
    aclnnRemainderTensor), in NumPy's dtypes (bool -> int8; TypeError for complex)."""
    quotient, _ = _ufunc_dtypes(np.divmod, x1, x2)
    a, b = _in_dtype(x1, quotient, "divmod"), _in_dtype(x2, quotient, "divmod")
    q, r = ew.floor_divide(a, b), ew.remainder(a, b)
    if quotient.kind == "f":
        # NumPy's npy_divmod: an infinite dividend (NaN remainder, b != 0) has a NaN quotient.
        q = ew.where(ew.logical_and(ew.isnan(r), ew.not_equal(b, 0)), np.nan, q)
    return q, r


@with_ufunc_out
def modf(x, /):
    """``(fractional, integral)`` parts of ``x``, both with ``x``'s sign
    (``numpy.modf``): aclnnTrunc, aclnnSub, the fraction of an infinity 0
    (aclnnSWhere, aclnnCopysign). Integers give NumPy's float dtype; TypeError
    for complex."""
    (dtype, _) = _ufunc_dtypes(np.modf, x)
    x = _in_dtype(x, dtype, "modf")
    integral = ew.trunc(x)
    fraction = ew.where(ew.isinf(x), 0.0, ew.subtract(x, integral))
    return ew.copysign(fraction, x), integral


@with_ufunc_out
def frexp(x, /):
    """``(mantissa, exponent)`` with ``x == mantissa * 2**exponent`` and
    ``0.5 <= |mantissa| < 1`` (``numpy.frexp``), read from the IEEE 754 fields:
    ``x``'s bits as the signed integer of its size (no copy), the exponent
    field shifted out and re-biased and the mantissa's exponent field set to
    -1's (aclnnRightShift, aclnnBitwiseAnd, aclnnBitwiseOr, aclnnSub);
    subnormals are first scaled into the normal range by an exact power of two
    (aclnnMul). Zero, infinities and NaN give themselves and exponent 0.
    Exponent int32; integers give NumPy's float dtype; TypeError for complex."""
    (dtype, int_dtype) = _ufunc_dtypes(np.frexp, x)
    x = _in_dtype(x, dtype, "frexp")
    info = np.finfo(dtype)
    bits_dtype = np.dtype(f"i{dtype.itemsize}")
    fraction_bits, bias, field_mask = info.nmant, info.maxexp - 1, 2 * info.maxexp - 1
    shift = fraction_bits + 2  # 2**shift makes every subnormal normal, exactly
    special = ew.logical_or(ew.equal(x, 0), ew.logical_not(ew.isfinite(x)))
    subnormal = ew.logical_and(ew.less(ew.abs(x), float(info.smallest_normal)),
                               ew.logical_not(special))
    scaled = ew.where(subnormal, ew.multiply(x, float(2.0 ** shift)), x)
    bits = ew.bits_as(scaled, bits_dtype)
    field = ew.bitwise_and(ew.bitwise_right_shift(bits, fraction_bits), field_mask)
    exponent = ew.subtract(ew.subtract(field, bias - 1), ew.where(subnormal, shift, 0))
    mantissa_bits = ew.bitwise_or(ew.bitwise_and(bits, ~(field_mask << fraction_bits)),
                               (bias - 1) << fraction_bits)
    mantissa = ew.bits_as(_manipulation.astype(mantissa_bits, bits_dtype, copy=False), dtype)
    return (ew.where(special, x, mantissa),
            _manipulation.astype(ew.where(special, 0, exponent), int_dtype))


# The dtype in which a float16 / float32 ``x * 2**k`` is exact over their ranges of k.
_EXACT_WIDER = {np.dtype(np.float16): np.dtype(np.float32),
                np.dtype(np.float32): np.dtype(np.float64)}


def _scalbn(x, n):
    """``x * 2**n`` (``n`` int64) for float64 ``x`` with one rounding, as C's
    ``scalbn``: up to two exact steps of 2**1023 or 2**-969 (which keep a
    result that can still be non-zero normal), then one power of two in the
    normal range (aclnnGtScalar, aclnnSWhere, aclnnMuls, aclnnPowScalarTensor)."""
    info = np.finfo(x.dtype)
    top, bottom = info.maxexp - 1, info.minexp
    down = info.minexp + info.nmant + 1
    for _ in range(2):
        up = ew.greater(n, top)
        x, n = ew.where(up, ew.multiply(x, 2.0 ** top), x), ew.where(up, ew.subtract(n, top), n)
        low = ew.less(n, bottom)
        x = ew.where(low, ew.multiply(x, 2.0 ** down), x)
        n = ew.where(low, ew.subtract(n, down), n)
    n = ew.clip(n, bottom, top)
    return ew.multiply(x, ew.pow(2.0, _manipulation.astype(n, x.dtype)))


@with_ufunc_out
def ldexp(x1, x2, /):
    """``x1 * 2**x2`` element-wise (``numpy.ldexp``) for integer ``x2``, rounded
    once: float16 and float32 scaled exactly in float32 / float64 by a power of
    two (the exponent clipped to where the result is 0 or inf anyway) and cast
    back (aclnnClamp, aclnnPowScalarTensor, aclnnMul, aclnnCast); float64 as
    C's ``scalbn``. Result dtype NumPy's (int ``x1`` -> float); TypeError for a
    floating ``x2`` or complex ``x1``."""
    (dtype,) = _ufunc_dtypes(np.ldexp, x1, x2)
    x = _in_dtype(x1, dtype, "ldexp")
    exponent = _manipulation.astype(as_device(x2, "ldexp"), np.int64)
    wider = _EXACT_WIDER.get(dtype)
    if wider is None:
        return _scalbn(x, exponent)
    info = np.finfo(dtype)
    span = info.maxexp - info.minexp + info.nmant + 2
    factor = ew.pow(2.0, _manipulation.astype(ew.clip(exponent, -span, span), wider))
    return _manipulation.astype(ew.multiply(_manipulation.astype(x, wider), factor), dtype)


def _euclid(a, b):
    """gcd of the non-negative arrays ``a``, ``b`` (same shape): Euclid's steps
    (aclnnRemainderTensor, aclnnSWhere), four between reads of whether any
    ``b`` is still non-zero (aclnnAny, one byte to the host) — a finished
    element is left as it is by further steps; at most about 1.44 log2(max)
    steps in all."""
    while _utility.any(ew.not_equal(b, 0)).item():
        for _ in range(4):
            nonzero = ew.not_equal(b, 0)
            a, b = ew.where(nonzero, b, a), ew.where(
                nonzero, ew.remainder(a, ew.where(nonzero, b, 1)), 0)
    return a


def _integer_pair(ufunc, x1, x2, name):
    """The operands of ``ufunc`` as device arrays of NumPy's loop dtype, and that dtype."""
    (dtype,) = _ufunc_dtypes(ufunc, x1, x2)
    return _in_dtype(x1, dtype, name), _in_dtype(x2, dtype, name), dtype


# The dtype in which aclnnGcd (int16/int32/int64 after promotion) takes each of NumPy's
# integer loop dtypes, every value of it exactly; uint64 has none and is composed.
_GCD_INPUT = {np.dtype(t): np.dtype(w) for t, w in (
    (np.int8, np.int16), (np.uint8, np.int16), (np.int16, np.int16), (np.uint16, np.int32),
    (np.int32, np.int32), (np.uint32, np.int64), (np.int64, np.int64))}


def _gcd(a, b, dtype):
    """gcd(|a|, |b|) in ``dtype`` (NumPy's loop dtype of ``a`` and ``b``): one aclnnGcd
    on the current stream, its inputs widened where NumPy's dtype is not one of
    its own (the magnitude of int8's -128 then wraps back to -128 on the store,
    as NumPy's does); uint64 by Euclid's steps."""
    if dtype not in _GCD_INPUT:
        a, b = _manipulation.broadcast_arrays(ew.abs(a), ew.abs(b))
        return _euclid(a, b)
    work = _GCD_INPUT[dtype]
    a, b = (_manipulation.astype(x, work, copy=False) for x in (a, b))
    return ew.launch_binary_op("aclnnGcd", a, b, dtype)


@with_ufunc_out
def gcd(x1, x2, /):
    """Greatest common divisor of ``|x1|`` and ``|x2|`` element-wise
    (``numpy.gcd``), broadcast; ``gcd(0, 0) == 0``. NumPy's integer dtypes
    (bool -> int8; TypeError for floating and complex): one aclnnGcd on the
    current stream (uint64, which it lacks, as Euclid's algorithm)."""
    a, b, dtype = _integer_pair(np.gcd, x1, x2, "gcd")
    return _gcd(a, b, dtype)


@with_ufunc_out
def lcm(x1, x2, /):
    """Least common multiple of ``|x1|`` and ``|x2|`` element-wise
    (``numpy.lcm``): ``|x1| // gcd * |x2|`` (aclnnGcd, aclnnFloorDivide,
    aclnnMul), 0 when either is 0. Integer dtypes as :func:`gcd`."""
    a, b, dtype = _integer_pair(np.lcm, x1, x2, "lcm")
    a, b = ew.abs(a), ew.abs(b)
    divisor = _gcd(a, b, dtype)
    zero = ew.equal(divisor, 0)
    return ew.where(zero, 0, ew.multiply(ew.floor_divide(a, ew.where(zero, 1, divisor)), b))


def angle(z, deg=False):
    """Counter-clockwise angle of each complex element from the positive real
    axis, in ``(-pi, pi]`` (degrees with ``deg=True``) (``numpy.angle``):
    aclnnAtan2 of the imaginary and real parts. Real input gives 0 or pi in
    the dtype of NumPy's ``arctan2(0, z)`` (float dtypes kept, int8 -> float16,
    int16 -> float32, wider integers float64); complex give their real dtype."""
    z = as_device(z, "angle")
    if z.dtype.kind == "c":
        re, im = ew.real(z), ew.imag(z)
    else:
        (dtype,) = _ufunc_dtypes(np.arctan2, 0, z)  # NumPy's arctan2(0, z) loop
        re = _in_dtype(z, dtype, "angle")
        im = _creation.zeros_like(re)
    result = ew.atan2(im, re)
    return ew.multiply(result, 180 / math.pi) if deg else result


@with_ufunc_out
def logaddexp2(x1, x2, /):
    """Element-wise ``log2(2**x1 + 2**x2)`` without overflow (``numpy.logaddexp2``):
    ``max + log1p(2**-|x1 - x2|) / ln 2`` (aclnnMaximum, aclnnPowScalarTensor,
    aclnnLog1p); equal operands (also infinities) give ``x1 + 1``. Float dtypes
    as NumPy's loops (float16 computed in float32, as NumPy's); TypeError for
    complex."""
    (dtype,) = _ufunc_dtypes(np.logaddexp2, x1, x2)
    compute = np.dtype(np.float32) if dtype == np.float16 else dtype  # as NumPy's half loop
    a, b = _in_dtype(x1, compute, "logaddexp2"), _in_dtype(x2, compute, "logaddexp2")
    larger = ew.maximum(a, b)
    gap = ew.abs(ew.subtract(a, b))
    combined = ew.add(larger, ew.divide(ew.log1p(ew.pow(2.0, ew.negative(gap))), math.log(2)))
    result = ew.where(ew.equal(a, b), ew.add(a, 1.0), combined)
    return _manipulation.astype(result, dtype, copy=False)


@with_ufunc_out
def spacing(x, /):
    """Distance from each element to the next representable value away from
    zero, negative for negative ``x`` (``numpy.spacing``): aclnnNextAfter
    towards ±inf minus ``x`` (float16: towards +inf, as NumPy's half loop); NaN
    for infinities and NaN. Float dtypes (integers
    give NumPy's float dtype); TypeError for complex."""
    (dtype,) = _ufunc_dtypes(np.spacing, x)
    x = _in_dtype(x, dtype, "spacing")
    if dtype == np.float16:  # NumPy's half-precision loop always steps towards +inf
        away = _creation.full_like(x, np.inf)
    else:
        away = ew.where(ew.less(x, 0), -np.inf, np.inf)  # -0.0 steps up, as NumPy
    step = ew.subtract(ew.nextafter(x, _manipulation.astype(away, dtype)), x)
    return ew.where(ew.isfinite(x), step, np.nan)


def real_if_close(a, tol=100):
    """The real part of complex ``a`` when every imaginary part is below ``tol``
    machine epsilons (``tol`` > 1) or ``tol`` itself (``numpy.real_if_close``);
    else ``a``. The test is one aclnnAbs, aclnnLtScalar and aclnnAll, read by
    the host since it decides the result's dtype. Real input is returned as is."""
    a = as_device(a, "real_if_close")
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = tol * np.finfo(a.dtype).eps
    if _utility.all(ew.less(ew.abs(ew.imag(a)), tol)).item():
        return ew.real(a)
    return a


def _flat_edge(values, dtype, name):
    values = _manipulation.reshape(as_device(values, "ediff1d"), (-1,))
    if not np.can_cast(values.dtype, dtype, casting="same_kind"):
        raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the "
                        f"`same_kind` rule.")
    return _manipulation.astype(values, dtype, copy=False)


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened ``ary``, with
    ``to_begin`` / ``to_end`` joined before / after (``numpy.ediff1d``;
    aclnnSub, aclnnInplaceCopy). ``ary``'s dtype; TypeError when an edge cannot
    be cast to it under ``same_kind``."""
    ary = _manipulation.reshape(as_device(ary, "ediff1d"), (-1,))
    if ary.dtype == np.bool_:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    parts = [] if to_begin is None else [_flat_edge(to_begin, ary.dtype, "to_begin")]
    parts.append(ew.subtract(ary[1:], ary[:-1]))
    if to_end is not None:
        parts.append(_flat_edge(to_end, ary.dtype, "to_end"))
    return parts[0] if len(parts) == 1 else _manipulation.concat(parts)


# The dtypes in which aclnnLinalgCross gives NumPy's bits: npusim rounds each float32 / float64
# product as NumPy does and integers wrap alike; float16 / complex it computes wider, once.
_CROSS_IN_ONE_OPERATOR = frozenset(map(np.dtype, (np.float32, np.float64, np.int8, np.int16,
                                                  np.int32, np.int64, np.uint8)))


def _vector_components(v, axis, name):
    v = _manipulation.moveaxis(as_device(v, name), axis, -1)
    if v.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    return [v[..., k] for k in range(v.shape[-1])]


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 2- or 3-vectors along ``axisa`` of ``a`` and ``axisb``
    of ``b`` (``axis`` sets all three), broadcast over the other axes, placed
    along ``axisc`` (``numpy.cross``): one aclnnLinalgCross for two 3-vectors in
    float32, float64, int8-int64 and uint8; otherwise components multiplied and
    subtracted (aclnnMul, aclnnSub) and stacked, on the current stream. Two 2-vectors give the z-component (no
    vector axis), as NumPy (which deprecates it). ValueError for other
    lengths; AxisError for bad axes; NumPy's DeprecationWarning for 2-vectors."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a = as_device(a, "cross")
    b = as_device(b, "cross")
    dtype = result_type(a.dtype, b.dtype)
    if dtype == np.bool_:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported")
    u = _vector_components(_manipulation.astype(a, dtype, copy=False), axisa, "cross")
    v = _vector_components(_manipulation.astype(b, dtype, copy=False), axisb, "cross")
    if len(u) == 2 or len(v) == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    if len(u) == 2 and len(v) == 2:
        return ew.subtract(ew.multiply(u[0], v[1]), ew.multiply(u[1], v[0]))
    if len(u) == 3 and len(v) == 3 and dtype in _CROSS_IN_ONE_OPERATOR:
        vectors_a = _manipulation.moveaxis(_manipulation.astype(a, dtype, copy=False), axisa, -1)
        vectors_b = _manipulation.moveaxis(_manipulation.astype(b, dtype, copy=False), axisb, -1)
        return _manipulation.moveaxis(_linalg_cross(vectors_a, vectors_b, axis=-1), -1, axisc)
    u = u + [0] * (3 - len(u))
    v = v + [0] * (3 - len(v))
    parts = [ew.subtract(ew.multiply(u[i], v[j]), ew.multiply(u[j], v[i]))
             for i, j in ((1, 2), (2, 0), (0, 1))]
    parts = _manipulation.broadcast_arrays(*[_manipulation.astype(as_device(p, "cross"), dtype,
                                                                 copy=False) for p in parts])
    result = _manipulation.stack(parts, axis=-1)
    return _manipulation.moveaxis(result, -1, axisc)


def _along(x, axis, start, stop):
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return x[tuple(index)]


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule
    (``numpy.trapezoid``): ``sum(d * (y[1:] + y[:-1]) / 2)`` with ``d`` the
    differences of the sample points ``x`` (1-D along ``axis`` or ``y``'s
    shape) or the spacing ``dx`` (aclnnSub, aclnnAdd, aclnnMul, aclnnReduceSum).
    The pair sums are in ``y``'s dtype, as NumPy's (bool: logical or), then
    float64 for integers and bool."""
    y = as_device(y, "trapezoid")
    (axis,) = axis_tuple(axis, y.ndim)
    if x is None:
        d = dx
    else:
        x = as_device(x, "trapezoid")
        d = ew.subtract(x[1:], x[:-1]) if x.ndim == 1 else ew.subtract(
            _along(x, axis, 1, None), _along(x, axis, None, -1))
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = _manipulation.reshape(d, tuple(shape))
    pair = ew.logical_or if y.dtype == np.bool_ else ew.add
    pairs = pair(_along(y, axis, 1, None), _along(y, axis, None, -1))
    return st.sum(ew.divide(ew.multiply(d, pairs), 2.0), axis=axis)


def _spacing_of(spacing, length, dtype):
    """A scalar spacing, or the differences (``dtype``) of 1-D device
    coordinates of ``length`` — one scalar when they are all equal (one
    aclnnAll read by the host), as NumPy treats uniform coordinates."""
    if not is_array(spacing) or spacing.ndim == 0:
        return spacing
    if spacing.ndim != 1:
        raise ValueError("distances must be either scalars or 1d")
    if spacing.shape[0] != length:
        raise ValueError("when 1d, distances must match the length of the corresponding "
                         "dimension")
    steps = _manipulation.astype(ew.subtract(spacing[1:], spacing[:-1]), dtype, copy=False)
    if steps.shape[0] and _utility.all(ew.equal(steps, steps[0])).item():
        return steps[0]
    return steps


def _gradient_axis(f, axis, h, edge_order):
    """NumPy's second-order central differences inside, first- or second-order
    one-sided ones at the edges, of ``f`` along ``axis`` (``h`` a scalar
    spacing or the 1-D differences of the coordinates)."""
    n = f.shape[axis]
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least (edge_order + 1) elements are required.")
    shape = [1] * f.ndim
    shape[axis] = -1

    def sl(start, stop):
        return _along(f, axis, start, stop)

    if is_array(h) and h.ndim == 1:
        dx = h
        dx1, dx2 = dx[:-1], dx[1:]
        a = ew.divide(ew.negative(dx2), ew.multiply(dx1, ew.add(dx1, dx2)))
        b = ew.divide(ew.subtract(dx2, dx1), ew.multiply(dx1, dx2))
        c = ew.divide(dx1, ew.multiply(dx2, ew.add(dx1, dx2)))
        a, b, c = (_manipulation.reshape(v, tuple(shape)) for v in (a, b, c))
        inner = ew.add(ew.add(ew.multiply(a, sl(None, -2)), ew.multiply(b, sl(1, -1))),
                       ew.multiply(c, sl(2, None)))
        first_h, last_h = dx[0], dx[-1]
    else:
        inner = ew.divide(ew.subtract(sl(2, None), sl(None, -2)), 2.0 * h)
        dx = None
        first_h = last_h = h
    if edge_order == 1:
        first = ew.divide(ew.subtract(sl(1, 2), sl(0, 1)), first_h)
        last = ew.divide(ew.subtract(sl(-1, None), sl(-2, -1)), last_h)
    else:
        first, last = _second_order_edges(sl, dx, h)
    return _manipulation.concat([first, inner, last], axis=axis)


def _second_order_edges(sl, dx, h):
    """The two boundary values of ``gradient`` with ``edge_order=2``: NumPy's
    one-sided three-point formulas (``sl(start, stop)`` slices ``f`` along the
    axis; ``dx`` the coordinate differences or None for the scalar ``h``)."""
    if dx is None:
        first = ew.divide(ew.add(ew.add(ew.multiply(sl(0, 1), -1.5), ew.multiply(sl(1, 2), 2.0)),
                                 ew.multiply(sl(2, 3), -0.5)), h)
        last = ew.divide(ew.add(ew.add(ew.multiply(sl(-3, -2), 0.5), ew.multiply(sl(-2, -1),
                                                                             -2.0)),
                                ew.multiply(sl(-1, None), 1.5)), h)
        return first, last
    d1, d2 = dx[0], dx[1]
    a = ew.negative(ew.divide(ew.add(ew.multiply(d1, 2.0), d2), ew.multiply(d1, ew.add(d1, d2))))
    b = ew.divide(ew.add(d1, d2), ew.multiply(d1, d2))
    c = ew.negative(ew.divide(d1, ew.multiply(d2, ew.add(d1, d2))))
    first = ew.add(ew.add(ew.multiply(a, sl(0, 1)), ew.multiply(b, sl(1, 2))),
                   ew.multiply(c, sl(2, 3)))
    d1, d2 = dx[-2], dx[-1]
    a = ew.divide(d2, ew.multiply(d1, ew.add(d1, d2)))
    b = ew.negative(ew.divide(ew.add(d2, d1), ew.multiply(d1, d2)))
    c = ew.divide(ew.add(ew.multiply(d2, 2.0), d1), ew.multiply(d2, ew.add(d1, d2)))
    last = ew.add(ew.add(ew.multiply(a, sl(-3, -2)), ew.multiply(b, sl(-2, -1))),
                  ew.multiply(c, sl(-1, None)))
    return first, last


def gradient(f, *varargs, axis=None, edge_order=1):
    """Gradient of ``f`` by second-order central differences inside and
    first- or second-order (``edge_order``) one-sided differences at the
    boundaries (``numpy.gradient``), along ``axis`` (default every axis);
    ``varargs``: one scalar spacing for every axis, one per axis, or 1-D
    coordinate arrays. Slices, aclnnSub, aclnnMul, aclnnDiv, aclnnInplaceCopy
    on the operands' stream. One array for one axis, else a tuple. Integers
    give float64; TypeError for bool, as NumPy. ValueError for an axis shorter than
    ``edge_order + 1``, a bad spacing count or ``edge_order`` not 1 or 2."""
    f = as_device(f, "gradient")
    if f.dtype == np.bool_:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    f = _floating(f, "gradient")
    axes = axis_tuple(axis, f.ndim)
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    if not varargs:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1 and not (is_array(varargs[0]) and varargs[0].ndim == 1):
        spacings = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    results = tuple(_gradient_axis(f, ax, _spacing_of(h, f.shape[ax], f.dtype), edge_order)
                    for ax, h in zip(axes, spacings))
    return results[0] if len(results) == 1 else results


def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    """``p`` with jumps between consecutive elements along ``axis`` larger than
    ``max(discont, period / 2)`` replaced by their ``period`` complement
    (``numpy.unwrap``): NumPy's formula with aclnnSub, aclnnRemainderTensor,
    aclnnSWhere, aclnnCumsum and aclnnAdd. The differences are taken in
    ``p``'s dtype, then computed in the dtype of ``result_type(diff, period)``
    (float64 for integers and a float period; integer arithmetic for integers
    and an integer period), as NumPy."""
    p = as_device(p, "unwrap")
    (axis,) = axis_tuple(axis, p.ndim)
    dd = diff(p, axis=axis)
    dtype = np.result_type(dd.dtype, period)
    if discont is None:
        discont = period / 2
    if dtype.kind in "iu":
        high, ambiguous = period // 2, period % 2 == 0
    else:
        high, ambiguous = period / 2, True
    dd = _manipulation.astype(dd, dtype, copy=False)
    ddmod = ew.subtract(ew.remainder(ew.add(dd, high), period), high)
    if ambiguous:
        ddmod = ew.where(ew.logical_and(ew.equal(ddmod, -high), ew.greater(dd, 0)), high,
                         ddmod)
    correction = ew.subtract(ddmod, dd)
    correction = ew.where(ew.less(ew.abs(dd), discont), 0, correction)
    corrected = ew.add(_along(p, axis, 1, None), st.cumulative_sum(correction, axis=axis))
    return _manipulation.concat([_manipulation.astype(_along(p, axis, 0, 1), dtype),
                                 _manipulation.astype(corrected, dtype, copy=False)],
                                axis=axis)


# -- NumPy's signature and the standard's, in one function (NumPy 2's): the call without
# NumPy's extra keywords is the array API function's own ------------------------------

def _reduce(ufunc_name, function, a, axis, dtype, out, keepdims, initial, where):
    """``function`` (the array API reduction) for the plain call, else the ufunc's
    ``reduce`` with NumPy's ``out`` / ``initial`` / ``where``."""
    keepdims = keepdims_flag(keepdims)
    axis = axis_argument(axis)
    if out is None and not given(initial) and where is True \
            and type(a) is NPUArray:
        return function(a, axis=axis, keepdims=keepdims,
                        **({} if dtype is None else {"dtype": dtype}))
    a = as_device(a, ufunc_name)
    if axis is None:
        axis = tuple(range(a.ndim))
    return getattr(_namespace.module, ufunc_name).reduce(a, axis=axis, dtype=dtype, out=out,
                                            keepdims=keepdims, initial=initial, where=where)


@st.reduction_in_c("aclnnReduceSum")
def sum(a, /, axis=None, dtype=None, out=None, keepdims=False, initial=NO_VALUE,  # noqa: A001
        where=True):
    """Sum over ``axis`` (None: all; int or tuple) (``numpy.sum``, array API ``sum``):
    aclnnReduceSum on the current stream; integers accumulate in int64 / uint64 as
    NumPy. ``dtype`` the accumulator and result dtype, ``out`` an NPUArray,
    ``keepdims``, ``initial`` (added), ``where`` (a bool mask: the elements summed)."""
    if out is None and initial is NO_VALUE and where is True and type(a) is NPUArray \
            and type(axis) is not list and keepdims is not NO_VALUE:
        return st.sum(a, axis=axis, dtype=dtype, keepdims=keepdims)  # the plain call, as cheap
    return _reduce("add", st.sum, a, axis, dtype, out, keepdims, initial, where)


def prod(a, /, axis=None, dtype=None, out=None, keepdims=False, initial=NO_VALUE,
         where=True):
    """Product over ``axis`` (``numpy.prod``, array API ``prod``): aclnnProd; the
    keywords as ``sum``'s."""
    if out is None and initial is NO_VALUE and where is True and type(a) is NPUArray \
            and type(axis) is not list and keepdims is not NO_VALUE:
        return st.prod(a, axis=axis, dtype=dtype, keepdims=keepdims)
    return _reduce("multiply", st.prod, a, axis, dtype, out, keepdims, initial, where)


@st.reduction_in_c("aclnnAmax")
def max(a, /, axis=None, out=None, keepdims=False, initial=NO_VALUE,  # noqa: A001
        where=True):
    """Largest element over ``axis`` (``numpy.max``, array API ``max``): aclnnAmax;
    ``initial`` takes part, ``where`` needs ``initial`` (ValueError otherwise, as
    NumPy), as does an empty reduction."""
    if out is None and initial is NO_VALUE and where is True and type(a) is NPUArray \
            and type(axis) is not list and keepdims is not NO_VALUE:
        return st.max(a, axis=axis, keepdims=keepdims)
    return _reduce("maximum", st.max, a, axis, None, out, keepdims, initial, where)


@st.reduction_in_c("aclnnAmin")
def min(a, /, axis=None, out=None, keepdims=False, initial=NO_VALUE,  # noqa: A001
        where=True):
    """Smallest element over ``axis`` (``numpy.min``, array API ``min``): aclnnAmin."""
    if out is None and initial is NO_VALUE and where is True and type(a) is NPUArray \
            and type(axis) is not list and keepdims is not NO_VALUE:
        return st.min(a, axis=axis, keepdims=keepdims)
    return _reduce("minimum", st.min, a, axis, None, out, keepdims, initial, where)


amax, amin = max, min


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """Running sum along ``axis`` (array API / NumPy 2 ``cumulative_sum``): aclnnCumsum;
    ``axis`` may be omitted for 1-D ``x``; ``out`` an NPUArray."""
    return into(st.cumulative_sum(as_device(x, "cumulative_sum"), axis=axis, dtype=dtype,
                                  include_initial=include_initial), out)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """Running product along ``axis`` (``cumulative_prod``): aclnnCumprod."""
    return into(st.cumulative_prod(as_device(x, "cumulative_prod"), axis=axis, dtype=dtype,
                                   include_initial=include_initial), out)


def clip(a, /, min=NO_VALUE, max=NO_VALUE, out=None, *, a_min=NO_VALUE,  # noqa: A002
         a_max=NO_VALUE, **kwargs):
    """``a`` limited to [``min``, ``max``] (array API ``clip``; ``numpy.clip``, whose
    ``a_min`` / ``a_max`` keywords are taken too): aclnnClamp / aclnnClampTensor.
    Either bound may be None (or left out); NumPy's ufunc keywords (``dtype``,
    ``casting``, ``where``...) apply as for ufuncs. ValueError when a bound is given
    under both names."""
    if given(a_min) and given(min) or given(a_max) and given(max):
        raise ValueError("Passed a_min/a_max and min/max at the same time; use one pair")
    low = a_min if given(a_min) else (min if given(min) else None)
    high = a_max if given(a_max) else (max if given(max) else None)
    a = as_device(a, "clip")
    low, high = (as_device(v, "clip") if isinstance(v, (np.ndarray, list, tuple)) else v
                 for v in (low, high))
    dtype = kwargs.pop("dtype", None)
    where = kwargs.pop("where", True)
    casting = kwargs.pop("casting", "same_kind")
    kwargs.pop("subok", None)
    order = kwargs.pop("order", "K")
    if kwargs:
        raise TypeError(f"clip() got an unexpected keyword argument {next(iter(kwargs))!r}")
    if dtype is not None:
        a = _manipulation.astype(a, dtype, copy=False)
    result = ew.clip(a, low, high)
    out = out_array(out)
    if out is None:
        return ordered(result, order, [a])
    return store("clip", result, out, where, casting)


def round(a, /, decimals=0, out=None):  # noqa: A001
    """Round to ``decimals`` decimals, halves to even (``numpy.round``, array API
    ``round``): aclnnRound of ``a * 10**decimals`` divided back, as NumPy."""
    return into(_rounded(as_device(a, "round"), decimals), out)


around = round


def real(val, /):
    """Real part (``numpy.real``, array API ``real``); real input as it is."""
    return ew.real(as_device(val, "real"))


def imag(val, /):
    """Imaginary part (``numpy.imag``, array API ``imag``); zeros for real input."""
    return ew.imag(as_device(val, "imag"))
