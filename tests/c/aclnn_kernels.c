/* A few aclnn kernels on a device against hand-computed values: strided and broadcast views,
 * float16 rounding, integer division by zero, casts, reductions with NaN, matmul, data-dependent
 * output shapes and run-time index errors. Prints "aclnn_kernels ok" and exits 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_floor_divide.h"
#include "aclnnop/aclnn_index_select.h"
#include "aclnnop/aclnn_masked_select.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_reduce_sum.h"

static int failures;
static aclrtStream stream;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL line %d: %s: ", __LINE__, #cond);                            \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

/* Device copy of host bytes. */
static void *dev_from(const void *host, size_t bytes)
{
    void *d = NULL;
    aclrtMalloc(&d, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST);
    if (bytes) aclrtMemcpy(d, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    return d;
}

static void to_host(void *host, void *dev, size_t bytes)
{
    EXPECT(aclrtMemcpy(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "download: %s",
           aclGetRecentErrMsg());
}

/* A view of `storage` elements at dev with the given shape / strides / offset. */
static aclTensor *view(void *dev, aclDataType dt, int ndim, const int64_t *shape, const int64_t *strides,
                       int64_t offset, int64_t storage)
{
    aclTensor *t = aclCreateTensor(shape, (uint64_t)ndim, dt, strides, offset, ACL_FORMAT_ND, &storage, 1, dev);
    EXPECT(t != NULL, "aclCreateTensor: %s", aclGetRecentErrMsg());
    return t;
}

#define RUN(op, ...)                                                                           \
    do {                                                                                       \
        uint64_t ws_ = 0;                                                                      \
        aclOpExecutor *ex_ = NULL;                                                             \
        int rc_ = op##GetWorkspaceSize(__VA_ARGS__, &ws_, &ex_);                               \
        EXPECT(rc_ == 0, #op " phase 1: %d %s", rc_, aclGetRecentErrMsg());                    \
        if (rc_ == 0) {                                                                        \
            rc_ = op(NULL, ws_, ex_, stream);                                                  \
            EXPECT(rc_ == 0, #op " phase 2: %d %s", rc_, aclGetRecentErrMsg());                \
        }                                                                                      \
        EXPECT(aclrtSynchronizeStream(stream) == 0, #op " sync: %s", aclGetRecentErrMsg());    \
    } while (0)

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

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    test_strided_broadcast_add();
    test_float16_and_int_division();
    test_cast_and_copy();
    test_reductions();
    test_matmul();
    test_masked_select_and_index_errors();
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("aclnn_kernels ok\n");
    return 0;
}
