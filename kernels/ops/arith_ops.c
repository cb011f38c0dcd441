/* Arithmetic, math and logical element-wise aclnn operators (docs/acl-abi.md §7.2 "Arithmetic", "Math",
 * "Logical"): first phases describe the operator to the element-wise engine; second phases
 * launch the executor. Dtype sets are the operator table's (aclnn_dtypes.h, from kernels/aclnn_dtypes.tsv).
 *
 * Semantics worth knowing: binary operators compute in the promoted type of their inputs (torch
 * rules; a scalar only raises the category) and cast to out's dtype, which must be able to hold
 * it. Integer inputs of Div/Exp/Log/Sqrt compute in double. Integer division and remainder by
 * zero give 0; integer pow with a negative exponent gives 0 (bases 1 and -1 excepted). */
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_floor_divide.h"
#include "aclnnop/aclnn_log.h"
#include "aclnnop/aclnn_logical_and.h"
#include "aclnnop/aclnn_logical_not.h"
#include "aclnnop/aclnn_logical_or.h"
#include "aclnnop/aclnn_maximum.h"
#include "aclnnop/aclnn_minimum.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_pow_tensor_tensor.h"
#include "aclnnop/aclnn_remainder.h"
#include "aclnnop/aclnn_rsub.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_sub.h"
#include "ew_ops.h"

#define M_REMAINDER (DT(ACL_INT32) | DT(ACL_INT64) | M_FLOATS)

