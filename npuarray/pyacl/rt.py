"""pyACL's ``acl.rt``: devices, contexts, streams, events, callbacks and memory, over
npuarray's binding (npusim or CANN's libascendcl.so). Each function is the AscendCL call
named in its docstring, with pyACL's argument order; pointers and handles are ints (0 is
NULL: the default stream, no context); functions return ``ret`` or ``(value..., ret)``,
never raise for an ACL failure (read ``acl.get_recent_err_msg()``). Copies and memsets
run on the stream given (0: the current context's default stream); ``*_async`` calls are
ordered on it and complete at ``synchronize_stream``."""
import threading

from .._acl import ffi, lib
from ._call import output, pointer, status, warn_strict_notes
from ._call import size as _size

# ---- devices (aclrtSetDevice ...) ---------------------------------------------------------


def set_device(device_id):
    """ret = acl.rt.set_device(device_id): aclrtSetDevice."""
    return status(lib.aclrtSetDevice, device_id)


def reset_device(device_id):
    """ret = acl.rt.reset_device(device_id): aclrtResetDevice."""
    return status(lib.aclrtResetDevice, device_id)


def reset_device_force(device_id):
    """ret = acl.rt.reset_device_force(device_id): aclrtResetDeviceForce."""
    return status(lib.aclrtResetDeviceForce, device_id)


def get_device():
    """device_id, ret = acl.rt.get_device(): aclrtGetDevice."""
    return output(lib.aclrtGetDevice, "int32_t")


def get_device_count():
    """count, ret = acl.rt.get_device_count(): aclrtGetDeviceCount."""
    return output(lib.aclrtGetDeviceCount, "uint32_t")


def get_run_mode():
    """run_mode, ret = acl.rt.get_run_mode(): aclrtGetRunMode; ACL_DEVICE = 0 (the
    application on the board's CPU), ACL_HOST = 1 (on a host, the NPU a PCIe device)."""
    return output(lib.aclrtGetRunMode, "aclrtRunMode")


def get_soc_name():
    """soc_name = acl.rt.get_soc_name(): aclrtGetSocName (a str; "" when unknown)."""
    name = lib.aclrtGetSocName()
    return "" if name == ffi.NULL else ffi.string(name).decode()


def synchronize_device():
    """ret = acl.rt.synchronize_device(): aclrtSynchronizeDevice (the current device)."""
    return status(lib.aclrtSynchronizeDevice)


def synchronize_device_with_timeout(timeout):
    """ret = acl.rt.synchronize_device_with_timeout(timeout): milliseconds, -1 forever."""
    return status(lib.aclrtSynchronizeDeviceWithTimeout, timeout)


def device_can_access_peer(device_id, peer_device_id):
    """can_access_peer, ret = acl.rt.device_can_access_peer(device_id, peer_device_id):
    aclrtDeviceCanAccessPeer (1: the devices may copy between each other)."""
    box = ffi.new("int32_t *")
    ret = status(lib.aclrtDeviceCanAccessPeer, box, device_id, peer_device_id)
    return (int(box[0]) if ret == 0 else 0), ret


def device_enable_peer_access(peer_device_id, flags):
    """ret = acl.rt.device_enable_peer_access(peer_device_id, flags): the current device
    may access `peer_device_id`'s memory (flags must be 0)."""
    return status(lib.aclrtDeviceEnablePeerAccess, peer_device_id, flags)


def device_disable_peer_access(peer_device_id):
    """ret = acl.rt.device_disable_peer_access(peer_device_id)."""
    return status(lib.aclrtDeviceDisablePeerAccess, peer_device_id)


# ---- contexts -----------------------------------------------------------------------------


def create_context(device_id):
    """context, ret = acl.rt.create_context(device_id): aclrtCreateContext; the new
    context becomes the calling thread's current one."""
    box = ffi.new("aclrtContext *")
    ret = status(lib.aclrtCreateContext, box, device_id)
    return (int(ffi.cast("uintptr_t", box[0])) if ret == 0 else 0), ret


def destroy_context(context):
    """ret = acl.rt.destroy_context(context): aclrtDestroyContext."""
    return status(lib.aclrtDestroyContext, pointer(context, "context"))


def set_context(context):
    """ret = acl.rt.set_context(context): aclrtSetCurrentContext."""
    return status(lib.aclrtSetCurrentContext, pointer(context, "context"))


def get_context():
    """context, ret = acl.rt.get_context(): aclrtGetCurrentContext."""
    return output(lib.aclrtGetCurrentContext, "aclrtContext")


