"""The profiler's recording side: the flag the hot paths check, and the hooks they call.

It lives in the runtime (which imports nothing above it) because the hooks sit in the
runtime's own calls; ``npuarray.profiler`` is the user side (``Profile``, exports).

Every hook site in npuarray reads one module attribute, ``active``, and does
nothing else when no profile runs:

    span = _profiler.active and _profiler.begin_launch(op_name, args, stream)
    ...the ACL calls...
    if span:
        _profiler.end(span)

``begin_*`` takes the host start time; ``end`` takes the host duration and, for
work that runs on a stream, records one timing event there after it
(aclrtRecordEvent on a pooled event created with
aclrtCreateEventExWithFlag(ACL_EVENT_TIME_LINE)), then appends the record to the
running profile. A stream's first timed work in a profile is preceded by a
baseline event. The events are resolved into device times after the profile ends
(``npuarray.profiler.Profile``): work ends when its stream reaches its event, and
starts when the stream is both past the event before it (the previous timed
work's end, or the baseline) and has been handed the work (not before the call
began on the host): a stream runs its work in order, so one event per call
gives both ends, at half the cost of an event before and after each call.
Inside a graph capture no event is recorded (an event recorded on a capturing
stream becomes part of the graph and its timestamps cannot be read: 107028), so
captured work gets host-side records only.

Launches are recorded in C where the C fast path is configured
(npuarray/_core/_fastpath.c): its own launches and small reads, and the Python
launch paths' through its ``launch_begin`` / ``launch_end``; the rest (copies,
stream waits, replays, a stream's first timed work) through the hooks here. The
timing is the same ACL calls on CANN and npusim: one aclrtRecordEvent per timed
call (npusim keeps it as a mark in its stream's order, not a task, so timing
does not change which thread runs the work it times); when the profile ends,
a synchronisation and an anchor event per stream (``anchor``); when its records
are first read, aclrtEventElapsedTime per event (``event_times``, in one C call).

Appends come from any thread: ``list.append`` is atomic and the C recorder runs
with the GIL held, so the records of all threads are collected without a lock
on the hot path.
"""
import os
import threading
import time

from .._acl import AclError, check, ffi, lib
from . import _capture_guard

ACL_EVENT_TIME_LINE = 0x00000008

active = False      # True while a profile runs: the one thing the hot paths read
_profile = None     # the running Profile
_pools = {}         # device id -> free timing events (aclrtEvent cdata) of that device


class Recording:
    """The running profile, published for a recorder without Python frames: the C fast
    path (npuarray/_core/_fastpath.c) reads these slots, set by ``start`` and ``stop``.

    ``profile``: the running profile, or None (with ``active``). ``tracks``: its
    {id(stream): track} (a track's ``events``, the timing events recorded on its stream in
    order, is empty until the stream's baseline: such a launch goes through
    ``begin_launch`` and ``end``). ``launches``: where the C recorder keeps a launch once
    it returned (its end event recorded on the stream and appended to the track, as
    ``end`` does): its ``LaunchLog`` (``launch_log``), C arrays from which the Records are
    made when the profile is first read (``launch_records``).
    ``event_pools``: the pooled timing events by device id (``take_event``'s).
    ``event_times``: set when the C fast path is configured, its ``event_times(events,
    anchor, anchor_ns)``, which reads a stream's timing events in one call (see
    ``event_times`` here); None: a Python loop. ``new_log``: set with it, the C recorder's
    ``LaunchLog`` type; None: no C recorder. ``serial``: one more at each start, so that
    the C recorder knows its cached track is of the running profile."""
    __slots__ = ("profile", "tracks", "launches", "event_pools", "event_times", "new_log",
                 "serial")

    def __init__(self):
        self.profile = self.tracks = self.launches = self.event_times = self.new_log = None
        self.event_pools = _pools
        self.serial = 0


recording = Recording()
_pid = os.getpid()  # the process that created the pooled events

_now = time.perf_counter_ns
_threads = threading.local()   # .id: the native id of this thread (asked once: a system call)


def _thread_id():
    try:
        return _threads.id
    except AttributeError:
        _threads.id = threading.get_native_id()
        return _threads.id


