/* aclnn_signbit.h: aclnn operators of CANN's aclnnop/aclnn_signbit.h, with the same names and prototypes
 * (hicann/ops-math math/signbit/op_api/aclnn_signbit.h). Implemented by npusim in kernels/ops/unary_math_ops.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_SIGNBIT_H
#define NPUSIM_ACLNNOP_ACLNN_SIGNBIT_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnSignbitGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnSignbit(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_SIGNBIT_H */
