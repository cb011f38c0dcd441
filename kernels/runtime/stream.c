/* Streams: an in-order task queue run by the stream's own worker thread. Every API that puts
 * work on a stream goes through rt_submit, which records into a graph instead when the stream
 * is capturing; short tasks (submit_short) run on the launching thread instead when the
 * stream is idle soon after a synchronisation, tiny ones whenever it is idle, the `busy` flag
 * keeping one task at a time. Completion is counted (submitted / completed) so synchronising
 * polls briefly, then waits on a condition variable for a target count; an idle worker
 * likewise polls briefly for the next task, then blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>

#include "racecheck.h"
#include "rt_internal.h"

#define RING_INITIAL 64

static void init_monotonic_cond(pthread_cond_t *cv)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &attr);
    pthread_condattr_destroy(&attr);
}

static void release_task(rt_task *t)
{
    if (t->ops->release) t->ops->release(rt_task_payload(t));
}

/* Runs the marks that the first `completed` tasks reach, in order. Caller holds s->mu. */
static void reach_marks(rt_stream *s, uint64_t completed)
{
    while (s->marks_count && s->marks[s->marks_head].after <= completed) {
        rt_mark m = s->marks[s->marks_head];
        s->marks_head = (s->marks_head + 1) % s->marks_cap;
        s->marks_count--;
        m.reached(m.object, m.value);
    }
}

bool rt_stream_mark(rt_stream *s, void (*reached)(void *object, uint64_t value), void *object,
                    uint64_t value)
{
    pthread_mutex_lock(&s->mu);
    rt_mark m = {reached, object, value, s->submitted};
    if (atomic_load_explicit(&s->completed, memory_order_relaxed) >= m.after) {
        reached(object, value); /* nothing pending: the stream is at this point now */
        pthread_mutex_unlock(&s->mu);
        return true;
    }
    if (s->marks_count == s->marks_cap) {
        size_t cap = s->marks_cap ? 2 * s->marks_cap : 16;
        rt_mark *marks = malloc(cap * sizeof *marks);
        if (!marks) {
            pthread_mutex_unlock(&s->mu);
            return false;
        }
        for (size_t i = 0; i < s->marks_count; i++)
            marks[i] = s->marks[(s->marks_head + i) % s->marks_cap];
        free(s->marks);
        s->marks = marks;
        s->marks_cap = cap;
        s->marks_head = 0;
    }
    s->marks[(s->marks_head + s->marks_count++) % s->marks_cap] = m;
    pthread_mutex_unlock(&s->mu);
    return true;
}

/* Runs one task outside the lock and records its failure as the stream's sticky error. */
static void run_task(rt_stream *s, rt_task *t, bool skip)
{
    int rc = skip ? 0 : t->ops->run(rt_task_payload(t));
    release_task(t);
    pthread_mutex_lock(&s->mu);
    if (rc != 0 && s->sticky == 0) {
        s->sticky = rc;
        snprintf(s->sticky_msg, sizeof s->sticky_msg, "%s: %s", t->ops->name, rt_thread_message());
    }
    /* Released: a synchroniser that sees the count (polling, without the lock) sees the
     * task's results, and the marks it reached. */
    uint64_t completed = atomic_load_explicit(&s->completed, memory_order_relaxed) + 1;
    reach_marks(s, completed);
    atomic_store_explicit(&s->completed, completed, memory_order_release);
    if (s->done_waiters) pthread_cond_broadcast(&s->done_cv);
}

/* How long an idle worker polls for the next task before it sleeps. A chain of operations
 * too long to run on the launching thread (npusim_task_length) submits a task every few to a
 * few tens of microseconds (an argmin through npuarray's general launch path: ~10 us);
 * waking a sleeping thread costs the producer a futex call and the task the scheduling
 * latency, more than the gap, so the worker stays awake instead and the producer skips the
 * signal. Bounded: an idle stream costs no CPU, and tiny operations, the ones launched back
 * to back, never reach the worker. */
#define WORKER_SPIN_NS 50000u

bool rt_poll_pause(unsigned poll, uint64_t start, uint64_t limit_ns)
{
    if (poll < RT_BUSY_POLLS) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
        return true;
    }
    sched_yield();
    return rt_now_ns() - start <= limit_ns;
}

