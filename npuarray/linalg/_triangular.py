"""float32 inverses of lower-triangular matrices on the device, by recursive doubling:
the diagonal blocks of ``BLOCK`` rows are inverted together (one aclnnInverse of their
strided view, written straight into the result's diagonal blocks; ops-blas's LU solved
with the identity took about 1.4 times as long, with its copies), then blocks of twice
the size are made from pairs, ``[[W11, 0], [W21, W22]]`` with ``W21 = -W22 L21 W11``
(two batched aclnnMatmul per level, every pair of a level in one launch through strided
views). About ``n**3 / 3`` multiply-adds, against ``n**3`` for a solve with ``n``
right-hand sides. The error is that of a triangular solve, a small multiple of
``cond(L) u`` (float32's ``u``)."""
import numpy as np

from .._core import _ops
from .._core._creation import eye
from .._core._elementwise import negative
from .._core._linear_algebra import matmul
from .._core._manipulation import broadcast_to

__all__ = []

BLOCK = 64
_FLOAT32 = np.dtype(np.float32)


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

