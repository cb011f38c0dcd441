/* The single-precision power-of-two kernels of fft_lanes.c, included there once per
 * instruction set with FL(name) giving each copy its own names and FFT_LANES its vector width
 * (in complex values). Private to fft_lanes.c.
 *
 * FFT_LANES lines are transformed at once, one per vector lane: the butterflies are then plain
 * vector arithmetic with scalar twiddles, no shuffles, whatever the stage. */

typedef float FL(vf) __attribute__((vector_size(4 * FFT_LANES)));
typedef double FL(vd) __attribute__((vector_size(8 * FFT_LANES)));
typedef struct {
    FL(vf) re, im;
} FL(cv);

/* Shuffle indices: interleave the low / high halves of two vectors (FL_LO, FL_HI), the even /
 * odd elements of their concatenation (FL_EVEN, FL_ODD). */
#if FFT_LANES == 4
#define FL_LO 0, 4, 1, 5
#define FL_HI 2, 6, 3, 7
#define FL_EVEN 0, 2, 4, 6
#define FL_ODD 1, 3, 5, 7
#elif FFT_LANES == 8
#define FL_LO 0, 8, 1, 9, 2, 10, 3, 11
#define FL_HI 4, 12, 5, 13, 6, 14, 7, 15
#define FL_EVEN 0, 2, 4, 6, 8, 10, 12, 14
#define FL_ODD 1, 3, 5, 7, 9, 11, 13, 15
#elif FFT_LANES == 16
#define FL_LO 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define FL_HI 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31
#define FL_EVEN 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define FL_ODD 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#endif

/* FFT_LANES interleaved complex values at src into a lane vector (imaginary parts times sign). */
static inline void FL(split)(FL(cv) *v, const void *src, float sign)
{
    FL(vf) lo, hi;
    memcpy(&lo, src, sizeof lo);
    memcpy(&hi, (const char *)src + sizeof lo, sizeof hi);
    v->re = __builtin_shufflevector(lo, hi, FL_EVEN);
    v->im = __builtin_shufflevector(lo, hi, FL_ODD) * sign;
}

static inline void FL(join)(void *dst, const FL(cv) *v, float sign)
{
    FL(vf) im = v->im * sign;
    FL(vf) lo = __builtin_shufflevector(v->re, im, FL_LO), hi = __builtin_shufflevector(v->re, im, FL_HI);
    memcpy(dst, &lo, sizeof lo);
    memcpy((char *)dst + sizeof lo, &hi, sizeof hi);
}

/* Transposes the FFT_LANES x FFT_LANES floats v (row r = v[r]) in place: log2(FFT_LANES)
 * perfect shuffles, each rotating an element's (row, column) address bits left by one. */
static inline void FL(transpose)(FL(vf) *v)
{
    for (int round = 1; round < FFT_LANES; round <<= 1) {
        FL(vf) t[FFT_LANES];
        for (int i = 0; i < FFT_LANES / 2; i++) {
            t[2 * i] = __builtin_shufflevector(v[i], v[i + FFT_LANES / 2], FL_LO);
            t[2 * i + 1] = __builtin_shufflevector(v[i], v[i + FFT_LANES / 2], FL_HI);
        }
        memcpy(v, t, sizeof t);
    }
}

/* Element k of a lane buffer of n >= 4 points sits at k + k / (n / 4): one vector of padding
 * after each quarter, so that the four quarters a stage reads are not a multiple of 4 KiB apart
 * (they would share cache sets and alias in the load-store unit). */
static inline int64_t FL(at)(int64_t k, int shift) { return k + (k >> shift); }

/* The radix-4 butterfly of the stages (decimation in frequency, forward): the 4-point DFT
 * (a - c) -+ i (b - d), (a + c) - (b + d), then the twiddles tw (w^p, w^2p, w^3p). */
