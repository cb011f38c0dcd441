/* _fastpath.c: the host path of small operations in C.
 *
 * A small operation's cost is almost all host overhead: in Python, `z = z + y` on 16 floats
 * spent ~2.4 us in eight Python frames (plan lookup, stream lookup, pool, result object,
 * launch, and the old result's release) around ~0.8 us of aclnn work. This module does the
 * common case of those paths in C, with the same objects and the same rules:
 *
 *   BinaryOperator  NPUArray's operators and the public binary functions' bodies:
 *                   `x1 <op> x2` for two NPUArrays (of one shape, or shapes that
 *                   broadcast), `x <op> 2.0` and `2.0 <op> x` for a Python float or int,
 *                   and `x <op>= y` (also `x[...] = y` and copies, aclnnInplaceCopy), when
 *                   the operator takes the dtypes as they are: the result's block from the
 *                   pool's free list of the current stream, the DeviceBuffer and NPUArray
 *                   made with their slots set, the aclTensor (and aclScalar) from the
 *                   descriptor caches, then the two aclnn phases (aclnn<Op>GetWorkspaceSize,
 *                   aclnn<Op>) through the provider's entry points, CANN's or npusim's alike.
 *   unary_result    the same for a unary operator (aclnnExp, ...) and aclnnCast.
 *   reduction_result  the same for the reductions (aclnnReduceSum, aclnnArgMax, ...).
 *   empty_result    a new array from the pool, nothing launched (_ops.empty).
 *   fill            aclnnInplaceFillScalar (_ops.fill_).
 *   read_to_host    a small blocking read: aclrtSynchronizeStream + aclrtMemcpy.
 *   BufferRelease   DeviceBuffer.__del__: the block back to its free list.
 *   ReductionFunction  npuarray.sum(x, axis) / x.sum(axis) (and max, min): the plan
 *                   _statistical memoised, run by reduction_result.
 *   MatmulFunction  npuarray.matmul(x1, x2) / x1 @ x2: the product _linear_algebra
 *                   memoised, one aclnnMatmul (a view operand's aclTensor from the cache).
 *
 * Each checks the conditions of its common case first and otherwise calls the Python
 * function it stands in for (`fallback`; the functions return None instead), which
 * handles everything else (casts, NumPy scalars, a graph capture, a stream switch, a pool
 * miss, errors): this module adds no semantics of its own. While a profile runs, its
 * launches are recorded here (open_record, close_record), as the Python hooks record
 * theirs, into the running profile's LaunchLog (C arrays: no Python object made per
 * launch); so are the Python launch paths' (launch_begin, launch_end), and a profile's
 * timing events of a stream are read in one call (event_times).
 *
 * Everything it reads comes from one object, the FastPathState handed to configure()
 * (npuarray/_core/_fastpath_state.py lists its fields): npuarray's classes with the slot
 * maps their owners publish (offsets taken once from the classes' member descriptors),
 * the runtime's published state objects and containers, and _ops's caches. configure()
 * checks every field and slot and raises naming what is missing, so a change in the
 * runtime fails at import instead of silently sending operations to Python. cffi pointers
 * are read through cffi's C API for compiled modules. The Python side is
 * npuarray/_core/_ops.py (configure and the callers' fallbacks) and
 * npuarray/_core/_elementwise.py (the operators).
 *
 * Every step runs with the GIL held, except the aclnn phases and the runtime calls: the
 * stream may block a launch (a full queue) while its worker waits for the GIL to run a host
 * function. npusim's launches never block (its queue grows), so there the phases of a tiny
 * operation keep the GIL (phases_keep_gil). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* The aclnn phases of an operator whose first phase takes 2, 3 or 4 object pointers (see
 * npuarray/_acl/_launch.h: aclnnAdd(self, other, alpha, out), aclnnMul(self, other, out),
 * aclnnInplaceMul(selfRef, other)). */
typedef int32_t (*first_phase_2)(void *, void *, uint64_t *, void **);
typedef int32_t (*first_phase_3)(void *, void *, void *, uint64_t *, void **);
typedef int32_t (*first_phase_4)(void *, void *, void *, void *, uint64_t *, void **);
typedef int32_t (*second_phase)(void *, uint64_t, void *, void *);
typedef int32_t (*cast_phase)(void *, int, void *, uint64_t *, void **); /* aclnnCast */

#define SMALL_LIMIT (1 << 20) /* the pool's lock-free block sizes (_memory_pool._SMALL_LIMIT) */
#define GRANULE 512           /* and their rounding (_memory_pool._GRANULE) */

/* ---------------------------------------------------------------------------------------
 * State set by configure(): everything is read from one FastPathState object
 * (npuarray/_core/_fastpath_state.py documents each field), once; the containers it hands
 * over are changed in place by their owners and never rebound. */

static int configured;
static uint64_t generation; /* of the configuration: one more at each configure() */
static PyTypeObject *array_type;  /* npuarray.NPUArray */
static PyTypeObject *buffer_type; /* runtime DeviceBuffer */
static PyTypeObject *pool_type;   /* runtime MemoryPool (exactly: a subclass is Python's) */
/* __slots__ offsets, by role (the owners' published slot maps) */
static Py_ssize_t a_buffer, a_shape, a_strides, a_offset, a_dtype, a_tensor;
static Py_ssize_t b_ptr, b_nbytes, b_device, b_pool, b_size, b_stream, b_others;
static Py_ssize_t p_device, p_free, p_late;
static Py_ssize_t stream_handle, device_id;
static Py_ssize_t process_forked, process_deferred; /* of runtime ProcessState */
static Py_ssize_t recording_profile, recording_tracks, recording_launches, recording_pools,
    recording_serial;
                                                     /* of the profiler's Recording */
/* cffi's C API for compiled modules (the `_cffi_backend._C_API` capsule, whose table of
 * exports only grows between cffi versions): entry 11 converts a cdata to the C pointer
 * of a ctype, here `void *` (any pointer cdata). */
#define CFFI_TO_C_POINTER 11
typedef char *(*cffi_to_c_pointer_fn)(PyObject *, PyObject *);
static cffi_to_c_pointer_fn cffi_to_c_pointer;
static PyObject *void_pointer_type; /* ffi.typeof("void *") */
/* runtime state */
static PyObject *capture_active;   /* _capture_guard.active: a dict, changed in place */
static PyObject *process;          /* _device.process_state: forked, deferred_releases */
static PyObject *recording;        /* _profiler.recording: the running profile or None */
static PyObject *profiler_begin;   /* _profiler.begin_launch(op_name, arrays, stream) */
static PyObject *profiler_end;     /* _profiler.end(record) */
static PyObject *profiler_take_event;   /* _profiler.take_event(device_id): a new event */
static PyObject *profiler_record_event; /* _profiler.record_timing_event(track, stream) */
static PyObject *profiler_capturing;    /* _profiler.capturing(stream) */
static PyObject *stream_tls;       /* _stream.thread_state: "current" {device id: Stream} */
static PyObject *device_tls;       /* _device.thread_state: "acl_device", "in_host_func" */
static PyObject *pool_tls;         /* _memory_pool.pool_overrides: "overrides" */
static PyObject *default_streams;  /* _stream.default_streams {device id: Stream} */
static PyObject *default_pools;    /* _memory_pool.default_pools {device id: MemoryPool} */
static PyObject *whole_tensors;    /* _ops._whole_tensors {(ptr, shape, dtype): aclTensor} */
static PyObject *whole_tensor;     /* _ops._whole_tensor(x): a cache miss */
static PyObject *view_tensor;      /* _ops.acl_tensor(x): a view's, filed on it */
static PyObject *scalars;          /* _ops._scalars {(type, value, dtype): aclScalar} */
static PyObject *acl_scalar;       /* _ops.acl_scalar(value, dtype): a cache miss */
static PyObject *activate;         /* _device.activate(device_id) */
static PyObject *entry_table;      /* _ops._entry_points {op name: entry}, emptied by a new
                                    * provider: a plan is used while its entry is there */
static PyObject *entry_points;     /* _ops._fast_entry_points(op_name) -> (int, int) or None */
static PyObject *launch_status;    /* _ops._fast_launch_status(...): errors, workspaces */
static PyObject *host_read_hooks;  /* _transfer.host_read_hooks: a list, changed in place */
static PyObject *capture_read_hook; /* the one there by default: _capture_guard's, which does
                                     * nothing while no capture is active */
static PyObject *host_empty;       /* numpy.empty */
static PyObject *read_status;      /* _ops._fast_read_status(status, phase): errors */
/* runtime entry points (0: the provider lacks it) and ACL_MEMCPY_DEVICE_TO_HOST */
static void *capture_info, *synchronize_stream, *memcpy_sync, *record_event;
static void *elapsed_time; /* aclrtEventElapsedTime: the profiler's device times (event_times) */
static int memcpy_device_to_host;

/* How many operations each path ran in C, for tests that check the common cases stay here
 * (counts()): incremented with the GIL held, after the operation succeeded. */
enum { TAKEN_ARRAYS, TAKEN_SCALAR, TAKEN_IN_PLACE, TAKEN_UNARY, TAKEN_REDUCTION, TAKEN_EMPTY,
       TAKEN_FILL, TAKEN_READ, TAKEN_MATMUL, TAKEN_PATHS };
static const char *const taken_names[TAKEN_PATHS] = {
    "arrays", "scalar", "in_place", "unary", "reduction", "empty", "fill", "read", "matmul"};
static uint64_t taken[TAKEN_PATHS];

static PyObject *s_current, *s_overrides, *s_acl_device, *s_in_host_func, *s_itemsize, *s_dict,
    *s_fill, *s_events, *s_device_to_host, *s_copy, *s_axis, *s_keepdims;

static int intern_names(void)
{
    struct { PyObject **name; const char *text; } names[] = {
        {&s_current, "current"}, {&s_overrides, "overrides"}, {&s_acl_device, "acl_device"},
        {&s_in_host_func, "in_host_func"}, {&s_itemsize, "itemsize"}, {&s_dict, "__dict__"},
        {&s_fill, "aclnnInplaceFillScalar"}, {&s_events, "events"},
        {&s_device_to_host, "ACL_MEMCPY_DEVICE_TO_HOST"}, {&s_copy, "copy"},
        {&s_axis, "axis"}, {&s_keepdims, "keepdims"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        *names[i].name = PyUnicode_InternFromString(names[i].text);
        if (*names[i].name == NULL) {
            return -1;
        }
    }
    return 0;
}

#define SLOT(object, offset) (*(PyObject **)((char *)(object) + (offset)))

/* The offset of the __slots__ member `name` of `type`; -1 with an exception if it is not one. */
static Py_ssize_t slot_offset(PyTypeObject *type, const char *name)
{
    PyObject *descr = PyObject_GetAttrString((PyObject *)type, name);
    if (descr == NULL) {
        PyErr_Clear();
    }
    Py_ssize_t offset = -1;
    if (descr != NULL && Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type == T_OBJECT_EX) {
            offset = member->offset;
        }
    }
    Py_XDECREF(descr);
    if (offset < 0) {
        PyErr_Format(PyExc_TypeError, "configure: %s.%s is not a __slots__ member",
                     type->tp_name, name);
    }
    return offset;
}

/* The C pointer held by a cffi pointer cdata (through cffi's C API), or NULL when `object`
 * is not one (or is a NULL pointer, or NULL); never leaves an exception set. */
static void *cdata_address(PyObject *object)
{
    void *address = object == NULL ? NULL : cffi_to_c_pointer(object, void_pointer_type);
    if (address == NULL) {
        PyErr_Clear();
    }
    return address;
}

/* The addresses of the descriptors (aclTensor, aclIntArray cdata) the fast paths passed
 * last, by the identity of their cdata: a loop passes the same few each time (its operands',
 * its results' from the descriptor cache, its reduction's dims), and each conversion through
 * cffi's C API costs a type check and a call. An entry holds its cdata (those caches hold
 * them anyway), so its address stays right; a new configuration empties it. */
#define ADDRESS_MEMO 8
static struct { PyObject *cdata; void *address; } address_memo[ADDRESS_MEMO];
static int next_address_memo;
static uint64_t address_memo_generation;

static void *descriptor_address(PyObject *cdata)
{
    if (address_memo_generation != generation) {
        for (int i = 0; i < ADDRESS_MEMO; i++) {
            Py_CLEAR(address_memo[i].cdata);
        }
        address_memo_generation = generation;
    }
    for (int i = 0; i < ADDRESS_MEMO; i++) {
        if (address_memo[i].cdata == cdata && cdata != NULL) {
            return address_memo[i].address;
        }
    }
    void *address = cdata_address(cdata);
    if (address != NULL) {
        int i = next_address_memo;
        next_address_memo = (next_address_memo + 1) % ADDRESS_MEMO;
        PyObject *old = address_memo[i].cdata; /* (released last: it may run Python code) */
        address_memo[i].cdata = Py_NewRef(cdata);
        address_memo[i].address = address;
        Py_XDECREF(old);
    }
    return address;
}

/* Loads cffi's C API and checks it on `sample` (a `void *` cdata) whose address Python
 * computed with ffi.cast("uintptr_t", ...): -1 with an exception when it disagrees. */
static int load_cffi_api(PyObject *pointer_type, PyObject *sample, PyObject *address)
{
    PyObject *backend = PyImport_ImportModule("_cffi_backend");
    PyObject *capsule = backend == NULL ? NULL : PyObject_GetAttrString(backend, "_C_API");
    Py_XDECREF(backend);
    void **exports = capsule == NULL ? NULL : PyCapsule_GetPointer(capsule, "cffi");
    Py_XDECREF(capsule);
    if (exports == NULL) {
        return -1;
    }
    cffi_to_c_pointer = (cffi_to_c_pointer_fn)exports[CFFI_TO_C_POINTER];
    Py_INCREF(pointer_type);
    Py_XSETREF(void_pointer_type, pointer_type);
    void *expected = PyLong_AsVoidPtr(address);
    if (expected == NULL && PyErr_Occurred()) {
        return -1;
    }
    if (cffi_to_c_pointer(sample, void_pointer_type) != expected) {
        PyErr_Clear();
        PyErr_SetString(PyExc_RuntimeError, "configure: cffi's C API does not read a cdata's "
                        "address as ffi.cast('uintptr_t', ...) does");
        return -1;
    }
    return 0;
}

/* `state.<field>` (a new reference); TypeError naming the field when it is missing. */
static PyObject *field(PyObject *state, const char *name)
{
    PyObject *value = PyObject_GetAttrString(state, name);
    if (value == NULL) {
        PyErr_Format(PyExc_TypeError, "configure: the fast path's state has no %s", name);
    }
    return value;
}

/* `state.<field>` into `*target` (replacing a reference it held): 0, or -1 with TypeError
 * when it is missing or not an instance of `kind` (NULL: anything). */
static int take(PyObject *state, const char *name, PyTypeObject *kind, PyObject **target)
{
    PyObject *value = field(state, name);
    if (value == NULL) {
        return -1;
    }
    if (kind != NULL && !PyObject_TypeCheck(value, kind)) {
        PyErr_Format(PyExc_TypeError, "configure: %s must be a %s, not %s", name,
                     kind->tp_name, Py_TYPE(value)->tp_name);
        Py_DECREF(value);
        return -1;
    }
    Py_XSETREF(*target, value);
    return 0;
}

/* A class of `state` (field `type_name`) and the offsets of the slots its published map
 * (field `map_name`, {role: slot name}) names for `roles`: 0, or -1 with an exception
 * naming what is missing. */
static int take_layout(PyObject *state, const char *type_name, const char *map_name,
                       const char *const *roles, Py_ssize_t **offsets, size_t count,
                       PyTypeObject **target)
{
    PyObject *type = field(state, type_name);
    PyObject *map = type == NULL ? NULL : field(state, map_name);
    int result = type == NULL || map == NULL ? -1 : 0;
    if (result == 0 && (!PyType_Check(type) || !PyDict_Check(map))) {
        PyErr_Format(PyExc_TypeError, "configure: %s must be a class and %s a dict", type_name,
                     map_name);
        result = -1;
    }
    for (size_t i = 0; result == 0 && i < count; i++) {
        PyObject *slot = PyDict_GetItemString(map, roles[i]);
        const char *name = slot == NULL ? NULL : PyUnicode_AsUTF8(slot);
        if (name == NULL) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "configure: %s names no slot for '%s'", map_name,
                         roles[i]);
            result = -1;
        } else if ((*offsets[i] = slot_offset((PyTypeObject *)type, name)) < 0) {
            result = -1;
        }
    }
    if (result == 0 && target != NULL) {
        Py_INCREF(type);
        Py_XSETREF(*target, (PyTypeObject *)type);
    }
    Py_XDECREF(type);
    Py_XDECREF(map);
    return result;
}

/* The offset of the slot `name` of the class of `object` (a published state object). */
static int object_slot(PyObject *object, const char *name, Py_ssize_t *offset)
{
    return (*offset = slot_offset(Py_TYPE(object), name)) < 0 ? -1 : 0;
}

/* A C function's address from `state.<name>` (an int, or None: the provider lacks it). */
static int take_address(PyObject *state, const char *name, void **target)
{
    PyObject *address = field(state, name);
    if (address == NULL) {
        return -1;
    }
    *target = address == Py_None ? NULL : PyLong_AsVoidPtr(address);
    Py_DECREF(address);
    return PyErr_Occurred() ? -1 : 0;
}

static int configure_layouts(PyObject *state)
{
    static const char *const array_roles[] = {"buffer", "shape", "strides", "offset", "dtype",
                                             "acl_tensor"};
    Py_ssize_t *array_offsets[] = {&a_buffer, &a_shape, &a_strides, &a_offset, &a_dtype,
                                   &a_tensor};
    static const char *const buffer_roles[] = {"ptr", "nbytes", "device", "pool", "size",
                                              "stream", "others"};
    Py_ssize_t *buffer_offsets[] = {&b_ptr, &b_nbytes, &b_device, &b_pool, &b_size, &b_stream,
                                    &b_others};
    static const char *const pool_roles[] = {"device", "free_lists", "late"};
    Py_ssize_t *pool_offsets[] = {&p_device, &p_free, &p_late};
    static const char *const stream_roles[] = {"handle"};
    Py_ssize_t *stream_offsets[] = {&stream_handle};
    static const char *const device_roles[] = {"id"};
    Py_ssize_t *device_offsets[] = {&device_id};
    if (take_layout(state, "array_type", "array_slots", array_roles, array_offsets, 6,
                    &array_type) < 0
        || take_layout(state, "buffer_type", "buffer_slots", buffer_roles, buffer_offsets, 7,
                       &buffer_type) < 0
        || take_layout(state, "pool_type", "pool_slots", pool_roles, pool_offsets, 3,
                       &pool_type) < 0
        || take_layout(state, "stream_type", "stream_slots", stream_roles, stream_offsets, 1,
                       NULL) < 0
        || take_layout(state, "device_type", "device_slots", device_roles, device_offsets, 1,
                       NULL) < 0) {
        return -1;
    }
    return 0;
}

