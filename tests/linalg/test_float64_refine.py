"""The int8 machinery of float64 solve / cholesky (npuarray/linalg/_exact_products.py,
_triangular.py, _refine.py, _cholesky64.py) against exact rational references (``fractions``) and NumPy:
residual products of a matrix split once into int8 digits (``prepare_matmul``), exact
products of fixed-point matrices,
float32 triangular inverses, and solve / cholesky on random, ill-conditioned,
ill-scaled, zero, non-finite, batched, non-contiguous and complex inputs, with nothing
moved to the host (transfer_guard "disallow")."""
from fractions import Fraction

import numpy as np
import pytest

import npuarray as npx
from npuarray import _acl
from npuarray._core import _ops
from npuarray._core._linear_algebra import prepare_matmul
from npuarray.linalg import _exact_products, _triangular

RNG = np.random.default_rng(2123)
U = 2.0 ** -53


def _exact_product(a, b):
    """a @ b in exact rational arithmetic (2-D float arrays), as a list of lists."""
    fa = [[Fraction(float(v)) for v in row] for row in a]
    fb = [[Fraction(float(v)) for v in row] for row in np.asarray(b).T]
    return [[sum(x * y for x, y in zip(row, col)) for col in fb] for row in fa]


def _stream():
    return npx.get_current_stream()


def _unit():
    stream = _stream()
    return _ops.fill_(_ops.empty((1,), np.dtype(np.float32), npx.asarray(np.ones(1))._buffer.device, stream),
                      1.0, stream=stream)


@pytest.mark.parametrize("n, k, spread", [(1, 1, 30), (7, 3, 30), (40, 5, 30), (40, 5, 0), (64, 16, 0)])
def test_residual_product_against_exact(n, k, spread, int8_products_taken):
    # what refinement multiplies: a split once, products with new right-hand sides;
    # entries spread over 2**-spread .. 2**spread inside rows and columns
    a = RNG.standard_normal((n, n)) * 2.0 ** RNG.integers(-spread, spread + 1, (n, n))
    x = RNG.standard_normal((n, k)) * 2.0 ** RNG.integers(-spread, spread + 1, (n, k))
    with npx.transfer_guard("disallow"):
        prepared = prepare_matmul(npx.asarray(a))
        y = prepared.matmul(npx.asarray(x)).to_host()
        again = prepared.matmul(npx.asarray(2.0 * x)).to_host()   # the same digits of a and x
    if spread == 0:
        assert int8_products_taken == [True, True]
    np.testing.assert_array_equal(again, 2.0 * y)
    exact = _exact_product(a, x)
    bound = n * U * (np.abs(a) @ np.abs(x))   # dgemm's, which LAPACK's dsgesv residuals have
    error = np.array([[float(abs(Fraction(float(y[i, j])) - exact[i][j])) for j in range(k)] for i in range(n)])
    assert np.all(error <= bound)
    if spread == 0:   # far below dsgesv's stopping test, sqrt(n) u ||a||_inf max|x| (measured: under 1/20)
        assert error.max() <= np.sqrt(n) * U * np.abs(a).sum(axis=1).max() * np.abs(x).max() / 8


def test_residual_product_batched_zero_and_non_finite(int8_products_taken):
    a = RNG.standard_normal((2, 3, 30, 30))
    a[0, 1] = 0
    x = RNG.standard_normal((3, 30, 4))
    y = prepare_matmul(npx.asarray(a)).matmul(npx.asarray(x)).to_host()
    assert all(int8_products_taken)
    np.testing.assert_allclose(y, a @ x, rtol=1e-13, atol=1e-13)
    assert not y[0, 1].any()
    a[1, 2, 4, 5] = np.nan
    a[1, 0, 7, 1] = np.inf
    y = prepare_matmul(npx.asarray(a)).matmul(npx.asarray(x)).to_host()
    assert not np.isfinite(y[1, 2, 4]).any() and not np.isfinite(y[1, 0, 7]).any()
    np.testing.assert_allclose(y[0], a[0] @ x, rtol=1e-13, atol=1e-13)
    x[0, 3, 1] = np.nan
    y = prepare_matmul(npx.asarray(a[0])).matmul(npx.asarray(x)).to_host()
    assert np.isnan(y[0, :, 1]).all() and np.isfinite(y[1]).all()


def _levels_sum(x, y, top=None):
    """The weighted levels' sum in exact rational arithmetic, over x's and y's row scales, as
    an object array per matrix of the (flattened) batch."""
    total = None
    for weight, level in _exact_products.levels(x, y, _unit(), _stream(), top=top):
        level = level.to_host().astype(object) * Fraction(weight)
        total = level if total is None else total + level
    exact = np.vectorize(lambda v: Fraction(float(v)), otypes=[object])
    if x.scale is not None:
        total = total / exact(x.scale.to_host())
    if y.scale is not None:
        total = total / exact(np.swapaxes(y.scale.to_host(), -1, -2))
    return total.reshape((-1,) + total.shape[-2:])


