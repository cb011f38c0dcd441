"""NumPy's reductions and statistics (npuarray._statistics, npuarray._math) against NumPy."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from _numpy_names_helpers import FLOAT_DTYPES, NUMERIC_DTYPES, assert_matches, sample, up, views


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return function(*args, **kwargs)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_amax_amin_ptp(dtype, axis, rng):
    a = sample(rng, (4, 5), dtype)
    for host, x in views(a):
        assert_matches(npx.amax(x, axis), np.amax(host, axis))
        assert_matches(npx.amin(x, axis=axis, keepdims=True), np.amin(host, axis=axis, keepdims=True))
        if dtype.startswith("float") or dtype.startswith("int"):
            assert_matches(npx.ptp(x, axis), np.ptp(host, axis))
    assert_matches(npx.amax(up(a), axis, initial=np.array(7, dtype).item()),
          np.amax(a, axis, initial=np.array(7, dtype).item()))


def test_amax_errors_and_out():
    x = up(np.arange(6.0).reshape(2, 3))
    with pytest.raises((ValueError, IndexError)):
        npx.amax(x, axis=2)
    with pytest.raises(ValueError, match="initial"):  # as NumPy: no identity
        npx.amax(x, where=x > 1)
    assert_matches(npx.amax(x, axis=1, where=x > 1, initial=-1.0),
                   np.amax(np.arange(6.0).reshape(2, 3), axis=1, where=np.arange(6.0).reshape(2, 3) > 1,
                           initial=-1.0))
    out = npx.zeros(3)
    assert npx.amax(x, 0, out=out) is out
    assert_matches(out, np.array([3.0, 4.0, 5.0]))
    with pytest.raises(ValueError):
        npx.amax(x, 0, out=npx.zeros(2))


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "uint16", "int64", "float32",
                                   "float64"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumsum_cumprod(dtype, axis, rng):
    a = sample(rng, (3, 4), dtype) if dtype != "float32" else rng.uniform(0.5, 1.5, (3, 4)) \
        .astype(dtype)
    for host, x in views(a):
        assert_matches(npx.cumsum(x, axis), np.cumsum(host, axis), rtol=1e-5)
        assert_matches(npx.cumprod(x, axis), np.cumprod(host, axis), rtol=1e-5)
    assert_matches(npx.cumsum(up(a), axis, dtype=np.float64), np.cumsum(a, axis, dtype=np.float64))
    assert_matches(npx.cumsum(up(np.float64(2.5))), np.cumsum(np.float64(2.5)))
    assert_matches(npx.cumsum(up(np.zeros((0, 3), dtype))), np.cumsum(np.zeros((0, 3), dtype)))


NAN_DATA = np.array([[1.0, np.nan, 3.0, -2.0],
                     [np.nan, np.nan, np.nan, np.nan],
                     [0.5, 2.0, np.nan, 4.0]])


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmax", "nanmin", "nanmean",
                                  "nanvar", "nanstd", "nancumsum", "nancumprod"])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_nan_reductions(name, axis, dtype):
    a = NAN_DATA.astype(dtype)
    tol = 1e-6 if dtype == "float32" else 1e-12
    for host, x in views(a)[:3]:
        assert_matches(getattr(npx, name)(x, axis=axis), quiet(getattr(np, name), host, axis=axis),
              rtol=tol)
    if name not in ("nancumsum", "nancumprod"):
        assert_matches(getattr(npx, name)(up(a), axis=axis, keepdims=True),
              quiet(getattr(np, name), a, axis=axis, keepdims=True), rtol=tol)


@pytest.mark.parametrize("name", ["nansum", "nanmax", "nanmean", "nanvar"])
def test_nan_reductions_of_integers(name, rng):
    a = sample(rng, (3, 4), "int32")
    assert_matches(getattr(npx, name)(up(a), axis=1), getattr(np, name)(a, axis=1), rtol=1e-12)


def test_nanvar_ddof_and_nanargmax():
    a = NAN_DATA[[0, 2]]
    assert_matches(npx.nanvar(up(a), axis=1, ddof=1), np.nanvar(a, axis=1, ddof=1))
    assert_matches(npx.nanstd(up(a), ddof=3, axis=1), quiet(np.nanstd, a, ddof=3, axis=1))
    assert_matches(npx.nanargmax(up(a), axis=1), np.nanargmax(a, axis=1))
    assert_matches(npx.nanargmin(up(a)), np.nanargmin(a))
    with pytest.raises(ValueError, match="All-NaN"):
        npx.nanargmax(up(NAN_DATA), axis=1)
    assert_matches(npx.nanargmax(up(a), axis=1), np.nanargmax(a, axis=1))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_average(axis, rng):
    a = rng.standard_normal((3, 4))
    w = rng.uniform(0.1, 1, (3, 4))
    assert_matches(npx.average(up(a), axis), np.average(a, axis))
    assert_matches(npx.average(up(a), axis, weights=up(w)), np.average(a, axis, weights=w))
    got, total = npx.average(up(a), axis, weights=up(w), returned=True)
    want, want_total = np.average(a, axis, weights=w, returned=True)
    assert_matches(got, want)
    assert_matches(total, want_total)
    got, total = npx.average(up(a), axis, returned=True)
    want, want_total = np.average(a, axis, returned=True)
    assert_matches(got, want)
    assert_matches(total, want_total)
    if axis is not None:
        w1 = w[:, 0] if axis == 0 else w[0]
        assert_matches(npx.average(up(a), axis, weights=up(w1)), np.average(a, axis, weights=w1))
    assert_matches(npx.average(up(a.astype(np.int32)), axis), np.average(a.astype(np.int32), axis))


def test_average_errors():
    x = up(np.ones((3, 4)))
    with pytest.raises(TypeError):
        npx.average(x, weights=up(np.ones(4)))
    with pytest.raises(ValueError):
        npx.average(x, axis=0, weights=up(np.ones(4)))


QUANTILE_METHODS = ["linear", "lower", "higher", "nearest", "midpoint"]


@pytest.mark.parametrize("method", QUANTILE_METHODS)
@pytest.mark.parametrize("q", [0.0, 0.25, 0.5, 0.9, 1.0, [0.1, 0.5, 0.77]])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2)])
def test_quantile(method, q, axis, rng):
    a = rng.standard_normal((4, 5, 3))
    for host, x in views(a)[:3]:
        assert_matches(npx.quantile(x, q, axis=axis, method=method),
              np.quantile(host, q, axis=axis, method=method))
    assert_matches(npx.quantile(up(a), q, axis=axis, method=method, keepdims=True),
          np.quantile(a, q, axis=axis, method=method, keepdims=True))
    assert_matches(npx.percentile(up(a), np.multiply(q, 100), axis=axis, method=method),
          np.percentile(a, np.multiply(q, 100), axis=axis, method=method))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "int64", "bool"])
@pytest.mark.parametrize("shape, axis", [((7,), None), ((6,), 0), ((4, 6), 1), ((4, 6), 0),
                                         ((), None), ((2, 3, 4), (1, 2))])
def test_median(dtype, shape, axis, rng):
    a = sample(rng, shape, dtype)
    if dtype == "bool":
        a = a.astype(np.int8)
    tol = 1e-6 if dtype == "float32" else 1e-12
    assert_matches(npx.median(up(a), axis=axis), np.median(a, axis=axis), rtol=tol)
    assert_matches(npx.median(up(a), axis=axis, keepdims=True), np.median(a, axis=axis, keepdims=True),
          rtol=tol)


def test_median_nan_and_nan_variants():
    a = NAN_DATA
    assert_matches(npx.median(up(a), axis=1), np.median(a, axis=1))
    assert_matches(npx.nanmedian(up(a), axis=1), quiet(np.nanmedian, a, axis=1))
    assert_matches(npx.nanmedian(up(a)), np.nanmedian(a))
    assert_matches(npx.nanquantile(up(a), [0.2, 0.8], axis=0), quiet(np.nanquantile, a, [0.2, 0.8],
                                                            axis=0))
    assert_matches(npx.nanpercentile(up(a), 30, axis=1, method="lower"),
          quiet(np.nanpercentile, a, 30, axis=1, method="lower"))
    assert_matches(npx.median(up(np.zeros((0,)))), quiet(np.median, np.zeros((0,))))


def test_quantile_device_q_and_errors(rng):
    a = rng.standard_normal(10)
    q = np.array([0.3, 0.6])
    assert_matches(npx.quantile(up(a), up(q)), np.quantile(a, q))
    with pytest.raises(ValueError):
        npx.quantile(up(a), 1.5)
    with pytest.raises(ValueError):
        npx.quantile(up(a), up(np.array([-0.1])))
    with pytest.raises(ValueError):
        npx.quantile(up(a), 0.5, method="hazen")
    with pytest.raises(TypeError):
        npx.quantile(up(a + 1j), 0.5)
    with pytest.raises((ValueError, IndexError)):
        npx.median(up(a), axis=1)
    assert_matches(npx.median(up(a)), np.median(a))


@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=30),
       q=st.floats(0, 1))
def test_quantile_matches_numpy(values, q):
    a = np.array(values)
    assert_matches(npx.quantile(up(a), q), np.quantile(a, q), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bins", [1, 3, 10, 64])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_histogram_equal_bins(bins, dtype, rng):
    a = sample(rng, (1000,), dtype)
    hist, edges = npx.histogram(up(a), bins)
    want_hist, want_edges = np.histogram(a, bins)
    assert_matches(hist, want_hist)
    assert_matches(edges, want_edges, rtol=1e-6)
    hist, edges = npx.histogram(up(a), bins, range=(-2, 3))
    want_hist, want_edges = np.histogram(a, bins, range=(-2, 3))
    assert_matches(hist, want_hist)
    assert_matches(edges, want_edges, rtol=1e-6)


def test_histogram_edges_weights_density(rng):
    a = rng.standard_normal((20, 30))
    edges = np.array([-3.0, -1.0, -0.5, 0.0, 2.0, 2.5])
    hist, got_edges = npx.histogram(up(a), up(edges))
    assert_matches(hist, np.histogram(a, edges)[0])
    assert_matches(got_edges, edges)
    assert_matches(npx.histogram(up(a), list(edges))[0], np.histogram(a, edges)[0])
    w = rng.uniform(0, 2, (20, 30))
    assert_matches(npx.histogram(up(a), 7, weights=up(w))[0], np.histogram(a, 7, weights=w)[0])
    assert_matches(npx.histogram(up(a), 7, density=True)[0], np.histogram(a, 7, density=True)[0])
    assert_matches(npx.histogram(up(a.T), 5)[0], np.histogram(a.T, 5)[0])
    same = np.full(5, 2.0)
    assert_matches(npx.histogram(up(same), 4)[0], np.histogram(same, 4)[0])
    assert_matches(npx.histogram(up(np.zeros(0)), 3)[0], np.histogram(np.zeros(0), 3)[0])
    on_edges = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    assert_matches(npx.histogram(up(on_edges), 4)[0], np.histogram(on_edges, 4)[0])


HISTC_DTYPES = ["float32", "int8", "int16", "int32", "int64", "uint8"]


@pytest.mark.parametrize("dtype", HISTC_DTYPES)
def test_histogram_one_pass_matches_numpy(dtype, rng):
    """The dtypes counted by aclnnHistc in one pass: long arrays (several chunks, the
    vectorised path and its tail), values on every edge, ranges not representable in the
    dtype, strided views, 1 to 1000 bins."""
    n = 100_003
    if dtype == "float32":
        a = rng.standard_normal(n).astype(dtype)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(max(info.min, -5000), min(info.max, 5000), n).astype(dtype)
    for bins in (1, 7, 100, 1000):
        edges = np.histogram_bin_edges(a, bins)
        a[:bins + 1] = edges.astype(dtype)  # exactly on the edges (rounded, for integers)
        for range_ in (None, (-2.3, 1.7), (float(a.min()) + 0.1, float(a.max()) - 0.3)):
            want_hist, want_edges = np.histogram(a, bins, range=range_)
            hist, got_edges = npx.histogram(up(a), bins, range=range_)
            assert_matches(hist, want_hist)
            assert_matches(got_edges, want_edges)
        assert_matches(npx.histogram(up(a)[::3], bins)[0], np.histogram(a[::3], bins)[0])
        assert_matches(npx.histogram(up(a.reshape(-1, 1))[1:, 0], bins)[0],
                       np.histogram(a[1:], bins)[0])


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_histogram_one_pass_keeps_weights_density_and_close_edges(dtype, rng):
    a = (rng.standard_normal(20_000) * 50).astype(dtype)
    w = rng.uniform(0, 1, a.shape)
    assert_matches(npx.histogram(up(a), 30, weights=up(w))[0],
                   np.histogram(a, 30, weights=w)[0], rtol=1e-12)
    assert_matches(npx.histogram(up(a), 30, range=(-20, 60), density=True)[0],
                   np.histogram(a, 30, range=(-20, 60), density=True)[0], rtol=1e-12)
    # edges a few float32 ulps apart: NumPy's own arithmetic decides, not the edges
    close = np.float32(1000) + np.arange(-64, 64, dtype=np.float32) * np.spacing(np.float32(1000))
    assert_matches(npx.histogram(up(close), 97)[0], np.histogram(close, 97)[0])
    # NaN beyond an explicit range is not counted, inf neither
    special = np.array([np.nan, np.inf, -np.inf, 0.5, 1.0, 0.0], np.float32)
    assert_matches(npx.histogram(up(special), 4, range=(0, 1))[0],
                   np.histogram(special, 4, range=(0, 1))[0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram_refuses_bins_closer_than_the_dtype_resolves(dtype):
    a = np.array([1.0, 1.0 + 8 * np.finfo(dtype).eps], dtype)
    for function in (np.histogram, np.histogram_bin_edges):
        with pytest.raises(ValueError, match="Too many bins"):
            function(a, 100)
        with pytest.raises(ValueError, match="Too many bins"):
            getattr(npx, function.__name__)(up(a), 100)
        assert_matches(getattr(npx, function.__name__)(up(a), 4)[0], function(a, 4)[0])
    with pytest.raises(ValueError, match="Too many bins"):
        npx.histogram(up(np.zeros(3, dtype)), 1000, range=(1.0, 1.0 + 2 * np.finfo(dtype).eps))


def test_histogram_errors():
    x = up(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="finite"):
        npx.histogram(x)
    with pytest.raises(ValueError):
        npx.histogram(up(np.ones(3)), bins=0)
    with pytest.raises(ValueError):
        npx.histogram(up(np.ones(3)), bins="no-such-estimator")
    with pytest.raises(ValueError):
        npx.histogram(up(np.ones(3)), bins=up(np.array([2.0, 1.0])))
    with pytest.raises(ValueError):
        npx.histogram(up(np.ones(3)), range=(2, 1))
    assert_matches(npx.histogram(up(np.ones(3)))[0], np.histogram(np.ones(3))[0])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "bool"])
def test_bincount(dtype, rng):
    a = rng.integers(0, 9, 50).astype(dtype)
    assert_matches(npx.bincount(up(a)), np.bincount(a))
    assert_matches(npx.bincount(up(a), minlength=20), np.bincount(a, minlength=20))
    w = rng.standard_normal(50)
    assert_matches(npx.bincount(up(a), weights=up(w)), np.bincount(a, weights=w), atol=1e-12)
    assert_matches(npx.bincount(up(a)[::-3]), np.bincount(a[::-3]))
    assert_matches(npx.bincount(up(np.zeros(0, dtype)), minlength=3),
          np.bincount(np.zeros(0, dtype), minlength=3))


def test_bincount_errors():
    with pytest.raises(ValueError):
        npx.bincount(up(np.array([1, -1, 2])))
    with pytest.raises(TypeError):
        npx.bincount(up(np.array([1.0, 2.0])))
    with pytest.raises(ValueError):
        npx.bincount(up(np.ones((2, 2), np.int64)))
    with pytest.raises(ValueError):
        npx.bincount(up(np.arange(3)), weights=up(np.ones(4)))
    with pytest.raises(ValueError):
        npx.bincount(up(np.arange(3)), minlength=-1)
    assert_matches(npx.bincount(up(np.arange(3))), np.bincount(np.arange(3)))


@pytest.mark.parametrize("rowvar", [True, False])
@pytest.mark.parametrize("bias", [False, True])
def test_cov_corrcoef(rowvar, bias, rng):
    a, b = rng.standard_normal((3, 6)), rng.standard_normal((2, 6))
    if not rowvar:
        a, b = a.T.copy(), b.T.copy()
    assert_matches(npx.cov(up(a), rowvar=rowvar, bias=bias), np.cov(a, rowvar=rowvar, bias=bias))
    assert_matches(npx.cov(up(a), up(b), rowvar=rowvar), np.cov(a, b, rowvar=rowvar))
    assert_matches(npx.cov(up(a), rowvar=rowvar, ddof=2), np.cov(a, rowvar=rowvar, ddof=2))
    assert_matches(npx.corrcoef(up(a), rowvar=rowvar), np.corrcoef(a, rowvar=rowvar), atol=1e-14)
    assert_matches(npx.corrcoef(up(a), up(b), rowvar=rowvar), np.corrcoef(a, b, rowvar=rowvar),
          atol=1e-14)


def test_cov_weights_and_shapes(rng):
    a = rng.standard_normal((3, 8))
    f = rng.integers(1, 4, 8)
    aw = rng.uniform(0.1, 1, 8)
    assert_matches(npx.cov(up(a), fweights=up(f)), np.cov(a, fweights=f))
    assert_matches(npx.cov(up(a), aweights=up(aw)), np.cov(a, aweights=aw))
    assert_matches(npx.cov(up(a), fweights=up(f), aweights=up(aw), ddof=0),
          np.cov(a, fweights=f, aweights=aw, ddof=0))
    assert_matches(npx.cov(up(a), fweights=up(f), aweights=up(aw)), np.cov(a, fweights=f, aweights=aw))
    v = rng.standard_normal(8)
    assert_matches(npx.cov(up(v)), np.cov(v))
    assert_matches(npx.cov(up(a.astype(np.int32))), np.cov(a.astype(np.int32)))
    assert_matches(npx.cov(up(a), dtype=np.float32), np.cov(a, dtype=np.float32), rtol=1e-5)
    c = a + 1j * rng.standard_normal((3, 8))
    assert_matches(npx.cov(up(c)), np.cov(c))
    with pytest.raises(ValueError):
        npx.cov(up(np.ones((2, 2, 2))))
    with pytest.raises(ValueError):
        npx.cov(up(a), fweights=up(np.ones(3)))


def test_numpy_signature_reductions_through_numpy(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    x = up(a)
    with npx.transfer_guard("disallow"):
        assert_matches(np.sum(x, 1, np.float64), np.sum(a, 1, np.float64))
        assert_matches(np.mean(x, axis=0, dtype=np.float64), np.mean(a, axis=0, dtype=np.float64),
              rtol=1e-6)
        assert_matches(np.std(x, correction=1), np.std(a, correction=1), rtol=1e-5)
        assert_matches(np.prod(x, 0, initial=2.0), np.prod(a, 0, initial=2.0), rtol=1e-5)
        with pytest.raises(ValueError):
            np.var(x, ddof=1, correction=1)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.uint8])
@pytest.mark.parametrize("q", [50, 50.0, [5, 50], np.float64(50), np.float32(50),
                               np.array([5, 50], np.float32), np.array(50.0)],
                         ids=["int", "float", "list", "f64", "f32", "array-f32", "0d-f64"])
def test_quantile_result_dtype_is_numpys(dtype, q, rng):
    """NumPy 2 promotes ``a`` with ``q`` (a Python number weakly): float32 data with a
    list of percentiles gives float64, with a Python number float32."""
    a = rng.integers(0, 100, 12).astype(dtype)
    for ours, theirs, level in ((npx.percentile, np.percentile, q),
                                (npx.nanpercentile, np.nanpercentile, q),
                                (npx.quantile, np.quantile, np.true_divide(q, 100)
                                 if not isinstance(q, (int, float)) or isinstance(q, np.generic)
                                 else q / 100)):
        expected = theirs(a, level)
        got = ours(up(a), level)
        assert got.dtype == expected.dtype
        assert_matches(got, expected, rtol=2e-3)

