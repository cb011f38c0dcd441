/* Data types of the aclnn operators: sizes, promotion, and strided conversion between every
 * supported dtype and the computation kinds. float16/bfloat16 round to nearest even on store. */
#include <math.h>
#include <string.h>

#include "ops_internal.h"

size_t npusim_dtype_size(aclDataType dt)
{
    switch (dt) {
    case ACL_BOOL: case ACL_INT8: case ACL_UINT8: return 1;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_DOUBLE: case ACL_INT64: case ACL_UINT64: case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
    }
}

const char *npusim_dtype_name(aclDataType dt)
{
    switch (dt) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_BF16: return "BFLOAT16";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_INT8: return "INT8";
    case ACL_INT16: return "INT16";
    case ACL_INT32: return "INT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT8: return "UINT8";
    case ACL_UINT16: return "UINT16";
    case ACL_UINT32: return "UINT32";
    case ACL_UINT64: return "UINT64";
    case ACL_BOOL: return "BOOL";
    case ACL_COMPLEX64: return "COMPLEX64";
    case ACL_COMPLEX128: return "COMPLEX128";
    case ACL_COMPLEX32: return "COMPLEX32";
    case ACL_STRING: return "STRING";
    case ACL_DT_UNDEFINED: return "UNDEFINED";
    default: return "unsupported dtype";
    }
}

bool npusim_is_float(aclDataType dt)
{
    return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE;
}

bool npusim_is_complex(aclDataType dt) { return dt == ACL_COMPLEX64 || dt == ACL_COMPLEX128; }

bool npusim_is_integral(aclDataType dt)
{
    switch (dt) {
    case ACL_INT8: case ACL_INT16: case ACL_INT32: case ACL_INT64:
    case ACL_UINT8: case ACL_UINT16: case ACL_UINT32: case ACL_UINT64: return true;
    default: return false;
    }
}

size_t npusim_kind_size(npusim_kind k)
{
    static const size_t sizes[KIND_COUNT] = { 1, 8, 8, 4, 8, 16, 4 };
    return sizes[k];
}

aclDataType npusim_kind_dtype(npusim_kind k)
{
    static const aclDataType dts[KIND_COUNT] = { ACL_BOOL, ACL_INT64, ACL_UINT64, ACL_FLOAT, ACL_DOUBLE,
                                                 ACL_COMPLEX128, ACL_INT32 };
    return dts[k];
}

