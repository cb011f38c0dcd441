/* Set aclnn operators (docs/acl-abi.md §7.2 "Sorting, searching, selection, indexing"): aclnnUnique2 and
 * aclnnIsInTensorScalar.
 *
 * aclnnUnique2(self, sorted, returnInverse, returnCounts, valueOut, inverseOut, countsOut) gives
 * the distinct values of the flattened self. valueOut and countsOut are allocated with numel(self)
 * elements; the kernel sets their view shapes to the number of distinct values (read back with
 * aclGetViewShape after synchronising), as hicann/ops-nn
 * index/unique_consecutive/docs/aclnnUnique2.md describes. inverseOut has self's shape.
 *
 * npusim always returns the values in ascending order (one of the orders `sorted=false` allows).
 * Equality is value equality: -0.0 equals 0.0 (the value kept is the first occurrence's), and
 * NaN equals nothing, so every NaN is a distinct value of its own, placed last (NaN sorts as the
 * largest value, as in aclnnSort). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_isin_tensor_scalar.h"
#include "aclnnop/aclnn_unique2.h"
#include "ew_ops.h"
#include "sort_keys.h"


/* Sort keys: unsigned integers whose order is the value order. A NaN gets the largest key (all
 * ones, which no other value reaches), -0.0 the key of 0.0. */
#define NAN_KEY UINT64_MAX

static uint64_t order_key(npusim_kind kind, uint64_t raw)
{
    if (kind == KIND_U64) return raw;
    if (kind == KIND_I64) return raw ^ (1ull << 63);
    double d;
    memcpy(&d, &raw, sizeof d);
    if (d != d) return NAN_KEY;
    if (d == 0) return 1ull << 63; /* both zeros */
    return raw >> 63 ? ~raw : raw | (1ull << 63);
}

/* The address of element i (C order) of view v. */
static const char *element_at(const npusim_view *v, int64_t i, size_t isz)
{
    const char *p = v->base;
    for (int d = v->ndim - 1; d >= 0; d--) {
        int64_t n = v->shape[d];
        p += (i % n) * v->strides[d] * (int64_t)isz;
        i /= n;
    }
    return p;
}

/* The order keys of self's elements in C order, loaded row by row along the last dim. */
static void load_keys(const npusim_view *self, npusim_kind kind, int64_t n, uint64_t *keys)
{
    size_t isz = npusim_dtype_size(self->dtype);
    int last = self->ndim - 1;
    int64_t row = self->shape[last], stride = self->strides[last] * (int64_t)isz;
    for (int64_t start = 0; start < n; start += row)
        npusim_load(kind, keys + start, element_at(self, start, isz), stride, self->dtype, (size_t)row);
    for (int64_t i = 0; i < n; i++) keys[i] = order_key(kind, keys[i]);
}

/* Stable LSD radix sort of (keys, index) by key, RADIX_BITS at a time (few enough buckets to stay
 * in cache); digits that every key shares are skipped. The result is in keys/index
 * (tmp_keys/tmp_index are scratch of the same size). */
