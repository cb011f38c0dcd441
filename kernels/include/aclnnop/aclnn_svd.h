/* aclnn_svd.h: aclnn operators of CANN's aclnnop/aclnn_svd.h, with the same names and prototypes
 * (docs/acl-abi.md §7.2). Implemented by npusim in kernels/ops/linalg_lapack.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_SVD_H
#define NPUSIM_ACLNNOP_ACLNN_SVD_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnSvdGetWorkspaceSize(const aclTensor* input, const bool fullMatrices, const bool computeUV, aclTensor* sigma, aclTensor* u, aclTensor* v, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnSvd(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_SVD_H */
