/* Reductions (docs/acl-abi.md §7.2 "Reductions"): aclnnReduceSum, aclnnMean, aclnnAmax, aclnnAmin,
 * aclnnAll, aclnnAny, aclnnVar, aclnnStd over a set of dims, aclnnProd over all of them, aclnnProdDim / aclnnArgMax /
 * aclnnArgMin / aclnnCumsum along one dim.
 *
 * Conventions: a NULL or empty dims array reduces every dimension; keepDims keeps reduced dims as
 * size 1. Sums of float16/bfloat16/float are accumulated in float blocks combined in double (as
 * accurate as NumPy's pairwise sum); integer sums wrap in int64. Mean computes in floating point
 * (integers too); the mean of nothing is NaN. Amax/Amin/ArgMax/ArgMin propagate NaN as NumPy does
 * (the first NaN wins) and refuse empty reductions; ArgMax/ArgMin return the first occurrence.
 * All/Any test x != 0 (NaN is true) into a BOOL or UINT8 out; over nothing they give true/false.
 * Var/Std divide by N - correction (Var: unbiased -> 1) and give inf/NaN when that is <= 0.
 *
 * The engine walks the input once with an accumulator operand (stride 0 along reduced dims), in
 * the input's memory order, so reducing rows or columns are both streaming passes. Work is split
 * across threads over independent output elements, or, for a full reduction, over input chunks
 * whose partial results are combined in a fixed order (deterministic). Float and double matrices
 * with contiguous rows take fast paths (sums, means, max, min along the rows or the columns; see
 * "Fast paths"), as do ArgMax/ArgMin over contiguous lines or over a leading dim. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_all.h"
#include "aclnnop/aclnn_amax.h"
#include "aclnnop/aclnn_amin.h"
#include "aclnnop/aclnn_any.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_argmin.h"
#include "aclnnop/aclnn_cumsum.h"
#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_prod.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_std.h"
#include "aclnnop/aclnn_var.h"
#include "ew_ops.h"

/* RED_SQDEV: accumulators are {mean, sum of squared deviations} pairs of doubles (Var/Std). */
typedef enum { RED_SUM, RED_MEAN, RED_MAX, RED_MIN, RED_ALL, RED_ANY, RED_PROD, RED_SQDEV } red_op;

typedef struct {
    red_op op;
    npusim_kind kind;     /* the input is loaded as this */
    npusim_kind acc_kind; /* accumulators */
    aclDataType in_dtype;
} red_ctx;

/* ---------------------------------------------------------------------------------------------
 * Folding a contiguous block of the input (kind) into accumulators (acc_kind) */

/* The hot loops are also compiled for AVX-512 and AVX2, picked at load time (GCC's target_clones:
 * one binary for every x86-64 machine; glibc's ifunc picks the clone); elsewhere they are plain
 * C11. Not in sanitizer builds: the ifunc resolvers run before the sanitizer runtime is ready
 * and crash it. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* Sums with NumPy-like accuracy (its pairwise sum adds 16 terms per accumulator before combining
 * them): SUM_LANES float lanes add a block of SUM_BLOCK elements (16 terms per lane), each block's
 * lanes are added into double lanes, and those are combined as a tree. Doubles use the same scheme
 * with SUM_LANES / 2 double lanes per block. */
#define SUM_LANES 32
#define SUM_BLOCK (16 * SUM_LANES)
/* The blocked loops ask for the line SUM_PREFETCH_BYTES ahead of each one they read: with the
 * hardware's stream prefetcher alone a long sum's two threads fall short of the memory
 * bandwidth when other processes load the memory system too (measured on a shared 2-core
 * machine: 64 MiB in 4.2 ms instead of 5.6, best of 100; medians 20 % lower). */
#define SUM_PREFETCH_BYTES 1024

/* Pairwise sums of 8 and 32 doubles, written out so that they stay in registers. */
static inline double tree_sum8(const double *w)
{
    return ((w[0] + w[4]) + (w[2] + w[6])) + ((w[1] + w[5]) + (w[3] + w[7]));
}

static inline double tree_sum32(double *w)
{
    for (int k = 0; k < 16; k++) w[k] += w[k + 16];
    for (int k = 0; k < 8; k++) w[k] += w[k + 8];
    return tree_sum8(w);
}

/* Rows shorter than a block: 16 float lanes (at most 32 terms each), one conversion, a tree. A
 * third less work than the blocked loop on k-means' rows of 64. */
VECTOR_CLONES static double sum_short_f32(const float *x, size_t n)
{
    float lanes[16] = { 0 };
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++) lanes[k] += x[i + k];
    double wide[16];
    for (int k = 0; k < 16; k++) wide[k] = lanes[k];
    for (int k = 0; i < n; i++, k++) wide[k] += x[i];
    for (int k = 0; k < 8; k++) wide[k] += wide[k + 8];
    return tree_sum8(wide);
}

VECTOR_CLONES static double sum_f32(const float *x, size_t n)
{
    if (n < SUM_BLOCK) return sum_short_f32(x, n);
    double wide[SUM_LANES] = { 0 };
    size_t i = 0;
    while (i + SUM_LANES <= n) {
        float lanes[SUM_LANES] = { 0 };
        size_t end = n - i >= SUM_BLOCK ? i + SUM_BLOCK : i + (n - i) / SUM_LANES * SUM_LANES;
        for (; i < end; i += SUM_LANES) {
            __builtin_prefetch((const char *)(x + i) + SUM_PREFETCH_BYTES);
            __builtin_prefetch((const char *)(x + i) + SUM_PREFETCH_BYTES + 64);
            for (int k = 0; k < SUM_LANES; k++) lanes[k] += x[i + k];
        }
        for (int k = 0; k < SUM_LANES; k++) wide[k] += lanes[k];
    }
    for (int k = 0; i < n; i++, k++) wide[k] += x[i];
    return tree_sum32(wide);
}

VECTOR_CLONES static double sum_f64(const double *x, size_t n)
{
    enum { LANES = SUM_LANES / 2 };
    double wide[LANES] = { 0 };
    size_t i = 0;
    while (i + LANES <= n) {
        double lanes[LANES] = { 0 };
        size_t end = n - i >= 16 * LANES ? i + 16 * LANES : i + (n - i) / LANES * LANES;
        for (; i < end; i += LANES) {
            __builtin_prefetch((const char *)(x + i) + SUM_PREFETCH_BYTES);
            __builtin_prefetch((const char *)(x + i) + SUM_PREFETCH_BYTES + 64);
            for (int k = 0; k < LANES; k++) lanes[k] += x[i + k];
        }
        for (int k = 0; k < LANES; k++) wide[k] += lanes[k];
    }
    for (int k = 0; i < n; i++, k++) wide[k] += x[i];
    for (int k = 0; k < LANES / 2; k++) wide[k] += wide[k + LANES / 2];
    return tree_sum8(wide);
}

/* The maximum (minimum) of `init` and n contiguous values, NaN if any is NaN (or init is).
 * `!(v <= a) && a == a` selects v when it is larger or NaN, and keeps a NaN a: NaN sticks. Rows
 * of at least 2 * EXTREME_LANES run in that many lanes, a loop the compiler vectorises; rows of at
 * least 2 * SHORT_EXTREME_LANES in that many. */
#define EXTREME_LANES 64
#define SHORT_EXTREME_LANES 8 /* shorter rows (k-means' 64 features): 8 lanes, one vector */
#define EXTREME(NAME, T, CMP)                                                                  \
    VECTOR_CLONES static T NAME(const T *x, size_t n, T init)                                  \
    {                                                                                          \
        T a = init;                                                                            \
        size_t i = 0;                                                                          \
        if (n >= 2 * EXTREME_LANES) {                                                          \
            T lanes[EXTREME_LANES];                                                            \
            for (int k = 0; k < EXTREME_LANES; k++) lanes[k] = init;                           \
            for (; i + EXTREME_LANES <= n; i += EXTREME_LANES)                                 \
                for (int k = 0; k < EXTREME_LANES; k++) {                                      \
                    T v = x[i + k], l = lanes[k];                                              \
                    lanes[k] = !(v CMP l) && l == l ? v : l;                                   \
                }                                                                              \
            for (int k = 0; k < EXTREME_LANES; k++) a = !(lanes[k] CMP a) && a == a ? lanes[k] : a; \
        } else if (n >= 2 * SHORT_EXTREME_LANES) {                                              \
            T lanes[SHORT_EXTREME_LANES];                                                      \
            for (int k = 0; k < SHORT_EXTREME_LANES; k++) lanes[k] = init;                     \
            for (; i + SHORT_EXTREME_LANES <= n; i += SHORT_EXTREME_LANES)                     \
                for (int k = 0; k < SHORT_EXTREME_LANES; k++) {                                \
                    T v = x[i + k], l = lanes[k];                                              \
                    lanes[k] = !(v CMP l) && l == l ? v : l;                                   \
                }                                                                              \
            for (int k = 0; k < SHORT_EXTREME_LANES; k++) a = !(lanes[k] CMP a) && a == a ? lanes[k] : a; \
        }                                                                                      \
        for (; i < n; i++) a = !(x[i] CMP a) && a == a ? x[i] : a;                             \
        return a;                                                                              \
    }
