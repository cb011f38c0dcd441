"""Black-box acceptance tests of the runtime layer, written from
the vendor documents: only the public `npuarray.*` API, compared with hand-derived values."""
import gc
import pickle
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pytest

import npuarray as npx

# Subprocesses import the npuarray under test (installed or built in place), never the
# checkout by accident: package_env puts its folder on PYTHONPATH, and they run in a
# temporary folder so the current directory adds nothing to sys.path.
from conftest import package_env  # noqa: E402

NEUTRAL_CWD = tempfile.gettempdir()


def run_python(code, **env):
    """Runs `code` in a fresh interpreter with extra environment variables; returns stdout."""
    full_env = package_env(**env)
    done = subprocess.run([sys.executable, "-c", code], env=full_env, cwd=NEUTRAL_CWD,
                          capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


# -- backend, config, devices -----------------------------------------------------------------

def test_backend_fields():
    info = npx.backend()
    assert info.name in ("npusim", "cann")
    assert isinstance(info.reason, str) and info.reason
    assert info.library and all(isinstance(p, str) for p in info.library)
    assert len(info.version) >= 2 and all(isinstance(v, int) for v in info.version)


def test_show_config_names_backend_and_devices(capsys):
    npx.show_config()
    out = capsys.readouterr().out
    assert npx.backend().name in out
    assert str(npx.device_count()) in out


def test_device_count_follows_env():
    out = run_python("import npuarray; print(npuarray.device_count())", NPUSIM_DEVICE_COUNT="3")
    assert out.strip() == "3"


def test_visible_devices_env_is_honoured():
    out = run_python("import npuarray; print(npuarray.device_count())",
                     ASCEND_RT_VISIBLE_DEVICES="2,5")
    assert out.strip() == "2"


def test_device_out_of_range_is_107001():
    with pytest.raises(npx.AclError) as info:
        npx.Device(npx.device_count())
    assert info.value.code == 107001
    assert info.value.name == "ACL_ERROR_RT_INVALID_DEVICEID"
    with pytest.raises(npx.AclError):
        npx.Device(-1)


def test_device_context_sets_and_restores_current_device():
    assert npx.get_device().id == 0
    with npx.Device(1) as dev:
        assert dev.id == 1
        assert npx.get_device().id == 1
        assert npx.get_current_stream().device.id == 1
        with npx.Device(2):
            assert npx.get_device().id == 2
        assert npx.get_device().id == 1
    assert npx.get_device().id == 0


def test_device_mem_info_and_peer_rule():
    free, total = npx.Device(0).mem_info()
    assert 0 < free <= total
    assert npx.Device(0).can_access_peer(npx.Device(1)) is True
    assert npx.Device(0).can_access_peer(npx.Device(4)) is False   # other PCIe switch


def test_mem_info_sees_allocation():
    free0, total = npx.Device(3).mem_info()
    mem = npx.DeviceMemory(64 << 20, device=3)
    free1, _ = npx.Device(3).mem_info()
    assert free0 - free1 >= 64 << 20
    del mem
    gc.collect()
    npx.Device(3).synchronize()


def test_enable_peer_access_across_switch_fails():
    with pytest.raises(npx.AclError):
        npx.Device(0).enable_peer_access(npx.Device(5))


# -- errors -----------------------------------------------------------------------------------

def test_error_hierarchy():
    assert issubclass(npx.OutOfMemoryError, npx.AclError)
    assert issubclass(npx.OutOfMemoryError, MemoryError)
    for cls in (npx.InvalidValueError, npx.CaptureError, npx.NotSupportedError):
        assert issubclass(cls, npx.AclError)
    assert issubclass(npx.ImplicitTransferError, TypeError)


def test_error_carries_code_name_message_and_pickles():
    with pytest.raises(npx.AclError) as info:
        npx.Device(999)
    err = info.value
    clone = pickle.loads(pickle.dumps(err))
    assert type(clone) is type(err)
    assert (clone.code, clone.name, clone.message) == (err.code, err.name, err.message)
    assert "999" in err.message
    assert str(clone) == str(err)


def test_out_of_memory_over_device_capacity_pickles():
    code = (
        "import pickle, npuarray as npx\n"
        "try:\n"
        "    npx.DeviceMemory(2 << 20)\n"
        "except npx.OutOfMemoryError as e:\n"
        "    assert isinstance(e, MemoryError)\n"
        "    c = pickle.loads(pickle.dumps(e))\n"
        "    print(type(c).__name__, c.code)\n"
        "m = npx.DeviceMemory(1 << 19)\n"   # still usable afterwards
        "print('ok', m.nbytes)\n")
    out = run_python(code, NPUSIM_DEVICE_MEMORY=str(1 << 20))
    assert out.split() == ["OutOfMemoryError", "207001", "ok", str(1 << 19)]


# -- DeviceMemory -----------------------------------------------------------------------------

def test_device_memory_round_trip_default_stream(rng):
    src = rng.integers(1, 256, 1000, dtype=np.uint8)
    mem = npx.DeviceMemory(src.nbytes)
    assert mem.nbytes == 1000 and mem.device.id == 0 and mem.ptr
    mem.copy_from_host(src)
    back = mem.copy_to_host()
    np.testing.assert_array_equal(np.frombuffer(back, dtype=np.uint8), src)


def test_device_memory_copy_into_given_dst_and_memset(rng):
    src = rng.standard_normal(256)
    mem = npx.DeviceMemory(src.nbytes)
    mem.copy_from_host(src)
    dst = np.empty_like(src)
    mem.copy_to_host(dst)
    np.testing.assert_array_equal(dst, src)
    mem.memset(0)
    mem.copy_to_host(dst)
    assert not dst.any()


def test_device_memory_d2d_and_peer(rng):
    src = rng.integers(1, 256, 4096, dtype=np.uint8)
    a = npx.DeviceMemory(4096)
    a.copy_from_host(src)
    b = npx.DeviceMemory(4096)
    b.copy_from_device(a)
    np.testing.assert_array_equal(np.frombuffer(b.copy_to_host(), np.uint8), src)
    npx.Device(0).enable_peer_access(npx.Device(1))
    npx.Device(1).enable_peer_access(npx.Device(0))
    c = npx.DeviceMemory(4096, device=1)
    c.copy_from_device(a)
    np.testing.assert_array_equal(np.frombuffer(c.copy_to_host(), np.uint8), src)


def test_device_memory_copy_across_switch_is_staged(rng):
    src = rng.integers(1, 256, 4096, dtype=np.uint8)
    a = npx.DeviceMemory(4096, device=0)
    a.copy_from_host(src)
    far = npx.DeviceMemory(4096, device=6)      # no peer access possible: staged through host
    far.copy_from_device(a)
    npx.Device(6).synchronize()
    np.testing.assert_array_equal(np.frombuffer(far.copy_to_host(), np.uint8), src)


def test_device_memory_async_on_stream_pageable_source(rng):
    src = rng.integers(1, 256, 1 << 16, dtype=np.uint8)
    mem = npx.DeviceMemory(src.nbytes)
    s = npx.Stream()
    mem.copy_from_host(src, stream=s, blocking=False)
    src_copy = src.copy()
    src[:] = 0   # staged: overwriting the pageable source must not change what arrives
    out = npx.zeros_pinned(src.shape, np.uint8)
    mem.copy_to_host(out, stream=s, blocking=False)
    s.synchronize()
    np.testing.assert_array_equal(out, src_copy)


def test_device_memory_copy_too_large_source_rejected():
    mem = npx.DeviceMemory(16)
    with pytest.raises((ValueError, npx.AclError)):
        mem.copy_from_host(np.zeros(32, np.uint8))
    mem.copy_from_host(np.arange(16, dtype=np.uint8))    # still usable
    assert bytes(mem.copy_to_host()) == bytes(range(16))


# -- pinned memory ----------------------------------------------------------------------------

def test_pinned_arrays():
    a = npx.empty_pinned((3, 4), np.float32)
    z = npx.zeros_pinned((5,), dtype=np.int16)
    assert isinstance(a, np.ndarray) and a.shape == (3, 4) and a.dtype == np.float32
    assert z.dtype == np.int16 and not z.any()
    assert npx.is_pinned(a) and npx.is_pinned(z)
    assert not npx.is_pinned(np.zeros(4))
    assert npx.is_pinned(a[1:])          # a view of pinned memory is still pinned


def test_pinned_pool_statistics_public():
    pool = npx.get_default_pinned_memory_pool()
    assert pool.used_bytes() >= 0 and pool.total_bytes() >= pool.used_bytes()


# -- streams ----------------------------------------------------------------------------------

def test_default_stream_is_per_device_and_current():
    d0 = npx.default_stream()
    assert npx.get_current_stream() == d0
    assert npx.default_stream(1) != d0
    assert npx.default_stream(1).device.id == 1
    assert npx.default_stream() == d0   # stable


def test_stream_context_nesting_restores_previous():
    s1, s2 = npx.Stream(), npx.Stream()
    with s1:
        assert npx.get_current_stream() == s1
        with s2:
            assert npx.get_current_stream() == s2
        assert npx.get_current_stream() == s1
    assert npx.get_current_stream() == npx.default_stream()


def test_stream_context_is_thread_local():
    s = npx.Stream()
    seen = {}

    def other():
        seen["other"] = npx.get_current_stream()

    with s:
        t = threading.Thread(target=other)
        t.start()
        t.join(30)
        assert npx.get_current_stream() == s
    assert seen["other"] == npx.default_stream()


def test_stream_contexts_in_many_threads_restore_each_own():
    errors = []

    def worker():
        try:
            mine = npx.Stream()
            for _ in range(50):
                with mine:
                    assert npx.get_current_stream() == mine
                    with npx.Stream() as inner:
                        assert npx.get_current_stream() == inner
                    assert npx.get_current_stream() == mine
                assert npx.get_current_stream() == npx.default_stream()
        except BaseException as exc:
            errors.append(exc)
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors


def test_stream_on_other_device():
    s = npx.Stream(device=2)
    assert s.device.id == 2
    with s:
        assert npx.get_current_stream(2) == s
    s2 = npx.Stream(npx.Device(3))
    assert s2.device.id == 3


def test_host_func_runs_in_stream_order_and_query():
    s = npx.Stream()
    order = []
    gate = threading.Event()
    s.launch_host_func(lambda: gate.wait(10))
    s.launch_host_func(lambda: order.append(1))
    s.launch_host_func(lambda: order.append(2))
    assert s.query() is False
    gate.set()
    s.synchronize()
    assert s.query() is True
    assert order == [1, 2]


def test_cross_stream_ordering_through_event(rng):
    data = rng.integers(1, 256, 1 << 16, dtype=np.uint8)
    producer, consumer = npx.Stream(), npx.Stream()
    src = npx.DeviceMemory(data.nbytes)
    src.memset(0)
    dst = npx.DeviceMemory(data.nbytes)
    pinned = npx.empty_pinned(data.shape, np.uint8)
    pinned[:] = data
    producer.launch_host_func(lambda: time.sleep(0.2))
    src.copy_from_host(pinned, stream=producer, blocking=False)
    ev = producer.record()
    consumer.wait_event(ev)
    dst.copy_from_device(src, stream=consumer)
    consumer.synchronize()
    np.testing.assert_array_equal(np.frombuffer(dst.copy_to_host(), np.uint8), data)


# -- events -----------------------------------------------------------------------------------

def test_event_elapsed_time_measures_a_delay():
    s = npx.Stream()
    start, end = npx.Event(timing=True), npx.Event(timing=True)
    start.record(s)
    s.launch_host_func(lambda: time.sleep(0.05))
    end.record(s)
    end.synchronize()
    assert end.query() is True
    ms = start.elapsed_time(end)
    assert isinstance(ms, float)
    assert 40.0 <= ms < 2000.0


def test_event_elapsed_time_without_timing_fails():
    a, b = npx.Event(), npx.Event()
    a.record()
    b.record()
    b.synchronize()
    with pytest.raises((npx.AclError, ValueError, RuntimeError)):
        a.elapsed_time(b)


def test_event_query_before_and_after():
    s = npx.Stream()
    gate = threading.Event()
    s.launch_host_func(lambda: gate.wait(10))
    ev = s.record()
    assert isinstance(ev, npx.Event)
    assert ev.query() is False
    gate.set()
    ev.synchronize()
    assert ev.query() is True


def test_wait_on_event_recorded_on_same_stream_is_legal():
    s = npx.Stream()
    ev = npx.Event()
    ev.record(s)
    s.wait_event(ev)
    s.synchronize()
    assert s.query() is True


def test_blocking_event_synchronize():
    s = npx.Stream()
    ev = npx.Event(blocking=True)
    s.launch_host_func(lambda: time.sleep(0.02))
    ev.record(s)
    ev.synchronize()
    assert ev.query()


def test_device_and_global_synchronize_wait_for_all_streams():
    done = []
    s = npx.Stream()
    s.launch_host_func(lambda: (time.sleep(0.05), done.append("s")))
    npx.synchronize()
    assert done == ["s"]
    s2 = npx.Stream(device=1)
    s2.launch_host_func(lambda: (time.sleep(0.05), done.append("d1")))
    npx.Device(1).synchronize()
    assert done == ["s", "d1"]


def test_host_func_exception_is_reported_and_stream_survives():
    s = npx.Stream()

    def boom():
        raise RuntimeError("boom in host func")
    s.launch_host_func(boom)
    with pytest.raises(Exception):
        s.synchronize()
    ran = []
    s.launch_host_func(lambda: ran.append(1))
    s.synchronize()
    assert ran == [1]


# -- concurrency ------------------------------------------------------------------------------

def test_threads_with_own_streams_round_trip():
    errors = []

    def worker(seed):
        try:
            rng = np.random.default_rng(seed)
            with npx.Stream() as s:
                mem = npx.DeviceMemory(4096)
                for _ in range(30):
                    data = rng.integers(1, 256, 4096, dtype=np.uint8)
                    mem.copy_from_host(data, stream=s)
                    out = np.empty_like(data)
                    mem.copy_to_host(out, stream=s)
                    s.synchronize()
                    assert np.array_equal(out, data)
        except BaseException as exc:
            errors.append(exc)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors


# -- bad arguments to the runtime objects -----------------------------------------------------

def test_wait_event_on_non_event_is_type_error():
    with pytest.raises(TypeError):
        npx.Stream().wait_event(3)


def test_runtime_argument_errors():
    with pytest.raises(TypeError):
        npx.Stream().launch_host_func(3)
    with pytest.raises(TypeError):
        npx.Event(True)                       # keyword-only
    with pytest.raises(ValueError):
        npx.DeviceMemory(-1)
    with pytest.raises(TypeError):
        npx.DeviceMemory(1.5)
    with pytest.raises(npx.AclError) as info:
        npx.Stream(99)
    assert info.value.code == 107001
    with pytest.raises(ValueError):
        npx.Event(timing=True).elapsed_time(npx.Event(timing=True))   # never recorded
    dst = np.zeros(16, np.uint8)[::2]
    with pytest.raises(ValueError):
        npx.DeviceMemory(8).copy_to_host(dst)                         # not contiguous
    with pytest.raises(npx.AclError) as info:
        npx.DeviceMemory(16).copy_to_host(np.zeros(32, np.uint8))     # count > destMax
    assert info.value.code == 107000


def test_event_recorded_on_other_device_orders_streams(rng):
    data = rng.integers(1, 256, 4096, dtype=np.uint8)
    s1, s0 = npx.Stream(1), npx.Stream(0)
    gate = threading.Event()
    src = npx.DeviceMemory(4096, device=1)
    src.memset(0)
    pinned = npx.empty_pinned(data.shape, np.uint8)
    pinned[:] = data
    s1.launch_host_func(lambda: gate.wait(10))
    src.copy_from_host(pinned, stream=s1, blocking=False)
    ev = s1.record()
    s0.wait_event(ev)
    done = []
    s0.launch_host_func(lambda: done.append(True))
    time.sleep(0.05)
    assert done == []                 # s0 still waits for s1's event
    gate.set()
    s0.synchronize()
    assert done == [True]
    np.testing.assert_array_equal(np.frombuffer(src.copy_to_host(), np.uint8), data)


def test_peer_access_enable_is_idempotent_and_self_is_rejected():
    npx.Device(0).enable_peer_access(npx.Device(1))
    npx.Device(0).enable_peer_access(npx.Device(1))     # already enabled: no error
    assert npx.Device(0).can_access_peer(npx.Device(0)) is False
    with pytest.raises(npx.AclError) as info:
        npx.Device(0).enable_peer_access(npx.Device(0))
    assert info.value.code == 107000


def test_stream_created_inside_device_context_belongs_to_it():
    with npx.Device(1):
        assert npx.Stream().device.id == 1
    assert npx.Stream().device.id == 0
