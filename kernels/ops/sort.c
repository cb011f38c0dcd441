/* Sorting aclnn operators (reference §7.2 "Sorting, searching, selection, indexing"): aclnnSort
 * (values and INT64 indices) and aclnnArgsort along one dim.
 *
 * npusim always sorts stably (a merge sort), so `stable=false` gives the stable order too, which
 * is one of the orders CANN may return. NaN sorts as the largest value, as in torch: last in
 * ascending order, first in descending order. Lines along the dim are sorted in parallel. */
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_argsort.h"
#include "aclnnop/aclnn_sort.h"
#include "ew_ops.h"

#define M_SORT (DT(ACL_BF16) | DT(ACL_FLOAT16) | DT(ACL_FLOAT) | M_SINTS | M_UINTS | M_BOOL)
#define M_ARGSORT (DT(ACL_BF16) | DT(ACL_FLOAT16) | DT(ACL_FLOAT) | M_SINTS | M_UINTS)

typedef struct {
    union {
        double d;
        int64_t i;
        uint64_t u;
    } key;
    int64_t index;
} sort_item;

typedef struct {
    npusim_kind kind;      /* F64 (floating), I64 or U64 */
    bool descending;
    aclDataType in_dtype, values_dtype;
    int64_t length;
    int64_t in_stride, values_stride, indices_stride; /* bytes along the dim */
    bool with_values;
    atomic_int failed;
} sort_ctx;

/* a strictly before b in ascending order (NaN largest). */
static inline bool key_less(const sort_ctx *c, const sort_item *a, const sort_item *b)
{
    switch (c->kind) {
    case KIND_F64: {
        double x = a->key.d, y = b->key.d;
        if (y != y) return x == x;
        return x < y;
    }
    case KIND_U64: return a->key.u < b->key.u;
    default: return a->key.i < b->key.i;
    }
}

/* Whether b must come before a (a stable merge takes from the left unless this holds). */
static inline bool right_first(const sort_ctx *c, const sort_item *left, const sort_item *right)
{
    return c->descending ? key_less(c, left, right) : key_less(c, right, left);
}

/* Bottom-up stable merge sort of items[0, n) using tmp of the same size. Returns the sorted array. */
static sort_item *merge_sort(const sort_ctx *c, sort_item *items, sort_item *tmp, int64_t n)
{
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = right_first(c, &items[i], &items[j]) ? items[j++] : items[i++];
            while (i < mid) tmp[k++] = items[i++];
            while (j < hi) tmp[k++] = items[j++];
        }
        sort_item *swap = items;
        items = tmp;
        tmp = swap;
    }
    return items;
}

static void sort_line(sort_ctx *c, const char *in, char *values, char *indices)
{
    int64_t n = c->length;
    sort_item *items = malloc(sizeof(sort_item) * (size_t)n * 2);
    if (!items) {
        atomic_store(&c->failed, 1);
        return;
    }
    sort_item *tmp = items + n;
    for (int64_t i = 0; i < n; i++) {
        npusim_load(c->kind, &items[i].key, in + i * c->in_stride, 0, c->in_dtype, 1);
        items[i].index = i;
    }
    sort_item *sorted = merge_sort(c, items, tmp, n);
    for (int64_t i = 0; i < n; i++) {
        if (c->with_values)
            npusim_store(c->kind, &sorted[i].key, values + i * c->values_stride, 0, c->values_dtype, 1);
        *(int64_t *)(indices + i * c->indices_stride) = sorted[i].index;
    }
    free(items);
}

/* Operands: 0 indices, 1 self, 2 values (when sorting values), all at index 0 of the dim. */
static void sort_run(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    sort_ctx *c = vctx;
    for (size_t i = 0; i < n; i++)
        sort_line(c, ptrs[1] + (int64_t)i * strides[1], c->with_values ? ptrs[2] + (int64_t)i * strides[2] : NULL,
                  ptrs[0] + (int64_t)i * strides[0]);
}

