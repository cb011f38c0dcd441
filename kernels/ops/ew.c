/* The element-wise engine: out = op(in...) over broadcast views of any dtypes. Each inner run is
 * computed in the op's kind: operands already stored as that kind, contiguously, are used in
 * place (the vectorised fast path), and so is a repeated (stride-0) operand of the binary
 * arithmetic and compare ops, whose kernels take it as one element; the others are converted
 * through small stack buffers. */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ew_ops.h"

#if defined(__SSE2__)
/* Outputs of at least STREAM_MIN_BYTES in all are written with non-temporal stores (in runs of
 * at least STREAM_MIN_RUN bytes): larger than the caches together with their inputs, they
 * would only evict useful lines, and a normal store first reads each line it writes (a third
 * more memory traffic for a + b). */
#define STREAM_MIN_BYTES ((size_t)16 << 20)
#define STREAM_MIN_RUN ((size_t)16 << 10)

/* Copies `bytes` from the (cached) tile to `dst` bypassing the caches. */
static void stream_copy(char *dst, const unsigned char *src, size_t bytes)
{
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (head > bytes) head = bytes;
    memcpy(dst, src, head);
    size_t i = head;
    for (; i + 16 <= bytes; i += 16)
        _mm_stream_si128((__m128i *)(void *)(dst + i), _mm_loadu_si128((const __m128i *)(const void *)(src + i)));
    memcpy(dst + i, src + i, bytes - i);
}

/* The all-native run computed tile by tile into an L1-resident buffer, each tile then streamed
 * to the output. Every element is read before it is written, as in the plain loop. */
static void run_streaming(npusim_ew_fn fn, char **ptrs, const int64_t *strides, int nin, size_t n,
                          const npusim_exec *ex)
{
    _Alignas(64) unsigned char tile[NPUSIM_BLOCK * 16];
    for (size_t off = 0; off < n; off += NPUSIM_BLOCK) {
        size_t m = n - off < NPUSIM_BLOCK ? n - off : NPUSIM_BLOCK;
        const void *in[4];
        for (int i = 0; i < nin; i++) in[i] = ptrs[i + 1] + (int64_t)off * strides[i + 1];
        fn(tile, in, m, ex);
        stream_copy(ptrs[0] + (int64_t)off * strides[0], tile, m * (size_t)strides[0]);
    }
    _mm_sfence(); /* order the streamed stores before the task reports completion */
}

/* A contiguous cast of n elements into a large output: converted tile by tile, streamed. */
static void cast_streaming(npusim_cast_fn cast, char *dst, size_t dst_size, const char *src, size_t src_size,
                           size_t n)
{
    _Alignas(64) unsigned char tile[NPUSIM_BLOCK * 16];
    const size_t block = sizeof tile / dst_size;
    for (size_t off = 0; off < n; off += block) {
        size_t m = n - off < block ? n - off : block;
        cast(tile, src + off * src_size, m);
        stream_copy(dst + off * dst_size, tile, m * dst_size);
    }
    _mm_sfence();
}
#endif

/* How an input's inner run is read: in place (contiguous, stored as the kind), as one repeated
 * value (stride 0: a broadcast dimension or a scalar operand) either filled into a buffer
 * (IN_SPLAT) or passed as one element to a kernel that takes it so (IN_SCALAR, see
 * npusim_ew_splat_fn), or converted block by block. Fixed for a whole iteration, since every
 * inner run has the same strides. */
enum { IN_NATIVE, IN_SPLAT, IN_SCALAR, IN_CONVERT };

typedef struct {
    const npusim_exec *ex;
    const npusim_ew_op *op;
    npusim_ew_fn fn;
    npusim_kind in_kind[4];
    npusim_kind out_kind;
    aclDataType dtypes[5]; /* operand 0 = out */
    size_t in_size[4];     /* bytes of one element of in_kind[i] */
    int nin;
    unsigned char in_mode[4];
    bool out_native;       /* out's runs are contiguous and stored as the kind */
    bool all_native;
    bool is_copy;          /* identity (copy, cast): converted straight between in and out */
    bool stream_out;       /* large output: contiguous runs use non-temporal stores */
    npusim_cast_fn contiguous_cast; /* copy: whole contiguous runs cast in one loop, or NULL */
    npusim_cast_fn in_cast[4];      /* IN_CONVERT inputs read contiguously: their vectorised cast, or NULL */
    npusim_cast_fn out_cast;        /* out not native but contiguous: the kind's cast to it, or NULL */
    bool byte_gather;      /* copy of a 1-byte dtype to itself with strided runs: one strided loop */
    size_t fill_size;      /* a fill of contiguous runs (fill_run): out's element size, else 0 */
} ew_ctx;

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* dst[i] = src[8 i] by AVX-512's truncating qword-to-byte move (vpmovqb), eight bytes a load;
 * returns how many it wrote (the loads stay inside the run: the last eight are left over). */
