"""npuarray.random: statistical quality on 10**6 draws (moments, Kolmogorov-Smirnov against the
exact CDF, chi-square for discrete laws). The generators are seeded, so every check is
deterministic; the bounds are those of a test at level 0.001."""
import math

import numpy as np
import pytest

import npuarray as npx

N = 10**6
# KS: P(sqrt(n) D > 1.95) ~ 0.001 (Kolmogorov distribution).
KS_BOUND = 1.95 / math.sqrt(N)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def ks_statistic(sample, cdf):
    """sup |F_n - F| of the sample against the closed-form CDF."""
    x = np.sort(np.asarray(sample, dtype=np.float64))
    f = cdf(x)
    n = x.size
    upper = np.arange(1, n + 1) / n - f
    lower = f - np.arange(n) / n
    return max(upper.max(), lower.max())


def normal_cdf(x):
    return 0.5 * _erfc(-x / math.sqrt(2.0)).astype(np.float64)


def chi_square_ok(counts, expected):
    """Pearson's statistic below the 0.001 quantile bound (Wilson-Hilferty approximation)."""
    counts, expected = np.asarray(counts, np.float64), np.asarray(expected, np.float64)
    stat = ((counts - expected) ** 2 / expected).sum()
    k = counts.size - 1
    bound = k * (1 - 2 / (9 * k) + 3.09 * math.sqrt(2 / (9 * k))) ** 3
    return stat < bound, stat, bound


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_uniform_ks_and_moments(dtype):
    x = npx.random.default_rng(101).random(N, dtype=dtype).to_host()
    assert x.dtype == dtype and x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 5 * math.sqrt(1 / 12 / N)
    assert abs(x.var() - 1 / 12) < 1e-3
    assert ks_statistic(x, lambda t: t) < KS_BOUND


def test_uniform_bounds_ks():
    x = npx.random.default_rng(102).uniform(-3.0, 5.0, N).to_host()
    assert x.min() >= -3 and x.max() < 5
    assert ks_statistic(x, lambda t: (t + 3) / 8) < KS_BOUND


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_standard_normal_ks_and_moments(dtype):
    x = npx.random.default_rng(103).standard_normal(N, dtype=dtype).to_host()
    assert x.dtype == dtype
    x = x.astype(np.float64)
    assert abs(x.mean()) < 5 / math.sqrt(N)
    assert abs(x.var() - 1) < 5 * math.sqrt(2 / N)
    assert abs(((x - x.mean()) ** 3).mean()) < 0.01  # skewness 0
    assert abs(((x - x.mean()) ** 4).mean() / x.var() ** 2 - 3) < 0.03  # kurtosis 3
    assert ks_statistic(x, normal_cdf) < KS_BOUND


def test_normal_loc_scale_ks():
    x = npx.random.default_rng(104).normal(10.0, 3.0, N).to_host()
    assert ks_statistic(x, lambda t: normal_cdf((t - 10.0) / 3.0)) < KS_BOUND


def test_exponential_ks_and_moments():
    x = npx.random.default_rng(105).exponential(2.0, N).to_host()
    assert x.min() >= 0
    assert abs(x.mean() - 2.0) < 5 * 2.0 / math.sqrt(N)
    assert abs(x.var() - 4.0) < 0.05
    assert ks_statistic(x, lambda t: -np.expm1(-t / 2.0)) < KS_BOUND


@pytest.mark.parametrize("lam", [0.5, 4.0, 30.0, 1e5])
def test_poisson_moments_and_chi_square(lam):
    x = npx.random.default_rng(106).poisson(lam, N).to_host()
    assert x.dtype == np.int64 and x.min() >= 0
    assert abs(x.mean() - lam) < 5 * math.sqrt(lam / N)
    assert abs(x.var() / lam - 1) < 0.01
    low, high = int(max(0, lam - 3 * math.sqrt(lam))), int(lam + 3 * math.sqrt(lam)) + 1
    ks = np.arange(low, high)
    log_pmf = np.array([k * math.log(lam) - lam - math.lgamma(k + 1) for k in ks])
    expected = N * np.exp(log_pmf)
    keep = expected > 20
    counts = np.bincount(x, minlength=high)[ks[keep]]
    ok, stat, bound = chi_square_ok(counts, expected[keep])
    assert ok, (stat, bound)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8, np.uint32])
def test_integers_uniformity(dtype):
    x = npx.random.default_rng(107).integers(3, 20, N, dtype=dtype).to_host()
    assert x.dtype == dtype and x.min() == 3 and x.max() == 19
    ok, stat, bound = chi_square_ok(np.bincount(x.astype(np.int64) - 3), np.full(17, N / 17))
    assert ok, (stat, bound)


def test_integers_huge_range_is_uniform():
    # a range of 3 * 2**61: a biased bounded draw would favour the lower two thirds
    high = 3 * 2**61
    x = npx.random.default_rng(108).integers(0, high, N).to_host()
    ok, stat, bound = chi_square_ok(np.bincount((x // (high // 6)).astype(np.int64),
                                                minlength=6)[:6], np.full(6, N / 6))
    assert ok, (stat, bound)


def test_permutation_positions_are_uniform():
    g = npx.random.default_rng(109)
    n, rounds = 6, 6000
    counts = np.zeros((n, n))
    for _ in range(rounds):
        p = g.permutation(n).to_host()
        assert sorted(p) == list(range(n))
        counts[np.arange(n), p] += 1  # counts[position, value]
    ok, stat, bound = chi_square_ok(counts.ravel(), np.full(n * n, rounds / n))
    assert ok, (stat, bound)


def test_large_permutation_is_valid_and_mixed():
    p = npx.random.default_rng(110).permutation(N).to_host()
    assert np.array_equal(np.sort(p), np.arange(N))
    # positions and values uncorrelated
    assert abs(np.corrcoef(np.arange(N), p)[0, 1]) < 5 / math.sqrt(N)


def test_choice_with_p_frequencies():
    p = np.array([0.1, 0.0, 0.2, 0.3, 0.4])
    x = npx.random.default_rng(111).choice(5, N, p=p).to_host()
    counts = np.bincount(x, minlength=5)
    assert counts[1] == 0
    ok, stat, bound = chi_square_ok(counts[p > 0], N * p[p > 0])
    assert ok, (stat, bound)


def test_choice_uniform_frequencies():
    x = npx.random.default_rng(112).choice(7, N).to_host()
    ok, stat, bound = chi_square_ok(np.bincount(x, minlength=7), np.full(7, N / 7))
    assert ok, (stat, bound)


def test_choice_without_replacement_with_p_first_pick_follows_p():
    # successive sampling: the first item drawn has law p, as NumPy's choice
    p = np.array([0.5, 0.25, 0.125, 0.125])
    g = npx.random.default_rng(113)
    rounds = 2000
    first = np.array([g.choice(4, 2, replace=False, p=p).to_host()[0] for _ in range(rounds)])
    ok, stat, bound = chi_square_ok(np.bincount(first, minlength=4), rounds * p)
    assert ok, (stat, bound)
