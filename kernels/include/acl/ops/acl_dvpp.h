/* DVPP memory of CANN's acl/ops/acl_dvpp.h (the subset npusim implements: acldvppMalloc and
 * acldvppFree; the media-processing channels are not simulated). */
#ifndef NPUSIM_ACL_OPS_ACL_DVPP_H
#define NPUSIM_ACL_OPS_ACL_DVPP_H

#include <stddef.h>
#include <stdint.h>

#include "../acl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device memory for media processing: the size is rounded up to a multiple of 32 plus 32
 * bytes, the start address is 128-byte aligned; free it with acldvppFree only. */
ACL_FUNC_VISIBILITY aclError acldvppMalloc(void **devPtr, size_t size);
ACL_FUNC_VISIBILITY aclError acldvppFree(void *devPtr);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACL_OPS_ACL_DVPP_H */
