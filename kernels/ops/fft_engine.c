/* npusim's FFT engine (see fft_engine.h). Twiddles and chirps are computed directly with cos/sin
 * of reduced angles (no recurrences), so the error stays near that of the transform itself. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fft_engine.h"

static const double PI = 3.14159265358979323846;

static bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

static fft_cplx cmul(fft_cplx a, fft_cplx b)
{
    fft_cplx r = { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re };
    return r;
}

/* Iterative radix-2 decimation in time over m (a power of two) points. */
static void radix2(fft_cplx *a, int64_t m, const fft_cplx *twiddle, int sign)
{
    for (int64_t i = 1, j = 0; i < m; i++) { /* bit reversal */
        int64_t bit = m >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            fft_cplx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int64_t len = 2; len <= m; len <<= 1) {
        int64_t half = len >> 1, step = m / len;
        for (int64_t i = 0; i < m; i += len)
            for (int64_t k = 0; k < half; k++) {
                fft_cplx w = twiddle[k * step];
                if (sign > 0) w.im = -w.im;
                fft_cplx u = a[i + k], v = cmul(a[i + k + half], w);
                a[i + k].re = u.re + v.re;
                a[i + k].im = u.im + v.im;
                a[i + k + half].re = u.re - v.re;
                a[i + k + half].im = u.im - v.im;
            }
    }
}

void fft_tables_free(fft_tables *t)
{
    if (!t) return;
    free(t->twiddle);
    free(t->chirp);
    free(t->filter);
    free(t);
}

fft_tables *fft_tables_make(int64_t n)
{
    fft_tables *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->n = n;
    t->m = 1;
    if (is_pow2(n)) {
        t->m = n;
    } else {
        while (t->m < 2 * n - 1) t->m <<= 1;
    }
    int64_t m = t->m;
    t->twiddle = malloc(sizeof(fft_cplx) * (size_t)(m / 2 + 1));
    if (!t->twiddle) goto fail;
    for (int64_t k = 0; k < m / 2 + 1; k++) {
        double angle = -2.0 * PI * (double)k / (double)m;
        t->twiddle[k].re = cos(angle);
        t->twiddle[k].im = sin(angle);
    }
    if (m == n) return t;
    /* Bluestein: X_j = w_j * sum_k (x_k w_k) conj(w_{j-k}), w_k = exp(-i pi k^2 / n). */
    t->chirp = malloc(sizeof(fft_cplx) * (size_t)n);
    t->filter = calloc((size_t)m, sizeof(fft_cplx));
    if (!t->chirp || !t->filter) goto fail;
    for (int64_t k = 0; k < n; k++) {
        double angle = -PI * (double)((k * k) % (2 * n)) / (double)n; /* k^2 mod 2n keeps it exact */
        t->chirp[k].re = cos(angle);
        t->chirp[k].im = sin(angle);
    }
    t->filter[0].re = 1.0;
    for (int64_t k = 1; k < n; k++) {
        fft_cplx c = { t->chirp[k].re, -t->chirp[k].im };
        t->filter[k] = c;
        t->filter[m - k] = c;
    }
    radix2(t->filter, m, t->twiddle, -1);
    return t;
fail:
    fft_tables_free(t);
    return NULL;
}

int64_t fft_work_size(const fft_tables *t) { return t->m == t->n ? 1 : t->m; }

static void bluestein_forward(const fft_tables *t, fft_cplx *data, fft_cplx *work)
{
    int64_t n = t->n, m = t->m;
    for (int64_t k = 0; k < n; k++) work[k] = cmul(data[k], t->chirp[k]);
    memset(work + n, 0, sizeof(fft_cplx) * (size_t)(m - n));
    radix2(work, m, t->twiddle, -1);
    for (int64_t k = 0; k < m; k++) work[k] = cmul(work[k], t->filter[k]);
    radix2(work, m, t->twiddle, +1);
    double scale = 1.0 / (double)m;
    for (int64_t k = 0; k < n; k++) {
        fft_cplx v = cmul(work[k], t->chirp[k]);
        data[k].re = v.re * scale;
        data[k].im = v.im * scale;
    }
}

void fft_run(const fft_tables *t, fft_cplx *data, int sign, fft_cplx *work)
{
    if (t->m == t->n) {
        radix2(data, t->n, t->twiddle, sign);
        return;
    }
    if (sign < 0) {
        bluestein_forward(t, data, work);
        return;
    }
    /* backward(x) = conj(forward(conj(x))) */
    for (int64_t k = 0; k < t->n; k++) data[k].im = -data[k].im;
    bluestein_forward(t, data, work);
    for (int64_t k = 0; k < t->n; k++) data[k].im = -data[k].im;
}
