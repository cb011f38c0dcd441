/* ops-blas (hicann/ops-blas include/cann_ops_blas.h, libops_blas.so) on npusim's streams: the
 * handle API and the batched float32 LU, aclblasSgetrfBatched and aclblasSgetrsBatched
 * (blas/getrf_batched/README.md, blas/getrs_batched/README.md: cuBLAS-compatible, column-major
 * matrices, device arrays of device pointers, 1-based pivots; getrs takes nrhs <= 256 and
 * reports parameter errors in the host `info`). CANN runs them on Ascend 950 only.
 *
 * The work is enqueued on the handle's stream (aclblasSetStream; NULL: the default stream).
 * Each matrix is factorised in place with LAPACK (linalg_lapack.c). The pointer arrays are
 * device data, read when the task runs: a pointer outside device memory of the stream's device
 * fails the task, which becomes the stream's error. PivotArray NULL factorises without
 * pivoting, as documented. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cann_ops_blas.h"
#include "linalg_lapack.h"
#include "npusim.h"

#define GETRS_MAX_NRHS 256

struct _aclblas_handle {
    aclrtStream stream;
};

/* ---------------------------------------------------------------------------------------------
 * Live handles: a destroyed or unknown handle is refused, never dereferenced */

static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static aclblasHandle_t *handles;
static size_t handles_used, handles_cap;

static bool handle_live(aclblasHandle_t h, bool remove)
{
    pthread_mutex_lock(&handles_lock);
    bool found = false;
    for (size_t i = 0; i < handles_used && !found; i++)
        if (handles[i] == h) {
            found = true;
            if (remove) handles[i] = handles[--handles_used];
        }
    pthread_mutex_unlock(&handles_lock);
    return found;
}

static aclblasStatus_t check_handle(const char *api, aclblasHandle_t h)
{
    if (!h) return npusim_error(ACLBLAS_STATUS_HANDLE_IS_NULLPTR, "%s: handle is NULL", api);
    if (!handle_live(h, false))
        return npusim_error(ACLBLAS_STATUS_NOT_INITIALIZED, "%s: handle %p is not live (destroyed or never "
                            "created)", api, (void *)h);
    return ACLBLAS_STATUS_SUCCESS;
}

aclblasStatus_t aclblasCreate(aclblasHandle_t *handle)
{
    if (!handle) return npusim_error(ACLBLAS_STATUS_HANDLE_IS_NULLPTR, "aclblasCreate: handle is NULL");
    aclblasHandle_t h = calloc(1, sizeof *h);
    pthread_mutex_lock(&handles_lock);
    if (h && handles_used == handles_cap) {
        size_t cap = handles_cap ? handles_cap * 2 : 16;
        aclblasHandle_t *grown = realloc(handles, cap * sizeof *grown);
        if (grown) {
            handles = grown;
            handles_cap = cap;
        }
    }
    bool ok = h && handles_used < handles_cap;
    if (ok) handles[handles_used++] = h;
    pthread_mutex_unlock(&handles_lock);
    if (!ok) {
        free(h);
        return npusim_error(ACLBLAS_STATUS_ALLOC_FAILED, "aclblasCreate: out of host memory");
    }
    *handle = h;
    return ACLBLAS_STATUS_SUCCESS;
}

aclblasStatus_t aclblasDestroy(aclblasHandle_t handle)
{
    if (!handle) return npusim_error(ACLBLAS_STATUS_HANDLE_IS_NULLPTR, "aclblasDestroy: handle is NULL");
    if (!handle_live(handle, true))
        return npusim_error(ACLBLAS_STATUS_NOT_INITIALIZED, "aclblasDestroy: handle %p is not live", (void *)handle);
    free(handle); /* queued work holds copies of everything it needs */
    return ACLBLAS_STATUS_SUCCESS;
}

aclblasStatus_t aclblasSetStream(aclblasHandle_t handle, aclrtStream stream)
{
    aclblasStatus_t rc = check_handle("aclblasSetStream", handle);
    if (!rc) handle->stream = stream;
    return rc;
}

