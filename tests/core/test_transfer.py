"""Host <-> device transfers: streams, blocking, pinned memory, strided views, devices."""
import sys
import threading
import types

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray._core import _dlpack


def test_asnumpy_of_arrays_and_host_objects(rng):
    host = rng.standard_normal((4, 5))
    x = npx.asarray(host)
    np.testing.assert_array_equal(npx.asnumpy(x), host)
    out = np.empty_like(host)
    assert npx.asnumpy(x, out=out) is out
    np.testing.assert_array_equal(out, host)
    np.testing.assert_array_equal(npx.asnumpy([1, 2]), [1, 2])


def test_upload_from_pinned_memory_on_a_stream(rng):
    pinned = npx.empty_pinned((1000, 10), np.float32)
    pinned[...] = rng.standard_normal((1000, 10))
    expected = pinned.copy()
    stream = npx.Stream()
    with stream:
        x = npx.asarray(pinned)
    stream.synchronize()
    np.testing.assert_array_equal(x.to_host(), expected)


def test_pageable_upload_on_a_stream_is_staged(rng):
    """The source may change right after asarray returns: the upload must have
    taken the values as they were (staged), even while the stream is held back."""
    host = rng.standard_normal(100_000).astype(np.float32)
    expected = host.copy()
    stream = npx.Stream()
    released = threading.Event()
    with stream:
        stream.launch_host_func(lambda: released.wait(5))
        x = npx.asarray(host)
        host[:] = -1.0
        released.set()
        result = x.to_host(blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(result, expected)


def test_non_blocking_read_into_out(rng):
    host = rng.integers(-50, 50, (64, 64)).astype(np.int32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(host)
        pinned = npx.empty_pinned((64, 64), np.int32)
        assert x.to_host(out=pinned, blocking=False) is pinned
        pageable = np.empty((64, 64), np.int32)
        x.to_host(out=pageable, blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(pinned, host)
    np.testing.assert_array_equal(pageable, host)


def test_blocking_read_waits_for_the_producer_stream(rng):
    host = rng.standard_normal(50_000).astype(np.float32)
    producer = npx.Stream()
    with producer:
        x = npx.asarray(host)
        producer.launch_host_func(lambda: threading.Event().wait(0.2))
        y = x * 2
    np.testing.assert_array_equal(y.to_host(), host * 2)  # read from the default stream


@pytest.mark.parametrize("blocking", [True, False])
@pytest.mark.parametrize("index", [
    (slice(None, None, -1), slice(None)), (slice(1, None, 2), slice(None, None, -3)),
    (slice(None), 3), (slice(None, None, 7), slice(2, 3)), (Ellipsis, slice(None, None, -1)),
])
def test_strided_views_read_back(rng, index, blocking):
    host = rng.standard_normal((40, 30)).astype(np.float64)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(host)
        result = x[index].to_host(blocking=blocking)
    stream.synchronize()
    np.testing.assert_array_equal(result, host[index])


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=4), data=st.data())
def test_random_views_read_back(shape, data):
    host = np.random.default_rng().standard_normal(shape).astype(np.float32)
    key = tuple(slice(data.draw(st.integers(-n, n)), data.draw(st.integers(-n - 1, n)),
                      data.draw(st.sampled_from([1, 2, -1, -2, 3]))) for n in shape)
    x = npx.asarray(host)
    np.testing.assert_array_equal(x[key].to_host(), host[key])
    np.testing.assert_array_equal(np.asarray(x.T[key[::-1]]), host.T[key[::-1]])


def test_to_device_round_trip_on_streams(rng):
    host = rng.standard_normal((33, 17)).astype(np.float32)
    x = npx.asarray(host)
    with npx.Device(1):
        s1 = npx.Stream()
    y = x.to_device(1, stream=s1)
    s1.synchronize()
    back = y.to_device(0)
    np.testing.assert_array_equal(back.to_host(), host)
    with pytest.raises(ValueError):
        x.to_device(3, stream=s1)  # a stream of another device


def test_transfers_from_many_threads(rng):
    errors = []

    def worker(seed):
        local = np.random.default_rng(seed)
        try:
            with npx.Stream():
                for _ in range(20):
                    host = local.standard_normal(local.integers(1, 5000))
                    back = npx.asarray(host).to_host()
                    if not np.array_equal(back, host):
                        errors.append(seed)
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []


def _read_capsule(capsule):
    """The fields of a "dltensor" capsule, consumed (its deleter runs when this returns)."""
    _, data, device, shape, strides, dtype = _dlpack.consume(capsule)
    return types.SimpleNamespace(data=data, device=device, shape=shape, strides=strides,
                                 dtype=dtype)


def test_dlpack_export_of_device_memory(rng):
    host = rng.standard_normal((6, 8)).astype(np.float32)
    x = npx.asarray(host)
    view = x[1:, ::2]
    assert view.__dlpack_device__() == (12, 0)
    tensor = _read_capsule(view.__dlpack__())
    assert tensor.data == view.data_ptr
    assert tensor.device == (12, 0)
    assert tensor.shape == (5, 4) and tensor.strides == (8, 2)
    assert tensor.dtype == (2, 32, 1)
    reversed_view = x[::-1]
    with pytest.raises(BufferError):
        reversed_view.__dlpack__(copy=False)
    assert _read_capsule(reversed_view.__dlpack__()).strides == (8, 1)
    assert _read_capsule(npx.asarray(np.float64(2.5)).__dlpack__()).shape == ()
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(12, 3))


