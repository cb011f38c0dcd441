"""The inverse real transform (irfft, and hfft which runs on it) of rows against NumPy, and
the forward one (rfft) whose kernel mirrors it: odd and even n, n other than 2 (m - 1) (the
input cut or zero-padded), every norm (scaled in place on the transform's result: the input is
never written), strided, transposed and batched input, axes other than the last, row counts
and lengths around the vector width (4, 8 or 16 lanes) and the split of the rows across the
CPU pool, every instruction set variant, complex128."""
import numpy as np
import pytest

import npuarray as npx
from _fft_helpers import U64, assert_close as _assert_close, complex_normal

NORMS = ("backward", "ortho", "forward")
RNG = np.random.default_rng(2203)


def _spectrum(shape, dtype=np.complex64):
    return complex_normal(RNG, shape, dtype)


@pytest.fixture(params=["native", "avx2", "base"])
def isa(request, monkeypatch):
    if request.param != "native":
        monkeypatch.setenv("NPUSIM_FFT_ISA", request.param)   # read by npusim at each transform
    return request.param


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 8, 15, 16, 17, 32, 63, 64, 65, 96, 128, 1000, 1024, 1025, 2048])
@pytest.mark.parametrize("norm", NORMS)
def test_lengths_and_norms(n, norm):
    """n from the default 2 (m - 1) (m = 257), so most lengths cut or pad the input."""
    spectrum = _spectrum((20, 257))
    got = npx.fft.irfft(npx.asarray(spectrum), n=n, norm=norm).to_host()
    assert got.dtype == np.float32 and got.shape == (20, n)
    _assert_close(got, np.fft.irfft(spectrum.astype(np.complex128), n=n, norm=norm), n)


@pytest.mark.parametrize("m", [2, 3, 9, 17, 33, 65, 129, 257, 513, 1025])
def test_default_length_even(m):
    spectrum = _spectrum((33, m))
    got = npx.fft.irfft(npx.asarray(spectrum)).to_host()
    assert got.shape == (33, 2 * (m - 1))
    _assert_close(got, np.fft.irfft(spectrum.astype(np.complex128)), 2 * (m - 1))


@pytest.mark.parametrize("rows", [1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129, 200])
@pytest.mark.parametrize("n", [8, 32, 64, 128, 1024])
def test_row_counts(rows, n, isa):
    """Rows around the lane counts and the pool's chunks; lengths below and above the fused
    first and last stages (n >= 4 lanes)."""
    spectrum = _spectrum((rows, n // 2 + 1))
    got = npx.fft.irfft(npx.asarray(spectrum), n=n).to_host()
    _assert_close(got, np.fft.irfft(spectrum.astype(np.complex128), n=n), n)


@pytest.mark.parametrize("rows", [1, 7, 8, 9, 15, 16, 17, 33, 64, 65, 129])
@pytest.mark.parametrize("n", [8, 32, 64, 128, 1024])
def test_forward_row_counts(rows, n, isa):
    """rfft, whose split into the n/2 + 1 terms goes out with the register transposes, and
    back: the same rows and lengths."""
    signal = RNG.standard_normal((rows, n)).astype(np.float32)
    spectrum = npx.fft.rfft(npx.asarray(signal)).to_host()
    _assert_close(spectrum, np.fft.rfft(signal.astype(np.float64)), n)
    back = npx.fft.irfft(npx.asarray(spectrum), n=n).to_host()
    _assert_close(back, signal.astype(np.float64), n)


@pytest.mark.parametrize("norm", NORMS)
def test_strided_transposed_and_other_axes(norm):
    base = _spectrum((70, 3 * 33))
    view = base[::2, ::3]                                  # (35, 33): both axes strided
    got = npx.fft.irfft(npx.asarray(base)[::2, ::3], norm=norm).to_host()
    _assert_close(got, np.fft.irfft(view.astype(np.complex128), norm=norm), 64)
    got = npx.fft.irfft(npx.asarray(base)[::2, ::3], axis=0, n=40, norm=norm).to_host()
    _assert_close(got, np.fft.irfft(view.astype(np.complex128), axis=0, n=40, norm=norm), 40)
    square = _spectrum((65, 65))
    got = npx.fft.irfft(npx.asarray(square).T, norm=norm).to_host()
    _assert_close(got, np.fft.irfft(square.T.astype(np.complex128), norm=norm), 128)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("norm", NORMS)
def test_batched(axis, norm):
    spectrum = _spectrum((6, 17, 33))
    got = npx.fft.irfft(npx.asarray(spectrum), axis=axis, norm=norm).to_host()
    want = np.fft.irfft(spectrum.astype(np.complex128), axis=axis, norm=norm)
    assert got.shape == want.shape
    _assert_close(got, want, want.shape[axis])


@pytest.mark.parametrize("n", [31, 64, 100, 1024])
@pytest.mark.parametrize("norm", NORMS)
def test_complex128(n, norm):
    spectrum = _spectrum((5, n // 2 + 1), np.complex128)
    got = npx.fft.irfft(npx.asarray(spectrum), n=n, norm=norm).to_host()
    assert got.dtype == np.float64
    _assert_close(got, np.fft.irfft(spectrum, n=n, norm=norm), n, u=U64, ulps=16)


@pytest.mark.parametrize("n", [16, 63, 64, 1024])
@pytest.mark.parametrize("norm", NORMS)
def test_hfft(n, norm):
    signal = _spectrum((24, n // 2 + 1))
    got = npx.fft.hfft(npx.asarray(signal), n=n, norm=norm).to_host()
    _assert_close(got, np.fft.hfft(signal.astype(np.complex128), n=n, norm=norm), n)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("norm", NORMS)
def test_inputs_unchanged(dtype, norm):
    """The scaling writes over each transform's result, never over its operand, even where the
    operand needs no copy (C-contiguous, the transform's length, the device's dtype)."""
    spectrum = _spectrum((16, 33), dtype)
    real = RNG.standard_normal((16, 64)).astype(np.float32 if dtype == np.complex64 else np.float64)
    x, r = npx.asarray(spectrum), npx.asarray(real)
    for transform, operand in ((npx.fft.fft, x), (npx.fft.ifft, x), (npx.fft.irfft, x), (npx.fft.hfft, x),
                               (npx.fft.fftn, x), (npx.fft.ifftn, x), (npx.fft.irfftn, x),
                               (npx.fft.rfft, r), (npx.fft.ihfft, r), (npx.fft.rfftn, r)):
        transform(operand, norm=norm).to_host()
    np.testing.assert_array_equal(x.to_host(), spectrum)
    np.testing.assert_array_equal(r.to_host(), real)
