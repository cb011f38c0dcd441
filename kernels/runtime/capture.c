/* Graph capture (aclmdlRI). Between aclmdlRICaptureBegin and aclmdlRICaptureEnd the tasks issued
 * to the origin stream, and to every stream that joins it through an event recorded in the
 * capture, become nodes of a graph; each node depends on the frontier (latest nodes) of its
 * stream, and an event wait adds the frontier the event was recorded with. A finished capture
 * is the model: aclmdlRIExecuteAsync enqueues one task that replays the nodes, each captured
 * stream as a lane on its own thread so independent branches run concurrently, a node waiting
 * only for the nodes it depends on. The model owns the captured payloads until destroyed.
 * A short replay runs its nodes one after another instead (waking a thread per branch costs
 * more than the branches take), on the launching thread when it can, as a short operator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racecheck.h"
#include "rt_internal.h"

typedef struct { int *ids; int n, cap; } node_set;

typedef struct {
    rt_task task;
    int lane;
    node_set deps;
    bool signals;          /* a node of another lane depends on it */
} cap_node;

typedef struct {
    rt_stream *stream;
    node_set frontier;     /* nodes the stream's next task depends on */
    node_set nodes;        /* this lane's nodes in order (built at End) */
    int last_record;       /* the record (index in records) the stream's last operation was, or -1 */
} cap_lane;

typedef struct {
    rt_event *event;
    node_set frontier;
    bool waited;           /* a stream of the capture waited for this record */
} cap_record;

typedef struct rt_capture {
    /* Capture phase (guarded by g_mu). */
    aclmdlRICaptureMode mode;
    pthread_t thread;
    bool active, invalidated;
    char invalid_msg[RT_MSG_BYTES];
    struct rt_capture *next_active;
    cap_node *nodes;
    int nnodes, cap_nodes;
    cap_lane *lanes;       /* lane 0: the origin stream */
    int nlanes, cap_lanes;
    cap_record *records;
    int nrecords, cap_records;

    /* Model phase. */
    atomic_int refs;       /* the user's handle + queued replays */
    int32_t device;
    pthread_mutex_t run_mu;  /* one replay at a time */
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* new replay generation / a signalling node finished */
    pthread_cond_t done_cv;  /* helper lanes finished */
    uint64_t generation;
    _Atomic uint64_t *node_done; /* generation in which each node last finished */
    int lanes_pending;
    bool stopping;
    pthread_t *helpers;
    int nhelpers;
    aclError error;
    char error_msg[RT_MSG_BYTES];
    rt_stream *exec_stream;  /* for aclmdlRIExecute, made on first use */
    bool runs_host_code;     /* a node runs the user's host code (host function, callback) */
    _Atomic uint64_t replay_ns; /* how long the latest replay took; UINT64_MAX before the first */
} rt_capture;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static rt_capture *g_active;          /* list of active captures */
static atomic_int g_nactive;
static _Thread_local aclmdlRICaptureMode tls_mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;

/* ---- small containers ------------------------------------------------------------------- */

static bool grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap) return true;
    int ncap = *cap ? *cap * 2 : 8;
    while (ncap < need) ncap *= 2;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

static bool set_add(node_set *s, int id)
{
    for (int i = 0; i < s->n; i++)
        if (s->ids[i] == id) return true;
    if (!grow((void **)&s->ids, &s->cap, s->n + 1, sizeof *s->ids)) return false;
    s->ids[s->n++] = id;
    return true;
}

static bool set_copy(node_set *dst, const node_set *src)
{
    dst->n = 0;
    for (int i = 0; i < src->n; i++)
        if (!set_add(dst, src->ids[i])) return false;
    return true;
}

static void set_free(node_set *s) { free(s->ids); }

/* ---- capture state helpers (caller holds g_mu) ---------------------------------------------- */

static int lane_of(rt_capture *c, const rt_stream *s)
{
    for (int i = 0; i < c->nlanes; i++)
        if (c->lanes[i].stream == s) return i;
    return -1;
}

static int add_lane(rt_capture *c, rt_stream *s)
{
    if (!grow((void **)&c->lanes, &c->cap_lanes, c->nlanes + 1, sizeof *c->lanes)) return -1;
    c->lanes[c->nlanes] = (cap_lane){.stream = s, .last_record = -1};
    atomic_store(&s->capture, c);
    return c->nlanes++;
}

