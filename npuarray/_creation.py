"""Array creation routines (NumPy's chapter): from shapes and values (``empty``,
``zeros``, ``full``, ``eye``, ``identity``), from existing data (``asarray``, ``array``,
``copy``, ``ascontiguousarray``, ``from_dlpack``), numerical ranges (``arange``,
``linspace``, ``logspace``, ``meshgrid``, ``indices``) and matrices (``diag``, ``tri``,
``tril``, ``triu``). Fills run as aclnnInplaceFillScalar / aclnnArange, copies as
aclnnInplaceCopy, uploads as aclrtMemcpy(Async), on the current stream of the target
device.
"""
import builtins
import math
import operator

import numpy as np

from ._core import _creation, _manipulation, _searching, _statistical, _transfer, _utility
from ._core import _elementwise as ew
from ._core._creation import arange, eye
from ._core._transfer import from_dlpack
from ._indexing import diagonal
from ._operands import as_device, is_array
from ._core._data_type import normalize_dtype
from ._core._array import NPUArray
from ._operands import fortran_copy, is_c_ordered, is_fortran

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
    """``base ** linspace(start, stop, num, axis=axis)`` (``numpy.logspace``):
    :func:`linspace` (aclnnLinspace, or its composition for array or complex ends)
    then aclnnPow on the current stream, cast to ``dtype``. ``start``, ``stop``
    and ``base`` may be arrays (broadcast; an array ``base`` gets a length-1 axis
    at ``axis``, as NumPy's). ValueError for a negative ``num``."""
    if not isinstance(base, (builtins.int, builtins.float)) and np.ndim(
            base.to_host() if is_array(base) else base):
        start, stop, base = (as_device(v, "logspace") for v in (start, stop, base))
        ndim = max(v.ndim for v in (start, stop, base))
        start, stop, base = (_manipulation.reshape(v, (1,) * (ndim - v.ndim) + v.shape)
                             for v in (start, stop, base))
        base = _manipulation.expand_dims(base, axis=axis)
    exponents = linspace(start, stop, num, endpoint=endpoint, axis=axis, device=device)
    result = ew.pow(base, exponents)
    return result if dtype is None else _manipulation.astype(result, dtype, copy=False)


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
    (``numpy.geomspace``), NumPy's algorithm on the device (current stream):
    ``start`` is rotated onto the positive real axis by ``sign(start)``
    (aclnnSign, aclnnDiv), :func:`logspace` runs between the log10 of the
    rotated ends (aclnnLog10), the endpoints are set exactly, and the result is
    rotated back. Scalar or array ends (broadcast, one sequence per element along
    ``axis``), real or complex; ends of opposite signs give NaN inside, as
    NumPy's (complex ends give the complex path). Computed in float64 (complex128
    for complex ends) as NumPy does, then cast to ``dtype``. ValueError when an end
    is zero or ``num`` is negative."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start, stop = (as_device(v, "geomspace") for v in (start, stop))
    work = np.result_type(start.dtype, stop.dtype, float(num), np.zeros((), dtype))
    start = _manipulation.astype(start, work)
    stop = _manipulation.astype(stop, work)
    if _utility.any(ew.logical_or(_utility.any(ew.equal(start, 0)),
                                  _utility.any(ew.equal(stop, 0)))).item():
        raise ValueError("Geometric sequence cannot include zero")
    sign = ew.sign(start)
    start = ew.divide(start, sign)
    stop = ew.divide(stop, sign)
    result = logspace(ew.log10(start), ew.log10(stop), num, endpoint=endpoint, base=10.0,
                      dtype=work, device=device)
    if num > 0:
        shape = result.shape[1:]
        result[0] = _manipulation.broadcast_to(start, shape)
        if num > 1 and endpoint:
            result[-1] = _manipulation.broadcast_to(stop, shape)
    result = ew.multiply(result, sign)
    if axis != 0:
        result = _manipulation.moveaxis(result, 0, axis)
    return result if dtype is None else _manipulation.astype(result, dtype, copy=False)


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


# -- NumPy's signature and the standard's, in one function (NumPy 2's): the call without
# NumPy's extra keywords is the array API function's own ------------------------------

