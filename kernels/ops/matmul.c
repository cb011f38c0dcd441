/* aclnnMatmul (docs/acl-abi.md §7.2 "Linear algebra"): torch.matmul rules. 1-D x 1-D is a dot product
 * (0-d out), a 1-D left operand is a row vector and a 1-D right one a column vector (the added
 * dim is removed from out), 2-D is a matrix product, and more dims are batches broadcast against
 * each other.
 *
 * float32 / float64 run on OpenBLAS (scipy_cblas_sgemm / scipy_cblas_dgemm, resolved with dlopen
 * from the library named by NPUSIM_BLAS_LIBRARY), except float32 products of 9 to 16 columns on
 * x86-64 with AVX-512, which npusim's own kernel computes (see "Narrow products" below);
 * float16 / bfloat16 are converted to float32,
 * multiplied there and rounded on store. Integer dtypes (an npusim extension: CANN documents
 * FLOAT, FLOAT16 and BFLOAT16) use int64 loops that wrap. cubeMathType is checked (0..4) but
 * npusim always computes at full precision. */
#include <dlfcn.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_matmul.h"
#include "ew_ops.h"


/* ---------------------------------------------------------------------------------------------
 * OpenBLAS */

enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };
typedef void (*sgemm_fn)(int, int, int, int32_t, int32_t, int32_t, float, const float *, int32_t, const float *,
                         int32_t, float, float *, int32_t);
typedef void (*dgemm_fn)(int, int, int, int32_t, int32_t, int32_t, double, const double *, int32_t,
                         const double *, int32_t, double, double *, int32_t);

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static sgemm_fn blas_sgemm;
static dgemm_fn blas_dgemm;
static char blas_problem[512];

static void blas_load(void)
{
    const char *path = getenv("NPUSIM_BLAS_LIBRARY");
    if (!path || !*path) {
        snprintf(blas_problem, sizeof blas_problem,
                 "the environment variable NPUSIM_BLAS_LIBRARY (path of scipy-openblas32's "
                 "libscipy_openblas.so) is not set");
        return;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(blas_problem, sizeof blas_problem, "cannot load NPUSIM_BLAS_LIBRARY=%s: %s", path, dlerror());
        return;
    }
    blas_sgemm = (sgemm_fn)dlsym(lib, "scipy_cblas_sgemm");
    blas_dgemm = (dgemm_fn)dlsym(lib, "scipy_cblas_dgemm");
    if (!blas_sgemm || !blas_dgemm)
        snprintf(blas_problem, sizeof blas_problem, "%s has no scipy_cblas_sgemm / scipy_cblas_dgemm", path);
}

static int blas_ready(void)
{
    pthread_once(&blas_once, blas_load);
    if (blas_sgemm && blas_dgemm) return 0;
    return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnMatmulGetWorkspaceSize: OpenBLAS is unavailable: %s",
                        blas_problem);
}

/* ---------------------------------------------------------------------------------------------
 * One matrix product C[M,N] = A[M,K] B[K,N] with element strides */

typedef struct {
    const char *base;
    aclDataType dtype;
    int64_t rows, cols;
    int64_t rs, cs; /* element strides */
} matrix;

/* A BLAS-compatible layout: row-major with a leading dimension, possibly transposed. */
static bool blas_layout(const matrix *m, int *trans, int32_t *ld)
{
    int64_t rs = m->rows > 1 ? m->rs : m->cols, cs = m->cols > 1 ? m->cs : 1;
    if (cs == 1 && rs >= (m->cols > 1 ? m->cols : 1) && rs <= INT32_MAX) {
        *trans = CBLAS_NO_TRANS;
        *ld = (int32_t)(rs > 0 ? rs : 1);
        return true;
    }
    rs = m->rows > 1 ? m->rs : 1;
    cs = m->cols > 1 ? m->cs : m->rows;
    if (rs == 1 && cs >= (m->rows > 1 ? m->rows : 1) && cs <= INT32_MAX) {
        *trans = CBLAS_TRANS;
        *ld = (int32_t)(cs > 0 ? cs : 1);
        return true;
    }
    return false;
}

/* Copies a matrix into a contiguous row-major buffer of `kind`. */
static void pack(const matrix *m, npusim_kind kind, void *dst)
{
    size_t isz = npusim_dtype_size(m->dtype), ksz = npusim_kind_size(kind);
    for (int64_t r = 0; r < m->rows; r++)
        npusim_load(kind, (char *)dst + (size_t)(r * m->cols) * ksz, m->base + r * m->rs * (int64_t)isz,
                    m->cs * (int64_t)isz, m->dtype, (size_t)m->cols);
}

static void unpack(const void *src, npusim_kind kind, const matrix *c)
{
    size_t isz = npusim_dtype_size(c->dtype), ksz = npusim_kind_size(kind);
    for (int64_t r = 0; r < c->rows; r++)
        npusim_store(kind, (const char *)src + (size_t)(r * c->cols) * ksz, (char *)c->base + r * c->rs * (int64_t)isz,
                     c->cs * (int64_t)isz, c->dtype, (size_t)c->cols);
}

