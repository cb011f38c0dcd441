"""The IEEE special cases of the unary element-wise functions, as tables taken from
the "Special cases" sections of the array API 2025.12 specification
(spec/draft/API_specification/elementwise_functions.rst, generated from
src/array_api_stubs/_draft/elementwise_functions.py). Results are compared exactly:
signed zeros by their sign bit, NaN as NaN. "Implementation-dependent
approximations" (atan(+-inf)) are compared with a tolerance."""
import math

import numpy as np
import pytest

import npuarray as npx

INF, NAN, PI = math.inf, math.nan, math.pi

# (function, input, expected); each row is one bullet of the function's real-valued
# special cases ("greater than 1", "a positive finite number" ... by representatives).
REAL_CASES = [
    ("acos", NAN, NAN), ("acos", 1.5, NAN), ("acos", -1.5, NAN), ("acos", 1.0, 0.0),
    ("acosh", NAN, NAN), ("acosh", 0.5, NAN), ("acosh", 1.0, 0.0), ("acosh", INF, INF),
    ("asin", NAN, NAN), ("asin", 1.5, NAN), ("asin", -1.5, NAN), ("asin", 0.0, 0.0),
    ("asin", -0.0, -0.0),
    ("asinh", NAN, NAN), ("asinh", 0.0, 0.0), ("asinh", -0.0, -0.0), ("asinh", INF, INF),
    ("asinh", -INF, -INF),
    ("atan", NAN, NAN), ("atan", 0.0, 0.0), ("atan", -0.0, -0.0), ("atan", INF, PI / 2),
    ("atan", -INF, -PI / 2),
    ("atanh", NAN, NAN), ("atanh", -1.5, NAN), ("atanh", 1.5, NAN), ("atanh", -1.0, -INF),
    ("atanh", 1.0, INF), ("atanh", 0.0, 0.0), ("atanh", -0.0, -0.0),
    ("cos", NAN, NAN), ("cos", 0.0, 1.0), ("cos", -0.0, 1.0), ("cos", INF, NAN),
    ("cos", -INF, NAN),
    ("cosh", NAN, NAN), ("cosh", 0.0, 1.0), ("cosh", -0.0, 1.0), ("cosh", INF, INF),
    ("cosh", -INF, INF),
    ("sin", NAN, NAN), ("sin", 0.0, 0.0), ("sin", -0.0, -0.0), ("sin", INF, NAN),
    ("sin", -INF, NAN),
    ("sinh", NAN, NAN), ("sinh", 0.0, 0.0), ("sinh", -0.0, -0.0), ("sinh", INF, INF),
    ("sinh", -INF, -INF),
    ("tan", NAN, NAN), ("tan", 0.0, 0.0), ("tan", -0.0, -0.0), ("tan", INF, NAN),
    ("tan", -INF, NAN),
    ("tanh", NAN, NAN), ("tanh", 0.0, 0.0), ("tanh", -0.0, -0.0), ("tanh", INF, 1.0),
    ("tanh", -INF, -1.0),
    ("expm1", NAN, NAN), ("expm1", 0.0, 0.0), ("expm1", -0.0, -0.0), ("expm1", INF, INF),
    ("expm1", -INF, -1.0),
    ("log1p", NAN, NAN), ("log1p", -1.5, NAN), ("log1p", -1.0, -INF), ("log1p", -0.0, -0.0),
    ("log1p", 0.0, 0.0), ("log1p", INF, INF),
    ("log2", NAN, NAN), ("log2", -0.5, NAN), ("log2", 0.0, -INF), ("log2", -0.0, -INF),
    ("log2", 1.0, 0.0), ("log2", INF, INF),
    ("log10", NAN, NAN), ("log10", -0.5, NAN), ("log10", 0.0, -INF), ("log10", -0.0, -INF),
    ("log10", 1.0, 0.0), ("log10", INF, INF),
    ("exp", NAN, NAN), ("exp", 0.0, 1.0), ("exp", -0.0, 1.0), ("exp", INF, INF),
    ("exp", -INF, 0.0),
    ("log", NAN, NAN), ("log", -0.5, NAN), ("log", 0.0, -INF), ("log", -0.0, -INF),
    ("log", 1.0, 0.0), ("log", INF, INF),
    ("sqrt", NAN, NAN), ("sqrt", -0.5, NAN), ("sqrt", 0.0, 0.0), ("sqrt", -0.0, -0.0),
    ("sqrt", INF, INF),
    ("abs", NAN, NAN), ("abs", -0.0, 0.0), ("abs", -INF, INF),
    # reciprocal: as 1.0 / x (see divide)
    ("reciprocal", 0.0, INF), ("reciprocal", -0.0, -INF), ("reciprocal", INF, 0.0),
    ("reciprocal", -INF, -0.0), ("reciprocal", NAN, NAN),
    # square: as x * x (see multiply)
    ("square", -INF, INF), ("square", -0.0, 0.0), ("square", NAN, NAN),
    ("sign", -2.5, -1.0), ("sign", -0.0, 0.0), ("sign", 0.0, 0.0), ("sign", 3.0, 1.0),
    ("sign", NAN, NAN),
]
for _name in ("ceil", "floor", "round", "trunc"):
    REAL_CASES += [(_name, 3.0, 3.0), (_name, INF, INF), (_name, -INF, -INF), (_name, 0.0, 0.0),
                   (_name, -0.0, -0.0), (_name, NAN, NAN)]
