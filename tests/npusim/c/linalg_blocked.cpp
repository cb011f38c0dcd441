/* npusim's blocked float32 factorisations at sizes where their steps run on the pool (a look-ahead
 * panel factorised while the other columns are updated in chunks): the ops-blas LU
 * (aclblasSgetrfBatched / SgetrsBatched) of a 300 x 300 matrix against a known solution and the
 * info of a singular one (its zero pivot in a late panel), aclnnLinalgCholesky of a 300 x 300
 * matrix (L L^T = A) and aclnnLinalgQr of a 300 x 200 one (Q^T Q = I, Q R = A), the Cholesky and
 * the LU queued on two streams at once. Prints "linalg_blocked ok" and exits 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/op_errno.h"
#include "acl/acl.h"
#include "aclnn_check.h"
#include "aclnnop/aclnn_linalg_cholesky.h"
#include "aclnnop/aclnn_linalg_qr.h"
#include "cann_ops_blas.h"

enum { N = 300, QN = 200 };

/* Deterministic values in [-1, 1) (a linear congruential generator). */
static float next_value(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / (float)(1u << 23) - 1.0f;
}

static aclTensor *matrix(void *dev, int64_t rows, int64_t cols)
{
    int64_t shape[2] = { rows, cols }, strides[2] = { cols, 1 }, storage = rows * cols;
    return aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &storage, 1, dev);
}

/* Column-major A (N x N, rows exchanged by the pivoting) with x = (1, 2, 3, 1, 2, 3, ...) and
 * b = A x; column `zero` of A is zeroed when >= 0 (an exact zero pivot at that step). */
static void lu_problem(float *a, float *b, int zero)
{
    unsigned state = 7;
    for (int i = 0; i < N * N; i++) a[i] = next_value(&state);
    if (zero >= 0) memset(a + (size_t)zero * N, 0, sizeof(float) * N);
    for (int r = 0; r < N; r++) {
        double sum = 0;
        for (int c = 0; c < N; c++) sum += (double)a[(size_t)c * N + r] * (c % 3 + 1);
        b[r] = (float)sum;
    }
}

/* Queues the LU of column-major `a` and the solve of `b` on `on`; the device buffers in bufs. */
static void lu_queue(aclblasHandle_t h, aclrtStream on, void **bufs, const float *a, const float *b)
{
    bufs[0] = dev_from(a, sizeof(float) * N * N);
    bufs[1] = dev_from(b, sizeof(float) * N);
    bufs[2] = dev_from(&bufs[0], sizeof(void *));
    bufs[3] = dev_from(&bufs[1], sizeof(void *));
    bufs[4] = dev_from(NULL, sizeof(int) * N);
    bufs[5] = dev_from(NULL, sizeof(int));
    int info_host = 7;
    EXPECT(aclblasSetStream(h, on) == 0, "set stream");
    EXPECT(aclblasSgetrfBatched(h, N, (float *const *)bufs[2], N, (int *)bufs[4], (int *)bufs[5], 1) == 0,
           "getrf: %s", aclGetRecentErrMsg());
    EXPECT(aclblasSgetrsBatched(h, ACLBLAS_OP_N, N, 1, (const float *const *)bufs[2], N, (const int *)bufs[4],
                                (float *const *)bufs[3], N, &info_host, 1) == 0 && info_host == 0,
           "getrs: %s", aclGetRecentErrMsg());
}

static void lu_check(void **bufs, int want_info)
{
    float x[N];
    int info = -1;
    to_host(x, bufs[1], sizeof x);
    to_host(&info, bufs[5], sizeof info);
    EXPECT(info == want_info, "getrf info %d, want %d", info, want_info);
    if (want_info == 0) {
        double worst = 0;
        for (int i = 0; i < N; i++) worst = fmax(worst, fabs(x[i] - (i % 3 + 1)));
        EXPECT(worst < 1e-2, "LU solution off by %g", worst);
    }
    for (int i = 0; i < 6; i++) aclrtFree(bufs[i]);
}

/* A = M M^T / N + I (symmetric positive definite, row-major). */
static void spd_problem(float *a)
{
    static float m[N * N];
    unsigned state = 11;
    for (int i = 0; i < N * N; i++) m[i] = next_value(&state);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) {
            double sum = r == c ? 1.0 : 0.0;
            for (int k = 0; k < N; k++) sum += (double)m[r * N + k] * m[c * N + k] / N;
            a[r * N + c] = (float)sum;
        }
}