EXTREME(max_f32, float, <=)
EXTREME(min_f32, float, >=)
EXTREME(max_f64, double, <=)
EXTREME(min_f64, double, >=)

#define MAXMIN_FOLD(T, CMP)                                                                    \
    do {                                                                                       \
        const T *x = block;                                                                    \
        T a = *(T *)acc;                                                                       \
        for (size_t i = 0; i < n; i++)                                                         \
            if (x[i] CMP a || x[i] != x[i]) {                                                  \
                a = x[i];                                                                      \
                if (a != a) break;                                                             \
            }                                                                                  \
        *(T *)acc = a;                                                                         \
    } while (0)

/* Products: inputs are loaded as the accumulator kind (F64, I64/U64 wrapping, C128). */
static void prod_into(npusim_kind kind, const void *block, size_t n, char *acc, int64_t stride)
{
    for (size_t i = 0; i < n; i++) {
        char *a = acc + (int64_t)i * stride;
        if (kind == KIND_F64) {
            *(double *)a *= ((const double *)block)[i];
        } else if (kind == KIND_C128) {
            const double *x = (const double *)block + 2 * i;
            double *p = (double *)a, re = p[0] * x[0] - p[1] * x[1], im = p[0] * x[1] + p[1] * x[0];
            p[0] = re;
            p[1] = im;
        } else {
            *(uint64_t *)a *= ((const uint64_t *)block)[i];
        }
    }
}

/* Squared deviations (Var/Std) of float values (every dtype Var takes is loaded as float),
 * computed in double. */
static void sqdev_into(const float *x, size_t n, char *acc, int64_t stride)
{
    for (size_t i = 0; i < n; i++) {
        double *a = (double *)(acc + (int64_t)i * stride), d = x[i] - a[0];
        a[1] += d * d;
    }
}

/* The sum of (x[i] - mean)^2 in 16 double lanes (a loop the compiler vectorises). */
VECTOR_CLONES static double sqdev_sum(const float *x, size_t n, double mean)
{
    double lanes[16] = { 0 };
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++) {
            double d = x[i + k] - mean;
            lanes[k] += d * d;
        }
    for (int k = 0; i < n; i++, k++) {
        double d = x[i] - mean;
        lanes[k] += d * d;
    }
    for (int k = 0; k < 8; k++) lanes[k] += lanes[k + 8];
    return tree_sum8(lanes);
}

/* *acc = op(*acc, x[0..n)) */
static void fold(const red_ctx *c, const void *block, size_t n, char *acc)
{
    bool max = c->op == RED_MAX || c->op == RED_ANY;
    if (c->op == RED_SQDEV) {
        ((double *)acc)[1] += sqdev_sum(block, n, ((double *)acc)[0]);
        return;
    }
    if (c->op == RED_PROD) {
        if (c->kind == KIND_F64) { /* one running product, then one multiply into acc */
            double p = 1;
            for (size_t i = 0; i < n; i++) p *= ((const double *)block)[i];
            *(double *)acc *= p;
            return;
        }
        for (size_t i = 0; i < n; i++)
            prod_into(c->kind, (const char *)block + i * npusim_kind_size(c->kind), 1, acc, 0);
        return;
    }
    switch (c->op == RED_MEAN ? RED_SUM : c->op) {
    case RED_SUM:
        switch (c->kind) {
        case KIND_F32: *(double *)acc += sum_f32(block, n); return;
        case KIND_F64: *(double *)acc += sum_f64(block, n); return;
        case KIND_C128: {
            const double *x = block;
            double *a = (double *)acc;
            for (size_t i = 0; i < n; i++) {
                a[0] += x[2 * i];
                a[1] += x[2 * i + 1];
            }
            return;
        }
        default: { /* I64 / U64: wrapping */
            const uint64_t *x = block;
            uint64_t s = 0;
            for (size_t i = 0; i < n; i++) s += x[i];
            *(uint64_t *)acc += s;
            return;
        }
        }
    default:
        switch (c->kind) {
        case KIND_F32: {
            float *a = (float *)acc;
            *a = max ? max_f32(block, n, *a) : min_f32(block, n, *a);
            return;
        }
        case KIND_F64: {
            double *a = (double *)acc;
            *a = max ? max_f64(block, n, *a) : min_f64(block, n, *a);
            return;
        }
        case KIND_U64: if (max) MAXMIN_FOLD(uint64_t, >); else MAXMIN_FOLD(uint64_t, <); return;
        case KIND_BOOL: if (max) MAXMIN_FOLD(uint8_t, >); else MAXMIN_FOLD(uint8_t, <); return;
        default: if (max) MAXMIN_FOLD(int64_t, >); else MAXMIN_FOLD(int64_t, <); return;
        }
    }
}

#define COMBINE(TA, TX, EXPR)                                                                  \
    do {                                                                                       \
        const TX *x = block;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                       \
            TA *a = (TA *)(acc + (int64_t)i * stride);                                         \
            const TX v = x[i];                                                                 \
            EXPR;                                                                              \
        }                                                                                      \
    } while (0)

/* acc[i] = op(acc[i], x[i]) for i < n, accumulators `stride` bytes apart. */
static void combine(const red_ctx *c, const void *block, size_t n, char *acc, int64_t stride)
{
    bool max = c->op == RED_MAX || c->op == RED_ANY;
    if (c->op == RED_PROD) {
        prod_into(c->kind, block, n, acc, stride);
        return;
    }
    if (c->op == RED_SQDEV) {
        sqdev_into(block, n, acc, stride);
        return;
    }
    switch (c->op == RED_MEAN ? RED_SUM : c->op) {
    case RED_SUM:
        switch (c->kind) {
        case KIND_F32: COMBINE(double, float, *a += v); return;
        case KIND_F64: COMBINE(double, double, *a += v); return;
        case KIND_C128: {
            const double *x = block;
            for (size_t i = 0; i < n; i++) {
                double *a = (double *)(acc + (int64_t)i * stride);
                a[0] += x[2 * i];
                a[1] += x[2 * i + 1];
            }
            return;
        }
        default: COMBINE(uint64_t, uint64_t, *a += v); return;
        }
    default:
        switch (c->kind) {
        case KIND_F32:
            if (max) COMBINE(float, float, if (v > *a || v != v) *a = (*a != *a) ? *a : v);
            else COMBINE(float, float, if (v < *a || v != v) *a = (*a != *a) ? *a : v);
            return;
        case KIND_F64:
            if (max) COMBINE(double, double, if (v > *a || v != v) *a = (*a != *a) ? *a : v);
            else COMBINE(double, double, if (v < *a || v != v) *a = (*a != *a) ? *a : v);
            return;
        case KIND_U64:
            if (max) COMBINE(uint64_t, uint64_t, if (v > *a) *a = v);
            else COMBINE(uint64_t, uint64_t, if (v < *a) *a = v);
            return;
        case KIND_BOOL:
            if (max) COMBINE(uint8_t, uint8_t, *a |= v);
            else COMBINE(uint8_t, uint8_t, *a &= v);
            return;
        default:
            if (max) COMBINE(int64_t, int64_t, if (v > *a) *a = v);
            else COMBINE(int64_t, int64_t, if (v < *a) *a = v);
            return;
        }
    }
}

static void acc_init(const red_ctx *c, char *acc, int64_t count)
{
    size_t size = npusim_kind_size(c->acc_kind);
    if (c->op == RED_SUM || c->op == RED_MEAN || c->op == RED_PROD || c->op == RED_SQDEV) {
        memset(acc, 0, size * (size_t)count);
        if (c->op == RED_PROD)
            for (int64_t i = 0; i < count; i++) {
                char *a = acc + i * (int64_t)size;
                if (c->acc_kind == KIND_F64 || c->acc_kind == KIND_C128) *(double *)a = 1.0;
                else *(uint64_t *)a = 1;
            }
        return;
    }
    bool max = c->op == RED_MAX || c->op == RED_ANY;
    for (int64_t i = 0; i < count; i++) {
        char *a = acc + i * (int64_t)size;
        switch (c->acc_kind) {
        case KIND_BOOL: *(uint8_t *)a = !max; break;
        case KIND_F32: *(float *)a = max ? -INFINITY : INFINITY; break;
        case KIND_F64: *(double *)a = max ? -INFINITY : INFINITY; break;
        case KIND_U64: *(uint64_t *)a = max ? 0 : UINT64_MAX; break;
        default: *(int64_t *)a = max ? INT64_MIN : INT64_MAX; break;
        }
    }
}

/* Inner run of the pass: operand 0 the input, operand 1 the accumulators. */
static void reduce_run(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    const red_ctx *c = vctx;
    size_t ksize = npusim_kind_size(c->kind);
    bool native = c->in_dtype == npusim_kind_dtype(c->kind) && strides[0] == (int64_t)ksize;
    _Alignas(64) unsigned char buf[NPUSIM_BLOCK * 16];
    size_t block = native ? 8192 : NPUSIM_BLOCK;
    for (size_t off = 0; off < n; off += block) {
        size_t m = n - off < block ? n - off : block;
        const char *src = ptrs[0] + (int64_t)off * strides[0];
        const void *x = src;
        if (!native) {
            npusim_load(c->kind, buf, src, strides[0], c->in_dtype, m);
            x = buf;
        }
        if (strides[1] == 0)
            fold(c, x, m, ptrs[1]);
        else
            combine(c, x, m, ptrs[1] + (int64_t)off * strides[1], strides[1]);
    }
}

