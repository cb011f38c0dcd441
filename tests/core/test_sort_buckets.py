"""The bucketed kernel paths of long lines against NumPy: aclnnSort / aclnnArgsort
of lines of 2**14 elements and more with keys of up to 32 bits (every such dtype,
both orders, stability, NaN / signed zeros / infinities, skewed data that fills
one bucket, non-contiguous lines), aclnnUnique2 of 4-byte values with many
distinct ones (values, counts, the first zero's sign, NaNs apart), and
intersect1d built on it."""
import ml_dtypes
import numpy as np
import pytest

import npuarray as npx

BF16 = np.dtype(ml_dtypes.bfloat16)
NARROW = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32",
                                "float16", "float32")] + [BF16]
# around the shortest bucketed line (2**14), odd, and 2**k +- 1
SIZES = [(1 << 14) - 1, 1 << 14, (1 << 14) + 1, (1 << 17) + 3]


def _tied(rng, n, dtype):
    """Values with many ties; floats add NaNs, both zeros and infinities."""
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        wide = rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64 if dtype != np.uint32
                            else np.uint64)
        return np.where(rng.random(n) < 0.5, wide, rng.integers(0, 5, n)).astype(dtype)
    a = rng.integers(-40, 40, n) / 4.0
    a[rng.random(n) < 0.05] = np.nan
    a[rng.random(n) < 0.05] = -0.0
    a[rng.random(n) < 0.05] = 0.0
    a[rng.random(n) < 0.02] = np.inf
    a[rng.random(n) < 0.02] = -np.inf
    return a.astype(dtype)


def _host(a):
    return a.astype(np.float32) if a.dtype == BF16 else a


def _expected_order(a, descending):
    """NumPy's stable order for the standard's ascending / descending sort, NaN last."""
    h = _host(a)
    if not descending:
        return np.argsort(h, kind="stable")
    if h.dtype.kind == "f":
        return np.argsort(-h, kind="stable")
    _, rank = np.unique(h, return_inverse=True)
    return np.argsort(-rank, kind="stable")


def _bits(a):
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.itemsize > 1 else a.view(np.uint8)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", NARROW, ids=str)
@pytest.mark.parametrize("descending", [False, True])
def test_long_line_sort_and_argsort(rng, dtype, n, descending):
    a = _tied(rng, n, dtype)
    x = npx.asarray(a)
    order = _expected_order(a, descending)
    np.testing.assert_array_equal(npx.argsort(x, descending=descending).to_host(), order)
    # the input's own bits in the stable order: signed zeros and NaN payloads kept
    np.testing.assert_array_equal(_bits(npx.sort(x, descending=descending).to_host()),
                                  _bits(a[order]))


@pytest.mark.parametrize("values", ["uniform [1, 2)", "one value", "two values", "normal"])
def test_skewed_lines_fill_single_buckets(rng, values):
    n = (1 << 18) + 1
    a = {"uniform [1, 2)": lambda: rng.uniform(1, 2, n),
         "one value": lambda: np.full(n, 3.5),
         "two values": lambda: rng.choice([-1.0, 1e30], n),
         "normal": lambda: rng.standard_normal(n)}[values]().astype(np.float32)
    x = npx.asarray(a)
    order = np.argsort(a, kind="stable")
    np.testing.assert_array_equal(npx.argsort(x).to_host(), order)
    np.testing.assert_array_equal(npx.sort(x).to_host(), a[order])


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint16"])
def test_non_contiguous_long_lines(rng, dtype):
    a = _tied(rng, 3 * 40001, np.dtype(dtype)).reshape(40001, 3)
    x = npx.asarray(a)
    for view, host in ((x[::-2, 1], a[::-2, 1]), (x, a)):
        order = np.argsort(host, axis=0, kind="stable")
        np.testing.assert_array_equal(npx.argsort(view, axis=0).to_host(), order)
        np.testing.assert_array_equal(_bits(npx.sort(view, axis=0).to_host()),
                                      _bits(np.take_along_axis(host, order, axis=0)))


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32"])
@pytest.mark.parametrize("n", [(1 << 16) + 1, 1 << 18])
def test_unique_of_many_distinct_values(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = (rng.integers(-(1 << 16), 1 << 16, n) / 8).astype(dtype)
        a[rng.random(n) < 0.01] = np.nan
        a[rng.random(n) < 0.01] = 0.0
        a[np.flatnonzero(a == 0)[0]] = -0.0  # the first zero decides the sign
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64 if dtype.kind == "i"
                         else np.uint64).astype(dtype)
        a[1::2] = a[0:-1:2]  # repeats
    want, want_counts = np.unique(a, return_counts=True, equal_nan=False)
    x = npx.asarray(a)
    values = npx.unique_values(x).to_host()
    np.testing.assert_array_equal(values, want)
    got, counts = npx.unique_counts(x)
    np.testing.assert_array_equal(got.to_host(), want)
    np.testing.assert_array_equal(counts.to_host(), want_counts)
    if dtype.kind == "f":
        assert np.signbit(values[want == 0]).all()
        strided = npx.unique_values(npx.asarray(np.repeat(a, 2))[::2]).to_host()
        np.testing.assert_array_equal(strided, want)


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "float16"])
@pytest.mark.parametrize("n", [0, 1, 4097, (1 << 17) + 1])
def test_intersect1d_matches_numpy(rng, dtype, n):
    scale = 16 if dtype == "float16" else 2  # within float16's range
    a = (rng.integers(-n, n + 1, n) / scale).astype(dtype)
    b = (rng.integers(-n, n + 1, n // 2 + 1) / scale).astype(dtype)
    if n > 10 and a.dtype.kind == "f":
        a[::50], b[::40] = np.nan, np.nan
        a[a == 0], b[b == 0] = -0.0, 0.0
        a[1], b[1] = -0.0, 0.0
    got = npx.intersect1d(npx.asarray(a), npx.asarray(b)).to_host()
    want = np.intersect1d(a, b)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    if n > 10 and a.dtype.kind == "f":  # a zero found in both keeps the first array's sign
        assert np.signbit(got[got == 0]).tolist() == [True]
    ua, ub = np.unique(a), np.unique(b)
    np.testing.assert_array_equal(
        npx.intersect1d(npx.asarray(ua), npx.asarray(ub), assume_unique=True).to_host(),
        np.intersect1d(ua, ub, assume_unique=True))
