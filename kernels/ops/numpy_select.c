/* Selection operators behind NumPy's order statistics (numpy.median, percentile,
 * quantile, partition): aclnnKthvalue, the k-th smallest element (k from 1, as torch.kthvalue,
 * which it backs in torch_npu) of every line of self along dim, with its INT64 index.
 *
 * dtypes: self / valuesOut BFLOAT16, FLOAT16, FLOAT, INT8, INT16, INT32, INT64, UINT8 (Atlas A2 /
 * A3 column of the dtype table in CANN's aclnnKthvalue.md, hicann/ops-nn
 * index/kth_value/docs/aclnnKthvalue.md); indicesOut INT64. Others fail with
 * ACLNN_ERR_PARAM_INVALID, as on the NPU: there is no DOUBLE.
 *
 * NaN counts as the largest value and -0.0 equals +0.0 (the order of aclnnSort). Each element
 * has an unsigned key that orders like the values; the index is the first element holding the
 * k-th key, and the value is copied from self there, keeping its bits. Short lines are loaded as
 * 64-bit keys and a quickselect (median of three, Hoare partition) finds the k-th key; lines are
 * processed in parallel. A long line is split across the CPU pool: a sample of it gives a
 * bracket of keys that holds the k-th with high probability, and one pass counts the keys below
 * the bracket and gathers those inside it (in line order), among which quickselect finishes. When
 * the bracket misses (or holds too many equal keys) a radix select runs instead: each pass counts
 * one 11-bit digit of the keys (from the most significant) among the elements whose higher digits
 * match those found so far, which fixes the next digit of the k-th key, until the matching
 * elements are few enough to gather. No pass writes the line, and a pass reads it once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_kthvalue.h"
#include "ew_ops.h"


typedef struct {
    bool floating;
    aclDataType in_dtype;
    size_t item_size;
    int64_t length, k;
    int64_t in_stride, values_stride, indices_stride; /* bytes along the dim */
    atomic_int failed;
} select_ctx;

/* Unsigned keys in the order of the values: floats by their IEEE bits with the sign folded (NaN
 * largest, -0.0 as +0.0), signed integers with the sign bit flipped. */
static uint64_t order_key(bool floating, uint64_t bits)
{
    if (!floating) return bits ^ (1ull << 63);
    double d;
    memcpy(&d, &bits, sizeof d);
    if (d != d) return UINT64_MAX;
    if (d == 0) d = 0.0;
    memcpy(&bits, &d, sizeof bits);
    return bits >> 63 ? ~bits : bits | (1ull << 63);
}

static void swap(uint64_t *a, uint64_t *b)
{
    uint64_t t = *a;
    *a = *b;
    *b = t;
}

/* The key of rank k (from 0) among keys[0, n), which it rearranges. */
static uint64_t quickselect(uint64_t *keys, int64_t n, int64_t k)
{
    int64_t low = 0, high = n - 1;
    while (high > low) {
        int64_t mid = low + (high - low) / 2;
        if (keys[mid] < keys[low]) swap(&keys[mid], &keys[low]);
        if (keys[high] < keys[low]) swap(&keys[high], &keys[low]);
        if (keys[high] < keys[mid]) swap(&keys[high], &keys[mid]);
        uint64_t pivot = keys[mid];
        int64_t i = low, j = high;
        while (i <= j) {
            while (keys[i] < pivot) i++;
            while (keys[j] > pivot) j--;
            if (i <= j) swap(&keys[i++], &keys[j--]);
        }
        if (k <= j) high = j;
        else if (k >= i) low = i;
        else break;
    }
    return keys[k];
}

/* ---------------------------------------------------------------------------------------------
 * Radix select of a long line */

#define RADIX_MIN (1 << 16)   /* lines at least this long: radix select */
#define RADIX_CHUNKS 16       /* fixed chunks of the line, each counted by one pool task */
#define DIGIT_BITS 11
#define DIGITS (1 << DIGIT_BITS)
#define BLOCK 512             /* keys computed at a time, on the stack */

/* Bits of the key of each dtype: the element's own width. */
static int key_width(aclDataType dt)
{
    switch (dt) {
    case ACL_INT64: return 64;
    case ACL_FLOAT:
    case ACL_INT32: return 32;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16: return 16;
    default: return 8;
    }
}

/* IEEE bits `u` of `width` bits (sign bit `sign`, exponent all ones from `inf`) as a key: NaN the
 * largest, both zeros the key of +0.0, negatives complemented. */
