/* aclnnLinalgCross (hicann/ops-math math/cross/docs/aclnnLinalgCross.md): out = self x other,
 * the cross product of 3-vectors along `dim`, self and other broadcast against each other; self,
 * other and out share one dtype: INT8, INT16, INT32, INT64, UINT8, FLOAT16, BFLOAT16, FLOAT,
 * FLOAT64, COMPLEX64, COMPLEX128. `dim` counts in self's dims ([-ndim, ndim - 1]); the broadcast
 * size along it must be 3.
 *
 * npusim computes integers in wrapping 64-bit arithmetic, float16/bfloat16/float in float,
 * double in double and complex in complex double, stored back to the dtype. Any strides. */
#include <string.h>

#include "aclnnop/aclnn_linalg_cross.h"
#include "ops_internal.h"


static npusim_kind cross_kind(aclDataType dt)
{
    if (npusim_is_complex(dt)) return KIND_C128;
    if (dt == ACL_DOUBLE) return KIND_F64;
    return npusim_is_float(dt) ? KIND_F32 : KIND_I64;
}

/* c = a1 b2 - a2 b1 in kind k (values stored as the kind's C type). */
static void difference(npusim_kind k, const void *a1, const void *b2, const void *a2, const void *b1, void *c)
{
    if (k == KIND_I64) {
        uint64_t r = (uint64_t) * (const int64_t *)a1 * (uint64_t) * (const int64_t *)b2 -
                     (uint64_t) * (const int64_t *)a2 * (uint64_t) * (const int64_t *)b1;
        *(int64_t *)c = (int64_t)r;
    } else if (k == KIND_F32) {
        *(float *)c = *(const float *)a1 * *(const float *)b2 - *(const float *)a2 * *(const float *)b1;
    } else if (k == KIND_F64) {
        *(double *)c = *(const double *)a1 * *(const double *)b2 - *(const double *)a2 * *(const double *)b1;
    } else {
        const double *x = a1, *y = b2, *u = a2, *v = b1;
        double *r = c;
        r[0] = (x[0] * y[0] - x[1] * y[1]) - (u[0] * v[0] - u[1] * v[1]);
        r[1] = (x[0] * y[1] + x[1] * y[0]) - (u[0] * v[1] + u[1] * v[0]);
    }
}

typedef struct {
    const npusim_exec *ex;
    npusim_view *v; /* self, other, out */
    int dim;        /* in out's dims */
    int64_t strides[3][NPUSIM_MAX_DIMS]; /* element strides of each operand over out's dims */
    bool packed;    /* float or double, each operand C-contiguous in out's shape, dim last */
} cross_ctx;

/* The packed case, the common one (NumPy's (n, 3) vectors): lines are consecutive triples, read
 * and written with typed loads, so the loop has no per-element dtype dispatch or index division.
 * Each product is rounded separately as NumPy's a1 * b2 - a2 * b1 is (C11 without contraction). */
#define CROSS_PACKED(T)                                                                      \
    static void cross_packed_##T(const T *a, const T *b, T *r, size_t begin, size_t end)     \
    {                                                                                        \
        for (size_t i = begin * 3; i < end * 3; i += 3) {                                    \
            T a0 = a[i], a1 = a[i + 1], a2 = a[i + 2], b0 = b[i], b1 = b[i + 1], b2 = b[i + 2]; \
            r[i] = a1 * b2 - a2 * b1;                                                        \
            r[i + 1] = a2 * b0 - a0 * b2;                                                    \
            r[i + 2] = a0 * b1 - a1 * b0;                                                    \
        }                                                                                    \
    }
CROSS_PACKED(float)
CROSS_PACKED(double)

