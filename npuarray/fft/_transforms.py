"""The array API fft functions on aclfft.

Every transform is a sequence of 1-D transforms along one axis: the axis is
moved last and the operand made C-contiguous (aclnnInplaceCopy), the rows are
transformed by one batched aclfft plan (``_plan.execute``), and the axis is
moved back (a view). Lengths are cut or zero-padded to ``n`` first, and the
``norm`` scaling is one aclnnMuls. Everything runs on the current stream of
the input's device.

CANN's FFT library is single precision only (and refuses lengths with a prime
factor above 199): float64 / complex128 input and such lengths are transformed on
the device in complex128 by element-wise operators (``_composed``: Stockham
radix-4 stages, Bluestein's chirp transform for other lengths).
"""
import math
import operator

import numpy as np

from .._core import _ops
from .._core._elementwise import is_array, conj, real
from .._core._manipulation import concat, flip, moveaxis
from . import _composed, _plan

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft"]

_FLOAT32, _COMPLEX64 = np.dtype(np.float32), np.dtype(np.complex64)
_DEVICE_DTYPES = frozenset((_FLOAT32, _COMPLEX64))
_ALL_FLOATING = frozenset(map(np.dtype, (np.float32, np.float64, np.complex64, np.complex128)))
_NORMS = ("backward", "ortho", "forward")


# ---------------------------------------------------------------------------
# Checks

def _check_input(name, x, *, real=False):
    if not is_array(x):
        raise TypeError(f"fft.{name}() needs an NPUArray, got {type(x).__name__}")
    if x._dtype not in _ALL_FLOATING or (real and x._dtype.kind == "c"):
        wanted = "a real floating-point" if real else "a floating-point"
        raise TypeError(f"fft.{name}() needs {wanted} array, got {x._dtype}")


def _check_norm(name, norm):
    if norm not in _NORMS:
        raise ValueError(f"fft.{name}(): norm must be one of {_NORMS}, got {norm!r}")


def _axis(name, axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim, f"fft.{name}()")
    return axis % ndim


def _length(name, n, default):
    n = default if n is None else operator.index(n)
    if n < 1:
        raise ValueError(f"fft.{name}(): invalid number of data points ({n}); it must be >= 1")
    return n


def _scale(norm, n, inverse):
    """The factor ``norm`` applies to a transform of length ``n``."""
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if (norm == "backward") == inverse:
        return 1.0 / n
    return 1.0


def _complex_of(dtype):
    return _COMPLEX64 if dtype in (_FLOAT32, _COMPLEX64) else np.dtype(np.complex128)


# ---------------------------------------------------------------------------
# One axis

def _resized(x, axis, n):
    """``x`` cut or zero-padded to length ``n`` along ``axis`` (a view when cut)."""
    m = x._shape[axis]
    if m == n:
        return x
    index = [slice(None)] * x.ndim
    if m > n:
        index[axis] = slice(0, n)
        return x[tuple(index)]
    shape = list(x._shape)
    shape[axis] = n
    stream = _ops.stream_of(x)
    out = _ops.fill_(_ops.empty(tuple(shape), x._dtype, x._buffer.device, stream), 0)
    index[axis] = slice(0, m)
    _ops.copy_(out[tuple(index)], x)
    return out


def _axis_last(x, axis):
    """``x`` with (non-negative) ``axis`` moved last: ``x`` itself when it is."""
    return x if axis == x.ndim - 1 else moveaxis(x, axis, -1)


def _axis_back(x, axis):
    """The inverse of ``_axis_last``."""
    return x if axis == x.ndim - 1 else moveaxis(x, -1, axis)


