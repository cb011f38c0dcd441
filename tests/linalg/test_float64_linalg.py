"""float64 / complex128 linalg.solve and float64 linalg.cholesky on the device
(npuarray/linalg/_refine.py, _cholesky64.py): against NumPy (LAPACK) and backward errors, for random,
ill-scaled, ill-conditioned, singular, batched, vector, non-contiguous and complex inputs,
with no host transfer (transfer_guard "disallow")."""
import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ozaki

RNG = np.random.default_rng(2122)
U = 2.0 ** -53


def _backward(a, x, b):
    """max|a x - b| / (||a||_inf max|x| + max|b|), the normwise backward error."""
    r = np.abs(a @ x - b).max()
    return r / (np.abs(a).sum(axis=-1).max() * np.abs(x).max() + np.abs(b).max())


def _solve(a, b):
    with npx.transfer_guard("disallow"):
        x = npx.linalg.solve(npx.asarray(a), npx.asarray(b))
    return x.to_host()


@pytest.mark.parametrize("kind", ["random", "row-col-scaled", "ill-conditioned", "hilbert"])
def test_solve_float64(kind):
    n = 120
    a, b = RNG.standard_normal((n, n)), RNG.standard_normal((n, 4))
    if kind == "row-col-scaled":   # scales 2**-40 .. 2**40
        a = a * 2.0 ** RNG.integers(-40, 41, (n, 1)) * 2.0 ** RNG.integers(-40, 41, (1, n))
    elif kind == "ill-conditioned":   # condition number 1e12: beyond float32's LU
        q1, _ = np.linalg.qr(a)
        q2, _ = np.linalg.qr(RNG.standard_normal((n, n)))
        a = (q1 * np.logspace(0, -12, n)) @ q2.T
    elif kind == "hilbert":
        n = 10
        a, b = 1.0 / (np.arange(n)[:, None] + np.arange(n) + 1.0), RNG.standard_normal((n, 4))
    x = _solve(a, b)
    assert x.dtype == np.float64 and x.shape == b.shape
    if kind != "row-col-scaled":   # (there the normwise measure says nothing: componentwise below)
        assert _backward(a, x, b) <= 10 * n * U
    expected = np.linalg.solve(a, b)
    cond = np.linalg.cond(a)
    np.testing.assert_allclose(x, expected, rtol=10 * n * U * cond, atol=0)


def test_solve_row_col_scaled_componentwise():
    n = 100
    a = RNG.standard_normal((n, n)) * 2.0 ** RNG.integers(-40, 41, (n, 1))
    b = RNG.standard_normal((n, 3)) * 2.0 ** RNG.integers(-40, 41, (n, 1))
    x = _solve(a, b)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-9)


def test_solve_vector_batched_and_non_contiguous():
    a = RNG.standard_normal((3, 1, 50, 50))
    b = RNG.standard_normal((4, 50, 2))
    x = _solve(a, b)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)
    v = RNG.standard_normal(50)
    np.testing.assert_allclose(_solve(a[0, 0], v), np.linalg.solve(a[0, 0], v), rtol=1e-10, atol=1e-12)
    big = RNG.standard_normal((100, 100))
    view = npx.asarray(big)[::2, 1::2]
    rhs = npx.asarray(RNG.standard_normal((6, 50))).mT
    x = npx.linalg.solve(view, rhs).to_host()
    np.testing.assert_allclose(x, np.linalg.solve(big[::2, 1::2], rhs.to_host()), rtol=1e-10, atol=1e-12)


def test_solve_complex128_and_promotion():
    n = 60
    a = RNG.standard_normal((n, n)) + 1j * RNG.standard_normal((n, n))
    b = RNG.standard_normal((n, 3)) + 1j * RNG.standard_normal((n, 3))
    x = _solve(a, b)
    assert x.dtype == np.complex128
    assert _backward(a, x, b) <= 10 * n * U
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-11, atol=1e-12)
    x = _solve(a.real.astype(np.float32), b.real)   # float32 with float64: float64
    assert x.dtype == np.float64
    np.testing.assert_allclose(x, np.linalg.solve(a.real.astype(np.float32).astype(np.float64), b.real),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("zero", ["row", "column"])
def test_solve_singular_and_zero(zero):
    # A zero row or column gives LU an exact zero pivot in every precision and summation
    # order, so NumPy raises too; a row twice another does not (its pivot is a rounding
    # residue in NumPy's blocked LU as in ours, and NumPy returns huge solutions).
    a = RNG.standard_normal((20, 20))
    if zero == "row":
        a[5] = 0
    else:
        a[:, 7] = 0
    b = RNG.standard_normal(20)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.solve(a, b)
    with pytest.raises(np.linalg.LinAlgError):
        npx.linalg.solve(npx.asarray(a), npx.asarray(b)).to_host()
    with pytest.raises(np.linalg.LinAlgError):
        npx.linalg.solve(npx.asarray(np.zeros((8, 8))), npx.asarray(np.ones(8))).to_host()


def test_solve_on_a_stream():
    a, b = RNG.standard_normal((40, 40)), RNG.standard_normal((40, 2))
    with npx.Stream():
        x = npx.linalg.solve(npx.asarray(a), npx.asarray(b)).to_host()
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)


def _spd(n, batch=()):
    g = RNG.standard_normal(batch + (n, n))
    return g @ np.swapaxes(g, -1, -2) + n * np.eye(n)


def _cholesky(a, **kwargs):
    with npx.transfer_guard("disallow"):
        return npx.linalg.cholesky(npx.asarray(a), **kwargs).to_host()