/* OpenBLAS computes a product of at most BLAS_ONE_THREAD_MNK multiply-adds (M*N*K) on the
 * calling thread (its SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD) and splits a larger one
 * across its own threads, which busy-wait for one another. For a product of a few milliseconds
 * on a machine with more runnable threads than cores, waiting for a descheduled partner costs
 * far more than the work (the k-means example ran 10 to 50 times slower, and its replayed
 * graph, whose products follow each other with no pause, slower than eager). Products below
 * BLAS_OWN_THREADS_MNK are therefore cut into tiles of out under that threshold (an even number
 * of them, so that two threads share them evenly; a product whose K * N alone exceeds it stays
 * one call); larger ones amortise OpenBLAS's threads. A tile is BLAS_TILE_COLS columns wide
 * (or N) and as many rows as the threshold allows for its K: each call reads its rows of A and
 * columns of B, so rows of out across all of B (2 rows at a time for 256 x 256 @ 256 x 512)
 * read B once per few rows, 1.35x slower than 16 x 64 tiles; 16 columns were 1.8x slower for
 * k-means' (10, 1797) @ (1797, 64). The tiles run on npusim's pool from BLAS_POOL_MNK on (that
 * product): its threads poll for the next job between operations, so handing half of such a
 * product over costs far less than it saves (while they answer promptly:
 * npusim_parallel_for_mid). */
#define BLAS_ONE_THREAD_MNK 262144
#define BLAS_POOL_MNK (1LL << 19)
#define BLAS_MID_MNK (1LL << 22) /* below: mid-size work for the pool (npusim_parallel_for_mid) */
#define BLAS_OWN_THREADS_MNK (1LL << 27)
#define BLAS_TILE_COLS 64

/* OpenBLAS's "small matrix" kernels (x86-64 SKYLAKEX and later), which skip packing, take a
 * product whose mat2 is not transposed (in the row-major terms of our calls); with a transposed
 * mat2 they take only a few rows of out at a time. A transposed mat2 of at most BLAS_PACK_B_MAX
 * elements (k-means' `x @ centroids.T`) is therefore copied once into row-major order: the
 * product then runs 1.5x faster. Only for at least BLAS_PACK_B_MIN_ROWS rows of out, so that
 * the copy stays small beside the product. */
#define BLAS_PACK_B_MAX 65536
#define BLAS_PACK_B_MIN_ROWS 16

typedef struct {
    npusim_kind kind;
    int ta, tb;
    int32_t lda, ldb, ldc;
    const char *a, *b;
    char *c;
    int64_t M, N, K, tile_rows, tile_cols, col_tiles;
} gemm_job;

/* Rows row .. row + rows and columns col .. col + cols of out, on OpenBLAS. */
static void gemm_call(const gemm_job *j, int64_t row, int64_t rows, int64_t col, int64_t cols)
{
    size_t ksz = npusim_kind_size(j->kind);
    const char *a = j->a + (size_t)(j->ta == CBLAS_NO_TRANS ? row * j->lda : row) * ksz;
    const char *b = j->b + (size_t)(j->tb == CBLAS_NO_TRANS ? col : col * j->ldb) * ksz;
    char *c = j->c + (size_t)(row * j->ldc + col) * ksz;
    if (j->kind == KIND_F32)
        blas_sgemm(CBLAS_ROW_MAJOR, j->ta, j->tb, (int32_t)rows, (int32_t)cols, (int32_t)j->K, 1.0f,
                   (const float *)a, j->lda, (const float *)b, j->ldb, 0.0f, (float *)c, j->ldc);
    else
        blas_dgemm(CBLAS_ROW_MAJOR, j->ta, j->tb, (int32_t)rows, (int32_t)cols, (int32_t)j->K, 1.0,
                   (const double *)a, j->lda, (const double *)b, j->ldb, 0.0, (double *)c, j->ldc);
}

/* Tiles begin .. end, each row of tiles from left to right (its rows of A stay in cache). */
static void gemm_tiles(size_t begin, size_t end, void *ctx)
{
    const gemm_job *j = ctx;
    for (size_t tile = begin; tile < end; tile++) {
        int64_t row = (int64_t)tile / j->col_tiles * j->tile_rows, col = (int64_t)tile % j->col_tiles * j->tile_cols;
        gemm_call(j, row, j->M - row < j->tile_rows ? j->M - row : j->tile_rows, col,
                  j->N - col < j->tile_cols ? j->N - col : j->tile_cols);
    }
}

