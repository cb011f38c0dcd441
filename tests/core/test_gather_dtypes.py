"""Integer-array gathers (x[index], repeat with per-element counts) for every dtype,
including those aclnnIndex lacks (uint16/32/64, complex128: gathered as the same bytes)."""
import numpy as np
import pytest

import npuarray as npx
from test_elementwise import ALL, random_array


@pytest.mark.parametrize("dtype", ALL)
def test_integer_array_index(rng, dtype):
    a = random_array(rng, (5, 4, 3), dtype)
    x = npx.asarray(a)
    index = rng.integers(-5, 5, size=(2, 3))
    for key in [(index,), (slice(None), index % 4), (index, slice(None), 1),
                (slice(None, None, -1), [0, 3])]:
        got = x[key]
        assert got.dtype == a.dtype
        np.testing.assert_array_equal(got.to_host(), a[key])
    np.testing.assert_array_equal(x[::-2][index % 3].to_host(), a[::-2][index % 3])


@pytest.mark.parametrize("dtype", ALL)
def test_repeat_with_counts(rng, dtype):
    a = random_array(rng, (4, 3), dtype)
    counts = rng.integers(0, 3, size=4)
    got = npx.repeat(npx.asarray(a), counts.tolist(), axis=0)
    np.testing.assert_array_equal(got.to_host(), np.repeat(a, counts, axis=0))
    got = npx.repeat(npx.asarray(a).T, npx.asarray(counts[:3]), axis=0)
    np.testing.assert_array_equal(got.to_host(), np.repeat(a.T, counts[:3], axis=0))


def test_gather_out_of_range_then_next_operation_works(rng):
    x = npx.asarray(np.arange(6, dtype=np.uint32))
    with pytest.raises(IndexError):
        x[np.array([0, 6])]
    np.testing.assert_array_equal(x[np.array([5, 0])].to_host(), [5, 0])
