/* npusim's aclnnSort / aclnnArgsort (radix path: lines of 5000; bucketed path: a line of 2^17 + 3) and aclnnCumprod /
 * aclnnInplaceCumprod on a device, run under the sanitizers by tests/core/test_sorting.py: descending
 * values must come out ordered and running products must match the host's. Prints
 * "aclnn_sort_scan ok" and exits 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_sort.h"
#include "aclnnop/aclnn_argsort.h"
#include "aclnnop/aclnn_cumprod.h"

static aclTensor *tensor(void **dev, aclDataType dt, size_t item, int64_t rows, int64_t cols, const void *host)
{
    size_t bytes = (size_t)(rows * cols) * item;
    aclrtMalloc(dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    int64_t shape[2] = { rows, cols }, strides[2] = { cols, 1 }, storage = rows * cols;
    return aclCreateTensor(shape, 2, dt, strides, 0, ACL_FORMAT_ND, &storage, 1, *dev);
}

static uint64_t ws;
static aclOpExecutor *ex;
static int run(const char *name, aclnnStatus rc, aclrtStream s,
               aclnnStatus (*second)(void *, uint64_t, aclOpExecutor *, aclrtStream))
{
    if (rc) { fprintf(stderr, "%s first phase %d %s\n", name, rc, aclGetRecentErrMsg()); return 1; }
    void *w = NULL;
    if (ws) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    rc = second(w, ws, ex, s);
    aclrtSynchronizeStream(s);
    if (w) aclrtFree(w);
    if (rc) { fprintf(stderr, "%s second phase %d %s\n", name, rc, aclGetRecentErrMsg()); return 1; }
    return 0;
}

/* A line long enough for the bucketed path (ties, NaNs, both zeros), sorted ascending by aclnnSort
 * and descending by aclnnArgsort: ordered, stable, and values equal to the input at the indices. */
