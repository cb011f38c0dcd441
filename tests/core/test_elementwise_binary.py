"""Binary element-wise functions against NumPy: atan2, logaddexp,
copysign, hypot, nextafter, clip, and the uint64 forms of floor_divide,
remainder, pow, maximum and minimum. Every dtype the standard allows,
broadcasting, scalars on either side, 0-d, empty and non-contiguous inputs, the
standard's special cases as tables from the spec text, and bad input."""
import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import npuarray as npx

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_FUNCTIONS = {"atan2": np.arctan2, "logaddexp": np.logaddexp, "copysign": np.copysign,
                   "hypot": np.hypot, "nextafter": np.nextafter}
EXACT = {"copysign", "nextafter"}   # bit-exact results: no tolerance
NAN = float("nan")
INF = float("inf")


def dt(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


def normal(rng, shape, dtype, scale=4.0):
    return (rng.standard_normal(shape) * scale).astype(dt(dtype))


def tolerance(dtype):
    return {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 4e-6}.get(np.dtype(dtype).name
                                                                      if dtype != BF16
                                                                      else "bfloat16", 1e-13)


def assert_matches(result, expected, *, exact=False, nan_sign=False):
    """Same shape, dtype and values (NaN where NumPy has NaN; a relative
    tolerance for the float dtype unless ``exact``, which compares bits, and
    the sign of NaNs with ``nan_sign``)."""
    expected = np.asarray(expected)
    assert isinstance(result, npx.NPUArray)
    assert (result.shape, result.dtype) == (expected.shape, expected.dtype)
    got = result.to_host()
    if exact or expected.dtype.kind in "iub":
        if expected.dtype.kind == "f" or expected.dtype == BF16:
            bits = np.dtype(f"u{expected.dtype.itemsize}")
            same = got.view(bits) == expected.view(bits)
            both_nan = np.isnan(got.astype(np.float64)) & np.isnan(expected.astype(np.float64))
            signs = np.signbit(got.astype(np.float64)) == np.signbit(expected.astype(np.float64))
            assert np.all(same | (both_nan & (signs | (not nan_sign)))), (got, expected)
        else:
            np.testing.assert_array_equal(got, expected)
        return
    rtol = tolerance(expected.dtype)
    np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                               rtol=rtol, atol=rtol, equal_nan=True)


# -- floating functions ---------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(FLOAT_FUNCTIONS))
@pytest.mark.parametrize("dtype", FLOATS)
def test_float_functions_every_dtype(rng, name, dtype):
    a, b = normal(rng, (6, 5), dtype), normal(rng, (6, 5), dtype)
    with np.errstate(all="ignore"):
        expected = FLOAT_FUNCTIONS[name](a, b)
    assert_matches(getattr(npx, name)(npx.asarray(a), npx.asarray(b)), expected, exact=name in EXACT)


@pytest.mark.parametrize("name", sorted(FLOAT_FUNCTIONS))
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "int32",
                                   "int64", "uint64"])
def test_integer_operands_give_numpys_float_dtype(rng, name, dtype):
    if dtype == "bool":
        a, b = rng.random((7,)) < 0.5, rng.random((7,)) < 0.5
    else:
        a = rng.integers(0 if dtype[0] == "u" else -20, 20, size=7).astype(dtype)
        b = rng.integers(0 if dtype[0] == "u" else -20, 20, size=7).astype(dtype)
    with np.errstate(all="ignore"):
        expected = FLOAT_FUNCTIONS[name](a, b)
    assert_matches(getattr(npx, name)(npx.asarray(a), npx.asarray(b)), expected, exact=name in EXACT)


@pytest.mark.parametrize("name", sorted(FLOAT_FUNCTIONS))
def test_float_functions_scalars_broadcast_zero_d_empty(rng, name):
    fn = FLOAT_FUNCTIONS[name]
    exact = name in EXACT
    a, b = normal(rng, (4, 1, 3), "float32"), normal(rng, (5, 1), "float32")
    x, y = npx.asarray(a), npx.asarray(b)
    with np.errstate(all="ignore"):
        assert_matches(getattr(npx, name)(x, y), fn(a, b), exact=exact)
        assert_matches(getattr(npx, name)(x, 1.5), fn(a, np.float32(1.5)), exact=exact)
        assert_matches(getattr(npx, name)(-2.0, y), fn(np.float32(-2.0), b), exact=exact)
        assert_matches(getattr(npx, name)(x, np.float64(0.5)), fn(a, np.float64(0.5)), exact=exact)
        zero = np.array(-1.25, np.float64)
        assert_matches(getattr(npx, name)(npx.asarray(zero), npx.asarray(zero)), fn(zero, zero),
              exact=exact)
        empty = np.zeros((0, 3), np.float32)
        assert_matches(getattr(npx, name)(npx.asarray(empty), x[0]), fn(empty, a[0]), exact=exact)


