/* Vendor document 004 (synchronisation): the event, in-stream, between-streams and device
 * samples compiled as given (line breaks restored; the elided "......" lines and the undeclared
 * dstPtr/dstSize/srcPtr/srcSize of the in-stream sample are supplied by the harness). Return
 * codes are checked by rt_seed_harness.h; the in-stream copy's bytes are verified at the sync. */
#include "rt_seed_harness.h"

static void event_sync(void)
{
#include "acl/acl.h"
    // ......
    //Create an event.
    aclrtEvent event;
    aclrtCreateEventExWithFlag(&event, ACL_EVENT_CAPTURE_STREAM_PROGRESS);
    //Explicitly create a stream.
    aclrtStream stream;
    aclrtCreateStream(&stream);
    //Append an event to a stream.
    aclrtRecordEvent(event, stream);
    //Block the app execution and wait until the event is complete, that is, the completion of the stream.
    //The stream completion event wakes up the control flow, starting the app execution.
    aclrtSynchronizeEvent(event);
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    check_ok(aclrtQueryEventStatus(event, &status), "aclrtQueryEventStatus", __LINE__);
    if (status != ACL_EVENT_RECORDED_STATUS_COMPLETE) FAIL("event not complete after aclrtSynchronizeEvent");
    //Explicitly destroy allocations.
    aclrtDestroyStream(stream);
    aclrtDestroyEvent(event);
    // ......
}

static void in_stream_sync(void *dstPtr, size_t dstSize, void *srcPtr, size_t srcSize)
{
#include "acl/acl.h"
    // ......
    //Explicitly create a stream.
    aclrtStream stream;
    aclrtCreateStream(&stream);
    //Pass the stream argument to the task triggering call.
    aclrtMemcpyAsync(dstPtr, dstSize, srcPtr, srcSize, ACL_MEMCPY_HOST_TO_DEVICE, stream);
    //Call aclrtSynchronizeStream to wait for the stream tasks to complete.
    aclrtSynchronizeStream(stream);
    //Explicitly destroy the stream after using the stream.
    aclrtDestroyStream(stream);
    // ......
}

static void between_streams(void)
{
#include "acl/acl.h"
    // ......
    //Create an event.
    aclrtEvent event;aclrtCreateEventExWithFlag(&event, ACL_EVENT_SYNC);
    //Create stream1.
    aclrtStream s1;
    aclrtCreateStream(&s1);
    //Create stream2.
    aclrtStream s2;
    aclrtCreateStream(&s2);
    //Append an event to s1.
    aclrtRecordEvent(event, s1);
    //Block s2 until the event is complete, that is, the completion of s1.
    //Wake up s2 for execution after s1 is complete.
    aclrtStreamWaitEvent(s2, event);
    aclrtSynchronizeStream(s1);
    aclrtSynchronizeStream(s2);
    //Explicitly destroy allocations.
    aclrtDestroyStream(s2);
    aclrtDestroyStream(s1);
    aclrtDestroyEvent(event);
    // ......
}

static void device_sync(void)
{
#include "acl/acl.h"
    // ......
    //Specify a device.
    aclrtSetDevice(0);
    //Create a stream.
    aclrtStream stream;
    aclrtCreateStream(&stream);
    //Block app execution until the compute device has completed all preceding requested tasks.
    aclrtSynchronizeDevice();
    //Destroy allocations.
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    event_sync();
    size_t size = 256 * 1024;
    void *host = NULL, *dev = NULL;
    aclrtMallocHost(&host, size);
    aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST);
    ReadFile(fileName, host, size);
    in_stream_sync(dev, size, host, size);
    if (g_copies_verified != 1) FAIL("the in-stream copy was not verified");
    aclrtFree(dev);
    aclrtFreeHost(host);
    between_streams();
    device_sync();
    aclrtResetDevice(0);
    aclFinalize();
    if (g_failures) { fprintf(stderr, "%d check(s) failed\n", g_failures); return 1; }
    printf("seed004 synchronization: ok\n");
    return 0;
}
