"""How the profiler records, checked from what it records: every launch of a busy stream, by
the C fast path and by the Python launch paths (which record through the C recorder), with
device intervals in stream order inside the profile window; the device times read in one C
call equal the ACL arithmetic done by hand; Records made once, when first read."""
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray._acl import ffi, lib
from npuarray._core import _ops
from npuarray.runtime import _profiler
from npuarray.runtime._device import activate

needs_fastpath = pytest.mark.skipif(_ops._fastpath is None or _ops._launch_helper is None,
                                    reason="npuarray._core._fastpath (or the npusim launch "
                                           "helper) is not built")
ITERATIONS = 12


def _busy_stream_work(x, c, m):
    """Per iteration: aclnnMul (C path), aclnnSWhere (Python launch path), aclnnMatmul
    (its own Python path), aclnnReduceSum (C), then one small read (C)."""
    for _ in range(ITERATIONS):
        y = x * 1.5
        x = npx.where(c, y, x)
        p = npx.matmul(m, m)
        total = float(npx.sum(p).to_host())
    return x, total


@needs_fastpath
def test_every_launch_of_a_busy_stream_is_recorded_in_stream_order(rng):
    host, flags = rng.standard_normal(4096), rng.standard_normal(4096) > 0
    square = rng.standard_normal((48, 48)).astype(np.float32)   # aclnnMatmul's own dtype
    stream = npx.Stream()
    with stream:
        x, c, m = npx.asarray(host), npx.asarray(flags), npx.asarray(square)
        _busy_stream_work(x, c, m)   # plans made, blocks cached
        before = _ops.fastpath_counts()
        with npx.profile() as prof:
            x, total = _busy_stream_work(x, c, m)
        after = _ops.fastpath_counts()
    expected = host
    for _ in range(ITERATIONS):
        expected = np.where(flags, expected * 1.5, expected)
    np.testing.assert_allclose(x.to_host(), expected, rtol=1e-12)
    np.testing.assert_allclose(total, (square @ square).sum(dtype=np.float64), rtol=1e-4)
    assert after["arrays"] + after["scalar"] > before["arrays"] + before["scalar"]  # C paths
    records = prof.records
    names = [r.name for r in records]
    assert names == ["aclnnMuls", "aclnnSWhere", "aclnnMatmul", "aclnnReduceSum",
                     "ACL_MEMCPY_DEVICE_TO_HOST"] * ITERATIONS
    assert all(r.stream is stream and r.device == 0 and not r.captured for r in records)
    assert [r.shapes for r in records[:4]] == [
        ((4096,), (4096,)), ((4096,),) * 4, ((48, 48),) * 3, ((48, 48), ())]
    for r in records:
        assert r.device_start_ns is not None, r
        assert 0 <= r.host_start_ns <= r.device_start_ns <= r.device_end_ns <= prof.duration_ns
    for earlier, later in zip(records, records[1:]):   # one stream runs them in order
        assert earlier.device_end_ns <= later.device_start_ns
        assert earlier.host_start_ns + earlier.host_duration_ns <= later.host_start_ns


@needs_fastpath
def test_python_launch_paths_record_through_the_c_recorder():
    assert _ops._recorder.begin is _ops._fastpath.launch_begin
    assert _ops._recorder.end is _ops._fastpath.launch_end
    assert _profiler.recording.event_times is _ops._fastpath.event_times
    assert _ops._fastpath.launch_begin("aclnnAdd", (), None) is None   # no profile runs
    with pytest.raises(TypeError, match="args: tuple"):
        _ops._fastpath.launch_begin("aclnnAdd", [], None)
    with pytest.raises(TypeError, match="device_id: int"):
        _ops._fastpath.launch_end(None, None, "0")
    with pytest.raises(TypeError, match="launch_begin"):
        _ops._fastpath.launch_end((1, 2), None, 0)


def _elapsed_by_hand(events, anchor, anchor_ns):
    """aclrtEventElapsedTime from each event to the anchor, as host times made
    non-decreasing in record order."""
    ms, times = ffi.new("float *"), []
    for event in events:
        assert lib.aclrtEventElapsedTime(ms, event, anchor) == 0
        at = anchor_ns - round(ms[0] * 1e6)
        times.append(max(at, times[-1]) if times else at)
    return times


@needs_fastpath
def test_event_times_in_one_c_call_equal_the_acl_arithmetic(rng):
    stream = npx.Stream()
    activate(stream.device.id)
    x = npx.asarray(rng.standard_normal((96, 96)).astype(np.float32))
    events = [_profiler.take_event(0) for _ in range(9)]
    with stream:
        for event in events[:-1]:
            x = npx.matmul(x, x) * 0.01
            assert lib.aclrtRecordEvent(event, stream.handle) == 0
    stream.synchronize()
    assert lib.aclrtRecordEvent(events[-1], stream.handle) == 0
    stream.synchronize()
    anchor_ns = 10 ** 15
    times = _ops._fastpath.event_times(events[:-1], events[-1], anchor_ns)
    assert times == _elapsed_by_hand(events[:-1], events[-1], anchor_ns)
    assert times == sorted(times) and times[-1] <= anchor_ns
    handle = ffi.new("aclrtEvent *")   # a new event (a pooled one was recorded before)
    assert lib.aclrtCreateEventExWithFlag(handle, _profiler.ACL_EVENT_TIME_LINE) == 0
    assert _ops._fastpath.event_times([handle[0]], events[-1], anchor_ns) is None
    with pytest.raises(TypeError, match="events: list"):
        _ops._fastpath.event_times(tuple(events), events[-1], anchor_ns)
    _profiler.give_back(0, events)
    assert lib.aclrtDestroyEvent(handle[0]) == 0


def test_records_are_made_once_when_first_read(rng):
    x = npx.asarray(rng.standard_normal(64))
    prof = npx.profile()
    with prof:
        y = x + x
        z = npx.where(x > 0, x, y)
        assert prof.records == []   # nothing to read while it runs
    records = prof.records
    assert records is prof.records
    assert [r.name for r in records] == ["aclnnAdd", "aclnnGtScalar", "aclnnSWhere"]
    assert all(r.device_start_ns is not None and r._events is None for r in records)
    np.testing.assert_array_equal(z.to_host(), np.where(x.to_host() > 0, x.to_host(),
                                                        2 * x.to_host()))


def test_threads_reading_the_records_at_once_get_one_list(rng):
    x = npx.asarray(rng.standard_normal(64))
    with npx.profile() as prof:
        for _ in range(200):
            x = x * 1.0
    barrier, seen = threading.Barrier(4), []

    def read():
        barrier.wait()
        seen.append(prof.records)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 4 and all(records is seen[0] for records in seen)
    assert len(seen[0]) == 200
    assert all(0 <= r.host_start_ns <= prof.duration_ns for r in seen[0])   # shifted once
