/* Events as record sequence numbers: each aclrtRecordEvent call takes the next number on the
 * host, and the record task marks it completed when the stream reaches it. A wait or a
 * synchronisation captures the number current at call time, so waiting on an event that is
 * re-recorded later never deadlocks, and waiting on a never-recorded event is a no-op. */
#include <stdlib.h>

#include "racecheck.h"
#include "rt_internal.h"

#define KNOWN_FLAGS (ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE | \
                     ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)

static const char *kind_creator(const rt_event *e)
{
    return e->kind == RT_EVENT_PLAIN ? "aclrtCreateEvent"
           : e->kind == RT_EVENT_FLAG ? "aclrtCreateEventWithFlag" : "aclrtCreateEventExWithFlag";
}

/* The checks made before an event handle is looked up: ACL_SUCCESS, or the error. */
static aclError check_handle(aclrtEvent handle, const char *api)
{
    aclError rc = rt_check_not_forked(api);
    if (!rc && !handle) rc = npusim_error(ACL_ERROR_INVALID_PARAM, "%s: event is NULL", api);
    return rc;
}

static aclError not_live(aclrtEvent handle, const char *api)
{
    return npusim_error(ACL_ERROR_RT_INVALID_HANDLE,
                        "%s: event %p is not a live event (destroyed, or never created)", api, handle);
}

rt_event *rt_event_resolve(aclrtEvent handle, const char *api, aclError *err)
{
    if ((*err = check_handle(handle, api))) return NULL;
    if (rt_handle_is(handle, RT_HANDLE_EVENT)) return handle;
    *err = not_live(handle, api);
    return NULL;
}

void rt_event_retain(rt_event *e) { atomic_fetch_add(&e->refs, 1); }

static void retain_object(void *e) { rt_event_retain(e); }

/* One look-up in the handle registry, which checks and pins at once: a profiler records an
 * event after every operation, and each look-up takes the registry's lock. */
rt_event *rt_event_acquire(aclrtEvent handle, const char *api, aclError *err)
{
    if ((*err = check_handle(handle, api))) return NULL;
    if (rt_handle_pin(handle, RT_HANDLE_EVENT, retain_object)) return handle;
    *err = not_live(handle, api);
    return NULL;
}

void rt_event_release(rt_event *e)
{
    if (atomic_fetch_sub(&e->refs, 1) != 1) return;
    rt_race_event_free(e);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    free(e);
}

/* `rc`, after dropping the reference an API call acquired on `e` (NULL: none). */
static aclError released(rt_event *e, aclError rc)
{
    if (e) rt_event_release(e);
    return rc;
}

typedef struct { rt_event *event; uint64_t seq; bool pending; } rt_event_task;

/* Marks record `seq` of e as done now. */
static void event_complete(rt_event *e, uint64_t seq)
{
    uint64_t now = rt_now_ns();
    pthread_mutex_lock(&e->mu);
    if (seq > e->completed) {
        e->completed = seq;
        e->timestamp_ns = now;
        e->has_timestamp = true;
    }
    if (e->waiters) pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

static int record_run(void *p)
{
    rt_event_task *t = p;
    event_complete(t->event, t->seq);
    t->pending = false;
    return 0;
}

/* A record dropped without running (aclrtDestroyStreamForce, or its stream stopped on a
 * failure) completes the event all the same: the work before it will never run, and
 * synchronisers and stream waits on the event would otherwise wait for ever. */
static void record_task_release(void *p)
{
    rt_event_task *t = p;
    if (t->pending) event_complete(t->event, t->seq);
    rt_event_release(t->event);
}

static int wait_run(void *p)
{
    rt_event_task *t = p;
    rt_event *e = t->event;
    pthread_mutex_lock(&e->mu);
    e->waiters++;
    while (e->completed < t->seq) pthread_cond_wait(&e->cv, &e->mu);
    e->waiters--;
    pthread_mutex_unlock(&e->mu);
    atomic_fetch_sub(&e->pending_waits, 1); /* the stream passed the wait */
    t->pending = false;
    return 0;
}

static void event_task_release(void *p) { rt_event_release(((rt_event_task *)p)->event); }

/* A wait task dropped without running (its stream failed) no longer holds the event. */
static void wait_task_release(void *p)
{
    rt_event_task *t = p;
    if (t->pending) atomic_fetch_sub(&t->event->pending_waits, 1);
    rt_event_release(t->event);
}

static const npusim_task_ops record_ops = {"aclrtRecordEvent", record_run, record_task_release};

/* A record's stream mark reached: the record completes and drops its reference. */
static void record_reached(void *e, uint64_t seq)
{
    event_complete(e, seq);
    rt_event_release(e);
}
static const npusim_task_ops wait_ops = {"aclrtStreamWaitEvent", wait_run, wait_task_release};

static aclError create_event(aclrtEvent *event, rt_event_kind kind, uint32_t flag, const char *api)
{
    if (!event) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: event is NULL", api);
    if (flag & ~KNOWN_FLAGS)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: unknown flag bits 0x%x", api, flag & ~KNOWN_FLAGS);
    if (kind == RT_EVENT_EX && (flag & ACL_EVENT_IPC) && flag != ACL_EVENT_IPC)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: ACL_EVENT_IPC cannot be combined with other flags",
                            api);
    rt_context *ctx = rt_current_context(api);
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    rt_event *e = calloc(1, sizeof *e);
    if (!e) return npusim_error(ACL_ERROR_RT_NO_EVENT_RESOURCE, "%s: out of host memory", api);
    e->kind = kind;
    e->flags = flag;
    atomic_init(&e->refs, 1);
    atomic_init(&e->pending_waits, 0);
    pthread_mutex_init(&e->mu, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&e->cv, &attr);
    pthread_condattr_destroy(&attr);
    if (!rt_handle_add(e, RT_HANDLE_EVENT)) {
        rt_event_release(e);
        return npusim_error(ACL_ERROR_RT_NO_EVENT_RESOURCE, "%s: out of host memory", api);
    }
    *event = e;
    return ACL_SUCCESS;
}

