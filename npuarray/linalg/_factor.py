"""Factorisations and the functions built on them: cholesky, qr, svd, svdvals,
inv, slogdet, det, solve, and the eigen-decompositions (nonsymmetric: host fallback).

Each runs on the current stream of its operand's device. Batched over the
leading dimensions. Device operators (hicann/ops-math, ops-nn): aclnnLinalgCholesky,
aclnnLinalgQr, aclnnSvd, aclnnInverse, aclnnSlogdet; their dtypes are those
CANN documents (see kernels/ops/linalg_lapack.c), other dtypes use the host
fallback of ``_host.py``.
"""
from collections import namedtuple

import numpy as np

from .._core import _ops
from .._core._creation import eye
from .._core._elementwise import (broadcast_shapes, conj, exp, imag, multiply, negative,
                                  promote, real)
from .._core._manipulation import concat, matrix_transpose
from ._common import (COMPLEX64, COMPLEX128, FLOAT32, FLOAT64, REAL_FLOATING, REAL_OF,
                      check_floating, check_matrices, new, raise_if_nan,
                      raise_if_not_factored)
from . import _cholesky, _cholesky64, _eigh, _lu, _refine
from ._host import on_host

__all__ = ["cholesky", "qr", "svd", "svdvals", "inv", "slogdet", "det", "solve", "eigh",
           "eigvalsh", "eig", "eigvals", "QRResult", "SVDResult", "SlogdetResult",
           "EighResult", "EigResult"]

QRResult = namedtuple("QRResult", ["Q", "R"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])

_QR_MODES = {"reduced": 0, "complete": 1}  # aclnnLinalgQr's mode (docs/acl-abi.md §7.2)


def _square(name, x):
    check_floating(name, x)
    check_matrices(name, x, square=True)


def cholesky(x, /, *, upper=False):
    """Cholesky factor of the Hermitian positive-definite matrices ``x`` (shape
    ``(..., M, M)``): lower ``L`` with ``x = L L^H``, or upper ``U`` with
    ``x = U^H U`` when ``upper`` (array API ``linalg.cholesky``,
    ``numpy.linalg.cholesky``). Same shape and dtype as ``x``.

    float32: aclnnLinalgCholesky on the current stream. float64: that float32
    factor refined by Newton steps with exact residuals from int8 products on the device
    (``_cholesky64.cholesky_float64``: backward error within ``n u max|x|``; condition
    numbers up to about 1e7; beyond, and for complex input, which
    aclnnLinalgCholesky does not take: QR of ``diag(sqrt(w)) V^H`` from ``eigh``,
    ``_cholesky``). Empty complex input: host fallback (nothing to move). Raises TypeError for
    non-floating input, LinAlgError (a ValueError) for non-square input or a
    matrix that is not positive definite (detected from the NaN the operator
    leaves, which reads one element per matrix back and so waits for the stream).
    """
    _square("cholesky", x)
    if x._dtype == FLOAT64 and x.size:
        return _cholesky64.cholesky_float64(x, upper)
    if x._dtype != FLOAT32 and x.size:
        return _cholesky.from_spectrum(x, upper)
    if x._dtype != FLOAT32:
        return on_host("linalg.cholesky", lambda a: _np_cholesky(a, upper), x)
    out = new(x._shape, x._dtype, x)
    if x.size:
        _ops.launch("aclnnLinalgCholesky", x, bool(upper), out)
        raise_if_not_factored(out, "Matrix is not positive definite")
    return out


def _np_cholesky(a, upper):
    lower = np.linalg.cholesky(a)
    return np.conj(np.swapaxes(lower, -1, -2)) if upper else lower


def qr(x, /, *, mode="reduced"):
    """QR decomposition of ``x`` (shape ``(..., M, N)``; array API ``linalg.qr``,
    ``numpy.linalg.qr``): ``QRResult(Q, R)`` with ``Q`` orthonormal columns
    ``(..., M, K)`` and ``R`` upper triangular ``(..., K, N)``, ``K = min(M, N)``
    for ``mode="reduced"``; ``K = M`` for ``"complete"``. Same dtype as ``x``.

    aclnnLinalgQr (float32, float64, complex64, complex128) on the current
    stream. Raises TypeError for non-floating input, ValueError for a bad mode
    or fewer than two dimensions.
    """
    check_floating("qr", x)
    check_matrices("qr", x)
    if mode not in _QR_MODES:
        raise ValueError(f"linalg.qr(): mode must be 'reduced' or 'complete', got {mode!r}")
    *batch, m, n = x._shape
    k = m if mode == "complete" else min(m, n)
    q = new((*batch, m, k), x._dtype, x)
    r = new((*batch, k, n), x._dtype, x)
    if x.size:
        _ops.launch("aclnnLinalgQr", x, _QR_MODES[mode], q, r)
    elif q.size:  # n == 0: Q is the identity's first k columns, R is empty
        _identity_columns(q)
    return QRResult(q, r)