#define RADIX_BITS 11
#define RADIX_SIZE (1 << RADIX_BITS)
static void radix_sort(uint64_t *keys, int64_t *index, uint64_t *tmp_keys, int64_t *tmp_index, int64_t n,
                       int64_t *count)
{
    const uint64_t mask = RADIX_SIZE - 1;
    for (int shift = 0; shift < 64; shift += RADIX_BITS) {
        memset(count, 0, sizeof *count * RADIX_SIZE);
        for (int64_t i = 0; i < n; i++) count[(keys[i] >> shift) & mask]++;
        if (count[(keys[0] >> shift) & mask] == n) continue;
        int64_t sum = 0;
        for (int d = 0; d < RADIX_SIZE; d++) {
            int64_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t at = count[(keys[i] >> shift) & mask]++;
            tmp_keys[at] = keys[i];
            tmp_index[at] = index[i];
        }
        memcpy(keys, tmp_keys, sizeof *keys * (size_t)n);
        memcpy(index, tmp_index, sizeof *index * (size_t)n);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Without inverse indices, a 1-D self is counted by hashing the elements' bits: each of
 * HASH_CHUNKS chunks of the line fills its own table of (bits, count) on the CPU pool, the
 * tables are merged, and only the distinct values are sorted. Bits identify values except the
 * two zeros (merged after the sort, keeping the sign of the first zero of self) and NaNs
 * (distinct each: counted aside, then written last in their order). Past HASH_DISTINCT_MAX
 * distinct values (HASH_BEFORE_SORTING for 4-byte dtypes, which unique_by_sorting takes), or one
 * per 16 elements, sorting every element is faster: the kernel falls back to it. */
#define HASH_CHUNKS 4
#define HASH_DISTINCT_MAX (1 << 20)
#define HASH_BEFORE_SORTING (1 << 19) /* past it, sorting keys (unique_by_sorting) is faster */
#define HASH_BLOCK 2048
#define PREFETCH_AHEAD 16

typedef struct {
    uint64_t bits;
    int64_t count; /* 0: an empty slot */
} hash_entry;

/* Elements of at most 4 bytes are counted in packed slots, bits << 32 | count (0: empty): half
 * the table, so twice the distinct values in the cache. The counts fit: self has < 2^32 elements. */
typedef struct {
    hash_entry *slots; /* or */
    uint64_t *packed;
    int64_t size, used, limit; /* limit: the distinct values it may hold */
    int shift;                 /* 64 - log2(size) */
} hash_table;

static bool table_alloc(hash_table *t, int64_t size, bool packed, int64_t limit)
{
    t->limit = limit;
    t->slots = packed ? NULL : calloc((size_t)size, sizeof *t->slots);
    t->packed = packed ? calloc((size_t)size, sizeof *t->packed) : NULL;
    t->size = size;
    t->used = 0;
    t->shift = 64 - __builtin_ctzll((unsigned long long)size);
    return t->slots || t->packed;
}

static uint64_t slot_bits(const hash_table *t, int64_t i)
{
    return t->packed ? t->packed[i] >> 32 : t->slots[i].bits;
}

static int64_t slot_count(const hash_table *t, int64_t i)
{
    return t->packed ? (int64_t)(t->packed[i] & 0xffffffffu) : t->slots[i].count;
}

/* The slot where the probe for `bits` starts: the top bits of a Fibonacci product, which every
 * bit of `bits` reaches (round floats share all their low bits). */
static uint64_t table_home(const hash_table *t, uint64_t bits)
{
    return (bits * 0x9e3779b97f4a7c15ull) >> t->shift;
}

static bool table_add(hash_table *t, uint64_t bits, uint64_t home, int64_t count);

/* Doubles the table; false when out of memory or past HASH_DISTINCT_MAX distinct values. */
static bool table_grow(hash_table *t)
{
    hash_table bigger;
    if (t->used >= t->limit || !table_alloc(&bigger, t->size * 2, t->packed != NULL, t->limit)) return false;
    for (int64_t i = 0; i < t->size; i++) {
        uint64_t bits = slot_bits(t, i);
        int64_t count = slot_count(t, i);
        if (count) table_add(&bigger, bits, table_home(&bigger, bits), count);
    }
    free(t->slots);
    free(t->packed);
    *t = bigger;
    return true;
}

/* Adds `count` occurrences of `bits` (whose probe starts at `home`); false when the table cannot
 * grow. */
static bool table_add(hash_table *t, uint64_t bits, uint64_t home, int64_t count)
{
    uint64_t mask = (uint64_t)t->size - 1, at = home;
    if (t->packed) {
        for (uint64_t word; (word = t->packed[at]) != 0; at = (at + 1) & mask)
            if (word >> 32 == bits) {
                t->packed[at] = word + (uint64_t)count;
                return true;
            }
    } else {
        for (; t->slots[at].count; at = (at + 1) & mask)
            if (t->slots[at].bits == bits) {
                t->slots[at].count += count;
                return true;
            }
    }
    if (4 * (t->used + 1) > 3 * t->size) return table_grow(t) && table_add(t, bits, table_home(t, bits), count);
    if (t->packed) t->packed[at] = bits << 32 | (uint64_t)count;
    else t->slots[at] = (hash_entry){ bits, count };
    t->used++;
    return true;
}

/* A floating dtype's sign bit and the bits of +inf: bits whose magnitude exceeds inf's are NaN. */
typedef struct {
    uint64_t sign, inf;
} float_layout;

static bool float_layout_of(aclDataType dt, float_layout *f)
{
    switch (dt) {
    case ACL_FLOAT: *f = (float_layout){ 1ull << 31, 0x7f800000u }; return true;
    case ACL_DOUBLE: *f = (float_layout){ 1ull << 63, 0x7ff0000000000000ull }; return true;
    case ACL_FLOAT16: *f = (float_layout){ 1u << 15, 0x7c00u }; return true;
    case ACL_BF16: *f = (float_layout){ 1u << 15, 0x7f80u }; return true;
    default: return false;
    }
}

/* The element's bits, zero-extended. */
static uint64_t load_bits(const char *p, size_t isz)
{
    uint8_t b1;
    uint16_t b2;
    uint32_t b4;
    uint64_t b8;
    switch (isz) {
    case 1: memcpy(&b1, p, 1); return b1;
    case 2: memcpy(&b2, p, 2); return b2;
    case 4: memcpy(&b4, p, 4); return b4;
    default: memcpy(&b8, p, 8); return b8;
    }
}

/* Sort key of an element's bits (NaN excluded): the order of the values, both zeros equal. */
static uint64_t bits_order(aclDataType dt, bool floating, const float_layout *f, uint64_t bits, size_t isz)
{
    uint64_t top = 1ull << (isz * 8 - 1);
    if (floating) {
        if ((bits & (f->sign - 1)) == 0) return f->sign;
        return bits & f->sign ? ~bits & (f->sign | (f->sign - 1)) : bits | f->sign;
    }
    bool is_signed = dt == ACL_INT8 || dt == ACL_INT16 || dt == ACL_INT32 || dt == ACL_INT64;
    return is_signed ? bits ^ top : bits;
}

typedef struct {
    const npusim_view *self;
    size_t isz;
    bool floating;
    float_layout layout;
    int64_t n, chunk, limit;
    hash_table tables[HASH_CHUNKS];
    int64_t nans[HASH_CHUNKS];
    atomic_int failed;
} hash_ctx;

/* Counts a block of bits: their home slots first, each prefetched some elements ahead of its
 * insertion (a table of many distinct values outgrows the cache). False when the table cannot
 * grow. */
static bool hash_block(hash_ctx *h, hash_table *t, const uint64_t *bits, uint64_t *homes, int64_t m, int64_t *nans)
{
    for (int64_t i = 0; i < m; i++) homes[i] = table_home(t, bits[i]);
    for (int64_t i = 0; i < m; i++) {
        if (i + PREFETCH_AHEAD < m)
            __builtin_prefetch(t->packed ? (const void *)&t->packed[homes[i + PREFETCH_AHEAD]]
                                         : (const void *)&t->slots[homes[i + PREFETCH_AHEAD]]);
        if (h->floating && (bits[i] & (h->layout.sign - 1)) > h->layout.inf) {
            (*nans)++;
            continue;
        }
        if (t->packed) { /* the common case inline: a value already counted */
            uint64_t mask = (uint64_t)t->size - 1, at = homes[i], word;
            while ((word = t->packed[at]) != 0 && word >> 32 != bits[i]) at = (at + 1) & mask;
            if (word) {
                t->packed[at] = word + 1;
                continue;
            }
        }
        int64_t size = t->size;
        if (!table_add(t, bits[i], homes[i], 1)) return false;
        if (t->size != size) /* grown: the homes moved */
            for (int64_t j = i + 1; j < m; j++) homes[j] = table_home(t, bits[j]);
    }
    return true;
}

#define LOAD_BLOCK(T)                                                                          \
    for (int64_t i = 0; i < m; i++) {                                                          \
        T v;                                                                                   \
        memcpy(&v, p + i * stride, sizeof v);                                                  \
        bits[i] = v;                                                                           \
    }                                                                                          \
    break

static void hash_chunk(size_t begin, size_t end, void *vctx)
{
    hash_ctx *h = vctx;
    int64_t stride = h->self->strides[0] * (int64_t)h->isz;
    uint64_t *bits = malloc(sizeof *bits * HASH_BLOCK * 2);
    for (size_t c = begin; c < end; c++) {
        hash_table *t = &h->tables[c];
        int64_t lo = (int64_t)c * h->chunk, hi = lo + h->chunk < h->n ? lo + h->chunk : h->n;
        if (!bits || !table_alloc(t, 4096, h->isz <= 4, h->limit)) {
            atomic_store(&h->failed, 1);
            continue;
        }
        for (int64_t at = lo; at < hi && !atomic_load(&h->failed); at += HASH_BLOCK) {
            int64_t m = hi - at < HASH_BLOCK ? hi - at : HASH_BLOCK;
            const char *p = h->self->base + at * stride;
            switch (h->isz) {
            case 1: LOAD_BLOCK(uint8_t);
            case 2: LOAD_BLOCK(uint16_t);
            case 4: LOAD_BLOCK(uint32_t);
            default: LOAD_BLOCK(uint64_t);
            }
            if (!hash_block(h, t, bits, bits + HASH_BLOCK, m, &h->nans[c])) atomic_store(&h->failed, 1);
        }
    }
    free(bits);
}

/* Merges the chunk tables into the first; false on failure. */
static bool merge_tables(hash_ctx *h, int64_t *nans)
{
    hash_table *all = &h->tables[0];
    *nans = h->nans[0];
    for (int c = 1; c < HASH_CHUNKS; c++) {
        const hash_table *t = &h->tables[c];
        *nans += h->nans[c];
        for (int64_t i = 0; i < t->size; i++) {
            uint64_t bits = slot_bits(t, i);
            int64_t count = slot_count(t, i);
            if (count && !table_add(all, bits, table_home(all, bits), count)) return false;
        }
    }
    return true;
}

/* Writes group g: `bits` occurring `count` times. */
static void write_group(const npusim_exec *ex, const npusim_view *values, const npusim_view *counts, size_t isz,
                        int64_t g, uint64_t bits, int64_t count)
{
    memcpy(values->base + g * values->strides[0] * (int64_t)isz, &bits, isz); /* little-endian */
    if (ex->present[3]) *((int64_t *)counts->base + g * counts->strides[0]) = count;
}

/* The distinct values (sorted) and counts of the merged table, then the NaNs; returns the
 * number of groups, or -1 when out of memory. */
static int64_t write_hashed(const npusim_exec *ex, hash_ctx *h, int64_t nans, const npusim_view *values,
                            const npusim_view *counts)
{
    const hash_table *all = &h->tables[0];
    int64_t m = all->used, groups = 0, stride = h->self->strides[0] * (int64_t)h->isz;
    int64_t *sort_count = malloc(sizeof(int64_t) * RADIX_SIZE), *slot = malloc(sizeof(int64_t) * (size_t)(2 * m + 1));
    uint64_t *keys = malloc(sizeof *keys * (size_t)(2 * m + 1));
    if (!sort_count || !slot || !keys) {
        groups = -1;
        goto done;
    }
    for (int64_t i = 0, j = 0; i < all->size; i++)
        if (slot_count(all, i)) {
            keys[j] = bits_order(h->self->dtype, h->floating, &h->layout, slot_bits(all, i), h->isz);
            slot[j++] = i;
        }
    radix_sort(keys, slot, keys + m, slot + m, m, sort_count);
    for (int64_t i = 0; i < m; groups++) {
        uint64_t bits = slot_bits(all, slot[i]);
        int64_t count = slot_count(all, slot[i]);
        if (i + 1 < m && keys[i + 1] == keys[i]) { /* +0.0 and -0.0: the first zero's bits */
            count += slot_count(all, slot[i + 1]);
            for (int64_t at = 0;; at++) {
                uint64_t b = load_bits(h->self->base + at * stride, h->isz);
                if ((b & (h->layout.sign - 1)) == 0) {
                    bits = b;
                    break;
                }
            }
            i++;
        }
        i++;
        write_group(ex, values, counts, h->isz, groups, bits, count);
    }
    for (int64_t at = 0; nans && at < h->n; at++) { /* each NaN a value of its own, last */
        uint64_t b = load_bits(h->self->base + at * stride, h->isz);
        if ((b & (h->layout.sign - 1)) <= h->layout.inf) continue;
        write_group(ex, values, counts, h->isz, groups++, b, 1);
        nans--;
    }
done:
    free(sort_count);
    free(slot);
    free(keys);
    return groups;
}

/* The distinct values and counts of a 1-D self by hashing; the number of groups, or -1 when the
 * tables failed (too many distinct values, or no memory): then nothing was written. */
static int64_t unique_by_hashing(const npusim_exec *ex, const npusim_view *self, const npusim_view *values,
                                 const npusim_view *counts, int64_t distinct_max)
{
    hash_ctx *h = calloc(1, sizeof *h);
    if (!h) return -1;
    h->self = self;
    h->isz = npusim_dtype_size(self->dtype);
    h->floating = float_layout_of(self->dtype, &h->layout);
    h->n = self->shape[0];
    h->chunk = (h->n + HASH_CHUNKS - 1) / HASH_CHUNKS;
    h->limit = h->n / 16 < distinct_max ? h->n / 16 : distinct_max;
    npusim_parallel_for(HASH_CHUNKS, 1, hash_chunk, h);
    int64_t nans, groups = -1;
    if (!atomic_load(&h->failed) && merge_tables(h, &nans)) groups = write_hashed(ex, h, nans, values, counts);
    for (int c = 0; c < HASH_CHUNKS; c++) {
        free(h->tables[c].slots);
        free(h->tables[c].packed);
    }
    free(h);
    return groups;
}

/* ---------------------------------------------------------------------------------------------
 * Without inverse indices, a long 1-D self of 4-byte elements with many distinct values sorts
 * its 32-bit keys alone: a parallel scatter of the keys into SCATTER_BUCKETS buckets by their top
 * bits (a counting pass, then a scattering pass that remakes the keys from self), then each
 * bucket, in cache, sorted on its low bits by radix sorts (sort_keys.h) and its runs
 * of equal keys reduced in place to (key, count); the groups are then written in bucket order.
 * Values are rebuilt from the keys, except the zero's (the first zero of self) and the NaNs
 * (each its own group, written last in their order in self, as the hashing path does). */
#define UNIQUE_TASKS 32

typedef struct {
    const npusim_view *self, *values, *counts;
    const npusim_exec *ex;
    aclDataType dtype;
    int64_t n, chunk, stride; /* stride: bytes */
    uint32_t *keys, *aux;     /* n each: the bucketed keys; scratch, then each group's count */
    uint32_t (*offsets)[SCATTER_BUCKETS];
    int64_t start[SCATTER_BUCKETS + 1], groups[SCATTER_BUCKETS + 1]; /* groups: written at, after the prefix sum */
    int64_t nans;
} unique32;

static void unique_keys(const unique32 *u, int64_t lo, int64_t hi, uint32_t *keys)
{
    const char *p = u->self->base + lo * u->stride;
    int64_t n = hi - lo;
    if (u->dtype == ACL_FLOAT && u->stride == 4) { /* the common case, vectorised */
        const float *f = (const float *)p;
        for (int64_t i = 0; i < n; i++) keys[i] = float_key(f[i]);
        return;
    }
    uint32_t flip = u->dtype == ACL_INT32 ? 1u << 31 : 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, p + i * u->stride, sizeof bits);
        float f;
        memcpy(&f, &bits, sizeof f);
        keys[i] = u->dtype == ACL_FLOAT ? float_key(f) : bits ^ flip;
    }
}

