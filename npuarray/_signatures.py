"""One function for NumPy's signature and the array API standard's, as NumPy 2 has.

``npuarray.std(x, ddof=1)`` and ``npuarray.std(x, correction=1)``,
``npuarray.sum(x, 0, None, out, where=mask, initial=1)`` and
``npuarray.sum(x, axis=0)``, ``npuarray.sort(x, axis=None, kind="stable")`` and
``npuarray.sort(x, descending=True)``, ``npuarray.zeros(3, "float32", order="F")``...:
these functions take NumPy's positional and keyword arguments and the
standard's, and are also what ``numpy.<name>(NPUArray)`` calls
(``__array_function__``). The call without NumPy's extra keywords is the array
API function's own (no extra work); ``out=`` an NPUArray receives the result
(TypeError for another type), ``where=`` / ``initial=`` reduce through the ufunc's
``reduce`` (``npuarray.add.reduce``...), ``order=`` lays results out in C or
Fortran order through strides ('A' and 'K' follow the input), as CuPy does.
Operands may be NPUArrays, Python or NumPy scalars or host arrays (uploaded:
an implicit transfer under ``transfer_guard``).
"""
import builtins
import operator

import numpy as np

from . import _math, _ufunc
from . import _set as _set_names
from ._core import _creation, _indexing, _linear_algebra, _manipulation, _searching
from ._core import _set, _sorting
from ._core import _statistical as st
from ._core import _transfer, _utility
from ._core import _elementwise as ew
from ._core._data_type import BFLOAT16, normalize_dtype
from ._core._array import NPUArray
from ._operands import as_device, axis_argument, float_dtype, into

__all__ = ["sum", "prod", "mean", "std", "var", "max", "min", "amax", "amin", "all", "any",
           "argmax", "argmin", "where", "sort", "argsort", "clip", "round", "around", "real",
           "imag", "linspace", "meshgrid", "asarray", "empty", "zeros", "ones", "full",
           "empty_like", "zeros_like", "ones_like", "full_like", "tile", "take", "reshape",
           "cumulative_sum", "cumulative_prod", "tril", "triu", "isin",
           "unique", "searchsorted", "matmul"]

_NO_VALUE = np._NoValue



def _floating(dtype):
    """Whether ``dtype`` is a floating or complex dtype (bfloat16 included)."""
    return dtype.kind in "fc" or dtype == BFLOAT16


def _float_dtype(dtype):
    return dtype if _floating(dtype) else float_dtype(dtype)


def _given(value):
    return value is not _NO_VALUE


def _keepdims(value):
    return False if value is _NO_VALUE else builtins.bool(value)


# -- reductions --------------------------------------------------------------------------------

def _reduce(ufunc_name, function, a, axis, dtype, out, keepdims, initial, where):
    """``function`` (the array API reduction) for the plain call, else the ufunc's
    ``reduce`` with NumPy's ``out`` / ``initial`` / ``where``."""
    keepdims = _keepdims(keepdims)
    axis = axis_argument(axis)
    if out is None and not _given(initial) and where is True \
            and type(a) is NPUArray:
        return function(a, axis=axis, keepdims=keepdims,
                        **({} if dtype is None else {"dtype": dtype}))
    a = as_device(a, ufunc_name)
    if axis is None:
        axis = tuple(range(a.ndim))
    return _ufunc.UFUNCS[ufunc_name].reduce(a, axis=axis, dtype=dtype, out=out,
                                            keepdims=keepdims, initial=initial, where=where)


def sum(a, /, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE,  # noqa: A001
        where=True):
    """Sum over ``axis`` (None: all; int or tuple) (``numpy.sum``, array API ``sum``):
    aclnnReduceSum on the current stream; integers accumulate in int64 / uint64 as
    NumPy. ``dtype`` the accumulator and result dtype, ``out`` an NPUArray,
    ``keepdims``, ``initial`` (added), ``where`` (a bool mask: the elements summed)."""
    if out is None and initial is _NO_VALUE and where is True and type(a) is NPUArray \
            and type(axis) is not list and keepdims is not _NO_VALUE:
        return st.sum(a, axis=axis, dtype=dtype, keepdims=keepdims)  # the plain call, as cheap
    return _reduce("add", st.sum, a, axis, dtype, out, keepdims, initial, where)


