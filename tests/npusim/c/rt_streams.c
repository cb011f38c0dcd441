/* Streams, events and callbacks verified with data: cross-stream ordering through events with
 * a producer delayed by a host function (a missing wait would copy stale bytes), re-recorded
 * events, waits on the same stream, elapsed time, device synchronisation, report threads. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "rt_check.h"

static void sleep_ms(void *arg)
{
    struct timespec ts = {0, (long)(intptr_t)arg * 1000000L};
    nanosleep(&ts, NULL);
}

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

enum { N = 1 << 20 };

static void cross_stream_order(void)
{
    aclrtStream producer, consumer;
    aclrtEvent ready;
    unsigned char *d, *h;
    EXPECT_OK(aclrtCreateStream(&producer));
    EXPECT_OK(aclrtCreateStream(&consumer));
    EXPECT_OK(aclrtCreateEvent(&ready));
    EXPECT_OK(aclrtMalloc((void **)&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMallocHost((void **)&h, N));
    EXPECT_OK(aclrtMemset(d, N, 0, N));
    for (int round = 1; round <= 4; round++) {
        EXPECT_OK(aclrtLaunchHostFunc(producer, sleep_ms, (void *)(intptr_t)40));
        EXPECT_OK(aclrtMemsetAsync(d, N, 0x10 + round, N, producer));
        EXPECT_OK(aclrtRecordEvent(ready, producer));          /* re-recorded every round */
        EXPECT_OK(aclrtStreamWaitEvent(consumer, ready));
        EXPECT_OK(aclrtMemcpyAsync(h, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
        EXPECT_OK(aclrtSynchronizeStream(consumer));
        EXPECT(all_bytes(h, N, (unsigned char)(0x10 + round)), "round %d: consumer saw 0x%02x", round, h[0]);
    }
    /* Waiting on an event recorded on the same stream is legal. */
    EXPECT_OK(aclrtRecordEvent(ready, consumer));
    EXPECT_OK(aclrtStreamWaitEvent(consumer, ready));
    EXPECT_OK(aclrtSynchronizeStream(consumer));
    /* Timing: two events around a 50 ms host function. */
    aclrtEvent t0, t1;
    EXPECT_OK(aclrtCreateEvent(&t0));
    EXPECT_OK(aclrtCreateEventWithFlag(&t1, ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC));
    aclrtEventRecordedStatus status;
    EXPECT_OK(aclrtQueryEventStatus(t1, &status));
    EXPECT(status == ACL_EVENT_RECORDED_STATUS_COMPLETE, "a never-recorded event captured no work");
    EXPECT_OK(aclrtRecordEvent(t0, producer));
    EXPECT_OK(aclrtLaunchHostFunc(producer, sleep_ms, (void *)(intptr_t)50));
    EXPECT_OK(aclrtRecordEvent(t1, producer));
    float ms = -1;
    EXPECT_OK(aclrtQueryEventStatus(t1, &status));
    EXPECT(status == ACL_EVENT_RECORDED_STATUS_NOT_READY, "event complete before its stream got there");
    EXPECT_CODE(aclrtEventElapsedTime(&ms, t0, t1), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    EXPECT_OK(aclrtSynchronizeEvent(t1));
    EXPECT_OK(aclrtQueryEventStatus(t1, &status));
    EXPECT(status == ACL_EVENT_RECORDED_STATUS_COMPLETE, "event not complete after synchronisation");
    EXPECT_OK(aclrtEventElapsedTime(&ms, t0, t1));
    EXPECT(ms >= 45.0f && ms < 2000.0f, "elapsed %f ms around a 50 ms sleep", ms);
    EXPECT_CODE(aclrtEventElapsedTime(&ms, t1, t0), ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL);
    /* aclrtSynchronizeDevice waits for every stream of the device. */
    EXPECT_OK(aclrtLaunchHostFunc(producer, sleep_ms, (void *)(intptr_t)40));
    EXPECT_OK(aclrtMemsetAsync(d, N, 0x77, N, producer));
    EXPECT_OK(aclrtSynchronizeDevice());
    EXPECT_OK(aclrtMemcpy(h, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(all_bytes(h, N, 0x77), "after aclrtSynchronizeDevice: 0x%02x", h[0]);
    /* The default stream (NULL) orders like any stream. */
    EXPECT_OK(aclrtLaunchHostFunc(NULL, sleep_ms, (void *)(intptr_t)20));
    EXPECT_OK(aclrtMemsetAsync(d, N, 0x42, N, NULL));
    EXPECT_OK(aclrtMemcpyAsync(h, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST, NULL));
    EXPECT_OK(aclrtSynchronizeStream(NULL));
    EXPECT(all_bytes(h, N, 0x42), "default stream: 0x%02x", h[0]);
    EXPECT_OK(aclrtDestroyEvent(t0));
    EXPECT_OK(aclrtDestroyEvent(t1));
    EXPECT_OK(aclrtDestroyEvent(ready));
    EXPECT_OK(aclrtDestroyStream(producer));
    EXPECT_OK(aclrtDestroyStream(consumer));
    EXPECT_OK(aclrtFree(d));
    EXPECT_OK(aclrtFreeHost(h));
}

/* ---- callbacks: a report thread processes them in stream order ---------------------------- */

static int g_order[8], g_norder;
static pthread_mutex_t g_order_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_report_stop, g_report_failed;

static void note(void *arg)
{
    pthread_mutex_lock(&g_order_mu);
    g_order[g_norder++] = (int)(intptr_t)arg;
    pthread_mutex_unlock(&g_order_mu);
}

static void *report_thread(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_report_stop)) {
        aclError rc = aclrtProcessReport(50);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_WAIT_CALLBACK_TIMEOUT && rc != ACL_ERROR_THREAD_NOT_SUBSCRIBE) {
            fprintf(stderr, "FAIL: aclrtProcessReport returned %d\n", rc);
            atomic_store(&g_report_failed, 1);
            break;
        }
    }
    return NULL;
}