static int configure_state(PyObject *state)
{
    struct { const char *name; PyTypeObject *kind; PyObject **target; } fields[] = {
        {"capture_active", &PyDict_Type, &capture_active}, {"process", NULL, &process},
        {"recording", NULL, &recording}, {"profiler_begin", NULL, &profiler_begin},
        {"profiler_end", NULL, &profiler_end},
        {"profiler_take_event", NULL, &profiler_take_event},
        {"profiler_record_event", NULL, &profiler_record_event},
        {"profiler_capturing", NULL, &profiler_capturing}, {"stream_locals", NULL, &stream_tls},
        {"device_locals", NULL, &device_tls}, {"pool_locals", NULL, &pool_tls},
        {"default_streams", &PyDict_Type, &default_streams},
        {"default_pools", &PyDict_Type, &default_pools},
        {"whole_tensors", &PyDict_Type, &whole_tensors}, {"whole_tensor", NULL, &whole_tensor},
        {"view_tensor", NULL, &view_tensor},
        {"scalars", &PyDict_Type, &scalars}, {"acl_scalar", NULL, &acl_scalar},
        {"activate", NULL, &activate}, {"entry_table", &PyDict_Type, &entry_table},
        {"entry_points", NULL, &entry_points}, {"launch_status", NULL, &launch_status},
        {"host_read_hooks", &PyList_Type, &host_read_hooks},
        {"capture_read_hook", NULL, &capture_read_hook}, {"host_empty", NULL, &host_empty},
        {"read_status", NULL, &read_status}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (take(state, fields[i].name, fields[i].kind, fields[i].target) < 0) {
            return -1;
        }
    }
    if (object_slot(process, "forked", &process_forked) < 0
        || object_slot(process, "deferred_releases", &process_deferred) < 0
        || object_slot(recording, "profile", &recording_profile) < 0
        || object_slot(recording, "tracks", &recording_tracks) < 0
        || object_slot(recording, "launches", &recording_launches) < 0
        || object_slot(recording, "event_pools", &recording_pools) < 0
        || object_slot(recording, "serial", &recording_serial) < 0
        || take_address(state, "record_event", &record_event) < 0
        || take_address(state, "elapsed_time", &elapsed_time) < 0
        || take_address(state, "capture_info", &capture_info) < 0
        || take_address(state, "synchronize_stream", &synchronize_stream) < 0
        || take_address(state, "memcpy", &memcpy_sync) < 0) {
        return -1;
    }
    PyObject *kind = field(state, "memcpy_device_to_host");
    memcpy_device_to_host = kind == NULL ? -1 : (int)PyLong_AsLong(kind);
    Py_XDECREF(kind);
    PyObject *type = field(state, "pointer_type");
    PyObject *sample = type == NULL ? NULL : field(state, "pointer_sample");
    PyObject *address = sample == NULL ? NULL : field(state, "pointer_sample_address");
    int loaded = address == NULL || PyErr_Occurred() ? -1
                 : load_cffi_api(type, sample, address);
    Py_XDECREF(type);
    Py_XDECREF(sample);
    Py_XDECREF(address);
    return loaded;
}

PyDoc_STRVAR(configure_doc,
"configure(state: FastPathState) -> True\n\n"
"Hands the fast paths the one object they read (npuarray/_core/_fastpath_state.py):\n"
"npuarray's classes with their published slot maps, the runtime's state and _ops's\n"
"caches. Raises TypeError naming the field or slot that is missing or of the wrong\n"
"type, and RuntimeError when cffi's C API disagrees with its Python API: a runtime\n"
"change the fast path does not follow fails at import, never silently.");

/* Whether the provider is npusim (its library, which holds `entry`, exports npusim's own
 * npusim_launch): a launch there never blocks, a full queue grows instead. */
static int provider_never_blocks;

static int provider_is_npusim(void *entry)
{
    Dl_info info;
    if (entry == NULL || dladdr(entry, &info) == 0 || info.dli_fname == NULL) {
        return 0;
    }
    void *library = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    int found = library != NULL && dlsym(library, "npusim_launch") != NULL;
    if (library != NULL) {
        dlclose(library);
    }
    return found;
}

/* Operations of at most this many elements run their phases with the GIL held on npusim:
 * their kernel runs on the launching thread in a few hundred nanoseconds (npusim's tiny
 * tasks, kernels/ops/executor.c), less than releasing and taking the GIL back. */
#define GIL_KEPT_ELEMENTS 1024

static int phases_keep_gil(Py_ssize_t elements)
{
    return provider_never_blocks && elements >= 0 && elements <= GIL_KEPT_ELEMENTS;
}

static PyObject *configure(PyObject *module, PyObject *state)
{
    (void)module;
    configured = 0;
    if (configure_layouts(state) < 0 || configure_state(state) < 0) {
        return NULL;
    }
    provider_never_blocks = provider_is_npusim(synchronize_stream);
    configured = 1;
    generation++;
    Py_RETURN_TRUE;
}

/* ---------------------------------------------------------------------------------------
 * Runtime state lookups (borrowed references; NULL without an exception means "absent") */

/* This thread's dicts of the three threading.locals, cached per Python thread state: a
 * local keeps a thread's dict until that thread state ends (the locals here live for the
 * process), and a new thread state, even on the same OS thread (a C thread calling back
 * into Python), has a new id. Borrowed references. */
enum { STREAM_TLS, DEVICE_TLS, POOL_TLS };
static _Thread_local struct {
    uint64_t thread_state, generation;
    PyObject *dicts[3];
} thread_dicts;

static PyObject *thread_dict(int which)
{
    uint64_t thread_state = PyThreadState_GetID(PyThreadState_Get());
    if (thread_dicts.thread_state != thread_state || thread_dicts.generation != generation) {
        PyObject *locals[3] = {stream_tls, device_tls, pool_tls};
        for (int i = 0; i < 3; i++) {
            /* threading.local gives this thread's dict as its __dict__ (made if needed) */
            PyObject *values = PyObject_GetAttr(locals[i], s_dict);
            if (values == NULL || !PyDict_Check(values)) {
                Py_XDECREF(values);
                thread_dicts.thread_state = 0;
                return NULL;
            }
            thread_dicts.dicts[i] = values;
            Py_DECREF(values); /* it stays alive: the local holds it for this thread */
        }
        thread_dicts.thread_state = thread_state;
        thread_dicts.generation = generation;
    }
    return thread_dicts.dicts[which];
}

/* Memoised dict look-ups: each launch reads the same few entries of the same dicts (this
 * thread's current stream and device, the default pool, the free lists), which change far
 * less often than they are read. A look-up site keeps its last answers with the dict's
 * version (PEP 509's ma_version_tag, which every change of a dict bumps, unique across dicts)
 * and gives them again while the version is unchanged: the dict still holds the value. The
 * key is held, so that its identity names one key. (CPython 3.12 deprecates the version:
 * there every look-up is made.) */
#define MEMO_WAYS 4
typedef struct {
    struct { PyObject *dict, *key, *value; uint64_t version; } way[MEMO_WAYS];
    int next;
} LookupMemo;

static LookupMemo current_memo, acl_device_memo, overrides_memo, in_host_func_memo;
static LookupMemo current_streams_memo, default_streams_memo, default_pools_memo;
static LookupMemo free_lists_memo, bins_memo;

/* dict[key] (borrowed), NULL when absent (an exception set when the look-up failed).
 * `dict` is a dict whose keys compare without running Python code (str, int, None). */
static PyObject *memo_get(LookupMemo *memo, PyObject *dict, PyObject *key)
{
#if PY_VERSION_HEX < 0x030C0000
    uint64_t version = ((PyDictObject *)dict)->ma_version_tag;
    for (int i = 0; i < MEMO_WAYS; i++) {
        if (memo->way[i].dict == dict && memo->way[i].key == key
            && memo->way[i].version == version) {
            return memo->way[i].value;
        }
    }
    PyObject *value = PyDict_GetItemWithError(dict, key);
    if (value != NULL || !PyErr_Occurred()) {
        int i = memo->next;
        memo->next = (memo->next + 1) % MEMO_WAYS;
        PyObject *old = memo->way[i].key; /* an int or str: its release runs no Python code */
        memo->way[i].dict = dict;
        memo->way[i].key = Py_NewRef(key);
        memo->way[i].version = version;
        memo->way[i].value = value;
        Py_XDECREF(old);
    }
    return value;
#else
    (void)memo;
    return PyDict_GetItemWithError(dict, key);
#endif
}

/* `key` of this thread's attributes of one of the threading.locals. */
static PyObject *thread_value(int which, PyObject *key, LookupMemo *memo)
{
    PyObject *values = thread_dict(which);
    return values == NULL ? NULL : memo_get(memo, values, key);
}

/* This thread's current stream of the device `id` (runtime._stream.current_stream_of). */
static PyObject *current_stream(PyObject *id)
{
    PyObject *current = thread_value(STREAM_TLS, s_current, &current_memo);
    PyObject *stream = NULL;
    if (current != NULL && PyDict_Check(current) && PyDict_GET_SIZE(current) != 0) {
        stream = memo_get(&current_streams_memo, current, id);
    }
    if (stream == NULL && !PyErr_Occurred()) {
        stream = memo_get(&default_streams_memo, default_streams, id);
    }
    return stream;
}

static int is_true(PyObject *value)
{
    return value != NULL && value != Py_None && value != Py_False
           && PyObject_IsTrue(value) == 1;
}

/* Whether the ACL current device of this thread is `id` with nothing deferred to run
 * (the fast exit of runtime._device.activate); else activate() runs, and may raise. */
static int activate_device(PyObject *id)
{
    PyObject *active = thread_value(DEVICE_TLS, s_acl_device, &acl_device_memo);
    if (active != NULL && PyLong_CheckExact(active)
        && PyObject_RichCompareBool(active, id, Py_EQ) == 1) {
        PyObject *deferred = SLOT(process, process_deferred);
        if (deferred != NULL && PyObject_Length(deferred) == 0) {
            return 0;
        }
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    PyObject *result = PyObject_CallOneArg(activate, id);
    Py_XDECREF(result);
    return result == NULL ? -1 : 0;
}

/* The key object of `dict` equal to the int `value`, or NULL: a look-up with the dict's own
 * key object finds it by identity, without comparing two ints. */
static PyObject *own_key(PyObject *dict, PyObject *value)
{
    PyObject *key, *item;
    Py_ssize_t position = 0;
    while (PyDict_Next(dict, &position, &key, &item)) {
        if (PyLong_CheckExact(key) && PyObject_RichCompareBool(key, value, Py_EQ) == 1) {
            return key;
        }
    }
    PyErr_Clear();
    return NULL;
}

/* id(stream), the key of a stream's free lists: the last one is kept, as every block of a
 * run of launches on one stream looks its list up under it twice (taken, given back), and is
 * the pool's own key object once the pool has one (`owned`). An address names one key
 * whatever object lives there, so it never goes stale. */
static void *stream_key_address;
static PyObject *stream_key;
static int stream_key_owned;

static PyObject *stream_key_of(PyObject *stream, PyObject *free)
{
    if (stream_key == NULL || stream_key_address != (void *)stream) {
        PyObject *key = PyLong_FromVoidPtr(stream);
        if (key == NULL) {
            return NULL;
        }
        Py_XSETREF(stream_key, key);
        stream_key_address = stream;
        stream_key_owned = 0;
    }
    if (!stream_key_owned) {
        PyObject *own = own_key(free, stream_key);
        if (own != NULL) {
            Py_SETREF(stream_key, Py_NewRef(own));
            stream_key_owned = 1;
        }
    }
    return Py_NewRef(stream_key);
}

/* Python ints of the block and array sizes last made (a launch's result needs two, the same
 * as the previous launch's in a loop): ints are immutable, so one object serves every use. A
 * block size becomes its free list's own key object once it is found in one (free_list). */
#define SIZE_INTS 8
static struct { Py_ssize_t value; PyObject *object; int owned; } size_ints[SIZE_INTS];
static int next_size_int;

static PyObject *size_int(Py_ssize_t value)
{
    for (int i = 0; i < SIZE_INTS; i++) {
        if (size_ints[i].object != NULL && size_ints[i].value == value) {
            return Py_NewRef(size_ints[i].object);
        }
    }
    PyObject *object = PyLong_FromSsize_t(value);
    if (object != NULL) {
        int i = next_size_int;
        next_size_int = (next_size_int + 1) % SIZE_INTS;
        size_ints[i].value = value;
        size_ints[i].owned = 0;
        Py_XSETREF(size_ints[i].object, Py_NewRef(object));
    }
    return object;
}

/* Makes the kept int equal to `size` the key object of `bins` (see size_int). */
static void own_size_key(PyObject *bins, PyObject *size)
{
    for (int i = 0; i < SIZE_INTS; i++) {
        if (size_ints[i].object == size && !size_ints[i].owned) {
            PyObject *own = own_key(bins, size);
            if (own != NULL) {
                size_ints[i].owned = 1;
                Py_SETREF(size_ints[i].object, Py_NewRef(own));
            }
            return;
        }
    }
}

/* The free list of `size`-byte blocks last used on `stream` in `pool` (its free_lists
 * [id(stream)][size], see the pool's published slots), or NULL. `stream` None: the
 * any-stream list. `pool` is a MemoryPool (exactly: a subclass may change the rules). */
static PyObject *free_list(PyObject *pool, PyObject *stream, PyObject *size)
{
    PyObject *free = SLOT(pool, p_free);
    if (free == NULL || !PyDict_Check(free)) {
        return NULL;
    }
    PyObject *key = stream == Py_None ? Py_NewRef(Py_None) : stream_key_of(stream, free);
    if (key == NULL) {
        return NULL;
    }
    PyObject *bins = memo_get(&free_lists_memo, free, key);
    Py_DECREF(key);
    if (bins == NULL || !PyDict_Check(bins)) {
        return NULL;
    }
    PyObject *ptrs = memo_get(&bins_memo, bins, size);
    if (ptrs != NULL) {
        own_size_key(bins, size);
    }
    return ptrs != NULL && PyList_CheckExact(ptrs) ? ptrs : NULL;
}

/* The free list holding a cached block of `size` bytes for `stream` in `pool`, when
 * MemoryPool.allocate's lock-free case applies (no late returns pending), else NULL;
 * `device`: the pool's Device (borrowed). */
static PyObject *cached_block_list(PyObject *pool, PyObject *stream, PyObject *size,
                                   PyObject **device)
{
    if (Py_TYPE(pool) != pool_type) {
        return NULL;
    }
    PyObject *late = SLOT(pool, p_late);
    *device = SLOT(pool, p_device); /* (the pool holds it) */
    if (*device == NULL || late == NULL || !PyList_CheckExact(late)
        || PyList_GET_SIZE(late) != 0) {
        return NULL;
    }
    PyObject *ptrs = free_list(pool, stream, size);
    return ptrs != NULL && PyList_GET_SIZE(ptrs) != 0 ? ptrs : NULL;
}

/* ---------------------------------------------------------------------------------------
 * BinaryOperator */

#define PLAN_CACHE 4

/* How one pair of operand types runs: the _Binary plan's `_direct` entry (two arrays) or
 * `_scalar_direct` entry (an array and a Python float or int), with what C needs of it. */
typedef struct {
    PyObject *key1, *key2;  /* the two dtypes, or type(scalar) and the array's dtype; NULL:
                             * an empty entry */
    PyObject *name;         /* the aclnn operator: the plan's (aclnnAdd) or its scalar
                             * form's (aclnnAdds, aclnnEqScalar, ...) */
    void *first, *second;   /* its entry points */
    PyObject *entry;        /* _ops's entry of `name` when they were read: a plan is used
                             * only while that is still the entry (a provider swap empties
                             * the table) */
    PyObject *alpha;        /* aclScalar of the operator's alpha, or None */
    void *alpha_address;
    PyObject *out_dtype;
    Py_ssize_t itemsize;    /* of out_dtype */
    PyObject *scalar_dtype; /* scalar plans: the aclScalar's dtype */
    PyObject *low, *high;   /* int scalar plans: the ints that fit (Python ints), else NULL */
    int scalar_first;       /* the operator takes the scalar first (aclnnRsub-like forms) */
} Plan;

/* What a BinaryOperator computes (its `mode`). */
enum { FORWARD, REFLECTED, IN_PLACE };

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int mode;           /* FORWARD x1 <op> x2; REFLECTED x2 <op> x1 (__radd__, for a
                         * scalar x2); IN_PLACE x1 <op>= x2 (__iadd__, returns x1) */
    PyObject *name;     /* aclnn operator of two arrays, e.g. "aclnnAdd", "aclnnInplaceAdd" */
    PyObject *direct;   /* _Binary._direct {(dtype, dtype): (alpha, out dtype) or False} */
    PyObject *scalar_direct; /* _Binary._scalar_direct {(type, dtype, reflected): ...} */
    PyObject *fallback; /* the Python operator: (x1, x2) -> result or NotImplemented */
    Plan plans[PLAN_CACHE], scalar_plans[PLAN_CACHE]; /* the last seen, round robin */
    int next_plan, next_scalar_plan;
} BinaryOperator;

static void clear_plan(Plan *plan)
{
    Py_CLEAR(plan->key1);
    Py_CLEAR(plan->key2);
    Py_CLEAR(plan->name);
    Py_CLEAR(plan->entry);
    Py_CLEAR(plan->alpha);
    Py_CLEAR(plan->out_dtype);
    Py_CLEAR(plan->scalar_dtype);
    Py_CLEAR(plan->low);
    Py_CLEAR(plan->high);
}

/* The entry of `name` in _ops's table of entry points now (borrowed), or NULL. */
static PyObject *current_entry(PyObject *name)
{
    return PyDict_GetItemWithError(entry_table, name);
}

/* The plan of `plans` (`count` of them) for the keys, or NULL; one whose entry points are
 * no longer _ops's is emptied (the caller makes it again). */
static Plan *cached_plan(Plan *plans, int count, PyObject *key1, PyObject *key2)
{
    for (int i = 0; i < count; i++) {
        if (plans[i].key1 == key1 && plans[i].key2 == key2) {
            if (current_entry(plans[i].name) == plans[i].entry) {
                return &plans[i];
            }
            clear_plan(&plans[i]);
            return NULL;
        }
    }
    return NULL;
}

/* Fills `plan` with the operator `name` (its entry points from _ops._fast_entry_points),
 * `alpha` and `out_dtype`: 0, or -1 when the plan cannot run in C (launched from Python,
 * an alpha that is not cffi's, ...). */
static int fill_plan(Plan *plan, PyObject *name, PyObject *alpha, PyObject *out_dtype)
{
    PyObject *pair = PyObject_CallOneArg(entry_points, name);
    if (pair == NULL || !PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        Py_XDECREF(pair);
        return -1;
    }
    plan->first = PyLong_AsVoidPtr(PyTuple_GET_ITEM(pair, 0));
    plan->second = PyLong_AsVoidPtr(PyTuple_GET_ITEM(pair, 1));
    Py_DECREF(pair);
    PyObject *entry = current_entry(name); /* (entry_points() made it) */
    if (entry == NULL) {
        return -1;
    }
    plan->alpha_address = alpha == Py_None ? NULL : cdata_address(alpha);
    PyObject *itemsize = PyObject_GetAttr(out_dtype, s_itemsize);
    plan->itemsize = itemsize == NULL ? -1 : PyLong_AsSsize_t(itemsize);
    Py_XDECREF(itemsize);
    if (plan->first == NULL || plan->second == NULL || plan->itemsize <= 0
        || (alpha != Py_None && plan->alpha_address == NULL)) {
        return -1;
    }
    plan->name = Py_NewRef(name);
    plan->entry = Py_NewRef(entry);
    plan->alpha = Py_NewRef(alpha);
    plan->out_dtype = Py_NewRef(out_dtype);
    return 0;
}

/* The entry of `plans` to fill next (round robin), emptied. */
static Plan *next_entry(Plan *plans, int *next)
{
    Plan *plan = &plans[*next];
    *next = (*next + 1) % PLAN_CACHE;
    clear_plan(plan);
    return plan;
}

/* The plan of two arrays of `dtype1` and `dtype2`, or NULL. Only plans the Python
 * operator already made (it stores them in `direct`; False: not the common case). */
static Plan *array_plan(BinaryOperator *op, PyObject *dtype1, PyObject *dtype2)
{
    Plan *plan = cached_plan(op->plans, PLAN_CACHE, dtype1, dtype2);
    if (plan != NULL) {
        return plan;
    }
    PyObject *key = PyTuple_Pack(2, dtype1, dtype2);
    PyObject *direct = key == NULL ? NULL : PyDict_GetItemWithError(op->direct, key);
    Py_XDECREF(key);
    if (direct == NULL || !PyTuple_Check(direct) || PyTuple_GET_SIZE(direct) != 2) {
        return NULL;
    }
    plan = next_entry(op->plans, &op->next_plan);
    if (fill_plan(plan, op->name, PyTuple_GET_ITEM(direct, 0), PyTuple_GET_ITEM(direct, 1))
        < 0) {
        clear_plan(plan);
        return NULL;
    }
    plan->key1 = Py_NewRef(dtype1);
    plan->key2 = Py_NewRef(dtype2);
    return plan;
}

/* The plan of an array of `dtype` with a Python scalar of type `kind` on its right (on
 * its left when REFLECTED), or NULL: `_scalar_direct[(kind, dtype, reflected)]` =
 * (operator, alpha, result dtype, scalar dtype, lowest and highest int that fit, scalar
 * first). */