#define UNIQUE_STORE(u, slot, key, index) ((u)->keys[slot] = (key))
DEFINE_BUCKET_SCATTER(unique, unique32, unique_keys, UNIQUE_STORE)

/* A bucket's keys sorted by their bits below the top SCATTER_BITS. */
DEFINE_BUCKET_SORT(key_sort, uint32_t, 0)

/* Sorts bucket [start, start + n) and reduces it to its groups: keys[start + g], count
 * aux[start + g]; returns their number (a NaN key, float32's largest, is left out and counted). */
static int64_t unique_bucket(unique32 *u, int64_t start, int64_t n)
{
    uint32_t *keys = u->keys + start, *aux = u->aux + start;
    key_sort(keys, aux, n, SCATTER_SHIFT);
    int64_t groups = 0;
    for (int64_t i = 0, j; i < n; i = j) {
        uint32_t key = keys[i];
        for (j = i + 1; j < n && keys[j] == key; j++) {}
        if (u->dtype == ACL_FLOAT && key == FLOAT_KEY_NAN) {
            u->nans += j - i; /* only the last bucket holds NaN keys: one task writes this */
            continue;
        }
        keys[groups] = key;
        aux[groups++] = (uint32_t)(j - i);
    }
    return groups;
}

static void unique_sort_buckets(size_t begin, size_t end, void *vctx)
{
    unique32 *u = vctx;
    for (size_t b = begin; b < end; b++) {
        int64_t n = u->start[b + 1] - u->start[b];
        u->groups[b] = n ? unique_bucket(u, u->start[b], n) : 0;
    }
}

