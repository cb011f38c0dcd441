"""The caching, stream-ordered device memory pool (one per device).

Device memory comes from ``aclrtMalloc`` once and is recycled: when the last
array (or view) using a block dies, the block goes back to the pool, filed
under the stream that used it last. A later allocation on that same stream may
take it at once (stream order makes the reuse safe); another stream may take
it only after that stream has finished all the work queued so far, so a block
freed while a stream may still read it is never handed out early.

Ownership under concurrency (the rule; docs/design.md "Memory"): *a block may be
reused once every stream that used it since it was allocated has finished the
work it queued before the block was freed.* Implemented as:

* ``DeviceBuffer.prepare(stream)`` runs before any work on the buffer is queued
  on ``stream``. It makes ``stream`` the buffer's last user and keeps the
  previous last user in the buffer's set of users (under a lock: two threads
  may switch the same buffer at once). The set only grows, so a thread that
  sees itself as the last user without the lock is in it.
* A buffer is freed only when no array refers to it, so every launch that uses
  it has been queued by then. If it had several users, their queued work is
  joined into the last user (an event each) when it is freed; then the single-
  stream rule above applies. A block whose users cannot be joined (one is being
  captured into a graph) is never reused.
* Reading on the host waits for the last user (whose work is ordered after the
  earlier writers by ``prepare``).

Small blocks are recycled without the pool's lock: a free list is a Python
list, and ``list.pop``/``list.append`` are atomic under the GIL, so a block is
owned by exactly one free list or one buffer at a time. What the lock guards is
the structure (creating and dropping free lists, moving blocks between them,
``aclrtMalloc``/``aclrtFree``); code that drops a free list drains it with
``pop`` and a release that finds its list dropped files the block again
(``MemoryPool._release``). ``used_bytes`` is derived (held minus cached), so the
fast paths keep no counter.

Sizes are rounded to 512-byte multiples up to 1 MiB and to eight classes per
power of two above (at most 12.5 % slack), so freed blocks are found again.
Statistics and control follow CuPy's ``MemoryPool``: ``used_bytes``,
``total_bytes``, ``free_all_blocks``, ``set_limit`` / ``NPUARRAY_MEMORY_LIMIT``.
Before raising ``OutOfMemoryError`` the pool frees its cached blocks and retries.

Graph capture: ``using_pool`` routes a thread's allocations to a graph's
private pool, ``allocate`` sends work on a captured stream to its graph's pool,
and ``DeviceBuffer.prepare`` lets the capture guard order captured uses
(``npuarray.runtime._capture_guard``).
"""
import contextlib
import functools
import os
import re
import sys
import threading

from .. import _acl
from . import _capture_guard, _device
from ._device import Device, activate, as_device_id, release_later_if_needed
from ._device import thread_state as _device_state
from ._stream import get_current_stream

__all__ = ["MemoryPool", "get_default_memory_pool", "using_pool"]

_ACL_MEM_MALLOC_HUGE_FIRST = 0  # aclrtMemMallocPolicy (docs/acl-abi.md §2.4)
_ACL_ERROR_RT_MEMORY_ALLOCATION = 207001
_ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE = 1  # aclmdlRICaptureStatus (docs/acl-abi.md §2.4)
_SMALL_LIMIT = 1 << 20
_GRANULE = 512
_MAX_BYTES = (1 << 63) - 1  # NumPy's largest array (intp); also fits aclrtMalloc's size_t
_ANY_STREAM = None  # free-list key of blocks whose last stream has gone idle


