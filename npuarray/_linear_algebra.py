"""Linear algebra functions of the array API main namespace on the device: matmul."""

import numpy as np

from . import _ops
from ._elementwise import _is_array, _kind, _promote, broadcast_shapes, same_device

__all__ = ["matmul"]

# cubeMathType of aclnnMatmul (reference section 7.2): KEEP_DTYPE computes in the
# input dtype, so float32 stays exact float32 (A2/A3; on Atlas training series
# CANN refuses it for float32 with 161002 rather than lose precision silently).
_KEEP_DTYPE = 0

# aclnnMatmul has no uint16/32/64. Products and sums modulo 2**64 are the same in int64,
# so these run there and wrap back to the unsigned dtype exactly as NumPy's do.
_INT64 = np.dtype(np.int64)
_VIA_INT64 = frozenset(map(np.dtype, (np.uint16, np.uint32, np.uint64)))


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


def matmul(x1, x2, /):
    """Matrix product of two arrays (array API ``matmul``, ``numpy.matmul``, the
    ``@`` operator): aclnnMatmul (cubeMathType KEEP_DTYPE) on the current stream.

    1-D operands are promoted to matrices as NumPy does (and the added
    dimension removed); leading batch dimensions broadcast. Shapes ``(..., M, K)``
    and ``(..., K, N)`` give ``(..., M, N)`` in the promoted dtype. CANN
    documents float16, bfloat16 and float32; npusim also computes float64
    (OpenBLAS) and integers (uint16/32/64 through int64, wrapping as NumPy). Raises ValueError for 0-d operands, mismatched
    contracted dimensions, non-broadcasting batch dimensions or arrays on
    different devices; TypeError for bool, complex or non-array operands.
    """
    if not (_is_array(x1) and _is_array(x2)):
        raise TypeError(f"matmul() needs two NPUArrays, got {type(x1).__name__} and "
                        f"{type(x2).__name__}")
    device = same_device("matmul", x1, x2)
    dtype = _promote(x1._dtype, x2._dtype)
    if _kind(dtype) in "bc":
        raise TypeError(f"matmul() does not support dtype {dtype}")
    shape, k = _matmul_shape(x1._shape, x2._shape)
    stream = _ops.get_current_stream(device)
    out = _ops.empty(shape, dtype, device, stream)
    if 0 in shape:
        return out
    if k == 0:  # an empty sum: zeros, as NumPy
        return _ops.fill_(out, 0, stream=stream)
    work = _INT64 if dtype in _VIA_INT64 else dtype
    a = x1 if x1._dtype == work else _ops.cast(x1, work, stream=stream)
    b = x2 if x2._dtype == work else _ops.cast(x2, work, stream=stream)
    if work == dtype:
        _ops.launch("aclnnMatmul", a, b, out, _KEEP_DTYPE, stream=stream)
    else:
        product = _ops.empty(shape, work, device, stream)
        _ops.launch("aclnnMatmul", a, b, product, _KEEP_DTYPE, stream=stream)
        _ops.copy_(out, product, stream=stream)
    return out