__attribute__((target("avx512f")))
static size_t gather_every_8th_avx512(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; i + 8 < n; i += 8)
        _mm_storel_epi64((__m128i *)(void *)(dst + i),
                         _mm512_cvtepi64_epi8(_mm512_loadu_si512((const void *)(src + 8 * i))));
    return i;
}

static size_t gather_every_8th(char *dst, const char *src, size_t n)
{
    static int have = -1;   /* racing first calls store the same answer */
    int known = __atomic_load_n(&have, __ATOMIC_RELAXED);
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx512f") != 0;
        __atomic_store_n(&have, known, __ATOMIC_RELAXED);
    }
    return known ? gather_every_8th_avx512(dst, src, n) : 0;
}
#else
static size_t gather_every_8th(char *dst, const char *src, size_t n)
{
    (void)dst, (void)src, (void)n;
    return 0;
}
#endif

/* dst[i * ds] = src[i * ss] for 1-byte elements: a strided copy (digit planes cut out of int64
 * words' bytes) without widening each byte to its kind and back. */
static void copy_strided_bytes(char *dst, int64_t ds, const char *src, int64_t ss, size_t n)
{
    size_t i = ds == 1 && ss == 8 ? gather_every_8th(dst, src, n) : 0;
    if (ds == 1)
        for (; i < n; i++) dst[i] = src[(int64_t)i * ss];
    else
        for (; i < n; i++) dst[(int64_t)i * ds] = src[(int64_t)i * ss];
}

/* dst[0..n) = the element at src (size bytes), repeated. */
static void splat(void *dst, const void *src, size_t size, size_t n)
{
    switch (size) {
    case 1: memset(dst, *(const uint8_t *)src, n); return;
    case 4: {
        uint32_t v, *d = dst;
        memcpy(&v, src, 4);
        for (size_t i = 0; i < n; i++) d[i] = v;
        return;
    }
    case 8: {
        uint64_t v, *d = dst;
        memcpy(&v, src, 8);
        for (size_t i = 0; i < n; i++) d[i] = v;
        return;
    }
    default:
        for (size_t i = 0; i < n; i++) memcpy((char *)dst + i * size, src, size);
    }
}

