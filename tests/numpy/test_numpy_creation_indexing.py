"""NumPy's creation, selection and set names (npuarray._creation,
npuarray._indexing, npuarray._sorting, npuarray._set) against NumPy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from _numpy_names_helpers import REAL_DTYPES, assert_matches, sample, up, views


def test_array_copy_ascontiguousarray(rng):
    a = rng.standard_normal((3, 4))
    x = npx.array(a)
    assert_matches(x, a)
    y = npx.array(x)
    assert y is not x
    assert_matches(y, a)
    assert npx.array(x, copy=None) is x
    assert_matches(npx.array([1, 2, 3], dtype=np.float32), np.array([1, 2, 3], dtype=np.float32))
    assert_matches(npx.array(5, ndmin=2), np.array(5, ndmin=2))
    assert_matches(npx.copy(x.T), a.T)
    assert npx.ascontiguousarray(x) is x
    c = npx.ascontiguousarray(x.T)
    assert_matches(c, np.ascontiguousarray(a.T))
    assert_matches(npx.ascontiguousarray(x, dtype=np.float32), np.ascontiguousarray(a, np.float32))
    assert_matches(npx.ascontiguousarray(up(np.float64(3))), np.ascontiguousarray(np.float64(3)))
    assert_matches(npx.asanyarray(a), a)
    with pytest.raises(ValueError):
        npx.array(a, copy=False)


@pytest.mark.parametrize("base", [10.0, 2.0, np.e])
@pytest.mark.parametrize("endpoint", [True, False])
def test_logspace(base, endpoint):
    assert_matches(npx.logspace(0, 3, 7, endpoint=endpoint, base=base),
          np.logspace(0, 3, 7, endpoint=endpoint, base=base))
    assert_matches(npx.logspace(-1, 1, 4, dtype=np.float32), np.logspace(-1, 1, 4, dtype=np.float32),
          rtol=1e-6)
    assert_matches(npx.logspace(1, 2, 0), np.logspace(1, 2, 0))


@pytest.mark.parametrize("start, stop, kwargs", [
    (np.array([0.0, 1.0]), 2, {"num": 3, "axis": 1}),
    (np.array([[0.0], [2.0]]), np.array([1.0, -1.0, 3.0]), {"num": 4, "axis": -1}),
    (0, 1j, {"num": 3}),
    (1, 2, {"num": 3, "base": np.array([2.0, 3.0])}),
    (1, 2, {"num": 3, "base": np.array([2.0, 3.0]), "axis": 1}),
    (np.float32(0), np.float32(2), {"num": 5, "dtype": np.float32}),
])
def test_logspace_array_and_complex_ends_and_bases(start, stop, kwargs):
    # numpy.logspace broadcasts array ends (one sequence per element along axis) and array
    # bases (given a length-1 axis at axis); complex ends give complex powers.
    expected = np.logspace(start, stop, **kwargs)
    got = npx.logspace(*(up(v) if isinstance(v, np.ndarray) else v for v in (start, stop)),
                       **{k: up(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()})
    assert_matches(got, expected, rtol=1e-6 if expected.dtype == np.float32 else 1e-13)


@pytest.mark.parametrize("dimensions", [(2, 3), (4,), (2, 0, 3), ()])
def test_indices_identity_tri(dimensions):
    assert_matches(npx.indices(dimensions), np.indices(dimensions))
    for got, want in zip(npx.indices(dimensions, sparse=True),
                         np.indices(dimensions, sparse=True)):
        assert_matches(got, want)
    assert_matches(npx.indices(dimensions, dtype=np.int32), np.indices(dimensions, dtype=np.int32))
    assert_matches(npx.identity(3), np.identity(3))
    assert_matches(npx.identity(2, dtype=np.int8), np.identity(2, dtype=np.int8))
    for k in (-1, 0, 2):
        assert_matches(npx.tri(3, 4, k), np.tri(3, 4, k))
    assert_matches(npx.tri(2, dtype=np.int32), np.tri(2, dtype=np.int32))


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_argwhere_flatnonzero_extract_compress(dtype, rng):
    a = sample(rng, (3, 4), dtype)
    for host, x in views(a):
        assert_matches(npx.argwhere(x), np.argwhere(host))
        assert_matches(npx.flatnonzero(x), np.flatnonzero(host))
        assert_matches(npx.extract(x > 3 if dtype != "bool" else x, x),
              np.extract(host > 3 if dtype != "bool" else host, host))
    condition = np.array([True, False, True])
    assert_matches(npx.compress(up(condition), up(a), axis=0), np.compress(condition, a, axis=0))
    assert_matches(npx.compress(up(condition[:2]), up(a), axis=1), np.compress(condition[:2], a, axis=1))
    assert_matches(npx.compress(up(condition), up(a)), np.compress(condition, a))
    assert_matches(npx.argwhere(up(np.array(1, dtype))), np.argwhere(np.array(1, dtype)))
    assert_matches(npx.argwhere(up(np.zeros((0, 2), dtype))), np.argwhere(np.zeros((0, 2), dtype)))


def test_compress_errors():
    with pytest.raises(IndexError):
        npx.compress(up(np.ones(5, bool)), up(np.ones(3)))
    with pytest.raises((ValueError, IndexError)):
        npx.compress(up(np.ones(2, bool)), up(np.ones(3)), axis=1)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_put(mode, rng):
    a = rng.standard_normal((3, 4))
    indices = [0, -1, 5, 7] if mode == "raise" else [0, -1, 5, 17, -20]
    values = [1.0, 2.0]
    x, expected = up(a), a.copy()
    assert npx.put(x, up(np.array(indices)), up(np.array(values)), mode=mode) is None
    np.put(expected, indices, values, mode=mode)
    assert_matches(x, expected)
    npx.put(x, 3, 9.0)
    np.put(expected, 3, 9.0)
    assert_matches(x, expected)
    npx.put(x, [1, 2], up(np.array([4.0, 5.0])))
    np.put(expected, [1, 2], [4.0, 5.0])
    assert_matches(x, expected)


def test_put_errors():
    x = up(np.zeros(4))
    with pytest.raises(IndexError):
        npx.put(x, [4], 1.0)
    with pytest.raises(ValueError):
        npx.put(up(np.zeros((2, 2))).T, [0], 1.0)
    with pytest.raises(TypeError):
        npx.put(x, up(np.array([0.5])), 1.0)
    with pytest.raises(TypeError):
        npx.put(np.zeros(3), [0], 1.0)
    npx.put(x, [0], 1.0)
    assert_matches(x, np.array([1.0, 0, 0, 0]))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose(mode, rng):
    choices = [rng.standard_normal((3, 4)) for _ in range(3)]
    index = rng.integers(0, 3, (3, 4)) if mode == "raise" else rng.integers(-4, 6, (3, 4))
    assert_matches(npx.choose(up(index), [up(c) for c in choices], mode=mode),
          np.choose(index, choices, mode=mode))
    row = rng.integers(0, 3, 4) if mode == "raise" else rng.integers(-4, 6, 4)
    assert_matches(npx.choose(up(row), [up(c) for c in choices], mode=mode),
          np.choose(row, choices, mode=mode))
    with pytest.raises(ValueError):
        npx.choose(up(np.array([3])), [up(c) for c in choices])
    with pytest.raises(TypeError):
        npx.choose(up(np.array([0.5])), [up(c) for c in choices])


@pytest.mark.parametrize("kth", [0, 2, -1, [1, 3]])
@pytest.mark.parametrize("axis", [-1, 0, None])
def test_partition(kth, axis, rng):
    a = rng.standard_normal((5, 6))
    got = npx.partition(up(a), kth, axis=axis).to_host()
    want = np.partition(a, kth, axis=axis)
    for k in np.atleast_1d(kth):
        np.testing.assert_array_equal(np.take(got, k, axis=-1 if axis is None else axis),
                                      np.take(want, k, axis=-1 if axis is None else axis))
    order = npx.argpartition(up(a), kth, axis=axis)
    flat = a.ravel() if axis is None else a
    assert_matches(npx.take_along_axis(up(flat), order, axis=-1 if axis is None else axis),
          np.take_along_axis(flat, order.to_host(), axis=-1 if axis is None else axis))
    with pytest.raises(ValueError):
        npx.partition(up(a), 10)
    with pytest.raises(TypeError):
        npx.partition(up(a), 1.5)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_unique_return_flags(dtype, rng):
    a = sample(rng, (4, 5), dtype)
    for flags in [(False, False, False), (True, False, False), (False, True, False),
                  (False, False, True), (True, True, True)]:
        got = npx.unique(up(a), *flags)
        want = np.unique(a, *flags)
        if not any(flags):
            assert_matches(got, want)
            continue
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_matches(g, w)
    assert_matches(npx.unique(up(a).T), np.unique(a.T))


def test_unique_nans_and_errors():
    a = np.array([3.0, np.nan, 1.0, np.nan, 1.0, 2.0, np.nan])
    for equal_nan in (True, False):
        for g, w in zip(npx.unique(up(a), True, True, True, equal_nan=equal_nan),
                        np.unique(a, True, True, True, equal_nan=equal_nan)):
            assert_matches(g, w)
        assert_matches(npx.unique(up(a), equal_nan=equal_nan), np.unique(a, equal_nan=equal_nan))
    assert_matches(npx.unique(up(np.zeros(0))), np.unique(np.zeros(0)))
    with pytest.raises(ValueError):  # AxisError
        npx.unique(up(a), axis=1)


def test_interp(rng):
    xp = np.sort(rng.uniform(-3, 3, 8))
    fp = rng.standard_normal(8)
    x = rng.uniform(-4, 4, 30)
    x[:3] = [xp[0], xp[-1], xp[3]]
    assert_matches(npx.interp(up(x), up(xp), up(fp)), np.interp(x, xp, fp), rtol=1e-12, atol=1e-14)
    assert_matches(npx.interp(up(x), up(xp), up(fp), left=-9.0, right=9.0),
          np.interp(x, xp, fp, left=-9.0, right=9.0), atol=1e-14)
    assert_matches(npx.interp(up(x.reshape(5, 6)), up(xp), up(fp)), np.interp(x.reshape(5, 6), xp, fp),
          atol=1e-14)
    assert_matches(npx.interp(up(x), up(xp[:1]), up(fp[:1])), np.interp(x, xp[:1], fp[:1]))
    assert_matches(npx.interp(up(x), up(xp), up(fp + 1j)), np.interp(x, xp, fp + 1j), atol=1e-14)
    assert_matches(npx.interp(up(x.astype(np.float32)), up(xp), up(fp)),
          np.interp(x.astype(np.float32), xp, fp), atol=1e-14)
    with pytest.raises(ValueError):
        npx.interp(up(x), up(xp), up(fp[:3]))
    with pytest.raises(ValueError):
        npx.interp(up(x), up(xp[:0]), up(fp[:0]))
    with pytest.raises(TypeError):
        npx.interp(up(x), up(xp), up(fp), period=2.0)


@settings(max_examples=25, deadline=None)
@given(values=st.lists(st.integers(-5, 5), min_size=0, max_size=25))
def test_unique_counts_match_numpy(values):
    a = np.array(values, dtype=np.int64)
    for g, w in zip(npx.unique(up(a), return_index=True, return_inverse=True,
                               return_counts=True),
                    np.unique(a, return_index=True, return_inverse=True, return_counts=True)):
        assert_matches(g, w)


@pytest.mark.parametrize("start, stop, kwargs", [
    (0, 1j, {"num": 3}), (1 + 2j, -3.5, {"num": 4, "endpoint": False}),
    (0, 10, {"num": 4, "dtype": int}), (-7, 7, {"num": 5, "dtype": np.int8}),
])
def test_linspace_complex_ends_and_integer_dtypes(start, stop, kwargs):
    # Complex scalar ends and integer dtypes take the composed path (NumPy floors the
    # values towards minus infinity for an integer dtype).
    assert_matches(npx.linspace(start, stop, **kwargs), np.linspace(start, stop, **kwargs))
