/* aclnn_randperm.h: aclnn operators of CANN's aclnnop/aclnn_randperm.h, with the same names and prototypes
 * (hicann/ops-math random/stateless_randperm/op_api/aclnn_randperm.h). Implemented by npusim in
 * kernels/ops/random_ops.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_RANDPERM_H
#define NPUSIM_ACLNNOP_ACLNN_RANDPERM_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnRandpermGetWorkspaceSize(int64_t n, int64_t seed, int64_t offset, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnRandperm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_RANDPERM_H */