class Record:
    """One profiled call. Times are nanoseconds on the host clock relative to the start of
    the profile; ``device_start_ns`` / ``device_end_ns`` say when the stream ran the work
    (None for host-only calls, work captured into a graph, or a device reset meanwhile).
    The end is when the stream reached the timing event recorded after the call; the start
    is when it had passed the one before and the call had begun on the host. So on a
    stream that was idle, the interval also holds the time the stream took to begin the
    work once handed it (on npusim, a stream worker thread waiting for a CPU on a loaded
    machine: up to milliseconds for a tiny launch)."""
    __slots__ = ("kind", "name", "device", "stream", "thread", "host_start_ns",
                 "host_duration_ns", "shapes", "dtypes", "nbytes", "captured",
                 "device_start_ns", "device_end_ns", "_events")

    def __init__(self, kind, name, device, stream, shapes=(), dtypes=(), nbytes=0):
        self.kind = kind              # launch, copy, event_record, event_wait, synchronize, replay, memset
        self.name = name              # aclnn operator, ACL_MEMCPY_* kind, or ACL call
        self.device = device          # device id (None for a call not tied to one)
        self.stream = stream          # the npuarray Stream (None for a call not tied to one)
        self.thread = _thread_id()
        self.shapes = shapes          # shapes of the NPUArray arguments (launches)
        self.dtypes = dtypes          # NumPy dtypes of the NPUArray arguments (launches)
        self.nbytes = nbytes
        self.captured = False
        self.host_start_ns = 0
        self.host_duration_ns = 0
        self.device_start_ns = None
        self.device_end_ns = None
        self._events = None           # the _Track (begun), then the end event, until resolved

    @property
    def device_duration_ns(self):
        """How long the stream spent on the work (None without device times)."""
        if self.device_start_ns is None:
            return None
        return self.device_end_ns - self.device_start_ns

    def __repr__(self):
        where = "" if self.device is None else " device %d" % self.device
        return "<Record %s %s%s host %d ns>" % (self.kind, self.name, where,
                                               self.host_duration_ns)


# -- starting and stopping ------------------------------------------------------------------

_switch = threading.Lock()   # profiles may start and stop on any thread


def launch_log():
    """A new store for the C recorder's launches (``Recording.launches``): a ``LaunchLog``
    when the C fast path is configured, else an empty list (nothing records into it).
    ``launch_records`` reads either."""
    return recording.new_log() if recording.new_log is not None else []


def launch_records(launches, origin, times, before):
    """The Records of what `launches` (``launch_log``'s) holds, every slot set: host times
    made relative to `origin`, device times resolved from `times` ({timing event: ns its
    stream reached it}) and `before` ({timing event: ns its stream reached the one
    before}) as ``npuarray.profiler.Profile`` resolves the hooks' records. A LaunchLog
    makes them in C (``LaunchLog.records``); a list (no C recorder) holds none."""
    return [] if isinstance(launches, list) else launches.records(Record, origin, times, before)


def start(profile, tracks, launches):
    """Makes `profile` the running one, with its {id(stream): track} dict `tracks` and its
    store `launches` (``launch_log``'s; see ``Recording``); RuntimeError when another one
    runs."""
    global active, _profile
    with _switch:
        if _profile is not None:
            raise RuntimeError("a profile is already running in this process; npuarray keeps "
                               "one profile at a time (it records every thread): end it first")
        recording.tracks, recording.launches = tracks, launches
        recording.serial += 1
        _profile = recording.profile = profile
        active = True


def stop(profile):
    """Stops recording for `profile` (no-op when it is not the running one)."""
    global active, _profile
    with _switch:
        if _profile is profile:
            active = False
            _profile = recording.profile = recording.tracks = recording.launches = None


def _after_fork_in_child():
    """The child of a fork has none of the parent's runtime threads: its copy of a running
    profile stops recording, and the pooled event handles (the parent's) are forgotten."""
    global active, _profile, _pid
    active = False
    _profile = recording.profile = recording.tracks = recording.launches = None
    _pools.clear()
    _pid = os.getpid()


os.register_at_fork(after_in_child=_after_fork_in_child)


# -- timing events ----------------------------------------------------------------------

