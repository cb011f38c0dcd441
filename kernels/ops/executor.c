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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_internal.h"

#define EXEC_MAGIC 0x4578656375746f72ull

/* ---------------------------------------------------------------------------------------------
 * Registry of live executors. The user holds a handle, not the executor's address: a slot
 * index and the slot's generation, bumped each time the slot is freed. A consumed or
 * destroyed executor's handle is thus refused however many executors come after it (even one
 * living at the same address), and the table stays as large as the most executors live at
 * once. Handles are odd numbers, never an executor's (aligned) address. */

#define SLOT_BITS 24
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
#define NO_SLOT UINT32_MAX

typedef struct {
    npusim_exec *ex;     /* NULL: free */
    uint64_t generation; /* of the slot's current (or next) executor */
    uint32_t next_free;
} exec_slot;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static exec_slot *slots;
static uint32_t slots_used, slots_cap, free_head = NO_SLOT;

static aclOpExecutor *handle_of(uint32_t index)
{
    uint64_t generation = slots[index].generation & ((UINT64_C(1) << (63 - SLOT_BITS)) - 1);
    return (aclOpExecutor *)(uintptr_t)((generation << (SLOT_BITS + 1)) | ((uint64_t)index << 1) | 1);
}

/* The live executor behind `handle`, or NULL (consumed, destroyed, or not a handle). */
static npusim_exec *registry_find(const aclOpExecutor *handle)
{
    uint64_t v = (uint64_t)(uintptr_t)handle;
    uint32_t index = (uint32_t)(v >> 1) & SLOT_MASK;
    if (!(v & 1) || index >= slots_used || !slots[index].ex) return NULL;
    return handle_of(index) == handle ? slots[index].ex : NULL;
}

/* Registers ex; its handle, or NULL when out of host memory or slots. */
static aclOpExecutor *registry_add(npusim_exec *ex)
{
    uint32_t index = free_head;
    if (index != NO_SLOT) {
        free_head = slots[index].next_free;
    } else {
        if (slots_used == slots_cap) {
            uint32_t cap = slots_cap ? slots_cap * 2 : 256;
            exec_slot *grown = cap <= SLOT_MASK + 1u ? realloc(slots, cap * sizeof *grown) : NULL;
            if (!grown) return NULL;
            slots = grown;
            slots_cap = cap;
        }
        index = slots_used++;
        slots[index].generation = 0;
    }
    slots[index].ex = ex;
    return handle_of(index);
}

/* Forgets the executor behind the live `handle`: the slot's next handle differs. */
static void registry_remove(const aclOpExecutor *handle)
{
    uint32_t index = (uint32_t)((uintptr_t)handle >> 1) & SLOT_MASK;
    slots[index].ex = NULL;
    slots[index].generation++;
    slots[index].next_free = free_head;
    free_head = index;
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
 * frees its executor and makes the next one. A thread's leftovers go back to the ring when
 * it exits (thread_spares_exit). */
#define THREAD_SPARES 8
static _Thread_local npusim_exec *thread_spare[THREAD_SPARES];
static _Thread_local int n_thread_spare;
static _Thread_local bool thread_spares_registered;
static pthread_key_t thread_spares_key;
static pthread_once_t thread_spares_once = PTHREAD_ONCE_INIT;

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

static void thread_spares_exit(void *unused)
{
    (void)unused;
    while (n_thread_spare > 0) ring_put(thread_spare[--n_thread_spare]);
}

static void thread_spares_init(void) { (void)pthread_key_create(&thread_spares_key, thread_spares_exit); }

/* Whether this thread may keep spares: its exit hands them back (registered once). */
static bool thread_spares_usable(void)
{
    if (!thread_spares_registered) {
        pthread_once(&thread_spares_once, thread_spares_init);
        thread_spares_registered = pthread_setspecific(thread_spares_key, &n_thread_spare) == 0;
    }
    return thread_spares_registered;
}

static npusim_exec *exec_alloc(void)
{
    if (n_thread_spare > 0) return thread_spare[--n_thread_spare];
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
    if (n_thread_spare < THREAD_SPARES && thread_spares_usable()) thread_spare[n_thread_spare++] = ex;
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
    /* Only the header is cleared: the tensor snapshots are written below. */
    memset(ex, 0, offsetof(npusim_exec, t));
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
    pthread_mutex_lock(&registry_lock);
    aclOpExecutor *handle = registry_add(ex);
    pthread_mutex_unlock(&registry_lock);
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
    pthread_mutex_lock(&registry_lock);
    npusim_exec *ex = registry_find(handle);
    pthread_mutex_unlock(&registry_lock);
    return ex;
}

/* ---------------------------------------------------------------------------------------------
 * Second phase */

/* Takes the registry's hold on a live executor for one launch (consuming a single-use one);
 * the executor in *out. */
static int acquire_for_launch(const char *opname, aclOpExecutor *executor, npusim_exec **out)
{
    if (!executor) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%s: executor is NULL", opname);
    pthread_mutex_lock(&registry_lock);
    npusim_exec *ex = *out = registry_find(executor);
    int rc = 0;
    if (!ex) {
        rc = npusim_error(ACLNN_ERR_PARAM_INVALID,
                          "%s: executor %p is not live: it was already used by a second-phase call "
                          "(executors are single use unless aclSetAclOpExecutorRepeatable is called), "
                          "destroyed, or never created", opname, (void *)executor);
    } else if (strcmp(ex->def->name, opname) != 0) {
        rc = npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: executor %p was created by %sGetWorkspaceSize",
                          opname, (void *)executor, ex->def->name);
    } else if (ex->repeatable) {
        atomic_fetch_add(&ex->refs, 1);
    } else {
        registry_remove(executor);
    }
    pthread_mutex_unlock(&registry_lock);
    return rc;
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
    pthread_mutex_lock(&registry_lock);
    npusim_exec *ex = registry_find(executor);
    if (ex) ex->repeatable = true;
    pthread_mutex_unlock(&registry_lock);
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
    pthread_mutex_lock(&registry_lock);
    npusim_exec *ex = registry_find(executor);
    if (ex) registry_remove(executor);
    pthread_mutex_unlock(&registry_lock);
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
    pthread_mutex_lock(&registry_lock);
    int rc = 0;
    npusim_exec *ex = registry_find(handle);
    if (!ex) {
        rc = npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: executor %p is not live", api, (void *)handle);
        pthread_mutex_unlock(&registry_lock);
        return rc;
    }
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
    pthread_mutex_unlock(&registry_lock);
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
