/* npusim's stream race detector: an npusim extension, not part of CANN.
 *
 * NPUSIM_RACECHECK=1 (or "error") | warn | 0 (default), read by aclInit, or these calls at any
 * time. npusim then records, per device allocation and byte range, the last write and the
 * reads since, each with its stream and a vector clock. A stream's clock advances in stream
 * order and joins the clocks of the events it waits for (aclrtStreamWaitEvent); the host's
 * clock joins what it learns has finished (aclrtSynchronizeStream / Event / Device, a
 * successful aclrtStreamQuery or aclrtQueryEventStatus, a destroyed stream), and work
 * submitted afterwards on any stream is ordered after it. A graph replay
 * (aclmdlRIExecuteAsync) accesses what its captured work accesses. Two accesses to
 * overlapping bytes, at least one a write, from different streams (or a stream and the
 * host's synchronous aclrtMemcpy / aclrtMemset) with no order between them are a race:
 *
 * - error mode: the later call fails with ACL_ERROR_RT_PARAM_INVALID (107000; an aclnn
 *   second phase returns it too) and nothing is enqueued; aclGetRecentErrMsg names both
 *   operations (operator or copy, stream, address range, and the caller's source line when
 *   a site provider is set);
 * - warn mode: the call proceeds and the same report is kept for npusim_racecheck_next_report
 *   (npusim never prints).
 */
#ifndef NPUSIM_RACECHECK_API_H
#define NPUSIM_RACECHECK_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPUSIM_RACECHECK_OFF 0
#define NPUSIM_RACECHECK_ERROR 1
#define NPUSIM_RACECHECK_WARN 2

/* Sets the mode; returns the previous one, or -1 (and changes nothing) for an unknown mode.
 * Turning the detector on forgets what it recorded before. */
int npusim_racecheck_set_mode(int mode);
int npusim_racecheck_get_mode(void);
/* Copies the oldest kept report (warn mode) into buf (NUL-terminated, truncated to size) and
 * drops it; returns its length, 0 when there is none. At most 256 reports are kept. */
size_t npusim_racecheck_next_report(char *buf, size_t size);
/* provider(buf, size) writes where the calling thread's current operation comes from (e.g.
 * "train.py:42"); called before each checked operation, without npusim's locks. NULL: none. */
void npusim_racecheck_set_site_provider(void (*provider)(char *buf, size_t size));

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_RACECHECK_API_H */