static inline uint64_t float_key(uint64_t u, uint64_t sign, uint64_t inf, uint64_t ones)
{
    uint64_t magnitude = u & (sign - 1), key = u & sign ? ~u & ones : u | sign; /* selects: vectorised */
    key = magnitude == 0 ? sign : key;
    return magnitude > inf ? ones : key;
}

/* A contiguous line is read as an array (a loop the compiler vectorises), a strided one element
 * by element. */
#define LOAD_KEYS(T, EXPR)                                                                     \
    if (s == (int64_t)sizeof(T)) {                                                             \
        const T *q = (const T *)(const void *)p;                                               \
        for (int64_t i = 0; i < n; i++) {                                                      \
            T v = q[i];                                                                        \
            out[i] = (EXPR);                                                                   \
        }                                                                                      \
    } else {                                                                                   \
        for (int64_t i = 0; i < n; i++) {                                                      \
            T v;                                                                               \
            memcpy(&v, p + i * s, sizeof v);                                                   \
            out[i] = (EXPR);                                                                   \
        }                                                                                      \
    }                                                                                          \
    break

/* The keys of the line's elements [lo, lo + n) into out. */
static void load_block(const select_ctx *c, const char *in, int64_t lo, int64_t n, uint64_t *out)
{
    const char *p = in + lo * c->in_stride;
    int64_t s = c->in_stride;
    switch (c->in_dtype) {
    case ACL_FLOAT: LOAD_KEYS(uint32_t, float_key(v, 1ull << 31, 0x7f800000u, 0xffffffffu));
    case ACL_FLOAT16: LOAD_KEYS(uint16_t, float_key(v, 1u << 15, 0x7c00u, 0xffffu));
    case ACL_BF16: LOAD_KEYS(uint16_t, float_key(v, 1u << 15, 0x7f80u, 0xffffu));
    case ACL_INT64: LOAD_KEYS(uint64_t, v ^ (1ull << 63));
    case ACL_INT32: LOAD_KEYS(uint32_t, (uint32_t)(v ^ (1u << 31)));
    case ACL_INT16: LOAD_KEYS(uint16_t, (uint16_t)(v ^ (1u << 15)));
    case ACL_INT8: LOAD_KEYS(uint8_t, (uint8_t)(v ^ 0x80u));
    default: LOAD_KEYS(uint8_t, v); /* UINT8 */
    }
}

/* One pass over the line. The elements that match are those whose key, shifted right by
 * `shift`, equals `prefix` (all of them when `all`). */
typedef struct {
    const select_ctx *c;
    const char *in;
    int64_t chunk;
    bool all;
    int shift, digit_shift;
    uint64_t prefix, mask;
    int64_t (*counts)[DIGITS]; /* count: per chunk digit counts; gather: [c][0] the chunk's offset */
    uint64_t *keys;            /* gather: the matching keys, in line order */
    int64_t *index;            /* gather: their indices; first: [c] the chunk's first match */
} radix_pass;

static bool matches(const radix_pass *p, uint64_t key)
{
    return p->all || key >> p->shift == p->prefix;
}

static void chunk_bounds(const radix_pass *p, size_t c, int64_t *lo, int64_t *hi)
{
    *lo = (int64_t)c * p->chunk;
    *hi = *lo + p->chunk < p->c->length ? *lo + p->chunk : p->c->length;
}

static void count_digits(size_t begin, size_t end, void *vctx)
{
    const radix_pass *p = vctx;
    uint64_t keys[BLOCK];
    for (size_t c = begin; c < end; c++) {
        int64_t *count = p->counts[c], lo, hi;
        memset(count, 0, sizeof(int64_t) * DIGITS);
        chunk_bounds(p, c, &lo, &hi);
        for (int64_t at = lo; at < hi; at += BLOCK) {
            int64_t n = hi - at < BLOCK ? hi - at : BLOCK;
            load_block(p->c, p->in, at, n, keys);
            if (p->all) {
                for (int64_t i = 0; i < n; i++) count[(keys[i] >> p->digit_shift) & p->mask]++;
            } else {
                for (int64_t i = 0; i < n; i++)
                    if (keys[i] >> p->shift == p->prefix) count[(keys[i] >> p->digit_shift) & p->mask]++;
            }
        }
    }
}

