/* A few aclnn kernels on a device against hand-computed values: strided and broadcast views,
 * float16 rounding, integer division by zero, casts, reductions with NaN, matmul, data-dependent
 * output shapes and run-time index errors. Prints "aclnn_kernels ok" and exits 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn_check.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_all.h"
#include "aclnnop/aclnn_any.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_cumsum.h"
#include "aclnnop/aclnn_floor_divide.h"
#include "aclnnop/aclnn_index_select.h"
#include "aclnnop/aclnn_masked_select.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_prod.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_round.h"
#include "aclnnop/aclnn_sign.h"
#include "aclnnop/aclnn_sort.h"
#include "aclnnop/aclnn_var.h"

/* Device copy of host bytes. */
/* A view of `storage` elements at dev with the given shape / strides / offset. */
static aclTensor *view(void *dev, aclDataType dt, int ndim, const int64_t *shape, const int64_t *strides,
                       int64_t offset, int64_t storage)
{
    aclTensor *t = aclCreateTensor(shape, (uint64_t)ndim, dt, strides, offset, ACL_FORMAT_ND, &storage, 1, dev);
    EXPECT(t != NULL, "aclCreateTensor: %s", aclGetRecentErrMsg());
    return t;
}

static void test_strided_broadcast_add(void)
{
    /* self: the transpose of a 3x2 matrix m = [[0,1],[2,3],[4,5]] (a 2x3 view with strides 1, 2);
     * other: a length-3 row broadcast over 2 rows; out = self + 10 * other. */
    float m[6] = { 0, 1, 2, 3, 4, 5 }, row[3] = { 1, 2, 3 }, out[6] = { 0 };
    void *dm = dev_from(m, sizeof m), *drow = dev_from(row, sizeof row), *dout = dev_from(out, sizeof out);
    int64_t shape[2] = { 2, 3 }, tstrides[2] = { 1, 2 }, rshape[1] = { 3 }, rstrides[1] = { 1 }, cstrides[2] = { 3, 1 };
    aclTensor *self = view(dm, ACL_FLOAT, 2, shape, tstrides, 0, 6);
    aclTensor *other = view(drow, ACL_FLOAT, 1, rshape, rstrides, 0, 3);
    aclTensor *o = view(dout, ACL_FLOAT, 2, shape, cstrides, 0, 6);
    float ten = 10.0f;
    aclScalar *alpha = aclCreateScalar(&ten, ACL_FLOAT);
    RUN(aclnnAdd, self, other, alpha, o);
    to_host(out, dout, sizeof out);
    const float want[6] = { 10, 22, 34, 11, 23, 35 };
    for (int i = 0; i < 6; i++) EXPECT(out[i] == want[i], "add out[%d] = %g, want %g", i, out[i], want[i]);
    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(o);
    aclDestroyScalar(alpha);
    aclrtFree(dm);
    aclrtFree(drow);
    aclrtFree(dout);
}

