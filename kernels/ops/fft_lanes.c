/* npusim's single-precision transforms of power-of-two length (see fft_engine.h).
 *
 * Lines are transformed FFT_LANES at a time, one per vector lane (fft_lanes_body.h: radix-4
 * and radix-8 Stockham stages, twiddles from tables per stage length). A line of up to
 * FFT_DIRECT_MAX points is transformed whole in a lane buffer that stays in the core's cache;
 * a longer line (or a length >= 64 with fewer lines than lanes, which would leave lanes idle)
 * runs as a four-step
 * transform, n = n1 * n2 with x[j1 + n1 j2]:
 *   A. the n1 lines j1 (adjacent in memory: one vector load per element) of length n2 over j2,
 *      each element k2 times w^(j1 k2) (w = exp(-2 pi i / n)), into a scratch matrix T[j1][k2];
 *   B. the n2 lines k2 of T, of length n1 over j1, to X[k2 + n2 k1] (again one vector store).
 * Both steps split their line groups across the CPU pool. Backward transforms conjugate on
 * the way in and out. Rows of adjacent values (the lanes then FFT_LANES rows apart) move
 * between memory and the lane buffer through a register transpose, FFT_LANES / 2 values of
 * each row at a time, and through the first and last stages on the way (two passes over the
 * buffer fewer). Real transforms of 2n points run as complex ones of n (x[2k] + i x[2k+1])
 * whose split into the n + 1 spectrum terms is done on the way out of the buffer (rows) or in
 * it, and the merge from them with the first stage.
 * Twiddles are computed in double from exact angles and rounded once, so the error is that
 * of the float arithmetic of the butterflies: O(u log n) relative to ||x||.
 * The source is compiled for AVX-512 and AVX2 as well (GCC on x86-64) and the CPU picks. */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fft_engine.h"
#include "npusim.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define FFT_X86 1
#else
#define FFT_X86 0
#endif

#define FFT_DIRECT_MAX 2048 /* points of a line transformed whole: 2 x 2048 x 16 lanes x 8 B = 512 KiB */
#define FFT_FOUR_STEP_MIN 64
#define FFT_BLOCK 32 /* points per line copied at a time between a line and the lane buffer */
#define FFT_AHEAD 16 /* elements ahead prefetched when a line's elements are far apart */

static const double PI = 3.14159265358979323846;

struct fft_pow2 {
    int64_t n;
    float *twiddles;          /* direct transforms: the tables below, in one allocation */
    const float *tw4[64];     /* [e]: the radix-4 stage of m = 2^e: (w^p, w^2p, w^3p), p < m/4 */
    const float *tw8[64];     /* [e]: the radix-8 stage of m = 2^e: w^p .. w^7p, p < m/8 */
    int64_t n1, n2;           /* four-step split, 0 when n < FFT_FOUR_STEP_MIN */
    struct fft_pow2 *sub1;    /* tables of n1 (step B) */
    struct fft_pow2 *sub2;    /* tables of n2 (step A) */
    double *roots;            /* n1 values exp(-2 pi i j1 / n) */
};

/* Lines of complex64 values: line l's element k at src + 2 (l src_line + k src_elem) floats. */
typedef struct {
    const float *src;
    float *dst;
    int64_t src_line, src_elem, dst_line, dst_elem;
    int64_t lines;
    bool conj_in, conj_out;
    const double *roots; /* NULL, or per line l a root r_l: element k is multiplied by r_l^k */
    int real;            /* 0; -1: real forward (n + 1 terms out), +1: real backward (n + 1 in) */
    const fft_cplx *real_w; /* with real: n + 1 values exp(-2 pi i k / 2n) */
} fft_lines;

#define FL_CAT2(a, b) a##_##b
#define FL_CAT(a, b) FL_CAT2(a, b)
#define FL(name) FL_CAT(name, FFT_ISA)

