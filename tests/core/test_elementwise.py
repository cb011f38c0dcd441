"""Element-wise functions against NumPy on fresh random data: every function, the
dtypes each supports, broadcasting, Python scalars on either side, 0-d and empty
arrays, non-contiguous views, in-place operators and bad input."""
import operator

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray._core import _elementwise as ew

BF16 = np.dtype(ml_dtypes.bfloat16)
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
ALL = ["bool"] + INTS + FLOATS + COMPLEX


def dt(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


def random_array(rng, shape, dtype, *, low=None, high=None, nonzero=False):
    """Fresh random host data of ``dtype``: small integers (so products stay in
    range), normal floats, random bools; ``nonzero`` avoids zeros (divisors)."""
    dtype = dt(dtype) if isinstance(dtype, str) else dtype
    if dtype == np.bool_:
        a = rng.random(shape) < 0.5
        return np.ones(shape, bool) if nonzero else a
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo = max(info.min, -50 if low is None else low)
        hi = min(info.max, 50 if high is None else high)
        a = rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)
        if nonzero:
            a[a == 0] = 1
        return a
    if dtype.kind == "c":
        a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    else:
        a = rng.standard_normal(shape) * 4
        if low is not None:
            a = rng.uniform(low, high, size=shape)
    if nonzero:
        a[np.abs(a) < 0.25] = 0.5
    return np.asarray(a).astype(dtype)


def tolerance(dtype):
    dtype = np.dtype(dtype)
    if dtype == BF16:
        return dict(rtol=2e-2, atol=2e-2)
    return {"float16": dict(rtol=2e-3, atol=2e-3), "float32": dict(rtol=2e-6, atol=1e-6),
            "complex64": dict(rtol=2e-6, atol=1e-6)}.get(
        dtype.name, dict(rtol=1e-12, atol=1e-12))


def assert_matches(result, expected, *, dtype=None):
    """``result`` (NPUArray) equals the NumPy ``expected`` in shape, dtype and
    values (within the dtype's tolerance; NaN where NumPy has NaN)."""
    assert isinstance(result, npx.NPUArray)
    expected = np.asarray(expected)
    want = np.dtype(dtype) if dtype is not None else expected.dtype
    assert result.dtype == want, (result.dtype, want)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    got = result.to_host()
    if want.kind in "fc" or want == BF16:
        np.testing.assert_allclose(got.astype(np.complex128 if want.kind == "c" else np.float64),
                                   expected.astype(got.dtype).astype(
                                       np.complex128 if want.kind == "c" else np.float64),
                                   equal_nan=True, **tolerance(want))
    else:
        np.testing.assert_array_equal(got, expected)


def host_reference(fn, *arrays, out_dtype=None):
    """NumPy's answer; bfloat16 inputs are computed in float32 and rounded."""
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == BF16 else a
            for a in arrays]
    with np.errstate(all="ignore"):
        r = np.asarray(fn(*args))
    return r.astype(out_dtype) if out_dtype is not None else r


def up(a):
    return npx.asarray(a)


# ---------------------------------------------------------------------------
# Binary functions, array with array

