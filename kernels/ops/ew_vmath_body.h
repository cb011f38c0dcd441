/* The float32 transcendental kernels of ew_vmath.c, included there once per instruction set
 * with VM(name) giving each copy its own names. Private to ew_vmath.c. */

static inline uint64_t VM(bits_of)(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline double VM(double_of)(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* c ? a : b as bit operations: a conditional expression over doubles stays a branch under
 * -ftrapping-math and stops the vectoriser. */
static inline double VM(pick)(int c, double a, double b)
{
    uint64_t mask = 0 - (uint64_t)(c != 0);
    return VM(double_of)((VM(bits_of)(a) & mask) | (VM(bits_of)(b) & ~mask));
}

/* ---------------------------------------------------------------------------------------------
 * sin and cos: x = n pi + r with |r| <= pi/2; tan: x = n pi/2 + r with |r| <= pi/4. pi and pi/2
 * are split in three parts (30, 30 and 53 bits) so that n times each part is exact for
 * |x| < TRIG_LIMIT = 2^18 */

/* sin(r) for |r| <= pi/4 (tan); error < r^13/13! < 2^-36 relative */
static inline double VM(sin_poly)(double r, double z)
{
    /* r (1 + ...), not r + r (...): sin(-0) stays -0 */
    return r * (1.0 + z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880 + z * (-1.0 / 39916800))))));
}

/* cos(r) for |r| <= pi/4 (tan), z = r^2; error < r^14/14! < 2^-41 */
static inline double VM(cos_poly)(double z)
{
    return 1.0 + z * (-0.5 + z * (1.0 / 24 + z * (-1.0 / 720 + z * (1.0 / 40320 + z * (-1.0 / 3628800 + z * (1.0 / 479001600))))));
}

/* sin(r) for |r| <= pi/2 (a little beyond too), one odd polynomial for sin and cos alike;
 * error < r^17/17! < 2^-37 */
static inline double VM(sin_poly_wide)(double r)
{
    double z = r * r;
    return r * (1.0 + z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880 + z * (-1.0 / 39916800 + z * (1.0 / 6227020800.0 + z * (-1.0 / 1307674368000.0))))))));
}

/* sin(x) = (-1)^n sin(x - n pi), n = round(x / pi); cos(x) = (-1)^(m+1) sin(x - (m + 1/2) pi),
 * m = round(x / pi - 1/2). half = 0 for sin, 0.5 for cos. */
static inline float VM(sin_or_cos)(float xf, double half)
{
    double x = xf;
    double t = (x * INV_PI - half) + ROUND_MAGIC;
    double h = (t - ROUND_MAGIC) + half;
    double r = ((x - h * PI_1) - h * PI_2) - h * PI_3;
    uint64_t flip = (VM(bits_of)(t) + (half != 0.0)) << 63;
    return (float)VM(double_of)(VM(bits_of)(VM(sin_poly_wide)(r)) ^ flip);
}

/* tan's reduction: returns r, *quadrant = n mod 4 (in the low bits). */
static inline double VM(trig_reduce)(double x, uint64_t *quadrant)
{
    double t = x * TWO_OVER_PI + ROUND_MAGIC;
    double n = t - ROUND_MAGIC;
    *quadrant = VM(bits_of)(t);
    return ((x - n * PIO2_1) - n * PIO2_2) - n * PIO2_3;
}

static inline float VM(tan_reduced)(float xf)
{
    uint64_t q;
    double r = VM(trig_reduce)(xf, &q), z = r * r;
    double s = VM(sin_poly)(r, z), c = VM(cos_poly)(z);
    return (float)VM(pick)(q & 1, -c / s, s / c);
}

static inline int VM(all_within)(const float *a, size_t n, float limit)
{
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= fabsf(a[i]) <= limit; /* false for NaN */
    return ok;
}

