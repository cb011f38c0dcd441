"""Black-box acceptance of graph capture: npusim's aclmdlRI ABI and npuarray.Graph.

Written from docs/acl-abi.md sections 3.2, 4 and 5, the vendor's
cross-stream capture sample (seed 003), not from the implementation. The ABI
tests drive the raw binding (every call returns the ACL code, compared exactly); each runs
on a fresh thread because raw aclrtSetDevice calls change that thread's ACL state, and
captures a failing test leaves open are ended so later tests are not judged under them.
The npuarray.Graph tests use the public API; the C programs tests/npusim/c/acc_cap_*.c[pp] check
the headers (C and C++) and run concurrent captures under ASan and TSan.
"""
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray._acl import ffi, lib

SUCCESS = 0
PARAM_INVALID = 107000
CAPTURE_DEPENDENCY = 107024
STREAM_UNJOINED = 107025
MODEL_CAPTURED = 107026
STREAM_CAPTURED = 107027
EVENT_CAPTURED = 107028
STREAM_NOT_CAPTURED = 107029
CAPTURE_MODE_NOT_SUPPORT = 107030
STREAM_CAPTURE_IMPLICIT = 107031
STREAM_CAPTURE_CONFLICT = 107032
STREAM_CAPTURE_UNMATCHED = 107036
STREAM_CAPTURE_WRONG_THREAD = 107038
CAPTURE_MODE_BLOCK_ASYNC = 107041

GLOBAL, THREAD_LOCAL, RELAXED = 0, 1, 2
NONE, ACTIVE, INVALIDATED = 0, 1, 2
H2D, D2H, D2D = 1, 2, 3
ACL_FLOAT = 0
ACL_EVENT_SYNC = 1


# --------------------------------------------------------------------------- helpers

def ok(ret, what="acl call"):
    assert ret == SUCCESS, f"{what} returned {ret}"


def on_fresh_thread(fn, *args):
    """Runs fn(*args) on a new thread with device 0 set; re-raises its exception."""
    result = {}

    def target():
        try:
            ok(lib.aclrtSetDevice(0), "aclrtSetDevice")
            result["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001  handed to the test thread
            result["error"] = exc
        finally:
            end_leftover_captures()

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "test body hung"
    if "error" in result:
        raise result["error"]
    return result.get("value")


_streams = []


def end_leftover_captures():
    """Ends captures a failed test left open (so later tests are not judged under them)."""
    while _streams:
        s = _streams.pop()
        status = ffi.new("aclmdlRICaptureStatus *")
        model = ffi.new("aclmdlRI *")
        if lib.aclmdlRICaptureGetInfo(s, status, model) == SUCCESS and status[0] != NONE:
            if lib.aclmdlRICaptureEnd(s, model) == SUCCESS:
                lib.aclmdlRIDestroy(model[0])


def in_thread(fn, *args):
    """Result of fn(*args) on another thread with device 0 set."""
    box = {}

    def target():
        ok(lib.aclrtSetDevice(0), "aclrtSetDevice")
        box["value"] = fn(*args)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(30)
    assert not thread.is_alive()
    return box["value"]


def stream():
    out = ffi.new("aclrtStream *")
    ok(lib.aclrtCreateStream(out), "aclrtCreateStream")
    _streams.append(out[0])
    return out[0]


def event():
    out = ffi.new("aclrtEvent *")
    ok(lib.aclrtCreateEventExWithFlag(out, ACL_EVENT_SYNC), "aclrtCreateEventExWithFlag")
    return out[0]


def dev_malloc(nbytes):
    out = ffi.new("void **")
    ok(lib.aclrtMalloc(out, nbytes, 0), "aclrtMalloc")
    return out[0]


def host_malloc(nbytes):
    out = ffi.new("void **")
    ok(lib.aclrtMallocHost(out, nbytes), "aclrtMallocHost")
    return out[0]


def host_view(ptr, n, dtype=np.float32):
    return np.frombuffer(ffi.buffer(ptr, n * np.dtype(dtype).itemsize), dtype=dtype)


def put(dev, values):
    values = np.ascontiguousarray(values)
    ok(lib.aclrtMemcpy(dev, values.nbytes, ffi.from_buffer(values), values.nbytes, H2D), "aclrtMemcpy")


def get(dev, n, dtype=np.float32):
    out = np.empty(n, dtype)
    ok(lib.aclrtMemcpy(ffi.from_buffer(out), out.nbytes, dev, out.nbytes, D2H), "aclrtMemcpy")
    return out


def begin(s, mode=GLOBAL):
    ok(lib.aclmdlRICaptureBegin(s, mode), "aclmdlRICaptureBegin")


def end(s):
    model = ffi.new("aclmdlRI *")
    ok(lib.aclmdlRICaptureEnd(s, model), "aclmdlRICaptureEnd")
    return model[0]


def end_code(s):
    model = ffi.new("aclmdlRI *")
    return lib.aclmdlRICaptureEnd(s, model), model[0]


def capture_info(s):
    status = ffi.new("aclmdlRICaptureStatus *")
    model = ffi.new("aclmdlRI *")
    ok(lib.aclmdlRICaptureGetInfo(s, status, model), "aclmdlRICaptureGetInfo")
    return status[0], model[0]


def exchange(mode):
    box = ffi.new("aclmdlRICaptureMode *", mode)
    ok(lib.aclmdlRICaptureThreadExchangeMode(box), "aclmdlRICaptureThreadExchangeMode")
    return box[0]


def join(src, dst):
    """record on src, wait on dst."""
    e = event()
    ok(lib.aclrtRecordEvent(e, src), "aclrtRecordEvent")
    ok(lib.aclrtStreamWaitEvent(dst, e), "aclrtStreamWaitEvent")
    return e


class Adder:
    """aclnnAdd out = self + alpha * other on float32 vectors of n (seed 003's call sequence)."""

    def __init__(self, self_d, other_d, out_d, n, alpha):
        shape = ffi.new("int64_t[1]", [n])
        strides = ffi.new("int64_t[1]", [1])
        self.tensors = [lib.aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, 2, shape, 1, p)
                        for p in (self_d, other_d, out_d)]
        self._alpha = ffi.new("float *", alpha)
        self.alpha = lib.aclCreateScalar(self._alpha, ACL_FLOAT)
        size = ffi.new("uint64_t *")
        executor = ffi.new("aclOpExecutor **")
        ok(lib.aclnnAddGetWorkspaceSize(self.tensors[0], self.tensors[1], self.alpha, self.tensors[2],
                                        size, executor), "aclnnAddGetWorkspaceSize")
        self.size, self.executor = size[0], executor[0]
        self.workspace = dev_malloc(self.size) if self.size else ffi.NULL

    def launch(self, s):
        ok(lib.aclnnAdd(self.workspace, self.size, self.executor, s), "aclnnAdd")


