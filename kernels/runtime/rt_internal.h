/* Private to kernels/runtime: the objects behind the AscendCL handles and the helpers the
 * runtime's modules share. ops/ sees only npusim.h. */
#ifndef NPUSIM_RT_INTERNAL_H
#define NPUSIM_RT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npusim.h"

#define RT_MAX_DEVICES 64
#define RT_TASK_INLINE_BYTES 64
#define RT_MSG_BYTES 512

/* ---- configuration and life cycle (init.c) ---------------------------------------------- */

typedef struct rt_config {
    int32_t device_count;              /* visible devices */
    int32_t physical[RT_MAX_DEVICES];  /* logical id -> physical id */
    size_t device_memory;              /* bytes per device */
    int32_t switch_size;               /* devices per simulated PCIe switch */
    aclrtRunMode run_mode;             /* NPUSIM_RUN_MODE: ACL_HOST or ACL_DEVICE */
} rt_config;

extern rt_config g_rt_config;
bool rt_is_initialized(void);
aclError rt_require_init(const char *api);
/* ACL_SUCCESS when 0 <= id < device_count, else 107001 naming `api`. */
aclError rt_check_device_id(int32_t id, const char *api);

/* NPUSIM_RUN_MODE ("host", default, or "device") as an aclrtRunMode; false when invalid. */
bool rt_parse_run_mode(aclrtRunMode *mode);

/* ---- strict-mode notes (notes.c) ------------------------------------------------------- */

/* Reads NPUSIM_STRICT (aclInit). */
aclError rt_notes_configure(void);
/* Records a note when strict mode is on (never printed; read by npusim_take_notes). */
void rt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- fork (fork.c) ------------------------------------------------------------------------ */

/* Registers the fork handlers (once; called by aclInit). */
void rt_fork_install_handlers(void);
/* ACL_ERROR_UNINITIALIZE naming `api` in a child forked after aclInit, else ACL_SUCCESS. */
aclError rt_check_not_forked(const char *api);

/* ---- fault injection (fault.c) ------------------------------------------------------------ */

typedef enum { RT_FAULT_MALLOC, RT_FAULT_LAUNCH, RT_FAULT_MEMCPY, RT_FAULT_KINDS } rt_fault_kind;
/* Reads NPUSIM_FAULT_INJECT and resets the counters (aclInit). */
aclError rt_fault_configure(void);
/* Counts a call of `kind`; `code` with an "injected fault" message naming `api` when it is the
 * one to fail, else ACL_SUCCESS. */
aclError rt_fault(rt_fault_kind kind, aclError code, const char *api);

/* ---- errors (error.c) ------------------------------------------------------------------- */

/* The calling thread's latest message (not cleared); used to carry a task's failure. */
const char *rt_thread_message(void);
/* The calling thread's error state (code and message), saved around a task run on a user's
 * thread so that the task's own failure does not become that thread's last error. */
typedef struct {
    aclError last_error;
    bool has_message;
    char message[RT_MSG_BYTES];
} rt_error_state;
void rt_error_save(rt_error_state *state);
void rt_error_restore(const rt_error_state *state);

/* ---- handles (handle.c): validation of pointers given back by the user -------------------- */

typedef enum { RT_HANDLE_STREAM = 1, RT_HANDLE_EVENT, RT_HANDLE_CONTEXT, RT_HANDLE_MODEL } rt_handle_kind;
/* false when out of host memory (the handle is then not registered) */
bool rt_handle_add(const void *h, rt_handle_kind kind);
void rt_handle_remove(const void *h);
bool rt_handle_is(const void *h, rt_handle_kind kind);
/* Calls pin(h) while `h` is known live (atomically with respect to rt_handle_take / remove), so
 * that a concurrent destroy cannot free it under the caller; false when it is not live. */
bool rt_handle_pin(const void *h, rt_handle_kind kind, void (*pin)(void *object));
/* rt_handle_pin when `other` is also a live handle of `other_kind` (false, nothing pinned,
 * otherwise): a call on two handles looks both up under the registry's lock once. */
bool rt_handle_pin_with(const void *h, rt_handle_kind kind, void (*pin)(void *object), const void *other,
                        rt_handle_kind other_kind);
/* Removes `h` if it is live; false when it was not (a concurrent or second destroy lost). */
bool rt_handle_take(const void *h, rt_handle_kind kind);

/* ---- time ------------------------------------------------------------------------------ */

