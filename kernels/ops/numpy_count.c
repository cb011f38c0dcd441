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
 * Counts accumulate in int64 and weighted sums in double, read in chunks, then are converted to
 * out's dtype. */
#include <stdlib.h>

#include "aclnnop/aclnn_bincount.h"
#include "ew_ops.h"

#define CHUNK 65536

/* views: self, [weights,] out. */
static int bincount_kernel(const npusim_exec *ex, npusim_view *views)
{
    bool weighted = ex->n_tensors == 3;
    const npusim_view *self = &views[0], *weights = weighted ? &views[1] : NULL;
    const npusim_view *out = &views[ex->n_tensors - 1];
    int64_t n = self->ndim ? self->shape[0] : 1, bins = out->shape[0];
    size_t self_size = npusim_dtype_size(self->dtype);
    double *sums = weighted ? calloc((size_t)bins + 1, sizeof(double)) : NULL;
    int64_t *counts = weighted ? NULL : calloc((size_t)bins + 1, sizeof(int64_t));
    int64_t *values = malloc(sizeof(int64_t) * CHUNK);
    double *w = weighted ? malloc(sizeof(double) * CHUNK) : NULL;
    int rc = 0;
    if ((weighted ? !sums || !w : !counts) || !values) {
        rc = npusim_error(ACLNN_ERR_INNER, "aclnnBincount: out of host memory for %lld bins", (long long)bins);
        goto done;
    }
    int64_t stride = self->ndim ? self->strides[0] * (int64_t)self_size : 0;
    for (int64_t start = 0; start < n && !rc; start += CHUNK) {
        size_t m = (size_t)(n - start < CHUNK ? n - start : CHUNK);
        npusim_load(KIND_I64, values, self->base + start * stride, stride, self->dtype, m);
        if (weighted) {
            int64_t wstride = weights->ndim ? weights->strides[0] * (int64_t)npusim_dtype_size(weights->dtype) : 0;
            npusim_load(KIND_F64, w, weights->base + start * wstride, wstride, weights->dtype, m);
        }
        for (size_t i = 0; i < m; i++) {
            int64_t v = values[i];
            if (v < 0 || v >= bins) {
                rc = npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnBincount: self[%lld] = %lld is outside [0, %lld), "
                                  "the length of out", (long long)(start + (int64_t)i), (long long)v, (long long)bins);
                break;
            }
            if (weighted) sums[v] += w[i];
            else counts[v]++;
        }
    }
    if (!rc) {
        int64_t out_stride = out->strides[0] * (int64_t)npusim_dtype_size(out->dtype);
        if (weighted) npusim_store(KIND_F64, sums, out->base, out_stride, out->dtype, (size_t)bins);
        else npusim_store(KIND_I64, counts, out->base, out_stride, out->dtype, (size_t)bins);
    }
done:
    free(sums);
    free(counts);
    free(values);
    free(w);
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
