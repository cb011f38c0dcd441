"""nonzero, count_nonzero, searchsorted and where against NumPy (aclnnNonzero,
aclnnNeScalar + aclnnReduceSum, aclnnSearchSorted, aclnnSWhere)."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx

DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64",
                                "complex64", "complex128")] + [np.dtype(ml_dtypes.bfloat16)]
REAL = [d for d in DTYPES if d.kind != "c"]


def _sparse(rng, shape, dtype):
    """Random values of ``dtype`` with about half of them zero (never all zero)."""
    values = rng.integers(-3, 4, size=shape) * (rng.random(shape) < 0.5)
    if dtype.kind == "c":
        values = values + 1j * rng.integers(-1, 2, size=shape) * (rng.random(shape) < 0.5)
    elif dtype.kind == "u":
        values = np.abs(values)
    return values.astype(dtype)


def _views(host):
    """(name, host view, device view) for contiguous, transposed, strided and reversed
    views of a 2-D ``host``."""
    x = npx.asarray(host)
    return [("contiguous", host, x), ("transposed", host.T, x.T),
            ("strided", host[::2, 1::2], x[::2, 1::2]), ("reversed", host[::-1, ::-1], x[::-1, ::-1])]


# -- nonzero ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_nonzero_every_dtype_and_view(rng, dtype):
    host = _sparse(rng, (6, 5), dtype)
    for name, h, x in _views(host):
        got = npx.nonzero(x)
        want = np.nonzero(h)
        assert len(got) == 2, name
        for g, w in zip(got, want):
            assert g.dtype == np.int64
            np.testing.assert_array_equal(g.to_host(), w, err_msg=name)


def test_nonzero_float_special_values():
    host = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, 0.0], dtype=np.float32)
    (got,) = npx.nonzero(npx.asarray(host))
    np.testing.assert_array_equal(got.to_host(), [2, 3, 4, 5])  # -0.0 is zero, NaN is not


def test_nonzero_complex_either_part():
    host = np.array([0, 1j, 1, 0j, -0.0 + 0j, np.nan * 1j], dtype=np.complex128)
    (got,) = npx.nonzero(npx.asarray(host))
    np.testing.assert_array_equal(got.to_host(), [1, 2, 5])


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4, 2)])
def test_nonzero_empty(shape):
    got = npx.nonzero(npx.zeros(shape))
    assert len(got) == len(shape)
    assert all(g.shape == (0,) and g.dtype == np.int64 for g in got)


def test_nonzero_all_zero_and_all_set(rng):
    zeros = npx.zeros((3, 4), dtype=npx.int32)
    assert [g.shape for g in npx.nonzero(zeros)] == [(0,), (0,)]
    host = rng.integers(1, 9, size=(3, 4))
    for g, w in zip(npx.nonzero(npx.asarray(host)), np.nonzero(host)):
        np.testing.assert_array_equal(g.to_host(), w)


def test_nonzero_zero_dim_raises_and_next_call_works():
    with pytest.raises(ValueError):
        npx.nonzero(npx.asarray(1.0))
    with pytest.raises(TypeError):
        npx.nonzero(np.ones(3))
    (got,) = npx.nonzero(npx.asarray(np.array([0, 2, 0, 3])))
    np.testing.assert_array_equal(got.to_host(), [1, 3])


def test_nonzero_on_a_non_default_stream(rng):
    host = _sparse(rng, (40, 30), np.dtype(np.float32))
    with npx.Stream():
        got = npx.nonzero(npx.asarray(host))
        for g, w in zip(got, np.nonzero(host)):
            np.testing.assert_array_equal(g.to_host(), w)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=5), seed=st.integers(0, 2**32 - 1))
def test_nonzero_random_shapes(shape, seed):
    host = _sparse(np.random.default_rng(seed), tuple(shape), np.dtype(np.int16))
    for g, w in zip(npx.nonzero(npx.asarray(host)), np.nonzero(host)):
        np.testing.assert_array_equal(g.to_host(), w)


# -- count_nonzero ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_count_nonzero(rng, dtype, axis, keepdims):
    host = _sparse(rng, (4, 7), dtype)
    for name, h, x in _views(host)[:3]:
        got = npx.count_nonzero(x, axis=axis, keepdims=keepdims)
        want = np.count_nonzero(h, axis=axis, keepdims=keepdims)
        assert got.dtype == np.int64
        assert got.shape == np.shape(want), name
        np.testing.assert_array_equal(got.to_host(), want, err_msg=name)


def test_count_nonzero_zero_dim_and_empty():
    assert int(npx.count_nonzero(npx.asarray(3.0))) == 1
    assert int(npx.count_nonzero(npx.asarray(0))) == 0
    got = npx.count_nonzero(npx.zeros((0, 3)), axis=0)
    np.testing.assert_array_equal(got.to_host(), [0, 0, 0])
    assert int(npx.count_nonzero(npx.zeros((2, 0)))) == 0


def test_count_nonzero_special_values():
    host = np.array([0.0, -0.0, np.nan, np.inf], dtype=np.float64)
    assert int(npx.count_nonzero(npx.asarray(host))) == 2


def test_count_nonzero_bad_axis_then_next_call_works(rng):
    x = npx.asarray(rng.integers(0, 2, size=(3, 4)))
    with pytest.raises(np.exceptions.AxisError):
        npx.count_nonzero(x, axis=2)
    with pytest.raises(ValueError):
        npx.count_nonzero(x, axis=(0, 0))
    with pytest.raises(TypeError):
        npx.count_nonzero([1, 0])
    assert int(npx.count_nonzero(x)) == np.count_nonzero(x.to_host())


# -- searchsorted -------------------------------------------------------------------------------

SEARCH_DTYPES = [d for d in REAL if d != np.bool_]


def _sorted_values(rng, n, dtype):
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = max(info.min, -50), min(info.max, 50)
        return np.sort(rng.integers(low, high + 1, size=n)).astype(dtype)
    return np.sort(rng.standard_normal(n) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", SEARCH_DTYPES, ids=str)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(rng, dtype, side):
    seq = _sorted_values(rng, 20, dtype)
    values = np.concatenate([seq[::4], _sorted_values(rng, 13, dtype)]).reshape(3, 6)
    got = npx.searchsorted(npx.asarray(seq), npx.asarray(values), side=side)
    assert got.dtype == np.int64 and got.shape == values.shape
    host_seq = seq.astype(np.float32) if dtype == ml_dtypes.bfloat16 else seq
    host_values = values.astype(np.float32) if dtype == ml_dtypes.bfloat16 else values
    np.testing.assert_array_equal(got.to_host(), np.searchsorted(host_seq, host_values, side=side))


def test_searchsorted_bool():
    seq = np.array([False, False, True])
    values = np.array([True, False])
    for side in ("left", "right"):
        got = npx.searchsorted(npx.asarray(seq), npx.asarray(values), side=side)
        np.testing.assert_array_equal(got.to_host(), np.searchsorted(seq, values, side=side))


def test_searchsorted_uint64_extremes():
    seq = np.array([0, 5, 2**63 - 1, 2**63, 2**64 - 1], dtype=np.uint64)
    values = np.array([0, 1, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 1], dtype=np.uint64)
    for side in ("left", "right"):
        got = npx.searchsorted(npx.asarray(seq), npx.asarray(values), side=side)
        np.testing.assert_array_equal(got.to_host(), np.searchsorted(seq, values, side=side))
    assert int(npx.searchsorted(npx.asarray(seq), 2**64 - 1, side="right")) == 5


def test_searchsorted_nan_sorts_last():
    seq = np.array([-np.inf, -1.0, 0.0, 2.0, np.inf, np.nan, np.nan])
    values = np.array([np.nan, np.inf, -np.inf, -0.0, 3.0])
    for side in ("left", "right"):
        got = npx.searchsorted(npx.asarray(seq), npx.asarray(values), side=side)
        np.testing.assert_array_equal(got.to_host(), np.searchsorted(seq, values, side=side))


def test_searchsorted_sorter(rng):
    seq = rng.standard_normal(15)
    sorter = np.argsort(seq)
    values = rng.standard_normal((2, 4))
    for sorter_dtype in (np.int64, np.int32, np.uint8):
        got = npx.searchsorted(npx.asarray(seq), npx.asarray(values),
                               sorter=npx.asarray(sorter.astype(sorter_dtype)))
        np.testing.assert_array_equal(got.to_host(), np.searchsorted(seq, values, sorter=sorter))


def test_searchsorted_scalars_and_promotion(rng):
    seq = np.array([1, 3, 5, 7], dtype=np.int16)
    x1 = npx.asarray(seq)
    for value, side in [(4, "left"), (5, "right"), (5.5, "left"), (-100, "left"), (100, "right")]:
        got = npx.searchsorted(x1, value, side=side)
        assert got.shape == () and got.dtype == np.int64
        assert int(got) == np.searchsorted(seq, value, side=side)
    # int16 sequence, float32 values: compared in float32
    values = np.array([2.5, 3.0, 7.5], dtype=np.float32)
    got = npx.searchsorted(x1, npx.asarray(values))
    np.testing.assert_array_equal(got.to_host(), np.searchsorted(seq, values))


def test_searchsorted_views_and_empty(rng):
    seq = np.sort(rng.standard_normal(16)).astype(np.float32)
    x1 = npx.asarray(seq[::-1].copy())[::-1]  # a sorted reversed view
    values = rng.standard_normal((5, 4)).astype(np.float32)
    got = npx.searchsorted(x1, npx.asarray(values).T)
    np.testing.assert_array_equal(got.to_host(), np.searchsorted(seq, values.T))
    got = npx.searchsorted(npx.asarray(seq[::2].copy()), npx.asarray(values)[::2, ::-1])
    np.testing.assert_array_equal(got.to_host(), np.searchsorted(seq[::2], values[::2, ::-1]))
    assert npx.searchsorted(x1, npx.zeros((0, 3), dtype=npx.float32)).shape == (0, 3)
    empty = npx.zeros((0,), dtype=npx.float32)
    np.testing.assert_array_equal(npx.searchsorted(empty, npx.asarray(values)).to_host(),
                                  np.zeros(values.shape, dtype=np.int64))


def test_searchsorted_errors_then_next_call_works():
    x1 = npx.asarray(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError):
        npx.searchsorted(x1, 2.0, side="middle")
    with pytest.raises(ValueError):
        npx.searchsorted(npx.ones((2, 2)), 2.0)
    with pytest.raises(TypeError):
        npx.searchsorted(npx.ones(3, dtype=npx.complex64), npx.ones(2, dtype=npx.complex64))
    with pytest.raises(TypeError):
        npx.searchsorted(x1, "a")
    with pytest.raises(TypeError):
        npx.searchsorted(x1, 1.0, sorter=npx.ones(3))
    with pytest.raises(ValueError):
        npx.searchsorted(x1, 1.0, sorter=npx.zeros(2, dtype=npx.int64))
    assert int(npx.searchsorted(x1, 2.0)) == 1


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 30), shape=st.lists(st.integers(0, 4), max_size=3),
       seed=st.integers(0, 2**32 - 1), side=st.sampled_from(["left", "right"]))
def test_searchsorted_random(n, shape, seed, side):
    rng = np.random.default_rng(seed)
    seq = np.sort(rng.integers(-10, 10, size=n)).astype(np.int32)
    values = rng.integers(-12, 12, size=shape).astype(np.int32)
    got = npx.searchsorted(npx.asarray(seq), npx.asarray(values), side=side)
    np.testing.assert_array_equal(got.to_host(), np.searchsorted(seq, values, side=side))


# -- where (2025.12: x1 and x2 may be scalars) ------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_where_every_dtype_broadcast(rng, dtype):
    cond = rng.random((3, 1, 4)) < 0.5
    a = _sparse(rng, (2, 4), dtype)
    b = _sparse(rng, (3, 2, 1), dtype)
    got = npx.where(npx.asarray(cond), npx.asarray(a), npx.asarray(b))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.to_host(), np.where(cond, a, b))


@pytest.mark.parametrize("scalar, dtype, want", [
    (2, np.int16, np.int16), (2.5, np.float32, np.float32), (True, np.uint8, np.uint8),
    (1j, np.float32, np.complex64), (2.5, np.int8, np.float64)])
def test_where_scalars(rng, scalar, dtype, want):
    cond = rng.random(6) < 0.5
    a = np.arange(6).astype(dtype)
    got = npx.where(npx.asarray(cond), scalar, npx.asarray(a))
    assert got.dtype == want
    np.testing.assert_array_equal(got.to_host(), np.where(cond, np.asarray(scalar, want),
                                                          a.astype(want)))
    got = npx.where(npx.asarray(cond), npx.asarray(a), scalar)
    np.testing.assert_array_equal(got.to_host(), np.where(cond, a.astype(want),
                                                          np.asarray(scalar, want)))


def test_where_zero_dim_empty_and_views(rng):
    host = rng.standard_normal((4, 5))
    x = npx.asarray(host)
    cond = host > 0
    got = npx.where(npx.asarray(cond).T, x.T, x[::-1].T)
    np.testing.assert_array_equal(got.to_host(), np.where(cond.T, host.T, host[::-1].T))
    assert float(npx.where(npx.asarray(True), npx.asarray(1.0), 2.0)) == 1.0
    assert npx.where(npx.zeros((0, 5), dtype=npx.bool), x[:0], 0.0).shape == (0, 5)
    with pytest.raises(ValueError):
        npx.where(npx.asarray(cond), x, npx.ones((3,)))
    np.testing.assert_array_equal(npx.where(npx.asarray(cond), x, 0.0).to_host(),
                                  np.where(cond, host, 0.0))


def test_nonzero_synchronises_exactly_once(rng, monkeypatch):
    host = _sparse(rng, (30, 20), np.dtype(np.complex64))
    x = npx.asarray(host)
    stream = npx.get_current_stream()
    stream.synchronize()
    calls = []
    original = type(stream).synchronize
    monkeypatch.setattr(type(stream), "synchronize",
                        lambda self: calls.append(self) or original(self))
    got = npx.nonzero(x)
    monkeypatch.undo()
    assert calls == [stream]
    for g, w in zip(got, np.nonzero(host)):
        np.testing.assert_array_equal(g.to_host(), w)
