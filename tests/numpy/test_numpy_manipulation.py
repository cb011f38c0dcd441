"""NumPy's manipulation names (npuarray._manipulation) against NumPy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from _numpy_names_helpers import REAL_DTYPES, assert_matches, sample, up, views


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_concatenate_dtypes_and_axes(dtype, rng):
    a, b = sample(rng, (2, 3), dtype), sample(rng, (4, 3), dtype)
    assert_matches(npx.concatenate([up(a), up(b)]), np.concatenate([a, b]))
    assert_matches(npx.concatenate([up(a), up(b).T.T], axis=None), np.concatenate([a, b], axis=None))
    assert_matches(npx.concatenate([up(a).T, up(b).T], axis=-1), np.concatenate([a.T, b.T], axis=-1))


def test_concatenate_dtype_out_and_errors(rng):
    a = sample(rng, (2, 3), "int32")
    assert_matches(npx.concatenate([up(a), up(a)], dtype=np.float64),
          np.concatenate([a, a], dtype=np.float64))
    out = npx.zeros((4, 3), dtype=npx.int32)
    assert npx.concatenate([up(a), up(a)], out=out) is out
    assert_matches(out, np.concatenate([a, a]))
    with pytest.raises(TypeError):
        npx.concatenate([up(a).astype(npx.float64)], dtype=np.int32)  # same_kind
    with pytest.raises(ValueError):
        npx.concatenate([up(a), up(np.zeros((2, 4), np.int32))])
    with pytest.raises((ValueError, IndexError)):
        npx.concatenate([up(a)], axis=2)
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        npx.concatenate([a])  # host arrays are uploaded implicitly
    assert_matches(npx.concatenate([up(a)]), a)


def test_transpose_ravel_views(rng):
    a = sample(rng, (2, 3, 4), "float32")
    for host, x in views(a):
        assert_matches(npx.transpose(x), np.transpose(host))
        assert_matches(npx.ravel(x), np.ravel(host))
        assert_matches(npx.ravel(x, order="F"), np.ravel(host, order="F"))
    assert_matches(npx.transpose(up(a), (1, 0, 2)), np.transpose(a, (1, 0, 2)))
    assert_matches(npx.ravel(up(np.float32(3))), np.ravel(np.float32(3)))
    with pytest.raises(ValueError):
        npx.ravel(up(a), order="X")
    with pytest.raises(ValueError):
        npx.transpose(up(a), (0, 0, 1))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (0,), (2, 0)])
def test_atleast(shape, rng):
    a = sample(rng, shape, "int16")
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        assert_matches(getattr(npx, name)(up(a)), getattr(np, name)(a))
    got = npx.atleast_2d(up(a), up(a))
    assert isinstance(got, tuple) and len(got) == 2
    assert_matches(got[1], np.atleast_2d(a))


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "uint8"])
def test_stacks(dtype, rng):
    one, two = sample(rng, (3,), dtype), sample(rng, (3,), dtype)
    mats = sample(rng, (2, 3), dtype), sample(rng, (2, 3), dtype)
    for name in ("hstack", "vstack", "dstack", "column_stack"):
        assert_matches(getattr(npx, name)([up(one), up(two)]), getattr(np, name)([one, two]))
        assert_matches(getattr(npx, name)([up(m) for m in mats]), getattr(np, name)(mats))
    assert_matches(npx.hstack([up(np.array(1, dtype)), up(one)]), np.hstack([np.array(1, dtype), one]))
    assert_matches(npx.vstack([up(mats[0]).T, up(mats[1]).T]), np.vstack([mats[0].T, mats[1].T]))
    with pytest.raises(ValueError):
        npx.vstack([])
    with pytest.raises(TypeError):
        npx.hstack(up(one))


@pytest.mark.parametrize("sections", [1, 2, 3, 4, 7, [1, 3], [2, 2, 5], []])
def test_array_split(sections, rng):
    a = sample(rng, (6, 4), "float64")
    got, want = npx.array_split(up(a), sections), np.array_split(a, sections)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_matches(g, w)
    got = npx.array_split(up(a).T, sections, axis=1)
    for g, w in zip(got, np.array_split(a.T, sections, axis=1)):
        assert_matches(g, w)


def test_split_family(rng):
    a = sample(rng, (4, 6, 2), "int32")
    for name, arg in (("split", 2), ("hsplit", 3), ("vsplit", [1]), ("dsplit", 2)):
        for g, w in zip(getattr(npx, name)(up(a), arg), getattr(np, name)(a, arg)):
            assert_matches(g, w)
    for g, w in zip(npx.hsplit(up(a[0, :, 0]), 2), np.hsplit(a[0, :, 0], 2)):
        assert_matches(g, w)
    with pytest.raises(ValueError, match="equal division"):
        npx.split(up(a), 3)
    with pytest.raises(ValueError):
        npx.array_split(up(a), 0)
    with pytest.raises(ValueError):
        npx.vsplit(up(a[0, :, 0]), 2)
    with pytest.raises(ValueError):
        npx.dsplit(up(a[0]), 2)
    with pytest.raises((ValueError, IndexError)):
        npx.split(up(a), 2, axis=3)


@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 5])
def test_flips_and_rot90(k, rng):
    a = sample(rng, (3, 4, 2), "float32")
    for host, x in views(a):
        assert_matches(npx.rot90(x, k), np.rot90(host, k))
        assert_matches(npx.rot90(x, k, axes=(2, 0)), np.rot90(host, k, axes=(2, 0)))
        assert_matches(npx.fliplr(x), np.fliplr(host))
        assert_matches(npx.flipud(x), np.flipud(host))
    with pytest.raises(ValueError):
        npx.fliplr(up(a[0, 0]))
    with pytest.raises(ValueError):
        npx.flipud(up(np.float32(1)))
    with pytest.raises(ValueError):
        npx.rot90(up(a), axes=(1, 1))
    with pytest.raises(ValueError):
        npx.rot90(up(a), axes=(0,))


@pytest.mark.parametrize("mode", ["constant", "edge", "wrap", "reflect", "symmetric"])
@pytest.mark.parametrize("width", [0, 1, 3, ((1, 2), (0, 4)), ((7, 2), (3, 9))])
def test_pad(mode, width, rng):
    a = sample(rng, (3, 4), "float64")
    for host, x in views(a)[:3]:
        assert_matches(npx.pad(x, width, mode=mode), np.pad(host, width, mode=mode))
    b = sample(rng, (5,), "int8")
    assert_matches(npx.pad(up(b), 2, mode=mode), np.pad(b, 2, mode=mode))


def test_pad_constant_values_and_errors(rng):
    a = sample(rng, (2, 3), "int32")
    assert_matches(npx.pad(up(a), 1, constant_values=7), np.pad(a, 1, constant_values=7))
    assert_matches(npx.pad(up(a), ((1, 2), (2, 1)), constant_values=((1, 2), (3, 4))),
          np.pad(a, ((1, 2), (2, 1)), constant_values=((1, 2), (3, 4))))
    assert_matches(npx.pad(up(np.zeros((0, 2))), 1), np.pad(np.zeros((0, 2)), 1))
    with pytest.raises(ValueError):
        npx.pad(up(a), -1)
    with pytest.raises(ValueError):
        npx.pad(up(a), 1, mode="median")
    with pytest.raises(ValueError):
        npx.pad(up(np.zeros((0, 2))), 1, mode="edge")
    with pytest.raises(TypeError):
        npx.pad(up(a), 1.5)


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=1, max_size=3), parts=st.integers(1, 5),
       data=st.data())
def test_array_split_and_concatenate_round_trip(shape, parts, data):
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    axis = data.draw(st.integers(0, len(shape) - 1))
    pieces = npx.array_split(up(a), parts, axis=axis)
    for g, w in zip(pieces, np.array_split(a, parts, axis=axis)):
        assert_matches(g, w)
    assert_matches(npx.concatenate(pieces, axis=axis), a)
