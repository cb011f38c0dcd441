"""Exact products of fixed-point matrices held by a few balanced 8-bit digits, on the
integer matrix unit (aclnnQuantMatmulV5: int8 x int8 -> exact int32, hicann/ops-nn
matmul/quant_batch_matmul_v4/docs/aclnnQuantMatmulV5.md), for float64 ``cholesky``'s
refinement (``_cholesky64``): a float32 Cholesky factor and the Newton steps added to it.

* ``FixedPoint``: a float32 matrix with rows scaled by powers of two into
  ``|x| < limit(s)`` and truncated to the grid ``2**(-8 s)`` (``s`` digits, 2 to 4): the
  int32 word ``U = trunc(x 2**(8 s)) = sum_p X_p 2**(8 (s - p))`` (one aclnnMuls, one
  aclnnCast) in balanced digits ``X_p`` in [-128, 127]: adding 128 to each byte below
  the top one and flipping their top bits (aclnnAdds, aclnnBitwiseXorScalar) leaves each
  digit in its own byte, so the digit planes are byte views of the words, copied apart
  in the two layouts of a product's operands. ``value`` is the truncation (float32:
  exact for 3 digits, and wherever ``x`` has no bits below the grid).
* ``levels``: ``S_d = sum_(p+q=d) X_p Y_q^T``, one aclnnQuantMatmulV5 for each ``d`` (the
  planes of a row side by side, ``[X_p_hi .. X_p_lo] [Y_(d-p_hi)^T; ..; Y_(d-p_lo)^T]``),
  exact in int32 for ``4 n 128**2 < 2**31``; then ``x y^T = sum_d 2**(-8 d) S_d``
  (without the row scales): the caller adds the levels in float64, in the order its
  rounding needs.

How it relates to ``npuarray/_core/_ozaki.py`` (float64 ``matmul``, and ``prepare_matmul``
that float64 ``solve``'s residuals use): the same Ozaki scheme (Ootomo, Ozaki and Yokota,
"DGEMM on integer matrix multiplication unit", IJHPCA 2024) and the same byte digits, but
for operands that are fixed-point by construction: float32 values cut in int32 words (not
int64), a fixed number of digits (nothing read back to choose it), and every product of
digits taken, so that the products of the truncated operands are exact.
"""
import numpy as np

from .._core import _ops
from .._core._elementwise import divide, multiply
from .._core._manipulation import matrix_transpose, reshape

__all__ = []

MAX_DIGITS = 4          # an int32 word
_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_INT8 = np.dtype(np.int8)
_INT32 = np.dtype(np.int32)
_INT32_TERMS = (2 ** 31 - 1) // (128 * 128)   # longest exact int8 dot product in int32


def _offset(s):
    """128 in each of the ``s - 1`` low bytes of an int32 word."""
    return sum(0x80 << (8 * b) for b in range(s - 1))


def limit(s):
    """The bound on ``|x|`` that keeps the top one of ``s`` digits in [-128, 127]."""
    return (2 ** (8 * s - 1) - _offset(s)) / 2 ** (8 * s)


