"""Graph capture misuse: every capture error reaches the user as a CaptureError with the
ACL code, its name and meaning, and a refused call leaves the capture usable."""
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray import _acl
from npuarray._acl import CaptureError
from npuarray.runtime._device import activate

needs_capture = pytest.mark.skipif(
    not _acl.available("aclmdlRICaptureBegin"),
    reason="the loaded provider has no aclmdlRICaptureBegin (graph capture)")
pytestmark = pytest.mark.timeout(120)

CAPTURE_CODES = [*range(107024, 107039), 107041, 507903]


@pytest.mark.parametrize("code", CAPTURE_CODES)
def test_every_capture_code_is_a_capture_error_with_name_and_meaning(code):
    error = _acl.make_error(code, "aclmdlRICaptureEnd", "from the runtime")
    assert isinstance(error, CaptureError) and isinstance(error, npx.AclError)
    assert error.code == code
    assert error.name.startswith("ACL_ERROR_") and str(code) in str(error)
    assert error.name in str(error) and "from the runtime" in str(error)
    meaning = str(error).split(": ", 2)[-1]
    assert len(meaning) > len("from the runtime") + 10  # a one-line meaning is included


@pytest.fixture
def stream():
    return npx.Stream()


def upload(host, stream):
    with stream:
        return npx.asarray(host)


def capture_status(stream):
    status = _acl.ffi.new("aclmdlRICaptureStatus *")
    model = _acl.ffi.new("aclmdlRI *")
    _acl.check(_acl.lib.aclmdlRICaptureGetInfo(stream.handle, status, model),
               "aclmdlRICaptureGetInfo")
    return status[0]


def raw_capture_end(stream):
    model = _acl.ffi.new("aclmdlRI *")
    ret = _acl.lib.aclmdlRICaptureEnd(stream.handle, model)
    if ret == 0:
        _acl.check(_acl.lib.aclmdlRIDestroy(model[0]), "aclmdlRIDestroy")
    else:
        _acl.recent_error_message()
    return ret


@needs_capture
def test_capture_on_a_default_stream_is_refused_with_advice(rng):
    graph = npx.Graph()
    with pytest.raises(CaptureError) as info:
        with graph.capture():                   # the current stream is the default stream
            pass
    assert info.value.code == 107031
    assert "ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT" in str(info.value)
    assert "npuarray.Stream()" in str(info.value)
    with pytest.raises(CaptureError, match="default stream"):
        with graph.capture(stream=npx.default_stream()):
            pass
    assert not graph.is_captured


@needs_capture
def test_bad_arguments(stream):
    graph = npx.Graph()
    with pytest.raises(ValueError, match="unknown capture mode"):
        with graph.capture(stream=stream, mode="sometimes"):
            pass
    with pytest.raises(TypeError):
        with graph.capture(stream=stream, mode=0):
            pass
    with pytest.raises(TypeError):
        with graph.capture(stream="stream 1"):
            pass
    with pytest.raises(ValueError, match="unknown capture mode"):
        with npx.capture_mode("lenient"):
            pass
    with pytest.raises(ValueError, match="before capturing"):
        graph.replay(stream)
    assert capture_status(stream) == 0          # nothing was left capturing


def synchronising_calls(stream, x, y, scalar, event):
    """(name, call) pairs that would synchronise or read captured work on the host."""
    return [
        ("to_host()", lambda: y.to_host()),
        ("to_host()", lambda: x.to_host(stream=npx.default_stream())),
        ("__array__", lambda: np.asarray(y)),
        ("bool(x)", lambda: bool(scalar)),
        ("float(x)", lambda: float(scalar)),
        ("int(x)", lambda: int(scalar)),
        ("item", lambda: scalar.item()),
        ("tolist", lambda: y.tolist()),
        ("Stream.synchronize()", lambda: stream.synchronize()),
        ("Stream.query()", lambda: stream.query()),
        ("Device.synchronize()", lambda: npx.synchronize()),
        ("Event.synchronize()", lambda: event.synchronize()),
        ("Event.query()", lambda: event.query()),
        ("a copy from host memory", lambda: npx.asarray(np.ones(3))),
    ]


