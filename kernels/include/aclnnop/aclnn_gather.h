/* aclnn_gather.h: aclnn operators of CANN's aclnnop/aclnn_gather.h, with the same names and prototypes
 * (hicann/ops-nn index/gather_elements_v2/op_host/op_api/aclnn_gather.h). Implemented by npusim in kernels/ops/. */
#ifndef NPUSIM_ACLNNOP_ACLNN_GATHER_H
#define NPUSIM_ACLNNOP_ACLNN_GATHER_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor* self, const int64_t dim, const aclTensor* index, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnGather(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_GATHER_H */
