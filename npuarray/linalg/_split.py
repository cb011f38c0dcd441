"""float64 matrices cut into int8 slices for exact or float64-accurate products on the
integer matrix unit (aclnnQuantMatmulV5: int8 x int8 -> exact int32, hicann/ops-nn
matmul/quant_batch_matmul_v4/docs/aclnnQuantMatmulV5.md), as the Ozaki scheme does
(Ootomo, Ozaki and Yokota, "DGEMM on integer matrix multiplication unit", IJHPCA 2024),
for the residuals of iterative refinement.

* ``Split``: refinement multiplies the same matrix ``a`` by a new thin operand at every
  step (``b - a x``), so ``a`` is cut once: each row scaled by a power of two into
  (-1, 1) and cut into ``s`` slices of 7 bits (``r = sum_p 2**(-7 p) A_p`` up to the bits
  below the last; the first slice signed, ``|A_p| <= 128``). A product cuts the columns
  of ``x`` the same way (truncated, each slice of ``x``'s sign) and a few int8 products
  give the sums ``sum_(p+q=d) A_p X_q`` for every ``d <= s + 1``; they are weighted by
  ``2**(-7 d)`` and added in float64, then the scales are undone. Every dropped bit is
  below ``2**(-7 s)`` of its row's (column's) largest element, so an element of the
  product is off by at most about ``(s + 1) n 2**(-7 s) max|a_i:| max|x_:j|`` plus the
  float64 sum's rounding; ``s`` is the smallest with ``(s + 1) sqrt(n) 2**(-7 s) <= u / 4``,
  below the ``sqrt(n) u ||a||_inf max|x|`` that LAPACK's dsgesv asks of a residual. A
  NaN or infinity in a row of ``a`` or a column of ``x`` makes that row or column of the
  product non-finite (its scale is zero or NaN). Memory: ``s`` bytes per element of
  ``a``, with temporaries of at most ``_BLOCK_BYTES``.
* ``FixedPoint`` and ``exact_product``: matrices truncated to a few slices (a float32
  Cholesky factor to 28 bits) have products that int8 products give exactly, rounded
  once to float64.
"""
import numpy as np

from .._core import _ops
from .._core._creation import arange
from .._core._data_type import to_acl_dtype
from .._core._elementwise import abs as _abs, add, divide, multiply, pow as _pow, subtract
from .._core._manipulation import expand_dims, matrix_transpose, reshape
from .._core._ozaki import power_of_two_scale
from .._core._statistical import max as _max, sum as _sum

__all__ = []

BITS = 7
_U = 2.0 ** -53
_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_INT8 = np.dtype(np.int8)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)
_INT32_TERMS = (2 ** 31 - 1) // (128 * 128)   # longest exact int8 dot product in int32
_INT64_SLICES = 9   # 63 bits
GROUPS = 3          # int8 products per thin product (fewer: more zero blocks multiplied)
_BLOCK_BYTES = 4 << 20


def slices_for(n):
    """The number of 7-bit slices for products over ``n`` terms (see the module's docstring)."""
    s = 1
    while (s + 1) * np.sqrt(max(n, 1)) * 2.0 ** (-BITS * s) > _U / 4:
        s += 1
    return s


def _powers(s, device, shape, reverse=False, dtype=_FLOAT64):
    """2**(7 p) for p = 1 .. s (or s .. 1), as ``dtype`` of ``shape`` (s in one place)."""
    p = arange(s, 0, -1, dtype=dtype, device=device) if reverse else arange(1, s + 1, dtype=dtype, device=device)
    return reshape(_pow(2.0, multiply(p, float(BITS))), shape)


