"""Pinned (page-locked) host memory: NumPy arrays on aclrtMallocHost, and the staging pool.

Asynchronous copies need pinned host memory (CANN silently corrupts data with
pageable memory; npusim refuses it). ``empty_pinned`` gives NumPy arrays on
pinned memory, freed (aclrtFreeHost) when the last view dies; ``is_pinned``
recognises them. ``staging_pool()`` lends pinned blocks to stage pageable
buffers, each returned with the event after which the device no longer reads or
writes it, so a block is never reused early.
"""
import bisect
import math
import os
import sys
import threading

import numpy as np

from .._acl import AclError, check, ffi, lib
from . import _device
from ._memory_pool import parse_limit

_registry_lock = threading.Lock()   # serialises changes of the registry
# (sorted start addresses, their ends (exclusive)) of the live pinned allocations: a new
# pair of tuples on every change, so a lookup (one per host<->device copy) reads one
# consistent snapshot without taking the lock.
_ranges = ((), ())


def _register(start, nbytes):
    global _ranges
    with _registry_lock:
        starts, ends = _ranges
        index = bisect.bisect_left(starts, start)
        _ranges = (starts[:index] + (start,) + starts[index:],
                   ends[:index] + (start + nbytes,) + ends[index:])


def _unregister(start):
    global _ranges
    with _registry_lock:
        starts, ends = _ranges
        index = bisect.bisect_left(starts, start)
        if index < len(starts) and starts[index] == start:
            _ranges = (starts[:index] + starts[index + 1:], ends[:index] + ends[index + 1:])


# (start, end, snapshot) of the allocation the last lookup found in the registry snapshot
# `snapshot`: repeated copies of one pinned buffer skip the search. Valid only while that
# snapshot is current, so it never names memory freed since (which could now hold a
# pageable array), whatever the threads' interleaving.
_last_found = (0, 0, None)


def _is_pinned_range(begin, end):
    global _last_found
    ranges = _ranges
    start, stop, snapshot = _last_found
    if snapshot is ranges and start <= begin and end <= stop:
        return True
    starts, ends = ranges
    index = bisect.bisect_right(starts, begin) - 1
    if index < 0 or end > ends[index]:
        return False
    _last_found = (starts[index], ends[index], ranges)
    return True


def _free_host(cdata, _is_finalizing=sys.is_finalizing):
    if _is_finalizing() or _device.process_state.forked:
        return  # the process returns the memory (a forked child's is the parent's)
    start = int(ffi.cast("uintptr_t", cdata))
    _unregister(start)
    _device.release_later_if_needed(lambda: lib.aclrtFreeHost(cdata))


def allocate_pinned(nbytes):
    """A uint8 NumPy array of `nbytes` on new pinned memory (aclrtMallocHost, 64-byte aligned);
    freed when the array and all its views are gone. OutOfMemoryError when it cannot."""
    _device.activate(_device.current_device_id())
    ptr = ffi.new("void **")
    check(lib.aclrtMallocHost(ptr, max(nbytes, 1)), "aclrtMallocHost")
    start = int(ffi.cast("uintptr_t", ptr[0]))
    _register(start, max(nbytes, 1))
    owner = ffi.gc(ffi.cast("char *", ptr[0]), _free_host)
    # The buffer keeps `owner` alive; NumPy keeps the buffer alive as the array's base.
    return np.frombuffer(ffi.buffer(owner, max(nbytes, 1)), dtype=np.uint8)[:nbytes]


def _shape_tuple(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(n) for n in shape)


def empty_pinned(shape, dtype=np.float64, order="C"):
    """A new numpy.ndarray of `shape` and `dtype` on pinned host memory (aclrtMallocHost),
    uninitialised; mirrors numpy.empty. Freed (aclrtFreeHost) when garbage collected.
    Pinned memory makes host<->device copies direct and truly asynchronous."""
    shape = _shape_tuple(shape)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed: %r" % (shape,))
    if order not in ("C", "F"):
        raise ValueError("order must be 'C' or 'F', got %r" % (order,))
    dtype = np.dtype(dtype)
    raw = allocate_pinned(math.prod(shape) * dtype.itemsize)
    return np.ndarray(shape, dtype=dtype, buffer=raw, order=order)


def zeros_pinned(shape, dtype=np.float64, order="C"):
    """Like empty_pinned, filled with zeros (mirrors numpy.zeros)."""
    array = empty_pinned(shape, dtype, order)
    array.fill(0)
    return array


