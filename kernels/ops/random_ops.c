/* Random number operators of CANN's hicann/ops-math "random" folder: aclnnInplaceUniform,
 * aclnnInplaceNormal, aclnnInplaceRandom, aclnnRandperm, aclnnMultinomial and aclnnBernoulli (with
 * their Tensor and in-place variants), each with (seed, offset) as on the NPU.
 *
 * Generator: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11),
 * the counter-based generator of CANN's and torch's random operators, keyed by seed. Elements
 * are numbered i = 0, 1, ... in C order over selfRef's logical shape; element i takes part i % k
 * of the 128-bit block at counter offset + i / k, where k is what one block yields: 4 for
 * float/float16/bfloat16 outputs (32-bit uniforms; normals as two Box-Muller pairs) and for
 * integer ranges up to 2^16 in launches of at least 16 elements (a 32-bit word each, Lemire's
 * multiply-shift; the rare rejected word is retried with word i % 4 of the block at counter
 * offset + r ceil(n / 4) + i / 4, r = 1 then 2, so that a biased value is kept with probability
 * below 2^-48), 2 for double and other integer outputs (53-bit uniforms, one Box-Muller pair;
 * integer ranges up to 2^32, one 64-bit word each, bias below 2^-32), 1 for integer ranges above
 * 2^32 (a 64-bit word and one retry). A launch of n elements so uses at most n counters from offset on: the
 * caller advances offset by n between launches to get fresh numbers, and equal (seed, offset)
 * give equal numbers on every run. Bitwise
 * equality with the NPU's kernels is not promised (their counter layout is not documented); the
 * distributions, dtypes and argument checks are CANN's. */
#include <math.h>
#include <stdlib.h>

#include "aclnnop/aclnn_bernoulli.h"
#include "aclnnop/aclnn_multinomial.h"
#include "aclnnop/aclnn_normal.h"
#include "aclnnop/aclnn_random.h"
#include "aclnnop/aclnn_randperm.h"
#include "aclnnop/aclnn_uniform.h"
#include "ew_ops.h"
#include "ops_internal.h"

/* selfRef's dtypes (aclnn_dtypes.h): an operator and its Tensor variant have the same row. */

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

/* The hot loops are also compiled for AVX-512 and AVX2 and picked at load time (GCC's
 * target_clones through glibc's ifunc, as kernels/ops/reduce.c): Philox's 32 x 32 -> 64-bit
 * products vectorise on 8 or 4 lanes there instead of 2. Not in sanitizer builds: the ifunc
 * resolvers run before the sanitizer runtime is ready. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define RANDOM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RANDOM_CLONES
#endif

/* Blocks at counters counter, counter + 1, ... counter + n - 1 into out[n][4]: the same function
 * computed lane-parallel (structure of arrays) so that the compiler vectorises the rounds. */