# ---- streams ------------------------------------------------------------------------------


def create_stream():
    """stream, ret = acl.rt.create_stream(): aclrtCreateStream."""
    return output(lib.aclrtCreateStream, "aclrtStream")


def create_stream_with_config(priority, flag):
    """stream, ret = acl.rt.create_stream_with_config(priority, flag):
    aclrtCreateStreamWithConfig."""
    return output(lib.aclrtCreateStreamWithConfig, "aclrtStream", priority, flag)


def destroy_stream(stream):
    """ret = acl.rt.destroy_stream(stream): aclrtDestroyStream (waits for its work)."""
    return status(lib.aclrtDestroyStream, pointer(stream, "stream"))


def destroy_stream_force(stream):
    """ret = acl.rt.destroy_stream_force(stream): aclrtDestroyStreamForce (drops pending work)."""
    return status(lib.aclrtDestroyStreamForce, pointer(stream, "stream"))


def synchronize_stream(stream):
    """ret = acl.rt.synchronize_stream(stream): aclrtSynchronizeStream."""
    return status(lib.aclrtSynchronizeStream, pointer(stream, "stream"))


def synchronize_stream_with_timeout(stream, timeout):
    """ret = acl.rt.synchronize_stream_with_timeout(stream, timeout): milliseconds, -1 forever."""
    return status(lib.aclrtSynchronizeStreamWithTimeout, pointer(stream, "stream"), timeout)


def stream_query(stream):
    """status, ret = acl.rt.stream_query(stream): aclrtStreamQuery
    (0 ACL_STREAM_STATUS_COMPLETE, 1 ACL_STREAM_STATUS_NOT_READY)."""
    box = ffi.new("aclrtStreamStatus *")
    ret = status(lib.aclrtStreamQuery, pointer(stream, "stream"), box)
    return (int(box[0]) if ret == 0 else 0), ret


def stream_wait_event(stream, event):
    """ret = acl.rt.stream_wait_event(stream, event): aclrtStreamWaitEvent."""
    return status(lib.aclrtStreamWaitEvent, pointer(stream, "stream"), pointer(event, "event"))


def set_stream_failure_mode(stream, mode):
    """ret = acl.rt.set_stream_failure_mode(stream, mode): aclrtSetStreamFailureMode."""
    return status(lib.aclrtSetStreamFailureMode, pointer(stream, "stream"), mode)


# ---- events -------------------------------------------------------------------------------


def create_event():
    """event, ret = acl.rt.create_event(): aclrtCreateEvent."""
    return output(lib.aclrtCreateEvent, "aclrtEvent")


def create_event_with_flag(flag):
    """event, ret = acl.rt.create_event_with_flag(flag): aclrtCreateEventWithFlag
    (ACL_EVENT_SYNC 0x1, ACL_EVENT_TIME_LINE 0x8, ...)."""
    return output(lib.aclrtCreateEventWithFlag, "aclrtEvent", flag)


def create_event_ex_with_flag(flag):
    """event, ret = acl.rt.create_event_ex_with_flag(flag): aclrtCreateEventExWithFlag."""
    return output(lib.aclrtCreateEventExWithFlag, "aclrtEvent", flag)


def destroy_event(event):
    """ret = acl.rt.destroy_event(event): aclrtDestroyEvent."""
    return status(lib.aclrtDestroyEvent, pointer(event, "event"))


def record_event(event, stream):
    """ret = acl.rt.record_event(event, stream): aclrtRecordEvent."""
    return status(lib.aclrtRecordEvent, pointer(event, "event"), pointer(stream, "stream"))


def reset_event(event, stream):
    """ret = acl.rt.reset_event(event, stream): aclrtResetEvent."""
    return status(lib.aclrtResetEvent, pointer(event, "event"), pointer(stream, "stream"))


def _event_query(function, ctype, event):
    box = ffi.new(ctype + " *")
    ret = status(function, pointer(event, "event"), box)
    return (int(box[0]) if ret == 0 else 0), ret


def query_event(event):
    """status, ret = acl.rt.query_event(event): aclrtQueryEvent (deprecated by CANN;
    0 ACL_EVENT_STATUS_COMPLETE, 1 ACL_EVENT_STATUS_NOT_READY)."""
    return _event_query(lib.aclrtQueryEvent, "aclrtEventStatus", event)


