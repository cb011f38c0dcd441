/* aclnn_uniform.h: aclnn operators of CANN's aclnnop/aclnn_uniform.h, with the same names and prototypes
 * (hicann/ops-math random/dsa_random_uniform/op_host/op_api/aclnn_uniform.h). Implemented by npusim in
 * kernels/ops/random_ops.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_UNIFORM_H
#define NPUSIM_ACLNNOP_ACLNN_UNIFORM_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceUniformGetWorkspaceSize(const aclTensor* selfRef, double from, double to, uint64_t seed, uint64_t offset, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceUniform(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceUniformTensorGetWorkspaceSize(const aclTensor* selfRef, double from, double to, const aclTensor* seedTensor, const aclTensor* offsetTensor, uint64_t offset, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceUniformTensor(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_UNIFORM_H */
