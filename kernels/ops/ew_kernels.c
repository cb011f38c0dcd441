/* The element-wise operations, one loop per computation kind over contiguous buffers (written
 * so that -O3 vectorises the float ones). Integer arithmetic wraps like two's complement;
 * integer division or remainder by zero gives 0 (as NumPy does), never a trap. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "ew_ops.h"

typedef double _Complex cplx;

/* Loop bodies (UNARY and BINARY are in ew_ops.h): x (and y, z) are the inputs, alpha the
 * op's alpha in kind T; alpha == 1 takes the plain loop, which vectorises best. */
#define BINARY_ALPHA(NAME, T, EXPR1, EXPR)                                                     \
    EW_MULTI_ISA static void NAME(void *out_, const void *const *in, size_t n, const npusim_exec *ex)       \
    {                                                                                          \
        T *o = out_;                                                                           \
        const T *a = in[0], *b = in[1];                                                        \
        T alpha;                                                                               \
        memcpy(&alpha, &ex->scalars[2], sizeof alpha);                                         \
        if (alpha == (T)1) {                                                                   \
            for (size_t i = 0; i < n; i++) {                                                   \
                const T x = a[i], y = b[i];                                                    \
                o[i] = (EXPR1);                                                                \
            }                                                                                  \
        } else {                                                                               \
            for (size_t i = 0; i < n; i++) {                                                   \
                const T x = a[i], y = b[i];                                                    \
                o[i] = (EXPR);                                                                 \
            }                                                                                  \
        }                                                                                      \
    }

#define U(x) ((uint64_t)(x))
#define WRAP(x) ((int64_t)(x))

/* ---------------------------------------------------------------------------------------------
 * Arithmetic */

BINARY_ALPHA(add_i64, int64_t, WRAP(U(x) + U(y)), WRAP(U(x) + U(alpha) * U(y)))
BINARY_ALPHA(add_u64, uint64_t, x + y, x + alpha * y)
BINARY_ALPHA(add_f32, float, x + y, x + alpha * y)
BINARY_ALPHA(add_f64, double, x + y, x + alpha * y)
BINARY_ALPHA(add_c128, cplx, x + y, x + alpha * y)
BINARY_ALPHA(sub_i64, int64_t, WRAP(U(x) - U(y)), WRAP(U(x) - U(alpha) * U(y)))
BINARY_ALPHA(sub_u64, uint64_t, x - y, x - alpha * y)
BINARY_ALPHA(sub_f32, float, x - y, x - alpha * y)
BINARY_ALPHA(sub_f64, double, x - y, x - alpha * y)
BINARY_ALPHA(sub_c128, cplx, x - y, x - alpha * y)
BINARY(mul_i64, int64_t, int64_t, WRAP(U(x) * U(y)))
BINARY(mul_u64, uint64_t, uint64_t, x * y)
BINARY(mul_f32, float, float, x * y)
BINARY(mul_f64, double, double, x * y)
/* NumPy's complex product (the textbook formula, no C99 Annex G inf recovery: ``x * y`` would
 * call __muldc3 per element, several times slower, and differs from NumPy for inf operands). */
static inline cplx cmul(cplx x, cplx y)
{
    double a = __real__ x, b = __imag__ x, c = __real__ y, d = __imag__ y;
    cplx r;
    __real__ r = a * c - b * d;
    __imag__ r = a * d + b * c;
    return r;
}
BINARY(mul_c128, cplx, cplx, cmul(x, y))
BINARY(div_f32, float, float, x / y)
BINARY(div_f64, double, double, x / y)
BINARY(div_c128, cplx, cplx, x / y)

static inline int64_t trunc_div_i64(int64_t x, int64_t y)
{
    if (y == 0) return 0;
    if (y == -1) return WRAP(0 - U(x));
    return x / y;
}

static inline int64_t floor_div_i64(int64_t x, int64_t y)
{
    if (y == 0) return 0;
    if (y == -1) return WRAP(0 - U(x));
    int64_t q = x / y;
    if (x % y != 0 && ((x < 0) != (y < 0))) q--;
    return q;
}

static inline int64_t rem_i64(int64_t x, int64_t y)
{
    if (y == 0 || y == -1) return 0;
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}

