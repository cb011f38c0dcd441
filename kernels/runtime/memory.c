/* Device and pinned host memory. Each device owns one virtual region (reserved lazily with
 * MAP_NORESERVE, capacity NPUSIM_DEVICE_MEMORY) and pinned host memory has its own, so where a
 * pointer lives is known from its address; inside a region a first-fit allocator with
 * coalescing keeps the live blocks sorted, which makes every check (freed, overrun, other
 * device) exact. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "racecheck.h"
#include "rt_internal.h"

#define PINNED_REGION RT_MAX_DEVICES
#define PINNED_CAPACITY (64ULL << 30)
#define BLOCK_ALIGN 64
#define HUGE_PAGE (2u << 20)
#define RELEASE_THRESHOLD (1u << 20)

typedef struct { uintptr_t start; size_t size; size_t req; uint32_t page; rt_mem_origin origin; } block;
typedef struct { uintptr_t start; size_t size; } span;

typedef struct region {
    pthread_mutex_t mu;
    /* Bumped (under mu) whenever a block of the region is freed or the region unmapped: a
     * thread's cached answer "this range is live" (live_cache) holds while it is unchanged. */
    _Atomic uint64_t generation;
    _Atomic uintptr_t base;    /* 0 until reserved */
    size_t reserved;           /* bytes of address space */
    size_t limit, used;        /* accounting: capacity and bytes in live blocks */
    block *live;
    size_t nlive, live_cap;
    span *free;
    size_t nfree, free_cap;
} region;

static region g_regions[RT_MAX_DEVICES + 1];
static pthread_once_t g_regions_once = PTHREAD_ONCE_INIT;

static void regions_init(void)
{
    for (int i = 0; i <= RT_MAX_DEVICES; i++) pthread_mutex_init(&g_regions[i].mu, NULL);
}

static size_t region_capacity(int index)
{
    return index == PINNED_REGION ? (size_t)PINNED_CAPACITY : g_rt_config.device_memory;
}

void rt_mem_reset_config(void)
{
    pthread_once(&g_regions_once, regions_init);
    for (int i = 0; i < RT_MAX_DEVICES; i++) {
        region *r = &g_regions[i];
        pthread_mutex_lock(&r->mu);
        uintptr_t base = atomic_load(&r->base);
        if (base && r->nlive == 0 && r->reserved != region_capacity(i)) {
            munmap((void *)base, r->reserved);
            atomic_store(&r->base, 0);
            atomic_fetch_add_explicit(&r->generation, 1, memory_order_release);
            free(r->live); free(r->free);
            r->live = NULL; r->free = NULL;
            r->nlive = r->live_cap = r->nfree = r->free_cap = 0;
            r->used = 0;
        }
        pthread_mutex_unlock(&r->mu);
    }
}

/* Reserves the region's address space on first use. Caller holds r->mu. */
static bool region_reserve(region *r, int index)
{
    if (atomic_load_explicit(&r->base, memory_order_relaxed)) return true;
    size_t cap = region_capacity(index);
    void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return false;
#ifdef MADV_HUGEPAGE
    /* Transparent huge pages where the system gives them on request (its "madvise" mode), as
     * NumPy asks for its large arrays: a kernel streaming through 64 MB of 4 KB pages spends a
     * third of its time on TLB misses (much more in a virtual machine). Advice only: an error
     * (no THP support) changes nothing. */
    (void)madvise(p, cap, MADV_HUGEPAGE);
#endif
    r->free = malloc(16 * sizeof *r->free);
    r->live = malloc(64 * sizeof *r->live);
    if (!r->free || !r->live) { munmap(p, cap); free(r->free); free(r->live); r->free = NULL; r->live = NULL; return false; }
    r->free_cap = 16;
    r->live_cap = 64;
    r->free[0] = (span){(uintptr_t)p, cap};
    r->nfree = 1;
    r->nlive = 0;
    r->reserved = r->limit = cap;
    r->used = 0;
    atomic_store_explicit(&r->base, (uintptr_t)p, memory_order_release);
    return true;
}

static bool grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t ncap = *cap * 2;
    while (ncap < need) ncap *= 2;
    void *p = realloc(*arr, ncap * elem);
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

