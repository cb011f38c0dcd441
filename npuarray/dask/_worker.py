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

import click

import npuarray as npx

from .._dask_hook import register_lazily
from .._dask_hook import register_serializers, transfer_stats
from ._spill import NPUHostFile, device_nbytes, spill_stats

register_serializers()  # the pinned-memory chunk serialisers

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
    on the device, in host memory and on disk now (``dask_worker`` given, as
    ``Client.run`` does), the bytes serialised for chunk transfers and spills
    (``device_to_host``/``host_to_device``, both counted), of which spilled to
    host and read back (``spilled``/``unspilled``), and the bytes this worker
    sent to others (Dask's ``transfer_outgoing_bytes_total``)."""
    pool = npx.get_default_memory_pool()
    report = {"visible_device": os.environ.get("ASCEND_RT_VISIBLE_DEVICES"),
              "device_count": npx.device_count(),
              "peak_used_bytes": max(_peaks["used_bytes"], pool.used_bytes()),
              "peak_pool_bytes": pool.peak_total_bytes(),
              "used_bytes": pool.used_bytes(),
              "limit_bytes": pool.get_limit(),
              **transfer_stats(), **spill_stats()}
    if dask_worker is not None:
        report["sent_bytes"] = dask_worker.transfer_outgoing_bytes_total
        data = dask_worker.data
        report["spill_threshold_bytes"] = getattr(data, "device_memory_limit", 0)
        report.update({f"{tier}_bytes": n for tier, n in tier_bytes(dask_worker).items()})
    return report


def _tier_metric(tier):
    return lambda worker: tier_bytes(worker)[tier]


@click.command()
@click.option("--device-memory-limit", default="0.8",
              help="Spill threshold (bytes, a size string or a fraction; 0: no spilling).")
def dask_setup(worker, device_memory_limit):
    """Called by the worker process at start (``preload``; ``preload_argv`` gives the
    spill threshold). The worker's ``data`` becomes an ``NPUHostFile``, built here
    rather than passed to the nanny: the nanny's arguments are unpickled in the new
    process before its environment is set, and importing npuarray there would start
    the runtime with the parent's visible devices."""
    register_lazily()
    npx.Device(0).use()
    memory = worker.memory_manager
    _use_data(worker, NPUHostFile(device_memory_limit, memory.memory_limit or 0,
                                  worker.local_directory, max_spill=memory.max_spill))
    stop = threading.Event()
    threading.Thread(target=_sample_pool, args=(npx.get_default_memory_pool(), stop),
                     name="npuarray-pool-sampler", daemon=True).start()
    worker._npuarray_sampler_stop = stop
    for tier in ("device", "host", "disk"):
        worker.metrics[f"npu_{tier}_bytes"] = _tier_metric(tier)


def _use_data(worker, data):
    # The one mapping the worker, its memory manager (spilling on process memory) and its
    # state machine share; empty until the worker starts.
    if worker.data:
        raise RuntimeError("the worker holds data before its setup")
    worker.memory_manager.data = worker.state.data = data


def dask_teardown(worker):
    worker._npuarray_sampler_stop.set()