npusim_kind npusim_kind_of(aclDataType dt)
{
    switch (dt) {
    case ACL_BOOL: return KIND_BOOL;
    case ACL_INT32: return KIND_I32;
    case ACL_UINT64: return KIND_U64;
    case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: return KIND_F32;
    case ACL_DOUBLE: return KIND_F64;
    case ACL_COMPLEX64: case ACL_COMPLEX128: return KIND_C128;
    default: return KIND_I64;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Promotion */

int npusim_dtype_category(aclDataType dt)
{
    if (dt == ACL_BOOL) return 0;
    if (npusim_is_integral(dt)) return 1;
    if (npusim_is_float(dt)) return 2;
    return 3;
}

static bool is_unsigned(aclDataType dt)
{
    return dt == ACL_UINT8 || dt == ACL_UINT16 || dt == ACL_UINT32 || dt == ACL_UINT64;
}

static aclDataType signed_of_size(size_t size)
{
    switch (size) {
    case 1: return ACL_INT8;
    case 2: return ACL_INT16;
    case 4: return ACL_INT32;
    case 8: return ACL_INT64;
    default: return ACL_DT_UNDEFINED;
    }
}

static aclDataType promote_integers(aclDataType a, aclDataType b)
{
    size_t sa = npusim_dtype_size(a), sb = npusim_dtype_size(b);
    if (is_unsigned(a) == is_unsigned(b)) return sa >= sb ? a : b;
    aclDataType u = is_unsigned(a) ? a : b, s = is_unsigned(a) ? b : a;
    size_t su = npusim_dtype_size(u), ss = npusim_dtype_size(s);
    if (ss > su) return s;
    return signed_of_size(su * 2); /* uint64 with a signed integer: none (array API) */
}

static aclDataType promote_floats(aclDataType a, aclDataType b)
{
    if (a == b) return a;
    if (a == ACL_DOUBLE || b == ACL_DOUBLE) return ACL_DOUBLE;
    if (a == ACL_FLOAT || b == ACL_FLOAT) return ACL_FLOAT;
    return ACL_FLOAT; /* float16 with bfloat16 */
}

static aclDataType complex_for(aclDataType real)
{
    return real == ACL_DOUBLE ? ACL_COMPLEX128 : ACL_COMPLEX64;
}

aclDataType npusim_promote(aclDataType a, aclDataType b)
{
    if (npusim_dtype_size(a) == 0 || npusim_dtype_size(b) == 0) return ACL_DT_UNDEFINED;
    if (a == b) return a;
    int ca = npusim_dtype_category(a), cb = npusim_dtype_category(b);
    if (ca != cb) {
        aclDataType hi = ca > cb ? a : b, lo = ca > cb ? b : a;
        if (npusim_dtype_category(hi) == 3 && lo == ACL_DOUBLE) return ACL_COMPLEX128;
        return hi;
    }
    switch (ca) {
    case 1: return promote_integers(a, b);
    case 2: return promote_floats(a, b);
    case 3: return ACL_COMPLEX128;
    default: return ACL_BOOL;
    }
}

aclDataType npusim_promote_scalar(aclDataType tensor, aclDataType scalar)
{
    int ct = npusim_dtype_category(tensor), cs = npusim_dtype_category(scalar);
    if (cs <= ct) return tensor;
    switch (cs) {
    case 1: return ACL_INT64;
    case 2: return ACL_FLOAT;
    default: return complex_for(tensor);
    }
}

/* ---------------------------------------------------------------------------------------------
 * float16 / bfloat16 */

/* Rounds a finite or infinite double to a binary format with `mbits` fraction bits and exponent
 * bias `bias` (max biased exponent 2*bias+1 is inf/NaN), to nearest even. */
static uint32_t round_double_to(double d, int mbits, int bias, uint32_t *sign_out)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    *sign_out = (uint32_t)(u >> 63);
    int64_t exp = (int64_t)((u >> 52) & 0x7ff);
    uint64_t mant = u & 0xFFFFFFFFFFFFFull;
    uint32_t inf = (uint32_t)(2 * bias + 1) << mbits;
    if (exp == 0x7ff) return mant ? inf | (1u << (mbits - 1)) : inf;
    if (exp == 0) return 0; /* double subnormals are far below the target's range */
    int64_t e = exp - 1023 + bias;
    if (e >= 2 * bias + 1) return inf;
    uint64_t m = mant | (1ull << 52);
    int shift = 52 - mbits + (e > 0 ? 0 : (int)(1 - e));
    if (shift > 63) return 0;
    uint64_t kept = m >> shift;
    uint64_t rem = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (kept & 1))) kept++;
    uint32_t r = e > 0 ? (uint32_t)(((uint64_t)(e - 1) << mbits) + kept) : (uint32_t)kept;
    return r >= inf ? inf : r;
}

/* A NaN as float16, as NumPy's halffloat conversions make it: sign and the payload's upper ten
 * bits kept, never turned into inf (a payload that would vanish becomes 1). */
static uint16_t f16_nan(uint32_t sign, uint32_t payload10)
{
    uint32_t r = 0x7c00u | payload10;
    if (r == 0x7c00u) r++;
    return (uint16_t)((sign << 15) | r);
}

uint16_t npusim_f16_from_double(double d)
{
    uint32_t sign;
    if (isnan(d)) {
        uint64_t u;
        memcpy(&u, &d, sizeof u);
        return f16_nan((uint32_t)(u >> 63), (uint32_t)((u & 0xFFFFFFFFFFFFFull) >> 42));
    }
    uint32_t r = round_double_to(d, 10, 15, &sign);
    return (uint16_t)((sign << 15) | r);
}

/* From the float's own bits: converting a signalling NaN to double first would quiet it. */
uint16_t npusim_f16_from_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return f16_nan(u >> 31, (u & 0x7fffffu) >> 13);
    return npusim_f16_from_double(f);
}

/* Through float, as ml_dtypes (the bfloat16 of NumPy programs) converts a double. */
uint16_t npusim_bf16_from_double(double d)
{
    return npusim_bf16_from_float((float)d);
}

float npusim_bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

