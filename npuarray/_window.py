"""NumPy's window functions (``numpy.bartlett``, ``blackman``, ``hamming``,
``hanning``, ``kaiser``) and the Bessel function ``numpy.i0`` they need, on the
device.

Each window is computed in float64 on the current stream of the default device
(or of ``device=``): an aclnnArange sample grid mapped through element-wise
operators (aclnnCos, aclnnMul, aclnnAdd, aclnnSqrt, aclnnExp, aclnnSWhere), with
NumPy's formulas, so results agree with NumPy's to rounding.
"""
import math
import operator

import numpy as np

from ._core._creation import arange, empty, full, ones
from ._core._data_type import BFLOAT16, is_floating
from ._core._elementwise import (abs as _abs, add, cos, divide, exp, less_equal, multiply, sqrt,
                           subtract, where)
from ._core._manipulation import astype
from ._operands import as_device

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser", "i0"]

# Cephes' Chebyshev coefficients for exp(-x) I0(x) on [0, 8] (argument x/2 - 2)
# and for exp(-x) sqrt(x) I0(x) on (8, inf) (argument 32/x - 2), as NumPy's
# numpy/lib/_function_base_impl.py uses them.
_I0_A = (-4.41534164647933937950e-18, 3.33079451882223809783e-17,
         -2.43127984654795469359e-16, 1.71539128555513303061e-15,
         -1.16853328779934516808e-14, 7.67618549860493561688e-14,
         -4.85644678311192946090e-13, 2.95505266312963983461e-12,
         -1.72682629144155570723e-11, 9.67580903537323691224e-11,
         -5.18979560163526290666e-10, 2.65982372468238665035e-9,
         -1.30002500998624804212e-8, 6.04699502254191894932e-8,
         -2.67079385394061173391e-7, 1.11738753912010371815e-6,
         -4.41673835845875056359e-6, 1.64484480707288970893e-5,
         -5.75419501008210370398e-5, 1.88502885095841655729e-4,
         -5.76375574538582365885e-4, 1.63947561694133579842e-3,
         -4.32430999505057594430e-3, 1.05464603945949983183e-2,
         -2.37374148058994688156e-2, 4.93052842396707084878e-2,
         -9.49010970480476444210e-2, 1.71620901522208775349e-1,
         -3.04682672343198398683e-1, 6.76795274409476084995e-1)
_I0_B = (-7.23318048787475395456e-18, -4.83050448594418207126e-18,
         4.46562142029675999901e-17, 3.46122286769746109310e-17,
         -2.82762398051658348494e-16, -3.42548561967721913462e-16,
         1.77256013305652638360e-15, 3.81168066935262242075e-15,
         -9.55484669882830764870e-15, -4.15056934728722208663e-14,
         1.54008621752140982691e-14, 3.85277838274214270114e-13,
         7.18012445138366623367e-13, -1.79417853150680611778e-12,
         -1.32158118404477131188e-11, -3.14991652796324136454e-11,
         1.18891471078464383424e-11, 4.94060238822496958910e-10,
         3.39623202570838634515e-9, 2.26666899049817806459e-8,
         2.04891858946906374183e-7, 2.89137052083475648297e-6,
         6.88975834691682398426e-5, 3.36911647825569408990e-3,
         8.04490411014108831608e-1)


def _chbevl(x, coefficients):
    """Clenshaw's recurrence for a Chebyshev series at ``x`` (Cephes' chbevl)."""
    b0, b1, b2 = coefficients[0], 0.0, 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = add(subtract(multiply(x, b1), b2), c)
    return multiply(subtract(b0, b2), 0.5)


def i0(x):
    """Modified Bessel function of the first kind, order 0 (``numpy.i0``).

    ``x``: an NPUArray or scalar of real dtype; bool and integers compute in
    float64, floating dtypes in their own (NumPy's rule; bfloat16 in float32,
    rounded back), the result has
    ``x``'s shape. Both of Cephes' Chebyshev expansions (``|x| <= 8`` and ``|x| > 8``)
    are evaluated on the device with element-wise operators (aclnnMul, aclnnAdd,
    aclnnExp, aclnnSqrt, aclnnSWhere) on the current stream of ``x``'s device;
    float64 is accurate to about 1e-15 relative, as NumPy's.

    Raises TypeError for complex input, as NumPy does.
    """
    x = as_device(x, "i0")
    if x.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    if x.dtype == BFLOAT16:  # 8 bits of mantissa lose 1% over the 30-term series
        return astype(i0(astype(x, np.float32)), BFLOAT16)
    if not is_floating(x.dtype):
        x = astype(x, np.float64)
    x = _abs(x)
    small = less_equal(x, 8.0)
    # Each branch sees only arguments of its own range (the other's are
    # replaced by a harmless value), so neither overflows nor divides by 0.
    near = where(small, x, 8.0)
    far = where(small, 9.0, x)
    near_value = multiply(exp(near), _chbevl(subtract(divide(near, 2.0), 2.0), _I0_A))
    far_value = divide(multiply(exp(far), _chbevl(subtract(divide(32.0, far), 2.0), _I0_B)),
                       sqrt(far))
    return where(small, near_value, far_value)


