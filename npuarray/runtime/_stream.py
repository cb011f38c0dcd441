"""Streams: in-order device work queues, the thread's current stream, and host functions.

The current stream is thread-local and per device: ``with s:`` makes ``s`` current
for its device (and makes that device current) in this thread, and restores what
was current before on exit, as PyTorch does. When no stream is current, a
device's default stream is one npuarray creates (never ACL's NULL stream, which
some products reject and capture cannot use).

Events are markers recorded in a stream, to wait for, query, or time work (one module
with the streams, as each is made from the other: ``Stream.record`` returns an Event,
``Event.record`` takes a Stream).

Events are created with aclrtCreateEventExWithFlag(ACL_EVENT_SYNC [| ACL_EVENT_TIME_LINE]):
SYNC so other streams can wait on them (aclrtStreamWaitEvent) and the host can
synchronise on them; TIME_LINE only when timing is asked for, because
timestamps cost; the "Ex" kind can be re-recorded freely (CANN's capture samples
use the same flags). Status is read with aclrtQueryEventStatus, the query that
Ex events support.
"""
import itertools
import threading
import time
import weakref

from .._acl import InvalidValueError, available, check, ffi, lib
from . import _capture_guard as _capture, _device, _racecheck
from ._device import Device, activate, as_device_id, keep_at_exit
from . import _profiler

ACL_ERROR_RT_PARAM_INVALID = 107000

# device id -> its default Stream: filled once per device, never emptied or rebound (the
# C fast path, npuarray/_core/_fastpath.c, holds this dict and reads it per operation).
default_streams = {}
_default_lock = threading.Lock()
# Per thread: ``current`` {device id: Stream} of the innermost ``with stream:`` blocks (read
# by name by the C fast path as well as by current_stream_of), ``stack`` what they replaced.
thread_state = threading.local()


