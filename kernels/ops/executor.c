/* aclOpExecutor: what the first phase of an operator builds and the second phase runs.
 *
 * Life cycle (CANN's rules, docs/acl-abi.md §6): a normal executor is consumed by its second phase;
 * a repeatable one (aclSetAclOpExecutorRepeatable right after the first phase) may be launched
 * any number of times and is freed by aclDestroyAclOpExecutor. Live executors are kept in a
 * registry, so a consumed, destroyed or foreign pointer is reported instead of dereferenced.
 * A launched task holds a reference; the executor is freed when the last one lets go.
 * Codes as in CANN's nnopbase: a NULL executor is 561103 (ACLNN_ERR_INNER_NULLPTR) for
 * aclSetAclOpExecutorRepeatable / aclDestroyAclOpExecutor / aclSet*TensorAddr, a pointer that is
 * not a live executor 561000 (ACLNN_ERR_INNER) there and 161002 in a second phase. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_internal.h"

#define EXEC_MAGIC 0x4578656375746f72ull

/* ---------------------------------------------------------------------------------------------
 * Registry of live executors. The user holds a handle, not the executor's address: a slot
 * index and the slot's generation, bumped each time the slot is freed. A consumed or
 * destroyed executor's handle is thus refused however many executors come after it (even one
 * living at the same address), and the table stays about as large as the most executors live
 * at once. Handles are odd numbers, never an executor's (aligned) address.
 *
 * A first phase registers and its second phase consumes an executor on every launch, so
 * neither takes a lock: a slot's state word (generation, LIVE, CLAIMED) is changed by compare
 * and swap, a thread claims a live slot for the few instructions it reads or changes the
 * executor (another claimer waits), and each thread keeps a few free slot indices of its own
 * (the slot its last launch consumed is the one its next first phase takes). The slots live
 * in chunks that never move; the lock guards only the shared free indices and the growth. */

#define SLOT_BITS 24
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
#define GENERATION_MASK ((UINT64_C(1) << (63 - SLOT_BITS)) - 1) /* of a handle */
#define CHUNK_BITS 10
#define CHUNK_SLOTS (1u << CHUNK_BITS)
#define CHUNKS ((SLOT_MASK + 1u) >> CHUNK_BITS)
#define SLOT_LIVE UINT64_C(1)
#define SLOT_CLAIMED UINT64_C(2)
#define STATE_GENERATION(state) ((state) >> 2)

typedef struct {
    _Atomic uint64_t state; /* generation << 2 | SLOT_CLAIMED | SLOT_LIVE */
    npusim_exec *ex;        /* written before the state says LIVE, read by its claimer */
} exec_slot;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static exec_slot *_Atomic chunks[CHUNKS];
static uint32_t slots_used;            /* under registry_lock */
static uint32_t *free_slots;           /* shared free indices, under registry_lock */
static uint32_t n_free_slots, free_slots_cap;

/* This thread's free registry slots and spare executors (see exec_alloc), in one
 * thread-local object: one look-up of the thread's storage per call. */
#define THREAD_FREE_SLOTS 16
#define THREAD_SPARES 8
typedef struct {
    uint32_t free_slot[THREAD_FREE_SLOTS];
    int n_free_slots;
    npusim_exec *spare[THREAD_SPARES];
    int n_spares;
    bool registered; /* its exit hands them back (thread_caches_exit) */
} thread_caches;
static _Thread_local thread_caches this_thread;

static bool thread_caches_usable(thread_caches *mine);

static exec_slot *slot_at(uint32_t index)
{
    exec_slot *chunk = atomic_load_explicit(&chunks[index >> CHUNK_BITS], memory_order_acquire);
    return chunk ? &chunk[index & (CHUNK_SLOTS - 1)] : NULL;
}

static aclOpExecutor *handle_of(uint32_t index, uint64_t generation)
{
    return (aclOpExecutor *)(uintptr_t)(((generation & GENERATION_MASK) << (SLOT_BITS + 1)) |
                                        ((uint64_t)index << 1) | 1);
}

