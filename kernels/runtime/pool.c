/* The CPU thread pool behind npusim_parallel_for: NPUSIM_NUM_THREADS threads (default: online
 * CPUs) including the caller, created on first use. One job at a time; a caller that finds the
 * pool busy, or that is itself a pool chunk, runs its range inline, so nesting never deadlocks.
 *
 * After a job a pool thread polls for the next one for POOL_SPIN_NS before it sleeps, and the
 * caller polls for the pool's last chunk before it sleeps: mid-size operations (a k-means
 * step's products, casts and scalings of a few hundred KiB, a few microseconds each on two
 * threads) come a few microseconds apart, and each futex wake-up costs the waker a system call
 * and the woken thread the scheduling latency, about what splitting such an operation saves.
 * A caller whose pool threads are all polling skips the wake-up. */
#include <stdlib.h>
#include <unistd.h>

#include "rt_internal.h"

typedef struct {
    npusim_range_fn fn;
    void *ctx;
    size_t n, chunk, nchunks;
    atomic_size_t next;     /* next chunk to take */
    atomic_size_t done;     /* chunks finished: written under g_mu, polled by the caller */
    int active;             /* pool threads inside this job, under g_mu */
} job;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_done_cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t g_job_mu = PTHREAD_MUTEX_INITIALIZER; /* one job at a time */
static job *g_job;
static _Atomic uint64_t g_generation; /* written under g_mu, polled without it */
static int g_sleeping;                /* pool threads waiting on g_work_cv, under g_mu */
static int g_started;       /* pool threads running (excluding callers) */
static int g_wanted = -1;   /* total threads including the caller; -1: not configured */
static _Thread_local bool tls_in_pool;

void rt_pool_reset_config(void)
{
    pthread_mutex_lock(&g_mu);
    g_wanted = -1; /* re-read NPUSIM_NUM_THREADS; already started threads stay */
    pthread_mutex_unlock(&g_mu);
}

/* Caller holds g_mu. */
static int wanted_threads(void)
{
    if (g_wanted < 0) {
        const char *v = getenv("NPUSIM_NUM_THREADS");
        long n = v ? strtol(v, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
        g_wanted = n < 1 ? 1 : n > 256 ? 256 : (int)n;
    }
    return g_wanted;
}

/* Runs chunks of j until none is left; returns how many it ran. */
static size_t run_chunks(job *j)
{
    size_t finished = 0;
    for (size_t c; (c = atomic_fetch_add(&j->next, 1)) < j->nchunks; finished++) {
        size_t begin = c * j->chunk, end = begin + j->chunk < j->n ? begin + j->chunk : j->n;
        j->fn(begin, end, j->ctx);
    }
    return finished;
}

/* How long pool threads poll for a job, and a caller for the pool's last chunks (see the top of
 * the file). Bounded, and yielding the CPU after a short busy phase: on a machine with more
 * runnable threads than cores the poller must not hold a core that the thread it waits for
 * needs. */
#define POOL_SPIN_NS 50000u

/* Polls until *value != seen or the spin time is up. */
static void spin_while_equal(const _Atomic uint64_t *value, uint64_t seen)
{
    uint64_t start = rt_now_ns();
    for (unsigned i = 1; atomic_load_explicit(value, memory_order_acquire) == seen; i++)
        if (!rt_poll_pause(i, start, POOL_SPIN_NS)) return;
}

/* Polls until every chunk of j is finished or the spin time is up. */
static void spin_until_done(job *j)
{
    uint64_t start = rt_now_ns();
    for (unsigned i = 1; atomic_load_explicit(&j->done, memory_order_acquire) < j->nchunks; i++)
        if (!rt_poll_pause(i, start, POOL_SPIN_NS)) return;
}

static void *pool_main(void *arg)
{
    (void)arg;
    tls_in_pool = true;
    uint64_t seen = 0;
    bool spin = false;
    pthread_mutex_lock(&g_mu);
    for (;;) {
        if (g_generation != seen && g_job) {
            seen = g_generation;
            job *j = g_job;
            j->active++;
            pthread_mutex_unlock(&g_mu);
            size_t finished = run_chunks(j);
            pthread_mutex_lock(&g_mu);
            atomic_fetch_add_explicit(&j->done, finished, memory_order_release);
            if (--j->active == 0) pthread_cond_broadcast(&g_done_cv);
            spin = true;
            continue;
        }
        seen = g_generation; /* a job finished before this thread got to it */
        if (spin) {
            pthread_mutex_unlock(&g_mu);
            spin_while_equal(&g_generation, seen);
            pthread_mutex_lock(&g_mu);
            spin = false;
            continue;
        }
        g_sleeping++;
        pthread_cond_wait(&g_work_cv, &g_mu);
        g_sleeping--;
    }
    return NULL;
}

/* Starts pool threads up to the configured count. Caller holds g_mu. */
static void ensure_threads(void)
{
    int target = wanted_threads() - 1;
    while (g_started < target) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &attr, pool_main, NULL);
        pthread_attr_destroy(&attr);
        if (rc != 0) break; /* fewer threads: still correct, the caller does the rest */
        rt_run_as_batch_thread(t); /* waking it must not preempt the kernel's own thread */
        g_started++;
    }
}

