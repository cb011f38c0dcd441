/* Casts between contiguous runs of the common dtypes (bool, int8, uint8, int16, int32, int64,
 * float16, bfloat16, float, double) as whole-run loops the compiler vectorises, also for
 * AVX-512 (its float <-> int64 conversions: vcvttpd2qq / vcvttps2qq). They give exactly what
 * converting through the kinds (npusim_load / npusim_store) gives: integers wrap, floats to
 * integers truncate toward zero (NaN and values outside int64 give INT64_MIN, then wrap, as x86
 * does), anything to bool is != 0, and float16 / bfloat16 round to nearest even (float16 NaNs
 * as NumPy's halffloat conversions keep them). The element-wise engine (ew.c) uses them for
 * aclnnCast / aclnnInplaceCopy runs and for the inputs and outputs of mixed-dtype operators. */
#include <string.h>

#include "ew_ops.h"

#if defined(__GNUC__) && __GNUC__ >= 12 && defined(__x86_64__) && defined(__linux__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define CAST_MULTI_ISA __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define CAST_MULTI_ISA EW_MULTI_ISA
#endif

/* What x86's truncating conversion gives for a float outside int64 (and for NaN). */
#define F64_TO_I64(x) ((x) >= -0x1p63 && (x) < 0x1p63 ? (int64_t)(x) : INT64_MIN)
#define F32_TO_I64(x) ((x) >= -0x1p63f && (x) < 0x1p63f ? (int64_t)(x) : INT64_MIN)

#define CAST_LOOP(NAME, FROM, TO, EXPR)                                                        \
    CAST_MULTI_ISA static void cast_##NAME(void *dst, const void *src, size_t n)                \
    {                                                                                          \
        const FROM *s = src;                                                                   \
        TO *d = dst;                                                                           \
        for (size_t i = 0; i < n; i++) {                                                       \
            const FROM x = s[i];                                                               \
            d[i] = (EXPR);                                                                     \
        }                                                                                      \
    }
CAST_LOOP(b_i8, uint8_t, int8_t, (int8_t)(uint8_t)(x != 0))
CAST_LOOP(b_u8, uint8_t, uint8_t, (uint8_t)(uint8_t)(x != 0))
CAST_LOOP(b_i16, uint8_t, int16_t, (int16_t)(uint16_t)(x != 0))
CAST_LOOP(b_i32, uint8_t, int32_t, (int32_t)(uint32_t)(x != 0))
CAST_LOOP(b_i64, uint8_t, int64_t, (int64_t)(uint64_t)(x != 0))
CAST_LOOP(b_f32, uint8_t, float, (float)(x != 0))
CAST_LOOP(b_f64, uint8_t, double, (double)(x != 0))
CAST_LOOP(i8_b, int8_t, uint8_t, x != 0)
CAST_LOOP(i8_u8, int8_t, uint8_t, (uint8_t)(uint8_t)x)
CAST_LOOP(i8_i16, int8_t, int16_t, (int16_t)(uint16_t)x)
CAST_LOOP(i8_i32, int8_t, int32_t, (int32_t)(uint32_t)x)
CAST_LOOP(i8_i64, int8_t, int64_t, (int64_t)(uint64_t)x)
CAST_LOOP(i8_f32, int8_t, float, (float)x)
CAST_LOOP(i8_f64, int8_t, double, (double)x)
CAST_LOOP(u8_b, uint8_t, uint8_t, x != 0)
CAST_LOOP(u8_i8, uint8_t, int8_t, (int8_t)(uint8_t)x)
CAST_LOOP(u8_i16, uint8_t, int16_t, (int16_t)(uint16_t)x)
CAST_LOOP(u8_i32, uint8_t, int32_t, (int32_t)(uint32_t)x)
CAST_LOOP(u8_i64, uint8_t, int64_t, (int64_t)(uint64_t)x)
CAST_LOOP(u8_f32, uint8_t, float, (float)x)
CAST_LOOP(u8_f64, uint8_t, double, (double)x)
CAST_LOOP(i16_b, int16_t, uint8_t, x != 0)
CAST_LOOP(i16_i8, int16_t, int8_t, (int8_t)(uint8_t)x)
CAST_LOOP(i16_u8, int16_t, uint8_t, (uint8_t)(uint8_t)x)
CAST_LOOP(i16_i32, int16_t, int32_t, (int32_t)(uint32_t)x)
CAST_LOOP(i16_i64, int16_t, int64_t, (int64_t)(uint64_t)x)
CAST_LOOP(i16_f32, int16_t, float, (float)x)
CAST_LOOP(i16_f64, int16_t, double, (double)x)
CAST_LOOP(i32_b, int32_t, uint8_t, x != 0)
CAST_LOOP(i32_i8, int32_t, int8_t, (int8_t)(uint8_t)x)
CAST_LOOP(i32_u8, int32_t, uint8_t, (uint8_t)(uint8_t)x)
CAST_LOOP(i32_i16, int32_t, int16_t, (int16_t)(uint16_t)x)
CAST_LOOP(i32_i64, int32_t, int64_t, (int64_t)(uint64_t)x)
CAST_LOOP(i32_f32, int32_t, float, (float)x)
CAST_LOOP(i32_f64, int32_t, double, (double)x)
CAST_LOOP(i64_b, int64_t, uint8_t, x != 0)
CAST_LOOP(i64_i8, int64_t, int8_t, (int8_t)(uint8_t)x)
CAST_LOOP(i64_u8, int64_t, uint8_t, (uint8_t)(uint8_t)x)
CAST_LOOP(i64_i16, int64_t, int16_t, (int16_t)(uint16_t)x)
CAST_LOOP(i64_i32, int64_t, int32_t, (int32_t)(uint32_t)x)
CAST_LOOP(i64_f32, int64_t, float, (float)x)
CAST_LOOP(i64_f64, int64_t, double, (double)x)
CAST_LOOP(f32_b, float, uint8_t, x != 0)
CAST_LOOP(f32_i8, float, int8_t, (int8_t)(uint8_t)F32_TO_I64(x))
CAST_LOOP(f32_u8, float, uint8_t, (uint8_t)(uint8_t)F32_TO_I64(x))
CAST_LOOP(f32_i16, float, int16_t, (int16_t)(uint16_t)F32_TO_I64(x))
CAST_LOOP(f32_i32, float, int32_t, (int32_t)(uint32_t)F32_TO_I64(x))
CAST_LOOP(f32_i64, float, int64_t, (int64_t)(uint64_t)F32_TO_I64(x))
CAST_LOOP(f32_f64, float, double, (double)x)
CAST_LOOP(f64_b, double, uint8_t, x != 0)
CAST_LOOP(f64_i8, double, int8_t, (int8_t)(uint8_t)F64_TO_I64(x))
CAST_LOOP(f64_u8, double, uint8_t, (uint8_t)(uint8_t)F64_TO_I64(x))
CAST_LOOP(f64_i16, double, int16_t, (int16_t)(uint16_t)F64_TO_I64(x))
CAST_LOOP(f64_i32, double, int32_t, (int32_t)(uint32_t)F64_TO_I64(x))
CAST_LOOP(f64_i64, double, int64_t, (int64_t)(uint64_t)F64_TO_I64(x))
CAST_LOOP(f64_f32, double, float, (float)x)

