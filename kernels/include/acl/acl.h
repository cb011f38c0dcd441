/* AscendCL umbrella header (CANN acl/acl.h): init/finalize, version, recent error message. */
#ifndef NPUSIM_ACL_ACL_H
#define NPUSIM_ACL_ACL_H

#include "acl_base.h"
#include "acl_mdl.h"
#include "acl_rt.h"
#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ACL version implemented by npusim: the open-source CANN runtime's (hicann/runtime). */
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