/* A free slot index (a new slot when none is free); false when out of host memory or slots. */
static bool take_free_slot(uint32_t *index)
{
    thread_caches *mine = &this_thread;
    if (mine->n_free_slots > 0) {
        *index = mine->free_slot[--mine->n_free_slots];
        return true;
    }
    bool ok = true;
    pthread_mutex_lock(&registry_lock);
    if (n_free_slots > 0) {
        *index = free_slots[--n_free_slots];
    } else if (slots_used > SLOT_MASK) {
        ok = false;
    } else {
        uint32_t c = slots_used >> CHUNK_BITS;
        if (!atomic_load_explicit(&chunks[c], memory_order_relaxed)) {
            exec_slot *chunk = calloc(CHUNK_SLOTS, sizeof *chunk);
            if (chunk) atomic_store_explicit(&chunks[c], chunk, memory_order_release);
            ok = chunk != NULL;
        }
        if (ok) *index = slots_used++;
    }
    pthread_mutex_unlock(&registry_lock);
    return ok;
}

static void put_shared_free_slot(uint32_t index)
{
    pthread_mutex_lock(&registry_lock);
    if (n_free_slots == free_slots_cap) {
        uint32_t cap = free_slots_cap ? 2 * free_slots_cap : 256;
        uint32_t *grown = realloc(free_slots, cap * sizeof *grown);
        if (grown) {
            free_slots = grown;
            free_slots_cap = cap;
        }
    }
    if (n_free_slots < free_slots_cap) free_slots[n_free_slots++] = index; /* else: the slot is lost */
    pthread_mutex_unlock(&registry_lock);
}

/* Files a freed slot's index: this thread's own list, or the shared one. */
static void put_free_slot(uint32_t index)
{
    thread_caches *mine = &this_thread;
    if (mine->n_free_slots < THREAD_FREE_SLOTS && thread_caches_usable(mine))
        mine->free_slot[mine->n_free_slots++] = index;
    else
        put_shared_free_slot(index);
}

/* Registers ex; its handle, or NULL when out of host memory or slots. */
static aclOpExecutor *registry_add(npusim_exec *ex)
{
    uint32_t index;
    if (!take_free_slot(&index)) return NULL;
    exec_slot *slot = slot_at(index);
    uint64_t generation = STATE_GENERATION(atomic_load_explicit(&slot->state, memory_order_relaxed));
    slot->ex = ex;
    atomic_store_explicit(&slot->state, generation << 2 | SLOT_LIVE, memory_order_release);
    return handle_of(index, generation);
}

/* Claims the slot of the live executor behind `handle`: the slot (its executor in *ex, its
 * state before the claim in *state), or NULL (consumed, destroyed, or not a handle). The
 * claimer ends the claim with registry_unclaim or registry_remove. */
static exec_slot *registry_claim(const aclOpExecutor *handle, npusim_exec **ex, uint64_t *state)
{
    uint64_t v = (uint64_t)(uintptr_t)handle;
    exec_slot *slot = v & 1 ? slot_at((uint32_t)(v >> 1) & SLOT_MASK) : NULL;
    if (!slot) return NULL;
    uint64_t generation = v >> (SLOT_BITS + 1);
    for (unsigned polls = 1;; polls++) {
        uint64_t s = atomic_load_explicit(&slot->state, memory_order_acquire);
        if (!(s & SLOT_LIVE) || (STATE_GENERATION(s) & GENERATION_MASK) != generation) return NULL;
        if (s & SLOT_CLAIMED) { /* another thread reads or changes it: a few instructions */
            if (polls % 64 == 0) sched_yield();
            continue;
        }
        if (atomic_compare_exchange_weak_explicit(&slot->state, &s, s | SLOT_CLAIMED, memory_order_acquire,
                                                  memory_order_relaxed)) {
            *ex = slot->ex;
            *state = s;
            return slot;
        }
    }
}

static void registry_unclaim(exec_slot *slot, uint64_t state)
{
    atomic_store_explicit(&slot->state, state, memory_order_release);
}

/* Forgets the claimed slot's executor: the slot's next handle differs. */
static void registry_remove(exec_slot *slot, uint64_t state, const aclOpExecutor *handle)
{
    slot->ex = NULL;
    atomic_store_explicit(&slot->state, (STATE_GENERATION(state) + 1) << 2, memory_order_release);
    put_free_slot((uint32_t)((uintptr_t)handle >> 1) & SLOT_MASK);
}

/* ---------------------------------------------------------------------------------------------
 * Creation and release */

/* Freed executors kept for reuse, oldest first. An executor is a few KB, beyond malloc's
 * per-thread caches, and is freed on the stream's worker thread: a malloc/free per operation
 * would contend with the launching thread for the heap's lock. (Reuse is safe from stale
 * handles: a handle names a registry slot's generation, not the address.) */