#define PHILOX_LANES 16
RANDOM_CLONES static void philox_blocks(uint64_t seed, uint64_t counter, size_t n, uint32_t (*out)[4])
{
    for (size_t first = 0; first < n; first += PHILOX_LANES) {
        uint32_t c0[PHILOX_LANES], c1[PHILOX_LANES], c2[PHILOX_LANES] = { 0 }, c3[PHILOX_LANES] = { 0 };
        for (int l = 0; l < PHILOX_LANES; l++) {
            uint64_t c = counter + first + (uint64_t)l;
            c0[l] = (uint32_t)c;
            c1[l] = (uint32_t)(c >> 32);
        }
        uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
        for (int r = 0; r < 10; r++) {
            for (int l = 0; l < PHILOX_LANES; l++) {
                uint64_t p0 = (uint64_t)0xD2511F53u * c0[l], p1 = (uint64_t)0xCD9E8D57u * c2[l];
                uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1[l] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3[l] ^ k1;
                c1[l] = (uint32_t)p1;
                c3[l] = (uint32_t)p0;
                c0[l] = n0;
                c2[l] = n2;
            }
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        size_t count = n - first < PHILOX_LANES ? n - first : PHILOX_LANES;
        for (size_t l = 0; l < count; l++) {
            out[first + l][0] = c0[l];
            out[first + l][1] = c1[l];
            out[first + l][2] = c2[l];
            out[first + l][3] = c3[l];
        }
    }
}

static inline uint64_t word64(const uint32_t w[4], int i) { return (uint64_t)w[2 * i] << 32 | w[2 * i + 1]; }

/* A uniform value in [0, 1) from the top `bits` bits of x (the dtype's precision, so that rounding
 * to the dtype cannot reach 1). */
static inline double unit53(uint64_t x) { return (double)(x >> 11) * 0x1p-53; }
static inline float unit32(uint32_t x, int bits, float scale) { return (float)(x >> (32 - bits)) * scale; }

/* x * range >> 64: an integer in [0, range), Lemire's multiply-shift. `rejected` tells whether
 * x falls in the few values that make the mapping biased (exact rejection test). */
static inline uint64_t multiply_shift(uint64_t x, uint64_t range, bool *rejected)
{
    unsigned __int128 m = (unsigned __int128)x * range;
    uint64_t low = (uint64_t)m;
    *rejected = low < range && low < (0 - range) % range;
    return (uint64_t)(m >> 64);
}

/* A uniform integer in [0, range) from a whole block: the first 64-bit word, the second as the
 * one retry (a second rejection has probability < (range / 2^64)^2 and keeps the last value). */
static inline uint64_t bounded(const uint32_t w[4], uint64_t range)
{
    bool rejected;
    uint64_t v = multiply_shift(word64(w, 0), range, &rejected);
    return rejected ? multiply_shift(word64(w, 1), range, &rejected) : v;
}

/* ---------------------------------------------------------------------------------------------
 * Kernel: fill selfRef element by element in C order */

typedef struct {
    const npusim_exec *ex;
    const npusim_view *out;
    int bits;     /* precision of the output dtype (32-bit uniform draws) */
    float scale;  /* 2^-bits */
    int k_log2;   /* log2 of the values one Philox block yields */
    bool narrow;  /* float32 arithmetic and 32-bit uniforms (float, float16, bfloat16 outputs) */
    uint64_t seed, offset;
    uint64_t quarter; /* ceil(n / 4): the retry blocks of 32-bit integer draws start there */
} draw_ctx;

/* Uniform floats af + bf u from one 32-bit word each (u: the top `bits` bits times 2^-bits). */
RANDOM_CLONES static void uniform_narrow(const uint32_t *w, size_t m, float af, float bf, int bits, float scale,
                                         float *out)
{
    int shift = 32 - bits;
    for (size_t i = 0; i < m; i++) out[i] = af + bf * ((float)(int32_t)(w[i] >> shift) * scale);
}

/* Uniform doubles a + b u from two words each (u: 53 bits times 2^-53). */
RANDOM_CLONES static void uniform_wide(const uint32_t *w, size_t m, double a, double b, double *out)
{
    for (size_t i = 0; i < m; i++) {
        int64_t top = (int64_t)(((uint64_t)w[2 * i] << 32 | w[2 * i + 1]) >> 11);
        out[i] = a + b * ((double)top * 0x1p-53);
    }
}

/* Integers from + (w range >> 32) from one word w each (range <= 2^16), Lemire's multiply-shift:
 * returns whether some word fell in the (2^32 mod range) values that bias the mapping, which
 * draw_block then retries. */
RANDOM_CLONES static bool integers_k4(const uint32_t *w, size_t m, int64_t from, uint32_t range, uint32_t threshold,
                                      int64_t *out)
{
    uint32_t rejected = 0;
    for (size_t i = 0; i < m; i++) {
        uint64_t product = (uint64_t)w[i] * range;
        rejected |= (uint32_t)((uint32_t)product < threshold);
        out[i] = from + (int64_t)(product >> 32);
    }
    return rejected != 0;
}

/* Retries of integers_k4's rejected elements [first, first + m): word e % 4 of the blocks at
 * counter offset + r quarter + e / 4, r = 1, 2; the last word is kept if all three are rejected. */
static void integers_k4_retry(const draw_ctx *c, const uint32_t *w, uint64_t first, size_t m, int64_t *out)
{
    uint32_t range = (uint32_t)c->ex->scalars[1].u, threshold = (uint32_t)(0 - range) % range;
    for (size_t i = 0; i < m; i++) {
        uint64_t e = first + i, product = (uint64_t)w[i] * range;
        for (uint64_t r = 1; r <= 2 && (uint32_t)product < threshold; r++) {
            uint32_t block[4];
            philox4x32_10(c->seed, c->offset + r * c->quarter + (e >> 2), block);
            product = (uint64_t)block[e & 3] * range;
        }
        out[i] = c->ex->scalars[0].i + (int64_t)(product >> 32);
    }
}

/* Integers from + (x range >> 64) from two words x = hi 2^32 + lo each (range <= 2^32: bias below
 * 2^-32), as (hi range + (lo range >> 32)) >> 32: 32 x 32 -> 64-bit products, which vectorise
 * (range < 2^32 keeps the sum below 2^64; range = 2^32 takes hi itself). */
RANDOM_CLONES static void integers_k2(const uint32_t *w, size_t m, int64_t from, uint64_t range, int64_t *out)
{
    if (range == (uint64_t)1 << 32) {
        for (size_t i = 0; i < m; i++) out[i] = (int64_t)((uint64_t)from + w[2 * i]);
        return;
    }
    for (size_t i = 0; i < m; i++) {
        uint64_t t = (uint64_t)w[2 * i] * range + (((uint64_t)w[2 * i + 1] * range) >> 32);
        out[i] = (int64_t)((uint64_t)from + (t >> 32));
    }
}

/* Box-Muller on the pairs of 32-bit words of float outputs, z[2p], z[2p + 1] = r cos t, r sin t
 * with r = sqrt(-2 log u1), t = 2 pi u2, u1 = (2^32 - w[2p]) 2^-32 in (0, 1] (never 0: the log
 * stays finite) and u2 = w[2p + 1] 2^-32, for `pairs` pairs; the logarithm, cosine and sine are
 * the element-wise engine's vectorised float32 kernels (ew_vmath.c, within 1 ULP). */
#define NORMAL_PAIRS (2 * (NPUSIM_BLOCK / 4 + 1))
RANDOM_CLONES static void box_muller_inputs(const uint32_t *w, size_t pairs, float *u1, float *t)
{
    for (size_t p = 0; p < pairs; p++) {
        u1[p] = (float)(int64_t)(((uint64_t)1 << 32) - w[2 * p]) * 0x1p-32f;
        t[p] = (float)(int64_t)w[2 * p + 1] * (6.2831853071795865f * 0x1p-32f);
    }
}

RANDOM_CLONES static void box_muller_outputs(const float *log_u1, const float *c, const float *s, size_t pairs,
                                             float *z)
{
    for (size_t p = 0; p < pairs; p++) {
        float r = sqrtf(-2.0f * log_u1[p]);
        z[2 * p] = r * c[p];
        z[2 * p + 1] = r * s[p];
    }
}

static void normals_narrow(const uint32_t *words, size_t skip, size_t m, float a, float b, float *out)
{
    float u1[NORMAL_PAIRS], t[NORMAL_PAIRS], c[NORMAL_PAIRS], s[NORMAL_PAIRS], z[2 * NORMAL_PAIRS];
    size_t pairs = (skip + m + 1) / 2;
    box_muller_inputs(words, pairs, u1, t);
    npusim_vlog_f32(u1, (const void *const[]){ u1 }, pairs, NULL);
    npusim_vcos_f32(c, (const void *const[]){ t }, pairs, NULL);
    npusim_vsin_f32(s, (const void *const[]){ t }, pairs, NULL);
    box_muller_outputs(u1, c, s, pairs, z);
    for (size_t i = 0; i < m; i++) out[i] = a + b * z[skip + i];
}

/* Normals a + b z for double (and integer) outputs: one Box-Muller pair of 53-bit uniforms per
 * block (u1 in (0, 1]), element e is part e % 2 of its block. */
static void normals_wide(const uint32_t (*blocks)[4], size_t skip, size_t m, double a, double b, double *out)
{
    double pair[2] = { 0, 0 };
    for (size_t i = 0; i < m; i++) {
        size_t e = skip + i;
        if ((e & 1) == 0 || i == 0) {
            const uint32_t *w = blocks[e >> 1];
            double u1 = 1.0 - unit53(word64(w, 0)), u2 = unit53(word64(w, 1));
            double r = sqrt(-2.0 * log(u1)), t = 2.0 * M_PI * u2;
            pair[0] = r * cos(t);
            pair[1] = r * sin(t);
        }
        out[i] = a + b * pair[e & 1];
    }
}

/* Elements [first, first + m) into buf (int64 for integers, float for narrow outputs, else
 * double). ex->scalars: [0] from / mean, [1] to - from / std (integers: from, range); ex->mode
 * the law. Element e uses part e % k of the block at counter c->offset + e / k: laid out block
 * after block, the words of the blocks are the elements' words in order. */
static void draw_block(const draw_ctx *c, uint64_t first, size_t m, void *buf)
{
    const npusim_exec *ex = c->ex;
    uint64_t first_block = first >> c->k_log2;
    uint32_t blocks[NPUSIM_BLOCK + 1][4];
    philox_blocks(c->seed, c->offset + first_block, (size_t)(((first + m - 1) >> c->k_log2) - first_block + 1),
                  blocks);
    size_t skip = (size_t)(first - (first_block << c->k_log2)); /* elements of the first block before `first` */
    const uint32_t *words = &blocks[0][0];
    if (ex->mode == DRAW_UNIFORM && c->narrow)
        uniform_narrow(words + skip, m, (float)ex->scalars[0].d, (float)ex->scalars[1].d, c->bits, c->scale, buf);
    else if (ex->mode == DRAW_UNIFORM)
        uniform_wide(words + 2 * skip, m, ex->scalars[0].d, ex->scalars[1].d, buf);
    else if (ex->mode == DRAW_INTEGER && c->k_log2 == 2) {
        uint32_t range = (uint32_t)ex->scalars[1].u;
        if (integers_k4(words + skip, m, ex->scalars[0].i, range, (uint32_t)(0 - range) % range, buf))
            integers_k4_retry(c, words + skip, first, m, buf);
    } else if (ex->mode == DRAW_INTEGER && c->k_log2)
        integers_k2(words + 2 * skip, m, ex->scalars[0].i, ex->scalars[1].u, buf);
    else if (ex->mode == DRAW_INTEGER)
        for (size_t i = 0; i < m; i++)
            ((int64_t *)buf)[i] = (int64_t)((uint64_t)ex->scalars[0].i + bounded(blocks[i], ex->scalars[1].u));
    else if (c->narrow)
        normals_narrow(words, skip, m, (float)ex->scalars[0].d, (float)ex->scalars[1].d, buf);
    else
        normals_wide((const uint32_t (*)[4])blocks, skip, m, ex->scalars[0].d, ex->scalars[1].d, buf);
}

/* Linear elements [begin, end) of the view, stored run by run along its last dim. */
static void draw_range(size_t begin, size_t end, void *vctx)
{
    const draw_ctx *c = vctx;
    const npusim_view *v = c->out;
    npusim_kind kind = c->ex->mode == DRAW_INTEGER ? KIND_I64 : c->narrow ? KIND_F32 : KIND_F64;
    int64_t itemsize = (int64_t)npusim_dtype_size(v->dtype);
    /* the buffer's dtype is the view's: draw in place where the run is contiguous */
    bool direct = v->dtype == (kind == KIND_I64 ? ACL_INT64 : kind == KIND_F32 ? ACL_FLOAT : ACL_DOUBLE);
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
        if (direct && inner_stride == itemsize) {
            draw_block(c, i, m, p);
        } else {
            draw_block(c, i, m, buf);
            npusim_store(kind, buf, p, inner_stride, v->dtype, m);
        }
        i += m;
    }
}

