"""all, any (aclnnAll / aclnnAny) and isnan, isfinite (aclnnNeTensor / aclnnIsFinite)
against NumPy: every dtype of the standard, axes, keepdims, 0-d, empty and
non-contiguous inputs, special values, bad input."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx

ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128"]
SPECIALS = [0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf]


def _data(rng, dtype, shape):
    """Random values of ``dtype`` with plenty of zeros (so truth reductions go both ways)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.7
    values = rng.integers(0, 3, size=shape).astype(dtype)
    if dtype.kind in "fc":
        flat = values.reshape(-1)
        flat[rng.random(flat.size) < 0.1] = np.nan
    return values


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_truth_reductions_match_numpy(rng, dtype, name, axis, keepdims):
    host = _data(rng, dtype, (3, 4, 5))
    got = getattr(npx, name)(npx.asarray(host), axis=axis, keepdims=keepdims)
    want = getattr(np, name)(host, axis=axis, keepdims=keepdims)
    assert got.dtype == npx.bool
    np.testing.assert_array_equal(got.to_host(), want)


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("shape,axis", [((0,), None), ((2, 0), 1), ((2, 0), 0), ((0, 3), None),
                                        ((), None), ((1,), 0)])
def test_truth_reductions_empty_and_0d(rng, name, shape, axis):
    host = rng.random(shape) > 0.5
    got = getattr(npx, name)(npx.asarray(host), axis=axis)
    np.testing.assert_array_equal(got.to_host(), getattr(np, name)(host, axis=axis))


@pytest.mark.parametrize("name", ["all", "any"])
def test_truth_reductions_of_views(rng, name):
    host = rng.integers(0, 2, size=(6, 8)).astype(np.float32)
    x = npx.asarray(host)
    for view, ref in [(x.mT, host.T), (x[::2, 1::3], host[::2, 1::3]), (x[::-1], host[::-1])]:
        for axis in (None, 0, 1):
            np.testing.assert_array_equal(getattr(npx, name)(view, axis=axis).to_host(),
                                          getattr(np, name)(ref, axis=axis))


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=4), data=st.data())
def test_truth_reductions_any_shape(shape, data):
    rng = np.random.default_rng(len(shape))
    host = rng.integers(0, 2, size=shape).astype(np.int32)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)
                     if shape else st.none())
    for name in ("all", "any"):
        np.testing.assert_array_equal(getattr(npx, name)(npx.asarray(host), axis=axis).to_host(),
                                      getattr(np, name)(host, axis=axis))


@pytest.mark.parametrize("name", ["all", "any"])
def test_truth_reductions_bad_input(name):
    x = npx.asarray(np.ones((2, 3), np.float32))
    with pytest.raises(np.exceptions.AxisError):
        getattr(npx, name)(x, axis=2)
    with pytest.raises(ValueError):
        getattr(npx, name)(x, axis=(0, 0))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        getattr(npx, name)(np.ones(3))  # host data: an implicit upload
    assert bool(getattr(npx, name)(x).to_host())  # the next operation still works


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "bfloat16"])
@pytest.mark.parametrize("name", ["isnan", "isfinite"])
def test_classification_of_real_specials(dtype, name):
    host = np.array(SPECIALS * 3, dtype=np.float64).reshape(3, 7)
    x = npx.asarray(host).astype(getattr(npx, dtype))
    got = getattr(npx, name)(x)
    assert got.dtype == npx.bool and got.shape == (3, 7)
    np.testing.assert_array_equal(got.to_host(), getattr(np, name)(host))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", ["isnan", "isfinite"])
def test_classification_of_complex_specials(dtype, name):
    parts = np.array(SPECIALS)
    host = np.empty((len(parts), len(parts)), dtype)  # every pair of parts (1j * inf would
    host.real, host.imag = parts[:, None], parts[None, :]  # make a NaN real part)
    np.testing.assert_array_equal(getattr(npx, name)(npx.asarray(host)).to_host(),
                                  getattr(np, name)(host))


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "uint8", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("name", ["isnan", "isfinite"])
def test_classification_of_integers(rng, dtype, name):
    host = rng.integers(0, 100, size=(4, 5)).astype(dtype)
    got = getattr(npx, name)(npx.asarray(host))
    np.testing.assert_array_equal(got.to_host(), getattr(np, name)(host))


@pytest.mark.parametrize("name", ["isnan", "isfinite"])
def test_classification_of_views_empty_and_0d(rng, name):
    host = rng.standard_normal((5, 6))
    host[rng.random(host.shape) < 0.3] = np.nan
    host[0, 0] = np.inf
    x = npx.asarray(host)
    for view, ref in [(x.mT, host.T), (x[::-2, ::3], host[::-2, ::3]), (x[1, 2], host[1, 2]),
                      (x[:0], host[:0])]:
        got = getattr(npx, name)(view)
        assert got.shape == ref.shape
        np.testing.assert_array_equal(got.to_host(), getattr(np, name)(ref))


@pytest.mark.parametrize("name", ["isnan", "isfinite"])
def test_classification_on_a_stream(rng, name):
    host = rng.standard_normal(1000)
    host[::7] = np.nan
    with npx.Stream():
        got = getattr(npx, name)(npx.asarray(host)).to_host()
    np.testing.assert_array_equal(got, getattr(np, name)(host))


@pytest.mark.parametrize("name", ["isnan", "isfinite"])
def test_classification_rejects_host_data(name):
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        getattr(npx, name)(np.ones(3))  # host data: an implicit upload
