/* The aclnn meta API without a device: aclTensor views, scalars, arrays, lists, their error
 * codes and messages. Prints "aclnn_meta ok" and exits 0 when every check passes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "rt_check.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnn/aclnn_base.h"

/* The recent error message must mention `needle`. */
static void expect_message(const char *needle, int line)
{
    const char *msg = aclGetRecentErrMsg();
    if (!msg || !strstr(msg, needle)) {
        fprintf(stderr, "FAIL line %d: message \"%s\" lacks \"%s\"\n", line, msg ? msg : "(null)", needle);
        g_check_failures++;
    }
}

static void test_tensor_view(void)
{
    /* A 2x3 view with strides (1, 2) at offset 4 of a 12-element storage. */
    int64_t shape[2] = { 2, 3 }, strides[2] = { 1, 2 }, storage[1] = { 12 };
    char fake[64];
    aclTensor *t = aclCreateTensor(shape, 2, ACL_FLOAT16, strides, 4, ACL_FORMAT_ND, storage, 1, fake);
    EXPECT(t != NULL, "aclCreateTensor failed: %s", aclGetRecentErrMsg());
    if (!t) return;
    int64_t *dims = NULL;
    uint64_t n = 0;
    EXPECT(aclGetViewShape(t, &dims, &n) == ACLNN_SUCCESS, "aclGetViewShape");
    EXPECT(n == 2 && dims[0] == 2 && dims[1] == 3, "view shape %llu", (unsigned long long)n);
    free(dims);
    EXPECT(aclGetViewStrides(t, &dims, &n) == ACLNN_SUCCESS, "aclGetViewStrides");
    EXPECT(n == 2 && dims[0] == 1 && dims[1] == 2, "strides");
    free(dims);
    EXPECT(aclGetStorageShape(t, &dims, &n) == ACLNN_SUCCESS, "aclGetStorageShape");
    EXPECT(n == 1 && dims[0] == 12, "storage shape");
    free(dims);
    int64_t offset = -1;
    EXPECT(aclGetViewOffset(t, &offset) == ACLNN_SUCCESS && offset == 4, "offset %lld", (long long)offset);
    aclDataType dt = ACL_DT_UNDEFINED;
    EXPECT(aclGetDataType(t, &dt) == ACLNN_SUCCESS && dt == ACL_FLOAT16, "dtype %d", (int)dt);
    aclFormat fmt = ACL_FORMAT_UNDEFINED;
    EXPECT(aclGetFormat(t, &fmt) == ACLNN_SUCCESS && fmt == ACL_FORMAT_ND, "format %d", (int)fmt);
    void *addr = NULL;
    EXPECT(aclGetRawTensorAddr(t, &addr) == ACLNN_SUCCESS && addr == fake, "raw address");
    EXPECT(aclSetRawTensorAddr(t, fake + 32) == ACLNN_SUCCESS, "aclSetRawTensorAddr");
    EXPECT(aclGetRawTensorAddr(t, &addr) == ACLNN_SUCCESS && addr == fake + 32, "raw address after set");
    EXPECT(aclGetViewShape(t, NULL, &n) == ACLNN_ERR_PARAM_NULLPTR, "NULL output pointer");
    EXPECT(aclGetViewShape(NULL, &dims, &n) == ACLNN_ERR_PARAM_NULLPTR, "NULL tensor");
    EXPECT(aclDestroyTensor(t) == ACLNN_SUCCESS, "destroy");
    EXPECT(aclDestroyTensor(NULL) == ACLNN_SUCCESS, "destroying NULL is allowed");

    /* 0-d tensor: viewDimsNum 0. */
    float one = 1.0f;
    aclTensor *s = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, &one);
    EXPECT(s != NULL, "0-d tensor: %s", aclGetRecentErrMsg());
    if (s) {
        EXPECT(aclGetViewShape(s, &dims, &n) == ACLNN_SUCCESS && n == 0, "0-d view shape");
        free(dims);
        aclDestroyTensor(s);
    }
}

static void test_tensor_errors(void)
{
    int64_t shape9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 }, strides9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    EXPECT(aclCreateTensor(shape9, 9, ACL_FLOAT, strides9, 0, ACL_FORMAT_ND, shape9, 9, NULL) == NULL, "9 dims");
    expect_message("at most 8", __LINE__);
    int64_t shape[2] = { 2, 3 }, neg[2] = { -1, 1 }, storage[1] = { 6 }, small[1] = { 5 }, strides[2] = { 3, 1 };
    EXPECT(aclCreateTensor(shape, 2, ACL_FLOAT, neg, 0, ACL_FORMAT_ND, storage, 1, NULL) == NULL, "negative stride");
    expect_message("negative", __LINE__);
    EXPECT(aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, small, 1, NULL) == NULL,
           "view beyond storage");
    expect_message("does not fit", __LINE__);
    EXPECT(aclCreateTensor(shape, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, storage, 1, NULL) == NULL,
           "offset pushes the view beyond storage");
    EXPECT(aclCreateTensor(NULL, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, NULL) == NULL, "NULL dims");
    EXPECT(aclCreateTensor(shape, 2, ACL_STRING, strides, 0, ACL_FORMAT_ND, storage, 1, NULL) == NULL, "string");
    expect_message("STRING", __LINE__);
    /* Empty tensors need no storage. */
    int64_t empty[2] = { 0, 3 };
    aclTensor *e = aclCreateTensor(empty, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, empty, 1, NULL);
    EXPECT(e != NULL, "empty tensor: %s", aclGetRecentErrMsg());
    aclDestroyTensor(e);
}