ARITH = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply)]
COMPARE = [("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
           ("greater_equal", np.greater_equal), ("less", np.less),
           ("less_equal", np.less_equal)]


@pytest.mark.parametrize("name,ref", ARITH)
@pytest.mark.parametrize("dtype", ALL)
def test_arithmetic_same_dtype(rng, name, ref, dtype):
    if name == "subtract" and dtype == "bool":
        with pytest.raises(TypeError):
            ew.subtract(up(np.ones(3, bool)), up(np.ones(3, bool)))
        return
    a, b = random_array(rng, (3, 5), dtype), random_array(rng, (3, 5), dtype)
    expected = host_reference(ref, a, b, out_dtype=dt(dtype))
    assert_matches(getattr(ew, name)(up(a), up(b)), expected, dtype=dt(dtype))


@pytest.mark.parametrize("name,ref", ARITH + COMPARE + [
    ("divide", np.divide), ("maximum", np.maximum), ("minimum", np.minimum),
    ("logical_and", np.logical_and), ("logical_or", np.logical_or)])
@pytest.mark.parametrize("shapes", [((4, 1, 3), (5, 1)), ((), (2, 3)), ((3,), (3,)),
                                    ((2, 0, 3), (1, 3))])
def test_broadcasting(rng, name, ref, shapes):
    a, b = random_array(rng, shapes[0], "float32"), random_array(rng, shapes[1], "float32")
    result = getattr(ew, name)(up(a), up(b))
    assert_matches(result, host_reference(ref, a, b))


@pytest.mark.parametrize("d1,d2", [("int8", "uint8"), ("int32", "float32"),
                                   ("uint8", "int64"), ("float16", "float32"),
                                   ("bool", "int16"), ("int64", "uint64"),
                                   ("complex64", "float64"), ("float16", "bfloat16"),
                                   ("bfloat16", "int8")])
@pytest.mark.parametrize("name,ref", [("add", np.add), ("multiply", np.multiply),
                                      ("less", np.less), ("equal", np.equal)])
def test_mixed_dtype_promotion(rng, d1, d2, name, ref):
    if name == "less" and "complex64" in (d1, d2):
        return
    a, b = random_array(rng, (4, 3), d1), random_array(rng, (4, 3), d2)
    want = npx.result_type(dt(d1), dt(d2)) if name in ("add", "multiply") else np.dtype(bool)
    expected = host_reference(ref, a.astype(want) if name in ("add", "multiply") else a,
                              b.astype(want) if name in ("add", "multiply") else b)
    if name in ("less", "equal"):
        common = npx.result_type(dt(d1), dt(d2))
        expected = host_reference(ref, a.astype(common), b.astype(common))
    assert_matches(getattr(ew, name)(up(a), up(b)), expected.astype(want), dtype=want)


@pytest.mark.parametrize("name,ref", COMPARE)
@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "uint16", "uint32", "uint64",
                                   "int64", "float16", "bfloat16", "float32", "float64"])
def test_comparisons(rng, name, ref, dtype):
    a = random_array(rng, (6, 4), dtype, low=0, high=5)
    b = random_array(rng, (6, 4), dtype, low=0, high=5)
    b[0] = a[0]  # ties
    assert_matches(getattr(ew, name)(up(a), up(b)), host_reference(ref, a, b))


@pytest.mark.parametrize("name,ref", [("equal", np.equal), ("not_equal", np.not_equal)])
def test_complex_equality(rng, name, ref):
    a = random_array(rng, (5,), "complex128")
    b = a.copy()
    b[::2] += 1j
    assert_matches(getattr(ew, name)(up(a), up(b)), ref(a, b))


def test_ordering_of_complex_raises():
    z = up(np.array([1 + 1j, 2]))
    for f in (ew.less, ew.greater, ew.maximum):
        with pytest.raises(TypeError):
            f(z, z)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32", "float16", "float32", "float64", "bfloat16"])
def test_floor_divide_and_remainder_follow_numpy_signs(rng, dtype):
    signed = dt(dtype).kind != "u"
    a = random_array(rng, (50,), dtype, low=-20 if signed else 0, high=20)
    b = random_array(rng, (50,), dtype, low=-7 if signed else 1, high=7, nonzero=True)
    assert_matches(ew.floor_divide(up(a), up(b)), host_reference(np.floor_divide, a, b,
                                                                   out_dtype=dt(dtype)))
    assert_matches(ew.remainder(up(a), up(b)), host_reference(np.remainder, a, b,
                                                                out_dtype=dt(dtype)))


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "bool", "float16",
                                   "float32", "float64", "bfloat16", "complex64"])
def test_divide_gives_float(rng, dtype):
    a = random_array(rng, (4, 4), dtype)
    b = random_array(rng, (4, 4), dtype, nonzero=True)
    result = ew.divide(up(a), up(b))
    want = np.dtype(np.float64) if dt(dtype).kind in "biu" else dt(dtype)
    assert_matches(result, host_reference(np.divide, a, b, out_dtype=want), dtype=want)


def test_float_division_by_zero_is_ieee():
    a = np.array([1.0, -1.0, 0.0, 2.0], np.float32)
    b = np.array([0.0, 0.0, 0.0, -0.0], np.float32)
    assert_matches(ew.divide(up(a), up(b)), host_reference(np.divide, a, b))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "float16",
                                   "float32", "float64", "bfloat16"])
def test_pow(rng, dtype):
    kind = dt(dtype).kind
    a = random_array(rng, (20,), dtype, low=0 if kind in "iu" else 0.5, high=4)
    b = random_array(rng, (20,), dtype, low=0, high=3)
    assert_matches(ew.pow(up(a), up(b)), host_reference(np.power, a, b, out_dtype=dt(dtype)))