/* The first zero (either sign) of self, as bits. */
static uint32_t first_zero(const unique32 *u)
{
    for (int64_t i = 0;; i++) {
        uint32_t bits;
        memcpy(&bits, u->self->base + i * u->stride, sizeof bits);
        if ((bits & 0x7fffffffu) == 0) return bits;
    }
}

typedef struct {
    unique32 *u;
    uint32_t zero_bits;
} unique_writer;

static void unique_write(size_t begin, size_t end, void *vctx)
{
    const unique_writer *w = vctx;
    const unique32 *u = w->u;
    int64_t vstride = u->values->strides[0] * 4, cstride = u->counts ? u->counts->strides[0] : 0;
    for (size_t b = begin; b < end; b++) {
        const uint32_t *keys = u->keys + u->start[b], *counts = u->aux + u->start[b];
        int64_t at = u->groups[b], n = u->groups[b + 1] - at;
        for (int64_t g = 0; g < n; g++) {
            uint32_t key = keys[g], v = key;
            if (u->dtype == ACL_FLOAT) v = key == FLOAT_KEY_ZERO ? w->zero_bits : float_of_key(key);
            else if (u->dtype == ACL_INT32) v = key ^ (1u << 31);
            memcpy(u->values->base + (at + g) * vstride, &v, sizeof v);
            if (u->counts) *((int64_t *)u->counts->base + (at + g) * cstride) = counts[g];
        }
    }
}

