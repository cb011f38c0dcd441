/* Vectorised float32 transcendentals (sin, cos, tan, exp, exp2, expm1, log, log2, log10, log1p,
 * sinh, cosh, tanh) for the element-wise engine.
 *
 * Each float is widened to double, reduced, evaluated by a polynomial and rounded once back to
 * float. The polynomials are truncated Taylor series whose truncation error is below 2^-32 of
 * the result, so the one rounding dominates: results are within 1 ULP of the exact value (the
 * tests measure this against float64 NumPy), at least as accurate as NumPy's own float32 SIMD
 * kernels. tanh with FMA and exp on AVX-512 compute in float instead, tanh on AVX-512 within
 * 1.65 ULP (see ew_vmath_body.h). The loops are branch-free so that the compiler vectorises them; on x86-64 with GCC
 * the kernels (ew_vmath_body.h) are also compiled for AVX2+FMA and AVX-512 and picked by the
 * CPU at run time, since the build itself targets plain x86-64. Special values (±0, ±inf, NaN, subnormals, overflow)
 * come out of the same arithmetic or explicit selects; sin/cos/tan arguments beyond
 * TRIG_LIMIT, where the three-part reduction would lose bits, go to libm. */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ew_ops.h"

/* GCC on x86-64 also compiles the kernels for AVX2 and AVX-512 (the build targets plain x86-64). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define VMATH_X86 1
#include <immintrin.h>
#else
#define VMATH_X86 0
#endif

#define VMATH_BLOCK 256 /* elements per range check of the trigonometric kernels */

/* Adding then subtracting 1.5 * 2^52 rounds a double of magnitude < 2^51 to the nearest
 * integer (round-to-nearest mode); the low bits of the sum's representation hold it. */
#define ROUND_MAGIC 0x1.8p52
#define ROUND_MAGIC_BITS INT64_C(0x4338000000000000)

/* pi/2 (tan) and pi (sin, cos) in three parts: see the trigonometric section of ew_vmath_body.h */
#define TRIG_LIMIT 262144.0f
#define TWO_OVER_PI 0x1.45f306dc9c883p-1
#define PIO2_1 0x1.921fb54p+0
#define PIO2_2 0x1.10b46118p-30
#define PIO2_3 0x1.313198a2e037p-61
/* pi likewise, for sin and cos */
#define INV_PI 0x1.45f306dc9c883p-2
#define PI_1 0x1.921fb54p+1
#define PI_2 0x1.10b46118p-29
#define PI_3 0x1.313198a2e037p-60

#define LOG2E 0x1.71547652b82fep+0
#define LN2 0x1.62e42fefa39efp-1
#define LN2_HI 0x1.62e42feep-1
#define LN2_LO 0x1.a39ef35793c76p-33
/* Beyond these every float result has overflowed to inf or underflowed to 0, and 2^k stays a
 * normal double. */
#define EXP_MAX 100.0
#define EXP_MIN -110.0
#define EXP2_MIN -150.0 /* 2^x = e^(x ln2): the same range for x ln2 */
#define EXP2_MAX 140.0

#define SQRT2 0x1.6a09e667f3bcdp+0
/* Inputs from which log / log1p need no special-value selects: positive finite floats and
 * floats above -1 */
#define LOG_MIN 0x1p-149f
#define LOG1P_MIN -0x1.fffffep-1f
#define LOG10E 0x1.bcb7b1526e50ep-2

enum { V_SIN, V_COS, V_TAN, V_EXP, V_EXP2, V_EXPM1, V_SINH, V_COSH, V_TANH, V_LOG, V_LOG2, V_LOG10, V_LOG1P,
       V_COUNT };
typedef void (*vmath_run)(float *o, const float *a, size_t n);

#define VM_CAT2(a, b) a##_##b
#define VM_CAT(a, b) VM_CAT2(a, b)
#define VM(name) VM_CAT(name, VMATH_ISA)

/* The plain build (SSE2 on x86-64): every CPU */
#define VMATH_ISA base
#define VMATH_FMA 0
#include "ew_vmath_body.h"
#undef VMATH_FMA
#undef VMATH_ISA

#if VMATH_X86
/* The same source compiled for AVX2 + FMA and for AVX-512, chosen at run time */
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#pragma GCC optimize("fp-contract=fast") /* a * b + c as one FMA: shorter chains, fewer roundings */
#define VMATH_ISA avx2
#define VMATH_FMA 1
#define VMATH_AVX512 0
#include "ew_vmath_body.h"
#undef VMATH_AVX512
#undef VMATH_FMA
#undef VMATH_ISA
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx2,fma")
#pragma GCC optimize("fp-contract=fast")
#define VMATH_ISA avx512
#define VMATH_FMA 1
#define VMATH_AVX512 1 /* tanh written with intrinsics: rcp14 instead of a division */
#include "ew_vmath_body.h"
#undef VMATH_AVX512
#undef VMATH_FMA
#undef VMATH_ISA
#pragma GCC pop_options
#endif

/* The widest instruction set the CPU has, or a narrower one named by NPUSIM_VMATH_ISA ("base",
 * "avx2"; for tests of every variant on one machine). */
static const vmath_run *choose_table(void)
{
    const char *want = getenv("NPUSIM_VMATH_ISA");
    if (want && strcmp(want, "base") == 0) return table_base;
#if VMATH_X86
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    if (avx512 && !(want && strcmp(want, "avx2") == 0)) return table_avx512;
    if (avx2) return table_avx2;
#endif
    return table_base;
}

static const vmath_run *vmath_table(void)
{
    static _Atomic(const vmath_run *) chosen; /* racing first calls choose the same table */
    const vmath_run *t = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (!t) {
        t = choose_table();
        atomic_store_explicit(&chosen, t, memory_order_relaxed);
    }
    return t;
}

#define VMATH_ENTRY(NAME, INDEX)                                                               \
    void NAME(void *out, const void *const *in, size_t n, const npusim_exec *ex)               \
    {                                                                                          \
        (void)ex;                                                                              \
        vmath_table()[INDEX](out, in[0], n);                                                   \
    }
VMATH_ENTRY(npusim_vsin_f32, V_SIN)
VMATH_ENTRY(npusim_vcos_f32, V_COS)
VMATH_ENTRY(npusim_vtan_f32, V_TAN)
VMATH_ENTRY(npusim_vexp_f32, V_EXP)
VMATH_ENTRY(npusim_vexp2_f32, V_EXP2)
VMATH_ENTRY(npusim_vexpm1_f32, V_EXPM1)
VMATH_ENTRY(npusim_vsinh_f32, V_SINH)
VMATH_ENTRY(npusim_vcosh_f32, V_COSH)
VMATH_ENTRY(npusim_vtanh_f32, V_TANH)
VMATH_ENTRY(npusim_vlog_f32, V_LOG)
VMATH_ENTRY(npusim_vlog2_f32, V_LOG2)
VMATH_ENTRY(npusim_vlog10_f32, V_LOG10)
VMATH_ENTRY(npusim_vlog1p_f32, V_LOG1P)