static Plan *scalar_plan(BinaryOperator *op, PyObject *kind, PyObject *dtype)
{
    Plan *plan = cached_plan(op->scalar_plans, PLAN_CACHE, kind, dtype);
    if (plan != NULL) {
        return plan;
    }
    PyObject *key = PyTuple_Pack(3, kind, dtype, op->mode == REFLECTED ? Py_True : Py_False);
    PyObject *direct = key == NULL ? NULL : PyDict_GetItemWithError(op->scalar_direct, key);
    Py_XDECREF(key);
    if (direct == NULL || !PyTuple_Check(direct) || PyTuple_GET_SIZE(direct) != 7) {
        return NULL;
    }
    plan = next_entry(op->scalar_plans, &op->next_scalar_plan);
    if (fill_plan(plan, PyTuple_GET_ITEM(direct, 0), PyTuple_GET_ITEM(direct, 1),
                  PyTuple_GET_ITEM(direct, 2)) < 0) {
        clear_plan(plan);
        return NULL;
    }
    plan->scalar_dtype = Py_NewRef(PyTuple_GET_ITEM(direct, 3));
    plan->scalar_first = PyObject_IsTrue(PyTuple_GET_ITEM(direct, 6)) == 1;
    if (kind == (PyObject *)&PyLong_Type) { /* NumPy ints as Python ints; float dtypes: +-inf */
        PyObject *low = PyTuple_GET_ITEM(direct, 4), *high = PyTuple_GET_ITEM(direct, 5);
        plan->low = PyFloat_Check(low) ? Py_NewRef(low) : PyNumber_Long(low);
        plan->high = PyFloat_Check(high) ? Py_NewRef(high) : PyNumber_Long(high);
        if (plan->low == NULL || plan->high == NULL) {
            clear_plan(plan);
            return NULL;
        }
    }
    plan->key1 = Py_NewRef(kind);
    plan->key2 = Py_NewRef(dtype);
    return plan;
}

/* The number of elements of `shape` (a tuple of ints), or -1. */
static Py_ssize_t shape_size(PyObject *shape)
{
    Py_ssize_t size = 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shape); i++) {
        Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
        /* (an overflow test without a division: this runs a few times per launch) */
        if (n < 0 || __builtin_mul_overflow(size, n, &size)) {
            PyErr_Clear();
            return -1;
        }
    }
    return size;
}

/* `strides` when it is the C-order strides (in elements) of `shape`, else NULL. */
static PyObject *contiguous(PyObject *strides, PyObject *shape)
{
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    if (strides == NULL || !PyTuple_CheckExact(strides) || PyTuple_GET_SIZE(strides) != ndim) {
        return NULL;
    }
    Py_ssize_t step = 1;
    for (Py_ssize_t i = ndim - 1; i >= 0; i--) {
        if (PyLong_AsSsize_t(PyTuple_GET_ITEM(strides, i)) != step) {
            PyErr_Clear();
            return NULL;
        }
        step *= PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
    }
    return strides;
}

static int same_shape(PyObject *shape1, PyObject *shape2)
{
    if (shape1 == shape2) {
        return 1;
    }
    if (!PyTuple_CheckExact(shape1) || !PyTuple_CheckExact(shape2)) {
        return 0;
    }
    return PyObject_RichCompareBool(shape1, shape2, Py_EQ) == 1;
}

/* A new DeviceBuffer for the block `ptr` (a reference it takes over, unless it fails). */
static PyObject *new_buffer(PyObject *ptr, Py_ssize_t nbytes, PyObject *size, PyObject *device,
                            PyObject *pool, PyObject *stream)
{
    PyObject *nbytes_object = size_int(nbytes);
    PyObject *buffer = nbytes_object == NULL ? NULL : buffer_type->tp_alloc(buffer_type, 0);
    if (buffer == NULL) {
        Py_XDECREF(nbytes_object);
        return NULL;
    }
    SLOT(buffer, b_ptr) = ptr;
    SLOT(buffer, b_nbytes) = nbytes_object;
    SLOT(buffer, b_device) = Py_NewRef(device);
    SLOT(buffer, b_pool) = Py_NewRef(pool);
    SLOT(buffer, b_size) = Py_NewRef(size);
    SLOT(buffer, b_stream) = Py_NewRef(stream);
    SLOT(buffer, b_others) = Py_NewRef(Py_None);
    return buffer;
}

/* Gives the block `ptr` (whose reference this call takes over) back to `pool` after the
 * buffer for it could not be made (MemoryPool._release, which files it whatever happened
 * to the free lists meanwhile). The exception of the failure stays set. */
static void return_block(PyObject *pool, PyObject *size, PyObject *ptr, PyObject *stream)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyObject *result = PyObject_CallMethod(pool, "_release", "OOO", size, ptr, stream);
    Py_XDECREF(result);
    Py_DECREF(ptr);
    PyErr_Restore(type, value, traceback);
}

/* The aclTensors new_array found last, by the identity of their key's objects: a block's
 * address is one int object while the pool keeps the block, and a launch's result shape and
 * dtype are its plan's objects, so a loop finds its results' descriptors here without the
 * descriptor cache's tuple key and its hash. An entry holds its objects, and a descriptor of
 * a whole array depends on its key alone (_ops._whole_tensors), so a hit is always right;
 * a new configuration (another provider) empties it. */
#define TENSOR_MEMO 8
static struct { PyObject *ptr, *shape, *dtype, *tensor; } tensor_memo[TENSOR_MEMO];
static int next_tensor_memo;
static uint64_t tensor_memo_generation;

static void clear_tensor_memo(void)
{
    for (int i = 0; i < TENSOR_MEMO; i++) {
        Py_CLEAR(tensor_memo[i].ptr);
        Py_CLEAR(tensor_memo[i].shape);
        Py_CLEAR(tensor_memo[i].dtype);
        Py_CLEAR(tensor_memo[i].tensor);
    }
}

/* The memoised aclTensor of (ptr, shape, dtype) (a new reference), or NULL. */
static PyObject *memoised_tensor(PyObject *ptr, PyObject *shape, PyObject *dtype)
{
    if (tensor_memo_generation != generation) {
        clear_tensor_memo();
        tensor_memo_generation = generation;
    }
    for (int i = 0; i < TENSOR_MEMO; i++) {
        if (tensor_memo[i].ptr == ptr && tensor_memo[i].shape == shape
            && tensor_memo[i].dtype == dtype && ptr != NULL) {
            return Py_NewRef(tensor_memo[i].tensor);
        }
    }
    return NULL;
}

static void memoise_tensor(PyObject *ptr, PyObject *shape, PyObject *dtype, PyObject *tensor)
{
    int i = next_tensor_memo;
    next_tensor_memo = (next_tensor_memo + 1) % TENSOR_MEMO;
    /* the entry is whole before the old objects go (their release may run Python code) */
    PyObject *old[] = {tensor_memo[i].ptr, tensor_memo[i].shape, tensor_memo[i].dtype,
                       tensor_memo[i].tensor};
    tensor_memo[i].ptr = Py_NewRef(ptr);
    tensor_memo[i].shape = Py_NewRef(shape);
    tensor_memo[i].dtype = Py_NewRef(dtype);
    tensor_memo[i].tensor = Py_NewRef(tensor);
    for (size_t k = 0; k < sizeof old / sizeof old[0]; k++) {
        Py_XDECREF(old[k]);
    }
}

/* A new C-contiguous NPUArray on `buffer` (a reference this call takes over), with its
 * aclTensor from the memo, the descriptor cache, or _ops._whole_tensor on a miss. */
static PyObject *new_array(PyObject *buffer, PyObject *shape, PyObject *strides,
                           PyObject *dtype)
{
    PyObject *out = array_type->tp_alloc(array_type, 0);
    if (out == NULL) {
        Py_DECREF(buffer);
        return NULL;
    }
    SLOT(out, a_buffer) = buffer;
    SLOT(out, a_shape) = Py_NewRef(shape);
    SLOT(out, a_strides) = Py_NewRef(strides);
    SLOT(out, a_offset) = PyLong_FromLong(0);
    SLOT(out, a_dtype) = Py_NewRef(dtype);
    PyObject *ptr = SLOT(buffer, b_ptr);
    PyObject *tensor = memoised_tensor(ptr, shape, dtype);
    if (tensor != NULL) {
        SLOT(out, a_tensor) = tensor;
        return out;
    }
    PyObject *key = PyTuple_Pack(3, ptr, shape, dtype);
    tensor = key == NULL ? NULL : PyDict_GetItemWithError(whole_tensors, key);
    Py_XDECREF(key);
    if (tensor != NULL) {
        Py_INCREF(tensor);
    } else if (!PyErr_Occurred()) {
        tensor = PyObject_CallOneArg(whole_tensor, out);
    }
    if (tensor == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    SLOT(out, a_tensor) = tensor;
    memoise_tensor(ptr, shape, dtype, tensor);
    return out;
}

/* After the phases: raise for a failed phase, or have Python bring the workspace an
 * operator asked for and run its second phase (_ops._fast_launch_status). */
static int launch_outcome(PyObject *name, int32_t status, int phase, uint64_t size,
                          void *executor, PyObject *stream)
{
    PyObject *result = PyObject_CallFunction(launch_status, "OiiKNO", name, (int)status,
                                             phase, (unsigned long long)size,
                                             PyLong_FromVoidPtr(executor), stream);
    Py_XDECREF(result);
    return result == NULL ? -1 : 0;
}

/* One two-phase launch (see npuarray/_acl/_launch.h): the first phase stores its status,
 * workspace size and executor here. */
typedef struct {
    int32_t status;
    int phase; /* the phase that returned `status` */
    uint64_t workspace;
    void *executor;
} Phases;

/* With the GIL released, after the first phase: the second (aclnn<Op>(NULL, 0, executor,
 * stream)) when the first succeeded without asking for a workspace. */
static void second_phase_if_ready(Phases *launch, void *second, void *stream)
{
    launch->phase = 1;
    if (launch->status == 0 && launch->workspace == 0) {
        launch->phase = 2;
        launch->status = ((second_phase)second)(NULL, 0, launch->executor, stream);
    }
}

/* With the GIL, after the phases of `name` on `stream`: 0 when the second phase ran and
 * succeeded, else launch_outcome()'s result (an AclError raised, or the workspace path
 * run in Python). */
static int phases_outcome(Phases *launch, PyObject *name, PyObject *stream)
{
    if (launch->status == 0 && launch->workspace == 0) {
        return 0;
    }
    return launch_outcome(name, launch->status, launch->phase, launch->workspace,
                          launch->executor, stream);
}

/* The broadcast shape of two shapes (a new tuple), or NULL when they do not broadcast
 * (the Python operator raises the error) or are not tuples. */
static PyObject *broadcast_shapes(PyObject *shape1, PyObject *shape2)
{
    if (!PyTuple_CheckExact(shape1) || !PyTuple_CheckExact(shape2)) {
        return NULL;
    }
    Py_ssize_t n1 = PyTuple_GET_SIZE(shape1), n2 = PyTuple_GET_SIZE(shape2);
    Py_ssize_t ndim = n1 > n2 ? n1 : n2;
    PyObject *shape = PyTuple_New(ndim);
    for (Py_ssize_t i = 1; shape != NULL && i <= ndim; i++) {
        PyObject *d1 = i <= n1 ? PyTuple_GET_ITEM(shape1, n1 - i) : NULL;
        PyObject *d2 = i <= n2 ? PyTuple_GET_ITEM(shape2, n2 - i) : NULL;
        Py_ssize_t a = d1 == NULL ? 1 : PyLong_AsSsize_t(d1);
        Py_ssize_t b = d2 == NULL ? 1 : PyLong_AsSsize_t(d2);
        PyObject *dim = a == 1 ? (d2 != NULL ? d2 : d1) : d1;
        if (a < 0 || b < 0 || (a != b && a != 1 && b != 1)) {
            Py_CLEAR(shape);
            break;
        }
        PyTuple_SET_ITEM(shape, ndim - i, Py_NewRef(dim));
    }
    return shape;
}

/* The C-order strides (in elements) of `shape`: a new tuple. */
static PyObject *contiguous_strides(PyObject *shape)
{
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape), step = 1;
    PyObject *strides = PyTuple_New(ndim);
    for (Py_ssize_t i = ndim - 1; strides != NULL && i >= 0; i--) {
        PyObject *stride = PyLong_FromSsize_t(step);
        if (stride == NULL) {
            Py_CLEAR(strides);
            break;
        }
        PyTuple_SET_ITEM(strides, i, stride);
        Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
        step *= n > 1 ? n : 1;
    }
    return strides;
}

/* What the fast path of one `x1 <op> x2` reads (borrowed references, except `scalar` and
 * `owned`). */
typedef struct {
    Plan *plan;
    void *left, *right;  /* the operator's first two arguments: aclTensor or aclScalar */
    PyObject *scalar;    /* the aclScalar of a scalar operand (a reference), or NULL */
    PyObject *owned[2];  /* tuples made here for `shape` and `strides` (references) */
    int cast_to;         /* aclnnCast's aclDataType when the operator is (self, dtype, out),
                          * else -1 */
    PyObject *shape, *strides, *device, *id, *stream, *pool;
    PyObject *array, *other; /* the NPUArray operands (`other` NULL: one), for the profiler */
    void *stream_address;
    Py_ssize_t nbytes;
} Operands;

/* `made` (a new reference or NULL), kept by `in` until release_operands(). */
static PyObject *own(Operands *in, PyObject *made)
{
    in->owned[in->owned[0] != NULL] = made;
    return made;
}

static void release_operands(Operands *in)
{
    Py_CLEAR(in->scalar);
    Py_CLEAR(in->owned[0]);
    Py_CLEAR(in->owned[1]);
}

/* Whether `x` is an NPUArray and no graph capture is running: what every fast path checks
 * first (a capture takes the Python paths, which order captured uses). */
static int uncaptured_array(PyObject *x)
{
    return configured && Py_TYPE(x) == array_type && PyDict_GET_SIZE(capture_active) == 0;
}

/* Whether a profile is running (the profiler's published Recording holds it). */
static int profiling(void)
{
    return SLOT(recording, recording_profile) != Py_None;
}

/* The host clock of the profiler's records: time.perf_counter_ns, which is CLOCK_MONOTONIC
 * on the systems npusim runs on. */
static long long now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* The serial number of the running profile (Recording.serial: one more at each start). */
static long long profile_serial(void)
{
    PyObject *serial = SLOT(recording, recording_serial);
    long long value = serial != NULL && PyLong_CheckExact(serial) ? PyLong_AsLongLong(serial) : -1;
    PyErr_Clear();
    return value;
}

/* The last timed track found, with its stream, its events list and the stream's aclrtStream:
 * valid while the profile of `serial` runs, as a running profile never drops a track and a
 * track holds its stream (so neither address is reused meanwhile). Borrowed references, read
 * with the GIL held. */
static struct {
    long long serial;
    PyObject *stream, *track, *events;
    void *on;
} last_track = {-1, NULL, NULL, NULL, NULL};

/* The track of `stream` in the running profile when its baseline is recorded (its events
 * list is not empty): borrowed, or NULL (the profiler's Python hooks then record). */
static PyObject *timed_track(PyObject *stream)
{
    long long serial = profile_serial();
    if (serial >= 0 && serial == last_track.serial && stream == last_track.stream) {
        return last_track.track;
    }
    PyObject *tracks = SLOT(recording, recording_tracks);
    PyObject *key = tracks != NULL && PyDict_Check(tracks) ? PyLong_FromVoidPtr(stream) : NULL;
    PyObject *track = key == NULL ? NULL : PyDict_GetItemWithError(tracks, key);
    Py_XDECREF(key);
    PyObject *events = track == NULL ? NULL : PyObject_GetAttr(track, s_events);
    int timed = events != NULL && PyList_Check(events) && PyList_GET_SIZE(events) != 0;
    Py_XDECREF(events); /* (the track holds it, and never rebinds it) */
    PyErr_Clear();
    if (!timed) {
        return NULL;
    }
    void *on = cdata_address(SLOT(stream, stream_handle));
    if (serial >= 0 && on != NULL) {
        last_track.serial = serial;
        last_track.stream = stream;
        last_track.track = track;
        last_track.events = events;
        last_track.on = on;
    }
    return track;
}

/* A timing event of the device `id`: the last of its pool (the pool is a stack), or a new one
 * (_profiler.take_event) when the pool is empty; NULL with an exception. */
static PyObject *pooled_event(PyObject *id)
{
    PyObject *pools = SLOT(recording, recording_pools);
    PyObject *pool = pools != NULL && PyDict_CheckExact(pools) ? PyDict_GetItemWithError(pools, id)
                                                               : NULL;
    Py_ssize_t size = pool != NULL && PyList_CheckExact(pool) ? PyList_GET_SIZE(pool) : 0;
    if (size == 0) {
        return PyErr_Occurred() ? NULL : PyObject_CallOneArg(profiler_take_event, id);
    }
    PyObject *event = Py_NewRef(PyList_GET_ITEM(pool, size - 1));
    if (PyList_SetSlice(pool, size - 1, size, NULL) < 0) {
        Py_DECREF(event);
        return NULL;
    }
    return event;
}

/* A timing event of the device `id` for `stream`'s track, recorded on `stream` now (as
 * _profiler.record_timing_event: from the pool, or a new one), appended to the track's
 * events: a new reference, None when the runtime refused (host times only), NULL with an
 * exception. */
static PyObject *end_event(PyObject *track, PyObject *stream, PyObject *id)
{
    PyObject *event = pooled_event(id);
    int cached = track == last_track.track && last_track.serial == profile_serial();
    void *address = event == NULL ? NULL : cdata_address(event);
    void *on = cached ? last_track.on : cdata_address(SLOT(stream, stream_handle));
    PyObject *events = address == NULL ? NULL
                       : cached ? Py_NewRef(last_track.events) : PyObject_GetAttr(track, s_events);
    if (events != NULL && on != NULL && record_event != NULL
        && ((int32_t (*)(void *, void *))record_event)(address, on) == 0) {
        int appended = PyList_Append(events, event);
        Py_DECREF(events);
        if (appended < 0) {
            Py_DECREF(event);
            return NULL;
        }
        return event;
    }
    Py_XDECREF(events);
    Py_XDECREF(event);
    if (PyErr_Occurred()) {
        return NULL;
    }
    /* refused: the profiler's own path drops stale pooled events and tries once more */
    return PyObject_CallFunctionObjArgs(profiler_record_event, track, stream, NULL);
}

/* The native id of the calling thread, asked of the system once per thread (a system call
 * each time otherwise); forgotten in the child of a fork, whose one thread has a new id. */
static unsigned long forks;
static _Thread_local struct {
    unsigned long id, forks;
} native_thread = {0, 0};

static void forget_thread_ids(void)
{
    forks++;
}

static unsigned long thread_id(void)
{
    if (native_thread.id == 0 || native_thread.forks != forks) {
        native_thread.id = PyThread_get_thread_native_id();
        native_thread.forks = forks;
    }
    return native_thread.id;
}

/* ---------------------------------------------------------------------------------------
 * LaunchLog: the records of the launches (and small reads) a profile's C recorder made, in
 * C arrays. A launch adds one entry, with references to objects that exist already (the
 * operator's name, the stream, the device id, each NPUArray argument's shape and dtype) and
 * its pooled timing event, borrowed: no Python object is made per launch, so a profiled loop
 * allocates nothing the garbage collector tracks, and dropping the log touches none of the
 * events (each a cold cache line by then, one per launch). The Records are made from it
 * when the profile is first read (LaunchLog.records()), before its events go back to the
 * pool. */

typedef struct {
    PyObject *name, *stream;  /* references, from the launch's opening */
    PyObject *device;         /* a reference, from its closing */
    PyObject *event;          /* from its closing, borrowed: None when untimed, else the
                               * timing event its track's events list holds, which the
                               * profile keeps until its Records are made */
    Py_ssize_t layout;        /* where the log's `layouts` holds its shapes, then its dtypes */
    long long start_ns, duration_ns;
    Py_ssize_t nbytes;        /* a small read's bytes; -1: a launch */
    unsigned long thread;     /* native id of the launching thread */
    unsigned char arrays;     /* NPUArray arguments (shapes, dtypes) */
    unsigned char closed;     /* 0: open (or the launch raised, or the profile ended first) */
    unsigned char captured;   /* the stream joined a graph capture during the launch */
} LogEntry;

