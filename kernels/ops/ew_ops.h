/* Private: how the element-wise aclnn operators are described and prepared (ew_prepare.c). */
#ifndef NPUSIM_EW_OPS_H
#define NPUSIM_EW_OPS_H

#include "ops_internal.h"

enum {
    RULE_FLOAT_RESULT = 1,      /* integer inputs compute in floating point (div, exp, ...) */
    RULE_NO_BOOL = 2,           /* bool inputs rejected (sub, like torch) */
    RULE_CAST = 4,              /* one input cast to out's dtype (cast, copy, fill) */
    RULE_BROADCAST_TO_OUT = 8,  /* inputs broadcast to out's shape (copy, masked fill) */
};

typedef struct {
    npusim_opdef def;
    const npusim_ew_op *op;
    uint64_t in_dtypes;       /* documented dtypes of the tensor inputs */
    uint64_t out_dtypes;
    uint64_t promoted_dtypes; /* 0: any */
    unsigned rules;
} ew_spec;

#define EW_SPEC(name, op, in, out, promoted, rules) \
    { NPUSIM_OPDEF(name, npusim_ew_kernel), op, in, out, promoted, rules }
/* The same with the operator table's dtypes (aclnn_dtypes.h): its inputs take those of
 * parameter `in`, its output those of parameter `out`. */
#define EW_SPEC_OF(aclnn, in, out, op, promoted, rules) \
    EW_SPEC(#aclnn, op, NPUSIM_DTYPES_##aclnn##_##in, NPUSIM_DTYPES_##aclnn##_##out, promoted, rules)

/* An input in parameter order: a tensor or (is_scalar) a scalar. */
typedef struct {
    const aclTensor *t;
    const aclScalar *s;
    bool is_scalar;
    const char *arg;
} ew_operand;

#define TENSOR_ARG(x, name) { (x), NULL, false, name }
#define SCALAR_ARG(x, name) { NULL, (x), true, name }

/* Element-wise loops over contiguous buffers of n elements: x (and y) are the inputs of
 * kind T, o[i] = EXPR is stored as RT. The kernels of ew_kernels.c and of the operator
 * files share them. */
#define UNARY(NAME, T, RT, EXPR)                                                               \
    static void NAME(void *out_, const void *const *in, size_t n, const npusim_exec *ex)       \
    {                                                                                          \
        (void)ex;                                                                              \
        RT *o = out_;                                                                          \
        const T *a = in[0];                                                                    \
        for (size_t i = 0; i < n; i++) {                                                       \
            const T x = a[i];                                                                  \
            o[i] = (EXPR);                                                                     \
        }                                                                                      \
    }

/* Binary kernels are also compiled for AVX2 and picked by the CPU at load time (the build
 * targets plain x86-64): twice the lanes, and 64-bit compares (one-hot) vectorise at all. AVX2
 * without FMA, so no a * b + c is fused: the results stay bit-identical to the plain build. */
/* Not under the sanitizers: their runtimes are not ready when the loader runs the resolvers. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__SANITIZE_THREAD__) && \
    !defined(__SANITIZE_ADDRESS__)
#define EW_MULTI_ISA __attribute__((target_clones("avx2", "default")))
#else
#define EW_MULTI_ISA
#endif

#define BINARY(NAME, T, RT, EXPR)                                                              \
    EW_MULTI_ISA static void NAME(void *out_, const void *const *in, size_t n, const npusim_exec *ex)       \
    {                                                                                          \
        (void)ex;                                                                              \
        RT *o = out_;                                                                          \
        const T *a = in[0], *b = in[1];                                                        \
        for (size_t i = 0; i < n; i++) {                                                       \
            const T x = a[i], y = b[i];                                                        \
            o[i] = (EXPR);                                                                     \
        }                                                                                      \
    }

/* Vectorised float32 transcendentals (ew_vmath.c), kernels of the KIND_F32 slot. */
#define VMATH_DECLARE(NAME) void NAME(void *out, const void *const *in, size_t n, const npusim_exec *ex);
VMATH_DECLARE(npusim_vsin_f32) VMATH_DECLARE(npusim_vcos_f32) VMATH_DECLARE(npusim_vtan_f32)
VMATH_DECLARE(npusim_vexp_f32) VMATH_DECLARE(npusim_vexp2_f32) VMATH_DECLARE(npusim_vexpm1_f32)
VMATH_DECLARE(npusim_vsinh_f32) VMATH_DECLARE(npusim_vcosh_f32) VMATH_DECLARE(npusim_vtanh_f32)
VMATH_DECLARE(npusim_vlog_f32) VMATH_DECLARE(npusim_vlog2_f32) VMATH_DECLARE(npusim_vlog10_f32)
VMATH_DECLARE(npusim_vlog1p_f32)
#undef VMATH_DECLARE

/* The kernel of op in kind for input `repeated` (0 or 1) of a binary op read as one element
 * (stride 0), or NULL when op has none (ew_kernels.c). */
npusim_ew_fn npusim_ew_splat_fn(const npusim_ew_op *op, npusim_kind kind, int repeated);

/* dst[i] = src[i] converted, for n contiguous elements (ew_cast.c). */
typedef void (*npusim_cast_fn)(void *dst, const void *src, size_t n);
/* The vectorised cast between two of the common dtypes (bool, int8, uint8, int16, int32, int64,
 * float16, bfloat16, float, double), converting as npusim_load / npusim_store do; NULL for other
 * pairs and for from == to. */
npusim_cast_fn npusim_contiguous_cast(aclDataType from, aclDataType to);

int npusim_ew_kernel(const npusim_exec *ex, npusim_view *views);
npusim_kind npusim_cast_kind(aclDataType src, aclDataType dst);

/* ins in parameter order; ew_order[i] = which of ins is the op's input i (NULL: same order);
 * alpha optional; out_arg names out in messages (NULL: "out"; "selfRef" for in-place ones). */
aclnnStatus npusim_ew_prepare(const ew_spec *spec, const ew_operand *ins, int nin, const int *ew_order,
                              const aclScalar *alpha, aclTensor *out, const char *out_arg,
                              uint64_t *workspaceSize, aclOpExecutor **executor);

#endif /* NPUSIM_EW_OPS_H */
