/* _launch.c: npuarray's launch helper for aclnn operators (see _launch.h).
 *
 * One call from Python instead of two, with no out-parameters to marshal and read back
 * in the common case: a small operation's cost is mostly host overhead, and each cffi
 * call costs about as much as npusim's whole first phase. The phases themselves are the
 * provider's, unchanged. */
#include "_launch.h"

#include <stddef.h>

#include "aclnn/acl_meta.h"
#include "acl/acl_base.h"

/* The operands are aclTensor* or aclScalar* (aclnnAdds takes a scalar, aclnnAdd an alpha
 * scalar): every argument before the out-parameters is an object pointer, and object
 * pointers are passed alike on the ABIs CANN runs on (AArch64, x86-64), so one type per
 * count serves every such operator. */
typedef aclnnStatus (*first_phase_2)(void *, void *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*first_phase_3)(void *, void *, void *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*first_phase_4)(void *, void *, void *, void *, uint64_t *,
                                     aclOpExecutor **);
typedef aclnnStatus (*second_phase)(void *, uint64_t, aclOpExecutor *, aclrtStream);

#define PARAM_INVALID 161002 /* ACLNN_ERR_PARAM_INVALID */

/* The calling thread's last launch: which phase failed, and a pending workspace request. */
static _Thread_local int32_t failed_phase;
static _Thread_local uint64_t pending_size;
static _Thread_local aclOpExecutor *pending_executor;

int32_t npuarray_aclnn_launch(void *get_workspace_size, void *launch, int32_t count, void *a,
                              void *b, void *c, void *d, void *stream)
{
    aclOpExecutor *op = NULL;
    uint64_t size = 0;
    aclnnStatus ret;
    failed_phase = 1;
    /* (through uintptr_t: the entry points come to us as data pointers from Python) */
    switch (count) {
    case 2:
        ret = ((first_phase_2)(uintptr_t)get_workspace_size)(a, b, &size, &op);
        break;
    case 3:
        ret = ((first_phase_3)(uintptr_t)get_workspace_size)(a, b, c, &size, &op);
        break;
    case 4:
        ret = ((first_phase_4)(uintptr_t)get_workspace_size)(a, b, c, d, &size, &op);
        break;
    default:
        return PARAM_INVALID;
    }
    if (ret != 0) {
        return ret;
    }
    failed_phase = 0;
    if (size != 0) {
        pending_size = size;
        pending_executor = op;
        return NPUARRAY_NEEDS_WORKSPACE;
    }
    ret = ((second_phase)(uintptr_t)launch)(NULL, 0, op, (aclrtStream)stream);
    failed_phase = ret != 0 ? 2 : 0;
    return ret;
}

int32_t npuarray_aclnn_failed_phase(void)
{
    return failed_phase;
}

void npuarray_aclnn_pending(uint64_t *workspace_size, void **executor)
{
    *workspace_size = pending_size;
    *executor = pending_executor;
}
