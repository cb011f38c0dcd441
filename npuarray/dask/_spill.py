"""Spilling a Dask worker's NPUArray chunks from the device to host memory and disk.

:class:`NPUHostFile` is the worker's ``data`` mapping (as dask-cuda's
``DeviceHostFile`` is for GPUs): three least-recently-used tiers. Chunks that
hold device memory live in the device tier until its bytes pass the spill
threshold (``device_memory_limit``); the least recently used ones are then
downloaded into pinned host memory (the chunk serialiser of
:mod:`npuarray._dask_hook`: an asynchronous D2H copy on the device's transfer stream,
ordered after the work that produced the chunk), and past the host limit
``memory_limit`` written on to disk by Dask's own ``SpillBuffer``. A task that
needs a spilled chunk reads it back: the chunk is uploaded on the transfer
stream (H2D), and the compute stream waits for that copy through the
buffer's event before using it. The pool's hard limit (``NPUARRAY_MEMORY_LIMIT``)
is unchanged: the threshold only decides when chunks leave the device.
"""
import os
import sys
import threading

import zict
from dask.utils import parse_bytes
from distributed.protocol import (dask_deserialize, dask_serialize, deserialize,
                                  serialize)
from distributed.spill import SpillBuffer

import npuarray as npx

from .._dask_hook import register_serializers

__all__ = ["NPUHostFile", "device_memory_limit_value", "device_nbytes",
           "parse_device_memory_limit", "spill_stats"]

register_serializers()  # the NPUArray chunk serialisers a spill writes


def device_nbytes(value):
    """Device bytes ``value`` holds: the pool blocks (size classes) of an NPUArray,
    or of the NPUArrays directly inside a list, tuple, set or dict; 0 otherwise."""
    if isinstance(value, npx.NPUArray):
        return value._buffer._size
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(device_nbytes(v) for v in value if isinstance(v, npx.NPUArray))
    if isinstance(value, dict):
        return sum(device_nbytes(v) for v in value.values() if isinstance(v, npx.NPUArray))
    return 0


def device_memory_limit_value(limit):
    """``limit`` as an int (bytes) or a float in (0, 1] (a fraction), without
    touching the device: accepts ints, floats, and strings such as ``"512MiB"``,
    ``"1e9"`` or ``"0.8"``; None is 0. Raises ValueError for negative or
    unparsable values."""
    if limit is None:
        return 0
    if isinstance(limit, str):
        text = limit.strip()
        try:
            limit = float(text) if "." in text else int(text)
        except ValueError:
            try:
                limit = parse_bytes(text)
            except ValueError as error:
                raise ValueError(f"device memory limit {text!r} is neither bytes "
                                 "(e.g. '512MiB') nor a fraction (e.g. '0.8')") from error
    if limit < 0:
        raise ValueError(f"device memory limit must be >= 0, got {limit}")
    return limit if isinstance(limit, float) and limit <= 1 else int(limit)


def parse_device_memory_limit(limit, pool=None):
    """The spill threshold in bytes: ``limit`` as bytes (int or a string such as
    ``"512MiB"``), or as a fraction in (0, 1] (float, or a string such as
    ``"0.8"``) of the device pool's limit (``NPUARRAY_MEMORY_LIMIT``) or, without
    one, of the device's memory (aclrtGetMemInfo). 0 or None: no threshold (chunks
    stay on the device). Raises ValueError for negative or unparsable values."""
    limit = device_memory_limit_value(limit)
    if isinstance(limit, float):
        pool = pool or npx.get_default_memory_pool()
        return int(limit * (pool.get_limit() or pool.device.mem_info()[1]))
    return limit


class DeviceSerialized:
    """A chunk moved to host memory: the serialiser's header and frames (the
    frames are pinned host buffers until the chunk is written to disk)."""
    __slots__ = ("header", "frames")

    def __init__(self, header, frames):
        self.header = header
        self.frames = frames

    def __sizeof__(self):
        return sum(memoryview(f).nbytes for f in self.frames)


@dask_serialize.register(DeviceSerialized)
def _serialize_spilled(obj):
    return {"chunk-header": obj.header}, list(obj.frames)


@dask_deserialize.register(DeviceSerialized)
def _deserialize_spilled(header, frames):
    return DeviceSerialized(header["chunk-header"], frames)


