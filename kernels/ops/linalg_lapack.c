/* aclnn linear-algebra operators of hicann/ops-math (docs/acl-abi.md §7.2 "Linear algebra"):
 * aclnnLinalgCholesky, aclnnInverse, aclnnSlogdet, aclnnLinalgQr, aclnnSvd.
 *
 * npusim computes them with LAPACK from the OpenBLAS that matmul uses: the library named by
 * NPUSIM_BLAS_LIBRARY (scipy-openblas32, symbols prefixed scipy_). Every operator is batched over
 * the leading dims and accepts any strides: each matrix is packed into a contiguous buffer of
 * LAPACK's type (float16/bfloat16 are computed in float, as the others in their own precision),
 * factorised, and stored back. Cholesky, QR and the LU of ops-blas (npusim_lapack_sgetrf /
 * sgetrs) are blocked here on column-major buffers with LAPACK's Fortran routines (LAPACKE's
 * row-major layout transposes every matrix twice more, and its input NaN scan reads it once
 * more): OpenBLAS runs on one thread while they do, and their updates run in a few wide chunks
 * on npusim's pool, with a look-ahead that factorises the next panel meanwhile, not on
 * OpenBLAS's busy-waiting threads (la_single_begin).
 *
 * CANN's operators have no `info` output, so a failed factorisation cannot be reported by the
 * launch: npusim writes NaN into the results of a matrix that is singular (Inverse) or not
 * positive definite (LinalgCholesky: every element, also when the input holds a NaN), where
 * CANN's kernels produce non-finite values too, and the caller checks. Slogdet of a singular
 * matrix is sign 0 and log -inf, as documented. */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_inverse.h"
#include "aclnnop/aclnn_linalg_cholesky.h"
#include "aclnnop/aclnn_linalg_qr.h"
#include "aclnnop/aclnn_slogdet.h"
#include "aclnnop/aclnn_svd.h"
#include "linalg_lapack.h"
#include "ops_internal.h"

#ifdef __SSE2__
#include <xmmintrin.h>
#endif

/* Documented dtypes (hicann/ops-math):
 * math/cholesky/docs/aclnnLinalgCholesky.md: FLOAT, BFLOAT16
 * (hicann/ops-nn) aclnnInverse: FLOAT, FLOAT16, DOUBLE (docs/acl-abi.md §7.2)
 * math/slogdet/docs/aclnnSlogdet.md: FLOAT, DOUBLE, COMPLEX64, COMPLEX128
 * math/qr/docs/aclnnLinalgQr.md: FLOAT, FLOAT16, DOUBLE, COMPLEX64, COMPLEX128
 * math/svd/docs/aclnnSvd.md: FLOAT, DOUBLE, COMPLEX64, COMPLEX128 */

/* ---------------------------------------------------------------------------------------------
 * LAPACKE from OpenBLAS */

enum { LA_S, LA_D, LA_C, LA_Z, LA_TYPES };
typedef int32_t la_int; /* scipy-openblas32: 32-bit LAPACK integers */
enum { LAPACK_ROW_MAJOR = 101 };
typedef la_int (*getrf_fn)(int, la_int, la_int, void *, la_int, la_int *);
typedef la_int (*getri_fn)(int, la_int, void *, la_int, const la_int *);
/* Fortran LAPACK (gfortran ABI: arguments by reference, a hidden length after the arguments for
 * each character argument). */
typedef void (*potrf_f)(const char *, const la_int *, void *, const la_int *, la_int *, size_t);
typedef void (*geqrt3_f)(const la_int *, const la_int *, void *, const la_int *, void *, const la_int *, la_int *);
typedef void (*larfb_f)(const char *, const char *, const char *, const char *, const la_int *, const la_int *,
                        const la_int *, const void *, const la_int *, const void *, const la_int *, void *,
                        const la_int *, void *, const la_int *, size_t, size_t, size_t, size_t);
typedef la_int (*gesdd_fn)(int, char, la_int, la_int, void *, la_int, void *, void *, la_int, void *, la_int);

typedef void (*trsm_f)(const char *, const char *, const char *, const char *, const la_int *, const la_int *,
                       const void *, const void *, const la_int *, void *, const la_int *, size_t, size_t, size_t,
                       size_t);
typedef void (*gemm_f)(const char *, const char *, const la_int *, const la_int *, const la_int *, const void *,
                       const void *, const la_int *, const void *, const la_int *, const void *, void *,
                       const la_int *, size_t, size_t);
typedef void (*sgetrf_f)(const la_int *, const la_int *, float *, const la_int *, la_int *, la_int *);
typedef void (*trtri_f)(const char *, const char *, const la_int *, void *, const la_int *, la_int *, size_t, size_t);
typedef void (*sgetrs_f)(const char *, const la_int *, const la_int *, const float *, const la_int *, const la_int *,
                         float *, const la_int *, la_int *, size_t);
typedef void (*slaswp_f)(const la_int *, float *, const la_int *, const la_int *, const la_int *, const la_int *,
                         const la_int *);

/* openblas_set_num_threads / openblas_get_num_threads (la_single_begin) */
typedef void (*set_threads_fn)(int);
typedef int (*get_threads_fn)(void);
static set_threads_fn la_set_threads;
static get_threads_fn la_get_threads;

static struct {
    sgetrf_f sgetrf; /* the blocked LU (lu_blocked) */
    slaswp_f slaswp;
    sgetrs_f sgetrs;
    getrf_fn getrf[LA_TYPES];
    getri_fn getri[LA_TYPES];
    potrf_f potrf[LA_TYPES];
    geqrt3_f geqrt3[LA_TYPES];
    larfb_f larfb[LA_TYPES];
    trsm_f trsm[LA_TYPES]; /* the blocked Cholesky and LU */
    trtri_f trtri[LA_TYPES];
    gemm_f gemm[LA_TYPES];
    gesdd_fn gesdd[LA_TYPES];
} la;
static pthread_once_t la_once = PTHREAD_ONCE_INIT;
static char la_problem[512];

/* scipy_LAPACKE_<t><name>, or the Fortran routine scipy_<t><name>_ when `fortran`. */
static void *la_sym(void *lib, int type, const char *name, bool fortran)
{
    char full[64];
    if (fortran)
        snprintf(full, sizeof full, "scipy_%c%s_", "sdcz"[type], name);
    else
        snprintf(full, sizeof full, "scipy_LAPACKE_%c%s", "sdcz"[type], name);
    void *f = dlsym(lib, full);
    if (!f && !la_problem[0]) snprintf(la_problem, sizeof la_problem, "the library has no %s", full);
    return f;
}

static void la_load(void)
{
    const char *path = getenv("NPUSIM_BLAS_LIBRARY");
    if (!path || !*path) {
        snprintf(la_problem, sizeof la_problem, "the environment variable NPUSIM_BLAS_LIBRARY (path of "
                 "scipy-openblas32's libscipy_openblas.so) is not set");
        return;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(la_problem, sizeof la_problem, "cannot load NPUSIM_BLAS_LIBRARY=%s: %s", path, dlerror());
        return;
    }
    la.sgetrf = (sgetrf_f)la_sym(lib, LA_S, "getrf", true);
    la.slaswp = (slaswp_f)la_sym(lib, LA_S, "laswp", true);
    la.sgetrs = (sgetrs_f)la_sym(lib, LA_S, "getrs", true);
    /* OpenBLAS's own API (la_single_begin); a library without it keeps its threads */
    la_set_threads = (set_threads_fn)dlsym(lib, "scipy_openblas_set_num_threads");
    la_get_threads = (get_threads_fn)dlsym(lib, "scipy_openblas_get_num_threads");
    if (!la_get_threads) la_set_threads = NULL;
    for (int t = 0; t < LA_TYPES; t++) {
        la.getrf[t] = (getrf_fn)la_sym(lib, t, "getrf", false);
        la.getri[t] = (getri_fn)la_sym(lib, t, "getri", false);
        la.potrf[t] = (potrf_f)la_sym(lib, t, "potrf", true);
        la.geqrt3[t] = (geqrt3_f)la_sym(lib, t, "geqrt3", true);
        la.larfb[t] = (larfb_f)la_sym(lib, t, "larfb", true);
        la.trsm[t] = (trsm_f)la_sym(lib, t, "trsm", true);
        la.trtri[t] = (trtri_f)la_sym(lib, t, "trtri", true);
        la.gemm[t] = (gemm_f)la_sym(lib, t, "gemm", true);
        la.gesdd[t] = (gesdd_fn)la_sym(lib, t, "gesdd", false);
    }
}