@needs_capture
def test_synchronising_inside_a_capture_raises_and_the_capture_stays_usable(stream, rng):
    host = rng.standard_normal(50)
    x = upload(host, stream)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            y = x * 2.0
            scalar = npx.sum(y)
            event = stream.record()
            for name, call in synchronising_calls(stream, x, y, scalar, event):
                with pytest.raises(CaptureError) as info:
                    call()
                assert info.value.code in (107027, 107028, 107030), name
                text = str(info.value)
                assert "captur" in text, name
                assert capture_status(stream) == 1, name   # still capturing
            z = y + scalar                                  # and still recording
        graph.replay()
        np.testing.assert_allclose(z.to_host(), host * 2.0 + (host * 2.0).sum())
    graph.destroy()


@needs_capture
def test_repr_inside_a_capture_does_not_read(stream, rng):
    x = upload(rng.standard_normal(3), stream)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            y = x + 1.0
            assert "not readable during graph capture" in repr(y)
    graph.destroy()


@needs_capture
def test_nested_capture_on_a_capturing_stream(stream, rng):
    host = rng.standard_normal(6)
    x = upload(host, stream)
    outer, inner = npx.Graph(), npx.Graph()
    with stream:
        with outer.capture():
            y = x - 1.0
            with pytest.raises(CaptureError) as info:
                with inner.capture():
                    pass
            assert info.value.code == 107027
            # the runtime refuses it as well
            ret = _acl.lib.aclmdlRICaptureBegin(stream.handle, 0)
            _acl.recent_error_message()
            assert ret == 107027
            assert capture_status(stream) == 1
        assert not inner.is_captured
        outer.replay()
        np.testing.assert_allclose(y.to_host(), host - 1.0)
    outer.destroy()


@needs_capture
def test_replay_or_destroy_while_capturing(stream, rng):
    x = upload(rng.standard_normal(4), stream)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            y = x * x
            with pytest.raises(CaptureError) as info:
                graph.replay()
            assert info.value.code == 107026
            with pytest.raises(CaptureError) as info:
                graph.destroy()
            assert info.value.code == 107026
            other = npx.Graph()
            with other.capture(stream=npx.Stream()):
                x + 1.0
            with pytest.raises(CaptureError, match="inside a capture") as info:
                other.replay(stream)                # into the capture running on `stream`
            assert info.value.code == 107027
            other.destroy()
        graph.replay()
        np.testing.assert_allclose(y.to_host(), x.to_host() ** 2)
    with pytest.raises(ValueError, match="already holds a capture"):
        with graph.capture(stream=stream):
            pass
    graph.destroy()


@needs_capture
def test_end_on_a_stream_that_is_not_capturing(stream):
    other = npx.Stream()
    _acl.check(_acl.lib.aclmdlRICaptureBegin(stream.handle, 0), "aclmdlRICaptureBegin")
    try:
        with pytest.raises(CaptureError) as info:
            model = _acl.ffi.new("aclmdlRI *")
            _acl.check(_acl.lib.aclmdlRICaptureEnd(other.handle, model), "aclmdlRICaptureEnd")
        assert info.value.code in (107029, 107036)
        assert info.value.name in ("ACL_ERROR_RT_STREAM_NOT_CAPTURED",
                                   "ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED")
        assert capture_status(stream) == 1
    finally:
        assert raw_capture_end(stream) == 0
    assert capture_status(stream) == 0


@needs_capture
@pytest.mark.parametrize("mode, expected", [(0, 107038), (1, 107038), (2, 0)])
def test_end_from_another_thread(stream, mode, expected, in_fresh_thread):
    _acl.check(_acl.lib.aclmdlRICaptureBegin(stream.handle, mode), "aclmdlRICaptureBegin")
    try:
        def end_there():
            activate(stream.device.id)
            return raw_capture_end(stream)
        assert in_fresh_thread(end_there) == expected
    finally:
        if capture_status(stream) != 0:
            raw_capture_end(stream)
    assert capture_status(stream) == 0