/* ---------------------------------------------------------------------------------------------
 * The pass over the input, split across threads */

typedef struct {
    const npusim_nditer *it;
    const red_ctx *c;
    int split_dim;       /* dimension of `it` whose indices own disjoint accumulators */
    char *partials;      /* full reductions: one accumulator per chunk */
    int64_t nchunks;
    atomic_size_t next;  /* full reductions: the next chunk to claim */
} pass_ctx;

static void pass_split(size_t begin, size_t end, void *vctx)
{
    const pass_ctx *p = vctx;
    npusim_nditer sub = *p->it;
    int d = p->split_dim;
    sub.shape[d] = (int64_t)(end - begin);
    for (int k = 0; k < sub.nop; k++) sub.base[k] += (int64_t)begin * sub.strides[k][d];
    npusim_nditer_range(&sub, 0, npusim_nditer_size(&sub), reduce_run, (void *)p->c);
}

/* A full reduction's chunks go to the threads one at a time from a shared counter, whatever
 * range of them the pool hands out: a pool thread that wakes late, or loses its core for a while
 * on a busy machine, then leaves the rest to the others instead of holding a range of several
 * chunks (an eighth of the input) that the others wait for. Each chunk still has its own
 * accumulator, so the result does not depend on who summed what. */
static void pass_partial(size_t begin, size_t end, void *vctx)
{
    (void)begin;
    (void)end;
    pass_ctx *p = vctx;
    int64_t total = npusim_nditer_size(p->it);
    size_t asize = npusim_kind_size(p->c->acc_kind);
    for (size_t k; (k = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed)) < (size_t)p->nchunks;) {
        npusim_nditer sub = *p->it;
        sub.base[1] = p->partials + k * asize;
        int64_t lo = total * (int64_t)k / p->nchunks, hi = total * (int64_t)(k + 1) / p->nchunks;
        npusim_nditer_range(&sub, lo, hi, reduce_run, (void *)p->c);
    }
}

static void reduce_pass(const npusim_nditer *it, const red_ctx *c, char *acc, int64_t outputs)
{
    int64_t total = npusim_nditer_size(it);
    if (total < NPUSIM_PARALLEL_MIN) {
        npusim_nditer_range(it, 0, total, reduce_run, (void *)c);
        return;
    }
    pass_ctx p = { .it = it, .c = c, .split_dim = -1 };
    atomic_init(&p.next, 0);
    for (int d = 0; d < it->ndim && p.split_dim < 0; d++)
        if (it->strides[1][d] != 0) p.split_dim = d;
    if (outputs > 1 && p.split_dim >= 0) {
        npusim_parallel_for((size_t)it->shape[p.split_dim], 1, pass_split, &p);
        return;
    }
    /* A full reduction: fixed chunks, combined in order. */
    size_t asize = npusim_kind_size(c->acc_kind);
    p.nchunks = total / (NPUSIM_PARALLEL_MIN / 2);
    if (p.nchunks > 64) p.nchunks = 64;
    _Alignas(16) unsigned char partials[64 * 16];
    p.partials = (char *)partials;
    acc_init(c, p.partials, p.nchunks);
    for (int64_t k = 0; c->op == RED_SQDEV && k < p.nchunks; k++) /* every chunk needs the mean */
        ((double *)(p.partials + k * (int64_t)asize))[0] = ((double *)acc)[0];
    npusim_parallel_for((size_t)p.nchunks, 1, pass_partial, &p);
    for (int64_t k = 0; k < p.nchunks; k++) {
        if (c->op == RED_SQDEV) {
            ((double *)acc)[1] += ((double *)(p.partials + k * (int64_t)asize))[1];
        } else if (c->acc_kind == c->kind) {
            fold(c, p.partials + k * (int64_t)asize, 1, acc);
        } else { /* sums of F32 accumulate in F64 */
            red_ctx f = *c;
            f.kind = c->acc_kind;
            fold(&f, p.partials + k * (int64_t)asize, 1, acc);
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Fast paths: a matrix of float or double (the input's own dtype) with contiguous rows, reduced
 * along its rows (each row to one accumulator) or its columns (every row folded into a vector of
 * accumulators, no strided gathers). Sums, means, maxima and minima; the rest take the engine. */

#define FAST_PARALLEL_MIN (1 << 17) /* elements: below this, waking the pool costs more */
#define COLUMN_BLOCK_MIN (1 << 16)  /* elements per row block of a parallel column reduction */
#define COLUMN_BLOCKS_MAX 16

typedef struct {
    const red_ctx *c;
    const char *x;
    int64_t rows, cols, row_bytes; /* input rows of `cols` contiguous elements */
    char *acc;
    int64_t acc_row_bytes;         /* row reductions: between the rows' accumulators */
    int64_t block_rows;            /* column reductions: rows per partial block */
    char *partials;                /* column reductions: one vector of accumulators per block */
} plane;

/* t[j * m + r] = element j of line r, for m lines of `length` contiguous T starting `line_bytes`
 * apart: short lines become the columns of a block that column loops vectorise over. Its inner
 * loop (a load, a store and three adds) is the whole cost of k-means' argmin and min over 10
 * distances, and runs 1.6x slower when it straddles a 64-byte boundary of the code (the
 * front end then takes two lines per iteration): aligned on its own, so that where the linker
 * puts this file's code does not change it. */
#define TRANSPOSE_LINES(NAME, T)                                                               \
    __attribute__((noinline, optimize("align-loops=64"))) static void NAME(                    \
        const char *x, int64_t line_bytes, int64_t length, size_t m, T *restrict t)            \
    {                                                                                          \
        for (size_t r = 0; r < m; r++) {                                                       \
            const T *line = (const T *)(x + (int64_t)r * line_bytes);                          \
            for (int64_t j = 0; j < length; j++) t[(size_t)j * m + r] = line[j];               \
        }                                                                                      \
    }
TRANSPOSE_LINES(transpose_lines_f32, float)
TRANSPOSE_LINES(transpose_lines_f64, double)

static void fold_row(red_op op, npusim_kind kind, char *acc, const char *x, size_t n);

/* Rows of at most SHORT_ROW_MAX elements (k-means' 10 distances per point): folding them one by
 * one is mostly per-row overhead and a scalar dependency chain, so chunks of SHORT_ROW_CHUNK rows
 * are transposed and folded column by column into their accumulators (vectorised row loops). */
#define SHORT_ROW_MAX 32
#define SHORT_ROW_CHUNK 64

static void short_rows_range(const plane *p, size_t begin, size_t end)
{
    _Alignas(64) double t[SHORT_ROW_MAX * SHORT_ROW_CHUNK];
    _Alignas(64) double acc[SHORT_ROW_CHUNK];
    size_t ksize = npusim_kind_size(p->c->kind), asize = npusim_kind_size(p->c->acc_kind);
    for (size_t first = begin; first < end; first += SHORT_ROW_CHUNK) {
        size_t m = end - first < SHORT_ROW_CHUNK ? end - first : SHORT_ROW_CHUNK;
        const char *x = p->x + (int64_t)first * p->row_bytes;
        char *out = p->acc + (int64_t)first * p->acc_row_bytes;
        if (p->c->kind == KIND_F32) transpose_lines_f32(x, p->row_bytes, p->cols, m, (float *)t);
        else transpose_lines_f64(x, p->row_bytes, p->cols, m, t);
        for (size_t r = 0; r < m; r++) memcpy((char *)acc + r * asize, out + (int64_t)r * p->acc_row_bytes, asize);
        for (int64_t j = 0; j < p->cols; j++)
            fold_row(p->c->op, p->c->kind, (char *)acc, (const char *)t + (size_t)j * m * ksize, m);
        for (size_t r = 0; r < m; r++) memcpy(out + (int64_t)r * p->acc_row_bytes, (char *)acc + r * asize, asize);
    }
}

/* Float32 sums of rows shorter than a block (k-means' 64 features), eight rows at a time with
 * AVX-512: sum_short_f32's very additions, in its order (16 float lanes, their conversion, the
 * tail added in double, the halves added, the same tree), so results are bit for bit
 * sum_short_f32's; its scalar tree per row was half the cost. Returns the rows done (a multiple
 * of 8). Called only where AVX-512 is (avx512_supported). */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ROWS8_SHORT_SUM 1

__attribute__((target("avx512f"))) static __m512d short_sum_halves(const float *x, size_t n)
{
    __m512 lanes = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) lanes = _mm512_add_ps(lanes, _mm512_loadu_ps(x + i));
    __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(lanes));
    __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(lanes), 1)));
    size_t tail = n - i; /* < 16: into wide[0 .. tail) as double adds */
    if (tail) {
        __m512 t = _mm512_maskz_loadu_ps((__mmask16)((1u << tail) - 1), x + i);
        __mmask8 low = (__mmask8)(tail >= 8 ? 0xFF : (1u << tail) - 1);
        __mmask8 high = (__mmask8)(tail > 8 ? (1u << (tail - 8)) - 1 : 0);
        lo = _mm512_mask_add_pd(lo, low, lo, _mm512_cvtps_pd(_mm512_castps512_ps256(t)));
        hi = _mm512_mask_add_pd(hi, high, hi,
                                _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(t), 1))));
    }
    return _mm512_add_pd(lo, hi); /* wide[k] += wide[k + 8] */
}

