/* The launch paths of small operators: tiny tasks run on the launching thread whenever their
 * stream is idle (NPUSIM_TASK_TINY), executors recycled between threads, the per-thread
 * memory of recently checked live blocks, and the stream worker's bounded spin (it blocks
 * when idle, and work submitted after that still runs), and the single-call path of small
 * element-wise operators against the general one (contiguous, scalar operand, strided, 0-d,
 * in place, partly overlapping). Prints "aclnn_launch_paths ok". */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "aclnn_check.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"

#define SMALL 16
#define LARGE (1 << 20) /* a long task: queued to the stream's worker */

static aclScalar *one;

static aclTensor *vector(void *data, int64_t n)
{
    int64_t shape[1] = {n}, strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

static void *filled(int64_t n, float value)
{
    float *host = new float[n];
    for (int64_t i = 0; i < n; i++) host[i] = value;
    void *dev = dev_from(host, (size_t)n * sizeof(float));
    delete[] host;
    return dev;
}

/* Both phases of out = a + b on `s`; the code of the first failing phase, else 0. */
static int add(aclrtStream s, void *a, void *b, void *out, int64_t n)
{
    aclTensor *ta = vector(a, n), *tb = vector(b, n), *tout = vector(out, n);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    int rc = aclnnAddGetWorkspaceSize(ta, tb, one, tout, &ws, &ex);
    if (rc == 0) rc = aclnnAdd(NULL, ws, ex, s);
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(tout);
    return rc;
}

/* Whether the first `n` floats of device buffer `dev` all equal `value`. */
static bool all_equal(void *dev, int64_t n, float value)
{
    float *host = new float[n];
    to_host(host, dev, (size_t)n * sizeof(float));
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++) ok = host[i] == value;
    delete[] host;
    return ok;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* A freed block that was checked (and remembered) before is reported, also when a smaller block
 * now starts at the same address (an overrun), and a remembered block of device 0 is refused
 * on device 1. Runs first: with no freed holes in the region, the small block lands where the
 * large one was. */
static void test_remembered_blocks_are_checked_again(void)
{
    void *y = filled(SMALL, 1.0f), *out = filled(1024, 0.0f);
    void *big = filled(1024, 2.0f);
    EXPECT(add(stream, big, big, out, 1024) == 0, "add: %s", aclGetRecentErrMsg());
    EXPECT(aclrtSynchronizeStream(stream) == 0, "sync: %s", aclGetRecentErrMsg());
    EXPECT(all_equal(out, 1024, 4.0f), "1 K add");
    EXPECT_OK(aclrtFree(big));
    EXPECT_CODE(add(stream, big, big, out, 1024), ACL_ERROR_RT_PARAM_INVALID);
    void *small = NULL;
    EXPECT_OK(aclrtMalloc(&small, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT(small == big, "first fit reuses the freed block's address (%p, %p)", small, big);
    EXPECT_CODE(add(stream, small, small, out, 1024), ACL_ERROR_RT_PARAM_INVALID); /* overrun */
    EXPECT(add(stream, small, y, out, SMALL) == 0, "16 of the new block: %s", aclGetRecentErrMsg());
    EXPECT(aclrtSynchronizeStream(stream) == 0, "sync: %s", aclGetRecentErrMsg());

    aclrtStream other = NULL;
    EXPECT_OK(aclrtSetDevice(1));
    EXPECT_OK(aclrtCreateStream(&other));
    EXPECT_CODE(add(other, y, y, out, SMALL), ACL_ERROR_RT_PARAM_INVALID); /* device 0's memory */
    EXPECT_OK(aclrtDestroyStream(other));
    EXPECT_OK(aclrtSetDevice(0));
    aclrtFree(small);
    aclrtFree(y);
    aclrtFree(out);
}

typedef struct { aclrtStream stream; void *block; int launches; int rc; } block_user;

static void *launch_on_block(void *arg)
{
    block_user *u = (block_user *)arg;
    aclrtSetDevice(0);
    for (int i = 0; i < u->launches && u->rc == 0; i++) u->rc = add(u->stream, u->block, u->block, u->block, SMALL);
    if (u->rc == 0) u->rc = aclrtSynchronizeStream(u->stream);
    return NULL;
}

/* A block one thread remembers as live, freed by another thread, is refused to the first. */
static void test_free_on_another_thread_is_seen(void)
{
    block_user u = {stream, filled(SMALL, 1.0f), 3, 0};
    pthread_t t;
    pthread_create(&t, NULL, launch_on_block, &u);
    pthread_join(t, NULL);
    EXPECT(u.rc == 0, "launches before the free: %d", u.rc);
    EXPECT(all_equal(u.block, SMALL, 8.0f), "three doublings");
    EXPECT_OK(aclrtFree(u.block));
    pthread_create(&t, NULL, launch_on_block, &u);
    pthread_join(t, NULL);
    EXPECT(u.rc == ACL_ERROR_RT_PARAM_INVALID, "launch on the freed block returned %d", u.rc);
}

/* 1000 dependent tiny adds without a synchronisation (run on this thread), then one. */
static void test_chain_of_tiny_adds(void)
{
    void *a = filled(SMALL, 1.0f), *b = filled(SMALL, 0.0f), *y = filled(SMALL, 1.0f);
    for (int i = 0; i < 1000; i++)
        EXPECT(add(stream, i & 1 ? b : a, y, i & 1 ? a : b, SMALL) == 0, "add %d: %s", i, aclGetRecentErrMsg());
    EXPECT(aclrtSynchronizeStream(stream) == 0, "sync: %s", aclGetRecentErrMsg());
    EXPECT(all_equal(a, SMALL, 1001.0f), "chain of 1000 adds");
    aclrtFree(a);
    aclrtFree(b);
    aclrtFree(y);
}

/* A tiny add that reads what a queued long add writes runs after it, not on the launching thread
 * ahead of it; so do the tiny adds after it, handed to the awake worker or (beyond the first
 * few in a row) run on the launching thread. */
static void test_tiny_after_long_keeps_stream_order(void)
{
    void *x = filled(LARGE, 1.5f), *big = filled(LARGE, 0.0f), *small = filled(SMALL, 0.0f);
    for (int round = 1; round <= 10; round++) {
        EXPECT(add(stream, x, x, big, LARGE) == 0, "long add: %s", aclGetRecentErrMsg());
        EXPECT(add(stream, big, x, small, SMALL) == 0, "tiny add: %s", aclGetRecentErrMsg());
        EXPECT(add(stream, x, small, x, SMALL) == 0, "tiny add: %s", aclGetRecentErrMsg());
        for (int i = 0; i < 40; i++) /* small += small: 2^40 small, exact in float */
            EXPECT(add(stream, small, small, small, SMALL) == 0, "tiny add %d: %s", i, aclGetRecentErrMsg());
        EXPECT(aclrtSynchronizeStream(stream) == 0, "sync: %s", aclGetRecentErrMsg());
        /* x[:16] grows by 3 x[:16] each round: 1.5 * 4^round; small was 3 x[:16] before */
        float head = 1.5f;
        for (int i = 0; i < round; i++) head *= 4.0f;
        EXPECT(all_equal(x, SMALL, head), "round %d: x[:16] == %g", round, head);
        EXPECT(all_equal(small, SMALL, head / 4.0f * 3.0f * 1099511627776.0f), "round %d: small", round);
    }
    aclrtFree(x);
    aclrtFree(big);
    aclrtFree(small);
}

/* After a long idle time the worker is blocked, not spinning; work queued then still runs, and
 * synchronising an idle stream returns at once. */
static void test_idle_worker_blocks_and_wakes(void)
{
    void *x = filled(LARGE, 1.0f), *out = filled(LARGE, 0.0f);
    EXPECT(add(stream, x, x, out, LARGE) == 0, "long add: %s", aclGetRecentErrMsg());
    EXPECT(aclrtSynchronizeStream(stream) == 0, "sync: %s", aclGetRecentErrMsg());
    double cpu = cpu_seconds();
    usleep(200 * 1000);
    double idle_cpu = cpu_seconds() - cpu;
    EXPECT(idle_cpu < 0.05, "the process used %.3f s of CPU in 0.2 s of idling: a worker spins", idle_cpu);
    EXPECT(aclrtSynchronizeStream(stream) == 0, "sync of an idle stream: %s", aclGetRecentErrMsg());
    for (int round = 0; round < 3; round++) {
        usleep(50 * 1000);
        EXPECT(add(stream, out, x, out, LARGE) == 0, "long add after idling: %s", aclGetRecentErrMsg());
        EXPECT(aclrtSynchronizeStream(stream) == 0, "sync: %s", aclGetRecentErrMsg());
    }
    EXPECT(all_equal(out, LARGE, 5.0f), "2 + 3 x 1");
    aclrtFree(x);
    aclrtFree(out);
}

typedef struct { aclrtStream stream; void *a, *b, *y; int rc; } chain_worker;

static void *run_chain(void *arg)
{
    chain_worker *w = (chain_worker *)arg;
    aclrtSetDevice(0);
    for (int i = 0; i < 2000 && w->rc == 0; i++)
        w->rc = add(w->stream, i & 1 ? w->b : w->a, w->y, i & 1 ? w->a : w->b, i % 3 ? SMALL : 4096);
    if (w->rc == 0) w->rc = aclrtSynchronizeStream(w->stream);
    return NULL;
}

/* Threads launching on their own streams recycle each other's executors (freed by whichever
 * thread ran the task): every result is right. */
static void test_executors_recycled_across_threads(void)
{
    chain_worker w[3];
    pthread_t t[3];
    for (int k = 0; k < 3; k++) {
        w[k].rc = 0;
        EXPECT_OK(aclrtCreateStream(&w[k].stream));
        w[k].a = filled(4096, (float)k);
        w[k].b = filled(4096, 0.0f);
        w[k].y = filled(4096, 1.0f);
        pthread_create(&t[k], NULL, run_chain, &w[k]);
    }
    for (int k = 0; k < 3; k++) {
        pthread_join(t[k], NULL);
        EXPECT(w[k].rc == 0, "thread %d: %d", k, w[k].rc);
        EXPECT(all_equal(w[k].a, SMALL, (float)k + 2000.0f), "thread %d's chain", k);
        aclrtDestroyStream(w[k].stream);
        aclrtFree(w[k].a);
        aclrtFree(w[k].b);
        aclrtFree(w[k].y);
    }
}

typedef struct { aclOpExecutor *ex; int rc; } handed_over;

static void *launch_handed_over(void *arg)
{
    handed_over *h = (handed_over *)arg;
    aclrtSetDevice(0);
    h->rc = aclnnAdd(NULL, 0, h->ex, stream);
    if (h->rc == 0) h->rc = aclrtSynchronizeStream(stream);
    return NULL;
}

/* An executor built on one thread and launched on another runs once; launched again after
 * many more executors were made and freed, it is refused (not some recycled executor). */
static void test_executor_built_and_launched_on_different_threads(void)
{
    void *a = filled(SMALL, 2.0f), *out = filled(SMALL, 0.0f);
    aclTensor *ta = vector(a, SMALL), *tout = vector(out, SMALL);
    handed_over h = {NULL, 0};
    uint64_t ws = 0;
    EXPECT_OK(aclnnAddGetWorkspaceSize(ta, ta, one, tout, &ws, &h.ex));
    pthread_t t;
    pthread_create(&t, NULL, launch_handed_over, &h);
    pthread_join(t, NULL);
    EXPECT(h.rc == 0, "launch on another thread: %d", h.rc);
    EXPECT(all_equal(out, SMALL, 4.0f), "2 + 2");
    for (int i = 0; i < 200; i++) EXPECT(add(stream, a, a, out, SMALL) == 0, "add %d", i);
    EXPECT_CODE(aclnnAdd(NULL, 0, h.ex, stream), ACLNN_ERR_PARAM_INVALID);
    EXPECT(aclrtSynchronizeStream(stream) == 0, "sync: %s", aclGetRecentErrMsg());
    aclDestroyTensor(ta);
    aclDestroyTensor(tout);
    aclrtFree(a);
    aclrtFree(out);
}

/* A view of `n` floats of `data` starting `offset` elements in, every `step`-th. */
static aclTensor *strided(void *data, int64_t n, int64_t offset, int64_t step, int64_t storage)
{
    int64_t shape[1] = {n}, strides[1] = {step}, storage_shape[1] = {storage};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, offset, ACL_FORMAT_ND, storage_shape, 1, data);
}

static void expect_floats(void *dev, const float *want, int64_t n, const char *what)
{
    float got[64];
    to_host(got, dev, (size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            EXPECT(got[i] == want[i], "%s: [%lld] = %g, expected %g", what, (long long)i, got[i], want[i]);
            return;
        }
}

/* Phase 2 of an add-family operator whose phase 1 returned `rc` and the executor *ex (read
 * after phase 1 ran: argument order is unspecified), synchronised. */
static void launch(int rc, aclOpExecutor *const *ex,
                   aclnnStatus (*second)(void *, uint64_t, aclOpExecutor *, aclrtStream), const char *what)
{
    EXPECT(rc == 0, "%s phase 1: %d %s", what, rc, aclGetRecentErrMsg());
    if (rc == 0) EXPECT(second(NULL, 0, *ex, stream) == 0, "%s phase 2: %s", what, aclGetRecentErrMsg());
    EXPECT(aclrtSynchronizeStream(stream) == 0, "%s sync: %s", what, aclGetRecentErrMsg());
}

/* Small adds in the layouts that take the single-call path and in those that need the general
 * iterator, against values computed here. */
static void test_small_operation_layouts(void)
{
    float x[33], y[33], want[33];
    for (int i = 0; i < 33; i++) x[i] = (float)i * 0.5f - 3.0f, y[i] = 10.0f - (float)i;
    void *dx = dev_from(x, sizeof x), *dy = dev_from(y, sizeof y), *dout = filled(33, 0.0f);
    uint64_t ws;
    aclOpExecutor *ex;
    float two_value = 2.0f, half_value = 0.5f;
    aclScalar *two = aclCreateScalar(&two_value, ACL_FLOAT), *half = aclCreateScalar(&half_value, ACL_FLOAT);

    aclTensor *tx = strided(dx, 16, 0, 1, 33), *ty = strided(dy, 16, 0, 1, 33), *tout = strided(dout, 16, 0, 1, 33);
    launch(aclnnAddGetWorkspaceSize(tx, ty, two, tout, &ws, &ex), &ex, aclnnAdd, "contiguous");
    for (int i = 0; i < 16; i++) want[i] = x[i] + 2.0f * y[i];
    expect_floats(dout, want, 16, "contiguous x + 2 y");

    launch(aclnnAddsGetWorkspaceSize(tx, half, two, tout, &ws, &ex), &ex, aclnnAdds, "scalar");
    for (int i = 0; i < 16; i++) want[i] = x[i] + 1.0f;
    expect_floats(dout, want, 16, "x + 2 * 0.5");

    aclTensor *every_other = strided(dx, 16, 1, 2, 33);
    launch(aclnnAddGetWorkspaceSize(every_other, ty, one, tout, &ws, &ex), &ex, aclnnAdd, "strided");
    for (int i = 0; i < 16; i++) want[i] = x[1 + 2 * i] + y[i];
    expect_floats(dout, want, 16, "x[1::2] + y");

    int64_t square[2] = {4, 4}, rows[2] = {4, 1}, columns[2] = {1, 4}, storage[1] = {33};
    aclTensor *x44 = aclCreateTensor(square, 2, ACL_FLOAT, rows, 0, ACL_FORMAT_ND, storage, 1, dx);
    aclTensor *transposed = aclCreateTensor(square, 2, ACL_FLOAT, columns, 0, ACL_FORMAT_ND, storage, 1, dy);
    aclTensor *out44 = aclCreateTensor(square, 2, ACL_FLOAT, rows, 0, ACL_FORMAT_ND, storage, 1, dout);
    launch(aclnnAddGetWorkspaceSize(x44, transposed, one, out44, &ws, &ex), &ex, aclnnAdd, "transposed");
    for (int i = 0; i < 16; i++) want[i] = x[i] + y[(i % 4) * 4 + i / 4];
    expect_floats(dout, want, 16, "x.reshape(4, 4) + y.reshape(4, 4).T");

    aclTensor *x0 = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 3, ACL_FORMAT_ND, storage, 1, dx);
    aclTensor *y0 = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 4, ACL_FORMAT_ND, storage, 1, dy);
    aclTensor *out0 = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, dout);
    launch(aclnnAddGetWorkspaceSize(x0, y0, one, out0, &ws, &ex), &ex, aclnnAdd, "0-d");
    want[0] = x[3] + y[4];
    expect_floats(dout, want, 1, "0-d x[3] + y[4]");

    launch(aclnnAddGetWorkspaceSize(x0, ty, one, tout, &ws, &ex), &ex, aclnnAdd, "0-d tensor + vector");
    for (int i = 0; i < 16; i++) want[i] = x[3] + y[i];
    expect_floats(dout, want, 16, "x[3] + y");

    launch(aclnnInplaceAddGetWorkspaceSize(tx, ty, one, &ws, &ex), &ex, aclnnInplaceAdd, "in place");
    for (int i = 0; i < 16; i++) want[i] = x[i] + y[i];
    expect_floats(dx, want, 16, "x += y");

    /* out = x[1:17] reads x[0:16] as it was (NumPy's rule for partly overlapping operands) */
    float before[17];
    to_host(before, dx, sizeof before);
    aclTensor *shifted = strided(dx, 16, 1, 1, 33);
    launch(aclnnAddGetWorkspaceSize(tx, ty, one, shifted, &ws, &ex), &ex, aclnnAdd, "overlap");
    want[0] = before[0];
    for (int i = 0; i < 16; i++) want[i + 1] = before[i] + y[i];
    expect_floats(dx, want, 17, "x[1:17] = x[0:16] + y");

    aclTensor *all[] = {tx, ty, tout, every_other, x44, transposed, out44, x0, y0, out0, shifted};
    for (aclTensor *t : all) aclDestroyTensor(t);
    aclDestroyScalar(two);
    aclDestroyScalar(half);
    aclrtFree(dx);
    aclrtFree(dy);
    aclrtFree(dout);
}

int main(void)
{
    if (aclnn_test_setup()) return 1;
    float value = 1.0f;
    one = aclCreateScalar(&value, ACL_FLOAT);
    test_remembered_blocks_are_checked_again();
    test_free_on_another_thread_is_seen();
    test_chain_of_tiny_adds();
    test_tiny_after_long_keeps_stream_order();
    test_idle_worker_blocks_and_wakes();
    test_executors_recycled_across_threads();
    test_executor_built_and_launched_on_different_threads();
    test_small_operation_layouts();
    aclDestroyScalar(one);
    return aclnn_test_finish("aclnn_launch_paths");
}
