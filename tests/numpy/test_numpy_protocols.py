"""NumPy's protocols on NPUArrays: __array_function__ runs
NumPy functions on the device or raises TypeError naming them, __array_ufunc__
handles out=, dtype=, where=, casting= and reduce / accumulate / outer / at;
none of it copies to the host (checked under transfer_guard("disallow"))."""
import numpy as np
import pytest

import npuarray as npx


def assert_matches(result, expected, rtol=1e-12, atol=0.0, dtype=True):
    assert isinstance(result, npx.NPUArray), type(result)
    host = result.to_host()
    expected = np.asarray(expected)
    assert host.shape == expected.shape
    if dtype:
        assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    np.testing.assert_allclose(host, expected, rtol=rtol, atol=atol)


@pytest.fixture
def guarded():
    with npx.transfer_guard("disallow"):
        yield


@pytest.fixture
def data(rng):
    a = rng.standard_normal((4, 5))
    return a, npx.asarray(a)


FUNCTION_CASES = [
    (np.concatenate, lambda x: ([x, x],), {"axis": 1}),
    (np.concatenate, lambda x: ([x, x],), {"axis": None}),
    (np.stack, lambda x: ([x, x],), {"axis": 1}),
    (np.transpose, lambda x: (x,), {}),
    (np.reshape, lambda x: (x, (5, 4)), {}),
    (np.ravel, lambda x: (x,), {}),
    (np.sum, lambda x: (x, 0), {"keepdims": True}),
    (np.prod, lambda x: (x,), {"axis": 1}),
    (np.mean, lambda x: (x,), {"axis": (0, 1)}),
    (np.std, lambda x: (x,), {"ddof": 1}),
    (np.var, lambda x: (x, 1), {}),
    (np.max, lambda x: (x, 1), {}),
    (np.amin, lambda x: (x,), {"axis": 0}),
    (np.cumsum, lambda x: (x,), {}),
    (np.cumprod, lambda x: (x, 1), {}),
    (np.sort, lambda x: (x, 0), {}),
    (np.argsort, lambda x: (x,), {}),
    (np.clip, lambda x: (x, -0.5, 0.5), {}),
    (np.where, lambda x: (x > 0, x, 0.0), {}),
    (np.median, lambda x: (x,), {"axis": 1}),
    (np.percentile, lambda x: (x, [25, 75]), {"axis": 0}),
    (np.quantile, lambda x: (x, 0.3), {}),
    (np.nanmean, lambda x: (x,), {"axis": 0}),
    (np.average, lambda x: (x,), {"axis": 1}),
    (np.flip, lambda x: (x, 0), {}),
    (np.roll, lambda x: (x, 2), {"axis": 1}),
    (np.tile, lambda x: (x, (2, 1)), {}),
    (np.repeat, lambda x: (x, 2), {"axis": 0}),
    (np.squeeze, lambda x: (x[:1],), {}),
    (np.expand_dims, lambda x: (x, 0), {}),
    (np.moveaxis, lambda x: (x, 0, 1), {}),
    (np.swapaxes, lambda x: (x, 0, 1), {}),
    (np.tril, lambda x: (x,), {"k": 1}),
    (np.zeros_like, lambda x: (x,), {}),
    (np.full_like, lambda x: (x, 3.0), {}),
    (np.diff, lambda x: (x,), {"axis": 0}),
    (np.dot, lambda x: (x, x.T), {}),
    (np.einsum, lambda x: ("ij,kj->ik", x, x), {}),
    (np.trace, lambda x: (x,), {}),
    (np.linalg.norm, lambda x: (x,), {}),
    (np.linalg.norm, lambda x: (x,), {"axis": 1}),
    (np.isclose, lambda x: (x, x + 1e-9), {}),
    (np.hstack, lambda x: ((x, x),), {}),
    (np.atleast_3d, lambda x: (x,), {}),
    (np.diagonal, lambda x: (x,), {"offset": 1}),
    (np.ptp, lambda x: (x,), {"axis": 0}),
    (np.cov, lambda x: (x,), {}),
    (np.pad, lambda x: (x, 1), {"mode": "edge"}),
]


@pytest.mark.parametrize("function, arguments, kwargs", FUNCTION_CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(FUNCTION_CASES)])
def test_numpy_functions_run_on_the_device(function, arguments, kwargs, data, guarded):
    a, x = data
    result = function(*arguments(x), **kwargs)
    with npx.transfer_guard("allow"):
        expected = function(*arguments(a), **kwargs)
    assert_matches(result, expected, rtol=1e-10, atol=1e-12)