/* How a draw of n elements spends the four words of a block, by law and output dtype. */
static void draw_layout(const npusim_exec *ex, aclDataType dt, size_t n, draw_ctx *c)
{
    c->quarter = (n + 3) / 4;
    c->narrow = dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16;
    c->bits = dt == ACL_FLOAT ? 24 : dt == ACL_FLOAT16 ? 11 : 8;
    c->scale = ldexpf(1.0f, -c->bits);
    if (ex->mode == DRAW_INTEGER)
        c->k_log2 = ex->scalars[1].u <= ((uint64_t)1 << 16) && n >= 16 ? 2
                    : ex->scalars[1].u <= ((uint64_t)1 << 32) ? 1 : 0;
    else if (ex->mode == DRAW_UNIFORM)
        c->k_log2 = c->narrow ? 2 : 1;
    else /* normals: two pairs of 32-bit uniforms, or one pair of 53-bit ones (also for integers) */
        c->k_log2 = c->narrow ? 2 : 1;
}

/* ex->dims[0..1]: seed and offset; the Tensor variants read seedTensor[0] (views[0]) and add
 * offsetTensor[0] (views[1]) to the offset when the launch runs. */
static int draw_kernel(const npusim_exec *ex, npusim_view *views)
{
    const npusim_view *out = &views[ex->n_tensors - 1];
    draw_ctx c = { .ex = ex, .out = out, .seed = (uint64_t)ex->dims[0], .offset = (uint64_t)ex->dims[1] };
    if (ex->n_inputs == 2) {
        c.seed = *(const uint64_t *)views[0].base;
        c.offset += *(const uint64_t *)views[1].base;
    }
    size_t n = 1;
    for (int d = 0; d < out->ndim; d++) n *= (size_t)out->shape[d];
    draw_layout(ex, out->dtype, n, &c);
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
/* A one-element seedTensor / offsetTensor of the documented dtype; 0 or the error. */
static int check_state_tensor(const char *name, const char *arg, const aclTensor *t, aclDataType dtype)
{
    int rc = npusim_check_tensor(name, arg, t);
    if (rc || (rc = npusim_check_dtype(name, arg, t->dtype, DT(dtype)))) return rc;
    if (t->ndim != 1 || t->shape[0] != 1)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s must be 1-D with one element "
                            "(got %d-D with %lld)", name, arg, t->ndim, (long long)npusim_numel(t));
    return 0;
}