static inline void FL(butterfly)(FL(cv) a, FL(cv) b, FL(cv) c, FL(cv) d, const float *tw, FL(cv) *o0, FL(cv) *o1,
                                 FL(cv) *o2, FL(cv) *o3)
{
    float w1r = tw[0], w1i = tw[1], w2r = tw[2], w2i = tw[3], w3r = tw[4], w3i = tw[5];
    FL(vf) apcr = a.re + c.re, apci = a.im + c.im, amcr = a.re - c.re, amci = a.im - c.im;
    FL(vf) bpdr = b.re + d.re, bpdi = b.im + d.im, bmdr = b.re - d.re, bmdi = b.im - d.im;
    FL(vf) t1r = amcr + bmdi, t1i = amci - bmdr, t3r = amcr - bmdi, t3i = amci + bmdr;
    FL(vf) t2r = apcr - bpdr, t2i = apci - bpdi;
    o0->re = apcr + bpdr;
    o0->im = apci + bpdi;
    o1->re = t1r * w1r - t1i * w1i;
    o1->im = t1r * w1i + t1i * w1r;
    o2->re = t2r * w2r - t2i * w2i;
    o2->im = t2r * w2i + t2i * w2r;
    o3->re = t3r * w3r - t3i * w3i;
    o3->im = t3r * w3i + t3i * w3r;
}

/* Complex a * (wr + i wi). */
static inline FL(cv) FL(twiddle)(FL(cv) a, float wr, float wi)
{
    return (FL(cv)){ a.re * wr - a.im * wi, a.re * wi + a.im * wr };
}

/* The 4-point DFT (forward) of a, b, c, d into y[0], y[step], y[2 step], y[3 step]. */
static inline void FL(dft4)(FL(cv) a, FL(cv) b, FL(cv) c, FL(cv) d, FL(cv) *y, int step)
{
    FL(vf) apcr = a.re + c.re, apci = a.im + c.im, amcr = a.re - c.re, amci = a.im - c.im;
    FL(vf) bpdr = b.re + d.re, bpdi = b.im + d.im, bmdr = b.re - d.re, bmdi = b.im - d.im;
    y[0] = (FL(cv)){ apcr + bpdr, apci + bpdi };
    y[step] = (FL(cv)){ amcr + bmdi, amci - bmdr };
    y[2 * step] = (FL(cv)){ apcr - bpdr, apci - bpdi };
    y[3 * step] = (FL(cv)){ amcr - bmdi, amci + bmdr };
}

/* The radix-8 butterfly of the stages (decimation in frequency, forward): the 8-point DFT of
 * a[0..7] as two 4-point ones, of a_j + a_{j+4} (the even outputs) and of (a_j - a_{j+4})
 * exp(-i pi j / 4) (the odd ones), then output j times tw's w^jp (j >= 1) into *o[j]. */
static inline void FL(butterfly8)(const FL(cv) *a, const float *tw, FL(cv) **o)
{
    const float r = 0.70710678118654752f; /* 1 / sqrt 2 */
    FL(cv) t[4], u[4], y[8];
    for (int j = 0; j < 4; j++) {
        t[j] = (FL(cv)){ a[j].re + a[j + 4].re, a[j].im + a[j + 4].im };
        u[j] = (FL(cv)){ a[j].re - a[j + 4].re, a[j].im - a[j + 4].im };
    }
    u[1] = (FL(cv)){ (u[1].re + u[1].im) * r, (u[1].im - u[1].re) * r };
    u[2] = (FL(cv)){ u[2].im, -u[2].re };
    u[3] = (FL(cv)){ (u[3].im - u[3].re) * r, -(u[3].re + u[3].im) * r };
    FL(dft4)(t[0], t[1], t[2], t[3], y, 2);
    FL(dft4)(u[0], u[1], u[2], u[3], y + 1, 2);
    *o[0] = y[0];
    for (int j = 1; j < 8; j++) *o[j] = FL(twiddle)(y[j], tw[2 * j - 2], tw[2 * j - 1]);
}

/* Whether the stages of length n take radix 8 where they can: with 32 vector registers
 * (AVX-512) its 8 inputs and their sums stay in registers, and it passes over the lane buffers
 * 3 times where radix-4 stages pass 4.5 times. That pays where the buffers (2 x 64 KiB from
 * 512 points) no longer fit the core's first-level cache; below, the passes are cheap and
 * radix 4's shorter butterflies win. */
#define FL_RADIX8(n) (FFT_LANES == 16 && (n) >= 512)

