"""Errors that name what the user did: indexing with a device index
array inside a graph capture, and integer powers with negative array exponents."""
import numpy as np
import pytest

import npuarray as npx


def test_device_index_array_inside_a_capture_names_the_indexing(rng):
    host = rng.standard_normal(10)
    a, idx = npx.asarray(host), npx.asarray(np.array([1, 7]))
    graph = npx.Graph()
    with npx.Stream():
        with pytest.raises(npx.CaptureError, match="indexing with a device integer array") as err:
            with graph.capture():
                a[idx]
    assert "to_host" not in str(err.value)
    np.testing.assert_array_equal(a[idx].to_host(), host[[1, 7]])  # usable afterwards


def test_boolean_mask_of_an_empty_array_inside_a_capture_names_the_mask():
    x = npx.zeros((2, 0))  # nothing to select, but the count of True decides the shape
    mask = npx.asarray(np.array([True, False]))
    graph = npx.Graph()
    with npx.Stream():
        with pytest.raises(npx.CaptureError, match="boolean mask indexing"):
            with graph.capture():
                x[mask]
    assert x[mask].shape == (1, 0)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_integer_power_with_a_negative_array_exponent_raises_like_the_scalar(dtype):
    base = npx.asarray(np.array([3, 3, 2], dtype))
    exponent = npx.asarray(np.array([2, -1, 1], dtype))
    with pytest.raises(ValueError, match="negative integer powers"):
        base ** -1  # the scalar path
    with pytest.raises(ValueError, match="negative integer powers"):
        npx.pow(base, exponent)
    with pytest.raises(ValueError, match="negative integer powers"):
        base ** exponent
    before = base.to_host()
    with pytest.raises(ValueError, match="negative integer powers"):
        base **= exponent
    np.testing.assert_array_equal(base.to_host(), before)  # nothing written
    ok = npx.asarray(np.array([2, 0, 3], dtype))
    np.testing.assert_array_equal(npx.pow(base, ok).to_host(), np.power(before, ok.to_host()))


def test_float_base_with_negative_integer_exponents_still_works():
    base = npx.asarray(np.array([2.0, 4.0]))
    exponent = npx.asarray(np.array([-1, -2], np.int32))
    np.testing.assert_allclose((base ** exponent).to_host(), [0.5, 0.0625])
