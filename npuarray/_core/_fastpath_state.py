"""The one object the C fast path reads: ``FastPathState``.

``npuarray/_core/_fastpath.c`` runs the common case of small operations without Python
frames, on the same objects the Python paths use. Everything it reads of them is handed
over in one ``FastPathState`` (built by ``_ops.configure_fastpath`` from the runtime's
published state and _ops's caches) and checked once, when the fast path is configured
at import: a missing field, a slot map naming a slot the class does not have, or a
field of the wrong type raises there, so a change in the runtime that the fast path
does not follow fails loudly instead of silently sending every operation to Python.

The fields (all required):

Classes and their published slot maps ({role: ``__slots__`` member}), read by offset:
  ``array_type``, ``array_slots``: NPUArray; roles buffer, shape, strides, offset, dtype,
  acl_tensor.
  ``buffer_type``, ``buffer_slots``: the runtime's DeviceBuffer and its ``BUFFER_SLOTS``.
  ``pool_type``, ``pool_slots``: MemoryPool and ``POOL_SLOTS`` (its lock-free contract).
  ``stream_type``, ``stream_slots``: Stream; role handle (its aclrtStream).
  ``device_type``, ``device_slots``: Device; role id.

The runtime's state (containers changed in place by their owners, never rebound):
  ``capture_active``: ``_capture_guard.active`` (empty: no capture; else Python runs).
  ``process``: ``_device.process_state`` (slots ``forked``, ``deferred_releases``).
  ``recording``: ``_profiler.recording`` (slots ``profile``, ``tracks``, ``launches``,
  ``event_pools``, ``serial``: the running profile, see ``_profiler.Recording``). While a profile
  runs, C records its launches itself: the host times, an end timing event from the pool
  (``profiler_take_event`` when it is empty) recorded on the stream with ``record_event``
  (``profiler_record_event`` when the runtime refuses) and a tuple appended to
  ``launches``, which the profile turns into Records when it ends; a stream's first
  launch in a profile goes through ``profiler_begin`` / ``profiler_end``
  (``_profiler.begin_launch`` / ``end``, which record its baseline), and
  ``profiler_capturing`` tells whether a stream joined a capture meanwhile.
  ``stream_locals``, ``device_locals``, ``pool_locals``: the runtime's threading.locals,
  whose attributes ``current``; ``acl_device``, ``in_host_func``; ``overrides`` are
  documented by their modules.
  ``default_streams``, ``default_pools``: {device id: Stream / MemoryPool}.
  ``activate``: ``_device.activate(device_id)``, called when the fast exit does not apply.

_ops's caches and callbacks:
  ``whole_tensors``, ``whole_tensor``; ``scalars``, ``acl_scalar``: the descriptor caches
  and the functions that fill them on a miss; ``view_tensor``: ``_ops.acl_tensor``, which
  gives a view made by indexing its aclTensor (from the cache of views' descriptors).
  ``entry_table``: {op name: entry points}, emptied (not rebound) when the provider changes;
  ``entry_points(op_name)``: the two phases' addresses as ints, or None.
  ``launch_status``, ``read_status``: raise a failed call's AclError (and serve workspaces).
  ``host_read_hooks``, ``capture_read_hook``: _transfer's hooks of implicit host reads and
  the one there by default; ``host_empty``: ``numpy.empty``.

C entry points of the provider (ints, None when it lacks one): ``capture_info``
(aclmdlRICaptureGetInfo), ``synchronize_stream`` (aclrtSynchronizeStream), ``memcpy``
(aclrtMemcpy), ``record_event`` (aclrtRecordEvent); ``memcpy_device_to_host``:
ACL_MEMCPY_DEVICE_TO_HOST.
``elapsed_time`` (aclrtEventElapsedTime): the profiler's device times, read in one call
when a profile ends (``_fastpath.event_times``).

cffi: C reads a pointer cdata's address through cffi's C API for compiled modules (the
``_cffi_backend._C_API`` table, as cffi-generated extensions do), converting to
``pointer_type`` (``ffi.typeof("void *")``); ``pointer_sample`` and
``pointer_sample_address`` (a cdata and its address as ``ffi.cast("uintptr_t", ...)``
gives it) check that conversion at configure time.
"""

__all__ = ["FastPathState"]


class FastPathState:
    """What ``_fastpath.configure`` reads (see the module docstring for each field). Made
    with every field as a keyword: TypeError names a missing or unknown one."""
    __slots__ = (
        "array_type", "array_slots", "buffer_type", "buffer_slots", "pool_type", "pool_slots",
        "stream_type", "stream_slots", "device_type", "device_slots",
        "capture_active", "process", "recording", "profiler_begin", "profiler_end",
        "profiler_take_event", "profiler_record_event", "profiler_capturing",
        "stream_locals", "device_locals", "pool_locals", "default_streams", "default_pools",
        "activate",
        "whole_tensors", "whole_tensor", "view_tensor", "scalars", "acl_scalar", "entry_table",
        "entry_points",
        "launch_status", "read_status", "host_read_hooks", "capture_read_hook", "host_empty",
        "capture_info", "synchronize_stream", "memcpy", "record_event", "memcpy_device_to_host",
        "pointer_type", "pointer_sample", "pointer_sample_address",
        "elapsed_time")

    def __init__(self, **fields):
        missing = [name for name in self.__slots__ if name not in fields]
        unknown = [name for name in fields if name not in self.__slots__]
        if missing or unknown:
            raise TypeError(f"FastPathState: missing fields {missing}, unknown fields {unknown}")
        for name, value in fields.items():
            setattr(self, name, value)
