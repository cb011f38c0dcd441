/* N-d strided iteration with broadcasting: the loop nest every kernel runs on. Dimensions are
 * ordered by the first operand's strides, size-1 dimensions dropped and contiguous ones merged,
 * so most views reduce to a single long inner run. */
#include <stdlib.h>

#include "ops_internal.h"

static void abs_sort_dims(npusim_nditer *it)
{
    /* Insertion sort, outermost = largest |stride| of operand 0; stable so ties keep C order. */
    for (int i = 1; i < it->ndim; i++) {
        for (int j = i; j > 0; j--) {
            int64_t a = llabs(it->strides[0][j - 1]), b = llabs(it->strides[0][j]);
            if (a >= b) break;
            int64_t s = it->shape[j];
            it->shape[j] = it->shape[j - 1];
            it->shape[j - 1] = s;
            for (int k = 0; k < it->nop; k++) {
                int64_t t = it->strides[k][j];
                it->strides[k][j] = it->strides[k][j - 1];
                it->strides[k][j - 1] = t;
            }
        }
    }
}

static void coalesce(npusim_nditer *it)
{
    int nd = 0;
    for (int d = 0; d < it->ndim; d++) {
        if (it->shape[d] == 1) continue;
        bool merge = nd > 0;
        for (int k = 0; merge && k < it->nop; k++)
            merge = it->strides[k][nd - 1] == it->strides[k][d] * it->shape[d];
        if (merge) {
            it->shape[nd - 1] *= it->shape[d];
            for (int k = 0; k < it->nop; k++) it->strides[k][nd - 1] = it->strides[k][d];
        } else {
            it->shape[nd] = it->shape[d];
            for (int k = 0; k < it->nop; k++) it->strides[k][nd] = it->strides[k][d];
            nd++;
        }
    }
    if (nd == 0) { /* a single element: one run of length 1 */
        it->shape[0] = 1;
        for (int k = 0; k < it->nop; k++) it->strides[k][0] = 0;
        nd = 1;
    }
    it->ndim = nd;
}

void npusim_nditer_init(npusim_nditer *it, int ndim, const int64_t *shape, npusim_view *const *v, int nop)
{
    it->ndim = ndim;
    it->nop = nop;
    for (int d = 0; d < ndim; d++) it->shape[d] = shape[d];
    for (int k = 0; k < nop; k++) {
        int64_t isz = (int64_t)npusim_dtype_size(v[k]->dtype);
        int lead = ndim - v[k]->ndim;
        it->base[k] = v[k]->base;
        for (int d = 0; d < ndim; d++) {
            int vd = d - lead;
            bool real = vd >= 0 && v[k]->shape[vd] != 1;
            it->strides[k][d] = real ? v[k]->strides[vd] * isz : 0;
        }
    }
    for (int d = 0; d < ndim; d++)
        if (shape[d] == 0) { /* empty: nothing to visit */
            it->ndim = 1;
            it->shape[0] = 0;
            return;
        }
    abs_sort_dims(it);
    coalesce(it);
}

int64_t npusim_nditer_size(const npusim_nditer *it)
{
    int64_t n = 1;
    for (int d = 0; d < it->ndim; d++) n *= it->shape[d];
    return n;
}

void npusim_nditer_range(const npusim_nditer *it, int64_t begin, int64_t end, npusim_run_fn fn, void *ctx)
{
    if (begin >= end) return;
    const int nd = it->ndim, nop = it->nop, inner = nd - 1;
    int64_t idx[NPUSIM_MAX_DIMS];
    char *ptrs[NPUSIM_MAX_OPERANDS];
    int64_t inner_strides[NPUSIM_MAX_OPERANDS];
    int64_t rest = begin;
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = rest % it->shape[d];
        rest /= it->shape[d];
    }
    for (int k = 0; k < nop; k++) {
        ptrs[k] = it->base[k];
        for (int d = 0; d < nd; d++) ptrs[k] += idx[d] * it->strides[k][d];
        inner_strides[k] = it->strides[k][inner];
    }
    int64_t pos = begin;
    while (pos < end) {
        int64_t n = it->shape[inner] - idx[inner];
        if (n > end - pos) n = end - pos;
        fn(ptrs, inner_strides, (size_t)n, ctx);
        pos += n;
        if (pos >= end) break;
        idx[inner] += n;
        for (int k = 0; k < nop; k++) ptrs[k] += n * inner_strides[k];
        for (int d = inner; d > 0 && idx[d] == it->shape[d]; d--) {
            idx[d] = 0;
            idx[d - 1]++;
            for (int k = 0; k < nop; k++)
                ptrs[k] += it->strides[k][d - 1] - it->shape[d] * it->strides[k][d];
        }
    }
}

