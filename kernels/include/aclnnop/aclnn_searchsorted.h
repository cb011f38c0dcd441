/* aclnn_searchsorted.h: aclnn operators of CANN's aclnnop/aclnn_searchsorted.h, with the same names and prototypes
 * (hicann/ops-math math/search_sorted/op_api/aclnn_searchsorted.h). Implemented by npusim in kernels/ops/. */
#ifndef NPUSIM_ACLNNOP_ACLNN_SEARCHSORTED_H
#define NPUSIM_ACLNNOP_ACLNN_SEARCHSORTED_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnSearchSortedGetWorkspaceSize(const aclTensor* sortedSequence, const aclTensor* self, bool outInt32, bool right, const aclTensor* sorter, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnSearchSorted(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_SEARCHSORTED_H */