/* One inner run of n elements that is not all native: blocks through the stack buffers. */
static void run_blocks(const ew_ctx *c, char **ptrs, const int64_t *strides, size_t n)
{
    _Alignas(64) unsigned char inbuf[4][NPUSIM_BLOCK * 16];
    _Alignas(64) unsigned char outbuf[NPUSIM_BLOCK * 16];
    size_t first = n < NPUSIM_BLOCK ? n : NPUSIM_BLOCK;
    const void *scalar[4] = { NULL };
    /* a large output (see STREAM_MIN_BYTES) computed into outbuf, then streamed */
#if defined(__SSE2__)
    bool stream = c->stream_out && c->out_native && n * npusim_kind_size(c->out_kind) >= STREAM_MIN_RUN;
#else
    bool stream = false;
#endif
    for (int i = 0; i < c->nin; i++) {
        if (c->in_mode[i] == IN_SCALAR) { /* in place, or converted once for the run */
            scalar[i] = ptrs[i + 1];
            if (c->dtypes[i + 1] != npusim_kind_dtype(c->in_kind[i])) {
                npusim_load(c->in_kind[i], inbuf[i], ptrs[i + 1], 0, c->dtypes[i + 1], 1);
                scalar[i] = inbuf[i];
            }
        }
        if (c->in_mode[i] != IN_SPLAT) continue;
        /* the same value for the whole run: converted once, repeated once */
        if (c->dtypes[i + 1] == npusim_kind_dtype(c->in_kind[i])) {
            splat(inbuf[i], ptrs[i + 1], c->in_size[i], first);
        } else {
            unsigned char one[16];
            npusim_load(c->in_kind[i], one, ptrs[i + 1], 0, c->dtypes[i + 1], 1);
            splat(inbuf[i], one, c->in_size[i], first);
        }
    }
    for (size_t off = 0; off < n; off += NPUSIM_BLOCK) {
        size_t m = n - off < NPUSIM_BLOCK ? n - off : NPUSIM_BLOCK;
        char *dst = ptrs[0] + (int64_t)off * strides[0];
        const char *src0 = ptrs[1] + (int64_t)off * strides[1];
        if (c->is_copy && c->out_native) { /* cast: convert straight into out */
            npusim_load(c->in_kind[0], dst, src0, strides[1], c->dtypes[1], m);
            continue;
        }
        if (c->is_copy && c->in_mode[0] == IN_NATIVE) {
            npusim_store(c->out_kind, src0, dst, strides[0], c->dtypes[0], m);
            continue;
        }
        const void *in[4];
        for (int i = 0; i < c->nin; i++) {
            const char *src = ptrs[i + 1] + (int64_t)off * strides[i + 1];
            if (c->in_mode[i] == IN_NATIVE) {
                in[i] = src;
            } else if (c->in_mode[i] == IN_SPLAT) {
                in[i] = inbuf[i];
            } else if (c->in_mode[i] == IN_SCALAR) {
                in[i] = scalar[i];
            } else {
                if (c->in_cast[i]) c->in_cast[i](inbuf[i], src, m);
                else npusim_load(c->in_kind[i], inbuf[i], src, strides[i + 1], c->dtypes[i + 1], m);
                in[i] = inbuf[i];
            }
        }
        c->fn(c->out_native && !stream ? (void *)dst : (void *)outbuf, in, m, c->ex);
        if (c->out_native) {
#if defined(__SSE2__)
            if (stream) stream_copy(dst, outbuf, m * (size_t)strides[0]);
#endif
        } else if (c->out_cast) {
            c->out_cast(dst, outbuf, m);
        } else {
            npusim_store(c->out_kind, outbuf, dst, strides[0], c->dtypes[0], m);
        }
    }
#if defined(__SSE2__)
    if (stream) _mm_sfence();
#endif
}

/* A fill (aclnnInplaceFillScalar, a copy from a broadcast element) of a contiguous run: the
 * value converted once into out's dtype as the generic path converts it (to the kind, then to
 * out's dtype), then repeated straight into out. False when the run is not such a fill. */
static bool fill_run(const ew_ctx *c, char *dst, const char *src, size_t n)
{
    size_t size = c->fill_size;
    if (!size || (uintptr_t)dst % size) return false; /* splat stores whole elements: out aligned */
    _Alignas(16) unsigned char in_kind[16], value[16];
    npusim_load(c->in_kind[0], in_kind, src, 0, c->dtypes[1], 1);
    npusim_store(c->out_kind, in_kind, (char *)value, (int64_t)size, c->dtypes[0], 1);
    splat(dst, value, size, n);
    return true;
}

static void ew_run_chunk(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    const ew_ctx *c = vctx;
    if (fill_run(c, ptrs[0], ptrs[1], n)) return;
    if (c->byte_gather) {
        copy_strided_bytes(ptrs[0], strides[0], ptrs[1], strides[1], n);
        return;
    }
    if (c->contiguous_cast) {
#if defined(__SSE2__)
        size_t out_size = npusim_dtype_size(c->dtypes[0]);
        if (c->stream_out && n * out_size >= STREAM_MIN_RUN) {
            cast_streaming(c->contiguous_cast, ptrs[0], out_size, ptrs[1], npusim_dtype_size(c->dtypes[1]), n);
            return;
        }
#endif
        c->contiguous_cast(ptrs[0], ptrs[1], n);
        return;
    }
    if (!c->all_native) {
        run_blocks(c, ptrs, strides, n);
        return;
    }
#if defined(__SSE2__)
    if (c->stream_out && n * npusim_kind_size(c->out_kind) >= STREAM_MIN_RUN) {
        run_streaming(c->fn, ptrs, strides, c->nin, n, c->ex);
        return;
    }
#endif
    c->fn(ptrs[0], (const void *const *)(ptrs + 1), n, c->ex);
}

/* Inner runs shorter than this cost more in per-run work (iteration, splats, calls) than in
 * elements: a much longer dimension becomes the inner one instead, even when that makes some
 * operands strided. E.g. one-hot (n, 1) == (10,): n runs of 10 become 10 runs of n. */
#define SHORT_RUN 16

