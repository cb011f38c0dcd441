/* Scan aclnn operators (docs/acl-abi.md §7.2): aclnnCumprod and aclnnInplaceCumprod, running products
 * along one dim.
 *
 * CANN's signature differs from aclnnCumsum's: `dim` is an aclScalar (INT32) and `dtype` may be
 * ACL_DT_UNDEFINED (compute in input's dtype); otherwise input is converted to `dtype` first and
 * out must have that dtype. Products are accumulated in double (floating dtypes) or in 64-bit
 * wrapping integers (integer dtypes), then stored in out's dtype. Lines run in parallel. */
#include "aclnnop/aclnn_cumprod.h"
#include "ew_ops.h"

typedef struct {
    npusim_kind kind; /* F64, I64 or U64 */
    aclDataType in_dtype, out_dtype;
    int64_t length, in_stride, out_stride; /* along the dim; strides in bytes */
} cumprod_ctx;

static void cumprod_line(const cumprod_ctx *c, const char *in, char *out)
{
    _Alignas(64) unsigned char buf[NPUSIM_BLOCK * 8];
    double run_d = 1.0;
    uint64_t run_u = 1; /* signed products wrap with the same bits */
    for (int64_t off = 0; off < c->length; off += NPUSIM_BLOCK) {
        size_t m = (size_t)(c->length - off < NPUSIM_BLOCK ? c->length - off : NPUSIM_BLOCK);
        npusim_load(c->kind, buf, in + off * c->in_stride, c->in_stride, c->in_dtype, m);
        if (c->kind == KIND_F64) {
            double *v = (double *)buf;
            for (size_t i = 0; i < m; i++) v[i] = run_d *= v[i];
        } else {
            uint64_t *v = (uint64_t *)buf;
            for (size_t i = 0; i < m; i++) v[i] = run_u *= v[i];
        }
        npusim_store(c->kind, buf, out + off * c->out_stride, c->out_stride, c->out_dtype, m);
    }
}

/* Operand 0: out, operand 1: input, both at index 0 of the scanned dim. */
static void cumprod_run(char **ptrs, const int64_t *strides, size_t n, void *vctx)
{
    for (size_t i = 0; i < n; i++)
        cumprod_line(vctx, ptrs[1] + (int64_t)i * strides[1], ptrs[0] + (int64_t)i * strides[0]);
}

/* views: input, out (the same tensor for the in-place variant, which reads each line before writing
 * the same positions in order, so no copy is needed). */
static int cumprod_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view self = views[0], out = views[ex->n_tensors - 1];
    cumprod_ctx c = { ex->kind, self.dtype, out.dtype, 1, 0, 0 };
    if (self.ndim > 0) {
        int d = (int)ex->dim;
        c.length = self.shape[d];
        c.in_stride = self.strides[d] * (int64_t)npusim_dtype_size(self.dtype);
        c.out_stride = out.strides[d] * (int64_t)npusim_dtype_size(out.dtype);
        self.shape[d] = out.shape[d] = 1;
    }
    if (c.length == 0) return 0;
    npusim_view *ops[2] = { &out, &self };
    npusim_nditer it;
    npusim_nditer_init(&it, out.ndim, out.shape, ops, 2);
    npusim_nditer_parallel(&it, cumprod_run, &c);
    return 0;
}

static const npusim_opdef def_cumprod = NPUSIM_OPDEF("aclnnCumprod", cumprod_kernel);
static const npusim_opdef def_inplace_cumprod = NPUSIM_OPDEF("aclnnInplaceCumprod", cumprod_kernel);

/* The dim held by the INT32 scalar `dim`, normalised against input's rank (0-d: rank 1). */
static int cumprod_dim(const char *name, const aclTensor *input, const aclScalar *dim, int64_t *out)
{
    int rc = npusim_check_scalar(name, "dim", dim);
    if (rc || (rc = npusim_check_dtype(name, "dim", dim->dtype, NPUSIM_DTYPES_aclnnCumprod_dim))) return rc;
    int64_t d = 0;
    npusim_scalar_value(dim, KIND_I64, &d);
    return npusim_normalise_dim(name, "input", d, input->ndim, out);
}

static aclnnStatus cumprod_prepare(const npusim_opdef *def, const aclTensor *input, const aclScalar *dim,
                                   aclTensor *out, bool inplace, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = def->name;
    int64_t d = 0;
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "input", input)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "input", input->dtype, NPUSIM_DTYPES_aclnnCumprod_input)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnCumprod_out)) ||
        (rc = cumprod_dim(name, input, dim, &d)) ||
        (rc = npusim_check_shape_equal(name, "out", out, input->ndim, input->shape)))
        return rc;
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(def, &input, inplace ? 0 : 1, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    npusim_kind k = npusim_kind_of(out->dtype);
    ex->kind = k == KIND_F32 || k == KIND_F64 ? KIND_F64 : k == KIND_U64 ? KIND_U64 : KIND_I64;
    ex->dim = d;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnCumprodGetWorkspaceSize(const aclTensor *input, const aclScalar *dim, const aclDataType dtype,
                                         aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnCumprod";
    if (npusim_is_tensor(input) && npusim_is_tensor(out)) {
        aclDataType want = dtype == ACL_DT_UNDEFINED ? input->dtype : dtype;
        if (dtype != ACL_DT_UNDEFINED && !npusim_dtype_in(dtype, NPUSIM_DTYPES_aclnnCumprod_out))
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dtype %s is not supported", name,
                                npusim_dtype_name(dtype));
        if (out->dtype != want)
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out has dtype %s, expected %s (%s)",
                                name, npusim_dtype_name(out->dtype), npusim_dtype_name(want),
                                dtype == ACL_DT_UNDEFINED ? "input's dtype" : "the dtype argument");
    }
    return cumprod_prepare(&def_cumprod, input, dim, out, false, workspaceSize, executor);
}

aclnnStatus aclnnCumprod(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnCumprod", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceCumprodGetWorkspaceSize(aclTensor *input, const aclScalar *dim, uint64_t *workspaceSize,
                                                aclOpExecutor **executor)
{
    return cumprod_prepare(&def_inplace_cumprod, input, dim, input, true, workspaceSize, executor);
}

aclnnStatus aclnnInplaceCumprod(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceCumprod", workspace, workspaceSize, executor, stream);
}