float npusim_f16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    uint32_t u;
    if (exp == 0x1f) {
        u = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        u = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant == 0) {
        u = sign;
    } else { /* subnormal: value = mant * 2^-24 */
        float f = (float)mant * 5.9604644775390625e-08f;
        return sign ? -f : f;
    }
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---------------------------------------------------------------------------------------------
 * Element conversions (define what a cast does for every pair) */

static inline int64_t i64_from_double(double x)
{
    if (x >= -9223372036854775808.0 && x < 9223372036854775808.0) return (int64_t)x;
    return INT64_MIN; /* NaN and out of range: what x86 (and so NumPy) gives */
}

static inline uint64_t u64_from_double(double x)
{
    if (x >= 9223372036854775808.0 && x < 18446744073709551616.0) return (uint64_t)x;
    return (uint64_t)i64_from_double(x);
}

/* Readers: element of dtype at p -> kind value. */
#define RD_SIGNED(T, p) ((int64_t)*(const T *)(p))
static inline double rd_double(const char *p, aclDataType dt)
{
    switch (dt) {
    case ACL_BOOL: return *(const uint8_t *)p != 0;
    case ACL_INT8: return *(const int8_t *)p;
    case ACL_INT16: return *(const int16_t *)p;
    case ACL_INT32: return *(const int32_t *)p;
    case ACL_INT64: return (double)*(const int64_t *)p;
    case ACL_UINT8: return *(const uint8_t *)p;
    case ACL_UINT16: return *(const uint16_t *)p;
    case ACL_UINT32: return *(const uint32_t *)p;
    case ACL_UINT64: return (double)*(const uint64_t *)p;
    case ACL_FLOAT16: return npusim_f16_to_float(*(const uint16_t *)p);
    case ACL_BF16: return npusim_bf16_to_float(*(const uint16_t *)p);
    case ACL_FLOAT: return *(const float *)p;
    case ACL_DOUBLE: return *(const double *)p;
    case ACL_COMPLEX64: return *(const float *)p;
    case ACL_COMPLEX128: return *(const double *)p;
    default: return 0;
    }
}

static inline double rd_imag(const char *p, aclDataType dt)
{
    if (dt == ACL_COMPLEX64) return ((const float *)p)[1];
    if (dt == ACL_COMPLEX128) return ((const double *)p)[1];
    return 0;
}

static inline int64_t rd_i64(const char *p, aclDataType dt)
{
    switch (dt) {
    case ACL_BOOL: return *(const uint8_t *)p != 0;
    case ACL_INT8: return RD_SIGNED(int8_t, p);
    case ACL_INT16: return RD_SIGNED(int16_t, p);
    case ACL_INT32: return RD_SIGNED(int32_t, p);
    case ACL_INT64: return *(const int64_t *)p;
    case ACL_UINT8: return *(const uint8_t *)p;
    case ACL_UINT16: return *(const uint16_t *)p;
    case ACL_UINT32: return *(const uint32_t *)p;
    case ACL_UINT64: return (int64_t)*(const uint64_t *)p;
    default: return i64_from_double(rd_double(p, dt));
    }
}

static inline uint64_t rd_u64(const char *p, aclDataType dt)
{
    if (npusim_is_float(dt) || npusim_is_complex(dt)) return u64_from_double(rd_double(p, dt));
    return (uint64_t)rd_i64(p, dt);
}

static inline bool rd_bool(const char *p, aclDataType dt)
{
    switch (dt) {
    case ACL_BOOL: case ACL_INT8: case ACL_UINT8: return *(const uint8_t *)p != 0;
    case ACL_INT16: case ACL_UINT16: return *(const uint16_t *)p != 0;
    case ACL_INT32: case ACL_UINT32: return *(const uint32_t *)p != 0;
    case ACL_INT64: case ACL_UINT64: return *(const uint64_t *)p != 0;
    default: return rd_double(p, dt) != 0 || rd_imag(p, dt) != 0;
    }
}

/* Typed strided loops for the hot pairs, the generic per-element reader for the rest. */
#define LOAD_LOOP(DT, T, EXPR)                                                   \
    case DT:                                                                     \
        for (size_t i = 0; i < n; i++) {                                         \
            const T x = *(const T *)(src + (int64_t)i * stride);                 \
            d[i] = (EXPR);                                                       \
        }                                                                        \
        return;

