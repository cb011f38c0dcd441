/* Indexing aclnn operators (docs/acl-abi.md §7.2 "Sorting, searching, selection, indexing"):
 * aclnnIndexSelect, aclnnIndex (advanced integer indexing), aclnnIndexPutImpl and aclnnMaskedSelect.
 *
 * Indices are INT32 or INT64. aclnnIndexSelect accepts [0, size) like torch.index_select;
 * aclnnIndex / aclnnIndexPutImpl also accept negative indices counted from the end, as torch and
 * NumPy do. An index out of range is found while the kernel runs: nothing is written for it and
 * the stream reports ACLNN_ERR_PARAM_INVALID at its next synchronisation. In an aclnnIndex index
 * list, a NULL entry leaves that dimension whole (a ':' slice). Results follow NumPy's placement
 * rule: adjacent indexed dims are replaced in place by the broadcast index shape, separated ones
 * move it to the front. aclnnIndexPutImpl runs in index order on one thread, so with repeated
 * indices the last value wins (accumulate=false) or all are added (accumulate=true). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_index.h"
#include "aclnnop/aclnn_index_put_impl.h"
#include "aclnnop/aclnn_index_select.h"
#include "aclnnop/aclnn_masked_select.h"
#include "ew_ops.h"

#define M_INDICES (DT(ACL_INT32) | DT(ACL_INT64))

/* ---------------------------------------------------------------------------------------------
 * Gather / scatter over a result space */

typedef struct {
    int n_idx;                         /* index operands, after the data operands */
    int first_idx;                     /* operand number of the first index */
    aclDataType idx_dtype[NPUSIM_MAX_DIMS];
    int64_t dim_size[NPUSIM_MAX_DIMS];   /* size of the indexed self dim */
    int64_t dim_stride[NPUSIM_MAX_DIMS]; /* its stride, bytes */
    bool allow_negative;
    size_t itemsize;
    /* scatter */
    bool scatter, accumulate;
    npusim_kind kind;
    aclDataType dtype, value_dtype;
    atomic_int bad;                    /* first offending index + 1, 0 if none */
    atomic_llong bad_value;
    atomic_int bad_dim;
} gather_ctx;

static bool element_offset(gather_ctx *c, char **ptrs, const int64_t *strides, size_t i, int64_t *off)
{
    *off = 0;
    for (int k = 0; k < c->n_idx; k++) {
        const char *p = ptrs[c->first_idx + k] + (int64_t)i * strides[c->first_idx + k];
        int64_t v = c->idx_dtype[k] == ACL_INT32 ? *(const int32_t *)p : *(const int64_t *)p;
        int64_t n = c->dim_size[k];
        if (v < 0 && c->allow_negative) v += n;
        if (v < 0 || v >= n) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&c->bad, &expected, 1)) {
                atomic_store(&c->bad_value, (long long)(c->allow_negative && v < 0 ? v - n : v));
                atomic_store(&c->bad_dim, k);
            }
            return false;
        }
        *off += v * c->dim_stride[k];
    }
    return true;
}

/* Operands: 0 the result (out, or values for a scatter), 1 self without its indexed dims, then
 * the indices. */
static void gather_run(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    gather_ctx *c = vctx;
    for (size_t i = 0; i < n; i++) {
        int64_t off;
        if (!element_offset(c, ptrs, strides, i, &off)) continue;
        char *self_elem = ptrs[1] + (int64_t)i * strides[1] + off;
        char *res_elem = ptrs[0] + (int64_t)i * strides[0];
        if (!c->scatter) {
            memcpy(res_elem, self_elem, c->itemsize);
        } else if (!c->accumulate) {
            unsigned char v[16];
            npusim_load(c->kind, v, res_elem, 0, c->value_dtype, 1);
            npusim_store(c->kind, v, self_elem, 0, c->dtype, 1);
        } else {
            npusim_value a = { 0 }, b = { 0 };
            npusim_load(c->kind, &a, self_elem, 0, c->dtype, 1);
            npusim_load(c->kind, &b, res_elem, 0, c->value_dtype, 1);
            if (c->kind == KIND_F64) a.d += b.d;
            else if (c->kind == KIND_F32) a.f += b.f;
            else if (c->kind == KIND_BOOL) a.b = a.b || b.b;
            else a.u += b.u;
            npusim_store(c->kind, &a, self_elem, 0, c->dtype, 1);
        }
    }
}