uint64_t rt_now_ns(void);

/* The pause between two polls of a bounded spin (a stream worker waiting for work, a
 * synchroniser for completion, the CPU pool for a job): the first RT_BUSY_POLLS polls only
 * pause the core; later ones yield it, since on a machine with more runnable threads than
 * cores the thread being waited for may need this very core. `poll` counts from 1, `start` is
 * the spin's rt_now_ns(); false once `limit_ns` have passed: stop polling. */
#define RT_BUSY_POLLS 256u
bool rt_poll_pause(unsigned poll, uint64_t start, uint64_t limit_ns);
/* Absolute CLOCK_MONOTONIC deadline `ms` from now (for pthread_cond_timedwait). */
void rt_deadline(struct timespec *ts, int32_t ms);

/* ---- tasks and streams (stream.c) ------------------------------------------------------- */

typedef struct rt_task {
    const npusim_task_ops *ops;
    void *payload;            /* the caller's payload, unless is_inline */
    bool is_inline;           /* payload stored in inline_data (runtime's own small tasks) */
    _Alignas(16) unsigned char inline_data[RT_TASK_INLINE_BYTES];
} rt_task;

static inline void *rt_task_payload(rt_task *t) { return t->is_inline ? t->inline_data : t->payload; }

struct rt_context;
struct rt_capture;
struct rt_subscriber;

/* A point in a stream's order that needs no task (rt_stream_mark): `reached(object, value)`
 * runs once the first `after` tasks submitted to the stream have completed. */
typedef struct rt_mark {
    void (*reached)(void *object, uint64_t value);
    void *object;
    uint64_t value, after;
} rt_mark;

typedef struct rt_stream {
    int32_t device;
    int32_t id;
    uint32_t flags;
    uint32_t priority;
    bool is_default;

    pthread_mutex_t mu;
    pthread_cond_t work_cv;     /* worker waits for tasks */
    pthread_cond_t done_cv;     /* synchronisers wait for completion */
    rt_task *ring;
    size_t ring_cap, ring_head, ring_count;
    uint64_t submitted;
    /* Tasks finished; written under `mu`, read without it by a synchronising thread that polls
     * for completion before it sleeps. */
    _Atomic uint64_t completed;
    int done_waiters;
    /* Whether a synchroniser polls before sleeping: the stream's latest waits were short. */
    bool sync_spins;
    bool stop, discard;
    bool worker_sleeping;       /* worker blocked on work_cv: the producer must signal */
    /* A task is running, on the worker or (npusim_task_length) on a launching thread: tasks
     * run one at a time, in order, whichever thread runs them. */
    bool busy;
    /* Short tasks launched since the last synchronisation of the stream (npusim_task_length). */
    uint32_t short_launches;
    /* Tiny tasks queued since the last task that was not tiny (stream.c: tiny_goes_here). */
    uint32_t tiny_run;
    /* Counts enqueued tasks like `submitted` but is bumped after the lock is released; the
     * worker polls it without the lock while it spins for the next task. */
    _Atomic uint64_t posted;
    aclError sticky;
    char sticky_msg[RT_MSG_BYTES];
    uint64_t failure_mode;
    pthread_t worker;

    /* Capture this stream records into, or NULL (written by capture.c under its lock). */
    struct rt_capture *_Atomic capture;
    /* Callbacks (callback.c). */
    struct rt_subscriber *_Atomic subscriber;

    struct rt_stream *next_on_device; /* device's stream list, guarded by the device lock */
    int device_pins;                  /* device synchronisations using it; device lock */
    atomic_int pins;                  /* stream synchronisations using it (freeing waits) */

    /* Race detector (racecheck.c, under its lock): the stream's uid and vector clock. */
    uint32_t race_uid;
    struct rc_vc *race_vc;

    /* Marks not reached yet (rt_stream_mark), in submission order; under `mu`. */
    rt_mark *marks;
    size_t marks_cap, marks_head, marks_count;
} rt_stream;

/* Resolves a user stream handle (NULL: current context's default stream). On failure returns
 * NULL with the error set (*err receives the code). */
rt_stream *rt_stream_resolve(aclrtStream handle, const char *api, aclError *err);
/* Appends a task to the stream's queue (not captured). On failure (out of host memory) the
 * task's payload has been released. */
aclError rt_stream_enqueue(rt_stream *s, rt_task *task, const char *api);
/* The submission path every API uses: records into the capture when the stream captures,
 * else enqueues. On failure the task's payload has been released. */
