"""NumPy's creation functions with ``like=`` an NPUArray (NEP 35): NPUArrays on like's
device, equal to what NumPy makes without ``like``."""
import io

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from _numpy_names_helpers import sample

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
          ml_dtypes.bfloat16]


@pytest.fixture(params=[0, 1], ids=["npu0", "npu1"])
def like(request):
    """A like= array on device 0 or 1: results must land on its device."""
    return npx.ones((2, 2), device=request.param)


def assert_like(got, expected, like):
    assert isinstance(got, npx.NPUArray)
    assert got.device == like.device
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got.to_host(), expected)


# -- asarray / array / asanyarray / ascontiguousarray ----------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("function", [np.asarray, np.asanyarray, np.array])
def test_host_data_is_uploaded_to_likes_device(rng, like, dtype, function):
    host = sample(rng, (3, 4), dtype)
    assert_like(function(host, like=like), function(host), like)


@pytest.mark.parametrize("obj", [[1, 2, 3], [[1.5, 2.0]], 7, 2.5, True, 1 + 2j, [], np.float32(3)])
def test_python_objects_get_numpys_dtypes(like, obj):
    assert_like(np.asarray(obj, like=like), np.asarray(obj), like)
    assert_like(np.array(obj, like=like), np.array(obj), like)


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex128, np.bool_])
def test_dtype_argument(like, dtype):
    data = [[0, 1, 2], [3, 4, 5]]
    assert_like(np.asarray(data, dtype=dtype, like=like), np.asarray(data, dtype=dtype), like)
    assert_like(np.array(data, dtype, like=like), np.array(data, dtype), like)


@pytest.mark.parametrize("view", [lambda a: a.T, lambda a: a[::-1, ::2], lambda a: a[1],
                                  lambda a: a[1, 2], lambda a: a[:0]])
def test_npuarray_inputs_stay_on_the_device(rng, like, view):
    host = rng.standard_normal((3, 4))
    x = view(npx.asarray(host, device=like.device))
    with npx.transfer_guard("disallow"):
        same = np.asarray(x, like=like)
        copied = np.array(x, like=like)
        contiguous = np.ascontiguousarray(x, like=like)
    assert same is x  # asarray does not copy what is already on like's device
    assert_like(copied, np.array(view(host)), like)
    assert_like(contiguous, np.ascontiguousarray(view(host)), like)


def test_npuarray_from_another_device_moves_to_likes(rng):
    host = rng.standard_normal(5)
    x = npx.asarray(host, device=0)
    like = npx.ones(1, device=1)
    got = np.asarray(x, like=like)
    assert_like(got, host, like)
    assert x.device == npx.Device(0)


def test_array_copy_and_ndmin(rng, like):
    host = rng.standard_normal(4)
    x = npx.asarray(host, device=like.device)
    copy = np.array(x, like=like)
    copy[0] = 100.0
    assert x.to_host()[0] == host[0]  # a copy by default
    assert np.array(x, copy=None, like=like) is x
    assert_like(np.array(host, ndmin=3, like=like), np.array(host, ndmin=3), like)
    with pytest.raises(ValueError):
        np.array(host, copy=False, like=like)  # host data needs a copy to reach the device


@pytest.mark.parametrize("obj", [5.0, [1, 2], [[1], [2]]])
def test_ascontiguousarray_of_host_data(like, obj):
    assert_like(np.ascontiguousarray(obj, like=like), np.ascontiguousarray(obj), like)
    assert_like(np.ascontiguousarray(obj, dtype=np.float32, like=like),
                np.ascontiguousarray(obj, dtype=np.float32), like)


# -- zeros / ones / empty / full ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", [None, *DTYPES], ids=lambda d: "default" if d is None else np.dtype(d).name)
@pytest.mark.parametrize("function", [np.zeros, np.ones])
def test_zeros_ones(like, function, dtype):
    for shape in [(2, 3), 4, (), (0, 5)]:
        assert_like(function(shape, dtype=dtype, like=like), function(shape, dtype=dtype), like)


