"""pyACL's ``acl.himpi`` DVPP memory (media processing V2): hi_mpi_dvpp_malloc /
hi_mpi_dvpp_free (libacl_dvpp_mpi.so on CANN). dev_id is reserved: the memory lives on the
current context's device, 128-byte aligned, its size rounded up to a multiple of 32 plus 32
bytes; freed by dvpp_free only. Failures return the media system's hi_s32 codes
(HI_ERR_SYS_NULL_PTR 0xA0028006 ... as a signed 32-bit int)."""
from .._acl import ffi, lib
from ._call import address, pointer, status
from ._call import size as _size


def dvpp_malloc(dev_id, size):
    """dev_ptr, ret = acl.himpi.dvpp_malloc(dev_id, size): hi_mpi_dvpp_malloc."""
    box = ffi.new("void **")
    ret = status(lib.hi_mpi_dvpp_malloc, dev_id, box, _size(size, "size"))
    return (address(box[0]) if ret == 0 else 0), ret


def dvpp_free(dev_ptr):
    """ret = acl.himpi.dvpp_free(dev_ptr): hi_mpi_dvpp_free."""
    return status(lib.hi_mpi_dvpp_free, pointer(dev_ptr, "dev_ptr"))