/* Index of the first live block with start > addr. */
static size_t upper_bound(const region *r, uintptr_t addr)
{
    size_t lo = 0, hi = r->nlive;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->live[mid].start <= addr) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The live block containing addr (within its allocated size), or NULL. Caller holds r->mu. */
static block *find_block(region *r, uintptr_t addr)
{
    size_t i = upper_bound(r, addr);
    if (i == 0) return NULL;
    block *b = &r->live[i - 1];
    return addr < b->start + b->size ? b : NULL;
}

/* The free span a block of `size` bytes aligned to `align` fits in (first fit), or nfree;
 * *start receives the block's aligned start. Caller holds r->mu. */
static size_t fit_span(const region *r, size_t size, size_t align, uintptr_t *start)
{
    for (size_t i = 0; i < r->nfree; i++) {
        uintptr_t s = (r->free[i].start + align - 1) & ~(uintptr_t)(align - 1);
        size_t lead = s - r->free[i].start;
        if (r->free[i].size >= lead && r->free[i].size - lead >= size) { *start = s; return i; }
    }
    return r->nfree;
}

/* Takes [start, start + size) out of free span i, keeping what lies before and after it free.
 * false when out of host memory for the bookkeeping. Caller holds r->mu. */
static bool carve_span(region *r, size_t i, uintptr_t start, size_t size)
{
    span f = r->free[i];
    size_t lead = start - f.start, tail = f.size - lead - size;
    if (lead && tail) {
        if (!grow_array((void **)&r->free, &r->free_cap, r->nfree + 1, sizeof *r->free)) return false;
        memmove(&r->free[i + 2], &r->free[i + 1], (r->nfree - i - 1) * sizeof *r->free);
        r->free[i] = (span){f.start, lead};
        r->free[i + 1] = (span){start + size, tail};
        r->nfree++;
    } else if (lead) {
        r->free[i].size = lead;
    } else if (tail) {
        r->free[i] = (span){start + size, tail};
    } else {
        memmove(&r->free[i], &r->free[i + 1], (r->nfree - i - 1) * sizeof *r->free);
        r->nfree--;
    }
    return true;
}

/* Allocates `padded` bytes (at least `req`) aligned to `align` (a power of two >= BLOCK_ALIGN)
 * in region `index`, remembering which API allocated the block (`origin`). */
static aclError region_alloc(int index, size_t req, size_t padded, size_t align, uint32_t page,
                             rt_mem_origin origin, void **out, const char *api)
{
    pthread_once(&g_regions_once, regions_init);
    region *r = &g_regions[index];
    /* 0 (reported as out of memory below) when rounding up would wrap past SIZE_MAX */
    size_t size = padded > SIZE_MAX - (BLOCK_ALIGN - 1)
                      ? 0 : (padded + BLOCK_ALIGN - 1) & ~(size_t)(BLOCK_ALIGN - 1);
    pthread_mutex_lock(&r->mu);
    aclError rc = ACL_SUCCESS;
    if (!region_reserve(r, index)) {
        rc = npusim_error(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: cannot reserve %zu bytes of address space",
                          api, region_capacity(index));
        goto out;
    }
    uintptr_t start = 0;
    size_t i = fit_span(r, size, align, &start);
    if (padded < req || size < req || i == r->nfree) {
        char where[40];
        if (index == PINNED_REGION) snprintf(where, sizeof where, "pinned host memory");
        else snprintf(where, sizeof where, "device %d (NPUSIM_DEVICE_MEMORY)", index);
        rc = npusim_error(ACL_ERROR_RT_MEMORY_ALLOCATION,
                          "%s: out of memory: %zu bytes requested, %zu of %zu bytes in use on %s", api,
                          req, r->used, r->limit, where);
        goto out;
    }
    if (!grow_array((void **)&r->live, &r->live_cap, r->nlive + 1, sizeof *r->live) ||
        !carve_span(r, i, start, size)) {
        rc = npusim_error(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory for bookkeeping", api);
        goto out;
    }
    size_t at = upper_bound(r, start);
    memmove(&r->live[at + 1], &r->live[at], (r->nlive - at) * sizeof *r->live);
    r->live[at] = (block){start, size, req, page, origin};
    r->nlive++;
    r->used += size;
    *out = (void *)start;
out:
    pthread_mutex_unlock(&r->mu);
    return rc;
}

/* Returns [start, start+size) to the free list, merging with its neighbours. */
static bool add_free_span(region *r, uintptr_t start, size_t size)
{
    size_t lo = 0, hi = r->nfree;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->free[mid].start < start) lo = mid + 1;
        else hi = mid;
    }
    bool merge_prev = lo > 0 && r->free[lo - 1].start + r->free[lo - 1].size == start;
    bool merge_next = lo < r->nfree && start + size == r->free[lo].start;
    if (merge_prev && merge_next) {
        r->free[lo - 1].size += size + r->free[lo].size;
        memmove(&r->free[lo], &r->free[lo + 1], (r->nfree - lo - 1) * sizeof *r->free);
        r->nfree--;
    } else if (merge_prev) {
        r->free[lo - 1].size += size;
    } else if (merge_next) {
        r->free[lo].start = start;
        r->free[lo].size += size;
    } else {
        if (!grow_array((void **)&r->free, &r->free_cap, r->nfree + 1, sizeof *r->free)) return false;
        memmove(&r->free[lo + 1], &r->free[lo], (r->nfree - lo) * sizeof *r->free);
        r->free[lo] = (span){start, size};
        r->nfree++;
    }
    return true;
}

