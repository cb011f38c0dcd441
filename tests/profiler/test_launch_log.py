"""The C recorder's store of a profile's launches (``LaunchLog``, npuarray/_core/_fastpath.c):
many launches past its first allocation, launches from two threads, launches inside a graph
capture, records read twice, a profile ending with work still queued or a launch still
running on another thread, and the store used when the C fast path is absent. Expected
records are derived from the calls each test makes; values are checked against NumPy."""
import gc
import json
import threading
import time

import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops
from npuarray.runtime import _profiler
from conftest import run_threads

needs_fastpath = pytest.mark.skipif(_ops._fastpath is None,
                                    reason="npuarray._core._fastpath is not built")


def assert_timeline(records, prof):
    """Records of one stream, in launch order: host and device times inside the profile,
    each launch's device interval after its host start and before the next one's."""
    for r in records:
        assert r.device_start_ns is not None, r
        assert 0 <= r.host_start_ns <= r.device_start_ns <= r.device_end_ns <= prof.duration_ns
    for earlier, later in zip(records, records[1:]):
        assert earlier.device_end_ns <= later.device_start_ns
        assert earlier.host_start_ns + earlier.host_duration_ns <= later.host_start_ns


@needs_fastpath
def test_an_empty_log_and_its_arguments():
    log = _ops._fastpath.LaunchLog()
    assert len(log) == 0 and log.records(_profiler.Record, 0, {}, {}) == []
    with pytest.raises(TypeError, match="no arguments"):
        _ops._fastpath.LaunchLog(16)
    with pytest.raises(TypeError, match="times: dict"):
        log.records(_profiler.Record, 0, [], {})
    with pytest.raises(TypeError, match="not a __slots__ member"):
        log.records(dict, 0, {}, {})
    assert _profiler.launch_log().__class__ is _ops._fastpath.LaunchLog


def test_thousands_of_launches_keep_every_name_shape_and_dtype(rng):
    a, b = rng.standard_normal((3, 5)), rng.standard_normal(7).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    count = 1500   # past the log's first allocations (64 entries) several times
    with npx.profile() as prof:
        for i in range(count):
            if i % 3 == 2:
                u = y * 2.0       # aclnnMuls, (7,) float32 -> (7,) float32
            else:
                v = x + x         # aclnnAdd, (3, 5) float64 three times
        v.to_host()
    np.testing.assert_array_equal(v.to_host(), a + a)
    np.testing.assert_array_equal(u.to_host(), b * np.float32(2.0))
    launches = [r for r in prof.records if r.kind == "launch"]
    assert len(launches) == count
    for i, r in enumerate(launches):
        if i % 3 == 2:
            assert (r.name, r.shapes, r.dtypes) == ("aclnnMuls", ((7,), (7,)),
                                                    (np.float32, np.float32))
        else:
            assert (r.name, r.shapes, r.dtypes) == ("aclnnAdd", ((3, 5),) * 3, (np.float64,) * 3)
    me = threading.get_native_id()
    assert all(r.thread == me and r.device == 0 and not r.captured and r.nbytes == 0
               for r in launches)
    assert_timeline(launches, prof)
    read, = [r for r in prof.records if r.kind == "copy"]
    assert (read.name, read.nbytes) == ("ACL_MEMCPY_DEVICE_TO_HOST", 3 * 5 * 8)


def test_launches_of_two_threads_on_their_streams(rng):
    data = [rng.standard_normal(64).astype(np.float32) for _ in range(2)]
    results, barrier = {}, threading.Barrier(2)
    count = 300

    def work(index):
        with npx.Stream() as stream:
            x = npx.asarray(data[index])
            barrier.wait()
            for _ in range(count):
                x = x * 0.5 if index else x + 1.0
            results[index] = (threading.get_native_id(), stream, x.to_host())

    with npx.profile() as prof:
        run_threads(work, [(0,), (1,)])
    for index, (thread, stream, values) in results.items():
        expected = data[index]
        for _ in range(count):
            expected = expected * np.float32(0.5) if index else expected + np.float32(1.0)
        np.testing.assert_allclose(values, expected, rtol=1e-6)
        launches = [r for r in prof.records if r.thread == thread and r.kind == "launch"]
        assert [r.name for r in launches] == ["aclnnMuls" if index else "aclnnAdds"] * count
        assert all(r.stream is stream and r.shapes == ((64,), (64,)) for r in launches)
        assert_timeline(launches, prof)


def test_launches_captured_after_the_stream_was_timed(rng):
    host = rng.standard_normal(16)
    stream = npx.Stream()
    graph = npx.Graph()
    with stream:
        x = npx.asarray(host)
        with npx.profile() as prof:
            y = x * 3.0                    # timed: the stream's baseline in this profile
            with graph.capture():
                z = y + x                  # captured: host times only
                w = npx.exp(z)
            graph.replay()
            after = w - 1.0                # timed again
        np.testing.assert_allclose(after.to_host(), np.exp(4 * host) - 1.0, rtol=1e-12)
    launches = [r for r in prof.records if r.kind == "launch"]
    assert [(r.name, r.captured) for r in launches] == [
        ("aclnnMuls", False), ("aclnnAdd", True), ("aclnnExp", True), ("aclnnSubs", False)]
    assert all((r.device_start_ns is None) == r.captured for r in launches)
    assert all(r.host_duration_ns >= 0 and r.stream is stream for r in launches)
    replay, = [r for r in prof.records if r.kind == "replay"]
    assert launches[0].device_end_ns <= replay.device_start_ns <= launches[3].device_start_ns
    graph.destroy()


