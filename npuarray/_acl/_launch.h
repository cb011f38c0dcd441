/* _launch.h: npuarray's launch helper for aclnn operators (npuarray/_acl/_launch.c).
 *
 * Not part of the AscendCL ABI and not part of npusim: it is compiled into the npusim
 * extension only because that is npuarray's one compiled module, and it calls whichever
 * provider is loaded (npusim or CANN) through the function pointers it is given. */
#ifndef NPUARRAY_ACL_LAUNCH_H
#define NPUARRAY_ACL_LAUNCH_H

#include <stdint.h>

/* Runs the two phases of an aclnn operator whose first phase takes `count` (2, 3 or 4)
 * object pointers and then the two out-parameters:
 *   get_workspace_size(a, b, [c, [d,]] workspace_size, &executor)
 *   launch(NULL, 0, executor, stream)
 * e.g. aclnnAdd(self, other, alpha, out), aclnnMul(self, other, out), aclnnAdds(self,
 * scalar, alpha, out), aclnnInplaceAdd(selfRef, other, alpha), aclnnInplaceMul(selfRef,
 * other). The pointers (aclTensor*, aclScalar*, aclrtStream, the entry points) are the
 * provider's, passed as void* so that a provider opened by another cffi instance (CANN,
 * ABI mode) works alike.
 *
 * Returns the first phase's status when it fails (*executor is then NULL); 0 without
 * launching when the operator asks for a workspace (*workspace_size > 0: the caller
 * brings one and calls launch with *executor); else the second phase's status.
 * ACLNN_ERR_PARAM_INVALID (161002) for a count outside 2..4, with nothing called. */
int32_t npuarray_aclnn_launch(void *get_workspace_size, void *launch, int32_t count, void *a,
                              void *b, void *c, void *d, void *stream, uint64_t *workspace_size,
                              void **executor);

#endif /* NPUARRAY_ACL_LAUNCH_H */
