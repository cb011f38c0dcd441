/* aclnn_atanh.h: aclnn operators of CANN's aclnnop/aclnn_atanh.h, with the same names and prototypes
 * (hicann/ops-math math/atanh/op_api/aclnn_atanh.h). Implemented by npusim in kernels/ops/unary_math_ops.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_ATANH_H
#define NPUSIM_ACLNNOP_ACLNN_ATANH_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnAtanhGetWorkspaceSize(const aclTensor* input, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnAtanh(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_ATANH_H */
