"""Runtime objects: devices, streams, events, graphs, pinned host memory and raw device memory.

Every ACL call made here first makes the right device current for the calling
thread (``_device.activate``). The current device and the current stream are
thread-local; each device's default stream is one npuarray creates.
"""
from ._config import show_config
from ._device import Device, device_count, get_device, synchronize
from ._graph import Graph, capture_mode
from ._memory import DeviceMemory
from ._pinned import empty_pinned, get_default_pinned_memory_pool, is_pinned, zeros_pinned
from ._racecheck import RaceWarning, racecheck
from ._stream import Event, Stream, default_stream, get_current_stream

__all__ = ["Device", "DeviceMemory", "Event", "Graph", "Stream", "capture_mode",
           "default_stream", "device_count", "empty_pinned", "get_current_stream",
           "get_default_pinned_memory_pool", "get_device",
           "is_pinned", "show_config", "synchronize", "zeros_pinned",
           "RaceWarning", "racecheck"]