static void cross_range(size_t begin, size_t end, void *arg)
{
    const cross_ctx *c = arg;
    const npusim_view *out = &c->v[2];
    npusim_kind k = c->ex->kind;
    if (c->packed) {
        if (out->dtype == ACL_FLOAT)
            cross_packed_float((const float *)c->v[0].base, (const float *)c->v[1].base, (float *)out->base, begin, end);
        else
            cross_packed_double((const double *)c->v[0].base, (const double *)c->v[1].base, (double *)out->base, begin,
                                end);
        return;
    }
    unsigned char a[3][16], b[3][16], r[16];
    for (size_t line = begin; line < end; line++) {
        int64_t rest = (int64_t)line, off[3] = { 0, 0, 0 };
        for (int d = out->ndim - 1; d >= 0; d--) {
            if (d == c->dim) continue;
            int64_t idx = rest % out->shape[d];
            rest /= out->shape[d];
            for (int t = 0; t < 3; t++) off[t] += idx * c->strides[t][d];
        }
        for (int i = 0; i < 3; i++) {
            const npusim_view *s = &c->v[0], *o = &c->v[1];
            npusim_load(k, a[i], s->base + (off[0] + i * c->strides[0][c->dim]) * (int64_t)npusim_dtype_size(s->dtype),
                        0, s->dtype, 1);
            npusim_load(k, b[i], o->base + (off[1] + i * c->strides[1][c->dim]) * (int64_t)npusim_dtype_size(o->dtype),
                        0, o->dtype, 1);
        }
        for (int i = 0; i < 3; i++) {
            int j = (i + 1) % 3, l = (i + 2) % 3;
            difference(k, a[j], b[l], a[l], b[j], r);
            npusim_store(k, r, out->base + (off[2] + i * c->strides[2][c->dim]) * (int64_t)npusim_dtype_size(out->dtype),
                         0, out->dtype, 1);
        }
    }
}

static int cross_kernel(const npusim_exec *ex, npusim_view *v)
{
    cross_ctx c = { ex, v, (int)ex->dim, { { 0 } }, false };
    const npusim_view *out = &v[2];
    c.packed = (out->dtype == ACL_FLOAT || out->dtype == ACL_DOUBLE) && c.dim == out->ndim - 1;
    for (int t = 0; t < 3; t++) {
        int lead = out->ndim - v[t].ndim;
        int64_t contiguous = 1;
        for (int d = out->ndim - 1; d >= 0; d--) {
            int e = d - lead;
            c.strides[t][d] = e >= 0 && v[t].shape[e] != 1 ? v[t].strides[e] : 0;
            if (out->shape[d] != 1 && (e < 0 || v[t].shape[e] != out->shape[d] || c.strides[t][d] != contiguous))
                c.packed = false;
            contiguous *= out->shape[d];
        }
    }
    int64_t lines = 1;
    for (int d = 0; d < out->ndim; d++)
        if (d != c.dim) lines *= out->shape[d];
    npusim_parallel_for((size_t)lines, 1024, cross_range, &c);
    return 0;
}

static const npusim_opdef def_cross = NPUSIM_OPDEF("aclnnLinalgCross", cross_kernel);

aclnnStatus aclnnLinalgCrossGetWorkspaceSize(const aclTensor *self, const aclTensor *other, int64_t dim, aclTensor *out,
                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnLinalgCross";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "other", other)) ||
        (rc = npusim_check_tensor(name, "out", out)) || (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnLinalgCross_self)))
        return rc;
    if (other->dtype != self->dtype || out->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: self, other and out must share one dtype "
                            "(got %s, %s, %s)", name, npusim_dtype_name(self->dtype),
                            npusim_dtype_name(other->dtype), npusim_dtype_name(out->dtype));
    const aclTensor *both[2] = { self, other };
    int ndim = 0;
    int64_t shape[NPUSIM_MAX_DIMS];
    if ((rc = npusim_broadcast_shape(name, both, 2, &ndim, shape)) ||
        (rc = npusim_check_shape_equal(name, "out", out, ndim, shape)))
        return rc;
    if (dim < -self->ndim || dim >= self->ndim || self->ndim == 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dim %lld is out of range for self's %d "
                            "dims", name, (long long)dim, self->ndim);
    int64_t d = (dim < 0 ? dim + self->ndim : dim) + (ndim - self->ndim);
    if (shape[d] != 3)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: the broadcast size along dim %lld is "
                            "%lld, not 3", name, (long long)dim, (long long)shape[d]);
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_cross, both, 2, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->dim = d;
    ex->kind = cross_kind(self->dtype);
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnLinalgCross(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLinalgCross", workspace, workspaceSize, executor, stream);
}
