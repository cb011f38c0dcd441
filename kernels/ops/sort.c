/* Sorting aclnn operators (docs/acl-abi.md §7.2 "Sorting, searching, selection, indexing"): aclnnSort
 * (values and INT64 indices) and aclnnArgsort along one dim.
 *
 * npusim always sorts stably, so `stable=false` gives the stable order too, which is one of the
 * orders CANN may return. NaN sorts as the largest value, as in torch: last in ascending order,
 * first in descending order; -0.0 and +0.0 compare equal. Each line is sorted by a least
 * significant digit radix sort (stable by construction) of keys that order like the values
 * (32-bit keys and indices for dtypes of up to 4 bytes, else 64-bit), and the values are then
 * gathered from the input by the sorted indices, so their bits (signed zeros, NaN payloads) are
 * kept. Long lines of keys of up to 32 bits are bucketed by their top key bits across the CPU
 * pool first, and their values rebuilt from the keys where those are one-to-one (sort_long32).
 * Lines along the dim are sorted in parallel. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "aclnnop/aclnn_argsort.h"
#include "aclnnop/aclnn_sort.h"
#include "ew_ops.h"
#include "sort_keys.h"


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

/* A line of keys of at most 32 bits, short: keys and indices sorted by radix_sort32, values
 * gathered. */