/* Radix-8 and radix-4 Stockham autosort stages from stride s (s = 1 is the first stage), then
 * one radix-2 stage where the length is left at 2, ping-ponging between x and y (padded
 * buffers: FL(at)); twiddles from p's tables by the stage's length. With leave_last the last
 * stage (radix 4 or 2) is left to FL(store_last). Returns the buffer holding the result and
 * sets *left to the radix of the stage left (else 1). Inputs of a stage are n / radix apart,
 * outputs in runs of s; s divides n / 8 (n / 4): no run crosses a quarter's padding. */
static FL(cv) *FL(stockham)(FL(cv) *x, FL(cv) *y, const fft_pow2 *pl, int64_t s, int shift, bool leave_last,
                            int64_t *left)
{
    int64_t n = pl->n, m = n / s, quarter = FL(at)(n / 4, shift);
    int e = 0;
    bool radix8 = FL_RADIX8(n);
    while ((INT64_C(1) << e) < m) e++;
    while (m >= 4 && !(leave_last && m <= 4)) {
        if (radix8 && m >= 8 && !(leave_last && m == 8)) {
            const FL(cv) *in[8];
            for (int k = 0; k < 8; k++) in[k] = x + FL(at)(k * (n / 8), shift);
            const float *tw = pl->tw8[e];
            for (int64_t p = 0; p < m / 8; p++, tw += 14) {
                FL(cv) *o[8];
                for (int j = 0; j < 8; j++) o[j] = y + FL(at)((8 * p + j) * s, shift);
                for (int64_t q = 0; q < s; q++) {
                    FL(cv) a[8];
                    for (int k = 0; k < 8; k++) a[k] = in[k][s * p + q];
                    FL(cv) *oq[8];
                    for (int j = 0; j < 8; j++) oq[j] = o[j] + q;
                    FL(butterfly8)(a, tw, oq);
                }
            }
            m >>= 3, s <<= 3, e -= 3;
        } else {
            const float *tw = pl->tw4[e];
            for (int64_t p = 0; p < m / 4; p++, tw += 6) {
                const FL(cv) *a = x + s * p, *b = a + quarter, *c = b + quarter, *d = c + quarter;
                FL(cv) *o0 = y + FL(at)(4 * s * p, shift), *o1 = y + FL(at)((4 * p + 1) * s, shift);
                FL(cv) *o2 = y + FL(at)((4 * p + 2) * s, shift), *o3 = y + FL(at)((4 * p + 3) * s, shift);
                for (int64_t q = 0; q < s; q++) FL(butterfly)(a[q], b[q], c[q], d[q], tw, o0 + q, o1 + q, o2 + q, o3 + q);
            }
            m >>= 2, s <<= 2, e -= 2;
        }
        FL(cv) *t = x;
        x = y;
        y = t;
    }
    *left = leave_last ? m : 1;
    if (m == 2 && !leave_last) {
        for (int64_t q = 0; q < s; q++) {
            int64_t lo = FL(at)(q, shift), hi = FL(at)(q + s, shift);
            FL(cv) a = x[lo], b = x[hi];
            y[lo].re = a.re + b.re;
            y[lo].im = a.im + b.im;
            y[hi].re = a.re - b.re;
            y[hi].im = a.im - b.im;
        }
        x = y;
    }
    return x;
}

/* Elements of a line copied at a time: one when the lanes are the closer in memory (along
 * them), else FFT_BLOCK (a block of the buffer stays in L1), at most a quarter (one padding)
 * and at most n. */
static inline int64_t FL(block)(bool along_lanes, int64_t n)
{
    int64_t block = along_lanes ? 1 : FFT_BLOCK;
    if (n >= 4 && block > n / 4) block = n / 4;
    return block < n ? block : n;
}

/* Lines [first, first + lanes) of ln into buf (unused lanes zero), conjugated with conj_in,
 * `count` elements each. Scalar copies into memory, not lane inserts into registers: the
 * stages read the vectors once the stores have long landed; lines of adjacent elements go
 * FFT_LANES / 2 elements at a time through a transpose in registers instead. */
