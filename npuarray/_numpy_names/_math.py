"""NumPy's element-wise names (``numpy.arcsin``, ``numpy.absolute``,
``numpy.power``, ``numpy.around``, ``numpy.isclose`` ...): aliases of the array
API functions, or compositions of them on the device, each running on the
current stream of the operands' device. Integer inputs of the floating
functions compute in float64, as NumPy's ufunc loops do.
"""
import math

import numpy as np

from .._core import _elementwise as ew
from .._core import _creation, _manipulation, _utility
from .._core._data_type import result_type
from ._common import as_device, float_dtype, is_array

__all__ = ["arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh",
           "absolute", "power", "around", "rint", "fix", "deg2rad", "rad2deg", "degrees",
           "radians", "sinc", "exp2", "cbrt", "heaviside", "nan_to_num", "isclose",
           "allclose", "array_equal", "array_equiv", "isposinf", "isneginf", "fabs",
           "true_divide", "mod", "fmax", "fmin", "isreal", "iscomplex", "convolve",
           "correlate"]

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


def isposinf(x):
    """True where ``x`` is +inf (``numpy.isposinf``)."""
    x = as_device(x, "isposinf")
    return ew.logical_and(ew.isinf(x), ew.greater(x, 0))


def isneginf(x):
    """True where ``x`` is -inf (``numpy.isneginf``)."""
    x = as_device(x, "isneginf")
    return ew.logical_and(ew.isinf(x), ew.less(x, 0))


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


def isreal(x):
    """True where the imaginary part is zero (``numpy.isreal``)."""
    x = as_device(x, "isreal")
    if x.dtype.kind == "c":
        return ew.equal(ew.imag(x), 0)
    return _creation.full_like(x, True, dtype=np.bool_)


def iscomplex(x):
    """True where the imaginary part is non-zero (``numpy.iscomplex``)."""
    return ew.logical_not(isreal(x))


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


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Element-wise ``|a - b| <= atol + rtol * |b|`` for finite values, equality
    for infinities, NaN equal to NaN only with ``equal_nan`` (``numpy.isclose``),
    computed in the operands' floating dtype (float64 for integers)."""
    a, b = as_device(a, "isclose"), as_device(b, "isclose")
    dtype = float_dtype(result_type(a.dtype, b.dtype))
    a, b = _manipulation.astype(a, dtype, copy=False), _manipulation.astype(b, dtype, copy=False)
    both_finite = ew.logical_and(ew.isfinite(a), ew.isfinite(b))
    near = ew.less_equal(ew.abs(ew.subtract(a, b)), ew.add(ew.multiply(ew.abs(b), rtol), atol))
    close = ew.where(both_finite, near, ew.equal(a, b))
    if equal_nan:
        close = ew.logical_or(close, ew.logical_and(ew.isnan(a), ew.isnan(b)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``isclose(a, b, ...)`` holds, as a 0-d bool
    NPUArray (``numpy.allclose``; CuPy returns a device array too: ``bool()``
    of it reads one byte from the device)."""
    return _utility.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _false(device):
    return _creation.zeros((), dtype=np.bool_, device=device)


def array_equal(a1, a2, equal_nan=False):
    """Whether ``a1`` and ``a2`` have the same shape and elements (NaN equal to
    NaN with ``equal_nan``), as a 0-d bool NPUArray (``numpy.array_equal``)."""
    a1, a2 = as_device(a1, "array_equal"), as_device(a2, "array_equal")
    if a1.shape != a2.shape:
        return _false(a1.device)
    same = ew.equal(a1, a2)
    if equal_nan:
        same = ew.logical_or(same, ew.logical_and(ew.isnan(a1), ew.isnan(a2)))
    return _utility.all(same)


def array_equiv(a1, a2):
    """Whether ``a1`` and ``a2`` broadcast to each other with equal elements,
    as a 0-d bool NPUArray (``numpy.array_equiv``)."""
    a1, a2 = as_device(a1, "array_equiv"), as_device(a2, "array_equiv")
    try:
        ew.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return _false(a1.device)
    return _utility.all(ew.equal(a1, a2))


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
    from .._core._indexing import take
    from .._core._linear_algebra import matmul
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
