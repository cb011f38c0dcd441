"""linalg functions composed of device operators: norms, pinv, matrix_rank,
matrix_power, cross, outer, diagonal, trace.

Each runs on the current stream of its operands' device, as the element-wise,
reduction and matmul operators it is made of (aclnnAbs, aclnnMul, aclnnPow,
aclnnReduceSum, aclnnAmax/Amin, aclnnSqrt, aclnnMatmul, aclnnSWhere, ...).
"""
import operator

import numpy as np

from .._core import _ops
from .._core._creation import eye
from .._core._data_type import to_acl_dtype
from .._core._elementwise import (is_array, promote, abs as _abs, broadcast_shapes, conj, divide,
                            greater, multiply, not_equal, pow as _pow, sqrt, where)
from .._core._linear_algebra import matmul
from .._core._manipulation import astype, expand_dims, matrix_transpose, reshape
from .._core._operator_table import operator_dtypes
from .._core._statistical import max as _max, min as _min, sum as _sum
from ._common import REAL_OF, check_array, check_floating, check_matrices, new
from ._factor import inv, svd, svdvals

_FLOAT32 = np.dtype(np.float32)
_INT64 = np.dtype(np.int64)
_CROSS = operator_dtypes("aclnnLinalgCross")

__all__ = ["vector_norm", "matrix_norm", "pinv", "matrix_rank", "matrix_power", "cross", "outer",
           "diagonal", "trace"]


