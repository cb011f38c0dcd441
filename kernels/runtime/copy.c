/* aclrtMemcpy*, aclrtMemset*: every copy is checked against where its pointers live (kind as
 * CANN's runtime treats it, live block, range, device / peer access, pinned host memory for
 * asynchronous copies) before anything is moved. Asynchronous copies re-check their device ranges when they run, so memory
 * freed before the stream reached the copy is reported instead of silently written. */
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

#include "racecheck.h"
#include "rt_internal.h"

#define PARALLEL_COPY_BYTES (4u << 20)
#define COPY_BLOCK (1u << 20)
/* Copies at least this large stream their stores past the caches: the destination would
 * not stay cached anyway, and a cached store first reads the line it writes, a third more
 * memory traffic, which is what a copy waits for when other work shares the memory bus.
 * glibc's memcpy streams one call above its x86 non_temporal_threshold (3/4 of the
 * per-thread share of the last-level cache: 190 MiB on a 2-core guest reporting a 480 MiB
 * L3), so numpy.copyto does too; a copy split into blocks must choose for itself. */
#define STREAMING_COPY_BYTES (128u << 20)
/* A copy between host and device memory of at least this many bytes, below
 * PARALLEL_COPY_BYTES, is shared with the copy engine's thread (copy_engine.c), as the DMA
 * engine that does it on the hardware leaves the CPU that asked for it alone. On the calling
 * core alone it moves twice its size through that core's caches (2 MiB for 1 MiB: all of a
 * 2 MiB L2), evicting the code and data of the host program around it (the interpreter, the
 * runtime's launch and synchronisation paths), which then runs from the last-level cache:
 * measured on a 1 MiB aclrtMemcpyAsync with its Python caller and a stream synchronisation,
 * 25 us more than the copy itself. Shared, with a second core free, each core holds its end
 * of the bytes and they stay cached for whoever reads them next (streaming stores would avoid
 * the eviction too, but made the next kernel on an uploaded 1 MiB array, or the host's first
 * read of a downloaded one, wait for DRAM: 1.5-1.9x slower): a 1 MiB copy takes a third of
 * the time. The engine takes pieces only while some are left, and the caller never waits for
 * more than the piece the engine has in hand: on a machine with more runnable threads than
 * cores the copy simply stays on the caller. */
#define SPLIT_TRANSFER_BYTES (1u << 20)
#define MEMCPY2D_MAX_WIDTH 5000000u
#define MEMCPY2D_MAX_HEIGHT 5242880u

typedef struct {
    char *dst;
    const char *src;
    size_t n, blocks;   /* bytes, blocks of COPY_BLOCK bytes (the last may be shorter) */
    bool streaming;     /* non-temporal stores (STREAMING_COPY_BYTES) */
    atomic_size_t next; /* next block to copy */
} copy_ctx;

/* memcpy with non-temporal stores where the CPU has them (SSE2 on x86-64: 64 bytes, a cache
 * line, per step), then a fence, so that the bytes are visible to whoever synchronises with
 * this thread afterwards; plain memcpy elsewhere. */
static void copy_streaming(char *dst, const char *src, size_t n)
{
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15, i = 0;
    if (head > n) head = n;
    memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
    for (; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), a);
        _mm_stream_si128((__m128i *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(dst + i + 32), c);
        _mm_stream_si128((__m128i *)(dst + i + 48), d);
    }
    memcpy(dst + i, src + i, n - i);
    _mm_sfence();
#else
    memcpy(dst, src, n);
#endif
}

/* Every participant of a parallel copy (the calling thread and the pool's) takes blocks of
 * COPY_BLOCK bytes until none is left, whatever range the pool gave it: a participant that
 * is descheduled mid-copy (a machine with more runnable threads than cores) holds back at
 * most the block in hand, which the others wait for at the end. With the pool's few large
 * ranges instead, the calling thread could finish its own and then sleep while a
 * descheduled helper still had up to an eighth of the copy to do. */
