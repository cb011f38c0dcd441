"""Moving NPUArray chunks between Dask workers, through pinned host memory.

``dask.distributed`` sends a chunk to another worker (or to the client) by
serialising it. The ``dask`` serialisation family below does that explicitly:
the sender downloads the chunk into a pinned host buffer with an asynchronous
D2H copy on a per-device transfer stream (aclrtMemcpyAsync) and ships that
buffer as the frame; the receiver stages the frame into a pinned buffer and
uploads it with an asynchronous H2D copy on its own transfer stream. Each side
waits for its copy on that stream only, before the pinned buffer is handed to
the network layer or released. :func:`transfer_stats` counts the bytes moved.
"""
import threading

import numpy as np

from ._core import _transfer
from ._core._array import NPUArray
from .runtime._device import get_device
from .runtime._pinned import empty_pinned
from .runtime._stream import Stream

__all__ = ["register", "transfer_stats"]

_lock = threading.Lock()
_moved = {"device_to_host": 0, "host_to_device": 0}
_streams = {}  # device id -> the stream chunk transfers use on that device


def transfer_stats():
    """Bytes this process moved device->host and host->device for chunk transfers."""
    with _lock:
        return dict(_moved)


def _count(direction, nbytes):
    with _lock:
        _moved[direction] += nbytes


def _transfer_stream(device):
    with _lock:
        stream = _streams.get(device.id)
        if stream is None:
            stream = _streams[device.id] = Stream(device)
        return stream


def serialize_npuarray(x):
    """A header (shape, dtype name) and one frame: the chunk in pinned host memory."""
    stream = _transfer_stream(x.device)
    host = empty_pinned(x.shape, x.dtype)
    x.to_host(stream=stream, out=host, blocking=False)
    stream.synchronize()
    _count("device_to_host", host.nbytes)
    header = {"shape": list(x.shape), "dtype": x.dtype.name}
    return header, [memoryview(host.reshape(-1).view(np.uint8))]


def deserialize_npuarray(header, frames):
    """The chunk on this process's current device, uploaded from a pinned buffer."""
    dtype = np.dtype(header["dtype"])
    shape = tuple(header["shape"])
    host = empty_pinned(shape, dtype)
    if host.nbytes:
        host.reshape(-1).view(np.uint8)[...] = np.frombuffer(frames[0], np.uint8)
    device = get_device()
    stream = _transfer_stream(device)
    x = _transfer.upload(host, device, stream)
    stream.synchronize()  # the pinned staging buffer is released on return
    _count("host_to_device", host.nbytes)
    return x


def register():
    """Registers the two functions above as ``distributed``'s ``dask`` serialisers of
    NPUArray (``import npuarray`` asks for this as soon as ``distributed.protocol`` is
    loaded; the worker and cluster modules of ``npuarray.dask`` at import)."""
    # distributed is optional and heavy: imported here, once the caller has loaded it.
    from distributed.protocol import dask_deserialize, dask_serialize
    dask_serialize.register(NPUArray)(serialize_npuarray)
    dask_deserialize.register(NPUArray)(deserialize_npuarray)
