"""Adversarial: transfers whose source is changed or freed while the copy is queued.

Regression tests: a peer copy on a busy stream must read the source before a later
write to it; Ctrl-C during a staged copy.
"""
import time

import numpy as np
import pytest

import npuarray as npx

N = 1 << 16


@pytest.fixture(scope="module")
def peer_devices():
    npx.Device(1).enable_peer_access(0)
    return 0, 1


def _busy_stream(device_id, rng):
    """A stream on ``device_id`` still busy when the test's copy is queued: a few matrix
    products, then a host function that holds the stream for a second (the products
    alone may be done by then on a fast machine, and an idle stream takes other paths)."""
    with npx.Device(device_id):
        stream = npx.Stream()
        big = npx.asarray(rng.random((256, 256), dtype=np.float32))
        with stream:
            for _ in range(3):
                big @ big
        stream.launch_host_func(lambda: time.sleep(1.0))
    return stream


@pytest.mark.parametrize("peer", [True, False], ids=["peer", "staged"])
def test_to_device_on_a_busy_stream_reads_the_source_before_a_later_write(rng, peer):
    if peer:
        npx.Device(1).enable_peer_access(0)
        target = 1
    else:
        target = 4  # another simulated PCIe switch: no peer access, staged copy
        assert not npx.Device(target).can_access_peer(0)
    for _ in range(5):
        data = rng.random(N, dtype=np.float32)
        x = npx.asarray(data)
        stream = _busy_stream(target, rng)
        y = x.to_device(target, stream=stream)
        x[...] = -1
        stream.synchronize()
        np.testing.assert_array_equal(y.to_host(), data)
        np.testing.assert_array_equal(x.to_host(), np.full(N, -1, np.float32))


def test_to_device_source_freed_while_the_peer_copy_is_queued(rng, peer_devices):
    data = rng.random(N, dtype=np.float32)
    x = npx.asarray(data)
    stream = _busy_stream(1, rng)
    y = x.to_device(1, stream=stream)
    del x
    overwrite = npx.full((N,), -1.0, dtype=npx.float32)  # device 0: may take x's block
    stream.synchronize()
    np.testing.assert_array_equal(y.to_host(), data)
    np.testing.assert_array_equal(overwrite.to_host(), np.full(N, -1, np.float32))


def test_to_device_waits_for_a_pending_write_of_the_source(rng, peer_devices):
    data = rng.random(N, dtype=np.float32)
    x = npx.asarray(data)
    source_stream = _busy_stream(0, rng)
    with source_stream:
        x[...] = x * 2              # pending behind the busy work on device 0
    y = x.to_device(1, stream=npx.Stream(1))
    np.testing.assert_array_equal(y.to_host(), data * 2)


# -- Ctrl-C during a staged copy (item 4) ------------------------------------------------------

from npuarray.runtime import _transfer as runtime_transfer  # noqa: E402


def _interrupt_after_queueing(monkeypatch, api):
    """Make the first successful call of ``api`` raise KeyboardInterrupt right after the
    runtime queued it, as a Ctrl-C arriving at that moment would."""
    real_check = runtime_transfer.check
    state = {"fired": False}

    def check(ret, name, *args):
        real_check(ret, name, *args)
        if name == api and not state["fired"]:
            state["fired"] = True
            raise KeyboardInterrupt
    monkeypatch.setattr(runtime_transfer, "check", check)
    return state


def _pinned_pool_baseline():
    pool = npx.get_default_pinned_memory_pool()
    return pool, pool.used_bytes()


@pytest.mark.parametrize("chunks", [1, 3])
def test_ctrl_c_during_staged_upload_keeps_the_block_until_the_copy_ran(
        rng, monkeypatch, chunks):
    pool, used = _pinned_pool_baseline()
    nbytes = chunks * runtime_transfer.STAGING_CHUNK - 1000
    data = rng.integers(1, 256, nbytes, dtype=np.uint8)
    stream = _busy_stream(0, rng)
    memory = npx.DeviceMemory(nbytes)
    state = _interrupt_after_queueing(monkeypatch, "aclrtMemcpyAsync")
    with pytest.raises(KeyboardInterrupt):
        memory.copy_from_host(data, stream=stream, blocking=False)
    assert state["fired"]
    monkeypatch.undo()
    assert pool.used_bytes() == used          # the block went back to the pool ...
    stream.synchronize()                      # ... and was not freed under the copy
    head = memory.copy_to_host(stream=stream)[:runtime_transfer.STAGING_CHUNK]
    np.testing.assert_array_equal(head, data[:runtime_transfer.STAGING_CHUNK])
    np.testing.assert_array_equal(npx.asarray(data[:100]).to_host(), data[:100])  # next op


