"""float64 ``solve`` and ``cholesky`` on the device: CANN's single-precision
factorisations refined to double precision with residuals computed exactly (or to
float64's accuracy) on the integer matrix unit.

CANN's LU (aclblasSgetrfBatched / SgetrsBatched, hicann/ops-blas) and Cholesky
(aclnnLinalgCholesky, hicann/ops-math math/cholesky/docs/aclnnLinalgCholesky.md) are
float32 only. As cuSOLVER's iterative-refinement solvers and HPL-AI do, the float32
factors are used as preconditioners and the answer is corrected with residuals
computed on the device from int8 products (aclnnQuantMatmulV5):

* ``solve``: equilibrate ``a`` by powers of two (rows, then columns: exact), factor
  it in float32, split it once into int8 digits (``prepare_matmul``, the Ozaki scheme
  of ``npuarray/_core/_ozaki.py``: every product within dgemm's error bound), then
  ``x += solve32(b - a x)`` with one prepared product per residual, until the
  residual meets LAPACK dsgesv's test ``max|b - a x| <= sqrt(n) u ||a||_inf max|x|``
  (at most ``MAX_STEPS``). When float32 cannot factor it or the iteration does not
  converge (condition numbers beyond about 1e7), float64 aclnnInverse (hicann/ops-nn
  index/matrix_inverse/docs/aclnnInverse.md) takes over, with the same refinement. A
  matrix holding a NaN or infinity gets NaN solutions.
* ``cholesky``: the same idea with exact residuals of the float32 factor, in
  ``_cholesky64``.

Each step reads one number back to decide whether to go on (which waits for the
stream), and each int8 product two more (the number of digits it needs); during a
graph capture a fixed number of steps runs instead, with the residuals as
``matmul``'s composed float64 product.
"""
import numpy as np

from .._core import _ops
from .._core import _ozaki
from .._core._creation import eye
from .._core._elementwise import abs as _abs, add, broadcast_shapes, divide, isfinite, multiply, subtract, where
from .._core._linear_algebra import matmul, prepare_matmul
from .._core._manipulation import expand_dims, matrix_transpose, stack
from .._core._statistical import max as _max, sum as _sum
from .._core._utility import all as _all
from ._common import FLOAT64, LinAlgError, checks_allowed
from . import _lu

__all__ = []

MAX_STEPS = 12          # corrections before giving up on a preconditioner
CAPTURE_STEPS = 4       # fixed number of steps when the result cannot be read back
_U = 2.0 ** -53


def _refined(prepared, norm, b, solve):
    """x with a x = b from an approximate solver ``solve`` (float64 in and out), as
    LAPACK's dsgesv refines: corrections until the residual satisfies
    ``max|b - a x| <= sqrt(n) u ||a||_inf max|x|``; (x, whether it did). The residuals
    are products with ``prepared`` (``prepare_matmul(a)``: ``a`` split into int8
    digits once), which tell whether they are within dgemm's bound with the one
    number read back per step (a residual that is not is made again by ``matmul``);
    ``norm`` is ``||a||_inf`` (0-d). Gives up when a residual is not at most half the
    previous one (or not finite)."""
    x = solve(b)
    if not checks_allowed(b):
        for _ in range(CAPTURE_STEPS):
            x = add(x, solve(subtract(b, prepared.matmul(x))))
        return x, True
    target = np.sqrt(prepared.a.shape[-1]) * _U
    previous = None
    for _ in range(MAX_STEPS):
        product, within = prepared.matmul_unverified(x)
        residual = subtract(b, product)
        checked = [_max(_abs(residual)), _max(_abs(x)), norm] + ([] if within is None else [within])
        size, x_size, a_norm, *ok = (float(v) for v in stack(checked).to_host())
        if ok and not ok[0]:   # a residual beyond one word of digits: made again with as many as it needs
            residual = subtract(b, prepared.matmul(x))
            size = float(_max(_abs(residual)).to_host())
        if size <= target * a_norm * x_size:
            return x, True
        if not np.isfinite(size) or (previous is not None and size > 0.5 * previous):
            return x, False
        previous = size
        x = add(x, solve(residual))
    return x, False


def _float32_solver(factors):
    """float64 solves through float32 LU factors: the right-hand side scaled by a
    power of two per column so that float32 neither overflows nor underflows."""
    def solve(rhs):
        scale, _ = _ozaki.power_of_two_scale(_ozaki.largest_magnitude(rhs, -2))
        return divide(_ops.cast(factors.solve(multiply(rhs, scale)), FLOAT64), scale)
    return solve


def solve_float64(a, b, vector, inverse):
    """``solve`` for float64 ``a`` (..., n, n) and ``b`` ((n,) when ``vector``, else
    (..., n, k)); ``inverse`` is ``linalg.inv``. LinAlgError when a finite ``a`` is
    singular; the solutions for a matrix holding a NaN or infinity are NaN (LAPACK's
    propagate them)."""
    stream = _ops.current_stream(a._buffer.device)
    rhs = expand_dims(b, axis=-1) if vector else b
    a = a if a._dtype == FLOAT64 else _ops.cast(a, FLOAT64, stream=stream)
    rhs = rhs if rhs._dtype == FLOAT64 else _ops.cast(rhs, FLOAT64, stream=stream)
    batch = broadcast_shapes(a._shape[:-2], rhs._shape[:-2])
    n, k = a._shape[-1], rhs._shape[-1]
    if not all(batch) or n == 0 or k == 0:
        out = _ops.empty(batch + (n, k), FLOAT64, a._buffer.device, stream)
        return out[..., 0] if vector else out
    try:
        x = _solve_finite(a, rhs, batch, inverse, stream)
    except LinAlgError:
        finite = isfinite(_sum(_abs(a), axis=(-2, -1), keepdims=True))   # (..., 1, 1)
        if not checks_allowed(a) or bool(_all(finite).to_host()):
            raise
        clean = where(finite, a, eye(n, dtype=FLOAT64, device=a.device))
        x = where(finite, _solve_finite(clean, rhs, batch, inverse, stream), float("nan"))
    return x[..., 0] if vector else x


def _solve_finite(a, rhs, batch, inverse, stream):
    """(..., n, k) solutions: ``a`` equilibrated by powers of two, then refined."""
    rows, _ = _ozaki.power_of_two_scale(_ozaki.largest_magnitude(a, -1))
    scaled = multiply(a, rows)
    columns, _ = _ozaki.power_of_two_scale(_ozaki.largest_magnitude(scaled, -2))
    scaled = multiply(scaled, columns)
    rhs = multiply(rhs, rows)
    # not read back: a matrix singular in float32 gives non-finite corrections, which
    # stop the refinement (float64 may still solve it)
    factors = _lu.Factors(scaled, batch, stream, check=False)
    # the column scales (at least 1) keep every row's largest in [1/4, 1): no row scales
    prepared, norm = prepare_matmul(scaled, unit_rows=True), _max(_sum(_abs(scaled), axis=-1))
    x, converged = _refined(prepared, norm, rhs, _float32_solver(factors))
    if not converged:
        inv_a = inverse(scaled)   # LinAlgError when singular in float64 too
        x, _ = _refined(prepared, norm, rhs, lambda r: matmul(inv_a, r))
    return multiply(x, matrix_transpose(columns))