/* Polls (without the lock) until a task is posted after `seen` or the spin time is up. After
 * a short busy phase it yields the CPU between polls: on a machine with more runnable
 * threads than cores the producer, or a kernel's pool thread, may be waiting for this very
 * core (a pure busy wait there costs an argmin chain a third more time). */
static void spin_for_work(rt_stream *s, uint64_t seen)
{
    uint64_t start = rt_now_ns();
    for (unsigned i = 1; atomic_load_explicit(&s->posted, memory_order_acquire) == seen; i++)
        if (!rt_poll_pause(i, start, WORKER_SPIN_NS)) return;
}

/* Whether the worker has nothing to run now: no task queued, or a launching thread is running
 * one (npusim_task_length), which must finish first. */
static bool worker_idle(const rt_stream *s) { return s->ring_count == 0 || s->busy; }

/* Called with s->mu held and nothing to run; returns with s->mu held once there is a task
 * to run or the stream stops (and no launching thread still runs one of its tasks). `spin`:
 * poll for the next task first. */
static void wait_for_work(rt_stream *s, bool spin)
{
    if (spin) {
        uint64_t seen = atomic_load_explicit(&s->posted, memory_order_relaxed);
        pthread_mutex_unlock(&s->mu);
        spin_for_work(s, seen);
        pthread_mutex_lock(&s->mu);
    }
    while ((worker_idle(s) && !s->stop) || s->busy) {
        s->worker_sleeping = true;
        pthread_cond_wait(&s->work_cv, &s->mu);
        s->worker_sleeping = false;
    }
}

/* Takes the next queued task (the ring is not empty) and marks the stream busy; returns
 * whether the task is to be skipped (the stream is discarded, or stopped on a failure).
 * Caller holds s->mu. */
static bool take_next(rt_stream *s, rt_task *t)
{
    *t = s->ring[s->ring_head];
    s->ring_head = (s->ring_head + 1) % s->ring_cap;
    s->ring_count--;
    s->busy = true;
    return s->discard || (s->sticky && s->failure_mode == ACL_STOP_ON_FAILURE);
}

static void *worker_main(void *arg)
{
    rt_stream *s = arg;
    bool spin = true;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if ((worker_idle(s) && !s->stop) || s->busy) wait_for_work(s, spin);
        if (s->ring_count == 0) break;
        rt_task t;
        bool skip = take_next(s, &t);
        pthread_mutex_unlock(&s->mu);
        run_task(s, &t, skip); /* returns with s->mu held */
        s->busy = false;
        /* A synchroniser was sleeping for this task: the host's next launch comes after it
         * wakes up and reads the results, later than a spin lasts, and a sleeping worker
         * lets the synchroniser run that work itself (run_queued_here). */
        spin = s->done_waiters == 0;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Stream workers (and the kernel pool's threads, pool.c) run as SCHED_BATCH threads where
 * Linux has them: the same share of the CPUs as any thread, but waking one does not preempt
 * the thread that woke it. On a machine with no idle core, a launch would otherwise hand the
 * launching thread's CPU to the worker at once (and a replay followed by a read-back would
 * bounce between the two threads), and a kernel splitting its work would be preempted by its
 * own helper; instead the waker goes on: a host that synchronises before the worker started
 * runs the queued work itself (run_queued_here), a kernel runs the chunks no helper took.
 * Best effort: a refusal leaves the normal policy. */
void rt_run_as_batch_thread(pthread_t thread)
{
#ifdef SCHED_BATCH
    struct sched_param param = {0};
    (void)pthread_setschedparam(thread, SCHED_BATCH, &param);
#else
    (void)thread;
#endif
}

rt_stream *rt_stream_new(int32_t device, bool is_default, uint32_t priority, uint32_t flags,
                         aclError *err)
{
    rt_stream *s = calloc(1, sizeof *s);
    rt_task *ring = malloc(RING_INITIAL * sizeof *ring);
    if (!s || !ring) {
        free(s);
        free(ring);
        *err = npusim_error(ACL_ERROR_RT_NO_STREAM_RESOURCE, "out of host memory for a stream");
        return NULL;
    }
    s->device = device;
    s->is_default = is_default;
    s->priority = priority;
    s->flags = flags;
    s->ring = ring;
    s->ring_cap = RING_INITIAL;
    s->sync_spins = true;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->work_cv, NULL);
    init_monotonic_cond(&s->done_cv);
    if (pthread_create(&s->worker, NULL, worker_main, s) != 0) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->work_cv);
        pthread_cond_destroy(&s->done_cv);
        free(ring);
        free(s);
        *err = npusim_error(ACL_ERROR_RT_NO_STREAM_RESOURCE, "cannot start a stream worker thread");
        return NULL;
    }
    rt_run_as_batch_thread(s->worker);
    rt_device_link_stream(s);
    if (!rt_handle_add(s, RT_HANDLE_STREAM)) {
        rt_stream_free(s, false);
        *err = npusim_error(ACL_ERROR_RT_NO_STREAM_RESOURCE, "out of host memory for a stream");
        return NULL;
    }
    return s;
}