static const char *origin_malloc_name(rt_mem_origin o)
{
    static const char *names[] = {"aclrtMalloc", "aclrtMallocHost", "acldvppMalloc", "hi_mpi_dvpp_malloc"};
    return names[o];
}

static const char *origin_free_name(rt_mem_origin o)
{
    static const char *names[] = {"aclrtFree", "aclrtFreeHost", "acldvppFree", "hi_mpi_dvpp_free"};
    return names[o];
}

/* Frees the block starting at ptr in region `index`, which must have come from `origin`'s
 * allocation function: each kind of memory is freed by its own free call only. Errors carry
 * `bad_code` (the free function's own code for an invalid pointer). */
static aclError region_free(int index, void *ptr, rt_mem_origin origin, int bad_code, const char *api)
{
    pthread_once(&g_regions_once, regions_init);
    region *r = &g_regions[index];
    uintptr_t addr = (uintptr_t)ptr;
    pthread_mutex_lock(&r->mu);
    aclError rc = ACL_SUCCESS;
    size_t i = upper_bound(r, addr);
    if (i == 0 || r->live[i - 1].start != addr) {
        block *inside = find_block(r, addr);
        rc = inside ? npusim_error(bad_code,
                                   "%s: %p is %zu bytes inside the allocation at %p, not its start", api,
                                   ptr, (size_t)(addr - inside->start), (void *)inside->start)
                    : npusim_error(bad_code, "%s: %p was already freed or never allocated", api, ptr);
        goto out;
    }
    block b = r->live[i - 1];
    if (b.origin != origin) {
        rc = npusim_error(bad_code, "%s: %p was allocated by %s; free it with %s", api, ptr,
                          origin_malloc_name(b.origin), origin_free_name(b.origin));
        goto out;
    }
    atomic_fetch_add_explicit(&r->generation, 1, memory_order_release);
    if (!add_free_span(r, b.start, b.size)) {
        rc = npusim_error(ACL_ERROR_RT_MEMORY_FREE, "%s: out of host memory for bookkeeping", api);
        goto out;
    }
    memmove(&r->live[i - 1], &r->live[i], (r->nlive - i) * sizeof *r->live);
    r->nlive--;
    r->used -= b.size;
    /* Give big ranges' pages back to the system, as freeing device memory would. */
    uintptr_t lo = (b.start + 4095) & ~(uintptr_t)4095, hi = (b.start + b.size) & ~(uintptr_t)4095;
    if (hi > lo && hi - lo >= RELEASE_THRESHOLD) madvise((void *)lo, hi - lo, MADV_DONTNEED);
out:
    pthread_mutex_unlock(&r->mu);
    return rc;
}

static bool in_region(const region *r, uintptr_t addr)
{
    uintptr_t base = atomic_load_explicit(&r->base, memory_order_acquire);
    return base && addr >= base && addr - base < r->reserved;
}

