/* DVPP memory: acldvppMalloc / acldvppFree (acl/ops/acl_dvpp.h) and hi_mpi_dvpp_malloc /
 * hi_mpi_dvpp_free (acl/dvpp/hi_dvpp.h). Device memory of the current context's device with
 * CANN's documented rules (aclcppdevg "acldvppMalloc", "hi_mpi_dvpp_malloc"): the size is
 * rounded up to a multiple of 32 plus 32 bytes, the start address is 128-byte aligned, and
 * each kind is freed by its own free call only. It lives in the device's region, so copies,
 * memsets and aclrtGetMemInfo see it as any device memory. */
#include "acl/dvpp/hi_dvpp.h"
#include "acl/ops/acl_dvpp.h"
#include "rt_internal.h"

#define DVPP_ALIGN 128
#define DVPP_PAD 32

/* ALIGN_UP(size, 32) + 32, as CANN's acldvppMalloc computes it; 0 when that overflows. */
static size_t dvpp_padded(size_t size)
{
    if (size > SIZE_MAX - 2 * DVPP_PAD) return 0;
    return (size + 2 * DVPP_PAD - 1) / DVPP_PAD * DVPP_PAD;
}

aclError acldvppMalloc(void **devPtr, size_t size)
{
    const char *api = "acldvppMalloc";
    if (!devPtr) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    size_t padded = dvpp_padded(size);
    if (!padded)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: size %zu is too large", api, size);
    rt_context *ctx = rt_current_context(api);
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    aclError rc = rt_fault(RT_FAULT_MALLOC, ACL_ERROR_RT_MEMORY_ALLOCATION, api);
    if (rc) return rc;
    return rt_device_alloc(ctx->device, size, padded, DVPP_ALIGN, 2u << 20, RT_ORIGIN_DVPP, devPtr, api);
}

aclError acldvppFree(void *devPtr)
{
    if (!devPtr) return npusim_error(ACL_ERROR_INVALID_PARAM, "acldvppFree: devPtr is NULL");
    return rt_device_free(devPtr, RT_ORIGIN_DVPP, ACL_ERROR_RT_PARAM_INVALID, "acldvppFree");
}

/* The hi_mpi functions answer with the media system module's codes (acl/dvpp/hi_dvpp_sys.h). */
hi_s32 hi_mpi_dvpp_malloc(hi_u32 dev_id, hi_void **dev_ptr, hi_u64 size)
{
    const char *api = "hi_mpi_dvpp_malloc";
    (void)dev_id; /* reserved: the memory belongs to the device of aclrtSetDevice */
    if (!dev_ptr) return npusim_error((int)HI_ERR_SYS_NULL_PTR, "%s: dev_ptr is NULL", api);
    size_t padded = size > SIZE_MAX ? 0 : dvpp_padded((size_t)size);
    if (!padded)
        return npusim_error((int)HI_ERR_SYS_ILLEGAL_PARAM, "%s: size %llu is too large", api, size);
    if (rt_current_device_or_none() < 0)
        return npusim_error((int)HI_ERR_SYS_NOT_READY,
                            "%s: the calling thread has no current context; call aclrtSetDevice first", api);
    rt_context *ctx = rt_current_context(api);
    if (!ctx) return (int)HI_ERR_SYS_NOT_READY;
    aclError rc = rt_device_alloc(ctx->device, (size_t)size, padded, DVPP_ALIGN, 2u << 20,
                                  RT_ORIGIN_HIMPI_DVPP, dev_ptr, api);
    if (rc == ACL_ERROR_RT_MEMORY_ALLOCATION)
        return npusim_error((int)HI_ERR_SYS_NO_MEM, "%s: out of memory on device %d (%zu bytes)", api,
                            (int)ctx->device, padded);
    return rc;
}

hi_s32 hi_mpi_dvpp_free(hi_void *dev_ptr)
{
    if (!dev_ptr) return npusim_error((int)HI_ERR_SYS_NULL_PTR, "hi_mpi_dvpp_free: dev_ptr is NULL");
    return rt_device_free(dev_ptr, RT_ORIGIN_HIMPI_DVPP, (int)HI_ERR_SYS_ILLEGAL_PARAM, "hi_mpi_dvpp_free");
}
