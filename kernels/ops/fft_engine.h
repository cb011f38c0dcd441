/* Private to kernels/ops: npusim's FFT engine, the simulated device's kernel behind aclfft.
 * Complex transforms of any length in double precision: iterative radix-2 for powers of two,
 * Bluestein's chirp-z algorithm (on a power-of-two convolution) for every other length; and
 * vectorised, multi-threaded single-precision transforms of power-of-two length (fft_lanes.c). */
#ifndef NPUSIM_FFT_ENGINE_H
#define NPUSIM_FFT_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    double re, im;
} fft_cplx;

/* Tables of a single-precision power-of-two transform (fft_lanes.c). */
typedef struct fft_pow2 fft_pow2;

/* Tables of one transform length; immutable once made, shared by plans and queued launches. */
typedef struct fft_tables {
    int64_t n;        /* transform length */
    int64_t m;        /* power-of-two length transformed: n itself, or the Bluestein convolution */
    fft_cplx *stage;   /* m - 1 twiddles, stage by stage: [len/2 - 1 + k] = exp(-2 pi i k / len) */
    fft_cplx *chirp;   /* Bluestein only: n values exp(-i pi k^2 / n) */
    fft_cplx *filter;  /* Bluestein only: forward transform of the conjugate chirp, m values */
    struct fft_tables *half; /* real transforms of even n: the tables of n/2, else NULL */
    fft_cplx *real_twiddle;  /* with half: n/2 + 1 values exp(-2 pi i k / n) */
    fft_pow2 *pow2;          /* n a power of two: the single-precision tables (no `stage`) */
} fft_tables;

/* Tables for length n >= 1 (with `real`, also those of the half-length real algorithm when n
 * is even), or NULL when out of host memory. */
fft_tables *fft_tables_make(int64_t n, bool real);
void fft_tables_free(fft_tables *t);
/* Scratch elements fft_run needs for these tables. */
int64_t fft_work_size(const fft_tables *t);
/* In-place unnormalised transform of data[n], n = 1 or not a power of two (those have `pow2`
 * tables instead); sign -1 forward, +1 backward. */
void fft_run(const fft_tables *t, fft_cplx *data, int sign, fft_cplx *work);
/* Real transforms of even n through one complex transform of n/2 (tables made with `real`),
 * n/2 not a power of two.
 * Forward: data[k] = x[2k] + i x[2k+1] for k < n/2 in, the n/2 + 1 spectrum terms out.
 * Backward: the n/2 + 1 terms of a Hermitian spectrum in, n * (x[2k] + i x[2k+1]) out. */
void fft_real_forward(const fft_tables *t, fft_cplx *data, fft_cplx *work);
void fft_real_backward(const fft_tables *t, fft_cplx *data, fft_cplx *work);

/* Single-precision tables of n, a power of two, or NULL when out of host memory. */
fft_pow2 *fft_pow2_make(int64_t n);
void fft_pow2_free(fft_pow2 *p);
/* Unnormalised transforms (sign -1 forward, +1 backward) of `lines` lines of interleaved
 * complex64: line l's element k at src + 2 (l src_line + k elem) floats, written at
 * dst + 2 (l dst_line + k elem). src may be dst (in place); lines must not overlap otherwise.
 * Runs on the CPU pool; false when out of host memory (dst then partly unwritten). */
bool fft_pow2_run(const fft_pow2 *p, const float *src, int64_t src_line, float *dst, int64_t dst_line,
                  int64_t elem, int64_t lines, int sign);

/* Real transforms of 2h points, h = p->n, one per line, the split into (or the merge from) the
 * h + 1 spectrum terms done in the lane buffers (w: h + 1 values exp(-2 pi i k / 2h)).
 * Forward (sign -1): rows of 2h floats at src, rows of h + 1 complex64 at dst. Backward (+1):
 * rows of h + 1 complex64 at src (imaginary parts of the first and last ignored), rows of 2h
 * floats, times 2h, at dst. Only where fft_pow2_real_direct(p, lines) says so; false when out
 * of host memory. */
bool fft_pow2_real_direct(const fft_pow2 *p, int64_t lines);
bool fft_pow2_real(const fft_pow2 *p, const fft_cplx *w, const float *src, float *dst, int64_t lines, int sign);

#endif /* NPUSIM_FFT_ENGINE_H */
