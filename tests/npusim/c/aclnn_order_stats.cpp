/* The order-statistics operators on lines long enough for their threaded paths, against values
 * computed here by sorting: aclnnKthvalue (sampled bracket, and the radix select on many equal
 * values), aclnnUnique2 with counts (hashing, -0.0 and 0.0 as one value, NaNs distinct),
 * aclnnSearchSorted on a 1-D evenly spaced sequence, and aclnnBincount.
 * Prints "aclnn_order_stats ok" and exits 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn_check.h"
#include "aclnnop/aclnn_bincount.h"
#include "aclnnop/aclnn_kthvalue.h"
#include "aclnnop/aclnn_searchsorted.h"
#include "aclnnop/aclnn_unique2.h"

#define N 200000

static uint32_t lcg_state = 12345;

static uint32_t next_random(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state >> 8;
}

static aclTensor *vector(void *dev, aclDataType dt, int64_t n)
{
    int64_t stride = 1;
    return aclCreateTensor(&n, 1, dt, &stride, 0, ACL_FORMAT_ND, &n, 1, dev);
}

static aclTensor *scalar(void *dev, aclDataType dt)
{
    int64_t one = 1;
    return aclCreateTensor(NULL, 0, dt, NULL, 0, ACL_FORMAT_ND, &one, 1, dev);
}

/* NaN last, -0.0 equal to 0.0: aclnnKthvalue's order. */
static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    if (x != x) return y != y ? 0 : 1;
    if (y != y) return -1;
    return (x > y) - (x < y);
}

/* The k-th smallest (from 1) of x by aclnnKthvalue against the sorted copy, and its index the
 * first element equal to it. */
static void check_kthvalue(const float *x, const float *sorted, int64_t k, const char *what)
{
    void *dx = dev_from(x, sizeof(float) * N), *dv = dev_from(NULL, 4), *di = dev_from(NULL, 8);
    aclTensor *tx = vector(dx, ACL_FLOAT, N), *tv = scalar(dv, ACL_FLOAT), *ti = scalar(di, ACL_INT64);
    RUN(aclnnKthvalue, tx, k, 0, false, tv, ti);
    float value;
    int64_t index;
    to_host(&value, dv, 4);
    to_host(&index, di, 8);
    float want = sorted[k - 1];
    EXPECT(isnan(want) ? isnan(value) : value == want, "%s: k %lld gave %g, want %g", what, (long long)k, value,
           want);
    int64_t first = 0;
    while (first < N && compare_floats(&x[first], &want) != 0) first++;
    EXPECT(index == first, "%s: k %lld index %lld, want %lld", what, (long long)k, (long long)index,
           (long long)first);
    aclDestroyTensor(tx);
    aclDestroyTensor(tv);
    aclDestroyTensor(ti);
    aclrtFree(dx);
    aclrtFree(dv);
    aclrtFree(di);
}

static void test_kthvalue(void)
{
    float *x = (float *)malloc(sizeof(float) * N), *sorted = (float *)malloc(sizeof(float) * N);
    for (int64_t i = 0; i < N; i++) x[i] = (float)((int)(next_random() % 20001) - 10000) / 7.0f;
    x[5] = NAN;
    x[17] = -0.0f;
    x[99] = INFINITY;
    memcpy(sorted, x, sizeof(float) * N);
    qsort(sorted, N, sizeof(float), compare_floats);
    int64_t ks[] = { 1, 2, N / 20, N / 2, N / 2 + 1, N - 1, N };
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) check_kthvalue(x, sorted, ks[i], "spread");
    for (int64_t i = 0; i < N; i++) x[i] = (float)(next_random() % 3); /* few values: the radix select */
    memcpy(sorted, x, sizeof(float) * N);
    qsort(sorted, N, sizeof(float), compare_floats);
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) check_kthvalue(x, sorted, ks[i], "three values");
    free(x);
    free(sorted);
}

