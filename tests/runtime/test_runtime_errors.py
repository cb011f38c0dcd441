"""Bad input: each case asserts the exception type and the ACL code, through the raw binding
(the provider's own checks) and through the Python objects. Nothing crashes or hangs."""
import numpy as np
import pytest

import npuarray as npx
from npuarray._acl import check, ffi, lib

SIZE = 4096


def raises_code(exc_type, code):
    """pytest.raises for `exc_type` whose ACL code is `code` (checked on exit)."""
    class Checker:
        def __enter__(self):
            self.ctx = pytest.raises(exc_type)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self.ctx.__exit__(*exc)
            assert self.info.value.code == code, self.info.value
            assert self.info.value.name == npx._acl.error_name(code)
            return handled
    return Checker()


def acl(api, *args):
    check(getattr(lib, api)(*args), api)


def new_ptr(allocate, nbytes):
    ptr = ffi.new("void **")
    if allocate == "aclrtMalloc":
        acl(allocate, ptr, nbytes, lib.ACL_MEM_MALLOC_HUGE_FIRST)
    else:
        acl(allocate, ptr, nbytes)
    return ptr[0]


@pytest.fixture
def device0(in_fresh_thread):
    """Runs a body on a fresh thread with device 0 set (raw ACL state stays off the main thread)."""
    def run(body):
        def wrapped():
            acl("aclrtSetDevice", 0)
            return body()
        return in_fresh_thread(wrapped)
    return run


# -- raw binding ---------------------------------------------------------------------------

def test_async_host_to_host_is_not_supported(device0):
    def body():
        a, b = new_ptr("aclrtMallocHost", SIZE), new_ptr("aclrtMallocHost", SIZE)
        stream = ffi.new("aclrtStream *")
        acl("aclrtCreateStream", stream)
        with raises_code(npx.NotSupportedError, 207000):
            acl("aclrtMemcpyAsync", b, SIZE, a, SIZE, lib.ACL_MEMCPY_HOST_TO_HOST, stream[0])
        acl("aclrtDestroyStream", stream[0])
        acl("aclrtFreeHost", a)
        acl("aclrtFreeHost", b)
    device0(body)


