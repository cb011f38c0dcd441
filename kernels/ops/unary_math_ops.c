/* Unary element-wise aclnn operators of the array API's unary functions that math_ops.c lacks:
 * acosh, asinh, atanh, signbit, isposinf, isneginf, real. Each accepts the dtypes of the base table
 * of its CANN document (the ones every Atlas A2/A3 product supports; extras documented for A3 only
 * are refused, so a program that runs here runs on either). */
#include <complex.h>
#include <math.h>

#include "aclnnop/aclnn_acosh.h"
#include "aclnnop/aclnn_asinh.h"
#include "aclnnop/aclnn_atanh.h"
#include "aclnnop/aclnn_isneginf.h"
#include "aclnnop/aclnn_isposinf.h"
#include "aclnnop/aclnn_real.h"
#include "aclnnop/aclnn_signbit.h"
#include "ew_ops.h"

/* ---------------------------------------------------------------------------------------------
 * Kernels: one loop per computation kind over contiguous buffers. */

UNARY(acosh_f32, float, float, acoshf(x))
UNARY(acosh_f64, double, double, acosh(x))
UNARY(asinh_f32, float, float, asinhf(x))
UNARY(asinh_f64, double, double, asinh(x))
UNARY(atanh_f32, float, float, atanhf(x))
UNARY(atanh_f64, double, double, atanh(x))
/* signbit: the sign bit of floats (so -0.0 and NaNs with the bit set count), x < 0 for integers
 * (bool inputs compute as I64). */
UNARY(signbit_i64, int64_t, uint8_t, x < 0)
UNARY(signbit_u64, uint64_t, uint8_t, 0 && x) /* unsigned: never */
UNARY(signbit_f32, float, uint8_t, signbit(x) != 0)
UNARY(signbit_f64, double, uint8_t, signbit(x) != 0)
UNARY(signbit_i32, int32_t, uint8_t, x < 0)
UNARY(isposinf_f32, float, uint8_t, x == INFINITY)
UNARY(isposinf_f64, double, uint8_t, x == INFINITY)
UNARY(isneginf_f32, float, uint8_t, x == -INFINITY)
UNARY(isneginf_f64, double, uint8_t, x == -INFINITY)
UNARY(real_f32, float, float, x)
UNARY(real_f64, double, double, x)
UNARY(real_c128, double _Complex, double, creal(x))

/* Kinds: BOOL, I64, U64, F32, F64, C128, I32 (ops_internal.h). */
#define FLOAT_OP(name, f, d) { #name, 1, 0, false, false, { NULL, NULL, NULL, f, d, NULL, NULL } }
static const npusim_ew_op ew_acosh = FLOAT_OP(acosh, acosh_f32, acosh_f64);
static const npusim_ew_op ew_asinh = FLOAT_OP(asinh, asinh_f32, asinh_f64);
static const npusim_ew_op ew_atanh = FLOAT_OP(atanh, atanh_f32, atanh_f64);
static const npusim_ew_op ew_signbit = { "signbit", 1, 0, true, false,
    { NULL, signbit_i64, signbit_u64, signbit_f32, signbit_f64, NULL, signbit_i32 } };
static const npusim_ew_op ew_isposinf = { "isposinf", 1, 0, true, false,
    { NULL, NULL, NULL, isposinf_f32, isposinf_f64, NULL, NULL } };
static const npusim_ew_op ew_isneginf = { "isneginf", 1, 0, true, false,
    { NULL, NULL, NULL, isneginf_f32, isneginf_f64, NULL, NULL } };
/* real_out: complex input gives its real part as F64, stored into out's real dtype. */
static const npusim_ew_op ew_real = { "real", 1, 0, false, true,
    { NULL, NULL, NULL, real_f32, real_f64, real_c128, NULL } };

/* ---------------------------------------------------------------------------------------------
 * Dtype sets, each from the operator's document in hicann/ops-math. */