#define SPARE_EXECUTORS 64
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static npusim_exec *spare[SPARE_EXECUTORS]; /* a ring: n_spare entries from spare_head */
static int spare_head, n_spare;

/* A few freed executors of this thread, reused by its next first phases without the shared
 * ring's lock: a tiny operation runs on its launching thread (npusim_task_length), which
 * frees its executor and makes the next one. A thread's leftovers (and its free registry
 * slots) go back to the shared lists when it exits (thread_caches_exit). */
static pthread_key_t thread_caches_key;
static pthread_once_t thread_caches_once = PTHREAD_ONCE_INIT;

static void ring_put(npusim_exec *ex)
{
    npusim_exec *oldest = NULL;
    pthread_mutex_lock(&spare_lock);
    if (n_spare == SPARE_EXECUTORS) { /* full: the oldest goes back to malloc */
        oldest = spare[spare_head];
        spare_head = (spare_head + 1) % SPARE_EXECUTORS;
        n_spare--;
    }
    spare[(spare_head + n_spare) % SPARE_EXECUTORS] = ex;
    n_spare++;
    pthread_mutex_unlock(&spare_lock);
    free(oldest);
}

static void thread_caches_exit(void *caches)
{
    thread_caches *mine = caches;
    while (mine->n_spares > 0) ring_put(mine->spare[--mine->n_spares]);
    while (mine->n_free_slots > 0) put_shared_free_slot(mine->free_slot[--mine->n_free_slots]);
}

static void thread_caches_init(void) { (void)pthread_key_create(&thread_caches_key, thread_caches_exit); }

/* Whether this thread may keep spares and free slots: its exit hands them back (registered
 * once). */
static bool thread_caches_usable(thread_caches *mine)
{
    if (!mine->registered) {
        pthread_once(&thread_caches_once, thread_caches_init);
        mine->registered = pthread_setspecific(thread_caches_key, mine) == 0;
    }
    return mine->registered;
}

static npusim_exec *exec_alloc(void)
{
    thread_caches *mine = &this_thread;
    if (mine->n_spares > 0) return mine->spare[--mine->n_spares];
    npusim_exec *ex = NULL;
    pthread_mutex_lock(&spare_lock);
    if (n_spare > 0) {
        ex = spare[spare_head];
        spare_head = (spare_head + 1) % SPARE_EXECUTORS;
        n_spare--;
    }
    pthread_mutex_unlock(&spare_lock);
    return ex ? ex : malloc(sizeof *ex);
}

static void exec_free(npusim_exec *ex)
{
    if (ex->shape_out) npusim_tensor_release(ex->shape_out);
    if (ex->shape_out2) npusim_tensor_release(ex->shape_out2);
    ex->magic = 0;
    thread_caches *mine = &this_thread;
    if (mine->n_spares < THREAD_SPARES && thread_caches_usable(mine)) mine->spare[mine->n_spares++] = ex;
    else ring_put(ex);
}

static void exec_unref(npusim_exec *ex)
{
    if (atomic_fetch_sub(&ex->refs, 1) == 1) exec_free(ex);
}

/* A launch of a repeatable executor: the addresses at launch time (they may be rebound later). */
typedef struct {
    npusim_exec *ex;
    void *data[NPUSIM_MAX_OPERANDS];
} repeat_launch;

static int run_with(npusim_exec *ex, void *const *data)
{
    npusim_view views[NPUSIM_MAX_OPERANDS];
    for (int i = 0; i < ex->n_tensors; i++)
        if (ex->present[i]) npusim_make_view(&views[i], &ex->t[i], data[i]);
    npusim_kernel_begin();
    int rc = ex->def->run(ex, views);
    npusim_kernel_end();
    return rc;
}

int npusim_exec_run_single(void *payload)
{
    npusim_exec *ex = payload;
    void *data[NPUSIM_MAX_OPERANDS];
    for (int i = 0; i < ex->n_tensors; i++) data[i] = ex->t[i].data;
    return run_with(ex, data);
}

void npusim_exec_release_single(void *payload) { exec_unref(payload); }

int npusim_exec_run_repeat(void *payload)
{
    repeat_launch *l = payload;
    return run_with(l->ex, l->data);
}

void npusim_exec_release_repeat(void *payload)
{
    repeat_launch *l = payload;
    exec_unref(l->ex);
    free(l);
}