def _length(M, name):
    """The window length as a Python float (NumPy takes any real number)."""
    if isinstance(M, (complex, np.complexfloating)) or not isinstance(M, (int, float, np.number)):
        try:
            M = operator.index(M)
        except TypeError:
            raise TypeError(f"{name}: M must be a real number, got {type(M).__name__}") from None
    return float(M)


def _symmetric_grid(M, device):
    """``n = arange(1 - M, M, 2)`` in float64: the centred sample positions."""
    return arange(1.0 - M, M, 2.0, dtype=np.float64, device=device)


def _trivial(M, device):
    """The window for ``M < 1`` (empty) or ``M == 1`` (a single 1.0), or None."""
    if M < 1:
        return empty((0,), dtype=np.float64, device=device)
    if M == 1:
        return ones((1,), dtype=np.float64, device=device)
    return None


def _cosine_window(M, coefficients, name, device):
    """``c_0 + sum_k c_k cos(k pi n / (M - 1))`` over the centred grid, summed
    in NumPy's order."""
    M = _length(M, name)
    trivial = _trivial(M, device)
    if trivial is not None:
        return trivial
    n = _symmetric_grid(M, device)
    result = coefficients[0]
    for k, c in enumerate(coefficients[1:], 1):
        result = add(result, multiply(cos(divide(multiply(n, k * math.pi), M - 1)), c))
    return result


def bartlett(M, *, device=None):
    """The Bartlett (triangular) window of ``M`` points (``numpy.bartlett``).

    Returns a float64 NPUArray of shape ``(M,)`` (empty for ``M < 1``) made on
    the current stream of ``device`` (default: the current device) by
    aclnnArange, aclnnDiv and aclnnSWhere. ``M`` must be a real number
    (TypeError otherwise).
    """
    M = _length(M, "bartlett")
    trivial = _trivial(M, device)
    if trivial is not None:
        return trivial
    ramp = divide(_symmetric_grid(M, device), M - 1)
    return where(less_equal(ramp, 0.0), add(ramp, 1.0), subtract(1.0, ramp))


def blackman(M, *, device=None):
    """The Blackman window ``0.42 + 0.5 cos(pi n/(M-1)) + 0.08 cos(2 pi n/(M-1))``
    of ``M`` points (``numpy.blackman``): float64, shape ``(M,)``, on the
    current stream of ``device`` (aclnnArange, aclnnCos, aclnnMul, aclnnAdd)."""
    return _cosine_window(M, (0.42, 0.5, 0.08), "blackman", device)


def hamming(M, *, device=None):
    """The Hamming window ``0.54 + 0.46 cos(pi n/(M-1))`` of ``M`` points
    (``numpy.hamming``): float64, shape ``(M,)``, on the current stream of
    ``device`` (aclnnArange, aclnnCos, aclnnMul, aclnnAdd)."""
    return _cosine_window(M, (0.54, 0.46), "hamming", device)


def hanning(M, *, device=None):
    """The Hann window ``0.5 + 0.5 cos(pi n/(M-1))`` of ``M`` points
    (``numpy.hanning``): float64, shape ``(M,)``, on the current stream of
    ``device`` (aclnnArange, aclnnCos, aclnnMul, aclnnAdd)."""
    return _cosine_window(M, (0.5, 0.5), "hanning", device)


def kaiser(M, beta, *, device=None):
    """The Kaiser window ``i0(beta sqrt(1 - ((n - a)/a)**2)) / i0(beta)``,
    ``a = (M - 1)/2``, of ``M`` points (``numpy.kaiser``): float64, shape
    ``(M,)``, on the current stream of ``device``, with :func:`i0` on the
    device. ``M`` and ``beta`` must be real numbers (TypeError otherwise)."""
    M = _length(M, "kaiser")
    beta = _length(beta, "kaiser")
    if M == 1:
        return ones((1,), dtype=np.float64, device=device)
    if M < 1:
        return empty((0,), dtype=np.float64, device=device)
    alpha = (M - 1) / 2.0
    ratio = divide(subtract(arange(0.0, M, dtype=np.float64, device=device), alpha), alpha)
    argument = multiply(sqrt(subtract(1.0, multiply(ratio, ratio))), beta)
    return divide(i0(argument), i0(full((), beta, dtype=np.float64, device=device)))
