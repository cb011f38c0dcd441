"""npuarray.random's composed distributions against scipy.stats: Kolmogorov-Smirnov for the
continuous laws, chi-square for the discrete ones (fixed seeds, so every check is
deterministic; each must pass at p > 1e-3), moments of the multivariate laws, edge
parameters and array parameters."""
import zlib

import numpy as np
import pytest
from scipy import stats

import npuarray as npx

N = 200_000
P_MIN = 1e-3


def draw(name, /, *args, seed=0, size=N, **kwargs):
    g = npx.random.default_rng(seed)
    return npx.asnumpy(getattr(g, name)(*args, size=size, **kwargs))


def ks_p(sample, dist):
    return stats.kstest(sample, dist.cdf).pvalue


def chi2_p(sample, dist, low=None, high=None):
    """Pearson's chi-square p-value of integer ``sample`` against ``dist`` (a scipy discrete
    distribution), the cells with fewer than 20 expected draws merged into the tails."""
    sample = np.asarray(sample)
    n = sample.size
    low = int(dist.ppf(1e-7)) if low is None else low
    high = int(dist.ppf(1 - 1e-7)) if high is None else high
    ks = np.arange(low, high + 1)
    expected = dist.pmf(ks) * n
    keep = expected >= 20
    ks, expected = ks[keep], expected[keep]
    observed = np.array([np.count_nonzero(sample == k) for k in ks], dtype=np.float64)
    below, above = dist.cdf(ks[0] - 1) * n, dist.sf(ks[-1]) * n
    observed = np.concatenate(([np.count_nonzero(sample < ks[0])], observed,
                               [np.count_nonzero(sample > ks[-1])]))
    expected = np.concatenate(([below], expected, [above]))
    cells = expected > 0
    observed, expected = observed[cells], expected[cells]
    expected *= observed.sum() / expected.sum()
    return stats.chisquare(observed, expected).pvalue


CONTINUOUS = [
    ("standard_exponential", (), stats.expon()),
    ("standard_gamma", (2.5,), stats.gamma(2.5)),
    ("standard_gamma", (0.3,), stats.gamma(0.3)),
    ("gamma", (4.0, 2.0), stats.gamma(4.0, scale=2.0)),
    ("gamma", (0.05, 1.0), stats.gamma(0.05)),
    ("beta", (0.5, 2.0), stats.beta(0.5, 2.0)),
    ("beta", (3.0, 3.0), stats.beta(3.0, 3.0)),
    ("chisquare", (3.0,), stats.chi2(3.0)),
    ("noncentral_chisquare", (3.0, 2.0), stats.ncx2(3.0, 2.0)),
    ("noncentral_chisquare", (0.5, 40.0), stats.ncx2(0.5, 40.0)),
    ("f", (5.0, 7.0), stats.f(5.0, 7.0)),
    ("noncentral_f", (5.0, 7.0, 1.5), stats.ncf(5.0, 7.0, 1.5)),
    ("standard_t", (4.0,), stats.t(4.0)),
    ("standard_cauchy", (), stats.cauchy()),
    ("lognormal", (0.5, 0.7), stats.lognorm(0.7, scale=np.exp(0.5))),
    ("laplace", (1.0, 2.0), stats.laplace(1.0, 2.0)),
    ("logistic", (1.0, 2.0), stats.logistic(1.0, 2.0)),
    ("gumbel", (1.0, 2.0), stats.gumbel_r(1.0, 2.0)),
    ("pareto", (3.0,), stats.lomax(3.0)),
    ("power", (2.5,), stats.powerlaw(2.5)),
    ("rayleigh", (2.0,), stats.rayleigh(scale=2.0)),
    ("weibull", (1.5,), stats.weibull_min(1.5)),
    ("wald", (1.5, 2.0), stats.invgauss(1.5 / 2.0, scale=2.0)),
    ("triangular", (0.0, 1.0, 3.0), stats.triang(1 / 3, loc=0.0, scale=3.0)),
    ("vonmises", (0.0, 2.0), stats.vonmises(2.0)),
    ("vonmises", (0.0, 0.1), stats.vonmises(0.1)),
    ("vonmises", (0.0, 500.0), stats.vonmises(500.0)),
    ("normal", (1.0, 3.0), stats.norm(1.0, 3.0)),
    ("exponential", (2.0,), stats.expon(scale=2.0)),
    ("uniform", (-1.0, 4.0), stats.uniform(-1.0, 5.0)),
]