def take_event(device_id):
    """A timing event of `device_id` from the pool (created when the pool is empty);
    the caller has activated the device."""
    pool = _pools.get(device_id)
    if pool:
        try:
            return pool.pop()
        except IndexError:  # another thread took the last one
            pass
    handle = ffi.new("aclrtEvent *")
    ret = lib.aclrtCreateEventExWithFlag(handle, ACL_EVENT_TIME_LINE)
    if ret:
        check(ret, "aclrtCreateEventExWithFlag")
    return handle[0]


def give_back(device_id, events):
    """Returns resolved timing events to the pool of `device_id` (Ex events may be
    recorded again: CANN's aclrtRecordEvent documentation). Copied into the pool, even an
    empty one: the copy touches each event once, in one loop, and so brings back into
    the cache the events the next profile takes first (measured: handing the list over
    as the pool left each event a miss in the next profile's launches instead)."""
    if os.getpid() == _pid:
        _pools.setdefault(device_id, []).extend(events)


def record_timing_event(track, stream):
    """Records a pooled timing event on `stream` (whose _Track in the running profile is
    `track`) and returns it; None when the runtime refuses (the device was reset since the
    event was pooled, or the stream failed): the record then keeps host times only, and
    the user's call goes on. Every hook site has made the stream's device current already."""
    device_id = stream.device.id
    for _ in range(2):
        try:
            event = take_event(device_id)
        except AclError:
            return None
        if lib.aclrtRecordEvent(event, stream.handle) == 0:
            track.events.append(event)  # given back at the end, even if the span never ends
            return event
        _pools.pop(device_id, None)     # stale handles (aclrtResetDevice): start afresh
    return None


def anchor(stream, events):
    """Synchronises `stream` and records an anchor timing event on it, now idle: returns
    how many of `events` (the timing events recorded on it, in record order) were recorded
    before, the anchor and the host time (ns) by which the stream had reached the anchor
    (``_anchor``). The anchor is appended to `events` (to go back to the pool with them),
    as may be, meanwhile, the event of a span still closing on another thread: only the
    first ones are the profile's. The caller has activated the stream's device (this
    module is below the device module)."""
    recorded = len(events)
    check(lib.aclrtSynchronizeStream(stream.handle), "aclrtSynchronizeStream")
    anchor_event, anchor_ns = _anchor(stream, stream.device.id, events)
    return recorded, anchor_event, anchor_ns


def event_times(recorded, anchor_event, anchor_ns):
    """The host-clock times (ns) at which a stream reached each of its timing events
    `recorded` (in record order), given ``anchor``'s anchor event and host time.

    aclrtEventElapsedTime measures between two events recorded on one stream once the
    stream is synchronised (hicann/runtime docs/zh/api_ref/07_event_management.md): each
    event's time is the anchor's host time minus the elapsed time from the event to the
    anchor. Events complete in record order, so the times are made non-decreasing in that
    order (float32 milliseconds round by a few nanoseconds). The same ACL calls on CANN
    and npusim; the C fast path, when configured, makes them in one call
    (``Recording.event_times``). The caller has activated the events' device; AclError
    when the runtime refuses an event (the device was reset since)."""
    in_c = recording.event_times
    times = in_c(recorded, anchor_event, anchor_ns) if in_c is not None else None
    if times is None:   # no C loop, or it met a refusal: this loop raises its AclError
        ms = ffi.new("float *")
        times, previous = [], None
        for event in recorded:
            check(lib.aclrtEventElapsedTime(ms, event, anchor_event), "aclrtEventElapsedTime")
            time_ns = anchor_ns - round(ms[0] * 1e6)
            if previous is not None and time_ns < previous:
                time_ns = previous
            times.append(time_ns)
            previous = time_ns
    return times


def give_back_unread(unread):
    """Gives back the timing events of a profile dropped before its times were read
    (``Profile._unread``: device id and events first in each entry)."""
    for device_id, events, *_ in unread:
        give_back(device_id, events)
    unread.clear()


_ANCHOR_TRIES = 4           # anchors recorded at most when the host is interrupted
_ANCHOR_WINDOW_NS = 20_000  # a reading this close to its record is kept at once