static void copy_blocks(size_t begin, size_t end, void *p)
{
    (void)begin;
    (void)end;
    copy_ctx *c = p;
    for (size_t b; (b = atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed)) < c->blocks;) {
        size_t offset = b * COPY_BLOCK, left = c->n - offset, count = left < COPY_BLOCK ? left : COPY_BLOCK;
        if (c->streaming)
            copy_streaming(c->dst + offset, c->src + offset, count);
        else
            memcpy(c->dst + offset, c->src + offset, count);
    }
}

/* Copies n bytes; `transfer`: between host and device memory (SPLIT_TRANSFER_BYTES). */
static void copy_bytes(void *dst, const void *src, size_t n, bool transfer)
{
    char *d = dst;
    const char *s = src;
    bool overlap = d < s + n && s < d + n;
    if (!overlap && n < PARALLEL_COPY_BYTES && transfer && n >= SPLIT_TRANSFER_BYTES) {
        rt_transfer_copy(dst, src, n);
        return;
    }
    if (overlap || n < PARALLEL_COPY_BYTES) {
        memmove(dst, src, n);
        return;
    }
    copy_ctx c = {.dst = d, .src = s, .n = n, .blocks = (n + COPY_BLOCK - 1) / COPY_BLOCK,
                  .streaming = n >= STREAMING_COPY_BYTES};
    atomic_init(&c.next, 0);
    npusim_parallel_for(c.blocks, 1, copy_blocks, &c);
}

void rt_copy_bytes(void *dst, const void *src, size_t n) { copy_bytes(dst, src, n, false); }

static const char *kind_name(aclrtMemcpyKind kind)
{
    static const char *names[] = {"ACL_MEMCPY_HOST_TO_HOST", "ACL_MEMCPY_HOST_TO_DEVICE",
                                  "ACL_MEMCPY_DEVICE_TO_HOST", "ACL_MEMCPY_DEVICE_TO_DEVICE",
                                  "ACL_MEMCPY_DEFAULT", "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
                                  "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE",
                                  "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE"};
    return (unsigned)kind < 8 ? names[kind] : "invalid kind";
}

static const char *mem_name(rt_mem_kind k)
{
    return k == RT_MEM_DEVICE ? "device memory" : k == RT_MEM_PINNED ? "pinned host memory"
                                                                      : "pageable host memory";
}

/* One side of a copy: where it lives, checked. */
typedef struct { const void *ptr; rt_mem_kind kind; int32_t device; } endpoint;

static endpoint locate(const void *p)
{
    endpoint ep = {p, RT_MEM_PAGEABLE, -1};
    ep.kind = rt_mem_classify(p, &ep.device);
    return ep;
}

/* In the device run mode aclrtMallocHost memory is the board's own memory, which the CPU and
 * every device of the board reach without peer access (it is device-side memory only in
 * that no host transfer is involved). */
static bool board_memory(const endpoint *ep)
{
    return g_rt_config.run_mode == ACL_DEVICE && rt_mem_block_origin(ep->ptr) == RT_ORIGIN_MALLOC_HOST;
}

/* Checks one endpoint of a transfer of n bytes executed on `exec_device` (-1: no context). */
static aclError check_endpoint(const char *api, const char *what, const endpoint *ep, size_t n,
                               int32_t exec_device, bool async)
{
    if (ep->kind == RT_MEM_DEVICE) {
        if (exec_device < 0)
            return npusim_error(ACL_ERROR_RT_CONTEXT_NULL,
                                "%s: %s is device memory but the calling thread has no current "
                                "context (aclrtSetDevice)", api, what);
        if (ep->device != exec_device && !rt_peer_enabled(exec_device, ep->device) &&
            !board_memory(ep))
            return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                                "%s: %s is memory of device %d but the copy runs on device %d, which "
                                "has not enabled peer access to it (aclrtDeviceEnablePeerAccess)",
                                api, what, (int)ep->device, (int)exec_device);
    } else if (async && ep->kind == RT_MEM_PAGEABLE) {
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: %s %p is pageable host memory; asynchronous copies need host memory "
                            "from aclrtMallocHost (CANN would corrupt data silently here)", api, what,
                            ep->ptr);
    }
    return rt_mem_check_live(ep->ptr, n, api, what);
}