static void test_float16_and_int_division(void)
{
    /* float16 products are computed in float and rounded on store: 1 * (1 + 2^-10) and
     * 2048 * (1 + 2^-10) = 2050 (the float16 spacing at 2048 is 2) are both exact. */
    uint16_t h[2] = { 0x3c00, 0x6800 }; /* 1.0, 2048.0 */
    uint16_t g[2] = { 0x3c01, 0x3c01 }; /* 1 + 2^-10 */
    uint16_t r[2] = { 0, 0 };
    void *dh = dev_from(h, sizeof h), *dg = dev_from(g, sizeof g), *dr = dev_from(r, sizeof r);
    int64_t n2[1] = { 2 }, s1[1] = { 1 };
    aclTensor *th = view(dh, ACL_FLOAT16, 1, n2, s1, 0, 2), *tg = view(dg, ACL_FLOAT16, 1, n2, s1, 0, 2);
    aclTensor *tr = view(dr, ACL_FLOAT16, 1, n2, s1, 0, 2);
    RUN(aclnnMul, th, tg, tr);
    to_host(r, dr, sizeof r);
    /* 2048 * (1 + 2^-10) = 2050, representable (spacing 2 at 2048). */
    EXPECT(r[0] == 0x3c01 && r[1] == 0x6801, "float16 mul %#x %#x", r[0], r[1]);

    int32_t a[4] = { 7, -7, 5, -8 }, b[4] = { 2, 2, 0, 3 }, q[4] = { 99, 99, 99, 99 };
    void *da = dev_from(a, sizeof a), *db = dev_from(b, sizeof b), *dq = dev_from(q, sizeof q);
    int64_t n4[1] = { 4 };
    aclTensor *ta = view(da, ACL_INT32, 1, n4, s1, 0, 4), *tb = view(db, ACL_INT32, 1, n4, s1, 0, 4);
    aclTensor *tq = view(dq, ACL_INT32, 1, n4, s1, 0, 4);
    RUN(aclnnFloorDivide, ta, tb, tq);
    to_host(q, dq, sizeof q);
    const int32_t want[4] = { 3, -4, 0, -3 }; /* division by zero gives 0 */
    for (int i = 0; i < 4; i++) EXPECT(q[i] == want[i], "floor_divide[%d] = %d, want %d", i, q[i], want[i]);
    aclTensor *ts[] = { th, tg, tr, ta, tb, tq };
    for (int i = 0; i < 6; i++) aclDestroyTensor(ts[i]);
    void *ds[] = { dh, dg, dr, da, db, dq };
    for (int i = 0; i < 6; i++) aclrtFree(ds[i]);
}

static void test_cast_and_copy(void)
{
    /* float -> int8 truncates toward zero and wraps; the result is copied into a transposed view. */
    float f[4] = { 2.9f, -2.9f, 300.0f, -129.0f };
    int8_t i8[4] = { 0 };
    void *df = dev_from(f, sizeof f), *di = dev_from(i8, sizeof i8);
    int64_t n4[1] = { 4 }, s1[1] = { 1 };
    aclTensor *tf = view(df, ACL_FLOAT, 1, n4, s1, 0, 4), *ti = view(di, ACL_INT8, 1, n4, s1, 0, 4);
    RUN(aclnnCast, tf, ACL_INT8, ti);
    to_host(i8, di, sizeof i8);
    const int8_t want[4] = { 2, -2, 44, 127 };
    for (int i = 0; i < 4; i++) EXPECT(i8[i] == want[i], "cast[%d] = %d, want %d", i, i8[i], want[i]);

    /* InplaceCopy of a 2x2 int8 (row-major [[2,-2],[44,127]]) into the transpose of a double 2x2. */
    double d[4] = { 0 };
    void *dd = dev_from(d, sizeof d);
    int64_t sh[2] = { 2, 2 }, rm[2] = { 2, 1 }, tr[2] = { 1, 2 };
    aclTensor *src = view(di, ACL_INT8, 2, sh, rm, 0, 4), *dst = view(dd, ACL_DOUBLE, 2, sh, tr, 0, 4);
    RUN(aclnnInplaceCopy, dst, src);
    to_host(d, dd, sizeof d);
    const double wd[4] = { 2, 44, -2, 127 };
    for (int i = 0; i < 4; i++) EXPECT(d[i] == wd[i], "copy[%d] = %g, want %g", i, d[i], wd[i]);
    aclDestroyTensor(tf);
    aclDestroyTensor(ti);
    aclDestroyTensor(src);
    aclDestroyTensor(dst);
    aclrtFree(df);
    aclrtFree(di);
    aclrtFree(dd);
}

/* The value of a float16 (finite). */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    double m = e ? ldexp(1024 + (h & 0x3ff), e - 25) : ldexp(h & 0x3ff, -24);
    return (h & 0x8000) ? -m : m;
}

/* Casts and a mixed-dtype add large enough to be split across the pool's threads (and, at 2 M
 * doubles = 16 MiB, written with streaming stores): int32 -> double -> int32, float -> float16,
 * double + int32. */
