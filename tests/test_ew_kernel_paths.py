"""The fast paths of npusim's element-wise engine against NumPy.

* float32 transcendentals (kernels/ops/ew_vmath.c): error in ULPs against float64 NumPy over
  wide ranges, special values in every vector lane, huge sin/cos/tan arguments (the libm
  fallback) mixed into vector blocks, sizes around the vector widths and the thread split;
"""
import numpy as np
import pytest

import npuarray as npx

VMATH = ["sin", "cos", "tan", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
         "sinh", "cosh", "tanh"]
# Within 1 ULP (most results are correctly rounded; huge sin/cos arguments go to libm, which
# is not always); tan divides two polynomials (two roundings). NumPy's own float32 kernels
# reach 1.5-3.8 ULP.
MAX_ULP = {"tan": 1.5}
DEFAULT_ULP = 1.0
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45, 1e-38,
                     3.4028235e38, -3.4028235e38, 88.72, 89.0, -103.0, -104.0, 1e5, 3e5, 1e30,
                     -1e30, 0.5, -0.5, 1e-7, -1e-7], dtype=np.float32)
SIZES_AROUND_SPLITS = [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 255, 256, 257, 511, 65535, 65536,
                       65537, 131073]


def ulp_error(got, x, name):
    """|got - f(x)| in float32 ULPs of the exact (float64) result; 0 where both are the same
    special value."""
    with np.errstate(all="ignore"):
        exact = getattr(np, name)(x.astype(np.float64))
        rounded = exact.astype(np.float32)
        spacing = np.spacing(np.abs(rounded)).astype(np.float64)
        err = np.abs(got.astype(np.float64) - exact) / spacing
    same = (got == rounded) | (np.isnan(got) & np.isnan(rounded))
    return np.where(same, 0.0, err)


def random_floats(rng, n):
    """Finite float32 values of every exponent: random bit patterns."""
    bits = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return bits[np.isfinite(bits)]


def inputs_for(name, rng):
    wide = random_floats(rng, 200_000)
    moderate = rng.uniform(-30, 30, 100_000).astype(np.float32)
    tiny = rng.uniform(-1e-4, 1e-4, 20_000).astype(np.float32)
    arrays = [wide, moderate, tiny]
    if name in ("sin", "cos", "tan"):  # both sides of the reduction's limit (2^18)
        arrays.append(rng.uniform(-6e5, 6e5, 100_000).astype(np.float32))
    return np.concatenate(arrays)


@pytest.mark.parametrize("name", VMATH)
def test_float32_transcendental_ulp_error(name, rng):
    x = inputs_for(name, rng)
    got = getattr(npx, name)(npx.asarray(x)).to_host()
    err = ulp_error(got, x, name)
    worst = int(np.argmax(err))
    assert err[worst] <= MAX_ULP.get(name, DEFAULT_ULP), (name, x[worst], got[worst])


@pytest.mark.parametrize("name", VMATH)
def test_float32_transcendental_special_values_in_every_lane(name, rng):
    # Each special value at each position of a 64-element block: every SIMD lane and the tail.
    n = 64 + 13
    for value in SPECIALS:
        x = rng.uniform(-2, 2, n).astype(np.float32)
        positions = np.arange(0, n, 5)
        x[positions] = value
        got = getattr(npx, name)(npx.asarray(x)).to_host()
        with np.errstate(all="ignore"):
            want = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
        for p in positions:
            if np.isnan(want[p]) or np.isinf(want[p]) or want[p] == 0:
                np.testing.assert_array_equal(got[p], want[p])
                assert np.signbit(got[p]) == np.signbit(want[p]) or np.isnan(want[p]), (name, value, p)
        assert ulp_error(got, x, name).max() <= MAX_ULP.get(name, DEFAULT_ULP), (name, value)


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trigonometric_huge_arguments_mixed_into_vector_blocks(name, rng):
    # Blocks with one out-of-range argument take the element-by-element path; the others stay
    # vectorised. Both must agree with the exact result.
    x = rng.uniform(-10, 10, 1024).astype(np.float32)
    x[[3, 300, 700]] = np.float32([1e6, -3.0e38, 262145.0])
    x[[4, 5]] = np.float32([np.inf, np.nan])
    got = getattr(npx, name)(npx.asarray(x)).to_host()
    assert ulp_error(got, x, name).max() <= MAX_ULP.get(name, DEFAULT_ULP)
    assert np.isnan(got[4]) and np.isnan(got[5])


@pytest.mark.parametrize("n", SIZES_AROUND_SPLITS)
@pytest.mark.parametrize("name", ["sin", "exp", "log", "tanh"])
def test_float32_transcendental_sizes_around_vector_and_thread_splits(name, n, rng):
    x = rng.uniform(0.01, 20, n).astype(np.float32)
    got = getattr(npx, name)(npx.asarray(x)).to_host()
    assert got.shape == (n,)
    assert ulp_error(got, x, name).max() <= MAX_ULP.get(name, DEFAULT_ULP)


@pytest.mark.parametrize("name", ["cos", "log1p", "expm1"])
def test_float32_transcendental_strided_0d_and_empty(name, rng):
    base = rng.uniform(0.0, 3.0, (40, 30)).astype(np.float32)
    x = npx.asarray(base)
    f = getattr(npx, name)
    for view, host in [(x.T, base.T), (x[::-3, ::2], base[::-3, ::2]), (x[5], base[5])]:
        got = f(view).to_host()
        assert got.shape == host.shape
        assert ulp_error(got, np.ascontiguousarray(host), name).max() <= DEFAULT_ULP
    zero_d = f(npx.asarray(np.float32(0.75))).to_host()
    assert zero_d.shape == () and ulp_error(np.atleast_1d(zero_d), np.float32([0.75]), name).max() <= DEFAULT_ULP
    assert f(npx.asarray(np.empty((0, 3), np.float32))).shape == (0, 3)


@pytest.mark.parametrize("name", ["sin", "exp", "log"])
def test_float16_goes_through_the_float32_kernels(name, rng):
    x = rng.uniform(0.1, 5, 1000).astype(np.float16)
    got = getattr(npx, name)(npx.asarray(x)).to_host()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, getattr(np, name)(x.astype(np.float64)).astype(np.float16))