static void FL(load)(FL(cv) *buf, const fft_lines *ln, int64_t n, int64_t count, int shift, int64_t first,
                     int lanes)
{
    float sign = ln->conj_in ? -1.0f : 1.0f;
    const float *src = ln->src + 2 * first * ln->src_line;
    float *b = (float *)buf;
    if (lanes == FFT_LANES && ln->src_line == 1) { /* the lanes are adjacent values */
        for (int64_t k = 0; k < count; k++) {
            if (k + FFT_AHEAD < count) __builtin_prefetch(src + 2 * (k + FFT_AHEAD) * ln->src_elem);
            FL(split)(buf + FL(at)(k, shift), src + 2 * k * ln->src_elem, sign);
        }
        return;
    }
    if (lanes < FFT_LANES) memset(buf, 0, sizeof(FL(cv)) * (size_t)(FL(at)(count - 1, shift) + 1));
    int64_t done = 0, e = ln->src_elem;
    if (lanes == FFT_LANES && e == 1) { /* rows: a FFT_LANES x FFT_LANES block of floats at a time */
        for (; done + FFT_LANES / 2 <= count; done += FFT_LANES / 2) {
            FL(vf) v[FFT_LANES];
            for (int l = 0; l < FFT_LANES; l++) memcpy(&v[l], src + 2 * (l * ln->src_line + done), sizeof v[l]);
            FL(transpose)(v);
            for (int c = 0; c < FFT_LANES / 2; c++) {
                FL(cv) *to = buf + FL(at)(done + c, shift);
                to->re = v[2 * c];
                to->im = v[2 * c + 1] * sign;
            }
        }
    } else if (count == n) {
        int64_t block = FL(block)(ln->src_line < e, n);
        for (; done < n; done += block) {
            float *bb = b + 2 * FFT_LANES * FL(at)(done, shift); /* a block lies inside one quarter */
            for (int l = 0; l < lanes; l++) {
                const float *s = src + 2 * (l * ln->src_line + done * e);
                if (block == 1 && l == 0 && done + FFT_AHEAD < n) /* each element on another page */
                    __builtin_prefetch(s + 2 * FFT_AHEAD * e);
                for (int64_t k = 0; k < block; k++) {
                    bb[2 * FFT_LANES * k + l] = s[2 * k * e];
                    bb[2 * FFT_LANES * k + FFT_LANES + l] = sign * s[2 * k * e + 1];
                }
            }
        }
    }
    for (; done < count; done++) { /* the rest, element by element */
        float *bb = b + 2 * FFT_LANES * FL(at)(done, shift);
        for (int l = 0; l < lanes; l++) {
            const float *s = src + 2 * (l * ln->src_line + done * e);
            bb[l] = s[0];
            bb[FFT_LANES + l] = sign * s[1];
        }
    }
}

/* Multiplies element k of lane l of buf by roots[first + l]^k (the powers by a recurrence in
 * double: error k * 2^-52, far below single precision). */
static void FL(rotate)(FL(cv) *buf, const double *roots, int64_t n, int shift, int64_t first, int lanes)
{
    FL(vd) cr = { 0 }, ci = { 0 }, rr = { 0 }, ri = { 0 };
    for (int l = 0; l < lanes; l++) {
        cr[l] = 1.0;
        rr[l] = roots[2 * (first + l)];
        ri[l] = roots[2 * (first + l) + 1];
    }
    for (int64_t k = 0; k < n; k++) {
        FL(cv) *v = buf + FL(at)(k, shift);
        FL(vf) re = v->re, im = v->im;
        FL(vf) wr = __builtin_convertvector(cr, FL(vf)), wi = __builtin_convertvector(ci, FL(vf));
        v->re = re * wr - im * wi;
        v->im = re * wi + im * wr;
        FL(vd) nr = cr * rr - ci * ri;
        ci = cr * ri + ci * rr;
        cr = nr;
    }
}