static void gemm_blas(npusim_kind kind, int ta, int32_t lda, const void *a, int tb, int32_t ldb, const void *b,
                      void *c, int32_t ldc, int64_t M, int64_t N, int64_t K)
{
    gemm_job j = {kind, ta, tb, lda, ldb, ldc, a, b, c, M, N, K, M, N, 1};
    int64_t mnk = M * N * K, area = BLAS_ONE_THREAD_MNK / K; /* rows * columns of a tile */
    if (mnk <= BLAS_ONE_THREAD_MNK || mnk >= BLAS_OWN_THREADS_MNK || N * K > BLAS_ONE_THREAD_MNK) {
        gemm_call(&j, 0, M, 0, N);
        return;
    }
    j.tile_cols = N < BLAS_TILE_COLS ? N : BLAS_TILE_COLS;
    j.col_tiles = (N + j.tile_cols - 1) / j.tile_cols;
    int64_t rows = area / j.tile_cols, row_tiles = (M + rows - 1) / rows;
    row_tiles += (row_tiles * j.col_tiles) & 1;
    j.tile_rows = (M + row_tiles - 1) / row_tiles;
    size_t tiles = (size_t)((M + j.tile_rows - 1) / j.tile_rows * j.col_tiles);
    if (mnk < BLAS_POOL_MNK) gemm_tiles(0, tiles, &j);
    else if (mnk < BLAS_MID_MNK) npusim_parallel_for_mid(tiles, 1, gemm_tiles, &j);
    else npusim_parallel_for(tiles, 1, gemm_tiles, &j);
}

/* ---------------------------------------------------------------------------------------------
 * Narrow products: float32 with 9 to 16 columns of out (k-means' distances to 10 centroids,
 * `x @ centroids.T`): OpenBLAS has no kernel for such widths (its small-matrix kernels cover up
 * to 8 columns: a (1797, 64) @ (64, 10) takes it 2.5 times its (1797, 64) @ (64, 8)). Here
 * each row of out is a few 16-lane accumulators whose lanes hold partial sums over k: a "quad"
 * accumulator holds 4 columns (4 n .. 4 n + 3) by 4 k (lane 4 c + q: column 4 n + c over
 * k = q mod 4), a "pair" one columns 8 and 9 by 8 k (lane 8 c + q). 9 or 10 columns are two
 * quads and a pair (40 FMAs per row of K = 64 instead of 64 with 10 of 16 lanes busy), 11 or
 * 12 three quads. 13 to 16 columns are one accumulator of 16 columns summed over k in order,
 * as OpenBLAS does (four quads were 1.25x faster, but summing in another order made products
 * with a row-major mat2 differ in rounding from NumPy's, which they equal bit for bit).
 *
 * The loop takes NARROW_STEP = 8 consecutive k of a block of rows at a time: B is packed once
 * as, for each step, each quad's vector of its first 4 k, then of its last 4, then the pair's
 * (zeros past K and N), loaded into registers once per step and shared by the block's rows,
 * whose accumulators stay in registers (24 for 8 rows of 10 columns: enough independent sums
 * for the FMA latency). A row's 8 k are read as two broadcasts of 4 floats, shared by its
 * quads, and for the pair one broadcast of 8: 3 loads per 5 FMAs, where column groups of
 * 2 k per lane (one broadcast per FMA) left the loop bound by its loads, 20 % slower. Two
 * rows' quads are then summed together by shuffles (narrow_sum_quads). */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NARROW_KERNEL 1
#define NARROW_MIN_N 9
#define NARROW_MAX_N 16
#define NARROW_MAX_ROWS 8
#define NARROW_STEP 8
#define NARROW_STACK_K 256 /* packed B on the stack up to this K (16 KiB) */

typedef struct {
    const float *a;  /* A's rows (contiguous over k) every lda floats */
    float *c;        /* out's rows (contiguous) every ldc floats */
    const float *b;  /* packed B (see above) */
    int64_t lda, ldc, M, K, N;
    int64_t quads;   /* 2 or 3, a pair as well when N <= 10; 0: 16 columns by one k */
} narrow_job;

#define NARROW_TARGET __attribute__((target("avx512f"), always_inline)) static inline

/* Rows of a block: as many as keep the accumulators and the step's vectors of B within the 32
 * vector registers (12 or 16 rows of 16 columns ran slower: their row addresses no longer fit
 * in the general registers). */
static inline int narrow_rows(int64_t quads)
{
    return quads == 3 ? 6 : 8;
}

/* p consecutive floats at x (p = 4 or 8) repeated across the 16 lanes: one broadcast load. */
NARROW_TARGET __m512 narrow_broadcast(const float *x, int64_t p)
{
    if (p == 4) return _mm512_broadcast_f32x4(_mm_loadu_ps(x));
    return _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_loadu_pd((const double *)(const void *)x)));
}

/* The sums of two rows' quads lo (columns 0..3 of a set of 8) and hi (4..7): elements 0..7 are
 * row 0's 8 columns, 8..15 row 1's. Four partial sums per column: two rounds of shuffles within
 * 128-bit lanes, then one permutation into column order (10 instructions for 16 sums). */
