"""npuarray.Graph: capture and replay of device work (aclmdlRI), checked against NumPy
and against the same work run eagerly."""
import gc
import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import npuarray as npx
from npuarray import _acl

pytestmark = [
    pytest.mark.skipif(not _acl.available("aclmdlRICaptureBegin"),
                       reason="the loaded provider has no aclmdlRICaptureBegin (graph capture)"),
    pytest.mark.timeout(120),
]


@pytest.fixture
def stream():
    return npx.Stream()


def device_array(host, stream):
    """`host` uploaded on `stream` and complete (the capture must not depend on a pending copy
    only by luck: replays are ordered after it anyway)."""
    with stream:
        return npx.asarray(host)


def test_capture_records_and_replay_runs(stream, rng):
    host = rng.standard_normal((64, 33)).astype(np.float32)
    x = device_array(host, stream)
    out = device_array(np.zeros_like(host), stream)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            out[...] = x * 2.0 + 1.0
        # recorded, not run: the pre-existing output still holds its zeros
        np.testing.assert_array_equal(out.to_host(), np.zeros_like(host))
        graph.replay()
        np.testing.assert_allclose(out.to_host(), host * 2.0 + 1.0, rtol=1e-6)
    assert graph.is_captured
    graph.destroy()


def test_outputs_created_inside_capture_are_rewritten_by_each_replay(stream, rng):
    host = rng.standard_normal((5, 7))
    x = device_array(host, stream)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            y = npx.exp(x) - x * x
            total = npx.sum(y, axis=0)
        for _ in range(3):
            fresh = rng.standard_normal((5, 7))
            x[...] = fresh                      # inputs are updated in place
            graph.replay()
            np.testing.assert_allclose(y.to_host(), np.exp(fresh) - fresh * fresh, rtol=1e-12)
            np.testing.assert_allclose(total.to_host(), (np.exp(fresh) - fresh * fresh).sum(0),
                                       rtol=1e-12)
    assert y.shape == (5, 7) and total.shape == (7,)
    assert y.dtype == np.float64
    graph.destroy()


def test_replay_reads_inputs_updated_in_place_on_another_stream(rng):
    capture_stream, writer = npx.Stream(), npx.Stream()
    x = device_array(rng.standard_normal(1000), capture_stream)
    graph = npx.Graph()
    with capture_stream:
        with graph.capture():
            y = x * 3.0 - 2.0
    for _ in range(3):
        fresh = rng.standard_normal(1000)
        with writer:
            # a slow writer: a replay not ordered after it would read the old values
            writer.launch_host_func(lambda: time.sleep(0.05))
            x[...] = npx.asarray(fresh)
        graph.replay(capture_stream)
        np.testing.assert_allclose(y.to_host(stream=capture_stream), fresh * 3.0 - 2.0)
    graph.destroy()


def test_replay_on_a_different_stream_than_the_capture(rng):
    capture_stream, replay_stream = npx.Stream(), npx.Stream()
    host = rng.standard_normal((16, 16)).astype(np.float32)
    x = device_array(host, capture_stream)
    graph = npx.Graph()
    with graph.capture(stream=capture_stream):
        with capture_stream:
            y = npx.matmul(x, x) + 1.0
    with replay_stream:
        replay_stream.launch_host_func(lambda: time.sleep(0.05))
        graph.replay()
        result = y.to_host()                    # the current stream: the replay stream
    np.testing.assert_allclose(result, host @ host + 1.0, rtol=1e-5, atol=1e-5)
    # read from another stream: ordered after the replay through the output's buffer
    fresh = rng.standard_normal((16, 16)).astype(np.float32)
    with capture_stream:
        x[...] = npx.asarray(fresh)
    graph.replay(replay_stream)
    np.testing.assert_allclose(y.to_host(stream=capture_stream), fresh @ fresh + 1.0,
                               rtol=1e-5, atol=1e-5)
    graph.destroy()


def test_replays_from_several_threads_are_ordered(rng):
    capture_stream = npx.Stream()
    start = rng.standard_normal(5000).round()
    counter = device_array(start, capture_stream)
    graph = npx.Graph()
    with capture_stream:
        with graph.capture():
            counter[...] = counter + 1.0          # read-modify-write: races would lose steps

    def replay_many():
        stream = npx.Stream()
        for _ in range(40):
            graph.replay(stream)

    threads = [threading.Thread(target=replay_many) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    np.testing.assert_array_equal(counter.to_host(stream=capture_stream), start + 120.0)
    graph.destroy()


def iteration_step(state, drive):
    """One damped step, in place: state <- 0.5 state + exp(-drive^2) - 0.1 state^2."""
    state[...] = state * 0.5 + npx.exp(-(drive * drive)) - 0.1 * state * state


def test_replay_n_times_equals_n_eager_steps(stream, rng):
    start = rng.uniform(-1, 1, 257)
    drive_host = rng.uniform(-1, 1, 257)
    steps = 12
    eager_state = device_array(start, stream)
    drive = device_array(drive_host, stream)
    with stream:
        for _ in range(steps):
            iteration_step(eager_state, drive)
    state = device_array(start, stream)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            iteration_step(state, drive)
        np.testing.assert_array_equal(state.to_host(), start)   # nothing ran yet
        for _ in range(steps):
            graph.replay()
        expected = start.copy()
        for _ in range(steps):
            expected = expected * 0.5 + np.exp(-(drive_host * drive_host)) \
                - 0.1 * expected * expected
        result = state.to_host()
    np.testing.assert_array_equal(result, eager_state.to_host(stream=stream))
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)
    graph.destroy()