typedef struct {
    PyObject_HEAD
    LogEntry *entries;
    Py_ssize_t length, capacity, closed;
    PyObject **layouts; /* references: each entry's shapes then dtypes */
    Py_ssize_t layouts_length, layouts_capacity;
} LaunchLog;

static PyTypeObject LaunchLogType;

/* Room for one more item of `size` bytes in `*items` (`length` used of `*capacity`),
 * doubling it: 0, or -1 with MemoryError. */
static int make_room(void **items, Py_ssize_t length, Py_ssize_t *capacity, Py_ssize_t more,
                     size_t size)
{
    if (length + more <= *capacity) {
        return 0;
    }
    Py_ssize_t wanted = *capacity < 64 ? 64 : *capacity;
    while (wanted < length + more) {
        wanted *= 2;
    }
    void *grown = wanted > PY_SSIZE_T_MAX / (Py_ssize_t)size ? NULL
                  : PyMem_Realloc(*items, (size_t)wanted * size);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *items = grown;
    *capacity = wanted;
    return 0;
}

/* Opens an entry of `log` for a launch of `name` on `stream` whose NPUArray arguments are
 * the `count` `arrays` (`nbytes` -1; a small read: its bytes): its index, or -1 with an
 * exception. */
static Py_ssize_t log_open(LaunchLog *log, PyObject *name, PyObject *stream,
                           PyObject *const *arrays, Py_ssize_t count, Py_ssize_t nbytes)
{
    if (make_room((void **)&log->entries, log->length, &log->capacity, 1, sizeof(LogEntry)) < 0
        || make_room((void **)&log->layouts, log->layouts_length, &log->layouts_capacity,
                     2 * count, sizeof(PyObject *)) < 0) {
        return -1;
    }
    PyObject **layout = log->layouts + log->layouts_length;
    for (Py_ssize_t i = 0; i < count; i++) {
        layout[i] = Py_NewRef(SLOT(arrays[i], a_shape));
        layout[count + i] = Py_NewRef(SLOT(arrays[i], a_dtype));
    }
    LogEntry *entry = &log->entries[log->length];
    *entry = (LogEntry){Py_NewRef(name), Py_NewRef(stream), NULL, NULL, log->layouts_length,
                        now_ns(), 0, nbytes, 0, (unsigned char)count, 0, 0};
    log->layouts_length += 2 * count;
    return log->length++;
}

static void log_dealloc(PyObject *self)
{
    LaunchLog *log = (LaunchLog *)self;
    for (Py_ssize_t i = 0; i < log->length; i++) {
        LogEntry *entry = &log->entries[i];
        Py_DECREF(entry->name);
        Py_DECREF(entry->stream);
        Py_XDECREF(entry->device);
    }
    for (Py_ssize_t i = 0; i < log->layouts_length; i++) {
        Py_DECREF(log->layouts[i]);
    }
    PyMem_Free(log->entries);
    PyMem_Free(log->layouts);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *log_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    if (PyTuple_GET_SIZE(args) != 0 || (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0)) {
        PyErr_SetString(PyExc_TypeError, "LaunchLog() takes no arguments");
        return NULL;
    }
    return type->tp_alloc(type, 0); /* zeroed: empty */
}

static Py_ssize_t log_length(PyObject *self)
{
    return ((LaunchLog *)self)->closed;
}

/* The tuple of the `count` references at `items`, or `last` again when it holds the same
 * (a loop launches one operator on arrays of one layout: one tuple for all its records). */
static PyObject *layout_tuple(PyObject *const *items, Py_ssize_t count, PyObject *last)
{
    int same = last != NULL && PyTuple_GET_SIZE(last) == count;
    for (Py_ssize_t i = 0; same && i < count; i++) {
        same = PyTuple_GET_ITEM(last, i) == items[i];
    }
    if (same) {
        return Py_NewRef(last);
    }
    PyObject *values = PyTuple_New(count);
    for (Py_ssize_t i = 0; values != NULL && i < count; i++) {
        PyTuple_SET_ITEM(values, i, Py_NewRef(items[i]));
    }
    return values;
}

static PyObject *s_launch; /* "launch": a Record's kind (interned by add_recorder_types) */

/* The slots of npuarray.runtime._profiler.Record, in the order records() sets them. */
enum { R_KIND, R_NAME, R_DEVICE, R_STREAM, R_THREAD, R_START, R_DURATION, R_SHAPES, R_DTYPES,
       R_NBYTES, R_CAPTURED, R_DEVICE_START, R_DEVICE_END, R_EVENTS, R_SLOTS };
static const char *const record_slots[R_SLOTS] = {
    "kind", "name", "device", "stream", "thread", "host_start_ns", "host_duration_ns", "shapes",
    "dtypes", "nbytes", "captured", "device_start_ns", "device_end_ns", "_events"};

/* `values` (new references; NULL where making one failed, with an exception) set as the
 * slots of a new `type` object at `offsets`: the object, or NULL with an exception (the
 * values dropped). */
static PyObject *new_record(PyTypeObject *type, const Py_ssize_t *offsets, PyObject **values)
{
    int complete = 1;
    for (int i = 0; i < R_SLOTS; i++) {
        complete &= values[i] != NULL;
    }
    PyObject *record = complete ? type->tp_alloc(type, 0) : NULL;
    for (int i = 0; i < R_SLOTS; i++) {
        if (record != NULL) {
            SLOT(record, offsets[i]) = values[i];
        } else {
            Py_XDECREF(values[i]);
        }
    }
    return record;
}

/* The device interval of `entry`'s launch from the times its stream reached each timing
 * event (`times`) and the event before it (`before`), as Profile._make_records makes it:
 * new references in values[R_DEVICE_START], values[R_DEVICE_END] (None when unknown). */
static int device_interval(LogEntry *entry, PyObject *times, PyObject *before,
                           long long origin, PyObject **values)
{
    values[R_DEVICE_START] = Py_NewRef(Py_None);
    values[R_DEVICE_END] = Py_NewRef(Py_None);
    PyObject *end = entry->event == Py_None ? NULL : PyDict_GetItemWithError(times, entry->event);
    PyObject *previous = end == NULL ? NULL : PyDict_GetItemWithError(before, entry->event);
    if (previous == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    long long last = PyLong_AsLongLong(previous), reached = PyLong_AsLongLong(end);
    if (PyErr_Occurred()) {
        return -1;
    }
    long long start = last > entry->start_ns ? last : entry->start_ns;
    start = start < reached ? start : reached;
    Py_SETREF(values[R_DEVICE_START], PyLong_FromLongLong(start - origin));
    Py_SETREF(values[R_DEVICE_END], PyLong_FromLongLong(reached - origin));
    return values[R_DEVICE_START] == NULL || values[R_DEVICE_END] == NULL ? -1 : 0;
}

PyDoc_STRVAR(log_records_doc,
"records(record_type, origin: int, times: dict, before: dict) -> list\n\n"
"The Record (`record_type`, npuarray.runtime._profiler.Record) of each launch (small\n"
"read) recorded, in the order they began, every slot set: host times relative to\n"
"`origin` (ns), and the device interval from `times` ({timing event: ns its stream\n"
"reached it}) and `before` ({timing event: ns its stream reached the one before}), as\n"
"npuarray.profiler.Profile makes it for the Python hooks' records. A launch that raised,\n"
"or had not returned when its profile ended, is left out. TypeError for other arguments.");

static PyObject *log_records(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyType_Check(args[0]) || !PyLong_Check(args[1])
        || !PyDict_Check(args[2]) || !PyDict_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError,
                        "records(record_type, origin: int, times: dict, before: dict)");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)args[0];
    Py_ssize_t offsets[R_SLOTS];
    for (int i = 0; i < R_SLOTS; i++) {
        if ((offsets[i] = slot_offset(type, record_slots[i])) < 0) {
            return NULL;
        }
    }
    long long origin = PyLong_AsLongLong(args[1]);
    LaunchLog *log = (LaunchLog *)self;
    PyObject *result = origin == -1 && PyErr_Occurred() ? NULL : PyList_New(0);
    PyObject *last[2] = {NULL, NULL};
    for (Py_ssize_t i = 0; result != NULL && i < log->length; i++) {
        LogEntry *entry = &log->entries[i];
        if (!entry->closed) {
            continue;
        }
        PyObject *values[R_SLOTS] = {NULL};
        PyObject **layout = log->layouts + entry->layout;
        for (int j = 0; j < 2; j++) {
            PyObject *made = layout_tuple(layout + j * entry->arrays, entry->arrays, last[j]);
            if (made != NULL) {
                Py_XSETREF(last[j], made);
                values[R_SHAPES + j] = Py_NewRef(made);
            }
        }
        values[R_KIND] = Py_NewRef(entry->nbytes < 0 ? s_launch : s_copy);
        values[R_NAME] = Py_NewRef(entry->name);
        values[R_DEVICE] = Py_NewRef(entry->device);
        values[R_STREAM] = Py_NewRef(entry->stream);
        values[R_THREAD] = PyLong_FromUnsignedLong(entry->thread);
        values[R_START] = PyLong_FromLongLong(entry->start_ns - origin);
        values[R_DURATION] = PyLong_FromLongLong(entry->duration_ns);
        values[R_NBYTES] = PyLong_FromSsize_t(entry->nbytes < 0 ? 0 : entry->nbytes);
        values[R_CAPTURED] = PyBool_FromLong(entry->captured);
        values[R_EVENTS] = Py_NewRef(Py_None);
        if (device_interval(entry, args[2], args[3], origin, values) < 0) {
            Py_CLEAR(values[R_DEVICE_START]); /* (incomplete: new_record drops the rest) */
        }
        PyObject *record = new_record(type, offsets, values);
        if (record == NULL || PyList_Append(result, record) < 0) {
            Py_CLEAR(result);
        }
        Py_XDECREF(record);
    }
    Py_XDECREF(last[0]);
    Py_XDECREF(last[1]);
    return result;
}

static PyMethodDef log_methods[] = {
    {"records", (PyCFunction)(void (*)(void))log_records, METH_FASTCALL, log_records_doc},
    {NULL, NULL, 0, NULL}};

static PySequenceMethods log_sequence = {.sq_length = log_length};

static PyTypeObject LaunchLogType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npuarray._core._fastpath.LaunchLog",
    .tp_doc = PyDoc_STR(
        "LaunchLog()\n\n"
        "Where the C recorder keeps a profile's launches and small reads while it runs\n"
        "(npuarray.runtime._profiler.Recording.launches): C arrays holding references to\n"
        "objects that exist already, nothing made per launch. len(): the launches closed\n"
        "(returned while the profile ran); records(): their Records."),
    .tp_basicsize = sizeof(LaunchLog),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = log_new,
    .tp_dealloc = log_dealloc,
    .tp_methods = log_methods,
    .tp_as_sequence = &log_sequence,
};

/* A launch the C recorder opened: its entry in its profile's log, and the track of its
 * stream (which records the timing event at its end). Made per launch, but of a type the
 * garbage collector does not track, and kept on a free list. */
typedef struct {
    PyObject_HEAD
    LaunchLog *log;   /* a reference */
    PyObject *track;  /* a reference */
    Py_ssize_t index;
} Span;

static PyTypeObject SpanType;

#define FREE_SPANS 16
static Span *free_spans[FREE_SPANS];
static int free_span_count;

static void span_dealloc(PyObject *self)
{
    Span *span = (Span *)self;
    Py_CLEAR(span->log);
    Py_CLEAR(span->track);
    if (free_span_count < FREE_SPANS) {
        free_spans[free_span_count++] = span;
    } else {
        PyObject_Free(self);
    }
}

static PyTypeObject SpanType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npuarray._core._fastpath.Span",
    .tp_doc = PyDoc_STR("A launch the profiler's C recorder opened (launch_begin()'s span)."),
    .tp_basicsize = sizeof(Span),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = span_dealloc,
};

/* A new Span of `log`'s entry `index`, whose stream's track is `track`; NULL with an
 * exception. */
static PyObject *new_span(PyObject *log, PyObject *track, Py_ssize_t index)
{
    Span *span = free_span_count > 0 ? free_spans[--free_span_count] : NULL;
    if (span != NULL) {
        PyObject_Init((PyObject *)span, &SpanType);
    } else if ((span = PyObject_New(Span, &SpanType)) == NULL) {
        return NULL;
    }
    span->log = (LaunchLog *)Py_NewRef(log);
    span->track = Py_NewRef(track);
    span->index = index;
    return (PyObject *)span;
}

/* While a profile runs: the track of `stream` when the C recorder records its launches (the
 * profile's launches go to a LaunchLog, and the stream has its baseline), borrowed; else
 * NULL (the profiler's Python hooks record). */
static PyObject *logged_track(PyObject *stream)
{
    PyObject *log = SLOT(recording, recording_launches);
    return log != NULL && Py_TYPE(log) == &LaunchLogType ? timed_track(stream) : NULL;
}

/* Before a launch of `name` on `stream` whose NPUArray arguments are the `count` `arrays`
 * (a small read: `nbytes` its bytes, else -1): None when no profile runs; while one runs,
 * the span of its record. Once its stream has its baseline that is a Span, the launch's
 * entry in the running profile's LaunchLog (Recording.launches); before, the Record the
 * profiler's begin_launch opens (which records the baseline), exactly as for a Python
 * launch. A new reference; NULL with an exception when the profiler failed. */
static PyObject *open_span(PyObject *name, PyObject *stream, PyObject *const *arrays,
                           Py_ssize_t count, Py_ssize_t nbytes)
{
    if (!profiling()) {
        return Py_NewRef(Py_None);
    }
    PyObject *track = logged_track(stream);
    if (track == NULL) {
        PyObject *operands = PyTuple_New(count);
        for (Py_ssize_t i = 0; operands != NULL && i < count; i++) {
            PyTuple_SET_ITEM(operands, i, Py_NewRef(arrays[i]));
        }
        PyObject *record = operands == NULL ? NULL
                           : PyObject_CallFunctionObjArgs(profiler_begin, name, operands,
                                                          stream, NULL);
        Py_XDECREF(operands);
        return record;
    }
    PyObject *log = SLOT(recording, recording_launches);
    Py_ssize_t index = log_open((LaunchLog *)log, name, stream, arrays, count, nbytes);
    return index < 0 ? NULL : new_span(log, track, index);
}

/* open_span() for the launch of `name` whose NPUArrays are `a` and `b`, `c` (NULL when
 * fewer). */
static PyObject *open_record(PyObject *name, PyObject *stream, PyObject *a, PyObject *b,
                             PyObject *c)
{
    PyObject *arrays[3] = {a, b, c};
    return open_span(name, stream, arrays, c != NULL ? 3 : b != NULL ? 2 : 1, -1);
}

/* Whether the log of `span` is still the running profile's (it ended meanwhile, on
 * another thread, otherwise). */
static int span_running(Span *span)
{
    return SLOT(recording, recording_launches) == (PyObject *)span->log;
}

/* Closes a Span after its launch (copy) returned: the host duration, the end timing event
 * recorded on the stream and kept with the entry, unless the profile ended meanwhile (the
 * launch then falls outside it). 0, or -1 with an exception. */
static int close_span(Span *span, PyObject *stream, PyObject *id)
{
    long long end = now_ns();
    if (!span_running(span)) {
        return 0;
    }
    int captured = 0; /* the stream joined a capture meanwhile (it waited on a captured event) */
    if (PyDict_GET_SIZE(capture_active) != 0) {
        PyObject *answer = PyObject_CallOneArg(profiler_capturing, stream);
        captured = answer == NULL ? -1 : PyObject_IsTrue(answer);
        Py_XDECREF(answer);
        if (captured < 0) {
            return -1;
        }
    }
    PyObject *event = captured ? Py_NewRef(Py_None) : end_event(span->track, stream, id);
    if (event == NULL) {
        return -1;
    }
    if (!span_running(span)) { /* (taking a new event ran Python) */
        Py_DECREF(event);
        return 0;
    }
    LaunchLog *log = span->log;
    LogEntry *entry = &log->entries[span->index];
    entry->device = Py_NewRef(id);
    entry->event = event; /* (borrowed: the track's events list holds it, see LogEntry) */
    Py_DECREF(event);
    entry->duration_ns = end - entry->start_ns;
    entry->thread = thread_id();
    entry->captured = (unsigned char)captured;
    entry->closed = 1;
    log->closed++;
    return 0;
}

/* After the launch of `span` (open_record's; this call takes the reference) on `stream` of
 * the device `id`: `launched` 0 closes its record, -1 (the launch raised) drops it, as the
 * Python path does. Returns `launched`, or -1 when closing failed. */
static int close_record(PyObject *span, int launched, PyObject *stream, PyObject *id)
{
    if (span != Py_None && launched == 0) {
        if (Py_TYPE(span) == &SpanType) {
            launched = close_span((Span *)span, stream, id);
        } else {
            PyObject *result = PyObject_CallOneArg(profiler_end, span);
            launched = result == NULL ? -1 : 0;
            Py_XDECREF(result);
        }
    }
    Py_DECREF(span);
    return launched;
}

/* The profiler's recorder types made ready, LaunchLog added to `module`, and the thread-id
 * cache told about forks: 0, or -1 with an exception. */
static int add_recorder_types(PyObject *module)
{
    if ((s_launch = PyUnicode_InternFromString("launch")) == NULL
        || PyType_Ready(&LaunchLogType) < 0 || PyType_Ready(&SpanType) < 0) {
        return -1;
    }
    if (pthread_atfork(NULL, NULL, forget_thread_ids) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "pthread_atfork failed");
        return -1;
    }
    return PyModule_AddObjectRef(module, "LaunchLog", (PyObject *)&LaunchLogType);
}

PyDoc_STRVAR(event_times_doc,
"event_times(events: list, anchor, anchor_ns: int) -> list of int, or None\n\n"
"The host-clock times (ns) at which a stream reached each of `events` (timing events\n"
"recorded on it, in record order, cffi pointers): `anchor_ns` minus the time\n"
"aclrtEventElapsedTime measures from the event to `anchor` (the stream's last event,\n"
"recorded and synchronised when it was idle), made non-decreasing in record order (the\n"
"float32 milliseconds round by a few ns). The profiler's loop over a profile's events\n"
"in one call, through the provider's aclrtEventElapsedTime, CANN's or npusim's alike.\n"
"None when the provider lacks it or refuses an event (the caller's Python loop then\n"
"raises the AclError); TypeError for other arguments.");

static PyObject *event_times(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyList_Check(args[0]) || !PyLong_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "event_times(events: list, anchor, anchor_ns: int)");
        return NULL;
    }
    if (!configured || elapsed_time == NULL) {
        Py_RETURN_NONE;
    }
    long long anchor_ns = PyLong_AsLongLong(args[2]);
    void *anchor = anchor_ns == -1 && PyErr_Occurred() ? NULL : cdata_address(args[1]);
    if (anchor == NULL) {
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    }
    Py_ssize_t count = PyList_GET_SIZE(args[0]);
    PyObject *times = PyList_New(count);
    long long previous = LLONG_MIN;
    for (Py_ssize_t i = 0; times != NULL && i < count; i++) {
        void *event = cdata_address(PyList_GET_ITEM(args[0], i));
        float ms = 0.0f;
        if (event == NULL
            || ((int32_t (*)(float *, void *, void *))elapsed_time)(&ms, event, anchor) != 0) {
            Py_DECREF(times);
            return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
        }
        long long at = anchor_ns - llrint((double)ms * 1e6); /* half to even, as Python */
        previous = at < previous ? previous : at;
        PyObject *value = PyLong_FromLongLong(previous);
        if (value == NULL) {
            Py_CLEAR(times);
            break;
        }
        PyList_SET_ITEM(times, i, value);
    }
    return times;
}

#define SPAN_ARRAYS 8 /* NPUArray arguments launch_begin lists in C (aclnn operators take fewer) */

