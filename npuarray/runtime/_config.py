"""show_config: what npuarray runs on."""
import sys

from .._acl import backend
from ._device import Device, device_count


# Functions that compute on the host where CANN has no device implementation, with why;
# the array layer's extensions (npuarray.linalg) register theirs here.
host_fallbacks = {}


def show_config(file=None):
    """Prints the provider (npusim or CANN), its version, libraries and why it was chosen,
    then each device with its free and total memory (bytes, shown in MiB), then the
    functions that compute on the host (``host_fallbacks``)."""
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
    if host_fallbacks:
        print("host fallbacks (no device implementation in CANN):", file=file)
        for name, why in sorted(host_fallbacks.items()):
            print("  %s: %s" % (name, why), file=file)
