/* aclnn_isin_tensor_scalar.h: aclnn operators of CANN's aclnnop/aclnn_isin_tensor_scalar.h, with the same names and
 * prototypes (hicann/ops-math math/equal/op_api/aclnn_isin_tensor_scalar.h). Implemented by npusim in kernels/ops/. */
#ifndef NPUSIM_ACLNNOP_ACLNN_ISIN_TENSOR_SCALAR_H
#define NPUSIM_ACLNNOP_ACLNN_ISIN_TENSOR_SCALAR_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnIsInTensorScalarGetWorkspaceSize(const aclTensor* element, const aclScalar* testElement, bool assumeUnique, bool invert, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnIsInTensorScalar(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_ISIN_TENSOR_SCALAR_H */