static void cholesky_check(const float *a, const float *l)
{
    double worst = 0, upper = 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) {
            double sum = 0;
            for (int k = 0; k < N; k++) sum += (double)l[r * N + k] * l[c * N + k];
            worst = fmax(worst, fabs(sum - a[r * N + c]));
            if (c > r) upper = fmax(upper, fabs(l[r * N + c]));
        }
    EXPECT(worst < 1e-3 && upper == 0, "L L^T off by %g, upper triangle %g", worst, upper);
}

static void test_lu_and_cholesky_on_two_streams(void)
{
    static float a[N * N], b[N], s[N * N], l[N * N];
    lu_problem(a, b, -1);
    spd_problem(s);
    aclrtStream second = NULL;
    EXPECT(aclrtCreateStream(&second) == 0, "second stream");
    aclblasHandle_t h = NULL;
    EXPECT(aclblasCreate(&h) == 0, "create");
    void *ds = dev_from(s, sizeof s), *dl = dev_from(NULL, sizeof l), *bufs[6];
    aclTensor *ts = matrix(ds, N, N), *tl = matrix(dl, N, N);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    EXPECT(aclnnLinalgCholeskyGetWorkspaceSize(ts, false, tl, &ws, &ex) == 0 && aclnnLinalgCholesky(NULL, ws, ex, stream) == 0,
           "cholesky: %s", aclGetRecentErrMsg());
    lu_queue(h, second, bufs, a, b); /* runs while the Cholesky does */
    EXPECT(aclrtSynchronizeStream(stream) == 0 && aclrtSynchronizeStream(second) == 0, "sync: %s",
           aclGetRecentErrMsg());
    lu_check(bufs, 0);
    to_host(l, dl, sizeof l);
    cholesky_check(s, l);
    lu_problem(a, b, 250); /* a zero column in the LU's last 64-column panel: info 251 */
    lu_queue(h, stream, bufs, a, b);
    EXPECT(aclrtSynchronizeStream(stream) == 0, "sync: %s", aclGetRecentErrMsg());
    lu_check(bufs, 251);
    EXPECT(aclblasDestroy(h) == 0, "destroy");
    aclDestroyTensor(ts);
    aclDestroyTensor(tl);
    aclrtFree(ds);
    aclrtFree(dl);
    aclrtDestroyStream(second);
}

static void test_qr(void)
{
    static float a[N * QN], q[N * QN], r[QN * QN];
    unsigned state = 5;
    for (int i = 0; i < N * QN; i++) a[i] = next_value(&state);
    void *da = dev_from(a, sizeof a), *dq = dev_from(NULL, sizeof q), *dr = dev_from(NULL, sizeof r);
    aclTensor *ta = matrix(da, N, QN), *tq = matrix(dq, N, QN), *tr = matrix(dr, QN, QN);
    RUN(aclnnLinalgQr, ta, 0, tq, tr);
    to_host(q, dq, sizeof q);
    to_host(r, dr, sizeof r);
    double orth = 0, recon = 0, lower = 0;
    for (int i = 0; i < QN; i++)
        for (int j = 0; j < QN; j++) {
            double dot = 0;
            for (int k = 0; k < N; k++) dot += (double)q[k * QN + i] * q[k * QN + j];
            orth = fmax(orth, fabs(dot - (i == j)));
            if (i > j) lower = fmax(lower, fabs(r[i * QN + j]));
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < QN; j++) {
            double sum = 0;
            for (int k = 0; k < QN; k++) sum += (double)q[i * QN + k] * r[k * QN + j];
            recon = fmax(recon, fabs(sum - a[i * QN + j]));
        }
    EXPECT(orth < 1e-4 && recon < 1e-4 && lower == 0, "QR: Q^T Q - I %g, Q R - A %g, below R's diagonal %g", orth,
           recon, lower);
    aclDestroyTensor(ta);
    aclDestroyTensor(tq);
    aclDestroyTensor(tr);
    aclrtFree(da);
    aclrtFree(dq);
    aclrtFree(dr);
}

int main(void)
{
    if (aclnn_test_setup() != 0) return 1;
    test_lu_and_cholesky_on_two_streams();
    test_qr();
    return aclnn_test_finish("linalg_blocked");
}