static bool avx512_supported(void)
{
    static int supported = -1; /* a benign race: every thread computes the same value */
    if (supported < 0) supported = __builtin_cpu_supports("avx512f") ? 1 : 0;
    return supported == 1;
}

__attribute__((target("avx512f"))) static size_t rows8_short_sum_f32(const plane *p, size_t begin, size_t end)
{
    size_t r = begin;
    for (; r + 8 <= end; r += 8) {
        __m512d w[8], pair[4], quad[2];
        for (int i = 0; i < 8; i++)
            w[i] = short_sum_halves((const float *)(p->x + (int64_t)(r + (size_t)i) * p->row_bytes), (size_t)p->cols);
        for (int i = 0; i < 4; i++) /* a_j = w_j + w_(j+4): rows 2i (low half) and 2i + 1 */
            pair[i] = _mm512_add_pd(_mm512_shuffle_f64x2(w[2 * i], w[2 * i + 1], 0x44),
                                    _mm512_shuffle_f64x2(w[2 * i], w[2 * i + 1], 0xEE));
        for (int i = 0; i < 2; i++) /* (a0 + a2, a1 + a3) of rows 4i .. 4i + 3, one per 128 bits */
            quad[i] = _mm512_add_pd(_mm512_shuffle_f64x2(pair[2 * i], pair[2 * i + 1], 0x88),
                                    _mm512_shuffle_f64x2(pair[2 * i], pair[2 * i + 1], 0xDD));
        /* lane 2 l: row l's sum, lane 2 l + 1: row 4 + l's */
        __m512d sums = _mm512_add_pd(_mm512_unpacklo_pd(quad[0], quad[1]), _mm512_unpackhi_pd(quad[0], quad[1]));
        _Alignas(64) double out[8];
        _mm512_store_pd(out, sums);
        for (int l = 0; l < 4; l++) {
            *(double *)(p->acc + (int64_t)(r + (size_t)l) * p->acc_row_bytes) += out[2 * l];
            *(double *)(p->acc + (int64_t)(r + 4 + (size_t)l) * p->acc_row_bytes) += out[2 * l + 1];
        }
    }
    return r - begin;
}
#endif

static void rows_range(size_t begin, size_t end, void *vctx)
{
    const plane *p = vctx;
    if (p->cols <= SHORT_ROW_MAX && end - begin > 1 && p->acc_row_bytes != 0) { /* rows of their own */
        short_rows_range(p, begin, end);
        return;
    }
#ifdef ROWS8_SHORT_SUM
    if ((p->c->op == RED_SUM || p->c->op == RED_MEAN) && p->c->kind == KIND_F32 && p->cols < SUM_BLOCK
        && p->acc_row_bytes != 0 && avx512_supported())
        begin += rows8_short_sum_f32(p, begin, end);
#endif
    for (size_t r = begin; r < end; r++)
        fold(p->c, p->x + (int64_t)r * p->row_bytes, (size_t)p->cols, p->acc + (int64_t)r * p->acc_row_bytes);
}

/* acc[j] = op(acc[j], x[j]) over one row, acc contiguous: loops the compiler vectorises. A NaN
 * wins in max/min: `!(v <= a)` holds for a larger v and for a NaN v, and a NaN a is kept. */
#define ROW_LOOP(NAME, TA, TX, EXPR)                                                           \
    VECTOR_CLONES static void NAME(TA *restrict acc, const TX *restrict x, size_t n)          \
    {                                                                                          \
        for (size_t j = 0; j < n; j++) {                                                       \
            TA a = acc[j];                                                                     \
            const TX v = x[j];                                                                 \
            acc[j] = EXPR;                                                                     \
        }                                                                                      \
    }
ROW_LOOP(row_sum_f32, double, float, a + v)
ROW_LOOP(row_sum_f64, double, double, a + v)
ROW_LOOP(row_max_f32, float, float, !(v <= a) && a == a ? v : a)
ROW_LOOP(row_min_f32, float, float, !(v >= a) && a == a ? v : a)
ROW_LOOP(row_max_f64, double, double, !(v <= a) && a == a ? v : a)
ROW_LOOP(row_min_f64, double, double, !(v >= a) && a == a ? v : a)

/* acc[j] += the pairwise sum of 8 rows' x[j] (rows `rs` bytes apart): 8 times less accumulator
 * traffic than adding row by row, and the float additions stay within 3 levels of a tree. */
#define ROWS8_SUM(NAME, TX)                                                                    \
    VECTOR_CLONES static void NAME(double *restrict acc, const char *x, int64_t rs, size_t n)  \
    {                                                                                          \
        const TX *r0 = (const TX *)x, *r1 = (const TX *)(x + rs), *r2 = (const TX *)(x + 2 * rs), \
                 *r3 = (const TX *)(x + 3 * rs), *r4 = (const TX *)(x + 4 * rs),               \
                 *r5 = (const TX *)(x + 5 * rs), *r6 = (const TX *)(x + 6 * rs),               \
                 *r7 = (const TX *)(x + 7 * rs);                                               \
        for (size_t j = 0; j < n; j++)                                                         \
            acc[j] += ((r0[j] + r1[j]) + (r2[j] + r3[j])) + ((r4[j] + r5[j]) + (r6[j] + r7[j])); \
    }
ROWS8_SUM(rows8_sum_f32, float)
ROWS8_SUM(rows8_sum_f64, double)

/* acc = op(acc, x) for a row of n elements of kind `kind` (acc of the accumulator kind). */
static void fold_row(red_op op, npusim_kind kind, char *acc, const char *x, size_t n)
{
    bool f32 = kind == KIND_F32;
    switch (op) {
    case RED_MAX:
        if (f32) row_max_f32((float *)acc, (const float *)x, n);
        else row_max_f64((double *)acc, (const double *)x, n);
        return;
    case RED_MIN:
        if (f32) row_min_f32((float *)acc, (const float *)x, n);
        else row_min_f64((double *)acc, (const double *)x, n);
        return;
    default: /* sums and means */
        if (f32) row_sum_f32((double *)acc, (const float *)x, n);
        else row_sum_f64((double *)acc, (const double *)x, n);
        return;
    }
}

static void column_blocks(size_t begin, size_t end, void *vctx)
{
    const plane *p = vctx;
    size_t asize = npusim_kind_size(p->c->acc_kind);
    for (size_t b = begin; b < end; b++) {
        char *acc = p->partials + b * (size_t)p->cols * asize;
        int64_t r = (int64_t)b * p->block_rows, last = r + p->block_rows;
        if (last > p->rows) last = p->rows;
        if (p->c->op == RED_SUM || p->c->op == RED_MEAN)
            for (; r + 8 <= last; r += 8) {
                const char *x = p->x + r * p->row_bytes;
                if (p->c->kind == KIND_F32) rows8_sum_f32((double *)acc, x, p->row_bytes, (size_t)p->cols);
                else rows8_sum_f64((double *)acc, x, p->row_bytes, (size_t)p->cols);
            }
        for (; r < last; r++)
            fold_row(p->c->op, p->c->kind, acc, p->x + r * p->row_bytes, (size_t)p->cols);
    }
}

/* Column reduction: fixed row blocks (a count independent of the machine, so results are too)
 * fold into their own accumulator vectors, combined in block order. */
static int reduce_columns(plane *p)
{
    int64_t blocks = p->rows * p->cols / COLUMN_BLOCK_MIN;
    if (blocks > COLUMN_BLOCKS_MAX) blocks = COLUMN_BLOCKS_MAX;
    if (blocks > p->rows) blocks = p->rows;
    if (p->rows * p->cols < FAST_PARALLEL_MIN || blocks < 2) {
        p->partials = p->acc;
        p->block_rows = p->rows;
        column_blocks(0, 1, p);
        return 0;
    }
    size_t asize = npusim_kind_size(p->c->acc_kind);
    p->partials = malloc((size_t)blocks * (size_t)p->cols * asize);
    if (!p->partials) return -1;
    acc_init(p->c, p->partials, blocks * p->cols);
    p->block_rows = (p->rows + blocks - 1) / blocks;
    blocks = (p->rows + p->block_rows - 1) / p->block_rows;
    npusim_parallel_for((size_t)blocks, 1, column_blocks, p);
    npusim_kind acc_kind = p->c->acc_kind; /* partials fold like rows of the accumulator kind */
    for (int64_t b = 0; b < blocks; b++)
        fold_row(p->c->op, acc_kind, p->acc, p->partials + (size_t)(b * p->cols) * asize, (size_t)p->cols);
    free(p->partials);
    return 0;
}

/* Runs the reduction of `it` (operand 0 the input, 1 the accumulators) when a fast path covers it;
 * returns false to leave it to the engine (also when out of memory for partials). */