def test_functions_returning_tuples_and_host_values(data, guarded):
    a, x = data
    for got, want in zip(np.split(x, [1, 3], axis=1), np.split(a, [1, 3], axis=1)):
        assert_matches(got, want)
    values, counts = np.unique(npx.round(x), return_counts=True)
    want_values, want_counts = np.unique(np.round(a), return_counts=True)
    assert_matches(values, want_values)
    assert_matches(counts, want_counts)
    assert np.shape(x) == (4, 5) and np.ndim(x) == 2 and np.size(x) == 20
    assert np.result_type(x, np.float32) == np.float64
    assert np.can_cast(x, np.float32, casting="same_kind")
    rows, cols = np.nonzero(x > 0)
    assert_matches(rows, np.nonzero(a > 0)[0])
    assert_matches(cols, np.nonzero(a > 0)[1])


def test_unimplemented_functions_raise_type_error_naming_them(data, guarded):
    _, x = data
    with pytest.raises(TypeError, match="numpy.busday_count"):
        np.busday_count(x[0], x[1])
    with pytest.raises(TypeError, match="numpy.isnat"):
        np.isnat(x)
    with pytest.raises(TypeError):  # host arrays are not uploaded silently
        np.concatenate([x, np.zeros((4, 5))])
    assert_matches(np.sum(x), np.sum(data[0]))  # the next call still works


def test_unsupported_keywords_raise_type_error(data, guarded):
    a, x = data
    assert_matches(np.sum(x, where=x > 0), np.sum(a, where=a > 0), rtol=1e-6)
    with pytest.raises(TypeError):
        np.sort(x, order="f")
    assert_matches(np.reshape(x, (20,), order="F"), np.reshape(a, (20,), order="F"))


UFUNCS = [np.add, np.subtract, np.multiply, np.divide, np.power, np.maximum, np.minimum,
          np.arctan2, np.hypot, np.fmax, np.fmin, np.logaddexp, np.copysign]
UNARY = [np.sin, np.cos, np.exp, np.log1p, np.absolute, np.negative, np.sqrt, np.tanh,
         np.arcsinh, np.floor, np.rint, np.deg2rad, np.cbrt, np.exp2, np.square, np.sign]


@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda u: u.__name__)
def test_binary_ufuncs(ufunc, rng, guarded):
    a, b = rng.uniform(0.5, 2, (3, 4)), rng.uniform(0.5, 2, (4,))
    with npx.transfer_guard("allow"):
        x, y = npx.asarray(a), npx.asarray(b)
    assert_matches(ufunc(x, y), ufunc(a, b), rtol=1e-12)
    assert_matches(ufunc(x, 1.5), ufunc(a, 1.5), rtol=1e-12)


@pytest.mark.parametrize("ufunc", UNARY, ids=lambda u: u.__name__)
def test_unary_ufuncs(ufunc, rng, guarded):
    a = rng.uniform(0.1, 2, (3, 4))
    with npx.transfer_guard("allow"):
        x = npx.asarray(a)
    assert_matches(ufunc(x), ufunc(a), rtol=1e-12)
    assert_matches(ufunc(x[:, ::-2]), ufunc(a[:, ::-2]), rtol=1e-12)


def test_ufunc_dtype_out_where_casting(data, guarded):
    a, x = data
    assert_matches(np.add(x, 1, dtype=np.float32), np.add(a, 1, dtype=np.float32), rtol=1e-6)
    out = npx.zeros((4, 5))
    assert np.multiply(x, 2, out=out) is out
    assert_matches(out, a * 2)
    out = npx.full((4, 5), -1.0)
    np.add(x, 1, out=(out,), where=x > 0)
    expected = np.full((4, 5), -1.0)
    np.add(a, 1, out=expected, where=a > 0)
    assert_matches(out, expected)
    integers = npx.zeros((4, 5), dtype=npx.int64)
    with pytest.raises(TypeError, match="same_kind"):
        np.add(x, 1, out=integers)
    np.add(x, 1, out=integers, casting="unsafe")
    assert_matches(integers, (a + 1).astype(np.int64))
    with pytest.raises(TypeError, match="safe"):
        np.add(x, 1, dtype=np.float32, casting="safe")
    with pytest.raises(TypeError, match="numpy.isnat"):
        np.isnat(npx.asarray(np.arange(3)))