class FixedPoint:
    """A float32 matrix ``x`` (..., m, n) with rows scaled by powers of two ``scale``
    (..., m, 1), float32 or None (1), into ``|x scale| < limit(s)``, truncated to the grid
    ``2**(-8 s)`` of the scaled values (``s`` digits): ``whole``, the int32 words
    ``trunc(x scale 2**(8 s))``; ``value(dtype)``: the truncation; ``left()`` and
    ``right()``: its digit planes as the operands of ``levels``. Made on ``stream`` by aclnnMuls, aclnnCast, aclnnAdds and
    aclnnBitwiseXorScalar; values out of range are the caller's error."""

    def __init__(self, x, scale, s, stream):
        if not 2 <= s <= MAX_DIGITS:
            raise ValueError(f"FixedPoint: 2 to {MAX_DIGITS} digits, got {s}")
        self.shape, self.s, self.stream, self.scale = x._shape, s, stream, scale
        self._left = self._right = None
        factor = 2.0 ** (8 * s)
        self.whole = _ops.cast(multiply(x, factor if scale is None else multiply(scale, factor)), _INT32,
                               stream=stream)   # truncates
        offset = _ops.acl_scalar(_offset(s), _INT32)
        self.words = _ops.empty(self.whole._shape, _INT32, self.whole._buffer.device, stream)
        _ops.launch("aclnnAdds", self.whole, offset, _ops.acl_scalar(1, _INT32), self.words, stream=stream)
        _ops.launch("aclnnBitwiseXorScalar", self.words, offset, self.words, stream=stream)

    def value(self, dtype):
        """The truncated matrix, a new array: float64 (exact), or float32 (exact for up to 3
        digits, and wherever ``x`` has no bits below the grid)."""
        whole = self.whole if dtype == _FLOAT64 else _ops.cast(self.whole, dtype, stream=self.stream)
        value = multiply(whole, 2.0 ** (-8 * self.s))
        return value if self.scale is None else divide(value, self.scale)

    def last_digit(self):
        """``X_s 2**(-8 s)`` (over the row scales), float32, a new array: the truncation
        less its top ``s - 1`` digits (aclnnCast of the words' low bytes, aclnnMuls)."""
        (m, n) = self.shape[-2:]
        last = multiply(_ops.cast(self._bytes((m, n), (4 * n, 4), 0), _FLOAT32, stream=self.stream),
                        2.0 ** (-8 * self.s))
        return last if self.scale is None else divide(last, self.scale)

    def _bytes(self, shape, strides, first, words=None):
        """A view of the bytes of ``words`` (default: the words; digit ``X_s`` in byte 0,
        ``X_1`` in byte ``s - 1``: little-endian words, as on Ascend's AI cores and CANN's
        hosts)."""
        words = self.words if words is None else words
        return type(words)._from_buffer(words._buffer, words._shape[:-2] + shape,
                                        tuple(4 * st for st in words._strides[:-2]) + strides,
                                        4 * words._offset + first, _INT8)

    def left(self):
        """The planes as a left operand: (..., m, s n) int8, ``[X_s .. X_1]`` (made once, by
        one aclnnInplaceCopy)."""
        (m, n), s = self.shape[-2:], self.s
        if self._left is None:
            planes = _ops.copy(self._bytes((m, s, n), (4 * n, 1, 4), 0), stream=self.stream)
            self._left = reshape(planes, self.shape[:-2] + (m, s * n))
        return self._left

    def right(self):
        """The planes of ``x^T`` as a right operand: (..., s n, m) int8,
        ``[X_1^T; ..; X_s^T]`` (made once: the words transposed by one aclnnInplaceCopy,
        then one plain byte copy per plane; a byte gather straight from the words' columns
        costs about three times as much per plane, and the reversed order of the bytes
        would need a negative stride, which copies by gathering)."""
        (m, n), s = self.shape[-2:], self.s
        if self._right is None:
            words = _ops.copy(matrix_transpose(self.words), stream=self.stream)   # (..., n, m)
            planes = _ops.empty(self.shape[:-2] + (s, n, m), _INT8, self.words._buffer.device, self.stream)
            for q in range(s):
                _ops.copy_(planes[..., q, :, :], self._bytes((n, m), (4 * m, 4), s - 1 - q, words),
                           stream=self.stream)
            self._right = reshape(planes, self.shape[:-2] + (s * n, m))
        return self._right


def levels(x, y, unit, stream, top=None):
    """``(2**(-8 d), S_d)`` for ``d = 2 .. s + t``: ``S_d = sum_(p+q=d) X_p Y_q^T`` (int32,
    (..., m, m'), a new array each) of the ``FixedPoint`` matrices ``x`` (..., m, n), ``s``
    digits, and ``y`` (..., m', n), ``t`` digits (its top ``top`` ones, when given), one
    aclnnQuantMatmulV5 each, so that ``x.value y.value^T`` (less ``x.value y.last_digit()^T``
    for ``top = t - 1``) is the sum of the weighted levels, over the row scales. ``unit``
    is aclnnQuantMatmulV5's x2Scale, (1,) float32."""
    t = y.s if top is None else top
    for d in range(2, x.s + t + 1):
        yield 2.0 ** (-8 * d), _pairs(x, y, max(1, d - t), min(x.s, d - 1), d, unit, stream)


def _pairs(x, y, p_lo, p_hi, d, unit, stream):
    """``sum_(p = p_lo .. p_hi) X_p Y_(d-p)^T`` (int32): one aclnnQuantMatmulV5 of
    ``[X_p_hi .. X_p_lo] [Y_(d-p_hi)^T; ..; Y_(d-p_lo)^T]``, exact while
    ``(p_hi - p_lo + 1) n 128**2 < 2**31``."""
    sl, n = x.s, x.shape[-1]
    if (p_hi - p_lo + 1) * n > _INT32_TERMS:
        raise ValueError(f"levels: {n} terms overflow int32")
    left, right = x.left(), y.right()
    shape = tuple(np.broadcast_shapes(left._shape[:-2], right._shape[:-2])) + (left._shape[-2], right._shape[-1])
    out = _ops.empty(shape, _INT32, left._buffer.device, stream)
    _ops.launch("aclnnQuantMatmulV5", left[..., (sl - p_hi) * n:(sl - p_lo + 1) * n],
                right[..., (d - p_hi - 1) * n:(d - p_lo) * n, :], None, unit, None, None, None, None, None,
                False, False, 0, out, stream=stream)
    return out
