/* Captured graphs replayed with data checks: nothing runs during capture; replays run the
 * recorded work any number of times in stream order on any stream, reading inputs' current
 * contents; cross-stream captures (a transitive join) replay their branches concurrently. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "rt_check.h"

enum { N = 4096 };

static atomic_int g_counter;

static void count(void *arg) { (void)arg; atomic_fetch_add(&g_counter, 1); }

static void sleep_ms(void *arg)
{
    struct timespec ts = {0, (long)(intptr_t)arg * 1000000L};
    nanosleep(&ts, NULL);
}

/* dst[i] = src[i] + 1 for the N bytes behind two pinned host buffers (a host "kernel"). */
typedef struct { unsigned char *src, *dst; } inc_args;
static void increment(void *p)
{
    inc_args *a = p;
    for (int i = 0; i < N; i++) a->dst[i] = (unsigned char)(a->src[i] + 1);
}

static int all_bytes(const unsigned char *p, unsigned char v)
{
    for (int i = 0; i < N; i++)
        if (p[i] != v) return 0;
    return 1;
}

static void single_stream(void)
{
    aclrtStream s, other;
    unsigned char *in, *mid, *out;
    void *d;
    aclmdlRI ri;
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT_OK(aclrtCreateStream(&other));
    EXPECT_OK(aclrtMallocHost((void **)&in, N));
    EXPECT_OK(aclrtMallocHost((void **)&mid, N));
    EXPECT_OK(aclrtMallocHost((void **)&out, N));
    EXPECT_OK(aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
    memset(in, 10, N);
    memset(out, 0, N);
    inc_args args = {mid, out};
    /* out = (in copied through the device) + 1, then count. */
    EXPECT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_OK(aclrtMemcpyAsync(d, N, in, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_OK(aclrtMemcpyAsync(mid, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtLaunchHostFunc(s, increment, &args));
    EXPECT_OK(aclrtLaunchHostFunc(s, count, NULL));
    EXPECT_OK(aclmdlRICaptureEnd(s, &ri));
    sleep_ms((void *)(intptr_t)20);
    EXPECT(atomic_load(&g_counter) == 0 && all_bytes(out, 0), "captured work ran during capture");
    for (int r = 1; r <= 5; r++) {
        memset(in, 10 * r, N); /* replays read the inputs' current contents */
        EXPECT_OK(aclmdlRIExecuteAsync(ri, r % 2 ? s : other));
        EXPECT_OK(aclrtSynchronizeStream(r % 2 ? s : other));
        EXPECT(all_bytes(out, (unsigned char)(10 * r + 1)), "replay %d: out 0x%02x", r, out[0]);
    }
    EXPECT(atomic_load(&g_counter) == 5, "host function ran %d times in 5 replays", atomic_load(&g_counter));
    /* In stream order on the replay stream: a delayed memset before the replay is seen. */
    EXPECT_OK(aclrtLaunchHostFunc(other, sleep_ms, (void *)(intptr_t)30));
    EXPECT_OK(aclrtMemsetAsync(in, N, 99, N, other));
    EXPECT_OK(aclmdlRIExecuteAsync(ri, other));
    /* Destroying the model with a replay queued keeps what the replay needs alive. */
    EXPECT_OK(aclmdlRIDestroy(ri));
    EXPECT_OK(aclrtSynchronizeStream(other));
    EXPECT(all_bytes(out, 100), "replay after a queued memset: out 0x%02x", out[0]);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtDestroyStream(other));
    EXPECT_OK(aclrtFree(d));
    EXPECT_OK(aclrtFreeHost(in));
    EXPECT_OK(aclrtFreeHost(mid));
    EXPECT_OK(aclrtFreeHost(out));
}

/* Two branches that each wait (up to 2 s) for the other to start: only a concurrent replay
 * lets both see the other. */
static atomic_int g_arrived, g_met;
static void rendezvous(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_arrived, 1);
    for (int i = 0; i < 2000 && atomic_load(&g_arrived) % 2 != 0; i++) sleep_ms((void *)(intptr_t)1);
    if (atomic_load(&g_arrived) % 2 == 0) atomic_fetch_add(&g_met, 1);
}

static void cross_stream(void)
{
    aclrtStream s1, s2, s3;
    aclrtEvent fork1, fork2, join2, join3;
    unsigned char *a, *b, *c;
    aclmdlRI ri;
    EXPECT_OK(aclrtCreateStream(&s1));
    EXPECT_OK(aclrtCreateStream(&s2));
    EXPECT_OK(aclrtCreateStream(&s3));
    EXPECT_OK(aclrtCreateEventExWithFlag(&fork1, ACL_EVENT_SYNC));
    EXPECT_OK(aclrtCreateEventExWithFlag(&fork2, ACL_EVENT_SYNC));
    EXPECT_OK(aclrtCreateEventExWithFlag(&join2, ACL_EVENT_SYNC));
    EXPECT_OK(aclrtCreateEventExWithFlag(&join3, ACL_EVENT_SYNC));
    EXPECT_OK(aclrtMallocHost((void **)&a, N));
    EXPECT_OK(aclrtMallocHost((void **)&b, N));
    EXPECT_OK(aclrtMallocHost((void **)&c, N));
    inc_args ab = {a, b}, bc = {b, c};
    /* s1: a = k ; s2 (joins via s1): rendezvous, b = a + 1; s3 (joins via s2, transitively):
     * rendezvous; returns to s2, s2 returns to s1; s1: c = b + 1. */
    EXPECT_OK(aclmdlRICaptureBegin(s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_OK(aclrtRecordEvent(fork1, s1));
    EXPECT_OK(aclrtStreamWaitEvent(s2, fork1));
    EXPECT_OK(aclrtRecordEvent(fork2, s2));
    EXPECT_OK(aclrtStreamWaitEvent(s3, fork2));
    EXPECT_OK(aclrtLaunchHostFunc(s2, rendezvous, NULL));
    EXPECT_OK(aclrtLaunchHostFunc(s3, rendezvous, NULL));
    EXPECT_OK(aclrtLaunchHostFunc(s2, increment, &ab));
    EXPECT_OK(aclrtRecordEvent(join3, s3));
    EXPECT_OK(aclrtStreamWaitEvent(s2, join3));
    EXPECT_OK(aclrtRecordEvent(join2, s2));
    EXPECT_OK(aclrtStreamWaitEvent(s1, join2));
    EXPECT_OK(aclrtLaunchHostFunc(s1, increment, &bc));
    EXPECT_OK(aclmdlRICaptureEnd(s1, &ri));
    aclmdlRICaptureStatus st;
    aclmdlRI none;
    EXPECT_OK(aclmdlRICaptureGetInfo(s3, &st, &none));
    EXPECT(st == ACL_MODEL_RI_CAPTURE_STATUS_NONE, "joined stream still capturing after End");
    aclrtStream streams[4];
    uint32_t n = 4;
    EXPECT_OK(aclmdlRIGetStreams(ri, streams, &n));
    EXPECT(n == 3 && streams[0] == s1 && streams[1] == s2 && streams[2] == s3, "model streams: %u", n);
    EXPECT_OK(aclmdlRIDebugPrint(ri));
    for (int r = 1; r <= 4; r++) {
        memset(a, r, N);
        EXPECT_OK(aclmdlRIExecuteAsync(ri, s1));
        EXPECT_OK(aclrtSynchronizeStream(s1));
        EXPECT(all_bytes(c, (unsigned char)(r + 2)), "replay %d: c 0x%02x", r, c[0]);
    }
    EXPECT(atomic_load(&g_met) == 8, "branches met %d times of 8: not replayed concurrently", atomic_load(&g_met));
    EXPECT_OK(aclmdlRIDestroy(ri));
    EXPECT_OK(aclrtDestroyEvent(fork1));
    EXPECT_OK(aclrtDestroyEvent(fork2));
    EXPECT_OK(aclrtDestroyEvent(join2));
    EXPECT_OK(aclrtDestroyEvent(join3));
    EXPECT_OK(aclrtDestroyStream(s1));
    EXPECT_OK(aclrtDestroyStream(s2));
    EXPECT_OK(aclrtDestroyStream(s3));
    EXPECT_OK(aclrtFreeHost(a));
    EXPECT_OK(aclrtFreeHost(b));
    EXPECT_OK(aclrtFreeHost(c));
}

/* A wide fork/join: one node feeding six branches that all return to the origin. */
static void wide_fork_join(void)
{
    enum { K = 6 };
    aclrtStream origin, branch[K];
    aclrtEvent fork, join[K];
    aclmdlRI ri;
    EXPECT_OK(aclrtCreateStream(&origin));
    EXPECT_OK(aclrtCreateEventExWithFlag(&fork, ACL_EVENT_SYNC));
    for (int i = 0; i < K; i++) {
        EXPECT_OK(aclrtCreateStream(&branch[i]));
        EXPECT_OK(aclrtCreateEventExWithFlag(&join[i], ACL_EVENT_SYNC));
    }
    atomic_store(&g_counter, 0);
    EXPECT_OK(aclmdlRICaptureBegin(origin, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_OK(aclrtLaunchHostFunc(origin, count, NULL));
    EXPECT_OK(aclrtRecordEvent(fork, origin));
    for (int i = 0; i < K; i++) {
        EXPECT_OK(aclrtStreamWaitEvent(branch[i], fork));
        EXPECT_OK(aclrtLaunchHostFunc(branch[i], count, NULL));
        EXPECT_OK(aclrtLaunchHostFunc(branch[i], count, NULL));
        EXPECT_OK(aclrtRecordEvent(join[i], branch[i]));
        EXPECT_OK(aclrtStreamWaitEvent(origin, join[i]));
    }
    EXPECT_OK(aclmdlRICaptureEnd(origin, &ri));
    for (int r = 0; r < 3; r++) EXPECT_OK(aclmdlRIExecuteAsync(ri, origin));
    EXPECT_OK(aclrtSynchronizeStream(origin));
    EXPECT(atomic_load(&g_counter) == 3 * (1 + 2 * K), "wide graph counted %d", atomic_load(&g_counter));
    EXPECT_OK(aclmdlRIDestroy(ri));
    for (int i = 0; i < K; i++) {
        EXPECT_OK(aclrtDestroyStream(branch[i]));
        EXPECT_OK(aclrtDestroyEvent(join[i]));
    }
    EXPECT_OK(aclrtDestroyEvent(fork));
    EXPECT_OK(aclrtDestroyStream(origin));
}

/* A replay captured into another graph runs as one node of it. */
static void nested(void)
{
    aclrtStream s;
    aclmdlRI inner, outer;
    EXPECT_OK(aclrtCreateStream(&s));
    atomic_store(&g_counter, 0);
    EXPECT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_OK(aclrtLaunchHostFunc(s, count, NULL));
    EXPECT_OK(aclmdlRICaptureEnd(s, &inner));
    EXPECT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_OK(aclmdlRIExecuteAsync(inner, s));
    EXPECT_OK(aclmdlRIExecuteAsync(inner, s));
    EXPECT_OK(aclmdlRICaptureEnd(s, &outer));
    EXPECT_OK(aclmdlRIDestroy(inner)); /* the outer graph keeps it */
    EXPECT_OK(aclmdlRIExecuteAsync(outer, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT(atomic_load(&g_counter) == 2, "nested replay counted %d, expected 2", atomic_load(&g_counter));
    EXPECT_OK(aclmdlRIDestroy(outer));
    EXPECT_OK(aclrtDestroyStream(s));
}

int main(void)
{
    EXPECT_OK(aclInit(NULL));
    EXPECT_OK(aclrtSetDevice(0));
    single_stream();
    cross_stream();
    wide_fork_join();
    nested();
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return rt_check_summary("cap_graphs");
}
