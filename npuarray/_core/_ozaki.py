"""float64 matrix products on the integer matrix unit: the Ozaki scheme.

CANN's aclnnMatmul has no float64 (hicann/ops-nn matmul/mat_mul_v3/docs/aclnnMatmul.md);
its quantised product aclnnQuantMatmulV5 multiplies int8 matrices exactly into int32
(x1, x2 INT8, out INT32: "the scales take no part", hicann/ops-nn
matmul/quant_batch_matmul_v4/docs/aclnnQuantMatmulV5.md). Following Ootomo, Ozaki and
Yokota ("DGEMM on integer matrix multiplication unit", IJHPCA 2024):

* each row of ``a`` is scaled by a power of two ``sigma_i`` (each column of ``b`` by
  ``tau_j``) so that its largest magnitude lies in [1/4, 1) — exact;
* the scaled values are cut into ``s`` int8 slices of 7 bits each,
  ``r = sum_p A_p 2**(-7 p)`` (truncation toward zero, so every slice has the sign of
  ``r`` and ``|A_p| <= 127``): ``U_p = trunc(r 2**(7 p))``, ``A_p = U_p - 128 U_(p-1)``;
* the products of slices whose exponents sum to ``d + 1`` (``sum_(p+q=d+1) A_p B_q``) are
  one int8 product of the concatenated slices ``[A_1 .. A_d] @ [B_d; ..; B_1]`` — exact
  in int32 while ``d K 127**2 < 2**31`` (longer sums are cut along K);
* the ``s`` diagonals ``d = s .. 1`` are added in float64, smallest first, scaled by
  ``2**(-7 (d + 1))``, then the row and column scales are undone — exact but for the
  ``s`` additions.

Products with ``p + q > s + 1`` and the bits below the last slice are dropped: each
term ``a_ik b_kj`` loses at most ``(s + 1) 2**(-7 s)`` in scaled units (the scaled
values are below 1), so the error of an element is at most ``(s + 1) 2**(-7 s)``
times the number of k with ``a_ik b_kj != 0`` (at most the nonzeros of the row or
column). The number of slices is the smallest that keeps this and the ``s`` float64
additions (at most ``s u (|A| |B|)_ij``) under dgemm's bound ``K u (|A| |B|)_ij`` for
every element (``|A| |B|`` bounded below by an int8 product of the scaled magnitudes'
top 7 bits). Inputs that defeat the scheme — a NaN or infinity, row or
column scales beyond 2**+-900, or a within-row spread of exponents that would need
more than ``MAX_SLICES`` slices — are left to the caller's composed product (``product``
returns False), as is any product during a graph capture (choosing ``s`` reads a few
numbers back).

Memory: the int8 slices of ``b`` (``s K N`` bytes) and of a block of rows of ``a``,
plus temporaries of at most ``_BLOCK_BYTES`` each.
"""
import math

import numpy as np

from . import _elementwise, _manipulation, _ops, _statistical
from ._creation import arange
from ._data_type import to_acl_dtype
from ..runtime import _capture_guard

__all__ = []

FLOAT64 = np.dtype(np.float64)
_INT8 = np.dtype(np.int8)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)
_FLOAT32 = np.dtype(np.float32)
BITS = 7                  # bits per slice: |slice| <= 127
MAX_SLICES = 11           # beyond this the composed product is as fast
MIN_MULTIPLY_ADDS = 1 << 15   # smaller products: the composed product's few launches win
MIN_SIDE = 32             # thinner products (matrix-vector): slicing costs more than the composed sums
_UNIT_ROUNDOFF = 2.0 ** -53
_MAX_EXPONENT = 900       # row / column scales beyond 2**+-900 could overflow when undone
_INT32_LIMIT = 2 ** 31 - 1
_BLOCK_BYTES = 4 << 20    # temporaries of one step (the peak memory of a product)
_SLICE_BYTES = 16 << 20   # int8 slices of a block of rows of a (x2 is packed once per block)