def _cut(scaled, weights, out, stream, reverse=False, axis=-2):
    """int8 slices of ``scaled`` (values in (-1, 1)) into ``out``, the slice index at
    ``axis`` (-2: (..., m, s, n), the slices of each row side by side; -3: (..., s, n, m)
    from ``scaled`` (..., n, m), one matrix per slice), slice p at index p - 1 (or s - p
    when ``reverse``): truncations ``U_p = trunc(scaled 2**(7 p))`` (int64, ``weights`` in
    the same order), then ``A_1 = U_1``, ``A_p = U_p - 128 U_(p-1)``. Returns the
    truncations. float32 ``scaled`` is cut in float32 and int32 (up to 4 slices), float64
    in float64 and int64 (up to 9)."""
    wide = _INT32 if scaled._dtype == _FLOAT32 else _INT64
    truncated = _ops.cast(multiply(expand_dims(scaled, axis), weights), wide, stream=stream)
    s = truncated._shape[axis]

    def part(x, start, stop):
        return x[(Ellipsis, slice(start, stop)) + (slice(None),) * (-axis - 1)]
    first = s - 1 if reverse else 0
    _ops.launch("aclnnCast", part(truncated, first, first + 1), to_acl_dtype(_INT8), part(out, first, first + 1),
                stream=stream)
    if s > 1:
        later, earlier = ((0, s - 1), (1, s)) if reverse else ((1, s), (0, s - 1))
        _ops.launch("aclnnSub", part(truncated, *later), part(truncated, *earlier), _ops.acl_scalar(128, wide),
                    part(out, *later), stream=stream)
    return truncated


def _cut_by_shifts(scaled, out, stream, axis=-2, reverse=False):
    """int8 slices of ``scaled`` (values in (-1, 1)) into ``out``, laid out as ``_cut``
    does (``axis``, ``reverse``), from one integer: ``U = trunc(scaled 2**(7 t))`` (one cast;
    int32 and ``t`` up to 4 for float32, int64 and up to 9 for float64), its top 7 bits
    with the sign, ``U >> 7 (t - 1)``, then the next 7-bit groups
    ``(U >> 7 (t - p)) & 127`` (aclnnRightShift, aclnnBitwiseAndScalar), so that
    ``U = sum_p X_p 2**(7 (t - p))``; slices beyond ``t`` (float64, not ``reverse``) cut
    the remainder ``scaled - U 2**(-7 t)`` (exact, of ``scaled``'s sign) with ``_cut``.
    Returns ``U``."""
    device, s = scaled._buffer.device, out._shape[axis]
    wide, limit = (_INT32, 4) if scaled._dtype == _FLOAT32 else (_INT64, _INT64_SLICES)
    top = min(s, limit)
    whole = _ops.cast(multiply(scaled, 2.0 ** (BITS * top)), wide, stream=stream)
    shifts = arange(0, BITS * top, BITS, dtype=_FLOAT64, device=device) if reverse else \
        arange(BITS * (top - 1), -1, -BITS, dtype=_FLOAT64, device=device)
    shifts = reshape(_ops.cast(shifts, wide, stream=stream), (top,) + (1,) * (-axis - 1))
    groups = _ops.empty(whole._shape[:len(whole._shape) + axis + 1] + (top,) + whole._shape[len(whole._shape) + axis + 1:],
                        wide, device, stream)
    _ops.launch("aclnnRightShift", expand_dims(whole, axis), shifts, groups, stream=stream)

    def part(x, start, stop):
        return x[(Ellipsis, slice(start, stop)) + (slice(None),) * (-axis - 1)]
    sign = top - 1 if reverse else 0
    _ops.launch("aclnnCast", part(groups, sign, sign + 1), to_acl_dtype(_INT8), part(out, sign, sign + 1),
                stream=stream)
    if top > 1:
        low = (0, top - 1) if reverse else (1, top)
        _ops.launch("aclnnBitwiseAndScalar", part(groups, *low), _ops.acl_scalar(2 ** BITS - 1, wide),
                    part(out, *low), stream=stream)
    if s > top:
        rest = subtract(scaled, multiply(_ops.cast(whole, _FLOAT64, stream=stream), 2.0 ** (-BITS * top)))
        _cut(multiply(rest, 2.0 ** (BITS * top)), _powers(s - top, device, (s - top, 1)), part(out, top, s), stream)
    return whole, top


