/* Executors and stream checks under threads launching at once, the launch path taking no lock
 * for either: two threads racing to launch one single-use executor (exactly one runs it, the
 * other is refused), repeatable executors launched from two threads while a third destroys
 * them, threads that exit with free registry slots and spare executors of their own (handed
 * back, reused by later threads, and a consumed executor's handle still refused after that),
 * and a stream destroyed by one thread after another launched on it (its next launch is
 * refused). Prints "aclnn_executor_threads ok". */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "aclnn_check.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"

#define SMALL 16

static aclScalar *one;

static aclTensor *vector(void *data, int64_t n)
{
    int64_t shape[1] = {n}, strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

static void *filled(int64_t n, float value)
{
    float host[SMALL];
    for (int64_t i = 0; i < n; i++) host[i] = value;
    return dev_from(host, (size_t)n * sizeof(float));
}

static bool all_equal(void *dev, int64_t n, float value)
{
    float host[SMALL];
    to_host(host, dev, (size_t)n * sizeof(float));
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++) ok = host[i] == value;
    return ok;
}

/* out = a + b on `s` (both phases); the code of the first failing phase, else 0. */
static int add(aclrtStream s, void *a, void *b, void *out)
{
    aclTensor *ta = vector(a, SMALL), *tb = vector(b, SMALL), *tout = vector(out, SMALL);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    int rc = aclnnAddGetWorkspaceSize(ta, tb, one, tout, &ws, &ex);
    if (rc == 0) rc = aclnnAdd(NULL, ws, ex, s);
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(tout);
    return rc;
}

/* ---- two threads launch one single-use executor at the same time ---- */

typedef struct {
    pthread_barrier_t *start;
    aclOpExecutor *ex;
    aclrtStream stream;
    int rc;
} racer;

static void *race_launch(void *arg)
{
    racer *r = (racer *)arg;
    aclrtSetDevice(0);
    pthread_barrier_wait(r->start);
    r->rc = aclnnAdd(NULL, 0, r->ex, r->stream);
    if (r->rc == 0) r->rc = aclrtSynchronizeStream(r->stream) ? -1 : 0;
    return NULL;
}

/* Each round one executor (out += 1), launched by two threads at once on their own streams:
 * one launch runs it, the other is refused as not live; out counts the rounds. */
static void test_racing_launches_run_once(void)
{
    void *out = filled(SMALL, 0.0f), *ones = filled(SMALL, 1.0f);
    aclTensor *tout = vector(out, SMALL), *tones = vector(ones, SMALL);
    aclrtStream streams[2];
    for (int k = 0; k < 2; k++) EXPECT_OK(aclrtCreateStream(&streams[k]));
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    const int rounds = 300;
    int runs = 0;
    for (int round = 0; round < rounds; round++) {
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        EXPECT_OK(aclnnAddGetWorkspaceSize(tout, tones, one, tout, &ws, &ex));
        racer r[2] = {{&start, ex, streams[0], 0}, {&start, ex, streams[1], 0}};
        pthread_t t[2];
        for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, race_launch, &r[k]);
        for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
        int ran = (r[0].rc == 0) + (r[1].rc == 0);
        int refused = (r[0].rc == ACLNN_ERR_PARAM_INVALID) + (r[1].rc == ACLNN_ERR_PARAM_INVALID);
        EXPECT(ran == 1 && refused == 1, "round %d: launches returned %d and %d", round, r[0].rc, r[1].rc);
        runs += ran;
    }
    EXPECT(all_equal(out, SMALL, (float)runs), "%d runs of out += 1", runs);
    EXPECT(runs == rounds, "%d of %d rounds ran", runs, rounds);
    pthread_barrier_destroy(&start);
    for (int k = 0; k < 2; k++) aclrtDestroyStream(streams[k]);
    aclDestroyTensor(tout);
    aclDestroyTensor(tones);
    aclrtFree(out);
    aclrtFree(ones);
}

/* ---- repeatable executors launched from two threads, destroyed by a third ---- */

typedef struct {
    aclOpExecutor *ex;
    aclrtStream stream;
    int launches, rc;
} repeater;

static void *launch_repeatedly(void *arg)
{
    repeater *r = (repeater *)arg;
    aclrtSetDevice(0);
    for (int i = 0; i < r->launches && r->rc == 0; i++) r->rc = aclnnAdd(NULL, 0, r->ex, r->stream);
    if (r->rc == 0) r->rc = aclrtSynchronizeStream(r->stream) ? -1 : 0;
    return NULL;
}