def _anchor(stream, device_id, events):
    """An anchor timing event recorded on the idle `stream` (appended to `events`), and the
    host time (ns) by which the stream had reached it: the host clock read after the
    synchronisation that follows the record. It was reached after the clock read before
    the record, so the error is at most the time between the two readings. Every device
    time of the stream is shifted by that error: a host thread descheduled in between (a
    millisecond or more on a loaded machine) made the first launch after an idle stream,
    whose device start is its host start, look that much longer. So while the two readings
    are more than ``_ANCHOR_WINDOW_NS`` apart the anchor is recorded again, up to
    ``_ANCHOR_TRIES`` times, and the closest pair is kept."""
    best = None
    for _ in range(_ANCHOR_TRIES):
        event = take_event(device_id)
        events.append(event)
        before = _now()
        check(lib.aclrtRecordEvent(event, stream.handle), "aclrtRecordEvent")
        check(lib.aclrtSynchronizeStream(stream.handle), "aclrtSynchronizeStream")
        after = _now()
        if best is None or after - before < best[0]:
            best = (after - before, event, after)
        if after - before <= _ANCHOR_WINDOW_NS:
            break
    return best[1], best[2]


def capturing(stream):
    """Whether `stream` is being captured into a graph now."""
    return bool(_capture_guard.active) and _capture_guard.capture_of(stream) is not None


# -- hooks ----------------------------------------------------------------------------------

def _begin_device(record, stream):
    """Opens `record` for work on `stream`, timed (by the event its end records) unless
    captured; the stream's first timed work in the profile records a baseline first."""
    profile = _profile
    if profile is None:   # the profile ended meanwhile (another thread)
        return None
    if capturing(stream):
        record.captured = True
    else:
        track = profile.track(stream)
        if track.events or record_timing_event(track, stream) is not None:
            record._events = track
    record.host_start_ns = _now()
    return record


def begin_launch(op_name, args, stream):
    """Opens the record of a launch of aclnn operator `op_name` (its NPUArray arguments
    give the shapes and dtypes) on `stream`."""
    shapes, dtypes = [], []
    for arg in args:
        shape = getattr(arg, "_shape", None)   # NPUArrays only (not scalars, not handles)
        if shape is not None:
            shapes.append(shape)
            dtypes.append(arg._dtype)           # a NumPy dtype: named only when exported
    record = Record("launch", op_name, stream.device.id, stream, tuple(shapes), tuple(dtypes))
    return _begin_device(record, stream)


_COPY_KINDS = {0: "ACL_MEMCPY_HOST_TO_HOST", 1: "ACL_MEMCPY_HOST_TO_DEVICE",
               2: "ACL_MEMCPY_DEVICE_TO_HOST", 3: "ACL_MEMCPY_DEVICE_TO_DEVICE"}


def begin_copy(kind, nbytes, stream):
    """Opens the record of a copy of `nbytes` bytes of aclrtMemcpyKind `kind` on `stream`."""
    record = Record("copy", _COPY_KINDS.get(int(kind), str(kind)), stream.device.id, stream,
                    nbytes=int(nbytes))
    return _begin_device(record, stream)


def begin_stream_work(kind, name, stream, nbytes=0):
    """Opens the record of other work on `stream` whose device interval matters: a stream
    waiting on an event (event_wait), a graph replay (replay) or a memset of `nbytes`."""
    return _begin_device(Record(kind, name, stream.device.id, stream, nbytes=nbytes), stream)


def begin_host(kind, name, device=None, stream=None):
    """Opens the record of a host-side call (event record, synchronisation): host times only."""
    if _profile is None:
        return None
    record = Record(kind, name, device, stream)
    if stream is not None and capturing(stream):
        record.captured = True
    record.host_start_ns = _now()
    return record


def end(record):
    """Closes `record` (the call returned): host duration, closing timing event, append."""
    record.host_duration_ns = _now() - record.host_start_ns
    profile = _profile
    if profile is None:    # ended meanwhile: the record falls outside the profile
        return
    if record._events is not None:
        if capturing(record.stream):   # joined a capture meanwhile (it waited on a captured event)
            record._events = None
            record.captured = True
        elif profile.track(record.stream) is not record._events:
            record._events = None      # begun in an earlier profile: no baseline here
        else:
            record._events = record_timing_event(record._events, record.stream)
    incoming = profile.incoming
    if incoming is not None:   # None: the profile ended meanwhile (on another thread)
        incoming.append(record)