/* buf (`count` elements a lane) back to lines [first, first + lanes), as FL(load) reads them. */
static void FL(store)(FL(cv) *buf, const fft_lines *ln, int64_t n, int64_t count, int shift, int64_t first,
                      int lanes)
{
    if (ln->roots) FL(rotate)(buf, ln->roots, n, shift, first, lanes);
    float sign = ln->conj_out ? -1.0f : 1.0f;
    float *dst = ln->dst + 2 * first * ln->dst_line;
    const float *b = (const float *)buf;
    if (lanes == FFT_LANES && ln->dst_line == 1) {
        for (int64_t k = 0; k < count; k++) {
            if (k + FFT_AHEAD < count) __builtin_prefetch(dst + 2 * (k + FFT_AHEAD) * ln->dst_elem, 1);
            FL(join)(dst + 2 * k * ln->dst_elem, buf + FL(at)(k, shift), sign);
        }
        return;
    }
    int64_t done = 0, e = ln->dst_elem;
    if (lanes == FFT_LANES && e == 1) {
        for (; done + FFT_LANES / 2 <= count; done += FFT_LANES / 2) {
            FL(vf) v[FFT_LANES];
            for (int c = 0; c < FFT_LANES / 2; c++) {
                const FL(cv) *from = buf + FL(at)(done + c, shift);
                v[2 * c] = from->re;
                v[2 * c + 1] = from->im * sign;
            }
            FL(transpose)(v);
            for (int l = 0; l < FFT_LANES; l++) memcpy(dst + 2 * (l * ln->dst_line + done), &v[l], sizeof v[l]);
        }
    } else if (count == n) {
        int64_t block = FL(block)(ln->dst_line < e, n); /* as FL(load) */
        for (; done < n; done += block) {
            const float *bb = b + 2 * FFT_LANES * FL(at)(done, shift);
            for (int l = 0; l < lanes; l++) {
                float *d = dst + 2 * (l * ln->dst_line + done * e);
                if (block == 1 && l == 0 && done + FFT_AHEAD < n) __builtin_prefetch(d + 2 * FFT_AHEAD * e, 1);
                for (int64_t k = 0; k < block; k++) {
                    d[2 * k * e] = bb[2 * FFT_LANES * k + l];
                    d[2 * k * e + 1] = sign * bb[2 * FFT_LANES * k + FFT_LANES + l];
                }
            }
        }
    }
    for (; done < count; done++) {
        const float *bb = b + 2 * FFT_LANES * FL(at)(done, shift);
        for (int l = 0; l < lanes; l++) {
            float *d = dst + 2 * (l * ln->dst_line + done * e);
            d[0] = bb[l];
            d[1] = sign * bb[FFT_LANES + l];
        }
    }
}

/* Real forward transforms of 2h points from the complex transforms Z (h points a lane) of
 * x[2k] + i x[2k+1], for one pair k <= h / 2: with E_k = (Z_k + conj Z_{h-k}) / 2, O_k = (Z_k -
 * conj Z_{h-k}) / 2i and w_k = exp(-2 pi i k / 2h), X_k = E_k + w_k O_k into *xk and X_{h-k} =
 * conj(E_k - w_k O_k) into *xh (Z periodic in h: Z_h = Z_0). For k = h / 2 both are X_{h/2}
 * (*xh the one to keep, as in FL(merge_pair)). */
static inline void FL(split_pair)(const FL(cv) *z, int64_t k, int64_t h, int shift, const fft_cplx *w, FL(cv) *xk,
                                  FL(cv) *xh)
{
    FL(cv) a = z[FL(at)(k, shift)], b = z[FL(at)(k ? h - k : 0, shift)];
    float wr = (float)w[k].re, wi = (float)w[k].im;
    FL(vf) er = (a.re + b.re) * 0.5f, ei = (a.im - b.im) * 0.5f;
    FL(vf) odr = (a.im + b.im) * 0.5f, odi = (b.re - a.re) * 0.5f;
    FL(vf) tr = odr * wr - odi * wi, ti = odr * wi + odi * wr;
    xk->re = er + tr;
    xk->im = ei + ti;
    xh->re = er - tr;
    xh->im = ti - ei;
}

/* FL(split_pair) over the whole buffer, in place: Z_0 .. Z_{h-1} -> X_0 .. X_h (X_h in the
 * buffer's padding). */
static void FL(real_split)(FL(cv) *z, int64_t h, int shift, const fft_cplx *w)
{
    for (int64_t k = 0; k <= h / 2; k++) { /* the pairs are disjoint: any order */
        FL(cv) xk, xh;
        FL(split_pair)(z, k, h, shift, w, &xk, &xh);
        z[FL(at)(h - k, shift)] = xh;
        if (k != h - k) z[FL(at)(k, shift)] = xk;
    }
}