aclError rt_submit(rt_stream *s, rt_task *task, const char *api);
/* Same with an inline payload copied from `data` (size <= RT_TASK_INLINE_BYTES). */
aclError rt_submit_inline(rt_stream *s, const npusim_task_ops *ops, const void *data, size_t size,
                          const char *api);
/* rt_submit_inline for a short task (a few microseconds of work): run at once on the calling
 * thread when the stream is idle soon after a synchronisation (see npusim_task_length). */
aclError rt_submit_inline_short(rt_stream *s, const npusim_task_ops *ops, const void *data, size_t size,
                                const char *api);
/* rt_submit_inline for a tiny task (no work: an event record), which an idle stream whose
 * worker sleeps runs on the calling thread (see tiny_goes_here in stream.c). */
aclError rt_submit_inline_tiny(rt_stream *s, const npusim_task_ops *ops, const void *data, size_t size,
                               const char *api);
/* Marks the point of the stream's order after every task submitted so far, without a task:
 * `reached(object, value)` runs (with the stream's lock held: it must take no lock but its
 * own) at once when those tasks have completed, else right after the last of them, before
 * a synchroniser sees it complete. No effect on which thread runs the stream's tasks. False
 * (nothing done) when out of host memory. */
bool rt_stream_mark(rt_stream *s, void (*reached)(void *object, uint64_t value), void *object,
                    uint64_t value);
/* Whether a task runs the user's host code (aclrtLaunchHostFunc, aclrtLaunchCallback, the
 * replay of a graph holding one of those): such tasks run on runtime threads only, never on a
 * thread of the user's (a launching or synchronising one). */
bool rt_task_runs_host_code(const rt_task *t);
extern const npusim_task_ops rt_callback_ops; /* callback.c */
/* Waits for every task submitted before the call; returns and clears the sticky error.
 * timeout_ms -1: forever. */
aclError rt_stream_wait_idle(rt_stream *s, int32_t timeout_ms, const char *api);
rt_stream *rt_stream_new(int32_t device, bool is_default, uint32_t priority, uint32_t flags,
                         aclError *err);
/* Waits (wait=true) or discards pending tasks, stops the worker and frees the stream. */
void rt_stream_free(rt_stream *s, bool wait);
bool rt_stream_on_worker(const rt_stream *s);
/* Makes a runtime thread SCHED_BATCH (Linux): waking it never preempts its waker. */
void rt_run_as_batch_thread(pthread_t thread);

/* ---- devices and contexts (device.c) ---------------------------------------------------- */

typedef struct rt_context {
    int32_t device;
    bool is_default;
    rt_stream *default_stream;
} rt_context;

/* Current context of the calling thread, validated; NULL with 107002 set when none. */
rt_context *rt_current_context(const char *api);
/* Device of the current context or -1 (no error set). */
int32_t rt_current_device_or_none(void);
/* Whether `from` has enabled peer access to `to` (true when from == to). */
bool rt_peer_enabled(int32_t from, int32_t to);
void rt_device_link_stream(rt_stream *s);
void rt_device_unlink_stream(rt_stream *s);
/* Destroys every default context (aclFinalize). */
void rt_devices_shutdown(void);
/* Waits for every stream of `device`; 107027 when one of them is capturing. */
aclError rt_device_synchronize(int32_t device, int32_t timeout_ms, const char *api);

/* ---- memory (memory.c) ------------------------------------------------------------------ */

typedef enum { RT_MEM_PAGEABLE = 0, RT_MEM_PINNED = 1, RT_MEM_DEVICE = 2 } rt_mem_kind;
/* Which API allocated a block: each kind is freed by its own free call only. */
typedef enum {
    RT_ORIGIN_MALLOC = 0,      /* aclrtMalloc, aclrtMallocCached, aclrtMallocAlign32 */
    RT_ORIGIN_MALLOC_HOST = 1, /* aclrtMallocHost (device memory in the ACL_DEVICE run mode) */
    RT_ORIGIN_DVPP = 2,        /* acldvppMalloc */
    RT_ORIGIN_HIMPI_DVPP = 3   /* hi_mpi_dvpp_malloc */
} rt_mem_origin;

/* Allocates `padded` bytes (>= req, the size asked for) aligned to `align` (a power of two,
 * at least 64) in the memory of `device`, tagged with `origin`. */
