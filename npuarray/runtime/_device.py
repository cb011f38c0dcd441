"""Devices: the thread's current device, and making a device current before raw ACL calls.

Two notions of "current" are kept apart:

* the *user's* current device of this thread (``with Device(1):``, ``get_device()``),
  which decides where new work goes;
* the *ACL* current context of this thread, which every ACL call uses. Before
  calling ACL for device ``d``, code calls ``activate(d)``: the first time per
  thread and device it runs ``aclrtSetDevice(d)``, afterwards
  ``aclrtSetCurrentContext`` to switch, and nothing at all when ``d`` is already
  current (the common case costs one attribute read). The ACL state is tracked per
  thread, so code mixing raw ``aclrtSetDevice`` / ``aclrtSetCurrentContext`` calls with
  these objects should do the raw calls on threads of its own.
"""
import atexit
import collections
import operator
import os
import threading
import weakref

from .._acl import InvalidValueError, check, ffi, lib
from . import _capture_guard as _capture, _profiler, _racecheck

ACL_ERROR_RT_INVALID_DEVICEID = 107001

# Per thread: ``device`` (the user's current device), ``acl_device`` (the device whose ACL
# context activate() made current) and ``in_host_func`` (True while the thread runs a stream
# host function). ``acl_device`` and ``in_host_func`` are read by name by the C fast path
# (npuarray/_core/_fastpath.c): they are part of this module's published state.
thread_state = threading.local()
_contexts = {}            # device id -> its default aclrtContext (shared by all threads)
_contexts_lock = threading.Lock()
_peer_access = set()      # (device, peer) pairs enabled through Device.enable_peer_access
_peer_lock = threading.Lock()
_device_count = None


class ProcessState:
    """The device runtime's process-wide state, published (one object, its slots changed in
    place, never rebound) for code that reads it without a Python call: the C fast path
    (npuarray/_core/_fastpath.c) takes the slots' offsets when it is configured.

    ``forked``: True in a child made by fork() after this process used a device (nothing
    may be released there: the resources are the parent's). ``deferred_releases``: a deque
    of the releases requested from host-function threads, run by the next ``activate()``
    on an ordinary thread; ``activate()`` has nothing to run while it is empty."""
    __slots__ = ("forked", "deferred_releases")

    def __init__(self):
        self.forked = False
        self.deferred_releases = collections.deque()


process_state = ProcessState()
_deferred = process_state.deferred_releases
_streams = {}    # device id -> WeakSet of its Streams
_orphaned_errors = {}  # device id -> host-function exceptions of streams collected unsynchronised


def _after_fork_in_child():
    """fork() copies the device runtime's memory but not its threads (stream workers,
    kernel pool): any call that waits for them would hang for ever. Mark the child
    so that using npuarray raises instead, and so that exit does not wait."""
    if _contexts:
        process_state.forked = True
        thread_state.__dict__.pop("acl_device", None)  # the forking thread's fast path
        _deferred.clear()


os.register_at_fork(after_in_child=_after_fork_in_child)

FORK_MESSAGE = (
    "npuarray cannot be used in a process created by fork() from a process that had "
    "already used an NPU: the child has a copy of the device runtime's memory but none of "
    "its threads, so its work would never run (CUDA, CuPy and PyTorch refuse this too). "
    "Use the 'spawn' start method: multiprocessing.get_context('spawn'), or "
    "multiprocessing.set_start_method('spawn') / concurrent.futures.ProcessPoolExecutor("
    "mp_context=multiprocessing.get_context('spawn'))")


def device_count():
    """Number of visible NPUs (aclrtGetDeviceCount; honours ASCEND_RT_VISIBLE_DEVICES)."""
    global _device_count
    if _device_count is None:
        count = ffi.new("uint32_t *")
        check(lib.aclrtGetDeviceCount(count), "aclrtGetDeviceCount")
        _device_count = int(count[0])
    return _device_count


def validate_device_id(device_id):
    """`device_id` as an int in [0, device_count()), else InvalidValueError (107001)."""
    index = operator.index(device_id)  # TypeError for anything but an integer
    count = device_count()
    if not 0 <= index < count:
        raise InvalidValueError(ACL_ERROR_RT_INVALID_DEVICEID, "Device",
                                "device id %d is out of range: %d device(s) visible"
                                % (index, count))
    return index


