"""npusim runs a short operator on the launching thread when its stream is idle shortly after a
synchronisation (npusim_launch_checked with NPUSIM_TASK_SHORT or TINY, kernels/runtime/npusim.h):
stream order, results, asynchronous errors, events, graph capture and concurrent launchers must
behave exactly as when the worker runs it."""
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray import _acl
from npuarray._core import _ops


def test_small_operation_then_synchronise(rng):
    a = rng.standard_normal(1024).astype(np.float32)
    b = rng.standard_normal(1024).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    stream = npx.get_current_stream()
    for _ in range(3):
        stream.synchronize()
        z = x + y
        stream.synchronize()
        np.testing.assert_array_equal(z.to_host(), a + b)
        assert float(npx.sum(z[:4])) == pytest.approx(float((a + b)[:4].sum()), rel=1e-6)


def test_small_operation_after_queued_large_one_keeps_stream_order(rng):
    """A short task launched while a long one is queued or running must not run first."""
    a = rng.standard_normal(1 << 22).astype(np.float32)
    with npx.Stream() as stream:
        x = npx.asarray(a)
        stream.synchronize()
        for _ in range(3):
            big = x * 2.0                  # long: goes to the worker
            head = big[:16] + 1.0          # short, reads what the long one writes
            tail = big[-16:][::-1] - 1.0   # strided view, negative step
            np.testing.assert_array_equal(head.to_host(), a[:16] * 2 + 1)
            np.testing.assert_array_equal(tail.to_host(), (a[-16:] * 2)[::-1] - 1)


def test_chain_of_small_operations_longer_than_the_inline_burst(rng):
    a = rng.standard_normal(16).astype(np.float32)
    x = npx.asarray(a)
    stream = npx.get_current_stream()
    stream.synchronize()
    y, expected = x, a
    for i in range(50):
        y = y * 0.5 + float(i)
        expected = expected * np.float32(0.5) + np.float32(i)
    np.testing.assert_allclose(y.to_host(), expected, rtol=1e-6)


def test_zero_d_and_empty_operands(rng):
    a = np.float32(rng.standard_normal())
    x = npx.asarray(a)
    npx.get_current_stream().synchronize()
    assert float(x * 3.0) == pytest.approx(float(a * np.float32(3.0)))
    e = npx.asarray(np.ones((0, 4), np.float32))
    assert (e + 1.0).to_host().shape == (0, 4)


def test_failure_of_a_short_task_is_reported_at_synchronisation_not_at_launch(rng):
    """An out-of-range gather index fails when the kernel runs. Run on the launching thread,
    the failure must still be asynchronous: the launch succeeds, the thread's last error stays
    clear, the next synchronisation raises the kernel's message, and the stream works again."""
    lib = _acl.lib
    with npx.Stream() as stream:
        x = npx.asarray(np.arange(8, dtype=np.float32))
        index = npx.asarray(np.array([1, 99], dtype=np.int64))
        out = npx.empty((2,), dtype=npx.float32)
        stream.synchronize()
        lib.aclrtGetLastError(lib.ACL_RT_THREAD_LEVEL)  # clear
        _ops.launch("aclnnGather", x, 0, index, out, stream=stream)
        assert lib.aclrtPeekAtLastError(lib.ACL_RT_THREAD_LEVEL) == 0
        with pytest.raises(npx.AclError, match="out of bounds"):
            stream.synchronize()
        y = x + 1.0
        np.testing.assert_array_equal(y.to_host(), np.arange(8, dtype=np.float32) + 1)


def test_event_recorded_after_a_short_task_completes_with_it(rng):
    a = rng.standard_normal(64).astype(np.float32)
    with npx.Stream() as stream:
        x = npx.asarray(a)
        stream.synchronize()
        y = x * x
        event = npx.Event()
        event.record(stream)
        event.synchronize()
        assert event.query()
        np.testing.assert_array_equal(y.to_host(), a * a)


def test_short_tasks_are_captured_not_run(rng):
    if not _acl.available("aclmdlRICaptureBegin"):
        pytest.skip("the loaded provider has no graph capture")
    a = rng.standard_normal(32).astype(np.float32)
    with npx.Stream() as stream:
        x = npx.asarray(a)
        stream.synchronize()
        graph = npx.Graph()
        with graph.capture():
            y = x + 1.0
            x[...] = y
        np.testing.assert_array_equal(x.to_host(), a)  # nothing ran during the capture
        graph.replay()
        graph.replay()
        np.testing.assert_array_equal(x.to_host(), (a + np.float32(1)) + np.float32(1))
        graph.destroy()


def test_threads_launching_short_tasks_on_one_stream(rng):
    """Several threads each running chains of short operations on the same stream: every
    task runs once, one at a time, whichever thread runs it."""
    stream = npx.Stream()
    starts = [rng.standard_normal(16).astype(np.float32) for _ in range(4)]
    results, errors = [None] * 4, []

    def work(i):
        try:
            with stream:
                y = npx.asarray(starts[i])
                for step in range(200):
                    y = y + 1.0
                    if step % 7 == 0:
                        stream.synchronize()
                results[i] = y.to_host()
        except Exception as error:  # reported below with the thread's index
            errors.append((i, error))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for start, result in zip(starts, results):
        np.testing.assert_allclose(result, start + 200, rtol=1e-5)


def test_bad_input_still_raises_and_next_operation_works():
    x = npx.asarray(np.ones(8, np.float32))
    with pytest.raises(ValueError):
        x + npx.asarray(np.ones(3, np.float32))
    with pytest.raises(TypeError):
        npx.bitwise_and(x, x)
    np.testing.assert_array_equal((x + x).to_host(), np.full(8, 2, np.float32))


def test_short_copy_after_queued_large_operation_keeps_stream_order(rng):
    """An asynchronous copy of <= 1 MiB is a short task: queued behind a long operation it
    must still wait for it; on an idle stream it completes at once, with its event."""
    a = rng.standard_normal(1 << 22).astype(np.float32)
    with npx.Stream() as stream:
        x = npx.asarray(a)
        stream.synchronize()
        for _ in range(3):
            big = x + 3.0                                   # long: goes to the worker
            head = big[:4096].to_host(blocking=False)       # 16 KiB, async into pinned memory
            stream.synchronize()
            np.testing.assert_array_equal(head, a[:4096] + np.float32(3))
        small = npx.asarray(a[:100])
        stream.synchronize()
        copy = small.to_host(blocking=False)
        done = npx.Event()
        done.record(stream)
        done.synchronize()
        np.testing.assert_array_equal(copy, a[:100])


def test_event_timing_around_short_tasks(rng):
    a = rng.standard_normal(256).astype(np.float32)
    with npx.Stream() as stream:
        x = npx.asarray(a)
        stream.synchronize()
        start, end = npx.Event(timing=True), npx.Event(timing=True)
        start.record(stream)
        y = npx.sqrt(npx.abs(x))
        end.record(stream)
        end.synchronize()
        assert start.query() and end.query()
        assert start.elapsed_time(end) >= 0
        np.testing.assert_allclose(y.to_host(), np.sqrt(np.abs(a)), rtol=1e-6)
