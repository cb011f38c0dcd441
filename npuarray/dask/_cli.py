"""``dask npu worker SCHEDULER``: NPU workers for a Dask cluster spanning machines.

Run on each machine with NPUs (as ``dask cuda worker`` is for GPUs): one worker
process per visible NPU of that machine, connected to the scheduler at
SCHEDULER (e.g. ``tcp://node1:8786``, from ``dask scheduler``). The ``dask``
command finds the ``npu`` group through the ``dask_cli`` entry point declared
in ``pyproject.toml``; ``python -m npuarray.dask worker SCHEDULER`` is the same
command without it. SIGINT or SIGTERM closes every worker (they leave the
scheduler, which moves their work elsewhere) and then exits.
"""
import asyncio
import logging
import socket

import click
from distributed import Nanny
from distributed._signals import wait_for_signals

from ._spill import device_memory_limit_value
from ._spec import nanny_options, parse_resources, spawn_processes, visible_devices

__all__ = ["npu", "run_workers"]

logger = logging.getLogger("npuarray.dask")


@click.group()
def npu():
    """Dask workers on Huawei Ascend NPUs (npuarray)."""


@npu.command(name="worker")
@click.argument("scheduler", type=str)
@click.option("--devices", type=str, default=None,
              help="Comma-separated NPU ids to start workers on, e.g. '0,1' (default: every "
                   "NPU visible here: ASCEND_RT_VISIBLE_DEVICES, else all).")
@click.option("--nthreads", type=int, default=1, show_default=True,
              help="Threads per worker process (each worker runs on its NPU's current stream).")
@click.option("--device-memory-limit", default="0.8", show_default=True,
              help="Spill threshold of each worker: past it, least recently used chunks move "
                   "to pinned host memory. Bytes ('4GiB') or a fraction of the pool limit "
                   "(NPUARRAY_MEMORY_LIMIT) or device memory; 0 turns spilling off.")
@click.option("--memory-limit", default="auto", show_default=True,
              help="Host memory of each worker ('auto', bytes such as '16GiB', a fraction of "
                   "the machine's memory, or 0 for none); spilled chunks go on to disk past it.")
@click.option("--name-prefix", type=str, default=None,
              help="Workers are named PREFIX-npuN (default: this host's name).")
@click.option("--resources", type=str, default="",
              help="Abstract resources of each worker for task constraints, e.g. 'NPU=1'.")
@click.option("--local-directory", type=str, default=None,
              help="Directory for spilled chunks and worker files (default: Dask's "
                   "temporary-directory).")
@click.option("--host", type=str, default=None,
              help="Address the workers listen on, visible to the scheduler and the other "
                   "workers (default: the interface that reaches the scheduler).")
@click.option("--death-timeout", type=float, default=None,
              help="Seconds a worker waits for the scheduler before it shuts down.")
def worker(scheduler, devices, nthreads, device_memory_limit, memory_limit, name_prefix,
           resources, local_directory, host, death_timeout):
    """Start one Dask worker per NPU of this machine, connected to SCHEDULER."""
    if scheduler.startswith("-"):
        raise click.BadParameter(f"{scheduler!r} is not a scheduler address",
                                 param_hint="SCHEDULER")
    if nthreads < 1:
        raise click.BadParameter(f"must be >= 1, got {nthreads}", param_hint="--nthreads")
    try:
        ids = visible_devices(devices)
        options = {"nthreads": nthreads,
                   "device_memory_limit": device_memory_limit_value(device_memory_limit),
                   "memory_limit": _number_or_text(memory_limit),
                   "resources": parse_resources(resources),
                   "local_directory": local_directory, "host": host,
                   "death_timeout": death_timeout}
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    if not ids:
        raise click.UsageError("no NPU is visible on this machine")
    prefix = name_prefix or socket.gethostname()
    asyncio.run(run_workers(scheduler, ids, prefix, **options))


def _number_or_text(value):
    """'0' and '0.5' as numbers (Dask reads a float as a fraction of the machine's
    memory); size strings and 'auto' as they are."""
    try:
        return float(value) if "." in value else int(value)
    except ValueError:
        return value


async def run_workers(scheduler, devices, prefix, **options):
    """Start a nanny per NPU in ``devices`` (worker named ``{prefix}-npu{id}``),
    then wait until they all finish or SIGINT/SIGTERM arrives, which closes them."""
    with spawn_processes():
        nannies = [Nanny(scheduler, **nanny_options(i, name=f"{prefix}-npu{i}", **options))
                   for i in devices]

        async def until_finished():
            await asyncio.gather(*nannies)
            logger.info("%d NPU worker(s) started: %s", len(nannies),
                        ", ".join(n.worker_address or "?" for n in nannies))
            await asyncio.gather(*(n.finished() for n in nannies))

        async def until_signal():
            signum = await wait_for_signals()
            await asyncio.gather(*(n.close(timeout=10, reason=f"signal-{signum}")
                                   for n in nannies))

        tasks = [asyncio.create_task(until_finished()), asyncio.create_task(until_signal())]
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        for task in done:
            task.result()
