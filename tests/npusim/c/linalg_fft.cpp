/* npusim's linear-algebra operators and libraries against hand-computed values: aclnnInverse,
 * aclnnSlogdet, aclnnLinalgCholesky, aclnnLinalgQr, aclnnSvd on small matrices (one of them a
 * transposed view), aclnnLinalgCross (broadcast) and aclnnLinalgVectorNorm, aclfft C2C / R2C / C2R / 2-D plans (a plan destroyed with its transform still
 * queued), and the ops-blas batched LU. Prints "linalg_fft ok" and exits 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/op_errno.h"
#include "acl/acl.h"
#include "aclnn_check.h"
#include "aclnnop/aclnn_inverse.h"
#include "aclnnop/aclnn_linalg_cholesky.h"
#include "aclnnop/aclnn_linalg_cross.h"
#include "aclnnop/aclnn_linalg_vector_norm.h"
#include "aclnnop/aclnn_linalg_qr.h"
#include "aclnnop/aclnn_slogdet.h"
#include "aclnnop/aclnn_svd.h"
#include "cann_ops_blas.h"
#include "cann_ops_fft.h"

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-5)

static aclTensor *matrix(void *dev, aclDataType dt, int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t storage)
{
    int64_t shape[2] = { rows, cols }, strides[2] = { rs, cs };
    return aclCreateTensor(shape, 2, dt, strides, 0, ACL_FORMAT_ND, &storage, 1, dev);
}

static void test_inverse_slogdet(void)
{
    /* A = [[4, 7], [2, 6]] given as the transposed view of [[4, 2], [7, 6]]: det 10,
     * A^-1 = [[0.6, -0.7], [-0.2, 0.4]]. */
    float stored[4] = { 4, 2, 7, 6 }, inv[4] = { 0 }, sign = 0, logabs = 0;
    void *da = dev_from(stored, sizeof stored), *di = dev_from(inv, sizeof inv);
    void *ds = dev_from(&sign, 4), *dl = dev_from(&logabs, 4);
    aclTensor *a = matrix(da, ACL_FLOAT, 2, 2, 1, 2, 4), *out = matrix(di, ACL_FLOAT, 2, 2, 2, 1, 4);
    int64_t storage = 1;
    aclTensor *ts = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &storage, 1, ds);
    aclTensor *tl = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &storage, 1, dl);
    RUN(aclnnInverse, a, out);
    RUN(aclnnSlogdet, a, ts, tl);
    to_host(inv, di, sizeof inv);
    to_host(&sign, ds, 4);
    to_host(&logabs, dl, 4);
    const float want[4] = { 0.6f, -0.7f, -0.2f, 0.4f };
    for (int i = 0; i < 4; i++) EXPECT(NEAR(inv[i], want[i]), "inverse[%d] = %g, want %g", i, inv[i], want[i]);
    EXPECT(sign == 1.0f && NEAR(logabs, log(10.0)), "slogdet %g %g", sign, logabs);
    /* A complex tensor is not a documented aclnnInverse dtype. */
    aclTensor *c = matrix(da, ACL_COMPLEX64, 1, 1, 1, 1, 2);
    uint64_t ws;
    aclOpExecutor *ex;
    EXPECT(aclnnInverseGetWorkspaceSize(c, c, &ws, &ex) == ACLNN_ERR_PARAM_INVALID, "complex inverse accepted");
    aclDestroyTensor(c);
    aclDestroyTensor(a);
    aclDestroyTensor(out);
    aclDestroyTensor(ts);
    aclDestroyTensor(tl);
    aclrtFree(da);
    aclrtFree(di);
    aclrtFree(ds);
    aclrtFree(dl);
}