static void test_threaded_casts_and_mixed_add(void)
{
    enum { N = 1 << 21 };
    int32_t *i32 = (int32_t *)malloc(sizeof(int32_t) * N), *back = (int32_t *)malloc(sizeof(int32_t) * N);
    double *d = (double *)malloc(sizeof(double) * N);
    uint16_t *h = (uint16_t *)malloc(sizeof(uint16_t) * N);
    for (int i = 0; i < N; i++) i32[i] = (i % 2001) - 1000;
    void *di = dev_from(i32, sizeof(int32_t) * N), *dd = dev_from(d, sizeof(double) * N);
    void *db = dev_from(back, sizeof(int32_t) * N), *dh = dev_from(h, sizeof(uint16_t) * N);
    void *ds = dev_from(d, sizeof(double) * N);
    int64_t n[1] = { N }, s1[1] = { 1 };
    aclTensor *ti = view(di, ACL_INT32, 1, n, s1, 0, N), *td = view(dd, ACL_DOUBLE, 1, n, s1, 0, N);
    aclTensor *tb = view(db, ACL_INT32, 1, n, s1, 0, N), *tsum = view(ds, ACL_DOUBLE, 1, n, s1, 0, N);
    int64_t half[1] = { N / 2 }, s2[1] = { 2 };
    aclTensor *ti2 = view(di, ACL_INT32, 1, half, s2, 0, N), *th = view(dh, ACL_FLOAT16, 1, half, s1, 0, N);
    double one = 1.0;
    aclScalar *alpha = aclCreateScalar(&one, ACL_DOUBLE);
    RUN(aclnnCast, ti, ACL_DOUBLE, td);
    RUN(aclnnCast, td, ACL_INT32, tb);
    RUN(aclnnAdd, td, ti, alpha, tsum);
    RUN(aclnnCast, ti2, ACL_FLOAT16, th); /* strided int32 -> float16: exact for |x| <= 2048 */
    to_host(d, ds, sizeof(double) * N);
    to_host(back, db, sizeof(int32_t) * N);
    to_host(h, dh, sizeof(uint16_t) * (N / 2));
    int bad = 0;
    for (int i = 0; i < N && !bad; i++) bad = back[i] != i32[i] || d[i] != 2.0 * i32[i];
    EXPECT(!bad, "int32 -> double -> int32 or double + int32 wrong");
    for (int i = 0; i < N / 2 && !bad; i++) bad = half_value(h[i]) != (double)i32[2 * i];
    EXPECT(!bad, "strided int32 -> float16 wrong");
    aclDestroyScalar(alpha);
    aclTensor *ts[] = { ti, td, tb, tsum, ti2, th };
    for (aclTensor *t : ts) aclDestroyTensor(t);
    void *ds_[] = { di, dd, db, dh, ds };
    for (void *p : ds_) aclrtFree(p);
    free(i32);
    free(back);
    free(d);
    free(h);
}

static void test_reductions(void)
{
    /* x = [[1, 2, 3], [4, NaN, 6]]: sum over dim 1 = [6, NaN]; argmax over dim 1 = [2, 1]. */
    float x[6] = { 1, 2, 3, 4, NAN, 6 }, s[2] = { 0 };
    int64_t am[2] = { -1, -1 };
    void *dx = dev_from(x, sizeof x), *ds = dev_from(s, sizeof s), *da = dev_from(am, sizeof am);
    int64_t sh[2] = { 2, 3 }, st[2] = { 3, 1 }, n2[1] = { 2 }, s1[1] = { 1 }, dim1[1] = { 1 };
    aclTensor *tx = view(dx, ACL_FLOAT, 2, sh, st, 0, 6), *ts = view(ds, ACL_FLOAT, 1, n2, s1, 0, 2);
    aclTensor *ta = view(da, ACL_INT64, 1, n2, s1, 0, 2);
    aclIntArray *dims = aclCreateIntArray(dim1, 1);
    RUN(aclnnReduceSum, tx, dims, false, ACL_FLOAT, ts);
    RUN(aclnnArgMax, tx, 1, false, ta);
    to_host(s, ds, sizeof s);
    to_host(am, da, sizeof am);
    EXPECT(s[0] == 6.0f && isnan(s[1]), "sum %g %g", s[0], s[1]);
    EXPECT(am[0] == 2 && am[1] == 1, "argmax %lld %lld", (long long)am[0], (long long)am[1]);
    /* ReduceSum's dtype must equal out's. */
    uint64_t ws;
    aclOpExecutor *ex;
    EXPECT(aclnnReduceSumGetWorkspaceSize(tx, dims, false, ACL_DOUBLE, ts, &ws, &ex) == ACLNN_ERR_PARAM_INVALID,
           "dtype mismatch");
    aclDestroyIntArray(dims);
    aclDestroyTensor(tx);
    aclDestroyTensor(ts);
    aclDestroyTensor(ta);
    aclrtFree(dx);
    aclrtFree(ds);
    aclrtFree(da);
}