OPERATIONS = {
    "add": lambda y, other, xp: y + 0.25,
    "multiply": lambda y, other, xp: y * other,
    "subtract": lambda y, other, xp: other - y,
    "maximum": lambda y, other, xp: xp.maximum(y, other),
    "abs": lambda y, other, xp: xp.abs(y),
    "sqrt_abs": lambda y, other, xp: xp.sqrt(xp.abs(y)),
    "sum_keepdims": lambda y, other, xp: y - xp.sum(y, axis=-1, keepdims=True),
}


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.sampled_from(sorted(OPERATIONS)), min_size=1, max_size=6),
       shape=st.sampled_from([(1,), (7,), (3, 5), (2, 3, 4)]),
       dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 2**32 - 1))
def test_captured_chains_equal_eager_execution(stream, ops, shape, dtype, seed):
    rng = np.random.default_rng(seed)

    def chain(y, other, xp):
        for name in ops:
            y = OPERATIONS[name](y, other, xp)
        return y

    hosts = [rng.standard_normal(shape).astype(dtype) for _ in range(2)]
    other_host = rng.standard_normal(shape[-1:]).astype(dtype)
    x, other = device_array(hosts[0], stream), device_array(other_host, stream)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            y = chain(x, other, npx)
        for host in hosts:
            x[...] = npx.asarray(host)
            graph.replay()
            eager = chain(npx.asarray(host), other, npx)
            np.testing.assert_array_equal(y.to_host(), eager.to_host())
            np.testing.assert_allclose(y.to_host(), chain(host, other_host, np),
                                       rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)
    graph.destroy()


def test_cross_stream_capture_forks_and_joins(rng):
    origin, side = npx.Stream(), npx.Stream()
    host = rng.standard_normal((32, 8))
    x = device_array(host, origin)
    graph = npx.Graph()
    with origin:
        with graph.capture():
            a = npx.sqrt(npx.abs(x))                     # on the origin stream
            side.wait_event(origin.record())             # fork: side joins the capture
            with side:
                b = x * x - 1.0                          # captured on the side stream
            origin.wait_event(side.record())             # join back before the end
            c = a + b
    for _ in range(2):
        fresh = rng.standard_normal((32, 8))
        with origin:
            x[...] = npx.asarray(fresh)
        graph.replay(origin)
        expected = np.sqrt(np.abs(fresh)) + fresh * fresh - 1.0
        np.testing.assert_allclose(c.to_host(stream=origin), expected, rtol=1e-12)
        np.testing.assert_allclose(b.to_host(stream=origin), fresh * fresh - 1.0, rtol=1e-12)
    graph.destroy()


def test_inputs_stay_alive_while_the_graph_lives(stream, rng):
    host = rng.standard_normal(4096)
    graph = npx.Graph()
    x = device_array(host, stream)
    with stream:
        with graph.capture():
            y = x + 1.0
        del x                                      # only the graph still holds the input
        gc.collect()
        junk = [npx.asarray(rng.standard_normal(4096)) for _ in range(4)]  # would reuse it
        graph.replay()
        np.testing.assert_allclose(y.to_host(), host + 1.0)
    del junk
    graph.destroy()


def test_two_captures_in_one_thread_and_eager_work_beside_them(rng):
    outer_stream, inner_stream, eager_stream = npx.Stream(), npx.Stream(), npx.Stream()
    host = rng.standard_normal((6, 5))
    x = device_array(host, outer_stream)
    outer, inner = npx.Graph(), npx.Graph()
    with outer.capture(stream=outer_stream):
        a = x * x
        with inner.capture(stream=inner_stream):
            b = npx.sum(x, axis=0)
            with outer_stream:
                c = a + 1.0                        # recorded into the outer graph
            with eager_stream:
                d = x - 7.0                        # not captured: runs now
    np.testing.assert_allclose(d.to_host(stream=eager_stream), host - 7.0)
    inner.destroy()                                # the outer graph keeps its own memory
    for _ in range(2):
        fresh = rng.standard_normal((6, 5))
        with outer_stream:
            x[...] = npx.asarray(fresh)
        outer.replay(outer_stream)
        np.testing.assert_allclose(c.to_host(stream=outer_stream), fresh * fresh + 1.0)
    assert b.shape == (5,)
    outer.destroy()