static bool reduce_fast(const npusim_nditer *it, const red_ctx *c, char *acc)
{
    size_t ksize = npusim_kind_size(c->kind), asize = npusim_kind_size(c->acc_kind);
    int inner = it->ndim - 1;
    bool ops = c->op == RED_SUM || c->op == RED_MEAN || c->op == RED_MAX || c->op == RED_MIN;
    if (!ops || (c->kind != KIND_F32 && c->kind != KIND_F64) || c->in_dtype != npusim_kind_dtype(c->kind) ||
        it->ndim != 2 || it->strides[0][inner] != (int64_t)ksize)
        return false;
    plane p = { c, it->base[0], it->shape[0], it->shape[1], it->strides[0][0], acc, 0, 0, NULL };
    if (it->strides[1][inner] == 0) { /* each row to one accumulator */
        p.acc_row_bytes = it->strides[1][0];
        if (p.rows * p.cols < FAST_PARALLEL_MIN) rows_range(0, (size_t)p.rows, &p);
        else npusim_parallel_for((size_t)p.rows, (size_t)(FAST_PARALLEL_MIN / 2 / p.cols + 1), rows_range, &p);
        return true;
    }
    if (it->strides[1][0] != 0 || it->strides[1][inner] != (int64_t)asize) return false;
    return reduce_columns(&p) == 0;
}

/* ---------------------------------------------------------------------------------------------
 * Kernel and first phase of the dims reductions */

static void contiguous_strides(int ndim, const int64_t *shape, int64_t *strides)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d] > 1 ? shape[d] : 1;
    }
}

/* Accumulators of small reductions (k-means' sums of 10 rows) on the stack: a malloc and a free
 * are a tenth of such a kernel. */
#define STACK_ACC_BYTES 1024

/* acc (C order over out's shape, `outputs` of them) stored into a C-contiguous out whose dtype is
 * the accumulators' own or float32 from double accumulators (a plain conversion, rounding to
 * nearest as npusim_ew_run's cast does); false for other outs (npusim_ew_run casts those). For
 * small outputs the element-wise engine costs as much as the reduction. */
static bool store_accumulators(npusim_kind acc_kind, const char *acc, int64_t outputs, npusim_view *out)
{
    bool same = out->dtype == npusim_kind_dtype(acc_kind);
    if (!same && !(acc_kind == KIND_F64 && out->dtype == ACL_FLOAT)) return false;
    int64_t step = 1;
    for (int d = out->ndim - 1; d >= 0; d--) {
        if (out->shape[d] != 1 && out->strides[d] != step) return false;
        step *= out->shape[d];
    }
    if (same) {
        memcpy(out->base, acc, (size_t)outputs * npusim_kind_size(acc_kind));
        return true;
    }
    const double *a = (const double *)acc;
    float *o = (float *)out->base;
    for (int64_t i = 0; i < outputs; i++) o[i] = (float)a[i];
    return true;
}

static int reduce_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view *in = &views[0], *out = &views[1];
    red_ctx c = { (red_op)ex->mode, ex->kind, KIND_F64, in->dtype };
    c.acc_kind = (c.op == RED_SUM || c.op == RED_MEAN) && c.kind == KIND_F32 ? KIND_F64 : c.kind;
    int64_t outputs = 1, reduced = 1;
    bool is_reduced[NPUSIM_MAX_DIMS] = { false };
    for (int i = 0; i < ex->n_dims; i++) is_reduced[ex->dims[i]] = true;
    for (int d = 0; d < in->ndim; d++) {
        if (is_reduced[d]) reduced *= in->shape[d];
        else outputs *= in->shape[d];
    }
    if (outputs == 0) return 0;
    size_t asize = npusim_kind_size(c.acc_kind);
    _Alignas(64) char stack_acc[STACK_ACC_BYTES];
    bool on_stack = asize * (size_t)outputs <= sizeof stack_acc;
    char *acc = on_stack ? stack_acc : malloc(asize * (size_t)outputs);
    if (!acc) return npusim_error(ACLNN_ERR_INNER, "%s: out of host memory for %lld accumulators",
                                  ex->def->name, (long long)outputs);
    acc_init(&c, acc, outputs);

    /* The accumulators as a view over the input's dims: contiguous over kept dims, broadcast over
     * reduced ones. */
    npusim_view accv = { npusim_kind_dtype(c.acc_kind), in->ndim, { 0 }, { 0 }, acc };
    for (int d = 0; d < in->ndim; d++) accv.shape[d] = is_reduced[d] ? 1 : in->shape[d];
    contiguous_strides(in->ndim, accv.shape, accv.strides);
    if (reduced > 0) {
        npusim_view *ops[2] = { in, &accv };
        npusim_nditer it;
        npusim_nditer_init(&it, in->ndim, in->shape, ops, 2);
        if (!reduce_fast(&it, &c, acc)) reduce_pass(&it, &c, acc, outputs);
    }
    if (c.op == RED_MEAN) {
        double scale = 1.0 / (double)reduced;
        for (int64_t i = 0; i < outputs; i++) {
            double *a = (double *)(acc + i * (int64_t)asize);
            a[0] = reduced ? a[0] * scale : NAN;
            if (c.acc_kind == KIND_C128) a[1] = reduced ? a[1] * scale : NAN;
        }
    }
    /* acc (C order over out's shape) -> out, cast to out's dtype. */
    if (!store_accumulators(c.acc_kind, acc, outputs, out)) {
        npusim_view accout = { accv.dtype, out->ndim, { 0 }, { 0 }, acc };
        for (int d = 0; d < out->ndim; d++) accout.shape[d] = out->shape[d];
        contiguous_strides(out->ndim, accout.shape, accout.strides);
        npusim_view *src[1] = { &accout };
        npusim_ew_run(ex, &npusim_ew_identity, c.acc_kind, out, src);
    }
    if (!on_stack) free(acc);
    return 0;
}

/* Var / Std: a pass for the means, a pass for the squared deviations from them (two-pass, as
 * accurate as NumPy's), then m2 / (N - correction), square-rooted for Std. ex->dim holds the
 * correction and ex->flag asks for the square root. */
static int var_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view *in = &views[0], *out = &views[1];
    bool is_reduced[NPUSIM_MAX_DIMS] = { false };
    int64_t outputs = 1, reduced = 1;
    for (int i = 0; i < ex->n_dims; i++) is_reduced[ex->dims[i]] = true;
    for (int d = 0; d < in->ndim; d++) {
        if (is_reduced[d]) reduced *= in->shape[d];
        else outputs *= in->shape[d];
    }
    if (outputs == 0) return 0;
    double *acc = calloc((size_t)outputs, 2 * sizeof(double));
    if (!acc) return npusim_error(ACLNN_ERR_INNER, "%s: out of host memory", ex->def->name);
    npusim_view accv = { ACL_COMPLEX128, in->ndim, { 0 }, { 0 }, (char *)acc }; /* {mean, m2} pairs */
    for (int d = 0; d < in->ndim; d++) accv.shape[d] = is_reduced[d] ? 1 : in->shape[d];
    contiguous_strides(in->ndim, accv.shape, accv.strides);
    if (reduced > 0) {
        npusim_view *ops[2] = { in, &accv };
        npusim_nditer it;
        npusim_nditer_init(&it, in->ndim, in->shape, ops, 2);
        /* Var's dtypes (float, float16, bfloat16) are read as float, summed in double. */
        red_ctx sum = { RED_SUM, KIND_F32, KIND_F64, in->dtype };
        if (!reduce_fast(&it, &sum, (char *)acc)) reduce_pass(&it, &sum, (char *)acc, outputs);
        for (int64_t i = 0; i < outputs; i++) acc[2 * i] /= (double)reduced;
        red_ctx dev = { RED_SQDEV, KIND_F32, KIND_C128, in->dtype };
        reduce_pass(&it, &dev, (char *)acc, outputs);
    }
    double divisor = (double)reduced - (double)ex->dim;
    for (int64_t i = 0; i < outputs; i++) { /* results packed into the first half of acc */
        double v = acc[2 * i + 1] / (divisor > 0 ? divisor : 0.0);
        if (reduced == 0) v = NAN;
        acc[i] = ex->flag ? sqrt(v) : v;
    }
    npusim_view result = { ACL_DOUBLE, out->ndim, { 0 }, { 0 }, (char *)acc };
    for (int d = 0; d < out->ndim; d++) result.shape[d] = out->shape[d];
    contiguous_strides(out->ndim, result.shape, result.strides);
    npusim_view *src[1] = { &result };
    npusim_ew_run(ex, &npusim_ew_identity, KIND_F64, out, src);
    free(acc);
    return 0;
}

static const npusim_opdef def_reduce_sum = NPUSIM_OPDEF("aclnnReduceSum", reduce_kernel);
static const npusim_opdef def_var = NPUSIM_OPDEF("aclnnVar", var_kernel);
static const npusim_opdef def_std = NPUSIM_OPDEF("aclnnStd", var_kernel);
static const npusim_opdef def_mean = NPUSIM_OPDEF("aclnnMean", reduce_kernel);
static const npusim_opdef def_amax = NPUSIM_OPDEF("aclnnAmax", reduce_kernel);
static const npusim_opdef def_amin = NPUSIM_OPDEF("aclnnAmin", reduce_kernel);
static const npusim_opdef def_all = NPUSIM_OPDEF("aclnnAll", reduce_kernel);
static const npusim_opdef def_prod = NPUSIM_OPDEF("aclnnProd", reduce_kernel);
static const npusim_opdef def_prod_dim = NPUSIM_OPDEF("aclnnProdDim", reduce_kernel);
static const npusim_opdef def_any = NPUSIM_OPDEF("aclnnAny", reduce_kernel);