@pytest.mark.parametrize("dtype", [None, np.float32, np.int64, np.bool_, np.complex64])
def test_empty_has_numpys_shape_and_dtype(like, dtype):
    for shape in [(2, 3), 5, (), (3, 0)]:
        got, expected = np.empty(shape, dtype=dtype, like=like), np.empty(shape, dtype=dtype)
        assert isinstance(got, npx.NPUArray) and got.device == like.device
        assert got.shape == expected.shape and got.dtype == expected.dtype


@pytest.mark.parametrize("fill", [7, -2.5, True, 1 - 1j, np.float32(1.5), np.int8(-3),
                                  np.uint16(9)])
def test_full_takes_numpys_dtype_from_the_fill_value(like, fill):
    assert_like(np.full((2, 3), fill, like=like), np.full((2, 3), fill), like)
    assert_like(np.full((), fill, like=like), np.full((), fill), like)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex128, np.uint8])
def test_full_with_dtype_and_array_fill_values(rng, like, dtype):
    assert_like(np.full(4, 3, dtype=dtype, like=like), np.full(4, 3, dtype=dtype), like)
    row = rng.integers(0, 9, 3)
    assert_like(np.full((2, 3), row, dtype=dtype, like=like), np.full((2, 3), row, dtype=dtype),
                like)
    device_row = npx.asarray(row, device=like.device)
    assert_like(np.full((4, 3), device_row, like=like), np.full((4, 3), row), like)
    assert_like(np.full((0, 3), row, like=like), np.full((0, 3), row), like)


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 5), max_size=4).map(tuple),
       fill=st.one_of(st.integers(-100, 100), st.floats(-1e6, 1e6), st.booleans()))
def test_creation_shapes_hypothesis(shape, fill):
    like = npx.ones(1)
    assert_like(np.full(shape, fill, like=like), np.full(shape, fill), like)
    assert_like(np.zeros(shape, like=like), np.zeros(shape), like)
    assert np.empty(shape, like=like).shape == shape


# -- arange / eye / identity / tri / fromfunction -------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((5,), {}), ((2, 9), {}), ((1, 10, 3), {}), ((10, 1, -2), {}), ((0.5, 3), {}),
    ((0, 1, 0.25), {}), ((5,), {"dtype": np.float32}), ((3,), {"dtype": np.uint8}),
    ((0,), {}), ((5, 2), {}), ((), {"start": 2, "stop": 6}), ((), {"stop": 4}),
    ((1,), {"stop": 4, "step": 2})])
def test_arange(like, args, kwargs):
    assert_like(np.arange(*args, **kwargs, like=like), np.arange(*args, **kwargs), like)


def test_arange_without_stop_raises(like):
    with pytest.raises(TypeError):
        np.arange(like=like)
    assert_like(np.arange(3, like=like), np.arange(3), like)


@pytest.mark.parametrize("args, kwargs", [
    ((3,), {}), ((3, 5), {}), ((4,), {"k": 1}), ((4, 2), {"k": -1}), ((3,), {"dtype": np.int32}),
    ((0,), {}), ((2,), {"dtype": bool}), ((3, 3, 5), {})])
def test_eye_and_tri(like, args, kwargs):
    assert_like(np.eye(*args, **kwargs, like=like), np.eye(*args, **kwargs), like)
    assert_like(np.tri(*args, **kwargs, like=like), np.tri(*args, **kwargs), like)


@pytest.mark.parametrize("n, dtype", [(3, None), (1, np.float32), (0, None), (4, np.int8)])
def test_identity(like, n, dtype):
    assert_like(np.identity(n, dtype=dtype, like=like), np.identity(n, dtype=dtype), like)


@pytest.mark.parametrize("shape, dtype", [((2, 3), float), ((4,), int), ((2, 1, 3), np.float32),
                                          ((0, 3), float)])
def test_fromfunction_runs_the_function_on_device_grids(like, shape, dtype):
    seen = []

    def function(*grids, scale=1):
        seen.extend(type(g) for g in grids)
        total = grids[0] * scale
        for g in grids[1:]:
            total = total + g * 10
        return total
    assert_like(np.fromfunction(function, shape, dtype=dtype, scale=3, like=like),
                np.fromfunction(function, shape, dtype=dtype, scale=3), like)
    assert set(seen) == {npx.NPUArray, np.ndarray}