void npusim_make_view(npusim_view *v, const aclTensor *t, void *data)
{
    v->dtype = t->dtype;
    v->ndim = t->ndim;
    for (int i = 0; i < t->ndim; i++) {
        v->shape[i] = t->shape[i];
        v->strides[i] = t->strides[i];
    }
    v->base = (char *)data + t->offset * (int64_t)npusim_dtype_size(t->dtype);
}

npusim_exec *npusim_exec_create(const npusim_opdef *def, const aclTensor *const *inputs, int n_inputs,
                                const aclTensor *const *outputs, int n_outputs)
{
    npusim_exec *ex = exec_alloc();
    if (!ex) {
        npusim_error(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of host memory for the executor", def->name);
        return NULL;
    }
    /* Only the header is cleared: the tensor snapshots are written below. Its size is hidden
     * from the compiler, which would otherwise inline the clear as a `rep stos`, whose start-up
     * costs more than the C library's vector stores for these few hundred bytes (every launch
     * makes an executor). */
    size_t header = offsetof(npusim_exec, t);
    __asm__("" : "+r"(header));
    memset(ex, 0, header);
    ex->magic = EXEC_MAGIC;
    ex->def = def;
    atomic_init(&ex->refs, 1);
    ex->n_inputs = n_inputs;
    ex->n_tensors = n_inputs + n_outputs;
    for (int i = 0; i < ex->n_tensors; i++) {
        const aclTensor *t = i < n_inputs ? inputs[i] : outputs[i - n_inputs];
        ex->present[i] = t != NULL;
        if (t) ex->t[i] = *t;
    }
    return ex;
}

aclnnStatus npusim_exec_finish(npusim_exec *ex, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    aclOpExecutor *handle = registry_add(ex);
    if (!handle) {
        const char *name = ex->def->name;
        exec_free(ex);
        return npusim_error(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of host memory for the executor", name);
    }
    *workspaceSize = 0;
    *executor = handle;
    return ACLNN_SUCCESS;
}

npusim_exec *npusim_exec_of(aclOpExecutor *handle)
{
    npusim_exec *ex = NULL;
    uint64_t state;
    exec_slot *slot = registry_claim(handle, &ex, &state);
    if (slot) registry_unclaim(slot, state);
    return ex;
}

/* ---------------------------------------------------------------------------------------------
 * Second phase */

/* Takes the registry's hold on a live executor for one launch (consuming a single-use one);
 * the executor in *out. */
static int acquire_for_launch(const char *opname, aclOpExecutor *executor, npusim_exec **out)
{
    if (!executor) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%s: executor is NULL", opname);
    uint64_t state;
    npusim_exec *ex = NULL;
    exec_slot *slot = registry_claim(executor, &ex, &state);
    *out = ex;
    if (!slot)
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "%s: executor %p is not live: it was already used by a second-phase call "
                            "(executors are single use unless aclSetAclOpExecutorRepeatable is called), "
                            "destroyed, or never created", opname, (void *)executor);
    if (ex->def->name != opname && strcmp(ex->def->name, opname) != 0) {
        const char *creator = ex->def->name;
        registry_unclaim(slot, state);
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: executor %p was created by %sGetWorkspaceSize",
                            opname, (void *)executor, creator);
    }
    if (ex->repeatable) {
        atomic_fetch_add(&ex->refs, 1);
        registry_unclaim(slot, state);
    } else {
        registry_remove(slot, state, executor);
    }
    return 0;
}

/* A task's length (npusim_task_length) from the bytes its operands span, read and written
 * together: a kernel's time follows its memory traffic more than its element count (a float64
 * cast moves twice the bytes of a float32 scaling of as many elements).
 * At most TINY_TASK_BYTES: a few hundred nanoseconds, less than handing the task to even an
 * awake worker (the queue's lock and the cache lines shared with it): NPUSIM_TASK_TINY.
 * At most SHORT_TASK_BYTES: a few microseconds, less than waking a sleeping stream worker:
 * NPUSIM_TASK_SHORT.
 * At most MID_TASK_BYTES: up to some tens of microseconds (k-means' (1797, 64) scalings, casts
 * and its (1797, 64) @ (64, 10) product, split across the pool): worth running on the
 * launching thread only right after a synchronisation, NPUSIM_TASK_MID (in a run of such
 * launches the worker overlaps them with the launching thread's own work: k-means runs 1.5x
 * slower when the first few of each iteration run on the launching thread). */
#define TINY_TASK_BYTES ((int64_t)16 << 10)
#define SHORT_TASK_BYTES ((int64_t)64 << 10)
#define MID_TASK_BYTES ((int64_t)2 << 20)