/* Normalises dims (negative -> from the end; empty -> all), rejecting repeats and out-of-range
 * (declared in ops_internal.h: aclnnLinalgVectorNorm uses it too). */
int npusim_normalise_dims(const char *name, const aclIntArray *dims, int ndim, int64_t *out, int *n_out)
{
    if (dims && !npusim_is_int_array(dims))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dims is not a live aclIntArray", name);
    if (!dims || dims->size == 0) {
        for (int d = 0; d < ndim; d++) out[d] = d;
        *n_out = ndim;
        return 0;
    }
    if (dims->size > NPUSIM_MAX_DIMS)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dims has %llu entries", name,
                            (unsigned long long)dims->size);
    bool seen[NPUSIM_MAX_DIMS] = { false };
    *n_out = 0;
    for (uint64_t i = 0; i < dims->size; i++) {
        int64_t d;
        int rc = npusim_normalise_dim(name, "tensor", dims->values[i], ndim, &d);
        if (rc) return rc;
        if (ndim == 0) continue;
        if (seen[d])
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dim %lld appears twice", name,
                                (long long)dims->values[i]);
        seen[d] = true;
        out[(*n_out)++] = d;
    }
    return 0;
}

static void reduced_shape(const aclTensor *self, const int64_t *dims, int n_dims, bool keep, int *ndim,
                          int64_t *shape)
{
    bool is_reduced[NPUSIM_MAX_DIMS] = { false };
    for (int i = 0; i < n_dims; i++) is_reduced[dims[i]] = true;
    *ndim = 0;
    for (int d = 0; d < self->ndim; d++) {
        if (!is_reduced[d]) shape[(*ndim)++] = self->shape[d];
        else if (keep) shape[(*ndim)++] = 1;
    }
}

/* Integer reductions accumulate in int64 (wrapping), int32 included. */
static npusim_kind wide(npusim_kind k) { return k == KIND_BOOL || k == KIND_I32 ? KIND_I64 : k; }

static npusim_kind reduce_kind(red_op op, aclDataType self, aclDataType out)
{
    switch (op) {
    case RED_ALL: case RED_ANY: return KIND_BOOL; /* the input is loaded as x != 0 */
    case RED_SUM: return wide(npusim_kind_of(out));
    case RED_PROD: {
        npusim_kind k = wide(npusim_kind_of(out));
        return k == KIND_F32 ? KIND_F64 : k;
    }
    case RED_MEAN:
        if (npusim_is_complex(out) || npusim_is_complex(self)) return KIND_C128;
        return npusim_kind_of(out) == KIND_F32 && npusim_dtype_category(self) >= 2 ? KIND_F32 : KIND_F64;
    default: return wide(npusim_kind_of(self));
    }
}

static aclnnStatus reduce_prepare(const npusim_opdef *def, red_op op, uint64_t self_dtypes, uint64_t out_dtypes,
                                  const aclTensor *self, const aclIntArray *dims, bool keep, aclTensor *out,
                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = def->name;
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, self_dtypes)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, out_dtypes)))
        return rc;
    int64_t nd[NPUSIM_MAX_DIMS];
    int n_dims = 0, ndim;
    int64_t shape[NPUSIM_MAX_DIMS];
    if ((rc = npusim_normalise_dims(name, dims, self->ndim, nd, &n_dims))) return rc;
    reduced_shape(self, nd, n_dims, keep, &ndim, shape);
    if ((rc = npusim_check_shape_equal(name, "out", out, ndim, shape))) return rc;
    if (op == RED_MAX || op == RED_MIN) {
        for (int i = 0; i < n_dims; i++)
            if (self->shape[nd[i]] == 0 && npusim_numel(out) > 0)
                return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dim %lld has size 0: the "
                                    "reduction has no identity", name, (long long)nd[i]);
        if (npusim_dtype_category(out->dtype) < npusim_dtype_category(self->dtype))
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out dtype %s cannot hold self's %s",
                                name, npusim_dtype_name(out->dtype), npusim_dtype_name(self->dtype));
    }
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(def, &self, 1, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->mode = op;
    ex->kind = reduce_kind(op, self->dtype, out->dtype);
    ex->n_dims = n_dims;
    for (int i = 0; i < n_dims; i++) ex->dims[i] = nd[i];
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, bool keepDims,
                                           aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor)
{
    if (npusim_is_tensor(out) && dtype != out->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnReduceSumGetWorkspaceSize: dtype %s must equal out's dtype %s",
                            npusim_dtype_name(dtype), npusim_dtype_name(out->dtype));
    return reduce_prepare(&def_reduce_sum, RED_SUM, NPUSIM_DTYPES_aclnnReduceSum_self, NPUSIM_DTYPES_aclnnReduceSum_out,
                          self, dims, keepDims, out, workspaceSize, executor);
}

aclnnStatus aclnnReduceSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnReduceSum", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclDataType dtype,
                                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (npusim_is_tensor(out) && npusim_dtype_size(dtype) == 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnMeanGetWorkspaceSize: dtype %d is not supported",
                            (int)dtype);
    if (npusim_is_tensor(out) && !npusim_is_float(out->dtype) && !npusim_is_complex(out->dtype))
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnMeanGetWorkspaceSize: out has dtype %s; a mean needs a floating or complex out",
                            npusim_dtype_name(out->dtype));
    return reduce_prepare(&def_mean, RED_MEAN, NPUSIM_DTYPES_aclnnMean_self, NPUSIM_DTYPES_aclnnMean_out,
                          self, dim, keepDim, out, workspaceSize, executor);
}

aclnnStatus aclnnMean(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnMean", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAmaxGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return reduce_prepare(&def_amax, RED_MAX, NPUSIM_DTYPES_aclnnAmax_self, NPUSIM_DTYPES_aclnnAmax_out,
                          self, dim, keepDim, out, workspaceSize, executor);
}

aclnnStatus aclnnAmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAmax", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAminGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return reduce_prepare(&def_amin, RED_MIN, NPUSIM_DTYPES_aclnnAmin_self, NPUSIM_DTYPES_aclnnAmin_out,
                          self, dim, keepDim, out, workspaceSize, executor);
}

aclnnStatus aclnnAmin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAmin", workspace, workspaceSize, executor, stream);
}

/* aclnnProd multiplies every element, aclnnProdDim along one dim; dtype must equal out's. */
static int check_out_dtype(const char *name, aclDataType dtype, const aclTensor *out)
{
    if (!npusim_is_tensor(out) || dtype == out->dtype) return 0;
    return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dtype %s must equal out's dtype %s", name,
                        npusim_dtype_name(dtype), npusim_dtype_name(out->dtype));
}

aclnnStatus aclnnProdGetWorkspaceSize(const aclTensor *self, const aclDataType dtype, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    int rc = check_out_dtype("aclnnProd", dtype, out);
    if (rc) return rc;
    return reduce_prepare(&def_prod, RED_PROD, NPUSIM_DTYPES_aclnnProd_self, NPUSIM_DTYPES_aclnnProd_out,
                          self, NULL, false, out, workspaceSize, executor);
}

aclnnStatus aclnnProd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnProd", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnProdDimGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepDim, const aclDataType dtype,
                                         aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    int rc = check_out_dtype("aclnnProdDim", dtype, out);
    if (rc) return rc;
    aclIntArray *dims = aclCreateIntArray(&dim, 1);
    if (!dims) return ACLNN_ERR_INNER;
    rc = reduce_prepare(&def_prod_dim, RED_PROD, NPUSIM_DTYPES_aclnnProdDim_self, NPUSIM_DTYPES_aclnnProdDim_out,
                        self, dims, keepDim, out, workspaceSize, executor);
    aclDestroyIntArray(dims);
    return rc;
}

aclnnStatus aclnnProdDim(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnProdDim", workspace, workspaceSize, executor, stream);
}

static aclnnStatus var_prepare(const npusim_opdef *def, const aclTensor *self, const aclIntArray *dim,
                               int64_t correction, bool keepdim, bool root, aclTensor *out, uint64_t *workspaceSize,
                               aclOpExecutor **executor)
{
    uint64_t self_dtypes = root ? NPUSIM_DTYPES_aclnnStd_self : NPUSIM_DTYPES_aclnnVar_self;
    uint64_t out_dtypes = root ? NPUSIM_DTYPES_aclnnStd_out : NPUSIM_DTYPES_aclnnVar_out;
    int rc = reduce_prepare(def, RED_SQDEV, self_dtypes, out_dtypes, self, dim, keepdim, out, workspaceSize, executor);
    if (rc) return rc;
    npusim_exec *ex = npusim_exec_of(*executor); /* not launched yet: ours to finish describing */
    ex->dim = correction;
    ex->flag = root;
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnVarGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool unbiased, bool keepdim,
                                     aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return var_prepare(&def_var, self, dim, unbiased ? 1 : 0, keepdim, false, out, workspaceSize, executor);
}

aclnnStatus aclnnVar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnVar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnStdGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, const int64_t correction,
                                     bool keepdim, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return var_prepare(&def_std, self, dim, correction, keepdim, true, out, workspaceSize, executor);
}

