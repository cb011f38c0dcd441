/* aclnnQuantMatmulV5, INT8 x INT8 -> INT32 (hicann/ops-nn matmul/quant_batch_matmul_v4/docs/
 * aclnnQuantMatmulV5.md), on each int8 path of npusim (NPUSIM_QMM_KERNEL=amx|vnni|portable; a path
 * the CPU lacks is refused with ACLNN_ERR_RUNTIME_ERROR and skipped here), exact against a
 * 64-bit reference: products large enough for the worker threads, ragged edges, a bias. Built
 * under ASan and TSan by tests/npusim/test_quant_matmul.py. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn_check.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_quant_matmul_v5.h"

/* A C-contiguous tensor of `nd` (1 or 2) dims on device memory `dev`. */
static aclTensor *tensor(int nd, int64_t d0, int64_t d1, aclDataType dtype, void *dev)
{
    int64_t shape[2] = {d0, d1}, strides[2] = {nd == 2 ? d1 : 1, 1};
    return aclCreateTensor(shape, (uint64_t)nd, dtype, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)nd, dev);
}

/* One product of (m, k) x (k, n) with a bias on the current path: 1 when the path ran, 0 when
 * this CPU cannot run it. */
static int check_product(int64_t m, int64_t k, int64_t n, unsigned seed)
{
    int8_t *a = (int8_t *)malloc((size_t)(m * k)), *b = (int8_t *)malloc((size_t)(k * n));
    int32_t *bias = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
    int32_t *c = (int32_t *)malloc(sizeof(int32_t) * (size_t)(m * n));
    srand(seed);
    for (int64_t i = 0; i < m * k; i++) a[i] = (int8_t)(rand() % 256 - 128);
    for (int64_t i = 0; i < k * n; i++) b[i] = (int8_t)(rand() % 256 - 128);
    for (int64_t j = 0; j < n; j++) bias[j] = rand() % 2001 - 1000;
    float one = 1.0f;
    void *da = dev_from(a, (size_t)(m * k)), *db = dev_from(b, (size_t)(k * n));
    void *dbias = dev_from(bias, 4 * (size_t)n);
    void *dscale = dev_from(&one, 4), *dc = dev_from(NULL, 4 * (size_t)(m * n));
    aclTensor *x1 = tensor(2, m, k, ACL_INT8, da), *x2 = tensor(2, k, n, ACL_INT8, db);
    aclTensor *tb = tensor(1, n, 1, ACL_INT32, dbias), *scale = tensor(1, 1, 1, ACL_FLOAT, dscale);
    aclTensor *out = tensor(2, m, n, ACL_INT32, dc);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    int ran = 1;
    int rc = aclnnQuantMatmulV5GetWorkspaceSize(x1, x2, NULL, scale, NULL, NULL, NULL, NULL, tb, false, false, 0, out,
                                                &ws, &ex);
    EXPECT(rc == 0, "phase 1: %d %s", rc, aclGetRecentErrMsg());
    if (rc == 0) {
        rc = aclnnQuantMatmulV5(NULL, ws, ex, stream);
        EXPECT(rc == 0, "phase 2: %d %s", rc, aclGetRecentErrMsg());
        rc = aclrtSynchronizeStream(stream);
        if (rc == ACLNN_ERR_RUNTIME_ERROR && strstr(aclGetRecentErrMsg(), "does not provide")) {
            ran = 0;   /* the forced path needs a CPU feature this machine lacks */
        } else {
            EXPECT(rc == 0, "sync: %d %s", rc, aclGetRecentErrMsg());
            to_host(c, dc, 4 * (size_t)(m * n));
            int64_t wrong = 0;
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    int64_t s = bias[j];
                    for (int64_t t = 0; t < k; t++) s += (int64_t)a[i * k + t] * b[t * n + j];
                    wrong += s != c[i * n + j];
                }
            EXPECT(wrong == 0, "%lld of %lld elements differ (m %lld k %lld n %lld)", (long long)wrong,
                   (long long)(m * n), (long long)m, (long long)k, (long long)n);
        }
    }
    aclDestroyTensor(x1); aclDestroyTensor(x2); aclDestroyTensor(tb); aclDestroyTensor(scale); aclDestroyTensor(out);
    aclrtFree(da); aclrtFree(db); aclrtFree(dbias); aclrtFree(dscale); aclrtFree(dc);
    free(a); free(b); free(bias); free(c);
    return ran;
}

int main(void)
{
    if (aclnn_test_setup()) return 1;
    static const char *paths[] = {"portable", "vnni", "amx"};
    for (int p = 0; p < 3; p++) {
        setenv("NPUSIM_QMM_KERNEL", paths[p], 1);
        int ran = check_product(150, 1100, 70, 1u + (unsigned)p) && check_product(33, 65, 97, 7u);
        printf("%s path: %s\n", paths[p], ran ? "checked" : "not on this CPU");
    }
    unsetenv("NPUSIM_QMM_KERNEL");
    return aclnn_test_finish("aclnn_quant_matmul");
}