static void invalidate(rt_capture *c, const char *why)
{
    if (c->invalidated) return;
    c->invalidated = true;
    snprintf(c->invalid_msg, sizeof c->invalid_msg, "%s", why);
}

/* Takes the streams and events out of the capture (End, successful or not). */
static void detach(rt_capture *c)
{
    for (int i = 0; i < c->nlanes; i++) atomic_store(&c->lanes[i].stream->capture, NULL);
    for (int i = 0; i < c->nrecords; i++) {
        rt_event *e = c->records[i].event;
        if (e->capture == c) e->capture = NULL;
    }
    for (rt_capture **p = &g_active; *p; p = &(*p)->next_active)
        if (*p == c) { *p = c->next_active; break; }
    c->active = false;
    atomic_fetch_sub(&g_nactive, 1);
}

/* Frees everything a capture or model owns. Not under g_mu. */
static void capture_free(rt_capture *c)
{
    rt_race_forget_model(c);
    if (c->helpers) {
        pthread_mutex_lock(&c->mu);
        c->stopping = true;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        for (int i = 0; i < c->nhelpers; i++) pthread_join(c->helpers[i], NULL);
        free(c->helpers);
    }
    /* A model released by its own execution stream's worker cannot join that worker: it
     * then leaves the (idle) stream behind. */
    if (c->exec_stream && !rt_stream_on_worker(c->exec_stream)) rt_stream_free(c->exec_stream, true);
    for (int i = 0; i < c->nnodes; i++) {
        rt_task *t = &c->nodes[i].task;
        if (t->ops->release) t->ops->release(rt_task_payload(t));
        set_free(&c->nodes[i].deps);
    }
    for (int i = 0; i < c->nlanes; i++) {
        set_free(&c->lanes[i].frontier);
        set_free(&c->lanes[i].nodes);
    }
    for (int i = 0; i < c->nrecords; i++) {
        rt_event_release(c->records[i].event);
        set_free(&c->records[i].frontier);
    }
    free(c->nodes);
    free(c->lanes);
    free(c->records);
    free((void *)c->node_done);
    pthread_mutex_destroy(&c->run_mu);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    pthread_cond_destroy(&c->done_cv);
    free(c);
}

static void model_release(rt_capture *c)
{
    if (atomic_fetch_sub(&c->refs, 1) == 1) capture_free(c);
}

/* ---- hooks used by streams, events and copies --------------------------------------------- */

bool rt_stream_is_capturing(const rt_stream *s)
{
    return atomic_load_explicit(&((rt_stream *)s)->capture, memory_order_acquire) != NULL;
}

aclError rt_capture_record_task(rt_stream *s, rt_task *task, const char *api)
{
    pthread_mutex_lock(&g_mu);
    rt_capture *c = atomic_load(&s->capture);
    if (!c) { /* the capture ended meanwhile: the task runs normally */
        pthread_mutex_unlock(&g_mu);
        return rt_stream_enqueue(s, task, api);
    }
    aclError rc = ACL_SUCCESS;
    int lane = lane_of(c, s);
    if (c->invalidated) {
        rc = npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                          "%s: the capture of this stream was invalidated: %s", api, c->invalid_msg);
    } else if (!grow((void **)&c->nodes, &c->cap_nodes, c->nnodes + 1, sizeof *c->nodes)) {
        invalidate(c, "out of host memory while recording");
        rc = npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "%s: out of host memory", api);
    } else {
        int id = c->nnodes;
        cap_node *n = &c->nodes[id];
        *n = (cap_node){.task = *task, .lane = lane};
        cap_lane *l = &c->lanes[lane];
        bool ok = set_copy(&n->deps, &l->frontier);
        l->frontier.n = 0;
        l->last_record = -1;
        ok = ok && set_add(&l->frontier, id);
        c->nnodes++;
        if (!ok) {
            invalidate(c, "out of host memory while recording");
            rc = npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "%s: out of host memory", api);
        }
        pthread_mutex_unlock(&g_mu);
        return rc; /* the node owns the payload now */
    }
    pthread_mutex_unlock(&g_mu);
    if (task->ops->release) task->ops->release(rt_task_payload(task));
    return rc;
}

