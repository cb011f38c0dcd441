"""Unary element-wise functions against NumPy on fresh random data: every dtype the
array API allows for each (and the NumPy float dtype for integer input of the
floating-point functions), complex input, 0-d, empty and non-contiguous views,
hypothesis shapes, a non-default stream, and bad input."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray._core import _ops

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def dt(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


# name -> (NumPy reference, real domain (low, high) of the test data)
FLOATING = {
    "acos": (np.arccos, (-1, 1)), "acosh": (np.arccosh, (1, 20)),
    "asin": (np.arcsin, (-1, 1)), "asinh": (np.arcsinh, (-20, 20)),
    "atan": (np.arctan, (-20, 20)), "atanh": (np.arctanh, (-0.99, 0.99)),
    "cos": (np.cos, (-10, 10)), "cosh": (np.cosh, (-10, 10)),
    "sin": (np.sin, (-10, 10)), "sinh": (np.sinh, (-10, 10)),
    "tan": (np.tan, (-1.5, 1.5)), "tanh": (np.tanh, (-25, 25)),
    "expm1": (np.expm1, (-5, 5)), "log1p": (np.log1p, (-0.99, 10)),
    "log2": (np.log2, (0.01, 100)), "log10": (np.log10, (0.01, 100)),
    "reciprocal": (np.reciprocal, (0.1, 10)),
}
# Functions computing complex results on the device (CANN kernel or composition).
COMPLEX_FUNCTIONS = ["cos", "cosh", "sin", "sinh", "tan", "tanh", "expm1", "log1p", "log2",
                     "log10", "reciprocal"]
ROUNDING = {"ceil": np.ceil, "floor": np.floor, "round": np.round, "trunc": np.trunc}


def tolerance(dtype):
    return {"float16": dict(rtol=2e-3, atol=2e-3), "bfloat16": dict(rtol=2e-2, atol=2e-2),
            "float32": dict(rtol=1e-5, atol=1e-6), "complex64": dict(rtol=1e-5, atol=1e-6)
            }.get(str(dtype), dict(rtol=1e-12, atol=1e-14))


def reference(fn, a):
    """NumPy's answer in a's dtype; bfloat16 computed in float32 and rounded."""
    with np.errstate(all="ignore"):
        if a.dtype == BF16:
            return np.asarray(fn(a.astype(np.float32))).astype(BF16)
        return np.asarray(fn(a))


def assert_close(result, expected):
    assert isinstance(result, npx.NPUArray)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert result.shape == expected.shape
    got = result.to_host()
    wide = np.complex128 if expected.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(got.astype(wide), expected.astype(wide), equal_nan=True,
                               **tolerance(expected.dtype))


def uniform(rng, shape, dtype, domain):
    return rng.uniform(*domain, size=shape).astype(dt(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(FLOATING))
def test_floating_functions(rng, name, dtype):
    fn, domain = FLOATING[name]
    a = uniform(rng, (4, 7), dtype, domain)
    assert_close(getattr(npx, name)(npx.asarray(a)), reference(fn, a))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", COMPLEX_FUNCTIONS)
def test_complex_input(rng, name, dtype):
    fn = FLOATING[name][0]
    a = (rng.uniform(-2, 2, (3, 5)) + 1j * rng.uniform(-2, 2, (3, 5))).astype(dtype)
    assert_close(getattr(npx, name)(npx.asarray(a)), reference(fn, a))


INVERSE = {"acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh,
           "atan": np.arctan, "atanh": np.arctanh}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(INVERSE))
def test_complex_inverse_functions(rng, name, dtype):
    """The complex inverse functions, composed on the device (Kahan's formulas), over
    magnitudes from 1e-13 to 1e13 and on the branch cuts with both signs of zero."""
    n = 300
    z = (rng.standard_normal(n) * np.exp(rng.uniform(-30, 30, n))
         + 1j * rng.standard_normal(n) * np.exp(rng.uniform(-30, 30, n)))
    z[:8] = [0j, complex(-0.0, -0.0), complex(0.5, -0.0), complex(-3, 0.0), complex(-3, -0.0),
             complex(3, 0.0), complex(3, -0.0), complex(0.0, -3)]
    z = z.astype(dtype)
    got = getattr(npx, name)(npx.asarray(z)).to_host()
    assert got.dtype == np.dtype(dtype)
    want = INVERSE[name](z.astype(np.complex128))
    rtol = 1e-6 if dtype == "complex64" else 4e-15
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    for part in (np.real, np.imag):   # which side of a branch cut: the sign of zero
        np.testing.assert_array_equal(np.signbit(part(got[:8])), np.signbit(part(want[:8])))


@pytest.mark.parametrize("name", ["tanh", "expm1"])
def test_float64_compositions_are_accurate(rng, name):
    """float64 tanh and expm1, which CANN's kernels lack, within a few ulp over a wide
    range, including tiny arguments where exp(x) - 1 would lose every digit."""
    a = np.concatenate([rng.uniform(-40, 40, 200), rng.uniform(-1e-9, 1e-9, 50),
                        [-0.0, 0.0, 1e-300, -1e-300, 700.0, 710.0, -745.0, 19.5, 20.5]])
    got = getattr(npx, name)(npx.asarray(a)).to_host()
    with np.errstate(over="ignore"):
        want = getattr(np, name)(a)
    np.testing.assert_allclose(got, want, rtol=8e-16, atol=0)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("name", sorted(FLOATING))
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "uint64"])
def test_integer_input_gives_numpy_float_dtype(rng, name, dtype):
    """Integer and bool input of the floating-point functions is cast on the device
    to NumPy's float dtype for it (as exp, log and sqrt do); reciprocal, whose
    integer form in NumPy is not the standard's, raises TypeError."""
    fn, (low, high) = FLOATING[name]
    if dtype == "bool":
        a = rng.random((3, 4)) < 0.5
    else:
        a = rng.integers(max(int(np.ceil(low)), 0 if dtype[0] == "u" else -3),
                         max(int(np.floor(high)), 1) + 1, size=(3, 4)).astype(dtype)
    if name == "reciprocal":
        with pytest.raises(TypeError, match="reciprocal"):
            npx.reciprocal(npx.asarray(a))
        return
    assert_close(getattr(npx, name)(npx.asarray(a)), reference(fn, a))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(ROUNDING))
