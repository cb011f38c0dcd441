"""float64 ``cholesky`` on the device: CANN's single-precision factor refined to double
precision by Newton steps whose residuals are computed exactly on the integer matrix unit.

CANN's Cholesky (aclnnLinalgCholesky, hicann/ops-math
math/cholesky/docs/aclnnLinalgCholesky.md) is float32 only. As cuSOLVER's
iterative-refinement solvers and HPL-AI do, the float32 factor is the starting point and
float64 accuracy comes from residuals computed exactly from int8 products
(aclnnQuantMatmulV5, ``_exact_products``):

* scale ``a`` by powers of two to a diagonal in [1/64, 1/4) (exact), factor it in
  float32 and cut the factor into four 8-bit digits (the grid ``2**-32``: exact for
  entries above ``2**-8``), ``L0``, whose ``L0 L0^T`` is exact in int32 (16 products of
  digits in 7 int8 launches, one per level), giving ``R = a - L0 L0^T`` with one float64
  rounding per level;
* a Newton step in float32: ``D = L0 Z`` with ``Z + Z^T + Z Z^T = L0^-1 R L0^-T``
  (``L0^-1`` from ``_triangular``; ``Z`` to first order, or to second order when a
  relative pivot of the float32 factor, ``L_ii**2 / a_ii``, is below 1/100, a sign of a
  condition number where the first order would take a step more; three or four float32
  products), ``D`` cut into three digits per row and ``R -= H + H^T`` with
  ``H^T = D L0^T + D (E + D/2)^T``
  (``E``: the earlier steps), ``D L0^T`` exact again for the top three digits of ``L0``
  (9 products of digits, 5 int8 launches, with the transposed digits of ``L0`` its square
  used) and the rest, below ``2**-24`` of it, in float32 (one product), so that ``R``
  stays the residual of ``L0 + E + D`` to float64's accuracy;
* steps go on until LAPACK's backward error holds for each matrix of the input ``x``
  itself, ``max|x - L L^T| <= n u max|x|`` (the residual unscaled; less the result's own
  roundings); one step for well-conditioned matrices (the residual it leaves is set by
  the step's float32 precision: at 512 rows, 0.5 to 0.9 of the bound), whose call then
  costs 12 int8 launches (25 ``n**3`` multiply-adds), four float32 products and the
  triangular inverse, about 20 float64 element-wise passes and two read-backs (the float32
  factor's success with its smallest relative pivot, then the test); the result is assembled
  from the int32 words of ``L0`` and the steps (exact but for one rounding per step).
  Where float32 cannot factor ``a`` or the steps stall (condition numbers beyond about
  1e7), the factor comes from the spectral decomposition instead (``_cholesky``), which
  also tells a matrix that is not positive definite.

During a graph capture nothing can be read back: a fixed number of second-order steps runs.

Cost: a well-conditioned 512 x 512 call is about 130 launches, 12 to 14 ms of device
time on npusim's 2 CPU threads when they are idle (LAPACK: 3.5 ms): a first-order step's
four float32 products (4 ms, on OpenBLAS's threads, whose busy-waiting makes them the
slowest part as soon as other processes share the cores), the int8 products (about 3 ms),
some 30 float64 and int element-wise passes of 0.05 to 0.5 ms (3 to 4 ms), the float32
factor (0.9 ms) and the triangular inverse (0.6 ms); the launches' host side and the gaps
between them add 2 to 5 ms. On an Ascend NPU the cube unit's int8 rate is tens of times
its float64 vector rate and several times its float32 one: the products become tens of
microseconds and the call is bound by its launches, the element-wise passes and the
float32 factorisation (an estimate: 2 to 3 ms at 512 x 512, against LAPACK's 3.5 ms on
one host).
"""
import numpy as np

from .._core import _ops
from .._core import _ozaki
from .._core._creation import arange
from .._core._elementwise import abs as _abs, add, clip, divide, maximum, multiply, negative, sqrt, square, subtract
from .._core._linear_algebra import matmul
from .._core._manipulation import expand_dims, matrix_transpose, stack
from .._core._statistical import max as _max, min as _min
from ._common import FLOAT32, FLOAT64, checks_allowed
from . import _cholesky, _exact_products, _triangular

