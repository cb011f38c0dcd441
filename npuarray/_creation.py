"""Array creation routines (NumPy's chapter): from shapes and values (``empty``,
``zeros``, ``full``, ``eye``, ``identity``), from existing data (``asarray``, ``array``,
``copy``, ``ascontiguousarray``, ``from_dlpack``), numerical ranges (``arange``,
``linspace``, ``logspace``, ``meshgrid``, ``indices``) and matrices (``diag``, ``tri``,
``tril``, ``triu``). Fills run as aclnnInplaceFillScalar / aclnnArange, copies as
aclnnInplaceCopy, uploads as aclrtMemcpy(Async), on the current stream of the target
device.
"""
import math
import operator

import numpy as np

from ._core import _creation, _manipulation, _searching, _statistical, _transfer
from ._core import _elementwise as ew
from ._core._creation import (arange, empty, empty_like, eye, full, full_like, linspace, meshgrid,
                              ones, ones_like, tril, triu, zeros, zeros_like)
from ._core._transfer import asarray, from_dlpack
from ._indexing import diagonal
from ._operands import as_device, is_array

__all__ = ["arange", "empty", "empty_like", "eye", "full", "full_like", "linspace",
           "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like", "asarray",
           "from_dlpack", "array", "asanyarray", "ascontiguousarray", "copy", "logspace",
           "indices", "identity", "tri", "diag", "mgrid", "ogrid", "vander", "diagflat",
           "fromfunction", "geomspace", "asarray_chkfinite", "asfortranarray", "fromiter"]


def array(object, dtype=None, *, copy=True, order="K", ndmin=0, device=None):  # noqa: A002
    """A new device array of ``object`` (``numpy.array``): an NPUArray is copied
    on its device (unless ``copy=False`` / ``None`` allow sharing), host data
    (NumPy arrays, sequences, scalars) is uploaded (an explicit transfer).
    ``ndmin`` prepends length-1 axes. ValueError for ``copy=False`` when a
    copy is needed."""
    result = _transfer.asarray(object, dtype=dtype, device=device,
                               copy=True if copy else (None if copy is None else False))
    if result.ndim < ndmin:
        result = _manipulation.reshape(result, (1,) * (ndmin - result.ndim) + result.shape)
    return result


def asanyarray(a, dtype=None, order=None, *, device=None):
    """``npuarray.asarray`` (``numpy.asanyarray``; NPUArray has no subclasses)."""
    return _transfer.asarray(a, dtype=dtype, device=device)


def ascontiguousarray(a, dtype=None):
    """``a`` itself when it is C-contiguous with ``dtype``, else a C-contiguous
    copy (``numpy.ascontiguousarray``; aclnnInplaceCopy / aclnnCast). 0-d
    inputs become 1-D, as in NumPy."""
    a = as_device(a, "ascontiguousarray")
    if a.ndim == 0:
        a = _manipulation.reshape(a, (1,))
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    if dtype == a.dtype and a.is_c_contiguous():
        return a
    if dtype != a.dtype:
        return _manipulation.astype(a, dtype)
    return _manipulation.copy_array(a)


def copy(a, order="K", subok=False):
    """A C-contiguous copy of ``a`` on its device (``numpy.copy``; aclnnInplaceCopy)."""
    if not is_array(a):
        return _transfer.asarray(a, copy=True)
    return _manipulation.copy_array(a)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, *,
             device=None):
    """``base ** linspace(start, stop, num)`` (``numpy.logspace``; aclnnArange,
    aclnnPowScalarTensor), cast to ``dtype``. Scalar ``start`` / ``stop``
    only (TypeError otherwise); ValueError for negative ``num``."""
    if not all(isinstance(v, (int, float, np.integer, np.floating)) for v in (start, stop)):
        raise TypeError("logspace: start and stop must be real scalars in npuarray")
    if axis not in (0, -1):
        raise ValueError("logspace: the result is 1-D; axis must be 0")
    exponents = _creation.linspace(float(start), float(stop), num, endpoint=endpoint,
                                   device=device)
    result = ew.pow(float(base), exponents)
    return result if dtype is None else _manipulation.astype(result, dtype)


def indices(dimensions, dtype=int, sparse=False, *, device=None):
    """Index grids of a grid of shape ``dimensions`` (``numpy.indices``): one
    array per axis, each broadcast from an aclnnArange; stacked into shape
    ``(len(dimensions), *dimensions)``, or a tuple of broadcastable arrays with
    ``sparse``."""
    dimensions = tuple(operator.index(n) for n in dimensions)
    dtype = np.dtype(dtype)
    grids = []
    for axis, n in enumerate(dimensions):
        shape = [1] * len(dimensions)
        shape[axis] = n
        grids.append(_manipulation.reshape(
            _creation.arange(n, dtype=dtype, device=device), tuple(shape)))
    if sparse:
        return tuple(grids)
    if not grids:
        return _creation.empty((0,), dtype=dtype, device=device)
    return _manipulation.stack([_manipulation.broadcast_to(g, dimensions) for g in grids])


