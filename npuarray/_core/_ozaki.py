"""float64 matrix products on the integer matrix unit: the Ozaki scheme with 8-bit digits.

CANN's aclnnMatmul has no float64 (hicann/ops-nn matmul/mat_mul_v3/docs/aclnnMatmul.md);
its quantised product aclnnQuantMatmulV5 multiplies int8 matrices exactly into int32
(x1, x2 INT8, out INT32: "the scales take no part", hicann/ops-nn
matmul/quant_batch_matmul_v4/docs/aclnnQuantMatmulV5.md). Following Ootomo, Ozaki and
Yokota ("DGEMM on integer matrix multiplication unit", IJHPCA 2024), with the
triangular ("fast mode") set of digit products:

* each row of ``a`` is scaled by a power of two ``sigma_i`` (each column of ``b`` by
  ``tau_j``) so that its largest magnitude lies in [1/4, 1) — exact;
* a scaled value ``r`` becomes the int64 word ``U = trunc(r 2**62)`` and ``U`` is
  written in balanced base-256 digits ``U = sum_p d_p 256**p`` (``d_p`` in [-128, 127],
  ``d_7`` in [-64, 64]): adding 128 to each of the low seven bytes and flipping their
  top bits (aclnnAdds, aclnnBitwiseXorScalar) leaves each digit in its own byte, so
  the digit planes are byte views of the words, copied apart (``_Digits``). In
  scaled units ``r = sum_t A_t 2**(2 - 8 t)`` (``A_t``: the digit of ``256**(8 - t)``)
  to within ``2**-62``;
* the products of digits whose weights sum to ``D`` (``sum_(t+u=D) A_t B_u``) are one
  int8 product of concatenated planes ``[A_(D-1) .. A_1] @ [B_1; ..; B_(D-1)]``,
  exact in int32 while ``(D - 1) K 128**2 < 2**31`` (longer sums are cut along K);
* the ``s`` diagonals ``D = s + 1 .. 2`` are added in float64, smallest first,
  scaled by ``2**(4 - 8 D)`` — the first few exactly (``group_size``), then one
  rounding per diagonal — then the row and column scales are undone (exact).

``slices_for`` chooses the number of digits ``s`` per operand from a bound of
(nonzero terms) / (|A| |B|)_ij so that the error stays within dgemm's bound
``K u (|A| |B|)_ij`` for every element (``|A| |B|`` bounded below by an int8 product
of the scaled magnitudes' top 7 bits, or, where that is too coarse, a float32 one).
Inputs that defeat the scheme — a NaN or infinity, row or column scales beyond
2**+-900, a spread of magnitudes that would need more than ``DIGITS`` digits — are
left to the caller's composed product (``product`` returns False), as is any product
during a graph capture (choosing ``s`` reads a few numbers back).

The digits are bytes of little-endian int64 words (Ascend's AI cores and the hosts
CANN runs on are little-endian).

``PreparedLeft`` splits a left operand once (its balanced words, whose bytes are all
eight digits) for many products with the same ``a`` (iterative refinement's residuals
``b - a x``): a thin ``b`` is multiplied by one int8 product of those bytes in place
against a table of ``b``'s digits; ``deferred_product`` does so without reading the
bound back, returning whether it holds as a device value.

Memory: operands of at most ``_KEEP_BYTES`` keep their int64 words from the error
bound to the digits (8 bytes an element); larger ones hold the int8 digits of ``b``
(``s K N`` bytes) and of a block of rows of ``a``, plus temporaries of at most
``_BLOCK_BYTES`` each (a 2048^2 product: under 3 times its operands).
"""
import math

import numpy as np

from . import _elementwise, _manipulation, _ops, _statistical, _transfer
from ._data_type import to_acl_dtype
from ..runtime import _capture_guard

__all__ = []

FLOAT64 = np.dtype(np.float64)
_INT8 = np.dtype(np.int8)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)
_FLOAT32 = np.dtype(np.float32)
BITS = 7                  # bits of the magnitudes in the error bound's int8 product
WORD_DIGITS = 8           # int8 digits of an int64 word
DIGITS = 15               # at most this many per operand: a word and seven more
MIN_MULTIPLY_ADDS = 1 << 15   # smaller products: the composed product's few launches win
MIN_SIDE = 1              # thinner products than this: the composed product
_UNIT_ROUNDOFF = 2.0 ** -53
_MAX_EXPONENT = 900       # row / column scales beyond 2**+-900 could overflow when undone
_INT32_LIMIT = 2 ** 31 - 1
_WORD_BITS = 62           # scaled values (below 1) become words below 2**62
_OFFSET = 0x0080808080808080   # 128 in each of bytes 0..6 of an int64 word
_BLOCK_BYTES = 4 << 20    # temporaries of one step (the peak memory of a product)
_QUANT_MATMUL_DIMS = 6    # aclnnQuantMatmulV5's x1 and x2: 2 to 6 dimensions (aclnnQuantMatmulV5.md)
_KEEP_BYTES = 32 << 20    # operands up to this size keep their int64 words from the bound to the digits
THIN_COLUMNS = 64         # a prepared left operand's words serve in place for b of at most this many columns
_SMALL = 1 << 16          # arrays of at most this many elements take launches over passes (largest_magnitude)
_SLICE_BYTES = 24 << 20   # digits of a block of rows of a with its int32 and float64 sums (b's
                          # digits are packed again per block: 1024^2 products take one block)