static void lengthen_inner_runs(npusim_nditer *it)
{
    const int inner = it->ndim - 1;
    int best = inner;
    if (it->shape[inner] >= SHORT_RUN) return;
    for (int d = 0; d < inner; d++)
        if (it->shape[d] > it->shape[best]) best = d;
    if (it->shape[best] < 4 * it->shape[inner]) return;
    int64_t t = it->shape[best];
    it->shape[best] = it->shape[inner];
    it->shape[inner] = t;
    for (int k = 0; k < it->nop; k++) {
        t = it->strides[k][best];
        it->strides[k][best] = it->strides[k][inner];
        it->strides[k][inner] = t;
    }
}

/* A binary op with one repeated input takes the kernel that reads it as one element, if the op
 * has one: no fill per run, and all-native runs (x * 2.5, x - column) go straight to it. */
static void use_scalar_kernel(ew_ctx *c)
{
    if (c->nin != 2 || (c->in_mode[0] == IN_SPLAT) == (c->in_mode[1] == IN_SPLAT)) return;
    int repeated = c->in_mode[0] == IN_SPLAT ? 0 : 1;
    npusim_ew_fn fn = npusim_ew_splat_fn(c->op, c->in_kind[0], repeated);
    if (!fn) return;
    c->fn = fn;
    c->in_mode[repeated] = IN_SCALAR;
}

/* The inner-run modes of ctx's operands for the iterator's inner strides. */
static void classify_operands(ew_ctx *c, const npusim_nditer *it)
{
    const int inner = it->ndim - 1;
    int64_t osize = (int64_t)npusim_kind_size(c->out_kind);
    c->out_native = c->dtypes[0] == npusim_kind_dtype(c->out_kind) && it->strides[0][inner] == osize;
    c->all_native = c->out_native;
    for (int i = 0; i < c->nin; i++) {
        int64_t stride = it->strides[i + 1][inner];
        c->in_size[i] = npusim_kind_size(c->in_kind[i]);
        if (c->dtypes[i + 1] == npusim_kind_dtype(c->in_kind[i]) && stride == (int64_t)c->in_size[i])
            c->in_mode[i] = IN_NATIVE;
        else
            c->in_mode[i] = stride == 0 ? IN_SPLAT : IN_CONVERT;
    }
    use_scalar_kernel(c);
    bool out_contiguous = it->strides[0][inner] == (int64_t)npusim_dtype_size(c->dtypes[0]);
    for (int i = 0; i < c->nin; i++)
        c->in_cast[i] = c->in_mode[i] == IN_CONVERT && it->strides[i + 1][inner] == (int64_t)npusim_dtype_size(c->dtypes[i + 1])
                        ? npusim_contiguous_cast(c->dtypes[i + 1], npusim_kind_dtype(c->in_kind[i])) : NULL;
    c->out_cast = !c->out_native && out_contiguous ? npusim_contiguous_cast(npusim_kind_dtype(c->out_kind), c->dtypes[0])
                                                   : NULL;
    c->contiguous_cast = c->is_copy && out_contiguous && it->strides[1][inner] == (int64_t)npusim_dtype_size(c->dtypes[1])
                         ? npusim_contiguous_cast(c->dtypes[1], c->dtypes[0]) : NULL;
    size_t out_size = npusim_dtype_size(c->dtypes[0]);
    c->fill_size = c->is_copy && c->in_mode[0] == IN_SPLAT && it->strides[0][inner] == (int64_t)out_size &&
                   out_size <= 16 ? out_size : 0;
    c->byte_gather = c->is_copy && !c->contiguous_cast && c->dtypes[0] == c->dtypes[1] &&
                     npusim_dtype_size(c->dtypes[0]) == 1;
    for (int i = 0; i < c->nin; i++)
        c->all_native = c->all_native && (c->in_mode[i] == IN_NATIVE || (c->in_mode[i] == IN_SCALAR &&
                                          c->dtypes[i + 1] == npusim_kind_dtype(c->in_kind[i])));
}

/* Memory-bound operations split across threads in chunks of at least CHEAP_CHUNK_BYTES of
 * traffic (every operand's bytes, read or written): below it a thread's share takes less than
 * handing it over (the pool's threads poll for work between operations, see
 * kernels/runtime/pool.c, so the hand-off is a few cache lines, not a wake-up). Other operations
 * (libm-like math, integer division, ...) split from NPUSIM_PARALLEL_MIN elements. */