aclError rt_device_alloc(int32_t device, size_t req, size_t padded, size_t align, uint32_t page,
                         rt_mem_origin origin, void **out, const char *api);
/* The rt_mem_origin of the live block holding p, or -1 (pageable, freed, never allocated). */
int rt_mem_block_origin(const void *p);
/* Frees device memory allocated by `origin`'s function; any other pointer is refused with
 * `bad_code` and a message naming the right free call. */
aclError rt_device_free(void *ptr, rt_mem_origin origin, int bad_code, const char *api);

/* Where a pointer lives, by address alone: pageable host, the pinned region or a device
 * region (*device set). */
rt_mem_kind rt_mem_classify(const void *p, int32_t *device);
/* ACL_SUCCESS when [p, p+n) lies in one live block of the region p belongs to (pinned or
 * device). Errors name `api` and `what` (freed, never allocated, overrun). */
aclError rt_mem_check_live(const void *p, size_t n, const char *api, const char *what);
/* The start of the live device block holding p (race detector); false when there is none. */
bool rt_mem_block_start(const void *p, uintptr_t *start);
void rt_mem_reset_config(void);

/* ---- copies (copy.c) -------------------------------------------------------------------- */

/* Copies n bytes, using the thread pool for large sizes. Ranges may overlap. */
void rt_copy_bytes(void *dst, const void *src, size_t n);

/* ---- events (event.c) ------------------------------------------------------------------- */

typedef enum { RT_EVENT_PLAIN, RT_EVENT_FLAG, RT_EVENT_EX } rt_event_kind;

typedef struct rt_event {
    rt_event_kind kind;
    uint32_t flags;
    atomic_int refs;             /* the user's handle + pending record tasks + graphs */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t recorded;           /* record calls issued (host side) */
    uint64_t completed;          /* highest record that has run */
    uint64_t timestamp_ns;       /* completion time of `completed` */
    bool has_timestamp;
    int waiters;
    /* Stream waits submitted (aclrtStreamWaitEvent) that their stream has not passed yet:
     * CANN requires them to complete before aclrtDestroyEvent (acl_rt.h, every release). */
    atomic_int pending_waits;
    /* Capture (guarded by capture.c's lock): the active capture the latest record was issued
     * in, and the index of that record in the capture. */
    struct rt_capture *capture;
    int capture_record;
    /* Race detector: the recording stream's vector clock at the latest record (racecheck.c). */
    struct rc_vc *race_vc;
} rt_event;

rt_event *rt_event_resolve(aclrtEvent handle, const char *api, aclError *err);
/* rt_event_resolve, also holding a reference (release with rt_event_release): a concurrent
 * aclrtDestroyEvent cannot free it. */
rt_event *rt_event_acquire(aclrtEvent handle, const char *api, aclError *err);
void rt_event_retain(rt_event *e);
void rt_event_release(rt_event *e);

/* ---- capture (capture.c) ---------------------------------------------------------------- */

/* Called by rt_submit for a stream with s->capture set: records the task. */
aclError rt_capture_record_task(rt_stream *s, rt_task *task, const char *api);
/* Event record / wait on a stream that captures or is joining a capture. Return
 * -1 when the call is not a capture operation (caller proceeds normally). */
int rt_capture_event_record(rt_stream *s, rt_event *e, const char *api, aclError *err);
int rt_capture_stream_wait(rt_stream *s, rt_event *e, const char *api, aclError *err);
/* Whether `t` replays a graph that runs the user's host code (see rt_task_runs_host_code). */
bool rt_replay_runs_host_code(const rt_task *t);
/* Whether the calling thread may call an unsafe (synchronous) function now. */
aclError rt_capture_check_unsafe(const char *api, aclError code);
bool rt_stream_is_capturing(const rt_stream *s);
/* 107028 when the event belongs to an active capture. */
aclError rt_capture_check_event(const rt_event *e, const char *api);

/* ---- thread pool (pool.c) ---------------------------------------------------------------- */

void rt_pool_reset_config(void);

/* ---- copy engine (copy_engine.c) ---------------------------------------------------------- */

/* Copies n bytes (a mid-size transfer between host and device memory) between the
 * non-overlapping dst and src, with the copy engine's thread taking part when it is free and
 * running (not with NPUSIM_NUM_THREADS=1). */
void rt_transfer_copy(void *dst, const void *src, size_t n);

#endif /* NPUSIM_RT_INTERNAL_H */