@pytest.mark.parametrize("method, args, dist", CONTINUOUS,
                         ids=[f"{m}{a}" for m, a, _ in CONTINUOUS])
def test_continuous_ks(method, args, dist):
    x = draw(method, *args, seed=zlib.crc32(repr((method, args)).encode()))
    assert x.dtype == np.float64 and x.shape == (N,)
    assert np.all(np.isfinite(x))
    assert ks_p(x, dist) > P_MIN


def test_vonmises_location_wraps_into_range():
    x = draw("vonmises", 3.0, 0.5, seed=7)
    assert x.min() >= -np.pi and x.max() <= np.pi
    centred = np.mod(x - 3.0 + np.pi, 2 * np.pi) - np.pi  # back to mu = 0
    assert ks_p(centred, stats.vonmises(0.5)) > P_MIN


DISCRETE = [
    ("poisson", (3.0,), stats.poisson(3.0)),
    ("poisson", (250.0,), stats.poisson(250.0)),
    ("poisson", (2e5,), stats.poisson(2e5)),  # beyond the table: PTRS on the device
    ("binomial", (20, 0.3), stats.binom(20, 0.3)),
    ("binomial", (1000, 0.6), stats.binom(1000, 0.6)),
    ("binomial", (10**7, 0.002), stats.binom(10**7, 0.002)),
    ("negative_binomial", (3.0, 0.4), stats.nbinom(3.0, 0.4)),
    ("geometric", (0.3,), stats.geom(0.3)),
    ("geometric", (0.9,), stats.geom(0.9)),
    ("hypergeometric", (10, 15, 8), stats.hypergeom(25, 10, 8)),
    ("hypergeometric", (500, 700, 300), stats.hypergeom(1200, 500, 300)),
    ("logseries", (0.7,), stats.logser(0.7)),
    ("logseries", (0.99,), stats.logser(0.99)),
    ("zipf", (2.5,), stats.zipf(2.5)),
]


@pytest.mark.parametrize("method, args, dist", DISCRETE,
                         ids=[f"{m}{a}" for m, a, _ in DISCRETE])
def test_discrete_chi_square(method, args, dist):
    x = draw(method, *args, seed=zlib.crc32(repr((method, args)).encode()))
    assert x.dtype == np.int64 and x.shape == (N,)
    high = 60 if method == "zipf" else None
    assert chi2_p(x, dist, high=high) > P_MIN