static void VM(sin_or_cos_f32)(float *o, const float *a, size_t n, double half)
{
    for (size_t off = 0; off < n; off += VMATH_BLOCK) {
        size_t m = n - off < VMATH_BLOCK ? n - off : VMATH_BLOCK;
        const float *x = a + off;
        float *y = o + off;
        if (VM(all_within)(x, m, TRIG_LIMIT)) {
            for (size_t i = 0; i < m; i++) y[i] = VM(sin_or_cos)(x[i], half);
        } else { /* rare: huge or non-finite arguments, element by element */
            for (size_t i = 0; i < m; i++) {
                float v = x[i];
                y[i] = fabsf(v) <= TRIG_LIMIT ? VM(sin_or_cos)(v, half) : half != 0.0 ? cosf(v) : sinf(v);
            }
        }
    }
}

static void VM(tan_f32_run)(float *o, const float *a, size_t n)
{
    for (size_t off = 0; off < n; off += VMATH_BLOCK) {
        size_t m = n - off < VMATH_BLOCK ? n - off : VMATH_BLOCK;
        const float *x = a + off;
        float *y = o + off;
        if (VM(all_within)(x, m, TRIG_LIMIT)) {
            for (size_t i = 0; i < m; i++) y[i] = VM(tan_reduced)(x[i]);
        } else {
            for (size_t i = 0; i < m; i++) y[i] = fabsf(x[i]) <= TRIG_LIMIT ? VM(tan_reduced)(x[i]) : tanf(x[i]);
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * exp family: x = k * ln2 + r with |r| <= ln2/2, ln2 in two parts (k * LN2_HI exact) */

/* e^r - 1 for |r| <= ln2/2; error < r^10/10! relative to r, < 2^-35 */
static inline double VM(expm1_poly)(double r)
{
    return r + r * r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040 + r * (1.0 / 40320 + r * (1.0 / 362880))))))));
}

/* x = k ln2 + r; returns r, *scale = 2^k. With clamp, x is first clamped to [EXP_MIN, EXP_MAX]
 * (NaN stays NaN); without, the caller has checked that it lies there. */
static inline double VM(exp_reduce)(double x, double *scale, int clamp)
{
    if (clamp) {
        x = VM(pick)(x > EXP_MAX, EXP_MAX, x);
        x = VM(pick)(x < EXP_MIN, EXP_MIN, x);
    }
    double t = x * LOG2E + ROUND_MAGIC;
    double k = t - ROUND_MAGIC;
    *scale = VM(double_of)((VM(bits_of)(t) - (uint64_t)ROUND_MAGIC_BITS + 1023) << 52);
    return (x - k * LN2_HI) - k * LN2_LO;
}

static inline double VM(exp_d)(double x, int clamp)
{
    double scale, r = VM(exp_reduce)(x, &scale, clamp);
    return scale + scale * VM(expm1_poly)(r);
}

/* e^x - 1 without cancellation near 0: 2^k (e^r - 1) + (2^k - 1), both terms exact-ish. */
static inline double VM(expm1_d)(double x, int clamp)
{
    double scale, r = VM(exp_reduce)(x, &scale, clamp);
    return VM(pick)(x == 0.0, x, scale * VM(expm1_poly)(r) + (scale - 1.0)); /* expm1(-0) = -0 */
}

static inline int VM(all_between)(const float *a, size_t n, float lo, float hi)
{
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= (a[i] >= lo) & (a[i] <= hi); /* false for NaN */
    return ok;
}

/* A run function computing EXPR (of the float v) block by block. In blocks whose elements all
 * lie in [LO, HI] (the common case) EXPR is evaluated with checked = 0 and skips the selects
 * for special values and clamps; other blocks evaluate it with checked = 1. */
