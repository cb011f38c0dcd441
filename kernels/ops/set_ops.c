/* Set aclnn operators (docs/acl-abi.md §7.2 "Sorting, searching, selection, indexing"): aclnnUnique2 and
 * aclnnIsInTensorScalar.
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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_isin_tensor_scalar.h"
#include "aclnnop/aclnn_unique2.h"
#include "ew_ops.h"


/* Sort keys: unsigned integers whose order is the value order. A NaN gets the largest key (all
 * ones, which no other value reaches), -0.0 the key of 0.0. */
#define NAN_KEY UINT64_MAX

static uint64_t order_key(npusim_kind kind, uint64_t raw)
{
    if (kind == KIND_U64) return raw;
    if (kind == KIND_I64) return raw ^ (1ull << 63);
    double d;
    memcpy(&d, &raw, sizeof d);
    if (d != d) return NAN_KEY;
    if (d == 0) return 1ull << 63; /* both zeros */
    return raw >> 63 ? ~raw : raw | (1ull << 63);
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

/* The order keys of self's elements in C order, loaded row by row along the last dim. */
static void load_keys(const npusim_view *self, npusim_kind kind, int64_t n, uint64_t *keys)
{
    size_t isz = npusim_dtype_size(self->dtype);
    int last = self->ndim - 1;
    int64_t row = self->shape[last], stride = self->strides[last] * (int64_t)isz;
    for (int64_t start = 0; start < n; start += row)
        npusim_load(kind, keys + start, element_at(self, start, isz), stride, self->dtype, (size_t)row);
    for (int64_t i = 0; i < n; i++) keys[i] = order_key(kind, keys[i]);
}

/* Stable LSD radix sort of (keys, index) by key, RADIX_BITS at a time (few enough buckets to stay
 * in cache); digits that every key shares are skipped. The result is in keys/index
 * (tmp_keys/tmp_index are scratch of the same size). */
#define RADIX_BITS 11
#define RADIX_SIZE (1 << RADIX_BITS)
static void radix_sort(uint64_t *keys, int64_t *index, uint64_t *tmp_keys, int64_t *tmp_index, int64_t n,
                       int64_t *count)
{
    const uint64_t mask = RADIX_SIZE - 1;
    for (int shift = 0; shift < 64; shift += RADIX_BITS) {
        memset(count, 0, sizeof *count * RADIX_SIZE);
        for (int64_t i = 0; i < n; i++) count[(keys[i] >> shift) & mask]++;
        if (count[(keys[0] >> shift) & mask] == n) continue;
        int64_t sum = 0;
        for (int d = 0; d < RADIX_SIZE; d++) {
            int64_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t at = count[(keys[i] >> shift) & mask]++;
            tmp_keys[at] = keys[i];
            tmp_index[at] = index[i];
        }
        memcpy(keys, tmp_keys, sizeof *keys * (size_t)n);
        memcpy(index, tmp_index, sizeof *index * (size_t)n);
    }
}

static int unique2_kernel(const npusim_exec *ex, npusim_view *views)
{
    const npusim_view *self = &views[0], *values = &views[1], *inverse = &views[2], *counts = &views[3];
    int64_t n = npusim_numel(&ex->t[0]);
    size_t isz = npusim_dtype_size(self->dtype), cells = (size_t)(n ? n : 1);
    uint64_t *keys = malloc(sizeof *keys * cells * 2);
    int64_t *index = malloc(sizeof *index * cells * 2), *count = malloc(sizeof *count * RADIX_SIZE);
    if (!keys || !index || !count) {
        free(keys);
        free(index);
        free(count);
        return npusim_error(ACLNN_ERR_INNER, "aclnnUnique2: out of host memory for %lld elements", (long long)n);
    }
    if (n) {
        load_keys(self, ex->kind, n, keys);
        for (int64_t i = 0; i < n; i++) index[i] = i;
        radix_sort(keys, index, keys + n, index + n, n, count);
    }
    bool nan_alone = ex->kind == KIND_F64; /* NaN equals nothing; for integers all ones is a value */
    int64_t groups = 0;
    for (int64_t i = 0, j; i < n; i = j, groups++) { /* the group of equal values [i, j) */
        j = i + 1;
        if (!(nan_alone && keys[i] == NAN_KEY))
            while (j < n && keys[j] == keys[i]) j++;
        memcpy(values->base + groups * values->strides[0] * (int64_t)isz, element_at(self, index[i], isz), isz);
        if (ex->present[3]) *((int64_t *)counts->base + groups * counts->strides[0]) = j - i;
        for (int64_t k = i; ex->present[2] && k < j; k++) *(int64_t *)element_at(inverse, index[k], 8) = groups;
    }
    free(keys);
    free(index);
    free(count);
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
    if (inverseOut && ((rc = npusim_check_dtype(name, "inverseOut", inverseOut->dtype, NPUSIM_DTYPES_aclnnUnique2_inverseOut)) ||
                       (rc = npusim_check_shape_equal(name, "inverseOut", inverseOut, self->ndim, self->shape))))
        return rc;
    if (countsOut && ((rc = npusim_check_dtype(name, "countsOut", countsOut->dtype, NPUSIM_DTYPES_aclnnUnique2_countsOut)) ||
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
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnUnique2_self)))
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

/* ---------------------------------------------------------------------------------------------
 * aclnnIsInTensorScalar: out = (element == testElement), negated with invert, in the promoted
 * dtype (NaN equals nothing); out is BOOL with element's shape. assumeUnique changes nothing for
 * a single test element. */

static const ew_spec spec_isin = EW_SPEC_OF(aclnnIsInTensorScalar, element, out, &npusim_ew_eq, 0, 0);
static const ew_spec spec_isin_invert = EW_SPEC_OF(aclnnIsInTensorScalar, element, out, &npusim_ew_ne, 0, 0);

aclnnStatus aclnnIsInTensorScalarGetWorkspaceSize(const aclTensor *element, const aclScalar *testElement,
                                                  bool assumeUnique, bool invert, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)assumeUnique;
    const ew_operand ins[] = { TENSOR_ARG(element, "element"), SCALAR_ARG(testElement, "testElement") };
    return npusim_ew_prepare(invert ? &spec_isin_invert : &spec_isin, ins, 2, NULL, NULL, out, NULL, workspaceSize,
                             executor);
}

aclnnStatus aclnnIsInTensorScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnIsInTensorScalar", workspace, workspaceSize, executor, stream);
}
