/* Counting operator behind NumPy's bincount and histogram: aclnnBincount, the number
 * of occurrences (or the sum of weights) of each value 0, 1, ... of a 1-D non-negative integer
 * self, into out, whose length the caller sizes (max(self) + 1, at least minlength).
 *
 * dtypes (CANN's aclnnBincount.md, API/aolapi/context/aclnnBincount.md): self INT8, INT16, INT32,
 * INT64, UINT8; weights (may be NULL) FLOAT, FLOAT16, DOUBLE, INT8, INT16, INT32, INT64, UINT8,
 * BOOL, of self's shape; out INT32, INT64, FLOAT, DOUBLE, 1-D. Others fail with
 * ACLNN_ERR_PARAM_INVALID. npusim fails loudly where the NPU would write out of bounds: a
 * negative value or one >= len(out) is an ACLNN_ERR_PARAM_INVALID error of the launch.
 *
 * Counts accumulate in int64 and weighted sums in double, read in chunks (split across the CPU
 * pool, each with its own bins), then are converted to out's dtype. */
#include <stdlib.h>

#include "aclnnop/aclnn_bincount.h"
#include "ew_ops.h"

#define CHUNK 65536

/* Each of BINCOUNT_CHUNKS chunks of self is counted into its own bins on the CPU pool, then the
 * bins are summed. */
#define BINCOUNT_CHUNKS 8

typedef struct {
    const npusim_view *self, *weights;
    int64_t n, bins, chunk;
    int64_t *counts;       /* [BINCOUNT_CHUNKS][bins], or NULL */
    double *sums;          /* [BINCOUNT_CHUNKS][bins], or NULL */
    int64_t bad[BINCOUNT_CHUNKS]; /* the first index of a value outside [0, bins), else -1 */
    int64_t bad_value[BINCOUNT_CHUNKS];
    atomic_int failed;
} bincount_ctx;

static void bincount_chunk(size_t begin, size_t end, void *vctx)
{
    bincount_ctx *b = vctx;
    int64_t *values = malloc(sizeof(int64_t) * CHUNK);
    double *w = b->weights ? malloc(sizeof(double) * CHUNK) : NULL;
    int64_t stride = b->self->ndim ? b->self->strides[0] * (int64_t)npusim_dtype_size(b->self->dtype) : 0;
    int64_t wstride = b->weights && b->weights->ndim
                          ? b->weights->strides[0] * (int64_t)npusim_dtype_size(b->weights->dtype) : 0;
    for (size_t c = begin; c < end; c++) {
        int64_t lo = (int64_t)c * b->chunk, hi = lo + b->chunk < b->n ? lo + b->chunk : b->n;
        int64_t *counts = b->counts ? b->counts + (int64_t)c * b->bins : NULL;
        double *sums = b->sums ? b->sums + (int64_t)c * b->bins : NULL;
        if (!values || (b->weights && !w)) {
            atomic_store(&b->failed, 1);
            continue;
        }
        for (int64_t start = lo; start < hi && b->bad[c] < 0; start += CHUNK) {
            size_t m = (size_t)(hi - start < CHUNK ? hi - start : CHUNK);
            npusim_load(KIND_I64, values, b->self->base + start * stride, stride, b->self->dtype, m);
            if (w) npusim_load(KIND_F64, w, b->weights->base + start * wstride, wstride, b->weights->dtype, m);
            for (size_t i = 0; i < m; i++) {
                int64_t v = values[i];
                if (v < 0 || v >= b->bins) {
                    b->bad[c] = start + (int64_t)i;
                    b->bad_value[c] = v;
                    break;
                }
                if (sums) sums[v] += w[i];
                else counts[v]++;
            }
        }
    }
    free(values);
    free(w);
}

/* views: self, [weights,] out. */
static int bincount_kernel(const npusim_exec *ex, npusim_view *views)
{
    bool weighted = ex->n_tensors == 3;
    bincount_ctx b = { .self = &views[0], .weights = weighted ? &views[1] : NULL };
    const npusim_view *out = &views[ex->n_tensors - 1];
    b.n = b.self->ndim ? b.self->shape[0] : 1;
    b.bins = out->shape[0];
    /* Weighted sums stay sequential: the order of NumPy's additions, so the same roundings. */
    int chunks = weighted ? 1 : BINCOUNT_CHUNKS;
    b.chunk = (b.n + chunks - 1) / chunks;
    for (int c = 0; c < BINCOUNT_CHUNKS; c++) b.bad[c] = -1;
    if (weighted) b.sums = calloc((size_t)(BINCOUNT_CHUNKS * b.bins + 1), sizeof(double));
    else b.counts = calloc((size_t)(BINCOUNT_CHUNKS * b.bins + 1), sizeof(int64_t));
    int rc = 0;
    if (!b.sums && !b.counts)
        return npusim_error(ACLNN_ERR_INNER, "aclnnBincount: out of host memory for %lld bins", (long long)b.bins);
    npusim_parallel_for((size_t)chunks, 1, bincount_chunk, &b);
    for (int c = 0; c < BINCOUNT_CHUNKS && !rc; c++)
        if (b.bad[c] >= 0)
            rc = npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnBincount: self[%lld] = %lld is outside [0, %lld), the "
                              "length of out", (long long)b.bad[c], (long long)b.bad_value[c], (long long)b.bins);
    if (!rc && atomic_load(&b.failed))
        rc = npusim_error(ACLNN_ERR_INNER, "aclnnBincount: out of host memory for %lld bins", (long long)b.bins);
    if (!rc) {
        for (int c = 1; c < chunks; c++)
            for (int64_t i = 0; i < b.bins; i++) {
                if (weighted) b.sums[i] += b.sums[c * b.bins + i];
                else b.counts[i] += b.counts[c * b.bins + i];
            }
        int64_t out_stride = out->strides[0] * (int64_t)npusim_dtype_size(out->dtype);
        if (weighted) npusim_store(KIND_F64, b.sums, out->base, out_stride, out->dtype, (size_t)b.bins);
        else npusim_store(KIND_I64, b.counts, out->base, out_stride, out->dtype, (size_t)b.bins);
    }
    free(b.sums);
    free(b.counts);
    return rc;
}

static const npusim_opdef def_bincount = NPUSIM_OPDEF("aclnnBincount", bincount_kernel);

aclnnStatus aclnnBincountGetWorkspaceSize(const aclTensor *self, const aclTensor *weights, int64_t minlength,
                                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnBincount";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (weights && (rc = npusim_check_tensor(name, "weights", weights))) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnBincount_self)) ||
        (weights && (rc = npusim_check_dtype(name, "weights", weights->dtype, NPUSIM_DTYPES_aclnnBincount_weights))) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnBincount_out)))
        return rc;
    if (self->ndim != 1 || out->ndim != 1)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnBincountGetWorkspaceSize: self and out must be 1-D, got "
                            "%d-D and %d-D", self->ndim, out->ndim);
    if (weights && (rc = npusim_check_shape_equal(name, "weights", weights, self->ndim, self->shape)))
        return rc;
    if (minlength < 0 || out->shape[0] < minlength)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnBincountGetWorkspaceSize: out has length %lld, shorter "
                            "than minlength %lld (which must be >= 0)", (long long)out->shape[0],
                            (long long)minlength);
    const aclTensor *inputs[2] = { self, weights };
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_bincount, inputs, weights ? 2 : 1, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnBincount(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnBincount", workspace, workspaceSize, executor, stream);
}