bool rt_stream_on_worker(const rt_stream *s) { return pthread_equal(s->worker, pthread_self()); }

void rt_stream_free(rt_stream *s, bool wait)
{
    rt_handle_remove(s);
    rt_race_stream_destroyed(s);
    rt_device_unlink_stream(s);
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    s->discard = !wait;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->worker, NULL);
    /* Synchronisers pinned it before the handle was removed; every task has completed (or
     * was discarded) now, so they are about to return. */
    while (atomic_load_explicit(&s->pins, memory_order_acquire) > 0) sched_yield();
    pthread_mutex_lock(&s->mu);
    reach_marks(s, UINT64_MAX); /* none is left once every task ran: a guard, as a record's
                                 * waiters would otherwise wait for ever */
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->work_cv);
    pthread_cond_destroy(&s->done_cv);
    free(s->marks);
    free(s->ring);
    free(s);
}

rt_stream *rt_stream_resolve(aclrtStream handle, const char *api, aclError *err)
{
    if ((*err = rt_check_not_forked(api))) return NULL;
    if (!handle) {
        rt_context *ctx = rt_current_context(api);
        if (!ctx) { *err = ACL_ERROR_RT_CONTEXT_NULL; return NULL; }
        return ctx->default_stream;
    }
    if (!rt_handle_is(handle, RT_HANDLE_STREAM)) {
        *err = npusim_error(ACL_ERROR_RT_INVALID_HANDLE,
                            "%s: stream %p is not a live stream (destroyed, or never created)", api,
                            handle);
        return NULL;
    }
    return handle;
}

static bool ring_grow(rt_stream *s)
{
    size_t cap = s->ring_cap * 2;
    rt_task *ring = malloc(cap * sizeof *ring);
    if (!ring) return false;
    for (size_t i = 0; i < s->ring_count; i++) ring[i] = s->ring[(s->ring_head + i) % s->ring_cap];
    free(s->ring);
    s->ring = ring;
    s->ring_cap = cap;
    s->ring_head = 0;
    return true;
}

/* rt_stream_enqueue, counting the run of tiny tasks queued in a row (tiny_goes_here). */
static aclError enqueue(rt_stream *s, rt_task *task, const char *api, bool tiny)
{
    pthread_mutex_lock(&s->mu);
    s->tiny_run = tiny ? s->tiny_run + 1 : 0;
    if (s->ring_count == s->ring_cap && !ring_grow(s)) {
        pthread_mutex_unlock(&s->mu);
        release_task(task);
        return npusim_error(ACL_ERROR_RT_STREAM_TASK_FULL, "%s: out of host memory for the stream's queue", api);
    }
    s->ring[(s->ring_head + s->ring_count) % s->ring_cap] = *task;
    s->ring_count++;
    s->submitted++;
    /* Only a sleeping worker needs the (costly) wake-up; a spinning one sees `posted` change,
     * bumped after the unlock so that it does not then block on the lock still held here. */
    bool wake = s->worker_sleeping;
    pthread_mutex_unlock(&s->mu);
    atomic_fetch_add_explicit(&s->posted, 1, memory_order_release);
    if (wake) pthread_cond_signal(&s->work_cv);
    return ACL_SUCCESS;
}

aclError rt_stream_enqueue(rt_stream *s, rt_task *task, const char *api) { return enqueue(s, task, api, false); }

/* How many tiny tasks in a row go to an awake worker before they run on the launching thread. */
#define TINY_HANDOFFS 16

