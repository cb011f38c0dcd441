/* Copy, cast, fill, select and creation aclnn operators (docs/acl-abi.md §7.2 "Copy, cast, fill,
 * creation"): aclnnCast, aclnnInplaceCopy, aclnnInplaceFillScalar, aclnnSWhere,
 * aclnnInplaceMaskedFillScalar, aclnnArange. Casts wrap integers, truncate floats toward zero,
 * keep the real part of complex values and round float16/bfloat16 to nearest even. */
#include <math.h>
#include <stdlib.h>

#include "aclnnop/aclnn_arange.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_flip.h"
#include "aclnnop/aclnn_masked_fill_scalar.h"
#include "aclnnop/aclnn_s_where.h"
#include "ew_ops.h"


static const ew_spec spec_cast = EW_SPEC_OF(aclnnCast, self, out, &npusim_ew_identity, 0, RULE_CAST);
static const ew_spec spec_copy = EW_SPEC_OF(aclnnInplaceCopy, src, selfRef, &npusim_ew_identity, 0, RULE_CAST | RULE_BROADCAST_TO_OUT);
static const ew_spec spec_fill = EW_SPEC_OF(aclnnInplaceFillScalar, selfRef, selfRef, &npusim_ew_identity, 0, RULE_CAST | RULE_BROADCAST_TO_OUT);
static const ew_spec spec_where = EW_SPEC_OF(aclnnSWhere, self, out, &npusim_ew_where, 0, 0);
static const ew_spec spec_masked_fill = EW_SPEC_OF(aclnnInplaceMaskedFillScalar, selfRef, selfRef, &npusim_ew_where, 0, RULE_CAST | RULE_BROADCAST_TO_OUT);

aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (npusim_is_tensor(out) && out->dtype != dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnCastGetWorkspaceSize: dtype %s differs from out's dtype %s",
                            npusim_dtype_name(dtype), npusim_dtype_name(out->dtype));
    const ew_operand ins[] = { TENSOR_ARG(self, "self") };
    return npusim_ew_prepare(&spec_cast, ins, 1, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnCast(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnCast", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src, uint64_t *workspaceSize,
                                             aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(src, "src") };
    return npusim_ew_prepare(&spec_copy, ins, 1, NULL, NULL, selfRef, "selfRef", workspaceSize, executor);
}

aclnnStatus aclnnInplaceCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceCopy", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *value,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { SCALAR_ARG(value, "value") };
    return npusim_ew_prepare(&spec_fill, ins, 1, NULL, NULL, selfRef, "selfRef", workspaceSize, executor);
}

aclnnStatus aclnnInplaceFillScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceFillScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSWhereGetWorkspaceSize(const aclTensor *condition, const aclTensor *self, const aclTensor *other,
                                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(condition, "condition"), TENSOR_ARG(self, "self"),
                               TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_where, ins, 3, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnSWhere(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSWhere", workspace, workspaceSize, executor, stream);
}

/* selfRef = where(mask, value, selfRef): the value is cast to selfRef's dtype. */
static const int MASKED_FILL_ORDER[3] = { 1, 2, 0 };

aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclTensor *mask,
                                                         const aclScalar *value, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor)
{
    if (npusim_is_tensor(mask) && mask->dtype != ACL_BOOL)
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnInplaceMaskedFillScalarGetWorkspaceSize: mask has dtype %s, it must be BOOL",
                            npusim_dtype_name(mask->dtype));
    const ew_operand ins[] = { TENSOR_ARG(selfRef, "selfRef"), TENSOR_ARG(mask, "mask"), SCALAR_ARG(value, "value") };
    return npusim_ew_prepare(&spec_masked_fill, ins, 3, MASKED_FILL_ORDER, NULL, selfRef, "selfRef", workspaceSize,
                             executor);
}

aclnnStatus aclnnInplaceMaskedFillScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceMaskedFillScalar", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnArange: out[i] = start + i * step for i in [0, ceil((end - start) / step)). Integer
 * arguments with an integer out compute exactly in int64; otherwise in double. */


typedef struct {
    const npusim_exec *ex;
    npusim_view *out;
} arange_ctx;

static void arange_chunk(size_t begin, size_t end, void *vctx)
{
    const arange_ctx *c = vctx;
    const npusim_exec *ex = c->ex;
    _Alignas(64) unsigned char buf[NPUSIM_BLOCK * 8];
    int64_t stride = c->out->ndim ? c->out->strides[0] * (int64_t)npusim_dtype_size(c->out->dtype) : 0;
    for (size_t off = begin; off < end; off += NPUSIM_BLOCK) {
        size_t m = end - off < NPUSIM_BLOCK ? end - off : NPUSIM_BLOCK;
        if (ex->kind == KIND_I64) {
            int64_t *v = (int64_t *)buf;
            for (size_t i = 0; i < m; i++)
                v[i] = (int64_t)((uint64_t)ex->scalars[0].i + (uint64_t)(off + i) * (uint64_t)ex->scalars[1].i);
        } else {
            double *v = (double *)buf;
            for (size_t i = 0; i < m; i++) v[i] = ex->scalars[0].d + (double)(off + i) * ex->scalars[1].d;
        }
        npusim_store(ex->kind, buf, c->out->base + (int64_t)off * stride, stride, c->out->dtype, m);
    }
}

static int arange_kernel(const npusim_exec *ex, npusim_view *views)
{
    arange_ctx c = { ex, &views[0] };
    int64_t n = ex->dim;
    if (n < NPUSIM_PARALLEL_MIN)
        arange_chunk(0, (size_t)n, &c);
    else
        npusim_parallel_for((size_t)n, NPUSIM_PARALLEL_MIN / 2, arange_chunk, &c);
    return 0;
}

