/* Host<->device copies of 1 MiB up to 4 MiB: shared with the copy engine in 64 KiB pieces,
 * and a copy of the same bytes again starting at the other end. Every byte must arrive and
 * nothing past either end may be written, for sizes that are not a multiple of a piece,
 * the same buffers copied again and again with new contents in between (each end first in
 * turn), several threads at once (one shares the engine, the others copy alone), two of
 * them on one stream, synchronous and asynchronous copies in both directions. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "rt_check.h"

static const size_t SIZES[] = {(1u << 20), (1u << 20) + 1, (2u << 20) - 1, (3u << 20) + 13,
                               (4u << 20) - 1, (64u << 10) * 17 + 4097};
enum { SPAN = (4 << 20) + 64, THREADS = 4, REPEATS = 6 };

static atomic_int g_bad;
static aclrtStream g_shared; /* one stream used by two threads at once */

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)((i * 2654435761u) >> 13 ^ seed);
}

/* The same buffers copied REPEATS times, new contents each time: up, then back down. */
static bool repeated(aclrtStream s, unsigned char *h_in, unsigned char *h_out, char *d, size_t n,
                     unsigned seed)
{
    for (int r = 0; r < REPEATS; r++) {
        fill(h_in + 3, n, seed + (unsigned)r);
        memset(h_out, 0xAB, SPAN);
        aclError rc = s ? aclrtMemcpyAsync(d + 5, n, h_in + 3, n, ACL_MEMCPY_HOST_TO_DEVICE, s)
                        : aclrtMemcpy(d + 5, n, h_in + 3, n, ACL_MEMCPY_HOST_TO_DEVICE);
        if (!rc)
            rc = s ? aclrtMemcpyAsync(h_out + 1, n, d + 5, n, ACL_MEMCPY_DEVICE_TO_HOST, s)
                   : aclrtMemcpy(h_out + 1, n, d + 5, n, ACL_MEMCPY_DEVICE_TO_HOST);
        if (!rc && s) rc = aclrtSynchronizeStream(s);
        if (rc || memcmp(h_in + 3, h_out + 1, n) != 0 || h_out[0] != 0xAB || h_out[n + 1] != 0xAB) {
            fprintf(stderr, "size %zu round %d (%s): rc %d, bytes differ or written past the ends\n",
                    n, r, s ? "async" : "sync", rc);
            return false;
        }
    }
    return true;
}

static void *copier(void *arg)
{
    int id = (int)(intptr_t)arg;
    aclrtStream own;
    unsigned char *h_in, *h_out;
    void *d;
    if (aclrtSetDevice(0) || aclrtCreateStream(&own) || aclrtMallocHost((void **)&h_in, SPAN) ||
        aclrtMallocHost((void **)&h_out, SPAN) || aclrtMalloc(&d, SPAN, ACL_MEM_MALLOC_HUGE_FIRST)) {
        atomic_fetch_add(&g_bad, 1);
        return NULL;
    }
    aclrtStream streams[] = {NULL, id < 2 ? g_shared : own};
    for (size_t k = 0; k < sizeof SIZES / sizeof SIZES[0]; k++)
        for (int m = 0; m < 2; m++)
            if (!repeated(streams[m], h_in, h_out, d, SIZES[k], (unsigned)(id * 97 + (int)k))) {
                atomic_fetch_add(&g_bad, 1);
                k = sizeof SIZES / sizeof SIZES[0];
                break;
            }
    aclrtDestroyStream(own);
    aclrtFree(d);
    aclrtFreeHost(h_in);
    aclrtFreeHost(h_out);
    aclrtResetDevice(0);
    return NULL;
}

int main(void)
{
    EXPECT_OK(aclInit(NULL));
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtCreateStream(&g_shared));
    (void)copier((void *)(intptr_t)THREADS); /* alone first: the engine is free */
    EXPECT(atomic_load(&g_bad) == 0, "copies by one thread lost bytes");
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        EXPECT(pthread_create(&threads[i], NULL, copier, (void *)(intptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    EXPECT(atomic_load(&g_bad) == 0, "%d copying threads lost bytes", atomic_load(&g_bad));
    EXPECT_OK(aclrtDestroyStream(g_shared));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return rt_check_summary("rt_copy_engine");
}