@pytest.mark.parametrize("method, params, dist", [
    ("poisson", ([0.5, 5.0, 50.0, 5000.0],), lambda p: stats.poisson(p)),
    ("binomial", ([10.0, 100.0, 10**6], [0.3, 0.8, 0.4]), lambda n, p: stats.binom(n, p)),
    ("hypergeometric", ([10.0, 100.0], [20.0, 30.0], [15.0, 40.0]),
     lambda g, b, s: stats.hypergeom(g + b, g, s)),
    ("negative_binomial", ([1.0, 30.0], [0.2, 0.7]), lambda n, p: stats.nbinom(n, p)),
])
def test_discrete_array_parameters_chi_square(method, params, dist):
    k = len(params[0])
    device_params = [npx.asarray(np.array(p, dtype=np.float64)) for p in params]
    x = draw(method, *device_params, seed=5, size=(N // 4, k))
    assert x.shape == (N // 4, k) and x.dtype == np.int64
    for column in range(k):
        assert chi2_p(x[:, column], dist(*(p[column] for p in params))) > P_MIN


@pytest.mark.parametrize("method, params, dist", [
    ("gamma", ([0.5, 3.0], [1.0, 2.0]), lambda a, s: stats.gamma(a, scale=s)),
    ("beta", ([0.2, 5.0], [0.7, 2.0]), lambda a, b: stats.beta(a, b)),
    ("standard_t", ([1.0, 30.0],), lambda df: stats.t(df)),
    ("vonmises", ([0.0, 0.0], [0.5, 1e7]), lambda m, k: stats.vonmises(k, loc=m)),
    ("wald", ([1.0, 3.0], [0.5, 4.0]), lambda m, s: stats.invgauss(m / s, scale=s)),
])
def test_continuous_array_parameters_ks(method, params, dist):
    k = len(params[0])
    x = draw(method, *[np.array(p) for p in params], seed=6, size=(N // 4, k))
    for column in range(k):
        assert ks_p(x[:, column], dist(*(p[column] for p in params))) > P_MIN


def test_poisson_huge_mean_moments():
    lam = 1e12
    x = draw("poisson", lam, seed=8, size=50_000).astype(np.float64)
    assert abs(x.mean() - lam) < 6 * np.sqrt(lam / x.size)
    assert abs(x.var() / lam - 1) < 0.05


def test_binomial_huge_n_moments():
    n, p = 10**12, 0.3
    x = draw("binomial", n, p, seed=9, size=50_000).astype(np.float64)
    assert abs(x.mean() - n * p) < 6 * np.sqrt(n * p * (1 - p) / x.size)
    assert abs(x.var() / (n * p * (1 - p)) - 1) < 0.05


@pytest.mark.parametrize("method, args, expected", [
    ("binomial", (10, 0.0), 0), ("binomial", (10, 1.0), 10), ("binomial", (0, 0.5), 0),
    ("poisson", (0.0,), 0), ("geometric", (1.0,), 1), ("negative_binomial", (5, 1.0), 0),
    ("hypergeometric", (0, 5, 3), 0), ("hypergeometric", (5, 0, 3), 3),
    ("logseries", (0.0,), 1), ("gamma", (0.0,), 0.0), ("gamma", (2.0, 0.0), 0.0),
    ("standard_gamma", (0.0,), 0.0), ("weibull", (0.0,), 0.0), ("rayleigh", (0.0,), 0.0),
    ("exponential", (0.0,), 0.0), ("laplace", (1.5, 0.0), 1.5), ("logistic", (1.5, 0.0), 1.5),
    ("gumbel", (1.5, 0.0), 1.5), ("lognormal", (0.0, 0.0), 1.0), ("normal", (2.0, 0.0), 2.0),
])
def test_edge_parameters_match_numpy(method, args, expected):
    ours = draw(method, *args, size=1000)
    theirs = getattr(np.random.default_rng(0), method)(*args, size=1000)
    np.testing.assert_array_equal(ours, np.full(1000, expected))
    np.testing.assert_array_equal(theirs, np.full(1000, expected))


def test_multinomial_marginals_and_sums():
    pvals = [0.1, 0.2, 0.3, 0.4]
    x = draw("multinomial", 50, pvals, seed=10, size=50_000)
    assert x.shape == (50_000, 4) and x.dtype == np.int64
    assert np.all(x.sum(axis=1) == 50)
    for i, p in enumerate(pvals):
        assert chi2_p(x[:, i], stats.binom(50, p)) > P_MIN
    expected_cov = -50 * pvals[0] * pvals[1]
    assert abs(np.cov(x[:, 0], x[:, 1])[0, 1] - expected_cov) < 0.1


def test_multinomial_array_n():
    x = draw("multinomial", npx.asarray(np.array([5.0, 500.0])), [0.5, 0.5], seed=11, size=(4, 2))
    assert x.shape == (4, 2, 2)
    np.testing.assert_array_equal(x.sum(axis=-1), np.tile([5, 500], (4, 1)))


def test_multivariate_hypergeometric_marginals():
    colors = [5, 10, 20]
    for method in ("marginals", "count"):
        x = draw("multivariate_hypergeometric", colors, 12, seed=12, size=50_000, method=method)
        assert x.shape == (50_000, 3)
        assert np.all(x.sum(axis=1) == 12) and np.all(x <= colors)
        assert chi2_p(x[:, 1], stats.hypergeom(35, 10, 12)) > P_MIN


def test_dirichlet_marginals_are_beta():
    alpha = np.array([0.3, 1.0, 2.5])
    x = draw("dirichlet", alpha, seed=13, size=N)
    assert x.shape == (N, 3)
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-12)
    for i, a in enumerate(alpha):
        assert ks_p(x[:, i], stats.beta(a, alpha.sum() - a)) > P_MIN


def test_dirichlet_tiny_and_zero_alpha():
    x = draw("dirichlet", [1e-3, 1e-3], seed=14, size=1000)
    assert np.all(np.isfinite(x)) and np.allclose(x.sum(axis=1), 1.0)
    y = draw("dirichlet", [0.0, 2.0], seed=14, size=100)
    np.testing.assert_array_equal(y, np.tile([0.0, 1.0], (100, 1)))


@pytest.mark.parametrize("method", ["svd", "eigh", "cholesky"])
def test_multivariate_normal_moments(method):
    mean = np.array([1.0, -2.0, 0.5])
    cov = np.array([[2.0, 0.6, 0.2], [0.6, 1.0, -0.3], [0.2, -0.3, 0.5]])
    x = draw("multivariate_normal", mean, cov, seed=15, size=N, method=method)
    assert x.shape == (N, 3)
    np.testing.assert_allclose(x.mean(axis=0), mean, atol=0.02)
    np.testing.assert_allclose(np.cov(x, rowvar=False), cov, atol=0.03)
    projection = (x - mean) @ np.linalg.solve(np.linalg.cholesky(cov), np.eye(3)).T
    assert ks_p(projection[:, 0], stats.norm()) > P_MIN


def test_multivariate_normal_singular_covariance():
    cov = np.array([[1.0, 1.0], [1.0, 1.0]])
    x = draw("multivariate_normal", [0.0, 0.0], cov, seed=16, size=1000)
    np.testing.assert_allclose(x[:, 0], x[:, 1], atol=1e-6)


def test_float32_dtype_of_standard_draws():
    g = npx.random.default_rng(17)
    for method, args in (("standard_exponential", ()), ("standard_gamma", (2.0,))):
        x = npx.asnumpy(getattr(g, method)(*args, size=N, dtype=np.float32))
        assert x.dtype == np.float32
        dist = stats.expon() if method == "standard_exponential" else stats.gamma(2.0)
        assert ks_p(x.astype(np.float64), dist) > P_MIN


def test_choice_with_p_chi_square():
    p = np.array([0.1, 0.0, 0.5, 0.4])
    x = npx.asnumpy(npx.random.default_rng(18).choice(4, N, p=p))
    counts = np.bincount(x, minlength=4)
    assert counts[1] == 0
    assert stats.chisquare(counts[[0, 2, 3]], p[[0, 2, 3]] * N).pvalue > P_MIN


def test_permutation_positions_uniform():
    g = npx.random.default_rng(19)
    first = np.array([npx.asnumpy(g.permutation(5))[0] for _ in range(2000)])
    assert stats.chisquare(np.bincount(first, minlength=5)).pvalue > P_MIN
    big = npx.asnumpy(g.permutation(100_000))
    np.testing.assert_array_equal(np.sort(big), np.arange(100_000))


@pytest.mark.parametrize("high", [1000, 40_000, 2**16, 2**20, 2**40])
def test_integers_chi_square_over_bins(high):
    """Each integer range has its own word layout (32-bit words with retries up to 2**16,
    64-bit words up to 2**32, whole blocks above): uniform over 50 equal bins, and the
    values of a small launch fall in the range too."""
    g = npx.random.default_rng(high)
    x = npx.asnumpy(g.integers(-7, high - 7, N))
    assert x.min() >= -7 and x.max() < high - 7
    counts = np.bincount((x + 7) * 50 // high, minlength=50)
    assert stats.chisquare(counts).pvalue > P_MIN
    small = npx.asnumpy(g.integers(0, high, 15))
    assert small.min() >= 0 and small.max() < high


def test_integers_retry_path_keeps_values_uniform():
    """Range 40_000: about one 32-bit word in 600_000 falls in the rejected zone and is
    redrawn from the launch's spare counters; a million draws exercise it."""
    x = npx.asnumpy(npx.random.default_rng(77).integers(0, 40_000, 10**6))
    assert x.min() >= 0 and x.max() < 40_000
    counts = np.bincount(x // 400, minlength=100)
    assert stats.chisquare(counts).pvalue > P_MIN


def test_binomial_one_trial_is_bernoulli():
    x = draw("binomial", 1, 0.35, seed=21)
    assert x.dtype == np.int64 and set(np.unique(x)) == {0, 1}
    assert stats.binomtest(int(x.sum()), N, 0.35).pvalue > P_MIN
    y = draw("binomial", npx.asarray(np.array([1.0, 1.0])), 0.35, seed=21, size=(N // 2, 2))
    assert stats.binomtest(int(y.sum()), N, 0.35).pvalue > P_MIN


def test_integers_with_array_bounds():
    low, high = np.array([0, -5, 100]), np.array([10, 5, 107])
    x = npx.asnumpy(npx.random.default_rng(22).integers(low, high, size=(N // 4, 3)))
    assert x.dtype == np.int64 and x.shape == (N // 4, 3)
    for column in range(3):
        values = x[:, column]
        assert values.min() >= low[column] and values.max() < high[column]
        counts = np.bincount(values - low[column], minlength=high[column] - low[column])
        assert stats.chisquare(counts).pvalue > P_MIN
    closed = npx.asnumpy(npx.random.default_rng(22).integers(
        npx.asarray(np.array([1, 2])), 3, size=(1000, 2), endpoint=True, dtype=np.int16))
    assert closed.dtype == np.int16 and closed.min() >= 1 and closed.max() == 3