static int la_ready(const char *op)
{
    const char *problem = npusim_lapack_problem();
    if (!problem) return 0;
    return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: LAPACK is unavailable: %s", op, problem);
}

const char *npusim_lapack_problem(void)
{
    pthread_once(&la_once, la_load);
    return la_problem[0] ? la_problem : NULL;
}

/* ---------------------------------------------------------------------------------------------
 * OpenBLAS on one thread, npusim's pool for the parallelism
 *
 * OpenBLAS splits a level-3 call of more than about 2^18 multiply-adds across its own threads,
 * which busy-wait for one another and, once done, spin for a while before they sleep; on a
 * machine with more runnable threads than cores a wait for a descheduled partner costs more than
 * the work (a 512 x 512 QR took 0.5 s instead of 20 ms), and the spinning takes the cores from
 * npusim's stream and pool threads. Keeping every call under that size instead cuts the updates
 * into slivers of a few columns, each packing its operands again. So while a factorisation runs
 * OpenBLAS is set to one thread (la_single_begin / la_single_end, counted, so that overlapping
 * factorisations on several streams restore it once, after the last), and the factorisations
 * split their updates into a few wide column chunks on npusim's pool, whose threads sleep when
 * idle. Products outside a factorisation keep OpenBLAS's threads (matmul.c). */
static pthread_mutex_t la_threads_lock = PTHREAD_MUTEX_INITIALIZER;
static int la_single_users, la_saved_threads;

static void la_single_begin(void)
{
    pthread_mutex_lock(&la_threads_lock);
    if (la_single_users++ == 0 && la_set_threads) {
        la_saved_threads = la_get_threads();
        la_set_threads(1);
    }
    pthread_mutex_unlock(&la_threads_lock);
}

static void la_single_end(void)
{
    pthread_mutex_lock(&la_threads_lock);
    if (--la_single_users == 0 && la_set_threads) la_set_threads(la_saved_threads);
    pthread_mutex_unlock(&la_threads_lock);
}

/* Below LA_POOL_MNK multiply-adds an update runs on the calling thread: waking a pool thread
 * costs more than it saves. Above it, in at most LA_CHUNKS chunks of at least `least` columns
 * (LA_MIN_CHUNK for the updates: narrower ones spend their time packing operands; the solves'
 * right-hand sides are narrower). */
#define LA_POOL_MNK (1LL << 21)
#define LA_MIN_CHUNK 32
#define LA_CHUNKS 4

/* The width of the chunks of `cols` columns costing `per_column` multiply-adds each, and their
 * number in *count. */
static la_int chunk_width(la_int cols, int64_t per_column, la_int least, size_t *count)
{
    la_int width = cols;
    if (per_column * cols >= LA_POOL_MNK) {
        width = (cols + LA_CHUNKS - 1) / LA_CHUNKS;
        if (width < least) width = least;
        if (width > cols) width = cols;
    }
    *count = cols > 0 ? (size_t)((cols + width - 1) / width) : 0;
    return width;
}

/* Runs fn over `count` items on the pool, or on the calling thread when the step is small. */
static void run_items(size_t count, bool pooled, npusim_range_fn fn, void *ctx)
{
    if (pooled) npusim_parallel_for(count, 1, fn, ctx);
    else fn(0, count, ctx);
}

/* Runs fn over the chunks of `cols` columns costing `per_column` multiply-adds each; the chunk
 * width is stored in *chunk first. */
static void run_chunks(la_int cols, int64_t per_column, la_int least, la_int *chunk, npusim_range_fn fn, void *ctx)
{
    size_t count;
    *chunk = chunk_width(cols, per_column, least, &count);
    run_items(count, count > 1, fn, ctx);
}

/* ---------------------------------------------------------------------------------------------
 * Blocked LU with partial pivoting (xgetrf's right-looking algorithm) with a look-ahead: blocks
 * of LU_NB columns, each panel factorised by sgetrf (its recursive LU); while the columns right
 * of the next panel are updated in chunks, the next panel's own columns are updated first and
 * the panel factorised, so that the pool's threads share one step instead of waiting for the
 * panel, which alone is not parallel. Each step is one pool job of items with disjoint columns:
 * the row exchanges of the current panel on the columns left of it, the look-ahead, and the
 * chunks of the rest.
 *
 * The block row right of a panel, L11^-1 A12, is a product with the explicit inverse of the
 * panel's unit lower triangle (strtri, as blocked GPU LUs do: with partial pivoting |l| <= 1):
 * OpenBLAS's triangular solve of a 64-row block runs at a seventh of its product's speed and took
 * as long as the whole trailing product. */
#define LU_NB 64
#define LU_SUB 128 /* columns of L11^-1 A12 per product, through a buffer on the stack */

typedef struct {
    la_int m, n, lda, j, jb, next, jbn, chunk, info;
    float *a;
    la_int *ipiv;
    float *inverse[2]; /* L11^-1 of the panels, LU_NB x LU_NB, alternately (see lu_panel) */
} lu_step;

static float *lu_inverse(const lu_step *u, la_int j) { return u->inverse[(j / LU_NB) % 2]; }

/* inv (column-major, ldi) = the inverse of the unit lower triangle of the n x n column-major l:
 * column c solves L x = e_c by forward substitution, each step a loop over a column of L that
 * the compiler vectorises (xtrtri's unblocked code makes a BLAS call per column: 16 us for 64 x
 * 64, four times this). */
static void unit_lower_inverse(la_int n, const float *l, la_int ldl, float *inv, la_int ldi)
{
    for (la_int c = 0; c < n; c++) {
        float *x = inv + (size_t)c * (size_t)ldi;
        memset(x, 0, sizeof(float) * (size_t)n);
        x[c] = 1;
        for (la_int k = c; k < n; k++) {
            const float *col = l + (size_t)k * (size_t)ldl, xk = x[k];
            for (la_int i = k + 1; i < n; i++) x[i] -= col[i] * xk;
        }
    }
}

/* Factorises the rows x jb panel at column j (rows j..m-1): pivots made global (1-based), and
 * the inverse of its unit lower triangle into lu_inverse(u, j) (the current panel's stays in the
 * other one while this one is the look-ahead). */
static la_int lu_panel(const lu_step *u, la_int j, la_int jb)
{
    la_int rows = u->m - j, info = 0;
    float *panel = u->a + (size_t)j * (size_t)u->lda + (size_t)j, *inv = lu_inverse(u, j);
    la.sgetrf(&rows, &jb, panel, &u->lda, u->ipiv + j, &info);
    for (la_int i = j; i < j + jb; i++) u->ipiv[i] += j;
    unit_lower_inverse(jb, panel, u->lda, inv, LU_NB);
    return info > 0 ? info + j : 0;
}

/* Applies the current panel (its exchanges, L11^-1, the product below) to columns
 * [first, first + cols). */
static void lu_apply(const lu_step *u, la_int first, la_int cols)
{
    la_int k1 = u->j + 1, k2 = u->j + u->jb, one = 1, rows = u->m - u->j - u->jb, jb = u->jb, nb = LU_NB;
    const float plus = 1.0f, minus = -1.0f, zero = 0.0f;
    float *panel = u->a + (size_t)u->j * (size_t)u->lda + (size_t)u->j;
    float *c = u->a + (size_t)first * (size_t)u->lda, block[LU_NB * LU_SUB];
    la.slaswp(&cols, c, &u->lda, &k1, &k2, u->ipiv, &one);
    for (la_int c0 = 0; c0 < cols; c0 += LU_SUB) {
        la_int w = cols - c0 < LU_SUB ? cols - c0 : LU_SUB;
        float *top = c + (size_t)c0 * (size_t)u->lda + (size_t)u->j;
        for (la_int col = 0; col < w; col++)
            memcpy(block + (size_t)col * (size_t)jb, top + (size_t)col * (size_t)u->lda, sizeof(float) * (size_t)jb);
        la.gemm[LA_S]("N", "N", &jb, &w, &jb, &plus, lu_inverse(u, u->j), &nb, block, &jb, &zero, top, &u->lda, 1, 1);
    }
    if (rows > 0)
        la.gemm[LA_S]("N", "N", &rows, &cols, &u->jb, &minus, panel + u->jb, &u->lda, c + u->j, &u->lda, &plus,
                      c + u->j + u->jb, &u->lda, 1, 1);
}

/* Item 0: the current panel's exchanges on the columns left of it; item 1: the look-ahead;
 * items 2..: the chunks right of the next panel. */