def memset_async(dev, nbytes, value, s):
    ok(lib.aclrtMemsetAsync(dev, nbytes, value, nbytes, s), "aclrtMemsetAsync")


def sync(s):
    ok(lib.aclrtSynchronizeStream(s), "aclrtSynchronizeStream")


# --------------------------------------------------------------------------- Begin / End rules

def test_begin_on_default_stream_is_implicit_capture_error():
    def body():
        assert lib.aclmdlRICaptureBegin(ffi.NULL, GLOBAL) == STREAM_CAPTURE_IMPLICIT
        assert lib.aclmdlRICaptureBegin(ffi.NULL, RELAXED) == STREAM_CAPTURE_IMPLICIT
    on_fresh_thread(body)


def test_begin_twice_then_end_still_works():
    def body():
        s = stream()
        begin(s)
        assert lib.aclmdlRICaptureBegin(s, GLOBAL) == STREAM_CAPTURED
        assert capture_info(s)[0] == ACTIVE
        ok(lib.aclmdlRIDestroy(end(s)))
    on_fresh_thread(body)


def test_end_on_stream_not_capturing():
    def body():
        s = stream()
        assert end_code(s)[0] == STREAM_NOT_CAPTURED
        begin(s)
        ok(lib.aclmdlRIDestroy(end(s)))
        assert end_code(s)[0] == STREAM_NOT_CAPTURED
    on_fresh_thread(body)


def test_end_on_joined_stream_that_did_not_begin():
    def body():
        origin, side = stream(), stream()
        begin(origin)
        join(origin, side)
        assert capture_info(side)[0] == ACTIVE
        assert end_code(side)[0] == STREAM_CAPTURE_UNMATCHED
        join(side, origin)
        ok(lib.aclmdlRIDestroy(end(origin)))
    on_fresh_thread(body)


@pytest.mark.parametrize("mode,expected", [(GLOBAL, STREAM_CAPTURE_WRONG_THREAD),
                                           (THREAD_LOCAL, STREAM_CAPTURE_WRONG_THREAD),
                                           (RELAXED, SUCCESS)], ids=["global", "thread_local", "relaxed"])
def test_end_from_another_thread(mode, expected):
    def body():
        s = stream()
        begin(s, mode)
        code, model = in_thread(end_code, s)
        assert code == expected
        assert capture_info(s)[0] == NONE  # a failed End leaves the stream out of capture
        if code == SUCCESS:
            ok(lib.aclmdlRIDestroy(model))
        sync(s)
    on_fresh_thread(body)


def test_capture_get_info_statuses():
    def body():
        s, side = stream(), stream()
        assert capture_info(s)[0] == NONE
        begin(s)
        status, model = capture_info(s)
        assert status == ACTIVE and model != ffi.NULL
        join(s, side)
        side_status, side_model = capture_info(side)
        assert side_status == ACTIVE and side_model == model
        join(side, s)
        final = end(s)
        assert capture_info(s)[0] == NONE
        assert capture_info(side)[0] == NONE
        ok(lib.aclmdlRIDestroy(final))
    on_fresh_thread(body)


# --------------------------------------------------------------------------- cross-stream rules

def test_unjoined_side_stream_fails_end_and_leaves_capture():
    def body():
        origin, side = stream(), stream()
        buf = dev_malloc(64)
        begin(origin)
        join(origin, side)
        memset_async(buf, 64, 7, side)
        assert end_code(origin)[0] == STREAM_UNJOINED
        assert capture_info(origin)[0] == NONE
        assert capture_info(side)[0] == NONE
        memset_async(buf, 64, 3, side)  # the side stream runs work eagerly again
        sync(side)
        np.testing.assert_array_equal(get(buf, 64, np.uint8), np.full(64, 3, np.uint8))
        memset_async(buf, 64, 5, origin)
        sync(origin)
        np.testing.assert_array_equal(get(buf, 64, np.uint8), np.full(64, 5, np.uint8))
    on_fresh_thread(body)


def test_side_stream_work_after_rejoin_is_unjoined():
    def body():
        origin, side = stream(), stream()
        buf = dev_malloc(64)
        begin(origin)
        join(origin, side)
        memset_async(buf, 64, 1, side)
        join(side, origin)
        memset_async(buf, 64, 2, side)
        assert end_code(origin)[0] == STREAM_UNJOINED
        assert capture_info(origin)[0] == NONE
    on_fresh_thread(body)


def test_wait_on_event_without_captured_record():
    def body():
        s = stream()
        e = event()
        begin(s)
        wait = lib.aclrtStreamWaitEvent(s, e)
        if wait == SUCCESS:
            code, model = end_code(s)
            assert code == CAPTURE_DEPENDENCY
        else:
            assert wait == CAPTURE_DEPENDENCY
            ok(lib.aclmdlRIDestroy(end(s)))
    on_fresh_thread(body)


def test_event_linking_two_captures_conflicts():
    def body():
        a, b = stream(), stream()
        begin(a)
        begin(b)
        e = event()
        ok(lib.aclrtRecordEvent(e, a))
        assert lib.aclrtStreamWaitEvent(b, e) == STREAM_CAPTURE_CONFLICT
        ok(lib.aclmdlRIDestroy(end(a)))
        ok(lib.aclmdlRIDestroy(end(b)))
    on_fresh_thread(body)


# --------------------------------------------------------------------------- capture modes

def unsafe_calls(dev, pinned):
    """Codes of sync aclrtMemcpy, aclrtMemset and aclrtMemcpy2d on the calling thread."""
    return (lib.aclrtMemcpy(dev, 64, pinned, 64, H2D),
            lib.aclrtMemset(dev, 64, 0, 64),
            lib.aclrtMemcpy2d(dev, 16, pinned, 16, 16, 4, H2D))


@pytest.mark.parametrize("mode,capturing,other", [
    (GLOBAL, CAPTURE_MODE_NOT_SUPPORT, CAPTURE_MODE_NOT_SUPPORT),
    (THREAD_LOCAL, CAPTURE_MODE_NOT_SUPPORT, SUCCESS),
    (RELAXED, SUCCESS, SUCCESS)], ids=["global", "thread_local", "relaxed"])
