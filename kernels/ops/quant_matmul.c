/* aclnnQuantMatmulV5 (hicann/ops-nn matmul/quant_batch_matmul_v4/docs/aclnnQuantMatmulV5.md): the
 * combination that document lists for exact integer products, x1 and x2 INT8, x1Scale null,
 * x2Scale FLOAT32 or BFLOAT16, bias null or INT32, out INT32, where "the scales take no part in
 * the computation": out = x1 @ x2 (+ bias). x1 is (batch, m, k) ((batch, k, m) with transposeX1),
 * x2 is (batch, k, n) ((batch, n, k) with transposeX2), 2 to 6 dims, batch dims broadcast; out is
 * (batch, m, n). npusim implements that combination only (the others dequantise to float16 /
 * bfloat16 / int8 and are refused with ACLNN_ERR_PARAM_INVALID naming what it takes).
 *
 * The int32 accumulator wraps modulo 2^32, as the cube unit's does: the result is exact while
 * |x1 @ x2 + bias| < 2^31 (k <= 131072 for any int8 inputs).
 *
 * The product runs on whichever integer unit the CPU has, chosen per launch: AMX-INT8 tiles
 * (tdpbusd on 16 x 64-byte tiles, 32 x 32 blocks of out in four accumulator tiles), AVX-512 VNNI
 * (vpdpbusd on tiles of 6 rows x 32 columns), or a portable loop of the same arithmetic. AMX
 * multiplies signed by signed bytes (tdpbssd) and takes x1 as it is; VNNI and the portable loop
 * multiply unsigned by signed bytes: x1 is shifted by +128 and 128 * (column sums of x2) taken
 * back. All share one packing of x2 (panels of 32 columns, four k interleaved, which is also
 * AMX's B tile layout); x1 is packed in rows, or in AMX's tile order. Work is spread over
 * npusim's thread pool. The environment
 * variable NPUSIM_QMM_KERNEL=amx|vnni|portable forces one path (for tests); forcing a path the
 * CPU cannot run fails the launch with ACLNN_ERR_RUNTIME_ERROR. Linux grants AMX tile state per
 * process on request (arch_prctl ARCH_REQ_XCOMP_PERM, Documentation/arch/x86/xstate.rst), asked
 * once. */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define QMM_X86 1
#endif
#if defined(QMM_X86) && defined(__linux__)
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#define QMM_AMX 1
#endif

#include "aclnnop/aclnn_quant_matmul_v5.h"
#include "ew_ops.h"

#define TILE_ROWS 6
#define TILE_COLS 32
/* Row tiles per task: 8 x 6 rows share one pass over a panel of x2 (Kp x 32 bytes) in cache. */
#define TASK_ROW_TILES 8

typedef struct {
    const char *base;
    int64_t rows, cols, rs, cs; /* element strides */
} imatrix;

typedef struct {
    const uint8_t *a;     /* x1 + 128, Mp x Kp, in rows of lda bytes or AMX tile order (pack_rows) */
    const uint8_t *a_direct; /* AMX: x1 itself when its rows serve as tiles (a_rs: their stride) */
    int64_t a_rs;
    const int8_t *b;      /* panels of TILE_COLS columns: [panel][Kp / 4][TILE_COLS][4] */
    const int32_t *bias;  /* (N) or NULL, contiguous copy */
    const int32_t *colsum;/* (Np): 128 * column sums of x2 (0 on AMX: x1 not shifted) */
    char *c;
    int64_t crs, ccs;     /* out strides, elements */
    int64_t M, N, Kp, lda, panels; /* lda: x1's packed row stride, Kp + 64 (no 4 KiB aliasing of rows) */
    int path;             /* qmm_path */
} qmm_job;

/* One tile: acc[r][j] = sum_k a[r][k] * b[k][j] modulo 2^32, for TILE_ROWS x TILE_COLS. */
/* One tile over k in [k0, k1) (multiples of 4), added to acc (lda: x1's packed row stride). */
static void tile_portable(const uint8_t *a, int64_t lda, int64_t k0, int64_t k1, const int8_t *panel,
                          uint32_t acc[TILE_ROWS][TILE_COLS])
{
    for (int64_t k4 = k0 / 4; k4 < k1 / 4; k4++) {
        const int8_t *bp = panel + k4 * TILE_COLS * 4;
        for (int r = 0; r < TILE_ROWS; r++) {
            const uint8_t *ar = a + r * lda + k4 * 4;
            for (int j = 0; j < TILE_COLS; j++) {
                int32_t s = ar[0] * bp[4 * j] + ar[1] * bp[4 * j + 1] + ar[2] * bp[4 * j + 2] + ar[3] * bp[4 * j + 3];
                acc[r][j] += (uint32_t)s;
            }
        }
    }
}