/* Whether an idle stream's tiny task runs on the launching thread. Yes when the worker sleeps:
 * waking it costs more than the task. While it is awake (polling for work after a task, see
 * spin_for_work), a few tiny tasks go to it: the hand-off costs the launching thread no more
 * than running the task, and keeps the worker awake for the larger operation that often
 * follows (the small tail of a k-means step before the next step's distances), which would
 * otherwise pay a wake-up. A longer run of tiny tasks stays on the launching thread, so the
 * worker stops polling and goes to sleep. Caller holds s->mu. */
static bool tiny_goes_here(const rt_stream *s) { return s->worker_sleeping || s->tiny_run >= TINY_HANDOFFS; }

/* How many short tasks after a synchronisation may run on the launching thread. A few
 * operations and a read of their result (`if err < tol`, float(x)) then never wake the worker;
 * a longer run of launches goes to the worker, which overlaps it with the launching. Tiny
 * tasks are not counted: they always run here when the stream is idle. */
#define RUN_HERE_AFTER_SYNC 4

/* Runs `task` on the calling thread when the stream is idle and, for a short task, soon after
 * a synchronisation (a mid one: as the first task after it), for a tiny one when tiny_goes_here; false (nothing done) otherwise. Marking the stream busy first
 * keeps the worker, and any other launching thread, from running a later task before this one
 * completes. */
static bool run_here_if_idle(rt_stream *s, rt_task *task, npusim_task_length length)
{
    bool tiny = length == NPUSIM_TASK_TINY;
    uint32_t after_sync = length == NPUSIM_TASK_MID ? 1 : RUN_HERE_AFTER_SYNC;
    pthread_mutex_lock(&s->mu);
    if (s->ring_count || s->busy || s->stop || (tiny ? !tiny_goes_here(s) : s->short_launches >= after_sync)) {
        pthread_mutex_unlock(&s->mu);
        return false;
    }
    if (!tiny) s->short_launches++;
    s->busy = true;
    s->submitted++;
    bool skip = s->discard || (s->sticky && s->failure_mode == ACL_STOP_ON_FAILURE);
    pthread_mutex_unlock(&s->mu);
    rt_error_state caller_errors;
    rt_error_save(&caller_errors);
    run_task(s, task, skip); /* returns with s->mu held */
    s->busy = false;
    /* Tasks queued meanwhile (or a stop) are the worker's, which waited for this one. */
    bool wake = s->worker_sleeping && (s->ring_count || s->stop);
    pthread_mutex_unlock(&s->mu);
    if (wake) pthread_cond_signal(&s->work_cv);
    rt_error_restore(&caller_errors);
    return true;
}

aclError rt_submit(rt_stream *s, rt_task *task, const char *api)
{
    if (atomic_load_explicit(&s->capture, memory_order_acquire))
        return rt_capture_record_task(s, task, api);
    return rt_stream_enqueue(s, task, api);
}

static rt_task inline_task(const npusim_task_ops *ops, const void *data, size_t size)
{
    rt_task t;
    t.ops = ops;
    t.payload = NULL;
    t.is_inline = true;
    memcpy(t.inline_data, data, size);
    return t;
}

aclError rt_submit_inline(rt_stream *s, const npusim_task_ops *ops, const void *data, size_t size,
                          const char *api)
{
    rt_task t = inline_task(ops, data, size);
    return rt_submit(s, &t, api);
}

/* rt_submit for a short or tiny task: run here when the stream allows it, else queued or
 * captured. */
static aclError submit_short(rt_stream *s, rt_task *task, const char *api, npusim_task_length length)
{
    if (atomic_load_explicit(&s->capture, memory_order_acquire)) return rt_capture_record_task(s, task, api);
    return run_here_if_idle(s, task, length) ? ACL_SUCCESS
                                             : enqueue(s, task, api, length == NPUSIM_TASK_TINY);
}

aclError rt_submit_inline_short(rt_stream *s, const npusim_task_ops *ops, const void *data, size_t size,
                                const char *api)
{
    rt_task t = inline_task(ops, data, size);
    return submit_short(s, &t, api, NPUSIM_TASK_SHORT);
}

aclError rt_submit_inline_tiny(rt_stream *s, const npusim_task_ops *ops, const void *data, size_t size,
                               const char *api)
{
    rt_task t = inline_task(ops, data, size);
    return submit_short(s, &t, api, NPUSIM_TASK_TINY);
}

