"""The paths a replay and a synchronisation take in npusim, checked against NumPy.

A short one-stream replay with no host code runs on the launching thread when its stream is
idle after a synchronisation; a longer one, or one with host functions or several streams,
goes to the stream's worker (branches on helper threads). A synchronising thread runs the
queued tasks the worker has not started (never the user's host functions), polls briefly
before it sleeps, and leaves a wait with a timeout to the worker. Whichever thread runs a
task: stream order, events across streams, errors reported at synchronisation, input
updates between replays and graph destruction behave as before.
"""
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray import _acl
from npuarray._core import _ops

pytestmark = pytest.mark.skipif(not _acl.available("aclmdlRICaptureBegin"),
                                reason="the loaded provider has no graph capture")

ACL_ERROR_RT_INVALID_HANDLE = 107017
ACL_ERROR_RT_STREAM_SYNC_TIMEOUT = 507046
LARGE = 1 << 22    # elements: a replay of a few operations on these takes milliseconds


def capture(stream, fn, *args):
    """(graph, fn(*args)) with fn's work captured on `stream`."""
    graph = npx.Graph()
    with stream, graph.capture():
        result = fn(*args)
    return graph, result


def test_many_replays_with_inputs_updated_between(rng):
    """Hundreds of replays of a short graph, synchronised after each (the launching thread
    runs them) and queued in bursts (the worker runs them), reading each new input."""
    stream = npx.Stream()
    with stream:
        x = npx.asarray(rng.standard_normal(256).astype(np.float32))
        total = npx.zeros(256, dtype=npx.float32)

    def work():
        total[...] = total + x
        return x * 2.0 + 1.0

    graph, y = capture(stream, work)
    expected_total = np.zeros(256, np.float32)
    for i in range(300):
        data = rng.standard_normal(256).astype(np.float32)
        with stream:
            x[...] = data
        graph.replay(stream)
        expected_total += data
        if i % 3:
            np.testing.assert_array_equal(y.to_host(), data * np.float32(2) + np.float32(1))
    for _ in range(20):                               # a burst: queued behind one another
        graph.replay(stream)
        expected_total += data
    np.testing.assert_allclose(total.to_host(), expected_total, rtol=1e-5, atol=1e-4)
    graph.destroy()


def test_short_replay_is_done_when_replay_returns_on_an_idle_stream(rng):
    a = rng.standard_normal(16).astype(np.float32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(a)
    graph, y = capture(stream, lambda: x * 3.0)
    graph.replay(stream)        # the first replay measures how long the graph takes
    stream.synchronize()
    finished_at_return = False
    for _ in range(50):          # on a busy machine one replay may be preempted: retry
        stream.synchronize()
        graph.replay(stream)
        if stream.query():
            finished_at_return = True
            break
    assert finished_at_return
    np.testing.assert_array_equal(y.to_host(), a * np.float32(3))
    graph.destroy()


def test_long_replay_and_short_operations_after_it_keep_stream_order(rng):
    a = rng.standard_normal(LARGE).astype(np.float32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(a)
    graph, y = capture(stream, lambda: ((x * 2.0 + 1.0) * 0.5 - 0.25) * 4.0)
    expected = ((a * np.float32(2) + np.float32(1)) * np.float32(0.5) - np.float32(0.25)) \
        * np.float32(4)
    for _ in range(3):
        graph.replay(stream)
        with stream:
            head = y[:8] + 1.0           # short: must wait for the queued replay
            tail = y[::-1][:8] - 1.0     # negative-step view
        np.testing.assert_allclose(head.to_host(), expected[:8] + 1, rtol=1e-6)
        np.testing.assert_allclose(tail.to_host(), expected[::-1][:8] - 1, rtol=1e-6)
    stream.synchronize()
    np.testing.assert_allclose(y.to_host(), expected, rtol=1e-6)
    graph.destroy()


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 6), min_size=0, max_size=3).map(tuple),
       transpose=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_replays_of_any_shape_and_layout_equal_numpy(shape, transpose, seed):
    """0-d, empty and non-contiguous (transposed, reversed) inputs of a replayed graph."""
    rng = np.random.default_rng(seed)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(rng.standard_normal(shape).astype(np.float32))

    def work():
        v = x.T if transpose else x
        if v.ndim:
            v = v[..., ::-1]
        return v * v - v

    graph, y = capture(stream, work)
    for _ in range(3):
        data = rng.standard_normal(shape).astype(np.float32)
        with stream:
            x[...] = data
        graph.replay(stream)
        v = data.T if transpose else data
        v = v[..., ::-1] if v.ndim else v
        np.testing.assert_allclose(y.to_host(), v * v - v, rtol=1e-6)
    graph.destroy()