#define CHEAP_CHUNK_BYTES ((int64_t)96 << 10)

static bool is_cheap(const npusim_ew_op *op)
{
    static const npusim_ew_op *const cheap[] = {
        &npusim_ew_add, &npusim_ew_sub, &npusim_ew_mul, &npusim_ew_div, &npusim_ew_maximum, &npusim_ew_minimum,
        &npusim_ew_eq, &npusim_ew_ne, &npusim_ew_gt, &npusim_ew_ge, &npusim_ew_lt, &npusim_ew_le, &npusim_ew_and,
        &npusim_ew_or, &npusim_ew_not, &npusim_ew_neg, &npusim_ew_abs, &npusim_ew_sqrt, &npusim_ew_identity,
        &npusim_ew_where, &npusim_ew_floor, &npusim_ew_ceil, &npusim_ew_trunc, &npusim_ew_round,
        &npusim_ew_sign, &npusim_ew_isfinite, &npusim_ew_clamp, &npusim_ew_reciprocal,
    };
    for (size_t i = 0; i < sizeof cheap / sizeof cheap[0]; i++)
        if (op == cheap[i]) return true;
    return false;
}

/* Bytes one element of the iteration moves: out's and every input's not repeated (stride 0). */
static int64_t element_bytes(const ew_ctx *c)
{
    int64_t bytes = (int64_t)npusim_dtype_size(c->dtypes[0]);
    for (int i = 0; i < c->nin; i++)
        if (c->in_mode[i] != IN_SPLAT && c->in_mode[i] != IN_SCALAR) bytes += (int64_t)npusim_dtype_size(c->dtypes[i + 1]);
    return bytes;
}

/* Whether view v is stored contiguously in C order (dimensions of size 1 have any stride). */
static bool is_contiguous(const npusim_view *v)
{
    int64_t expected = 1;
    for (int d = v->ndim - 1; d >= 0; d--) {
        if (v->shape[d] != 1 && v->strides[d] != expected) return false;
        expected *= v->shape[d];
    }
    return true;
}

static bool same_shape(const npusim_view *a, const npusim_view *b)
{
    if (a->ndim != b->ndim) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return false;
    return true;
}

/* The most common small operation in one kernel call, without the iterator: out and every
 * input contiguous, of out's shape, stored as the kind (or, for a binary op with a kernel for
 * it, one input a 0-d scalar read as one element), and too few elements to split across
 * threads. False (nothing done) otherwise. */