#define VM_BLOCKED_RUN(NAME, LO, HI, EXPR)                                                     \
    static void VM(NAME)(float *o, const float *a, size_t n)                                   \
    {                                                                                          \
        for (size_t off = 0; off < n; off += VMATH_BLOCK) {                                    \
            size_t m = n - off < VMATH_BLOCK ? n - off : VMATH_BLOCK;                          \
            const float *x = a + off;                                                          \
            float *y = o + off;                                                                \
            if (VM(all_between)(x, m, (LO), (HI))) {                                           \
                const int checked = 0;                                                         \
                for (size_t i = 0; i < m; i++) {                                               \
                    const float v = x[i];                                                      \
                    y[i] = (EXPR);                                                             \
                }                                                                              \
            } else {                                                                           \
                const int checked = 1;                                                         \
                for (size_t i = 0; i < m; i++) {                                               \
                    const float v = x[i];                                                      \
                    y[i] = (EXPR);                                                             \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }

#if !VMATH_AVX512
VM_BLOCKED_RUN(exp_f32_run, EXP_MIN, EXP_MAX, (float)VM(exp_d)(v, checked))
#endif
VM_BLOCKED_RUN(exp2_f32_run, EXP2_MIN, EXP2_MAX, (float)VM(exp_d)((double)v * LN2, checked))
VM_BLOCKED_RUN(expm1_f32_run, EXP_MIN, EXP_MAX, (float)VM(expm1_d)(v, checked))

/* sinh = (e^x - e^-x) / 2 from u = expm1(|x|): (u + u / (u + 1)) / 2, no cancellation. */
static inline float VM(sinh_one)(float v, int clamp)
{
    double u = VM(expm1_d)(fabs((double)v), clamp);
    return copysignf((float)(0.5 * (u + u / (u + 1.0))), v);
}

static inline float VM(cosh_one)(float v, int clamp)
{
    double e = VM(exp_d)(fabs((double)v), clamp);
    return (float)(0.5 * (e + 1.0 / e));
}

#if !VMATH_FMA
/* tanh = u / (u + 2), u = expm1(2|x|); |x| > 20 gives 1 in float already, and 2|x| <= 40 needs
 * no clamp in expm1 (a NaN still comes out NaN). */
static inline float VM(tanh_one)(float v, int clamp)
{
    double x = fabs((double)v);
    if (clamp) x = VM(pick)(x > 20.0, 20.0, x);
    double u = VM(expm1_d)(2.0 * x, 0);
    return copysignf((float)(u / (u + 2.0)), v);
}
#endif

VM_BLOCKED_RUN(sinh_f32_run, -EXP_MAX, EXP_MAX, VM(sinh_one)(v, checked))
VM_BLOCKED_RUN(cosh_f32_run, -EXP_MAX, EXP_MAX, VM(cosh_one)(v, checked))

#if VMATH_FMA
#define ROUND_MAGIC_F 0x1.8p23f

#if !VMATH_AVX512
/* With fused multiply-adds (the AVX2 variant) tanh is computed in float, twice as many lanes
 * per vector as in double, with the corrections below keeping it within 1 ULP (0.73 ULP
 * measured on [0, 0.625), 0.87 beyond). For |x| < TANH_SMALL an odd polynomial x + x^3 P(x^2)
 * (a least-squares fit on Chebyshev nodes, relative error weight); above, tanh = 1 - 2 / d with
 * d = e^(2|x|) + 1 = 2^k (1 + p) + 1, p = e^r - 1 (|r| <= ln2/2), formed as (2^k + 1) + 2^k p
 * with its rounding error kept (d_lo), and 2 / d corrected by one Newton step on d + d_lo. From
 * TANH_ONE on, the float result is 1. */
#define TANH_SMALL 0.625f
#define TANH_ONE 9.5f

static inline uint32_t VM(bits_of_f)(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline float VM(float_of)(uint32_t b)
{
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static inline float VM(pickf)(int c, float a, float b)
{
    uint32_t mask = 0 - (uint32_t)(c != 0);
    return VM(float_of)((VM(bits_of_f)(a) & mask) | (VM(bits_of_f)(b) & ~mask));
}

/* tanh(x) for 0 <= x < TANH_SMALL */
static inline float VM(tanh_small)(float x)
{
    float z = x * x;
    float p = fmaf(fmaf(fmaf(fmaf(fmaf(0x1.1842f8p-9f, z, -0x1.0bc5eep-7f), z, 0x1.6380e4p-6f), z,
                            -0x1.b9ed7ep-5f), z, 0x1.11106p-3f), z, -0x1.555554p-2f);
    return fmaf(x * z, p, x);
}

/* tanh(x) for TANH_SMALL <= x (NaN stays NaN, inf gives 1) */
static inline float VM(tanh_large)(float x)
{
    x = VM(pickf)(x > TANH_ONE, TANH_ONE, x);
    float y = x + x;
    float t = fmaf(y, 0x1.715476p+0f, ROUND_MAGIC_F);
    float k = t - ROUND_MAGIC_F; /* round(y / ln2), 0 <= k <= 28 */
    float r = fmaf(-k, 0x1.7f7d1cp-20f, fmaf(-k, 0x1.62e4p-1f, y));
    float q = fmaf(fmaf(fmaf(fmaf(0x1.6b488ap-10f, r, 0x1.1228bep-7f), r, 0x1.555748p-5f), r,
                        0x1.5554aep-3f), r, 0x1.fffffep-2f);
    float p = fmaf(r * r, q, r);
    float s = VM(float_of)((VM(bits_of_f)(t) - VM(bits_of_f)(ROUND_MAGIC_F) + 127u) << 23);
    float c = s + 1.0f;
    float d = fmaf(s, p, c);
    float d_lo = fmaf(s, p, c - d); /* c - d is exact: d / c lies in [0.7, 1.5] */
    float t0 = 2.0f / d;
    float e = fmaf(-t0, d_lo, fmaf(-t0, d, 2.0f));
    return 1.0f - fmaf(e, 0.5f * t0, t0);
}

static inline float VM(tanh_f)(float v)
{
    float x = fabsf(v);
    return copysignf(VM(pickf)(x < TANH_SMALL, VM(tanh_small)(x), VM(tanh_large)(x)), v);
}

static void VM(tanh_f32_run)(float *o, const float *a, size_t n)
{
    for (size_t i = 0; i < n; i++) o[i] = VM(tanh_f)(a[i]);
}
#else
/* tanh on 16 lanes in about 25 instructions, 40 for tanh_f's method (the loop is bound by
 * them, not by memory, on two threads): tanh|x| = u / (u + 2) with u = e^(2|x|) - 1 for every
 * |x|, so no second polynomial for small |x| and no select between two paths.
 * u = 2^k (1 + p') - 1 with k = round(2|x| / ln2) is formed as 2^k p' + (2^k - 1) in one
 * rounding (2^k - 1 is exact), so that it keeps its relative accuracy near 0; p' = e^(2r) - 1
 * is exp16's polynomial with its coefficients scaled by powers of 2 for the argument
 * r = |x| - k ln2/2 (ln2/2 in two parts). The quotient comes from rcp14 and one correction by
 * the residual u - (u + 2) y, which includes the rounding error of u + 2 (exact by Fast2Sum
 * while u <= 2, where it matters). Within 1.65 ULP over all floats (NumPy's float32 tanh: 1.37),
 * the float result 1 from TANH16_ONE on, subnormal x give x. NaN stays NaN (min returns its
 * second operand's NaN), inf gives 1; the sign is put back last, so tanh(-0) = -0. */
#define TANH16_ONE 9.1f /* tanh > 1 - 2^-25 from 9.011 on: the float result is 1 */

static inline __m512 VM(tanh16)(__m512 v)
{
    const __m512 sign = _mm512_set1_ps(-0.0f), one = _mm512_set1_ps(1.0f), two = _mm512_set1_ps(2.0f);
    /* adding it rounds to an integer k and leaves k + 128 in the low bits of the sum */
    const __m512 magic = _mm512_set1_ps(ROUND_MAGIC_F + 128.0f);
    __m512 x = _mm512_min_ps(_mm512_set1_ps(TANH16_ONE), _mm512_andnot_ps(sign, v));
    __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(0x1.715476p+1f), magic); /* 2 / ln2 */
    __m512 k = _mm512_sub_ps(t, magic);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0x1.7f7d1cp-21f),
                                _mm512_fnmadd_ps(k, _mm512_set1_ps(0x1.62e4p-2f), x));
    /* p' / 2 = r + r^2 q(r), q(r) = 2 q_exp(2r) with exp16's q_exp */
    __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(0x1.9fcab0p-7f), r, _mm512_set1_ps(0x1.6d962ap-5f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0x1.1111e0p-3f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0x1.555480p-2f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0x1.555554p-1f));
    q = _mm512_fmadd_ps(q, r, one);
    __m512 half_p = _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r);
    /* 2^(k+1): the low bits k + 128 of t shifted into the exponent field (0 <= k <= 27) */
    __m512 s2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(t), 23));
    __m512 u = _mm512_fmadd_ps(s2, half_p, _mm512_fmsub_ps(s2, _mm512_set1_ps(0.5f), one));
    __m512 d = _mm512_add_ps(u, two);
    __m512 d_lo = _mm512_sub_ps(u, _mm512_sub_ps(d, two));
    __m512 r0 = _mm512_rcp14_ps(d);
    __m512 y = _mm512_mul_ps(u, r0);
    __m512 e = _mm512_fnmadd_ps(d_lo, y, _mm512_fnmadd_ps(d, y, u));
    __m512 res = _mm512_fmadd_ps(e, r0, y);
    /* res | (v & sign) */
    return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(res), _mm512_castps_si512(v),
                                                         _mm512_castps_si512(sign), 0xF8));
}

