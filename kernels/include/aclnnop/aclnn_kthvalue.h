/* aclnn_kthvalue.h: aclnn operators of CANN's aclnnop/aclnn_kthvalue.h, with the same names and
 * prototypes (hicann/ops-nn index/kth_value/op_api/aclnn_kthvalue.h). Implemented by npusim in
 * kernels/ops/numpy_select.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_KTHVALUE_H
#define NPUSIM_ACLNNOP_ACLNN_KTHVALUE_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnKthvalueGetWorkspaceSize(const aclTensor* self, int64_t k, int64_t dim, bool keepdim, aclTensor* valuesOut, aclTensor* indicesOut, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnKthvalue(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_KTHVALUE_H */