@pytest.mark.parametrize("name", sorted(FLOAT_FUNCTIONS))
def test_float_functions_non_contiguous(rng, name):
    fn = FLOAT_FUNCTIONS[name]
    a, b = normal(rng, (6, 8), "float64"), normal(rng, (8, 6), "float64")
    x, y = npx.asarray(a), npx.asarray(b)
    with np.errstate(all="ignore"):
        assert_matches(getattr(npx, name)(x.T, y), fn(a.T, b), exact=name in EXACT)
        assert_matches(getattr(npx, name)(x[::2, 1::3], y[1::3, ::2].T), fn(a[::2, 1::3], b[1::3, ::2].T),
              exact=name in EXACT)
        assert_matches(getattr(npx, name)(x[::-1, ::-2], y.T[:, ::-2]), fn(a[::-1, ::-2], b.T[:, ::-2]),
              exact=name in EXACT)


def test_hypot_and_logaddexp_do_not_overflow_or_underflow():
    big = np.array([1e300, -3e307, 1e-310, 3e-320], np.float64)
    x = npx.asarray(big)
    assert_matches(npx.hypot(x, x), np.hypot(big, big))
    assert_matches(npx.logaddexp(x, x[::-1]), np.logaddexp(big, big[::-1]))
    small = np.array([0.0, -40.0, -700.0, 30.0])
    assert_matches(npx.logaddexp(npx.asarray(small), npx.asarray(-small - 1)),
          np.logaddexp(small, -small - 1))
    f32 = np.array([3e38, 1e-40], np.float32)
    assert_matches(npx.hypot(npx.asarray(f32), npx.asarray(f32)), np.hypot(f32, f32))


def test_nextafter_walks_through_subnormals_and_to_infinity():
    a = np.array([0.0, -0.0, 5e-324, np.finfo(np.float64).max, -np.finfo(np.float64).max,
                  1.0, 1.0, np.inf, -np.inf])
    b = np.array([1.0, -1.0, 0.0, np.inf, -np.inf, 2.0, 0.0, 0.0, 0.0])
    assert_matches(npx.nextafter(npx.asarray(a), npx.asarray(b)), np.nextafter(a, b), exact=True)
    h = np.array([0.0, 65504.0, -6e-8, 1.0], np.float16)
    assert_matches(npx.nextafter(npx.asarray(h), np.float16(np.inf)), np.nextafter(h, np.float16(np.inf)),
          exact=True)


