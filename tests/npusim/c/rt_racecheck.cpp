/* npusim's stream race detector (include/npusim_racecheck.h) on seeded races and on the same
 * programs ordered correctly: an aclnnAdd writing on one stream and a copy reading on another
 * with no event; an event recorded on the wrong stream; a write after a read on another
 * stream; two kernels writing one buffer from two streams; a graph replay racing eager work;
 * the host's aclrtMemcpy reading a pending write. Each race must fail with 107000 and a
 * report naming both operations; the ordered versions must succeed; warn mode runs the
 * operation and keeps the report. Prints "rt_racecheck: N checks passed". */
#include <string.h>

#include "rt_check.h"
#include "npusim_racecheck.h"
#include "aclnnop/aclnn_add.h"

enum { N = 1024, BYTES = N * sizeof(float) };

static aclrtStream a, b, c;
static float *x, *y, *out, *host, *host2; /* host2: a second stream's copies land apart */
static aclTensor *tx, *ty, *tout;
static aclScalar *one;
static int g_found, g_seeded;

static aclTensor *vector(void *data)
{
    int64_t shape[1] = {N}, strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

/* out = x + y on stream s (the aclnn two-phase call). */
static aclError add(aclrtStream s)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus rc = aclnnAddGetWorkspaceSize(tx, ty, one, tout, &ws, &ex);
    return rc ? rc : aclnnAdd(NULL, 0, ex, s);
}

/* A seeded race: `rc` must be the race error, with a report naming both operations. */
static void expect_race(aclError rc, const char *first, const char *second, int line)
{
    g_seeded++;
    const char *msg = aclGetRecentErrMsg();
    bool named = msg && strstr(msg, "data race") && strstr(msg, first) && strstr(msg, second);
    EXPECT(rc == ACL_ERROR_RT_PARAM_INVALID && named, "line %d: race not reported as expected (rc %d: %s)",
           line, rc, msg ? msg : "none");
    if (rc == ACL_ERROR_RT_PARAM_INVALID && named) g_found++;
}

static void sync_all(void)
{
    EXPECT_OK(aclrtSynchronizeStream(a));
    EXPECT_OK(aclrtSynchronizeStream(b));
    EXPECT_OK(aclrtSynchronizeStream(c));
}