@pytest.mark.parametrize("s, t, batch", [(4, 3, ()), (3, 3, ()), (2, 4, (2,))])
def test_exact_products_of_fixed_point_matrices(s, t, batch):
    n = 24
    limit = _exact_products.limit(s)
    lower = np.tril(RNG.uniform(-limit, limit, batch + (n, n))).astype(np.float32)
    step = (RNG.standard_normal(batch + (n, n)) * 2.0 ** RNG.integers(-40, -20, batch + (n, 1))).astype(np.float32)
    largest = np.abs(step).max(axis=-1, keepdims=True)
    # |step rows| in [1/8, 1/4): [1/4, 1/2) would cross limit(t), just below 1/2
    rows = (2.0 ** -(np.floor(np.log2(largest)) + 1) / 4).astype(np.float32)
    stream = _stream()
    with npx.transfer_guard("disallow"):
        x = _exact_products.FixedPoint(npx.asarray(lower), None, s, stream)
        y = _exact_products.FixedPoint(npx.asarray(step), npx.asarray(rows), t, stream)
        square, cross = _levels_sum(x, x), _levels_sum(x, y)
        top = _levels_sum(y, x, top=s - 1)   # y times x's top digits
        last = x.last_digit().to_host()
    value, step_value = x.value(np.dtype(np.float64)).to_host(), y.value(np.dtype(np.float32)).to_host()
    assert step_value.dtype == np.float32
    assert np.all(np.abs(value - lower) < 2.0 ** (-8 * s))   # truncated to the grid
    assert np.all(np.abs(step_value - step) < 2.0 ** (-8 * t) / rows)
    for k, (a, b) in enumerate(zip(value.reshape((-1, n, n)), step_value.reshape((-1, n, n)))):
        assert (square[k] == np.array(_exact_product(a, a.T), dtype=object)).all()   # exact
        rest = np.array(_exact_product(b, last.reshape((-1, n, n))[k].astype(np.float64).T), dtype=object)
        assert (top[k] + rest == cross[k].T).all()   # the top digits' product and the last digit's
        assert (cross[k] == np.array(_exact_product(a, b.T), dtype=object)).all()


def test_fixed_point_digits_are_checked():
    with pytest.raises(ValueError, match="digits"):
        _exact_products.FixedPoint(npx.asarray(np.zeros((3, 3), np.float32)), None, 5, _stream())
    with pytest.raises(ValueError, match="digits"):
        _exact_products.FixedPoint(npx.asarray(np.zeros((3, 3), np.float32)), None, 1, _stream())


@pytest.mark.parametrize("n, batch", [(1, ()), (5, ()), (64, ()), (130, ()), (70, (2, 3))])
def test_triangular_inverse(n, batch):
    g = RNG.standard_normal(batch + (n, n))
    lower = np.linalg.cholesky(g @ np.swapaxes(g, -1, -2) + n * np.eye(n)).astype(np.float32)
    with npx.transfer_guard("disallow"):
        w = _triangular.inverse(npx.asarray(lower), _stream()).to_host()
    reference = np.linalg.inv(lower.astype(np.float64))
    assert w.dtype == np.float32 and w.shape == lower.shape
    assert not np.triu(w, 1).any()
    assert np.abs(w - reference).max() <= 1e-5 * np.abs(reference).max()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batched_inverse_on_the_pool(dtype):
    # aclnnInverse of a batch worth spreading over npusim's pool (the triangular inverse's
    # diagonal blocks): each matrix by itself, a singular one NaN without touching the rest
    g = RNG.standard_normal((16, 64, 64))
    a = (g + 16 * np.eye(64)).astype(dtype)
    a[5] = 1.0   # rank one
    out = npx.empty(a.shape, dtype=dtype)
    _ops.launch("aclnnInverse", npx.asarray(a), out)
    w = out.to_host()
    assert np.isnan(w[5]).all()
    rest = [k for k in range(16) if k != 5]
    eye = np.broadcast_to(np.eye(64), (15, 64, 64))
    assert np.abs(w[rest].astype(np.float64) @ a[rest] - eye).max() <= 1e3 * np.finfo(dtype).eps


def _solve(a, b):
    with npx.transfer_guard("disallow"):
        return npx.linalg.solve(npx.asarray(a), npx.asarray(b)).to_host()


