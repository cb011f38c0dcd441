/* Private to kernels/ops: the aclnn object layouts, dtype conversion, the executor life cycle
 * and the element-wise engine shared by every operator. */
#ifndef NPUSIM_OPS_INTERNAL_H
#define NPUSIM_OPS_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"
#include "npusim.h"

#define NPUSIM_MAX_DIMS 8
/* Tensors one executor can hold: Index/IndexPutImpl take self, up to 8 index tensors and one more. */
#define NPUSIM_MAX_OPERANDS 12

/* ---------------------------------------------------------------------------------------------
 * Meta objects */

struct aclTensor {
    uint32_t magic;
    atomic_int refs;          /* the user's reference plus executors that update its shape */
    aclDataType dtype;
    aclFormat format;
    int ndim;
    int64_t shape[NPUSIM_MAX_DIMS];
    int64_t strides[NPUSIM_MAX_DIMS]; /* elements */
    int64_t offset;                   /* elements from `data` to the view's first element */
    int storage_ndim;
    int64_t storage_shape[NPUSIM_MAX_DIMS];
    void *data;                       /* device address of the storage start */
};

/* A scalar's value, converted once to every computation kind it may be used in. */
typedef union {
    bool b;
    int64_t i;
    uint64_t u;
    float f;
    double d;
    double c[2];
} npusim_value;

struct aclScalar {
    uint32_t magic;
    aclDataType dtype;
    unsigned char bytes[16]; /* the value as given, in its dtype */
};

struct aclIntArray { uint32_t magic; uint64_t size; int64_t *values; };
struct aclFloatArray { uint32_t magic; uint64_t size; float *values; };
struct aclBoolArray { uint32_t magic; uint64_t size; bool *values; };
struct aclTensorList { uint32_t magic; uint64_t size; aclTensor **tensors; };
struct aclScalarList { uint32_t magic; uint64_t size; aclScalar **scalars; };

bool npusim_is_tensor(const aclTensor *t);
bool npusim_is_scalar(const aclScalar *s);
bool npusim_is_int_array(const aclIntArray *a);
bool npusim_is_tensor_list(const aclTensorList *l);
/* Executors that write a user tensor's shape keep it alive with these. */
void npusim_tensor_retain(aclTensor *t);
void npusim_tensor_release(aclTensor *t);
int64_t npusim_numel(const aclTensor *t);

/* ---------------------------------------------------------------------------------------------
 * Data types */

/* What values are computed in: every dtype is loaded into one of these and stored back. */
typedef enum {
    KIND_BOOL, /* uint8 0/1 */
    KIND_I64,
    KIND_U64,
    KIND_F32,
    KIND_F64,
    KIND_C128, /* double[2] */
    KIND_I32,  /* int32 computed natively (wrapping like int64 then truncated would) */
    KIND_COUNT
} npusim_kind;

size_t npusim_dtype_size(aclDataType dt);     /* 0: not supported by npusim's operators */
const char *npusim_dtype_name(aclDataType dt);
bool npusim_is_float(aclDataType dt);          /* float16, bfloat16, float, double */
bool npusim_is_complex(aclDataType dt);
bool npusim_is_integral(aclDataType dt);       /* signed and unsigned integers, not bool */
size_t npusim_kind_size(npusim_kind k);
aclDataType npusim_kind_dtype(npusim_kind k);  /* the dtype stored exactly like the kind */
/* The kind a dtype is computed in: float16/bfloat16/float -> F32, int32 -> I32, other integers
 * -> I64 (uint64 -> U64). */
npusim_kind npusim_kind_of(aclDataType dt);
/* Promotion of two tensor dtypes (torch / array API rules); ACL_DT_UNDEFINED if there is none. */
aclDataType npusim_promote(aclDataType a, aclDataType b);
/* Promotion of a tensor dtype with a scalar dtype: the tensor wins unless the scalar is of a
 * higher category (bool < integer < floating < complex), as in torch. */
aclDataType npusim_promote_scalar(aclDataType tensor, aclDataType scalar);