aclError npusim_launch(aclrtStream stream, const npusim_task_ops *ops, void *payload)
{
    aclError rc = ACL_SUCCESS;
    rt_stream *s = ops && ops->run ? rt_stream_resolve(stream, ops->name, &rc) : NULL;
    if (!s) {
        if (!rc) rc = npusim_error(ACL_ERROR_INVALID_PARAM, "npusim_launch: ops or ops->run is NULL");
        if (ops && ops->release) ops->release(payload);
        return rc;
    }
    rt_task t = {.ops = ops, .payload = payload, .is_inline = false};
    return rt_submit(s, &t, ops->name);
}

aclError npusim_launch_checked(aclrtStream stream, const npusim_task_ops *ops, void *payload,
                               npusim_task_length length, int (*check)(void *payload, int32_t device))
{
    aclError rc = ACL_SUCCESS;
    rt_stream *s = ops && ops->run ? rt_stream_resolve(stream, ops->name, &rc) : NULL;
    if (!s) return npusim_launch(stream, ops, payload); /* reports the error, releases */
    rt_task t = {.ops = ops, .payload = payload, .is_inline = false};
    if ((rc = check(payload, s->device))) {
        release_task(&t);
        return rc;
    }
    if (length == NPUSIM_TASK_LONG) return rt_submit(s, &t, ops->name);
    return submit_short(s, &t, ops->name, length);
}

int32_t npusim_stream_device(aclrtStream stream)
{
    aclError rc;
    rt_stream *s = rt_stream_resolve(stream, "npusim_stream_device", &rc);
    return s ? s->device : -1;
}

/* How long a synchronising thread polls for the stream's last task before it sleeps. Waking a
 * thread that sleeps on the condition variable costs it several microseconds of scheduling
 * after the worker signals, longer than a short task itself; a wait that ends within this
 * window pays none of it. */
#define SYNC_SPIN_NS 20000u

static bool completed_by(const rt_stream *s, uint64_t target)
{
    return atomic_load_explicit(&s->completed, memory_order_acquire) >= target;
}

/* Polls (without the lock) until the stream has completed `target` tasks or the spin time is
 * up; yields the CPU between polls after a short busy phase, as spin_for_work does. */
static bool spin_for_completion(const rt_stream *s, uint64_t target)
{
    uint64_t start = rt_now_ns();
    for (unsigned i = 1; !completed_by(s, target); i++)
        if (!rt_poll_pause(i, start, SYNC_SPIN_NS)) return false;
    return true;
}

/* Sleeps until `target` tasks completed or the deadline (timeout_ms > 0) passed. Called and
 * returns with s->mu held. A stream whose waits outlast the spin stops polling (it would take
 * a CPU from the kernels' pool threads while they work); one short sleep turns it back on. */
static aclError sleep_for_completion(rt_stream *s, uint64_t target, int32_t timeout_ms,
                                     const struct timespec *deadline)
{
    aclError rc = ACL_SUCCESS;
    uint64_t start = rt_now_ns();
    s->done_waiters++;
    while (!completed_by(s, target) && !rc)
        if (timeout_ms > 0 && pthread_cond_timedwait(&s->done_cv, &s->mu, deadline) != 0 &&
            !completed_by(s, target))
            rc = ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
        else if (timeout_ms <= 0)
            pthread_cond_wait(&s->done_cv, &s->mu);
    s->done_waiters--;
    s->sync_spins = rt_now_ns() - start <= SYNC_SPIN_NS;
    return rc;
}

/* Runs the stream's queued tasks on the synchronising thread, in order, while the worker runs
 * none of them, up to the last task the wait is for: the thread would otherwise sleep until
 * the worker, woken for them, had run them, and then be woken itself. Tasks that run the
 * user's host code are left to the worker (they run on runtime threads only). Called and
 * returns with s->mu held. */