def test_records_read_twice_and_from_two_threads_are_the_same(rng):
    x = npx.asarray(rng.standard_normal(32))
    with npx.profile() as prof:
        for _ in range(200):
            x = x * 1.0
    seen, barrier = [], threading.Barrier(2)   # the first two reads at once

    def read():
        barrier.wait()
        seen.append(prof.records)

    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen[0] is seen[1] is prof.records
    assert len(prof.records) == 200
    assert str(prof.summary()) == str(prof.summary())
    row, = prof.key_averages()
    assert (row.name, row.count) == ("aclnnMuls", 200)


def test_a_profile_ending_with_work_queued(rng):
    a = rng.standard_normal((384, 384)).astype(np.float32)
    x = npx.asarray(a)
    x.to_host()
    with npx.profile() as prof:
        for _ in range(4):
            y = x @ x                      # long tasks: queued on the stream's worker
        # the block ends at once: the end synchronises the stream before reading its events
    np.testing.assert_allclose(y.to_host(), a @ a, rtol=1e-4, atol=1e-3)
    launches = [r for r in prof.records if r.kind == "launch"]
    assert [r.name for r in launches] == ["aclnnMatmul"] * 4
    assert_timeline(launches, prof)
    assert launches[-1].device_end_ns >= launches[-1].host_start_ns + launches[-1].host_duration_ns


def test_a_profile_ending_while_another_thread_launches(rng):
    x = npx.asarray(rng.standard_normal(8).astype(np.float32))
    started, stop = threading.Event(), threading.Event()
    done = []

    def work():
        with npx.Stream():
            y = x + 0.0
            started.set()
            while not stop.is_set():
                y = y + 1.0 if len(done) % 2 else y * 1.0
                done.append(y.shape)
            done.append(y.to_host())

    worker = threading.Thread(target=work)
    with npx.profile() as prof:
        worker.start()
        started.wait(30)
        time.sleep(0.02)
    stop.set()
    worker.join(30)
    mine = [r for r in prof.records if r.kind == "launch"]
    # launched one after another: those that returned before the end, a prefix of them
    expected = ["aclnnAdds"] + ["aclnnAdds" if i % 2 else "aclnnMuls" for i in range(len(done))]
    assert 1 <= len(mine) <= len(expected)
    assert [r.name for r in mine] == expected[:len(mine)]
    assert all(r.shapes == ((8,), (8,)) and r.dtypes == (np.float32,) * 2 for r in mine)
    assert_timeline(mine, prof)


NO_FASTPATH = """
import json, sys
sys.modules["npuarray._core._fastpath"] = None  # as an install without the extension
import numpy as np
import npuarray as npx
from npuarray.runtime import _profiler
x = npx.asarray(np.arange(6.0))
with npx.profile() as prof:
    for _ in range(100):
        y = x * 2.0
print(json.dumps({"store": type(_profiler.launch_log()).__name__,
                  "names": sorted({r.name for r in prof.records}),
                  "count": len(prof.records), "timed": all(r.device_start_ns is not None
                                                           for r in prof.records),
                  "values": y.to_host().tolist()}))
"""


def test_without_the_c_fast_path_the_python_hooks_record(run_python):
    result = run_python(NO_FASTPATH)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out == {"store": "list", "names": ["aclnnMuls"], "count": 100, "timed": True,
                   "values": (np.arange(6.0) * 2.0).tolist()}


class _SlowAfterAnchor:
    """npuarray's ACL library with the first aclrtSynchronizeStream after an aclrtRecordEvent
    made `delay` seconds slower: as a host thread descheduled right after the profile's
    anchor event was reached."""

    def __init__(self, lib, delay):
        self._lib, self._delay, self._recorded, self.delayed = lib, delay, False, 0

    def __getattr__(self, name):
        return getattr(self._lib, name)

    def aclrtRecordEvent(self, event, stream):
        self._recorded = True
        return self._lib.aclrtRecordEvent(event, stream)

    def aclrtSynchronizeStream(self, stream):
        result = self._lib.aclrtSynchronizeStream(stream)
        if self._recorded and not self.delayed:
            time.sleep(self._delay)
            self.delayed += 1
        return result


