/* What bounds a 16 M float32 add and sum on this machine: memory bandwidth, measured STREAM-like
 * with 1 and 2 threads, normal against non-temporal stores, next to npusim's aclnnAdd and
 * aclnnReduceSum of the same size (both phases, then aclrtSynchronizeStream).
 *
 *   make -C kernels bench && kernels/build/bench/npusim_bandwidth
 *
 * NumPy's np.add(a, b, out=out) is one thread of normal stores: each written line is read first,
 * 16 bytes of traffic per element instead of 12. A 2-thread loop with non-temporal stores is as
 * fast as any add can be here; the ratio of the two rows is the most npusim can gain on NumPy.
 * (C++ only because aclnn's headers are, as CANN's are.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_reduce_sum.h"

#define N ((int64_t)1 << 24)
#define ROUNDS 21

enum kernel { ADD_NORMAL, ADD_STREAMED, SUM };
static const char *const kernel_names[] = {"add, normal stores", "add, non-temporal stores", "sum"};

static float *a, *b, *c;
static double partial[2];

typedef struct { int64_t lo, hi; int index; enum kernel kernel; } slice;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void *run_slice(void *arg)
{
    const slice *s = (const slice *)arg;
    if (s->kernel == SUM) {
        float acc[16] = {0};
        for (int64_t i = s->lo; i < s->hi; i += 16)
            for (int k = 0; k < 16; k++) acc[k] += a[i + k];
        double total = 0;
        for (int k = 0; k < 16; k++) total += acc[k];
        partial[s->index] = total;
        return NULL;
    }
#if defined(__SSE2__)
    if (s->kernel == ADD_STREAMED) {
        for (int64_t i = s->lo; i < s->hi; i += 4)
            _mm_stream_ps(c + i, _mm_add_ps(_mm_load_ps(a + i), _mm_load_ps(b + i)));
        _mm_sfence();
        return NULL;
    }
#endif
    for (int64_t i = s->lo; i < s->hi; i++) c[i] = a[i] + b[i];
    return NULL;
}

/* Best time in ms of `kernel` over N elements split between `threads` (1 or 2) threads. */
static double best_loop(enum kernel kernel, int threads)
{
    double best = 1e30;
    for (int r = 0; r < ROUNDS; r++) {
        slice s[2] = {{0, N / threads, 0, kernel}, {N / 2, N, 1, kernel}};
        pthread_t helper;
        double t0 = now_ms();
        if (threads == 2) pthread_create(&helper, NULL, run_slice, &s[1]);
        run_slice(&s[0]);
        if (threads == 2) pthread_join(helper, NULL);
        double t = now_ms() - t0;
        if (t < best) best = t;
    }
    return best;
}

static void check(int rc, const char *what)
{
    if (rc == 0) return;
    fprintf(stderr, "%s failed: %d %s\n", what, rc, aclGetRecentErrMsg());
    exit(1);
}

static aclTensor *tensor(void *data, int64_t n, int ndim)
{
    int64_t shape[1] = {n}, strides[1] = {1};
    return aclCreateTensor(shape, (uint64_t)ndim, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)ndim, data);
}

/* Best and median time in ms of npusim's add (sum: false) or sum over N elements. */
static void time_npusim(bool sum, double *best, double *median)
{
    aclrtStream stream;
    void *da, *db, *dc;
    check(aclrtCreateStream(&stream), "aclrtCreateStream");
    check(aclrtMalloc(&da, N * 4, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMalloc(&db, N * 4, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMalloc(&dc, N * 4, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMemcpy(da, N * 4, a, N * 4, ACL_MEMCPY_HOST_TO_DEVICE), "upload");
    check(aclrtMemcpy(db, N * 4, b, N * 4, ACL_MEMCPY_HOST_TO_DEVICE), "upload");
    check(aclrtMemcpy(dc, N * 4, c, N * 4, ACL_MEMCPY_HOST_TO_DEVICE), "upload"); /* faulted in, as a pooled block */
    aclTensor *ta = tensor(da, N, 1), *tb = tensor(db, N, 1), *tc = tensor(dc, N, sum ? 0 : 1);
    float one_value = 1.0f;
    int64_t axis = 0;
    aclScalar *one = aclCreateScalar(&one_value, ACL_FLOAT);
    aclIntArray *dims = aclCreateIntArray(&axis, 1);
    double times[ROUNDS];
    for (int r = -2; r < ROUNDS; r++) {
        uint64_t ws;
        aclOpExecutor *ex;
        double t0 = now_ms();
        if (sum) {
            check(aclnnReduceSumGetWorkspaceSize(ta, dims, false, ACL_FLOAT, tc, &ws, &ex), "sum phase 1");
            check(aclnnReduceSum(NULL, 0, ex, stream), "sum phase 2");
        } else {
            check(aclnnAddGetWorkspaceSize(ta, tb, one, tc, &ws, &ex), "add phase 1");
            check(aclnnAdd(NULL, 0, ex, stream), "add phase 2");
        }
        check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
        if (r >= 0) times[r] = now_ms() - t0;
    }
    for (int i = 1; i < ROUNDS; i++) /* insertion sort */
        for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
            double t = times[j];
            times[j] = times[j - 1];
            times[j - 1] = t;
        }
    *best = times[0];
    *median = times[ROUNDS / 2];
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(tc);
    aclDestroyScalar(one);
    aclDestroyIntArray(dims);
    aclrtFree(da);
    aclrtFree(db);
    aclrtFree(dc);
    aclrtDestroyStream(stream);
}

int main(void)
{
    a = static_cast<float *>(aligned_alloc(64, N * 4));
    b = static_cast<float *>(aligned_alloc(64, N * 4));
    c = static_cast<float *>(aligned_alloc(64, N * 4));
    for (int64_t i = 0; i < N; i++) a[i] = (float)(i & 1023), b[i] = 1.0f, c[i] = 0.0f;
    printf("float32[16 M], best of %d, ms (GB/s moved: add 12 bytes/element, sum 4)\n", ROUNDS);
    for (int k = ADD_NORMAL; k <= SUM; k++)
        for (int threads = 1; threads <= 2; threads++) {
            double t = best_loop((enum kernel)k, threads);
            double bytes = (k == SUM ? 4.0 : 12.0) * N;
            printf("  loop %-26s %d thread%s %7.2f ms  %5.1f GB/s\n", kernel_names[k], threads,
                   threads > 1 ? "s" : " ", t, bytes / t / 1e6);
        }
    check(aclInit(NULL), "aclInit");
    check(aclrtSetDevice(0), "aclrtSetDevice");
    double best, median;
    time_npusim(false, &best, &median);
    printf("  npusim aclnnAdd + sync             best %7.2f ms  median %7.2f ms\n", best, median);
    time_npusim(true, &best, &median);
    printf("  npusim aclnnReduceSum + sync       best %7.2f ms  median %7.2f ms\n", best, median);
    aclrtResetDevice(0);
    aclFinalize();
    return partial[0] + partial[1] < 0; /* keeps the sums from being optimised away */
}