static void test_matmul(void)
{
    /* A batch of two 2x3 times one 3x2 (broadcast): [[1,2,3],[4,5,6]] @ [[1,0],[0,1],[1,1]]. */
    float a[12] = { 1, 2, 3, 4, 5, 6, -1, 0, 2, 0, 1, 0 }, b[6] = { 1, 0, 0, 1, 1, 1 }, c[8] = { 0 };
    void *dA = dev_from(a, sizeof a), *dB = dev_from(b, sizeof b), *dC = dev_from(c, sizeof c);
    int64_t sa[3] = { 2, 2, 3 }, ta[3] = { 6, 3, 1 }, sb[2] = { 3, 2 }, tb[2] = { 2, 1 }, sc[3] = { 2, 2, 2 },
            tc[3] = { 4, 2, 1 };
    aclTensor *A = view(dA, ACL_FLOAT, 3, sa, ta, 0, 12), *B = view(dB, ACL_FLOAT, 2, sb, tb, 0, 6);
    aclTensor *Cm = view(dC, ACL_FLOAT, 3, sc, tc, 0, 8);
    RUN(aclnnMatmul, A, B, Cm, 0);
    to_host(c, dC, sizeof c);
    const float want[8] = { 4, 5, 10, 11, 1, 2, 0, 1 };
    for (int i = 0; i < 8; i++) EXPECT(c[i] == want[i], "matmul[%d] = %g, want %g", i, c[i], want[i]);
    uint64_t ws;
    aclOpExecutor *ex;
    EXPECT(aclnnMatmulGetWorkspaceSize(A, A, Cm, 0, &ws, &ex) == ACLNN_ERR_PARAM_INVALID, "K mismatch");
    EXPECT(aclnnMatmulGetWorkspaceSize(A, B, Cm, 9, &ws, &ex) == ACLNN_ERR_PARAM_INVALID, "bad cubeMathType");
    aclDestroyTensor(A);
    aclDestroyTensor(B);
    aclDestroyTensor(Cm);
    aclrtFree(dA);
    aclrtFree(dB);
    aclrtFree(dC);
}

/* Products with 9 to 16 columns (npusim's own vector kernel): x (M, K) @ c.T, c (N, K) read
 * through transposed strides, small integers so that every sum is exact. M = 1797 splits the
 * rows across the pool; the others leave rows past the kernel's blocks of 6 (N = 11, 12) or
 * 8 rows, and K past its steps of 8 k, or less than one step. */
static void check_narrow(int64_t M, int64_t K, int64_t N)
{
    size_t nx = (size_t)(M * K), nc = (size_t)(N * K), no = (size_t)(M * N);
    float *x = (float *)malloc(nx * sizeof(float)), *c = (float *)malloc(nc * sizeof(float));
    float *o = (float *)calloc(no, sizeof(float));
    for (size_t i = 0; i < nx; i++) x[i] = (float)((int)(i * 7 % 13) - 6);
    for (size_t i = 0; i < nc; i++) c[i] = (float)((int)(i * 5 % 11) - 5);
    void *dx = dev_from(x, nx * sizeof(float)), *dc = dev_from(c, nc * sizeof(float)), *d_o = dev_from(o, no * sizeof(float));
    int64_t sx[2] = { M, K }, tx[2] = { K, 1 }, sc[2] = { K, N }, tc[2] = { 1, K }, so[2] = { M, N }, to[2] = { N, 1 };
    aclTensor *X = view(dx, ACL_FLOAT, 2, sx, tx, 0, M * K), *C = view(dc, ACL_FLOAT, 2, sc, tc, 0, N * K);
    aclTensor *O = view(d_o, ACL_FLOAT, 2, so, to, 0, M * N);
    RUN(aclnnMatmul, X, C, O, 0);
    to_host(o, d_o, no * sizeof(float));
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double want = 0;
            for (int64_t k = 0; k < K; k++) want += (double)x[m * K + k] * c[n * K + k];
            EXPECT(o[m * N + n] == (float)want, "narrow %lldx%lldx%lld [%lld,%lld] = %g, want %g", (long long)M,
                   (long long)K, (long long)N, (long long)m, (long long)n, o[m * N + n], want);
        }
    aclDestroyTensor(X);
    aclDestroyTensor(C);
    aclDestroyTensor(O);
    aclrtFree(dx);
    aclrtFree(dc);
    aclrtFree(d_o);
    free(x);
    free(c);
    free(o);
}