static void lu_items(size_t begin, size_t end, void *ctx)
{
    lu_step *u = ctx;
    for (size_t i = begin; i < end; i++) {
        if (i == 0 && u->j > 0) {
            la_int k1 = u->j + 1, k2 = u->j + u->jb, one = 1;
            la.slaswp(&u->j, u->a, &u->lda, &k1, &k2, u->ipiv, &one);
        } else if (i == 1 && u->jbn > 0) {
            lu_apply(u, u->next, u->jbn);
            u->info = lu_panel(u, u->next, u->jbn);
        } else if (i >= 2) {
            la_int first = u->next + u->jbn + (la_int)(i - 2) * u->chunk;
            lu_apply(u, first, u->n - first < u->chunk ? u->n - first : u->chunk);
        }
    }
}

/* LU of the m x n column-major `a`; LAPACK's info (the first zero pivot, 1-based, the
 * factorisation completed as xgetrf does). */
static la_int lu_blocked(la_int m, la_int n, float *a, la_int lda, la_int *ipiv)
{
    la_int k = m < n ? m : n;
    float inverses[2][LU_NB * LU_NB];
    lu_step u = { m, n, lda, 0, 0, 0, 0, 0, 0, a, ipiv, { inverses[0], inverses[1] } };
    la_int info = k > 0 ? lu_panel(&u, 0, k < LU_NB ? k : LU_NB) : 0;
    for (la_int j = 0; j < k; j += LU_NB) {
        u.j = j;
        u.jb = k - j < LU_NB ? k - j : LU_NB;
        u.next = j + u.jb;
        u.jbn = k - u.next < LU_NB ? (k - u.next > 0 ? k - u.next : 0) : LU_NB;
        u.info = 0;
        size_t chunks;
        la_int rest = n - u.next - u.jbn;
        u.chunk = chunk_width(rest > 0 ? rest : 0, (int64_t)(m - j) * u.jb, LA_MIN_CHUNK, &chunks);
        run_items(2 + chunks, (int64_t)(m - j) * u.jb * (n - u.next) >= LA_POOL_MNK, lu_items, &u);
        if (u.info > 0 && info == 0) info = u.info;
    }
    return info;
}

#define LU_MIN_RHS 8 /* right-hand sides per chunk of a solve */

/* The first `nrhs` columns of b get A^-1 b (trans 'N') or A^-T b (otherwise) from the LU of
 * lu_blocked, in column chunks on the pool. */
typedef struct {
    char trans;
    la_int n, nrhs, lda, ldb, chunk;
    const float *a;
    const la_int *ipiv;
    float *b;
} lu_solve_job;

static void lu_solve_chunks(size_t begin, size_t end, void *ctx)
{
    const lu_solve_job *s = ctx;
    for (size_t i = begin; i < end; i++) {
        la_int first = (la_int)i * s->chunk, cols = s->nrhs - first < s->chunk ? s->nrhs - first : s->chunk, info;
        la.sgetrs(&s->trans, &s->n, &cols, s->a, &s->lda, s->ipiv, s->b + (size_t)first * (size_t)s->ldb, &s->ldb,
                  &info, 1);
    }
}

int32_t npusim_lapack_sgetrf(int32_t n, float *a, int32_t lda, int32_t *ipiv)
{
    la_single_begin();
    la_int info = lu_blocked(n, n, a, lda, ipiv);
    la_single_end();
    return info;
}

void npusim_lapack_sgetrs(char trans, int32_t n, int32_t nrhs, const float *a, int32_t lda, const int32_t *ipiv,
                          float *b, int32_t ldb)
{
    lu_solve_job s = { trans == 'N' ? 'N' : 'T', n, nrhs, lda, ldb, 0, a, ipiv, b };
    la_single_begin();
    run_chunks(nrhs, (int64_t)n * n, LU_MIN_RHS, &s.chunk, lu_solve_chunks, &s);
    la_single_end();
}

static int la_type(aclDataType dt)
{
    switch (dt) {
    case ACL_DOUBLE: return LA_D;
    case ACL_COMPLEX64: return LA_C;
    case ACL_COMPLEX128: return LA_Z;
    default: return LA_S; /* float, float16, bfloat16 */
    }
}

static const size_t la_size[LA_TYPES] = { 4, 8, 8, 16 };
static bool la_complex(int t) { return t >= LA_C; }

/* ---------------------------------------------------------------------------------------------
 * Matrices of a batch, packed to and from LAPACK buffers */

typedef struct {
    char *base;
    aclDataType dtype;
    int64_t rows, cols, rs, cs; /* element strides */
} matrix;

/* The address of batch element b of a view whose first `nb` dims are the batch dims. */
static char *batch_base(const npusim_view *v, int nb, int64_t b)
{
    int64_t off = 0;
    for (int d = nb - 1; d >= 0; d--) {
        off += (b % v->shape[d]) * v->strides[d];
        b /= v->shape[d];
    }
    return v->base + off * (int64_t)npusim_dtype_size(v->dtype);
}

static matrix matrix_at(const npusim_view *v, int64_t b)
{
    int nd = v->ndim;
    matrix m = { batch_base(v, nd - 2, b), v->dtype, v->shape[nd - 2], v->shape[nd - 1], v->strides[nd - 2],
                 v->strides[nd - 1] };
    return m;
}

static int64_t batch_count(const npusim_view *v, int nb)
{
    int64_t n = 1;
    for (int d = 0; d < nb; d++) n *= v->shape[d];
    return n;
}

/* Whether m's elements already have LAPACK type t's representation (no conversion). */
static bool native(const matrix *m, int t)
{
    static const aclDataType dtype_of[LA_TYPES] = { ACL_FLOAT, ACL_DOUBLE, ACL_COMPLEX64, ACL_COMPLEX128 };
    return m->dtype == dtype_of[t];
}

/* Copies m into dst, row-major with `ld` elements per row, in LAPACK type t. */
static void pack(const matrix *m, int t, void *dst, int64_t ld)
{
    size_t isz = npusim_dtype_size(m->dtype), esz = la_size[t];
    bool rows_dense = native(m, t) && (m->cs == 1 || m->cols == 1);
    for (int64_t r = 0; r < m->rows; r++) {
        char *row = (char *)dst + (size_t)(r * ld) * esz;
        const char *src = m->base + r * m->rs * (int64_t)isz;
        if (rows_dense) { /* a plain copy, not npusim_load's element loop */
            memcpy(row, src, (size_t)m->cols * esz);
        } else if (la_complex(t)) {
            for (int64_t c = 0; c < m->cols; c++) memcpy(row + (size_t)c * esz, src + c * m->cs * (int64_t)isz, esz);
        } else {
            npusim_load(t == LA_S ? KIND_F32 : KIND_F64, row, src, m->cs * (int64_t)isz, m->dtype, (size_t)m->cols);
        }
    }
}

static void unpack(const void *src, int64_t ld, int t, const matrix *m)
{
    size_t isz = npusim_dtype_size(m->dtype), esz = la_size[t];
    for (int64_t r = 0; r < m->rows; r++) {
        const char *row = (const char *)src + (size_t)(r * ld) * esz;
        char *dst = m->base + r * m->rs * (int64_t)isz;
        if (la_complex(t)) {
            for (int64_t c = 0; c < m->cols; c++) memcpy(dst + c * m->cs * (int64_t)isz, row + (size_t)c * esz, esz);
        } else {
            npusim_store(t == LA_S ? KIND_F32 : KIND_F64, row, dst, m->cs * (int64_t)isz, m->dtype, (size_t)m->cols);
        }
    }
}

static matrix transposed(const matrix *m)
{
    matrix r = { m->base, m->dtype, m->cols, m->rows, m->cs, m->rs };
    return r;
}

/* Copies rows x cols elements of type T between two layouts (byte strides) tile by tile, so
 * that a transposing copy reads and writes whole cache lines. */
enum { TILE = 32 };
#define COPY_TILED(T)                                                                                   \
    for (int64_t r0 = 0; r0 < rows; r0 += TILE)                                                         \
        for (int64_t c0 = 0; c0 < cols; c0 += TILE) {                                                   \
            int64_t r1 = r0 + TILE < rows ? r0 + TILE : rows, c1 = c0 + TILE < cols ? c0 + TILE : cols; \
            for (int64_t r = r0; r < r1; r++)                                                           \
                for (int64_t c = c0; c < c1; c++)                                                       \
                    memcpy(dst + r * drs + c * dcs, src + r * srs + c * scs, sizeof(T));                \
        }

typedef struct { double re, im; } la_c128;