typedef struct {
    const npusim_nditer *it;
    npusim_run_fn fn;
    void *ctx;
} parallel_ctx;

static void parallel_chunk(size_t begin, size_t end, void *ctx)
{
    parallel_ctx *p = ctx;
    npusim_nditer_range(p->it, (int64_t)begin, (int64_t)end, p->fn, p->ctx);
}

void npusim_nditer_parallel_grain(const npusim_nditer *it, int64_t grain, npusim_run_fn fn, void *ctx)
{
    int64_t n = npusim_nditer_size(it);
    if (n < 2 * grain) {
        npusim_nditer_range(it, 0, n, fn, ctx);
        return;
    }
    parallel_ctx p = { it, fn, ctx };
    if (n < NPUSIM_MID_GRAINS * grain) npusim_parallel_for_mid((size_t)n, (size_t)grain, parallel_chunk, &p);
    else npusim_parallel_for((size_t)n, (size_t)grain, parallel_chunk, &p);
}

void npusim_nditer_parallel(const npusim_nditer *it, npusim_run_fn fn, void *ctx)
{
    npusim_nditer_parallel_grain(it, NPUSIM_PARALLEL_MIN / 2, fn, ctx);
}

/* Lowest and one-past-highest byte a view touches (both 0 for an empty view). */
static void view_bounds(const npusim_view *v, uintptr_t *lo, uintptr_t *hi)
{
    int64_t isz = (int64_t)npusim_dtype_size(v->dtype), min = 0, max = 0;
    for (int d = 0; d < v->ndim; d++) {
        if (v->shape[d] == 0) {
            *lo = *hi = 0;
            return;
        }
        int64_t span = (v->shape[d] - 1) * v->strides[d] * isz;
        if (span < 0) min += span;
        else max += span;
    }
    *lo = (uintptr_t)(v->base + min);
    *hi = (uintptr_t)(v->base + max + isz);
}

bool npusim_views_overlap(const npusim_view *a, const npusim_view *b)
{
    uintptr_t a0, a1, b0, b1;
    view_bounds(a, &a0, &a1);
    view_bounds(b, &b0, &b1);
    return a0 < b1 && b0 < a1;
}

bool npusim_views_conflict(const npusim_view *in, const npusim_view *out)
{
    if (!npusim_views_overlap(in, out)) return false;
    bool same = in->base == out->base && in->ndim == out->ndim && in->dtype == out->dtype;
    for (int d = 0; same && d < in->ndim; d++)
        same = in->shape[d] == out->shape[d] && (in->strides[d] == out->strides[d] || in->shape[d] == 1);
    return !same; /* the very same elements, read before written, are safe */
}

int npusim_view_copy(const npusim_view *v, npusim_view *copy, void **buffer)
{
    int64_t n = 1;
    for (int d = 0; d < v->ndim; d++) n *= v->shape[d];
    size_t isz = npusim_dtype_size(v->dtype);
    *buffer = malloc((size_t)(n > 0 ? n : 1) * isz);
    if (!*buffer) return npusim_error(ACLNN_ERR_INNER, "out of host memory for a %lld-element temporary", (long long)n);
    *copy = *v;
    copy->base = *buffer;
    int64_t s = 1;
    for (int d = v->ndim - 1; d >= 0; d--) {
        copy->strides[d] = s;
        s *= v->shape[d];
    }
    npusim_view *src[1] = { (npusim_view *)v };
    npusim_ew_run(NULL, &npusim_ew_identity, npusim_kind_of(v->dtype), copy, src);
    return 0;
}