PyDoc_STRVAR(launch_begin_doc,
"launch_begin(op_name, args: tuple, stream) -> span\n\n"
"Opens the profiler's record of a launch of aclnn operator `op_name` that the Python\n"
"path makes (_ops.launch, its reduction and matmul paths) on `stream`, as the C paths\n"
"open theirs: the shapes and dtypes of the NPUArrays among `args`, the host start time.\n"
"None when no profile runs; else hand the span to launch_end() once the launch returned.\n"
"TypeError for other arguments.");

static PyObject *launch_begin(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "launch_begin(op_name, args: tuple, stream)");
        return NULL;
    }
    if (!configured || !profiling()) {
        Py_RETURN_NONE;
    }
    PyObject *arrays[SPAN_ARRAYS];
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args[1]); i++) {
        PyObject *arg = PyTuple_GET_ITEM(args[1], i);
        if (PyObject_TypeCheck(arg, array_type)) {
            if (count == SPAN_ARRAYS) { /* more than any aclnn operator takes: Python's hook */
                return PyObject_CallFunctionObjArgs(profiler_begin, args[0], args[1], args[2],
                                                    NULL);
            }
            arrays[count++] = arg;
        }
    }
    return open_span(args[0], args[2], arrays, count, -1);
}

PyDoc_STRVAR(launch_end_doc,
"launch_end(span, stream, device_id) -> None\n\n"
"Closes launch_begin()'s span after its launch on `stream` (of device `device_id`, an\n"
"int) returned: the host duration, the timing event recorded on the stream, the record\n"
"appended to the running profile (nothing when the profile ended meanwhile).");

static PyObject *launch_end(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyLong_Check(args[2]) || PyTuple_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "launch_end(span: launch_begin()'s, stream, "
                                         "device_id: int)");
        return NULL;
    }
    if (close_record(Py_NewRef(args[0]), 0, args[1], args[2]) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* Where an operation on `x` runs without prepare(): the current stream of x's device, when
 * x's buffer was last used on it (the device id in *id, the aclrtStream in *address); NULL
 * otherwise (a buffer last used on another stream needs prepare()'s ordering: Python). */
static PyObject *ready_stream(PyObject *x, PyObject **id, void **address)
{
    PyObject *buffer = SLOT(x, a_buffer);
    PyObject *device = buffer == NULL ? NULL : SLOT(buffer, b_device);
    PyObject *stream = NULL;
    if (device == NULL || (*id = SLOT(device, device_id)) == NULL
        || (stream = current_stream(*id)) == NULL || SLOT(buffer, b_stream) != stream) {
        return NULL;
    }
    PyObject *handle = SLOT(stream, stream_handle);
    return handle != NULL && (*address = cdata_address(handle)) != NULL ? stream : NULL;
}

/* Whether every step of `strides` is positive: a writable view (no repeated element) with
 * no negative step. */
static int positive_steps(PyObject *strides)
{
    if (strides == NULL || !PyTuple_CheckExact(strides)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(strides); i++) {
        if (PyLong_AsSsize_t(PyTuple_GET_ITEM(strides, i)) <= 0) {
            return 0;
        }
    }
    return 1;
}

/* Whether a strides tuple has a negative step (launch() copies such views first). */
static int negative_step(PyObject *strides)
{
    if (strides == NULL || !PyTuple_CheckExact(strides)) {
        return 1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(strides); i++) {
        if (PyLong_AsSsize_t(PyTuple_GET_ITEM(strides, i)) < 0) {
            return 1;
        }
    }
    return 0;
}

/* x's aclTensor (borrowed: x holds it): its own, or for a view without one (indexing makes
 * those) the descriptor cache's, which _ops.acl_tensor files on x, as launch() does; NULL
 * for a view with a negative step (launch() copies those) or when that failed. */
static PyObject *described(PyObject *x)
{
    PyObject *tensor = SLOT(x, a_tensor);
    if (tensor != Py_None) {
        return tensor;
    }
    if (negative_step(SLOT(x, a_strides))) {
        return NULL;
    }
    PyObject *made = PyObject_CallOneArg(view_tensor, x);
    Py_XDECREF(made);
    return made == NULL ? NULL : SLOT(x, a_tensor);
}

/* Whether the result of `array` (and `other`, another NPUArray or NULL) can be made here:
 * one device, both last used on its current stream, at most SMALL_LIMIT bytes, the
 * default pool, C-contiguous strides to copy (fills the rest of `in`). */
static int placement(PyObject *array, PyObject *other, Operands *in)
{
    if ((in->stream = ready_stream(array, &in->id, &in->stream_address)) == NULL) {
        return 0;
    }
    in->device = SLOT(SLOT(array, a_buffer), b_device);
    if (other != NULL && (SLOT(SLOT(other, a_buffer), b_device) != in->device
                          || SLOT(SLOT(other, a_buffer), b_stream) != in->stream)) {
        return 0;
    }
    Py_ssize_t size = shape_size(in->shape);
    in->nbytes = size * in->plan->itemsize;
    if (size <= 0 || in->nbytes > SMALL_LIMIT) {
        return 0;
    }
    in->pool = memo_get(&default_pools_memo, default_pools, in->id);
    in->strides = contiguous(SLOT(array, a_strides), in->shape);
    if (in->strides == NULL && other != NULL) {
        in->strides = contiguous(SLOT(other, a_strides), in->shape);
    }
    if (in->strides == NULL && !PyErr_Occurred()) {
        in->strides = own(in, contiguous_strides(in->shape));
    }
    return in->pool != NULL && in->strides != NULL
           && !is_true(thread_value(POOL_TLS, s_overrides, &overrides_memo)) && !PyErr_Occurred();
}

/* Two NPUArrays of one shape, or of shapes that broadcast (the operator broadcasts them),
 * whose dtypes the operator takes as they are. */
static int array_operands(BinaryOperator *op, PyObject *x1, PyObject *x2, Operands *in)
{
    PyObject *shape1 = SLOT(x1, a_shape), *shape2 = SLOT(x2, a_shape), *t1, *t2;
    if (shape1 == NULL || shape2 == NULL || (t1 = described(x1)) == NULL
        || (t2 = described(x2)) == NULL || SLOT(x1, a_dtype) == NULL || SLOT(x2, a_dtype) == NULL
        || (in->shape = same_shape(shape1, shape2) ? shape1
                        : own(in, broadcast_shapes(shape1, shape2))) == NULL
        || (in->left = descriptor_address(t1)) == NULL
        || (in->right = descriptor_address(t2)) == NULL
        || (in->plan = array_plan(op, SLOT(x1, a_dtype), SLOT(x2, a_dtype))) == NULL) {
        return 0;
    }
    in->array = x1;
    in->other = x2;
    return placement(x1, x2, in);
}

/* The aclScalar of `value` in the plan's scalar dtype: _ops.acl_scalar's cache (its key:
 * (type, value, dtype), and the sign for 0.0 and -0.0), or the function itself for what
 * it does not cache (NaN) or has not yet. */
static PyObject *scalar_handle(PyObject *value, Plan *plan)
{
    PyObject *kind = (PyObject *)Py_TYPE(value), *key;
    if (kind == (PyObject *)&PyFloat_Type && PyFloat_AS_DOUBLE(value) == 0.0) {
        PyObject *sign = PyFloat_FromDouble(copysign(1.0, PyFloat_AS_DOUBLE(value)));
        key = sign == NULL ? NULL : PyTuple_Pack(4, kind, value, plan->scalar_dtype, sign);
        Py_XDECREF(sign);
    } else {
        key = PyTuple_Pack(3, kind, value, plan->scalar_dtype);
    }
    PyObject *handle = key == NULL ? NULL : PyDict_GetItemWithError(scalars, key);
    Py_XDECREF(key);
    if (handle != NULL) {
        return Py_NewRef(handle);
    }
    return PyErr_Occurred() ? NULL : PyObject_CallFunctionObjArgs(acl_scalar, value,
                                                                  plan->scalar_dtype, NULL);
}

/* An NPUArray and a Python float or int (exact types, not bool) that fits its dtype. */
static int scalar_operands(BinaryOperator *op, PyObject *x, PyObject *value, Operands *in)
{
    PyObject *kind = (PyObject *)Py_TYPE(value), *tensor;
    in->shape = SLOT(x, a_shape);
    if ((kind != (PyObject *)&PyFloat_Type && kind != (PyObject *)&PyLong_Type)
        || in->shape == NULL || (tensor = described(x)) == NULL || SLOT(x, a_dtype) == NULL
        || (in->plan = scalar_plan(op, kind, SLOT(x, a_dtype))) == NULL) {
        return 0;
    }
    Plan *plan = in->plan;
    if (plan->low != NULL && (PyObject_RichCompareBool(plan->low, value, Py_LE) != 1
                              || PyObject_RichCompareBool(value, plan->high, Py_LE) != 1)) {
        return 0;
    }
    void *array = descriptor_address(tensor);
    in->array = x;
    if (array == NULL || !placement(x, NULL, in)) {
        return 0;
    }
    if ((in->scalar = scalar_handle(value, plan)) == NULL) {
        return 0;
    }
    void *scalar = cdata_address(in->scalar);
    if (scalar == NULL) {
        Py_CLEAR(in->scalar);
        return 0;
    }
    in->left = plan->scalar_first ? scalar : array;
    in->right = plan->scalar_first ? array : scalar;
    return 1;
}

/* Whether the common case applies to `x1 <op> x2` (filling `in`). A lookup that fails
 * here only means "not the common case": the Python operator redoes it. */
static int common_case(BinaryOperator *op, PyObject *x1, PyObject *x2, Operands *in)
{
    *in = (Operands){.scalar = NULL, .owned = {NULL, NULL}, .cast_to = -1};
    if (!uncaptured_array(x1)) {
        return 0;
    }
    if (Py_TYPE(x2) == array_type) {
        return op->mode == FORWARD && array_operands(op, x1, x2, in);
    }
    return scalar_operands(op, x1, x2, in);
}

/* The two aclnn phases of the plan's operator on the operands (`right` NULL: a unary
 * operator) and `out` (see _launch.h):
 * 0 when launched; -1 with the exception of a failed phase (or of the workspace path,
 * which runs in Python). */
static int launch(Operands *in, PyObject *out)
{
    void *tensor_out = descriptor_address(SLOT(out, a_tensor));
    if (tensor_out == NULL) {
        PyErr_SetString(PyExc_SystemError, "an aclTensor that is not a cffi pointer");
        return -1;
    }
    Plan *plan = in->plan; /* (binary_fast's copy: its objects are held) */
    void *first = plan->first, *alpha = plan->alpha_address;
    PyObject *record = open_record(plan->name, in->stream, in->array,
                                   in->other != NULL ? in->other : out,
                                   in->other != NULL ? out : NULL);
    if (record == NULL) {
        return -1;
    }
    Phases run = {0, 1, 0, NULL};
    PyThreadState *released = phases_keep_gil(in->nbytes / plan->itemsize) ? NULL
                              : PyEval_SaveThread();
    if (in->right == NULL && in->cast_to >= 0) { /* aclnnCast(self, dtype, out) */
        run.status = ((cast_phase)first)(in->left, in->cast_to, tensor_out, &run.workspace,
                                         &run.executor);
    } else if (in->right == NULL) { /* a unary operator: (self, out) */
        run.status = ((first_phase_2)first)(in->left, tensor_out, &run.workspace,
                                            &run.executor);
    } else if (alpha == NULL) {
        run.status = ((first_phase_3)first)(in->left, in->right, tensor_out, &run.workspace,
                                            &run.executor);
    } else {
        run.status = ((first_phase_4)first)(in->left, in->right, alpha, tensor_out,
                                            &run.workspace, &run.executor);
    }
    second_phase_if_ready(&run, plan->second, in->stream_address);
    if (released != NULL) {
        PyEval_RestoreThread(released);
    }
    return close_record(record, phases_outcome(&run, plan->name, in->stream), in->stream,
                        in->id);
}

/* A new C-contiguous NPUArray of `shape`, `strides` and `dtype` (`nbytes` bytes) on a
 * block from `pool`'s free list of `stream`: MemoryPool.allocate's lock-free case and
 * NPUArray._from_buffer, with the aclTensor from the descriptor cache. The buffer's device
 * is the pool's Device object, as MemoryPool makes it (the fast paths compare devices by
 * identity). NULL with an exception when it failed, without one when no block is cached
 * (the caller then takes its Python path). */
static PyObject *pooled_array(PyObject *pool, PyObject *stream, PyObject *shape,
                              PyObject *strides, PyObject *dtype, Py_ssize_t nbytes)
{
    PyObject *block_size = size_int((nbytes + GRANULE - 1) / GRANULE * GRANULE);
    PyObject *device = NULL;
    PyObject *ptrs = block_size == NULL ? NULL
                     : cached_block_list(pool, stream, block_size, &device);
    if (ptrs == NULL) {
        Py_XDECREF(block_size);
        PyErr_Clear();
        return NULL;
    }
    /* list.pop() with the GIL held: the block is ours alone */
    PyObject *ptr = PyList_GET_ITEM(ptrs, PyList_GET_SIZE(ptrs) - 1);
    Py_SET_SIZE(ptrs, PyList_GET_SIZE(ptrs) - 1);
    /* Allocating objects may run a garbage collection, and with it any __del__: hold what
     * is read after it. */
    PyObject *held[] = {Py_NewRef(pool), Py_NewRef(stream), Py_NewRef(device),
                        Py_NewRef(shape), Py_NewRef(strides), Py_NewRef(dtype)};
    PyObject *out = NULL;
    PyObject *buffer = new_buffer(ptr, nbytes, block_size, device, pool, stream);
    if (buffer == NULL) {
        return_block(pool, block_size, ptr, stream);
    } else {
        out = new_array(buffer, shape, strides, dtype);
    }
    Py_DECREF(block_size);
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++) {
        Py_DECREF(held[i]);
    }
    return out;
}

/* The result of the operands `in` (their checks passed): a new NPUArray from a cached
 * block of the pool, launched into. NULL with an exception when it failed, without one
 * when there is no cached block (MemoryPool.allocate's other cases, in Python). */
static PyObject *new_result(Operands *operands)
{
    Operands in = *operands;
    if (activate_device(in.id) < 0) {
        return NULL; /* activate()'s own error, as on the Python path */
    }
    /* (the plan cache may change during a garbage collection: hold the plan's objects) */
    Plan plan = *in.plan;
    in.plan = &plan;
    PyObject *held[] = {Py_NewRef(plan.name), Py_NewRef(plan.alpha), Py_NewRef(in.stream)};
    PyObject *out = pooled_array(in.pool, in.stream, in.shape, in.strides, plan.out_dtype,
                                 in.nbytes);
    if (out != NULL && launch(&in, out) < 0) {
        Py_CLEAR(out);
    }
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++) {
        Py_DECREF(held[i]);
    }
    return out;
}

/* The result of the fast path, or NULL: with an exception set when it failed, without one
 * when it does not apply (the caller then runs the Python operator). */
static PyObject *binary_fast(BinaryOperator *op, PyObject *x1, PyObject *x2)
{
    Operands in;
    PyObject *out = NULL;
    if (common_case(op, x1, x2, &in)) {
        out = new_result(&in);
        if (out != NULL) {
            taken[in.scalar != NULL ? TAKEN_SCALAR : TAKEN_ARRAYS]++;
        }
    } else {
        PyErr_Clear();
    }
    release_operands(&in);
    return out;
}

/* Whether `x <op>= y` is the in-place common case (filling `in`): two NPUArrays of one
 * shape on one device, both last used on its current stream, whose dtypes the operator
 * takes as they are with a result of x's dtype; x writable (no broadcast stride), neither
 * with a negative step, and y either x itself or in other memory (an overlap is computed
 * apart, in Python). */
static int inplace_case(BinaryOperator *op, PyObject *x, PyObject *y, Operands *in)
{
    *in = (Operands){.scalar = NULL, .owned = {NULL, NULL}, .cast_to = -1};
    if (!uncaptured_array(x) || Py_TYPE(y) != array_type) {
        return 0;
    }
    PyObject *tx = SLOT(x, a_tensor), *ty = SLOT(y, a_tensor), *strides = SLOT(x, a_strides);
    PyObject *buffer = SLOT(x, a_buffer), *other = SLOT(y, a_buffer);
    in->shape = SLOT(x, a_shape);
    if (in->shape == NULL || SLOT(y, a_shape) == NULL || tx == NULL || ty == NULL
        || buffer == NULL || other == NULL
        || SLOT(x, a_dtype) == NULL || SLOT(y, a_dtype) == NULL
        || (other == buffer && x != y) || !same_shape(in->shape, SLOT(y, a_shape))
        || shape_size(in->shape) <= 0
        || (in->left = descriptor_address(tx)) == NULL
        || (in->right = descriptor_address(ty)) == NULL
        || (in->plan = array_plan(op, SLOT(x, a_dtype), SLOT(y, a_dtype))) == NULL
        || PyObject_RichCompareBool(in->plan->out_dtype, SLOT(x, a_dtype), Py_EQ) != 1) {
        return 0;
    }
    /* (a broadcast view is read-only, and negative steps are Python's cases) */
    if (!positive_steps(strides) || negative_step(SLOT(y, a_strides))
        || (in->stream = ready_stream(x, &in->id, &in->stream_address)) == NULL) {
        return 0;
    }
    in->device = SLOT(buffer, b_device);
    return SLOT(other, b_device) == in->device && SLOT(other, b_stream) == in->stream
           && !PyErr_Occurred();
}

/* `x <op>= y` launched in x's memory (aclnnInplaceAdd(selfRef, other, alpha), ...): a new
 * reference to x; NULL with an exception when it failed, without one when it does not
 * apply (the caller then runs the Python operator). */
static PyObject *inplace_fast(BinaryOperator *op, PyObject *x, PyObject *y)
{
    Operands in;
    if (!inplace_case(op, x, y, &in)) {
        PyErr_Clear();
        return NULL;
    }
    if (activate_device(in.id) < 0) {
        return NULL;
    }
    Plan *plan = in.plan;
    void *first = plan->first, *second = plan->second, *alpha = plan->alpha_address;
    PyObject *name = Py_NewRef(plan->name), *alpha_object = Py_NewRef(plan->alpha);
    Py_INCREF(in.stream);
    PyObject *record = open_record(name, in.stream, x, y, NULL);
    if (record == NULL) {
        Py_DECREF(in.stream);
        Py_DECREF(name);
        Py_DECREF(alpha_object);
        return NULL;
    }
    Phases run = {0, 1, 0, NULL};
    PyThreadState *released = phases_keep_gil(shape_size(in.shape)) ? NULL : PyEval_SaveThread();
    if (alpha == NULL) {
        run.status = ((first_phase_2)first)(in.left, in.right, &run.workspace, &run.executor);
    } else {
        run.status = ((first_phase_3)first)(in.left, in.right, alpha, &run.workspace,
                                            &run.executor);
    }
    second_phase_if_ready(&run, second, in.stream_address);
    if (released != NULL) {
        PyEval_RestoreThread(released);
    }
    int failed = close_record(record, phases_outcome(&run, name, in.stream), in.stream,
                              in.id) < 0;
    Py_DECREF(in.stream);
    Py_DECREF(name);
    Py_DECREF(alpha_object);
    if (failed) {
        return NULL;
    }
    taken[TAKEN_IN_PLACE]++;
    return Py_NewRef(x);
}

static PyObject *binary_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames)
{
    BinaryOperator *op = (BinaryOperator *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == 2 && kwnames == NULL) {
        PyObject *out = op->mode == IN_PLACE ? inplace_fast(op, args[0], args[1])
                                             : binary_fast(op, args[0], args[1]);
        if (out != NULL || PyErr_Occurred()) {
            return out;
        }
    }
    if (op->fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "npuarray's operator was cleared (shutdown)");
        return NULL;
    }
    return PyObject_Vectorcall(op->fallback, args, nargsf, kwnames);
}

