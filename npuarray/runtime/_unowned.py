"""UnownedMemory: device memory npuarray did not allocate (from acl.rt.malloc, a C library,
another framework), shared by arrays without a copy; CuPy's cupy.cuda.UnownedMemory."""
import operator

from .._acl import InvalidValueError, check, ffi, lib
from ._device import Device, activate, as_device_id
from ._memory_pool import DeviceBuffer

ACL_ERROR_RT_PARAM_INVALID = 107000


class UnownedMemory(DeviceBuffer):
    """`nbytes` bytes of device memory at address `ptr` (an int) on `device` (default: the
    current device), owned elsewhere: npuarray never frees it; `owner` (any object) is kept
    alive as long as this object, for memory whose lifetime an object manages. Arrays over
    it order their work by stream like any array's (the buffer's ``prepare``); freeing the
    memory while such work is pending is the owner's error, as in CuPy.

    Raises InvalidValueError (ACL 107000) when `ptr` is not device memory of `device`
    (aclrtPointerGetAttributes), ValueError for a negative size, TypeError for a non-int.
    """
    __slots__ = ("owner",)

    def __init__(self, ptr, nbytes, owner=None, device=None):
        ptr, nbytes = operator.index(ptr), operator.index(nbytes)
        if nbytes < 0:
            raise ValueError("nbytes must be >= 0, got %d" % nbytes)
        device_id = as_device_id(device)
        if nbytes:
            _check_device_pointer(ptr, device_id)
        self.ptr = ptr
        self.nbytes = nbytes
        self.device = Device(device_id)
        self.owner = owner
        self._pool = None
        self._size = nbytes
        self._stream = None
        self._others = None

    def __del__(self):
        pass   # the owner frees the memory

    def __repr__(self):
        return (f"<UnownedMemory ptr=0x{self.ptr:x} nbytes={self.nbytes} "
                f"device={self.device!r} owner={type(self.owner).__name__}>")


def _check_device_pointer(ptr, device_id):
    if ptr <= 0 or ptr >= 1 << 64:
        raise InvalidValueError(ACL_ERROR_RT_PARAM_INVALID, "UnownedMemory",
                                "ptr 0x%x is not a device address" % ptr)
    activate(device_id)
    attributes = ffi.new("aclrtPtrAttributes *")
    check(lib.aclrtPointerGetAttributes(ffi.cast("void *", ptr), attributes),
          "aclrtPointerGetAttributes")
    location = attributes.location
    if location.type != lib.ACL_MEM_LOCATION_TYPE_DEVICE or location.id != device_id:
        where = ("memory of device %d" % location.id
                 if location.type == lib.ACL_MEM_LOCATION_TYPE_DEVICE else "host memory")
        raise InvalidValueError(ACL_ERROR_RT_PARAM_INVALID, "UnownedMemory",
                                "ptr 0x%x is %s, not device memory of device %d"
                                % (ptr, where, device_id))
