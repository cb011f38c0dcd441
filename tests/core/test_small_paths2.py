"""Small reductions, arg-extrema and matmul through their memoised fast paths
repeated calls with the same (dtype, shape, axis, keepdims)
reuse a plan, so every test calls twice or more with new data, with views of
other strides, and checks that bad input after a memoised call still fails."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx

FLOATS = ["float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def data(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(dtype)


def assert_close_to(result, expected):
    result = result.to_host()
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-5 if expected.dtype.kind in "fc" else 0,
                               atol=1e-6 if expected.dtype.kind in "fc" else 0)


REDUCTIONS = [("sum", lambda a, **k: np.sum(a, **k)), ("max", np.max), ("min", np.min)]


@pytest.mark.parametrize("name,reference", REDUCTIONS)
@pytest.mark.parametrize("dtype", FLOATS + INTS + ["bool"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_repeated_reductions_match_numpy(rng, name, reference, dtype, axis, keepdims):
    fn = getattr(npx, name)
    for _ in range(3):  # the first call makes the plan, the next ones use it
        a = data(rng, (10, 7), dtype)
        assert_close_to(fn(npx.asarray(a), axis=axis, keepdims=keepdims),
              np.asarray(reference(a, axis=axis, keepdims=keepdims)))


@pytest.mark.parametrize("name,reference", REDUCTIONS + [("mean", np.mean)])
def test_plan_serves_views_of_other_strides(rng, name, reference):
    fn = getattr(npx, name)
    base = rng.standard_normal((12, 16)).astype(np.float32)
    contiguous = base[:6, :8].copy()
    assert_close_to(fn(npx.asarray(contiguous), axis=1), reference(contiguous, axis=1))
    d = npx.asarray(base)
    for view, host in [(d[::2, ::2], base[::2, ::2]), (d[::-2, 1::2], base[::-2, 1::2]),
                       (d[:8, :6].T, base[:8, :6].T)]:
        assert_close_to(fn(view, axis=1), reference(host, axis=1))


def test_sum_dtype_argument_keys_the_plan(rng):
    a = data(rng, (4, 5), "int32")
    d = npx.asarray(a)
    for _ in range(2):
        assert_close_to(npx.sum(d, axis=1), a.sum(axis=1))
        assert_close_to(npx.sum(d, axis=1, dtype=npx.int32), a.sum(axis=1, dtype=np.int32))
        assert_close_to(npx.sum(d, axis=1, dtype=npx.float64), a.sum(axis=1, dtype=np.float64))


def test_mean_repeated(rng):
    for dtype in ["float32", "float64", "int32"]:
        for _ in range(2):
            a = data(rng, (6, 5), dtype)
            assert_close_to(npx.mean(npx.asarray(a), axis=0), a.mean(axis=0))


@pytest.mark.parametrize("name", ["max", "min"])
def test_extrema_nan_propagate_after_plan(rng, name):
    a = rng.standard_normal((5, 8)).astype(np.float32)
    getattr(npx, name)(npx.asarray(a), axis=1)
    a[2, 3] = np.nan
    assert_close_to(getattr(npx, name)(npx.asarray(a), axis=1), getattr(np, name)(a, axis=1))


@pytest.mark.parametrize("name", ["sum", "max", "min", "mean"])
def test_bad_axes_still_fail_after_plan(rng, name):
    fn = getattr(npx, name)
    d = npx.asarray(rng.standard_normal((3, 4)).astype(np.float32))
    fn(d, axis=1)
    fn(d, axis=(0, 1))
    with pytest.raises(TypeError):
        fn(d, axis=True)  # equal to 1, but not an axis
    with pytest.raises(TypeError):
        fn(d, axis=(False, True))
    with pytest.raises(np.exceptions.AxisError):
        fn(d, axis=2)
    with pytest.raises(ValueError):
        fn(d, axis=(1, 1))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        fn(d.to_host(), axis=1)  # a NumPy array: an implicit upload
    assert_close_to(fn(d, axis=1), getattr(np, name)(d.to_host(), axis=1))


def test_extrema_over_empty_axis_raise_every_time():
    d = npx.zeros((3, 0), dtype=npx.float32)
    for _ in range(2):
        with pytest.raises(ValueError):
            npx.max(d, axis=1)
        assert_close_to(npx.max(d, axis=0), np.zeros((0,), np.float32))
        assert_close_to(npx.sum(d, axis=1), np.zeros(3, np.float32))


def test_zero_d_and_complex(rng):
    for _ in range(2):
        scalar = np.asarray(2.5, dtype=np.float32)
        assert_close_to(npx.sum(npx.asarray(scalar), axis=()), np.sum(scalar, axis=()))
        c = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(np.complex64)
        assert_close_to(npx.sum(npx.asarray(c), axis=0), c.sum(axis=0))
        with pytest.raises(TypeError):
            npx.max(npx.asarray(c), axis=0)


def test_reductions_on_another_stream(rng):
    a = rng.standard_normal((10, 64)).astype(np.float32)
    d = npx.asarray(a)
    npx.sum(d, axis=1)
    stream = npx.Stream()
    with stream:
        result = npx.sum(d * d, axis=1)
    stream.synchronize()
    assert_close_to(result, (a * a).sum(axis=1))


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3), seed=st.integers(0, 2**32 - 1),
       keepdims=st.booleans(), data_=st.data())
def test_hypothesis_shapes_twice(shape, seed, keepdims, data_):
    rng = np.random.default_rng(seed)
    axis = data_.draw(st.integers(-len(shape), len(shape) - 1))
    for _ in range(2):
        a = rng.standard_normal(shape).astype(np.float32)
        for name in ["sum", "max", "min"]:
            assert_close_to(getattr(npx, name)(npx.asarray(a), axis=axis, keepdims=keepdims),
                  getattr(np, name)(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.parametrize("dtype", FLOATS + ["int32", "uint8", "int64"])
@pytest.mark.parametrize("shape", [(1797, 10), (70, 1), (5, 32), (130, 33), (3, 2, 7)])
def test_arg_extrema_short_lines(rng, name, dtype, shape):
    """Lines up to 32 long are searched as columns of transposed chunks of 64 lines."""
    a = data(rng, shape, dtype)
    if np.dtype(dtype).kind == "f":
        a = np.round(a, 1)  # ties: the first occurrence wins
    for keepdims in [False, True]:
        assert_close_to(getattr(npx, name)(npx.asarray(a), axis=-1, keepdims=keepdims),
              getattr(np, name)(a, axis=-1, keepdims=keepdims))


@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_arg_extrema_short_lines_nan_and_views(rng, name):
    a = rng.standard_normal((150, 24))
    a[3, 5] = a[3, 9] = np.nan  # the first NaN wins
    a[100, 0] = np.nan
    a[149, 23] = np.nan
    fn = getattr(npx, name)
    for dtype in FLOATS:
        h = a.astype(dtype)
        d = npx.asarray(h)
        assert_close_to(fn(d, axis=1), getattr(np, name)(h, axis=1))
        assert_close_to(fn(d[::3, ::2], axis=1), getattr(np, name)(h[::3, ::2], axis=1))
        assert_close_to(fn(d[::-1, 4:20], axis=1), getattr(np, name)(h[::-1, 4:20], axis=1))
        assert_close_to(fn(d[:20].T, axis=0), getattr(np, name)(h[:20].T, axis=0))


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 200), length=st.integers(1, 40), seed=st.integers(0, 2**32 - 1))
def test_arg_extrema_hypothesis(rows, length, seed):
    a = np.round(np.random.default_rng(seed).standard_normal((rows, length)), 1).astype(np.float32)
    for name in ["argmin", "argmax"]:
        assert_close_to(getattr(npx, name)(npx.asarray(a), axis=1), getattr(np, name)(a, axis=1))


@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_arg_extrema_repeated_and_bad_input(rng, name):
    fn = getattr(npx, name)
    for dtype in ["float32", "uint64", "bool", "int8"]:
        for _ in range(3):  # plan made, then used
            a = data(rng, (9, 6), dtype)
            for axis in [0, 1, -1]:
                assert_close_to(fn(npx.asarray(a), axis=axis), getattr(np, name)(a, axis=axis))
            assert_close_to(fn(npx.asarray(a)), np.asarray(getattr(np, name)(a)))
    d = npx.asarray(rng.standard_normal((9, 6)).astype(np.float32))
    with pytest.raises(np.exceptions.AxisError):
        fn(d, axis=2)
    with pytest.raises(TypeError):
        fn(d, axis=(1,))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        fn(d.to_host(), axis=1)  # a NumPy array: an implicit upload
    with pytest.raises(ValueError):
        fn(npx.zeros((3, 0), dtype=npx.float32), axis=1)
    with pytest.raises(ValueError):
        fn(npx.zeros((3, 0), dtype=npx.float32), axis=1)
    assert_close_to(fn(d, axis=1), getattr(np, name)(d.to_host(), axis=1))


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1797, 10), (65, 1), (130, 32), (7, 33), (300, 64), (40, 200)])
def test_row_reductions_short_and_medium_rows(rng, name, dtype, shape):
    """Rows up to 32 long fold as transposed chunks of 64 rows; max/min of rows from 16
    elements run in 8 lanes."""
    a = rng.standard_normal(shape).astype(dtype)
    a[shape[0] // 2, shape[1] - 1] = np.nan  # NaN propagates in its row only
    for keepdims in [False, True]:
        assert_close_to(getattr(npx, name)(npx.asarray(a), axis=1, keepdims=keepdims),
              getattr(np, name)(a, axis=1, keepdims=keepdims))
    d = npx.asarray(a)
    assert_close_to(getattr(npx, name)(d[::-2, ::2], axis=1), getattr(np, name)(a[::-2, ::2], axis=1))


@pytest.mark.parametrize("name", ["max", "min"])
def test_extrema_signed_zero_and_infinities_short_rows(name):
    a = np.tile(np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 2.0, -2.0], np.float32), (100, 2))
    assert_close_to(getattr(npx, name)(npx.asarray(a), axis=1), getattr(np, name)(a, axis=1))


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_full_reduction_of_strided_short_rows(rng, name):
    """Rows that all fold into one accumulator (a strided full reduction) are not
    transposed into rows of their own."""
    a = rng.standard_normal((200, 20))
    d = npx.asarray(a)
    for view, host in [(d[:, ::2], a[:, ::2]), (d[::2, :5], a[::2, :5]), (d[:4, :5].T, a[:4, :5].T)]:
        for keepdims in [False, True]:
            assert_close_to(getattr(npx, name)(view, keepdims=keepdims),
                  np.asarray(getattr(np, name)(host, keepdims=keepdims)))


@pytest.mark.parametrize("shapes", [((1797, 64), (64, 10)), ((4, 8), (8, 3)), ((8,), (8, 3)),
                                    ((4, 8), (8,)), ((8,), (8,)), ((2, 1, 3, 4), (5, 4, 2))])
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int32"])
def test_matmul_repeated(rng, shapes, dtype):
    """The second and later products of the same shapes and dtype reuse the planned shape."""
    s1, s2 = shapes
    tol = {"float16": 2e-2, "float32": 1e-4}.get(dtype, 1e-12)
    for _ in range(3):
        a, b = data(rng, s1, dtype), data(rng, s2, dtype)
        if np.dtype(dtype).kind == "f":
            a, b = (rng.standard_normal(s1) / 4).astype(dtype), (rng.standard_normal(s2) / 4).astype(dtype)
        result = npx.matmul(npx.asarray(a), npx.asarray(b)).to_host()
        expected = np.matmul(a, b)
        assert result.dtype == expected.dtype and result.shape == expected.shape
        np.testing.assert_allclose(result, expected, rtol=tol, atol=tol)


def test_matmul_plan_views_mixed_dtypes_and_errors(rng):
    a = rng.standard_normal((20, 64)).astype(np.float32)
    c = rng.standard_normal((10, 64)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(c)
    for _ in range(2):
        np.testing.assert_allclose(npx.matmul(x, y.T).to_host(), a @ c.T, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(npx.matmul(x[::-1], y.T).to_host(), a[::-1] @ c.T,
                                   rtol=1e-4, atol=1e-4)
    y64 = npx.asarray(c.T.astype(np.float64))  # same shape as y.T, promoted product
    result = npx.matmul(x, y64)
    assert result.dtype == npx.float64
    np.testing.assert_allclose(result.to_host(), a.astype(np.float64) @ c.T.astype(np.float64))
    with pytest.raises(ValueError):
        npx.matmul(x, y)  # contracted dimensions differ
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        npx.matmul(x, c.T)  # a NumPy operand: an implicit upload
    with pytest.raises(TypeError):
        npx.matmul(npx.asarray(a > 0), npx.asarray(c.T > 0))
    np.testing.assert_allclose(npx.matmul(x, y.T).to_host(), a @ c.T, rtol=1e-4, atol=1e-4)


def test_matmul_empty_and_zero_k():
    for _ in range(2):
        assert npx.matmul(npx.zeros((0, 3), dtype=npx.float32),
                          npx.zeros((3, 2), dtype=npx.float32)).shape == (0, 2)
        np.testing.assert_array_equal(npx.matmul(npx.ones((2, 0), dtype=npx.float32),
                                                 npx.ones((0, 3), dtype=npx.float32)).to_host(),
                                      np.zeros((2, 3), np.float32))