#ifdef QMM_X86
__attribute__((target("avx512f,avx512bw,avx512vnni")))
static void tile_vnni(const uint8_t *a, int64_t lda, int64_t k0, int64_t k1, const int8_t *panel,
                      uint32_t acc[TILE_ROWS][TILE_COLS])
{
#define QMM_LOAD(r, h) _mm512_loadu_si512((const void *)(acc[r] + 16 * h))
    __m512i c00 = QMM_LOAD(0, 0), c01 = QMM_LOAD(0, 1), c10 = QMM_LOAD(1, 0), c11 = QMM_LOAD(1, 1);
    __m512i c20 = QMM_LOAD(2, 0), c21 = QMM_LOAD(2, 1), c30 = QMM_LOAD(3, 0), c31 = QMM_LOAD(3, 1);
    __m512i c40 = QMM_LOAD(4, 0), c41 = QMM_LOAD(4, 1), c50 = QMM_LOAD(5, 0), c51 = QMM_LOAD(5, 1);
#undef QMM_LOAD
    const uint8_t *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda, *a4 = a + 4 * lda, *a5 = a + 5 * lda;
    for (int64_t k = k0; k < k1; k += 4) {
        __m512i b0 = _mm512_loadu_si512((const void *)(panel + k * TILE_COLS));
        __m512i b1 = _mm512_loadu_si512((const void *)(panel + k * TILE_COLS + 64));
        int32_t w;
        __m512i x;
#define QMM_ROW(ar, l, r)                           \
        memcpy(&w, ar + k, 4);                      \
        x = _mm512_set1_epi32(w);                   \
        l = _mm512_dpbusd_epi32(l, x, b0);          \
        r = _mm512_dpbusd_epi32(r, x, b1);
        QMM_ROW(a0, c00, c01)
        QMM_ROW(a1, c10, c11)
        QMM_ROW(a2, c20, c21)
        QMM_ROW(a3, c30, c31)
        QMM_ROW(a4, c40, c41)
        QMM_ROW(a5, c50, c51)
#undef QMM_ROW
    }
    _mm512_storeu_si512((void *)acc[0], c00); _mm512_storeu_si512((void *)(acc[0] + 16), c01);
    _mm512_storeu_si512((void *)acc[1], c10); _mm512_storeu_si512((void *)(acc[1] + 16), c11);
    _mm512_storeu_si512((void *)acc[2], c20); _mm512_storeu_si512((void *)(acc[2] + 16), c21);
    _mm512_storeu_si512((void *)acc[3], c30); _mm512_storeu_si512((void *)(acc[3] + 16), c31);
    _mm512_storeu_si512((void *)acc[4], c40); _mm512_storeu_si512((void *)(acc[4] + 16), c41);
    _mm512_storeu_si512((void *)acc[5], c50); _mm512_storeu_si512((void *)(acc[5] + 16), c51);
}

static bool have_vnni(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
}
#else
static bool have_vnni(void) { return false; }
static void tile_vnni(const uint8_t *a, int64_t lda, int64_t k0, int64_t k1, const int8_t *panel,
                      uint32_t acc[TILE_ROWS][TILE_COLS])
{
    tile_portable(a, lda, k0, k1, panel, acc);
}
#endif

/* AMX: a block is 32 rows x 32 columns of out in tiles 0-3 (16 x 16 int32 each), fed by two
 * tiles of x1 rows (4, 5: 16 rows x 64 k) and two of a panel (6, 7: 16 k/4 rows x 16 columns x
 * 4 k, the panel's rows of 128 bytes read with stride 128). */
#define AMX_BLOCK 32
#define AMX_K 64
/* 256 rows share one pass over a panel's k block, whose accumulators stay in tiles over up to
 * 4096 k: with products of K up to a few thousand (the float64 emulation's), fewer reloads of
 * the accumulators and fewer passes over a panel beat keeping a k block of the panel in L1
 * (512 x 3584 x 512: about 20 % less CPU time than 128 rows and k blocks of 1024) */
#define AMX_TASK_BLOCKS 8
#define AMX_KBLOCK 4096

#ifdef QMM_AMX
#define QMM_ARCH_REQ_XCOMP_PERM 0x1023   /* arch/x86/include/uapi/asm/prctl.h */
#define QMM_XFEATURE_XTILEDATA 18

static bool amx_usable;
static pthread_once_t amx_once = PTHREAD_ONCE_INIT;

/* CPUID.(EAX=7, ECX=0):EDX bits 24 (AMX-TILE) and 25 (AMX-INT8), and the kernel's grant of
 * the tile data state to this process. */
static void amx_detect(void)
{
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(edx & (1u << 24)) || !(edx & (1u << 25)))
        return;
    amx_usable = syscall(SYS_arch_prctl, QMM_ARCH_REQ_XCOMP_PERM, QMM_XFEATURE_XTILEDATA) == 0;
}

static bool have_amx(void)
{
    pthread_once(&amx_once, amx_detect);
    return amx_usable;
}

typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} amx_config;

/* Palette 1, tiles 0-7 of 16 rows x 64 bytes; tile state is per thread. */
__attribute__((target("amx-tile")))
static void amx_configure(void)
{
    amx_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 8; t++) {
        cfg.colsb[t] = 64;
        cfg.rows[t] = 16;
    }
    /* GCC 12 does not see ldtilecfg read its operand and drops the stores above without this */
    __asm__ __volatile__("" : : "r"(&cfg) : "memory");
    _tile_loadconfig(&cfg);
}

__attribute__((target("amx-tile")))
static void amx_release(void) { _tile_release(); }