def test_count_larger_than_dest_max(device0):
    def body():
        host, dev = new_ptr("aclrtMallocHost", SIZE), new_ptr("aclrtMalloc", SIZE)
        with raises_code(npx.InvalidValueError, 107000):
            acl("aclrtMemcpy", dev, SIZE // 2, host, SIZE, lib.ACL_MEMCPY_HOST_TO_DEVICE)
        acl("aclrtFree", dev)
        acl("aclrtFreeHost", host)
    device0(body)


def test_memcpy_kind_naming_the_wrong_direction_is_performed_as_cann_does(device0):
    """A synchronous copy goes by address in CANN whatever H2H/H2D/D2H/D2D kind it names
    (hicann/runtime src/runtime/driver/npu_driver_mem.cc, drvMemcpy); an asynchronous one
    between the runtime's own pointers has its kind corrected (src/runtime/api/impl/
    api_error.cc, MemcpyKindAutoCorrect). Huawei's pyACL memory samples copy out of
    aclrtMallocHost memory with D2H."""
    def body():
        host, dev = new_ptr("aclrtMallocHost", SIZE), new_ptr("aclrtMalloc", SIZE)
        data = np.random.default_rng().integers(1, 255, SIZE, dtype=np.uint8)
        ffi.memmove(host, data.tobytes(), SIZE)
        acl("aclrtMemcpy", dev, SIZE, host, SIZE, lib.ACL_MEMCPY_DEVICE_TO_HOST)  # really H2D
        ffi.memmove(host, bytes(SIZE), SIZE)
        acl("aclrtMemcpy", host, SIZE, dev, SIZE, lib.ACL_MEMCPY_HOST_TO_DEVICE)  # really D2H
        np.testing.assert_array_equal(np.frombuffer(ffi.buffer(host, SIZE), np.uint8), data)
        stream = ffi.new("aclrtStream *")
        acl("aclrtCreateStream", stream)
        acl("aclrtMemset", dev, SIZE, 0, SIZE)
        acl("aclrtMemcpyAsync", host, SIZE, dev, SIZE, lib.ACL_MEMCPY_HOST_TO_HOST, stream[0])
        acl("aclrtSynchronizeStream", stream[0])
        assert not np.frombuffer(ffi.buffer(host, SIZE), np.uint8).any()
        acl("aclrtDestroyStream", stream[0])
        acl("aclrtFree", dev)
        acl("aclrtFreeHost", host)
    device0(body)


def test_async_memcpy_kind_cann_refuses_for_pageable_memory(device0):
    """With pageable memory CANN's runtime accepts only kinds that name the known side
    rightly (MemcpyKindReviseMap): H2D out of device memory is refused."""
    def body():
        dev = new_ptr("aclrtMalloc", SIZE)
        pageable = ffi.new("char[]", SIZE)
        stream = ffi.new("aclrtStream *")
        acl("aclrtCreateStream", stream)
        with raises_code(npx.InvalidValueError, 107000) as info:
            acl("aclrtMemcpyAsync", pageable, SIZE, dev, SIZE, lib.ACL_MEMCPY_HOST_TO_DEVICE,
                stream[0])
        assert "kind" in info.value.message
        acl("aclrtDestroyStream", stream[0])
        acl("aclrtFree", dev)
    device0(body)


def test_use_after_free_is_detected(device0):
    def body():
        host, dev = new_ptr("aclrtMallocHost", SIZE), new_ptr("aclrtMalloc", SIZE)
        acl("aclrtFree", dev)
        with raises_code(npx.InvalidValueError, 107000) as info:
            acl("aclrtMemcpy", dev, SIZE, host, SIZE, lib.ACL_MEMCPY_HOST_TO_DEVICE)
        assert "free" in info.value.message.lower()
        acl("aclrtFreeHost", host)
    device0(body)


def test_async_copy_from_pageable_memory_is_refused(device0):
    def body():
        dev = new_ptr("aclrtMalloc", SIZE)
        pageable = ffi.new("char[]", SIZE)
        stream = ffi.new("aclrtStream *")
        acl("aclrtCreateStream", stream)
        with raises_code(npx.InvalidValueError, 107000) as info:
            acl("aclrtMemcpyAsync", dev, SIZE, pageable, SIZE, lib.ACL_MEMCPY_HOST_TO_DEVICE,
                stream[0])
        assert "aclrtMallocHost" in info.value.message
        acl("aclrtSynchronizeStream", stream[0])
        acl("aclrtDestroyStream", stream[0])
        acl("aclrtFree", dev)
    device0(body)


def test_peer_copy_without_access_fails(device0):
    def body():
        dev0 = new_ptr("aclrtMalloc", SIZE)
        acl("aclrtSetDevice", 5)  # 5 never enables access to 0
        dev5 = new_ptr("aclrtMalloc", SIZE)
        with raises_code(npx.InvalidValueError, 107000) as info:
            acl("aclrtMemcpy", dev5, SIZE, dev0, SIZE, lib.ACL_MEMCPY_DEVICE_TO_DEVICE)
        assert "peer" in info.value.message
        acl("aclrtFree", dev5)
        acl("aclrtSetDevice", 0)
        acl("aclrtFree", dev0)
    device0(body)


def test_device_id_out_of_range(in_fresh_thread):
    def body():
        with raises_code(npx.InvalidValueError, 107001):
            acl("aclrtSetDevice", 99)
    in_fresh_thread(body)


def test_null_pointers(device0):
    def body():
        with raises_code(npx.InvalidValueError, 100000):
            acl("aclrtMalloc", ffi.NULL, SIZE, lib.ACL_MEM_MALLOC_HUGE_FIRST)
        with raises_code(npx.InvalidValueError, 100000):
            acl("aclrtMemcpy", ffi.NULL, SIZE, ffi.NULL, SIZE, lib.ACL_MEMCPY_HOST_TO_DEVICE)
        with raises_code(npx.InvalidValueError, 100000):
            acl("aclrtFree", ffi.NULL)
    device0(body)


def test_destroying_twice(device0):
    def body():
        stream, event = ffi.new("aclrtStream *"), ffi.new("aclrtEvent *")
        acl("aclrtCreateStream", stream)
        acl("aclrtCreateEvent", event)
        acl("aclrtDestroyStream", stream[0])
        acl("aclrtDestroyEvent", event[0])
        with raises_code(npx.InvalidValueError, 107017):  # ACL_ERROR_RT_INVALID_HANDLE
            acl("aclrtDestroyStream", stream[0])
        with raises_code(npx.InvalidValueError, 107017):
            acl("aclrtDestroyEvent", event[0])
    device0(body)


def test_acl_init_twice():
    with raises_code(npx.AclError, 100002):
        acl("aclInit", ffi.NULL)  # npuarray initialised ACL at import


def test_error_message_names_the_problem(device0):
    def body():
        with pytest.raises(npx.InvalidValueError) as info:
            acl("aclrtSetDevice", 99)
        text = str(info.value)
        assert "aclrtSetDevice" in text and "ACL_ERROR_RT_INVALID_DEVICEID" in text
        assert info.value.api == "aclrtSetDevice"
        assert lib.aclGetRecentErrMsg() == ffi.NULL or ffi.string(lib.aclGetRecentErrMsg()) == b""
    device0(body)


# -- Python objects ------------------------------------------------------------------------

def test_python_device_out_of_range():
    with raises_code(npx.InvalidValueError, 107001):
        npx.Device(99)
    with raises_code(npx.InvalidValueError, 107001):
        npx.Stream(device=99)
    with raises_code(npx.InvalidValueError, 107001):
        npx.DeviceMemory(16, device=-1)
    with pytest.raises(TypeError):
        npx.Device("0")


def test_python_copy_too_large():
    memory = npx.DeviceMemory(SIZE)
    with raises_code(npx.InvalidValueError, 107000):
        memory.copy_from_host(np.ones(SIZE + 1, np.uint8))
    with raises_code(npx.InvalidValueError, 107000):
        memory.copy_to_host(np.empty(SIZE + 1, np.uint8))
    with raises_code(npx.InvalidValueError, 107000):
        memory.copy_from_device(npx.DeviceMemory(SIZE * 2))


def test_python_use_after_free():
    memory = npx.DeviceMemory(SIZE)
    memory.free()
    with raises_code(npx.InvalidValueError, 107000):
        memory.copy_from_host(np.ones(SIZE, np.uint8))
    with raises_code(npx.InvalidValueError, 107000):
        memory.copy_to_host()
    memory.free()  # freeing twice is harmless


def test_python_bad_arguments():
    memory = npx.DeviceMemory(SIZE)
    with pytest.raises(ValueError):
        npx.DeviceMemory(-1)
    with pytest.raises(TypeError):
        npx.DeviceMemory(1.5)
    with pytest.raises(TypeError):
        memory.copy_from_host(np.array([object()]))
    with pytest.raises(ValueError, match="read-only"):
        readonly = np.empty(SIZE, np.uint8)
        readonly.flags.writeable = False
        memory.copy_to_host(readonly)
    with pytest.raises(ValueError, match="contiguous"):
        memory.copy_to_host(np.empty((SIZE, 2), np.uint8)[:, 0])
    with pytest.raises(TypeError):
        memory.copy_from_device(np.empty(4))
    with pytest.raises(TypeError):
        memory.copy_from_host(np.ones(4), stream="not a stream")


def test_python_peer_access_across_pcie_switches_is_refused():
    assert not npx.Device(1).can_access_peer(5)
    with raises_code(npx.NotSupportedError, 207000):
        npx.Device(1).enable_peer_access(5)
    assert npx.Device(1).can_access_peer(1) is False


def test_python_stream_of_another_device_is_refused():
    memory = npx.DeviceMemory(SIZE, device=0)
    with raises_code(npx.InvalidValueError, 107000):
        memory.copy_from_host(np.ones(SIZE, np.uint8), stream=npx.Stream(device=1))


def test_out_of_memory_over_the_device_capacity(run_python):
    code = """
import npuarray as npx
try:
    npx.DeviceMemory(96 << 20)
except npx.OutOfMemoryError as exc:
    assert isinstance(exc, MemoryError), type(exc).__mro__
    print("OOM", exc.code, exc.name)
small = npx.DeviceMemory(32 << 20)   # what fits still works afterwards
print("small ok", small.nbytes)
"""
    result = run_python(code, NPUSIM_DEVICE_MEMORY=64 << 20)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split("\n")
    assert lines[0].startswith("OOM 2070") and "ACL_ERROR_RT_" in lines[0], result.stdout
    assert lines[1] == "small ok %d" % (32 << 20)


def test_visible_devices_are_renumbered(run_python):
    result = run_python("import npuarray as npx; print(npx.device_count())",
                        ASCEND_RT_VISIBLE_DEVICES="1,3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "2"