def test_dlpack_capsule_releases_the_array_once(rng):
    view = npx.asarray(rng.standard_normal((4, 4)))[1:]
    before = sys.getrefcount(view)
    capsule = view.__dlpack__()
    assert sys.getrefcount(view) == before + 1  # the export keeps the view alive
    del capsule  # never consumed: its destructor runs the deleter
    assert sys.getrefcount(view) == before
    capsule = view.__dlpack__()
    release, *_ = _dlpack.consume(capsule)  # renamed "used_dltensor": the consumer's now
    with pytest.raises(ValueError, match="already consumed"):
        _dlpack.consume(capsule)
    del capsule  # a used capsule does not delete
    assert sys.getrefcount(view) == before + 1
    del release  # the consumer done: the deleter runs once
    assert sys.getrefcount(view) == before
    with pytest.raises(ValueError, match="not a"):
        _dlpack.consume(np.arange(3).__array_interface__["data"][0])


def test_dlpack_deleter_runs_when_a_consumer_fails(rng):
    # NumPy takes the capsule of device memory and raises (kDLExtDev is not a CPU
    # device): the export is still released, and the error is NumPy's.
    x = npx.asarray(rng.standard_normal(5))
    before = sys.getrefcount(x)
    with pytest.raises((BufferError, RuntimeError, ValueError)):
        np.from_dlpack(x)
    assert sys.getrefcount(x) == before


def test_dlpack_round_trip_through_our_own_capsule(rng):
    host = rng.standard_normal((3, 4)).astype(np.float32)
    x = npx.asarray(host)

    class Producer:  # our capsule, as another library would hand it over
        def __dlpack__(self, **kwargs):
            return x.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return x.__dlpack_device__()

    before = sys.getrefcount(x)
    y = npx.from_dlpack(Producer())
    assert y._buffer is not x._buffer
    np.testing.assert_array_equal(y.to_host(), host)
    assert sys.getrefcount(x) == before  # the capsule's deleter ran after the copy
    np.testing.assert_array_equal(np.from_dlpack(x, device="cpu"), host)


def test_dlpack_to_numpy_copies_to_the_host(rng):
    host = rng.standard_normal((3, 5))
    x = npx.asarray(host)[:, 1:]
    np.testing.assert_array_equal(np.from_dlpack(x, device="cpu"), host[:, 1:])
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(1, 0), copy=False)
    bf = npx.asarray(np.ones(3, npx.bfloat16))
    assert _read_capsule(bf.__dlpack__()).dtype == (4, 16, 1)


def test_from_dlpack(rng):
    host = rng.standard_normal((4, 3)).astype(np.float32)
    imported = npx.from_dlpack(host)  # a host producer
    np.testing.assert_array_equal(imported.to_host(), host)
    x = npx.asarray(host)
    assert npx.from_dlpack(x) is x

    class DeviceProducer:  # another library exporting NPU memory, as torch_npu does
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    y = npx.from_dlpack(DeviceProducer(x), device=1)
    assert y.device.id == 1 and y._buffer is not x._buffer
    np.testing.assert_array_equal(y.to_host(), host)
    with pytest.raises(BufferError):
        npx.from_dlpack(DeviceProducer(x), copy=False)
    with pytest.raises(BufferError):
        npx.from_dlpack(DeviceProducer(x.T))
    with pytest.raises(TypeError):
        npx.from_dlpack([1, 2])


def test_reading_with_a_stream_of_another_device_is_refused(rng):
    x = npx.asarray(rng.standard_normal(4))
    with pytest.raises(ValueError, match="npu:1.*npu:0"):
        x.to_host(stream=npx.Stream(1))
    np.testing.assert_array_equal(x.to_host(stream=npx.Stream(0)), x.to_host())
