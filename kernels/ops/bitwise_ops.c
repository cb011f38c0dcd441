/* Bitwise and shift aclnn operators (docs/acl-abi.md §7.2 "Math"): aclnnBitwiseAnd/Or/Xor (Tensor and
 * Scalar forms), aclnnBitwiseNot, aclnnLeftShift(s), aclnnRightShift, and aclnnLogicalXor. bool
 * inputs compute the logical operation. Dtype sets are the ones CANN documents per operator (the
 * document is named next to each set).
 *
 * Shifts: CANN documents that a negative shiftBits of aclnnRightShift counts as 0; npusim does the
 * same for aclnnLeftShift. A shift by the bit width of the computation or more gives what shifting
 * bit by bit would (0, or -1 for a negative self shifted right), never C's undefined behaviour. The
 * computation is in 64 bits and the result is truncated to out's width, so an int8 shifted left by
 * 8 or more is 0 as well. */
#include "aclnnop/aclnn_bitwise_and_scalar.h"
#include "aclnnop/aclnn_bitwise_and_tensor.h"
#include "aclnnop/aclnn_bitwise_not.h"
#include "aclnnop/aclnn_bitwise_or_scalar.h"
#include "aclnnop/aclnn_bitwise_or_tensor.h"
#include "aclnnop/aclnn_bitwise_xor_scalar.h"
#include "aclnnop/aclnn_bitwise_xor_tensor.h"
#include "aclnnop/aclnn_left_shift.h"
#include "aclnnop/aclnn_logical_xor.h"
#include "aclnnop/aclnn_right_shift.h"
#include "ew_ops.h"