def query_event_status(event):
    """status, ret = acl.rt.query_event_status(event): aclrtQueryEventStatus
    (0 ACL_EVENT_RECORDED_STATUS_NOT_READY, 1 ACL_EVENT_RECORDED_STATUS_COMPLETE)."""
    return _event_query(lib.aclrtQueryEventStatus, "aclrtEventRecordedStatus", event)


def query_event_wait_status(event):
    """status, ret = acl.rt.query_event_wait_status(event): aclrtQueryEventWaitStatus."""
    return _event_query(lib.aclrtQueryEventWaitStatus, "aclrtEventWaitStatus", event)


def synchronize_event(event):
    """ret = acl.rt.synchronize_event(event): aclrtSynchronizeEvent."""
    return status(lib.aclrtSynchronizeEvent, pointer(event, "event"))


def synchronize_event_with_timeout(event, timeout):
    """ret = acl.rt.synchronize_event_with_timeout(event, timeout): milliseconds."""
    return status(lib.aclrtSynchronizeEventWithTimeout, pointer(event, "event"), timeout)


def event_elapsed_time(start, end):
    """time, ret = acl.rt.event_elapsed_time(start, end): aclrtEventElapsedTime,
    milliseconds (float) between two recorded events."""
    box = ffi.new("float *")
    ret = status(lib.aclrtEventElapsedTime, box, pointer(start, "start"), pointer(end, "end"))
    return (float(box[0]) if ret == 0 else 0.0), ret


# ---- callbacks (aclrtLaunchCallback, served by a thread calling process_report) ------------

# Python callbacks stay alive until they ran: cffi callback -> user function and data.
_callbacks_lock = threading.Lock()
_pending_callbacks = {}


def _run_callback(handle):
    key = int(ffi.cast("uintptr_t", handle))
    with _callbacks_lock:
        fn, user_data = _pending_callbacks.pop(key)
    fn(user_data)


_trampoline = ffi.callback("void(void *)", _run_callback)
_next_key = iter(range(1, 1 << 62))


def launch_callback(callback_func, user_data, block_type, stream):
    """ret = acl.rt.launch_callback(callback_func, user_data, block_type, stream):
    aclrtLaunchCallback; `callback_func(user_data)` runs on the thread subscribed to
    `stream` (subscribe_report) when it calls process_report, after the stream's earlier
    work. block_type 1 (ACL_CALLBACK_BLOCK) holds the stream until it returned."""
    if not callable(callback_func):
        raise TypeError("callback_func must be callable")
    with _callbacks_lock:
        key = next(_next_key)
        _pending_callbacks[key] = (callback_func, user_data)
    ret = status(lib.aclrtLaunchCallback, _trampoline, ffi.cast("void *", key), block_type,
                 pointer(stream, "stream"))
    if ret:
        with _callbacks_lock:
            _pending_callbacks.pop(key, None)
    return ret


def subscribe_report(thread_id, stream):
    """ret = acl.rt.subscribe_report(thread_id, stream): aclrtSubscribeReport; thread_id
    from acl.util.start_thread."""
    return status(lib.aclrtSubscribeReport, thread_id, pointer(stream, "stream"))


def unsubscribe_report(thread_id, stream):
    """ret = acl.rt.unsubscribe_report(thread_id, stream): aclrtUnSubscribeReport."""
    return status(lib.aclrtUnSubscribeReport, thread_id, pointer(stream, "stream"))


def process_report(timeout):
    """ret = acl.rt.process_report(timeout): aclrtProcessReport on the calling (subscribed)
    thread, running the callbacks due; milliseconds, -1 forever."""
    return status(lib.aclrtProcessReport, timeout)


# ---- memory -------------------------------------------------------------------------------


def malloc(size, policy):
    """dev_ptr, ret = acl.rt.malloc(size, policy): aclrtMalloc (size rounded up to 32 plus
    32 bytes; policy ACL_MEM_MALLOC_HUGE_FIRST 0, ...)."""
    return output(lib.aclrtMalloc, "void *", _size(size, "size"), policy)


def malloc_cached(size, policy):
    """dev_ptr, ret = acl.rt.malloc_cached(size, policy): aclrtMallocCached."""
    return output(lib.aclrtMallocCached, "void *", _size(size, "size"), policy)


def malloc_align32(size, policy):
    """dev_ptr, ret = acl.rt.malloc_align32(size, policy): aclrtMallocAlign32 (size rounded
    up to 32, no extra 32 bytes)."""
    return output(lib.aclrtMallocAlign32, "void *", _size(size, "size"), policy)