static void VM(tanh_f32_run)(float *o, const float *a, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, VM(tanh16)(_mm512_loadu_ps(a + i)));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(o + i, m, VM(tanh16)(_mm512_maskz_loadu_ps(m, a + i)));
    }
}
#endif
#else
VM_BLOCKED_RUN(tanh_f32_run, -20.0f, 20.0f, VM(tanh_one)(v, checked))
#endif

#if VMATH_AVX512
/* exp in float on 16 lanes where every result is a normal float (EXPF_LO <= x <= EXPF_HI):
 * x = k ln2 + r (ln2 in two parts, k ln2_hi exact), e^r - 1 = r + r^2 q(r) with q of degree 5
 * (a least-squares fit on Chebyshev nodes, relative error 2^-29.8 on |r| <= ln2/2),
 * e^x = 2^k (1 + r1) + 2^k (lo + r_lo + r^2 q) where r = r1 + r_lo, r1 = x - k ln2_hi exact and
 * 1 + r1 split exactly into hi + lo: one rounding of a sum whose parts are all but exact, so
 * within 0.5 ULP plus a few hundredths. Other vectors (overflow, subnormal results, inf, NaN) take the double
 * kernel. */
#define EXPF_LO -87.0f
#define EXPF_HI 88.0f

static inline __m512 VM(exp16)(__m512 x)
{
    __m512 magic = _mm512_set1_ps(ROUND_MAGIC_F), one = _mm512_set1_ps(1.0f);
    __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(0x1.715476p+0f), magic);
    __m512 k = _mm512_sub_ps(t, magic);
    __m512 r1 = _mm512_fnmadd_ps(k, _mm512_set1_ps(0x1.62e4p-1f), x); /* exact */
    __m512 r_lo = _mm512_mul_ps(k, _mm512_set1_ps(-0x1.7f7d1cp-20f));
    __m512 r = _mm512_add_ps(r1, r_lo);
    __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(0x1.9fcab0p-13f), r, _mm512_set1_ps(0x1.6d962ap-10f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0x1.1111e0p-7f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0x1.555480p-5f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0x1.555554p-3f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0.5f));
    __m512 w = _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r_lo);
    /* 1 + r1 as hi + lo exactly (|r1| < 1), so that the only rounding of the sum is the last */
    __m512 hi = _mm512_add_ps(one, r1);
    __m512 lo = _mm512_add_ps(_mm512_sub_ps(one, hi), r1);
    __m512i kbits = _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_castps_si512(magic));
    __m512 s = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(kbits, _mm512_set1_epi32(127)), 23));
    return _mm512_fmadd_ps(s, hi, _mm512_mul_ps(s, _mm512_add_ps(lo, w)));
}

