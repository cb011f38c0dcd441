/* The stream race detector (NPUSIM_RACECHECK; the rules are in include/npusim_racecheck.h).
 *
 * Vector clocks: every stream gets a uid (1, 2, ...; 0 is the host) the first time it is
 * seen and a clock, a sparse vector {uid: count} sorted by uid. Its own entry counts its
 * checked operations. An event record copies the stream's clock into the event; a wait joins
 * it into the waiting stream's; what the host learns has finished is joined into the host's
 * clock, which every later submission joins in turn. An access (uid u, count c) happened
 * before an operation with clock V when V[u] >= c, or when u's stream is gone (destroyed:
 * its work is over, and every later submission comes after the host learnt it).
 *
 * Shadow: per device block (by its start address), the accesses not yet known to be ordered
 * before everything to come: the last writes and the reads since. An access that the host's
 * clock covers is ordered before every later submission and is dropped; so is one that a
 * new access of the same kind (or a write) covers and is ordered after. Checks run on the
 * calling thread when the operation is submitted, under one lock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npusim_racecheck.h"
#include "racecheck.h"

#define SITE_BYTES 96
#define MAX_REPORTS 256
#define HOST_UID 0u

typedef struct { uint32_t uid; uint64_t count; } vc_entry;
typedef struct rc_vc { vc_entry *e; uint32_t n, cap; } rc_vc;

typedef struct {
    uintptr_t begin, end;
    uint32_t uid;
    uint64_t count;
    bool write;
    const char *op;          /* static: an operator or API name */
    const void *stream;      /* for the report (NULL: the host) */
    char site[SITE_BYTES];
} rc_access;

typedef struct { uintptr_t block; rc_access *a; size_t n, cap; } rc_shadow;

typedef struct { const struct rt_capture *model; rc_access *a; size_t n, cap; } rc_model;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_mode;
static rc_vc g_host;
static uint32_t g_next_uid = 1;
static uint8_t *g_gone;                /* by uid: the stream was destroyed */
static uint32_t g_gone_cap;
static rt_stream **g_streams;          /* streams with a clock */
static size_t g_nstreams, g_streams_cap;
static rc_shadow *g_shadows;           /* sorted by block */
static size_t g_nshadows, g_shadows_cap;
static rc_model *g_models;
static size_t g_nmodels, g_models_cap;
static char *g_reports[MAX_REPORTS];
static int g_report_head, g_nreports;
static void (*_Atomic g_site_provider)(char *buf, size_t size);

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    void *p = realloc(*arr, ncap * elem);
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

/* ---- vector clocks ----------------------------------------------------------------------- */

static bool gone(uint32_t uid) { return uid != HOST_UID && uid < g_gone_cap && g_gone[uid]; }

static uint64_t vc_get(const rc_vc *v, uint32_t uid)
{
    uint32_t lo = 0, hi = v->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (v->e[mid].uid < uid) lo = mid + 1;
        else hi = mid;
    }
    return lo < v->n && v->e[lo].uid == uid ? v->e[lo].count : 0;
}

static bool vc_reserve(rc_vc *v, uint32_t need)
{
    if (need <= v->cap) return true;
    uint32_t cap = v->cap ? v->cap * 2 : 8;
    while (cap < need) cap *= 2;
    vc_entry *e = realloc(v->e, cap * sizeof *e);
    if (!e) return false;
    v->e = e;
    v->cap = cap;
    return true;
}

static void vc_set(rc_vc *v, uint32_t uid, uint64_t count)
{
    uint32_t i = 0;
    while (i < v->n && v->e[i].uid < uid) i++;
    if (i < v->n && v->e[i].uid == uid) {
        v->e[i].count = count;
        return;
    }
    if (!vc_reserve(v, v->n + 1)) return; /* out of memory: a missed order, never a crash */
    memmove(&v->e[i + 1], &v->e[i], (v->n - i) * sizeof *v->e);
    v->e[i] = (vc_entry){uid, count};
    v->n++;
}

/* Whether dst already covers src entry-wise (the common case: nothing to merge). */
static bool vc_covers(const rc_vc *dst, const rc_vc *src)
{
    uint32_t i = 0;
    for (uint32_t j = 0; j < src->n; j++) {
        while (i < dst->n && dst->e[i].uid < src->e[j].uid) i++;
        if (!gone(src->e[j].uid) && (i == dst->n || dst->e[i].uid != src->e[j].uid
                                     || dst->e[i].count < src->e[j].count))
            return false;
    }
    return true;
}

/* dst = max(dst, src) entry-wise, dropping the entries of streams that are gone. */
static void vc_join(rc_vc *dst, const rc_vc *src)
{
    if (!src || !src->n || vc_covers(dst, src) || !vc_reserve(dst, dst->n + src->n)) return;
    vc_entry *out = malloc((dst->n + src->n) * sizeof *out);
    if (!out) return;
    uint32_t i = 0, j = 0, n = 0;
    while (i < dst->n || j < src->n) {
        vc_entry next;
        if (j == src->n || (i < dst->n && dst->e[i].uid < src->e[j].uid)) next = dst->e[i++];
        else if (i == dst->n || src->e[j].uid < dst->e[i].uid) next = src->e[j++];
        else {
            next = dst->e[i];
            if (src->e[j].count > next.count) next.count = src->e[j].count;
            i++, j++;
        }
        if (!gone(next.uid)) out[n++] = next;
    }
    memcpy(dst->e, out, n * sizeof *out);
    dst->n = n;
    free(out);
}

static void vc_free(rc_vc *v)
{
    if (v) free(v->e);
    free(v);
}

/* The clock of s, made (with a uid) on first use. NULL when out of memory. */
static rc_vc *stream_clock(rt_stream *s)
{
    if (s->race_vc) return s->race_vc;
    rc_vc *v = calloc(1, sizeof *v);
    if (!v || !grow((void **)&g_streams, &g_streams_cap, g_nstreams + 1, sizeof *g_streams)) {
        free(v);
        return NULL;
    }
    s->race_uid = g_next_uid++;
    s->race_vc = v;
    g_streams[g_nstreams++] = s;
    return v;
}

/* ---- reports ------------------------------------------------------------------------------ */

static void describe(char *buf, size_t size, const rc_access *a)
{
    char where[64];
    if (a->stream) snprintf(where, sizeof where, "on stream %p", a->stream);
    else snprintf(where, sizeof where, "by the host");
    snprintf(buf, size, "%s %s %s [0x%llx, 0x%llx)%s%s", a->op, where, a->write ? "writing" : "reading",
             (unsigned long long)a->begin, (unsigned long long)a->end, a->site[0] ? " at " : "", a->site);
}

static void keep_report(const char *text)
{
    char *copy = strdup(text);
    if (!copy) return;
    if (g_nreports == MAX_REPORTS) {
        free(g_reports[g_report_head]);
        g_report_head = (g_report_head + 1) % MAX_REPORTS;
        g_nreports--;
    }
    g_reports[(g_report_head + g_nreports++) % MAX_REPORTS] = copy;
}

/* ---- shadow ----------------------------------------------------------------------------------- */

static size_t shadow_index(uintptr_t block)
{
    size_t lo = 0, hi = g_nshadows;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g_shadows[mid].block < block) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static rc_shadow *shadow_of(uintptr_t block, bool create)
{
    size_t i = shadow_index(block);
    if (i < g_nshadows && g_shadows[i].block == block) return &g_shadows[i];
    if (!create || !grow((void **)&g_shadows, &g_shadows_cap, g_nshadows + 1, sizeof *g_shadows)) return NULL;
    memmove(&g_shadows[i + 1], &g_shadows[i], (g_nshadows - i) * sizeof *g_shadows);
    g_shadows[i] = (rc_shadow){block, NULL, 0, 0};
    g_nshadows++;
    return &g_shadows[i];
}

static bool ordered_before(const rc_access *a, const rc_vc *v)
{
    return gone(a->uid) || vc_get(v, a->uid) >= a->count;
}

/* Checks `a` (made with clock v) against the shadow of its block, then files it. Returns
 * the conflicting earlier access, or NULL. With `dry`, files nothing. */
static const rc_access *check_and_file(rc_shadow *sh, const rc_access *a, const rc_vc *v, bool dry,
                                       rc_access *conflict)
{
    bool found = false;
    size_t kept = 0;
    for (size_t i = 0; i < sh->n; i++) {
        rc_access *old = &sh->a[i];
        bool overlaps = old->begin < a->end && a->begin < old->end;
        bool ordered = old->uid == a->uid || ordered_before(old, v);
        if (overlaps && !ordered && (old->write || a->write) && !found) {
            *conflict = *old;
            found = true;
        }
        /* Dropped: ordered before all that follows (the host's clock covers it), or covered
         * by `a` and ordered before it (a write covers everything, a read other reads). */
        bool dead = ordered_before(old, &g_host)
                    || (!dry && ordered && old->begin >= a->begin && old->end <= a->end
                        && (a->write || !old->write));
        if (!dead) sh->a[kept++] = *old;
    }
    sh->n = kept;
    if (!dry && grow((void **)&sh->a, &sh->cap, sh->n + 1, sizeof *sh->a)) sh->a[sh->n++] = *a;
    return found ? conflict : NULL;
}

/* ---- the checks --------------------------------------------------------------------------- */

static void site_of_caller(char *site)
{
    site[0] = '\0';
    void (*provider)(char *, size_t) = atomic_load_explicit(&g_site_provider, memory_order_acquire);
    if (provider) {
        provider(site, SITE_BYTES);
        site[SITE_BYTES - 1] = '\0';
    }
}

/* Checks and files accesses made with clock v by (uid, count); caller holds g_mu. */
static aclError check_accesses(const npusim_race_access *acc, int n, const char *op, const void *stream,
                               uint32_t uid, uint64_t count, const rc_vc *v, const char *site)
{
    bool error_mode = atomic_load_explicit(&g_mode, memory_order_relaxed) == NPUSIM_RACECHECK_ERROR;
    for (int pass = error_mode ? 0 : 1; pass < 2; pass++) {  /* error mode: check all, then file */
        for (int i = 0; i < n; i++) {
            uintptr_t start;
            if (!acc[i].bytes || !rt_mem_block_start(acc[i].ptr, &start)) continue; /* not device memory */
            rc_shadow *sh = shadow_of(start, true);
            if (!sh) continue;
            rc_access a = {(uintptr_t)acc[i].ptr, (uintptr_t)acc[i].ptr + acc[i].bytes, uid, count,
                           acc[i].write != 0, op, stream, ""};
            snprintf(a.site, sizeof a.site, "%s", site);
            rc_access conflict;
            if (!check_and_file(sh, &a, v, pass == 0, &conflict)) continue;
            char now[256], before[256], text[640];
            describe(now, sizeof now, &a);
            describe(before, sizeof before, &conflict);
            snprintf(text, sizeof text, "data race: %s, while %s may still be running: no event, wait or "
                     "synchronisation orders them", now, before);
            if (pass == 0) return npusim_error(ACL_ERROR_RT_PARAM_INVALID, "%s", text);
            keep_report(text);
        }
    }
    return ACL_SUCCESS;
}

bool rt_race_enabled(void) { return atomic_load_explicit(&g_mode, memory_order_relaxed) != NPUSIM_RACECHECK_OFF; }

static rc_model *model_of(const struct rt_capture *m, bool create)
{
    for (size_t i = 0; i < g_nmodels; i++)
        if (g_models[i].model == m) return &g_models[i];
    if (!create || !grow((void **)&g_models, &g_models_cap, g_nmodels + 1, sizeof *g_models)) return NULL;
    g_models[g_nmodels] = (rc_model){m, NULL, 0, 0};
    return &g_models[g_nmodels++];
}

static void capture_accesses(const struct rt_capture *c, const npusim_race_access *acc, int n, const char *op,
                             const char *site)
{
    rc_model *m = model_of(c, true);
    if (!m || !grow((void **)&m->a, &m->cap, m->n + (size_t)n, sizeof *m->a)) return;
    for (int i = 0; i < n; i++) {
        rc_access *a = &m->a[m->n++];
        *a = (rc_access){(uintptr_t)acc[i].ptr, (uintptr_t)acc[i].ptr + acc[i].bytes, 0, 0,
                         acc[i].write != 0, op, NULL, ""};
        snprintf(a->site, sizeof a->site, "%s", site);
    }
}

aclError rt_race_stream_access(rt_stream *s, const npusim_race_access *acc, int n, const char *op)
{
    if (!rt_race_enabled()) return ACL_SUCCESS;
    char site[SITE_BYTES];
    site_of_caller(site);
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_mu);
    struct rt_capture *c = atomic_load_explicit(&s->capture, memory_order_acquire);
    rc_vc *v = c ? NULL : stream_clock(s);
    if (c) {
        capture_accesses(c, acc, n, op, site); /* checked when replayed */
    } else if (v) {
        vc_join(v, &g_host);
        uint64_t count = vc_get(v, s->race_uid) + 1;
        vc_set(v, s->race_uid, count);
        rc = check_accesses(acc, n, op, s, s->race_uid, count, v, site);
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

bool npusim_race_enabled(void) { return rt_race_enabled(); }

aclError npusim_race_launch(aclrtStream stream, const npusim_race_access *accesses, int n, const char *op)
{
    if (!rt_race_enabled()) return ACL_SUCCESS;
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, op, &rc);
    return s ? rt_race_stream_access(s, accesses, n, op) : ACL_SUCCESS; /* the launch reports a bad stream */
}

aclError rt_race_host_access(const npusim_race_access *acc, int n, const char *op)
{
    if (!rt_race_enabled()) return ACL_SUCCESS;
    char site[SITE_BYTES];
    site_of_caller(site);
    pthread_mutex_lock(&g_mu);
    uint64_t count = vc_get(&g_host, HOST_UID) + 1;
    vc_set(&g_host, HOST_UID, count);
    aclError rc = check_accesses(acc, n, op, NULL, HOST_UID, count, &g_host, site);
    pthread_mutex_unlock(&g_mu);
    return rc;
}

aclError rt_race_replay(rt_stream *s, const struct rt_capture *m, const char *op)
{
    if (!rt_race_enabled()) return ACL_SUCCESS;
    pthread_mutex_lock(&g_mu);
    rc_model *model = model_of(m, false);
    size_t n = model ? model->n : 0;
    npusim_race_access *acc = n ? malloc(n * sizeof *acc) : NULL;
    for (size_t i = 0; acc && i < n; i++)
        acc[i] = (npusim_race_access){(const void *)model->a[i].begin, model->a[i].end - model->a[i].begin,
                                      model->a[i].write};
    pthread_mutex_unlock(&g_mu);
    aclError rc = acc ? rt_race_stream_access(s, acc, (int)n, op) : ACL_SUCCESS;
    free(acc);
    return rc;
}

void rt_race_forget_model(const struct rt_capture *m)
{
    pthread_mutex_lock(&g_mu);
    rc_model *model = model_of(m, false);
    if (model) {
        free(model->a);
        *model = g_models[--g_nmodels];
    }
    pthread_mutex_unlock(&g_mu);
}

/* ---- ordering --------------------------------------------------------------------------------- */

void rt_race_event_record(rt_stream *s, rt_event *e)
{
    if (!rt_race_enabled()) return;
    pthread_mutex_lock(&g_mu);
    rc_vc *v = stream_clock(s);
    if (v && (e->race_vc || (e->race_vc = calloc(1, sizeof *e->race_vc)))) {
        vc_join(v, &g_host);
        e->race_vc->n = 0;
        vc_join(e->race_vc, v);
    }
    pthread_mutex_unlock(&g_mu);
}

void rt_race_event_wait(rt_stream *s, rt_event *e)
{
    if (!rt_race_enabled()) return;
    pthread_mutex_lock(&g_mu);
    rc_vc *v = stream_clock(s);
    if (v) vc_join(v, e->race_vc);
    pthread_mutex_unlock(&g_mu);
}

void rt_race_event_free(rt_event *e)
{
    vc_free(e->race_vc);
    e->race_vc = NULL;
}

/* A copy of the join of `n` clocks (NULL entries skipped); caller holds g_mu. */
static rc_vc *snapshot(rc_vc *const *clocks, size_t n)
{
    rc_vc *copy = calloc(1, sizeof *copy);
    for (size_t i = 0; copy && i < n; i++) vc_join(copy, clocks[i]);
    return copy;
}

rc_vc *rt_race_snapshot_event(rt_event *e)
{
    if (!rt_race_enabled()) return NULL;
    pthread_mutex_lock(&g_mu);
    rc_vc *copy = snapshot(&e->race_vc, 1);
    pthread_mutex_unlock(&g_mu);
    return copy;
}

rc_vc *rt_race_snapshot_stream(rt_stream *s)
{
    if (!rt_race_enabled()) return NULL;
    pthread_mutex_lock(&g_mu);
    rc_vc *copy = snapshot(&s->race_vc, 1);
    pthread_mutex_unlock(&g_mu);
    return copy;
}

void rt_race_host_learns(rc_vc *snapshot, bool finished)
{
    if (!snapshot) return;
    if (finished) {
        pthread_mutex_lock(&g_mu);
        vc_join(&g_host, snapshot);
        pthread_mutex_unlock(&g_mu);
    }
    vc_free(snapshot);
}

void rt_race_stream_destroyed(rt_stream *s)
{
    pthread_mutex_lock(&g_mu);
    if (s->race_vc) {
        uint32_t uid = s->race_uid;
        if (uid >= g_gone_cap) {
            size_t cap = g_gone_cap;
            uint8_t *old = g_gone;
            if (grow((void **)&g_gone, &cap, (size_t)uid + 1, 1)) {
                memset(g_gone + g_gone_cap, 0, cap - g_gone_cap);
                g_gone_cap = (uint32_t)cap;
            } else {
                g_gone = old;
            }
        }
        if (uid < g_gone_cap) g_gone[uid] = 1;
        for (size_t i = 0; i < g_nstreams; i++)
            if (g_streams[i] == s) {
                g_streams[i] = g_streams[--g_nstreams];
                break;
            }
        vc_free(s->race_vc);
        s->race_vc = NULL;
    }
    pthread_mutex_unlock(&g_mu);
}

void rt_race_forget_block(uintptr_t start)
{
    if (!rt_race_enabled()) return;
    pthread_mutex_lock(&g_mu);
    size_t i = shadow_index(start);
    if (i < g_nshadows && g_shadows[i].block == start) {
        free(g_shadows[i].a);
        memmove(&g_shadows[i], &g_shadows[i + 1], (g_nshadows - i - 1) * sizeof *g_shadows);
        g_nshadows--;
    }
    pthread_mutex_unlock(&g_mu);
}

/* ---- control ---------------------------------------------------------------------------------- */

/* Forgets every recorded access (turning the detector on: what ran before was not seen). */
static void forget_accesses(void)
{
    for (size_t i = 0; i < g_nshadows; i++) free(g_shadows[i].a);
    g_nshadows = 0;
}

int npusim_racecheck_set_mode(int mode)
{
    if (mode != NPUSIM_RACECHECK_OFF && mode != NPUSIM_RACECHECK_ERROR && mode != NPUSIM_RACECHECK_WARN)
        return -1;
    pthread_mutex_lock(&g_mu);
    int previous = atomic_load(&g_mode);
    if (previous == NPUSIM_RACECHECK_OFF && mode != NPUSIM_RACECHECK_OFF) forget_accesses();
    atomic_store(&g_mode, mode);
    pthread_mutex_unlock(&g_mu);
    return previous;
}

int npusim_racecheck_get_mode(void) { return atomic_load(&g_mode); }

size_t npusim_racecheck_next_report(char *buf, size_t size)
{
    pthread_mutex_lock(&g_mu);
    size_t length = 0;
    if (g_nreports) {
        char *text = g_reports[g_report_head];
        g_report_head = (g_report_head + 1) % MAX_REPORTS;
        g_nreports--;
        length = strlen(text);
        if (buf && size) snprintf(buf, size, "%s", text);
        free(text);
    }
    pthread_mutex_unlock(&g_mu);
    return length;
}

void npusim_racecheck_set_site_provider(void (*provider)(char *buf, size_t size))
{
    atomic_store_explicit(&g_site_provider, provider, memory_order_release);
}

aclError rt_race_configure(void)
{
    const char *value = getenv("NPUSIM_RACECHECK");
    int mode = NPUSIM_RACECHECK_OFF;
    if (value && *value && strcmp(value, "0") != 0 && strcmp(value, "off") != 0) {
        if (!strcmp(value, "1") || !strcmp(value, "error")) mode = NPUSIM_RACECHECK_ERROR;
        else if (!strcmp(value, "warn")) mode = NPUSIM_RACECHECK_WARN;
        else
            return npusim_error(ACL_ERROR_INVALID_PARAM, "aclInit: NPUSIM_RACECHECK=%s: expected 0, 1 (or error) "
                                "or warn", value);
    }
    npusim_racecheck_set_mode(mode);
    return ACL_SUCCESS;
}