/* The direction a copy between dst and src really has, pageable memory counting as host. */
static aclrtMemcpyKind real_kind(const endpoint *dst, const endpoint *src)
{
    bool dd = dst->kind == RT_MEM_DEVICE, sd = src->kind == RT_MEM_DEVICE;
    return sd ? (dd ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_HOST)
              : (dd ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_HOST_TO_HOST);
}

/* The kinds CANN's runtime accepts for a copy involving pageable memory, whose location it
 * cannot see (hicann/runtime src/runtime/api/impl/api_error.cc, MemcpyKindReviseMap): the
 * real direction, or the one that names the pageable side as the other kind of memory. */
static bool pageable_kind_allowed(aclrtMemcpyKind kind, const endpoint *dst, const endpoint *src)
{
    bool dd = dst->kind == RT_MEM_DEVICE, sd = src->kind == RT_MEM_DEVICE;
    bool dp = dst->kind == RT_MEM_PAGEABLE, sp = src->kind == RT_MEM_PAGEABLE;
    if (sp && dp) return true;
    if (sp && dd) return kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    if (sd && dp) return kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    if (dp) return kind == ACL_MEMCPY_HOST_TO_HOST || kind == ACL_MEMCPY_HOST_TO_DEVICE;
    return kind == ACL_MEMCPY_HOST_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_HOST;
}

/* The kind a copy runs with, or -1 when CANN refuses the kind for these pointers.
 *
 * CANN's ACL layer only maps the kind and hands the copy to the runtime without looking at
 * the pointers (hicann/runtime src/acl/aclrt_impl/memory.cpp, aclrtMemcpyImpl). A synchronous
 * copy is then done by address (src/runtime/driver/npu_driver_mem.cc, drvMemcpy), whatever
 * H2H/H2D/D2H/D2D/DEFAULT kind it names. An asynchronous one, in the host run mode, has its
 * kind corrected to the real direction when both pointers are memory the runtime allocated
 * (src/runtime/api/impl/api_error.cc, MemcpyKindAutoCorrect); with pageable memory only the
 * kinds of pageable_kind_allowed pass. So a copy between pinned host memory and device memory
 * named with the "wrong" direction is performed, as on the hardware: npusim performs it too
 * and notes it in the strict-mode log. In the device run mode (ACL_DEVICE) every pointer is
 * device-side memory and no kind is corrected. The other kinds keep their exact meaning. */
static int effective_kind(const char *api, aclrtMemcpyKind kind, const endpoint *dst,
                          const endpoint *src, bool async)
{
    bool dd = dst->kind == RT_MEM_DEVICE, sd = src->kind == RT_MEM_DEVICE;
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: return dd && !sd ? (int)kind : -1;
    case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
        return dd && sd && dst->device == src->device ? (int)kind : -1;
    case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE:
        return dd && sd && dst->device != src->device ? (int)kind : -1;
    default: break;
    }
    if (g_rt_config.run_mode == ACL_DEVICE) return (int)kind;
    aclrtMemcpyKind real = real_kind(dst, src);
    if (kind == ACL_MEMCPY_DEFAULT || kind == real) return (int)real;
    bool keep = async && (dst->kind == RT_MEM_PAGEABLE || src->kind == RT_MEM_PAGEABLE);
    if (keep && !pageable_kind_allowed(kind, dst, src)) return -1;
    rt_note("%s: kind %s names the wrong direction: dst %p is %s, src %p is %s; CANN performs "
            "it as %s", api, kind_name(kind), dst->ptr, mem_name(dst->kind), src->ptr,
            mem_name(src->kind), kind_name(keep ? kind : real));
    return (int)(keep ? kind : real);
}

/* Validates a copy of `count` bytes (rows of `width` bytes for 2-D copies: pass the spans)
 * between dst and src; `transfer` (may be NULL) tells whether one side is device memory and
 * the other host memory. */