static const npusim_opdef def_arange = NPUSIM_OPDEF("aclnnArange", arange_kernel);

static int arange_length(const aclScalar *start, const aclScalar *end, const aclScalar *step, int64_t *length)
{
    double a = npusim_scalar_double(start), b = npusim_scalar_double(end), s = npusim_scalar_double(step);
    if (s == 0 || isnan(s) || !isfinite(a) || !isfinite(b))
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnArangeGetWorkspaceSize: start (%g), end (%g) must be finite and step (%g) "
                            "non-zero", a, b, s);
    if ((s > 0 && b < a) || (s < 0 && b > a))
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnArangeGetWorkspaceSize: step %g has the wrong sign for start %g and end %g",
                            s, a, b);
    bool integral = npusim_dtype_category(start->dtype) <= 1 && npusim_dtype_category(end->dtype) <= 1 &&
                    npusim_dtype_category(step->dtype) <= 1;
    if (integral) {
        int64_t ia, ib, is;
        npusim_scalar_value(start, KIND_I64, &ia);
        npusim_scalar_value(end, KIND_I64, &ib);
        npusim_scalar_value(step, KIND_I64, &is);
        /* |end - start| and |step| as uint64: the difference of two int64 may not fit an int64 */
        uint64_t span = is > 0 ? (uint64_t)ib - (uint64_t)ia : (uint64_t)ia - (uint64_t)ib;
        uint64_t magnitude = is > 0 ? (uint64_t)is : 0 - (uint64_t)is;
        uint64_t count = span / magnitude + (span % magnitude != 0);
        if (count > (uint64_t)INT64_MAX)
            return npusim_error(ACLNN_ERR_PARAM_INVALID,
                                "aclnnArangeGetWorkspaceSize: %llu elements do not fit a tensor",
                                (unsigned long long)count);
        *length = (int64_t)count;
    } else {
        *length = (int64_t)ceil((b - a) / s);
    }
    return 0;
}

aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end, const aclScalar *step,
                                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnArange";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_scalar(name, "start", start)) || (rc = npusim_check_scalar(name, "end", end)) ||
        (rc = npusim_check_scalar(name, "step", step)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnArange_out)))
        return rc;
    int64_t length = 0;
    if ((rc = arange_length(start, end, step, &length))) return rc;
    if (out->ndim != 1 || out->shape[0] != length)
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnArangeGetWorkspaceSize: out must be 1-D with %lld elements (got %d-D with %lld)",
                            (long long)length, out->ndim, (long long)npusim_numel(out));
    npusim_exec *ex = npusim_exec_create(&def_arange, NULL, 0, (const aclTensor *const *)&out, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    bool integral = npusim_dtype_category(start->dtype) <= 1 && npusim_dtype_category(step->dtype) <= 1 &&
                    npusim_dtype_category(out->dtype) <= 1;
    ex->kind = integral ? KIND_I64 : KIND_F64;
    npusim_scalar_value(start, ex->kind, &ex->scalars[0]);
    npusim_scalar_value(step, ex->kind, &ex->scalars[1]);
    ex->dim = length;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnArange(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnArange", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnFlip: out = self reversed along dims (torch.flip). The kernel reads self through a view
 * with negated strides, which npusim's iterators support internally. */


static int flip_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view src = views[0];
    int64_t isz = (int64_t)npusim_dtype_size(src.dtype);
    for (int i = 0; i < ex->n_dims; i++) {
        int d = (int)ex->dims[i];
        if (src.shape[d] == 0) return 0;
        src.base += (src.shape[d] - 1) * src.strides[d] * isz;
        src.strides[d] = -src.strides[d];
    }
    npusim_view copy, *in[1] = { &src };
    void *buffer = NULL;
    if (npusim_views_conflict(&src, &views[1])) { /* an in-place flip reads a copy */
        int rc = npusim_view_copy(&src, &copy, &buffer);
        if (rc) return rc;
        in[0] = &copy;
    }
    npusim_ew_run(ex, &npusim_ew_identity, npusim_kind_of(src.dtype), &views[1], in);
    free(buffer);
    return 0;
}

static const npusim_opdef def_flip = NPUSIM_OPDEF("aclnnFlip", flip_kernel);

aclnnStatus aclnnFlipGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnFlip";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnFlip_self)))
        return rc;
    if (!dims) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: dims is NULL", name);
    if (!npusim_is_int_array(dims))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dims is not a live aclIntArray", name);
    if (out->dtype != self->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out has dtype %s, self %s: they must match",
                            name, npusim_dtype_name(out->dtype), npusim_dtype_name(self->dtype));
    if ((rc = npusim_check_shape_equal(name, "out", out, self->ndim, self->shape))) return rc;
    int64_t flipped[NPUSIM_MAX_DIMS];
    bool seen[NPUSIM_MAX_DIMS] = { false };
    int n = 0;
    for (uint64_t i = 0; i < dims->size; i++) {
        int64_t d = dims->values[i];
        if (d < -self->ndim || d >= self->ndim)
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dim %lld is out of range for a %d-D self",
                                name, (long long)d, self->ndim);
        if (d < 0) d += self->ndim;
        if (seen[d])
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dim %lld appears twice", name,
                                (long long)dims->values[i]);
        seen[d] = true;
        flipped[n++] = d;
    }
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_flip, &self, 1, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->n_dims = n;
    for (int i = 0; i < n; i++) ex->dims[i] = flipped[i];
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnFlip(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnFlip", workspace, workspaceSize, executor, stream);
}
