/* aclnnHistc on float32 long enough for its threaded, vectorised path and on a strided int32
 * view, against counts computed here by searching the edges (computed as the operator
 * documents them: i * step + lo in float for FLOAT min and max, in double otherwise, the last
 * one max): values on the edges, outside the range and NaN; the range read from the data when
 * min == max; the first phase's refusals (bins <= 0, min > max, out of the wrong length).
 * Prints "aclnn_histc ok" and exits 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnn_check.h"
#include "aclnnop/aclnn_histc.h"

#define N 300007
#define BINS 37

static uint32_t lcg_state = 777;

static uint32_t next_random(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state >> 8;
}

static aclTensor *vector(void *dev, aclDataType dt, int64_t n, int64_t stride)
{
    int64_t storage = n ? (n - 1) * stride + 1 : 0;
    return aclCreateTensor(&n, 1, dt, &stride, 0, ACL_FORMAT_ND, &storage, 1, dev);
}

/* The bin of x among the edges (last one inclusive), or -1 outside or NaN. */
static int bin_of(double x, const double *edges, int bins)
{
    if (!(x >= edges[0] && x <= edges[bins])) return -1;
    int i = 0;
    while (i < bins - 1 && x >= edges[i + 1]) i++;
    return i;
}

static void float_edges(double *edges, float lo, float hi, int bins)
{
    float step = (hi - lo) / (float)bins;
    for (int i = 0; i < bins; i++) {
        float p = (float)i * step;
        edges[i] = p + lo;
    }
    edges[bins] = hi;
}

static void test_float32(void)
{
    float *x = (float *)malloc(sizeof(float) * N);
    for (int64_t i = 0; i < N; i++) x[i] = (float)((int)(next_random() % 30001) - 15000) / 7000.0f;
    float lo = -1.5f, hi = 1.75f;
    double edges[BINS + 1];
    float_edges(edges, lo, hi, BINS);
    for (int i = 0; i <= BINS; i++) x[1000 + i] = (float)edges[i]; /* exactly on every edge */
    x[5] = NAN;
    x[6] = INFINITY;
    x[7] = -INFINITY;
    x[8] = nextafterf(hi, 2.0f);
    int64_t want[BINS] = { 0 }, got[BINS];
    for (int64_t i = 0; i < N; i++) {
        int b = bin_of(x[i], edges, BINS);
        if (b >= 0) want[b]++;
    }
    void *dx = dev_from(x, sizeof(float) * N), *dh = dev_from(NULL, sizeof got);
    aclTensor *tx = vector(dx, ACL_FLOAT, N, 1), *th = vector(dh, ACL_INT64, BINS, 1);
    aclScalar *smin = aclCreateScalar(&lo, ACL_FLOAT), *smax = aclCreateScalar(&hi, ACL_FLOAT);
    RUN(aclnnHistc, tx, BINS, smin, smax, th);
    to_host(got, dh, sizeof got);
    for (int b = 0; b < BINS; b++) EXPECT(got[b] == want[b], "bin %d: %lld, want %lld", b, (long long)got[b], (long long)want[b]);

    /* min == max: the data's range (NaN and infinities removed first, so it is finite) */
    x[5] = x[6] = x[7] = 0.0f;
    aclrtMemcpy(dx, sizeof(float) * N, x, sizeof(float) * N, ACL_MEMCPY_HOST_TO_DEVICE);
    double dlo = INFINITY, dhi = -INFINITY;
    for (int64_t i = 0; i < N; i++) {
        dlo = x[i] < dlo ? x[i] : dlo;
        dhi = x[i] > dhi ? x[i] : dhi;
    }
    double step = (dhi - dlo) / BINS;
    for (int i = 0; i < BINS; i++) edges[i] = (double)(float)((double)i * step + dlo);
    edges[BINS] = (double)(float)dhi;
    memset(want, 0, sizeof want);
    for (int64_t i = 0; i < N; i++) want[bin_of(x[i], edges, BINS)]++;
    float zero = 0.0f;
    aclScalar *szero = aclCreateScalar(&zero, ACL_FLOAT);
    RUN(aclnnHistc, tx, BINS, szero, szero, th);
    to_host(got, dh, sizeof got);
    int64_t total = 0;
    for (int b = 0; b < BINS; b++) {
        EXPECT(got[b] == want[b], "data range bin %d: %lld, want %lld", b, (long long)got[b], (long long)want[b]);
        total += got[b];
    }
    EXPECT(total == N, "data range: %lld counted of %d", (long long)total, N);

    /* the first phase's refusals */
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    EXPECT(aclnnHistcGetWorkspaceSize(tx, 0, smin, smax, th, &ws, &ex) == ACLNN_ERR_PARAM_INVALID, "bins 0");
    EXPECT(aclnnHistcGetWorkspaceSize(tx, BINS, smax, smin, th, &ws, &ex) == ACLNN_ERR_PARAM_INVALID, "min > max");
    EXPECT(aclnnHistcGetWorkspaceSize(tx, BINS + 1, smin, smax, th, &ws, &ex) == ACLNN_ERR_PARAM_INVALID,
           "out of another length");
    aclDestroyScalar(smin);
    aclDestroyScalar(smax);
    aclDestroyScalar(szero);
    aclDestroyTensor(tx);
    aclDestroyTensor(th);
    aclrtFree(dx);
    aclrtFree(dh);
    free(x);
}

static void test_int32_strided(void)
{
    enum { M = 50001 };
    int32_t *x = (int32_t *)malloc(sizeof(int32_t) * 2 * M);
    for (int64_t i = 0; i < 2 * M; i++) x[i] = (int32_t)(next_random() % 201) - 100;
    double lo = -60.5, hi = 90.0, edges[BINS + 1];
    double step = (hi - lo) / BINS;
    for (int i = 0; i < BINS; i++) edges[i] = (double)i * step + lo;
    edges[BINS] = hi;
    int64_t want[BINS] = { 0 }, got[BINS];
    for (int64_t i = 0; i < M; i++) {
        int b = bin_of(x[2 * i], edges, BINS);
        if (b >= 0) want[b]++;
    }
    void *dx = dev_from(x, sizeof(int32_t) * 2 * M), *dh = dev_from(NULL, sizeof got);
    aclTensor *tx = vector(dx, ACL_INT32, M, 2), *th = vector(dh, ACL_INT64, BINS, 1);
    aclScalar *smin = aclCreateScalar(&lo, ACL_DOUBLE), *smax = aclCreateScalar(&hi, ACL_DOUBLE);
    RUN(aclnnHistc, tx, BINS, smin, smax, th);
    to_host(got, dh, sizeof got);
    for (int b = 0; b < BINS; b++)
        EXPECT(got[b] == want[b], "int32 bin %d: %lld, want %lld", b, (long long)got[b], (long long)want[b]);
    aclDestroyScalar(smin);
    aclDestroyScalar(smax);
    aclDestroyTensor(tx);
    aclDestroyTensor(th);
    aclrtFree(dx);
    aclrtFree(dh);
    free(x);
}

int main(void)
{
    if (aclnn_test_setup() != 0) return 1;
    test_float32();
    test_int32_strided();
    return aclnn_test_finish("aclnn_histc");
}
