/* aclnn executors on a device: single use, repeatable with rebound addresses
 * (aclSetInputTensorAddr / aclSetOutputTensorAddr), snapshots independent of the user's
 * aclTensor, wrong-operator and consumed executors, and the device range checks of the second
 * phase. Prints "aclnn_executor ok" and exits 0 when every check passes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "rt_check.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"

#define N 8

static aclTensor *vector(void *data)
{
    int64_t shape[1] = { N }, strides[1] = { 1 };
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

static void upload(void *dev, const float *host)
{
    EXPECT(aclrtMemcpy(dev, N * sizeof(float), host, N * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS,
           "upload: %s", aclGetRecentErrMsg());
}

/* out must equal a + alpha * b. */
static void expect_sum(void *dev_out, const float *a, const float *b, float alpha, int line)
{
    float got[N];
    EXPECT(aclrtMemcpy(got, sizeof got, dev_out, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "download");
    for (int i = 0; i < N; i++)
        if (fabsf(got[i] - (a[i] + alpha * b[i])) > 1e-6f) {
            fprintf(stderr, "FAIL line %d: out[%d] = %g, expected %g\n", line, i, got[i], a[i] + alpha * b[i]);
            g_check_failures++;
            return;
        }
}

int main(void)
{
    aclrtStream stream = NULL;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i * 0.75f - 2.0f;
        b[i] = 3.0f / (float)(i + 1);
        c[i] = (float)(i * i) - 5.0f;
    }
    void *da, *db, *dc, *dout, *dout2;
    aclrtMalloc(&da, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&db, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dc, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dout, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dout2, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    upload(da, a);
    upload(db, b);
    upload(dc, c);
    aclTensor *ta = vector(da), *tb = vector(db), *tout = vector(dout);
    float two = 2.0f;
    aclScalar *alpha = aclCreateScalar(&two, ACL_FLOAT);
    uint64_t ws = 123;
    aclOpExecutor *ex = NULL;

    /* Single use: the second launch of the same executor is refused. The tensors are destroyed
     * before launching: the executor holds its own snapshot. */
    EXPECT(aclnnAddGetWorkspaceSize(ta, tb, alpha, tout, &ws, &ex) == ACLNN_SUCCESS, "%s", aclGetRecentErrMsg());
    EXPECT(ws == 0, "workspace %llu", (unsigned long long)ws);
    aclTensor *tmp_a = vector(da), *tmp_b = vector(db), *tmp_out = vector(dout2);
    aclOpExecutor *ex_snapshot = NULL;
    EXPECT(aclnnAddGetWorkspaceSize(tmp_a, tmp_b, alpha, tmp_out, &ws, &ex_snapshot) == ACLNN_SUCCESS, "snapshot");
    aclDestroyTensor(tmp_a);
    aclDestroyTensor(tmp_b);
    aclDestroyTensor(tmp_out);
    EXPECT(aclnnAdd(NULL, 0, ex_snapshot, stream) == ACLNN_SUCCESS, "launch after destroying the tensors: %s",
           aclGetRecentErrMsg());
    EXPECT(aclnnMul(NULL, 0, ex, stream) == ACLNN_ERR_PARAM_INVALID, "an Add executor given to aclnnMul");
    EXPECT(aclnnAdd(NULL, 0, ex, stream) == ACLNN_SUCCESS, "first launch: %s", aclGetRecentErrMsg());
    EXPECT(aclnnAdd(NULL, 0, ex, stream) == ACLNN_ERR_PARAM_INVALID, "second launch of a single-use executor");
    const char *msg = aclGetRecentErrMsg();
    EXPECT(msg && strstr(msg, "not live"), "message: %s", msg ? msg : "(null)");
    EXPECT(aclDestroyAclOpExecutor(ex) == ACLNN_ERR_INNER, "destroying a consumed executor");
    EXPECT(aclnnAdd(NULL, 0, NULL, stream) == ACLNN_ERR_PARAM_NULLPTR, "NULL executor");
    EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "sync: %s", aclGetRecentErrMsg());
    expect_sum(dout, a, b, 2.0f, __LINE__);
    expect_sum(dout2, a, b, 2.0f, __LINE__);

    /* A consumed executor stays refused however many executors come after it, also while
     * newer ones are live (and may occupy its memory). */
    aclOpExecutor *stale = ex;
    for (int i = 0; i < 1000; i++) {
        aclOpExecutor *churn = NULL;
        EXPECT(aclnnAddGetWorkspaceSize(ta, tb, alpha, tout, &ws, &churn) == ACLNN_SUCCESS, "churn %d", i);
        EXPECT(aclnnAdd(NULL, 0, churn, stream) == ACLNN_SUCCESS, "churn launch %d", i);
    }
    EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "sync: %s", aclGetRecentErrMsg());
    enum { LIVE = 100 };
    aclOpExecutor *live[LIVE];
    for (int i = 0; i < LIVE; i++)
        EXPECT(aclnnAddGetWorkspaceSize(ta, tb, alpha, tout, &ws, &live[i]) == ACLNN_SUCCESS, "live %d", i);
    EXPECT(aclnnAdd(NULL, 0, stale, stream) == ACLNN_ERR_PARAM_INVALID, "a consumed executor, 1000 later");
    EXPECT(aclDestroyAclOpExecutor(stale) == ACLNN_ERR_INNER, "destroying it, 1000 later");
    EXPECT(aclSetAclOpExecutorRepeatable(stale) == ACLNN_ERR_INNER, "making it repeatable, 1000 later");
    for (int i = 0; i < LIVE; i++)
        EXPECT(aclDestroyAclOpExecutor(live[i]) == ACLNN_SUCCESS, "destroy live %d: %s", i, aclGetRecentErrMsg());

    /* Repeatable: launch, rebind input 1 to c and output 0 to dout2, launch again. */
    EXPECT(aclnnAddGetWorkspaceSize(ta, tb, alpha, tout, &ws, &ex) == ACLNN_SUCCESS, "%s", aclGetRecentErrMsg());
    EXPECT(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS, "repeatable: %s", aclGetRecentErrMsg());
    EXPECT(aclnnAdd(NULL, 0, ex, stream) == ACLNN_SUCCESS, "repeat 1");
    EXPECT(aclSetInputTensorAddr(ex, 1, tb, dc) == ACLNN_SUCCESS, "rebind input: %s", aclGetRecentErrMsg());
    EXPECT(aclSetOutputTensorAddr(ex, 0, tout, dout2) == ACLNN_SUCCESS, "rebind output: %s", aclGetRecentErrMsg());
    EXPECT(aclSetInputTensorAddr(ex, 2, tb, dc) == ACLNN_ERR_PARAM_INVALID, "input index out of range");
    EXPECT(aclSetOutputTensorAddr(ex, 1, tout, dc) == ACLNN_ERR_PARAM_INVALID, "output index out of range");
    EXPECT(aclnnAdd(NULL, 0, ex, stream) == ACLNN_SUCCESS, "repeat 2");
    EXPECT(aclnnAdd(NULL, 0, ex, stream) == ACLNN_SUCCESS, "repeat 3");
    EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "sync: %s", aclGetRecentErrMsg());
    expect_sum(dout, a, b, 2.0f, __LINE__);
    expect_sum(dout2, a, c, 2.0f, __LINE__);
    EXPECT(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS, "destroy repeatable: %s", aclGetRecentErrMsg());
    EXPECT(aclnnAdd(NULL, 0, ex, stream) == ACLNN_ERR_PARAM_INVALID, "launch after destroy");
    EXPECT(aclSetAclOpExecutorRepeatable(ex) == ACLNN_ERR_INNER, "repeatable after destroy");

    /* Repeatable executors may be destroyed while launches are still queued. */
    EXPECT(aclnnAddGetWorkspaceSize(ta, tb, alpha, tout, &ws, &ex) == ACLNN_SUCCESS, "%s", aclGetRecentErrMsg());
    aclSetAclOpExecutorRepeatable(ex);
    for (int i = 0; i < 4; i++) EXPECT(aclnnAdd(NULL, 0, ex, stream) == ACLNN_SUCCESS, "queued launch %d", i);
    EXPECT(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS, "destroy with launches queued");
    EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "sync: %s", aclGetRecentErrMsg());
    expect_sum(dout, a, b, 2.0f, __LINE__);

    /* Second-phase range checks: host memory, a view past the allocation, freed memory. */
    aclTensor *host_t = vector(a);
    EXPECT(aclnnAddGetWorkspaceSize(host_t, tb, alpha, tout, &ws, &ex) == ACLNN_SUCCESS, "host tensor phase 1");
    EXPECT(aclnnAdd(NULL, 0, ex, stream) != ACLNN_SUCCESS, "a host pointer is not device memory");
    int64_t big[1] = { 4 * N }, one[1] = { 1 };
    aclTensor *past = aclCreateTensor(big, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, big, 1, da);
    aclTensor *past_b = aclCreateTensor(big, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, big, 1, db);
    aclTensor *past_out = aclCreateTensor(big, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, big, 1, dout);
    EXPECT(aclnnAddGetWorkspaceSize(past, past_b, alpha, past_out, &ws, &ex) == ACLNN_SUCCESS, "overrun phase 1");
    EXPECT(aclnnAdd(NULL, 0, ex, stream) != ACLNN_SUCCESS, "a view past the end of its allocation");
    void *gone;
    aclrtMalloc(&gone, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    aclTensor *freed = vector(gone);
    EXPECT(aclnnAddGetWorkspaceSize(ta, tb, alpha, freed, &ws, &ex) == ACLNN_SUCCESS, "freed phase 1");
    aclrtFree(gone);
    EXPECT(aclnnAdd(NULL, 0, ex, stream) != ACLNN_SUCCESS, "freed device memory");
    EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "the stream still works: %s", aclGetRecentErrMsg());

    aclDestroyTensor(host_t);
    aclDestroyTensor(past);
    aclDestroyTensor(past_b);
    aclDestroyTensor(past_out);
    aclDestroyTensor(freed);
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(tout);
    aclDestroyScalar(alpha);
    aclrtFree(da);
    aclrtFree(db);
    aclrtFree(dc);
    aclrtFree(dout);
    aclrtFree(dout2);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (g_check_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_check_failures);
        return 1;
    }
    printf("aclnn_executor ok\n");
    return 0;
}