#ifdef __SSE2__
/* dst[c * dld + r] = src[r * sld + c] for a rows x cols float matrix: 4 x 4 blocks transposed in
 * registers within each tile (a float at a time ran at 4 GB/s: a quarter of a 512 x 512 QR's
 * packing and unpacking). */
static void transpose_f32(int64_t rows, int64_t cols, const float *src, int64_t sld, float *dst, int64_t dld)
{
    for (int64_t r0 = 0; r0 < rows; r0 += TILE)
        for (int64_t c0 = 0; c0 < cols; c0 += TILE) {
            int64_t r1 = r0 + TILE < rows ? r0 + TILE : rows, c1 = c0 + TILE < cols ? c0 + TILE : cols, r = r0;
            for (; r + 4 <= r1; r += 4) {
                int64_t c = c0;
                for (; c + 4 <= c1; c += 4) {
                    const float *s = src + r * sld + c;
                    __m128 a = _mm_loadu_ps(s), b = _mm_loadu_ps(s + sld), x = _mm_loadu_ps(s + 2 * sld),
                           y = _mm_loadu_ps(s + 3 * sld);
                    _MM_TRANSPOSE4_PS(a, b, x, y);
                    float *d = dst + c * dld + r;
                    _mm_storeu_ps(d, a);
                    _mm_storeu_ps(d + dld, b);
                    _mm_storeu_ps(d + 2 * dld, x);
                    _mm_storeu_ps(d + 3 * dld, y);
                }
                for (; c < c1; c++)
                    for (int64_t i = r; i < r + 4; i++) dst[c * dld + i] = src[i * sld + c];
            }
            for (; r < r1; r++)
                for (int64_t c = c0; c < c1; c++) dst[c * dld + r] = src[r * sld + c];
        }
}
#endif

static void copy_tiled(size_t esz, int64_t rows, int64_t cols, const char *src, int64_t srs, int64_t scs, char *dst,
                       int64_t drs, int64_t dcs)
{
#ifdef __SSE2__
    int64_t e = (int64_t)esz;
    bool aligned = srs % e == 0 && scs % e == 0 && drs % e == 0 && dcs % e == 0 && (uintptr_t)src % esz == 0 &&
                   (uintptr_t)dst % esz == 0;
    if (esz == 4 && aligned && scs == 4 && drs == 4) { /* row-major to column-major */
        transpose_f32(rows, cols, (const float *)src, srs / 4, (float *)dst, dcs / 4);
        return;
    }
    if (esz == 4 && aligned && srs == 4 && dcs == 4) { /* column-major to row-major */
        transpose_f32(cols, rows, (const float *)src, scs / 4, (float *)dst, drs / 4);
        return;
    }
#endif
    switch (esz) {
    case 4: COPY_TILED(float) break;
    case 8: COPY_TILED(double) break;
    default: COPY_TILED(la_c128) break;
    }
}

/* Copies m into dst column-major with `ld` elements per column, in LAPACK type t. */
static void pack_cm(const matrix *m, int t, void *dst, int64_t ld)
{
    int64_t esz = (int64_t)la_size[t];
    if (native(m, t)) {
        copy_tiled((size_t)esz, m->rows, m->cols, m->base, m->rs * esz, m->cs * esz, dst, esz, ld * esz);
        return;
    }
    matrix mt = transposed(m);
    pack(&mt, t, dst, ld);
}

/* Stores a column-major buffer (`ld` elements per column) of LAPACK type t into m. */
static void unpack_cm(const void *src, int64_t ld, int t, const matrix *m)
{
    int64_t esz = (int64_t)la_size[t];
    if (native(m, t)) {
        copy_tiled((size_t)esz, m->rows, m->cols, src, esz, ld * esz, m->base, m->rs * esz, m->cs * esz);
        return;
    }
    matrix mt = transposed(m);
    unpack(src, ld, t, &mt);
}

/* Element (r, c) of a column-major LAPACK buffer with `ld` elements per column. */
static char *cm_at(int t, void *a, la_int ld, la_int r, la_int c)
{
    return (char *)a + ((size_t)c * (size_t)ld + (size_t)r) * la_size[t];
}

/* Whether the bytes of m lie outside [lo, hi). */
static bool outside(const matrix *m, const char *lo, const char *hi)
{
    int64_t isz = (int64_t)npusim_dtype_size(m->dtype), first = 0, last = isz;
    int64_t spans[2] = { (m->rows - 1) * m->rs * isz, (m->cols - 1) * m->cs * isz };
    for (int i = 0; i < 2; i++) {
        if (spans[i] < 0) first += spans[i];
        else last += spans[i];
    }
    return m->base + last <= lo || m->base + first >= hi;
}

/* Element i of a LAPACK buffer as (re, im) doubles, and back. */
static void la_get(int t, const void *buf, size_t i, double *re, double *im)
{
    switch (t) {
    case LA_S: *re = ((const float *)buf)[i]; *im = 0; break;
    case LA_D: *re = ((const double *)buf)[i]; *im = 0; break;
    case LA_C: *re = ((const float *)buf)[2 * i]; *im = ((const float *)buf)[2 * i + 1]; break;
    default: *re = ((const double *)buf)[2 * i]; *im = ((const double *)buf)[2 * i + 1]; break;
    }
}

static void la_set(int t, void *buf, size_t i, double re, double im)
{
    switch (t) {
    case LA_S: ((float *)buf)[i] = (float)re; break;
    case LA_D: ((double *)buf)[i] = re; break;
    case LA_C: ((float *)buf)[2 * i] = (float)re; ((float *)buf)[2 * i + 1] = (float)im; break;
    default: ((double *)buf)[2 * i] = re; ((double *)buf)[2 * i + 1] = im; break;
    }
}

static void la_fill(int t, void *buf, size_t n, double value)
{
    for (size_t i = 0; i < n; i++) la_set(t, buf, i, value, la_complex(t) ? value : 0);
}

/* Zeroes the triangle of a rows x cols row-major buffer strictly below (lower = true) or above
 * the diagonal (zero bits are 0.0 in every LAPACK type). */
static void zero_triangle(int t, void *buf, int64_t rows, int64_t cols, int64_t ld, bool lower)
{
    size_t esz = la_size[t];
    for (int64_t r = 0; r < rows; r++) {
        char *row = (char *)buf + (size_t)(r * ld) * esz;
        int64_t begin = lower ? 0 : r + 1, end = lower ? (r < cols ? r : cols) : cols;
        if (end > begin) memset(row + (size_t)begin * esz, 0, (size_t)(end - begin) * esz);
    }
}

/* Host workspace of the factorisations, kept per thread between launches (up to
 * LA_SCRATCH_KEEP bytes): a fresh malloc of a few MiB is a fresh mapping, and its first touch
 * page by page cost a 512 x 512 QR 0.5 ms of page faults on every call. Valid until the thread's
 * next la_scratch; freed with the thread. */
#define LA_SCRATCH_KEEP ((size_t)16 << 20)

typedef struct {
    void *data;
    size_t size;
} la_scratch_buf;

static pthread_key_t la_scratch_key;
static pthread_once_t la_scratch_once = PTHREAD_ONCE_INIT;
static bool la_scratch_keyed;

static void la_scratch_free(void *p)
{
    la_scratch_buf *s = p;
    free(s->data);
    free(s);
}

static void la_scratch_init(void) { la_scratch_keyed = pthread_key_create(&la_scratch_key, la_scratch_free) == 0; }

/* `bytes` of workspace (NULL when out of memory), to give back with la_scratch_release. */
static void *la_scratch(size_t bytes)
{
    pthread_once(&la_scratch_once, la_scratch_init);
    la_scratch_buf *s = la_scratch_keyed ? pthread_getspecific(la_scratch_key) : NULL;
    if (!s && la_scratch_keyed && (s = calloc(1, sizeof *s)) && pthread_setspecific(la_scratch_key, s) != 0) {
        free(s);
        s = NULL;
    }
    if (!s || bytes > LA_SCRATCH_KEEP) return malloc(bytes ? bytes : 1);
    if (s->size < bytes) {
        free(s->data);
        s->size = 0;
        if (!(s->data = malloc(bytes))) return NULL;
        s->size = bytes;
    }
    return s->data;
}

static void la_scratch_release(void *p, size_t bytes)
{
    la_scratch_buf *s = la_scratch_keyed ? pthread_getspecific(la_scratch_key) : NULL;
    if (!s || p != s->data || bytes > LA_SCRATCH_KEEP) free(p);
}

static int out_of_memory(const char *op) { return npusim_error(ACLNN_ERR_INNER, "%s: out of host memory", op); }