static void load_f32(float *d, const char *src, int64_t stride, aclDataType dt, size_t n)
{
    switch (dt) {
    LOAD_LOOP(ACL_FLOAT, float, x)
    LOAD_LOOP(ACL_FLOAT16, uint16_t, npusim_f16_to_float(x))
    LOAD_LOOP(ACL_BF16, uint16_t, npusim_bf16_to_float(x))
    LOAD_LOOP(ACL_DOUBLE, double, (float)x)
    LOAD_LOOP(ACL_INT32, int32_t, (float)x)
    LOAD_LOOP(ACL_INT64, int64_t, (float)x) /* one rounding: through double would round twice */
    LOAD_LOOP(ACL_UINT64, uint64_t, (float)x)
    LOAD_LOOP(ACL_INT8, int8_t, (float)x)
    LOAD_LOOP(ACL_UINT8, uint8_t, (float)x)
    LOAD_LOOP(ACL_INT16, int16_t, (float)x)
    LOAD_LOOP(ACL_BOOL, uint8_t, (float)(x != 0))
    default:
        for (size_t i = 0; i < n; i++) d[i] = (float)rd_double(src + (int64_t)i * stride, dt);
    }
}

static void load_f64(double *d, const char *src, int64_t stride, aclDataType dt, size_t n)
{
    switch (dt) {
    LOAD_LOOP(ACL_DOUBLE, double, x)
    LOAD_LOOP(ACL_FLOAT, float, (double)x)
    LOAD_LOOP(ACL_INT32, int32_t, (double)x)
    LOAD_LOOP(ACL_INT64, int64_t, (double)x)
    LOAD_LOOP(ACL_INT8, int8_t, (double)x)
    LOAD_LOOP(ACL_UINT8, uint8_t, (double)x)
    LOAD_LOOP(ACL_INT16, int16_t, (double)x)
    LOAD_LOOP(ACL_BOOL, uint8_t, (double)(x != 0))
    default:
        for (size_t i = 0; i < n; i++) d[i] = rd_double(src + (int64_t)i * stride, dt);
    }
}

static void load_i64(int64_t *d, const char *src, int64_t stride, aclDataType dt, size_t n)
{
    switch (dt) {
    LOAD_LOOP(ACL_INT64, int64_t, x)
    LOAD_LOOP(ACL_INT32, int32_t, (int64_t)x)
    LOAD_LOOP(ACL_INT8, int8_t, (int64_t)x)
    LOAD_LOOP(ACL_UINT8, uint8_t, (int64_t)x)
    LOAD_LOOP(ACL_INT16, int16_t, (int64_t)x)
    LOAD_LOOP(ACL_DOUBLE, double, i64_from_double(x))
    LOAD_LOOP(ACL_FLOAT, float, i64_from_double(x))
    default:
        for (size_t i = 0; i < n; i++) d[i] = rd_i64(src + (int64_t)i * stride, dt);
    }
}

static void load_i32(int32_t *d, const char *src, int64_t stride, aclDataType dt, size_t n)
{
    switch (dt) {
    LOAD_LOOP(ACL_INT32, int32_t, x)
    LOAD_LOOP(ACL_INT8, int8_t, (int32_t)x)
    LOAD_LOOP(ACL_UINT8, uint8_t, (int32_t)x)
    LOAD_LOOP(ACL_INT16, int16_t, (int32_t)x)
    LOAD_LOOP(ACL_DOUBLE, double, (int32_t)(uint32_t)i64_from_double(x))
    LOAD_LOOP(ACL_FLOAT, float, (int32_t)(uint32_t)i64_from_double(x))
    default:
        for (size_t i = 0; i < n; i++) d[i] = (int32_t)(uint32_t)rd_i64(src + (int64_t)i * stride, dt);
    }
}

void npusim_load(npusim_kind k, void *dst, const char *src, int64_t stride, aclDataType dt, size_t n)
{
    switch (k) {
    case KIND_I32: load_i32(dst, src, stride, dt, n); return;
    case KIND_F32: load_f32(dst, src, stride, dt, n); return;
    case KIND_F64: load_f64(dst, src, stride, dt, n); return;
    case KIND_I64: load_i64(dst, src, stride, dt, n); return;
    case KIND_U64: {
        uint64_t *d = dst;
        for (size_t i = 0; i < n; i++) d[i] = rd_u64(src + (int64_t)i * stride, dt);
        return;
    }
    case KIND_BOOL: {
        uint8_t *d = dst;
        for (size_t i = 0; i < n; i++) d[i] = rd_bool(src + (int64_t)i * stride, dt);
        return;
    }
    case KIND_C128: {
        double *d = dst;
        for (size_t i = 0; i < n; i++) {
            const char *p = src + (int64_t)i * stride;
            d[2 * i] = rd_double(p, dt);
            d[2 * i + 1] = rd_imag(p, dt);
        }
        return;
    }
    default: return;
    }
}

