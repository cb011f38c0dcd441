"""frexp against NumPy bit for bit: every float16 value, float32 around the
subnormal / normal / overflow boundaries, both signs, views. NaNs come out as NaNs
of their sign (their payloads may be quieted or canonical, as casts make them)."""
import numpy as np
import pytest

import npuarray as npx


def _assert_frexp_bits(a, x):
    mantissa, exponent = npx.frexp(x)
    with np.errstate(invalid="ignore"):  # NumPy's float16 loop flags NaN inputs
        want_mantissa, want_exponent = np.frexp(a)
    got = mantissa.to_host()
    assert got.dtype == want_mantissa.dtype and exponent.dtype == want_exponent.dtype
    bits = f"u{got.dtype.itemsize}"
    nan = np.isnan(want_mantissa)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want_mantissa))
    np.testing.assert_array_equal(got[~nan].view(bits), want_mantissa[~nan].view(bits))
    np.testing.assert_array_equal(exponent.to_host(), want_exponent)


def test_every_float16_value():
    a = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    _assert_frexp_bits(a, npx.asarray(a))


def test_float32_boundaries_and_nans(rng):
    edges = np.array([0, 1, 2, 0x7fffff, 0x800000, 0x800001, 0x3f000000, 0x3f7fffff, 0x3f800000,
                      0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00123, 0x7fffffff], np.uint32)
    random = rng.integers(0, 1 << 31, 4001, dtype=np.uint32)
    bits = np.concatenate([edges, random])
    a = np.concatenate([bits, bits | np.uint32(1 << 31)]).view(np.float32)
    _assert_frexp_bits(a, npx.asarray(a))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_views(rng, dtype):
    a = (rng.standard_normal((40, 30)) * 1e3).astype(dtype)
    a[::7, ::3] = np.finfo(dtype).smallest_subnormal * 3
    x = npx.asarray(a)
    _assert_frexp_bits(a[::-2, 1::3], x[::-2, 1::3])
    _assert_frexp_bits(a.T, x.T)
