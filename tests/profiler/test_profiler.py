"""npuarray.profile(): what is recorded, device times, exports, and the guarantees around it.

Expected records are derived by hand from the calls each test makes; device times
are checked against the profile window and against each other (a big matmul takes
longer on its stream than a 4-element add).
"""
import json
import sys
import textwrap
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import npuarray as npx
from npuarray import profiler
from npuarray.runtime import _profiler as _recorder

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def kinds_and_names(prof):
    return [(r.kind, r.name) for r in prof.records]


def test_public_names():
    assert npx.profile is profiler.profile
    assert isinstance(npx.profile(), profiler.Profile)


def test_a_known_sequence_gives_exactly_its_records(rng):
    a = rng.standard_normal((8, 5)).astype(np.float32)
    b = rng.standard_normal((3, 4))
    x = npx.asarray(a)
    stream = npx.default_stream()
    with npx.profile() as prof:
        y = x + x                                   # aclnnAdd
        host = npx.asnumpy(y)                       # D2H, 8*5*4 bytes
        z = npx.asarray(b)                          # H2D, 3*4*8 bytes
        event = npx.Event().record()                # aclrtRecordEvent
        stream.wait_event(event)                    # aclrtStreamWaitEvent
        stream.synchronize()                        # aclrtSynchronizeStream
    np.testing.assert_array_equal(host, a + a)
    np.testing.assert_array_equal(z.to_host(), b)
    assert kinds_and_names(prof) == [
        ("launch", "aclnnAdd"),
        ("copy", "ACL_MEMCPY_DEVICE_TO_HOST"),
        ("copy", "ACL_MEMCPY_HOST_TO_DEVICE"),
        ("event_record", "aclrtRecordEvent"),
        ("event_wait", "aclrtStreamWaitEvent"),
        ("synchronize", "aclrtSynchronizeStream"),
    ]
    add, d2h, h2d, record, wait, sync = prof.records
    assert add.shapes == ((8, 5), (8, 5), (8, 5)) and add.dtypes == ("float32",) * 3
    assert (d2h.nbytes, h2d.nbytes, add.nbytes) == (8 * 5 * 4, 3 * 4 * 8, 0)
    me = threading.get_native_id()
    for r in prof.records:
        assert r.device == 0 and r.stream is stream and r.thread == me and not r.captured
        assert 0 <= r.host_start_ns and r.host_duration_ns > 0
    for r in (add, d2h, h2d, wait):
        assert r.device_start_ns is not None and r.device_duration_ns >= 0
    for r in (record, sync):
        assert r.device_start_ns is None and r.device_duration_ns is None


def test_device_intervals_are_ordered_per_stream_and_inside_the_window(rng):
    x = npx.asarray(rng.standard_normal((64, 64)))
    w_host = rng.standard_normal((32, 32))
    side = npx.Stream()
    with npx.profile() as prof:
        for _ in range(5):
            y = npx.matmul(x, x)
            x = npx.sin(y) + 1.0
        with side:
            w = npx.asarray(w_host)
            for _ in range(5):
                w = npx.tanh(w * 0.5)
    per_stream = {}
    for r in prof.records:
        if r.device_start_ns is not None:
            per_stream.setdefault(r.stream, []).append(r)
    assert set(per_stream) == {npx.default_stream(), side}
    for records in per_stream.values():
        assert len(records) >= 5
        for r in records:    # recorded in one thread: enqueue order = host order
            assert 0 <= r.device_start_ns <= r.device_end_ns <= prof.duration_ns
        for before, after in zip(records, records[1:]):
            assert before.device_end_ns <= after.device_start_ns
    assert all(r.host_start_ns + r.host_duration_ns <= prof.duration_ns for r in prof.records)
    expected = w_host
    for _ in range(5):
        expected = np.tanh(expected * 0.5)
    np.testing.assert_allclose(w.to_host(), expected, rtol=1e-12)