def spec_cases():
    """Special cases of the standard's text, one row each: (function, x1, x2, result)."""
    mz = -0.0
    return [
        # atan2 (the standard's list, as C99)
        ("atan2", NAN, 1.0, NAN), ("atan2", 1.0, NAN, NAN),
        ("atan2", 1.0, 0.0, math.pi / 2), ("atan2", 1.0, mz, math.pi / 2),
        ("atan2", 0.0, 1.0, 0.0), ("atan2", 0.0, 0.0, 0.0), ("atan2", 0.0, mz, math.pi),
        ("atan2", 0.0, -1.0, math.pi), ("atan2", mz, 1.0, mz), ("atan2", mz, 0.0, mz),
        ("atan2", mz, mz, -math.pi), ("atan2", mz, -1.0, -math.pi),
        ("atan2", -1.0, 0.0, -math.pi / 2), ("atan2", -1.0, mz, -math.pi / 2),
        ("atan2", 1.0, INF, 0.0), ("atan2", 1.0, -INF, math.pi), ("atan2", -1.0, INF, mz),
        ("atan2", -1.0, -INF, -math.pi), ("atan2", INF, 1.0, math.pi / 2),
        ("atan2", -INF, 1.0, -math.pi / 2), ("atan2", INF, INF, math.pi / 4),
        ("atan2", INF, -INF, 3 * math.pi / 4), ("atan2", -INF, INF, -math.pi / 4),
        ("atan2", -INF, -INF, -3 * math.pi / 4),
        # copysign
        ("copysign", 2.0, -1.0, -2.0), ("copysign", 2.0, mz, -2.0), ("copysign", -2.0, 0.0, 2.0),
        ("copysign", -2.0, 3.0, 2.0), ("copysign", 2.0, -NAN, -2.0), ("copysign", -2.0, NAN, 2.0),
        ("copysign", NAN, -1.0, -NAN), ("copysign", NAN, mz, -NAN), ("copysign", -NAN, 0.0, NAN),
        ("copysign", -NAN, 1.0, NAN), ("copysign", NAN, -NAN, -NAN), ("copysign", -NAN, NAN, NAN),
        # hypot
        ("hypot", INF, NAN, INF), ("hypot", -INF, 1.0, INF), ("hypot", NAN, -INF, INF),
        ("hypot", 0.0, -3.0, 3.0), ("hypot", mz, 2.0, 2.0), ("hypot", -5.0, 0.0, 5.0),
        ("hypot", 1.0, NAN, NAN), ("hypot", NAN, NAN, NAN), ("hypot", NAN, 2.0, NAN),
        # logaddexp
        ("logaddexp", NAN, 1.0, NAN), ("logaddexp", 1.0, NAN, NAN), ("logaddexp", INF, -INF, INF),
        ("logaddexp", INF, 3.0, INF), ("logaddexp", -2.0, INF, INF), ("logaddexp", INF, INF, INF),
        ("logaddexp", -INF, -INF, -INF), ("logaddexp", -INF, 0.0, 0.0),
        # nextafter
        ("nextafter", NAN, 1.0, NAN), ("nextafter", 1.0, NAN, NAN), ("nextafter", mz, 0.0, 0.0),
        ("nextafter", 0.0, mz, mz),
        # floor_divide: the standard's text, not Python's (see floor_divide's docstring)
        ("floor_divide", NAN, 1.0, NAN), ("floor_divide", 1.0, NAN, NAN),
        ("floor_divide", INF, -INF, NAN), ("floor_divide", 0.0, mz, NAN),
        ("floor_divide", 0.0, 2.0, 0.0), ("floor_divide", mz, 2.0, mz),
        ("floor_divide", 0.0, -2.0, mz), ("floor_divide", mz, -2.0, 0.0),
        ("floor_divide", 2.0, 0.0, INF), ("floor_divide", 2.0, mz, -INF),
        ("floor_divide", -2.0, 0.0, -INF), ("floor_divide", -2.0, mz, INF),
        ("floor_divide", INF, 2.0, INF), ("floor_divide", INF, -2.0, -INF),
        ("floor_divide", -INF, 2.0, -INF), ("floor_divide", -INF, -2.0, INF),
        ("floor_divide", 2.0, INF, 0.0), ("floor_divide", 2.0, -INF, mz),
        ("floor_divide", -2.0, INF, mz), ("floor_divide", -2.0, -INF, 0.0),
        ("floor_divide", 7.0, 2.0, 3.0), ("floor_divide", -7.0, 2.0, -4.0),
        # remainder
        ("remainder", NAN, 1.0, NAN), ("remainder", INF, INF, NAN), ("remainder", 0.0, mz, NAN),
        ("remainder", 0.0, 2.0, 0.0), ("remainder", mz, 2.0, 0.0), ("remainder", 0.0, -2.0, mz),
        ("remainder", mz, -2.0, mz), ("remainder", 2.0, 0.0, NAN), ("remainder", -2.0, mz, NAN),
        ("remainder", INF, 2.0, NAN), ("remainder", -INF, -2.0, NAN),
        ("remainder", 2.0, INF, 2.0), ("remainder", 2.0, -INF, -INF),
        ("remainder", -2.0, INF, INF), ("remainder", -2.0, -INF, -2.0),
        # add, subtract, multiply, divide, pow
        ("add", INF, -INF, NAN), ("add", INF, 1.0, INF), ("add", mz, mz, mz), ("add", mz, 0.0, 0.0),
        ("add", 1.0, -1.0, 0.0), ("add", NAN, 1.0, NAN),
        ("subtract", INF, INF, NAN), ("subtract", mz, 0.0, mz), ("subtract", 0.0, 0.0, 0.0),
        ("multiply", INF, 0.0, NAN), ("multiply", -INF, 2.0, -INF), ("multiply", mz, 2.0, mz),
        ("multiply", mz, -2.0, 0.0),
        ("divide", INF, INF, NAN), ("divide", 0.0, 0.0, NAN), ("divide", 1.0, mz, -INF),
        ("divide", -1.0, INF, mz), ("divide", -INF, 2.0, -INF),
        ("pow", NAN, 0.0, 1.0), ("pow", 1.0, NAN, 1.0), ("pow", NAN, 1.0, NAN),
        ("pow", mz, -1.0, -INF), ("pow", mz, -2.0, INF), ("pow", -INF, 3.0, -INF),
        ("pow", -INF, 2.0, INF), ("pow", -1.0, INF, 1.0), ("pow", 2.0, INF, INF),
        ("pow", 0.5, -INF, INF), ("pow", 0.5, INF, 0.0), ("pow", -8.0, 0.5, NAN),
        ("pow", 0.0, 3.0, 0.0), ("pow", mz, 3.0, mz),
        # maximum / minimum propagate NaN
        ("maximum", NAN, 1.0, NAN), ("maximum", 1.0, NAN, NAN),
        ("minimum", NAN, 1.0, NAN), ("minimum", 1.0, NAN, NAN),
    ]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_cases_table(dtype):
    """Each row of the table evaluated together, as arrays and with a scalar x2."""
    rows = spec_cases()
    for name in sorted({row[0] for row in rows}):
        mine = [row for row in rows if row[0] == name]
        x1 = np.array([r[1] for r in mine], dtype)
        x2 = np.array([r[2] for r in mine], dtype)
        want = np.array([r[3] for r in mine], dtype)
        exact, nan_sign = name != "atan2", name == "copysign"
        assert_matches(getattr(npx, name)(npx.asarray(x1), npx.asarray(x2)), want, exact=exact,
              nan_sign=nan_sign)
        for i in range(len(mine)):
            got = getattr(npx, name)(npx.asarray(x1[i:i + 1]), float(x2[i]))
            assert_matches(got, want[i:i + 1], exact=exact, nan_sign=nan_sign)


