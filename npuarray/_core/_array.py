"""NPUArray: an n-dimensional array in device memory.

An NPUArray is a view: a ``DeviceBuffer`` from the memory pool (shared by all
views of it) plus shape, strides (in elements), offset (elements from the
buffer start) and dtype. Slicing makes views; operators return new arrays;
nothing is copied to the host unless asked (``to_host``, ``asnumpy``) or
implied by a Python protocol (``__array__``, ``__bool__``, ``__float__``, ...),
which ``npuarray.transfer_guard`` can forbid.

Every method and operator is written in the class body below, which names the
function each one runs: ``x + y`` is the plan of ``npuarray.add``
(``_elementwise.binary_operator("add")``, its common case in C), ``x.sum()`` is
``_statistical.sum``; the operator modules launch aclnn operators on the current
stream. NumPy's ndarray methods outside the array API (``x.std(ddof=1)``,
``x.take(indices)``, ``x.sort()``, ``x.real``...) have ``numpy.ndarray``'s
signatures and semantics (in-place ``sort``/``partition``/``put``, flattening
when ``axis`` is None for ``take``, ``argsort``, ``cumsum``, ``ddof`` for
``std``/``var``) and run npuarray's function of the same name; ``out=`` takes an
NPUArray of the result's shape. Arguments NumPy has but a device cannot honour
raise: ``order=`` (structured dtypes) ValueError, ``mode=`` other than NumPy's
default ValueError. NumPy calls on NPUArrays (``numpy.exp(x)``, ``numpy.sum(x)``)
run on the device where npuarray implements them; other NumPy functions read
the arrays through ``__array__`` (an implicit transfer) and return NumPy results.

The operator modules sit below this one (they take the class from
``_array_type``, where it is registered once it exists).
"""
__all__ = ["NPUArray", "buffer_view"]

import builtins
import functools
import operator
import pickle

import numpy as np

from . import (_array_type, _elementwise, _indexing, _linear_algebra, _manipulation,
               _namespace, _ops, _searching, _statistical, _transfer)
from ._array_layout import Flags, MemoryPointer, flatiter, owns_data, reinterpreted
from ._shape import is_c_contiguous

# Published versions of the array API standard that __array_namespace__ accepts.
_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


def _npx():
    # The package namespace (NumPy's names): it is built on the core, which therefore
    # takes it from the namespace hand-over when called, never by importing it.
    return _namespace.module


def into_out(result, out):
    """``result``, or the NPUArray ``out`` after ``out[...] = result`` (NumPy's
    ``out=``; ValueError when the shapes differ, TypeError for host arrays)."""
    if out is None:
        return result
    if not isinstance(out, NPUArray):
        raise TypeError(f"out must be an NPUArray, got {type(out).__name__}")
    if out.shape != result.shape:
        raise ValueError(f"out has shape {out.shape}, the result has shape {result.shape}")
    out[...] = result
    return out


def _refuse_order(order):
    if order is not None:
        raise ValueError("order= sorts structured arrays by field; NPUArray dtypes have none")


def _refuse_mode(mode, default="raise"):
    if mode != default:
        raise ValueError(f"mode={mode!r} is not supported (only NumPy's default {default!r})")


def _flat_or(x, axis):
    """(x flattened, 0) when ``axis`` is None, as NumPy's methods do, else (x, axis)."""
    return (x.reshape(-1), 0) if axis is None else (x, axis)


def _device_indices(x, indices):
    """``indices`` as an NPUArray of ``x``'s device (an explicit upload for host ints)."""
    if isinstance(indices, NPUArray):
        return indices
    npx = _npx()
    return npx.asarray(indices, dtype=npx.int64, device=x.device)


# -- how the binary operators are made (used as decorators in the class body) --------------------

# Operand types that never defer: the common case (2.0 * x) pays one set lookup.
_SCALAR_TYPES = frozenset({float, int, bool, complex})


def _deferring(method):
    """The binary operator ``method``, returning NotImplemented for another library's
    array (``_elementwise.defers_to``) so that Python asks it, as NumPy's operators do."""
    @functools.wraps(method)
    def deferring(self, other):
        kind = type(other)
        if kind is not NPUArray and kind not in _SCALAR_TYPES and _elementwise.defers_to(other):
            return NotImplemented
        return method(self, other)
    return deferring


def _reflected_in_c(name):
    """The reflected operator of the binary function ``name`` (``__radd__``): ``2.0 - x``
    for a Python float or int in C, the decorated method otherwise."""
    return functools.partial(_elementwise.reflected_operator, name)


