"""The faster FFT paths against NumPy: real transforms split and merged in npusim's lane
buffers (many rows, odd row counts, strided input, other axes, n= padding and cropping, every
norm), n-dimensional transforms whose last two axes go to one 2-D aclfft plan (s=, axes in
either order, batches, a third axis, real input, complex128 which cannot), and the cached
Bluestein tables of the complex128 composition (both directions, two lengths, two devices)."""
import numpy as np
import pytest

import npuarray as npx
from _fft_helpers import U64, assert_close as _assert_close, complex_normal

RNG = np.random.default_rng(7741)


def _complex(shape, dtype=np.complex64):
    return complex_normal(RNG, shape, dtype)


@pytest.mark.parametrize("rows", [16, 19, 48, 1024])
@pytest.mark.parametrize("n", [2, 16, 30, 64, 512, 1024])
def test_real_rows(rows, n):
    x = RNG.standard_normal((rows, n)).astype(np.float32)
    spectrum = npx.fft.rfft(npx.asarray(x)).to_host()
    want = np.fft.rfft(x.astype(np.float64))
    assert spectrum.dtype == np.complex64 and spectrum.shape == (rows, n // 2 + 1)
    _assert_close(spectrum, want, n)
    back = npx.fft.irfft(npx.asarray(want.astype(np.complex64)), n=n).to_host()
    assert back.dtype == np.float32
    _assert_close(back, x.astype(np.float64), n)


def test_irfft_ignores_imaginary_parts_of_the_real_terms():
    spectrum = _complex((20, 33))
    got = npx.fft.irfft(npx.asarray(spectrum)).to_host()
    _assert_close(got, np.fft.irfft(spectrum.astype(np.complex128)), 64)


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_real_strided_other_axis_and_norms(norm):
    base = RNG.standard_normal((130, 3 * 40)).astype(np.float32)
    view = base[::2, ::3]                                  # (65, 40), both axes strided
    x = npx.asarray(base)[::2, ::3]
    _assert_close(npx.fft.rfft(x, norm=norm).to_host(), np.fft.rfft(view.astype(np.float64), norm=norm), 40)
    want = np.fft.rfft(view.astype(np.float64), axis=0, norm=norm)
    _assert_close(npx.fft.rfft(x, axis=0, norm=norm).to_host(), want, 65)
    got = npx.fft.irfft(npx.asarray(want.astype(np.complex64)), n=64, axis=0, norm=norm).to_host()
    _assert_close(got, np.fft.irfft(want, n=64, axis=0, norm=norm), 64)


@pytest.mark.parametrize("n", [24, 64, 100, 129])
def test_real_padding_and_cropping(n):
    x = RNG.standard_normal((32, 64)).astype(np.float32)
    got = npx.fft.rfft(npx.asarray(x), n=n).to_host()
    _assert_close(got, np.fft.rfft(x.astype(np.float64), n=n), n)
    spectrum = np.fft.rfft(x.astype(np.float64))
    back = npx.fft.irfft(npx.asarray(spectrum.astype(np.complex64)), n=n).to_host()
    _assert_close(back, np.fft.irfft(spectrum, n=n), n)


@pytest.mark.parametrize("axes", [(-2, -1), (-1, -2), (1, 2), (0, 1, 2), (2, 0, 1)])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_fftn_last_two_axes(axes, norm):
    x = _complex((3, 32, 48))
    n = int(np.prod([x.shape[a] for a in axes]))
    got = npx.fft.fftn(npx.asarray(x), axes=axes, norm=norm).to_host()
    want = np.fft.fftn(x.astype(np.complex128), axes=axes, norm=norm)
    assert got.dtype == np.complex64
    _assert_close(got, want, n)
    back = npx.fft.ifftn(npx.asarray(got), axes=axes, norm=norm).to_host()
    _assert_close(back, x.astype(np.complex128), n)


@pytest.mark.parametrize("s", [(16, 64), (40, 30), (64, 17), (-1, 32)])
def test_fftn_sizes(s):
    x = _complex((2, 32, 48))
    sizes = tuple(x.shape[1 + i] if v == -1 else v for i, v in enumerate(s))
    got = npx.fft.fftn(npx.asarray(x), s=s, axes=(1, 2)).to_host()
    _assert_close(got, np.fft.fftn(x.astype(np.complex128), s=sizes, axes=(1, 2)), sizes[0] * sizes[1])
    got = npx.fft.fft2(npx.asarray(x), s=s[::-1], axes=(2, 1)).to_host()
    _assert_close(got, np.fft.fft2(x.astype(np.complex128), s=sizes[::-1], axes=(2, 1)), sizes[0] * sizes[1])


def test_fftn_real_strided_and_double_input():
    base = RNG.standard_normal((40, 70))
    got = npx.fft.fftn(npx.asarray(base.astype(np.float32))[::2, 3:67]).to_host()
    assert got.dtype == np.complex64
    _assert_close(got, np.fft.fftn(base.astype(np.float32)[::2, 3:67].astype(np.float64)), 20 * 64)
    x = _complex((4, 16, 24), np.complex128)            # complex128: one axis at a time
    got = npx.fft.ifftn(npx.asarray(x), axes=(-2, -1)).to_host()
    assert got.dtype == np.complex128
    _assert_close(got, np.fft.ifftn(x, axes=(-2, -1)), 16 * 24, u=U64)


def test_fftn_repeated_axis_is_two_transforms():
    x = _complex((16, 16))
    got = npx.fft.fftn(npx.asarray(x), axes=(1, 1)).to_host()
    _assert_close(got, np.fft.fftn(x.astype(np.complex128), axes=(1, 1)), 256)


@pytest.mark.parametrize("n", [401, 802, 1000])
def test_bluestein_tables_reused(n):
    """The cached chirp and filter spectrum: repeated, inverse and batched transforms."""
    x = _complex((3, n), np.complex128)
    d = npx.asarray(x)
    for _ in range(2):
        _assert_close(npx.fft.fft(d).to_host(), np.fft.fft(x), n, u=U64, ulps=10)
        _assert_close(npx.fft.ifft(d).to_host(), np.fft.ifft(x), n, u=U64, ulps=10)
    _assert_close(npx.fft.fft(d[1]).to_host(), np.fft.fft(x[1]), n, u=U64, ulps=10)


def test_bluestein_on_another_device():
    x = _complex(802, np.complex128)
    for device in (npx.Device(0), npx.Device(1), npx.Device(0)):
        got = npx.fft.fft(npx.asarray(x, device=device))
        assert got.device == device
        _assert_close(got.to_host(), np.fft.fft(x), 802, u=U64, ulps=10)