@settings(max_examples=20, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4),
       name=st.sampled_from(sorted(FLOAT_FUNCTIONS)), dtype=st.sampled_from(["float32", "float64"]),
       seed=st.integers(0, 2**32 - 1))
def test_float_functions_hypothesis_shapes(shapes, name, dtype, seed):
    rng = np.random.default_rng(seed)
    a, b = (normal(rng, s, dtype) for s in shapes.input_shapes)
    assert_matches(getattr(npx, name)(npx.asarray(a), npx.asarray(b)), FLOAT_FUNCTIONS[name](a, b),
          exact=name in EXACT)


@pytest.mark.parametrize("name", sorted(FLOAT_FUNCTIONS))
def test_float_functions_reject_complex_and_host_data(rng, name):
    z = npx.asarray(np.ones(3, np.complex64))
    with pytest.raises(TypeError):
        getattr(npx, name)(z, z)
    x = npx.asarray(normal(rng, (3,), "float32"))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        getattr(npx, name)(x, np.ones(3))  # host data is an implicit upload
    with pytest.raises(TypeError):
        getattr(npx, name)(x, "1")
    scalar = getattr(npx, name)(1.0, 2.0)  # all scalars: a 0-d device array
    np.testing.assert_allclose(scalar.to_host(), FLOAT_FUNCTIONS[name](1.0, 2.0))
    with pytest.raises(ValueError):
        getattr(npx, name)(x, npx.asarray(np.ones(4, np.float32)))
    assert_matches(getattr(npx, name)(x, x), FLOAT_FUNCTIONS[name](x.to_host(), x.to_host()),
          exact=name in EXACT)


