/* npusim's cost per launch, without Python: the two phases of a small aclnnAdd, measured apart.
 * (C++ only because aclnn's headers are, as CANN's are.)
 *
 *   make -C kernels bench && kernels/build/bench/npusim_launch [launches]
 *
 * A dependent chain b = a + y; a = b + y on 16 float32 elements, on a created stream, as
 * npuarray's `z = z + y` issues it. Printed per launch, best and median of 7 rounds:
 *   phase1     aclnnAddGetWorkspaceSize alone (batches of 16 executors built, then launched)
 *   phase2     aclnnAdd alone (launching that batch)
 *   chain      both phases back to back, one launch at a time, then one synchronisation
 *   +tensor    the chain with an aclCreateTensor / aclDestroyTensor of the result per launch
 *              (npuarray makes one handle per new array)
 *   add+sync   one 1 K-element add followed by aclrtSynchronizeStream (latency of a round trip)
 *   sum chain  both phases of aclnnReduceSum of the 16 elements to a 0-d result, one launch at a time
 * and the CPU time the process used per launch during the chain (host + worker threads), which
 * shows whether the stream's worker burns a core while it waits for the next task. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_reduce_sum.h"

#define BATCH 16
#define BATCHES 256
#define ROUNDS 7

static aclrtStream stream;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

static void check(int rc, const char *what)
{
    if (rc == 0) return;
    fprintf(stderr, "%s failed: %d %s\n", what, rc, aclGetRecentErrMsg());
    exit(1);
}

static aclTensor *vector(void *data, int64_t n)
{
    int64_t shape[1] = {n}, strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

typedef struct {
    aclTensor *a, *b, *y;
    aclScalar *alpha;
    void *da, *db;
    int64_t n;
} operands;

static operands make_operands(int64_t n)
{
    operands o;
    o.n = n;
    void *dy;
    float one = 1.0f, *host = static_cast<float *>(malloc((size_t)n * sizeof *host));
    for (int64_t i = 0; i < n; i++) host[i] = 1.0f;
    check(aclrtMalloc(&o.da, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMalloc(&o.db, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMalloc(&dy, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMemcpy(o.da, (size_t)n * 4, host, (size_t)n * 4, ACL_MEMCPY_HOST_TO_DEVICE), "upload");
    check(aclrtMemcpy(dy, (size_t)n * 4, host, (size_t)n * 4, ACL_MEMCPY_HOST_TO_DEVICE), "upload");
    free(host);
    o.a = vector(o.da, n);
    o.b = vector(o.db, n);
    o.y = vector(dy, n);
    o.alpha = aclCreateScalar(&one, ACL_FLOAT);
    return o;
}

/* Phase 1 of a batch, then phase 2 of the batch, BATCHES times: ns per launch of each. A batch
 * is small enough for npusim's recycled executors (no malloc), as in a program's steady state. */
static void time_phases(const operands *o, double *phase1, double *phase2)
{
    aclOpExecutor *ex[BATCH];
    uint64_t ws;
    double total1 = 0, total2 = 0;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (int i = 0; i < BATCH; i++)
            check(aclnnAddGetWorkspaceSize(i & 1 ? o->b : o->a, o->y, o->alpha, i & 1 ? o->a : o->b, &ws, &ex[i]),
                  "aclnnAddGetWorkspaceSize");
        double t1 = now_ns();
        for (int i = 0; i < BATCH; i++) check(aclnnAdd(NULL, 0, ex[i], stream), "aclnnAdd");
        double t2 = now_ns();
        check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
        total1 += t1 - t0;
        total2 += t2 - t1;
    }
    *phase1 = total1 / (BATCH * BATCHES);
    *phase2 = total2 / (BATCH * BATCHES);
}

/* `launches` dependent adds, each phase 1 then phase 2, and one synchronisation: ns per launch.
 * `fresh_result`: create the result's tensor handle per launch, as npuarray does. */
