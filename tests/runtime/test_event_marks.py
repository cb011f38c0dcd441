"""aclrtRecordEvent behind pending work: the event completes once the stream has run the
work recorded before it, in record order, before a synchronisation of the stream returns,
and a stream waiting on it runs after that work (hicann/runtime
docs/zh/api_ref/07_event_management.md: aclrtRecordEvent, aclrtStreamWaitEvent,
aclrtEventElapsedTime). npusim keeps such a record as a mark in its stream's order, not as
a task, so these are checked on records made while the stream's worker is held up."""
import threading

import numpy as np

import npuarray as npx
from npuarray._acl import ffi, lib
from npuarray.runtime._device import activate

from conftest import blocked_stream as _blocked

ACL_EVENT_SYNC = 0x1
ACL_EVENT_TIME_LINE = 0x8


def _event(flags=ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE):
    handle = ffi.new("aclrtEvent *")
    assert lib.aclrtCreateEventExWithFlag(handle, flags) == 0
    return handle[0]


def _status(event):
    status = ffi.new("aclrtEventRecordedStatus *")
    assert lib.aclrtQueryEventStatus(event, status) == 0
    return status[0]


def test_records_behind_work_complete_in_order_when_the_work_ran(rng):
    stream = npx.Stream()
    activate(stream.device.id)
    host = rng.standard_normal(1000)
    x = npx.asarray(host)
    events = [_event() for _ in range(40)]
    with stream:
        gate = _blocked(stream)
        for i, event in enumerate(events):
            x = x * 1.5 if i % 2 else x + 1.0
            assert lib.aclrtRecordEvent(event, stream.handle) == 0
        assert [_status(e) for e in events] == [lib.ACL_EVENT_RECORDED_STATUS_NOT_READY] * 40
        gate.set()
        assert lib.aclrtSynchronizeStream(stream.handle) == 0
    assert [_status(e) for e in events] == [lib.ACL_EVENT_RECORDED_STATUS_COMPLETE] * 40
    ms = ffi.new("float *")
    for before, after in zip(events, events[1:]):   # no ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL
        assert lib.aclrtEventElapsedTime(ms, before, after) == 0 and ms[0] >= 0.0
    expected = host
    for i in range(40):
        expected = expected * 1.5 if i % 2 else expected + 1.0
    np.testing.assert_allclose(x.to_host(), expected, rtol=1e-12)
    assert all(lib.aclrtDestroyEvent(e) == 0 for e in events)


def test_a_stream_waiting_on_a_record_behind_work_runs_after_that_work(rng):
    producer, consumer = npx.Stream(), npx.Stream()
    activate(producer.device.id)
    host = rng.standard_normal(4096)
    x = npx.asarray(host)
    event = _event()
    with producer:
        gate = _blocked(producer)
        y = x + 1.0
        assert lib.aclrtRecordEvent(event, producer.handle) == 0
    assert lib.aclrtStreamWaitEvent(consumer.handle, event) == 0
    with consumer:
        z = y * 2.0
    gate.set()
    np.testing.assert_array_equal(z.to_host(), (host + 1.0) * 2.0)
    consumer.synchronize()
    producer.synchronize()
    assert lib.aclrtDestroyEvent(event) == 0


def test_a_record_is_reached_even_when_its_stream_is_destroyed_with_work_pending():
    """aclrtDestroyStreamForce drops the stream's pending work: a record behind it still
    completes, so a thread synchronising on the event does not wait for ever."""
    activate(0)
    handle = ffi.new("aclrtStream *")
    assert lib.aclrtCreateStream(handle) == 0
    stream = handle[0]
    gate = threading.Event()

    @ffi.callback("void(void *)")
    def hold(_):
        gate.wait(30)

    assert lib.aclrtLaunchHostFunc(stream, hold, ffi.NULL) == 0
    event = _event()
    assert lib.aclrtRecordEvent(event, stream) == 0
    assert _status(event) == lib.ACL_EVENT_RECORDED_STATUS_NOT_READY
    synchronised = []
    waiter = threading.Thread(target=lambda: synchronised.append(lib.aclrtSynchronizeEvent(event)))
    waiter.start()
    threading.Timer(0.05, gate.set).start()
    assert lib.aclrtDestroyStreamForce(stream) == 0
    waiter.join(30)
    assert synchronised == [0]
    assert _status(event) == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE
    assert lib.aclrtDestroyEvent(event) == 0


def test_an_event_destroyed_while_its_record_is_pending_is_freed_after_it():
    stream = npx.Stream()
    activate(stream.device.id)
    x = npx.asarray(np.arange(16.0))
    with stream:
        gate = _blocked(stream)
        y = x * 3.0
        event = _event()
        assert lib.aclrtRecordEvent(event, stream.handle) == 0
        assert lib.aclrtDestroyEvent(event) == 0   # no stream waits on it: allowed
        gate.set()
        stream.synchronize()
    np.testing.assert_array_equal(y.to_host(), np.arange(16.0) * 3.0)