int rt_capture_event_record(rt_stream *s, rt_event *e, const char *api, aclError *err)
{
    if (atomic_load(&g_nactive) == 0) return -1;
    pthread_mutex_lock(&g_mu);
    rt_capture *c = atomic_load(&s->capture);
    if (!c) {
        e->capture = NULL; /* recorded outside any capture from now on */
        pthread_mutex_unlock(&g_mu);
        return -1;
    }
    *err = ACL_SUCCESS;
    if (c->invalidated) {
        *err = npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                            "%s: the capture of this stream was invalidated: %s", api, c->invalid_msg);
    } else if (e->capture && e->capture != c) {
        *err = npusim_error(ACL_ERROR_STREAM_CAPTURE_CONFLICT,
                            "%s: the event is already part of another capture", api);
    } else if (!grow((void **)&c->records, &c->cap_records, c->nrecords + 1, sizeof *c->records)) {
        *err = npusim_error(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%s: out of host memory", api);
    } else {
        cap_record *r = &c->records[c->nrecords];
        cap_lane *l = &c->lanes[lane_of(c, s)];
        *r = (cap_record){.event = e};
        if (!set_copy(&r->frontier, &l->frontier)) {
            set_free(&r->frontier);
            *err = npusim_error(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%s: out of host memory", api);
        } else {
            rt_event_retain(e);
            e->capture = c;
            l->last_record = e->capture_record = c->nrecords++;
        }
    }
    pthread_mutex_unlock(&g_mu);
    return 0;
}

int rt_capture_stream_wait(rt_stream *s, rt_event *e, const char *api, aclError *err)
{
    if (atomic_load(&g_nactive) == 0) return -1;
    pthread_mutex_lock(&g_mu);
    rt_capture *sc = atomic_load(&s->capture), *ec = e->capture;
    if (!sc && !ec) {
        pthread_mutex_unlock(&g_mu);
        return -1;
    }
    *err = ACL_SUCCESS;
    if (sc && ec && sc != ec) {
        *err = npusim_error(ACL_ERROR_STREAM_CAPTURE_CONFLICT,
                            "%s: the stream and the event belong to different captures", api);
    } else if (sc && !ec) {
        *err = npusim_error(ACL_ERROR_RT_CAPTURE_DEPENDENCY,
                            "%s: the stream is capturing but the event was not recorded in its capture "
                            "(an event wait needs a matching captured aclrtRecordEvent)", api);
    } else if (ec->invalidated) {
        *err = npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                            "%s: the capture was invalidated: %s", api, ec->invalid_msg);
    } else if (!sc && s->is_default) {
        *err = npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT,
                            "%s: the default stream cannot join a capture; use a created stream", api);
    } else {
        int lane = sc ? lane_of(ec, s) : add_lane(ec, s);
        bool ok = lane >= 0;
        node_set *from = &ec->records[e->capture_record].frontier;
        for (int i = 0; ok && i < from->n; i++) ok = set_add(&ec->lanes[lane].frontier, from->ids[i]);
        if (ok) {
            ec->records[e->capture_record].waited = true;
            ec->lanes[lane].last_record = -1;
        } else {
            invalidate(ec, "out of host memory while recording");
            *err = npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "%s: out of host memory", api);
        }
    }
    pthread_mutex_unlock(&g_mu);
    return 0;
}

/* Whether mode rules forbid the calling thread an unsafe call while capture c is active. */
static bool forbids(const rt_capture *c)
{
    if (tls_mode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED) return false;
    bool capturing_thread = pthread_equal(c->thread, pthread_self());
    switch (c->mode) {
    case ACL_MODEL_RI_CAPTURE_MODE_GLOBAL:
        return capturing_thread || tls_mode != ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
    case ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL:
        return capturing_thread;
    default:
        return false;
    }
}

static const char *mode_name(aclmdlRICaptureMode m)
{
    return m == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ? "GLOBAL"
           : m == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL ? "THREAD_LOCAL" : "RELAXED";
}

aclError rt_capture_check_unsafe(const char *api, aclError code)
{
    if (atomic_load(&g_nactive) == 0) return ACL_SUCCESS;
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_mu);
    for (rt_capture *c = g_active; c && !rc; c = c->next_active)
        if (forbids(c))
            rc = npusim_error(code,
                              "%s: not allowed while a stream captures in %s mode (this thread's mode: "
                              "%s); switch with aclmdlRICaptureThreadExchangeMode to RELAXED", api,
                              mode_name(c->mode), mode_name(tls_mode));
    pthread_mutex_unlock(&g_mu);
    return rc;
}