@pytest.mark.parametrize("kind", ["random", "diagonal-scaled", "ill-conditioned", "batched"])
def test_cholesky_float64(kind):
    n = 90
    a = _spd(n, (2, 3) if kind == "batched" else ())
    if kind == "diagonal-scaled":   # D a D with D = 2**-40 .. 2**40
        d = 2.0 ** RNG.integers(-40, 41, n)
        a = d[:, None] * a * d[None, :]
    elif kind == "ill-conditioned":   # eigenvalues 1 .. 1e-6
        q, _ = np.linalg.qr(RNG.standard_normal((n, n)))
        a = (q * np.logspace(0, -6, n)) @ q.T
        a = (a + a.T) / 2
    lower = _cholesky(a)
    assert lower.dtype == np.float64 and lower.shape == a.shape
    np.testing.assert_array_equal(np.triu(lower, 1), 0 * np.triu(lower, 1))
    d = np.sqrt(np.abs(np.diagonal(a, axis1=-2, axis2=-1)))
    scale = d[..., :, None] * d[..., None, :]
    residual = np.abs(lower @ np.swapaxes(lower, -1, -2) - a) / scale
    assert residual.max() <= 10 * n * U
    expected = np.linalg.cholesky(a)
    np.testing.assert_allclose(lower / d[..., :, None], expected / d[..., :, None], rtol=0,
                               atol=1e-6 if kind == "ill-conditioned" else 1e-12)


def test_cholesky_upper_and_not_positive_definite():
    a = _spd(40)
    upper = _cholesky(a, upper=True)
    np.testing.assert_allclose(upper, np.linalg.cholesky(a).T, rtol=1e-12, atol=1e-12)
    bad = a.copy()
    bad[7, 7] = -1.0
    with pytest.raises(np.linalg.LinAlgError):
        _cholesky(bad)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_cholesky_complex_on_the_device(dtype):
    n = 50
    g = RNG.standard_normal((2, n, n)) + 1j * RNG.standard_normal((2, n, n))
    a = (g @ np.conj(np.swapaxes(g, -1, -2)) + n * np.eye(n)).astype(dtype)
    lower = _cholesky(a)
    upper = _cholesky(a, upper=True)
    assert lower.dtype == dtype
    u = np.finfo(dtype).eps / 2
    norm = np.abs(a).max()
    assert np.abs(lower @ np.conj(np.swapaxes(lower, -1, -2)) - a).max() <= 10 * n * u * norm
    np.testing.assert_allclose(lower, np.linalg.cholesky(a), atol=100 * n * u * np.sqrt(norm))
    np.testing.assert_allclose(upper, np.conj(np.swapaxes(np.linalg.cholesky(a), -1, -2)),
                               atol=100 * n * u * np.sqrt(norm))
    bad = a[0].copy()
    bad[3, 3] = -1
    with pytest.raises(np.linalg.LinAlgError):
        _cholesky(bad)


def test_cholesky_float64_beyond_float32():
    n = 60   # eigenvalues 1 .. 1e-12: float32 cannot factor it, the spectral path does
    q, _ = np.linalg.qr(RNG.standard_normal((n, n)))
    a = (q * np.logspace(0, -12, n)) @ q.T
    a = (a + a.T) / 2
    lower = _cholesky(a)
    assert np.abs(lower @ lower.T - a).max() <= 10 * n * U * np.abs(a).max()
    np.testing.assert_array_equal(np.triu(lower, 1), 0 * np.triu(lower, 1))


def test_solve_with_residuals_beyond_one_word(monkeypatch):
    """Right-hand sides whose residual products need more than one word of digits: the
    refinement makes those residuals again with as many digits as they need."""
    flags = []
    original = _ozaki.deferred_product

    def spy(*args):
        flags.append(original(*args))
        return flags[-1]
    monkeypatch.setattr(_ozaki, "deferred_product", spy)
    n = 160
    a = RNG.standard_normal((n, n)) + n * np.eye(n)
    a[0, 1::2] = 0.0
    b = RNG.standard_normal((n, 2)) * 2.0 ** np.where(np.arange(n) % 2, 30, -30)[:, None]
    x = npx.linalg.solve(npx.asarray(a), npx.asarray(b)).to_host()
    reference = np.linalg.solve(a, b)
    assert np.max(np.abs(x - reference)) <= 1e-12 * np.max(np.abs(reference))
    assert np.max(np.abs(a @ x - b)) <= 64 * n * U * np.max(np.abs(a).sum(axis=1)) * np.max(np.abs(x))
    assert flags and 0.0 in [float(f.to_host()) for f in flags]


@pytest.mark.parametrize("a_shape, b_shape", [
    ((1, 1, 1, 1, 1, 1, 1), (1,)),
    ((2, 1, 3, 1, 2, 1, 4, 4), (4,)),
    ((2, 1, 1, 1, 1, 1, 80, 80), (1, 3, 1, 1, 1, 1, 80, 2)),
])
def test_solve_of_many_batch_dimensions(a_shape, b_shape):
    a = RNG.standard_normal(a_shape) + 3 * np.eye(a_shape[-1])
    b = RNG.standard_normal(b_shape)
    x = npx.linalg.solve(npx.asarray(a), npx.asarray(b)).to_host()
    expected = np.linalg.solve(a, b)
    assert x.shape == expected.shape
    np.testing.assert_allclose(x, expected, rtol=1e-11, atol=1e-12)
