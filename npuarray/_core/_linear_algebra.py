"""Linear algebra functions of the array API main namespace on the device:
matmul, tensordot and vecdot (``matrix_transpose``, a view, is in
``npuarray._core._manipulation``).

All three are aclnnMatmul products (torch.matmul shapes: 1-D promotion, batch
broadcasting), composed with views (permute, reshape, expand) that cost no
device work unless a reshape has to copy. aclnnMatmul has no complex dtype, so
a complex product is one real product of interleaved parts (``_complex_product``).
"""
import operator

import numpy as np

from . import _elementwise, _manipulation, _ops, _ozaki, _statistical
from ._elementwise import is_array, dtype_kind, promote, broadcast_shapes, same_device
from ._operator_table import operator_dtypes
from ..runtime import _capture_guard
from ..runtime._memory_pool import get_default_memory_pool

__all__ = ["matmul", "tensordot", "vecdot"]

# cubeMathType of aclnnMatmul (docs/acl-abi.md §7.2): KEEP_DTYPE computes in the
# input dtype, so float32 stays exact float32 (A2/A3; on Atlas training series
# CANN refuses it for float32 with 161002 rather than lose precision silently).
_KEEP_DTYPE = 0

_MATMUL = operator_dtypes("aclnnMatmul")
# Other real dtypes are composed on the device (``_composed_product``): float64 as itself,
# integers in int64, whose products and sums modulo 2**64 wrap back to every integer dtype
# exactly as NumPy's do.
_INT64 = np.dtype(np.int64)
# Bytes of the (rows, K, columns) temporary of one step of a composed product.
_COMPOSED_STEP_BYTES = 32 << 20
# Products of more dimensions than this have their batch folded into one: the float64
# paths' temporaries add a dimension (aclCreateTensor takes at most 8), the int8 product
# takes at most 6.
_MAX_UNFOLDED_DIMS = 6


def _matmul_shape(shape1, shape2):
    """The result shape of ``matmul`` (array API rules); ValueError when the
    contracted dimensions differ or the batch dimensions do not broadcast."""
    if not shape1 or not shape2:
        raise ValueError("matmul: 0-d arrays are not allowed (use multiply)")
    a = (1,) + shape1 if len(shape1) == 1 else shape1
    b = shape2 + (1,) if len(shape2) == 1 else shape2
    if a[-1] != b[-2]:
        raise ValueError(f"matmul: contracted dimensions differ: shapes {shape1} and "
                         f"{shape2} (size {a[-1]} is different from {b[-2]})")
    try:
        batch = broadcast_shapes(a[:-2], b[:-2])
    except ValueError:
        raise ValueError(f"matmul: batch dimensions of shapes {shape1} and {shape2} do "
                         f"not broadcast") from None
    shape = batch + (a[-2], b[-1])
    if len(shape1) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(shape2) == 1:
        shape = shape[:-1]
    return shape, a[-1]


def _operands(name, x1, x2):
    """(device, promoted dtype) of two NPUArrays; TypeError for other operands and
    for bool, ValueError for arrays on different devices."""
    if not (is_array(x1) and is_array(x2)):
        raise TypeError(f"{name}() needs two NPUArrays, got {type(x1).__name__} and "
                        f"{type(x2).__name__}")
    device = same_device(name, x1, x2)
    dtype = promote(x1._dtype, x2._dtype)
    if dtype_kind(dtype) == "b":
        raise TypeError(f"{name}() needs numeric arrays, got dtype {dtype}")
    return device, dtype


def _product(a, b, shape, k, dtype, device, stream, *, conjugate_a=False, left=None):
    """A new array of ``shape`` and ``dtype`` holding ``a @ b`` (``conj(a) @ b``
    with ``conjugate_a``), contracted dimension ``k``, on ``stream``; ``left``:
    float64 ``a`` split already (``_ozaki.PreparedLeft``)."""
    out = _ops.empty(shape, dtype, device, stream)
    if 0 in shape:
        return out
    if k == 0:  # an empty sum: zeros, as NumPy
        return _ops.fill_(out, 0, stream=stream)
    a = a if a._dtype == dtype else _ops.cast(a, dtype, stream=stream)
    b = b if b._dtype == dtype else _ops.cast(b, dtype, stream=stream)
    if dtype_kind(dtype) == "c":
        _complex_product(a, b, out, conjugate_a, stream)
    else:
        _real_product(a, b, out, stream, left)
    return out