def test_ufunc_reduce(data, guarded):
    a, x = data
    assert_matches(np.add.reduce(x), np.add.reduce(a))
    assert_matches(np.add.reduce(x, axis=None), np.add.reduce(a, axis=None))
    assert_matches(np.multiply.reduce(x, axis=1, keepdims=True), np.multiply.reduce(a, axis=1,
                                                                            keepdims=True))
    assert_matches(np.maximum.reduce(x, axis=1), np.maximum.reduce(a, axis=1))
    assert_matches(np.minimum.reduce(x, axis=0, initial=-0.5), np.minimum.reduce(a, axis=0,
                                                                        initial=-0.5))
    assert_matches(np.add.reduce(x, axis=0, where=x > 0), np.add.reduce(a, axis=0, where=a > 0))
    assert_matches(np.add.reduce(x, axis=1, dtype=np.float32), np.add.reduce(a, axis=1,
                                                                    dtype=np.float32),
          rtol=1e-6)
    b = a > 0
    with npx.transfer_guard("allow"):
        y = npx.asarray(b)
    assert_matches(np.logical_and.reduce(y, axis=1), np.logical_and.reduce(b, axis=1))
    # Without an aclnn reduction the ufunc itself is folded on the device.
    assert_matches(np.subtract.reduce(x), np.subtract.reduce(a), rtol=1e-6)
    assert_matches(np.hypot.reduce(x, axis=1), np.hypot.reduce(a, axis=1), rtol=1e-6)
    assert_matches(np.fmax.reduce(x, axis=None), np.fmax.reduce(a, axis=None))


def test_ufunc_accumulate_outer_at(data, guarded):
    a, x = data
    assert_matches(np.add.accumulate(x), np.add.accumulate(a))
    assert_matches(np.multiply.accumulate(x, axis=1), np.multiply.accumulate(a, axis=1))
    assert_matches(np.multiply.outer(x[0], x[:, 1]), np.multiply.outer(a[0], a[:, 1]))
    assert_matches(np.subtract.outer(x, x[0]), np.subtract.outer(a, a[0]))
    assert_matches(np.maximum.accumulate(x), np.maximum.accumulate(a))
    assert_matches(np.subtract.accumulate(x, axis=1), np.subtract.accumulate(a, axis=1),
                   rtol=1e-6)
    index = np.array([0, 2, 0, 3, 0])
    with npx.transfer_guard("allow"):
        device_index = npx.asarray(index)
    y, b = npx.zeros(5), np.zeros(5)
    np.add.at(y, device_index, 1.5)
    np.add.at(b, index, 1.5)
    assert_matches(y, b)
    np.subtract.at(y, device_index, x[0])
    np.subtract.at(b, index, a[0])
    assert_matches(y, b)
    rows = x.copy()
    expected = a.copy()
    unique_rows = np.array([1, 3])
    with npx.transfer_guard("allow"):
        device_rows = npx.asarray(unique_rows)
    np.multiply.at(rows, device_rows, 2.0)
    np.multiply.at(expected, unique_rows, 2.0)
    assert_matches(rows, expected)
    np.negative.at(rows, device_rows)
    np.negative.at(expected, unique_rows)
    assert_matches(rows, expected)
    with pytest.raises(TypeError, match="add and subtract only"):
        np.multiply.at(rows, device_index, 2.0)
    assert_matches(np.add.reduceat(x, device_index), np.add.reduceat(a, index))
    assert_matches(np.maximum.reduceat(x, [0, 2], axis=1), np.maximum.reduceat(a, [0, 2], axis=1))


def test_linalg_and_fft_functions_dispatch(rng, guarded):
    a = rng.standard_normal((4, 4)).astype(np.float32)
    a = a @ a.T + 4 * np.eye(4, dtype=np.float32)
    with npx.transfer_guard("allow"):
        x = npx.asarray(a)
    assert_matches(np.linalg.cholesky(x), np.linalg.cholesky(a), rtol=1e-4, atol=1e-5)
    assert_matches(np.linalg.solve(x, x[:, :1]), np.linalg.solve(a, a[:, :1]), rtol=1e-4, atol=1e-5)
    assert_matches(np.linalg.det(x), np.linalg.det(a), rtol=1e-4)
    assert_matches(np.linalg.norm(x, ord=1, axis=1), np.linalg.norm(a, ord=1, axis=1), rtol=1e-5)
    assert_matches(np.linalg.norm(x, "fro", axis=(0, 1)), np.linalg.norm(a, "fro", axis=(0, 1)),
          rtol=1e-5)
    assert_matches(np.fft.rfft(x[0]), np.fft.rfft(a[0]).astype(np.complex64), rtol=1e-4, atol=1e-4)
    with npx.transfer_guard("allow"):  # eigh is a documented host fallback
        assert_matches(np.linalg.eigh(x, UPLO="U")[0], np.linalg.eigh(a, UPLO="U")[0],
                       rtol=1e-4, atol=1e-4)