typedef struct { aclOpExecutor *ex; int rc; } destroyer;

static void *destroy_executor(void *arg)
{
    destroyer *d = (destroyer *)arg;
    d->rc = aclDestroyAclOpExecutor(d->ex);
    return NULL;
}

/* Two threads launch one repeatable executor (out = a + a) 500 times each on one stream (which
 * orders the writes) while, in a second round, a third thread destroys it: every launch before
 * the destruction runs, those after it are refused, and nothing is freed under a running task
 * (the sanitizer builds). */
static void test_repeatable_across_threads(void)
{
    void *a = filled(SMALL, 1.5f), *out = filled(SMALL, 0.0f);
    aclTensor *ta = vector(a, SMALL), *tout = vector(out, SMALL);
    aclrtStream shared = NULL;
    EXPECT_OK(aclrtCreateStream(&shared));
    aclrtStream streams[2] = {shared, shared};
    for (int round = 0; round < 2; round++) {
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        EXPECT_OK(aclnnAddGetWorkspaceSize(ta, ta, one, tout, &ws, &ex));
        EXPECT_OK(aclSetAclOpExecutorRepeatable(ex));
        repeater r[2] = {{ex, streams[0], 500, 0}, {ex, streams[1], 500, 0}};
        destroyer d = {ex, 0};
        pthread_t t[3];
        for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, launch_repeatedly, &r[k]);
        if (round == 1) pthread_create(&t[2], NULL, destroy_executor, &d);
        for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
        if (round == 0) {
            EXPECT(r[0].rc == 0 && r[1].rc == 0, "launches: %d, %d", r[0].rc, r[1].rc);
            EXPECT_OK(aclDestroyAclOpExecutor(ex));
        } else {
            pthread_join(t[2], NULL);
            EXPECT(d.rc == 0, "destroy: %d", d.rc);
            for (int k = 0; k < 2; k++) {
                EXPECT(r[k].rc == 0 || r[k].rc == ACLNN_ERR_PARAM_INVALID, "thread %d: %d", k, r[k].rc);
                EXPECT_OK(aclrtSynchronizeStream(streams[k]));
            }
        }
        EXPECT_CODE(aclnnAdd(NULL, 0, ex, streams[0]), ACLNN_ERR_PARAM_INVALID);
        EXPECT(all_equal(out, SMALL, 3.0f), "round %d: out = a + a", round);
    }
    aclrtDestroyStream(shared);
    aclDestroyTensor(ta);
    aclDestroyTensor(tout);
    aclrtFree(a);
    aclrtFree(out);
}

/* ---- short-lived threads: their free slots and spare executors go back ---- */

typedef struct { aclrtStream stream; void *a, *b, *y; int launches, rc; } chain;

static void *run_chain(void *arg)
{
    chain *c = (chain *)arg;
    aclrtSetDevice(0);
    for (int i = 0; i < c->launches && c->rc == 0; i++)
        c->rc = add(c->stream, i & 1 ? c->b : c->a, c->y, i & 1 ? c->a : c->b);
    if (c->rc == 0) c->rc = aclrtSynchronizeStream(c->stream) ? -1 : 0;
    return NULL;
}

/* 40 generations of two threads, each thread making 101 launches on its own stream and exiting
 * (with free registry slots and spare executors of its own); a handle consumed before them all
 * is still refused after them. Every chain's result is right. */