def test_host_functions_run_on_runtime_threads_never_the_callers(rng):
    """A graph holding a host function is never replayed on the launching thread, and a
    synchronising thread leaves queued host functions to the worker."""
    main = threading.get_ident()
    ran_on = []
    stream = npx.Stream()
    with stream:
        x = npx.asarray(rng.standard_normal(8).astype(np.float32))

    def work():
        y = x + 1.0
        stream.launch_host_func(lambda: ran_on.append(threading.get_ident()))
        return y

    graph, y = capture(stream, work)
    for _ in range(5):
        stream.synchronize()
        graph.replay(stream)
        stream.synchronize()
    for _ in range(5):
        stream.launch_host_func(lambda: ran_on.append(threading.get_ident()))
        stream.synchronize()
    assert len(ran_on) == 10 and main not in ran_on
    np.testing.assert_array_equal(y.to_host(), x.to_host() + np.float32(1))
    graph.destroy()


def test_replay_while_other_streams_run(rng):
    """Short and long replays on one stream while another thread keeps a second stream busy
    with large eager work and a third stream replays a long graph."""
    a = rng.standard_normal(LARGE).astype(np.float32)
    stop, errors = threading.Event(), []

    def background():
        try:
            with npx.Stream():
                big = npx.asarray(a)
                while not stop.is_set():
                    np.testing.assert_allclose(float(npx.sum(big * 0.0 + 1.0)), LARGE)
        except Exception as error:  # reported by the test thread
            errors.append(error)

    # Captured first: a capture in GLOBAL mode (the default) refuses the background
    # thread's synchronous copies (107030), as CUDA's does.
    short_stream, long_stream = npx.Stream(), npx.Stream()
    small = rng.standard_normal(64).astype(np.float32)
    with short_stream:
        xs = npx.asarray(small)
    with long_stream:
        xl = npx.asarray(a)
    short_graph, ys = capture(short_stream, lambda: xs * xs + 1.0)
    long_graph, yl = capture(long_stream, lambda: xl * 0.5 + 2.0)
    thread = threading.Thread(target=background)
    thread.start()
    try:
        for _ in range(40):
            long_graph.replay(long_stream)
            short_graph.replay(short_stream)
            np.testing.assert_array_equal(ys.to_host(), small * small + np.float32(1))
        np.testing.assert_array_equal(yl.to_host(), a * np.float32(0.5) + np.float32(2))
        short_graph.destroy()
        long_graph.destroy()
    finally:
        stop.set()
        thread.join(timeout=120)
    assert not errors


def test_replay_of_a_graph_with_copies_fills_and_events(rng):
    """A cross-stream graph (fork and join through events) with device copies and fills,
    replayed many times with its input updated: the first replay runs the branches on their
    own threads; once known to be short, the nodes run one after another in capture order."""
    stream, side = npx.Stream(), npx.Stream()
    with stream:
        x = npx.asarray(rng.standard_normal((32, 8)).astype(np.float32))
        acc = npx.zeros((32, 8), dtype=npx.float32)

    def work():
        fork = stream.record()
        side.wait_event(fork)
        with side:
            copied = npx.asarray(x, copy=True)     # device-to-device copy on the side stream
            flipped = copied[::-1] * 2.0
        stream.wait_event(side.record())
        scratch = npx.empty((32, 8), dtype=npx.float32)
        scratch[...] = 1.0                           # fill
        acc[...] = acc + flipped + scratch
        return flipped

    graph, flipped = capture(stream, work)
    expected = np.zeros((32, 8), np.float32)
    for _ in range(25):
        data = rng.standard_normal((32, 8)).astype(np.float32)
        with stream:
            x[...] = data
        graph.replay(stream)
        expected += data[::-1] * np.float32(2) + np.float32(1)
        np.testing.assert_array_equal(flipped.to_host(), data[::-1] * np.float32(2))
    np.testing.assert_allclose(acc.to_host(), expected, rtol=1e-5, atol=1e-4)
    graph.destroy()