@needs_capture
def test_stream_that_does_not_rejoin(stream, rng):
    host = rng.standard_normal(12)
    x = upload(host, stream)
    side = npx.Stream()
    graph = npx.Graph()
    with stream:
        with pytest.raises(CaptureError) as info:
            with graph.capture():
                side.wait_event(stream.record())
                with side:
                    y = x + 2.0                     # never joined back
        assert info.value.code == 107025
        assert "ACL_ERROR_RT_STREAM_UNJOINED" in str(info.value)
        assert not graph.is_captured
        assert capture_status(stream) == 0 and capture_status(side) == 0
        z = x * 5.0                                 # both streams run eagerly again
        with side:
            w = x - 1.0
            np.testing.assert_allclose(w.to_host(), host - 1.0)
        np.testing.assert_allclose(z.to_host(), host * 5.0)
    del y


@needs_capture
def test_waiting_on_an_event_recorded_outside_the_capture(stream, rng):
    x = upload(rng.standard_normal(5), stream)
    outside = npx.Stream().record()
    graph = npx.Graph()
    with stream:
        with pytest.raises(CaptureError) as info:
            with graph.capture():
                x + 1.0
                stream.wait_event(outside)
        assert info.value.code in (107024, 507903)
        assert capture_status(stream) == 0


@needs_capture
def test_uncaptured_use_of_an_array_the_capture_produces(stream, rng):
    host = rng.standard_normal(9)
    x = upload(host, stream)
    other = npx.Stream()
    graph = npx.Graph()
    with stream:
        with graph.capture():
            y = x * 2.0
            with other:
                with pytest.raises(CaptureError, match="no values before a replay"):
                    y + 1.0                      # other never joined: y has no values
                z = x + 1.0                      # inputs are fine: they hold values
            assert capture_status(other) == 0
            w = y - x
        graph.replay()
        np.testing.assert_allclose(w.to_host(), host)
    np.testing.assert_allclose(z.to_host(stream=other), host + 1.0)
    graph.destroy()


@needs_capture
def test_an_event_linking_two_captures(rng):
    first_stream, second_stream = npx.Stream(), npx.Stream()
    host = rng.standard_normal(7)
    x = upload(host, first_stream)
    first, second = npx.Graph(), npx.Graph()
    with first.capture(stream=first_stream):
        y = x + 1.0
        with second.capture(stream=second_stream):
            z = x * 2.0
            with pytest.raises(CaptureError) as info:
                second_stream.wait_event(first_stream.record())
            assert info.value.code == 107032
            assert "ACL_ERROR_STREAM_CAPTURE_CONFLICT" in str(info.value)
    first.replay(first_stream)
    second.replay(second_stream)
    np.testing.assert_allclose(y.to_host(stream=first_stream), host + 1.0)
    np.testing.assert_allclose(z.to_host(stream=second_stream), host * 2.0)
    first.destroy()
    second.destroy()


def run_in_thread(fn):
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc
    thread = threading.Thread(target=target)
    thread.start()
    return thread, box