static PyObject *binary_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"name", "direct", "scalar_direct", "fallback", "mode", NULL};
    static const char *modes[] = {"forward", "reflected", "in-place"};
    PyObject *name, *direct, *scalar_direct, *fallback;
    const char *mode_name = "forward";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UO!O!O|$s:BinaryOperator", keywords, &name,
                                     &PyDict_Type, &direct, &PyDict_Type, &scalar_direct,
                                     &fallback, &mode_name)) {
        return NULL;
    }
    int mode = -1;
    for (int i = 0; i < 3; i++) {
        if (strcmp(mode_name, modes[i]) == 0) {
            mode = i;
        }
    }
    if (mode < 0) {
        PyErr_Format(PyExc_ValueError, "mode must be 'forward', 'reflected' or 'in-place', "
                     "not '%s'", mode_name);
        return NULL;
    }
    BinaryOperator *op = (BinaryOperator *)type->tp_alloc(type, 0);
    if (op == NULL) {
        return NULL;
    }
    op->vectorcall = binary_vectorcall;
    op->mode = mode;
    op->name = Py_NewRef(name);
    op->direct = Py_NewRef(direct);
    op->scalar_direct = Py_NewRef(scalar_direct);
    op->fallback = Py_NewRef(fallback);
    return (PyObject *)op;
}

static int plan_traverse(Plan *plan, visitproc visit, void *arg)
{
    Py_VISIT(plan->key1);
    Py_VISIT(plan->key2);
    Py_VISIT(plan->name);
    Py_VISIT(plan->entry);
    Py_VISIT(plan->alpha);
    Py_VISIT(plan->out_dtype);
    Py_VISIT(plan->scalar_dtype);
    Py_VISIT(plan->low);
    Py_VISIT(plan->high);
    return 0;
}

static int binary_traverse(PyObject *self, visitproc visit, void *arg)
{
    BinaryOperator *op = (BinaryOperator *)self;
    for (int i = 0; i < PLAN_CACHE; i++) {
        int error = plan_traverse(&op->plans[i], visit, arg);
        if (error == 0) {
            error = plan_traverse(&op->scalar_plans[i], visit, arg);
        }
        if (error != 0) {
            return error;
        }
    }
    Py_VISIT(op->name);
    Py_VISIT(op->direct);
    Py_VISIT(op->scalar_direct);
    Py_VISIT(op->fallback);
    return 0;
}

static int binary_clear(PyObject *self)
{
    BinaryOperator *op = (BinaryOperator *)self;
    for (int i = 0; i < PLAN_CACHE; i++) {
        clear_plan(&op->plans[i]);
        clear_plan(&op->scalar_plans[i]);
    }
    Py_CLEAR(op->name);
    Py_CLEAR(op->direct);
    Py_CLEAR(op->scalar_direct);
    Py_CLEAR(op->fallback);
    return 0;
}

static void binary_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    binary_clear(self);
    Py_TYPE(self)->tp_free(self);
}

/* As a class attribute it binds like a function: x.__add__ is a bound method. */
static PyObject *method_get(PyObject *self, PyObject *instance, PyObject *owner)
{
    (void)owner;
    if (instance == NULL || instance == Py_None) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, instance);
}

/* __name__, __qualname__, __module__ and __doc__ are those of the Python function the
 * object stands in for, and __wrapped__ is that function (inspect.signature follows it). */
static PyObject *forwarding_getattro(PyObject *self, PyObject *name, PyObject *fallback)
{
    const char *text = fallback == NULL ? NULL : PyUnicode_AsUTF8(name);
    if (text != NULL && (!strcmp(text, "__name__") || !strcmp(text, "__qualname__")
                         || !strcmp(text, "__module__") || !strcmp(text, "__doc__"))) {
        return PyObject_GetAttr(fallback, name);
    }
    if (text != NULL && !strcmp(text, "__wrapped__")) {
        return Py_NewRef(fallback);
    }
    PyErr_Clear();
    return PyObject_GenericGetAttr(self, name);
}

static PyObject *binary_getattro(PyObject *self, PyObject *name)
{
    return forwarding_getattro(self, name, ((BinaryOperator *)self)->fallback);
}

static PyTypeObject BinaryOperatorType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npuarray._core._fastpath.BinaryOperator",
    .tp_doc = PyDoc_STR(
        "BinaryOperator(name, direct, scalar_direct, fallback, *, mode='forward')\n\n"
        "NPUArray's binary operator for the aclnn operator `name` (aclnnAdd, ...): the\n"
        "common case in C (two NPUArrays, or an NPUArray and a Python float\n"
        "or int, whose dtypes the operator takes as they are: `direct` and `scalar_direct`,\n"
        "the _Binary plan's tables), everything else through `fallback`, the Python\n"
        "operator. `mode`: 'forward' (x + y, x + 2.0), 'reflected' (__radd__: 2.0 + x) or\n"
        "'in-place' (__iadd__ with the in-place operator `name`, aclnnInplaceAdd: x += y,\n"
        "returning x). Binds like a method."),
    .tp_basicsize = sizeof(BinaryOperator),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR
                | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = binary_traverse,
    .tp_clear = binary_clear,
    .tp_vectorcall_offset = offsetof(BinaryOperator, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = method_get,
    .tp_getattro = binary_getattro,
    .tp_new = binary_new,
    .tp_dealloc = binary_dealloc,
};

/* ---------------------------------------------------------------------------------------
 * BufferRelease: DeviceBuffer.__del__ */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *fallback; /* the Python __del__ */
} BufferRelease;

static int interpreter_finalizing(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

/* MemoryPool._release's lock-free case: 1 when the block went back to its free list,
 * 0 when that list does not exist (the Python __del__ then files it), -1 on error. */
static int release_block(PyObject *buffer)
{
    PyObject *pool = SLOT(buffer, b_pool), *ptr = SLOT(buffer, b_ptr);
    PyObject *size = SLOT(buffer, b_size), *stream = SLOT(buffer, b_stream);
    if (pool == NULL || ptr == NULL || size == NULL || stream == NULL
        || Py_TYPE(pool) != pool_type) {
        return 0;
    }
    PyObject *ptrs = free_list(pool, stream, size);
    int filed = 0;
    if (ptrs != NULL) {
        filed = PyList_Append(ptrs, ptr) < 0 ? -1 : 1;
    }
    if (filed == 0 && PyErr_Occurred()) {
        filed = -1;
    }
    return filed;
}

static PyObject *release_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                    PyObject *kwnames)
{
    BufferRelease *release = (BufferRelease *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (configured && nargs == 1 && kwnames == NULL && Py_TYPE(args[0]) == buffer_type) {
        PyObject *buffer = args[0];
        PyObject *forked = SLOT(process, process_forked);
        if (forked == Py_True || interpreter_finalizing()) {
            Py_RETURN_NONE; /* a forked child's copy of the parent's block, or shutdown */
        }
        if (forked == Py_False && SLOT(buffer, b_others) == Py_None
            && !is_true(thread_value(DEVICE_TLS, s_in_host_func, &in_host_func_memo))) {
            int filed = release_block(buffer);
            if (filed != 0) {
                return filed > 0 ? Py_NewRef(Py_None) : NULL;
            }
        }
        PyErr_Clear();
    }
    if (release->fallback == NULL) {
        Py_RETURN_NONE; /* cleared at shutdown: the blocks go with the process */
    }
    return PyObject_Vectorcall(release->fallback, args, nargsf, kwnames);
}

static PyObject *release_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"fallback", NULL};
    PyObject *fallback;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:BufferRelease", keywords, &fallback)) {
        return NULL;
    }
    BufferRelease *release = (BufferRelease *)type->tp_alloc(type, 0);
    if (release == NULL) {
        return NULL;
    }
    release->vectorcall = release_vectorcall;
    release->fallback = Py_NewRef(fallback);
    return (PyObject *)release;
}

static int release_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((BufferRelease *)self)->fallback);
    return 0;
}

static int release_clear(PyObject *self)
{
    Py_CLEAR(((BufferRelease *)self)->fallback);
    return 0;
}

static void release_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    release_clear(self);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *release_getattro(PyObject *self, PyObject *name)
{
    return forwarding_getattro(self, name, ((BufferRelease *)self)->fallback);
}

static PyTypeObject BufferReleaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npuarray._core._fastpath.BufferRelease",
    .tp_doc = PyDoc_STR(
        "BufferRelease(fallback)\n\n"
        "DeviceBuffer.__del__: a block last used on one stream goes back to the pool's\n"
        "free list of that stream in C (MemoryPool._release's lock-free case); everything\n"
        "else through `fallback`, the Python __del__. Binds like a method."),
    .tp_basicsize = sizeof(BufferRelease),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR
                | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = release_traverse,
    .tp_clear = release_clear,
    .tp_vectorcall_offset = offsetof(BufferRelease, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = method_get,
    .tp_getattro = release_getattro,
    .tp_new = release_new,
    .tp_dealloc = release_dealloc,
};

/* DeviceBuffer's tp_finalize once `finalize_in_c` set it: the BufferRelease of the class
 * called directly, without CPython's slot_tp_finalize looking `__del__` up and calling it
 * as a method. Assigning DeviceBuffer.__del__ later makes CPython reset the slot to its
 * own (type_setattro -> update_slot), so the class's __del__ always decides. */
static PyObject *installed_release; /* the BufferRelease this finalizer calls */

static void buffer_finalize(PyObject *self)
{
    PyObject *error_type, *error_value, *error_traceback;
    PyErr_Fetch(&error_type, &error_value, &error_traceback);
    PyObject *result = release_vectorcall(installed_release, &self, 1, NULL);
    if (result == NULL) {
        PyErr_WriteUnraisable(installed_release);
    }
    Py_XDECREF(result);
    PyErr_Restore(error_type, error_value, error_traceback);
}

PyDoc_STRVAR(finalize_in_c_doc,
"finalize_in_c(buffer_type)\n\n"
"Makes the BufferRelease that is `buffer_type.__del__` (the configured DeviceBuffer)\n"
"the type's finalizer in C. Raises TypeError when `buffer_type` is not the configured\n"
"buffer type or its __del__ is not a BufferRelease.");

static PyObject *finalize_in_c(PyObject *module, PyObject *type)
{
    (void)module;
    if (!configured || type != (PyObject *)buffer_type) {
        PyErr_SetString(PyExc_TypeError, "finalize_in_c: not the configured buffer type");
        return NULL;
    }
    PyObject *release = PyObject_GetAttrString(type, "__del__");
    if (release == NULL) {
        return NULL;
    }
    if (Py_TYPE(release) != &BufferReleaseType) {
        Py_DECREF(release);
        PyErr_SetString(PyExc_TypeError, "finalize_in_c: __del__ is not a BufferRelease");
        return NULL;
    }
    Py_XSETREF(installed_release, release);
    buffer_type->tp_finalize = buffer_finalize;
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------
 * unary_result: a unary operator into a new array */

#define UNARY_PLANS 64
static Plan unary_plans[UNARY_PLANS]; /* keyed by (operator name, result dtype) */
static int next_unary_plan;

static Plan *unary_plan(PyObject *name, PyObject *out_dtype)
{
    Plan *plan = cached_plan(unary_plans, UNARY_PLANS, name, out_dtype);
    if (plan != NULL) {
        return plan;
    }
    plan = &unary_plans[next_unary_plan];
    next_unary_plan = (next_unary_plan + 1) % UNARY_PLANS;
    clear_plan(plan);
    if (fill_plan(plan, name, Py_None, out_dtype) < 0) {
        clear_plan(plan);
        return NULL;
    }
    plan->key1 = Py_NewRef(name);
    plan->key2 = Py_NewRef(out_dtype);
    return plan;
}

PyDoc_STRVAR(unary_result_doc,
"unary_result(name, x, dtype[, acl_dtype]) -> NPUArray or None\n\n"
"`name`(x) into a new C-contiguous NPUArray of x's shape and `dtype`, for the\n"
"aclnn operator `name` of signature (self, out) (aclnnExp, aclnnNeg, ...; its\n"
"first phase must take x's dtype and write `dtype`), or with `acl_dtype` (an int),\n"
"(self, aclDataType, out): aclnnCast. On the current stream of x's device; None\n"
"when the common case does not apply (a view with a negative step, ...: the caller\n"
"then takes its Python path): see BinaryOperator. Raises AclError when a phase fails.");


static PyObject *unary_result(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if ((nargs != 3 && nargs != 4) || !PyUnicode_CheckExact(args[0])
        || (nargs == 4 && !PyLong_CheckExact(args[3]))) {
        PyErr_SetString(PyExc_TypeError, "unary_result(name: str, x, dtype[, acl_dtype: int])");
        return NULL;
    }
    PyObject *x = args[1];
    Operands in = {.scalar = NULL, .right = NULL, .owned = {NULL, NULL}, .cast_to = -1,
                   .array = x};
    if (nargs == 4 && (in.cast_to = (int)PyLong_AsLong(args[3])) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *tensor;
    if (!uncaptured_array(x) || negative_step(SLOT(x, a_strides))
        || (tensor = SLOT(x, a_tensor)) == NULL || (in.shape = SLOT(x, a_shape)) == NULL
        || (in.left = cdata_address(tensor)) == NULL
        || (in.plan = unary_plan(args[0], args[2])) == NULL || !placement(x, NULL, &in)) {
        release_operands(&in);
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *out = new_result(&in);
    release_operands(&in);
    if (out == NULL && !PyErr_Occurred()) {
        Py_RETURN_NONE;
    }
    if (out != NULL) {
        taken[TAKEN_UNARY]++;
    }
    return out;
}

/* ---------------------------------------------------------------------------------------
 * fill: aclnnInplaceFillScalar(selfRef, value) */

PyDoc_STRVAR(fill_doc,
"fill(x, value) -> True or None\n\n"
"Every element of the NPUArray x set to the aclScalar `value` (of x's dtype) with\n"
"aclnnInplaceFillScalar on the current stream of x's device, for a writable x with\n"
"positive strides last used on that stream; None when that is not the case (the\n"
"caller then takes its Python path, _ops.fill_). Raises AclError when a phase fails.");

static PyObject *fill(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "fill(x, value)");
        return NULL;
    }
    PyObject *x = args[0], *value = args[1];
    PyObject *tensor, *shape, *id = NULL, *stream;
    void *self = NULL, *scalar = NULL, *stream_address = NULL;
    Plan *plan = NULL;
    /* (a broadcast view is read-only: Python raises; negative steps are Python's cases) */
    if (!uncaptured_array(x)
        || (tensor = SLOT(x, a_tensor)) == NULL || (self = cdata_address(tensor)) == NULL
        || (scalar = cdata_address(value)) == NULL || (shape = SLOT(x, a_shape)) == NULL
        || !PyTuple_CheckExact(shape) || shape_size(shape) <= 0
        || !positive_steps(SLOT(x, a_strides))
        || (stream = ready_stream(x, &id, &stream_address)) == NULL
        || (plan = unary_plan(s_fill, SLOT(x, a_dtype))) == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (activate_device(id) < 0) {
        return NULL;
    }
    void *first = plan->first, *second = plan->second;
    PyObject *held[] = {Py_NewRef(value), Py_NewRef(stream)};
    PyObject *record = open_record(s_fill, stream, x, NULL, NULL);
    int failed = record == NULL;
    if (!failed) {
        Phases run = {0, 1, 0, NULL};
        Py_BEGIN_ALLOW_THREADS
        run.status = ((first_phase_2)first)(self, scalar, &run.workspace, &run.executor);
        second_phase_if_ready(&run, second, stream_address);
        Py_END_ALLOW_THREADS
        failed = close_record(record, phases_outcome(&run, s_fill, stream), stream, id) < 0;
    }
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++) {
        Py_DECREF(held[i]);
    }
    if (failed) {
        return NULL;
    }
    taken[TAKEN_FILL]++;
    return Py_NewRef(Py_True);
}

/* ---------------------------------------------------------------------------------------
 * reduction_result: a reduction into a new array (_ops.reduction_result's common case) */

/* The first phases of the reductions, by signature (CANN's exact parameter types; see
 * npuarray/_acl/_launch.h). */
typedef int32_t (*reduce_fn)(void *, void *, bool, void *, uint64_t *, void **);
typedef int32_t (*reduce_dtype_fn)(void *, void *, bool, int, void *, uint64_t *, void **);
typedef int32_t (*reduce_index_fn)(void *, int64_t, bool, void *, uint64_t *, void **);
typedef int32_t (*std_fn)(void *, void *, int64_t, bool, void *, uint64_t *, void **);
typedef int32_t (*var_fn)(void *, void *, bool, bool, void *, uint64_t *, void **);

enum { REDUCE, REDUCE_DTYPE, REDUCE_INDEX, STD, VAR };

static const struct { const char *name; int kind; } reductions[] = {
    {"aclnnAmax", REDUCE}, {"aclnnAmin", REDUCE},
    {"aclnnReduceSum", REDUCE_DTYPE}, {"aclnnMean", REDUCE_DTYPE},
    {"aclnnArgMax", REDUCE_INDEX}, {"aclnnArgMin", REDUCE_INDEX},
    {"aclnnStd", STD}, {"aclnnVar", VAR}};

/* The first-phase arguments between self and out of a reduction, converted: `params` is
 * (aclIntArray dim, bool keepDim[, int aclDataType]) for REDUCE(_DTYPE), (int dim, bool
 * keepdim) for REDUCE_INDEX, (dim, int correction, bool keepdim) for STD and (dim, bool
 * unbiased, bool keepdim) for VAR. 0 when they are not of those types. */
typedef struct {
    void *dims;
    int64_t number; /* ArgMax's dim, Std's correction, ReduceSum's aclDataType */
    bool flag, keep;  /* Var's unbiased; keepDim */
} ReductionArguments;

static int bool_argument(PyObject *value, bool *out)
{
    *out = value == Py_True;
    return PyBool_Check(value);
}

static int int_argument(PyObject *value, int64_t *out)
{
    *out = PyLong_CheckExact(value) ? PyLong_AsLongLong(value) : -1;
    return PyLong_CheckExact(value) && !PyErr_Occurred();
}

static int reduction_arguments(int kind, PyObject *params, ReductionArguments *args)
{
    static const Py_ssize_t counts[] = {2, 3, 2, 3, 3};
    if (!PyTuple_CheckExact(params) || PyTuple_GET_SIZE(params) != counts[kind]) {
        return 0;
    }
    PyObject *const *item = &PyTuple_GET_ITEM(params, 0);
    args->dims = NULL;
    switch (kind) {
    case REDUCE:
        return (args->dims = descriptor_address(item[0])) != NULL && bool_argument(item[1], &args->keep);
    case REDUCE_DTYPE:
        return (args->dims = descriptor_address(item[0])) != NULL && bool_argument(item[1], &args->keep)
               && int_argument(item[2], &args->number);
    case REDUCE_INDEX:
        return int_argument(item[0], &args->number) && bool_argument(item[1], &args->keep);
    case STD:
        return (args->dims = descriptor_address(item[0])) != NULL
               && int_argument(item[1], &args->number) && bool_argument(item[2], &args->keep);
    default: /* VAR */
        return (args->dims = descriptor_address(item[0])) != NULL && bool_argument(item[1], &args->flag)
               && bool_argument(item[2], &args->keep);
    }
}

static int32_t reduction_first_phase(int kind, void *first, void *self, ReductionArguments *a,
                                     void *out, uint64_t *workspace, void **executor)
{
    switch (kind) {
    case REDUCE:
        return ((reduce_fn)first)(self, a->dims, a->keep, out, workspace, executor);
    case REDUCE_DTYPE:
        return ((reduce_dtype_fn)first)(self, a->dims, a->keep, (int)a->number, out, workspace,
                                        executor);
    case REDUCE_INDEX:
        return ((reduce_index_fn)first)(self, a->number, a->keep, out, workspace, executor);
    case STD:
        return ((std_fn)first)(self, a->dims, a->number, a->keep, out, workspace, executor);
    default:
        return ((var_fn)first)(self, a->dims, a->flag, a->keep, out, workspace, executor);
    }
}

#define REDUCTION_PLANS 16
static Plan reduction_plans[REDUCTION_PLANS]; /* keyed by (operator name, result dtype) */
static int next_reduction_plan;

static int reduction_kind(PyObject *name)
{
    const char *text = PyUnicode_AsUTF8(name);
    for (size_t i = 0; text != NULL && i < sizeof reductions / sizeof reductions[0]; i++) {
        if (strcmp(text, reductions[i].name) == 0) {
            return reductions[i].kind;
        }
    }
    return -1;
}

PyDoc_STRVAR(reduction_result_doc,
"reduction_result(x, name, params, shape, dtype) -> NPUArray or None\n\n"
"_ops.reduction_result in C: x reduced by the aclnn reduction `name` (aclnnReduceSum,\n"
"aclnnMean, aclnnAmax, aclnnAmin, aclnnArgMax, aclnnArgMin, aclnnStd, aclnnVar) with the\n"
"first-phase arguments `params` into a new C-contiguous array of `shape` and `dtype`\n"
"on the current stream of x's device; None when the common case does not apply (the\n"
"caller then takes its Python path). Raises AclError when a phase fails.");

/* The itemsize of the dtype `dtype`, or -1 (no exception left set). */
static Py_ssize_t dtype_itemsize(PyObject *dtype)
{
    PyObject *itemsize_object = PyObject_GetAttr(dtype, s_itemsize);
    Py_ssize_t itemsize = itemsize_object == NULL ? -1 : PyLong_AsSsize_t(itemsize_object);
    Py_XDECREF(itemsize_object);
    PyErr_Clear();
    return itemsize;
}

/* reduction_result with the result's C-order `strides` (NULL: made here) and the itemsize of
 * `dtype` known: a memoised plan (ReductionFunction) keeps both. */
static PyObject *reduce_into_new(PyObject *x, PyObject *name, PyObject *params, PyObject *shape,
                                 PyObject *strides_known, PyObject *dtype, Py_ssize_t itemsize)
{
    ReductionArguments arguments = {NULL, 0, false, false};
    void *self = NULL, *stream_address = NULL;
    PyObject *tensor, *id = NULL, *stream, *pool;
    Py_ssize_t size;
    int kind = reduction_kind(name);
    if (kind < 0 || !uncaptured_array(x)
        || (tensor = SLOT(x, a_tensor)) == NULL || (self = descriptor_address(tensor)) == NULL
        || !reduction_arguments(kind, params, &arguments) || !PyTuple_CheckExact(shape)
        || (size = shape_size(shape)) <= 0
        || (stream = ready_stream(x, &id, &stream_address)) == NULL
        || (pool = memo_get(&default_pools_memo, default_pools, id)) == NULL
        || is_true(thread_value(POOL_TLS, s_overrides, &overrides_memo))) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Plan *plan = cached_plan(reduction_plans, REDUCTION_PLANS, name, dtype);
    if (plan == NULL && itemsize > 0) {
        plan = &reduction_plans[next_reduction_plan];
        next_reduction_plan = (next_reduction_plan + 1) % REDUCTION_PLANS;
        clear_plan(plan);
        if (fill_plan(plan, name, Py_None, dtype) < 0) {
            clear_plan(plan);
            plan = NULL;
        } else {
            plan->key1 = Py_NewRef(name);
            plan->key2 = Py_NewRef(dtype);
        }
    }
    if (plan == NULL || itemsize <= 0 || size > SMALL_LIMIT / itemsize) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (activate_device(id) < 0) {
        return NULL;
    }
    void *first = plan->first, *second = plan->second;
    PyObject *held[] = {Py_NewRef(name), Py_NewRef(params), Py_NewRef(stream)};
    PyObject *strides = strides_known != NULL ? Py_NewRef(strides_known) : contiguous_strides(shape);
    PyObject *out = strides == NULL ? NULL : pooled_array(pool, stream, shape, strides, dtype,
                                                         size * itemsize);
    Py_XDECREF(strides);
    void *tensor_out = out == NULL ? NULL : descriptor_address(SLOT(out, a_tensor));
    if (out != NULL && tensor_out == NULL) {
        Py_CLEAR(out);
        PyErr_SetString(PyExc_SystemError, "an aclTensor that is not a cffi pointer");
    }
    PyObject *record = tensor_out == NULL ? NULL : open_record(name, stream, x, out, NULL);
    if (record == NULL) {
        Py_CLEAR(out);
    } else {
        Phases run = {0, 1, 0, NULL};
        PyThreadState *released = phases_keep_gil(shape_size(SLOT(x, a_shape))) ? NULL
                                  : PyEval_SaveThread();
        run.status = reduction_first_phase(kind, first, self, &arguments, tensor_out,
                                           &run.workspace, &run.executor);
        second_phase_if_ready(&run, second, stream_address);
        if (released != NULL) {
            PyEval_RestoreThread(released);
        }
        if (close_record(record, phases_outcome(&run, name, stream), stream, id) < 0) {
            Py_CLEAR(out);
        }
    }
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++) {
        Py_DECREF(held[i]);
    }
    if (out == NULL && !PyErr_Occurred()) {
        Py_RETURN_NONE; /* no cached block */
    }
    if (out != NULL) {
        taken[TAKEN_REDUCTION]++;
    }
    return out;
}

