/* _launch.h: npuarray's launch helpers for aclnn operators (npuarray/_acl/_launch.c).
 *
 * Not part of the AscendCL ABI and not part of npusim: it is compiled into the npusim
 * extension only because that is npuarray's one compiled module, and it calls whichever
 * provider is loaded (npusim or CANN) through the function pointers it is given. */
#ifndef NPUARRAY_ACL_LAUNCH_H
#define NPUARRAY_ACL_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "acl/acl_base.h"

/* npuarray_aclnn_launch's result when the operator asks for a workspace (no aclnn status
 * is negative). */
#define NPUARRAY_NEEDS_WORKSPACE (-1)

/* Runs the two phases of an aclnn operator whose first phase takes `count` (2, 3 or 4)
 * object pointers and then the two out-parameters:
 *   get_workspace_size(a, b, [c, [d,]] &workspace_size, &executor)
 *   launch(NULL, 0, executor, stream)
 * e.g. aclnnAdd(self, other, alpha, out), aclnnMul(self, other, out), aclnnAdds(self,
 * scalar, alpha, out), aclnnInplaceAdd(selfRef, other, alpha), aclnnInplaceMul(selfRef,
 * other). The pointers (aclTensor*, aclScalar*, aclrtStream, the entry points) are the
 * provider's, passed as void* so that a provider opened by another cffi instance (CANN,
 * ABI mode) works alike.
 *
 * Returns 0 once launched; the status of the phase that failed (npuarray_aclnn_failed_phase
 * says which); NPUARRAY_NEEDS_WORKSPACE when the operator asks for a workspace: nothing is
 * launched, npuarray_aclnn_pending gives its size and the executor, and the caller brings
 * the workspace and calls launch itself. ACLNN_ERR_PARAM_INVALID (161002) for a count
 * outside 2..4, with nothing called. The details are kept per thread. */
int32_t npuarray_aclnn_launch(void *get_workspace_size, void *launch, int32_t count, void *a,
                              void *b, void *c, void *d, void *stream);

/* 1 when the calling thread's last npuarray_aclnn_launch failed in the first phase (or
 * was refused), 2 when in the second, 0 when it did not fail. */
int32_t npuarray_aclnn_failed_phase(void);

/* The workspace size and executor of the calling thread's last npuarray_aclnn_launch
 * that returned NPUARRAY_NEEDS_WORKSPACE. */
void npuarray_aclnn_pending(uint64_t *workspace_size, void **executor);

/* The same for operators whose first phase takes other than object pointers, one helper per
 * signature, each with CANN's exact parameter types (same results, same per-thread details):
 *   npuarray_aclnn_launch_reduce        aclnnAmax, aclnnAmin:
 *       (const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out, ...)
 *   npuarray_aclnn_launch_reduce_dtype  aclnnReduceSum, aclnnMean:
 *       (const aclTensor *self, const aclIntArray *dim, bool keepDim, aclDataType dtype,
 *        aclTensor *out, ...)
 *   npuarray_aclnn_launch_reduce_index  aclnnArgMax, aclnnArgMin:
 *       (const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, ...)
 *   npuarray_aclnn_launch_std           aclnnStd:
 *       (const aclTensor *self, const aclIntArray *dim, int64_t correction, bool keepdim,
 *        aclTensor *out, ...)
 *   npuarray_aclnn_launch_var           aclnnVar:
 *       (const aclTensor *self, const aclIntArray *dim, bool unbiased, bool keepdim,
 *        aclTensor *out, ...)
 *   npuarray_aclnn_launch_matmul        aclnnMatmul:
 *       (const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType, ...)
 * The handles are passed as void*, as above. */
int32_t npuarray_aclnn_launch_reduce(void *get_workspace_size, void *launch, void *self,
                                     void *dim, bool keep_dim, void *out, void *stream);
int32_t npuarray_aclnn_launch_reduce_dtype(void *get_workspace_size, void *launch, void *self,
                                           void *dim, bool keep_dim, aclDataType dtype,
                                           void *out, void *stream);
int32_t npuarray_aclnn_launch_reduce_index(void *get_workspace_size, void *launch, void *self,
                                           int64_t dim, bool keep_dim, void *out, void *stream);
int32_t npuarray_aclnn_launch_std(void *get_workspace_size, void *launch, void *self, void *dim,
                                  int64_t correction, bool keep_dim, void *out, void *stream);
int32_t npuarray_aclnn_launch_var(void *get_workspace_size, void *launch, void *self, void *dim,
                                  bool unbiased, bool keep_dim, void *out, void *stream);
int32_t npuarray_aclnn_launch_matmul(void *get_workspace_size, void *launch, void *self,
                                     void *mat2, void *out, int8_t cube_math_type, void *stream);

#endif /* NPUARRAY_ACL_LAUNCH_H */