static aclError check_copy(const char *api, void *dst, size_t dst_span, const void *src,
                           size_t src_span, aclrtMemcpyKind kind, int32_t exec_device, bool async,
                           bool *transfer)
{
    endpoint d = locate(dst), s = locate(src);
    if (transfer) *transfer = (d.kind == RT_MEM_DEVICE) != (s.kind == RT_MEM_DEVICE);
    int effective = effective_kind(api, kind, &d, &s, async);
    if (effective < 0)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: kind %s does not match the pointers: dst %p is %s, src %p is %s", api,
                            kind_name(kind), dst, mem_name(d.kind), src, mem_name(s.kind));
    /* Documented for the data transfer APIs: no asynchronous copy within the host. */
    if (async && effective == ACL_MEMCPY_HOST_TO_HOST)
        return npusim_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                            "%s: host-to-host copies cannot be asynchronous; use aclrtMemcpy", api);
    aclError rc = check_endpoint(api, "dst", &d, dst_span, exec_device, async);
    if (!rc) rc = check_endpoint(api, "src", &s, src_span, exec_device, async);
    return rc;
}

static aclError check_common(const char *api, const void *dst, size_t destMax, const void *src,
                             size_t count, aclrtMemcpyKind kind)
{
    if (!dst || !src)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, dst ? "src" : "dst");
    if ((unsigned)kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: kind %d is not an aclrtMemcpyKind", api, (int)kind);
    if (count > destMax)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: count %zu is larger than destMax %zu; count must be in (0, destMax]",
                            api, count, destMax);
    return ACL_SUCCESS;
}

/* The race detector's view of a copy on stream s (NULL: by the host, synchronously). */
static aclError race_copy(rt_stream *s, void *dst, size_t dst_span, const void *src, size_t src_span,
                          const char *api)
{
    if (!rt_race_enabled()) return ACL_SUCCESS;
    const npusim_race_access accesses[2] = {{src, src_span, 0}, {dst, dst_span, 1}};
    return s ? rt_race_stream_access(s, accesses, 2, api) : rt_race_host_access(accesses, 2, api);
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    const char *api = "aclrtMemcpy";
    aclError rc = check_common(api, dst, destMax, src, count, kind);
    if (rc || count == 0) return rc;
    if ((rc = rt_capture_check_unsafe(api, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT))) return rc;
    if ((rc = rt_fault(RT_FAULT_MEMCPY, ACL_ERROR_RT_INTERNAL_ERROR, api))) return rc;
    bool transfer;
    if ((rc = check_copy(api, dst, count, src, count, kind, rt_current_device_or_none(), false,
                         &transfer)))
        return rc;
    if ((rc = race_copy(NULL, dst, count, src, count, api))) return rc;
    copy_bytes(dst, src, count, transfer);
    return ACL_SUCCESS;
}

aclError npusim_memcpy_if_idle(void *dst, size_t destMax, const void *src, size_t count,
                               aclrtMemcpyKind kind, aclrtStream stream)
{
    aclrtStreamStatus status;
    if (aclrtStreamQuery(stream, &status) != ACL_SUCCESS || status != ACL_STREAM_STATUS_COMPLETE)
        return NPUSIM_STREAM_BUSY;
    return aclrtMemcpy(dst, destMax, src, count, kind);
}

/* ---- asynchronous copies ---------------------------------------------------------------- */

typedef struct {
    char *dst;
    const char *src;
    size_t width, height, dpitch, spitch;
    size_t dst_span, src_span; /* bytes touched, re-checked at run time */
} copy_task;
/* Stored in the task itself: the kind of copy is told by its task ops, not by a field. */
_Static_assert(sizeof(copy_task) <= RT_TASK_INLINE_BYTES, "copy_task must fit a task's inline data");

/* Runs a copy task; `transfer`: between host and device memory (copy_bytes). */
static int run_copy(copy_task *t, bool transfer)
{
    int rc = rt_mem_check_live(t->dst, t->dst_span, "aclrtMemcpyAsync (when run)", "dst");
    if (!rc) rc = rt_mem_check_live(t->src, t->src_span, "aclrtMemcpyAsync (when run)", "src");
    if (rc) return rc;
    if (t->height == 1) {
        copy_bytes(t->dst, t->src, t->width, transfer);
    } else {
        for (size_t r = 0; r < t->height; r++)
            memmove(t->dst + r * t->dpitch, t->src + r * t->spitch, t->width);
    }
    return 0;
}