/* The number of groups, or -1 when out of memory (nothing written). */
static int64_t unique_by_sorting(const npusim_exec *ex, const npusim_view *self, const npusim_view *values,
                                 const npusim_view *counts)
{
    unique32 *u = calloc(1, sizeof *u);
    int64_t n = self->shape[0];
    if (u) {
        u->keys = malloc(sizeof(uint32_t) * (size_t)n * 2);
        u->offsets = malloc(sizeof(uint32_t) * SCATTER_CHUNKS * SCATTER_BUCKETS);
    }
    if (!u || !u->keys || !u->offsets) {
        if (u) free(u->keys), free(u->offsets);
        free(u);
        return -1;
    }
    *u = (unique32){ .self = self, .values = values, .counts = ex->present[3] ? counts : NULL, .ex = ex,
                     .dtype = self->dtype, .n = n, .chunk = (n + SCATTER_CHUNKS - 1) / SCATTER_CHUNKS,
                     .stride = self->strides[0] * 4, .keys = u->keys, .aux = u->keys + n, .offsets = u->offsets };
    npusim_parallel_for(SCATTER_CHUNKS, 1, unique_count, u);
    bucket_offsets(u->offsets, u->start, n);
    npusim_parallel_for(SCATTER_CHUNKS, 1, unique_scatter, u);
    npusim_parallel_for(SCATTER_BUCKETS, SCATTER_BUCKETS / UNIQUE_TASKS, unique_sort_buckets, u);
    int64_t total = 0;
    for (int b = 0; b <= SCATTER_BUCKETS; b++) { /* counts into the groups' write positions */
        int64_t count = b < SCATTER_BUCKETS ? u->groups[b] : 0;
        u->groups[b] = total;
        total += count;
    }
    /* The zero's key is the smallest of its bucket: a zero group is that bucket's first. */
    int zeros = FLOAT_KEY_ZERO >> SCATTER_SHIFT;
    unique_writer w = { u, 0 };
    bool zero_group = u->groups[zeros + 1] > u->groups[zeros] && u->keys[u->start[zeros]] == FLOAT_KEY_ZERO;
    if (self->dtype == ACL_FLOAT && zero_group) w.zero_bits = first_zero(u);
    npusim_parallel_for(SCATTER_BUCKETS, SCATTER_BUCKETS / UNIQUE_TASKS, unique_write, &w);
    for (int64_t i = 0; u->nans && i < n; i++) { /* each NaN a value of its own, last */
        uint32_t bits;
        memcpy(&bits, self->base + i * u->stride, sizeof bits);
        if ((bits & 0x7fffffffu) <= 0x7f800000u) continue;
        memcpy(values->base + total * values->strides[0] * 4, &bits, sizeof bits);
        if (u->counts) *((int64_t *)counts->base + total * counts->strides[0]) = 1;
        total++;
        u->nans--;
    }
    free(u->keys);
    free(u->offsets);
    free(u);
    return total;
}