def product(a, b, out, stream):
    """``out[...] = a @ b`` for float64 ``a`` (..., M, K), ``b`` (..., K, N) and a
    C-contiguous float64 ``out`` of their broadcast (..., M, N), by int8 slices on
    aclnnQuantMatmulV5, on ``stream``. Returns False, having done nothing to ``out``,
    when the emulation does not apply (see the module's docstring); reads back a few
    numbers (which waits for ``stream``) to choose the number of slices."""
    (m, k), n = a._shape[-2:], b._shape[-1]
    if m * n * k < MIN_MULTIPLY_ADDS or min(m, n) < MIN_SIDE or _capture_guard.capture_of(stream) is not None:
        return False
    scales = _Scales(a, b, stream)
    s = scales.slices()
    if s is None:
        return False
    chunk = max(1, _INT32_LIMIT // (s * 127 * 127))
    for k0 in range(0, k, chunk):
        k1 = min(k, k0 + chunk)
        b_slices = _slices_of_b(b[..., k0:k1, :], scales.tau, s, stream)
        rows = max(1, min(m, _SLICE_BYTES // max(1, s * (k1 - k0) + 4 * n)))
        for i0 in range(0, m, rows):
            i1 = min(m, i0 + rows)
            a_slices = _slices_of_a(a[..., i0:i1, k0:k1], scales.sigma[..., i0:i1, :], s, stream)
            _add_diagonals(a_slices, b_slices, out[..., i0:i1, :], s, scales.unit, k0 > 0, stream)
    _ops.launch("aclnnInplaceDiv", out, scales.sigma, stream=stream)
    _ops.launch("aclnnInplaceDiv", out, scales.tau, stream=stream)
    return True


def power_of_two_scale(largest):
    """``2**-e`` with ``largest * 2**-e`` in [1/4, 1) (1/2 for zero rows): from log2,
    whose rounding can only lower the result into [1/4, 1/2)."""
    safe = _elementwise.where(_elementwise.equal(largest, 0), 1.0, largest)
    exponent = _elementwise.add(_elementwise.floor(_elementwise.log2(safe)), 1.0)
    # a log2 a few ulps low at a power of two would leave largest * scale = 1: one more
    exponent = _elementwise.add(exponent, _elementwise.greater_equal(
        _elementwise.multiply(safe, _elementwise.pow(2.0, _elementwise.negative(exponent))), 1.0))
    return _elementwise.pow(2.0, _elementwise.negative(exponent)), exponent


def _largest(x, axis):
    """max |x| along ``axis`` (kept), from aclnnAmax and aclnnAmin: no |x| temporary."""
    return _elementwise.maximum(_statistical.max(x, axis=axis, keepdims=True),
                                _elementwise.negative(_statistical.min(x, axis=axis, keepdims=True)))


def _magnitude_and_count(x, scale, axis, dtype, stream):
    """(|x| scale cast to ``dtype``: int8 truncates, as floor (|x| scale < 128), or
    float32; the number of nonzeros along ``axis`` (kept, float64)), made in blocks of
    ``_BLOCK_BYTES`` along the other axis (-1: rows of a, -2: columns of b)."""
    other = -2 if axis == -1 else -1
    count, length = x._shape[other], x._shape[axis]
    device = x._buffer.device
    magnitude = _ops.empty(x._shape, dtype, device, stream)
    kept = list(x._shape)
    kept[axis] = 1
    nonzero = _ops.empty(tuple(kept), FLOAT64, device, stream)
    step = max(1, _BLOCK_BYTES // (8 * length * max(1, x.size // max(1, count * length))))
    for j0 in range(0, count, step):
        part = (Ellipsis, slice(j0, j0 + step), slice(None)) if axis == -1 else \
            (Ellipsis, slice(None), slice(j0, j0 + step))
        block = x[part]
        _ops.launch("aclnnCast", _elementwise.multiply(_elementwise.abs(block), scale[part]), to_acl_dtype(dtype),
                    magnitude[part], stream=stream)
        _ops.copy_(nonzero[part], _statistical.sum(_elementwise.not_equal(block, 0), axis=axis, keepdims=True,
                                                   dtype=FLOAT64), stream=stream)
    return magnitude, nonzero


class _Scales:
    """Row scales of ``a``, column scales of ``b`` and what the number of slices
    depends on, computed in blocks on the device."""

    def __init__(self, a, b, stream):
        self.a, self.b, self.stream = a, b, stream
        self.k = a._shape[-1]
        self.unit = _unit_scale(a._buffer.device, stream)
        self.sigma, a_exp = power_of_two_scale(_largest(a, -1))
        self.tau, b_exp = power_of_two_scale(_largest(b, -2))
        self.exponents = _statistical.max(_elementwise.abs(_manipulation.concat(
            [_manipulation.reshape(a_exp, (-1,)), _manipulation.reshape(b_exp, (-1,))])))
        self.ratio = self._ratio(exact=False)

    def _ratio(self, exact):
        """max over elements of (the number of k with a_ik b_kj != 0) / (|A| |B|)_ij in
        scaled units. The first bounds the dropped terms (each below 2**(-7 s) of the
        scaled unit); it is at most the smaller of the nonzeros of row i of a and of
        column j of b (equal for dense inputs, 0 for a zero row or column). The second is
        dgemm's bound without K u, bounded below either (not ``exact``) by the int8
        product (aclnnQuantMatmulV5) of floor(2**bits |A|) and floor(2**bits |B|) over
        2**(2 bits) (7 bits while that sum fits int32: cheap, but blind to products of
        entries below 2**-7 of their row's or column's largest), or (``exact``) by a
        float32 aclnnMatmul of the magnitudes (only values underflowing float32 lower it).
        A zero bound where the count is not makes the ratio infinite. In blocks of columns
        of b and rows of a, whose copies are made per block."""
        a, b, stream = self.a, self.b, self.stream
        m, k, n = a._shape[-2], self.k, b._shape[-1]
        bits = 0 if exact else min(BITS, (_INT32_LIMIT // k).bit_length() // 2)   # k (2**bits - 1)**2 < 2**31
        dtype = _FLOAT32 if exact else _INT8
        columns = max(1, min(n, _BLOCK_BYTES // (dtype.itemsize * 2 * k * max(1, b.size // (k * n)))))
        rows = max(1, _BLOCK_BYTES // (8 * max(columns, k) * max(1, a.size // (m * k))))
        maxima = []
        for j0 in range(0, n, columns):
            b_magnitude, b_count = _magnitude_and_count(
                b[..., j0:j0 + columns], _elementwise.multiply(self.tau[..., j0:j0 + columns], 2.0 ** bits), -2,
                dtype, stream)
            for i0 in range(0, m, rows):
                a_magnitude, a_count = _magnitude_and_count(
                    a[..., i0:i0 + rows, :], _elementwise.multiply(self.sigma[..., i0:i0 + rows, :], 2.0 ** bits),
                    -1, dtype, stream)
                size = self._product_of_magnitudes(a_magnitude, b_magnitude, exact)
                count = _elementwise.multiply(_elementwise.minimum(a_count, b_count), 2.0 ** (2 * bits))
                maxima.append(_statistical.max(_elementwise.divide(
                    count, _elementwise.maximum(_ops.cast(size, FLOAT64, stream=stream), 2.0 ** -900))))
        return _statistical.max(_manipulation.stack(maxima))

    def _product_of_magnitudes(self, x1, x2, exact):
        if not exact:
            return _quant_product(x1, x2, self.unit, self.stream)
        size = _ops.empty(_elementwise.broadcast_shapes(x1._shape[:-2], x2._shape[:-2])
                          + (x1._shape[-2], x2._shape[-1]), _FLOAT32, x1._buffer.device, self.stream)
        _ops.launch("aclnnMatmul", x1, x2, size, 0, stream=self.stream)
        return size

    def slices(self):
        """The number of slices, or None when the emulation does not apply: from the int8
        bound, or where that cannot bound every element, from the float32 one."""
        exponents, ratio = (float(v) for v in _manipulation.stack(
            [self.exponents, self.ratio]).to_host())
        if not math.isfinite(exponents) or exponents > _MAX_EXPONENT:
            return None
        s = self._slices_for(ratio)
        if s is None and math.isfinite(ratio):
            s = self._slices_for(float(self._ratio(exact=True).to_host()))
        return s

    def _slices_for(self, ratio):
        for s in range(1, MAX_SLICES + 1):
            # dropped terms + the s float64 additions (at most s u (|A| |B|)_ij) within K u
            if (s + 1) * 2.0 ** (-BITS * s) * ratio <= (self.k - s - 1) * _UNIT_ROUNDOFF:
                return s
        return None


def _weights(s, device, stream, reverse=False):
    """2**(7 p) for p = 1 .. s (or s .. 1) as a float64 device vector."""
    p = arange(s, 0, -1, dtype=FLOAT64, device=device) if reverse else \
        arange(1, s + 1, dtype=FLOAT64, device=device)
    return _elementwise.pow(2.0, _elementwise.multiply(p, float(BITS)))


def _slice_into(truncated, slices, axis, stream):
    """int8 slices from ``truncated`` (int64 ``U_p`` along ``axis`` of the slice
    index, in the order of ``slices``): the first (outermost) as it is, then
    ``U_p - 128 U_(p-1)``. ``axis`` is the slice axis, -2 (a) or -3 (b)."""
    def part(x, start, stop):
        index = (Ellipsis, slice(start, stop)) + (slice(None),) * (-axis - 1)
        return x[index]
    s = truncated._shape[axis]
    outer = 0 if axis == -2 else s - 1   # where U_1 lives (b is stored reversed)
    int8 = to_acl_dtype(_INT8)
    _ops.launch("aclnnCast", part(truncated, outer, outer + 1), int8, part(slices, outer, outer + 1),
                stream=stream)
    if s == 1:
        return
    if axis == -2:
        later, earlier, target = part(truncated, 1, s), part(truncated, 0, s - 1), part(slices, 1, s)
    else:
        later, earlier, target = part(truncated, 0, s - 1), part(truncated, 1, s), part(slices, 0, s - 1)
    # the difference, in [-127, 127], stored into the int8 slices (aclnnSub casts on store)
    _ops.launch("aclnnSub", later, earlier, _ops.acl_scalar(128, _INT64), target, stream=stream)


def _slices_of_a(a, sigma, s, stream):
    """(..., rows, s, K) int8 slices of the rows of ``a`` scaled by ``sigma``."""
    device = a._buffer.device
    rows, k = a._shape[-2:]
    slices = _ops.empty(a._shape[:-1] + (s, k), _INT8, device, stream)
    scale = _elementwise.multiply(_manipulation.expand_dims(sigma, -1),
                                  _manipulation.reshape(_weights(s, device, stream), (s, 1)))
    step = max(1, _BLOCK_BYTES // (8 * s * k * max(1, a.size // (rows * k))))
    for i0 in range(0, rows, step):
        part = _manipulation.expand_dims(a[..., i0:i0 + step, :], -2)
        truncated = _ops.cast(_elementwise.multiply(part, scale[..., i0:i0 + step, :, :]), _INT64, stream=stream)
        _slice_into(truncated, slices[..., i0:i0 + step, :, :], -2, stream)
    return slices


def _slices_of_b(b, tau, s, stream):
    """(..., s, K, N) int8 slices of the columns of ``b`` scaled by ``tau``, in the
    order B_s .. B_1 (so that ``[B_d; ..; B_1]`` is a contiguous tail)."""
    device = b._buffer.device
    k, n = b._shape[-2:]
    slices = _ops.empty(b._shape[:-2] + (s, k, n), _INT8, device, stream)
    scale = _elementwise.multiply(_manipulation.expand_dims(tau, -3),
                                  _manipulation.reshape(_weights(s, device, stream, reverse=True), (s, 1, 1)))
    step = max(1, _BLOCK_BYTES // (8 * s * n * max(1, b.size // (k * n))))
    for k0 in range(0, k, step):
        part = _manipulation.expand_dims(b[..., k0:k0 + step, :], -3)
        truncated = _ops.cast(_elementwise.multiply(part, scale), _INT64, stream=stream)
        _slice_into(truncated, slices[..., :, k0:k0 + step, :], -3, stream)
    return slices


def _unit_scale(device, stream):
    """x2Scale of aclnnQuantMatmulV5: (1,) float32 ones (unused for INT32 out)."""
    scale = _ops.empty((1,), _FLOAT32, device, stream)
    return _ops.fill_(scale, 1.0, stream=stream)


def _quant_product(x1, x2, unit, stream, out=None):
    """int32 ``x1 @ x2`` of int8 matrices (aclnnQuantMatmulV5 with x2Scale ``unit``)."""
    if out is None:
        shape = _elementwise.broadcast_shapes(x1._shape[:-2], x2._shape[:-2]) + (x1._shape[-2], x2._shape[-1])
        out = _ops.empty(shape, _INT32, x1._buffer.device, stream)
    _ops.launch("aclnnQuantMatmulV5", x1, x2, None, unit, None, None, None, None, None, False, False, 0, out,
                stream=stream)
    return out


def _add_diagonals(a_slices, b_slices, out, s, unit, accumulate, stream):
    """``out (+)= sum_d 2**(-7 (d + 1)) [A_1 .. A_d] @ [B_d; ..; B_1]``, d = s .. 1
    (the first written over ``out`` unless ``accumulate``)."""
    k, n = a_slices._shape[-1], b_slices._shape[-1]
    a_flat = _manipulation.reshape(a_slices, a_slices._shape[:-2] + (s * k,))
    b_flat = _manipulation.reshape(b_slices, b_slices._shape[:-3] + (s * k, n))
    diagonal = None
    for d in range(s, 0, -1):
        diagonal = _quant_product(a_flat[..., :d * k], b_flat[..., (s - d) * k:, :], unit, stream, diagonal)
        weight = _ops.acl_scalar(2.0 ** (-BITS * (d + 1)), FLOAT64)
        if d == s and not accumulate:
            _ops.launch("aclnnMuls", diagonal, weight, out, stream=stream)
        else:
            _ops.launch("aclnnInplaceAdd", out, diagonal, weight, stream=stream)