def activate(device_id):
    """Makes `device_id` the ACL current device of the calling thread (before raw ACL calls)."""
    if getattr(thread_state, "acl_device", None) == device_id:
        if _deferred:
            _run_deferred()
        return
    if process_state.forked:
        raise RuntimeError(FORK_MESSAGE)
    if in_host_function():  # (host-function threads never reach the fast path above)
        raise RuntimeError(
            "npuarray and ACL runtime calls are not allowed inside a stream host function "
            "(Stream.launch_host_func): the runtime forbids them there, and waiting on a stream "
            "from its own host function would never return. Do the work after the host "
            "function, on the stream")
    bound = thread_state.__dict__.setdefault("bound", set())
    if device_id in bound:
        check(lib.aclrtSetCurrentContext(_contexts[device_id]), "aclrtSetCurrentContext")
    else:
        check(lib.aclrtSetDevice(device_id), "aclrtSetDevice")
        bound.add(device_id)
        _remember_context(device_id)
    thread_state.acl_device = device_id
    if _deferred:
        _run_deferred()


def _remember_context(device_id):
    with _contexts_lock:
        if device_id not in _contexts:
            context = ffi.new("aclrtContext *")
            check(lib.aclrtGetCurrentContext(context), "aclrtGetCurrentContext")
            _contexts[device_id] = context[0]


def in_host_function():
    """True on a thread currently running a stream host function (no ACL calls allowed there)."""
    return getattr(thread_state, "in_host_func", False)


def set_in_host_function(flag):
    thread_state.in_host_func = flag


def release_later_if_needed(release):
    """Runs `release()` now, or later on an ordinary thread when called from a host function
    (CANN forbids resource calls inside stream callbacks, and npusim would deadlock)."""
    if in_host_function():
        _deferred.append(release)
    else:
        _release_keeping_device(release)


def _release_keeping_device(release):
    """Runs `release()` and makes the thread's ACL device what it was before: finalizers run
    at arbitrary points, possibly between another caller's activate() and its ACL call.
    In a forked child nothing is released: the resources are the parent's."""
    if process_state.forked:
        return
    previous = getattr(thread_state, "acl_device", None)
    try:
        release()
    finally:
        if previous is not None:
            activate(previous)


def _run_deferred():
    if in_host_function():
        return
    while _deferred:
        try:
            release = _deferred.popleft()
        except IndexError:
            return
        _release_keeping_device(release)


def keep_at_exit(finalizer):
    """Marks a weakref.finalize releasing an ACL resource as not to run at interpreter exit:
    the process is ending, and ACL calls from atexit order are unsafe (CANN docs)."""
    finalizer.atexit = False
    return finalizer


@atexit.register
def _drain_devices():
    """At exit, wait for queued work: host functions must not call into a dying interpreter.
    A forked child has no work of its own (its copy of the parent's queues has no threads)."""
    if process_state.forked:
        return
    for device_id in list(_contexts):
        try:
            activate(device_id)
            lib.aclrtSynchronizeDevice()
        except Exception:  # an unusable device at exit has nothing left to wait for
            pass


def current_device_id():
    """The user's current device of this thread (0 unless changed with `with Device(i)`)."""
    return getattr(thread_state, "device", 0)


def set_current_device_id(device_id):
    """Makes `device_id` the user's current device of this thread (no ACL call: see
    ``activate`` for the ACL current context)."""
    thread_state.device = device_id


def peer_access_enabled(device_id, peer_id):
    return (device_id, peer_id) in _peer_access


def add_stream(device_id, stream):
    """Registers a new Stream of `device_id`: Device.synchronize re-raises its host-function
    exceptions (the stream module builds on this one, so the streams report here)."""
    _streams.setdefault(device_id, weakref.WeakSet()).add(stream)


def add_orphaned_error(device_id, error):
    """Keeps the host-function exception of a stream collected before anyone synchronised
    it, for the next Device.synchronize of `device_id`."""
    _orphaned_errors.setdefault(device_id, []).append(error)