def test_branches_with_host_functions_still_run_concurrently(rng):
    """Host functions on two branches of a short graph meet at a barrier: only branches run
    at the same time can both pass it, at every replay."""
    stream, left, right = npx.Stream(), npx.Stream(), npx.Stream()
    barrier = threading.Barrier(2, timeout=10)
    met = []
    with stream:   # one input per branch (an input read on two streams orders them)
        inputs = [npx.asarray(rng.standard_normal(16).astype(np.float32)) for _ in range(2)]

    def meet():
        barrier.wait()
        met.append(True)

    def work():
        fork = stream.record()
        results = []
        for side, x in zip((left, right), inputs):
            side.wait_event(fork)
            with side:
                results.append(x * 2.0)
            side.launch_host_func(meet)
            stream.wait_event(side.record())
        return results[0] + results[1]

    graph, y = capture(stream, work)
    for _ in range(5):
        graph.replay(stream)
        stream.synchronize()
    left.synchronize()          # a broken barrier is raised by its host function's stream
    right.synchronize()
    assert len(met) == 10
    np.testing.assert_array_equal(y.to_host(), (inputs[0].to_host() + inputs[1].to_host()) * 2)
    graph.destroy()


def test_inputs_written_on_another_stream_are_waited_for_by_a_short_replay(rng):
    """The replay's stream first waits (an event) for a long write of its input on another
    stream, so it is not idle: the replay is queued, and still reads the new values."""
    a = rng.standard_normal(LARGE).astype(np.float32)
    stream, writer = npx.Stream(), npx.Stream()
    with stream:
        x = npx.asarray(a)
    graph, head = capture(stream, lambda: x[:16] + 1.0)
    for step in range(1, 4):
        with writer:
            x[...] = x * 2.0                          # long, on the writer stream
        stream.synchronize()
        graph.replay(stream)
        expected = a * np.float32(2 ** step)
        np.testing.assert_array_equal(head.to_host(), expected[:16] + np.float32(1))
        with writer:                                  # the output read back on the writer
            np.testing.assert_array_equal((head * 1.0).to_host(), expected[:16] + np.float32(1))
    graph.destroy()