/* ---------------------------------------------------------------------------------------------
 * Shape checks shared by the first phases */

static int check_matrix(const char *op, const char *arg, const aclTensor *t, bool square)
{
    if (t->ndim < 2 || t->ndim > NPUSIM_MAX_DIMS)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s must have 2 to 8 dims (got %d)", op,
                            arg, t->ndim);
    if (square && t->shape[t->ndim - 1] != t->shape[t->ndim - 2])
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s must be square in its last two dims "
                            "(got %lld x %lld)", op, arg, (long long)t->shape[t->ndim - 2],
                            (long long)t->shape[t->ndim - 1]);
    if (t->shape[t->ndim - 1] > INT32_MAX || t->shape[t->ndim - 2] > INT32_MAX)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s has dims beyond 2^31", op, arg);
    return 0;
}

static int check_same_dtype(const char *op, const char *arg, const aclTensor *t, const aclTensor *self)
{
    if (t->dtype == self->dtype) return 0;
    return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s must have self's dtype %s (got %s)", op,
                        arg, npusim_dtype_name(self->dtype), npusim_dtype_name(t->dtype));
}

/* Expected shape: self's batch dims followed by `n_tail` given dims. */
static int check_batch_shape(const char *op, const char *arg, const aclTensor *t, const aclTensor *self, int n_tail,
                             int64_t d0, int64_t d1)
{
    int64_t shape[NPUSIM_MAX_DIMS + 2];
    int nb = self->ndim - 2;
    for (int d = 0; d < nb; d++) shape[d] = self->shape[d];
    if (n_tail > 0) shape[nb] = d0;
    if (n_tail > 1) shape[nb + 1] = d1;
    return npusim_check_shape_equal(op, arg, t, nb + n_tail, shape);
}

/* An executor of one input and n_outs outputs (NULL with the error set). */
static npusim_exec *make_exec(const npusim_opdef *def, const aclTensor *self, const aclTensor *const *outs, int n_outs)
{
    const aclTensor *ins[1] = { self };
    return npusim_exec_create(def, ins, 1, outs, n_outs);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnLinalgCholesky: self = L L^H (upper: U^H U) */

/* Whether the diagonal of an n x n LAPACK buffer holds a NaN: a NaN anywhere in a Cholesky factor
 * reaches every later diagonal element, so a NaN input that potrf does not refuse shows here. */
static bool nan_diagonal(int t, const void *buf, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double re, im;
        la_get(t, buf, (size_t)(i * n + i), &re, &im);
        if (isnan(re) || isnan(im)) return true;
    }
    return false;
}

/* Transposes an n x n LAPACK buffer in place, tile pair by tile pair. */
static void transpose_square(int t, void *buf, int64_t n)
{
    size_t esz = la_size[t];
    char tmp[16];
    for (int64_t r0 = 0; r0 < n; r0 += TILE)
        for (int64_t c0 = r0; c0 < n; c0 += TILE)
            for (int64_t r = r0; r < r0 + TILE && r < n; r++)
                for (int64_t c = c0 > r + 1 ? c0 : r + 1; c < c0 + TILE && c < n; c++) {
                    char *x = (char *)buf + (size_t)(r * n + c) * esz, *y = (char *)buf + (size_t)(c * n + r) * esz;
                    memcpy(tmp, x, esz);
                    memcpy(x, y, esz);
                    memcpy(y, tmp, esz);
                }
}

/* Blocked right-looking Cholesky a = U^H U of a column-major n x n matrix (its upper triangle):
 * diagonal blocks of CHOL_NB columns by xpotrf, the row block to their right, U11^-H A12, as a
 * product with the explicit inverse of U11 (OpenBLAS's triangular solve of a 64-row block runs
 * at a seventh of its product's speed), then the trailing upper triangle (xgemm) in column chunks
 * on the pool, with a look-ahead as the LU's: the first item updates the next diagonal block and
 * factorises it while the others update the columns right of it. A chunk's product also writes
 * below its diagonal, in the triangle LAPACK does not read (zeroed afterwards). Returns xpotrf's
 * info (0, or the order of the first leading minor that is not positive definite). `work` holds
 * CHOL_NB x (n + CHOL_NB) elements. */
#define CHOL_NB 64

typedef struct {
    int t;
    la_int n, j, jb, next, jbn, chunk, info;
    char *a;
} chol_step;

/* 1, 0 and -1 in LAPACK type t (the real part first, for the complex types). */
static const void *la_scalar(int t, int value)
{
    static const float f[3][2] = { { -1, 0 }, { 0, 0 }, { 1, 0 } };
    static const double d[3][2] = { { -1, 0 }, { 0, 0 }, { 1, 0 } };
    return t == LA_S || t == LA_C ? (const void *)f[value + 1] : (const void *)d[value + 1];
}

/* inv (column-major, ldi, zero below the diagonal) = the inverse of the upper triangle of the
 * n x n column-major u, by back substitution in vectorised column loops (as unit_lower_inverse;
 * xtrtri is for the other types). */
static void upper_inverse(la_int n, const float *u, la_int ldu, float *inv, la_int ldi)
{
    for (la_int c = 0; c < n; c++) {
        float *x = inv + (size_t)c * (size_t)ldi;
        memset(x, 0, sizeof(float) * (size_t)n);
        x[c] = 1;
        for (la_int k = c; k >= 0; k--) {
            const float *col = u + (size_t)k * (size_t)ldu;
            float xk = x[k] /= col[k];
            for (la_int i = 0; i < k; i++) x[i] -= col[i] * xk;
        }
    }
}

/* The row block right of the factorised diagonal block at j: A12 = U11^-H A12. */
static void chol_row_block(int t, la_int n, la_int j, la_int jb, char *a, char *work)
{
    size_t esz = la_size[t];
    la_int nb = CHOL_NB, rest = n - j - jb, info;
    char *inv = work, *row = work + (size_t)CHOL_NB * CHOL_NB * esz;
    if (t == LA_S) {
        upper_inverse(jb, (const float *)cm_at(t, a, n, j, j), n, (float *)inv, CHOL_NB);
    } else {
        memset(inv, 0, (size_t)CHOL_NB * CHOL_NB * esz);
        for (la_int c = 0; c < jb; c++)
            memcpy(inv + (size_t)c * CHOL_NB * esz, cm_at(t, a, n, j, j + c), (size_t)(c + 1) * esz);
        la.trtri[t]("U", "N", &jb, inv, &nb, &info, 1, 1);
    }
    for (la_int c = 0; c < rest; c++)
        memcpy(row + (size_t)c * (size_t)jb * esz, cm_at(t, a, n, j, j + jb + c), (size_t)jb * esz);
    la.gemm[t](la_complex(t) ? "C" : "T", "N", &jb, &rest, &jb, la_scalar(t, 1), inv, &nb, row, &jb, la_scalar(t, 0),
               cm_at(t, a, n, j, j + jb), &n, 1, 1);
}

/* xpotrf of the diagonal block at j: 0, or the order of the failing leading minor of a. */
static la_int chol_diagonal(int t, la_int n, char *a, la_int j, la_int jb)
{
    la_int info = 0;
    la.potrf[t]("U", &jb, cm_at(t, a, n, j, j), &n, &info, 1);
    return info != 0 ? info + j : 0;
}

/* The trailing update of columns [first, first + cols): their rows from the step's next block
 * down to their own diagonal block. */
static void chol_update(const chol_step *c, la_int first, la_int cols)
{
    la_int rows = first + cols - c->next;
    la.gemm[c->t](la_complex(c->t) ? "C" : "T", "N", &rows, &cols, &c->jb, la_scalar(c->t, -1),
                  cm_at(c->t, c->a, c->n, c->j, c->next), &c->n, cm_at(c->t, c->a, c->n, c->j, first), &c->n,
                  la_scalar(c->t, 1), cm_at(c->t, c->a, c->n, c->next, first), &c->n, 1, 1);
}

/* Item 0: the look-ahead (the next diagonal block updated and factorised); items 1..: the
 * chunks right of it. */
static void chol_items(size_t begin, size_t end, void *ctx)
{
    chol_step *c = ctx;
    for (size_t i = begin; i < end; i++) {
        if (i == 0) {
            chol_update(c, c->next, c->jbn);
            c->info = chol_diagonal(c->t, c->n, c->a, c->next, c->jbn);
        } else {
            la_int first = c->next + c->jbn + (la_int)(i - 1) * c->chunk;
            chol_update(c, first, c->n - first < c->chunk ? c->n - first : c->chunk);
        }
    }
}

