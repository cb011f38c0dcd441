/* The system module's error codes of CANN's media headers (acl/dvpp/hi_dvpp_sys.h). */
#ifndef NPUSIM_HI_DVPP_SYS_H
#define NPUSIM_HI_DVPP_SYS_H

#include "hi_dvpp_common.h"

#define HI_ERR_SYS_ILLEGAL_PARAM 0xA0028003
#define HI_ERR_SYS_EXIST         0xA0028004
#define HI_ERR_SYS_UNEXIST       0xA0028005
#define HI_ERR_SYS_NULL_PTR      0xA0028006
#define HI_ERR_SYS_NOT_SUPPORT   0xA0028008
#define HI_ERR_SYS_NOT_PERM      0xA0028009
#define HI_ERR_SYS_NO_MEM        0xA002800C
#define HI_ERR_SYS_NOT_READY     0xA0028010
#define HI_ERR_SYS_BUSY          0xA0028012
#define HI_ERR_SYS_ERR           0xA0028015

#endif /* NPUSIM_HI_DVPP_SYS_H */
