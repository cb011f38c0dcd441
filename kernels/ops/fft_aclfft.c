/* aclfft (hicann/ops-fft include/cann_ops_fft.h, libcann_ops_fft.so) on npusim's streams.
 *
 * What CANN's library accepts, npusim accepts (docs/zh/API Reference/FFT_1D.md, FFT_2D.md and
 * "FFT公共接口.md" of hicann/ops-fft):
 * - single precision only: C2C, R2C, C2R; the double types (Z2Z, D2Z, Z2D) and 3-D plans are
 *   declared by the header but return ACLFFT_NOT_IMPLEMENTED;
 * - 1-D plans: horizontal (rows of nx contiguous elements, batch rows), nx <= 2^27 whose prime
 *   factors are all <= 199, at most 2^30 elements; 2-D plans: C2C only, (batch, nx, ny)
 *   row-major, the same limit on nx and ny;
 * - the fifth parameter of aclfftMakePlan1d, named `stride` in the header, is the dimType.
 * npusim does not implement vertical 1-D plans (ACLFFT_NOT_IMPLEMENTED) nor the per-chip kernel
 * ranges of the constraint tables; it computes every size the general constraint allows.
 * Forward transforms are unnormalised, backward ones too (a round trip multiplies by n).
 *
 * Exec enqueues the transform on the plan's stream (aclfftSetStream; NULL: the default stream)
 * after checking that idata and odata lie in device memory of that stream's device. Plans and
 * queued transforms share the twiddle tables by reference count, so destroying a plan with work
 * still queued is safe. Power-of-two lengths run in single precision, vectorised across lines
 * and threaded (fft_lanes.c); other lengths in double precision, line by line across the CPU
 * pool (fft_engine.c: Bluestein). R2C and C2R of even length use a complex transform of half
 * the length. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cann_ops_fft.h"
#include "fft_engine.h"
#include "npusim.h"

#define FFT_MAX_SIZE (1ll << 27)
#define FFT_MAX_ELEMENTS (1ll << 30)
#define FFT_MAX_PRIME 199

typedef struct {
    atomic_int refs;
    fft_tables *t;
} shared_tables;

struct aclfftHandle_t {
    bool made;
    aclfftType type;
    int rank;          /* 1 or 2 */
    int64_t dims[2];   /* nx, ny: the last is contiguous */
    int64_t batch;
    aclrtStream stream;
    shared_tables *tables[2];
};

/* ---------------------------------------------------------------------------------------------
 * Live plans: a destroyed or unknown handle is ACLFFT_INVALID_PLAN, never a crash */

static pthread_mutex_t plans_lock = PTHREAD_MUTEX_INITIALIZER;
static aclfftHandle *plans;
static size_t plans_used, plans_cap;

static bool plan_register(aclfftHandle p)
{
    pthread_mutex_lock(&plans_lock);
    bool ok = true;
    if (plans_used == plans_cap) {
        size_t cap = plans_cap ? plans_cap * 2 : 16;
        aclfftHandle *grown = realloc(plans, cap * sizeof *grown);
        if (grown) {
            plans = grown;
            plans_cap = cap;
        } else {
            ok = false;
        }
    }
    if (ok) plans[plans_used++] = p;
    pthread_mutex_unlock(&plans_lock);
    return ok;
}

/* Removes p from the live set when `remove`; returns whether it was live. */
static bool plan_live(aclfftHandle p, bool remove)
{
    pthread_mutex_lock(&plans_lock);
    bool found = false;
    for (size_t i = 0; i < plans_used && !found; i++)
        if (plans[i] == p) {
            found = true;
            if (remove) plans[i] = plans[--plans_used];
        }
    pthread_mutex_unlock(&plans_lock);
    return found;
}

static void tables_release(shared_tables *s)
{
    if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
        fft_tables_free(s->t);
        free(s);
    }
}