def test_sync_copies_forbidden_by_mode(mode, capturing, other):
    def body():
        s = stream()
        dev, pinned = dev_malloc(64), host_malloc(64)
        begin(s, mode)
        assert unsafe_calls(dev, pinned) == (capturing,) * 3
        assert in_thread(unsafe_calls, dev, pinned) == (other,) * 3
        ok(lib.aclmdlRIDestroy(end(s)))
        assert unsafe_calls(dev, pinned) == (SUCCESS,) * 3
    on_fresh_thread(body)


def test_exchange_mode_swaps_and_returns_old():
    def body():
        s = stream()
        dev, pinned = dev_malloc(64), host_malloc(64)
        begin(s, GLOBAL)
        assert exchange(RELAXED) == GLOBAL
        assert unsafe_calls(dev, pinned) == (SUCCESS,) * 3
        assert exchange(GLOBAL) == RELAXED
        assert unsafe_calls(dev, pinned) == (CAPTURE_MODE_NOT_SUPPORT,) * 3

        def other_thread_relaxed():
            old = exchange(RELAXED)
            codes = unsafe_calls(dev, pinned)
            exchange(old)
            return old, codes
        assert in_thread(other_thread_relaxed) == (GLOBAL, (SUCCESS,) * 3)
        ok(lib.aclmdlRIDestroy(end(s)))
    on_fresh_thread(body)


def test_pageable_async_copy_into_capture_is_rejected():
    def body():
        s = stream()
        dev = dev_malloc(64)
        pageable = np.ones(16, np.float32)
        begin(s, GLOBAL)
        code = lib.aclrtMemcpyAsync(dev, 64, ffi.from_buffer(pageable), 64, H2D, s)
        assert code == PARAM_INVALID
        ok(lib.aclmdlRIDestroy(end(s)))
    on_fresh_thread(body)


# --------------------------------------------------------------------------- sync during capture

def test_stream_sync_query_destroy_on_capturing_stream():
    def body():
        s = stream()
        begin(s, RELAXED)
        status = ffi.new("aclrtStreamStatus *")
        assert lib.aclrtSynchronizeStream(s) == STREAM_CAPTURED
        assert lib.aclrtStreamQuery(s, status) == STREAM_CAPTURED
        assert lib.aclrtSynchronizeDevice() == STREAM_CAPTURED
        assert lib.aclrtDestroyStream(s) == STREAM_CAPTURED
        assert capture_info(s)[0] == ACTIVE
        ok(lib.aclmdlRIDestroy(end(s)))
        sync(s)
        ok(lib.aclrtSynchronizeDevice(), "aclrtSynchronizeDevice")
    on_fresh_thread(body)


def test_captured_event_cannot_be_synchronized_or_queried():
    def body():
        s = stream()
        e1, e2 = event(), event()
        begin(s, RELAXED)
        ok(lib.aclrtRecordEvent(e1, s))
        ok(lib.aclrtRecordEvent(e2, s))
        recorded = ffi.new("aclrtEventRecordedStatus *")
        ms = ffi.new("float *")
        assert lib.aclrtSynchronizeEvent(e1) == EVENT_CAPTURED
        assert lib.aclrtQueryEventStatus(e1, recorded) == EVENT_CAPTURED
        assert lib.aclrtEventElapsedTime(ms, e1, e2) == EVENT_CAPTURED
        ok(lib.aclmdlRIDestroy(end(s)))
    on_fresh_thread(body)


def test_execute_and_destroy_of_model_being_captured():
    def body():
        s, other = stream(), stream()
        begin(s)
        model = capture_info(s)[1]
        assert lib.aclmdlRIExecuteAsync(model, other) == MODEL_CAPTURED
        assert lib.aclmdlRIDestroy(model) == MODEL_CAPTURED
        final = end(s)
        ok(lib.aclmdlRIExecuteAsync(final, other))
        sync(other)
        ok(lib.aclmdlRIDestroy(final))
    on_fresh_thread(body)


# --------------------------------------------------------------------------- replay with data

def test_seed003_cross_stream_replay_grows():
    """Seed 003 in Python: H2D, relaxed sync copy, aclnnAdd on a joined stream, D2H; 8 replays."""
    def body():
        n = 8
        self_d, other_d, out_d = dev_malloc(4 * n), dev_malloc(4 * n), dev_malloc(4 * n)
        adder = Adder(self_d, other_d, out_d, n, 1.1)
        self_h, other_h = host_malloc(4 * n), host_malloc(4 * n)
        host_view(self_h, n)[:] = 0
        host_view(other_h, n)[:] = 1
        s1, s2 = stream(), stream()
        e1, e2 = event(), event()
        begin(s1, GLOBAL)
        ok(lib.aclrtMemcpyAsync(self_d, 4 * n, self_h, 4 * n, H2D, s1))
        mode = exchange(RELAXED)
        ok(lib.aclrtMemcpy(other_d, 4 * n, other_h, 4 * n, H2D))
        exchange(mode)
        ok(lib.aclrtRecordEvent(e1, s1))
        ok(lib.aclrtStreamWaitEvent(s2, e1))
        adder.launch(s2)
        ok(lib.aclrtRecordEvent(e2, s2))
        ok(lib.aclrtStreamWaitEvent(s1, e2))
        ok(lib.aclrtMemcpyAsync(self_h, 4 * n, out_d, 4 * n, D2H, s1))
        model = end(s1)
        assert host_view(self_h, n).tolist() == [0.0] * n  # nothing ran while capturing
        expected = np.zeros(n, np.float32)
        for _ in range(8):
            ok(lib.aclmdlRIExecuteAsync(model, s1))
            sync(s1)
            expected = expected + np.float32(1.1) * np.float32(1)
            np.testing.assert_allclose(host_view(self_h, n), expected, rtol=1e-6)
        streams = ffi.new("aclrtStream[4]")
        count = ffi.new("uint32_t *", 4)
        ok(lib.aclmdlRIGetStreams(model, streams, count), "aclmdlRIGetStreams")
        assert count[0] == 2 and {streams[0], streams[1]} == {s1, s2}
        ok(lib.aclmdlRIDebugPrint(model), "aclmdlRIDebugPrint")
        ok(lib.aclmdlRIDestroy(model))
    on_fresh_thread(body)