rt_mem_kind rt_mem_classify(const void *p, int32_t *device)
{
    uintptr_t addr = (uintptr_t)p;
    pthread_once(&g_regions_once, regions_init);
    for (int32_t i = 0; i < g_rt_config.device_count; i++)
        if (in_region(&g_regions[i], addr)) {
            if (device) *device = i;
            return RT_MEM_DEVICE;
        }
    if (device) *device = -1;
    return in_region(&g_regions[PINNED_REGION], addr) ? RT_MEM_PINNED : RT_MEM_PAGEABLE;
}

bool rt_mem_block_start(const void *p, uintptr_t *start)
{
    int32_t device;
    if (rt_mem_classify(p, &device) != RT_MEM_DEVICE) return false;
    region *r = &g_regions[device];
    pthread_mutex_lock(&r->mu);
    block *b = find_block(r, (uintptr_t)p);
    if (b) *start = b->start;
    pthread_mutex_unlock(&r->mu);
    return b != NULL;
}

/* Every launch checks each of its operands, usually the same few blocks again and again: each
 * thread remembers the live blocks it found last, with the region's generation then. While
 * the generation is unchanged no block of the region was freed, so a range inside a
 * remembered block is still live: no lock, no search. */
#define LIVE_CACHE_SIZE 4
typedef struct { uintptr_t start, end; uint64_t generation; int region; } live_entry;
static _Thread_local live_entry live_cache[LIVE_CACHE_SIZE];
static _Thread_local unsigned live_cache_next;

/* The region index of a remembered live block holding [addr, addr + n), or -1. */
static int live_cache_find(uintptr_t addr, size_t n)
{
    for (int i = 0; i < LIVE_CACHE_SIZE; i++) {
        const live_entry *e = &live_cache[i];
        if (addr >= e->start && addr < e->end && n <= e->end - addr &&
            e->generation == atomic_load_explicit(&g_regions[e->region].generation, memory_order_acquire))
            return e->region;
    }
    return -1;
}

static void live_cache_add(uintptr_t start, size_t req, uint64_t generation, int region)
{
    live_cache[live_cache_next++ % LIVE_CACHE_SIZE] = (live_entry){start, start + req, generation, region};
}

/* rt_mem_check_live of a range in region `index` (device or pinned). */
static aclError check_live_in(int index, const void *p, size_t n, const char *api, const char *what)
{
    region *r = &g_regions[index];
    uintptr_t addr = (uintptr_t)p;
    pthread_mutex_lock(&r->mu);
    block *b = find_block(r, addr);
    bool freed = !b;
    bool overrun = b && (addr - b->start > b->req || n > b->req - (addr - b->start));
    size_t req = b ? b->req : 0;
    uintptr_t start = b ? b->start : 0;
    uint64_t generation = atomic_load_explicit(&r->generation, memory_order_relaxed);
    pthread_mutex_unlock(&r->mu);
    if (!freed && !overrun) {
        live_cache_add(start, req, generation, index);
        return ACL_SUCCESS;
    }
    char where[48];
    if (index == PINNED_REGION) snprintf(where, sizeof where, "pinned host memory");
    else snprintf(where, sizeof where, "device memory of device %d", index);
    if (freed)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: %s %p is %s that was freed or never allocated (use after free?)",
                            api, what, p, where);
    return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                        "%s: %s range [%p, %p + %zu) overruns its allocation of %zu bytes at %p (%s)",
                        api, what, p, p, n, req, (void *)start, where);
}

aclError rt_mem_check_live(const void *p, size_t n, const char *api, const char *what)
{
    if (n && live_cache_find((uintptr_t)p, n) >= 0) return ACL_SUCCESS;
    int32_t device;
    rt_mem_kind kind = rt_mem_classify(p, &device);
    if (kind == RT_MEM_PAGEABLE || n == 0) return ACL_SUCCESS;
    return check_live_in(kind == RT_MEM_PINNED ? PINNED_REGION : device, p, n, api, what);
}

