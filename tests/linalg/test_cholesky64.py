"""float64 ``linalg.cholesky`` refined on the device (npuarray/linalg/_cholesky64.py): the
number of int8 products and read-backs a well-conditioned matrix costs, diagonals at the
edges of the power-of-two scaling against exact rational references (``fractions``), steps
with tiny rows, and factors against NumPy (LAPACK) for scaled, batched, non-contiguous,
ill-conditioned (several steps), upper, not positive definite and NaN inputs, also at 256
rows (four 64-row blocks in the triangular inverse), with nothing moved to the host
(transfer_guard "disallow")."""
from fractions import Fraction

import numpy as np
import pytest

import npuarray as npx

RNG = np.random.default_rng(2124)
U = 2.0 ** -53


def _cholesky(a, **kwargs):
    with npx.transfer_guard("disallow"):
        return npx.linalg.cholesky(npx.asarray(a), **kwargs).to_host()


def _exact_backward_error(a, lower):
    """max |a - L L^T| in exact rational arithmetic."""
    n = len(a)
    rows = [[Fraction(float(v)) for v in row] for row in lower]
    return max(abs(Fraction(float(a[i, j])) - sum(x * y for x, y in zip(rows[i], rows[j])))
               for i in range(n) for j in range(n))


def test_a_well_conditioned_matrix_takes_one_step():
    n = 512   # the benchmark's matrix: condition number about 5
    g = RNG.standard_normal((n, n))
    a = g @ g.T + n * np.eye(n)
    x = npx.asarray(a)
    with npx.profile() as prof:
        lower = npx.linalg.cholesky(x).to_host()
    names = [record.name for record in prof.records]
    # the exact square of the 4-digit factor (levels 2 .. 8), one step's 3 digits times the
    # factor's top 3 (levels 2 .. 6); read back: the float32 factor's success and smallest
    # relative pivot, the residual, the result
    assert names.count("aclnnQuantMatmulV5") == 7 + 5
    # float32 products: 6 in the triangular inverse, L0^-1 R L0^-T, the first-order step
    # (no second-order term: every relative pivot L_ii**2 / a_ii of the float32 factor is
    # above 1/100) and the step's square
    assert names.count("aclnnMatmul") == 6 + 2 + 1 + 1
    assert names.count("ACL_MEMCPY_DEVICE_TO_HOST") == 3
    assert names.count("aclnnLinalgCholesky") == 1
    expected = np.linalg.cholesky(a)
    assert np.abs(lower @ lower.T - a).max() <= n * U * np.abs(a).max()
    # forward error: as LAPACK's to within its own (condition number times backward error)
    np.testing.assert_allclose(lower, expected, rtol=0, atol=20 * n * U * np.abs(expected).max())