/* One 32 x 32 block over k in [k0, k1) (multiples of 64): acc = (k0 == 0 ? 0 : acc) + a @ panel,
 * the block's two groups of 16 rows read from a0 and a1 at k * kmul, rows `stride` bytes apart
 * (in tile order: kmul 16, stride 64; x1's own rows: kmul 1, stride its row stride); acc's rows
 * are `ldc` elements apart (a task's accumulators, or out itself). */
__attribute__((target("amx-tile,amx-int8")))
static void block_amx(const uint8_t *a0, const uint8_t *a1, int64_t kmul, int64_t stride, int64_t k0, int64_t k1,
                      const int8_t *panel, uint32_t *acc, int64_t ldc)
{
    int64_t bytes = 4 * ldc;
    if (k0 == 0) {
        _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
    } else {
        _tile_loadd(0, acc, bytes); _tile_loadd(1, acc + 16, bytes);
        _tile_loadd(2, acc + 16 * ldc, bytes); _tile_loadd(3, acc + 16 * ldc + 16, bytes);
    }
    for (int64_t k = k0; k < k1; k += AMX_K) {
        _tile_loadd(4, a0 + k * kmul, stride);
        _tile_loadd(5, a1 + k * kmul, stride);
        _tile_loadd(6, panel + k * TILE_COLS, TILE_COLS * 4);
        _tile_loadd(7, panel + k * TILE_COLS + 64, TILE_COLS * 4);
        _tile_dpbssd(0, 4, 6);
        _tile_dpbssd(1, 4, 7);
        _tile_dpbssd(2, 5, 6);
        _tile_dpbssd(3, 5, 7);
    }
    _tile_stored(0, acc, bytes); _tile_stored(1, acc + 16, bytes);
    _tile_stored(2, acc + 16 * ldc, bytes); _tile_stored(3, acc + 16 * ldc + 16, bytes);
}
#else
static bool have_amx(void) { return false; }
#endif

typedef enum { QMM_PORTABLE, QMM_VNNI, QMM_AMX_TILES } qmm_path;

/* k per pass over the row tiles of a task: a panel's slice of KBLOCK x 32 bytes stays in L1. */
#define KBLOCK 512

/* out[row0 .. row0 + rows, col0 .. col0 + cols] from accumulators (rows of TILE_COLS), less
 * the +128 of x1 (colsum), plus bias. */
static void store_block(const qmm_job *j, int64_t row0, int64_t rows, int64_t col0,
                        const uint32_t (*acc)[TILE_COLS])
{
    int64_t ncols = j->N - col0 < TILE_COLS ? j->N - col0 : TILE_COLS;
    if (j->M - row0 < rows) rows = j->M - row0;
    uint32_t take[TILE_COLS];   /* colsum less bias, per column: one subtraction per element */
    for (int64_t c = 0; c < ncols; c++)
        take[c] = (uint32_t)j->colsum[col0 + c] - (j->bias ? (uint32_t)j->bias[col0 + c] : 0u);
    for (int64_t r = 0; r < rows; r++) {
        int32_t *crow = (int32_t *)j->c + (row0 + r) * j->crs + col0 * j->ccs;
        if (j->ccs == 1)
            for (int64_t c = 0; c < ncols; c++) crow[c] = (int32_t)(acc[r][c] - take[c]);
        else
            for (int64_t c = 0; c < ncols; c++) crow[c * j->ccs] = (int32_t)(acc[r][c] - take[c]);
    }
}

/* Tasks of TASK_ROW_TILES x 6 rows and one panel on VNNI or the portable loop. */
static void qmm_tasks(size_t begin, size_t end, void *ctx)
{
    const qmm_job *j = ctx;
    uint32_t acc[TASK_ROW_TILES][TILE_ROWS][TILE_COLS];
    for (size_t task = begin; task < end; task++) {
        int64_t panel = (int64_t)task % j->panels, block = (int64_t)task / j->panels;
        const int8_t *bp = j->b + panel * j->Kp * TILE_COLS;
        int64_t row_first = block * TASK_ROW_TILES * TILE_ROWS;
        int64_t tiles = (j->M - row_first + TILE_ROWS - 1) / TILE_ROWS;
        if (tiles > TASK_ROW_TILES) tiles = TASK_ROW_TILES;
        memset(acc, 0, sizeof acc);
        for (int64_t k0 = 0; k0 < j->Kp; k0 += KBLOCK) {
            int64_t k1 = j->Kp - k0 < KBLOCK ? j->Kp : k0 + KBLOCK;
            for (int64_t t = 0; t < tiles; t++) {
                const uint8_t *a = j->a + (row_first + t * TILE_ROWS) * j->lda;
                if (j->path == QMM_VNNI) tile_vnni(a, j->lda, k0, k1, bp, acc[t]);
                else tile_portable(a, j->lda, k0, k1, bp, acc[t]);
            }
        }
        for (int64_t t = 0; t < tiles; t++)
            store_block(j, row_first + t * TILE_ROWS, TILE_ROWS, panel * TILE_COLS,
                        (const uint32_t (*)[TILE_COLS])acc[t]);
    }
}