NARROW_TARGET __m512 narrow_sum_quads(__m512 lo0, __m512 hi0, __m512 lo1, __m512 hi1)
{
    /* 128-bit lane j: the two halves of lo's column j, then of hi's column 4 + j */
    __m512 u0 = _mm512_add_ps(_mm512_shuffle_ps(lo0, hi0, 0x88), _mm512_shuffle_ps(lo0, hi0, 0xDD));
    __m512 u1 = _mm512_add_ps(_mm512_shuffle_ps(lo1, hi1, 0x88), _mm512_shuffle_ps(lo1, hi1, 0xDD));
    /* element 4 j + e: column j + 4 (e % 2) of row e / 2 */
    __m512 v = _mm512_add_ps(_mm512_shuffle_ps(u0, u1, 0x88), _mm512_shuffle_ps(u0, u1, 0xDD));
    const __m512i order = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    return _mm512_permutexvar_ps(order, v);
}

/* The pairs' sums (columns 8 and 9) of 8 rows, stored at out (rows every ldc floats): eight
 * partial sums per column added as a tree of shuffles, 15 instructions in all. */
NARROW_TARGET void narrow_store_pairs(float *out, int64_t ldc, const __m512 *acc)
{
    __m512 half[4], quarter[2];
    for (int i = 0; i < 4; i++) /* 128-bit lane l: row 2i + l / 2, column l % 2; 4 partial sums */
        half[i] = _mm512_add_ps(_mm512_shuffle_f32x4(acc[2 * i], acc[2 * i + 1], 0x88),
                                _mm512_shuffle_f32x4(acc[2 * i], acc[2 * i + 1], 0xDD));
    for (int i = 0; i < 2; i++) /* 2 partial sums of half[2i] and of half[2i + 1] in each lane */
        quarter[i] = _mm512_add_ps(_mm512_shuffle_ps(half[2 * i], half[2 * i + 1], 0x88),
                                   _mm512_shuffle_ps(half[2 * i], half[2 * i + 1], 0xDD));
    /* element 4 l + j: the sum of half[j]'s lane l */
    __m512 sums = _mm512_add_ps(_mm512_shuffle_ps(quarter[0], quarter[1], 0x88),
                                _mm512_shuffle_ps(quarter[0], quarter[1], 0xDD));
    /* row r's two sums to elements 2 r, 2 r + 1: half (r / 2), lane 2 (r % 2) + column */
    const __m512i order = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    _Alignas(64) float pairs[16];
    _mm512_store_ps(pairs, _mm512_permutexvar_ps(order, sums));
    for (int r = 0; r < 8; r++) memcpy(out + r * ldc, pairs + 2 * r, 2 * sizeof(float));
}

/* The 4 (quad) or 2 (pair) sums of p partial sums each in v, stored at out (columns outside
 * the mask left alone): a row on its own, at the end of A. */
NARROW_TARGET void narrow_store(float *out, __m512 v, int64_t p, __mmask16 columns)
{
    if (p == 8) v = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0xB1));
    v = _mm512_add_ps(v, _mm512_permute_ps(v, 0x4E));
    v = _mm512_add_ps(v, _mm512_permute_ps(v, 0xB1));
    v = _mm512_maskz_compress_ps(p == 8 ? 0x0101 : 0x1111, v);
    _mm512_mask_storeu_ps(out, columns, v);
}

/* One step of `rows` rows: acc[q * rows + i] (quad q of row i, then the pair; with no quads
 * the row's 16 columns) += the step's vectors bv times the row's 8 k, read at row[i] + k; the
 * block's first step sets acc instead (an array of zeros would be cleared in memory, then read
 * back: 25 % of the product). */
NARROW_TARGET void narrow_step(__m512 *acc, int rows, const float *const *row, int64_t k, const __m512 *bv,
                               int64_t quads, bool pair, bool first)
{
    const __m512 zero = _mm512_setzero_ps();
    for (int i = 0; quads == 0 && i < rows; i++)
        for (int t = 0; t < NARROW_STEP; t++)
            acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(row[i][k + t]), bv[t], first && t == 0 ? zero : acc[i]);
    for (int i = 0; quads > 0 && i < rows; i++) {
        __m512 x[2] = {narrow_broadcast(row[i] + k, 4), narrow_broadcast(row[i] + k + 4, 4)};
        for (int h = 0; h < 2; h++)
            for (int q = 0; q < quads; q++) {
                __m512 *sum = &acc[q * rows + i];
                *sum = _mm512_fmadd_ps(x[h], bv[h * quads + q], first && h == 0 ? zero : *sum);
            }
        if (pair) {
            __m512 *sum = &acc[quads * rows + i];
            *sum = _mm512_fmadd_ps(narrow_broadcast(row[i] + k, 8), bv[2 * quads], first ? zero : *sum);
        }
    }
}