static int64_t total_bytes(const npusim_exec *ex)
{
    int64_t bytes = 0;
    for (int i = 0; i < ex->n_tensors; i++)
        if (ex->present[i]) bytes += npusim_numel(&ex->t[i]) * (int64_t)npusim_dtype_size(ex->t[i].dtype);
    return bytes;
}

static npusim_task_length task_length(const npusim_exec *ex)
{
    int64_t bytes = total_bytes(ex);
    return bytes <= TINY_TASK_BYTES    ? NPUSIM_TASK_TINY
           : bytes <= SHORT_TASK_BYTES ? NPUSIM_TASK_SHORT
           : bytes <= MID_TASK_BYTES   ? NPUSIM_TASK_MID
                                       : NPUSIM_TASK_LONG;
}

static int check_ranges(const npusim_exec *ex, void *const *data, int32_t device)
{
    for (int i = 0; i < ex->n_tensors; i++) {
        if (!ex->present[i]) continue;
        const aclTensor *t = &ex->t[i];
        int64_t n = npusim_numel(t);
        if (n == 0) continue;
        int64_t last = t->offset;
        for (int d = 0; d < t->ndim; d++) last += (t->shape[d] - 1) * t->strides[d];
        size_t isz = npusim_dtype_size(t->dtype);
        const char *first = (const char *)data[i] + t->offset * (int64_t)isz;
        size_t bytes = (size_t)(last - t->offset + 1) * isz;
        if (npusim_check_device_range(first, bytes, device, ex->def->name) == ACL_SUCCESS) continue;
        /* Failed: check again naming the tensor, for the message. */
        char what[96];
        snprintf(what, sizeof what, "%s %s %d", ex->def->name, i < ex->n_inputs ? "input" : "output",
                 i < ex->n_inputs ? i : i - ex->n_inputs);
        return npusim_check_device_range(first, bytes, device, what);
    }
    return 0;
}

/* The race detector's view of a launch (npusim_race_launch): inputs read, outputs written. */
static int race_check(const npusim_exec *ex, void *const *data, aclrtStream stream)
{
    if (!npusim_race_enabled()) return 0;
    npusim_race_access accesses[NPUSIM_MAX_OPERANDS];
    int n = 0;
    for (int i = 0; i < ex->n_tensors; i++) {
        if (!ex->present[i]) continue;
        const aclTensor *t = &ex->t[i];
        int64_t count = npusim_numel(t);
        if (count == 0) continue;
        int64_t first = t->offset, last = t->offset;
        for (int d = 0; d < t->ndim; d++) {
            int64_t step = (t->shape[d] - 1) * t->strides[d];
            if (step < 0) first += step;
            else last += step;
        }
        size_t isz = npusim_dtype_size(t->dtype);
        accesses[n++] = (npusim_race_access){(const char *)data[i] + first * (int64_t)isz,
                                             (size_t)(last - first + 1) * isz, i >= ex->n_inputs};
    }
    return npusim_race_launch(stream, accesses, n, ex->def->name);
}

/* The checks of a launch on `device` (npusim_launch_checked): the operands' ranges, then the
 * injected launch fault. */
static int check_launch(const npusim_exec *ex, void *const *data, int32_t device)
{
    int rc = check_ranges(ex, data, device);
    return rc ? rc : npusim_fault_launch(ex->def->name, ACLNN_ERR_RUNTIME_ERROR);
}

static int check_single(void *payload, int32_t device)
{
    npusim_exec *ex = payload;
    void *data[NPUSIM_MAX_OPERANDS];
    for (int i = 0; i < ex->n_tensors; i++) data[i] = ex->t[i].data;
    return check_launch(ex, data, device);
}

aclnnStatus npusim_exec_launch(const char *opname, void *workspace, uint64_t workspaceSize,
                               aclOpExecutor *executor, aclrtStream stream)
{
    (void)workspace; /* every npusim operator asks for 0 bytes of workspace */
    (void)workspaceSize;
    npusim_exec *ex = NULL;
    int rc = acquire_for_launch(opname, executor, &ex);
    if (rc) return rc;
    void *data[NPUSIM_MAX_OPERANDS];
    for (int i = 0; i < ex->n_tensors; i++) data[i] = ex->t[i].data;
    if ((rc = race_check(ex, data, stream))) {
        exec_unref(ex);
        return rc;
    }
    if (!ex->repeatable) return npusim_launch_checked(stream, &ex->def->single_use, ex, task_length(ex), check_single);
    int32_t device = npusim_stream_device(stream);
    if (device < 0) rc = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
    if (device < 0 && rc == 0) rc = npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: invalid stream", opname);
    if (!rc) rc = check_launch(ex, data, device);
    if (rc) {
        exec_unref(ex);
        return rc;
    }
    repeat_launch *l = malloc(sizeof *l);
    if (!l) {
        exec_unref(ex);
        return npusim_error(ACLNN_ERR_INNER, "%s: out of host memory", opname);
    }
    l->ex = ex;
    memcpy(l->data, data, sizeof(void *) * (size_t)ex->n_tensors);
    return npusim_launch(stream, &ex->def->repeatable, l);
}

