"""shares_memory and may_share_memory (npuarray/_memory_ranges.py): the same
answers as NumPy's for the same views of a host array."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import up

VIEW_PAIRS = [
    (lambda a: a[::2], lambda a: a[1::2]), (lambda a: a, lambda a: a.T),
    (lambda a: a[:, :3], lambda a: a[:, 3:]), (lambda a: a[0], lambda a: a[1]),
    (lambda a: a[:2], lambda a: a[1:3]), (lambda a: a[:, ::-1], lambda a: a[:, 0]),
    (lambda a: a[1:, ::2], lambda a: a[:-1, 1::2]), (lambda a: a[::-1, ::-1], lambda a: a[2]),
    (lambda a: a[:0], lambda a: a), (lambda a: a[1, 2:3], lambda a: a[1]),
    (lambda a: a[None, :, 1], lambda a: a[:, 1:2]),
]


@pytest.mark.parametrize("dtype", ["int8", "float32", "float64", "complex128", "bool"])
@pytest.mark.parametrize("index", range(len(VIEW_PAIRS)))
def test_views_match_numpy(dtype, index):
    host = np.arange(24).reshape(4, 6).astype(dtype)
    device = up(host)
    f, g = VIEW_PAIRS[index]
    for name in ("shares_memory", "may_share_memory"):
        expected = getattr(np, name)(f(host), g(host))
        assert getattr(npx, name)(f(device), g(device)) == expected, name
        assert getattr(npx, name)(g(device), f(device)) == expected, name


def test_zero_d_views():
    # An integer index gives a 0-d device view (NumPy gives a scalar copy).
    x = up(np.arange(24.0).reshape(4, 6))
    assert npx.shares_memory(x[1, 2], x[1]) and not npx.shares_memory(x[1, 2], x[2])


def test_broadcast_views(rng):
    x = up(rng.standard_normal(5))
    wide = npx.broadcast_to(x, (3, 5))
    assert npx.shares_memory(wide, x) and npx.may_share_memory(wide, x[2])
    assert not npx.shares_memory(wide, up(rng.standard_normal(5)))


def test_separate_arrays_host_data_and_scalars(rng):
    a = rng.standard_normal(6)
    x = up(a)
    assert not npx.shares_memory(x, up(a)) and not npx.may_share_memory(x, up(a))
    assert not npx.shares_memory(x, a) and not npx.may_share_memory(a, x)
    assert not npx.may_share_memory(x, 3.0)
    assert npx.shares_memory(a, a[::2]) == np.shares_memory(a, a[::2])
    assert npx.may_share_memory(a[::2], a[1::2]) == np.may_share_memory(a[::2], a[1::2])


def test_max_work_as_numpy():
    host = np.arange(10)
    x = up(host)
    for max_work in (None, -1, 1, 100, 0):
        for name in ("shares_memory", "may_share_memory"):
            try:
                expected = getattr(np, name)(host[::2], host[1::2], max_work=max_work)
            except np.exceptions.TooHardError:
                with pytest.raises(np.exceptions.TooHardError):
                    getattr(npx, name)(x[::2], x[1::2], max_work=max_work)
                continue
            assert getattr(npx, name)(x[::2], x[1::2], max_work=max_work) == expected
    for bad, error in ((-5, "Invalid"), (2.5, "integer"), ("a", "integer")):
        with pytest.raises(ValueError):
            np.shares_memory(host, host, max_work=bad)
        with pytest.raises(ValueError, match=error):
            npx.shares_memory(x, x, max_work=bad)


def test_reads_no_data():
    x = up(np.arange(12.0).reshape(3, 4))
    with npx.transfer_guard("disallow"):
        assert npx.shares_memory(x[1], x[:, 1])
        assert np.may_share_memory(x, x[2])  # NumPy's function dispatches here