static void test_unique_counts(void)
{
    float *x = (float *)malloc(sizeof(float) * N), *sorted = (float *)malloc(sizeof(float) * N);
    for (int64_t i = 0; i < N; i++) x[i] = (float)(next_random() % 1000) - 500.0f;
    x[0] = x[1] = x[2] = 1.0f;
    x[3] = -0.0f; /* the first zero: the value kept */
    x[10] = NAN;
    x[20] = NAN;
    memcpy(sorted, x, sizeof(float) * N);
    qsort(sorted, N, sizeof(float), compare_floats);
    void *dx = dev_from(x, sizeof(float) * N), *dv = dev_from(NULL, sizeof(float) * N);
    void *dc = dev_from(NULL, sizeof(int64_t) * N);
    aclTensor *tx = vector(dx, ACL_FLOAT, N), *tv = vector(dv, ACL_FLOAT, N), *tc = vector(dc, ACL_INT64, N);
    RUN(aclnnUnique2, tx, true, false, true, tv, NULL, tc);
    int64_t *shape = NULL;
    uint64_t nd = 0;
    EXPECT(aclGetViewShape(tv, &shape, &nd) == 0 && nd == 1, "aclGetViewShape");
    int64_t groups = shape ? shape[0] : 0;
    free(shape);
    float *values = (float *)malloc(sizeof(float) * N);
    int64_t *counts = (int64_t *)malloc(sizeof(int64_t) * N);
    to_host(values, dv, sizeof(float) * N);
    to_host(counts, dc, sizeof(int64_t) * N);
    int64_t g = 0;
    for (int64_t i = 0; i < N && g <= groups; g++) { /* the groups of the sorted copy, NaNs alone */
        int64_t j = i + 1;
        while (!isnan(sorted[i]) && j < N && sorted[j] == sorted[i]) j++;
        EXPECT(g < groups && compare_floats(&values[g], &sorted[i]) == 0 && counts[g] == j - i,
               "group %lld: %g x %lld, want %g x %lld", (long long)g, values[g], (long long)counts[g], sorted[i],
               (long long)(j - i));
        if (sorted[i] == 0.0f) EXPECT(signbit(values[g]), "the zero kept is the first, -0.0");
        i = j;
    }
    EXPECT(g == groups, "%lld groups, want %lld", (long long)groups, (long long)g);
    aclDestroyTensor(tx);
    aclDestroyTensor(tv);
    aclDestroyTensor(tc);
    aclrtFree(dx);
    aclrtFree(dv);
    aclrtFree(dc);
    free(x);
    free(sorted);
    free(values);
    free(counts);
}

static void test_searchsorted_bincount(void)
{
    enum { EDGES = 11 };
    float edges[EDGES], *x = (float *)malloc(sizeof(float) * N);
    for (int i = 0; i < EDGES; i++) edges[i] = -1.0f + 0.2f * (float)i;
    for (int64_t i = 0; i < N; i++) x[i] = (float)((int)(next_random() % 30001) - 15000) / 10000.0f;
    x[7] = NAN;
    x[8] = edges[4];
    int32_t *index = (int32_t *)malloc(sizeof(int32_t) * N);
    void *de = dev_from(edges, sizeof edges), *dx = dev_from(x, sizeof(float) * N);
    void *di = dev_from(NULL, sizeof(int32_t) * N), *dh = dev_from(NULL, sizeof(int64_t) * (EDGES + 1));
    aclTensor *te = vector(de, ACL_FLOAT, EDGES), *tx = vector(dx, ACL_FLOAT, N);
    aclTensor *ti = vector(di, ACL_INT32, N), *th = vector(dh, ACL_INT64, EDGES + 1);
    RUN(aclnnSearchSorted, te, tx, true, true, NULL, ti);
    to_host(index, di, sizeof(int32_t) * N);
    int64_t want_counts[EDGES + 1] = { 0 }, counts[EDGES + 1];
    for (int64_t i = 0; i < N; i++) {
        int32_t want = 0;
        while (want < EDGES && (isnan(x[i]) || edges[want] <= x[i])) want++;
        want_counts[want]++;
        EXPECT(index[i] == want, "searchsorted x[%lld] = %g: %d, want %d", (long long)i, x[i], index[i], want);
    }
    RUN(aclnnBincount, ti, NULL, 0, th);
    to_host(counts, dh, sizeof counts);
    EXPECT(memcmp(counts, want_counts, sizeof counts) == 0, "bincount of the insertion indices");
    aclDestroyTensor(te);
    aclDestroyTensor(tx);
    aclDestroyTensor(ti);
    aclDestroyTensor(th);
    aclrtFree(de);
    aclrtFree(dx);
    aclrtFree(di);
    aclrtFree(dh);
    free(x);
    free(index);
}

int main(void)
{
    if (aclnn_test_setup() != 0) return 1;
    test_kthvalue();
    test_unique_counts();
    test_searchsorted_bincount();
    return aclnn_test_finish("aclnn_order_stats");
}
