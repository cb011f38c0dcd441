"""Runtime objects dropped in any order are freed: loops of streams with work, events,
graphs, asynchronous copies, pinned arrays, caught errors and threads keep the process's
memory, its Python objects and its OS threads (npusim runs a worker thread per stream)
flat after a warm-up."""
import gc
import os
import threading
import weakref

import numpy as np
import pytest

import npuarray as npx
from npuarray.runtime._memory_pool import get_default_memory_pool

MIB = 1 << 20
WARM_UP = 50
BOUNDED = 8  # streams, finalizers or threads a bounded cache may add (see the test)


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _os_threads():
    return len(os.listdir("/proc/self/task"))


def _live(kind):
    return sum(1 for o in gc.get_objects() if type(o) is kind)


@pytest.fixture(scope="module")
def data():
    host = np.random.default_rng().random(256, dtype=np.float32)
    return host, npx.asarray(host)


def _stream_with_work(data):
    host, x = data
    s = npx.Stream()
    with s:
        y = x + 1
    s.synchronize()
    np.testing.assert_allclose(y.to_host(), host + 1, rtol=1e-6)


def _stream_per_size(data, sizes=iter(range(1 << 62))):
    # Each stream leaves a cached block of its own size class in the pool.
    s = npx.Stream()
    with s:
        y = npx.zeros((next(sizes) % 40 + 1) * 256, dtype=np.float32)
    s.synchronize()
    assert not y.to_host().any()


def _event(data):
    host, x = data
    s = npx.get_current_stream()
    e = npx.Event()
    e.record()
    s.wait_event(e)
    e.synchronize()
    assert e.query()


def _graph(data):
    host, x = data
    with npx.Stream() as s:
        g = npx.Graph()
        with g.capture():
            y = x * 2
        g.replay()
        s.synchronize()
    np.testing.assert_allclose(y.to_host(), host * 2, rtol=1e-6)


def _async_copy(data):
    host, x = data
    with npx.Stream() as s:
        d = npx.asarray(host)
        back = d.to_host(blocking=False)
        s.synchronize()
    np.testing.assert_array_equal(back, host)


def _pinned(data):
    host, x = data
    p = npx.empty_pinned(host.shape, np.float32)
    p[...] = host
    with npx.Stream() as s:
        d = npx.asarray(p)
        s.synchronize()
    np.testing.assert_array_equal(d.to_host(), host)


def _caught_errors(data):
    host, x = data
    with pytest.raises(TypeError):
        npx.Stream().wait_event(object())
    with pytest.raises(ValueError):
        x.reshape(7)
    with pytest.raises(npx.AclError):
        npx.asarray(host, device=10 ** 6)


def _thread(data):
    host, x = data
    out = []

    def work():
        with npx.Stream() as s:
            out.append((x + 1).to_host())
            s.synchronize()
    t = threading.Thread(target=work)
    t.start()
    t.join()
    np.testing.assert_allclose(out[0], host + 1, rtol=1e-6)


LOOPS = [(_stream_with_work, 3000), (_stream_per_size, 2000), (_event, 10000),
         (_graph, 1000), (_async_copy, 1000), (_pinned, 1000), (_caught_errors, 3000),
         (_thread, 500)]


def _counts():
    gc.collect()
    return _live(npx.Stream), len(weakref.finalize._registry), _os_threads()


@pytest.mark.parametrize("body, iterations", LOOPS, ids=[f.__name__[1:] for f, _ in LOOPS])
def test_loop_memory_stays_flat(data, body, iterations):
    """Bounded caches (spare events, waits a stream keeps until it passes them, the last
    few streams that used a buffer, malloc's per-thread arenas for the worker threads that
    overlap while the machine is loaded) may fill during the first half; the second half,
    of hundreds of iterations, must add no more than such a cache holds."""
    for _ in range(WARM_UP):
        body(data)
    for _ in range(iterations // 2):
        body(data)
    halfway = _counts()
    get_default_memory_pool().free_all_blocks()
    rss = _rss()
    second_half = iterations - iterations // 2
    for _ in range(second_half):
        body(data)
    end = _counts()
    get_default_memory_pool().free_all_blocks()
    growth = _rss() - rss
    assert growth <= MIB, f"{growth / second_half:.0f} bytes per iteration"
    assert all(e <= h + BOUNDED for h, e in zip(halfway, end)), (halfway, end)