/* views: self, then [values,] indices. */
static int sort_kernel(const npusim_exec *ex, npusim_view *views)
{
    bool with_values = ex->n_tensors == 3;
    npusim_view self = views[0], values = with_values ? views[1] : views[0], indices = views[ex->n_tensors - 1];
    sort_ctx c;
    memset(&c, 0, sizeof c);
    c.kind = ex->kind;
    c.descending = ex->flag;
    c.in_dtype = self.dtype;
    c.values_dtype = values.dtype;
    c.with_values = with_values;
    c.length = 1;
    if (self.ndim > 0) {
        int d = (int)ex->dim;
        c.length = self.shape[d];
        c.in_stride = self.strides[d] * (int64_t)npusim_dtype_size(self.dtype);
        c.values_stride = values.strides[d] * (int64_t)npusim_dtype_size(values.dtype);
        c.indices_stride = indices.strides[d] * (int64_t)sizeof(int64_t);
        self.shape[d] = values.shape[d] = indices.shape[d] = 1;
    }
    if (c.length == 0) return 0;
    npusim_view *ops[3] = { &indices, &self, &values };
    npusim_nditer it;
    npusim_nditer_init(&it, indices.ndim, indices.shape, ops, with_values ? 3 : 2);
    npusim_nditer_parallel(&it, sort_run, &c);
    if (atomic_load(&c.failed))
        return npusim_error(ACLNN_ERR_INNER, "%s: out of host memory for a line of %lld elements", ex->def->name,
                            (long long)c.length);
    return 0;
}

static const npusim_opdef def_sort = NPUSIM_OPDEF("aclnnSort", sort_kernel);
static const npusim_opdef def_argsort = NPUSIM_OPDEF("aclnnArgsort", sort_kernel);

static aclnnStatus sort_prepare(const npusim_opdef *def, uint64_t dtypes, const aclTensor *self, int64_t dim,
                                bool descending, aclTensor *values, aclTensor *indices, uint64_t *workspaceSize,
                                aclOpExecutor **executor)
{
    const char *name = def->name;
    const char *indices_arg = values ? "indicesOut" : "out";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) ||
        (values && (rc = npusim_check_tensor(name, "valuesOut", values))) ||
        (rc = npusim_check_tensor(name, indices_arg, indices)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, dtypes)) ||
        (rc = npusim_check_dtype(name, indices_arg, indices->dtype, DT(ACL_INT64))))
        return rc;
    if (values && values->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: valuesOut has dtype %s, self %s: they must "
                            "match", name, npusim_dtype_name(values->dtype), npusim_dtype_name(self->dtype));
    int bound = self->ndim > 0 ? self->ndim : 1;
    if (dim < -bound || dim >= bound)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dim %lld is out of range for a %d-D self",
                            name, (long long)dim, self->ndim);
    if (dim < 0) dim += bound;
    if ((values && (rc = npusim_check_shape_equal(name, "valuesOut", values, self->ndim, self->shape))) ||
        (rc = npusim_check_shape_equal(name, indices_arg, indices, self->ndim, self->shape)))
        return rc;
    const aclTensor *outs[2] = { values ? values : indices, indices };
    npusim_exec *ex = npusim_exec_create(def, &self, 1, outs, values ? 2 : 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    npusim_kind k = npusim_kind_of(self->dtype);
    ex->kind = k == KIND_F32 || k == KIND_F64 ? KIND_F64 : k == KIND_U64 ? KIND_U64 : KIND_I64;
    ex->dim = dim;
    ex->flag = descending;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnSortGetWorkspaceSize(const aclTensor *self, bool stable, int64_t dim, bool descending,
                                      aclTensor *valuesOut, aclTensor *indicesOut, uint64_t *workspaceSize,
                                      aclOpExecutor **executor)
{
    (void)stable; /* always stable, see above */
    if (!valuesOut)
        return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclnnSortGetWorkspaceSize: valuesOut is NULL");
    return sort_prepare(&def_sort, M_SORT, self, dim, descending, valuesOut, indicesOut, workspaceSize, executor);
}

aclnnStatus aclnnSort(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSort", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnArgsortGetWorkspaceSize(const aclTensor *self, int64_t dim, bool descending, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return sort_prepare(&def_argsort, M_ARGSORT, self, dim, descending, NULL, out, workspaceSize, executor);
}

aclnnStatus aclnnArgsort(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnArgsort", workspace, workspaceSize, executor, stream);
}
