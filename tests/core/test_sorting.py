"""sort and argsort (and the order-based searches argmax / argmin) against NumPy:
every real dtype, both orders, stability (also descending), NaN placement,
signed zeros, axes, 0-d, empty and non-contiguous input, bad arguments."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from test_elementwise import BF16, FLOATS, INTS, dt, random_array, up

REAL = ["bool"] + INTS + FLOATS


def host(a):
    return a.astype(np.float32) if a.dtype == BF16 else a


def order_keys(a):
    """Keys that NumPy's stable argsort orders ascending exactly as the standard's
    ascending order of ``a`` (NaN last)."""
    return host(a)


def descending_keys(a):
    """Keys whose stable ascending argsort is the standard's stable descending
    order of ``a``: equal elements keep their order, NaN last."""
    a = host(a)
    if a.dtype.kind == "f":
        return -a  # nan stays nan, and last
    _, rank = np.unique(a, return_inverse=True)
    return -rank.reshape(a.shape)


def expected_argsort(a, axis, descending):
    keys = descending_keys(a) if descending else order_keys(a)
    return np.argsort(keys, axis=axis, kind="stable")


def tied_data(rng, shape, dtype):
    """Random data with many ties (and NaNs / signed zeros for floats)."""
    a = random_array(rng, shape, dtype, low=-3, high=3)
    if dt(dtype).kind == "f" or dt(dtype) == BF16:
        a = rng.integers(-3, 4, size=shape).astype(np.float64)
        a[rng.random(shape) < 0.15] = np.nan
        a[rng.random(shape) < 0.1] = -0.0
        a[rng.random(shape) < 0.05] = np.inf
        a = a.astype(dt(dtype))
    if dtype == "uint64":
        a = a.astype(np.uint64) + np.uint64(2**63 - 2)  # both sides of the int64 boundary
    return a


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_stable_every_dtype(rng, dtype, descending):
    a = tied_data(rng, (6, 17), dtype)
    for axis in (0, 1, -1):
        result = npx.argsort(up(a), axis=axis, descending=descending)
        assert result.dtype == np.int64 and result.shape == a.shape
        np.testing.assert_array_equal(result.to_host(), expected_argsort(a, axis, descending))


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_every_dtype(rng, dtype, descending):
    a = tied_data(rng, (5, 13), dtype)
    for axis in (0, 1, -1):
        result = npx.sort(up(a), axis=axis, descending=descending)
        expected = np.take_along_axis(a, expected_argsort(a, axis, descending), axis)
        assert result.dtype == a.dtype and result.shape == a.shape
        got = host(result.to_host())
        expected = host(expected)
        np.testing.assert_array_equal(got, expected)
        if got.dtype.kind == "f":  # the same signed zeros, in the stable order
            np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint64"])
@pytest.mark.parametrize("descending", [False, True])
def test_unstable_is_a_valid_order(rng, dtype, descending):
    a = tied_data(rng, (4, 30), dtype)
    indices = npx.argsort(up(a), axis=1, descending=descending, stable=False).to_host()
    assert np.array_equal(np.sort(indices, axis=1), np.broadcast_to(np.arange(30), a.shape))
    values = np.take_along_axis(a, indices, 1)
    expected = np.take_along_axis(a, expected_argsort(a, 1, descending), 1)
    np.testing.assert_array_equal(values, expected)  # equal values, any tie order
    np.testing.assert_array_equal(
        npx.sort(up(a), axis=1, descending=descending, stable=False).to_host(), expected)
    # (signed zeros compare equal; NaNs are all at the end of each line)


def test_nan_goes_last_in_both_orders():
    a = np.array([np.nan, 1.0, -np.inf, np.nan, 3.0, np.inf, -0.0, 0.0], np.float32)
    for dtype in (np.float16, np.float32, np.float64, BF16):
        x = up(a.astype(dtype))
        up_sorted = npx.sort(x).to_host().astype(np.float64)
        np.testing.assert_array_equal(up_sorted[:6], [-np.inf, -0.0, 0.0, 1.0, 3.0, np.inf])
        assert np.isnan(up_sorted[6:]).all()
        down = npx.sort(x, descending=True).to_host().astype(np.float64)
        np.testing.assert_array_equal(down[:6], [np.inf, 3.0, 1.0, -0.0, 0.0, -np.inf])
        assert np.isnan(down[6:]).all()
        np.testing.assert_array_equal(npx.argsort(x, descending=True).to_host(),
                                      [5, 4, 1, 6, 7, 2, 0, 3])


def test_descending_stable_keeps_original_order_of_ties():
    a = np.array([2, 1, 2, 3, 1, 2], np.int32)
    np.testing.assert_array_equal(npx.argsort(up(a), descending=True).to_host(),
                                  [3, 0, 2, 5, 1, 4])
    b = np.array([True, False, True, False])
    np.testing.assert_array_equal(npx.argsort(up(b), descending=True).to_host(), [0, 2, 1, 3])
    np.testing.assert_array_equal(npx.argsort(up(b)).to_host(), [1, 3, 0, 2])


def test_0d_empty_and_length_1():
    with pytest.raises((ValueError, IndexError)):
        npx.sort(up(np.array(1.0)))
    with pytest.raises((ValueError, IndexError)):
        npx.argsort(up(np.array(1)))
    for shape in ((0,), (3, 0), (0, 4)):
        e = np.zeros(shape, np.float64)
        assert npx.sort(up(e)).shape == shape and npx.sort(up(e)).dtype == np.float64
        assert npx.argsort(up(e), axis=0).shape == shape
    np.testing.assert_array_equal(npx.argsort(up(np.ones((3, 1))), axis=1).to_host(),
                                  np.zeros((3, 1), np.int64))


def test_non_contiguous(rng):
    a = tied_data(rng, (8, 12), "float64")
    for view, ref in ((up(a).T, a.T), (up(a)[::-1, ::3], a[::-1, ::3]),
                      (up(a)[1::2], a[1::2])):
        for axis in (0, 1):
            np.testing.assert_array_equal(npx.argsort(view, axis=axis).to_host(),
                                          expected_argsort(ref, axis, False))
            np.testing.assert_array_equal(npx.sort(view, axis=axis, descending=True).to_host(),
                                          np.take_along_axis(ref, expected_argsort(
                                              ref, axis, True), axis))


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=4), data=st.data())
def test_sort_hypothesis(shape, data):
    dtype = data.draw(st.sampled_from(["int16", "float32", "float64", "uint8"]))
    rng = np.random.default_rng(sum(shape))
    a = tied_data(rng, tuple(shape), dtype)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    descending = data.draw(st.booleans())
    np.testing.assert_array_equal(
        npx.argsort(up(a), axis=axis, descending=descending).to_host(),
        expected_argsort(a, axis, descending))


def test_large_line(rng):
    a = rng.standard_normal(100_000).astype(np.float32)
    np.testing.assert_array_equal(npx.sort(up(a)).to_host(), np.sort(a))


@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_bad_arguments(name):
    fn = getattr(npx, name)
    x = up(np.arange(6.0).reshape(2, 3))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        fn(np.arange(3))                             # host data: an implicit upload
    with pytest.raises(TypeError):
        fn(up(np.ones(3, np.complex64)))             # no order on complex numbers
    with pytest.raises((ValueError, IndexError)):
        fn(x, axis=2)
    with pytest.raises((ValueError, IndexError)):
        fn(x, axis=-3)
    with pytest.raises(TypeError):
        fn(x, axis=(0,))
    with pytest.raises(TypeError):
        fn(x, descending="yes")
    np.testing.assert_array_equal(npx.sort(x, axis=0).to_host(), np.arange(6.0).reshape(2, 3))


def test_on_a_non_default_stream(rng):
    a = rng.standard_normal((50, 40))
    with npx.Stream() as s:
        x = up(a)
        r = npx.sort(x, axis=0, descending=True), npx.argsort(x, axis=1)
        s.synchronize()
    np.testing.assert_array_equal(r[0].to_host(), -np.sort(-a, axis=0))
    np.testing.assert_array_equal(r[1].to_host(), np.argsort(a, axis=1, kind="stable"))


# ---------------------------------------------------------------------------
# argmax / argmin

@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax_argmin_every_real_dtype(rng, name, dtype, keepdims):
    a = tied_data(rng, (4, 9), dtype)
    if a.dtype.kind == "f":
        a[np.isnan(a)] = 1  # NaN placement is checked below
    for axis in (None, 0, 1, -1):
        result = getattr(npx, name)(up(a), axis=axis, keepdims=keepdims)
        expected = getattr(np, name)(host(a), axis=axis, keepdims=keepdims)
        assert result.dtype == np.int64 and result.shape == expected.shape
        np.testing.assert_array_equal(result.to_host(), expected)


def test_argmax_uint64_extremes():
    a = np.array([5, 2**64 - 1, 2**63, 2**63 - 1, 0, 2**64 - 1], np.uint64)
    assert npx.argmax(up(a)).to_host() == 1
    assert npx.argmin(up(a)).to_host() == 4
    np.testing.assert_array_equal(npx.argmax(up(a.reshape(2, 3)), axis=1).to_host(), [1, 2])


def test_argmax_nan_first_occurrence():
    a = np.array([1.0, np.nan, 3.0, np.nan])
    assert npx.argmax(up(a)).to_host() == np.argmax(a) == 1
    assert npx.argmin(up(a)).to_host() == np.argmin(a) == 1


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_bad_arguments(name):
    fn = getattr(npx, name)
    with pytest.raises(ValueError):
        fn(up(np.zeros((0, 3))))
    with pytest.raises(ValueError):
        fn(up(np.zeros((0, 3))), axis=0)
    with pytest.raises((ValueError, IndexError)):
        fn(up(np.zeros((2, 3))), axis=2)
    with pytest.raises(TypeError):
        fn(up(np.zeros(3, np.complex128)))
    assert fn(up(np.array([1, 5, 2], np.uint64))).to_host() == (1 if name == "argmax" else 0)


# ---------------------------------------------------------------------------
# The sort and scan kernels under the sanitizers (a C program against npusim)

@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["release", "asan", "tsan"])
def test_sort_and_cumprod_kernels_in_c(variant):
    from cbuild import run_program_or_skip
    out = run_program_or_skip("aclnn_sort_scan.cpp", variant=variant, timeout=300)
    assert "aclnn_sort_scan ok" in out
