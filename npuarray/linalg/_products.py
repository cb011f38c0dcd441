"""``numpy.linalg.multi_dot``, ``tensorinv`` and ``tensorsolve``: NumPy's
functions as reshapes around aclnnMatmul, aclnnInverse and ``solve``, on the
current stream of the operands' device.
"""
import math
import operator

import numpy as np

from .._core import _manipulation
from .._core._manipulation import astype
from .._core._data_type import result_type
from .._core._elementwise import not_equal
from .._core._linear_algebra import matmul
from ._common import LinAlgError, check_array
from ._factor import inv, solve
from ._norms import linalg_operand

__all__ = ["multi_dot", "tensorinv", "tensorsolve"]


def _chain_order(shapes):
    """NumPy's optimal parenthesisation of a matrix chain (dynamic programming
    on the shapes, host-only): ``split[i][j]`` the last product of i..j."""
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    n = len(shapes)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _product(a, b):
    """``a @ b`` (aclnnMatmul); bool matrices as NumPy's "or of ands": the int32
    product compared with 0."""
    if a.dtype != np.bool_:
        return matmul(a, b)
    return not_equal(matmul(astype(a, np.int32), astype(b, np.int32)), 0)


def _chain_product(arrays, split, i, j):
    if i == j:
        return arrays[i]
    k = split[i][j]
    return _product(_chain_product(arrays, split, i, k), _chain_product(arrays, split, k + 1, j))


def multi_dot(arrays, *, out=None):
    """The product of two or more matrices in the cheapest order
    (``numpy.linalg.multi_dot``): the first may be 1-D (a row), the last 1-D
    (a column), the others 2-D; the order is NumPy's dynamic programme over
    the shapes, each product one aclnnMatmul in the promoted dtype. ValueError
    for fewer than two arrays, LinAlgError for other dimensions, ValueError
    for mismatched inner sizes; ``out`` an NPUArray of the result's shape."""
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    for a in arrays:
        check_array("multi_dot", a)
    dtype = result_type(*arrays)
    arrays = [_manipulation.astype(a, dtype, copy=False) for a in arrays]
    first_vector, last_vector = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first_vector:
        arrays[0] = _manipulation.reshape(arrays[0], (1, -1))
    if last_vector:
        arrays[-1] = _manipulation.reshape(arrays[-1], (-1, 1))
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be "
                              f"two-dimensional")
    for left, right in zip(arrays, arrays[1:]):
        if left.shape[1] != right.shape[0]:
            raise ValueError(f"shapes {left.shape} and {right.shape} not aligned: "
                             f"{left.shape[1]} (dim 1) != {right.shape[0]} (dim 0)")
    split = _chain_order([a.shape for a in arrays])
    result = _chain_product(arrays, split, 0, len(arrays) - 1)
    shape = result.shape[first_vector:2 - last_vector]
    result = _manipulation.reshape(result, shape)
    if out is not None:
        if out.shape != result.shape:
            raise ValueError(f"out has shape {out.shape}, the result has shape {result.shape}")
        out[...] = result
        return out
    return result


def tensorinv(a, ind=2):
    """The inverse of ``a`` under ``tensordot(·, ·, ind)`` (``numpy.linalg.tensorinv``):
    ``a`` reshaped to a (prod(a.shape[:ind]), rest) matrix, inverted
    (aclnnInverse), reshaped to ``a.shape[ind:] + a.shape[:ind]``. ValueError
    for ``ind <= 0``, LinAlgError when that matrix is not square or singular."""
    a = linalg_operand(a, "tensorinv")
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    rows = math.prod(a.shape[:ind])
    inverse = inv(_manipulation.reshape(a, (rows, -1)))
    return _manipulation.reshape(inverse, a.shape[ind:] + a.shape[:ind])


def tensorsolve(a, b, axes=None):
    """The ``x`` with ``tensordot(a, x, x.ndim) == b`` (``numpy.linalg.tensorsolve``):
    ``axes`` of ``a`` moved last, ``a`` reshaped to a square matrix and
    ``solve`` d against the flattened ``b``, the solution shaped as the
    trailing axes of ``a``. LinAlgError when the sizes do not make a square
    system or it is singular."""
    a = linalg_operand(a, "tensorsolve")
    b = linalg_operand(b, "tensorsolve")
    if axes is not None:
        order = list(range(a.ndim))
        for k in axes:
            order.remove(k)
            order.append(k)
        a = _manipulation.permute_dims(a, tuple(order))
    shape = a.shape[-(a.ndim - b.ndim):]  # NumPy's slice, also when a.ndim == b.ndim
    size = math.prod(shape)
    if a.size != size ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    dtype = np.result_type(a.dtype, b.dtype)
    square = _manipulation.astype(_manipulation.reshape(a, (size, size)), dtype, copy=False)
    rhs = _manipulation.astype(_manipulation.reshape(b, (-1,)), dtype, copy=False)
    return _manipulation.reshape(solve(square, rhs), shape)
