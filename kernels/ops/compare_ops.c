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

#define M_EQ (M_ARITH | DT(ACL_UINT32) | DT(ACL_UINT64))
#define M_NE (M_ARITH | DT(ACL_UINT64))
#define M_ORDER (M_ALL & ~M_COMPLEX)
#define M_LE (M_ORDER & ~DT(ACL_UINT32))
static const ew_spec spec_eq_tensor = EW_SPEC("aclnnEqTensor", &npusim_ew_eq, M_EQ, M_ALL, 0, 0);
static const ew_spec spec_eq_scalar = EW_SPEC("aclnnEqScalar", &npusim_ew_eq, M_EQ, M_ALL, 0, 0);
static const ew_spec spec_ne_tensor = EW_SPEC("aclnnNeTensor", &npusim_ew_ne, M_NE, M_ALL, 0, 0);
static const ew_spec spec_ne_scalar = EW_SPEC("aclnnNeScalar", &npusim_ew_ne, M_NE, M_ALL, 0, 0);
static const ew_spec spec_gt_tensor = EW_SPEC("aclnnGtTensor", &npusim_ew_gt, M_ORDER, M_ALL, 0, 0);
static const ew_spec spec_gt_scalar = EW_SPEC("aclnnGtScalar", &npusim_ew_gt, M_ORDER, M_ALL, 0, 0);
static const ew_spec spec_ge_tensor = EW_SPEC("aclnnGeTensor", &npusim_ew_ge, M_ORDER, M_ALL, 0, 0);
static const ew_spec spec_ge_scalar = EW_SPEC("aclnnGeScalar", &npusim_ew_ge, M_ORDER, M_ALL, 0, 0);
static const ew_spec spec_lt_tensor = EW_SPEC("aclnnLtTensor", &npusim_ew_lt, M_ORDER, M_ALL, 0, 0);
static const ew_spec spec_lt_scalar = EW_SPEC("aclnnLtScalar", &npusim_ew_lt, M_ORDER, M_ALL, 0, 0);
static const ew_spec spec_le_tensor = EW_SPEC("aclnnLeTensor", &npusim_ew_le, M_LE, M_ALL, 0, 0);
static const ew_spec spec_le_scalar = EW_SPEC("aclnnLeScalar", &npusim_ew_le, M_LE, M_ALL, 0, 0);

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
