"""npuarray.fft against numpy.fft: every function, sizes 1, 2, 7, 97, 1000, 1024
(and lengths aclfft refuses), each dtype and norm, axes and n/s, non-contiguous
input, plans reused and freed, a non-default stream, and aclfft called directly
(what the library refuses)."""
import gc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray import fft as nfft
from npuarray._acl import ffi, lib

SIZES = [1, 2, 7, 97, 1000, 1024]
NORMS = ["backward", "ortho", "forward"]
TOL = {np.dtype(np.float32): 1e-5, np.dtype(np.complex64): 1e-5,
       np.dtype(np.float64): 1e-12, np.dtype(np.complex128): 1e-12}


def rand(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def assert_close(got, want, dtype):
    """Relative to the largest magnitude of the expected result (FFT error is global)."""
    got = got.to_host()
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(np.abs(want).max(), 1.0) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL[np.dtype(dtype)] * scale * 10)


def complex_of(dtype):
    return np.complex64 if np.dtype(dtype) in (np.float32, np.complex64) else np.complex128


def real_of(dtype):
    return np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("norm", NORMS)
def test_fft_ifft(rng, n, dtype, norm):
    a = rand(rng, (3, n), dtype)
    x = npx.asarray(a)
    got = nfft.fft(x, norm=norm)
    assert got.dtype == dtype
    assert_close(got, np.fft.fft(a, norm=norm), dtype)
    assert_close(nfft.ifft(x, norm=norm), np.fft.ifft(a, norm=norm), dtype)
    assert_close(nfft.ifft(nfft.fft(x, norm=norm), norm=norm), a, dtype)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm", NORMS)
