/* Harness for running the vendor documents' sample snippets unmodified: every AscendCL call
 * they make is wrapped (by macros defined after the wrappers) so that a non-zero return code,
 * and every byte a copy delivers, is checked. Failures are counted and printed; main() exits
 * non-zero when any check failed. */
#ifndef SEED_HARNESS_H
#define SEED_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

static __attribute__((unused)) int g_failures;

#define FAIL(...) do { fprintf(stderr, "FAIL line %d: ", __LINE__); fprintf(stderr, __VA_ARGS__); \
                       fputc('\n', stderr); g_failures++; } while (0)

static __attribute__((unused)) aclError check_ok(aclError rc, const char *expr, int line)
{
    if (rc != ACL_SUCCESS) {
        const char *msg = aclGetRecentErrMsg();
        fprintf(stderr, "FAIL line %d: %s returned %d (%s)\n", line, expr, rc, msg ? msg : "no message");
        g_failures++;
    }
    return rc;
}

/* The bytes ReadFile loads: a position-dependent pattern that no zeroed or unwritten buffer
 * could match by chance. */
static __attribute__((unused)) unsigned char pattern_byte(size_t i) { return (unsigned char)((i * 2654435761u) >> 13) ^ 0x5a; }

/* What copied data must equal: -1 for the ReadFile pattern, else every byte this value
 * (a sample that fills memory with aclrtMemset sets it in its elided lines). */
static __attribute__((unused)) int g_expected_fill = -1;
static __attribute__((unused)) unsigned char expected_byte(size_t i) { return g_expected_fill < 0 ? pattern_byte(i) : (unsigned char)g_expected_fill; }

static __attribute__((unused)) int is_device_ptr(const void *p)
{
    aclrtPtrAttributes attr;
    return aclrtPointerGetAttributes(p, &attr) == ACL_SUCCESS &&
           attr.location.type == ACL_MEM_LOCATION_TYPE_DEVICE;
}

/* Reads n bytes at p (host or device) into a malloc'ed buffer. */
static __attribute__((unused)) unsigned char *read_back(const void *p, size_t n)
{
    unsigned char *buf = (unsigned char *)malloc(n ? n : 1);
    if (is_device_ptr(p)) check_ok(aclrtMemcpy(buf, n, p, n, ACL_MEMCPY_DEVICE_TO_HOST), "read_back", __LINE__);
    else memcpy(buf, p, n);
    return buf;
}

static __attribute__((unused)) void expect_pattern(const void *p, size_t n, const char *what, int line)
{
    unsigned char *buf = read_back(p, n);
    for (size_t i = 0; i < n; i++)
        if (buf[i] != expected_byte(i)) {
            fprintf(stderr, "FAIL line %d: %s byte %zu is 0x%02x, expected 0x%02x\n", line, what, i,
                    buf[i], expected_byte(i));
            g_failures++;
            break;
        }
    free(buf);
}

/* The samples' placeholder: fills host or device memory with the pattern. */
static __attribute__((unused)) const char *fileName = "input.bin";
static __attribute__((unused)) void ReadFile(const char *name, void *ptr, size_t size)
{
    (void)name;
    unsigned char *buf = (unsigned char *)malloc(size);
    for (size_t i = 0; i < size; i++) buf[i] = pattern_byte(i);
    if (is_device_ptr(ptr)) check_ok(aclrtMemcpy(ptr, size, buf, size, ACL_MEMCPY_HOST_TO_DEVICE), "ReadFile", __LINE__);
    else memcpy(ptr, buf, size);
    free(buf);
}

/* Synchronous copies are verified right after the call; asynchronous ones at the next
 * synchronisation of their stream. */
typedef struct { void *dst; size_t n; aclrtStream stream; int line; } pending_copy;
static pending_copy g_pending[16];
static __attribute__((unused)) int g_npending;
static __attribute__((unused)) int g_copies_verified;

static __attribute__((unused)) aclError checked_memcpy(void *dst, size_t destMax, const void *src, size_t count,
                               aclrtMemcpyKind kind, int line)
{
    aclError rc = check_ok(aclrtMemcpy(dst, destMax, src, count, kind), "aclrtMemcpy", line);
    if (rc == ACL_SUCCESS) { expect_pattern(dst, count, "aclrtMemcpy dst", line); g_copies_verified++; }
    return rc;
}

