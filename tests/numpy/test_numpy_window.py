"""Window functions and i0 (npuarray/_window.py) against NumPy."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import assert_matches, up

WINDOWS = ["bartlett", "blackman", "hamming", "hanning"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("M", [-3, 0, 1, 2, 3, 8, 51, 7.0, np.int32(10)])
def test_windows_match_numpy(name, M):
    assert_matches(getattr(npx, name)(M), getattr(np, name)(M), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("M,beta", [(0, 3.0), (1, 5.0), (2, 0.0), (12, 14), (51, 8.6),
                                    (8, 0.5), (10, 40.0)])
def test_kaiser_matches_numpy(M, beta):
    assert_matches(npx.kaiser(M, beta), np.kaiser(M, beta), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", WINDOWS)
def test_window_length_must_be_real(name):
    with pytest.raises(TypeError):
        getattr(np, name)("5")
    with pytest.raises(TypeError):
        getattr(npx, name)("5")
    with pytest.raises(TypeError):
        getattr(npx, name)(3 + 1j)


def test_window_runs_on_the_device():
    with npx.transfer_guard("disallow"):
        w = npx.hanning(16)
    assert isinstance(w, npx.NPUArray)


def test_i0_float64_is_accurate_over_both_ranges(rng):
    x = np.concatenate([rng.uniform(-8, 8, 200), rng.uniform(-700, 700, 200),
                        [0.0, 8.0, -8.0, 8.000001, 1e-300]])
    result = npx.i0(up(x))
    assert_matches(result, np.i0(x), rtol=4e-15)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8",
                                   "uint16", "uint32", "uint64", "float16", "float32",
                                   "float64"])
def test_i0_dtypes_match_numpy(rng, dtype):
    a = (rng.uniform(0, 12, (3, 5)) * (1 if dtype != "bool" else 0.1)).astype(dtype)
    expected = np.i0(a)
    rtol = {"float16": 2e-3, "float32": 2e-6}.get(dtype, 1e-14)
    assert_matches(npx.i0(up(a)), expected, rtol=rtol)


def test_i0_scalars_and_views():
    assert_matches(npx.i0(3), np.i0(3))
    assert_matches(npx.i0(2.5), np.i0(2.5))
    a = np.linspace(-20, 20, 24).reshape(4, 6)
    assert_matches(npx.i0(up(a).T[::2]), np.i0(a.T[::2]), rtol=1e-14)


def test_i0_rejects_complex():
    z = np.array([1 + 1j])
    with pytest.raises(TypeError):
        np.i0(z)
    with pytest.raises(TypeError, match="complex"):
        npx.i0(up(z))


def test_i0_uploads_host_arrays_under_the_guard():
    assert_matches(npx.i0(np.ones(3)), np.i0(np.ones(3)))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        npx.i0(np.ones(3))


def test_i0_bfloat16_rounds_the_float32_result(rng):
    a = rng.uniform(-12, 12, 50).astype(npx.bfloat16)
    result = npx.i0(up(a))
    assert result.dtype == npx.bfloat16
    expected = np.i0(a.astype(np.float32)).astype(npx.bfloat16)
    np.testing.assert_allclose(result.to_host().astype(np.float64),
                               expected.astype(np.float64), rtol=1e-2)


def test_on_a_non_default_stream(rng):
    x = rng.uniform(-20, 20, 100)
    with npx.Stream() as stream:
        window = npx.kaiser(33, 6.5)
        bessel = npx.i0(up(x))
        stream.synchronize()
    assert_matches(window, np.kaiser(33, 6.5), rtol=1e-13)
    assert_matches(bessel, np.i0(x), rtol=4e-15)


def test_numpy_i0_dispatches_to_the_device(rng):
    x = rng.uniform(-10, 10, 20)
    assert_matches(np.i0(up(x)), np.i0(x), rtol=4e-15)
