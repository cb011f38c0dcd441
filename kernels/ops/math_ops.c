/* More element-wise math aclnn operators (docs/acl-abi.md §7.2 "Math"): trigonometric and hyperbolic
 * functions, log2/log10/log1p/exp2/expm1, rsqrt, reciprocal, atan2, the roundings
 * floor/ceil/trunc/round (half to even; the identity on integers), sign (NaN stays NaN, complex
 * x gives x / |x|), isfinite, and clamp. Integer inputs compute in double and need a floating out, as
 * with aclnnExp; the dtype sets are the ones CANN documents per operator. */
#include "aclnnop/aclnn_acos.h"
#include "aclnnop/aclnn_asin.h"
#include "aclnnop/aclnn_atan.h"
#include "aclnnop/aclnn_atan2.h"
#include "aclnnop/aclnn_ceil.h"
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_cos.h"
#include "aclnnop/aclnn_cosh.h"
#include "aclnnop/aclnn_exp2.h"
#include "aclnnop/aclnn_expm1.h"
#include "aclnnop/aclnn_floor.h"
#include "aclnnop/aclnn_isfinite.h"
#include "aclnnop/aclnn_log10.h"
#include "aclnnop/aclnn_log1p.h"
#include "aclnnop/aclnn_log2.h"
#include "aclnnop/aclnn_reciprocal.h"
#include "aclnnop/aclnn_round.h"
#include "aclnnop/aclnn_rsqrt.h"
#include "aclnnop/aclnn_sign.h"
#include "aclnnop/aclnn_sin.h"
#include "aclnnop/aclnn_sinh.h"
#include "aclnnop/aclnn_tan.h"
#include "aclnnop/aclnn_tanh.h"
#include "aclnnop/aclnn_trunc.h"
#include "ew_ops.h"


