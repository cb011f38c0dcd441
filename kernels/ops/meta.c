/* The aclnn meta API: aclTensor, aclScalar, arrays and lists (CANN's aclnn/acl_meta.h, reference
 * §6). Objects carry a magic number so a NULL or foreign pointer gives an error, not a crash. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ops_internal.h"

#define TENSOR_MAGIC 0x54656e73u
#define SCALAR_MAGIC 0x5363616cu
#define INTARRAY_MAGIC 0x496e7441u
#define FLOATARRAY_MAGIC 0x466c7441u
#define BOOLARRAY_MAGIC 0x426f6f41u
#define TENSORLIST_MAGIC 0x546c7374u
#define SCALARLIST_MAGIC 0x536c7374u
#define DEAD_MAGIC 0xdeadu
#define RELEASED_MAGIC 0x52656c73u /* the user destroyed it; an executor still holds it */

bool npusim_is_tensor(const aclTensor *t) { return t && t->magic == TENSOR_MAGIC; }

int64_t npusim_numel(const aclTensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= t->shape[i];
    return n;
}

/* ---------------------------------------------------------------------------------------------
 * aclTensor */

static int check_dims(const char *api, const char *what, const int64_t *dims, uint64_t n)
{
    if (n > NPUSIM_MAX_DIMS)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: %s has %llu dimensions, at most %d are supported",
                            api, what, (unsigned long long)n, NPUSIM_MAX_DIMS);
    if (n > 0 && !dims) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL with %llu dimensions",
                                            api, what, (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++)
        if (dims[i] < 0)
            return npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: %s[%llu] = %lld is negative", api, what,
                                (unsigned long long)i, (long long)dims[i]);
    return 0;
}

/* Index one past the last element the view reaches, in elements from the storage start, in
 * *end (0 for an empty view); false when it, the view's element count, or either in bytes (isz
 * per element) does not fit in 64 bits. */
static bool view_extent(const aclTensor *t, int64_t isz, int64_t *end)
{
    int64_t e = t->offset + 1, numel = 1, step, bytes;
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] == 0) { *end = 0; return true; }
        if (__builtin_mul_overflow(t->shape[i] - 1, t->strides[i], &step) ||
            __builtin_add_overflow(e, step, &e) ||
            __builtin_mul_overflow(numel, t->shape[i], &numel))
            return false;
    }
    *end = e;
    return !__builtin_mul_overflow(e, isz, &bytes) && !__builtin_mul_overflow(numel, isz, &bytes);
}

/* The number of elements of the storage in *n; false when it, or its size in bytes, does not
 * fit in 64 bits. */
static bool storage_elements(const aclTensor *t, int64_t isz, int64_t *n)
{
    int64_t count = 1, bytes;
    for (int i = 0; i < t->storage_ndim; i++)
        if (__builtin_mul_overflow(count, t->storage_shape[i], &count)) return false;
    *n = count;
    return !__builtin_mul_overflow(count, isz, &bytes);
}

static int fill_tensor(const char *api, aclTensor *t, const int64_t *viewDims, uint64_t viewDimsNum,
                       aclDataType dataType, const int64_t *stride, int64_t offset, aclFormat format,
                       const int64_t *storageDims, uint64_t storageDimsNum, void *data)
{
    int rc;
    if ((rc = check_dims(api, "viewDims", viewDims, viewDimsNum))) return rc;
    if ((rc = check_dims(api, "storageDims", storageDims, storageDimsNum))) return rc;
    if (viewDimsNum > 0 && !stride) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%s: stride is NULL", api);
    if ((rc = check_dims(api, "stride", stride, viewDimsNum))) return rc;
    if (offset < 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: offset %lld is negative", api, (long long)offset);
    if (npusim_dtype_size(dataType) == 0)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: dataType %d (%s) is not supported", api,
                            (int)dataType, npusim_dtype_name(dataType));
    t->magic = TENSOR_MAGIC;
    t->dtype = dataType;
    t->format = format;
    t->ndim = (int)viewDimsNum;
    t->offset = offset;
    t->storage_ndim = (int)storageDimsNum;
    t->data = data;
    for (int i = 0; i < t->ndim; i++) {
        t->shape[i] = viewDims[i];
        t->strides[i] = stride[i];
    }
    for (int i = 0; i < t->storage_ndim; i++) t->storage_shape[i] = storageDims[i];
    int64_t storage, extent, isz = (int64_t)npusim_dtype_size(dataType);
    /* Sizes that wrap past 2^64 bytes would pass every later check and crash a kernel. */
    if (!storage_elements(t, isz, &storage) || !view_extent(t, isz, &extent))
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "%s: the tensor is too large: its size in bytes does not fit in 64 bits",
                            api);
    if (extent > storage)
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "%s: the view (offset %lld, reaching element %lld) does not fit in its storage "
                            "of %lld elements", api, (long long)offset, (long long)extent - 1, (long long)storage);
    return 0;
}

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData)
{
    aclTensor *t = calloc(1, sizeof *t);
    if (!t) {
        npusim_error(ACLNN_ERR_INNER, "aclCreateTensor: out of host memory");
        return NULL;
    }
    if (fill_tensor("aclCreateTensor", t, viewDims, viewDimsNum, dataType, stride, offset, format,
                    storageDims, storageDimsNum, tensorData)) {
        free(t);
        return NULL;
    }
    atomic_init(&t->refs, 1);
    return t;
}

aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum,
                          aclDataType dataType, const int64_t *stride, int64_t offset, aclFormat format,
                          const int64_t *storageDims, uint64_t storageDimsNum, void *tensorDataAddr)
{
    if (!npusim_is_tensor(tensor))
        return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclInitTensor: tensor is NULL or not an aclTensor");
    aclTensor fresh;
    memset(&fresh, 0, sizeof fresh);
    int rc = fill_tensor("aclInitTensor", &fresh, viewDims, viewDimsNum, dataType, stride, offset, format,
                         storageDims, storageDimsNum, tensorDataAddr);
    if (rc) return rc;
    int refs = atomic_load(&tensor->refs);
    *tensor = fresh;
    atomic_init(&tensor->refs, refs);
    return ACLNN_SUCCESS;
}

/* Freed tensors wait in a FIFO before their memory goes back to malloc, so that a handle
 * destroyed again (or used) shortly after it died still finds a dead magic number instead of
 * freed memory, or another tensor's. */
#define TENSOR_QUARANTINE 256
static pthread_mutex_t quarantine_lock = PTHREAD_MUTEX_INITIALIZER;
static aclTensor *quarantine[TENSOR_QUARANTINE];
static size_t quarantine_next;

static void free_later(aclTensor *t)
{
    pthread_mutex_lock(&quarantine_lock);
    aclTensor *oldest = quarantine[quarantine_next];
    quarantine[quarantine_next] = t;
    quarantine_next = (quarantine_next + 1) % TENSOR_QUARANTINE;
    pthread_mutex_unlock(&quarantine_lock);
    free(oldest);
}

static void tensor_unref(aclTensor *t)
{
    if (atomic_fetch_sub(&t->refs, 1) == 1) {
        t->magic = DEAD_MAGIC;
        free_later(t);
    }
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    if (!tensor) return ACLNN_SUCCESS; /* CANN accepts NULL here */
    /* The user's reference is released once: a second destroy would drop an executor's. */
    uint32_t live = TENSOR_MAGIC;
    if (!__atomic_compare_exchange_n(&((aclTensor *)tensor)->magic, &live, RELEASED_MAGIC, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return npusim_error(ACLNN_ERR_PARAM_INVALID,
                            "aclDestroyTensor: %p is not a live aclTensor (%s)", (const void *)tensor,
                            live == RELEASED_MAGIC || live == DEAD_MAGIC ? "already destroyed"
                                                                         : "never created");
    tensor_unref((aclTensor *)tensor);
    return ACLNN_SUCCESS;
}

void npusim_tensor_retain(aclTensor *t) { atomic_fetch_add(&t->refs, 1); }
void npusim_tensor_release(aclTensor *t) { tensor_unref(t); }

static int check_get(const char *api, const aclTensor *t, const void *out)
{
    if (!t || !out) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api, t ? "output" : "tensor");
    if (!npusim_is_tensor(t)) return npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: not a live aclTensor", api);
    return 0;
}

/* The caller frees *out with free(). */
static int copy_dims(const char *api, const int64_t *src, int n, int64_t **out, uint64_t *num)
{
    int64_t *dims = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (!dims) return npusim_error(ACLNN_ERR_INNER, "%s: out of host memory", api);
    memcpy(dims, src, sizeof(int64_t) * (size_t)n);
    *out = dims;
    *num = (uint64_t)n;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum)
{
    int rc = check_get("aclGetViewShape", tensor, viewDims);
    if (rc || (rc = check_get("aclGetViewShape", tensor, viewDimsNum))) return rc;
    return copy_dims("aclGetViewShape", tensor->shape, tensor->ndim, viewDims, viewDimsNum);
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum)
{
    int rc = check_get("aclGetStorageShape", tensor, storageDims);
    if (rc || (rc = check_get("aclGetStorageShape", tensor, storageDimsNum))) return rc;
    return copy_dims("aclGetStorageShape", tensor->storage_shape, tensor->storage_ndim, storageDims,
                     storageDimsNum);
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum)
{
    int rc = check_get("aclGetViewStrides", tensor, stridesValue);
    if (rc || (rc = check_get("aclGetViewStrides", tensor, stridesNum))) return rc;
    return copy_dims("aclGetViewStrides", tensor->strides, tensor->ndim, stridesValue, stridesNum);
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset)
{
    int rc = check_get("aclGetViewOffset", tensor, offset);
    if (rc) return rc;
    *offset = tensor->offset;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format)
{
    int rc = check_get("aclGetFormat", tensor, format);
    if (rc) return rc;
    *format = tensor->format;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType)
{
    int rc = check_get("aclGetDataType", tensor, dataType);
    if (rc) return rc;
    *dataType = tensor->dtype;
    return ACLNN_SUCCESS;
}

aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr)
{
    if (!tensor) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclSetRawTensorAddr: tensor is NULL");
    if (!npusim_is_tensor(tensor))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclSetRawTensorAddr: not a live aclTensor");
    tensor->data = addr;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr)
{
    int rc = check_get("aclGetRawTensorAddr", tensor, addr);
    if (rc) return rc;
    *addr = tensor->data;
    return ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * aclScalar */

aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    if (!value) {
        npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclCreateScalar: value is NULL");
        return NULL;
    }
    size_t size = npusim_dtype_size(dataType);
    if (size == 0) {
        npusim_error(ACLNN_ERR_PARAM_INVALID, "aclCreateScalar: dataType %d (%s) is not supported",
                     (int)dataType, npusim_dtype_name(dataType));
        return NULL;
    }
    aclScalar *s = calloc(1, sizeof *s);
    if (!s) {
        npusim_error(ACLNN_ERR_INNER, "aclCreateScalar: out of host memory");
        return NULL;
    }
    s->magic = SCALAR_MAGIC;
    s->dtype = dataType;
    memcpy(s->bytes, value, size);
    return s;
}

