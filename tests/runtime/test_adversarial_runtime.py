"""Adversarial: graphs and host functions.

A host function captured in a graph runs at every replay; re-capturing into new graphs in
a loop does not leak device memory (measured with aclrtGetMemInfo, not the pool's own
statistics); an exception raised by a host function is not lost when its stream is
garbage collected before anyone synchronised it."""
import gc

import numpy as np
import pytest

import npuarray as npx
from npuarray.runtime import _stream


def test_captured_host_function_runs_at_every_replay(rng):
    x = npx.asarray(rng.random(64))
    calls = []
    with npx.Stream() as stream:
        graph = npx.Graph()
        with graph.capture():
            y = x * 2
            stream.launch_host_func(lambda: calls.append(1))
        for _ in range(4):
            graph.replay()
        stream.synchronize()
    assert len(calls) == 4
    np.testing.assert_allclose(y.to_host(), x.to_host() * 2)
    registered = len(_stream._pending_host_funcs)
    del graph
    gc.collect()
    assert len(_stream._pending_host_funcs) == registered - 1  # released with the graph


def test_captured_host_function_error_is_raised_at_each_replay_sync(rng):
    x = npx.asarray(rng.random(8))

    def fail():
        raise ValueError("host function failed")

    with npx.Stream() as stream:
        graph = npx.Graph()
        with graph.capture():
            x * 2
            stream.launch_host_func(fail)
        for _ in range(2):
            graph.replay()
            with pytest.raises(ValueError, match="host function failed"):
                stream.synchronize()
        stream.synchronize()  # reported once per failure, then clean


@pytest.mark.parametrize("rounds", [6])
def test_recapturing_into_new_graphs_in_a_loop_does_not_leak_device_memory(rng, rounds):
    x = npx.asarray(rng.random((512, 512), dtype=np.float32))   # each output: 1 MiB
    device = npx.Device(0)
    free = []
    with npx.Stream() as stream:
        for _ in range(rounds):
            graph = npx.Graph()
            with graph.capture():
                y = x @ x           # the previous y dies inside this capture
            graph.replay()
            free.append(device.mem_info()[0])
        stream.synchronize()
    np.testing.assert_allclose(y.to_host(), x.to_host() @ x.to_host(), rtol=1e-5)
    assert free[-1] == free[1]      # steady state after the first round


def test_host_function_error_survives_its_stream_being_collected():
    stream = npx.Stream()

    def fail():
        raise KeyError("lost?")

    stream.launch_host_func(fail)
    del stream
    gc.collect()
    with pytest.raises(KeyError, match="lost"):
        npx.synchronize()
    npx.synchronize()  # raised once