#define FFT_ISA base
#define FFT_LANES 4
#include "fft_lanes_body.h"
#undef FFT_LANES
#undef FFT_ISA

#if FFT_X86
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#pragma GCC optimize("fp-contract=fast")
#define FFT_ISA avx2
#define FFT_LANES 8
#include "fft_lanes_body.h"
#undef FFT_LANES
#undef FFT_ISA
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx2,fma")
#pragma GCC optimize("fp-contract=fast")
#define FFT_ISA avx512
#define FFT_LANES 16
#include "fft_lanes_body.h"
#undef FFT_LANES
#undef FFT_ISA
#pragma GCC pop_options
#endif

typedef struct {
    int lanes;
    bool (*run)(const fft_pow2 *p, const fft_lines *ln, int64_t begin, int64_t end);
} fft_isa;

static const fft_isa isa_base = { 4, run_base };
#if FFT_X86
static const fft_isa isa_avx2 = { 8, run_avx2 };
static const fft_isa isa_avx512 = { 16, run_avx512 };
#endif

/* The widest instruction set the CPU has, or a narrower one named by NPUSIM_FFT_ISA ("base",
 * "avx2"; for tests of every variant on one machine). Read at each transform: cheap. */
static const fft_isa *choose_isa(void)
{
    const char *want = getenv("NPUSIM_FFT_ISA");
    if (want && strcmp(want, "base") == 0) return &isa_base;
#if FFT_X86
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    if (avx512 && !(want && strcmp(want, "avx2") == 0)) return &isa_avx512;
    if (avx2) return &isa_avx2;
#endif
    return &isa_base;
}

/* ---------------------------------------------------------------------------------------------
 * Tables */

static double angle(int64_t k, int64_t n) { return -2.0 * PI * (double)(k % n) / (double)n; }

void fft_pow2_free(fft_pow2 *p)
{
    if (!p) return;
    free(p->twiddles);
    fft_pow2_free(p->sub1);
    fft_pow2_free(p->sub2);
    free(p->roots);
    free(p);
}

static fft_pow2 *make(int64_t n, bool split);

/* (w^jp) for j = 1 .. radix - 1, p < m / radix, w = exp(-2 pi i / m), from w on; returns the end. */
static float *stage_twiddles(float *w, int64_t m, int radix)
{
    for (int64_t q = 0; q < m / radix; q++)
        for (int64_t j = 1; j < radix; j++, w += 2) {
            w[0] = (float)cos(angle(j * q, m));
            w[1] = (float)sin(angle(j * q, m));
        }
    return w;
}

/* The twiddles of every stage the transforms of n may take (radix 4 from m = 4, radix 8 from
 * m = 8), by the stage's length m: which radix a stage has depends on the stages before it. */
static bool make_twiddles(fft_pow2 *p)
{
    int64_t count = 0;
    for (int64_t m = 4; m <= p->n; m <<= 1) count += 6 * (m / 4) + 14 * (m / 8);
    p->twiddles = malloc(sizeof(float) * (size_t)(count + 1));
    if (!p->twiddles) return false;
    float *w = p->twiddles;
    for (int e = 2; (INT64_C(1) << e) <= p->n; e++) {
        int64_t m = INT64_C(1) << e;
        p->tw4[e] = w;
        w = stage_twiddles(w, m, 4);
        p->tw8[e] = w;
        w = stage_twiddles(w, m, 8);
    }
    return true;
}

static bool make_four_step(fft_pow2 *p)
{
    int bits = 0;
    while ((INT64_C(1) << bits) < p->n) bits++;
    p->n1 = INT64_C(1) << (bits / 2);
    p->n2 = p->n / p->n1;
    p->sub1 = make(p->n1, false);
    p->sub2 = p->n2 == p->n1 ? NULL : make(p->n2, false);
    p->roots = malloc(sizeof(double) * (size_t)(2 * p->n1));
    if (!p->sub1 || (p->n2 != p->n1 && !p->sub2) || !p->roots) return false;
    for (int64_t j = 0; j < p->n1; j++) {
        p->roots[2 * j] = cos(angle(j, p->n));
        p->roots[2 * j + 1] = sin(angle(j, p->n));
    }
    return true;
}

