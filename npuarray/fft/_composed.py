"""complex128 FFTs of every length on the device, composed of element-wise operators.

CANN's aclfft is single precision and takes lengths whose prime factors are at most
199 (hicann/ops-fft docs/zh/API Reference/FFT_1D.md); npusim refuses the rest as it
does. These transforms run instead:

* a power of two: Stockham autosort stages (no bit reversal). The data is kept as
  ``(B, L)``: row ``b`` holds the finished length-``L`` transform of ``x[b::B]``.
  A radix-4 stage turns it into ``(B / 4, 4 L)``: with ``Z_j`` the rows
  ``j B / 4 ..`` and ``T_j = w^(j k) Z_j`` (an aclnnMul by the twiddles
  ``w = exp(-+2 pi i / 4 L)`` per part), the four quarters of each new row are the 4-point
  transforms ``(T0 + T2) +- (T1 + T3)``, ``(T0 - T2) -+ i (T1 - T3)`` (aclnnAdd,
  aclnnSub with a real or complex alpha, computed in place in strided views of the
  new array: no temporaries); an odd power of two starts with one radix-2 stage.
  ``log4 n`` stages of ten quarter-sized launches each (seven on the first, whose
  twiddles are ones).
* any other length: Bluestein's chirp transform, ``X_k = c_k sum_j (x_j c_j)
  conj(c)_(k-j)`` with ``c_j = exp(-+i pi j**2 / n)`` (``j**2 mod 2 n`` in int64, so
  the angle is exact to rounding), as a circular convolution of power-of-two length
  ``m >= 2 n - 1`` by the transforms above.

Twiddles and chirps come from aclnnExp of exact angles on the device. Errors are
those of a radix-4 FFT: ``O(u log n)`` relative to ``||x||``.
"""
import collections
import math

import numpy as np

from .._core import _ops
from .._core._creation import arange
from .._core._elementwise import conj, exp, multiply, remainder
from .._core._manipulation import flip, matrix_transpose, moveaxis, reshape
from ..runtime import _capture_guard

__all__ = []

COMPLEX128 = np.dtype(np.complex128)
_INT64 = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)


def _binary(op, x1, x2, out, stream, alpha=1):
    """``out = x1 * x2`` (aclnnMul) or ``out = x1 +- alpha x2`` (aclnnAdd, aclnnSub: a real
    or complex ``alpha``); ``out`` may be ``x1`` or ``x2`` itself."""
    if op == "aclnnMul":
        _ops.launch(op, x1, x2, out, stream=stream)
    else:
        dtype = COMPLEX128 if isinstance(alpha, complex) else _FLOAT64
        _ops.launch(op, x1, x2, _ops.acl_scalar(alpha, dtype), out, stream=stream)


_CACHE_SIZE = 64
_cache = collections.OrderedDict()   # (kind, ..., device id) -> device arrays


def _cached(key, make):
    """``make()``, kept in a small LRU cache under ``key`` (tables made inside a graph
    capture are not kept, so a graph never owns one)."""
    cached = _cache.get(key)
    if cached is not None:
        _cache.move_to_end(key)
        return cached
    made = make()
    if _capture_guard.active:
        return made
    _cache[key] = made
    while len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return made


def _powers(radix, length, sign, device):
    """The twiddles ``w^(j k)``, ``w = exp(sign 2 pi i / (radix length))``, for j = 1 ..
    radix - 1 and k < length, as a complex128 (radix - 1, length) device array (cached)."""
    def make():
        k = arange(length, dtype=_FLOAT64, device=device)
        j = reshape(arange(1, radix, dtype=_FLOAT64, device=device), (radix - 1, 1))
        angle = remainder(multiply(j, k), float(radix * length))   # j k mod radix L: exact
        return exp(multiply(angle, complex(0, sign * 2 * math.pi / (radix * length))))
    return _cached(("powers", radix, length, sign, device.id), make)


def _planes(a, axis):
    """``[a[..., j, ...] for j]`` along ``axis``: views made directly (a stage takes a dozen,
    and the indexing machinery would cost more than the launches)."""
    shape, strides = a._shape[:axis] + a._shape[axis + 1:], a._strides[:axis] + a._strides[axis + 1:]
    return [a._view(shape, strides, a._offset + j * a._strides[axis]) for j in range(a._shape[axis])]


def _blocks(a, axis, count):
    """The ``count`` equal consecutive blocks of ``a`` along ``axis``, as views."""
    size = a._shape[axis] // count
    shape, step = a._shape[:axis] + (size,) + a._shape[axis + 1:], size * a._strides[axis]
    return [a._view(shape, a._strides, a._offset + j * step) for j in range(count)]


def _butterflies(x, w, out, radix, sign, stream):
    """``out[m] = sum_j w_j x_j (sign i)^(j m)`` for radix 2 or 4, where ``x`` holds the
    parts, ``w[j - 1]`` the twiddles of part j >= 1 (None: all ones), ``out`` the target views.

    Everything happens in the target: a twiddled part is written into an output slot, and a
    sum ``u + v`` taken in u's own slot is followed by ``(u + v) - 2 v = u - v``, so that a
    radix-4 stage is ten launches on quarter-sized operands and no temporary."""
    def operand(a):                     # an output slot (int) or an array
        return out[a] if isinstance(a, int) else a

    def twiddled(j, slot):              # t_j = w_j x_j in `slot`, or x_j itself
        if w is None:
            return x[j]
        _binary("aclnnMul", x[j], w[j - 1], out[slot], stream)
        return slot

    def pair(u, v, total, difference, alpha=1):   # u + alpha v into total, u - alpha v into difference
        _binary("aclnnAdd", operand(u), operand(v), out[total], stream, alpha)
        if isinstance(u, int) and u == total:    # u is gone: (u + alpha v) - 2 alpha v
            _binary("aclnnSub", out[total], operand(v), out[difference], stream, 2 * alpha)
        else:
            _binary("aclnnSub", operand(u), operand(v), out[difference], stream, alpha)

    if radix == 2:
        pair(x[0], twiddled(1, 1), 0, 1)
        return
    pair(x[0], twiddled(2, 2), 0, 1)                 # a = t0 + t2 in 0, b = t0 - t2 in 1
    t3 = twiddled(3, 3)
    pair(twiddled(1, 2), t3, 2, 3)                   # c = t1 + t3 in 2, d = t1 - t3 in 3
    pair(0, 2, 0, 2)                                 # a + c, a - c
    pair(1, 3, 1, 3, complex(0, sign))              # b + sign i d, b - sign i d