/* Mid-size jobs (npusim_parallel_for_mid) run on the caller alone until this time (rt_now_ns)
 * after one of them waited SLOW_HANDOFF_NS or more for a pool thread's chunk: on a machine
 * with more runnable threads than cores a pool thread that took a chunk may lose its core for a
 * scheduler time slice (milliseconds), a hundred times the job. */
#define SLOW_HANDOFF_NS 200000u
#define MID_BACKOFF_NS 50000000u
static _Atomic uint64_t g_mid_inline_until;

static void parallel_for(size_t n, size_t grain, npusim_range_fn fn, void *ctx, bool mid)
{
    if (n == 0) return;
    if (grain == 0) grain = 1;
    size_t max_chunks = (n + grain - 1) / grain;
    if (max_chunks < 2 || tls_in_pool || pthread_mutex_trylock(&g_job_mu) != 0) {
        fn(0, n, ctx);
        return;
    }
    pthread_mutex_lock(&g_mu);
    ensure_threads();
    size_t threads = (size_t)g_started + 1;
    pthread_mutex_unlock(&g_mu);
    if (threads < 2) {
        pthread_mutex_unlock(&g_job_mu);
        fn(0, n, ctx);
        return;
    }
    /* A few chunks per thread balances uneven chunks without much overhead. */
    size_t nchunks = max_chunks < threads * 4 ? max_chunks : threads * 4;
    job j = {.fn = fn, .ctx = ctx, .n = n, .chunk = (n + nchunks - 1) / nchunks};
    j.nchunks = (n + j.chunk - 1) / j.chunk;
    atomic_init(&j.next, 0);
    atomic_init(&j.done, 0);
    pthread_mutex_lock(&g_mu);
    g_job = &j;
    atomic_store_explicit(&g_generation, g_generation + 1, memory_order_release);
    bool wake = g_sleeping > 0;
    pthread_mutex_unlock(&g_mu);
    if (wake) pthread_cond_broadcast(&g_work_cv);

    tls_in_pool = true;
    size_t finished = run_chunks(&j);
    tls_in_pool = false;

    pthread_mutex_lock(&g_mu);
    atomic_fetch_add_explicit(&j.done, finished, memory_order_release);
    bool pending = j.done < j.nchunks;
    pthread_mutex_unlock(&g_mu);
    uint64_t waited = pending ? rt_now_ns() : 0;
    if (pending) spin_until_done(&j);
    pthread_mutex_lock(&g_mu);
    while (j.done < j.nchunks || j.active > 0) pthread_cond_wait(&g_done_cv, &g_mu);
    g_job = NULL;
    pthread_mutex_unlock(&g_mu);
    pthread_mutex_unlock(&g_job_mu);
    if (mid && pending) {
        uint64_t now = rt_now_ns();
        if (now - waited >= SLOW_HANDOFF_NS)
            atomic_store_explicit(&g_mid_inline_until, now + MID_BACKOFF_NS, memory_order_relaxed);
    }
}

void npusim_parallel_for(size_t n, size_t grain, npusim_range_fn fn, void *ctx)
{
    parallel_for(n, grain, fn, ctx, false);
}

void npusim_parallel_for_mid(size_t n, size_t grain, npusim_range_fn fn, void *ctx)
{
    uint64_t until = atomic_load_explicit(&g_mid_inline_until, memory_order_relaxed);
    if (until && rt_now_ns() < until) {
        if (n) fn(0, n, ctx);
        return;
    }
    parallel_for(n, grain, fn, ctx, true);
}
