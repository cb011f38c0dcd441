#define _POSIX_C_SOURCE 200809L
/* Bad input to the runtime: each misuse returns CANN's code (or npusim's documented stricter
 * one) with a message, and loses nothing: the data and handles involved still work after. */
#include <stdlib.h>
#include <time.h>

#include "rt_check.h"

static void init_errors(void)
{
    int32_t dev;
    uint32_t count;
    EXPECT_CODE(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclFinalize(), ACL_ERROR_UNINITIALIZE);
    EXPECT_OK(aclInit(NULL));
    EXPECT_CODE(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT_CODE(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_OK(aclrtGetDeviceCount(&count));
    EXPECT(count == 8, "default device count %u", count);
    EXPECT_CODE(aclrtSetDevice(8), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtGetDevice(&dev));
    EXPECT(dev == 0, "current device %d", dev);
}

static void memory_errors(void)
{
    void *d = NULL, *h = NULL, *p = NULL;
    EXPECT_CODE(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMallocHost(&p, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtFreeHost(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtMalloc(&d, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMallocHost(&h, 1000));
    EXPECT(((uintptr_t)d & 63) == 0 && ((uintptr_t)h & 63) == 0, "alignment %p %p", d, h);
    char *pageable = malloc(1000);
    memset(pageable, 7, 1000);
    EXPECT_CODE(aclrtFree(h), ACL_ERROR_RT_PARAM_INVALID);        /* pinned memory to aclrtFree */
    EXPECT_CODE(aclrtFreeHost(d), ACL_ERROR_RT_PARAM_INVALID);    /* device memory to aclrtFreeHost */
    EXPECT_CODE(aclrtFree(pageable), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtFree((char *)d + 64), ACL_ERROR_RT_PARAM_INVALID); /* not the block start */

    /* Copies: NULL, count > destMax, count 0, kinds and pointers. */
    EXPECT_CODE(aclrtMemcpy(NULL, 10, h, 10, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy(d, 10, NULL, 10, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy(d, 10, h, 11, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtMemcpy(d, 10, h, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_CODE(aclrtMemcpy(d, 1000, h, 1000, (aclrtMemcpyKind)9), ACL_ERROR_INVALID_PARAM);
    /* A synchronous copy goes by address in CANN whatever H2H/H2D/D2H/D2D kind it names
     * (hicann/runtime src/runtime/driver/npu_driver_mem.cc, drvMemcpy): performed. */
    memset(h, 0x5A, 1000);
    EXPECT_OK(aclrtMemcpy(d, 1000, h, 1000, ACL_MEMCPY_DEVICE_TO_HOST));
    memset(h, 0, 1000);
    EXPECT_OK(aclrtMemcpy(h, 1000, d, 1000, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT(((unsigned char *)h)[0] == 0x5A && ((unsigned char *)h)[999] == 0x5A,
           "wrong-direction round trip gave 0x%02x", ((unsigned char *)h)[0]);
    EXPECT_OK(aclrtMemcpy(d, 1000, h, 1000, ACL_MEMCPY_HOST_TO_HOST));
    EXPECT_OK(aclrtMemcpy(pageable, 1000, h, 1000, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(pageable[0] == 0x5A && pageable[999] == 0x5A, "pinned -> pageable named D2H");
    /* Overrun of the allocation (1000 bytes requested). */
    EXPECT_CODE(aclrtMemcpy((char *)d + 500, 600, h, 600, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    /* ACL_MEMCPY_DEFAULT infers the direction. */
    EXPECT_OK(aclrtMemcpy(d, 1000, pageable, 1000, ACL_MEMCPY_DEFAULT));
    EXPECT_OK(aclrtMemcpy(h, 1000, d, 1000, ACL_MEMCPY_DEFAULT));
    EXPECT(memcmp(h, pageable, 1000) == 0, "ACL_MEMCPY_DEFAULT round trip lost bytes");

    /* Asynchronous: H2H refused, pageable host memory refused, dst == src no-op. */
    aclrtStream s;
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT_CODE(aclrtMemcpyAsync(h, 1000, pageable, 1000, ACL_MEMCPY_HOST_TO_HOST, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtMemcpyAsync(h, 1000, pageable, 1000, ACL_MEMCPY_DEFAULT, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtMemcpyAsync(d, 1000, pageable, 1000, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyAsync(pageable, 1000, d, 1000, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyAsync(d, 10, h, 11, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtMemcpyAsync(d, 1000, d, 1000, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    EXPECT_OK(aclrtMemcpyAsync(d, 1000, h, 0, ACL_MEMCPY_HOST_TO_DEVICE, s));
    /* Asynchronous: CANN's runtime corrects the kind between its own pointers
     * (src/runtime/api/impl/api_error.cc, MemcpyKindAutoCorrect); with pageable memory a kind
     * naming the known side wrongly is refused before the pageable memory itself. */
    EXPECT_OK(aclrtMemcpyAsync(d, 1000, h, 1000, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtMemcpyAsync(h, 1000, d, 1000, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_CODE(aclrtMemcpyAsync((char *)h + 500, 500, h, 500, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);   /* corrected to host-to-host */
    EXPECT_CODE(aclrtMemcpyAsync(pageable, 1000, d, 1000, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);

    /* Memset: count > maxCount, pageable target, low byte of value. */
    EXPECT_CODE(aclrtMemset(d, 10, 1, 11), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemsetAsync(d, 10, 1, 11, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemset(NULL, 10, 1, 10), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemset(pageable, 1000, 1, 1000), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtMemsetAsync(d, 1000, 0x1AB, 1000, s));
    EXPECT_OK(aclrtMemcpyAsync(h, 1000, d, 1000, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT(((unsigned char *)h)[0] == 0xAB && ((unsigned char *)h)[999] == 0xAB, "memset byte 0x%02x",
           ((unsigned char *)h)[0]);

    /* 2-D copies. */
    EXPECT_CODE(aclrtMemcpy2d(d, 10, h, 20, 16, 2, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2d(h, 20, pageable, 20, 16, 2, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
    for (int i = 0; i < 1000; i++) pageable[i] = (char)i;
    memcpy(h, pageable, 1000);
    EXPECT_OK(aclrtMemset(d, 1000, 0, 1000));
    EXPECT_OK(aclrtMemcpy2d(d, 100, h, 50, 30, 10, ACL_MEMCPY_HOST_TO_DEVICE)); /* 10 rows of 30 */
    unsigned char back[1000];
    EXPECT_OK(aclrtMemcpy(back, 1000, d, 1000, ACL_MEMCPY_DEVICE_TO_HOST));
    int bad = 0;
    for (int r = 0; r < 10; r++)
        for (int c = 0; c < 100; c++)
            bad += back[r * 100 + c] != (c < 30 ? (unsigned char)(r * 50 + c) : 0);
    EXPECT(bad == 0, "%d bytes wrong after aclrtMemcpy2d", bad);
    /* Asynchronous 2-D copy back: 10 rows of 30 from pitch 100 into pitch 40 (pinned). */
    memset(h, 0xEE, 1000);
    EXPECT_CODE(aclrtMemcpy2dAsync(back, 40, d, 100, 30, 10, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpy2dAsync(h, 40, d, 100, 30, 11, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtMemcpy2dAsync(h, 40, d, 100, 30, 10, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    bad = 0;
    for (int r = 0; r < 10; r++)
        for (int c = 0; c < 40; c++)
            bad += ((unsigned char *)h)[r * 40 + c] != (c < 30 ? (unsigned char)(r * 50 + c) : 0xEE);
    EXPECT(bad == 0, "%d bytes wrong after aclrtMemcpy2dAsync", bad);

    /* Use after free: synchronous and asynchronous copies, and a free racing a queued copy. */
    void *d2;
    EXPECT_OK(aclrtMalloc(&d2, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtFree(d2));
    EXPECT_CODE(aclrtFree(d2), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpy(d2, 100, h, 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyAsync(h, 100, d2, 100, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemsetAsync(d2, 100, 0, 100, s), ACL_ERROR_RT_PARAM_INVALID);
    void *h2;
    EXPECT_OK(aclrtMallocHost(&h2, 4096));
    EXPECT_OK(aclrtFreeHost(h2));
    EXPECT_CODE(aclrtFreeHost(h2), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyAsync(d, 100, h2, 100, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);

    /* The handles involved still work. */
    memset(h, 0x33, 1000);
    EXPECT_OK(aclrtMemcpyAsync(d, 1000, h, 1000, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_CODE(aclrtMemcpyAsync(back, 1000, d, 1000, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(back, 1000, d, 1000, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(back[0] == 0x33 && back[999] == 0x33, "data after the failed calls: 0x%02x", back[0]);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(d));
    EXPECT_OK(aclrtFreeHost(h));
    free(pageable);
}

static void sleep_ms(void *arg)
{
    struct timespec ts = {0, (long)(intptr_t)arg * 1000000L};
    nanosleep(&ts, NULL);
}

/* Memory freed while a queued copy still needs it: the copy fails when it runs, and the
 * failure is returned (once) by the stream's next synchronisation. */
static void free_before_run(void)
{
    aclrtStream s;
    void *d, *h;
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMallocHost(&h, 4096));
    EXPECT_OK(aclrtLaunchHostFunc(s, sleep_ms, (void *)(intptr_t)50));
    EXPECT_OK(aclrtMemcpyAsync(h, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtFree(d));
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtSynchronizeStream(s)); /* reported once */
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFreeHost(h));
}

static void stream_event_errors(void)
{
    aclrtStream s;
    aclrtEvent e, ex, flagged;
    EXPECT_CODE(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCreateStreamWithConfig(&s, 8, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtCreateStreamWithConfig(&s, 3, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC));
    uint32_t prio = 0, flags = 0;
    EXPECT_OK(aclrtStreamGetPriority(s, &prio));
    EXPECT_OK(aclrtStreamGetFlags(s, &flags));
    EXPECT(prio == 3 && flags == (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC), "priority %u flags %u", prio, flags);
    EXPECT_CODE(aclrtStreamGetFlags(s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, -2), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtLaunchHostFunc(s, sleep_ms, (void *)(intptr_t)300));
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    aclrtStreamStatus st;
    EXPECT_OK(aclrtStreamQuery(s, &st));
    EXPECT(st == ACL_STREAM_STATUS_NOT_READY, "stream status %d while a task sleeps", st);
    EXPECT_OK(aclrtCreateEvent(&e));
    EXPECT_OK(aclrtRecordEvent(e, s));
    EXPECT_CODE(aclrtSynchronizeEventWithTimeout(e, 20), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    EXPECT_CODE(aclrtSynchronizeEventWithTimeout(e, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtSynchronizeStreamWithTimeout(s, 5000));
    EXPECT_OK(aclrtStreamQuery(s, &st));
    EXPECT(st == ACL_STREAM_STATUS_COMPLETE, "stream status %d after sync", st);
    EXPECT_CODE(aclrtLaunchHostFunc(s, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_CODE(aclrtDestroyStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtRecordEvent(e, s), ACL_ERROR_RT_INVALID_HANDLE);

    /* Event flag rules. */
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_CAPTURE_STREAM_PROGRESS));
    EXPECT_OK(aclrtCreateEventWithFlag(&flagged, ACL_EVENT_SYNC));
    EXPECT_CODE(aclrtCreateEventWithFlag(&flagged, 0x80000000u), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCreateEventExWithFlag(&flagged, ACL_EVENT_IPC | ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtStreamWaitEvent(s, ex), ACL_ERROR_RT_PARAM_INVALID);   /* Ex without SYNC */
    EXPECT_CODE(aclrtResetEvent(e, s), ACL_ERROR_RT_PARAM_INVALID);         /* aclrtCreateEvent event */
    EXPECT_CODE(aclrtResetEvent(ex, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtResetEvent(flagged, s));
    aclrtEventStatus es;
    EXPECT_CODE(aclrtQueryEvent(ex, &es), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtStreamWaitEvent(s, flagged)); /* never recorded: a no-op */
    float ms;
    EXPECT_CODE(aclrtEventElapsedTime(&ms, e, flagged), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    EXPECT_CODE(aclrtEventElapsedTime(NULL, e, e), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtDestroyEvent(e));
    EXPECT_CODE(aclrtDestroyEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtDestroyEvent(NULL), ACL_ERROR_INVALID_PARAM);
    /* A record checks both handles, in one look-up when the stream is explicit. */
    EXPECT_CODE(aclrtRecordEvent(e, s), ACL_ERROR_RT_INVALID_HANDLE);   /* a destroyed event */
    EXPECT_CODE(aclrtRecordEvent(NULL, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtRecordEvent((aclrtEvent)s, s), ACL_ERROR_RT_INVALID_HANDLE);  /* a stream */
    EXPECT_CODE(aclrtRecordEvent(ex, (aclrtStream)ex), ACL_ERROR_RT_INVALID_HANDLE);  /* an event */
    EXPECT_OK(aclrtRecordEvent(ex, NULL));   /* the default stream */
    EXPECT_OK(aclrtRecordEvent(ex, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtDestroyEvent(ex));
    EXPECT_OK(aclrtDestroyEvent(flagged));
    EXPECT_OK(aclrtDestroyStream(s));

    /* Callbacks need a report thread. */
    EXPECT_CODE(aclrtLaunchCallback(sleep_ms, NULL, ACL_CALLBACK_BLOCK, NULL), ACL_ERROR_STREAM_NOT_SUBSCRIBE);
    EXPECT_CODE(aclrtProcessReport(10), ACL_ERROR_THREAD_NOT_SUBSCRIBE);
    EXPECT_CODE(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
}

static void peer_errors(void)
{
    int32_t can = -1;
    EXPECT_OK(aclrtDeviceCanAccessPeer(&can, 0, 3));
    EXPECT(can == 1, "devices 0 and 3 share a switch of 4: %d", can);
    EXPECT_OK(aclrtDeviceCanAccessPeer(&can, 0, 4));
    EXPECT(can == 0, "devices 0 and 4 are on different switches: %d", can);
    EXPECT_CODE(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceCanAccessPeer(&can, 0, 8), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtDeviceEnablePeerAccess(4, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_RT_PARAM_INVALID);

    /* A D2D copy between devices needs access enabled from the device running the copy. */
    void *d0, *d1;
    EXPECT_OK(aclrtSetDevice(1));
    EXPECT_OK(aclrtMalloc(&d1, 256, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    EXPECT_OK(aclrtMemset(d1, 256, 9, 256));
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtMalloc(&d0, 256, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    EXPECT_CODE(aclrtMemcpy(d0, 256, d1, 256, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemset(d1, 256, 0, 256), ACL_ERROR_RT_PARAM_INVALID); /* other device's memory */
    EXPECT_OK(aclrtDeviceEnablePeerAccess(1, 0));
    EXPECT_OK(aclrtMemcpy(d0, 256, d1, 256, ACL_MEMCPY_DEVICE_TO_DEVICE));
    unsigned char back[256];
    EXPECT_OK(aclrtMemcpy(back, 256, d0, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(back[0] == 9 && back[255] == 9, "peer copy delivered 0x%02x", back[0]);
    EXPECT_CODE(aclrtMemcpy(d0, 256, d1, 256, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtMemcpy(d0, 256, d1, 256, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
    EXPECT_OK(aclrtDeviceDisablePeerAccess(1));
    EXPECT_CODE(aclrtMemcpy(d0, 256, d1, 256, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    aclrtPtrAttributes attr;
    EXPECT_OK(aclrtPointerGetAttributes(d1, &attr));
    EXPECT(attr.location.type == ACL_MEM_LOCATION_TYPE_DEVICE && attr.location.id == 1,
           "attributes of device 1 memory: type %d id %u", attr.location.type, attr.location.id);
    EXPECT_OK(aclrtPointerGetAttributes(back, &attr));
    EXPECT(attr.location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED, "stack memory type %d", attr.location.type);
    EXPECT_OK(aclrtFree(d1)); /* any device's memory can be freed from here */
    EXPECT_OK(aclrtFree(d0));
    EXPECT_OK(aclrtResetDevice(1));
}

static void context_errors(void)
{
    aclrtContext ctx, cur;
    EXPECT_CODE(aclrtCreateContext(&ctx, 9), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_OK(aclrtCreateContext(&ctx, 2));
    int32_t dev;
    EXPECT_OK(aclrtGetDevice(&dev));
    EXPECT(dev == 2, "device of the new context %d", dev);
    EXPECT_OK(aclrtGetCurrentContext(&cur));
    EXPECT(cur == ctx, "current context");
    EXPECT_OK(aclrtDestroyContext(ctx));
    EXPECT_CODE(aclrtDestroyContext(ctx), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtSetCurrentContext(ctx), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_OK(aclrtSetDevice(0));
}

int main(void)
{
    init_errors();
    memory_errors();
    free_before_run();
    stream_event_errors();
    peer_errors();
    context_errors();
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    EXPECT_CODE(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    return rt_check_summary("rt_errors");
}