static __attribute__((unused)) aclError checked_memcpy_async(void *dst, size_t destMax, const void *src, size_t count,
                                     aclrtMemcpyKind kind, aclrtStream stream, int line)
{
    aclError rc = check_ok(aclrtMemcpyAsync(dst, destMax, src, count, kind, stream), "aclrtMemcpyAsync", line);
    if (rc == ACL_SUCCESS && g_npending < 16) g_pending[g_npending++] = (pending_copy){dst, count, stream, line};
    return rc;
}

static __attribute__((unused)) aclError checked_sync_stream(aclrtStream stream, int line)
{
    aclError rc = check_ok(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream", line);
    int kept = 0;
    for (int i = 0; i < g_npending; i++) {
        if (g_pending[i].stream == stream) {
            expect_pattern(g_pending[i].dst, g_pending[i].n, "aclrtMemcpyAsync dst", g_pending[i].line);
            g_copies_verified++;
        } else {
            g_pending[kept++] = g_pending[i];
        }
    }
    g_npending = kept;
    return rc;
}

#define aclrtMemcpy(dst, destMax, src, count, kind) checked_memcpy(dst, destMax, src, count, kind, __LINE__)
#define aclrtMemcpyAsync(dst, destMax, src, count, kind, stream) \
    checked_memcpy_async(dst, destMax, src, count, kind, stream, __LINE__)
#define aclrtSynchronizeStream(stream) checked_sync_stream(stream, __LINE__)
#define aclInit(...) check_ok(aclInit(__VA_ARGS__), "aclInit", __LINE__)
#define aclFinalize() check_ok(aclFinalize(), "aclFinalize", __LINE__)
#define aclrtSetDevice(...) check_ok(aclrtSetDevice(__VA_ARGS__), "aclrtSetDevice", __LINE__)
#define aclrtResetDevice(...) check_ok(aclrtResetDevice(__VA_ARGS__), "aclrtResetDevice", __LINE__)
#define aclrtMalloc(...) check_ok(aclrtMalloc(__VA_ARGS__), "aclrtMalloc", __LINE__)
#define aclrtMallocHost(...) check_ok(aclrtMallocHost(__VA_ARGS__), "aclrtMallocHost", __LINE__)
#define aclrtFree(...) check_ok(aclrtFree(__VA_ARGS__), "aclrtFree", __LINE__)
#define aclrtFreeHost(...) check_ok(aclrtFreeHost(__VA_ARGS__), "aclrtFreeHost", __LINE__)
#define aclrtMemset(...) check_ok(aclrtMemset(__VA_ARGS__), "aclrtMemset", __LINE__)
#define aclrtCreateStream(...) check_ok(aclrtCreateStream(__VA_ARGS__), "aclrtCreateStream", __LINE__)
#define aclrtDestroyStream(...) check_ok(aclrtDestroyStream(__VA_ARGS__), "aclrtDestroyStream", __LINE__)
#define aclrtCreateEventExWithFlag(...) check_ok(aclrtCreateEventExWithFlag(__VA_ARGS__), "aclrtCreateEventExWithFlag", __LINE__)
#define aclrtRecordEvent(...) check_ok(aclrtRecordEvent(__VA_ARGS__), "aclrtRecordEvent", __LINE__)
#define aclrtSynchronizeEvent(...) check_ok(aclrtSynchronizeEvent(__VA_ARGS__), "aclrtSynchronizeEvent", __LINE__)
#define aclrtStreamWaitEvent(...) check_ok(aclrtStreamWaitEvent(__VA_ARGS__), "aclrtStreamWaitEvent", __LINE__)
#define aclrtDestroyEvent(...) check_ok(aclrtDestroyEvent(__VA_ARGS__), "aclrtDestroyEvent", __LINE__)
#define aclrtSynchronizeDevice() check_ok(aclrtSynchronizeDevice(), "aclrtSynchronizeDevice", __LINE__)
#define aclrtDeviceCanAccessPeer(...) check_ok(aclrtDeviceCanAccessPeer(__VA_ARGS__), "aclrtDeviceCanAccessPeer", __LINE__)
#define aclrtDeviceEnablePeerAccess(...) check_ok(aclrtDeviceEnablePeerAccess(__VA_ARGS__), "aclrtDeviceEnablePeerAccess", __LINE__)

#endif /* SEED_HARNESS_H */