static int unique2_kernel(const npusim_exec *ex, npusim_view *views)
{
    const npusim_view *self = &views[0], *values = &views[1], *inverse = &views[2], *counts = &views[3];
    int64_t n = npusim_numel(&ex->t[0]);
    if (self->ndim == 1 && !ex->present[2] && n >= HASH_BLOCK && n < (int64_t)UINT32_MAX) {
        bool sortable = self->dtype == ACL_FLOAT || self->dtype == ACL_INT32 || self->dtype == ACL_UINT32;
        int64_t limit = sortable ? HASH_BEFORE_SORTING : HASH_DISTINCT_MAX;
        int64_t groups = unique_by_hashing(ex, self, values, counts, limit);
        if (groups < 0 && sortable) groups = unique_by_sorting(ex, self, values, counts);
        if (groups >= 0) {
            ex->shape_out->shape[0] = groups;
            if (ex->shape_out2) ex->shape_out2->shape[0] = groups;
            return 0;
        }
    }
    size_t isz = npusim_dtype_size(self->dtype), cells = (size_t)(n ? n : 1);
    uint64_t *keys = malloc(sizeof *keys * cells * 2);
    int64_t *index = malloc(sizeof *index * cells * 2), *count = malloc(sizeof *count * RADIX_SIZE);
    if (!keys || !index || !count) {
        free(keys);
        free(index);
        free(count);
        return npusim_error(ACLNN_ERR_INNER, "aclnnUnique2: out of host memory for %lld elements", (long long)n);
    }
    if (n) {
        load_keys(self, ex->kind, n, keys);
        for (int64_t i = 0; i < n; i++) index[i] = i;
        radix_sort(keys, index, keys + n, index + n, n, count);
    }
    bool nan_alone = ex->kind == KIND_F64; /* NaN equals nothing; for integers all ones is a value */
    int64_t groups = 0;
    for (int64_t i = 0, j; i < n; i = j, groups++) { /* the group of equal values [i, j) */
        j = i + 1;
        if (!(nan_alone && keys[i] == NAN_KEY))
            while (j < n && keys[j] == keys[i]) j++;
        memcpy(values->base + groups * values->strides[0] * (int64_t)isz, element_at(self, index[i], isz), isz);
        if (ex->present[3]) *((int64_t *)counts->base + groups * counts->strides[0]) = j - i;
        for (int64_t k = i; ex->present[2] && k < j; k++) *(int64_t *)element_at(inverse, index[k], 8) = groups;
    }
    free(keys);
    free(index);
    free(count);
    ex->shape_out->shape[0] = groups;
    if (ex->shape_out2) ex->shape_out2->shape[0] = groups;
    return 0;
}