REAL_CASES += [("round", 2.5, 2.0), ("round", -0.5, -0.0), ("round", 3.5, 4.0)]

BOOL_CASES = [
    ("signbit", 0.0, False), ("signbit", -0.0, True), ("signbit", INF, False),
    ("signbit", -INF, True), ("signbit", 2.0, False), ("signbit", -2.0, True),
    ("signbit", NAN, False), ("signbit", -NAN, True),
    ("isinf", INF, True), ("isinf", -INF, True), ("isinf", NAN, False), ("isinf", 1e300, False),
    ("isinf", -0.0, False),
]


def same(got, want):
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,value,expected", REAL_CASES)
def test_real_special_case(name, value, expected, dtype):
    host = np.array([value, 0.75], dtype)   # the special value among an ordinary one
    got = float(getattr(npx, name)(npx.asarray(host)).to_host()[0])
    if name == "atan" and math.isinf(value):   # "implementation-dependent approximation"
        assert got == pytest.approx(expected, rel=1e-6)
    else:
        assert same(got, expected), (name, value, got, expected)


@pytest.mark.parametrize("name,value,expected", BOOL_CASES)
def test_boolean_special_case(name, value, expected):
    host = np.array([value], np.float64)
    if name == "signbit" and math.isnan(value):
        host = np.array([-NAN if expected else NAN], np.float64)
        assert bool(np.signbit(host[0])) == expected
    assert getattr(npx, name)(npx.asarray(host)).to_host()[0] == expected


def c(a, b):
    return complex(a, b)


