"""take, take_along_axis (aclnnIndexSelect, aclnnGather) and 0-d index arrays in
__getitem__/__setitem__, against NumPy."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx

DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64",
                                "complex64", "complex128")] + [np.dtype(ml_dtypes.bfloat16)]
INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _values(rng, shape, dtype):
    values = rng.integers(-50, 50, size=shape)
    if dtype.kind == "c":
        return (values + 1j * rng.integers(-5, 5, size=shape)).astype(dtype)
    if dtype.kind == "u":
        values = np.abs(values)
    return values.astype(dtype)


def _assert_same(got, want):
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.to_host(), want)


# -- take ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_take_every_dtype(rng, dtype, axis):
    host = _values(rng, (3, 4, 5), dtype)
    n = host.shape[axis]
    indices = rng.integers(-n, n, size=7)
    _assert_same(npx.take(npx.asarray(host), npx.asarray(indices), axis=axis),
          np.take(host, indices, axis=axis))


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=lambda d: np.dtype(d).name)
def test_take_index_dtypes(rng, index_dtype):
    host = rng.standard_normal(6)
    indices = np.array([5, 0, 3, 3], dtype=index_dtype)
    _assert_same(npx.take(npx.asarray(host), npx.asarray(indices)), np.take(host, indices))


def test_take_views_and_axis_none(rng):
    host = rng.standard_normal((6, 8))
    x = npx.asarray(host)
    indices = np.array([-1, 0, 2])
    idx = npx.asarray(indices)
    _assert_same(npx.take(x.T, idx, axis=0), np.take(host.T, indices, axis=0))
    _assert_same(npx.take(x[::2, 1::3], idx, axis=1), np.take(host[::2, 1::3], indices, axis=1))
    _assert_same(npx.take(x[::-1, ::-1], idx, axis=1), np.take(host[::-1, ::-1], indices, axis=1))
    _assert_same(npx.take(x[1], npx.asarray(np.array([7, -8]))[::-1]), np.take(host[1], [-8, 7]))
    _assert_same(npx.take(x[2], idx), np.take(host[2], indices))  # axis optional for 1-D x


def test_take_empty_and_zero_dim(rng):
    host = rng.standard_normal((3, 4))
    x = npx.asarray(host)
    none = npx.zeros((0,), dtype=npx.int64)
    _assert_same(npx.take(x, none, axis=1), np.take(host, np.zeros(0, np.int64), axis=1))
    _assert_same(npx.take(x[:0], npx.asarray(np.array([1, 2])), axis=1),
          np.take(host[:0], [1, 2], axis=1))
    _assert_same(npx.take(npx.asarray(5.0), npx.asarray(np.array([0, -1]))), np.take(np.array(5.0), [0, -1]))


def test_take_nd_indices_as_numpy(rng):
    host = rng.standard_normal((4, 5))
    indices = rng.integers(-5, 5, size=(2, 3))
    _assert_same(npx.take(npx.asarray(host), npx.asarray(indices), axis=1),
          np.take(host, indices, axis=1))


def test_take_out_of_bounds_raises_and_next_call_works(rng):
    x = npx.asarray(rng.standard_normal((3, 4)))
    for bad in ([4], [-5], [0, 9]):
        with pytest.raises(IndexError):
            npx.take(x, npx.asarray(np.array(bad)), axis=1)
    with pytest.raises(IndexError):
        npx.take(x[:, :0], npx.asarray(np.array([0])), axis=1)
    # Without axis, NumPy's take indexes the flattened array.
    np.testing.assert_array_equal(npx.take(x, npx.asarray(np.array([5]))).to_host(),
                                  np.take(x.to_host(), [5]))
    with pytest.raises(np.exceptions.AxisError):
        npx.take(x, npx.asarray(np.array([0])), axis=2)
    with pytest.raises(TypeError):
        npx.take(x, npx.asarray(np.array([0.0])), axis=0)
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        npx.take(x, [0], axis=0)  # host indices: an implicit upload
    _assert_same(npx.take(x, npx.asarray(np.array([3])), axis=1), np.take(x.to_host(), [3], axis=1))


def test_take_on_a_non_default_stream(rng):
    host = rng.standard_normal((50, 3))
    indices = rng.integers(-50, 50, size=40)
    with npx.Stream():
        _assert_same(npx.take(npx.asarray(host), npx.asarray(indices), axis=0),
              np.take(host, indices, axis=0))


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_take_random(shape, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    host = rng.standard_normal(shape).astype(np.float32)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    indices = rng.integers(-n, n, size=data.draw(st.integers(0, 6)))
    _assert_same(npx.take(npx.asarray(host), npx.asarray(indices), axis=axis),
          np.take(host, indices, axis=axis))


# -- take_along_axis ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take_along_axis_every_dtype(rng, dtype, axis):
    host = _values(rng, (3, 4, 5), dtype)
    n = host.shape[axis]
    shape = list(host.shape)
    shape[axis] = 6
    indices = rng.integers(-n, n, size=shape)
    _assert_same(npx.take_along_axis(npx.asarray(host), npx.asarray(indices), axis=axis),
          np.take_along_axis(host, indices, axis=axis))


def test_take_along_axis_argsort_round_trip(rng):
    host = rng.standard_normal((4, 7))
    order = np.argsort(host, axis=1)
    _assert_same(npx.take_along_axis(npx.asarray(host), npx.asarray(order), axis=1), np.sort(host, axis=1))


def test_take_along_axis_broadcasts_outside_axis(rng):
    host = rng.standard_normal((3, 1, 5))
    indices = rng.integers(0, 5, size=(1, 4, 2))
    _assert_same(npx.take_along_axis(npx.asarray(host), npx.asarray(indices), axis=2),
          np.take_along_axis(host, indices, axis=2))


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=lambda d: np.dtype(d).name)
def test_take_along_axis_index_dtypes_and_views(rng, index_dtype):
    host = rng.standard_normal((5, 6))
    indices = rng.integers(0, 5, size=(3, 6)).astype(index_dtype)
    x = npx.asarray(host)
    _assert_same(npx.take_along_axis(x, npx.asarray(indices), axis=0),
          np.take_along_axis(host, indices, axis=0))
    _assert_same(npx.take_along_axis(x.T, npx.asarray(indices).T, axis=1),
          np.take_along_axis(host.T, indices.T, axis=1))
    _assert_same(npx.take_along_axis(x[::-1, ::2], npx.asarray(indices)[:, ::2], axis=0),
          np.take_along_axis(host[::-1, ::2], indices[:, ::2], axis=0))


def test_take_along_axis_empty(rng):
    host = rng.standard_normal((3, 4))
    indices = np.zeros((3, 0), dtype=np.int64)
    _assert_same(npx.take_along_axis(npx.asarray(host), npx.asarray(indices), axis=1),
          np.take_along_axis(host, indices, axis=1))
    _assert_same(npx.take_along_axis(npx.asarray(host[:0]), npx.zeros((0, 2), dtype=npx.int64), axis=1),
          np.take_along_axis(host[:0], np.zeros((0, 2), np.int64), axis=1))


def test_take_along_axis_errors_then_next_call_works(rng):
    x = npx.asarray(rng.standard_normal((3, 4)))
    with pytest.raises(IndexError):
        npx.take_along_axis(x, npx.asarray(np.array([[4]])), axis=1)
    with pytest.raises(IndexError):
        npx.take_along_axis(x, npx.asarray(np.array([[-5]])), axis=1)
    with pytest.raises(ValueError):
        npx.take_along_axis(x, npx.asarray(np.array([0])), axis=1)  # ndim differs
    with pytest.raises(ValueError):
        npx.take_along_axis(x, npx.asarray(np.zeros((2, 1), np.int64)), axis=1)  # no broadcast
    with pytest.raises(np.exceptions.AxisError):
        npx.take_along_axis(x, npx.asarray(np.zeros((1, 1), np.int64)), axis=2)
    with pytest.raises(IndexError, match="integer"):  # NumPy's error
        npx.take_along_axis(x, npx.asarray(np.zeros((1, 1))), axis=1)
    with pytest.raises(ValueError, match="single dimension"):
        npx.take_along_axis(x, npx.asarray(np.zeros((1, 1), np.int64)), axis=None)
    _assert_same(npx.take_along_axis(x, npx.asarray(np.array([[3], [0], [1]])), axis=1),
          np.take_along_axis(x.to_host(), np.array([[3], [0], [1]]), axis=1))


def test_take_along_axis_numpy_forms_host_operands_and_axis_none(rng):
    host = rng.standard_normal((3, 4))
    indices = rng.integers(-12, 12, size=7)
    x = npx.asarray(host)
    _assert_same(npx.take_along_axis(x, indices, None), np.take_along_axis(host, indices, None))
    rows = rng.integers(0, 4, size=(3, 2))
    for got in (npx.take_along_axis(x, rows, 1), npx.take_along_axis(host, npx.asarray(rows), 1),
                np.take_along_axis(host, npx.asarray(rows), 1),
                np.take_along_axis(x, rows, axis=1)):
        assert isinstance(got, npx.NPUArray)
        _assert_same(got, np.take_along_axis(host, rows, 1))


# -- 0-d index arrays in __getitem__ / __setitem__ ----------------------------------------------

@pytest.mark.parametrize("value", [True, False])
def test_zero_dim_bool_mask_getitem(rng, value):
    host = rng.standard_normal((3, 4))
    x = npx.asarray(host)
    mask = np.array(value)
    for key in (npx.asarray(mask), (npx.asarray(mask), 1), (Ellipsis, npx.asarray(mask))):
        host_key = tuple(mask if isinstance(k, npx.NPUArray) else k for k in key) \
            if isinstance(key, tuple) else mask
        _assert_same(x[key], host[host_key])
    _assert_same(npx.asarray(np.array(7))[npx.asarray(mask)], np.array(7)[mask])


@pytest.mark.parametrize("value", [True, False])
def test_zero_dim_bool_mask_setitem(rng, value):
    host = rng.standard_normal((3, 4))
    x = npx.asarray(host)
    x[npx.asarray(np.array(value))] = 5.0
    host[np.array(value)] = 5.0
    np.testing.assert_array_equal(x.to_host(), host)
    row = rng.standard_normal(4)
    x[npx.asarray(np.array(value))] = npx.asarray(row)
    host[np.array(value)] = row
    np.testing.assert_array_equal(x.to_host(), host)


def test_zero_dim_integer_index(rng):
    host = rng.integers(0, 100, size=(4, 5)).astype(np.uint16)
    x = npx.asarray(host)
    i = npx.asarray(np.array(-2))
    _assert_same(x[i], host[-2])
    _assert_same(x[1, i], host[1, -2])
    x[i] = 9
    host[-2] = 9
    np.testing.assert_array_equal(x.to_host(), host)
    with pytest.raises(IndexError):
        x[npx.asarray(np.array(4))]


def test_empty_mask_axis_matches_any_length(rng):
    host = rng.standard_normal((2, 3, 4))
    x = npx.asarray(host)
    mask = np.zeros((2, 0), dtype=bool)
    _assert_same(x[npx.asarray(mask)], host[mask])
    with pytest.raises(IndexError):
        x[npx.asarray(np.zeros((2, 2), dtype=bool))]
    x[npx.asarray(mask)] = 1.0
    np.testing.assert_array_equal(x.to_host(), host)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_mask_getitem_every_dtype(rng, dtype):
    # aclnnMaskedSelect lacks uint16/32/64 and complex: they are selected as same-width bits
    host = _values(rng, (4, 5), dtype)
    x = npx.asarray(host)
    mask = rng.random((4, 5)) < 0.5
    _assert_same(x[npx.asarray(mask)], host[mask])
    _assert_same(x[npx.asarray(mask[:, 1])], host[mask[:, 1]])
    _assert_same(x[:, npx.asarray(mask[0])], host[:, mask[0]])
    _assert_same(x.T[npx.asarray(mask.T)], host.T[mask.T])
    _assert_same(x[::-1][npx.asarray(mask)], host[::-1][mask])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_integer_array_getitem_every_dtype(rng, dtype):
    # aclnnIndex lacks uint16/32/64 and complex128: their bits are gathered as same-width
    # signed integers or (real, imag) pairs
    host = _values(rng, (3, 4, 2), dtype)
    x = npx.asarray(host)
    i = np.array([[2, 0], [1, -1]])
    for key in [(i,), (slice(None), i[0]), (i, slice(None), [1, 0]), (Ellipsis, [1]),
                (i[:, :1], np.array([True, False, True, True]))]:
        device_key = tuple(npx.asarray(k) if isinstance(k, np.ndarray) else k for k in key)
        _assert_same(x[device_key], host[key])
    _assert_same(x.T[npx.asarray(i % 2)], host.T[i % 2])
