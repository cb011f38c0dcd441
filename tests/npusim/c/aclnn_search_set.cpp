/* The searching, set and gathering aclnn operators against hand-computed values, through CANN's
 * C ABI: aclnnNonzero and aclnnUnique2 (data-dependent shapes read back with aclGetViewShape, a
 * repeatable executor launched twice), aclnnSearchSorted (sorter, N-D sequence, a bad sorter
 * reported by the stream), aclnnGather (negative and out-of-range indices), aclnnIsInTensorScalar
 * (NaN, invert), and the dtype checks.
 * Prints "aclnn_search_set ok" and exits 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn_check.h"
#include "aclnnop/aclnn_gather.h"
#include "aclnnop/aclnn_isin_tensor_scalar.h"
#include "aclnnop/aclnn_nonzero.h"
#include "aclnnop/aclnn_searchsorted.h"
#include "aclnnop/aclnn_unique2.h"

/* The device buffers and tensors of one test, released together. */
static void *buffers[16];
static aclTensor *tensors[16];
static int n_buffers, n_tensors;

static void *tracked_dev_from(const void *host, size_t bytes)
{
    void *d = dev_from(host, bytes);
    buffers[n_buffers++] = d;
    return d;
}

/* A C-contiguous tensor over a whole buffer of `storage` elements. */
static aclTensor *tensor(void *dev, aclDataType dt, int ndim, const int64_t *shape, int64_t storage)
{
    int64_t strides[8], step = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = step;
        step *= shape[d];
    }
    aclTensor *t = aclCreateTensor(shape, (uint64_t)ndim, dt, strides, 0, ACL_FORMAT_ND, &storage, 1, dev);
    EXPECT(t != NULL, "aclCreateTensor: %s", aclGetRecentErrMsg());
    tensors[n_tensors++] = t;
    return t;
}

static void release_all(void)
{
    for (int i = 0; i < n_tensors; i++) aclDestroyTensor(tensors[i]);
    for (int i = 0; i < n_buffers; i++) aclrtFree(buffers[i]);
    n_tensors = n_buffers = 0;
}

static int64_t view_dim0(const aclTensor *t)
{
    int64_t *shape = NULL;
    uint64_t nd = 0;
    EXPECT(aclGetViewShape(t, &shape, &nd) == 0 && nd >= 1, "aclGetViewShape: %s", aclGetRecentErrMsg());
    int64_t n = shape ? shape[0] : -1;
    free(shape);
    return n;
}

static void test_nonzero(void)
{
    float x[6] = { 0.0f, 1.5f, -0.0f, NAN, 0.0f, -2.0f }; /* 2 x 3 */
    int64_t out[12] = { 0 };
    int64_t s23[2] = { 2, 3 }, s62[2] = { 6, 2 }, s31[2] = { 3, 1 };
    aclTensor *tx = tensor(tracked_dev_from(x, sizeof x), ACL_FLOAT, 2, s23, 6);
    void *dout = tracked_dev_from(out, sizeof out);
    aclTensor *to = tensor(dout, ACL_INT64, 2, s62, 12);
    RUN(aclnnNonzero, tx, to);
    EXPECT(view_dim0(to) == 3, "nonzero count");
    to_host(out, dout, sizeof out);
    int64_t want[6] = { 0, 1, 1, 0, 1, 2 }; /* (0,1) 1.5, (1,0) NaN, (1,2) -2 */
    EXPECT(memcmp(out, want, sizeof want) == 0, "nonzero rows %lld %lld / %lld %lld / %lld %lld", (long long)out[0],
           (long long)out[1], (long long)out[2], (long long)out[3], (long long)out[4], (long long)out[5]);
    uint64_t ws;
    aclOpExecutor *ex;
    /* out must be [numel, ndim] INT64; complex self is not a documented dtype */
    EXPECT(aclnnNonzeroGetWorkspaceSize(tx, tensor(dout, ACL_INT64, 2, s31, 12), &ws, &ex) == 161002, "short out");
    EXPECT(aclnnNonzeroGetWorkspaceSize(tensor(dout, ACL_COMPLEX64, 2, s23, 6), to, &ws, &ex) == 161002, "complex");
    release_all();
}

