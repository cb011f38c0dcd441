/* aclnn_bincount.h: aclnn operators of CANN's aclnnop/aclnn_bincount.h, with the same names and
 * prototypes (CANN's aclnnBincount.md, API/aolapi/context/aclnnBincount.md). Implemented by npusim
 * in kernels/ops/numpy_count.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_BINCOUNT_H
#define NPUSIM_ACLNNOP_ACLNN_BINCOUNT_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnBincountGetWorkspaceSize(const aclTensor* self, const aclTensor* weights, int64_t minlength, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnBincount(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_BINCOUNT_H */
