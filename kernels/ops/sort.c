/* Sorting aclnn operators (docs/acl-abi.md §7.2 "Sorting, searching, selection, indexing"): aclnnSort
 * (values and INT64 indices) and aclnnArgsort along one dim.
 *
 * npusim always sorts stably, so `stable=false` gives the stable order too, which is one of the
 * orders CANN may return. NaN sorts as the largest value, as in torch: last in ascending order,
 * first in descending order; -0.0 and +0.0 compare equal. Each line is sorted by a least
 * significant digit radix sort (stable by construction) of keys that order like the values
 * (32-bit keys and indices for dtypes of up to 4 bytes, else 64-bit), and the values are then
 * gathered from the input by the sorted indices, so their bits (signed zeros, NaN payloads) are
 * kept. Lines along the dim are sorted in parallel. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "aclnnop/aclnn_argsort.h"
#include "aclnnop/aclnn_sort.h"
#include "ew_ops.h"


#define RADIX_BITS 8
#define RADIX_BUCKETS (1 << RADIX_BITS)
#define INSERTION_MAX 32 /* lines up to this length: insertion sort, cheaper than 8 histograms */

typedef struct {
    npusim_kind kind;      /* F64 (floating), I64 or U64 */
    bool descending;
    aclDataType in_dtype;
    size_t item_size;      /* bytes of one self / values element */
    int64_t length;
    int64_t in_stride, values_stride, indices_stride; /* bytes along the dim */
    bool with_values;
    atomic_int failed;
} sort_ctx;

/* Unsigned keys in the order of the values loaded as c->kind: floats by their IEEE bits with the
 * sign folded (NaN largest, -0.0 as +0.0), signed integers with the sign bit flipped; all
 * complemented for a descending order, which keeps equal keys in their original order. */
static void make_keys(const sort_ctx *c, uint64_t *keys, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t bits = keys[i], key;
        if (c->kind == KIND_F64) {
            double d;
            memcpy(&d, &bits, sizeof d);
            if (d != d) {
                key = UINT64_MAX;
            } else {
                if (d == 0) d = 0.0;
                memcpy(&bits, &d, sizeof bits);
                key = bits >> 63 ? ~bits : bits | (1ull << 63);
            }
        } else {
            key = c->kind == KIND_I64 ? bits ^ (1ull << 63) : bits;
        }
        keys[i] = c->descending ? ~key : key;
    }
}

/* Keys of 32 bits for dtypes of at most 4 bytes (half the memory traffic of the radix passes):
 * the float's own IEEE bits folded like make_keys', integers offset so that they order unsigned. */
static void make_keys32(const sort_ctx *c, const uint64_t *values, uint32_t *keys, int64_t n)
{
    bool is_unsigned = c->in_dtype == ACL_UINT8 || c->in_dtype == ACL_UINT16 || c->in_dtype == ACL_UINT32;
    for (int64_t i = 0; i < n; i++) {
        uint32_t key;
        if (c->kind == KIND_F64) {
            double d;
            memcpy(&d, &values[i], sizeof d);
            float f = (float)d; /* exact: the value came from a float, float16 or bfloat16 */
            uint32_t bits;
            if (f != f) {
                key = UINT32_MAX;
            } else {
                if (f == 0) f = 0.0f;
                memcpy(&bits, &f, sizeof bits);
                key = bits >> 31 ? ~bits : bits | (1u << 31);
            }
        } else {
            key = is_unsigned ? (uint32_t)values[i] : (uint32_t)values[i] ^ (1u << 31);
        }
        keys[i] = c->descending ? ~key : key;
    }
}

/* Stable sorts of (keys, idx) pairs for key type K and index type I: insertion sort for short
 * lines, else a least significant digit radix sort using tmp buffers of the same size, skipping the
 * digits all keys share. Each returns the buffer (idx or tmp_idx) that holds the sorted indices. */