def test_rounding_floats(rng, name, dtype):
    # Halves included, so round's half-to-even rule is exercised.
    a = np.concatenate([rng.uniform(-50, 50, 40), np.arange(-4.5, 5, 1.0)]).astype(dt(dtype))
    result = getattr(npx, name)(npx.asarray(a))
    assert result.dtype == dt(dtype)
    np.testing.assert_array_equal(result.to_host(), reference(ROUNDING[name], a))


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name", sorted(ROUNDING))
def test_rounding_integers_is_identity(rng, name, dtype):
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=(5, 3), dtype=dtype, endpoint=True)
    result = getattr(npx, name)(npx.asarray(a))
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result.to_host(), a)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_round_complex_rounds_both_parts(rng, dtype):
    a = (rng.uniform(-9, 9, 20) + 1j * rng.uniform(-9, 9, 20)).astype(dtype)
    a[:4] = [0.5 + 1.5j, -2.5 - 0.5j, 3.5 + 2.5j, -0.0 + 0.0j]
    result = npx.round(npx.asarray(a))
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result.to_host(), np.round(a))


@pytest.mark.parametrize("dtype", INTS + FLOATS + COMPLEX)
def test_sign(rng, dtype):
    if dtype in COMPLEX:
        a = (rng.standard_normal(12) + 1j * rng.standard_normal(12)).astype(dtype)
        a[0] = 0
    elif dtype[0] == "u":
        a = rng.integers(0, 3, 12).astype(dtype)
    else:
        a = rng.integers(-2, 3, 12).astype(dt(dtype))
    if dtype == "uint64":
        a[-1] = 2**64 - 1
    result = npx.sign(npx.asarray(a))
    if dtype in COMPLEX:
        assert_close(result, (a / np.where(a == 0, 1, np.abs(a))).astype(dtype))
    else:
        assert result.dtype == dt(dtype)
        np.testing.assert_array_equal(result.to_host(), reference(np.sign, a))


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_signbit(rng, dtype):
    if dtype[0] == "u":
        a = rng.integers(0, 100, 12).astype(dtype)
    else:
        a = (rng.integers(-5, 5, 12) * (1.5 if dtype in FLOATS else 1)).astype(dt(dtype))
    if dtype in FLOATS:
        a[:4] = np.array([-0.0, 0.0, -np.inf, np.inf]).astype(dt(dtype))
    result = npx.signbit(npx.asarray(a))
    assert result.dtype == np.bool_
    np.testing.assert_array_equal(result.to_host(), np.signbit(a.astype(np.float64)))


def test_signbit_of_nan_follows_its_sign_bit():
    a = np.array([np.nan, -np.nan], np.float64)
    assert np.signbit(a).tolist() == [False, True]
    assert npx.signbit(npx.asarray(a)).to_host().tolist() == [False, True]


