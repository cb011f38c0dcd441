"""Staged (pageable) asynchronous copies and the fixed-cost paths of the copy primitives
piece boundaries, sizes that are no multiple of a piece, 0 bytes, odd sizes,
views, both directions on an idle stream (a small probe piece, then one direct copy) and on
a stream held back by earlier work (the pipeline of pieces), interleaving with compute,
the host buffer reused after the call, and errors in the middle of a pipeline."""
import contextlib
import json
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray.runtime import _transfer as runtime_transfer

PROBE = runtime_transfer.PROBE_CHUNK
PIECE = runtime_transfer.STAGING_CHUNK
SIZES = [1, 7, 1000, PROBE - 1, PROBE, PROBE + 1, PIECE - 1, PIECE, PIECE + 1,
         2 * PIECE + PROBE + 7]
GUARD = 0xAB
HOLDS = ["idle", "held"]

npusim_only = pytest.mark.skipif(npx.backend().name != "npusim",
                                 reason="npusim's device runs an idle stream's short copies "
                                        "before the host looks")


@contextlib.contextmanager
def held(stream):
    """Holds `stream` back behind a host function until the block ends: every copy queued
    inside the block is still pending when the host looks (the pipeline path)."""
    release = threading.Event()
    stream.launch_host_func(lambda: release.wait(30))
    try:
        yield stream
    finally:
        release.set()


def maybe_held(stream, hold):
    return held(stream) if hold == "held" else contextlib.nullcontext(stream)


def pool_used():
    return npx.get_default_pinned_memory_pool().used_bytes()


@pytest.fixture
def copy_calls(monkeypatch):
    """The names of the ACL copies the transfer primitives make, in order."""
    calls = []
    real_check = runtime_transfer.check

    def check(ret, name, *args):
        if name.startswith("aclrtMemcpy"):
            calls.append(name)
        return real_check(ret, name, *args)
    monkeypatch.setattr(runtime_transfer, "check", check)
    return calls


@pytest.fixture
def unprobed(monkeypatch):
    """No device has been probed yet: an idle stream's staged copy starts with a probe."""
    monkeypatch.setattr(runtime_transfer, "_keeps_up", {})


def fail_nth(monkeypatch, api, n, error):
    """The n-th call of ``api`` (from 1) raises `error` after it was queued."""
    real_check = runtime_transfer.check
    count = [0]

    def check(ret, name, *args):
        real_check(ret, name, *args)
        if name == api:
            count[0] += 1
            if count[0] == n:
                raise error
    monkeypatch.setattr(runtime_transfer, "check", check)


def guarded_memory(nbytes):
    """Device memory of `nbytes` plus 64 guard bytes, all set to GUARD."""
    memory = npx.DeviceMemory(nbytes + 64)
    memory.memset(GUARD)
    return memory


def assert_uploaded(memory, expected):
    back = memory.copy_to_host()
    np.testing.assert_array_equal(back[:expected.nbytes], expected)
    assert (back[expected.nbytes:] == GUARD).all(), "bytes past the copy were written"


# -- host to device ----------------------------------------------------------------------------

@pytest.mark.parametrize("hold", HOLDS)
@pytest.mark.parametrize("nbytes", SIZES)
def test_staged_upload_lands_every_byte_and_the_source_is_free_on_return(
        random_bytes, nbytes, hold):
    data = random_bytes(nbytes)
    expected = data.copy()
    memory = guarded_memory(nbytes)
    stream = npx.Stream()
    used = pool_used()
    with maybe_held(stream, hold):
        memory.copy_from_host(data, stream=stream, blocking=False)
        data[:] = 0                       # documented: the caller may reuse it at once
    stream.synchronize()
    assert pool_used() == used
    assert_uploaded(memory, expected)


@npusim_only
@pytest.mark.parametrize("nbytes,expected", [
    (PROBE, ["aclrtMemcpyAsync"]),
    (PROBE + 1, ["aclrtMemcpyAsync", "aclrtMemcpy"]),
    (3 * PIECE + 5, ["aclrtMemcpyAsync", "aclrtMemcpy"])])
def test_idle_stream_upload_probes_then_copies_the_rest_directly(
        random_bytes, copy_calls, unprobed, nbytes, expected):
    data = random_bytes(nbytes)
    memory = guarded_memory(nbytes)
    stream = npx.Stream()
    stream.synchronize()
    copy_calls.clear()
    memory.copy_from_host(data, stream=stream, blocking=False)
    assert copy_calls == expected
    stream.synchronize()
    assert_uploaded(memory, data)


