"""numpy.ndarray's members on NPUArray: flags, base, data, flat, view, tobytes,
tofile, dump, dumps, byteswap, against NumPy."""
import pickle

import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import REAL_DTYPES, assert_matches, sample, up

VIEWS = {
    "whole": lambda a: a,
    "transpose": lambda a: a.T,
    "rows": lambda a: a[1:],
    "step": lambda a: a[:, ::2],
    "column": lambda a: a[:, :1],
    "row": lambda a: a[2],
    "reversed": lambda a: a[::-1],
    "empty": lambda a: a[:0],
}


@pytest.mark.parametrize("view", VIEWS)
def test_flags_contiguity(view):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    d, e = VIEWS[view](up(x)), VIEWS[view](x)
    for name in ("C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "ALIGNED", "WRITEBACKIFCOPY",
                 "FORC", "FNC", "BEHAVED", "CARRAY", "FARRAY"):
        assert d.flags[name] == e.flags[name], name
    assert d.flags.c_contiguous == e.flags.c_contiguous
    assert d.flags.f_contiguous == e.flags.f_contiguous
    assert d.flags["C"] == e.flags["C"] and d.flags["F"] == e.flags["F"]


def test_flags_owndata_writeable_base():
    x = np.arange(12.0).reshape(3, 4)
    d = up(x)
    assert d.flags.owndata and d.base is None
    for view in (d[1:], d.T, d[:, 1]):
        assert not view.flags.owndata
        base = view.base
        assert isinstance(base, npx.NPUArray) and base.ndim == 1
        assert base.data_ptr == d.data_ptr and base.size == d.size
        assert np.shares_memory(base, view)
    b = npx.broadcast_to(d[0], (3, 4))
    assert not b.flags.writeable and not np.broadcast_to(x[0], (3, 4)).flags.writeable
    assert d.copy().flags.owndata
    with pytest.raises(KeyError):
        d.flags["NOPE"]
    assert "C_CONTIGUOUS : True" in repr(d.flags)


def test_data_pointer():
    d = up(np.arange(10, dtype=np.int32))
    assert d.data.ptr == d.data_ptr and int(d.data) == d.data_ptr
    assert d[3:].data.ptr == d.data.ptr + 12
    assert d.data.mem is d[3:].data.mem


@pytest.mark.parametrize("dtype", REAL_DTYPES + ["complex64"])
@pytest.mark.parametrize("to", ["uint8", "int16", "int32", "float32", "int64", "float64",
                                "complex128"])
def test_view_dtype(rng, dtype, to):
    x = sample(rng, (3, 8), dtype)
    try:
        expected = x.view(to)
    except ValueError:
        with pytest.raises(ValueError):
            up(x).view(to)
        return
    result = up(x).view(to)
    host = result.to_host()
    assert host.shape == expected.shape and host.dtype == expected.dtype
    assert host.tobytes() == expected.tobytes()


def test_view_strided_and_errors():
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    d = up(x)
    assert_matches(d[::2].view(np.int64), x[::2].view(np.int64))
    assert_matches(d[:, :4].view(np.int16), x[:, :4].view(np.int16))
    v = d.view()
    assert v is not d and v.shape == d.shape and v.data_ptr == d.data_ptr
    assert type(d.view(npx.NPUArray)) is npx.NPUArray
    with pytest.raises(ValueError):
        d.T.view(np.int64)                 # the last axis is not contiguous
    with pytest.raises(ValueError):
        d[:, :3].view(np.int64)            # 12 bytes are not whole int64s
    with pytest.raises(ValueError):
        up(np.int32(1)).view(np.int64)
    with pytest.raises(TypeError):
        d.view(type=np.ndarray)


def test_view_writes_through():
    d = up(np.zeros(4, np.float32))
    d.view(np.int32)[1] = 1065353216       # the bits of 1.0f
    assert d.to_host()[1] == 1.0


@pytest.mark.parametrize("view", ["whole", "transpose", "step"])
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_tobytes(rng, view, order):
    x = rng.standard_normal((4, 6)).astype(np.float32)
    assert VIEWS[view](up(x)).tobytes(order) == VIEWS[view](x).tobytes(order)


def test_tofile_dump_dumps(tmp_path, rng):
    x = rng.standard_normal((3, 4))
    d = up(x)
    d.tofile(tmp_path / "a.bin")
    assert np.array_equal(np.fromfile(tmp_path / "a.bin"), x.ravel())
    d.tofile(str(tmp_path / "a.txt"), sep=",", format="%.3f")
    x.tofile(str(tmp_path / "b.txt"), sep=",", format="%.3f")
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
    back = pickle.loads(d.dumps())
    assert isinstance(back, npx.NPUArray)
    assert_matches(back, x)
    d.dump(tmp_path / "a.pkl")
    with open(tmp_path / "a.pkl", "rb") as f:
        assert_matches(pickle.load(f), x)
    with open(tmp_path / "b.pkl", "wb") as f:
        d.T.dump(f)
    with open(tmp_path / "b.pkl", "rb") as f:
        assert_matches(pickle.load(f), x.T)


@pytest.mark.parametrize("dtype", REAL_DTYPES + ["float16", "complex64"])
@pytest.mark.parametrize("view", ["whole", "transpose", "row"])
def test_byteswap(rng, dtype, view):
    x = sample(rng, (4, 6), dtype)
    expected = VIEWS[view](x).byteswap()
    result = VIEWS[view](up(x)).byteswap()
    assert result.to_host().tobytes() == expected.tobytes()
    y = x.copy()
    d = up(y)
    assert d.byteswap(inplace=True) is d
    assert d.to_host().tobytes() == y.byteswap(inplace=True).tobytes()


def test_byteswap_zero_d():
    x = np.float32(1.5)
    assert up(x).byteswap().to_host().tobytes() == np.array(x).byteswap().tobytes()


@pytest.mark.parametrize("view", ["whole", "transpose", "step"])
@pytest.mark.parametrize("key", [3, -1, slice(2, 9), slice(None, None, 5), [0, 4, 7],
                                 np.array([1, 1, 2])])
def test_flat_get(rng, view, key):
    x = rng.standard_normal((4, 6))
    d, e = VIEWS[view](up(x)), VIEWS[view](x)
    result, expected = d.flat[key], e.flat[key]
    assert_matches(result, expected)


@pytest.mark.parametrize("view", ["whole", "transpose", "step"])
@pytest.mark.parametrize("key,value", [(3, 7.0), (slice(1, 5), -1.0), ([0, 4, 7], 2.5),
                                       (slice(None, 4), np.arange(4.0))])
def test_flat_set(rng, view, key, value):
    x = rng.standard_normal((4, 6))
    d = up(x)
    VIEWS[view](d).flat[key] = value
    VIEWS[view](x).flat[key] = value
    assert_matches(d, x)


def test_flat_iteration_and_copy():
    x = np.arange(6.0).reshape(2, 3)
    d = up(x)
    assert len(d.flat) == 6 and d.flat.base is d
    items = list(d.T.flat)
    assert all(isinstance(v, npx.NPUArray) and v.shape == () for v in items)
    assert [v.item() for v in items] == list(x.T.flat)
    c = d.T.flat.copy()
    assert_matches(c, x.T.flat.copy())
    c[0] = 99.0
    assert d.to_host()[0, 0] == 0.0
    assert np.array_equal(np.asarray(d.T.flat), np.asarray(x.T.flat))
    with pytest.raises(IndexError):
        d.flat[6]
