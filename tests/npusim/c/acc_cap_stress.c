/* Acceptance stress of aclmdlRI under the sanitizers: several threads at once each capture a
 * cross-stream graph (memset, event fork, D2D copy and host function on a side stream, join,
 * D2D copy back), replay it many times with data checks, provoke a failed capture (unjoined
 * side stream) and release everything; then a RELAXED capture is ended and replayed on
 * other threads. Prints "acc_cap_stress ok" when every check passed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

#define THREADS 3
#define REPLAYS 60
#define BYTES 4096

typedef struct {
    int id;
    atomic_int host_calls;
    int failures;
} worker;

static void count_call(void *arg) { atomic_fetch_add(&((worker *)arg)->host_calls, 1); }

#define EXPECT(cond) do { if (!(cond)) { w->failures++; fprintf(stderr, "thread %d: %s failed (line %d)\n", w->id, #cond, __LINE__); } } while (0)

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

static void *run(void *arg)
{
    worker *w = arg;
    unsigned char host[BYTES];
    void *a = NULL, *b = NULL, *c = NULL;
    aclrtStream s = NULL, side = NULL;
    aclrtEvent fork = NULL, back = NULL;
    aclmdlRI model = NULL;
    unsigned char value = (unsigned char)(17 + w->id);

    EXPECT(aclrtSetDevice(0) == ACL_SUCCESS);
    EXPECT(aclrtMalloc(&a, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    EXPECT(aclrtMalloc(&b, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    EXPECT(aclrtMalloc(&c, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&s) == ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&side) == ACL_SUCCESS);
    EXPECT(aclrtCreateEventExWithFlag(&fork, ACL_EVENT_SYNC) == ACL_SUCCESS);
    EXPECT(aclrtCreateEventExWithFlag(&back, ACL_EVENT_SYNC) == ACL_SUCCESS);
    if (w->failures) return NULL;

    EXPECT(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL) == ACL_SUCCESS);
    EXPECT(aclrtMemsetAsync(a, BYTES, value, BYTES, s) == ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(fork, s) == ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEvent(side, fork) == ACL_SUCCESS);
    EXPECT(aclrtMemcpyAsync(b, BYTES, a, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, side) == ACL_SUCCESS);
    EXPECT(aclrtLaunchHostFunc(side, count_call, w) == ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(back, side) == ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEvent(s, back) == ACL_SUCCESS);
    EXPECT(aclrtMemcpyAsync(c, BYTES, b, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s) == ACL_SUCCESS);
    EXPECT(aclmdlRICaptureEnd(s, &model) == ACL_SUCCESS);
    EXPECT(atomic_load(&w->host_calls) == 0);

    for (int r = 0; r < REPLAYS; r++) {
        EXPECT(aclrtMemsetAsync(c, BYTES, 0, BYTES, s) == ACL_SUCCESS);
        EXPECT(aclmdlRIExecuteAsync(model, s) == ACL_SUCCESS);
    }
    EXPECT(aclrtSynchronizeStream(s) == ACL_SUCCESS);
    EXPECT(atomic_load(&w->host_calls) == REPLAYS);
    memset(host, 0, sizeof host);
    EXPECT(aclrtMemcpy(host, BYTES, c, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    EXPECT(all_bytes(host, BYTES, value));

    /* A failed capture: the side stream's work never returns to the origin. */
    aclmdlRI broken = NULL;
    EXPECT(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL) == ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(fork, s) == ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEvent(side, fork) == ACL_SUCCESS);
    EXPECT(aclrtMemsetAsync(b, BYTES, 0xEE, BYTES, side) == ACL_SUCCESS);
    EXPECT(aclmdlRICaptureEnd(s, &broken) == ACL_ERROR_RT_STREAM_UNJOINED);
    EXPECT(aclrtSynchronizeStream(side) == ACL_SUCCESS);
    EXPECT(aclrtMemcpy(host, BYTES, b, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    EXPECT(all_bytes(host, BYTES, value)); /* the failed capture ran nothing */

    EXPECT(aclmdlRIExecuteAsync(model, side) == ACL_SUCCESS); /* replay on another stream */
    EXPECT(aclmdlRIDestroy(model) == ACL_SUCCESS);             /* while it may still run */
    EXPECT(aclrtSynchronizeStream(side) == ACL_SUCCESS);
    EXPECT(atomic_load(&w->host_calls) == REPLAYS + 1);

    EXPECT(aclrtDestroyEvent(fork) == ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(back) == ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(side) == ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s) == ACL_SUCCESS);
    EXPECT(aclrtFree(a) == ACL_SUCCESS);
    EXPECT(aclrtFree(b) == ACL_SUCCESS);
    EXPECT(aclrtFree(c) == ACL_SUCCESS);
    EXPECT(aclrtResetDevice(0) == ACL_SUCCESS);
    return NULL;
}

