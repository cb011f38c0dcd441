"""matmul against NumPy: 1-D, 2-D, batched and broadcast shapes, dtypes,
non-contiguous operands, empty dimensions and the array API's shape errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray._core._elementwise import inplace
from npuarray._core._linear_algebra import matmul
from test_elementwise import BF16, assert_matches, dt, random_array

SHAPES = [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)),
          ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)),
          ((1, 2, 3), (7, 3, 1)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,))]


def up(a):
    return npx.asarray(a)


def assert_product(result, a, b):
    """``result`` is ``a @ b`` in the promoted dtype, each element within the
    rounding bound of a dot product: |error| <= 2 K eps (|a| @ |b|)."""
    want = npx.result_type(a.dtype, b.dtype)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert result.dtype == want and result.shape == expected.shape
    k = a.shape[-1]
    eps = np.finfo(np.float32 if want == BF16 else want).eps if want.kind == "f" or \
        want == BF16 else 0
    bound = 2 * k * eps * np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    error = np.abs(result.to_host().astype(np.float64) - expected)
    assert np.all(error <= bound + 1e-300), (error.max(), bound.max())


def reference(a, b, dtype):
    wide = np.float64 if np.dtype(dtype).kind == "f" or dtype == BF16 else None
    if wide is None:
        return np.matmul(a, b)
    return np.matmul(a.astype(wide), b.astype(wide)).astype(dtype)


@pytest.mark.parametrize("s1,s2", SHAPES)
def test_shapes(rng, s1, s2):
    a, b = random_array(rng, s1, "float64"), random_array(rng, s2, "float64")
    assert_product(matmul(up(a), up(b)), a, b)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int32",
                                   "int64", "int8"])
def test_dtypes(rng, dtype):
    a = random_array(rng, (6, 17), dtype, low=-3, high=3)
    b = random_array(rng, (17, 5), dtype, low=-3, high=3)
    expected = reference(a, b, dt(dtype))
    result = matmul(up(a), up(b))
    if dt(dtype) in (np.float16, BF16):  # products accumulated in float32, rounded once
        np.testing.assert_allclose(result.to_host().astype(np.float64),
                                   expected.astype(np.float64), rtol=3e-2, atol=0.2)
        assert result.dtype == dt(dtype)
    elif dt(dtype) == np.float32:       # 17 rounded products: cancellation near zero
        np.testing.assert_allclose(result.to_host(), expected, rtol=1e-5, atol=1e-4)
        assert result.dtype == dt(dtype)
    else:
        assert_matches(result, expected)


def test_mixed_dtypes_promote(rng):
    a, b = random_array(rng, (3, 4), "float32"), random_array(rng, (4, 2), "float64")
    assert_product(matmul(up(a), up(b)), a, b)
    h = random_array(rng, (4, 2), "float16")
    assert_product(matmul(up(a), up(h)), a, h)


def test_larger_float32(rng):
    a, b = random_array(rng, (130, 257), "float32"), random_array(rng, (257, 66), "float32")
    np.testing.assert_allclose(matmul(up(a), up(b)).to_host(),
                               a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4,
                               atol=1e-3)


def test_non_contiguous_operands(rng):
    a, b = random_array(rng, (8, 6), "float32"), random_array(rng, (6, 8), "float32")
    x, y = up(a), up(b)
    assert_product(matmul(x.T, y.T), a.T, b.T)
    assert_product(matmul(x[::-1, 1::2], y[:3, ::-1]), a[::-1, 1::2], b[:3, ::-1])
    assert_product(matmul(x[2], y), a[2], b)
    assert_product(matmul(x[::2, 0:3], y[::-2, 5]), a[::2, 0:3], b[::-2, 5])


def test_empty_dimensions():
    z = np.zeros((3, 0), np.float32)
    w = np.zeros((0, 4), np.float32)
    assert_matches(matmul(up(z), up(w)), z @ w)              # K = 0: zeros
    assert_matches(matmul(up(w.T), up(z.T)), w.T @ z.T)      # (4, 0) @ (0, 3)
    e = np.zeros((0, 3), np.float32)
    one = np.ones((3, 2), np.float32)
    assert_matches(matmul(up(e), up(one)), e @ one)


def test_operator_and_inplace(rng):
    a, b = random_array(rng, (4, 4), "float64"), random_array(rng, (4, 4), "float64")
    x = up(a)
    assert_product(x @ up(b), a, b)
    inplace("matmul", x, up(b), matmul)
    assert_product(x, a, b)
    with pytest.raises(ValueError):
        inplace("matmul", x, up(np.ones((4, 2))), matmul)   # would change x's shape


def test_shape_errors_then_next_operation_works(rng):
    a, b = random_array(rng, (3, 4), "float32"), random_array(rng, (5, 2), "float32")
    x, y = up(a), up(b)
    with pytest.raises(ValueError):
        matmul(x, y)                                  # 4 != 5
    with pytest.raises(ValueError):
        matmul(up(np.float32(2)), y)                  # 0-d
    with pytest.raises(ValueError):
        matmul(up(np.ones((2, 3, 4), np.float32)), up(np.ones((3, 4, 2), np.float32)))
    with pytest.raises(TypeError):
        matmul(up(np.ones((2, 2), bool)), up(np.ones((2, 2), bool)))
    with pytest.raises(TypeError):
        matmul(x, a.T)                                # a host array
    assert_product(matmul(x, up(a.T)), a, a.T)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_hypothesis_batched_broadcast(data):
    m, k, n = (data.draw(st.integers(1, 5)) for _ in range(3))
    batch = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2)))
    other = tuple(1 if data.draw(st.booleans()) else d for d in batch)
    other = other[data.draw(st.integers(0, len(other))):]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    s1 = (k,) if data.draw(st.booleans()) and not batch else batch + (m, k)
    s2 = other + (k, n) if data.draw(st.booleans()) or not other else (k,)
    a, b = random_array(rng, s1, "float64"), random_array(rng, s2, "float64")
    assert_product(matmul(up(a), up(b)), a, b)