def _identity_columns(q):
    _ops.copy_(q, eye(q._shape[-2], q._shape[-1], dtype=q._dtype, device=q.device))


def _svd_launch(x, full_matrices, compute_uv):
    *batch, m, n = x._shape
    k = min(m, n)
    s = new((*batch, k), x._dtype, x)
    if compute_uv:
        u = new((*batch, m, m if full_matrices else k), x._dtype, x)
        v = new((*batch, n, n if full_matrices else k), x._dtype, x)
    else:
        u = v = new((0,), x._dtype, x)
    _ops.launch("aclnnSvd", x, bool(full_matrices), bool(compute_uv), s, u, v)
    return u, s, v


def svd(x, /, full_matrices=True, compute_uv=True, hermitian=False):
    """Singular value decomposition ``x = U diag(S) Vh`` (array API
    ``linalg.svd``, ``numpy.linalg.svd``): ``SVDResult(U, S, Vh)`` with ``U``
    ``(..., M, M)`` and ``Vh`` ``(..., N, N)`` (``K = min(M, N)`` columns / rows
    when not ``full_matrices``), ``S`` ``(..., K)`` descending, real.

    aclnnSvd on the current stream (its ``v`` is V: ``Vh`` is its transposed
    view, conjugated with aclnnNeg for complex input, and complex ``sigma`` is
    made real with aclnnReal). Empty input: host fallback (nothing to move). Raises TypeError for non-floating input, LinAlgError for fewer
    than two dimensions or when the decomposition does not converge.
    """
    if not compute_uv:  # numpy.linalg.svd(compute_uv=False): the singular values alone
        return svdvals(x)
    check_floating("svd", x)
    check_matrices("svd", x)
    if not x.size:
        return SVDResult(*on_host("linalg.svd", lambda a: tuple(
            np.linalg.svd(a, full_matrices=full_matrices)), x))
    u, s, v = _svd_launch(x, full_matrices, True)
    if x._dtype.kind == "c":  # aclnnSvd's sigma has the input's dtype and v is V: Vh = V^H
        return SVDResult(u, real(s), conj(matrix_transpose(v)))
    return SVDResult(u, s, matrix_transpose(v))


def svdvals(x, /):
    """Singular values of ``x`` (shape ``(..., M, N)``) in descending order,
    shape ``(..., min(M, N))``, real dtype (array API ``linalg.svdvals``,
    ``numpy.linalg.svdvals``). aclnnSvd with computeUV false (and aclnnReal for
    complex input) on the current stream; empty input: host fallback. TypeError for
    non-floating input, LinAlgError below two dimensions."""
    check_floating("svdvals", x)
    check_matrices("svdvals", x)
    if not x.size:
        return on_host("linalg.svdvals", lambda a: np.linalg.svd(a, compute_uv=False), x)
    s = _svd_launch(x, False, False)[1]
    return real(s) if x._dtype.kind == "c" else s


def inv(x, /):
    """Inverse of the square matrices ``x`` (shape ``(..., M, M)``, same dtype;
    array API ``linalg.inv``, ``numpy.linalg.inv``). aclnnInverse on the current
    stream; complex input is inverted as the real block matrix
    ``[[Ar, -Ai], [Ai, Ar]]`` (aclnnInverse has no complex kernel). Raises TypeError for
    non-floating input, LinAlgError (a ValueError) for non-square or singular
    matrices (singularity is read back from the NaN the operator leaves, which
    waits for the stream)."""
    _square("inv", x)
    if x._dtype not in REAL_FLOATING:
        return _complex_inv(x)
    out = new(x._shape, x._dtype, x)
    if x.size:
        _ops.launch("aclnnInverse", x, out)
        raise_if_nan(out, "Singular matrix")
    return out


def _real_block(x):
    """The real (..., 2n, 2n) matrices [[Ar, -Ai], [Ai, Ar]] of complex A = Ar + i Ai: they
    act on [Re v; Im v] as A acts on v, so inverting or solving with them is A's."""
    *batch, n, _ = x._shape
    block = new((*batch, 2 * n, 2 * n), REAL_OF[x._dtype], x)
    ar, ai = real(x), imag(x)
    for rows, cols, part in ((slice(0, n), slice(0, n), ar), (slice(n, None), slice(n, None), ar),
                             (slice(n, None), slice(0, n), ai),
                             (slice(0, n), slice(n, None), negative(ai))):
        _ops.copy_(block[..., rows, cols], part)
    return block


