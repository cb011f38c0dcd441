"""The cffi binding to the AscendCL ABI: ``ffi``, ``lib``, ``check`` and the ACL exceptions.

``lib`` holds every runtime and aclnn function of the cdef with CANN's exact
signatures, from whichever provider the loader chose (``backend()``); calls
release the GIL. Every non-zero status should go through ``check``.
"""
from ._errors import (AclError, CaptureError, InvalidValueError, NotSupportedError,
                      OutOfMemoryError, error_name, make_error)
from ._loader import Backend, BackendError, load

_backend, ffi, lib = load()


def backend():
    """The loaded provider: a Backend with ``name`` ("npusim" | "cann"), ``library``
    (paths of the shared objects), ``version`` ((major, minor, patch) from
    aclrtGetVersion) and ``reason`` (why it was chosen)."""
    return _backend


def available(name):
    """Whether the loaded provider implements the ACL function `name`."""
    return not getattr(getattr(lib, name), "npuarray_unavailable", False)


def recent_error_message():
    """aclGetRecentErrMsg of the calling thread (which clears it), or ""."""
    text = lib.aclGetRecentErrMsg()
    if text == ffi.NULL:
        return ""
    return ffi.string(text).decode("utf-8", "replace")


def check(ret, api_name):
    """Raises the AclError subclass for a non-zero aclError / aclnnStatus `ret` of `api_name`.

    The exception carries the code, its ACL name, and the thread's recent error
    message from the runtime (aclGetRecentErrMsg).
    """
    if ret:
        raise make_error(ret, api_name, recent_error_message())


__all__ = ["AclError", "Backend", "BackendError", "CaptureError", "InvalidValueError",
           "NotSupportedError", "OutOfMemoryError", "available", "backend", "check", "error_name", "ffi",
           "lib", "make_error", "recent_error_message"]