static void VM(exp_f32_run)(float *o, const float *a, size_t n)
{
    const __m512 lo = _mm512_set1_ps(EXPF_LO), hi = _mm512_set1_ps(EXPF_HI);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 x = _mm512_loadu_ps(a + i);
        if ((_mm512_cmp_ps_mask(x, lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(x, hi, _CMP_LE_OQ)) == 0xffff)
            _mm512_storeu_ps(o + i, VM(exp16)(x));
        else
            for (size_t j = i; j < i + 16; j++) o[j] = (float)VM(exp_d)(a[j], 1);
    }
    for (; i < n; i++) o[i] = (float)VM(exp_d)(a[i], 1);
}
#endif

/* ---------------------------------------------------------------------------------------------
 * log family: x = 2^e * m with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s), s = (m-1)/(m+1),
 * |s| <= 0.172. Every float, subnormals included, is a normal double. */

/* log(x) for finite x > 0 (other inputs give garbage the callers replace) */
static inline double VM(log_positive)(double x)
{
    uint64_t b = VM(bits_of)(x);
    /* exponent field as a double without an int64 -> double conversion */
    double e = VM(double_of)(UINT64_C(0x4330000000000000) | (b >> 52)) - (0x1p52 + 1023.0);
    double m = VM(double_of)((b & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000));
    int big = m > SQRT2;
    m = VM(pick)(big, 0.5 * m, m);
    e = VM(pick)(big, e + 1.0, e);
    double s = (m - 1.0) / (m + 1.0), z = s * s;
    /* series to s^13: error < 2 s^15 / 15 < 2^-38 relative */
    double log_m = 2.0 * s + 2.0 * s * z * (1.0 / 3 + z * (1.0 / 5 + z * (1.0 / 7 + z * (1.0 / 9 + z * (1.0 / 11 + z * (1.0 / 13))))));
    return e * LN2 + log_m;
}

