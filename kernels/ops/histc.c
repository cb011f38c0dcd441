/* aclnnHistc: the histogram of self over `bins` equal bins between min and max (CANN's
 * aclnnHistc.md, hicann/ops-math math/histogram_v2/docs/aclnnHistc.md). Elements below min,
 * above max or NaN are not counted; max belongs to the last bin. When min == max the range is
 * the data's own minimum and maximum (widened by 1 either side if they are equal too, as
 * torch.histc, the operator's reference).
 *
 * The bin edges are lo + i * ((hi - lo) / bins), the last one hi, computed in float when min and
 * max are FLOAT scalars, else in double (so for a range read from the data), and rounded to
 * float for FLOAT/FLOAT16 self (whose elements are compared as floats): the edges of NumPy's
 * histogram (numpy.linspace computes in the type of its ends). Element x falls in bin i when
 * edge[i] <= x < edge[i + 1], decided against those edges, so the counts never depend on the
 * rounding of the arithmetic bin number.
 *
 * dtypes: self FLOAT16, FLOAT, INT8, INT16, INT32, INT64, UINT8 (any shape, up to 8-D, any
 * strides); out the same set, 1-D of `bins` elements. bins <= 0, min > max, a wrong out shape
 * are ACLNN_ERR_PARAM_INVALID in the first phase; a non-finite range read from data is one of
 * the launch.
 *
 * Speed: contiguous float32 self on AVX-512 computes 16 bin numbers at a time,
 * (x - lo) * (bins / (hi - lo)) in float, and takes them where their fraction is farther from an
 * integer than the arithmetic's error bound plus the edges' distance from their ideal
 * positions (both bounded before the pass); the few others are decided against the edges one by
 * one. Counts go to several sub-histograms (consecutive equal bins do not wait on each other's
 * increments), one set per chunk of self on the CPU pool, summed at the end. */
#include <math.h>
#include <stdlib.h>

#include "aclnnop/aclnn_histc.h"
#include "ew_ops.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define HISTC_AVX512 1
#else
#define HISTC_AVX512 0
#endif

#define HISTC_CHUNKS 8      /* chunks of self, each counted into its own bins */
#define HISTC_BLOCK 2048    /* elements converted (or binned) at a time; a multiple of 16 */
#define HISTC_PREFETCH 4096 /* bytes of self read ahead: the loads outrun the prefetcher */
#define HISTC_SUBS 4        /* sub-histograms per chunk (few bins) */
#define HISTC_SUBS_MAX_BINS 65536
/* The fast path needs the bin number's error bound well below half a bin, and exact float
 * bin numbers. */
#define HISTC_MAX_EPS 0.125
#define HISTC_MAX_FAST_BINS (1 << 22)

/* The edges are rounded as NumPy rounds them: no multiply-add contracted into an FMA. */
#if defined(__GNUC__) && !defined(__clang__)
#define HISTC_NO_FMA __attribute__((optimize("fp-contract=off")))
#else
#define HISTC_NO_FMA
#endif

typedef struct {
    const npusim_view *self;
    int64_t n, bins, chunk;
    int subs;              /* sub-histograms per chunk */
    double lo, scale;      /* scale = bins / (hi - lo) */
    double *edges;         /* bins + 1 edges, as the elements compare with them */
    bool fast;             /* the float bin numbers are close enough to use (see histc_bounds) */
    float eps;             /* fractions within eps of an integer are checked against the edges */
    int64_t *counts;       /* [HISTC_CHUNKS][subs][bins + 1]: slot `bins` takes uncounted lanes */
    double lo_seen[HISTC_CHUNKS], hi_seen[HISTC_CHUNKS];
    npusim_nditer it;      /* over self: runs of elements a fixed stride apart */
    atomic_int failed;
} histc_ctx;

/* The bin of x (edges[0] <= x <= edges[bins]): the arithmetic guess moved until the edges
 * agree. */
static int64_t histc_bin(const histc_ctx *h, double x)
{
    double t = (x - h->lo) * h->scale;
    int64_t i = t < 1.0 ? 0 : t >= (double)h->bins ? h->bins - 1 : (int64_t)t;
    while (i > 0 && x < h->edges[i]) i--;
    while (i < h->bins - 1 && x >= h->edges[i + 1]) i++;
    return i;
}

static bool histc_inside(const histc_ctx *h, double x)
{
    return x >= h->edges[0] && x <= h->edges[h->bins]; /* false for NaN */
}

