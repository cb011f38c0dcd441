/* The first phase of every element-wise operator: argument checks, type promotion, the choice of
 * computation kind, broadcasting against out, and the executor. */
#include <stdlib.h>

#include "ew_ops.h"

int npusim_ew_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view scalar_views[4], copies[4];
    void *buffers[4] = { NULL };
    npusim_view *in[4];
    npusim_view *out = &views[ex->n_tensors - 1];
    int rc = 0;
    for (int i = 0; i < ex->ew->n_inputs; i++) {
        int src = ex->ew_src[i];
        if (src >= 0) {
            in[i] = &views[src];
            /* An input partly overlapping the output is read from a copy, as NumPy does. */
            if (npusim_views_conflict(in[i], out)) {
                if ((rc = npusim_view_copy(in[i], &copies[i], &buffers[i]))) break;
                in[i] = &copies[i];
            }
        } else {
            npusim_kind k = (ex->ew->bool_inputs >> i) & 1 ? KIND_BOOL : ex->kind;
            npusim_scalar_view(&scalar_views[i], &ex->scalars[-1 - src], k);
            in[i] = &scalar_views[i];
        }
    }
    if (!rc) npusim_ew_run(ex, ex->ew, ex->kind, out, in);
    for (int i = 0; i < 4; i++) free(buffers[i]);
    return rc;
}

/* Promoted dtype of the operands that take part in promotion (not bool-loaded ones). */
static aclDataType promoted_dtype(const ew_spec *spec, const ew_operand *ins, int nin)
{
    aclDataType p = ACL_DT_UNDEFINED;
    for (int i = 0; i < nin; i++) {
        if ((spec->op->bool_inputs >> i) & 1 || !ins[i].t) continue;
        p = p == ACL_DT_UNDEFINED ? ins[i].t->dtype : npusim_promote(p, ins[i].t->dtype);
        if (p == ACL_DT_UNDEFINED) return p;
    }
    for (int i = 0; i < nin; i++)
        if (ins[i].s && !((spec->op->bool_inputs >> i) & 1))
            p = p == ACL_DT_UNDEFINED ? ins[i].s->dtype : npusim_promote_scalar(p, ins[i].s->dtype);
    return p;
}

static bool has_wide_integer(const ew_operand *ins, int nin)
{
    for (int i = 0; i < nin; i++) {
        aclDataType dt = ins[i].t ? ins[i].t->dtype : ins[i].s->dtype;
        if (npusim_is_integral(dt) && npusim_dtype_size(dt) >= 4) return true;
    }
    return false;
}

npusim_kind npusim_cast_kind(aclDataType src, aclDataType dst)
{
    if (dst == ACL_BOOL) return KIND_BOOL;
    if (npusim_is_complex(src) || npusim_is_complex(dst)) return KIND_C128;
    if (src == dst) return npusim_kind_of(src);
    if (dst == ACL_FLOAT && npusim_is_integral(src)) return KIND_F32; /* rounded once, as NumPy */
    bool f_src = npusim_is_float(src), f_dst = npusim_is_float(dst);
    if (f_src || f_dst) {
        bool narrow = (!f_src || npusim_kind_of(src) == KIND_F32) && (!f_dst || npusim_kind_of(dst) == KIND_F32);
        return narrow && !(npusim_is_integral(src) && npusim_dtype_size(src) >= 4) ? KIND_F32 : KIND_F64;
    }
    if (src == ACL_UINT64 || dst == ACL_UINT64) return KIND_U64;
    return KIND_I64;
}

/* The kind the op computes in for promoted dtype p, or KIND_COUNT if it cannot. */
static npusim_kind compute_kind(const ew_spec *spec, aclDataType p, const ew_operand *ins, int nin,
                                aclDataType out)
{
    const npusim_ew_op *op = spec->op;
    npusim_kind k;
    if (spec->rules & RULE_CAST) return npusim_cast_kind(p, out);
    if (op->fn[KIND_BOOL] && !op->fn[KIND_I64]) return KIND_BOOL; /* logical ops */
    if ((spec->rules & RULE_FLOAT_RESULT) && !npusim_is_float(p) && !npusim_is_complex(p))
        k = KIND_F64; /* integers divided / exponentiated: exact inputs, one rounding on store */
    else
        k = npusim_kind_of(p);
    if (k == KIND_F32 && has_wide_integer(ins, nin)) k = KIND_F64;
    if ((k == KIND_BOOL || k == KIND_I32) && !op->fn[k]) k = KIND_I64;
    return op->fn[k] ? k : KIND_COUNT;
}

static int check_operands(const ew_spec *spec, const ew_operand *ins, int nin, const aclTensor *out,
                          const char *out_arg)
{
    const char *name = spec->def.name;
    int rc;
    for (int i = 0; i < nin; i++) {
        if (ins[i].is_scalar) {
            if ((rc = npusim_check_scalar(name, ins[i].arg, ins[i].s))) return rc;
            continue;
        }
        if ((rc = npusim_check_tensor(name, ins[i].arg, ins[i].t))) return rc;
        uint64_t mask = (spec->op->bool_inputs >> i) & 1 ? (DT(ACL_BOOL) | DT(ACL_UINT8)) : spec->in_dtypes;
        if ((rc = npusim_check_dtype(name, ins[i].arg, ins[i].t->dtype, mask))) return rc;
    }
    if ((rc = npusim_check_tensor(name, out_arg, out))) return rc;
    return npusim_check_dtype(name, out_arg, out->dtype, spec->out_dtypes);
}

