"""npuarray.pyacl: pyACL's API over the binding, checked against the binding's behaviour
and NumPy data; both run modes (NPUSIM_RUN_MODE) in subprocesses through
``python -m npuarray.pyacl``; DVPP memory; wrapping device memory into arrays."""
import json
import pathlib
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import npuarray as npx
import npuarray.pyacl as acl
from npuarray._acl import ffi, lib
from conftest import package_env

ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_RT_PARAM_INVALID = 107000
ACL_ERROR_RT_INVALID_DEVICEID = 107001
ACL_ERROR_RT_INVALID_HANDLE = 107017
ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000
HI_ERR_SYS_ILLEGAL_PARAM = 0xA0028003 - (1 << 32)   # hi_s32, as the C call returns it
HI_ERR_SYS_NULL_PTR = 0xA0028006 - (1 << 32)
H2H, H2D, D2H, D2D = 0, 1, 2, 3

needs_npusim = pytest.mark.skipif(npx.backend().name != "npusim",
                                  reason="npusim's run modes, strict log and exact codes")


@pytest.fixture
def device0():
    """Device 0 set through pyACL for the test, the thread's context restored after."""
    context, ret = acl.rt.get_context()
    assert acl.rt.set_device(0) == 0
    yield
    assert acl.rt.reset_device(0) == 0
    if ret == 0 and context:
        acl.rt.set_context(context)


def _host_bytes(data):
    """A bytes copy of `data` and its address (pyACL's bytes_to_ptr idiom)."""
    raw = data.tobytes()
    return raw, acl.util.bytes_to_ptr(raw)


# ---- top level -----------------------------------------------------------------------------

def test_get_version_is_the_runtime_s():
    major, minor, patch = (ffi.new("int32_t *") for _ in range(3))
    assert lib.aclrtGetVersion(major, minor, patch) == 0
    assert acl.get_version() == (major[0], minor[0], patch[0], 0)


def test_recent_error_message_names_the_failure(device0):
    assert acl.rt.free(0x1000) == ACL_ERROR_RT_PARAM_INVALID
    message = acl.get_recent_err_msg()
    assert "aclrtFree" in message and "0x1000" in message
    assert acl.get_recent_err_msg() == ""       # reading clears it


def test_init_and_finalize_as_pyacl_programs_see_them(run_python):
    code = textwrap.dedent("""
        import npuarray.pyacl as acl
        print(acl.init(), acl.init(), acl.finalize(), acl.finalize())
    """)
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", str(ACL_ERROR_REPEAT_INITIALIZE), "0", "100037"]
    proc = run_python("import npuarray.pyacl as acl; print(acl.init('/no/such/file.json'))")
    assert proc.stdout.split() == ["100003"], proc.stderr


# ---- devices and contexts -------------------------------------------------------------------

def test_devices(device0):
    count, ret = acl.rt.get_device_count()
    assert (count, ret) == (npx.device_count(), 0)
    assert acl.rt.get_device() == (0, 0)
    assert acl.rt.set_device(count) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.synchronize_device() == 0
    assert acl.rt.synchronize_device_with_timeout(1000) == 0
    assert acl.rt.get_soc_name().startswith("Ascend")
    expected = ffi.new("int32_t *")
    for peer in (1, count - 1):
        assert lib.aclrtDeviceCanAccessPeer(expected, 0, peer) == 0
        assert acl.rt.device_can_access_peer(0, peer) == (expected[0], 0)
    assert acl.rt.device_can_access_peer(0, 1)[0] == 1


@needs_npusim
def test_run_mode_is_host_by_default(device0):
    assert acl.rt.get_run_mode() == (acl.ACL_HOST, 0) == (1, 0)