aclError rt_capture_check_event(const rt_event *e, const char *api)
{
    if (atomic_load(&g_nactive) == 0) return ACL_SUCCESS;
    pthread_mutex_lock(&g_mu);
    bool captured = e->capture != NULL;
    pthread_mutex_unlock(&g_mu);
    if (!captured) return ACL_SUCCESS;
    return npusim_error(ACL_ERROR_RT_EVENT_CAPTURED,
                        "%s: the event was recorded in an active capture; it cannot be synchronised "
                        "or queried until aclmdlRICaptureEnd", api);
}

/* ---- begin / end ------------------------------------------------------------------------ */

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    const char *api = "aclmdlRICaptureBegin";
    if ((unsigned)mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: mode %d is not an aclmdlRICaptureMode", api, (int)mode);
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    if (s->is_default)
        return npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT,
                            "%s: the default stream cannot be captured; create a stream with "
                            "aclrtCreateStream", api);
    rt_capture *c = calloc(1, sizeof *c);
    if (!c) return npusim_error(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%s: out of host memory", api);
    c->mode = mode;
    c->thread = pthread_self();
    c->device = s->device;
    c->active = true;
    atomic_init(&c->refs, 1);
    atomic_init(&c->replay_ns, UINT64_MAX);
    pthread_mutex_init(&c->run_mu, NULL);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    pthread_cond_init(&c->done_cv, NULL);
    pthread_mutex_lock(&g_mu);
    if (atomic_load(&s->capture)) {
        rc = npusim_error(ACL_ERROR_RT_STREAM_CAPTURED, "%s: stream %d is already capturing", api, (int)s->id);
    } else if (add_lane(c, s) < 0) {
        rc = npusim_error(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%s: out of host memory", api);
    } else {
        c->next_active = g_active;
        g_active = c;
        atomic_fetch_add(&g_nactive, 1);
    }
    pthread_mutex_unlock(&g_mu);
    if (rc) capture_free(c);
    return rc;
}

#define ALL_JOINED (-1)
#define NO_MEMORY (-2)

/* The first joined lane that does not return to the origin, ALL_JOINED, or NO_MEMORY. As in
 * CANN, a joined stream's last operation must be an event record that the capture waits for,
 * and every node it ends with must be an ancestor of the origin's last nodes. Caller holds
 * g_mu. */
static int first_unjoined_lane(rt_capture *c)
{
    bool *reach = calloc((size_t)c->nnodes + 1, sizeof *reach);
    int *stack = malloc(((size_t)c->nnodes + 1) * sizeof *stack);
    int top = 0, bad = ALL_JOINED;
    if (!reach || !stack) bad = NO_MEMORY;
    /* Nodes are marked when pushed, so each is pushed once and the stack never overflows. */
    for (int i = 0; bad == ALL_JOINED && i < c->lanes[0].frontier.n; i++) {
        int id = c->lanes[0].frontier.ids[i];
        if (!reach[id]) { reach[id] = true; stack[top++] = id; }
    }
    while (bad == ALL_JOINED && top > 0) {
        int id = stack[--top];
        for (int j = 0; j < c->nodes[id].deps.n; j++) {
            int dep = c->nodes[id].deps.ids[j];
            if (!reach[dep]) { reach[dep] = true; stack[top++] = dep; }
        }
    }
    for (int l = 1; bad == ALL_JOINED && l < c->nlanes; l++) {
        int last = c->lanes[l].last_record;
        if (last < 0 || !c->records[last].waited) bad = l;
        for (int i = 0; bad == ALL_JOINED && i < c->lanes[l].frontier.n; i++)
            if (!reach[c->lanes[l].frontier.ids[i]]) bad = l;
    }
    free(reach);
    free(stack);
    return bad;
}

/* Turns a finished capture into a replayable model: per-lane node lists and signal flags. */
static bool build_model(rt_capture *c)
{
    c->node_done = calloc((size_t)c->nnodes + 1, sizeof *c->node_done);
    if (!c->node_done) return false;
    for (int i = 0; i < c->nnodes; i++) {
        cap_node *n = &c->nodes[i];
        c->runs_host_code |= rt_task_runs_host_code(&n->task);
        if (!set_add(&c->lanes[n->lane].nodes, i)) return false;
        for (int j = 0; j < n->deps.n; j++)
            if (c->nodes[n->deps.ids[j]].lane != n->lane) c->nodes[n->deps.ids[j]].signals = true;
    }
    return true;
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    const char *api = "aclmdlRICaptureEnd";
    if (!modelRI) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: modelRI is NULL", api);
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    pthread_mutex_lock(&g_mu);
    rt_capture *c = atomic_load(&s->capture);
    bool failed_end = false; /* the capture is over although End failed */
    if (!c) {
        rc = npusim_error(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "%s: stream %d is not capturing", api, (int)s->id);
    } else if (c->lanes[0].stream != s) {
        rc = npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
                          "%s: stream %d joined a capture begun on stream %d; end it there", api,
                          (int)s->id, (int)c->lanes[0].stream->id);
    } else if (c->mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self())) {
        rc = npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                          "%s: capture in %s mode must end on the thread that began it", api,
                          mode_name(c->mode));
        failed_end = true;
    } else if (c->invalidated) {
        rc = npusim_error(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "%s: the capture was invalidated: %s",
                          api, c->invalid_msg);
        failed_end = true;
    } else {
        int lane = first_unjoined_lane(c);
        if (lane >= 0)
            rc = npusim_error(ACL_ERROR_RT_STREAM_UNJOINED,
                              "%s: stream %d joined the capture but its last tasks do not return to the "
                              "origin stream (record an event on it and wait for that event on the "
                              "origin stream, and issue nothing on it afterwards)", api,
                              (int)c->lanes[lane].stream->id);
        else if (lane == NO_MEMORY || !build_model(c))
            rc = npusim_error(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%s: out of host memory", api);
        failed_end = rc != ACL_SUCCESS;
    }
    if (failed_end || !rc) detach(c);
    pthread_mutex_unlock(&g_mu);
    if (failed_end) {
        capture_free(c);
        return rc;
    }
    if (rc) return rc;
    if (!rt_handle_add(c, RT_HANDLE_MODEL)) {
        capture_free(c);
        return npusim_error(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%s: out of host memory", api);
    }
    *modelRI = c;
    return ACL_SUCCESS;
}

aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)
{
    const char *api = "aclmdlRICaptureGetInfo";
    if (!stream) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: stream is NULL", api);
    if (!status && !modelRI)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: status and modelRI are both NULL", api);
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    pthread_mutex_lock(&g_mu);
    rt_capture *c = atomic_load(&s->capture);
    if (status)
        *status = !c ? ACL_MODEL_RI_CAPTURE_STATUS_NONE
                  : c->invalidated ? ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED
                                   : ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    if (modelRI) *modelRI = c;
    pthread_mutex_unlock(&g_mu);
    return ACL_SUCCESS;
}

aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    const char *api = "aclmdlRICaptureThreadExchangeMode";
    if (!mode) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: mode is NULL", api);
    if ((unsigned)*mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: mode %d is not an aclmdlRICaptureMode", api, (int)*mode);
    aclmdlRICaptureMode old = tls_mode;
    tls_mode = *mode;
    *mode = old;
    return ACL_SUCCESS;
}

/* ---- replay ------------------------------------------------------------------------------ */

static void note_error(rt_capture *m, int rc, const char *name)
{
    pthread_mutex_lock(&m->mu);
    if (!m->error) {
        m->error = rc;
        snprintf(m->error_msg, sizeof m->error_msg, "%s: %s", name, rt_thread_message());
    }
    pthread_mutex_unlock(&m->mu);
}

static void run_lane(rt_capture *m, int lane, uint64_t gen)
{
    node_set *ids = &m->lanes[lane].nodes;
    for (int k = 0; k < ids->n; k++) {
        cap_node *n = &m->nodes[ids->ids[k]];
        for (int j = 0; j < n->deps.n; j++) {
            int dep = n->deps.ids[j];
            if (m->nodes[dep].lane == lane ||
                atomic_load_explicit(&m->node_done[dep], memory_order_acquire) == gen)
                continue;
            pthread_mutex_lock(&m->mu);
            while (atomic_load_explicit(&m->node_done[dep], memory_order_acquire) != gen)
                pthread_cond_wait(&m->cv, &m->mu);
            pthread_mutex_unlock(&m->mu);
        }
        int rc = n->task.ops->run(rt_task_payload(&n->task));
        if (rc) note_error(m, rc, n->task.ops->name);
        atomic_store_explicit(&m->node_done[ids->ids[k]], gen, memory_order_release);
        if (n->signals) {
            pthread_mutex_lock(&m->mu);
            pthread_cond_broadcast(&m->cv);
            pthread_mutex_unlock(&m->mu);
        }
    }
}