/* n elements from p, stride bytes apart, converted to double block by block: every dtype. */
static void histc_generic(const histc_ctx *h, const char *p, int64_t stride, size_t n, int64_t *counts, double *buf)
{
    for (size_t start = 0; start < n; start += HISTC_BLOCK) {
        size_t m = n - start < HISTC_BLOCK ? n - start : HISTC_BLOCK;
        npusim_load(KIND_F64, buf, p + (int64_t)start * stride, stride, h->self->dtype, m);
        for (size_t i = 0; i < m; i++)
            if (histc_inside(h, buf[i])) counts[histc_bin(h, buf[i])]++;
    }
}

#if HISTC_AVX512
/* Contiguous float32 (see the file comment), HISTC_BLOCK elements at a time: first their bin
 * numbers, 16 at a time (a short loop keeps many loads of self in flight), then the increments. */
__attribute__((target("avx512f"))) static void histc_f32_avx512(const histc_ctx *h, const float *x, int64_t n,
                                                              int64_t *counts, int32_t *idx)
{
    const __m512 lo = _mm512_set1_ps((float)h->lo), scale = _mm512_set1_ps((float)h->scale);
    const __m512 first = _mm512_set1_ps((float)h->edges[0]), last = _mm512_set1_ps((float)h->edges[h->bins]);
    const __m512 eps = _mm512_set1_ps(h->eps), one_minus = _mm512_set1_ps(1.0f - h->eps);
    const __m512i nbins = _mm512_set1_epi32((int)h->bins);
    int64_t stride = h->bins + 1;
    int64_t *c[HISTC_SUBS];
    for (int s = 0; s < HISTC_SUBS; s++) c[s] = counts + (s % h->subs) * stride;
    int64_t whole = n - n % 16;
    for (int64_t start = 0; start < whole; start += HISTC_BLOCK) {
        int64_t m = whole - start < HISTC_BLOCK ? whole - start : HISTC_BLOCK;
        const float *p = x + start;
        __mmask16 any_slow = 0;
        for (int64_t i = 0; i < m; i += 16) {
            __m512 v = _mm512_loadu_ps(p + i);
            _mm_prefetch((const char *)(p + i) + HISTC_PREFETCH, _MM_HINT_T0);
            __mmask16 in = _mm512_cmp_ps_mask(v, first, _CMP_GE_OQ) & _mm512_cmp_ps_mask(v, last, _CMP_LE_OQ);
            __m512 t = _mm512_mul_ps(_mm512_sub_ps(v, lo), scale);
            __m512i k = _mm512_cvttps_epi32(t);
            __m512 frac = _mm512_sub_ps(t, _mm512_cvtepi32_ps(k));
            __mmask16 near = _mm512_cmp_ps_mask(frac, eps, _CMP_LT_OQ) |
                             _mm512_cmp_ps_mask(frac, one_minus, _CMP_GT_OQ) |
                             _mm512_cmp_epu32_mask(k, nbins, _MM_CMPINT_NLT);
            any_slow |= in & near;
            /* lanes outside go to slot bins, uncounted; near ones are marked -1 */
            __m512i bin = _mm512_mask_blend_epi32(in & (__mmask16)~near, nbins, k);
            _mm512_storeu_si512(idx + i, _mm512_mask_blend_epi32(in & near, bin, _mm512_set1_epi32(-1)));
        }
        if (any_slow) {
            for (int64_t i = 0; i < m; i++)
                if (idx[i] < 0) idx[i] = (int32_t)histc_bin(h, p[i]);
        }
        for (int64_t i = 0; i < m; i += 4) {
            c[0][idx[i]]++;
            c[1][idx[i + 1]]++;
            c[2][idx[i + 2]]++;
            c[3][idx[i + 3]]++;
        }
    }
    for (int64_t i = whole; i < n; i++)
        if (histc_inside(h, x[i])) counts[histc_bin(h, x[i])]++;
}

static bool histc_has_avx512(void)
{
    return __builtin_cpu_supports("avx512f");
}
#endif

/* What the runs of one chunk of self count into. */
typedef struct {
    const histc_ctx *h;
    int64_t *counts;
    double *buf;
    double lo, hi; /* the range pass: the data's extremes so far */
} histc_part;

static void histc_run(char **ptrs, const int64_t *strides, size_t n, void *vpart)
{
    histc_part *part = vpart;
    const histc_ctx *h = part->h;
#if HISTC_AVX512
    if (h->fast && h->self->dtype == ACL_FLOAT && strides[0] == (int64_t)sizeof(float) && histc_has_avx512()) {
        histc_f32_avx512(h, (const float *)ptrs[0], (int64_t)n, part->counts, (int32_t *)part->buf);
        return;
    }
#endif
    histc_generic(h, ptrs[0], strides[0], n, part->counts, part->buf);
}

