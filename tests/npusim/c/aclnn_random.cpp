/* CANN's random operators on a device: the counter layout (a draw at offset o + 1 is the draw at
 * offset o shifted by the values one Philox block gives: 4 for float32 uniforms and normals and
 * integer ranges up to 2^16 (here 2^16 itself: no word is rejected, so none is retried from the
 * launch's spare counters, which depend on its size), 2 for float64 and wider ranges), strided outputs equal to
 * contiguous ones, aclnnRandperm giving a permutation and aclnnBernoulli's frequencies; sizes large enough for the kernels'
 * parallel paths, so the sanitizers see the worker threads. Prints "aclnn_random ok". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn_check.h"
#include "aclnnop/aclnn_bernoulli.h"
#include "aclnnop/aclnn_normal.h"
#include "aclnnop/aclnn_random.h"
#include "aclnnop/aclnn_randperm.h"
#include "aclnnop/aclnn_uniform.h"

static const int64_t N = 300000; /* above the kernels' parallel threshold */

static aclTensor *vector(void *dev, aclDataType dt, int64_t n, int64_t stride, int64_t storage)
{
    aclTensor *t = aclCreateTensor(&n, 1, dt, &stride, 0, ACL_FORMAT_ND, &storage, 1, dev);
    EXPECT(t != NULL, "aclCreateTensor: %s", aclGetRecentErrMsg());
    return t;
}

enum law { UNIFORM, NORMAL, SMALL_RANGE, WIDE_RANGE };

/* n values of `law` in dtype dt (itemsize bytes) at `offset`, every `stride`-th element of a
 * device buffer, downloaded in order into a new host array. */
static void *draw(enum law law, aclDataType dt, size_t itemsize, int64_t n, int64_t stride, uint64_t offset)
{
    size_t bytes = (size_t)(n * stride) * itemsize;
    void *dev = dev_from(NULL, bytes);
    aclTensor *t = vector(dev, dt, n, stride, n * stride);
    if (law == UNIFORM) RUN(aclnnInplaceUniform, t, -1.0, 3.0, 42, offset);
    if (law == NORMAL) RUN(aclnnInplaceNormal, t, 0.5f, 2.0f, 42, (int64_t)offset);
    if (law == SMALL_RANGE) RUN(aclnnInplaceRandom, t, -5, 65531, 42, (int64_t)offset);
    if (law == WIDE_RANGE) RUN(aclnnInplaceRandom, t, 0, (int64_t)1 << 40, 42, (int64_t)offset);
    char *all = (char *)malloc(bytes ? bytes : 1), *packed = (char *)malloc(bytes ? bytes : 1);
    to_host(all, dev, bytes);
    for (int64_t i = 0; i < n; i++) memcpy(packed + i * itemsize, all + i * stride * itemsize, itemsize);
    free(all);
    aclDestroyTensor(t);
    aclrtFree(dev);
    return packed;
}

/* A draw of N at offset 1 equals the draw of N + k at offset 0 from value k on, and a strided
 * draw equals the contiguous one. */
static void check_layout(const char *name, enum law law, aclDataType dt, size_t itemsize, int64_t k)
{
    char *base = (char *)draw(law, dt, itemsize, N + k, 1, 0);
    char *shifted = (char *)draw(law, dt, itemsize, N, 1, 1);
    char *strided = (char *)draw(law, dt, itemsize, N + k, 3, 0);
    EXPECT(memcmp(base + k * itemsize, shifted, (size_t)N * itemsize) == 0, "%s: offset 1 is not a shift by %lld",
           name, (long long)k);
    EXPECT(memcmp(base, strided, (size_t)(N + k) * itemsize) == 0, "%s: strided output differs", name);
    free(base);
    free(shifted);
    free(strided);
}

static void check_ranges(void)
{
    int64_t *small = (int64_t *)draw(SMALL_RANGE, ACL_INT64, 8, N, 1, 7);
    double *u = (double *)draw(UNIFORM, ACL_DOUBLE, 8, N, 1, 7);
    for (int64_t i = 0; i < N; i++) {
        EXPECT(small[i] >= -5 && small[i] < 65531, "integer %lld out of [-5, 65531)", (long long)small[i]);
        EXPECT(u[i] >= -1.0 && u[i] < 3.0, "uniform %g out of [-1, 3)", u[i]);
        if (g_check_failures) break;
    }
    free(small);
    free(u);
}

