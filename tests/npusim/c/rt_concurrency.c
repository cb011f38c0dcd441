/* Many threads, each with its own stream (and some sharing one device's default stream),
 * doing host -> device -> device -> host round trips of fresh data; every byte is checked. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "rt_check.h"

enum { THREADS = 8, ROUNDS = 200, BYTES = 64 * 1024 };

static atomic_int g_bad;

static void *round_trips(void *arg)
{
    int id = (int)(intptr_t)arg;
    aclrtStream s;
    unsigned char *h_in, *h_out;
    void *d_a, *d_b;
    if (aclrtSetDevice(id % 2) || aclrtCreateStream(&s) || aclrtMallocHost((void **)&h_in, BYTES) ||
        aclrtMallocHost((void **)&h_out, BYTES) || aclrtMalloc(&d_a, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&d_b, BYTES, ACL_MEM_MALLOC_HUGE_FIRST)) {
        atomic_fetch_add(&g_bad, 1);
        return NULL;
    }
    unsigned seed = (unsigned)id * 7919u + 1;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < BYTES; i++) h_in[i] = (unsigned char)(seed = seed * 1103515245u + 12345u) >> 3;
        aclrtStream use = (r % 10 == 9) ? NULL : s; /* now and then the shared default stream */
        if (aclrtMemcpyAsync(d_a, BYTES, h_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, use) ||
            aclrtMemcpyAsync(d_b, BYTES, d_a, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, use) ||
            aclrtMemcpyAsync(h_out, BYTES, d_b, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, use) ||
            aclrtSynchronizeStream(use) || memcmp(h_in, h_out, BYTES) != 0) {
            atomic_fetch_add(&g_bad, 1);
            break;
        }
    }
    aclrtDestroyStream(s);
    aclrtFree(d_a);
    aclrtFree(d_b);
    aclrtFreeHost(h_in);
    aclrtFreeHost(h_out);
    aclrtResetDevice(id % 2);
    return NULL;
}

/* Large copies go through the shared CPU thread pool; several streams at once must still
 * deliver every byte (one uses the pool, the others copy inline). */
enum { BIG = 8 << 20 };

static void *big_copies(void *arg)
{
    int id = (int)(intptr_t)arg;
    aclrtStream s;
    unsigned char *h_in, *h_out;
    void *d;
    if (aclrtSetDevice(0) || aclrtCreateStream(&s) || aclrtMallocHost((void **)&h_in, BIG) ||
        aclrtMallocHost((void **)&h_out, BIG) || aclrtMalloc(&d, BIG, ACL_MEM_MALLOC_HUGE_FIRST)) {
        atomic_fetch_add(&g_bad, 1);
        return NULL;
    }
    for (int r = 0; r < 3; r++) {
        for (size_t i = 0; i < BIG; i++) h_in[i] = (unsigned char)(i * 31u + (unsigned)id * 7u + (unsigned)r);
        memset(h_out, 0, BIG);
        if (aclrtMemcpyAsync(d, BIG, h_in, BIG, ACL_MEMCPY_HOST_TO_DEVICE, s) ||
            aclrtMemcpyAsync(h_out, BIG, d, BIG, ACL_MEMCPY_DEVICE_TO_HOST, s) ||
            aclrtSynchronizeStream(s) || memcmp(h_in, h_out, BIG) != 0 ||
            aclrtMemcpy(h_out, BIG, d, BIG, ACL_MEMCPY_DEVICE_TO_HOST) || memcmp(h_in, h_out, BIG) != 0) {
            atomic_fetch_add(&g_bad, 1);
            break;
        }
    }
    aclrtDestroyStream(s);
    aclrtFree(d);
    aclrtFreeHost(h_in);
    aclrtFreeHost(h_out);
    aclrtResetDevice(0);
    return NULL;
}

/* Copies of at least 128 MiB stream their stores past the caches, block by block on the
 * pool's threads: every byte of an odd-sized copy between unaligned addresses arrives, in
 * each direction, synchronous and asynchronous, and nothing past it is written. */
enum { STREAMED = (128 << 20) + 4099 };