#define DEFINE_SORTS(SUFFIX, K, I)                                                                         \
    static void insertion_sort##SUFFIX(K *keys, I *idx, int64_t n)                                        \
    {                                                                                                      \
        for (int64_t i = 1; i < n; i++) {                                                                  \
            K k = keys[i];                                                                                 \
            I v = idx[i];                                                                                  \
            int64_t j = i;                                                                                 \
            for (; j > 0 && keys[j - 1] > k; j--) {                                                        \
                keys[j] = keys[j - 1];                                                                     \
                idx[j] = idx[j - 1];                                                                       \
            }                                                                                              \
            keys[j] = k;                                                                                   \
            idx[j] = v;                                                                                    \
        }                                                                                                  \
    }                                                                                                      \
                                                                                                           \
    static I *radix_sort##SUFFIX(K *keys, I *idx, K *tmp_keys, I *tmp_idx, int64_t n)                     \
    {                                                                                                      \
        enum { PASSES = (int)sizeof(K) * 8 / RADIX_BITS };                                                 \
        static _Thread_local int64_t tls_counts[PASSES][RADIX_BUCKETS];                                    \
        int64_t(*counts)[RADIX_BUCKETS] = tls_counts; /* one thread-local lookup, not one per element */   \
        if (n <= INSERTION_MAX) {                                                                          \
            insertion_sort##SUFFIX(keys, idx, n);                                                          \
            return idx;                                                                                    \
        }                                                                                                  \
        memset(counts, 0, sizeof tls_counts);                                                              \
        for (int64_t i = 0; i < n; i++)                                                                    \
            for (int p = 0; p < PASSES; p++) counts[p][(keys[i] >> (p * RADIX_BITS)) & (RADIX_BUCKETS - 1)]++; \
        for (int p = 0; p < PASSES; p++) {                                                                 \
            int shift = p * RADIX_BITS;                                                                    \
            if (counts[p][(keys[0] >> shift) & (RADIX_BUCKETS - 1)] == n) continue; /* one digit for all */ \
            int64_t offset = 0;                                                                            \
            for (int b = 0; b < RADIX_BUCKETS; b++) {                                                      \
                int64_t count = counts[p][b];                                                              \
                counts[p][b] = offset;                                                                     \
                offset += count;                                                                           \
            }                                                                                              \
            for (int64_t i = 0; i < n; i++) {                                                              \
                int64_t to = counts[p][(keys[i] >> shift) & (RADIX_BUCKETS - 1)]++;                        \
                tmp_keys[to] = keys[i];                                                                    \
                tmp_idx[to] = idx[i];                                                                      \
            }                                                                                              \
            K *sk = keys;                                                                                  \
            keys = tmp_keys;                                                                               \
            tmp_keys = sk;                                                                                 \
            I *si = idx;                                                                                   \
            idx = tmp_idx;                                                                                 \
            tmp_idx = si;                                                                                  \
        }                                                                                                  \
        return idx;                                                                                        \
    }

DEFINE_SORTS(64, uint64_t, int64_t)
DEFINE_SORTS(32, uint32_t, uint32_t)

/* A long line of 32-bit keys is sorted by the CPU pool: each pass splits the line into
 * SORT_CHUNKS fixed chunks, counts every chunk's digits, then scatters every chunk from offsets
 * that place chunk c's elements of a digit after those of chunks < c (stable, as one thread). */
#define SORT_PARALLEL_MIN (1 << 20)
#define SORT_CHUNKS 8

typedef struct {
    const uint32_t *keys, *idx;
    uint32_t *out_keys, *out_idx;
    int64_t n, chunk;
    int shift;
    int64_t (*counts)[RADIX_BUCKETS]; /* [SORT_CHUNKS]: digit counts, then scatter offsets */
} radix_pass;

static void pass_count(size_t begin, size_t end, void *vctx)
{
    const radix_pass *p = vctx;
    for (size_t c = begin; c < end; c++) {
        int64_t *count = p->counts[c], lo = (int64_t)c * p->chunk, hi = lo + p->chunk < p->n ? lo + p->chunk : p->n;
        memset(count, 0, sizeof(int64_t) * RADIX_BUCKETS);
        for (int64_t i = lo; i < hi; i++) count[(p->keys[i] >> p->shift) & (RADIX_BUCKETS - 1)]++;
    }
}

