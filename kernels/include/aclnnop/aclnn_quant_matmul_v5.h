/* aclnn_quant_matmul_v5.h: aclnnQuantMatmulV5 of CANN's aclnnop/aclnn_quant_matmul_v5.h, with the
 * same name and prototype (hicann/ops-nn matmul/quant_batch_matmul_v4/docs/aclnnQuantMatmulV5.md).
 * Implemented by npusim in kernels/ops/quant_matmul.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_QUANT_MATMUL_V5_H
#define NPUSIM_ACLNNOP_ACLNN_QUANT_MATMUL_V5_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnQuantMatmulV5GetWorkspaceSize(const aclTensor* x1, const aclTensor* x2, const aclTensor* x1Scale, const aclTensor* x2Scale, const aclTensor* yScale, const aclTensor* x1Offset, const aclTensor* x2Offset, const aclTensor* yOffset, const aclTensor* bias, bool transposeX1, bool transposeX2, int64_t groupSize, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnQuantMatmulV5(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_QUANT_MATMUL_V5_H */
