/* Unsigned 32-bit keys whose order is the order of float32 / int32 / uint32 values, and the radix
 * sorts of their buckets, shared by the sorting (sort.c) and set (set_ops.c) operators. */
#ifndef NPUSIM_SORT_KEYS_H
#define NPUSIM_SORT_KEYS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A float's ascending key, branch-free (so that loops of it vectorise): the bits with the sign
 * folded (negatives complemented, positives' sign bit set), every NaN the largest key, -0.0
 * that of +0.0. */
static inline uint32_t float_key(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint32_t magnitude = bits & 0x7fffffffu, key = bits ^ ((uint32_t)((int32_t)bits >> 31) | (1u << 31));
    key = magnitude == 0 ? 1u << 31 : key;
    return magnitude > 0x7f800000u ? UINT32_MAX : key;
}

#define FLOAT_KEY_ZERO (1u << 31)
#define FLOAT_KEY_NAN UINT32_MAX

/* The float32 bits of a key float_key made (not a NaN's or a zero's: those keys fold several). */
static inline uint32_t float_of_key(uint32_t key)
{
    return key >> 31 ? key & 0x7fffffffu : ~key;
}


/* Stable radix sorts of a bucket's elements (type T, whose key is (uint32_t)(x >> KEY_SHIFT)) by
 * key bits [0, BITS) (BITS <= 22), through a scratch as long, sized to stay in cache:
 *   NAME_pass: one counting pass src -> dst by bits [shift, shift + width) (width <= 11); false,
 *     nothing moved, when all share that digit;
 *   NAME_lsd: least significant digit first, 7-bit digits for up to 4096 elements (fewer counters
 *     to clear and sum than elements), else 11-bit ones; insertion sort up to 32 (whole elements:
 *     among equal keys the ones given are in increasing order, or identical); returns the buffer
 *     holding the result;
 *   NAME: a bucket past 2^15 elements is first split by its top digit, as wide as makes the parts
 *     about 2048 long, into the scratch, and each part sorted back by NAME_lsd; the result is in
 *     `elems`. */
#define DEFINE_BUCKET_SORT(NAME, T, KEY_SHIFT)                                                        \
    static bool NAME##_pass(const T *src, T *dst, int64_t n, int shift, int width)                     \
    {                                                                                                  \
        uint32_t counts[1 << 11], mask = (1u << width) - 1, offset = 0;                               \
        memset(counts, 0, sizeof(uint32_t) << width);                                                  \
        shift += KEY_SHIFT;                                                                            \
        for (int64_t i = 0; i < n; i++) counts[(src[i] >> shift) & mask]++;                           \
        if (counts[(src[0] >> shift) & mask] == (uint32_t)n) return false;                            \
        for (uint32_t d = 0; d <= mask; d++) {                                                         \
            uint32_t count = counts[d];                                                                \
            counts[d] = offset;                                                                        \
            offset += count;                                                                           \
        }                                                                                              \
        for (int64_t i = 0; i < n; i++) dst[counts[(src[i] >> shift) & mask]++] = src[i];              \
        return true;                                                                                   \
    }                                                                                                  \
                                                                                                       \
    static T *NAME##_lsd(T *elems, T *aux, int64_t n, int bits)                                        \
    {                                                                                                  \
        if (n <= 32) {                                                                                 \
            for (int64_t i = 1; i < n; i++) {                                                          \
                T v = elems[i];                                                                        \
                int64_t j = i;                                                                         \
                for (; j > 0 && elems[j - 1] > v; j--) elems[j] = elems[j - 1];                        \
                elems[j] = v;                                                                          \
            }                                                                                          \
            return elems;                                                                              \
        }                                                                                              \
        int digit = n <= 4096 ? 7 : 11;                                                                \
        for (int shift = 0; shift < bits; shift += digit)                                              \
            if (NAME##_pass(elems, aux, n, shift, bits - shift < digit ? bits - shift : digit)) {      \
                T *t = elems;                                                                          \
                elems = aux;                                                                           \
                aux = t;                                                                               \
            }                                                                                          \
        return elems;                                                                                  \
    }                                                                                                  \
                                                                                                       \
    static void NAME(T *elems, T *aux, int64_t n, int bits)                                            \
    {                                                                                                  \
        int width = 0;                                                                                 \
        while (width < 11 && width < bits && (n >> width) > 2048) width++;                             \
        int low = bits - width;                                                                        \
        if (n <= (1 << 15) || !NAME##_pass(elems, aux, n, low, width)) {                               \
            T *sorted = NAME##_lsd(elems, aux, n, bits);                                               \
            if (sorted != elems) memcpy(elems, sorted, sizeof(T) * (size_t)n);                         \
            return;                                                                                    \
        }                                                                                              \
        for (int64_t start = 0, end; start < n; start = end) {                                         \
            uint32_t digit = (uint32_t)(aux[start] >> (KEY_SHIFT + low)) & ((1u << width) - 1);        \
            for (end = start + 1;                                                                      \
                 end < n && ((uint32_t)(aux[end] >> (KEY_SHIFT + low)) & ((1u << width) - 1)) == digit;   \
                 end++) {}                                                                             \
            T *sorted = NAME##_lsd(aux + start, elems + start, end - start, low);                      \
            if (sorted != elems + start) memcpy(elems + start, sorted, sizeof(T) * (size_t)(end - start)); \
        }                                                                                              \
    }

/* The parallel scatter of elements into buckets by the top SCATTER_BITS bits of their 32-bit keys,
 * with which sort (sort.c) and unique (set_ops.c) start: the elements in SCATTER_CHUNKS fixed
 * chunks, each counted, then scattered, SCATTER_BLOCK keys at a time (KEYS_OF(ctx, lo, hi, keys)
 * makes those of elements [lo, hi)). CTX_T has n, chunk (a chunk's length) and offsets
 * ((*)[SCATTER_BUCKETS], a row per chunk).
 *   NAME_count: (a npusim_parallel_for body over the chunks) each chunk's bucket counts, in its row;
 *   bucket_offsets: those counts turned into each chunk's first slot in each bucket, and start[b]
 *     the first slot of bucket b (start[SCATTER_BUCKETS] = n);
 *   NAME_scatter: (likewise) STORE(ctx, slot, key, index) for each element, at the next slot of
 *     its chunk in its bucket: stable. */
#define SCATTER_BITS 11
#define SCATTER_BUCKETS (1 << SCATTER_BITS)
#define SCATTER_SHIFT (32 - SCATTER_BITS)
#define SCATTER_CHUNKS 8
#define SCATTER_BLOCK 512

static inline void bucket_offsets(uint32_t (*offsets)[SCATTER_BUCKETS], int64_t *start, int64_t n)
{
    uint32_t offset = 0;
    for (int b = 0; b < SCATTER_BUCKETS; b++) {
        start[b] = offset;
        for (int c = 0; c < SCATTER_CHUNKS; c++) {
            uint32_t count = offsets[c][b];
            offsets[c][b] = offset;
            offset += count;
        }
    }
    start[SCATTER_BUCKETS] = n;
}

#define DEFINE_BUCKET_SCATTER(NAME, CTX_T, KEYS_OF, STORE)                                            \
    static void NAME##_count(size_t begin, size_t end, void *vctx)                                    \
    {                                                                                                  \
        CTX_T *ctx = vctx;                                                                             \
        uint32_t keys[SCATTER_BLOCK];                                                                  \
        for (size_t c = begin; c < end; c++) {                                                         \
            uint32_t *count = ctx->offsets[c];                                                         \
            int64_t lo = (int64_t)c * ctx->chunk, hi = lo + ctx->chunk < ctx->n ? lo + ctx->chunk : ctx->n; \
            memset(count, 0, sizeof ctx->offsets[c]);                                                  \
            for (int64_t b = lo; b < hi; b += SCATTER_BLOCK) {                                         \
                int64_t e = b + SCATTER_BLOCK < hi ? b + SCATTER_BLOCK : hi;                           \
                KEYS_OF(ctx, b, e, keys);                                                              \
                for (int64_t i = 0; i < e - b; i++) count[keys[i] >> SCATTER_SHIFT]++;                 \
            }                                                                                          \
        }                                                                                              \
    }                                                                                                  \
                                                                                                       \
    static void NAME##_scatter(size_t begin, size_t end, void *vctx)                                  \
    {                                                                                                  \
        CTX_T *ctx = vctx;                                                                             \
        uint32_t keys[SCATTER_BLOCK];                                                                  \
        for (size_t c = begin; c < end; c++) {                                                         \
            uint32_t *offset = ctx->offsets[c];                                                        \
            int64_t lo = (int64_t)c * ctx->chunk, hi = lo + ctx->chunk < ctx->n ? lo + ctx->chunk : ctx->n; \
            for (int64_t b = lo; b < hi; b += SCATTER_BLOCK) {                                         \
                int64_t e = b + SCATTER_BLOCK < hi ? b + SCATTER_BLOCK : hi;                           \
                KEYS_OF(ctx, b, e, keys);                                                              \
                for (int64_t i = 0; i < e - b; i++) STORE(ctx, offset[keys[i] >> SCATTER_SHIFT]++, keys[i], b + i); \
            }                                                                                          \
        }                                                                                              \
    }

#endif /* NPUSIM_SORT_KEYS_H */