static la_int chol_factor(int t, la_int n, char *a, char *work)
{
    la_int info = chol_diagonal(t, n, a, 0, n < CHOL_NB ? n : CHOL_NB);
    for (la_int j = 0; j < n && info == 0; j += CHOL_NB) {
        chol_step c = { t, n, j, n - j < CHOL_NB ? n - j : CHOL_NB, 0, 0, 0, 0, a };
        c.next = j + c.jb;
        la_int rest = n - c.next;
        if (rest == 0) break;
        chol_row_block(t, n, j, c.jb, a, work);
        c.jbn = rest < CHOL_NB ? rest : CHOL_NB;
        size_t chunks;
        c.chunk = chunk_width(rest - c.jbn, (int64_t)(rest / 2 + 1) * c.jb, LA_MIN_CHUNK, &chunks);
        run_items(1 + chunks, (int64_t)(rest / 2 + 1) * c.jb * rest >= LA_POOL_MNK, chol_items, &c);
        info = c.info;
    }
    return info;
}

static int cholesky_kernel(const npusim_exec *ex, npusim_view *v)
{
    int t = la_type(v[0].dtype);
    int64_t n = v[0].shape[v[0].ndim - 1], batch = batch_count(&v[0], v[0].ndim - 2);
    if (n == 0) return 0;
    size_t bytes = (size_t)(n * n) * la_size[t];
    size_t total = bytes + (size_t)CHOL_NB * (size_t)(n + CHOL_NB) * la_size[t];
    char *buf = la_scratch(total);
    if (!buf) return out_of_memory("aclnnLinalgCholesky");
    bool upper = ex->flag;
    la_single_begin();
    /* A row-major buffer read column-major (as Fortran LAPACK reads it) holds the transpose of
     * the Hermitian matrix, whose upper triangle is the lower one of `a`: its factor U (a = U^H U
     * there) read row-major is L (a = L L^H). For upper, the matrix is packed transposed. */
    for (int64_t b = 0; b < batch; b++) {
        matrix a = matrix_at(&v[0], b), out = matrix_at(&v[1], b);
        /* Factorised in out's own memory when it is a dense row-major matrix of LAPACK's type
         * apart from the input. */
        bool in_out = native(&out, t) && out.cs == 1 && out.rs == n && outside(&a, out.base, out.base + bytes);
        void *work = in_out ? (void *)out.base : buf;
        if (upper)
            pack_cm(&a, t, work, n);
        else
            pack(&a, t, work, n);
        la_int info = chol_factor(t, (la_int)n, work, buf + bytes);
        if (upper && info == 0) transpose_square(t, work, n);
        if (info != 0 || nan_diagonal(t, work, n))
            la_fill(t, work, (size_t)(n * n), NAN); /* not positive definite (or NaN input) */
        else
            zero_triangle(t, work, n, n, n, upper);
        if (!in_out) unpack(work, n, t, &out);
    }
    la_single_end();
    la_scratch_release(buf, total);
    return 0;
}

static const npusim_opdef def_cholesky = NPUSIM_OPDEF("aclnnLinalgCholesky", cholesky_kernel);