def is_pinned(array):
    """True when all of the numpy.ndarray `array`'s bytes lie in one pinned allocation
    made by npuarray (empty_pinned, zeros_pinned, the staging pool)."""
    if not isinstance(array, np.ndarray):
        return False
    if array.nbytes == 0:
        return False
    begin, end = np.lib.array_utils.byte_bounds(array)
    return _is_pinned_range(begin, end)


def is_pinned_address(address, nbytes):
    """True when the `nbytes` bytes from host address `address` lie in one pinned
    allocation made by npuarray (is_pinned for a buffer whose address is known)."""
    return nbytes > 0 and _is_pinned_range(address, address + nbytes)


def _done(event):
    """Whether the device is finished with a block released with `event`; None when the
    event cannot be queried (recorded inside a graph capture: the graph reads the block at
    every replay, so it must never be reused)."""
    if event is None:
        return True
    try:
        return event.query()
    except AclError:
        return None


class PinnedPool:
    """Pinned staging blocks by power-of-two size class, reused once their event completed.

    ``acquire(nbytes)`` lends a uint8 array of at least `nbytes`; ``release(block,
    event)`` returns it, reusable after `event` (None: at once). Cached blocks beyond
    ``limit`` bytes (NPUARRAY_PINNED_POOL_LIMIT, default 1 GiB) are freed. Thread-safe.
    Statistics as the device memory pool's: ``used_bytes()`` (lent out now),
    ``total_bytes()`` (lent plus cached), ``free_all_blocks()``, ``set_limit(bytes)``.
    """
    MIN_BLOCK = 64 * 1024

    def __init__(self, limit=None):
        if limit is None:
            limit = parse_limit(os.environ.get("NPUARRAY_PINNED_POOL_LIMIT", str(1 << 30)), None,
                                 "NPUARRAY_PINNED_POOL_LIMIT")
        self.limit = limit
        self._lock = threading.Lock()
        self._free = {}            # size class -> [(block, event or None)], oldest first
        self._held = []            # (block, event) of captured copies, kept for good
        self._cached_bytes = 0
        self._used_bytes = 0

    @classmethod
    def size_class(cls, nbytes):
        return max(cls.MIN_BLOCK, 1 << max(nbytes - 1, 0).bit_length())

    def acquire(self, nbytes):
        size = self.size_class(nbytes)
        with self._lock:
            # Oldest first, and only while they are done: blocks are released in stream
            # order, so once one is still in use the younger ones almost always are too
            # (one event query per acquire instead of one per cached block).
            entries = self._free.get(size, [])
            while entries:
                block, event = entries[0]
                done = _done(event)
                if done is None:          # read by a captured graph: never reused
                    self._held.append(entries.pop(0))
                    self._cached_bytes -= size
                    continue
                if not done:
                    break
                del entries[0]
                self._cached_bytes -= size
                self._used_bytes += size
                return block
        block = allocate_pinned(size)
        with self._lock:
            self._used_bytes += size
        return block

    def release(self, block, event=None):
        size = block.nbytes
        with self._lock:
            self._free.setdefault(size, []).append((block, event))
            self._cached_bytes += size
            self._used_bytes -= size
            # Trimming queries events: not allowed inside a stream host function.
            if self._cached_bytes > self.limit and not _device.in_host_function():
                self._trim()

    def _trim(self):
        for size in sorted(self._free, reverse=True):
            entries = self._free[size]
            keep = []
            for block, event in entries:
                if self._cached_bytes > self.limit and _done(event):
                    self._cached_bytes -= size  # dropping the array frees the memory
                else:
                    keep.append((block, event))
            self._free[size] = keep

    def cached_bytes(self):
        """Bytes of pinned memory held by the pool for reuse."""
        return self._cached_bytes

    def used_bytes(self):
        """Bytes of pinned blocks lent out to transfers now."""
        return self._used_bytes

    def total_bytes(self):
        """Bytes of pinned memory the pool holds: lent out plus cached."""
        return self._used_bytes + self._cached_bytes

    def set_limit(self, nbytes):
        """Caps the cached bytes kept for reuse (blocks beyond it are freed once done)."""
        if nbytes < 0:
            raise ValueError(f"the pinned pool limit must be >= 0 bytes, got {nbytes}")
        with self._lock:
            self.limit = int(nbytes)
            self._trim()

    def free_all_blocks(self):
        """Frees every cached block whose copy has completed."""
        with self._lock:
            limit, self.limit = self.limit, 0
            self._trim()
            self.limit = limit


_staging_pool = PinnedPool()


def staging_pool():
    """The process-wide pinned staging pool used by host<->device transfers."""
    return _staging_pool


def get_default_pinned_memory_pool():
    """The pinned host memory pool (aclrtMallocHost blocks) that stages pageable
    host buffers for asynchronous transfers (CuPy's name)."""
    return _staging_pool
