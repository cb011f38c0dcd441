/* _dlpack.c: DLPack capsules of NPUArrays, and the consumption of other producers' capsules.
 *
 * The structures are DLPack's (dlpack.h 1.x, the unversioned DLManagedTensor that every
 * consumer accepts) and the capsule protocol is the Python specification's
 * (https://dmlc.github.io/dlpack/latest/python_spec.html):
 *
 *   export   a "dltensor" capsule owning a DLManagedTensor whose manager_ctx holds a
 *            reference to the exporting object; the DLManagedTensor's deleter drops that
 *            reference (taking the GIL: a consumer may call it from any thread) and frees
 *            the tensor. A consumer renames the capsule "used_dltensor" and calls the
 *            deleter when done; a capsule never consumed calls it from its destructor.
 *   consume  the other side: takes a "dltensor" capsule, renames it "used_dltensor" and
 *            returns its fields with a capsule of our own that calls the producer's deleter
 *            when it is released (after the data was copied).
 *
 * The deleter and the destructor are C: a destructor written in Python cannot run while a
 * consumer's exception is set (a consumer that fails with the capsule in hand, such as
 * numpy.from_dlpack of device memory), so they save and restore any pending exception. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    int32_t device_type; /* DLDeviceType: kDLCPU 1, kDLExtDev 12 */
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code; /* DLDataTypeCode */
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL: compact C order */
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* A pending exception kept around a release (PyErr_Fetch is deprecated from 3.12). */
#if PY_VERSION_HEX >= 0x030C0000
#define SAVE_ERROR() PyObject *saved_error = PyErr_GetRaisedException()
#define RESTORE_ERROR() PyErr_SetRaisedException(saved_error)
#else
#define SAVE_ERROR()                                                                        \
    PyObject *saved_type, *saved_value, *saved_traceback;                                   \
    PyErr_Fetch(&saved_type, &saved_value, &saved_traceback)
#define RESTORE_ERROR() PyErr_Restore(saved_type, saved_value, saved_traceback)
#endif

static const char DLTENSOR[] = "dltensor", USED_DLTENSOR[] = "used_dltensor";
static const char IMPORTED[] = "npuarray._core._dlpack.imported";

/* The deleter of our exports: the owner's reference dropped (with the GIL, which the caller
 * may not hold), the tensor and its shape and strides (one allocation) freed. After the
 * interpreter has finalized the owner is gone already: only the memory is freed. */
static void release_export(DLManagedTensor *self)
{
    if (self == NULL) {
        return;
    }
    if (Py_IsInitialized()) {
        PyGILState_STATE gil = PyGILState_Ensure();
        SAVE_ERROR();
        Py_XDECREF((PyObject *)self->manager_ctx);
        RESTORE_ERROR();
        PyGILState_Release(gil);
    }
    free(self);
}

/* A "dltensor" capsule's destructor: the deleter runs unless a consumer took the tensor
 * (renamed "used_dltensor"), keeping any exception being raised. */
static void destroy_capsule(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, USED_DLTENSOR)) {
        return;
    }
    SAVE_ERROR();
    DLManagedTensor *managed = PyCapsule_GetPointer(capsule, DLTENSOR);
    if (managed == NULL) {
        PyErr_WriteUnraisable(capsule);
    } else if (managed->deleter != NULL) {
        managed->deleter(managed);
    }
    RESTORE_ERROR();
}