def _rows(x):
    """``x`` (axis already last) as a C-contiguous array, and its number of rows."""
    x = x if x.is_c_contiguous() else _ops.copy(x)
    return x, (x.size // x._shape[-1] if x._shape[-1] else 0)


def _on_device(x, n):
    return x._dtype in _DEVICE_DTYPES and _plan.supported_length(n) and \
        x.size // max(x._shape[-1], 1) * n <= _plan.MAX_ELEMENTS


def _c2c(name, x, axis, n, inverse, norm):
    """Complex transform of length ``n`` along ``axis`` (input cut / padded to ``n``)."""
    x = _resized(x, axis, n)
    dtype = _complex_of(x._dtype)
    moved = _axis_last(x, axis)
    if not _on_device(moved, n):
        out = _composed_rows(moved, inverse)
        return _axis_back(_scaled(_as(out, dtype), _scale(norm, n, inverse)), axis)
    if moved._dtype != dtype:
        moved = _ops.cast(moved, dtype)
    src, rows = _rows(moved)
    out = _ops.empty(src._shape, dtype, src._buffer.device, _ops.stream_of(src))
    if rows:
        _plan.execute(_plan.C2C, n, rows, src, out,
                      _plan.ACLFFT_BACKWARD if inverse else _plan.ACLFFT_FORWARD)
    return _axis_back(_scaled(out, _scale(norm, n, inverse)), axis)


def _c2c_last_two(x, sizes, inverse, norm):
    """The 2-D complex transform over the last two axes (each cut or padded to ``sizes``)
    by one aclfftPlan2d, or None where aclfft cannot take it (double precision, a length
    it refuses, too many elements)."""
    nx, ny = sizes
    if x._dtype not in _DEVICE_DTYPES or not (_plan.supported_length(nx) and _plan.supported_length(ny)):
        return None
    batch = math.prod(x._shape[:-2])
    if batch * nx * ny > _plan.MAX_ELEMENTS:
        return None
    x = _as(_resized(_resized(x, x.ndim - 2, nx), x.ndim - 1, ny), _COMPLEX64)
    src, _ = _rows(x)
    out = _ops.empty(src._shape, _COMPLEX64, src._buffer.device, _ops.stream_of(src))
    if batch:
        _plan.execute(_plan.C2C, (nx, ny), batch, src, out,
                      _plan.ACLFFT_BACKWARD if inverse else _plan.ACLFFT_FORWARD)
    return _scaled(out, _scale(norm, nx * ny, inverse))


def _c2c_axes(name, x, axes, sizes, inverse, norm):
    """Complex transforms along ``axes`` (lengths ``sizes``): those over the last two axes
    of the array as one 2-D aclfft transform where it can, the others one axis at a time
    (transforms along different axes commute)."""
    last_two = {x.ndim - 2, x.ndim - 1}
    if len(axes) >= 2 and x.ndim >= 2 and set(axes[-2:]) == last_two:
        pair = dict(zip(axes[-2:], sizes[-2:]))
        done = _c2c_last_two(x, (pair[x.ndim - 2], pair[x.ndim - 1]), inverse, norm)
        if done is not None:
            x, axes, sizes = done, axes[:-2], sizes[:-2]
    for a, n in zip(axes, sizes):
        x = _c2c(name, x, a, n, inverse, norm)
    return x


def _as(x, dtype):
    return x if x._dtype == dtype else _ops.cast(x, dtype)


def _composed_rows(moved, inverse):
    """complex128 transforms of the rows of ``moved`` (axis last) on the device."""
    src, _ = _rows(_as(moved, _composed.COMPLEX128))
    return _composed.c2c(src, inverse, _ops.stream_of(src))


def _scaled(x, factor):
    """``x`` times ``factor``, in place: ``x`` is a new array of this module's (a
    transform's result, or a cast or view of one), so aclnnMuls writes over the
    memory the transform has just written (still in cache) rather than a new
    buffer."""
    if factor != 1.0 and x.size:
        _ops.launch("aclnnMuls", x, _ops.acl_scalar(factor, x._dtype), x)
    return x


def _r2c(name, x, axis, n, norm, inverse=False):
    """Real-to-complex transform of length ``n`` along ``axis``: ``n // 2 + 1`` outputs."""
    x = _resized(x, axis, n)
    dtype = _complex_of(x._dtype)
    moved = _axis_last(x, axis)
    if not _on_device(moved, n):
        out = _composed_rows(moved, False)[..., :n // 2 + 1]
        return _axis_back(_scaled(_as(out, dtype), _scale(norm, n, inverse)), axis)
    src, rows = _rows(moved)
    out = _ops.empty(src._shape[:-1] + (n // 2 + 1,), dtype, src._buffer.device,
                     _ops.stream_of(src))
    if rows:
        _plan.execute(_plan.R2C, n, rows, src, out, _plan.ACLFFT_FORWARD)
    return _axis_back(_scaled(out, _scale(norm, n, inverse)), axis)


def _c2r(name, x, axis, n, norm, inverse=True):
    """Complex-to-real (Hermitian) transform giving ``n`` real outputs along ``axis``."""
    x = _resized(x, axis, n // 2 + 1)
    real_dtype = np.dtype(np.float32) if x._dtype in (_FLOAT32, _COMPLEX64) else np.dtype(np.float64)
    moved = _axis_last(x, axis)
    if not _on_device(moved, n):   # the whole Hermitian spectrum, then its real part
        full = concat([moved, conj(flip(moved[..., 1:n - n // 2], axis=-1))], axis=-1)
        out = real(_composed_rows(full, True))
        return _axis_back(_scaled(_as(out, real_dtype), _scale(norm, n, inverse)), axis)
    if moved._dtype != _COMPLEX64:
        moved = _ops.cast(moved, _COMPLEX64)
    src, rows = _rows(moved)
    out = _ops.empty(src._shape[:-1] + (n,), real_dtype, src._buffer.device, _ops.stream_of(src))
    if rows:
        _plan.execute(_plan.C2R, n, rows, src, out, _plan.ACLFFT_BACKWARD)
    return _axis_back(_scaled(out, _scale(norm, n, inverse)), axis)


def _negated_index(x, axis):
    """``y[t] = x[-t mod n]`` along ``axis`` (the first element stays, the rest reversed)."""
    n = x._shape[axis]
    if n <= 2:
        return x
    head = [slice(None)] * x.ndim
    tail = [slice(None)] * x.ndim
    head[axis], tail[axis] = slice(0, 1), slice(1, None)
    return concat([x[tuple(head)], flip(x[tuple(tail)], axis=axis)], axis=axis)


# ---------------------------------------------------------------------------
# The standard's functions

def fft(x, /, *, n=None, axis=-1, norm="backward"):
    """One-dimensional discrete Fourier transform along ``axis`` (array API
    ``fft.fft``, ``numpy.fft.fft``): ``x`` (real input is treated as complex) cut or
    zero-padded to ``n`` (default: its length). Result: complex64 for float32 /
    complex64 input, complex128 for float64 / complex128. ``norm``: "backward"
    (no scaling), "ortho" (1/sqrt(n)) or "forward" (1/n).

    Single precision: aclfftExecC2C (CANN's aclfft, a cached plan) on the
    current stream; double precision and lengths with a prime factor above 199:
    complex128 composed from aclnn operators on the same stream (Bluestein's
    chirp and filter spectrum cached per length and device). Raises TypeError for non-floating input,
    ValueError for ``n < 1`` or a bad ``norm``, AxisError (ValueError and
    IndexError) for a bad axis.
    """
    _check_input("fft", x)
    _check_norm("fft", norm)
    axis = _axis("fft", axis, x.ndim)
    return _c2c('fft', x, axis, _length("fft", n, x._shape[axis]), False, norm)


def ifft(x, /, *, n=None, axis=-1, norm="backward"):
    """Inverse of ``fft`` (array API ``fft.ifft``): aclfftExecC2C backward, scaled
    1/n for "backward" norm. Same arguments, dtypes, stream and errors as ``fft``."""
    _check_input("ifft", x)
    _check_norm("ifft", norm)
    axis = _axis("ifft", axis, x.ndim)
    return _c2c('ifft', x, axis, _length("ifft", n, x._shape[axis]), True, norm)


def rfft(x, /, *, n=None, axis=-1, norm="backward"):
    """Transform of real input along ``axis`` (array API ``fft.rfft``): the
    ``n // 2 + 1`` non-negative frequency terms, complex64 for float32 input,
    complex128 for float64. aclfftExecR2C on the current stream (float64: the
    composed complex128 transform). TypeError for complex or non-floating input; else as ``fft``."""
    _check_input("rfft", x, real=True)
    _check_norm("rfft", norm)
    axis = _axis("rfft", axis, x.ndim)
    return _r2c('rfft', x, axis, _length("rfft", n, x._shape[axis]), norm)


def irfft(x, /, *, n=None, axis=-1, norm="backward"):
    """Inverse of ``rfft`` (array API ``fft.irfft``): ``n`` real outputs (default
    ``2 * (m - 1)`` for ``m`` input terms; the input is cut or padded to
    ``n // 2 + 1``), float32 for complex64 input, float64 for complex128.
    aclfftExecC2R on the current stream. Errors as ``fft``."""
    _check_input("irfft", x)
    _check_norm("irfft", norm)
    axis = _axis("irfft", axis, x.ndim)
    return _c2r('irfft', x, axis, _length("irfft", n, 2 * (x._shape[axis] - 1)), norm)


def hfft(x, /, *, n=None, axis=-1, norm="backward"):
    """Transform of a Hermitian-symmetric signal given by its first half (array
    API ``fft.hfft``, ``numpy.fft.hfft``): ``n`` real outputs (default
    ``2 * (m - 1)``). Computed as aclfftExecC2R (a backward transform) read at
    negated indices, which equals the forward transform of the completed
    signal; scaling as a forward transform. Errors as ``fft``."""
    _check_input("hfft", x)
    _check_norm("hfft", norm)
    axis = _axis("hfft", axis, x.ndim)
    n = _length("hfft", n, 2 * (x._shape[axis] - 1))
    return _negated_index(_c2r('hfft', x, axis, n, norm, inverse=False), axis)


def ihfft(x, /, *, n=None, axis=-1, norm="backward"):
    """Inverse of ``hfft`` for real input (array API ``fft.ihfft``): the
    ``n // 2 + 1`` terms of the conjugate spectrum, computed as aclfftExecR2C of
    the input read at negated indices; scaling as an inverse transform. Errors
    as ``rfft``."""
    _check_input("ihfft", x, real=True)
    _check_norm("ihfft", norm)
    axis = _axis("ihfft", axis, x.ndim)
    n = _length("ihfft", n, x._shape[axis])
    return _r2c('ihfft', _negated_index(_resized(x, axis, n), axis), axis, n, norm, inverse=True)


def _axes_and_sizes(name, x, s, axes, last_default=None):
    """(axes, sizes) of an n-dimensional transform, as the standard says: ``axes``
    default to the last ``len(s)`` axes (all axes without ``s``); ``s`` entries of
    -1 keep the input's size."""
    if axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
    axes = tuple(_axis(name, a, x.ndim) for a in axes)
    if s is None:
        sizes = [x._shape[a] for a in axes]
        if last_default is not None and axes:
            sizes[-1] = last_default(x._shape[axes[-1]])
    else:
        if len(s) != len(axes):
            raise ValueError(f"fft.{name}(): s and axes have different lengths ({len(s)} and "
                             f"{len(axes)})")
        sizes = []
        for i, (size, a) in enumerate(zip(s, axes)):
            size = operator.index(size)
            if size == -1:
                size = x._shape[a]
                if last_default is not None and i == len(axes) - 1:
                    size = last_default(size)
            sizes.append(_length(name, size, None))
    return axes, sizes


def fftn(x, /, *, s=None, axes=None, norm="backward"):
    """N-dimensional transform over ``axes`` (array API ``fft.fftn``): 1-D
    aclfftExecC2C transforms along each axis in turn, each cut or padded to
    ``s``; when the last two of ``axes`` are the array's last two, those run as
    one 2-D aclfftExecC2C (aclfftPlan2d) with no transposing copy. Dtypes,
    stream and errors as ``fft``; ValueError when ``s`` and ``axes`` differ in
    length."""
    _check_input("fftn", x)
    _check_norm("fftn", norm)
    axes, sizes = _axes_and_sizes("fftn", x, s, axes)
    return _c2c_axes('fftn', x, axes, sizes, False, norm)


def ifftn(x, /, *, s=None, axes=None, norm="backward"):
    """Inverse of ``fftn`` (array API ``fft.ifftn``); as ``fftn`` with backward
    transforms."""
    _check_input("ifftn", x)
    _check_norm("ifftn", norm)
    axes, sizes = _axes_and_sizes("ifftn", x, s, axes)
    return _c2c_axes('ifftn', x, axes, sizes, True, norm)


def rfftn(x, /, *, s=None, axes=None, norm="backward"):
    """N-dimensional transform of real input (array API ``fft.rfftn``):
    aclfftExecR2C along the last of ``axes``, then aclfftExecC2C along the
    others. Errors as ``rfft`` and ``fftn``."""
    _check_input("rfftn", x, real=True)
    _check_norm("rfftn", norm)
    axes, sizes = _axes_and_sizes("rfftn", x, s, axes)
    if not axes:
        return _ops.cast(x, _complex_of(x._dtype))
    x = _r2c('rfftn', x, axes[-1], sizes[-1], norm)
    for a, n in zip(axes[:-1], sizes[:-1]):
        x = _c2c('rfftn', x, a, n, False, norm)
    return x


def irfftn(x, /, *, s=None, axes=None, norm="backward"):
    """Inverse of ``rfftn`` (array API ``fft.irfftn``): aclfftExecC2C backward
    along all but the last of ``axes``, then aclfftExecC2R along it (default
    length ``2 * (m - 1)``). Errors as ``irfft`` and ``fftn``."""
    _check_input("irfftn", x)
    _check_norm("irfftn", norm)
    axes, sizes = _axes_and_sizes("irfftn", x, s, axes, last_default=lambda m: 2 * (m - 1))
    if not axes:
        raise ValueError("fft.irfftn() needs at least one axis")
    for a, n in zip(axes[:-1], sizes[:-1]):
        x = _c2c('irfftn', x, a, n, True, norm)
    return _c2r('irfftn', x, axes[-1], sizes[-1], norm)
