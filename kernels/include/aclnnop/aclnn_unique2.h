/* aclnn_unique2.h: aclnn operators of CANN's aclnnop/aclnn_unique2.h, with the same names and prototypes
 * (hicann/ops-nn index/unique_consecutive/op_api/aclnn_unique2.h). Implemented by npusim in kernels/ops/. */
#ifndef NPUSIM_ACLNNOP_ACLNN_UNIQUE2_H
#define NPUSIM_ACLNNOP_ACLNN_UNIQUE2_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnUnique2GetWorkspaceSize(const aclTensor* self, bool sorted, bool returnInverse, bool returnCounts, aclTensor* valueOut, aclTensor* inverseOut, aclTensor* countsOut, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnUnique2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_UNIQUE2_H */
