/* aclnn base API (CANN's aclnn/aclnn_base.h): aclnnInit / aclnnFinalize. C and C++. */
#ifndef NPUSIM_ACLNN_ACLNN_BASE_H
#define NPUSIM_ACLNN_ACLNN_BASE_H

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Optional in npusim (operators work after aclInit alone). configPath may be NULL; a non-NULL
 * path must name a readable file, as CANN requires. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_ACLNN_ACLNN_BASE_H */