static int int64_items(PyObject *tuple, Py_ssize_t ndim, int64_t *out, const char *what)
{
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != ndim) {
        PyErr_Format(PyExc_TypeError, "export: %s must be a tuple of %zd ints", what, ndim);
        return -1;
    }
    for (Py_ssize_t i = 0; i < ndim; i++) {
        out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
        if (out[i] == -1 && PyErr_Occurred()) {
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(export_doc,
"export(owner, data, device, shape, strides, dtype) -> capsule\n\n"
"A \"dltensor\" capsule (DLPack's unversioned DLManagedTensor) of the memory at the\n"
"address `data` (int) on `device` ((DLDeviceType, id)), of `shape` and `strides`\n"
"(tuples of ints, strides in elements) and `dtype` ((DLDataTypeCode, bits)), one\n"
"lane, byte_offset 0. It holds a reference to `owner` until the consumer calls the\n"
"tensor's deleter, or until the capsule is destroyed unconsumed.");

static PyObject *export(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *owner, *shape, *strides;
    unsigned long long data;
    int device_type, device_id, code, bits;
    if (!PyArg_ParseTuple(args, "OK(ii)O!O!(ii):export", &owner, &data, &device_type,
                          &device_id, &PyTuple_Type, &shape, &PyTuple_Type, &strides,
                          &code, &bits)) {
        return NULL;
    }
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    if (code < 0 || code > 255 || bits <= 0 || bits > 255 || ndim > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "export: dtype (code, bits) out of range");
        return NULL;
    }
    DLManagedTensor *managed = malloc(sizeof *managed + 2 * (size_t)ndim * sizeof(int64_t));
    if (managed == NULL) {
        return PyErr_NoMemory();
    }
    int64_t *dims = (int64_t *)(managed + 1);
    if (int64_items(shape, ndim, dims, "shape") < 0
        || int64_items(strides, ndim, dims + ndim, "strides") < 0) {
        free(managed);
        return NULL;
    }
    managed->dl_tensor = (DLTensor){
        .data = (void *)(uintptr_t)data,
        .device = {device_type, device_id},
        .ndim = (int32_t)ndim,
        .dtype = {(uint8_t)code, (uint8_t)bits, 1},
        .shape = ndim ? dims : NULL,
        .strides = ndim ? dims + ndim : NULL,
        .byte_offset = 0};
    managed->manager_ctx = Py_NewRef(owner);
    managed->deleter = release_export;
    PyObject *capsule = PyCapsule_New(managed, DLTENSOR, destroy_capsule);
    if (capsule == NULL) {
        release_export(managed);
    }
    return capsule;
}

/* The destructor of the capsule consume() returns: the producer's deleter. */
static void release_import(PyObject *capsule)
{
    SAVE_ERROR();
    DLManagedTensor *managed = PyCapsule_GetPointer(capsule, IMPORTED);
    if (managed == NULL) {
        PyErr_WriteUnraisable(capsule);
    } else if (managed->deleter != NULL) {
        managed->deleter(managed);
    }
    RESTORE_ERROR();
}

static PyObject *int64_tuple(const int64_t *values, int32_t n)
{
    PyObject *tuple = PyTuple_New(n);
    for (int32_t i = 0; tuple != NULL && i < n; i++) {
        PyObject *item = PyLong_FromLongLong(values[i]);
        if (item == NULL) {
            Py_CLEAR(tuple);
        } else {
            PyTuple_SET_ITEM(tuple, i, item);
        }
    }
    return tuple;
}

PyDoc_STRVAR(consume_doc,
"consume(capsule) -> (release, data, device, shape, strides, dtype)\n\n"
"Takes a producer's \"dltensor\" capsule (renamed \"used_dltensor\": it is ours now):\n"
"`data` the address of the first element (data + byte_offset), `device`\n"
"(DLDeviceType, id), `shape` and `strides` (tuples of ints in elements; strides None\n"
"for compact C order), `dtype` (DLDataTypeCode, bits, lanes). `release` calls the\n"
"producer's deleter when it is released: keep it until the data has been copied.\n"
"ValueError for a capsule already consumed or not a DLPack one.");

static PyObject *consume(PyObject *module, PyObject *capsule)
{
    (void)module;
    if (!PyCapsule_IsValid(capsule, DLTENSOR)) {
        PyErr_SetString(PyExc_ValueError, PyCapsule_IsValid(capsule, USED_DLTENSOR)
                                              ? "the DLPack capsule was already consumed"
                                              : "not a \"dltensor\" DLPack capsule");
        return NULL;
    }
    DLManagedTensor *managed = PyCapsule_GetPointer(capsule, DLTENSOR);
    if (managed == NULL || PyCapsule_SetName(capsule, USED_DLTENSOR) < 0) {
        return NULL;
    }
    PyObject *release = PyCapsule_New(managed, IMPORTED, release_import);
    if (release == NULL) {
        PyCapsule_SetName(capsule, DLTENSOR); /* not taken: its destructor still deletes */
        return NULL;
    }
    DLTensor *t = &managed->dl_tensor;
    PyObject *shape = int64_tuple(t->shape, t->ndim);
    PyObject *strides = t->strides == NULL ? Py_NewRef(Py_None) : int64_tuple(t->strides, t->ndim);
    PyObject *result = NULL;
    if (shape != NULL && strides != NULL) {
        result = Py_BuildValue("(OK(ii)OO(iii))", release,
                               (unsigned long long)((uintptr_t)t->data + t->byte_offset),
                               (int)t->device.device_type, (int)t->device.device_id, shape,
                               strides, (int)t->dtype.code, (int)t->dtype.bits,
                               (int)t->dtype.lanes);
    }
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_DECREF(release);
    return result;
}

static PyMethodDef methods[] = {
    {"export", export, METH_VARARGS, export_doc},
    {"consume", consume, METH_O, consume_doc},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "npuarray._core._dlpack",
    .m_doc = "DLPack capsules of NPUArrays and the consumption of others' (see "
             "npuarray/_core/_dlpack.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__dlpack(void)
{
    return PyModule_Create(&module_def);
}