__all__ = []

MAX_STEPS = 12          # Newton steps before giving up on the float32 factor
CAPTURE_STEPS = 3       # fixed number of steps when nothing can be read back
_U = 2.0 ** -53
_MARGIN = 1.01          # keeps the scaled factor below _exact_products.limit
LEAD_DIGITS = 4         # the float32 factor on the grid 2**-32: exact where its entries exceed 2**-8
STEP_DIGITS = 3         # each step: 22 to 24 bits of its rows' largest entries
_TINY = 2.0 ** -100     # rows of a step below this are scaled as if this large
SECOND_ORDER_SPREAD = 100   # second-order steps when a relative pivot L_ii**2 / a_ii is below 1/this


def cholesky_float64(x, upper):
    """Cholesky factor of float64 symmetric positive-definite ``x`` (..., n, n): lower
    (or upper when ``upper``); LinAlgError when not positive definite."""
    stream = _ops.current_stream(x._buffer.device)
    diagonal = expand_dims(_diagonal(x), -1)
    scale, _ = _ozaki.power_of_two_scale(multiply(sqrt(_abs(diagonal)), _MARGIN))
    scale = multiply(scale, 0.5)   # sqrt(a_ii) in [1/8, 1/2) / _MARGIN: |L0| below the digits' limit
    a = multiply(multiply(x, scale), matrix_transpose(scale))
    first = _ops.empty(a._shape, FLOAT32, a._buffer.device, stream)
    _ops.launch("aclnnLinalgCholesky", _ops.cast(a, FLOAT32, stream=stream), False, first, stream=stream)
    failed, spread = _first_factor_state(a, first)
    if failed:   # beyond float32 (or not PD)
        return _cholesky.from_spectrum(x, upper)
    largest = _max(diagonal, axis=(-2, -1), keepdims=True)   # each matrix's max|x| (positive definite)
    parts = _refined(a, first, scale, multiply(matrix_transpose(scale), largest), spread > SECOND_ORDER_SPREAD,
                     stream)
    if parts is None:   # too ill-conditioned to refine
        return _cholesky.from_spectrum(x, upper)
    return _assembled(*parts, scale, upper, stream)


def _first_factor_state(a, first):
    """(whether the float32 factor failed, the largest ``a_ii / L_ii**2`` of its matrices:
    the inverse of the smallest relative pivot, at most the condition number of ``a``
    whatever its diagonal's scaling) from one read-back of each matrix's last diagonal
    element (NaN: npusim's aclnnLinalgCholesky fills a matrix it cannot factorise with NaN,
    which reaches that element, as ``_common.cholesky_failed`` reads it) and of that
    ratio. During a graph capture nothing is read: (False, inf)."""
    if not checks_allowed(first):
        return False, np.inf
    pivots = _diagonal(first)
    spread = _max(divide(_diagonal(a), square(pivots)), axis=-1)
    last, spread = stack([_ops.cast(pivots[..., -1], FLOAT64), spread]).to_host()
    return bool(np.isnan(last).any()), float(np.max(spread))


def _diagonal(x):
    """The diagonal of ``x`` (..., n, n) as a view (..., n)."""
    return x._view(x._shape[:-1], x._strides[:-2] + (x._strides[-2] + x._strides[-1],), x._offset)