static void pass_scatter(size_t begin, size_t end, void *vctx)
{
    const radix_pass *p = vctx;
    for (size_t c = begin; c < end; c++) {
        int64_t *offset = p->counts[c], lo = (int64_t)c * p->chunk, hi = lo + p->chunk < p->n ? lo + p->chunk : p->n;
        for (int64_t i = lo; i < hi; i++) {
            int64_t to = offset[(p->keys[i] >> p->shift) & (RADIX_BUCKETS - 1)]++;
            p->out_keys[to] = p->keys[i];
            p->out_idx[to] = p->idx[i];
        }
    }
}

static uint32_t *radix_sort32_parallel(uint32_t *keys, uint32_t *idx, uint32_t *tmp_keys, uint32_t *tmp_idx, int64_t n)
{
    int64_t counts[SORT_CHUNKS][RADIX_BUCKETS];
    radix_pass p = { .n = n, .chunk = (n + SORT_CHUNKS - 1) / SORT_CHUNKS, .counts = counts };
    for (int pass = 0; pass < 32 / RADIX_BITS; pass++) {
        p.keys = keys;
        p.idx = idx;
        p.out_keys = tmp_keys;
        p.out_idx = tmp_idx;
        p.shift = pass * RADIX_BITS;
        npusim_parallel_for(SORT_CHUNKS, 1, pass_count, &p);
        int64_t offset = 0, first_digit_total = 0;
        for (int c = 0; c < SORT_CHUNKS; c++) first_digit_total += counts[c][(keys[0] >> p.shift) & (RADIX_BUCKETS - 1)];
        if (first_digit_total == n) continue; /* one digit for all */
        for (int b = 0; b < RADIX_BUCKETS; b++)
            for (int c = 0; c < SORT_CHUNKS; c++) {
                int64_t count = counts[c][b];
                counts[c][b] = offset;
                offset += count;
            }
        npusim_parallel_for(SORT_CHUNKS, 1, pass_scatter, &p);
        uint32_t *sk = keys, *si = idx;
        keys = tmp_keys;
        idx = tmp_idx;
        tmp_keys = sk;
        tmp_idx = si;
    }
    return idx;
}

/* The sorted line: indices, and the values gathered from the input by them (typed copies of
 * the element's size: a memcpy call per element cost as much as the sort). */
#define GATHER(T)                                                                              \
    for (int64_t i = lo; i < hi; i++)                                                          \
        *(T *)(values + i * c->values_stride) = *(const T *)(in + (int64_t)sorted[i] * c->in_stride)

#define WRITE_LINE(NAME, I)                                                                    \
    static void NAME(const sort_ctx *c, const char *in, char *values, char *indices, const I *sorted, int64_t lo, \
                     int64_t hi)                                                               \
    {                                                                                          \
        for (int64_t i = lo; i < hi; i++) *(int64_t *)(indices + i * c->indices_stride) = (int64_t)sorted[i]; \
        if (!c->with_values) return;                                                           \
        switch (c->item_size) {                                                                \
        case 1: GATHER(uint8_t); break;                                                        \
        case 2: GATHER(uint16_t); break;                                                       \
        case 4: GATHER(uint32_t); break;                                                       \
        default: GATHER(uint64_t); break;                                                      \
        }                                                                                      \
    }
WRITE_LINE(write_line32, uint32_t)
WRITE_LINE(write_line64, int64_t)

/* A line of 32-bit keys, whose loading and writing long lines split across the CPU pool too. */
typedef struct {
    const sort_ctx *c;
    const char *in;
    char *values, *indices;
    uint64_t *loaded;
    uint32_t *keys, *idx;
    const uint32_t *sorted;
} line32;

