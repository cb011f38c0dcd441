"""npusim's single-precision FFT (aclfft C2C / R2C / C2R behind npuarray.fft for complex64 and
float32) against NumPy's transform in double precision: powers of two from 1 to 2**20 (lanes
and four-step paths), 3*5*7 mixes and primes (Bluestein), batches that fill the vector lanes
or not, every instruction set variant the CPU has (NPUSIM_FFT_ISA), 2-D plans, other axes,
non-contiguous input and every norm. The error bound is relative to ||x||: a few float32 ulps
times log2 n, the accuracy of a float32 FFT with accurately rounded twiddles."""
import numpy as np
import pytest

import npuarray as npx

U = 2.0 ** -24
RNG = np.random.default_rng(3021)
ISAS = ["base", "avx2", "avx512"]   # a variant the CPU lacks falls back to the widest it has


def _complex(shape):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(np.complex64)


def _assert_close(got, want, x, n, ulps=4):
    """max |got - want| <= ulps * u * log2 n * ||x|| (the largest row norm of x)."""
    norm = np.max(np.linalg.norm(np.asarray(x, np.complex128).reshape(-1, x.shape[-1]), axis=-1))
    bound = ulps * U * max(np.log2(max(n, 2)), 1) * norm
    assert np.max(np.abs(got - want), initial=0.0) <= bound, (np.max(np.abs(got - want)), bound)


@pytest.fixture(params=ISAS)
def isa(request, monkeypatch):
    monkeypatch.setenv("NPUSIM_FFT_ISA", request.param)   # read by npusim at each transform
    return request.param


@pytest.mark.parametrize("n", [1, 2, 4, 8, 32, 64, 128, 1024, 2048, 4096, 1 << 13, 1 << 16])
@pytest.mark.parametrize("batch", [1, 3, 16, 37])
def test_c2c_powers_of_two(isa, n, batch):
    x = _complex((batch, n))
    d = npx.asarray(x)
    forward, inverse = npx.fft.fft(d).to_host(), npx.fft.ifft(d).to_host()
    assert forward.dtype == np.complex64
    _assert_close(forward, np.fft.fft(x.astype(np.complex128)), x, n)
    _assert_close(inverse * n, np.fft.ifft(x.astype(np.complex128)) * n, x, n)


def test_c2c_two_to_the_twenty(isa):
    x = _complex(1 << 20)
    got = npx.fft.fft(npx.asarray(x)).to_host()
    _assert_close(got, np.fft.fft(x.astype(np.complex128)), x, 1 << 20)
    back = npx.fft.ifft(npx.asarray(got)).to_host()
    _assert_close(back, x, x, 1 << 20, ulps=8)


@pytest.mark.parametrize("n", [3, 5, 7, 105, 3 * 5 * 7 * 8, 97, 199, 2 * 199, 1000])
def test_c2c_other_lengths(n):
    x = _complex((3, n))
    got = npx.fft.fft(npx.asarray(x)).to_host()
    _assert_close(got, np.fft.fft(x.astype(np.complex128)), x, n)


@pytest.mark.parametrize("n", [2, 4, 8, 64, 1024, 4096, 1 << 16, 6, 210])
@pytest.mark.parametrize("batch", [1, 5, 32])
def test_real_transforms(isa, n, batch):
    x = RNG.standard_normal((batch, n)).astype(np.float32)
    spectrum = npx.fft.rfft(npx.asarray(x)).to_host()
    want = np.fft.rfft(x.astype(np.float64))
    _assert_close(spectrum, want, x, n)
    back = npx.fft.irfft(npx.asarray(want.astype(np.complex64)), n=n).to_host()
    _assert_close(back * n, x.astype(np.float64) * n, want, n, ulps=8)


@pytest.mark.parametrize("shape", [(64, 128), (3, 256, 32), (2048, 8), (8, 2048), (4, 12)])
def test_two_dimensional(isa, shape):
    x = _complex(shape)
    got = npx.fft.fftn(npx.asarray(x), axes=(-2, -1)).to_host()
    want = np.fft.fftn(x.astype(np.complex128), axes=(-2, -1))
    _assert_close(got, want, x.reshape(-1, shape[-2] * shape[-1]), shape[-2] * shape[-1])
    back = npx.fft.ifftn(npx.asarray(got), axes=(-2, -1)).to_host()
    _assert_close(back, x, x.reshape(-1, shape[-2] * shape[-1]), shape[-2] * shape[-1], ulps=8)


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_other_axis_non_contiguous_and_norms(isa, norm):
    base = _complex((512, 96))
    x = base[::2, 1::3]                       # (256, 32) view: axis 0 strided
    got = npx.fft.fft(npx.asarray(base)[::2, 1::3], axis=0, norm=norm).to_host()
    want = np.fft.fft(x.astype(np.complex128), axis=0, norm=norm)
    scale = {"backward": 1.0, "ortho": 16.0, "forward": 256.0}[norm]
    _assert_close(got.T * scale, want.T * scale, x.T, 256)


def test_isa_variants_agree_closely(monkeypatch):
    x = _complex((16, 1 << 12))
    results = []
    for name in ISAS:
        monkeypatch.setenv("NPUSIM_FFT_ISA", name)
        results.append(npx.fft.fft(npx.asarray(x)).to_host())
    for other in results[1:]:
        _assert_close(other, results[0], x, 1 << 12, ulps=8)
