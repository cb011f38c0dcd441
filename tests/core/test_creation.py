"""Creation functions against NumPy: shapes, dtypes, fill values, ranges, streams."""
import ml_dtypes
import numpy as np
import pytest

import npuarray as npx

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64",
                                "complex64", "complex128")] + [BF16]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_zeros_ones_full_every_dtype(dtype):
    shape = (3, 4)
    value = np.random.default_rng().integers(2, 100)
    if dtype == np.bool_:
        value = True
    for made, expected in ((npx.zeros(shape, dtype=dtype), np.zeros(shape, dtype)),
                           (npx.ones(shape, dtype=dtype), np.ones(shape, dtype)),
                           (npx.full(shape, value, dtype=dtype), np.full(shape, value, dtype))):
        assert made.dtype == dtype and made.shape == shape
        np.testing.assert_array_equal(made.to_host(), expected)


@pytest.mark.parametrize("shape", [(), 0, 5, (2, 0, 3), [2, 3], (1, 1, 1, 7)])
def test_shapes(shape):
    expected = np.zeros(shape)
    for made in (npx.empty(shape), npx.zeros(shape), npx.ones(shape)):
        assert made.shape == expected.shape and made.dtype == np.float64
    np.testing.assert_array_equal(npx.full(shape, -2.5).to_host(), np.full(shape, -2.5))


@pytest.mark.parametrize("value, expected", [
    (True, np.bool_), (3, np.int64), (2.5, np.float64), (1 + 1j, np.complex128),
    (np.float32(1.5), np.float32), (np.uint8(7), np.uint8),
])
def test_full_infers_the_dtype_from_the_value(value, expected):
    x = npx.full((2, 2), value)
    assert x.dtype == expected
    np.testing.assert_array_equal(x.to_host(), np.full((2, 2), value))


def test_full_from_a_device_scalar():
    source = npx.asarray(np.float32(np.random.default_rng().standard_normal()))
    x = npx.full((3,), source)
    np.testing.assert_array_equal(x.to_host(), np.full(3, source.item(), np.float32))


def test_creation_errors():
    with pytest.raises(ValueError):
        npx.zeros((2, -1))
    with pytest.raises(TypeError):
        npx.zeros(3, dtype=object)
    with pytest.raises(TypeError):
        npx.zeros((2.5,))
    with pytest.raises(OverflowError):
        npx.full(3, 300, dtype=npx.int8)
    with pytest.raises(ValueError):
        npx.full(3, float("nan"), dtype=npx.int32)
    with pytest.raises(TypeError):
        npx.full(3, "x")
    np.testing.assert_array_equal(npx.ones(2).to_host(), [1.0, 1.0])  # still fine


@pytest.mark.parametrize("dtype", [None, "float32", "int16", BF16], ids=str)
def test_like_functions(dtype):
    host = np.random.default_rng().standard_normal((3, 5)).astype(np.float16)
    x = npx.asarray(host)[:, ::2]
    want = host.dtype if dtype is None else np.dtype(dtype)
    for made, fill in ((npx.zeros_like(x, dtype=dtype), 0), (npx.ones_like(x, dtype=dtype), 1),
                       (npx.full_like(x, 7, dtype=dtype), 7)):
        assert made.shape == (3, 3) and made.dtype == want and made.is_c_contiguous()
        np.testing.assert_array_equal(made.to_host(), np.full((3, 3), fill, want))
    assert npx.empty_like(x).shape == (3, 3)
    assert npx.zeros_like(x, device=1).device == npx.Device(1)


@pytest.mark.parametrize("args, kwargs", [
    ((10,), {}), ((2, 11, 3), {}), ((5, -7, -2), {}), ((0.5, 3.0, 0.25), {}),
    ((3,), {"dtype": "float32"}), ((-3.0, 3.0, 0.7), {}), ((1, 1), {}), ((5, 1), {}),
    ((0, 10, 3), {"dtype": "int8"}), ((0.0, 1.0, 0.1), {"dtype": "float64"}),
    ((4,), {"dtype": "float16"}),
    ((0.5, 5, 1.5), {"dtype": "int64"}), ((0, -1, -0.5), {"dtype": "int32"}),
    ((-2.7, 3, 0.9), {"dtype": "int64"}), ((3.0,), {"dtype": "uint8"}),
])
def test_arange_matches_numpy(args, kwargs):
    x = npx.arange(*args, **kwargs)
    expected = np.arange(*args, **kwargs)
    assert x.shape == expected.shape and x.dtype == expected.dtype
    np.testing.assert_allclose(x.to_host().astype(np.float64),
                               expected.astype(np.float64), rtol=1e-12, atol=1e-12)


def test_arange_errors():
    with pytest.raises(ValueError):
        npx.arange(0, 10, 0)
    with pytest.raises(TypeError):
        npx.arange(1j)


@pytest.mark.parametrize("args, kwargs", [
    ((3,), {}), ((3, 5), {}), ((4, 4), {"k": 1}), ((4, 3), {"k": -2}), ((2, 5), {"k": 7}),
    ((3,), {"dtype": "int32"}),
])
def test_eye(args, kwargs):
    np.testing.assert_array_equal(npx.eye(*args, **kwargs).to_host(), np.eye(*args, **kwargs))


@pytest.mark.parametrize("start, stop, num, endpoint", [
    (0.0, 1.0, 5, True), (-2.0, 3.0, 7, False), (1.0, 1.0, 4, True), (5.0, -5.0, 11, True),
    (0.0, 1.0, 1, True), (0.0, 1.0, 0, True),
])
def test_linspace(start, stop, num, endpoint):
    x = npx.linspace(start, stop, num, endpoint=endpoint)
    np.testing.assert_allclose(x.to_host(), np.linspace(start, stop, num, endpoint=endpoint),
                               rtol=1e-12, atol=1e-12)


def test_meshgrid():
    a, b = np.arange(3.0), np.arange(4.0) * 2
    for indexing in ("xy", "ij"):
        got = npx.meshgrid(npx.asarray(a), npx.asarray(b), indexing=indexing)
        for g, e in zip(got, np.meshgrid(a, b, indexing=indexing)):
            np.testing.assert_array_equal(g.to_host(), e)


def test_creation_on_a_non_default_stream():
    stream = npx.Stream()
    with stream:
        x = npx.full((1000,), 3.0, dtype=npx.float32)
        r = npx.arange(1000, dtype=npx.float32)
        host = (x + r).to_host(blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(host, 3.0 + np.arange(1000, dtype=np.float32))


def test_creation_on_another_device():
    x = npx.ones((4,), device=2)
    assert x.device.id == 2
    with npx.Device(3):
        y = npx.arange(4)
    assert y.device.id == 3
    np.testing.assert_array_equal(y.to_host(), np.arange(4))


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("k", [0, 1, -2, 7])
def test_tril_triu(rng, shape, k):
    host = rng.standard_normal(shape).astype(np.float32) + 1
    x = npx.asarray(host)
    np.testing.assert_array_equal(npx.tril(x, k=k).to_host(), np.tril(host, k))
    np.testing.assert_array_equal(npx.triu(x, k=k).to_host(), np.triu(host, k))


def test_tril_needs_a_matrix():
    with pytest.raises(ValueError):
        npx.tril(npx.asarray([1.0, 2.0]))
