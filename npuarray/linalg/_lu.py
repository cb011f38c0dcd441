"""float32 ``solve`` on CANN's ops-blas LU: aclblasSgetrfBatched then
aclblasSgetrsBatched, cuBLAS-style (a handle bound to a stream, column-major
matrices, device arrays of device pointers). The one place npuarray calls
ops-blas.

The operands are copied into column-major work arrays (the transposed views of
C-contiguous arrays, aclnnInplaceCopy), the pointer arrays are made on the device (aclnnArange), the
factorisation's info is read back to raise LinAlgError for a singular matrix
(this waits for the stream; not during a graph capture), and the solve overwrites the right-hand sides,
at most 256 columns per call as aclblasSgetrsBatched requires.
"""
import threading

import numpy as np

from .. import _acl
from .._core import _ops
from .._acl import ffi, lib
from .._core._elementwise import broadcast_shapes
from .._core._manipulation import broadcast_to, expand_dims
from ..runtime._device import activate
from ._common import LinAlgError, checks_allowed

__all__ = []

ACLBLAS_OP_N = 111
MAX_NRHS = 256  # aclblasSgetrsBatched (hicann/ops-blas blas/getrs_batched/README.md)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)
_FLOAT32 = np.dtype(np.float32)

_handles = {}  # device id -> aclblasHandle_t (one per device, like CuPy's cuBLAS handles)
_lock = threading.Lock()


class BLASError(_acl.AclError):
    """A non-zero ``aclblasStatus_t`` from CANN's ops-blas library."""


def _check(status, api):
    if status:
        message = lib.aclGetRecentErrMsg()
        raise BLASError(status, api, ffi.string(message).decode() if message != ffi.NULL else "")


def _handle(device):
    with _lock:
        handle = _handles.get(device.id)
        if handle is None:
            out = ffi.new("aclblasHandle_t *")
            activate(device.id)
            _check(lib.aclblasCreate(out), "aclblasCreate")
            handle = _handles[device.id] = ffi.gc(out[0], lib.aclblasDestroy)
    return handle


def available():
    """Whether the loaded provider has the ops-blas LU."""
    return not getattr(lib.aclblasSgetrfBatched, "npuarray_unavailable", False)


def _column_major(x, shape, stream):
    """A C-contiguous array whose matrices hold ``x`` (broadcast to ``shape``)
    transposed: the column-major storage of ``x``'s matrices."""
    work = _ops.empty(shape[:-2] + (shape[-1], shape[-2]), _FLOAT32, x._buffer.device, stream)
    _ops.copy_(work.mT, broadcast_to(x, shape), stream=stream)
    return work


def _pointers(first, step, count, device, stream):
    """Device array of the ``count`` addresses ``first + i * step``, made on the device
    with aclnnArange (int64), so that it works inside a graph capture too."""
    out = _ops.empty((count,), _INT64, device, stream)
    return _ops.arange_(out, first, first + step * count, step, stream=stream)


def solve_float32(a, b, vector):
    """``solve`` for float32 ``a`` (..., n, n) and ``b`` ((n,) when ``vector``, else
    (..., n, k)), batch dimensions broadcast; LinAlgError when a matrix is singular."""
    device = a._buffer.device
    stream = _ops.current_stream(device)
    n = a._shape[-1]
    rhs = expand_dims(b, axis=-1) if vector else b
    rhs = rhs if rhs._dtype == _FLOAT32 else _ops.cast(rhs, _FLOAT32, stream=stream)
    a = a if a._dtype == _FLOAT32 else _ops.cast(a, _FLOAT32, stream=stream)
    batch = broadcast_shapes(a._shape[:-2], rhs._shape[:-2])
    k = rhs._shape[-1]
    lu = _column_major(a, batch + (n, n), stream)
    x = _column_major(rhs, batch + (n, k), stream)  # overwritten with the solution
    result = x.mT[..., 0] if vector else x.mT
    if lu.size == 0 or x.size == 0:
        return result
    handle = _handle(device)
    count = lu.size // (n * n)
    a_ptrs = _pointers(lu.data_ptr, n * n * lu.dtype.itemsize, count, device, stream)
    pivots = _ops.empty((count, n), _INT32, device, stream)
    info = _ops.empty((count,), _INT32, device, stream)
    for buffer in (lu._buffer, x._buffer, a_ptrs._buffer, pivots._buffer, info._buffer):
        buffer.prepare(stream)
    activate(device.id)
    _check(lib.aclblasSetStream(handle, stream.handle), "aclblasSetStream")
    _check(lib.aclblasSgetrfBatched(handle, n, ffi.cast("float **", a_ptrs.data_ptr), n,
                                    ffi.cast("int *", pivots.data_ptr),
                                    ffi.cast("int *", info.data_ptr), count),
           "aclblasSgetrfBatched")
    if checks_allowed(info) and np.any(info.to_host(stream=stream) > 0):
        raise LinAlgError("Singular matrix")
    host_info = ffi.new("int *")
    for start in range(0, k, MAX_NRHS):
        nrhs = min(MAX_NRHS, k - start)  # columns start.. of each B: rows of x's matrices
        b_ptrs = _pointers(x.data_ptr + start * n * x.dtype.itemsize,
                           n * k * x.dtype.itemsize, count, device, stream)
        b_ptrs._buffer.prepare(stream)
        _check(lib.aclblasSgetrsBatched(
            handle, ACLBLAS_OP_N, n, nrhs, ffi.cast("float **", a_ptrs.data_ptr), n,
            ffi.cast("int *", pivots.data_ptr), ffi.cast("float **", b_ptrs.data_ptr), n,
            host_info, count), "aclblasSgetrsBatched")
    return result
