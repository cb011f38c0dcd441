"""cffi declarations of aclfft, CANN's FFT library (hicann/ops-fft ``include/cann_ops_fft.h``,
``libcann_ops_fft.so``): the enums and the entry points npuarray.fft uses, copied from the
header (npusim's copy: ``kernels/include/cann_ops_fft.h``). Appended to the runtime and aclnn
declarations, which provide ``aclrtStream``."""

CDEF = """
typedef enum aclfftResult_t {
    ACLFFT_SUCCESS = 0, ACLFFT_INVALID_PLAN = 1, ACLFFT_ALLOC_FAILED = 2, ACLFFT_INVALID_TYPE = 3,
    ACLFFT_INVALID_VALUE = 4, ACLFFT_INTERNAL_ERROR = 5, ACLFFT_EXEC_FAILED = 6,
    ACLFFT_SETUP_FAILED = 7, ACLFFT_INVALID_SIZE = 8, ACLFFT_UNALIGNED_DATA = 9,
    ACLFFT_INCOMPLETE_PARAMETER_LIST = 10, ACLFFT_INVALID_DEVICE = 11, ACLFFT_PARSE_ERROR = 12,
    ACLFFT_NO_WORKSPACE = 13, ACLFFT_NOT_IMPLEMENTED = 14, ACLFFT_NOT_SUPPORTED = 16
} aclfftResult;
typedef enum aclfftType_t {
    ACLFFT_R2C = 0x2a, ACLFFT_C2R = 0x2c, ACLFFT_C2C = 0x29,
    ACLFFT_D2Z = 0x6a, ACLFFT_Z2D = 0x6c, ACLFFT_Z2Z = 0x69
} aclfftType;
typedef struct aclfftHandle_t* aclfftHandle;
typedef struct { float x; float y; } aclfftComplex;
typedef struct { double x; double y; } aclfftDoubleComplex;
typedef float aclfftReal;
typedef double aclfftDoubleReal;
aclfftResult aclfftPlan1d(aclfftHandle* plan, int nx, aclfftType type, int batch, int dimType);
aclfftResult aclfftPlan2d(aclfftHandle* plan, int batch, int nx, int ny, aclfftType type);
aclfftResult aclfftPlan3d(aclfftHandle* plan, int nx, int ny, int nz, aclfftType type);
aclfftResult aclfftCreate(aclfftHandle* plan);
aclfftResult aclfftMakePlan1d(aclfftHandle plan, int nx, aclfftType type, int batch, int stride, size_t* workSize);
aclfftResult aclfftMakePlan2d(aclfftHandle plan, int batch, int nx, int ny, aclfftType type, size_t* workSize);
aclfftResult aclfftMakePlan3d(aclfftHandle plan, int nx, int ny, int nz, aclfftType type, size_t* workSize);
aclfftResult aclfftExecC2C(aclfftHandle plan, aclfftComplex* idata, aclfftComplex* odata, int direction);
aclfftResult aclfftExecR2C(aclfftHandle plan, aclfftReal* idata, aclfftComplex* odata);
aclfftResult aclfftExecC2R(aclfftHandle plan, aclfftComplex* idata, aclfftReal* odata);
aclfftResult aclfftExecZ2Z(aclfftHandle plan, aclfftDoubleComplex* idata, aclfftDoubleComplex* odata, int direction);
aclfftResult aclfftExecD2Z(aclfftHandle plan, aclfftDoubleReal* idata, aclfftDoubleComplex* odata);
aclfftResult aclfftExecZ2D(aclfftHandle plan, aclfftDoubleComplex* idata, aclfftDoubleReal* odata);
aclfftResult aclfftSetStream(aclfftHandle plan, aclrtStream stream);
aclfftResult aclfftDestroy(aclfftHandle plan);
const char* aclfftGetErrorString(aclfftResult result);
"""
