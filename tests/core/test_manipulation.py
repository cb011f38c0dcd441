"""Views and shape manipulation against NumPy, and astype."""
import itertools

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx

BF16 = np.dtype(ml_dtypes.bfloat16)


def _host(rng, shape, dtype=np.float32):
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("shape, new", [
    ((2, 3, 4), (6, 4)), ((2, 3, 4), (-1,)), ((2, 3, 4), (4, -1, 2)), ((6,), (1, 6, 1)),
    ((0, 3), (3, 0)), ((0, 3), (-1, 5)), ((1,), ()), ((), (1, 1)), ((2, 3), 6),
])
def test_reshape(rng, shape, new):
    host = _host(rng, shape)
    x = npx.asarray(host)
    np.testing.assert_array_equal(npx.reshape(x, new).to_host(), host.reshape(new))
    assert x.reshape(new).shape == host.reshape(new).shape


def test_reshape_makes_views_when_possible(rng):
    host = _host(rng, (4, 6))
    x = npx.asarray(host)
    assert npx.reshape(x, (2, 12))._buffer is x._buffer
    col_pairs = x[:, :2]  # rows of 2 contiguous elements
    assert npx.reshape(col_pairs, (8,), copy=None)._buffer is not x._buffer
    assert npx.reshape(x[::2], (2, 2, 3))._buffer is x._buffer
    with pytest.raises(ValueError):
        npx.reshape(x.T, (24,), copy=False)
    copied = npx.reshape(x, (24,), copy=True)
    assert copied._buffer is not x._buffer
    np.testing.assert_array_equal(copied.to_host(), host.reshape(24))
    np.testing.assert_array_equal(npx.reshape(x.T, (24,)).to_host(), host.T.reshape(24))


@pytest.mark.parametrize("new", [(5,), (-1, -1), (7, -1), (-2, 12), (2.0, 12)], ids=repr)
def test_reshape_errors(rng, new):
    x = npx.asarray(_host(rng, (4, 6)))
    with pytest.raises((ValueError, TypeError)):
        npx.reshape(x, new)