def test_peer_copy_through_pyacl(device0, rng):
    assert acl.rt.device_enable_peer_access(1, 0) == 0
    data = rng.standard_normal(64).astype(np.float32)
    src, _ = acl.rt.malloc(data.nbytes, 0)
    assert acl.rt.memcpy(src, data.nbytes, data.ctypes.data, data.nbytes, H2D) == 0
    assert acl.rt.set_device(1) == 0
    dst, _ = acl.rt.malloc(data.nbytes, 0)
    assert acl.rt.set_device(0) == 0
    assert acl.rt.memcpy(dst, data.nbytes, src, data.nbytes, D2D) == 0
    out = np.empty_like(data)
    assert acl.rt.memcpy(out.ctypes.data, out.nbytes, dst, data.nbytes, D2H) == 0
    np.testing.assert_array_equal(out, data)
    assert acl.rt.free(src) == 0 and acl.rt.device_disable_peer_access(1) == 0
    assert acl.rt.set_device(1) == 0 and acl.rt.free(dst) == 0 and acl.rt.reset_device(1) == 0


def test_contexts(device0):
    previous, _ = acl.rt.get_context()
    context, ret = acl.rt.create_context(0)
    assert ret == 0 and context
    assert acl.rt.get_context() == (context, 0)
    assert acl.rt.set_context(previous) == 0
    assert acl.rt.get_context() == (previous, 0)
    assert acl.rt.destroy_context(context) == 0
    assert acl.rt.destroy_context(context) == ACL_ERROR_RT_INVALID_HANDLE
    assert acl.rt.set_context(context) == ACL_ERROR_RT_INVALID_HANDLE


# ---- streams, events, callbacks -------------------------------------------------------------

def test_streams_and_events_order_asynchronous_copies(device0, rng):
    data = rng.integers(0, 255, 1 << 16, dtype=np.uint8)
    n = data.nbytes
    host, _ = acl.rt.malloc_host(n)
    back, _ = acl.rt.malloc_host(n)
    dev, _ = acl.rt.malloc(n, 0)
    first, ret1 = acl.rt.create_stream()
    second, ret2 = acl.rt.create_stream_with_config(0, 0)
    start, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE | acl.ACL_EVENT_SYNC)
    end, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE | acl.ACL_EVENT_SYNC)
    assert ret1 == ret2 == 0
    ffi.memmove(ffi.cast("void *", host), data.tobytes(), n)
    assert acl.rt.record_event(start, first) == 0
    assert acl.rt.memset_async(dev, n, 0, n, first) == 0
    assert acl.rt.memcpy_async(dev, n, host, n, H2D, first) == 0
    assert acl.rt.record_event(end, first) == 0
    assert acl.rt.stream_wait_event(second, end) == 0       # second runs after first's copy
    assert acl.rt.memcpy_async(back, n, dev, n, D2H, second) == 0
    assert acl.rt.synchronize_stream(second) == 0
    assert acl.rt.synchronize_event(end) == 0
    assert acl.rt.query_event_status(end) == (1, 0)          # ACL_EVENT_RECORDED_STATUS_COMPLETE
    assert acl.rt.query_event(end) == (0, 0)                 # ACL_EVENT_STATUS_COMPLETE
    assert acl.rt.synchronize_stream(first) == 0
    assert acl.rt.stream_query(first) == (0, 0)              # ACL_STREAM_STATUS_COMPLETE
    ms, ret = acl.rt.event_elapsed_time(start, end)
    assert ret == 0 and ms >= 0.0
    np.testing.assert_array_equal(np.frombuffer(acl.util.ptr_to_bytes(back, n), np.uint8), data)
    assert acl.rt.memcpy_async(back, n, host, n, H2H, first) == ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    for event in (start, end):
        assert acl.rt.destroy_event(event) == 0
    assert acl.rt.destroy_event(start) == ACL_ERROR_RT_INVALID_HANDLE
    assert acl.rt.synchronize_stream_with_timeout(first, 1000) == 0
    assert acl.rt.destroy_stream(first) == 0 and acl.rt.destroy_stream_force(second) == 0
    for ptr in (host, back):
        assert acl.rt.free_host(ptr) == 0
    assert acl.rt.free(dev) == 0