/* IEEE results at the edges: log(±0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN stays. */
static inline double VM(log_special)(double x, double v)
{
    v = VM(pick)(x == 0.0, -INFINITY, v);
    v = VM(pick)(x < 0.0, NAN, v);
    v = VM(pick)(x == INFINITY, INFINITY, v);
    return VM(pick)(x != x, x, v);
}

/* log1p(x) = log(u) + ((x - (u - 1)) / u) with u = 1 + x rounded: the correction restores what
 * the rounding of u lost (exact for |x| small against 1, where it matters). */
static inline float VM(log1p_one)(float xf, int special)
{
    double x = xf, u = 1.0 + x;
    double v = VM(log_positive)(u) + (x - (u - 1.0)) / u;
    v = VM(pick)(u == 1.0, x, v); /* |x| below 2^-53: log1p(x) = x (keeps -0) */
    return (float)(special ? VM(log_special)(u, v) : v);
}

static inline float VM(log_one)(float xf, double factor, int special)
{
    double x = xf, v = factor * VM(log_positive)(x);
    return (float)(special ? VM(log_special)(x, v) : v);
}

#if VMATH_AVX512
/* log_positive on 8 doubles with intrinsics: the exponent and mantissa from getexp / getmant,
 * and 1 / (m + 1) from rcp14 refined by two Newton steps (relative error near 2^-56) instead
 * of a division, whose 8-lane throughput bounds the loop otherwise. Same series, same error
 * bound (the division's rounding was already far below a float ULP). */