int rt_mem_block_origin(const void *p)
{
    int32_t device;
    rt_mem_kind kind = rt_mem_classify(p, &device);
    if (kind == RT_MEM_PAGEABLE) return -1;
    region *r = &g_regions[kind == RT_MEM_PINNED ? PINNED_REGION : device];
    pthread_mutex_lock(&r->mu);
    block *b = find_block(r, (uintptr_t)p);
    int origin = b ? (int)b->origin : -1;
    pthread_mutex_unlock(&r->mu);
    return origin;
}

aclError npusim_check_device_range(const void *ptr, size_t nbytes, int32_t device, const char *what)
{
    int32_t owner = nbytes ? live_cache_find((uintptr_t)ptr, nbytes) : -1;
    if (owner == device) return ACL_SUCCESS; /* the common case: a live block of this device */
    if (!ptr) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s is NULL", what);
    if (rt_mem_classify(ptr, &owner) != RT_MEM_DEVICE)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s (%p) is host memory, not device memory from aclrtMalloc", what, ptr);
    if (owner != device && !rt_peer_enabled(device, owner))
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s (%p) is memory of device %d, used on device %d without peer access "
                            "(aclrtDeviceEnablePeerAccess)", what, ptr, (int)owner, (int)device);
    return nbytes ? check_live_in(owner, ptr, nbytes, "npusim", what) : ACL_SUCCESS;
}

/* ---- AscendCL API ---------------------------------------------------------------------- */

aclError rt_device_alloc(int32_t device, size_t req, size_t padded, size_t align, uint32_t page,
                         rt_mem_origin origin, void **out, const char *api)
{
    return region_alloc(device, req, padded, align, page, origin, out, api);
}

aclError rt_device_free(void *ptr, rt_mem_origin origin, int bad_code, const char *api)
{
    int32_t device;
    rt_mem_kind kind = rt_mem_classify(ptr, &device);
    if (kind != RT_MEM_DEVICE)
        return npusim_error(bad_code, "%s: %p is %s, not memory from %s%s", api, ptr,
                            kind == RT_MEM_PINNED ? "pinned host memory" : "pageable host memory",
                            origin_malloc_name(origin),
                            kind == RT_MEM_PINNED ? " (free it with aclrtFreeHost)" : "");
    aclError rc = region_free(device, ptr, origin, bad_code, api);
    if (!rc) rt_race_forget_block((uintptr_t)ptr);  /* a later block here starts afresh */
    return rc;
}

static aclError device_malloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy, bool pad32,
                              const char *api)
{
    if (!devPtr) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (size == 0) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: size must be > 0", api);
    rt_context *ctx = rt_current_context(api);
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    aclError rc = rt_fault(RT_FAULT_MALLOC, ACL_ERROR_RT_MEMORY_ALLOCATION, api);
    if (rc) return rc;
    /* CANN rounds the size up to a multiple of 32 and, for aclrtMalloc, adds 32 bytes. */
    size_t rounded = (size + 31) & ~(size_t)31;
    size_t padded = pad32 ? rounded + 32 : rounded;
    if (rounded < size || padded < rounded) padded = 0; /* overflow: reported as out of memory */
    uint32_t page = 4096;
    int base_policy = (int)policy & 0xff;
    if (size > (1u << 20) && base_policy != ACL_MEM_MALLOC_NORMAL_ONLY &&
        base_policy != ACL_MEM_MALLOC_NORMAL_ONLY_P2P)
        page = HUGE_PAGE;
    return region_alloc(ctx->device, size, padded, BLOCK_ALIGN, page, RT_ORIGIN_MALLOC, devPtr, api);
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc(devPtr, size, policy, true, "aclrtMalloc");
}

aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc(devPtr, size, policy, true, "aclrtMallocCached");
}

aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc(devPtr, size, policy, false, "aclrtMallocAlign32");
}

/* aclrtMemFlush / aclrtMemInvalidate: CANN documents that the CPU/NPU cache coherence needs
 * no handling ("无需调用该接口"), so these check their range (live device or pinned memory,
 * size > 0) and do nothing else. */
static aclError cache_maintenance(void *devPtr, size_t size, const char *api)
{
    if (!devPtr) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (size == 0) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: size must be > 0", api);
    if (rt_mem_classify(devPtr, NULL) == RT_MEM_PAGEABLE)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: %p is pageable host memory, not memory of the runtime", api, devPtr);
    return rt_mem_check_live(devPtr, size, api, "devPtr");
}