/* Stores the sums of `rows` rows' accumulators (narrow_step's order) at out. */
NARROW_TARGET void narrow_store_rows(float *out, int64_t ldc, int64_t N, const __m512 *acc, int rows,
                                     int64_t quads, bool pair)
{
    const __mmask16 high = (__mmask16)((1u << (N - 8)) - 1); /* columns 8 .. N - 1 */
    int i = 0;
    if (quads == 0) {
        for (; i < rows; i++) _mm512_mask_storeu_ps(out + i * ldc, (__mmask16)((1u << N) - 1), acc[i]);
        return;
    }
    for (; i + 1 < rows; i += 2) {
        __m512 sums = narrow_sum_quads(acc[i], acc[rows + i], acc[i + 1], acc[rows + i + 1]);
        _mm256_storeu_ps(out + i * ldc, _mm512_castps512_ps256(sums));
        _mm256_storeu_pd((double *)(void *)(out + (i + 1) * ldc), _mm512_extractf64x4_pd(_mm512_castps_pd(sums), 1));
        if (quads == 3) { /* columns 8 .. 11, none past them */
            sums = narrow_sum_quads(acc[2 * rows + i], _mm512_setzero_ps(), acc[2 * rows + i + 1], _mm512_setzero_ps());
            _mm512_mask_storeu_ps(out + i * ldc + 8, high, sums);
            _mm512_mask_storeu_ps(out + (i + 1) * ldc, (__mmask16)(high << 8), sums);
        }
    }
    for (; i < rows; i++)
        for (int q = 0; q < quads; q++)
            narrow_store(out + i * ldc + 4 * q, acc[q * rows + i], 4, q < 2 ? 0xF : high);
    if (!pair) return;
    if (rows == 8 && N == 10) narrow_store_pairs(out + 8, ldc, acc + quads * rows);
    else for (i = 0; i < rows; i++) narrow_store(out + i * ldc + 8, acc[quads * rows + i], 8, high);
}

/* The partial last step of K (K % NARROW_STEP k) of `rows` rows: their last k copied,
 * zero-padded, to a step of their own (read with a mask, not past the row: it may end A;
 * stored whole, so the broadcasts that read it back are forwarded from one store). */
NARROW_TARGET void narrow_last_step(const narrow_job *j, __m512 *acc, int rows, const float *const *row,
                                    int vectors, int64_t quads, bool pair, bool first)
{
    const int64_t k = j->K / NARROW_STEP * NARROW_STEP;
    _Alignas(32) float last[NARROW_MAX_ROWS][NARROW_STEP];
    const float *last_row[NARROW_MAX_ROWS];
    __m512 bv[NARROW_STEP];
    for (int i = 0; i < rows; i++) {
        __m512 v = _mm512_maskz_loadu_ps((__mmask16)((1u << (j->K - k)) - 1), row[i] + k);
        _mm256_store_ps(last[i], _mm512_castps512_ps256(v));
        last_row[i] = last[i];
    }
    for (int t = 0; t < vectors; t++) bv[t] = _mm512_load_ps(j->b + (k / NARROW_STEP * vectors + t) * 16);
    narrow_step(acc, rows, last_row, 0, bv, quads, pair, first);
}

/* Rows m .. m + rows of out, with rows, quads and pair constants where inlined. */
NARROW_TARGET void narrow_block(const narrow_job *j, int64_t m, int rows, int64_t quads, bool pair)
{
    const int vectors = quads ? (int)(2 * quads + pair) : NARROW_STEP;
    const int64_t steps = j->K / NARROW_STEP, left = j->K % NARROW_STEP;
    const float *row[NARROW_MAX_ROWS];
    __m512 acc[3 * NARROW_MAX_ROWS], bv[NARROW_STEP];
    for (int i = 0; i < rows; i++) row[i] = j->a + (m + i) * j->lda;
    /* Quads take the partial last step first (it then sets acc); sums in order (no quads) take
     * it last, unless it is the only one. */
    bool last_first = left && (quads > 0 || steps == 0);
    int64_t s = 0;
    if (last_first) narrow_last_step(j, acc, rows, row, vectors, quads, pair, true);
    else {
        for (int t = 0; t < vectors; t++) bv[t] = _mm512_load_ps(j->b + t * 16);
        narrow_step(acc, rows, row, 0, bv, quads, pair, true);
        s = 1;
    }
    for (; s < steps; s++) {
        for (int t = 0; t < vectors; t++) bv[t] = _mm512_load_ps(j->b + (s * vectors + t) * 16);
        narrow_step(acc, rows, row, s * NARROW_STEP, bv, quads, pair, false);
    }
    if (left && !last_first) narrow_last_step(j, acc, rows, row, vectors, quads, pair, false);
    narrow_store_rows(j->c + m * j->ldc, j->ldc, j->N, acc, rows, quads, pair);
}

/* Blocks begin .. end of narrow_rows rows (the last may hold fewer: those one at a time). */
NARROW_TARGET void narrow_blocks_of(const narrow_job *j, size_t begin, size_t end, int64_t quads, bool pair)
{
    const int rows = narrow_rows(quads);
    for (size_t block = begin; block < end; block++) {
        int64_t m = (int64_t)block * rows;
        if (m + rows <= j->M) narrow_block(j, m, rows, quads, pair);
        else for (; m < j->M; m++) narrow_block(j, m, 1, quads, pair);
    }
}

