"""Order statistics against NumPy, exactly, on adversarial inputs: median, percentile, quantile
(aclnnKthvalue), histogram (aclnnSearchSorted + aclnnBincount), unique with counts
(aclnnUnique2's hashing), on lines short and long enough for npusim's threaded paths, and the
operators through the C ABI plain and under the sanitizers (tests/npusim/c/aclnn_order_stats.cpp)."""
import warnings

import numpy as np
import pytest

import npuarray as npx

LONG = 1 << 17  # longer than the lines npusim selects by sampling and radix digits


def assert_exact(result, expected):
    """``result`` (an NPUArray or a tuple of them) equals ``expected`` bit for bit in value
    (NaN equal to NaN, -0.0 to 0.0), shape and dtype."""
    if isinstance(expected, tuple):
        assert len(result) == len(expected)
        for r, e in zip(result, expected):
            assert_exact(r, e)
        return
    host = np.asarray(result)
    expected = np.asarray(expected)
    assert host.shape == expected.shape, (host.shape, expected.shape)
    assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    np.testing.assert_array_equal(host, expected)


def adversarial(rng, n, dtype):
    """name -> 1-D host array of n elements of dtype."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        spread = rng.standard_normal(n).astype(dtype)
        with_nan = spread.copy()
        with_nan[n // 3] = np.nan
        signed = rng.choice(np.array([-0.0, 0.0, 1.5, -np.inf, np.inf], dtype), n)
    else:
        info = np.iinfo(dtype)
        spread = rng.integers(max(info.min, -1000), min(info.max, 1000), n,
                              endpoint=True).astype(dtype)
        with_nan = spread
        signed = rng.choice(np.array([info.min, info.max, 0], dtype), n)
    return {"spread": spread, "nan": with_nan, "signed": signed, "equal": np.full(n, spread[0]),
            "sorted": np.sort(spread), "reversed": np.sort(spread)[::-1].copy(),
            "few": rng.integers(0, 3, n).astype(dtype)}


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return function(*args, **kwargs)


DTYPES = ["float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [LONG, LONG + 1])
def test_median_and_percentile_long_lines(dtype, n, rng):
    for name, a in adversarial(rng, n, dtype).items():
        x = npx.asarray(a)
        assert_exact(quiet(np.median, x), quiet(np.median, a))
        assert_exact(quiet(np.percentile, x, [5, 50, 95]), quiet(np.percentile, a, [5, 50, 95]))
        assert_exact(quiet(np.quantile, x, 0.999, method="nearest"), quiet(np.quantile, a, 0.999,
                                                                    method="nearest"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7])
def test_median_and_percentile_tiny(dtype, n, rng):
    for name, a in adversarial(rng, n, dtype).items():
        x = npx.asarray(a)
        assert_exact(quiet(np.median, x), quiet(np.median, a))
        for method in ["linear", "lower", "higher", "nearest", "midpoint"]:
            assert_exact(quiet(np.percentile, x, [0, 5, 50, 95, 100], method=method),
                  quiet(np.percentile, a, [0, 5, 50, 95, 100], method=method))


def test_median_of_nothing_is_nan_as_numpy():
    a = np.zeros(0, np.float32)
    assert_exact(quiet(np.median, npx.asarray(a)), quiet(np.median, a))


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
@pytest.mark.parametrize("axis", [0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_median_percentile_axis_keepdims(dtype, axis, keepdims, rng):
    a = rng.integers(-50, 50, (6, 9)).astype(dtype)
    if dtype.startswith("float"):
        a[2, 3] = np.nan
        a[0, :] = -0.0
    x = npx.asarray(a)
    assert_exact(quiet(np.median, x, axis=axis, keepdims=keepdims),
          quiet(np.median, a, axis=axis, keepdims=keepdims))
    assert_exact(quiet(np.percentile, x, [10, 90], axis=axis, keepdims=keepdims),
          quiet(np.percentile, a, [10, 90], axis=axis, keepdims=keepdims))


def test_median_even_count_is_numpys_mean_of_the_middles():
    """NumPy halves the sum of the two middle elements: at float32's top that sum overflows."""
    big = np.finfo(np.float32).max
    for a in [np.array([big, big, 0, big], np.float32),
              np.array([1, 1 + 3 * 2.0 ** -23], np.float32),
              np.array([2, 3], np.float16), np.array([2 ** 62, 2 ** 62 + 1], np.int64)]:
        assert_exact(quiet(np.median, npx.asarray(a)), quiet(np.median, a))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "int64"])
