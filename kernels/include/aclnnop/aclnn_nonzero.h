/* aclnn_nonzero.h: aclnn operators of CANN's aclnnop/aclnn_nonzero.h, with the same names and prototypes
 * (hicann/ops-nn index/non_zero/op_api/aclnn_nonzero.h). Implemented by npusim in kernels/ops/. */
#ifndef NPUSIM_ACLNNOP_ACLNN_NONZERO_H
#define NPUSIM_ACLNNOP_ACLNN_NONZERO_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnNonzeroGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnNonzero(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_NONZERO_H */