def test_a_big_kernel_takes_longer_on_the_device_than_a_tiny_one(rng):
    big = npx.asarray(rng.standard_normal((384, 384)).astype(np.float32))
    tiny = npx.asarray(rng.standard_normal(4).astype(np.float32))
    tiny + tiny               # first calls set up plans and kernels: not what is compared
    npx.matmul(big, big)
    npx.default_stream().synchronize()
    with npx.profile() as prof:
        tiny + tiny
        npx.matmul(big, big)
    add, matmul = prof.records
    assert (add.name, matmul.name) == ("aclnnAdd", "aclnnMatmul")
    assert matmul.device_duration_ns > add.device_duration_ns
    assert matmul.device_duration_ns > 100_000   # 384^3 multiply-adds: well over 0.1 ms


def test_non_contiguous_and_empty_operands_record_their_view_shapes(rng):
    x = npx.asarray(rng.standard_normal((6, 4)).astype(np.float32))
    with npx.profile() as prof:
        t = npx.exp(x.T)                       # transposed view
        npx.exp(x[::2, 1:])                    # strided view
        npx.exp(npx.asarray(np.zeros((0, 3), np.float32)))   # empty: no launch at all
    launches = [r for r in prof.records if r.kind == "launch"]
    assert [r.name for r in launches] == ["aclnnExp", "aclnnExp"]
    assert launches[0].shapes == ((4, 6), (4, 6))
    assert launches[1].shapes == ((3, 3), (3, 3))
    np.testing.assert_allclose(t.to_host(), np.exp(x.to_host().T), rtol=1e-6)


@settings(max_examples=30, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
       dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.complex64]))
def test_records_carry_the_shapes_dtypes_and_bytes_of_any_operands(shape, dtype):
    host = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) + 1
    with npx.profile() as prof:
        x = npx.asarray(host)
        y = x * x
        back = npx.asnumpy(y)
    np.testing.assert_array_equal(back, host * host)
    expected = []
    if host.size:      # nothing to copy or compute for an empty array
        expected = [("copy", "ACL_MEMCPY_HOST_TO_DEVICE"), ("launch", "aclnnMul"),
                    ("copy", "ACL_MEMCPY_DEVICE_TO_HOST")]
    assert kinds_and_names(prof) == expected
    if host.size:
        h2d, mul, d2h = prof.records
        assert h2d.nbytes == d2h.nbytes == host.nbytes
        assert mul.shapes == (shape,) * 3 and mul.dtypes == (np.dtype(dtype),) * 3


def test_chrome_trace_is_valid_trace_event_json(tmp_path, rng):
    x = npx.asarray(rng.standard_normal((16, 16)).astype(np.float32))
    with npx.profile() as prof:
        y = x @ x
        npx.asnumpy(y)
        npx.Event().record()
    path = prof.export_chrome_trace(str(tmp_path / "trace.json"))
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    for e in complete:
        assert {"ph", "ts", "dur", "pid", "tid", "name"} <= set(e)
        assert e["dur"] >= 0 and e["ts"] >= 0
    host = [e for e in complete if e["pid"] == 0]
    device = [e for e in complete if e["pid"] == 1]
    assert [e["name"] for e in host] == [r.name for r in prof.records]
    timed = [r for r in prof.records if r.device_start_ns is not None]
    assert [e["name"] for e in device] == [r.name for r in timed]
    assert device[0]["args"]["shapes"] == [[16, 16]] * 3
    starts = {e["id"] for e in events if e["ph"] == "s"}
    finishes = {e["id"] for e in events if e["ph"] == "f"}
    assert starts == finishes and len(starts) == len(timed)
    names = {(e["pid"], e["args"]["name"]) for e in events
             if e["ph"] == "M" and e["name"] == "process_name"}
    assert (1, "NPU 0") in names and any(pid == 0 for pid, _ in names)
    threads = {e["tid"]: e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 0}
    assert threads == {threading.get_native_id(): "MainThread (%d)" % threading.get_native_id()}


