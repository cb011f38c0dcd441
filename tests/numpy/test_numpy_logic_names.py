"""NumPy's array type tests (iscomplexobj, isrealobj, isscalar, isfortran in
npuarray._logic) against NumPy on the same data."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import REAL_DTYPES, up


@pytest.mark.parametrize("dtype", REAL_DTYPES + ["float16", "complex64", "complex128"])
def test_iscomplexobj_isrealobj(dtype):
    a = np.zeros((2, 3), dtype=dtype)
    assert npx.iscomplexobj(up(a)) is np.iscomplexobj(a)
    assert npx.isrealobj(up(a)) is np.isrealobj(a)


@pytest.mark.parametrize("value", [3, 2.5, 1j, True, np.float32(1), "text", [1], None])
def test_iscomplexobj_of_host_objects_and_isscalar(value):
    assert npx.iscomplexobj(value) == np.iscomplexobj(value)
    assert npx.isscalar(value) == np.isscalar(value)


def test_device_arrays_are_not_scalars():
    assert not npx.isscalar(up(np.float32(1.0)))
    assert not npx.isscalar(up(np.ones(3)))


def test_isfortran_follows_the_strides():
    a = np.ones((3, 4), dtype=np.float32)
    x = up(a)
    for host, view in [(a, x), (a.T, x.T), (a[:, ::2], x[:, ::2]), (a[0], x[0]),
                       (np.ones((1, 3)).T, up(np.ones((1, 3))).T), (a.T[::2], x.T[::2])]:
        assert npx.isfortran(view) is bool(np.isfortran(host)), host.strides
    with pytest.raises((TypeError, AttributeError)):
        npx.isfortran([1, 2])


def test_euler_gamma_is_numpys():
    assert npx.euler_gamma == np.euler_gamma
    assert isinstance(npx.euler_gamma, float)