bool npusim_is_scalar(const aclScalar *s) { return s && s->magic == SCALAR_MAGIC; }

aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
    if (!scalar) return ACLNN_SUCCESS;
    if (!npusim_is_scalar(scalar))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclDestroyScalar: not a live aclScalar");
    ((aclScalar *)scalar)->magic = DEAD_MAGIC;
    free((void *)scalar);
    return ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Arrays */

#define DEFINE_ARRAY_COPY(api, T, V, MAGIC)                                                \
    T *array = calloc(1, sizeof *array);                                                   \
    if (!array) {                                                                          \
        npusim_error(ACLNN_ERR_INNER, "%s: out of host memory", api);                      \
        return NULL;                                                                       \
    }                                                                                      \
    if (size > 0 && !value) {                                                              \
        free(array);                                                                       \
        npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%s: value is NULL with size %llu", api,     \
                     (unsigned long long)size);                                            \
        return NULL;                                                                       \
    }                                                                                      \
    array->values = malloc(sizeof(V) * (size_t)(size ? size : 1));                         \
    if (!array->values) {                                                                  \
        free(array);                                                                       \
        npusim_error(ACLNN_ERR_INNER, "%s: out of host memory", api);                      \
        return NULL;                                                                       \
    }                                                                                      \
    if (size) memcpy(array->values, value, sizeof(V) * (size_t)size);                      \
    array->size = size;                                                                    \
    array->magic = MAGIC;                                                                  \
    return array;

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    DEFINE_ARRAY_COPY("aclCreateIntArray", aclIntArray, int64_t, INTARRAY_MAGIC)
}

aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size)
{
    DEFINE_ARRAY_COPY("aclCreateFloatArray", aclFloatArray, float, FLOATARRAY_MAGIC)
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size)
{
    DEFINE_ARRAY_COPY("aclCreateBoolArray", aclBoolArray, bool, BOOLARRAY_MAGIC)
}

#define DESTROY_ARRAY(api, T, array, MAGIC)                                                \
    if (!array) return ACLNN_SUCCESS;                                                      \
    if (array->magic != MAGIC) return npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: not a live array", api); \
    ((T *)array)->magic = DEAD_MAGIC;                                                      \
    free(array->values);                                                                   \
    free((void *)array);                                                                   \
    return ACLNN_SUCCESS;

aclnnStatus aclDestroyIntArray(const aclIntArray *array) { DESTROY_ARRAY("aclDestroyIntArray", aclIntArray, array, INTARRAY_MAGIC) }
aclnnStatus aclDestroyFloatArray(const aclFloatArray *array) { DESTROY_ARRAY("aclDestroyFloatArray", aclFloatArray, array, FLOATARRAY_MAGIC) }
aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) { DESTROY_ARRAY("aclDestroyBoolArray", aclBoolArray, array, BOOLARRAY_MAGIC) }