/* The inverse of FL(real_split) for one pair k <= h / 2 of X_0 .. X_h (imaginary parts of X_0,
 * X_h ignored, as a Hermitian spectrum has none): conj Z_k into *zk and conj Z_{h-k} into *zh,
 * with Z_k = F_k + i G_k, F_k = X_k + conj X_{h-k}, G_k = (X_k - conj X_{h-k}) conj w_k, and
 * Z_{h-k} = conj F_k + i conj G_k: the forward transform of conj Z, conjugated, is then
 * 2h (x[2k] + i x[2k+1]). For k = h / 2 both are Z_{h/2} (*zh the one to keep: it differs
 * from *zk by the rounding of w_{h/2}'s real part, which is not exactly 0). */
static inline void FL(merge_pair)(const FL(cv) *x, int64_t k, int64_t h, int shift, const fft_cplx *w, FL(cv) *zk,
                                  FL(cv) *zh)
{
    FL(vf) zero = { 0 };
    FL(cv) a = x[FL(at)(k, shift)], b = x[FL(at)(h - k, shift)];
    FL(vf) ai = k ? a.im : zero, bi = k ? b.im : zero;
    float wr = (float)w[k].re, wi = (float)w[k].im;
    FL(vf) fr = a.re + b.re, fi = ai - bi, dr = a.re - b.re, di = ai + bi;
    FL(vf) gr = dr * wr + di * wi, gi = di * wr - dr * wi;
    zk->re = fr - gi;
    zk->im = -(fi + gr);
    zh->re = fr + gi;
    zh->im = fi - gr;
}

/* FL(merge_pair) over the whole buffer, in place: X_0 .. X_h -> conj Z_0 .. conj Z_{h-1}
 * (lengths below 4, which have no radix-4 stage for FL(merge_first)). */
static void FL(real_merge)(FL(cv) *x, int64_t h, int shift, const fft_cplx *w)
{
    for (int64_t k = 0; k <= h / 2; k++) {
        FL(cv) zk, zh;
        FL(merge_pair)(x, k, h, shift, w, &zk, &zh);
        x[FL(at)(k, shift)] = zk;
        if (k) x[FL(at)(h - k, shift)] = zh;
    }
}

/* FL(real_merge) and then the first radix-4 stage of FL(stockham) (h >= 4, twiddles tw) from
 * X_0 .. X_h in x into y, as one pass over the lane buffers: the butterflies p and h/4 - p
 * read conj Z at p + j h/4 and h/4 - p + j h/4 (j < 4), which four pairs (k, h - k) give:
 * (p, h - p), (h/4 + p, 3h/4 - p), (h/2 - p, h/2 + p) and (h/4 - p, 3h/4 + p). */
static void FL(merge_first)(const FL(cv) *x, FL(cv) *y, int64_t h, int shift, const float *tw, const fft_cplx *w)
{
    int64_t q4 = h / 4;
    for (int64_t p = 0; p <= q4 / 2; p++) {
        FL(cv) lo[4], hi[4];
        FL(merge_pair)(x, p, h, shift, w, &lo[0], &hi[0]);
        FL(merge_pair)(x, q4 + p, h, shift, w, &lo[1], &hi[1]);
        FL(merge_pair)(x, 2 * q4 - p, h, shift, w, &lo[2], &hi[2]);
        FL(merge_pair)(x, q4 - p, h, shift, w, &lo[3], &hi[3]);
        FL(butterfly)(lo[0], lo[1], hi[2], hi[3], tw + 6 * p, y + FL(at)(4 * p, shift), y + FL(at)(4 * p + 1, shift),
                      y + FL(at)(4 * p + 2, shift), y + FL(at)(4 * p + 3, shift));
        int64_t r = q4 - p; /* none for p = 0 (r = h/4 is no butterfly), itself for p = h/8 */
        if (p > 0 && r != p)
            FL(butterfly)(lo[3], lo[2], hi[1], hi[0], tw + 6 * r, y + FL(at)(4 * r, shift),
                          y + FL(at)(4 * r + 1, shift), y + FL(at)(4 * r + 2, shift), y + FL(at)(4 * r + 3, shift));
    }
}

/* FFT_LANES rows of n >= 4 FFT_LANES adjacent complex values (ln's lines [first, + FFT_LANES))
 * through the first radix-4 stage into y, as FL(load) then FL(stockham)'s first stage would:
 * one pass over the lane buffer fewer. Each quarter of the rows comes in FFT_LANES / 2
 * elements at a time through a register transpose. */
