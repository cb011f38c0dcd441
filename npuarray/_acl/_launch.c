/* _launch.c: npuarray's launch helpers for aclnn operators (see _launch.h).
 *
 * One call from Python instead of two, with no out-parameters to marshal and read back
 * in the common case: a small operation's cost is mostly host overhead, and each cffi
 * call costs about as much as npusim's whole first phase. The phases themselves are the
 * provider's, unchanged. */
#include "_launch.h"

#include <stdbool.h>
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
typedef aclnnStatus (*second_phase_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

#define PARAM_INVALID 161002 /* ACLNN_ERR_PARAM_INVALID */

/* The calling thread's last launch: which phase failed, and a pending workspace request. */
static _Thread_local int32_t failed_phase;
static _Thread_local uint64_t pending_size;
static _Thread_local aclOpExecutor *pending_executor;

/* After a first phase that returned `ret` with `size` and `op`: the second phase on `stream`
 * when the operator needs no workspace, else the request left for the caller (see _launch.h). */
static int32_t second_phase(aclnnStatus ret, uint64_t size, aclOpExecutor *op, void *launch,
                            void *stream)
{
    if (ret != 0) {
        return ret; /* failed_phase is still 1 */
    }
    failed_phase = 0;
    if (size != 0) {
        pending_size = size;
        pending_executor = op;
        return NPUARRAY_NEEDS_WORKSPACE;
    }
    ret = ((second_phase_fn)(uintptr_t)launch)(NULL, 0, op, (aclrtStream)stream);
    failed_phase = ret != 0 ? 2 : 0;
    return ret;
}

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
    return second_phase(ret, size, op, launch, stream);
}

/* The exact first phases of the reductions and of the matrix product (CANN's headers
 * aclnn_reduce_sum.h, aclnn_mean.h, aclnn_amax.h, aclnn_amin.h, aclnn_argmax.h,
 * aclnn_argmin.h, aclnn_std.h, aclnn_var.h, aclnn_matmul.h): a bool, an int64_t, an int8_t or an aclDataType is not
 * passed as a pointer is, so each shape of signature has its own type. */
typedef aclnnStatus (*reduce_first_phase)(const aclTensor *, const aclIntArray *, bool,
                                          aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*reduce_dtype_first_phase)(const aclTensor *, const aclIntArray *, bool,
                                                aclDataType, aclTensor *, uint64_t *,
                                                aclOpExecutor **);
typedef aclnnStatus (*reduce_index_first_phase)(const aclTensor *, int64_t, bool, aclTensor *,
                                                uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*std_first_phase)(const aclTensor *, const aclIntArray *, int64_t, bool,
                                       aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*var_first_phase)(const aclTensor *, const aclIntArray *, bool, bool,
                                       aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*matmul_first_phase)(const aclTensor *, const aclTensor *, aclTensor *,
                                          int8_t, uint64_t *, aclOpExecutor **);

int32_t npuarray_aclnn_launch_reduce(void *get_workspace_size, void *launch, void *self,
                                     void *dim, bool keep_dim, void *out, void *stream)
{
    aclOpExecutor *op = NULL;
    uint64_t size = 0;
    failed_phase = 1;
    aclnnStatus ret = ((reduce_first_phase)(uintptr_t)get_workspace_size)(
        (const aclTensor *)self, (const aclIntArray *)dim, keep_dim, (aclTensor *)out, &size,
        &op);
    return second_phase(ret, size, op, launch, stream);
}

int32_t npuarray_aclnn_launch_reduce_dtype(void *get_workspace_size, void *launch, void *self,
                                           void *dim, bool keep_dim, aclDataType dtype,
                                           void *out, void *stream)
{
    aclOpExecutor *op = NULL;
    uint64_t size = 0;
    failed_phase = 1;
    aclnnStatus ret = ((reduce_dtype_first_phase)(uintptr_t)get_workspace_size)(
        (const aclTensor *)self, (const aclIntArray *)dim, keep_dim, dtype, (aclTensor *)out,
        &size, &op);
    return second_phase(ret, size, op, launch, stream);
}

int32_t npuarray_aclnn_launch_reduce_index(void *get_workspace_size, void *launch, void *self,
                                           int64_t dim, bool keep_dim, void *out, void *stream)
{
    aclOpExecutor *op = NULL;
    uint64_t size = 0;
    failed_phase = 1;
    aclnnStatus ret = ((reduce_index_first_phase)(uintptr_t)get_workspace_size)(
        (const aclTensor *)self, dim, keep_dim, (aclTensor *)out, &size, &op);
    return second_phase(ret, size, op, launch, stream);
}

int32_t npuarray_aclnn_launch_std(void *get_workspace_size, void *launch, void *self, void *dim,
                                  int64_t correction, bool keep_dim, void *out, void *stream)
{
    aclOpExecutor *op = NULL;
    uint64_t size = 0;
    failed_phase = 1;
    aclnnStatus ret = ((std_first_phase)(uintptr_t)get_workspace_size)(
        (const aclTensor *)self, (const aclIntArray *)dim, correction, keep_dim, (aclTensor *)out,
        &size, &op);
    return second_phase(ret, size, op, launch, stream);
}

int32_t npuarray_aclnn_launch_var(void *get_workspace_size, void *launch, void *self, void *dim,
                                  bool unbiased, bool keep_dim, void *out, void *stream)
{
    aclOpExecutor *op = NULL;
    uint64_t size = 0;
    failed_phase = 1;
    aclnnStatus ret = ((var_first_phase)(uintptr_t)get_workspace_size)(
        (const aclTensor *)self, (const aclIntArray *)dim, unbiased, keep_dim, (aclTensor *)out,
        &size, &op);
    return second_phase(ret, size, op, launch, stream);
}

int32_t npuarray_aclnn_launch_matmul(void *get_workspace_size, void *launch, void *self,
                                     void *mat2, void *out, int8_t cube_math_type, void *stream)
{
    aclOpExecutor *op = NULL;
    uint64_t size = 0;
    failed_phase = 1;
    aclnnStatus ret = ((matmul_first_phase)(uintptr_t)get_workspace_size)(
        (const aclTensor *)self, (const aclTensor *)mat2, (aclTensor *)out, cube_math_type,
        &size, &op);
    return second_phase(ret, size, op, launch, stream);
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