/* Where a draw's seed and offset come from: the scalars, or (Tensor variants: state != NULL)
 * state[0] = seedTensor and state[1] = offsetTensor of dtype state_dtype read at run time,
 * the scalar offset added to the latter. */
typedef struct {
    uint64_t seed, offset;
    const aclTensor *const *state;
    aclDataType state_dtype;
} draw_source;

static aclnnStatus draw_prepare(const npusim_opdef *def, uint64_t mask, const aclTensor *selfRef, int mode,
                                npusim_value a, npusim_value b, draw_source src, uint64_t *workspaceSize,
                                aclOpExecutor **executor)
{
    const char *name = def->name;
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "selfRef", selfRef)) ||
        (rc = npusim_check_dtype(name, "selfRef", selfRef->dtype, mask)))
        return rc;
    if (src.state && ((rc = check_state_tensor(name, "seedTensor", src.state[0], src.state_dtype)) ||
                      (rc = check_state_tensor(name, "offsetTensor", src.state[1], src.state_dtype))))
        return rc;
    npusim_exec *ex = npusim_exec_create(def, src.state, src.state ? 2 : 0, (const aclTensor *const *)&selfRef, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->mode = mode;
    ex->scalars[0] = a;
    ex->scalars[1] = b;
    ex->dims[0] = (int64_t)src.seed;
    ex->dims[1] = (int64_t)src.offset;
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
 * aclnnInplaceUniform(Tensor): selfRef = values uniform in [from, to) (random/dsa_random_uniform;
 * docs/aclnnInplaceUniformTensor.md: seedTensor and offsetTensor UINT64). */

static const npusim_opdef def_uniform_tensor = NPUSIM_OPDEF("aclnnInplaceUniformTensor", draw_kernel);

static aclnnStatus uniform_prepare(const npusim_opdef *def, const aclTensor *selfRef, double from, double to,
                                   draw_source src, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!(from <= to) || !isfinite(from) || !isfinite(to))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: from (%g) must be finite and <= to (%g)",
                            def->name, from, to);
    if (npusim_is_tensor(selfRef) && (!fits_dtype(from, selfRef->dtype) || !fits_dtype(to, selfRef->dtype)))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: from (%g) and to (%g) must lie in the "
                            "range of selfRef's dtype %s", def->name, from, to, npusim_dtype_name(selfRef->dtype));
    npusim_value a = { .d = from }, b = { .d = to - from };
    return draw_prepare(def, NPUSIM_DTYPES_aclnnInplaceUniform_selfRef, selfRef, DRAW_UNIFORM, a, b, src, workspaceSize, executor);
}

aclnnStatus aclnnInplaceUniformGetWorkspaceSize(const aclTensor *selfRef, double from, double to, uint64_t seed,
                                                uint64_t offset, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    draw_source src = { seed, offset, NULL, ACL_DT_UNDEFINED };
    return uniform_prepare(&def_uniform, selfRef, from, to, src, workspaceSize, executor);
}

aclnnStatus aclnnInplaceUniform(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                const aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceUniform", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceUniformTensorGetWorkspaceSize(const aclTensor *selfRef, double from, double to,
                                                      const aclTensor *seedTensor, const aclTensor *offsetTensor,
                                                      uint64_t offset, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    const aclTensor *state[2] = { seedTensor, offsetTensor };
    draw_source src = { 0, offset, state, ACL_UINT64 };
    return uniform_prepare(&def_uniform_tensor, selfRef, from, to, src, workspaceSize, executor);
}

aclnnStatus aclnnInplaceUniformTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      const aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceUniformTensor", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnInplaceNormal(Tensor): selfRef = mean + std * N(0, 1) (random/dsa_random_normal;
 * docs/aclnnInplaceNormalTensor.md: seedTensor and offsetTensor INT64). */

static const npusim_opdef def_normal_tensor = NPUSIM_OPDEF("aclnnInplaceNormalTensor", draw_kernel);

static aclnnStatus normal_prepare(const npusim_opdef *def, const aclTensor *selfRef, float mean, float std,
                                  draw_source src, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!(std >= 0) || !isfinite(mean) || !isfinite(std))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: mean (%g) must be finite and std (%g) "
                            "finite and >= 0", def->name, mean, std);
    npusim_value a = { .d = mean }, b = { .d = std };
    return draw_prepare(def, NPUSIM_DTYPES_aclnnInplaceNormal_selfRef, selfRef, DRAW_NORMAL, a, b, src, workspaceSize, executor);
}

aclnnStatus aclnnInplaceNormalGetWorkspaceSize(const aclTensor *selfRef, float mean, float std, int64_t seed,
                                               int64_t offset, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    draw_source src = { (uint64_t)seed, (uint64_t)offset, NULL, ACL_DT_UNDEFINED };
    return normal_prepare(&def_normal, selfRef, mean, std, src, workspaceSize, executor);
}

aclnnStatus aclnnInplaceNormal(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceNormal", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceNormalTensorGetWorkspaceSize(const aclTensor *selfRef, float mean, float std,
                                                     const aclTensor *seedTensor, const aclTensor *offsetTensor,
                                                     int64_t offset, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    const aclTensor *state[2] = { seedTensor, offsetTensor };
    draw_source src = { 0, (uint64_t)offset, state, ACL_INT64 };
    return normal_prepare(&def_normal_tensor, selfRef, mean, std, src, workspaceSize, executor);
}

aclnnStatus aclnnInplaceNormalTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceNormalTensor", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnInplaceRandom(Tensor): selfRef = integers uniform in [from, to - 1] (random/
 * dsa_random_uniform; docs/aclnnInplaceRandomTensor.md: seedTensor and offsetTensor INT64). */

static const npusim_opdef def_random_tensor = NPUSIM_OPDEF("aclnnInplaceRandomTensor", draw_kernel);

