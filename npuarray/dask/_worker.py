"""Worker-side setup of :class:`LocalNPUCluster` (a ``dask.distributed`` preload).

Each worker process sees one NPU (``ASCEND_RT_VISIBLE_DEVICES`` set by its
nanny), so that device is device 0 of the process. Setup makes it current,
loads the chunk serialisers, and samples the device memory pool so the client
can ask for per-device peaks (:func:`device_report`, via ``Client.run``).
"""
import os
import threading

import npuarray as npx

from . import _serialize  # noqa: F401  registers the pinned-memory chunk serialisers
from ._dispatch import register_lazily

_SAMPLE_SECONDS = 0.002
_peaks = {"used_bytes": 0}


def _sample_pool(pool, stop):
    # The pool keeps a high-water mark of the bytes it holds, not of those in use:
    # sample the latter while the worker runs.
    while not stop.wait(_SAMPLE_SECONDS):
        _peaks["used_bytes"] = max(_peaks["used_bytes"], pool.used_bytes())


def device_report():
    """This worker's device: visible id, the pool's peaks (bytes in use by arrays:
    sampled every 2 ms; bytes held from the device: the pool's high-water mark),
    the pool's current use, and the bytes moved for chunk transfers."""
    pool = npx.get_default_memory_pool()
    return {"visible_device": os.environ.get("ASCEND_RT_VISIBLE_DEVICES"),
            "device_count": npx.device_count(),
            "peak_used_bytes": max(_peaks["used_bytes"], pool.used_bytes()),
            "peak_pool_bytes": pool.peak_total_bytes(),
            "used_bytes": pool.used_bytes(),
            "limit_bytes": pool.get_limit(),
            **_serialize.transfer_stats()}


def dask_setup(worker):
    """Called by the worker process at start (``preload``)."""
    register_lazily()
    npx.Device(0).use()
    stop = threading.Event()
    threading.Thread(target=_sample_pool, args=(npx.get_default_memory_pool(), stop),
                     name="npuarray-pool-sampler", daemon=True).start()
    worker._npuarray_sampler_stop = stop


def dask_teardown(worker):
    worker._npuarray_sampler_stop.set()