static void gather_matches(size_t begin, size_t end, void *vctx)
{
    const radix_pass *p = vctx;
    uint64_t keys[BLOCK];
    for (size_t c = begin; c < end; c++) {
        int64_t to = p->counts[c][0], lo, hi;
        chunk_bounds(p, c, &lo, &hi);
        for (int64_t at = lo; at < hi; at += BLOCK) {
            int64_t n = hi - at < BLOCK ? hi - at : BLOCK;
            load_block(p->c, p->in, at, n, keys);
            for (int64_t i = 0; i < n; i++)
                if (matches(p, keys[i])) {
                    p->keys[to] = keys[i];
                    p->index[to++] = at + i;
                }
        }
    }
}

static void first_match(size_t begin, size_t end, void *vctx)
{
    const radix_pass *p = vctx;
    uint64_t keys[BLOCK];
    for (size_t c = begin; c < end; c++) {
        int64_t lo, hi, found = -1;
        chunk_bounds(p, c, &lo, &hi);
        for (int64_t at = lo; at < hi && found < 0; at += BLOCK) {
            int64_t n = hi - at < BLOCK ? hi - at : BLOCK;
            load_block(p->c, p->in, at, n, keys);
            for (int64_t i = 0; i < n && found < 0; i++)
                if (keys[i] == p->prefix) found = at + i;
        }
        p->index[c] = found;
    }
}

/* The rank-th key among the `total` matching elements of pass p (gathered, then quickselect) and
 * the index of the first element holding it; -1 when out of host memory. */
static int64_t select_gathered(radix_pass *p, int64_t total, int64_t rank)
{
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)total * 2);
    int64_t *index = malloc(sizeof(int64_t) * (size_t)total);
    int64_t found = -1;
    if (keys && index) {
        int64_t offset = 0;
        for (int c = 0; c < RADIX_CHUNKS; c++) {
            int64_t count = p->counts[c][0];
            p->counts[c][0] = offset;
            offset += count;
        }
        p->keys = keys;
        p->index = index;
        npusim_parallel_for(RADIX_CHUNKS, 1, gather_matches, p);
        memcpy(keys + total, keys, sizeof(uint64_t) * (size_t)total);
        uint64_t wanted = quickselect(keys + total, total, rank);
        for (found = 0; keys[found] != wanted; found++) {}
        found = index[found];
    }
    free(keys);
    free(index);
    return found;
}

/* ---------------------------------------------------------------------------------------------
 * Bracketed select: one pass when a sample predicts where the k-th key lies */

#define SAMPLE_SIZE 32768

typedef struct {
    const select_ctx *c;
    const char *in;
    int64_t chunk, capacity;   /* elements per chunk; candidates each chunk may keep */
    uint64_t low, high;        /* the bracket of keys */
    uint64_t *keys;            /* [RADIX_CHUNKS][capacity + 1] candidates, in line order */
    int64_t *index;
    int64_t below[RADIX_CHUNKS], found[RADIX_CHUNKS]; /* keys < low; keys in [low, high] */
} bracket_pass;

/* bracket_chunk for a contiguous FLOAT line: 32-bit keys, each block keyed and counted by a loop
 * the compiler vectorises, then searched for its few keys inside the bracket. */
static void bracket_float32(bracket_pass *p, size_t c, int64_t lo, int64_t hi)
{
    const uint32_t *in = (const uint32_t *)(const void *)p->in;
    uint64_t high = p->high > UINT32_MAX ? UINT32_MAX : p->high; /* an open bracket: all ones */
    uint32_t keys[BLOCK], low = (uint32_t)p->low, width = (uint32_t)(high - p->low);
    int64_t below = 0, found = 0, cap = p->capacity;
    uint64_t *out_keys = p->keys + (int64_t)c * (cap + 1);
    int64_t *out_index = p->index + (int64_t)c * (cap + 1);
    for (int64_t at = lo; at < hi; at += BLOCK) {
        int64_t n = hi - at < BLOCK ? hi - at : BLOCK;
        uint32_t inside = 0, under = 0;
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = in[at + i], magnitude = u & 0x7fffffffu;
            uint32_t key = u ^ ((uint32_t)((int32_t)u >> 31) | 0x80000000u); /* negatives complemented */
            key = magnitude == 0 ? 0x80000000u : key;
            key = magnitude > 0x7f800000u ? 0xffffffffu : key;
            keys[i] = key;
            under += key < low;
            inside += key - low <= width;
        }
        below += under;
        for (int64_t i = 0; inside && i < n; i++)
            if (keys[i] - low <= width) {
                if (found < cap) {
                    out_keys[found] = keys[i];
                    out_index[found] = at + i;
                }
                found++;
                inside--;
            }
    }
    p->below[c] = below;
    p->found[c] = found;
}