# -- clip -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_clip_every_dtype_with_scalar_bounds(rng, dtype):
    d = dt(dtype)
    if d.kind in "iu":
        a = rng.integers(np.iinfo(d).min, np.iinfo(d).max, size=(5, 6), endpoint=True, dtype=d)
        info = np.iinfo(d)
        lo, hi = int(info.min // 3), int(info.max // 3)
    else:
        a = normal(rng, (5, 6), dtype)
        lo, hi = -1.5, 2.0
    x = npx.asarray(a)
    assert_matches(npx.clip(x, lo, hi), np.clip(a, d.type(lo), d.type(hi)).astype(d), exact=True)
    assert_matches(npx.clip(x, min=lo), np.maximum(a, d.type(lo)), exact=True)
    assert_matches(npx.clip(x, max=hi), np.minimum(a, d.type(hi)), exact=True)
    assert_matches(npx.clip(x), a, exact=True)
    assert_matches(npx.clip(x.T[::-1], lo, hi), np.clip(a.T[::-1], d.type(lo), d.type(hi)).astype(d),
          exact=True)


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_clip_array_bounds_broadcast(rng, dtype):
    d = dt(dtype)
    if d.kind in "iu":
        a = rng.integers(0, 100, size=(4, 5)).astype(d)
        lo = rng.integers(0, 50, size=(5,)).astype(d)
        hi = rng.integers(50, 100, size=(4, 1)).astype(d)
    else:
        a, lo, hi = normal(rng, (4, 5), dtype), normal(rng, (5,), dtype) - 1, \
            normal(rng, (4, 1), dtype) + 1
    x = npx.asarray(a)
    assert_matches(npx.clip(x, npx.asarray(lo), npx.asarray(hi)), np.minimum(np.maximum(a, lo), hi),
          exact=True)
    assert_matches(npx.clip(x, npx.asarray(lo)), np.maximum(a, lo), exact=True)
    assert_matches(npx.clip(x, None, npx.asarray(hi)), np.minimum(a, hi), exact=True)
    assert_matches(npx.clip(x, npx.asarray(lo), d.type(60)), np.minimum(np.maximum(a, lo), d.type(60)),
          exact=True)
    assert_matches(npx.clip(x[0], npx.asarray(lo), npx.asarray(hi)),      # bounds broadcast x
          np.minimum(np.maximum(a[0], lo), hi), exact=True)


def test_clip_special_cases_nan_and_crossed_bounds():
    a = np.array([NAN, 1.0, -3.0, 5.0, 0.5])
    x = npx.asarray(a)
    assert_matches(npx.clip(x, 0.0, 2.0), np.array([NAN, 1.0, 0.0, 2.0, 0.5]), exact=True)
    assert_matches(npx.clip(x, NAN, 2.0), np.full(5, NAN), exact=True)       # min_i NaN
    assert_matches(npx.clip(x, max=NAN), np.full(5, NAN), exact=True)         # max_i NaN
    lo = np.array([0.0, NAN, 0.0, 0.0, 0.0])
    hi = np.array([1.0, 1.0, 1.0, NAN, 1.0])
    assert_matches(npx.clip(x, npx.asarray(lo), npx.asarray(hi)), np.array([NAN, NAN, 0.0, NAN, 0.5]),
          exact=True)
    assert_matches(npx.clip(x, 3.0, 1.0), np.clip(a, 3.0, 1.0), exact=True)  # min > max: max (NumPy)
    assert_matches(npx.clip(npx.asarray(np.zeros((0, 2))), 0.0, 1.0), np.zeros((0, 2)), exact=True)
    assert_matches(npx.clip(npx.asarray(np.array(7.0)), 0.0, 1.0), np.array(1.0), exact=True)


def test_clip_integer_bounds_outside_the_dtype_are_its_edges():
    a = np.array([-128, 0, 127], np.int8)
    assert_matches(npx.clip(npx.asarray(a), -1000, 1000), a, exact=True)
    u = np.array([0, 2**63, 2**64 - 1], np.uint64)
    assert_matches(npx.clip(npx.asarray(u), 5, 2**63 + 1), np.clip(u, np.uint64(5), np.uint64(2**63 + 1)),
          exact=True)
    assert_matches(npx.clip(npx.asarray(u), -5, 2**70), u, exact=True)


def test_clip_bad_input_then_next_call_works(rng):
    with pytest.raises(TypeError):
        npx.clip(npx.asarray(np.array([True, False])), 0, 1)
    with pytest.raises(TypeError):
        npx.clip(npx.asarray(np.ones(2, np.complex64)), 0, 1)
    i = npx.asarray(np.arange(4, dtype=np.int16))
    with pytest.raises(TypeError):
        npx.clip(i, 0.5, 2)
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        npx.clip(np.arange(3), 0, 1)  # host data: an implicit upload
    with pytest.raises(ValueError):
        npx.clip(i, npx.asarray(np.zeros(3, np.int16)))
    assert_matches(npx.clip(i, 1, 2), np.clip(np.arange(4, dtype=np.int16), 1, 2), exact=True)


# -- uint64 arithmetic ----------------------------------------------------------------------

def full_uint64(rng, n):
    return rng.integers(0, 2**64 - 1, size=n, endpoint=True, dtype=np.uint64)


def test_uint64_floor_divide_and_remainder_are_exact(rng):
    a, b = full_uint64(rng, 3000), full_uint64(rng, 3000)
    b[:1000] = rng.integers(1, 1000, size=1000).astype(np.uint64)   # small divisors
    b[1000:1100] = a[1000:1100]                                        # equal operands
    b[1100:1150] = np.uint64(2**63)
    a[1150:1200] = np.uint64(2**64 - 1)
    b[1200:1250] = 0
    x, y = npx.asarray(a), npx.asarray(b)
    with np.errstate(all="ignore"):
        assert_matches(npx.floor_divide(x, y), a // b)
        assert_matches(npx.remainder(x, y), a % b)
        assert_matches(x // 3, a // np.uint64(3))
        assert_matches(2**64 - 1 - x[:5] % 10, np.uint64(2**64 - 1) - a[:5] % np.uint64(10))
        assert_matches(np.uint64(2**63) // y[:20], np.uint64(2**63) // b[:20])


def test_uint64_pow_is_modular(rng):
    a = full_uint64(rng, 500)
    e = full_uint64(rng, 500)
    e[:200] = rng.integers(0, 70, size=200).astype(np.uint64)
    a[:20] = np.arange(20, dtype=np.uint64)
    assert_matches(npx.pow(npx.asarray(a), npx.asarray(e)), np.power(a, e))
    assert_matches(npx.asarray(a) ** 3, a ** np.uint64(3))
    assert_matches(3 ** npx.asarray(e[:50]), np.uint64(3) ** e[:50])


def test_uint64_maximum_minimum(rng):
    a, b = full_uint64(rng, (3, 4)), full_uint64(rng, (4,))
    x, y = npx.asarray(a), npx.asarray(b)
    assert_matches(npx.maximum(x, y), np.maximum(a, b))
    assert_matches(npx.minimum(x, y), np.minimum(a, b))
    assert_matches(npx.maximum(x, 2**63), np.maximum(a, np.uint64(2**63)))
    assert_matches(npx.minimum(5, y), np.minimum(np.uint64(5), b))


def test_uint64_overflowing_scalars_raise():
    x = npx.asarray(np.arange(3, dtype=np.uint64))
    for fn in (npx.floor_divide, npx.remainder, npx.pow):
        with pytest.raises(OverflowError):
            fn(x, -1)
        with pytest.raises(OverflowError):
            fn(x, 2**64)
    assert_matches(x // 1, np.arange(3, dtype=np.uint64))


def test_floor_divide_infinities_with_float32_arrays_and_scalars(rng):
    a = normal(rng, (20,), "float32")
    x = npx.asarray(a)
    assert_matches(npx.floor_divide(x, INF), np.where(a > 0, 0.0, -0.0).astype(np.float32), exact=True)
    assert_matches(npx.floor_divide(x, -INF), np.where(a > 0, -0.0, 0.0).astype(np.float32), exact=True)
    assert_matches(npx.floor_divide(INF, x), np.where(a > 0, INF, -INF).astype(np.float32), exact=True)
    assert_matches(npx.floor_divide(x, 2.0), np.floor_divide(a, np.float32(2.0)), exact=True)


def test_npusim_log_add_exp_writes_no_double():
    """aclnnLogAddExp's documented out dtypes are FLOAT, FLOAT16, BFLOAT16 (float64
    logaddexp is therefore composed); npusim refuses a DOUBLE out as CANN would."""
    from npuarray._core import _ops
    x = npx.asarray(np.array([1.0, 2.0]))
    with pytest.raises(npx.InvalidValueError) as info:
        _ops.launch("aclnnLogAddExp", x, x, npx.asarray(np.zeros(2)))
    assert info.value.code == 161002
    out = npx.asarray(np.zeros(2, np.float32))
    _ops.launch("aclnnLogAddExp", x, x, out)
    assert_matches(out, np.logaddexp(np.array([1.0, 2.0]), np.array([1.0, 2.0])).astype(np.float32))


def test_composed_functions_run_on_the_current_stream(rng):
    a, b = normal(rng, (64,), "float64"), normal(rng, (64,), "float64")
    u, v = full_uint64(rng, 64), full_uint64(rng, 64) >> np.uint64(40)
    with npx.Stream() as stream:
        x, y = npx.asarray(a), npx.asarray(b)
        results = [npx.hypot(x, y), npx.nextafter(x, y), npx.logaddexp(x, y),
                   npx.copysign(x, y), npx.clip(x, y, 3.0),
                   npx.floor_divide(npx.asarray(u), npx.asarray(v) + 1)]
        hosts = [r.to_host(stream=stream) for r in results]
    expected = [np.hypot(a, b), np.nextafter(a, b), np.logaddexp(a, b), np.copysign(a, b),
                np.clip(a, b, 3.0), u // (v + np.uint64(1))]
    for got, want in zip(hosts, expected):
        np.testing.assert_allclose(got, want, rtol=1e-13)