/* ---------------------------------------------------------------------------------------------
 * bfloat16 and float16 <-> float: bfloat16 is float's upper half (rounded to nearest even on
 * the way down); float16 takes F16C's conversions where the CPU has them. */

static inline float float_of_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

CAST_LOOP(bf16_f32, uint16_t, float, float_of_bits((uint32_t)x << 16))
CAST_LOOP(f32_bf16, float, uint16_t, npusim_bf16_from_float(x))

static void f16_f32_scalar(float *d, const uint16_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) d[i] = npusim_f16_to_float(s[i]);
}

static void f32_f16_scalar(uint16_t *d, const float *s, size_t n)
{
    for (size_t i = 0; i < n; i++) d[i] = npusim_f16_from_float(s[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Eight lanes at a time; a group holding a NaN goes through the scalar conversion, which keeps
 * a signalling NaN signalling as NumPy does (the instructions quiet it). */
__attribute__((target("avx2,f16c"))) static void f16_f32_f16c(float *d, const uint16_t *s, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + i)));
        if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)))
            f16_f32_scalar(d + i, s + i, 8);
        else
            _mm256_storeu_ps(d + i, v);
    }
    f16_f32_scalar(d + i, s + i, n - i);
}

__attribute__((target("avx2,f16c"))) static void f32_f16_f16c(uint16_t *d, const float *s, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(s + i);
        if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)))
            f32_f16_scalar(d + i, s + i, 8);
        else
            _mm_storeu_si128((__m128i *)(void *)(d + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    f32_f16_scalar(d + i, s + i, n - i);
}

static bool have_f16c(void)
{
    static int have = -1; /* racing first calls store the same answer */
    int known = __atomic_load_n(&have, __ATOMIC_RELAXED);
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
        __atomic_store_n(&have, known, __ATOMIC_RELAXED);
    }
    return known;
}

static void cast_f16_f32(void *dst, const void *src, size_t n)
{
    if (have_f16c()) f16_f32_f16c(dst, src, n);
    else f16_f32_scalar(dst, src, n);
}