def test_summary_totals_equal_the_sums_of_the_records(rng):
    x = npx.asarray(rng.standard_normal((32, 32)))
    with npx.profile() as prof:
        for _ in range(3):
            x = x * 0.5 + x
        npx.asnumpy(x)
        npx.asnumpy(x[0])
    rows = {row.name: row for row in prof.key_averages()}
    assert set(rows) == {r.name for r in prof.records}
    for name, row in rows.items():
        records = [r for r in prof.records if r.name == name]
        timed = [r.device_duration_ns for r in records if r.device_start_ns is not None]
        assert row.count == len(records) and row.device_count == len(timed)
        assert row.host_total_us == pytest.approx(sum(r.host_duration_ns for r in records) / 1e3)
        assert row.device_total_us == pytest.approx(sum(timed) / 1e3)
        assert row.host_mean_us == pytest.approx(row.host_total_us / row.count)
        assert row.bytes == sum(r.nbytes for r in records)
    assert rows["aclnnMuls"].count == 3 and rows["aclnnAdd"].count == 3
    assert rows["ACL_MEMCPY_DEVICE_TO_HOST"].bytes == 32 * 32 * 8 + 32 * 8
    table = str(prof.summary())
    assert "aclnnMuls" in table and "Device total us" in table
    by_count = prof.summary(sort_by="count").rows
    assert [row.count for row in by_count] == sorted((row.count for row in by_count),
                                                     reverse=True)
    assert [row.name for row in prof.summary(sort_by="name").rows] == sorted(rows)
    assert len(prof.summary(limit=2).rows) == 2
    with pytest.raises(ValueError, match="sort_by"):
        prof.summary(sort_by="speed")
    with pytest.raises(ValueError, match="limit"):
        prof.summary(limit=-1)


def test_results_need_the_profile_to_have_ended(tmp_path):
    with npx.profile() as prof:
        with pytest.raises(RuntimeError, match="ended"):
            prof.summary()
        with pytest.raises(RuntimeError, match="ended"):
            prof.export_chrome_trace(str(tmp_path / "t.json"))


def test_plot_writes_a_png(tmp_path, rng):
    pytest.importorskip("matplotlib", reason="Profile.plot needs matplotlib (the 'profile' extra)")
    x = npx.asarray(rng.standard_normal((64, 64)))
    with npx.profile() as prof:
        with npx.Stream():
            npx.asarray(rng.standard_normal(10)) + 1.0
        x @ x
    path = prof.plot(str(tmp_path / "timeline.png"))
    with open(path, "rb") as f:
        assert f.read(8) == PNG_MAGIC


def test_plot_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    with npx.profile() as prof:
        pass
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"npuarray\[profile\]"):
        prof.plot(str(tmp_path / "timeline.png"))


def test_nothing_is_recorded_after_the_block(rng):
    x = npx.asarray(rng.standard_normal(10))
    with npx.profile() as prof:
        x + x
    count = len(prof.records)
    x * x
    npx.asnumpy(x)
    npx.default_stream().synchronize()
    assert len(prof.records) == count == 1
    assert _recorder.active is False


def test_an_exception_in_the_block_still_ends_the_profile(rng):
    x = npx.asarray(rng.standard_normal(10))
    with pytest.raises(ZeroDivisionError):
        with npx.profile() as prof:
            x + x
            1 / 0
    assert prof.duration_ns is not None and _recorder.active is False
    assert kinds_and_names(prof) == [("launch", "aclnnAdd")]
    assert prof.records[0].device_start_ns is not None
    with npx.profile() as again:       # a new profile can start
        x - x
    assert kinds_and_names(again) == [("launch", "aclnnSub")]


def test_a_failed_launch_is_not_recorded_and_profiling_goes_on(rng):
    x = npx.asarray(rng.standard_normal(4))
    with npx.profile() as prof:
        with pytest.raises(TypeError):
            npx.bitwise_and(x, x)       # float64: refused before any launch
        x + x
    assert kinds_and_names(prof) == [("launch", "aclnnAdd")]


def test_one_profile_at_a_time():
    with npx.profile() as first:
        with pytest.raises(RuntimeError, match="already running"):
            with npx.profile():
                pass
        assert _recorder.active     # the first one goes on
    with pytest.raises(RuntimeError, match="runs once"):
        with first:
            pass
    assert _recorder.active is False