def test_destroy_during_and_after_replay(rng):
    a = rng.standard_normal(LARGE).astype(np.float32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(a)
    graph, y = capture(stream, lambda: x * 3.0 - 1.0)
    handle = graph._handle
    graph.replay(stream)
    graph.destroy()                          # while the replay is queued or running
    np.testing.assert_allclose(y.to_host(), a * np.float32(3) - np.float32(1), rtol=1e-6)
    with pytest.raises(ValueError, match="destroyed"):
        graph.replay(stream)
    assert _acl.lib.aclmdlRIExecuteAsync(handle, stream.handle) == ACL_ERROR_RT_INVALID_HANDLE
    with stream:                             # the stream goes on working
        np.testing.assert_array_equal((x[:4] + 1.0).to_host(), a[:4] + np.float32(1))


@pytest.mark.parametrize("synchronise_before", [True, False], ids=["inline", "queued"])
def test_a_failing_replayed_kernel_is_reported_at_synchronisation(synchronise_before, rng):
    """An out-of-range gather index fails when the replayed kernel runs, on the launching
    thread or on the worker: the replay call succeeds and leaves the thread's last error
    clear, the synchronisation raises the kernel's message, and the graph replays fine with
    a valid index."""
    lib = _acl.lib
    data = np.arange(8, dtype=np.float32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(data)
        index = npx.asarray(np.array([1, 5], dtype=np.int64))
        out = npx.empty((2,), dtype=npx.float32)
    graph = npx.Graph()
    with stream, graph.capture():
        _ops.launch("aclnnGather", x, 0, index, out, stream=stream)
    graph.replay(stream)
    np.testing.assert_array_equal(out.to_host(), data[[1, 5]])
    with stream:
        index[...] = np.array([1, 99], dtype=np.int64)
    if synchronise_before:
        stream.synchronize()
    lib.aclrtGetLastError(lib.ACL_RT_THREAD_LEVEL)     # clear
    graph.replay(stream)
    assert lib.aclrtPeekAtLastError(lib.ACL_RT_THREAD_LEVEL) == 0
    with pytest.raises(npx.AclError, match="out of bounds"):
        stream.synchronize()
    with stream:
        index[...] = np.array([7, 0], dtype=np.int64)
    graph.replay(stream)
    np.testing.assert_array_equal(out.to_host(), data[[7, 0]])
    graph.destroy()


def test_synchronisation_with_a_timeout_still_times_out():
    """A wait with a timeout returns at its deadline behind longer work (it never runs
    queued work itself, which could outlast the deadline)."""
    lib = _acl.lib
    stream = npx.Stream()
    stream.launch_host_func(lambda: time.sleep(0.3))
    start = time.perf_counter()
    assert lib.aclrtSynchronizeStreamWithTimeout(stream.handle, 20) == \
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert time.perf_counter() - start < 0.25
    stream.synchronize()


def test_synchronising_threads_and_launching_threads_share_a_stream(rng):
    """Threads synchronising one stream (running its queued tasks) while others queue long
    and short work on it: every task runs once, in order, and nobody hangs."""
    stream = npx.Stream()
    a = rng.standard_normal(1 << 20).astype(np.float32)
    with stream:
        x = npx.asarray(a)
        counters = [npx.zeros((), dtype=npx.float32) for _ in range(2)]
    errors, stop = [], threading.Event()

    def synchroniser():
        try:
            while not stop.is_set():
                stream.synchronize()
        except Exception as error:  # reported by the test thread
            errors.append(error)

    def launcher(counter):
        try:
            with stream:
                for _ in range(100):
                    big = x * 2.0
                    counter[...] = counter + 1.0
                    np.testing.assert_array_equal(big[:4].to_host(), a[:4] * np.float32(2))
        except Exception as error:  # reported by the test thread
            errors.append(error)

    waiters = [threading.Thread(target=synchroniser) for _ in range(2)]
    launchers = [threading.Thread(target=launcher, args=(c,)) for c in counters]
    for t in waiters + launchers:
        t.start()
    for t in launchers:
        t.join(timeout=120)
    stop.set()
    for t in waiters:
        t.join(timeout=120)
    assert not errors
    assert [float(c.to_host()) for c in counters] == [100.0, 100.0]


def test_device_synchronisation_runs_every_streams_work(rng):
    a = rng.standard_normal(LARGE).astype(np.float32)
    streams = [npx.Stream() for _ in range(3)]
    results = []
    for i, stream in enumerate(streams):
        with stream:
            results.append(npx.asarray(a) * float(i + 1))
    npx.Device(0).synchronize()
    for i, (stream, result) in enumerate(zip(streams, results)):
        assert stream.query()
        np.testing.assert_array_equal(result.to_host(stream=stream)[:64],
                                      a[:64] * np.float32(i + 1))


def test_bad_replay_arguments_then_replay_works(rng):
    a = rng.standard_normal(16).astype(np.float32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(a)
    graph, y = capture(stream, lambda: x - 1.0)
    with pytest.raises(TypeError):
        graph.replay(stream="not a stream")
    with pytest.raises(TypeError):
        graph.replay(42)
    graph.replay(stream)
    np.testing.assert_array_equal(y.to_host(), a - np.float32(1))
    graph.destroy()


def test_alternating_long_and_short_waits_on_one_stream(rng):
    """A synchroniser polls before sleeping only while the stream's waits stay short; long
    waits turn the polling off and a short one turns it back on. Either way every wait
    returns with the work done."""
    a = rng.standard_normal(LARGE).astype(np.float32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(a)
        small, expected = x[:32] * 1.0, a[:32].copy()
        for step in range(6):
            big = x * float(step)                       # long: the worker, or the waiter
            small = small + 1.0                         # short, behind it
            expected += np.float32(1)
            stream.synchronize()
            np.testing.assert_array_equal(big[-4:].to_host(), a[-4:] * np.float32(step))
            np.testing.assert_array_equal(small.to_host(), expected)
            stream.launch_host_func(lambda: time.sleep(0.002))   # a wait the worker serves
            stream.synchronize()