static void sort_short32(const sort_ctx *c, const char *in, char *values, char *indices, uint64_t *loaded)
{
    int64_t n = c->length;
    uint32_t *keys = (uint32_t *)(loaded + n), *tmp_keys = keys + n, *idx = tmp_keys + n, *tmp_idx = idx + n;
    npusim_load(c->kind, loaded, in, c->in_stride, c->in_dtype, (size_t)n);
    make_keys32(c, loaded, keys, n);
    for (int64_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
    write_line32(c, in, values, indices, radix_sort32(keys, idx, tmp_keys, tmp_idx, n), 0, n);
}

/* A long line of keys of at most 32 bits: items (key << 32 | position) are scattered by their top
 * SCATTER_BITS key bits into buckets, stably and in parallel over fixed chunks (a counting pass, then
 * a scattering pass that remakes the keys from the input instead of storing them), then each
 * bucket is sorted on its remaining key bits by radix sorts in cache (sort_keys.h) and written
 * out: indices, and values rebuilt from the keys (floats' zeros and NaNs, whose keys fold several
 * bit patterns, and float16 / bfloat16 read back from the input). The items live in the indices'
 * memory when it is contiguous (no scratch to fault in). */
#define MSD_MIN (1 << 14)       /* shorter lines: sort_short32 */
#define MSD_TASKS 32            /* bucket ranges of about n / MSD_TASKS elements each */

typedef struct {
    const sort_ctx *c;
    const char *in;
    char *values, *indices;
    uint64_t *items;            /* the scattered items */
    int64_t n, chunk;
    uint32_t (*offsets)[SCATTER_BUCKETS]; /* [SCATTER_CHUNKS]: counts, then scatter offsets */
    int64_t bucket_start[SCATTER_BUCKETS + 1];
} msd32;

/* keys[0, hi - lo) of elements [lo, hi) of the line. */
static void keys_of(const msd32 *m, int64_t lo, int64_t hi, uint32_t *keys)
{
    const sort_ctx *c = m->c;
    if (c->in_dtype == ACL_FLOAT) {
        uint32_t flip = c->descending ? UINT32_MAX : 0;
        if (c->in_stride == (int64_t)sizeof(float)) { /* contiguous: the same, vectorised */
            const float *in = (const float *)m->in + lo;
            for (int64_t i = 0; i < hi - lo; i++) keys[i] = float_key(in[i]) ^ flip;
        } else {
            for (int64_t i = lo; i < hi; i++)
                keys[i - lo] = float_key(*(const float *)(m->in + i * c->in_stride)) ^ flip;
        }
        return;
    }
    uint64_t loaded[SCATTER_BLOCK];
    npusim_load(c->kind, loaded, m->in + lo * c->in_stride, c->in_stride, c->in_dtype, (size_t)(hi - lo));
    make_keys32(c, loaded, keys, hi - lo);
}

/* An item: the key above the element's index in the line. */
#define MSD_STORE(m, slot, key, index) ((m)->items[slot] = (uint64_t)(key) << 32 | (uint64_t)(index))
DEFINE_BUCKET_SCATTER(msd, msd32, keys_of, MSD_STORE)

/* A bucket's items sorted by their key bits below the top SCATTER_BITS. */
DEFINE_BUCKET_SORT(bucket_sort, uint64_t, 32)

/* The value whose key is `key`, for the dtypes whose keys make_keys32 / keys_of build losslessly
 * (all but float16 and bfloat16; floats' folded zeros and NaNs are handled by the caller). */
static uint32_t value_of_key(const sort_ctx *c, uint32_t key)
{
    if (c->descending) key = ~key;
    if (c->kind == KIND_F64) return float_of_key(key);
    bool is_unsigned = c->in_dtype == ACL_UINT8 || c->in_dtype == ACL_UINT16 || c->in_dtype == ACL_UINT32;
    return is_unsigned ? key : key ^ (1u << 31);
}

/* write_bucket for contiguous float32 values and indices: a loop without branches, which
 * vectorises; then the zeros' and NaNs' values, whose keys fold several bit patterns, again from
 * the input (only buckets holding such keys are revisited). */
static void write_float_bucket(const msd32 *m, const uint64_t *items, int64_t lo, int64_t n)
{
    const sort_ctx *c = m->c;
    uint32_t flip = c->descending ? UINT32_MAX : 0, *values = (uint32_t *)m->values + lo;
    int64_t *indices = (int64_t *)m->indices + lo;
    bool folded = false;
    for (int64_t i = 0; i < n; i++) {
        uint64_t item = items[i];
        uint32_t key = (uint32_t)(item >> 32) ^ flip;
        folded |= key == FLOAT_KEY_ZERO || key == FLOAT_KEY_NAN;
        if (c->with_values) values[i] = float_of_key(key);
        indices[i] = (int64_t)(uint32_t)item;
    }
    if (!folded || !c->with_values) return;
    uint32_t zero = float_of_key(FLOAT_KEY_ZERO), nan = float_of_key(FLOAT_KEY_NAN);
    for (int64_t i = 0; i < n; i++)
        if (values[i] == zero || values[i] == nan) memcpy(&values[i], m->in + indices[i] * c->in_stride, 4);
}

/* Indices and values of the sorted items of positions [lo, lo + n) of the line; items may be the
 * indices' own memory, each item read before its index overwrites it. */
static void write_bucket(const msd32 *m, const uint64_t *items, int64_t lo, int64_t n)
{
    const sort_ctx *c = m->c;
    if (c->in_dtype == ACL_FLOAT && c->values_stride == 4 && c->indices_stride == 8) {
        write_float_bucket(m, items, lo, n);
        return;
    }
    bool from_input = c->in_dtype == ACL_FLOAT16 || c->in_dtype == ACL_BF16, is_float = c->kind == KIND_F64;
    uint32_t zero = c->descending ? ~FLOAT_KEY_ZERO : FLOAT_KEY_ZERO;
    uint32_t nan = c->descending ? ~FLOAT_KEY_NAN : FLOAT_KEY_NAN;
    for (int64_t i = 0; i < n; i++) {
        uint64_t item = items[i];
        uint32_t key = (uint32_t)(item >> 32), at = (uint32_t)item;
        if (c->with_values) {
            char *to = m->values + (lo + i) * c->values_stride;
            if (from_input || (is_float && (key == zero || key == nan))) {
                memcpy(to, m->in + (int64_t)at * c->in_stride, c->item_size);
            } else {
                uint32_t v = value_of_key(c, key);
                switch (c->item_size) {
                case 1: *(uint8_t *)to = (uint8_t)v; break;
                case 2: *(uint16_t *)to = (uint16_t)v; break;
                default: *(uint32_t *)to = v; break;
                }
            }
        }
        *(int64_t *)(m->indices + (lo + i) * c->indices_stride) = at;
    }
}

/* Whether bucket b starts in task t's element range [t, t + 1) * n / MSD_TASKS (and is not empty). */
static bool task_has_bucket(const msd32 *m, size_t t, int b)
{
    int64_t start = m->bucket_start[b];
    return start < m->bucket_start[b + 1] && start >= m->n * (int64_t)t / MSD_TASKS &&
           start < m->n * (int64_t)(t + 1) / MSD_TASKS;
}

/* Sorts and writes the buckets of tasks [begin, end) through one scratch the size of their
 * largest bucket, which stays in cache from bucket to bucket. */
static void msd_buckets(size_t begin, size_t end, void *vctx)
{
    msd32 *m = vctx;
    int64_t longest = 0;
    for (size_t t = begin; t < end; t++)
        for (int b = 0; b < SCATTER_BUCKETS; b++)
            if (task_has_bucket(m, t, b) && m->bucket_start[b + 1] - m->bucket_start[b] > longest)
                longest = m->bucket_start[b + 1] - m->bucket_start[b];
    uint64_t *aux = malloc(sizeof(uint64_t) * (size_t)(longest > 0 ? longest : 1));
    if (!aux) {
        atomic_store(&((sort_ctx *)m->c)->failed, 1);
        return;
    }
    for (size_t t = begin; t < end; t++)
        for (int b = 0; b < SCATTER_BUCKETS; b++) {
            if (!task_has_bucket(m, t, b)) continue;
            int64_t start = m->bucket_start[b], len = m->bucket_start[b + 1] - start;
            bucket_sort(m->items + start, aux, len, SCATTER_SHIFT);
            write_bucket(m, m->items + start, start, len);
        }
    free(aux);
}

static void sort_long32(const sort_ctx *c, const char *in, char *values, char *indices, uint64_t *scratch)
{
    int64_t n = c->length;
    msd32 *m = malloc(sizeof *m);
    uint32_t(*offsets)[SCATTER_BUCKETS] = malloc(sizeof(uint32_t) * SCATTER_CHUNKS * SCATTER_BUCKETS);
    if (!m || !offsets) {
        free(m);
        free(offsets);
        atomic_store(&((sort_ctx *)c)->failed, 1);
        return;
    }
    *m = (msd32){ .c = c, .in = in, .values = values, .indices = indices, .items = scratch,
                  .n = n, .chunk = (n + SCATTER_CHUNKS - 1) / SCATTER_CHUNKS, .offsets = offsets };
    npusim_parallel_for(SCATTER_CHUNKS, 1, msd_count, m);
    bucket_offsets(offsets, m->bucket_start, n);
    npusim_parallel_for(SCATTER_CHUNKS, 1, msd_scatter, m);
    npusim_parallel_for(MSD_TASKS, 1, msd_buckets, m);
    free(offsets);
    free(m);
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
    bool narrow = c->item_size <= 4 && n <= (int64_t)UINT32_MAX, long_line = narrow && n >= MSD_MIN;
    if (long_line && c->indices_stride == (int64_t)sizeof(int64_t)) {
        sort_long32(c, in, values, indices, (uint64_t *)indices); /* the items in the indices' place */
        return;
    }
    /* loaded values (8 bytes each), then keys, tmp keys, idx, tmp idx (8 bytes each, or 4 on the
     * narrow path); a long narrow line: its items, 8 bytes each */
    uint64_t *loaded = scratch_alloc(sizeof(uint64_t) * (size_t)n * (long_line ? 1 : narrow ? 3 : 5));
    if (!loaded) {
        atomic_store(&c->failed, 1);
        return;
    }
    if (long_line) {
        sort_long32(c, in, values, indices, loaded);
    } else if (narrow) {
        sort_short32(c, in, values, indices, loaded);
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
