/* First-phase argument checks shared by the operators. Each returns 0 or the aclnn code, with a
 * message naming the operator, the argument and what is wrong (read by aclGetRecentErrMsg). */
#include <stdio.h>
#include <string.h>

#include "ops_internal.h"

int npusim_check_out_ptrs(const char *op, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!workspaceSize) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: workspaceSize is NULL", op);
    if (!executor) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: executor is NULL", op);
    return 0;
}

int npusim_check_tensor(const char *op, const char *arg, const aclTensor *t)
{
    if (!t) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: %s is NULL", op, arg);
    if (!npusim_is_tensor(t))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s is not a live aclTensor", op, arg);
    return 0;
}

int npusim_check_scalar(const char *op, const char *arg, const aclScalar *s)
{
    if (!s) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: %s is NULL", op, arg);
    if (!npusim_is_scalar(s))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s is not a live aclScalar", op, arg);
    return 0;
}

int npusim_check_dtype(const char *op, const char *arg, aclDataType dt, uint64_t mask)
{
    if (npusim_dtype_in(dt, mask)) return 0;
    return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s has dtype %s, which %s does not support",
                        op, arg, npusim_dtype_name(dt), op);
}

static void format_shape(char *buf, size_t size, int ndim, const int64_t *shape)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, i ? ", %lld" : "%lld", (long long)shape[i]);
    if (used < size) snprintf(buf + used, size - used, "]");
}

int npusim_broadcast_shape(const char *op, const aclTensor *const *ts, int n, int *ndim, int64_t *shape)
{
    int nd = 0;
    for (int i = 0; i < n; i++)
        if (ts[i] && ts[i]->ndim > nd) nd = ts[i]->ndim;
    for (int d = 0; d < nd; d++) shape[d] = 1;
    for (int i = 0; i < n; i++) {
        if (!ts[i]) continue;
        int lead = nd - ts[i]->ndim;
        for (int d = 0; d < ts[i]->ndim; d++) {
            int64_t s = ts[i]->shape[d], *r = &shape[lead + d];
            if (s == *r || s == 1) continue;
            if (*r == 1) {
                *r = s;
                continue;
            }
            char a[160], b[160];
            format_shape(a, sizeof a, ts[0]->ndim, ts[0]->shape);
            format_shape(b, sizeof b, ts[i]->ndim, ts[i]->shape);
            return npusim_error(ACLNN_ERR_PARAM_INVALID,
                                "%sGetWorkspaceSize: shapes %s and %s cannot be broadcast together", op, a, b);
        }
    }
    *ndim = nd;
    return 0;
}

int npusim_normalise_dim(const char *op, const char *arg, int64_t dim, int ndim, int64_t *out)
{
    int bound = ndim > 0 ? ndim : 1; /* a 0-d tensor accepts dim 0 / -1, as torch does */
    if (dim < -bound || dim >= bound)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dim %lld is out of range for a %d-D %s",
                            op, (long long)dim, ndim, arg);
    *out = dim < 0 ? dim + bound : dim;
    return 0;
}

int npusim_check_shape_equal(const char *op, const char *arg, const aclTensor *t, int ndim, const int64_t *shape)
{
    bool same = t->ndim == ndim;
    for (int d = 0; same && d < ndim; d++) same = t->shape[d] == shape[d];
    if (same) return 0;
    char want[160], got[160];
    format_shape(want, sizeof want, ndim, shape);
    format_shape(got, sizeof got, t->ndim, t->shape);
    return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s has shape %s, expected %s", op, arg,
                        got, want);
}
