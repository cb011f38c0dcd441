"""``LocalNPUCluster``: one ``dask.distributed`` worker process per NPU (as dask-cuda's
``LocalCUDACluster`` does for GPUs)."""
import logging
import os

import dask
from distributed import Nanny, Scheduler, SpecCluster

from . import _serialize  # noqa: F401  the client deserialises chunks too

__all__ = ["LocalNPUCluster"]


def _visible_devices(devices):
    """The device ids to start workers on: ``devices`` if given, else those the
    parent sees (its ``ASCEND_RT_VISIBLE_DEVICES``, else every device)."""
    if devices is not None:
        return [int(d) for d in devices]
    visible = os.environ.get("ASCEND_RT_VISIBLE_DEVICES")
    if visible:
        return [int(d) for d in visible.split(",") if d.strip()]
    import npuarray as npx
    return list(range(npx.device_count()))


class LocalNPUCluster(SpecCluster):
    """A local Dask cluster with one worker process per NPU.

    ``n_workers``: how many NPUs to use (default: every visible one; more than
    there are raises ValueError). ``devices``: explicit device ids instead.
    Each worker is a separate process started with "spawn" (npusim and CANN
    runtimes do not survive ``fork``), with ``threads_per_worker`` threads
    (default 1: one stream's worth of work per NPU), and sees only its device
    through ``ASCEND_RT_VISIBLE_DEVICES``, so its chunks live on that device
    (device 0 of the process) and run on its current stream. ``memory_limit``
    (e.g. ``"2GiB"``) sets ``NPUARRAY_MEMORY_LIMIT`` of each worker's device
    pool; ``env`` adds environment variables. Chunks move between workers
    through pinned host memory (see ``npuarray.dask._serialize``). Other
    keywords go to ``distributed.SpecCluster``.

    ``cluster.device_reports()`` (with a ``Client``) returns each worker's
    device memory peaks and transfer byte counts.
    """

    def __init__(self, n_workers=None, *, devices=None, threads_per_worker=1,
                 memory_limit=None, env=None, scheduler_port=0, dashboard_address=":0",
                 **kwargs):
        ids = _visible_devices(devices)
        if n_workers is not None:
            if not 1 <= n_workers <= len(ids):
                raise ValueError(f"n_workers={n_workers} but {len(ids)} NPUs are visible")
            ids = ids[:n_workers]
        if not ids:
            raise ValueError("no NPU is visible: LocalNPUCluster needs at least one device")
        self.devices = ids
        scheduler = {"cls": Scheduler, "options": {"port": scheduler_port,
                                                   "dashboard_address": dashboard_address}}
        silence_logs = kwargs.setdefault("silence_logs", logging.WARNING)
        workers = {f"npu-{i}": self._worker_spec(i, threads_per_worker, memory_limit, env,
                                                 silence_logs) for i in ids}
        with dask.config.set({"distributed.worker.multiprocessing-method": "spawn"}):
            super().__init__(workers=workers, scheduler=scheduler, **kwargs)

    @staticmethod
    def _worker_spec(device_id, threads, memory_limit, env, silence_logs):
        worker_env = {"ASCEND_RT_VISIBLE_DEVICES": str(device_id), **(env or {})}
        if memory_limit is not None:
            worker_env["NPUARRAY_MEMORY_LIMIT"] = str(memory_limit)
        return {"cls": Nanny, "options": {
            "nthreads": threads, "env": worker_env, "name": f"npu-{device_id}",
            "preload": ["npuarray.dask._worker"], "silence_logs": silence_logs,
            # Host memory is not what a worker manages: its chunks are on the device.
            "memory_limit": 0}}

    def device_reports(self, client):
        """{worker name: report} from every worker (``npuarray.dask._worker.device_report``)."""
        from ._worker import device_report
        reports = client.run(device_report)
        names = {addr: info["name"] for addr, info in client.scheduler_info()["workers"].items()}
        return {names[addr]: report for addr, report in reports.items()}