/* The tables of a direct transform of n, and with `split` those of the four-step one. */
static fft_pow2 *make(int64_t n, bool split)
{
    fft_pow2 *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = n;
    bool direct = !split || n <= FFT_DIRECT_MAX;
    bool ok = (!direct || make_twiddles(p)) && (!split || n < FFT_FOUR_STEP_MIN || make_four_step(p));
    if (ok) return p;
    fft_pow2_free(p);
    return NULL;
}

fft_pow2 *fft_pow2_make(int64_t n) { return make(n, true); }

/* ---------------------------------------------------------------------------------------------
 * Transforms */

typedef struct {
    const fft_isa *isa;
    const fft_pow2 *p;
    const fft_lines *ln;
    atomic_bool failed;
} lines_job;

static void run_range(size_t begin, size_t end, void *arg)
{
    lines_job *j = arg;
    if (!j->isa->run(j->p, j->ln, (int64_t)begin, (int64_t)end)) atomic_store(&j->failed, true);
}

static bool run_lines(const fft_isa *isa, const fft_pow2 *p, const fft_lines *ln)
{
    lines_job j = { isa, p, ln, false };
    int64_t groups = (ln->lines + isa->lanes - 1) / isa->lanes;
    npusim_parallel_for((size_t)groups, 1, run_range, &j);
    return !atomic_load(&j.failed);
}

static bool four_step(const fft_isa *isa, const fft_pow2 *p, const float *src, float *dst, int64_t elem,
                      bool conj, float *scratch)
{
    int64_t n1 = p->n1, n2 = p->n2;
    fft_lines a = { src, scratch, elem, n1 * elem, n2, 1, n1, conj, false, p->roots, 0, NULL };
    fft_lines b = { scratch, dst, 1, n2, elem, n2 * elem, n2, false, conj, NULL, 0, NULL };
    return run_lines(isa, p->sub2 ? p->sub2 : p->sub1, &a) && run_lines(isa, p->sub1, &b);
}

static bool direct(const fft_isa *isa, const fft_pow2 *p, int64_t lines)
{
    return p->n <= FFT_DIRECT_MAX && (lines >= isa->lanes || p->n < FFT_FOUR_STEP_MIN);
}

bool fft_pow2_real_direct(const fft_pow2 *p, int64_t lines) { return direct(choose_isa(), p, lines); }

bool fft_pow2_real(const fft_pow2 *p, const fft_cplx *w, const float *src, float *dst, int64_t lines, int sign)
{
    int64_t h = p->n;
    bool forward = sign < 0;
    fft_lines ln = { src, dst, forward ? h : h + 1, 1, forward ? h + 1 : h, 1, lines, false, !forward, NULL,
                     forward ? -1 : 1, w };
    return run_lines(choose_isa(), p, &ln);
}

bool fft_pow2_run(const fft_pow2 *p, const float *src, int64_t src_line, float *dst, int64_t dst_line, int64_t elem,
                  int64_t lines, int sign)
{
    const fft_isa *isa = choose_isa();
    bool conj = sign > 0;
    if (direct(isa, p, lines)) {
        fft_lines ln = { src, dst, src_line, elem, dst_line, elem, lines, conj, conj, NULL, 0, NULL };
        return run_lines(isa, p, &ln);
    }
    float *scratch = malloc(sizeof(float) * (size_t)(2 * p->n));
    if (!scratch) return false;
    bool ok = true;
    for (int64_t l = 0; l < lines && ok; l++)
        ok = four_step(isa, p, src + 2 * l * src_line, dst + 2 * l * dst_line, elem, conj, scratch);
    free(scratch);
    return ok;
}