class Stream:
    """An ACL stream (aclrtCreateStream) on `device` (default: the current device).

    ``.handle`` is the aclrtStream cdata to pass to ACL / aclnn calls, ``.device``
    the Device. Work enqueued on a stream runs in order, asynchronously to the
    host. The stream is destroyed (after its work finishes) when garbage collected.
    """
    __slots__ = ("device", "handle", "_errors", "_finalizer", "_companion", "_waited",
                 "_mark", "_marked", "_next_check", "__weakref__")

    def __init__(self, device=None):
        device_id = as_device_id(device)
        activate(device_id)
        handle = ffi.new("aclrtStream *")
        check(lib.aclrtCreateStream(handle), "aclrtCreateStream")
        self.device = Device(device_id)
        self.handle = handle[0]
        self._errors = []
        self._companion = None
        # Events this stream was told to wait on, kept alive until the stream has passed
        # the waits: CANN requires a wait to complete before aclrtDestroyEvent (torch_npu
        # defers the destroy likewise). The finalizer holds the list so that the events
        # outlive the stream's final synchronisation.
        self._waited = []
        self._mark, self._marked, self._next_check = None, 0, self._WAITED_CHECK
        self._finalizer = keep_at_exit(
            weakref.finalize(self, _destroy_stream, device_id, self.handle, self._errors,
                             self._waited))
        _device.add_stream(device_id, self)

    # -- the current stream ------------------------------------------------------------

    def __enter__(self):
        device_id = self.device.id
        current = _current_streams()
        saved = (_device.current_device_id(), device_id, current.get(device_id))
        thread_state.__dict__.setdefault("stack", []).append(saved)
        current[device_id] = self
        _device.set_current_device_id(device_id)
        return self

    def __exit__(self, *exc):
        previous_device, device_id, previous_stream = thread_state.stack.pop()
        current = _current_streams()
        if previous_stream is None:
            current.pop(device_id, None)
        else:
            current[device_id] = previous_stream
        _device.set_current_device_id(previous_device)
        return False

    # -- work and synchronisation ------------------------------------------------------

    @property
    def is_default(self):
        """Whether this is the default stream npuarray created for its device."""
        return default_streams.get(self.device.id) is self

    def synchronize(self):
        """Blocks the host until all work queued on this stream is done
        (aclrtSynchronizeStream); then re-raises the first exception raised by a
        host function of this stream since the last synchronisation."""
        if _capture.active:
            _capture.check_stream_sync("Stream.synchronize", self)
        activate(self.device.id)
        span = _profiler.active and _profiler.begin_host("synchronize", "aclrtSynchronizeStream",
                                                         self.device.id, self)
        ret = lib.aclrtSynchronizeStream(self.handle)
        if span:
            _profiler.end(span)
        if ret:  # (the hot path: an idle stream costs little more than this call)
            check(ret, "aclrtSynchronizeStream")
        if self._waited:
            self._waited.clear()
            self._marked, self._next_check = 0, self._WAITED_CHECK
        if self._errors:
            self._raise_errors()
        if _racecheck.warning:
            _racecheck.emit_warnings()

    def query(self):
        """True when all work queued on this stream is done (aclrtStreamQuery); never blocks."""
        if _capture.active:
            _capture.check_stream_sync("Stream.query", self)
        status = ffi.new("aclrtStreamStatus *")
        activate(self.device.id)
        check(lib.aclrtStreamQuery(self.handle, status), "aclrtStreamQuery")
        return status[0] == lib.ACL_STREAM_STATUS_COMPLETE

    def wait_event(self, event):
        """Makes later work on this stream wait until `event` completes (aclrtStreamWaitEvent);
        the host does not block. An event recorded on this same stream is fine; one
        never recorded is a no-op (as in CUDA). TypeError when `event` is not an Event."""
        if not isinstance(event, Event):
            raise TypeError(f"wait_event() needs an npuarray.Event, got {type(event).__name__}")
        if event.handle is None:
            return
        activate(self.device.id)
        self._forget_passed_waits()
        span = _profiler.active and _profiler.begin_stream_work("event_wait",
                                                                "aclrtStreamWaitEvent", self)
        check(lib.aclrtStreamWaitEvent(self.handle, event.handle), "aclrtStreamWaitEvent")
        if span:
            _profiler.end(span)
        self._waited.append(event)

    _WAITED_CHECK = 16   # every this many kept events, the stream's progress is looked at

    def _forget_passed_waits(self):
        """Releases the events this stream waited on once it has passed the waits. Every few
        waits (never during a capture, where records and queries are captured or refused)
        the stream is asked whether it is idle, and a marker event is recorded on it after
        the waits kept so far: once the stream is idle, or the marker has completed, those
        waits have passed and their events may be destroyed (a stream given work between
        its waits is rarely idle when asked)."""
        waited = self._waited
        if len(waited) < self._next_check or _capture.active:
            return
        status = ffi.new("aclrtStreamStatus *")
        if (lib.aclrtStreamQuery(self.handle, status) == 0
                and status[0] == lib.ACL_STREAM_STATUS_COMPLETE):
            waited.clear()   # idle: it passed them all
            self._marked = 0
        elif self._marked and self._mark.query():
            del waited[:self._marked]
            self._marked = 0
        if not self._marked:
            self._mark = self.record(self._mark)   # a new Event the first time
            self._marked = len(waited)
        self._next_check = len(waited) + self._WAITED_CHECK

    def wait_stream(self, other):
        """Makes later work on this stream wait for the work queued so far on `other`."""
        self.wait_event(other.record())

    def record(self, event=None):
        """Records `event` (a new Event when None) at this point of the stream; returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def launch_host_func(self, fn):
        """Runs the Python callable `fn()` in stream order on a runtime thread
        (aclrtLaunchHostFunc; on CANN 8.1, aclrtLaunchCallback served by a report
        thread): after the work queued before it, and before the work queued after it.
        `fn` must not call ACL / npuarray functions. Captured into a graph, it runs at
        every replay. An exception it raises is kept and re-raised by this stream's
        next ``synchronize()`` (or its device's; also when the stream is garbage
        collected first) instead of crashing the runtime thread."""
        if not callable(fn):
            raise TypeError("launch_host_func needs a callable, got %r" % (fn,))
        key = next(_host_keys)
        capture = _capture.capture_of(self) if _capture.active else None
        _pending_host_funcs[key] = (fn, self._errors, capture is not None)
        if capture is not None:  # it runs at every replay: the graph unregisters it
            capture.host_funcs.append(key)
        activate(self.device.id)
        try:
            _launch_host_function(self, ffi.cast("void *", key))
        except BaseException:
            _pending_host_funcs.pop(key, None)
            raise

    def companion(self):
        """A helper stream of this stream's own (same device, created on first use) for
        host-side work that should overlap this stream's device work, e.g. unstaging
        chunks of a copy. Errors of its host functions are reported by this stream."""
        if self._companion is None:
            companion = Stream(self.device.id)
            companion._errors = self._errors
            self._companion = companion
        return self._companion

    def _raise_errors(self):
        if self._errors:
            error = self._errors.pop(0)
            self._errors.clear()
            raise error

    def __eq__(self, other):
        return isinstance(other, Stream) and other.handle == self.handle

    def __hash__(self):
        return hash(int(ffi.cast("uintptr_t", self.handle)))

    def __repr__(self):
        kind = "default stream" if self.is_default else "Stream"
        return "<npuarray.%s 0x%x on device %d>" % (
            kind, int(ffi.cast("uintptr_t", self.handle)), self.device.id)


def _destroy_stream(device_id, handle, errors, waited):
    def release():
        activate(device_id)
        if _reporter is not None:
            _reporter.forget(handle)
        # CANN (acl_rt.h) requires a stream's tasks to be complete before aclrtDestroyStream;
        # then the events it waited on may go. Nothing to report from a finalizer.
        lib.aclrtSynchronizeStream(handle)
        lib.aclrtDestroyStream(handle)
        waited.clear()
        if errors:  # its host functions failed and nobody synchronised it: the device reports
            _device.add_orphaned_error(device_id, errors[0])
    _device.release_later_if_needed(release)


# -- host functions ---------------------------------------------------------------------

_host_keys = itertools.count(1)
_pending_host_funcs = {}   # key -> (callable, error list of its stream, captured); kept until
                           # run, or for a captured one until its graph is released


def forget_host_functions(keys):
    """Unregisters the host functions of a released graph (their keys)."""
    for key in keys:
        _pending_host_funcs.pop(key, None)


@ffi.callback("void(void *)")
def _host_trampoline(args):
    key = int(ffi.cast("uintptr_t", args))
    fn, errors, captured = _pending_host_funcs.get(key, (None, None, False))
    if fn is None:
        return
    if not captured:
        del _pending_host_funcs[key]
    _device.set_in_host_function(True)
    try:
        fn()
    except BaseException as exc:  # never let an exception escape into the runtime thread
        errors.append(exc)
    finally:
        _device.set_in_host_function(False)


def host_functions_available():
    """Whether the runtime can run host functions in stream order (either mechanism)."""
    return available("aclrtLaunchHostFunc") or available("aclrtLaunchCallback")


def _launch_with_host_func(stream, args):
    check(lib.aclrtLaunchHostFunc(stream.handle, _host_trampoline, args), "aclrtLaunchHostFunc")


def _launch_with_callback(stream, args):
    global _reporter
    if _reporter is None:
        with _reporter_lock:
            if _reporter is None:
                _reporter = _ReportThread()
    _reporter.launch(stream, args)


def _launch_host_function(stream, args):
    """aclrtLaunchHostFunc where the runtime has it (npusim, CANN >= 8.2), else
    aclrtLaunchCallback served by a report thread (CANN 8.1)."""
    global _launch_host_function
    _launch_host_function = (_launch_with_host_func if available("aclrtLaunchHostFunc")
                             else _launch_with_callback)
    _launch_host_function(stream, args)


class _ReportThread:
    """Runs aclrtLaunchCallback callbacks: a daemon thread subscribed (aclrtSubscribeReport)
    to every stream that launches one, looping on aclrtProcessReport. The callbacks block
    their stream until they return (ACL_CALLBACK_BLOCK), like host functions."""
    POLL_SECONDS = 0.1

    def __init__(self):
        self._lock = threading.Lock()
        self._subscribed = set()         # stream handles as ints
        self._device = None              # the serving thread's context: the first stream's
        self._started = threading.Event()
        self._has_streams = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="npuarray-host-callbacks",
                                        daemon=True)
        self._thread.start()
        self._started.wait()

    def _serve(self):
        self.ident = threading.get_ident()   # the pthread id aclrtSubscribeReport wants
        self._started.set()
        self._has_streams.wait()
        # A raw call, so that this thread's callbacks stay refused by activate().
        lib.aclrtSetDevice(self._device)
        timeout_ms = int(self.POLL_SECONDS * 1000)
        while True:
            ret = lib.aclrtProcessReport(timeout_ms)
            if ret == ACL_ERROR_THREAD_NOT_SUBSCRIBE:
                with self._lock:             # cleared only while nothing is subscribed
                    if not self._subscribed:
                        self._has_streams.clear()
                self._has_streams.wait(self.POLL_SECONDS)
            elif ret not in (0, ACL_ERROR_WAIT_CALLBACK_TIMEOUT):
                time.sleep(self.POLL_SECONDS)  # unexpected: retry later, never spin

    def launch(self, stream, args):
        with self._lock:
            key = int(ffi.cast("uintptr_t", stream.handle))
            if key not in self._subscribed:
                check(lib.aclrtSubscribeReport(self.ident, stream.handle), "aclrtSubscribeReport")
                self._subscribed.add(key)
                if self._device is None:
                    self._device = stream.device.id
                self._has_streams.set()
        check(lib.aclrtLaunchCallback(_host_trampoline, args, lib.ACL_CALLBACK_BLOCK,
                                      stream.handle), "aclrtLaunchCallback")

    def forget(self, handle):
        """Before a stream is destroyed: lets its callbacks run, then unsubscribes it."""
        key = int(ffi.cast("uintptr_t", handle))
        with self._lock:
            if key not in self._subscribed:
                return
            self._subscribed.discard(key)
        lib.aclrtSynchronizeStream(handle)
        lib.aclrtUnSubscribeReport(self.ident, handle)


_reporter = None
_reporter_lock = threading.Lock()
ACL_ERROR_THREAD_NOT_SUBSCRIBE = 100035
ACL_ERROR_WAIT_CALLBACK_TIMEOUT = 100036


# -- current and default streams --------------------------------------------------------

def _current_streams():
    try:
        return thread_state.current
    except AttributeError:
        thread_state.current = {}
        return thread_state.current


def default_stream(device=None):
    """The default stream of `device` (default: current device): a Stream npuarray
    creates once per device and process (never ACL's NULL stream)."""
    device_id = as_device_id(device)
    stream = default_streams.get(device_id)
    if stream is None:
        with _default_lock:
            stream = default_streams.get(device_id)
            if stream is None:
                stream = Stream(device_id)
                default_streams[device_id] = stream
    return stream


def current_stream_of(device):
    """``get_current_stream(device)`` for an ``npuarray.Device`` (not an id or None),
    without the argument normalisation: every operation of the array layer looks
    up its stream here, so the common case is two dict lookups."""
    device_id = device.id
    current = thread_state.__dict__.get("current")
    stream = current.get(device_id) if current else None
    if stream is None:
        stream = default_streams.get(device_id) or default_stream(device_id)
    return stream


def get_current_stream(device=None):
    """This thread's current stream of `device` (default: the current device): the one of
    the innermost ``with stream:`` block, else the device's default stream."""
    device_id = as_device_id(device)
    stream = _current_streams().get(device_id)
    return stream if stream is not None else default_stream(device_id)


def as_stream(stream):
    """`stream`, or the current stream when None; TypeError for anything else."""
    if stream is None:
        return get_current_stream()
    if not isinstance(stream, Stream):
        raise TypeError("expected an npuarray.Stream, got %s" % type(stream).__name__)
    return stream


def check_stream_device(stream, device_id, what):
    """InvalidValueError (107000) unless `stream` belongs to device `device_id`."""
    if stream.device.id != device_id:
        raise InvalidValueError(ACL_ERROR_RT_PARAM_INVALID, what,
                                "the stream is on device %d but the memory is on device %d"
                                % (stream.device.id, device_id))


# -- events ---------------------------------------------------------------------------------

ACL_EVENT_SYNC = 0x00000001
ACL_EVENT_TIME_LINE = 0x00000008


class Event:
    """A point in a stream (CUDA-like semantics).

    ``timing=True`` lets ``elapsed_time`` measure between two recorded events.
    ``blocking`` is accepted for CUDA/PyTorch compatibility: ACL always blocks
    the waiting host thread (it has no spin-wait choice). ``.handle`` is the
    aclrtEvent cdata, created on the device of the first stream the event is
    recorded on (None before). Destroyed when garbage collected.
    """
    __slots__ = ("handle", "timing", "blocking", "device", "_recorded", "_finalizer",
                 "__weakref__")

    def __init__(self, *, timing=False, blocking=False):
        self.handle = None
        self.timing = bool(timing)
        self.blocking = bool(blocking)
        self.device = None
        self._recorded = False
        self._finalizer = None

    def _create(self, device_id):
        # Created at the first record, on the recording stream's device (as PyTorch does).
        flags = ACL_EVENT_SYNC | (ACL_EVENT_TIME_LINE if self.timing else 0)
        handle = ffi.new("aclrtEvent *")
        check(lib.aclrtCreateEventExWithFlag(handle, flags), "aclrtCreateEventExWithFlag")
        self.handle = handle[0]
        self.device = device_id
        self._finalizer = keep_at_exit(
            weakref.finalize(self, _destroy_event, device_id, self.handle))

    def record(self, stream=None):
        """Records the event on `stream` (default: the current stream), after the work
        queued there so far (aclrtRecordEvent). Returns self. An event stays on the
        device of the first stream it was recorded on (ValueError for another device)."""
        stream = as_stream(stream)
        device_id = stream.device.id
        activate(device_id)
        if self.handle is None:
            self._create(device_id)
        elif self.device != device_id:
            raise ValueError("this event belongs to device %d; it cannot be recorded on a "
                             "stream of device %d" % (self.device, device_id))
        span = _profiler.active and _profiler.begin_host("event_record", "aclrtRecordEvent",
                                                         device_id, stream)
        check(lib.aclrtRecordEvent(self.handle, stream.handle), "aclrtRecordEvent")
        if span:
            _profiler.end(span)
        self._recorded = True
        if _capture.active:
            _capture.note_event_record(self, stream)
        return self

    def synchronize(self):
        """Blocks the host until the work before the last record is done
        (aclrtSynchronizeEvent). Returns at once for an event never recorded."""
        if not self._recorded:
            return
        if _capture.active:
            _capture.check_event_sync("Event.synchronize", self)
        activate(self.device)
        span = _profiler.active and _profiler.begin_host("synchronize", "aclrtSynchronizeEvent",
                                                         self.device)
        check(lib.aclrtSynchronizeEvent(self.handle), "aclrtSynchronizeEvent")
        if span:
            _profiler.end(span)

    def query(self):
        """True when the work before the last record is done (never recorded: True); never blocks."""
        if not self._recorded:
            return True
        if _capture.active:
            _capture.check_event_sync("Event.query", self)
        status = ffi.new("aclrtEventRecordedStatus *")
        activate(self.device)
        check(lib.aclrtQueryEventStatus(self.handle, status), "aclrtQueryEventStatus")
        return status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE

    def elapsed_time(self, end):
        """Milliseconds (float) from this event to `end` (aclrtEventElapsedTime).

        Both events must have been created with ``timing=True`` and recorded, and
        must have completed (synchronise on `end` first); else ValueError."""
        if not (self.timing and end.timing):
            raise ValueError("elapsed_time needs two events created with Event(timing=True)")
        if not (self._recorded and end._recorded):
            raise ValueError("elapsed_time needs both events recorded on a stream first")
        if _capture.active:
            _capture.check_event_sync("Event.elapsed_time", self)
            _capture.check_event_sync("Event.elapsed_time", end)
        ms = ffi.new("float *")
        activate(self.device)
        check(lib.aclrtEventElapsedTime(ms, self.handle, end.handle), "aclrtEventElapsedTime")
        return float(ms[0])

    def __repr__(self):
        where = "device %d" % self.device if self._recorded else "not recorded"
        return "<npuarray.Event %s timing=%s>" % (where, self.timing)


def _destroy_event(device_id, handle):
    def release():
        activate(device_id)
        lib.aclrtDestroyEvent(handle)  # nothing to report from a finalizer
    _device.release_later_if_needed(release)
