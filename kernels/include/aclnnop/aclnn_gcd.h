/* aclnn_gcd.h: aclnn operators of CANN's aclnnop/aclnn_gcd.h, with the same names and prototypes
 * (docs/acl-abi.md §7.2). Implemented by npusim in kernels/ops/. */
#ifndef NPUSIM_ACLNNOP_ACLNN_GCD_H
#define NPUSIM_ACLNNOP_ACLNN_GCD_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnGcdGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnGcd(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_GCD_H */
