"""float32 ``solve`` on CANN's ops-blas LU: aclblasSgetrfBatched then
aclblasSgetrsBatched, cuBLAS-style (a handle bound to a stream, column-major
matrices, device arrays of device pointers). The one place npuarray calls
ops-blas.

The matrices are copied into C-contiguous work arrays (aclnnInplaceCopy: a plain copy for
C-contiguous input, not a transposing one), which column-major LAPACK reads as their
transposes: the LU factors are those of ``a^T`` and the solves use them transposed
(aclblasSgetrsBatched with ACLBLAS_OP_T), which solves ``a x = b``. The right-hand sides are
copied column-major (the transposed views of C-contiguous arrays); the pointer arrays are made on the
device (aclnnArange), and the solve overwrites the right-hand sides, at most 256 columns per call as
aclblasSgetrsBatched requires. The factorisation's info is read back to raise LinAlgError for a
singular matrix (this waits for the stream; not during a graph capture): ``solve`` reads it once
the solves are queued behind the factorisation, so the stream runs both without a pause.
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

ACLBLAS_OP_T = 112
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
    """A C-contiguous float32 array whose matrices hold ``x`` (broadcast to ``shape``,
    cast by the copy) transposed: the column-major storage of ``x``'s matrices."""
    work = _ops.empty(shape[:-2] + (shape[-1], shape[-2]), _FLOAT32, x._buffer.device, stream)
    _ops.copy_(work.mT, broadcast_to(x, shape), stream=stream)
    return work


def _pointers(first, step, count, device, stream):
    """Device array of the ``count`` addresses ``first + i * step``, made on the device
    with aclnnArange (int64), so that it works inside a graph capture too."""
    out = _ops.empty((count,), _INT64, device, stream)
    return _ops.arange_(out, first, first + step * count, step, stream=stream)


def _row_major(x, shape, stream):
    """A new C-contiguous float32 array of ``x`` broadcast to ``shape`` (cast by the copy):
    column-major storage of the transposed matrices."""
    work = _ops.empty(shape, _FLOAT32, x._buffer.device, stream)
    _ops.copy_(work, broadcast_to(x, shape), stream=stream)
    return work


class Factors:
    """The float32 LU factors (aclblasSgetrfBatched) of the transposes of a stack of
    matrices, kept for several solves with aclblasSgetrsBatched (mixed-precision refinement
    reuses them)."""

    def __init__(self, a, batch, stream, check=True):
        """Factorises ``a`` broadcast to ``batch``; LinAlgError for a singular matrix unless
        ``check`` is false (then ``raise_if_singular`` tells, later)."""
        device = a._buffer.device
        self.n, self.batch, self.stream, self.device = a._shape[-1], batch, stream, device
        n = self.n
        self.lu = _row_major(a, batch + (n, n), stream)   # (cast to float32 by the copy)
        self.count = self.lu.size // (n * n)
        self.handle = _handle(device)
        self.a_ptrs = _pointers(self.lu.data_ptr, n * n * self.lu.dtype.itemsize, self.count, device, stream)
        self.pivots = _ops.empty((self.count, n), _INT32, device, stream)
        self.info = info = _ops.empty((self.count,), _INT32, device, stream)
        for buffer in (self.lu._buffer, self.a_ptrs._buffer, self.pivots._buffer, info._buffer):
            buffer.prepare(stream)
        activate(device.id)
        _check(lib.aclblasSetStream(self.handle, stream.handle), "aclblasSetStream")
        _check(lib.aclblasSgetrfBatched(self.handle, n, ffi.cast("float **", self.a_ptrs.data_ptr), n,
                                        ffi.cast("int *", self.pivots.data_ptr),
                                        ffi.cast("int *", info.data_ptr), self.count),
               "aclblasSgetrfBatched")
        if check:
            self.raise_if_singular()

    def raise_if_singular(self):
        """LinAlgError when a matrix was singular (a zero pivot in the factorisation's info):
        reads the info back, which waits for the stream; nothing during a graph capture."""
        if checks_allowed(self.info) and np.any(self.info.to_host(stream=self.stream) > 0):
            raise LinAlgError("Singular matrix")

    def solve(self, rhs):
        """A new (..., n, k) float32 array: the solution for the (batch-broadcast)
        right-hand sides ``rhs`` (..., n, k)."""
        n, stream, device = self.n, self.stream, self.device
        k = rhs._shape[-1]
        x = _column_major(rhs, self.batch + (n, k), stream)  # cast by the copy; overwritten with the solution
        x._buffer.prepare(stream)
        activate(device.id)
        _check(lib.aclblasSetStream(self.handle, stream.handle), "aclblasSetStream")
        host_info = ffi.new("int *")
        for start in range(0, k, MAX_NRHS):
            nrhs = min(MAX_NRHS, k - start)  # columns start.. of each B: rows of x's matrices
            b_ptrs = _pointers(x.data_ptr + start * n * x.dtype.itemsize,
                               n * k * x.dtype.itemsize, self.count, device, stream)
            b_ptrs._buffer.prepare(stream)
            _check(lib.aclblasSgetrsBatched(
                self.handle, ACLBLAS_OP_T, n, nrhs, ffi.cast("float **", self.a_ptrs.data_ptr), n,
                ffi.cast("int *", self.pivots.data_ptr), ffi.cast("float **", b_ptrs.data_ptr), n,
                host_info, self.count), "aclblasSgetrsBatched")
        return x.mT


def solve_float32(a, b, vector):
    """``solve`` for float32 ``a`` (..., n, n) and ``b`` ((n,) when ``vector``, else
    (..., n, k)), batch dimensions broadcast; LinAlgError when a matrix is singular."""
    stream = _ops.current_stream(a._buffer.device)
    rhs = expand_dims(b, axis=-1) if vector else b
    batch = broadcast_shapes(a._shape[:-2], rhs._shape[:-2])
    n, k = a._shape[-1], rhs._shape[-1]
    if not all(batch) or n == 0 or k == 0:
        result = _ops.empty(batch + (n, k), _FLOAT32, a._buffer.device, stream)
        return result[..., 0] if vector else result
    factors = Factors(a, batch, stream, check=False)
    result = factors.solve(rhs)
    factors.raise_if_singular()
    return result[..., 0] if vector else result