@pytest.mark.parametrize("name,ref", [("maximum", np.maximum), ("minimum", np.minimum)])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "uint16", "uint32", "int64",
                                   "float16", "bfloat16", "float32", "float64"])
def test_maximum_minimum(rng, name, ref, dtype):
    a, b = random_array(rng, (7, 3), dtype), random_array(rng, (7, 3), dtype)
    assert_matches(getattr(ew, name)(up(a), up(b)), host_reference(ref, a, b,
                                                                     out_dtype=dt(dtype)))


@pytest.mark.parametrize("name,ref", [("maximum", np.maximum), ("minimum", np.minimum)])
def test_maximum_minimum_propagate_nan(name, ref):
    a = np.array([np.nan, 1.0, 2.0, np.nan], np.float32)
    b = np.array([0.0, np.nan, 1.0, np.nan], np.float32)
    assert_matches(getattr(ew, name)(up(a), up(b)), ref(a, b))


@pytest.mark.parametrize("name,ref", [("logical_and", np.logical_and),
                                      ("logical_or", np.logical_or)])
@pytest.mark.parametrize("dtype", ["bool", "int32", "uint16", "float32"])
def test_logical(rng, name, ref, dtype):
    a = random_array(rng, (9,), dtype, low=0, high=2)
    b = random_array(rng, (9,), dtype, low=0, high=2)
    assert_matches(getattr(ew, name)(up(a), up(b)), ref(a, b))


# ---------------------------------------------------------------------------
# Python scalars on either side

SCALAR_CASES = [
    ("add", operator.add), ("subtract", operator.sub), ("multiply", operator.mul),
    ("divide", operator.truediv), ("floor_divide", operator.floordiv),
    ("remainder", operator.mod), ("pow", operator.pow), ("equal", operator.eq),
    ("not_equal", operator.ne), ("greater", operator.gt), ("greater_equal", operator.ge),
    ("less", operator.lt), ("less_equal", operator.le), ("maximum", np.maximum),
    ("minimum", np.minimum), ("logical_and", np.logical_and), ("logical_or", np.logical_or)]


@pytest.mark.parametrize("name,ref", SCALAR_CASES)
@pytest.mark.parametrize("dtype,scalar", [("float32", 2.5), ("float32", 3), ("int32", 3),
                                          ("int16", -2), ("float16", 0.75),
                                          ("float64", -1.5), ("uint8", 4)])
def test_scalar_operands(rng, name, ref, dtype, scalar):
    a = random_array(rng, (3, 4), dtype, low=1, high=9, nonzero=True)
    if name == "pow" and dt(dtype).kind in "iu" and scalar < 0:
        return  # integers to negative powers are an error in NumPy
    x = up(a)
    for left, right, host_left, host_right in [(x, scalar, a, scalar), (scalar, x, scalar, a)]:
        expected = host_reference(ref, host_left, host_right)
        assert_matches(getattr(ew, name)(left, right), expected)


def test_scalar_keeps_array_dtype():
    x = up(np.array([1, 2, 3], np.int8))
    assert ew.add(x, 1).dtype == np.int8
    assert ew.multiply(up(np.ones(2, np.float16)), 3.3).dtype == np.float16
    assert ew.add(x, 1.5).dtype == np.float64  # an int array with a float scalar
    assert ew.add(up(np.ones(2, BF16)), 2).dtype == BF16


def test_numpy_scalars_keep_their_dtype(rng):
    a = random_array(rng, (4,), "float16")
    result = ew.add(up(a), np.float32(1.5))
    assert_matches(result, a.astype(np.float32) + np.float32(1.5))


def test_uint64_wraps_around_as_numpy():
    a = np.array([2**64 - 1, 2**63, 5, 0], np.uint64)
    b = np.array([3, 2**63 + 7, 2**64 - 2, 1], np.uint64)
    x, y = up(a), up(b)
    assert_matches(ew.add(x, y), a + b)
    assert_matches(ew.subtract(x, y), a - b)
    assert_matches(ew.multiply(x, y), a * b)
    assert_matches(ew.add(x, 2**63 + 1), a + np.uint64(2**63 + 1))
    assert_matches(ew.subtract(2**64 - 1, x), np.uint64(2**64 - 1) - a)
    assert_matches(ew.less(x, y), a < b)


