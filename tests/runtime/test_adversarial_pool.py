"""Adversarial: a pool block is reused only after every stream that used it is done.

Regression tests: an array read by two threads, each on its own
stream, then dropped, must not have its block handed out while one read is queued.
"""
import threading
import time

import numpy as np

import npuarray as npx
from npuarray.runtime._transfer import copy_device_to_device

N = 1 << 16


def _busy(stream, big):
    """Queue a few large matrix products on ``stream`` so its next work waits."""
    with stream:
        for _ in range(3):
            big @ big


def test_block_read_on_two_streams_waits_for_both_before_reuse(rng):
    # The interleaving two threads produce: A marks the buffer for its stream, B takes
    # it over for its own, then A's read is queued (behind A's earlier, slow work).
    data = rng.random(N, dtype=np.float32) + 1
    big = npx.asarray(rng.random((256, 256), dtype=np.float32))
    stream_a, stream_b = npx.Stream(), npx.Stream()
    x = npx.asarray(data)
    copy = npx.empty((N,), dtype=npx.float32)
    _busy(stream_a, big)
    x._buffer.prepare(stream_a)
    x._buffer.prepare(stream_b)
    copy._buffer.prepare(stream_a)
    copy_device_to_device(copy._buffer.ptr, 0, x._buffer.ptr, 0, x.nbytes, stream_a)
    stream_b.synchronize()
    del x
    overwrite = npx.full((N,), -1.0, dtype=npx.float32)  # may take x's block
    stream_a.synchronize()
    np.testing.assert_array_equal(copy.to_host(), data)
    np.testing.assert_array_equal(overwrite.to_host(), np.full(N, -1, np.float32))


def test_two_threads_reading_then_dropping_never_see_overwritten_data(rng):
    data = rng.random(N, dtype=np.float32) + 1
    big = npx.asarray(rng.random((256, 256), dtype=np.float32))
    streams = npx.Stream(), npx.Stream()
    wrong = 0
    for _ in range(150):
        x = npx.asarray(data)
        results = {}
        barrier = threading.Barrier(2)

        def reader(index):
            if index == 0:
                _busy(streams[0], big)
            with streams[index]:
                barrier.wait()
                results[index] = x * 1

        threads = [threading.Thread(target=reader, args=(i,)) for i in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        del x
        overwrite = npx.full((N,), -1.0, dtype=npx.float32)
        wrong += sum(not np.array_equal(r.to_host(), data) for r in results.values())
        del overwrite
    assert wrong == 0


def _idle_within(stream, seconds):
    deadline = time.monotonic() + seconds
    while not stream.query():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.0005)
    return True


def test_shared_block_is_joined_into_its_last_stream(rng):
    stream_a, stream_b = npx.Stream(), npx.Stream()
    pool = npx.get_default_memory_pool()
    big = npx.asarray(rng.random((1024, 1024), dtype=np.float32))  # ~0.1 s of products
    x = npx.asarray(rng.random(N, dtype=np.float32))
    x._buffer.prepare(stream_a)
    x._buffer.prepare(stream_b)
    assert x._buffer.stream is stream_b
    _busy(stream_a, big)              # queued on a user stream after it was switched
    used = pool.used_bytes()
    del x
    assert pool.used_bytes() < used   # returned (filed under stream_b), not abandoned
    stream_b.synchronize()
    # stream_b waited for stream_a's work: stream_a is idle at once, not after the products
    # (a short grace for its worker to finish the bookkeeping of its last task).
    assert _idle_within(stream_a, seconds=0.01)