@pytest.mark.parametrize("dtype", INTS + FLOATS + COMPLEX)
def test_square(rng, dtype):
    if dtype in COMPLEX:
        a = (rng.standard_normal(10) + 1j * rng.standard_normal(10)).astype(dtype)
    elif dtype in FLOATS:
        a = rng.standard_normal(10).astype(dt(dtype))
    else:
        a = np.iinfo(dtype).max - rng.integers(0, 5, 10).astype(dtype)  # wraps as NumPy
    result = npx.square(npx.asarray(a))
    if dtype in INTS:
        assert result.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(result.to_host(), np.square(a))
    else:
        assert_close(result, reference(np.square, a))


@pytest.mark.parametrize("dtype", ["bool"] + INTS + FLOATS + COMPLEX)
def test_isinf(rng, dtype):
    if dtype == "bool":
        a = rng.random(8) < 0.5
    elif dtype in INTS:
        a = rng.integers(0, 100, 8).astype(dtype)
    elif dtype in FLOATS:
        a = np.array([1.5, -np.inf, np.inf, np.nan, -0.0, 3e4, -2.0, 0.5]).astype(dt(dtype))
    else:
        a = np.array([1 + 1j, complex(np.inf, 0), complex(0, -np.inf), complex(np.nan, np.inf),
                      complex(np.nan, 1), complex(-np.inf, np.nan), 0j, 2 - 3j], dtype)
    result = npx.isinf(npx.asarray(a))
    assert result.dtype == np.bool_
    np.testing.assert_array_equal(result.to_host(), np.isinf(a.astype(np.float64) if
                                                             a.dtype == BF16 else a))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_real_imag_conj_of_complex(rng, dtype):
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dtype)
    a[0, 0] = complex(-0.0, -0.0)
    for name, fn in [("real", np.real), ("imag", np.imag), ("conj", np.conj)]:
        result = getattr(npx, name)(npx.asarray(a))
        expected = fn(a)
        assert result.dtype == expected.dtype
        got = result.to_host()
        np.testing.assert_array_equal(got, expected)
        for part in (np.real, np.imag):  # signed zeros kept
            np.testing.assert_array_equal(np.signbit(part(got)), np.signbit(part(expected)))


@pytest.mark.parametrize("dtype", ["bool", "int16", "uint32", "float32", "float64", "bfloat16"])
def test_real_imag_conj_of_real_input(rng, dtype):
    a = (rng.standard_normal((2, 3)) * 5).astype(dt(dtype))
    x = npx.asarray(a)
    for name, expected in [("real", a), ("imag", np.zeros_like(a)), ("conj", a)]:
        result = getattr(npx, name)(x)
        assert result.dtype == dt(dtype)
        np.testing.assert_array_equal(result.to_host(), expected)


def test_conj_negates_zero_imaginary_parts():
    a = np.array([complex(1, 0.0), complex(2, -0.0)], np.complex128)
    got = npx.conj(npx.asarray(a)).to_host()
    assert np.signbit(got.imag).tolist() == [True, False]


# ---------------------------------------------------------------------------
# Shapes and views

ALL_FUNCTIONS = sorted(FLOATING) + sorted(ROUNDING) + ["sign", "signbit", "square", "isinf",
                                                       "real", "imag", "conj"]


def numpy_of(name):
    if name in INVERSE:
        return INVERSE[name]
    if name in FLOATING:
        return FLOATING[name][0]
    return ROUNDING.get(name) or getattr(np, name)


def positive_data(rng, shape, name):
    domain = FLOATING[name][1] if name in FLOATING else (-5, 5)
    return rng.uniform(*domain, size=shape)


@pytest.mark.parametrize("name", ALL_FUNCTIONS)
def test_zero_d_and_empty(rng, name):
    fn = getattr(npx, name)
    a = np.asarray(positive_data(rng, (), name))
    result = fn(npx.asarray(a))
    assert result.shape == ()
    np.testing.assert_allclose(result.to_host(), reference(numpy_of(name), a), rtol=1e-12)
    for shape in [(0,), (3, 0, 2)]:
        result = fn(npx.asarray(np.zeros(shape)))
        assert result.shape == shape
        assert result.dtype == reference(numpy_of(name), np.zeros(shape)).dtype