/* Strided conversion of n elements between a dtype and a kind (contiguous kind buffer). */
void npusim_load(npusim_kind k, void *dst, const char *src, int64_t stride_bytes, aclDataType dt, size_t n);
void npusim_store(npusim_kind k, const void *src, char *dst, int64_t stride_bytes, aclDataType dt, size_t n);
/* A scalar's value in kind k. */
void npusim_scalar_value(const aclScalar *s, npusim_kind k, void *out);
double npusim_scalar_double(const aclScalar *s);

uint16_t npusim_f16_from_double(double d);
uint16_t npusim_f16_from_float(float f);
uint16_t npusim_bf16_from_double(double d);
float npusim_f16_to_float(uint16_t h);
float npusim_bf16_to_float(uint16_t h);

/* float -> bfloat16 directly on the bits, to nearest even, NaN as ml_dtypes makes it (the sign
 * and the quiet NaN 0x7fc0); inline so that loops over it vectorise. */
static inline uint16_t npusim_bf16_from_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)(((u >> 16) & 0x8000u) | 0x7fc0u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* ---------------------------------------------------------------------------------------------
 * Executors */

struct aclOpExecutor;
typedef struct aclOpExecutor npusim_exec;

/* A tensor as a kernel sees it at run time. */
typedef struct {
    aclDataType dtype;
    int ndim;
    int64_t shape[NPUSIM_MAX_DIMS];
    int64_t strides[NPUSIM_MAX_DIMS]; /* elements */
    char *base;                       /* address of the view's first element */
} npusim_view;

/* The kernel of one operator: views[i] is the executor's tensor i at the launch's addresses. */
typedef int (*npusim_kernel_fn)(const npusim_exec *ex, npusim_view *views);

typedef struct {
    const char *name; /* "aclnnAdd" */
    npusim_kernel_fn run;
    npusim_task_ops single_use;
    npusim_task_ops repeatable;
} npusim_opdef;

/* Task callbacks of executors: the payload is the executor (single use) or one launch of it. */
int npusim_exec_run_single(void *payload);
void npusim_exec_release_single(void *payload);
int npusim_exec_run_repeat(void *payload);
void npusim_exec_release_repeat(void *payload);

#define NPUSIM_OPDEF(opname, fn)                                                              \
    { opname, fn, { opname, npusim_exec_run_single, npusim_exec_release_single },             \
      { opname, npusim_exec_run_repeat, npusim_exec_release_repeat } }

/* Parameters of the element-wise engine (see npusim_ew_*). */
typedef struct npusim_ew_op npusim_ew_op;

struct aclOpExecutor {
    uint64_t magic;
    const npusim_opdef *def;
    atomic_int refs;         /* user (repeatable only) + launches not yet released */
    bool repeatable;
    int n_inputs;            /* tensors [0, n_inputs) are inputs, the rest outputs */
    int n_tensors;
    bool present[NPUSIM_MAX_OPERANDS]; /* false: optional tensor passed as NULL */
    aclTensor *shape_out;    /* user tensor whose view shape the kernel sets (MaskedSelect) */
    aclTensor *shape_out2;   /* a second one (Unique2's countsOut) */
    /* Operator parameters (each operator file says which it uses). */
    const npusim_ew_op *ew;  /* element-wise operators: the operation */
    npusim_kind kind;        /* computation kind */
    npusim_value scalars[3]; /* scalar operands (0, 1) and alpha (2), in `kind`; arange: start, step */
    int ew_src[4];           /* element-wise input i: tensor index if >= 0, else scalar -1 - v */
    int64_t dims[NPUSIM_MAX_DIMS]; /* reduced / flipped dims; matmul and masked select: shapes */
    int n_dims;
    bool flag;               /* keepdim (ArgMax/ArgMin) / accumulate (IndexPutImpl) */
    int64_t dim;             /* ArgMax/ArgMin/IndexSelect dim; Index: position of the index dims;
                              * Arange: length */
    int mode;                /* reduction kind; Index: rank of the broadcast index shape */
    aclTensor t[NPUSIM_MAX_OPERANDS]; /* snapshots of the tensors at the first phase */
};

/* A new executor holding snapshots of the tensors (inputs first; NULL entries allowed for
 * optional inputs), or NULL with the error set. The caller has validated them. */
npusim_exec *npusim_exec_create(const npusim_opdef *def, const aclTensor *const *inputs, int n_inputs,
                                const aclTensor *const *outputs, int n_outputs);
/* Finishes the first phase: registers ex and hands it out. */
aclnnStatus npusim_exec_finish(npusim_exec *ex, uint64_t *workspaceSize, aclOpExecutor **executor);
/* The live executor behind a handle npusim_exec_finish handed out (NULL when not live): for a
 * first phase finishing its description after npusim_exec_finish. */
npusim_exec *npusim_exec_of(aclOpExecutor *handle);
/* The second phase shared by every operator: validates, checks device ranges, enqueues. */
aclnnStatus npusim_exec_launch(const char *opname, void *workspace, uint64_t workspaceSize,
                               aclOpExecutor *executor, aclrtStream stream);

/* Helpers for first-phase checks; each returns 0 or the error code with the message set. */
int npusim_check_tensor(const char *op, const char *arg, const aclTensor *t);
/* Reduction dims (NULL or empty: all; negative: from the end; 0-d accepts 0 / -1) into out,
 * sorted as given; ACLNN_ERR_PARAM_INVALID for repeats, out-of-range or too many (reduce.c). */
int npusim_normalise_dims(const char *name, const aclIntArray *dims, int ndim, int64_t *out, int *n_out);
/* One dim of a tensor `arg` of rank ndim (negative: from the end; 0-d accepts 0 / -1) into out;
 * ACLNN_ERR_PARAM_INVALID when out of range. */
int npusim_normalise_dim(const char *op, const char *arg, int64_t dim, int ndim, int64_t *out);
int npusim_check_scalar(const char *op, const char *arg, const aclScalar *s);
int npusim_check_out_ptrs(const char *op, uint64_t *workspaceSize, aclOpExecutor **executor);
/* out's shape must equal the broadcast of the given shapes (0-d tensors / scalars: ndim 0). */
int npusim_broadcast_shape(const char *op, const aclTensor *const *ts, int n, int *ndim, int64_t *shape);
int npusim_check_shape_equal(const char *op, const char *arg, const aclTensor *t, int ndim,
                             const int64_t *shape);

/* ---------------------------------------------------------------------------------------------
 * Element-wise engine */

/* A kernel over contiguous buffers in the op's kind: out[i] = f(in0[i], in1[i], ...). */
typedef void (*npusim_ew_fn)(void *out, const void *const *in, size_t n, const npusim_exec *ex);

struct npusim_ew_op {
    const char *name;
    int n_inputs;
    unsigned bool_inputs;            /* bit i: input i is loaded as KIND_BOOL (where's condition) */
    bool bool_out;                   /* result kind is KIND_BOOL (comparisons, logical ops) */
    bool real_out;                   /* complex input gives a real F64 result (abs) */
    npusim_ew_fn fn[KIND_COUNT];     /* NULL: kind not supported */
};

/* Runs ew over views: views[0] is the output, views[1..] the inputs (broadcast to the output);
 * operands that are scalars come from ex->scalars as ex->scalar_slot says. */
void npusim_ew_run(const npusim_exec *ex, const npusim_ew_op *op, npusim_kind kind,
                   npusim_view *out, npusim_view *const *in);

/* A 0-d view of a host value stored as `kind` (scalar operands). */
void npusim_scalar_view(npusim_view *v, const npusim_value *value, npusim_kind kind);

/* True when the byte ranges two views span intersect. */
bool npusim_views_overlap(const npusim_view *a, const npusim_view *b);
/* True when `in` shares memory with `out` without being exactly the same elements in the same
 * order: reading it while writing out would see partly updated data. */
bool npusim_views_conflict(const npusim_view *in, const npusim_view *out);
/* A contiguous host copy of a view (*buffer to free), for inputs that conflict with an output. */
int npusim_view_copy(const npusim_view *v, npusim_view *copy, void **buffer);

/* Builds the run-time views of an executor's tensors for the given addresses. */
void npusim_make_view(npusim_view *v, const aclTensor *t, void *data);

/* Iteration over an N-d strided space with any number of operands (bytes strides). */
typedef struct {
    int ndim;
    int nop;
    int64_t shape[NPUSIM_MAX_DIMS];
    int64_t strides[NPUSIM_MAX_OPERANDS][NPUSIM_MAX_DIMS];
    char *base[NPUSIM_MAX_OPERANDS];
} npusim_nditer;

/* Sets up it for operands broadcast to `shape`: operand i has view v[i] (its own shape is
 * right-aligned against `shape`; size-1 dims are broadcast). Sorts dims by operand 0's strides,
 * drops size-1 dims and merges contiguous ones. */
void npusim_nditer_init(npusim_nditer *it, int ndim, const int64_t *shape, npusim_view *const *v, int nop);
int64_t npusim_nditer_size(const npusim_nditer *it);
/* Calls fn for every inner run in the linear range [begin, end): ptrs of the run's first element
 * of every operand, inner byte strides, run length. */
typedef void (*npusim_run_fn)(char **ptrs, const int64_t *strides, size_t n, void *ctx);
void npusim_nditer_range(const npusim_nditer *it, int64_t begin, int64_t end, npusim_run_fn fn, void *ctx);
/* Same over the whole space, split across the CPU pool when it is large. */
void npusim_nditer_parallel(const npusim_nditer *it, npusim_run_fn fn, void *ctx);
/* Same, split across the pool in chunks of at least `grain` elements when there are two; a job
 * of fewer than NPUSIM_MID_GRAINS grains is mid-size work (npusim_parallel_for_mid). */
#define NPUSIM_MID_GRAINS 16
void npusim_nditer_parallel_grain(const npusim_nditer *it, int64_t grain, npusim_run_fn fn, void *ctx);

extern const npusim_ew_op npusim_ew_add, npusim_ew_sub, npusim_ew_mul, npusim_ew_div, npusim_ew_truncdiv,
    npusim_ew_floordiv, npusim_ew_remainder, npusim_ew_pow, npusim_ew_maximum, npusim_ew_minimum, npusim_ew_eq,
    npusim_ew_ne, npusim_ew_gt, npusim_ew_ge, npusim_ew_lt, npusim_ew_le, npusim_ew_and, npusim_ew_or,
    npusim_ew_not, npusim_ew_neg, npusim_ew_abs, npusim_ew_exp, npusim_ew_log, npusim_ew_sqrt,
    npusim_ew_identity, npusim_ew_where, npusim_ew_sin, npusim_ew_cos, npusim_ew_tan, npusim_ew_tanh, npusim_ew_sinh,
    npusim_ew_cosh, npusim_ew_asin, npusim_ew_acos, npusim_ew_atan, npusim_ew_log2, npusim_ew_log10, npusim_ew_log1p,
    npusim_ew_exp2, npusim_ew_expm1, npusim_ew_rsqrt, npusim_ew_reciprocal, npusim_ew_atan2, npusim_ew_floor,
    npusim_ew_ceil, npusim_ew_trunc, npusim_ew_round, npusim_ew_sign, npusim_ew_isfinite, npusim_ew_clamp;

/* Dtype sets, as bit masks over aclDataType values (all supported ones are < 64). */
#define DT(x) (1ull << (x))
#define M_FLOATS (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_DOUBLE))
#define M_COMPLEX (DT(ACL_COMPLEX64) | DT(ACL_COMPLEX128))
#define M_SINTS (DT(ACL_INT8) | DT(ACL_INT16) | DT(ACL_INT32) | DT(ACL_INT64))
#define M_UINTS (DT(ACL_UINT8) | DT(ACL_UINT16) | DT(ACL_UINT32) | DT(ACL_UINT64))
#define M_BOOL DT(ACL_BOOL)
#define M_ALL (M_FLOATS | M_COMPLEX | M_SINTS | M_UINTS | M_BOOL)
#define M_ARITH (M_FLOATS | M_COMPLEX | M_SINTS | DT(ACL_UINT8) | M_BOOL)
#include "aclnn_dtypes.h" /* per operator parameter, generated from kernels/aclnn_dtypes.tsv */
bool npusim_dtype_in(aclDataType dt, uint64_t mask);
/* 161002 naming op, argument and dtype unless dt is in mask. */
int npusim_check_dtype(const char *op, const char *arg, aclDataType dt, uint64_t mask);
/* bool < integer < floating < complex */
int npusim_dtype_category(aclDataType dt);

#define NPUSIM_PARALLEL_MIN 65536 /* elements below which splitting costs more than it gains */
#define NPUSIM_BLOCK 512          /* elements converted at a time in the generic paths */

#endif /* NPUSIM_OPS_INTERNAL_H */
