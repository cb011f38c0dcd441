"""numpy.unravel_index and numpy.ravel_multi_index on the device, against NumPy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx


def assert_coordinates(result, expected):
    assert isinstance(result, tuple) and len(result) == len(expected)
    for r, e in zip(result, expected):
        assert r.dtype == npx.int64
        np.testing.assert_array_equal(r.to_host(), e)


@settings(max_examples=40, deadline=None)
@given(dims=st.lists(st.integers(1, 5), min_size=1, max_size=4),
       index_shape=st.sampled_from([(), (0,), (5,), (2, 3)]),
       order=st.sampled_from("CF"), seed=st.integers(0, 2 ** 16))
def test_unravel_then_ravel_round_trips_like_numpy(dims, index_shape, order, seed):
    size = int(np.prod(dims))
    flat = np.random.default_rng(seed).integers(0, size, index_shape)
    coordinates = np.unravel_index(flat, dims, order=order)
    result = npx.unravel_index(npx.asarray(flat), dims, order=order)
    assert_coordinates(result, coordinates)
    raveled = npx.ravel_multi_index(result, dims, order=order)
    np.testing.assert_array_equal(raveled.to_host(), np.ravel_multi_index(coordinates, dims,
                                                                           order=order))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint64])
def test_any_integer_dtype(dtype):
    flat = np.array([0, 3, 11], dtype=dtype)
    assert_coordinates(npx.unravel_index(npx.asarray(flat), (3, 4)), np.unravel_index(flat, (3, 4)))


def test_scalar_index_and_int_shape():
    assert_coordinates(npx.unravel_index(7, (3, 4)), np.unravel_index(7, (3, 4)))
    assert_coordinates(npx.unravel_index(npx.asarray([4, 2]), 5), np.unravel_index([4, 2], 5))


@pytest.mark.parametrize("mode", ["wrap", "clip", ("wrap", "clip"), ("clip", "raise")])
def test_ravel_modes_and_broadcasting(mode):
    rows = np.array([[3], [-1], [1]])
    cols = np.array([1, 2])
    if mode == ("clip", "raise"):
        cols = np.array([0, 3])
    expected = np.ravel_multi_index((rows, cols), (3, 4), mode=mode)
    result = npx.ravel_multi_index((npx.asarray(rows), npx.asarray(cols)), (3, 4), mode=mode)
    np.testing.assert_array_equal(result.to_host(), expected)


def test_bad_input_raises_and_the_next_call_works():
    with pytest.raises(ValueError, match="out of bounds"):
        npx.unravel_index(npx.asarray([0, 12]), (3, 4))
    with pytest.raises(ValueError, match="out of bounds"):
        npx.unravel_index(-1, (3, 4))
    with pytest.raises(TypeError, match="int"):
        npx.unravel_index(npx.asarray([1.0]), (3, 4))
    with pytest.raises(ValueError, match="order"):
        npx.unravel_index(1, (3, 4), order="K")
    with pytest.raises(ValueError, match="invalid entry"):
        npx.ravel_multi_index((npx.asarray([3]), npx.asarray([0])), (3, 4))
    with pytest.raises(ValueError, match="length 2"):
        npx.ravel_multi_index((npx.asarray([1]),), (3, 4))
    with pytest.raises(ValueError, match="clipmode"):
        npx.ravel_multi_index((npx.asarray([1]), npx.asarray([1])), (3, 4), mode="bounce")
    assert_coordinates(npx.unravel_index(npx.asarray([11]), (3, 4)), ([2], [3]))


def test_numpy_functions_dispatch_to_the_device():
    result = np.unravel_index(npx.asarray([5, 6]), (3, 4))
    assert isinstance(result[0], npx.NPUArray)
    assert_coordinates(result, np.unravel_index([5, 6], (3, 4)))


def test_dask_flat_argmax_and_argmin_stay_on_the_device(rng):
    da = pytest.importorskip("dask.array", reason="needs dask[array]")
    a = rng.standard_normal((6, 4))
    d = da.from_array(npx.asarray(a), chunks=(3, 2))
    with npx.transfer_guard("disallow"):
        largest, smallest = d.argmax().compute(), d.argmin().compute()
    assert int(largest.to_host()) == a.argmax() and int(smallest.to_host()) == a.argmin()
