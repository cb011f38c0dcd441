"""digitize, histogram_bin_edges, histogramdd, histogram2d and the bin estimators of
histogram (npuarray._statistics) against NumPy."""
import warnings

import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import assert_matches, up

DTYPES = ["float16", "float32", "float64", "int8", "int32", "int64", "uint8", "uint32"]


def _data(rng, shape, dtype):
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, 20, shape).astype(dtype)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-10, 10, shape).astype(dtype)
    return (rng.normal(size=shape) * 4).astype(dtype)


def _edges(dtype):
    return np.array([1, 3, 9, 12] if np.dtype(dtype).kind == "u" else [-3, -1, 0, 2, 5],
                    dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("right", [False, True])
def test_digitize_matches_numpy(dtype, right, rng):
    x, bins = _data(rng, (6, 7), dtype), _edges(dtype)
    assert_matches(npx.digitize(up(x), up(bins), right=right), np.digitize(x, bins, right=right))
    decreasing = bins[::-1].copy()
    assert_matches(npx.digitize(up(x), up(decreasing), right=right),
                   np.digitize(x, decreasing, right=right))


def test_digitize_mixed_dtypes_nan_and_errors():
    x = np.array([0.5, np.nan, -np.inf, 3.0, 2.0])
    bins = np.array([0, 1, 2, 3], dtype=np.int32)
    assert_matches(npx.digitize(up(x), up(bins)), np.digitize(x, bins))
    assert_matches(npx.digitize(2.5, up(bins)), np.digitize(2.5, bins))
    with pytest.raises(ValueError, match="monotonically"):
        npx.digitize(up(x), up(np.array([0.0, 2.0, 1.0])))
    with pytest.raises(ValueError):
        npx.digitize(up(x), up(np.ones((2, 2))))
    with pytest.raises(TypeError):
        npx.digitize(up(np.array([1j])), up(bins))


@pytest.mark.parametrize("dtype", DTYPES)
def test_histogram_bin_edges_matches_numpy(dtype, rng):
    a = _data(rng, (50,), dtype)
    assert_matches(npx.histogram_bin_edges(up(a), 7), np.histogram_bin_edges(a, 7), rtol=0)
    assert_matches(npx.histogram_bin_edges(up(a), 4, range=(0, 3)),
                   np.histogram_bin_edges(a, 4, range=(0, 3)), rtol=0)
    assert_matches(npx.histogram_bin_edges(up(a), [0, 1, 2]),
                   np.histogram_bin_edges(a, [0, 1, 2]))
    same = np.full(5, 3, dtype=dtype)
    assert_matches(npx.histogram_bin_edges(up(same), 2), np.histogram_bin_edges(same, 2))


def test_histogram_bin_edges_errors():
    a = up(np.arange(5.0))
    with pytest.raises(ValueError):
        npx.histogram_bin_edges(a, 0)
    with pytest.raises(ValueError):
        npx.histogram_bin_edges(a, [2, 1, 3])
    with pytest.raises(ValueError):
        npx.histogram_bin_edges(a, 3, range=(2, 1))
    with pytest.raises(TypeError):
        npx.histogram_bin_edges(a, 2.5)


def _matches_histogram(result, expected, rtol=0):
    hist, edges = result
    assert_matches(hist, expected[0], rtol=rtol, atol=rtol)
    assert len(edges) == len(expected[1])
    for got, want in zip(edges, expected[1]):
        assert_matches(got, want, rtol=0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_histogramdd_matches_numpy(dtype, rng):
    s = _data(rng, (80, 3), dtype)
    _matches_histogram(npx.histogramdd(up(s), bins=(3, 4, 5)), np.histogramdd(s, bins=(3, 4, 5)))
    _matches_histogram(npx.histogramdd([up(s[:, 0]), up(s[:, 1])], bins=4),
                       np.histogramdd([s[:, 0], s[:, 1]], bins=4))
    w = rng.uniform(size=80)
    ranges = [(-1, 1), (0, 2), (-3, 3)]
    with np.errstate(invalid="ignore"):  # unsigned samples: no weight inside the ranges
        expected = np.histogramdd(s, bins=4, range=ranges, weights=w, density=True)
    _matches_histogram(npx.histogramdd(up(s), bins=4, range=ranges, weights=up(w), density=True),
                       expected, rtol=1e-12)
    edges = [np.array([-2, 0, 1, 4]), 3, up(np.array([-5.0, 0.0, 5.0]))]
    _matches_histogram(npx.histogramdd(up(s), bins=[up(edges[0]), 3, edges[2]]),
                       np.histogramdd(s, bins=[edges[0], 3, edges[2].to_host()]))


def test_histogramdd_outliers_nan_and_errors(rng):
    s = rng.normal(size=(30, 2))
    s[0, 0], s[1, 1] = np.nan, 1.0
    _matches_histogram(npx.histogramdd(up(s), bins=3, range=[(-1, 1), (-1, 1)]),
                       np.histogramdd(s, bins=3, range=[(-1, 1), (-1, 1)]))
    with pytest.raises(ValueError):
        npx.histogramdd(up(s), bins=[2, 2, 2])
    with pytest.raises(ValueError):
        npx.histogramdd(up(s), range=[(0, 1)])
    with pytest.raises(ValueError):
        npx.histogramdd(up(s), bins=[0, 2])
    with pytest.raises(ValueError):
        npx.histogramdd(up(s), bins=[up(np.array([1.0, 0.0])), 2])
    with pytest.raises(ValueError):
        npx.histogramdd(up(s), weights=up(np.ones(3)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_histogram2d_matches_numpy(dtype, rng):
    s = _data(rng, (60, 2), dtype)
    x, y = s[:, 0], s[:, 1]
    for bins in (5, [3, 4], [3, np.array([-2, 0, 1, 4])], np.array([-3.0, 0.0, 3.0, 6.0])):
        device_bins = [bins[0], up(bins[1])] if isinstance(bins, list) and \
            isinstance(bins[1], np.ndarray) else (up(bins) if isinstance(bins, np.ndarray)
                                                  else bins)
        hist, xedges, yedges = npx.histogram2d(up(x), up(y), bins=device_bins)
        expected = np.histogram2d(x, y, bins=bins)
        assert_matches(hist, expected[0])
        assert_matches(xedges, expected[1], rtol=0)
        assert_matches(yedges, expected[2], rtol=0)
    hist, _, _ = npx.histogram2d(up(x), up(y), bins=4, density=True, weights=up(np.abs(x) + 1))
    assert_matches(hist, np.histogram2d(x, y, bins=4, density=True, weights=np.abs(x) + 1)[0],
                   rtol=1e-6)
    with pytest.raises(ValueError):
        npx.histogram2d(up(x), up(y[:5]))


@pytest.mark.parametrize("bins", [[-3, 0, 1, 4], np.array([-3, 0.1, 1, 4]),
                                  np.array([-3, 0, 2], np.int8)])
@pytest.mark.parametrize("density", [False, True])
def test_histogram_returns_given_edges_in_their_dtype(bins, density, rng):
    a = (rng.normal(size=100) * 3).astype(np.float32)
    device_bins = up(bins) if isinstance(bins, np.ndarray) else bins
    hist, edges = npx.histogram(up(a), device_bins, density=density)
    want_hist, want_edges = np.histogram(a, bins, density=density)
    assert_matches(hist, want_hist)
    assert_matches(edges, want_edges)


ESTIMATORS = ["auto", "fd", "doane", "rice", "scott", "sqrt", "sturges", "stone"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_bin_estimators_match_numpy(estimator, dtype, rng):
    a = (rng.normal(size=2000) * 20 + (0 if dtype.startswith("float") else 100)).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # stone's "may be suboptimal"
        for options in ({}, {"range": (-5, 50)}):
            want_edges = np.histogram_bin_edges(a, estimator, **options)
            assert_matches(npx.histogram_bin_edges(up(a), estimator, **options), want_edges,
                           rtol=1e-12)
            hist, edges = npx.histogram(up(a), estimator, **options)
            want_hist, _ = np.histogram(a, estimator, **options)
            assert_matches(hist, want_hist)
            assert_matches(edges, want_edges, rtol=1e-12)


def test_bin_estimators_edge_cases_and_errors():
    for values in (np.ones(5), np.zeros(0), np.array([1.0, 2.0])):
        for estimator in ("auto", "doane", "stone"):
            assert_matches(npx.histogram_bin_edges(up(values), estimator),
                           np.histogram_bin_edges(values, estimator))
    with pytest.raises(ValueError, match="not a valid estimator"):
        npx.histogram(up(np.ones(3)), "bogus")
    with pytest.raises(TypeError):
        np.histogram(np.ones(3), "auto", weights=np.ones(3))
    with pytest.raises(TypeError):
        npx.histogram(up(np.ones(3)), "auto", weights=up(np.ones(3)))