static void test_unique2(void)
{
    double x[8] = { 3.0, NAN, -0.0, 1.0, 0.0, NAN, 3.0, 3.0 };
    double values[8];
    int64_t inverse[8], counts[8];
    int64_t n8[1] = { 8 };
    aclTensor *tx = tensor(tracked_dev_from(x, sizeof x), ACL_DOUBLE, 1, n8, 8);
    void *dv = tracked_dev_from(NULL, sizeof values), *di = tracked_dev_from(NULL, sizeof inverse), *dc = tracked_dev_from(NULL, sizeof counts);
    aclTensor *tv = tensor(dv, ACL_DOUBLE, 1, n8, 8), *ti = tensor(di, ACL_INT64, 1, n8, 8);
    aclTensor *tc = tensor(dc, ACL_INT64, 1, n8, 8);
    /* A repeatable executor launched twice sets both data-dependent shapes each time. */
    uint64_t ws;
    aclOpExecutor *ex;
    EXPECT(aclnnUnique2GetWorkspaceSize(tx, true, true, true, tv, ti, tc, &ws, &ex) == 0, "%s", aclGetRecentErrMsg());
    EXPECT(aclSetAclOpExecutorRepeatable(ex) == 0, "%s", aclGetRecentErrMsg());
    for (int run = 0; run < 2; run++) {
        EXPECT(aclnnUnique2(NULL, ws, ex, stream) == 0, "%s", aclGetRecentErrMsg());
        EXPECT(aclrtSynchronizeStream(stream) == 0, "%s", aclGetRecentErrMsg());
        EXPECT(view_dim0(tv) == 5 && view_dim0(tc) == 5, "unique count (run %d)", run);
    }
    aclDestroyAclOpExecutor(ex);
    to_host(values, dv, sizeof values);
    to_host(inverse, di, sizeof inverse);
    to_host(counts, dc, sizeof counts);
    /* -0.0 and 0.0 are one value (the first occurrence's, -0.0); each NaN stands alone, last */
    EXPECT(values[0] == 0.0 && signbit(values[0]) && values[1] == 1.0 && values[2] == 3.0 && isnan(values[3]) &&
               isnan(values[4]), "values %g %g %g %g %g", values[0], values[1], values[2], values[3], values[4]);
    int64_t want_inverse[8] = { 2, 3, 0, 1, 0, 4, 2, 2 }, want_counts[5] = { 2, 1, 3, 1, 1 };
    EXPECT(memcmp(inverse, want_inverse, sizeof want_inverse) == 0, "inverse");
    EXPECT(memcmp(counts, want_counts, sizeof want_counts) == 0, "counts");
    /* integers: the largest value has the all-ones sort key and must still group */
    int64_t big[4] = { INT64_MAX, -1, INT64_MAX, INT64_MIN };
    int64_t n4[1] = { 4 };
    aclTensor *tb = tensor(tracked_dev_from(big, sizeof big), ACL_INT64, 1, n4, 4);
    void *dbv = tracked_dev_from(NULL, sizeof big);
    aclTensor *tbv = tensor(dbv, ACL_INT64, 1, n4, 4);
    RUN(aclnnUnique2, tb, true, false, false, tbv, NULL, NULL);
    EXPECT(view_dim0(tbv) == 3, "int64 unique count");
    int64_t got[4];
    to_host(got, dbv, sizeof got);
    EXPECT(got[0] == INT64_MIN && got[1] == -1 && got[2] == INT64_MAX, "int64 values");
    EXPECT(aclnnUnique2GetWorkspaceSize(tensor(dv, ACL_COMPLEX128, 1, n4, 4), true, false, false,
                                        tensor(dv, ACL_COMPLEX128, 1, n4, 4), NULL, NULL, &ws, &ex) == 161002,
           "complex");
    EXPECT(aclnnUnique2GetWorkspaceSize(tx, true, false, true, tv, NULL, NULL, &ws, &ex) == 161001, "no countsOut");
    release_all();
}

