"""NumPy's ndarray methods that the array API standard does not have, for NPUArray.

Code written for NumPy (scikit-learn, SciPy, Dask's chunk functions) calls
``x.std(ddof=1)``, ``x.take(indices)``, ``x.sort()``, ``x.real`` ... on arrays.
Each method here has ``numpy.ndarray``'s signature and semantics (in-place
``sort``/``partition``/``put``, flattening when ``axis`` is None for ``take``,
``argsort``, ``cumsum``, ``ddof`` for ``std``/``var``) and runs npuarray's
function of the same name on the current stream of the array's device; see
that function for the aclnn operators behind it. ``out=`` takes an NPUArray of
the result's shape. Arguments NumPy has but a device cannot honour raise:
``order=`` (structured dtypes) ValueError, ``mode=`` other than NumPy's
default ValueError.
"""
import operator
import pickle

import numpy as np

from . import _namespace

__all__ = ["flatiter"]  # x.flat's type (numpy.flatiter); NPUArray inherits NDArrayMethods


def _npx():
    # The package namespace (NumPy's names): it is built on the core, which therefore
    # takes it from the namespace hand-over when called, never by importing it.
    return _namespace.module


def into_out(result, out):
    """``result``, or the NPUArray ``out`` after ``out[...] = result`` (NumPy's
    ``out=``; ValueError when the shapes differ, TypeError for host arrays)."""
    if out is None:
        return result
    if not isinstance(out, NDArrayMethods):
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
    npx = _npx()
    if isinstance(indices, npx.NPUArray):
        return indices
    return npx.asarray(indices, dtype=npx.int64, device=x.device)


class NDArrayMethods:
    """Mixin of NPUArray: ``numpy.ndarray``'s methods outside the array API."""
    __slots__ = ()

    # -- reductions --------------------------------------------------------------------------
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
        if _owns_data(self):
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
        npuarray_type = builtins_type(self)
        if isinstance(dtype, builtins_type(npuarray_type)) and issubclass(dtype, npuarray_type):
            dtype, type = None, dtype
        if type is not None and not (isinstance(type, builtins_type(npuarray_type))
                                     and issubclass(type, npuarray_type)):
            raise TypeError(f"view: type must be NPUArray, got {type!r}")
        if dtype is None:
            return self._view(self._shape, self._strides, self._offset)
        return _reinterpreted(self, np.dtype(dtype))

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
        raw = _reinterpreted(source.reshape(-1), np.dtype(np.uint8))
        flipped = npx.ascontiguousarray(npx.flip(raw.reshape(self._shape + (parts, unit)),
                                                 axis=-1))
        if not inplace:
            return _reinterpreted(flipped.reshape(-1), self._dtype).reshape(self._shape)
        bits = np.dtype(f"u{unit}")
        target = type(self)._from_buffer(
            self._buffer, self._shape + (parts,), tuple(st * parts for st in self._strides)
            + (1,), self._offset * parts, bits)
        target[...] = _reinterpreted(flipped, bits).reshape(self._shape + (parts,))
        return self


def builtins_type(x):
    """``type(x)`` (``view`` shadows ``type`` with NumPy's argument)."""
    return type(x)


def _owns_data(x):
    """Whether ``x`` starts its buffer, spans all of it and is C-contiguous."""
    return (x._offset == 0 and x.is_c_contiguous()
            and x.size * x._dtype.itemsize == x._buffer.nbytes)