def _refined(a, first, rows, columns, second_order, stream):
    """The float64 factor of ``a = rows x rows^T`` (``rows`` (..., n, 1): powers of two)
    from its float32 factor ``first``, or None when the steps stall (a residual not at
    most half the previous one, or not finite). The steps stop at LAPACK's backward error
    of each matrix of ``x`` itself, ``max|x - L L^T| <= n u max|x|``: the residual
    unscaled and over ``max|x|`` (divided by ``rows`` and by ``columns = rows^T max|x|``,
    (..., 1, n): two broadcast divisions) against ``n u`` less ``2 k u`` for the one
    rounding of each of the ``k`` steps' sums in the result (``_assembled``). The scaled
    residual against the scaled ``max|a|`` would not do: with ``a``'s diagonal anywhere in
    [1/64, 1/4), it passes residuals of ``x`` up to 16 times the bound.
    ``second_order``: the steps' ``Z`` to second order (see ``_newton_step``)."""
    n = a._shape[-1]
    unit = _ops.fill_(_ops.empty((1,), FLOAT32, a._buffer.device, stream), 1.0, stream=stream)
    lead = _exact_products.FixedPoint(first, None, LEAD_DIGITS, stream)
    residual = _residual(a, lead, unit, stream)
    low = lead.last_digit()   # L0 less its top 3 digits: its products with a step in float32
    inverse = _triangular.inverse(first, stream)
    mask = _phi_mask(n, a.device)
    checks = checks_allowed(a)
    previous, earlier, steps = None, None, []
    for _ in range(MAX_STEPS if checks else CAPTURE_STEPS):
        step = _newton_step(residual, inverse, first, mask, second_order, stream)
        digits = _step_digits(step, stream)
        residual = _updated(residual, lead, low, digits, step, earlier, unit, stream)
        steps.append(digits)
        earlier = step if earlier is None else add(earlier, step)
        if not checks:
            continue
        size = float(_largest(divide(divide(residual, rows), columns)).to_host())
        if size <= max(n - 2 * len(steps), 1) * _U:
            break
        if not np.isfinite(size) or (previous is not None and size > 0.5 * previous):
            return None
        previous = size
    else:
        if checks:
            return None
    return lead, steps


def _assembled(lead, steps, scale, upper, stream):
    """``(L0 + D_1 + ..) / scale`` (float64, exact but for the last rounding of each sum)
    from the int32 words of the factor and of the steps: each part one aclnnMul of its
    words by the powers of two of its rows (over ``scale``), added by aclnnInplaceAdd.
    ``upper``: the transpose, written C-contiguous by reading the words transposed (int32
    reads, cheaper than a float64 transpose)."""
    def oriented(x):
        return matrix_transpose(x) if upper else x
    lower = multiply(oriented(lead.whole), oriented(divide(2.0 ** (-8 * lead.s), scale)))
    one = _ops.acl_scalar(1.0, FLOAT64)
    for digits in steps:
        rows = divide(2.0 ** (-8 * digits.s), multiply(_ops.cast(digits.scale, FLOAT64, stream=stream), scale))
        _ops.launch("aclnnInplaceAdd", lower, multiply(oriented(digits.whole), oriented(rows)), one, stream=stream)
    return lower


def _largest(x):
    """max|x| (0-d) from aclnnAmax and aclnnAmin: no |x| temporary."""
    return maximum(_max(x), negative(_min(x)))


def _residual(a, lead, unit, stream):
    """``a - L0 L0^T`` (float64) from the levels of the exact square, the largest first:
    subtracted from ``a`` in one rounding, then the smaller ones (each rounding at most
    ``u`` of the small remainder). The whole square, not half of it and its transpose:
    on npusim a pass over a transposed float64 matrix costs more than the int8 products
    saved."""
    residual = None
    for weight, level in _exact_products.levels(lead, lead, unit, stream):
        weight = _ops.acl_scalar(weight, FLOAT64)
        if residual is None:
            residual = _ops.empty(level._shape, FLOAT64, level._buffer.device, stream)
            _ops.launch("aclnnSub", a, level, weight, residual, stream=stream)
        else:
            _ops.launch("aclnnInplaceSub", residual, level, weight, stream=stream)
    return residual


