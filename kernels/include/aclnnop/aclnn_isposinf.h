/* aclnn_isposinf.h: aclnn operators of CANN's aclnnop/aclnn_isposinf.h, with the same names and prototypes
 * (hicann/ops-math math/is_pos_inf/op_api/aclnn_isposinf.h). Implemented by npusim in kernels/ops/unary_math_ops.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_ISPOSINF_H
#define NPUSIM_ACLNNOP_ACLNN_ISPOSINF_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnIsPosInfGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnIsPosInf(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_ISPOSINF_H */