def test_replay_memset_and_host_function_each_time():
    def body():
        n = 32
        s = stream()
        buf = dev_malloc(n)
        calls = []
        put(buf, np.zeros(n, np.uint8))

        @ffi.callback("void(void *)")
        def host_fn(arg):
            calls.append(int(ffi.cast("intptr_t", arg)))

        begin(s)
        memset_async(buf, n, 0x5A, s)
        ok(lib.aclrtLaunchHostFunc(s, host_fn, ffi.cast("void *", 17)), "aclrtLaunchHostFunc")
        model = end(s)
        assert calls == []
        np.testing.assert_array_equal(get(buf, n, np.uint8), np.zeros(n, np.uint8))  # not run yet
        for k in range(1, 5):
            put(buf, np.zeros(n, np.uint8))
            ok(lib.aclmdlRIExecuteAsync(model, s))
            sync(s)
            np.testing.assert_array_equal(get(buf, n, np.uint8), np.full(n, 0x5A, np.uint8))
            assert calls == [17] * k
        ok(lib.aclmdlRIDestroy(model))
    on_fresh_thread(body)


def test_replay_on_another_stream_in_its_order():
    """A D2D copy a->b captured on a side stream, replayed on s2 between s2's own uploads and
    downloads: the side-stream part must wait for s2's earlier work and s2's later work for it."""
    def body():
        n = 1 << 18
        s1, side, s2 = stream(), stream(), stream()
        a, b = dev_malloc(4 * n), dev_malloc(4 * n)
        begin(s1)
        join(s1, side)
        ok(lib.aclrtMemcpyAsync(b, 4 * n, a, 4 * n, D2D, side))
        join(side, s1)
        model = end(s1)
        rng = np.random.default_rng(4)
        values = [rng.standard_normal(n).astype(np.float32) for _ in range(3)]
        ups = [host_malloc(4 * n) for _ in values]
        downs = [host_malloc(4 * n) for _ in values]
        for up, down, v in zip(ups, downs, values):
            host_view(up, n)[:] = v
            ok(lib.aclrtMemcpyAsync(a, 4 * n, up, 4 * n, H2D, s2))
            ok(lib.aclmdlRIExecuteAsync(model, s2))
            ok(lib.aclrtMemcpyAsync(down, 4 * n, b, 4 * n, D2H, s2))
        sync(s2)
        for down, v in zip(downs, values):
            np.testing.assert_array_equal(host_view(down, n), v)
        ok(lib.aclmdlRIDestroy(model))
    on_fresh_thread(body)


def test_independent_branches_and_buffer_reuse_after_destroy():
    def body():
        n = 1000
        origin, left, right = stream(), stream(), stream()
        x, y, p, q = (dev_malloc(4 * n) for _ in range(4))
        xs = np.linspace(-3, 3, n, dtype=np.float32)
        ys = np.arange(n, dtype=np.float32)
        put(x, xs)
        put(y, ys)
        add_p = Adder(x, y, p, n, 2.0)
        add_q = Adder(y, x, q, n, -0.5)
        begin(origin)
        join(origin, left)
        join(origin, right)
        add_p.launch(left)
        add_q.launch(right)
        join(left, origin)
        join(right, origin)
        model = end(origin)
        for _ in range(3):
            memset_async(p, 4 * n, 0, origin)
            memset_async(q, 4 * n, 0, origin)
            ok(lib.aclmdlRIExecuteAsync(model, origin))
            sync(origin)
            np.testing.assert_allclose(get(p, n), xs + np.float32(2.0) * ys, rtol=1e-6)
            np.testing.assert_allclose(get(q, n), ys - np.float32(0.5) * xs, rtol=1e-6)
        ok(lib.aclmdlRIDestroy(model))
        for ptr in (x, y, p, q):
            ok(lib.aclrtFree(ptr), "aclrtFree")
        fresh = dev_malloc(4 * n)
        memset_async(fresh, 4 * n, 0, left)
        sync(left)
        np.testing.assert_array_equal(get(fresh, n), np.zeros(n, np.float32))
        begin(origin)  # the origin stream can capture again
        ok(lib.aclmdlRIDestroy(end(origin)))
    on_fresh_thread(body)


# --------------------------------------------------------------------------- more rules

def test_pageable_async_copy_on_other_stream_under_global_is_block_async():
    def body():
        s, other = stream(), stream()
        dev = dev_malloc(64)
        pageable = np.ones(16, np.float32)
        begin(s, GLOBAL)
        code = lib.aclrtMemcpyAsync(dev, 64, ffi.from_buffer(pageable), 64, H2D, other)
        assert code == CAPTURE_MODE_BLOCK_ASYNC
        ok(lib.aclmdlRIDestroy(end(s)))
    on_fresh_thread(body)


def test_other_event_queries_on_captured_event():
    def body():
        s = stream()
        e = event()
        begin(s, RELAXED)
        ok(lib.aclrtRecordEvent(e, s))
        status = ffi.new("aclrtEventStatus *")
        wait_status = ffi.new("aclrtEventWaitStatus *")
        assert lib.aclrtQueryEvent(e, status) == EVENT_CAPTURED
        assert lib.aclrtQueryEventWaitStatus(e, wait_status) == EVENT_CAPTURED
        ok(lib.aclmdlRIDestroy(end(s)))
    on_fresh_thread(body)


def test_synchronize_device_from_another_thread_while_capturing():
    def body():
        s = stream()
        begin(s, RELAXED)
        assert in_thread(lib.aclrtSynchronizeDevice) == STREAM_CAPTURED
        ok(lib.aclmdlRIDestroy(end(s)))
        assert in_thread(lib.aclrtSynchronizeDevice) == SUCCESS
    on_fresh_thread(body)