/* math/asinh/docs/aclnnAsinh&aclnnInplaceAsinh.md and math/atanh/docs/aclnnAtanh&aclnnInplaceAtanh.md:
 * input FLOAT, FLOAT16, DOUBLE, INT8, INT16, INT32, INT64, UINT8, BOOL (integers and bool computed
 * in FLOAT); out FLOAT, FLOAT16, DOUBLE. */

static const ew_spec spec_acosh = EW_SPEC_OF(aclnnAcosh, self, out, &ew_acosh, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_asinh = EW_SPEC_OF(aclnnAsinh, input, out, &ew_asinh, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_atanh = EW_SPEC_OF(aclnnAtanh, input, out, &ew_atanh, 0, RULE_FLOAT_RESULT);
static const ew_spec spec_signbit = EW_SPEC_OF(aclnnSignbit, self, out, &ew_signbit, 0, 0);
static const ew_spec spec_isposinf = EW_SPEC_OF(aclnnIsPosInf, self, out, &ew_isposinf, 0, 0);
static const ew_spec spec_isneginf = EW_SPEC_OF(aclnnIsNegInf, self, out, &ew_isneginf, 0, 0);
static const ew_spec spec_real = EW_SPEC_OF(aclnnReal, self, out, &ew_real, 0, 0);

/* ---------------------------------------------------------------------------------------------
 * The two phases: (input, out) checked and prepared by the element-wise engine. */

static aclnnStatus prepare(const ew_spec *spec, const aclTensor *self, const char *self_arg, aclTensor *out,
                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, self_arg) };
    return npusim_ew_prepare(spec, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnAcoshGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                       aclOpExecutor **executor)
{
    return prepare(&spec_acosh, self, "self", out, workspaceSize, executor);
}

aclnnStatus aclnnAcosh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAcosh", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAsinhGetWorkspaceSize(const aclTensor *input, aclTensor *out, uint64_t *workspaceSize,
                                       aclOpExecutor **executor)
{
    return prepare(&spec_asinh, input, "input", out, workspaceSize, executor);
}

aclnnStatus aclnnAsinh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAsinh", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAtanhGetWorkspaceSize(const aclTensor *input, aclTensor *out, uint64_t *workspaceSize,
                                       aclOpExecutor **executor)
{
    return prepare(&spec_atanh, input, "input", out, workspaceSize, executor);
}

aclnnStatus aclnnAtanh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAtanh", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSignbitGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                         aclOpExecutor **executor)
{
    return prepare(&spec_signbit, self, "self", out, workspaceSize, executor);
}

aclnnStatus aclnnSignbit(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSignbit", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnIsPosInfGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                          aclOpExecutor **executor)
{
    return prepare(&spec_isposinf, self, "self", out, workspaceSize, executor);
}

aclnnStatus aclnnIsPosInf(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                          const aclrtStream stream)
{
    return npusim_exec_launch("aclnnIsPosInf", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnIsNegInfGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                          aclOpExecutor **executor)
{
    return prepare(&spec_isneginf, self, "self", out, workspaceSize, executor);
}

aclnnStatus aclnnIsNegInf(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                          const aclrtStream stream)
{
    return npusim_exec_launch("aclnnIsNegInf", workspace, workspaceSize, executor, stream);
}

/* aclnnReal's document pairs each input dtype with one out dtype. */
static aclDataType real_out_dtype(aclDataType self)
{
    switch (self) {
    case ACL_COMPLEX64: return ACL_FLOAT;
    case ACL_COMPLEX128: return ACL_DOUBLE;
    default: return self;
    }
}

aclnnStatus aclnnRealGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor)
{
    int rc = prepare(&spec_real, self, "self", out, workspaceSize, executor);
    if (rc || out->dtype == real_out_dtype(self->dtype)) return rc;
    aclDestroyAclOpExecutor(*executor);
    *executor = NULL;
    return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnRealGetWorkspaceSize: self of dtype %s needs out of dtype %s, "
                        "got %s", npusim_dtype_name(self->dtype), npusim_dtype_name(real_out_dtype(self->dtype)),
                        npusim_dtype_name(out->dtype));
}

aclnnStatus aclnnReal(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnReal", workspace, workspaceSize, executor, stream);
}