typedef struct { rt_capture *model; int lane; } helper_arg;

static void *helper_main(void *p)
{
    helper_arg a = *(helper_arg *)p;
    free(p);
    rt_capture *m = a.model;
    uint64_t seen = 0;
    pthread_mutex_lock(&m->mu);
    for (;;) {
        while (m->generation == seen && !m->stopping) pthread_cond_wait(&m->cv, &m->mu);
        if (m->stopping) break;
        seen = m->generation;
        pthread_mutex_unlock(&m->mu);
        run_lane(m, a.lane, seen);
        pthread_mutex_lock(&m->mu);
        if (--m->lanes_pending == 0) pthread_cond_signal(&m->done_cv);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

/* One thread per lane beyond the first, started on the first multi-lane replay. */
static bool start_helpers(rt_capture *m)
{
    m->helpers = calloc((size_t)m->nlanes, sizeof *m->helpers);
    if (!m->helpers) return false;
    for (int l = 1; l < m->nlanes; l++) {
        helper_arg *a = malloc(sizeof *a);
        if (!a) return false;
        *a = (helper_arg){m, l};
        if (pthread_create(&m->helpers[m->nhelpers], NULL, helper_main, a) != 0) {
            free(a);
            return false;
        }
        m->nhelpers++;
    }
    return true;
}

/* A replay that took at most this long last time, of a graph running no host code, is short:
 * its nodes run one after another in capture order (a valid order), and it may run on the
 * launching thread when its stream is idle soon after a synchronisation
 * (rt_submit_inline_short): the whole graph is done before the host would look, without the
 * hand-off to the stream's worker, the wake-ups of branch threads, and the wake-up back. The
 * user's host functions keep running on runtime threads, concurrently across branches. */
#define SHORT_REPLAY_NS 50000u

static bool replays_short(rt_capture *m)
{
    return !m->runs_host_code && atomic_load_explicit(&m->replay_ns, memory_order_relaxed) <= SHORT_REPLAY_NS;
}

static int model_replay(rt_capture *m)
{
    pthread_mutex_lock(&m->run_mu);
    uint64_t start = rt_now_ns();
    m->error = ACL_SUCCESS;
    bool parallel = m->nlanes > 1 && !replays_short(m);
    if (parallel && !m->helpers && !start_helpers(m)) parallel = false;
    if (parallel && m->nhelpers < m->nlanes - 1) parallel = false;
    if (parallel) { /* a new generation wakes every helper lane */
        pthread_mutex_lock(&m->mu);
        uint64_t gen = ++m->generation;
        m->lanes_pending = m->nlanes - 1;
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
        run_lane(m, 0, gen);
        pthread_mutex_lock(&m->mu);
        while (m->lanes_pending > 0) pthread_cond_wait(&m->done_cv, &m->mu);
        pthread_mutex_unlock(&m->mu);
    } else { /* capture order is a valid sequential order */
        for (int i = 0; i < m->nnodes; i++) {
            cap_node *n = &m->nodes[i];
            int rc = n->task.ops->run(rt_task_payload(&n->task));
            if (rc) note_error(m, rc, n->task.ops->name);
        }
    }
    atomic_store_explicit(&m->replay_ns, rt_now_ns() - start, memory_order_relaxed);
    int rc = m->error;
    char msg[RT_MSG_BYTES];
    memcpy(msg, m->error_msg, sizeof msg);
    pthread_mutex_unlock(&m->run_mu);
    if (rc) npusim_error(rc, "%s", msg);
    return rc;
}

static int replay_run(void *p) { return model_replay(*(rt_capture **)p); }
static void replay_release(void *p) { model_release(*(rt_capture **)p); }
static const npusim_task_ops replay_ops = {"aclmdlRIExecuteAsync", replay_run, replay_release};

bool rt_replay_runs_host_code(const rt_task *t)
{
    return t->ops == &replay_ops && (*(rt_capture *const *)rt_task_payload((rt_task *)t))->runs_host_code;
}

/* A live model handle, or NULL with the error set (107026 while it is still capturing). */
static rt_capture *resolve_model(aclmdlRI modelRI, const char *api, aclError *rc)
{
    if (!modelRI) {
        *rc = npusim_error(ACL_ERROR_INVALID_PARAM, "%s: modelRI is NULL", api);
        return NULL;
    }
    pthread_mutex_lock(&g_mu);
    bool capturing = false;
    for (rt_capture *c = g_active; c; c = c->next_active) capturing |= c == modelRI;
    pthread_mutex_unlock(&g_mu);
    if (capturing) {
        *rc = npusim_error(ACL_ERROR_RT_MODEL_CAPTURED, "%s: the model is still being captured", api);
        return NULL;
    }
    if (!rt_handle_is(modelRI, RT_HANDLE_MODEL)) {
        *rc = npusim_error(ACL_ERROR_RT_INVALID_HANDLE,
                           "%s: %p is not a live model (destroyed, or not from aclmdlRICaptureEnd)", api, modelRI);
        return NULL;
    }
    return modelRI;
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    const char *api = "aclmdlRIExecuteAsync";
    aclError rc = ACL_SUCCESS;
    rt_capture *m = resolve_model(modelRI, api, &rc);
    rt_stream *s = m ? rt_stream_resolve(stream, api, &rc) : NULL;
    if (!s || (rc = rt_race_replay(s, m, api))) return rc;
    atomic_fetch_add(&m->refs, 1);
    if (replays_short(m)) return rt_submit_inline_short(s, &replay_ops, &m, sizeof m, api);
    return rt_submit_inline(s, &replay_ops, &m, sizeof m, api);
}

aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
    const char *api = "aclmdlRIExecute";
    if (timeout == 0 || timeout < -1)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID, "%s: timeout %d must be -1 or > 0 ms", api, (int)timeout);
    aclError rc = ACL_SUCCESS;
    rt_capture *m = resolve_model(modelRI, api, &rc);
    if (!m) return rc;
    pthread_mutex_lock(&g_mu);
    if (!m->exec_stream) m->exec_stream = rt_stream_new(m->device, false, 0, 0, &rc);
    rt_stream *s = m->exec_stream;
    pthread_mutex_unlock(&g_mu);
    if (!s || (rc = rt_race_replay(s, m, api))) return rc;
    atomic_fetch_add(&m->refs, 1);
    rt_task t = {.ops = &replay_ops, .is_inline = true};
    memcpy(t.inline_data, &m, sizeof m);
    if ((rc = rt_stream_enqueue(s, &t, api))) return rc;
    return rt_stream_wait_idle(s, timeout, api);
}

aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    aclError rc = ACL_SUCCESS;
    rt_capture *m = resolve_model(modelRI, "aclmdlRIDestroy", &rc);
    if (!m) return rc;
    rt_handle_remove(m);
    model_release(m); /* queued replays hold their own reference */
    return ACL_SUCCESS;
}

aclError aclmdlRIDebugPrint(aclmdlRI modelRI)
{
    aclError rc = ACL_SUCCESS;
    rt_capture *m = resolve_model(modelRI, "aclmdlRIDebugPrint", &rc);
    if (!m) return rc;
    printf("aclmdlRI %p: device %d, %d stream(s), %d task(s)\n", (void *)m, (int)m->device, m->nlanes,
           m->nnodes);
    for (int i = 0; i < m->nnodes; i++) {
        cap_node *n = &m->nodes[i];
        printf("  task %d: %s on stream %d", i, n->task.ops->name, (int)m->lanes[n->lane].stream->id);
        if (n->deps.n) {
            printf(" after");
            for (int j = 0; j < n->deps.n; j++) printf(" %d", n->deps.ids[j]);
        }
        printf("\n");
    }
    fflush(stdout);
    return ACL_SUCCESS;
}

aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams)
{
    const char *api = "aclmdlRIGetStreams";
    if (!numStreams) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: numStreams is NULL", api);
    aclError rc = ACL_SUCCESS;
    rt_capture *m = resolve_model(modelRI, api, &rc);
    if (!m) return rc;
    if (streams && *numStreams < (uint32_t)m->nlanes)
        return npusim_error(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY,
                            "%s: the model has %d streams but the array holds %u", api, m->nlanes, *numStreams);
    for (int i = 0; streams && i < m->nlanes; i++) streams[i] = m->lanes[i].stream;
    *numStreams = (uint32_t)m->nlanes;
    return ACL_SUCCESS;
}
