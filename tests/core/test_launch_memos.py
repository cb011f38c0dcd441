"""What the C fast path keeps between launches stays right when what it was kept from changes:
the current stream and device (``with`` blocks, threads), the default pool's free lists (freed
to the device, rebuilt), the results' descriptors and their addresses (blocks reused for
other shapes and dtypes), and tiny launches that keep the GIL on npusim while other threads
launch and a Python host function waits on the stream. Every result is compared with NumPy,
and the fast path is checked to have run the launches (``_ops.fastpath_counts``)."""
import threading

import numpy as np

import npuarray as npx
from npuarray._core import _ops


def taken(kind):
    return _ops.fastpath_counts()[kind]


def sum_of_squares(c):
    return npx.sum(c * c, axis=1)


def test_results_follow_the_current_stream_across_with_blocks(rng):
    a = rng.standard_normal((10, 64)).astype(np.float32)
    c = npx.asarray(a)
    want = (a * a).sum(axis=1)
    outer, inner = npx.Stream(), npx.Stream()
    default = npx.get_current_stream()
    before = (taken("arrays"), taken("reduction"))
    for _ in range(20):
        for stream, nested in ((outer, None), (None, None), (outer, inner), (inner, None)):
            with stream if stream is not None else npx.Device(0):
                with nested if nested is not None else npx.Device(0):
                    expected = nested or stream or default
                    x = npx.asarray(a)  # on the current stream: the fast path's case
                    for _ in range(3):
                        y = sum_of_squares(x)
                        assert y._buffer.stream is expected
                        np.testing.assert_allclose(y.to_host(), want, rtol=1e-5)
    np.testing.assert_allclose(sum_of_squares(c).to_host(), want, rtol=1e-5)
    # (a result whose block the stream's free list lacks is made in Python; the rest in C)
    assert taken("arrays") >= before[0] + 80 and taken("reduction") >= before[1] + 80


def test_results_follow_the_current_device(rng):
    a = rng.standard_normal((10, 64)).astype(np.float32)
    want = (a * a).sum(axis=1)
    for _ in range(10):
        for device in (0, 1, 0):
            with npx.Device(device):
                y = sum_of_squares(npx.asarray(a))
                assert y._buffer.device.id == device
                np.testing.assert_allclose(y.to_host(), want, rtol=1e-5)


def test_free_lists_freed_and_rebuilt(rng):
    a = rng.standard_normal((10, 64)).astype(np.float32)
    c = npx.asarray(a)
    want = (a * a).sum(axis=1)
    pool = npx.get_default_memory_pool()
    stream = npx.Stream()
    with stream:
        c = npx.asarray(a)
        for round_ in range(5):
            results = [sum_of_squares(c) for _ in range(50)]
            stream.synchronize()
            for y in results:
                np.testing.assert_allclose(y.to_host(), want, rtol=1e-5)
            del results, y
            pool.free_all_blocks()  # every cached block back to the device
        before = taken("reduction")
        for _ in range(10):
            np.testing.assert_allclose(sum_of_squares(c).to_host(), want, rtol=1e-5)
        assert taken("reduction") == before + 9  # the first one's block is a pool miss


def test_reused_blocks_get_the_descriptor_of_their_shape_and_dtype(rng):
    """A block freed by a (10, 64) float32 result and taken by results of other shapes and
    dtypes of the same size (the same pool block): each result's aclTensor describes it."""
    a = rng.standard_normal((10, 64)).astype(np.float32)
    x = npx.asarray(a)
    for _ in range(20):
        np.testing.assert_allclose((x * x).to_host(), a * a, rtol=1e-6)
        b = a.reshape(64, 10)
        np.testing.assert_allclose((npx.asarray(b) + 1.0).to_host(), b + 1.0, rtol=1e-6)
        d = a[:5].astype(np.float64).reshape(20, 16)
        np.testing.assert_allclose((npx.asarray(d) * 2.0).to_host(), d * 2.0, rtol=1e-12)
        e = np.concatenate([a, -a, a, -a]) > 0
        np.testing.assert_array_equal((npx.asarray(e) == npx.asarray(e)).to_host(), e == e)


def test_threads_launch_tiny_operations_at_once(rng):
    a = rng.standard_normal((10, 64)).astype(np.float32)
    want = (a * a).sum(axis=1)
    results, errors = {}, []

    def work(index):
        try:
            with npx.Stream() if index else npx.Device(0):
                c = npx.asarray(a + index)
                ys = [sum_of_squares(c) for _ in range(500)]
                results[index] = [y.to_host() for y in ys[::50]]
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for index, values in results.items():
        for value in values:
            np.testing.assert_allclose(value, ((a + index) ** 2).sum(axis=1), rtol=1e-5)
    assert len(results) == 3
    np.testing.assert_allclose(sum_of_squares(npx.asarray(a)).to_host(), want, rtol=1e-5)


def test_tiny_launches_behind_a_waiting_host_function(rng):
    """A Python host function queued on the stream needs the GIL on the stream's thread; tiny
    launches after it (which keep the GIL on npusim) queue behind it instead of waiting for
    it, and run after it in stream order."""
    a = rng.standard_normal((10, 64)).astype(np.float32)
    stream = npx.Stream()
    release, seen = threading.Event(), []
    with stream:
        c = npx.asarray(a)
        stream.synchronize()
        stream.launch_host_func(lambda: seen.append(release.wait(10)))
        ys = [sum_of_squares(c) for _ in range(50)]
        release.set()
        stream.synchronize()
    assert seen == [True]
    for y in ys:
        np.testing.assert_allclose(y.to_host(), (a * a).sum(axis=1), rtol=1e-5)
