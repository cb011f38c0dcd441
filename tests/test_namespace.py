"""The namespace itself: __array_api_version__, __array_namespace__ and the constants."""
import math

import numpy as np
import pytest

import npuarray as npx

PUBLISHED = ["2021.12", "2022.12", "2023.12", "2024.12", "2025.12"]


def test_array_api_version():
    assert npx.__array_api_version__ == "2025.12"


@pytest.mark.parametrize("version", [None, *PUBLISHED])
def test_array_namespace_accepts_every_published_version(version):
    x = npx.ones(2)
    assert x.__array_namespace__(api_version=version) is npx
    assert npx.ones(()).__array_namespace__(api_version=version) is npx


@pytest.mark.parametrize("version", ["2020.12", "2026.12", "2023", "", 2023.12])
def test_array_namespace_refuses_other_versions(version):
    x = npx.ones(2)
    with pytest.raises(ValueError, match="unsupported array API version"):
        x.__array_namespace__(api_version=version)
    assert x.__array_namespace__() is npx


def test_array_namespace_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        npx.ones(2).__array_namespace__("2025.12")


# The standard's "Constants" chapter (constants.rst): name -> value.
CONSTANTS = {"e": math.e, "inf": math.inf, "pi": math.pi}


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_float_constants(name):
    value = getattr(npx, name)
    assert type(value) is float
    assert value == CONSTANTS[name] == getattr(np, name)
    x = npx.asarray(value)
    assert x.dtype == np.float64 and x.shape == ()
    assert x.to_host() == value


def test_nan():
    assert type(npx.nan) is float and math.isnan(npx.nan)
    assert math.isnan(npx.asarray(npx.nan).to_host())


def test_newaxis_inserts_an_axis(rng):
    host = rng.standard_normal((2, 3))
    assert npx.newaxis is None
    x = npx.asarray(host)
    np.testing.assert_array_equal(x[:, npx.newaxis].to_host(), host[:, np.newaxis])
    np.testing.assert_array_equal(x[npx.newaxis, ..., npx.newaxis].to_host(),
                                  host[np.newaxis, ..., np.newaxis])


def test_every_public_name_exists():
    for name in npx.__all__:
        assert hasattr(npx, name), name
    for name in ("e", "inf", "nan", "newaxis", "pi", "__array_namespace_info__"):
        assert name in npx.__all__