/* ---------------------------------------------------------------------------------------------
 * Public executor API */

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    if (!executor) return npusim_error(ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is NULL");
    npusim_exec *ex = NULL;
    uint64_t state;
    exec_slot *slot = registry_claim(executor, &ex, &state);
    if (slot) {
        ex->repeatable = true;
        registry_unclaim(slot, state);
    }
    if (!ex)
        return npusim_error(ACLNN_ERR_INNER,
                            "aclSetAclOpExecutorRepeatable: executor %p is not live (already consumed by "
                            "its second phase, or destroyed); call it right after GetWorkspaceSize",
                            (void *)executor);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    if (!executor) return npusim_error(ACLNN_ERR_INNER_NULLPTR, "aclDestroyAclOpExecutor: executor is NULL");
    npusim_exec *ex = NULL;
    uint64_t state;
    exec_slot *slot = registry_claim(executor, &ex, &state);
    if (slot) registry_remove(slot, state, executor);
    if (!ex)
        return npusim_error(ACLNN_ERR_INNER,
                            "aclDestroyAclOpExecutor: executor %p is not live (a single-use executor is "
                            "released by its second phase; or it was already destroyed)", (void *)executor);
    exec_unref(ex);
    return ACLNN_SUCCESS;
}

enum addr_group { GROUP_INPUTS, GROUP_OUTPUTS, GROUP_ALL };

/* Rebinds the device address of tensor `index` of a group of a live executor's tensors. */
static aclnnStatus set_addr(const char *api, aclOpExecutor *handle, size_t index, enum addr_group group,
                            aclTensor *tensor, void *addr)
{
    if (!handle) return npusim_error(ACLNN_ERR_INNER_NULLPTR, "%s: executor is NULL", api);
    if (!tensor) return npusim_error(ACLNN_ERR_INNER_NULLPTR, "%s: tensor is NULL", api);
    int rc = 0;
    npusim_exec *ex = NULL;
    uint64_t state;
    exec_slot *slot = registry_claim(handle, &ex, &state);
    if (!slot) return npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: executor %p is not live", api, (void *)handle);
    int first = group == GROUP_OUTPUTS ? ex->n_inputs : 0;
    int count = group == GROUP_INPUTS ? ex->n_inputs
                : group == GROUP_OUTPUTS ? ex->n_tensors - ex->n_inputs : ex->n_tensors;
    if (index >= (size_t)count) {
        rc = npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: index %zu is out of range: %s has %d such tensors",
                          api, index, ex->def->name, count);
    } else if (!ex->present[first + (int)index]) {
        rc = npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: tensor %zu of %s was NULL at the first phase", api,
                          index, ex->def->name);
    } else {
        ex->t[first + (int)index].data = addr;
        if (npusim_is_tensor(tensor)) tensor->data = addr;
    }
    registry_unclaim(slot, state);
    return rc;
}

aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return set_addr("aclSetInputTensorAddr", executor, index, GROUP_INPUTS, tensor, addr);
}

aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return set_addr("aclSetOutputTensorAddr", executor, index, GROUP_OUTPUTS, tensor, addr);
}

aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return set_addr("aclSetTensorAddr", executor, index, GROUP_ALL, tensor, addr);
}

aclnnStatus AclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return aclSetInputTensorAddr(executor, index, tensor, addr);
}

aclnnStatus AclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return aclSetOutputTensorAddr(executor, index, tensor, addr);
}

aclnnStatus AclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return aclSetTensorAddr(executor, index, tensor, addr);
}

aclnnStatus aclnnInit(const char *configPath)
{
    if (!configPath) return ACLNN_SUCCESS;
    FILE *f = fopen(configPath, "r");
    if (!f) return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclnnInit: cannot read configPath \"%s\"", configPath);
    fclose(f);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }
