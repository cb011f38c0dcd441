/* Registry of live handles, so that a destroyed or foreign stream / event / context / model
 * handle is reported as such instead of being dereferenced. Open addressing on the pointer. */
#include <stdlib.h>
#include <time.h>

#include "rt_internal.h"

typedef struct { const void *key; int kind; } slot; /* kind 0 empty, -1 tombstone */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static slot *g_slots;
static size_t g_cap, g_used; /* used counts live + tombstones */
/* Handles removed so far (bumped under g_mu): a thread's last answer "h is a live handle of
 * this kind" (rt_handle_is) holds while it is unchanged, so that the stream check of every
 * launch takes no lock. A handle destroyed while another thread uses it is the caller's race
 * with or without the lock: the check only ever sees handles destroyed before it. */
static _Atomic uint64_t g_removals;
static _Thread_local struct { const void *handle; int kind; uint64_t removals; } tls_live;

static size_t hash_ptr(const void *p, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

static void insert_slot(slot *slots, size_t cap, const void *key, int kind)
{
    size_t i = hash_ptr(key, cap);
    while (slots[i].kind > 0) i = (i + 1) & (cap - 1);
    slots[i].key = key;
    slots[i].kind = kind;
}

/* Rebuilds the table without its tombstones, at a size keeping it at most a quarter full:
 * sized by the live handles, so that creating and destroying handles for ever stays bounded. */
static bool grow(void)
{
    size_t live = 0;
    for (size_t i = 0; i < g_cap; i++) live += g_slots[i].kind > 0;
    size_t cap = 256;
    while ((live + 1) * 4 > cap) cap *= 2;
    slot *slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < g_cap; i++)
        if (g_slots[i].kind > 0) insert_slot(slots, cap, g_slots[i].key, g_slots[i].kind);
    free(g_slots);
    g_slots = slots;
    g_cap = cap;
    g_used = live;
    return true;
}

bool rt_handle_add(const void *h, rt_handle_kind kind)
{
    pthread_mutex_lock(&g_mu);
    if ((g_used + 1) * 2 > g_cap && !grow()) {
        pthread_mutex_unlock(&g_mu);
        return false;
    }
    size_t i = hash_ptr(h, g_cap);
    while (g_slots[i].kind > 0) i = (i + 1) & (g_cap - 1);
    if (g_slots[i].kind == 0) g_used++;
    g_slots[i].key = h;
    g_slots[i].kind = (int)kind;
    pthread_mutex_unlock(&g_mu);
    return true;
}

static slot *find(const void *h)
{
    if (!g_cap) return NULL;
    size_t i = hash_ptr(h, g_cap);
    while (g_slots[i].kind != 0) {
        if (g_slots[i].kind > 0 && g_slots[i].key == h) return &g_slots[i];
        i = (i + 1) & (g_cap - 1);
    }
    return NULL;
}

void rt_handle_remove(const void *h)
{
    pthread_mutex_lock(&g_mu);
    slot *s = find(h);
    if (s) { s->kind = -1; s->key = NULL; }
    atomic_fetch_add_explicit(&g_removals, 1, memory_order_release);
    pthread_mutex_unlock(&g_mu);
}

bool rt_handle_pin(const void *h, rt_handle_kind kind, void (*pin)(void *object))
{
    if (!h) return false;
    pthread_mutex_lock(&g_mu);
    slot *s = find(h);
    bool ok = s && s->kind == (int)kind;
    if (ok) pin((void *)h);
    pthread_mutex_unlock(&g_mu);
    return ok;
}

bool rt_handle_pin_with(const void *h, rt_handle_kind kind, void (*pin)(void *object), const void *other,
                        rt_handle_kind other_kind)
{
    if (!h || !other) return false;
    pthread_mutex_lock(&g_mu);
    slot *s = find(h), *o = find(other);
    bool ok = s && s->kind == (int)kind && o && o->kind == (int)other_kind;
    if (ok) pin((void *)h);
    pthread_mutex_unlock(&g_mu);
    return ok;
}

bool rt_handle_take(const void *h, rt_handle_kind kind)
{
    if (!h) return false;
    pthread_mutex_lock(&g_mu);
    slot *s = find(h);
    bool ok = s && s->kind == (int)kind;
    if (ok) { s->kind = -1; s->key = NULL; }
    atomic_fetch_add_explicit(&g_removals, 1, memory_order_release);
    pthread_mutex_unlock(&g_mu);
    return ok;
}

bool rt_handle_is(const void *h, rt_handle_kind kind)
{
    if (!h) return false;
    if (h == tls_live.handle && (int)kind == tls_live.kind &&
        atomic_load_explicit(&g_removals, memory_order_acquire) == tls_live.removals)
        return true;
    pthread_mutex_lock(&g_mu);
    slot *s = find(h);
    bool ok = s && s->kind == (int)kind;
    if (ok) {
        tls_live.handle = h;
        tls_live.kind = (int)kind;
        tls_live.removals = atomic_load_explicit(&g_removals, memory_order_relaxed);
    }
    pthread_mutex_unlock(&g_mu);
    return ok;
}

uint64_t rt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void rt_deadline(struct timespec *ts, int32_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) { ts->tv_sec++; ts->tv_nsec -= 1000000000L; }
}