static void test_cholesky_qr_svd(void)
{
    /* [[4, 2], [2, 5]] = L L^T with L = [[2, 0], [1, 2]]; the non-positive-definite
     * [[1, 2], [2, 1]] gives NaN. diag(3, 2) has singular values 3, 2 and R = +-diag. */
    float spd[8] = { 4, 2, 2, 5, 1, 2, 2, 1 }, l[8] = { 0 };
    void *ds = dev_from(spd, sizeof spd), *dl = dev_from(l, sizeof l);
    int64_t shape[3] = { 2, 2, 2 }, strides[3] = { 4, 2, 1 }, storage = 8;
    aclTensor *a = aclCreateTensor(shape, 3, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &storage, 1, ds);
    aclTensor *out = aclCreateTensor(shape, 3, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &storage, 1, dl);
    RUN(aclnnLinalgCholesky, a, false, out);
    to_host(l, dl, sizeof l);
    EXPECT(l[0] == 2 && l[1] == 0 && l[2] == 1 && l[3] == 2, "cholesky %g %g %g %g", l[0], l[1], l[2], l[3]);
    EXPECT(isnan(l[4]) && isnan(l[7]), "not positive definite: %g %g", l[4], l[7]);
    aclDestroyTensor(a);
    aclDestroyTensor(out);

    float d[4] = { 3, 0, 0, 2 }, q[4], r[4], s[2], u[4], v[4];
    void *dd = dev_from(d, 16), *dq = dev_from(d, 16), *dr = dev_from(d, 16), *dsig = dev_from(s, 8);
    void *du = dev_from(d, 16), *dv = dev_from(d, 16);
    aclTensor *td = matrix(dd, ACL_FLOAT, 2, 2, 2, 1, 4), *tq = matrix(dq, ACL_FLOAT, 2, 2, 2, 1, 4);
    aclTensor *tr = matrix(dr, ACL_FLOAT, 2, 2, 2, 1, 4), *tu = matrix(du, ACL_FLOAT, 2, 2, 2, 1, 4);
    aclTensor *tv = matrix(dv, ACL_FLOAT, 2, 2, 2, 1, 4);
    int64_t two = 2, one = 1;
    aclTensor *tsig = aclCreateTensor(&two, 1, ACL_FLOAT, &one, 0, ACL_FORMAT_ND, &two, 1, dsig);
    RUN(aclnnLinalgQr, td, 0, tq, tr);
    RUN(aclnnSvd, td, true, true, tsig, tu, tv);
    to_host(q, dq, 16);
    to_host(r, dr, 16);
    to_host(s, dsig, 8);
    to_host(u, du, 16);
    to_host(v, dv, 16);
    EXPECT(NEAR(fabs(r[0]), 3) && NEAR(fabs(r[3]), 2) && r[2] == 0 && NEAR(r[1], 0), "qr R %g %g %g %g", r[0], r[1],
           r[2], r[3]);
    EXPECT(NEAR(q[0] * r[0], 3) && NEAR(q[3] * r[3], 2), "qr Q R");
    EXPECT(NEAR(s[0], 3) && NEAR(s[1], 2), "svd sigma %g %g", s[0], s[1]);
    EXPECT(NEAR(u[0] * s[0] * v[0], 3) && NEAR(u[3] * s[1] * v[3], 2), "U S V^T");
    aclTensor *all[] = { td, tq, tr, tu, tv, tsig };
    for (int i = 0; i < 6; i++) aclDestroyTensor(all[i]);
    void *bufs[] = { ds, dl, dd, dq, dr, dsig, du, dv };
    for (int i = 0; i < 8; i++) aclrtFree(bufs[i]);
}