/* A RELAXED capture begun on the main thread is ended on another thread (allowed only in
 * RELAXED mode) and its model replayed on a third. */
typedef struct { aclrtStream stream; aclmdlRI model; aclError rc; } cross_thread;

static void *end_elsewhere(void *arg)
{
    cross_thread *t = arg;
    t->rc = aclrtSetDevice(0);
    if (t->rc == ACL_SUCCESS) t->rc = aclmdlRICaptureEnd(t->stream, &t->model);
    return NULL;
}

static void *replay_elsewhere(void *arg)
{
    cross_thread *t = arg;
    t->rc = aclrtSetDevice(0);
    if (t->rc == ACL_SUCCESS) t->rc = aclmdlRIExecuteAsync(t->model, t->stream);
    if (t->rc == ACL_SUCCESS) t->rc = aclrtSynchronizeStream(t->stream);
    return NULL;
}

static int relaxed_cross_thread_end(void)
{
    int failures = 0;
    unsigned char host[BYTES];
    void *buf = NULL;
    cross_thread t = {0};
    pthread_t thread;
    failures += aclrtSetDevice(0) != ACL_SUCCESS;
    failures += aclrtMalloc(&buf, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
    failures += aclrtCreateStream(&t.stream) != ACL_SUCCESS;
    if (failures) return failures;
    failures += aclmdlRICaptureBegin(t.stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED) != ACL_SUCCESS;
    failures += aclrtMemsetAsync(buf, BYTES, 0x3C, BYTES, t.stream) != ACL_SUCCESS;
    pthread_create(&thread, NULL, end_elsewhere, &t);
    pthread_join(thread, NULL);
    failures += t.rc != ACL_SUCCESS || t.model == NULL;
    failures += aclrtMemset(buf, BYTES, 0, BYTES) != ACL_SUCCESS; /* captured memset did not run */
    pthread_create(&thread, NULL, replay_elsewhere, &t);
    pthread_join(thread, NULL);
    failures += t.rc != ACL_SUCCESS;
    failures += aclrtMemcpy(host, BYTES, buf, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS;
    failures += !all_bytes(host, BYTES, 0x3C);
    failures += aclmdlRIDestroy(t.model) != ACL_SUCCESS;
    failures += aclrtDestroyStream(t.stream) != ACL_SUCCESS;
    failures += aclrtFree(buf) != ACL_SUCCESS;
    failures += aclrtResetDevice(0) != ACL_SUCCESS;
    if (failures) fprintf(stderr, "relaxed cross-thread end: %d failure(s)\n", failures);
    return failures;
}

int main(void)
{
    static worker workers[THREADS];
    pthread_t threads[THREADS];
    int failures = 0;
    if (aclInit(NULL) != ACL_SUCCESS) return 1;
    for (int i = 0; i < THREADS; i++) {
        workers[i].id = i;
        atomic_init(&workers[i].host_calls, 0);
        pthread_create(&threads[i], NULL, run, &workers[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        failures += workers[i].failures;
    }
    failures += relaxed_cross_thread_end();
    failures += aclFinalize() != ACL_SUCCESS;
    if (failures) {
        printf("acc_cap_stress: %d failure(s)\n", failures);
        return 1;
    }
    printf("acc_cap_stress ok\n");
    return 0;
}