def _exact_solution(a, b):
    """The solution of a x = b in exact rational arithmetic (Gauss-Jordan)."""
    n = len(a)
    m = [[Fraction(float(v)) for v in row] + [Fraction(float(v)) for v in rhs] for row, rhs in zip(a, b)]
    for c in range(n):
        p = next(r for r in range(c, n) if m[r][c] != 0)
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[r][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return np.array([[float(v / m[i][i]) for v in m[i][n:]] for i in range(n)])


@pytest.mark.parametrize("kind", ["random", "ill-conditioned", "ill-scaled"])
def test_solve_against_the_exact_solution(kind):
    n = 8
    a = RNG.standard_normal((n, n))
    if kind == "ill-conditioned":   # condition number 1e12
        q1, _ = np.linalg.qr(RNG.standard_normal((n, n)))
        q2, _ = np.linalg.qr(RNG.standard_normal((n, n)))
        a = (q1 * np.logspace(0, -12, n)) @ q2.T
    elif kind == "ill-scaled":
        a = a * 2.0 ** RNG.integers(-40, 41, (n, 1)) * 2.0 ** RNG.integers(-40, 41, (1, n))
    b = RNG.standard_normal((n, 2))
    x = _solve(a, b)
    exact = _exact_solution(a, b)
    numpy_error = np.abs(np.linalg.solve(a, b) - exact).max()
    # A backward-stable solve's forward error is bounded by the condition number times
    # n u (normwise); within that bound, LAPACK's own error and ours vary by a factor of
    # 100 from matrix to matrix at condition 1e12, so the bound, not NumPy's luck, is
    # what an ill-conditioned matrix is held to (a float32 factor alone, at this
    # condition, gives errors larger than the solution itself).
    condition = np.linalg.cond(a) if kind == "ill-conditioned" else 1.0
    allowed = max(4 * numpy_error, 8 * n * U * condition * np.abs(exact).max())
    assert np.abs(x - exact).max() <= allowed


@pytest.mark.parametrize("cond", [1e4, 1e8, 1e12])
def test_solve_backward_error_across_condition_numbers(cond):
    n = 150
    q1, _ = np.linalg.qr(RNG.standard_normal((n, n)))
    q2, _ = np.linalg.qr(RNG.standard_normal((n, n)))
    a = (q1 * np.logspace(0, -np.log10(cond), n)) @ q2.T
    b = RNG.standard_normal((n, 3))
    x = _solve(a, b)
    r = np.abs(a @ x - b).max()
    assert r <= 2 * np.sqrt(n) * U * np.abs(a).sum(axis=1).max() * np.abs(x).max() + 4 * U * np.abs(b).max()
    # The forward error bound (condition number times backward error) is normwise: a small
    # component of x may carry a large relative error in LAPACK's answer as in ours.
    reference = np.linalg.solve(a, b)
    assert np.abs(x - reference).max() <= n * U * cond * 10 * np.abs(reference).max()


def test_solve_zero_non_finite_and_batches():
    with pytest.raises(np.linalg.LinAlgError):
        _solve(np.zeros((5, 5)), np.ones(5))
    a = RNG.standard_normal((3, 12, 12))
    b = RNG.standard_normal((3, 12, 2))
    a[1, 4, 4] = np.nan
    a[2, 0, 3] = -np.inf
    x = _solve(a, b)
    assert np.isnan(x[1:]).all()
    np.testing.assert_allclose(x[0], np.linalg.solve(a[0], b[0]), rtol=1e-12, atol=1e-13)
    b[0, 5, 1] = np.nan
    x = _solve(a[0], b[0])
    assert np.isnan(x[:, 1]).all() and np.isfinite(x[:, 0]).all()


def test_solve_broadcast_non_contiguous_and_complex():
    a = RNG.standard_normal((2, 1, 40, 40))
    b = RNG.standard_normal((3, 40, 5))
    np.testing.assert_allclose(_solve(a, b), np.linalg.solve(a, b), rtol=1e-11, atol=1e-12)
    big = RNG.standard_normal((90, 90))
    view = npx.asarray(big)[1::2, ::2]
    rhs = npx.asarray(RNG.standard_normal((45, 9)))[:, ::3]
    with npx.transfer_guard("disallow"):
        x = npx.linalg.solve(view, rhs)
    np.testing.assert_allclose(x.to_host(), np.linalg.solve(big[1::2, ::2], rhs.to_host()), rtol=1e-10, atol=1e-12)
    c = RNG.standard_normal((30, 30)) + 1j * RNG.standard_normal((30, 30))
    d = RNG.standard_normal(30) + 1j * RNG.standard_normal(30)
    x = _solve(c, d)
    assert x.dtype == np.complex128
    assert np.abs(c @ x - d).max() <= 30 * U * np.abs(c).sum(axis=1).max() * np.abs(x).max()


def _cholesky(a, **kwargs):
    with npx.transfer_guard("disallow"):
        return npx.linalg.cholesky(npx.asarray(a), **kwargs).to_host()


def _exact_backward_error(a, lower):
    """max |a - L L^T| in exact rational arithmetic, over max|a|."""
    product = _exact_product(lower, lower.T)
    n = len(a)
    worst = max(abs(Fraction(float(a[i, j])) - product[i][j]) for i in range(n) for j in range(n))
    return float(worst) / np.abs(a).max()


@pytest.mark.parametrize("kind", ["random", "near-singular", "ill-scaled"])
def test_cholesky_exact_backward_error(kind):
    n = 12
    g = RNG.standard_normal((n, n))
    a = g @ g.T + n * np.eye(n)
    if kind == "near-singular":   # eigenvalues 1 .. 1e-6, inside float32's reach
        q, _ = np.linalg.qr(g)
        a = (q * np.logspace(0, -6, n)) @ q.T
        a = (a + a.T) / 2
    elif kind == "ill-scaled":
        d = 2.0 ** RNG.integers(-40, 41, n)
        a = d[:, None] * a * d[None, :]
    lower = _cholesky(a)
    assert not np.triu(lower, 1).any()
    if kind == "ill-scaled":   # backward error of the equilibrated matrix
        d = np.sqrt(np.diagonal(a))
        a, lower = a / d[:, None] / d[None, :], lower / d[:, None]
    assert _exact_backward_error(a, lower) <= n * U


@pytest.mark.parametrize("n", [1, 2, 65, 200])
def test_cholesky_sizes_against_numpy(n):
    g = RNG.standard_normal((n, n))
    a = g @ g.T + n * np.eye(n)
    lower = _cholesky(a)
    expected = np.linalg.cholesky(a)
    np.testing.assert_allclose(lower, expected, rtol=0, atol=10 * n * U * np.sqrt(np.abs(a).max()))
    assert np.abs(lower @ lower.T - a).max() <= n * U * np.abs(a).max() * 2


def test_cholesky_batched_non_contiguous_upper_and_complex():
    g = RNG.standard_normal((2, 3, 30, 30))
    a = g @ np.swapaxes(g, -1, -2) + 30 * np.eye(30)
    lower = _cholesky(a)
    np.testing.assert_allclose(lower, np.linalg.cholesky(a), rtol=0, atol=1e-12 * np.sqrt(np.abs(a).max()))
    big = np.zeros((60, 60))
    big[::2, ::2] = a[0, 0]
    with npx.transfer_guard("disallow"):
        upper = npx.linalg.cholesky(npx.asarray(big)[::2, ::2], upper=True).to_host()
    np.testing.assert_allclose(upper, np.linalg.cholesky(a[0, 0]).T, rtol=0, atol=1e-12 * np.sqrt(np.abs(a).max()))
    h = RNG.standard_normal((20, 20)) + 1j * RNG.standard_normal((20, 20))
    h = h @ h.conj().T + 20 * np.eye(20)
    lower = _cholesky(h)
    assert lower.dtype == np.complex128
    assert np.abs(lower @ lower.conj().T - h).max() <= 10 * 20 * U * np.abs(h).max()


def test_cholesky_not_positive_definite_zero_and_non_finite():
    g = RNG.standard_normal((10, 10))
    a = g @ g.T + 10 * np.eye(10)
    a[3, 3] = -a[3, 3]
    for bad in (a, np.zeros((6, 6)), -np.eye(4)):
        with pytest.raises(np.linalg.LinAlgError):
            _cholesky(bad)
    a = g @ g.T + 10 * np.eye(10)
    a[5, 2] = a[2, 5] = np.nan
    try:
        lower = _cholesky(a)
    except np.linalg.LinAlgError:
        return
    assert np.isnan(lower).any()


@pytest.mark.skipif(not _acl.available("aclmdlRICaptureBegin"),
                    reason="the loaded provider has no aclmdlRICaptureBegin (graph capture)")
@pytest.mark.parametrize("n", [40, 128])   # 128: two diagonal blocks in the triangular inverse
def test_solve_and_cholesky_captured_into_a_graph(n):
    # nothing can be read back in a capture: a fixed number of steps runs
    g = RNG.standard_normal((n, n))
    a, b = g @ g.T + n * np.eye(n), RNG.standard_normal((n, 3))
    stream = npx.Stream()
    with stream:
        x, y = npx.asarray(a), npx.asarray(b)
        stream.synchronize()
        graph = npx.Graph()
        with graph.capture():
            lower = npx.linalg.cholesky(x)
            solution = npx.linalg.solve(x, y)
        graph.replay()
        np.testing.assert_allclose(lower.to_host(), np.linalg.cholesky(a), rtol=0, atol=1e-13 * np.sqrt(n))
        np.testing.assert_allclose(solution.to_host(), np.linalg.solve(a, b), rtol=1e-12, atol=1e-15)
    graph.destroy()
