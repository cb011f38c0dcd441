"""arange's length agrees with aclnnArange's (and NumPy's) for every kind of
arguments: integer arguments with a floating dtype count in double precision."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx

CASES = [(0, 10, 3), (10, 0, -3), (0.5, 5, 1.5), (0, 1, 0.1), (2, 2, 1), (5, 0, 1),
         (10**16, 10**16 + 100, 7)]
# Integer arguments whose exact count (33) differs from the double-precision one (32),
# which is what a floating arange counts (start + 32 * step is below stop only exactly).
HUGE = (-288230376149835778, 9223372036854775807, 297237575406394112)


def _assert_arange(start, stop, step, dtype):
    try:
        expected = np.arange(start, stop, step, dtype=dtype)
    except (OverflowError, ValueError):
        pytest.skip("NumPy refuses these values for this dtype")
    got = npx.arange(start, stop, step, dtype=dtype)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got.to_host().astype(np.float64), expected.astype(np.float64),
                               rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint16"])
@pytest.mark.parametrize("start, stop, step", CASES)
def test_arange_matches_numpy(start, stop, step, dtype):
    _assert_arange(start, stop, step, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arange_floating_counts_in_double_precision(dtype):
    _assert_arange(*HUGE, dtype)
    assert npx.arange(*HUGE, dtype=dtype).shape == (32,)


# Below 2**52 in magnitude the double-precision count (aclnnArange's) is NumPy's: the
# difference stop - start is exact in both, the division correctly rounded in both.
@settings(max_examples=50, deadline=None)
@given(start=st.integers(-2**52, 2**52), count=st.integers(0, 50), step=st.integers(1, 2**45),
       extra=st.floats(0, 1), dtype=st.sampled_from(["float64", "float32", "int64"]))
def test_arange_length_hypothesis(start, count, step, extra, dtype):
    stop = start + count * step + int(extra * (step - 1))
    expected = np.arange(start, stop, step, dtype=dtype)
    got = npx.arange(start, stop, step, dtype=dtype)
    assert got.shape == expected.shape
    if expected.size:
        assert got[0].to_host() == expected[0]


def test_integer_arange_counts_exactly_even_when_stop_minus_start_overflows_int64():
    # stop - start exceeds 2**63: aclnnArange must count in unsigned 64-bit arithmetic.
    got = npx.arange(*HUGE, dtype=npx.int64)
    assert got.shape == (len(range(*HUGE)),) == (33,)
    np.testing.assert_array_equal(got.to_host(), np.array(range(*HUGE), dtype=np.int64))
    down = npx.arange(2**62, -2**62, -2**61)
    np.testing.assert_array_equal(down.to_host(), np.arange(2**62, -2**62, -2**61))