aclnnStatus aclnnStd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnStd", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAllGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepdim, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return reduce_prepare(&def_all, RED_ALL, NPUSIM_DTYPES_aclnnAll_self, NPUSIM_DTYPES_aclnnAll_out,
                          self, dim, keepdim, out, workspaceSize, executor);
}

aclnnStatus aclnnAll(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAll", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAnyGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepdim, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return reduce_prepare(&def_any, RED_ANY, NPUSIM_DTYPES_aclnnAny_self, NPUSIM_DTYPES_aclnnAny_out,
                          self, dim, keepdim, out, workspaceSize, executor);
}

aclnnStatus aclnnAny(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnAny", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * ArgMax / ArgMin */

typedef struct {
    bool max;
    npusim_kind kind;
    aclDataType in_dtype;
    aclDataType out_dtype;
    int64_t length;      /* size of the reduced dim */
    int64_t dim_stride;  /* bytes */
} arg_ctx;

#define ARG_SCAN(T)                                                                            \
    do {                                                                                       \
        const T *x = (const T *)buf;                                                           \
        T b = *(T *)best;                                                                      \
        for (size_t i = 0; i < m; i++) {                                                       \
            T v = x[i];                                                                        \
            if (b != b) break;                                                                 \
            if (v != v || (c->max ? v > b : v < b)) {                                          \
                b = v;                                                                         \
                *index = (int64_t)(off + i);                                                   \
            }                                                                                  \
        }                                                                                      \
        *(T *)best = b;                                                                        \
    } while (0)

static int64_t arg_scan(const arg_ctx *c, const char *x)
{
    _Alignas(64) unsigned char buf[NPUSIM_BLOCK * 8];
    _Alignas(8) unsigned char best[8];
    int64_t result = 0, *index = &result;
    npusim_load(c->kind, best, x, 0, c->in_dtype, 1);
    for (int64_t off = 0; off < c->length; off += NPUSIM_BLOCK) {
        size_t m = (size_t)(c->length - off < NPUSIM_BLOCK ? c->length - off : NPUSIM_BLOCK);
        npusim_load(c->kind, buf, x + off * c->dim_stride, c->dim_stride, c->in_dtype, m);
        switch (c->kind) {
        case KIND_F32: ARG_SCAN(float); break;
        case KIND_F64: ARG_SCAN(double); break;
        default: ARG_SCAN(int64_t); break;
        }
    }
    return result;
}

/* Index of the first maximum (minimum) of n contiguous values, or of the first NaN. Branch-free
 * (conditional moves): on unordered data a branch per new best mispredicts. */
#define ARG_CONTIGUOUS(NAME, T, CMP)                                                           \
    static int64_t NAME(const T *x, int64_t n)                                                 \
    {                                                                                          \
        T best = x[0];                                                                         \
        int64_t index = 0;                                                                     \
        bool nan = best != best;                                                               \
        for (int64_t i = 1; i < n; i++) {                                                      \
            T v = x[i];                                                                        \
            bool better = v CMP best;                                                          \
            best = better ? v : best;                                                          \
            index = better ? i : index;                                                        \
            nan |= v != v;                                                                     \
        }                                                                                      \
        if (nan)                                                                               \
            for (int64_t i = 0; i < n; i++)                                                    \
                if (x[i] != x[i]) return i;                                                    \
        return index;                                                                          \
    }
ARG_CONTIGUOUS(argmax_f32, float, >)
ARG_CONTIGUOUS(argmin_f32, float, <)
ARG_CONTIGUOUS(argmax_f64, double, >)
ARG_CONTIGUOUS(argmin_f64, double, <)
ARG_CONTIGUOUS(argmax_i64, int64_t, >)
ARG_CONTIGUOUS(argmin_i64, int64_t, <)

/* The reduced dim of one output element: contiguous in self's own dtype when that is the kind's,
 * else converted block by block. */
static int64_t arg_line(const arg_ctx *c, const char *x)
{
    if (c->dim_stride != (int64_t)npusim_kind_size(c->kind) || c->in_dtype != npusim_kind_dtype(c->kind))
        return arg_scan(c, x);
    switch (c->kind) {
    case KIND_F32: return c->max ? argmax_f32((const float *)x, c->length) : argmin_f32((const float *)x, c->length);
    case KIND_F64: return c->max ? argmax_f64((const double *)x, c->length) : argmin_f64((const double *)x, c->length);
    default: return c->max ? argmax_i64((const int64_t *)x, c->length) : argmin_i64((const int64_t *)x, c->length);
    }
}

/* Lines that start at consecutive elements (a reduction over a leading dim) are walked together,
 * row by row, keeping each column's best value and index: contiguous loads instead of one strided
 * scan per output. `!(v CMP b) && b == b` takes a later value only when strictly better or the
 * first NaN, as the scans above do. */
#define ARG_COLUMNS(NAME, T, CMP)                                                              \
    VECTOR_CLONES static void NAME(const char *x, int64_t rows, int64_t row_bytes, size_t n,    \
                                   T *restrict best, int64_t *restrict index)                  \
    {                                                                                          \
        memcpy(best, x, n * sizeof(T));                                                        \
        for (size_t j = 0; j < n; j++) index[j] = 0;                                           \
        for (int64_t r = 1; r < rows; r++) {                                                   \
            const T *v = (const T *)(x + r * row_bytes);                                       \
            for (size_t j = 0; j < n; j++) {                                                   \
                T b = best[j], y = v[j];                                                       \
                bool take = !(y CMP b) && b == b;                                              \
                best[j] = take ? y : b;                                                        \
                index[j] = take ? r : index[j];                                                \
            }                                                                                  \
        }                                                                                      \
    }
ARG_COLUMNS(argmax_columns_f32, float, <=)
ARG_COLUMNS(argmin_columns_f32, float, >=)
ARG_COLUMNS(argmax_columns_f64, double, <=)
ARG_COLUMNS(argmin_columns_f64, double, >=)

#define ARG_COLUMN_CHUNK 512

/* n outputs (out `out_stride` bytes apart) of lines starting at consecutive floats or doubles. */
static void arg_columns(const arg_ctx *c, const char *x, char *out, int64_t out_stride, size_t n)
{
    _Alignas(64) double best[ARG_COLUMN_CHUNK];
    int64_t index[ARG_COLUMN_CHUNK];
    size_t ksize = npusim_kind_size(c->kind);
    for (size_t off = 0; off < n; off += ARG_COLUMN_CHUNK) {
        size_t m = n - off < ARG_COLUMN_CHUNK ? n - off : ARG_COLUMN_CHUNK;
        const char *first = x + off * ksize;
        if (c->kind == KIND_F32) {
            if (c->max) argmax_columns_f32(first, c->length, c->dim_stride, m, (float *)best, index);
            else argmin_columns_f32(first, c->length, c->dim_stride, m, (float *)best, index);
        } else {
            if (c->max) argmax_columns_f64(first, c->length, c->dim_stride, m, best, index);
            else argmin_columns_f64(first, c->length, c->dim_stride, m, best, index);
        }
        for (size_t j = 0; j < m; j++) {
            char *o = out + (int64_t)(off + j) * out_stride;
            if (c->out_dtype == ACL_INT64) *(int64_t *)o = index[j];
            else *(int32_t *)o = (int32_t)index[j];
        }
    }
}

/* Short contiguous lines (k-means' argmin over 10 distances per point): one scan per line is
 * mostly loop overhead, so chunks of lines are transposed into a buffer whose columns are the
 * lines (transpose_lines_*), and searched there by the vectorised column kernels above (same
 * first-occurrence and first-NaN rules). */
#define ARG_SHORT_MAX 32 /* the longest lines searched this way */
#define ARG_SHORT_CHUNK 64 /* lines per transposed chunk */


/* n outputs (out `out_stride` bytes apart) of contiguous lines of floats or doubles starting
 * `line_bytes` apart. */
static void arg_short_lines(const arg_ctx *c, const char *x, int64_t line_bytes, char *out, int64_t out_stride,
                            size_t n)
{
    _Alignas(64) double t[ARG_SHORT_MAX * ARG_SHORT_CHUNK];
    _Alignas(64) double best[ARG_SHORT_CHUNK];
    int64_t index[ARG_SHORT_CHUNK];
    bool f32 = c->kind == KIND_F32;
    size_t ksize = npusim_kind_size(c->kind);
    for (size_t off = 0; off < n; off += ARG_SHORT_CHUNK) {
        size_t m = n - off < ARG_SHORT_CHUNK ? n - off : ARG_SHORT_CHUNK;
        const char *first = x + (int64_t)off * line_bytes;
        int64_t row_bytes = (int64_t)(m * ksize);
        if (f32) {
            transpose_lines_f32(first, line_bytes, c->length, m, (float *)t);
            if (c->max) argmax_columns_f32((const char *)t, c->length, row_bytes, m, (float *)best, index);
            else argmin_columns_f32((const char *)t, c->length, row_bytes, m, (float *)best, index);
        } else {
            transpose_lines_f64(first, line_bytes, c->length, m, t);
            if (c->max) argmax_columns_f64((const char *)t, c->length, row_bytes, m, best, index);
            else argmin_columns_f64((const char *)t, c->length, row_bytes, m, best, index);
        }
        for (size_t j = 0; j < m; j++) {
            char *o = out + (int64_t)(off + j) * out_stride;
            if (c->out_dtype == ACL_INT64) *(int64_t *)o = index[j];
            else *(int32_t *)o = (int32_t)index[j];
        }
    }
}

/* Operand 0: out, operand 1: self at index 0 of the reduced dim. */
static void arg_run(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    const arg_ctx *c = vctx;
    size_t ksize = npusim_kind_size(c->kind);
    if (n > 1 && (c->kind == KIND_F32 || c->kind == KIND_F64) && c->in_dtype == npusim_kind_dtype(c->kind) &&
        strides[1] == (int64_t)ksize && c->dim_stride != (int64_t)ksize) {
        arg_columns(c, ptrs[1], ptrs[0], strides[0], n);
        return;
    }
    if (n > 1 && (c->kind == KIND_F32 || c->kind == KIND_F64) && c->in_dtype == npusim_kind_dtype(c->kind) &&
        c->dim_stride == (int64_t)ksize && c->length <= ARG_SHORT_MAX) {
        arg_short_lines(c, ptrs[1], strides[1], ptrs[0], strides[0], n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t r = arg_line(c, ptrs[1] + (int64_t)i * strides[1]);
        char *o = ptrs[0] + (int64_t)i * strides[0];
        if (c->out_dtype == ACL_INT64) *(int64_t *)o = r;
        else *(int32_t *)o = (int32_t)r;
    }
}

static int arg_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view self = views[0], *out = &views[1];
    arg_ctx c = { ex->mode == RED_MAX, ex->kind, self.dtype, out->dtype, 1, 0 };
    int d = (int)ex->dim;
    if (self.ndim > 0) {
        c.length = self.shape[d];
        c.dim_stride = self.strides[d] * (int64_t)npusim_dtype_size(self.dtype);
        self.shape[d] = 1; /* the kept view: the reduced dim broadcast away */
    }
    npusim_view outv = *out;
    if (ex->flag == false && self.ndim > 0) { /* out lacks dim d: insert it as size 1 */
        for (int k = out->ndim; k > d; k--) {
            outv.shape[k] = out->shape[k - 1];
            outv.strides[k] = out->strides[k - 1];
        }
        outv.shape[d] = 1;
        outv.strides[d] = 0;
        outv.ndim = out->ndim + 1;
    }
    npusim_view *ops[2] = { &outv, &self };
    npusim_nditer it;
    npusim_nditer_init(&it, self.ndim, self.shape, ops, 2);
    npusim_nditer_parallel(&it, arg_run, &c);
    return 0;
}

static const npusim_opdef def_argmax = NPUSIM_OPDEF("aclnnArgMax", arg_kernel);
static const npusim_opdef def_argmin = NPUSIM_OPDEF("aclnnArgMin", arg_kernel);

static aclnnStatus arg_prepare(const npusim_opdef *def, bool max, const aclTensor *self, int64_t dim, bool keepdim,
                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = def->name;
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype,
                                 max ? NPUSIM_DTYPES_aclnnArgMax_self : NPUSIM_DTYPES_aclnnArgMin_self)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype,
                                 max ? NPUSIM_DTYPES_aclnnArgMax_out : NPUSIM_DTYPES_aclnnArgMin_out)))
        return rc;
    if ((rc = npusim_normalise_dim(name, "tensor", dim, self->ndim, &dim))) return rc;
    if (self->ndim > 0 && self->shape[dim] == 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dim %lld has size 0", name, (long long)dim);
    int ndim;
    int64_t shape[NPUSIM_MAX_DIMS];
    reduced_shape(self, &dim, self->ndim > 0 ? 1 : 0, keepdim, &ndim, shape);
    if ((rc = npusim_check_shape_equal(name, "out", out, ndim, shape))) return rc;
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(def, &self, 1, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->mode = max ? RED_MAX : RED_MIN;
    ex->kind = npusim_kind_of(self->dtype) == KIND_F64 ? KIND_F64
               : npusim_kind_of(self->dtype) == KIND_F32 ? KIND_F32 : KIND_I64;
    ex->dim = dim;
    ex->flag = keepdim;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arg_prepare(&def_argmax, true, self, dim, keepdim, out, workspaceSize, executor);
}

aclnnStatus aclnnArgMax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnArgMax", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnArgMinGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arg_prepare(&def_argmin, false, self, dim, keepdim, out, workspaceSize, executor);
}