static void seeded_races(void)
{
    /* 1. a kernel writes on a, a copy reads on b, no event */
    EXPECT_OK(add(a));
    expect_race(aclrtMemcpyAsync(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, b), "aclnnAdd",
                "aclrtMemcpyAsync", __LINE__);
    sync_all();
    /* 2. the event is recorded on the wrong stream (c instead of a) */
    aclrtEvent e;
    EXPECT_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    EXPECT_OK(add(a));
    EXPECT_OK(aclrtRecordEvent(e, c));
    EXPECT_OK(aclrtStreamWaitEvent(b, e));
    expect_race(aclrtMemcpyAsync(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, b), "aclnnAdd",
                "aclrtMemcpyAsync", __LINE__);
    sync_all();
    /* 3. a write on b after a read on a (the read may still see the new bytes) */
    EXPECT_OK(aclrtMemcpyAsync(host, BYTES, x, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, a));
    expect_race(aclrtMemsetAsync(x, BYTES, 0, BYTES, b), "aclrtMemcpyAsync", "aclrtMemsetAsync", __LINE__);
    sync_all();
    /* 4. two kernels write one buffer from two streams */
    EXPECT_OK(add(a));
    expect_race(add(b), "aclnnAdd", "writing", __LINE__);
    sync_all();
    /* 5. a graph replay racing eager work: the replay writes `out`, an eager copy on a reads it */
    aclmdlRI graph;
    EXPECT_OK(aclmdlRICaptureBegin(c, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_OK(add(c));
    EXPECT_OK(aclmdlRICaptureEnd(c, &graph));
    EXPECT_OK(aclrtMemcpyAsync(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, a));
    expect_race(aclmdlRIExecuteAsync(graph, c), "aclrtMemcpyAsync", "aclmdlRIExecuteAsync", __LINE__);
    sync_all();
    /* 6. the host reads (aclrtMemcpy) what a stream may still be writing */
    EXPECT_OK(add(a));
    expect_race(aclrtMemcpy(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST), "aclnnAdd", "by the host",
                __LINE__);
    sync_all();
    EXPECT_OK(aclmdlRIDestroy(graph));
    EXPECT_OK(aclrtDestroyEvent(e));
}

/* The same programs, ordered: nothing is reported. */
static void ordered_programs(void)
{
    aclrtEvent e;
    EXPECT_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    EXPECT_OK(add(a));                              /* 1, 2: an event recorded after the write */
    EXPECT_OK(aclrtRecordEvent(e, a));
    EXPECT_OK(aclrtStreamWaitEvent(b, e));
    EXPECT_OK(aclrtMemcpyAsync(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, b));
    EXPECT_OK(aclrtMemcpyAsync(host2, BYTES, x, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, a)); /* 3 */
    EXPECT_OK(aclrtSynchronizeStream(a));
    EXPECT_OK(aclrtMemsetAsync(x, BYTES, 0, BYTES, b));
    EXPECT_OK(aclrtSynchronizeStream(b));
    EXPECT_OK(add(a));                              /* 4: the host learns by a query */
    aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
    while (status != ACL_STREAM_STATUS_COMPLETE) EXPECT_OK(aclrtStreamQuery(a, &status));
    EXPECT_OK(add(b));
    EXPECT_OK(aclrtSynchronizeDevice());
    aclmdlRI graph;                                 /* 5: the replay after the eager read */
    EXPECT_OK(aclmdlRICaptureBegin(c, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_OK(add(c));
    EXPECT_OK(aclmdlRICaptureEnd(c, &graph));
    EXPECT_OK(aclrtMemcpyAsync(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, a));
    EXPECT_OK(aclrtRecordEvent(e, a));
    EXPECT_OK(aclrtStreamWaitEvent(c, e));
    EXPECT_OK(aclmdlRIExecuteAsync(graph, c));
    EXPECT_OK(aclrtSynchronizeStream(c));
    EXPECT_OK(add(a));                              /* 6: the host waits for the event first */
    EXPECT_OK(aclrtRecordEvent(e, a));
    EXPECT_OK(aclrtSynchronizeEvent(e));
    EXPECT_OK(aclrtMemcpy(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT_OK(aclmdlRIDestroy(graph));
    EXPECT_OK(aclrtDestroyEvent(e));
    /* Memory freed and allocated again after a synchronisation is new memory. */
    void *fresh;
    EXPECT_OK(add(a));
    EXPECT_OK(aclrtSynchronizeStream(a));
    EXPECT_OK(aclrtFree(out));
    EXPECT_OK(aclrtMalloc(&fresh, BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMemsetAsync(fresh, BYTES, 0, BYTES, b));
    EXPECT_OK(aclrtSynchronizeStream(b));
    out = (float *)fresh;
    aclDestroyTensor(tout);
    tout = vector(out);
}

static void warn_mode(void)
{
    EXPECT(npusim_racecheck_set_mode(NPUSIM_RACECHECK_WARN) == NPUSIM_RACECHECK_ERROR, "previous mode");
#ifndef __SANITIZE_THREAD__
    /* In warn mode the race really runs: ThreadSanitizer would (rightly) report it. */
    EXPECT_OK(add(a));
    EXPECT_OK(aclrtMemcpyAsync(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, b)); /* runs */
    char report[512];
    EXPECT(npusim_racecheck_next_report(report, sizeof report) > 0 && strstr(report, "aclnnAdd"),
           "warn mode keeps the report");
    EXPECT(npusim_racecheck_next_report(report, sizeof report) == 0, "one report only");
    sync_all();
#endif
    EXPECT(npusim_racecheck_set_mode(7) == -1, "an unknown mode is refused");
    EXPECT(npusim_racecheck_set_mode(NPUSIM_RACECHECK_OFF) == NPUSIM_RACECHECK_WARN, "previous mode");
#ifndef __SANITIZE_THREAD__
    EXPECT_OK(add(a));                              /* off: nothing is checked */
    EXPECT_OK(aclrtMemcpyAsync(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, b));
    sync_all();
#endif
}

int main(void)
{
    EXPECT_OK(aclInit(NULL));
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT(npusim_racecheck_set_mode(NPUSIM_RACECHECK_ERROR) >= 0, "error mode");
    EXPECT_OK(aclrtCreateStream(&a));
    EXPECT_OK(aclrtCreateStream(&b));
    EXPECT_OK(aclrtCreateStream(&c));
    EXPECT_OK(aclrtMalloc((void **)&x, BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMalloc((void **)&y, BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMalloc((void **)&out, BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMallocHost((void **)&host, BYTES));
    EXPECT_OK(aclrtMallocHost((void **)&host2, BYTES));
    for (int i = 0; i < N; i++) host[i] = (float)i * 0.5f;
    EXPECT_OK(aclrtMemcpy(x, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtMemcpy(y, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE));
    float alpha = 1.0f;
    one = aclCreateScalar(&alpha, ACL_FLOAT);
    tx = vector(x), ty = vector(y), tout = vector(out);
    seeded_races();
    ordered_programs();
    warn_mode();
    EXPECT(g_found == g_seeded, "seeded races found: %d of %d", g_found, g_seeded);
    printf("seeded races found: %d/%d\n", g_found, g_seeded);
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclDestroyTensor(tout);
    aclDestroyScalar(one);
    EXPECT_OK(aclrtFree(x));
    EXPECT_OK(aclrtFree(y));
    EXPECT_OK(aclrtFree(out));
    EXPECT_OK(aclrtFreeHost(host));
    EXPECT_OK(aclrtDestroyStream(a));
    EXPECT_OK(aclrtDestroyStream(b));
    EXPECT_OK(aclrtDestroyStream(c));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return rt_check_summary("rt_racecheck");
}
