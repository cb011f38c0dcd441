"""errstate, seterr, geterr, seterrcall, geterrcall (npuarray/_floating_point_errors.py):
NumPy's own objects; device operators stay IEEE 754 whatever they say."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import assert_matches, up


@pytest.mark.parametrize("name", ["seterr", "geterr", "seterrcall", "geterrcall", "errstate"])
def test_names_are_numpys(name):
    assert getattr(npx, name) is getattr(np, name)
    assert name in npx.__all__


def test_settings_round_trip_through_numpy():
    before = npx.geterr()
    old = npx.seterr(divide="raise")
    try:
        assert old == before and np.geterr()["divide"] == "raise"
        with pytest.raises(FloatingPointError):
            np.divide(np.ones(1), np.zeros(1))
    finally:
        npx.seterr(**old)
    assert npx.geterr() == before
    calls = []
    previous = npx.seterrcall(lambda kind, flag: calls.append(kind))
    try:
        with npx.errstate(divide="call"):
            np.divide(np.ones(1), np.zeros(1))
        assert calls == ["divide by zero"]
        assert callable(npx.geterrcall())
    finally:
        npx.seterrcall(previous)


def test_device_operators_are_ieee_under_any_setting():
    x, zero = up(np.array([1.0, -1.0, 0.0])), up(np.zeros(3))
    with np.errstate(all="ignore"):
        expected = np.divide(np.array([1.0, -1.0, 0.0]), np.zeros(3))
    with npx.errstate(all="raise"):
        assert_matches(npx.divide(x, zero), expected)