__attribute__((target("avx512f"))) static void narrow_blocks(size_t begin, size_t end, void *ctx)
{
    const narrow_job *j = ctx;
    if (j->quads == 2) narrow_blocks_of(j, begin, end, 2, true);
    else if (j->quads == 3) narrow_blocks_of(j, begin, end, 3, false);
    else narrow_blocks_of(j, begin, end, 0, false);
}

static bool narrow_supported(void)
{
    static int supported = -1; /* a benign race: every thread computes the same value */
    if (supported < 0) supported = __builtin_cpu_supports("avx512f") ? 1 : 0;
    return supported == 1;
}

/* Whether C = A B takes narrow_blocks: float32 operands, 9 to 16 columns, A's and out's rows
 * contiguous. */
static bool narrow_applies(const matrix *A, const matrix *B, const matrix *C, int64_t K)
{
    return C->cols >= NARROW_MIN_N && C->cols <= NARROW_MAX_N && K > 0 && A->dtype == ACL_FLOAT &&
           B->dtype == ACL_FLOAT && C->dtype == ACL_FLOAT && (A->cs == 1 || K == 1) && C->cs == 1 &&
           narrow_supported();
}

/* Element (k, n) of B, zero past K and N (the packed vectors' padding). */
static float narrow_b(const matrix *B, int64_t K, int64_t k, int64_t n)
{
    return k < K && n < B->cols ? ((const float *)B->base)[k * B->rs + n * B->cs] : 0.0f;
}

/* B packed for narrow_blocks (see above); returns the end of the packed floats. */
static float *narrow_pack(const matrix *B, int64_t K, int64_t quads, bool pair, float *packed)
{
    for (int64_t k = 0; k < K; k += NARROW_STEP) {
        for (int64_t t = 0; quads == 0 && t < NARROW_STEP; t++) /* 16 columns by one k */
            for (int64_t lane = 0; lane < 16; lane++) *packed++ = narrow_b(B, K, k + t, lane);
        for (int64_t h = 0; h < 2; h++)
            for (int64_t q = 0; q < quads; q++)
                for (int64_t lane = 0; lane < 16; lane++)
                    *packed++ = narrow_b(B, K, k + 4 * h + lane % 4, 4 * q + lane / 4);
        for (int64_t lane = 0; pair && lane < 16; lane++)
            *packed++ = narrow_b(B, K, k + lane % 8, 8 + lane / 8);
    }
    return packed;
}

static int gemm_narrow(const matrix *A, const matrix *B, const matrix *C, int64_t K)
{
    int64_t N = C->cols, quads = N <= 10 ? 2 : N <= 12 ? 3 : 0;
    narrow_job j = {(const float *)A->base, (float *)C->base, NULL, A->rs, C->rs, C->rows, K, N, quads};
    _Alignas(64) float stack[NARROW_STACK_K * 16];
    int64_t padded = (K + NARROW_STEP - 1) / NARROW_STEP * NARROW_STEP;
    float *packed = padded <= NARROW_STACK_K ? stack : aligned_alloc(64, (size_t)padded * 16 * sizeof(float));
    if (!packed) return npusim_error(ACLNN_ERR_INNER, "aclnnMatmul: out of host memory");
    narrow_pack(B, K, quads, N <= 10, packed);
    j.b = packed;
    int rows = narrow_rows(quads);
    size_t blocks = (size_t)((C->rows + rows - 1) / rows);
    int64_t mnk = C->rows * N * K;
    if (mnk < BLAS_POOL_MNK) narrow_blocks(0, blocks, &j);
    else if (mnk < BLAS_MID_MNK) npusim_parallel_for_mid(blocks, 8, narrow_blocks, &j);
    else npusim_parallel_for(blocks, 8, narrow_blocks, &j);
    if (packed != stack) free(packed);
    return 0;
}
#endif

static void gemm_int(const int64_t *a, const int64_t *b, int64_t *c, int64_t M, int64_t N, int64_t K)
{
    memset(c, 0, sizeof(int64_t) * (size_t)(M * N));
    for (int64_t m = 0; m < M; m++)
        for (int64_t k = 0; k < K; k++) {
            uint64_t av = (uint64_t)a[m * K + k];
            const int64_t *brow = b + k * N;
            int64_t *crow = c + m * N;
            for (int64_t n = 0; n < N; n++) crow[n] = (int64_t)((uint64_t)crow[n] + av * (uint64_t)brow[n]);
        }
}

