/* The CPU thread pool behind npusim_parallel_for: NPUSIM_NUM_THREADS threads (default: online
 * CPUs) including the caller, created on first use. One job at a time; a caller that finds the
 * pool busy, or that is itself a pool chunk, runs its range inline, so nesting never deadlocks. */
#include <stdlib.h>
#include <unistd.h>

#include "rt_internal.h"

typedef struct {
    npusim_range_fn fn;
    void *ctx;
    size_t n, chunk, nchunks;
    atomic_size_t next;     /* next chunk to take */
    size_t done;            /* chunks finished, under g_mu */
    int active;             /* pool threads inside this job, under g_mu */
} job;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_done_cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t g_job_mu = PTHREAD_MUTEX_INITIALIZER; /* one job at a time */
static job *g_job;
static uint64_t g_generation;
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

static void run_chunks(job *j)
{
    size_t finished = 0;
    for (size_t c; (c = atomic_fetch_add(&j->next, 1)) < j->nchunks; finished++) {
        size_t begin = c * j->chunk, end = begin + j->chunk < j->n ? begin + j->chunk : j->n;
        j->fn(begin, end, j->ctx);
    }
    pthread_mutex_lock(&g_mu);
    j->done += finished;
    pthread_mutex_unlock(&g_mu);
}

static void *pool_main(void *arg)
{
    (void)arg;
    tls_in_pool = true;
    uint64_t seen = 0;
    pthread_mutex_lock(&g_mu);
    for (;;) {
        while (g_generation == seen || !g_job) {
            if (g_generation != seen && !g_job) seen = g_generation;
            pthread_cond_wait(&g_work_cv, &g_mu);
        }
        seen = g_generation;
        job *j = g_job;
        j->active++;
        pthread_mutex_unlock(&g_mu);
        run_chunks(j);
        pthread_mutex_lock(&g_mu);
        if (--j->active == 0) pthread_cond_broadcast(&g_done_cv);
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

void npusim_parallel_for(size_t n, size_t grain, npusim_range_fn fn, void *ctx)
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
    pthread_mutex_lock(&g_mu);
    g_job = &j;
    g_generation++;
    pthread_cond_broadcast(&g_work_cv);
    pthread_mutex_unlock(&g_mu);

    tls_in_pool = true;
    run_chunks(&j);
    tls_in_pool = false;

    pthread_mutex_lock(&g_mu);
    while (j.done < j.nchunks || j.active > 0) pthread_cond_wait(&g_done_cv, &g_mu);
    g_job = NULL;
    pthread_mutex_unlock(&g_mu);
    pthread_mutex_unlock(&g_job_mu);
}
