"""What NPUArray's NumPy layout attributes return, and views of its bytes as another dtype.

``x.flags`` (``Flags``), ``x.data`` (``MemoryPointer``) and ``x.flat``
(``flatiter``), as ``numpy.ndarray`` and CuPy's ``ndarray`` have them, computed
from a view's shape and strides on the host; ``reinterpreted`` is
``ndarray.view``'s rule for seeing a view's memory as another dtype (no copy).
"""
import numpy as np

from . import _namespace

__all__ = ["Flags", "MemoryPointer", "flatiter", "owns_data", "reinterpreted"]


def _npx():
    # The package namespace (ascontiguousarray): the core takes it from the namespace
    # hand-over when called, never by importing it.
    return _namespace.module


def owns_data(x):
    """Whether ``x`` starts its buffer, spans all of it and is C-contiguous."""
    return (x._offset == 0 and x.is_c_contiguous()
            and x.size * x._dtype.itemsize == x._buffer.nbytes)


def reinterpreted(x, dtype):
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
        self.owndata = owns_data(x)
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