def _reinterpreted(x, dtype):
    """``x``'s memory as ``dtype`` (a view): the last axis rescaled when the item
    sizes differ (NumPy's rules for ``ndarray.view``)."""
    old, new = x._dtype.itemsize, dtype.itemsize
    if old == new:
        return type(x)._from_buffer(x._buffer, x._shape, x._strides, x._offset, dtype)
    if x.ndim == 0:
        raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize "
                         "is unchanged")
    if x._shape[-1] != 1 and x._strides[-1] != 1:
        raise ValueError("To change to a dtype of a different size, the last axis must be "
                         "contiguous")
    last_bytes = x._shape[-1] * old
    if last_bytes % new:
        raise ValueError("When changing to a larger dtype, its size must be a divisor of the "
                         "total size in bytes of the last axis of the array.")
    byte_strides = [s * old for s in x._strides[:-1]]
    if x._offset * old % new or any(s % new for s in byte_strides):
        raise ValueError("view: the array's offset and strides are not multiples of the new "
                         "item size")
    shape = x._shape[:-1] + (last_bytes // new,)
    strides = tuple(s // new for s in byte_strides) + (1,)
    return type(x)._from_buffer(x._buffer, shape, strides, x._offset * old // new, dtype)


def _contiguous(shape, byte_strides, itemsize, order):
    if 0 in shape:
        return True
    expected = itemsize
    pairs = zip(shape, byte_strides)
    for n, s in (reversed(list(pairs)) if order == "C" else pairs):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


class Flags:
    """The layout flags of an NPUArray (``numpy.ndarray.flags``, CuPy's ``Flags``):
    attributes ``c_contiguous``, ``f_contiguous``, ``owndata``, ``writeable``,
    ``aligned``, ``writebackifcopy`` and NumPy's combined ``forc``, ``fnc``,
    ``behaved``, ``carray``, ``farray``; also indexable by NumPy's names
    (``flags["C_CONTIGUOUS"]``, ``flags["C"]``). Read-only."""

    _KEYS = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "c_contiguous",
             "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "FORTRAN": "f_contiguous",
             "OWNDATA": "owndata", "O": "owndata", "WRITEABLE": "writeable", "W": "writeable",
             "ALIGNED": "aligned", "A": "aligned", "WRITEBACKIFCOPY": "writebackifcopy",
             "X": "writebackifcopy", "FORC": "forc", "FNC": "fnc", "BEHAVED": "behaved",
             "B": "behaved", "CARRAY": "carray", "CA": "carray", "FARRAY": "farray",
             "FA": "farray"}

    def __init__(self, x):
        itemsize = x._dtype.itemsize
        byte_strides = [s * itemsize for s in x._strides]
        self.c_contiguous = _contiguous(x._shape, byte_strides, itemsize, "C")
        self.f_contiguous = _contiguous(x._shape, byte_strides, itemsize, "F")
        self.owndata = _owns_data(x)
        self.writeable = not any(s == 0 and n > 1 for n, s in zip(x._shape, x._strides))
        self.aligned = True            # device allocations and element offsets are aligned
        self.writebackifcopy = False

    forc = property(lambda self: self.c_contiguous or self.f_contiguous)
    fnc = property(lambda self: self.f_contiguous and not self.c_contiguous)
    behaved = property(lambda self: self.aligned and self.writeable)
    carray = property(lambda self: self.behaved and self.c_contiguous)
    # NumPy tests FARRAY as "any of ALIGNED, WRITEABLE, F_CONTIGUOUS, and not C_CONTIGUOUS"
    # (a bit-mask test in numpy/_core/src/multiarray/flagsobject.c); mirrored as it is.
    farray = property(lambda self: (self.behaved or self.f_contiguous) and not self.c_contiguous)

    def __getitem__(self, key):
        try:
            return getattr(self, self._KEYS[key.upper()])
        except (KeyError, AttributeError):
            raise KeyError(f"Unknown flag {key!r}") from None

    def __repr__(self):
        names = ("C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "ALIGNED",
                 "WRITEBACKIFCOPY")
        return "\n".join(f"  {name} : {self[name]}" for name in names)


class MemoryPointer:
    """A device address inside a device buffer (CuPy's ``MemoryPointer``): ``mem``
    the ``DeviceBuffer``, ``ptr`` the address (int), ``device`` its device."""
    __slots__ = ("mem", "ptr", "device")

    def __init__(self, mem, byte_offset):
        self.mem = mem
        self.ptr = mem.ptr + byte_offset
        self.device = mem.device

    def __int__(self):
        return self.ptr

    def __repr__(self):
        return f"<MemoryPointer 0x{self.ptr:x} on {self.device}>"


class flatiter:  # noqa: N801  NumPy's and CuPy's name
    """A flat (C-order) view of an NPUArray (``numpy.flatiter``, ``x.flat``):
    ``flat[key]`` reads the elements at ``key`` of the flattened array (a view
    when the array is C-contiguous, else of a C-ordered copy; aclnnInplaceCopy),
    ``flat[key] = value`` writes them into the array (aclnnIndexPutImpl or a
    fill on the current stream), iteration yields 0-d device arrays.
    ``base`` is the array; ``copy()`` a flattened copy."""

    def __init__(self, base):
        self.base = base
        self._index = 0

    def _flat(self):
        x = self.base
        return x.reshape(-1) if x.is_c_contiguous() else _npx().ascontiguousarray(x).reshape(-1)

    def __getitem__(self, key):
        return self._flat()[_host_key(key)]

    def __setitem__(self, key, value):
        x = self.base
        key = _host_key(key)
        if x.is_c_contiguous():
            x.reshape(-1)[key] = value
            return
        scratch = _npx().ascontiguousarray(x).copy()
        scratch.reshape(-1)[key] = value
        x[...] = scratch

    def __len__(self):
        return self.base.size

    def __iter__(self):
        flat = self._flat()
        return (flat[i] for i in range(flat.shape[0]))

    def copy(self):
        """The flattened array, a new C-contiguous copy (``numpy.flatiter.copy``)."""
        return self._flat().copy()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._flat(), dtype=dtype)


def _host_key(key):
    """``key`` with lists turned into NumPy arrays (a list indexes one axis, as a
    flat index does)."""
    return np.asarray(key) if isinstance(key, list) else key
