"""Concurrency: many Python threads, each with its own stream, copying at the same time."""
import threading

import numpy as np

import npuarray as npx

THREADS = 8
ROUND_TRIPS = 200


def test_threads_with_their_own_streams_round_trip_data():
    errors = []
    barrier = threading.Barrier(THREADS)

    def worker(index):
        try:
            rng = np.random.default_rng(1000 + index)
            device = index % 2  # two devices, four threads each
            with npx.Device(device), npx.Stream() as stream:
                memory = npx.DeviceMemory(16 << 10)
                pinned_out = npx.empty_pinned(16 << 10, np.uint8)
                barrier.wait()
                for trip in range(ROUND_TRIPS):
                    nbytes = int(rng.integers(1, 16 << 10))
                    data = rng.integers(0, 256, nbytes, dtype=np.uint8)
                    memory.copy_from_host(data, blocking=False)           # staged, async
                    out = pinned_out[:nbytes]
                    memory.copy_to_host(out, nbytes=nbytes, blocking=(trip % 2 == 0))
                    if trip % 2:
                        stream.synchronize()
                    if not np.array_equal(out, data):
                        errors.append("thread %d trip %d: wrong bytes" % (index, trip))
                        return
        except BaseException as exc:  # reported by the main thread
            errors.append("thread %d: %r" % (index, exc))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=240)
    assert not any(thread.is_alive() for thread in threads), "deadlock: threads still running"
    assert errors == []


def test_threads_sharing_one_stream_keep_its_order():
    stream = npx.Stream()
    memory = npx.DeviceMemory(1 << 12)
    done = []

    def worker(value):
        data = np.full(1 << 12, value, np.uint8)
        for _ in range(50):
            memory.copy_from_host(data, stream=stream, blocking=True)
        done.append(value)

    threads = [threading.Thread(target=worker, args=(v,)) for v in (1, 2, 3, 4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(done) == [1, 2, 3, 4]
    out = memory.copy_to_host(stream=stream)
    assert set(np.unique(out)) <= {1, 2, 3, 4}
