/* CANN acl/acl_mdl.h: since the 9.x runtime an empty compatibility header; the aclmdlRI*
 * declarations (graph capture and replay) are in acl/acl_rt.h, as in hicann/runtime v9.1.0. */
#ifndef NPUSIM_ACL_ACL_MDL_H
#define NPUSIM_ACL_ACL_MDL_H
#endif /* NPUSIM_ACL_ACL_MDL_H */