#ifdef QMM_AMX
/* Tasks of AMX_TASK_BLOCKS x 32 rows and one panel on AMX tiles (configured per thread). */
static void qmm_tasks_amx(size_t begin, size_t end, void *ctx)
{
    const qmm_job *j = ctx;
    uint32_t acc[AMX_TASK_BLOCKS][AMX_BLOCK][TILE_COLS];
    amx_configure();
    for (size_t task = begin; task < end; task++) {
        int64_t panel = (int64_t)task % j->panels, block = (int64_t)task / j->panels;
        const int8_t *bp = j->b + panel * j->Kp * TILE_COLS;
        int64_t row_first = block * AMX_TASK_BLOCKS * AMX_BLOCK;
        int64_t blocks = (j->M - row_first + AMX_BLOCK - 1) / AMX_BLOCK;
        if (blocks > AMX_TASK_BLOCKS) blocks = AMX_TASK_BLOCKS;
        /* whole blocks of a contiguous out without bias are accumulated in out itself (on AMX
         * colsum is 0): no copy of the accumulators */
        bool in_out = !j->bias && j->ccs == 1 && row_first + blocks * AMX_BLOCK <= j->M &&
                      (panel + 1) * TILE_COLS <= j->N;
        for (int64_t k0 = 0; k0 < j->Kp; k0 += AMX_KBLOCK) {
            int64_t k1 = j->Kp - k0 < AMX_KBLOCK ? j->Kp : k0 + AMX_KBLOCK;
            for (int64_t t = 0; t < blocks; t++) {
                int64_t row = row_first + t * AMX_BLOCK;
                uint32_t *c = in_out ? (uint32_t *)j->c + row * j->crs + panel * TILE_COLS : acc[t][0];
                int64_t ldc = in_out ? j->crs : TILE_COLS;
                if (j->a_direct)
                    block_amx(j->a_direct + row * j->a_rs, j->a_direct + (row + 16) * j->a_rs, 1, j->a_rs, k0, k1,
                              bp, c, ldc);
                else
                    block_amx(j->a + row * j->Kp, j->a + row * j->Kp + j->Kp * 16, 16, AMX_K, k0, k1, bp, c, ldc);
            }
        }
        for (int64_t t = 0; t < blocks && !in_out; t++)
            store_block(j, row_first + t * AMX_BLOCK, AMX_BLOCK, panel * TILE_COLS,
                        (const uint32_t (*)[TILE_COLS])acc[t]);
    }
    amx_release();
}
#endif

typedef struct {
    const imatrix *A, *B;
    uint8_t *a;
    int8_t *b;
    int32_t *partial;     /* (groups, Np): column sums of each group of PACK_K rows of x2 */
    int64_t Kp, lda, Np;
    bool tiled;           /* x1 in AMX tile order, as it is (signed by signed), no column sums */
    bool vbmi;            /* x2's panels two at a time by AVX-512 VBMI byte permutes */
} pack_job;

/* Rows [begin, end) of x1 + 128 (bytes as unsigned), padded with 128 (x1 = 0) to Kp, in pieces
 * of 64 bytes consecutive in a row of lda bytes; or, on AMX, of x1 as it is, padded with 0 to
 * Kp and Mp rows, in AMX tile order, [Mp / 16][Kp / 64][16 rows][64] (tile loads read 1 KiB in a
 * row, not 16 rows). */
static void pack_rows(size_t begin, size_t end, void *ctx)
{
    const pack_job *p = ctx;
    int64_t K = p->A->cols, M = p->A->rows, cs = p->A->cs;
    int64_t piece_stride = p->tiled ? 16 * AMX_K : AMX_K;
    uint8_t shift = p->tiled ? 0 : 0x80u, pad = p->tiled ? 0 : 128;
    for (size_t row = begin; row < end; row++) {
        int64_t i = (int64_t)row;
        uint8_t *dst = p->tiled ? p->a + (i / 16) * p->Kp * 16 + (i % 16) * AMX_K : p->a + i * p->lda;
        const int8_t *src = i < M ? (const int8_t *)p->A->base + i * p->A->rs : NULL;
        for (int64_t k0 = 0, piece = 0; k0 < p->Kp; k0 += AMX_K, piece++) {
            uint8_t *d = dst + piece * piece_stride;
            int64_t width = p->Kp - k0 < AMX_K ? p->Kp - k0 : AMX_K;
            int64_t n = !src || k0 >= K ? 0 : K - k0 < AMX_K ? K - k0 : AMX_K;
            if (cs == 1)
                for (int64_t k = 0; k < n; k++) d[k] = (uint8_t)src[k0 + k] ^ shift;
            else
                for (int64_t k = 0; k < n; k++) d[k] = (uint8_t)src[(k0 + k) * cs] ^ shift;
            memset(d + n, pad, (size_t)(width - n));
        }
    }
}

/* Four rows of TILE_COLS bytes (stride rs) as TILE_COLS groups of four (one k/4 row of a panel). */
static void interleave4(const int8_t *s0, int64_t rs, int8_t *row)
{
#ifdef QMM_X86
    for (int c = 0; c < TILE_COLS; c += 16) {   /* SSE2: bytes of rows 0/1 and 2/3, then their pairs */
        __m128i r0 = _mm_loadu_si128((const __m128i *)(s0 + c));
        __m128i r1 = _mm_loadu_si128((const __m128i *)(s0 + rs + c));
        __m128i r2 = _mm_loadu_si128((const __m128i *)(s0 + 2 * rs + c));
        __m128i r3 = _mm_loadu_si128((const __m128i *)(s0 + 3 * rs + c));
        __m128i lo01 = _mm_unpacklo_epi8(r0, r1), hi01 = _mm_unpackhi_epi8(r0, r1);
        __m128i lo23 = _mm_unpacklo_epi8(r2, r3), hi23 = _mm_unpackhi_epi8(r2, r3);
        __m128i *out = (__m128i *)(row + 4 * c);
        _mm_storeu_si128(out, _mm_unpacklo_epi16(lo01, lo23));
        _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(lo01, lo23));
        _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(hi01, hi23));
        _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(hi01, hi23));
    }