def _real_product(a, b, out, stream, left=None):
    """``out[...] = a @ b`` for real ``a``, ``b`` of ``out``'s dtype: aclnnMatmul for
    the dtypes CANN documents for it, float64 on the int8 unit (``_ozaki.product``,
    with ``a`` split already when ``left`` is given) where it applies, else
    ``_composed_product``."""
    if out._dtype in _MATMUL:
        _ops.launch("aclnnMatmul", a, b, out, _KEEP_DTYPE, stream=stream)
        return
    work = out._dtype if dtype_kind(out._dtype) == "f" else _INT64
    a = a if a._dtype == work else _ops.cast(a, work, stream=stream)
    b = b if b._dtype == work else _ops.cast(b, work, stream=stream)
    a = a if a.ndim > 1 else _manipulation.expand_dims(a, 0)
    b = b if b.ndim > 1 else _manipulation.expand_dims(b, -1)
    shape, _ = _matmul_shape(a._shape, b._shape)
    if len(shape) > _MAX_UNFOLDED_DIMS:
        a, b = _manipulation.fold_batch(a, shape[:-2]), _manipulation.fold_batch(b, shape[:-2])
        shape, left = a._shape[:1] + shape[-2:], None
    if work == _ozaki.FLOAT64 and _ozaki.product(a, b, _manipulation.reshape(out, shape), stream, left):
        return  # on the integer matrix unit (npuarray/_core/_ozaki.py)
    _composed_product(a, b, _manipulation.reshape(out, shape), stream)


