"""pyACL's ``acl.media`` DVPP memory: acldvppMalloc / acldvppFree (libacl_dvpp.so on CANN).
The memory lives on the current context's device, 128-byte aligned, its size rounded up
to a multiple of 32 plus 32 bytes; it is freed by dvpp_free only."""
from .._acl import lib
from ._call import output, pointer, status
from ._call import size as _size


def dvpp_malloc(size):
    """dev_ptr, ret = acl.media.dvpp_malloc(size): acldvppMalloc."""
    return output(lib.acldvppMalloc, "void *", _size(size, "size"))


def dvpp_free(dev_ptr):
    """ret = acl.media.dvpp_free(dev_ptr): acldvppFree."""
    return status(lib.acldvppFree, pointer(dev_ptr, "dev_ptr"))
