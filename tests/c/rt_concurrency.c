/* Many threads, each with its own stream (and some sharing one device's default stream),
 * doing host -> device -> device -> host round trips of fresh data; every byte is checked. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
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

int main(void)
{
    EXPECT_OK(aclInit(NULL));
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
