"""sum, mean, max, min, argmax, argmin against NumPy: axes, keepdims, dtypes,
0-d, empty and non-contiguous input, and bad arguments."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray._core import _searching, _statistical
from test_elementwise import BF16, assert_matches, dt, random_array

AXES = [None, 0, 1, -1, (0, 2), (2, 0), (0, 1, 2), ()]


def up(a):
    return npx.asarray(a)


def assert_sum_close(result, a, dtype, *, axis=None, keepdims=False, mean=False):
    """``result`` is the sum (or mean) of ``a`` over ``axis`` with dtype ``dtype``,
    within the rounding bound of a floating sum: n eps sum|a| + eps |exact|."""
    dtype = np.dtype(dtype)
    assert result.dtype == dtype
    wide = np.complex128 if dtype.kind == "c" else np.float64
    exact = np.sum(a.astype(wide), axis=axis, keepdims=keepdims)
    magnitude = np.sum(np.abs(a).astype(np.float64), axis=axis, keepdims=keepdims)
    n = max(a.size // max(exact.size, 1), 1)
    if mean:
        exact, magnitude = exact / n, magnitude / n
    assert result.shape == np.shape(exact)
    eps = float((ml_dtypes.finfo if dtype == BF16 else np.finfo)(dtype).eps)
    error = np.abs(result.to_host().astype(wide) - exact)
    assert np.all(error <= 2 * n * eps * magnitude + eps * np.abs(exact) + 1e-300), error.max()


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_axes(rng, axis, keepdims):
    a = random_array(rng, (3, 4, 5), "float64")
    if axis == ():
        assert_matches(_statistical.sum(up(a), axis=axis, keepdims=keepdims), a)
        return
    assert_sum_close(_statistical.sum(up(a), axis=axis, keepdims=keepdims), a, a.dtype,
                     axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8",
                                   "uint16", "uint32", "uint64", "float16", "bfloat16",
                                   "float32", "float64", "complex64", "complex128"])
def test_sum_dtypes(rng, dtype):
    a = random_array(rng, (7, 6), dtype)
    if dt(dtype) == BF16 or dt(dtype).kind in "fc":
        assert_sum_close(_statistical.sum(up(a), axis=1), a, dt(dtype), axis=1)
        assert_sum_close(_statistical.sum(up(a)), a, dt(dtype))
        return
    expected = np.sum(a, axis=1)  # integers: exact, in int64 / uint64
    assert_matches(_statistical.sum(up(a), axis=1), expected)
    assert_matches(_statistical.sum(up(a)), np.sum(a))


def test_sum_integer_accumulation_and_dtype_argument(rng):
    a = np.full((1000,), 100, np.int8)                  # 100000 overflows int8 / int16
    assert_matches(_statistical.sum(up(a)), np.sum(a))  # int64, as NumPy
    u = np.array([2**32 - 1, 5], np.uint32)
    assert_matches(_statistical.sum(up(u)), np.sum(u))  # uint64
    f = random_array(rng, (10,), "float32")
    assert_matches(_statistical.sum(up(f), dtype=np.float64), np.sum(f, dtype=np.float64))
    assert_matches(_statistical.sum(up(a), dtype=np.int8), np.sum(a, dtype=np.int8))


def test_sum_large_float32(rng):
    a = random_array(rng, (1 << 20,), "float32")
    result = _statistical.sum(up(a)).to_host()
    np.testing.assert_allclose(result, np.sum(a.astype(np.float64)), rtol=1e-5)


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "bool",
                                   "complex64"])
def test_mean(rng, axis, dtype):
    a = random_array(rng, (3, 4, 5), dtype)
    want = np.mean(a[:1, :1, :1]).dtype  # NumPy's result dtype (float64 for int, bool)
    if axis == ():
        assert_matches(_statistical.mean(up(a), axis=axis), a.astype(want))
        return
    assert_sum_close(_statistical.mean(up(a), axis=axis), a, want, axis=axis, mean=True)


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_max_min_axes(rng, name, axis, keepdims):
    a = random_array(rng, (3, 4, 5), "float32")
    assert_matches(getattr(_statistical, name)(up(a), axis=axis, keepdims=keepdims),
                   getattr(np, name)(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8",
                                   "uint16", "uint32", "float16", "bfloat16", "float64"])
def test_max_min_dtypes(rng, name, dtype):
    a = random_array(rng, (5, 6), dtype)
    assert_matches(getattr(_statistical, name)(up(a), axis=0), getattr(np, name)(a, axis=0))


def test_max_min_propagate_nan():
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], np.float32)
    assert_matches(_statistical.max(up(a), axis=1), np.max(a, axis=1))
    assert_matches(_statistical.min(up(a), axis=0), np.min(a, axis=0))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax_argmin(rng, name, axis, keepdims):
    a = random_array(rng, (4, 7), "float32")
    assert_matches(getattr(_searching, name)(up(a), axis=axis, keepdims=keepdims),
                   getattr(np, name)(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "uint8", "uint16", "uint32",
                                   "int64", "float16", "bfloat16", "float64"])
def test_argmax_argmin_dtypes_and_ties(rng, name, dtype):
    a = random_array(rng, (6, 5), dtype, low=0, high=3)  # many ties: first one wins
    assert_matches(getattr(_searching, name)(up(a), axis=1), getattr(np, name)(a, axis=1))
    assert_matches(getattr(_searching, name)(up(a)), getattr(np, name)(a))


def test_argmax_nan_is_the_maximum():
    a = np.array([1.0, np.nan, 5.0, np.nan], np.float32)
    assert_matches(_searching.argmax(up(a)), np.argmax(a))
    assert_matches(_searching.argmin(up(a)), np.argmin(a))


def test_reductions_of_non_contiguous_views(rng):
    a = random_array(rng, (6, 8), "float32")
    x = up(a)
    assert_sum_close(_statistical.sum(x.T[::-1], axis=0), a.T[::-1], a.dtype, axis=0)
    assert_matches(_statistical.max(x[1::2, ::-3], axis=1), np.max(a[1::2, ::-3], axis=1))
    assert_matches(_searching.argmin(x[::-1, 2:].T), np.argmin(a[::-1, 2:].T))
    assert_matches(_searching.argmax(x.T, axis=0), np.argmax(a.T, axis=0))


def test_zero_dimensional_and_empty():
    s = np.array(3.5, np.float32)
    assert_matches(_statistical.sum(up(s)), np.sum(s))
    assert_matches(_statistical.max(up(s)), np.max(s))
    assert_matches(_searching.argmax(up(s)), np.argmax(s))
    e = np.zeros((0, 3), np.float32)
    assert_matches(_statistical.sum(up(e), axis=0), np.sum(e, axis=0))
    assert_matches(_statistical.sum(up(e)), np.sum(e))
    assert_matches(_statistical.max(up(e), axis=1), np.max(e, axis=1))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        expected = np.mean(e, axis=0)
    assert_matches(_statistical.mean(up(e), axis=0), expected)
    with pytest.raises(ValueError):
        _statistical.max(up(e))
    with pytest.raises(ValueError):
        _statistical.min(up(e), axis=0)
    with pytest.raises(ValueError):
        _searching.argmax(up(e))


def test_bad_axes_then_next_operation_works(rng):
    a = random_array(rng, (2, 3), "float32")
    x = up(a)
    with pytest.raises(np.exceptions.AxisError):
        _statistical.sum(x, axis=2)
    with pytest.raises(ValueError):
        _statistical.sum(x, axis=(0, -2))
    with pytest.raises(IndexError):
        _searching.argmax(x, axis=-3)
    with pytest.raises(TypeError):
        _statistical.max(up(np.ones(2, np.complex64)))
    with pytest.raises(TypeError):
        _statistical.sum(x, axis=1.0)
    assert_matches(_statistical.sum(x, axis=0), a.sum(axis=0))


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis_reductions(data):
    ndim = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=ndim, max_size=ndim)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a = random_array(rng, shape, "float64")
    axes = data.draw(st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda i: i % ndim,
                              max_size=ndim))
    axis = tuple(axes) if data.draw(st.booleans()) else None
    keepdims = data.draw(st.booleans())
    x = up(a)
    if data.draw(st.booleans()):
        x, a = x[..., ::-1], a[..., ::-1]
    assert_sum_close(_statistical.sum(x, axis=axis, keepdims=keepdims), a, a.dtype,
                     axis=axis, keepdims=keepdims)
    assert_matches(_statistical.min(x, axis=axis, keepdims=keepdims),
                   np.min(a, axis=axis, keepdims=keepdims))
    one = data.draw(st.integers(-ndim, ndim - 1))
    assert_matches(_searching.argmax(x, axis=one), np.argmax(a, axis=one))
