"""complex128 FFTs of every length on the device, composed of element-wise operators.

CANN's aclfft is single precision and takes lengths whose prime factors are at most
199 (hicann/ops-fft docs/zh/API Reference/FFT_1D.md); npusim refuses the rest as it
does. These transforms run instead:

* a power of two: Stockham autosort stages (no bit reversal). The data is kept as
  ``(B, L)``: row ``b`` holds the finished length-``L`` transform of ``x[b::B]``.
  A radix-4 stage turns it into ``(B / 4, 4 L)``: with ``Z_j`` the rows
  ``j B / 4 ..`` and ``T_j = w^(j k) Z_j`` (one aclnnMul by the twiddles
  ``w = exp(-+2 pi i / 4 L)``), the four quarters of each new row are the 4-point
  transforms ``(T0 + T2) +- (T1 + T3)``, ``(T0 - T2) -+ i (T1 - T3)`` (aclnnAdd,
  aclnnSub, written into strided views of the new array); an odd power of two
  starts with one radix-2 stage. ``log4 n`` stages of ten launches each.
* any other length: Bluestein's chirp transform, ``X_k = c_k sum_j (x_j c_j)
  conj(c)_(k-j)`` with ``c_j = exp(-+i pi j**2 / n)`` (``j**2 mod 2 n`` in int64, so
  the angle is exact to rounding), as a circular convolution of power-of-two length
  ``m >= 2 n - 1`` by the transforms above.

Twiddles and chirps come from aclnnExp of exact angles on the device. Errors are
those of a radix-4 FFT: ``O(u log n)`` relative to ``||x||``.
"""
import math

import numpy as np

from .. import _ops
from .._creation import arange
from .._elementwise import conj, exp, multiply, remainder
from .._manipulation import concat, flip, reshape

__all__ = []

COMPLEX128 = np.dtype(np.complex128)
_INT64 = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)


def _binary(op, x1, x2, out, stream):
    if op == "aclnnMul":
        _ops.launch(op, x1, x2, out, stream=stream)
    else:
        _ops.launch(op, x1, x2, _ops.acl_scalar(1, _FLOAT64), out, stream=stream)


def _twiddles(count, period, sign, device):
    """exp(sign 2 pi i k / period) for k = 0 .. count - 1, complex128 (count,)."""
    k = arange(count, dtype=_FLOAT64, device=device)
    return exp(multiply(k, complex(0, sign * 2 * math.pi / period)))


def _radix2(z, sign, stream):
    """(..., B, L) -> (..., B / 2, 2 L)."""
    *batch, b, length = z._shape
    half = b // 2
    even, odd = z[..., :half, :], z[..., half:, :]
    t = multiply(odd, _twiddles(length, 2 * length, sign, z.device))
    out = _ops.empty(tuple(batch) + (half, 2, length), COMPLEX128, z._buffer.device, stream)
    _binary("aclnnAdd", even, t, out[..., 0, :], stream)
    _binary("aclnnSub", even, t, out[..., 1, :], stream)
    return reshape(out, tuple(batch) + (half, 2 * length))


def _radix4(z, sign, stream):
    """(..., B, L) -> (..., B / 4, 4 L)."""
    *batch, b, length = z._shape
    quarter = b // 4
    device = z._buffer.device
    parts = reshape(z, tuple(batch) + (4, quarter, length))
    w = _twiddles(length, 4 * length, sign, z.device)   # w^k
    powers = reshape(concat([w, multiply(w, w), multiply(multiply(w, w), w)]), (3, 1, length))
    t = multiply(parts[..., 1:, :, :], powers)          # T1, T2, T3
    t0, t1, t2, t3 = parts[..., 0, :, :], t[..., 0, :, :], t[..., 1, :, :], t[..., 2, :, :]
    shape = tuple(batch) + (quarter, length)
    s02, d02, s13, d13 = (_ops.empty(shape, COMPLEX128, device, stream) for _ in range(4))
    _binary("aclnnAdd", t0, t2, s02, stream)
    _binary("aclnnSub", t0, t2, d02, stream)
    _binary("aclnnAdd", t1, t3, s13, stream)
    _binary("aclnnSub", t1, t3, d13, stream)
    rotated = multiply(d13, complex(0, sign))             # sign i (T1 - T3)
    out = _ops.empty(tuple(batch) + (quarter, 4, length), COMPLEX128, device, stream)
    _binary("aclnnAdd", s02, s13, out[..., 0, :], stream)
    _binary("aclnnAdd", d02, rotated, out[..., 1, :], stream)
    _binary("aclnnSub", s02, s13, out[..., 2, :], stream)
    _binary("aclnnSub", d02, rotated, out[..., 3, :], stream)
    return reshape(out, tuple(batch) + (quarter, 4 * length))


def _power_of_two(x, sign, stream):
    """Transform of the C-contiguous complex128 rows of ``x`` (..., n), n a power of 2."""
    n = x._shape[-1]
    z = reshape(x, x._shape[:-1] + (n, 1))
    if n.bit_length() % 2 == 0:   # n = 2 * 4**q
        z = _radix2(z, sign, stream)
    while z._shape[-2] > 1:
        z = _radix4(z, sign, stream)
    return reshape(z, x._shape)


def _chirp(n, sign, device):
    """exp(sign i pi (j**2 mod 2 n) / n) for j = 0 .. n - 1."""
    j = arange(n, dtype=_INT64, device=device)
    angle = _ops.cast(remainder(multiply(j, j), 2 * n), _FLOAT64)
    return exp(multiply(angle, complex(0, sign * math.pi / n)))


def _bluestein(x, sign, stream):
    n = x._shape[-1]
    m = 1 << (2 * n - 2).bit_length()
    device = x._buffer.device
    chirp = _chirp(n, sign, x.device)
    padded = _ops.fill_(_ops.empty(x._shape[:-1] + (m,), COMPLEX128, device, stream), 0)
    _binary("aclnnMul", x, chirp, padded[..., :n], stream)
    kernel = _ops.fill_(_ops.empty((m,), COMPLEX128, device, stream), 0)
    inverse_chirp = conj(chirp)
    _ops.copy_(kernel[:n], inverse_chirp)
    if n > 1:
        _ops.copy_(kernel[m - n + 1:], flip(inverse_chirp[1:]))
    spectrum = multiply(_power_of_two(padded, -1, stream), _power_of_two(kernel, -1, stream))
    convolution = _power_of_two(spectrum, 1, stream)[..., :n]
    return multiply(convolution, multiply(chirp, 1.0 / m))


def c2c(x, inverse, stream):
    """Unnormalised complex transform along the last axis of the C-contiguous
    complex128 ``x`` (forward: exp(-2 pi i jk / n); inverse: exp(+...)), a new array."""
    n = x._shape[-1]
    sign = 1 if inverse else -1
    if x.size == 0 or n == 1:
        return _ops.copy(x)
    if n & (n - 1) == 0:
        return _power_of_two(x, sign, stream)
    return _bluestein(x, sign, stream)