static void test_matmul_narrow(void)
{
    check_narrow(1797, 64, 10);
    check_narrow(13, 7, 11);
    check_narrow(9, 300, 16);
    check_narrow(30, 8, 9);
    check_narrow(13, 12, 12);
    check_narrow(11, 15, 14);
    check_narrow(6, 3, 13);
}

static void test_masked_select_and_index_errors(void)
{
    int32_t x[5] = { 10, 11, 12, 13, 14 }, out[5] = { 0 };
    uint8_t mask[5] = { 1, 0, 1, 1, 0 };
    void *dx = dev_from(x, sizeof x), *dm = dev_from(mask, sizeof mask), *dout = dev_from(out, sizeof out);
    int64_t n5[1] = { 5 }, s1[1] = { 1 };
    aclTensor *tx = view(dx, ACL_INT32, 1, n5, s1, 0, 5), *tm = view(dm, ACL_BOOL, 1, n5, s1, 0, 5);
    aclTensor *to = view(dout, ACL_INT32, 1, n5, s1, 0, 5);
    RUN(aclnnMaskedSelect, tx, tm, to);
    int64_t *shape = NULL;
    uint64_t nd = 0;
    EXPECT(aclGetViewShape(to, &shape, &nd) == 0 && nd == 1 && shape[0] == 3, "masked_select shape");
    free(shape);
    to_host(out, dout, sizeof out);
    EXPECT(out[0] == 10 && out[1] == 12 && out[2] == 13, "masked_select values %d %d %d", out[0], out[1], out[2]);

    /* An index out of range is reported by the stream's next synchronisation. */
    int64_t idx[2] = { 1, 7 };
    void *di = dev_from(idx, sizeof idx);
    int64_t n2[1] = { 2 };
    aclTensor *ti = view(di, ACL_INT64, 1, n2, s1, 0, 2), *tsel = view(dout, ACL_INT32, 1, n2, s1, 0, 5);
    uint64_t ws;
    aclOpExecutor *ex;
    EXPECT(aclnnIndexSelectGetWorkspaceSize(tx, 0, ti, tsel, &ws, &ex) == 0, "%s", aclGetRecentErrMsg());
    EXPECT(aclnnIndexSelect(NULL, ws, ex, stream) == 0, "%s", aclGetRecentErrMsg());
    EXPECT(aclrtSynchronizeStream(stream) != ACL_SUCCESS, "out-of-range index not reported");
    aclTensor *ts[] = { tx, tm, to, ti, tsel };
    for (int i = 0; i < 5; i++) aclDestroyTensor(ts[i]);
    aclrtFree(dx);
    aclrtFree(dm);
    aclrtFree(dout);
    aclrtFree(di);
}