# -- require and the host parsers --------------------------------------------------------------

@pytest.mark.parametrize("requirements", [None, "C", "CW", ["C", "W"], ["A", "O", "E"], ["OWNDATA"]])
def test_require(rng, like, requirements):
    host = rng.standard_normal((3, 4))
    assert_like(np.require(host, requirements=requirements, like=like),
                np.require(host, requirements=requirements), like)
    x = npx.asarray(host, device=like.device).T
    got = np.require(x, np.float32, requirements, like=like)
    assert_like(got, np.require(host.T, np.float32, requirements), like)


def test_require_owndata_copies_and_fortran_or_unknown_raise(rng, like):
    x = npx.asarray(rng.standard_normal(3), device=like.device)
    owned = np.require(x, requirements="O", like=like)
    owned[0] = 50.0
    assert x.to_host()[0] != 50.0
    with pytest.raises(ValueError, match="C-ordered"):
        np.require(x, requirements="F", like=like)
    with pytest.raises(ValueError, match="unknown"):
        np.require(x, requirements=["Q"], like=like)
    assert_like(np.require([1, 2], like=like), np.require([1, 2]), like)


def test_host_parsers_upload_what_numpy_reads(like, tmp_path):
    assert_like(np.fromiter(range(5), np.int16, like=like), np.fromiter(range(5), np.int16), like)
    data = np.arange(6, dtype=np.float32).tobytes()
    assert_like(np.frombuffer(data, np.float32, like=like), np.frombuffer(data, np.float32), like)
    assert_like(np.fromstring("1 2 3.5", sep=" ", like=like), np.fromstring("1 2 3.5", sep=" "),
                like)
    text = "1 2 3\n4 5 6\n"
    assert_like(np.loadtxt(io.StringIO(text), like=like), np.loadtxt(io.StringIO(text)), like)
    assert_like(np.genfromtxt(io.StringIO(text), like=like), np.genfromtxt(io.StringIO(text)), like)
    path = tmp_path / "values.bin"
    np.arange(4, dtype=np.int32).tofile(path)
    assert_like(np.fromfile(path, np.int32, like=like), np.fromfile(path, np.int32), like)


# -- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda like: np.zeros((2, 2), order="F", like=like),
    lambda like: np.asarray([[1, 2]], order="F", like=like),
    lambda like: np.eye(2, order="F", like=like),
    lambda like: np.full(2, 1, order="F", like=like)])
def test_fortran_order_raises_value_error(like, call):
    with pytest.raises(ValueError, match="C-ordered"):
        call(like)
    assert_like(np.zeros(2, like=like), np.zeros(2), like)


@pytest.mark.parametrize("call, error", [
    (lambda like: np.zeros((2, -1), like=like), ValueError),
    (lambda like: np.ones(2, dtype="U3", like=like), TypeError),
    (lambda like: np.asarray(["a", "b"], like=like), TypeError),
    (lambda like: np.full(2, 1, dtype=object, like=like), TypeError),
    (lambda like: np.arange(0, 5, 0, like=like), ValueError),  # NumPy: ZeroDivisionError
    (lambda like: np.zeros(2, device="cpu", like=like), ValueError),
    (lambda like: np.asarray([1.0], device="cpu", like=like), ValueError),
    (lambda like: np.ones(2, device=0, like=like), ValueError),
    (lambda like: np.full(2, 1.0, device="cpu", like=like), ValueError),
])
def test_bad_input_raises_and_next_call_works(like, call, error):
    with pytest.raises(error):
        call(like)
    assert_like(np.arange(3, like=like), np.arange(3), like)


def test_results_run_on_likes_current_stream(rng, like):
    host = rng.standard_normal((64, 8))
    with npx.Stream(like.device) as stream:
        got = np.asarray(host, like=like) * 2
        zeros = np.zeros((64, 8), like=like)
        total = got + zeros
        stream.synchronize()
    assert_like(total, host * 2, like)


def test_asfortranarray_like(like):
    a = np.arange(6.0).reshape(2, 3)
    got = np.asfortranarray(a.tolist(), like=like)
    assert_like(got, np.asfortranarray(a), like)
    assert got.flags.f_contiguous and not got.flags.c_contiguous
