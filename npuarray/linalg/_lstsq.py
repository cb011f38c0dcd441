"""``lstsq`` on the device from CANN's singular value decomposition (aclnnSvd,
hicann/ops-math math/svd/docs/aclnnSvd.md) and matrix products, as LAPACK's ``gelsd``
(which NumPy calls) solves it: the minimum-norm solution with singular values at
most ``rcond * max(s)`` treated as zero."""
import numpy as np

from .._core._elementwise import promote, abs as _abs, conj, divide, greater, multiply, subtract, where
from .._core._linear_algebra import matmul
from .._core._manipulation import expand_dims, matrix_transpose
from .._core._statistical import max as _max, sum as _sum
from ._common import LinAlgError, REAL_OF, check_floating, new
from ._factor import svd

__all__ = ["lstsq"]


def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b`` (``numpy.linalg.lstsq``): ``a`` (M, N),
    ``b`` (M,) or (M, K). Returns ``(x, residuals, rank, s)``: ``x`` (N,) or (N, K)
    in the promoted floating dtype, the minimum-norm solution; ``residuals`` the sums
    of squared residuals per column ((1,) for 1-D ``b``; empty when ``rank < N`` or
    ``M <= N``), real; ``rank`` a Python int (read back, which waits for the current
    stream); ``s`` the singular values of ``a``, descending, real. ``rcond`` (default
    ``eps * max(M, N)``) cuts singular values at ``rcond * max(s)``.

    On the device, on the current stream: aclnnSvd (``svd``), products (float64 on
    the integer matrix unit) and element-wise operators; no host fallback. Raises
    TypeError for non-floating input, LinAlgError unless ``a`` is 2-D and ``b``
    1-D or 2-D with ``b.shape[0] == M``."""
    check_floating("lstsq", a)
    check_floating("lstsq", b)
    if a.ndim != 2 or b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise LinAlgError(f"linalg.lstsq(): a must be 2-D and b 1-D or 2-D with as many rows "
                          f"(got shapes {a.shape} and {b.shape})")
    dtype = promote(a._dtype, b._dtype)
    a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
    m, n = a.shape
    rhs = expand_dims(b, -1) if b.ndim == 1 else b
    k = rhs.shape[-1]
    real = REAL_OF[dtype]
    if min(m, n) == 0:
        x = new((n, k), dtype, a)
        x[...] = 0
        s = new((0,), real, a)
        residuals = _sum(multiply(_abs(rhs), _abs(rhs)), axis=0) if n == 0 and m else new((0,), real, a)
        return (x[:, 0] if b.ndim == 1 else x), residuals, 0, s
    u, s, vh = svd(a, full_matrices=False)
    if rcond is None:
        rcond = np.finfo(real).eps * max(m, n)
    keep = greater(s, multiply(_max(s), float(rcond)))
    inverse = where(keep, divide(1.0, where(keep, s, 1.0)), 0.0)
    x = matmul(conj(matrix_transpose(vh)),
               multiply(expand_dims(inverse, -1), matmul(conj(matrix_transpose(u)), rhs)))
    rank = int(_sum(keep).to_host())
    if rank == n and m > n:
        r = subtract(rhs, matmul(a, x))
        residuals = _sum(multiply(_abs(r), _abs(r)), axis=0)
    else:
        residuals = new((0,), real, a)
    return (x[:, 0] if b.ndim == 1 else x), residuals, rank, s
