"""NumPy's creation names mgrid, ogrid, vander, diagflat, fromfunction,
geomspace, asarray_chkfinite, asfortranarray, fromiter (npuarray._creation)
against NumPy."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import REAL_DTYPES, assert_matches, sample, up

KEYS = [np.s_[0:5, 0:3], np.s_[-1:1:5j, 0:3], np.s_[0:1:0.25, 2:8:2], np.s_[0:5],
        np.s_[-1:1:5j], np.s_[0:4:3j, 1:2:2j], np.s_[5:0:-2, 0:2], np.s_[0:3:1j]]


@pytest.mark.parametrize("key", KEYS)
def test_mgrid(key):
    assert_matches(npx.mgrid[key], np.mgrid[key])


@pytest.mark.parametrize("key", KEYS)
def test_ogrid(key):
    result, expected = npx.ogrid[key], np.ogrid[key]
    if isinstance(expected, tuple):
        assert isinstance(result, tuple) and len(result) == len(expected)
        for r, e in zip(result, expected):
            assert_matches(r, e)
    else:
        assert_matches(result, expected)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("N,increasing", [(None, False), (4, True), (1, False), (0, False)])
def test_vander(rng, dtype, N, increasing):
    x = sample(rng, 4, dtype)
    if dtype.startswith(("int", "uint")):
        x = x % 5                                    # powers stay in range
    assert_matches(npx.vander(up(x), N, increasing), np.vander(x, N, increasing), rtol=1e-6)


def test_vander_errors():
    with pytest.raises(ValueError):
        npx.vander(up(np.ones((2, 2))))
    with pytest.raises(ValueError):
        npx.vander(up(np.ones(2)), -1)


@pytest.mark.parametrize("k", [0, 1, -2])
def test_diagflat(rng, k):
    v = rng.standard_normal((2, 2)).astype(np.float32)
    assert_matches(npx.diagflat(up(v), k), np.diagflat(v, k))
    assert_matches(npx.diagflat([1, 2], k), np.diagflat([1, 2], k))


def test_fromfunction():
    assert_matches(npx.fromfunction(lambda i, j: i + j, (3, 4)),
                   np.fromfunction(lambda i, j: i + j, (3, 4)))
    assert_matches(npx.fromfunction(lambda i, j, c: i * j + c, (3, 4), dtype=int, c=2),
                   np.fromfunction(lambda i, j, c: i * j + c, (3, 4), dtype=int, c=2))


@pytest.mark.parametrize("args", [(1, 1000, 4), (-1, -1000, 5), (1, 256, 9, False), (2, 3, 1),
                                  (8, 2, 4), (1.5, 7.25, 0), (np.float32(1), 16.0, 5)])
def test_geomspace(args):
    assert_matches(npx.geomspace(*args), np.geomspace(*args))


def test_geomspace_dtype_and_errors():
    assert_matches(npx.geomspace(1, 1000, 4, dtype=np.float32),
                   np.geomspace(1, 1000, 4, dtype=np.float32))
    assert_matches(npx.geomspace(1, 1000, 4, dtype=int), np.geomspace(1, 1000, 4, dtype=int))
    with pytest.raises(ValueError):
        npx.geomspace(0, 10)
    with pytest.raises(ValueError, match="cannot include zero"):
        npx.geomspace(up(np.array([1.0, 0.0])), 10)
    with pytest.raises(ValueError):
        npx.geomspace(1, 10, -1)


@pytest.mark.parametrize("start, stop, kwargs", [
    (-1, 1, {"num": 5}), (1, -1, {"num": 4}), (1j, 1000j, {"num": 4}),
    (-1 + 0j, 1 + 0j, {"num": 4}), (1 + 1j, 1000 + 1000j, {"num": 5, "endpoint": False}),
    (np.array([1.0, 2.0]), np.array([100.0, -200.0]), {"num": 3, "axis": 1}),
    (2, np.array([[16.0], [-32.0]]), {"num": 3, "axis": -1}),
    (np.array([1.0, 10.0], np.float32), 1000, {"num": 4, "dtype": np.float32}),
])
def test_geomspace_signs_complex_and_array_ends(start, stop, kwargs):
    # NumPy's algorithm: start rotated onto the positive real axis, the log10 of the ends
    # spaced, endpoints exact, rotated back; opposite signs give NaN inside.
    with np.errstate(invalid="ignore"):
        expected = np.geomspace(start, stop, **kwargs)
    got = npx.geomspace(*(up(v) if isinstance(v, np.ndarray) else v for v in (start, stop)),
                        **kwargs)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got.to_host(), expected, rtol=1e-6 if
                               expected.dtype == np.float32 else 1e-13)
    if expected.size:
        np.testing.assert_array_equal(np.take(got.to_host(), 0, kwargs.get("axis", 0)),
                                      np.take(expected, 0, kwargs.get("axis", 0)))


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_asarray_chkfinite(rng, dtype):
    x = sample(rng, 5, dtype)
    assert_matches(npx.asarray_chkfinite(up(x)), np.asarray_chkfinite(x))
    assert_matches(npx.asarray_chkfinite(x.tolist(), dtype=np.float32),
                   np.asarray_chkfinite(x.tolist(), dtype=np.float32))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_asarray_chkfinite_rejects(bad):
    with pytest.raises(ValueError):
        npx.asarray_chkfinite(up(np.array([1.0, bad], np.float32)))


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (5,), ()])
def test_asfortranarray(rng, shape):
    x = rng.standard_normal(shape)
    f = npx.asfortranarray(up(x))
    expected = np.asfortranarray(x)
    assert_matches(f, expected)
    assert f.strides == expected.strides
    assert npx.asfortranarray(f) is f
    assert_matches(npx.asfortranarray(up(x), dtype=np.float32),
                   np.asfortranarray(x, dtype=np.float32))


def test_fromiter():
    assert_matches(npx.fromiter(range(5), np.float32), np.fromiter(range(5), np.float32))
    assert_matches(npx.fromiter((i * i for i in range(6)), int, count=3),
                   np.fromiter((i * i for i in range(6)), int, count=3))
    with pytest.raises(ValueError):
        npx.fromiter(range(2), int, count=5)
