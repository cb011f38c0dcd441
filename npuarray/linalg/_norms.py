"""``numpy.linalg.norm`` and ``numpy.linalg.cond``: NumPy's signatures over the
array API's ``vector_norm`` / ``matrix_norm`` and ``svdvals`` / ``inv``.

Each runs on the current stream of its operand's device, as the operators it
is made of (aclnnLinalgVectorNorm or aclnnAbs / aclnnMul / aclnnReduceSum /
aclnnSqrt, aclnnSvd, aclnnInverse, aclnnSlogdet, aclnnSWhere).
"""
import operator

import numpy as np

from .._core import _elementwise as ew
from .._core import _manipulation
from .._core import _utility
from .._core._creation import eye
from .._core._manipulation import normalize_axis_tuple
from ._common import LinAlgError, check_array
from ._compose import matrix_norm, vector_norm
from ._factor import inv, slogdet, svdvals

__all__ = ["norm", "cond"]

_INF = float("inf")


def linalg_operand(x, name, *, half=False):
    """``x`` in the dtype NumPy's linalg computes it in: float64 for bool and
    integers; float16 only where ``half`` (norm, which NumPy computes in
    float16: here in float32 and cast back), else TypeError as NumPy."""
    check_array(name, x)
    if x.dtype.kind in "biu":
        return _manipulation.astype(x, np.float64)
    if x.dtype == np.float16 and not half:
        raise TypeError("array type float16 is unsupported in linalg")
    if x.dtype.kind not in "fc":
        raise TypeError(f"linalg.{name}(): dtype {x.dtype} is not supported")
    return x


def _norm_axes(axis, ndim):
    if axis is None:
        return None
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    try:
        axes = tuple(operator.index(a) for a in axes)
    except TypeError:
        raise TypeError("'axis' must be None, an integer or a tuple of integers") from None
    return tuple(normalize_axis_tuple(axes, ndim)) if len(axes) <= 2 else axes


def _matrix_norm(x, ord, axes, keepdims, half):  # noqa: A002  NumPy's name
    row, col = axes
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord not in (None, "fro", "nuc", 1, -1, 2, -2, _INF, -_INF):
        raise ValueError("Invalid norm order for matrices.")
    if half and ord in ("nuc", 2, -2):
        raise TypeError("array type float16 is unsupported in linalg")  # NumPy's svd refuses it
    moved = _manipulation.moveaxis(x, (row, col), (-2, -1))
    result = matrix_norm(moved, ord="fro" if ord is None else ord)
    if keepdims:
        result = _manipulation.expand_dims(result, axis=tuple(sorted((row, col))))
    return result


def _vector_norm(x, ord, axis, keepdims):  # noqa: A002  NumPy's name
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    return vector_norm(x, axis=axis, keepdims=keepdims, ord=2 if ord is None else ord)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002  NumPy's name
    """Vector or matrix norm (``numpy.linalg.norm``): with ``axis`` None, the
    2-norm of the flattened ``x`` when ``ord`` is None, else the vector norm
    of 1-D or the matrix norm of 2-D ``x``; an int axis gives vector norms
    (``ord``: any real p, inf, -inf, 0), a pair of axes matrix norms (``ord``:
    None / "fro", "nuc", ±1, ±2, ±inf). The real floating dtype of ``x``
    (float64 for integers and bool; float16 computed in float32, and refused
    with TypeError by the singular-value norms, as NumPy). ValueError
    for an invalid ``ord``, duplicate or too many axes."""
    x = linalg_operand(x, "norm", half=True)
    half = x.dtype == np.float16
    if half:
        x = _manipulation.astype(x, np.float32)
    axes = _norm_axes(axis, x.ndim)
    if axes is None:
        if ord is None:
            result = vector_norm(x, keepdims=keepdims)
        elif x.ndim == 1:
            result = _vector_norm(x, ord, None, keepdims)
        elif x.ndim == 2:
            result = _matrix_norm(x, ord, (0, 1), keepdims, half)
        else:
            raise ValueError("Improper number of dimensions to norm.")
    elif len(axes) == 1:
        result = _vector_norm(x, ord, axes, keepdims)
    elif len(axes) == 2:
        result = _matrix_norm(x, ord, axes, keepdims, half)
    else:
        raise ValueError("Improper number of dimensions to norm.")
    return _manipulation.astype(result, np.float16) if half else result


def _singular_as_identity(x):
    """(``x`` with its singular matrices replaced by the identity, the mask of
    those matrices): aclnnSlogdet's sign is 0 exactly for them."""
    singular = ew.equal(slogdet(x).sign, 0)
    identity = eye(x.shape[-1], dtype=x.dtype, device=x.device)
    mask = _manipulation.expand_dims(singular, axis=(-2, -1))
    return ew.where(mask, identity, x), singular


def cond(x, p=None):
    """Condition number of the matrices ``x`` (..., M, N) in the norm ``p``
    (``numpy.linalg.cond``): for None, 2, -2 the ratio of the extreme singular
    values (aclnnSvd); for "fro", "nuc", ±1, ±inf (square matrices)
    ``norm(x, p) * norm(inv(x), p)`` (aclnnInverse), singular matrices giving
    inf (found with aclnnSlogdet). A NaN result becomes inf unless its matrix
    holds a NaN, as NumPy. The real floating dtype of ``x`` (float64 for
    integers). LinAlgError for fewer than two dimensions or non-square
    matrices with another ``p``; TypeError for float16."""
    x = linalg_operand(x, "cond")
    if x.ndim < 2:
        raise LinAlgError(f"{x.ndim}-dimensional array given. Array must be at least "
                          f"two-dimensional")
    if p is None or p in (2, -2):
        s = svdvals(x)
        largest, smallest = s[..., 0], s[..., -1]
        result = ew.divide(largest, smallest) if p != -2 else ew.divide(smallest, largest)
    else:
        if x.shape[-1] != x.shape[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")
        regular, singular = _singular_as_identity(x)
        result = ew.multiply(norm(x, p, axis=(-2, -1)), norm(inv(regular), p, axis=(-2, -1)))
        result = ew.where(singular, _INF, result)
    had_nan = _utility.any(ew.isnan(x), axis=(-2, -1))
    return ew.where(ew.logical_and(ew.isnan(result), ew.logical_not(had_nan)), _INF, result)