def test_integer_scalar_out_of_range():
    x = up(np.array([1, 2, 100], np.int8))
    with pytest.raises(OverflowError):
        ew.add(x, 1000)
    # comparisons answer as NumPy 2 does instead of overflowing
    assert_matches(ew.less(x, 1000), np.array([True, True, True]))
    assert_matches(ew.equal(x, -1000), np.array([False, False, False]))
    assert_matches(ew.greater(up(np.array([0, 255], np.uint8)), -1), np.array([True, True]))


def test_integer_to_negative_scalar_power_raises():
    with pytest.raises(ValueError, match="negative integer powers"):
        ew.pow(up(np.array([1, 2], np.int32)), -1)
    assert_matches(ew.pow(up(np.array([1.0, 2.0])), -1), np.array([1.0, 0.5]))


def test_reflected_subtract_and_divide(rng):
    a = random_array(rng, (5,), "float64", nonzero=True)
    assert_matches(ew.subtract(10, up(a)), 10 - a)
    assert_matches(ew.divide(10, up(a)), 10 / a)
    assert_matches(ew.floor_divide(7.0, up(a)), np.floor_divide(7.0, a))
    assert_matches(ew.remainder(7.0, up(a)), np.remainder(7.0, a))
    assert_matches(ew.pow(2.0, up(a)), np.power(2.0, a))


# ---------------------------------------------------------------------------
# Unary functions

@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32", "uint64", "float16", "bfloat16", "float32",
                                   "float64", "complex64", "complex128"])
def test_negative(rng, dtype):
    a = random_array(rng, (4, 5), dtype)
    assert_matches(ew.negative(up(a)), host_reference(np.negative, a, out_dtype=dt(dtype)))


@pytest.mark.parametrize("dtype", ALL[1:])
def test_positive_is_a_copy(rng, dtype):
    a = random_array(rng, (3, 2), dtype)
    x = up(a)
    y = ew.positive(x)
    assert_matches(y, a)
    assert y._buffer is not x._buffer


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8",
                                   "uint16", "uint64", "float16", "bfloat16", "float32",
                                   "float64", "complex64"])
def test_abs(rng, dtype):
    a = random_array(rng, (6, 3), dtype)
    expected = host_reference(np.abs, a)
    if dt(dtype) == BF16:
        expected = expected.astype(BF16)
    assert_matches(ew.abs(up(a)), expected)


@pytest.mark.parametrize("name,ref", [("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt)])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8",
                                   "uint16", "float16", "bfloat16", "float32", "float64",
                                   "complex64", "complex128"])
def test_exp_log_sqrt(rng, name, ref, dtype):
    kind = dt(dtype).kind
    a = random_array(rng, (5, 4), dtype, low=0 if kind in "iu" else 0.1,
                     high=8 if kind in "iu" else 3)
    if name != "exp" and kind not in "biuc":
        a[0, 0] = 0          # log(0) = -inf, sqrt(0) = 0
        a[0, 1] = -1         # nan
    expected = host_reference(ref, a)
    if dt(dtype) == BF16:
        expected = expected.astype(BF16)
    assert_matches(getattr(ew, name)(up(a)), expected)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float32", "bfloat16"])
def test_logical_not(rng, dtype):
    a = random_array(rng, (8,), dtype, low=0, high=2)
    assert_matches(ew.logical_not(up(a)), np.logical_not(a))


def test_unary_dtype_errors():
    with pytest.raises(TypeError):
        ew.negative(up(np.array([True])))
    with pytest.raises(TypeError):
        ew.positive(up(np.array([True])))
    with pytest.raises(TypeError):
        ew.exp(np.ones(3))  # host arrays are not uploaded implicitly


# ---------------------------------------------------------------------------
# where

@pytest.mark.parametrize("dtype", ["int32", "uint64", "float16", "bfloat16", "float64",
                                   "complex64", "bool"])
def test_where(rng, dtype):
    cond = rng.random((4, 1)) < 0.5
    a, b = random_array(rng, (4, 3), dtype), random_array(rng, (3,), dtype)
    assert_matches(ew.where(up(cond), up(a), up(b)), np.where(cond, a, b))


def test_where_scalars_and_non_bool_condition(rng):
    c = random_array(rng, (6,), "int32", low=0, high=2)
    a = random_array(rng, (6,), "float32")
    assert_matches(ew.where(up(c), up(a), 0.5), np.where(c, a, np.float32(0.5)))
    assert_matches(ew.where(up(c), -1, up(a)), np.where(c, np.float32(-1), a))


# ---------------------------------------------------------------------------
# 0-d, empty and non-contiguous views

def test_zero_dimensional(rng):
    a, b = random_array(rng, (), "float32"), random_array(rng, (), "float32")
    assert_matches(ew.add(up(a), up(b)), a + b)
    assert_matches(ew.exp(up(a)), np.exp(a))
    assert_matches(ew.less(up(a), 0.0), a < 0)


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 1, 4)])
def test_empty(shape):
    a = np.zeros(shape, np.float32)
    for f, ref in [(ew.add, np.add), (ew.greater, np.greater)]:
        assert_matches(f(up(a), up(a)), ref(a, a))
    assert_matches(ew.sqrt(up(a)), np.sqrt(a))
    assert_matches(ew.add(up(a), 1.0), a + 1)