aclError aclrtCreateEvent(aclrtEvent *event)
{
    return create_event(event, RT_EVENT_PLAIN, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE, "aclrtCreateEvent");
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event(event, RT_EVENT_FLAG, flag, "aclrtCreateEventWithFlag");
}

aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event(event, RT_EVENT_EX, flag, "aclrtCreateEventExWithFlag");
}

aclError aclrtDestroyEvent(aclrtEvent event)
{
    aclError rc = ACL_SUCCESS;
    rt_event *e = rt_event_acquire(event, "aclrtDestroyEvent", &rc);
    if (!e) return rc;
    int pending = atomic_load(&e->pending_waits);
    if (pending > 0) {
        rt_event_release(e);
        return npusim_error(ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                            "aclrtDestroyEvent: %d stream wait(s) on this event (aclrtStreamWaitEvent) "
                            "have not completed; CANN requires them to complete before the event is "
                            "destroyed (synchronize the waiting stream first)", pending);
    }
    bool taken = rt_handle_take(e, RT_HANDLE_EVENT);
    if (taken) rt_event_release(e); /* the handle's reference: tasks, graphs, callers hold their own */
    rt_event_release(e);
    if (!taken) /* another thread destroyed it meanwhile */
        return npusim_error(ACL_ERROR_RT_INVALID_HANDLE, "aclrtDestroyEvent: event %p is not a live "
                            "event (destroyed, or never created)", event);
    return ACL_SUCCESS;
}

/* The event and stream of a record, the event pinned (NULL with *rc set when either is not
 * live): both looked up under the handle registry's lock once when the stream is explicit. */
