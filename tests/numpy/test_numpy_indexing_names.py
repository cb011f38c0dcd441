"""NumPy's index helpers (npuarray._indexing: r_, c_, s_, ix_, the triangle and
diagonal indices, fill_diagonal, select, place, putmask, put_along_axis,
ndindex, ndenumerate) against NumPy."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import REAL_DTYPES, assert_matches, sample, up


def assert_tuple(result, expected):
    assert isinstance(result, tuple) and len(result) == len(expected)
    for r, e in zip(result, expected):
        assert_matches(r, e)


def test_s_index_exp():
    assert npx.s_[1:2, ::3] == np.s_[1:2, ::3]
    assert npx.s_[4] == np.s_[4]
    assert npx.index_exp[4] == np.index_exp[4]
    assert npx.index_exp[..., None] == np.index_exp[..., None]


@pytest.mark.parametrize("key", [
    lambda m: m.r_[1:4, 0, 5.0],
    lambda m: m.r_[-1:1:5j],
    lambda m: m.r_[10:0:-3, [7, 8]],
    lambda m: m.r_["0,2,0", [1, 2, 3], [4, 5, 6]],
    lambda m: m.r_["1,2,0", [1, 2, 3], [4, 5, 6]],
    lambda m: m.r_["0,2", [1, 2, 3], [4, 5, 6]],
    lambda m: m.r_["0,3,-1", [[1, 2]], [[4, 5]]],
    lambda m: m.c_[[1, 2, 3], [4.0, 5, 6]],
    lambda m: m.c_[0:3, [7, 8, 9]],
])
def test_r_c_host_items(key):
    assert_matches(key(npx), key(np))


@pytest.mark.parametrize("dtype", ["int8", "float32", "uint16", "bool"])
def test_r_c_device_arrays_keep_dtype(rng, dtype):
    a, b = sample(rng, 3, dtype), sample(rng, 3, dtype)
    assert_matches(npx.r_[up(a), up(b)], np.r_[a, b])
    assert_matches(npx.r_[up(a), 2], np.r_[a, 2])
    assert_matches(npx.c_[up(a), up(b)], np.c_[a, b])
    m = sample(rng, (2, 2), dtype)
    assert_matches(npx.r_["-1", up(m), up(m[:, :1])], np.r_["-1", m, m[:, :1]])


def test_r_errors():
    with pytest.raises(ValueError):
        npx.r_[1, "0"]
    with pytest.raises(ValueError):
        npx.r_["x", [1]]
    with pytest.raises(ValueError):
        npx.r_[()]
    with pytest.raises(ValueError):
        npx.c_[up(np.ones((2, 2))), 0]


def test_ix():
    assert_tuple(npx.ix_(up(np.array([0, 1])), [True, False, True]),
                 np.ix_([0, 1], [True, False, True]))
    x = np.arange(20).reshape(4, 5)
    rows, cols = npx.ix_(up(np.array([1, 3])), up(np.array([0, 2, 4])))
    assert_matches(up(x)[rows, cols], x[np.ix_([1, 3], [0, 2, 4])])
    assert_tuple(npx.ix_([]), np.ix_([]))
    with pytest.raises(ValueError):
        npx.ix_(up(np.ones((2, 2), dtype=np.int64)))


@pytest.mark.parametrize("n,k,m", [(4, 0, None), (4, 1, 5), (3, -1, 2), (5, -7, None),
                                   (0, 0, None), (3, 9, 3)])
def test_triangle_indices(n, k, m):
    assert_tuple(npx.tril_indices(n, k, m), np.tril_indices(n, k, m))
    assert_tuple(npx.triu_indices(n, k, m), np.triu_indices(n, k, m))


def test_triangle_indices_from(rng):
    x = rng.standard_normal((3, 4))
    assert_tuple(npx.tril_indices_from(up(x), 1), np.tril_indices_from(x, 1))
    assert_tuple(npx.triu_indices_from(up(x), k=-1), np.triu_indices_from(x, k=-1))
    with pytest.raises(ValueError):
        npx.triu_indices_from(up(np.ones(3)))


def test_diag_and_mask_indices(rng):
    assert_tuple(npx.diag_indices(3), np.diag_indices(3))
    assert_tuple(npx.diag_indices(3, 3), np.diag_indices(3, 3))
    x = rng.standard_normal((4, 4, 4))
    assert_tuple(npx.diag_indices_from(up(x)), np.diag_indices_from(x))
    with pytest.raises(ValueError):
        npx.diag_indices_from(up(np.ones((2, 3))))
    with pytest.raises(ValueError):
        npx.diag_indices_from(up(np.ones(3)))
    assert_tuple(npx.mask_indices(3, npx.triu, 1), np.mask_indices(3, np.triu, 1))
    assert_tuple(npx.mask_indices(4, npx.tril), np.mask_indices(4, np.tril))


@pytest.mark.parametrize("shape,wrap", [((3, 4), False), ((5, 3), False), ((7, 3), True),
                                        ((7, 3), False), ((3, 3, 3), False), ((2, 2), True)])
@pytest.mark.parametrize("val", [5, [1, 2], [1, 2, 3, 4, 5, 6, 7, 8]])
def test_fill_diagonal(shape, wrap, val):
    y = np.zeros(shape)
    d = up(y)
    np.fill_diagonal(y, val, wrap=wrap)
    assert npx.fill_diagonal(d, val, wrap=wrap) is None
    assert_matches(d, y)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_fill_diagonal_dtypes_and_views(dtype):
    y = np.zeros((4, 4), dtype)
    d = up(y)
    np.fill_diagonal(y.T, 1)
    npx.fill_diagonal(d.T, 1)
    assert_matches(d, y)
    z = np.zeros((6, 6), dtype)
    e = up(z)
    np.fill_diagonal(z[::2, 1:], 1)
    npx.fill_diagonal(e[::2, 1:], 1)
    assert_matches(e, z)


def test_fill_diagonal_errors():
    with pytest.raises(ValueError):
        npx.fill_diagonal(up(np.zeros(3)), 1)
    with pytest.raises(ValueError):
        npx.fill_diagonal(up(np.zeros((2, 3, 3))), 1)
    with pytest.raises(TypeError):
        npx.fill_diagonal(np.zeros((2, 2)), 1)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_select_dtypes(rng, dtype):
    x = sample(rng, 10, dtype)
    c1, c2 = rng.random(10) < 0.3, rng.random(10) < 0.5
    alt = sample(rng, 10, dtype)
    assert_matches(npx.select([up(c1), up(c2)], [up(x), up(alt)]),
                   np.select([c1, c2], [x, alt]))
    assert_matches(npx.select([up(c1)], [up(x)], 1), np.select([c1], [x], 1))
    assert_matches(npx.select([up(c1)], [up(x)], 1.5), np.select([c1], [x], 1.5))


def test_select_broadcast_and_errors(rng):
    x = np.arange(12).reshape(3, 4)
    assert_matches(npx.select([up(x < 3), up(x > 8)], [up(x), 7], default=up(np.int8(-1))),
                   np.select([x < 3, x > 8], [x, 7], default=np.int8(-1)))
    assert_matches(npx.select([up(np.array([True, False]))], [3]),
                   np.select([np.array([True, False])], [3]))
    with pytest.raises(ValueError):
        npx.select([up(x < 3)], [])
    with pytest.raises(ValueError):
        npx.select([], [])
    with pytest.raises(TypeError):
        npx.select([up(x)], [up(x)])


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_place_putmask(rng, dtype):
    y = sample(rng, (3, 4), dtype)
    mask = rng.random((3, 4)) < 0.5
    vals = sample(rng, 3, dtype)
    d = up(y)
    np.place(y, mask, vals)
    npx.place(d, up(mask), up(vals))
    assert_matches(d, y)
    z = sample(rng, (3, 4), dtype)
    e = up(z)
    np.putmask(z, mask, vals)
    npx.putmask(e, up(mask), up(vals))
    assert_matches(e, z)


def test_place_putmask_host_values_and_errors():
    y = np.arange(6).reshape(2, 3)
    d = up(y)
    np.putmask(y, y > 2, [-1, -2, -3.5])
    npx.putmask(d, d > 2, [-1, -2, -3.5])
    assert_matches(d, y)
    y = np.arange(6).reshape(2, 3)
    d = up(y)
    np.place(y, y > 2, [44, 55])
    npx.place(d, d > 2, [44, 55])
    assert_matches(d, y)
    npx.place(d, up(np.zeros(6, bool)), [])          # nothing selected: no values needed
    with pytest.raises(ValueError):
        npx.place(d, d > 2, up(np.array([], np.int64)))
    with pytest.raises(ValueError):
        npx.putmask(d, up(np.ones(5, bool)), 1)
    with pytest.raises(TypeError):
        npx.putmask(np.zeros(3), up(np.ones(3, bool)), 1)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_put_along_axis(rng, dtype):
    y = sample(rng, (3, 4), dtype)
    d = up(y)
    i = np.argmax(y, axis=1, keepdims=True)
    np.put_along_axis(y, i, 1, axis=1)
    npx.put_along_axis(d, up(i), 1, axis=1)
    assert_matches(d, y)
    i = np.array([[0, 2, -1, 1]])
    vals = sample(rng, (1, 4), dtype)
    np.put_along_axis(y, i, vals, axis=0)
    npx.put_along_axis(d, up(i), up(vals), axis=0)
    assert_matches(d, y)


def test_put_along_axis_none_3d_and_errors(rng):
    y = rng.standard_normal((3, 4))
    d = up(y)
    np.put_along_axis(y, np.array([0, 11]), -1.0, axis=None)
    npx.put_along_axis(d, up(np.array([0, 11])), -1.0, axis=None)
    assert_matches(d, y)
    z = rng.standard_normal((2, 3, 4))
    e = up(z)
    i = np.argsort(z, axis=-1)[..., :2]
    np.put_along_axis(z, i, 0.0, axis=-1)
    npx.put_along_axis(e, up(i), 0.0, axis=-1)
    assert_matches(e, z)
    with pytest.raises(IndexError):
        npx.put_along_axis(d, up(np.array([[9]])), 0.0, axis=0)
    with pytest.raises(ValueError):
        npx.put_along_axis(d, up(np.array([0])), 0.0, axis=0)
    with pytest.raises(IndexError):
        npx.put_along_axis(d, up(np.array([[0.5]])), 0.0, axis=0)


def test_ndindex_ndenumerate():
    assert list(npx.ndindex(2, 3)) == list(np.ndindex(2, 3))
    assert list(npx.ndindex((2, 1))) == list(np.ndindex((2, 1)))
    assert list(npx.ndindex()) == list(np.ndindex())
    x = np.arange(6.0).reshape(2, 3)
    pairs = list(npx.ndenumerate(up(x)))
    assert [i for i, _ in pairs] == [i for i, _ in np.ndenumerate(x)]
    for (_, v), (_, e) in zip(pairs, np.ndenumerate(x)):
        assert isinstance(v, npx.NPUArray) and v.shape == () and v.item() == e


def test_flatiter_and_iterable():
    d = up(np.arange(4.0))
    assert isinstance(d.flat, npx.flatiter)
    assert npx.iterable(d) and not npx.iterable(up(np.float32(1)))
    assert npx.iterable([1, 2]) == np.iterable([1, 2]) and npx.iterable(3) == np.iterable(3)
    with npx.transfer_guard("disallow"):
        assert npx.iterable(d)
