"""npuarray.testing: NumPy's assertions on NPUArrays or NumPy arrays."""
import numpy as np
import pytest

import npuarray as npx
import npuarray.testing as npt


@pytest.fixture
def pair(rng):
    a = rng.standard_normal((3, 4))
    return a, npx.asarray(a)


def test_assertions_pass_for_equal_data_under_the_guard(pair):
    a, x = pair
    with npx.transfer_guard("disallow"):  # the reads are explicit
        npt.assert_allclose(x, a)
        npt.assert_allclose(a, x)
        npt.assert_allclose(x, x + 1e-9, rtol=1e-6)
        npt.assert_array_equal(x, a)
        npt.assert_array_equal(x.T, a.T)
        npt.assert_array_almost_equal(x, a + 1e-8)
        npt.assert_array_less(x, x + 1)
        npt.assert_equal(x, a)
        npt.assert_allclose(npx.asarray(np.array([np.nan])), np.array([np.nan]))


def test_assertions_fail_for_different_data(pair):
    a, x = pair
    with pytest.raises(AssertionError):
        npt.assert_allclose(x, a + 1e-3)
    with pytest.raises(AssertionError):
        npt.assert_array_equal(x, a[::-1])
    with pytest.raises(AssertionError):
        npt.assert_array_equal(x, a[:2])
    with pytest.raises(AssertionError):
        npt.assert_allclose(x, a.astype(np.float32), strict=True)
    with pytest.raises(AssertionError):
        npt.assert_array_less(x, x)
    with pytest.raises(AssertionError):
        npt.assert_allclose(npx.asarray(np.array([np.nan])), np.array([np.nan]),
                            equal_nan=False)
    npt.assert_allclose(x, a)  # the next assertion still works


def test_every_numpy_name_dispatches_through_numpy(rng):
    """Every npuarray name whose NumPy function hands NPUArrays to ``__array_function__``
    (NumPy's dispatchers) is implemented there: NumPy's own function on NPUArrays runs
    npuarray's."""
    from npuarray import _numpy_dispatch
    _numpy_dispatch.array_function(None, np.sum, (npx.NPUArray,), (npx.zeros(1),), {})
    table = _numpy_dispatch._FUNCTIONS
    dispatcher = type(np.sum)  # numpy._ArrayFunctionDispatcher
    for name in npx.__all__:
        numpy_function = getattr(np, name, None)
        if not isinstance(numpy_function, dispatcher):
            continue
        assert numpy_function in table, name