static void test_scalars_and_arrays(void)
{
    double d = 2.5;
    aclScalar *s = aclCreateScalar(&d, ACL_DOUBLE);
    EXPECT(s != NULL, "aclCreateScalar");
    EXPECT(aclCreateScalar(NULL, ACL_FLOAT) == NULL, "NULL value");
    EXPECT(aclDestroyScalar(s) == ACLNN_SUCCESS, "destroy scalar");

    int64_t values[3] = { 4, -1, 7 };
    aclIntArray *ia = aclCreateIntArray(values, 3);
    uint64_t size = 0;
    EXPECT(ia && aclGetIntArraySize(ia, &size) == ACLNN_SUCCESS && size == 3, "int array size");
    EXPECT(aclDestroyIntArray(ia) == ACLNN_SUCCESS, "destroy int array");
    aclIntArray *empty = aclCreateIntArray(NULL, 0);
    EXPECT(empty && aclGetIntArraySize(empty, &size) == ACLNN_SUCCESS && size == 0, "empty int array");
    aclDestroyIntArray(empty);
    EXPECT(aclCreateIntArray(NULL, 2) == NULL, "NULL values with size 2");

    bool flags[2] = { true, false };
    aclBoolArray *ba = aclCreateBoolArray(flags, 2);
    EXPECT(ba && aclGetBoolArraySize(ba, &size) == ACLNN_SUCCESS && size == 2, "bool array");
    aclDestroyBoolArray(ba);
    float fs[4] = { 1, 2, 3, 4 };
    aclFloatArray *fa = aclCreateFloatArray(fs, 4);
    EXPECT(fa && aclGetFloatArraySize(fa, &size) == ACLNN_SUCCESS && size == 4, "float array");
    aclDestroyFloatArray(fa);
}

static void test_lists(void)
{
    int64_t shape[1] = { 4 }, strides[1] = { 1 };
    aclTensor *ts[3];
    for (int i = 0; i < 3; i++) ts[i] = aclCreateTensor(shape, 1, ACL_INT64, strides, 0, ACL_FORMAT_ND, shape, 1, NULL);
    aclTensorList *list = aclCreateTensorList((const aclTensor *const *)ts, 3);
    uint64_t size = 0;
    EXPECT(list && aclGetTensorListSize(list, &size) == ACLNN_SUCCESS && size == 3, "tensor list size");
    /* Destroying the list destroys its tensors (running under ASan proves no leak / double free). */
    EXPECT(aclDestroyTensorList(list) == ACLNN_SUCCESS, "destroy tensor list");

    double v = 1.0;
    aclScalar *ss[2] = { aclCreateScalar(&v, ACL_DOUBLE), aclCreateScalar(&v, ACL_DOUBLE) };
    aclScalarList *sl = aclCreateScalarList((const aclScalar *const *)ss, 2);
    EXPECT(sl && aclGetScalarListSize(sl, &size) == ACLNN_SUCCESS && size == 2, "scalar list size");
    EXPECT(aclDestroyScalarList(sl) == ACLNN_SUCCESS, "destroy scalar list");
}

static void test_executor_handles(void)
{
    /* Pointers that are not live executors give errors, never crashes. */
    aclOpExecutor *bogus = (aclOpExecutor *)&g_check_failures;
    EXPECT(aclDestroyAclOpExecutor(bogus) == ACLNN_ERR_INNER, "foreign executor");
    expect_message("not live", __LINE__);
    EXPECT(aclSetAclOpExecutorRepeatable(NULL) == ACLNN_ERR_INNER_NULLPTR, "NULL executor -> 561103");
    EXPECT(aclDestroyAclOpExecutor(NULL) == ACLNN_ERR_INNER_NULLPTR, "NULL executor -> 561103");
    EXPECT(aclSetAclOpExecutorRepeatable(bogus) == ACLNN_ERR_INNER, "foreign executor repeatable");
    int64_t shape[1] = { 1 }, strides[1] = { 1 };
    aclTensor *t = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, NULL);
    EXPECT(aclSetInputTensorAddr(NULL, 0, t, NULL) == ACLNN_ERR_INNER_NULLPTR, "NULL executor -> 561103");
    EXPECT(aclSetInputTensorAddr(bogus, 0, NULL, NULL) == ACLNN_ERR_INNER_NULLPTR, "NULL tensor -> 561103");
    EXPECT(aclSetOutputTensorAddr(bogus, 0, t, NULL) == ACLNN_ERR_PARAM_INVALID, "foreign executor");
    aclDestroyTensor(t);
    EXPECT(aclnnInit(NULL) == ACLNN_SUCCESS, "aclnnInit(NULL)");
    EXPECT(aclnnInit("/nonexistent/npusim/aclnn.json") == ACLNN_ERR_PARAM_INVALID, "unreadable config");
    EXPECT(aclnnFinalize() == ACLNN_SUCCESS, "aclnnFinalize");
}

int main(void)
{
    test_tensor_view();
    test_tensor_errors();
    test_scalars_and_arrays();
    test_lists();
    test_executor_handles();
    if (g_check_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_check_failures);
        return 1;
    }
    printf("aclnn_meta ok\n");
    return 0;
}