def test_capture_gets_host_records_and_replay_gets_device_times(rng):
    host = rng.standard_normal((16, 8))
    stream = npx.Stream()
    with stream:
        x = npx.asarray(host)
        out = npx.zeros((16, 8))
        stream.synchronize()
    graph = npx.Graph()
    with npx.profile() as prof:
        with stream:
            with graph.capture():
                out[...] = npx.exp(x) * 2.0
            graph.replay()
            graph.replay()
    np.testing.assert_allclose(out.to_host(), np.exp(host) * 2.0, rtol=1e-12)
    captured = [r for r in prof.records if r.captured]
    assert {r.name for r in captured} >= {"aclnnExp", "aclnnMuls"}
    assert all(r.device_start_ns is None for r in captured)
    replays = [r for r in prof.records if r.kind == "replay"]
    assert [r.name for r in replays] == ["aclmdlRIExecuteAsync"] * 2
    for r in replays:
        assert r.stream is stream and not r.captured
        assert 0 <= r.device_start_ns <= r.device_end_ns <= prof.duration_ns
    assert replays[0].device_end_ns <= replays[1].device_start_ns
    graph.destroy()


def test_profiles_records_of_every_thread(rng):
    data = [rng.standard_normal((32, 32)) for _ in range(2)]
    results, barrier = {}, threading.Barrier(2)

    def work(index):
        with npx.Stream() as stream:
            x = npx.asarray(data[index])
            barrier.wait()
            for _ in range(10):
                x = npx.sin(x)
            results[index] = (threading.get_native_id(), stream, npx.asnumpy(x))

    with npx.profile() as prof:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for index, (thread, stream, values) in results.items():
        expected = data[index]
        for _ in range(10):
            expected = np.sin(expected)
        np.testing.assert_allclose(values, expected, rtol=1e-12)
        mine = [r for r in prof.records if r.thread == thread]
        assert all(r.stream is stream for r in mine)
        launches = [r for r in mine if r.kind == "launch"]
        assert [r.name for r in launches] == ["aclnnSin"] * 10
        assert all(r.device_start_ns is not None for r in launches)
        assert sum(r.kind == "copy" for r in mine) == 2


def test_other_devices_and_device_to_device_copies(rng):
    if npx.device_count() < 2:
        pytest.skip("needs two devices")
    host = rng.standard_normal(100)
    with npx.profile() as prof:
        with npx.Device(1):
            y = npx.asarray(host) * 3.0
        z = y.to_device(npx.Device(0))
    np.testing.assert_allclose(z.to_host(), host * 3.0)
    muls = [r for r in prof.records if r.name == "aclnnMuls"]
    assert [r.device for r in muls] == [1]
    d2d = [r for r in prof.records if r.name == "ACL_MEMCPY_DEVICE_TO_DEVICE"]
    assert len(d2d) == 1 and d2d[0].nbytes == 800 and d2d[0].device == 0


def test_timing_events_are_pooled(rng):
    x = npx.asarray(rng.standard_normal(8))

    def run():
        with npx.profile():
            for _ in range(4):
                x + x
        return len(_recorder._pools[0])

    first = run()
    assert first >= 4 + 2  # one per launch, a baseline and the anchor, returned at the end
    assert run() == first  # the second profile reused them all


def test_not_profiling_is_one_flag_check(monkeypatch, rng):
    def fail(*args, **kwargs):
        raise AssertionError("a profiler hook ran while no profile was active")
    for name in ("begin_launch", "begin_copy", "begin_stream_work", "begin_host", "end"):
        monkeypatch.setattr(_recorder, name, fail)
    x = npx.asarray(rng.standard_normal((8, 8)))
    stream = npx.Stream()
    with stream:
        y = x + x * 2.0
        npx.asnumpy(npx.sum(y))
        event = npx.Event().record()
        npx.default_stream().wait_event(event)
        event.synchronize()
        stream.synchronize()
        graph = npx.Graph()
        with graph.capture():
            y = y + 1.0
        graph.replay()
        np.testing.assert_allclose(y.to_host(), x.to_host() * 3.0 + 1.0)
    graph.destroy()
    assert _recorder.active is False and _recorder._profile is None


FORK_CODE = textwrap.dedent("""
    import os
    import numpy as np
    import npuarray as npx
    x = npx.asarray(np.arange(10.0))
    with npx.profile() as prof:
        y = x + x
        pid = os.fork()
        if pid == 0:
            try:
                x * x                      # the child cannot use the device
            except RuntimeError:
                pass
    if pid == 0:
        os._exit(0 if prof.duration_ns is not None else 5)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status))
    print("parent", [(r.name, r.device_start_ns is not None) for r in prof.records])
""")