static const npusim_opdef def_unique2 = NPUSIM_OPDEF("aclnnUnique2", unique2_kernel);

static int check_unique2_outputs(const char *name, const aclTensor *self, const aclTensor *valueOut,
                                 const aclTensor *inverseOut, const aclTensor *countsOut)
{
    int64_t total = npusim_numel(self);
    int rc = npusim_check_shape_equal(name, "valueOut", valueOut, 1, &total);
    if (rc) return rc;
    if (inverseOut && ((rc = npusim_check_dtype(name, "inverseOut", inverseOut->dtype, NPUSIM_DTYPES_aclnnUnique2_inverseOut)) ||
                       (rc = npusim_check_shape_equal(name, "inverseOut", inverseOut, self->ndim, self->shape))))
        return rc;
    if (countsOut && ((rc = npusim_check_dtype(name, "countsOut", countsOut->dtype, NPUSIM_DTYPES_aclnnUnique2_countsOut)) ||
                      (rc = npusim_check_shape_equal(name, "countsOut", countsOut, 1, &total))))
        return rc;
    return 0;
}

aclnnStatus aclnnUnique2GetWorkspaceSize(const aclTensor *self, bool sorted, bool returnInverse, bool returnCounts,
                                         aclTensor *valueOut, aclTensor *inverseOut, aclTensor *countsOut,
                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnUnique2";
    (void)sorted; /* npusim always sorts */
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) ||
        (rc = npusim_check_tensor(name, "valueOut", valueOut)) ||
        (inverseOut && (rc = npusim_check_tensor(name, "inverseOut", inverseOut))) ||
        (countsOut && (rc = npusim_check_tensor(name, "countsOut", countsOut))) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnUnique2_self)))
        return rc;
    if (self->ndim < 1)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: self must have 1 to 8 dims (got 0)", name);
    if (valueOut->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: valueOut has dtype %s, self %s: they must "
                            "match", name, npusim_dtype_name(valueOut->dtype), npusim_dtype_name(self->dtype));
    if ((returnInverse && !inverseOut) || (returnCounts && !countsOut))
        return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: %s is NULL but requested", name,
                            returnCounts && !countsOut ? "countsOut" : "inverseOut");
    if ((rc = check_unique2_outputs(name, self, valueOut, inverseOut, countsOut))) return rc;
    const aclTensor *ins[1] = { self };
    const aclTensor *outs[3] = { valueOut, returnInverse ? inverseOut : NULL, returnCounts ? countsOut : NULL };
    npusim_exec *ex = npusim_exec_create(&def_unique2, ins, 1, outs, 3);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    npusim_kind k = npusim_kind_of(self->dtype);
    ex->kind = k == KIND_F32 ? KIND_F64 : k == KIND_U64 ? KIND_U64 : k == KIND_F64 ? KIND_F64 : KIND_I64;
    npusim_tensor_retain(valueOut);
    ex->shape_out = valueOut;
    if (returnCounts) {
        npusim_tensor_retain(countsOut);
        ex->shape_out2 = countsOut;
    }
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnUnique2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnUnique2", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnIsInTensorScalar: out = (element == testElement), negated with invert, in the promoted
 * dtype (NaN equals nothing); out is BOOL with element's shape. assumeUnique changes nothing for
 * a single test element. */

static const ew_spec spec_isin = EW_SPEC_OF(aclnnIsInTensorScalar, element, out, &npusim_ew_eq, 0, 0);
static const ew_spec spec_isin_invert = EW_SPEC_OF(aclnnIsInTensorScalar, element, out, &npusim_ew_ne, 0, 0);

aclnnStatus aclnnIsInTensorScalarGetWorkspaceSize(const aclTensor *element, const aclScalar *testElement,
                                                  bool assumeUnique, bool invert, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)assumeUnique;
    const ew_operand ins[] = { TENSOR_ARG(element, "element"), SCALAR_ARG(testElement, "testElement") };
    return npusim_ew_prepare(invert ? &spec_isin_invert : &spec_isin, ins, 2, NULL, NULL, out, NULL, workspaceSize,
                             executor);
}

aclnnStatus aclnnIsInTensorScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnIsInTensorScalar", workspace, workspaceSize, executor, stream);
}
