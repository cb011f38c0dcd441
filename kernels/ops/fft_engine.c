/* npusim's double-precision FFT engine (see fft_engine.h): Bluestein's algorithm for lengths
 * that are not powers of two (those have single-precision tables: fft_lanes.c). Twiddles and
 * chirps are computed directly with cos/sin of reduced angles (no recurrences), so the error
 * stays near that of the transform itself. The radix-2 passes of the convolution run block by
 * block while the blocks fit in cache, then over the whole array for the last stages; real
 * transforms of even length use one complex transform of half the length. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fft_engine.h"

static const double PI = 3.14159265358979323846;
#define FFT_CACHE_BLOCK 4096 /* complex doubles: 64 KiB, the stages up to it run in cache */

static bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

static fft_cplx cmul(fft_cplx a, fft_cplx b)
{
    fft_cplx r = { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re };
    return r;
}

static fft_cplx conjugate(fft_cplx a)
{
    fft_cplx r = { a.re, -a.im };
    return r;
}

static fft_cplx unit(double angle)
{
    fft_cplx r = { cos(angle), sin(angle) };
    return r;
}

static void bit_reverse(fft_cplx *a, int64_t m)
{
    for (int64_t i = 1, j = 0; i < m; i++) {
        int64_t bit = m >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            fft_cplx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}

/* The butterflies of one stage on len consecutive points, with that stage's twiddles w. */
static void butterflies(fft_cplx *a, int64_t len, const fft_cplx *w, int sign)
{
    int64_t half = len >> 1;
    for (int64_t k = 0; k < half; k++) {
        fft_cplx u = a[k], v = cmul(a[k + half], sign > 0 ? conjugate(w[k]) : w[k]);
        a[k].re = u.re + v.re;
        a[k].im = u.im + v.im;
        a[k + half].re = u.re - v.re;
        a[k + half].im = u.im - v.im;
    }
}

/* Iterative radix-2 decimation in time over m (a power of two) points. */
static void radix2(fft_cplx *a, int64_t m, const fft_cplx *stage, int sign)
{
    bit_reverse(a, m);
    int64_t block = m < FFT_CACHE_BLOCK ? m : FFT_CACHE_BLOCK;
    for (int64_t b = 0; b < m; b += block)
        for (int64_t len = 2; len <= block; len <<= 1)
            for (int64_t i = b; i < b + block; i += len) butterflies(a + i, len, stage + len / 2 - 1, sign);
    for (int64_t len = block * 2; len <= m; len <<= 1)
        for (int64_t i = 0; i < m; i += len) butterflies(a + i, len, stage + len / 2 - 1, sign);
}

void fft_tables_free(fft_tables *t)
{
    if (!t) return;
    free(t->stage);
    free(t->chirp);
    free(t->filter);
    fft_tables_free(t->half);
    free(t->real_twiddle);
    fft_pow2_free(t->pow2);
    free(t);
}

static bool make_stages(fft_tables *t)
{
    int64_t m = t->m;
    t->stage = malloc(sizeof(fft_cplx) * (size_t)(m > 1 ? m - 1 : 1));
    if (!t->stage) return false;
    for (int64_t half = 1; half < m; half <<= 1)
        for (int64_t k = 0; k < half; k++) t->stage[half - 1 + k] = unit(-PI * (double)k / (double)half);
    return true;
}

/* Bluestein: X_j = w_j * sum_k (x_k w_k) conj(w_{j-k}), w_k = exp(-i pi k^2 / n). */
static bool make_bluestein(fft_tables *t)
{
    int64_t n = t->n, m = t->m;
    t->chirp = malloc(sizeof(fft_cplx) * (size_t)n);
    t->filter = calloc((size_t)m, sizeof(fft_cplx));
    if (!t->chirp || !t->filter) return false;
    for (int64_t k = 0; k < n; k++)
        t->chirp[k] = unit(-PI * (double)((k * k) % (2 * n)) / (double)n); /* k^2 mod 2n: exact */
    t->filter[0].re = 1.0;
    for (int64_t k = 1; k < n; k++) t->filter[k] = t->filter[m - k] = conjugate(t->chirp[k]);
    radix2(t->filter, m, t->stage, -1);
    return true;
}

static bool make_real(fft_tables *t)
{
    int64_t h = t->n / 2;
    t->half = fft_tables_make(h, false);
    t->real_twiddle = malloc(sizeof(fft_cplx) * (size_t)(h + 1));
    if (!t->half || !t->real_twiddle) return false;
    for (int64_t k = 0; k <= h; k++) t->real_twiddle[k] = unit(-2.0 * PI * (double)k / (double)t->n);
    return true;
}

fft_tables *fft_tables_make(int64_t n, bool real)
{
    fft_tables *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->n = n;
    t->m = 1;
    if (is_pow2(n)) {
        t->m = n;
        t->pow2 = fft_pow2_make(n);
    } else {
        while (t->m < 2 * n - 1) t->m <<= 1;
    }
    bool ok = (t->pow2 ? true : make_stages(t) && make_bluestein(t)) && (!real || n % 2 || make_real(t));
    if (ok) return t;
    fft_tables_free(t);
    return NULL;
}

int64_t fft_work_size(const fft_tables *t)
{
    int64_t own = t->m == t->n ? 1 : t->m;
    int64_t half = t->half ? fft_work_size(t->half) : 1;
    return own > half ? own : half;
}

static void bluestein_forward(const fft_tables *t, fft_cplx *data, fft_cplx *work)
{
    int64_t n = t->n, m = t->m;
    for (int64_t k = 0; k < n; k++) work[k] = cmul(data[k], t->chirp[k]);
    memset(work + n, 0, sizeof(fft_cplx) * (size_t)(m - n));
    radix2(work, m, t->stage, -1);
    for (int64_t k = 0; k < m; k++) work[k] = cmul(work[k], t->filter[k]);
    radix2(work, m, t->stage, +1);
    double scale = 1.0 / (double)m;
    for (int64_t k = 0; k < n; k++) {
        fft_cplx v = cmul(work[k], t->chirp[k]);
        data[k].re = v.re * scale;
        data[k].im = v.im * scale;
    }
}

void fft_run(const fft_tables *t, fft_cplx *data, int sign, fft_cplx *work)
{
    if (t->n == 1) return; /* the only power of two real transforms bring here */
    if (sign < 0) {
        bluestein_forward(t, data, work);
        return;
    }
    /* backward(x) = conj(forward(conj(x))) */
    for (int64_t k = 0; k < t->n; k++) data[k].im = -data[k].im;
    bluestein_forward(t, data, work);
    for (int64_t k = 0; k < t->n; k++) data[k].im = -data[k].im;
}

/* With Z = FFT_{n/2}(x_even + i x_odd): E_k = (Z_k + conj Z_{h-k}) / 2, O_k = (Z_k - conj Z_{h-k}) / 2i,
 * X_k = E_k + w^k O_k for k = 0 .. h, w = exp(-2 pi i / n), Z periodic in h. */
void fft_real_forward(const fft_tables *t, fft_cplx *data, fft_cplx *work)
{
    int64_t h = t->n / 2;
    fft_run(t->half, data, -1, work);
    data[h] = data[0];
    for (int64_t k = 0; k <= h / 2; k++) {
        fft_cplx z = data[k], zc = conjugate(data[h - k]);
        fft_cplx y = data[h - k], yc = conjugate(data[k]);
        fft_cplx e = { (z.re + zc.re) / 2, (z.im + zc.im) / 2 }, o = { (z.im - zc.im) / 2, -(z.re - zc.re) / 2 };
        fft_cplx e2 = { (y.re + yc.re) / 2, (y.im + yc.im) / 2 }, o2 = { (y.im - yc.im) / 2, -(y.re - yc.re) / 2 };
        fft_cplx a = cmul(t->real_twiddle[k], o), b = cmul(t->real_twiddle[h - k], o2);
        data[k].re = e.re + a.re;
        data[k].im = e.im + a.im;
        data[h - k].re = e2.re + b.re;
        data[h - k].im = e2.im + b.im;
    }
}

/* The inverse: Z_k = (X_k + conj X_{h-k}) + i (X_k - conj X_{h-k}) / w^k = 2 (E_k + i O_k), whose
 * unnormalised inverse transform of length h is n (x_even + i x_odd). */
void fft_real_backward(const fft_tables *t, fft_cplx *data, fft_cplx *work)
{
    int64_t h = t->n / 2;
    data[0].im = 0; /* the imaginary parts of X_0 and X_{n/2} are ignored, as a Hermitian */
    data[h].im = 0; /* spectrum has none */
    for (int64_t k = 0; k <= h / 2; k++) {
        fft_cplx x = data[k], xc = conjugate(data[h - k]);
        fft_cplx y = data[h - k], yc = conjugate(data[k]);
        fft_cplx f = { x.re + xc.re, x.im + xc.im }, d = { x.re - xc.re, x.im - xc.im };
        fft_cplx f2 = { y.re + yc.re, y.im + yc.im }, d2 = { y.re - yc.re, y.im - yc.im };
        fft_cplx g = cmul(d, conjugate(t->real_twiddle[k])), g2 = cmul(d2, conjugate(t->real_twiddle[h - k]));
        data[k].re = f.re - g.im;
        data[k].im = f.im + g.re;
        data[h - k].re = f2.re - g2.im;
        data[h - k].im = f2.im + g2.re;
    }
    fft_run(t->half, data, +1, work);
}
