/* The element-wise engine: out = op(in...) over broadcast views of any dtypes. Each inner run is
 * computed in the op's kind: operands already stored as that kind, contiguously, are used in
 * place (the vectorised fast path); the others are converted through small stack buffers. */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ops_internal.h"

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
#endif

typedef struct {
    const npusim_exec *ex;
    const npusim_ew_op *op;
    npusim_kind kind;
    npusim_kind in_kind[4];
    npusim_kind out_kind;
    aclDataType dtypes[5]; /* operand 0 = out */
    int nin;
    bool stream_out;       /* large output: contiguous runs use non-temporal stores */
} ew_ctx;

static void ew_run_chunk(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    const ew_ctx *c = vctx;
    const npusim_ew_fn fn = c->op->fn[c->kind];
    const size_t osize = npusim_kind_size(c->out_kind);
    bool out_native = c->dtypes[0] == npusim_kind_dtype(c->out_kind) && strides[0] == (int64_t)osize;
    bool in_native[4];
    bool all_native = out_native;
    for (int i = 0; i < c->nin; i++) {
        size_t isz = npusim_kind_size(c->in_kind[i]);
        in_native[i] = c->dtypes[i + 1] == npusim_kind_dtype(c->in_kind[i]) && strides[i + 1] == (int64_t)isz;
        all_native = all_native && in_native[i];
    }
    if (all_native) {
#if defined(__SSE2__)
        if (c->stream_out && n * osize >= STREAM_MIN_RUN) {
            run_streaming(fn, ptrs, strides, c->nin, n, c->ex);
            return;
        }
#endif
        fn(ptrs[0], (const void *const *)(ptrs + 1), n, c->ex);
        return;
    }
    _Alignas(64) unsigned char inbuf[4][NPUSIM_BLOCK * 16];
    _Alignas(64) unsigned char outbuf[NPUSIM_BLOCK * 16];
    for (size_t off = 0; off < n; off += NPUSIM_BLOCK) {
        size_t m = n - off < NPUSIM_BLOCK ? n - off : NPUSIM_BLOCK;
        const void *in[4];
        for (int i = 0; i < c->nin; i++) {
            const char *src = ptrs[i + 1] + (int64_t)off * strides[i + 1];
            if (in_native[i]) {
                in[i] = src;
            } else {
                npusim_load(c->in_kind[i], inbuf[i], src, strides[i + 1], c->dtypes[i + 1], m);
                in[i] = inbuf[i];
            }
        }
        char *dst = ptrs[0] + (int64_t)off * strides[0];
        fn(out_native ? (void *)dst : (void *)outbuf, in, m, c->ex);
        if (!out_native) npusim_store(c->out_kind, outbuf, dst, strides[0], c->dtypes[0], m);
    }
}

void npusim_ew_run(const npusim_exec *ex, const npusim_ew_op *op, npusim_kind kind, npusim_view *out,
                   npusim_view *const *in)
{
    ew_ctx c;
    c.ex = ex;
    c.op = op;
    c.kind = kind;
    c.nin = op->n_inputs;
    for (int i = 0; i < c.nin; i++) c.in_kind[i] = (op->bool_inputs >> i) & 1 ? KIND_BOOL : kind;
    c.out_kind = op->bool_out ? KIND_BOOL : (op->real_out && kind == KIND_C128) ? KIND_F64 : kind;
    npusim_view *views[5];
    views[0] = out;
    c.dtypes[0] = out->dtype;
    for (int i = 0; i < c.nin; i++) {
        views[i + 1] = in[i];
        c.dtypes[i + 1] = in[i]->dtype;
    }
    npusim_nditer it;
    npusim_nditer_init(&it, out->ndim, out->shape, views, c.nin + 1);
#if defined(__SSE2__)
    c.stream_out = (size_t)npusim_nditer_size(&it) * npusim_kind_size(c.out_kind) >= STREAM_MIN_BYTES;
#else
    c.stream_out = false;
#endif
    npusim_nditer_parallel(&it, ew_run_chunk, &c);
}

void npusim_scalar_view(npusim_view *v, const npusim_value *value, npusim_kind kind)
{
    v->dtype = npusim_kind_dtype(kind);
    v->ndim = 0;
    v->base = (char *)value;
}
