/* Random number operators of CANN's hicann/ops-math "random" folder: aclnnInplaceUniform,
 * aclnnInplaceNormal, aclnnInplaceRandom and aclnnRandperm, each with (seed, offset) as on the NPU.
 *
 * Generator: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11),
 * the counter-based generator of CANN's and torch's random operators. Element i of a launch (in
 * C order over selfRef's logical shape) takes the Philox block at counter (offset + i) under the
 * key seed: four 32-bit words, enough for one value of every distribution here. So a launch of n
 * elements consumes the counters [offset, offset + n), the caller advances offset by n between
 * launches to get fresh numbers, and equal (seed, offset) give equal numbers on every run. Bitwise
 * equality with the NPU's kernels is not promised (their counter layout is not documented); the
 * distributions, dtypes and argument checks are CANN's. */
#include <math.h>
#include <stdlib.h>

#include "aclnnop/aclnn_normal.h"
#include "aclnnop/aclnn_random.h"
#include "aclnnop/aclnn_randperm.h"
#include "aclnnop/aclnn_uniform.h"
#include "ops_internal.h"

/* Dtypes of selfRef / out in the operators' documents (hicann/ops-math):
 * random/dsa_random_uniform/docs/aclnnInplaceUniform.md */
#define M_UNIFORM (DT(ACL_FLOAT) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_BF16) | DT(ACL_FLOAT16) | \
                   DT(ACL_INT16) | DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_DOUBLE))
/* random/dsa_random_normal/docs/aclnnInplaceNormal.md */
#define M_NORMAL (M_UNIFORM | M_BOOL)
/* random/dsa_random_uniform/docs/aclnnInplaceRandom.md (COMPLEX64/128 are listed too; npusim's
 * integer draws have no complex store, so it refuses them rather than guess their layout) */
#define M_RANDOM (M_UNIFORM | M_BOOL)
/* random/stateless_randperm/docs/aclnnRandperm.md */
#define M_RANDPERM (DT(ACL_INT64) | DT(ACL_INT32) | DT(ACL_INT16) | DT(ACL_UINT8) | DT(ACL_INT8) | \
                    DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_DOUBLE) | DT(ACL_BF16))

enum { DRAW_UNIFORM, DRAW_NORMAL, DRAW_INTEGER };

/* ---------------------------------------------------------------------------------------------
 * Philox4x32-10 */

static inline void philox_round(uint32_t c[4], const uint32_t k[2])
{
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0, hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t n0 = hi1 ^ c[1] ^ k[0], n2 = hi0 ^ c[3] ^ k[1];
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
}

/* The four words of the block at 64-bit counter `counter` under the 64-bit key `seed`. */
static inline void philox4x32_10(uint64_t seed, uint64_t counter, uint32_t out[4])
{
    uint32_t c[4] = { (uint32_t)counter, (uint32_t)(counter >> 32), 0, 0 };
    uint32_t k[2] = { (uint32_t)seed, (uint32_t)(seed >> 32) };
    for (int r = 0; r < 9; r++) {
        philox_round(c, k);
        k[0] += 0x9E3779B9u;
        k[1] += 0xBB67AE85u;
    }
    philox_round(c, k);
    for (int i = 0; i < 4; i++) out[i] = c[i];
}

static inline uint64_t word64(const uint32_t w[4], int i) { return (uint64_t)w[2 * i] << 32 | w[2 * i + 1]; }

/* A uniform value in [0, 1) with `bits` random bits (the dtype's precision, so that rounding
 * to the dtype cannot reach 1). */
static inline double unit_interval(uint64_t x, int bits) { return (double)(x >> (64 - bits)) * ldexp(1.0, -bits); }

/* A uniform integer in [0, range) without bias (Lemire's multiply-shift with rejection; the
 * second 64-bit word is the one retry, a second rejection has probability < 2^-64 * range). */
