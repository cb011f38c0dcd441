"""numpy.ndarray's methods outside the array API (npuarray/_core/_array.py),
each compared with the same method of the same NumPy array."""
import numpy as np
import pytest

import npuarray as npx


def host_and_device(rng, shape=(3, 4), dtype=np.float64, view=True):
    a = rng.standard_normal(shape).astype(dtype)
    x = npx.asarray(a)
    if view:   # a negative-step view, as most user arrays are not fresh
        a, x = a[::-1], x[::-1]
    return a, x


def assert_same(result, expected):
    if isinstance(expected, tuple):
        assert isinstance(result, tuple) and len(result) == len(expected)
        for r, e in zip(result, expected):
            assert_same(r, e)
        return
    host = result.to_host()
    assert host.shape == np.shape(expected) and host.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(host, expected, rtol=1e-12, atol=1e-12)


CALLS = [
    ("all", (), {}), ("all", (), {"axis": 0, "keepdims": True}),
    ("any", (), {"axis": 1}),
    ("prod", (), {"axis": 0}), ("prod", (), {}),
    ("std", (), {}), ("std", (), {"axis": 1, "ddof": 1}), ("std", (), {"dtype": np.float32}),
    ("var", (), {"axis": 0, "ddof": 1, "keepdims": True}),
    ("cumsum", (), {}), ("cumsum", (), {"axis": 1}), ("cumprod", (), {"axis": 0}),
    ("trace", (), {}), ("trace", (), {"offset": 1}),
    ("argsort", (), {}), ("argsort", (), {"axis": None}), ("argsort", (), {"axis": 0}),
    ("argpartition", (2,), {"axis": None}),
    ("nonzero", (), {}),
    ("take", ([1, 5, 0],), {}), ("take", ([[2, 0]],), {"axis": 1}),
    ("take", ([-1],), {"axis": -2}), ("take", (3,), {}),
    ("repeat", (2,), {}), ("repeat", ([1, 2, 0],), {"axis": 0}),
    ("diagonal", (), {}), ("diagonal", (), {"offset": -1}),
    ("clip", (-0.5, 0.5), {}), ("clip", (None, 0.0), {}),
    ("round", (), {}), ("round", (2,), {}),
    ("conj", (), {}), ("conjugate", (), {}),
    ("swapaxes", (0, 1), {}),
    ("compress", (np.array([True, False, True]),), {"axis": 0}),
]


@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=lambda v: repr(v))
def test_method_matches_numpy(rng, name, args, kwargs):
    a, x = host_and_device(rng)
    if name in ("all", "any", "nonzero"):
        a, x = a > 0, x > 0
    device_args = [npx.asarray(v) if isinstance(v, np.ndarray) else v for v in args]
    assert_same(getattr(x, name)(*device_args, **kwargs), getattr(a, name)(*args, **kwargs))


def test_argpartition_partitions_around_kth(rng):
    a, x = host_and_device(rng, (10,))
    order = x.argpartition(4).to_host()
    values = a[order]
    assert values[4] == np.sort(a)[4]
    assert np.all(values[:4] <= values[4]) and np.all(values[5:] >= values[4])


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_sort_is_in_place_and_returns_none(rng, axis):
    a, x = host_and_device(rng, (4, 5), view=False)
    assert x.sort(axis=axis) is None
    np.testing.assert_array_equal(x.to_host(), np.sort(a, axis=axis))


def test_partition_is_in_place(rng):
    a, x = host_and_device(rng, (9,), view=False)
    assert x.partition(3) is None
    host = x.to_host()
    assert host[3] == np.sort(a)[3]
    assert np.all(host[:3] <= host[3]) and np.all(host[4:] >= host[3])


def test_put_writes_flat_indices(rng):
    a, x = host_and_device(rng, (3, 4), view=False)
    x.put(npx.asarray([0, 7, 11]), npx.asarray([1.0, 2.0, 3.0]))
    a.put([0, 7, 11], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x.to_host(), a)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.complex128, np.int32])
def test_real_imag_conj(rng, dtype):
    a = (rng.standard_normal((2, 3)) * 5).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * (rng.standard_normal((2, 3)) * 5).astype(dtype)
    x = npx.asarray(a)
    np.testing.assert_array_equal(x.real.to_host(), a.real)
    np.testing.assert_array_equal(x.imag.to_host(), a.imag)
    np.testing.assert_array_equal(x.conj().to_host(), a.conj())


def test_searchsorted_with_scalars_and_arrays(rng):
    a = np.sort(rng.standard_normal(20))
    x = npx.asarray(a)
    v = rng.standard_normal(7)
    np.testing.assert_array_equal(x.searchsorted(npx.asarray(v)).to_host(), a.searchsorted(v))
    np.testing.assert_array_equal(x.searchsorted(v[0], side="right").to_host(),
                                  a.searchsorted(v[0], side="right"))


def test_dot_and_out(rng):
    a, x = host_and_device(rng, (3, 4))
    b = rng.standard_normal((4, 2))
    np.testing.assert_allclose(x.dot(npx.asarray(b)).to_host(), a.dot(b))
    out = npx.empty((4,), dtype=npx.float64)
    assert x.std(axis=0, out=out) is out
    np.testing.assert_allclose(out.to_host(), a.std(axis=0))


def test_take_uploads_host_indices_as_dask_passes_them(rng):
    a, x = host_and_device(rng)
    indices = np.array([[2, 0], [1, 1]])
    np.testing.assert_array_equal(x.take(indices, axis=0).to_host(), a.take(indices, axis=0))


def test_bad_input_raises_and_the_next_call_works(rng):
    a, x = host_and_device(rng)
    with pytest.raises(IndexError):
        x.take([12])
    with pytest.raises(ValueError, match="order="):
        x.argsort(order="f")
    with pytest.raises(ValueError, match="mode="):
        x.take([0], mode="wrap")
    with pytest.raises(ValueError, match="read-only"):
        npx.broadcast_to(x[0], (3, 4)).sort()
    with pytest.raises(ValueError, match="shape"):
        x.sum(axis=0, out=npx.empty((3,), dtype=npx.float64))
    np.testing.assert_allclose(x.take([0, 1]).to_host(), a.take([0, 1]))
