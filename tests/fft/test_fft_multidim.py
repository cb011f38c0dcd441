"""npuarray.fft's NumPy 2-D transforms fft2, ifft2, rfft2, irfft2 against numpy.fft."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import assert_matches, up

TOLERANCE = {np.dtype(np.float32): 2e-4, np.dtype(np.complex64): 2e-4,
             np.dtype(np.float64): 1e-10, np.dtype(np.complex128): 1e-10}


def _input(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def assert_close_to_numpy(result, expected, dtype):
    tol = TOLERANCE[np.dtype(dtype)]
    assert_matches(result, expected, rtol=tol, atol=tol * np.abs(expected).max(initial=1.0))


@pytest.mark.parametrize("name", ["fft2", "ifft2"])
@pytest.mark.parametrize("dtype", ["float32", "complex64", "float64", "complex128"])
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_complex_transforms(rng, name, dtype, norm):
    x = _input(rng, (3, 8, 6), dtype)
    assert_close_to_numpy(getattr(npx.fft, name)(up(x), norm=norm), getattr(np.fft, name)(x, norm=norm), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_real_transforms(rng, dtype, norm):
    x = _input(rng, (2, 8, 6), dtype)
    assert_close_to_numpy(npx.fft.rfft2(up(x), norm=norm), np.fft.rfft2(x, norm=norm), dtype)
    spectrum = np.fft.rfft2(x)
    assert_close_to_numpy(npx.fft.irfft2(up(spectrum), norm=norm), np.fft.irfft2(spectrum, norm=norm), dtype)


@pytest.mark.parametrize("s,axes", [((4, 10), (-2, -1)), (None, (0, 2)), ((5, 4), (2, 0)),
                                    (None, (1,)), ((6,), (-1,))])
def test_shapes_and_axes(rng, s, axes):
    x = _input(rng, (3, 8, 6), "complex64")
    assert_close_to_numpy(npx.fft.fft2(up(x), s=s, axes=axes), np.fft.fft2(x, s=s, axes=axes), "complex64")
    assert_close_to_numpy(npx.fft.ifft2(up(x), s=s, axes=axes), np.fft.ifft2(x, s=s, axes=axes), "complex64")
    r = x.real.copy()
    assert_close_to_numpy(npx.fft.rfft2(up(r), s=s, axes=axes), np.fft.rfft2(r, s=s, axes=axes), "complex64")
    assert_close_to_numpy(npx.fft.irfft2(up(x), s=s, axes=axes), np.fft.irfft2(x, s=s, axes=axes), "float32")


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "int64", "uint16"])
def test_integer_input_is_float64(rng, dtype):
    x = rng.integers(0, 2 if dtype == "bool" else 9, (4, 6)).astype(dtype)
    assert_close_to_numpy(npx.fft.fft2(up(x)), np.fft.fft2(x), "complex128")
    assert_close_to_numpy(npx.fft.rfft2(up(x)), np.fft.rfft2(x), "complex128")


def test_out(rng):
    x = _input(rng, (4, 6), "complex64")
    out = npx.empty((4, 6), dtype=np.complex64)
    assert npx.fft.fft2(up(x), out=out) is out
    assert_close_to_numpy(out, np.fft.fft2(x), "complex64")
    with pytest.raises(ValueError):
        npx.fft.fft2(up(x), out=npx.empty((3, 6), dtype=np.complex64))


def test_errors(rng):
    x = up(_input(rng, (4, 6), "float32"))
    with pytest.raises(ValueError):
        npx.fft.fft2(x, norm="sideways")
    with pytest.raises(ValueError):
        npx.fft.fft2(x, s=(4,), axes=(0, 1))
    with pytest.raises(np.exceptions.AxisError):
        npx.fft.fft2(x, axes=(0, 2))
    with pytest.raises(TypeError):
        npx.fft.rfft2(up(_input(rng, (4, 6), "complex64")))
    with pytest.raises(TypeError):
        npx.fft.fft2(np.ones((4, 4)))