static const ew_spec spec_add = EW_SPEC_OF(aclnnAdd, self, out, &npusim_ew_add, 0, 0);
static const ew_spec spec_adds = EW_SPEC_OF(aclnnAdds, self, out, &npusim_ew_add, 0, 0);
static const ew_spec spec_inplace_add = EW_SPEC_OF(aclnnInplaceAdd, other, selfRef, &npusim_ew_add, 0, 0);
static const ew_spec spec_sub = EW_SPEC_OF(aclnnSub, self, out, &npusim_ew_sub, 0, RULE_NO_BOOL);
static const ew_spec spec_subs = EW_SPEC_OF(aclnnSubs, self, out, &npusim_ew_sub, 0, RULE_NO_BOOL);
static const ew_spec spec_inplace_sub = EW_SPEC_OF(aclnnInplaceSub, other, selfRef, &npusim_ew_sub, 0, RULE_NO_BOOL);
static const ew_spec spec_rsub = EW_SPEC_OF(aclnnRsub, self, out, &npusim_ew_sub, 0, RULE_NO_BOOL);
static const ew_spec spec_rsubs = EW_SPEC_OF(aclnnRsubs, self, out, &npusim_ew_sub, 0, RULE_NO_BOOL);
static const ew_spec spec_mul = EW_SPEC_OF(aclnnMul, self, out, &npusim_ew_mul, 0, 0);
static const ew_spec spec_muls = EW_SPEC_OF(aclnnMuls, self, out, &npusim_ew_mul, 0, 0);
static const ew_spec spec_inplace_mul = EW_SPEC_OF(aclnnInplaceMul, other, selfRef, &npusim_ew_mul, 0, 0);
static const ew_spec spec_div = EW_SPEC_OF(aclnnDiv, self, out, &npusim_ew_div, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_divs = EW_SPEC_OF(aclnnDivs, self, out, &npusim_ew_div, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_inplace_div = EW_SPEC_OF(aclnnInplaceDiv, other, selfRef, &npusim_ew_div, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_divmod_true = EW_SPEC_OF(aclnnDivMod, self, out, &npusim_ew_div, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_divmod_trunc = EW_SPEC_OF(aclnnDivMod, self, out, &npusim_ew_truncdiv, 0, 0);
static const ew_spec spec_divmod_floor = EW_SPEC_OF(aclnnDivMod, self, out, &npusim_ew_floordiv, 0, 0);
static const ew_spec spec_divmods_true = EW_SPEC_OF(aclnnDivMods, self, out, &npusim_ew_div, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_divmods_trunc = EW_SPEC_OF(aclnnDivMods, self, out, &npusim_ew_truncdiv, 0, 0);
static const ew_spec spec_divmods_floor = EW_SPEC_OF(aclnnDivMods, self, out, &npusim_ew_floordiv, 0, 0);
static const ew_spec spec_floor_divide = EW_SPEC_OF(aclnnFloorDivide, self, out, &npusim_ew_floordiv, 0, 0);
static const ew_spec spec_floor_divides = EW_SPEC_OF(aclnnFloorDivides, self, out, &npusim_ew_floordiv, 0, 0);
static const ew_spec spec_rem_tt = EW_SPEC_OF(aclnnRemainderTensorTensor, self, out, &npusim_ew_remainder, M_REMAINDER, 0);
static const ew_spec spec_rem_ts = EW_SPEC_OF(aclnnRemainderTensorScalar, self, out, &npusim_ew_remainder, M_REMAINDER, 0);
static const ew_spec spec_rem_st = EW_SPEC_OF(aclnnRemainderScalarTensor, other, out, &npusim_ew_remainder, M_REMAINDER, 0);
static const ew_spec spec_pow_tt = EW_SPEC_OF(aclnnPowTensorTensor, self, out, &npusim_ew_pow, 0, 0);
static const ew_spec spec_pow_ts = EW_SPEC_OF(aclnnPowTensorScalar, self, out, &npusim_ew_pow, 0, 0);
static const ew_spec spec_pow_st = EW_SPEC_OF(aclnnPowScalarTensor, exponent, out, &npusim_ew_pow, 0, 0);
static const ew_spec spec_maximum = EW_SPEC_OF(aclnnMaximum, self, out, &npusim_ew_maximum, 0, 0);
static const ew_spec spec_minimum = EW_SPEC_OF(aclnnMinimum, self, out, &npusim_ew_minimum, 0, 0);
static const ew_spec spec_neg = EW_SPEC_OF(aclnnNeg, self, out, &npusim_ew_neg, 0, 0);
static const ew_spec spec_abs = EW_SPEC_OF(aclnnAbs, self, out, &npusim_ew_abs, 0, 0);
static const ew_spec spec_exp = EW_SPEC_OF(aclnnExp, self, out, &npusim_ew_exp, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_log = EW_SPEC_OF(aclnnLog, self, out, &npusim_ew_log, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_sqrt = EW_SPEC_OF(aclnnSqrt, self, out, &npusim_ew_sqrt, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_logical_not = EW_SPEC_OF(aclnnLogicalNot, self, out, &npusim_ew_not, 0, 0);
static const ew_spec spec_logical_and = EW_SPEC_OF(aclnnLogicalAnd, self, out, &npusim_ew_and, 0, 0);
static const ew_spec spec_logical_or = EW_SPEC_OF(aclnnLogicalOr, self, out, &npusim_ew_or, 0, 0);

/* Rsub: out = other - alpha * self, i.e. sub with the inputs swapped. */
static const int SWAPPED[2] = { 1, 0 };

static const ew_spec *divmod_spec(int mode, const ew_spec *true_div, const ew_spec *trunc_div,
                                  const ew_spec *floor_div, const char *name)
{
    switch (mode) {
    case 0: return true_div;
    case 1: return trunc_div;
    case 2: return floor_div;
    default:
        npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: mode %d is not 0 (true), 1 (trunc) or 2 (floor)",
                     name, mode);
        return NULL;
    }
}

aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_add, ins, 2, NULL, alpha, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAdd", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_adds, ins, 2, NULL, alpha, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnAdds(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAdds", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(selfRef, "selfRef"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_inplace_add, ins, 2, NULL, alpha, (aclTensor *)selfRef, "selfRef", workspaceSize, executor);
}

aclnnStatus aclnnInplaceAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceAdd", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_sub, ins, 2, NULL, alpha, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnSub(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSub", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_subs, ins, 2, NULL, alpha, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnSubs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSubs", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(selfRef, "selfRef"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_inplace_sub, ins, 2, NULL, alpha, (aclTensor *)selfRef, "selfRef", workspaceSize, executor);
}

aclnnStatus aclnnInplaceSub(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceSub", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRsubGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_rsub, ins, 2, SWAPPED, alpha, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnRsub(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnRsub", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRsubsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_rsubs, ins, 2, SWAPPED, alpha, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnRsubs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnRsubs", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_mul, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnMul", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_muls, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnMuls(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnMuls", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(selfRef, "selfRef"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_inplace_mul, ins, 2, NULL, NULL, (aclTensor *)selfRef, "selfRef", workspaceSize, executor);
}

aclnnStatus aclnnInplaceMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceMul", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_div, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnDiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnDiv", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnDivsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_divs, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnDivs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnDivs", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceDivGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(selfRef, "selfRef"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_inplace_div, ins, 2, NULL, NULL, (aclTensor *)selfRef, "selfRef", workspaceSize, executor);
}

aclnnStatus aclnnInplaceDiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceDiv", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnDivModGetWorkspaceSize(const aclTensor *self, const aclTensor *other, int mode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_spec *spec = divmod_spec(mode, &spec_divmod_true, &spec_divmod_trunc, &spec_divmod_floor, "aclnnDivMod");
    if (!spec) return ACLNN_ERR_PARAM_INVALID;
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(spec, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnDivMod(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnDivMod", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnDivModsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, int mode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_spec *spec = divmod_spec(mode, &spec_divmods_true, &spec_divmods_trunc, &spec_divmods_floor, "aclnnDivMods");
    if (!spec) return ACLNN_ERR_PARAM_INVALID;
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(spec, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnDivMods(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnDivMods", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnFloorDivideGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_floor_divide, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnFloorDivide(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnFloorDivide", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnFloorDividesGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_floor_divides, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnFloorDivides(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnFloorDivides", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRemainderTensorTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_rem_tt, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnRemainderTensorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnRemainderTensorTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRemainderTensorScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_rem_ts, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnRemainderTensorScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnRemainderTensorScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRemainderScalarTensorGetWorkspaceSize(const aclScalar *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { SCALAR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_rem_st, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnRemainderScalarTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnRemainderScalarTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnPowTensorTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *exponent, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(exponent, "exponent") };
    return npusim_ew_prepare(&spec_pow_tt, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnPowTensorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnPowTensorTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *exponent, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(exponent, "exponent") };
    return npusim_ew_prepare(&spec_pow_ts, ins, 2, NULL, NULL, (aclTensor *)out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnPowTensorScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnPowTensorScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar *self, const aclTensor *exponent, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { SCALAR_ARG(self, "self"), TENSOR_ARG(exponent, "exponent") };
    return npusim_ew_prepare(&spec_pow_st, ins, 2, NULL, NULL, (aclTensor *)out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnPowScalarTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnPowScalarTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaximumGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_maximum, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnMaximum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnMaximum", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMinimumGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_minimum, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnMinimum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnMinimum", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnNegGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_neg, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnNeg(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnNeg", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAbsGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_abs, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnAbs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAbs", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnExpGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_exp, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnExp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnExp", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLogGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_log, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLog(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLog", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSqrtGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **opExecutor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_sqrt, ins, 1, NULL, NULL, out, NULL, workspaceSize, opExecutor);
}

aclnnStatus aclnnSqrt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSqrt", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLogicalNotGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_logical_not, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLogicalNot(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLogicalNot", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLogicalAndGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_logical_and, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLogicalAnd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLogicalAnd", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLogicalOrGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_logical_or, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLogicalOr(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLogicalOr", workspace, workspaceSize, executor, stream);
}
