/* cann_ops_fft.h: the aclfft API of CANN's hicann/ops-fft (include/cann_ops_fft.h, built into
 * libcann_ops_fft.so), with the same names, prototypes and enum values. npusim implements the
 * entry points in kernels/ops/fft_aclfft.c; the ones the library declares but documents as
 * not implemented (GetSize*, SetWorkArea, SetAutoAllocation, SetStride, GetVersion,
 * GetProperty) are left out. */
#ifndef NPUSIM_CANN_OPS_FFT_H
#define NPUSIM_CANN_OPS_FFT_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclfftResult_t {
    ACLFFT_SUCCESS = 0,
    ACLFFT_INVALID_PLAN = 1,
    ACLFFT_ALLOC_FAILED = 2,
    ACLFFT_INVALID_TYPE = 3,
    ACLFFT_INVALID_VALUE = 4,
    ACLFFT_INTERNAL_ERROR = 5,
    ACLFFT_EXEC_FAILED = 6,
    ACLFFT_SETUP_FAILED = 7,
    ACLFFT_INVALID_SIZE = 8,
    ACLFFT_UNALIGNED_DATA = 9,
    ACLFFT_INCOMPLETE_PARAMETER_LIST = 10,
    ACLFFT_INVALID_DEVICE = 11,
    ACLFFT_PARSE_ERROR = 12,
    ACLFFT_NO_WORKSPACE = 13,
    ACLFFT_NOT_IMPLEMENTED = 14,
    ACLFFT_NOT_SUPPORTED = 16
} aclfftResult;

typedef enum aclfftType_t {
    ACLFFT_R2C = 0x2a,
    ACLFFT_C2R = 0x2c,
    ACLFFT_C2C = 0x29,
    ACLFFT_D2Z = 0x6a,
    ACLFFT_Z2D = 0x6c,
    ACLFFT_Z2Z = 0x69
} aclfftType;

#define ACLFFT_FORWARD (-1)
#define ACLFFT_BACKWARD 1

#define ACLFFT_HORIZONTAL 0
#define ACLFFT_VERTICAL 1

typedef struct aclfftHandle_t *aclfftHandle;

typedef struct {
    float x;
    float y;
} aclfftComplex;

typedef struct {
    double x;
    double y;
} aclfftDoubleComplex;

typedef float aclfftReal;
typedef double aclfftDoubleReal;

aclfftResult aclfftPlan1d(aclfftHandle *plan, int nx, aclfftType type, int batch, int dimType);
aclfftResult aclfftPlan2d(aclfftHandle *plan, int batch, int nx, int ny, aclfftType type);
aclfftResult aclfftPlan3d(aclfftHandle *plan, int nx, int ny, int nz, aclfftType type);
aclfftResult aclfftCreate(aclfftHandle *plan);
aclfftResult aclfftMakePlan1d(aclfftHandle plan, int nx, aclfftType type, int batch, int stride, size_t *workSize);
aclfftResult aclfftMakePlan2d(aclfftHandle plan, int batch, int nx, int ny, aclfftType type, size_t *workSize);
aclfftResult aclfftMakePlan3d(aclfftHandle plan, int nx, int ny, int nz, aclfftType type, size_t *workSize);
aclfftResult aclfftExecC2C(aclfftHandle plan, aclfftComplex *idata, aclfftComplex *odata, int direction);
aclfftResult aclfftExecR2C(aclfftHandle plan, aclfftReal *idata, aclfftComplex *odata);
aclfftResult aclfftExecC2R(aclfftHandle plan, aclfftComplex *idata, aclfftReal *odata);
aclfftResult aclfftExecZ2Z(aclfftHandle plan, aclfftDoubleComplex *idata, aclfftDoubleComplex *odata, int direction);
aclfftResult aclfftExecD2Z(aclfftHandle plan, aclfftDoubleReal *idata, aclfftDoubleComplex *odata);
aclfftResult aclfftExecZ2D(aclfftHandle plan, aclfftDoubleComplex *idata, aclfftDoubleReal *odata);
aclfftResult aclfftSetStream(aclfftHandle plan, aclrtStream stream);
aclfftResult aclfftDestroy(aclfftHandle plan);
const char *aclfftGetErrorString(aclfftResult result);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_CANN_OPS_FFT_H */