static void callbacks(void)
{
    aclrtStream s;
    pthread_t tid;
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT(pthread_create(&tid, NULL, report_thread, NULL) == 0, "pthread_create");
    EXPECT_OK(aclrtSubscribeReport((uint64_t)tid, s));
    EXPECT_CODE(aclrtSubscribeReport((uint64_t)tid, s), ACL_ERROR_REPEAT_SUBSCRIBE);
    EXPECT_OK(aclrtLaunchHostFunc(s, note, (void *)1));
    EXPECT_OK(aclrtLaunchCallback(note, (void *)2, ACL_CALLBACK_BLOCK, s));
    EXPECT_OK(aclrtLaunchHostFunc(s, note, (void *)3));
    EXPECT_OK(aclrtLaunchCallback(note, (void *)4, ACL_CALLBACK_BLOCK, s));
    EXPECT_CODE(aclrtLaunchCallback(note, (void *)9, (aclrtCallbackBlockType)7, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSynchronizeStream(s));
    pthread_mutex_lock(&g_order_mu);
    EXPECT(g_norder == 4 && g_order[0] == 1 && g_order[1] == 2 && g_order[2] == 3 && g_order[3] == 4,
           "callback order: %d entries, %d %d %d %d", g_norder, g_order[0], g_order[1], g_order[2], g_order[3]);
    pthread_mutex_unlock(&g_order_mu);
    EXPECT_OK(aclrtLaunchCallback(note, (void *)5, ACL_CALLBACK_NO_BLOCK, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    for (int i = 0; i < 100; i++) { /* NO_BLOCK: processed by the report thread soon after */
        pthread_mutex_lock(&g_order_mu);
        int n = g_norder;
        pthread_mutex_unlock(&g_order_mu);
        if (n == 5) break;
        sleep_ms((void *)(intptr_t)10);
    }
    pthread_mutex_lock(&g_order_mu);
    EXPECT(g_norder == 5 && g_order[4] == 5, "non-blocking callback not processed (%d)", g_norder);
    pthread_mutex_unlock(&g_order_mu);
    EXPECT_CODE(aclrtUnSubscribeReport((uint64_t)tid + 1, s), ACL_ERROR_THREAD_NOT_SUBSCRIBE);
    EXPECT_OK(aclrtUnSubscribeReport((uint64_t)tid, s));
    EXPECT_CODE(aclrtUnSubscribeReport((uint64_t)tid, s), ACL_ERROR_STREAM_NOT_SUBSCRIBE);
    atomic_store(&g_report_stop, 1);
    pthread_join(tid, NULL);
    EXPECT(!atomic_load(&g_report_failed), "the report thread saw an unexpected error");
    EXPECT_OK(aclrtDestroyStream(s));
}

/* ---- stop on failure ---------------------------------------------------------------------- */

static void failure_mode(void)
{
    aclrtStream s;
    void *d, *h;
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT_OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
    EXPECT_CODE(aclrtSetStreamFailureMode(s, 5), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMallocHost(&h, 64));
    memset(h, 0, 64);
    EXPECT_OK(aclrtLaunchHostFunc(s, sleep_ms, (void *)(intptr_t)30));
    EXPECT_OK(aclrtMemcpyAsync(h, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtFree(d));                      /* the copy will fail when it runs */
    EXPECT_OK(aclrtLaunchHostFunc(s, note, (void *)6)); /* skipped: the stream stopped */
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(g_norder == 5, "a task ran after a failure on an ACL_STOP_ON_FAILURE stream");
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFreeHost(h));
}

/* ---- a forced destroy drops queued work, event records included -------------------------- */

static void force_destroy_completes_dropped_records(void)
{
    aclrtStream s, other;
    aclrtEvent e;
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT_OK(aclrtCreateStream(&other));
    EXPECT_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    EXPECT_OK(aclrtLaunchHostFunc(s, sleep_ms, (void *)(intptr_t)50));
    EXPECT_OK(aclrtRecordEvent(e, s));            /* still queued behind the host function */
    EXPECT_OK(aclrtStreamWaitEvent(other, e));
    EXPECT_OK(aclrtDestroyStreamForce(s));
    /* The record will never run: the event must not keep its waiters waiting for it. */
    EXPECT_OK(aclrtSynchronizeEventWithTimeout(e, 2000));
    EXPECT_OK(aclrtSynchronizeStreamWithTimeout(other, 2000));
    aclrtEventRecordedStatus status;
    EXPECT_OK(aclrtQueryEventStatus(e, &status));
    EXPECT(status == ACL_EVENT_RECORDED_STATUS_COMPLETE, "a dropped record left the event pending");
    EXPECT_OK(aclrtDestroyEvent(e));
    EXPECT_OK(aclrtDestroyStream(other));
}

int main(void)
{
    EXPECT_OK(aclInit(NULL));
    EXPECT_OK(aclrtSetDevice(0));
    cross_stream_order();
    callbacks();
    failure_mode();
    force_destroy_completes_dropped_records();
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return rt_check_summary("rt_streams");
}