static void test_cross_and_norm(void)
{
    /* rows e1, e2 of int32 crossed with the broadcast e2: [0, 0, 1] and 0; the row norms of
     * [[3, 4, 0], [0, 0, -2]] are 5 and 2 (ord 2), 4 and 2 (ord inf). */
    int32_t a[6] = { 1, 0, 0, 0, 1, 0 }, e2[3] = { 0, 1, 0 }, c[6] = { 9, 9, 9, 9, 9, 9 };
    float m[6] = { 3, 4, 0, 0, 0, -2 }, n[2] = { 0, 0 };
    void *da = dev_from(a, sizeof a), *de = dev_from(e2, sizeof e2), *dc = dev_from(c, sizeof c);
    void *dm = dev_from(m, sizeof m), *dn = dev_from(n, sizeof n);
    int64_t three = 3, one = 1, two = 2;
    aclTensor *ta = matrix(da, ACL_INT32, 2, 3, 3, 1, 6), *tc = matrix(dc, ACL_INT32, 2, 3, 3, 1, 6);
    aclTensor *te = aclCreateTensor(&three, 1, ACL_INT32, &one, 0, ACL_FORMAT_ND, &three, 1, de);
    RUN(aclnnLinalgCross, ta, te, -1, tc);
    to_host(c, dc, sizeof c);
    const int32_t want[6] = { 0, 0, 1, 0, 0, 0 };
    for (int i = 0; i < 6; i++) EXPECT(c[i] == want[i], "cross[%d] = %d, want %d", i, c[i], want[i]);
    aclTensor *tm = matrix(dm, ACL_FLOAT, 2, 3, 3, 1, 6);
    aclTensor *tn = aclCreateTensor(&two, 1, ACL_FLOAT, &one, 0, ACL_FORMAT_ND, &two, 1, dn);
    int64_t last = 1;
    aclIntArray *dims = aclCreateIntArray(&last, 1);
    float ords[2] = { 2.0f, INFINITY }, wants[2][2] = { { 5, 2 }, { 4, 2 } };
    for (int k = 0; k < 2; k++) {
        aclScalar *ord = aclCreateScalar(&ords[k], ACL_FLOAT);
        RUN(aclnnLinalgVectorNorm, tm, ord, dims, false, ACL_FLOAT, tn);
        to_host(n, dn, sizeof n);
        EXPECT(NEAR(n[0], wants[k][0]) && NEAR(n[1], wants[k][1]), "norm ord %g: %g %g", ords[k], n[0], n[1]);
        aclDestroyScalar(ord);
    }
    aclDestroyIntArray(dims);
    aclTensor *all[] = { ta, tc, te, tm, tn };
    for (int i = 0; i < 5; i++) aclDestroyTensor(all[i]);
    void *bufs[] = { da, de, dc, dm, dn };
    for (int i = 0; i < 5; i++) aclrtFree(bufs[i]);
}

static void test_fft(void)
{
    /* x = [1, 2, 3, 4]: X = [10, -2+2i, -2, -2-2i]; 2-D transform of the 2x2 ones: [4, 0, 0, 0]. */
    float x[8] = { 1, 0, 2, 0, 3, 0, 4, 0 }, X[8] = { 0 }, real[4] = { 1, 2, 3, 4 }, half[6] = { 0 }, back[4] = { 0 };
    void *dx = dev_from(x, sizeof x), *dX = dev_from(X, sizeof X), *dr = dev_from(real, 16), *dh = dev_from(half, 24);
    void *db = dev_from(back, 16);
    aclfftHandle c2c = NULL, r2c = NULL, c2r = NULL, p2 = NULL;
    EXPECT(aclfftPlan1d(&c2c, 4, ACLFFT_C2C, 1, ACLFFT_HORIZONTAL) == ACLFFT_SUCCESS, "plan c2c");
    EXPECT(aclfftPlan1d(&r2c, 4, ACLFFT_R2C, 1, ACLFFT_HORIZONTAL) == ACLFFT_SUCCESS, "plan r2c");
    EXPECT(aclfftPlan1d(&c2r, 4, ACLFFT_C2R, 1, ACLFFT_HORIZONTAL) == ACLFFT_SUCCESS, "plan c2r");
    EXPECT(aclfftPlan2d(&p2, 1, 2, 2, ACLFFT_C2C) == ACLFFT_SUCCESS, "plan 2d");
    aclfftHandle plans[4] = { c2c, r2c, c2r, p2 };
    for (int i = 0; i < 4; i++) aclfftSetStream(plans[i], stream);
    EXPECT(aclfftExecC2C(c2c, (aclfftComplex*)dx, (aclfftComplex*)dX, ACLFFT_FORWARD) == 0, "exec c2c");
    EXPECT(aclfftExecR2C(r2c, (aclfftReal*)dr, (aclfftComplex*)dh) == 0, "exec r2c");
    EXPECT(aclfftExecC2R(c2r, (aclfftComplex*)dh, (aclfftReal*)db) == 0, "exec c2r");
    EXPECT(aclfftDestroy(c2r) == 0, "destroy with a queued transform");
    aclrtSynchronizeStream(stream);
    to_host(X, dX, sizeof X);
    to_host(half, dh, sizeof half);
    to_host(back, db, sizeof back);
    const float want[8] = { 10, 0, -2, 2, -2, 0, -2, -2 };
    for (int i = 0; i < 8; i++) EXPECT(NEAR(X[i], want[i]), "c2c[%d] = %g, want %g", i, X[i], want[i]);
    for (int i = 0; i < 6; i++) EXPECT(NEAR(half[i], want[i]), "r2c[%d] = %g, want %g", i, half[i], want[i]);
    for (int i = 0; i < 4; i++) EXPECT(NEAR(back[i], 4 * real[i]), "c2r[%d] = %g (unnormalised)", i, back[i]);
    float ones[8] = { 1, 0, 1, 0, 1, 0, 1, 0 }, o2[8];
    void *d1 = dev_from(ones, sizeof ones);
    EXPECT(aclfftExecC2C(p2, (aclfftComplex*)d1, (aclfftComplex*)d1, ACLFFT_FORWARD) == 0, "exec 2d in place");
    aclrtSynchronizeStream(stream);
    to_host(o2, d1, sizeof o2);
    EXPECT(o2[0] == 4 && o2[2] == 0 && o2[4] == 0 && o2[6] == 0, "2d %g %g %g %g", o2[0], o2[2], o2[4], o2[6]);
    EXPECT(aclfftExecC2C(c2c, (aclfftComplex *)x, (aclfftComplex*)dX, ACLFFT_FORWARD) == ACLFFT_INVALID_VALUE, "host pointer");
    aclfftDestroy(c2c);
    aclfftDestroy(r2c);
    aclfftDestroy(p2);
    EXPECT(aclfftDestroy(p2) == ACLFFT_INVALID_PLAN, "destroyed twice");
    void *bufs[] = { dx, dX, dr, dh, db, d1 };
    for (int i = 0; i < 6; i++) aclrtFree(bufs[i]);
}

