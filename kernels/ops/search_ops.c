/* Searching aclnn operators (docs/acl-abi.md §7.2 "Sorting, searching, selection, indexing"):
 * aclnnNonzero and aclnnSearchSorted.
 *
 * aclnnNonzero has a data-dependent result: `out` is allocated at the maximum [numel(self),
 * self.dim()] and the kernel sets its view shape to [count, self.dim()] (read back with
 * aclGetViewShape after synchronising), as hicann/ops-nn index/non_zero/docs/aclnnNonzero.md
 * shows. A zero is any value whose bits are all 0 except a floating sign bit (-0.0 is zero, NaN
 * is not), as in torch and NumPy.
 *
 * aclnnSearchSorted follows torch.searchsorted: a 1-D sortedSequence is searched for every
 * element of self, an N-D one row by row (its leading dims equal self's). NaN counts as the
 * largest value, consistent with aclnnSort. A sorter index out of range is reported by the
 * stream (ACLNN_ERR_PARAM_INVALID) instead of reading outside the tensor. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_nonzero.h"
#include "aclnnop/aclnn_searchsorted.h"
#include "ew_ops.h"


/* ---------------------------------------------------------------------------------------------
 * aclnnNonzero */

/* Whether the element at p of dtype dt is non-zero: any bit set, ignoring a floating sign bit. */
static bool is_nonzero(const char *p, aclDataType dt, size_t size)
{
    switch (dt) {
    case ACL_FLOAT16:
    case ACL_BF16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return (v & 0x7fffu) != 0;
    }
    case ACL_FLOAT: {
        uint32_t v;
        memcpy(&v, p, 4);
        return (v & 0x7fffffffu) != 0;
    }
    case ACL_DOUBLE: {
        uint64_t v;
        memcpy(&v, p, 8);
        return (v & 0x7fffffffffffffffull) != 0;
    }
    default:
        for (size_t i = 0; i < size; i++)
            if (p[i]) return true;
        return false;
    }
}

static int nonzero_kernel(const npusim_exec *ex, npusim_view *views)
{
    const npusim_view *self = &views[0], *out = &views[1];
    int nd = self->ndim;
    int64_t total = 1;
    for (int d = 0; d < nd; d++) total *= self->shape[d];
    size_t isz = npusim_dtype_size(self->dtype);
    int64_t idx[NPUSIM_MAX_DIMS] = { 0 }, count = 0;
    const char *p = self->base;
    for (int64_t i = 0; i < total; i++) {
        if (is_nonzero(p, self->dtype, isz)) {
            int64_t *row = (int64_t *)out->base + count++ * out->strides[0];
            for (int d = 0; d < nd; d++) row[d * out->strides[1]] = idx[d];
        }
        for (int d = nd - 1; d >= 0; d--) { /* C-order odometer */
            p += self->strides[d] * (int64_t)isz;
            if (++idx[d] < self->shape[d]) break;
            p -= self->strides[d] * (int64_t)isz * self->shape[d];
            idx[d] = 0;
        }
    }
    ex->shape_out->shape[0] = count;
    return 0;
}

static const npusim_opdef def_nonzero = NPUSIM_OPDEF("aclnnNonzero", nonzero_kernel);

