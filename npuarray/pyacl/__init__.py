"""pyACL, Huawei's Python API to AscendCL, over npuarray's binding (npusim or CANN).

``import npuarray.pyacl as acl`` gives pyACL's names, argument orders and conventions:
``acl.init()``, ``acl.rt.malloc(size, policy) -> (dev_ptr, ret)``, ``acl.util.bytes_to_ptr``,
``acl.media.dvpp_malloc``, ``acl.himpi.dvpp_malloc``... Pointers and handles are ints;
every call returns ``ret`` (0 on success) or ``(value..., ret)`` and never raises for an
ACL failure (``acl.get_recent_err_msg()`` tells why). ``python -m npuarray.pyacl
SCRIPT [ARGS]`` runs a pyACL program unchanged, its ``import acl`` served by this package
(only inside that process; a plain ``import acl`` elsewhere stays CANN's own).

The runtime is shared with npuarray, which initialises it when imported: ``acl.init()``
then succeeds once (a second call returns ACL_ERROR_REPEAT_INITIALIZE, as in CANN), and
``acl.finalize()`` finalises it for the whole process (npuarray arrays are unusable after).
To wrap device memory allocated here into an array without a copy, use
``npuarray.from_device_pointer``; an array's address is ``x.data_ptr``.
"""
import os
import threading

from .._acl import ffi, lib
from . import himpi, media, rt, util
from ._call import StrictModeWarning

# pyACL programs define these themselves; they are CANN's values (acl/acl_rt.h, acl_base.h).
ACL_SUCCESS = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_INVALID_FILE = 100003
ACL_DEVICE, ACL_HOST = 0, 1
ACL_MEMCPY_HOST_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE = 0, 1
ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_DEFAULT = 2, 3, 4
ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY = 0, 1, 2
ACL_DDR_MEM, ACL_HBM_MEM = 0, 1
ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE = 0x1, 0x8
ACL_CALLBACK_NO_BLOCK, ACL_CALLBACK_BLOCK = 0, 1

_lock = threading.Lock()
_initialized = [False]


def init(config_path=None):
    """ret = acl.init(config_path=None): aclInit. npuarray's binding already initialised
    the runtime, so the first call only checks `config_path` (ACL_ERROR_INVALID_FILE when
    it is not a readable file); a second call returns ACL_ERROR_REPEAT_INITIALIZE."""
    with _lock:
        if _initialized[0]:
            return ACL_ERROR_REPEAT_INITIALIZE
        path = ffi.NULL if not config_path else os.fsencode(config_path)
        ret = int(lib.aclInit(path))
        if ret == ACL_ERROR_REPEAT_INITIALIZE:   # the binding's aclInit of this process
            ret = ACL_SUCCESS
            if config_path and not os.access(config_path, os.R_OK):
                ret = ACL_ERROR_INVALID_FILE
        _initialized[0] = ret == ACL_SUCCESS
        return ret


def finalize():
    """ret = acl.finalize(): aclFinalize, for the whole process."""
    with _lock:
        ret = int(lib.aclFinalize())
        if ret == ACL_SUCCESS:
            _initialized[0] = False
        return ret


def get_recent_err_msg():
    """err_msg = acl.get_recent_err_msg(): aclGetRecentErrMsg of the calling thread (str,
    "" when there is none); reading it clears it."""
    text = lib.aclGetRecentErrMsg()
    return "" if text == ffi.NULL else ffi.string(text).decode("utf-8", "replace")


def get_version():
    """major_version, minor_version, patch_version, ret = acl.get_version(): aclrtGetVersion."""
    major, minor, patch = ffi.new("int32_t *"), ffi.new("int32_t *"), ffi.new("int32_t *")
    ret = int(lib.aclrtGetVersion(major, minor, patch))
    if ret:
        return 0, 0, 0, ret
    return int(major[0]), int(minor[0]), int(patch[0]), ret


__all__ = ["StrictModeWarning", "finalize", "get_recent_err_msg", "get_version", "himpi",
           "init", "media", "rt", "util"]
