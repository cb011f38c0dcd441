/* Binary floating-point aclnn operators (docs/acl-abi.md §7.2 "Math"): aclnnLogAddExp. Integer and bool
 * inputs compute in double; out is FLOAT, FLOAT16 or BFLOAT16 only, as CANN documents (a DOUBLE
 * input is computed in double and rounded to out). */
#include <math.h>

#include "aclnnop/aclnn_logaddexp.h"
#include "ew_ops.h"

/* log(exp(x) + exp(y)) without overflow: equal inputs (including two infinities of the same sign)
 * give x + log(2); NaN propagates. */
static inline double log_add_exp(double x, double y)
{
    if (x != x || y != y) return x + y;
    if (x == y) return x + 0.693147180559945309417232121458176568;
    double m = x > y ? x : y;
    return m + log1p(exp(-fabs(x - y)));
}

static void lae_f32(void *out_, const void *const *in, size_t n, const npusim_exec *ex)
{
    (void)ex;
    float *o = out_;
    const float *a = in[0], *b = in[1];
    for (size_t i = 0; i < n; i++) o[i] = (float)log_add_exp(a[i], b[i]);
}

static void lae_f64(void *out_, const void *const *in, size_t n, const npusim_exec *ex)
{
    (void)ex;
    double *o = out_;
    const double *a = in[0], *b = in[1];
    for (size_t i = 0; i < n; i++) o[i] = log_add_exp(a[i], b[i]);
}

static const npusim_ew_op ew_log_add_exp = { "log_add_exp", 2, 0, false, false,
                                             { NULL, NULL, NULL, lae_f32, lae_f64, NULL, NULL } };


static const ew_spec spec_log_add_exp = EW_SPEC_OF(aclnnLogAddExp, self, out, &ew_log_add_exp, 0, RULE_FLOAT_RESULT);

aclnnStatus aclnnLogAddExpGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const ew_operand ins[] = { TENSOR_ARG(self, "self"), TENSOR_ARG(other, "other") };
    return npusim_ew_prepare(&spec_log_add_exp, ins, 2, NULL, NULL, out, NULL, workspaceSize, executor);
}

aclnnStatus aclnnLogAddExp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLogAddExp", workspace, workspaceSize, executor, stream);
}