static void check_randperm(void)
{
    void *dev = dev_from(NULL, (size_t)N * 8);
    aclTensor *t = vector(dev, ACL_INT64, N, 1, N);
    RUN(aclnnRandperm, N, 42, 0, t);
    int64_t *perm = (int64_t *)malloc((size_t)N * 8);
    char *seen = (char *)calloc((size_t)N, 1);
    to_host(perm, dev, (size_t)N * 8);
    int64_t fixed = 0;
    for (int64_t i = 0; i < N; i++) {
        EXPECT(perm[i] >= 0 && perm[i] < N && !seen[perm[i]], "randperm: %lld repeated or out of range",
               (long long)perm[i]);
        if (g_check_failures) break;
        seen[perm[i]] = 1;
        fixed += perm[i] == i;
    }
    EXPECT(fixed < 10, "randperm: %lld fixed points (about 1 expected)", (long long)fixed);
    free(perm);
    free(seen);
    aclDestroyTensor(t);
    aclrtFree(dev);
}

/* aclnnBernoulliTensor with probabilities {0, 0.25, 0.75, 1} broadcast over N / 4 rows (int8), then
 * aclnnInplaceBernoulli with p = 0.5 on the same buffer. */
static void check_bernoulli(void)
{
    int64_t rows = N / 4, shape[2] = { rows, 4 }, strides[2] = { 4, 1 }, storage = N, four = 4, one = 1;
    float probs[4] = { 0.0f, 0.25f, 0.75f, 1.0f };
    void *dev = dev_from(NULL, (size_t)N), *prob_dev = dev_from(probs, sizeof probs);
    aclTensor *out = aclCreateTensor(shape, 2, ACL_INT8, strides, 0, ACL_FORMAT_ND, &storage, 1, dev);
    aclTensor *prob = aclCreateTensor(&four, 1, ACL_FLOAT, &one, 0, ACL_FORMAT_ND, &four, 1, prob_dev);
    RUN(aclnnInplaceBernoulliTensor, out, prob, 42, 0);
    int8_t *x = (int8_t *)malloc((size_t)N);
    to_host(x, dev, (size_t)N);
    int64_t ones[4] = { 0, 0, 0, 0 };
    for (int64_t i = 0; i < N; i++) ones[i % 4] += x[i];
    EXPECT(ones[0] == 0 && ones[3] == rows, "bernoulli: p = 0 / 1 columns hold %lld / %lld ones of %lld",
           (long long)ones[0], (long long)ones[3], (long long)rows);
    EXPECT(ones[1] > rows / 4 - 1000 && ones[1] < rows / 4 + 1000, "bernoulli: %lld ones at p = 0.25",
           (long long)ones[1]);
    EXPECT(ones[2] > 3 * rows / 4 - 1000 && ones[2] < 3 * rows / 4 + 1000, "bernoulli: %lld ones at p = 0.75",
           (long long)ones[2]);
    float half = 0.5f;
    aclScalar *p = aclCreateScalar(&half, ACL_FLOAT);
    RUN(aclnnInplaceBernoulli, out, p, 42, 0);
    to_host(x, dev, (size_t)N);
    int64_t total = 0;
    for (int64_t i = 0; i < N; i++) total += x[i];
    EXPECT(total > N / 2 - 1500 && total < N / 2 + 1500, "bernoulli: %lld ones of %lld at p = 0.5", (long long)total,
           (long long)N);
    aclDestroyScalar(p);
    free(x);
    aclDestroyTensor(out);
    aclDestroyTensor(prob);
    aclrtFree(dev);
    aclrtFree(prob_dev);
}

int main(void)
{
    if (aclnn_test_setup()) return 1;
    check_layout("uniform float32", UNIFORM, ACL_FLOAT, 4, 4);
    check_layout("uniform float64", UNIFORM, ACL_DOUBLE, 8, 2);
    check_layout("normal float32", NORMAL, ACL_FLOAT, 4, 4);
    check_layout("normal float64", NORMAL, ACL_DOUBLE, 8, 2);
    check_layout("integers [-5, 65531)", SMALL_RANGE, ACL_INT64, 8, 4);
    check_layout("integers [0, 2^40)", WIDE_RANGE, ACL_INT64, 8, 1);
    check_ranges();
    check_randperm();
    check_bernoulli();
    return aclnn_test_finish("aclnn_random");
}