def product(a, b, out, stream, left=None):
    """``out[...] = a @ b`` for float64 ``a`` (..., M, K), ``b`` (..., K, N) and a
    C-contiguous float64 ``out`` of their broadcast (..., M, N), by int8 digits on
    aclnnQuantMatmulV5, on ``stream``; ``left``: ``a`` already split
    (``PreparedLeft``). Returns False, having done nothing to ``out``, when the
    emulation does not apply (see the module's docstring); reads back two numbers
    (which waits for ``stream``) to choose the number of digits."""
    (m, k), n = a._shape[-2:], b._shape[-1]
    if m * n * k < MIN_MULTIPLY_ADDS or min(m, n) < MIN_SIDE or _capture_guard.capture_of(stream) is not None:
        return False
    scales = _Scales(a, b, stream, left, keep=a.nbytes + b.nbytes <= _KEEP_BYTES and k <= chunk_length(DIGITS))
    s = _digits_needed(scales)
    words, scales.words = scales.words, None
    if s is None:
        return False
    if words and s <= WORD_DIGITS and left is not None and n <= THIN_COLUMNS:
        _thin_diagonals(left, _Digits.of(words.pop("b"), stream), out, s, scales.unit, stream)
    elif words and s <= WORD_DIGITS:   # the digits from the words the bound was made from
        a_flat = left.digits(s, stream) if left is not None else \
            _flat_rows(_row_planes(_Digits.of(words.pop("a"), stream), s, stream))
        b_flat = _flat_columns(_column_planes(_Digits.of(words.pop("b"), stream), s, stream))
        add_diagonals(a_flat, b_flat, k, out, s, scales.unit, False, stream)
    else:
        del words
        _in_blocks(a, b, out, s, scales, left, stream)
    _ops.launch("aclnnInplaceDiv", out, scales.sigma, stream=stream)   # powers of two: exact
    _ops.launch("aclnnInplaceDiv", out, scales.tau, stream=stream)
    return True