/* NumPy's npy_divmod: floor division and remainder consistent with fmod. */
#define FLOAT_DIVMOD(T, SFX)                                                                   \
    static inline T floor_div_##SFX(T a, T b)                                                  \
    {                                                                                          \
        if (b == 0) return a / b;                                                              \
        T mod = fmod##SFX(a, b);                                                               \
        T div = (a - mod) / b;                                                                 \
        if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;                                      \
        if (div == 0) return copysign##SFX(0, a / b);                                          \
        T fl = floor##SFX(div);                                                                \
        if (div - fl > (T)0.5) fl += 1;                                                        \
        return fl;                                                                             \
    }                                                                                          \
    static inline T rem_##SFX(T a, T b)                                                        \
    {                                                                                          \
        T mod = fmod##SFX(a, b);                                                               \
        if (b == 0) return mod;                                                                \
        if (mod != 0) {                                                                        \
            if ((b < 0) != (mod < 0)) mod += b;                                                \
        } else {                                                                               \
            mod = copysign##SFX(0, b);                                                         \
        }                                                                                      \
        return mod;                                                                            \
    }
FLOAT_DIVMOD(float, f)
FLOAT_DIVMOD(double, )

BINARY(floordiv_i64, int64_t, int64_t, floor_div_i64(x, y))
BINARY(floordiv_u64, uint64_t, uint64_t, y ? x / y : 0)
BINARY(floordiv_f32, float, float, floor_div_f(x, y))
BINARY(floordiv_f64, double, double, floor_div_(x, y))
BINARY(truncdiv_i64, int64_t, int64_t, trunc_div_i64(x, y))
BINARY(truncdiv_f32, float, float, truncf(x / y))
BINARY(truncdiv_f64, double, double, trunc(x / y))
BINARY(rem_i64k, int64_t, int64_t, rem_i64(x, y))
BINARY(rem_u64k, uint64_t, uint64_t, y ? x % y : 0)
BINARY(rem_f32k, float, float, rem_f(x, y))
BINARY(rem_f64k, double, double, rem_(x, y))

/* Integer powers by squaring; a negative exponent gives 0 except for bases 1 and -1 (NumPy and
 * torch raise an error there; a kernel cannot, so the result is defined instead). */
static inline int64_t pow_i64(int64_t base, int64_t e)
{
    if (e < 0) return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;
    uint64_t r = 1, b = U(base);
    while (e) {
        if (e & 1) r *= b;
        b *= b;
        e >>= 1;
    }
    return WRAP(r);
}

static inline uint64_t pow_u64(uint64_t b, uint64_t e)
{
    uint64_t r = 1;
    while (e) {
        if (e & 1) r *= b;
        b *= b;
        e >>= 1;
    }
    return r;
}

static inline cplx pow_c128(cplx x, cplx y)
{
    if (y == 0) return 1;
    if (x == 0 && cimag(y) == 0 && creal(y) > 0) return 0;
    return cpow(x, y);
}

BINARY(pow_i64k, int64_t, int64_t, pow_i64(x, y))
BINARY(pow_u64k, uint64_t, uint64_t, pow_u64(x, y))
BINARY(pow_f32, float, float, powf(x, y))
BINARY(pow_f64, double, double, pow(x, y))
BINARY(pow_c128k, cplx, cplx, pow_c128(x, y))

/* maximum / minimum propagate NaN (torch.maximum, numpy.maximum). */
BINARY(max_i64, int64_t, int64_t, x > y ? x : y)
BINARY(max_u64, uint64_t, uint64_t, x > y ? x : y)
BINARY(max_f32, float, float, (x > y || x != x) ? x : y)
BINARY(max_f64, double, double, (x > y || x != x) ? x : y)
BINARY(min_i64, int64_t, int64_t, x < y ? x : y)
BINARY(min_u64, uint64_t, uint64_t, x < y ? x : y)
BINARY(min_f32, float, float, (x < y || x != x) ? x : y)
BINARY(min_f64, double, double, (x < y || x != x) ? x : y)

/* ---------------------------------------------------------------------------------------------
 * Comparisons and logic (bool results) */