@pytest.mark.parametrize("nbytes", [1, PIECE, PIECE + 1, 3 * PIECE - 3])
def test_held_stream_upload_pipelines_whole_pieces(random_bytes, copy_calls, nbytes):
    data = random_bytes(nbytes)
    memory = guarded_memory(nbytes)
    stream = npx.Stream()
    with held(stream):
        copy_calls.clear()
        memory.copy_from_host(data, stream=stream, blocking=False)
        assert copy_calls == ["aclrtMemcpyAsync"] * -(-nbytes // PIECE)
        pool = npx.get_default_pinned_memory_pool()
        for _ in range(3):                # blocks with a pending copy are not lent again
            block = pool.acquire(min(nbytes, PIECE))
            block[:] = 0
            pool.release(block)
    stream.synchronize()
    assert_uploaded(memory, data)


@pytest.mark.parametrize("hold", HOLDS)
@pytest.mark.parametrize("make_view", [
    lambda a: a.T, lambda a: a[::-1], lambda a: a[:, ::3], lambda a: a[1:-1, 2:]],
    ids=["transposed", "negative-step", "strided", "offset"])
def test_upload_of_views(rng, make_view, hold):
    view = make_view(rng.standard_normal((300, 257)))
    stream = npx.Stream()
    with maybe_held(stream, hold), stream:
        x = npx.asarray(view)
    stream.synchronize()
    np.testing.assert_array_equal(x.to_host(), view)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8",
                                   "uint16", "uint32", "uint64", "float16", "float32",
                                   "float64", "complex64", "complex128"])