class Split:
    """A float64 matrix ``a`` (..., m, n), finite or not, cut into int8 slices once;
    ``product(x)`` is ``a @ x`` for thin float64 ``x`` (see the module's docstring), and
    ``norm`` its largest absolute row sum, ``||a||_inf`` (a 0-d device array). Work on
    ``stream``; nothing is read back.

    The slices of a row of ``a`` lie side by side, ``[A_1 .. A_s]`` (..., m, s n); those
    of ``x`` fill a block Hankel matrix ``H`` (..., s n, s k) whose block (p, c) (from 1)
    is ``X_(s + 2 - p - c)`` (zero where that index is below 1), so that column block
    ``c`` of ``[A_1 .. A_s] H`` is the sum of the ``A_p X_q`` with ``p + q = s + 2 - c``."""

    def __init__(self, a, stream):
        self.stream, self.device = stream, a._buffer.device
        *batch, m, n = a._shape
        self.m, self.n = m, n
        self.s = s = slices_for(n)
        magnitude = _abs(a)
        self.norm = _max(_sum(magnitude, axis=-1))
        self.sigma, _ = power_of_two_scale(_max(magnitude, axis=-1, keepdims=True))   # (..., m, 1)
        del magnitude
        slices = _ops.empty(tuple(batch) + (m, s, n), _INT8, self.device, stream)
        rows = max(1, _BLOCK_BYTES // (8 * s * n * max(1, a.size // max(1, m * n))))
        for i0 in range(0, m, rows):
            part = (Ellipsis, slice(i0, i0 + rows), slice(None))
            _cut_by_shifts(multiply(a[part], self.sigma[part]), slices[part + (slice(None),)], stream)
        self.slices = slices
        self.diagonal_weights = _pow(2.0, multiply(arange(s + 1, 1, -1, dtype=_FLOAT64, device=self.device),
                                                   -float(BITS)))   # 2**(-7 (p + q)) of column block c
        self.unit = _ops.fill_(_ops.empty((1,), _FLOAT32, self.device, stream), 1.0, stream=stream)

    def product(self, x):
        """``a @ x`` (float64, (..., m, k)) for float64 ``x`` (..., n, k)."""
        stream, s, n = self.stream, self.s, self.n
        k = x._shape[-1]
        tau, _ = power_of_two_scale(_max(_abs(x), axis=-2, keepdims=True))   # (..., 1, k)
        hankel = _ops.empty(x._shape[:-1] + (2 * s - 1, k), _INT8, self.device, stream)
        _ops.fill_(hankel, 0, stream=stream)   # (contiguous: the zeros below X_1 in one pass)
        _cut(multiply(x, tau), _powers(s, self.device, (s, 1), reverse=True), hankel[..., :s, :], stream,
             reverse=True)
        total = None
        for k0 in range(0, n, _INT32_TERMS // s):
            k1 = min(n, k0 + _INT32_TERMS // s)
            diagonals = self._diagonals(self.slices[..., k0:k1], hankel[..., k0:k1, :, :], k)
            total = diagonals if total is None else add(total, diagonals)
        return divide(divide(total, self.sigma), tau)

    def _diagonals(self, left, hankel, k):
        """sum over p + q <= s + 1 of 2**(-7 (p + q)) A_p X_q, from int8 products of
        ``GROUPS`` groups of column blocks (block ``c`` needs only the first ``s - c``
        slices of each row: the rest of its column of ``H`` is zero)."""
        stream, s, m = self.stream, self.s, self.m
        *batch, length, _, _ = hankel._shape
        left = _ops.copy(left, stream=stream) if left._shape[-1] != self.n else left
        left = reshape(left, left._shape[:-2] + (s * length,))
        right = _ops.empty(tuple(batch) + (s, length, s, k), _INT8, self.device, stream)
        for p in range(s):
            _ops.copy_(right[..., p, :, :, :], hankel[..., p:p + s, :], stream=stream)
        right = reshape(right, tuple(batch) + (s * length, s * k))
        shape = tuple(np.broadcast_shapes(left._shape[:-2], right._shape[:-2])) + (m, s * k)
        out = _ops.empty(shape, _INT32, self.device, stream)
        width = -(-s // GROUPS)
        for c0 in range(0, s, width):
            c1, depth = min(s, c0 + width), (s - c0) * length
            _ops.launch("aclnnQuantMatmulV5", left[..., :depth], right[..., :depth, c0 * k:c1 * k], None, self.unit,
                        None, None, None, None, None, False, False, 0, out[..., c0 * k:c1 * k], stream=stream)
        blocks = reshape(_ops.cast(out, _FLOAT64, stream=stream), shape[:-1] + (s, k))
        return _sum(multiply(blocks, expand_dims(self.diagonal_weights, -1)), axis=-2)


class FixedPoint:
    """A matrix ``x`` (..., m, n) with rows scaled by powers of two ``scale`` (..., m, 1)
    into (-1, 1) (None: already there), truncated to ``s`` slices of 7 bits, laid out for
    one side of ``exact_product``: ``value`` is that truncation, float64 and exact (``x``
    itself wherever ``x`` has no bits below the last slice), and ``slices`` its int8
    slices, as the left operand (..., m, s, n) with ``X_s`` first. As the right operand
    (``transposed``), ``x`` is given as its transpose (..., n, m), ``scale`` as
    (..., 1, m), and ``slices`` are (..., s, n, m), ``X_1^T`` first. Cut by
    ``_cut_by_shifts``: float32 ``x`` in int32 (at most 4 slices), float64 in int64 (at
    most 9)."""

    def __init__(self, x, scale, s, stream, transposed=False):
        self.s, self.scale, self.stream, self.transposed = s, scale, stream, transposed
        device = x._buffer.device
        dtype = _FLOAT32 if x._dtype == _FLOAT32 and s <= 4 else _FLOAT64
        x = x if x._dtype == dtype else _ops.cast(x, dtype, stream=stream)
        scaled = x if scale is None else multiply(x, _ops.cast(scale, dtype, stream=stream))
        if transposed:
            self.slices = _ops.empty(x._shape[:-2] + (s,) + x._shape[-2:], _INT8, device, stream)
            whole, top = _cut_by_shifts(scaled, self.slices, stream, axis=-3)
            whole = matrix_transpose(whole)
        else:
            self.slices = _ops.empty(x._shape[:-1] + (s, x._shape[-1]), _INT8, device, stream)
            whole, top = _cut_by_shifts(scaled, self.slices, stream, reverse=True)
        if top < s:
            raise ValueError(f"FixedPoint: at most {top} slices of {x._dtype}")
        value = multiply(_ops.cast(whole, _FLOAT64, stream=stream), 2.0 ** (-BITS * s))
        self.value = value if scale is None else divide(value, scale if not transposed else matrix_transpose(scale))


def exact_product(left, right, unit):
    """``left.value @ right.value^T`` (float64, (..., m, m')) of two ``FixedPoint``
    matrices (..., m, n) and (..., m', n) (``right`` made ``transposed``), from every product of their slices: the sums
    ``sum_(p+q=d) X_p Y_q^T`` for each ``d``, one aclnnQuantMatmulV5 each (the slices of
    a row side by side: ``[X_p_hi .. X_p_lo] [Y_(d-p_hi)^T; ..; Y_(d-p_lo)^T]``, exact in
    int32 for ``n`` up to ``_INT32_TERMS / min(s)``), weighted by ``2**(-7 d)`` and added in
    float64 (one rounding each, smallest first), then the row scales undone. ``unit`` is
    aclnnQuantMatmulV5's x2Scale, (1,) float32."""
    if left.transposed or not right.transposed:
        raise ValueError("exact_product: the right operand's slices must be transposed, the left one's not")
    stream, sl, sr = left.stream, left.s, right.s
    *batch, m, _, n = left.slices._shape
    if min(sl, sr) * n > _INT32_TERMS:
        raise ValueError(f"exact_product: {n} terms overflow int32")
    x1 = reshape(left.slices, tuple(batch) + (m, sl * n))
    x2 = reshape(right.slices, right.slices._shape[:-3] + (sr * n, right.slices._shape[-1]))
    shape = tuple(np.broadcast_shapes(x1._shape[:-2], x2._shape[:-2])) + (m, x2._shape[-1])
    total = _ops.empty(shape, _FLOAT64, x1._buffer.device, stream)
    diagonal = _ops.empty(shape, _INT32, x1._buffer.device, stream)
    for d in range(sl + sr, 1, -1):   # smallest first
        p_lo, p_hi = max(1, d - sr), min(sl, d - 1)
        _ops.launch("aclnnQuantMatmulV5", x1[..., (sl - p_hi) * n:(sl - p_lo + 1) * n],
                    x2[..., (d - p_hi - 1) * n:(d - p_lo) * n, :], None, unit, None, None, None, None, None,
                    False, False, 0, diagonal, stream=stream)
        weight = _ops.acl_scalar(2.0 ** (-BITS * d), _FLOAT64)
        if d == sl + sr:
            _ops.launch("aclnnMuls", diagonal, weight, total, stream=stream)
        else:
            _ops.launch("aclnnInplaceAdd", total, diagonal, weight, stream=stream)
    if left.scale is not None:
        total = divide(total, left.scale)
    if right.scale is not None:
        total = divide(total, right.scale)
    return total


def exact_square(left, right, unit):
    """``x x^T`` (float64, (..., m, m)) of a ``FixedPoint`` matrix ``x`` given in both
    layouts (``left``, and ``right`` made from ``x^T``), without its row scales: as
    ``exact_product``, but ``X_p X_q^T`` and ``X_q X_p^T = (X_p X_q^T)^T`` come from one
    product (``p < q``), so that ``s (s + 1) / 2`` of the ``s**2`` products of slices are
    multiplied: ``H = sum_d 2**(-7 d) (sum_(p<q, p+q=d) X_p X_q^T + X_(d/2) X_(d/2)^T / 2)``
    and ``x x^T = H + H^T``."""
    stream, s = left.stream, left.s
    *batch, m, _, n = left.slices._shape
    if s * n > _INT32_TERMS:
        raise ValueError(f"exact_square: {n} terms overflow int32")
    x1 = reshape(left.slices, tuple(batch) + (m, s * n))
    x2 = reshape(right.slices, right.slices._shape[:-3] + (s * n, m))
    total = _ops.empty(tuple(batch) + (m, m), _FLOAT64, x1._buffer.device, stream)
    block = _ops.empty(tuple(batch) + (m, m), _INT32, x1._buffer.device, stream)
    first = True
    for d in range(2 * s, 1, -1):   # smallest first
        pieces = []
        p_lo, p_hi = max(1, d - s), (d - 1) // 2
        if p_lo <= p_hi:   # X_p X_q^T, p < q: [X_p_hi .. X_p_lo] [X_(d-p_hi)^T; ..; X_(d-p_lo)^T]
            pieces.append((s - p_hi, s - p_lo + 1, d - p_hi - 1, d - p_lo, 2.0 ** (-BITS * d)))
        if d % 2 == 0:
            pieces.append((s - d // 2, s - d // 2 + 1, d // 2 - 1, d // 2, 2.0 ** (-BITS * d - 1)))
        for a0, a1, b0, b1, weight in pieces:
            _ops.launch("aclnnQuantMatmulV5", x1[..., a0 * n:a1 * n], x2[..., b0 * n:b1 * n, :], None, unit, None,
                        None, None, None, None, False, False, 0, block, stream=stream)
            weight = _ops.acl_scalar(weight, _FLOAT64)
            if first:
                _ops.launch("aclnnMuls", block, weight, total, stream=stream)
                first = False
            else:
                _ops.launch("aclnnInplaceAdd", total, block, weight, stream=stream)
    return add(total, matrix_transpose(total))