def test_non_contiguous_views(rng):
    a = random_array(rng, (6, 8), "float32")
    b = random_array(rng, (8, 6), "float32")
    x, y = up(a), up(b)
    assert_matches(ew.add(x.T, y), a.T + b)                          # transpose
    assert_matches(ew.multiply(x[::-1], 2.0), a[::-1] * 2)           # negative step
    assert_matches(ew.subtract(x[1:, ::-2], y[1:5, 1:6].T),
                   a[1:, ::-2] - b[1:5, 1:6].T)                       # offsets, steps
    assert_matches(ew.exp(x[::-2, ::-3]), np.exp(a[::-2, ::-3]))
    assert_matches(ew.where(x[::-1] > 0, x.T.T, y.T), np.where(a[::-1] > 0, a, b.T))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_hypothesis_shapes_and_strides(data):
    ndim = data.draw(st.integers(0, 4), label="ndim")
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    base = random_array(rng, tuple(2 * n + 1 for n in shape), "float32")
    steps = tuple(data.draw(st.sampled_from([1, 2, -1, -2])) for _ in shape)
    starts = tuple(0 if s > 0 else 2 * n for s, n in zip(steps, shape))
    index = tuple(slice(b, None, s) for b, s in zip(starts, steps))
    view = base[index][tuple(slice(0, n) for n in shape)]
    other_shape = shape[data.draw(st.integers(0, ndim)):]
    other_shape = tuple(1 if data.draw(st.booleans()) else n for n in other_shape)
    other = random_array(rng, other_shape, "float32")
    x = up(base)[index][tuple(slice(0, n) for n in shape)]
    assert x.shape == view.shape
    assert_matches(ew.add(x, up(other)), view + other)
    assert_matches(ew.maximum(up(other), x), np.maximum(other, view))
    assert_matches(ew.sqrt(ew.abs(x)), np.sqrt(np.abs(view)))


# ---------------------------------------------------------------------------
# In-place operators

@pytest.mark.parametrize("name,ref", [("add", np.add), ("subtract", np.subtract),
                                      ("multiply", np.multiply), ("divide", np.divide),
                                      ("floor_divide", np.floor_divide),
                                      ("remainder", np.remainder), ("pow", np.power)])
def test_inplace(rng, name, ref):
    a = random_array(rng, (4, 3), "float32", nonzero=True)
    b = random_array(rng, (3,), "float32", nonzero=True)
    if name == "pow":
        a = np.abs(a)
    x = up(a)
    buffer = x._buffer
    assert ew.inplace(name, x, up(b)) is x
    assert x._buffer is buffer
    assert_matches(x, host_reference(ref, a, b))


def test_inplace_through_a_view(rng):
    a = random_array(rng, (4, 6), "int32")
    x = up(a)
    view = x[::-1, 1::2]
    ew.inplace("add", view, 5)
    a[::-1, 1::2] += 5
    assert_matches(x, a)