#else
    for (int c = 0; c < TILE_COLS; c++)
        for (int r = 0; r < 4; r++) row[4 * c + r] = s0[r * rs + c];
#endif
}

#ifdef QMM_X86
/* Byte i of a pair: column i / 2 (+ 32 for the second panel) of row 0 (even i) or row 1 (+ 64). */
static const int8_t QMM_PAIRS[2][64] = {
    {
    0, 64, 1, 65, 2, 66, 3, 67, 4, 68, 5, 69, 6, 70, 7, 71,
    8, 72, 9, 73, 10, 74, 11, 75, 12, 76, 13, 77, 14, 78, 15, 79,
    16, 80, 17, 81, 18, 82, 19, 83, 20, 84, 21, 85, 22, 86, 23, 87,
    24, 88, 25, 89, 26, 90, 27, 91, 28, 92, 29, 93, 30, 94, 31, 95,
    }, {
    32, 96, 33, 97, 34, 98, 35, 99, 36, 100, 37, 101, 38, 102, 39, 103,
    40, 104, 41, 105, 42, 106, 43, 107, 44, 108, 45, 109, 46, 110, 47, 111,
    48, 112, 49, 113, 50, 114, 51, 115, 52, 116, 53, 117, 54, 118, 55, 119,
    56, 120, 57, 121, 58, 122, 59, 123, 60, 124, 61, 125, 62, 126, 63, 127,
    } };
/* Word i of a four: pair i / 2 (+ 16 for the second half) of rows 0/1 (even i) or of rows 2/3 (+ 32). */
static const int16_t QMM_FOURS[2][32] = {
    {
    0, 32, 1, 33, 2, 34, 3, 35, 4, 36, 5, 37, 6, 38, 7, 39,
    8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47,
    }, {
    16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
    24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63,
    } };

/* interleave4 for two panels at once (four rows of 2 TILE_COLS bytes into row0 and row1) with
 * AVX-512 VBMI's two-table byte permutes: the bytes of rows 0/1 (and 2/3) in pairs, then the
 * pairs of the two in fours, 64 bytes a store. */
__attribute__((target("avx512f,avx512bw,avx512vbmi")))
static void interleave4_pair_vbmi(const int8_t *s0, int64_t rs, int8_t *row0, int8_t *row1)
{
    __m512i r0 = _mm512_loadu_si512((const void *)s0), r1 = _mm512_loadu_si512((const void *)(s0 + rs));
    __m512i r2 = _mm512_loadu_si512((const void *)(s0 + 2 * rs)), r3 = _mm512_loadu_si512((const void *)(s0 + 3 * rs));
    __m512i lo = _mm512_loadu_si512((const void *)QMM_PAIRS[0]), hi = _mm512_loadu_si512((const void *)QMM_PAIRS[1]);
    __m512i w0 = _mm512_loadu_si512((const void *)QMM_FOURS[0]), w1 = _mm512_loadu_si512((const void *)QMM_FOURS[1]);
    __m512i a_lo = _mm512_permutex2var_epi8(r0, lo, r1), a_hi = _mm512_permutex2var_epi8(r0, hi, r1);
    __m512i b_lo = _mm512_permutex2var_epi8(r2, lo, r3), b_hi = _mm512_permutex2var_epi8(r2, hi, r3);
    _mm512_storeu_si512((void *)row0, _mm512_permutex2var_epi16(a_lo, w0, b_lo));
    _mm512_storeu_si512((void *)(row0 + 64), _mm512_permutex2var_epi16(a_lo, w1, b_lo));
    _mm512_storeu_si512((void *)row1, _mm512_permutex2var_epi16(a_hi, w0, b_hi));
    _mm512_storeu_si512((void *)(row1 + 64), _mm512_permutex2var_epi16(a_hi, w1, b_hi));
}

static bool have_vbmi(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
}
#else
static bool have_vbmi(void) { return false; }
static void interleave4_pair_vbmi(const int8_t *s0, int64_t rs, int8_t *row0, int8_t *row1)
{
    interleave4(s0, rs, row0);
    interleave4(s0 + TILE_COLS, rs, row1);
}
#endif

/* k rows of x2 per packing task (a multiple of 4). */
#define PACK_K 256

/* Groups [begin, end) of PACK_K rows of x2 into panels of [Kp / 4][TILE_COLS][4] bytes (zero
 * padded), row by row so that x2 is read in its own order, and (x1 shifted: not on AMX) each
 * group's column sums into partial[group] (taken together by qmm_one). */
