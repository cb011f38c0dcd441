"""aclnnFmodTensor / aclnnFmodScalar in float64 (hicann/ops-math math/mod/docs/): npusim
takes a power-of-two divisor directly (x - trunc(x / y) y, exact) and the rest through C's
fmod; both must match numpy.fmod bit for bit, signed zeros and NaNs included."""
import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops

RNG = np.random.default_rng(7)

_POWERS = [2.0 ** e for e in (-1022, -1000, -60, -1, 0, 1, 56, 60, 118, 1000, 1023)]
_SPECIAL_DIVISORS = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 2.0 ** -1030, 3.0, -0.1, 1e300]


def _dividends():
    exponents = RNG.integers(-1074, 1024, 400)
    values = RNG.uniform(1, 2, 400) * np.ldexp(1.0, exponents)
    values *= RNG.choice([-1.0, 1.0], 400)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 2.0 ** 53, -(2.0 ** 53 + 2),
               1.5, -1.5, 4.0, -4.0, 2.0 ** 118 * (1 + 2.0 ** -52), -(2.0 ** 62 - 2.0 ** 10),
               np.finfo(np.float64).max, -np.finfo(np.float64).max, np.finfo(np.float64).tiny]
    return np.concatenate([values, special])


def assert_same_bits(got, want):
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    assert np.array_equal(got[finite].view(np.int64), want[finite].view(np.int64))


@pytest.mark.parametrize("divisor", _POWERS + [-p for p in _POWERS] + _SPECIAL_DIVISORS)
def test_fmod_tensor_matches_numpy(divisor):
    x = _dividends()
    y = np.full_like(x, divisor)
    with np.errstate(invalid="ignore"):
        want = np.fmod(x, y)
    assert_same_bits(npx.fmod(npx.asarray(x), npx.asarray(y)).to_host(), want)


@pytest.mark.parametrize("divisor", [2.0 ** 56, -(2.0 ** -3), 2.0 ** 1023, 0.0, 7.0])
def test_fmod_scalar_matches_numpy(divisor):
    x = _dividends()
    out = npx.asarray(np.zeros_like(x))
    stream = _ops.current_stream(out.device)
    _ops.launch("aclnnFmodScalar", npx.asarray(x), _ops.acl_scalar(divisor, np.dtype(np.float64)), out,
                stream=stream)
    with np.errstate(invalid="ignore"):
        want = np.fmod(x, divisor)
    assert_same_bits(out.to_host(), want)


def test_fmod_mixed_divisors_elementwise():
    """Powers of two and other divisors side by side in one launch (the choice is per element)."""
    x = _dividends()
    y = RNG.choice(np.array(_POWERS + _SPECIAL_DIVISORS + [-3.0, 2.0 ** 52 + 1]), x.size)
    with np.errstate(invalid="ignore"):
        want = np.fmod(x, y)
    assert_same_bits(npx.fmod(npx.asarray(x), npx.asarray(y)).to_host(), want)
