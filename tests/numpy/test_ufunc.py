"""npuarray.ufunc: the element-wise functions as NumPy ufunc objects (keywords,
methods, attributes), all-scalar calls, host operands; compared with NumPy."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import assert_matches


@pytest.fixture
def data(rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    return a, npx.asarray(a)


def test_every_numpy_ufunc_name_is_a_ufunc():
    names = [n for n in dir(npx) if isinstance(getattr(np, n, None), np.ufunc)
             and getattr(np, n).signature is None and callable(getattr(npx, n))]
    assert len(names) > 60
    for name in names:
        u, reference = getattr(npx, name), getattr(np, name)
        assert isinstance(u, npx.ufunc), name
        assert (u.nin, u.nout, u.nargs) == (reference.nin, reference.nout, reference.nargs)
        assert u.__name__ == reference.__name__
        assert u.identity == reference.identity
        assert set(u.types) <= set(reference.types) and u.types
    assert npx.power is npx.pow and npx.absolute is npx.abs
    assert repr(npx.add) == "<ufunc 'add'>"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_call_keywords(dtype, rng):
    a = rng.standard_normal((3, 5)).astype(dtype)
    x = npx.asarray(a)
    assert_matches(npx.add(x, 1, dtype=np.float64), np.add(a, 1, dtype=np.float64))
    out = npx.zeros((3, 5), dtype=dtype)
    assert npx.multiply(x, x, out=out) is out
    assert_matches(out, a * a)
    assert npx.multiply(x, 2, out) is out  # out given positionally, as NumPy takes it
    assert_matches(out, a * 2)
    out, expected = npx.full((3, 5), -7.0, dtype=dtype), np.full((3, 5), -7.0, dtype=dtype)
    npx.exp(x, out=out, where=x > 0)
    np.exp(a, out=expected, where=a > 0)
    assert_matches(out, expected, rtol=1e-6)
    with pytest.raises(TypeError, match="same_kind"):
        npx.add(x, 1, out=npx.zeros((3, 5), dtype=npx.int32))
    integers = npx.zeros((3, 5), dtype=npx.int32)
    npx.add(x, 1, out=integers, casting="unsafe")
    assert_matches(integers, np.add(a, 1).astype(np.int32))
    with pytest.raises(TypeError, match="safe"):
        npx.add(x, 1, dtype=np.float16, casting="safe")
    with pytest.raises(TypeError, match="out must be an NPUArray"):
        npx.add(x, 1, out=[1, 2])
    with pytest.raises(TypeError, match="unexpected keyword"):
        npx.add(x, 1, axis=0)
    with pytest.raises(TypeError, match="positional"):
        npx.sin(x, x, x)


def test_order_keyword(data):
    a, x = data
    f = npx.sqrt(npx.abs(x), order="F")
    expected = np.sqrt(np.abs(a), order="F")
    assert_matches(f, expected, rtol=1e-6)
    assert f._strides == (1, 4)  # column-major, in elements
    assert npx.sqrt(npx.abs(x), order="C")._strides == (6, 1)
    assert npx.negative(f, order="A")._strides == (1, 4)
    with pytest.raises(ValueError, match="order"):
        npx.negative(x, order="X")


@pytest.mark.parametrize("call", [
    lambda m: m.divide(2, 3), lambda m: m.add(2, 3), lambda m: m.add(2, 3.5),
    lambda m: m.multiply(np.float32(2), 3.0), lambda m: m.subtract(np.int8(5), 3),
    lambda m: m.isnan(np.float64(1)), lambda m: m.exp(1.0), lambda m: m.sqrt(np.float32(4)),
    lambda m: m.maximum(np.float32(1), np.float64(2)), lambda m: m.less(1, 2.0),
    lambda m: m.power(2, 10), lambda m: m.negative(True is False and 1 or 5)])
def test_all_scalar_calls_give_0d_device_arrays_with_nep50_dtypes(call):
    got, expected = call(npx), call(np)
    assert isinstance(got, npx.NPUArray) and got.shape == ()
    assert got.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got.to_host(), expected, rtol=1e-6)


def test_host_operands_are_uploaded(data):
    a, x = data
    assert_matches(npx.add(x, a), a + a)
    assert_matches(npx.equal(x[0], np.asarray(a[0])), a[0] == a[0])
    assert_matches(npx.hypot(a, x), np.hypot(a, a), rtol=1e-6)
    assert_matches(npx.sin(a.tolist()), np.sin(np.asarray(a.tolist())), rtol=1e-6)
    with npx.transfer_guard("disallow"):
        with pytest.raises(npx.ImplicitTransferError, match="add"):
            npx.add(x, a)
        assert_matches(npx.add(x, np.float32(2)), a + np.float32(2))  # scalars stay operands


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "subtract",
                                  "hypot", "fmax", "logaddexp", "divide"])
def test_reduce_and_accumulate_match_numpy(name, data):
    a, x = data
    u, reference = getattr(npx, name), getattr(np, name)
    for axis in (0, 1, None, (0, 1)):
        try:
            expected = reference.reduce(a, axis=axis)
        except ValueError:  # more than one axis of a non-reorderable ufunc
            with pytest.raises(ValueError, match="reorderable"):
                u.reduce(x, axis=axis)
            continue
        assert_matches(u.reduce(x, axis=axis), expected, rtol=2e-5, atol=1e-6)
    assert_matches(u.reduce(x, axis=1, keepdims=True), reference.reduce(a, axis=1, keepdims=True),
                   rtol=2e-5, atol=1e-6)
    for axis in (0, 1):
        assert_matches(u.accumulate(x, axis=axis), reference.accumulate(a, axis=axis),
                       rtol=2e-5, atol=1e-6)
    assert_matches(u.outer(x[0], x[1]), reference.outer(a[0], a[1]), rtol=1e-6)


def test_reduce_keywords(data):
    a, x = data
    assert_matches(npx.add.reduce(x, axis=0, where=x > 0), np.add.reduce(a, axis=0, where=a > 0),
                   rtol=1e-6)
    assert_matches(npx.maximum.reduce(x, axis=1, initial=0.5, where=x < 1),
                   np.maximum.reduce(a, axis=1, initial=0.5, where=a < 1), rtol=1e-6)
    assert_matches(npx.multiply.reduce(x, axis=0, dtype=np.float64),
                   np.multiply.reduce(a, axis=0, dtype=np.float64), rtol=1e-6)
    out = npx.zeros(6, dtype=npx.float32)
    assert npx.add.reduce(x, axis=0, out=out) is out
    assert_matches(out, a.sum(axis=0), rtol=1e-6)
    with pytest.raises(ValueError, match="identity"):
        npx.maximum.reduce(x, where=x > 0)
    with pytest.raises(ValueError, match="identity"):
        npx.hypot.reduce(x[:0]) if np.hypot.identity is None else npx.maximum.reduce(x[:0])
    assert_matches(npx.add.reduce(x[:0], axis=0), np.add.reduce(a[:0], axis=0))
    with pytest.raises(ValueError, match="binary"):
        npx.sin.reduce(x)
    with pytest.raises(TypeError, match="scalar"):
        npx.add.accumulate(npx.asarray(1.0))


def test_at_and_reduceat(data):
    a, x = data
    y, b = npx.zeros(5), np.zeros(5)
    npx.add.at(y, [0, 2, 0, 4], 1.5)
    np.add.at(b, [0, 2, 0, 4], 1.5)
    assert_matches(y, b)
    npx.maximum.at(y, [1, 3], 2.0)
    np.maximum.at(b, [1, 3], 2.0)
    assert_matches(y, b)
    assert_matches(npx.add.reduceat(x, [0, 2, 1, 5], axis=1),
                   np.add.reduceat(a, [0, 2, 1, 5], axis=1), rtol=1e-6)
    with pytest.raises(IndexError):
        npx.add.reduceat(x, [0, 9], axis=1)


def test_numpy_ufuncs_reach_the_device_ufunc(data):
    a, x = data
    with npx.transfer_guard("disallow"):
        out = npx.zeros((4, 6), dtype=npx.float32)
        assert np.add(x, 1, out=out, dtype=np.float32) is out
        assert_matches(out, a + 1)
        assert_matches(np.maximum.accumulate(x, axis=1), np.maximum.accumulate(a, axis=1))
        assert_matches(np.subtract.outer(x[0], x[1]), np.subtract.outer(a[0], a[1]))


def test_ufunc_without_device_version_runs_on_host_copies(data, caplog):
    a, x = data
    plus_one = np.frompyfunc(lambda v: v + 1, 1, 1)  # a ufunc npuarray cannot have
    got = plus_one(x)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, plus_one(a))
    with npx.transfer_guard("log"), caplog.at_level("WARNING", logger="npuarray"):
        plus_one(x)
    assert any("vectorized" in r.getMessage() and "test_ufunc.py" in r.getMessage()
               for r in caplog.records)  # the caller's file and line
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError,
                                                       match="vectorized"):
        plus_one(x)
    host_out = np.zeros((4, 6), np.float32)
    assert np.add(x, 1, out=host_out) is host_out  # a NumPy out=: NumPy computes into it
    np.testing.assert_allclose(host_out, a + 1)


def test_two_output_ufuncs_take_an_out_tuple(data):
    from npuarray._ufunc import make_ufunc  # a two-output function as the namespace's would be
    divmod_ = make_ufunc("divmod", lambda a, b: (npx.floor_divide(a, b), npx.remainder(a, b)),
                         np.divmod)
    a, x = data
    q, r = divmod_(x, 0.7)
    eq, er = np.divmod(a, np.float32(0.7))
    assert_matches(q, eq, rtol=1e-6)
    assert_matches(r, er, rtol=1e-5, atol=1e-6)
    outs = (npx.zeros((4, 6), dtype=npx.float32), None)
    got = divmod_(x, 0.7, out=outs)
    assert got[0] is outs[0]
    assert_matches(outs[0], eq, rtol=1e-6)
    with pytest.raises(TypeError, match="tuple of 2"):
        divmod_(x, 0.7, out=outs[0])