@pytest.mark.parametrize("bins", [1, 10, 100, 1000])
def test_histogram_uniform_bins(dtype, bins, rng):
    for name, a in adversarial(rng, LONG, dtype).items():
        if dtype.startswith("float") and name in ("nan", "signed"):
            a = a[np.isfinite(a)] if name == "signed" else a
            ranges = [(-1.0, 1.0), (0.0, 1.5)]
        else:
            ranges = [None, (-1.0, 1.0)]
        x = npx.asarray(a)
        for range_ in ranges:
            assert_exact(np.histogram(x, bins, range=range_), np.histogram(a, bins, range=range_))


def test_histogram_edges_inclusive_and_outside(rng):
    edges_hit = np.linspace(-2, 2, 41).astype(np.float32)  # every edge, the last one included
    outside = np.array([np.nan, np.inf, -np.inf, 2.0001, -2.0001, -0.0], np.float32)
    a = np.concatenate([edges_hit, outside, rng.uniform(-3, 3, 5000).astype(np.float32)])
    for bins in [4, 40, 7]:
        assert_exact(np.histogram(npx.asarray(a), bins, range=(-2, 2)),
              np.histogram(a, bins, range=(-2, 2)))
    weights = rng.random(a.size)
    got = np.histogram(npx.asarray(a), 40, range=(-2, 2), weights=npx.asarray(weights))
    want = np.histogram(a, 40, range=(-2, 2), weights=weights)
    np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=1e-13)
    assert_exact(got[1], want[1])


def test_histogram_largest_float_edge_as_numpy():
    top = np.finfo(np.float32).max
    a = np.array([0, top, top / 2, np.inf], np.float32)
    assert_exact(np.histogram(npx.asarray(a), 3, range=(0, float(top))),
          np.histogram(a, 3, range=(0, float(top))))


def test_histogram_tiny_sizes():
    for a in [np.zeros(0, np.float32), np.array([3.0], np.float32), np.array([1, 2], np.int8)]:
        assert_exact(np.histogram(npx.asarray(a), 5), np.histogram(a, 5))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint8", "int32",
                                   "int64", "uint64", "bool"])
def test_unique_counts_long(dtype, rng):
    cases = adversarial(rng, LONG, dtype) if dtype != "bool" else {
        "bits": rng.integers(0, 2, LONG).astype(bool), "equal": np.ones(LONG, bool)}
    for name, a in cases.items():
        x = npx.asarray(a)
        assert_exact(np.unique(x, return_counts=True), np.unique(a, return_counts=True))
        values, counts = npx.unique_counts(x)
        want_values, want_counts = np.unique(a, return_counts=True, equal_nan=False)
        assert_exact((values, counts), (want_values, want_counts))


def test_unique_counts_zeros_nans_and_many_distinct(rng):
    a = np.array([0.0, -0.0, np.nan, 1.0, np.nan, -0.0] * 5000, np.float32)
    values, counts = npx.unique_counts(npx.asarray(a))
    assert_exact((values, counts), np.unique(a, return_counts=True, equal_nan=False))
    assert not np.signbit(np.asarray(values)[0])  # the first zero of the input is +0.0
    assert_exact(np.unique(npx.asarray(a[1:]), return_counts=True), np.unique(a[1:], return_counts=True))
    assert np.signbit(np.asarray(npx.unique_counts(npx.asarray(a[1:]))[0])[0])
    distinct = rng.permutation(np.arange(1 << 21, dtype=np.float32))  # beyond the hash tables
    assert_exact(np.unique(npx.asarray(distinct), return_counts=True),
          np.unique(distinct, return_counts=True))
    for tiny in [np.zeros(0, np.float32), np.array([np.nan]), np.array([2, 1], np.int16)]:
        assert_exact(np.unique(npx.asarray(tiny), return_counts=True), np.unique(tiny, return_counts=True))


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["release", "asan", "tsan"])
def test_c_program_order_stats(variant):
    """tests/npusim/c/aclnn_order_stats.cpp: aclnnKthvalue, aclnnUnique2, aclnnSearchSorted and
    aclnnBincount on long lines against sorted copies; no leak, overrun (asan) or data race
    (tsan) in their threaded paths."""
    from cbuild import run_program_or_skip
    out = run_program_or_skip("aclnn_order_stats.cpp", variant=variant, timeout=600)
    assert "aclnn_order_stats ok" in out