static void run_queued_here(rt_stream *s, uint64_t target)
{
    if (completed_by(s, target) || s->ring_count == 0 || s->busy || s->stop) return;
    rt_error_state caller_errors;
    rt_error_save(&caller_errors);
    while (!completed_by(s, target) && s->ring_count && !s->busy && !s->stop &&
           !rt_task_runs_host_code(&s->ring[s->ring_head])) {
        rt_task t;
        bool skip = take_next(s, &t);
        pthread_mutex_unlock(&s->mu);
        run_task(s, &t, skip); /* returns with s->mu held */
        s->busy = false;
    }
    /* Later tasks (or a stop) are the worker's, which waited for these. */
    if (s->worker_sleeping && (s->ring_count || s->stop)) pthread_cond_signal(&s->work_cv);
    rt_error_restore(&caller_errors);
}

static aclError wait_idle(rt_stream *s, int32_t timeout_ms, const char *api, bool *finished);

aclError rt_stream_wait_idle(rt_stream *s, int32_t timeout_ms, const char *api)
{
    struct rc_vc *known = rt_race_snapshot_stream(s);
    bool finished = false;
    aclError rc = wait_idle(s, timeout_ms, api, &finished);
    rt_race_host_learns(known, finished); /* also when a task failed: the work is over */
    return rc;
}

static aclError wait_idle(rt_stream *s, int32_t timeout_ms, const char *api, bool *finished)
{
    if (rt_stream_on_worker(s))
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: called from a task running on the same stream (it would wait for "
                            "itself)", api);
    struct timespec deadline;
    if (timeout_ms > 0) rt_deadline(&deadline, timeout_ms);
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&s->mu);
    uint64_t target = s->submitted;
    s->short_launches = 0;
    if (timeout_ms <= 0) run_queued_here(s, target); /* a task run here cannot time out */
    if (!completed_by(s, target) && s->sync_spins) {
        pthread_mutex_unlock(&s->mu);
        bool done = spin_for_completion(s, target);
        pthread_mutex_lock(&s->mu);
        if (!done) s->sync_spins = false;
    }
    if (!completed_by(s, target)) rc = sleep_for_completion(s, target, timeout_ms, &deadline);
    *finished = rc == ACL_SUCCESS;
    char msg[RT_MSG_BYTES];
    aclError sticky = rc ? ACL_SUCCESS : s->sticky;
    if (sticky) {
        memcpy(msg, s->sticky_msg, sizeof msg);
        s->sticky = ACL_SUCCESS;
    }
    pthread_mutex_unlock(&s->mu);
    if (rc)
        return npusim_error(rc, "%s: stream %d did not finish within %d ms", api, (int)s->id,
                            (int)timeout_ms);
    if (sticky)
        return npusim_error(sticky, "%s: a task on stream %d failed: %s", api, (int)s->id, msg);
    return ACL_SUCCESS;
}

/* ---- AscendCL API ---------------------------------------------------------------------- */

static aclError create_stream(aclrtStream *stream, uint32_t priority, uint32_t flag, const char *api)
{
    if (!stream) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: stream is NULL", api);
    if (priority > 7)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID, "%s: priority %u is outside [0, 7]", api, priority);
    rt_context *ctx = rt_current_context(api);
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_new(ctx->device, false, priority, flag, &rc);
    if (!s) return rc;
    *stream = s;
    return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream) { return create_stream(stream, 0, 0, "aclrtCreateStream"); }

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    return create_stream(stream, priority, flag, "aclrtCreateStreamWithConfig");
}

static aclError destroy_stream(aclrtStream stream, bool wait, const char *api)
{
    if (!stream)
        return npusim_error(ACL_ERROR_INVALID_PARAM,
                            "%s: stream is NULL (the default stream cannot be destroyed)", api);
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    if (s->is_default)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: %p is a context's default stream; it cannot be destroyed", api, stream);
    if (rt_stream_is_capturing(s))
        return npusim_error(ACL_ERROR_RT_STREAM_CAPTURED,
                            "%s: stream %d is capturing; end the capture first", api, (int)s->id);
    if (rt_stream_on_worker(s))
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: called from a task running on the stream itself", api);
    if (!rt_handle_take(s, RT_HANDLE_STREAM)) /* another thread destroyed it meanwhile */
        return npusim_error(ACL_ERROR_RT_INVALID_HANDLE, "%s: stream %p is not a live stream "
                            "(destroyed, or never created)", api, stream);
    rt_stream_free(s, wait);
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) { return destroy_stream(stream, true, "aclrtDestroyStream"); }

aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    return destroy_stream(stream, false, "aclrtDestroyStreamForce");
}

