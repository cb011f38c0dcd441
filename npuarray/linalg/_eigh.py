"""Hermitian eigen-decompositions on the device (``eigh``, ``eigvalsh``) from CANN's
singular value decomposition, aclnnSvd (hicann/ops-math math/svd/docs/aclnnSvd.md:
FLOAT, DOUBLE, COMPLEX64, COMPLEX128).

CANN has no eigensolver. A Hermitian positive-definite matrix's singular value
decomposition is its eigendecomposition (``U = V``, ``sigma`` the eigenvalues), so
the matrix is first shifted to ``a + c I`` with ``c`` just above ``||a||_1``, a bound
of its spectral radius: the eigenvectors are unchanged, the eigenvalues move by ``c``
and the gaps between them are kept, so the vectors are as accurate as LAPACK's
(their error depends on the gaps), and the eigenvalues' errors stay within LAPACK's
absolute bound, a small multiple of ``u ||a||``. The descending singular values give
ascending eigenvalues ``sigma - c`` in reverse order (aclnnFlip). As LAPACK's
``syevd`` / ``heevd`` with NumPy's default, only the lower triangle of ``a`` is read.

Chosen over QDWH-based spectral divide and conquer or Jacobi sweeps because it is
one CANN operator per batch of matrices (a handful of launches in all) with
LAPACK's accuracy; those methods take hundreds of matrix products or launches.
"""
import numpy as np

from .._core import _ops
from .._core._creation import eye, tril
from .._core._elementwise import abs as _abs, add, conj, multiply, real, subtract, where
from .._core._manipulation import astype
from .._core._manipulation import flip, matrix_transpose
from .._core._statistical import max as _max, sum as _sum
from ._common import REAL_OF, new

__all__ = []

_MARGIN = 1.0 + 2.0 ** -10   # c a little above ||a||_1: a + c I positive definite


def _shifted(x):
    """(a + c I, c) for the Hermitian matrix ``a`` of ``x``'s lower triangle, with c
    of shape (..., 1, 1): ``||a||_1`` (max column sum) times a margin, plus the
    smallest normal number so that the zero matrix is shifted too."""
    lower = tril(x)
    a = add(lower, conj(matrix_transpose(tril(x, k=-1))))
    if x._dtype.kind == "c":   # a Hermitian diagonal is real: LAPACK ignores its imaginary parts
        diagonal = eye(x._shape[-1], dtype=np.bool_, device=x.device)
        a = where(diagonal, astype(real(a), x._dtype), a)
    norm = _max(_sum(_abs(a), axis=-2, keepdims=True), axis=-1, keepdims=True)
    shift = add(multiply(norm, _MARGIN), float(np.finfo(REAL_OF[x._dtype]).tiny))
    identity = eye(x._shape[-1], dtype=x._dtype, device=x.device)
    return add(a, multiply(identity, shift)), real(shift) if x._dtype.kind == "c" else shift


def _svd(a, compute_uv):
    n = a._shape[-1]
    batch = a._shape[:-2]
    sigma = new(batch + (n,), a._dtype, a)
    if compute_uv:
        u, v = new(a._shape, a._dtype, a), new(a._shape, a._dtype, a)
    else:
        u = v = new((0,), a._dtype, a)
    _ops.launch("aclnnSvd", a, False, bool(compute_uv), sigma, u, v)
    return (real(sigma) if a._dtype.kind == "c" else sigma), v


def eigenvalues(x):
    """Ascending real eigenvalues (..., n) of the Hermitian matrices ``x`` (..., n, n)."""
    if x._shape[-1] == 0 or x.size == 0:
        return new(x._shape[:-1], REAL_OF[x._dtype], x)
    a, shift = _shifted(x)
    sigma, _ = _svd(a, False)
    return subtract(flip(sigma, axis=-1), shift[..., 0])


def decomposition(x):
    """(eigenvalues (..., n) ascending, eigenvectors (..., n, n) as columns)."""
    n = x._shape[-1]
    if n == 0 or x.size == 0:
        return new(x._shape[:-1], REAL_OF[x._dtype], x), new(x._shape, x._dtype, x)
    a, shift = _shifted(x)
    sigma, v = _svd(a, True)
    return subtract(flip(sigma, axis=-1), shift[..., 0]), flip(v, axis=-1)