static void FL(load_first)(FL(cv) *y, const fft_lines *ln, int64_t n, int shift, int64_t first, const float *tw)
{
    float sign = ln->conj_in ? -1.0f : 1.0f;
    const float *src = ln->src + 2 * first * ln->src_line;
    int64_t q4 = n / 4;
    for (int64_t p0 = 0; p0 < q4; p0 += FFT_LANES / 2) {
        FL(cv) in[4][FFT_LANES / 2];
        for (int j = 0; j < 4; j++) {
            FL(vf) v[FFT_LANES];
            for (int l = 0; l < FFT_LANES; l++)
                memcpy(&v[l], src + 2 * (l * ln->src_line + j * q4 + p0), sizeof v[l]);
            FL(transpose)(v);
            for (int c = 0; c < FFT_LANES / 2; c++) {
                in[j][c].re = v[2 * c];
                in[j][c].im = v[2 * c + 1] * sign;
            }
        }
        for (int c = 0; c < FFT_LANES / 2; c++) {
            int64_t p = p0 + c;
            FL(butterfly)(in[0][c], in[1][c], in[2][c], in[3][c], tw + 6 * p, y + FL(at)(4 * p, shift),
                          y + FL(at)(4 * p + 1, shift), y + FL(at)(4 * p + 2, shift), y + FL(at)(4 * p + 3, shift));
        }
    }
}

/* The last stage of radix m (4, whose twiddles are ones, or 2) from x straight into FFT_LANES
 * rows of adjacent complex values (n / m >= FFT_LANES / 2), as FL(stockham) then FL(store). */
static void FL(store_last)(const FL(cv) *x, const fft_lines *ln, int64_t n, int64_t m, int shift, int64_t first)
{
    static const float ones[6] = { 1, 0, 1, 0, 1, 0 };
    float sign = ln->conj_out ? -1.0f : 1.0f;
    float *dst = ln->dst + 2 * first * ln->dst_line;
    int64_t s = n / m;
    for (int64_t q0 = 0; q0 < s; q0 += FFT_LANES / 2) {
        FL(cv) out[4][FFT_LANES / 2];
        for (int c = 0; c < FFT_LANES / 2; c++) {
            int64_t q = q0 + c;
            FL(cv) a = x[FL(at)(q, shift)], b = x[FL(at)(q + s, shift)];
            if (m == 2) {
                out[0][c] = (FL(cv)){ a.re + b.re, a.im + b.im };
                out[1][c] = (FL(cv)){ a.re - b.re, a.im - b.im };
            } else {
                FL(butterfly)(a, b, x[FL(at)(q + 2 * s, shift)], x[FL(at)(q + 3 * s, shift)], ones, &out[0][c],
                              &out[1][c], &out[2][c], &out[3][c]);
            }
        }
        for (int j = 0; j < m; j++) {
            FL(vf) v[FFT_LANES];
            for (int c = 0; c < FFT_LANES / 2; c++) {
                v[2 * c] = out[j][c].re;
                v[2 * c + 1] = out[j][c].im * sign;
            }
            FL(transpose)(v);
            for (int l = 0; l < FFT_LANES; l++)
                memcpy(dst + 2 * (l * ln->dst_line + j * s + q0), &v[l], sizeof v[l]);
        }
    }
}

/* FL(real_split) and then FL(store) of FFT_LANES rows of h + 1 adjacent complex values (h >=
 * FFT_LANES): the pairs (k, h - k) of a block of FFT_LANES / 2 values k from the start and its
 * mirror block from the end go out through register transposes as they are split, and X_{h/2}
 * alone; one pass over the lane buffer fewer. */
