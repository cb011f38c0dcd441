/* aclnn_linalg_vector_norm.h: aclnn operators of CANN's aclnnop/aclnn_linalg_vector_norm.h, with
 * the same names and prototypes (hicann/ops-nn norm/lp_norm_v2/op_api/aclnn_linalg_vector_norm.h).
 * Implemented by npusim in kernels/ops/linalg_norm.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_LINALG_VECTOR_NORM_H
#define NPUSIM_ACLNNOP_ACLNN_LINALG_VECTOR_NORM_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnLinalgVectorNormGetWorkspaceSize(const aclTensor* self, const aclScalar* ord, const aclIntArray* dims, bool keepDims, const aclDataType dtype, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnLinalgVectorNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_LINALG_VECTOR_NORM_H */