#define GET_SIZE(api, array, MAGIC)                                                        \
    if (!array || !size) return npusim_error(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api, array ? "size" : "array"); \
    if (array->magic != MAGIC) return npusim_error(ACLNN_ERR_PARAM_INVALID, "%s: not a live object", api); \
    *size = array->size;                                                                   \
    return ACLNN_SUCCESS;

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) { GET_SIZE("aclGetIntArraySize", array, INTARRAY_MAGIC) }
aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size) { GET_SIZE("aclGetFloatArraySize", array, FLOATARRAY_MAGIC) }
aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size) { GET_SIZE("aclGetBoolArraySize", array, BOOLARRAY_MAGIC) }
aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size) { GET_SIZE("aclGetTensorListSize", tensorList, TENSORLIST_MAGIC) }
aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size) { GET_SIZE("aclGetScalarListSize", scalarList, SCALARLIST_MAGIC) }

bool npusim_is_int_array(const aclIntArray *a) { return a && a->magic == INTARRAY_MAGIC; }
bool npusim_is_tensor_list(const aclTensorList *l) { return l && l->magic == TENSORLIST_MAGIC; }

/* ---------------------------------------------------------------------------------------------
 * Lists: they own their elements (destroying the list destroys them). NULL elements are kept
 * (aclnnIndex uses them for dimensions that are not indexed). */

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    if (size > 0 && !value) {
        npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclCreateTensorList: value is NULL with size %llu",
                     (unsigned long long)size);
        return NULL;
    }
    for (uint64_t i = 0; i < size; i++)
        if (value[i] && !npusim_is_tensor(value[i])) {
            npusim_error(ACLNN_ERR_PARAM_INVALID, "aclCreateTensorList: value[%llu] is not a live aclTensor",
                         (unsigned long long)i);
            return NULL;
        }
    aclTensorList *list = calloc(1, sizeof *list);
    aclTensor **tensors = malloc(sizeof(aclTensor *) * (size_t)(size ? size : 1));
    if (!list || !tensors) {
        free(list);
        free(tensors);
        npusim_error(ACLNN_ERR_INNER, "aclCreateTensorList: out of host memory");
        return NULL;
    }
    for (uint64_t i = 0; i < size; i++) tensors[i] = (aclTensor *)value[i];
    list->magic = TENSORLIST_MAGIC;
    list->size = size;
    list->tensors = tensors;
    return list;
}

aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    if (!array) return ACLNN_SUCCESS;
    if (!npusim_is_tensor_list(array))
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclDestroyTensorList: not a live aclTensorList");
    for (uint64_t i = 0; i < array->size; i++)
        if (npusim_is_tensor(array->tensors[i])) tensor_unref(array->tensors[i]);
    ((aclTensorList *)array)->magic = DEAD_MAGIC;
    free(array->tensors);
    free((void *)array);
    return ACLNN_SUCCESS;
}

aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size)
{
    if (size > 0 && !value) {
        npusim_error(ACLNN_ERR_PARAM_NULLPTR, "aclCreateScalarList: value is NULL with size %llu",
                     (unsigned long long)size);
        return NULL;
    }
    for (uint64_t i = 0; i < size; i++)
        if (!npusim_is_scalar(value[i])) {
            npusim_error(ACLNN_ERR_PARAM_INVALID, "aclCreateScalarList: value[%llu] is not a live aclScalar",
                         (unsigned long long)i);
            return NULL;
        }
    aclScalarList *list = calloc(1, sizeof *list);
    aclScalar **scalars = malloc(sizeof(aclScalar *) * (size_t)(size ? size : 1));
    if (!list || !scalars) {
        free(list);
        free(scalars);
        npusim_error(ACLNN_ERR_INNER, "aclCreateScalarList: out of host memory");
        return NULL;
    }
    for (uint64_t i = 0; i < size; i++) scalars[i] = (aclScalar *)value[i];
    list->magic = SCALARLIST_MAGIC;
    list->size = size;
    list->scalars = scalars;
    return list;
}

aclnnStatus aclDestroyScalarList(const aclScalarList *array)
{
    if (!array) return ACLNN_SUCCESS;
    if (array->magic != SCALARLIST_MAGIC)
        return npusim_error(ACLNN_ERR_PARAM_INVALID, "aclDestroyScalarList: not a live aclScalarList");
    for (uint64_t i = 0; i < array->size; i++) aclDestroyScalar(array->scalars[i]);
    ((aclScalarList *)array)->magic = DEAD_MAGIC;
    free(array->scalars);
    free((void *)array);
    return ACLNN_SUCCESS;
}
