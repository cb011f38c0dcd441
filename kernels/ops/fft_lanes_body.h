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

/* Radix-4 Stockham autosort stages (decimation in frequency, forward), then one radix-2 stage
 * when log2 n is odd, ping-ponging between x and y; returns the buffer holding the result. */
static FL(cv) *FL(stockham)(FL(cv) *x, FL(cv) *y, int64_t n, const float *tw)
{
    int64_t s = 1, m = n;
    for (; m >= 4; m >>= 2, s <<= 2) {
        int64_t q4 = m / 4, step = s * q4;
        for (int64_t p = 0; p < q4; p++, tw += 6) {
            float w1r = tw[0], w1i = tw[1], w2r = tw[2], w2i = tw[3], w3r = tw[4], w3i = tw[5];
            const FL(cv) *a = x + s * p;
            FL(cv) *o = y + 4 * s * p;
            for (int64_t q = 0; q < s; q++) {
                FL(vf) apcr = a[q].re + a[q + 2 * step].re, apci = a[q].im + a[q + 2 * step].im;
                FL(vf) amcr = a[q].re - a[q + 2 * step].re, amci = a[q].im - a[q + 2 * step].im;
                FL(vf) bpdr = a[q + step].re + a[q + 3 * step].re, bpdi = a[q + step].im + a[q + 3 * step].im;
                FL(vf) bmdr = a[q + step].re - a[q + 3 * step].re, bmdi = a[q + step].im - a[q + 3 * step].im;
                /* the 4-point DFT (a - c) -+ i (b - d), (a + c) - (b + d), then the twiddles */
                FL(vf) t1r = amcr + bmdi, t1i = amci - bmdr, t3r = amcr - bmdi, t3i = amci + bmdr;
                FL(vf) t2r = apcr - bpdr, t2i = apci - bpdi;
                o[q].re = apcr + bpdr;
                o[q].im = apci + bpdi;
                o[q + s].re = t1r * w1r - t1i * w1i;
                o[q + s].im = t1r * w1i + t1i * w1r;
                o[q + 2 * s].re = t2r * w2r - t2i * w2i;
                o[q + 2 * s].im = t2r * w2i + t2i * w2r;
                o[q + 3 * s].re = t3r * w3r - t3i * w3i;
                o[q + 3 * s].im = t3r * w3i + t3i * w3r;
            }
        }
        FL(cv) *t = x;
        x = y;
        y = t;
    }
    if (m == 2) {
        for (int64_t q = 0; q < s; q++) {
            FL(cv) a = x[q], b = x[q + s];
            y[q].re = a.re + b.re;
            y[q].im = a.im + b.im;
            y[q + s].re = a.re - b.re;
            y[q + s].im = a.im - b.im;
        }
        x = y;
    }
    return x;
}

/* Lines [first, first + lanes) of ln into buf (unused lanes zero), conjugated with conj_in.
 * Scalar copies into memory, not lane inserts into registers: the stages read the vectors
 * once the stores have long landed. */
static void FL(load)(FL(cv) *buf, const fft_lines *ln, int64_t n, int64_t first, int lanes)
{
    float sign = ln->conj_in ? -1.0f : 1.0f;
    const float *src = ln->src + 2 * first * ln->src_line;
    float *b = (float *)buf;
    if (lanes < FFT_LANES) memset(buf, 0, sizeof(FL(cv)) * (size_t)n);
    if (ln->src_line < ln->src_elem) { /* the lanes are closer: along them, one element at a time */
        for (int64_t k = 0; k < n; k++)
            for (int l = 0; l < lanes; l++) {
                const float *s = src + 2 * (l * ln->src_line + k * ln->src_elem);
                b[2 * FFT_LANES * k + l] = s[0];
                b[2 * FFT_LANES * k + FFT_LANES + l] = sign * s[1];
            }
        return;
    }
    for (int l = 0; l < lanes; l++) {
        const float *s = src + 2 * l * ln->src_line;
        for (int64_t k = 0; k < n; k++) {
            b[2 * FFT_LANES * k + l] = s[2 * k * ln->src_elem];
            b[2 * FFT_LANES * k + FFT_LANES + l] = sign * s[2 * k * ln->src_elem + 1];
        }
    }
}

/* buf back to lines [first, first + lanes), each element k of line l times roots[l]^k first
 * (the powers by a recurrence in double: error k * 2^-52, far below single precision). */
static void FL(store)(FL(cv) *buf, const fft_lines *ln, int64_t n, int64_t first, int lanes)
{
    if (ln->roots) {
        FL(vd) cr = { 0 }, ci = { 0 }, rr = { 0 }, ri = { 0 };
        for (int l = 0; l < lanes; l++) {
            cr[l] = 1.0;
            rr[l] = ln->roots[2 * (first + l)];
            ri[l] = ln->roots[2 * (first + l) + 1];
        }
        for (int64_t k = 0; k < n; k++) {
            FL(vf) re = buf[k].re, im = buf[k].im;
            FL(vf) wr = __builtin_convertvector(cr, FL(vf)), wi = __builtin_convertvector(ci, FL(vf));
            buf[k].re = re * wr - im * wi;
            buf[k].im = re * wi + im * wr;
            FL(vd) nr = cr * rr - ci * ri;
            ci = cr * ri + ci * rr;
            cr = nr;
        }
    }
    float sign = ln->conj_out ? -1.0f : 1.0f;
    float *dst = ln->dst + 2 * first * ln->dst_line;
    const float *b = (const float *)buf;
    if (ln->dst_line < ln->dst_elem) {
        for (int64_t k = 0; k < n; k++)
            for (int l = 0; l < lanes; l++) {
                float *d = dst + 2 * (l * ln->dst_line + k * ln->dst_elem);
                d[0] = b[2 * FFT_LANES * k + l];
                d[1] = sign * b[2 * FFT_LANES * k + FFT_LANES + l];
            }
        return;
    }
    for (int l = 0; l < lanes; l++) {
        float *d = dst + 2 * l * ln->dst_line;
        for (int64_t k = 0; k < n; k++) {
            d[2 * k * ln->dst_elem] = b[2 * FFT_LANES * k + l];
            d[2 * k * ln->dst_elem + 1] = sign * b[2 * FFT_LANES * k + FFT_LANES + l];
        }
    }
}

/* Transforms the lines of groups [begin, end) (FFT_LANES lines a group) of ln. */
static void FL(run)(const fft_pow2 *p, const fft_lines *ln, int64_t begin, int64_t end)
{
    int64_t n = p->n;
    FL(cv) *buf = aligned_alloc(64, sizeof(FL(cv)) * (size_t)(2 * n));
    if (!buf) return; /* a few hundred KiB at most: the result stays unwritten */
    for (int64_t g = begin; g < end; g++) {
        int64_t first = g * FFT_LANES;
        int lanes = (int)(ln->lines - first < FFT_LANES ? ln->lines - first : FFT_LANES);
        FL(load)(buf, ln, n, first, lanes);
        FL(cv) *result = FL(stockham)(buf, buf + n, n, p->twiddles);
        FL(store)(result, ln, n, first, lanes);
    }
    free(buf);
}