def test_rfft_irfft_hfft_ihfft(rng, n, dtype, norm):
    a = rand(rng, (2, n), dtype)
    x = npx.asarray(a)
    spectrum = nfft.rfft(x, norm=norm)
    assert spectrum.dtype == complex_of(dtype)
    assert_close(spectrum, np.fft.rfft(a, norm=norm), dtype)
    assert_close(nfft.irfft(spectrum, n=n, norm=norm), a, dtype)
    c = rand(rng, (2, n // 2 + 1), complex_of(dtype))
    assert_close(nfft.irfft(npx.asarray(c), n=n, norm=norm), np.fft.irfft(c, n=n, norm=norm), dtype)
    assert_close(nfft.hfft(npx.asarray(c), n=n, norm=norm), np.fft.hfft(c, n=n, norm=norm), dtype)
    got = nfft.ihfft(x, norm=norm)
    assert got.dtype == complex_of(dtype)
    assert_close(got, np.fft.ihfft(a, norm=norm), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_real_input_to_fft(rng, dtype):
    a = rand(rng, (5, 8), dtype)
    got = nfft.fft(npx.asarray(a), axis=0)
    assert got.dtype == complex_of(dtype)
    assert_close(got, np.fft.fft(a, axis=0), dtype)


@pytest.mark.parametrize("n", [3, 8, 13, 20])
@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_n_and_axis(rng, n, axis):
    a = rand(rng, (6, 5, 4), np.complex64)
    x = npx.asarray(a)
    assert_close(nfft.fft(x, n=n, axis=axis), np.fft.fft(a, n=n, axis=axis), np.complex64)
    assert_close(nfft.ifft(x, n=n, axis=axis), np.fft.ifft(a, n=n, axis=axis), np.complex64)
    r = a.real.copy()
    assert_close(nfft.rfft(npx.asarray(r), n=n, axis=axis), np.fft.rfft(r, n=n, axis=axis), np.float32)
    assert_close(nfft.irfft(x, n=n, axis=axis), np.fft.irfft(a, n=n, axis=axis), np.float32)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("s, axes", [(None, None), (None, (0, 2)), ((4, 6), None),
                                     ((3, 5), (1, 0)), ((-1, 7), (0, 1)), (None, (-1,))])
@pytest.mark.parametrize("norm", NORMS)
def test_fftn_ifftn(rng, dtype, s, axes, norm):
    a = rand(rng, (4, 5, 6), dtype)
    x = npx.asarray(a)
    np_axes = default_axes(a, s, axes)
    ns = None if s is None else tuple(a.shape[ax] if v == -1 else v for v, ax in zip(s, np_axes))
    assert_close(nfft.fftn(x, s=s, axes=axes, norm=norm), np.fft.fftn(a, s=ns, axes=np_axes, norm=norm),
          dtype)
    assert_close(nfft.ifftn(x, s=s, axes=axes, norm=norm),
          np.fft.ifftn(a, s=ns, axes=np_axes, norm=norm), dtype)


def default_axes(a, s, axes):
    """The standard's default axes, spelled out for NumPy (which deprecates s without axes)."""
    if axes is not None or s is None:
        return axes
    return tuple(range(a.ndim - len(s), a.ndim))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("s, axes", [(None, None), (None, (0, 2)), ((4, 6), None),
                                     ((3, 8), (2, 0))])
def test_rfftn_irfftn(rng, dtype, s, axes):
    a = rand(rng, (4, 5, 6), dtype)
    x = npx.asarray(a)
    np_axes = default_axes(a, s, axes)
    assert_close(nfft.rfftn(x, s=s, axes=axes), np.fft.rfftn(a, s=s, axes=np_axes), dtype)
    c = np.fft.rfftn(a, axes=np_axes)
    got = nfft.irfftn(npx.asarray(c), s=s, axes=axes)
    assert got.dtype == real_of(dtype)
    assert_close(got, np.fft.irfftn(c, s=s, axes=np_axes), dtype)


def test_fft2_large_batch(rng):
    a = rand(rng, (64, 256), np.complex64)
    assert_close(nfft.fftn(npx.asarray(a)), np.fft.fft2(a), np.complex64)


@pytest.mark.parametrize("n", [1009, 2 * 211])
def test_lengths_aclfft_refuses_run_composed_on_the_device(rng, n):
    """A prime factor above 199 is outside aclfft's sizes: Bluestein's transform on the
    device computes it (no host transfer)."""
    a = rand(rng, (2, n), np.complex64)
    with npx.transfer_guard("disallow"):
        assert_close(nfft.fft(npx.asarray(a)), np.fft.fft(a), np.complex64)
        assert nfft.fft(npx.asarray(a[:, :8])).shape == (2, 8)  # aclfft sizes still work


def test_float64_runs_on_the_device(rng):
    a = rand(rng, (4, 16), np.float64)
    with npx.transfer_guard("disallow"):
        assert_close(nfft.rfft(npx.asarray(a)), np.fft.rfft(a), np.complex128)
        assert nfft.rfft(npx.asarray(a.astype(np.float32))).dtype == np.complex64


def test_non_contiguous_input(rng):
    a = rand(rng, (8, 12), np.complex64)
    x = npx.asarray(a)
    assert_close(nfft.fft(x[::2, 1::3]), np.fft.fft(a[::2, 1::3]), np.complex64)
    assert_close(nfft.fft(x.mT), np.fft.fft(a.T), np.complex64)
    assert_close(nfft.fft(x[:, ::-1]), np.fft.fft(a[:, ::-1]), np.complex64)
    r = a.real.copy()
    assert_close(nfft.rfft(npx.asarray(r)[::-1], axis=0), np.fft.rfft(r[::-1], axis=0), np.float32)


def test_zero_dimensional_batch_and_empty(rng):
    a = np.zeros((0, 8), np.complex64)
    assert nfft.fft(npx.asarray(a)).shape == (0, 8)
    assert nfft.rfft(npx.asarray(np.zeros((3, 0, 8), np.float32))).shape == (3, 0, 5)
    v = rand(rng, (16,), np.complex64)
    assert_close(nfft.fft(npx.asarray(v)), np.fft.fft(v), np.complex64)


@pytest.mark.parametrize("call", [
    lambda x: nfft.fft(x, n=0), lambda x: nfft.fft(x, norm="bad"),
    lambda x: nfft.irfft(x[:, :1]), lambda x: nfft.fftn(x, s=(4,), axes=(0, 1))])
def test_bad_values(call):
    x = npx.asarray(np.ones((4, 4), np.complex64))
    with pytest.raises(ValueError):
        call(x)
    assert_close(nfft.fft(x), np.fft.fft(np.ones((4, 4))), np.complex64)


def test_bad_axis_and_dtype():
    x = npx.asarray(np.ones((4, 4), np.complex64))
    with pytest.raises(np.exceptions.AxisError):
        nfft.fft(x, axis=2)
    with pytest.raises(IndexError):
        nfft.ifft(x, axis=-3)
    with pytest.raises(TypeError):
        nfft.fft(npx.asarray(np.ones(4, np.int32)))
    with pytest.raises(TypeError):
        nfft.rfft(x)  # complex input to a real transform
    with pytest.raises(TypeError):
        nfft.fft(np.ones(4))


@pytest.mark.parametrize("n", [1, 2, 7, 8, 97])
@pytest.mark.parametrize("d", [1.0, 0.5, 3])
@pytest.mark.parametrize("dtype", [None, np.float32])
def test_fftfreq_rfftfreq(n, d, dtype):
    got = nfft.fftfreq(n, d=d, dtype=dtype)
    assert got.dtype == (dtype or np.float64)
    np.testing.assert_allclose(got.to_host(), np.fft.fftfreq(n, d=d), rtol=1e-6)
    np.testing.assert_allclose(nfft.rfftfreq(n, d=d, dtype=dtype).to_host(),
                               np.fft.rfftfreq(n, d=d), rtol=1e-6)
    assert nfft.fftfreq(n, device=npx.Device(1)).device == npx.Device(1)
    with pytest.raises(ValueError):
        nfft.fftfreq(0)
    with pytest.raises(TypeError):
        nfft.rfftfreq(4, dtype=np.int32)


@pytest.mark.parametrize("axes", [None, 0, (1,), (0, 1), -1])
def test_shifts(rng, axes):
    a = rand(rng, (5, 6), np.float32)
    x = npx.asarray(a)
    np.testing.assert_array_equal(nfft.fftshift(x, axes=axes).to_host(),
                                  np.fft.fftshift(a, axes=axes))
    np.testing.assert_array_equal(nfft.ifftshift(x, axes=axes).to_host(),
                                  np.fft.ifftshift(a, axes=axes))


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 12), min_size=1, max_size=3),
       axis=st.integers(-1, 0), norm=st.sampled_from(NORMS))