static void prepare32_range(size_t lo, size_t hi, void *vctx)
{
    const line32 *l = vctx;
    npusim_load(l->c->kind, l->loaded + lo, l->in + (int64_t)lo * l->c->in_stride, l->c->in_stride, l->c->in_dtype,
                hi - lo);
    make_keys32(l->c, l->loaded + lo, l->keys + lo, (int64_t)(hi - lo));
    for (size_t i = lo; i < hi; i++) l->idx[i] = (uint32_t)i;
}

static void write32_range(size_t lo, size_t hi, void *vctx)
{
    const line32 *l = vctx;
    write_line32(l->c, l->in, l->values, l->indices, l->sorted, (int64_t)lo, (int64_t)hi);
}

static void sort_line32(sort_ctx *c, const char *in, char *values, char *indices, uint64_t *loaded)
{
    int64_t n = c->length;
    uint32_t *keys = (uint32_t *)(loaded + n), *tmp_keys = keys + n, *idx = tmp_keys + n, *tmp_idx = idx + n;
    line32 l = { c, in, values, indices, loaded, keys, idx, NULL };
    if (n < SORT_PARALLEL_MIN) {
        prepare32_range(0, (size_t)n, &l);
        l.sorted = radix_sort32(keys, idx, tmp_keys, tmp_idx, n);
        write32_range(0, (size_t)n, &l);
        return;
    }
    npusim_parallel_for((size_t)n, SORT_PARALLEL_MIN / SORT_CHUNKS, prepare32_range, &l);
    l.sorted = radix_sort32_parallel(keys, idx, tmp_keys, tmp_idx, n);
    npusim_parallel_for((size_t)n, SORT_PARALLEL_MIN / SORT_CHUNKS, write32_range, &l);
}

/* A line's scratch, 2 MiB-aligned and offered to transparent huge pages: a 16 M-element sort's
 * 400 MB of fresh scratch in 4 KiB pages cost as much in first-touch faults as the sort itself. */