def _layout(x, order, source=None):
    """``x`` (C-contiguous or a view) in ``order``: 'C' a C-contiguous array, 'F'
    Fortran order, 'A' Fortran when ``source`` is Fortran-contiguous, 'K' as ``source``
    is (C otherwise); ``None`` keeps ``x``."""
    if order is None or x.ndim < 2:
        if order not in (None, "C", "F", "A", "K"):
            raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
        return x
    source = x if source is None else source
    if order in ("A", "K"):
        fortran = is_fortran(source) and not is_c_ordered(source)
        order = "F" if fortran else ("C" if order == "A" or source is not x else None)
        if order is None:
            return x
    if order == "F":
        return x if is_fortran(x) else fortran_copy(x)
    if order == "C":
        return x if is_c_ordered(x) else _manipulation.copy_array(x)
    raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


def _new(make, shape, dtype, order, device, *args):
    """``make(shape, *args)`` in ``order``: Fortran order allocates the reversed shape
    and views it transposed (no copy)."""
    shape = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else \
        tuple(operator.index(n) for n in shape)
    dtype = np.float64 if dtype is None and not args else dtype
    if order == "F" and len(shape) > 1:
        created = make(shape[::-1], *args, dtype=dtype, device=device)
        return _manipulation.permute_dims(created, tuple(range(len(shape) - 1, -1, -1)))
    if order not in ("C", "F", None):
        raise ValueError(f"only 'C' or 'F' order is permitted (got {order!r})")
    return make(shape, *args, dtype=dtype, device=device)


def empty(shape, dtype=None, order="C", *, device=None, like=None):
    """A new uninitialised array (``numpy.empty``, array API ``empty``): memory from
    the pool on the current stream; ``dtype`` (float64 default, positional as NumPy
    takes it), ``order`` 'C' or 'F'."""
    return _new(_creation.empty, shape, dtype, order, device)


def zeros(shape, dtype=None, order="C", *, device=None, like=None):
    """A new array of zeros (``numpy.zeros``, array API ``zeros``):
    aclnnInplaceZero; ``dtype`` and ``order`` as ``empty``'s."""
    return _new(_creation.zeros, shape, dtype, order, device)


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    """A new array of ones (``numpy.ones``, array API ``ones``): aclnnInplaceFillScalar."""
    return _new(_creation.ones, shape, dtype, order, device)


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """A new array filled with ``fill_value`` (``numpy.full``, array API ``full``):
    aclnnInplaceFillScalar; the dtype from ``fill_value`` when not given (NumPy's)."""
    if isinstance(fill_value, (NPUArray, np.ndarray, list, tuple)):
        fill = as_device(fill_value, "full")
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        result = _manipulation.astype(_manipulation.broadcast_to(fill, shape),
                                      fill.dtype if dtype is None else dtype, copy=True)
        return _layout(result, order)
    if dtype is None:
        dtype = np.asarray(fill_value).dtype if isinstance(fill_value, np.generic) else \
            _transfer.asarray(fill_value).dtype
    return _new(_creation.full, shape, dtype, order, device, fill_value)


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``a`` as an NPUArray (``numpy.asarray``, array API ``asarray``): host data
    uploaded (an explicit transfer); ``order`` 'C' / 'F' gives that layout (a
    device copy when ``a`` has another one), 'A' / 'K' keep the array's."""
    result = _transfer.asarray(a, dtype=dtype, device=device, copy=copy)
    if order in (None, "K", "A"):
        return _layout(result, order if isinstance(a, NPUArray) else None, result)
    laid_out = _layout(result, order)
    if copy is False and laid_out is not result:
        raise ValueError(f"asarray(copy=False): the array is not in order {order!r}")
    return laid_out


def _like(make, a, dtype, order, shape, device, *args):
    a = as_device(a, make.__name__)
    dtype = a.dtype if dtype is None else dtype
    device = a.device if device is None else device
    target_shape = a.shape if shape is None else \
        ((shape,) if isinstance(shape, int) else tuple(shape))
    if order in ("K", "A"):
        fortran = is_fortran(a) and not is_c_ordered(a) \
            and len(target_shape) == a.ndim
        order = "F" if fortran else "C"
    return _new(make, target_shape, dtype, order, device, *args)


