/* CANN's media processing V2 umbrella header (acl/dvpp/hi_dvpp.h), reduced to what npusim
 * implements: DVPP memory. */
#ifndef NPUSIM_HI_DVPP_H
#define NPUSIM_HI_DVPP_H

#include "hi_dvpp_type.h"
#include "hi_dvpp_common.h"
#include "hi_dvpp_sys.h"

#endif /* NPUSIM_HI_DVPP_H */