static void streamed_copies(void)
{
    unsigned char *h_in = NULL, *h_out = NULL;
    void *d_a = NULL, *d_b = NULL;
    aclrtStream s;
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT_OK(aclrtMallocHost((void **)&h_in, STREAMED + 64));
    EXPECT_OK(aclrtMallocHost((void **)&h_out, STREAMED + 64));
    EXPECT_OK(aclrtMalloc(&d_a, STREAMED + 64, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMalloc(&d_b, STREAMED + 64, ACL_MEM_MALLOC_HUGE_FIRST));
    if (!h_in || !h_out || !d_a || !d_b) return;
    for (size_t i = 0; i < STREAMED + 64; i++) h_in[i] = (unsigned char)(i * 131u + (i >> 20));
    memset(h_out, 0xAB, STREAMED + 64);
    char *a = (char *)d_a + 3, *b = (char *)d_b + 9;
    EXPECT_OK(aclrtMemcpy(a, STREAMED, h_in + 5, STREAMED, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtMemcpyAsync(b, STREAMED, a, STREAMED, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    EXPECT_OK(aclrtMemcpyAsync(h_out + 1, STREAMED, b, STREAMED, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT(memcmp(h_in + 5, h_out + 1, STREAMED) == 0, "a streamed copy lost bytes");
    EXPECT(h_out[0] == 0xAB && h_out[STREAMED + 1] == 0xAB, "a streamed copy wrote past its ends");
    memset(h_out, 0, STREAMED + 64);
    EXPECT_OK(aclrtMemcpy(h_out, STREAMED, b, STREAMED, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(memcmp(h_in + 5, h_out, STREAMED) == 0, "a synchronous streamed copy lost bytes");
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(d_a));
    EXPECT_OK(aclrtFree(d_b));
    EXPECT_OK(aclrtFreeHost(h_in));
    EXPECT_OK(aclrtFreeHost(h_out));
    EXPECT_OK(aclrtResetDevice(0));
}

/* Host<->device copies of 1 MiB up to the parallel copy's 4 MiB are shared with the copy
 * engine's thread: two threads at once, each on its own stream, copy sizes around 1 MiB between
 * unaligned addresses, synchronous and asynchronous, and every byte arrives with nothing
 * written past either end. */
static const size_t TRANSFER_SIZES[] = {(1u << 20) - 1, 1u << 20, (1u << 20) + 1, (3u << 20) + 13};
enum { TRANSFER_SPAN = (4 << 20) + 64, TRANSFER_ROUNDS = 4 };

static bool transfer_round_trip(aclrtStream s, unsigned char *h_in, unsigned char *h_out, char *d,
                                size_t n, int id, int r)
{
    size_t in_off = (size_t)(id + r) % 7, out_off = (size_t)(id * 3 + r) % 11, d_off = (size_t)r % 5;
    for (size_t i = 0; i < n; i++) h_in[in_off + i] = (unsigned char)(i * 29u + (unsigned)(id + r));
    memset(h_out, 0xAB, TRANSFER_SPAN);
    aclrtStream use = r % 2 ? s : NULL; /* NULL: the synchronous calls */
    aclError rc = use ? aclrtMemcpyAsync(d + d_off, n, h_in + in_off, n, ACL_MEMCPY_HOST_TO_DEVICE, use)
                      : aclrtMemcpy(d + d_off, n, h_in + in_off, n, ACL_MEMCPY_HOST_TO_DEVICE);
    if (!rc)
        rc = use ? aclrtMemcpyAsync(h_out + out_off, n, d + d_off, n, ACL_MEMCPY_DEVICE_TO_HOST, use)
                 : aclrtMemcpy(h_out + out_off, n, d + d_off, n, ACL_MEMCPY_DEVICE_TO_HOST);
    if (!rc && use) rc = aclrtSynchronizeStream(use);
    return !rc && memcmp(h_in + in_off, h_out + out_off, n) == 0 &&
           (out_off == 0 || h_out[out_off - 1] == 0xAB) && h_out[out_off + n] == 0xAB;
}

static void *transfer_copies(void *arg)
{
    int id = (int)(intptr_t)arg;
    aclrtStream s;
    unsigned char *h_in, *h_out;
    void *d;
    if (aclrtSetDevice(0) || aclrtCreateStream(&s) || aclrtMallocHost((void **)&h_in, TRANSFER_SPAN) ||
        aclrtMallocHost((void **)&h_out, TRANSFER_SPAN) ||
        aclrtMalloc(&d, TRANSFER_SPAN, ACL_MEM_MALLOC_HUGE_FIRST)) {
        atomic_fetch_add(&g_bad, 1);
        return NULL;
    }
    for (int r = 0; r < TRANSFER_ROUNDS; r++)
        for (size_t k = 0; k < sizeof TRANSFER_SIZES / sizeof TRANSFER_SIZES[0]; k++)
            if (!transfer_round_trip(s, h_in, h_out, d, TRANSFER_SIZES[k], id, r)) {
                atomic_fetch_add(&g_bad, 1);
                r = TRANSFER_ROUNDS;
                break;
            }
    aclrtDestroyStream(s);
    aclrtFree(d);
    aclrtFreeHost(h_in);
    aclrtFreeHost(h_out);
    aclrtResetDevice(0);
    return NULL;
}

/* Resident memory of this process in bytes (Linux /proc/self/statm). */
static size_t resident_bytes(void)
{
    unsigned long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
        fclose(f);
    }
    return (size_t)resident * 4096u;
}

/* Freeing a large device block gives its pages back to the system, as freeing device memory
 * would: resident memory drops by (nearly) the block's size. */
static void memory_given_back(void)
{
    enum { BLOCK = 256 << 20 };
    void *d;
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtMalloc(&d, BLOCK, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMemset(d, BLOCK, 1, BLOCK));
    size_t touched = resident_bytes();
    EXPECT_OK(aclrtFree(d));
    size_t after = resident_bytes();
    EXPECT(touched > after && touched - after > (size_t)BLOCK * 9 / 10,
           "resident %zu MiB with the block, %zu MiB after freeing it", touched >> 20, after >> 20);
    EXPECT_OK(aclrtResetDevice(0));
}

/* The current context is per thread: a new thread has none until it sets one. */
static void *context_thread(void *arg)
{
    aclrtContext ctx = arg;
    int32_t dev = -1;
    if (aclrtGetDevice(&dev) != ACL_ERROR_RT_CONTEXT_NULL) atomic_fetch_add(&g_bad, 1);
    if (aclrtSetCurrentContext(ctx) || aclrtGetDevice(&dev) || dev != 1) atomic_fetch_add(&g_bad, 1);
    return NULL;
}

int main(void)
{
    EXPECT_OK(aclInit(NULL));
    memory_given_back();
    aclrtContext ctx;
    pthread_t ct;
    EXPECT_OK(aclrtCreateContext(&ctx, 1));
    pthread_create(&ct, NULL, context_thread, ctx);
    pthread_join(ct, NULL);
    EXPECT(atomic_load(&g_bad) == 0, "thread-local current context");
    EXPECT_OK(aclrtDestroyContext(ctx));
    pthread_t big[3];
    for (int i = 0; i < 3; i++) pthread_create(&big[i], NULL, big_copies, (void *)(intptr_t)i);
    for (int i = 0; i < 3; i++) pthread_join(big[i], NULL);
    EXPECT(atomic_load(&g_bad) == 0, "large copies lost bytes");
    streamed_copies();
    pthread_t transfers[2];
    for (int i = 0; i < 2; i++) pthread_create(&transfers[i], NULL, transfer_copies, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++) pthread_join(transfers[i], NULL);
    EXPECT(atomic_load(&g_bad) == 0, "copies around 1 MiB lost bytes or wrote past their ends");
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, round_trips, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    EXPECT(atomic_load(&g_bad) == 0, "%d thread(s) saw a failure or a wrong byte", atomic_load(&g_bad));
    /* All memory came back. */
    size_t free_b, total;
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
    EXPECT(free_b == total, "device 0: %zu of %zu bytes free after all threads freed", free_b, total);
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return rt_check_summary("rt_concurrency");
}