def empty_like(a, /, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """A new uninitialised array like ``a`` (``numpy.empty_like``, array API
    ``empty_like``); ``order`` 'K' / 'A' follow ``a``'s layout, ``shape`` overrides."""
    return _like(_creation.empty, a, dtype, order, shape, device)


def zeros_like(a, /, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Zeros like ``a`` (``numpy.zeros_like``, array API ``zeros_like``)."""
    return _like(_creation.zeros, a, dtype, order, shape, device)


def ones_like(a, /, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Ones like ``a`` (``numpy.ones_like``, array API ``ones_like``)."""
    return _like(_creation.ones, a, dtype, order, shape, device)


def full_like(a, /, fill_value, dtype=None, order="K", subok=True, shape=None, *,
              device=None):
    """``fill_value`` like ``a`` (``numpy.full_like``, array API ``full_like``)."""
    return _like(_creation.full, a, dtype, order, shape, device, fill_value)


def linspace(start, stop, /, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (``numpy.linspace``,
    array API ``linspace``): aclnnLinspace for scalar ends; array ends (broadcast)
    give one sequence per element along ``axis``, computed on the device as NumPy
    does (``start + i * step``, the last value ``stop`` when ``endpoint``).
    ``retstep`` also returns the step. ValueError for a negative ``num``."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = num - 1 if endpoint else num
    # aclnnLinspace's path takes real ends and a floating dtype; complex ends, array ends and
    # integer dtypes take the composed one.
    real_scalars = all(isinstance(v, (builtins.int, builtins.float, np.integer, np.floating))
                       for v in (start, stop))
    if real_scalars and (dtype is None or normalize_dtype(dtype).kind == "f"):
        if dtype is None and (isinstance(start, np.generic) or isinstance(stop, np.generic)):
            dtype = np.result_type(start, stop, 1.0)  # NumPy scalars are strong (NEP 50)
        result = _creation.linspace(start, stop, num, dtype=dtype, device=device,
                                    endpoint=endpoint)
        step = (stop - start) / div if div > 0 else np.nan
        return (result, np.float64(step) if not isinstance(step, complex) else step) \
            if retstep else result
    # Python scalars stay weak (NEP 50): float32 ends give float32 values.
    compute = np.result_type(*(v if isinstance(v, (builtins.int, builtins.float, complex))
                               else as_device(v, "linspace").dtype for v in (start, stop)), 1.0)
    start, stop = as_device(start, "linspace"), as_device(stop, "linspace")
    start = _manipulation.astype(start, compute, copy=False)
    stop = _manipulation.astype(stop, compute, copy=False)
    delta = ew.subtract(stop, start)
    shape = _manipulation.broadcast_shapes(start.shape, stop.shape)
    steps = _manipulation.reshape(_creation.arange(num, dtype=compute, device=start.device),
                                  (num,) + (1,) * len(shape))
    step = ew.divide(delta, div) if div > 0 else ew.multiply(delta, np.nan)
    result = ew.add(ew.multiply(steps, step) if div > 0 else ew.multiply(steps, delta), start)
    if endpoint and num > 1:
        result[-1] = _manipulation.broadcast_to(stop, shape)
    result = _manipulation.moveaxis(result, 0, axis)
    if dtype is not None:
        target = normalize_dtype(dtype)
        result = _manipulation.astype(ew.floor(result) if target.kind in "iu" else result,
                                      target)
    return (result, step) if retstep else result


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-D arrays (``numpy.meshgrid``, array API ``meshgrid``),
    as a tuple: ``sparse`` gives broadcastable views of shape (1, ..., n, ..., 1),
    otherwise broadcast to the full grid and copied on the device unless
    ``copy=False`` (read-only-like broadcast views, as NumPy's). ``"xy"`` swaps the
    first two axes. ValueError for an unknown ``indexing``."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    arrays = [_manipulation.reshape(as_device(x, "meshgrid"), (-1,)) for x in xi]
    ndim = len(arrays)
    shapes = []
    for i, x in enumerate(arrays):
        shape = [1] * ndim
        axis = (1 - i if i < 2 else i) if indexing == "xy" and ndim > 1 else i
        shape[axis] = x.shape[0]
        shapes.append(tuple(shape))
    grids = [_manipulation.reshape(x, s) for x, s in zip(arrays, shapes)]
    if not sparse:
        full_shape = _manipulation.broadcast_shapes(*shapes) if shapes else ()
        grids = [_manipulation.broadcast_to(g, full_shape) for g in grids]
    if copy:
        grids = [_manipulation.copy_array(g) for g in grids]
    return tuple(grids)


def tril(m, /, k=0):
    """Lower triangle of the last two axes, below diagonal ``k`` kept (``numpy.tril``,
    array API ``tril``): aclnnTril; ``k`` positional or keyword."""
    return _creation.tril(as_device(m, "tril"), k=operator.index(k))


def triu(m, /, k=0):
    """Upper triangle of the last two axes (``numpy.triu``, array API ``triu``): aclnnTriu."""
    return _creation.triu(as_device(m, "triu"), k=operator.index(k))