static int copy_run(void *p) { return run_copy(p, false); }
static int transfer_run(void *p) { return run_copy(p, true); }

static const npusim_task_ops copy_ops = {"aclrtMemcpyAsync", copy_run, NULL};
static const npusim_task_ops transfer_ops = {"aclrtMemcpyAsync", transfer_run, NULL};
static const npusim_task_ops copy2d_ops = {"aclrtMemcpy2dAsync", copy_run, NULL};

/* CANN turns an asynchronous copy with pageable host memory into a synchronous one, which an
 * active capture's mode may forbid (107041, as for aclrtMemcpy). On a capturing stream it is
 * refused by check_copy instead, as it is everywhere else in npusim. */
static aclError check_pageable_under_capture(const char *api, const void *dst, const void *src,
                                             const rt_stream *s)
{
    if (rt_stream_is_capturing(s)) return ACL_SUCCESS;
    if (locate(dst).kind != RT_MEM_PAGEABLE && locate(src).kind != RT_MEM_PAGEABLE) return ACL_SUCCESS;
    return rt_capture_check_unsafe(api, ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC);
}

/* An asynchronous copy of at most this many bytes takes less time than waking the stream's
 * worker: it may run on the calling thread (rt_submit_inline_short). */
#define SHORT_COPY_BYTES (1u << 20)

static aclError memcpy_async(void *dst, size_t destMax, const void *src, size_t count,
                             aclrtMemcpyKind kind, aclrtStream stream, const char *api)
{
    aclError rc = check_common(api, dst, destMax, src, count, kind);
    if (rc) return rc;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    if (count == 0 || dst == src) return ACL_SUCCESS; /* documented no-ops */
    if ((rc = check_pageable_under_capture(api, dst, src, s))) return rc;
    bool transfer;
    if ((rc = check_copy(api, dst, count, src, count, kind, s->device, true, &transfer))) return rc;
    if ((rc = rt_fault(RT_FAULT_MEMCPY, ACL_ERROR_RT_INTERNAL_ERROR, api))) return rc;
    if ((rc = race_copy(s, dst, count, src, count, api))) return rc;
    copy_task t = {dst, src, count, 1, count, count, count, count};
    const npusim_task_ops *ops = transfer ? &transfer_ops : &copy_ops;
    if (count <= SHORT_COPY_BYTES) return rt_submit_inline_short(s, ops, &t, sizeof t, api);
    return rt_submit_inline(s, ops, &t, sizeof t, api);
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream)
{
    return memcpy_async(dst, destMax, src, count, kind, stream, "aclrtMemcpyAsync");
}

aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src, size_t count,
                                       aclrtMemcpyKind kind, aclrtStream stream)
{
    return memcpy_async(dst, destMax, src, count, kind, stream, "aclrtMemcpyAsyncWithCondition");
}

/* ---- 2-D copies --------------------------------------------------------------------------- */

static aclError check_2d(const char *api, const void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t height, aclrtMemcpyKind kind)
{
    if (!dst || !src) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, dst ? "src" : "dst");
    if (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST &&
        kind != ACL_MEMCPY_DEVICE_TO_DEVICE)
        return npusim_error(ACL_ERROR_INVALID_PARAM,
                            "%s: kind %s is not supported; use H2D, D2H or D2D", api, kind_name(kind));
    if (width > dpitch || width > spitch)
        return npusim_error(ACL_ERROR_INVALID_PARAM,
                            "%s: width %zu must not exceed dpitch %zu or spitch %zu", api, width, dpitch, spitch);
    if (width > MEMCPY2D_MAX_WIDTH || height > MEMCPY2D_MAX_HEIGHT)
        return npusim_error(ACL_ERROR_INVALID_PARAM,
                            "%s: width %zu (max %u) or height %zu (max %u) too large", api, width,
                            MEMCPY2D_MAX_WIDTH, height, MEMCPY2D_MAX_HEIGHT);
    return ACL_SUCCESS;
}