def test_non_capturing_thread_in_thread_local_mode_may_copy_under_global_capture():
    """Two threads capture at once (GLOBAL and THREAD_LOCAL); a third switches to THREAD_LOCAL."""
    def body():
        s1, s2 = stream(), stream()
        dev, pinned = dev_malloc(64), host_malloc(64)
        begin(s1, GLOBAL)
        started, release = threading.Event(), threading.Event()
        box = {}

        def second_capture():
            ok(lib.aclrtSetDevice(0))
            box["begin"] = lib.aclmdlRICaptureBegin(s2, THREAD_LOCAL)
            box["own"] = unsafe_calls(dev, pinned)
            started.set()
            release.wait(10)
            box["end"] = end_code(s2)

        thread = threading.Thread(target=second_capture)
        thread.start()
        started.wait(10)

        def third():
            old = exchange(THREAD_LOCAL)
            codes = unsafe_calls(dev, pinned)
            exchange(old)
            return codes, unsafe_calls(dev, pinned)
        allowed, refused = in_thread(third)
        release.set()
        thread.join(10)
        assert box["begin"] == SUCCESS
        assert box["own"] == (CAPTURE_MODE_NOT_SUPPORT,) * 3
        assert allowed == (SUCCESS,) * 3
        assert refused == (CAPTURE_MODE_NOT_SUPPORT,) * 3
        assert box["end"][0] == SUCCESS
        ok(lib.aclmdlRIDestroy(box["end"][1]))
        ok(lib.aclmdlRIDestroy(end(s1)))
    on_fresh_thread(body)


def test_transitive_join_replays_chain():
    """s1 -> s2 -> s3 (seed 003 text): s3 rejoins s2, s2 rejoins s1; replay computes the chain."""
    def body():
        n = 64
        s1, s2, s3 = stream(), stream(), stream()
        a, b, c = dev_malloc(4 * n), dev_malloc(4 * n), dev_malloc(4 * n)
        xs = np.arange(n, dtype=np.float32)
        put(a, xs)
        step_b = Adder(a, a, b, n, 1.0)   # b = 2a
        step_c = Adder(b, a, c, n, 3.0)   # c = b + 3a
        step_a = Adder(c, b, a, n, -1.0)  # a = c - b
        begin(s1)
        join(s1, s2)
        step_b.launch(s2)
        join(s2, s3)
        step_c.launch(s3)
        assert capture_info(s3)[0] == ACTIVE
        join(s3, s2)
        join(s2, s1)
        step_a.launch(s1)
        model = end(s1)
        np.testing.assert_array_equal(get(a, n), xs)
        expected = xs.copy()
        for _ in range(3):
            ok(lib.aclmdlRIExecuteAsync(model, s1))
            sync(s1)
            eb = expected + expected
            ec = eb + np.float32(3.0) * expected
            expected = ec - eb
            np.testing.assert_allclose(get(a, n), expected, rtol=1e-6)
        streams = ffi.new("aclrtStream[3]")
        count = ffi.new("uint32_t *", 3)
        ok(lib.aclmdlRIGetStreams(model, streams, count))
        assert count[0] == 3 and set(streams[0:3]) == {s1, s2, s3}
        ok(lib.aclmdlRIDestroy(model))
    on_fresh_thread(body)


def test_destroy_right_after_launch_lets_replay_finish():
    def body():
        n = 1 << 16
        s = stream()
        src, dst = dev_malloc(4 * n), dev_malloc(4 * n)
        values = np.random.default_rng(7).standard_normal(n).astype(np.float32)
        put(src, values)
        begin(s)
        ok(lib.aclrtMemcpyAsync(dst, 4 * n, src, 4 * n, D2D, s))
        model = end(s)
        ok(lib.aclmdlRIExecuteAsync(model, s))
        ok(lib.aclmdlRIDestroy(model))
        sync(s)
        np.testing.assert_array_equal(get(dst, n), values)
    on_fresh_thread(body)


def test_wait_on_event_recorded_before_capture():
    def body():
        s, other = stream(), stream()
        e = event()
        ok(lib.aclrtRecordEvent(e, other))
        sync(other)
        begin(s)
        wait = lib.aclrtStreamWaitEvent(s, e)
        code = wait if wait != SUCCESS else end_code(s)[0]
        assert code == CAPTURE_DEPENDENCY
    on_fresh_thread(body)


def test_joined_side_stream_is_capturing_for_sync_rules():
    def body():
        origin, side, unrelated = stream(), stream(), stream()
        begin(origin, RELAXED)
        join(origin, side)
        status = ffi.new("aclrtStreamStatus *")
        assert lib.aclrtStreamQuery(side, status) == STREAM_CAPTURED
        assert lib.aclrtSynchronizeStream(side) == STREAM_CAPTURED
        assert lib.aclrtDestroyStream(side) == STREAM_CAPTURED
        assert lib.aclmdlRICaptureBegin(side, GLOBAL) == STREAM_CAPTURED
        ok(lib.aclrtSynchronizeStream(unrelated))
        join(side, origin)
        ok(lib.aclmdlRIDestroy(end(origin)))
        sync(side)
    on_fresh_thread(body)


def test_failed_capture_runs_nothing_and_frees_its_events():
    def body():
        origin, side = stream(), stream()
        buf = dev_malloc(64)
        put(buf, np.zeros(64, np.uint8))
        begin(origin)
        fork = join(origin, side)
        memset_async(buf, 64, 7, side)
        last = event()
        ok(lib.aclrtRecordEvent(last, side))
        assert end_code(origin)[0] == STREAM_UNJOINED
        sync(side)
        sync(origin)
        np.testing.assert_array_equal(get(buf, 64, np.uint8), np.zeros(64, np.uint8))
        assert lib.aclrtSynchronizeEvent(fork) == SUCCESS
        assert lib.aclrtSynchronizeEvent(last) == SUCCESS
    on_fresh_thread(body)


def test_invalid_arguments():
    def body():
        s = stream()
        assert lib.aclmdlRICaptureBegin(s, 7) == 100000
        assert capture_info(s)[0] == NONE
        begin(s)
        assert lib.aclmdlRICaptureEnd(s, ffi.NULL) == 100000
        assert lib.aclmdlRICaptureThreadExchangeMode(ffi.NULL) == 100000
        bad = ffi.new("aclmdlRICaptureMode *", 5)
        assert lib.aclmdlRICaptureThreadExchangeMode(bad) == 100000
        model = end(s)
        ok(lib.aclmdlRIDestroy(model))
        assert lib.aclmdlRIDestroy(model) != SUCCESS  # a destroyed model is refused, no crash
        assert lib.aclmdlRIExecuteAsync(ffi.NULL, s) == 100000
    on_fresh_thread(body)