/* Writers: kind value -> element of dtype at p. Integers wrap (two's complement), floats to
 * integers truncate toward zero, complex to real keeps the real part, anything to bool is != 0. */
static inline void wr_i64(char *p, aclDataType dt, int64_t v)
{
    switch (dt) {
    case ACL_BOOL: *(uint8_t *)p = v != 0; break;
    case ACL_INT8: case ACL_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    case ACL_INT16: case ACL_UINT16: *(uint16_t *)p = (uint16_t)v; break;
    case ACL_INT32: case ACL_UINT32: *(uint32_t *)p = (uint32_t)v; break;
    case ACL_INT64: case ACL_UINT64: *(uint64_t *)p = (uint64_t)v; break;
    case ACL_FLOAT16: *(uint16_t *)p = npusim_f16_from_double((double)v); break;
    case ACL_BF16: *(uint16_t *)p = npusim_bf16_from_double((double)v); break;
    case ACL_FLOAT: *(float *)p = (float)v; break;
    case ACL_DOUBLE: *(double *)p = (double)v; break;
    case ACL_COMPLEX64: ((float *)p)[0] = (float)v; ((float *)p)[1] = 0; break;
    case ACL_COMPLEX128: ((double *)p)[0] = (double)v; ((double *)p)[1] = 0; break;
    default: break;
    }
}

static inline void wr_u64(char *p, aclDataType dt, uint64_t v)
{
    switch (dt) {
    case ACL_FLOAT16: *(uint16_t *)p = npusim_f16_from_double((double)v); break;
    case ACL_BF16: *(uint16_t *)p = npusim_bf16_from_double((double)v); break;
    case ACL_FLOAT: *(float *)p = (float)v; break;
    case ACL_DOUBLE: *(double *)p = (double)v; break;
    case ACL_COMPLEX64: ((float *)p)[0] = (float)v; ((float *)p)[1] = 0; break;
    case ACL_COMPLEX128: ((double *)p)[0] = (double)v; ((double *)p)[1] = 0; break;
    default: wr_i64(p, dt, (int64_t)v); break;
    }
}

static inline void wr_complex(char *p, aclDataType dt, double re, double im)
{
    switch (dt) {
    case ACL_BOOL: *(uint8_t *)p = re != 0 || im != 0; break;
    case ACL_FLOAT16: *(uint16_t *)p = npusim_f16_from_double(re); break;
    case ACL_BF16: *(uint16_t *)p = npusim_bf16_from_double(re); break;
    case ACL_FLOAT: *(float *)p = (float)re; break;
    case ACL_DOUBLE: *(double *)p = re; break;
    case ACL_COMPLEX64: ((float *)p)[0] = (float)re; ((float *)p)[1] = (float)im; break;
    case ACL_COMPLEX128: ((double *)p)[0] = re; ((double *)p)[1] = im; break;
    case ACL_UINT64: *(uint64_t *)p = u64_from_double(re); break;
    default: wr_i64(p, dt, i64_from_double(re)); break;
    }
}

#define STORE_LOOP(DT, T, EXPR)                                                  \
    case DT:                                                                     \
        for (size_t i = 0; i < n; i++) {                                         \
            const S x = s[i];                                                    \
            *(T *)(dst + (int64_t)i * stride) = (EXPR);                          \
        }                                                                        \
        return;

/* The stores of floats of type SRC (float or double) into each dtype: the same conversions
 * from either, but for the half-precision ones, which round from SRC directly (F16, BF16). */
