"""packbits, unpackbits, bitwise_count and the bit-twiddling ufunc names
(npuarray/_bitwise.py) against NumPy."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import npuarray as npx
from _numpy_names_helpers import assert_matches, up

PACKABLE = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
INTEGER = PACKABLE[1:]


@pytest.mark.parametrize("dtype", PACKABLE)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits_matches_numpy(rng, dtype, axis, bitorder):
    a = rng.integers(0, 3, (3, 13, 5)).astype(dtype)
    assert_matches(npx.packbits(up(a), axis=axis, bitorder=bitorder),
                   np.packbits(a, axis=axis, bitorder=bitorder))


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 16, 17])
def test_packbits_lengths(rng, n):
    a = rng.integers(0, 2, n).astype(bool)
    assert_matches(npx.packbits(up(a)), np.packbits(a))


def test_packbits_views_and_default_order(rng):
    a = rng.integers(0, 2, (6, 10)).astype(np.uint8)
    assert_matches(npx.packbits(up(a).T, 0), np.packbits(a.T, 0))
    assert_matches(npx.packbits(up(a)[::2, ::-1], axis=1), np.packbits(a[::2, ::-1], axis=1))


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -2])
@pytest.mark.parametrize("count", [None, 0, 3, 8, 13, 100, -1, -5])
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_unpackbits_matches_numpy(rng, axis, count, bitorder):
    a = rng.integers(0, 256, (3, 4, 2)).astype(np.uint8)
    try:
        expected = np.unpackbits(a, axis=axis, count=count, bitorder=bitorder)
    except ValueError:
        with pytest.raises(ValueError):
            npx.unpackbits(up(a), axis=axis, count=count, bitorder=bitorder)
        return
    assert_matches(npx.unpackbits(up(a), axis=axis, count=count, bitorder=bitorder), expected)


def test_unpackbits_count_too_negative():
    a = np.arange(2, dtype=np.uint8)
    with pytest.raises(ValueError):
        np.unpackbits(a, count=-17)
    with pytest.raises(ValueError, match="-count"):
        npx.unpackbits(up(a), count=-17)


def test_pack_unpack_round_trip(rng):
    bits = rng.integers(0, 2, (4, 24)).astype(np.uint8)
    packed = npx.packbits(up(bits), axis=1, bitorder="little")
    assert_matches(npx.unpackbits(packed, axis=1, bitorder="little"), bits)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_packbits_rejects_non_integers(dtype):
    a = np.ones(4, dtype=dtype)
    with pytest.raises(TypeError):
        np.packbits(a)
    with pytest.raises(TypeError, match="integer or boolean"):
        npx.packbits(up(a))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "bool", "float32"])
def test_unpackbits_needs_uint8(dtype):
    a = np.ones(4, dtype=dtype)
    with pytest.raises(TypeError):
        np.unpackbits(a)
    with pytest.raises(TypeError, match="unsigned byte"):
        npx.unpackbits(up(a))


def test_bad_bitorder_and_axis():
    a = np.ones(8, dtype=np.uint8)
    for f in ("packbits", "unpackbits"):
        with pytest.raises(ValueError):
            getattr(np, f)(a, bitorder="middle")
        with pytest.raises(ValueError, match="'order'"):
            getattr(npx, f)(up(a), bitorder="middle")
        with pytest.raises(np.exceptions.AxisError):
            getattr(npx, f)(up(a), axis=1)
    with pytest.raises(TypeError):
        npx.unpackbits(up(a), count=2.5)


@pytest.mark.parametrize("dtype", INTEGER + ["bool"])
def test_bitwise_count_matches_numpy(rng, dtype):
    if dtype == "bool":
        a = rng.integers(0, 2, 50).astype(bool)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, 500, dtype=dtype, endpoint=True)
        a[:3] = [info.min, info.max, 0]
    assert_matches(npx.bitwise_count(up(a)), np.bitwise_count(a))


def test_bitwise_count_rejects_floats():
    a = np.ones(3, np.float32)
    with pytest.raises(TypeError):
        np.bitwise_count(a)
    with pytest.raises(TypeError, match="bitwise_count"):
        npx.bitwise_count(up(a))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "uint64", "int64"])
def test_ufunc_names(rng, dtype):
    a = rng.integers(0, 100, 20).astype(dtype)
    assert_matches(npx.invert(up(a)), np.invert(a))
    assert_matches(npx.bitwise_not(up(a)), np.bitwise_not(a))
    if dtype != "bool":
        s = rng.integers(0, 5, 20).astype(dtype)
        assert_matches(npx.left_shift(up(a), up(s)), np.left_shift(a, s))
        assert_matches(npx.right_shift(up(a), up(s)), np.right_shift(a, s))


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 12), min_size=1, max_size=3), data=st.data())
def test_hypothesis_pack_and_unpack_match_numpy(shape, data):
    axis = data.draw(st.sampled_from([None, *range(len(shape))]))
    bitorder = data.draw(st.sampled_from(["big", "little"]))
    seed = data.draw(st.integers(0, 2 ** 32 - 1))
    bits = np.random.default_rng(seed).integers(0, 2, shape).astype(np.uint8)
    packed = np.packbits(bits, axis=axis, bitorder=bitorder)
    assert_matches(npx.packbits(up(bits), axis=axis, bitorder=bitorder), packed)
    assert_matches(npx.unpackbits(up(packed), axis=axis, bitorder=bitorder),
                   np.unpackbits(packed, axis=axis, bitorder=bitorder))


def test_on_a_non_default_stream(rng):
    a = rng.integers(0, 256, (5, 7)).astype(np.uint8)
    with npx.Stream() as stream:
        x = up(a)
        packed = npx.packbits(npx.unpackbits(x, axis=1), axis=1)
        counts = npx.bitwise_count(x)
        stream.synchronize()
    assert_matches(packed, a)
    assert_matches(counts, np.bitwise_count(a))


def test_numpy_functions_dispatch_to_the_device(rng):
    a = rng.integers(0, 256, (3, 9)).astype(np.uint8)
    assert_matches(np.packbits(up(a), axis=1), np.packbits(a, axis=1))
    assert_matches(np.unpackbits(up(a), axis=0, count=5), np.unpackbits(a, axis=0, count=5))