static void cast_f32_f16(void *dst, const void *src, size_t n)
{
    if (have_f16c()) f32_f16_f16c(dst, src, n);
    else f32_f16_scalar(dst, src, n);
}
#else
static void cast_f16_f32(void *dst, const void *src, size_t n) { f16_f32_scalar(dst, src, n); }
static void cast_f32_f16(void *dst, const void *src, size_t n) { f32_f16_scalar(dst, src, n); }
#endif

/* ---------------------------------------------------------------------------------------------
 * The other float16 / bfloat16 pairs: through float in L1-sized blocks where that is exact
 * (or, for integers to float16, rounds the same: an integer float rounds is beyond float16's
 * range either way); double to float16 straight, with one rounding, as NumPy; wide integers and
 * double to bfloat16 through float, as ml_dtypes. */

static void via_f32(npusim_cast_fn first, size_t src_size, npusim_cast_fn second, size_t dst_size, void *dst,
                    const void *src, size_t n)
{
    _Alignas(64) float buf[NPUSIM_BLOCK];
    for (size_t off = 0; off < n; off += NPUSIM_BLOCK) {
        size_t m = n - off < NPUSIM_BLOCK ? n - off : NPUSIM_BLOCK;
        first(buf, (const char *)src + off * src_size, m);
        second((char *)dst + off * dst_size, buf, m);
    }
}

#define VIA_F32(FROM, FROM_SIZE, TO, TO_SIZE)                                                  \
    static void cast_##FROM##_##TO(void *dst, const void *src, size_t n)                       \
    {                                                                                          \
        via_f32(cast_##FROM##_f32, FROM_SIZE, cast_f32_##TO, TO_SIZE, dst, src, n);            \
    }
#define HALF_PAIRS(H)                                                                          \
    VIA_F32(H, 2, b, 1) VIA_F32(H, 2, i8, 1) VIA_F32(H, 2, u8, 1) VIA_F32(H, 2, i16, 2)        \
    VIA_F32(H, 2, i32, 4) VIA_F32(H, 2, i64, 8) VIA_F32(H, 2, f64, 8)                          \
    VIA_F32(b, 1, H, 2) VIA_F32(i8, 1, H, 2) VIA_F32(u8, 1, H, 2) VIA_F32(i16, 2, H, 2)
HALF_PAIRS(f16)
HALF_PAIRS(bf16)
VIA_F32(i32, 4, f16, 2)
VIA_F32(i64, 8, f16, 2)
VIA_F32(f16, 2, bf16, 2)
VIA_F32(bf16, 2, f16, 2)

/* (npusim_bf16_from_double, inline) */
CAST_LOOP(i32_bf16, int32_t, uint16_t, npusim_bf16_from_float((float)x))
CAST_LOOP(i64_bf16, int64_t, uint16_t, npusim_bf16_from_float((float)(double)x))
CAST_LOOP(f64_bf16, double, uint16_t, npusim_bf16_from_float((float)x))
CAST_LOOP(f64_f16, double, uint16_t, npusim_f16_from_double(x))

/* ---------------------------------------------------------------------------------------------
 * The table */

enum { T_B, T_I8, T_U8, T_I16, T_I32, T_I64, T_F16, T_BF16, T_F32, T_F64, T_COUNT };

static int table_index(aclDataType dt)
{
    switch (dt) {
    case ACL_BOOL: return T_B;
    case ACL_INT8: return T_I8;
    case ACL_UINT8: return T_U8;
    case ACL_INT16: return T_I16;
    case ACL_INT32: return T_I32;
    case ACL_INT64: return T_I64;
    case ACL_FLOAT16: return T_F16;
    case ACL_BF16: return T_BF16;
    case ACL_FLOAT: return T_F32;
    case ACL_DOUBLE: return T_F64;
    default: return -1;
    }
}

#define ROW(F) { cast_##F##_b, cast_##F##_i8, cast_##F##_u8, cast_##F##_i16, cast_##F##_i32, cast_##F##_i64, \
                 cast_##F##_f16, cast_##F##_bf16, cast_##F##_f32, cast_##F##_f64 }
#define cast_b_b NULL
#define cast_i8_i8 NULL
#define cast_u8_u8 NULL
#define cast_i16_i16 NULL
#define cast_i32_i32 NULL
#define cast_i64_i64 NULL
#define cast_f16_f16 NULL
#define cast_bf16_bf16 NULL
#define cast_f32_f32 NULL
#define cast_f64_f64 NULL
static const npusim_cast_fn casts[T_COUNT][T_COUNT] = {
    ROW(b), ROW(i8), ROW(u8), ROW(i16), ROW(i32), ROW(i64), ROW(f16), ROW(bf16), ROW(f32), ROW(f64),
};

npusim_cast_fn npusim_contiguous_cast(aclDataType from, aclDataType to)
{
    int f = table_index(from), t = table_index(to);
    return f < 0 || t < 0 ? NULL : casts[f][t];
}
