"""npusim's stream race detector through npuarray: seeded races on raw DeviceMemory are found
(with both operations and the Python lines that issued them), the same patterns with
NPUArrays (which npuarray orders itself) are not, warn mode turns reports into RaceWarnings,
and racecheck() refuses to run on CANN."""
import threading
import warnings

import numpy as np
import pytest

import npuarray as npx
from npuarray._acl import check, ffi, lib
from npuarray.runtime import _racecheck

N = 4096


@pytest.fixture
def rng():
    return np.random.default_rng()


class Gated:
    """A stream held by a host function until release(): nothing queued on it finishes, so
    no query or synchronisation can order it (the seeded races stay races)."""

    def __init__(self):
        self.gate = threading.Event()
        self.stream = npx.Stream()
        self.stream.launch_host_func(lambda: self.gate.wait(30))

    def release(self):
        """Lets the stream run and waits for it (before the memory its work uses is freed)."""
        self.gate.set()
        self.stream.synchronize()


@pytest.fixture
def gated():
    held = Gated()
    yield held
    held.release()


def _pinned(rng):
    host = npx.empty_pinned(N, np.float32)
    host[...] = rng.random(N, dtype=np.float32)
    return host


def _line(marker):
    """'test_racecheck.py:<line>' of the line of this file ending with `# <marker>`."""
    with open(__file__) as f:
        for number, text in enumerate(f, 1):
            if text.rstrip().endswith("# " + marker):
                return "test_racecheck.py:%d" % number
    raise AssertionError(marker)


def _expect_race(call, first, second):
    with pytest.raises(npx.AclError, match="data race") as info:
        call()
    assert info.value.code == 107000
    message = str(info.value)
    assert first in message and second in message, message
    return message


def test_write_on_one_stream_read_on_another_without_event(gated, rng):
    memory, host, out = npx.DeviceMemory(N * 4), _pinned(rng), npx.empty_pinned(N, np.float32)
    other = npx.Stream()
    with npx.racecheck():
        memory.copy_from_host(host, stream=gated.stream, blocking=False)  # seeded-write
        message = _expect_race(
            lambda: memory.copy_to_host(out, stream=other, blocking=False),  # seeded-read
            "aclrtMemcpyAsync", "writing")
    gated.release()
    assert _line("seeded-write") in message and _line("seeded-read") in message


def test_event_recorded_on_the_wrong_stream(gated, rng):
    memory, out = npx.DeviceMemory(N * 4), npx.empty_pinned(N, np.float32)
    wrong, reader = npx.Stream(), npx.Stream()
    with npx.racecheck():
        memory.memset(7, stream=gated.stream)
        reader.wait_event(wrong.record())
        _expect_race(lambda: memory.copy_to_host(out, stream=reader, blocking=False),
                     "aclrtMemsetAsync", "aclrtMemcpyAsync")
    gated.release()


def test_write_after_read_on_another_stream(gated, rng):
    memory, out = npx.DeviceMemory(N * 4), npx.empty_pinned(N, np.float32)
    with npx.racecheck():
        memory.copy_to_host(out, stream=gated.stream, blocking=False)
        _expect_race(lambda: memory.memset(0, stream=npx.Stream()), "reading", "aclrtMemsetAsync")
    gated.release()


def test_two_streams_writing_one_buffer(gated, rng):
    memory, host = npx.DeviceMemory(N * 4), _pinned(rng)
    with npx.racecheck():
        memory.memset(1, stream=gated.stream)
        _expect_race(lambda: memory.copy_from_host(host, stream=npx.Stream(), blocking=False),
                     "aclrtMemsetAsync", "aclrtMemcpyAsync")
    gated.release()


def test_graph_replay_racing_eager_work(gated, rng):
    x = npx.asarray(rng.random(N, dtype=np.float32))
    with npx.racecheck(), npx.Stream() as s:
        g = npx.Graph()
        with g.capture():      # captured while the detector runs: replays are checked
            y = x * 2
        s.synchronize()
        ret = lib.aclrtMemsetAsync(ffi.cast("void *", y.data_ptr), N * 4, 0, N * 4,
                                   gated.stream.handle)
        assert ret == 0
        _expect_race(g.replay, "aclrtMemsetAsync", "aclmdlRIExecuteAsync")
    gated.release()


def test_host_read_of_a_pending_write(gated, rng):
    memory, host = npx.DeviceMemory(N * 4), _pinned(rng)
    with npx.racecheck():
        memory.copy_from_host(host, stream=gated.stream, blocking=False)
        out = np.empty(N, np.float32)
        _expect_race(lambda: lib_memcpy_d2h(out, memory), "aclrtMemcpyAsync", "by the host")
    gated.release()