static void bracket_chunk(size_t begin, size_t end, void *vctx)
{
    bracket_pass *p = vctx;
    uint64_t keys[BLOCK];
    for (size_t c = begin; c < end; c++) {
        if (p->c->in_dtype == ACL_FLOAT && p->c->in_stride == 4) {
            int64_t lo = (int64_t)c * p->chunk, hi = lo + p->chunk < p->c->length ? lo + p->chunk : p->c->length;
            bracket_float32(p, c, lo, hi);
            continue;
        }
        int64_t lo = (int64_t)c * p->chunk, hi = lo + p->chunk < p->c->length ? lo + p->chunk : p->c->length;
        int64_t below = 0, found = 0, cap = p->capacity;
        uint64_t *out_keys = p->keys + (int64_t)c * (cap + 1), low = p->low, width = p->high - p->low;
        int64_t *out_index = p->index + (int64_t)c * (cap + 1);
        for (int64_t at = lo; at < hi; at += BLOCK) {
            int64_t n = hi - at < BLOCK ? hi - at : BLOCK;
            load_block(p->c, p->in, at, n, keys);
            /* Branch-free: every key is written at the next free slot (the spare last slot once
             * the chunk's capacity is reached), which advances only for keys inside. */
            for (int64_t i = 0; i < n; i++) {
                uint64_t key = keys[i];
                int64_t slot = found < cap ? found : cap;
                below += key < low;
                out_keys[slot] = key;
                out_index[slot] = at + i;
                found += key - low <= width;
            }
        }
        p->below[c] = below;
        p->found[c] = found;
    }
}

/* The bracket [low, high] of keys around rank k from a sample of the line (its two ranks selected,
 * not sorted): wide enough
 * (3.5 standard deviations of the sample rank) that it misses rarely; false when too few
 * elements to sample or no memory. `expected`: the elements it should hold. */
static bool sample_bracket(const select_ctx *c, const char *in, uint64_t *low, uint64_t *high, int64_t *expected)
{
    int64_t n = c->length, step = n / SAMPLE_SIZE;
    uint64_t *sample = malloc(sizeof(uint64_t) * SAMPLE_SIZE);
    if (!sample || step < 2) {
        free(sample);
        return false;
    }
    for (int64_t j = 0; j < SAMPLE_SIZE; j++) load_block(c, in, j * step + step / 2, 1, &sample[j]);
    double fraction = (double)(c->k - 1) / (double)n, position = fraction * SAMPLE_SIZE;
    double margin = 3.5 * sqrt(SAMPLE_SIZE * fraction * (1 - fraction)) + 8;
    int64_t first = (int64_t)floor(position - margin), last = (int64_t)ceil(position + margin);
    *low = first < 0 ? 0 : quickselect(sample, SAMPLE_SIZE, first);
    *high = last >= SAMPLE_SIZE ? UINT64_MAX : quickselect(sample, SAMPLE_SIZE, last);
    if (first < 0) first = 0;
    if (last >= SAMPLE_SIZE) last = SAMPLE_SIZE - 1;
    *expected = (last - first + 1) * step;
    free(sample);
    return true;
}

/* The index of the first element holding the k-th key, by one pass counting the keys below a
 * sampled bracket and keeping those inside it; -2 when the bracket missed rank k or held too
 * many keys (many equal values), -1 when out of host memory. */
