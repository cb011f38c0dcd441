"""NumPy's bitwise names (invert, bitwise_not, left_shift, right_shift, bitwise_count
in npuarray._bitwise) against NumPy."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import assert_matches, up

INTEGERS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def test_aliases_are_the_standard_functions():
    assert npx.invert is npx.bitwise_invert
    assert npx.bitwise_not is npx.bitwise_invert
    assert npx.left_shift is npx.bitwise_left_shift
    assert npx.right_shift is npx.bitwise_right_shift


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint16", "bool"])
def test_aliases_match_numpy(dtype, rng):
    a = rng.integers(0, 100, (3, 4)).astype(dtype)
    assert_matches(npx.invert(up(a)), np.invert(a))
    assert_matches(npx.bitwise_not(up(a)), np.bitwise_not(a))
    if dtype != "bool":
        counts = np.array([0, 1, 2, 3], dtype=dtype)
        assert_matches(npx.left_shift(up(a), up(counts)), np.left_shift(a, counts))
        assert_matches(npx.right_shift(up(a), up(counts)), np.right_shift(a, counts))


@pytest.mark.parametrize("dtype", INTEGERS)
def test_bitwise_count_matches_numpy(dtype, rng):
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (5, 9), dtype=dtype, endpoint=True)
    a[0, :3] = [info.min, info.max, 0]
    assert_matches(npx.bitwise_count(up(a)), np.bitwise_count(a))
    assert_matches(npx.bitwise_count(up(a)[:, ::2].T), np.bitwise_count(a[:, ::2].T))


def test_bitwise_count_of_bool_scalars_and_refusals():
    flags = np.array([True, False, True])
    assert_matches(npx.bitwise_count(up(flags)), np.bitwise_count(flags))
    assert_matches(npx.bitwise_count(255), np.bitwise_count(255))
    for bad in (np.ones(2), np.ones(2, np.complex64)):
        with pytest.raises(TypeError):
            np.bitwise_count(bad)
        with pytest.raises(TypeError):
            npx.bitwise_count(up(bad))