/* Rounding half to even, sign keeping NaN, and All/Any including an empty reduction. */
static void test_round_sign_all_any(void)
{
    float x[6] = { 0.5f, 1.5f, 2.5f, -0.5f, -1.7f, NAN }, r[6], sg[6];
    void *dx = dev_from(x, sizeof x), *dr = dev_from(x, sizeof x), *ds = dev_from(x, sizeof x);
    int64_t n6[1] = { 6 }, s1[1] = { 1 };
    aclTensor *tx = view(dx, ACL_FLOAT, 1, n6, s1, 0, 6), *tr = view(dr, ACL_FLOAT, 1, n6, s1, 0, 6);
    aclTensor *ts = view(ds, ACL_FLOAT, 1, n6, s1, 0, 6);
    RUN(aclnnRound, tx, tr);
    RUN(aclnnSign, tx, ts);
    to_host(r, dr, sizeof r);
    to_host(sg, ds, sizeof sg);
    const float wr[5] = { 0, 2, 2, -0.0f, -2 }, ws[5] = { 1, 1, 1, -1, -1 };
    for (int i = 0; i < 5; i++) {
        EXPECT(r[i] == wr[i], "round(%g) = %g, want %g", x[i], r[i], wr[i]);
        EXPECT(sg[i] == ws[i], "sign(%g) = %g, want %g", x[i], sg[i], ws[i]);
    }
    EXPECT(isnan(r[5]) && isnan(sg[5]), "round/sign of NaN: %g %g", r[5], sg[5]);

    /* x as 2x3: [[0.5, 1.5, 2.5], [-0.5, -1.7, NaN]] is all non-zero; a 0x3 view is empty. */
    uint8_t all = 0, any = 1, cols[3] = { 0, 0, 0 };
    void *da = dev_from(&all, 1), *dn = dev_from(&any, 1), *dc = dev_from(cols, 3);
    int64_t sh[2] = { 2, 3 }, st[2] = { 3, 1 }, empty[2] = { 0, 3 }, n3[1] = { 3 };
    aclTensor *t2 = view(dx, ACL_FLOAT, 2, sh, st, 0, 6), *te = view(dx, ACL_FLOAT, 2, empty, st, 0, 6);
    aclTensor *ta = view(da, ACL_BOOL, 0, NULL, NULL, 0, 1), *tn = view(dn, ACL_BOOL, 0, NULL, NULL, 0, 1);
    aclTensor *tc = view(dc, ACL_BOOL, 1, n3, s1, 0, 3);
    aclIntArray *every = aclCreateIntArray(NULL, 0);
    int64_t d0[1] = { 0 };
    aclIntArray *dim0 = aclCreateIntArray(d0, 1);
    RUN(aclnnAll, t2, every, false, ta);
    RUN(aclnnAny, te, every, false, tn);
    RUN(aclnnAll, te, dim0, false, tc);
    to_host(&all, da, 1);
    to_host(&any, dn, 1);
    to_host(cols, dc, 3);
    EXPECT(all == 1, "all of non-zero values");
    EXPECT(any == 0, "any of nothing is false");
    EXPECT(cols[0] == 1 && cols[1] == 1 && cols[2] == 1, "all over an empty dim is true");
    aclDestroyIntArray(every);
    aclDestroyIntArray(dim0);
    aclTensor *ts_[] = { tx, tr, ts, t2, te, ta, tn, tc };
    for (int i = 0; i < 8; i++) aclDestroyTensor(ts_[i]);
    void *ds_[] = { dx, dr, ds, da, dn, dc };
    for (int i = 0; i < 6; i++) aclrtFree(ds_[i]);
}

/* Clamp of int32 with int bounds, and running sums of int8 along the columns of a 2x3 into int64. */
static void test_clamp_cumsum(void)
{
    int32_t x[6] = { -9, -1, 0, 3, 8, 5 }, c[6];
    void *dx = dev_from(x, sizeof x), *dc = dev_from(x, sizeof x);
    int64_t n6[1] = { 6 }, s1[1] = { 1 }, lo = -2, hi = 4;
    aclTensor *tx = view(dx, ACL_INT32, 1, n6, s1, 0, 6), *tc = view(dc, ACL_INT32, 1, n6, s1, 0, 6);
    aclScalar *slo = aclCreateScalar(&lo, ACL_INT64), *shi = aclCreateScalar(&hi, ACL_INT64);
    RUN(aclnnClamp, tx, slo, shi, tc);
    to_host(c, dc, sizeof c);
    const int32_t wc[6] = { -2, -1, 0, 3, 4, 4 };
    for (int i = 0; i < 6; i++) EXPECT(c[i] == wc[i], "clamp[%d] = %d, want %d", i, c[i], wc[i]);

    int8_t m[6] = { 100, 100, -3, 100, 27, 4 }; /* [[100, 100, -3], [100, 27, 4]] */
    int64_t cs[6];
    void *dm = dev_from(m, sizeof m), *dcs = dev_from(cs, sizeof cs);
    int64_t sh[2] = { 2, 3 }, st[2] = { 3, 1 };
    aclTensor *tm = view(dm, ACL_INT8, 2, sh, st, 0, 6), *tcs = view(dcs, ACL_INT64, 2, sh, st, 0, 6);
    RUN(aclnnCumsum, tm, 0, ACL_INT64, tcs);
    to_host(cs, dcs, sizeof cs);
    const int64_t wcs[6] = { 100, 100, -3, 200, 127, 1 }; /* no int8 overflow: summed in int64 */
    for (int i = 0; i < 6; i++) EXPECT(cs[i] == wcs[i], "cumsum[%d] = %lld, want %lld", i, (long long)cs[i], (long long)wcs[i]);
    aclDestroyScalar(slo);
    aclDestroyScalar(shi);
    aclTensor *ts[] = { tx, tc, tm, tcs };
    for (int i = 0; i < 4; i++) aclDestroyTensor(ts[i]);
    void *ds[] = { dx, dc, dm, dcs };
    for (int i = 0; i < 4; i++) aclrtFree(ds[i]);
}

