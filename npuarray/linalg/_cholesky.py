"""Cholesky factors from the device's spectral decomposition, for what CANN's
aclnnLinalgCholesky (FLOAT, BFLOAT16: hicann/ops-math math/cholesky/docs/aclnnLinalgCholesky.md)
and its float64 refinement (``_cholesky64``) do not cover: complex matrices, and float64
ones too ill-conditioned for a float32 factor to start from.

With ``a = V diag(w) V^H`` (``_eigh``, aclnnSvd) and every ``w > 0``, ``B = diag(sqrt(w)) V^H``
has ``B^H B = a``; its QR decomposition ``B = Q R`` (aclnnLinalgQr) gives ``a = R^H R``, and
``R`` with its rows' phases taken out (a positive real diagonal) is the upper Cholesky
factor. The backward error is that of the decomposition, a small multiple of
``n u ||a||``, as LAPACK's ``potrf``. A non-positive eigenvalue means ``a`` is not
positive definite: LinAlgError (read back, which waits for the stream; not checked
during a graph capture).
"""
from .._core import _ops
from .._core._creation import eye
from .._core._elementwise import abs as _abs, conj, divide, less_equal, multiply, sqrt
from .._core._manipulation import expand_dims, matrix_transpose
from .._core._statistical import sum as _sum
from .._core._utility import any as _any
from ._common import LinAlgError, checks_allowed, new
from . import _eigh

__all__ = []


def from_spectrum(x, upper):
    """Cholesky factor of the Hermitian positive-definite ``x`` (..., n, n), lower (or
    upper when ``upper``), in ``x``'s dtype."""
    w, v = _eigh.decomposition(x)
    if checks_allowed(w) and _any(less_equal(w, 0)).to_host():
        raise LinAlgError("Matrix is not positive definite")
    b = multiply(expand_dims(sqrt(w), -1), conj(matrix_transpose(v)))
    q, r = new(b._shape, b._dtype, b), new(b._shape, b._dtype, b)
    _ops.launch("aclnnLinalgQr", b, 0, q, r)
    identity = eye(x._shape[-1], dtype=x._dtype, device=x.device)
    diagonal = _sum(multiply(r, identity), axis=-1, keepdims=True)      # (..., n, 1)
    phase = divide(diagonal, _abs(diagonal))
    r = multiply(r, conj(phase))   # rows times conj(phase): R^H R unchanged, diagonal |r_ii|
    return _ops.copy(r) if upper else _ops.copy(conj(matrix_transpose(r)))