def _inplace_in_c(name):
    """The in-place operator of ``name`` (``__iadd__``): ``x += y`` for two arrays with
    the plan's in-place aclnn operator in C, the decorated method otherwise."""
    return functools.partial(_elementwise.inplace_operator, name)


def _scalar_in_c(name, mode):
    """The operator (``mode`` "forward" or "reflected") of ``name`` whose function checks
    arrays before its plan (pow): ``x ** 2.0`` in C, the decorated method otherwise."""
    return lambda method: _elementwise.scalar_operator(name, method, mode)



class NPUArray:
    """An array on an NPU (CuPy's ``ndarray`` / the array API's array object).

    Create arrays with ``npuarray.asarray``, ``zeros``, ``empty``, ``arange``...,
    not with the constructor. Attributes follow NumPy: ``shape``, ``ndim``,
    ``size``, ``dtype`` (a NumPy dtype; bfloat16 from ml_dtypes), ``device``,
    ``nbytes``, ``itemsize``, ``strides`` (bytes), ``T``, ``mT``.
    """
    __slots__ = ("_buffer", "_shape", "_strides", "_offset", "_dtype", "_acl_tensor",
                 "__weakref__")
    # Above NumPy's 0 (and equal to CuPy's): mixed operations defer to NPUArray, and
    # libraries that compare priorities (Dask's tensordot) find one.
    __array_priority__ = 100.0

    def __init__(self, *args, **kwargs):
        raise TypeError("NPUArray is not created directly; use npuarray.asarray, "
                        "npuarray.empty, npuarray.zeros, ...")

    @classmethod
    def _from_buffer(cls, buffer, shape, strides, offset, dtype):
        """A view of ``buffer``: ``shape`` and ``strides`` (elements) tuples,
        ``offset`` in elements from ``buffer.ptr``, NumPy ``dtype``."""
        self = object.__new__(cls)
        self._buffer = buffer
        self._shape = shape
        self._strides = strides
        self._offset = offset
        self._dtype = dtype
        self._acl_tensor = None
        return self

    def _view(self, shape, strides, offset):
        """Another view of the same buffer and dtype."""
        return NPUArray._from_buffer(self._buffer, tuple(shape), tuple(strides),
                                     offset, self._dtype)

    # -- attributes ----------------------------------------------------------------------------
    @property
    def shape(self):
        """Tuple of dimension sizes."""
        return self._shape

    @property
    def ndim(self):
        """Number of dimensions."""
        return len(self._shape)

    @property
    def size(self):
        """Number of elements."""
        size = 1
        for n in self._shape:
            size *= n
        return size

    @property
    def dtype(self):
        """The element type (a ``numpy.dtype``)."""
        return self._dtype

    @property
    def device(self):
        """The ``npuarray.Device`` holding the data."""
        return self._buffer.device

    @property
    def itemsize(self):
        """Bytes per element."""
        return self._dtype.itemsize

    @property
    def nbytes(self):
        """Bytes of the elements of this view (``size * itemsize``)."""
        return self.size * self._dtype.itemsize

    @property
    def strides(self):
        """Bytes to step in each dimension (as ``numpy.ndarray.strides``)."""
        itemsize = self._dtype.itemsize
        return tuple(s * itemsize for s in self._strides)

    @property
    def data_ptr(self):
        """Device address (int) of the first element of this view."""
        return self._buffer.ptr + self._offset * self._dtype.itemsize

    @property
    def T(self):
        """The view with the axes reversed (``numpy.ndarray.T``)."""
        return self._view(self._shape[::-1], self._strides[::-1], self._offset)

    @property
    def mT(self):
        """The view with the last two axes swapped (array API ``mT``); ValueError
        for fewer than two dimensions."""
        if self.ndim < 2:
            raise ValueError(f"mT needs an array of at least 2 dimensions, got shape "
                             f"{self._shape}")
        shape, strides = list(self._shape), list(self._strides)
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
        return self._view(shape, strides, self._offset)

    def is_c_contiguous(self):
        """True when the view's elements are adjacent in C order (an empty view is)."""
        return is_c_contiguous(self._shape, self._strides)

    # -- transfers -----------------------------------------------------------------------------
    def to_host(self, *, stream=None, out=None, blocking=True):
        """Copy to a ``numpy.ndarray`` (explicit; always allowed by the transfer
        guard). See ``npuarray.asnumpy``."""
        return _transfer.to_host(self, stream=stream, out=out, blocking=blocking)

    def to_device(self, device, /, *, stream=None):
        """This array on ``device`` (array API ``to_device``). See
        ``npuarray._core._transfer.to_device``."""
        return _transfer.to_device(self, device, stream=stream)

    def get(self, *, stream=None, out=None, blocking=True):
        """CuPy's name for ``to_host``."""
        return self.to_host(stream=stream, out=out, blocking=blocking)

    def item(self, *args):
        """The element as a Python scalar (explicit read; ``numpy.ndarray.item``).
        With no argument the array must have one element (ValueError otherwise);
        an int or tuple argument selects the element."""
        if args:
            return self[args[0] if len(args) == 1 else args].item()
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return _transfer.to_host(self).item()

    def tolist(self):
        """The values as nested Python lists (explicit read; ``ndarray.tolist``)."""
        return _transfer.to_host(self).tolist()

    def __array__(self, dtype=None, copy=None):
        """NumPy 2 protocol: a host copy (implicit transfer, subject to
        ``transfer_guard``). ``copy=False`` raises ValueError: device memory
        cannot be viewed from the host."""
        if copy is False:
            raise ValueError("an NPUArray cannot be viewed as a NumPy array without a "
                             "copy (copy=False); use x.to_host() to copy it")
        host = _transfer.implicit_to_host(self, "numpy.asarray(x) / __array__",
                                          "x.to_host() or npuarray.asnumpy(x)")
        return host if dtype is None else host.astype(dtype, copy=False)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NEP 13: NumPy ufuncs with NPUArray operands run on the device when
        npuarray implements them (see ``npuarray._numpy_dispatch``); others
        raise TypeError rather than copy device data to the host."""
        return _namespace.array_ufunc(self, ufunc, method, *inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        """NEP 18: NumPy functions run on the device when npuarray implements
        them (``numpy.sum``, ``numpy.concatenate``, ``numpy.median``, ...;
        ``npuarray._numpy_dispatch``); any other NumPy function raises
        TypeError naming it rather than copy device data to the host."""
        return _namespace.array_function(self, func, types, args, kwargs)

    def __array_namespace__(self, /, *, api_version=None):
        """The ``npuarray`` module (array API standard 2025.12; every published
        ``api_version`` is accepted). ValueError for any other version."""
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(f"unsupported array API version {api_version!r}; npuarray "
                             f"supports {', '.join(_API_VERSIONS)}")
        return _namespace.module

    def __dlpack_device__(self):
        """``(kDLExtDev, device id)``, as torch_npu exports NPU tensors."""
        return (_transfer.KDL_EXT_DEV, self.device.id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack capsule of the device memory (kDLExtDev), or of a host copy
        with ``dl_device=(1, 0)`` (``numpy.from_dlpack(x, device="cpu")``)."""
        return _transfer.dlpack(self, stream=stream, max_version=max_version,
                                dl_device=dl_device, copy=copy)

    def __reduce__(self):
        return (_transfer.rebuild_pickled, (_transfer.to_host(self), self.device.id))

    # -- Python scalars and protocols ----------------------------------------------------------
    def _scalar(self, protocol):
        if self.size != 1:
            raise TypeError(f"only arrays with one element can be converted by "
                            f"{protocol}(), got shape {self._shape}")
        return _transfer.implicit_to_host(
            self, f"{protocol}(x)", f"{protocol}(x.item()) or x.to_host()").item()

    def __bool__(self):
        """Truth of a one-element array (implicit transfer). ValueError otherwise."""
        if self.size != 1:
            raise ValueError("the truth value of an array with more than one element "
                             "is ambiguous; reduce it first (e.g. npuarray.max(x))"
                             if self.size else
                             "the truth value of an empty array is ambiguous")
        return bool(self._scalar("bool"))

    def __int__(self):
        return int(self._scalar("int"))

    def __float__(self):
        return float(self._scalar("float"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        if self._dtype.kind not in "iu" or self.ndim != 0:
            raise TypeError("only 0-d integer arrays can be used as an index, got "
                            f"{self._dtype} array of shape {self._shape}")
        return int(self._scalar("operator.index"))

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __iter__(self):
        """``x[0]``, ``x[1]``, ... as device views (0-d arrays for a 1-D array, as
        CuPy's): nothing is copied to the host. TypeError for a 0-d array."""
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._shape[0]))

    def __format__(self, spec):
        if self.ndim == 0 and spec:
            return format(self._scalar("format"), spec)
        return format(str(self), spec)

    def __repr__(self):
        return _transfer.array_repr(self)

    def __str__(self):
        return _transfer.array_str(self)

    # -- indexing ------------------------------------------------------------------------------
    def __getitem__(self, key):
        return _indexing.getitem(self, key)

    def __setitem__(self, key, value):
        _indexing.setitem(self, key, value)
    # -- arithmetic (aclnn operators, see npuarray._core._elementwise) -------------------------
    # ``x + y`` is the plan of ``npuarray.add`` as an operator: its common case (arrays whose
    # dtypes aclnnAdd takes as they are, or a Python float or int) runs in C
    # (``_fastpath.BinaryOperator``), the rest in ``_elementwise``'s Python code, which
    # returns NotImplemented for another library's array. One call per ``x + y``: small
    # operations are bound by host overhead.
    __add__ = _elementwise.binary_operator("add")
    __sub__ = _elementwise.binary_operator("subtract")
    __mul__ = _elementwise.binary_operator("multiply")
    __truediv__ = _elementwise.binary_operator("divide")

    @_reflected_in_c("add")
    @_deferring
    def __radd__(self, other):
        return _elementwise.add(other, self)

    @_inplace_in_c("add")
    def __iadd__(self, other):
        _elementwise.inplace("add", self, other)
        return self

    @_reflected_in_c("subtract")
    @_deferring
    def __rsub__(self, other):
        return _elementwise.subtract(other, self)

    @_inplace_in_c("subtract")
    def __isub__(self, other):
        _elementwise.inplace("subtract", self, other)
        return self

    @_reflected_in_c("multiply")
    @_deferring
    def __rmul__(self, other):
        return _elementwise.multiply(other, self)

    @_inplace_in_c("multiply")
    def __imul__(self, other):
        _elementwise.inplace("multiply", self, other)
        return self

    @_reflected_in_c("divide")
    @_deferring
    def __rtruediv__(self, other):
        return _elementwise.divide(other, self)

    @_inplace_in_c("divide")
    def __itruediv__(self, other):
        _elementwise.inplace("divide", self, other)
        return self

    @_deferring
    def __floordiv__(self, other):
        return _elementwise.floor_divide(self, other)

    @_deferring
    def __rfloordiv__(self, other):
        return _elementwise.floor_divide(other, self)

    def __ifloordiv__(self, other):
        _elementwise.inplace("floor_divide", self, other)
        return self

    @_deferring
    def __mod__(self, other):
        return _elementwise.remainder(self, other)

    @_deferring
    def __rmod__(self, other):
        return _elementwise.remainder(other, self)

    def __imod__(self, other):
        _elementwise.inplace("remainder", self, other)
        return self

    # ``x ** 2.0`` in C when the plan takes the scalar as it is; ``pow``'s checks of
    # integer powers (uint64, negative exponents) otherwise.
    @_scalar_in_c("pow", "forward")
    @_deferring
    def __pow__(self, other):
        return _elementwise.pow(self, other)

    @_scalar_in_c("pow", "reflected")
    @_deferring
    def __rpow__(self, other):
        return _elementwise.pow(other, self)

    def __ipow__(self, other):
        _elementwise.inplace("pow", self, other)
        return self

    # ``x @ y`` in C when ``matmul`` memoised the product (``_linear_algebra.matmul_in_c``).
    @_linear_algebra.matmul_in_c
    @_deferring
    def __matmul__(self, other):
        return _linear_algebra.matmul(self, other)

    @_deferring
    def __rmatmul__(self, other):
        return _linear_algebra.matmul(other, self)

    def __imatmul__(self, other):
        _elementwise.inplace("matmul", self, other, _linear_algebra.matmul)
        return self

    def __neg__(self):
        return _elementwise.negative(self)

    def __pos__(self):
        return _elementwise.positive(self)

    def __abs__(self):
        return _elementwise.abs(self)

    # -- bitwise (aclnnBitwise*, aclnnLeftShift / aclnnRightShift, see npuarray._core._elementwise) ----
    @_deferring
    def __and__(self, other):
        return _elementwise.bitwise_and(self, other)

    @_deferring
    def __rand__(self, other):
        return _elementwise.bitwise_and(other, self)

    def __iand__(self, other):
        _elementwise.inplace("bitwise_and", self, other)
        return self

    @_deferring
    def __or__(self, other):
        return _elementwise.bitwise_or(self, other)

    @_deferring
    def __ror__(self, other):
        return _elementwise.bitwise_or(other, self)

    def __ior__(self, other):
        _elementwise.inplace("bitwise_or", self, other)
        return self

    @_deferring
    def __xor__(self, other):
        return _elementwise.bitwise_xor(self, other)

    @_deferring
    def __rxor__(self, other):
        return _elementwise.bitwise_xor(other, self)

    def __ixor__(self, other):
        _elementwise.inplace("bitwise_xor", self, other)
        return self

    @_deferring
    def __lshift__(self, other):
        return _elementwise.bitwise_left_shift(self, other)

    @_deferring
    def __rlshift__(self, other):
        return _elementwise.bitwise_left_shift(other, self)

    def __ilshift__(self, other):
        _elementwise.inplace("bitwise_left_shift", self, other)
        return self

    @_deferring
    def __rshift__(self, other):
        return _elementwise.bitwise_right_shift(self, other)

    @_deferring
    def __rrshift__(self, other):
        return _elementwise.bitwise_right_shift(other, self)

    def __irshift__(self, other):
        _elementwise.inplace("bitwise_right_shift", self, other)
        return self

    def __invert__(self):
        return _elementwise.bitwise_invert(self)

    # -- comparisons (aclnnEqTensor, aclnnEqScalar, ...), as the arithmetic operators ----------
    __eq__ = _elementwise.binary_operator("equal")
    __ne__ = _elementwise.binary_operator("not_equal")
    __lt__ = _elementwise.binary_operator("less")
    __le__ = _elementwise.binary_operator("less_equal")
    __gt__ = _elementwise.binary_operator("greater")
    __ge__ = _elementwise.binary_operator("greater_equal")

    # Comparisons return bool arrays, so arrays are unhashable (as in NumPy).
    __hash__ = None
    # -- NumPy-style methods -------------------------------------------------------------------
    def astype(self, dtype, /, *, copy=True, device=None):
        """``npuarray.astype(self, dtype, copy=copy, device=device)`` (aclnnCast)."""
        return _manipulation.astype(self, dtype, copy=copy, device=device)

    def reshape(self, *shape, copy=None):
        """``npuarray.reshape``; accepts ``reshape(2, 3)`` and ``reshape((2, 3))``."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _manipulation.reshape(self, shape, copy=copy)

    def transpose(self, *axes):
        """``npuarray.permute_dims``; no axes reverses them (``ndarray.transpose``)."""
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        if not axes:
            return self.T
        return _manipulation.permute_dims(self, tuple(axes))

    def ravel(self):
        """The elements as a 1-D array: a view when possible, else a copy."""
        return _manipulation.reshape(self, (-1,))

    def flatten(self):
        """A 1-D copy of the elements (``ndarray.flatten``)."""
        return _manipulation.reshape(self, (-1,), copy=True)

    def squeeze(self, axis=None):
        """``npuarray.squeeze`` (all size-1 axes when ``axis`` is None)."""
        return _manipulation.squeeze(self, axis)

    def copy(self):
        """A C-contiguous copy on the same device (aclnnInplaceCopy)."""
        return _manipulation.copy_array(self)

    def fill(self, value):
        """Set every element to the scalar ``value`` (aclnnInplaceFillScalar)."""
        self[...] = value

    @_statistical.reduction_in_c("aclnnReduceSum")
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        """``npuarray.sum`` (aclnnReduceSum); ``out``: an NPUArray to write to."""
        return into_out(_statistical.sum(self, axis=axis, dtype=dtype, keepdims=keepdims), out)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """``npuarray.mean`` (aclnnMean), then cast to ``dtype`` when given."""
        result = _statistical.mean(self, axis=axis, keepdims=keepdims)
        return into_out(result if dtype is None else result.astype(dtype), out)

    @_statistical.reduction_in_c("aclnnAmax")
    def max(self, axis=None, out=None, keepdims=False):
        """``npuarray.max`` (aclnnAmax)."""
        return into_out(_statistical.max(self, axis=axis, keepdims=keepdims), out)

    @_statistical.reduction_in_c("aclnnAmin")
    def min(self, axis=None, out=None, keepdims=False):
        """``npuarray.min`` (aclnnAmin)."""
        return into_out(_statistical.min(self, axis=axis, keepdims=keepdims), out)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        """``npuarray.argmax`` (aclnnArgMax)."""
        return into_out(_searching.argmax(self, axis=axis, keepdims=keepdims), out)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        """``npuarray.argmin`` (aclnnArgMin)."""
        return into_out(_searching.argmin(self, axis=axis, keepdims=keepdims), out)

    # -- numpy.ndarray's methods outside the array API ----------------------------------------
    # reductions --------------------------------------------------------------------------
    def all(self, axis=None, out=None, keepdims=False):
        """``numpy.ndarray.all``: ``npuarray.all`` (aclnnAll)."""
        return into_out(_npx().all(self, axis=axis, keepdims=keepdims), out)

    def any(self, axis=None, out=None, keepdims=False):
        """``numpy.ndarray.any``: ``npuarray.any`` (aclnnAny)."""
        return into_out(_npx().any(self, axis=axis, keepdims=keepdims), out)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """``numpy.ndarray.prod``: ``npuarray.prod`` (aclnnProd)."""
        return into_out(_npx().prod(self, axis=axis, dtype=dtype, keepdims=keepdims), out)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """``numpy.ndarray.std``: ``npuarray.std`` with ``correction=ddof``, then cast
        to ``dtype`` when given."""
        return into_out(self._moment("std", axis, dtype, ddof, keepdims), out)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """``numpy.ndarray.var``: ``npuarray.var`` with ``correction=ddof``, then cast
        to ``dtype`` when given."""
        return into_out(self._moment("var", axis, dtype, ddof, keepdims), out)

    def _moment(self, name, axis, dtype, ddof, keepdims):
        result = getattr(_npx(), name)(self, axis=axis, correction=ddof, keepdims=keepdims)
        return result if dtype is None else result.astype(dtype)

    def cumsum(self, axis=None, dtype=None, out=None):
        """``numpy.ndarray.cumsum`` (flattened when ``axis`` is None): aclnnCumsum."""
        return _npx().cumsum(self, axis=axis, dtype=dtype, out=out)

    def cumprod(self, axis=None, dtype=None, out=None):
        """``numpy.ndarray.cumprod`` (flattened when ``axis`` is None): aclnnCumprod."""
        return _npx().cumprod(self, axis=axis, dtype=dtype, out=out)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        """``numpy.ndarray.trace``: ``npuarray.trace``."""
        return _npx().trace(self, offset=offset, axis1=axis1, axis2=axis2, dtype=dtype,
                            out=out)

    # -- sorting and searching ---------------------------------------------------------------
    def sort(self, axis=-1, kind=None, order=None):
        """``numpy.ndarray.sort``: sorts in place (stable radix sort, aclnnSort)
        along ``axis``; returns None. ValueError for a read-only (broadcast) view."""
        _refuse_order(order)
        self[...] = _npx().sort(self, axis=axis)

    def argsort(self, axis=-1, kind=None, order=None):
        """``numpy.ndarray.argsort`` (flattened when ``axis`` is None): int64 indices of
        a stable sort (aclnnArgsort)."""
        _refuse_order(order)
        x, axis = _flat_or(self, axis)
        return _npx().argsort(x, axis=axis)

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        """``numpy.ndarray.partition``: partitions in place around ``kth``; returns None."""
        _refuse_order(order)
        self[...] = _npx().partition(self, kth, axis=axis)

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        """``numpy.ndarray.argpartition``: ``npuarray.argpartition``."""
        _refuse_order(order)
        return _npx().argpartition(self, kth, axis=axis)

    def searchsorted(self, v, side="left", sorter=None):
        """``numpy.ndarray.searchsorted``: insertion indices of ``v`` (an NPUArray or a
        Python number) into this sorted 1-D array (aclnnSearchSorted)."""
        npx = _npx()
        values = v if isinstance(v, npx.NPUArray) else npx.asarray(v, dtype=self.dtype,
                                                                   device=self.device)
        return npx.searchsorted(self, values, side=side, sorter=sorter)

    def nonzero(self):
        """``numpy.ndarray.nonzero``: a tuple of int64 index arrays (aclnnNonzero)."""
        return _npx().nonzero(self)

    # -- selection ---------------------------------------------------------------------------
    def take(self, indices, axis=None, out=None, mode="raise"):
        """``numpy.ndarray.take``: elements at ``indices`` (NPUArray or host ints, uploaded)
        along ``axis``, of the flattened array when ``axis`` is None (aclnnIndexSelect).
        IndexError for an index out of range."""
        _refuse_mode(mode)
        x, axis = _flat_or(self, axis)
        indices = _device_indices(self, indices)
        taken = _npx().take(x, indices.reshape(-1), axis=axis)   # checks the axis
        axis = operator.index(axis) % x.ndim
        shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
        return into_out(taken.reshape(shape), out)

    def put(self, indices, values, mode="raise"):
        """``numpy.ndarray.put``: writes ``values`` at the flat ``indices`` (NPUArrays or
        scalars, as ``npuarray.put`` takes them), in place."""
        _npx().put(self, indices, values, mode=mode)

    def compress(self, condition, axis=None, out=None):
        """``numpy.ndarray.compress``: ``npuarray.compress(condition, self, axis)``."""
        return _npx().compress(condition, self, axis=axis, out=out)

    def choose(self, choices, out=None, mode="raise"):
        """``numpy.ndarray.choose``: ``npuarray.choose(self, choices)``."""
        return _npx().choose(self, choices, out=out, mode=mode)

    def repeat(self, repeats, axis=None):
        """``numpy.ndarray.repeat``: ``npuarray.repeat`` (flattened when ``axis`` is None)."""
        return _npx().repeat(self, repeats, axis=axis)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        """``numpy.ndarray.diagonal``: ``npuarray.diagonal``."""
        return _npx().diagonal(self, offset=offset, axis1=axis1, axis2=axis2)

    # -- element-wise and shape --------------------------------------------------------------
    def clip(self, min=None, max=None, out=None):
        """``numpy.ndarray.clip``: ``npuarray.clip`` (aclnnClamp and friends)."""
        return into_out(_npx().clip(self, min, max), out)

    def round(self, decimals=0, out=None):
        """``numpy.ndarray.round``: ``npuarray.around`` (half to even, as NumPy)."""
        return into_out(_npx().around(self, decimals=decimals), out)

    def conj(self):
        """``numpy.ndarray.conj``: ``npuarray.conj``."""
        return _npx().conj(self)

    conjugate = conj

    @property
    def real(self):
        """``numpy.ndarray.real``: ``npuarray.real`` (a strided view for complex input)."""
        return _npx().real(self)

    @property
    def imag(self):
        """``numpy.ndarray.imag``: ``npuarray.imag`` (zeros for real input)."""
        return _npx().imag(self)

    def swapaxes(self, axis1, axis2):
        """``numpy.ndarray.swapaxes``: a view with the two axes exchanged."""
        return _npx().swapaxes(self, axis1, axis2)

    def dot(self, b, out=None):
        """``numpy.ndarray.dot``: ``npuarray.dot`` (aclnnMatmul and friends)."""
        return _npx().dot(self, b, out=out)

    # -- memory layout, views and bytes (numpy.ndarray's, as CuPy's ndarray has them) ---------
    @property
    def flags(self):
        """``numpy.ndarray.flags``: the layout flags of this view (``Flags``):
        C_CONTIGUOUS, F_CONTIGUOUS, OWNDATA, WRITEABLE (False for a broadcast
        view), ALIGNED; read-only. Computed from shape and strides on the host."""
        return Flags(self)

    @property
    def base(self):
        """``numpy.ndarray.base``: None for an array that owns its memory (it starts
        its buffer and spans it, C-contiguous), else the whole buffer as a 1-D array
        of this dtype. npuarray keeps no link from a view to the array it was taken
        from, so a view's base is a new array object over the same memory."""
        if owns_data(self):
            return None
        length = self._buffer.nbytes // self._dtype.itemsize
        return type(self)._from_buffer(self._buffer, (length,), (1,), 0, self._dtype)

    @property
    def data(self):
        """CuPy's ``ndarray.data``: a ``MemoryPointer`` to the first element (the
        device buffer ``mem`` and the address ``ptr``); device memory has no host
        buffer, so NumPy's memoryview is not offered."""
        return MemoryPointer(self._buffer, self._offset * self._dtype.itemsize)

    @property
    def flat(self):
        """``numpy.ndarray.flat``: a ``flatiter`` over the elements in C order, to
        index (``x.flat[i]``, slices, integer and boolean arrays) and assign to
        (``x.flat[i] = v``) on the device, or iterate (0-d device arrays)."""
        return flatiter(self)

    def view(self, dtype=None, type=None):  # noqa: A002  NumPy's argument name
        """``numpy.ndarray.view``: the same memory seen as ``dtype`` (no copy). A
        dtype of another item size rescales the last axis, which must then be
        contiguous and hold a whole number of new items (ValueError otherwise,
        as NumPy). ``type`` may only be NPUArray (TypeError otherwise)."""
        npuarray_type = builtins.type(self)
        if isinstance(dtype, builtins.type(npuarray_type)) and issubclass(dtype, npuarray_type):
            dtype, type = None, dtype
        if type is not None and not (isinstance(type, builtins.type(npuarray_type))
                                     and issubclass(type, npuarray_type)):
            raise TypeError(f"view: type must be NPUArray, got {type!r}")
        if dtype is None:
            return self._view(self._shape, self._strides, self._offset)
        return reinterpreted(self, np.dtype(dtype))

    def tobytes(self, order="C"):
        """``numpy.ndarray.tobytes``: the raw bytes of the elements in ``order``
        ("C", "F", "A" as NumPy; "K" reads in C order, as NumPy's does), after a
        download (aclrtMemcpy device to host, an explicit transfer, on the
        current stream)."""
        if order == "A":   # the host copy is C-ordered: "A" follows this view's layout
            order = "F" if self.flags.fnc else "C"
        return self.to_host().tobytes(order)

    def tofile(self, fid, sep="", format="%s"):  # noqa: A002  NumPy's argument name
        """``numpy.ndarray.tofile``: the elements written to the file ``fid`` (binary,
        or text with ``sep``), after a download (aclrtMemcpy, explicit)."""
        self.to_host().tofile(fid, sep=sep, format=format)

    def dumps(self):
        """``numpy.ndarray.dumps``: the pickle of this array (its data downloaded;
        ``pickle.loads`` uploads it to the same device)."""
        return pickle.dumps(self)

    def dump(self, file):
        """``numpy.ndarray.dump``: the pickle of this array written to ``file`` (a
        path or a binary file object); ``pickle.load`` reads it back to the device."""
        if isinstance(file, (str, bytes)) or hasattr(file, "__fspath__"):
            with open(file, "wb") as f:
                pickle.dump(self, f)
        else:
            pickle.dump(self, file)

    def byteswap(self, inplace=False):
        """``numpy.ndarray.byteswap``: the bytes of every element reversed (of each
        part of a complex number, as NumPy): the uint8 view of a C-ordered copy with
        its byte axis flipped, copied (aclnnInplaceCopy on the current stream).
        ``inplace=True`` writes the swapped bits into this array through an
        unsigned-integer view (values are moved as bits, never converted) and
        returns it."""
        npx = _npx()
        unit = self._dtype.itemsize // (2 if self._dtype.kind == "c" else 1)
        parts = self._dtype.itemsize // unit
        source = self if self.is_c_contiguous() else npx.ascontiguousarray(self)
        raw = reinterpreted(source.reshape(-1), np.dtype(np.uint8))
        flipped = npx.ascontiguousarray(npx.flip(raw.reshape(self._shape + (parts, unit)),
                                                 axis=-1))
        if not inplace:
            return reinterpreted(flipped.reshape(-1), self._dtype).reshape(self._shape)
        bits = np.dtype(f"u{unit}")
        target = type(self)._from_buffer(
            self._buffer, self._shape + (parts,), tuple(st * parts for st in self._strides)
            + (1,), self._offset * parts, bits)
        target[...] = reinterpreted(flipped, bits).reshape(self._shape + (parts,))
        return self


def buffer_view(buffer, shape, strides, offset, dtype):
    """A new NPUArray on the device memory ``buffer`` (a runtime ``DeviceBuffer``, or an
    object with its ``ptr``, ``nbytes`` and ``device``, such as memory npuarray does not
    own), no copy: ``shape`` and ``strides`` are tuples of ints (strides in elements,
    non-negative for memory that is not the pool's), ``offset`` the elements from
    ``buffer.ptr`` to the first one, ``dtype`` a NumPy dtype. Nothing is checked: the
    caller guarantees that every element lies inside the buffer."""
    return NPUArray._from_buffer(buffer, shape, strides, offset, dtype)


_array_type.register(NPUArray)
# NPUArray's published slot map: the C fast path builds arrays and reads them through these
# slots, by role (a renamed slot is renamed here too: configure refuses a missing one).
ARRAY_SLOTS = {"buffer": "_buffer", "shape": "_shape", "strides": "_strides",
               "offset": "_offset", "dtype": "_dtype", "acl_tensor": "_acl_tensor"}
_ops.configure_fastpath(NPUArray, ARRAY_SLOTS, _transfer.host_read_hooks)
