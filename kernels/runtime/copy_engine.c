/* Mid-size copies between host and device memory (rt_transfer_copy): shared with the copy
 * engine, one thread that takes part in them as the DMA engine that does them on the hardware
 * leaves the CPU that asked for them alone, and ordered to reuse what the caches hold.
 *
 * Why not the kernel pool (npusim_parallel_for): a caller there waits until every thread that
 * joined the job has returned from it, so a pool thread that loses its core while it copies
 * its half (a machine with more runnable threads than cores) holds the copy back for a
 * scheduler time slice, and a pool thread that arrives after the caller has finished alone
 * goes back to sleep and arrives late again at the next copy. Here the copy is cut into
 * ENGINE_UNIT pieces claimed one at a time, the caller from one end and the engine from the
 * other (each keeps its end of the bytes in its own core's cache from one copy to the next);
 * the caller waits only for the piece the engine has in hand, never for an engine that has
 * not started, and the engine polls for the next copy for ENGINE_SPIN_NS after each copy it
 * took part in or was woken for, so a late engine is on time for the next one.
 *
 * The order: a core's last-level private cache holds about as much as a 1 MiB copy touches
 * (source and destination), so a copy of the same bytes again, from the same end, finds the
 * lines it needs first evicted by the ones it needed last (least recently used first: a cyclic
 * walk a little larger than the cache misses on every line). When the caller copied the same
 * bytes last time on its own, it starts at the other end, where the most recently used lines
 * are: measured on a 1 MiB copy alone, 25 us instead of 33 us. When the engine took a fair
 * share last time each core already holds its own end, which stays as it was.
 *
 * The claims live in one atomic word: the copy's generation (31 bits), whether the caller
 * takes the back (1 bit), the next piece from the front and one past the last from the back
 * (16 bits each). A claim is a compare-and-swap of that word, so an engine that looked at an
 * earlier copy cannot claim a piece of this one, and no piece is claimed after the last was.
 * One shared copy at a time: a caller that finds the engine busy copies alone. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_internal.h"

#define ENGINE_UNIT (64u << 10)          /* bytes per claimed piece */
#define ENGINE_MAX_UNITS 0xffffu         /* pieces a copy may have (16-bit claims) */
#define ENGINE_SPIN_NS 100000u           /* the engine polls this long for the next copy */
#define ENGINE_WAIT_SLEEP_NS 1000000u    /* a caller waiting this long for a piece naps */
#define CLAIM_CALLER_BACK (1ull << 32)   /* the caller takes pieces from the back */
#define CLAIM_GENERATION 33              /* the generation's first bit */

typedef struct {
    pthread_mutex_t job_mu;  /* held by the caller of the copy being shared */
    pthread_mutex_t mu;      /* with cv: the engine's sleep */
    pthread_cond_t cv;
    atomic_bool sleeping;    /* the engine waits on cv (set and cleared under mu) */
    _Atomic uint64_t claim;  /* generation, caller's end, front << 16 | back, in pieces */
    atomic_size_t done;      /* pieces of this copy the engine has finished */
    char *dst;               /* the copy: written before its generation is published */
    const char *src;
    size_t n;
} copy_engine;

/* The calling thread's last copy: what its caches hold at which end. */
typedef struct {
    const void *dst, *src;
    size_t n;
    bool from_back; /* the caller started at the back */
    bool shared;    /* the engine took a quarter of the pieces or more */
} last_copy;

static copy_engine g_engine = {
    .job_mu = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER,
    .cv = PTHREAD_COND_INITIALIZER};
static pthread_once_t g_engine_once = PTHREAD_ONCE_INIT;
static bool g_engine_started;
static _Thread_local last_copy tls_last;

static uint64_t claim_front(uint64_t c) { return (c >> 16) & 0xffffu; }
static uint64_t claim_back(uint64_t c) { return c & 0xffffu; }
static uint64_t claim_generation(uint64_t c) { return c >> CLAIM_GENERATION; }

static void copy_piece(char *dst, const char *src, size_t n, uint64_t piece)
{
    size_t offset = (size_t)piece * ENGINE_UNIT, left = n - offset;
    memcpy(dst + offset, src + offset, left < ENGINE_UNIT ? left : ENGINE_UNIT);
}

/* Claims one piece of the open copy for its caller (`caller`) or the engine, from the end
 * the word says: its index, or -1 when none is left. `c` is the claim word last seen
 * (updated). */
static int64_t claim_piece(copy_engine *e, uint64_t *c, bool caller)
{
    while (claim_front(*c) < claim_back(*c)) {
        bool back = caller == ((*c & CLAIM_CALLER_BACK) != 0);
        uint64_t next = back ? *c - 1 : *c + (1u << 16);
        if (atomic_compare_exchange_weak_explicit(&e->claim, c, next, memory_order_acq_rel,
                                                  memory_order_acquire))
            return (int64_t)(back ? claim_back(*c) - 1 : claim_front(*c));
    }
    return -1;
}

/* The engine's share of the open copy: pieces from the caller's other end until none is
 * left; returns the generation of the copy it found finished. The copy's fields are read
 * only after a claim succeeded, when its caller cannot start the next one. */