static void histc_chunk(size_t begin, size_t end, void *vctx)
{
    histc_ctx *h = vctx;
    histc_part part = { .h = h, .buf = malloc(sizeof(double) * HISTC_BLOCK) };
    if (!part.buf) {
        atomic_store(&h->failed, 1);
        return;
    }
    for (size_t c = begin; c < end; c++) {
        int64_t first = (int64_t)c * h->chunk, last = first + h->chunk < h->n ? first + h->chunk : h->n;
        part.counts = h->counts + (int64_t)c * h->subs * (h->bins + 1);
        if (first < last) npusim_nditer_range(&h->it, first, last, histc_run, &part);
    }
    free(part.buf);
}

static void histc_range_run(char **ptrs, const int64_t *strides, size_t n, void *vpart)
{
    histc_part *part = vpart;
    for (size_t start = 0; start < n; start += HISTC_BLOCK) {
        size_t m = n - start < HISTC_BLOCK ? n - start : HISTC_BLOCK;
        npusim_load(KIND_F64, part->buf, ptrs[0] + (int64_t)start * strides[0], strides[0], part->h->self->dtype, m);
        for (size_t i = 0; i < m; i++) {
            part->lo = part->buf[i] < part->lo ? part->buf[i] : part->lo;
            part->hi = part->buf[i] > part->hi ? part->buf[i] : part->hi;
        }
    }
}

/* The data's minimum and maximum, NaN skipped, per chunk (min == max given). */
static void histc_range_chunk(size_t begin, size_t end, void *vctx)
{
    histc_ctx *h = vctx;
    histc_part part = { .h = h, .buf = malloc(sizeof(double) * HISTC_BLOCK), .lo = INFINITY, .hi = -INFINITY };
    if (!part.buf) {
        atomic_store(&h->failed, 1);
        return;
    }
    for (size_t c = begin; c < end; c++) {
        int64_t first = (int64_t)c * h->chunk, last = first + h->chunk < h->n ? first + h->chunk : h->n;
        part.lo = INFINITY;
        part.hi = -INFINITY;
        if (first < last) npusim_nditer_range(&h->it, first, last, histc_range_run, &part);
        h->lo_seen[c] = part.lo;
        h->hi_seen[c] = part.hi;
    }
    free(part.buf);
}

static int histc_data_range(histc_ctx *h, double *lo, double *hi)
{
    for (int c = 0; c < HISTC_CHUNKS; c++) {
        h->lo_seen[c] = INFINITY;
        h->hi_seen[c] = -INFINITY;
    }
    npusim_parallel_for(HISTC_CHUNKS, 1, histc_range_chunk, h);
    if (atomic_load(&h->failed)) return npusim_error(ACLNN_ERR_INNER, "aclnnHistc: out of host memory");
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int c = 0; c < HISTC_CHUNKS; c++) {
        *lo = h->lo_seen[c] < *lo ? h->lo_seen[c] : *lo;
        *hi = h->hi_seen[c] > *hi ? h->hi_seen[c] : *hi;
    }
    if (*lo > *hi) *lo = *hi = 0.0; /* no element, or only NaN */
    if (isinf(*lo) || isinf(*hi))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnHistc: range of [%g, %g] is not finite", *lo, *hi);
    return 0;
}

/* Edge i of bins equal bins from lo to hi: i * step + lo rounded twice (no FMA), in double or,
 * for FLOAT min and max, in float, as NumPy's linspace computes in the type of its ends. */
HISTC_NO_FMA static double histc_edge(int64_t i, int64_t bins, double lo, double hi, bool in_float)
{
    if (i == bins) return hi;
    if (in_float) {
        float step = ((float)hi - (float)lo) / (float)bins, p = (float)i * step;
        return (double)(p + (float)lo);
    }
    double step = (hi - lo) / (double)bins, p = (double)i * step;
    return p + lo;
}

/* The edges and the fast path's bound eps: the float bin number t differs from the exact
 * (x - lo) * scale by at most 2^-24 (|lo| scale) for lo's rounding plus 3 roundings of at most
 * 2^-24 (bins + 1) each; edge i lies within dev of its ideal position i. A fraction farther
 * than eps from an integer is then inside its bin. */