static shared_tables *tables_retain(shared_tables *s)
{
    if (s) atomic_fetch_add(&s->refs, 1);
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * Plans */

static int largest_prime_factor(int64_t n)
{
    int64_t largest = 1;
    for (int64_t p = 2; p * p <= n; p++)
        while (n % p == 0) {
            largest = p;
            n /= p;
        }
    if (n > 1) largest = n;
    return largest > FFT_MAX_PRIME ? FFT_MAX_PRIME + 1 : (int)largest;
}

static aclfftResult check_size(const char *api, const char *arg, int n)
{
    if (n <= 0) return npusim_error(ACLFFT_INVALID_SIZE, "%s: %s must be > 0 (got %d)", api, arg, n);
    if (n > FFT_MAX_SIZE || largest_prime_factor(n) > FFT_MAX_PRIME)
        return npusim_error(ACLFFT_NOT_IMPLEMENTED, "%s: %s = %d is not supported: the size must be at most "
                            "2^27 with no prime factor above %d", api, arg, n, FFT_MAX_PRIME);
    return ACLFFT_SUCCESS;
}

static aclfftResult check_type(const char *api, aclfftType type, bool real_allowed)
{
    if (type == ACLFFT_Z2Z || type == ACLFFT_D2Z || type == ACLFFT_Z2D)
        return npusim_error(ACLFFT_NOT_IMPLEMENTED, "%s: double precision (type 0x%x) is not implemented: "
                            "the library supports FP32 only", api, (unsigned)type);
    if (type == ACLFFT_C2C || (real_allowed && (type == ACLFFT_R2C || type == ACLFFT_C2R))) return ACLFFT_SUCCESS;
    if (type == ACLFFT_R2C || type == ACLFFT_C2R)
        return npusim_error(ACLFFT_NOT_SUPPORTED, "%s: only ACLFFT_C2C is supported for this rank", api);
    return npusim_error(ACLFFT_INVALID_TYPE, "%s: unknown aclfftType 0x%x", api, (unsigned)type);
}

static shared_tables *tables_for(int64_t n, bool real)
{
    shared_tables *s = malloc(sizeof *s);
    if (!s) return NULL;
    s->t = fft_tables_make(n, real);
    if (!s->t) {
        free(s);
        return NULL;
    }
    atomic_init(&s->refs, 1);
    return s;
}

static aclfftResult plan_setup(const char *api, aclfftHandle plan, aclfftType type, int rank, const int *dims,
                               int batch, size_t *workSize)
{
    if (!plan_live(plan, false)) return npusim_error(ACLFFT_INVALID_PLAN, "%s: invalid plan handle", api);
    if (plan->made) return npusim_error(ACLFFT_INVALID_PLAN, "%s: the plan is already made", api);
    aclfftResult rc = check_type(api, type, rank == 1);
    if (rc) return rc;
    if (batch <= 0) return npusim_error(ACLFFT_INVALID_VALUE, "%s: batch must be > 0 (got %d)", api, batch);
    int64_t elements = batch;
    for (int d = 0; d < rank; d++) {
        if ((rc = check_size(api, d ? "ny" : "nx", dims[d]))) return rc;
        elements *= dims[d];
    }
    if (elements > FFT_MAX_ELEMENTS)
        return npusim_error(ACLFFT_INVALID_SIZE, "%s: %lld elements exceed the supported 2^30", api,
                            (long long)elements);
    for (int d = 0; d < rank; d++) {
        plan->tables[d] = tables_for(dims[d], type != ACLFFT_C2C);
        if (!plan->tables[d]) {
            for (int e = 0; e < d; e++) tables_release(plan->tables[e]);
            return npusim_error(ACLFFT_ALLOC_FAILED, "%s: out of host memory", api);
        }
        plan->dims[d] = dims[d];
    }
    plan->type = type;
    plan->rank = rank;
    plan->batch = batch;
    plan->made = true;
    if (workSize) *workSize = 0; /* npusim's transforms need no device workspace */
    return ACLFFT_SUCCESS;
}

aclfftResult aclfftCreate(aclfftHandle *plan)
{
    if (!plan) return npusim_error(ACLFFT_INVALID_VALUE, "aclfftCreate: plan is NULL");
    aclfftHandle p = calloc(1, sizeof *p);
    if (!p || !plan_register(p)) {
        free(p);
        return npusim_error(ACLFFT_ALLOC_FAILED, "aclfftCreate: out of host memory");
    }
    *plan = p;
    return ACLFFT_SUCCESS;
}

aclfftResult aclfftMakePlan1d(aclfftHandle plan, int nx, aclfftType type, int batch, int stride, size_t *workSize)
{
    const char *api = "aclfftMakePlan1d";
    if (stride == ACLFFT_VERTICAL)
        return npusim_error(ACLFFT_NOT_IMPLEMENTED, "%s: vertical plans are not implemented by npusim", api);
    if (stride != ACLFFT_HORIZONTAL)
        return npusim_error(ACLFFT_INVALID_VALUE, "%s: dimType (the parameter named stride) must be "
                            "ACLFFT_HORIZONTAL or ACLFFT_VERTICAL (got %d)", api, stride);
    int dims[1] = { nx };
    return plan_setup(api, plan, type, 1, dims, batch, workSize);
}

aclfftResult aclfftMakePlan2d(aclfftHandle plan, int batch, int nx, int ny, aclfftType type, size_t *workSize)
{
    int dims[2] = { nx, ny };
    return plan_setup("aclfftMakePlan2d", plan, type, 2, dims, batch, workSize);
}

aclfftResult aclfftMakePlan3d(aclfftHandle plan, int nx, int ny, int nz, aclfftType type, size_t *workSize)
{
    (void)plan, (void)nx, (void)ny, (void)nz, (void)type, (void)workSize;
    return npusim_error(ACLFFT_NOT_IMPLEMENTED, "aclfftMakePlan3d: 3-D transforms are not implemented");
}

/* Create + MakePlan; on failure the handle is destroyed and *plan set to NULL, as documented. */
static aclfftResult plan_now(aclfftHandle *plan, aclfftResult made)
{
    if (made != ACLFFT_SUCCESS) {
        aclfftDestroy(*plan);
        *plan = NULL;
    }
    return made;
}

aclfftResult aclfftPlan1d(aclfftHandle *plan, int nx, aclfftType type, int batch, int dimType)
{
    aclfftResult rc = aclfftCreate(plan);
    return rc ? rc : plan_now(plan, aclfftMakePlan1d(*plan, nx, type, batch, dimType, NULL));
}

aclfftResult aclfftPlan2d(aclfftHandle *plan, int batch, int nx, int ny, aclfftType type)
{
    aclfftResult rc = aclfftCreate(plan);
    return rc ? rc : plan_now(plan, aclfftMakePlan2d(*plan, batch, nx, ny, type, NULL));
}

aclfftResult aclfftPlan3d(aclfftHandle *plan, int nx, int ny, int nz, aclfftType type)
{
    aclfftResult rc = aclfftCreate(plan);
    return rc ? rc : plan_now(plan, aclfftMakePlan3d(*plan, nx, ny, nz, type, NULL));
}

aclfftResult aclfftSetStream(aclfftHandle plan, aclrtStream stream)
{
    if (!plan_live(plan, false)) return npusim_error(ACLFFT_INVALID_PLAN, "aclfftSetStream: invalid plan handle");
    plan->stream = stream;
    return ACLFFT_SUCCESS;
}

aclfftResult aclfftDestroy(aclfftHandle plan)
{
    if (!plan_live(plan, true)) return npusim_error(ACLFFT_INVALID_PLAN, "aclfftDestroy: invalid plan handle");
    tables_release(plan->tables[0]);
    tables_release(plan->tables[1]);
    free(plan);
    return ACLFFT_SUCCESS;
}

const char *aclfftGetErrorString(aclfftResult result)
{
    switch (result) {
    case ACLFFT_SUCCESS: return "ACLFFT_SUCCESS: the operation was successful";
    case ACLFFT_INVALID_PLAN: return "ACLFFT_INVALID_PLAN: invalid plan handle";
    case ACLFFT_ALLOC_FAILED: return "ACLFFT_ALLOC_FAILED: memory allocation failed";
    case ACLFFT_INVALID_TYPE: return "ACLFFT_INVALID_TYPE: invalid transform type";
    case ACLFFT_INVALID_VALUE: return "ACLFFT_INVALID_VALUE: invalid pointer or parameter";
    case ACLFFT_INTERNAL_ERROR: return "ACLFFT_INTERNAL_ERROR: internal error";
    case ACLFFT_EXEC_FAILED: return "ACLFFT_EXEC_FAILED: the transform failed to execute";
    case ACLFFT_SETUP_FAILED: return "ACLFFT_SETUP_FAILED: the library failed to initialise";
    case ACLFFT_INVALID_SIZE: return "ACLFFT_INVALID_SIZE: invalid transform size";
    case ACLFFT_UNALIGNED_DATA: return "ACLFFT_UNALIGNED_DATA: unaligned data";
    case ACLFFT_INCOMPLETE_PARAMETER_LIST: return "ACLFFT_INCOMPLETE_PARAMETER_LIST: missing parameters";
    case ACLFFT_INVALID_DEVICE: return "ACLFFT_INVALID_DEVICE: execution on another device than the plan's";
    case ACLFFT_PARSE_ERROR: return "ACLFFT_PARSE_ERROR: internal plan database error";
    case ACLFFT_NO_WORKSPACE: return "ACLFFT_NO_WORKSPACE: no workspace provided";
    case ACLFFT_NOT_IMPLEMENTED: return "ACLFFT_NOT_IMPLEMENTED: not implemented for these parameters";
    case ACLFFT_NOT_SUPPORTED: return "ACLFFT_NOT_SUPPORTED: not supported for these parameters";
    }
    return "unknown aclfftResult";
}

/* ---------------------------------------------------------------------------------------------
 * Execution */

typedef struct {
    aclfftType type;
    int rank;
    int64_t dims[2];
    int64_t batch;
    int sign;
    shared_tables *tables[2];
    const float *in;
    float *out;
} fft_job;

/* One line of the transform: load, transform, store. `in`/`out` point at the line's first float;
 * strides are in complex (or real) elements. */
typedef struct {
    const fft_job *job;
    const fft_tables *t;
    int pass; /* 0: along the last dim, 1: along nx of a 2-D plan (in place on out) */
} line_ctx;

static void real_line(const fft_job *j, const fft_tables *t, int64_t row, fft_cplx *data, fft_cplx *work)
{
    int64_t n = t->n, half = n / 2 + 1;
    if (j->type == ACLFFT_R2C) {
        const float *src = j->in + row * n;
        for (int64_t k = 0; k < n / 2; k++) data[k] = (fft_cplx){ src[2 * k], src[2 * k + 1] };
        fft_real_forward(t, data, work);
        float *dst = j->out + 2 * row * half;
        for (int64_t k = 0; k < half; k++) {
            dst[2 * k] = (float)data[k].re;
            dst[2 * k + 1] = (float)data[k].im;
        }
        return;
    }
    const float *src = j->in + 2 * row * half;
    for (int64_t k = 0; k < half; k++) data[k] = (fft_cplx){ src[2 * k], src[2 * k + 1] };
    fft_real_backward(t, data, work);
    float *dst = j->out + row * n;
    for (int64_t k = 0; k < n / 2; k++) {
        dst[2 * k] = (float)data[k].re;
        dst[2 * k + 1] = (float)data[k].im;
    }
}

static void transform_lines(size_t begin, size_t end, void *arg)
{
    const line_ctx *c = arg;
    const fft_job *j = c->job;
    const fft_tables *t = c->t;
    int64_t n = t->n;
    fft_cplx *data = malloc(sizeof(fft_cplx) * (size_t)(n + 1 + fft_work_size(t)));
    if (!data) return; /* cannot happen in practice: lines are small; the result stays unwritten */
    fft_cplx *work = data + n + 1;
    int64_t half = n / 2 + 1;
    for (size_t line = begin; line < end; line++) {
        if (c->pass == 1) { /* column `col` of matrix `b`: stride ny complex elements */
            int64_t ny = j->dims[1], b = (int64_t)line / ny, col = (int64_t)line % ny;
            float *base = j->out + 2 * (b * n * ny + col);
            for (int64_t k = 0; k < n; k++) {
                data[k].re = base[2 * k * ny];
                data[k].im = base[2 * k * ny + 1];
            }
            fft_run(t, data, j->sign, work);
            for (int64_t k = 0; k < n; k++) {
                base[2 * k * ny] = (float)data[k].re;
                base[2 * k * ny + 1] = (float)data[k].im;
            }
            continue;
        }
        int64_t row = (int64_t)line;
        if (t->half) { /* even-length real transform through one of half the length */
            real_line(j, t, row, data, work);
            continue;
        }
        if (j->type == ACLFFT_R2C) {
            const float *src = j->in + row * n;
            for (int64_t k = 0; k < n; k++) data[k] = (fft_cplx){ src[k], 0 };
        } else if (j->type == ACLFFT_C2R) { /* Hermitian completion of the n/2+1 given values */
            const float *src = j->in + 2 * row * half;
            for (int64_t k = 0; k < half; k++) data[k] = (fft_cplx){ src[2 * k], src[2 * k + 1] };
            for (int64_t k = half; k < n; k++) data[k] = (fft_cplx){ src[2 * (n - k)], -src[2 * (n - k) + 1] };
        } else {
            const float *src = j->in + 2 * row * n;
            for (int64_t k = 0; k < n; k++) data[k] = (fft_cplx){ src[2 * k], src[2 * k + 1] };
        }
        fft_run(t, data, j->sign, work);
        if (j->type == ACLFFT_C2R) {
            float *dst = j->out + row * n;
            for (int64_t k = 0; k < n; k++) dst[k] = (float)data[k].re;
        } else {
            int64_t count = j->type == ACLFFT_R2C ? half : n;
            float *dst = j->out + 2 * row * count;
            for (int64_t k = 0; k < count; k++) {
                dst[2 * k] = (float)data[k].re;
                dst[2 * k + 1] = (float)data[k].im;
            }
        }
    }
    free(data);
}

/* ---------------------------------------------------------------------------------------------
 * Real transforms whose half length is a power of two: the complex transform of the packed
 * rows in single precision (fft_pow2_run), the split into the spectrum in double per row */

typedef struct {
    const fft_job *job;
    const fft_tables *t;
} real_ctx;

static fft_cplx load(const float *v, int64_t k) { return (fft_cplx){ v[2 * k], v[2 * k + 1] }; }

static void put(float *v, int64_t k, fft_cplx z)
{
    v[2 * k] = (float)z.re;
    v[2 * k + 1] = (float)z.im;
}

static fft_cplx times(fft_cplx a, fft_cplx b) { return (fft_cplx){ a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re }; }

/* Z (h values, in place in the row of h + 1) -> X_k = E_k + w^k O_k as fft_real_forward. */
static void real_split_rows(size_t begin, size_t end, void *arg)
{
    const real_ctx *c = arg;
    int64_t h = c->t->n / 2;
    const fft_cplx *w = c->t->real_twiddle;
    for (size_t row = begin; row < end; row++) {
        float *v = c->job->out + 2 * (int64_t)row * (h + 1);
        put(v, h, load(v, 0));
        for (int64_t k = 0; k <= h / 2; k++) {
            fft_cplx z = load(v, k), y = load(v, h - k);
            fft_cplx e = { (z.re + y.re) / 2, (z.im - y.im) / 2 }, o = { (z.im + y.im) / 2, -(z.re - y.re) / 2 };
            fft_cplx e2 = { (y.re + z.re) / 2, (y.im - z.im) / 2 }, o2 = { (y.im + z.im) / 2, -(y.re - z.re) / 2 };
            fft_cplx a = times(w[k], o), b = times(w[h - k], o2);
            put(v, k, (fft_cplx){ e.re + a.re, e.im + a.im });
            put(v, h - k, (fft_cplx){ e2.re + b.re, e2.im + b.im });
        }
    }
}

/* The n/2 + 1 terms of a Hermitian spectrum (imaginary parts of X_0, X_h ignored) -> the h
 * values Z_k = (X_k + conj X_{h-k}) + i (X_k - conj X_{h-k}) / w^k into the output row, as
 * fft_real_backward. */
static void real_merge_rows(size_t begin, size_t end, void *arg)
{
    const real_ctx *c = arg;
    int64_t h = c->t->n / 2;
    const fft_cplx *w = c->t->real_twiddle;
    for (size_t row = begin; row < end; row++) {
        const float *x = c->job->in + 2 * (int64_t)row * (h + 1);
        float *v = c->job->out + 2 * (int64_t)row * h;
        for (int64_t k = 0; k <= h / 2; k++) {
            fft_cplx a = load(x, k), b = load(x, h - k);
            if (k == 0) a.im = b.im = 0;
            fft_cplx f = { a.re + b.re, a.im - b.im }, d = { a.re - b.re, a.im + b.im };
            fft_cplx f2 = { b.re + a.re, b.im - a.im }, d2 = { b.re - a.re, b.im + a.im };
            fft_cplx g = times(d, (fft_cplx){ w[k].re, -w[k].im });
            fft_cplx g2 = times(d2, (fft_cplx){ w[h - k].re, -w[h - k].im });
            put(v, k, (fft_cplx){ f.re - g.im, f.im + g.re });
            if (k > 0) put(v, h - k, (fft_cplx){ f2.re - g2.im, f2.im + g2.re });
        }
    }
}

static bool real_pow2(const fft_job *j, const fft_tables *t)
{
    int64_t h = t->n / 2;
    real_ctx c = { j, t };
    if (fft_pow2_real_direct(t->half->pow2, j->batch))
        return fft_pow2_real(t->half->pow2, t->real_twiddle, j->in, j->out, j->batch, j->sign);
    if (j->type == ACLFFT_R2C) {
        if (!fft_pow2_run(t->half->pow2, j->in, h, j->out, h + 1, 1, j->batch, -1)) return false;
        npusim_parallel_for((size_t)j->batch, 16, real_split_rows, &c);
        return true;
    }
    npusim_parallel_for((size_t)j->batch, 16, real_merge_rows, &c);
    return fft_pow2_run(t->half->pow2, j->out, h, j->out, h, 1, j->batch, +1);
}

/* One pass of the job on the double-precision engine, line by line across the CPU pool. */
static void engine_pass(const fft_job *j, int pass)
{
    line_ctx c = { j, j->tables[pass ? 0 : j->rank - 1]->t, pass };
    int64_t lines = pass ? j->batch * j->dims[1] : j->batch * (j->rank == 2 ? j->dims[0] : 1);
    npusim_parallel_for((size_t)lines, 1, transform_lines, &c);
}

static bool job_rows(const fft_job *j)
{
    const fft_tables *t = j->tables[j->rank - 1]->t;
    int64_t n = t->n, rows = j->batch * (j->rank == 2 ? j->dims[0] : 1);
    if (t->pow2 && j->type == ACLFFT_C2C) return fft_pow2_run(t->pow2, j->in, n, j->out, n, 1, rows, j->sign);
    if (t->half && t->half->pow2) return real_pow2(j, t);
    engine_pass(j, 0);
    return true;
}

static bool job_columns(const fft_job *j)
{
    const fft_tables *t = j->tables[0]->t;
    if (!t->pow2) {
        engine_pass(j, 1);
        return true;
    }
    int64_t nx = j->dims[0], ny = j->dims[1];
    for (int64_t b = 0; b < j->batch; b++) {
        float *m = j->out + 2 * b * nx * ny;
        if (!fft_pow2_run(t->pow2, m, 1, m, 1, ny, ny, j->sign)) return false;
    }
    return true;
}

static int fft_job_run(void *payload)
{
    const fft_job *j = payload;
    bool ok = job_rows(j) && (j->rank == 1 || job_columns(j));
    return ok ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

static void fft_job_release(void *payload)
{
    fft_job *j = payload;
    tables_release(j->tables[0]);
    tables_release(j->tables[1]);
    free(j);
}

static const npusim_task_ops fft_task = { "aclfftExec", fft_job_run, fft_job_release };

static aclfftResult exec(const char *api, aclfftHandle plan, aclfftType type, const void *idata, void *odata,
                         int direction)
{
    if (!plan_live(plan, false) || !plan->made)
        return npusim_error(ACLFFT_INVALID_PLAN, "%s: invalid or unmade plan handle", api);
    if (plan->type != type)
        return npusim_error(ACLFFT_INVALID_TYPE, "%s: the plan was made for type 0x%x", api, (unsigned)plan->type);
    if (direction != ACLFFT_FORWARD && direction != ACLFFT_BACKWARD)
        return npusim_error(ACLFFT_INVALID_VALUE, "%s: direction must be ACLFFT_FORWARD (-1) or ACLFFT_BACKWARD "
                            "(1), got %d", api, direction);
    int64_t n = plan->dims[plan->rank - 1], rows = plan->batch * (plan->rank == 2 ? plan->dims[0] : 1);
    int64_t half = n / 2 + 1;
    size_t in_bytes = (size_t)(rows * (type == ACLFFT_R2C ? n : 2 * (type == ACLFFT_C2R ? half : n))) * sizeof(float);
    size_t out_bytes = (size_t)(rows * (type == ACLFFT_C2R ? n : 2 * (type == ACLFFT_R2C ? half : n))) * sizeof(float);
    int32_t device = npusim_stream_device(plan->stream);
    if (device < 0) return npusim_error(ACLFFT_INVALID_VALUE, "%s: the plan's stream is invalid", api);
    if (npusim_check_device_range(idata, in_bytes, device, "aclfftExec idata") != ACL_SUCCESS ||
        npusim_check_device_range(odata, out_bytes, device, "aclfftExec odata") != ACL_SUCCESS)
        return ACLFFT_INVALID_VALUE; /* the message names the pointer and what is wrong with it */
    fft_job *j = malloc(sizeof *j);
    if (!j) return npusim_error(ACLFFT_ALLOC_FAILED, "%s: out of host memory", api);
    *j = (fft_job){ type, plan->rank, { plan->dims[0], plan->dims[1] }, plan->batch, direction,
                    { tables_retain(plan->tables[0]), tables_retain(plan->tables[1]) }, idata, odata };
    if (npusim_launch(plan->stream, &fft_task, j) != ACL_SUCCESS) return ACLFFT_EXEC_FAILED;
    return ACLFFT_SUCCESS;
}

aclfftResult aclfftExecC2C(aclfftHandle plan, aclfftComplex *idata, aclfftComplex *odata, int direction)
{
    return exec("aclfftExecC2C", plan, ACLFFT_C2C, idata, odata, direction);
}

aclfftResult aclfftExecR2C(aclfftHandle plan, aclfftReal *idata, aclfftComplex *odata)
{
    return exec("aclfftExecR2C", plan, ACLFFT_R2C, idata, odata, ACLFFT_FORWARD);
}

aclfftResult aclfftExecC2R(aclfftHandle plan, aclfftComplex *idata, aclfftReal *odata)
{
    return exec("aclfftExecC2R", plan, ACLFFT_C2R, idata, odata, ACLFFT_BACKWARD);
}

/* No plan can be made for the double types (ACLFFT_NOT_IMPLEMENTED), so these always refuse. */
aclfftResult aclfftExecZ2Z(aclfftHandle plan, aclfftDoubleComplex *idata, aclfftDoubleComplex *odata, int direction)
{
    return exec("aclfftExecZ2Z", plan, ACLFFT_Z2Z, idata, odata, direction);
}

aclfftResult aclfftExecD2Z(aclfftHandle plan, aclfftDoubleReal *idata, aclfftDoubleComplex *odata)
{
    return exec("aclfftExecD2Z", plan, ACLFFT_D2Z, idata, odata, ACLFFT_FORWARD);
}

aclfftResult aclfftExecZ2D(aclfftHandle plan, aclfftDoubleComplex *idata, aclfftDoubleReal *odata)
{
    return exec("aclfftExecZ2D", plan, ACLFFT_Z2D, idata, odata, ACLFFT_BACKWARD);
}