static int64_t bracket_select(const select_ctx *c, const char *in)
{
    bracket_pass p = { .c = c, .in = in, .chunk = (c->length + RADIX_CHUNKS - 1) / RADIX_CHUNKS };
    int64_t expected;
    if (!sample_bracket(c, in, &p.low, &p.high, &expected)) return -2;
    p.capacity = 2 * expected / RADIX_CHUNKS + 1024;
    p.keys = malloc(sizeof(uint64_t) * (size_t)((p.capacity + 1) * RADIX_CHUNKS));
    p.index = malloc(sizeof(int64_t) * (size_t)((p.capacity + 1) * RADIX_CHUNKS));
    int64_t result = -1;
    if (p.keys && p.index) {
        npusim_parallel_for(RADIX_CHUNKS, 1, bracket_chunk, &p);
        int64_t below = 0, total = 0, rank = c->k - 1;
        bool overflow = false;
        for (int ch = 0; ch < RADIX_CHUNKS; ch++) {
            below += p.below[ch];
            overflow |= p.found[ch] > p.capacity;
        }
        result = -2;
        if (!overflow && rank >= below) {
            for (int ch = 0; ch < RADIX_CHUNKS; ch++) { /* the candidates, packed in line order */
                memmove(p.keys + total, p.keys + ch * (p.capacity + 1), sizeof(uint64_t) * (size_t)p.found[ch]);
                memmove(p.index + total, p.index + ch * (p.capacity + 1), sizeof(int64_t) * (size_t)p.found[ch]);
                total += p.found[ch];
            }
        }
        if (!overflow && rank >= below && rank < below + total) {
            uint64_t *scratch = malloc(sizeof(uint64_t) * (size_t)total);
            result = -1;
            if (scratch) {
                memcpy(scratch, p.keys, sizeof(uint64_t) * (size_t)total);
                uint64_t wanted = quickselect(scratch, total, rank - below);
                int64_t at = 0;
                while (p.keys[at] != wanted) at++;
                result = p.index[at];
                free(scratch);
            }
        }
    }
    free(p.keys);
    free(p.index);
    return result;
}

/* The index of the first element holding the k-th key of a long line; -1 when out of host memory. */
static int64_t radix_select(const select_ctx *c, const char *in)
{
    int64_t(*counts)[DIGITS] = malloc(sizeof(int64_t) * RADIX_CHUNKS * DIGITS);
    if (!counts) return -1;
    int width = key_width(c->in_dtype);
    int64_t rank = c->k - 1, gather_max = c->length / 16 + 4096, found = -1;
    radix_pass p = { .c = c, .in = in, .chunk = (c->length + RADIX_CHUNKS - 1) / RADIX_CHUNKS, .all = true,
                     .shift = width, .counts = counts };
    for (;;) {
        int bits = p.shift < DIGIT_BITS ? p.shift : DIGIT_BITS;
        p.digit_shift = p.shift - bits;
        p.mask = (1ull << bits) - 1;
        npusim_parallel_for(RADIX_CHUNKS, 1, count_digits, &p);
        int64_t digit = 0, total = 0;
        for (;; digit++) { /* the digit whose elements hold the rank */
            total = 0;
            for (int ch = 0; ch < RADIX_CHUNKS; ch++) total += counts[ch][digit];
            if (rank < total) break;
            rank -= total;
        }
        p.prefix = p.prefix << bits | (uint64_t)digit;
        p.shift = p.digit_shift;
        p.all = false;
        if (p.shift == 0) { /* every digit known: the key itself */
            int64_t firsts[RADIX_CHUNKS];
            p.index = firsts;
            npusim_parallel_for(RADIX_CHUNKS, 1, first_match, &p);
            for (int ch = 0; ch < RADIX_CHUNKS && found < 0; ch++) found = firsts[ch];
            break;
        }
        if (total <= gather_max) {
            for (int ch = 0; ch < RADIX_CHUNKS; ch++) counts[ch][0] = counts[ch][digit];
            found = select_gathered(&p, total, rank);
            break;
        }
    }
    free(counts);
    return found;
}

static void load_keys(const select_ctx *c, uint64_t *keys, const char *in)
{
    npusim_load(c->floating ? KIND_F64 : KIND_I64, keys, in, c->in_stride, c->in_dtype, (size_t)c->length);
    for (int64_t i = 0; i < c->length; i++) keys[i] = order_key(c->floating, keys[i]);
}

static void select_line(select_ctx *c, const char *in, char *value, char *index)
{
    int64_t n = c->length;
    if (n >= RADIX_MIN) {
        int64_t found = bracket_select(c, in);
        if (found == -2) found = radix_select(c, in);
        if (found < 0) {
            atomic_store(&c->failed, 1);
            return;
        }
        memcpy(value, in + found * c->in_stride, c->item_size);
        *(int64_t *)index = found;
        return;
    }
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)n);
    if (!keys) {
        atomic_store(&c->failed, 1);
        return;
    }
    load_keys(c, keys, in);
    uint64_t wanted = quickselect(keys, n, c->k - 1);
    load_keys(c, keys, in); /* the original order again, to find the first element with that key */
    int64_t found = 0;
    while (keys[found] != wanted) found++;
    memcpy(value, in + found * c->in_stride, c->item_size);
    *(int64_t *)index = found;
    free(keys);
}

