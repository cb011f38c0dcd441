"""NPUArray core: asarray from every kind of source, attributes, host reads, protocols."""
import array
import operator
import pickle

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64",
                                "complex64", "complex128")] + [BF16]


def random_array(rng, shape, dtype):
    """Fresh random values of `dtype` (never all zeros)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        values = rng.integers(0, 2, shape).astype(bool)
        if values.size:
            values.flat[0] = True
        return values
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, shape,
                            dtype=dtype) | np.ones(shape, dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trip_every_dtype(rng, dtype):
    host = random_array(rng, (3, 5), dtype)
    x = npx.asarray(host)
    assert x.dtype == dtype
    assert x.shape == (3, 5) and x.ndim == 2 and x.size == 15
    assert x.itemsize == dtype.itemsize and x.nbytes == host.nbytes
    assert x.strides == host.strides
    assert x.device == npx.Device(0)
    back = x.to_host()
    assert back.dtype == dtype
    np.testing.assert_array_equal(back, host)


@pytest.mark.parametrize("shape", [(), (0,), (4, 0, 2), (1,), (2, 1, 3)])
def test_zero_d_and_empty(rng, shape):
    host = random_array(rng, shape, np.float32)
    x = npx.asarray(host)
    assert x.shape == shape
    np.testing.assert_array_equal(x.to_host(), host)
    np.testing.assert_array_equal(np.asarray(x), host)


@pytest.mark.parametrize("obj", [
    [1, 2, 3], [[1.5, 2.5], [3.5, -4.5]], 7, 2.5, True, 1 + 2j, [True, False],
    np.float32(3.25), (1, 2), [[1, 2], [3, 4]],
])
def test_python_objects_follow_numpy(obj):
    expected = np.asarray(obj)
    x = npx.asarray(obj)
    assert x.dtype == expected.dtype and x.shape == expected.shape
    np.testing.assert_array_equal(x.to_host(), expected)


def test_buffer_protocol_and_array_interface(rng):
    values = array.array("d", rng.standard_normal(6))
    np.testing.assert_array_equal(npx.asarray(values).to_host(), np.asarray(values))
    raw = bytearray(rng.integers(1, 255, 8, dtype=np.uint8).tobytes())
    np.testing.assert_array_equal(npx.asarray(memoryview(raw)).to_host(),
                                  np.frombuffer(raw, np.uint8))

    class HasArray:
        def __array__(self, dtype=None, copy=None):
            return np.arange(1, 7, dtype=np.int16).reshape(2, 3)

    x = npx.asarray(HasArray())
    assert x.dtype == np.int16
    np.testing.assert_array_equal(x.to_host(), np.arange(1, 7).reshape(2, 3))


def test_dtype_argument_and_non_contiguous_source(rng):
    host = random_array(rng, (6, 8), np.float64)[::2, ::-3]
    x = npx.asarray(host, dtype=npx.float32)
    assert x.dtype == np.float32
    np.testing.assert_array_equal(x.to_host(), host.astype(np.float32))
    big_endian = host.astype(">f8")
    np.testing.assert_array_equal(npx.asarray(big_endian).to_host(), host)


def test_unsupported_dtypes_raise_type_error():
    for obj in (np.array(["a", "b"]), np.array([object()]), np.zeros(2, np.longdouble)):
        with pytest.raises(TypeError):
            npx.asarray(obj)
    with pytest.raises(TypeError):
        npx.asarray([1, 2], dtype="U4")
    x = npx.asarray([1.0, 2.0])  # the pool and stream still work
    np.testing.assert_array_equal(x.to_host(), [1.0, 2.0])


def test_python_int_overflow():
    with pytest.raises(OverflowError):
        npx.asarray(300, dtype=npx.int8)


def test_copy_semantics_of_asarray(rng):
    host = random_array(rng, (4, 4), np.float32)
    x = npx.asarray(host)
    assert npx.asarray(x) is x
    assert npx.asarray(x, copy=False) is x
    assert npx.asarray(x, dtype=np.float32) is x
    y = npx.asarray(x, copy=True)
    assert y is not x and y._buffer is not x._buffer
    np.testing.assert_array_equal(y.to_host(), host)
    y[0, 0] = 99.0
    assert x.to_host()[0, 0] == host[0, 0]
    z = npx.asarray(x, dtype=npx.float64)
    assert z.dtype == np.float64
    np.testing.assert_array_equal(z.to_host(), host.astype(np.float64))
    with pytest.raises(ValueError):
        npx.asarray(x, dtype=npx.float64, copy=False)
    with pytest.raises(ValueError):
        npx.asarray(host, copy=False)


def test_copy_of_a_view_is_contiguous(rng):
    host = random_array(rng, (5, 6), np.int32)
    view = npx.asarray(host)[1:, ::-2]
    y = npx.asarray(view, copy=True)
    assert y.is_c_contiguous()
    np.testing.assert_array_equal(y.to_host(), host[1:, ::-2])


def test_upload_and_read_on_a_non_default_stream(rng):
    host = random_array(rng, (256, 33), np.float32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(host)
        out = x.to_host(blocking=False)
        stream.synchronize()
    np.testing.assert_array_equal(out, host)
    assert npx.is_pinned(out)
    np.testing.assert_array_equal(x.to_host(), host)  # read back on the default stream


def test_to_host_out(rng):
    host = random_array(rng, (3, 4), np.int64)
    x = npx.asarray(host)
    out = np.empty((3, 4), np.int64)
    assert x.to_host(out=out) is out
    np.testing.assert_array_equal(out, host)
    with pytest.raises(ValueError):
        x.to_host(out=np.empty((4, 3), np.int64))
    with pytest.raises(TypeError):
        x.to_host(out=np.empty((3, 4), np.int32))
    with pytest.raises(ValueError):
        x.to_host(out=np.empty((4, 3), np.int64).T)
    np.testing.assert_array_equal(npx.asnumpy(x), host)


def test_array_protocol(rng):
    host = random_array(rng, (2, 3), np.float64)
    x = npx.asarray(host)
    np.testing.assert_array_equal(np.asarray(x), host)
    assert np.asarray(x, dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError):
        np.asarray(x, copy=False)
    assert x.__array__(copy=True) is not None
    assert np.array(x).shape == (2, 3)


def test_attributes_of_views(rng):
    host = random_array(rng, (4, 6, 5), np.float32)
    x = npx.asarray(host)
    for view, expected in ((x.T, host.T), (x.mT, np.swapaxes(host, -1, -2)),
                           (x[1:, ::2, ::-1], host[1:, ::2, ::-1])):
        assert view.shape == expected.shape
        assert view.strides == expected.strides
        assert view._buffer is x._buffer
        np.testing.assert_array_equal(view.to_host(), expected)
    with pytest.raises(ValueError):
        npx.asarray([1, 2]).mT


def test_repr_and_str(rng):
    host = np.array([[1.5, -2.0], [3.25, 4.0]], np.float32)
    x = npx.asarray(host)
    text = repr(x)
    assert text.startswith("NPUArray([[ 1.5 , -2.  ],")
    assert "dtype=float32" in text and "device='npu:0'" in text
    assert str(x).startswith(str(host)) and "npu:0" in str(x)
    empty = npx.asarray(np.zeros((0, 3), np.int8))
    assert "shape=(0, 3)" in repr(empty) and "int8" in repr(empty)
    assert repr(npx.asarray(2.5)).startswith("NPUArray(2.5")


def test_python_scalar_protocols():
    assert bool(npx.asarray(3)) is True
    assert bool(npx.asarray([0.0])) is False
    assert int(npx.asarray(7.9)) == 7
    assert float(npx.asarray(np.float16(1.5))) == 1.5
    assert complex(npx.asarray(1 + 2j)) == 1 + 2j
    assert operator.index(npx.asarray(5, dtype=npx.uint8)) == 5
    assert [10, 20, 30][npx.asarray(1)] == 20
    assert npx.asarray(np.int32(42)).item() == 42
    assert npx.asarray([[1, 2], [3, 4]]).item(1, 0) == 3
    assert npx.asarray([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert f"{npx.asarray(3.14159):.2f}" == "3.14"


def test_python_scalar_protocol_errors():
    many = npx.asarray([1, 2])
    with pytest.raises(ValueError):
        bool(many)
    with pytest.raises(ValueError):
        bool(npx.asarray(np.zeros(0)))
    with pytest.raises(TypeError):
        float(many)
    with pytest.raises(TypeError):
        operator.index(npx.asarray(1.0))
    with pytest.raises(TypeError):
        operator.index(npx.asarray([1]))
    with pytest.raises(ValueError):
        many.item()
    with pytest.raises(TypeError):
        len(npx.asarray(1))
    with pytest.raises(TypeError):
        iter(npx.asarray(1))


def test_len_and_iter(rng):
    host = random_array(rng, (3, 4), np.int32)
    x = npx.asarray(host)
    assert len(x) == 3
    rows = list(x)
    assert all(isinstance(r, npx.NPUArray) for r in rows)
    np.testing.assert_array_equal(np.stack([r.to_host() for r in rows]), host)
    assert list(npx.asarray(host[0])) == list(host[0])


def test_operators_delegate_to_the_operator_modules(rng):
    a = random_array(rng, (3, 3), np.float32)
    b = random_array(rng, (3, 3), np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    np.testing.assert_allclose((x + y).to_host(), a + b, rtol=1e-6)
    np.testing.assert_allclose((2 - x).to_host(), 2 - a, rtol=1e-6)
    np.testing.assert_allclose((x * 3).to_host(), a * 3, rtol=1e-6)
    np.testing.assert_allclose((x @ y).to_host(), a @ b, rtol=1e-5)
    np.testing.assert_array_equal((x < y).to_host(), a < b)
    np.testing.assert_array_equal((-x).to_host(), -a)
    z = x.copy()
    z += y
    np.testing.assert_allclose(z.to_host(), a + b, rtol=1e-6)
    np.testing.assert_allclose(x.sum(axis=0).to_host(), a.sum(axis=0), rtol=1e-5)
    assert int(x.argmax()) == int(a.argmax())


def test_unhashable_and_namespace():
    x = npx.asarray([1])
    with pytest.raises(TypeError):
        hash(x)
    assert x.__array_namespace__() is npx
    with pytest.raises(TypeError):
        npx.NPUArray()


def test_pickle_round_trip(rng):
    host = random_array(rng, (2, 5), np.int16)
    y = pickle.loads(pickle.dumps(npx.asarray(host)[:, 1:]))
    assert isinstance(y, npx.NPUArray)
    np.testing.assert_array_equal(y.to_host(), host[:, 1:])


def test_to_device_staged_and_peer(rng):
    host = random_array(rng, (7, 9), np.float32)
    x = npx.asarray(host)
    assert x.to_device(0) is x
    y = x[:, ::2].to_device(npx.Device(1))  # no peer access: staged through the host
    assert y.device == npx.Device(1)
    np.testing.assert_array_equal(y.to_host(), host[:, ::2])
    source = npx.asarray(host, device=4)
    npx.Device(5).enable_peer_access(npx.Device(4))  # devices 4-7 share a PCIe switch
    with npx.Device(5):
        stream = npx.Stream()
    z = source.to_device(5, stream=stream)  # a peer copy on a non-default stream
    stream.synchronize()
    assert z.device.id == 5
    np.testing.assert_array_equal(z.to_host(), host)
    w = npx.asarray(z, device=0)
    np.testing.assert_array_equal(w.to_host(), host)
    with pytest.raises(ValueError):
        npx.asarray(z, device=0, copy=False)


def test_mixing_devices_is_a_value_error_naming_both(rng):
    x = npx.asarray(random_array(rng, (3,), np.float32))
    y = npx.asarray(random_array(rng, (3,), np.float32), device=1)
    with pytest.raises(ValueError, match="npu:1.*npu:0|npu:0.*npu:1"):
        x[...] = y
    with pytest.raises(ValueError, match="1.*0|0.*1"):
        x + y
    np.testing.assert_array_equal((x * 1).to_host(), x.to_host())  # next operation works


def test_sequences_of_device_arrays_are_stacked_on_the_device(rng):
    a, b = random_array(rng, (2, 3), np.float32), random_array(rng, (2, 3), np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    with npx.transfer_guard("disallow"):  # no implicit host round trip
        stacked = npx.asarray([x, y])
        nested = npx.asarray([[x[0], y[1]], (y[0], x[1])], dtype=npx.float64)
    np.testing.assert_array_equal(stacked.to_host(), np.stack([a, b]))
    np.testing.assert_array_equal(nested.to_host(),
                                  np.array([[a[0], b[1]], [b[0], a[1]]], np.float64))
    with pytest.raises(ValueError):
        npx.asarray([x, npx.asarray(np.ones((3, 2)))])


@settings(max_examples=50, deadline=None)
@given(shape=st.lists(st.integers(0, 5), max_size=4), dtype=st.sampled_from(DTYPES),
       data=st.data(), on_stream=st.booleans())
def test_random_round_trips(shape, dtype, data, on_stream):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    base = random_array(rng, [n * 2 for n in shape], dtype)
    steps = tuple(slice(None, None, data.draw(st.sampled_from([1, 2, -1, -2]))) for _ in shape)
    host = base[steps]  # a strided source view
    stream = npx.Stream() if on_stream else npx.get_current_stream()
    with stream:
        x = npx.asarray(host)
        back = x.to_host(blocking=not on_stream)
        stream.synchronize()
    assert x.shape == host.shape and x.dtype == dtype
    np.testing.assert_array_equal(back, host)


def test_numpy_functions_on_device_arrays(rng):
    host = random_array(rng, (3, 4), np.float32)
    x = npx.asarray(host)
    total = np.sum(x, axis=0)  # a device implementation: stays on the device
    assert isinstance(total, npx.NPUArray)
    np.testing.assert_allclose(total.to_host(), host.sum(axis=0), rtol=1e-5)
    exp = np.exp(x)
    assert isinstance(exp, npx.NPUArray)
    np.testing.assert_allclose(exp.to_host(), np.exp(host), rtol=1e-5)
    # Host arrays mixed in are uploaded (an implicit transfer under the guard).
    assert bool(np.allclose(x, host))
    np.testing.assert_array_equal(np.concatenate([x, x]).to_host(), np.concatenate([host, host]))
    np.testing.assert_allclose(np.cumsum(x, axis=1).to_host(), np.cumsum(host, axis=1), rtol=1e-5)
    assert np.shape(x) == (3, 4)
    with npx.transfer_guard("disallow"):
        with pytest.raises(npx.ImplicitTransferError, match="sliding_window_view"):
            np.lib.stride_tricks.sliding_window_view(x, 2, axis=1)  # no device version
        assert isinstance(np.max(x), npx.NPUArray)  # device work is not a transfer
    out = npx.empty((4,), dtype=npx.float32)
    assert x.max(axis=0, out=out) is out
    np.testing.assert_array_equal(out.to_host(), host.max(axis=0))
    with pytest.raises(ValueError):
        x.sum(axis=1, out=out)


@pytest.mark.parametrize("shape", [(5000,), (50, 60), (3, 400, 5), (8, 8, 8, 8), (1001,)])
def test_large_arrays_print_like_numpy(rng, shape):
    host = random_array(rng, shape, np.float32)
    x = npx.asarray(host)
    prefix = "NPUArray("
    assert repr(x) == (prefix + np.array2string(host, separator=", ", prefix=prefix)
                       + ", dtype=float32, device='npu:0')")
    assert str(x) == str(host) + " on npu:0"
    view = x[::-1, ...]
    assert str(view) == str(host[::-1, ...]) + " on npu:0"