def lib_memcpy_d2h(out, memory):
    check(lib.aclrtMemcpy(ffi.from_buffer(out), out.nbytes, ffi.cast("void *", memory.ptr),
                          out.nbytes, lib.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")


def test_ordered_raw_memory_is_not_reported(gated, rng):
    memory, host, out = npx.DeviceMemory(N * 4), _pinned(rng), npx.empty_pinned(N, np.float32)
    writer, reader = npx.Stream(), npx.Stream()
    with npx.racecheck():
        memory.copy_from_host(host, stream=writer, blocking=False)
        reader.wait_event(writer.record())
        memory.copy_to_host(out, stream=reader, blocking=False)
        reader.synchronize()
        memory.memset(0, stream=writer)
        writer.synchronize()
    np.testing.assert_array_equal(out, host)


def test_arrays_across_streams_threads_and_graphs_are_not_reported(rng):
    """npuarray orders its arrays' cross-stream use itself (DeviceBuffer.prepare), and its
    pool reuses blocks only when a query, synchronisation or event says it may."""
    a_host, b_host = rng.random((64, 64), dtype=np.float32), rng.random((64, 64), dtype=np.float32)
    with npx.racecheck():
        s1, s2 = npx.Stream(), npx.Stream()
        with s1:
            a = npx.asarray(a_host)
            b = npx.asarray(b_host)
        with s2:
            c = a @ b + a          # read on s2 what s1 wrote
        with s1:
            a += 1                 # write on s1 what s2 read
            d = c * 2
        results = []

        def worker():
            with npx.Stream():
                results.append((a - 1 + d).to_host())
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        g = npx.Graph()
        with npx.Stream():
            with g.capture():
                e = d * 3
            g.replay()
        with s2:
            f = e + 1              # eager work after the replay, on another stream
        for _ in range(50):        # pool reuse across streams
            with s1:
                tmp = npx.asarray(a_host) * 2
            with s2:
                tmp = tmp + 1
            del tmp
        got = f.to_host()
    expected_c = a_host @ b_host + a_host
    np.testing.assert_allclose(results[0], a_host + 2 * expected_c, rtol=1e-4)
    np.testing.assert_allclose(got, expected_c * 6 + 1, rtol=1e-4)


def test_warn_mode_runs_the_operation_and_warns(gated, rng):
    memory, host, out = npx.DeviceMemory(N * 4), _pinned(rng), npx.empty_pinned(N, np.float32)
    other = npx.Stream()
    with pytest.warns(npx.RaceWarning, match="data race.*aclrtMemcpyAsync"):
        with npx.racecheck("warn"):
            memory.copy_from_host(host, stream=gated.stream, blocking=False)
            memory.copy_to_host(out, stream=other, blocking=False)  # runs: no exception
    gated.release()
    other.synchronize()


def test_warn_mode_from_the_environment_warns_at_synchronize(run_python):
    proc = run_python("""
import threading, warnings, numpy as np, npuarray as npx
mem, a, b = npx.DeviceMemory(4096), npx.Stream(), npx.Stream()
host, gate = npx.zeros_pinned(1024, np.float32), threading.Event()
a.launch_host_func(lambda: gate.wait(30))     # a stays busy: the copies race
mem.copy_from_host(host, stream=a, blocking=False)
mem.copy_to_host(host, stream=b, blocking=False)
gate.set()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    npx.synchronize()
print([str(w.message)[:9] for w in caught if w.category is npx.RaceWarning])
""", NPUSIM_RACECHECK="warn")
    assert proc.returncode == 0, proc.stderr
    assert "['data race']" in proc.stdout, proc.stdout + proc.stderr


def test_racecheck_restores_the_previous_mode_and_checks_its_argument():
    before = lib.npusim_racecheck_get_mode()
    with npx.racecheck("warn"):
        assert lib.npusim_racecheck_get_mode() == 2
        with npx.racecheck():
            assert lib.npusim_racecheck_get_mode() == 1
        assert lib.npusim_racecheck_get_mode() == 2
    assert lib.npusim_racecheck_get_mode() == before
    with pytest.raises(ValueError, match="'error' or 'warn'"):
        with npx.racecheck("loud"):
            pass


def test_racecheck_on_cann_names_npusim(monkeypatch):
    class Cann:
        name = "cann"
    monkeypatch.setattr(_racecheck, "backend", lambda: Cann())
    with pytest.raises(RuntimeError, match="npusim"):
        with npx.racecheck():
            pass


def test_off_mode_checks_nothing(gated, rng):
    memory, host, out = npx.DeviceMemory(N * 4), _pinned(rng), npx.empty_pinned(N, np.float32)
    if lib.npusim_racecheck_get_mode():
        pytest.skip("NPUSIM_RACECHECK is set for this run")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        memory.copy_from_host(host, stream=gated.stream, blocking=False)
        memory.copy_to_host(out, stream=npx.Stream(), blocking=False)
    gated.release()


def test_pool_reuse_is_reported_only_when_unordered(gated):
    """A block freed while its stream may still write it: the pool keeps it for that stream
    (nothing reported); a pool that forgot the block's last user and handed it to another
    stream at once would race, and that is reported."""
    pool = npx.MemoryPool(0)
    other = npx.Stream()
    with npx.racecheck():
        buf = pool.allocate(N * 4, gated.stream)
        assert lib.aclrtMemsetAsync(ffi.cast("void *", buf.ptr), N * 4, 1, N * 4,
                                    gated.stream.handle) == 0
        ptr = buf.ptr
        del buf                                   # filed under the gated stream
        safe = pool.allocate(N * 4, other)        # another block: the gated one is busy
        assert safe.ptr != ptr
        check(lib.aclrtMemsetAsync(ffi.cast("void *", safe.ptr), N * 4, 2, N * 4,
                                   other.handle), "aclrtMemsetAsync")
        (size,) = pool._free[id(gated.stream)]    # the block's size class
        unsafe = pool._take_cached(size, gated.stream)  # what a buggy pool would hand to `other`
        assert unsafe == ptr
        _expect_race(lambda: check(lib.aclrtMemsetAsync(ffi.cast("void *", unsafe), N * 4, 3,
                                                        N * 4, other.handle),
                                   "aclrtMemsetAsync"),
                     "aclrtMemsetAsync on stream", "writing")
        pool._release(size, unsafe, gated.stream)
    gated.release()
    other.synchronize()
    del safe
    pool.free_all_blocks()