static void test_exiting_threads_hand_back(void)
{
    void *x = filled(SMALL, 1.0f), *out = filled(SMALL, 0.0f);
    aclTensor *tx = vector(x, SMALL), *tout = vector(out, SMALL);
    uint64_t ws = 0;
    aclOpExecutor *consumed = NULL;
    EXPECT_OK(aclnnAddGetWorkspaceSize(tx, tx, one, tout, &ws, &consumed));
    EXPECT_OK(aclnnAdd(NULL, 0, consumed, stream));
    EXPECT_OK(aclrtSynchronizeStream(stream));
    chain c[2];
    for (int k = 0; k < 2; k++) {
        EXPECT_OK(aclrtCreateStream(&c[k].stream));
        c[k].a = filled(SMALL, 0.0f);
        c[k].b = filled(SMALL, 0.0f);
        c[k].y = filled(SMALL, 1.0f);
    }
    for (int generation = 0; generation < 40; generation++) {
        pthread_t t[2];
        for (int k = 0; k < 2; k++) {
            c[k].launches = 101;
            c[k].rc = 0;
            pthread_create(&t[k], NULL, run_chain, &c[k]);
        }
        for (int k = 0; k < 2; k++) {
            pthread_join(t[k], NULL);
            EXPECT(c[k].rc == 0, "generation %d, thread %d: %d", generation, k, c[k].rc);
            /* a chain of 101 adds from a == m ends in b == m + 101 */
            EXPECT(all_equal(c[k].b, SMALL, (float)(101 * (generation + 1))), "generation %d, thread %d",
                   generation, k);
            void *swap = c[k].a; /* the next chain starts from b */
            c[k].a = c[k].b;
            c[k].b = swap;
        }
    }
    EXPECT_CODE(aclnnAdd(NULL, 0, consumed, stream), ACLNN_ERR_PARAM_INVALID);
    EXPECT_CODE(aclDestroyAclOpExecutor(consumed), ACLNN_ERR_INNER);
    for (int k = 0; k < 2; k++) {
        aclrtDestroyStream(c[k].stream);
        aclrtFree(c[k].a);
        aclrtFree(c[k].b);
        aclrtFree(c[k].y);
    }
    aclDestroyTensor(tx);
    aclDestroyTensor(tout);
    aclrtFree(x);
    aclrtFree(out);
}

/* ---- a stream destroyed after another thread launched on it ---- */

typedef struct {
    pthread_barrier_t *step;
    aclrtStream stream;
    void *x;
    int before, after;
} stream_user;

static void *launch_before_and_after(void *arg)
{
    stream_user *u = (stream_user *)arg;
    aclrtSetDevice(0);
    u->before = add(u->stream, u->x, u->x, u->x);
    if (u->before == 0) u->before = aclrtSynchronizeStream(u->stream) ? -1 : 0;
    pthread_barrier_wait(u->step); /* the main thread destroys the stream */
    pthread_barrier_wait(u->step);
    u->after = add(u->stream, u->x, u->x, u->x);
    return NULL;
}

/* The thread's launch on the stream passed its live check; once another thread destroyed the
 * stream, the same thread's next launch on that handle is refused (ACL_ERROR_RT_INVALID_HANDLE),
 * also when streams were created meanwhile (`other` exists first, so it cannot take the
 * destroyed stream's address). */
static void test_destroyed_stream_refused_to_launching_thread(void)
{
    void *x = filled(SMALL, 1.0f);
    pthread_barrier_t step;
    pthread_barrier_init(&step, NULL, 2);
    stream_user u = {&step, NULL, x, -1, -1};
    aclrtStream other = NULL;
    EXPECT_OK(aclrtCreateStream(&u.stream));
    EXPECT_OK(aclrtCreateStream(&other));
    pthread_t t;
    pthread_create(&t, NULL, launch_before_and_after, &u);
    pthread_barrier_wait(&step);
    EXPECT_OK(aclrtDestroyStream(u.stream));
    aclrtStream third = NULL;
    EXPECT_OK(aclrtCreateStream(&third));
    pthread_barrier_wait(&step);
    pthread_join(t, NULL);
    EXPECT(u.before == 0, "launch before the destruction: %d", u.before);
    if (third != u.stream) {
        EXPECT(u.after == ACL_ERROR_RT_INVALID_HANDLE, "launch after the destruction returned %d", u.after);
        EXPECT(all_equal(x, SMALL, 2.0f), "one doubling");
    } else { /* the new stream took the address: a live stream, the launch runs there */
        EXPECT(u.after == 0, "launch on the new stream at the same address returned %d", u.after);
        EXPECT_OK(aclrtSynchronizeStream(third));
        EXPECT(all_equal(x, SMALL, 4.0f), "two doublings");
    }
    aclrtDestroyStream(third);
    aclrtDestroyStream(other);
    pthread_barrier_destroy(&step);
    aclrtFree(x);
}

int main(void)
{
    if (aclnn_test_setup()) return 1;
    float value = 1.0f;
    one = aclCreateScalar(&value, ACL_FLOAT);
    test_racing_launches_run_once();
    test_repeatable_across_threads();
    test_exiting_threads_hand_back();
    test_destroyed_stream_refused_to_launching_thread();
    aclDestroyScalar(one);
    return aclnn_test_finish("aclnn_executor_threads");
}