/* Operands: 0 indicesOut, 1 self, 2 valuesOut, all at index 0 of the dim. */
static void select_run(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    select_ctx *c = vctx;
    for (size_t i = 0; i < n; i++)
        select_line(c, ptrs[1] + (int64_t)i * strides[1], ptrs[2] + (int64_t)i * strides[2],
                    ptrs[0] + (int64_t)i * strides[0]);
}

/* The output view with the dim restored as a length-1 axis (keepdim=false removed it). */
static npusim_view with_dim(npusim_view v, int ndim, int d, bool keepdim)
{
    if (keepdim || ndim == 0) return v;
    for (int i = ndim - 1; i > d; i--) {
        v.shape[i] = v.shape[i - 1];
        v.strides[i] = v.strides[i - 1];
    }
    v.shape[d] = 1;
    v.strides[d] = 0;
    v.ndim = ndim;
    return v;
}

/* views: self, valuesOut, indicesOut. */
static int kthvalue_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view self = views[0];
    int d = (int)ex->dim;
    npusim_view values = with_dim(views[1], self.ndim, d, ex->flag);
    npusim_view indices = with_dim(views[2], self.ndim, d, ex->flag);
    select_ctx c;
    memset(&c, 0, sizeof c);
    c.floating = npusim_is_float(self.dtype);
    c.in_dtype = self.dtype;
    c.item_size = npusim_dtype_size(self.dtype);
    c.k = ex->dims[0];
    c.length = 1;
    if (self.ndim > 0) {
        c.length = self.shape[d];
        c.in_stride = self.strides[d] * (int64_t)c.item_size;
        self.shape[d] = values.shape[d] = indices.shape[d] = 1;
    }
    npusim_view *ops[3] = { &indices, &self, &values };
    npusim_nditer it;
    npusim_nditer_init(&it, self.ndim, self.shape, ops, 3);
    npusim_nditer_parallel(&it, select_run, &c);
    if (atomic_load(&c.failed))
        return npusim_error(ACLNN_ERR_INNER, "aclnnKthvalue: out of host memory for a line of %lld elements",
                            (long long)c.length);
    return 0;
}

static const npusim_opdef def_kthvalue = NPUSIM_OPDEF("aclnnKthvalue", kthvalue_kernel);

aclnnStatus aclnnKthvalueGetWorkspaceSize(const aclTensor *self, int64_t k, int64_t dim, bool keepdim,
                                          aclTensor *valuesOut, aclTensor *indicesOut, uint64_t *workspaceSize,
                                          aclOpExecutor **executor)
{
    const char *name = "aclnnKthvalue";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) ||
        (rc = npusim_check_tensor(name, "valuesOut", valuesOut)) ||
        (rc = npusim_check_tensor(name, "indicesOut", indicesOut)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnKthvalue_self)) ||
        (rc = npusim_check_dtype(name, "indicesOut", indicesOut->dtype, NPUSIM_DTYPES_aclnnKthvalue_indicesOut)))
        return rc;
    if (valuesOut->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnKthvalueGetWorkspaceSize: valuesOut has dtype %s, self "
                            "%s: they must match", npusim_dtype_name(valuesOut->dtype),
                            npusim_dtype_name(self->dtype));
    int bound = self->ndim > 0 ? self->ndim : 1;
    if (dim < -bound || dim >= bound)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnKthvalueGetWorkspaceSize: dim %lld is out of range for "
                            "a %d-D self", (long long)dim, self->ndim);
    if (dim < 0) dim += bound;
    int64_t length = self->ndim > 0 ? self->shape[dim] : 1;
    if (k < 1 || k > length)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnKthvalueGetWorkspaceSize: k = %lld is out of range [1, "
                            "%lld] for dim %lld", (long long)k, (long long)length, (long long)dim);
    int64_t shape[NPUSIM_MAX_DIMS];
    int ndim = 0;
    for (int i = 0; i < self->ndim; i++) {
        if (i != dim) shape[ndim++] = self->shape[i];
        else if (keepdim) shape[ndim++] = 1;
    }
    if ((rc = npusim_check_shape_equal(name, "valuesOut", valuesOut, ndim, shape)) ||
        (rc = npusim_check_shape_equal(name, "indicesOut", indicesOut, ndim, shape)))
        return rc;
    const aclTensor *outs[2] = { valuesOut, indicesOut };
    npusim_exec *ex = npusim_exec_create(&def_kthvalue, &self, 1, outs, 2);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->dim = dim;
    ex->flag = keepdim;
    ex->dims[0] = k; /* the rank to select, from 1 */
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnKthvalue(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnKthvalue", workspace, workspaceSize, executor, stream);
}
