/* aclnn_linalg_cross.h: aclnn operators of CANN's aclnnop/aclnn_linalg_cross.h, with the same
 * names and prototypes (docs/acl-abi.md §7.2). Implemented by npusim in
 * kernels/ops/linalg_cross.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_LINALG_CROSS_H
#define NPUSIM_ACLNNOP_ACLNN_LINALG_CROSS_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnLinalgCrossGetWorkspaceSize(const aclTensor* self, const aclTensor* other, int64_t dim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnLinalgCross(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_LINALG_CROSS_H */