static size_t span_2d(size_t pitch, size_t width, size_t height)
{
    return height == 0 || width == 0 ? 0 : pitch * (height - 1) + width;
}

aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, aclrtMemcpyKind kind)
{
    const char *api = "aclrtMemcpy2d";
    aclError rc = check_2d(api, dst, dpitch, src, spitch, width, height, kind);
    if (rc || width == 0 || height == 0) return rc;
    if ((rc = rt_capture_check_unsafe(api, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT))) return rc;
    size_t ds = span_2d(dpitch, width, height), ss = span_2d(spitch, width, height);
    if ((rc = check_copy(api, dst, ds, src, ss, kind, rt_current_device_or_none(), false, NULL)))
        return rc;
    if ((rc = race_copy(NULL, dst, ds, src, ss, api))) return rc;
    copy_task t = {dst, src, width, height, dpitch, spitch, ds, ss};
    return run_copy(&t, false);
}

aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                            size_t height, aclrtMemcpyKind kind, aclrtStream stream)
{
    const char *api = "aclrtMemcpy2dAsync";
    aclError rc = check_2d(api, dst, dpitch, src, spitch, width, height, kind);
    if (rc) return rc;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s || width == 0 || height == 0) return rc;
    size_t ds = span_2d(dpitch, width, height), ss = span_2d(spitch, width, height);
    if ((rc = check_copy(api, dst, ds, src, ss, kind, s->device, true, NULL))) return rc;
    if ((rc = race_copy(s, dst, ds, src, ss, api))) return rc;
    copy_task t = {dst, src, width, height, dpitch, spitch, ds, ss};
    return rt_submit_inline(s, &copy2d_ops, &t, sizeof t, api);
}

/* ---- memset ----------------------------------------------------------------------------- */

typedef struct { unsigned char *ptr; size_t count; int value; } memset_task;

static int memset_run(void *p)
{
    memset_task *t = p;
    int rc = rt_mem_check_live(t->ptr, t->count, "aclrtMemsetAsync (when run)", "devPtr");
    if (rc) return rc;
    memset(t->ptr, t->value, t->count);
    return 0;
}

static const npusim_task_ops memset_ops = {"aclrtMemsetAsync", memset_run, NULL};

/* Checks a memset target: device memory of `exec_device` (or a peer) or pinned host memory. */
static aclError check_memset(const char *api, void *devPtr, size_t maxCount, size_t count,
                             int32_t exec_device)
{
    if (!devPtr) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (count > maxCount)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID, "%s: count %zu is larger than maxCount %zu",
                            api, count, maxCount);
    if (count == 0) return ACL_SUCCESS;
    endpoint ep = locate(devPtr);
    if (ep.kind == RT_MEM_PAGEABLE)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: devPtr %p is pageable host memory; memset needs memory from "
                            "aclrtMalloc or aclrtMallocHost", api, devPtr);
    return check_endpoint(api, "devPtr", &ep, count, exec_device, false);
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    const char *api = "aclrtMemset";
    aclError rc = check_memset(api, devPtr, maxCount, count, rt_current_device_or_none());
    if (rc || count == 0) return rc;
    if ((rc = rt_capture_check_unsafe(api, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT))) return rc;
    const npusim_race_access write = {devPtr, count, 1};
    if ((rc = rt_race_host_access(&write, 1, api))) return rc;
    memset(devPtr, value & 0xff, count);
    return ACL_SUCCESS;
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)
{
    const char *api = "aclrtMemsetAsync";
    aclError rc = ACL_SUCCESS;
    rt_stream *s = rt_stream_resolve(stream, api, &rc);
    if (!s) return rc;
    if ((rc = check_memset(api, devPtr, maxCount, count, s->device)) || count == 0) return rc;
    const npusim_race_access write = {devPtr, count, 1};
    if ((rc = rt_race_stream_access(s, &write, 1, api))) return rc;
    memset_task t = {devPtr, count, value & 0xff};
    return rt_submit_inline(s, &memset_ops, &t, sizeof t, api);
}
