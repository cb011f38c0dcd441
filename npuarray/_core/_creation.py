"""Array creation (array API "Creation Functions").

Memory comes from the device's pool for the current stream; every value is
written on the device (aclnnInplaceFillScalar, aclnnArange, aclnnInplaceCopy),
never computed on the host. ``asarray`` (host data and other arrays) lives in
``npuarray._core._transfer``.
"""
import math
import numbers

import numpy as np

from . import _array_type, _elementwise, _ops
from .. import runtime
from ._data_type import (BOOL, check_scalar_fits, default_complex, default_float, default_int,
                      is_floating, normalize_dtype)
from ._manipulation import broadcast_to, copy_array, operator_index
from ..runtime._device import as_device_id

__all__ = ["empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
           "full_like", "arange", "eye", "linspace", "meshgrid", "tril", "triu"]


def _shape(shape):
    if isinstance(shape, (tuple, list)):
        shape = tuple(operator_index(n) for n in shape)
    else:
        shape = (operator_index(shape),)
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def _device(device):
    return runtime.Device(as_device_id(device))


def _new(shape, dtype, device):
    device = _device(device)
    return _ops.empty(_shape(shape), dtype, device, runtime.get_current_stream(device))


def empty(shape, *, dtype=None, device=None):
    """Uninitialised array of ``shape`` (int or tuple) and ``dtype`` (default
    float64) on ``device`` (default: current), memory from the pool for the
    current stream. ValueError for negative sizes, TypeError for unsupported
    dtypes. Mirrors ``numpy.empty`` / array API ``empty``."""
    dtype = default_float if dtype is None else normalize_dtype(dtype)
    return _new(shape, dtype, device)


def _scalar_dtype(value):
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, np.generic):
        return normalize_dtype(value.dtype)
    if isinstance(value, numbers.Integral):
        return default_int
    if isinstance(value, numbers.Real):
        return default_float
    if isinstance(value, numbers.Complex):
        return default_complex
    raise TypeError(f"fill value must be a number, got {type(value).__name__}")


def _fill(x, value):
    """Write the scalar (or 0-d NPUArray) ``value`` into every element of ``x``."""
    if x.size == 0:
        return x
    if isinstance(value, _array_type.NPUArray):
        if value.ndim:
            raise ValueError(f"fill value must be a scalar or a 0-d array, got shape "
                             f"{value.shape}")
        _ops.copy_(x, value)
        return x
    check_scalar_fits(value, x.dtype)
    np.array(value, dtype=x.dtype)  # ValueError/TypeError where NumPy refuses (NaN to int)
    _ops.fill_(x, value)
    return x


def full(shape, fill_value, *, dtype=None, device=None):
    """Array of ``shape`` with every element ``fill_value`` (aclnnInplaceFillScalar
    on the current stream). ``dtype`` defaults to the value's: bool, int64,
    float64, complex128 (NumPy scalars and 0-d arrays keep theirs).
    OverflowError when an int does not fit ``dtype``."""
    if dtype is None:
        dtype = fill_value.dtype if isinstance(fill_value, _array_type.NPUArray) else \
            _scalar_dtype(fill_value)
    else:
        dtype = normalize_dtype(dtype)
    return _fill(_new(shape, dtype, device), fill_value)


def zeros(shape, *, dtype=None, device=None):
    """Array of zeros of ``shape`` (default float64) on ``device``
    (aclnnInplaceFillScalar on the current stream; ``numpy.zeros``)."""
    return full(shape, 0, dtype=default_float if dtype is None else dtype, device=device)


def ones(shape, *, dtype=None, device=None):
    """Array of ones of ``shape`` (default float64) on ``device``
    (aclnnInplaceFillScalar on the current stream; ``numpy.ones``)."""
    return full(shape, 1, dtype=default_float if dtype is None else dtype, device=device)


def _like(x, dtype, device):
    if not isinstance(x, _array_type.NPUArray):
        raise TypeError(f"expected an NPUArray, got {type(x).__name__}")
    return (x.dtype if dtype is None else normalize_dtype(dtype),
            x.device if device is None else device)


