/* Capture misuse: every aclmdlRI error code provoked, with CANN's rules for modes, joins and
 * ends, and the state left behind checked (a failed End leaves the stream out of capture). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "rt_check.h"

static aclmdlRICaptureStatus status_of(aclrtStream s)
{
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
    aclmdlRI ri;
    EXPECT_OK(aclmdlRICaptureGetInfo(s, &st, &ri));
    return st;
}

typedef struct { aclmdlRICaptureMode mode; void *dev; aclError got; aclrtStream end_stream; } thread_job;

static void *unsafe_call_from_thread(void *p)
{
    thread_job *j = p;
    aclmdlRICaptureMode m = j->mode;
    aclmdlRICaptureThreadExchangeMode(&m);
    aclrtSetDevice(0);
    j->got = aclrtMemset(j->dev, 64, 0, 64);
    aclrtResetDevice(0);
    return NULL;
}

static void *end_from_thread(void *p)
{
    thread_job *j = p;
    aclmdlRI ri = NULL;
    aclrtSetDevice(0);
    j->got = aclmdlRICaptureEnd(j->end_stream, &ri);
    if (j->got == ACL_SUCCESS) aclmdlRIDestroy(ri);
    aclrtResetDevice(0);
    return NULL;
}

static aclError in_thread(void *(*fn)(void *), thread_job *j)
{
    pthread_t t;
    pthread_create(&t, NULL, fn, j);
    pthread_join(t, NULL);
    return j->got;
}

int main(void)
{
    EXPECT_OK(aclInit(NULL));
    EXPECT_OK(aclrtSetDevice(0));
    aclrtStream s, s2, s3, s4, def;
    aclrtEvent e, e2, e3, outside;
    void *dev, *host;
    aclmdlRI ri = NULL, during = NULL;
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT_OK(aclrtCreateStream(&s2));
    EXPECT_OK(aclrtCreateStream(&s3));
    EXPECT_OK(aclrtCreateStream(&s4));
    EXPECT_OK(aclrtCtxGetCurrentDefaultStream(&def));
    EXPECT_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    EXPECT_OK(aclrtCreateEventExWithFlag(&e2, ACL_EVENT_SYNC));
    EXPECT_OK(aclrtCreateEventExWithFlag(&e3, ACL_EVENT_SYNC));
    EXPECT_OK(aclrtCreateEvent(&outside));
    EXPECT_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMallocHost(&host, 4096));

    /* Begin. */
    EXPECT_CODE(aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT);
    EXPECT_CODE(aclmdlRICaptureBegin(def, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT);
    EXPECT_CODE(aclmdlRICaptureBegin(s, (aclmdlRICaptureMode)3), ACL_ERROR_INVALID_PARAM);
    EXPECT(status_of(s) == ACL_MODEL_RI_CAPTURE_STATUS_NONE, "status before Begin");
    EXPECT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT(status_of(s) == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, "status after Begin");
    EXPECT_CODE(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_ERROR_RT_STREAM_CAPTURED);

    /* Synchronisation and queries of the capturing stream: 107027 in every mode. */
    aclrtStreamStatus ss;
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CAPTURED);
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, 100), ACL_ERROR_RT_STREAM_CAPTURED);
    EXPECT_CODE(aclrtStreamQuery(s, &ss), ACL_ERROR_RT_STREAM_CAPTURED);
    EXPECT_CODE(aclrtSynchronizeDevice(), ACL_ERROR_RT_STREAM_CAPTURED);
    EXPECT_CODE(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_CAPTURED);

    /* Unsafe synchronous calls under GLOBAL: forbidden here and on other GLOBAL threads,
     * allowed after switching to RELAXED, and to THREAD_LOCAL threads that do not capture. */
    EXPECT_CODE(aclrtMemset(dev, 4096, 1, 4096), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    EXPECT_CODE(aclrtMemcpy(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    EXPECT_CODE(aclrtMemcpy2d(dev, 64, host, 64, 64, 2, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    thread_job j = {ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, dev, -1, NULL};
    EXPECT(in_thread(unsafe_call_from_thread, &j) == ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, "GLOBAL thread got %d", j.got);
    j.mode = ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
    EXPECT(in_thread(unsafe_call_from_thread, &j) == ACL_SUCCESS, "THREAD_LOCAL thread got %d", j.got);
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    EXPECT_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    EXPECT(mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, "previous mode %d", mode);
    EXPECT_OK(aclrtMemset(dev, 4096, 7, 4096));      /* runs now, not captured */
    EXPECT_OK(aclrtMemcpy(host, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(((unsigned char *)host)[4095] == 7, "RELAXED memset did not run immediately");
    EXPECT_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    mode = (aclmdlRICaptureMode)9;
    EXPECT_CODE(aclmdlRICaptureThreadExchangeMode(&mode), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclmdlRICaptureThreadExchangeMode(NULL), ACL_ERROR_INVALID_PARAM);
    /* Pageable memory cannot be captured in an async copy. */
    unsigned char pageable[64];
    EXPECT_CODE(aclrtMemcpyAsync(dev, 64, pageable, 64, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);

    /* Captured events cannot be synchronised or queried. */
    EXPECT_OK(aclrtMemsetAsync(dev, 4096, 3, 4096, s));
    EXPECT_OK(aclrtRecordEvent(e, s));
    aclrtEventRecordedStatus es;
    float ms;
    EXPECT_CODE(aclrtSynchronizeEvent(e), ACL_ERROR_RT_EVENT_CAPTURED);
    EXPECT_CODE(aclrtQueryEventStatus(e, &es), ACL_ERROR_RT_EVENT_CAPTURED);
    EXPECT_CODE(aclrtEventElapsedTime(&ms, e, e), ACL_ERROR_RT_EVENT_CAPTURED);

    /* A wait on an event recorded outside the capture: 107024. */
    EXPECT_OK(aclrtRecordEvent(outside, s4));
    EXPECT_CODE(aclrtStreamWaitEvent(s, outside), ACL_ERROR_RT_CAPTURE_DEPENDENCY);
    /* Events linking two captures: 107032. */
    EXPECT_OK(aclmdlRICaptureBegin(s3, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    EXPECT_OK(aclrtRecordEvent(e3, s3));
    EXPECT_CODE(aclrtStreamWaitEvent(s, e3), ACL_ERROR_STREAM_CAPTURE_CONFLICT);
    EXPECT_CODE(aclrtRecordEvent(e3, s), ACL_ERROR_STREAM_CAPTURE_CONFLICT);
    EXPECT_OK(aclmdlRICaptureEnd(s3, &ri));
    EXPECT_OK(aclmdlRIDestroy(ri));

    /* The model of an active capture cannot run or be destroyed: 107026. */
    aclmdlRICaptureStatus st;
    EXPECT_OK(aclmdlRICaptureGetInfo(s, &st, &during));
    EXPECT_CODE(aclmdlRIExecuteAsync(during, s4), ACL_ERROR_RT_MODEL_CAPTURED);
    EXPECT_CODE(aclmdlRIDestroy(during), ACL_ERROR_RT_MODEL_CAPTURED);

    /* s2 joins; End on it: 107036; End on a stream that does not capture: 107029. */
    EXPECT_OK(aclrtStreamWaitEvent(s2, e));
    EXPECT(status_of(s2) == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, "joined stream not capturing");
    EXPECT_CODE(aclmdlRICaptureEnd(s2, &ri), ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED);
    EXPECT_CODE(aclmdlRICaptureEnd(s4, &ri), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    EXPECT_CODE(aclmdlRICaptureEnd(s, NULL), ACL_ERROR_INVALID_PARAM);
    /* s2 works and never returns: 107025, and both streams are out of capture afterwards. */
    EXPECT_OK(aclrtMemsetAsync(dev, 4096, 4, 4096, s2));
    EXPECT_CODE(aclmdlRICaptureEnd(s, &ri), ACL_ERROR_RT_STREAM_UNJOINED);
    EXPECT(status_of(s) == ACL_MODEL_RI_CAPTURE_STATUS_NONE, "origin still capturing after a failed End");
    EXPECT(status_of(s2) == ACL_MODEL_RI_CAPTURE_STATUS_NONE, "joined stream still capturing after a failed End");
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtSynchronizeEvent(e)); /* no longer captured */

    /* Rejoined, then more work on the joined stream: 107025. */
    EXPECT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_OK(aclrtRecordEvent(e, s));
    EXPECT_OK(aclrtStreamWaitEvent(s2, e));
    EXPECT_OK(aclrtMemsetAsync(dev, 4096, 5, 4096, s2));
    EXPECT_OK(aclrtRecordEvent(e2, s2));
    EXPECT_OK(aclrtStreamWaitEvent(s, e2));
    EXPECT_OK(aclrtMemsetAsync(dev, 4096, 6, 4096, s2));
    EXPECT_CODE(aclmdlRICaptureEnd(s, &ri), ACL_ERROR_RT_STREAM_UNJOINED);

    /* End from another thread: 107038 outside RELAXED (and the capture is over), fine in RELAXED. */
    EXPECT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    j.end_stream = s;
    EXPECT(in_thread(end_from_thread, &j) == ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD, "End from another thread: %d", j.got);
    EXPECT(status_of(s) == ACL_MODEL_RI_CAPTURE_STATUS_NONE, "stream still capturing after 107038");
    EXPECT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    EXPECT_OK(aclrtMemsetAsync(dev, 4096, 8, 4096, s));
    EXPECT(in_thread(end_from_thread, &j) == ACL_SUCCESS, "RELAXED End from another thread: %d", j.got);

    /* Model handles. */
    EXPECT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_OK(aclrtMemsetAsync(dev, 4096, 9, 4096, s));
    EXPECT_OK(aclmdlRICaptureEnd(s, &ri));
    aclrtStream streams[1];
    uint32_t n = 0;
    EXPECT_CODE(aclmdlRIGetStreams(ri, streams, &n), ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY);
    EXPECT_OK(aclmdlRIGetStreams(ri, NULL, &n));
    EXPECT(n == 1, "model streams %u", n);
    EXPECT_CODE(aclmdlRIExecute(ri, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclmdlRIExecute(ri, 5000));
    EXPECT_OK(aclrtMemcpy(host, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(((unsigned char *)host)[0] == 9, "aclmdlRIExecute did not run the graph");
    EXPECT_OK(aclmdlRIDestroy(ri));
    EXPECT_CODE(aclmdlRIDestroy(ri), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclmdlRIExecuteAsync(ri, s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclmdlRIExecuteAsync(NULL, s), ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclrtSynchronizeDevice());
    EXPECT_OK(aclrtDestroyEvent(e));
    EXPECT_OK(aclrtDestroyEvent(e2));
    EXPECT_OK(aclrtDestroyEvent(e3));
    EXPECT_OK(aclrtDestroyEvent(outside));
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtDestroyStream(s2));
    EXPECT_OK(aclrtDestroyStream(s3));
    EXPECT_OK(aclrtDestroyStream(s4));
    EXPECT_OK(aclrtFree(dev));
    EXPECT_OK(aclrtFreeHost(host));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return rt_check_summary("cap_errors");
}
