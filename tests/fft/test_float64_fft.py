"""float64 / complex128 FFTs and lengths aclfft refuses, on the device (npuarray/fft/_composed.py):
against NumPy's pocketfft and a long-double direct DFT, for powers of two (odd and even
exponents), primes, 2 * 401 and other composites; every norm; real, Hermitian and n-D transforms;
batches, other axes and non-contiguous input; no host transfer."""
import numpy as np
import pytest

import npuarray as npx

RNG = np.random.default_rng(2124)
U = 2.0 ** -53


def _complex(shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _direct_dft(x, sign=-1):
    """The DFT by its definition in long double (reference for small n)."""
    n = x.shape[-1]
    k = np.arange(n)
    angle = (sign * 2 * np.pi / np.longdouble(n)) * ((k[:, None] * k[None, :]) % n)
    w = np.cos(angle) + 1j * np.sin(angle)   # complex long double
    return x.astype(np.clongdouble) @ w.T


def _assert_fft_close(got, expected, n):
    scale = np.max(np.abs(expected)) if expected.size else 1.0
    assert np.max(np.abs(got - expected), initial=0.0) <= 10 * U * max(np.log2(max(n, 2)), 1) * scale


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8, 32, 64, 5, 7, 12, 61, 2 * 401, 1000, 4096, 1 << 13])
def test_c2c_lengths(n):
    x = _complex((2, n))
    with npx.transfer_guard("disallow"):
        forward = npx.fft.fft(npx.asarray(x)).to_host()
        inverse = npx.fft.ifft(npx.asarray(x)).to_host()
    assert forward.dtype == np.complex128
    reference = _direct_dft(x) if n <= 64 else np.fft.fft(x)
    _assert_fft_close(forward, reference, n)
    _assert_fft_close(inverse, np.fft.ifft(x), n)


def test_length_2_times_401_against_the_definition():
    x = _complex(802)
    got = npx.fft.fft(npx.asarray(x)).to_host()
    _assert_fft_close(got, _direct_dft(x[None])[0], 802)


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [16, 30])
def test_real_and_hermitian_transforms(norm, n):
    x = RNG.standard_normal((3, n))
    with npx.transfer_guard("disallow"):
        r = npx.fft.rfft(npx.asarray(x), norm=norm).to_host()
        back = npx.fft.irfft(npx.asarray(r), n=n, norm=norm).to_host()
        h = npx.fft.hfft(npx.asarray(np.fft.rfft(x)), n=n, norm=norm).to_host()
        ih = npx.fft.ihfft(npx.asarray(x), norm=norm).to_host()
    _assert_fft_close(r, np.fft.rfft(x, norm=norm), n)
    assert back.dtype == np.float64
    _assert_fft_close(back, x, n)
    _assert_fft_close(h, np.fft.hfft(np.fft.rfft(x), n=n, norm=norm), n)
    _assert_fft_close(ih, np.fft.ihfft(x, norm=norm), n)


def test_axes_nd_and_non_contiguous():
    x = _complex((6, 10, 16))
    view = npx.asarray(x)[::2, :, 1::2]
    _assert_fft_close(npx.fft.fft(view, axis=1).to_host(), np.fft.fft(x[::2, :, 1::2], axis=1), 10)
    _assert_fft_close(npx.fft.fftn(npx.asarray(x)).to_host(), np.fft.fftn(x), 960)
    _assert_fft_close(npx.fft.irfftn(npx.asarray(x), s=(6, 10, 30), axes=(0, 1, 2)).to_host(),
                      np.fft.irfftn(x, s=(6, 10, 30), axes=(0, 1, 2)), 1800)
    _assert_fft_close(npx.fft.fft(npx.asarray(x), n=13, axis=0).to_host(), np.fft.fft(x, n=13, axis=0), 13)


def test_single_precision_lengths_aclfft_refuses():
    x = _complex((2, 2 * 401)).astype(np.complex64)
    got = npx.fft.fft(npx.asarray(x)).to_host()
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, np.fft.fft(x), rtol=0, atol=1e-4 * np.abs(np.fft.fft(x)).max())


def test_on_a_non_default_stream():
    x = _complex(1 << 10)
    with npx.Stream():
        got = npx.fft.fft(npx.asarray(x)).to_host()
    _assert_fft_close(got, np.fft.fft(x), 1 << 10)
