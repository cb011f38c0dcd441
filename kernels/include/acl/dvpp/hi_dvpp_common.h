/* DVPP memory of CANN's media processing V2 (acl/dvpp/hi_dvpp_common.h): the subset npusim
 * implements, hi_mpi_dvpp_malloc and hi_mpi_dvpp_free. */
#ifndef NPUSIM_HI_DVPP_COMMON_H
#define NPUSIM_HI_DVPP_COMMON_H

#include "hi_dvpp_type.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device memory of the current context's device (dev_id is reserved and ignored, as CANN
 * documents): the size is rounded up to a multiple of 32 plus 32 bytes, the start address is
 * 128-byte aligned; free it with hi_mpi_dvpp_free only. Returns 0 or an HI_ERR_SYS_* code. */
hi_s32 hi_mpi_dvpp_malloc(hi_u32 dev_id, hi_void **dev_ptr, hi_u64 size);
hi_s32 hi_mpi_dvpp_free(hi_void *dev_ptr);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_HI_DVPP_COMMON_H */
