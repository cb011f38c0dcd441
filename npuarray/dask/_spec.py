"""How an NPU worker process is started: shared by :class:`LocalNPUCluster` and
``dask npu worker`` (as dask-cuda's ``LocalCUDACluster`` and ``dask cuda worker``
share their worker setup).

One ``distributed.Nanny`` per NPU; the nanny spawns the worker process with
``ASCEND_RT_VISIBLE_DEVICES`` set to that NPU alone (so it is device 0 of the
process), the preload :mod:`npuarray.dask._worker` (makes the device current,
loads the chunk serialisers, adds the device metrics and makes the worker's
``data`` an :class:`~npuarray.dask._spill.NPUHostFile` that spills chunks from
the device to pinned host memory and on to disk). Nothing here imports
npuarray into the worker before the nanny has set its environment.
"""
import os

import dask

from ..runtime._device import device_count

__all__ = ["nanny_options", "parse_resources", "spawn_processes", "visible_devices"]

PRELOAD = "npuarray.dask._worker"


def visible_devices(devices=None):
    """The device ids to start workers on: ``devices`` (ids, or a string such as
    ``"0,1"``) if given, else those this process sees (its
    ``ASCEND_RT_VISIBLE_DEVICES``, else every device). Raises ValueError for ids
    that are not non-negative integers or repeat."""
    if devices is None:
        visible = os.environ.get("ASCEND_RT_VISIBLE_DEVICES")
        if not visible:
            return list(range(device_count()))
        devices = visible
    if isinstance(devices, str):
        devices = [d for d in devices.split(",") if d.strip()]
    try:
        ids = [int(d) for d in devices]
    except (TypeError, ValueError) as error:
        raise ValueError(f"device ids must be integers, got {devices!r}") from error
    if any(i < 0 for i in ids) or len(set(ids)) != len(ids):
        raise ValueError(f"device ids must be distinct and >= 0, got {ids}")
    return ids


def parse_resources(text):
    """``"NPU=1 MEM=10e9"`` (spaces or commas between) as {name: float}; None for
    an empty string. Raises ValueError for an entry that is not NAME=NUMBER."""
    if not text:
        return None
    resources = {}
    for item in text.replace(",", " ").split():
        name, sep, value = item.partition("=")
        try:
            if not (sep and name):
                raise ValueError
            resources[name] = float(value)
        except ValueError:
            raise ValueError(f"resource {item!r} is not NAME=NUMBER (e.g. 'NPU=1')") from None
    return resources


def nanny_options(device_id, *, name, nthreads=1, device_memory_limit=0.8, memory_limit=0,
                  pool_limit=None, env=None, resources=None, local_directory=None, **options):
    """Keyword arguments of ``distributed.Nanny`` for the worker of NPU ``device_id``.

    ``device_memory_limit``: spill threshold (bytes, a size string or a fraction
    of the pool limit / device memory; 0: no spilling). ``memory_limit``: host
    memory for spilled chunks before disk, also Dask's worker memory limit (0:
    none). ``pool_limit``: ``NPUARRAY_MEMORY_LIMIT`` of the worker's pool (None:
    inherited). ``env``: more environment variables. Other ``options`` (``host``,
    ``silence_logs``, ``dashboard_address``, ...) go to the nanny as they are.
    """
    worker_env = {"ASCEND_RT_VISIBLE_DEVICES": str(device_id), **(env or {})}
    if pool_limit is not None:
        worker_env["NPUARRAY_MEMORY_LIMIT"] = str(pool_limit)
    return {"nthreads": nthreads, "env": worker_env, "name": name, "preload": [PRELOAD],
            "preload_argv": ["--device-memory-limit", str(device_memory_limit)],
            "memory_limit": memory_limit, "resources": resources,
            "local_directory": local_directory, **options}


def spawn_processes():
    """A ``dask.config.set`` context in which nannies start their workers with
    "spawn" (npusim and CANN runtimes do not survive ``fork``)."""
    return dask.config.set({"distributed.worker.multiprocessing-method": "spawn"})