static int matmul_one(npusim_kind kind, const matrix *A, const matrix *B, const matrix *C, int64_t K)
{
    int64_t M = C->rows, N = C->cols;
    if (M == 0 || N == 0) return 0;
#ifdef NARROW_KERNEL
    if (kind == KIND_F32 && narrow_applies(A, B, C, K)) return gemm_narrow(A, B, C, K);
#endif
    size_t ksz = npusim_kind_size(kind);
    aclDataType kdt = npusim_kind_dtype(kind);
    int ta = 0, tb = 0, tc = 0;
    int32_t lda = 0, ldb = 0, ldc = 0;
    bool blas = kind == KIND_F32 || kind == KIND_F64;
    bool a_direct = blas && A->dtype == kdt && blas_layout(A, &ta, &lda);
    bool b_direct = blas && B->dtype == kdt && blas_layout(B, &tb, &ldb) &&
                    !(tb == CBLAS_TRANS && K * N <= BLAS_PACK_B_MAX && M >= BLAS_PACK_B_MIN_ROWS &&
                      M * N * K < BLAS_OWN_THREADS_MNK);
    bool c_direct = blas && C->dtype == kdt && blas_layout(C, &tc, &ldc) && tc == CBLAS_NO_TRANS && K > 0;
    size_t bytes = (a_direct ? 0 : (size_t)(M * K)) + (b_direct ? 0 : (size_t)(K * N)) + (c_direct ? 0 : (size_t)(M * N));
    char *tmp = bytes ? malloc(bytes * ksz) : NULL;
    if (bytes && !tmp) return npusim_error(ACLNN_ERR_INNER, "aclnnMatmul: out of host memory");
    char *next = tmp;
    const void *a = A->base, *b = B->base;
    void *c = (void *)C->base;
    if (!a_direct) {
        pack(A, kind, next);
        a = next;
        ta = CBLAS_NO_TRANS;
        lda = (int32_t)(K > 0 ? K : 1);
        next += (size_t)(M * K) * ksz;
    }
    if (!b_direct) {
        pack(B, kind, next);
        b = next;
        tb = CBLAS_NO_TRANS;
        ldb = (int32_t)(N > 0 ? N : 1);
        next += (size_t)(K * N) * ksz;
    }
    if (!c_direct) {
        c = next;
        ldc = (int32_t)N;
    }
    if (K == 0)
        memset(c, 0, (size_t)(M * N) * ksz);
    else if (blas)
        gemm_blas(kind, ta, lda, a, tb, ldb, b, c, ldc, M, N, K);
    else
        gemm_int(a, b, c, M, N, K);
    if (!c_direct) unpack(c, kind, C);
    free(tmp);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Batches */

/* The matrix of a view: its last two dims (a 1-D vector becomes a row or a column). */
static matrix matrix_of(const npusim_view *v, bool vector_is_row, int64_t batch_offset)
{
    matrix m = { v->base + batch_offset * (int64_t)npusim_dtype_size(v->dtype), v->dtype, 1, 1, 0, 0 };
    if (v->ndim == 1) {
        int64_t n = v->shape[0], s = v->strides[0];
        if (vector_is_row) { m.cols = n; m.cs = s; } else { m.rows = n; m.rs = s; }
        return m;
    }
    m.rows = v->shape[v->ndim - 2];
    m.cols = v->shape[v->ndim - 1];
    m.rs = v->strides[v->ndim - 2];
    m.cs = v->strides[v->ndim - 1];
    return m;
}

static int matmul_batches(const npusim_exec *ex, const npusim_view *a, const npusim_view *b, const npusim_view *c);

/* Inputs sharing memory with out are read from copies (BLAS writes C while reading A and B). */
static int matmul_kernel(const npusim_exec *ex, npusim_view *views)
{
    npusim_view copies[2];
    void *buffers[2] = { NULL, NULL };
    const npusim_view *in[2] = { &views[0], &views[1] };
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++)
        if (npusim_views_overlap(in[i], &views[2])) {
            rc = npusim_view_copy(in[i], &copies[i], &buffers[i]);
            in[i] = &copies[i];
        }
    if (!rc) rc = matmul_batches(ex, in[0], in[1], &views[2]);
    free(buffers[0]);
    free(buffers[1]);
    return rc;
}

static int matmul_batches(const npusim_exec *ex, const npusim_view *a, const npusim_view *b, const npusim_view *c)
{
    int nb = ex->n_dims; /* batch dims */
    int64_t batch = 1;
    for (int d = 0; d < nb; d++) batch *= ex->dims[d];
    int64_t K = a->shape[a->ndim - 1];
    for (int64_t i = 0; i < batch; i++) {
        int64_t rest = i, oa = 0, ob = 0, oc = 0;
        for (int d = nb - 1; d >= 0; d--) {
            int64_t idx = rest % ex->dims[d];
            rest /= ex->dims[d];
            int da = a->ndim - 2 - (nb - d), db = b->ndim - 2 - (nb - d);
            if (da >= 0 && a->shape[da] != 1) oa += idx * a->strides[da];
            if (db >= 0 && b->shape[db] != 1) ob += idx * b->strides[db];
            oc += idx * c->strides[d];
        }
        matrix A = matrix_of(a, true, oa), B = matrix_of(b, false, ob);
        matrix C = { c->base + oc * (int64_t)npusim_dtype_size(c->dtype), c->dtype, A.rows, B.cols, 0, 0 };
        int tail = c->ndim - nb; /* 0, 1 or 2 dims of out belong to the matrix */
        if (tail == 2) {
            C.rs = c->strides[c->ndim - 2];
            C.cs = c->strides[c->ndim - 1];
        } else if (tail == 1) {
            if (A.rows == 1 && a->ndim == 1) C.cs = c->strides[c->ndim - 1];
            else C.rs = c->strides[c->ndim - 1];
        }
        int rc = matmul_one(ex->kind, &A, &B, &C, K);
        if (rc) return rc;
    }
    return 0;
}