/* 19 rows (a full group of lanes and a partial one on every instruction set) of length N
 * (64; 256, whose rows also go through the register transposes fused with the first and last
 * stages; 1024, whose stages take radix 8): C2C rows and R2C against the DFT computed in
 * double, C2R of that spectrum back to N x. */
template <int N> static void test_fft_rows(void)
{
    enum { ROWS = 19, H = N / 2 + 1 };
    static float x[ROWS][N], c[ROWS][2 * N], spec[ROWS][2 * H], cspec[ROWS][2 * N], back[ROWS][N];
    for (int r = 0; r < ROWS; r++)
        for (int k = 0; k < N; k++) x[r][k] = (float)sin(0.37 * (r + 1) * k + r) + (float)(k % 7) / 7;
    for (int r = 0; r < ROWS; r++)
        for (int k = 0; k < N; k++) c[r][2 * k] = x[r][k], c[r][2 * k + 1] = x[r][(k + 5) % N];
    void *dx = dev_from(x, sizeof x), *dc = dev_from(c, sizeof c), *ds = dev_from(spec, sizeof spec);
    void *dcs = dev_from(cspec, sizeof cspec), *db = dev_from(back, sizeof back);
    aclfftHandle pc = NULL, pr = NULL, pb = NULL;
    EXPECT(aclfftPlan1d(&pc, N, ACLFFT_C2C, ROWS, ACLFFT_HORIZONTAL) == 0, "plan rows c2c");
    EXPECT(aclfftPlan1d(&pr, N, ACLFFT_R2C, ROWS, ACLFFT_HORIZONTAL) == 0, "plan rows r2c");
    EXPECT(aclfftPlan1d(&pb, N, ACLFFT_C2R, ROWS, ACLFFT_HORIZONTAL) == 0, "plan rows c2r");
    aclfftHandle plans[3] = { pc, pr, pb };
    for (int i = 0; i < 3; i++) aclfftSetStream(plans[i], stream);
    EXPECT(aclfftExecC2C(pc, (aclfftComplex*)dc, (aclfftComplex*)dcs, ACLFFT_FORWARD) == 0, "exec rows c2c");
    EXPECT(aclfftExecR2C(pr, (aclfftReal*)dx, (aclfftComplex*)ds) == 0, "exec rows r2c");
    EXPECT(aclfftExecC2R(pb, (aclfftComplex*)ds, (aclfftReal*)db) == 0, "exec rows c2r");
    aclrtSynchronizeStream(stream);
    to_host(spec, ds, sizeof spec);
    to_host(cspec, dcs, sizeof cspec);
    to_host(back, db, sizeof back);
    double worst = 0;
    static double cos_of[N], sin_of[N];
    for (int k = 0; k < N; k++) {
        cos_of[k] = cos(-2 * 3.14159265358979323846 * k / N);
        sin_of[k] = sin(-2 * 3.14159265358979323846 * k / N);
    }
    for (int r = 0; r < ROWS; r++)
        for (int f = 0; f < N; f++) {
            double re = 0, im = 0, cre = 0, cim = 0;
            for (int k = 0; k < N; k++) {
                double ca = cos_of[(f * k) % N], sa = sin_of[(f * k) % N];
                re += x[r][k] * ca, im += x[r][k] * sa;
                cre += c[r][2 * k] * ca - c[r][2 * k + 1] * sa;
                cim += c[r][2 * k] * sa + c[r][2 * k + 1] * ca;
            }
            worst = fmax(worst, hypot(cspec[r][2 * f] - cre, cspec[r][2 * f + 1] - cim));
            if (f < H) worst = fmax(worst, hypot(spec[r][2 * f] - re, spec[r][2 * f + 1] - im));
        }
    for (int r = 0; r < ROWS; r++)
        for (int k = 0; k < N; k++) worst = fmax(worst, fabs(back[r][k] / N - x[r][k]));
    EXPECT(worst < 2e-6 * N, "batched rows of %d: max error %g", N, worst); /* the spectrum grows with N */
    for (int i = 0; i < 3; i++) aclfftDestroy(plans[i]);
    void *bufs[] = { dx, dc, ds, dcs, db };
    for (int i = 0; i < 5; i++) aclrtFree(bufs[i]);
}