aclnnStatus aclnnNonzeroGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                         aclOpExecutor **executor)
{
    const char *name = "aclnnNonzero";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnNonzero_self)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnNonzero_out)))
        return rc;
    int64_t shape[2] = { npusim_numel(self), self->ndim };
    if ((rc = npusim_check_shape_equal(name, "out", out, 2, shape))) return rc;
    const aclTensor *ins[1] = { self };
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_nonzero, ins, 1, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    npusim_tensor_retain(out);
    ex->shape_out = out;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnNonzero(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnNonzero", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnSearchSorted */

typedef struct {
    npusim_kind kind;         /* KIND_F64 or KIND_I64: what values are compared in */
    const npusim_view *seq, *sorter;
    int64_t length;           /* elements per row of seq */
    int64_t seq_step, sorter_step; /* bytes between consecutive row elements */
    bool right;
    bool bad_sorter;
} search_ctx;

static void load_value(const search_ctx *c, npusim_value *v, const char *p, aclDataType dt)
{
    npusim_load(c->kind, v, p, 0, dt, 1);
}

/* a < b in ascending order, NaN largest. */
static bool value_less(const search_ctx *c, const npusim_value *a, const npusim_value *b)
{
    if (c->kind == KIND_F64) {
        if (b->d != b->d) return a->d == a->d;
        return a->d < b->d;
    }
    return a->i < b->i;
}

/* Element j of the row starting at seq_row (through the sorter row when there is one). */
static bool row_value(search_ctx *c, const char *seq_row, const char *sorter_row, int64_t j, npusim_value *v)
{
    int64_t k = j;
    if (c->sorter) {
        k = *(const int64_t *)(sorter_row + j * c->sorter_step);
        if (k < 0 || k >= c->length) {
            c->bad_sorter = true;
            return false;
        }
    }
    load_value(c, v, seq_row + k * c->seq_step, c->seq->dtype);
    return true;
}

/* The insertion index of v in one row: the count of elements < v (left) or <= v (right). */
static int64_t search_row(search_ctx *c, const char *seq_row, const char *sorter_row, const npusim_value *v)
{
    int64_t lo = 0, hi = c->length;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        npusim_value s;
        if (!row_value(c, seq_row, sorter_row, mid, &s)) return 0;
        bool go_right = c->right ? !value_less(c, v, &s) : value_less(c, &s, v);
        if (go_right) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* A 1-D sequence without sorter searched for a 1-D self: the sequence is loaded once, self is
 * split across the CPU pool in blocks, and each value's search starts where linear
 * interpolation between the sequence's ends puts it (exact for evenly spaced values, such as
 * histogram edges), galloping from there to bracket the insertion index, then bisecting. */
#define SEARCH_BLOCK 1024

typedef struct {
    const search_ctx *c;
    const npusim_view *self, *out;
    const uint64_t *seq;      /* the loaded sequence: doubles (KIND_F64) or int64 */
    const double *doubles;    /* the same bits as doubles (KIND_F64) */
    double first, scale;      /* interpolation: index ~ (v - first) * scale (KIND_F64 only) */
    bool interpolate;
} flat_search;

/* a < b for loaded values, NaN largest (value_less's order). */
static bool loaded_less(const flat_search *f, uint64_t a, uint64_t b)
{
    if (f->c->kind != KIND_F64) return (int64_t)a < (int64_t)b;
    double x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return y != y ? x == x : x < y;
}

/* Whether seq[j] goes left of v: seq[j] < v (left), seq[j] <= v (right). */
static bool goes_left(const flat_search *f, int64_t j, uint64_t v)
{
    return f->c->right ? !loaded_less(f, v, f->seq[j]) : loaded_less(f, f->seq[j], v);
}

/* The insertion index of v: the count of sequence elements going left of it. */
static int64_t search_from_guess(const flat_search *f, uint64_t v)
{
    int64_t n = f->c->length, lo = 0, hi = n; /* the index is in [lo, hi] */
    if (f->interpolate) {
        double d;
        memcpy(&d, &v, sizeof d);
        double at = (d - f->first) * f->scale;
        int64_t g = at != at ? n : at < 0 ? 0 : at >= (double)n ? n : (int64_t)at, step = 1;
        if (g < n && goes_left(f, g, v)) { /* index > g: gallop up */
            lo = g + 1;
            while (lo + step - 1 < n && goes_left(f, lo + step - 1, v)) {
                lo += step;
                step *= 2;
            }
            hi = lo + step - 1 < n ? lo + step - 1 : n;
        } else { /* index <= g: gallop down */
            hi = g;
            while (hi - step >= 0 && !goes_left(f, hi - step, v)) {
                hi -= step;
                step *= 2;
            }
            lo = hi - step + 1 > 0 ? hi - step + 1 : 0;
        }
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (goes_left(f, mid, v)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* search_from_guess for a non-NaN double v in an interpolated sequence: plain comparisons (a NaN
 * in the sequence compares false, so it never goes left of v, as in value_less's order). */
static inline int64_t search_double(const flat_search *f, const double *seq, double v)
{
    int64_t n = f->c->length, lo, hi, step = 1;
    double at = (v - f->first) * f->scale;
    int64_t g = at < 0 ? 0 : at >= (double)n ? n : (int64_t)at;
    bool right = f->c->right;
#define LEFT(j) (right ? seq[j] <= v : seq[j] < v)
    if (g < n && LEFT(g)) {
        lo = g + 1;
        while (lo + step - 1 < n && LEFT(lo + step - 1)) {
            lo += step;
            step *= 2;
        }
        hi = lo + step - 1 < n ? lo + step - 1 : n;
    } else {
        hi = g;
        while (hi - step >= 0 && !LEFT(hi - step)) {
            hi -= step;
            step *= 2;
        }
        lo = hi - step + 1 > 0 ? hi - step + 1 : 0;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (LEFT(mid)) lo = mid + 1;
        else hi = mid;
    }
#undef LEFT
    return lo;
}

static void flat_search_range(size_t begin, size_t end, void *vctx)
{
    const flat_search *f = vctx;
    uint64_t values[SEARCH_BLOCK];
    size_t isz = npusim_dtype_size(f->self->dtype);
    int64_t in_step = f->self->strides[0] * (int64_t)isz, out_step = f->out->strides[0];
    for (size_t at = begin; at < end; at += SEARCH_BLOCK) {
        size_t m = end - at < SEARCH_BLOCK ? end - at : SEARCH_BLOCK;
        npusim_load(f->c->kind, values, f->self->base + (int64_t)at * in_step, in_step, f->self->dtype, m);
        for (size_t i = 0; i < m; i++) {
            double d;
            memcpy(&d, &values[i], sizeof d);
            int64_t pos = f->interpolate && d == d ? search_double(f, f->doubles, d) : search_from_guess(f, values[i]);
            int64_t o = (int64_t)(at + i) * out_step;
            if (f->out->dtype == ACL_INT32) ((int32_t *)f->out->base)[o] = (int32_t)pos;
            else ((int64_t *)f->out->base)[o] = pos;
        }
    }
}

/* The 1-D case above; false when the sequence could not be loaded (no memory). */
static bool search_flat(const search_ctx *c, const npusim_view *self, const npusim_view *out)
{
    int64_t n = c->length;
    uint64_t *seq = malloc(sizeof *seq * (size_t)(n ? n : 1));
    if (!seq) return false;
    npusim_load(c->kind, seq, c->seq->base, c->seq_step, c->seq->dtype, (size_t)n);
    flat_search f = { c, self, out, seq, (const double *)(const void *)seq, 0, 0, false };
    if (c->kind == KIND_F64 && n > 2) {
        double first, last;
        memcpy(&first, &seq[0], sizeof first);
        memcpy(&last, &seq[n - 1], sizeof last);
        double span = last - first;
        f.first = first;
        f.scale = (double)(n - 1) / span;
        f.interpolate = span > 0 && isfinite(span) && isfinite(f.scale);
    }
    npusim_parallel_for((size_t)self->shape[0], SEARCH_BLOCK * 16, flat_search_range, &f);
    free(seq);
    return true;
}

static int searchsorted_kernel(const npusim_exec *ex, npusim_view *views)
{
    const npusim_view *seq = &views[0], *self = &views[1], *out = &views[ex->n_tensors - 1];
    search_ctx c = { ex->kind, seq, ex->present[2] ? &views[2] : NULL, 0, 0, 0, ex->flag, false };
    if (seq->ndim == 1 && !c.sorter && self->ndim == 1) {
        c.length = seq->shape[0];
        c.seq_step = seq->strides[0] * (int64_t)npusim_dtype_size(seq->dtype);
        if (search_flat(&c, self, out)) return 0;
        return npusim_error(ACLNN_ERR_INNER, "aclnnSearchSorted: out of host memory for a sequence of %lld elements",
                            (long long)c.length);
    }
    int sd = seq->ndim - 1;
    c.length = seq->ndim ? seq->shape[sd] : 1;
    c.seq_step = seq->ndim ? seq->strides[sd] * (int64_t)npusim_dtype_size(seq->dtype) : 0;
    if (c.sorter) c.sorter_step = c.sorter->ndim ? c.sorter->strides[sd] * 8 : 0;
    int nd = self->ndim;
    int64_t total = 1;
    for (int d = 0; d < nd; d++) total *= self->shape[d];
    size_t isz = npusim_dtype_size(self->dtype), osz = npusim_dtype_size(out->dtype);
    int64_t idx[NPUSIM_MAX_DIMS] = { 0 };
    for (int64_t i = 0; i < total && !c.bad_sorter; i++) {
        const char *p = self->base, *seq_row = seq->base, *sorter_row = c.sorter ? c.sorter->base : NULL;
        char *o = out->base;
        for (int d = 0; d < nd; d++) {
            p += idx[d] * self->strides[d] * (int64_t)isz;
            o += idx[d] * out->strides[d] * (int64_t)osz;
        }
        for (int d = 0; d < sd; d++) { /* an N-D sequence: the row of self's leading index */
            seq_row += idx[d] * seq->strides[d] * (int64_t)npusim_dtype_size(seq->dtype);
            if (c.sorter) sorter_row += idx[d] * c.sorter->strides[d] * 8;
        }
        npusim_value v;
        load_value(&c, &v, p, self->dtype);
        int64_t pos = c.length ? search_row(&c, seq_row, sorter_row, &v) : 0;
        if (out->dtype == ACL_INT32) *(int32_t *)o = (int32_t)pos;
        else *(int64_t *)o = pos;
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < self->shape[d]) break;
            idx[d] = 0;
        }
    }
    if (c.bad_sorter)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnSearchSorted: a sorter index is out of range [0, %lld)",
                            (long long)c.length);
    return 0;
}

static const npusim_opdef def_searchsorted = NPUSIM_OPDEF("aclnnSearchSorted", searchsorted_kernel);

static int check_search_shapes(const char *name, const aclTensor *seq, const aclTensor *self,
                               const aclTensor *sorter, const aclTensor *out)
{
    if (seq->ndim < 1)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: sortedSequence must have at least 1 dim",
                            name);
    if (seq->ndim > 1) {
        bool ok = self->ndim == seq->ndim;
        for (int d = 0; ok && d < seq->ndim - 1; d++) ok = self->shape[d] == seq->shape[d];
        if (!ok)
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: an N-D sortedSequence needs self with "
                                "the same leading dims", name);
    }
    if (sorter) {
        int rc = npusim_check_dtype(name, "sorter", sorter->dtype, NPUSIM_DTYPES_aclnnSearchSorted_sorter);
        if (rc || (rc = npusim_check_shape_equal(name, "sorter", sorter, seq->ndim, seq->shape))) return rc;
    }
    return npusim_check_shape_equal(name, "out", out, self->ndim, self->shape);
}