static void pack_panels(size_t begin, size_t end, void *ctx)
{
    const pack_job *p = ctx;
    int64_t K = p->B->rows, N = p->B->cols, rs = p->B->rs, cs = p->B->cs, Kp = p->Kp;
    int64_t panels = p->Np / TILE_COLS, whole = cs == 1 ? N / TILE_COLS : 0;  /* whole: by interleave4 */
    const int8_t *base = (const int8_t *)p->B->base;
    for (size_t g = begin; g < end; g++) {
        int64_t k0 = (int64_t)g * PACK_K, k1 = k0 + PACK_K < Kp ? k0 + PACK_K : Kp;
        int64_t present = K < k1 ? K : k1, k4 = k0 + (present - k0) / 4 * 4;
        for (int64_t panel = 0; panel < panels; panel++) {   /* what the loops below leave unwritten */
            int64_t from = panel < whole ? k4 : k0;
            memset(p->b + panel * Kp * TILE_COLS + from * TILE_COLS, 0, (size_t)((k1 - from) * TILE_COLS));
        }
        for (int64_t k = k0; k < k4; k += 4) {
            int64_t panel = 0;
            if (p->vbmi)
                for (; panel + 1 < whole; panel += 2)
                    interleave4_pair_vbmi(base + k * rs + panel * TILE_COLS, rs,
                                          p->b + panel * Kp * TILE_COLS + k * TILE_COLS,
                                          p->b + (panel + 1) * Kp * TILE_COLS + k * TILE_COLS);
            for (; panel < whole; panel++)
                interleave4(base + k * rs + panel * TILE_COLS, rs, p->b + panel * Kp * TILE_COLS + k * TILE_COLS);
        }
        int32_t *sums = p->partial + (int64_t)g * p->Np;
        memset(sums, 0, sizeof(int32_t) * (size_t)p->Np);
        for (int64_t k = k0; k < present; k++) {
            const int8_t *src = base + k * rs;
            int64_t first = k < k4 ? whole * TILE_COLS : 0;
            for (int64_t c = first; c < N; c++)
                p->b[(c / TILE_COLS) * Kp * TILE_COLS + (k / 4) * TILE_COLS * 4 + (c % TILE_COLS) * 4 + k % 4] =
                    src[c * cs];
            if (p->tiled)
                continue;
            if (cs == 1)
                for (int64_t c = 0; c < N; c++) sums[c] += src[c];
            else
                for (int64_t c = 0; c < N; c++) sums[c] += src[c * cs];
        }
    }
}

/* The path of a launch: NPUSIM_QMM_KERNEL when set, else the fastest this CPU runs. */
static int qmm_choose(qmm_path *path)
{
    const char *v = getenv("NPUSIM_QMM_KERNEL");
    bool amx = have_amx(), vnni = have_vnni();
    if (!v || !*v) {
        *path = amx ? QMM_AMX_TILES : vnni ? QMM_VNNI : QMM_PORTABLE;
        return 0;
    }
    if (!strcmp(v, "portable")) *path = QMM_PORTABLE;
    else if (!strcmp(v, "vnni") && vnni) *path = QMM_VNNI;
    else if (!strcmp(v, "amx") && amx) *path = QMM_AMX_TILES;
    else if (!strcmp(v, "vnni") || !strcmp(v, "amx"))
        return npusim_error(ACLNN_ERR_RUNTIME_ERROR, "aclnnQuantMatmulV5: NPUSIM_QMM_KERNEL=%s, but this CPU (or "
                            "its kernel) does not provide %s", v, amx ? "AVX-512 VNNI" : vnni ? "AMX-INT8" :
                            "AMX-INT8 or AVX-512 VNNI");
    else
        return npusim_error(ACLNN_ERR_RUNTIME_ERROR, "aclnnQuantMatmulV5: NPUSIM_QMM_KERNEL must be amx, vnni or "
                            "portable (got \"%s\")", v);
    return 0;
}