static void histc_bounds(histc_ctx *h, double hi, bool in_float, bool float_self)
{
    double dev = 0.0;
    for (int64_t i = 0; i <= h->bins; i++) {
        double e = histc_edge(i, h->bins, h->lo, hi, in_float);
        h->edges[i] = float_self ? (double)(float)e : e;
        double off = fabs((h->edges[i] - h->lo) * h->scale - (double)i);
        dev = off > dev ? off : dev;
    }
    double arith = 0x1p-24 * (fabs(h->lo) * h->scale + 3.0 * ((double)h->bins + 1.0));
    double eps = 2.0 * (arith + dev) + 0x1p-20;
    h->fast = float_self && eps < HISTC_MAX_EPS && h->bins < HISTC_MAX_FAST_BINS && isfinite((float)h->scale) &&
              isfinite((float)h->lo);
    h->eps = (float)eps;
}

/* views: self, out. */
static int histc_kernel(const npusim_exec *ex, npusim_view *views)
{
    histc_ctx h = { .self = &views[0], .bins = ex->dim };
    const npusim_view *out = &views[1];
    npusim_view *self = &views[0];
    npusim_nditer_init(&h.it, self->ndim, self->shape, &self, 1);
    h.n = npusim_nditer_size(&h.it);
    double lo = ex->scalars[0].d, hi = ex->scalars[1].d;
    h.chunk = (h.n + HISTC_CHUNKS - 1) / HISTC_CHUNKS;
    int rc = 0;
    bool in_float = ex->flag && lo != hi;
    if (lo == hi && (rc = histc_data_range(&h, &lo, &hi))) return rc;
    if (lo == hi) {
        lo -= 1.0;
        hi += 1.0;
    }
    h.lo = lo;
    h.scale = (double)h.bins / (hi - lo);
    h.subs = h.bins <= HISTC_SUBS_MAX_BINS ? HISTC_SUBS : 1;
    h.edges = malloc(sizeof(double) * (size_t)(h.bins + 1));
    h.counts = calloc((size_t)(HISTC_CHUNKS * h.subs) * (size_t)(h.bins + 1), sizeof(int64_t));
    if (!h.edges || !h.counts) {
        rc = npusim_error(ACLNN_ERR_INNER, "aclnnHistc: out of host memory for %lld bins", (long long)h.bins);
    } else {
        histc_bounds(&h, hi, in_float, h.self->dtype == ACL_FLOAT || h.self->dtype == ACL_FLOAT16);
        npusim_parallel_for(HISTC_CHUNKS, 1, histc_chunk, &h);
        if (atomic_load(&h.failed))
            rc = npusim_error(ACLNN_ERR_INNER, "aclnnHistc: out of host memory");
    }
    if (!rc) {
        for (int64_t s = 1; s < HISTC_CHUNKS * h.subs; s++)
            for (int64_t i = 0; i < h.bins; i++) h.counts[i] += h.counts[s * (h.bins + 1) + i];
        int64_t out_stride = out->strides[0] * (int64_t)npusim_dtype_size(out->dtype);
        npusim_store(KIND_I64, h.counts, out->base, out_stride, out->dtype, (size_t)h.bins);
    }
    free(h.edges);
    free(h.counts);
    return rc;
}

static const npusim_opdef def_histc = NPUSIM_OPDEF("aclnnHistc", histc_kernel);

aclnnStatus aclnnHistcGetWorkspaceSize(const aclTensor *self, int64_t bins, const aclScalar *min, const aclScalar *max,
                                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnHistc";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_scalar(name, "min", min)) || (rc = npusim_check_scalar(name, "max", max)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnHistc_self)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnHistc_out)))
        return rc;
    if (bins <= 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnHistcGetWorkspaceSize: bins must be positive, got %lld",
                            (long long)bins);
    if (out->ndim != 1 || out->shape[0] != bins)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnHistcGetWorkspaceSize: out must be 1-D of bins = %lld "
                            "elements, got %d-D of %lld", (long long)bins, out->ndim, (long long)npusim_numel(out));
    double lo = npusim_scalar_double(min), hi = npusim_scalar_double(max);
    if (!(lo <= hi) || isinf(lo) || isinf(hi))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnHistcGetWorkspaceSize: min %g and max %g must be finite, "
                            "min <= max", lo, hi);
    const aclTensor *inputs[1] = { self };
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_histc, inputs, 1, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->dim = bins;
    ex->flag = min->dtype == ACL_FLOAT && max->dtype == ACL_FLOAT; /* edges computed in float */
    ex->scalars[0].d = lo;
    ex->scalars[1].d = hi;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnHistc(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnHistc", workspace, workspaceSize, executor, stream);
}