def _from_parts(re, im, dtype):
    """A new complex array of ``dtype`` with real parts ``re`` and imaginary parts ``im``."""
    out = new(re._shape, dtype, re)
    parts = type(out)._from_buffer(out._buffer, out._shape + (2,),
                                   tuple(2 * s for s in out._strides) + (1,), 0, re._dtype)
    _ops.copy_(parts[..., 0], re)
    _ops.copy_(parts[..., 1], im)
    return out


def _complex_inv(x):
    """A^-1 = Xr + i Xi read from the inverse [[Xr, -Xi], [Xi, Xr]] of the real block
    matrix (aclnnInverse has no complex kernel)."""
    n = x._shape[-1]
    inverse = inv(_real_block(x))
    return _from_parts(inverse[..., :n, :n], inverse[..., n:, :n], x._dtype)


def slogdet(x, /):
    """Sign and natural log of the absolute determinant of the square matrices
    ``x`` (array API ``linalg.slogdet``, ``numpy.linalg.slogdet``):
    ``SlogdetResult(sign, logabsdet)``, each of shape ``x.shape[:-2]``; a singular
    matrix gives sign 0 and logabsdet -inf; ``sign`` has ``x``'s dtype (a unit
    complex number for complex input), ``logabsdet`` is real. aclnnSlogdet (and
    aclnnReal for complex input) on the current stream. TypeError for
    non-floating input, LinAlgError for non-square input."""
    _square("slogdet", x)
    batch = x._shape[:-2]
    sign, logabs = new(batch, x._dtype, x), new(batch, x._dtype, x)
    if x._shape[-1] == 0:  # the empty product: det = 1
        _ops.fill_(sign, 1.0)
        _ops.fill_(logabs, 0.0)
    elif sign.size:
        _ops.launch("aclnnSlogdet", x, sign, logabs)
    if x._dtype.kind == "c":  # aclnnSlogdet's logOut is complex for complex input
        logabs = real(logabs)
    return SlogdetResult(sign, logabs)


def det(x, /):
    """Determinant of the square matrices ``x``, shape ``x.shape[:-2]`` (array API
    ``linalg.det``, ``numpy.linalg.det``): ``sign * exp(logabsdet)`` of
    aclnnSlogdet (there is no aclnnDet), aclnnExp and aclnnMul on the current
    stream. TypeError for non-floating input, LinAlgError for non-square input."""
    _square("det", x)
    sign, logabs = slogdet(x)
    return multiply(sign, exp(logabs))


def solve(x1, x2, /):
    """Solution ``x`` of ``x1 @ x = x2`` for square ``x1`` ``(..., M, M)`` (array API
    ``linalg.solve``, ``numpy.linalg.solve`` of NumPy 2): ``x2`` of shape ``(M,)``
    is a vector, otherwise ``(..., M, K)`` matrices; batch dimensions broadcast.
    Result dtype: the promoted floating dtype.

    float32: CANN's ops-blas LU, aclblasSgetrfBatched and aclblasSgetrsBatched, on
    the current stream (reading the factorisation's info back waits for it);
    complex64: the same LU on the real block system ``[[Ar, -Ai], [Ai, Ar]]``.
    float64 and complex128 (the real block system): that float32 LU refined with
    float64 residuals on the device as LAPACK's dsgesv does, float64 aclnnInverse
    with the same refinement where float32 cannot factor or converge
    (``_refine.solve_float64``). Host fallback only when ops-blas is missing. Raises TypeError for non-floating input, LinAlgError for
    non-square or singular ``x1``, ValueError for shapes that do not match.
    """
    _square("solve", x1)
    check_floating("solve", x2)
    dtype = promote(x1._dtype, x2._dtype)
    m = x1._shape[-1]
    vector = x2.ndim == 1
    rows = x2._shape[0] if vector else (x2._shape[-2] if x2.ndim >= 2 else None)
    if rows != m:
        raise ValueError(f"linalg.solve(): x2 of shape {x2.shape} does not match x1 of "
                         f"shape {x1.shape}")
    try:
        broadcast_shapes(x1._shape[:-2], () if vector else x2._shape[:-2])
    except ValueError:
        raise ValueError(f"linalg.solve(): batch dimensions of {x1.shape} and {x2.shape} do "
                         f"not broadcast") from None
    if dtype == FLOAT32 and _lu.available():
        return _lu.solve_float32(x1, x2, vector)
    if dtype == COMPLEX64 and _lu.available():
        return _complex_solve(x1, x2, vector, dtype, _lu.solve_float32)
    if dtype == FLOAT64 and _lu.available():
        return _refine.solve_float64(x1, x2, vector, inv)
    if dtype == COMPLEX128 and _lu.available():
        return _complex_solve(x1, x2, vector, dtype,
                              lambda a, b, v: _refine.solve_float64(a, b, v, inv))
    return on_host("linalg.solve", lambda a, b: _np_solve(a, b, dtype), x1, x2)


