"""Worker-side setup of NPU workers (``LocalNPUCluster`` and ``dask npu worker``;
a ``dask.distributed`` preload).

Each worker process sees one NPU (``ASCEND_RT_VISIBLE_DEVICES`` set by its
nanny), so that device is device 0 of the process. Setup makes it current,
loads the chunk serialisers, samples the device memory pool so the client
can ask for per-device peaks (:func:`device_report`, via ``Client.run``), and
adds the bytes of chunks on the device, spilled to host memory and to disk to
the worker's metrics (the scheduler's dashboard shows them per worker).
"""
import os
import threading

import npuarray as npx

from . import _serialize  # noqa: F401  registers the pinned-memory chunk serialisers
from ._dispatch import register_lazily
from ._spill import NPUHostFile, device_nbytes

_SAMPLE_SECONDS = 0.002
_peaks = {"used_bytes": 0}


def _sample_pool(pool, stop):
    # The pool keeps a high-water mark of the bytes it holds, not of those in use:
    # sample the latter while the worker runs.
    while not stop.wait(_SAMPLE_SECONDS):
        _peaks["used_bytes"] = max(_peaks["used_bytes"], pool.used_bytes())


def tier_bytes(worker):
    """{"device", "host", "disk"}: bytes of the worker's chunks in each tier of its
    ``NPUHostFile`` (a worker without one: every chunk counted on the device)."""
    data = worker.data
    if isinstance(data, NPUHostFile):
        return data.tier_bytes()
    return {"device": sum(device_nbytes(v) for v in list(data.values())), "host": 0,
            "disk": 0}


def device_report(dask_worker=None):
    """This worker's device: visible id, the pool's peaks (bytes in use by arrays:
    sampled every 2 ms; bytes held from the device: the pool's high-water mark),
    the pool's current use and limit, the spill threshold, the bytes of chunks
    on the device, spilled to host and to disk (``dask_worker`` given, as
    ``Client.run`` does), and the bytes moved for chunk transfers."""
    pool = npx.get_default_memory_pool()
    report = {"visible_device": os.environ.get("ASCEND_RT_VISIBLE_DEVICES"),
              "device_count": npx.device_count(),
              "peak_used_bytes": max(_peaks["used_bytes"], pool.used_bytes()),
              "peak_pool_bytes": pool.peak_total_bytes(),
              "used_bytes": pool.used_bytes(),
              "limit_bytes": pool.get_limit(),
              **_serialize.transfer_stats()}
    if dask_worker is not None:
        data = dask_worker.data
        report["spill_threshold_bytes"] = getattr(data, "device_memory_limit", 0)
        report.update({f"{tier}_bytes": n for tier, n in tier_bytes(dask_worker).items()})
    return report


def _tier_metric(tier):
    return lambda worker: tier_bytes(worker)[tier]


def dask_setup(worker):
    """Called by the worker process at start (``preload``)."""
    register_lazily()
    npx.Device(0).use()
    stop = threading.Event()
    threading.Thread(target=_sample_pool, args=(npx.get_default_memory_pool(), stop),
                     name="npuarray-pool-sampler", daemon=True).start()
    worker._npuarray_sampler_stop = stop
    for tier in ("device", "host", "disk"):
        worker.metrics[f"npu_{tier}_bytes"] = _tier_metric(tier)


def dask_teardown(worker):
    worker._npuarray_sampler_stop.set()