static void test_searchsorted(void)
{
    float seq[4] = { 3.0f, 1.0f, 2.0f, 2.0f };     /* unsorted: sorter {1, 2, 3, 0} */
    int64_t sorter[4] = { 1, 2, 3, 0 }, bad[4] = { 1, 2, 3, 4 };
    float vals[5] = { 2.0f, 0.0f, 5.0f, 1.5f, NAN };
    int32_t out[5];
    int64_t n4[1] = { 4 }, n5[1] = { 5 };
    aclTensor *ts = tensor(tracked_dev_from(seq, sizeof seq), ACL_FLOAT, 1, n4, 4);
    aclTensor *tsorter = tensor(tracked_dev_from(sorter, sizeof sorter), ACL_INT64, 1, n4, 4);
    aclTensor *tv = tensor(tracked_dev_from(vals, sizeof vals), ACL_FLOAT, 1, n5, 5);
    void *dout = tracked_dev_from(NULL, sizeof out);
    aclTensor *to = tensor(dout, ACL_INT32, 1, n5, 5);
    RUN(aclnnSearchSorted, ts, tv, true, true, tsorter, to);
    to_host(out, dout, sizeof out);
    int32_t want[5] = { 3, 0, 4, 1, 4 }; /* right side in {1, 2, 2, 3} */
    EXPECT(memcmp(out, want, sizeof want) == 0, "searchsorted right %d %d %d %d %d", out[0], out[1], out[2], out[3],
           out[4]);
    /* an N-D sequence is searched row by row */
    int64_t rows[4] = { 1, 5, 10, 20 }, q[4] = { 5, 5, 15, 0 }, o64[4];
    int64_t s22[2] = { 2, 2 };
    void *do64 = tracked_dev_from(NULL, sizeof o64);
    RUN(aclnnSearchSorted, tensor(tracked_dev_from(rows, sizeof rows), ACL_INT64, 2, s22, 4),
        tensor(tracked_dev_from(q, sizeof q), ACL_INT64, 2, s22, 4), false, false, NULL, tensor(do64, ACL_INT64, 2, s22, 4));
    to_host(o64, do64, sizeof o64);
    EXPECT(o64[0] == 1 && o64[1] == 1 && o64[2] == 1 && o64[3] == 0, "rows %lld %lld %lld %lld", (long long)o64[0],
           (long long)o64[1], (long long)o64[2], (long long)o64[3]);
    /* a sorter index out of range is reported by the stream, nothing read outside */
    uint64_t ws;
    aclOpExecutor *ex;
    aclTensor *tbad = tensor(tracked_dev_from(bad, sizeof bad), ACL_INT64, 1, n4, 4);
    EXPECT(aclnnSearchSortedGetWorkspaceSize(ts, tv, true, false, tbad, to, &ws, &ex) == 0, "%s", aclGetRecentErrMsg());
    EXPECT(aclnnSearchSorted(NULL, ws, ex, stream) == 0, "%s", aclGetRecentErrMsg());
    EXPECT(aclrtSynchronizeStream(stream) != ACL_SUCCESS, "bad sorter not reported");
    aclGetRecentErrMsg();
    aclTensor *tb = tensor(dout, ACL_BOOL, 1, n4, 4);
    EXPECT(aclnnSearchSortedGetWorkspaceSize(tb, tb, true, false, NULL, to, &ws, &ex) == 161002, "bool");
    EXPECT(aclnnSearchSortedGetWorkspaceSize(ts, tv, false, false, NULL, to, &ws, &ex) == 161002, "int32 out");
    release_all();
}

static void test_gather(void)
{
    int16_t x[6] = { 10, 11, 12, 20, 21, 22 }; /* 2 x 3 */
    int64_t idx[4] = { 2, -3, -1, 0 }, oob[4] = { 0, 3, 0, 0 };
    int16_t out[4];
    int64_t s23[2] = { 2, 3 }, s22[2] = { 2, 2 };
    aclTensor *tx = tensor(tracked_dev_from(x, sizeof x), ACL_INT16, 2, s23, 6);
    void *dout = tracked_dev_from(NULL, sizeof out);
    aclTensor *to = tensor(dout, ACL_INT16, 2, s22, 4);
    RUN(aclnnGather, tx, 1, tensor(tracked_dev_from(idx, sizeof idx), ACL_INT64, 2, s22, 4), to);
    to_host(out, dout, sizeof out);
    EXPECT(out[0] == 12 && out[1] == 10 && out[2] == 22 && out[3] == 20, "gather %d %d %d %d", out[0], out[1], out[2],
           out[3]);
    uint64_t ws;
    aclOpExecutor *ex;
    EXPECT(aclnnGatherGetWorkspaceSize(tx, 1, tensor(tracked_dev_from(oob, sizeof oob), ACL_INT64, 2, s22, 4), to, &ws, &ex) == 0,
           "%s", aclGetRecentErrMsg());
    EXPECT(aclnnGather(NULL, ws, ex, stream) == 0, "%s", aclGetRecentErrMsg());
    EXPECT(aclrtSynchronizeStream(stream) != ACL_SUCCESS, "out-of-range index not reported");
    aclGetRecentErrMsg();
    EXPECT(aclnnGatherGetWorkspaceSize(tx, 2, tx, to, &ws, &ex) == 161002, "dim out of range");
    release_all();
}