@pytest.mark.parametrize("exponent", [-40, -1, 0, 1, 37])
def test_diagonals_at_powers_of_two(exponent):
    # sqrt(a_ii) exactly a power of two, or just below one: the scaled factor's largest
    # entries sit at the edge of what three or four 8-bit digits hold
    n = 10
    d = np.array([2.0 ** exponent, 2.0 ** exponent * (1 - 2.0 ** -30)] * (n // 2))
    g = RNG.standard_normal((n, n)) * 0.05
    a = np.diag(d ** 2) + (g + g.T) * np.outer(d, d) / n
    lower = _cholesky(a)
    scale = np.outer(d, d)
    assert float(_exact_backward_error(a / scale, lower / d[:, None])) <= n * U
    expected = np.linalg.cholesky(a)
    np.testing.assert_allclose(lower / d[:, None], expected / d[:, None], rtol=0, atol=4 * n * U)


def test_exactly_representable_factor():
    # a factor of small integers: float32 finds it exactly, the step is zero
    lower = np.tril(RNG.integers(-3, 4, (16, 16))).astype(np.float64)
    np.fill_diagonal(lower, RNG.integers(1, 5, 16))
    a = lower @ lower.T
    np.testing.assert_array_equal(_cholesky(a), lower)


def test_batched_scaled_and_upper():
    g = RNG.standard_normal((3, 40, 40))
    a = g @ np.swapaxes(g, -1, -2) + 40 * np.eye(40)
    d = 2.0 ** RNG.integers(-30, 31, (3, 40))
    a = d[..., :, None] * a * d[..., None, :]
    upper = _cholesky(a, upper=True)
    expected = np.swapaxes(np.linalg.cholesky(a), -1, -2)
    np.testing.assert_allclose(upper / d[..., None, :], expected / d[..., None, :], rtol=0, atol=1e-12)
    residual = np.abs(np.swapaxes(upper, -1, -2) @ upper - a) / (d[..., :, None] * d[..., None, :])
    assert residual.max() <= 10 * 40 * U * 4


def test_steps_with_tiny_rows():
    # the first rows of a diagonal-dominant matrix are (nearly) exact in float32: their steps
    # are zero or tiny, and must not overflow their power-of-two scales
    n = 30
    a = np.diag(np.arange(1.0, n + 1)) + np.diag(np.full(n - 1, 1e-35), -1) + np.diag(np.full(n - 1, 1e-35), 1)
    a[n - 5:, n - 5:] += np.full((5, 5), 0.3)
    with npx.profile() as prof:
        lower = _cholesky(a)
    assert "aclnnSvd" not in [record.name for record in prof.records]   # refined, not the fallback
    expected = np.linalg.cholesky(a)
    np.testing.assert_allclose(lower, expected, rtol=0, atol=4 * n * U * np.sqrt(n))
    assert float(_exact_backward_error(a, lower)) <= n * U * np.abs(a).max()


def _scaled_backward_error(a, lower):
    d = np.sqrt(np.diagonal(a, axis1=-2, axis2=-1))
    return (np.abs(lower @ np.swapaxes(lower, -1, -2) - a) / (d[..., :, None] * d[..., None, :])).max()


@pytest.mark.parametrize("condition", [1e3, 1e6])
def test_ill_conditioned_matrices_take_more_steps(condition):
    n = 256
    q, _ = np.linalg.qr(RNG.standard_normal((n, n)))
    a = (q * np.logspace(0, -np.log10(condition), n)) @ q.T
    a = (a + a.T) / 2
    with npx.profile() as prof:
        lower = _cholesky(a)
    names = [record.name for record in prof.records]
    assert "aclnnSvd" not in names   # refined, not the spectral fallback
    assert names.count("aclnnQuantMatmulV5") >= 7 + 2 * 5   # more than one step
    steps = (names.count("aclnnQuantMatmulV5") - 7) // 5
    # second-order steps (their Phi(Y) Phi(Y)^T one more float32 product) where a relative
    # pivot L_ii**2 / a_ii of the float32 factor is below 1/100, first-order ones above
    per_step = 5 if condition == 1e6 else 4
    assert names.count("aclnnMatmul") == 4 + per_step * steps   # 4: the triangular inverse
    assert _scaled_backward_error(a, lower) <= 10 * n * U
    assert not np.triu(lower, 1).any()
    expected = np.linalg.cholesky(a)
    np.testing.assert_allclose(lower, expected, rtol=0, atol=condition * n * U * np.abs(expected).max())


def test_scaled_batched_non_contiguous_and_upper_at_256_rows():
    n = 256   # rows and columns scaled by 2**-40 .. 2**40, a strided view of a larger array
    g = RNG.standard_normal((2, n, n))
    a = g @ np.swapaxes(g, -1, -2) + n * np.eye(n)
    d = 2.0 ** RNG.integers(-40, 41, (2, n))
    a = d[..., :, None] * a * d[..., None, :]
    big = np.zeros((2, 2 * n, 2 * n))
    big[:, ::2, ::2] = a
    with npx.transfer_guard("disallow"):
        x = npx.asarray(big)[:, ::2, ::2]
        lower = npx.linalg.cholesky(x).to_host()
        upper = npx.linalg.cholesky(x, upper=True).to_host()
    # the steps stop at n u max|a| of the scaled matrix, whose diagonal spans a factor 16
    assert _scaled_backward_error(a, lower) <= 10 * n * U
    np.testing.assert_array_equal(upper, np.swapaxes(lower, -1, -2))
    expected = np.linalg.cholesky(a)
    np.testing.assert_allclose(lower / d[..., :, None], expected / d[..., :, None], rtol=0, atol=20 * n * U)


def test_each_matrix_of_a_batch_meets_its_own_bound():
    # an ill-conditioned matrix (several steps) beside a well-conditioned one 2**40 times
    # as large (one step): each within LAPACK's bound by itself, n u max|a_k| (and
    # componentwise, |a - L L^T|_ij against sqrt(a_ii a_jj), as xPOTRF's |L| |L^T|, within
    # a small multiple of n u)
    n = 128
    q, _ = np.linalg.qr(RNG.standard_normal((n, n)))
    ill = (q * np.logspace(0, -6, n)) @ q.T
    g = RNG.standard_normal((n, n))
    a = np.stack([(ill + ill.T) / 2, 2.0 ** 40 * (g @ g.T + n * np.eye(n))])
    lower = _cholesky(a)
    for k in range(2):
        assert np.abs(lower[k] @ lower[k].T - a[k]).max() <= n * U * np.abs(a[k]).max()
        assert _scaled_backward_error(a[k], lower[k]) <= 10 * n * U
    expected = np.linalg.cholesky(a)
    np.testing.assert_allclose(lower[0], expected[0], rtol=0, atol=1e6 * n * U * np.abs(expected[0]).max())


def test_not_positive_definite_and_nan_as_numpy():
    n = 256
    g = RNG.standard_normal((n, n))
    a = g @ g.T + n * np.eye(n)
    bad = a.copy()
    bad[100, 100] = -1.0
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(bad)
    with pytest.raises(np.linalg.LinAlgError):
        _cholesky(bad)
    a[3, 3] = np.nan   # LAPACK's potrf lets a NaN through (NumPy returns NaNs, no error)
    assert np.isnan(np.linalg.cholesky(a)).any()
    assert np.isnan(_cholesky(a)).any()