aclError aclrtMemFlush(void *devPtr, size_t size) { return cache_maintenance(devPtr, size, "aclrtMemFlush"); }

aclError aclrtMemInvalidate(void *devPtr, size_t size)
{
    return cache_maintenance(devPtr, size, "aclrtMemInvalidate");
}

/* In the host run mode (ACL_HOST) pinned host memory; in the device run mode (ACL_DEVICE, the
 * application on the board's CPU) memory of the current context's device, as the data
 * transfer guide says: "AscendCL determines whether the host memory or device memory is
 * allocated based on the run mode". */
aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    const char *api = "aclrtMallocHost";
    if (!hostPtr) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: hostPtr is NULL");
    if (size == 0) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: size must be > 0");
    aclError rc = rt_require_init(api);
    if (!rc) rc = rt_fault(RT_FAULT_MALLOC, ACL_ERROR_RT_MEMORY_ALLOCATION, api);
    if (rc) return rc;
    size_t padded = (size + 63) & ~(size_t)63;
    if (padded < size) padded = 0;
    if (g_rt_config.run_mode == ACL_DEVICE) {
        rt_context *ctx = rt_current_context(api);
        if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
        return region_alloc(ctx->device, size, padded, BLOCK_ALIGN, 4096, RT_ORIGIN_MALLOC_HOST,
                            hostPtr, api);
    }
    return region_alloc(PINNED_REGION, size, padded, BLOCK_ALIGN, 4096, RT_ORIGIN_MALLOC_HOST,
                        hostPtr, api);
}

aclError aclrtFree(void *devPtr)
{
    if (!devPtr) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is NULL");
    return rt_device_free(devPtr, RT_ORIGIN_MALLOC, ACL_ERROR_RT_PARAM_INVALID, "aclrtFree");
}

aclError aclrtFreeHost(void *hostPtr)
{
    if (!hostPtr) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr is NULL");
    int32_t device;
    rt_mem_kind kind = rt_mem_classify(hostPtr, &device);
    if (kind == RT_MEM_PAGEABLE)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "aclrtFreeHost: %p is pageable host memory, not memory from aclrtMallocHost",
                            hostPtr);
    return region_free(kind == RT_MEM_PINNED ? PINNED_REGION : device, hostPtr, RT_ORIGIN_MALLOC_HOST,
                       ACL_ERROR_RT_PARAM_INVALID, "aclrtFreeHost");
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_bytes, size_t *total)
{
    if (!free_bytes || !total)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: free or total is NULL");
    rt_context *ctx = rt_current_context("aclrtGetMemInfo");
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    if ((int)attr < ACL_DDR_MEM || (int)attr > ACL_MEM_P2P_HUGE1G) { /* unsupported: both 0 */
        *free_bytes = *total = 0;
        return ACL_SUCCESS;
    }
    pthread_once(&g_regions_once, regions_init);
    region *r = &g_regions[ctx->device];
    pthread_mutex_lock(&r->mu);
    size_t limit = atomic_load(&r->base) ? r->limit : g_rt_config.device_memory;
    *total = limit;
    *free_bytes = limit - r->used;
    pthread_mutex_unlock(&r->mu);
    return ACL_SUCCESS;
}

aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    if (!ptr || !attributes)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtPointerGetAttributes: %s is NULL",
                            ptr ? "attributes" : "ptr");
    memset(attributes, 0, sizeof *attributes);
    int32_t device;
    rt_mem_kind kind = rt_mem_classify(ptr, &device);
    attributes->pageSize = 4096;
    if (kind == RT_MEM_PAGEABLE) {
        attributes->location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
        return ACL_SUCCESS;
    }
    region *r = &g_regions[kind == RT_MEM_DEVICE ? device : PINNED_REGION];
    pthread_mutex_lock(&r->mu);
    block *b = find_block(r, (uintptr_t)ptr);
    if (b) attributes->pageSize = b->page;
    pthread_mutex_unlock(&r->mu);
    if (kind == RT_MEM_DEVICE) {
        attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        attributes->location.id = (uint32_t)device;
    } else {
        attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
    }
    return ACL_SUCCESS;
}