def prod(a, /, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE,
         where=True):
    """Product over ``axis`` (``numpy.prod``, array API ``prod``): aclnnProd; the
    keywords as ``sum``'s."""
    if out is None and initial is _NO_VALUE and where is True and type(a) is NPUArray \
            and type(axis) is not list and keepdims is not _NO_VALUE:
        return st.prod(a, axis=axis, dtype=dtype, keepdims=keepdims)
    return _reduce("multiply", st.prod, a, axis, dtype, out, keepdims, initial, where)


def max(a, /, axis=None, out=None, keepdims=False, initial=_NO_VALUE,  # noqa: A001
        where=True):
    """Largest element over ``axis`` (``numpy.max``, array API ``max``): aclnnAmax;
    ``initial`` takes part, ``where`` needs ``initial`` (ValueError otherwise, as
    NumPy), as does an empty reduction."""
    if out is None and initial is _NO_VALUE and where is True and type(a) is NPUArray \
            and type(axis) is not list and keepdims is not _NO_VALUE:
        return st.max(a, axis=axis, keepdims=keepdims)
    return _reduce("maximum", st.max, a, axis, None, out, keepdims, initial, where)


def min(a, /, axis=None, out=None, keepdims=False, initial=_NO_VALUE,  # noqa: A001
        where=True):
    """Smallest element over ``axis`` (``numpy.min``, array API ``min``): aclnnAmin."""
    if out is None and initial is _NO_VALUE and where is True and type(a) is NPUArray \
            and type(axis) is not list and keepdims is not _NO_VALUE:
        return st.min(a, axis=axis, keepdims=keepdims)
    return _reduce("minimum", st.min, a, axis, None, out, keepdims, initial, where)


amax, amin = max, min


def _truth(name, function, a, axis, out, keepdims, where):
    keepdims = _keepdims(keepdims)
    if out is None and where is True and type(a) is NPUArray:
        return function(a, axis=axis_argument(axis), keepdims=keepdims)
    a = as_device(a, name)
    if where is not True:
        a = ew.where(as_device(where, name), ew.not_equal(a, 0), name == "all")
    result = function(a, axis=axis_argument(axis), keepdims=keepdims)
    return into(result if out is None else _manipulation.astype(result, out.dtype), out)