static void test_blas_lu(void)
{
    /* Column-major A = [[0, 1], [2, 3]] (needs a row exchange), b = [1, 5]: x = [1, 1]. */
    float a[4] = { 0, 2, 1, 3 }, b[2] = { 1, 5 }, x[2];
    void *da = dev_from(a, sizeof a), *db = dev_from(b, sizeof b);
    void *pa = dev_from(&da, sizeof da), *pb = dev_from(&db, sizeof db);
    int zeros[3] = { 0, 0, 0 }, info_host = 7, info = 7;
    void *dpiv = dev_from(zeros, 8), *dinfo = dev_from(zeros, 4);
    aclblasHandle_t h = NULL;
    EXPECT(aclblasCreate(&h) == 0, "create");
    EXPECT(aclblasSetStream(h, stream) == 0, "set stream");
    EXPECT(aclblasSgetrfBatched(h, 2, (float* const*)pa, 2, (int*)dpiv, (int*)dinfo, 1) == 0, "getrf: %s", aclGetRecentErrMsg());
    EXPECT(aclblasSgetrsBatched(h, ACLBLAS_OP_N, 2, 1, (const float* const*)pa, 2, (const int*)dpiv, (float* const*)pb, 2, &info_host, 1) == 0, "getrs: %s",
           aclGetRecentErrMsg());
    aclrtSynchronizeStream(stream);
    to_host(x, db, sizeof x);
    to_host(&info, dinfo, 4);
    EXPECT(info == 0 && info_host == 0, "info %d %d", info, info_host);
    EXPECT(NEAR(x[0], 1) && NEAR(x[1], 1), "solution %g %g", x[0], x[1]);
    EXPECT(aclblasDestroy(h) == 0, "destroy");
    void *bufs[] = { da, db, pa, pb, dpiv, dinfo };
    for (int i = 0; i < 6; i++) aclrtFree(bufs[i]);
}

int main(void)
{
    if (aclnn_test_setup() != 0) return 1;
    test_inverse_slogdet();
    test_cholesky_qr_svd();
    test_cross_and_norm();
    test_fft();
    test_fft_rows<64>();
    test_fft_rows<256>();
    test_fft_rows<1024>();
    test_blas_lu();
    return aclnn_test_finish("linalg_fft");
}
