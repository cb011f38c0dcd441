/* aclnn_linalg_cholesky.h: aclnn operators of CANN's aclnnop/aclnn_linalg_cholesky.h, with the same names and prototypes
 * (docs/acl-abi.md §7.2). Implemented by npusim in kernels/ops/linalg_lapack.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_LINALG_CHOLESKY_H
#define NPUSIM_ACLNNOP_ACLNN_LINALG_CHOLESKY_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnLinalgCholeskyGetWorkspaceSize(const aclTensor* self, bool upper, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnLinalgCholesky(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_LINALG_CHOLESKY_H */