/* Packs x1 (+128, padded) and x2 (panels) and runs the tiles of one matrix of out. */
static int qmm_one(const imatrix *A, const imatrix *B, const int32_t *bias, char *c, int64_t crs, int64_t ccs,
                   qmm_path path)
{
    int64_t M = A->rows, K = A->cols, N = B->cols;
    if (M == 0 || N == 0) return 0;
    int64_t kstep = path == QMM_AMX_TILES ? AMX_K : 4, rstep = path == QMM_AMX_TILES ? AMX_BLOCK : TILE_ROWS;
    int64_t Kp = (K + kstep - 1) / kstep * kstep, Mp = (M + rstep - 1) / rstep * rstep;
    int64_t panels = (N + TILE_COLS - 1) / TILE_COLS, Np = panels * TILE_COLS;
    int64_t lda = Kp + 64;
    /* AMX reads whole 32-row, 64-byte-deep blocks of x1 in place when its rows are contiguous */
    bool direct = path == QMM_AMX_TILES && A->cs == 1 && K % AMX_K == 0 && M % AMX_BLOCK == 0;
    size_t a_bytes = direct ? 0 : (size_t)(Mp * lda), b_bytes = (size_t)(Np * Kp);
    int64_t groups = (Kp + PACK_K - 1) / PACK_K;
    size_t sum_bytes = (size_t)((groups + 1) * Np) * sizeof(int32_t);
    char *mem = malloc(sum_bytes + a_bytes + b_bytes + 64);
    if (!mem) return npusim_error(ACLNN_ERR_INNER, "aclnnQuantMatmulV5: out of host memory");
    int32_t *colsum = (int32_t *)mem, *partial = colsum + Np;
    uint8_t *a = (uint8_t *)(mem + sum_bytes);
    int8_t *b = (int8_t *)(a + a_bytes);
    pack_job pj = {A, B, a, b, partial, Kp, lda, Np, path == QMM_AMX_TILES, path != QMM_PORTABLE && have_vbmi()};
    bool parallel = M * N * K >= (1LL << 21);
    if (parallel) {
        if (!direct) npusim_parallel_for((size_t)Mp, 16, pack_rows, &pj);
        npusim_parallel_for((size_t)groups, 1, pack_panels, &pj);
    } else {
        if (!direct) pack_rows(0, (size_t)Mp, &pj);
        pack_panels(0, (size_t)groups, &pj);
    }
    for (int64_t c = 0; c < Np; c++) {   /* 128 * the column sums: the +128 of x1 to take back */
        uint32_t sum = 0;
        for (int64_t g = 0; g < groups; g++) sum += (uint32_t)partial[g * Np + c];
        colsum[c] = (int32_t)(128u * sum);
    }
    qmm_job job = {a, direct ? (const uint8_t *)A->base : NULL, A->rs, b, bias, colsum, c, crs, ccs, M, N, Kp, lda,
                   panels, path};
    void (*run)(size_t, size_t, void *) = qmm_tasks;
    int64_t task_rows = TILE_ROWS * TASK_ROW_TILES;
#ifdef QMM_AMX
    if (path == QMM_AMX_TILES) {
        run = qmm_tasks_amx;
        task_rows = AMX_BLOCK * AMX_TASK_BLOCKS;
    }
#endif
    size_t tasks = (size_t)((M + task_rows - 1) / task_rows * panels);
    if (parallel) npusim_parallel_for(tasks, 1, run, &job);
    else run(0, tasks, &job);
    free(mem);
    return 0;
}

/* The matrix of the last two dims of a view at a batch offset, as (rows, cols) after an
 * optional transpose of the view's own layout. */
static imatrix imatrix_of(const npusim_view *v, bool transposed, int64_t offset)
{
    int d = v->ndim;
    imatrix m = { v->base + offset, v->shape[d - 2], v->shape[d - 1], v->strides[d - 2], v->strides[d - 1] };
    if (transposed) {
        int64_t t = m.rows; m.rows = m.cols; m.cols = t;
        t = m.rs; m.rs = m.cs; m.cs = t;
    }
    return m;
}

/* Tensors: x1, x2, x2Scale, bias (optional), out. ex->flag / ex->mode: transposeX1 / transposeX2. */
static int qmm_kernel(const npusim_exec *ex, npusim_view *views)
{
    const npusim_view *x1 = &views[0], *x2 = &views[1], *out = &views[4];
    int32_t *bias = NULL;
    int64_t N = out->shape[out->ndim - 1];
    if (ex->present[3]) {
        bias = malloc(sizeof(int32_t) * (size_t)(N ? N : 1));
        if (!bias) return npusim_error(ACLNN_ERR_INNER, "aclnnQuantMatmulV5: out of host memory");
        const npusim_view *bv = &views[3];
        for (int64_t n = 0; n < N; n++) bias[n] = ((const int32_t *)bv->base)[n * bv->strides[bv->ndim - 1]];
    }
    int nb = ex->n_dims;
    int64_t batch = 1;
    for (int d = 0; d < nb; d++) batch *= ex->dims[d];
    qmm_path path = QMM_PORTABLE;
    int rc = qmm_choose(&path);
    for (int64_t i = 0; i < batch && !rc; i++) {
        int64_t rest = i, oa = 0, ob = 0, oc = 0;
        for (int d = nb - 1; d >= 0; d--) {
            int64_t idx = rest % ex->dims[d];
            rest /= ex->dims[d];
            int da = x1->ndim - 2 - (nb - d), db = x2->ndim - 2 - (nb - d);
            if (da >= 0 && x1->shape[da] != 1) oa += idx * x1->strides[da];
            if (db >= 0 && x2->shape[db] != 1) ob += idx * x2->strides[db];
            oc += idx * out->strides[d];
        }
        imatrix A = imatrix_of(x1, ex->flag, oa), B = imatrix_of(x2, ex->mode != 0, ob);
        rc = qmm_one(&A, &B, bias, out->base + oc * 4, out->strides[out->ndim - 2], out->strides[out->ndim - 1],
                    path);
    }
    free(bias);
    return rc;
}

static const npusim_opdef def_qmm = NPUSIM_OPDEF("aclnnQuantMatmulV5", qmm_kernel);

static int qmm_refuse_present(const char *name, const char *arg, const aclTensor *t)
{
    if (!t) return 0;
    return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s must be null: npusim implements the "
                        "INT8 x INT8 -> INT32 combination (x1Scale, yScale, x1Offset, x2Offset, yOffset null)",
                        name, arg);
}