# Complex special cases (a = real(x_i), b = imag(x_i)); bullets whose sign is
# "unspecified" are left out. sign(3-4j) is the rounded 0.6-0.8j (complex division).
COMPLEX_CASES = [
    ("exp", c(0.0, 0.0), c(1, 0.0)), ("exp", c(-0.0, 0.0), c(1, 0.0)),
    ("exp", c(2.0, INF), c(NAN, NAN)), ("exp", c(2.0, NAN), c(NAN, NAN)),
    ("exp", c(INF, 0.0), c(INF, 0.0)), ("exp", c(NAN, 0.0), c(NAN, 0.0)),
    ("exp", c(NAN, 2.0), c(NAN, NAN)), ("exp", c(NAN, NAN), c(NAN, NAN)),
    ("exp", c(-INF, 1.0), c(0.0 * math.cos(1.0), 0.0 * math.sin(1.0))),
    ("expm1", c(0.0, 0.0), c(0.0, 0.0)), ("expm1", c(-0.0, 0.0), c(0.0, 0.0)),
    ("expm1", c(2.0, INF), c(NAN, NAN)), ("expm1", c(INF, 0.0), c(INF, 0.0)),
    ("expm1", c(-INF, 1.0), c(-1.0, 0.0)), ("expm1", c(NAN, 0.0), c(NAN, 0.0)),
    ("expm1", c(NAN, NAN), c(NAN, NAN)),
    ("log", c(-0.0, 0.0), c(-INF, PI)), ("log", c(0.0, 0.0), c(-INF, 0.0)),
    ("log", c(2.0, INF), c(INF, PI / 2)), ("log", c(2.0, NAN), c(NAN, NAN)),
    ("log", c(-INF, 2.0), c(INF, PI)), ("log", c(INF, 2.0), c(INF, 0.0)),
    ("log", c(-INF, INF), c(INF, 3 * PI / 4)), ("log", c(INF, INF), c(INF, PI / 4)),
    ("log", c(INF, NAN), c(INF, NAN)), ("log", c(NAN, INF), c(INF, NAN)),
    ("log1p", c(-1.0, 0.0), c(-INF, 0.0)), ("log1p", c(2.0, INF), c(INF, PI / 2)),
    ("log1p", c(2.0, NAN), c(NAN, NAN)), ("log1p", c(-INF, 2.0), c(INF, PI)),
    ("log1p", c(INF, 2.0), c(INF, 0.0)), ("log1p", c(-INF, INF), c(INF, 3 * PI / 4)),
    ("log1p", c(INF, INF), c(INF, PI / 4)), ("log1p", c(NAN, INF), c(INF, NAN)),
    ("sqrt", c(0.0, 0.0), c(0.0, 0.0)), ("sqrt", c(-0.0, 0.0), c(0.0, 0.0)),
    ("sqrt", c(NAN, INF), c(INF, INF)), ("sqrt", c(2.0, INF), c(INF, INF)),
    ("sqrt", c(2.0, NAN), c(NAN, NAN)), ("sqrt", c(-INF, 2.0), c(0.0, INF)),
    ("sqrt", c(INF, 2.0), c(INF, 0.0)), ("sqrt", c(INF, NAN), c(INF, NAN)),
    ("sinh", c(0.0, 0.0), c(0.0, 0.0)), ("sinh", c(2.0, INF), c(NAN, NAN)),
    ("sinh", c(INF, 0.0), c(INF, 0.0)), ("sinh", c(NAN, 0.0), c(NAN, 0.0)),
    ("sinh", c(NAN, 2.0), c(NAN, NAN)),
    ("cosh", c(0.0, 0.0), c(1.0, 0.0)), ("cosh", c(2.0, INF), c(NAN, NAN)),
    ("cosh", c(2.0, NAN), c(NAN, NAN)), ("cosh", c(INF, 0.0), c(INF, 0.0)),
    ("cosh", c(INF, 1.0), c(INF * math.cos(1.0), INF * math.sin(1.0))),
    ("cosh", c(INF, NAN), c(INF, NAN)), ("cosh", c(NAN, 2.0), c(NAN, NAN)),
    ("cosh", c(NAN, NAN), c(NAN, NAN)),
    ("tanh", c(0.0, 0.0), c(0.0, 0.0)), ("tanh", c(2.0, INF), c(NAN, NAN)),
    ("tanh", c(2.0, NAN), c(NAN, NAN)), ("tanh", c(INF, 1.0), c(1.0, 0.0)),
    ("tanh", c(INF, 2.0), c(1.0, 0.0)), ("tanh", c(INF, -2.0), c(1.0, -0.0)),
    ("tanh", c(NAN, 0.0), c(NAN, 0.0)), ("tanh", c(NAN, 2.0), c(NAN, NAN)),
    ("tanh", c(NAN, NAN), c(NAN, NAN)),
    ("acos", c(0.0, 0.0), c(PI / 2, -0.0)), ("acos", c(-0.0, 0.0), c(PI / 2, -0.0)),
    ("acos", c(0.0, NAN), c(PI / 2, NAN)), ("acos", c(2.0, INF), c(PI / 2, -INF)),
    ("acos", c(2.0, NAN), c(NAN, NAN)), ("acos", c(-INF, 2.0), c(PI, -INF)),
    ("acos", c(INF, 2.0), c(0.0, -INF)), ("acos", c(-INF, INF), c(3 * PI / 4, -INF)),
    ("acos", c(INF, INF), c(PI / 4, -INF)), ("acos", c(NAN, 2.0), c(NAN, NAN)),
    ("acos", c(NAN, INF), c(NAN, -INF)), ("acos", c(NAN, NAN), c(NAN, NAN)),
    ("acos", c(1.0, -0.0), c(0.0, 0.0)),
    ("acosh", c(0.0, 0.0), c(0.0, PI / 2)), ("acosh", c(-0.0, 0.0), c(0.0, PI / 2)),
    ("acosh", c(2.0, INF), c(INF, PI / 2)), ("acosh", c(2.0, NAN), c(NAN, NAN)),
    ("acosh", c(-INF, 2.0), c(INF, PI)), ("acosh", c(INF, 2.0), c(INF, 0.0)),
    ("acosh", c(-INF, INF), c(INF, 3 * PI / 4)), ("acosh", c(INF, INF), c(INF, PI / 4)),
    ("acosh", c(INF, NAN), c(INF, NAN)), ("acosh", c(-INF, NAN), c(INF, NAN)),
    ("acosh", c(NAN, 2.0), c(NAN, NAN)), ("acosh", c(NAN, INF), c(INF, NAN)),
    ("acosh", c(NAN, NAN), c(NAN, NAN)),
    ("asinh", c(0.0, 0.0), c(0.0, 0.0)), ("asinh", c(2.0, INF), c(INF, PI / 2)),
    ("asinh", c(2.0, NAN), c(NAN, NAN)), ("asinh", c(INF, 2.0), c(INF, 0.0)),
    ("asinh", c(INF, INF), c(INF, PI / 4)), ("asinh", c(NAN, 0.0), c(NAN, 0.0)),
    ("asinh", c(NAN, 2.0), c(NAN, NAN)), ("asinh", c(NAN, NAN), c(NAN, NAN)),
    ("asinh", c(-INF, -INF), c(-INF, -PI / 4)),
    ("atanh", c(0.0, 0.0), c(0.0, 0.0)), ("atanh", c(0.0, NAN), c(0.0, NAN)),
    ("atanh", c(1.0, 0.0), c(INF, 0.0)), ("atanh", c(2.0, INF), c(0.0, PI / 2)),
    ("atanh", c(2.0, NAN), c(NAN, NAN)), ("atanh", c(INF, 2.0), c(0.0, PI / 2)),
    ("atanh", c(INF, INF), c(0.0, PI / 2)), ("atanh", c(INF, NAN), c(0.0, NAN)),
    ("atanh", c(NAN, 2.0), c(NAN, NAN)), ("atanh", c(NAN, NAN), c(NAN, NAN)),
    ("atanh", c(-1.0, -0.0), c(-INF, -0.0)), ("atanh", c(NAN, 1e300), c(NAN, NAN)),
    ("atanh", c(1e300, NAN), c(NAN, NAN)), ("atanh", c(NAN, -INF), c(0.0, -PI / 2)),
    ("atanh", c(-INF, NAN), c(-0.0, NAN)),
    ("sign", c(0.0, -0.0), c(0.0, 0.0)), ("sign", c(NAN, 1.0), c(NAN, NAN)),
    ("sign", c(3.0, -4.0), c(0.6, -0.8)),
    ("abs", c(-INF, NAN), INF), ("abs", c(NAN, 2.0), NAN), ("abs", c(-0.0, 0.0), 0.0),
    ("isinf", c(NAN, INF), True), ("isinf", c(2.0, NAN), False), ("isinf", c(-INF, 0.0), True),
    ("round", c(2.5, -0.5), c(2.0, -0.0)), ("round", c(INF, NAN), c(INF, NAN)),
    ("conj", c(NAN, INF), c(NAN, -INF)), ("real", c(-0.0, NAN), -0.0),
    ("imag", c(NAN, -0.0), -0.0),
]


def same_complex(got, want):
    if isinstance(want, bool):
        return bool(got) == want
    if not isinstance(want, complex):
        return same(float(got), want)
    return same(got.real, want.real) and same(got.imag, want.imag)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name,value,expected", COMPLEX_CASES)
def test_complex_special_case(name, value, expected, dtype):
    host = np.array([value, c(0.5, -0.25)], dtype)
    if np.isinf(host[0].real) != math.isinf(value.real) or \
            np.isinf(host[0].imag) != math.isinf(value.imag):
        pytest.skip(f"{value} overflows {dtype}")
    got = getattr(npx, name)(npx.asarray(host)).to_host()[0].item()
    if isinstance(expected, complex):  # pi and friends rounded to the dtype
        expected = complex(np.array(expected, dtype))
    if name == "sign" and value == c(3.0, -4.0):
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    else:
        assert same_complex(got, expected), (name, value, got, expected)