static aclnnStatus random_prepare(const npusim_opdef *def, const aclTensor *selfRef, int64_t from, int64_t to,
                                  draw_source src, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (from >= to)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: from (%lld) must be less than to (%lld)",
                            def->name, (long long)from, (long long)to);
    if (npusim_is_tensor(selfRef) && npusim_is_integral(selfRef->dtype) &&
        (!fits_dtype((double)from, selfRef->dtype) || !fits_dtype((double)(to - 1), selfRef->dtype)))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: [from, to - 1] = [%lld, %lld] exceeds "
                            "the range of selfRef's dtype %s", def->name, (long long)from, (long long)(to - 1),
                            npusim_dtype_name(selfRef->dtype));
    npusim_value a = { .i = from }, b = { .u = (uint64_t)to - (uint64_t)from };
    return draw_prepare(def, NPUSIM_DTYPES_aclnnInplaceRandom_selfRef, selfRef, DRAW_INTEGER, a, b, src, workspaceSize, executor);
}

aclnnStatus aclnnInplaceRandomGetWorkspaceSize(const aclTensor *selfRef, int64_t from, int64_t to, int64_t seed,
                                               int64_t offset, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    draw_source src = { (uint64_t)seed, (uint64_t)offset, NULL, ACL_DT_UNDEFINED };
    return random_prepare(&def_random, selfRef, from, to, src, workspaceSize, executor);
}

aclnnStatus aclnnInplaceRandom(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceRandom", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceRandomTensorGetWorkspaceSize(const aclTensor *selfRef, int64_t from, int64_t to,
                                                     const aclTensor *seedTensor, const aclTensor *offsetTensor,
                                                     int64_t offset, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    const aclTensor *state[2] = { seedTensor, offsetTensor };
    draw_source src = { 0, (uint64_t)offset, state, ACL_INT64 };
    return random_prepare(&def_random_tensor, selfRef, from, to, src, workspaceSize, executor);
}

aclnnStatus aclnnInplaceRandomTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceRandomTensor", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnRandperm: out = a uniformly random permutation of 0 .. n-1 (random/stateless_randperm).
 * Durstenfeld's "inside-out" Fisher-Yates: step i (0 up to n-1) draws j uniform in [0, i] from the
 * 64-bit word i % 2 of the Philox block at counter offset + i / 2 (multiply-shift: bias below
 * (i + 1) 2^-64), moves a[j] to a[i] and puts i at a[j]. The draws do not depend on one another, so
 * they are made first, in parallel and vectorised, into a itself (a[i] = j_i: step i reads a[i]
 * before any step writes it, since steps only write indices <= i); the moves then run in order,
 * prefetching the a[j] a few steps ahead, on int32 values when n allows (half the memory the
 * random accesses touch), widened to out's dtype at the end. */

typedef struct {
    uint64_t seed, offset;
    int32_t *a32; /* the work array when n <= INT32_MAX, else a64 */
    int64_t *a64;
} randperm_ctx;

static void randperm_draws(size_t begin, size_t end, void *vctx)
{
    const randperm_ctx *c = vctx;
    uint32_t blocks[NPUSIM_BLOCK / 2 + 2][4];
    for (size_t first = begin; first < end; first += NPUSIM_BLOCK) {
        size_t m = end - first < NPUSIM_BLOCK ? end - first : NPUSIM_BLOCK;
        uint64_t first_block = first >> 1;
        philox_blocks(c->seed, c->offset + first_block, (size_t)(((first + m - 1) >> 1) - first_block + 1), blocks);
        const uint32_t *w = &blocks[0][0] + 2 * (first - 2 * first_block);
        for (size_t l = 0; l < m; l++) {
            uint64_t x = (uint64_t)w[2 * l] << 32 | w[2 * l + 1], range = (uint64_t)(first + l) + 1;
            uint64_t j = (uint64_t)(((unsigned __int128)x * range) >> 64);
            if (c->a32)
                c->a32[first + l] = (int32_t)j;
            else
                c->a64[first + l] = (int64_t)j;
        }
    }
}

#define RANDPERM_PREFETCH 16 /* steps between a prefetch of a[j] and its use */
#define INSIDE_OUT_MOVES(a, n, T)                                                                             \
    for (int64_t i = 0; i < (n); i++) {                                                                       \
        if (i + RANDPERM_PREFETCH < (n)) __builtin_prefetch(&(a)[(a)[i + RANDPERM_PREFETCH]], 1);             \
        T j_ = (a)[i];                                                                                        \
        (a)[i] = (a)[j_];                                                                                     \
        (a)[j_] = (T)i;                                                                                       \
    }

static int randperm_kernel(const npusim_exec *ex, npusim_view *views)
{
    int64_t n = ex->dim;
    npusim_view *out = &views[0];
    int64_t stride = out->ndim ? out->strides[0] * (int64_t)npusim_dtype_size(out->dtype) : 0;
    bool narrow = n <= INT32_MAX, direct = !narrow && out->dtype == ACL_INT64 && out->strides[0] == 1;
    void *work = direct ? out->base : malloc((size_t)(n ? n : 1) * (narrow ? 4 : 8));
    if (!work) return npusim_error(ACLNN_ERR_INNER, "out of host memory for %lld elements", (long long)n);
    randperm_ctx c = { (uint64_t)ex->dims[0], (uint64_t)ex->dims[1], narrow ? work : NULL, narrow ? NULL : work };
    if ((size_t)n < NPUSIM_PARALLEL_MIN / 8)
        randperm_draws(0, (size_t)n, &c);
    else
        npusim_parallel_for((size_t)n, NPUSIM_PARALLEL_MIN / 8, randperm_draws, &c);
    if (narrow) {
        INSIDE_OUT_MOVES(c.a32, n, int32_t)
    } else {
        INSIDE_OUT_MOVES(c.a64, n, int64_t)
    }
    if (!direct) {
        npusim_store(narrow ? KIND_I32 : KIND_I64, work, out->base, stride, out->dtype, (size_t)n);
        free(work);
    }
    return 0;
}