#define COMPARE(OP, NAME)                                                                      \
    BINARY(NAME##_b, uint8_t, uint8_t, x OP y)                                                 \
    BINARY(NAME##_i64, int64_t, uint8_t, x OP y)                                               \
    BINARY(NAME##_u64, uint64_t, uint8_t, x OP y)                                              \
    BINARY(NAME##_f32, float, uint8_t, x OP y)                                                 \
    BINARY(NAME##_f64, double, uint8_t, x OP y)
COMPARE(==, eq)
COMPARE(!=, ne)
COMPARE(>, gt)
COMPARE(>=, ge)
COMPARE(<, lt)
COMPARE(<=, le)
BINARY(eq_c128, cplx, uint8_t, x == y)
BINARY(ne_c128, cplx, uint8_t, x != y)
BINARY(and_b, uint8_t, uint8_t, x & y)
BINARY(or_b, uint8_t, uint8_t, x | y)
UNARY(not_b, uint8_t, uint8_t, !x)

/* ---------------------------------------------------------------------------------------------
 * Unary math */

UNARY(neg_i64, int64_t, int64_t, WRAP(0 - U(x)))
UNARY(neg_u64, uint64_t, uint64_t, 0 - x)
UNARY(neg_f32, float, float, -x)
UNARY(neg_f64, double, double, -x)
UNARY(neg_c128, cplx, cplx, -x)
UNARY(abs_i64, int64_t, int64_t, x < 0 ? WRAP(0 - U(x)) : x)
UNARY(abs_f32, float, float, fabsf(x))
UNARY(abs_f64, double, double, fabs(x))
UNARY(abs_c128, cplx, double, cabs(x))
UNARY(exp_f64, double, double, exp(x))
UNARY(exp_c128, cplx, cplx, cexp(x))
UNARY(log_f64, double, double, log(x))
UNARY(log_c128, cplx, cplx, clog(x))
UNARY(sqrt_f32, float, float, sqrtf(x))
UNARY(sqrt_f64, double, double, sqrt(x))
UNARY(sqrt_c128, cplx, cplx, csqrt(x))

/* More math: float kinds (integer inputs arrive as F64), complex where C99 has the function. */
#define FLOAT_UNARY(NAME, FEXPR, DEXPR)                                                        \
    UNARY(NAME##_f32, float, float, FEXPR)                                                     \
    UNARY(NAME##_f64, double, double, DEXPR)
UNARY(sin_f64, double, double, sin(x))
UNARY(cos_f64, double, double, cos(x))
UNARY(tan_f64, double, double, tan(x))
UNARY(tanh_f64, double, double, tanh(x))
UNARY(sinh_f64, double, double, sinh(x))
UNARY(cosh_f64, double, double, cosh(x))
FLOAT_UNARY(asin, asinf(x), asin(x))
FLOAT_UNARY(acos, acosf(x), acos(x))
FLOAT_UNARY(atan, atanf(x), atan(x))
UNARY(log2_f64, double, double, log2(x))
UNARY(log10_f64, double, double, log10(x))
UNARY(log1p_f64, double, double, log1p(x))
UNARY(exp2_f64, double, double, exp2(x))
UNARY(expm1_f64, double, double, expm1(x))
FLOAT_UNARY(rsqrt, 1.0f / sqrtf(x), 1.0 / sqrt(x))
FLOAT_UNARY(reciprocal, 1.0f / x, 1.0 / x)
FLOAT_UNARY(floor, floorf(x), floor(x))
FLOAT_UNARY(ceil, ceilf(x), ceil(x))
FLOAT_UNARY(trunc, truncf(x), trunc(x))
FLOAT_UNARY(round, nearbyintf(x), nearbyint(x)) /* half to even, like NumPy and torch */
FLOAT_UNARY(sign, x != x ? x : (float)((x > 0) - (x < 0)), x != x ? x : (double)((x > 0) - (x < 0)))
UNARY(sin_c128, cplx, cplx, csin(x))
UNARY(cos_c128, cplx, cplx, ccos(x))
UNARY(tan_c128, cplx, cplx, ctan(x))
UNARY(tanh_c128, cplx, cplx, ctanh(x))
UNARY(sinh_c128, cplx, cplx, csinh(x))
UNARY(log2_c128, cplx, cplx, clog(x) / 0.693147180559945309417232121458176568)
UNARY(log10_c128, cplx, cplx, clog(x) / 2.30258509299404568401799145468436421)
UNARY(rsqrt_c128, cplx, cplx, 1.0 / csqrt(x))
UNARY(reciprocal_c128, cplx, cplx, 1.0 / x)
UNARY(sign_c128, cplx, cplx, x == 0 ? 0 : x / cabs(x))
UNARY(sign_i64, int64_t, int64_t, (x > 0) - (x < 0))
UNARY(sign_i32, int32_t, int32_t, (x > 0) - (x < 0))
UNARY(isfinite_f32, float, uint8_t, isfinite(x) != 0)
UNARY(isfinite_f64, double, uint8_t, isfinite(x) != 0)
BINARY(atan2_f32, float, float, atan2f(x, y))
BINARY(atan2_f64, double, double, atan2(x, y))

/* clamp: bounds in ex->scalars[0] (min) and [1] (max); ex->mode bit 0 / 1 says which exist.
 * NaN stays NaN; a min above the max gives the max, as torch.clamp does. */
#define CLAMP(NAME, T)                                                                         \
    static void NAME(void *out_, const void *const *in, size_t n, const npusim_exec *ex)       \
    {                                                                                          \
        T *o = out_, lo, hi;                                                                   \
        const T *a = in[0];                                                                    \
        memcpy(&lo, &ex->scalars[0], sizeof lo);                                               \
        memcpy(&hi, &ex->scalars[1], sizeof hi);                                               \
        bool has_lo = ex->mode & 1, has_hi = ex->mode & 2;                                     \
        for (size_t i = 0; i < n; i++) {                                                       \
            T x = a[i];                                                                        \
            if (has_lo && x < lo) x = lo;                                                      \
            if (has_hi && x > hi) x = hi;                                                      \
            o[i] = x;                                                                          \
        }                                                                                      \
    }
CLAMP(clamp_i64, int64_t)
CLAMP(clamp_u64, uint64_t)
CLAMP(clamp_f32, float)
CLAMP(clamp_f64, double)
CLAMP(clamp_i32, int32_t)

static void copy_kind(size_t size, void *out, const void *const *in, size_t n)
{
    memmove(out, in[0], size * n);
}
#define IDENTITY(NAME, SIZE)                                                                   \
    static void NAME(void *out, const void *const *in, size_t n, const npusim_exec *ex)        \
    {                                                                                          \
        (void)ex;                                                                              \
        copy_kind(SIZE, out, in, n);                                                           \
    }
IDENTITY(id_1, 1)
IDENTITY(id_4, 4)
IDENTITY(id_8, 8)
IDENTITY(id_16, 16)

/* where(cond, x, y): cond is loaded as bool. Both values are read before the choice: the
 * compiler then selects without a branch (vectorised blends), where `c[i] ? a[i] : b[i]` reads
 * only one and branches on a condition that is random in masks (6-7x slower on 1 M float32). */
#define SELECT(NAME, T)                                                                        \
    static void NAME(void *out_, const void *const *in, size_t n, const npusim_exec *ex)       \
    {                                                                                          \
        (void)ex;                                                                              \
        T *o = out_;                                                                           \
        const uint8_t *c = in[0];                                                              \
        const T *a = in[1], *b = in[2];                                                        \
        for (size_t i = 0; i < n; i++) {                                                       \
            T x = a[i], y = b[i];                                                              \
            o[i] = c[i] ? x : y;                                                               \
        }                                                                                      \
    }
SELECT(where_b, uint8_t)
SELECT(where_i64, int64_t)
SELECT(where_u64, uint64_t)
SELECT(where_f32, float)
SELECT(where_f64, double)
SELECT(where_c128, cplx)

/* ---------------------------------------------------------------------------------------------
 * int32, computed natively (same results as int64 arithmetic truncated to 32 bits) */

#define U32(x) ((uint32_t)(x))
#define WRAP32(x) ((int32_t)(x))

static inline int32_t floor_div_i32(int32_t x, int32_t y)
{
    if (y == 0) return 0;
    if (y == -1) return WRAP32(0u - U32(x));
    int32_t q = x / y;
    if (x % y != 0 && ((x < 0) != (y < 0))) q--;
    return q;
}

static inline int32_t trunc_div_i32(int32_t x, int32_t y)
{
    if (y == 0) return 0;
    if (y == -1) return WRAP32(0u - U32(x));
    return x / y;
}

static inline int32_t rem_i32(int32_t x, int32_t y)
{
    if (y == 0 || y == -1) return 0;
    int32_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}

BINARY_ALPHA(add_i32, int32_t, WRAP32(U32(x) + U32(y)), WRAP32(U32(x) + U32(alpha) * U32(y)))
BINARY_ALPHA(sub_i32, int32_t, WRAP32(U32(x) - U32(y)), WRAP32(U32(x) - U32(alpha) * U32(y)))
BINARY(mul_i32, int32_t, int32_t, WRAP32(U32(x) * U32(y)))
BINARY(floordiv_i32, int32_t, int32_t, floor_div_i32(x, y))
BINARY(truncdiv_i32, int32_t, int32_t, trunc_div_i32(x, y))
BINARY(rem_i32k, int32_t, int32_t, rem_i32(x, y))
BINARY(pow_i32k, int32_t, int32_t, WRAP32(pow_i64(x, y)))
BINARY(max_i32, int32_t, int32_t, x > y ? x : y)
BINARY(min_i32, int32_t, int32_t, x < y ? x : y)
BINARY(eq_i32, int32_t, uint8_t, x == y)
BINARY(ne_i32, int32_t, uint8_t, x != y)
BINARY(gt_i32, int32_t, uint8_t, x > y)
BINARY(ge_i32, int32_t, uint8_t, x >= y)
BINARY(lt_i32, int32_t, uint8_t, x < y)
BINARY(le_i32, int32_t, uint8_t, x <= y)
UNARY(neg_i32, int32_t, int32_t, WRAP32(0u - U32(x)))
UNARY(abs_i32, int32_t, int32_t, x < 0 ? WRAP32(0u - U32(x)) : x)
SELECT(where_i32, int32_t)

/* ---------------------------------------------------------------------------------------------
 * Tables (indexed by kind: BOOL, I64, U64, F32, F64, C128, I32) */

#define OP(name, nin, boolin, boolout, realout, b, i, u, f, d, c, i32)                         \
    { name, nin, boolin, boolout, realout, { b, i, u, f, d, c, i32 } }

const npusim_ew_op npusim_ew_add = OP("add", 2, 0, false, false, NULL, add_i64, add_u64, add_f32, add_f64, add_c128, add_i32);
const npusim_ew_op npusim_ew_sub = OP("sub", 2, 0, false, false, NULL, sub_i64, sub_u64, sub_f32, sub_f64, sub_c128, sub_i32);
const npusim_ew_op npusim_ew_mul = OP("mul", 2, 0, false, false, NULL, mul_i64, mul_u64, mul_f32, mul_f64, mul_c128, mul_i32);
const npusim_ew_op npusim_ew_div = OP("div", 2, 0, false, false, NULL, NULL, NULL, div_f32, div_f64, div_c128, NULL);
const npusim_ew_op npusim_ew_truncdiv = OP("trunc_div", 2, 0, false, false, NULL, truncdiv_i64, floordiv_u64, truncdiv_f32, truncdiv_f64, NULL, truncdiv_i32);
const npusim_ew_op npusim_ew_floordiv = OP("floor_div", 2, 0, false, false, NULL, floordiv_i64, floordiv_u64, floordiv_f32, floordiv_f64, NULL, floordiv_i32);
const npusim_ew_op npusim_ew_remainder = OP("remainder", 2, 0, false, false, NULL, rem_i64k, rem_u64k, rem_f32k, rem_f64k, NULL, rem_i32k);
const npusim_ew_op npusim_ew_pow = OP("pow", 2, 0, false, false, NULL, pow_i64k, pow_u64k, pow_f32, pow_f64, pow_c128k, pow_i32k);
const npusim_ew_op npusim_ew_maximum = OP("maximum", 2, 0, false, false, NULL, max_i64, max_u64, max_f32, max_f64, NULL, max_i32);
const npusim_ew_op npusim_ew_minimum = OP("minimum", 2, 0, false, false, NULL, min_i64, min_u64, min_f32, min_f64, NULL, min_i32);
const npusim_ew_op npusim_ew_eq = OP("eq", 2, 0, true, false, eq_b, eq_i64, eq_u64, eq_f32, eq_f64, eq_c128, eq_i32);
const npusim_ew_op npusim_ew_ne = OP("ne", 2, 0, true, false, ne_b, ne_i64, ne_u64, ne_f32, ne_f64, ne_c128, ne_i32);
const npusim_ew_op npusim_ew_gt = OP("gt", 2, 0, true, false, gt_b, gt_i64, gt_u64, gt_f32, gt_f64, NULL, gt_i32);
const npusim_ew_op npusim_ew_ge = OP("ge", 2, 0, true, false, ge_b, ge_i64, ge_u64, ge_f32, ge_f64, NULL, ge_i32);
const npusim_ew_op npusim_ew_lt = OP("lt", 2, 0, true, false, lt_b, lt_i64, lt_u64, lt_f32, lt_f64, NULL, lt_i32);
const npusim_ew_op npusim_ew_le = OP("le", 2, 0, true, false, le_b, le_i64, le_u64, le_f32, le_f64, NULL, le_i32);
const npusim_ew_op npusim_ew_and = OP("logical_and", 2, 0, true, false, and_b, NULL, NULL, NULL, NULL, NULL, NULL);
const npusim_ew_op npusim_ew_or = OP("logical_or", 2, 0, true, false, or_b, NULL, NULL, NULL, NULL, NULL, NULL);
const npusim_ew_op npusim_ew_not = OP("logical_not", 1, 0, true, false, not_b, NULL, NULL, NULL, NULL, NULL, NULL);
const npusim_ew_op npusim_ew_neg = OP("neg", 1, 0, false, false, NULL, neg_i64, neg_u64, neg_f32, neg_f64, neg_c128, neg_i32);
const npusim_ew_op npusim_ew_abs = OP("abs", 1, 0, false, true, id_1, abs_i64, id_8, abs_f32, abs_f64, abs_c128, abs_i32);
const npusim_ew_op npusim_ew_exp = OP("exp", 1, 0, false, false, NULL, NULL, NULL, npusim_vexp_f32, exp_f64, exp_c128, NULL);
const npusim_ew_op npusim_ew_log = OP("log", 1, 0, false, false, NULL, NULL, NULL, npusim_vlog_f32, log_f64, log_c128, NULL);
const npusim_ew_op npusim_ew_sqrt = OP("sqrt", 1, 0, false, false, NULL, NULL, NULL, sqrt_f32, sqrt_f64, sqrt_c128, NULL);
const npusim_ew_op npusim_ew_identity = OP("copy", 1, 0, false, false, id_1, id_8, id_8, id_4, id_8, id_16, id_4);
const npusim_ew_op npusim_ew_where = OP("where", 3, 1, false, false, where_b, where_i64, where_u64, where_f32, where_f64, where_c128, where_i32);

/* Rounding of integers is the identity. */
#define MATH(name, f, d, c) OP(#name, 1, 0, false, false, NULL, NULL, NULL, f, d, c, NULL)
const npusim_ew_op npusim_ew_sin = MATH(sin, npusim_vsin_f32, sin_f64, sin_c128);
const npusim_ew_op npusim_ew_cos = MATH(cos, npusim_vcos_f32, cos_f64, cos_c128);
const npusim_ew_op npusim_ew_tan = MATH(tan, npusim_vtan_f32, tan_f64, tan_c128);
const npusim_ew_op npusim_ew_tanh = MATH(tanh, npusim_vtanh_f32, tanh_f64, tanh_c128);
const npusim_ew_op npusim_ew_sinh = MATH(sinh, npusim_vsinh_f32, sinh_f64, sinh_c128);
const npusim_ew_op npusim_ew_cosh = MATH(cosh, npusim_vcosh_f32, cosh_f64, NULL);
const npusim_ew_op npusim_ew_asin = MATH(asin, asin_f32, asin_f64, NULL);
const npusim_ew_op npusim_ew_acos = MATH(acos, acos_f32, acos_f64, NULL);
const npusim_ew_op npusim_ew_atan = MATH(atan, atan_f32, atan_f64, NULL);
const npusim_ew_op npusim_ew_log2 = MATH(log2, npusim_vlog2_f32, log2_f64, log2_c128);
const npusim_ew_op npusim_ew_log10 = MATH(log10, npusim_vlog10_f32, log10_f64, log10_c128);
const npusim_ew_op npusim_ew_log1p = MATH(log1p, npusim_vlog1p_f32, log1p_f64, NULL);
const npusim_ew_op npusim_ew_exp2 = MATH(exp2, npusim_vexp2_f32, exp2_f64, NULL);
const npusim_ew_op npusim_ew_expm1 = MATH(expm1, npusim_vexpm1_f32, expm1_f64, NULL);
const npusim_ew_op npusim_ew_rsqrt = MATH(rsqrt, rsqrt_f32, rsqrt_f64, rsqrt_c128);
const npusim_ew_op npusim_ew_reciprocal = MATH(reciprocal, reciprocal_f32, reciprocal_f64, reciprocal_c128);
const npusim_ew_op npusim_ew_atan2 = OP("atan2", 2, 0, false, false, NULL, NULL, NULL, atan2_f32, atan2_f64, NULL, NULL);
const npusim_ew_op npusim_ew_floor = OP("floor", 1, 0, false, false, NULL, id_8, id_8, floor_f32, floor_f64, NULL, id_4);
const npusim_ew_op npusim_ew_ceil = OP("ceil", 1, 0, false, false, NULL, id_8, id_8, ceil_f32, ceil_f64, NULL, id_4);
const npusim_ew_op npusim_ew_trunc = OP("trunc", 1, 0, false, false, NULL, id_8, id_8, trunc_f32, trunc_f64, NULL, id_4);
const npusim_ew_op npusim_ew_round = OP("round", 1, 0, false, false, NULL, id_8, id_8, round_f32, round_f64, NULL, id_4);
const npusim_ew_op npusim_ew_sign = OP("sign", 1, 0, false, false, id_1, sign_i64, NULL, sign_f32, sign_f64, sign_c128, sign_i32);
const npusim_ew_op npusim_ew_isfinite = OP("isfinite", 1, 0, true, false, NULL, NULL, NULL, isfinite_f32, isfinite_f64, NULL, NULL);
const npusim_ew_op npusim_ew_clamp = OP("clamp", 1, 0, false, false, NULL, clamp_i64, clamp_u64, clamp_f32, clamp_f64, NULL, clamp_i32);

/* ---------------------------------------------------------------------------------------------
 * One operand repeated (stride 0: a broadcast dimension or a scalar operand), read in place as
 * NumPy's scalar loops do instead of being filled into a buffer: in[k] points at the single
 * element. _sx: x (input 0) is repeated; _sy: y (input 1). The expressions are those of the
 * plain kernels above, so results are the same bit for bit. */

/* The loop of a kernel whose x (input 0) / y (input 1) is one repeated element. */
#define SPLAT_X_LOOP(T, RT, EXPR)                                                              \
    RT *o = out_;                                                                              \
    const T x = *(const T *)in[0], *b = in[1];                                                 \
    for (size_t i = 0; i < n; i++) {                                                           \
        const T y = b[i];                                                                      \
        o[i] = (EXPR);                                                                         \
    }
#define SPLAT_Y_LOOP(T, RT, EXPR)                                                              \
    RT *o = out_;                                                                              \
    const T *a = in[0], y = *(const T *)in[1];                                                 \
    for (size_t i = 0; i < n; i++) {                                                           \
        const T x = a[i];                                                                      \
        o[i] = (EXPR);                                                                         \
    }

#define SPLAT_LOOPS(NAME, T, RT, EXPR)                                                         \
    EW_MULTI_ISA static void NAME##_sx(void *out_, const void *const *in, size_t n,            \
                                       const npusim_exec *ex)                                  \
    {                                                                                          \
        (void)ex;                                                                              \
        SPLAT_X_LOOP(T, RT, EXPR)                                                              \
    }                                                                                          \
    EW_MULTI_ISA static void NAME##_sy(void *out_, const void *const *in, size_t n,            \
                                       const npusim_exec *ex)                                  \
    {                                                                                          \
        (void)ex;                                                                              \
        SPLAT_Y_LOOP(T, RT, EXPR)                                                              \
    }

/* add / sub: alpha != 1 keeps the plain kernel's x op alpha * y. */
#define SPLAT_ALPHA(NAME, T, EXPR1, EXPR)                                                      \
    SPLAT_LOOPS(NAME##_one, T, T, EXPR1)                                                       \
    EW_MULTI_ISA static void NAME##_sx(void *out_, const void *const *in, size_t n,            \
                                       const npusim_exec *ex)                                  \
    {                                                                                          \
        T alpha;                                                                               \
        memcpy(&alpha, &ex->scalars[2], sizeof alpha);                                         \
        if (alpha == (T)1) {                                                                   \
            NAME##_one_sx(out_, in, n, ex);                                                    \
            return;                                                                            \
        }                                                                                      \
        SPLAT_X_LOOP(T, T, EXPR)                                                               \
    }                                                                                          \
    EW_MULTI_ISA static void NAME##_sy(void *out_, const void *const *in, size_t n,            \
                                       const npusim_exec *ex)                                  \
    {                                                                                          \
        T alpha;                                                                               \
        memcpy(&alpha, &ex->scalars[2], sizeof alpha);                                         \
        if (alpha == (T)1) {                                                                   \
            NAME##_one_sy(out_, in, n, ex);                                                    \
            return;                                                                            \
        }                                                                                      \
        SPLAT_Y_LOOP(T, T, EXPR)                                                               \
    }

SPLAT_ALPHA(s_add_i64, int64_t, WRAP(U(x) + U(y)), WRAP(U(x) + U(alpha) * U(y)))
SPLAT_ALPHA(s_add_f32, float, x + y, x + alpha * y)
SPLAT_ALPHA(s_add_f64, double, x + y, x + alpha * y)
SPLAT_ALPHA(s_add_i32, int32_t, WRAP32(U32(x) + U32(y)), WRAP32(U32(x) + U32(alpha) * U32(y)))
SPLAT_ALPHA(s_sub_i64, int64_t, WRAP(U(x) - U(y)), WRAP(U(x) - U(alpha) * U(y)))
SPLAT_ALPHA(s_sub_f32, float, x - y, x - alpha * y)
SPLAT_ALPHA(s_sub_f64, double, x - y, x - alpha * y)
SPLAT_ALPHA(s_sub_i32, int32_t, WRAP32(U32(x) - U32(y)), WRAP32(U32(x) - U32(alpha) * U32(y)))
SPLAT_LOOPS(s_mul_i64, int64_t, int64_t, WRAP(U(x) * U(y)))
SPLAT_LOOPS(s_mul_f32, float, float, x * y)
SPLAT_LOOPS(s_mul_f64, double, double, x * y)
SPLAT_LOOPS(s_mul_i32, int32_t, int32_t, WRAP32(U32(x) * U32(y)))
SPLAT_LOOPS(s_div_f32, float, float, x / y)
SPLAT_LOOPS(s_div_f64, double, double, x / y)
SPLAT_LOOPS(s_max_i64, int64_t, int64_t, x > y ? x : y)
SPLAT_LOOPS(s_max_f32, float, float, (x > y || x != x) ? x : y)
SPLAT_LOOPS(s_max_f64, double, double, (x > y || x != x) ? x : y)
SPLAT_LOOPS(s_max_i32, int32_t, int32_t, x > y ? x : y)
SPLAT_LOOPS(s_min_i64, int64_t, int64_t, x < y ? x : y)
SPLAT_LOOPS(s_min_f32, float, float, (x < y || x != x) ? x : y)
SPLAT_LOOPS(s_min_f64, double, double, (x < y || x != x) ? x : y)
SPLAT_LOOPS(s_min_i32, int32_t, int32_t, x < y ? x : y)
#define SPLAT_COMPARE(OP, NAME)                                                                \
    SPLAT_LOOPS(s_##NAME##_i64, int64_t, uint8_t, x OP y)                                      \
    SPLAT_LOOPS(s_##NAME##_f32, float, uint8_t, x OP y)                                        \
    SPLAT_LOOPS(s_##NAME##_f64, double, uint8_t, x OP y)                                       \
    SPLAT_LOOPS(s_##NAME##_i32, int32_t, uint8_t, x OP y)
SPLAT_COMPARE(==, eq)
SPLAT_COMPARE(!=, ne)
SPLAT_COMPARE(>, gt)
SPLAT_COMPARE(>=, ge)
SPLAT_COMPARE(<, lt)
SPLAT_COMPARE(<=, le)

/* Indexed by kind like the tables above (BOOL, I64, U64, F32, F64, C128, I32). */
typedef struct {
    const npusim_ew_op *op;
    npusim_ew_fn sx[KIND_COUNT], sy[KIND_COUNT];
} splat_kernels;

#define SPLAT_ROW(op, p) { &op, { NULL, p##_i64_sx, NULL, p##_f32_sx, p##_f64_sx, NULL, p##_i32_sx }, \
                                { NULL, p##_i64_sy, NULL, p##_f32_sy, p##_f64_sy, NULL, p##_i32_sy } }
static const splat_kernels splat_table[] = {
    SPLAT_ROW(npusim_ew_add, s_add), SPLAT_ROW(npusim_ew_sub, s_sub), SPLAT_ROW(npusim_ew_mul, s_mul),
    { &npusim_ew_div, { NULL, NULL, NULL, s_div_f32_sx, s_div_f64_sx, NULL, NULL },
                      { NULL, NULL, NULL, s_div_f32_sy, s_div_f64_sy, NULL, NULL } },
    SPLAT_ROW(npusim_ew_maximum, s_max), SPLAT_ROW(npusim_ew_minimum, s_min),
    SPLAT_ROW(npusim_ew_eq, s_eq), SPLAT_ROW(npusim_ew_ne, s_ne), SPLAT_ROW(npusim_ew_gt, s_gt),
    SPLAT_ROW(npusim_ew_ge, s_ge), SPLAT_ROW(npusim_ew_lt, s_lt), SPLAT_ROW(npusim_ew_le, s_le),
};

npusim_ew_fn npusim_ew_splat_fn(const npusim_ew_op *op, npusim_kind kind, int repeated)
{
    for (size_t i = 0; i < sizeof splat_table / sizeof splat_table[0]; i++)
        if (splat_table[i].op == op) return repeated == 0 ? splat_table[i].sx[kind] : splat_table[i].sy[kind];
    return NULL;
}
