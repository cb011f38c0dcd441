/* The two run modes and DVPP memory. argv[1] is the run mode the environment selects
 * ("host" or "device", NPUSIM_RUN_MODE). Checks aclrtGetRunMode, where aclrtMallocHost memory
 * lives, the documented copies in that mode, and acldvppMalloc / hi_mpi_dvpp_malloc: sizes
 * (ALIGN_UP(size, 32) + 32 counted by aclrtGetMemInfo), 128-byte alignment, data, and that
 * each is freed by its own free call only. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "acl/dvpp/hi_dvpp.h"
#include "acl/ops/acl_dvpp.h"
#include "rt_check.h"

static size_t used_bytes(void)
{
    size_t free_bytes = 0, total = 0;
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total));
    return total - free_bytes;
}

static void check_run_mode(bool device_mode)
{
    aclrtRunMode mode = device_mode ? ACL_HOST : ACL_DEVICE;
    EXPECT_OK(aclrtGetRunMode(&mode));
    EXPECT(mode == (device_mode ? ACL_DEVICE : ACL_HOST), "run mode %d", (int)mode);
    EXPECT(ACL_DEVICE == 0 && ACL_HOST == 1, "aclrtRunMode values");

    /* aclrtMallocHost: pinned host memory, or device memory in the device run mode. */
    void *h = NULL, *h2 = NULL, *d = NULL;
    size_t before = used_bytes();
    EXPECT_OK(aclrtMallocHost(&h, 4096));
    EXPECT_OK(aclrtMallocHost(&h2, 4096));
    EXPECT(device_mode ? used_bytes() > before : used_bytes() == before,
           "aclrtMallocHost counted on the device: %zu -> %zu", before, used_bytes());
    aclrtPtrAttributes attr;
    EXPECT_OK(aclrtPointerGetAttributes(h, &attr));
    EXPECT(attr.location.type == (device_mode ? ACL_MEM_LOCATION_TYPE_DEVICE : ACL_MEM_LOCATION_TYPE_HOST),
           "aclrtMallocHost memory located at %d", (int)attr.location.type);
    EXPECT_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));

    /* The seed's copies, with the kinds its samples name. */
    for (int i = 0; i < 4096; i++) ((unsigned char *)h)[i] = (unsigned char)(i * 7 + 1);
    EXPECT_OK(aclrtMemcpy(h2, 4096, h, 4096, ACL_MEMCPY_HOST_TO_HOST));
    EXPECT_OK(aclrtMemcpy(d, 4096, h2, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(h, 0, 4096);
    EXPECT_OK(aclrtMemcpy(h, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(memcmp(h, h2, 4096) == 0, "host -> device -> host lost bytes");
    aclrtStream s;
    EXPECT_OK(aclrtCreateStream(&s));
    EXPECT_CODE(aclrtMemcpyAsync(h2, 4096, h, 4096, ACL_MEMCPY_HOST_TO_HOST, s),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    memset(h2, 0, 4096);
    EXPECT_OK(aclrtMemcpyAsync(d, 4096, h, 4096, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_OK(aclrtMemcpyAsync(h2, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT(memcmp(h, h2, 4096) == 0, "asynchronous round trip lost bytes");
    char *pageable = malloc(4096);
    EXPECT_CODE(aclrtMemcpyAsync(d, 4096, pageable, 4096, ACL_MEMCPY_HOST_TO_DEVICE, s),
                ACL_ERROR_RT_PARAM_INVALID);
    free(pageable);
    EXPECT_OK(aclrtDestroyStream(s));

    /* Another device reaches aclrtMallocHost memory without peer access: pinned host memory,
     * or (device run mode) the board's memory; not another device's aclrtMalloc memory. */
    EXPECT_OK(aclrtSetDevice(1));
    void *d1 = NULL;
    EXPECT_OK(aclrtMalloc(&d1, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMemcpy(d1, 4096, h, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_CODE(aclrtMemcpy(d1, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    memset(h2, 0, 4096);
    EXPECT_OK(aclrtMemcpy(h2, 4096, d1, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(memcmp(h, h2, 4096) == 0, "copy through device 1 lost bytes");
    EXPECT_OK(aclrtFree(d1));
    EXPECT_OK(aclrtResetDevice(1));
    EXPECT_OK(aclrtSetDevice(0));

    EXPECT_CODE(aclrtFree(h), ACL_ERROR_RT_PARAM_INVALID);   /* not aclrtMalloc's */
    EXPECT_CODE(aclrtFreeHost(d), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtFreeHost(h));
    EXPECT_OK(aclrtFreeHost(h2));
    EXPECT_CODE(aclrtFreeHost(h), ACL_ERROR_RT_PARAM_INVALID); /* twice */
    EXPECT_OK(aclrtFree(d));
}

static void check_dvpp(void)
{
    const size_t sizes[] = {0, 1, 31, 32, 33, 100, 1000, 4096, 1u << 20, 3000001};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t size = sizes[i], expect = (size + 31) / 32 * 32 + 32;
        void *p = NULL, *q = NULL;
        size_t before = used_bytes();
        EXPECT_OK(acldvppMalloc(&p, size));
        EXPECT(((uintptr_t)p & 127) == 0, "acldvppMalloc(%zu) = %p is not 128-byte aligned", size, p);
        size_t grew = used_bytes() - before;
        EXPECT(grew >= expect && grew < expect + 128, "acldvppMalloc(%zu) took %zu bytes", size, grew);
        EXPECT(hi_mpi_dvpp_malloc(0, &q, size) == HI_SUCCESS, "hi_mpi_dvpp_malloc(%zu)", size);
        EXPECT(((uintptr_t)q & 127) == 0, "hi_mpi_dvpp_malloc(%zu) = %p is not 128-byte aligned", size, q);
        EXPECT_CODE(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
        EXPECT_CODE(acldvppFree(q), ACL_ERROR_RT_PARAM_INVALID);
        EXPECT_CODE(hi_mpi_dvpp_free(p), (aclError)HI_ERR_SYS_ILLEGAL_PARAM);
        if (size) {   /* device memory like any other: memset, copies, overrun refused */
            EXPECT_OK(aclrtMemset(p, size, 0x3C, size));
            EXPECT_OK(aclrtMemcpy(q, size, p, size, ACL_MEMCPY_DEVICE_TO_DEVICE));
            unsigned char *back = malloc(size);
            EXPECT_OK(aclrtMemcpy(back, size, q, size, ACL_MEMCPY_DEVICE_TO_HOST));
            EXPECT(back[0] == 0x3C && back[size - 1] == 0x3C, "DVPP data 0x%02x", back[0]);
            free(back);
            EXPECT_CODE(aclrtMemset(p, size + 1, 0, size + 1), ACL_ERROR_RT_PARAM_INVALID);
        }
        EXPECT_OK(acldvppFree(p));
        EXPECT(hi_mpi_dvpp_free(q) == HI_SUCCESS, "hi_mpi_dvpp_free");
        EXPECT(used_bytes() == before, "DVPP memory not returned: %zu -> %zu", before, used_bytes());
        EXPECT_CODE(acldvppFree(p), ACL_ERROR_RT_PARAM_INVALID);   /* twice */
    }
    void *p = NULL;
    EXPECT_CODE(acldvppMalloc(NULL, 10), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(acldvppMalloc(&p, SIZE_MAX), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(acldvppFree(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(hi_mpi_dvpp_malloc(0, NULL, 10), (aclError)HI_ERR_SYS_NULL_PTR);
    EXPECT_CODE(hi_mpi_dvpp_free(NULL), (aclError)HI_ERR_SYS_NULL_PTR);
    char pageable[16];
    EXPECT_CODE(acldvppFree(pageable), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(hi_mpi_dvpp_malloc(0, &p, 1ULL << 50), (aclError)HI_ERR_SYS_NO_MEM);
}

int main(int argc, char **argv)
{
    bool device_mode = argc > 1 && strcmp(argv[1], "device") == 0;
    EXPECT_OK(aclInit(NULL));
    void *p = NULL;
    EXPECT_CODE(acldvppMalloc(&p, 10), ACL_ERROR_RT_CONTEXT_NULL);   /* no device set yet */
    EXPECT_CODE(hi_mpi_dvpp_malloc(0, &p, 10), (aclError)HI_ERR_SYS_NOT_READY);
    if (device_mode) EXPECT_CODE(aclrtMallocHost(&p, 10), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_OK(aclrtSetDevice(0));
    check_run_mode(device_mode);
    check_dvpp();
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return rt_check_summary("rt_run_mode_dvpp");
}
