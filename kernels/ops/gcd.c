/* aclnnGcd (hicann/ops-math math/gcd/docs/aclnnGcd.md, op_host/op_api/aclnn_gcd.cpp): out = gcd(|self|, |other|)
 * element-wise. self and other promote to INT16, INT32 or INT64 (the Atlas A2/A3 list; bool with bool and int8
 * with int8 promote outside it and are rejected), broadcast; out is any integer dtype the promoted one casts to;
 * any strides. gcd(0, 0) = 0; gcd(x, 0) = |x|, and |minimum| wraps to the minimum itself in two's complement,
 * which is NumPy's and torch's answer too.
 *
 * npusim computes with Stein's binary algorithm on the magnitudes as unsigned integers: no division, a loop of
 * shifts and branch-free subtractions per element. */
#include "aclnnop/aclnn_gcd.h"
#include "ew_ops.h"

#define M_GCD_PROMOTED (DT(ACL_INT16) | DT(ACL_INT32) | DT(ACL_INT64))

static inline uint64_t magnitude64(int64_t x) { return x < 0 ? 0 - (uint64_t)x : (uint64_t)x; }
static inline uint32_t magnitude32(int32_t x) { return x < 0 ? 0 - (uint32_t)x : (uint32_t)x; }

/* Stein's algorithm for T, with CTZ its count of trailing zero bits. */
#define STEIN(NAME, T, CTZ)                                                     \
    static inline T NAME(T a, T b)                                              \
    {                                                                           \
        if (!a || !b) return a | b;                                             \
        int shift = CTZ(a | b);                                                 \
        a >>= CTZ(a);                                                           \
        do {                                                                    \
            b >>= CTZ(b);                                                       \
            T low = a < b ? a : b; /* min and max without a branch (cmov) */    \
            b = (a < b ? b : a) - low;                                          \
            a = low;                                                            \
        } while (b);                                                            \
        return a << shift;                                                      \
    }
STEIN(stein64, uint64_t, __builtin_ctzll)
STEIN(stein32, uint32_t, __builtin_ctz)

/* The casts back to signed wrap (2^63 -> INT64_MIN), as documented above. */
BINARY(gcd_i64, int64_t, int64_t, (int64_t)stein64(magnitude64(x), magnitude64(y)))
BINARY(gcd_i32, int32_t, int32_t, (int32_t)stein32(magnitude32(x), magnitude32(y)))

/* Kinds: int16 computes as int64 (loaded widened), int32 in its own slot. */
static const npusim_ew_op ew_gcd = { "gcd", 2, 0, false, false, { [KIND_I64] = gcd_i64, [KIND_I32] = gcd_i32 } };

static const ew_spec spec_gcd = EW_SPEC_OF(aclnnGcd, self, out, &ew_gcd, M_GCD_PROMOTED, 0);

aclnnStatus aclnnGcdGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_gcd, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnGcd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnGcd", workspace, workspaceSize, executor, stream);
}