def test_every_dtype_round_trips_through_the_staged_paths(rng, dtype):
    host = (rng.standard_normal((70, 1000)) * 100).astype(dtype)
    if host.dtype.kind == "c":
        host.imag = rng.standard_normal(host.shape)
    stream = npx.Stream()
    out = np.empty_like(host)
    with held(stream), stream:
        x = npx.asarray(host)
        x.to_host(out=out, blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(out, host)


# -- device to host ----------------------------------------------------------------------------

def filled_memory(data):
    memory = npx.DeviceMemory(data.nbytes)
    memory.copy_from_host(data)
    return memory


@pytest.mark.parametrize("hold", HOLDS)
@pytest.mark.parametrize("nbytes", SIZES)
def test_staged_download_fills_exactly_the_destination(random_bytes, nbytes, hold):
    data = random_bytes(nbytes)
    memory = filled_memory(data)
    host = np.full(nbytes + 96, GUARD, np.uint8)
    dst = host[32:32 + nbytes]            # a view inside a larger buffer
    stream = npx.Stream()
    used = pool_used()
    with maybe_held(stream, hold):
        memory.copy_to_host(dst, stream=stream, blocking=False)
    stream.synchronize()
    assert pool_used() == used
    np.testing.assert_array_equal(dst, data)
    assert (host[:32] == GUARD).all() and (host[32 + nbytes:] == GUARD).all()


@npusim_only
@pytest.mark.parametrize("nbytes,expected", [
    (PROBE, ["aclrtMemcpyAsync"]),
    (2 * PIECE + 1, ["aclrtMemcpyAsync", "aclrtMemcpy"])])
def test_idle_stream_download_probes_then_copies_the_rest_directly(
        random_bytes, copy_calls, unprobed, nbytes, expected):
    data = random_bytes(nbytes)
    memory = filled_memory(data)
    out = np.zeros(nbytes, np.uint8)
    stream = npx.Stream()
    stream.synchronize()
    copy_calls.clear()
    memory.copy_to_host(out, stream=stream, blocking=False)
    assert copy_calls == expected
    np.testing.assert_array_equal(out, data)   # the device kept up: already there
    stream.synchronize()


@npusim_only
@pytest.mark.parametrize("nbytes", [1, PROBE, PROBE + 1, (1 << 20) + 1, 2 * PIECE + 1])
def test_once_a_probe_found_the_device_keeping_up_idle_copies_go_direct(
        random_bytes, copy_calls, unprobed, nbytes):
    data = random_bytes(nbytes)
    memory = guarded_memory(nbytes)
    out = np.zeros(nbytes, np.uint8)
    stream = npx.Stream()
    used = pool_used()
    memory.copy_from_host(random_bytes(nbytes), stream=stream, blocking=False)  # the probe
    assert copy_calls[0] == "aclrtMemcpyAsync"
    assert runtime_transfer._keeps_up == {0: True}
    stream.synchronize()
    copy_calls.clear()
    memory.copy_from_host(data, stream=stream, blocking=False)
    data_copy = data.copy()
    data[:] = 0                              # read in full on return
    memory.copy_to_host(out, nbytes=nbytes, stream=stream, blocking=False)
    assert copy_calls == ["aclrtMemcpy", "aclrtMemcpy"]  # one hop each, no staging block
    np.testing.assert_array_equal(out, data_copy)
    assert pool_used() == used
    assert_uploaded(memory, data_copy)
    with held(stream):                       # a busy stream still gets the pipeline
        copy_calls.clear()
        memory.copy_from_host(data_copy, stream=stream, blocking=False)
        assert "aclrtMemcpy" not in copy_calls
    stream.synchronize()
    assert_uploaded(memory, data_copy)


@npusim_only
def test_a_probe_the_device_did_not_keep_up_with_is_remembered(random_bytes, copy_calls,
                                                              unprobed, monkeypatch):
    data = random_bytes(PIECE + 3)
    memory = guarded_memory(data.nbytes)
    stream = npx.Stream()
    # As on an NPU: the stream is idle before the copy, the probe's copy still in flight
    # when the host looks; later looks ask the runtime.
    answers = [True, False]
    real = runtime_transfer._caught_up
    monkeypatch.setattr(runtime_transfer, "_caught_up",
                        lambda s: answers.pop(0) if answers else real(s))
    stream.synchronize()
    memory.copy_from_host(data, stream=stream, blocking=False)
    assert runtime_transfer._keeps_up == {0: False}
    assert copy_calls == ["aclrtMemcpyAsync", "aclrtMemcpyAsync"]  # probe, then a whole piece
    stream.synchronize()
    assert_uploaded(memory, data)


def test_held_stream_download_is_complete_once_an_event_after_it_completed(random_bytes,
                                                                          copy_calls):
    nbytes = 2 * PIECE + 12345
    data = random_bytes(nbytes)
    memory = filled_memory(data)
    out = np.zeros(nbytes, np.uint8)
    stream = npx.Stream()
    with held(stream):
        copy_calls.clear()
        memory.copy_to_host(out, stream=stream, blocking=False)
        assert copy_calls == ["aclrtMemcpyAsync"] * 3
        done = stream.record()
        assert not done.query()
        assert not out.any()              # nothing written while the stream is held
    done.synchronize()                    # the stream waited for the unstaging
    np.testing.assert_array_equal(out, data)
    stream.synchronize()


# -- 0 bytes, interleaving, devices ------------------------------------------------------------

def test_zero_bytes_return_at_once_in_every_direction():
    memory = npx.DeviceMemory(0)
    stream = npx.Stream()
    with held(stream):
        start = time.perf_counter()
        memory.copy_from_host(np.empty(0, np.uint8), stream=stream, blocking=False)
        memory.copy_to_host(np.empty(0, np.uint8), stream=stream, blocking=False)
        with stream:
            empty = npx.asarray(np.empty((0, 5), np.float32))
            back = empty.to_host(blocking=False)
        assert time.perf_counter() - start < 5   # nothing waited for the held stream
    stream.synchronize()
    assert back.shape == (0, 5) and back.dtype == np.float32


@pytest.mark.parametrize("hold", HOLDS)
def test_interleaved_with_compute_on_the_same_and_another_stream(rng, hold):
    host = rng.standard_normal(3 * PIECE // 8 + 11).astype(np.float32)   # 1.5 pieces
    expected = host * 2 + 1
    first, second = npx.Stream(), npx.Stream()
    with maybe_held(first, hold):
        with first:
            x = npx.asarray(host)
            y = x * 2
        host[:] = np.nan                  # staged: the upload took the values already
        second.wait_event(first.record())
        with second:
            z = y + 1
            out = np.empty_like(host)
            z.to_host(out=out, blocking=False)
            w = npx.asarray(out[:0])      # a later copy on the same stream
    second.synchronize()
    np.testing.assert_array_equal(out, expected)
    assert w.shape == (0,)


def test_direct_rest_runs_on_the_streams_device_after_a_new_staging_block(random_bytes):
    npx.get_default_pinned_memory_pool().free_all_blocks()   # the probe allocates a block
    data = random_bytes(PIECE + 3)
    with npx.Device(2):
        stream = npx.Stream()
        memory = npx.DeviceMemory(data.nbytes)
    memory.copy_from_host(data, stream=stream, blocking=False)   # current device: 0
    npx.get_default_pinned_memory_pool().free_all_blocks()
    out = np.zeros_like(data)
    memory.copy_to_host(out, stream=stream, blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(out, data)


# -- pinned memory -----------------------------------------------------------------------------

def test_pinned_async_copies_keep_the_array_alive_only_while_pending(random_bytes):
    data = random_bytes(PROBE)
    memory = npx.DeviceMemory(data.nbytes)
    stream = npx.Stream()
    stream.synchronize()
    runtime_transfer._purge_retained()
    pending = len(runtime_transfer._retained)
    source = npx.empty_pinned(data.nbytes, np.uint8)
    source[:] = data
    memory.copy_from_host(source, stream=stream, blocking=False)
    stream.synchronize()
    with held(stream):
        memory.copy_from_host(source, stream=stream, blocking=False)
        del source                        # the queued copy keeps it alive
        assert len(runtime_transfer._retained) == pending + 1
    stream.synchronize()
    out = npx.empty_pinned(data.nbytes, np.uint8)
    memory.copy_to_host(out, stream=stream, blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(out, data)


# -- errors in the middle of a pipeline --------------------------------------------------------

def injected_error():
    return npx.AclError(507000, "aclrtMemcpyAsync", "injected by the test")


def test_upload_error_mid_pipeline_raises_and_returns_every_block(random_bytes, monkeypatch):
    data = random_bytes(3 * PIECE)
    memory = guarded_memory(data.nbytes)
    stream = npx.Stream()
    used = pool_used()
    fail_nth(monkeypatch, "aclrtMemcpyAsync", 2, injected_error())
    with held(stream), pytest.raises(npx.AclError, match="injected"):
        memory.copy_from_host(data, stream=stream, blocking=False)
    monkeypatch.undo()
    stream.synchronize()
    assert pool_used() == used
    back = memory.copy_to_host()
    np.testing.assert_array_equal(back[:2 * PIECE], data[:2 * PIECE])  # the queued pieces ran
    memory.copy_from_host(data, stream=stream, blocking=False)         # the next copy works
    stream.synchronize()
    assert_uploaded(memory, data)


@pytest.mark.parametrize("error", [KeyboardInterrupt(), injected_error()],
                         ids=["ctrl-c", "acl-error"])
def test_download_error_mid_pipeline_raises_and_returns_every_block(random_bytes, monkeypatch,
                                                                    error):
    data = random_bytes(3 * PIECE - 1)
    memory = filled_memory(data)
    out = np.zeros_like(data)
    stream = npx.Stream()
    used = pool_used()
    fail_nth(monkeypatch, "aclrtMemcpyAsync", 2, error)
    with held(stream), pytest.raises(type(error)):
        memory.copy_to_host(out, stream=stream, blocking=False)
    monkeypatch.undo()
    stream.synchronize()
    assert pool_used() == used
    np.testing.assert_array_equal(out[:PIECE], data[:PIECE])   # the first piece was unstaged
    memory.copy_to_host(out, stream=stream, blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(out, data)


FAULT_SCRIPT = """
import json, numpy as np, npuarray as npx
data = np.arange({n}, dtype=np.uint8) | 1
memory = npx.DeviceMemory(data.nbytes)
stream = npx.Stream()
codes = []
for direction in ("up", "down", "up", "down"):
    out = np.zeros_like(data)
    try:
        if direction == "up":
            memory.copy_from_host(data, stream=stream, blocking=False)
        else:
            memory.copy_to_host(out, stream=stream, blocking=False)
    except npx.AclError as error:
        codes.append(error.code)
    stream.synchronize()
memory.copy_from_host(data, stream=stream, blocking=False)
out = np.zeros_like(data)
memory.copy_to_host(out, stream=stream, blocking=False)
stream.synchronize()
pool = npx.get_default_pinned_memory_pool()
print(json.dumps({{"codes": codes, "right": bool((out == data).all()),
                  "used": pool.used_bytes()}}))
"""


@npusim_only
@pytest.mark.parametrize("nth", [1, 2, 3, 4])
def test_injected_copy_fault_in_a_staged_copy_is_typed_and_leaves_nothing(run_python, nth):
    result = run_python(FAULT_SCRIPT.format(n=PIECE + 999), NPUSIM_FAULT_INJECT=f"memcpy:{nth}")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"codes": [507000], "right": True, "used": 0}


# -- any size, either path ---------------------------------------------------------------------

@settings(max_examples=12, deadline=None)
@given(nbytes=st.integers(0, 2 * PIECE + PROBE), hold=st.sampled_from(HOLDS),
       seed=st.integers(0, 2**32 - 1))
def test_any_size_round_trips(nbytes, hold, seed):
    data = np.random.default_rng(seed).integers(1, 256, nbytes, dtype=np.uint8)
    memory = npx.DeviceMemory(nbytes)
    out = np.zeros_like(data)
    stream = npx.Stream()
    with maybe_held(stream, hold):
        memory.copy_from_host(data, stream=stream, blocking=False)
        memory.copy_to_host(out, stream=stream, blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(out, data)


def test_pinned_copies_behind_work_reuse_the_events_that_tell_when_they_ran(random_bytes):
    data = random_bytes(1000)
    memory = npx.DeviceMemory(data.nbytes)
    source = npx.empty_pinned(data.nbytes, np.uint8)
    stream = npx.Stream()
    for round_ in range(3):
        source[:] = data + round_
        with held(stream):
            memory.copy_from_host(source, stream=stream, blocking=False)
            event = runtime_transfer._retained[-1][0]
        stream.synchronize()
        runtime_transfer._purge_retained()
        assert event in runtime_transfer._spare_events[stream.device.id]   # kept for reuse
        np.testing.assert_array_equal(memory.copy_to_host(), data + round_)
    with held(stream):
        memory.copy_from_host(source, stream=stream, blocking=False)
        assert runtime_transfer._retained[-1][0] is event                  # reused
    stream.synchronize()


# -- bad input ---------------------------------------------------------------------------------

def read_only(nbytes):
    array = np.zeros(nbytes, np.uint8)
    array.setflags(write=False)
    return array


BAD_SOURCES = [(lambda n: np.empty(n, object), TypeError), (lambda n: bytearray(n), TypeError)]
BAD_DESTINATIONS = BAD_SOURCES + [(lambda n: np.zeros(2 * n, np.uint8)[::2], ValueError),
                                  (read_only, ValueError)]


def assert_next_copies_work(memory, data, stream):
    out = np.zeros_like(data)
    memory.copy_from_host(data, stream=stream, blocking=False)
    memory.copy_to_host(out, stream=stream, blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(out, data)


@pytest.mark.parametrize("make,error", BAD_SOURCES, ids=["object", "not-an-ndarray"])
def test_bad_sources_are_refused_before_anything_is_queued(random_bytes, make, error):
    data = random_bytes(PIECE + 5)
    memory = filled_memory(data)
    stream = npx.Stream()
    used = pool_used()
    with pytest.raises(error):
        runtime_transfer.copy_host_to_device(memory.ptr, make(data.nbytes), stream,
                                             blocking=False)
    assert pool_used() == used
    assert_next_copies_work(memory, data, stream)


@pytest.mark.parametrize("make,error", BAD_DESTINATIONS,
                         ids=["object", "not-an-ndarray", "strided", "read-only"])
def test_bad_destinations_are_refused_before_anything_is_queued(random_bytes, make, error):
    data = random_bytes(PIECE + 5)
    memory = filled_memory(data)
    stream = npx.Stream()
    used = pool_used()
    with pytest.raises(error):
        runtime_transfer.copy_device_to_host(make(data.nbytes), memory.ptr, stream,
                                             blocking=False)
    assert pool_used() == used
    assert_next_copies_work(memory, data, stream)


def test_read_only_and_strided_sources_are_copied(rng):
    source = rng.integers(1, 256, (PIECE // 512, 1024), dtype=np.uint8)[:, ::2]  # strided
    memory = npx.DeviceMemory(source.nbytes)
    stream = npx.Stream()
    frozen = np.ascontiguousarray(source)
    frozen.setflags(write=False)
    for host in (source, frozen):
        memory.copy_from_host(host, stream=stream, blocking=False)
        stream.synchronize()
        np.testing.assert_array_equal(memory.copy_to_host().reshape(source.shape), source)


@pytest.mark.parametrize("pinned", [False, True], ids=["pageable", "pinned"])
@pytest.mark.parametrize("offset", [0, 1], ids=["aligned", "unaligned"])
@pytest.mark.parametrize("nbytes", [0, 1, 7, 4093, (1 << 20) - 1, 1 << 20, (1 << 20) + 1])
def test_async_round_trip_is_complete_once_an_event_after_it_completed(rng, nbytes, offset,
                                                                       pinned):
    """Both directions on a stream, for sizes around the short-copy and probe limits, from
    and into host buffers that start one byte past an allocation (unaligned): the bytes are
    there once an event recorded after the copies has completed, nothing past them is
    written."""
    alloc = npx.empty_pinned if pinned else (lambda n, dtype: np.empty(n, dtype))
    src = alloc(nbytes + offset + 1, np.uint8)[offset:offset + nbytes]
    dst_buffer = alloc(nbytes + offset + 1, np.uint8)
    dst_buffer[:] = GUARD
    dst = dst_buffer[offset:offset + nbytes]
    src[:] = rng.integers(1, 256, nbytes, dtype=np.uint8)
    expected = src.copy()
    memory = guarded_memory(nbytes)
    stream = npx.Stream()
    memory.copy_from_host(src, stream=stream, blocking=False)
    memory.copy_to_host(dst, nbytes=nbytes, stream=stream, blocking=False)
    event = npx.Event()
    event.record(stream)
    event.synchronize()
    np.testing.assert_array_equal(dst, expected)
    assert (dst_buffer[:offset] == GUARD).all() and (dst_buffer[offset + nbytes:] == GUARD).all()
    assert_uploaded(memory, expected)


@npusim_only
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex64, np.bool_])
def test_idle_direct_copies_of_arrays_match_numpy_and_stage_nothing(rng, copy_calls, dtype):
    """Once the device kept up with a probe, an idle stream's asynchronous pageable copy is
    one aclrtMemcpy each way, with no staging block: the values are NumPy's at once (the
    stream being idle), and the stream's later work sees them in order."""
    host = (rng.standard_normal((257, 129)) * 50).astype(dtype)
    stream = npx.Stream()
    with stream:
        npx.asarray(host[:1])             # the probe (or nothing, when already probed)
        stream.synchronize()
        used = pool_used()
        copy_calls.clear()
        x = npx.asarray(host)
        assert copy_calls == ["aclrtMemcpy"]
        doubled = x + x                   # queued after the copy on the same stream
        stream.synchronize()
        out = np.empty_like(host)
        npx.asnumpy(doubled, stream=stream, out=out, blocking=False)
        assert copy_calls == ["aclrtMemcpy", "aclrtMemcpy"]
        np.testing.assert_array_equal(out, host + host)  # before any synchronisation
    assert pool_used() == used


def test_staged_download_after_queued_compute_is_ordered_by_an_event(rng):
    """A staged download queued behind compute on a busy stream: an event recorded after it
    completes only once the bytes are in the pageable destination, and they are the
    compute's result (NumPy's)."""
    host = rng.standard_normal(PIECE // 4 + 3).astype(np.float32)
    stream = npx.Stream()
    out = np.zeros_like(host)
    event = npx.Event()
    with stream:
        x = npx.asarray(host)
        stream.synchronize()
        with held(stream):
            y = npx.sqrt(npx.abs(x)) * 3
            npx.asnumpy(y, stream=stream, out=out, blocking=False)
            event.record(stream)
            assert not event.query()      # still held: nothing has run
        event.synchronize()
    np.testing.assert_allclose(out, np.sqrt(np.abs(host)) * np.float32(3), rtol=1e-6)


def test_staged_copies_from_many_threads_on_their_own_streams(rng):
    """Threads copying pageable memory on their own streams at once (each with its own
    stream-status buffer for the idle check): every byte lands where it belongs."""
    sources = [rng.integers(1, 256, (1 << 16) + 17 * i, dtype=np.uint8) for i in range(4)]
    results, errors = [None] * 4, []

    def work(index):
        try:
            data = sources[index]
            memory = npx.DeviceMemory(data.nbytes)
            stream = npx.Stream()
            out = np.empty_like(data)
            for _ in range(25):
                memory.copy_from_host(data, stream=stream, blocking=False)
                memory.copy_to_host(out, stream=stream, blocking=False)
            stream.synchronize()
            results[index] = out
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for source, result in zip(sources, results):
        np.testing.assert_array_equal(result, source)
