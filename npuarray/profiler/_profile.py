"""``npuarray.profile()``: the profile object, and how device times are resolved.

Device times come from the timing events recorded around each piece of device
work (see ``_recorder``). CANN's ``aclrtEventElapsedTime`` measures between two
events recorded on one stream once that stream is synchronised
(hicann/runtime docs/zh/api_ref/07_event_management.md), so when the profile
ends each stream it saw is synchronised, an *anchor* event is recorded on it
(the stream is then idle: the anchor completes at once) and synchronised, and
the host clock read at that moment. Each event's device time is the anchor's
host time minus the elapsed time from the event to the anchor: the same code
gives real device times on CANN and the worker threads' real times on npusim,
on the host clock of the host records. Events complete in the order they were
recorded on a stream, so the times of one stream are made non-decreasing in
that order (float32 milliseconds round by a few nanoseconds).
"""
import os
import time

from .._acl import AclError, check, ffi, lib
from ..runtime._device import activate
from . import _export, _recorder

_now = time.perf_counter_ns


class _Track:
    """What the profile knows of one stream: the stream (kept alive until the end, so its
    events can be resolved) and the timing events recorded on it, in record order."""
    __slots__ = ("stream", "events")

    def __init__(self, stream):
        self.stream = stream
        self.events = []


class Profile:
    """A profile of everything npuarray asks of the NPU runtime while it runs.

    Use ``with npuarray.profile() as prof:``. Between ``__enter__`` and ``__exit__``
    every thread's operator launches (aclnn name, argument shapes and dtypes), copies
    (ACL_MEMCPY_* kind, bytes), event records and stream waits, stream and event
    synchronisations and graph replays are recorded, each with its device, stream,
    host thread, host start time and host duration; launches, copies, stream waits and
    replays also get the interval during which their stream ran them (device times,
    resolved when the profile ends, which synchronises the streams it used). Work
    captured into a graph gets host times only (its device times belong to the
    replays). One profile runs at a time in a process: entering a second one raises
    RuntimeError. In the child of a fork the profile stops recording; after
    ``aclrtResetDevice`` the records of that device keep their host times only.

    After the block: ``records`` (list of ``Record``, by host start time),
    ``duration_ns`` (the profile window, host clock), ``summary()``,
    ``key_averages()``, ``export_chrome_trace(path)``, ``plot(path)``.
    """

    def __init__(self):
        self.records = []
        self.duration_ns = None
        self._tracks = {}
        self._origin = None
        self._pid = os.getpid()

    # -- running ---------------------------------------------------------------------------

    def __enter__(self):
        if self._origin is not None:
            raise RuntimeError("a Profile runs once; use a new npuarray.profile()")
        _recorder.start(self)
        self._origin = _now()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def stop(self):
        """Ends the profile (what leaving the ``with`` block does): no more records; the
        streams used are synchronised and the device times resolved."""
        if self.duration_ns is not None or self._origin is None:
            return
        _recorder.stop(self)
        try:
            if os.getpid() == self._pid:   # a forked child has none of the runtime's threads
                by_stream = {}
                for record in self.records:
                    if record._events is not None:
                        by_stream.setdefault(id(record.stream), []).append(record)
                for key, track in self._tracks.items():
                    self._resolve(track, by_stream.get(key, ()))
        finally:
            self._tracks.clear()
            self._finish()

    def track(self, stream):
        """The _Track of `stream` (created on first use; called by the recorder). Keyed by
        id(): the track keeps the stream alive, and Stream.__hash__ costs a cffi call."""
        track = self._tracks.get(id(stream))
        if track is None:
            track = self._tracks.setdefault(id(stream), _Track(stream))
        return track

    # -- resolving device times -----------------------------------------------------------

    def _resolve(self, track, records):
        """Sets the device times of `records`, the timed records of `track`'s stream."""
        stream = track.stream
        device_id = stream.device.id
        times = None
        try:
            if not _recorder._capturing(stream):
                times = _event_times(track, device_id)
        except (AclError, RuntimeError):
            times = None   # the device was reset, or the stream failed: host times only
        else:
            _recorder.give_back(device_id, track.events)
        if times is None:
            return
        origin = self._origin
        for record in records:
            start, end = record._events
            record.device_start_ns = times[start] - origin
            record.device_end_ns = times[end] - origin

    def _finish(self):
        end = _now()
        for record in self.records:
            record.host_start_ns -= self._origin
            record._events = None
        self.records.sort(key=lambda r: r.host_start_ns)
        self.duration_ns = end - self._origin

    # -- results ---------------------------------------------------------------------------

    def _check_done(self, what):
        if self.duration_ns is None:
            raise RuntimeError(f"Profile.{what}() needs the profile to have ended (leave the "
                               "`with npuarray.profile()` block first)")

    def key_averages(self):
        """One ``SummaryRow`` per operator / copy kind / runtime call name: count, host and
        device totals and means (microseconds), bytes (copies)."""
        self._check_done("key_averages")
        return _export.key_averages(self.records)

    def summary(self, sort_by="device_total", limit=None):
        """A table by name (like torch.profiler's ``key_averages().table()``): count, host
        total and mean, device total and mean (microseconds), bytes. ``sort_by``: one of
        ``name``, ``kind``, ``count``, ``host_total``, ``host_mean``, ``device_total``,
        ``device_mean``, ``bytes`` (ValueError otherwise); numbers sort largest first.
        ``limit``: at most that many rows. Returns a ``Summary`` (``str()`` / ``print()``
        gives the table, ``.rows`` the rows)."""
        self._check_done("summary")
        return _export.Summary(self.key_averages(), sort_by, limit)

    def export_chrome_trace(self, path):
        """Writes the profile as Chrome trace-event JSON (open it in Perfetto or
        chrome://tracing): one process per device with one track per stream for device
        work, one "host" process with one track per thread for the calls, and flow arrows
        from each call to its device work. Returns `path`."""
        self._check_done("export_chrome_trace")
        _export.write_chrome_trace(self, path)
        return path

    def plot(self, path):
        """Draws a per-stream timeline of the device work (and the host threads' calls) into
        the PNG file `path` with matplotlib (the ``profile`` extra:
        ``pip install "npuarray[profile]"``; ImportError naming it when absent). Returns
        `path`."""
        self._check_done("plot")
        _export.plot_timeline(self, path)
        return path

    def __repr__(self):
        state = "running" if self.duration_ns is None else "%.3f ms" % (self.duration_ns / 1e6)
        return "<npuarray.profiler.Profile %s, %d records>" % (state, len(self.records))