static const ew_spec spec_sin = EW_SPEC_OF(aclnnSin, self, out, &npusim_ew_sin, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_cos = EW_SPEC_OF(aclnnCos, input, out, &npusim_ew_cos, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_tan = EW_SPEC_OF(aclnnTan, self, out, &npusim_ew_tan, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_tanh = EW_SPEC_OF(aclnnTanh, self, out, &npusim_ew_tanh, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_sinh = EW_SPEC_OF(aclnnSinh, self, out, &npusim_ew_sinh, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_cosh = EW_SPEC_OF(aclnnCosh, self, out, &npusim_ew_cosh, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_asin = EW_SPEC_OF(aclnnAsin, self, out, &npusim_ew_asin, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_acos = EW_SPEC_OF(aclnnAcos, input, out, &npusim_ew_acos, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_atan = EW_SPEC_OF(aclnnAtan, input, out, &npusim_ew_atan, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_log2 = EW_SPEC_OF(aclnnLog2, self, out, &npusim_ew_log2, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_log10 = EW_SPEC_OF(aclnnLog10, self, out, &npusim_ew_log10, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_log1p = EW_SPEC_OF(aclnnLog1p, self, out, &npusim_ew_log1p, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_exp2 = EW_SPEC_OF(aclnnExp2, self, out, &npusim_ew_exp2, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_expm1 = EW_SPEC_OF(aclnnExpm1, self, out, &npusim_ew_expm1, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_rsqrt = EW_SPEC_OF(aclnnRsqrt, self, out, &npusim_ew_rsqrt, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_reciprocal = EW_SPEC_OF(aclnnReciprocal, self, out, &npusim_ew_reciprocal, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_floor = EW_SPEC_OF(aclnnFloor, self, out, &npusim_ew_floor, 0, 0);
static const ew_spec spec_ceil = EW_SPEC_OF(aclnnCeil, self, out, &npusim_ew_ceil, 0, 0);
static const ew_spec spec_trunc = EW_SPEC_OF(aclnnTrunc, self, out, &npusim_ew_trunc, 0, 0);
static const ew_spec spec_round = EW_SPEC_OF(aclnnRound, self, out, &npusim_ew_round, 0, 0);
static const ew_spec spec_sign = EW_SPEC_OF(aclnnSign, self, result, &npusim_ew_sign, 0, 0);
static const ew_spec spec_isfinite = EW_SPEC_OF(aclnnIsFinite, self, out, &npusim_ew_isfinite, 0, 0);
static const ew_spec spec_atan2 = EW_SPEC_OF(aclnnAtan2, self, out, &npusim_ew_atan2, 0, RULE_FLOAT_RESULT);

aclnnStatus aclnnSinGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_sin, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnSin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSin", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnCosGetWorkspaceSize(const aclTensor *input, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(input, "input") };
    return npusim_ew_prepare(&spec_cos, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnCos(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnCos", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnTanGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_tan, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnTan(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnTan", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnTanhGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_tanh, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnTanh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnTanh", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSinhGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_sinh, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnSinh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSinh", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnCoshGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_cosh, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnCosh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnCosh", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAsinGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_asin, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnAsin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAsin", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAcosGetWorkspaceSize(const aclTensor *input, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(input, "input") };
    return npusim_ew_prepare(&spec_acos, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnAcos(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAcos", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAtanGetWorkspaceSize(const aclTensor *input, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(input, "input") };
    return npusim_ew_prepare(&spec_atan, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnAtan(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAtan", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLog2GetWorkspaceSize(const aclTensor *self, const aclTensor *out, uint64_t *workspace_size, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_log2, ins, 1, NULL, NULL, (aclTensor *)out, NULL, workspace_size, executor);
}

aclnnStatus aclnnLog2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLog2", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLog10GetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_log10, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLog10(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLog10", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLog1pGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_log1p, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLog1p(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLog1p", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnExp2GetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_exp2, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnExp2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnExp2", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnExpm1GetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_expm1, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnExpm1(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnExpm1", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRsqrtGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_rsqrt, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnRsqrt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnRsqrt", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnReciprocalGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_reciprocal, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnReciprocal(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnReciprocal", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnFloorGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_floor, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnFloor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnFloor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnCeilGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_ceil, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnCeil(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnCeil", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnTruncGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_trunc, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnTrunc(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnTrunc", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRoundGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_round, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnRound(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnRound", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSignGetWorkspaceSize(const aclTensor *self, aclTensor *result, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_sign, ins, 1, NULL, NULL, result, "result", workspaceSize, executor);
}

aclnnStatus aclnnSign(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSign", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnIsFiniteGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_isfinite, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnIsFinite(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnIsFinite", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAtan2GetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_atan2, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnAtan2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAtan2", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnClamp / aclnnClampMin / aclnnClampMax: out = min(max(self, min), max) in the promoted type
 * of self and the bounds (NULL bound: none; aclnnClamp needs at least one). */


static const ew_spec spec_clamp = EW_SPEC_OF(aclnnClamp, self, out, &npusim_ew_clamp, 0, 0);
static const ew_spec spec_clamp_min = EW_SPEC_OF(aclnnClampMin, self, out, &npusim_ew_clamp, 0, 0);
static const ew_spec spec_clamp_max = EW_SPEC_OF(aclnnClampMax, self, out, &npusim_ew_clamp, 0, 0);

static aclnnStatus clamp_prepare(const ew_spec *spec, const aclTensor *self, const aclScalar *lo, const aclScalar *hi,
                                 aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = spec->def.name;
    if (!lo && !hi)
        return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: clipValueMin and clipValueMax are both NULL",
                            name);
    if ((lo && !npusim_is_scalar(lo)) || (hi && !npusim_is_scalar(hi)))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: a bound is not a live aclScalar", name);
    /* The result type: self promoted with the bounds. */
    aclDataType p = npusim_is_tensor(self) ? self->dtype : ACL_DT_UNDEFINED;
    if (lo && p != ACL_DT_UNDEFINED) p = npusim_promote_scalar(p, lo->dtype);
    if (hi && p != ACL_DT_UNDEFINED) p = npusim_promote_scalar(p, hi->dtype);
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    int rc = npusim_ew_prepare(spec, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
    if (rc) return rc;
    npusim_exec *ex = npusim_exec_of(*executor);
    /* The engine chose the kind from self alone; bounds of a higher category widen it. */
    npusim_kind k = npusim_kind_of(p);
    if (k == KIND_BOOL) k = KIND_I32;
    if (npusim_dtype_category(p) > npusim_dtype_category(self->dtype)) {
        if (npusim_dtype_category(out->dtype) < npusim_dtype_category(p)) {
            aclDestroyAclOpExecutor(ex);
            *executor = NULL;
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out has dtype %s, which cannot hold the "
                                "result type %s", name, npusim_dtype_name(out->dtype), npusim_dtype_name(p));
        }
        ex->kind = k == KIND_F32 && npusim_is_integral(self->dtype) && npusim_dtype_size(self->dtype) >= 4 ? KIND_F64 : k;
    }
    if (ex->kind == KIND_BOOL) ex->kind = KIND_I32;
    ex->mode = (lo ? 1 : 0) | (hi ? 2 : 0);
    if (lo) npusim_scalar_value(lo, ex->kind, &ex->scalars[0]);
    if (hi) npusim_scalar_value(hi, ex->kind, &ex->scalars[1]);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                       const aclScalar *clipValueMax, aclTensor *out, uint64_t *workspaceSize,
                                       aclOpExecutor **executor)
{
    return clamp_prepare(&spec_clamp, self, clipValueMin, clipValueMax, out, workspaceSize, executor);
}

aclnnStatus aclnnClamp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnClamp", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnClampMinGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin, aclTensor *out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!clipValueMin)
        return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclnnClampMinGetWorkspaceSize: clipValueMin is NULL");
    return clamp_prepare(&spec_clamp_min, self, clipValueMin, NULL, out, workspaceSize, executor);
}

aclnnStatus aclnnClampMin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnClampMin", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnClampMaxGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMax, aclTensor *out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!clipValueMax)
        return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclnnClampMaxGetWorkspaceSize: clipValueMax is NULL");
    return clamp_prepare(&spec_clamp_max, self, NULL, clipValueMax, out, workspaceSize, executor);
}

aclnnStatus aclnnClampMax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnClampMax", workspace, workspaceSize, executor, stream);
}