static void FL(split_store)(const FL(cv) *z, const fft_lines *ln, int64_t h, int shift, int64_t first,
                            const fft_cplx *w)
{
    enum { HALF = FFT_LANES / 2 };
    float sign = ln->conj_out ? -1.0f : 1.0f;
    float *dst = ln->dst + 2 * first * ln->dst_line;
    for (int64_t k0 = 0; k0 < h / 2; k0 += HALF) {
        FL(vf) lo[FFT_LANES], hi[FFT_LANES];
        for (int c = 0; c < HALF; c++) {
            FL(cv) xk, xh;
            FL(split_pair)(z, k0 + c, h, shift, w, &xk, &xh);
            lo[2 * c] = xk.re;
            lo[2 * c + 1] = xk.im * sign;
            hi[2 * (HALF - 1 - c)] = xh.re; /* X_{h-k0-c}: the mirror block runs backwards */
            hi[2 * (HALF - 1 - c) + 1] = xh.im * sign;
        }
        FL(transpose)(lo);
        FL(transpose)(hi);
        int64_t mirror = h - k0 - (HALF - 1);
        for (int l = 0; l < FFT_LANES; l++) {
            memcpy(dst + 2 * (l * ln->dst_line + k0), &lo[l], sizeof lo[l]);
            memcpy(dst + 2 * (l * ln->dst_line + mirror), &hi[l], sizeof hi[l]);
        }
    }
    FL(cv) unused, middle;
    FL(split_pair)(z, h / 2, h, shift, w, &unused, &middle);
    for (int l = 0; l < FFT_LANES; l++) {
        dst[2 * (l * ln->dst_line + h / 2)] = middle.re[l];
        dst[2 * (l * ln->dst_line + h / 2) + 1] = middle.im[l] * sign;
    }
}

/* Transforms the lines of groups [begin, end) (FFT_LANES lines a group) of ln; false when out
 * of host memory for the lane buffer (those lines then unwritten). */
static bool FL(run)(const fft_pow2 *p, const fft_lines *ln, int64_t begin, int64_t end)
{
    int64_t n = p->n;
    int shift = 62, log2n = 0; /* no padding below 4 points */
    while (n >= 4 && (INT64_C(1) << shift) > n / 4) shift--;
    while ((INT64_C(1) << log2n) < n) log2n++;
    /* y's quarters start 12 vectors on from x's: other cache sets again */
    int64_t size = FL(at)(n, shift) + 12;
    FL(cv) *buf = aligned_alloc(64, sizeof(FL(cv)) * (size_t)(2 * size));
    if (!buf) return false;
    for (int64_t g = begin; g < end; g++) {
        int64_t first = g * FFT_LANES;
        int lanes = (int)(ln->lines - first < FFT_LANES ? ln->lines - first : FFT_LANES);
        /* rows of adjacent values (not adjacent lines) in and out with the first and last stages */
        bool rows = lanes == FFT_LANES && n >= 4 * FFT_LANES;
        bool fuse_in = rows && ln->src_elem == 1 && ln->src_line != 1 && ln->real <= 0;
        bool fuse_out = rows && ln->dst_elem == 1 && ln->dst_line != 1 && ln->real >= 0 && !ln->roots;
        bool split_out = rows && ln->dst_elem == 1 && ln->dst_line != 1 && ln->real < 0;
        FL(cv) *x = buf, *y = buf + size;
        int64_t s = 1, left;
        const float *tw = n >= 4 ? p->tw4[log2n] : NULL; /* the first stage's, of radix 4 */
        if (fuse_in) {
            FL(load_first)(y, ln, n, shift, first, tw);
            x = y;
            y = buf;
            s = 4;
        } else if (ln->real > 0 && n >= 4) {
            FL(load)(x, ln, n, n + 1, shift, first, lanes);
            FL(merge_first)(x, y, n, shift, tw, ln->real_w);
            x = y;
            y = buf;
            s = 4;
        } else {
            FL(load)(x, ln, n, n + (ln->real > 0), shift, first, lanes);
            if (ln->real > 0) FL(real_merge)(x, n, shift, ln->real_w);
        }
        FL(cv) *result = FL(stockham)(x, y, p, s, shift, fuse_out, &left);
        if (fuse_out) {
            FL(store_last)(result, ln, n, left, shift, first);
            continue;
        }
        if (split_out) {
            FL(split_store)(result, ln, n, shift, first, ln->real_w);
            continue;
        }
        if (ln->real < 0) FL(real_split)(result, n, shift, ln->real_w);
        FL(store)(result, ln, n, n + (ln->real < 0), shift, first, lanes);
    }
    free(buf);
    return true;
}

#undef FL_LO
#undef FL_HI
#undef FL_EVEN
#undef FL_ODD
