/* Shared by the aclnn C++ test programs: rt_check.h's EXPECT, device copies, the two-phase launch
 * RUN(op, args...) on `stream` (synchronised after), and the device set-up and tear-down of main().
 * main() returns aclnn_test_finish("name"): 0 and "name ok" on stdout when every check passed. */
#ifndef ACLNN_CHECK_H
#define ACLNN_CHECK_H

#include "rt_check.h"

static aclrtStream stream; /* the stream RUN launches on (aclnn_test_setup creates it) */

/* A device copy of `bytes` host bytes (one byte allocated for an empty copy; `host` may be NULL). */
static __attribute__((unused)) void *dev_from(const void *host, size_t bytes)
{
    void *d = NULL;
    aclrtMalloc(&d, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host && bytes) aclrtMemcpy(d, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    return d;
}

static __attribute__((unused)) void to_host(void *host, void *dev, size_t bytes)
{
    EXPECT(aclrtMemcpy(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "download: %s",
           aclGetRecentErrMsg());
}

#define RUN(op, ...)                                                                           \
    do {                                                                                       \
        uint64_t ws_ = 0;                                                                      \
        aclOpExecutor *ex_ = NULL;                                                             \
        int rc_ = op##GetWorkspaceSize(__VA_ARGS__, &ws_, &ex_);                               \
        EXPECT(rc_ == 0, #op " phase 1: %d %s", rc_, aclGetRecentErrMsg());                    \
        if (rc_ == 0) {                                                                        \
            rc_ = op(NULL, ws_, ex_, stream);                                                  \
            EXPECT(rc_ == 0, #op " phase 2: %d %s", rc_, aclGetRecentErrMsg());                \
        }                                                                                      \
        EXPECT(aclrtSynchronizeStream(stream) == 0, #op " sync: %s", aclGetRecentErrMsg());    \
    } while (0)

/* aclInit, device 0 and `stream`; 0 on success, else 1 with the runtime's message. */
static __attribute__((unused)) int aclnn_test_setup(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    return 0;
}

/* Releases what aclnn_test_setup made and reports: main()'s exit status. */
static __attribute__((unused)) int aclnn_test_finish(const char *name)
{
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (g_check_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_check_failures);
        return 1;
    }
    printf("%s ok\n", name);
    return 0;
}

#endif /* ACLNN_CHECK_H */