static int long_line(aclrtStream s)
{
    enum { N = (1 << 17) + 3 };
    float *x = (float*)malloc(sizeof(float) * N), *v = (float*)malloc(sizeof(float) * N);
    int64_t *ix = (int64_t*)malloc(sizeof(int64_t) * N);
    for (int i = 0; i < N; i++) x[i] = (float)((i * 7919) % 4001) / 8.0f - 250.0f;
    for (int i = 0; i < N; i += 97) x[i] = NAN;
    for (int i = 5; i < N; i += 89) x[i] = (i / 89) % 2 ? -0.0f : 0.0f;
    void *d1, *d2, *d3;
    aclTensor *in = tensor(&d1, ACL_FLOAT, 4, 1, N, x), *vals = tensor(&d2, ACL_FLOAT, 4, 1, N, NULL),
              *idx = tensor(&d3, ACL_INT64, 8, 1, N, NULL);
    int fails = run("long sort", aclnnSortGetWorkspaceSize(in, true, 1, false, vals, idx, &ws, &ex), s, aclnnSort);
    aclrtMemcpy(v, sizeof(float) * N, d2, sizeof(float) * N, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(ix, sizeof(int64_t) * N, d3, sizeof(int64_t) * N, ACL_MEMCPY_DEVICE_TO_HOST);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        bad += memcmp(&v[i], &x[ix[i]], sizeof(float)) != 0; /* the input's own bits */
        if (i == 0) continue;
        bool nan_prev = isnan(v[i - 1]), nan_cur = isnan(v[i]);
        bad += (nan_prev && !nan_cur) || (!nan_prev && !nan_cur && v[i - 1] > v[i]); /* NaN last */
        bad += (v[i - 1] == v[i] || (nan_prev && nan_cur)) && ix[i - 1] > ix[i];    /* stable */
    }
    fails += run("long argsort", aclnnArgsortGetWorkspaceSize(in, 1, true, idx, &ws, &ex), s, aclnnArgsort);
    aclrtMemcpy(ix, sizeof(int64_t) * N, d3, sizeof(int64_t) * N, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 1; i < N; i++) { /* descending: NaN first, as CANN's kernels */
        float a = x[ix[i - 1]], b = x[ix[i]];
        bad += (!isnan(a) && isnan(b)) || (!isnan(a) && !isnan(b) && a < b);
    }
    if (bad) fprintf(stderr, "long line: %d bad\n", bad);
    aclDestroyTensor(in); aclDestroyTensor(vals); aclDestroyTensor(idx);
    aclrtFree(d1); aclrtFree(d2); aclrtFree(d3);
    free(x); free(v); free(ix);
    return fails + (bad != 0);
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream s;
    aclrtCreateStream(&s);
    int fails = 0;
    enum { R = 3, C = 5000 };
    float *xf = (float*)malloc(sizeof(float) * R * C);
    double *xd = (double*)malloc(sizeof(double) * R * C);
    int64_t *xi = (int64_t*)malloc(sizeof(int64_t) * R * C);
    for (int i = 0; i < R * C; i++) { xf[i] = (float)((i * 7919) % 1000) - 500.0f; xd[i] = xf[i] / 100.0; xi[i] = (i * 31) % 97 - 40; }
    void *d1, *d2, *d3;
    aclTensor *in = tensor(&d1, ACL_FLOAT, 4, R, C, xf), *vals = tensor(&d2, ACL_FLOAT, 4, R, C, NULL),
              *idx = tensor(&d3, ACL_INT64, 8, R, C, NULL);
    fails += run("sort f32", aclnnSortGetWorkspaceSize(in, true, 1, true, vals, idx, &ws, &ex), s, aclnnSort);
    fails += run("argsort f32", aclnnArgsortGetWorkspaceSize(in, 0, false, idx, &ws, &ex), s, aclnnArgsort);
    float *back = (float*)malloc(sizeof(float) * R * C);
    aclrtMemcpy(back, sizeof(float) * R * C, d2, sizeof(float) * R * C, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int r = 0; r < R; r++) for (int c = 1; c < C; c++) if (back[r * C + c - 1] < back[r * C + c]) { fails++; break; }
    void *e1, *e2, *e3;
    aclTensor *il = tensor(&e1, ACL_INT64, 8, R, C, xi), *vl = tensor(&e2, ACL_INT64, 8, R, C, NULL),
              *xl = tensor(&e3, ACL_INT64, 8, R, C, NULL);
    fails += run("sort i64", aclnnSortGetWorkspaceSize(il, true, 1, false, vl, xl, &ws, &ex), s, aclnnSort);
    int32_t dim = 1;
    aclScalar *dimS = aclCreateScalar(&dim, ACL_INT32);
    void *f1, *f2;
    aclTensor *cin = tensor(&f1, ACL_DOUBLE, 8, R, C, xd), *cout = tensor(&f2, ACL_DOUBLE, 8, R, C, NULL);
    fails += run("cumprod", aclnnCumprodGetWorkspaceSize(cin, dimS, ACL_DT_UNDEFINED, cout, &ws, &ex), s, aclnnCumprod);
    double *prod = (double*)malloc(sizeof(double) * R * C);
    aclrtMemcpy(prod, sizeof(double) * R * C, f2, sizeof(double) * R * C, ACL_MEMCPY_DEVICE_TO_HOST);
    double running = 1.0;
    for (int c = 0; c < 50; c++) {
        running *= xd[c];
        if (fabs(prod[c] - running) > 1e-12 * fabs(running)) { fails++; break; }
    }
    free(prod);
    fails += run("inplace cumprod", aclnnInplaceCumprodGetWorkspaceSize(cin, dimS, &ws, &ex), s, aclnnInplaceCumprod);
    aclDestroyScalar(dimS);
    fails += long_line(s);
    aclDestroyTensor(in); aclDestroyTensor(vals); aclDestroyTensor(idx); aclDestroyTensor(il); aclDestroyTensor(vl);
    aclDestroyTensor(xl); aclDestroyTensor(cin); aclDestroyTensor(cout);
    aclrtFree(d1); aclrtFree(d2); aclrtFree(d3); aclrtFree(e1); aclrtFree(e2); aclrtFree(e3); aclrtFree(f1); aclrtFree(f2);
    free(xf); free(xd); free(xi); free(back);
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) { fprintf(stderr, "%d failures\n", fails); return 1; }
    printf("aclnn_sort_scan ok\n");
    return 0;
}