static rt_event *record_target(aclrtEvent event, aclrtStream stream, rt_stream **s, const char *api,
                               aclError *rc)
{
    *s = NULL;
    if ((*rc = rt_check_not_forked(api))) return NULL;
    if (event && stream && rt_handle_pin_with(event, RT_HANDLE_EVENT, retain_object, stream, RT_HANDLE_STREAM)) {
        *s = stream;
        return event;
    }
    rt_event *e = rt_event_acquire(event, api, rc);
    *s = e ? rt_stream_resolve(stream, api, rc) : NULL;
    return e;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    const char *api = "aclrtRecordEvent";
    aclError rc = ACL_SUCCESS;
    rt_stream *s = NULL;
    rt_event *e = record_target(event, stream, &s, api, &rc);
    if (!s || rt_capture_event_record(s, e, api, &rc) >= 0) return released(e, rc);
    rt_race_event_record(s, e);
    pthread_mutex_lock(&e->mu);
    rt_event_task t = {e, ++e->recorded, true};
    pthread_mutex_unlock(&e->mu);
    /* A record marks a point and does no work: a stream mark, not a task (the mark or the
     * task takes the caller's reference). On an idle stream it completes here at once (the
     * stream reached the point now); on a busy one, right after the task before it, with no
     * hand-off to the worker and no change to which thread runs the next task. A profiler
     * records one after each operation: as tasks, they changed the schedule they timed. */
    if (rt_stream_mark(s, record_reached, e, t.seq)) return ACL_SUCCESS;
    return rt_submit_inline_tiny(s, &record_ops, &t, sizeof t, api);
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    const char *api = "aclrtStreamWaitEvent";
    aclError rc = ACL_SUCCESS;
    rt_event *e = rt_event_acquire(event, api, &rc);
    rt_stream *s = e ? rt_stream_resolve(stream, api, &rc) : NULL;
    if (!s) return released(e, rc);
    if (e->kind != RT_EVENT_PLAIN && !(e->flags & ACL_EVENT_SYNC))
        return released(e, npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: the event was created by %s without ACL_EVENT_SYNC and cannot be "
                            "waited on", api, kind_creator(e)));
    if (rt_capture_stream_wait(s, e, api, &rc) >= 0) return released(e, rc);
    pthread_mutex_lock(&e->mu);
    rt_event_task t = {e, e->recorded, true};
    pthread_mutex_unlock(&e->mu);
    if (t.seq == 0) return released(e, ACL_SUCCESS); /* never recorded: nothing to wait for */
    rt_race_event_wait(s, e);
    /* the task takes the caller's reference */
    atomic_fetch_add(&e->pending_waits, 1);
    return rt_submit_inline(s, &wait_ops, &t, sizeof t, api);
}

static int reset_run(void *p)
{
    rt_event *e = ((rt_event_task *)p)->event;
    pthread_mutex_lock(&e->mu);
    e->has_timestamp = false;
    pthread_mutex_unlock(&e->mu);
    return 0;
}

static const npusim_task_ops reset_ops = {"aclrtResetEvent", reset_run, event_task_release};

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    const char *api = "aclrtResetEvent";
    aclError rc = ACL_SUCCESS;
    rt_event *e = rt_event_acquire(event, api, &rc);
    rt_stream *s = e ? rt_stream_resolve(stream, api, &rc) : NULL;
    if (!s) return released(e, rc);
    if (e->kind != RT_EVENT_FLAG || !(e->flags & ACL_EVENT_SYNC))
        return released(e, npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: only events from aclrtCreateEventWithFlag with ACL_EVENT_SYNC can be "
                            "reset; this one comes from %s%s", api, kind_creator(e),
                            e->kind == RT_EVENT_FLAG ? " without ACL_EVENT_SYNC" : ""));
    rt_event_task t = {e, 0, false}; /* the task takes the caller's reference */
    return rt_submit_inline(s, &reset_ops, &t, sizeof t, api);
}

/* Completed count and record count of e, read together. */
static void event_state(rt_event *e, uint64_t *recorded, uint64_t *completed)
{
    pthread_mutex_lock(&e->mu);
    *recorded = e->recorded;
    *completed = e->completed;
    pthread_mutex_unlock(&e->mu);
}

static rt_event *query_target(aclrtEvent event, const void *status, const char *api, aclError *rc)
{
    if (!status) {
        *rc = npusim_error(ACL_ERROR_INVALID_PARAM, "%s: status is NULL", api);
        return NULL;
    }
    rt_event *e = rt_event_acquire(event, api, rc);
    if (e && (*rc = rt_capture_check_event(e, api))) {
        rt_event_release(e);
        return NULL;
    }
    return e; /* the caller releases it */
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    const char *api = "aclrtQueryEvent";
    aclError rc = ACL_SUCCESS;
    rt_event *e = query_target(event, status, api, &rc);
    if (!e) return rc;
    if (e->kind == RT_EVENT_EX)
        return released(e, npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: events from aclrtCreateEventExWithFlag cannot be queried with this "
                            "API; use aclrtQueryEventStatus", api));
    uint64_t recorded, completed;
    struct rc_vc *known = rt_race_snapshot_event(e);
    event_state(e, &recorded, &completed);
    *status = completed >= recorded ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    rt_race_host_learns(known, *status == ACL_EVENT_STATUS_COMPLETE);
    return released(e, ACL_SUCCESS);
}

/* COMPLETE when every task the event captured (those before its latest record) has run; an
 * event never recorded captured nothing and is COMPLETE (hicann/runtime aclrtQueryEventStatus). */
aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    const char *api = "aclrtQueryEventStatus";
    aclError rc = ACL_SUCCESS;
    rt_event *e = query_target(event, status, api, &rc);
    if (!e) return rc;
    uint64_t recorded, completed;
    struct rc_vc *known = rt_race_snapshot_event(e);
    event_state(e, &recorded, &completed);
    *status = completed >= recorded ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    rt_race_host_learns(known, *status == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    return released(e, ACL_SUCCESS);
}

/* COMPLETE when a stream waiting on the event now would not block. */
aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    const char *api = "aclrtQueryEventWaitStatus";
    aclError rc = ACL_SUCCESS;
    rt_event *e = query_target(event, status, api, &rc);
    if (!e) return rc;
    if (e->kind == RT_EVENT_EX)
        return released(e, npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: not supported for events from aclrtCreateEventExWithFlag", api));
    uint64_t recorded, completed;
    event_state(e, &recorded, &completed);
    *status = completed >= recorded ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
    return released(e, ACL_SUCCESS);
}

static aclError sync_event(aclrtEvent event, int32_t timeout, const char *api)
{
    if (timeout == 0 || timeout < -1)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: timeout %d must be -1 (wait forever) or > 0 ms", api, (int)timeout);
    aclError rc = ACL_SUCCESS;
    rt_event *e = rt_event_acquire(event, api, &rc);
    if (!e) return rc;
    if ((rc = rt_capture_check_event(e, api))) {
        rt_event_release(e);
        return rc;
    }
    struct timespec deadline;
    if (timeout > 0) rt_deadline(&deadline, timeout);
    struct rc_vc *known = rt_race_snapshot_event(e);
    pthread_mutex_lock(&e->mu);
    uint64_t target = e->recorded;
    e->waiters++;
    while (e->completed < target && !rc)
        if (timeout > 0 && pthread_cond_timedwait(&e->cv, &e->mu, &deadline) != 0 && e->completed < target)
            rc = ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
        else if (timeout <= 0)
            pthread_cond_wait(&e->cv, &e->mu);
    e->waiters--;
    pthread_mutex_unlock(&e->mu);
    rt_race_host_learns(known, rc == ACL_SUCCESS);
    rt_event_release(e);
    if (rc) return npusim_error(rc, "%s: the event did not complete within %d ms", api, (int)timeout);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) { return sync_event(event, -1, "aclrtSynchronizeEvent"); }

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    return sync_event(event, timeout, "aclrtSynchronizeEventWithTimeout");
}

/* The completion time of e's latest record, or an error saying why there is none. */
static aclError event_time(rt_event *e, const char *which, uint64_t *ns)
{
    const char *api = "aclrtEventElapsedTime";
    aclError rc = rt_capture_check_event(e, api);
    if (rc) return rc;
    if (e->flags & (ACL_EVENT_EXTERNAL | ACL_EVENT_IPC))
        return npusim_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                            "%s: %s is an external/IPC event and has no timestamp", api, which);
    if (e->kind != RT_EVENT_PLAIN && !(e->flags & ACL_EVENT_TIME_LINE))
        return npusim_error(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                            "%s: %s was created by %s without ACL_EVENT_TIME_LINE (no timing)", api,
                            which, kind_creator(e));
    pthread_mutex_lock(&e->mu);
    bool recorded = e->recorded > 0, done = e->completed >= e->recorded && e->has_timestamp;
    *ns = e->timestamp_ns;
    pthread_mutex_unlock(&e->mu);
    if (!recorded)
        return npusim_error(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "%s: %s was never recorded", api, which);
    if (!done)
        return npusim_error(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                            "%s: %s has not completed yet; synchronise first", api, which);
    return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    const char *api = "aclrtEventElapsedTime";
    if (!ms) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: ms is NULL", api);
    aclError rc = ACL_SUCCESS;
    rt_event *start = rt_event_acquire(startEvent, api, &rc);
    rt_event *end = start ? rt_event_acquire(endEvent, api, &rc) : NULL;
    uint64_t t0, t1;
    if (end && !(rc = event_time(start, "startEvent", &t0)) && !(rc = event_time(end, "endEvent", &t1))) {
        if (t1 < t0)
            rc = npusim_error(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, "%s: endEvent completed before startEvent",
                              api);
        else
            *ms = (float)((double)(t1 - t0) / 1e6);
    }
    released(end, ACL_SUCCESS);
    return released(start, rc);
}