static inline uint64_t bounded(const uint32_t w[4], uint64_t range)
{
    for (int i = 0; i < 2; i++) {
        unsigned __int128 m = (unsigned __int128)word64(w, i) * range;
        uint64_t low = (uint64_t)m;
        if (i == 1 || low >= (0 - range) % range) return (uint64_t)(m >> 64);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Kernel: fill selfRef element by element in C order */

typedef struct {
    const npusim_exec *ex;
    const npusim_view *out;
    int bits; /* precision of the output dtype (uniform draws) */
} draw_ctx;

/* ex->scalars: [0] from / mean, [1] to - from / std (doubles; integers: from, range as int64/u64);
 * ex->mode the distribution; ex->dims[0] seed, ex->dims[1] offset. */
static void draw_block(const draw_ctx *c, uint64_t first, size_t m, void *buf)
{
    const npusim_exec *ex = c->ex;
    uint64_t seed = (uint64_t)ex->dims[0], counter = (uint64_t)ex->dims[1] + first;
    for (size_t i = 0; i < m; i++) {
        uint32_t w[4];
        philox4x32_10(seed, counter + i, w);
        if (ex->mode == DRAW_INTEGER) {
            ((int64_t *)buf)[i] = (int64_t)((uint64_t)ex->scalars[0].i + bounded(w, ex->scalars[1].u));
        } else if (ex->mode == DRAW_UNIFORM) {
            ((double *)buf)[i] = ex->scalars[0].d + ex->scalars[1].d * unit_interval(word64(w, 0), c->bits);
        } else { /* Box-Muller: u1 in (0, 1] keeps the logarithm finite */
            double u1 = 1.0 - unit_interval(word64(w, 0), 53), u2 = unit_interval(word64(w, 1), 53);
            double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
            ((double *)buf)[i] = ex->scalars[0].d + ex->scalars[1].d * z;
        }
    }
}

/* Linear elements [begin, end) of the view, stored run by run along its last dim. */
static void draw_range(size_t begin, size_t end, void *vctx)
{
    const draw_ctx *c = vctx;
    const npusim_view *v = c->out;
    npusim_kind kind = c->ex->mode == DRAW_INTEGER ? KIND_I64 : KIND_F64;
    int64_t itemsize = (int64_t)npusim_dtype_size(v->dtype);
    int64_t inner = v->ndim ? v->shape[v->ndim - 1] : 1;
    int64_t inner_stride = v->ndim ? v->strides[v->ndim - 1] * itemsize : 0;
    _Alignas(64) unsigned char buf[NPUSIM_BLOCK * 8];
    size_t i = begin;
    while (i < end) {
        int64_t col = (int64_t)i % inner, row = (int64_t)i / inner;
        char *p = v->base + col * inner_stride;
        for (int d = v->ndim - 2; d >= 0; d--) {
            p += (row % v->shape[d]) * v->strides[d] * itemsize;
            row /= v->shape[d];
        }
        size_t m = (size_t)(inner - col);
        if (m > end - i) m = end - i;
        if (m > NPUSIM_BLOCK) m = NPUSIM_BLOCK;
        draw_block(c, i, m, buf);
        npusim_store(kind, buf, p, inner_stride, v->dtype, m);
        i += m;
    }
}

static int precision_bits(aclDataType dt)
{
    switch (dt) {
    case ACL_DOUBLE: return 53;
    case ACL_FLOAT: return 24;
    case ACL_FLOAT16: return 11;
    case ACL_BF16: return 8;
    default: return 53; /* integers: truncated from a double */
    }
}

static int draw_kernel(const npusim_exec *ex, npusim_view *views)
{
    draw_ctx c = { ex, &views[0], precision_bits(views[0].dtype) };
    size_t n = 1;
    for (int d = 0; d < views[0].ndim; d++) n *= (size_t)views[0].shape[d];
    if (n < NPUSIM_PARALLEL_MIN / 8)
        draw_range(0, n, &c);
    else
        npusim_parallel_for(n, NPUSIM_PARALLEL_MIN / 8, draw_range, &c);
    return 0;
}

static const npusim_opdef def_uniform = NPUSIM_OPDEF("aclnnInplaceUniform", draw_kernel);
static const npusim_opdef def_normal = NPUSIM_OPDEF("aclnnInplaceNormal", draw_kernel);
static const npusim_opdef def_random = NPUSIM_OPDEF("aclnnInplaceRandom", draw_kernel);

/* The first phase shared by the three in-place draws: checks, then an executor on selfRef. */
static aclnnStatus draw_prepare(const npusim_opdef *def, uint64_t mask, const aclTensor *selfRef, int mode,
                                npusim_value a, npusim_value b, uint64_t seed, uint64_t offset,
                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = def->name;
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "selfRef", selfRef)) ||
        (rc = npusim_check_dtype(name, "selfRef", selfRef->dtype, mask)))
        return rc;
    npusim_exec *ex = npusim_exec_create(def, NULL, 0, (const aclTensor *const *)&selfRef, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->mode = mode;
    ex->scalars[0] = a;
    ex->scalars[1] = b;
    ex->dims[0] = (int64_t)seed;
    ex->dims[1] = (int64_t)offset;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

/* Whether v lies within the range of integer dtype dt (floating dtypes: any finite value). */
static bool fits_dtype(double v, aclDataType dt)
{
    switch (dt) {
    case ACL_INT8: return v >= -128 && v <= 127;
    case ACL_UINT8: return v >= 0 && v <= 255;
    case ACL_INT16: return v >= -32768 && v <= 32767;
    case ACL_INT32: return v >= -2147483648.0 && v <= 2147483647.0;
    case ACL_BOOL: return v >= 0 && v <= 1;
    default: return true;
    }
}

/* ---------------------------------------------------------------------------------------------
 * aclnnInplaceUniform: selfRef = values uniform in [from, to) (random/dsa_random_uniform). */

aclnnStatus aclnnInplaceUniformGetWorkspaceSize(const aclTensor *selfRef, double from, double to, uint64_t seed,
                                                uint64_t offset, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!(from <= to) || !isfinite(from) || !isfinite(to))
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnInplaceUniformGetWorkspaceSize: from (%g) must be finite and <= to (%g)", from, to);
    if (npusim_is_tensor(selfRef) && (!fits_dtype(from, selfRef->dtype) || !fits_dtype(to, selfRef->dtype)))
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnInplaceUniformGetWorkspaceSize: from (%g) and to (%g) must lie in the range of "
                            "selfRef's dtype %s", from, to, npusim_dtype_name(selfRef->dtype));
    npusim_value a = { .d = from }, b = { .d = to - from };
    return draw_prepare(&def_uniform, M_UNIFORM, selfRef, DRAW_UNIFORM, a, b, seed, offset, workspaceSize,
                        executor);
}

