/* AscendCL umbrella header (CANN acl/acl.h): init/finalize, version, recent error message. */
#ifndef NPUSIM_ACL_ACL_H
#define NPUSIM_ACL_ACL_H

#include "acl_base.h"
#include "acl_rt.h"
#include "acl_mdl.h"
#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The release these headers mirror: CANN 9.1.0 (hicann/runtime tag v9.1.0, whose acl_rt.h
 * says "Current version is 1.17.0"; hicann/opbase branch 9.1.0; hicann/ops-math and
 * hicann/ops-nn tag v9.1.0). Every declaration, macro and enumerator here that those
 * releases also have is identical to theirs (kernels/tools/compare_cann_release.py); the
 * aclfft / aclblas headers (cann_ops_fft.h, cann_ops_blas.h) follow hicann/ops-fft and
 * hicann/ops-blas, which have no numbered release. npusim's aclrtGetVersion reports this. */
#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion,
                                             int32_t *patchVersion);
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACL_ACL_H */