_lock = threading.Lock()
_moved = {"spilled": 0, "unspilled": 0}


def spill_stats():
    """Device bytes this process spilled to host memory and read back (cumulative)."""
    with _lock:
        return dict(_moved)


def _count(direction, nbytes):
    with _lock:
        _moved[direction] += nbytes


def device_to_host(value):
    """``value``'s chunks downloaded into pinned host memory (D2H, transfer stream)."""
    header, frames = serialize(value, serializers=["dask", "pickle"], on_error="raise")
    _count("spilled", device_nbytes(value))
    return DeviceSerialized(header, frames)


def host_to_device(spilled):
    """The chunks uploaded back to this process's current device (H2D, transfer stream)."""
    value = deserialize(spilled.header, spilled.frames)
    _count("unspilled", device_nbytes(value))
    return value


def _device_weight(key, value):
    return device_nbytes(value)


class NPUHostFile(zict.common.ZictBase):
    """A Dask worker's ``data``: device, pinned-host and disk tiers, each least
    recently used first out.

    ``device_memory_limit``: the spill threshold (see
    :func:`parse_device_memory_limit`; 0: never spill). ``memory_limit``: bytes
    of host memory for spilled chunks and host objects before they go on to disk
    (0 or None: no limit). ``worker_local_directory``: where the disk tier
    lives (its ``npu-storage`` subdirectory). ``max_spill``: most bytes on disk
    (False: no limit; past it, objects stay in host memory). Values holding
    device memory (:func:`device_nbytes` > 0) enter the device tier; others the
    host tier. Thread-safe (zict's buffers lock).

    ``fast``/``evict()`` (host tier) let Dask's memory monitor move host objects
    to disk; ``spilled_total`` is the disk tier's size for Dask's metrics;
    :meth:`tier_bytes` gives the bytes in each tier.
    """

    def __init__(self, device_memory_limit=0.8, memory_limit=0, worker_local_directory=None,
                 max_spill=False):
        super().__init__()
        directory = os.path.join(worker_local_directory or os.getcwd(), "npu-storage")
        self.device_memory_limit = parse_device_memory_limit(device_memory_limit)
        self.memory_limit = int(parse_bytes(memory_limit) if isinstance(memory_limit, str)
                                else memory_limit or 0)
        self.host = SpillBuffer(directory, target=self.memory_limit or sys.maxsize,
                                max_spill=max_spill)
        self._device_keys = set()
        self.device = zict.Buffer(
            {}, zict.Func(device_to_host, host_to_device, self.host),
            n=self.device_memory_limit or sys.maxsize, weight=_device_weight)

    def __setitem__(self, key, value):
        with self.lock:
            if key in self:
                del self[key]
            if device_nbytes(value):
                self._device_keys.add(key)
                self.device[key] = value
            else:
                self.host[key] = value

    def __getitem__(self, key):
        if key in self._device_keys:
            return self.device[key]  # from the host or disk tier: uploaded back
        return self.host[key]

    def __delitem__(self, key):
        with self.lock:
            if key in self._device_keys:
                self._device_keys.discard(key)
                del self.device[key]
            else:
                del self.host[key]

    def __contains__(self, key):
        return key in self.host or key in self.device.fast

    def __iter__(self):
        yield from list(self.device.fast)
        yield from list(self.host)

    def __len__(self):
        return len(self.device.fast) + len(self.host)

    # -- Dask's memory monitor and metrics --------------------------------------------------
    @property
    def fast(self):
        return self.host.fast

    def evict(self):
        """Move the least recently used host object to disk (Dask's memory monitor);
        its size, or -1 when nothing could move."""
        return self.host.evict()

    @property
    def spilled_total(self):
        return self.host.spilled_total

    def tier_bytes(self):
        """{"device": bytes of chunks on the device (pool size classes), "host":
        bytes of spilled chunks in pinned host memory, "disk": bytes written to
        disk (chunks and host objects)}."""
        weights = dict(self.host.fast.weights)
        host = sum(w for k, w in weights.items() if k in self._device_keys)
        return {"device": int(self.device.fast.total_weight), "host": int(host),
                "disk": int(self.host.spilled_total.disk)}

    def close(self):
        self.host.close()