static double time_chain(const operands *o, int launches, bool fresh_result, double *cpu)
{
    uint64_t ws;
    aclOpExecutor *ex;
    double c0 = cpu_ns(), t0 = now_ns();
    for (int i = 0; i < launches; i++) {
        aclTensor *self = i & 1 ? o->b : o->a, *out = i & 1 ? o->a : o->b;
        if (fresh_result) out = vector(i & 1 ? o->da : o->db, o->n);
        check(aclnnAddGetWorkspaceSize(self, o->y, o->alpha, out, &ws, &ex), "aclnnAddGetWorkspaceSize");
        check(aclnnAdd(NULL, 0, ex, stream), "aclnnAdd");
        if (fresh_result) aclDestroyTensor(out);
    }
    check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    double t1 = now_ns();
    *cpu = (cpu_ns() - c0) / launches;
    return (t1 - t0) / launches;
}

static double time_round_trip(const operands *o)
{
    uint64_t ws;
    aclOpExecutor *ex;
    double t0 = now_ns();
    for (int i = 0; i < 100; i++) {
        check(aclnnAddGetWorkspaceSize(o->a, o->y, o->alpha, o->b, &ws, &ex), "aclnnAddGetWorkspaceSize");
        check(aclnnAdd(NULL, 0, ex, stream), "aclnnAdd");
        check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    }
    return (now_ns() - t0) / 100;
}

/* `launches` 16-element sums to a 0-d result, both phases each, then one synchronisation: ns per
 * launch. */
static double time_sum_chain(const operands *o, int launches)
{
    int64_t axis = 0;
    aclIntArray *dims = aclCreateIntArray(&axis, 1);
    aclTensor *scalar = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, o->db);
    uint64_t ws;
    aclOpExecutor *ex;
    double t0 = now_ns();
    for (int i = 0; i < launches; i++) {
        check(aclnnReduceSumGetWorkspaceSize(o->a, dims, false, ACL_FLOAT, scalar, &ws, &ex),
              "aclnnReduceSumGetWorkspaceSize");
        check(aclnnReduceSum(NULL, 0, ex, stream), "aclnnReduceSum");
    }
    check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    double t1 = now_ns();
    aclDestroyTensor(scalar);
    aclDestroyIntArray(dims);
    return (t1 - t0) / launches;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *name, double *samples, const char *unit)
{
    qsort(samples, ROUNDS, sizeof *samples, by_value);
    printf("%-10s best %8.0f  median %8.0f  %s\n", name, samples[0], samples[ROUNDS / 2], unit);
}

int main(int argc, char **argv)
{
    int launches = argc > 1 ? atoi(argv[1]) : 20000;
    check(aclInit(NULL), "aclInit");
    check(aclrtSetDevice(0), "aclrtSetDevice");
    check(aclrtCreateStream(&stream), "aclrtCreateStream");
    operands small = make_operands(16), kilo = make_operands(1024);
    double p1[ROUNDS], p2[ROUNDS], chain[ROUNDS], fresh[ROUNDS], cpu[ROUNDS], cpu_fresh[ROUNDS], trip[ROUNDS], sum1[ROUNDS];
    for (int r = -1; r < ROUNDS; r++) { /* round -1 warms up */
        double a, b, c, d, e, f, g, h;
        time_phases(&small, &a, &b);
        c = time_chain(&small, launches, false, &e);
        d = time_chain(&small, launches, true, &f);
        g = time_round_trip(&kilo);
        h = time_sum_chain(&small, launches);
        if (r < 0) continue;
        p1[r] = a, p2[r] = b, chain[r] = c, fresh[r] = d, cpu[r] = e, cpu_fresh[r] = f, trip[r] = g, sum1[r] = h;
    }
    printf("npusim aclnnAdd, float32[16], %d dependent launches per round, %d rounds\n", launches, ROUNDS);
    report("phase1", p1, "ns/launch");
    report("phase2", p2, "ns/launch");
    report("chain", chain, "ns/launch");
    report("chain cpu", cpu, "ns of CPU/launch (all threads)");
    report("+tensor", fresh, "ns/launch");
    report("+tensor cpu", cpu_fresh, "ns of CPU/launch (all threads)");
    report("add+sync", trip, "ns per 1 K add + aclrtSynchronizeStream");
    report("sum chain", sum1, "ns/launch (aclnnReduceSum, 16 -> 0-d)");
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