def mem_flush(dev_ptr, size):
    """ret = acl.rt.mem_flush(dev_ptr, size): aclrtMemFlush (CANN needs no cache
    maintenance; the range must be runtime memory, size > 0)."""
    return status(lib.aclrtMemFlush, pointer(dev_ptr, "dev_ptr"), _size(size, "size"))


def mem_invalidate(dev_ptr, size):
    """ret = acl.rt.mem_invalidate(dev_ptr, size): aclrtMemInvalidate."""
    return status(lib.aclrtMemInvalidate, pointer(dev_ptr, "dev_ptr"), _size(size, "size"))


def free(dev_ptr):
    """ret = acl.rt.free(dev_ptr): aclrtFree (memory from acl.rt.malloc only)."""
    return status(lib.aclrtFree, pointer(dev_ptr, "dev_ptr"))


def malloc_host(size):
    """host_ptr, ret = acl.rt.malloc_host(size): aclrtMallocHost; pinned host memory, or
    device memory when the run mode is ACL_DEVICE."""
    return output(lib.aclrtMallocHost, "void *", _size(size, "size"))


def free_host(host_ptr):
    """ret = acl.rt.free_host(host_ptr): aclrtFreeHost."""
    return status(lib.aclrtFreeHost, pointer(host_ptr, "host_ptr"))


def memset(dev_ptr, max_count, value, count):
    """ret = acl.rt.memset(dev_ptr, max_count, value, count): aclrtMemset (the low byte of
    value in `count` bytes)."""
    return status(lib.aclrtMemset, pointer(dev_ptr, "dev_ptr"), _size(max_count, "max_count"),
                  value, _size(count, "count"))


def memset_async(dev_ptr, max_count, value, count, stream):
    """ret = acl.rt.memset_async(dev_ptr, max_count, value, count, stream): aclrtMemsetAsync."""
    return status(lib.aclrtMemsetAsync, pointer(dev_ptr, "dev_ptr"), _size(max_count, "max_count"),
                  value, _size(count, "count"), pointer(stream, "stream"))


def memcpy(dst, dest_max, src, count, kind):
    """ret = acl.rt.memcpy(dst, dest_max, src, count, kind): aclrtMemcpy (kind
    ACL_MEMCPY_HOST_TO_HOST 0, HOST_TO_DEVICE 1, DEVICE_TO_HOST 2, DEVICE_TO_DEVICE 3,
    DEFAULT 4). Under NPUSIM_STRICT=1 a kind naming the wrong direction, which CANN
    performs, gives a StrictModeWarning."""
    ret = status(lib.aclrtMemcpy, pointer(dst, "dst"), _size(dest_max, "dest_max"),
                 pointer(src, "src"), _size(count, "count"), kind)
    warn_strict_notes()
    return ret


def memcpy_async(dst, dest_max, src, count, kind, stream):
    """ret = acl.rt.memcpy_async(dst, dest_max, src, count, kind, stream): aclrtMemcpyAsync
    (host memory must come from malloc_host; host-to-host is not supported)."""
    ret = status(lib.aclrtMemcpyAsync, pointer(dst, "dst"), _size(dest_max, "dest_max"),
                 pointer(src, "src"), _size(count, "count"), kind, pointer(stream, "stream"))
    warn_strict_notes()
    return ret


def memcpy2d(dst, dpitch, src, spitch, width, height, kind):
    """ret = acl.rt.memcpy2d(dst, dpitch, src, spitch, width, height, kind): aclrtMemcpy2d."""
    return status(lib.aclrtMemcpy2d, pointer(dst, "dst"), _size(dpitch, "dpitch"),
                  pointer(src, "src"), _size(spitch, "spitch"), _size(width, "width"),
                  _size(height, "height"), kind)


def memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream):
    """ret = acl.rt.memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream):
    aclrtMemcpy2dAsync."""
    return status(lib.aclrtMemcpy2dAsync, pointer(dst, "dst"), _size(dpitch, "dpitch"),
                  pointer(src, "src"), _size(spitch, "spitch"), _size(width, "width"),
                  _size(height, "height"), kind, pointer(stream, "stream"))


def get_mem_info(attr):
    """free, total, ret = acl.rt.get_mem_info(attr): aclrtGetMemInfo, bytes of the current
    device (attr ACL_DDR_MEM 0, ACL_HBM_MEM 1, ...)."""
    free_bytes, total = ffi.new("size_t *"), ffi.new("size_t *")
    ret = status(lib.aclrtGetMemInfo, attr, free_bytes, total)
    return (int(free_bytes[0]), int(total[0]), ret) if ret == 0 else (0, 0, ret)
