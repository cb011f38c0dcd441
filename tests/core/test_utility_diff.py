"""diff against NumPy: every numeric dtype and bool, axes, n (0, > length),
prepend / append (arrays and scalars), 0-d, empty and non-contiguous input,
bad arguments."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from test_elementwise import ALL, assert_matches, random_array, up


@pytest.mark.parametrize("dtype", ALL)
def test_diff_every_dtype(rng, dtype):
    a = random_array(rng, (5, 7), dtype)
    for axis in (0, 1, -1):
        for n in (1, 2, 3):
            with np.errstate(over="ignore"):
                expected = np.diff(a, axis=axis, n=n)  # uint wraps, bool uses !=
            assert_matches(npx.diff(up(a), axis=axis, n=n), expected)


def test_diff_n_zero_and_larger_than_length(rng):
    a = random_array(rng, (3, 4), "int32")
    assert_matches(npx.diff(up(a), n=0), a)
    for n in (4, 5, 9):
        assert_matches(npx.diff(up(a), n=n), np.diff(a, n=n))           # shape (3, 0)
    assert_matches(npx.diff(up(a), axis=0, n=3), np.diff(a, axis=0, n=3))


def test_diff_prepend_append(rng):
    a = random_array(rng, (4, 5), "float64")
    p = random_array(rng, (2, 5), "float64")
    q = random_array(rng, (4, 3), "float64")
    assert_matches(npx.diff(up(a), axis=0, prepend=up(p)), np.diff(a, axis=0, prepend=p))
    assert_matches(npx.diff(up(a), axis=1, append=up(q), n=2), np.diff(a, axis=1, append=q, n=2))
    assert_matches(npx.diff(up(a), axis=0, prepend=up(p), append=up(p), n=3),
                   np.diff(a, axis=0, prepend=p, append=p, n=3))
    assert_matches(npx.diff(up(a), prepend=0.5, append=-1.0),
                   np.diff(a, prepend=0.5, append=-1.0))
    b = np.array([True, True, False])
    assert_matches(npx.diff(up(b), prepend=False), np.diff(b, prepend=False))


def test_diff_python_scalar_edges_keep_the_array_dtype():
    # Python scalars are weak (the standard): uint8 stays uint8 and wraps, where
    # NumPy 2 would promote to int64.
    a = np.array([3, 1, 4], np.uint8)
    assert_matches(npx.diff(up(a), prepend=5), np.diff(a, prepend=np.uint8(5)))


def test_diff_empty_and_non_contiguous(rng):
    for shape, axis in (((0,), 0), ((3, 0), 1), ((0, 4), 1), ((1, 4), 0)):
        e = np.zeros(shape, np.float32)
        assert_matches(npx.diff(up(e), axis=axis), np.diff(e, axis=axis))
    a = random_array(rng, (6, 9), "int16")
    for view, ref in ((up(a).T, a.T), (up(a)[::-1, 1::2], a[::-1, 1::2])):
        for axis in (0, 1):
            assert_matches(npx.diff(view, axis=axis, n=2), np.diff(ref, axis=axis, n=2))


def test_diff_special_cases():
    a = np.array([np.inf, np.inf, 1.0, np.nan, -np.inf])
    with np.errstate(invalid="ignore"):
        assert_matches(npx.diff(up(a)), np.diff(a))  # inf - inf is nan, nan propagates


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=4), data=st.data())
def test_diff_hypothesis(shape, data):
    rng = np.random.default_rng(sum(shape) + 3)
    a = random_array(rng, tuple(shape), "int64")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.integers(0, 4))
    assert_matches(npx.diff(up(a), axis=axis, n=n), np.diff(a, axis=axis, n=n))


def test_diff_bad_arguments():
    x = up(np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError):
        npx.diff(up(np.array(1.0)))                  # 0-d
    with pytest.raises(ValueError):
        npx.diff(x, n=-1)
    with pytest.raises(TypeError):
        npx.diff(x, n=1.5)
    with pytest.raises((ValueError, IndexError)):
        npx.diff(x, axis=2)
    with pytest.raises(TypeError):
        npx.diff(np.arange(3))                       # host data
    with pytest.raises(TypeError):
        npx.diff(x, prepend=[1, 2, 3])               # a list, not an array
    with pytest.raises(ValueError):
        npx.diff(x, axis=0, prepend=up(np.ones((1, 2))))  # shapes differ off the axis
    assert_matches(npx.diff(x, axis=0), np.full((1, 3), 3.0))   # still works
