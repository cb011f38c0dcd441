"""Array creation routines (NumPy's chapter): from shapes and values (``empty``,
``zeros``, ``full``, ``eye``, ``identity``), from existing data (``asarray``, ``array``,
``copy``, ``ascontiguousarray``, ``from_dlpack``), numerical ranges (``arange``,
``linspace``, ``logspace``, ``meshgrid``, ``indices``) and matrices (``diag``, ``tri``,
``tril``, ``triu``). Fills run as aclnnInplaceFillScalar / aclnnArange, copies as
aclnnInplaceCopy, uploads as aclrtMemcpy(Async), on the current stream of the target
device.
"""
import operator

import numpy as np

from ._core import _creation, _manipulation, _transfer
from ._core import _elementwise as ew
from ._core._creation import (arange, empty, empty_like, eye, full, full_like, linspace, meshgrid,
                              ones, ones_like, tril, triu, zeros, zeros_like)
from ._core._transfer import asarray, from_dlpack
from ._indexing import diagonal
from ._operands import as_device, is_array

__all__ = ["arange", "empty", "empty_like", "eye", "full", "full_like", "linspace",
           "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like", "asarray",
           "from_dlpack", "array", "asanyarray", "ascontiguousarray", "copy", "logspace",
           "indices", "identity", "tri", "diag"]


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