/* Stable descending sort with NaN first (NaN is the largest value, as in torch). */
static void test_sort(void)
{
    float x[6] = { 2, NAN, -1, 2, 7, -1 }, v[6];
    int64_t idx[6];
    void *dx = dev_from(x, sizeof x), *dv = dev_from(x, sizeof x), *di = dev_from(idx, sizeof idx);
    int64_t n6[1] = { 6 }, s1[1] = { 1 };
    aclTensor *tx = view(dx, ACL_FLOAT, 1, n6, s1, 0, 6), *tv = view(dv, ACL_FLOAT, 1, n6, s1, 0, 6);
    aclTensor *ti = view(di, ACL_INT64, 1, n6, s1, 0, 6);
    RUN(aclnnSort, tx, true, 0, true, tv, ti);
    to_host(v, dv, sizeof v);
    to_host(idx, di, sizeof idx);
    const int64_t want[6] = { 1, 4, 0, 3, 2, 5 };
    for (int i = 0; i < 6; i++) EXPECT(idx[i] == want[i], "sort index[%d] = %lld, want %lld", i, (long long)idx[i],
                                       (long long)want[i]);
    EXPECT(isnan(v[0]) && v[1] == 7 && v[2] == 2 && v[5] == -1, "sorted values %g %g %g %g", v[0], v[1], v[2], v[5]);
    aclDestroyTensor(tx);
    aclDestroyTensor(tv);
    aclDestroyTensor(ti);
    aclrtFree(dx);
    aclrtFree(dv);
    aclrtFree(di);
}

/* x = [1, 2, 3, 4]: product 24, unbiased variance 5/3. */
static void test_prod_var(void)
{
    float x[4] = { 1, 2, 3, 4 }, prod = 0, var = 0;
    void *dx = dev_from(x, sizeof x), *dp = dev_from(&prod, 4), *dv = dev_from(&var, 4);
    int64_t n4[1] = { 4 }, s1[1] = { 1 };
    aclTensor *tx = view(dx, ACL_FLOAT, 1, n4, s1, 0, 4);
    aclTensor *tp = view(dp, ACL_FLOAT, 0, NULL, NULL, 0, 1), *tv = view(dv, ACL_FLOAT, 0, NULL, NULL, 0, 1);
    aclIntArray *all = aclCreateIntArray(NULL, 0);
    RUN(aclnnProd, tx, ACL_FLOAT, tp);
    RUN(aclnnVar, tx, all, true, false, tv);
    to_host(&prod, dp, 4);
    to_host(&var, dv, 4);
    EXPECT(prod == 24.0f, "prod %g", prod);
    EXPECT(fabsf(var - 5.0f / 3.0f) < 1e-6f, "var %g", var);
    aclDestroyIntArray(all);
    aclDestroyTensor(tx);
    aclDestroyTensor(tp);
    aclDestroyTensor(tv);
    aclrtFree(dx);
    aclrtFree(dp);
    aclrtFree(dv);
}

/* Inputs large enough to be split across the CPU pool (and, under TSan, checked for races):
 * x[i] = i % 7 as a 600 x 1000 matrix. Row sums, column sums and x + x have closed forms. */