def test_ctrl_c_during_staged_download_keeps_the_block_until_the_copy_ran(rng, monkeypatch):
    pool, used = _pinned_pool_baseline()
    data = rng.integers(1, 256, 100_000, dtype=np.uint8)
    memory = npx.DeviceMemory(data.nbytes)
    memory.copy_from_host(data)
    stream = _busy_stream(0, rng)
    out = np.zeros_like(data)
    _interrupt_after_queueing(monkeypatch, "aclrtMemcpyAsync")
    with pytest.raises(KeyboardInterrupt):
        memory.copy_to_host(out, stream=stream, blocking=False)
    monkeypatch.undo()
    stream.synchronize()                      # no use after free reported by the copy
    assert pool.used_bytes() == used
    np.testing.assert_array_equal(memory.copy_to_host(), data)


def test_ctrl_c_during_staged_device_to_device_copy(rng, monkeypatch):
    pool, used = _pinned_pool_baseline()
    data = rng.random(N, dtype=np.float32)
    x = npx.asarray(data)
    target = 4   # another simulated PCIe switch: staged through pinned memory
    stream = _busy_stream(target, rng)
    _interrupt_after_queueing(monkeypatch, "aclrtMemcpyAsync")
    with pytest.raises(KeyboardInterrupt):
        x.to_device(target, stream=stream)
    monkeypatch.undo()
    stream.synchronize()
    assert pool.used_bytes() == used
    np.testing.assert_array_equal(x.to_device(target).to_host(), data)


# -- DLPack consumers that fail (item 7) -------------------------------------------------------

def test_numpy_from_dlpack_of_a_device_array_raises_its_own_error_and_leaks_nothing(rng):
    import sys
    x = npx.asarray(rng.random((3, 4)))
    references = sys.getrefcount(x)
    for _ in range(3):
        with pytest.raises(RuntimeError, match="Unsupported device"):
            np.from_dlpack(x)      # was: SystemError "returned NULL without setting an exception"
    assert sys.getrefcount(x) == references
    np.testing.assert_array_equal(np.from_dlpack(x, device="cpu"), x.to_host())


def test_unconsumed_capsule_releases_the_array_it_exports(rng):
    import gc
    import weakref
    x = npx.asarray(rng.random(5))
    alive = weakref.ref(x)
    capsule = x.__dlpack__()
    del x
    gc.collect()
    assert alive() is not None     # the export keeps it alive ...
    del capsule
    gc.collect()
    assert alive() is None         # ... until the capsule is dropped


def test_device_capsule_round_trips_through_from_dlpack(rng):
    class Producer:  # a foreign producer of device memory (as torch_npu would be)
        def __init__(self, array):
            self.array = array

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

    for shape in [(), (7,), (3, 4), (2, 3, 4)]:
        host = rng.random(shape)
        y = npx.from_dlpack(Producer(npx.asarray(host)))
        np.testing.assert_array_equal(y.to_host(), host)


# -- DeviceMemory.copy_to_host into a smaller array (item 8) -----------------------------------

def test_copy_to_host_into_a_smaller_array_needs_an_explicit_nbytes(random_bytes):
    data = random_bytes(4096)
    memory = npx.DeviceMemory(data.nbytes)
    memory.copy_from_host(data)
    with pytest.raises(ValueError, match="nbytes=100"):
        memory.copy_to_host(np.empty(100, np.uint8))        # was: a silent prefix
    head = memory.copy_to_host(np.empty(100, np.uint8), nbytes=100)
    np.testing.assert_array_equal(head, data[:100])
    with pytest.raises(ValueError, match="dst has 100 bytes"):
        memory.copy_to_host(np.empty(100, np.uint8), nbytes=200)
    with pytest.raises(npx.InvalidValueError):
        memory.copy_to_host(np.empty(8192, np.uint8))        # larger than the memory: 107000
    with pytest.raises(TypeError):
        memory.copy_to_host([0] * 4096)
    np.testing.assert_array_equal(memory.copy_to_host(), data)