aclnnStatus aclnnArgMin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnArgMin", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnCumsum: running sums along one dim, accumulated in double (floating types), int64
 * (integers, wrapping) or complex double, then cast to out's dtype, which `dtype` must equal. */


typedef struct {
    npusim_kind kind;
    aclDataType in_dtype, out_dtype;
    int64_t length, in_stride, out_stride; /* along the dim; strides in bytes */
} scan_ctx;

/* Running sums of contiguous float or double lines, straight from input to output (no
 * conversion buffers), accumulated in double like the general path. */
#define SCAN_CONTIGUOUS(NAME, T)                                                               \
    static void NAME(const T *x, T *out, int64_t n)                                            \
    {                                                                                          \
        double run = 0;                                                                        \
        for (int64_t i = 0; i < n; i++) out[i] = (T)(run += x[i]);                             \
    }
SCAN_CONTIGUOUS(scan_f32, float)
SCAN_CONTIGUOUS(scan_f64, double)

static void scan_line(const scan_ctx *c, const char *in, char *out)
{
    if (c->in_dtype == c->out_dtype && (c->in_dtype == ACL_FLOAT || c->in_dtype == ACL_DOUBLE)) {
        int64_t size = (int64_t)npusim_dtype_size(c->in_dtype);
        if (c->in_stride == size && c->out_stride == size) {
            if (size == 4) scan_f32((const float *)in, (float *)out, c->length);
            else scan_f64((const double *)in, (double *)out, c->length);
            return;
        }
    }
    _Alignas(64) unsigned char buf[NPUSIM_BLOCK * 16];
    npusim_value run = { 0 };
    for (int64_t off = 0; off < c->length; off += NPUSIM_BLOCK) {
        size_t m = (size_t)(c->length - off < NPUSIM_BLOCK ? c->length - off : NPUSIM_BLOCK);
        npusim_load(c->kind, buf, in + off * c->in_stride, c->in_stride, c->in_dtype, m);
        if (c->kind == KIND_F64) {
            double *v = (double *)buf;
            for (size_t i = 0; i < m; i++) v[i] = run.d += v[i];
        } else if (c->kind == KIND_C128) {
            double *v = (double *)buf;
            for (size_t i = 0; i < m; i++) {
                v[2 * i] = run.c[0] += v[2 * i];
                v[2 * i + 1] = run.c[1] += v[2 * i + 1];
            }
        } else { /* I64 / U64, wrapping */
            uint64_t *v = (uint64_t *)buf;
            for (size_t i = 0; i < m; i++) v[i] = run.u += v[i];
        }
        npusim_store(c->kind, buf, out + off * c->out_stride, c->out_stride, c->out_dtype, m);
    }
}

/* Operand 0: out, operand 1: self, both at index 0 of the scanned dim. */
static void scan_run(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    for (size_t i = 0; i < n; i++)
        scan_line(vctx, ptrs[1] + (int64_t)i * strides[1], ptrs[0] + (int64_t)i * strides[0]);
}

static int cumsum_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view self = views[0], out = views[1];
    scan_ctx c = { ex->kind, self.dtype, out.dtype, 1, 0, 0 };
    if (self.ndim > 0) {
        int d = (int)ex->dim;
        c.length = self.shape[d];
        c.in_stride = self.strides[d] * (int64_t)npusim_dtype_size(self.dtype);
        c.out_stride = out.strides[d] * (int64_t)npusim_dtype_size(out.dtype);
        self.shape[d] = out.shape[d] = 1;
    }
    npusim_view *ops[2] = { &out, &self };
    npusim_nditer it;
    npusim_nditer_init(&it, out.ndim, out.shape, ops, 2);
    if (c.length > 0) npusim_nditer_parallel(&it, scan_run, &c);
    return 0;
}

static const npusim_opdef def_cumsum = NPUSIM_OPDEF("aclnnCumsum", cumsum_kernel);

aclnnStatus aclnnCumsumGetWorkspaceSize(const aclTensor *self, int64_t dim, aclDataType dtype, aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnCumsum";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnCumsum_self)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnCumsum_out)))
        return rc;
    if (dtype != out->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dtype %s must equal out's dtype %s", name,
                            npusim_dtype_name(dtype), npusim_dtype_name(out->dtype));
    if (npusim_dtype_category(out->dtype) < npusim_dtype_category(self->dtype))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out dtype %s cannot hold self's %s", name,
                            npusim_dtype_name(out->dtype), npusim_dtype_name(self->dtype));
    if ((rc = npusim_normalise_dim(name, "self", dim, self->ndim, &dim))) return rc;
    if ((rc = npusim_check_shape_equal(name, "out", out, self->ndim, self->shape))) return rc;
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_cumsum, &self, 1, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    npusim_kind k = npusim_kind_of(out->dtype);
    ex->kind = k == KIND_F32 || k == KIND_F64 ? KIND_F64 : k == KIND_C128 ? KIND_C128 : k == KIND_U64 ? KIND_U64 : KIND_I64;
    ex->dim = dim;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnCumsum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnCumsum", workspace, workspaceSize, executor, stream);
}