def test_fork_inside_a_profile_does_not_crash(run_python):
    result = run_python(FORK_CODE)
    assert result.returncode == 0, result.stderr
    assert "child 0" in result.stdout
    assert "parent [('aclnnAdd', True)]" in result.stdout


RESET_CODE = textwrap.dedent("""
    import numpy as np
    import npuarray as npx
    from npuarray._acl import lib
    x = npx.asarray(np.arange(10.0))
    with npx.profile() as prof:
        y = x + x
        print("reset", lib.aclrtResetDevice(0))
    print("records", [(r.name, r.device_start_ns) for r in prof.records])
    print(prof.summary())
""")


def test_device_reset_inside_a_profile_keeps_host_records(run_python):
    result = run_python(RESET_CODE)
    assert result.returncode == 0, result.stderr
    assert "reset 0" in result.stdout
    assert "records [('aclnnAdd', None)]" in result.stdout
    assert "aclnnAdd" in result.stdout.split("records")[1]


def test_a_stale_pooled_event_is_replaced(rng):
    """A pooled event whose handle died (as after aclrtResetDevice) is dropped, not used."""
    from npuarray._acl import lib
    x = npx.asarray(rng.standard_normal(8))
    with npx.profile():
        x + x
    stale = _recorder.take_event(0)
    assert lib.aclrtDestroyEvent(stale) == 0
    _recorder._pools[0].append(stale)
    with npx.profile() as prof:
        y = x * x
    np.testing.assert_array_equal(y.to_host(), x.to_host() ** 2)
    assert kinds_and_names(prof) == [("launch", "aclnnMul")]
    assert prof.records[0].device_start_ns is not None


def test_a_stream_joining_a_capture_and_a_profile_ending_inside_one(rng):
    host = rng.standard_normal(8)
    x = npx.asarray(host)
    s1, s2 = npx.Stream(), npx.Stream()
    graph = npx.Graph()
    with npx.profile() as prof:
        with s1:
            with graph.capture():
                a = x + 1.0
                s2.wait_event(s1.record())       # s2 joins the capture here
                with s2:
                    b = a * 2.0
                s1.wait_event(s2.record())       # and rejoins s1 before the end
                c = a + b
        graph.replay(s1)
        s1.synchronize()
    np.testing.assert_allclose(c.to_host(), 3 * (host + 1.0))
    joined = [r for r in prof.records if r.stream is s2]
    assert joined and all(r.captured and r.device_start_ns is None for r in joined)
    replay, = [r for r in prof.records if r.kind == "replay"]
    assert replay.device_start_ns is not None
    inner_graph = npx.Graph()
    with s1:
        with inner_graph.capture():
            with npx.profile() as inner:         # begins and ends inside a capture
                d = x - 1.0
        inner_graph.replay()
        np.testing.assert_allclose(d.to_host(), host - 1.0)
    assert kinds_and_names(inner) == [("launch", "aclnnSubs")]
    assert inner.records[0].captured and inner.records[0].device_start_ns is None
    graph.destroy()
    inner_graph.destroy()


def test_two_threads_starting_profiles_at_once_get_one_profile():
    barrier, outcomes = threading.Barrier(2), []
    release = threading.Event()

    def start():
        barrier.wait()
        try:
            with npx.profile():
                outcomes.append("ran")
                release.wait(30)
        except RuntimeError as exc:
            outcomes.append(str(exc))
            release.set()

    threads = [threading.Thread(target=start) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(o if o == "ran" else "refused" for o in outcomes) == ["ran", "refused"]
    assert any("already running" in o for o in outcomes)
    assert _recorder.active is False


def test_device_synchronize_and_memset_are_recorded():
    memory = npx.DeviceMemory(1000)
    with npx.profile() as prof:
        memory.memset(7)                 # default stream: aclrtMemsetAsync, then a synchronisation
        npx.synchronize()                # aclrtSynchronizeDevice
    assert kinds_and_names(prof) == [
        ("memset", "aclrtMemsetAsync"),
        ("synchronize", "aclrtSynchronizeStream"),
        ("synchronize", "aclrtSynchronizeDevice"),
    ]
    memset, _, device_sync = prof.records
    assert memset.nbytes == 1000 and memset.device_duration_ns >= 0
    assert device_sync.device == 0 and device_sync.stream is None
    assert np.all(memory.copy_to_host() == 7)
