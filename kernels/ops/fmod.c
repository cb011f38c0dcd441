/* aclnnFmodTensor and aclnnFmodScalar (hicann/ops-math math/mod/docs/aclnnFmodTensor&aclnnInplaceFmodTensor.md,
 * aclnnFmodScalar&aclnnInplaceFmodScalar.md): out = self - trunc(self / other) * other, the C remainder with the
 * sign of self (torch.fmod and numpy.fmod; the documents' formula writes the rounding as a floor). self and
 * other (a tensor, broadcast, or a host aclScalar) are DOUBLE, BFLOAT16, FLOAT16, FLOAT, INT32, INT64, INT8 or
 * UINT8; they promote, and out is any of those the promoted dtype casts to.
 *
 * npusim: floats by C's fmod (exact in every precision; NaN for a zero divisor or an infinite dividend), float64
 * by a power of two directly (fmod_f64_of); integers by C's truncating %, with a zero divisor giving 0 (NumPy's
 * value; the device's is unspecified) and -1 giving 0 (the minimum % -1 overflows in C). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "aclnnop/aclnn_fmod_scalar.h"
#include "aclnnop/aclnn_fmod_tensor.h"
#include "ew_ops.h"

BINARY(fmod_i64, int64_t, int64_t, (y == 0 || y == -1) ? 0 : x % y)
BINARY(fmod_i32, int32_t, int32_t, (y == 0 || y == -1) ? 0 : x % y)
BINARY(fmod_f32, float, float, fmodf(x, y))
/* fmod(x, y) for float64; a normal power-of-two y (and finite x) directly as x - trunc(x / y) y, which is exact:
 * dividing and multiplying by y only move exponents (a quotient below 1 that underflows still truncates to 0), and
 * the difference is x with its bits of weight |y| and above cleared; a quotient of 2^53 or more means those are all
 * of x's bits (the remainder is a zero with x's sign). glibc's fmod loops over the exponents' difference (slow
 * for a difference of ~60, as float64 matmul's digit cutting had). Other divisors (zero, inf, NaN, subnormal, not
 * a power of two) by C's fmod. */
static inline double fmod_f64_of(double x, double y)
{
    uint64_t bits;
    memcpy(&bits, &y, sizeof bits);
    uint64_t exponent = (bits >> 52) & 0x7ff;
    if ((bits & 0x000fffffffffffffull) != 0 || exponent == 0 || exponent == 0x7ff || !isfinite(x))
        return fmod(x, y);
    double q = x / y;
    if (fabs(q) >= 0x1p53)
        return copysign(0.0, x);
    return copysign(x - trunc(q) * y, x);
}

BINARY(fmod_f64, double, double, fmod_f64_of(x, y))

/* Kinds: int8/uint8 compute as int64 (loaded widened), float16/bfloat16 as float. */
static const npusim_ew_op ew_fmod = { "fmod", 2, 0, false, false,
                                      { [KIND_I64] = fmod_i64, [KIND_F32] = fmod_f32, [KIND_F64] = fmod_f64,
                                        [KIND_I32] = fmod_i32 } };

static const ew_spec spec_fmod_tensor = EW_SPEC_OF(aclnnFmodTensor, self, out, &ew_fmod, NPUSIM_DTYPES_aclnnFmodTensor_self, 0);
static const ew_spec spec_fmod_scalar = EW_SPEC_OF(aclnnFmodScalar, self, out, &ew_fmod, NPUSIM_DTYPES_aclnnFmodScalar_self, 0);

aclnnStatus aclnnFmodTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_fmod_tensor, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnFmodTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnFmodTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnFmodScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_fmod_scalar, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnFmodScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnFmodScalar", workspace, workspaceSize, executor, stream);
}
