/* npusim's internal contract: what runtime/ provides to ops/ (aclnn) and to capture.
 * Not installed and not part of the CANN ABI; user programs include acl/acl.h only. */
#ifndef NPUSIM_H
#define NPUSIM_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Errors. Records `code` and the formatted message for the calling thread (read back by
 * aclGetRecentErrMsg / aclrtGetLastError / aclrtPeekAtLastError) and returns `code`, so
 * callers write `return npusim_error(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");`.
 * Messages name the API, the argument and what was wrong with it. */
int npusim_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Device work. A task is what a stream runs. run() executes on the stream's worker thread
 * (a short task on an idle stream: on the launching thread, see npusim_task_length), one
 * task of a stream at a time and in order, and may execute many times (a captured task runs
 * at every graph replay); release() frees
 * the payload once no stream queue and no graph holds it any more. A non-zero return from
 * run() becomes the stream's sticky error, returned by the next synchronisation of it. */
typedef struct npusim_task_ops {
    const char *name;              /* e.g. "aclnnAdd"; shown by aclmdlRIDebugPrint and errors */
    int (*run)(void *payload);
    void (*release)(void *payload);
} npusim_task_ops;

/* Enqueues a task on `stream` (NULL: the current context's default stream). Validates the
 * stream; on a capturing stream the task is recorded into the capture, not run.
 * Takes ownership of `payload`: when it fails, release() has already been called. */
aclError npusim_launch(aclrtStream stream, const npusim_task_ops *ops, void *payload);

/* How long a task is expected to run, which decides where it may run:
 * - LONG: on the stream's worker (npusim_launch);
 * - SHORT (a few microseconds of work): when the stream is idle (nothing queued or running),
 *   not capturing, and was synchronised a few launches ago at most, at once on the calling
 *   thread, as a fast device finishes it before the host looks, instead of handing it to the
 *   worker and paying a thread wake-up;
 * - MID (up to some tens of microseconds: a scaling or cast of a few hundred KiB): as SHORT, but
 *   only as the first task after a synchronisation (an operation whose result is read at once
 *   saves the two thread wake-ups; in a longer run of launches the worker overlaps it with the
 *   launching, which the calling thread would not);
 * - TINY (less work than handing it to even an awake worker, a few hundred nanoseconds): on
 *   the calling thread whenever the stream is idle and not capturing. A chain of tiny
 *   dependent operations then never involves the worker: no hand-off, no lock shared with
 *   it, no core kept awake.
 * Run on the calling thread, stream order, the sticky error and synchronisation behave as if
 * the worker had run the task. */
typedef enum { NPUSIM_TASK_LONG, NPUSIM_TASK_SHORT, NPUSIM_TASK_TINY, NPUSIM_TASK_MID } npusim_task_length;

/* npusim_launch of a task of `length`, after `check(payload, device)` with the device of the
 * stream (resolved once for both): a non-zero return from check is returned, the payload
 * released, nothing launched. */
aclError npusim_launch_checked(aclrtStream stream, const npusim_task_ops *ops, void *payload,
                               npusim_task_length length, int (*check)(void *payload, int32_t device));

/* The device id a stream belongs to (NULL: the current context's), or -1 with the error set. */
int32_t npusim_stream_device(aclrtStream stream);

/* ACL_SUCCESS when [ptr, ptr + nbytes) lies inside one live device allocation of `device`
 * (or of a device that `device` has enabled peer access to); otherwise an error with a
 * message naming `what` and saying why: NULL, freed, host memory, other device, overrun. */
aclError npusim_check_device_range(const void *ptr, size_t nbytes, int32_t device,
                                   const char *what);

/* The race detector (include/npusim_racecheck.h): the device memory an operation on `stream`
 * reads and writes, given before it is enqueued. 0, or the race error in error mode (then
 * the operation must not be enqueued); returns at once when the detector is off. */
typedef struct { const void *ptr; size_t bytes; int write; } npusim_race_access;
bool npusim_race_enabled(void);
aclError npusim_race_launch(aclrtStream stream, const npusim_race_access *accesses, int n, const char *op);

/* Fault injection (NPUSIM_FAULT_INJECT, runtime/fault.c) for the second phase of operator
 * `opname`: `code` (with a message) when this launch is the one to fail, else 0. */
int npusim_fault_launch(const char *opname, int code);

/* The strict-mode log (NPUSIM_STRICT=1, runtime/notes.c): copies the pending notes, one a
 * line, into buf (NUL-terminated) and forgets them; returns the bytes written. Notes that do
 * not fit stay for the next call. npuarray reads it and turns each note into a warning. */
size_t npusim_take_notes(char *buf, size_t cap);

/* aclrtStreamQuery, then aclrtMemcpy when `stream` has run everything queued on it: a copy
 * of pageable memory done directly, in stream order, on an idle stream, in one call from
 * npuarray instead of two (each with its Python around it). NPUSIM_STREAM_BUSY, nothing
 * copied, when work is pending or the query fails (its error is then the recent one); else
 * aclrtMemcpy's result. */
#define NPUSIM_STREAM_BUSY (-1)
aclError npusim_memcpy_if_idle(void *dst, size_t destMax, const void *src, size_t count,
                               aclrtMemcpyKind kind, aclrtStream stream);

/* Brackets the execution of a kernel (a read lock that fork() waits for: see fork.c). */
void npusim_kernel_begin(void);
void npusim_kernel_end(void);

/* CPU threads shared by kernels and large copies: calls fn on disjoint chunks covering
 * [0, n), each at least `grain` items, on the pool's threads (NPUSIM_NUM_THREADS, default:
 * the number of online CPUs) and on the caller, and returns when all chunks are done. */
typedef void (*npusim_range_fn)(size_t begin, size_t end, void *ctx);
void npusim_parallel_for(size_t n, size_t grain, npusim_range_fn fn, void *ctx);
/* npusim_parallel_for for mid-size work (tens of microseconds), which gains from a second
 * thread only when it answers at once: after such a job waited long for a pool thread's chunk
 * (the thread lost its core on a busy machine), the next ones run on the caller alone for a
 * while (kernels/runtime/pool.c). */
void npusim_parallel_for_mid(size_t n, size_t grain, npusim_range_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* NPUSIM_H */
