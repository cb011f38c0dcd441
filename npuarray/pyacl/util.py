"""pyACL's ``acl.util``: moving data between Python objects and raw memory addresses, and
the threads that serve callbacks (acl.rt.subscribe_report / process_report). Addresses are
ints; nothing here calls the runtime."""
import threading
import weakref

import numpy as np

from .._acl import ffi
from ._call import address, pointer
from ._call import size as _size

# NumPy type numbers (NPY_BOOL 0, NPY_INT8 1, ..., NPY_FLOAT32 11, NPY_DOUBLE 12,
# NPY_HALF 23) -> dtype, as pyACL's ptr_to_numpy takes them.
_NPY_TYPES = {np.dtype(code).num: np.dtype(code) for code in np.typecodes["All"]
              if code not in "OSUVMm"}
_threads = {}
_threads_lock = threading.Lock()


def bytes_to_ptr(data):
    """ptr = acl.util.bytes_to_ptr(data): the address of the storage of a ``bytes`` (or
    other buffer) object, without a copy; valid while `data` lives. Copies into it change
    `data` in place, as pyACL's do."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("bytes_to_ptr takes bytes, got %s" % type(data).__name__)
    return address(ffi.from_buffer(data))


def ptr_to_bytes(ptr, size):
    """bytes_out = acl.util.ptr_to_bytes(ptr, size): a copy of `size` bytes at `ptr`."""
    return ffi.buffer(ffi.cast("char *", pointer(ptr, "ptr")), _size(size, "size"))[:]


def numpy_to_ptr(data):
    """ptr = acl.util.numpy_to_ptr(data): the address of an ndarray's data (no copy);
    ValueError for a non-contiguous array (copies read contiguous bytes: use
    numpy_contiguous_to_ptr)."""
    if not isinstance(data, np.ndarray):
        raise TypeError("numpy_to_ptr takes a numpy.ndarray, got %s" % type(data).__name__)
    if not data.flags.c_contiguous:
        raise ValueError("The input ndarray is discontiguous. Please use "
                         "acl.util.numpy_contiguous_to_ptr instead.")
    return data.ctypes.data


def numpy_contiguous_to_ptr(data):
    """ptr = acl.util.numpy_contiguous_to_ptr(data): the address of the array's data in C
    order: its own when it is C-contiguous, else of a contiguous copy kept as long as
    `data` lives (writes to it do not reach `data`)."""
    if not isinstance(data, np.ndarray):
        raise TypeError("numpy_contiguous_to_ptr takes a numpy.ndarray, got %s" % type(data).__name__)
    if data.flags.c_contiguous:
        return data.ctypes.data
    copy = np.ascontiguousarray(data)
    weakref.finalize(data, _drop, copy)   # holds the copy until `data` is collected
    return copy.ctypes.data


def _drop(copy):
    del copy


def ptr_to_numpy(ptr, shape, type):  # noqa: A002 - pyACL's parameter name
    """output = acl.util.ptr_to_numpy(ptr, shape, type): an ndarray of `shape` viewing the
    memory at `ptr` (no copy); `type` is a NumPy type number (NPY_INT32 5, NPY_FLOAT32 11,
    NPY_FLOAT16 23, ...)."""
    dtype = _NPY_TYPES.get(type)
    if dtype is None:
        raise ValueError("type %r is not a NumPy type number" % (type,))
    shape = tuple(int(n) for n in shape)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    buffer = ffi.buffer(ffi.cast("char *", pointer(ptr, "ptr")), count * dtype.itemsize)
    return np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape)


def start_thread(thr_func, args_list):
    """thr_id, ret = acl.util.start_thread(thr_func, args_list): runs
    ``thr_func(args_list)`` on a new thread; thr_id is that thread's id as the runtime
    knows it (for acl.rt.subscribe_report). The thread has no context: call
    acl.rt.set_context in it."""
    if not callable(thr_func):
        raise TypeError("thr_func must be callable")
    started = threading.Event()
    thread = threading.Thread(target=_thread_main, args=(thr_func, args_list, started),
                              daemon=True)
    thread.start()
    started.wait()
    with _threads_lock:
        _threads[thread.ident] = thread
    return thread.ident, 0


def _thread_main(thr_func, args_list, started):
    started.set()
    thr_func(args_list)


def stop_thread(thr_id):
    """ret = acl.util.stop_thread(thr_id): waits for a start_thread thread to return;
    ValueError for an id start_thread did not give."""
    with _threads_lock:
        thread = _threads.pop(thr_id, None)
    if thread is None:
        raise ValueError("thread %r was not started by acl.util.start_thread" % (thr_id,))
    thread.join()
    return 0