def _composed_product(a, b, out, stream):
    """``out[...] = a @ b`` for (..., M, K) ``a`` and (..., K, N) ``b`` of one dtype
    that aclnnMatmul lacks (float64, int64), as sums over K of broadcast products
    (aclnnMul, aclnnReduceSum), in blocks of rows and columns whose temporary stays
    under ``_COMPOSED_STEP_BYTES`` (an eighth of a capped pool's limit); each block is cast into the (C-contiguous
    ``out``) view of its place with aclnnInplaceCopy."""
    (m, k), n = a._shape[-2:], b._shape[-1]
    batch = max(1, out.size // (m * n))
    per_element = batch * k * a._dtype.itemsize
    step = _COMPOSED_STEP_BYTES
    limit = get_default_memory_pool(out.device).get_limit()
    if limit:  # a capped pool (NPUARRAY_MEMORY_LIMIT): a small share of it
        step = min(step, limit // 8)
    columns = max(1, min(n, step // per_element))
    rows = max(1, min(m, step // (per_element * columns)))
    for j in range(0, n, columns):
        b_block = _manipulation.expand_dims(b[..., :, j:j + columns], -3)  # (..., 1, K, c)
        for i in range(0, m, rows):
            a_block = _manipulation.expand_dims(a[..., i:i + rows, :], -1)  # (..., r, K, 1)
            block = _statistical.sum(_elementwise.multiply(a_block, b_block), axis=-2, dtype=a._dtype)
            _ops.copy_(out[..., i:i + rows, j:j + columns], block, stream=stream)


def _complex_product(a, b, out, conjugate_a, stream):
    """``out[...] = a @ b`` (or ``conj(a) @ b``) for complex arrays of ``out``'s
    dtype and a C-contiguous ``out``, as one real aclnnMatmul.

    Seen as real numbers, a row of ``a`` is (ar_0, ai_0, ar_1, ai_1, ...): ``a``'s
    parts reshaped to (M, 2K). With B2 of shape (2K, 2N) whose row 2k holds the
    parts of ``b[k]`` (br, bi) and row 2k+1 those of ``1j * b[k]`` (-bi, br), the
    real product's columns 2n and 2n+1 are sum(ar br - ai bi) and sum(ar bi + ai br):
    the parts of ``(a @ b)[:, n]``, which is ``out``'s memory read as (M, 2N).
    ``-1j * b[k]`` (bi, -br) instead gives the parts of ``conj(a) @ b``."""
    a = a if a.ndim > 1 else _manipulation.expand_dims(a, 0)
    b = b if b.ndim > 1 else _manipulation.expand_dims(b, -1)
    k, n = b._shape[-2:]
    rotated = _elementwise.multiply(b, -1j if conjugate_a else 1j)
    rows = _manipulation.complex_parts(_manipulation.stack([b, rotated], axis=-2))
    b2 = _manipulation.reshape(rows, b._shape[:-2] + (2 * k, 2 * n))
    a2 = _manipulation.reshape(_manipulation.complex_parts(a), a._shape[:-1] + (2 * k,))
    shape2, _ = _matmul_shape(a._shape, b._shape)
    out2 = _manipulation.complex_parts(_manipulation.reshape(out, shape2))
    _real_product(a2, b2, _manipulation.reshape(out2, shape2[:-1] + (2 * n,)), stream)


# Memoised result shapes of products that are one aclnnMatmul on the operands as they are
# (same dtype, one CANN takes, nothing empty): (dtype1, dtype2, shape1, shape2) -> shape.
# Small products are launch-bound; this skips validation, promotion and shape rules, and
# a call of ``matmul_in_c``'s functions with a memoised product runs in C.
_planned_shapes = {}
_PLAN_CACHE_SIZE = 512


def matmul_in_c(function):
    """A decorator for a function (or NPUArray method) ``matmul(x1, x2)`` that computes
    ``matmul`` below for two NPUArrays: such a call whose product ``matmul`` memoised
    (one aclnnMatmul) runs in C without entering Python (``_ops.fast_matmul``); every
    other call runs ``function``."""
    return _ops.fast_matmul(_planned_shapes, _KEEP_DTYPE, function)


@matmul_in_c
def matmul(x1, x2, /):
    """Matrix product of two arrays (array API ``matmul``, ``numpy.matmul``, the
    ``@`` operator): aclnnMatmul (cubeMathType KEEP_DTYPE) on the current stream
    of the operands' device.

    1-D operands are promoted to matrices as NumPy does (and the added
    dimension removed); leading batch dimensions broadcast. Shapes ``(..., M, K)``
    and ``(..., K, N)`` give ``(..., M, N)`` in the promoted dtype. aclnnMatmul
    computes float16, bfloat16 and float32 (the dtypes CANN documents); float64
    (thin products and matrix-vector too) runs on the integer matrix unit (int8
    digits on aclnnQuantMatmulV5, the Ozaki scheme of ``npuarray/_core/_ozaki.py``:
    within dgemm's error bound; ``prepare_matmul`` splits a left operand once for
    many products) unless its inputs defeat it (inf, nan, exponent spreads beyond
    15 digits) or it is tiny; those and integers (in int64, wrapping as NumPy) are
    sums of broadcast products on the device (aclnnMul, aclnnReduceSum: much
    slower than aclnnMatmul); complex dtypes are one real product of their parts
    (see ``_complex_product``). Raises ValueError for 0-d operands, mismatched
    contracted dimensions, non-broadcasting batch dimensions or arrays on
    different devices; TypeError for bool or non-array operands.
    """
    if is_array(x1) and is_array(x2):
        shape = _planned_shapes.get((x1._dtype, x2._dtype, x1._shape, x2._shape))
        device = x1._buffer.device
        if shape is not None and x2._buffer.device is device:
            out = _ops.matmul_result(x1, x2, shape, _KEEP_DTYPE)
            if out is None:  # (a capture, negative strides)
                stream = _ops.current_stream(device)
                out = _ops.empty(shape, x1._dtype, device, stream)
                _ops.launch("aclnnMatmul", x1, x2, out, _KEEP_DTYPE, stream=stream)
            return out
    device, dtype = _operands("matmul", x1, x2)
    shape, k = _matmul_shape(x1._shape, x2._shape)
    if x1._dtype == x2._dtype == dtype and dtype in _MATMUL and k and 0 not in shape:
        if len(_planned_shapes) >= _PLAN_CACHE_SIZE:
            _planned_shapes.clear()
        _planned_shapes[(dtype, dtype, x1._shape, x2._shape)] = shape
    return _product(x1, x2, shape, k, dtype, device, _ops.current_stream(device))


def _tensordot_axes(axes, ndim1, ndim2):
    """The contracted axes of x1 and x2 (non-negative, in pairs) for ``axes``: an
    int N (the last N of x1 with the first N of x2) or a pair of sequences (or
    ints, as NumPy). ValueError for a negative or too large N, pairs of different
    lengths or repeated axes; AxisError (a ValueError and IndexError) for axes
    out of range; TypeError for anything else."""
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes must be an int or a pair of sequences, "
                             f"got {axes!r}")
        first, second = (tuple(a) if isinstance(a, (tuple, list)) else (a,) for a in axes)
        if len(first) != len(second):
            raise ValueError(f"tensordot: the axes sequences differ in length: {axes!r}")
        return (_manipulation.normalize_axis_tuple(first, ndim1),
                _manipulation.normalize_axis_tuple(second, ndim2))
    try:
        count = operator.index(axes)
    except TypeError:
        raise TypeError(f"tensordot: axes must be an int or a pair of sequences, got "
                        f"{type(axes).__name__}") from None
    if count < 0 or count > min(ndim1, ndim2):
        raise ValueError(f"tensordot: axes={count} must be in [0, {min(ndim1, ndim2)}] "
                         f"for arrays of {ndim1} and {ndim2} dimensions")
    return tuple(range(ndim1 - count, ndim1)), tuple(range(count))


def _size(shape, axes):
    size = 1
    for axis in axes:
        size *= shape[axis]
    return size


def _as_matrix(x, order, shape):
    """``x`` with its axes in ``order``, reshaped to the 2-D ``shape``; ``x``
    itself when it already is that matrix (the common 2-D case costs nothing)."""
    if x._shape != shape or order != (0, 1):
        x = _manipulation.reshape(_manipulation.permute_dims(x, order), shape)
    return x


class PreparedMatmul:
    """``a @ b`` for one left operand ``a`` and many ``b``: ``prepare_matmul(a)``
    splits a float64 ``a`` (..., M, K) (2-D or more) into int8 digits once
    (``_ozaki.PreparedLeft``: aclnnMul, aclnnCast, aclnnAdds, aclnnBitwiseXorScalar,
    aclnnInplaceCopy on the current stream), so that each ``matmul(b)`` costs only
    the split of ``b`` and the int8 products (aclnnQuantMatmulV5): for thin ``b``
    (matrix-vector, (n, n) @ (n, 16)) several times less than ``matmul(a, b)``.
    The results are ``matmul(a, b)``'s, bit for bit. Other dtypes, and products the
    emulation does not take, run as ``matmul``. ``a`` must not change while the
    object is used (its digits would be stale). ``unit_rows``: the caller knows that
    every row of ``a`` has its largest magnitude in [1/4, 1) (or is zero), and the
    row scales are not computed (a wrong claim gives wrong products)."""

    def __init__(self, a, *, unit_rows=False):
        if not is_array(a):
            raise TypeError(f"prepare_matmul() needs an NPUArray, got {type(a).__name__}")
        if a.ndim < 2:
            raise ValueError(f"prepare_matmul() needs a matrix (2 or more dims), got shape {a._shape}")
        self.a = a
        self._left = None
        stream = _ops.current_stream(a._buffer.device)
        if a._dtype == _ozaki.FLOAT64 and a.size and _capture_guard.capture_of(stream) is None:
            self._left = _ozaki.PreparedLeft(a, stream, unit_rows)

    def matmul(self, b):
        """``matmul(a, b)`` (same shapes, dtypes, errors, stream), from ``a``'s digits
        when ``a`` and ``b`` are float64."""
        a = self.a
        device, dtype = _operands("matmul", a, b)
        shape, k = _matmul_shape(a._shape, b._shape)
        left = self._left if dtype == _ozaki.FLOAT64 and b._dtype == dtype else None
        return _product(a, b, shape, k, dtype, device, _ops.current_stream(device), left=left)


    def matmul_unverified(self, b):
        """(``matmul(a, b)``, ``within``) without a read-back: for float64 ``a`` and a
        thin float64 ``b`` (at most ``_ozaki.THIN_COLUMNS`` columns, 2-D or more) the
        product takes all eight digits of a word (``_ozaki.deferred_product``) and
        ``within`` is a 0-d float64 device array, 1 when the result is within dgemm's
        error bound and 0 when it may not be (then call ``matmul``); otherwise
        ``matmul(a, b)`` and None. Same shapes, errors and stream as ``matmul``."""
        a = self.a
        device, dtype = _operands("matmul", a, b)
        shape, k = _matmul_shape(a._shape, b._shape)
        if self._left is None or dtype != _ozaki.FLOAT64 or b._dtype != dtype or b.ndim < 2 or 0 in shape:
            return self.matmul(b), None
        stream = _ops.current_stream(device)
        out = _ops.empty(shape, dtype, device, stream)
        within = _ozaki.deferred_product(b, out, stream, self._left)
        if within is None:
            return self.matmul(b), None
        return out, within


def prepare_matmul(a, /, *, unit_rows=False):
    """A ``PreparedMatmul`` of the matrix ``a``: ``prepare_matmul(a).matmul(b)`` is
    ``matmul(a, b)``, with float64 ``a`` split into int8 digits once for all the
    ``b`` (see ``PreparedMatmul``, also for ``unit_rows``). TypeError for a non-array,
    ValueError for fewer than 2 dims."""
    return PreparedMatmul(a, unit_rows=unit_rows)


def tensordot(x1, x2, /, *, axes=2):
    """Tensor contraction of ``x1`` and ``x2`` over ``axes`` (array API
    ``tensordot``, ``numpy.tensordot``): an int N contracts the last N axes of
    ``x1`` with the first N of ``x2`` (0: outer product); a pair of sequences
    names the contracted axes of each (negative axes count from the end).

    The result has the free axes of ``x1`` then those of ``x2``, in the promoted
    dtype. Runs on the current stream of the operands' device as one aclnnMatmul
    of ``x1`` permuted and reshaped to (free, contracted) and ``x2`` to
    (contracted, free); the reshapes copy on the device (aclnnInplaceCopy) only
    when the permuted view is not contiguous enough. Dtypes as ``matmul``
    (complex: no conjugation). Raises ValueError when contracted sizes differ
    (they are never broadcast), for bad ``axes`` or arrays on different
    devices, AxisError (ValueError, IndexError) for axes out of range, TypeError
    for bool or non-array operands.
    """
    device, dtype = _operands("tensordot", x1, x2)
    axes1, axes2 = _tensordot_axes(axes, x1.ndim, x2.ndim)
    for i, j in zip(axes1, axes2):
        if x1._shape[i] != x2._shape[j]:
            raise ValueError(f"tensordot: contracted axes differ in size: axis {i} of "
                             f"shape {x1._shape} and axis {j} of shape {x2._shape}")
    free1 = tuple(i for i in range(x1.ndim) if i not in axes1)
    free2 = tuple(j for j in range(x2.ndim) if j not in axes2)
    m, k, n = _size(x1._shape, free1), _size(x1._shape, axes1), _size(x2._shape, free2)
    a = _as_matrix(x1, free1 + axes1, (m, k))
    b = _as_matrix(x2, axes2 + free2, (k, n))
    out = _product(a, b, (m, n), k, dtype, device, _ops.current_stream(device))
    shape = tuple(x1._shape[i] for i in free1) + tuple(x2._shape[j] for j in free2)
    return out if shape == (m, n) else _manipulation.reshape(out, shape)


def vecdot(x1, x2, /, *, axis=-1):
    """Dot products of the vectors along ``axis``: ``sum(conj(x1) * x2, axis)``
    (array API ``vecdot``, ``numpy.vecdot``). The other axes broadcast; the
    result has them, in the promoted dtype (0-d for two vectors).

    ``axis`` should be negative, in [-min(x1.ndim, x2.ndim), -1]; a non-negative
    one is taken per operand, as NumPy does. Runs on the current stream of the
    operands' device as one batched aclnnMatmul of (..., 1, K) by (..., K, 1)
    views (complex: see ``matmul``; ``x1`` is conjugated). Raises ValueError
    when the vectors differ in length (the contracted axis is never broadcast),
    the other axes do not broadcast, an operand is 0-d or the arrays are on
    different devices; AxisError (ValueError, IndexError) for ``axis`` out of
    range; TypeError for bool or non-array operands.
    """
    device, dtype = _operands("vecdot", x1, x2)
    if not x1._shape or not x2._shape:
        raise ValueError("vecdot: 0-d arrays are not allowed")
    a = _manipulation.moveaxis(x1, axis, -1)
    b = _manipulation.moveaxis(x2, axis, -1)
    k = a._shape[-1]
    if b._shape[-1] != k:
        raise ValueError(f"vecdot: the vectors along axis {axis} differ in length: shapes "
                         f"{x1._shape} and {x2._shape}")
    try:
        batch = broadcast_shapes(a._shape[:-1], b._shape[:-1])
    except ValueError:
        raise ValueError(f"vecdot: shapes {x1._shape} and {x2._shape} do not broadcast "
                         f"outside axis {axis}") from None
    rows = _manipulation.expand_dims(a, -2)
    columns = _manipulation.expand_dims(b, -1)
    out = _product(rows, columns, batch + (1, 1), k, dtype, device,
                   _ops.current_stream(device), conjugate_a=True)
    return _manipulation.reshape(out, batch)