static void *scratch_alloc(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    size_t size = (bytes + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, size);
#ifdef MADV_HUGEPAGE
    if (p && size >= huge) (void)madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

static void sort_line(sort_ctx *c, const char *in, char *values, char *indices)
{
    int64_t n = c->length;
    bool narrow = c->item_size <= 4 && n <= (int64_t)UINT32_MAX;
    /* loaded values (8 bytes each), then keys, tmp keys, idx, tmp idx (8 bytes each, or 4 on the
     * narrow path) */
    uint64_t *loaded = scratch_alloc(sizeof(uint64_t) * (size_t)n * (narrow ? 3 : 5));
    if (!loaded) {
        atomic_store(&c->failed, 1);
        return;
    }
    if (narrow) {
        sort_line32(c, in, values, indices, loaded);
    } else {
        npusim_load(c->kind, loaded, in, c->in_stride, c->in_dtype, (size_t)n);
        uint64_t *keys = loaded, *tmp_keys = loaded + n;
        int64_t *idx = (int64_t *)(loaded + 2 * n), *tmp_idx = idx + n;
        make_keys(c, keys, n);
        for (int64_t i = 0; i < n; i++) idx[i] = i;
        write_line64(c, in, values, indices, radix_sort64(keys, idx, tmp_keys, tmp_idx, n), 0, n);
    }
    free(loaded);
}

/* Operands: 0 indices, 1 self, 2 values (when sorting values), all at index 0 of the dim. */
static void sort_run(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    sort_ctx *c = vctx;
    for (size_t i = 0; i < n; i++)
        sort_line(c, ptrs[1] + (int64_t)i * strides[1], c->with_values ? ptrs[2] + (int64_t)i * strides[2] : NULL,
                  ptrs[0] + (int64_t)i * strides[0]);
}

/* views: self, then [values,] indices. */
static int sort_kernel(const npusim_exec *ex, npusim_view *views)
{
    bool with_values = ex->n_tensors == 3;
    npusim_view self = views[0], values = with_values ? views[1] : views[0], indices = views[ex->n_tensors - 1];
    sort_ctx c;
    memset(&c, 0, sizeof c);
    c.kind = ex->kind;
    c.descending = ex->flag;
    c.in_dtype = self.dtype;
    c.item_size = npusim_dtype_size(self.dtype);
    c.with_values = with_values;
    c.length = 1;
    if (self.ndim > 0) {
        int d = (int)ex->dim;
        c.length = self.shape[d];
        c.in_stride = self.strides[d] * (int64_t)npusim_dtype_size(self.dtype);
        c.values_stride = values.strides[d] * (int64_t)npusim_dtype_size(values.dtype);
        c.indices_stride = indices.strides[d] * (int64_t)sizeof(int64_t);
        self.shape[d] = values.shape[d] = indices.shape[d] = 1;
    }
    if (c.length == 0) return 0;
    npusim_view *ops[3] = { &indices, &self, &values };
    npusim_nditer it;
    npusim_nditer_init(&it, indices.ndim, indices.shape, ops, with_values ? 3 : 2);
    npusim_nditer_parallel(&it, sort_run, &c);
    if (atomic_load(&c.failed))
        return npusim_error(ACLNN_ERR_INNER, "%s: out of host memory for a line of %lld elements", ex->def->name,
                            (long long)c.length);
    return 0;
}

static const npusim_opdef def_sort = NPUSIM_OPDEF("aclnnSort", sort_kernel);
static const npusim_opdef def_argsort = NPUSIM_OPDEF("aclnnArgsort", sort_kernel);

static aclnnStatus sort_prepare(const npusim_opdef *def, uint64_t dtypes, const aclTensor *self, int64_t dim,
                                bool descending, aclTensor *values, aclTensor *indices, uint64_t *workspaceSize,
                                aclOpExecutor **executor)
{
    const char *name = def->name;
    const char *indices_arg = values ? "indicesOut" : "out";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) ||
        (values && (rc = npusim_check_tensor(name, "valuesOut", values))) ||
        (rc = npusim_check_tensor(name, indices_arg, indices)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, dtypes)) ||
        (rc = npusim_check_dtype(name, indices_arg, indices->dtype, DT(ACL_INT64))))
        return rc;
    if (values && values->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: valuesOut has dtype %s, self %s: they must "
                            "match", name, npusim_dtype_name(values->dtype), npusim_dtype_name(self->dtype));
    if ((rc = npusim_normalise_dim(name, "self", dim, self->ndim, &dim))) return rc;
    if ((values && (rc = npusim_check_shape_equal(name, "valuesOut", values, self->ndim, self->shape))) ||
        (rc = npusim_check_shape_equal(name, indices_arg, indices, self->ndim, self->shape)))
        return rc;
    const aclTensor *outs[2] = { values ? values : indices, indices };
    npusim_exec *ex = npusim_exec_create(def, &self, 1, outs, values ? 2 : 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    npusim_kind k = npusim_kind_of(self->dtype);
    ex->kind = k == KIND_F32 || k == KIND_F64 ? KIND_F64 : k == KIND_U64 ? KIND_U64 : KIND_I64;
    ex->dim = dim;
    ex->flag = descending;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnSortGetWorkspaceSize(const aclTensor *self, bool stable, int64_t dim, bool descending,
                                      aclTensor *valuesOut, aclTensor *indicesOut, uint64_t *workspaceSize,
                                      aclOpExecutor **executor)
{
    (void)stable; /* always stable, see above */
    if (!valuesOut)
        return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclnnSortGetWorkspaceSize: valuesOut is NULL");
    return sort_prepare(&def_sort, NPUSIM_DTYPES_aclnnSort_self, self, dim, descending, valuesOut, indicesOut, workspaceSize, executor);
}

aclnnStatus aclnnSort(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSort", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnArgsortGetWorkspaceSize(const aclTensor *self, int64_t dim, bool descending, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return sort_prepare(&def_argsort, NPUSIM_DTYPES_aclnnArgsort_self, self, dim, descending, NULL, out, workspaceSize, executor);
}

aclnnStatus aclnnArgsort(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnArgsort", workspace, workspaceSize, executor, stream);
}