static int index_error(const char *name, gather_ctx *c)
{
    if (!atomic_load(&c->bad)) return 0;
    int k = atomic_load(&c->bad_dim);
    return npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: index %lld is out of bounds for a dimension of size %lld",
                        name, (long long)atomic_load(&c->bad_value), (long long)c->dim_size[k]);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnIndexSelect */

static int index_select_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view self = views[0], index = views[1], *out = &views[2];
    int d = (int)ex->dim;
    gather_ctx c;
    memset(&c, 0, sizeof c);
    c.n_idx = 1;
    c.first_idx = 2;
    c.idx_dtype[0] = index.dtype;
    c.itemsize = npusim_dtype_size(self.dtype);
    if (self.ndim == 0) { /* a 0-d self: index must be 0 */
        self.ndim = 1;
        self.shape[0] = 1;
        self.strides[0] = 0;
    }
    c.dim_size[0] = self.shape[d];
    c.dim_stride[0] = self.strides[d] * (int64_t)c.itemsize;
    self.shape[d] = 1; /* broadcast along the indexed dim; the index supplies the offset */
    /* The index as an operand over out's dims: its elements run along dim d. */
    npusim_view idx = { index.dtype, out->ndim, { 0 }, { 0 }, index.base };
    for (int k = 0; k < out->ndim; k++) idx.shape[k] = 1;
    if (out->ndim > 0) {
        idx.shape[d] = out->shape[d];
        idx.strides[d] = index.ndim ? index.strides[0] : 0;
    }
    npusim_view *ops[3] = { out, &self, &idx };
    npusim_nditer it;
    npusim_nditer_init(&it, out->ndim, out->shape, ops, 3);
    npusim_nditer_parallel(&it, gather_run, &c);
    return index_error("aclnnIndexSelect", &c);
}

static const npusim_opdef def_index_select = NPUSIM_OPDEF("aclnnIndexSelect", index_select_kernel);

aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnIndexSelect";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "index", index)) ||
        (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnIndexSelect_self)) ||
        (rc = npusim_check_dtype(name, "index", index->dtype, NPUSIM_DTYPES_aclnnIndexSelect_index)))
        return rc;
    if (out->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out has dtype %s, self %s: they must match",
                            name, npusim_dtype_name(out->dtype), npusim_dtype_name(self->dtype));
    if ((rc = npusim_normalise_dim(name, "self", dim, self->ndim, &dim))) return rc;
    if (index->ndim > 1)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: index must be 0-D or 1-D (got %d-D)",
                            name, index->ndim);
    int64_t shape[NPUSIM_MAX_DIMS];
    for (int d = 0; d < self->ndim; d++) shape[d] = self->shape[d];
    if (self->ndim) shape[dim] = npusim_numel(index);
    int out_ndim = self->ndim;
    if (self->ndim == 0 && index->ndim == 1) { /* torch: a 0-d self with a 1-D index gives 1-D */
        shape[0] = npusim_numel(index);
        out_ndim = 1;
    }
    if ((rc = npusim_check_shape_equal(name, "out", out, out_ndim, shape))) return rc;
    if (self->ndim && self->shape[dim] == 0 && npusim_numel(index) > 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: cannot select from an empty dim", name);
    const aclTensor *ins[2] = { self, index };
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_index_select, ins, 2, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->dim = self->ndim ? dim : 0;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnIndexSelect(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnIndexSelect", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * Advanced indexing geometry shared by aclnnIndex and aclnnIndexPutImpl */

typedef struct {
    int n_idx;                          /* index tensors (non-NULL entries) */
    int idx_dim[NPUSIM_MAX_DIMS];       /* the self dim each one indexes */
    int b_ndim;                         /* broadcast index shape */
    int64_t b_shape[NPUSIM_MAX_DIMS];
    int b_pos;                          /* where the broadcast dims go in the result */
    int r_ndim;                         /* the result shape */
    int64_t r_shape[NPUSIM_MAX_DIMS];
} adv_geometry;

static int adv_geometry_of(const char *name, const aclTensor *self, const aclTensorList *indices, adv_geometry *g)
{
    if (!indices) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: indices is NULL", name);
    if (!npusim_is_tensor_list(indices))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: indices is not a live aclTensorList", name);
    if (indices->size > (uint64_t)self->ndim || indices->size > NPUSIM_MAX_DIMS)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %llu index tensors for a %d-D self", name,
                            (unsigned long long)indices->size, self->ndim);
    const aclTensor *idx[NPUSIM_MAX_DIMS];
    g->n_idx = 0;
    int first = -1, last = -1;
    for (uint64_t i = 0; i < indices->size; i++) {
        const aclTensor *t = indices->tensors[i];
        if (!t) continue;
        char arg[32];
        snprintf(arg, sizeof arg, "indices[%llu]", (unsigned long long)i);
        int rc = npusim_check_tensor(name, arg, t);
        if (rc || (rc = npusim_check_dtype(name, arg, t->dtype, M_INDICES))) return rc;
        if (first < 0) first = (int)i;
        last = (int)i;
        g->idx_dim[g->n_idx] = (int)i;
        idx[g->n_idx++] = t;
    }
    if (g->n_idx == 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: indices holds no index tensor", name);
    int rc = npusim_broadcast_shape(name, idx, g->n_idx, &g->b_ndim, g->b_shape);
    if (rc) return rc;
    bool adjacent = last - first + 1 == g->n_idx;
    g->b_pos = adjacent ? first : 0;
    int rest = self->ndim - g->n_idx;
    g->r_ndim = rest + g->b_ndim;
    if (g->r_ndim > NPUSIM_MAX_DIMS)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: the result would have %d dims", name,
                            g->r_ndim);
    bool indexed[NPUSIM_MAX_DIMS] = { false };
    for (int k = 0; k < g->n_idx; k++) indexed[g->idx_dim[k]] = true;
    int r = 0;
    if (!adjacent)
        for (int b = 0; b < g->b_ndim; b++) g->r_shape[r++] = g->b_shape[b];
    for (int d = 0; d < self->ndim; d++) {
        if (adjacent && d == first)
            for (int b = 0; b < g->b_ndim; b++) g->r_shape[r++] = g->b_shape[b];
        if (!indexed[d]) g->r_shape[r++] = self->shape[d];
    }
    return 0;
}

/* Builds the gather operands over the result space: self without its indexed dims, and each index
 * placed at the broadcast dims. idx_views[k] are the index tensors' run-time views. */
static void adv_operands(const adv_geometry *g, const npusim_view *self, npusim_view *const *idx_views,
                         npusim_view *self_rest, npusim_view *idx_ops, gather_ctx *c)
{
    bool indexed[NPUSIM_MAX_DIMS] = { false };
    for (int k = 0; k < g->n_idx; k++) indexed[g->idx_dim[k]] = true;
    size_t isz = npusim_dtype_size(self->dtype);
    *self_rest = (npusim_view){ self->dtype, g->r_ndim, { 0 }, { 0 }, self->base };
    for (int r = 0; r < g->r_ndim; r++) self_rest->shape[r] = 1;
    int r = 0;
    bool placed = false;
    for (int d = 0; d < self->ndim; d++) {
        if (!placed && r == g->b_pos) {
            r += g->b_ndim;
            placed = true;
        }
        if (indexed[d]) continue;
        self_rest->shape[r] = self->shape[d];
        self_rest->strides[r] = self->strides[d];
        r++;
    }
    for (int k = 0; k < g->n_idx; k++) {
        const npusim_view *iv = idx_views[k];
        npusim_view *o = &idx_ops[k];
        *o = (npusim_view){ iv->dtype, g->r_ndim, { 0 }, { 0 }, iv->base };
        for (int q = 0; q < g->r_ndim; q++) o->shape[q] = 1;
        int lead = g->b_ndim - iv->ndim;
        for (int q = 0; q < iv->ndim; q++) {
            o->shape[g->b_pos + lead + q] = iv->shape[q];
            o->strides[g->b_pos + lead + q] = iv->strides[q];
        }
        c->idx_dtype[k] = iv->dtype;
        c->dim_size[k] = self->shape[g->idx_dim[k]];
        c->dim_stride[k] = self->strides[g->idx_dim[k]] * (int64_t)isz;
    }
    c->n_idx = g->n_idx;
    c->first_idx = 2;
    c->allow_negative = true;
    c->itemsize = isz;
}

/* Runs a gather (Index) or scatter (IndexPutImpl) whose first operand is `result`. */
static int adv_run(const char *name, const npusim_exec *ex, npusim_view *views, npusim_view *result,
                   gather_ctx *c, bool parallel)
{
    adv_geometry g;
    g.n_idx = 0;
    npusim_view *idx_views[NPUSIM_MAX_DIMS];
    for (int i = 1; i < ex->n_inputs && g.n_idx < NPUSIM_MAX_DIMS; i++) {
        if (i - 1 >= ex->n_dims) break; /* tensors after the index list (values) */
        if (!ex->present[i]) continue;
        g.idx_dim[g.n_idx] = i - 1;
        idx_views[g.n_idx++] = &views[i];
    }
    g.b_ndim = (int)ex->mode;
    g.b_pos = (int)ex->dim;
    g.r_ndim = ex->t[0].ndim - g.n_idx + g.b_ndim;
    npusim_view self_rest, idx_ops[NPUSIM_MAX_DIMS];
    adv_operands(&g, &views[0], idx_views, &self_rest, idx_ops, c);
    npusim_view *ops[2 + NPUSIM_MAX_DIMS];
    ops[0] = result;
    ops[1] = &self_rest;
    for (int k = 0; k < g.n_idx; k++) ops[2 + k] = &idx_ops[k];
    int64_t shape[NPUSIM_MAX_DIMS];
    for (int r = 0; r < g.r_ndim; r++) {
        bool is_b = r >= g.b_pos && r < g.b_pos + g.b_ndim;
        shape[r] = is_b ? 1 : self_rest.shape[r];
        for (int k = 0; is_b && k < g.n_idx; k++)
            if (idx_ops[k].shape[r] != 1) shape[r] = idx_ops[k].shape[r];
    }
    npusim_nditer it;
    npusim_nditer_init(&it, g.r_ndim, shape, ops, 2 + g.n_idx);
    if (parallel)
        npusim_nditer_parallel(&it, gather_run, c);
    else
        npusim_nditer_range(&it, 0, npusim_nditer_size(&it), gather_run, c);
    return index_error(name, c);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnIndex */

static int index_kernel(const npusim_exec *ex, npusim_view *views)
{
    gather_ctx c;
    memset(&c, 0, sizeof c);
    return adv_run("aclnnIndex", ex, views, &views[ex->n_tensors - 1], &c, true);
}

static const npusim_opdef def_index = NPUSIM_OPDEF("aclnnIndex", index_kernel);

/* Tensors: self, one per index list entry (NULL allowed), then `extra`, then the outputs. */
static npusim_exec *adv_exec(const npusim_opdef *def, const aclTensor *self, const aclTensorList *indices,
                             const aclTensor *extra, const aclTensor *out, const adv_geometry *g)
{
    const aclTensor *ins[2 + NPUSIM_MAX_DIMS];
    int n = 0;
    ins[n++] = self;
    for (uint64_t i = 0; i < indices->size; i++) ins[n++] = indices->tensors[i];
    if (extra) ins[n++] = extra;
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(def, ins, n, outs, 1);
    if (!ex) return NULL;
    ex->n_dims = (int)indices->size;
    ex->mode = g->b_ndim;
    ex->dim = g->b_pos;
    return ex;
}

aclnnStatus aclnnIndexGetWorkspaceSize(const aclTensor *self, const aclTensorList *indices, aclTensor *out,
                                       uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnIndex";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnIndex_self)))
        return rc;
    if (out->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out has dtype %s, self %s: they must match",
                            name, npusim_dtype_name(out->dtype), npusim_dtype_name(self->dtype));
    adv_geometry g;
    if ((rc = adv_geometry_of(name, self, indices, &g)) ||
        (rc = npusim_check_shape_equal(name, "out", out, g.r_ndim, g.r_shape)))
        return rc;
    npusim_exec *ex = adv_exec(&def_index, self, indices, NULL, out, &g);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnIndex(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnIndex", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnIndexPutImpl: selfRef[indices] = values (or += with accumulate), values broadcast to the
 * indexed result shape. */

static int index_put_kernel(const npusim_exec *ex, npusim_view *views)
{
    gather_ctx c;
    memset(&c, 0, sizeof c);
    npusim_view *values = &views[ex->n_inputs - 1];
    c.scatter = true;
    c.accumulate = ex->flag;
    c.dtype = views[0].dtype;
    c.value_dtype = values->dtype;
    c.kind = npusim_kind_of(c.dtype) == KIND_I32 ? KIND_I64 : npusim_kind_of(c.dtype);
    /* values broadcast to the result space */
    int n_idx = 0;
    for (int i = 1; i <= ex->n_dims; i++)
        if (ex->present[i]) n_idx++;
    int res_ndim = ex->t[0].ndim - n_idx + (int)ex->mode;
    npusim_view vb = { values->dtype, res_ndim, { 0 }, { 0 }, values->base };
    int lead = res_ndim - values->ndim;
    for (int q = 0; q < res_ndim; q++) {
        int vq = q - lead;
        vb.shape[q] = vq >= 0 ? values->shape[vq] : 1;
        vb.strides[q] = vq >= 0 && values->shape[vq] != 1 ? values->strides[vq] : 0;
        if (vb.shape[q] == 1) vb.strides[q] = 0;
    }
    return adv_run("aclnnIndexPutImpl", ex, views, &vb, &c, false);
}

static const npusim_opdef def_index_put = NPUSIM_OPDEF("aclnnIndexPutImpl", index_put_kernel);

aclnnStatus aclnnIndexPutImplGetWorkspaceSize(aclTensor *selfRef, const aclTensorList *indices, const aclTensor *values,
                                              const bool accumulate, const bool unsafe, uint64_t *workspaceSize,
                                              aclOpExecutor **executor)
{
    const char *name = "aclnnIndexPutImpl";
    (void)unsafe; /* npusim always checks the indices */
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "selfRef", selfRef)) ||
        (rc = npusim_check_tensor(name, "values", values)) ||
        (rc = npusim_check_dtype(name, "selfRef", selfRef->dtype, NPUSIM_DTYPES_aclnnIndexPutImpl_selfRef)))
        return rc;
    if (values->dtype != selfRef->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: values has dtype %s, selfRef %s: they must "
                            "match", name, npusim_dtype_name(values->dtype), npusim_dtype_name(selfRef->dtype));
    adv_geometry g;
    if ((rc = adv_geometry_of(name, selfRef, indices, &g))) return rc;
    /* values must broadcast to the result shape */
    const aclTensor *pair[1] = { values };
    int vnd;
    int64_t vshape[NPUSIM_MAX_DIMS];
    if ((rc = npusim_broadcast_shape(name, pair, 1, &vnd, vshape))) return rc;
    bool ok = vnd <= g.r_ndim;
    for (int q = 0; ok && q < vnd; q++) {
        int64_t s = vshape[q], r = g.r_shape[g.r_ndim - vnd + q];
        ok = s == r || s == 1;
    }
    if (!ok)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: values (%d-D) cannot be broadcast to the "
                            "indexed shape (%d-D)", name, vnd, g.r_ndim);
    npusim_exec *ex = adv_exec(&def_index_put, selfRef, indices, values, selfRef, &g);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->flag = accumulate;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnIndexPutImpl(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnIndexPutImpl", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnMaskedSelect: the elements of self where mask is true (both broadcast), in C order, into
 * the 1-D out allocated at the maximum size; afterwards out's view shape is the real count. */

static int masked_select_kernel(const npusim_exec *ex, npusim_view *views)
{
    const npusim_view *self = &views[0], *mask = &views[1], *out = &views[2];
    int nd = ex->n_dims;
    const int64_t *shape = ex->dims;
    int64_t total = 1;
    for (int d = 0; d < nd; d++) total *= shape[d];
    size_t isz = npusim_dtype_size(self->dtype), msz = npusim_dtype_size(mask->dtype);
    int64_t ss[NPUSIM_MAX_DIMS] = { 0 }, ms[NPUSIM_MAX_DIMS] = { 0 }, idx[NPUSIM_MAX_DIMS] = { 0 };
    for (int d = 0; d < nd; d++) {
        int sd = d - (nd - self->ndim), md = d - (nd - mask->ndim);
        ss[d] = sd >= 0 && self->shape[sd] != 1 ? self->strides[sd] * (int64_t)isz : 0;
        ms[d] = md >= 0 && mask->shape[md] != 1 ? mask->strides[md] * (int64_t)msz : 0;
    }
    int64_t ostride = out->strides[0] * (int64_t)isz, count = 0;
    const char *sp = self->base, *mp = mask->base;
    for (int64_t i = 0; i < total; i++) {
        if (*mp) memcpy(out->base + count++ * ostride, sp, isz);
        for (int d = nd - 1; d >= 0; d--) { /* C-order odometer */
            sp += ss[d];
            mp += ms[d];
            if (++idx[d] < shape[d]) break;
            sp -= ss[d] * shape[d];
            mp -= ms[d] * shape[d];
            idx[d] = 0;
        }
    }
    ex->shape_out->shape[0] = count;
    return 0;
}

static const npusim_opdef def_masked_select = NPUSIM_OPDEF("aclnnMaskedSelect", masked_select_kernel);

aclnnStatus aclnnMaskedSelectGetWorkspaceSize(const aclTensor *self, const aclTensor *mask, aclTensor *out,
                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnMaskedSelect";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "mask", mask)) ||
        (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnMaskedSelect_self)) ||
        (rc = npusim_check_dtype(name, "mask", mask->dtype, NPUSIM_DTYPES_aclnnMaskedSelect_mask)))
        return rc;
    if (out->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out has dtype %s, self %s: they must match",
                            name, npusim_dtype_name(out->dtype), npusim_dtype_name(self->dtype));
    const aclTensor *pair[2] = { self, mask };
    int nd;
    int64_t shape[NPUSIM_MAX_DIMS];
    if ((rc = npusim_broadcast_shape(name, pair, 2, &nd, shape))) return rc;
    int64_t total = 1;
    for (int d = 0; d < nd; d++) total *= shape[d];
    if (out->ndim != 1 || out->shape[0] < total)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out must be 1-D with at least %lld elements "
                            "(the broadcast size of self and mask)", name, (long long)total);
    const aclTensor *ins[2] = { self, mask };
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_masked_select, ins, 2, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->n_dims = nd;
    for (int d = 0; d < nd; d++) ex->dims[d] = shape[d];
    npusim_tensor_retain(out);
    ex->shape_out = out;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnMaskedSelect(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnMaskedSelect", workspace, workspaceSize, executor, stream);
}