def test_queued_replays_of_cross_stream_model_keep_order():
    """200 replays queued without synchronising: each sees the previous one's results."""
    def body():
        n = 4096
        origin, left, right = stream(), stream(), stream()
        x, y, one = dev_malloc(4 * n), dev_malloc(4 * n), dev_malloc(4 * n)
        put(one, np.ones(n, np.float32))
        put(x, np.zeros(n, np.float32))
        put(y, np.zeros(n, np.float32))
        inc_x = Adder(x, one, x, n, 1.0)   # x += 1
        acc_y = Adder(y, x, y, n, 1.0)     # y += x
        begin(origin)
        join(origin, left)
        inc_x.launch(left)
        join(left, right)
        acc_y.launch(right)
        join(right, origin)
        model = end(origin)
        for _ in range(200):
            ok(lib.aclmdlRIExecuteAsync(model, origin))
        sync(origin)
        np.testing.assert_array_equal(get(x, n), np.full(n, 200, np.float32))
        np.testing.assert_array_equal(get(y, n), np.full(n, 200 * 201 / 2, np.float32))
        ok(lib.aclmdlRIDestroy(model))
    on_fresh_thread(body)


def test_memcpy2d_async_and_side_stream_host_function_replay():
    def body():
        s, side = stream(), stream()
        a, b = dev_malloc(64), dev_malloc(64)
        put(a, np.arange(16, dtype=np.float32))
        calls = []

        @ffi.callback("void(void *)")
        def host_fn(_):
            calls.append(1)

        begin(s)
        ok(lib.aclrtMemcpy2dAsync(b, 16, a, 32, 16, 2, D2D, s), "aclrtMemcpy2dAsync")
        join(s, side)
        ok(lib.aclrtLaunchHostFunc(side, host_fn, ffi.NULL))
        join(side, s)
        model = end(s)
        put(b, np.zeros(16, np.float32))
        for _ in range(5):
            ok(lib.aclmdlRIExecuteAsync(model, s))
        sync(s)
        expected = np.zeros(16, np.float32)
        expected[:8] = [0, 1, 2, 3, 8, 9, 10, 11]
        np.testing.assert_array_equal(get(b, 16), expected)
        assert len(calls) == 5
        ok(lib.aclmdlRIDestroy(model))
    on_fresh_thread(body)


def test_model_outlives_its_capture_streams():
    def body():
        origin, side, other = stream(), stream(), stream()
        buf = dev_malloc(64)
        begin(origin)
        join(origin, side)
        memset_async(buf, 64, 9, side)
        join(side, origin)
        model = end(origin)
        _streams.remove(side)
        _streams.remove(origin)
        ok(lib.aclrtDestroyStream(side))
        ok(lib.aclrtDestroyStream(origin))
        put(buf, np.zeros(64, np.uint8))
        ok(lib.aclmdlRIExecuteAsync(model, other))
        sync(other)
        np.testing.assert_array_equal(get(buf, 64, np.uint8), np.full(64, 9, np.uint8))
        ok(lib.aclmdlRIDestroy(model))
    on_fresh_thread(body)


def test_forked_stream_without_work_that_never_rejoins_is_unjoined():
    def body():
        origin, side = stream(), stream()
        buf = dev_malloc(64)
        begin(origin)
        memset_async(buf, 64, 1, origin)
        join(origin, side)            # side joins (its last task is this wait) and never returns
        assert end_code(origin)[0] == STREAM_UNJOINED
    on_fresh_thread(body)


def test_side_stream_record_that_nobody_waits_on_is_unjoined():
    def body():
        origin, side = stream(), stream()
        begin(origin)
        join(origin, side)
        ok(lib.aclrtRecordEvent(event(), side))   # a "free-state" record: no captured wait
        assert end_code(origin)[0] == STREAM_UNJOINED
    on_fresh_thread(body)


def test_events_destroyed_after_end_do_not_affect_replays():
    def body():
        n = 256
        s, side = stream(), stream()
        x, one = dev_malloc(4 * n), dev_malloc(4 * n)
        put(one, np.ones(n, np.float32))
        put(x, np.zeros(n, np.float32))
        inc = Adder(x, one, x, n, 1.0)
        begin(s)
        fork = join(s, side)
        inc.launch(side)
        back = join(side, s)
        model = end(s)
        ok(lib.aclrtDestroyEvent(fork))
        ok(lib.aclrtDestroyEvent(back))
        for ev in [event() for _ in range(4)]:   # new events may reuse the old ones' memory
            ok(lib.aclrtRecordEvent(ev, side))
        for _ in range(5):
            ok(lib.aclmdlRIExecuteAsync(model, s))
        sync(s)
        np.testing.assert_array_equal(get(x, n), np.full(n, 5, np.float32))
        ok(lib.aclmdlRIDestroy(model))
    on_fresh_thread(body)


def test_capture_get_info_with_only_model_out():
    def body():
        s = stream()
        begin(s)
        model = ffi.new("aclmdlRI *")
        assert lib.aclmdlRICaptureGetInfo(s, ffi.NULL, model) == SUCCESS
        assert model[0] != ffi.NULL
        assert lib.aclmdlRICaptureGetInfo(s, ffi.NULL, ffi.NULL) == 100000
        ok(lib.aclmdlRIDestroy(end(s)))
    on_fresh_thread(body)


def test_capture_get_info_on_null_stream_is_invalid_param():
    def body():
        status = ffi.new("aclmdlRICaptureStatus *")
        model = ffi.new("aclmdlRI *")
        assert lib.aclmdlRICaptureGetInfo(ffi.NULL, status, model) == 100000
    on_fresh_thread(body)


# =========================================================================== npuarray.Graph



def test_python_default_stream_capture_is_capture_error():
    g = npx.Graph()
    with pytest.raises(npx.CaptureError) as info:
        with g.capture(stream=npx.default_stream()):
            pass
    assert info.value.code == STREAM_CAPTURE_IMPLICIT
    assert isinstance(info.value, npx.AclError)
    with npx.Stream():  # the graph is still usable on a real stream
        x = npx.asarray(np.arange(4, dtype=np.float32))
        with g.capture():
            y = x + 1
        g.replay()
        np.testing.assert_array_equal(y.to_host(), np.arange(4, dtype=np.float32) + 1)
    g.destroy()


def test_python_replay_n_times_is_n_steps_of_iteration():
    data = np.linspace(-2, 2, 50, dtype=np.float32)
    with npx.Stream():
        x = npx.asarray(data)
        g = npx.Graph()
        with g.capture():
            x[...] = x * np.float32(0.5) + np.float32(1.0)
        np.testing.assert_array_equal(x.to_host(), data)  # captured, not run
        expected = data.copy()
        for _ in range(6):
            g.replay()
            expected = expected * np.float32(0.5) + np.float32(1.0)
        np.testing.assert_allclose(x.to_host(), expected, rtol=1e-6)
        g.destroy()


