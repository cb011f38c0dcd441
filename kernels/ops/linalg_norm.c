/* aclnnLinalgVectorNorm (hicann/ops-nn norm/lp_norm_v2/docs/aclnnLinalgVectorNorm.md):
 * out = (sum |self|^ord)^(1/ord) over `dims` (NULL or empty: every dim), keepDims as the
 * reductions; ord inf / -inf are the largest / smallest |self|, ord 0 counts the non-zero
 * elements. Documented dtypes: FLOAT32, FLOAT16, BFLOAT16 for self, out and `dtype` (which must
 * equal out's dtype; self is computed in it). ord is a scalar. Any strides.
 *
 * npusim accumulates in double, one output element at a time, outputs split across the CPU
 * pool. A reduction over no elements is 0 for every ord but -inf, which gives +inf (the
 * minimum of nothing). */
#include <math.h>
#include <stdlib.h>

#include "aclnnop/aclnn_linalg_vector_norm.h"
#include "ops_internal.h"


typedef struct {
    const npusim_exec *ex;
    const npusim_view *in, *out;
    double ord;
    int n_kept, n_reduced;
    int kept[NPUSIM_MAX_DIMS], reduced[NPUSIM_MAX_DIMS];
    int64_t out_dim[NPUSIM_MAX_DIMS]; /* out's dim for each kept dim of self */
} norm_ctx;

static double element(const npusim_view *v, const char *p)
{
    float value;
    npusim_load(KIND_F32, &value, p, 0, v->dtype, 1);
    return (double)value;
}

static double accumulate(double acc, double a, double ord)
{
    if (isinf(ord)) return ord > 0 ? (a > acc || isnan(a) ? a : acc) : (a < acc || isnan(a) ? a : acc);
    if (ord == 0) return acc + (a != 0);
    if (ord == 1) return acc + a;
    if (ord == 2) return acc + a * a;
    return acc + pow(a, ord);
}

static double finish_norm(double acc, double ord)
{
    if (isinf(ord) || ord == 0 || ord == 1) return acc;
    if (ord == 2) return sqrt(acc);
    return pow(acc, 1.0 / ord);
}

static void norm_range(size_t begin, size_t end, void *arg)
{
    const norm_ctx *c = arg;
    const npusim_view *in = c->in, *out = c->out;
    size_t isz = npusim_dtype_size(in->dtype), osz = npusim_dtype_size(out->dtype);
    int64_t count = 1;
    for (int i = 0; i < c->n_reduced; i++) count *= in->shape[c->reduced[i]];
    for (size_t o = begin; o < end; o++) {
        int64_t rest = (int64_t)o, in_off = 0, out_off = 0;
        for (int i = c->n_kept - 1; i >= 0; i--) {
            int d = c->kept[i];
            int64_t idx = rest % in->shape[d];
            rest /= in->shape[d];
            in_off += idx * in->strides[d];
            out_off += idx * out->strides[c->out_dim[i]];
        }
        double acc = c->ord == -INFINITY ? INFINITY : 0;
        for (int64_t r = 0; r < count; r++) {
            int64_t q = r, off = in_off;
            for (int i = c->n_reduced - 1; i >= 0; i--) {
                int d = c->reduced[i];
                off += (q % in->shape[d]) * in->strides[d];
                q /= in->shape[d];
            }
            acc = accumulate(acc, fabs(element(in, in->base + off * (int64_t)isz)), c->ord);
        }
        float result = (float)finish_norm(acc, c->ord);
        npusim_store(KIND_F32, &result, out->base + out_off * (int64_t)osz, 0, out->dtype, 1);
    }
}

static int norm_kernel(const npusim_exec *ex, npusim_view *v)
{
    norm_ctx c = { ex, &v[0], &v[1], ex->scalars[0].d, 0, 0, { 0 }, { 0 }, { 0 } };
    bool reduced[NPUSIM_MAX_DIMS] = { false };
    for (int i = 0; i < ex->n_dims; i++) reduced[ex->dims[i]] = true;
    int out_d = 0;
    for (int d = 0; d < v[0].ndim; d++) {
        if (reduced[d]) {
            c.reduced[c.n_reduced++] = d;
            if (ex->flag) out_d++; /* keepDims: a size-1 dim in out */
        } else {
            c.out_dim[c.n_kept] = out_d++;
            c.kept[c.n_kept++] = d;
        }
    }
    int64_t outputs = 1;
    for (int i = 0; i < c.n_kept; i++) outputs *= v[0].shape[c.kept[i]];
    npusim_parallel_for((size_t)outputs, 64, norm_range, &c);
    return 0;
}

static const npusim_opdef def_norm = NPUSIM_OPDEF("aclnnLinalgVectorNorm", norm_kernel);

aclnnStatus aclnnLinalgVectorNormGetWorkspaceSize(const aclTensor *self, const aclScalar *ord, const aclIntArray *dims,
                                                  bool keepDims, const aclDataType dtype, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnLinalgVectorNorm";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_scalar(name, "ord", ord)) ||
        (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnLinalgVectorNorm_self)) ||
        (rc = npusim_check_dtype(name, "dtype", dtype, NPUSIM_DTYPES_aclnnLinalgVectorNorm_dtype)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnLinalgVectorNorm_out)))
        return rc;
    if (dtype != out->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dtype %s must equal out's dtype %s", name,
                            npusim_dtype_name(dtype), npusim_dtype_name(out->dtype));
    int64_t reduce[NPUSIM_MAX_DIMS];
    int n_reduce = 0;
    if ((rc = npusim_normalise_dims(name, dims, self->ndim, reduce, &n_reduce))) return rc;
    bool is_reduced[NPUSIM_MAX_DIMS] = { false };
    for (int i = 0; i < n_reduce; i++) is_reduced[reduce[i]] = true;
    int64_t shape[NPUSIM_MAX_DIMS];
    int ndim = 0;
    for (int d = 0; d < self->ndim; d++)
        if (!is_reduced[d]) shape[ndim++] = self->shape[d];
        else if (keepDims) shape[ndim++] = 1;
    if ((rc = npusim_check_shape_equal(name, "out", out, ndim, shape))) return rc;
    const aclTensor *ins[1] = { self };
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_norm, ins, 1, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->scalars[0].d = npusim_scalar_double(ord);
    ex->n_dims = n_reduce;
    for (int i = 0; i < n_reduce; i++) ex->dims[i] = reduce[i];
    ex->flag = keepDims;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnLinalgVectorNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream)
{
    return npusim_exec_launch("aclnnLinalgVectorNorm", workspace, workspaceSize, executor, stream);
}
