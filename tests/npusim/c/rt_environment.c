/* The simulated machine as configured by the environment (the pytest driver runs this with
 * different settings): argv[1] = expected device count, argv[2] = expected device memory in
 * bytes, argv[3] = 1 when devices 0 and 1 may access each other. Checks allocation up to the
 * capacity (207001 beyond it, nothing lost), memory accounting, and peers. */
#include <stdlib.h>

#include "rt_check.h"

int main(int argc, char **argv)
{
    if (argc != 4) { fprintf(stderr, "usage: rt_environment COUNT MEMORY PEER01\n"); return 2; }
    uint32_t want_count = (uint32_t)strtoul(argv[1], NULL, 10);
    size_t want_memory = (size_t)strtoull(argv[2], NULL, 10);
    int want_peer = atoi(argv[3]);
    EXPECT_OK(aclInit(NULL));
    uint32_t count = 0;
    EXPECT_OK(aclrtGetDeviceCount(&count));
    EXPECT(count == want_count, "aclrtGetDeviceCount %u, expected %u", count, want_count);
    EXPECT_CODE(aclrtSetDevice((int32_t)count), ACL_ERROR_RT_INVALID_DEVICEID);
    if (count == 0) {
        EXPECT_OK(aclFinalize());
        return rt_check_summary("rt_environment");
    }
    EXPECT_OK(aclrtSetDevice((int32_t)count - 1));
    size_t free_b, total;
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
    EXPECT(total == want_memory && free_b == total, "mem info free %zu total %zu, expected %zu", free_b,
           total, want_memory);
    /* Fill the device in quarters; one more byte than fits fails with 207001. */
    void *blocks[4];
    size_t quarter = want_memory / 4 - 64;
    for (int i = 0; i < 4; i++) EXPECT_OK(aclrtMalloc(&blocks[i], quarter, ACL_MEM_MALLOC_HUGE_FIRST));
    void *extra = NULL;
    EXPECT_CODE(aclrtMalloc(&extra, want_memory / 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT_CODE(aclrtMalloc(&extra, want_memory + 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT_CODE(aclrtMalloc(&extra, (size_t)-1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT(extra == NULL, "a failed allocation wrote its output");
    /* Freeing two neighbours makes room for a block of twice the size (coalescing). */
    EXPECT_OK(aclrtFree(blocks[1]));
    EXPECT_OK(aclrtFree(blocks[2]));
    EXPECT_OK(aclrtMalloc(&extra, 2 * quarter, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT(extra == blocks[1], "coalesced block at %p, expected %p", extra, blocks[1]);
    EXPECT_OK(aclrtMemset(extra, 2 * quarter, 0x5c, 2 * quarter));
    unsigned char probe[2];
    EXPECT_OK(aclrtMemcpy(probe, 1, (char *)extra + 2 * quarter - 1, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(probe[0] == 0x5c, "last byte of the coalesced block 0x%02x", probe[0]);
    EXPECT_OK(aclrtFree(extra));
    EXPECT_OK(aclrtFree(blocks[0]));
    EXPECT_OK(aclrtFree(blocks[3]));
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
    EXPECT(free_b == total, "free %zu of %zu after freeing everything", free_b, total);
    if (count >= 2) {
        int32_t can = -1;
        EXPECT_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
        EXPECT(can == want_peer, "aclrtDeviceCanAccessPeer(0, 1) = %d, expected %d", can, want_peer);
    }
    EXPECT_OK(aclrtResetDevice((int32_t)count - 1));
    EXPECT_OK(aclFinalize());
    return rt_check_summary("rt_environment");
}
