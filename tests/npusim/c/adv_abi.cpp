/* Adversarial misuse of the C ABI: sizes that wrap past 2^64, destroying a
 * stream or event while another thread synchronises on it, a tensor destroyed twice, a consumed
 * executor used again after its memory could have been recycled. Every misuse must return an
 * error code with a message (never crash, alias or run the wrong work); under the ASan / TSan
 * builds the same program checks there is no use after free or data race. Prints
 * "adv_abi: N checks passed". */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "aclnn/opdev/op_errno.h"
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "rt_check.h"

#define ROUNDS 200

/* ---- sizes past 2^64 -------------------------------------------------------------------- */

static void huge_sizes(void)
{
    void *p = NULL, *q = NULL;
    EXPECT_CODE(aclrtMalloc(&p, SIZE_MAX - 63, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT_CODE(aclrtMalloc(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT_CODE(aclrtMallocAlign32(&p, SIZE_MAX - 31, ACL_MEM_MALLOC_HUGE_FIRST),
                ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT_CODE(aclrtMallocHost(&p, SIZE_MAX - 63), ACL_ERROR_RT_MEMORY_ALLOCATION);
    /* Two real allocations stay distinct. */
    EXPECT_OK(aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMalloc(&q, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT(p != q, "two allocations alias at %p", p);
    EXPECT_OK(aclrtFree(p));
    EXPECT_OK(aclrtFree(q));

    /* 2^31 x 2^31 float32 elements: 2^64 bytes. */
    int64_t shape[2] = {INT64_C(1) << 31, INT64_C(1) << 31}, strides[2] = {INT64_C(1) << 31, 1};
    aclTensor *t = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, (void *)0x1000);
    EXPECT(t == NULL, "a tensor of 2^64 bytes was created");
    EXPECT(aclGetRecentErrMsg() != NULL, "no message for a tensor of 2^64 bytes");
    /* A broadcast view (stride 0) of 2^62 x 2^2 elements of one stored element. */
    int64_t wide[2] = {INT64_C(1) << 62, 4}, zero[2] = {0, 0}, one[1] = {1};
    t = aclCreateTensor(wide, 2, ACL_FLOAT, zero, 0, ACL_FORMAT_ND, one, 1, (void *)0x1000);
    EXPECT(t == NULL, "a broadcast view of 2^64 elements was created");
}

/* ---- destroy while another thread synchronises ------------------------------------------ */

typedef struct {
    aclrtContext ctx;
    aclrtStream stream;
    aclrtEvent event;
} sync_args;

static void *sync_stream_thread(void *p)
{
    sync_args *a = (sync_args*)p;
    aclrtSetCurrentContext(a->ctx);
    aclError rc = aclrtSynchronizeStream(a->stream);
    /* Either it waited (0) or the stream was gone already (107017): never a crash. */
    return (void *)(intptr_t)(rc == ACL_SUCCESS || rc == ACL_ERROR_RT_INVALID_HANDLE ? 0 : rc);
}

static void *sync_event_thread(void *p)
{
    sync_args *a = (sync_args*)p;
    aclrtSetCurrentContext(a->ctx);
    aclError rc = aclrtSynchronizeEvent(a->event);
    return (void *)(intptr_t)(rc == ACL_SUCCESS || rc == ACL_ERROR_RT_INVALID_HANDLE ? 0 : rc);
}

static void destroy_while_synchronising(void *dev, size_t bytes)
{
    aclrtContext ctx;
    EXPECT_OK(aclrtGetCurrentContext(&ctx));
    int bad = 0;
    for (int i = 0; i < ROUNDS; i++) {
        sync_args a = {ctx, NULL, NULL};
        EXPECT_OK(aclrtCreateStream(&a.stream));
        EXPECT_OK(aclrtCreateEvent(&a.event));
        EXPECT_OK(aclrtMemsetAsync(dev, bytes, i & 0xff, bytes, a.stream)); /* some queued work */
        EXPECT_OK(aclrtRecordEvent(a.event, a.stream));
        /* A forced destroy discards the record: its event would never complete, so the event
         * is synchronised only in the rounds that destroy the stream after its work. */
        bool force = i & 2;
        pthread_t ts, te;
        pthread_create(&ts, NULL, sync_stream_thread, &a);
        if (!force) pthread_create(&te, NULL, sync_event_thread, &a);
        if (i & 1) EXPECT_OK(aclrtDestroyEvent(a.event));
        EXPECT_OK(force ? aclrtDestroyStreamForce(a.stream) : aclrtDestroyStream(a.stream));
        if (!(i & 1)) EXPECT_OK(aclrtDestroyEvent(a.event));
        void *rs, *re = NULL;
        pthread_join(ts, &rs);
        if (!force) pthread_join(te, &re);
        bad += rs != NULL || re != NULL;
        EXPECT_CODE(aclrtDestroyStream(a.stream), ACL_ERROR_RT_INVALID_HANDLE);
        EXPECT_CODE(aclrtDestroyEvent(a.event), ACL_ERROR_RT_INVALID_HANDLE);
    }
    EXPECT(bad == 0, "%d synchronisations failed with another code", bad);
}

/* ---- tensors and executors used after their end ------------------------------------------ */

static aclTensor *vector(void *data, int64_t n)
{
    int64_t shape[1] = {n}, strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

static void stale_objects(void *dev)
{
    aclTensor *t = vector(dev, 4);
    EXPECT(t != NULL, "aclCreateTensor failed");
    EXPECT_CODE(aclDestroyTensor(t), ACLNN_SUCCESS);
    EXPECT_CODE(aclDestroyTensor(t), ACLNN_ERR_PARAM_INVALID);

    /* A tensor still held by a pending executor, destroyed twice by the user. */
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    aclTensor *x = vector(dev, 4), *out = vector((char *)dev + 64, 4);
    uint64_t ws = 0;
    aclOpExecutor *first = NULL;
    EXPECT_CODE(aclnnAddGetWorkspaceSize(x, x, alpha, out, &ws, &first), ACLNN_SUCCESS);
    EXPECT_CODE(aclnnAdd(NULL, 0, first, NULL), ACLNN_SUCCESS); /* consumes `first` */
    /* The next executors (fewer than npusim's quarantine of 32 freed ones) must not get the
     * consumed executor's address, so the stale handle stays refused, not run as another's. */
    for (int i = 0; i < 24; i++) {
        aclOpExecutor *next = NULL;
        EXPECT_CODE(aclnnAddGetWorkspaceSize(x, x, alpha, out, &ws, &next), ACLNN_SUCCESS);
        EXPECT(next != first, "a consumed executor's address was handed out again after %d launches", i);
        EXPECT_CODE(aclnnAdd(NULL, 0, next, NULL), ACLNN_SUCCESS);
        EXPECT_OK(aclrtSynchronizeStream(NULL));
    }
    EXPECT_CODE(aclnnAdd(NULL, 0, first, NULL), ACLNN_ERR_PARAM_INVALID);
    EXPECT_CODE(aclDestroyTensor(x), ACLNN_SUCCESS);
    EXPECT_CODE(aclDestroyTensor(x), ACLNN_ERR_PARAM_INVALID);
    EXPECT_CODE(aclDestroyTensor(out), ACLNN_SUCCESS);
    aclDestroyScalar(alpha);
    EXPECT_OK(aclrtSynchronizeStream(NULL));
}

int main(void)
{
    EXPECT_OK(aclInit(NULL));
    EXPECT_OK(aclrtSetDevice(0));
    huge_sizes();
    size_t bytes = 1 << 16;
    void *dev = NULL;
    EXPECT_OK(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    destroy_while_synchronising(dev, bytes);
    stale_objects(dev);
    EXPECT_OK(aclrtFree(dev));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return rt_check_summary("adv_abi");
}
