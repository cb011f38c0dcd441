"""NumPy's 1-D set operations (npuarray._set) and lexsort / sort_complex
(npuarray._sorting) against NumPy."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import REAL_DTYPES, assert_matches, up

SET_DTYPES = REAL_DTYPES + ["float16"]


def _values(rng, shape, dtype, low=0, high=10):
    return rng.integers(low, high, shape).astype(dtype)


def assert_all_match(result, expected):
    result = result if isinstance(result, tuple) else (result,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(result) == len(expected)
    for r, e in zip(result, expected):
        assert_matches(r, e)


@pytest.mark.parametrize("dtype", SET_DTYPES)
@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
def test_set_operations_match_numpy(name, dtype, rng):
    a, b = _values(rng, (3, 5), dtype), _values(rng, (7,), dtype, 4, 14)
    assert_all_match(getattr(npx, name)(up(a), up(b)), getattr(np, name)(a, b))


@pytest.mark.parametrize("dtype", SET_DTYPES)
def test_intersect1d_return_indices(dtype, rng):
    a, b = _values(rng, (4, 5), dtype), _values(rng, (9,), dtype, 3, 12)
    assert_all_match(npx.intersect1d(up(a), up(b), return_indices=True),
                 np.intersect1d(a, b, return_indices=True))
    ua, ub = np.unique(a), np.unique(b)[::-1].copy()
    assert_all_match(npx.intersect1d(up(ua), up(ub), assume_unique=True, return_indices=True),
                 np.intersect1d(ua, ub, assume_unique=True, return_indices=True))


def test_assume_unique_keeps_numpys_order(rng):
    a = rng.permutation(12).astype(np.int32)
    b = rng.permutation(8).astype(np.int32) + 5
    assert_all_match(npx.setdiff1d(up(a), up(b), assume_unique=True),
                 np.setdiff1d(a, b, assume_unique=True))
    assert_all_match(npx.setxor1d(up(a), up(b), assume_unique=True),
                 np.setxor1d(a, b, assume_unique=True))
    assert_all_match(npx.intersect1d(up(a), up(b), assume_unique=True),
                 np.intersect1d(a, b, assume_unique=True))


@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_set_operations_of_complex_values(name, dtype, rng):
    a = (rng.integers(0, 3, 12) + 1j * rng.integers(0, 3, 12)).astype(dtype)
    b = (rng.integers(1, 4, 9) + 1j * rng.integers(0, 3, 9)).astype(dtype)
    assert_all_match(getattr(npx, name)(up(a), up(b)), getattr(np, name)(a, b))
    if name == "intersect1d":
        assert_all_match(npx.intersect1d(up(a), up(b), return_indices=True),
                     np.intersect1d(a, b, return_indices=True))


def test_set_operations_promote_and_handle_empty_and_nan():
    a, b = np.array([1, 2, 2, 5], np.int8), np.array([2.5, 5.0, np.nan, np.nan], np.float32)
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        assert_all_match(getattr(npx, name)(up(a), up(b)), getattr(np, name)(a, b))
        empty = np.array([], np.float64)
        assert_all_match(getattr(npx, name)(up(empty), up(empty)), getattr(np, name)(empty, empty))
        assert_all_match(getattr(npx, name)(up(b), up(empty)), getattr(np, name)(b, empty))


@pytest.mark.parametrize("dtype", [d for d in REAL_DTYPES] + ["float16"])
def test_lexsort_matches_numpy(dtype, rng):
    keys = [_values(rng, (4, 9), dtype, 0, 3) for _ in range(3)]
    device_keys = [up(k) for k in keys]
    assert_matches(npx.lexsort(device_keys), np.lexsort(keys))
    assert_matches(npx.lexsort(device_keys, axis=0), np.lexsort(keys, axis=0))
    rows = np.stack([k[0] for k in keys])
    assert_matches(npx.lexsort(up(rows)), np.lexsort(rows))
    assert_matches(npx.lexsort(tuple(device_keys[:1])), np.lexsort(tuple(keys[:1])))


def test_lexsort_errors_and_0d_keys():
    assert_matches(npx.lexsort([up(np.array(3)), up(np.array(1))]),
                   np.lexsort([np.array(3), np.array(1)]))
    with pytest.raises(TypeError):
        npx.lexsort([])
    with pytest.raises(TypeError):
        np.lexsort([])
    with pytest.raises(ValueError):
        npx.lexsort([up(np.ones(3)), up(np.ones(4))])
    with pytest.raises(np.exceptions.AxisError):
        npx.lexsort([up(np.ones(3))], axis=1)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_lexsort_of_complex_keys(dtype, rng):
    keys = [(rng.integers(0, 2, 12) + 1j * rng.integers(0, 3, 12)).astype(dtype),
            rng.integers(0, 2, 12).astype(dtype)]
    assert_matches(npx.lexsort([up(k) for k in keys]), np.lexsort(keys))


@pytest.mark.parametrize("dtype", REAL_DTYPES + ["float16", "complex64", "complex128"])
def test_sort_complex_matches_numpy(dtype, rng):
    a = _values(rng, (3, 8), dtype, 0, 4) if np.dtype(dtype).kind != "c" else \
        (rng.integers(0, 3, (3, 8)) + 1j * rng.integers(0, 3, (3, 8))).astype(dtype)
    assert_matches(npx.sort_complex(up(a)), np.sort_complex(a))
    assert_matches(npx.sort_complex(up(a[0])), np.sort_complex(a[0]))


def test_numpy_functions_reach_the_new_names(rng):
    """``numpy.lexsort`` / ``numpy.union1d`` ... of NPUArrays run npuarray's
    (``__array_function__``) and return NPUArrays."""
    keys = [_values(rng, (9,), "int32", 0, 3) for _ in range(2)]
    assert_matches(np.lexsort(tuple(up(k) for k in keys)), np.lexsort(tuple(keys)))
    assert_matches(np.lexsort(up(np.stack(keys))), np.lexsort(np.stack(keys)))
    assert_matches(np.union1d(up(keys[0]), up(keys[1])), np.union1d(keys[0], keys[1]))
    assert_matches(np.sort_complex(up(keys[0])), np.sort_complex(keys[0]))