static void pin_stream(void *s) { atomic_fetch_add_explicit(&((rt_stream *)s)->pins, 1, memory_order_relaxed); }

static aclError sync_stream(aclrtStream stream, int32_t timeout, const char *api)
{
    if (timeout == 0 || timeout < -1)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: timeout %d must be -1 (wait forever) or > 0 ms", api, (int)timeout);
    aclError rc = ACL_SUCCESS;
    rt_stream *s;
    if (!stream) {
        if (!(s = rt_stream_resolve(stream, api, &rc))) return rc;
    } else {
        /* Validated and pinned in one look-up: a concurrent aclrtDestroyStream frees it only
         * after this wait. */
        if ((rc = rt_check_not_forked(api))) return rc;
        if (!rt_handle_pin(stream, RT_HANDLE_STREAM, pin_stream))
            return npusim_error(ACL_ERROR_RT_INVALID_HANDLE,
                                "%s: stream %p is not a live stream (destroyed, or never created)",
                                api, stream);
        s = stream;
    }
    if (rt_stream_is_capturing(s))
        rc = npusim_error(ACL_ERROR_RT_STREAM_CAPTURED,
                          "%s: stream %d is capturing; synchronisation is not allowed during "
                          "capture", api, (int)s->id);
    else
        rc = rt_stream_wait_idle(s, timeout, api);
    if (stream) atomic_fetch_sub_explicit(&s->pins, 1, memory_order_release);
    return rc;
}

aclError aclrtSynchronizeStream(aclrtStream stream) { return sync_stream(stream, -1, "aclrtSynchronizeStream"); }

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    return sync_stream(stream, timeout, "aclrtSynchronizeStreamWithTimeout");
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    const char *api = "aclrtStreamQuery";
    if (!status) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: status is NULL", api);
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    if (rt_stream_is_capturing(s))
        return npusim_error(ACL_ERROR_RT_STREAM_CAPTURED,
                            "%s: stream %d is capturing; queries are not allowed during capture",
                            api, (int)s->id);
    struct rc_vc *known = rt_race_snapshot_stream(s);
    pthread_mutex_lock(&s->mu);
    *status = completed_by(s, s->submitted) ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    pthread_mutex_unlock(&s->mu);
    rt_race_host_learns(known, *status == ACL_STREAM_STATUS_COMPLETE);
    return ACL_SUCCESS;
}

aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    if (!streamId) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtStreamGetId: streamId is NULL");
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, "aclrtStreamGetId", &rc);
    if (!s) return rc;
    *streamId = s->id;
    return ACL_SUCCESS;
}

aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
    if (!priority) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtStreamGetPriority: priority is NULL");
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, "aclrtStreamGetPriority", &rc);
    if (!s) return rc;
    *priority = s->priority;
    return ACL_SUCCESS;
}

aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
    if (!flags) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtStreamGetFlags: flags is NULL");
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, "aclrtStreamGetFlags", &rc);
    if (!s) return rc;
    *flags = s->flags;
    return ACL_SUCCESS;
}

aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    const char *api = "aclrtSetStreamFailureMode";
    if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE)
        return npusim_error(ACL_ERROR_INVALID_PARAM,
                            "%s: mode %llu is neither ACL_CONTINUE_ON_FAILURE nor ACL_STOP_ON_FAILURE",
                            api, (unsigned long long)mode);
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    pthread_mutex_lock(&s->mu);
    s->failure_mode = mode;
    pthread_mutex_unlock(&s->mu);
    return ACL_SUCCESS;
}

/* ---- host functions -------------------------------------------------------------------- */

typedef struct { aclrtHostFunc fn; void *args; } host_func_task;

static int host_func_run(void *p)
{
    host_func_task *t = p;
    t->fn(t->args);
    return 0;
}

static const npusim_task_ops host_func_ops = {"aclrtLaunchHostFunc", host_func_run, NULL};

bool rt_task_runs_host_code(const rt_task *t)
{
    return t->ops == &host_func_ops || t->ops == &rt_callback_ops || rt_replay_runs_host_code(t);
}

aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    const char *api = "aclrtLaunchHostFunc";
    if (!fn) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: fn is NULL", api);
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    host_func_task t = {fn, args};
    return rt_submit_inline(s, &host_func_ops, &t, sizeof t, api);
}