static const npusim_opdef def_randperm = NPUSIM_OPDEF("aclnnRandperm", randperm_kernel);

aclnnStatus aclnnRandpermGetWorkspaceSize(int64_t n, int64_t seed, int64_t offset, aclTensor *out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnRandperm";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnRandperm_out)))
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

/* ---------------------------------------------------------------------------------------------
 * aclnnMultinomial: out[r, j] = a category drawn with probability self[r, c] / sum(self[r])
 * (random/stateless_sample_multinomial). With replacement, sample j of row r inverts the row's
 * CDF at a 53-bit uniform from the block at counter offset + r * numsamples + j. Without, the
 * categories are ranked by the Efraimidis-Spirakis keys log(u_c) / w_c (u_c from the block at
 * offset + r * C + c) and the numsamples largest come out in order: the law of drawing one
 * category after another without replacement. Weights must be finite and >= 0 with a positive
 * sum (and, without replacement, at least numsamples positive): npusim fails the launch
 * otherwise, where the NPU would return arbitrary categories. */


typedef struct {
    double key;
    int64_t category;
} ranked;

static int by_key_descending(const void *a, const void *b)
{
    double ka = ((const ranked *)a)->key, kb = ((const ranked *)b)->key;
    if (ka != kb) return ka < kb ? 1 : -1;
    int64_t ca = ((const ranked *)a)->category, cb = ((const ranked *)b)->category;
    return (ca > cb) - (ca < cb);
}

/* Row r of the weights as doubles in w[C]; 0 or the error (with the message set). */
static int multinomial_row(const npusim_view *self, int64_t r, int64_t categories, double *w, int64_t *positive)
{
    int64_t row_stride = self->ndim == 2 ? self->strides[0] : 0, col_stride = self->strides[self->ndim - 1];
    size_t itemsize = npusim_dtype_size(self->dtype);
    npusim_load(KIND_F64, w, self->base + r * row_stride * (int64_t)itemsize, col_stride * (int64_t)itemsize,
                self->dtype, (size_t)categories);
    double total = 0;
    *positive = 0;
    for (int64_t c = 0; c < categories; c++) {
        if (!(w[c] >= 0) || !isfinite(w[c]))
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "self[%lld, %lld] = %g is not a finite "
                                "weight >= 0", (long long)r, (long long)c, w[c]);
        total += w[c];
        *positive += w[c] > 0;
    }
    if (!(total > 0))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "row %lld of self sums to 0", (long long)r);
    return 0;
}

static void multinomial_with_replacement(const npusim_exec *ex, int64_t r, double *cdf, int64_t categories,
                                         int64_t samples, int64_t *dst)
{
    for (int64_t c = 1; c < categories; c++) cdf[c] += cdf[c - 1];
    double total = cdf[categories - 1];
    uint64_t seed = (uint64_t)ex->dims[0], counter = (uint64_t)ex->dims[1] + (uint64_t)(r * samples);
    for (int64_t j = 0; j < samples; j++) {
        uint32_t w[4];
        philox4x32_10(seed, counter + (uint64_t)j, w);
        double target = unit53(word64(w, 0)) * total;
        int64_t lo = 0, hi = categories - 1; /* first c with cdf[c] > target */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (cdf[mid] > target) hi = mid; else lo = mid + 1;
        }
        dst[j] = lo;
    }
}

static void multinomial_without_replacement(const npusim_exec *ex, int64_t r, const double *weights,
                                            int64_t categories, int64_t samples, ranked *keys, int64_t *dst)
{
    uint64_t seed = (uint64_t)ex->dims[0], counter = (uint64_t)ex->dims[1] + (uint64_t)(r * categories);
    for (int64_t c = 0; c < categories; c++) {
        uint32_t w[4];
        philox4x32_10(seed, counter + (uint64_t)c, w);
        double u = 1.0 - unit53(word64(w, 0)); /* (0, 1] */
        keys[c].key = weights[c] > 0 ? log(u) / weights[c] : -INFINITY;
        keys[c].category = c;
    }
    qsort(keys, (size_t)categories, sizeof *keys, by_key_descending);
    for (int64_t j = 0; j < samples; j++) dst[j] = keys[j].category;
}

static int multinomial_kernel(const npusim_exec *ex, npusim_view *views)
{
    const npusim_view *self = &views[0], *out = &views[1];
    int64_t categories = self->shape[self->ndim - 1], rows = self->ndim == 2 ? self->shape[0] : 1;
    int64_t samples = ex->dim;
    double *weights = malloc((size_t)categories * sizeof *weights);
    ranked *keys = malloc((size_t)categories * sizeof *keys);
    int64_t *row_out = malloc((size_t)samples * sizeof *row_out);
    int rc = 0;
    if (!weights || !keys || !row_out)
        rc = npusim_error(ACLNN_ERR_INNER, "out of host memory for %lld categories",
                          (long long)categories);
    for (int64_t r = 0; r < rows && !rc; r++) {
        int64_t positive = 0;
        if ((rc = multinomial_row(self, r, categories, weights, &positive))) break;
        if (ex->flag) {
            multinomial_with_replacement(ex, r, weights, categories, samples, row_out);
        } else if (positive < samples) {
            rc = npusim_error(ACLNN_ERR_PARAM_INVALID, "row %lld has %lld positive weights, "
                              "fewer than numsamples %lld without replacement", (long long)r, (long long)positive,
                              (long long)samples);
            break;
        } else {
            multinomial_without_replacement(ex, r, weights, categories, samples, keys, row_out);
        }
        int64_t row_stride = out->ndim == 2 ? out->strides[0] : 0;
        npusim_store(KIND_I64, row_out, out->base + r * row_stride * 8, out->strides[out->ndim - 1] * 8, ACL_INT64,
                     (size_t)samples);
    }
    free(weights);
    free(keys);
    free(row_out);
    return rc;
}

static const npusim_opdef def_multinomial = NPUSIM_OPDEF("aclnnMultinomial", multinomial_kernel);

