"""npuarray.from_device_pointer: an NPUArray over device memory given by its address (from
pyACL's acl.rt.malloc, acl.media.dvpp_malloc, a C library), without a copy. An array's own
address is ``x.data_ptr``."""
import operator

import numpy as np

from ._core._array import buffer_view
from ._core._data_type import normalize_dtype
from .runtime._unowned import UnownedMemory

__all__ = ["UnownedMemory", "from_device_pointer"]


def from_device_pointer(ptr, shape, dtype, *, device=None, owner=None):
    """A C-contiguous NPUArray of `shape` and `dtype` whose data is the device memory at
    `ptr` (an int address, or an UnownedMemory), with no copy: writes through the array
    change that memory and the reverse. The memory stays its owner's: npuarray never frees
    it, and `owner` (e.g. an object whose finaliser frees it) is kept alive as long as the
    array and its views. `device` (default: the current device) must be where the memory
    lives; ``ptr.device`` when `ptr` is an UnownedMemory.

    Raises InvalidValueError (ACL 107000) when `ptr` is not device memory of that device,
    ValueError for a negative dimension or when the shape needs more bytes than an
    UnownedMemory holds, TypeError for a non-integer address or dimension. Mirrors CuPy's
    ``cupy.ndarray(shape, dtype, memptr=MemoryPointer(UnownedMemory(...), 0))``.
    """
    dtype = normalize_dtype(dtype)
    shape = (operator.index(shape),) if np.ndim(shape) == 0 else tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed: %s" % (shape,))
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if isinstance(ptr, UnownedMemory):
        memory = ptr
        if nbytes > memory.nbytes:
            raise ValueError("shape %s of %s needs %d bytes; the memory holds %d"
                             % (shape, dtype, nbytes, memory.nbytes))
    else:
        memory = UnownedMemory(ptr, nbytes, owner=owner, device=device)
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return buffer_view(memory, shape, tuple(reversed(strides)), 0, dtype)
