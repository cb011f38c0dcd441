/* aclnn_histc.h: aclnn operators of CANN's aclnnop/aclnn_histc.h, with the same names and
 * prototypes (CANN's aclnnHistc.md, hicann/ops-math math/histogram_v2/docs/aclnnHistc.md). Implemented by npusim
 * in kernels/ops/histc.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_HISTC_H
#define NPUSIM_ACLNNOP_ACLNN_HISTC_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnHistcGetWorkspaceSize(const aclTensor* self, int64_t bins, const aclScalar* min, const aclScalar* max, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnHistc(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_HISTC_H */