def test_fft_hypothesis(shape, axis, norm):
    rng = np.random.default_rng(sum(shape))
    a = rand(rng, tuple(shape), np.complex64)
    assert_close(nfft.fft(npx.asarray(a), axis=axis, norm=norm), np.fft.fft(a, axis=axis, norm=norm),
          np.complex64)


# ---------------------------------------------------------------------------
# Plans

def test_plans_are_cached_reused_and_freed(rng):
    nfft.clear_plan_cache()
    before = nfft.plan_cache_info()
    a = npx.asarray(rand(rng, (4, 32), np.complex64))
    nfft.fft(a)
    nfft.ifft(a)  # same length, type and batch: one plan for both directions
    info = nfft.plan_cache_info()
    assert info["size"] == 1 and info["misses"] == before["misses"] + 1
    assert info["hits"] == before["hits"] + 1
    assert info["keys"] == [(32, 0x29, 4, 0)]
    nfft.set_plan_cache_size(2)
    for n in (8, 16, 64):
        nfft.fft(npx.asarray(rand(rng, (1, n), np.complex64)))
    assert [k[0] for k in nfft.plan_cache_info()["keys"]] == [16, 64]
    nfft.set_plan_cache_size(16)
    nfft.clear_plan_cache()
    gc.collect()
    assert nfft.plan_cache_info()["size"] == 0
    assert_close(nfft.fft(a), np.fft.fft(a.to_host()), np.complex64)  # a new plan works
    with pytest.raises(ValueError):
        nfft.set_plan_cache_size(-1)


def test_non_default_stream_ordered_with_others(rng):
    a = rand(rng, (64, 1024), np.complex64)
    s1, s2 = npx.Stream(), npx.Stream()
    with s1:
        x = npx.asarray(a) * 2.0
        spectrum = nfft.fft(x)
    with s2:
        back = nfft.ifft(spectrum)  # ordered after s1's work on spectrum by an event
        got = back.to_host()
    np.testing.assert_allclose(got, 2 * a, atol=1e-4)


# ---------------------------------------------------------------------------
# aclfft called directly: what the library refuses, npusim refuses

def _plan1d(n, kind, batch=1, dim=0):
    out = ffi.new("aclfftHandle *")
    return lib.aclfftPlan1d(out, n, kind, batch, dim), out[0]


