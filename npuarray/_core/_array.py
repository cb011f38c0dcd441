"""NPUArray: an n-dimensional array in device memory.

An NPUArray is a view: a ``DeviceBuffer`` from the memory pool (shared by all
views of it) plus shape, strides (in elements), offset (elements from the
buffer start) and dtype. Slicing makes views; operators return new arrays;
nothing is copied to the host unless asked (``to_host``, ``asnumpy``) or
implied by a Python protocol (``__array__``, ``__bool__``, ``__float__``, ...),
which ``npuarray.transfer_guard`` can forbid.

Operators delegate by array API name to the operator modules (``x + y`` is
``npuarray.add(x, y)``), which launch aclnn operators on the current stream.
NumPy calls on NPUArrays (``numpy.exp(x)``, ``numpy.sum(x)``) run on the device
where npuarray implements them; other NumPy functions read the arrays through
``__array__`` (an implicit transfer) and return NumPy results.
"""
__all__ = ["NPUArray"]

from . import _namespace
from ._ndarray_methods import NDArrayMethods, into_out
from ._shape import is_c_contiguous

# Published versions of the array API standard that __array_namespace__ accepts.
_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


class NPUArray(NDArrayMethods):
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

    # -- arithmetic (aclnn operators, see npuarray._core._elementwise) -------------------------------
    # x + y, x - y, x * y, x / y and the six comparisons are bound at the end of this module
    # to their element-wise plans (``_bind_binary_operators``).
    def __radd__(self, other):
        return _elementwise.add(other, self)

    def __iadd__(self, other):
        _elementwise.inplace("add", self, other)
        return self

    def __rsub__(self, other):
        return _elementwise.subtract(other, self)

    def __isub__(self, other):
        _elementwise.inplace("subtract", self, other)
        return self

    def __rmul__(self, other):
        return _elementwise.multiply(other, self)

    def __imul__(self, other):
        _elementwise.inplace("multiply", self, other)
        return self

    def __rtruediv__(self, other):
        return _elementwise.divide(other, self)

    def __itruediv__(self, other):
        _elementwise.inplace("divide", self, other)
        return self

    def __floordiv__(self, other):
        return _elementwise.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return _elementwise.floor_divide(other, self)

    def __ifloordiv__(self, other):
        _elementwise.inplace("floor_divide", self, other)
        return self

    def __mod__(self, other):
        return _elementwise.remainder(self, other)

    def __rmod__(self, other):
        return _elementwise.remainder(other, self)

    def __imod__(self, other):
        _elementwise.inplace("remainder", self, other)
        return self

    def __pow__(self, other):
        return _elementwise.pow(self, other)

    def __rpow__(self, other):
        return _elementwise.pow(other, self)

    def __ipow__(self, other):
        _elementwise.inplace("pow", self, other)
        return self

    def __matmul__(self, other):
        return _linear_algebra.matmul(self, other)

    def __rmatmul__(self, other):
        return _linear_algebra.matmul(other, self)

    def __imatmul__(self, other):
        _elementwise.inplace("matmul", self, other)
        return self

    def __neg__(self):
        return _elementwise.negative(self)

    def __pos__(self):
        return _elementwise.positive(self)

    def __abs__(self):
        return _elementwise.abs(self)

    # -- bitwise (aclnnBitwise*, aclnnLeftShift / aclnnRightShift, see npuarray._core._elementwise) ----
    def __and__(self, other):
        return _elementwise.bitwise_and(self, other)

    def __rand__(self, other):
        return _elementwise.bitwise_and(other, self)

    def __iand__(self, other):
        _elementwise.inplace("bitwise_and", self, other)
        return self

    def __or__(self, other):
        return _elementwise.bitwise_or(self, other)

    def __ror__(self, other):
        return _elementwise.bitwise_or(other, self)

    def __ior__(self, other):
        _elementwise.inplace("bitwise_or", self, other)
        return self

    def __xor__(self, other):
        return _elementwise.bitwise_xor(self, other)

    def __rxor__(self, other):
        return _elementwise.bitwise_xor(other, self)

    def __ixor__(self, other):
        _elementwise.inplace("bitwise_xor", self, other)
        return self

    def __lshift__(self, other):
        return _elementwise.bitwise_left_shift(self, other)

    def __rlshift__(self, other):
        return _elementwise.bitwise_left_shift(other, self)

    def __ilshift__(self, other):
        _elementwise.inplace("bitwise_left_shift", self, other)
        return self

    def __rshift__(self, other):
        return _elementwise.bitwise_right_shift(self, other)

    def __rrshift__(self, other):
        return _elementwise.bitwise_right_shift(other, self)

    def __irshift__(self, other):
        _elementwise.inplace("bitwise_right_shift", self, other)
        return self

    def __invert__(self):
        return _elementwise.bitwise_invert(self)

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

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        """``npuarray.sum`` (aclnnReduceSum); ``out``: an NPUArray to write to."""
        return into_out(_statistical.sum(self, axis=axis, dtype=dtype, keepdims=keepdims), out)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """``npuarray.mean`` (aclnnMean), then cast to ``dtype`` when given."""
        result = _statistical.mean(self, axis=axis, keepdims=keepdims)
        return into_out(result if dtype is None else result.astype(dtype), out)

    def max(self, axis=None, out=None, keepdims=False):
        """``npuarray.max`` (aclnnAmax)."""
        return into_out(_statistical.max(self, axis=axis, keepdims=keepdims), out)

    def min(self, axis=None, out=None, keepdims=False):
        """``npuarray.min`` (aclnnAmin)."""
        return into_out(_statistical.min(self, axis=axis, keepdims=keepdims), out)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        """``npuarray.argmax`` (aclnnArgMax)."""
        return into_out(_searching.argmax(self, axis=axis, keepdims=keepdims), out)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        """``npuarray.argmin`` (aclnnArgMin)."""
        return into_out(_searching.argmin(self, axis=axis, keepdims=keepdims), out)


