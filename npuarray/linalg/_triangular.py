"""float32 inverses of lower-triangular matrices on the device, by recursive doubling:
the diagonal blocks of ``BLOCK`` rows are inverted together (one aclnnInverse of their
strided view, written straight into the result's diagonal blocks; an LU solve with the
identity cost about 1.5 times as much, with its copies), then blocks of twice the size are made from
pairs, ``[[W11, 0], [W21, W22]]`` with ``W21 = -W22 L21 W11`` (two batched aclnnMatmul
per level, every pair of a level in one launch through strided views). About ``n**3 / 3``
multiply-adds, against ``n**3`` for a solve with ``n`` right-hand sides. The error is
that of a triangular solve, a small multiple of ``cond(L) u`` (float32's ``u``).

Products with lower-triangular factors (``lower_times``, ``times_lower_transposed``, for
float64 ``cholesky``'s Newton steps) skip the blocks a triangle makes zero: with the
matrices cut into 2 x 2 blocks of ``h = n / 2`` rows, ``L M`` (both lower) is
``[[L11 M11, 0], [L2 M1, L22 M22]]`` (``L2``: the second block row, ``M1``: the first
block column; the two diagonal products in one batched launch through strided views),
half the multiply-adds of a full product; ``L X`` three quarters; the lower blocks of
``X L^T`` half, and the whole of it three quarters. On npusim these smaller products run
as row blocks on its own thread pool (under 2**27 multiply-adds, kernels/ops/matmul.c),
at about two thirds of the rate of a whole 512 x 512 product on an idle machine, but
without that product's stalls on descheduled BLAS threads on a busy one; below
``BLOCKED_FROM`` rows the extra launches are not worth it."""
import numpy as np

from .._core import _ops
from .._core._creation import eye
from .._core._elementwise import negative
from .._core._linear_algebra import matmul
from .._core._manipulation import broadcast_to, matrix_transpose

__all__ = []

BLOCK = 64
BLOCKED_FROM = 128      # rows from which the triangles' zero blocks are skipped
_FLOAT32 = np.dtype(np.float32)
_KEEP_DTYPE = 0         # aclnnMatmul's cubeMathType: float32 computed as float32


def _blocks(x, size, count, first, step):
    """View (..., count, size, size) of the square blocks of the C-contiguous ``x``
    (..., N, N) starting at element ``first`` of each matrix, ``step`` elements apart."""
    width = x._shape[-1]
    return x._view(x._shape[:-2] + (count, size, size), x._strides[:-2] + (step, width, 1), x._offset + first)


def inverse(lower, stream):
    """W = L^-1 (float32, (..., n, n), C-contiguous) of the float32 lower-triangular
    ``lower`` (..., n, n) (its strict upper triangle must be zero), on ``stream``; padded
    with the identity to ``BLOCK`` times a power of two rows (a copy: unless ``lower`` is
    C-contiguous with as many rows already)."""
    batch, n = lower._shape[:-2], lower._shape[-1]
    device = lower._buffer.device
    block = min(BLOCK, n)
    size = block
    while size < n:
        size *= 2
    if size == n and lower.is_c_contiguous():
        padded = lower
    else:
        padded = _ops.empty(batch + (size, size), _FLOAT32, device, stream)
        _ops.copy_(padded, broadcast_to(eye(size, dtype=_FLOAT32, device=lower.device), padded._shape),
                   stream=stream)
        _ops.copy_(padded[..., :n, :n], lower, stream=stream)
    result = _ops.fill_(_ops.empty(batch + (size, size), _FLOAT32, device, stream), 0, stream=stream)
    count, step = size // block, block * (size + 1)
    _ops.launch("aclnnInverse", _blocks(padded, block, count, 0, step), _blocks(result, block, count, 0, step),
                stream=stream)
    width = block
    while width < size:
        count, step = size // (2 * width), 2 * width * (size + 1)
        w11 = _blocks(result, width, count, 0, step)
        w22 = _blocks(result, width, count, width * (size + 1), step)
        l21 = _blocks(padded, width, count, width * size, step)
        _ops.copy_(_blocks(result, width, count, width * size, step),
                   negative(matmul(w22, matmul(l21, w11))), stream=stream)
        width *= 2
    return result if size == n else _ops.copy(result[..., :n, :n], stream=stream)


def _product(a, b, out, stream):
    """``out[...] = a @ b`` (float32 views, any strides): one aclnnMatmul."""
    _ops.launch("aclnnMatmul", a, b, out, _KEEP_DTYPE, stream=stream)


def _diagonal_pair(x, h):
    """The view (..., 2, h, h) of the two diagonal blocks of ``x`` (..., 2 h, 2 h)."""
    rs, cs = x._strides[-2:]
    return x._view(x._shape[:-2] + (2, h, h), x._strides[:-2] + (h * (rs + cs), rs, cs), x._offset)


def _new(like, stream):
    """A new float32 array of ``like``'s shape on its device."""
    return _ops.empty(like._shape, _FLOAT32, like._buffer.device, stream)


def _half(x):
    """Rows of the 2 x 2 blocks of ``x``, or None: whole products for small or odd sizes."""
    n = x._shape[-1]
    return n // 2 if n >= BLOCKED_FROM and n % 2 == 0 else None


def lower_times(a, b, stream, lower=True):
    """``a @ b`` (float32, (..., n, n), a new array) of the lower-triangular ``a`` and ``b``
    (lower-triangular too) when ``lower``, else of the lower-triangular ``a`` and any ``b``."""
    h = _half(a)
    if h is None:
        out = _new(a, stream)
        _product(a, b, out, stream)
        return out
    out = _new(a, stream)
    if lower:
        _ops.fill_(out[..., :h, h:], 0, stream=stream)
        _product(_diagonal_pair(a, h), _diagonal_pair(b, h), _diagonal_pair(out, h), stream)
        _product(a[..., h:, :], b[..., :, :h], out[..., h:, :h], stream)
    else:
        _product(a[..., :h, :h], b[..., :h, :], out[..., :h, :], stream)
        _product(a[..., h:, :], b, out[..., h:, :], stream)
    return out


def times_lower_transposed(x, w, stream, full=False):
    """``x @ w^T`` (float32, (..., n, n), a new array) of any ``x`` and the lower-triangular
    ``w``: the whole of it when ``full``, else its lower blocks only (the block above the
    diagonal blocks is zero; the diagonal blocks are whole)."""
    h = _half(x)
    out = _new(x, stream)
    if h is None:
        _product(x, matrix_transpose(w), out, stream)
        return out
    _product(x[..., :, :h], matrix_transpose(w[..., :h, :h]), out[..., :, :h], stream)
    if full:
        _product(x, matrix_transpose(w[..., h:, :]), out[..., :, h:], stream)
    else:
        _ops.fill_(out[..., :h, h:], 0, stream=stream)
        _product(x[..., h:, :], matrix_transpose(w[..., h:, :]), out[..., h:, h:], stream)
    return out