def round_size(nbytes):
    """The pool's size class for a request of ``nbytes`` bytes (>= 512)."""
    if nbytes <= _SMALL_LIMIT:
        return ((nbytes + _GRANULE - 1) // _GRANULE or 1) * _GRANULE
    step = 1 << (nbytes.bit_length() - 4)
    return -(-nbytes // step) * step


def parse_limit(text, device_bytes, variable="NPUARRAY_MEMORY_LIMIT"):
    """Bytes from the environment variable ``variable`` holding ``text``: an
    integer with an optional unit (K, M, G, T; KB/MB/.. and KiB/MiB/.. are all
    powers of 1024), or a percentage of ``device_bytes`` (a callable giving the
    device's total memory; None: percentages are refused). ValueError naming
    the variable otherwise."""
    percent = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*%\s*", text)
    if percent and device_bytes is not None:
        return int(device_bytes() * float(percent.group(1)) / 100)
    match = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)(i?b)?\s*", text, re.IGNORECASE)
    if not match:
        examples = "1073741824, 512M, 2GiB" + (", 50%" if device_bytes is not None else "")
        raise ValueError(f"{variable}={text!r} is not a size in bytes (examples: {examples})")
    scale = 1024 ** " kmgt".index(match.group(2).lower() or " ")
    return int(match.group(1)) * scale


def _finished(stream, *, wait):
    """Whether all work queued so far on ``stream`` (None: no stream) is done;
    with ``wait``, synchronise it first. False when the runtime refuses (a
    capturing stream may be neither queried nor synchronised)."""
    if stream is None:
        return True
    try:
        if wait:
            stream.synchronize()
            return True
        return stream.query()
    except _acl.AclError:
        return False


def capturing(stream):
    """Whether ``stream`` is being captured into a graph (aclmdlRICaptureGetInfo;
    False where the provider lacks it)."""
    status, model = _acl.ffi.new("aclmdlRICaptureStatus *"), _acl.ffi.new("aclmdlRI *")
    try:
        ret = _acl.lib.aclmdlRICaptureGetInfo(stream.handle, status, model)
    except _acl.NotSupportedError:
        return False
    return ret == 0 and status[0] == _ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE


def _order_after(stream, last):
    """Make work queued next on ``stream`` run after the work queued so far on
    ``last``: an event recorded on ``last`` and waited for by ``stream``. When
    ``stream`` is being captured and ``last`` is not, the host waits for
    ``last`` instead: a captured wait needs a captured record (else CANN fails
    with 107024), and work done before the capture is done before any replay."""
    if capturing(stream) and not capturing(last):
        last.synchronize()
        return
    # The event must belong to the recording stream's device (a fresh Device
    # object: a shared one is not a thread-safe context manager).
    with Device(last.device.id):
        event = last.record()
    stream.wait_event(event)


def _join_users(stream, others):
    """Make ``stream`` wait for the work queued so far on each of ``others``;
    False when a capture forbids it (the event would become part of a graph)."""
    try:
        for other in others:
            if other is not stream and other != stream:
                if capturing(other) or capturing(stream):
                    return False
                _order_after(stream, other)
    except _acl.AclError:
        return False
    return True


class PoolOutOfMemoryError(_acl.OutOfMemoryError):
    """The pool could not supply ``requested`` bytes within ``limit`` (bytes,
    0: no pool limit, the device ran out). An ``npuarray.OutOfMemoryError`` with
    the code ACL_ERROR_RT_MEMORY_ALLOCATION; picklable."""

    def __init__(self, requested, limit, message):
        self.requested = requested
        self.limit = limit
        super().__init__(_ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc", message)

    def __reduce__(self):
        return (type(self), (self.requested, self.limit, self.message))


class DeviceBuffer:
    """A block of device memory from the pool, shared by an array and its views.

    ``ptr`` (int) is the device address of the storage start, ``nbytes`` the
    requested size in bytes, ``device`` the ``npuarray.Device`` it lives on. The
    block returns to its pool when the buffer is garbage collected.

    Code that makes or releases buffers without ``__init__`` / ``__del__`` (the C fast
    path, npuarray/_core/_fastpath.c) reaches the slots through ``BUFFER_SLOTS``.
    """
    __slots__ = ("ptr", "nbytes", "device", "_pool", "_size", "_stream", "_others",
                 "__weakref__")

    def __init__(self, pool, ptr, nbytes, size, stream):
        self.ptr = ptr
        self.nbytes = nbytes
        self.device = pool.device
        self._pool = pool
        self._size = size
        self._stream = stream
        self._others = None  # the other streams that used it (rare; see prepare)

    def prepare(self, stream):
        """Make ``stream`` safe to use this buffer: when another stream used it
        last, ``stream`` waits (through an event) for that stream's queued work.
        ``stream`` then becomes the last user, and the previous one is
        remembered among the buffer's users (see the module docstring: the block
        is reused only after every user's work). Called before every launch.
        During a graph capture the capture guard orders captured uses
        (``_capture_guard.prepare_captured``)."""
        if _capture_guard.active and _capture_guard.prepare_captured(self, stream):
            return  # a graph capture ordered this use (inputs are ordered at replay)
        last = self._stream
        if last is stream:
            return
        if last is not None and last != stream:
            _order_after(stream, last)
        with _users_lock:  # another thread may be switching the same buffer now
            previous = self._stream
            if previous is not None and previous is not stream:
                others = self._others
                if others is None:
                    self._others = [previous]
                elif not any(s is previous for s in others):
                    others.append(previous)
                    if len(others) % _PRUNE_USERS == 0 and not _capture_guard.active:
                        # A long-lived buffer read by stream after stream (a stream per
                        # batch) would keep every one of them: forget the idle ones.
                        others[:] = [s for s in others if not _finished(s, wait=False)]
            self._stream = stream

    def host_wait(self):
        """Block the host until the work queued so far on the stream that used
        this buffer last is done (that stream only, not the device)."""
        if self._stream is not None:
            self._stream.synchronize()

    @property
    def stream(self):
        """The stream that used the buffer last (its work on it may be pending)."""
        return self._stream

    def __del__(self):
        if _device.process_state.forked or sys.is_finalizing():  # (a forked child: the parent's block)
            return
        others = self._others
        if others is None and not _device_state.__dict__.get("in_host_func"):
            self._pool._release(self._size, self.ptr, self._stream)  # the common case
            return
        pool, size, ptr, stream = self._pool, self._size, self.ptr, self._stream
        if others is None:
            release = pool._release
        else:  # several streams used it: join them first (MemoryPool._release_shared)
            release = functools.partial(pool._release_shared, others=others)
        if vars(_device_state).get("in_host_func"):  # runtime.in_host_function(), cheaper
            # A host function dropped the last reference: the pool's lock is not
            # taken on that runtime thread (a synchronising holder would deadlock).
            release_later_if_needed(lambda: release(size, ptr, stream))
        else:
            release(size, ptr, stream)

    def __repr__(self):
        return (f"<DeviceBuffer ptr=0x{self.ptr:x} nbytes={self.nbytes} "
                f"device={self.device!r}>")


class MemoryPool:
    """Caching, stream-ordered allocator of one device's memory (CuPy's API).

    ``limit`` (bytes, 0 = none) caps ``total_bytes()``; the default pool of each
    device reads it from ``NPUARRAY_MEMORY_LIMIT``. Thread-safe.

    The lock-free cases of ``allocate`` and ``_release`` are also done in C (the fast
    path, npuarray/_core/_fastpath.c) on the slots named in ``POOL_SLOTS``.
    """
    __slots__ = ("device", "_lock", "_free", "_streams", "_total",
                 "_limit", "_abandoned", "_late", "_peak_total", "__dict__", "__weakref__")

    def __init__(self, device=None, *, limit=0):
        self.device = Device(as_device_id(device))
        # Re-entrant: a garbage collection inside allocate() may free buffers.
        self._lock = threading.RLock()
        self._free = {}       # stream key -> {size: [ptr, ...]}
        self._streams = {}    # stream key -> the stream object (kept alive)
        self._total = 0
        self._limit = int(limit)
        self._abandoned = []    # blocks whose users could not be joined (never reused)
        self._late = []         # (size, ptr, stream) released inside a critical section
        self._peak_total = 0    # set by _malloc (the slow path): allocate pays nothing

    # -- statistics and control ----------------------------------------------------------------
    def used_bytes(self):
        """Bytes in blocks held by live arrays (rounded to size classes)."""
        if self._late and not self._lock._is_owned():
            self._return_late()
        with self._lock:
            return self._total - self._cached_bytes()

    def _cached_bytes(self):
        # Copies (list(), len()) are atomic: lock-free pops and appends may run meanwhile.
        return sum(size * len(ptrs) for bins in list(self._free.values())
                   for size, ptrs in list(bins.items()))

    def total_bytes(self):
        """Bytes obtained from the device: used plus cached free blocks."""
        return self._total

    def free_bytes(self):
        """Bytes in cached free blocks."""
        with self._lock:
            return self._cached_bytes()

    def peak_total_bytes(self):
        """The most bytes the pool has held from the device at once (``total_bytes()``'s
        high-water mark; ``free_all_blocks`` does not lower it)."""
        return self._peak_total

    def n_free_blocks(self):
        """Number of cached free blocks."""
        with self._lock:
            return sum(len(ptrs) for bins in list(self._free.values())
                       for ptrs in list(bins.values()))

    def get_limit(self):
        """The limit on ``total_bytes()`` in bytes (0: none)."""
        return self._limit

    def set_limit(self, size=None, *, fraction=None):
        """Cap the pool at ``size`` bytes, or ``fraction`` of the device memory
        (``Device.mem_info`` total); 0 or None removes the cap. Raises ValueError
        for negative sizes or a fraction outside [0, 1]."""
        if fraction is not None:
            if size is not None or not 0 <= fraction <= 1:
                raise ValueError("give either size or a fraction in [0, 1]")
            size = int(self.device.mem_info()[1] * fraction)
        size = 0 if size is None else int(size)
        if size < 0:
            raise ValueError(f"memory limit must be >= 0 bytes, got {size}")
        self._limit = size

    def free_all_blocks(self, stream=None):
        """Return cached free blocks to the device (``aclrtFree``); with
        ``stream``, only the blocks last used on it. Streams with pending work
        on those blocks are synchronised first (without holding the pool's
        lock); blocks of a stream that cannot be synchronised now (e.g. during
        graph capture) stay cached."""
        with self._lock:
            keys = list(self._free) if stream is None else [id(stream)]
            taken = {key: self._take_all(key) for key in keys if key in self._free}
        for key, (bins, owner) in taken.items():
            self._free_or_refile(key, bins, owner, _finished(owner, wait=True))

    def _take_all(self, key):
        """({size: [ptr, ...]}, stream) of the free list ``key``, whose blocks are taken
        out (under the lock) before its stream is asked whether it is done: none can be
        reused and returned with new work before the answer, so no release needs a
        record for free_all_blocks to compare (the lock-free release stays one append)."""
        bins = {size: _drain(ptrs) for size, ptrs in list(self._free[key].items())}
        return bins, self._streams.get(key)

    def _free_or_refile(self, key, bins, owner, finished):
        """Free the blocks of ``bins`` (from ``_take_all``) when their stream
        ``owner`` has ``finished`` its work, else file them again under ``key``."""
        with self._lock:
            if finished:
                activate(self.device.id)
            for size, ptrs in bins.items():
                for ptr in ptrs:
                    if not finished:
                        self._file(key, size, ptr, owner)
                        continue
                    _acl.check(_acl.lib.aclrtFree(_acl.ffi.cast("void *", ptr)), "aclrtFree")
                    self._total -= size
            if key in self._free and not any(self._free[key].values()):
                self._drop_free_list(key)

    def _drop_free_list(self, key):
        """Forget the free list ``key`` (its stream may die); blocks a lock-free
        release appended meanwhile are filed again."""
        stream = self._streams.pop(key, None)
        for size, ptrs in self._free.pop(key).items():
            for ptr in _drain(ptrs):
                self._file(key, size, ptr, stream)

    # -- allocation ----------------------------------------------------------------------------
    def allocate(self, nbytes, stream):
        """A ``DeviceBuffer`` of at least ``nbytes`` bytes usable in order on
        ``stream`` (see ``_allocate`` for the errors)."""
        if nbytes <= _SMALL_LIMIT and not self._late:
            # The common case, lock-free: a small block freed on this stream, reused in
            # stream order (npuarray/_core/_fastpath.c does the same in C for most operations).
            size = -(-nbytes // _GRANULE) * _GRANULE or _GRANULE
            bins = self._free.get(id(stream))
            ptrs = bins.get(size) if bins else None
            if ptrs:
                try:
                    ptr = ptrs.pop()  # atomic: the block is this thread's alone
                except IndexError:  # another thread took the last one
                    pass
                else:
                    return DeviceBuffer(self, ptr, nbytes, size, stream)
        buffer = self._allocate(nbytes, stream)
        if self._late:
            self._return_late()
        return buffer

    def _allocate(self, nbytes, stream):
        """A ``DeviceBuffer`` of at least ``nbytes`` bytes usable in order on
        ``stream``. Raises OutOfMemoryError (a MemoryError) when neither the
        cache nor the device (within the limit) can supply it, after freeing
        the cached blocks (idle ones first, then after synchronising), and
        ValueError for sizes beyond 2**63 - 1 bytes (NumPy's limit)."""
        if nbytes > _MAX_BYTES:
            raise ValueError(f"array is too big: {nbytes} bytes is larger than the maximum "
                             f"possible size ({_MAX_BYTES} bytes)")
        size = ((nbytes + _GRANULE - 1) // _GRANULE or 1) * _GRANULE \
            if nbytes <= _SMALL_LIMIT else round_size(nbytes)
        for attempt in range(3):
            with self._lock:
                ptr = self._take_cached(size, stream)
                if ptr is None:
                    ptr = self._malloc(size)
                if ptr is not None:
                    return DeviceBuffer(self, ptr, nbytes, size, stream)
            if attempt == 0:
                self._free_idle_blocks()
            else:
                self.free_all_blocks()
        raise self._out_of_memory(nbytes)

    def _take_cached(self, size, stream):
        for key in (id(stream), _ANY_STREAM):
            ptrs = self._free.get(key, {}).get(size)
            if ptrs:
                try:
                    return ptrs.pop()
                except IndexError:  # a lock-free allocation took the last one
                    pass
        for key in [k for k in self._free if k not in (id(stream), _ANY_STREAM)]:
            if size in self._free.get(key, ()) and self._retire_if_idle(key):
                return self._take_cached(size, stream)
        return None

    def _retire_if_idle(self, key):
        """Move the blocks of the free list ``key`` to the any-stream list if its
        stream is idle; whether it was. The blocks are taken out before the
        stream is asked, so a block reused and returned with new work meanwhile
        (lock-free) is either not taken or covered by the answer."""
        owner = self._streams.pop(key, None)
        taken = {size: _drain(ptrs) for size, ptrs in self._free.pop(key).items()}
        idle = _finished(owner, wait=False)
        for size, ptrs in taken.items():
            for ptr in ptrs:
                if idle:
                    self._file(_ANY_STREAM, size, ptr, None)
                else:
                    self._file(key, size, ptr, owner)
        return idle

    def _free_idle_blocks(self):
        """Free the cached blocks no stream can still be using (no waiting). The
        blocks are taken out before the question (``_take_all``): a block returned
        after that stays cached."""
        with self._lock:
            taken = {key: self._take_all(key) for key in list(self._free)}
        for key, (bins, owner) in taken.items():
            self._free_or_refile(key, bins, owner, _finished(owner, wait=False))

    def _malloc(self, size):
        """A new device block, or None when the limit or the device refuses."""
        if self._limit and self._total + size > self._limit:
            return None
        out = _acl.ffi.new("void **")
        activate(self.device.id)
        ret = _acl.lib.aclrtMalloc(out, size, _ACL_MEM_MALLOC_HUGE_FIRST)
        if ret:
            try:
                _acl.check(ret, "aclrtMalloc")
            except _acl.OutOfMemoryError:
                return None
        self._total += size
        self._peak_total = max(self._peak_total, self._total)
        return int(_acl.ffi.cast("uintptr_t", out[0]))

    def _out_of_memory(self, requested):
        limit = f"the pool limit of {self._limit} bytes" if self._limit else \
            "the device memory"
        return PoolOutOfMemoryError(
            requested, self._limit,
            f"out of memory allocating {requested} bytes on {self.device!r}: "
            f"{self.used_bytes()} bytes in use and {self._total} held by the pool; the "
            f"request exceeds {limit} even after freeing the cached blocks")

    def _release_shared(self, size, ptr, stream, *, others):
        """Return a block that several streams used. The work the other streams
        queued so far (all of their work on the block: the buffer is dead, so
        nothing new can be queued) is joined into ``stream`` with events, and
        the block is then ``stream``'s alone. A block whose users cannot be
        joined now (one is being captured into a graph) is never reused: it
        stays counted in ``used_bytes``."""
        if _join_users(stream, others):
            self._release(size, ptr, stream)
        else:
            with self._lock:
                self._abandoned.append(ptr)

    def _release(self, size, ptr, stream):
        """Return a block last used on ``stream`` to its free list, lock-free when
        the list exists (see the module docstring)."""
        key = _ANY_STREAM if stream is None else id(stream)
        bins = self._free.get(key)
        ptrs = bins.get(size) if bins else None
        if ptrs is not None:
            ptrs.append(ptr)
            if self._free.get(key) is bins:
                return  # a list dropped from now on is drained with this block in it
            try:  # the list was dropped meanwhile: take the block back unless drained
                ptrs.remove(ptr)
            except ValueError:
                return  # the drain filed it
        if self._lock._is_owned():
            # A garbage collection ran inside this pool's own critical section: the
            # structure may be mid-change, so the block returns after the section.
            self._late.append((size, ptr, stream))
            return
        with self._lock:
            if key not in self._free:
                self._retire_dropped_streams()
            self._file(key, size, ptr, stream)

    def _retire_dropped_streams(self):
        """Before a new stream's free list is made: the free lists of streams only the
        pool still refers to go to the any-stream list once idle, so that the streams
        are freed (a program making a stream per batch drops each after its batch)."""
        streams = self._streams
        for key in [k for k in streams if sys.getrefcount(streams[k]) <= _ONLY_DICT_REFS]:
            self._retire_if_idle(key)

    def _return_late(self):
        """Returns the blocks released during this pool's critical sections."""
        while self._late:
            try:
                size, ptr, stream = self._late.pop()
            except IndexError:  # another thread took the last one
                return
            self._release(size, ptr, stream)

    def _file(self, key, size, ptr, stream):
        """Files ``ptr`` in the free list (stream key, size), creating it if needed
        (under the lock: the list's stream is kept alive while its id is a key)."""
        bins = self._free.get(key)
        if bins is None:
            bins = self._free[key] = {}
            if stream is not None:
                self._streams[key] = stream
        bins.setdefault(size, []).append(ptr)

    def __repr__(self):
        return (f"<MemoryPool {self.device!r} used={self.used_bytes()} total={self._total} "
                f"limit={self._limit}>")


# The published layout of the two classes, for code that does the lock-free cases of
# MemoryPool.allocate, DeviceBuffer.__init__ and DeviceBuffer.__del__ (MemoryPool._release)
# without calling them (the C fast path): each role names the __slots__ member that holds
# it. A renamed slot is renamed here too: the fast path checks every entry when it is
# configured (at import) and refuses to start on a missing one.
#
# DeviceBuffer: ``ptr``, ``nbytes``, ``device`` as documented; ``pool`` the MemoryPool it
# returns to, ``size`` its size class (bytes), ``stream`` the stream that used it last,
# ``others`` None unless other streams used it too (its release then joins them: Python).
BUFFER_SLOTS = {"ptr": "ptr", "nbytes": "nbytes", "device": "device", "pool": "_pool",
                "size": "_size", "stream": "_stream", "others": "_others"}
# MemoryPool: ``device`` its Device; ``free_lists`` {id(stream) or None: {size class:
# [ptr, ...]}}, whose lists a thread holding the GIL may pop a block from (it is then that
# thread's) or append one to, and whose dicts only the pool changes, under its lock;
# ``late`` the returns deferred from inside the pool's critical sections (the lock-free
# allocation applies only while it is empty).
POOL_SLOTS = {"device": "device", "free_lists": "_free", "late": "_late"}


def _drain(ptrs):
    """Empty the list ``ptrs`` with atomic pops (a concurrent lock-free append
    lands either in the result or in the emptied list); the blocks taken."""
    taken = []
    while True:
        try:
            taken.append(ptrs.pop())
        except IndexError:
            return taken


_Device = Device
_users_lock = threading.Lock()  # DeviceBuffer.prepare's switch of the last user
_ONLY_DICT_REFS = 2  # sys.getrefcount(d[k]) of an object only the dict d refers to
_PRUNE_USERS = 8  # every this many remembered users, the buffer drops those gone idle
default_pools = {}
_default_pools_lock = threading.Lock()
# Per thread: ``overrides`` {device id: MemoryPool} set by using_pool() (read by name by the
# C fast path, which leaves a thread with any override to Python).
pool_overrides = threading.local()


def get_default_memory_pool(device=None):
    """The default ``MemoryPool`` of ``device`` (an ``npuarray.Device`` or id;
    default: the current device), created on first use with the limit from
    ``NPUARRAY_MEMORY_LIMIT`` (bytes, units K/M/G/T accepted, or a percentage
    of the device memory such as "50%")."""
    device_id = as_device_id(device)
    pool = default_pools.get(device_id)
    if pool is None:
        with _default_pools_lock:
            pool = default_pools.get(device_id)
            if pool is None:
                pool = MemoryPool(device_id)
                pool.set_limit(parse_limit(os.environ.get("NPUARRAY_MEMORY_LIMIT", "0"),
                                            lambda: pool.device.mem_info()[1]))
                default_pools[device_id] = pool
    return pool


@contextlib.contextmanager
def using_pool(pool):
    """Route this thread's allocations on ``pool.device`` to ``pool`` inside the
    block (graph capture gives each graph a private pool this way)."""
    overrides = getattr(pool_overrides, "overrides", None)
    if overrides is None:
        overrides = pool_overrides.overrides = {}
    device_id = pool.device.id
    previous = overrides.get(device_id)
    overrides[device_id] = pool
    try:
        yield pool
    finally:
        if previous is None:
            del overrides[device_id]
        else:
            overrides[device_id] = previous


def current_pool(device=None):
    """The pool allocations of this thread on ``device`` go to."""
    device_id = device.id if type(device) is _Device else as_device_id(device)
    overrides = vars(pool_overrides).get("overrides")
    if overrides:
        pool = overrides.get(device_id)
        if pool is not None:
            return pool
    return default_pools.get(device_id) or get_default_memory_pool(device_id)


def allocate(nbytes, device=None, stream=None):
    """A ``DeviceBuffer`` of ``nbytes`` bytes on ``device`` (default: current)
    for use on ``stream`` (default: the device's current stream), from the
    thread's current pool. Raises OutOfMemoryError."""
    # The common case inline (a Device, no pool override): allocation is on the path
    # of every operation.
    pool = default_pools.get(device.id) if type(device) is _Device else None
    if pool is None or vars(pool_overrides).get("overrides"):
        pool = current_pool(device)
    if stream is None:
        stream = get_current_stream(pool.device)
    if _capture_guard.active:  # work on a captured stream uses its graph's pool
        pool = _capture_guard.capture_pool(stream, pool)
    return pool.allocate(nbytes, stream)
