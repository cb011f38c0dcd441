"""NumPy's element-wise names (npuarray._math, npuarray._logic) against NumPy."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from _numpy_names_helpers import FLOAT_DTYPES, NUMERIC_DTYPES, assert_matches, sample, up, views

ALIASES = [("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"), ("arcsinh", "asinh"),
           ("arccosh", "acosh"), ("arctanh", "atanh"), ("absolute", "abs"), ("power", "pow"),
           ("arctan2", "atan2"), ("true_divide", "divide"), ("mod", "remainder")]


@pytest.mark.parametrize("numpy_name, standard_name", ALIASES)
def test_aliases_are_the_standard_functions(numpy_name, standard_name):
    assert getattr(npx, numpy_name) is getattr(npx, standard_name)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_inverse_trigonometric_aliases(dtype, rng):
    a = rng.uniform(-0.9, 0.9, (3, 4)).astype(dtype)
    tol = 1e-6 if dtype == "float32" else 1e-12
    for host, x in views(a):
        for name in ("arcsin", "arccos", "arctan", "arcsinh", "arctanh"):
            assert_matches(getattr(npx, name)(x), getattr(np, name)(host), rtol=tol, atol=tol)
        assert_matches(npx.arccosh(npx.add(npx.abs(x), 1)), np.arccosh(np.abs(host) + 1), rtol=tol)
        assert_matches(npx.arctan2(x, x.T.T), np.arctan2(host, host), rtol=tol)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_absolute_power(dtype, rng):
    a = sample(rng, (4, 3), dtype)
    assert_matches(npx.absolute(up(a)), np.absolute(a))
    assert_matches(npx.power(up(a), 2), np.power(a, 2), rtol=1e-6)


@pytest.mark.parametrize("decimals", [-2, -1, 0, 1, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_around(decimals, dtype, rng):
    a = (rng.uniform(-500, 500, (5, 4)) if dtype.startswith("float")
         else rng.integers(-5000, 5000, (5, 4))).astype(dtype)
    for host, x in views(a):
        tol = 1e-6 if dtype == "float32" else 1e-12
        assert_matches(npx.around(x, decimals), np.around(host, decimals), rtol=tol)


def test_around_halves_to_even_and_rint_fix(rng):
    a = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7, -3.7, np.nan, np.inf])
    assert_matches(npx.around(up(a)), np.around(a))
    assert_matches(npx.rint(up(a)), np.rint(a))
    assert_matches(npx.fix(up(a)), np.fix(a))
    integers = np.arange(-3, 4)
    assert_matches(npx.rint(up(integers)), np.rint(integers))  # float64, as NumPy's loop
    assert_matches(npx.fix(up(integers)), np.fix(integers))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "int64"])
def test_angles_sinc_exp2_cbrt(dtype, rng):
    a = sample(rng, (6,), dtype)
    tol = 1e-6 if dtype in ("float32", "int16") else 1e-12  # int16 computes in float32
    for host, x in views(a):
        for name in ("deg2rad", "rad2deg", "radians", "degrees", "sinc", "exp2", "cbrt"):
            assert_matches(getattr(npx, name)(x), getattr(np, name)(host), rtol=tol, atol=1e-15)
    assert_matches(npx.sinc(up(np.array([0.0, 1.0, -2.0]))), np.sinc([0.0, 1.0, -2.0]), atol=1e-16)


# Special cases, from NumPy's documentation of each function.
SPECIAL = [
    ("cbrt", [-8.0, -0.0, 0.0, 27.0, np.inf, -np.inf, np.nan]),
    ("exp2", [-np.inf, 0.0, 1.0, np.inf, np.nan]),
    ("sinc", [0.0, np.inf, np.nan]),
    ("deg2rad", [180.0, -0.0, np.inf, np.nan]),
]


@pytest.mark.parametrize("name, values", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_values(name, values):
    a = np.array(values)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(a)
    assert_matches(getattr(npx, name)(up(a)), expected, atol=1e-15)


def test_heaviside():
    a = np.array([-1.5, 0.0, -0.0, 2.0, np.nan, -np.inf, np.inf])
    for h in (0.5, 0.0, 1.0):
        assert_matches(npx.heaviside(up(a), h), np.heaviside(a, h))
    assert_matches(npx.heaviside(up(a), up(np.full(7, 0.25))), np.heaviside(a, 0.25))
    with pytest.raises(TypeError):
        npx.heaviside(up(np.array([1j])), 0.5)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_nan_to_num(dtype):
    a = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0]).astype(dtype)
    if dtype == "complex128":
        a = a + 1j * a[::-1]
    assert_matches(npx.nan_to_num(up(a)), np.nan_to_num(a))
    assert_matches(npx.nan_to_num(up(a), nan=-1.0, posinf=9.0, neginf=-9.0),
          np.nan_to_num(a, nan=-1.0, posinf=9.0, neginf=-9.0))
    x = up(a)
    assert npx.nan_to_num(x, copy=False) is x
    assert_matches(x, np.nan_to_num(a))
    integers = np.arange(4)
    assert_matches(npx.nan_to_num(up(integers)), np.nan_to_num(integers))


def test_isposinf_isneginf_fabs_fmax_fmin_isreal():
    a = np.array([np.inf, -np.inf, np.nan, 1.0, -2.0])
    b = np.array([np.nan, 0.0, np.nan, 3.0, -5.0])
    assert_matches(npx.isposinf(up(a)), np.isposinf(a))
    assert_matches(npx.isneginf(up(a)), np.isneginf(a))
    assert_matches(npx.fabs(up(a)), np.fabs(a))
    assert_matches(npx.fmax(up(a), up(b)), np.fmax(a, b))
    assert_matches(npx.fmin(up(a), up(b)), np.fmin(a, b))
    c = np.array([1 + 0j, 1j, np.nan])
    assert_matches(npx.isreal(up(c)), np.isreal(c))
    assert_matches(npx.iscomplex(up(c)), np.iscomplex(c))
    assert_matches(npx.isreal(up(a)), np.isreal(a))


ISCLOSE_CASES = [
    ([1.0, np.inf, -np.inf, np.nan, 1e10], [1.0 + 1e-9, np.inf, np.inf, np.nan, 1.00001e10]),
    ([0.0, 1e-9, -0.0], [1e-9, 0.0, 0.0]),
]


@pytest.mark.parametrize("a, b", ISCLOSE_CASES)
@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_allclose(a, b, equal_nan):
    a, b = np.array(a), np.array(b)
    assert_matches(npx.isclose(up(a), up(b), equal_nan=equal_nan), np.isclose(a, b, equal_nan=equal_nan))
    assert_matches(npx.isclose(up(a), up(b), rtol=0, atol=1e-8), np.isclose(a, b, rtol=0, atol=1e-8))
    assert_matches(npx.allclose(up(a), up(b), equal_nan=equal_nan),
          np.array(np.allclose(a, b, equal_nan=equal_nan)))
    assert_matches(npx.isclose(up(a), 1.0), np.isclose(a, 1.0))


@pytest.mark.parametrize("dtype", ["int32", "float32", "bool", "uint8"])
def test_isclose_dtypes_and_broadcasting(dtype, rng):
    a, b = sample(rng, (3, 4), dtype), sample(rng, (4,), dtype)
    assert_matches(npx.isclose(up(a), up(b)), np.isclose(a, b))


def test_array_equal_and_equiv():
    a = np.array([1.0, np.nan, 3.0])
    assert_matches(npx.array_equal(up(a), up(a)), np.array(np.array_equal(a, a)))
    assert_matches(npx.array_equal(up(a), up(a), equal_nan=True),
          np.array(np.array_equal(a, a, equal_nan=True)))
    assert_matches(npx.array_equal(up(a), up(a[:2])), np.array(False))
    b = np.arange(6).reshape(2, 3)
    assert_matches(npx.array_equiv(up(b), up(b[0])), np.array(np.array_equiv(b, b[0])))
    assert_matches(npx.array_equiv(up(b[:1]), up(b[0])), np.array(True))
    assert_matches(npx.array_equiv(up(b), up(np.arange(2))), np.array(False))


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n, m", [(5, 3), (3, 5), (1, 1), (6, 6), (7, 2)])
def test_convolve_correlate(mode, n, m, rng):
    a, v = rng.standard_normal(n), rng.standard_normal(m)
    assert_matches(npx.convolve(up(a), up(v), mode=mode), np.convolve(a, v, mode=mode), atol=1e-12)
    assert_matches(npx.correlate(up(a), up(v), mode=mode), np.correlate(a, v, mode=mode), atol=1e-12)
    c = a + 1j * rng.standard_normal(n)
    assert_matches(npx.correlate(up(c), up(v[::-1].copy()), mode), np.correlate(c, v[::-1], mode),
          atol=1e-12)
    assert_matches(npx.convolve(up(a)[::-1], up(v), mode), np.convolve(a[::-1], v, mode), atol=1e-12)


def test_convolve_errors():
    with pytest.raises(ValueError):
        npx.convolve(up(np.zeros(0)), up(np.ones(2)))
    with pytest.raises(ValueError):
        npx.convolve(up(np.ones((2, 2))), up(np.ones(2)))
    with pytest.raises(ValueError):
        npx.convolve(up(np.ones(3)), up(np.ones(2)), mode="circular")
    assert_matches(npx.convolve(up(np.ones(3)), up(np.ones(2))), np.convolve(np.ones(3), np.ones(2)))


def test_bad_input_types():
    assert_matches(npx.cbrt(np.full(3, 8.0)), np.full(3, 2.0))  # host operands are uploaded
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError, match="cbrt"):
        npx.cbrt(np.ones(3))
    with pytest.raises(TypeError):
        npx.cbrt(up(np.array([1j])))
    assert_matches(npx.cbrt(up(np.array([8.0]))), np.array([2.0]))


@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6), min_size=0, max_size=20),
       decimals=st.integers(-3, 3))
def test_around_matches_numpy(values, decimals):
    a = np.array(values, dtype=np.float64)
    assert_matches(npx.around(up(a), decimals), np.around(a, decimals), rtol=1e-12)


def test_math_constants_used():
    assert_matches(npx.deg2rad(up(np.array([180.0]))), np.array([math.pi]))