def _axes(axis, ndim, name):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim, f"linalg.{name}()")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"linalg.{name}(): repeated axis in {axis}")
    return tuple(out)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002  array API name
    """Vector ``ord``-norm of ``x`` over ``axis`` (int, tuple, or None for all;
    array API ``linalg.vector_norm``, ``numpy.linalg.vector_norm``). ``ord``: any
    nonzero real p (``sum(|x|**p) ** (1/p)``), ``inf``, ``-inf``, or 0 (count of
    nonzero elements). Result: real floating dtype of ``x`` (float32 for
    complex64). float32: one aclnnLinalgVectorNorm on the current stream; other
    dtypes (which that operator lacks): aclnnAbs, aclnnPow/aclnnMul,
    aclnnReduceSum, aclnnAmax/aclnnAmin and aclnnSqrt. TypeError for
    non-floating input, AxisError (ValueError, IndexError) for a bad axis."""
    check_floating("vector_norm", x)
    axes = _axes(axis, x.ndim, "vector_norm")
    real = REAL_OF[x._dtype]
    if x._dtype == _FLOAT32 and x.size:
        return _device_vector_norm(x, axes, keepdims, float(ord))
    a = _abs(x)
    if ord == 2:
        return sqrt(_sum(multiply(a, a), axis=axes, keepdims=keepdims))
    if ord == 1:
        return _sum(a, axis=axes, keepdims=keepdims)
    if ord == float("inf") or ord == float("-inf"):
        if 0 in [x._shape[i] for i in axes]:
            if ord < 0:
                raise ValueError("linalg.vector_norm(): -inf norm of an empty vector")
            return _sum(a, axis=axes, keepdims=keepdims)  # max over nothing is 0 for |x|
        return (_max if ord > 0 else _min)(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        return _sum(astype(not_equal(x, 0), real), axis=axes, keepdims=keepdims)
    p = float(ord)
    powered = _sum(_pow(a, p), axis=axes, keepdims=keepdims)
    return _pow(powered, 1.0 / p)


def _device_vector_norm(x, axes, keepdims, ord):
    """One aclnnLinalgVectorNorm (FLOAT32, FLOAT16, BFLOAT16 only; hicann/ops-nn
    norm/lp_norm_v2/docs/aclnnLinalgVectorNorm.md)."""
    shape = tuple(1 if i in axes else n for i, n in enumerate(x._shape) if keepdims or i not in axes)
    out = new(shape, _FLOAT32, x)
    _ops.launch("aclnnLinalgVectorNorm", x, _ops.acl_scalar(ord, _FLOAT32),
                _ops.acl_int_array(axes), bool(keepdims), to_acl_dtype(_FLOAT32), out)
    return out


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002  array API name
    """Matrix norm of the matrices ``x`` ``(..., M, N)`` (array API
    ``linalg.matrix_norm``): ``ord`` "fro" (default), "nuc", 1, -1, 2, -2, inf,
    -inf, as NumPy. Real floating result of shape ``(...)`` (``(..., 1, 1)`` with
    ``keepdims``). Composed of device operators (the 2, -2 and "nuc" norms use
    aclnnSvd's singular values). TypeError for non-floating input, ValueError for
    a bad ``ord`` or fewer than two dimensions."""
    check_floating("matrix_norm", x)
    check_matrices("matrix_norm", x)
    if ord == "fro":
        return vector_norm(x, axis=(-2, -1), keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        s = svdvals(x)
        reduce = {"nuc": _sum, 2: _max, -2: _min}[ord]
        result = reduce(s, axis=-1)
    elif ord in (1, -1, float("inf"), float("-inf")):
        summed = _sum(_abs(x), axis=-2 if ord in (1, -1) else -1)
        result = (_max if ord > 0 else _min)(summed, axis=-1)
    else:
        raise ValueError(f"linalg.matrix_norm(): invalid norm order {ord!r}")
    return reshape(result, result.shape + (1, 1)) if keepdims else result


def _default_rtol(x):
    return max(x._shape[-2], x._shape[-1]) * float(np.finfo(REAL_OF[x._dtype]).eps)


def _cutoff(s, rtol, x):
    """rtol * largest singular value, shaped to compare with ``s`` (..., K)."""
    largest = _max(s, axis=-1, keepdims=True)
    if rtol is None:
        return multiply(largest, _default_rtol(x))
    if is_array(rtol):
        return multiply(largest, expand_dims(rtol, axis=-1))
    return multiply(largest, float(rtol))


def pinv(x, /, *, rtol=None):
    """Moore-Penrose pseudo-inverse of ``x`` ``(..., M, N)`` → ``(..., N, M)``
    (array API ``linalg.pinv``, ``numpy.linalg.pinv`` with ``rtol``): singular
    values at most ``rtol * max(S)`` (default ``max(M, N) * eps``) are treated as
    zero. aclnnSvd, then aclnnSWhere, aclnnDiv, aclnnMul and aclnnMatmul on the
    current stream. TypeError for
    non-floating input, ValueError below two dimensions."""
    check_floating("pinv", x)
    check_matrices("pinv", x)
    if not x.size:  # nothing to invert: an empty (..., N, M) result
        return new(x._shape[:-2] + x._shape[:-3:-1], x._dtype, x)
    u, s, vh = svd(x, full_matrices=False)
    keep = greater(s, _cutoff(s, rtol, x))
    s_inv = where(keep, divide(1.0, where(keep, s, 1.0)), 0.0)
    hermitian = (lambda m: conj(matrix_transpose(m))) if x._dtype.kind == "c" else matrix_transpose
    scaled = multiply(hermitian(vh), expand_dims(s_inv, axis=-2))
    return matmul(scaled, hermitian(u))


def matrix_rank(x, /, *, rtol=None):
    """Rank of the matrices ``x`` ``(..., M, N)``: the number of singular values
    above ``rtol * max(S)`` (default ``max(M, N) * eps``), int64 of shape ``(...)``
    (array API ``linalg.matrix_rank``). aclnnSvd, aclnnGtTensor, aclnnReduceSum on
    the current stream. TypeError for non-floating input, ValueError below two
    dimensions."""
    check_floating("matrix_rank", x)
    check_matrices("matrix_rank", x)
    s = svdvals(x)
    if not s.size:
        return _sum(new(s._shape, s._dtype, s), axis=-1, dtype=np.int64)
    return _sum(greater(s, _cutoff(s, rtol, x)), axis=-1, dtype=np.int64)


def matrix_power(x, n, /):
    """``x`` (square matrices ``(..., M, M)``) raised to the integer power ``n``
    (array API ``linalg.matrix_power``, ``numpy.linalg.matrix_power``): repeated
    squaring with aclnnMatmul; ``n = 0`` gives identities, ``n < 0`` powers of
    ``inv(x)``. TypeError for a non-integer ``n``, LinAlgError for non-square
    input (and for a singular matrix with ``n < 0``)."""
    check_array("matrix_power", x)
    check_matrices("matrix_power", x, square=True)
    n = operator.index(n)
    if n == 0:
        identity = eye(x._shape[-1], dtype=x._dtype, device=x.device)
        return _ops.copy_(new(x._shape, x._dtype, x), identity)
    if n < 0:
        x, n = inv(x), -n
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result if result is not x else _ops.copy(x)


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors along ``axis`` (array API
    ``linalg.cross``): operands broadcast, the ``axis`` dimension must be 3 in
    both; result in the promoted dtype. One aclnnLinalgCross on the current
    stream (uint16/32/64, which it lacks, through int64 with the same wrapping).
    ValueError when the axis size is not 3 or ``axis`` is out of range;
    TypeError for bool operands."""
    check_array("cross", x1)
    check_array("cross", x2)
    n = min(x1.ndim, x2.ndim)
    if axis >= 0 and x1.ndim == x2.ndim:
        axis -= x1.ndim  # NumPy's reading of a non-negative axis
    if not -n <= axis < 0:
        raise ValueError(f"linalg.cross(): axis {axis} is out of range [-{n}, -1] for shapes "
                         f"{x1.shape} and {x2.shape}")
    if x1._shape[axis] != 3 or x2._shape[axis] != 3:
        raise ValueError(f"linalg.cross(): the axis {axis} dimension must be 3 in both "
                         f"operands (shapes {x1.shape} and {x2.shape})")
    dtype = promote(x1._dtype, x2._dtype)
    if dtype == np.bool_:
        raise TypeError("linalg.cross() does not support bool operands")
    work = dtype if dtype in _CROSS else _INT64  # uint16/32/64: the same bits modulo 2**64
    a = x1 if x1._dtype == work else _ops.cast(x1, work)
    b = x2 if x2._dtype == work else _ops.cast(x2, work)
    out = new(broadcast_shapes(x1._shape, x2._shape), work, x1)
    if out.size:
        _ops.launch("aclnnLinalgCross", a, b, axis, out)
    return out if work == dtype else _ops.cast(out, dtype)


def outer(x1, x2, /):
    """Outer product of the 1-D arrays ``x1`` (N) and ``x2`` (M) → (N, M) in the
    promoted dtype (array API ``linalg.outer``): aclnnMul of broadcast views on
    the current stream. ValueError unless both are 1-D."""
    check_array("outer", x1)
    check_array("outer", x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"linalg.outer() needs 1-D arrays, got shapes {x1.shape} and {x2.shape}")
    return multiply(expand_dims(x1, axis=1), expand_dims(x2, axis=0))


def diagonal(x, /, *, offset=0):
    """View of the diagonals of the matrices ``x`` ``(..., M, N)``: shape
    ``(..., K)`` (array API ``linalg.diagonal``; ``offset`` > 0 above the main
    diagonal, < 0 below). No device work: a strided view of the same buffer.
    ValueError below two dimensions."""
    check_array("diagonal", x)
    check_matrices("diagonal", x)
    offset = operator.index(offset)
    *batch, m, n = x._shape
    *bstrides, rs, cs = x._strides
    if offset >= 0:
        k, start = max(0, min(m, n - offset)), offset * cs
    else:
        k, start = max(0, min(m + offset, n)), -offset * rs
    return x._view((*batch, k), (*bstrides, rs + cs), x._offset + (start if k else 0))


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the diagonal ``offset`` of the matrices ``x`` → shape ``(...)``
    (array API ``linalg.trace``): aclnnReduceSum over the diagonal view on the
    current stream. ``dtype`` as ``sum`` (default: ``x.dtype`` for floating and
    complex, int64 / uint64 for integers). ValueError below two dimensions."""
    return _sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)