#define DEFINE_STORE_FLOAT(NAME, SRC, F16, BF16)                                             \
    static void NAME(const SRC *s, char *dst, int64_t stride, aclDataType dt, size_t n)      \
    {                                                                                        \
        typedef SRC S;                                                                       \
        switch (dt) {                                                                        \
        STORE_LOOP(ACL_FLOAT, float, (float)x)                                               \
        STORE_LOOP(ACL_DOUBLE, double, (double)x)                                            \
        STORE_LOOP(ACL_FLOAT16, uint16_t, F16(x))                                            \
        STORE_LOOP(ACL_BF16, uint16_t, BF16(x))                                              \
        STORE_LOOP(ACL_INT64, int64_t, i64_from_double(x))                                   \
        STORE_LOOP(ACL_INT32, uint32_t, (uint32_t)i64_from_double(x))                        \
        STORE_LOOP(ACL_INT16, uint16_t, (uint16_t)i64_from_double(x))                        \
        STORE_LOOP(ACL_INT8, uint8_t, (uint8_t)i64_from_double(x))                           \
        STORE_LOOP(ACL_UINT8, uint8_t, (uint8_t)i64_from_double(x))                          \
        STORE_LOOP(ACL_BOOL, uint8_t, x != 0)                                                \
        default:                                                                             \
            for (size_t i = 0; i < n; i++) wr_complex(dst + (int64_t)i * stride, dt, s[i], 0); \
        }                                                                                    \
    }

DEFINE_STORE_FLOAT(store_f32, float, npusim_f16_from_float, npusim_bf16_from_float)
DEFINE_STORE_FLOAT(store_f64, double, npusim_f16_from_double, npusim_bf16_from_double)

static void store_i64(const int64_t *s, char *dst, int64_t stride, aclDataType dt, size_t n)
{
    typedef int64_t S;
    switch (dt) {
    STORE_LOOP(ACL_INT64, int64_t, x)
    STORE_LOOP(ACL_INT32, uint32_t, (uint32_t)x)
    STORE_LOOP(ACL_INT8, uint8_t, (uint8_t)x)
    STORE_LOOP(ACL_UINT8, uint8_t, (uint8_t)x)
    default:
        for (size_t i = 0; i < n; i++) wr_i64(dst + (int64_t)i * stride, dt, s[i]);
    }
}

static void store_bool(const uint8_t *s, char *dst, int64_t stride, aclDataType dt, size_t n)
{
    typedef uint8_t S;
    switch (dt) {
    STORE_LOOP(ACL_BOOL, uint8_t, x)
    STORE_LOOP(ACL_FLOAT, float, (float)x)
    default:
        for (size_t i = 0; i < n; i++) wr_i64(dst + (int64_t)i * stride, dt, s[i]);
    }
}

static void store_i32(const int32_t *s, char *dst, int64_t stride, aclDataType dt, size_t n)
{
    typedef int32_t S;
    switch (dt) {
    STORE_LOOP(ACL_INT32, int32_t, x)
    STORE_LOOP(ACL_INT64, int64_t, (int64_t)x)
    STORE_LOOP(ACL_FLOAT, float, (float)x)
    STORE_LOOP(ACL_DOUBLE, double, (double)x)
    default:
        for (size_t i = 0; i < n; i++) wr_i64(dst + (int64_t)i * stride, dt, s[i]);
    }
}

void npusim_store(npusim_kind k, const void *src, char *dst, int64_t stride, aclDataType dt, size_t n)
{
    switch (k) {
    case KIND_I32: store_i32(src, dst, stride, dt, n); return;
    case KIND_F32: store_f32(src, dst, stride, dt, n); return;
    case KIND_F64: store_f64(src, dst, stride, dt, n); return;
    case KIND_I64: store_i64(src, dst, stride, dt, n); return;
    case KIND_BOOL: store_bool(src, dst, stride, dt, n); return;
    case KIND_U64: {
        const uint64_t *s = src;
        for (size_t i = 0; i < n; i++) wr_u64(dst + (int64_t)i * stride, dt, s[i]);
        return;
    }
    case KIND_C128: {
        const double *s = src;
        for (size_t i = 0; i < n; i++) wr_complex(dst + (int64_t)i * stride, dt, s[2 * i], s[2 * i + 1]);
        return;
    }
    default: return;
    }
}

void npusim_scalar_value(const aclScalar *s, npusim_kind k, void *out)
{
    npusim_load(k, out, (const char *)s->bytes, 0, s->dtype, 1);
}

double npusim_scalar_double(const aclScalar *s)
{
    return rd_double((const char *)s->bytes, s->dtype);
}

bool npusim_dtype_in(aclDataType dt, uint64_t mask)
{
    return dt >= 0 && dt < 64 && ((mask >> dt) & 1);
}
