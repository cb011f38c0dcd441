"""Events: markers recorded in a stream, to wait for, query, or time work.

Events are created with aclrtCreateEventExWithFlag(ACL_EVENT_SYNC [| ACL_EVENT_TIME_LINE]):
SYNC so other streams can wait on them (aclrtStreamWaitEvent) and the host can
synchronise on them; TIME_LINE only when timing is asked for, because
timestamps cost; the "Ex" kind can be re-recorded freely (CANN's capture samples
use the same flags). Status is read with aclrtQueryEventStatus, the query that
Ex events support.
"""
import weakref

from .._acl import check, ffi, lib
from . import _capture_guard as _capture, _device
from ._device import activate, keep_at_exit
from ._stream import as_stream
from . import _profiler

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