def test_inplace_rules():
    x = up(np.arange(6, dtype=np.int32).reshape(2, 3))
    with pytest.raises(ValueError):      # the result would need a bigger shape
        ew.inplace("add", x, up(np.ones((4, 2, 3), np.int32)))
    with pytest.raises(TypeError):       # float into int is not same_kind
        ew.inplace("add", x, 1.5)
    with pytest.raises(TypeError):
        ew.inplace("divide", x, 2)
    assert_matches(x, np.arange(6, dtype=np.int32).reshape(2, 3))  # untouched
    f = up(np.ones(3, np.float32))
    ew.inplace("add", f, up(np.ones(3, np.float64)))  # float64 into float32: same kind
    assert_matches(f, np.full(3, 2, np.float32))


# ---------------------------------------------------------------------------
# Bad input leaves everything working

def test_bad_input_then_next_operation_works(rng):
    a, b = random_array(rng, (3, 4), "float32"), random_array(rng, (5,), "float32")
    x, y = up(a), up(b)
    with pytest.raises(ValueError, match="broadcast"):
        ew.add(x, y)
    with pytest.raises(TypeError):
        ew.floor_divide(up(np.ones(2, np.complex64)), up(np.ones(2, np.complex64)))
    with pytest.raises(TypeError):
        ew.add(x, "1")
    with pytest.raises(TypeError):
        ew.maximum(up(np.ones(2, np.complex64)), up(np.ones(2, np.complex64)))  # uint64 now works
    assert_matches(ew.add(x, x), a + a)


def test_arrays_on_different_devices_raise():
    if npx.device_count() < 2:
        pytest.skip("needs two devices (NPUSIM_DEVICE_COUNT >= 2)")
    x = up(np.ones(3, np.float32))
    with npx.Device(1):
        y = npx.asarray(np.ones(3, np.float32))
    with pytest.raises(ValueError) as info:
        ew.add(x, y)
    assert str(x.device) in str(info.value) and str(y.device) in str(info.value)
    assert_matches(ew.add(x, x), np.full(3, 2, np.float32))


# ---------------------------------------------------------------------------
# NumPy's dispatch protocols (npuarray._numpy_dispatch)

def test_numpy_ufuncs_and_functions_run_on_the_device(rng):
    from npuarray import _numpy_dispatch as dispatch
    a = random_array(rng, (3, 4), "float32")
    x = up(a)

    def ufunc(f, *args, method="__call__", **kwargs):
        return dispatch.array_ufunc(x, f, method, *args, **kwargs)

    assert_matches(ufunc(np.add, x, 1.5), a + np.float32(1.5))
    assert_matches(ufunc(np.exp, x), np.exp(a))
    assert_matches(ufunc(np.maximum, 0.0, x), np.maximum(np.float32(0), a))
    assert_matches(ufunc(np.add, x, method="reduce", axis=1), np.add.reduce(a, axis=1))
    assert_matches(ufunc(np.minimum, x, method="reduce"), np.minimum.reduce(a))
    out = up(np.zeros((3, 4), np.float32))
    assert ufunc(np.multiply, x, x, out=(out,)) is out
    assert_matches(out, a * a)
    assert_matches(ufunc(np.sin, x), np.sin(a))
    assert_matches(ufunc(np.add, x, a), a + a)             # host operands are uploaded
    assert_matches(ufunc(np.add, x, [0, 2], method="reduceat", axis=1),
                   np.add.reduceat(a, [0, 2], axis=1))

    def function(f, *args, **kwargs):
        return dispatch.array_function(x, f, (type(x),), args, kwargs)

    assert_matches(function(np.sum, x, axis=0), a.sum(axis=0))
    assert_matches(function(np.mean, x, axis=1, keepdims=True), a.mean(axis=1, keepdims=True))
    assert_matches(function(np.argmax, x, axis=1), a.argmax(axis=1))
    assert_matches(function(np.where, ufunc(np.greater, x, 0), x, 0.0),
                   np.where(a > 0, a, np.float32(0)))
    assert_matches(function(np.matmul, x, ufunc(np.negative, x).T), a @ -a.T)
    # No device version: NumPy runs on host copies (implicit transfers) and its host
    # result comes back; refused by name under transfer_guard("disallow").
    windows = np.lib.stride_tricks.sliding_window_view
    expected = windows(a, 2, axis=1)
    got = function(windows, x, 2, axis=1)
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError,
                                                       match="sliding_window_view"):
        function(windows, x, 2, axis=1)
    if getattr(npx.NPUArray, "__array_ufunc__", None) is not None:
        assert_matches(np.add(x, 2), a + 2)               # the hooks are installed
