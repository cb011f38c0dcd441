"""``LocalNPUCluster``: one ``dask.distributed`` worker process per NPU (as dask-cuda's
``LocalCUDACluster`` does for GPUs)."""
import logging

from distributed import Nanny, Scheduler, SpecCluster

from .._dask_hook import register_serializers
from ._spec import nanny_options, spawn_processes, visible_devices
from ._worker import device_report

__all__ = ["LocalNPUCluster", "device_reports"]

register_serializers()  # the client deserialises chunks too


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
    pool, its hard limit. ``device_memory_limit`` is the spill threshold below
    it: past it a worker moves its least recently used chunks to pinned host
    memory, and past ``host_memory_limit`` (0: none) on to disk, and back when
    a task needs them (bytes, a size string, or a fraction of the pool limit or
    device memory; 0 turns spilling off; see ``npuarray.dask._spill``). ``env``
    adds environment variables; ``local_directory`` holds the workers' files
    and spilled chunks (default: Dask's temporary-directory). The scheduler
    and workers listen on ``host`` (default: loopback, as Dask's
    ``LocalCluster``). Chunks move between workers through pinned
    host memory (see ``npuarray._dask_hook``). Other keywords go to
    ``distributed.SpecCluster``. The workers are started as ``dask npu worker``
    starts them (``npuarray.dask._spec``).

    ``cluster.device_reports()`` (with a ``Client``) returns each worker's
    device memory peaks, bytes per spill tier and transfer byte counts.
    """

    def __init__(self, n_workers=None, *, devices=None, threads_per_worker=1,
                 memory_limit=None, device_memory_limit=0.8, host_memory_limit=0, env=None,
                 local_directory=None, host="127.0.0.1", scheduler_port=0,
                 dashboard_address=":0", **kwargs):
        ids = visible_devices(devices)
        if n_workers is not None:
            if not 1 <= n_workers <= len(ids):
                raise ValueError(f"n_workers={n_workers} but {len(ids)} NPUs are visible")
            ids = ids[:n_workers]
        if not ids:
            raise ValueError("no NPU is visible: LocalNPUCluster needs at least one device")
        self.devices = ids
        scheduler = {"cls": Scheduler, "options": {"host": host, "port": scheduler_port,
                                                   "dashboard_address": dashboard_address}}
        silence_logs = kwargs.setdefault("silence_logs", logging.WARNING)
        workers = {f"npu-{i}": {"cls": Nanny, "options": nanny_options(
            i, name=f"npu-{i}", nthreads=threads_per_worker,
            device_memory_limit=device_memory_limit, memory_limit=host_memory_limit,
            pool_limit=memory_limit, env=env, local_directory=local_directory, host=host,
            silence_logs=silence_logs)} for i in ids}
        with spawn_processes():
            super().__init__(workers=workers, scheduler=scheduler, **kwargs)

    def device_reports(self, client):
        """{worker name: report} from every worker (see :func:`device_reports`)."""
        return device_reports(client)


def device_reports(client):
    """{worker name: report} from every worker of the client's cluster (``LocalNPUCluster``
    or ``dask npu worker``): ``npuarray.dask._worker.device_report`` run on each, with
    the bytes of its chunks on the device, in host memory and on disk."""
    reports = client.run(device_report)  # Client.run passes each worker as dask_worker
    names = {addr: info["name"]
             for addr, info in client.scheduler_info(n_workers=-1)["workers"].items()}
    return {names.get(addr, addr): report for addr, report in reports.items()}
