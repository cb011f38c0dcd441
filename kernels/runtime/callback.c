/* aclrtLaunchCallback and the report threads: a user thread subscribed to a stream with
 * aclrtSubscribeReport runs that stream's callbacks from aclrtProcessReport. A BLOCK callback
 * holds its stream until processed; NO_BLOCK lets the stream go on. */
#include <stdlib.h>

#include "rt_internal.h"

#define MAX_SUBSCRIBERS 1024

typedef struct report {
    aclrtCallback fn;
    void *user_data;
    bool block, done;
    struct report *next;
} report;

typedef struct rt_subscriber {
    uint64_t thread_id;
    int nstreams;                 /* streams subscribed; 0: inactive */
    report *head, *tail;
    pthread_cond_t cv;            /* reports arrive / a blocking report is done */
} rt_subscriber;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static rt_subscriber *g_subs[MAX_SUBSCRIBERS]; /* never freed: a thread may be waiting on one */
static int g_nsubs;

static rt_subscriber *find_sub(uint64_t thread_id)
{
    for (int i = 0; i < g_nsubs; i++)
        if (g_subs[i]->thread_id == thread_id) return g_subs[i];
    return NULL;
}

/* Caller holds g_mu and has checked the limit. */
static rt_subscriber *new_subscriber(uint64_t thread_id)
{
    rt_subscriber *sub = calloc(1, sizeof *sub);
    if (!sub) return NULL;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&sub->cv, &attr);
    pthread_condattr_destroy(&attr);
    sub->thread_id = thread_id;
    g_subs[g_nsubs++] = sub;
    return sub;
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    const char *api = "aclrtSubscribeReport";
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    pthread_mutex_lock(&g_mu);
    rt_subscriber *sub = find_sub(threadId);
    if (atomic_load(&s->subscriber)) {
        rc = npusim_error(ACL_ERROR_REPEAT_SUBSCRIBE, "%s: stream %d already has a report thread",
                          api, (int)s->id);
    } else if (!sub && g_nsubs == MAX_SUBSCRIBERS) {
        rc = npusim_error(ACL_ERROR_RT_OVER_LIMIT, "%s: at most %d report threads", api, MAX_SUBSCRIBERS);
    } else if (!sub && !(sub = new_subscriber(threadId))) {
        rc = npusim_error(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    } else {
        sub->nstreams++;
        atomic_store(&s->subscriber, sub);
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    const char *api = "aclrtUnSubscribeReport";
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    pthread_mutex_lock(&g_mu);
    rt_subscriber *sub = atomic_load(&s->subscriber);
    if (!sub) {
        rc = npusim_error(ACL_ERROR_STREAM_NOT_SUBSCRIBE, "%s: stream %d has no report thread", api,
                          (int)s->id);
    } else if (sub->thread_id != threadId) {
        rc = npusim_error(ACL_ERROR_THREAD_NOT_SUBSCRIBE,
                          "%s: thread %llu is not the report thread of stream %d", api,
                          (unsigned long long)threadId, (int)s->id);
    } else {
        sub->nstreams--;
        atomic_store(&s->subscriber, NULL);
        pthread_cond_broadcast(&sub->cv);
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

typedef struct { aclrtCallback fn; void *user_data; bool block; rt_stream *stream; } callback_task;

static int callback_run(void *p)
{
    callback_task *t = p;
    rt_subscriber *sub = atomic_load(&t->stream->subscriber);
    if (!sub)
        return npusim_error(ACL_ERROR_STREAM_NOT_SUBSCRIBE,
                            "the stream's report thread unsubscribed before the callback ran");
    report *r = malloc(sizeof *r);
    if (!r) return npusim_error(ACL_ERROR_BAD_ALLOC, "out of host memory for a callback report");
    *r = (report){t->fn, t->user_data, t->block, false, NULL};
    pthread_mutex_lock(&g_mu);
    if (sub->tail) sub->tail->next = r;
    else sub->head = r;
    sub->tail = r;
    pthread_cond_broadcast(&sub->cv);
    if (t->block) {
        while (!r->done) pthread_cond_wait(&sub->cv, &g_mu);
        free(r);
    }
    pthread_mutex_unlock(&g_mu);
    return 0;
}

const npusim_task_ops rt_callback_ops = {"aclrtLaunchCallback", callback_run, NULL};

aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                             aclrtStream stream)
{
    const char *api = "aclrtLaunchCallback";
    if (!fn) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: fn is NULL", api);
    if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: blockType %d is not an aclrtCallbackBlockType",
                            api, (int)blockType);
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    if (!atomic_load(&s->subscriber))
        return npusim_error(ACL_ERROR_STREAM_NOT_SUBSCRIBE,
                            "%s: stream %d has no report thread; call aclrtSubscribeReport first", api,
                            (int)s->id);
    callback_task t = {fn, userData, blockType == ACL_CALLBACK_BLOCK, s};
    return rt_submit_inline(s, &rt_callback_ops, &t, sizeof t, api);
}

aclError aclrtProcessReport(int32_t timeout)
{
    const char *api = "aclrtProcessReport";
    if (timeout == 0 || timeout < -1)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: timeout %d must be -1 or > 0 ms", api, (int)timeout);
    struct timespec deadline;
    if (timeout > 0) rt_deadline(&deadline, timeout);
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_mu);
    rt_subscriber *sub = find_sub((uint64_t)pthread_self());
    if (!sub || sub->nstreams == 0) {
        pthread_mutex_unlock(&g_mu);
        return npusim_error(ACL_ERROR_THREAD_NOT_SUBSCRIBE,
                            "%s: the calling thread is not subscribed to any stream (aclrtSubscribeReport)",
                            api);
    }
    while (!sub->head && !rc && sub->nstreams > 0)
        if (timeout > 0 ? pthread_cond_timedwait(&sub->cv, &g_mu, &deadline) != 0 && !sub->head
                        : (pthread_cond_wait(&sub->cv, &g_mu), false))
            rc = ACL_ERROR_WAIT_CALLBACK_TIMEOUT;
    report *r = sub->head;
    if (r) {
        sub->head = r->next;
        if (!sub->head) sub->tail = NULL;
    }
    pthread_mutex_unlock(&g_mu);
    if (!r) {
        if (!rc) rc = ACL_ERROR_THREAD_NOT_SUBSCRIBE;
        return npusim_error(rc, rc == ACL_ERROR_WAIT_CALLBACK_TIMEOUT
                                    ? "%s: no callback arrived within the timeout"
                                    : "%s: the thread was unsubscribed while waiting", api);
    }
    bool block = r->block; /* a blocking report is freed by its stream once done */
    r->fn(r->user_data);
    if (!block) {
        free(r);
        return ACL_SUCCESS;
    }
    pthread_mutex_lock(&g_mu);
    r->done = true;
    pthread_cond_broadcast(&sub->cv);
    pthread_mutex_unlock(&g_mu);
    return ACL_SUCCESS;
}
