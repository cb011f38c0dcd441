"""Exact products of matrices that a few 7-bit int8 slices hold, on the integer matrix
unit (aclnnQuantMatmulV5: int8 x int8 -> exact int32, hicann/ops-nn
matmul/quant_batch_matmul_v4/docs/aclnnQuantMatmulV5.md), for float64 ``cholesky``'s
refinement (``_refine``): a float32 Cholesky factor truncated to 28 bits (4 slices) and
the Newton steps added to it.

* ``FixedPoint``: a matrix with rows scaled by powers of two into (-1, 1) and truncated
  to ``s`` slices of 7 bits (``x = sum_p 2**(-7 p) X_p``, ``X_1`` the signed top bits,
  the others in [0, 127]); ``value`` is that truncation, exactly.
* ``exact_product`` and ``exact_square``: ``left.value @ right.value^T`` from every
  product of slices, exact in int32, rounded to float64 once per diagonal added.

How it relates to ``npuarray/_core/_ozaki.py`` (float64 ``matmul``, and
``prepare_matmul`` that float64 ``solve``'s residuals use): the same Ozaki scheme
(Ootomo, Ozaki and Yokota, "DGEMM on integer matrix multiplication unit", IJHPCA 2024),
but for operands that are fixed-point by construction rather than any float64 matrix.
``_ozaki`` chooses its number of 8-bit balanced digits per product from an error bound
(reading two numbers back), takes only the triangular set of digit products and is
accurate to dgemm's bound; here the truncation to ``s`` slices is the operand itself
(``value``: ``L0 = value`` has no error to bound), every product of slices is taken,
nothing is read back, float32 operands are cut in int32 words (half the bytes of
``_ozaki``'s int64 ones), and a symmetric ``x x^T`` costs ``s (s + 1) / 2`` of the
``s**2`` slice products (``exact_square``).
"""
import numpy as np

from .._core import _ops
from .._core._creation import arange
from .._core._data_type import to_acl_dtype
from .._core._elementwise import add, divide, multiply
from .._core._manipulation import expand_dims, matrix_transpose, reshape

__all__ = []

BITS = 7
_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_INT8 = np.dtype(np.int8)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)
_INT32_TERMS = (2 ** 31 - 1) // (128 * 128)   # longest exact int8 dot product in int32
_INT64_SLICES = 9   # 63 bits


def _cut_by_shifts(scaled, out, stream, axis=-2, reverse=False):
    """int8 slices of ``scaled`` (values in (-1, 1)) into ``out``, the slice index at
    ``axis`` (-2: (..., m, s, n), the slices of each row side by side; -3: (..., s, n, m)
    from ``scaled`` (..., n, m), one matrix per slice), slice p at index p - 1 (or s - p
    when ``reverse``), from one integer: ``U = trunc(scaled 2**(7 s))`` (one cast; int32
    for float32, int64 for float64), its top 7 bits with the sign, ``U >> 7 (s - 1)``,
    then the next 7-bit groups ``(U >> 7 (s - p)) & 127`` (aclnnRightShift,
    aclnnBitwiseAndScalar), so that ``U = sum_p X_p 2**(7 (s - p))``. Returns ``U``."""
    device, s = scaled._buffer.device, out._shape[axis]
    wide = _INT32 if scaled._dtype == _FLOAT32 else _INT64
    whole = _ops.cast(multiply(scaled, 2.0 ** (BITS * s)), wide, stream=stream)
    shifts = arange(0, BITS * s, BITS, dtype=_FLOAT64, device=device) if reverse else \
        arange(BITS * (s - 1), -1, -BITS, dtype=_FLOAT64, device=device)
    shifts = reshape(_ops.cast(shifts, wide, stream=stream), (s,) + (1,) * (-axis - 1))
    at = len(whole._shape) + axis + 1   # where the slice index goes
    groups = _ops.empty(whole._shape[:at] + (s,) + whole._shape[at:], wide, device, stream)
    _ops.launch("aclnnRightShift", expand_dims(whole, axis), shifts, groups, stream=stream)

    def part(x, start, stop):
        return x[(Ellipsis, slice(start, stop)) + (slice(None),) * (-axis - 1)]
    sign = s - 1 if reverse else 0
    _ops.launch("aclnnCast", part(groups, sign, sign + 1), to_acl_dtype(_INT8), part(out, sign, sign + 1),
                stream=stream)
    if s > 1:
        low = (0, s - 1) if reverse else (1, s)
        _ops.launch("aclnnBitwiseAndScalar", part(groups, *low), _ops.acl_scalar(2 ** BITS - 1, wide),
                    part(out, *low), stream=stream)
    return whole


class FixedPoint:
    """A matrix ``x`` (..., m, n) with rows scaled by powers of two ``scale`` (..., m, 1)
    into (-1, 1) (None: already there), truncated to ``s`` slices of 7 bits, laid out for
    one side of ``exact_product``: ``value`` is that truncation, float64 and exact (``x``
    itself wherever ``x`` has no bits below the last slice), and ``slices`` its int8
    slices, as the left operand (..., m, s, n) with ``X_s`` first. As the right operand
    (``transposed``), ``x`` is given as its transpose (..., n, m), ``scale`` as
    (..., 1, m), and ``slices`` are (..., s, n, m), ``X_1^T`` first. Cut by
    ``_cut_by_shifts``: float32 ``x`` in int32 (up to 4 slices), other ``x`` in float64 and
    int64 (up to 9: ValueError for more)."""

    def __init__(self, x, scale, s, stream, transposed=False):
        if not 1 <= s <= _INT64_SLICES:
            raise ValueError(f"FixedPoint: 1 to {_INT64_SLICES} slices, got {s}")
        self.s, self.scale, self.stream, self.transposed = s, scale, stream, transposed
        device = x._buffer.device
        dtype = _FLOAT32 if x._dtype == _FLOAT32 and s <= 4 else _FLOAT64
        x = x if x._dtype == dtype else _ops.cast(x, dtype, stream=stream)
        scaled = x if scale is None else multiply(x, _ops.cast(scale, dtype, stream=stream))
        if transposed:
            self.slices = _ops.empty(x._shape[:-2] + (s,) + x._shape[-2:], _INT8, device, stream)
            whole = matrix_transpose(_cut_by_shifts(scaled, self.slices, stream, axis=-3))
        else:
            self.slices = _ops.empty(x._shape[:-1] + (s, x._shape[-1]), _INT8, device, stream)
            whole = _cut_by_shifts(scaled, self.slices, stream, reverse=True)
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
