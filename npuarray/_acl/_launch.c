/* _launch.c: npuarray's launch helper for binary aclnn operators (see _launch.h).
 *
 * One call from Python instead of two (plus the reads of the two out-parameters): a
 * small operation's cost is mostly host overhead, and each cffi call costs about as much
 * as npusim's whole first phase. The phases themselves are the provider's, unchanged. */
#include "_launch.h"

#include <stddef.h>

#include "aclnn/acl_meta.h"
#include "acl/acl_base.h"

/* The operands are aclTensor* or aclScalar* (aclnnAdds, aclnnEqScalar, aclnnRsubs take a
 * scalar): every argument of these first phases is an object pointer, and object pointers
 * are passed alike on the ABIs CANN runs on (AArch64, x86-64), so one type serves. */
typedef aclnnStatus (*binary_first_phase)(const void *, const void *, aclTensor *, uint64_t *,
                                          aclOpExecutor **);
typedef aclnnStatus (*binary_alpha_first_phase)(const void *, const void *, const aclScalar *,
                                                aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*second_phase)(void *, uint64_t, aclOpExecutor *, aclrtStream);

int32_t npuarray_launch_binary(void *get_workspace_size, void *launch, void *self, void *other,
                               void *alpha, void *out, void *stream, uint64_t *workspace_size,
                               void **executor)
{
    aclOpExecutor *op = NULL;
    aclnnStatus ret;
    *workspace_size = 0;
    /* (through uintptr_t: the entry points come to us as data pointers from Python) */
    if (alpha != NULL) {
        ret = ((binary_alpha_first_phase)(uintptr_t)get_workspace_size)(
            self, other, alpha, out, workspace_size, &op);
    } else {
        ret = ((binary_first_phase)(uintptr_t)get_workspace_size)(
            self, other, out, workspace_size, &op);
    }
    if (ret != 0) {
        *executor = NULL;
        return ret;
    }
    *executor = op;
    if (*workspace_size != 0) {
        return 0;
    }
    return ((second_phase)(uintptr_t)launch)(NULL, 0, op, (aclrtStream)stream);
}
