"""Which streams are being captured, by which thread, and the rules that keep a capture usable.

CANN refuses, while a stream is captured, every call that would wait for its
work or read the results on the host: stream and device synchronisation and
queries (107027), synchronising, querying or timing a captured event (107028),
synchronous copies from a thread whose capture mode forbids them (107030)
(docs/acl-abi.md section 5). A refused call may also invalidate the
capture, so npuarray checks these rules in Python first and raises a
``CaptureError`` naming the call and the rule before the runtime is touched;
the capture stays usable.

The registry is process-wide (a stream may be used by any thread); the capture
a thread is running is thread-local. Everything here costs one dictionary
truth test when no capture is active (``active``).
"""
import threading
import weakref

from .._acl import CaptureError, available, ffi, lib

ACL_ERROR_RT_STREAM_CAPTURED = 107027
ACL_ERROR_RT_EVENT_CAPTURED = 107028
ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT = 107030
ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0

active = {}           # Stream -> its Capture, for the origin and every joined stream
_lock = threading.Lock()
_tls = threading.local()


class Capture:
    """The bookkeeping of one capture in progress (owned by a Graph).

    ``streams``: the origin stream and the streams joined to it through events.
    ``before``: an Event recorded on the origin stream just before the capture began.
    ``inputs``: DeviceBuffer -> the captured stream that used it last, for every
    buffer the captured work used that the capture did not allocate (kept alive
    by the graph; each replay is ordered after the work that last used them).
    ``outputs``: the live buffers of the graph's own pool the captured work used.
    ``events``: the events recorded on captured streams (they cannot be waited
    for on the host until the capture ends).
    ``host_funcs``: the keys of the host functions captured (they run at every
    replay, so they stay registered until the graph is released).
    """

    def __init__(self, stream, pool, before):
        self.origin = stream
        self.pool = pool
        self.before = before
        self.model = None
        self.streams = {stream}
        self.inputs = {}
        self.outputs = weakref.WeakSet()
        self.events = weakref.WeakSet()
        self.host_funcs = []


# -- registration (Graph.capture) --------------------------------------------------------------

def begin(capture):
    """Registers `capture` (after aclmdlRICaptureBegin succeeded) for its origin stream and
    makes it the running capture of the calling thread."""
    capture.model = _capture_model(capture.origin)
    with _lock:
        active[capture.origin] = capture
    _thread_captures().append(capture)


def end(capture):
    """Forgets `capture` (before aclmdlRICaptureEnd): its streams are no longer captured."""
    with _lock:
        for stream in capture.streams:
            if active.get(stream) is capture:
                del active[stream]
    stack = _thread_captures()
    if capture in stack:
        stack.remove(capture)


def _thread_captures():
    stack = getattr(_tls, "captures", None)
    if stack is None:
        stack = _tls.captures = []
    return stack


def thread_capture():
    """The capture the calling thread is running (innermost), or None."""
    stack = getattr(_tls, "captures", None)
    return stack[-1] if stack else None


def _capture_model(stream):
    """The aclmdlRI being built by a capture of `stream` (aclmdlRICaptureGetInfo), or None.
    An invalidated capture still counts: its stream stays captured until the capture ends."""
    if not available("aclmdlRICaptureGetInfo"):
        return None
    status = ffi.new("aclmdlRICaptureStatus *")
    model = ffi.new("aclmdlRI *")
    if lib.aclmdlRICaptureGetInfo(stream.handle, status, model) != 0:
        lib.aclGetRecentErrMsg()  # a refused query is not an error of the caller
        return None
    if status[0] == ACL_MODEL_RI_CAPTURE_STATUS_NONE:
        return None
    return int(ffi.cast("uintptr_t", model[0]))


def capture_of(stream):
    """The Capture `stream` takes part in, or None. A stream not yet known is asked to the
    runtime: waiting on an event recorded on a captured stream joins it to that capture."""
    capture = active.get(stream)
    if capture is not None or not active:
        return capture
    model = _capture_model(stream)
    if model is None:
        return None
    with _lock:
        for capture in set(active.values()):
            if capture.model == model:
                capture.streams.add(stream)
                active[stream] = capture
                return capture
    return None


# -- hooks of the runtime and array layers -------------------------------------------------------

def capture_pool(stream, pool):
    """The pool memory for work on `stream` must come from: the graph's own pool when
    `stream` is captured (the graph references that memory at every replay, so no eager
    work may reuse it), else `pool`. Called by the memory pool's ``allocate``."""
    capture = capture_of(stream)
    return pool if capture is None else capture.pool


