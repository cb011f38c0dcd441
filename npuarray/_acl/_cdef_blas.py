"""cffi declarations of the ops-blas functions npuarray uses (hicann/ops-blas
``include/cann_ops_blas.h`` and ``cann_ops_blas_common.h``, ``libops_blas.so``):
the handle API and the batched float32 LU used by ``linalg.solve``. npusim's C
copy: ``kernels/include/cann_ops_blas.h``."""

CDEF = """
typedef enum aclblasStatus {
    ACLBLAS_STATUS_SUCCESS = 0, ACLBLAS_STATUS_NOT_INITIALIZED = 1, ACLBLAS_STATUS_ALLOC_FAILED = 2,
    ACLBLAS_STATUS_INVALID_VALUE = 3, ACLBLAS_STATUS_MAPPING_ERROR = 4,
    ACLBLAS_STATUS_EXECUTION_FAILED = 5, ACLBLAS_STATUS_INTERNAL_ERROR = 6,
    ACLBLAS_STATUS_NOT_SUPPORTED = 7, ACLBLAS_STATUS_ARCH_MISMATCH = 8,
    ACLBLAS_STATUS_HANDLE_IS_NULLPTR = 9, ACLBLAS_STATUS_INVALID_ENUM = 10,
    ACLBLAS_STATUS_UNKNOWN = 11
} aclblasStatus_t;
typedef enum aclblasOperation { ACLBLAS_OP_N = 111, ACLBLAS_OP_T = 112, ACLBLAS_OP_C = 113 } aclblasOperation_t;
typedef struct _aclblas_handle* aclblasHandle_t;
aclblasStatus_t aclblasCreate(aclblasHandle_t* handle);
aclblasStatus_t aclblasDestroy(aclblasHandle_t handle);
aclblasStatus_t aclblasSetStream(aclblasHandle_t handle, aclrtStream stream);
aclblasStatus_t aclblasGetStream(aclblasHandle_t handle, aclrtStream* stream);
aclblasStatus_t aclblasSgetrfBatched(aclblasHandle_t handle, int n, float* const Aarray[], int lda, int* PivotArray, int* infoArray, int batchSize);
aclblasStatus_t aclblasSgetrsBatched(aclblasHandle_t handle, aclblasOperation_t trans, int n, int nrhs, const float* const Aarray[], int lda, const int* devIpiv, float* const Barray[], int ldb, int* info, int batchCount);
"""
