"""The one state object of the C fast path (npuarray/_core/_fastpath_state.py): every field
and every published slot it names is checked when the fast path is configured, so that a
change in the runtime the fast path does not follow (a renamed slot, a missing field, a
container of another type) fails loudly instead of silently sending operations to Python."""
import numpy as np
import pytest

import npuarray as npx
from npuarray._acl import ffi
from npuarray._core import _array, _fastpath_state, _ops, _transfer
from npuarray.runtime import _device, _memory_pool, _profiler

pytestmark = pytest.mark.skipif(_ops._fastpath is None or _ops._launch_helper is None,
                                reason="npuarray._core._fastpath (or the npusim launch helper) "
                                       "is not built")
FIELDS = _fastpath_state.FastPathState.__slots__


def good_state():
    return _ops.fastpath_state(npx.NPUArray, _array.ARRAY_SLOTS, _transfer.host_read_hooks)


def with_fields(state, **changes):
    values = {name: getattr(state, name) for name in FIELDS}
    values.update(changes)
    return _fastpath_state.FastPathState(**values)


def without(state, missing):
    copy = object.__new__(_fastpath_state.FastPathState)
    for name in FIELDS:
        if name != missing:
            setattr(copy, name, getattr(state, name))
    return copy


@pytest.fixture
def reconfigured():
    """Configures the fast path again with the process's own state after the test (a
    refused configuration leaves the fast paths off)."""
    yield
    assert _ops._fastpath.configure(good_state()) is True


def assert_add_runs_in_c(rng):
    a = rng.standard_normal(8).astype(np.float32)
    x = npx.asarray(a) * 1.0
    [x + x for _ in range(2)]  # (the plan made, a block cached)
    before = _ops.fastpath_counts()["arrays"]
    y = x + x
    assert _ops.fastpath_counts()["arrays"] == before + 1
    np.testing.assert_array_equal(y.to_host(), a + a)


def test_the_process_state_is_accepted_and_used(rng):
    assert _ops._fastpath.configure(good_state()) is True
    assert_add_runs_in_c(rng)


def test_the_state_names_every_field():
    state = good_state()
    with pytest.raises(TypeError, match="missing fields \\['default_pools'\\]"):
        _fastpath_state.FastPathState(**{n: getattr(state, n) for n in FIELDS
                                         if n != "default_pools"})
    with pytest.raises(TypeError, match="unknown fields \\['forked'\\]"):
        _fastpath_state.FastPathState(**{n: getattr(state, n) for n in FIELDS}, forked=False)


@pytest.mark.parametrize("missing", FIELDS)
def test_a_missing_field_raises_naming_it(missing, reconfigured, rng):
    with pytest.raises(TypeError, match=f"has no {missing}$"):
        _ops._fastpath.configure(without(good_state(), missing))
    # a refused configuration leaves the fast paths off: the operators still compute
    a = rng.standard_normal(8).astype(np.float32)
    before = _ops.fastpath_counts()["arrays"]
    x = npx.asarray(a) * 1.0
    np.testing.assert_array_equal((x + x).to_host(), a + a)
    assert _ops.fastpath_counts()["arrays"] == before


def test_a_renamed_runtime_slot_raises_naming_it(reconfigured):
    # as if the runtime renamed MemoryPool._free without its published slot map
    class RenamedPool:
        __slots__ = ("device", "_free_lists", "_late")
    state = good_state()
    with pytest.raises(TypeError, match="RenamedPool._free is not a __slots__ member"):
        _ops._fastpath.configure(with_fields(state, pool_type=RenamedPool))
    renamed = dict(_memory_pool.BUFFER_SLOTS, stream="_last_stream")
    with pytest.raises(TypeError, match="DeviceBuffer._last_stream is not a __slots__ member"):
        _ops._fastpath.configure(with_fields(state, buffer_slots=renamed))
    without_role = {k: v for k, v in _memory_pool.POOL_SLOTS.items() if k != "late"}
    with pytest.raises(TypeError, match="pool_slots names no slot for 'late'"):
        _ops._fastpath.configure(with_fields(state, pool_slots=without_role))


def test_published_state_objects_must_have_their_slots(reconfigured):
    class Process:  # ProcessState without deferred_releases
        __slots__ = ("forked",)
    process = Process()
    process.forked = False
    state = good_state()
    with pytest.raises(TypeError, match="deferred_releases is not a __slots__ member"):
        _ops._fastpath.configure(with_fields(state, process=process))
    with pytest.raises(TypeError, match="profile is not a __slots__ member"):
        _ops._fastpath.configure(with_fields(state, recording=_device.process_state))
    assert _profiler.recording.profile is None


@pytest.mark.parametrize("field, value, message", [
    ("default_streams", [], "default_streams must be a dict, not list"),
    ("capture_active", set(), "capture_active must be a dict, not set"),
    ("host_read_hooks", (), "host_read_hooks must be a list, not tuple"),
    ("array_slots", [("buffer", "_buffer")], "array_type must be a class and array_slots a dict"),
])
def test_a_field_of_another_type_raises(field, value, message, reconfigured):
    with pytest.raises(TypeError, match=message):
        _ops._fastpath.configure(with_fields(good_state(), **{field: value}))


def test_cffi_pointers_are_read_through_its_c_api_and_checked(reconfigured, rng):
    sample = ffi.cast("void *", 0x2000)
    state = with_fields(good_state(), pointer_sample=sample, pointer_sample_address=0x2000)
    assert _ops._fastpath.configure(state) is True
    with pytest.raises(RuntimeError, match="cffi's C API"):
        _ops._fastpath.configure(with_fields(state, pointer_sample_address=0x3000))
    assert _ops._fastpath.configure(good_state()) is True
    assert_add_runs_in_c(rng)