def _in_blocks(a, b, out, s, scales, left, stream):
    """``out = a @ b`` in scaled units with ``s`` digits, made in pieces of K (exact
    int32 sums) and blocks of rows of ``a`` (at most ``_SLICE_BYTES`` of digits and
    sums), ``b``'s digits once per piece; ``a``'s from ``left`` where it has them."""
    (m, k), n = a._shape[-2:], b._shape[-1]
    chunk = chunk_length(s)
    if left is not None and (k > chunk or left.words is None or s > WORD_DIGITS):
        left = None   # (cut along K, or more digits than it holds: split as usual)
    for k0 in range(0, k, chunk):
        k1 = min(k, k0 + chunk)
        b_flat = _flat_columns(split_columns(b[..., k0:k1, :], scales.tau, s, stream))
        rows = m if left is not None else max(1, min(m, _SLICE_BYTES // max(1, s * (k1 - k0) + 12 * n)))
        for i0 in range(0, m, rows):
            i1 = min(m, i0 + rows)
            if left is not None:
                a_flat = left.digits(s, stream)
            else:
                a_flat = _flat_rows(split_rows(a[..., i0:i1, k0:k1], scales.sigma[..., i0:i1, :], s, stream))
            add_diagonals(a_flat, b_flat, k1 - k0, out[..., i0:i1, :], s, scales.unit, k0 > 0, stream)
            del a_flat   # (before the next block's digits are made)
        del b_flat


class PreparedLeft:
    """A float64 left operand ``a`` (..., M, K) split once into int8 digits, for many
    products ``a @ b`` with different ``b`` (iterative refinement's residuals).

    Holds ``a``'s row scales, its balanced int64 words (``8 M K`` bytes, as much as
    ``a``: the eight digits of each element are its bytes), the int8 magnitudes of the
    error bound (``M K`` bytes) and the nonzeros of each row, made on ``stream``
    (aclnnMul, aclnnCast, aclnnRightShift, aclnnBitwiseXorTensor, aclnnAdds, aclnnBitwiseXorScalar,
    aclnnNeScalar, aclnnQuantMatmulV5). ``product(b, out, stream)``
    then costs the split of ``b``, the error bound's int8 product and the diagonals:
    for a thin ``b`` (at most ``THIN_COLUMNS`` columns) one int8 product of the words'
    bytes in place against a table of ``b``'s digits (``_thin_diagonals``); wider ``b``
    takes digit planes of ``a``, copied out of the words on first use. Pass it as
    ``left`` to ``product`` (which still returns False where the emulation does not
    apply: the caller's composed product then), or to ``deferred_product``. Words are
    made only when ``K`` is at most ``chunk_length(WORD_DIGITS)`` (16383); longer
    ``a``, and products that need more digits, are split per product as usual."""

    def __init__(self, a, stream, unit_rows=False):
        """``unit_rows``: the caller knows that every row's largest magnitude lies in
        [1/4, 1) (or the row is zero), so that the row scales are 1 (not computed)."""
        self.a = a
        k = a._shape[-1]
        if unit_rows:
            device = a._buffer.device
            self.sigma = _ops.fill_(_ops.empty(a._shape[:-1] + (1,), FLOAT64, device, stream), 1.0, stream=stream)
            self.largest_exponent = _ops.fill_(_ops.empty((), FLOAT64, device, stream), 0.0, stream=stream)
        else:
            self.sigma, exponent = power_of_two_scale(largest_magnitude(a, -1))
            self.largest_exponent = _statistical.max(_elementwise.abs(exponent))
        bits = _magnitude_bits(k)
        self.words = self._planes = None
        if k <= chunk_length(WORD_DIGITS):
            words = _raw_words(a, self.sigma, stream)
            self.magnitude, self.count = _magnitude_of_words(words, bits, stream), _count(a, -1, stream)
            _balance(words, stream)
            self.words = words
        else:
            self.magnitude, self.count = _magnitude_and_count(a, self.sigma, -1, _INT8, bits, stream)

    def digits(self, s, stream):
        """The top ``s`` digit planes of every row, (..., M, s K) int8 (a view of the
        planes, copied out of the words on first use: aclnnInplaceCopy)."""
        if self._planes is None:
            self._planes = _flat_rows(_row_planes(_Digits.of(self.words, stream, balanced=True), WORD_DIGITS,
                                                  stream))
        return self._planes[..., (WORD_DIGITS - s) * self.a._shape[-1]:]

    def product(self, b, out, stream):
        """``out[...] = a @ b`` as ``product(a, b, out, stream, left=self)``."""
        return product(self.a, b, out, stream, left=self)


def deferred_product(b, out, stream, left):
    """``out[...] = a @ b`` for the prepared left operand ``left`` (``PreparedLeft`` of
    ``a``) and a thin float64 ``b`` (..., K, N), with all eight digits of one word and
    without reading anything back: returns a 0-d float64 device array, 1 when the
    result is within dgemm's bound (the condition ``product`` reads back to choose the
    digits, ``slices_for``), 0 when it may not be (then ``out`` is to be made again
    with ``product``); None, having done nothing, when ``left`` has no words, ``b`` is
    wider than ``THIN_COLUMNS``, the product is small (``MIN_MULTIPLY_ADDS``, or K so
    short that the roundings of its sum leave no room) or the stream is capturing.
    The launches of ``product``'s thin path (``_thin_diagonals``), on ``stream``, but
    for the count of b's nonzeros (a zero column of b gives 0: ``product`` takes it)."""
    a = left.a
    (m, k), n = a._shape[-2:], b._shape[-1]
    s = WORD_DIGITS
    limit = ratio_limit(s, k)   # (none for a short K: the roundings alone exceed K u)
    if left.words is None or n > THIN_COLUMNS or m * n * k < MIN_MULTIPLY_ADDS or min(m, n) < MIN_SIDE \
            or limit <= 0 or _capture_guard.capture_of(stream) is not None:
        return None
    scales = _Scales(a, b, stream, left, keep=True, rows_only=True)
    total = _ops.empty(out._shape, FLOAT64, out._buffer.device, stream)
    _thin_diagonals(left, _Digits.of(scales.words.pop("b"), stream), total, s, scales.unit, stream)
    _ops.launch("aclnnDiv", total, scales.sigma, out, stream=stream)   # powers of two: exact
    _ops.launch("aclnnInplaceDiv", out, scales.tau, stream=stream)
    within = _elementwise.logical_and(_elementwise.less_equal(scales.exponents, _MAX_EXPONENT),
                                      _elementwise.less_equal(scales.ratio, limit))
    return _ops.cast(within, FLOAT64, stream=stream)


def power_of_two_scale(largest):
    """(``2**-e``, ``e``) for float64 ``largest`` (>= 0): ``e`` is frexp's exponent
    (``largest * 2**-e`` in [1/2, 1) for a normal ``largest``), int64, read from the
    float64 bits (aclnnRightShift, aclnnBitwiseAndScalar, aclnnAdds); a zero gets
    ``e = 1`` (scale 1/2: aclnnEqScalar, aclnnInplaceMaskedFillScalar), a subnormal
    -1022 and an infinity or NaN 1025 (callers refuse exponents beyond +-900). The scale
    is made as the float64 bits ``(1023 - e) << 52``, kept to normal powers of two
    (aclnnRsubs, aclnnClamp, aclnnLeftShifts). Other float dtypes are cast to float64
    and the scale back (aclnnCast)."""
    device = largest._buffer.device
    stream = _ops.current_stream(device)
    if largest._dtype != FLOAT64:
        scale, exponent = power_of_two_scale(_ops.cast(largest, FLOAT64, stream=stream))
        return _ops.cast(scale, largest._dtype, stream=stream), exponent
    bits = largest if largest._shape else _manipulation.reshape(largest, (1,))
    exponent = _ops.empty(bits._shape, _INT64, device, stream)
    _ops.launch("aclnnRightShift", bits.view(_INT64), _constant(device, stream, 52, _INT64), exponent,
                stream=stream)
    _ops.launch("aclnnBitwiseAndScalar", exponent, _ops.acl_scalar(0x7FF, _INT64), exponent, stream=stream)
    one = _ops.acl_scalar(1, _INT64)
    _ops.launch("aclnnAdds", exponent, _ops.acl_scalar(-1022, _INT64), one, exponent, stream=stream)
    _ops.launch("aclnnInplaceMaskedFillScalar", exponent, _elementwise.equal(bits, 0), one, stream=stream)
    field = _ops.empty(bits._shape, _INT64, device, stream)
    _ops.launch("aclnnRsubs", exponent, _ops.acl_scalar(1023, _INT64), one, field, stream=stream)
    _ops.launch("aclnnClamp", field, one, _ops.acl_scalar(2046, _INT64), field, stream=stream)
    _ops.launch("aclnnLeftShifts", field, _ops.acl_scalar(52, _INT64), field, stream=stream)
    scale = field.view(FLOAT64)
    if not largest._shape:
        scale, exponent = _manipulation.reshape(scale, ()), _manipulation.reshape(exponent, ())
    return scale, exponent


def largest_magnitude(x, axis):
    """max |x| along ``axis`` (kept), on x's device's current stream: aclnnAbs and
    aclnnAmax for up to ``_SMALL`` elements (fewer launches), else aclnnAmax and
    aclnnAmin (no |x| temporary)."""
    if x.size <= _SMALL:
        return _statistical.max(_elementwise.abs(x), axis=axis, keepdims=True)
    return _elementwise.maximum(_statistical.max(x, axis=axis, keepdims=True),
                                _elementwise.negative(_statistical.min(x, axis=axis, keepdims=True)))


def _magnitude_bits(k):
    """Bits of the int8 magnitudes: ``k (2**bits - 1)**2 < 2**31`` keeps their product exact."""
    return min(BITS, (_INT32_LIMIT // k).bit_length() // 2)


def _magnitude_and_count(x, scale, axis, dtype, bits, stream):
    """(the magnitudes of ``x`` scaled by ``scale``: int8 ``floor(|x| scale 2**bits)``
    less at most one (``_magnitude_of_words``) or float32 ``|x| scale``; the number
    of nonzeros along ``axis`` (kept, float64)), made in blocks of ``_BLOCK_BYTES``
    along the other axis (-1: rows of a, -2: columns of b)."""
    other = -2 if axis == -1 else -1
    count, length = x._shape[other], x._shape[axis]
    device = x._buffer.device
    magnitude = _ops.empty(x._shape, dtype, device, stream)
    step = max(1, _BLOCK_BYTES // (8 * length * max(1, x.size // max(1, count * length))))
    kept = list(x._shape)
    kept[axis] = 1
    nonzero = _ops.empty(tuple(kept), FLOAT64, device, stream) if step < count else None
    for j0 in range(0, count, step):
        part = (Ellipsis, slice(j0, j0 + step), slice(None)) if axis == -1 else \
            (Ellipsis, slice(None), slice(j0, j0 + step))
        block = x[part]
        if dtype == _INT8:
            _magnitude_of_words(_raw_words(block, scale[part], stream), bits, stream, magnitude[part])
        else:
            _ops.launch("aclnnCast", _elementwise.multiply(_elementwise.abs(block), scale[part]),
                        to_acl_dtype(dtype), magnitude[part], stream=stream)
        counted = _count(block, axis, stream)
        if step >= count:
            return magnitude, counted
        _ops.copy_(nonzero[part], counted, stream=stream)
    return magnitude, nonzero


def _raw_words(x, scale, stream):
    """``trunc(x scale 2**62)`` as int64 (aclnnMul, aclnnCast: float64 to int64 truncates)."""
    return _ops.cast(_elementwise.multiply(x, _elementwise.multiply(scale, 2.0 ** _WORD_BITS)), _INT64,
                     stream=stream)


def _magnitude_of_words(words, bits, stream, out=None):
    """int8 magnitudes ``floor(|x| scale 2**bits)`` (or one less: a lower bound all the
    same) from ``_raw_words`` ``U``: ``v = U >> (62 - bits)`` (aclnnRightShift into
    int8: ``|U| < 2**62`` keeps ``v`` in [-2**bits, 2**bits)), then ``v ^ (v >> 7)``
    (aclnnRightShift, aclnnBitwiseXorTensor on the int8 bytes), which is ``v`` for
    ``U >= 0`` and ``-v - 1 = ceil(|U| / 2**(62 - bits)) - 1`` below: one pass over the
    words, two over a byte per element."""
    device = words._buffer.device
    if out is None:
        out = _ops.empty(words._shape, _INT8, device, stream)
    sign = _ops.empty(words._shape, _INT8, device, stream)
    _ops.launch("aclnnRightShift", words, _constant(device, stream, _WORD_BITS - bits, _INT64), out, stream=stream)
    _ops.launch("aclnnRightShift", out, _constant(device, stream, 7, _INT8), sign, stream=stream)
    _ops.launch("aclnnBitwiseXorTensor", out, sign, out, stream=stream)
    return out


def _count(x, axis, stream):
    """The nonzeros of ``x`` along ``axis`` (kept), float64: aclnnNeScalar, then the
    int8 product (aclnnQuantMatmulV5, exact) of its bytes with a vector of ones."""
    nonzero = _elementwise.not_equal(x, 0).view(_INT8)
    length = x._shape[axis]
    unit = _unit_scale(x._buffer.device, stream)
    if axis == -1:
        counted = _quant_product(nonzero, _ones(x._buffer.device, stream, (length, 1)), unit, stream)
    else:
        counted = _quant_product(_ones(x._buffer.device, stream, (1, length)), nonzero, unit, stream)
    return _ops.cast(counted, FLOAT64, stream=stream)


class _Scales:
    """Row scales of ``a`` (from ``left`` when it is split already), column scales
    of ``b`` and what the number of digits depends on, computed in blocks on the
    device."""

    def __init__(self, a, b, stream, left=None, keep=False, rows_only=False):
        """``rows_only``: the nonzeros of a term bounded by those of a's rows alone (no
        count of b's columns: a zero column of b then makes the ratio infinite)."""
        self.a, self.b, self.stream, self.left, self.rows_only = a, b, stream, left, rows_only
        self.k = a._shape[-1]
        self.unit = _unit_scale(a._buffer.device, stream)
        largest = [largest_magnitude(b, -2)]
        if left is None:
            largest.insert(0, largest_magnitude(a, -1))
        flat = [_manipulation.reshape(x, (-1,)) for x in largest]
        scales, exponents = power_of_two_scale(flat[0] if len(flat) == 1 else _manipulation.concat(flat))
        self.exponents = _statistical.max(_elementwise.abs(exponents))
        if left is not None:
            self.sigma = left.sigma
            self.exponents = _elementwise.maximum(self.exponents, left.largest_exponent)
        else:
            self.sigma = _manipulation.reshape(scales[:largest[0].size], largest[0]._shape)
        self.tau = _manipulation.reshape(scales[scales._shape[0] - largest[-1].size:], largest[-1]._shape)
        self.words = {}
        if keep:   # int64 words of both operands: the bound's magnitudes, then the digits
            if left is None:
                self.words["a"] = _raw_words(a, self.sigma, stream)
            self.words["b"] = _raw_words(b, self.tau, stream)
        self.ratio = self._ratio(exact=False)

    def _ratio(self, exact):
        """A bound of the largest (the number of k with a_ik b_kj != 0) / (|A| |B|)_ij
        in scaled units. The first bounds the dropped digits (``slices_for``); it is at
        most the smaller of the nonzeros of row i of a and of any column of b (equal
        for dense inputs, 0 for a zero row). The second is dgemm's bound without K u,
        bounded below either (not ``exact``) by the int8 product (aclnnQuantMatmulV5)
        of floor(2**bits |A|) and floor(2**bits |B|) over 2**(2 bits) (7 bits while
        that sum fits int32: cheap, but blind to products of entries below 2**-7 of
        their row's or column's largest), or (``exact``) by a float32 aclnnMatmul of
        the magnitudes (only values underflowing float32 lower it); per row, its
        smallest over the columns (aclnnAmin) where b's zero columns count as large.
        A zero bound where the count is not makes the ratio infinite. In blocks of
        columns of b and rows of a, whose magnitudes are made per block."""
        a, b, stream, left = self.a, self.b, self.stream, self.left
        m, k, n = a._shape[-2], self.k, b._shape[-1]
        bits = 0 if exact else _magnitude_bits(k)
        dtype = _FLOAT32 if exact else _INT8
        whole = self.words and not exact
        columns = n if whole else max(1, min(n, _BLOCK_BYTES // (dtype.itemsize * 2 * k * max(1, b.size // (k * n)))))
        rows = m if whole or (left is not None and not exact) else \
            max(1, _BLOCK_BYTES // (8 * max(columns, k) * max(1, a.size // (m * k))))
        maxima = []
        for j0 in range(0, n, columns):
            if whole:
                b_magnitude = _magnitude_of_words(self.words["b"], bits, stream)
                b_count = None if self.rows_only else _count(b, -2, stream)
            else:
                b_magnitude, b_count = _magnitude_and_count(
                    b[..., j0:j0 + columns], self.tau[..., j0:j0 + columns], -2, dtype, bits, stream)
            bias = b_most = None
            if b_count is not None:
                bias = self._zero_columns(b_magnitude, b_count, bits, exact)
                b_most = _statistical.max(b_count, axis=-1, keepdims=True)
            for i0 in range(0, m, rows):
                if left is not None and not exact:
                    a_magnitude, a_count = left.magnitude[..., i0:i0 + rows, :], left.count[..., i0:i0 + rows, :]
                elif whole:
                    a_magnitude, a_count = _magnitude_of_words(self.words["a"], bits, stream), _count(a, -1, stream)
                else:
                    a_magnitude, a_count = _magnitude_and_count(
                        a[..., i0:i0 + rows, :], self.sigma[..., i0:i0 + rows, :], -1, dtype, bits, stream)
                size = _statistical.min(self._product_of_magnitudes(a_magnitude, b_magnitude, exact, bias),
                                        axis=-1, keepdims=True)
                count = a_count if b_most is None else _elementwise.minimum(a_count, b_most)
                maxima.append(_statistical.max(_elementwise.divide(count, _elementwise.maximum(size, 2.0 ** -900))))
        ratio = maxima[0] if len(maxima) == 1 else _statistical.max(_manipulation.stack(maxima))
        return _elementwise.multiply(ratio, 2.0 ** (2 * bits))

    def _zero_columns(self, b_magnitude, b_count, bits, exact):
        """A zero column of b has no error: a large size keeps it out of the row minima.
        For an int8 bound without batch dimensions, the (N,) int32 bias of the product
        ``K (2**bits - 1)**2`` (the largest sum: still exact) on those columns, returned;
        otherwise b's magnitudes there are set to their largest (aclnnInplaceMaskedFillScalar)."""
        zero = _elementwise.equal(b_count, 0)
        if not exact and b_count.ndim == 2:
            largest = self.k * (2 ** bits - 1) ** 2
            return _ops.cast(_manipulation.reshape(_elementwise.multiply(zero, largest), (-1,)), _INT32,
                             stream=self.stream)
        _ops.launch("aclnnInplaceMaskedFillScalar", b_magnitude, zero,
                    _ops.acl_scalar(2 ** max(bits, 1) - 1, b_magnitude._dtype), stream=self.stream)
        return None

    def _product_of_magnitudes(self, x1, x2, exact, bias):
        if not exact:
            return _quant_product(x1, x2, self.unit, self.stream, bias=bias)
        size = _ops.empty(_elementwise.broadcast_shapes(x1._shape[:-2], x2._shape[:-2])
                          + (x1._shape[-2], x2._shape[-1]), _FLOAT32, x1._buffer.device, self.stream)
        _ops.launch("aclnnMatmul", x1, x2, size, 0, stream=self.stream)
        return size



def _digits_needed(scales):
    """The number of digits for ``scales`` (``_Scales``), or None when the emulation
    does not apply: from the int8 bound, or where that cannot bound every element,
    from the float32 one. Reads the bounds back (``to_host``: waits for the stream)."""
    exponents, ratio = (float(v) for v in _transfer.to_host(_manipulation.stack(
        [scales.exponents, scales.ratio])))
    if not math.isfinite(exponents) or exponents > _MAX_EXPONENT:
        return None
    s = slices_for(ratio, scales.k)
    if s is None and math.isfinite(ratio):
        s = slices_for(float(_transfer.to_host(scales._ratio(exact=True))), scales.k)
    return s


def slices_for(ratio, k):
    """The number of digits (1 .. ``DIGITS``) that keeps a product with contracted
    length ``k`` within dgemm's bound ``k u (|A| |B|)_ij`` when ``ratio`` bounds
    (nonzero terms) / (|A| |B|)_ij in scaled units; None when none does.

    Per nonzero term, the digit products dropped (``t + u > s + 1``: at most
    ``1.005 (s - 1) w`` with ``w = 2**(2 - 8 s)``) and the truncation of each
    operand to ``s`` digits (its digits beyond, below ``0.502 w``, and the words'
    own truncation, ``2**-62`` or ``2**-118`` with two words: ``e``) lose at most
    ``1.005 (s - 1) w + 2.01 (0.502 w + e)``. The first diagonals (``group_size``)
    are added exactly; each later addition (``roundings_of``) rounds once, the last
    by at most ``u |c_ij|`` and the others by ``u`` times a partial sum of at most
    ``sum_k (sum_t |A_t| w_t)(sum_u |B_u| w_u) <= 9.2 (|A| |B|)_ij`` (balanced
    digits: a word's digit sum is at most 3.02 times the word)."""
    for s in range(1, DIGITS + 1):
        if ratio <= ratio_limit(s, k):
            return s
    return None


def ratio_limit(s, k, roundings=None):
    """The largest ratio (``slices_for``) that ``s`` digits take at contracted length ``k``
    (negative when none does), with ``roundings`` float64 additions of partial sums, one
    of which (the first) is exact (default: those of ``add_diagonals``, ``roundings_of``)."""
    if roundings is None:
        roundings = roundings_of(s, k)
    w = 2.0 ** (2 - 8 * s)
    dropped = 1.005 * (s - 1) * w + 2.01 * (0.502 * w + 2.0 ** (-_WORD_BITS if s <= WORD_DIGITS else -118))
    return (k - 9.2 * (roundings - 1) - 1) * _UNIT_ROUNDOFF / dropped


def roundings_of(s, k):
    """The float64 sums of ``_sum_diagonals`` over a product with contracted length ``k``,
    the first exact: in the first piece of K the first group of ``group_size`` diagonals,
    then each later diagonal (``each_added``) or each later group; in each later piece,
    each group."""
    chunk = chunk_length(s)
    g = group_size(s, min(k, chunk))
    first = max(s - g, 0) + 1 if each_added(s, min(k, chunk)) else -(-s // g)
    return first + (-(-k // chunk) - 1) * -(-s // g)


def each_added(s, k):
    """Whether ``_sum_diagonals`` adds the diagonals after the first group one by one
    to ``out`` (one float64 pass fewer than summing each group apart) for a piece of
    K of length ``k``: when their extra roundings cost at most an eighth of
    ``ratio_limit``'s room (long K)."""
    g = group_size(s, k)
    return 9.2 * (max(s - g, 0) - (-(-s // g) - 1)) <= k / 8


def chunk_length(s):
    """The longest contraction whose diagonals of ``s`` digits are exact in int32:
    ``(D - 1) K 128**2 < 2**31``."""
    return max(1, _INT32_LIMIT // (s * 128 * 128))


def group_size(s, k):
    """How many consecutive diagonals (weights ``256**j`` apart, each below
    ``s k 128**2``) float64 adds exactly: their sum stays below 2**53 units of the
    smallest weight."""
    return max(1, 1 + int((53 - math.log2(s * k * 128 * 128 * 1.004)) // 8))


def _balance(words, stream):
    """``U = words`` (``_raw_words``, ``|U| < 2**62``) rewritten in place as
    ``(U + _OFFSET) ^ _OFFSET`` (aclnnAdds, aclnnBitwiseXorScalar), whose
    little-endian bytes, read as int8, are balanced digits of ``U``.

    Adding 128 to each of bytes 0..6 (with the carries that brings) and flipping
    their top bits leaves each such byte, as int8, equal to the unsigned byte of
    ``U + _OFFSET`` less 128, so ``U = sum_p d_p 256**p`` with ``d_0 .. d_6`` in
    [-128, 127] and ``d_7`` (byte 7, untouched: the arithmetic top of
    ``U + _OFFSET``) in [-64, 64]; ``|U| < 2**62`` keeps ``U + _OFFSET`` in range."""
    offset = _ops.acl_scalar(_OFFSET, _INT64)
    _ops.launch("aclnnAdds", words, offset, _ops.acl_scalar(1, _INT64), words, stream=stream)
    _ops.launch("aclnnBitwiseXorScalar", words, offset, words, stream=stream)


def _low_digit_words(x, scale, high, stream):
    """The seven digits below those of ``high`` (``_raw_words(x, scale)`` not yet
    balanced, which this corrects in place) for more than ``WORD_DIGITS`` digits:
    with ``y = x scale 2**118`` (exact), ``high = H = trunc(y / 2**56)`` and
    ``L = y - 2**56 H`` (aclnnSub with alpha ``2**56``: exact, as ``2**56 H`` is ``y``
    with its bits below ``2**56`` cleared and ``|L| < 2**56`` is a multiple of ``y``'s
    ulp), the balanced bytes 0..6 of ``L`` carry ``t = (L + _OFFSET) >> 56`` in
    {-1, 0, 1} (aclnnRightShift) into ``H``, whose digits ``_balance`` then makes;
    bytes 0..6 of the returned words are the low digits, byte 7 is not a digit."""
    shifted = _elementwise.multiply(x, _elementwise.multiply(scale, 2.0 ** (_WORD_BITS + 56)))
    _ops.launch("aclnnSub", shifted, high, _ops.acl_scalar(2.0 ** 56, FLOAT64), shifted, stream=stream)
    low = _ops.cast(shifted, _INT64, stream=stream)
    offset = _ops.acl_scalar(_OFFSET, _INT64)
    _ops.launch("aclnnAdds", low, offset, _ops.acl_scalar(1, _INT64), low, stream=stream)
    carry = _ops.empty(low._shape, _INT64, low._buffer.device, stream)
    _ops.launch("aclnnRightShift", low, _constant(low._buffer.device, stream, 56, _INT64), carry, stream=stream)
    _ops.launch("aclnnInplaceAdd", high, carry, _ops.acl_scalar(1, _INT64), stream=stream)
    _ops.launch("aclnnBitwiseXorScalar", low, offset, low, stream=stream)
    return low


class _Digits:
    """The top ``s`` digits of ``x`` (..., R, C) scaled by ``scale``, in one or two
    int64 words: ``top(t)`` is the (..., R, C) int8 view of digit ``t`` (1: the most
    significant, of weight ``2**(2 - 8 t)`` in scaled units), ``runs(s)`` the
    (..., R, C, digits) views of the top ``s`` digits, one per word."""

    def __init__(self, x, scale, s, stream):
        high = _raw_words(x, scale, stream)
        self.low = _bytes_of(_low_digit_words(x, scale, high, stream)) if s > WORD_DIGITS else None
        _balance(high, stream)
        self.high = _bytes_of(high)

    @classmethod
    def of(cls, words, stream, balanced=False):
        """The digits of ``_raw_words`` (balanced in place unless ``balanced``: one word,
        up to eight digits)."""
        digits = cls.__new__(cls)
        if not balanced:
            _balance(words, stream)
        digits.high, digits.low = _bytes_of(words), None
        return digits

    def top(self, t):
        return self.high[..., 8 - t] if t <= WORD_DIGITS else self.low[..., 15 - t]

    def runs(self, s):
        """(byte views, least significant first) covering digits ``s .. 1``, one per word."""
        if s <= WORD_DIGITS:
            return [self.high[..., 8 - s:]]
        return [self.low[..., 15 - s:7], self.high]


def _bytes_of(words):
    """(..., R, C) int64 as (..., R, C, 8) int8 (byte p: the digit of 256**p)."""
    return _manipulation.reshape(words.view(_INT8), words._shape + (8,))


def split_rows(a, sigma, s, stream):
    """(..., M, s, K) int8 digit planes of the rows of ``a`` (..., M, K) scaled
    by ``sigma`` (..., M, 1): plane ``j`` holds digit ``s - j`` (least significant
    of the top ``s`` first, so that the top ``d`` digits are a contiguous tail).
    Made in blocks of rows, one aclnnInplaceCopy per word."""
    rows, k = a._shape[-2:]
    planes = _ops.empty(a._shape[:-1] + (s, k), _INT8, a._buffer.device, stream)
    step = max(1, _BLOCK_BYTES // (8 * k * max(1, a.size // (rows * k))))
    for i0 in range(0, rows, step):
        digits = _Digits(a[..., i0:i0 + step, :], sigma[..., i0:i0 + step, :], s, stream)
        _row_planes(digits, s, stream, planes[..., i0:i0 + step, :, :])
    return planes


def _row_planes(digits, s, stream, planes=None):
    """The top ``s`` digits of ``digits`` (of (..., M, K)) into (..., M, s, K) ``planes``
    (a new array when None), least significant first: one aclnnInplaceCopy per word."""
    if planes is None:
        shape = digits.high._shape[:-1]
        planes = _ops.empty(shape[:-1] + (s, shape[-1]), _INT8, digits.high._buffer.device, stream)
    j = 0
    for run in digits.runs(s):
        width = run._shape[-1]
        _ops.copy_(planes[..., j:j + width, :], _manipulation.moveaxis(run, -1, -2), stream=stream)
        j += width
    return planes


def split_columns(b, tau, s, stream):
    """(..., s, K, N) int8 digit planes of the columns of ``b`` (..., K, N)
    scaled by ``tau`` (..., 1, N): plane ``j`` holds digit ``j + 1`` (most
    significant first, so that the top ``d`` digits are a contiguous head). Made
    in blocks of rows of b, one aclnnFlip per word."""
    k, n = b._shape[-2:]
    planes = _ops.empty(b._shape[:-2] + (s, k, n), _INT8, b._buffer.device, stream)
    step = max(1, _BLOCK_BYTES // (8 * n * max(1, b.size // (k * n))))
    for k0 in range(0, k, step):
        _column_planes(_Digits(b[..., k0:k0 + step, :], tau, s, stream), s, stream, planes[..., k0:k0 + step, :])
    return planes


def _column_planes(digits, s, stream, planes=None):
    """The top ``s`` digits of ``digits`` (of (..., K, N)) into (..., s, K, N) ``planes``
    (a new array when None), most significant first: one aclnnFlip per word (its bytes
    reversed along the planes)."""
    if planes is None:
        shape = digits.high._shape[:-1]
        planes = _ops.empty(shape[:-2] + (s,) + shape[-2:], _INT8, digits.high._buffer.device, stream)
    j = 0
    for run in reversed(digits.runs(s)):
        width = run._shape[-1]
        _reversed_bytes(run, planes[..., j:j + width, :, :], -3, stream)
        j += width
    return planes


def _reversed_bytes(run, out, axis, stream):
    """``out`` = the bytes of ``run`` (..., R, C, w) in reverse order, moved to ``axis`` of
    ``out`` (aclnnFlip, which takes a non-contiguous self: hicann/ops-nn
    index/reverse_v2/docs/aclnnFlip.md; npuarray's views with negative strides would be
    gathers)."""
    source = _manipulation.moveaxis(run, -1, axis)
    _ops.launch("aclnnFlip", source, _ops.dims_array((source.ndim + axis,)), out, stream=stream)


def _flat_rows(planes):
    """(..., M, s, K) planes as (..., M, s K) (free: contiguous)."""
    return _manipulation.reshape(planes, planes._shape[:-2] + (planes._shape[-2] * planes._shape[-1],))


def _flat_columns(planes):
    """(..., s, K, N) planes as (..., s K, N) (free: contiguous)."""
    return _manipulation.reshape(planes, planes._shape[:-3] + (planes._shape[-3] * planes._shape[-2],
                                                               planes._shape[-1]))


def _unit_scale(device, stream):
    """x2Scale of aclnnQuantMatmulV5: (1,) float32 ones (unused for INT32 out)."""
    return _constant(device, stream, 1.0, _FLOAT32)


def _constant(device, stream, value, dtype):
    """A (1,) device array of ``value``, made once per device and value and never
    written again (aclnnInplaceFillScalar)."""
    key = (device, value, dtype)
    constant = _CONSTANTS.get(key)
    if constant is None:
        constant = _CONSTANTS[key] = _ops.fill_(_ops.empty((1,), dtype, device, stream), value, stream=stream)
    return constant


_CONSTANTS = {}


def _ones(device, stream, shape):
    """An int8 device array of ones of ``shape``, made once per device and shape."""
    key = (device, "ones", shape)
    ones = _CONSTANTS.get(key)
    if ones is None:
        ones = _CONSTANTS[key] = _ops.fill_(_ops.empty(shape, _INT8, device, stream), 1, stream=stream)
    return ones


def _quant_product(x1, x2, unit, stream, out=None, bias=None):
    """int32 ``x1 @ x2`` (+ ``bias``, (N,) int32) of int8 matrices (aclnnQuantMatmulV5
    with x2Scale ``unit``). More batch dimensions than the operator takes are folded
    into one (the operands broadcast and copied, the result copied into ``out``)."""
    batch = _elementwise.broadcast_shapes(x1._shape[:-2], x2._shape[:-2])
    shape = batch + (x1._shape[-2], x2._shape[-1])
    if len(shape) > _QUANT_MATMUL_DIMS:
        folded = _quant_product(_manipulation.fold_batch(x1, batch), _manipulation.fold_batch(x2, batch), unit,
                                stream, bias=bias)
        folded = _manipulation.reshape(folded, shape)
        return folded if out is None else _ops.copy_(out, folded, stream=stream)
    if out is None:
        out = _ops.empty(shape, _INT32, x1._buffer.device, stream)
    _ops.launch("aclnnQuantMatmulV5", x1, x2, None, unit, None, None, None, None, bias, False, False, 0, out,
                stream=stream)
    return out


def add_diagonals(a_flat, b_flat, k, out, s, unit, accumulate, stream):
    """``out (+)= sum_D 2**(4 - 8 D) sum_(t + u = D) A_t @ B_u`` for D = s + 1 .. 2,
    each diagonal one aclnnQuantMatmulV5 (exact in int32) of the top ``D - 1``
    digit planes of a (a tail of the rows of ``a_flat``, (..., M, s k)) against
    those of b (a head of ``b_flat``, (..., s k, N)), summed by ``_sum_diagonals``."""
    diagonal = None

    def product_of(d):
        nonlocal diagonal
        diagonal = _quant_product(a_flat[..., (s - d + 1) * k:], b_flat[..., :(d - 1) * k, :], unit, stream,
                                  diagonal)
        return diagonal
    _sum_diagonals(product_of, k, out, s, accumulate, stream)


def _sum_diagonals(diagonal, k, out, s, accumulate, stream):
    """``out (+)= sum_D 2**(4 - 8 D) diagonal(D)`` (int32 sums of digit products) for
    D = s + 1 .. 2, smallest first (aclnnMuls, aclnnInplaceAdd): the first group of
    ``group_size`` is added exactly and written over ``out``, then, for a long K
    (``each_added``), each later diagonal is added to ``out`` (one rounding each);
    otherwise, and with ``accumulate`` (a later piece of K), each later group is summed
    exactly apart and then added (one rounding each)."""
    order = list(range(s + 1, 1, -1))
    g = group_size(s, k)

    def add(target, d, first):
        weight = _ops.acl_scalar(2.0 ** (4 - 8 * d), FLOAT64)
        if first:
            _ops.launch("aclnnMuls", diagonal(d), weight, target, stream=stream)
        else:
            _ops.launch("aclnnInplaceAdd", target, diagonal(d), weight, stream=stream)
    if not accumulate and each_added(s, k):
        for d in order:
            add(out, d, d == order[0])
        return
    part = None
    for first in range(0, s, g):
        direct = first == 0 and not accumulate
        if not direct and part is None:
            part = _ops.empty(out._shape, FLOAT64, out._buffer.device, stream)
        for d in order[first:first + g]:
            add(out if direct else part, d, d == order[first])
        if not direct:
            _ops.launch("aclnnInplaceAdd", out, part, _ops.acl_scalar(1.0, FLOAT64), stream=stream)


def _thin_diagonals(left, b_digits, out, s, unit, stream):
    """``out = sum_D 2**(4 - 8 D) sum_(t + u = D) A_t B_u`` for D = s + 1 .. 2 (the
    products of ``add_diagonals``, the same sums, added by ``_sum_diagonals``) from
    ``_thin_sums``."""
    columns = b_digits.high._shape[-2]
    sums = _thin_sums(left, b_digits, s, unit, stream)
    _sum_diagonals(lambda d: sums[..., (d - 2) * columns:(d - 1) * columns], left.words._shape[-1], out, s, False,
                   stream)


def _thin_sums(left, b_digits, s, unit, stream):
    """(..., M, s N) int32: column block D - 2 holds ``sum_(t + u = D) A_t B_u`` for D = 2 ..
    s + 1, from ``left``'s words in place: their
    bytes, (..., M, 8 K) int8 (column ``8 k + p``: digit ``t = 8 - p`` of a_ik), times a
    table (..., 8 K, s N) whose row ``8 k + p`` holds, in the column block of diagonal
    D, digit ``u = D - t`` of row k of b (0 where that is not a digit in 1 .. s or ``t > s``):
    one aclnnQuantMatmulV5 for every diagonal (at most ``8 (s + 1) / 2`` times the
    multiply-adds of ``add_diagonals``, no copy of a).

    The table is made by aclnnFlip, aclnnInplaceCopy and at most two fills
    (aclnnInplaceFillScalar): b's digits go into rows ``s - 2 + u`` of a zero window
    (..., K, 2 s, N); the block ``p >= 8 - s`` of the table, (..., K, s, s, N) indexed
    (p - 8 + s, D - 2), is then the window read with equal strides along both (row
    ``u + s - 2 = (p - 8 + s) + (D - 2)``: out-of-range u read its zero rows), and rows
    ``p < 8 - s`` are zero."""
    words = left.words
    k = words._shape[-1]
    high = b_digits.high
    columns, batch = high._shape[-2], high._shape[:-3]
    device = words._buffer.device
    window = _ops.fill_(_ops.empty(batch + (k, 2 * s, columns), _INT8, device, stream), 0, stream=stream)
    _reversed_bytes(high[..., WORD_DIGITS - s:], window[..., s - 1:2 * s - 1, :], -2, stream)
    row = window._strides[-2]
    diagonals = window._view(batch + (k, s, s, columns), window._strides[:-1] + (row, window._strides[-1]),
                             window._offset)
    table = _ops.empty(batch + (k, WORD_DIGITS, s, columns), _INT8, device, stream)
    if s < WORD_DIGITS:
        _ops.fill_(table[..., :WORD_DIGITS - s, :, :], 0, stream=stream)
    _ops.copy_(table[..., WORD_DIGITS - s:, :, :], diagonals, stream=stream)
    flat = _manipulation.reshape(table, batch + (k * WORD_DIGITS, s * columns))
    return _quant_product(_manipulation.reshape(_bytes_of(words), words._shape[:-1] + (k * WORD_DIGITS,)), flat,
                          unit, stream)