@pytest.mark.parametrize("name", ALL_FUNCTIONS)
def test_non_contiguous_views(rng, name):
    fn = getattr(npx, name)
    a = positive_data(rng, (6, 8), name)
    x = npx.asarray(a)
    for view, host in [(x.T, a.T), (x[::2, 1::3], a[::2, 1::3]), (x[::-1, ::-2], a[::-1, ::-2])]:
        assert_close(fn(view), reference(numpy_of(name), host))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["tanh", "cosh", "round", "conj", "imag", "real", "isinf",
                                  "expm1", "log1p", "acos", "acosh", "asin", "asinh", "atan",
                                  "atanh"])
def test_complex_compositions_on_views(rng, name, dtype):
    """The functions built from complex parts read strided and reversed views right."""
    a = (rng.uniform(-2, 2, (4, 6)) + 1j * rng.uniform(-2, 2, (4, 6))).astype(dtype)
    x = npx.asarray(a)
    for view, host in [(x.T, a.T), (x[::-1, ::2], a[::-1, ::2]), (x[1], a[1])]:
        assert_close(getattr(npx, name)(view), reference(numpy_of(name), host))


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple),
       name=st.sampled_from(["sin", "tanh", "expm1", "floor", "sign", "square", "isinf"]),
       seed=st.integers(0, 2**32 - 1))
def test_hypothesis_shapes(shape, name, seed):
    a = positive_data(np.random.default_rng(seed), shape, name)
    assert_close(getattr(npx, name)(npx.asarray(a)), reference(numpy_of(name), a))


def test_runs_on_the_current_stream(rng):
    a = rng.uniform(-3, 3, (64, 64))
    x = npx.asarray(a)
    with npx.Stream():
        results = [npx.sin(x), npx.tanh(x), npx.expm1(x), npx.trunc(x), npx.isinf(x)]
        hosts = [r.to_host() for r in results]
    for got, fn in zip(hosts, [np.sin, np.tanh, np.expm1, np.trunc, np.isinf]):
        np.testing.assert_allclose(got, fn(a), rtol=1e-14)


# ---------------------------------------------------------------------------
# Bad input

@pytest.mark.parametrize("name", ALL_FUNCTIONS)
def test_non_array_input_raises_type_error(name):
    with pytest.raises(TypeError, match=f"{name}|{getattr(npx, name).__name__}"):
        getattr(npx, name)("1.0")
    # A host sequence is uploaded (an implicit transfer, refused by name under "disallow").
    np.testing.assert_allclose(getattr(npx, name)([0.5, 0.25]).to_host(),
                               reference(numpy_of(name), np.array([0.5, 0.25])))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        getattr(npx, name)([0.5, 0.25])
    np.testing.assert_allclose(getattr(npx, name)(npx.asarray([0.5])).to_host(),
                               reference(numpy_of(name), np.array([0.5])))


@pytest.mark.parametrize("name,dtype", [
    ("ceil", "bool"), ("floor", "bool"), ("trunc", "bool"), ("round", "bool"),
    ("sign", "bool"), ("square", "bool"), ("signbit", "bool"), ("signbit", "complex64"),
    ("ceil", "complex64"), ("floor", "complex128"), ("trunc", "complex64"),
    ("reciprocal", "int32"), ("reciprocal", "bool")])
def test_unsupported_dtype_raises_type_error(name, dtype):
    x = npx.asarray(np.ones(3, dtype))
    with pytest.raises(TypeError, match=name):
        getattr(npx, name)(x)
    np.testing.assert_array_equal(npx.floor(npx.asarray([1.5])).to_host(), [1.0])


# ---------------------------------------------------------------------------
# npusim's new operators accept exactly the dtypes of CANN's documents

NEW_OPERATORS = {   # operator -> (accepted input dtypes, refused input dtypes, out dtype or None)
    "aclnnAcosh": (["float16", "float32", "float64"], ["bfloat16", "int32", "complex64"], None),
    "aclnnAsinh": (["float32", "float64", "int8", "uint8", "bool"], ["bfloat16", "complex128",
                                                                     "uint16"], "float32"),
    "aclnnAtanh": (["float16", "float64", "int64"], ["bfloat16", "complex64"], "float64"),
    "aclnnSignbit": (["float32", "bfloat16", "int8", "uint64", "bool"], ["complex64"], "bool"),
    "aclnnIsPosInf": (["float16", "bfloat16", "float32", "float64"], ["int32", "complex64"],
                      "bool"),
    "aclnnIsNegInf": (["float32", "float64"], ["int64", "bool", "complex128"], "bool"),
    "aclnnReal": (["complex64", "float32", "float16"], ["float64", "int32", "bfloat16"], None),
}


def _out_dtype(op, dtype, fixed):
    if fixed:
        return dt(fixed)
    return {"complex64": np.dtype("float32")}.get(dtype, dt(dtype))


