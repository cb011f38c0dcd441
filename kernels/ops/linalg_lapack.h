/* Private to kernels/ops: the LAPACK routines of linalg_lapack.c that other npusim libraries
 * (aclblas in linalg_blas.c) compute with. */
#ifndef NPUSIM_LINALG_LAPACK_H
#define NPUSIM_LINALG_LAPACK_H

#include <stdint.h>

/* NULL once LAPACK is loaded from NPUSIM_BLAS_LIBRARY, else why it cannot be. */
const char *npusim_lapack_problem(void);
/* sgetrf of a square column-major n x n matrix (returns LAPACK's info) and sgetrs of its factors
 * on the first nrhs columns of the column-major b (trans 'N': A x = b, else A^T x = b), 32-bit
 * LAPACK integers; both blocked, OpenBLAS on one thread and the work in chunks on npusim's pool. */
int32_t npusim_lapack_sgetrf(int32_t n, float *a, int32_t lda, int32_t *ipiv);
void npusim_lapack_sgetrs(char trans, int32_t n, int32_t nrhs, const float *a, int32_t lda, const int32_t *ipiv,
                          float *b, int32_t ldb);

#endif /* NPUSIM_LINALG_LAPACK_H */
