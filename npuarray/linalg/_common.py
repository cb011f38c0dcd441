"""Argument checks and small device helpers shared by the linalg modules."""
import numpy as np

from .._core import _ops
from .._core._elementwise import is_array, isnan
from ..runtime import _capture_guard
from .._core._utility import any as _any

__all__ = []

LinAlgError = np.linalg.LinAlgError  # a ValueError; NumPy's own class, so NumPy code catches it

FLOAT32 = np.dtype(np.float32)
FLOAT64 = np.dtype(np.float64)
COMPLEX64 = np.dtype(np.complex64)
COMPLEX128 = np.dtype(np.complex128)
REAL_FLOATING = frozenset((FLOAT32, FLOAT64))
FLOATING = frozenset((FLOAT32, FLOAT64, COMPLEX64, COMPLEX128))
REAL_OF = {FLOAT32: FLOAT32, FLOAT64: FLOAT64, COMPLEX64: FLOAT32, COMPLEX128: FLOAT64}


def check_array(name, x):
    if not is_array(x):
        raise TypeError(f"linalg.{name}() needs an NPUArray, got {type(x).__name__}")


def check_floating(name, x):
    """TypeError unless ``x`` is an NPUArray of a floating-point dtype (the
    standard's linalg functions take real or complex floating input)."""
    check_array(name, x)
    if x._dtype not in FLOATING:
        raise TypeError(f"linalg.{name}() needs a floating-point array (float32, float64, "
                        f"complex64 or complex128), got {x._dtype}")


def check_matrices(name, x, *, square=False):
    """ValueError (LinAlgError) unless ``x`` is a stack of (square) matrices."""
    if x.ndim < 2:
        raise LinAlgError(f"linalg.{name}(): {x.ndim}-dimensional array given; it needs at "
                          f"least two dimensions")
    if square and x._shape[-1] != x._shape[-2]:
        raise LinAlgError(f"linalg.{name}(): last 2 dimensions of the array must be square "
                          f"(got {x._shape[-2]} x {x._shape[-1]})")


def new(shape, dtype, like):
    """A new array of ``shape`` and ``dtype`` on ``like``'s device and current stream."""
    device = like._buffer.device
    return _ops.empty(tuple(shape), np.dtype(dtype), device, _ops.current_stream(device))


def checks_allowed(x):
    """Whether a result may be read back to check it: not while the stream of ``x``'s
    device is being captured into a graph (a read would synchronise it, which CANN
    refuses). Captured work is not checked, as CuPy does when it cannot synchronise."""
    return _capture_guard.capture_of(_ops.stream_of(x)) is None


def raise_if_nan(x, message):
    """LinAlgError(message) when ``x`` holds a NaN: how npusim and CANN's factorisations
    mark a matrix they could not factorise (their operators have no info output). Reads
    one bool back, which waits for the current stream; skipped during a graph capture."""
    if x.size and checks_allowed(x) and _any(isnan(x)).to_host():
        raise LinAlgError(message)


def cholesky_failed(out):
    """Whether a Cholesky factor in ``out`` (..., n, n) failed: npusim's aclnnLinalgCholesky
    fills a matrix it cannot factorise with NaN, and a NaN anywhere in a Cholesky factor
    reaches its last diagonal element, so only that element of each matrix is read back
    (which waits for the stream). False during a graph capture (nothing can be read)."""
    return bool(out.size) and checks_allowed(out) and bool(np.isnan(out[..., -1, -1].to_host()).any())


def raise_if_not_factored(out, message):
    """LinAlgError(message) when ``cholesky_failed(out)``."""
    if cholesky_failed(out):
        raise LinAlgError(message)
