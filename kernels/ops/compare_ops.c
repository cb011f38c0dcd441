/* Comparison aclnn operators (docs/acl-abi.md §7.2 "Comparison"): Eq/Ne/Gt/Ge/Lt/Le against a tensor
 * (broadcast) or a scalar. Computed in the promoted type of the inputs (NaN compares unequal);
 * the bool result is cast to out's dtype, which may be any supported dtype. */
#include "aclnnop/aclnn_eq_scalar.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_ge_scalar.h"
#include "aclnnop/aclnn_ge_tensor.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "aclnnop/aclnn_gt_tensor.h"
#include "aclnnop/aclnn_le_scalar.h"
#include "aclnnop/aclnn_le_tensor.h"
#include "aclnnop/aclnn_lt_scalar.h"
#include "aclnnop/aclnn_lt_tensor.h"
#include "aclnnop/aclnn_ne_scalar.h"
#include "aclnnop/aclnn_ne_tensor.h"
#include "ew_ops.h"

static const ew_spec spec_eq_tensor = EW_SPEC_OF(aclnnEqTensor, self, out, &npusim_ew_eq, 0, 0);
static const ew_spec spec_eq_scalar = EW_SPEC_OF(aclnnEqScalar, self, out, &npusim_ew_eq, 0, 0);
static const ew_spec spec_ne_tensor = EW_SPEC_OF(aclnnNeTensor, self, out, &npusim_ew_ne, 0, 0);
static const ew_spec spec_ne_scalar = EW_SPEC_OF(aclnnNeScalar, self, out, &npusim_ew_ne, 0, 0);
static const ew_spec spec_gt_tensor = EW_SPEC_OF(aclnnGtTensor, self, out, &npusim_ew_gt, 0, 0);
static const ew_spec spec_gt_scalar = EW_SPEC_OF(aclnnGtScalar, self, out, &npusim_ew_gt, 0, 0);
static const ew_spec spec_ge_tensor = EW_SPEC_OF(aclnnGeTensor, self, out, &npusim_ew_ge, 0, 0);
static const ew_spec spec_ge_scalar = EW_SPEC_OF(aclnnGeScalar, self, out, &npusim_ew_ge, 0, 0);
static const ew_spec spec_lt_tensor = EW_SPEC_OF(aclnnLtTensor, self, out, &npusim_ew_lt, 0, 0);
static const ew_spec spec_lt_scalar = EW_SPEC_OF(aclnnLtScalar, self, out, &npusim_ew_lt, 0, 0);
static const ew_spec spec_le_tensor = EW_SPEC_OF(aclnnLeTensor, self, out, &npusim_ew_le, 0, 0);
static const ew_spec spec_le_scalar = EW_SPEC_OF(aclnnLeScalar, self, out, &npusim_ew_le, 0, 0);

aclnnStatus aclnnEqTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_eq_tensor, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnEqTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnEqTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnEqScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_eq_scalar, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnEqScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnEqScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnNeTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_ne_tensor, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnNeTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnNeTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnNeScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_ne_scalar, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnNeScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnNeScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnGtTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_gt_tensor, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnGtTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnGtTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnGtScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_gt_scalar, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnGtScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnGtScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnGeTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_ge_tensor, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnGeTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnGeTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnGeScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_ge_scalar, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnGeScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnGeScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLtTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_lt_tensor, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLtTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLtTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLtScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_lt_scalar, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLtScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLtScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLeTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_le_tensor, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLeTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLeTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLeScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_le_scalar, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLeScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLeScalar", workspace, workspaceSize, executor, stream);
}
