"""Temporary events outlive every wait on them, and npusim enforces CANN's rule that a
stream's wait on an event completes before aclrtDestroyEvent (acl_rt.h, 8.1 to master)."""
import gc
import threading
import time

import numpy as np
import pytest

import npuarray as npx
from npuarray._acl import ffi, lib
from npuarray.runtime._device import activate

from conftest import blocked_stream as _blocked

ACL_ERROR_RT_EVENT_NOT_COMPLETE = 507006
ACL_EVENT_SYNC = 1


def _raw_event():
    handle = ffi.new("aclrtEvent *")
    assert lib.aclrtCreateEventExWithFlag(handle, ACL_EVENT_SYNC) == 0
    return handle[0]


def test_npusim_refuses_to_destroy_an_event_with_a_pending_wait():
    producer, consumer = npx.Stream(), npx.Stream()
    activate(producer.device.id)
    gate = _blocked(producer)
    event = _raw_event()
    assert lib.aclrtRecordEvent(event, producer.handle) == 0
    assert lib.aclrtStreamWaitEvent(consumer.handle, event) == 0
    assert lib.aclrtDestroyEvent(event) == ACL_ERROR_RT_EVENT_NOT_COMPLETE
    assert "have not completed" in ffi.string(lib.aclGetRecentErrMsg()).decode()
    gate.set()
    consumer.synchronize()
    assert lib.aclrtDestroyEvent(event) == 0
    assert lib.aclrtDestroyEvent(event) == 107017   # destroyed: an invalid handle now


def test_an_event_never_waited_on_or_waited_before_record_destroys_at_once():
    stream = npx.Stream()
    activate(stream.device.id)
    event = _raw_event()
    assert lib.aclrtStreamWaitEvent(stream.handle, event) == 0   # never recorded: no wait
    assert lib.aclrtDestroyEvent(event) == 0
    event = _raw_event()
    assert lib.aclrtRecordEvent(event, stream.handle) == 0
    assert lib.aclrtDestroyEvent(event) == 0   # a pending record is not a wait


@pytest.mark.parametrize("use_default_consumer", [False, True])
def test_wait_stream_keeps_its_temporary_event_until_the_wait_passed(rng, use_default_consumer):
    producer = npx.Stream()
    consumer = npx.Stream() if not use_default_consumer else npx.get_current_stream()
    gate = _blocked(producer)
    consumer.wait_stream(producer)       # the Event made here has no other owner
    gc.collect()                         # destroying it now would break CANN's rule
    assert len(consumer._waited) >= 1
    gate.set()
    consumer.synchronize()
    assert consumer._waited == []
    gc.collect()
    a = rng.random(17).astype(np.float32)
    np.testing.assert_array_equal(npx.asnumpy(npx.asarray(a) + 1), a + 1)


def test_waits_a_stream_has_passed_are_released():
    producer, consumer = npx.Stream(), npx.Stream()
    for _ in range(5 * consumer._WAITED_CHECK):
        consumer.wait_stream(producer)
        while not consumer.query():       # let the stream pass the wait
            time.sleep(0.001)
        assert 1 <= len(consumer._waited) <= consumer._WAITED_CHECK


def test_a_stream_dropped_with_a_pending_wait_is_synchronised_then_destroyed(rng):
    producer = npx.Stream()
    gate = _blocked(producer)
    consumer = npx.Stream()
    consumer.wait_stream(producer)
    threading.Timer(0.2, gate.set).start()
    del consumer                          # finalizer: synchronise, destroy, then the events
    gc.collect()
    producer.synchronize()
    a = rng.random(5).astype(np.float32)
    np.testing.assert_array_equal(npx.asnumpy(npx.asarray(a) * 2), a * 2)


def test_a_record_on_an_idle_stream_completes_at_once_and_behind_work_only_after_it():
    """aclrtRecordEvent marks a point in the stream: on an idle stream whose worker sleeps
    the point is reached when the call returns (npusim records it on the calling thread,
    however many records follow one another); behind pending work, only once the work ran."""
    stream = npx.Stream()
    activate(stream.device.id)
    stream.synchronize()
    event = _raw_event()
    status = ffi.new("aclrtEventRecordedStatus *")
    time.sleep(0.01)      # the stream's worker stops polling for work and sleeps
    for _ in range(10):   # more records in a row than the stream runs short tasks here
        assert lib.aclrtRecordEvent(event, stream.handle) == 0
        assert lib.aclrtQueryEventStatus(event, status) == 0
        assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE
    x = npx.asarray(np.arange(8.0))
    with stream:
        gate = _blocked(stream)
        y = x + 1.0
        assert lib.aclrtRecordEvent(event, stream.handle) == 0
        assert lib.aclrtQueryEventStatus(event, status) == 0
        assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_NOT_READY
        gate.set()
    assert lib.aclrtSynchronizeEvent(event) == 0
    assert lib.aclrtQueryEventStatus(event, status) == 0
    assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE
    np.testing.assert_array_equal(y.to_host(), np.arange(8.0) + 1.0)
    assert lib.aclrtDestroyEvent(event) == 0