def _updated(residual, lead, low, digits, step, earlier, unit, stream):
    """``R - H - H^T`` with ``H^T = D L0^T + D (E + D/2)^T`` (``D``: ``digits``, the step
    truncated; ``E``: ``earlier``, float32 or None): ``D (L0 - low)^T`` exact from the
    levels of ``D``'s digits times the top 3 digits of ``L0`` (smallest first; ``L0``'s
    transposed planes are those its square used, so ``D`` needs no transposed planes), the
    rest (``low``: ``L0``'s last digit; all below ``2**-24`` of ``D L0^T``) in one float32
    product with the untruncated ``step`` (the differences are below ``u`` of ``R``)."""
    half = _plus(low if earlier is None else add(low, earlier), step, 0.5, stream)
    small = matmul(step, matrix_transpose(half))
    total = None
    for weight, level in reversed(list(_exact_products.levels(digits, lead, unit, stream, top=LEAD_DIGITS - 1))):
        if total is None:
            total = _ops.empty(level._shape, FLOAT64, level._buffer.device, stream)
            _ops.launch("aclnnMuls", level, _ops.acl_scalar(weight, FLOAT64), total, stream=stream)
        else:
            _ops.launch("aclnnInplaceAdd", total, level, _ops.acl_scalar(weight, FLOAT64), stream=stream)
    _ops.launch("aclnnInplaceDiv", total, digits.scale, stream=stream)
    _ops.launch("aclnnInplaceAdd", total, small, _ops.acl_scalar(1.0, FLOAT64), stream=stream)
    return subtract(subtract(residual, total), matrix_transpose(total))


def _plus(x, y, alpha, stream):
    """``x + alpha y`` (float32, a new array): one aclnnAdd with its alpha."""
    out = _ops.empty(x._shape, FLOAT32, x._buffer.device, stream)
    _ops.launch("aclnnAdd", x, y, _ops.acl_scalar(alpha, FLOAT32), out, stream=stream)
    return out


def _newton_step(residual, inverse, lower, mask, second_order, stream):
    """The step ``D = L0 Z`` (float32): ``Z`` lower triangular with
    ``Z + Z^T + Z Z^T = Y = L0^-1 R L0^-T``, in float32 (the step is small: its float32
    error is below float64's), to first order, ``Z = Phi(Y)``, or to second order,
    ``Z = Phi(Y - Phi(Y) Phi(Y)^T)``, ``Phi`` keeping the strict lower triangle and half
    the diagonal (a product with ``mask``); ``W = L0^-1``. The second-order term, one more
    float32 product, is about ``|Y|`` times the first: for a well-conditioned matrix the
    residual a step leaves is set by the step's float32 precision either way (at 512 rows,
    0.5 to 0.9 of the bound after one step, first or second order), while for condition
    numbers from about 1e5 the first order takes one step more. Whole products, though half
    the multiply-adds are zeros of the triangles: the half- and quarter-size products of a
    2 x 2 blocking took 2 to 3 times as long per multiply-add as a whole 512 x 512 product
    on npusim when products under ``2**27`` multiply-adds ran as row slivers, more in total
    than the zeros they skip; kernels/ops/matmul.c now cuts such products into tiles of 64
    columns, so the blocking may pay there now (not measured yet)."""
    r32 = _ops.cast(residual, FLOAT32, stream=stream)
    y = matmul(matmul(inverse, r32), matrix_transpose(inverse))
    z = multiply(y, mask)
    if second_order:
        z = multiply(subtract(y, matmul(z, matrix_transpose(z))), mask)
    return matmul(lower, z)


def _step_digits(step, stream):
    """``step`` as a ``FixedPoint``, its rows scaled by powers of two to below the digits'
    limit (as if at least ``_TINY``: a scale float32 holds)."""
    largest = maximum(_max(_abs(step), axis=-1, keepdims=True), _TINY)
    rows, _ = _ozaki.power_of_two_scale(multiply(largest, _MARGIN))
    return _exact_products.FixedPoint(step, multiply(rows, 0.5), STEP_DIGITS, stream)


def _phi_mask(n, device):
    """(n, n) float32: 1 below the diagonal, 1/2 on it, 0 above (``clip(i - j + 1/2, 0, 1)``)."""
    i = arange(n, dtype=FLOAT32, device=device)
    return clip(subtract(expand_dims(add(i, 0.5), -1), i), 0.0, 1.0)