def identity(n, dtype=None, *, device=None):
    """The ``n`` x ``n`` identity matrix (``numpy.identity``; ``npuarray.eye``)."""
    return _creation.eye(operator.index(n), dtype=dtype, device=device)


def tri(N, M=None, k=0, dtype=float, *, device=None):
    """Ones at and below the ``k``-th diagonal, zeros above (``numpy.tri``)."""
    M = N if M is None else M
    return _creation.tril(_creation.ones((operator.index(N), operator.index(M)),
                                         dtype=dtype, device=device), k=k)


def diag(v, k=0):
    """The ``k``-th diagonal of a 2-D ``v`` (a view), or a 2-D array with the 1-D
    ``v`` on its ``k``-th diagonal (``numpy.diag``). ValueError otherwise."""
    v = as_device(v, "diag")
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        out = _creation.zeros((n, n), dtype=v.dtype, device=v.device)
        diagonal(out, k)[...] = v
        return out
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError("Input must be 1- or 2-d.")


def _is_complex_step(step):
    return isinstance(step, (complex, np.complexfloating))


class MGridClass:
    """``mgrid[...]`` (dense) / ``ogrid[...]`` (open) mesh grids from slices
    (``numpy.mgrid`` / ``numpy.ogrid``): ``start:stop:step`` as ``arange``, a
    complex step ``n*1j`` as ``n`` points from start to stop inclusive; dtype
    ``result_type`` of the slices' numbers (NumPy's). Each axis is an
    aclnnArange scaled and shifted (aclnnMuls, aclnnAdds) on the current stream;
    the dense grid stacks their broadcasts."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self._one(key)
        sizes, numbers = [], [0]
        for k in key:
            start = 0 if k.start is None else k.start
            step = 1 if k.step is None else k.step
            if _is_complex_step(step):
                step = abs(step)
                sizes.append(int(step))
            else:
                sizes.append(int(math.ceil((k.stop - start) / step)))
            numbers += [start, k.stop, step]
        dtype = np.result_type(*numbers)
        grids = []
        for axis, (k, n) in enumerate(zip(key, sizes)):
            shape = [1] * len(key)
            shape[axis] = n
            grids.append(_manipulation.reshape(self._axis(k, n, dtype), tuple(shape)))
        if self.sparse:
            return tuple(grids)
        full_shape = tuple(sizes)
        return _manipulation.stack([_manipulation.broadcast_to(g, full_shape) for g in grids])

    @staticmethod
    def _axis(k, n, dtype):
        start = 0 if k.start is None else k.start
        step = 1 if k.step is None else k.step
        if _is_complex_step(step):
            step = int(abs(step))
            if step != 1:
                step = (k.stop - start) / float(step - 1)
        points = _creation.arange(max(n, 0), dtype=dtype)
        return ew.add(ew.multiply(points, step), start)

    @staticmethod
    def _one(key):
        start = 0 if key.start is None else key.start
        step = key.step
        if _is_complex_step(step):
            length = int(abs(step))
            scale = (key.stop - start) / float(length - 1) if length != 1 else length
            dtype = np.result_type(start, key.stop, abs(step))
            return ew.add(ew.multiply(_creation.arange(length, dtype=dtype), scale), start)
        return _creation.arange(start, key.stop, 1 if step is None else step)

    def __len__(self):
        return 0


mgrid = MGridClass(sparse=False)
ogrid = MGridClass(sparse=True)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: columns ``x**(N-1)`` down to ``x**0``
    (reversed with ``increasing``), ``N`` = ``len(x)`` by default
    (``numpy.vander``): a running product along the columns (aclnnCumprod) of
    ``x`` broadcast, on the current stream. Dtype ``promote_types(x.dtype, int)``
    as NumPy's; ValueError when ``x`` is not 1-D or ``N`` is negative."""
    x = _operand(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError("negative dimensions are not allowed")
    dtype = np.promote_types(x.dtype, np.int64)
    columns = _creation.ones((x.shape[0], n), dtype=dtype, device=x.device)
    if n > 1:
        powers = _manipulation.broadcast_to(
            _manipulation.reshape(_manipulation.astype(x, dtype), (-1, 1)), (x.shape[0], n - 1))
        columns[:, 1:] = _statistical.cumulative_prod(powers, axis=1)
    return columns if increasing else _manipulation.flip(columns, axis=1)


def diagflat(v, k=0):
    """A 2-D array with the flattened ``v`` on its ``k``-th diagonal
    (``numpy.diagflat``; ``diag`` of ``v.ravel()``: aclnnInplaceFillScalar and
    aclnnInplaceCopy on the current stream)."""
    return diag(_manipulation.reshape(_operand(v), (-1,)), k)


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``function(*indices(shape, dtype), **kwargs)`` (``numpy.fromfunction``):
    ``function`` is called once with one device index grid per axis
    (aclnnArange), so it must accept NPUArrays; its result is returned as is."""
    if like is not None:
        raise TypeError("fromfunction: like= is not supported by npuarray")
    return function(*indices(shape, dtype=dtype), **kwargs)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0, *, device=None):
    """``num`` numbers spaced evenly on a log scale from ``start`` to ``stop``
    (``numpy.geomspace``): ``logspace`` of the magnitudes' log10 (aclnnArange,
    aclnnPowScalarTensor on the current stream) with the sign of ``start``
    applied and the endpoints set exactly, as NumPy does. Real scalar ``start``
    and ``stop`` (TypeError otherwise); ValueError when either is zero or their
    signs differ (NumPy gives complex there). Computed in NumPy's working dtype
    (float64 unless ``start``/``stop`` are wider), then cast to ``dtype``."""
    if not all(isinstance(v, (int, float, np.integer, np.floating)) for v in (start, stop)):
        raise TypeError("geomspace: start and stop must be real scalars in npuarray")
    if start == 0 or stop == 0:
        raise ValueError("Geometric sequence cannot include zero")
    if (start < 0) != (stop < 0):
        raise ValueError("geomspace: start and stop of opposite signs give complex numbers, "
                         "which npuarray's geomspace does not produce")
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    work = np.result_type(np.asarray(start) * 1.0, np.asarray(stop) * 1.0, float(num),
                          np.zeros((), dtype))
    sign = -1.0 if start < 0 else 1.0
    result = _manipulation.astype(logspace(math.log10(abs(start)), math.log10(abs(stop)), num,
                                           endpoint=endpoint, device=device), work)
    if num > 0:
        result[0] = abs(start)
        if num > 1 and endpoint:
            result[-1] = abs(stop)
    if sign < 0:
        result = ew.negative(result)
    if axis not in (0, -1):
        raise np.exceptions.AxisError(axis, 1)
    return result if dtype is None else _manipulation.astype(result, dtype)


def asarray_chkfinite(a, dtype=None, order=None):
    """``asarray(a, dtype)`` that raises ValueError when a floating or complex
    result holds an infinity or NaN (``numpy.asarray_chkfinite``): aclnnIsFinite
    and a count on the current stream, one read. Host data is uploaded."""
    result = _operand(a) if dtype is None else _manipulation.astype(_operand(a), dtype,
                                                                    copy=False)
    if result.dtype.kind in "fc" and result.size:
        if _searching.count_nonzero(ew.logical_not(ew.isfinite(result))).item():
            raise ValueError("array must not contain infs or NaNs")
    return result


def asfortranarray(a, dtype=None, *, like=None):
    """``a`` laid out in Fortran (column-major) order, copied only when it is not
    already (``numpy.asfortranarray``; aclnnInplaceCopy of the transpose on the
    current stream). Arrays of fewer than 2 dimensions are C-contiguous too; a
    0-d ``a`` becomes 1-D, as in NumPy."""
    if like is not None:
        raise TypeError("asfortranarray: like= is not supported by npuarray")
    a = _operand(a)
    if dtype is not None:
        a = _manipulation.astype(a, dtype, copy=False)
    if a.ndim == 0:
        a = _manipulation.reshape(a, (1,))
    reverse = tuple(range(a.ndim))[::-1]
    transposed = _manipulation.permute_dims(a, reverse)
    if transposed.is_c_contiguous():
        return a
    return _manipulation.permute_dims(_manipulation.copy_array(transposed), reverse)


def fromiter(iter, dtype, count=-1, *, like=None):  # noqa: A002  NumPy's name
    """A 1-D device array of an iterable's values (``numpy.fromiter``).

    The values are read on the host by NumPy, then uploaded (aclrtMemcpy, an
    explicit transfer).
    ValueError when ``count`` is more than ``iter`` yields."""
    if like is not None:
        raise TypeError("fromiter: like= is not supported by npuarray")
    return _transfer.asarray(np.fromiter(iter, dtype=dtype, count=count))


def _operand(x):
    """An NPUArray as it is; host data uploaded with NumPy's dtype for it (an
    explicit transfer, as NumPy's creation routines take array-likes)."""
    if is_array(x):
        return x
    return _transfer.asarray(np.asarray(x))