static PyObject *reduction_result(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5 || !PyUnicode_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "reduction_result(x, name: str, params, shape, dtype)");
        return NULL;
    }
    return reduce_into_new(args[0], args[1], args[2], args[3], NULL, args[4],
                           dtype_itemsize(args[4]));
}

/* ---------------------------------------------------------------------------------------
 * empty_result: a new array from the pool, nothing launched */

PyDoc_STRVAR(empty_result_doc,
"empty_result(shape, dtype, device, stream) -> NPUArray or None\n\n"
"A new C-contiguous NPUArray of `shape` (a tuple of ints) and NumPy `dtype` on\n"
"`device`, uninitialised, its block (at most 1 MiB) from the default pool's free list\n"
"of `stream`, with its aclTensor; None when that does not apply (a graph capture,\n"
"using_pool(), an empty or larger array, no cached block): the caller then takes\n"
"its Python path (_ops.empty).");

static PyObject *empty_result(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "empty_result(shape, dtype, device, stream)");
        return NULL;
    }
    PyObject *shape = args[0], *dtype = args[1], *device = args[2], *stream = args[3];
    PyObject *id, *pool, *itemsize_object;
    Py_ssize_t size, itemsize;
    if (!configured || PyDict_GET_SIZE(capture_active) != 0 || !PyTuple_CheckExact(shape)
        || (size = shape_size(shape)) <= 0 || (id = SLOT(device, device_id)) == NULL
        || (pool = memo_get(&default_pools_memo, default_pools, id)) == NULL
        || is_true(thread_value(POOL_TLS, s_overrides, &overrides_memo))
        || (itemsize_object = PyObject_GetAttr(dtype, s_itemsize)) == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    itemsize = PyLong_AsSsize_t(itemsize_object);
    Py_DECREF(itemsize_object);
    if (itemsize <= 0 || size > SMALL_LIMIT / itemsize) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *strides = contiguous_strides(shape);
    PyObject *out = strides == NULL ? NULL : pooled_array(pool, stream, shape, strides, dtype,
                                                         size * itemsize);
    Py_XDECREF(strides);
    if (out == NULL && !PyErr_Occurred()) {
        Py_RETURN_NONE;
    }
    if (out != NULL) {
        taken[TAKEN_EMPTY]++;
    }
    return out;
}

/* ---------------------------------------------------------------------------------------
 * read_to_host: a blocking read of a small array */

typedef int32_t (*capture_info_fn)(void *, int32_t *, void **);
typedef int32_t (*synchronize_fn)(void *);
typedef int32_t (*memcpy_fn)(void *, size_t, const void *, size_t, int32_t);

#define CAPTURE_STATUS_ACTIVE 1 /* ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE */

/* Whether `stream` (a Stream) is being captured (aclmdlRICaptureGetInfo), as
 * _memory_pool.capturing; -1 when it cannot be told here. */
static int stream_capturing(PyObject *stream)
{
    PyObject *handle = SLOT(stream, stream_handle);
    void *address = handle == NULL ? NULL : cdata_address(handle);
    if (address == NULL) {
        return -1;
    }
    if (capture_info == NULL) {
        return 0; /* the provider lacks it: as _memory_pool.capturing */
    }
    int32_t status = 0;
    void *model = NULL;
    int32_t ret = ((capture_info_fn)capture_info)(address, &status, &model);
    return ret == 0 && status == CAPTURE_STATUS_ACTIVE;
}

PyDoc_STRVAR(read_to_host_doc,
"read_to_host(x) -> numpy.ndarray or None\n\n"
"x.to_host() for a C-contiguous NPUArray of at most 1 MiB last used on the current\n"
"stream of its device, outside a capture, with no host-read hooks but the capture\n"
"guard's (which has nothing to do outside a capture):\n"
"a new ndarray filled after aclrtSynchronizeStream on that stream by aclrtMemcpy\n"
"(ACL_MEMCPY_DEVICE_TO_HOST); while a profile runs, recorded as the Python path's copy\n"
"(once the stream has its baseline). None when that is not the case (the caller then\n"
"takes its Python path). Raises AclError when a call fails.");

static PyObject *read_to_host(PyObject *module, PyObject *x)
{
    (void)module;
    PyObject *shape, *dtype, *buffer, *offset, *id, *stream, *device;
    Py_ssize_t size;
    if (memcpy_sync == NULL || synchronize_stream == NULL || !uncaptured_array(x)
        || (PyList_GET_SIZE(host_read_hooks) != 0
            && (PyList_GET_SIZE(host_read_hooks) != 1
                || PyList_GET_ITEM(host_read_hooks, 0) != capture_read_hook))
        || (shape = SLOT(x, a_shape)) == NULL || (dtype = SLOT(x, a_dtype)) == NULL
        || (buffer = SLOT(x, a_buffer)) == NULL || (offset = SLOT(x, a_offset)) == NULL
        || !PyTuple_CheckExact(shape) || (size = shape_size(shape)) <= 0
        || contiguous(SLOT(x, a_strides), shape) == NULL
        || (device = SLOT(buffer, b_device)) == NULL || (id = SLOT(device, device_id)) == NULL
        || (stream = current_stream(id)) == NULL
        || (SLOT(buffer, b_stream) != stream && SLOT(buffer, b_stream) != Py_None)
        || stream_capturing(stream) != 0 || (profiling() && logged_track(stream) == NULL)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *itemsize_object = PyObject_GetAttr(dtype, s_itemsize);
    Py_ssize_t itemsize = itemsize_object == NULL ? -1 : PyLong_AsSsize_t(itemsize_object);
    Py_XDECREF(itemsize_object);
    char *base = (char *)PyLong_AsVoidPtr(SLOT(buffer, b_ptr));
    Py_ssize_t first = PyLong_AsSsize_t(offset);
    if (itemsize <= 0 || base == NULL || first < 0 || size > SMALL_LIMIT / itemsize) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (activate_device(id) < 0) {
        return NULL;
    }
    /* the profiler's record of the copy, as the Python path's (none when the profile ended
     * meanwhile, on another thread) */
    PyObject *span = profiling() && logged_track(stream) != NULL
                     ? open_span(s_device_to_host, stream, NULL, 0, size * itemsize)
                     : Py_NewRef(Py_None);
    if (span == NULL) {
        return NULL;
    }
    Py_INCREF(stream); /* (numpy.empty runs Python: hold what the copy reads) */
    PyObject *host = PyObject_CallFunctionObjArgs(host_empty, shape, dtype, NULL);
    Py_buffer view;
    if (host == NULL || PyObject_GetBuffer(host, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_XDECREF(host);
        Py_DECREF(stream);
        Py_DECREF(span);
        return NULL;
    }
    size_t nbytes = (size_t)view.len;
    const char *source = base + first * itemsize;
    void *stream_address = cdata_address(SLOT(stream, stream_handle));
    int32_t status;
    int phase = 1;
    Py_BEGIN_ALLOW_THREADS
    status = ((synchronize_fn)synchronize_stream)(stream_address);
    if (status == 0) {
        phase = 2;
        status = ((memcpy_fn)memcpy_sync)(view.buf, nbytes, source, nbytes,
                                          memcpy_device_to_host);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (close_record(span, status != 0 ? -1 : 0, stream, id) < 0 && status == 0) {
        Py_DECREF(stream);
        Py_DECREF(host);
        return NULL;
    }
    Py_DECREF(stream);
    if (status != 0) {
        PyObject *raised = PyObject_CallFunction(read_status, "ii", (int)status, phase);
        Py_XDECREF(raised);
        Py_DECREF(host);
        return NULL;
    }
    taken[TAKEN_READ]++;
    return host;
}

/* ---------------------------------------------------------------------------------------
 * ReductionFunction: npuarray.sum(x, axis) / x.sum(axis) and the like */

/* The plans a ReductionFunction last used, by (dtype, shape, axis, keepdims): a match costs a
 * few pointer and int compares, the plans' dict a tuple and its hash (the dtype's is not
 * cached), about a third of the call. A plan stays valid when _statistical forgets it (it
 * holds its aclIntArray). */
#define RECENT_PLANS 4

typedef struct {
    PyObject *dtype, *shape, *axis, *keepdims, *plan; /* NULL: unused */
    PyObject *strides;   /* the result's C-order strides */
    Py_ssize_t itemsize; /* of the result's dtype */
} RecentPlan;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *name;     /* the aclnn reduction: aclnnReduceSum, aclnnAmax, ... */
    PyObject *plans;    /* _statistical's plans: {plan key: (name, params, shape, dtype)} */
    PyObject *fallback; /* the Python function (or method) */
    RecentPlan recent[RECENT_PLANS];
    int next_recent;
} ReductionFunction;

static void clear_recent(RecentPlan *r)
{
    Py_CLEAR(r->dtype);
    Py_CLEAR(r->shape);
    Py_CLEAR(r->axis);
    Py_CLEAR(r->keepdims);
    Py_CLEAR(r->plan);
    Py_CLEAR(r->strides);
}

/* Whether two axes (None, exact ints or tuples of exact ints: plain_axis) are equal. */
static int same_axis(PyObject *a, PyObject *b)
{
    if (a == b) {
        return 1;
    }
    if (PyLong_CheckExact(a) && PyLong_CheckExact(b)) {
        return PyObject_RichCompareBool(a, b, Py_EQ) == 1;
    }
    return PyTuple_CheckExact(a) && PyTuple_CheckExact(b) && same_shape(a, b);
}

/* The recent plan of (x's dtype and shape, axis, keepdims), borrowed, or NULL. */
static RecentPlan *recent_plan(ReductionFunction *f, PyObject *x, PyObject *axis,
                               PyObject *keepdims)
{
    PyObject *dtype = SLOT(x, a_dtype), *shape = SLOT(x, a_shape);
    for (int i = 0; i < RECENT_PLANS; i++) {
        RecentPlan *r = &f->recent[i];
        if (r->plan != NULL && r->dtype == dtype && r->keepdims == keepdims
            && (r->shape == shape || same_shape(r->shape, shape)) && same_axis(r->axis, axis)) {
            return r;
        }
    }
    return NULL;
}

/* Files `plan` (name, params, shape, dtype) as the recent plan of the call, with its result's
 * strides and itemsize; NULL when they cannot be made (the plan runs without them). */
static RecentPlan *remember_plan(ReductionFunction *f, PyObject *x, PyObject *axis,
                                 PyObject *keepdims, PyObject *plan)
{
    Py_ssize_t itemsize = dtype_itemsize(PyTuple_GET_ITEM(plan, 3));
    PyObject *strides = PyTuple_CheckExact(PyTuple_GET_ITEM(plan, 2))
                        ? contiguous_strides(PyTuple_GET_ITEM(plan, 2)) : NULL;
    if (strides == NULL || itemsize <= 0) {
        Py_XDECREF(strides);
        PyErr_Clear();
        return NULL;
    }
    RecentPlan *r = &f->recent[f->next_recent];
    f->next_recent = (f->next_recent + 1) % RECENT_PLANS;
    clear_recent(r);
    r->dtype = Py_NewRef(SLOT(x, a_dtype));
    r->shape = Py_NewRef(SLOT(x, a_shape));
    r->axis = Py_NewRef(axis);
    r->keepdims = Py_NewRef(keepdims);
    r->plan = Py_NewRef(plan);
    r->strides = strides;
    r->itemsize = itemsize;
    return r;
}

/* Whether `axis` is one _statistical._plan_key memoises: None, an int, a tuple of ints. */
static int plain_axis(PyObject *axis)
{
    if (axis == Py_None || PyLong_CheckExact(axis)) {
        return 1;
    }
    if (!PyTuple_CheckExact(axis)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(axis); i++) {
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(axis, i))) {
            return 0;
        }
    }
    return 1;
}

/* The call's array, axis and keepdims when it is (x[, axis], [axis=..., ][keepdims=...])
 * with an NPUArray x, a plain axis and a bool keepdims; 0 otherwise. */
static int reduction_call(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                          PyObject **axis, PyObject **keepdims)
{
    if (nargs < 1 || nargs > 2 || !uncaptured_array(args[0])) {
        return 0;
    }
    *axis = nargs == 2 ? args[1] : Py_None;
    *keepdims = Py_False;
    Py_ssize_t keywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < keywords; i++) {
        PyObject *keyword = PyTuple_GET_ITEM(kwnames, i);
        /* (a call's keywords are interned: compared by identity first) */
        if (nargs == 1 && (keyword == s_axis
                           || PyUnicode_CompareWithASCIIString(keyword, "axis") == 0)) {
            *axis = args[nargs + i];
        } else if (keyword == s_keepdims
                   || PyUnicode_CompareWithASCIIString(keyword, "keepdims") == 0) {
            *keepdims = args[nargs + i];
        } else {
            return 0;
        }
    }
    return plain_axis(*axis) && PyBool_Check(*keepdims);
}

/* The reduction through its memoised plan (reduction_result), or None when there is none
 * or its common case does not apply. */
static PyObject *planned_reduction(ReductionFunction *f, PyObject *x, PyObject *axis,
                                   PyObject *keepdims)
{
    RecentPlan *r = recent_plan(f, x, axis, keepdims);
    if (r == NULL) {
        PyObject *key = PyTuple_Pack(6, f->name, SLOT(x, a_dtype), SLOT(x, a_shape), axis,
                                     keepdims, Py_None);
        PyObject *plan = key == NULL ? NULL : PyDict_GetItemWithError(f->plans, key);
        Py_XDECREF(key);
        if (plan == NULL || !PyTuple_CheckExact(plan) || PyTuple_GET_SIZE(plan) != 4
            || (r = remember_plan(f, x, axis, keepdims, plan)) == NULL) {
            return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
        }
    }
    /* (the recent plans may change while the phases run without the GIL: hold what is used) */
    PyObject *plan = Py_NewRef(r->plan), *strides = Py_NewRef(r->strides);
    PyObject *out = reduce_into_new(x, PyTuple_GET_ITEM(plan, 0), PyTuple_GET_ITEM(plan, 1),
                                    PyTuple_GET_ITEM(plan, 2), strides, PyTuple_GET_ITEM(plan, 3),
                                    r->itemsize);
    Py_DECREF(plan);
    Py_DECREF(strides);
    return out;
}

static PyObject *reduction_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                      PyObject *kwnames)
{
    ReductionFunction *f = (ReductionFunction *)self;
    PyObject *axis, *keepdims;
    if (f->fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "npuarray's reduction was cleared (shutdown)");
        return NULL;
    }
    if (reduction_call(args, PyVectorcall_NARGS(nargsf), kwnames, &axis, &keepdims)) {
        PyObject *out = planned_reduction(f, args[0], axis, keepdims);
        if (out != Py_None) {
            return out; /* the result, or NULL with the phase's AclError */
        }
        Py_DECREF(out);
    }
    return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
}

static PyObject *reduction_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"name", "plans", "fallback", NULL};
    PyObject *name, *plans, *fallback;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UO!O:ReductionFunction", keywords, &name,
                                     &PyDict_Type, &plans, &fallback)) {
        return NULL;
    }
    ReductionFunction *f = (ReductionFunction *)type->tp_alloc(type, 0);
    if (f == NULL) {
        return NULL;
    }
    f->vectorcall = reduction_vectorcall;
    f->name = Py_NewRef(name);
    f->plans = Py_NewRef(plans);
    f->fallback = Py_NewRef(fallback);
    return (PyObject *)f;
}

static int reduction_traverse(PyObject *self, visitproc visit, void *arg)
{
    ReductionFunction *f = (ReductionFunction *)self;
    Py_VISIT(f->name);
    Py_VISIT(f->plans);
    Py_VISIT(f->fallback);
    for (int i = 0; i < RECENT_PLANS; i++) {
        Py_VISIT(f->recent[i].dtype);
        Py_VISIT(f->recent[i].shape);
        Py_VISIT(f->recent[i].axis);
        Py_VISIT(f->recent[i].keepdims);
        Py_VISIT(f->recent[i].plan);
        Py_VISIT(f->recent[i].strides);
    }
    return 0;
}