def prepare_captured(buffer, stream):
    """Called by ``DeviceBuffer.prepare(stream)`` while any capture is active. Returns True
    when it has ordered the use itself (the caller then does nothing), False for the
    usual event-based ordering.

    Captured work does not run, so the buffer's last-user stream (``buffer.stream``)
    is left alone for buffers made outside the capture (the graph's inputs): their
    order within the graph is tracked in ``Capture.inputs``, their order after earlier
    work is established by every replay. An uncaptured use of a buffer last used on a
    captured stream waits for what ran there before the capture; a buffer of the
    graph's own pool has no values before a replay (CaptureError)."""
    capture = capture_of(stream)
    last = buffer.stream
    if capture is None:
        return _prepare_uncaptured(buffer, stream, last)
    if buffer._pool is capture.pool:  # DeviceBuffer internals: this module is its friend
        capture.outputs.add(buffer)
        return False
    previous = capture.inputs.get(buffer)
    if previous is not None and previous is not stream:
        with previous.device:
            stream.wait_event(previous.record())   # both captured: a dependency in the graph
    capture.inputs[buffer] = stream
    return True


def _prepare_uncaptured(buffer, stream, last):
    capture = capture_of(last) if last is not None else None
    if capture is None:
        return False
    if buffer._pool is capture.pool:
        raise CaptureError(
            ACL_ERROR_RT_STREAM_CAPTURED, "an operation on " + repr(stream),
            f"the array is produced by the graph being captured on {capture.origin!r} and "
            "has no values before a replay; to capture work on another stream, fork it "
            "from a captured stream first (other.wait_event(captured.record()))")
    if last is not capture.origin:
        raise CaptureError(
            ACL_ERROR_RT_STREAM_CAPTURED, "an operation on " + repr(stream),
            f"the array was last used on {last!r}, which has joined a graph capture; its "
            "earlier work cannot be waited for until that capture ends")
    stream.wait_event(capture.before)   # the origin's work from before the capture
    buffer._stream = stream
    return True


def note_event_record(event, stream):
    """Called by ``Event.record(stream)``: an event recorded on a captured stream is a
    captured event until its capture ends; one recorded elsewhere is not."""
    if not active:
        return
    capture = capture_of(stream)
    for other in set(active.values()):
        other.events.discard(event)
    if capture is not None:
        capture.events.add(event)


def check_host_read(what):
    """A hook of the array layer's host reads (``to_host``, ``__array__``, ``bool(x)``,
    ``float(x)``, ...): CaptureError in a thread that is capturing."""
    capture = thread_capture()
    if capture is not None:
        raise CaptureError(
            ACL_ERROR_RT_STREAM_CAPTURED, what,
            f"{what} reads device data on the host, which waits for the work that "
            f"produces it; this thread is capturing a graph on {capture.origin!r}, where "
            "work is recorded, not run. Read the arrays after the capture, once "
            "Graph.replay() has run")


def check_stream_sync(what, stream):
    """CaptureError before synchronising or querying `stream` when it is captured."""
    if active and capture_of(stream) is not None:
        raise CaptureError(
            ACL_ERROR_RT_STREAM_CAPTURED, what,
            f"{stream!r} is being captured into a graph: its work is recorded, not run, "
            "so it cannot be synchronised or queried until the capture ends")


def check_device_sync(what, device_id):
    """CaptureError before synchronising device `device_id` while one of its streams is
    captured (aclrtSynchronizeDevice would wait for captured work)."""
    if active:
        for stream in list(active):
            if stream.device.id == device_id:
                raise CaptureError(
                    ACL_ERROR_RT_STREAM_CAPTURED, what,
                    f"{stream!r} of device {device_id} is being captured into a graph; the "
                    "device cannot be synchronised until the capture ends")


def check_event_sync(what, event):
    """CaptureError before synchronising, querying or timing an event recorded on a
    captured stream during its capture."""
    if active:
        for capture in set(active.values()):
            if event in capture.events:
                raise CaptureError(
                    ACL_ERROR_RT_EVENT_CAPTURED, what,
                    f"the event was recorded on {capture.origin!r} during a graph "
                    "capture: it marks recorded work, not work that runs, so it cannot "
                    "be waited for on the host, queried or timed until the capture ends")


def check_host_copy(what, stream):
    """CaptureError before copying host memory into or out of a captured stream: the
    graph would read or write that host memory again at every replay, long after the
    call returned (and the staging buffers it goes through are reused)."""
    if active and capture_of(stream) is not None:
        raise CaptureError(
            ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, what,
            f"{what} on {stream!r}, which is being captured into a graph, would touch host "
            "memory again at every replay; create the arrays before the capture "
            "(npuarray.asarray) and update them in place between replays "
            "(x[...] = new_values)")