static void test_isin_tensor_scalar(void)
{
    double x[4] = { 1.0, NAN, 2.0, 1.0 };
    uint8_t out[4];
    int64_t n4[1] = { 4 };
    aclTensor *tx = tensor(tracked_dev_from(x, sizeof x), ACL_DOUBLE, 1, n4, 4);
    void *dout = tracked_dev_from(NULL, sizeof out);
    aclTensor *to = tensor(dout, ACL_BOOL, 1, n4, 4);
    int64_t one = 1; /* an INT64 scalar: compared in the promoted DOUBLE */
    double nan = NAN;
    aclScalar *s1 = aclCreateScalar(&one, ACL_INT64), *snan = aclCreateScalar(&nan, ACL_DOUBLE);
    RUN(aclnnIsInTensorScalar, tx, s1, false, false, to);
    to_host(out, dout, sizeof out);
    EXPECT(out[0] == 1 && out[1] == 0 && out[2] == 0 && out[3] == 1, "isin 1: %d %d %d %d", out[0], out[1], out[2],
           out[3]);
    RUN(aclnnIsInTensorScalar, tx, snan, true, true, to); /* NaN matches nothing: all true inverted */
    to_host(out, dout, sizeof out);
    EXPECT(out[0] == 1 && out[1] == 1 && out[2] == 1 && out[3] == 1, "isin NaN inverted");
    uint64_t ws;
    aclOpExecutor *ex;
    EXPECT(aclnnIsInTensorScalarGetWorkspaceSize(tensor(dout, ACL_UINT32, 1, n4, 4), s1, false, false, to, &ws, &ex) ==
               161002, "uint32 element");
    aclDestroyScalar(s1);
    aclDestroyScalar(snan);
    release_all();
}

/* A long float32 line with more distinct values than the hash tables take: the keys are sorted
 * in buckets across the CPU pool (each value twice, a -0.0 first among the zeros, NaNs apart). */
static void test_unique2_sorted_buckets(void)
{
    enum { N = 120000, DISTINCT = 50000 };
    float *x = (float *)malloc(sizeof(float) * N), *values = (float *)malloc(sizeof(float) * N);
    int64_t *counts = (int64_t *)malloc(sizeof(int64_t) * N), n[1] = { N };
    for (int i = 0; i < N; i++) x[i] = (float)((i * 7919) % DISTINCT) - DISTINCT / 2;
    for (int i = 2 * DISTINCT; i < N; i++) x[i] = NAN;
    for (int i = 0; i < N; i++)
        if (x[i] == 0) {
            x[i] = -0.0f; /* the first zero of the line */
            break;
        }
    aclTensor *tx = tensor(tracked_dev_from(x, sizeof(float) * N), ACL_FLOAT, 1, n, N);
    void *dv = tracked_dev_from(NULL, sizeof(float) * N), *dc = tracked_dev_from(NULL, sizeof(int64_t) * N);
    aclTensor *tv = tensor(dv, ACL_FLOAT, 1, n, N), *tc = tensor(dc, ACL_INT64, 1, n, N);
    RUN(aclnnUnique2, tx, true, false, true, tv, NULL, tc);
    int64_t groups = view_dim0(tv);
    EXPECT(groups == DISTINCT + (N - 2 * DISTINCT), "groups %lld", (long long)groups);
    to_host(values, dv, sizeof(float) * N);
    to_host(counts, dc, sizeof(int64_t) * N);
    int bad = 0;
    for (int g = 0; g < DISTINCT; g++) {
        float want = (float)(g - DISTINCT / 2);
        bad += values[g] != want || counts[g] != 2;
    }
    for (int64_t g = DISTINCT; g < groups; g++) bad += !isnan(values[g]) || counts[g] != 1;
    EXPECT(bad == 0, "%d wrong groups", bad);
    EXPECT(signbit(values[DISTINCT / 2]), "the zero is the first zero's, -0.0");
    free(x);
    free(values);
    free(counts);
    release_all();
}

int main(void)
{
    if (aclnn_test_setup() != 0) return 1;
    test_nonzero();
    test_unique2();
    test_unique2_sorted_buckets();
    test_searchsorted();
    test_gather();
    test_isin_tensor_scalar();
    return aclnn_test_finish("aclnn_search_set");
}