def test_python_replay_reads_inputs_updated_in_place_on_another_stream():
    rng = np.random.default_rng(11)
    first, second = (rng.standard_normal((8, 16)).astype(np.float32) for _ in range(2))
    with npx.Stream():
        x = npx.asarray(first)
        g = npx.Graph()
        with g.capture(mode="thread_local"):
            y = npx.sum(x * x, axis=1)
        g.replay()
        np.testing.assert_allclose(y.to_host(), (first * first).sum(axis=1), rtol=1e-5)
        x[...] = npx.asarray(second)
    other = npx.Stream()
    g.replay(stream=other)
    with other:
        np.testing.assert_allclose(y.to_host(), (second * second).sum(axis=1), rtol=1e-5)
    g.destroy()
    g.destroy()  # idempotent
    with pytest.raises(ValueError):
        g.replay()


@pytest.mark.parametrize("read", [lambda a: a.to_host(), lambda a: float(a[0])],
                         ids=["to_host", "float"])
def test_python_host_read_inside_capture_keeps_capture_usable(read):
    data = np.arange(6, dtype=np.float32)
    with npx.Stream():
        x = npx.asarray(data)
        g = npx.Graph()
        with g.capture():
            y = x * 3
            with pytest.raises(npx.CaptureError) as info:
                read(y)
            assert isinstance(info.value.code, int) and info.value.code != 0
            z = y + 1
        g.replay()
        np.testing.assert_array_equal(z.to_host(), data * 3 + 1)
        g.destroy()


def test_python_capture_mode_relaxed_block_exchanges_and_restores():
    with npx.Stream():
        g = npx.Graph()
        x = npx.asarray(np.ones(3, np.float32))
        with g.capture():
            with npx.capture_mode("relaxed"):
                assert exchange(RELAXED) == RELAXED  # this thread is relaxed in the block
            assert exchange(GLOBAL) == GLOBAL          # and back to global after it
            y = x + x
        g.replay()
        np.testing.assert_array_equal(y.to_host(), np.full(3, 2, np.float32))
        g.destroy()


def test_python_cross_stream_capture_and_unjoined_error():
    data = np.arange(10, dtype=np.float32)
    main, side = npx.Stream(), npx.Stream()
    with main:
        x = npx.asarray(data)
        main.synchronize()
        g = npx.Graph()
        with g.capture():
            side.wait_event(main.record())
            with side:
                a = x * 2
            main.wait_event(side.record())
            b = a + x
        g.replay()
        np.testing.assert_array_equal(b.to_host(), data * 3)
        g.destroy()

        bad = npx.Graph()
        with pytest.raises(npx.CaptureError) as info:
            with bad.capture():
                side.wait_event(main.record())
                with side:
                    x * 5
        assert info.value.code == STREAM_UNJOINED
    with side:  # the side stream left the capture and runs eagerly again
        np.testing.assert_array_equal((x + 1).to_host(), data + 1)


def _mixed_ops(xp, a, b):
    c = xp.matmul(a, b)
    return (xp.sum(c * c, axis=0), xp.exp(-xp.abs(c[::2, 1:3])), xp.argmax(c, axis=1),
            xp.where(c > 0, c, xp.zeros_like(c)), xp.permute_dims(c, (1, 0)) + 1,
            xp.mean(a, axis=1))


def test_python_mixed_operator_graph_matches_numpy_after_input_updates():
    rng = np.random.default_rng(5)
    a_host = rng.standard_normal((16, 8)).astype(np.float32)
    b_host = rng.standard_normal((8, 4)).astype(np.float32)
    with npx.Stream():
        a, b = npx.asarray(a_host), npx.asarray(b_host)
        g = npx.Graph()
        with g.capture():
            outs = _mixed_ops(npx, a, b)
        for _ in range(3):
            a_host = rng.standard_normal((16, 8)).astype(np.float32)
            a[...] = npx.asarray(a_host)
            g.replay()
            for got, want in zip(outs, _mixed_ops(np, a_host, b_host)):
                np.testing.assert_allclose(got.to_host(), want, rtol=1e-4, atol=1e-5)
        g.debug_print()
        g.destroy()


def test_python_destroy_returns_graph_pool_and_context_manager_destroys():
    with npx.Stream():
        x = npx.asarray(np.ones(1024, np.float32))
        with npx.Graph() as g:
            with g.capture():
                y = x * 2
            pool = g.memory_pool
            assert pool.used_bytes() >= y.nbytes
            g.replay()
        assert not g.is_captured
        with pytest.raises(ValueError):
            g.replay()
        np.testing.assert_array_equal(y.to_host(), np.full(1024, 2, np.float32))  # outputs survive
        del y
        import gc
        gc.collect()
        assert pool.used_bytes() == 0 and pool.total_bytes() == 0


CAPTURE_CODE_NAMES = {
    107024: "ACL_ERROR_RT_CAPTURE_DEPENDENCY", 107025: "ACL_ERROR_RT_STREAM_UNJOINED",
    107026: "ACL_ERROR_RT_MODEL_CAPTURED", 107027: "ACL_ERROR_RT_STREAM_CAPTURED",
    107028: "ACL_ERROR_RT_EVENT_CAPTURED", 107029: "ACL_ERROR_RT_STREAM_NOT_CAPTURED",
    107030: "ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT", 107031: "ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT",
    107032: "ACL_ERROR_STREAM_CAPTURE_CONFLICT", 107036: "ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED",
    107038: "ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD", 107041: "ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC",
    507903: "ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED"}


@pytest.mark.parametrize("code", sorted(CAPTURE_CODE_NAMES))
def test_python_every_capture_code_is_a_named_capture_error(code):
    from npuarray._acl import check
    with pytest.raises(npx.CaptureError) as info:
        check(code, "aclSomething")
    assert info.value.code == code
    text = str(info.value)
    assert CAPTURE_CODE_NAMES[code] in text and str(code) in text and "aclSomething" in text


@pytest.mark.parametrize("other_mode,allowed", [("global", False), ("thread_local", True),
                                                ("relaxed", True)])
