/* Set aclnn operators (reference §7.2 "Sorting, searching, selection, indexing"): aclnnUnique2.
 *
 * aclnnUnique2(self, sorted, returnInverse, returnCounts, valueOut, inverseOut, countsOut) gives
 * the distinct values of the flattened self. valueOut and countsOut are allocated with numel(self)
 * elements; the kernel sets their view shapes to the number of distinct values (read back with
 * aclGetViewShape after synchronising), as hicann/ops-nn
 * index/unique_consecutive/docs/aclnnUnique2.md describes. inverseOut has self's shape.
 *
 * npusim always returns the values in ascending order (one of the orders `sorted=false` allows).
 * Equality is value equality: -0.0 equals 0.0 (the value kept is the first occurrence's), and
 * NaN equals nothing, so every NaN is a distinct value of its own, placed last (NaN sorts as the
 * largest value, as in aclnnSort). */
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_unique2.h"
#include "ew_ops.h"

/* hicann/ops-nn index/unique_consecutive/docs/aclnnUnique2.md (self and valueOut) */
#define M_UNIQUE2 (M_BOOL | M_FLOATS | M_SINTS | M_UINTS)

typedef struct {
    union {
        double d;
        int64_t i;
        uint64_t u;
    } key;
    int64_t index; /* position in the flattened self: ties keep it ascending (a stable order) */
} unique_item;

static int cmp_f64(const void *pa, const void *pb)
{
    const unique_item *a = pa, *b = pb;
    bool an = a->key.d != a->key.d, bn = b->key.d != b->key.d;
    if (an != bn) return an ? 1 : -1;
    if (!an && a->key.d != b->key.d) return a->key.d < b->key.d ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static int cmp_i64(const void *pa, const void *pb)
{
    const unique_item *a = pa, *b = pb;
    if (a->key.i != b->key.i) return a->key.i < b->key.i ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static int cmp_u64(const void *pa, const void *pb)
{
    const unique_item *a = pa, *b = pb;
    if (a->key.u != b->key.u) return a->key.u < b->key.u ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static bool same_value(npusim_kind kind, const unique_item *a, const unique_item *b)
{
    if (kind == KIND_F64) return a->key.d == b->key.d; /* NaN != NaN: each NaN stands alone */
    return a->key.i == b->key.i;
}

/* The address of element i (C order) of view v. */
static const char *element_at(const npusim_view *v, int64_t i, size_t isz)
{
    const char *p = v->base;
    for (int d = v->ndim - 1; d >= 0; d--) {
        int64_t n = v->shape[d];
        p += (i % n) * v->strides[d] * (int64_t)isz;
        i /= n;
    }
    return p;
}

static int unique2_kernel(const npusim_exec *ex, npusim_view *views)
{
    const npusim_view *self = &views[0], *values = &views[1], *inverse = &views[2], *counts = &views[3];
    int64_t n = 1;
    for (int d = 0; d < self->ndim; d++) n *= self->shape[d];
    size_t isz = npusim_dtype_size(self->dtype);
    unique_item *items = malloc(sizeof *items * (size_t)(n ? n : 1));
    if (!items) return npusim_error(ACLNN_ERR_INNER, "aclnnUnique2: out of host memory for %lld elements", (long long)n);
    npusim_kind kind = ex->kind;
    for (int64_t i = 0; i < n; i++) {
        npusim_load(kind, &items[i].key, element_at(self, i, isz), 0, self->dtype, 1);
        items[i].index = i;
    }
    qsort(items, (size_t)n, sizeof *items, kind == KIND_F64 ? cmp_f64 : kind == KIND_U64 ? cmp_u64 : cmp_i64);
    int64_t groups = 0;
    for (int64_t i = 0, j; i < n; i = j, groups++) { /* the group of equal values [i, j) */
        for (j = i + 1; j < n && same_value(kind, &items[i], &items[j]); j++) {}
        memcpy(values->base + groups * values->strides[0] * (int64_t)isz, element_at(self, items[i].index, isz), isz);
        if (ex->present[3]) *((int64_t *)counts->base + groups * counts->strides[0]) = j - i;
        for (int64_t k = i; ex->present[2] && k < j; k++)
            *(int64_t *)element_at(inverse, items[k].index, 8) = groups;
    }
    free(items);
    ex->shape_out->shape[0] = groups;
    if (ex->shape_out2) ex->shape_out2->shape[0] = groups;
    return 0;
}

static const npusim_opdef def_unique2 = NPUSIM_OPDEF("aclnnUnique2", unique2_kernel);

static int check_unique2_outputs(const char *name, const aclTensor *self, const aclTensor *valueOut,
                                 const aclTensor *inverseOut, const aclTensor *countsOut)
{
    int64_t total = npusim_numel(self);
    int rc = npusim_check_shape_equal(name, "valueOut", valueOut, 1, &total);
    if (rc) return rc;
    if (inverseOut && ((rc = npusim_check_dtype(name, "inverseOut", inverseOut->dtype, DT(ACL_INT64))) ||
                       (rc = npusim_check_shape_equal(name, "inverseOut", inverseOut, self->ndim, self->shape))))
        return rc;
    if (countsOut && ((rc = npusim_check_dtype(name, "countsOut", countsOut->dtype, DT(ACL_INT64))) ||
                      (rc = npusim_check_shape_equal(name, "countsOut", countsOut, 1, &total))))
        return rc;
    return 0;
}

aclnnStatus aclnnUnique2GetWorkspaceSize(const aclTensor *self, bool sorted, bool returnInverse, bool returnCounts,
                                         aclTensor *valueOut, aclTensor *inverseOut, aclTensor *countsOut,
                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnUnique2";
    (void)sorted; /* npusim always sorts */
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) ||
        (rc = npusim_check_tensor(name, "valueOut", valueOut)) ||
        (inverseOut && (rc = npusim_check_tensor(name, "inverseOut", inverseOut))) ||
        (countsOut && (rc = npusim_check_tensor(name, "countsOut", countsOut))) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, M_UNIQUE2)))
        return rc;
    if (self->ndim < 1)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: self must have 1 to 8 dims (got 0)", name);
    if (valueOut->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: valueOut has dtype %s, self %s: they must "
                            "match", name, npusim_dtype_name(valueOut->dtype), npusim_dtype_name(self->dtype));
    if ((returnInverse && !inverseOut) || (returnCounts && !countsOut))
        return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: %s is NULL but requested", name,
                            returnCounts && !countsOut ? "countsOut" : "inverseOut");
    if ((rc = check_unique2_outputs(name, self, valueOut, inverseOut, countsOut))) return rc;
    const aclTensor *ins[1] = { self };
    const aclTensor *outs[3] = { valueOut, returnInverse ? inverseOut : NULL, returnCounts ? countsOut : NULL };
    npusim_exec *ex = npusim_exec_create(&def_unique2, ins, 1, outs, 3);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    npusim_kind k = npusim_kind_of(self->dtype);
    ex->kind = k == KIND_F32 ? KIND_F64 : k == KIND_U64 ? KIND_U64 : k == KIND_F64 ? KIND_F64 : KIND_I64;
    npusim_tensor_retain(valueOut);
    ex->shape_out = valueOut;
    if (returnCounts) {
        npusim_tensor_retain(countsOut);
        ex->shape_out2 = countsOut;
    }
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnUnique2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnUnique2", workspace, workspaceSize, executor, stream);
}