aclnnStatus aclnnLinalgCholeskyGetWorkspaceSize(const aclTensor *self, bool upper, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnLinalgCholesky";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnLinalgCholesky_self)) ||
        (rc = check_same_dtype(name, "out", out, self)) || (rc = check_matrix(name, "self", self, true)) ||
        (rc = npusim_check_shape_equal(name, "out", out, self->ndim, self->shape)) || (rc = la_ready(name)))
        return rc;
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = make_exec(&def_cholesky, self, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->flag = upper;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnLinalgCholesky(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLinalgCholesky", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnInverse */

/* The matrices [begin, end) of an aclnnInverse batch, each through its own thread's scratch. */
typedef struct {
    const npusim_view *v;
    int t;
    int64_t n;
    int out_of_memory; /* set atomically by any item */
} inverse_job;

static void inverse_items(size_t begin, size_t end, void *ctx)
{
    inverse_job *j = ctx;
    int t = j->t;
    int64_t n = j->n;
    size_t bytes = (size_t)(n * n) * la_size[t] + sizeof(la_int) * (size_t)n;
    void *buf = la_scratch(bytes);
    if (!buf) {
        __atomic_store_n(&j->out_of_memory, 1, __ATOMIC_RELAXED);
        return;
    }
    la_int *ipiv = (la_int *)((char *)buf + (size_t)(n * n) * la_size[t]);
    for (size_t b = begin; b < end; b++) {
        matrix a = matrix_at(&j->v[0], (int64_t)b), out = matrix_at(&j->v[1], (int64_t)b);
        pack(&a, t, buf, n);
        if (la.getrf[t](LAPACK_ROW_MAJOR, (la_int)n, (la_int)n, buf, (la_int)n, ipiv) != 0 ||
            la.getri[t](LAPACK_ROW_MAJOR, (la_int)n, buf, (la_int)n, ipiv) != 0)
            la_fill(t, buf, (size_t)(n * n), NAN); /* singular */
        unpack(buf, n, t, &out);
    }
    la_scratch_release(buf, bytes);
}

/* A batch's matrices are independent: on OpenBLAS's single thread (la_single_begin), spread over
 * npusim's pool when the batch is worth it (OpenBLAS's own threads woken for each small matrix
 * cost more than the inverses: eight 64 x 64 took 0.4 ms). */
static int inverse_kernel(const npusim_exec *ex, npusim_view *v)
{
    (void)ex;
    int64_t n = v[0].shape[v[0].ndim - 1], batch = batch_count(&v[0], v[0].ndim - 2);
    if (n == 0) return 0;
    inverse_job j = { v, la_type(v[0].dtype), n, 0 };
    la_single_begin();
    run_items((size_t)batch, batch > 1 && batch * n * n * n >= LA_POOL_MNK, inverse_items, &j);
    la_single_end();
    return __atomic_load_n(&j.out_of_memory, __ATOMIC_RELAXED) ? out_of_memory("aclnnInverse") : 0;
}

static const npusim_opdef def_inverse = NPUSIM_OPDEF("aclnnInverse", inverse_kernel);

aclnnStatus aclnnInverseGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                         aclOpExecutor **executor)
{
    const char *name = "aclnnInverse";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnInverse_self)) ||
        (rc = check_same_dtype(name, "out", out, self)) || (rc = check_matrix(name, "self", self, true)) ||
        (rc = npusim_check_shape_equal(name, "out", out, self->ndim, self->shape)) || (rc = la_ready(name)))
        return rc;
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = make_exec(&def_inverse, self, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnInverse(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnInverse", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnSlogdet: sign and log|det| from an LU factorisation */

static void store_at(char *dst, aclDataType dt, double re, double im)
{
    double value[2] = { re, im };
    npusim_store(npusim_is_complex(dt) ? KIND_C128 : KIND_F64, value, dst, 0, dt, 1);
}

/* Element b of a view whose dims are all batch dims. */
static void store_value(const npusim_view *v, int64_t b, double re, double im)
{
    store_at(batch_base(v, v->ndim, b), v->dtype, re, im);
}

static void slogdet_one(int t, const void *lu, const la_int *ipiv, int64_t n, double sign[2], double *logabs)
{
    double sr = 1, si = 0, sum = 0;
    for (int64_t i = 0; i < n; i++) {
        double re, im;
        la_get(t, lu, (size_t)(i * n + i), &re, &im);
        double mag = hypot(re, im);
        sum += log(mag);
        double ur = re / mag, ui = im / mag, nr = sr * ur - si * ui;
        si = sr * ui + si * ur;
        sr = nr;
        if (ipiv[i] != i + 1) { sr = -sr; si = -si; }
    }
    sign[0] = sr;
    sign[1] = si;
    *logabs = sum;
}

static int slogdet_kernel(const npusim_exec *ex, npusim_view *v)
{
    (void)ex;
    int t = la_type(v[0].dtype);
    int64_t n = v[0].shape[v[0].ndim - 1], batch = batch_count(&v[0], v[0].ndim - 2);
    void *buf = malloc((size_t)(n * n) * la_size[t] + sizeof(la_int) * (size_t)n + 1);
    if (!buf) return out_of_memory("aclnnSlogdet");
    la_int *ipiv = (la_int *)((char *)buf + (size_t)(n * n) * la_size[t]);
    for (int64_t b = 0; b < batch; b++) {
        double sign[2] = { 1, 0 }, logabs = 0;
        if (n > 0) {
            matrix a = matrix_at(&v[0], b);
            pack(&a, t, buf, n);
            la_int info = la.getrf[t](LAPACK_ROW_MAJOR, (la_int)n, (la_int)n, buf, (la_int)n, ipiv);
            if (info > 0) { /* exactly singular */
                sign[0] = 0;
                logabs = -INFINITY;
            } else {
                slogdet_one(t, buf, ipiv, n, sign, &logabs);
            }
        }
        store_value(&v[1], b, sign[0], sign[1]);
        store_value(&v[2], b, logabs, 0);
    }
    free(buf);
    return 0;
}

static const npusim_opdef def_slogdet = NPUSIM_OPDEF("aclnnSlogdet", slogdet_kernel);

aclnnStatus aclnnSlogdetGetWorkspaceSize(const aclTensor *self, aclTensor *signOut, aclTensor *logOut,
                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnSlogdet";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "signOut", signOut)) ||
        (rc = npusim_check_tensor(name, "logOut", logOut)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnSlogdet_self)) ||
        (rc = check_same_dtype(name, "signOut", signOut, self)) || (rc = check_same_dtype(name, "logOut", logOut, self)) ||
        (rc = check_matrix(name, "self", self, true)) ||
        (rc = check_batch_shape(name, "signOut", signOut, self, 0, 0, 0)) ||
        (rc = check_batch_shape(name, "logOut", logOut, self, 0, 0, 0)) || (rc = la_ready(name)))
        return rc;
    const aclTensor *outs[2] = { signOut, logOut };
    npusim_exec *ex = make_exec(&def_slogdet, self, outs, 2);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnSlogdet(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSlogdet", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnLinalgQr: mode 0 reduced (Q m x k, R k x n), 1 complete (Q m x m, R m x n), 2 R only */

enum { QR_REDUCED, QR_COMPLETE, QR_R };

/* Columns per block reflector I - V T V^H. Its panel, V, R's rows and T, is factorised by
 * xgeqrt3 (recursive: its work is mostly matrix products), the other columns are updated by
 * xlarfb (matrix products) in column chunks on the pool. */
#define QR_NB 32

/* C = H C or H^H C (trans "N" / "T" or "C") for the block reflector H = I - V T V^H of k
 * columns (column-major, V unit lower trapezoidal rows x k, T k x k) and C rows x cols, in
 * column chunks (run_chunks); `work` holds cols x k elements, chunk by chunk. */
typedef struct {
    int t;
    const char *trans;
    la_int rows, k, ldv, ldt, ldc, cols, chunk;
    const void *v, *tm;
    char *cm, *work;
} reflect_job;

static void reflect_chunks(size_t begin, size_t end, void *ctx)
{
    const reflect_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        la_int first = (la_int)i * j->chunk, cols = j->cols - first < j->chunk ? j->cols - first : j->chunk;
        la.larfb[j->t]("L", j->trans, "F", "C", &j->rows, &cols, &j->k, j->v, &j->ldv, j->tm, &j->ldt,
                       cm_at(j->t, j->cm, j->ldc, 0, first), &j->ldc,
                       j->work + (size_t)first * (size_t)j->k * la_size[j->t], &cols, 1, 1, 1, 1);
    }
}

static void reflect(int t, const char *trans, la_int rows, la_int cols, la_int k, const void *v, la_int ldv,
                    const void *tm, la_int ldt, char *cm, la_int ldc, void *work)
{
    reflect_job j = { t, trans, rows, k, ldv, ldt, ldc, cols, 0, v, tm, cm, work };
    run_chunks(cols, (int64_t)rows * k, LA_MIN_CHUNK, &j.chunk, reflect_chunks, &j);
}

/* Householder QR of the m x n column-major `a` (xgeqrf's layout: R above the diagonal, the
 * reflectors' vectors below), in blocks of QR_NB columns whose triangular factors T are left in
 * `tall` (QR_NB x min(m, n)) for forming Q; `work` holds n x QR_NB elements. With a look-ahead,
 * as the LU's: each step is one pool job whose first item applies the current block reflector to
 * the next panel's columns and factorises that panel, while the other items update the columns
 * right of it in chunks (each with its own columns of `work`). */
typedef struct {
    int t;
    la_int m, n, j, jb, next, jbn, chunk;
    char *a, *tall, *work;
} qr_step;

static void qr_panel(const qr_step *s, la_int j, la_int jb)
{
    la_int rows = s->m - j, nb = QR_NB, info;
    la.geqrt3[s->t](&rows, &jb, cm_at(s->t, s->a, s->m, j, j), &s->m, cm_at(s->t, s->tall, nb, 0, j), &nb, &info);
}

static void qr_apply(const qr_step *s, la_int first, la_int cols)
{
    la_int rows = s->m - s->j, nb = QR_NB;
    la.larfb[s->t]("L", la_complex(s->t) ? "C" : "T", "F", "C", &rows, &cols, &s->jb, cm_at(s->t, s->a, s->m, s->j, s->j),
                   &s->m, cm_at(s->t, s->tall, nb, 0, s->j), &nb, cm_at(s->t, s->a, s->m, s->j, first), &s->m,
                   s->work + (size_t)first * QR_NB * la_size[s->t], &cols, 1, 1, 1, 1);
}

static void qr_items(size_t begin, size_t end, void *ctx)
{
    const qr_step *s = ctx;
    for (size_t i = begin; i < end; i++) {
        if (i == 0) {
            if (s->jbn == 0) continue;
            qr_apply(s, s->next, s->jbn);
            qr_panel(s, s->next, s->jbn);
        } else {
            la_int first = s->next + s->jbn + (la_int)(i - 1) * s->chunk;
            qr_apply(s, first, s->n - first < s->chunk ? s->n - first : s->chunk);
        }
    }
}

static void qr_factor(int t, la_int m, la_int n, void *a, void *tall, void *work)
{
    la_int k = m < n ? m : n;
    qr_step s = { t, m, n, 0, 0, 0, 0, 0, a, tall, work };
    if (k > 0) qr_panel(&s, 0, k < QR_NB ? k : QR_NB);
    for (la_int j = 0; j < k; j += QR_NB) {
        s.j = j;
        s.jb = k - j < QR_NB ? k - j : QR_NB;
        s.next = j + s.jb;
        s.jbn = k - s.next <= 0 ? 0 : k - s.next < QR_NB ? k - s.next : QR_NB;
        la_int cols = s.next + s.jbn < n ? n - s.next - s.jbn : 0;
        size_t chunks;
        s.chunk = chunk_width(cols, (int64_t)(m - j) * s.jb, LA_MIN_CHUNK, &chunks);
        run_items(1 + chunks, (int64_t)(m - j) * s.jb * (n - s.next) >= LA_POOL_MNK, qr_items, &s);
    }
}

/* Q's first qcols columns (m x qcols column-major at q) from qr_factor's reflectors: the
 * identity's columns with the block reflectors applied last to first. Block j changes only
 * Q[j:, j:] (the columns before j are still unit vectors, zero in rows j and below). `work`
 * holds qcols x QR_NB elements. */
static void qr_form_q(int t, la_int m, la_int qcols, la_int k, void *a, const void *tall, void *q, void *work)
{
    memset(q, 0, (size_t)m * (size_t)qcols * la_size[t]);
    for (la_int i = 0; i < m && i < qcols; i++) la_set(t, q, (size_t)i * (size_t)m + (size_t)i, 1, 0);
    la_int nb = QR_NB;
    for (la_int j = (k - 1) / nb * nb; k > 0 && j >= 0; j -= nb) {
        la_int jb = k - j < nb ? k - j : nb, rows = m - j, cols = qcols - j;
        reflect(t, "N", rows, cols, jb, cm_at(t, a, m, j, j), m, cm_at(t, (void *)tall, nb, 0, j), nb,
                cm_at(t, q, m, j, j), m, work);
    }
}

/* R (the first rrows rows of the factorised a's upper triangle; rows past k are zero) into a
 * column-major rrows x n buffer. */
static void qr_r(int t, la_int m, la_int n, la_int rrows, void *a, void *r)
{
    size_t esz = la_size[t];
    memset(r, 0, (size_t)rrows * (size_t)n * esz);
    for (la_int j = 0; j < n; j++) {
        la_int copy = j + 1 < rrows ? j + 1 : rrows;
        if (copy > m) copy = m;
        memcpy(cm_at(t, r, rrows, 0, j), cm_at(t, a, m, 0, j), (size_t)copy * esz);
    }
}

static int qr_kernel(const npusim_exec *ex, npusim_view *v)
{
    const npusim_view *self = &v[0], *q = &v[1], *r = &v[2];
    int t = la_type(self->dtype);
    int64_t m = self->shape[self->ndim - 2], n = self->shape[self->ndim - 1], k = m < n ? m : n;
    int64_t qcols = ex->mode == QR_COMPLETE ? m : k, rrows = ex->mode == QR_COMPLETE ? m : k;
    int64_t batch = batch_count(self, self->ndim - 2);
    if (m == 0) return 0; /* (n == 0 still has Q: the identity's first columns) */
    size_t esz = la_size[t];
    /* a (m x n), T of the blocks (QR_NB x k), Q (m x qcols), R (rrows x n), the workspace of
     * xlarfb (max(n, qcols) x QR_NB) */
    size_t sizes[5] = { (size_t)(m * n), (size_t)(QR_NB * k), (size_t)(m * qcols), (size_t)(rrows * n),
                        (size_t)((n > qcols ? n : qcols) * QR_NB) };
    size_t total = 0;
    for (int i = 0; i < 5; i++) total += sizes[i];
    char *buf = la_scratch(total * esz), *part[5];
    if (!buf) return out_of_memory("aclnnLinalgQr");
    part[0] = buf;
    for (int i = 1; i < 5; i++) part[i] = part[i - 1] + sizes[i - 1] * esz;
    la_int lm = (la_int)m;
    la_single_begin();
    for (int64_t b = 0; b < batch; b++) {
        matrix am = matrix_at(self, b), rm = matrix_at(r, b);
        pack_cm(&am, t, part[0], m);
        qr_factor(t, lm, (la_int)n, part[0], part[1], part[4]);
        qr_r(t, lm, (la_int)n, (la_int)rrows, part[0], part[3]);
        unpack_cm(part[3], rrows, t, &rm);
        if (ex->mode != QR_R) {
            matrix qm = matrix_at(q, b);
            qr_form_q(t, lm, (la_int)qcols, (la_int)k, part[0], part[1], part[2], part[4]);
            unpack_cm(part[2], m, t, &qm);
        }
    }
    la_single_end();
    la_scratch_release(buf, total * esz);
    return 0;
}

static const npusim_opdef def_qr = NPUSIM_OPDEF("aclnnLinalgQr", qr_kernel);

aclnnStatus aclnnLinalgQrGetWorkspaceSize(const aclTensor *self, int64_t mode, aclTensor *Q, aclTensor *R,
                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnLinalgQr";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "Q", Q)) ||
        (rc = npusim_check_tensor(name, "R", R)) || (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnLinalgQr_self)) ||
        (rc = check_same_dtype(name, "Q", Q, self)) || (rc = check_same_dtype(name, "R", R, self)) ||
        (rc = check_matrix(name, "self", self, false)) || (rc = la_ready(name)))
        return rc;
    if (mode < QR_REDUCED || mode > QR_R)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: mode %lld is not 0 (reduced), 1 "
                            "(complete) or 2 (r)", name, (long long)mode);
    int64_t m = self->shape[self->ndim - 2], n = self->shape[self->ndim - 1], k = m < n ? m : n;
    int64_t rrows = mode == QR_COMPLETE ? m : k;
    if ((rc = check_batch_shape(name, "R", R, self, 2, rrows, n))) return rc;
    if (mode == QR_R) {
        if (npusim_numel(Q) != 0)
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: Q must be an empty tensor in mode 2",
                                name);
    } else if ((rc = check_batch_shape(name, "Q", Q, self, 2, m, mode == QR_COMPLETE ? m : k))) {
        return rc;
    }
    const aclTensor *outs[2] = { Q, R };
    npusim_exec *ex = make_exec(&def_qr, self, outs, 2);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->mode = (int)mode;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnLinalgQr(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnLinalgQr", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------------------------------------
 * aclnnSvd: input = U diag(sigma) V^H; v is V (not V^H), sigma has input's dtype */

static int svd_kernel(const npusim_exec *ex, npusim_view *v)
{
    const npusim_view *in = &v[0], *sigma = &v[1], *u = &v[2], *vv = &v[3];
    int t = la_type(in->dtype), rt = t == LA_C ? LA_S : t == LA_Z ? LA_D : t;
    bool full = ex->flag, uv = ex->mode != 0;
    int64_t m = in->shape[in->ndim - 2], n = in->shape[in->ndim - 1], k = m < n ? m : n;
    int64_t ucols = full ? m : k, vrows = full ? n : k, batch = batch_count(in, in->ndim - 2);
    size_t esz = la_size[t];
    size_t bytes = (size_t)(m * n + k) * esz + (uv ? (size_t)(m * ucols + vrows * n + n * vrows) * esz : 0);
    char *buf = malloc(bytes + esz);
    if (!buf) return out_of_memory("aclnnSvd");
    char *a = buf, *s = a + (size_t)(m * n) * esz, *ub = s + (size_t)k * esz;
    char *vt = ub + (uv ? (size_t)(m * ucols) * esz : 0), *vb = vt + (uv ? (size_t)(vrows * n) * esz : 0);
    char jobz = !uv ? 'N' : full ? 'A' : 'S';
    for (int64_t b = 0; b < batch; b++) {
        matrix am = matrix_at(in, b);
        pack(&am, t, a, n);
        la_int info = la.gesdd[t](LAPACK_ROW_MAJOR, jobz, (la_int)m, (la_int)n, a, (la_int)n, s, uv ? ub : s,
                                  (la_int)(uv ? ucols : 1), uv ? vt : s, (la_int)(uv ? n : 1));
        /* sigma in the input's dtype (LAPACK returns it real) */
        char *sdst = batch_base(sigma, sigma->ndim - 1, b);
        int64_t sstride = sigma->strides[sigma->ndim - 1] * (int64_t)npusim_dtype_size(sigma->dtype);
        for (int64_t i = 0; i < k; i++) {
            double re, im;
            la_get(rt, s, (size_t)i, &re, &im);
            if (info != 0) re = NAN; /* did not converge */
            store_at(sdst + i * sstride, sigma->dtype, re, 0);
        }
        if (!uv) continue;
        if (info != 0) {
            la_fill(t, ub, (size_t)(m * ucols), NAN);
            la_fill(t, vt, (size_t)(vrows * n), NAN);
        }
        for (int64_t i = 0; i < n; i++) /* V = (V^H)^H */
            for (int64_t j = 0; j < vrows; j++) {
                double re, im;
                la_get(t, vt, (size_t)(j * n + i), &re, &im);
                la_set(t, vb, (size_t)(i * vrows + j), re, -im);
            }
        matrix um = matrix_at(u, b), vm = matrix_at(vv, b);
        unpack(ub, ucols, t, &um);
        unpack(vb, vrows, t, &vm);
    }
    free(buf);
    return 0;
}

static const npusim_opdef def_svd = NPUSIM_OPDEF("aclnnSvd", svd_kernel);

aclnnStatus aclnnSvdGetWorkspaceSize(const aclTensor *input, const bool fullMatrices, const bool computeUV,
                                     aclTensor *sigma, aclTensor *u, aclTensor *v, uint64_t *workspaceSize,
                                     aclOpExecutor **executor)
{
    const char *name = "aclnnSvd";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "input", input)) || (rc = npusim_check_tensor(name, "sigma", sigma)) ||
        (rc = npusim_check_tensor(name, "u", u)) || (rc = npusim_check_tensor(name, "v", v)) ||
        (rc = npusim_check_dtype(name, "input", input->dtype, NPUSIM_DTYPES_aclnnSvd_input)) ||
        (rc = check_same_dtype(name, "sigma", sigma, input)) || (rc = check_matrix(name, "input", input, false)) ||
        (rc = la_ready(name)))
        return rc;
    if (npusim_numel(input) == 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: input must not be empty", name);
    int64_t m = input->shape[input->ndim - 2], n = input->shape[input->ndim - 1], k = m < n ? m : n;
    if ((rc = check_batch_shape(name, "sigma", sigma, input, 1, k, 0))) return rc;
    if (computeUV &&
        ((rc = check_same_dtype(name, "u", u, input)) || (rc = check_same_dtype(name, "v", v, input)) ||
         (rc = check_batch_shape(name, "u", u, input, 2, m, fullMatrices ? m : k)) ||
         (rc = check_batch_shape(name, "v", v, input, 2, n, fullMatrices ? n : k))))
        return rc;
    const aclTensor *outs[3] = { sigma, u, v };
    npusim_exec *ex = make_exec(&def_svd, input, outs, 3);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->flag = fullMatrices;
    ex->mode = computeUV;
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnSvd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnSvd", workspace, workspaceSize, executor, stream);
}