def empty_like(x, /, *, dtype=None, device=None):
    """Uninitialised C-order array of ``x``'s shape, with ``x``'s dtype and
    device unless given (memory from the pool for the current stream).
    TypeError when ``x`` is not an NPUArray or the dtype is unsupported."""
    dtype, device = _like(x, dtype, device)
    return _new(x.shape, dtype, device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    """``full(x.shape, fill_value)`` with ``x``'s dtype and device unless
    given (aclnnInplaceFillScalar on the current stream)."""
    dtype, device = _like(x, dtype, device)
    return _fill(_new(x.shape, dtype, device), fill_value)


def zeros_like(x, /, *, dtype=None, device=None):
    """Zeros of ``x``'s shape, dtype and device unless given
    (aclnnInplaceFillScalar on the current stream)."""
    return full_like(x, 0, dtype=dtype, device=device)


def ones_like(x, /, *, dtype=None, device=None):
    """Ones of ``x``'s shape, dtype and device unless given
    (aclnnInplaceFillScalar on the current stream)."""
    return full_like(x, 1, dtype=dtype, device=device)


def _arange_length(start, stop, step, exact):
    """The length of ``arange(start, stop, step)`` as aclnnArange computes it (it
    checks its output against that): exactly for int64 scalars (``exact``), else
    ``ceil((stop - start) / step)`` in double precision, as NumPy does."""
    if exact:
        return max(0, -(-(stop - start) // step))
    return max(0, math.ceil((float(stop) - float(start)) / float(step)))


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values ``start + i * step`` in [start, stop) (aclnnArange on
    the current stream; array API / ``numpy.arange``). One argument is ``stop``.
    ``dtype`` defaults to int64 for integer arguments, else float64. ValueError
    for ``step == 0``; TypeError for complex or non-numeric arguments."""
    if stop is None:
        start, stop = 0, start
    for value in (start, stop, step):
        if not isinstance(value, numbers.Real):
            raise TypeError(f"arange needs real numbers, got {value!r}")
    if step == 0:
        raise ValueError("arange step must not be zero")
    integral = all(isinstance(v, numbers.Integral) for v in (start, stop, step))
    if dtype is None:
        dtype = default_int if integral else default_float
    else:
        dtype = normalize_dtype(dtype)
    exact = integral and dtype.kind in "biu"  # aclnnArange then runs on int64 scalars
    out = _new(_arange_length(start, stop, step, exact), dtype, device)
    if not out.size:
        return out
    if dtype.kind in "iu" and not integral:
        # NumPy's rule for integer dtypes: the step is the difference of the
        # first two values after conversion (arange(0.5, 5, 1.5, int) is 0, 2, 4).
        first, second = int(start), int(start + step)
        start, step = first, second - first
        if step == 0:
            _ops.fill_(out, first)
            return out
        stop = first + out.size * step
    working = _ARANGE_WORKING_DTYPE.get(dtype)
    if working is None:
        _ops.arange_(out, start, stop, step)
    else:
        values = _new(out.size, working, device)
        _ops.arange_(values, start, stop, step)
        _ops.copy_(out, values)
    return out


# aclnnArange lacks these dtypes (docs/acl-abi.md §7.2): the values are made in a wider
# dtype it has, then cast by aclnnInplaceCopy.
_ARANGE_WORKING_DTYPE = {np.dtype(t): np.dtype(w) for t, w in (
    (np.uint16, np.int64), (np.uint32, np.int64), (np.uint64, np.int64),
    (np.complex64, np.float64), (np.complex128, np.float64))}


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """2-D array with ones on diagonal ``k`` and zeros elsewhere (array API
    ``eye``): zeros, then the diagonal, a strided view, filled with ones
    (aclnnInplaceFillScalar twice)."""
    n_cols = n_rows if n_cols is None else n_cols
    out = zeros((n_rows, n_cols), dtype=dtype, device=device)
    k = operator_index(k)
    length = max(0, min(n_rows + min(k, 0), n_cols - max(k, 0)))
    if length:
        offset = k if k >= 0 else -k * n_cols
        _ops.fill_(out._view((length,), (n_cols + 1,), offset), 1)
    return out


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """``num`` evenly spaced floats from ``start`` to ``stop`` (array API
    ``linspace``): ``start + i * step`` by aclnnArange, the last element set to
    ``stop`` exactly when ``endpoint``. ``dtype`` defaults to float64 and must
    be real floating (TypeError otherwise); ValueError for negative ``num``."""
    num = operator_index(num)
    if num < 0:
        raise ValueError(f"linspace needs num >= 0, got {num}")
    dtype = default_float if dtype is None else normalize_dtype(dtype)
    if not is_floating(dtype):
        raise TypeError(f"linspace supports real floating dtypes, got {dtype}")
    out = _new(num, dtype, device)
    divisions = num - 1 if endpoint else num
    step = (stop - start) / divisions if divisions > 0 else 0.0
    if num and step:
        _ops.arange_(out, start, start + (num - 0.5) * step, step)
    elif num:
        _ops.fill_(out, start)
    if endpoint and num > 1:
        _ops.fill_(out[num - 1:], stop)
    return out


def meshgrid(*arrays, indexing="xy"):
    """Coordinate matrices from 1-D arrays, as a tuple (array API ``meshgrid``,
    ``numpy.meshgrid``): each output is a C-contiguous device copy
    (aclnnInplaceCopy on the current stream) of a broadcast view. ``"xy"``
    indexing swaps the first two output axes; each output keeps its input's
    dtype (as NumPy). ValueError for non-1-D inputs or an unknown ``indexing``."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing must be 'xy' or 'ij', got {indexing!r}")
    for a in arrays:
        if not isinstance(a, _array_type.NPUArray) or a.ndim != 1:
            raise ValueError("meshgrid needs 1-D NPUArrays")
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for i, a in enumerate(arrays):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(arrays) > 1 else i
        view_shape = [1] * len(arrays)
        view_shape[axis] = a.shape[0]
        grids.append(copy_array(broadcast_to(a.reshape(view_shape), tuple(shape))))
    return tuple(grids)


def _triangle(x, k, keep_lower):
    if not isinstance(x, _array_type.NPUArray) or x.ndim < 2:
        raise ValueError("tril/triu need an NPUArray of at least 2 dimensions")
    k = operator_index(k)
    n, m = x.shape[-2:]
    rows = arange(n, device=x.device).reshape((n, 1))
    cols = arange(m, device=x.device).reshape((1, m))
    offset = _elementwise.subtract(cols, rows)
    keep = (_elementwise.less_equal if keep_lower else _elementwise.greater_equal)(offset, k)
    zero = False if x.dtype == BOOL else 0
    return _elementwise.where(keep, x, zero)


def tril(x, /, *, k=0):
    """Lower triangle of the last two axes of ``x``: elements with column -
    row <= ``k`` kept, the others zero (array API ``tril``; aclnnArange,
    aclnnSub, aclnnLeScalar, aclnnSWhere on the device)."""
    return _triangle(x, k, keep_lower=True)


def triu(x, /, *, k=0):
    """Upper triangle of the last two axes of ``x``: elements with column -
    row >= ``k`` kept, the others zero (array API ``triu``)."""
    return _triangle(x, k, keep_lower=False)