def raise_host_function_errors(device_id):
    """Re-raises the first pending host-function exception of any stream of `device_id`
    (also of streams garbage collected before anyone synchronised them)."""
    orphaned = _orphaned_errors.get(device_id)
    if orphaned:
        error = orphaned.pop(0)
        orphaned.clear()
        raise error
    for stream in list(_streams.get(device_id, ())):
        stream._raise_errors()


class Device:
    """An NPU, by id. ``with Device(i):`` makes it the current device of this thread.

    Devices compare equal by id. Raises InvalidValueError (ACL 107001) for an id
    outside [0, device_count()).
    """
    __slots__ = ("id",)

    def __init__(self, id=None):
        self.id = current_device_id() if id is None else validate_device_id(id)

    def __enter__(self):
        # The previous device is saved per thread: one Device object may be entered by many.
        thread_state.__dict__.setdefault("device_stack", []).append(current_device_id())
        set_current_device_id(self.id)
        return self

    def __exit__(self, *exc):
        set_current_device_id(thread_state.device_stack.pop())
        return False

    def use(self):
        """Makes this device current for the calling thread, without restoring on exit."""
        set_current_device_id(self.id)

    def synchronize(self):
        """Blocks until all work queued on this device is done (aclrtSynchronizeDevice);
        re-raises the first exception of a host function run on one of its streams."""
        if _capture.active:
            _capture.check_device_sync("Device.synchronize", self.id)
        activate(self.id)
        span = _profiler.active and _profiler.begin_host("synchronize", "aclrtSynchronizeDevice",
                                                         self.id)
        check(lib.aclrtSynchronizeDevice(), "aclrtSynchronizeDevice")
        if span:
            _profiler.end(span)
        raise_host_function_errors(self.id)
        if _racecheck.warning:
            _racecheck.emit_warnings()

    def mem_info(self):
        """(free, total) device memory in bytes (aclrtGetMemInfo, HBM)."""
        activate(self.id)
        free, total = ffi.new("size_t *"), ffi.new("size_t *")
        check(lib.aclrtGetMemInfo(lib.ACL_HBM_MEM, free, total), "aclrtGetMemInfo")
        if total[0] == 0:  # DDR-only products answer on the DDR attribute
            check(lib.aclrtGetMemInfo(lib.ACL_DDR_MEM, free, total), "aclrtGetMemInfo")
        return int(free[0]), int(total[0])

    def can_access_peer(self, other):
        """Whether this device can access `other`'s memory once enabled
        (aclrtDeviceCanAccessPeer; devices under the same PCIe switch). False for itself."""
        other = _as_device(other)
        if other.id == self.id:
            return False
        can = ffi.new("int32_t *")
        activate(self.id)
        check(lib.aclrtDeviceCanAccessPeer(can, self.id, other.id), "aclrtDeviceCanAccessPeer")
        return bool(can[0])

    def enable_peer_access(self, other):
        """Lets this device access `other`'s memory (one direction; aclrtDeviceEnablePeerAccess).
        Idempotent. Raises an AclError when the devices cannot be peers."""
        other = _as_device(other)
        with _peer_lock:
            if (self.id, other.id) in _peer_access:
                return
            activate(self.id)
            check(lib.aclrtDeviceEnablePeerAccess(other.id, 0), "aclrtDeviceEnablePeerAccess")
            _peer_access.add((self.id, other.id))

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("npuarray.Device", self.id))

    def __index__(self):
        return self.id

    def __int__(self):
        return self.id

    def __repr__(self):
        return "<npuarray.Device %d>" % self.id


def _as_device(device):
    return device if isinstance(device, Device) else Device(device)


def as_device_id(device):
    """The id of `device` (a Device, an int, or None for the current device)."""
    if device is None:
        return current_device_id()
    if isinstance(device, Device):
        return device.id
    return validate_device_id(device)


def get_device():
    """The current Device of this thread."""
    return Device(current_device_id())


def synchronize():
    """Blocks until all work on the current device is done (aclrtSynchronizeDevice)."""
    get_device().synchronize()
