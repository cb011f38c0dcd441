"""Host<->device transfers against numpy.copyto, the host's own copy bandwidth.

For 1 MiB, 64 MiB and 512 MiB: H2D and D2H from pinned memory (synchronous on the
default stream, asynchronous on a stream), D2D, and pageable copies (synchronous: direct;
asynchronous: staged through pooled pinned memory), each next to numpy.copyto (and
torch's Tensor.copy_ when PyTorch is installed) of the same size. Then the host-side
cost of enqueueing an event record and of synchronising an idle stream.
Targets: >= 0.8x numpy.copyto for pinned copies of 1 MiB, >= 0.9x for pinned
copies of >= 64 MiB, >= 0.8x for staged pageable copies of 1 MiB and 64 MiB, <= 5 us per event
record and per idle-stream synchronise. Copies of >= 64 MiB are bandwidth-bound: each
row also shows its bytes read + written per second as a fraction of the machine's
2-thread copy bandwidth (target >= 90 %; a staged copy moves its bytes twice, so it
reaches at most about half). Each size starts with an untimed warm-up of
every copy, so the first case timed is not the one that pays for the process's first
touches of the buffers and code paths.
"""
import numpy as np

import npuarray as npx

from . import _targets
from ._harness import torch_or_none

SIZES = [("1 MiB", 1 << 20), ("64 MiB", 64 << 20), ("512 MiB", 512 << 20)]
QUICK_SIZES = SIZES[:2]
HOST_COST_CALLS = 10000
BANDWIDTH_BOUND_BYTES = 64 << 20  # copies this large are set against the copy bandwidth
# (case, size) -> the target its row measures
TARGETS = {
    **{(name, 1 << 20): _targets.PINNED_1MIB for name in (
        "H2D pinned sync", "H2D pinned async", "D2H pinned sync", "D2H pinned async")},
    **{(name, 64 << 20): _targets.STAGED_64MIB for name in (
        "H2D pageable async (staged)", "D2H pageable async (staged)")},
    **{(name, 1 << 20): _targets.STAGED_1MIB for name in (
        "H2D pageable async (staged)", "D2H pageable async (staged)")},
}


def _host_reference(nbytes, pageable_src, pageable_dst):
    torch = torch_or_none()
    refs = {"numpy": lambda: np.copyto(pageable_dst, pageable_src)}
    if torch is not None:
        t_src, t_dst = torch.from_numpy(pageable_src), torch.from_numpy(pageable_dst)
        refs["torch"] = lambda: t_dst.copy_(t_src)
    return refs


def _run_size(harness, label, nbytes):
    rng = np.random.default_rng(nbytes)
    pageable_src = rng.integers(0, 256, nbytes, dtype=np.uint8)
    pageable_dst = np.empty_like(pageable_src)
    pinned_src = npx.empty_pinned(nbytes, np.uint8)
    pinned_src[:] = pageable_src
    pinned_dst = npx.empty_pinned(nbytes, np.uint8)
    mem_a, mem_b = npx.DeviceMemory(nbytes), npx.DeviceMemory(nbytes)
    stream = npx.Stream()
    refs = _host_reference(nbytes, pageable_src, pageable_dst)
    repeat = 5 if nbytes >= (256 << 20) else 9

    cases = []

    def case(name, fn):
        cases.append(("%s %s" % (name, label), fn, TARGETS.get((name, nbytes))))

    def on_stream(copy):
        def run():
            copy()
            stream.synchronize()
        return run

    case("H2D pinned sync", lambda: mem_a.copy_from_host(pinned_src))
    case("H2D pinned async", on_stream(
        lambda: mem_a.copy_from_host(pinned_src, stream=stream, blocking=False)))
    case("D2H pinned sync", lambda: mem_a.copy_to_host(pinned_dst))
    case("D2H pinned async", on_stream(
        lambda: mem_a.copy_to_host(pinned_dst, stream=stream, blocking=False)))
    case("D2D", lambda: mem_b.copy_from_device(mem_a))
    case("H2D pageable sync", lambda: mem_a.copy_from_host(pageable_src))
    case("H2D pageable async (staged)", on_stream(
        lambda: mem_a.copy_from_host(pageable_src, stream=stream, blocking=False)))
    case("D2H pageable sync", lambda: mem_a.copy_to_host(pageable_dst))
    case("D2H pageable async (staged)", on_stream(
        lambda: mem_a.copy_to_host(pageable_dst, stream=stream, blocking=False)))
    for _, fn, _ in cases:   # the warm-up
        for _ in range(3 if nbytes >= (64 << 20) else 30):
            fn()
    traffic = 2 * nbytes if nbytes >= BANDWIDTH_BOUND_BYTES else None  # read + written
    for name, fn, target in cases:
        harness.compare(name, {"npuarray": fn, **refs}, nbytes=nbytes, repeat=repeat,
                        target=target, traffic=traffic)
    assert np.array_equal(pageable_dst, pageable_src), "transfer benchmark moved wrong bytes"


def _run_host_costs(harness):
    from npuarray._acl import lib
    stream = npx.Stream()
    event = npx.Event()

    def record_events():
        for _ in range(HOST_COST_CALLS):
            event.record(stream)

    def raw_record_events():
        handle, stream_handle = event.handle, stream.handle
        for _ in range(HOST_COST_CALLS):
            lib.aclrtRecordEvent(handle, stream_handle)

    def sync_idle():
        for _ in range(HOST_COST_CALLS):
            stream.synchronize()

    def raw_sync_idle():
        handle = stream.handle
        for _ in range(HOST_COST_CALLS):
            lib.aclrtSynchronizeStream(handle)

    event.record(stream)
    stream.synchronize()
    harness.measure("Event.record (per call)", record_events, HOST_COST_CALLS, repeat=5)
    harness.measure("aclrtRecordEvent raw (per call)", raw_record_events, HOST_COST_CALLS,
                    repeat=5)
    stream.synchronize()
    harness.measure("Stream.synchronize idle (per call)", sync_idle, HOST_COST_CALLS, repeat=5)
    harness.measure("aclrtSynchronizeStream idle raw (per call)", raw_sync_idle,
                    HOST_COST_CALLS, repeat=5)


def run(harness):
    for label, nbytes in QUICK_SIZES if harness.quick else SIZES:
        _run_size(harness, label, nbytes)
    _run_host_costs(harness)