static int qmm_shapes(const char *name, const aclTensor *x1, const aclTensor *x2, bool t1, bool t2,
                      const aclTensor *out, int *nb, int64_t *batch)
{
    if (x1->ndim < 2 || x1->ndim > 6 || x2->ndim < 2 || x2->ndim > 6)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: x1 and x2 need 2 to 6 dims (got %d "
                            "and %d)", name, x1->ndim, x2->ndim);
    int64_t m = x1->shape[x1->ndim - (t1 ? 1 : 2)], k1 = x1->shape[x1->ndim - (t1 ? 2 : 1)];
    int64_t k2 = x2->shape[x2->ndim - (t2 ? 1 : 2)], n = x2->shape[x2->ndim - (t2 ? 2 : 1)];
    if (k1 != k2)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: x1's k (%lld) differs from x2's k "
                            "(%lld)", name, (long long)k1, (long long)k2);
    if (m == 0 || n == 0 || k1 == 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: x1 and x2 must not be empty tensors",
                            name);
    int ba = x1->ndim - 2, bb = x2->ndim - 2;
    *nb = ba > bb ? ba : bb;
    int64_t shape[NPUSIM_MAX_DIMS];
    for (int d = 0; d < *nb; d++) {
        int da = d - (*nb - ba), db = d - (*nb - bb);
        int64_t sa = da >= 0 ? x1->shape[da] : 1, sb = db >= 0 ? x2->shape[db] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: batch dims %lld and %lld cannot be "
                                "broadcast", name, (long long)sa, (long long)sb);
        batch[d] = shape[d] = sa == 1 ? sb : sa;
    }
    shape[*nb] = m;
    shape[*nb + 1] = n;
    return npusim_check_shape_equal(name, "out", out, *nb + 2, shape);
}

aclnnStatus aclnnQuantMatmulV5GetWorkspaceSize(const aclTensor *x1, const aclTensor *x2, const aclTensor *x1Scale,
                                               const aclTensor *x2Scale, const aclTensor *yScale,
                                               const aclTensor *x1Offset, const aclTensor *x2Offset,
                                               const aclTensor *yOffset, const aclTensor *bias, bool transposeX1,
                                               bool transposeX2, int64_t groupSize, aclTensor *out,
                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *name = "aclnnQuantMatmulV5";
    int rc = npusim_check_out_ptrs(name, workspaceSize, executor);
    if (rc || (rc = npusim_check_tensor(name, "x1", x1)) || (rc = npusim_check_tensor(name, "x2", x2)) ||
        (rc = npusim_check_tensor(name, "x2Scale", x2Scale)) || (rc = npusim_check_tensor(name, "out", out)) ||
        (bias && (rc = npusim_check_tensor(name, "bias", bias))) ||
        (rc = npusim_check_dtype(name, "x1", x1->dtype, NPUSIM_DTYPES_aclnnQuantMatmulV5_x1)) ||
        (rc = npusim_check_dtype(name, "x2", x2->dtype, NPUSIM_DTYPES_aclnnQuantMatmulV5_x2)) ||
        (rc = npusim_check_dtype(name, "x2Scale", x2Scale->dtype, NPUSIM_DTYPES_aclnnQuantMatmulV5_x2Scale)) ||
        (rc = npusim_check_dtype(name, "out", out->dtype, NPUSIM_DTYPES_aclnnQuantMatmulV5_out)) ||
        (bias && (rc = npusim_check_dtype(name, "bias", bias->dtype, NPUSIM_DTYPES_aclnnQuantMatmulV5_bias))) ||
        (rc = qmm_refuse_present(name, "x1Scale", x1Scale)) || (rc = qmm_refuse_present(name, "yScale", yScale)) ||
        (rc = qmm_refuse_present(name, "x1Offset", x1Offset)) ||
        (rc = qmm_refuse_present(name, "x2Offset", x2Offset)) ||
        (rc = qmm_refuse_present(name, "yOffset", yOffset)))
        return rc;
    if (groupSize != 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: groupSize must be 0 without 2-D scales "
                            "(got %lld)", name, (long long)groupSize);
    int nb = 0;
    int64_t batch[NPUSIM_MAX_DIMS];
    if ((rc = qmm_shapes(name, x1, x2, transposeX1, transposeX2, out, &nb, batch))) return rc;
    int64_t n = out->shape[out->ndim - 1];
    if (x2Scale->ndim != 1 || (x2Scale->shape[0] != 1 && x2Scale->shape[0] != n))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: x2Scale must have shape (1,) or (n,) = "
                            "(%lld,)", name, (long long)n);
    if (bias && !((bias->ndim == 1 && bias->shape[0] == n) ||
                  (bias->ndim == 2 && out->ndim == 2 && bias->shape[0] == 1 && bias->shape[1] == n)))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: bias must have shape (n,) or (1, n) "
                            "with n = %lld", name, (long long)n);
    const aclTensor *ins[4] = { x1, x2, x2Scale, bias };
    const aclTensor *outs[1] = { out };
    npusim_exec *ex = npusim_exec_create(&def_qmm, ins, 4, outs, 1);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->flag = transposeX1;
    ex->mode = transposeX2;
    ex->n_dims = nb;
    for (int d = 0; d < nb; d++) ex->dims[d] = batch[d];
    return npusim_exec_finish(ex, workspaceSize, executor);
}

aclnnStatus aclnnQuantMatmulV5(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return npusim_exec_launch("aclnnQuantMatmulV5", workspace, workspaceSize, executor, stream);
}