def _stage_rows(z, radix, sign, stream):
    """Layout (..., B, M, L) (row b: the transform of x[b::B], its element m L + l at
    [b, m, l]) -> (..., B / radix, radix, M L). Each output part is written as one
    contiguous block (slot-major), which the next stage reads as a strided view; the last
    stage (B = radix) writes the C-contiguous result."""
    *batch, b, mid, length = z._shape
    batch, q, row = tuple(batch), b // radix, mid * length
    powers = reshape(_powers(radix, row, sign, z.device), (radix - 1, mid, length))
    device, axis = z._buffer.device, len(batch)
    if q > 1:
        buf = _ops.empty(batch + (radix, q, mid, length), COMPLEX128, device, stream)
        out = _planes(buf, axis)
        result = reshape(moveaxis(buf, axis, axis + 1), batch + (q, radix, row), copy=False)
    else:
        buf = _ops.empty(batch + (q, radix, mid, length), COMPLEX128, device, stream)
        out = _planes(buf, axis + 1)
        result = reshape(buf, batch + (q, radix, row))
    _butterflies(_blocks(z, axis, radix), _planes(powers, 0), out, radix, sign, stream)
    return result


def _stage_columns(z, radix, sign, stream):
    """Layout (..., L, B) (column b: transform of x[b::B]) -> (..., radix L, B / radix):
    the early stages, whose B is long, keep it as the contiguous axis."""
    *batch, length, b = z._shape
    batch, q = tuple(batch), b // radix
    parts = reshape(z, batch + (length, radix, q))
    powers = None
    if length > 1:
        powers = reshape(matrix_transpose(_powers(radix, length, sign, z.device)), (length, radix - 1, 1))
        powers = _planes(powers, 1)
    out = _ops.empty(batch + (radix, length, q), COMPLEX128, z._buffer.device, stream)
    axis = len(batch)
    _butterflies(_planes(parts, axis + 1), powers, _planes(out, axis), radix, sign, stream)
    return reshape(out, batch + (radix * length, q))


def _power_of_two(x, sign, stream):
    """Transform of the C-contiguous complex128 rows of ``x`` (..., n), n a power of 2:
    column stages while B is longer than L, then one transpose and row stages."""
    n = x._shape[-1]
    batch = x._shape[:-1]
    radices = ([2] if n.bit_length() % 2 == 0 else []) + [4] * ((n.bit_length() - 1) // 2)
    z, length = reshape(x, batch + (1, n)), 1
    stages = iter(radices)
    for radix in stages:
        if n // length < length * radix:   # B would drop below L: go on in rows
            z = reshape(_ops.copy(matrix_transpose(z)), batch + (n // length, 1, length))
            z = _stage_rows(z, radix, sign, stream)
            for later in stages:
                z = _stage_rows(z, later, sign, stream)
            return reshape(z, x._shape)
        z = _stage_columns(z, radix, sign, stream)
        length *= radix
    return reshape(z, x._shape)


def _chirp(n, sign, device):
    """exp(sign i pi (j**2 mod 2 n) / n) for j = 0 .. n - 1."""
    j = arange(n, dtype=_INT64, device=device)
    angle = _ops.cast(remainder(multiply(j, j), 2 * n), _FLOAT64)
    return exp(multiply(angle, complex(0, sign * math.pi / n)))


def _bluestein_tables(n, m, sign, device, stream):
    """The chirp ``c`` of length ``n`` scaled by ``1 / m`` (the inverse transform's factor)
    and the length-``m`` transform of the circular filter ``conj(c)`` (cached per length,
    direction and device: a transform then costs its own three power-of-two transforms'
    worth of launches less one)."""
    def make():
        chirp = _chirp(n, sign, device)
        kernel = _ops.fill_(_ops.empty((m,), COMPLEX128, device, stream), 0)
        inverse_chirp = conj(chirp)
        _ops.copy_(kernel[:n], inverse_chirp)
        if n > 1:
            _ops.copy_(kernel[m - n + 1:], flip(inverse_chirp[1:]))
        return chirp, multiply(chirp, 1.0 / m), _power_of_two(kernel, -1, stream)
    return _cached(("bluestein", n, sign, device.id), make)


def _bluestein(x, sign, stream):
    n = x._shape[-1]
    m = 1 << (2 * n - 2).bit_length()
    chirp, scaled_chirp, filter_spectrum = _bluestein_tables(n, m, sign, x.device, stream)
    padded = _ops.fill_(_ops.empty(x._shape[:-1] + (m,), COMPLEX128, x._buffer.device, stream), 0)
    _binary("aclnnMul", x, chirp, padded[..., :n], stream)
    spectrum = _power_of_two(padded, -1, stream)
    _binary("aclnnMul", spectrum, filter_spectrum, spectrum, stream)
    convolution = _power_of_two(spectrum, 1, stream)[..., :n]
    return multiply(convolution, scaled_chirp)


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