static uint64_t engine_pieces(copy_engine *e)
{
    uint64_t c = atomic_load_explicit(&e->claim, memory_order_acquire);
    for (int64_t piece; (piece = claim_piece(e, &c, false)) >= 0;) {
        copy_piece(e->dst, e->src, e->n, (uint64_t)piece);
        atomic_fetch_add_explicit(&e->done, 1, memory_order_release);
        c = atomic_load_explicit(&e->claim, memory_order_acquire);
    }
    return claim_generation(c);
}

/* Waits until a copy after generation `gen` is published: polling for ENGINE_SPIN_NS, then
 * asleep. A caller publishes before it reads `sleeping` and the engine sets `sleeping` before
 * it reads the generation (both sequentially consistent), so one of them sees the other. */
static void engine_wait(copy_engine *e, uint64_t gen)
{
    uint64_t start = rt_now_ns();
    for (unsigned i = 1; claim_generation(atomic_load_explicit(&e->claim, memory_order_acquire)) == gen; i++)
        if (!rt_poll_pause(i, start, ENGINE_SPIN_NS)) break;
    pthread_mutex_lock(&e->mu);
    atomic_store(&e->sleeping, true);
    while (claim_generation(atomic_load(&e->claim)) == gen) pthread_cond_wait(&e->cv, &e->mu);
    atomic_store(&e->sleeping, false);
    pthread_mutex_unlock(&e->mu);
}

static void *engine_main(void *arg)
{
    copy_engine *e = arg;
    for (;;)
        engine_wait(e, engine_pieces(e));
    return NULL;
}

/* A child of fork() has no engine thread (its runtime calls fail anyway). */
static void engine_after_fork_in_child(void) { g_engine_started = false; }

/* Starts the engine unless npusim is to use one thread (NPUSIM_NUM_THREADS=1, or one CPU). */
static void engine_start(void)
{
    const char *v = getenv("NPUSIM_NUM_THREADS");
    long threads = v ? strtol(v, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 2) return;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    g_engine_started = pthread_create(&t, &attr, engine_main, &g_engine) == 0;
    pthread_attr_destroy(&attr);
    if (!g_engine_started) return;
    rt_run_as_batch_thread(t); /* waking it must not preempt the caller */
    pthread_atfork(NULL, NULL, engine_after_fork_in_child);
}

/* Waits for the engine's pieces: polling, then in naps (its thread may have lost its core
 * for a time slice with a piece in hand). */
static void wait_for_engine(copy_engine *e, size_t pieces)
{
    uint64_t start = rt_now_ns();
    for (unsigned i = 1; atomic_load_explicit(&e->done, memory_order_acquire) < pieces; i++) {
        if (rt_poll_pause(i, start, ENGINE_WAIT_SLEEP_NS)) continue;
        struct timespec nap = {0, 20000};
        nanosleep(&nap, NULL);
    }
}

/* Shares the copy with the engine, the caller starting at the back when `from_back`; returns
 * how many pieces the engine copied, or -1 (nothing copied) when the engine is busy or not
 * running. */
static int64_t shared_copy(char *dst, const char *src, size_t n, size_t pieces, bool from_back)
{
    copy_engine *e = &g_engine;
    pthread_once(&g_engine_once, engine_start);
    if (!g_engine_started || pthread_mutex_trylock(&e->job_mu) != 0) return -1;
    e->dst = dst;
    e->src = src;
    e->n = n;
    atomic_store_explicit(&e->done, 0, memory_order_relaxed);
    uint64_t gen = (claim_generation(atomic_load_explicit(&e->claim, memory_order_relaxed)) + 1)
                   & ((1ull << (64 - CLAIM_GENERATION)) - 1);
    uint64_t c = gen << CLAIM_GENERATION | (from_back ? CLAIM_CALLER_BACK : 0) | pieces;
    atomic_store(&e->claim, c); /* publishes the copy */
    if (atomic_load(&e->sleeping)) {
        pthread_mutex_lock(&e->mu);
        pthread_cond_signal(&e->cv);
        pthread_mutex_unlock(&e->mu);
    }
    size_t mine = 0;
    for (int64_t piece; (piece = claim_piece(e, &c, true)) >= 0; mine++)
        copy_piece(dst, src, n, (uint64_t)piece);
    wait_for_engine(e, pieces - mine);
    pthread_mutex_unlock(&e->job_mu);
    return (int64_t)(pieces - mine);
}

void rt_transfer_copy(void *dst, const void *src, size_t n)
{
    size_t pieces = (n + ENGINE_UNIT - 1) / ENGINE_UNIT;
    last_copy *last = &tls_last;
    bool again = last->dst == dst && last->src == src && last->n == n;
    /* the end where the caller's cache holds the bytes: its own end again after a shared
     * copy, else the end it finished at */
    bool from_back = again && (last->shared ? last->from_back : !last->from_back);
    int64_t engine = pieces >= 2 && pieces <= ENGINE_MAX_UNITS
                         ? shared_copy(dst, src, n, pieces, from_back) : -1;
    if (engine < 0 && !from_back) {
        memcpy(dst, src, n);
    } else if (engine < 0) {
        for (size_t piece = pieces; piece-- > 0;) copy_piece(dst, src, n, piece);
    }
    *last = (last_copy){dst, src, n, from_back, engine > 0 && (size_t)engine * 4 >= pieces};
}