def pool_state(device):
    """The default pool's bytes in use and the device's free bytes, after collecting
    the garbage earlier tests left in reference cycles (a collection later in the test
    would free their blocks and change both)."""
    gc.collect()
    return (npx.get_default_memory_pool(device).used_bytes(), device.mem_info()[0])


def test_destroy_frees_the_graph_pool(stream, rng):
    x = device_array(rng.standard_normal((128, 64)), stream)
    before = pool_state(stream.device)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            y = npx.sum(npx.matmul(x, x.T) * 2.0, axis=1)
        graph.replay()
        stream.synchronize()
    pool = graph.memory_pool
    assert pool.used_bytes() > 0 and pool.total_bytes() >= pool.used_bytes()
    assert npx.get_default_memory_pool(stream.device).used_bytes() == before[0]
    assert stream.device.mem_info()[0] < before[1]
    del y
    graph.destroy()
    assert pool.used_bytes() == 0 and pool.total_bytes() == 0
    assert pool_state(stream.device) == before
    with pytest.raises(ValueError, match="destroyed"):
        graph.replay()
    graph.destroy()                              # idempotent


def test_output_alive_after_destroy_keeps_its_memory_until_it_dies(stream, rng):
    host = rng.standard_normal(300)
    x = device_array(host, stream)
    before = pool_state(stream.device)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            y = x * 4.0
        graph.replay()
    pool = graph.memory_pool
    graph.destroy()
    with stream:
        np.testing.assert_allclose(y.to_host(), host * 4.0)   # still valid
    assert 0 < pool.total_bytes() == pool.used_bytes()
    del y
    gc.collect()
    assert pool.total_bytes() == 0
    assert pool_state(stream.device) == before


def test_graph_as_context_manager_and_garbage_collection(stream, rng):
    host = rng.standard_normal(64)
    x = device_array(host, stream)
    before = pool_state(stream.device)
    with npx.Graph() as graph:
        with graph.capture(stream=stream):
            with stream:
                y = x - 5.0
        graph.replay(stream)
        np.testing.assert_allclose(y.to_host(stream=stream), host - 5.0)
    assert not graph.is_captured
    with pytest.raises(ValueError):
        graph.replay(stream)
    del y
    gc.collect()
    assert pool_state(stream.device) == before
    graph = npx.Graph()                          # never destroyed explicitly
    with stream:
        with graph.capture():
            z = x * x
        graph.replay()
    del graph, z
    gc.collect()
    assert pool_state(stream.device) == before


def test_a_failing_block_discards_the_capture(stream, rng):
    host = rng.standard_normal(10)
    x = device_array(host, stream)
    graph = npx.Graph()
    with stream:
        with pytest.raises(ZeroDivisionError):
            with graph.capture():
                y = x + 1.0
                1 / 0
        assert not graph.is_captured
        z = x * 2.0                               # the stream runs eagerly again
        np.testing.assert_allclose(z.to_host(), host * 2.0)
        with graph.capture():                      # and the graph can capture again
            y = x + 3.0
        graph.replay()
        np.testing.assert_allclose(y.to_host(), host + 3.0)
    graph.destroy()


@pytest.mark.parametrize("mode", ["global", "thread_local", "relaxed"])
def test_every_capture_mode_replays_correctly(mode, stream, rng):
    host = rng.standard_normal((9, 4)).astype(np.float32)
    x = device_array(host, stream)
    graph = npx.Graph()
    with stream:
        with graph.capture(mode=mode):
            y = npx.max(x, axis=1) - npx.min(x, axis=1)
        graph.replay()
        np.testing.assert_allclose(y.to_host(), host.max(1) - host.min(1), rtol=1e-6)
    graph.destroy()


def test_capture_mode_block_restores_the_previous_mode():
    mode = _acl.ffi.new("aclmdlRICaptureMode *", 0)
    with npx.capture_mode("relaxed"):
        with npx.capture_mode("thread_local"):
            pass
        _acl.check(_acl.lib.aclmdlRICaptureThreadExchangeMode(mode), "exchange")
        assert mode[0] == 2                        # relaxed was restored by the inner block
        _acl.check(_acl.lib.aclmdlRICaptureThreadExchangeMode(mode), "exchange")
    _acl.check(_acl.lib.aclmdlRICaptureThreadExchangeMode(mode), "exchange")
    assert mode[0] == 0                            # back to the default, global
    _acl.check(_acl.lib.aclmdlRICaptureThreadExchangeMode(mode), "exchange")


def test_debug_print_after_capture(stream, rng):
    x = device_array(rng.standard_normal(8), stream)
    graph = npx.Graph()
    with pytest.raises(ValueError, match="before capturing"):
        graph.debug_print()
    with stream:
        with graph.capture():
            y = x + x
    graph.debug_print()
    graph.replay(stream)
    np.testing.assert_allclose(y.to_host(stream=stream), 2 * x.to_host(stream=stream))
    graph.destroy()
    assert "destroyed" in repr(graph)