def _event_times(track, device_id):
    """Host-clock times (ns) at which the stream reached each of `track`'s events, by event
    (cffi pointers hash and compare by address)."""
    stream = track.stream
    activate(device_id)
    check(lib.aclrtSynchronizeStream(stream.handle), "aclrtSynchronizeStream")
    anchor = _recorder.take_event(device_id)
    track.events.append(anchor)
    check(lib.aclrtRecordEvent(anchor, stream.handle), "aclrtRecordEvent")
    check(lib.aclrtSynchronizeStream(stream.handle), "aclrtSynchronizeStream")
    anchor_time = _now()   # the idle stream reached the anchor at most this late
    ms = ffi.new("float *")
    times, previous = {}, None
    for event in track.events[:-1]:
        check(lib.aclrtEventElapsedTime(ms, event, anchor), "aclrtEventElapsedTime")
        time_ns = anchor_time - round(ms[0] * 1e6)
        if previous is not None and time_ns < previous:
            time_ns = previous
        times[event] = previous = time_ns
    return times


def profile():
    """``with npuarray.profile() as prof:`` records what the block asks of the NPUs (see
    ``npuarray.profiler.Profile``); then ``prof.summary()``,
    ``prof.export_chrome_trace(path)``, ``prof.plot(path)``. RuntimeError when a profile
    is already running in this process."""
    return Profile()