def _complex_solve(a, b, vector, dtype, real_solve):
    """complex ``solve`` as the real system [[Ar, -Ai], [Ai, Ar]] [xr; xi] = [br; bi]
    of ``real_solve`` (the ops-blas LU for complex64, its refinement for complex128)."""
    n = a._shape[-1]
    a = a if a._dtype == dtype else _ops.cast(a, dtype)
    b = b if b._dtype == dtype else _ops.cast(b, dtype)
    rhs = concat([real(b), imag(b)], axis=-1 if vector else -2)
    x = real_solve(_real_block(a), rhs, vector)
    return _from_parts(x[..., :n], x[..., n:], dtype) if vector else \
        _from_parts(x[..., :n, :], x[..., n:, :], dtype)


def _np_solve(a, b, dtype):
    a, b = a.astype(dtype), b.astype(dtype)
    if b.ndim == 1:
        return np.linalg.solve(a, b[:, None])[..., 0]
    return np.linalg.solve(a, b)


def _lower(x, uplo):
    """``x`` with the triangle NumPy's ``UPLO`` names moved to the lower one (the upper
    triangle of ``x`` is the lower one of its conjugate transpose): a view, or a
    conjugate on the device. ValueError for another ``UPLO``."""
    if uplo not in ("L", "U"):
        raise ValueError(f"UPLO argument must be 'L' or 'U', got {uplo!r}")
    if uplo == "L":
        return x
    upper = matrix_transpose(x)
    return conj(upper) if upper.dtype.kind == "c" else upper


def eigh(x, /, UPLO="L"):  # noqa: N803  NumPy's name
    """Eigenvalues (ascending, real) and orthonormal eigenvectors of the
    Hermitian matrices ``x`` (array API ``linalg.eigh``, ``numpy.linalg.eigh``):
    ``EighResult(eigenvalues (..., M), eigenvectors (..., M, M))``, eigenvalues
    in the real dtype of ``x``, eigenvectors in its dtype; only the lower
    triangle of ``x`` is read, as NumPy's default. On the device, on the current
    stream, every floating dtype: aclnnSvd of ``x`` shifted to positive definite
    (``_eigh``: CANN has no eigensolver; accuracy as LAPACK's ``syevd``/``heevd``).
    TypeError for non-floating input, LinAlgError for non-square input."""
    _square("eigh", x)
    return EighResult(*_eigh.decomposition(_lower(x, UPLO)))


def eigvalsh(x, /, UPLO="L"):  # noqa: N803  NumPy's name
    """Eigenvalues of the Hermitian matrices ``x``, ascending, real, shape
    ``(..., M)`` (array API ``linalg.eigvalsh``, ``numpy.linalg.eigvalsh``). On
    the device as ``eigh`` (aclnnSvd without vectors)."""
    _square("eigvalsh", x)
    return _eigh.eigenvalues(_lower(x, UPLO))


def eig(x, /):
    """Eigenvalues and right eigenvectors of the square matrices ``x``, complex
    (array API 2025.12 ``linalg.eig``, ``numpy.linalg.eig``; complex64 for
    float32 and complex64 input, else complex128): ``EigResult``. Host fallback
    (downloads on the current stream, LAPACK ``geev``, uploads on it;
    ImplicitTransferError under ``transfer_guard("disallow")``): CANN has no
    eigensolver, and a nonsymmetric one (Hessenberg reduction and shifted QR
    sweeps, deflating one eigenvalue at a time) is a long chain of small
    dependent steps that matrix products and CANN's factorisations do not
    express: unlike ``eigh`` there is no decomposition CANN has that it reduces to."""
    _square("eig", x)
    dtype = COMPLEX64 if x._dtype in (FLOAT32, COMPLEX64) else np.dtype(np.complex128)
    return EigResult(*on_host("linalg.eig", lambda a: tuple(
        r.astype(dtype) for r in np.linalg.eig(a)), x))


def eigvals(x, /):
    """Eigenvalues of the square matrices ``x``, complex, shape ``(..., M)``
    (array API 2025.12 ``linalg.eigvals``). Host fallback as ``eig``, for the
    same reason."""
    _square("eigvals", x)
    dtype = COMPLEX64 if x._dtype in (FLOAT32, COMPLEX64) else np.dtype(np.complex128)
    return on_host("linalg.eigvals", lambda a: np.linalg.eigvals(a).astype(dtype), x)