static int reduction_clear(PyObject *self)
{
    ReductionFunction *f = (ReductionFunction *)self;
    Py_CLEAR(f->name);
    Py_CLEAR(f->plans);
    Py_CLEAR(f->fallback);
    for (int i = 0; i < RECENT_PLANS; i++) {
        clear_recent(&f->recent[i]);
    }
    return 0;
}

static void reduction_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    reduction_clear(self);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *reduction_getattro(PyObject *self, PyObject *name)
{
    return forwarding_getattro(self, name, ((ReductionFunction *)self)->fallback);
}

static PyTypeObject ReductionFunctionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npuarray._core._fastpath.ReductionFunction",
    .tp_doc = PyDoc_STR(
        "ReductionFunction(name, plans, fallback)\n\n"
        "A reduction's public function or NPUArray method (npuarray.sum, x.sum, ...) for\n"
        "the aclnn reduction `name`: a call with one NPUArray, an axis (None, an int or a\n"
        "tuple of ints; positional or keyword) and keepdims (a bool) whose plan `plans`\n"
        "holds (memoised by _statistical under its plan key: the operator as it is, one\n"
        "launch) runs in C (reduction_result); every other call, and a first one, through\n"
        "`fallback`, the Python function. Binds like a method."),
    .tp_basicsize = sizeof(ReductionFunction),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR
                | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = reduction_traverse,
    .tp_clear = reduction_clear,
    .tp_vectorcall_offset = offsetof(ReductionFunction, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = method_get,
    .tp_getattro = reduction_getattro,
    .tp_new = reduction_new,
    .tp_dealloc = reduction_dealloc,
};

/* ---------------------------------------------------------------------------------------
 * MatmulFunction: npuarray.matmul(x1, x2) / x1 @ x2 */

/* aclnnMatmulGetWorkspaceSize(self, mat2, out, cubeMathType, workspaceSize, executor). */
typedef int32_t (*matmul_phase)(void *, void *, void *, int8_t, uint64_t *, void **);

/* The products a MatmulFunction last ran, by (dtype1, dtype2, shape1, shape2), with the
 * result's layout: a match costs pointer compares (and tuple compares for shapes that are
 * equal but not the same objects), not a key tuple and its hash. */
#define RECENT_PRODUCTS 4
#define MATMUL_PLANS 4

typedef struct {
    PyObject *dtype1, *dtype2, *shape1, *shape2; /* NULL: unused */
    PyObject *shape, *strides; /* the result's (C order) */
    Py_ssize_t nbytes;
} RecentProduct;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *name;         /* "aclnnMatmul" */
    PyObject *plans;        /* the products the Python function memoised: {(dtype1, dtype2,
                             * shape1, shape2): result shape}, each one aclnnMatmul of the
                             * operands as they are */
    PyObject *view_tensors; /* _ops's descriptor cache of views: {(ptr, nbytes, shape, strides,
                             * offset, dtype): aclTensor} */
    PyObject *fallback;     /* the Python function (or method) */
    int8_t cube_math_type;
    Plan entry[MATMUL_PLANS]; /* aclnnMatmul's entry points, by result dtype */
    int next_entry;
    RecentProduct recent[RECENT_PRODUCTS];
    int next_recent;
} MatmulFunction;

static void clear_product(RecentProduct *r)
{
    Py_CLEAR(r->dtype1);
    Py_CLEAR(r->dtype2);
    Py_CLEAR(r->shape1);
    Py_CLEAR(r->shape2);
    Py_CLEAR(r->shape);
    Py_CLEAR(r->strides);
}

static int same_tuple(PyObject *a, PyObject *b)
{
    return a == b || same_shape(a, b);
}

/* The recent product of x1 and x2 (borrowed), or NULL. */
static RecentProduct *recent_product(MatmulFunction *f, PyObject *x1, PyObject *x2)
{
    PyObject *dtype1 = SLOT(x1, a_dtype), *dtype2 = SLOT(x2, a_dtype);
    PyObject *shape1 = SLOT(x1, a_shape), *shape2 = SLOT(x2, a_shape);
    for (int i = 0; i < RECENT_PRODUCTS; i++) {
        RecentProduct *r = &f->recent[i];
        if (r->shape != NULL && r->dtype1 == dtype1 && r->dtype2 == dtype2
            && same_tuple(r->shape1, shape1) && same_tuple(r->shape2, shape2)) {
            return r;
        }
    }
    return NULL;
}

/* The memoised product of x1 and x2 filed as a recent one, or NULL (none, or not one the
 * pool's lock-free sizes hold: the Python function runs); NULL with an exception when a
 * lookup failed. */
static RecentProduct *planned_product(MatmulFunction *f, PyObject *x1, PyObject *x2)
{
    PyObject *dtype1 = SLOT(x1, a_dtype), *dtype2 = SLOT(x2, a_dtype);
    PyObject *key = PyTuple_Pack(4, dtype1, dtype2, SLOT(x1, a_shape), SLOT(x2, a_shape));
    PyObject *shape = key == NULL ? NULL : PyDict_GetItemWithError(f->plans, key);
    Py_XDECREF(key);
    Py_ssize_t size = shape == NULL ? -1 : shape_size(shape);
    PyObject *itemsize = size <= 0 ? NULL : PyObject_GetAttr(dtype1, s_itemsize);
    Py_ssize_t nbytes = itemsize == NULL ? -1 : size * PyLong_AsSsize_t(itemsize);
    Py_XDECREF(itemsize);
    if (nbytes <= 0 || nbytes > SMALL_LIMIT || PyErr_Occurred()) {
        return NULL;
    }
    PyObject *strides = contiguous_strides(shape);
    if (strides == NULL) {
        return NULL;
    }
    RecentProduct *r = &f->recent[f->next_recent];
    f->next_recent = (f->next_recent + 1) % RECENT_PRODUCTS;
    clear_product(r);
    r->dtype1 = Py_NewRef(dtype1);
    r->dtype2 = Py_NewRef(dtype2);
    r->shape1 = Py_NewRef(SLOT(x1, a_shape));
    r->shape2 = Py_NewRef(SLOT(x2, a_shape));
    r->shape = Py_NewRef(shape);
    r->strides = strides;
    r->nbytes = nbytes;
    return r;
}

/* aclnnMatmul's plan (entry points) for a result of `dtype`, or NULL. */
static Plan *matmul_plan(MatmulFunction *f, PyObject *dtype)
{
    Plan *plan = cached_plan(f->entry, MATMUL_PLANS, dtype, Py_None);
    if (plan != NULL) {
        return plan;
    }
    plan = &f->entry[f->next_entry];
    f->next_entry = (f->next_entry + 1) % MATMUL_PLANS;
    clear_plan(plan);
    if (fill_plan(plan, f->name, Py_None, dtype) < 0) {
        clear_plan(plan);
        return NULL;
    }
    plan->key1 = Py_NewRef(dtype);
    plan->key2 = Py_NewRef(Py_None);
    return plan;
}

/* x's aclTensor (a new reference): its own or, for a view without one (x.T, x.mT,
 * indexing), the descriptor cache's, filed on x as _ops.acl_tensor does: looked up here,
 * so that a transposed operand made for each call costs no descriptor and no Python call;
 * _ops.acl_tensor makes it on a miss. NULL for a view with a negative step (the Python path
 * copies those) or when a lookup failed. */
static PyObject *operand_tensor(MatmulFunction *f, PyObject *x)
{
    PyObject *tensor = SLOT(x, a_tensor), *buffer = SLOT(x, a_buffer);
    if (tensor != Py_None) {
        return Py_XNewRef(tensor);
    }
    if (negative_step(SLOT(x, a_strides)) || buffer == NULL) {
        return NULL;
    }
    PyObject *key = PyTuple_Pack(6, SLOT(buffer, b_ptr), SLOT(buffer, b_nbytes), SLOT(x, a_shape),
                                 SLOT(x, a_strides), SLOT(x, a_offset), SLOT(x, a_dtype));
    tensor = key == NULL ? NULL : PyDict_GetItemWithError(f->view_tensors, key);
    Py_XDECREF(key);
    if (tensor != NULL) {
        PyObject *old = SLOT(x, a_tensor);
        SLOT(x, a_tensor) = Py_NewRef(tensor);
        Py_XDECREF(old);
        return Py_NewRef(tensor);
    }
    PyObject *made = PyErr_Occurred() ? NULL : PyObject_CallOneArg(view_tensor, x);
    Py_XDECREF(made);
    return made == NULL ? NULL : Py_XNewRef(SLOT(x, a_tensor));
}

/* What one product in C reads (references held while the phases run without the GIL). */
typedef struct {
    PyObject *tensor1, *tensor2, *stream, *pool, *id;
    void *self, *mat2, *stream_address;
} ProductOperands;

/* Whether x1 @ x2 runs here: both last used on the current stream of their (one) device,
 * with aclTensors, the default pool; fills `in` (tensor1 and tensor2 are new references the
 * caller releases, also when this fails). */
static int product_operands(MatmulFunction *f, PyObject *x1, PyObject *x2, ProductOperands *in)
{
    PyObject *buffer2 = SLOT(x2, a_buffer);
    if ((in->stream = ready_stream(x1, &in->id, &in->stream_address)) == NULL || buffer2 == NULL
        || SLOT(buffer2, b_device) != SLOT(SLOT(x1, a_buffer), b_device)
        || SLOT(buffer2, b_stream) != in->stream
        || (in->pool = memo_get(&default_pools_memo, default_pools, in->id)) == NULL
        || is_true(thread_value(POOL_TLS, s_overrides, &overrides_memo))) {
        return 0;
    }
    in->tensor1 = operand_tensor(f, x1);
    in->tensor2 = in->tensor1 == NULL ? NULL : operand_tensor(f, x2);
    return in->tensor2 != NULL && (in->self = cdata_address(in->tensor1)) != NULL
           && (in->mat2 = cdata_address(in->tensor2)) != NULL;
}

/* aclnnMatmul's two phases on the operands into `out`: 0, or -1 with the exception. */
static int launch_product(MatmulFunction *f, Plan *plan, ProductOperands *in, PyObject *x1,
                          PyObject *x2, PyObject *out)
{
    void *tensor_out = cdata_address(SLOT(out, a_tensor)), *first = plan->first;
    void *second = plan->second;
    if (tensor_out == NULL) {
        PyErr_SetString(PyExc_SystemError, "an aclTensor that is not a cffi pointer");
        return -1;
    }
    PyObject *record = open_record(f->name, in->stream, x1, x2, out);
    if (record == NULL) {
        return -1;
    }
    Phases run = {0, 1, 0, NULL};
    int8_t cube = f->cube_math_type;
    Py_BEGIN_ALLOW_THREADS
    run.status = ((matmul_phase)first)(in->self, in->mat2, tensor_out, cube, &run.workspace,
                                       &run.executor);
    second_phase_if_ready(&run, second, in->stream_address);
    Py_END_ALLOW_THREADS
    return close_record(record, phases_outcome(&run, f->name, in->stream), in->stream, in->id);
}

/* x1 @ x2 in C, or None when the common case does not apply (NULL with an exception when
 * the launch failed). */
static PyObject *matmul_fast(MatmulFunction *f, PyObject *x1, PyObject *x2)
{
    if (!uncaptured_array(x1) || Py_TYPE(x2) != array_type) {
        return Py_NewRef(Py_None);
    }
    RecentProduct *r = recent_product(f, x1, x2);
    if (r == NULL) {
        r = planned_product(f, x1, x2);
    }
    Plan *plan = r == NULL ? NULL : matmul_plan(f, r->dtype1);
    ProductOperands in = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    if (plan == NULL || !product_operands(f, x1, x2, &in)) {
        Py_XDECREF(in.tensor1);
        Py_XDECREF(in.tensor2);
        PyErr_Clear();
        return Py_NewRef(Py_None);
    }
    PyObject *out = NULL;
    if (activate_device(in.id) == 0) {
        /* (a garbage collection may empty the caches meanwhile: hold what is read after) */
        Plan held_plan = *plan;
        PyObject *held[] = {Py_NewRef(in.stream), Py_NewRef(in.pool), Py_NewRef(in.id),
                            Py_NewRef(r->shape), Py_NewRef(r->strides), Py_NewRef(r->dtype1),
                            Py_NewRef(plan->name)};
        out = pooled_array(in.pool, in.stream, r->shape, r->strides, r->dtype1, r->nbytes);
        if (out != NULL && launch_product(f, &held_plan, &in, x1, x2, out) < 0) {
            Py_CLEAR(out);
        }
        for (size_t i = 0; i < sizeof held / sizeof held[0]; i++) {
            Py_DECREF(held[i]);
        }
        if (out == NULL && !PyErr_Occurred()) {
            out = Py_NewRef(Py_None); /* no cached block: the Python path allocates */
        } else if (out != NULL) {
            taken[TAKEN_MATMUL]++;
        }
    }
    Py_DECREF(in.tensor1);
    Py_DECREF(in.tensor2);
    return out;
}

static PyObject *matmul_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames)
{
    MatmulFunction *f = (MatmulFunction *)self;
    if (f->fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "npuarray's matmul was cleared (shutdown)");
        return NULL;
    }
    if (PyVectorcall_NARGS(nargsf) == 2 && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)) {
        PyObject *out = matmul_fast(f, args[0], args[1]);
        if (out != Py_None) {
            return out; /* the result, or NULL with the phase's AclError */
        }
        Py_DECREF(out);
    }
    return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
}

static PyObject *matmul_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"plans", "view_tensors", "cube_math_type", "fallback", NULL};
    PyObject *plans, *view_tensors, *fallback;
    int cube_math_type;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!iO:MatmulFunction", keywords,
                                     &PyDict_Type, &plans, &PyDict_Type, &view_tensors,
                                     &cube_math_type, &fallback)) {
        return NULL;
    }
    if (cube_math_type < INT8_MIN || cube_math_type > INT8_MAX) {
        PyErr_SetString(PyExc_ValueError, "MatmulFunction: cube_math_type is an int8_t");
        return NULL;
    }
    MatmulFunction *f = (MatmulFunction *)type->tp_alloc(type, 0);
    PyObject *name = f == NULL ? NULL : PyUnicode_InternFromString("aclnnMatmul");
    if (name == NULL) {
        Py_XDECREF(f);
        return NULL;
    }
    f->vectorcall = matmul_vectorcall;
    f->name = name;
    f->plans = Py_NewRef(plans);
    f->view_tensors = Py_NewRef(view_tensors);
    f->fallback = Py_NewRef(fallback);
    f->cube_math_type = (int8_t)cube_math_type;
    return (PyObject *)f;
}

static int matmul_traverse(PyObject *self, visitproc visit, void *arg)
{
    MatmulFunction *f = (MatmulFunction *)self;
    Py_VISIT(f->name);
    Py_VISIT(f->plans);
    Py_VISIT(f->view_tensors);
    Py_VISIT(f->fallback);
    for (int i = 0; i < MATMUL_PLANS; i++) {
        int rc = plan_traverse(&f->entry[i], visit, arg);
        if (rc != 0) {
            return rc;
        }
    }
    for (int i = 0; i < RECENT_PRODUCTS; i++) {
        RecentProduct *r = &f->recent[i];
        Py_VISIT(r->dtype1);
        Py_VISIT(r->dtype2);
        Py_VISIT(r->shape1);
        Py_VISIT(r->shape2);
        Py_VISIT(r->shape);
        Py_VISIT(r->strides);
    }
    return 0;
}

static int matmul_clear(PyObject *self)
{
    MatmulFunction *f = (MatmulFunction *)self;
    Py_CLEAR(f->name);
    Py_CLEAR(f->plans);
    Py_CLEAR(f->view_tensors);
    Py_CLEAR(f->fallback);
    for (int i = 0; i < MATMUL_PLANS; i++) {
        clear_plan(&f->entry[i]);
    }
    for (int i = 0; i < RECENT_PRODUCTS; i++) {
        clear_product(&f->recent[i]);
    }
    return 0;
}

static void matmul_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    matmul_clear(self);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *matmul_getattro(PyObject *self, PyObject *name)
{
    return forwarding_getattro(self, name, ((MatmulFunction *)self)->fallback);
}

static PyTypeObject MatmulFunctionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npuarray._core._fastpath.MatmulFunction",
    .tp_doc = PyDoc_STR(
        "MatmulFunction(plans, view_tensors, cube_math_type, fallback)\n\n"
        "npuarray.matmul or NPUArray.__matmul__: a call with two NPUArrays (positional, no\n"
        "keywords) whose product `plans` holds (memoised by the Python function: one\n"
        "aclnnMatmul with cubeMathType `cube_math_type` of the operands as they are) runs in\n"
        "C: the result from the pool's free list of the current stream, a view operand's\n"
        "aclTensor from `view_tensors` (x.T costs no descriptor), both phases without the\n"
        "GIL; every other call, and a first one, through `fallback`, the Python function.\n"
        "Binds like a method."),
    .tp_basicsize = sizeof(MatmulFunction),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR
                | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = matmul_traverse,
    .tp_clear = matmul_clear,
    .tp_vectorcall_offset = offsetof(MatmulFunction, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = method_get,
    .tp_getattro = matmul_getattro,
    .tp_new = matmul_new,
    .tp_dealloc = matmul_dealloc,
};

/* --------------------------------------------------------------------------------------- */

PyDoc_STRVAR(counts_doc,
"counts() -> dict\n\n"
"How many operations each fast path has run in C since the module was loaded, by path:\n"
"\"arrays\" (x <op> y), \"scalar\" (x <op> 2.0, 2.0 <op> x), \"in_place\" (x <op>= y,\n"
"x[...] = y), \"unary\", \"reduction\", \"empty\", \"fill\", \"read\" (small\n"
"reads to the host) and \"matmul\". For tests: an operation that fell back to Python adds nothing.");

static PyObject *counts(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *result = PyDict_New();
    for (int i = 0; result != NULL && i < TAKEN_PATHS; i++) {
        PyObject *count = PyLong_FromUnsignedLongLong(taken[i]);
        if (count == NULL || PyDict_SetItemString(result, taken_names[i], count) < 0) {
            Py_CLEAR(result);
        }
        Py_XDECREF(count);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"counts", counts, METH_NOARGS, counts_doc},
    {"read_to_host", read_to_host, METH_O, read_to_host_doc},
    {"empty_result", (PyCFunction)(void (*)(void))empty_result, METH_FASTCALL,
     empty_result_doc},
    {"reduction_result", (PyCFunction)(void (*)(void))reduction_result, METH_FASTCALL,
     reduction_result_doc},
    {"fill", (PyCFunction)(void (*)(void))fill, METH_FASTCALL, fill_doc},
    {"configure", configure, METH_O, configure_doc},
    {"finalize_in_c", finalize_in_c, METH_O, finalize_in_c_doc},
    {"launch_begin", (PyCFunction)(void (*)(void))launch_begin, METH_FASTCALL,
     launch_begin_doc},
    {"launch_end", (PyCFunction)(void (*)(void))launch_end, METH_FASTCALL, launch_end_doc},
    {"event_times", (PyCFunction)(void (*)(void))event_times, METH_FASTCALL, event_times_doc},
    {"unary_result", (PyCFunction)(void (*)(void))unary_result, METH_FASTCALL,
     unary_result_doc},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "npuarray._core._fastpath",
    .m_doc = "The host path of small operations in C (see npuarray/_core/_fastpath.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__fastpath(void)
{
    if (intern_names() < 0 || PyType_Ready(&BinaryOperatorType) < 0
        || PyType_Ready(&BufferReleaseType) < 0 || PyType_Ready(&ReductionFunctionType) < 0
        || PyType_Ready(&MatmulFunctionType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(module, "BinaryOperator", (PyObject *)&BinaryOperatorType) < 0
        || PyModule_AddObjectRef(module, "BufferRelease", (PyObject *)&BufferReleaseType) < 0
        || PyModule_AddObjectRef(module, "ReductionFunction",
                                 (PyObject *)&ReductionFunctionType) < 0
        || PyModule_AddObjectRef(module, "MatmulFunction", (PyObject *)&MatmulFunctionType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    if (add_recorder_types(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