aclnnStatus aclnnInplaceUniform(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                const aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceUniform", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnInplaceNormal: selfRef = mean + std * N(0, 1) (random/dsa_random_normal). */

aclnnStatus aclnnInplaceNormalGetWorkspaceSize(const aclTensor *selfRef, float mean, float std, int64_t seed,
                                               int64_t offset, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!(std >= 0) || !isfinite(mean) || !isfinite(std))
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnInplaceNormalGetWorkspaceSize: mean (%g) must be finite and std (%g) finite "
                            "and >= 0", mean, std);
    npusim_value a = { .d = mean }, b = { .d = std };
    return draw_prepare(&def_normal, M_NORMAL, selfRef, DRAW_NORMAL, a, b, (uint64_t)seed, (uint64_t)offset,
                        workspaceSize, executor);
}

aclnnStatus aclnnInplaceNormal(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceNormal", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnInplaceRandom: selfRef = integers uniform in [from, to - 1] (random/dsa_random_uniform). */

aclnnStatus aclnnInplaceRandomGetWorkspaceSize(const aclTensor *selfRef, int64_t from, int64_t to, int64_t seed,
                                               int64_t offset, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (from >= to)
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnInplaceRandomGetWorkspaceSize: from (%lld) must be less than to (%lld)",
                            (long long)from, (long long)to);
    if (npusim_is_tensor(selfRef) && npusim_is_integral(selfRef->dtype) &&
        (!fits_dtype((double)from, selfRef->dtype) || !fits_dtype((double)(to - 1), selfRef->dtype)))
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnInplaceRandomGetWorkspaceSize: [from, to - 1] = [%lld, %lld] exceeds the range "
                            "of selfRef's dtype %s", (long long)from, (long long)(to - 1),
                            npusim_dtype_name(selfRef->dtype));
    npusim_value a = { .i = from }, b = { .u = (uint64_t)to - (uint64_t)from };
    return draw_prepare(&def_random, M_RANDOM, selfRef, DRAW_INTEGER, a, b, (uint64_t)seed, (uint64_t)offset,
                        workspaceSize, executor);
}

aclnnStatus aclnnInplaceRandom(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceRandom", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnRandperm: out = a uniformly random permutation of 0 .. n-1 (random/stateless_randperm).
 * Fisher-Yates from the top: step i (n-1 down to 1) swaps position i with a position uniform in
 * [0, i], drawn from the Philox block at counter offset + i. */

static int randperm_kernel(const npusim_exec *ex, npusim_view *views)
{
    int64_t n = ex->dim;
    int64_t *perm = malloc((size_t)(n ? n : 1) * sizeof *perm);
    if (!perm) return npusim_error(ACLNN_ERR_INNER, "aclnnRandperm: out of host memory for %lld elements",
                                   (long long)n);
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    uint64_t seed = (uint64_t)ex->dims[0], offset = (uint64_t)ex->dims[1];
    for (int64_t i = n - 1; i > 0; i--) {
        uint32_t w[4];
        philox4x32_10(seed, offset + (uint64_t)i, w);
        int64_t j = (int64_t)bounded(w, (uint64_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    npusim_view *out = &views[0];
    int64_t stride = out->ndim ? out->strides[0] * (int64_t)npusim_dtype_size(out->dtype) : 0;
    npusim_store(KIND_I64, perm, out->base, stride, out->dtype, (size_t)n);
    free(perm);
    return 0;
}

static const npusim_opdef def_randperm = NPUSIM_OPDEF("aclnnRandperm", randperm_kernel);

aclnnStatus aclnnRandpermGetWorkspaceSize(int64_t n, int64_t seed, int64_t offset, aclTensor *out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnRandperm";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, M_RANDPERM)))
        return rc;
    if (n < 0 || out->ndim != 1 || out->shape[0] != n)
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnRandpermGetWorkspaceSize: n (%lld) must be >= 0 and out 1-D of length n "
                            "(got %d-D with %lld elements)", (long long)n, out->ndim, (long long)npusim_numel(out));
    if (npusim_is_integral(out->dtype) && n > 0 && !fits_dtype((double)(n - 1), out->dtype))
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclnnRandpermGetWorkspaceSize: n - 1 (%lld) does not fit out's dtype %s",
                            (long long)(n - 1), npusim_dtype_name(out->dtype));
    npusim_exec *ex = npusim_exec_create(&def_randperm, NULL, 0, (const aclTensor *const *)&out, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->dim = n;
    ex->dims[0] = seed;
    ex->dims[1] = offset;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnRandperm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnRandperm", workspace, workspaceSize, executor, stream);
}
