/* _launch.h: npuarray's launch helper for binary aclnn operators (npuarray/_acl/_launch.c).
 *
 * Not part of the AscendCL ABI and not part of npusim: it is compiled into the npusim
 * extension only because that is npuarray's one compiled module, and it calls whichever
 * provider is loaded (npusim or CANN) through the function pointers it is given. */
#ifndef NPUARRAY_ACL_LAUNCH_H
#define NPUARRAY_ACL_LAUNCH_H

#include <stdint.h>

/* Runs the two phases of a binary aclnn operator,
 *   get_workspace_size(self, other, [alpha,] out, workspace_size, &executor)
 *   launch(NULL, 0, executor, stream)
 * with alpha passed only when it is not NULL (aclnnAdd, aclnnSub: an aclScalar*; the
 * others take none). self and other are aclTensor* or, for the scalar variants
 * (aclnnAdds, aclnnMuls, aclnnEqScalar, ...), one of them an aclScalar*. The pointers are the provider's aclTensor*, aclScalar*, aclrtStream
 * and operator entry points, passed as void* so that a provider opened by another cffi
 * instance (CANN, ABI mode) works alike.
 *
 * Returns the first phase's status when it fails (*executor is then NULL); 0 without
 * launching when the operator asks for a workspace (*workspace_size > 0: the caller
 * brings one and calls launch with *executor); else the second phase's status. */
int32_t npuarray_launch_binary(void *get_workspace_size, void *launch, void *self, void *other,
                               void *alpha, void *out, void *stream, uint64_t *workspace_size,
                               void **executor);

#endif /* NPUARRAY_ACL_LAUNCH_H */