/* out must be able to hold the result (no float -> integer, complex -> real, number -> bool). */
static int check_result_cast(const ew_spec *spec, aclDataType p, npusim_kind k, aclDataType out)
{
    if (spec->op->bool_out || (spec->rules & RULE_CAST)) return 0;
    aclDataType result = p;
    if (k == KIND_F64 && !npusim_is_float(p)) result = ACL_FLOAT;
    if (spec->op->real_out && npusim_is_complex(p)) result = ACL_DOUBLE;
    if (npusim_dtype_category(out) >= npusim_dtype_category(result)) return 0;
    return npusim_error(ACLNN_ERR_PARAM_INVALID,
                        "%sGetWorkspaceSize: out has dtype %s, which cannot hold the result type %s",
                        spec->def.name, npusim_dtype_name(out), npusim_dtype_name(result));
}

static int check_alpha(const ew_spec *spec, const aclScalar *alpha, aclDataType p)
{
    int rc = npusim_check_scalar(spec->def.name, "alpha", alpha);
    if (rc) return rc;
    if (npusim_dtype_category(alpha->dtype) >= 2 && npusim_dtype_category(p) <= 1)
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "%sGetWorkspaceSize: alpha has dtype %s, but integral inputs (%s) need an "
                            "integral alpha", spec->def.name, npusim_dtype_name(alpha->dtype),
                            npusim_dtype_name(p));
    return 0;
}

aclnnStatus npusim_ew_prepare(const ew_spec *spec, const ew_operand *ins, int nin, const int *ew_order,
                              const aclScalar *alpha, aclTensor *out, const char *out_arg,
                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = spec->def.name;
    if (!out_arg) out_arg = "out";
    ew_operand ordered[4]; /* only the first nin are read: not cleared (this is every launch's path) */
    for (int i = 0; i < nin; i++) ordered[i] = ins[ew_order ? ew_order[i] : i];
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = check_operands(spec, ordered, nin, out, out_arg))) return rc;
    aclDataType p = !(spec->rules & RULE_CAST) ? promoted_dtype(spec, ordered, nin)
                    : ins[0].t ? ins[0].t->dtype : ins[0].s->dtype;
    if (p == ACL_DT_UNDEFINED)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: the input dtypes (%s, %s) have no "
                            "common type", name, npusim_dtype_name(ins[0].t ? ins[0].t->dtype : ins[0].s->dtype),
                            nin > 1 ? npusim_dtype_name(ins[1].t ? ins[1].t->dtype : ins[1].s->dtype) : "-");
    if (spec->promoted_dtypes && (rc = npusim_check_dtype(name, "the promoted type", p, spec->promoted_dtypes)))
        return rc;
    if ((spec->rules & RULE_NO_BOOL) && p == ACL_BOOL)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: bool inputs are not supported; use "
                            "aclnnLogicalNot / logical ops instead", name);
    npusim_kind k = compute_kind(spec, p, ordered, nin, out->dtype);
    if (k == KIND_COUNT)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: inputs of type %s are not supported",
                            name, npusim_dtype_name(p));
    if ((rc = check_result_cast(spec, p, k, out->dtype))) return rc;
    if (alpha && (rc = check_alpha(spec, alpha, p))) return rc;

    const aclTensor *tensors[5];
    int nt = 0, tensor_index[4];
    for (int i = 0; i < nin; i++) {
        tensor_index[i] = ins[i].is_scalar ? -1 : nt;
        if (!ins[i].is_scalar) tensors[nt++] = ins[i].t;
    }
    int ndim;
    int64_t shape[NPUSIM_MAX_DIMS];
    tensors[nt] = out;
    if ((rc = npusim_broadcast_shape(name, tensors, (spec->rules & RULE_BROADCAST_TO_OUT) ? nt + 1 : nt,
                                     &ndim, shape)))
        return rc;
    if ((rc = npusim_check_shape_equal(name, out_arg, out, ndim, shape))) return rc;

    npusim_exec *ex = npusim_exec_create(&spec->def, tensors, nt, (const aclTensor *const *)&out, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->ew = spec->op;
    ex->kind = k;
    int scalar_count = 0;
    for (int i = 0; i < nin; i++) {
        int src = ew_order ? ew_order[i] : i;
        if (tensor_index[src] >= 0) {
            ex->ew_src[i] = tensor_index[src];
        } else {
            npusim_kind sk = (spec->op->bool_inputs >> i) & 1 ? KIND_BOOL : k;
            npusim_scalar_value(ins[src].s, sk, &ex->scalars[scalar_count]);
            ex->ew_src[i] = -1 - scalar_count++;
        }
    }
    if (alpha) npusim_scalar_value(alpha, k, &ex->scalars[2]);
    return npusim_exec_finish(ex, workspaceSize, executor);
}