# The operator modules import NPUArray from here; they are bound after the class
# exists so that either import order works.
from . import _indexing, _manipulation, _transfer  # noqa: E402
from . import _elementwise, _linear_algebra
from . import _ops, _searching, _statistical  # noqa: E402

# The operators whose array API function is its plan alone call the plan's __call__
# directly: one Python frame per ``x + y`` instead of three (small operations are
# bound by host overhead). Same semantics as ``npuarray.add(self, other)`` etc.
_PLAIN_BINARY_OPERATORS = {
    "__add__": "add", "__sub__": "subtract", "__mul__": "multiply", "__truediv__": "divide",
    "__eq__": "equal", "__ne__": "not_equal", "__lt__": "less", "__le__": "less_equal",
    "__gt__": "greater", "__ge__": "greater_equal"}


# The other binary operators, which return NotImplemented for another library's array
# (``_elementwise.defers_to``) so that Python asks it, as NumPy's operators do.
_DEFERRING_OPERATORS = (
    "__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__floordiv__", "__rfloordiv__",
    "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__",
    "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__",
    "__lshift__", "__rlshift__", "__rshift__", "__rrshift__")


# Operand types that never defer: the common case (2.0 * x) pays one set lookup.
_NEVER_DEFERS_TO = frozenset({NPUArray, float, int, bool, complex})


def _deferring(method):
    def operator(self, other):
        if type(other) not in _NEVER_DEFERS_TO and _elementwise.defers_to(other):
            return NotImplemented
        return method(self, other)
    operator.__name__ = operator.__qualname__ = method.__name__
    operator.__doc__ = method.__doc__
    return operator


# Reflected and in-place operators whose common case also runs in C (2.0 - x, x += y).
_REFLECTED_OPERATORS = {"__radd__": "add", "__rsub__": "subtract", "__rmul__": "multiply",
                        "__rtruediv__": "divide"}
_IN_PLACE_OPERATORS = {"__iadd__": "add", "__isub__": "subtract", "__imul__": "multiply",
                       "__itruediv__": "divide"}


def _bind_binary_operators():
    for dunder, name in _PLAIN_BINARY_OPERATORS.items():
        setattr(NPUArray, dunder, _elementwise.binary_operator(name))
    for dunder in _DEFERRING_OPERATORS:
        setattr(NPUArray, dunder, _deferring(getattr(NPUArray, dunder)))
    for dunder, name in _REFLECTED_OPERATORS.items():
        setattr(NPUArray, dunder, _elementwise.reflected_operator(name, getattr(NPUArray, dunder)))
    for dunder, name in _IN_PLACE_OPERATORS.items():
        setattr(NPUArray, dunder, _elementwise.inplace_operator(name, getattr(NPUArray, dunder)))
    for dunder, mode in (("__pow__", "forward"), ("__rpow__", "reflected")):
        setattr(NPUArray, dunder, _elementwise.scalar_operator("pow", getattr(NPUArray, dunder),
                                                               mode))


_bind_binary_operators()
_ops.configure_fastpath(NPUArray)