def test_event_created_without_flags_and_reset(device0):
    event, ret = acl.rt.create_event()
    synced, ret2 = acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)
    stream, _ = acl.rt.create_stream()
    assert ret == ret2 == 0
    assert acl.rt.record_event(event, stream) == 0
    assert acl.rt.synchronize_event_with_timeout(event, 1000) == 0
    # aclrtResetEvent takes events created with ACL_EVENT_SYNC only
    assert acl.rt.reset_event(event, stream) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.record_event(synced, stream) == 0
    assert acl.rt.reset_event(synced, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    for handle in (event, synced):
        assert acl.rt.destroy_event(handle) == 0
    assert acl.rt.destroy_stream(stream) == 0


def test_callbacks_run_on_the_subscribed_thread_in_stream_order(device0, rng):
    context, _ = acl.rt.get_context()
    stream, _ = acl.rt.create_stream()
    running = [True]
    seen = []

    def serve(args):
        assert acl.rt.set_context(args[0]) == 0
        while running[0]:
            acl.rt.process_report(20)

    thread_id, ret = acl.util.start_thread(serve, [context])
    assert ret == 0
    assert acl.rt.subscribe_report(thread_id, stream) == 0
    values = rng.integers(0, 1000, 5).tolist()
    for value in values:
        assert acl.rt.launch_callback(seen.append, value, acl.ACL_CALLBACK_BLOCK, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert seen == values
    running[0] = False
    assert acl.util.stop_thread(thread_id) == 0
    assert acl.rt.unsubscribe_report(thread_id, stream) == 0
    assert acl.rt.destroy_stream(stream) == 0
    with pytest.raises(ValueError):
        acl.util.stop_thread(thread_id)
    with pytest.raises(TypeError):
        acl.rt.launch_callback(None, 0, 1, stream)


# ---- memory ----------------------------------------------------------------------------------

def test_memory_round_trip_and_mem_info(device0, rng):
    data = rng.standard_normal((33, 7)).astype(np.float32)
    n = data.nbytes
    free_before, total, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    assert ret == 0 and 0 < free_before <= total
    dev, ret = acl.rt.malloc(n, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    cached, _ = acl.rt.malloc_cached(n, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    assert ret == 0 and dev % 64 == 0
    raw, ptr = _host_bytes(data)
    assert acl.rt.memcpy(dev, n, ptr, n, H2D) == 0
    assert acl.rt.memcpy(cached, n, dev, n, D2D) == 0
    out = np.zeros_like(data)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(out), n, cached, n, D2H) == 0
    np.testing.assert_array_equal(out, data)
    assert acl.rt.memset(dev, n, 0x1AB, n) == 0              # the low byte, as aclrtMemset
    assert acl.util.ptr_to_bytes(dev, 8) == b"\xab" * 8
    assert acl.rt.memcpy(dev, n // 2, ptr, n, H2D) == ACL_ERROR_RT_PARAM_INVALID  # count > dest_max
    assert acl.rt.free(dev) == 0 and acl.rt.free(cached) == 0
    assert acl.rt.free(dev) == ACL_ERROR_RT_PARAM_INVALID      # twice
    assert acl.rt.memcpy(out.ctypes.data, n, dev, n, D2H) == ACL_ERROR_RT_PARAM_INVALID  # freed
    assert acl.rt.malloc(0, 0) == (0, ACL_ERROR_INVALID_PARAM)
    with pytest.raises(TypeError):
        acl.rt.free("0x1000")
    with pytest.raises(ValueError):
        acl.rt.malloc(-1, 0)


def test_align32_allocation_and_cache_maintenance(device0, rng):
    dev, ret = acl.rt.malloc_align32(100, 0)
    assert ret == 0 and dev % 32 == 0
    data = rng.integers(0, 255, 100, dtype=np.uint8)
    assert acl.rt.memcpy(dev, 100, data.ctypes.data, 100, H2D) == 0
    assert acl.rt.mem_flush(dev, 100) == 0 and acl.rt.mem_invalidate(dev, 100) == 0
    np.testing.assert_array_equal(np.frombuffer(acl.util.ptr_to_bytes(dev, 100), np.uint8), data)
    assert acl.rt.mem_flush(dev, 0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.mem_invalidate(dev, 101) == ACL_ERROR_RT_PARAM_INVALID      # overrun
    assert acl.rt.mem_flush(data.ctypes.data, 100) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.free(dev) == 0


def test_memcpy2d_matches_numpy_slicing(device0, rng):
    rows, cols, pitch = 9, 5, 8
    src = rng.standard_normal((rows, pitch)).astype(np.float64)
    dev, _ = acl.rt.malloc(src.nbytes, 0)
    assert acl.rt.memcpy(dev, src.nbytes, src.ctypes.data, src.nbytes, H2D) == 0
    out = np.zeros((rows, cols))
    assert acl.rt.memcpy2d(out.ctypes.data, cols * 8, dev, pitch * 8, cols * 8, rows, D2H) == 0
    np.testing.assert_array_equal(out, src[:, :cols])
    host, _ = acl.rt.malloc_host(out.nbytes)
    stream, _ = acl.rt.create_stream()
    assert acl.rt.memcpy2d_async(host, cols * 8, dev, pitch * 8, cols * 8, rows, D2H, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(acl.util.ptr_to_numpy(host, (rows, cols), 12), src[:, :cols])
    assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.free_host(host) == 0 and acl.rt.free(dev) == 0


def test_pinned_to_device_copy_named_with_the_wrong_kind_is_performed(device0, rng):
    """As on the hardware (Huawei's pyACL memory samples copy out of malloc_host memory
    with ACL_MEMCPY_DEVICE_TO_HOST): CANN copies by address."""
    data = rng.integers(0, 255, 4096, dtype=np.uint8)
    host, _ = acl.rt.malloc_host(data.nbytes)
    dev, _ = acl.rt.malloc(data.nbytes, 0)
    raw, ptr = _host_bytes(data)
    assert acl.rt.memcpy(host, 4096, ptr, 4096, D2H) == 0      # pageable -> pinned, named D2H
    assert acl.rt.memcpy(dev, 4096, host, 4096, D2H) == 0      # pinned -> device, named D2H
    back = bytes(4096)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(back), 4096, dev, 4096, H2D) == 0
    np.testing.assert_array_equal(np.frombuffer(back, np.uint8), data)
    assert acl.rt.free_host(host) == 0 and acl.rt.free(dev) == 0


@needs_npusim
def test_strict_mode_turns_the_wrong_kind_into_a_warning(run_python):
    code = textwrap.dedent("""
        import warnings
        import npuarray.pyacl as acl
        acl.rt.set_device(0)
        host, _ = acl.rt.malloc_host(64)
        dev, _ = acl.rt.malloc(64, 0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert acl.rt.memcpy(dev, 64, host, 64, 2) == 0
            assert acl.rt.memcpy(dev, 64, host, 64, 1) == 0
        for w in caught:
            print(w.category.__name__, w.message)
    """)
    strict = run_python(code, NPUSIM_STRICT=1)
    assert strict.returncode == 0, strict.stderr
    lines = strict.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("StrictModeWarning aclrtMemcpy: kind "
                                                   "ACL_MEMCPY_DEVICE_TO_HOST")
    assert "ACL_MEMCPY_HOST_TO_DEVICE" in lines[0]
    quiet = run_python(code)
    assert quiet.returncode == 0 and quiet.stdout == "", quiet.stderr


# ---- util ------------------------------------------------------------------------------------

def test_util_pointers_and_numpy(rng):
    data = rng.standard_normal((4, 6)).astype(np.float32)
    view = acl.util.ptr_to_numpy(acl.util.numpy_to_ptr(data), (4, 6), 11)   # NPY_FLOAT32
    np.testing.assert_array_equal(view, data)
    view[0, 0] = 42.0                                       # a view, not a copy
    assert data[0, 0] == 42.0
    ints = rng.integers(-100, 100, 10, dtype=np.int32)
    np.testing.assert_array_equal(acl.util.ptr_to_numpy(ints.ctypes.data, (10,), 5), ints)
    halves = rng.standard_normal(3).astype(np.float16)
    np.testing.assert_array_equal(acl.util.ptr_to_numpy(halves.ctypes.data, (3,), 23), halves)
    raw = data.tobytes()
    assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(raw), len(raw)) == raw
    strided = data[:, ::2]
    with pytest.raises(ValueError, match="discontiguous"):
        acl.util.numpy_to_ptr(strided)
    ptr = acl.util.numpy_contiguous_to_ptr(strided)
    np.testing.assert_array_equal(acl.util.ptr_to_numpy(ptr, strided.shape, 11), strided)
    assert acl.util.numpy_contiguous_to_ptr(data) == data.ctypes.data
    with pytest.raises(TypeError):
        acl.util.bytes_to_ptr("text")
    with pytest.raises(ValueError):
        acl.util.ptr_to_numpy(data.ctypes.data, (2,), 9999)


# ---- DVPP memory -----------------------------------------------------------------------------

@pytest.mark.parametrize("size", [1, 31, 32, 33, 1000, 4096, (1 << 20) + 3])
def test_dvpp_memory_sizes_alignment_and_data(device0, rng, size):
    media, ret1 = acl.media.dvpp_malloc(size)
    himpi, ret2 = acl.himpi.dvpp_malloc(0, size)
    assert ret1 == ret2 == 0
    assert media % 128 == 0 and himpi % 128 == 0
    data = rng.integers(0, 255, size, dtype=np.uint8)
    raw, ptr = _host_bytes(data)
    assert acl.rt.memcpy(media, size, ptr, size, H2D) == 0
    assert acl.rt.memcpy(himpi, size, media, size, D2D) == 0
    np.testing.assert_array_equal(np.frombuffer(acl.util.ptr_to_bytes(himpi, size), np.uint8), data)
    assert acl.rt.memcpy(media, size + 1, ptr, size + 1, H2D) == ACL_ERROR_RT_PARAM_INVALID  # overrun
    # each is freed by its own call only
    assert acl.rt.free(media) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.media.dvpp_free(himpi) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.himpi.dvpp_free(media) == HI_ERR_SYS_ILLEGAL_PARAM
    assert "acldvppFree" in acl.get_recent_err_msg()
    assert acl.media.dvpp_free(media) == 0 and acl.himpi.dvpp_free(himpi) == 0
    assert acl.media.dvpp_free(media) == ACL_ERROR_RT_PARAM_INVALID


MEM_INFO = """
import json, sys
import npuarray.pyacl as acl
acl.rt.set_device(0)
def used():
    free, total, ret = acl.rt.get_mem_info(1)
    assert ret == 0
    return total - free
out = {}
for size in json.loads(sys.argv[1]):
    before = used()
    ptrs = [acl.rt.malloc(size, 0)[0], acl.rt.malloc_align32(size, 0)[0],
            acl.media.dvpp_malloc(size)[0], acl.himpi.dvpp_malloc(0, size)[0]]
    grown = used()
    out[size] = [acl.rt.free(ptrs[0]), acl.rt.free(ptrs[1]), acl.media.dvpp_free(ptrs[2]),
                 acl.himpi.dvpp_free(ptrs[3]), used() - before, grown - before]
print(json.dumps(out))
"""


@needs_npusim
def test_mem_info_counts_every_allocation_with_cann_s_sizes(tmp_path):
    """aclrtGetMemInfo sees aclrtMalloc (ALIGN_UP(size, 32) + 32), aclrtMallocAlign32
    (ALIGN_UP(size, 32)) and both DVPP allocations (ALIGN_UP(size, 32) + 32) and gets every
    byte back (a process of its own: npuarray's pools do not move the figures)."""
    sizes = [1, 31, 32, 33, 1000, 4096, (1 << 20) + 3]
    script = tmp_path / "mem_info.py"
    script.write_text(MEM_INFO)
    proc = subprocess.run([sys.executable, str(script), json.dumps(sizes)], env=package_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for size, (r1, r2, r3, r4, left, grown) in json.loads(proc.stdout).items():
        size = int(size)
        aligned = (size + 31) // 32 * 32
        expected = 3 * (aligned + 32) + aligned
        assert (r1, r2, r3, r4, left) == (0, 0, 0, 0, 0)
        assert expected <= grown < expected + 4 * 64, (size, grown, expected)


def test_dvpp_bad_arguments(device0):
    assert acl.himpi.dvpp_free(0) == HI_ERR_SYS_NULL_PTR
    assert acl.media.dvpp_free(0) == ACL_ERROR_INVALID_PARAM
    host, _ = acl.rt.malloc_host(64)
    assert acl.media.dvpp_free(host) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.free_host(host) == 0


# ---- arrays over pyACL memory ------------------------------------------------------------------

def test_from_device_pointer_wraps_without_a_copy(device0, rng):
    data = rng.standard_normal((3, 4)).astype(np.float32)
    dev, _ = acl.rt.malloc(data.nbytes, 0)
    assert acl.rt.memcpy(dev, data.nbytes, data.ctypes.data, data.nbytes, H2D) == 0

    class Owner:
        pass
    owner = Owner()
    alive = weakref.ref(owner)
    x = npx.from_device_pointer(dev, (3, 4), np.float32, owner=owner)
    del owner
    assert alive() is not None                              # kept by the array
    assert x.data_ptr == dev and x.shape == (3, 4) and x.dtype == np.float32
    np.testing.assert_allclose((x * 2 + 1).to_host(), data * 2 + 1, rtol=1e-6)
    x += 1                                                  # writes the pyACL memory
    npx.synchronize()
    out = np.empty_like(data)
    assert acl.rt.memcpy(out.ctypes.data, out.nbytes, dev, data.nbytes, D2H) == 0
    np.testing.assert_allclose(out, data + 1, rtol=1e-6)
    np.testing.assert_allclose(x[1:, ::2].to_host(), (data + 1)[1:, ::2], rtol=1e-6)
    del x
    assert alive() is None
    assert acl.rt.free(dev) == 0


def test_from_device_pointer_refuses_what_is_not_device_memory(device0, rng):
    host = rng.standard_normal(4)
    with pytest.raises(npx.InvalidValueError, match="host memory"):
        npx.from_device_pointer(host.ctypes.data, (4,), np.float64)
    dev, _ = acl.rt.malloc(64, 0)
    with pytest.raises(npx.InvalidValueError, match="device 0"):
        npx.from_device_pointer(dev, (8,), np.float64, device=1)
    memory = npx.UnownedMemory(dev, 64)
    with pytest.raises(ValueError, match="needs"):
        npx.from_device_pointer(memory, (9,), np.float64)
    with pytest.raises(ValueError):
        npx.from_device_pointer(dev, (-1,), np.float64)
    assert npx.from_device_pointer(memory, (2, 4), np.float64).shape == (2, 4)
    assert acl.rt.free(dev) == 0


# ---- pyACL programs, both run modes, through the launcher --------------------------------------

SEED_001 = '''
"""Seed 001's data-transfer call sequence, written in pyACL."""
import sys
import numpy as np
import acl

ACL_HOST, ACL_DEVICE = 1, 0
SIZE = 1 << 20
rng = np.random.default_rng(int(sys.argv[1]))
data = rng.integers(0, 255, SIZE, dtype=np.uint8)
assert acl.init() == 0
assert acl.rt.set_device(0) == 0
context, ret = acl.rt.create_context(0)
assert ret == 0
run_mode, ret = acl.rt.get_run_mode()
assert ret == 0
free0 = acl.rt.get_mem_info(1)[0]
# 1. allocate: host memory (malloc_host), initialised with memset; device memory three ways
host, ret = acl.rt.malloc_host(SIZE)
assert ret == 0 and acl.rt.memset(host, SIZE, 0, SIZE) == 0
dev, ret = acl.rt.malloc(SIZE, 0)
dvpp, ret2 = acl.media.dvpp_malloc(SIZE)
himpi, ret3 = acl.himpi.dvpp_malloc(0, SIZE)
assert ret == ret2 == ret3 == 0
used = free0 - acl.rt.get_mem_info(1)[0]
# 2. load data into host memory
raw = data.tobytes()
assert acl.rt.memcpy(host, SIZE, acl.util.bytes_to_ptr(raw), SIZE, 0) == 0
# 3. transfer, synchronously and asynchronously
stream, _ = acl.rt.create_stream()
assert acl.rt.memcpy(dev, SIZE, host, SIZE, 1) == 0
assert acl.rt.memcpy_async(dvpp, SIZE, dev, SIZE, 3, stream) == 0
assert acl.rt.memcpy_async(himpi, SIZE, dvpp, SIZE, 3, stream) == 0
back, _ = acl.rt.malloc_host(SIZE)
assert acl.rt.memcpy_async(back, SIZE, himpi, SIZE, 2, stream) == 0
assert acl.rt.memcpy_async(back, SIZE, host, SIZE, 0, stream) != 0   # no async H2H
assert acl.rt.synchronize_stream(stream) == 0
out = np.frombuffer(acl.util.ptr_to_bytes(back, SIZE), np.uint8)
assert (out == data).all()
# 4. free
for f, p in ((acl.rt.free_host, host), (acl.rt.free_host, back), (acl.rt.free, dev),
             (acl.media.dvpp_free, dvpp), (acl.himpi.dvpp_free, himpi)):
    assert f(p) == 0
assert acl.rt.get_mem_info(1)[0] == free0
assert acl.rt.destroy_stream(stream) == 0
assert acl.rt.destroy_context(context) == 0
assert acl.rt.reset_device(0) == 0
assert acl.finalize() == 0
print("run_mode", run_mode, "device_bytes", used, "checksum", int(out.sum(dtype=np.int64)))
'''


@needs_npusim
@pytest.mark.parametrize("mode, run_mode", [("host", 1), ("device", 0)])
def test_seed_001_sequence_in_both_run_modes(tmp_path, mode, run_mode):
    script = tmp_path / "seed001.py"
    script.write_text(SEED_001)
    seed = int(np.random.default_rng().integers(1 << 30))
    proc = subprocess.run([sys.executable, "-m", "npuarray.pyacl", str(script), str(seed)],
                          env=package_env(NPUSIM_RUN_MODE=mode), capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    words = proc.stdout.split()
    assert words[:2] == ["run_mode", str(run_mode)]
    size = 1 << 20
    # malloc and the two DVPP blocks: ALIGN_UP(size, 32) + 32 each (npusim's blocks: 64-byte
    # multiples); in the device run mode the first malloc_host block is device memory too
    used, block = int(words[3]), size + 32
    low = 3 * block + (size if mode == "device" else 0)
    assert low <= used < low + 5 * 64
    expected = np.random.default_rng(seed).integers(0, 255, size, dtype=np.uint8)
    assert int(words[5]) == int(expected.sum(dtype=np.int64))


SAMPLE_LIKE = '''
"""The pattern of Huawei's pyACL memory samples (not their code): host memory from
malloc_host read back into a bytes object with ACL_MEMCPY_DEVICE_TO_HOST, device memory
from dvpp_malloc, memory figures printed between cycles."""
import numpy as np
import acl

def show(ptr, size):
    probe = np.ones(size, dtype=np.byte).tobytes()
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(probe), size, ptr, size, 2) == 0
    return np.frombuffer(probe, dtype=np.byte)

assert acl.init() == 0 and acl.rt.set_device(0) == 0
context, _ = acl.rt.create_context(0)
for cycle in range(3):
    host, _ = acl.rt.malloc_host(4096)
    dev, _ = acl.media.dvpp_malloc(4096)
    assert acl.rt.memset(host, 4096, 7, 4096) == 0
    assert (show(host, 4096) == 7).all()
    assert acl.rt.memcpy(dev, 4096, host, 4096, 1) == 0
    assert (show(dev, 4096) == 7).all()
    free, total, ret = acl.rt.get_mem_info(0)
    print("cycle", cycle, "free", free, "total", total, "ret", ret)
    assert acl.rt.free_host(host) == 0 and acl.media.dvpp_free(dev) == 0
assert acl.rt.destroy_context(context) == 0
assert acl.rt.reset_device(0) == 0 and acl.finalize() == 0
print("run success!")
'''


@needs_npusim
@pytest.mark.parametrize("mode", ["host", "device"])
def test_sample_pattern_runs_in_both_run_modes(tmp_path, mode):
    script = tmp_path / "sample_like.py"
    script.write_text(SAMPLE_LIKE)
    proc = subprocess.run([sys.executable, "-m", "npuarray.pyacl", str(script)],
                          env=package_env(NPUSIM_RUN_MODE=mode), capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "run success!"
    frees = [int(line.split()[3]) for line in lines[:-1]]
    totals = {int(line.split()[5]) for line in lines[:-1]}
    assert len(frees) == 3 and len(set(frees)) == 1 and len(totals) == 1
    held = totals.pop() - frees[0]                            # dvpp (+ malloc_host in RC)
    dvpp = 4096 + 32 + 64                                   # ALIGN_UP + 32, 64-byte blocks
    assert (held >= 2 * 4096) if mode == "device" else (4096 + 32 <= held <= dvpp + 64)


def test_launcher_arguments_and_the_acl_alias(run_python, tmp_path):
    script = tmp_path / "argv.py"
    script.write_text("import sys, acl, acl.rt\nprint(acl.__name__, acl.rt.__name__, sys.argv[1:])\n")
    proc = subprocess.run([sys.executable, "-m", "npuarray.pyacl", str(script), "a", "--b"],
                          env=package_env(), capture_output=True, text=True, timeout=60)
    assert proc.stdout.split("\n")[0] == "npuarray.pyacl npuarray.pyacl.rt ['a', '--b']", proc.stderr
    usage = subprocess.run([sys.executable, "-m", "npuarray.pyacl"], env=package_env(),
                           capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2 and "usage" in usage.stderr
    missing = subprocess.run([sys.executable, "-m", "npuarray.pyacl", str(tmp_path / "nope.py")],
                             env=package_env(), capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "no such script" in missing.stderr
    # outside the launcher, `import acl` is not npuarray's
    outside = run_python("import npuarray.pyacl\ntry:\n    import acl\n    print(acl.__name__)\n"
                         "except ImportError:\n    print('none')\n")
    assert outside.stdout.strip() in ("none", "acl"), outside.stderr


@needs_npusim
@pytest.mark.parametrize("mode", ["host", "device"])
def test_example_pyacl_memory(mode):
    example = pathlib.Path(__file__).resolve().parents[2] / "examples" / "pyacl_memory.py"
    if not example.exists():
        pytest.skip("examples/ is not beside the tests (installed tests)")
    proc = subprocess.run([sys.executable, "-m", "npuarray.pyacl", str(example), "--size-mb", "1"],
                          env=package_env(NPUSIM_RUN_MODE=mode), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert ("run mode: ACL_HOST" if mode == "host" else "run mode: ACL_DEVICE") in proc.stdout
    assert "histogram matches NumPy: True" in proc.stdout


def test_remaining_calls_against_the_binding(run_python):
    """reset_device_force, create_event_ex_with_flag, query_event_wait_status and
    set_stream_failure_mode give what the binding's own calls give (in a process of their
    own: a forced reset drops every context of the device)."""
    code = textwrap.dedent("""
        import npuarray.pyacl as acl
        from npuarray._acl import ffi, lib
        assert acl.rt.set_device(3) == 0 and acl.rt.set_device(3) == 0
        stream, _ = acl.rt.create_stream()
        assert acl.rt.set_stream_failure_mode(stream, 1) == 0
        assert acl.rt.set_stream_failure_mode(stream, 7) == lib.aclrtSetStreamFailureMode(
            ffi.cast("void *", stream), 7) != 0
        box = ffi.new("aclrtEventWaitStatus *")
        for create in (acl.rt.create_event_ex_with_flag, acl.rt.create_event_with_flag):
            event, ret = create(acl.ACL_EVENT_SYNC)
            assert ret == 0
            assert acl.rt.record_event(event, stream) == 0
            assert acl.rt.synchronize_stream(stream) == 0
            expected = lib.aclrtQueryEventWaitStatus(ffi.cast("void *", event), box)
            assert acl.rt.query_event_wait_status(event) == ((box[0] if not expected else 0),
                                                             expected)
            assert acl.rt.destroy_event(event) == 0
        assert acl.rt.destroy_stream(stream) == 0
        dev, _ = acl.rt.malloc(64, 0)
        assert acl.rt.reset_device_force(3) == 0     # both set_device calls at once
        assert acl.rt.get_device()[1] != 0           # no current device any more
        print("ok")
    """)
    proc = run_python(code)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