@pytest.mark.parametrize("kind", [lib.ACLFFT_Z2Z, lib.ACLFFT_D2Z, lib.ACLFFT_Z2D])
def test_aclfft_double_not_implemented(kind):
    rc, plan = _plan1d(16, kind)
    assert rc == lib.ACLFFT_NOT_IMPLEMENTED and plan == ffi.NULL
    assert b"FP32" in ffi.string(lib.aclGetRecentErrMsg())


def test_aclfft_refusals():
    assert _plan1d(1009, lib.ACLFFT_C2C)[0] == lib.ACLFFT_NOT_IMPLEMENTED  # prime > 199
    assert _plan1d(0, lib.ACLFFT_C2C)[0] == lib.ACLFFT_INVALID_SIZE
    assert _plan1d(16, lib.ACLFFT_C2C, batch=0)[0] == lib.ACLFFT_INVALID_VALUE
    assert _plan1d(16, lib.ACLFFT_C2C, dim=1)[0] == lib.ACLFFT_NOT_IMPLEMENTED  # vertical
    out = ffi.new("aclfftHandle *")
    assert lib.aclfftPlan3d(out, 4, 4, 4, lib.ACLFFT_C2C) == lib.ACLFFT_NOT_IMPLEMENTED
    assert lib.aclfftPlan2d(out, 1, 4, 4, lib.ACLFFT_R2C) == lib.ACLFFT_NOT_SUPPORTED
    rc, plan = _plan1d(16, lib.ACLFFT_C2C)
    assert rc == 0
    host = np.zeros(32, np.float32)  # host memory is not device memory
    ptr = ffi.cast("aclfftComplex *", host.ctypes.data)
    assert lib.aclfftExecC2C(plan, ptr, ptr, lib.ACLFFT_FORWARD if hasattr(
        lib, "ACLFFT_FORWARD") else -1) == lib.ACLFFT_INVALID_VALUE
    dev = npx.zeros((16,), dtype=np.complex64)
    p = ffi.cast("aclfftComplex *", dev.data_ptr)
    assert lib.aclfftExecC2C(plan, p, p, 3) == lib.ACLFFT_INVALID_VALUE  # bad direction
    assert lib.aclfftExecR2C(plan, ffi.cast("aclfftReal *", dev.data_ptr), p) == \
        lib.ACLFFT_INVALID_TYPE
    assert lib.aclfftDestroy(plan) == 0
    assert lib.aclfftDestroy(plan) == lib.ACLFFT_INVALID_PLAN  # twice
    assert lib.aclfftExecC2C(plan, p, p, -1) == lib.ACLFFT_INVALID_PLAN


def test_aclfft_plan2d_matches_fft2(rng):
    a = rand(rng, (3, 8, 12), np.complex64)
    x = npx.asarray(a)
    out = npx.empty(a.shape, dtype=np.complex64)
    handle = ffi.new("aclfftHandle *")
    assert lib.aclfftPlan2d(handle, 3, 8, 12, lib.ACLFFT_C2C) == 0
    stream = npx.get_current_stream()
    assert lib.aclfftSetStream(handle[0], stream.handle) == 0
    x._buffer.prepare(stream)
    out._buffer.prepare(stream)
    assert lib.aclfftExecC2C(handle[0], ffi.cast("aclfftComplex *", x.data_ptr),
                             ffi.cast("aclfftComplex *", out.data_ptr), -1) == 0
    assert lib.aclfftDestroy(handle[0]) == 0  # queued work keeps its tables
    assert_close(out, np.fft.fft2(a), np.complex64)
    assert ffi.string(lib.aclfftGetErrorString(lib.ACLFFT_INVALID_PLAN)).startswith(
        b"ACLFFT_INVALID_PLAN")


def test_fft_error_type():
    with pytest.raises(nfft.FFTError) as info:
        nfft._plan._Plan(1009, 0x29, 1)
    assert info.value.code == 14 and info.value.name == "ACLFFT_NOT_IMPLEMENTED"
    assert isinstance(info.value, npx.AclError)


def test_another_device(rng):
    a = rand(rng, (3, 16), np.complex64)
    x = npx.asarray(a, device=npx.Device(1))
    got = nfft.fft(x)
    assert got.device == npx.Device(1)
    assert_close(got, np.fft.fft(a), np.complex64)
    assert (16, 0x29, 3, 1) in nfft.plan_cache_info()["keys"]