aclnnStatus aclnnMultinomialGetWorkspaceSize(const aclTensor *self, int64_t numsamples, bool replacement, int64_t seed,
                                             int64_t offset, aclTensor *out, uint64_t *workspaceSize,
                                             aclOpExecutor **executor)
{
    const char *name = "aclnnMultinomial";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnMultinomial_self)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnMultinomial_out)))
        return rc;
    if ((self->ndim != 1 && self->ndim != 2) || self->shape[self->ndim - 1] < 1)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnMultinomialGetWorkspaceSize: self must be (C) or (N, C) "
                            "with C >= 1 (got %d-D)", self->ndim);
    int64_t categories = self->shape[self->ndim - 1];
    if (numsamples <= 0 || (!replacement && numsamples > categories))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnMultinomialGetWorkspaceSize: numsamples (%lld) must be "
                            "positive%s (C = %lld)", (long long)numsamples,
                            replacement ? "" : " and <= C without replacement", (long long)categories);
    int64_t shape[2] = { self->shape[0], numsamples };
    if ((rc = npusim_check_shape_equal(name, "out", out, self->ndim, self->ndim == 2 ? shape : shape + 1)))
        return rc;
    const aclTensor *ins[1] = { self };
    npusim_exec *ex = npusim_exec_create(&def_multinomial, ins, 1, (const aclTensor *const *)&out, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->dim = numsamples;
    ex->flag = replacement;
    ex->dims[0] = seed;
    ex->dims[1] = offset;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnMultinomial(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnMultinomial", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnBernoulli, aclnnBernoulliTensor, aclnnInplaceBernoulli, aclnnInplaceBernoulliTensor: out =
 * 0 or 1, 1 with probability prob (random/dsa_gen_bit_mask/docs/aclnnBernoulli&aclnnInplaceBernoulli.md;
 * self only gives the shape). Element i is 1 when word i % 4 of the block at counter offset + i / 4,
 * times 2^-32, is below its prob (a scalar, or the prob tensor broadcast to out's shape): n / 4
 * counters, as the float draws. A prob tensor must hold values in [0, 1] (checked when the launch
 * runs: npusim fails it otherwise, where the NPU's result is undefined). */

/* One check serves the four Bernoulli operators: aclnnBernoulli's rows of the operator table (the
 * rows of the other three record where that differs from their documents). */
#define M_BERNOULLI NPUSIM_DTYPES_aclnnBernoulli_self
#define M_PROB NPUSIM_DTYPES_aclnnBernoulli_prob

typedef struct {
    const npusim_view *out, *prob; /* prob NULL: the scalar p */
    double p;
    uint64_t seed, offset;
} bernoulli_ctx;

/* The element (row, col) of view v broadcast to `shape` (ndim dims): row numbers the leading dims in C
 * order, col the last dim; v's dims are right-aligned and its size-1 dims repeat. */
static char *broadcast_at(const npusim_view *v, int ndim, const int64_t *shape, int64_t row, int64_t col)
{
    int64_t itemsize = (int64_t)npusim_dtype_size(v->dtype);
    int lead = ndim - v->ndim;
    char *p = v->base;
    if (v->ndim && ndim && v->shape[v->ndim - 1] != 1) p += col * v->strides[v->ndim - 1] * itemsize;
    for (int d = ndim - 2; d >= 0; d--) {
        int64_t index = row % shape[d];
        row /= shape[d];
        if (d - lead >= 0 && v->shape[d - lead] != 1) p += index * v->strides[d - lead] * itemsize;
    }
    return p;
}

static void bernoulli_range(size_t begin, size_t end, void *vctx)
{
    const bernoulli_ctx *c = vctx;
    const npusim_view *out = c->out, *prob = c->prob;
    int last = out->ndim - 1;
    int64_t inner = out->ndim ? out->shape[last] : 1;
    int64_t out_stride = out->ndim ? out->strides[last] * (int64_t)npusim_dtype_size(out->dtype) : 0;
    int64_t prob_stride = prob && prob->ndim && prob->shape[prob->ndim - 1] != 1 && out->ndim
                              ? prob->strides[prob->ndim - 1] * (int64_t)npusim_dtype_size(prob->dtype) : 0;
    double p[NPUSIM_BLOCK], value[NPUSIM_BLOCK];
    uint32_t blocks[NPUSIM_BLOCK / 4 + 2][4];
    for (size_t i = begin; i < end;) {
        int64_t col = (int64_t)i % inner, row = (int64_t)i / inner;
        size_t m = (size_t)(inner - col);
        if (m > end - i) m = end - i;
        if (m > NPUSIM_BLOCK) m = NPUSIM_BLOCK;
        if (prob)
            npusim_load(KIND_F64, p, broadcast_at(prob, out->ndim, out->shape, row, col), prob_stride, prob->dtype, m);
        uint64_t first_block = i >> 2;
        philox_blocks(c->seed, c->offset + first_block, (size_t)(((i + m - 1) >> 2) - first_block + 1), blocks);
        const uint32_t *words = &blocks[0][0] + (i - (first_block << 2));
        for (size_t l = 0; l < m; l++) value[l] = (double)words[l] * 0x1p-32 < (prob ? p[l] : c->p) ? 1.0 : 0.0;
        npusim_store(KIND_F64, value, broadcast_at(out, out->ndim, out->shape, row, col), out_stride, out->dtype, m);
        i += m;
    }
}

/* Fails the launch unless every prob is in [0, 1]. */
static int check_probabilities(const npusim_view *prob)
{
    int64_t count = 1, inner = prob->ndim ? prob->shape[prob->ndim - 1] : 1;
    for (int d = 0; d < prob->ndim; d++) count *= prob->shape[d];
    int64_t stride = prob->ndim ? prob->strides[prob->ndim - 1] * (int64_t)npusim_dtype_size(prob->dtype) : 0;
    double p[NPUSIM_BLOCK];
    for (int64_t i = 0; i < count;) {
        int64_t col = i % inner, m = inner - col < NPUSIM_BLOCK ? inner - col : NPUSIM_BLOCK;
        npusim_load(KIND_F64, p, broadcast_at(prob, prob->ndim, prob->shape, i / inner, col), stride, prob->dtype,
                    (size_t)m);
        for (int64_t l = 0; l < m; l++)
            if (!(p[l] >= 0 && p[l] <= 1))
                return npusim_error(ACLNN_ERR_PARAM_INVALID, "prob[%lld] = %g is not in [0, 1]", (long long)(i + l),
                                    p[l]);
        i += m;
    }
    return 0;
}

/* ex->dims[0..1]: seed and offset; ex->scalars[0]: the scalar prob; views[0] the prob tensor when
 * ex->n_inputs is 1. */
static int bernoulli_kernel(const npusim_exec *ex, npusim_view *views)
{
    const npusim_view *out = &views[ex->n_tensors - 1], *prob = ex->n_inputs ? &views[0] : NULL;
    int rc = prob ? check_probabilities(prob) : 0;
    if (rc) return rc;
    bernoulli_ctx c = { out, prob, ex->scalars[0].d, (uint64_t)ex->dims[0], (uint64_t)ex->dims[1] };
    size_t n = 1;
    for (int d = 0; d < out->ndim; d++) n *= (size_t)out->shape[d];
    if (n < NPUSIM_PARALLEL_MIN / 8)
        bernoulli_range(0, n, &c);
    else
        npusim_parallel_for(n, NPUSIM_PARALLEL_MIN / 8, bernoulli_range, &c);
    return 0;
}

static const npusim_opdef def_bernoulli = NPUSIM_OPDEF("aclnnBernoulli", bernoulli_kernel);
static const npusim_opdef def_bernoulli_tensor = NPUSIM_OPDEF("aclnnBernoulliTensor", bernoulli_kernel);
static const npusim_opdef def_inplace_bernoulli = NPUSIM_OPDEF("aclnnInplaceBernoulli", bernoulli_kernel);
static const npusim_opdef def_inplace_bernoulli_tensor = NPUSIM_OPDEF("aclnnInplaceBernoulliTensor",
                                                                      bernoulli_kernel);

/* The first phase of the four: self (NULL for the in-place ones) gives out's shape and dtype; prob is
 * the scalar or (prob_tensor) a tensor broadcasting to out. */
static aclnnStatus bernoulli_prepare(const npusim_opdef *def, const aclTensor *self, const aclScalar *prob,
                                     const aclTensor *prob_tensor, int64_t seed, int64_t offset, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = def->name, *out_arg = self ? "out" : "selfRef";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (self && ((rc = npusim_check_tensor(name, "self", self)) ||
                        (rc = npusim_check_dtype(name, "self", self->dtype, M_BERNOULLI)))) ||
        (rc = npusim_check_tensor(name, out_arg, out)) ||
        (rc = npusim_check_dtype(name, out_arg, out->dtype, M_BERNOULLI)))
        return rc;
    if (self && self->dtype != out->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: self (%s) and out (%s) must have one dtype",
                            name, npusim_dtype_name(self->dtype), npusim_dtype_name(out->dtype));
    if (self && (rc = npusim_check_shape_equal(name, "out", out, self->ndim, self->shape))) return rc;
    double p = 0;
    if (prob_tensor) {
        if ((rc = npusim_check_tensor(name, "prob", prob_tensor)) ||
            (rc = npusim_check_dtype(name, "prob", prob_tensor->dtype, M_PROB)))
            return rc;
        const aclTensor *pair[2] = { out, prob_tensor };
        int ndim;
        int64_t shape[NPUSIM_MAX_DIMS];
        if ((rc = npusim_broadcast_shape(name, pair, 2, &ndim, shape)) ||
            (rc = npusim_check_shape_equal(name, "prob broadcast with out", out, ndim, shape)))
            return rc;
    } else {
        if ((rc = npusim_check_scalar(name, "prob", prob)) ||
            (rc = npusim_check_dtype(name, "prob", prob->dtype, M_PROB)))
            return rc;
        p = npusim_scalar_double(prob);
        if (!(p >= 0 && p <= 1))
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: prob (%g) must be in [0, 1]", name, p);
    }
    npusim_exec *ex = npusim_exec_create(def, prob_tensor ? &prob_tensor : NULL, prob_tensor ? 1 : 0,
                                         (const aclTensor *const *)&out, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->scalars[0].d = p;
    ex->dims[0] = seed;
    ex->dims[1] = offset;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnBernoulliGetWorkspaceSize(const aclTensor *self, const aclScalar *prob, int64_t seed, int64_t offset,
                                           aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!self) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclnnBernoulliGetWorkspaceSize: self is NULL");
    return bernoulli_prepare(&def_bernoulli, self, prob, NULL, seed, offset, out, workspaceSize, executor);
}

aclnnStatus aclnnBernoulli(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnBernoulli", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnBernoulliTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *prob, int64_t seed,
                                                 int64_t offset, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    if (!self) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclnnBernoulliTensorGetWorkspaceSize: self is NULL");
    if (!prob) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclnnBernoulliTensorGetWorkspaceSize: prob is NULL");
    return bernoulli_prepare(&def_bernoulli_tensor, self, NULL, prob, seed, offset, out, workspaceSize, executor);
}

aclnnStatus aclnnBernoulliTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnBernoulliTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceBernoulliGetWorkspaceSize(const aclTensor *selfRef, const aclScalar *prob, int64_t seed,
                                                  int64_t offset, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return bernoulli_prepare(&def_inplace_bernoulli, NULL, prob, NULL, seed, offset, (aclTensor *)selfRef,
                             workspaceSize, executor);
}

aclnnStatus aclnnInplaceBernoulli(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceBernoulli", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceBernoulliTensorGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *prob, int64_t seed,
                                                        int64_t offset, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor)
{
    if (!prob)
        return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclnnInplaceBernoulliTensorGetWorkspaceSize: prob is NULL");
    return bernoulli_prepare(&def_inplace_bernoulli_tensor, NULL, NULL, prob, seed, offset, (aclTensor *)selfRef,
                             workspaceSize, executor);
}

aclnnStatus aclnnInplaceBernoulliTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream)
{
    return npusim_exec_launch("aclnnInplaceBernoulliTensor", workspace, workspaceSize, executor, stream);
}