@pytest.mark.parametrize("op", sorted(NEW_OPERATORS))
def test_new_operators_dtype_tables(op):
    accepted, refused, fixed = NEW_OPERATORS[op]
    for dtype in accepted + refused:
        host = np.array([0.5, -0.0, 2.0]).astype(dt(dtype)) if dtype != "bool" \
            else np.array([True, False, True])
        x = npx.asarray(host)
        out = _ops.empty(x.shape, _out_dtype(op, dtype, fixed), x._buffer.device,
                         _ops.stream_of(x))
        if dtype in refused:
            with pytest.raises(npx.InvalidValueError) as info:
                _ops.launch(op, x, out)
            assert info.value.code == 161002
        else:
            _ops.launch(op, x, out)
            assert out.to_host().shape == (3,)


def test_real_operator_pairs_each_input_dtype_with_one_out_dtype():
    x = npx.asarray(np.array([1 + 2j], np.complex64))
    for out_dtype in ("float16", "float64"):
        out = _ops.empty((1,), np.dtype(out_dtype), x._buffer.device, _ops.stream_of(x))
        with pytest.raises(npx.InvalidValueError, match="needs out of dtype FLOAT"):
            _ops.launch("aclnnReal", x, out)
    out = _ops.empty((1,), np.dtype("float32"), x._buffer.device, _ops.stream_of(x))
    _ops.launch("aclnnReal", x, out)
    assert out.to_host().tolist() == [1.0]


def test_isneginf_and_isposinf_operators():
    host = np.array([-np.inf, np.inf, np.nan, -0.0, 1e308])
    x = npx.asarray(host)
    for op, want in [("aclnnIsPosInf", np.isposinf(host)), ("aclnnIsNegInf", np.isneginf(host))]:
        out = _ops.empty(x.shape, np.dtype(bool), x._buffer.device, _ops.stream_of(x))
        _ops.launch(op, x, out)
        np.testing.assert_array_equal(out.to_host(), want)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["expm1", "log1p"])
def test_complex_expm1_log1p_keep_digits_near_zero(rng, name, dtype):
    """Near 0, where exp(z) - 1 and log(1 + z) would cancel, the compositions stay
    within a few ulp in both parts. The reference for expm1 is NumPy's (accurate there);
    NumPy's complex log1p is log(1 + z) itself, so log1p's reference is the exact
    identity log1p(a + ib) = log1p(2a + a**2 + b**2) / 2 + i atan2(b, 1 + a) evaluated
    in long double."""
    z = (rng.uniform(-1, 1, 200) * 10.0 ** rng.uniform(-12, -1, 200)
         + 1j * rng.uniform(-1, 1, 200) * 10.0 ** rng.uniform(-12, -1, 200)).astype(dtype)
    got = getattr(npx, name)(npx.asarray(z)).to_host()
    if name == "expm1":
        want = np.expm1(z.astype(np.complex128))
    else:
        a, b = z.real.astype(np.longdouble), z.imag.astype(np.longdouble)
        want = (np.log1p(2 * a + a * a + b * b) / 2).astype(np.float64) \
            + 1j * np.arctan2(b, 1 + a).astype(np.float64)
    rtol = 2e-6 if dtype == "complex64" else 1e-14
    np.testing.assert_allclose(got.real, want.real, rtol=rtol, atol=0)
    np.testing.assert_allclose(got.imag, want.imag, rtol=rtol, atol=0)


@pytest.mark.parametrize("name,dtype", [("tanh", "float64"), ("expm1", "float64"),
                                        ("trunc", "float64"), ("acos", "complex64"),
                                        ("atanh", "complex128"), ("isinf", "complex64")])
def test_compositions_never_touch_the_host(rng, name, dtype):
    """The device compositions neither transfer nor synchronise: they run under
    transfer_guard("disallow") and are recorded by a graph capture and replayed."""
    host = rng.uniform(-0.9, 0.9, (4, 5)).astype(dtype)
    if dtype.startswith("complex"):
        host = host + 1j * rng.uniform(-0.9, 0.9, (4, 5)).astype(dtype)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(host)
        out = npx.asarray(np.zeros(host.shape, dtype=bool if name == "isinf" else dtype))
    expected = reference(numpy_of(name), host)
    with npx.transfer_guard("disallow"):
        result = getattr(npx, name)(x)
    assert_close(result, expected)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            out[...] = getattr(npx, name)(x)
        graph.replay()
        assert_close(out, expected)
    graph.destroy()