@needs_capture
@pytest.mark.parametrize("capture_mode", ["global", "thread_local", "relaxed"])
def test_capture_in_one_thread_and_synchronous_copies_in_another(capture_mode, rng):
    """While thread A captures, thread B makes a synchronous copy (a read on its default
    stream): GLOBAL forbids it (107030) unless B switched itself to relaxed or
    thread_local mode; THREAD_LOCAL and RELAXED captures do not restrict other threads."""
    capture_stream = npx.Stream()
    host = rng.standard_normal(20)
    x = upload(host, capture_stream)
    other_host = rng.standard_normal(20)
    other = npx.asarray(other_host)              # default stream: synchronous
    capturing, done = threading.Event(), threading.Event()
    graph = npx.Graph()

    def capture_in_a():
        with capture_stream:
            with graph.capture(mode=capture_mode):
                y = x * 3.0
                capturing.set()
                assert done.wait(60)
        return y

    thread, box = run_in_thread(capture_in_a)
    try:
        assert capturing.wait(60)
        if capture_mode == "global":
            with pytest.raises(CaptureError) as info:
                other.to_host()
            assert info.value.code == 107030
            assert "ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT" in str(info.value)
        else:
            np.testing.assert_array_equal(other.to_host(), other_host)
        for mode in ("relaxed", "thread_local"):   # B opts out of A's global restriction
            with npx.capture_mode(mode):
                np.testing.assert_array_equal(other.to_host(), other_host)
        with pytest.raises(CaptureError) as info:
            capture_stream.synchronize()           # the captured stream: never, in any mode
        assert info.value.code == 107027
    finally:
        done.set()
        thread.join(60)
    assert "error" not in box, box.get("error")
    graph.replay(capture_stream)
    np.testing.assert_allclose(box["value"].to_host(stream=capture_stream), host * 3.0)
    graph.destroy()


@needs_capture
def test_relaxed_mode_lets_the_capturing_thread_copy_synchronously(stream, random_bytes):
    """The vendor sample's pattern: a synchronous copy in the middle of a GLOBAL capture,
    allowed once the capturing thread switched itself to RELAXED."""
    payload = random_bytes(4096)
    memory = npx.DeviceMemory(payload.nbytes)
    side = npx.default_stream()
    x = upload(np.arange(8.0), stream)
    graph = npx.Graph()
    with stream:
        with graph.capture(mode="global"):
            y = x * 0.5
            with pytest.raises(CaptureError) as info:
                memory.copy_from_host(payload, stream=side)
            assert info.value.code == 107030
            with npx.capture_mode("relaxed"):
                memory.copy_from_host(payload, stream=side)
                back = memory.copy_to_host(stream=side)
            with pytest.raises(CaptureError):
                memory.copy_to_host(stream=side)          # the block restored GLOBAL
            z = y + 1.0
        graph.replay()
        np.testing.assert_allclose(z.to_host(), np.arange(8.0) * 0.5 + 1.0)
    np.testing.assert_array_equal(back, payload)
    graph.destroy()


@needs_capture
def test_two_threads_capture_at_once_in_different_modes(rng):
    hosts = [rng.standard_normal(100) for _ in range(2)]
    barrier = threading.Barrier(2, timeout=60)
    graphs = [npx.Graph(), npx.Graph()]

    def capture(index, mode):
        stream = npx.Stream()
        x = upload(hosts[index], stream)
        stream.synchronize()
        barrier.wait()                             # set-up done before either capture begins
        with stream:
            with graphs[index].capture(mode=mode):
                y = npx.exp(x) * (index + 1)
                barrier.wait()                     # both captures are active here
                y = y + x
            barrier.wait()                         # no synchronous read during a GLOBAL one
            for _ in range(2):
                graphs[index].replay()
            return y.to_host()

    runs = [run_in_thread(lambda i=i, m=m: capture(i, m))
            for i, m in enumerate(["global", "thread_local"])]
    for thread, _ in runs:
        thread.join(60)
    for index, (_, box) in enumerate(runs):
        assert "error" not in box, box.get("error")
        np.testing.assert_allclose(box["value"],
                                   np.exp(hosts[index]) * (index + 1) + hosts[index])
        graphs[index].destroy()


@needs_capture
def test_replay_on_another_device_is_refused(stream, rng):
    if npx.device_count() < 2:
        pytest.skip("needs two devices (NPUSIM_DEVICE_COUNT >= 2)")
    x = upload(rng.standard_normal(3), stream)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            x + 1.0
    with pytest.raises(ValueError, match="captured on"):
        graph.replay(npx.Stream(1))
    graph.destroy()