@settings(max_examples=60, deadline=None)
@given(dims=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_reshape_of_random_views(dims, data):
    host = np.random.default_rng().standard_normal(dims)
    perm = data.draw(st.permutations(range(len(dims))))
    steps = tuple(slice(None, None, data.draw(st.sampled_from([1, 2, -1]))) for _ in dims)
    view_host = host.transpose(perm)[steps]
    x = npx.permute_dims(npx.asarray(host), perm)[steps]
    size = view_host.size
    factors = [f for f in range(1, size + 1) if size % f == 0]
    first = data.draw(st.sampled_from(factors))
    for new in ((size,), (first, size // first), (first, -1, 1)):
        np.testing.assert_array_equal(npx.reshape(x, new).to_host(), view_host.reshape(new))


def test_permute_and_transpose(rng):
    host = _host(rng, (2, 3, 4))
    x = npx.asarray(host)
    for axes in itertools.permutations(range(3)):
        view = npx.permute_dims(x, axes)
        assert view._buffer is x._buffer and view.strides == host.transpose(axes).strides
        np.testing.assert_array_equal(view.to_host(), host.transpose(axes))
    np.testing.assert_array_equal(x.transpose().to_host(), host.transpose())
    np.testing.assert_array_equal(x.transpose(1, 0, 2).to_host(), host.transpose(1, 0, 2))
    np.testing.assert_array_equal(npx.moveaxis(x, 0, -1).to_host(), np.moveaxis(host, 0, -1))
    np.testing.assert_array_equal(npx.swapaxes(x, 0, 2).to_host(), np.swapaxes(host, 0, 2))
    np.testing.assert_array_equal(npx.matrix_transpose(x).to_host(), np.swapaxes(host, -1, -2))
    for bad in ((0, 1), (0, 0, 1), (0, 1, 3)):
        with pytest.raises(ValueError):
            npx.permute_dims(x, bad)


def test_expand_dims_and_squeeze(rng):
    host = _host(rng, (3, 1, 4))
    x = npx.asarray(host)
    for axis in (0, 1, -1, 3, (0, 2), (-1, 0)):
        np.testing.assert_array_equal(npx.expand_dims(x, axis=axis).to_host(),
                                      np.expand_dims(host, axis))
    with pytest.raises(ValueError):
        npx.expand_dims(x, axis=5)
    np.testing.assert_array_equal(npx.squeeze(x, axis=1).to_host(), host.squeeze(1))
    np.testing.assert_array_equal(x.squeeze().to_host(), host.squeeze())
    assert npx.squeeze(x, axis=1)._buffer is x._buffer
    with pytest.raises(ValueError):
        npx.squeeze(x, axis=0)
    with pytest.raises(ValueError):
        npx.squeeze(x, axis=3)


def test_broadcast_to(rng):
    host = _host(rng, (3, 1))
    x = npx.asarray(host)
    for shape in ((3, 4), (2, 3, 5), (3, 1)):
        view = npx.broadcast_to(x, shape)
        assert view._buffer is x._buffer
        np.testing.assert_array_equal(view.to_host(), np.broadcast_to(host, shape))
        np.testing.assert_array_equal((view + 0).to_host(), np.broadcast_to(host, shape))
    for shape in ((2, 4), (4,), (3, -1)):
        with pytest.raises(ValueError):
            npx.broadcast_to(x, shape)
    a, b = npx.broadcast_arrays(x, npx.asarray(_host(rng, (2, 1, 5))))
    assert a.shape == b.shape == (2, 3, 5)


@pytest.mark.parametrize("src, dst", [
    ("float32", "float64"), ("float64", "float32"), ("float32", "int32"), ("int64", "float32"),
    ("int32", "int8"), ("bool", "float32"), ("float32", "bool"), ("float32", "float16"),
    ("float32", BF16), (BF16, "float32"), ("int16", "uint8"), ("complex64", "complex128"),
    ("float64", "complex64"), ("uint8", "int64"),
], ids=str)
def test_astype(rng, src, dst):
    host = (rng.standard_normal((4, 5)) * 50).astype(src)
    x = npx.asarray(host)[::-1, 1:]
    expected = host[::-1, 1:].astype(dst)
    y = npx.astype(x, dst)
    assert y.dtype == np.dtype(dst)
    np.testing.assert_array_equal(y.to_host(), expected)
    np.testing.assert_array_equal(x.astype(dst).to_host(), expected)


def test_astype_copy_semantics(rng):
    x = npx.asarray(_host(rng, (3,)))
    assert npx.astype(x, npx.float32, copy=False) is x
    y = npx.astype(x, npx.float32)
    assert y is not x and y._buffer is not x._buffer
    with pytest.raises(TypeError):
        npx.astype(x, "U2")
    z = npx.astype(x, npx.float64, device=1)
    assert z.device.id == 1
    np.testing.assert_array_equal(z.to_host(), x.to_host().astype(np.float64))


def test_concat_and_stack(rng):
    a, b = _host(rng, (2, 3)), _host(rng, (4, 3))
    x, y = npx.asarray(a), npx.asarray(b)
    np.testing.assert_array_equal(npx.concat([x, y]).to_host(), np.concatenate([a, b]))
    np.testing.assert_array_equal(npx.concat([x.T, y.T], axis=1).to_host(),
                                  np.concatenate([a.T, b.T], axis=1))
    np.testing.assert_array_equal(npx.concat([x, y], axis=None).to_host(),
                                  np.concatenate([a, b], axis=None))
    ints = npx.asarray(np.arange(3, dtype=np.int16))
    mixed = npx.concat([x[0], ints])
    assert mixed.dtype == np.float32
    np.testing.assert_array_equal(npx.stack([x, x[::-1]], axis=1).to_host(),
                                  np.stack([a, a[::-1]], axis=1))
    with pytest.raises(ValueError):
        npx.concat([x, npx.asarray(_host(rng, (2, 4)))])
    with pytest.raises(ValueError):
        npx.stack([x, y])
    with pytest.raises(ValueError):
        npx.concat([x, npx.asarray(a, device=1)])


def test_flip_unstack(rng):
    host = _host(rng, (3, 4, 2))
    x = npx.asarray(host)
    for axis in (None, 0, -1, (0, 2)):
        view = npx.flip(x, axis=axis)
        assert view._buffer is x._buffer
        np.testing.assert_array_equal(view.to_host(), np.flip(host, axis))
        np.testing.assert_array_equal((view * 1).to_host(), np.flip(host, axis))
    parts = npx.unstack(x, axis=1)
    assert len(parts) == 4
    for i, part in enumerate(parts):
        np.testing.assert_array_equal(part.to_host(), host[:, i])


@pytest.mark.parametrize("shift, axis", [(1, None), (-3, None), (2, 0), (5, 1), ((1, 2), (0, 1)),
                                         ((1, -1), (1, 1)), (0, 0)])
def test_roll(rng, shift, axis):
    host = _host(rng, (4, 3))
    result = npx.roll(npx.asarray(host), shift, axis=axis)
    np.testing.assert_array_equal(result.to_host(), np.roll(host, shift, axis=axis))


@pytest.mark.parametrize("reps", [(2,), (2, 3), (1, 1, 2), (0, 2)])
def test_tile(rng, reps):
    host = _host(rng, (2, 3))
    np.testing.assert_array_equal(npx.tile(npx.asarray(host), reps).to_host(),
                                  np.tile(host, reps))


@pytest.mark.parametrize("repeats, axis", [(2, None), (3, 0), (2, 1), ([1, 0, 2], 1),
                                           ([2], 0), (0, 1)])
def test_repeat(rng, repeats, axis):
    host = _host(rng, (2, 3))
    np.testing.assert_array_equal(npx.repeat(npx.asarray(host), repeats, axis=axis).to_host(),
                                  np.repeat(host, repeats, axis=axis))
    with pytest.raises(ValueError):
        npx.repeat(npx.asarray(host), [1, 2], axis=1)