static void test_parallel_paths(void)
{
    enum { R = 600, C = 1000 };
    float *x = (float *)malloc(sizeof(float) * R * C), *y = (float *)malloc(sizeof(float) * R * C);
    float *rows = (float *)malloc(sizeof(float) * R), *cols = (float *)malloc(sizeof(float) * C), total = 0;
    for (int i = 0; i < R * C; i++) x[i] = (float)(i % 7);
    void *dx = dev_from(x, sizeof(float) * R * C), *dy = dev_from(y, sizeof(float) * R * C);
    void *dr = dev_from(rows, sizeof(float) * R), *dc = dev_from(cols, sizeof(float) * C);
    void *dt = dev_from(&total, sizeof total);
    int64_t sh[2] = { R, C }, st[2] = { C, 1 }, nr[1] = { R }, nc[1] = { C }, s1[1] = { 1 };
    aclTensor *tx = view(dx, ACL_FLOAT, 2, sh, st, 0, R * C), *ty = view(dy, ACL_FLOAT, 2, sh, st, 0, R * C);
    aclTensor *tr = view(dr, ACL_FLOAT, 1, nr, s1, 0, R), *tc = view(dc, ACL_FLOAT, 1, nc, s1, 0, C);
    aclTensor *tt = view(dt, ACL_FLOAT, 0, NULL, NULL, 0, 1);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    int64_t d0[1] = { 0 }, d1[1] = { 1 };
    aclIntArray *dim0 = aclCreateIntArray(d0, 1), *dim1 = aclCreateIntArray(d1, 1), *all = aclCreateIntArray(NULL, 0);
    RUN(aclnnAdd, tx, tx, alpha, ty);
    RUN(aclnnReduceSum, tx, dim1, false, ACL_FLOAT, tr);
    RUN(aclnnReduceSum, tx, dim0, false, ACL_FLOAT, tc);
    RUN(aclnnReduceSum, tx, all, false, ACL_FLOAT, tt);
    to_host(y, dy, sizeof(float) * R * C);
    to_host(rows, dr, sizeof(float) * R);
    to_host(cols, dc, sizeof(float) * C);
    to_host(&total, dt, sizeof total);
    int bad = 0;
    for (int i = 0; i < R * C && !bad; i++) bad = y[i] != 2.0f * (float)(i % 7);
    EXPECT(!bad, "x + x wrong");
    for (int r = 0; r < R; r++) {
        double want = 0;
        for (int c = 0; c < C; c++) want += (r * C + c) % 7;
        if (rows[r] != (float)want) {
            EXPECT(rows[r] == (float)want, "row %d sum %g, want %g", r, rows[r], want);
            break;
        }
    }
    for (int c = 0; c < C; c++) {
        double want = 0;
        for (int r = 0; r < R; r++) want += (r * C + c) % 7;
        if (cols[c] != (float)want) {
            EXPECT(cols[c] == (float)want, "column %d sum %g, want %g", c, cols[c], want);
            break;
        }
    }
    double want_total = 0;
    for (int i = 0; i < R * C; i++) want_total += i % 7;
    EXPECT(total == (float)want_total, "total %g, want %g", total, want_total);
    aclDestroyIntArray(dim0);
    aclDestroyIntArray(dim1);
    aclDestroyIntArray(all);
    aclDestroyScalar(alpha);
    aclTensor *ts[] = { tx, ty, tr, tc, tt };
    for (int i = 0; i < 5; i++) aclDestroyTensor(ts[i]);
    void *ds[] = { dx, dy, dr, dc, dt };
    for (int i = 0; i < 5; i++) aclrtFree(ds[i]);
    free(x);
    free(y);
    free(rows);
    free(cols);
}

int main(void)
{
    if (aclnn_test_setup() != 0) return 1;
    test_strided_broadcast_add();
    test_float16_and_int_division();
    test_cast_and_copy();
    test_threaded_casts_and_mixed_add();
    test_reductions();
    test_matmul();
    test_matmul_narrow();
    test_masked_select_and_index_errors();
    test_parallel_paths();
    test_round_sign_all_any();
    test_clamp_cumsum();
    test_sort();
    test_prod_var();
    return aclnn_test_finish("aclnn_kernels");
}
