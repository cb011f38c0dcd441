/* The stream race detector (NPUSIM_RACECHECK): hooks the runtime calls at the points where
 * device memory is accessed or streams, events and the host are ordered. Private to
 * kernels/runtime; ops/ reports its accesses through npusim_race_launch (npusim.h). */
#ifndef NPUSIM_RACECHECK_H
#define NPUSIM_RACECHECK_H

#include "rt_internal.h"

/* Whether the detector runs (a relaxed read: the hooks below return at once when not). */
bool rt_race_enabled(void);
/* Reads NPUSIM_RACECHECK (aclInit); an unknown value is ACL_ERROR_INVALID_PARAM. */
aclError rt_race_configure(void);

/* Accesses of one operation on stream s (recorded into its capture when it captures); 0, or
 * the race error (error mode: the operation must not be enqueued). */
aclError rt_race_stream_access(rt_stream *s, const npusim_race_access *accesses, int n, const char *op);
/* Accesses by the host (synchronous copies and memsets). */
aclError rt_race_host_access(const npusim_race_access *accesses, int n, const char *op);
/* A replay of model m on stream s: the accesses its capture recorded. */
aclError rt_race_replay(rt_stream *s, const struct rt_capture *m, const char *op);
void rt_race_forget_model(const struct rt_capture *m);

void rt_race_event_record(rt_stream *s, rt_event *e);
void rt_race_event_wait(rt_stream *s, rt_event *e);
void rt_race_event_free(rt_event *e);
/* What the host will know once the work before the event's latest record / queued on s /
 * queued on the device has finished: taken before a synchronisation or query starts (work
 * submitted meanwhile is not covered); NULL when the detector is off. */
struct rc_vc *rt_race_snapshot_event(rt_event *e);
struct rc_vc *rt_race_snapshot_stream(rt_stream *s);
/* Joins the snapshot into the host's clock when `finished` (the synchronisation succeeded,
 * the query said complete); frees it either way. */
void rt_race_host_learns(struct rc_vc *snapshot, bool finished);
/* s is destroyed: its work has finished or was dropped; it orders nothing any more. */
void rt_race_stream_destroyed(rt_stream *s);
/* The device block starting at `start` was freed. */
void rt_race_forget_block(uintptr_t start);

#endif /* NPUSIM_RACECHECK_H */
