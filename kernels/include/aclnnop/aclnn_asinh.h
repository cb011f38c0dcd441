/* aclnn_asinh.h: aclnn operators of CANN's aclnnop/aclnn_asinh.h, with the same names and prototypes
 * (hicann/ops-math math/asinh/op_api/aclnn_asinh.h). Implemented by npusim in kernels/ops/unary_math_ops.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_ASINH_H
#define NPUSIM_ACLNNOP_ACLNN_ASINH_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnAsinhGetWorkspaceSize(const aclTensor* input, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnAsinh(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_ASINH_H */
