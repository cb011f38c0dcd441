/* aclnnGather (torch.gather; docs/acl-abi.md §7.2 "Sorting, searching, selection, indexing"):
 * out[i][j][k] = self[index[i][j][k]][j][k] for dim 0, and so on for the other dims.
 *
 * As hicann/ops-nn index/gather_elements_v2/docs/aclnnGather.md says: index has self's number of
 * dims, out index's shape and self's dtype; outside `dim` index's sizes are at most self's;
 * index values lie in [-self.shape[dim], self.shape[dim]) (negative ones count from the end). An
 * index out of that range is reported by the stream (ACLNN_ERR_PARAM_INVALID) and nothing is
 * read for it. */
#include <stdatomic.h>
#include <string.h>

#include "aclnnop/aclnn_gather.h"
#include "ew_ops.h"


typedef struct {
    size_t itemsize;
    aclDataType index_dtype;
    int64_t dim_size, dim_stride; /* the gathered dim of self: length, bytes */
    atomic_llong bad;             /* the first offending index (valid when failed) */
    atomic_bool failed;
} gather_elements_ctx;

/* Operands: 0 out, 1 self with the gathered dim of stride 0, 2 index. */
static void gather_elements_run(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    gather_elements_ctx *c = vctx;
    for (size_t i = 0; i < n; i++) {
        const char *ip = ptrs[2] + (int64_t)i * strides[2];
        int64_t v = c->index_dtype == ACL_INT32 ? *(const int32_t *)ip : *(const int64_t *)ip;
        if (v < 0) v += c->dim_size;
        if (v < 0 || v >= c->dim_size) {
            bool expected = false;
            if (atomic_compare_exchange_strong(&c->failed, &expected, true))
                atomic_store(&c->bad, (long long)(v < 0 ? v - c->dim_size : v));
            continue;
        }
        memcpy(ptrs[0] + (int64_t)i * strides[0], ptrs[1] + (int64_t)i * strides[1] + v * c->dim_stride,
               c->itemsize);
    }
}

static int gather_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view self = views[0], *index = &views[1], *out = &views[2];
    int d = (int)ex->dim;
    gather_elements_ctx c;
    memset(&c, 0, sizeof c);
    c.itemsize = npusim_dtype_size(self.dtype);
    c.index_dtype = index->dtype;
    if (self.ndim == 0) { /* a 0-d self is a 1-element line */
        self.ndim = 1;
        self.shape[0] = 1;
        self.strides[0] = 0;
    }
    c.dim_size = self.shape[d];
    c.dim_stride = self.strides[d] * (int64_t)c.itemsize;
    /* self over out's space: out's sizes, self's strides, the gathered dim supplied by the index */
    npusim_view src = self;
    for (int k = 0; k < out->ndim; k++) src.shape[k] = out->shape[k];
    if (out->ndim) src.strides[d] = 0;
    npusim_view *ops[3] = { out, &src, index };
    npusim_nditer it;
    npusim_nditer_init(&it, out->ndim, out->shape, ops, 3);
    npusim_nditer_parallel(&it, gather_elements_run, &c);
    if (!atomic_load(&c.failed)) return 0;
    return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnGather: index %lld is out of bounds for dim %d of size %lld",
                        (long long)atomic_load(&c.bad), d, (long long)c.dim_size);
}

static const npusim_opdef def_gather = NPUSIM_OPDEF("aclnnGather", gather_kernel);

static int check_gather_shapes(const char *name, const aclTensor *self, int64_t dim, const aclTensor *index,
                               const aclTensor *out)
{
    if (index->ndim != self->ndim)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: index has %d dims, self %d: they must match",
                            name, index->ndim, self->ndim);
    for (int k = 0; k < self->ndim; k++)
        if (k != dim && index->shape[k] > self->shape[k])
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: index size %lld exceeds self size %lld "
                                "in dim %d", name, (long long)index->shape[k], (long long)self->shape[k], k);
    if (self->ndim && self->shape[dim] == 0 && npusim_numel(index) > 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: cannot gather from an empty dim", name);
    return npusim_check_shape_equal(name, "out", out, index->ndim, index->shape);
}

aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor *self, const int64_t dim, const aclTensor *index,
                                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnGather";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "index", index)) ||
        (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnGather_self)) ||
        (rc = npusim_check_dtype(name, "index", index->dtype, NPUSIM_DTYPES_aclnnGather_index)))
        return rc;
    if (out->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out has dtype %s, self %s: they must match",
                            name, npusim_dtype_name(out->dtype), npusim_dtype_name(self->dtype));
    int64_t d;
    if ((rc = npusim_normalise_dim(name, "self", dim, self->ndim, &d))) return rc;
    if ((rc = check_gather_shapes(name, self, d, index, out))) return rc;
    const aclTensor *ins[2] = { self, index };
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_gather, ins, 2, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->dim = d;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnGather(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, const aclrtStream stream)
{
    return npusim_exec_launch("aclnnGather", workspace, workspaceSize, executor, stream);
}