static bool run_single_native_run(const ew_ctx *c, npusim_view *out, npusim_view *const *in)
{
    if (c->is_copy || out->dtype != npusim_kind_dtype(c->out_kind) || !is_contiguous(out)) return false;
    int64_t n = 1;
    for (int d = 0; d < out->ndim; d++) n *= out->shape[d];
    if (n >= NPUSIM_PARALLEL_MIN) return false;
    npusim_ew_fn fn = c->fn;
    const void *ptrs[4];
    int scalars = 0;
    int64_t bytes = n * (int64_t)npusim_dtype_size(out->dtype);
    for (int i = 0; i < c->nin; i++) {
        if (in[i]->dtype != npusim_kind_dtype(c->in_kind[i])) return false;
        ptrs[i] = in[i]->base;
        if (same_shape(in[i], out) && is_contiguous(in[i])) {
            bytes += n * (int64_t)npusim_dtype_size(in[i]->dtype);
            continue;
        }
        if (in[i]->ndim != 0 || c->nin != 2 || scalars++) return false;
        if (!(fn = npusim_ew_splat_fn(c->op, c->in_kind[0], i))) return false;
    }
    if (bytes >= 2 * CHEAP_CHUNK_BYTES && is_cheap(c->op)) return false; /* split across the pool */
    if (n > 0) fn(out->base, ptrs, (size_t)n, c->ex);
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Rows: a contiguous 2-D output of rows of at most ROWS_MAX elements with an input repeated
 * along one of its dimensions (k-means' (n, 10) distances: x_sq (n, 1) - d (n, 10), d + c_sq
 * (10,), labels (n, 1) == arange(10); x - mean (n, 64) - (n, 1)). Run by run, each row costs a
 * kernel call and an iterator step for a few elements; rows shorter than SHORT_RUN with the
 * long dimension inside instead (lengthen_inner_runs) make out strided and go through the
 * converting path. Here blocks of whole rows are one flat run of the native kernel: an input
 * repeated along the rows (stride 0 across them) is tiled once into a buffer, one repeated
 * along each row (a column) is expanded block by block, and a row-major input is used in
 * place. */
#define ROWS_MAX 256
#define ROWS_BUF_BYTES (NPUSIM_BLOCK * 16) /* per buffered input: a block's tiled / expanded values */

enum { ROWS_IN_PLACE, ROWS_TILED, ROWS_EXPANDED };

typedef struct {
    const ew_ctx *c;
    const npusim_nditer *it;
    int64_t cols;                 /* elements in a row */
    int64_t block_rows;           /* rows per kernel call: ROWS_BUF_BYTES per buffered input */
    unsigned char mode[4];        /* ROWS_* of each input */
} rows_ctx;

/* dst[r * cols + j] = the element at src + r * stride, for r < rows, j < cols. A row of at most
 * EXPAND_BYTES is one store of EXPAND_BYTES repeating its element, the part past the row
 * overwritten by the next: dst needs EXPAND_BYTES of room past the last row. */
#define EXPAND_BYTES 128
#define EXPAND_LOOP(T, WIDTH)                                                                  \
    for (int64_t r = 0; r < rows; r++) {                                                       \
        T x, *d = (T *)((char *)dst + (size_t)(r * cols) * sizeof(T));                         \
        memcpy(&x, src + r * stride, sizeof x);                                                \
        for (size_t j = 0; j < (WIDTH); j++) d[j] = x;                                         \
    }
#define EXPAND_CASE(T)                                                                         \
    if ((size_t)cols * sizeof(T) <= EXPAND_BYTES) {                                            \
        EXPAND_LOOP(T, EXPAND_BYTES / sizeof(T))                                               \
    } else {                                                                                   \
        EXPAND_LOOP(T, (size_t)cols)                                                           \
    }                                                                                          \
    return;

EW_MULTI_ISA static void expand_columns(void *dst, const char *src, int64_t stride, int64_t rows, int64_t cols,
                                        size_t size)
{
    switch (size) {
    case 1: EXPAND_CASE(uint8_t)
    case 2: EXPAND_CASE(uint16_t)
    case 4: EXPAND_CASE(uint32_t)
    case 8: EXPAND_CASE(uint64_t)
    default:
        for (int64_t r = 0; r < rows; r++)
            splat((char *)dst + (size_t)(r * cols) * size, src + r * stride, size, (size_t)cols);
    }
}

static void rows_range(size_t begin, size_t end, void *vctx)
{
    const rows_ctx *rc = vctx;
    const ew_ctx *c = rc->c;
    const npusim_nditer *it = rc->it;
    _Alignas(64) unsigned char buf[4][ROWS_BUF_BYTES + EXPAND_BYTES];
    const void *in[4];
    for (int i = 0; i < c->nin; i++) { /* a row repeated down the block: tiled once, by doubling */
        if (rc->mode[i] != ROWS_TILED) continue;
        size_t row = (size_t)rc->cols * c->in_size[i], filled = row, total = (size_t)rc->block_rows * row;
        npusim_load(c->in_kind[i], buf[i], it->base[i + 1], it->strides[i + 1][1], c->dtypes[i + 1], (size_t)rc->cols);
        for (; filled < total; filled *= 2)
            memcpy(buf[i] + filled, buf[i], filled * 2 <= total ? filled : total - filled);
    }
    for (int64_t row = (int64_t)begin; row < (int64_t)end; row += rc->block_rows) {
        int64_t rows = (int64_t)end - row < rc->block_rows ? (int64_t)end - row : rc->block_rows;
        for (int i = 0; i < c->nin; i++) {
            const char *src = it->base[i + 1] + row * it->strides[i + 1][0];
            if (rc->mode[i] == ROWS_IN_PLACE) {
                in[i] = src;
            } else {
                if (rc->mode[i] == ROWS_EXPANDED)
                    expand_columns(buf[i], src, it->strides[i + 1][0], rows, rc->cols, c->in_size[i]);
                in[i] = buf[i];
            }
        }
        c->fn(it->base[0] + row * it->strides[0][0], in, (size_t)(rows * rc->cols), c->ex);
    }
}

/* The rows path for c over it (before lengthen_inner_runs); false (nothing done) when it does
 * not apply: not 2-D, rows longer than ROWS_MAX, no repeated input (rows of at least SHORT_RUN
 * then gain nothing), out not contiguous in its kind, an input stored as another dtype or
 * strided otherwise than described above. */
static bool run_rows(ew_ctx *c, const npusim_nditer *it)
{
    if (it->ndim != 2 || it->shape[1] > ROWS_MAX || c->is_copy) return false;
    int64_t cols = it->shape[1], rows = it->shape[0];
    int64_t osize = (int64_t)npusim_kind_size(c->out_kind);
    if (c->dtypes[0] != npusim_kind_dtype(c->out_kind) || it->strides[0][1] != osize ||
        it->strides[0][0] != cols * osize)
        return false;
    rows_ctx rc = { c, it, cols, 0, { 0 } };
    int64_t row_bytes = cols * osize, buffered = 0; /* the largest buffered element */
    for (int i = 0; i < c->nin; i++) {
        int64_t isz = (int64_t)npusim_kind_size(c->in_kind[i]), s0 = it->strides[i + 1][0], s1 = it->strides[i + 1][1];
        if (c->dtypes[i + 1] != npusim_kind_dtype(c->in_kind[i])) return false;
        c->in_size[i] = (size_t)isz;
        if (s1 == isz && s0 == cols * isz) {
            rc.mode[i] = ROWS_IN_PLACE;
            row_bytes += cols * isz;
            continue;
        }
        if (s0 == 0) {
            rc.mode[i] = ROWS_TILED;
        } else if (s1 == 0) {
            rc.mode[i] = ROWS_EXPANDED;
            row_bytes += isz;
        } else {
            return false;
        }
        if (isz > buffered) buffered = isz;
    }
    if (!buffered && cols >= SHORT_RUN) return false;
    rc.block_rows = buffered ? ROWS_BUF_BYTES / (cols * buffered) : NPUSIM_BLOCK / cols;
    if (rc.block_rows < 1) rc.block_rows = 1;
    int64_t grain = is_cheap(c->op) ? CHEAP_CHUNK_BYTES / row_bytes + 1
                    : rows * cols >= NPUSIM_PARALLEL_MIN ? NPUSIM_PARALLEL_MIN / 2 / cols + 1 : rows;
    if (rows < 2 * grain) rows_range(0, (size_t)rows, &rc);
    else if (rows < NPUSIM_MID_GRAINS * grain) npusim_parallel_for_mid((size_t)rows, (size_t)grain, rows_range, &rc);
    else npusim_parallel_for((size_t)rows, (size_t)grain, rows_range, &rc);
    return true;
}

void npusim_ew_run(const npusim_exec *ex, const npusim_ew_op *op, npusim_kind kind, npusim_view *out,
                   npusim_view *const *in)
{
    ew_ctx c;
    c.ex = ex;
    c.op = op;
    c.fn = op->fn[kind];
    c.nin = op->n_inputs;
    c.is_copy = op == &npusim_ew_identity;
    for (int i = 0; i < c.nin; i++) c.in_kind[i] = (op->bool_inputs >> i) & 1 ? KIND_BOOL : kind;
    c.out_kind = op->bool_out ? KIND_BOOL : (op->real_out && kind == KIND_C128) ? KIND_F64 : kind;
    npusim_view *views[5];
    views[0] = out;
    c.dtypes[0] = out->dtype;
    for (int i = 0; i < c.nin; i++) {
        views[i + 1] = in[i];
        c.dtypes[i + 1] = in[i]->dtype;
    }
    if (run_single_native_run(&c, out, in)) return;
    npusim_nditer it;
    npusim_nditer_init(&it, out->ndim, out->shape, views, c.nin + 1);
    if (run_rows(&c, &it)) return;
    lengthen_inner_runs(&it);
    classify_operands(&c, &it);
    int64_t n = npusim_nditer_size(&it);
#if defined(__SSE2__)
    c.stream_out = (size_t)n * npusim_kind_size(c.out_kind) >= STREAM_MIN_BYTES;
#else
    c.stream_out = false;
#endif
    if (is_cheap(op))
        npusim_nditer_parallel_grain(&it, CHEAP_CHUNK_BYTES / element_bytes(&c) + 1, ew_run_chunk, &c);
    else
        npusim_nditer_parallel(&it, ew_run_chunk, &c);
}

void npusim_scalar_view(npusim_view *v, const npusim_value *value, npusim_kind kind)
{
    v->dtype = npusim_kind_dtype(kind);
    v->ndim = 0;
    v->base = (char *)value;
}