static const npusim_opdef def_matmul = NPUSIM_OPDEF("aclnnMatmul", matmul_kernel);

/* Out shape of torch.matmul, and the broadcast batch shape. */
static int matmul_shapes(const aclTensor *a, const aclTensor *b, int *ndim, int64_t *shape, int *nb, int64_t *batch)
{
    const char *name = "aclnnMatmul";
    if (a->ndim == 0 || b->ndim == 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: self and mat2 need at least 1 dim "
                            "(got %d and %d)", name, a->ndim, b->ndim);
    int64_t K = a->shape[a->ndim - 1];
    int64_t Kb = b->ndim == 1 ? b->shape[0] : b->shape[b->ndim - 2];
    if (K != Kb)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: self's last dim (%lld) differs from "
                            "mat2's %s dim (%lld)", name, (long long)K, b->ndim == 1 ? "only" : "second-to-last",
                            (long long)Kb);
    int ba = a->ndim > 2 ? a->ndim - 2 : 0, bb = b->ndim > 2 ? b->ndim - 2 : 0;
    *nb = ba > bb ? ba : bb;
    for (int d = 0; d < *nb; d++) {
        int da = d - (*nb - ba), db = d - (*nb - bb);
        int64_t sa = da >= 0 ? a->shape[da] : 1, sb = db >= 0 ? b->shape[db] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: batch dims %lld and %lld cannot be "
                                "broadcast", name, (long long)sa, (long long)sb);
        batch[d] = sa == 1 ? sb : sa;
    }
    *ndim = 0;
    for (int d = 0; d < *nb; d++) shape[(*ndim)++] = batch[d];
    if (a->ndim >= 2) shape[(*ndim)++] = a->shape[a->ndim - 2];
    if (b->ndim >= 2) shape[(*ndim)++] = b->shape[b->ndim - 1];
    return 0;
}

aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                        int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnMatmul";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "self", self)) || (rc = npusim_check_tensor(name, "mat2", mat2)) ||
        (rc = npusim_check_tensor(name, "out", out)) ||
        (rc = npusim_check_dtype(name, "self", self->dtype, NPUSIM_DTYPES_aclnnMatmul_self)) ||
        (rc = npusim_check_dtype(name, "mat2", mat2->dtype, NPUSIM_DTYPES_aclnnMatmul_mat2)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnMatmul_out)))
        return rc;
    if (cubeMathType < 0 || cubeMathType > 4)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: cubeMathType %d is not one of 0 "
                            "(KEEP_DTYPE) .. 4 (USE_FP32_ADD)", name, (int)cubeMathType);
    if (self->dtype != mat2->dtype)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: self (%s) and mat2 (%s) must have the "
                            "same dtype", name, npusim_dtype_name(self->dtype), npusim_dtype_name(mat2->dtype));
    if (npusim_dtype_category(out->dtype) < npusim_dtype_category(self->dtype))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: out dtype %s cannot hold %s results",
                            name, npusim_dtype_name(out->dtype), npusim_dtype_name(self->dtype));
    int ndim = 0, nb = 0;
    int64_t shape[NPUSIM_MAX_DIMS], batch[NPUSIM_MAX_DIMS];
    if ((rc = matmul_shapes(self, mat2, &ndim, shape, &nb, batch)) ||
        (rc = npusim_check_shape_equal(name, "out", out, ndim, shape)))
        return rc;
    npusim_kind kind = npusim_kind_of(self->dtype) == KIND_F64 ? KIND_F64
                       : npusim_is_float(self->dtype) ? KIND_F32 : KIND_I64;
    if (kind != KIND_I64 && (rc = blas_ready())) return rc;
    int64_t K = self->shape[self->ndim - 1];
    if (K > INT32_MAX || npusim_numel(out) > INT32_MAX)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: dimensions beyond 2^31 are not "
                            "supported", name);
    const aclTensor *ins[2] = { self, mat2 };
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_matmul, ins, 2, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->kind = kind;
    ex->n_dims = nb;
    for (int d = 0; d < nb; d++) ex->dims[d] = batch[d];
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnMatmul", workspace, workspaceSize, executor, stream);
}
