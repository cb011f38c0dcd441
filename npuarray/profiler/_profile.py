"""``npuarray.profile()``: the profile object.

The runtime records (``npuarray.runtime._profiler``); a Profile starts and stops
the recording and keeps what was recorded. When it ends, each stream it used is
synchronised and an anchor event recorded on it (``_profiler.anchor``); when
``records`` is first read, the times at which each stream reached its timing
events are read against that anchor (``_profiler.event_times``, the same ACL
calls on CANN and npusim) and the Records made: a profile's end costs the
synchronisations only. The timing events stay out of the pool until then (or
until the profile is dropped unread): the C recorder's LaunchLog borrows them.
"""
import os
import threading
import time
import weakref

from .._acl import AclError
from ..runtime import _profiler
from ..runtime._device import activate
from . import _export

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
    replays also get the interval during which their stream ran them (device times:
    the profile's end synchronises the streams it used, and the times are read when
    ``records`` is first read). Work
    captured into a graph gets host times only (its device times belong to the
    replays). One profile runs at a time in a process: entering a second one raises
    RuntimeError. In the child of a fork the profile stops recording; after
    ``aclrtResetDevice`` the records of that device keep their host times only.

    After the block: ``records`` (list of ``Record``, by host start time),
    ``duration_ns`` (the profile window, host clock), ``summary()``,
    ``key_averages()``, ``export_chrome_trace(path)``, ``plot(path)``.
    """

    def __init__(self):
        self.incoming = []        # what the recorder appends to, from every thread
        self._launches = _profiler.launch_log()   # the C recorder's (see _profiler.Recording)
        self.duration_ns = None
        self._records = None      # made from what was recorded on first read (``records``)
        self._taken = None        # (Records, the launch log) taken when the profile ended
        self._unread = []         # per stream: (device id, its timing events, how many are
                                  # the recorded ones, its anchor event, the anchor's host
                                  # ns), until read
        self._held = None         # every stream's timing events, from the end until read
        self._making = threading.Lock()
        self._tracks = {}
        self._origin = None
        self._pid = os.getpid()

    # -- running ---------------------------------------------------------------------------

    def __enter__(self):
        if self._origin is not None:
            raise RuntimeError("a Profile runs once; use a new npuarray.profile()")
        self._origin = _now()   # before any thread can record
        try:
            _profiler.start(self, self._tracks, self._launches)
        except RuntimeError:
            self._origin = None
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def stop(self):
        """Ends the profile (what leaving the ``with`` block does): no more records; the
        streams used are synchronised and the times their timing events were reached read
        (the Records are made from them when ``records`` is first read)."""
        if self.duration_ns is not None or self._origin is None:
            return
        _profiler.stop(self)
        # A call still closing on another thread may append meanwhile: it is left out (the
        # copy is atomic; the C recorder checks that the profile runs), as a call that ends
        # after the profile.
        self._taken = (list(self.incoming), self._launches)
        self.incoming = self._launches = None
        try:
            if os.getpid() == self._pid:   # a forked child has none of the runtime's threads
                for track in self._tracks.values():
                    self._settle(track)
        finally:
            # The LaunchLog borrows the events of every stream: also those of a stream
            # whose times cannot be read (host times only), until the Records are made.
            self._held = [track.events for track in self._tracks.values()]
            self._tracks.clear()
            self.duration_ns = _now() - self._origin
        if self._unread:   # dropped unread: the events go back to the pool all the same
            weakref.finalize(self, _profiler.give_back_unread, self._unread)

    def track(self, stream):
        """The _Track of `stream` (created on first use; called by the recorder). Keyed by
        id(): the track keeps the stream alive, and Stream.__hash__ costs a cffi call."""
        track = self._tracks.get(id(stream))
        if track is None:
            track = self._tracks.setdefault(id(stream), _Track(stream))
        return track

    # -- device times ----------------------------------------------------------------------

    def _settle(self, track):
        """Synchronises `track`'s stream and records its anchor event (``_profiler.anchor``):
        a record ends when its stream reached its event, and starts when the stream had
        passed the event recorded before it and the host had begun the call (see
        ``npuarray.runtime._profiler``); those times are read when ``records`` is first
        read."""
        stream = track.stream
        device_id = stream.device.id
        try:
            if _profiler.capturing(stream):   # still captured: its events cannot be read
                return
            activate(device_id)
            count, anchor, anchor_ns = _profiler.anchor(stream, track.events)
        except (AclError, RuntimeError):
            return   # the device was reset, or the stream failed: host times only
        self._unread.append((device_id, track.events, count, anchor, anchor_ns))

    def _reached(self):
        """{timing event: host ns the stream reached it} and {timing event: the time of the
        event recorded before it on its stream}, read from the settled streams."""
        times, before = {}, {}
        for device_id, events, count, anchor, anchor_ns in self._unread:
            recorded = events[:count]
            try:
                activate(device_id)
                reached = _profiler.event_times(recorded, anchor, anchor_ns)
            except (AclError, RuntimeError):
                continue   # the device was reset meanwhile: host times only
            times.update(zip(recorded, reached))
            before.update(zip(recorded[1:], reached))
        return times, before

    @property
    def records(self):
        """The ``Record`` of every call, by host start time: made when first read after
        the profile ended (empty while it runs)."""
        if self._records is None:
            with self._making:   # two threads reading at once make them once
                if self._records is None:
                    if self._taken is None:
                        return []
                    self._records = self._make_records()
        return self._records

    def _make_records(self):
        incoming, launches = self._taken
        times, before = self._reached()   # timing event -> ns, its previous's
        origin = self._origin
        records = _profiler.launch_records(launches, origin, times, before)
        for record in incoming:
            event, record._events = record._events, None
            start = record.host_start_ns
            record.host_start_ns = start - origin
            end = times.get(event) if event is not None else None
            previous = before.get(event) if end is not None else None
            if previous is not None:
                record.device_start_ns = min(max(previous, start), end) - origin
                record.device_end_ns = end - origin
        records += incoming
        records.sort(key=lambda r: r.host_start_ns)
        self._taken = self._held = None
        _profiler.give_back_unread(self._unread)   # the anchors too; the log is read
        return records

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


def profile():
    """``with npuarray.profile() as prof:`` records what the block asks of the NPUs (see
    ``npuarray.profiler.Profile``); then ``prof.summary()``,
    ``prof.export_chrome_trace(path)``, ``prof.plot(path)``. RuntimeError when a profile
    is already running in this process."""
    return Profile()