def test_python_other_thread_sync_copy_under_global_capture(other_mode, allowed):
    """A GLOBAL capture refuses sync copies on threads in global mode only (capture_mode)."""
    data = np.arange(8, dtype=np.float32)
    x = npx.asarray(data)             # default stream: downloads are synchronous copies
    x.to_host()
    started, finished = threading.Event(), threading.Event()
    errors = []

    def capturer():
        try:
            with npx.Stream():
                g = npx.Graph()
                with g.capture(mode="global"):
                    x * 2
                    started.set()
                    finished.wait(20)
                g.destroy()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
            started.set()

    thread = threading.Thread(target=capturer)
    thread.start()
    try:
        assert started.wait(20)
        with npx.capture_mode(other_mode):
            if allowed:
                np.testing.assert_array_equal(x.to_host(), data)
            else:
                with pytest.raises(npx.CaptureError) as info:
                    x.to_host()
                assert info.value.code == CAPTURE_MODE_NOT_SUPPORT
    finally:
        finished.set()
        thread.join(30)
    assert not errors, errors
    np.testing.assert_array_equal(x.to_host(), data)   # after the capture: allowed again


def test_python_graph_keeps_inputs_alive_and_temporaries_private():
    import gc
    data = np.linspace(0, 1, 1000, dtype=np.float32)
    with npx.Stream():
        x = npx.asarray(data)
        g = npx.Graph()
        with g.capture():
            y = ((x * 2) + 1) * 3   # two temporaries freed inside the capture
        del x
        gc.collect()
        clutter = [npx.full(1000, 99.0, dtype=npx.float32) for _ in range(8)]
        for _ in range(3):
            g.replay()
        np.testing.assert_allclose(y.to_host(), (data * 2 + 1) * 3, rtol=1e-6)
        for c in clutter:
            np.testing.assert_array_equal(c.to_host(), np.full(1000, 99.0, np.float32))
        g.destroy()


def test_python_replay_inside_another_capture_and_errors_name_the_code():
    with npx.Stream():
        x = npx.asarray(np.ones(4, np.float32))
        inner = npx.Graph()
        with inner.capture():
            y = x + 1
        outer = npx.Graph()
        with outer.capture():
            with pytest.raises(npx.CaptureError) as info:
                inner.replay()
            assert info.value.code == STREAM_CAPTURED
            assert "ACL_ERROR_RT_STREAM_CAPTURED" in str(info.value)
            with pytest.raises(npx.CaptureError) as info:
                outer.replay()
            assert info.value.code == MODEL_CAPTURED
            z = x * 4
        outer.replay()
        inner.replay()
        np.testing.assert_array_equal(z.to_host(), np.full(4, 4, np.float32))
        np.testing.assert_array_equal(y.to_host(), np.full(4, 2, np.float32))
        outer.destroy()
        inner.destroy()


def test_python_two_threads_capture_in_different_modes():
    data = np.arange(5, dtype=np.float32)
    results, errors = {}, []
    barrier = threading.Barrier(2, timeout=20)

    def worker(name, mode, factor):
        try:
            with npx.Stream():
                x = npx.asarray(data)
                x.to_host()
                g = npx.Graph()
                barrier.wait()              # uploads done before a GLOBAL capture forbids them
                with g.capture(mode=mode):
                    y = x * factor
                    barrier.wait()          # both captures are active now
                    with pytest.raises(npx.CaptureError):
                        y.to_host()
                    barrier.wait()
                barrier.wait()              # both captures ended
                g.replay()
                results[name] = y.to_host()
                g.destroy()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=("global", "global", 2.0)),
               threading.Thread(target=worker, args=("local", "thread_local", 3.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    np.testing.assert_array_equal(results["global"], data * 2)
    np.testing.assert_array_equal(results["local"], data * 3)



def test_python_block_exception_discards_capture_and_default_stream_replay():
    data = np.arange(4, dtype=np.float32)
    x = npx.asarray(data)
    with npx.Stream():
        g = npx.Graph()
        with g.capture():
            x[...] = x + 1
    g.replay()                     # on this thread's current (default) stream
    g.replay()
    np.testing.assert_array_equal(x.to_host(), data + 2)
    g.destroy()
    side = npx.Stream()
    with npx.Stream() as main:
        g2 = npx.Graph()
        with pytest.raises(KeyError):
            with g2.capture():
                side.wait_event(main.record())
                with side:
                    x * 3          # side never rejoins: the block's own error wins
                raise KeyError("user")
        with g2.capture():         # the graph is empty again and captures anew
            z = x * 2
        g2.replay()
        np.testing.assert_array_equal(z.to_host(), (data + 2) * 2)
        g2.destroy()
    with side:
        np.testing.assert_array_equal((x + 0).to_host(), data + 2)



def test_python_replay_on_other_stream_is_ordered_with_reads_and_writes_elsewhere():
    n = 1 << 20
    data = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    s1, s2 = npx.Stream(), npx.Stream()
    with s1:
        x = npx.asarray(data)
        g = npx.Graph()
        with g.capture():
            y = npx.exp(npx.abs(x) * -2) + x * x
    for k in range(4):
        with s1:
            x[...] = npx.asarray(data + k)      # written on s1
        g.replay(stream=s2)                     # replayed on s2
        with s1:
            got = y.to_host()                   # read on s1
        want = np.exp(np.abs(data + k) * -2) + (data + k) * (data + k)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    g.destroy()


# =========================================================================== C and C++ programs

SANITIZER_ENV = {"tsan": {"TSAN_OPTIONS": "halt_on_error=1 exitcode=66"},
                 "asan": {"ASAN_OPTIONS": "detect_leaks=1 halt_on_error=1"}, "release": {}}


def run_program(source, cxx=False, variant="release"):
    """Builds tests/npusim/c/`source` with tests/cbuild.py, runs it, returns its standard output."""
    import subprocess
    from cbuild import C_PROGRAMS, build_c_program, program_env
    exe = build_c_program(C_PROGRAMS / source, cxx=cxx, variant=variant)
    done = subprocess.run([str(exe)], env=program_env(**SANITIZER_ENV[variant]),
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, f"{source} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.parametrize("source,cxx", [("acc_cap_constants.c", False),
                                        ("acc_cap_constants_cxx.cpp", True)], ids=["c", "cxx"])
def test_headers_names_values_and_signatures(source, cxx):
    assert "acc_cap_constants ok: 0 failure(s)" in run_program(source, cxx=cxx)


@pytest.mark.parametrize("variant", ["release", "asan", "tsan"])
def test_concurrent_cross_stream_captures_under_sanitizers(variant):
    assert "acc_cap_stress ok" in run_program("acc_cap_stress.c", variant=variant)