def test_a_host_delay_after_the_anchor_does_not_stretch_device_times(monkeypatch, rng):
    x = npx.asarray(rng.standard_normal(512).astype(np.float32))
    x.to_host()
    delay = 0.005
    with npx.profile() as prof:
        time.sleep(0.002)                  # an idle stream: the fill's device start is its host start
        x[...] = 0.5                       # aclnnInplaceFillScalar, 2 KiB: run at once
        slow = _SlowAfterAnchor(_profiler.lib, delay)
        monkeypatch.setattr(_profiler, "lib", slow)
    np.testing.assert_array_equal(x.to_host(), np.full(512, 0.5, np.float32))
    assert slow.delayed == 1
    fill, = prof.records
    # The fill ran within its call, a few microseconds: its device interval ends when the
    # stream reached the event recorded after the call, long before the 5 ms delay.
    host_end = fill.host_start_ns + fill.host_duration_ns
    assert fill.host_start_ns <= fill.device_start_ns <= fill.device_end_ns
    assert fill.device_end_ns - host_end < delay * 1e9 / 5
    assert fill.device_duration_ns < delay * 1e9 / 5


def test_a_profile_read_after_a_later_one_keeps_its_own_device_times(rng):
    """The timing events of an ended profile stay out of the pool until its records are
    read: a later profile takes other events, and both read their own times."""
    a = rng.standard_normal((256, 256)).astype(np.float32)
    x = npx.asarray(a)
    x.to_host()
    with npx.profile() as first:
        y = x @ x
        time.sleep(0.01)
        y = y * 2.0
    pooled = len(_profiler._pools.get(0, []))
    with npx.profile() as second:
        z = x + 1.0
    np.testing.assert_allclose(y.to_host(), (a @ a) * 2, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(z.to_host(), a + 1, rtol=1e-6)
    later = [r for r in second.records if r.kind == "launch"]
    earlier = [r for r in first.records if r.kind == "launch"]
    assert len(_profiler._pools[0]) >= pooled + 2   # both profiles' events are back
    assert [r.name for r in earlier] == ["aclnnMatmul", "aclnnMuls"]
    assert [r.name for r in later] == ["aclnnAdds"]
    # within each profile's own window: an event of the first re-recorded by the second
    # would have put the first's times after its end
    assert_timeline(earlier, first)
    assert_timeline(later, second)
    assert earlier[1].device_start_ns >= earlier[0].host_start_ns + 0.01e9   # after the sleep


def test_a_profile_dropped_unread_gives_its_events_back(rng):
    x = npx.asarray(rng.standard_normal(16))

    def unread():
        with npx.profile():
            for _ in range(20):
                x * x
        return len(_profiler._pools.get(0, []))

    first = unread()
    assert first >= 20 + 2   # one per launch, a baseline and the anchor
    assert unread() == first


@needs_fastpath
def test_records_read_after_the_pool_was_dropped_keep_every_launch(rng):
    """The log borrows its timing events, which the profile holds until its records are
    made: a pool dropped meanwhile (as a stale one is) and a later profile taking new
    events leave them intact."""
    a = rng.standard_normal((64, 64)).astype(np.float32)
    x = npx.asarray(a)
    x.to_host()
    with npx.profile() as first:
        y = x @ x
        for _ in range(20):
            y = y * 0.5
    _profiler._pools.clear()
    with npx.profile() as second:
        z = x + 1.0
    gc.collect()
    launches = [r for r in first.records if r.kind == "launch"]
    np.testing.assert_allclose(y.to_host(), (a @ a) * 0.5 ** 20, rtol=1e-4, atol=1e-9)
    np.testing.assert_allclose(z.to_host(), a + 1, rtol=1e-6)
    assert [r.name for r in launches] == ["aclnnMatmul"] + ["aclnnMuls"] * 20
    assert all(r.shapes[0] == (64, 64) and r.dtypes[0] == np.float32 for r in launches)
    assert_timeline(launches, first)
    assert [r.name for r in second.records if r.kind == "launch"] == ["aclnnAdds"]


def test_given_back_events_are_pooled_once_and_taken_last_first():
    npx.asarray(np.zeros(1)).to_host()   # the device is active
    saved = _profiler._pools.pop(0, [])
    try:
        events = [_profiler.take_event(0) for _ in range(3)]
        _profiler.give_back(0, events[:2])
        _profiler.give_back(0, events[2:])
        assert _profiler._pools[0] == events          # each event once, in order
        assert [_profiler.take_event(0) for _ in range(3)] == events[::-1]
        assert _profiler._pools[0] == []
    finally:
        _profiler._pools[0] = saved + events


RESET_AFTER = """
import json
import numpy as np
import npuarray as npx
from npuarray._acl import lib
x = npx.asarray(np.arange(10.0))
with npx.profile() as prof:
    y = x + x
    z = y * 3.0
print(json.dumps({"reset": lib.aclrtResetDevice(0), "duration": prof.duration_ns,
                  "records": [(r.name, r.host_duration_ns, r.device_start_ns, r.device_end_ns)
                              for r in prof.records]}))
"""


def test_a_device_reset_before_the_records_are_read_keeps_host_records(run_python):
    """The events are read after the reset: their times if the runtime still has them,
    else host times only; never an error."""
    result = run_python(RESET_AFTER)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["reset"] == 0
    assert [r[0] for r in out["records"]] == ["aclnnAdd", "aclnnMuls"]
    for name, host, start, end in out["records"]:
        assert host > 0
        assert (start is None and end is None) or 0 <= start <= end <= out["duration"]
