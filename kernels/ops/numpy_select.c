/* Selection operators behind NumPy's order statistics (numpy.median, percentile,
 * quantile, partition): aclnnKthvalue, the k-th smallest element (k from 1, as torch.kthvalue,
 * which it backs in torch_npu) of every line of self along dim, with its INT64 index.
 *
 * dtypes: self / valuesOut BFLOAT16, FLOAT16, FLOAT, INT8, INT16, INT32, INT64, UINT8 (Atlas A2 /
 * A3 column of the dtype table in CANN's aclnnKthvalue.md, hicann/ops-nn
 * index/kth_value/docs/aclnnKthvalue.md); indicesOut INT64. Others fail with
 * ACLNN_ERR_PARAM_INVALID, as on the NPU: there is no DOUBLE.
 *
 * NaN counts as the largest value and -0.0 equals +0.0 (the order of aclnnSort). Each line is
 * loaded as 64-bit keys that order like the values, then a quickselect (median of three, Hoare
 * partition) finds the k-th key in linear expected time; the index is the first element with
 * that key, and the value is copied from self there, keeping its bits. Lines are processed in
 * parallel. */
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

static void load_keys(const select_ctx *c, uint64_t *keys, const char *in)
{
    npusim_load(c->floating ? KIND_F64 : KIND_I64, keys, in, c->in_stride, c->in_dtype, (size_t)c->length);
    for (int64_t i = 0; i < c->length; i++) keys[i] = order_key(c->floating, keys[i]);
}

static void select_line(select_ctx *c, const char *in, char *value, char *index)
{
    int64_t n = c->length;
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