#define BITWISE(NAME, OP)                                                                      \
    BINARY(NAME##_b, uint8_t, uint8_t, x OP y)                                                  \
    BINARY(NAME##_i64, int64_t, int64_t, x OP y)                                                \
    BINARY(NAME##_u64, uint64_t, uint64_t, x OP y)                                              \
    BINARY(NAME##_i32, int32_t, int32_t, x OP y)
BITWISE(band, &)
BITWISE(bor, |)
BITWISE(bxor, ^)
UNARY(bnot_b, uint8_t, uint8_t, (uint8_t)!x)
UNARY(bnot_i64, int64_t, int64_t, ~x)
UNARY(bnot_u64, uint64_t, uint64_t, ~x)
UNARY(bnot_i32, int32_t, int32_t, ~x)
BINARY(lxor_b, uint8_t, uint8_t, (uint8_t)((x != 0) != (y != 0)))

/* Shift counts are read as signed (a uint64 count >= 2^63 is an over-wide shift either way). */
static inline int64_t shl_i64(int64_t x, int64_t y)
{
    return y < 0 ? x : y >= 64 ? 0 : (int64_t)((uint64_t)x << y);
}
static inline int64_t shr_i64(int64_t x, int64_t y)
{
    return y < 0 ? x : y >= 64 ? (x < 0 ? -1 : 0) : x >> y; /* >> of a negative int is arithmetic */
}
static inline uint64_t shl_u64(uint64_t x, uint64_t y) { return y >= 64 ? 0 : x << y; }
static inline uint64_t shr_u64(uint64_t x, uint64_t y) { return y >= 64 ? 0 : x >> y; }
BINARY(shl_i64k, int64_t, int64_t, shl_i64(x, y))
BINARY(shr_i64k, int64_t, int64_t, shr_i64(x, y))
BINARY(shl_u64k, uint64_t, uint64_t, shl_u64(x, y))
BINARY(shr_u64k, uint64_t, uint64_t, shr_u64(x, y))

#define OP(name, nin, boolout, b, i, u, i32)                                                   \
    { name, nin, 0, boolout, false, { b, i, u, NULL, NULL, NULL, i32 } }
static const npusim_ew_op ew_band = OP("bitwise_and", 2, false, band_b, band_i64, band_u64, band_i32);
static const npusim_ew_op ew_bor = OP("bitwise_or", 2, false, bor_b, bor_i64, bor_u64, bor_i32);
static const npusim_ew_op ew_bxor = OP("bitwise_xor", 2, false, bxor_b, bxor_i64, bxor_u64, bxor_i32);
static const npusim_ew_op ew_bnot = OP("bitwise_not", 1, false, bnot_b, bnot_i64, bnot_u64, bnot_i32);
static const npusim_ew_op ew_shl = OP("left_shift", 2, false, NULL, shl_i64k, shl_u64k, NULL);
static const npusim_ew_op ew_shr = OP("right_shift", 2, false, NULL, shr_i64k, shr_u64k, NULL);
static const npusim_ew_op ew_lxor = OP("logical_xor", 2, true, lxor_b, NULL, NULL, NULL);

static const ew_spec spec_and_tensor = EW_SPEC_OF(aclnnBitwiseAndTensor, self, out, &ew_band, 0, 0);
static const ew_spec spec_and_scalar = EW_SPEC_OF(aclnnBitwiseAndScalar, self, out, &ew_band, 0, 0);
static const ew_spec spec_or_tensor = EW_SPEC_OF(aclnnBitwiseOrTensor, self, out, &ew_bor, 0, 0);
static const ew_spec spec_or_scalar = EW_SPEC_OF(aclnnBitwiseOrScalar, self, out, &ew_bor, 0, 0);
static const ew_spec spec_xor_tensor = EW_SPEC_OF(aclnnBitwiseXorTensor, self, out, &ew_bxor, 0, 0);
static const ew_spec spec_xor_scalar = EW_SPEC_OF(aclnnBitwiseXorScalar, self, out, &ew_bxor, 0, 0);
static const ew_spec spec_not = EW_SPEC_OF(aclnnBitwiseNot, self, out, &ew_bnot, 0, 0);
static const ew_spec spec_left_shift = EW_SPEC_OF(aclnnLeftShift, self, out, &ew_shl, 0, 0);
static const ew_spec spec_left_shifts = EW_SPEC_OF(aclnnLeftShifts, self, out, &ew_shl, 0, 0);
static const ew_spec spec_right_shift = EW_SPEC_OF(aclnnRightShift, input, out, &ew_shr, 0, 0);
static const ew_spec spec_logical_xor = EW_SPEC_OF(aclnnLogicalXor, self, out, &ew_lxor, 0, 0);

/* A scalar operand must have a dtype of the operator's set too (the documents list it). */
static aclnnStatus tensor_scalar(const ew_spec *spec, uint64_t scalar_dtypes, const aclTensor *self,
                                 const aclScalar *other, const char *other_arg, aclTensor *out,
                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    int rc = npusim_check_scalar(spec->def.name, other_arg, other);
    if (rc || (rc = npusim_check_dtype(spec->def.name, other_arg, other->dtype, scalar_dtypes))) return rc;
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), SCALAR_ARG(other, other_arg) };
    return npusim_ew_prepare(spec, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

static aclnnStatus tensor_tensor(const ew_spec *spec, const aclTensor *self, const char *self_arg,
                                 const aclTensor *other, const char *other_arg, aclTensor *out,
                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, self_arg), TENSOR_ARG(other, other_arg) };
    return npusim_ew_prepare(spec, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnBitwiseAndTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tensor_tensor(&spec_and_tensor, self, "self", other, "other", out, workspaceSize, executor);
}
aclnnStatus aclnnBitwiseAndTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnBitwiseAndTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnBitwiseAndScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tensor_scalar(&spec_and_scalar, NPUSIM_DTYPES_aclnnBitwiseAndScalar_other, self, other, "other", out, workspaceSize, executor);
}
aclnnStatus aclnnBitwiseAndScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnBitwiseAndScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnBitwiseOrTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tensor_tensor(&spec_or_tensor, self, "self", other, "other", out, workspaceSize, executor);
}
aclnnStatus aclnnBitwiseOrTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnBitwiseOrTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnBitwiseOrScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tensor_scalar(&spec_or_scalar, NPUSIM_DTYPES_aclnnBitwiseOrScalar_other, self, other, "other", out, workspaceSize, executor);
}
aclnnStatus aclnnBitwiseOrScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnBitwiseOrScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnBitwiseXorTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tensor_tensor(&spec_xor_tensor, self, "self", other, "other", out, workspaceSize, executor);
}
aclnnStatus aclnnBitwiseXorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnBitwiseXorTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnBitwiseXorScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tensor_scalar(&spec_xor_scalar, NPUSIM_DTYPES_aclnnBitwiseXorScalar_other, self, other, "other", out, workspaceSize, executor);
}
aclnnStatus aclnnBitwiseXorScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnBitwiseXorScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnBitwiseNotGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                            aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_not, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}
aclnnStatus aclnnBitwiseNot(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnBitwiseNot", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLeftShiftGetWorkspaceSize(const aclTensor *self, const aclTensor *shiftBits, aclTensor *out,
                                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tensor_tensor(&spec_left_shift, self, "self", shiftBits, "shiftBits", out, workspaceSize, executor);
}
aclnnStatus aclnnLeftShift(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLeftShift", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLeftShiftsGetWorkspaceSize(const aclTensor *self, const aclScalar *shiftBits, aclTensor *out,
                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tensor_scalar(&spec_left_shifts, NPUSIM_DTYPES_aclnnLeftShifts_shiftBits, self, shiftBits, "shiftBits", out, workspaceSize, executor);
}
aclnnStatus aclnnLeftShifts(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLeftShifts", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRightShiftGetWorkspaceSize(const aclTensor *input, const aclTensor *shiftBits, aclTensor *out,
                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tensor_tensor(&spec_right_shift, input, "input", shiftBits, "shiftBits", out, workspaceSize, executor);
}
aclnnStatus aclnnRightShift(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnRightShift", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLogicalXorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tensor_tensor(&spec_logical_xor, self, "self", other, "other", out, workspaceSize, executor);
}
aclnnStatus aclnnLogicalXor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLogicalXor", workspace, workspaceSize, executor, stream);
}
