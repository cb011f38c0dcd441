/* Private to kernels/ops: the LAPACK routines of linalg_lapack.c that other npusim libraries
 * (aclblas in linalg_blas.c) compute with. */
#ifndef NPUSIM_LINALG_LAPACK_H
#define NPUSIM_LINALG_LAPACK_H

#include <stdint.h>

enum { LAPACK_ROW_MAJOR = 101, LAPACK_COL_MAJOR = 102 };

/* NULL once LAPACK is loaded from NPUSIM_BLAS_LIBRARY, else why it cannot be. */
const char *npusim_lapack_problem(void);
/* sgetrf of a square column-major n x n matrix (blocked, its updates on npusim's pool; returns
 * LAPACK's info) and LAPACKE_sgetrs (32-bit LAPACK integers). */
int32_t npusim_lapack_sgetrf(int32_t n, float *a, int32_t lda, int32_t *ipiv);
int32_t npusim_lapack_sgetrs(int layout, char trans, int32_t n, int32_t nrhs, const float *a, int32_t lda,
                             const int32_t *ipiv, float *b, int32_t ldb);

#endif /* NPUSIM_LINALG_LAPACK_H */