aclblasStatus_t aclblasGetStream(aclblasHandle_t handle, aclrtStream *stream)
{
    aclblasStatus_t rc = check_handle("aclblasGetStream", handle);
    if (rc) return rc;
    if (!stream) return npusim_error(ACLBLAS_STATUS_INVALID_VALUE, "aclblasGetStream: stream is NULL");
    *stream = handle->stream;
    return ACLBLAS_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Batched LU */

typedef struct {
    bool solve;            /* getrs, else getrf */
    char trans;            /* getrs: 'N', 'T' */
    int n, nrhs, lda, ldb, batch;
    int32_t device;
    float *const *a;       /* device array of batch device pointers */
    float *const *b;       /* getrs */
    int *pivots;           /* n * batch, may be NULL */
    int *info;             /* getrf: batch entries */
} lu_job;

static int check_matrix(const lu_job *j, const void *p, int cols, int ld, const char *what)
{
    size_t bytes = ((size_t)(cols - 1) * (size_t)ld + (size_t)j->n) * sizeof(float);
    return npusim_check_device_range(p, bytes, j->device, what) == ACL_SUCCESS ? 0 : ACL_ERROR_INVALID_PARAM;
}

/* LU without row exchanges (PivotArray NULL); info: first zero pivot, 1-based. */
static int lu_unpivoted(float *a, int n, int lda)
{
    int info = 0;
    for (int k = 0; k < n; k++) {
        float pivot = a[k + (size_t)k * lda];
        if (pivot == 0.0f) {
            if (!info) info = k + 1;
            continue;
        }
        for (int i = k + 1; i < n; i++) a[i + (size_t)k * lda] /= pivot;
        for (int c = k + 1; c < n; c++)
            for (int i = k + 1; i < n; i++) a[i + (size_t)c * lda] -= a[i + (size_t)k * lda] * a[k + (size_t)c * lda];
    }
    return info;
}

static int lu_run(void *payload)
{
    const lu_job *j = payload;
    int32_t *identity = NULL;
    if (j->solve && !j->pivots) {
        identity = malloc(sizeof(int32_t) * (size_t)j->n);
        if (!identity) return npusim_error(ACL_ERROR_BAD_ALLOC, "aclblasSgetrsBatched: out of host memory");
        for (int i = 0; i < j->n; i++) identity[i] = i + 1;
    }
    int rc = 0;
    for (int i = 0; i < j->batch && !rc; i++) {
        float *a = j->a[i];
        if ((rc = check_matrix(j, a, j->n, j->lda, "aclblas Aarray[i]"))) break;
        int32_t *piv = j->pivots ? j->pivots + (size_t)i * j->n : identity;
        if (!j->solve) {
            j->info[i] = piv ? npusim_lapack_sgetrf(j->n, a, j->lda, piv)
                             : lu_unpivoted(a, j->n, j->lda);
            continue;
        }
        float *b = j->b[i];
        if ((rc = check_matrix(j, b, j->nrhs, j->ldb, "aclblas Barray[i]"))) break;
        npusim_lapack_sgetrs(j->trans, j->n, j->nrhs, a, j->lda, piv, b, j->ldb);
    }
    free(identity);
    return rc;
}

static const npusim_task_ops lu_task = { "aclblasLU", lu_run, free };

static aclblasStatus_t lu_enqueue(const char *api, aclblasHandle_t handle, lu_job *job)
{
    int32_t device = npusim_stream_device(handle->stream);
    if (device < 0) return npusim_error(ACLBLAS_STATUS_INVALID_VALUE, "%s: the handle's stream is invalid", api);
    job->device = device;
    size_t pointers = sizeof(float *) * (size_t)job->batch, pivots = sizeof(int) * (size_t)job->n * job->batch;
    if (npusim_check_device_range(job->a, pointers, device, "Aarray") != ACL_SUCCESS ||
        (job->solve && npusim_check_device_range(job->b, pointers, device, "Barray") != ACL_SUCCESS) ||
        (job->pivots && npusim_check_device_range(job->pivots, pivots, device, "pivots") != ACL_SUCCESS) ||
        (!job->solve && npusim_check_device_range(job->info, sizeof(int) * (size_t)job->batch, device,
                                                  "infoArray") != ACL_SUCCESS))
        return ACLBLAS_STATUS_INVALID_VALUE; /* the message names the array and the problem */
    const char *problem = npusim_lapack_problem();
    if (problem) return npusim_error(ACLBLAS_STATUS_NOT_INITIALIZED, "%s: LAPACK is unavailable: %s", api, problem);
    lu_job *copy = malloc(sizeof *copy);
    if (!copy) return npusim_error(ACLBLAS_STATUS_ALLOC_FAILED, "%s: out of host memory", api);
    *copy = *job;
    if (npusim_launch(handle->stream, &lu_task, copy) != ACL_SUCCESS) return ACLBLAS_STATUS_EXECUTION_FAILED;
    return ACLBLAS_STATUS_SUCCESS;
}

aclblasStatus_t aclblasSgetrfBatched(aclblasHandle_t handle, int n, float *const Aarray[], int lda, int *PivotArray,
                                     int *infoArray, int batchSize)
{
    const char *api = "aclblasSgetrfBatched";
    aclblasStatus_t rc = check_handle(api, handle);
    if (rc) return rc;
    if (n < 0 || batchSize < 0 || lda < (n > 1 ? n : 1))
        return npusim_error(ACLBLAS_STATUS_INVALID_VALUE, "%s: need n >= 0, batchSize >= 0 and lda >= max(1, n) "
                            "(got n=%d, lda=%d, batchSize=%d)", api, n, lda, batchSize);
    if (PivotArray && !infoArray)
        return npusim_error(ACLBLAS_STATUS_INVALID_VALUE, "%s: infoArray must not be NULL when PivotArray is given",
                            api);
    if (n == 0 || batchSize == 0) return ACLBLAS_STATUS_SUCCESS;
    if (!Aarray || !infoArray)
        return npusim_error(ACLBLAS_STATUS_INVALID_VALUE, "%s: Aarray and infoArray must not be NULL", api);
    lu_job job = { false, 'N', n, 0, lda, 0, batchSize, 0, Aarray, NULL, PivotArray, infoArray };
    return lu_enqueue(api, handle, &job);
}

aclblasStatus_t aclblasSgetrsBatched(aclblasHandle_t handle, aclblasOperation_t trans, int n, int nrhs,
                                     const float *const Aarray[], int lda, const int *devIpiv, float *const Barray[],
                                     int ldb, int *info, int batchCount)
{
    const char *api = "aclblasSgetrsBatched";
    aclblasStatus_t rc = check_handle(api, handle);
    if (rc) return rc;
    if (!info) return npusim_error(ACLBLAS_STATUS_INVALID_VALUE, "%s: info (host memory) is NULL", api);
    /* info = -j for the first illegal parameter j, as LAPACK does */
    int bad = trans != ACLBLAS_OP_N && trans != ACLBLAS_OP_T && trans != ACLBLAS_OP_C ? 2
              : n < 0 ? 3 : nrhs < 0 || nrhs > GETRS_MAX_NRHS ? 4 : lda < (n > 1 ? n : 1) ? 6
              : ldb < (n > 1 ? n : 1) ? 9 : batchCount < 0 ? 11 : 0;
    *info = -bad;
    if (bad)
        return npusim_error(ACLBLAS_STATUS_INVALID_VALUE, "%s: parameter %d is invalid (n=%d, nrhs=%d (at most %d), "
                            "lda=%d, ldb=%d, batchCount=%d)", api, bad, n, nrhs, GETRS_MAX_NRHS, lda, ldb, batchCount);
    if (n == 0 || nrhs == 0 || batchCount == 0) return ACLBLAS_STATUS_SUCCESS;
    if (!Aarray || !Barray)
        return npusim_error(ACLBLAS_STATUS_INVALID_VALUE, "%s: Aarray and Barray must not be NULL", api);
    lu_job job = { true, trans == ACLBLAS_OP_N ? 'N' : 'T', n, nrhs, lda, ldb, batchCount, 0,
                   (float *const *)Aarray, Barray, (int *)devIpiv, NULL };
    return lu_enqueue(api, handle, &job);
}
