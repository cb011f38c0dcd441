"""show_config: what npuarray runs on (``python -m npuarray``, like ``npu-smi info``)."""
import sys

from .._acl import backend
from ._device import Device, device_count
from ._memory_pool import get_default_memory_pool
from ._pinned import get_default_pinned_memory_pool

# Functions that compute on the host where CANN has no device implementation, with why;
# the array layer's extensions (npuarray.linalg) register theirs here.
host_fallbacks = {}


def format_bytes(n):
    """``n`` bytes for people: B below 1 KiB, else KiB / MiB / GiB with two decimals."""
    if n < 1024:
        return "%d B" % n
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024
        if n < 1024 or unit == "GiB":
            return "%.2f %s" % (n, unit)


def _device_pool_line(pool):
    limit = format_bytes(pool.get_limit()) if pool.get_limit() else "none"
    return ("pool: %s in use, %s held (%s cached in %d free blocks), peak held %s, "
            "limit %s (NPUARRAY_MEMORY_LIMIT)"
            % (format_bytes(pool.used_bytes()), format_bytes(pool.total_bytes()),
               format_bytes(pool.free_bytes()), pool.n_free_blocks(),
               format_bytes(pool.peak_total_bytes()), limit))


def _pinned_pool_line(pool):
    return ("pinned host pool: %s lent to transfers, %s held (%s cached), cache limit %s"
            % (format_bytes(pool.used_bytes()), format_bytes(pool.total_bytes()),
               format_bytes(pool.cached_bytes()), format_bytes(pool.limit)))


def show_config(file=None):
    """Prints the provider (npusim or CANN), its version, libraries and why it was chosen;
    then each device with its free and total memory and its default memory pool (bytes
    in use by arrays, held from the device, cached for reuse, the held high-water mark,
    and the limit from ``NPUARRAY_MEMORY_LIMIT``); the pinned host staging pool; and
    the functions that compute on the host (``host_fallbacks``). Sizes are printed in
    B / KiB / MiB / GiB (:func:`format_bytes`)."""
    file = sys.stdout if file is None else file
    info = backend()
    print("npuarray backend: %s %s" % (info.name, ".".join(map(str, info.version))), file=file)
    print("  reason: %s" % info.reason, file=file)
    for path in info.library:
        print("  library: %s" % path, file=file)
    count = device_count()
    print("devices: %d" % count, file=file)
    for index in range(count):
        free, total = Device(index).mem_info()
        print("  device %d: %.0f MiB free of %.0f MiB" % (index, free / 2**20, total / 2**20),
              file=file)
        print("    " + _device_pool_line(get_default_memory_pool(index)), file=file)
    print(_pinned_pool_line(get_default_pinned_memory_pool()), file=file)
    if host_fallbacks:
        print("host fallbacks (no device implementation in CANN):", file=file)
        for name, why in sorted(host_fallbacks.items()):
            print("  %s: %s" % (name, why), file=file)
