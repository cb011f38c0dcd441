"""Host fallback of the linalg functions CANN has no device implementation for.

Such a function downloads its operands on the current stream of their device
(a blocking copy that waits for that stream only, never a global
synchronisation), computes with NumPy (LAPACK), and uploads the results on the
same stream, so later work on it is ordered after them. Under
``transfer_guard("disallow")`` it raises ``ImplicitTransferError`` naming the
function; under ``"log"`` it logs a warning. ``HOST_FUNCTIONS`` lists them for
``npuarray.show_config()``.
"""
import logging

import numpy as np

from .._core import _ops
from .._core._transfer import ImplicitTransferError, guard_level, to_host, upload
from ..runtime import _config

__all__ = []

_logger = logging.getLogger("npuarray")

# function -> why it runs on the host (shown by npuarray.show_config())
HOST_FUNCTIONS = {
    "linalg.eig": "no eigensolver in CANN, and no decomposition it has that a nonsymmetric "
                  "one reduces to (eigh runs on the device from aclnnSvd)",
    "linalg.eigvals": "as linalg.eig",
    "linalg.solve": "only where ops-blas is missing (float32 LU; float64 / complex128 refine it)",
    "linalg.cholesky": "empty complex input only (complex runs on the device from eigh and QR)",
}
_config.host_fallbacks.update(HOST_FUNCTIONS)


def on_host(name, compute, *arrays):
    """``compute(*host_arrays)`` (a NumPy result or tuple of them) for the
    NPUArrays ``arrays``, uploaded back to their device on its current stream."""
    first = arrays[0]
    level = guard_level()
    if level != "allow":
        message = (f"npuarray.{name} has no device implementation in CANN and computes on the "
                   f"host: it copies arrays of shapes {[a.shape for a in arrays]} from "
                   f"{first.device} to the host and back")
        if level == "disallow":
            raise ImplicitTransferError(message + " (transfer_guard is 'disallow')")
        _logger.warning(message)
    device = first._buffer.device
    stream = _ops.current_stream(device)
    hosts = [to_host(a, stream=stream) for a in arrays]
    result = compute(*hosts)
    if isinstance(result, tuple):
        return tuple(upload(np.asarray(r, order="C"), device, stream) for r in result)
    return upload(np.asarray(result, order="C"), device, stream)
