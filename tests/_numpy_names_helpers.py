"""Shared checks of the NumPy-name tests: results stay on the device and match NumPy."""
import numpy as np

import npuarray as npx

REAL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float32", "float64"]
FLOAT_DTYPES = ["float32", "float64"]
NUMERIC_DTYPES = [d for d in REAL_DTYPES if d != "bool"]


def up(a):
    return npx.asarray(a)


def assert_matches(result, expected, rtol=1e-12, atol=0.0, dtype=True):
    """``result`` is an NPUArray equal to ``expected`` (shape, dtype, values)."""
    assert isinstance(result, npx.NPUArray), type(result)
    host = result.to_host()
    expected = np.asarray(expected)
    assert host.shape == expected.shape, (host.shape, expected.shape)
    if dtype:
        assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(host, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(host, expected)


def sample(rng, shape, dtype):
    """Random host values of ``dtype`` (any kind, complex included) and ``shape``."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 20, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(-5, 5, shape) + 1j * rng.uniform(-5, 5, shape)).astype(dtype)
    return rng.uniform(-5, 5, shape).astype(dtype)


def views(a):
    """(NumPy view, device view) pairs: contiguous, transposed, strided, reversed."""
    x = up(a)
    pairs = [(a, x)]
    if a.ndim >= 2:
        pairs.append((a.T, x.T))
    if a.ndim >= 1:
        pairs.append((a[::2], x[::2]))
        pairs.append((a[::-1], x[::-1]))
    return pairs