def all(a, /, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    """Whether every element over ``axis`` is non-zero (``numpy.all``, array API
    ``all``): aclnnAll; ``where`` restricts the elements tested."""
    return _truth("all", _utility.all, a, axis, out, keepdims, where)


def any(a, /, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    """Whether any element over ``axis`` is non-zero (``numpy.any``): aclnnAny."""
    return _truth("any", _utility.any, a, axis, out, keepdims, where)


def _masked_count(a, axis, keepdims, where, dtype):
    """Number of elements over ``axis`` where ``where`` holds, in ``dtype``."""
    mask = _manipulation.broadcast_to(as_device(where, "mean"), a.shape)
    return st.sum(_manipulation.astype(mask, dtype), axis=axis, keepdims=keepdims)


def mean(a, /, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Arithmetic mean over ``axis`` (``numpy.mean``, array API ``mean``): aclnnMean;
    integers in float64. ``dtype`` the computation and result dtype, ``where`` a
    bool mask of the elements averaged (NaN where none is), ``out`` an NPUArray."""
    keepdims = _keepdims(keepdims)
    axis = axis_argument(axis)
    if out is None and dtype is None and where is True and type(a) is NPUArray \
            and _floating(a.dtype):
        return st.mean(a, axis=axis, keepdims=keepdims)
    a = as_device(a, "mean")
    compute = normalize_dtype(dtype) if dtype is not None else _float_dtype(a.dtype)
    compute_in = compute if _floating(compute) else np.dtype(np.float64)
    a = _manipulation.astype(a, compute_in, copy=False)
    if where is True:
        result = st.mean(a, axis=axis, keepdims=keepdims)
    else:
        total = sum(a, axis=axis, keepdims=keepdims, where=where)
        result = ew.divide(total, _masked_count(a, axis, keepdims, where, compute_in))
    if result.dtype != compute:
        result = _manipulation.astype(result, compute)
    return into(result, out)


def _moment(name, root, a, axis, dtype, out, ddof, keepdims, where, mean_, correction):
    keepdims = _keepdims(keepdims)
    axis = axis_argument(axis)
    if correction is not _NO_VALUE and correction is not None:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    function = st.std if root else st.var
    if out is None and dtype is None and where is True and mean_ is _NO_VALUE \
            and type(a) is NPUArray and _floating(a.dtype):
        return function(a, axis=axis, correction=ddof, keepdims=keepdims)
    a = as_device(a, name)
    compute = normalize_dtype(dtype) if dtype is not None else _float_dtype(a.dtype)
    a = _manipulation.astype(a, compute if _floating(compute) else np.float64, copy=False)
    if where is True and mean_ is _NO_VALUE:
        result = function(a, axis=axis, correction=ddof, keepdims=keepdims)
    else:
        centre = mean(a, axis=axis, keepdims=True, where=where) if mean_ is _NO_VALUE \
            else as_device(mean_, name)
        deviation = ew.subtract(a, centre)
        squares = ew.multiply(deviation, ew.conj(deviation)) if a.dtype.kind == "c" \
            else ew.square(deviation)
        if squares.dtype.kind == "c":
            squares = ew.real(squares)
        total = sum(squares, axis=axis, keepdims=keepdims, where=where)
        count = _masked_count(a, axis, keepdims, where, total.dtype) if where is not True \
            else np.prod([a.shape[i] for i in _axes(axis, a.ndim)])
        result = ew.divide(total, ew.maximum(ew.subtract(count, ddof), 0)
                           if not isinstance(count, (int, np.integer)) else
                           builtins.max(count - ddof, 0))
        if root:
            result = ew.sqrt(result)
    if dtype is not None and result.dtype != compute:
        result = _manipulation.astype(result, compute)
    return into(result, out)


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(_manipulation.normalize_axis_tuple(axis, ndim))


def var(a, /, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NO_VALUE, correction=_NO_VALUE):  # noqa: A002  NumPy's name
    """Variance over ``axis`` (``numpy.var``, array API ``var``): aclnnVar, or
    composed on the device for ``where`` / ``mean``. ``ddof`` (NumPy) or
    ``correction`` (the standard) is subtracted from the count (ValueError when
    both are given); ``dtype``, ``out``, ``keepdims``, ``where`` as NumPy's."""
    return _moment("var", False, a, axis, dtype, out, ddof, keepdims, where, mean, correction)


def std(a, /, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NO_VALUE, correction=_NO_VALUE):  # noqa: A002  NumPy's name
    """Standard deviation over ``axis`` (``numpy.std``, array API ``std``): aclnnStd
    (or composed), ``ddof`` / ``correction`` as ``var``'s."""
    return _moment("std", True, a, axis, dtype, out, ddof, keepdims, where, mean, correction)


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """Running sum along ``axis`` (array API / NumPy 2 ``cumulative_sum``): aclnnCumsum;
    ``axis`` may be omitted for 1-D ``x``; ``out`` an NPUArray."""
    return into(st.cumulative_sum(as_device(x, "cumulative_sum"), axis=axis, dtype=dtype,
                                  include_initial=include_initial), out)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """Running product along ``axis`` (``cumulative_prod``): aclnnCumprod."""
    return into(st.cumulative_prod(as_device(x, "cumulative_prod"), axis=axis, dtype=dtype,
                                   include_initial=include_initial), out)


def _arg_extremum(name, function, a, axis, out, keepdims):
    result = function(as_device(a, name), axis=axis, keepdims=_keepdims(keepdims))
    return into(result, out)


def argmax(a, /, axis=None, out=None, *, keepdims=False):
    """Index of the largest element over ``axis`` (``numpy.argmax``, array API
    ``argmax``): aclnnArgMax; ``out`` an int64 NPUArray."""
    return _arg_extremum("argmax", _searching.argmax, a, axis, out, keepdims)


def argmin(a, /, axis=None, out=None, *, keepdims=False):
    """Index of the smallest element over ``axis`` (``numpy.argmin``): aclnnArgMin."""
    return _arg_extremum("argmin", _searching.argmin, a, axis, out, keepdims)


# -- element-wise functions that are not ufuncs ------------------------------------------------

def where(condition, x=_NO_VALUE, y=_NO_VALUE, /):
    """``x`` where ``condition`` holds, else ``y`` (``numpy.where``, array API
    ``where``: aclnnSWhere); with ``condition`` alone, its ``nonzero`` indices.
    Scalars only give a 0-d device array. ValueError for only one of x, y."""
    if x is _NO_VALUE and y is _NO_VALUE:
        return _searching.nonzero(as_device(condition, "where"))
    if x is _NO_VALUE or y is _NO_VALUE:
        raise ValueError("either both or neither of x and y should be given")
    condition = as_device(condition, "where")
    x, y = _ufunc.operands("where", [x, y]) if not (
        isinstance(x, NPUArray) or isinstance(y, NPUArray)) else \
        [as_device(v, "where") if isinstance(v, (np.ndarray, list, tuple)) else v
         for v in (x, y)]
    return ew.where(condition, x, y)


_SORT_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _sort_args(name, a, axis, kind, order):
    if order is not None:
        raise TypeError(f"{name}: order= (fields of structured arrays) is not supported: "
                        f"npuarray arrays have no fields")
    if kind not in _SORT_KINDS:
        raise ValueError(f"{name}: sort kind must be one of 'quick', 'heap', or 'stable' "
                         f"(got {kind!r})")
    a = as_device(a, name)
    if axis is None:
        return _manipulation.reshape(a, (-1,)), -1
    return a, axis


def sort(a, /, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """Sorted copy along ``axis`` (None: of the flattened array) (``numpy.sort``,
    array API ``sort``): aclnnSort, always stable (every ``kind`` gives the stable
    order); ``descending`` as the standard's."""
    a, axis = _sort_args("sort", a, axis, kind, order)
    return _sorting.sort(a, axis=axis, descending=descending, stable=True)


def argsort(a, /, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """Indices that sort ``a`` along ``axis`` (``numpy.argsort``, array API
    ``argsort``): aclnnSort's indices, stable."""
    a, axis = _sort_args("argsort", a, axis, kind, order)
    return _sorting.argsort(a, axis=axis, descending=descending, stable=True)


def clip(a, /, min=_NO_VALUE, max=_NO_VALUE, out=None, *, a_min=_NO_VALUE,  # noqa: A002
         a_max=_NO_VALUE, **kwargs):
    """``a`` limited to [``min``, ``max``] (array API ``clip``; ``numpy.clip``, whose
    ``a_min`` / ``a_max`` keywords are taken too): aclnnClamp / aclnnClampTensor.
    Either bound may be None (or left out); NumPy's ufunc keywords (``dtype``,
    ``casting``, ``where``...) apply as for ufuncs. ValueError when a bound is given
    under both names."""
    if _given(a_min) and _given(min) or _given(a_max) and _given(max):
        raise ValueError("Passed a_min/a_max and min/max at the same time; use one pair")
    low = a_min if _given(a_min) else (min if _given(min) else None)
    high = a_max if _given(a_max) else (max if _given(max) else None)
    a = as_device(a, "clip")
    low, high = (as_device(v, "clip") if isinstance(v, (np.ndarray, list, tuple)) else v
                 for v in (low, high))
    dtype = kwargs.pop("dtype", None)
    where = kwargs.pop("where", True)
    casting = kwargs.pop("casting", "same_kind")
    kwargs.pop("subok", None)
    order = kwargs.pop("order", "K")
    if kwargs:
        raise TypeError(f"clip() got an unexpected keyword argument {next(iter(kwargs))!r}")
    if dtype is not None:
        a = _manipulation.astype(a, dtype, copy=False)
    result = ew.clip(a, low, high)
    out = _ufunc.out_array(out)
    if out is None:
        return _ufunc.ordered(result, order, [a])
    return _ufunc.store("clip", result, out, where, casting)


def round(a, /, decimals=0, out=None):  # noqa: A001
    """Round to ``decimals`` decimals, halves to even (``numpy.round``, array API
    ``round``): aclnnRound of ``a * 10**decimals`` divided back, as NumPy."""
    return into(_math.around(as_device(a, "round"), decimals), out)


around = round


def real(val, /):
    """Real part (``numpy.real``, array API ``real``); real input as it is."""
    return ew.real(as_device(val, "real"))


def imag(val, /):
    """Imaginary part (``numpy.imag``, array API ``imag``); zeros for real input."""
    return ew.imag(as_device(val, "imag"))


# -- creation with order= ----------------------------------------------------------------------

def _is_c_contiguous(x):
    expected = 1  # strides count elements
    for size, stride in zip(reversed(x.shape), reversed(x._strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


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
        fortran = _ufunc.is_fortran(source) and not _is_c_contiguous(source)
        order = "F" if fortran else ("C" if order == "A" or source is not x else None)
        if order is None:
            return x
    if order == "F":
        return x if _ufunc.is_fortran(x) else _ufunc.fortran_copy(x)
    if order == "C":
        return x if _is_c_contiguous(x) else _manipulation.copy_array(x)
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
        fortran = _ufunc.is_fortran(a) and not _is_c_contiguous(a) \
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
    arrays = isinstance(start, (NPUArray, np.ndarray, list, tuple)) or \
        isinstance(stop, (NPUArray, np.ndarray, list, tuple))
    if not arrays:
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


# -- manipulation and indexing -----------------------------------------------------------------

def tile(A, reps, /):  # noqa: N803  NumPy's name
    """``A`` repeated ``reps`` times per axis (``numpy.tile``, array API ``tile``):
    ``reps`` an int or a tuple."""
    reps = (operator.index(reps),) if not isinstance(reps, (tuple, list)) else tuple(reps)
    return _manipulation.tile(as_device(A, "tile"), reps)


def take(a, indices, /, axis=None, out=None, mode="raise"):
    """Elements of ``a`` at ``indices`` along ``axis`` (None: of the flattened ``a``)
    (``numpy.take``, array API ``take``): aclnnIndexSelect. ``mode`` "raise"
    (IndexError out of range), "wrap" (modulo the length) or "clip"."""
    a = as_device(a, "take")
    if axis is None and a.ndim != 1:
        a, axis = _manipulation.reshape(a, (-1,)), 0
    index = as_device(indices, "take")
    n = a.shape[0 if axis is None else _manipulation.normalize_axis_tuple(axis, a.ndim)[0]]
    if mode == "wrap":
        index = ew.remainder(index, n) if n else index
    elif mode == "clip":
        index = ew.clip(index, 0, builtins.max(n - 1, 0))
    elif mode != "raise":
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if index.ndim == 0:
        result = _indexing.take(a, _manipulation.reshape(index, (1,)), axis=axis)
        result = _manipulation.squeeze(result, axis=0 if axis is None else axis)
    else:
        result = _indexing.take(a, index, axis=axis)
    return into(result, out)


def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    """``a`` with a new ``shape`` (``numpy.reshape``, array API ``reshape``): a view
    when the strides allow, else a device copy (``copy=False`` raises then).
    ``order="F"`` reads and writes the elements in Fortran order (the transpose's
    reshape, transposed); "A" uses Fortran order for a Fortran-contiguous ``a``."""
    if shape is None:
        if newshape is None:
            raise TypeError("reshape() missing 1 required positional argument: 'shape'")
        shape = newshape
    a = as_device(a, "reshape")
    if order == "A":
        order = "F" if _ufunc.is_fortran(a) and not _is_c_contiguous(a) else "C"
    if order == "C":
        return _manipulation.reshape(a, shape, copy=copy)
    if order != "F":
        raise ValueError(f"order must be one of 'C', 'F', 'A' (got {order!r})")
    shape = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(shape)
    flipped = _manipulation.permute_dims(a, tuple(range(a.ndim - 1, -1, -1)))
    result = _manipulation.reshape(flipped, shape[::-1], copy=copy)
    return _manipulation.permute_dims(result, tuple(range(len(shape) - 1, -1, -1)))


def tril(m, /, k=0):
    """Lower triangle of the last two axes, below diagonal ``k`` kept (``numpy.tril``,
    array API ``tril``): aclnnTril; ``k`` positional or keyword."""
    return _creation.tril(as_device(m, "tril"), k=operator.index(k))


def triu(m, /, k=0):
    """Upper triangle of the last two axes (``numpy.triu``, array API ``triu``): aclnnTriu."""
    return _creation.triu(as_device(m, "triu"), k=operator.index(k))


def isin(element, test_elements, /, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements`` (``numpy.isin``,
    array API ``isin``), in ``element``'s shape; either may be a host array or
    sequence (uploaded). ``assume_unique`` and ``kind`` are hints NumPy may ignore;
    so does npuarray."""
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: {kind!r}. Please use None, 'sort' or 'table'.")
    return _set.isin(as_device(element, "isin"), as_device(test_elements, "isin"),
                     invert=builtins.bool(invert))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):  # noqa: A002  NumPy's name
    """Sorted unique elements (``numpy.unique``), or with ``axis`` the unique
    sub-arrays along it in lexicographic order: a stable sort per column
    (aclnnSort), neighbours compared (aclnnNeTensor, aclnnAny), the first of each
    run kept (aclnnIndexSelect). ``return_index`` (first occurrences),
    ``return_inverse`` and ``return_counts`` as NumPy's."""
    if axis is None:
        return _set_names.unique(ar, return_index, return_inverse, return_counts,
                                 equal_nan=equal_nan, sorted=sorted)
    a = as_device(ar, "unique")
    axis = _manipulation.normalize_axis_tuple(axis, a.ndim)[0]
    moved = _manipulation.moveaxis(a, axis, 0)
    n, rest = moved.shape[0], moved.shape[1:]
    rows = _manipulation.reshape(moved, (n, -1))
    order = _creation.arange(n, dtype=np.int64, device=a.device)
    for j in range(rows.shape[1] - 1, -1, -1):  # stable sorts, last key first
        keys = _indexing.take(rows[:, j], order)
        order = _indexing.take(order, _sorting.argsort(keys, stable=True))
    ordered = _indexing.take(rows, order, axis=0)
    first = _creation.ones((builtins.min(n, 1),), dtype=np.bool_, device=a.device)
    changed = _utility.any(ew.not_equal(ordered[1:], ordered[:-1]), axis=1) if n > 1 else \
        _creation.zeros((0,), dtype=np.bool_, device=a.device)
    starts = _manipulation.concat([first, changed])
    positions = _searching.nonzero(starts)[0]
    values = _manipulation.reshape(_indexing.take(ordered, positions, axis=0),
                                   (positions.shape[0],) + rest)
    result = [_manipulation.moveaxis(values, 0, axis)]
    if return_index:
        result.append(_indexing.take(order, positions))
    if return_inverse:
        group = ew.subtract(st.cumulative_sum(_manipulation.astype(starts, np.int64)), 1)
        result.append(_indexing.take(group, _sorting.argsort(order, stable=True)))
    if return_counts:
        ends = _manipulation.concat([positions[1:], _creation.full(
            (1,), n, dtype=np.int64, device=a.device)])
        result.append(ew.subtract(ends, positions))
    return result[0] if len(result) == 1 else tuple(result)


def searchsorted(a, v, /, side="left", sorter=None):
    """Insertion indices of ``v`` into the sorted 1-D ``a`` (``numpy.searchsorted``,
    array API ``searchsorted``): aclnnSearchSorted. ``v`` an array, a host array or
    a Python or NumPy scalar; ``sorter`` the indices that sort ``a``."""
    if isinstance(v, np.generic):
        v = v.item()  # compared by value; the result is an index either way
    elif isinstance(v, (np.ndarray, list, tuple)):
        v = as_device(v, "searchsorted")
    if sorter is not None:
        sorter = as_device(sorter, "searchsorted")
    return _searching.searchsorted(as_device(a, "searchsorted"), v, side=side, sorter=sorter)


def matmul(x1, x2, /, out=None, *, dtype=None, casting="same_kind", order="K", subok=True,
           **unknown):
    """Matrix product (``numpy.matmul``, array API ``matmul``): aclnnMatmul /
    aclnnBatchMatMul. ``dtype`` the operands' (and result's) dtype, cast as ``casting``
    allows; ``out`` an NPUArray of the result's shape. TypeError for the gufunc's
    ``axes`` / ``axis`` keywords."""
    if unknown:
        raise TypeError(f"matmul: the arguments {sorted(unknown)} are not supported by npuarray")
    a, b = as_device(x1, "matmul"), as_device(x2, "matmul")
    if dtype is not None:
        dtype = normalize_dtype(dtype)
        for operand in (a, b):
            if not np.can_cast(operand.dtype, dtype, casting=casting):
                raise TypeError(f"Cannot cast ufunc 'matmul' input from {operand.dtype!r} to "
                                f"{dtype!r} with casting rule {casting!r}")
        a, b = (_manipulation.astype(v, dtype, copy=False) for v in (a, b))
    result = _linear_algebra.matmul(a, b)
    out = _ufunc.out_array(out)
    if out is None:
        return _ufunc.ordered(result, order, [a, b])
    return _ufunc.store("matmul", result, out, True, casting)