aclnnStatus aclnnSearchSortedGetWorkspaceSize(const aclTensor *sortedSequence, const aclTensor *self, bool outInt32,
                                              bool right, const aclTensor *sorter, aclTensor *out,
                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnSearchSorted";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "sortedSequence", sortedSequence)) ||
        (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (sorter && (rc = npusim_check_tensor(name, "sorter", sorter))) ||
        (rc = npusim_check_dtype(name, "sortedSequence", sortedSequence->dtype, NPUSIM_DTYPES_aclnnSearchSorted_sortedSequence)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnSearchSorted_self)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, DT(outInt32 ? ACL_INT32 : ACL_INT64))))
        return rc;
    if (npusim_promote(sortedSequence->dtype, self->dtype) == ACL_DT_UNDEFINED)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: sortedSequence (%s) and self (%s) have no "
                            "common dtype", name, npusim_dtype_name(sortedSequence->dtype),
                            npusim_dtype_name(self->dtype));
    if ((rc = check_search_shapes(name, sortedSequence, self, sorter, out))) return rc;
    const aclTensor *ins[3] = { sortedSequence, self, sorter };
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_searchsorted, ins, 3, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    bool integral = !npusim_is_float(sortedSequence->dtype) && !npusim_is_float(self->dtype);
    ex->kind = integral ? KIND_I64 : KIND_F64;
    ex->flag = right;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnSearchSorted(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSearchSorted", workspace, workspaceSize, executor, stream);
}