static inline __m512d VM(log8)(__m512d x)
{
    const __m512d one = _mm512_set1_pd(1.0);
    __m512d e = _mm512_getexp_pd(x);
    __m512d m = _mm512_getmant_pd(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
    __mmask8 big = _mm512_cmp_pd_mask(m, _mm512_set1_pd(SQRT2), _CMP_GT_OQ);
    m = _mm512_mask_mul_pd(m, big, m, _mm512_set1_pd(0.5));
    e = _mm512_mask_add_pd(e, big, e, one);
    __m512d den = _mm512_add_pd(m, one);
    __m512d r = _mm512_rcp14_pd(den);
    r = _mm512_fmadd_pd(r, _mm512_fnmadd_pd(den, r, one), r);
    r = _mm512_fmadd_pd(r, _mm512_fnmadd_pd(den, r, one), r);
    __m512d s = _mm512_mul_pd(_mm512_sub_pd(m, one), r);
    __m512d z = _mm512_mul_pd(s, s);
    __m512d p = _mm512_fmadd_pd(z, _mm512_set1_pd(1.0 / 13), _mm512_set1_pd(1.0 / 11));
    p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(1.0 / 9));
    p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(1.0 / 7));
    p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(1.0 / 5));
    p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(1.0 / 3));
    __m512d two_s = _mm512_add_pd(s, s);
    __m512d log_m = _mm512_fmadd_pd(_mm512_mul_pd(two_s, z), p, two_s);
    return _mm512_fmadd_pd(e, _mm512_set1_pd(LN2), log_m);
}

/* 16 floats at a time where all are positive and finite; other vectors element by element. */
static void VM(log_avx512)(float *o, const float *a, size_t n, double factor)
{
    const __m512 lo = _mm512_set1_ps(LOG_MIN), hi = _mm512_set1_ps(FLT_MAX);
    const __m512d f = _mm512_set1_pd(factor);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 x = _mm512_loadu_ps(a + i);
        if ((_mm512_cmp_ps_mask(x, lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(x, hi, _CMP_LE_OQ)) == 0xffff) {
            __m512d x0 = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
            __m512d x1 = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
            __m256 y0 = _mm512_cvtpd_ps(_mm512_mul_pd(f, VM(log8)(x0)));
            __m256 y1 = _mm512_cvtpd_ps(_mm512_mul_pd(f, VM(log8)(x1)));
            _mm512_storeu_ps(o + i, _mm512_insertf32x8(_mm512_castps256_ps512(y0), y1, 1));
        } else {
            for (size_t j = i; j < i + 16; j++) o[j] = VM(log_one)(a[j], factor, 1);
        }
    }
    for (; i < n; i++) o[i] = VM(log_one)(a[i], factor, 1);
}

static void VM(log_e_f32_run)(float *o, const float *a, size_t n)
{
    VM(log_avx512)(o, a, n, 1.0);
}

static void VM(log2_f32_run)(float *o, const float *a, size_t n)
{
    VM(log_avx512)(o, a, n, LOG2E);
}

static void VM(log10_f32_run)(float *o, const float *a, size_t n)
{
    VM(log_avx512)(o, a, n, LOG10E);
}
#else
VM_BLOCKED_RUN(log_e_f32_run, LOG_MIN, FLT_MAX, VM(log_one)(v, 1.0, checked))
VM_BLOCKED_RUN(log2_f32_run, LOG_MIN, FLT_MAX, VM(log_one)(v, LOG2E, checked))
VM_BLOCKED_RUN(log10_f32_run, LOG_MIN, FLT_MAX, VM(log_one)(v, LOG10E, checked))
#endif
VM_BLOCKED_RUN(log1p_f32_run, LOG1P_MIN, FLT_MAX, VM(log1p_one)(v, checked))

static void VM(sin_f32_run)(float *o, const float *a, size_t n)
{
    VM(sin_or_cos_f32)(o, a, n, 0.0);
}

static void VM(cos_f32_run)(float *o, const float *a, size_t n)
{
    VM(sin_or_cos_f32)(o, a, n, 0.5);
}

static const vmath_run VM(table)[V_COUNT] = {
    [V_SIN] = VM(sin_f32_run), [V_COS] = VM(cos_f32_run), [V_TAN] = VM(tan_f32_run),
    [V_EXP] = VM(exp_f32_run), [V_EXP2] = VM(exp2_f32_run), [V_EXPM1] = VM(expm1_f32_run),
    [V_SINH] = VM(sinh_f32_run), [V_COSH] = VM(cosh_f32_run), [V_TANH] = VM(tanh_f32_run),
    [V_LOG] = VM(log_e_f32_run), [V_LOG2] = VM(log2_f32_run), [V_LOG10] = VM(log10_f32_run),
    [V_LOG1P] = VM(log1p_f32_run),
};
