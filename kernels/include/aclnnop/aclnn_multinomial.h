/* aclnn_multinomial.h: aclnn operators of CANN's aclnnop/aclnn_multinomial.h, with the same names and
 * prototypes (hicann/ops-math random/stateless_sample_multinomial/op_api/aclnn_multinomial.h). Implemented by
 * npusim in kernels/ops/random_ops.c. */
#ifndef NPUSIM_ACLNNOP_ACLNN_MULTINOMIAL_H
#define NPUSIM_ACLNNOP_ACLNN_MULTINOMIAL_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnMultinomialGetWorkspaceSize(const aclTensor* self, int64_t numsamples, bool replacement, int64_t seed, int64_t offset, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnMultinomial(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNNOP_ACLNN_MULTINOMIAL_H */
