/* Devices, contexts and peer access. aclrtSetDevice reference-counts a device and gives it a
 * default context with its own default stream; the current context is thread-local. */
#include <stdlib.h>

#include "rt_internal.h"

typedef struct rt_device {
    pthread_mutex_t mu;
    int refcount;                 /* aclrtSetDevice calls not yet reset */
    rt_context *default_ctx;
    _Atomic uint64_t peer_mask;   /* bit j: this device may access device j's memory */
    rt_stream *streams;           /* every stream of the device */
    pthread_cond_t unpinned;      /* a device synchronisation released its streams */
    int32_t next_stream_id;
} rt_device;

static rt_device g_devices[RT_MAX_DEVICES];
static pthread_once_t g_devices_once = PTHREAD_ONCE_INIT;
static _Thread_local rt_context *tls_ctx;

static void devices_init(void)
{
    for (int i = 0; i < RT_MAX_DEVICES; i++) {
        pthread_mutex_init(&g_devices[i].mu, NULL);
        pthread_cond_init(&g_devices[i].unpinned, NULL);
    }
}

static rt_device *device_at(int32_t id)
{
    pthread_once(&g_devices_once, devices_init);
    return &g_devices[id];
}

rt_context *rt_current_context(const char *api)
{
    if (rt_check_not_forked(api)) return NULL;
    rt_context *ctx = tls_ctx;
    if (ctx && rt_handle_is(ctx, RT_HANDLE_CONTEXT)) return ctx;
    tls_ctx = NULL;
    npusim_error(ACL_ERROR_RT_CONTEXT_NULL,
                 "%s: the calling thread has no current context; call aclrtSetDevice or "
                 "aclrtSetCurrentContext first", api);
    return NULL;
}

int32_t rt_current_device_or_none(void)
{
    rt_context *ctx = tls_ctx;
    return ctx && rt_handle_is(ctx, RT_HANDLE_CONTEXT) ? ctx->device : -1;
}

static rt_context *context_new(int32_t device, bool is_default, aclError *err)
{
    rt_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        *err = npusim_error(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "out of host memory for a context");
        return NULL;
    }
    ctx->device = device;
    ctx->is_default = is_default;
    ctx->default_stream = rt_stream_new(device, true, 0, 0, err);
    if (!ctx->default_stream) { free(ctx); return NULL; }
    if (!rt_handle_add(ctx, RT_HANDLE_CONTEXT)) {
        rt_stream_free(ctx->default_stream, false);
        free(ctx);
        *err = npusim_error(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "out of host memory for a context");
        return NULL;
    }
    return ctx;
}

static void context_free(rt_context *ctx)
{
    rt_handle_remove(ctx);
    if (tls_ctx == ctx) tls_ctx = NULL;
    rt_stream_free(ctx->default_stream, true);
    free(ctx);
}

aclError aclrtSetDevice(int32_t deviceId)
{
    aclError rc = rt_require_init("aclrtSetDevice");
    if (rc || (rc = rt_check_device_id(deviceId, "aclrtSetDevice"))) return rc;
    rt_device *d = device_at(deviceId);
    pthread_mutex_lock(&d->mu);
    rt_context *ctx = d->default_ctx;
    pthread_mutex_unlock(&d->mu);
    /* Created outside the device lock: making its default stream takes that lock. */
    rt_context *fresh = ctx ? NULL : context_new(deviceId, true, &rc);
    if (!ctx && !fresh) return rc;
    pthread_mutex_lock(&d->mu);
    if (!d->default_ctx) {
        d->default_ctx = fresh;
        fresh = NULL;
    }
    d->refcount++;
    tls_ctx = d->default_ctx;
    pthread_mutex_unlock(&d->mu);
    if (fresh) context_free(fresh); /* another thread made it first */
    return ACL_SUCCESS;
}

static aclError reset_device(int32_t deviceId, bool force, const char *api)
{
    aclError rc = rt_require_init(api);
    if (rc || (rc = rt_check_device_id(deviceId, api))) return rc;
    rt_device *d = device_at(deviceId);
    pthread_mutex_lock(&d->mu);
    rt_context *dead = NULL;
    if (d->refcount > 0 && (force || --d->refcount == 0)) {
        d->refcount = 0;
        dead = d->default_ctx;
        d->default_ctx = NULL;
        atomic_store(&d->peer_mask, 0);
    }
    pthread_mutex_unlock(&d->mu);
    if (dead) context_free(dead);
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) { return reset_device(deviceId, false, "aclrtResetDevice"); }

aclError aclrtResetDeviceForce(int32_t deviceId)
{
    return reset_device(deviceId, true, "aclrtResetDeviceForce");
}

aclError aclrtGetDevice(int32_t *deviceId)
{
    if (!deviceId) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is NULL");
    rt_context *ctx = rt_current_context("aclrtGetDevice");
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    *deviceId = ctx->device;
    return ACL_SUCCESS;
}

void rt_devices_shutdown(void)
{
    for (int32_t i = 0; i < RT_MAX_DEVICES; i++) {
        rt_device *d = device_at(i);
        pthread_mutex_lock(&d->mu);
        rt_context *dead = d->default_ctx;
        d->default_ctx = NULL;
        d->refcount = 0;
        atomic_store(&d->peer_mask, 0);
        pthread_mutex_unlock(&d->mu);
        if (dead) context_free(dead);
    }
    tls_ctx = NULL;
}

/* ---- explicit contexts ----------------------------------------------------------------- */

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    if (!context) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is NULL");
    aclError rc = rt_require_init("aclrtCreateContext");
    if (rc || (rc = rt_check_device_id(deviceId, "aclrtCreateContext"))) return rc;
    rt_context *ctx = context_new(deviceId, false, &rc);
    if (!ctx) return rc;
    tls_ctx = ctx;
    *context = ctx;
    return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context)
{
    if (!context) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: context is NULL");
    rt_context *ctx = context;
    if (!rt_handle_is(ctx, RT_HANDLE_CONTEXT) || ctx->is_default)
        return npusim_error(ACL_ERROR_RT_INVALID_HANDLE,
                            "aclrtDestroyContext: %p is not a live context from aclrtCreateContext "
                            "(destroyed twice, or a default context)", context);
    context_free(ctx);
    return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context)
{
    if (!context) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext: context is NULL");
    if (!rt_handle_is(context, RT_HANDLE_CONTEXT))
        return npusim_error(ACL_ERROR_RT_INVALID_HANDLE,
                            "aclrtSetCurrentContext: %p is not a live context", context);
    tls_ctx = context;
    return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext *context)
{
    if (!context) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is NULL");
    rt_context *ctx = rt_current_context("aclrtGetCurrentContext");
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    *context = ctx;
    return ACL_SUCCESS;
}

aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    if (!stream)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetCurrentDefaultStream: stream is NULL");
    rt_context *ctx = rt_current_context("aclrtCtxGetCurrentDefaultStream");
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    *stream = ctx->default_stream;
    return ACL_SUCCESS;
}

/* ---- streams of a device ---------------------------------------------------------------- */

void rt_device_link_stream(rt_stream *s)
{
    rt_device *d = device_at(s->device);
    pthread_mutex_lock(&d->mu);
    s->id = d->next_stream_id++;
    s->next_on_device = d->streams;
    d->streams = s;
    pthread_mutex_unlock(&d->mu);
}

void rt_device_unlink_stream(rt_stream *s)
{
    rt_device *d = device_at(s->device);
    pthread_mutex_lock(&d->mu);
    for (rt_stream **p = &d->streams; *p; p = &(*p)->next_on_device)
        if (*p == s) { *p = s->next_on_device; break; }
    while (s->device_pins > 0) pthread_cond_wait(&d->unpinned, &d->mu);
    pthread_mutex_unlock(&d->mu);
}

/* Waits for every stream of the device. The streams are pinned (a concurrent destroy waits)
 * and waited for without the device lock, so other threads keep creating streams meanwhile. */
aclError rt_device_synchronize(int32_t device, int32_t timeout_ms, const char *api)
{
    rt_device *d = device_at(device);
    aclError first = ACL_SUCCESS;
    pthread_mutex_lock(&d->mu);
    size_t n = 0;
    for (rt_stream *s = d->streams; s; s = s->next_on_device) {
        n++;
        if (!first && rt_stream_is_capturing(s))
            first = npusim_error(ACL_ERROR_RT_STREAM_CAPTURED,
                                 "%s: stream %d of device %d is capturing; synchronisation is "
                                 "not allowed during capture", api, (int)s->id, (int)device);
    }
    rt_stream **pinned = first ? NULL : malloc((n ? n : 1) * sizeof *pinned);
    if (!first && !pinned)
        first = npusim_error(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%s: out of host memory", api);
    n = 0;
    for (rt_stream *s = d->streams; s && pinned; s = s->next_on_device) {
        s->device_pins++;
        pinned[n++] = s;
    }
    pthread_mutex_unlock(&d->mu);
    for (size_t i = 0; i < n; i++) {
        aclError rc = rt_stream_wait_idle(pinned[i], timeout_ms, api);
        if (rc && !first) first = rc;
    }
    pthread_mutex_lock(&d->mu);
    for (size_t i = 0; i < n; i++) pinned[i]->device_pins--;
    pthread_cond_broadcast(&d->unpinned);
    pthread_mutex_unlock(&d->mu);
    free(pinned);
    return first;
}

static aclError sync_device(int32_t timeout, const char *api)
{
    if (timeout == 0 || timeout < -1)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: timeout %d must be -1 (wait forever) or > 0 ms", api, (int)timeout);
    rt_context *ctx = rt_current_context(api);
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    return rt_device_synchronize(ctx->device, timeout, api);
}

aclError aclrtSynchronizeDevice(void) { return sync_device(-1, "aclrtSynchronizeDevice"); }

aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    return sync_device(timeout, "aclrtSynchronizeDeviceWithTimeout");
}

/* ---- peers ------------------------------------------------------------------------------ */

static bool same_switch(int32_t a, int32_t b)
{
    int32_t sw = g_rt_config.switch_size;
    return g_rt_config.physical[a] / sw == g_rt_config.physical[b] / sw;
}

bool rt_peer_enabled(int32_t from, int32_t to)
{
    if (from == to) return true;
    if (from < 0 || to < 0) return false;
    return (atomic_load_explicit(&device_at(from)->peer_mask, memory_order_acquire) >> to) & 1u;
}

aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    const char *api = "aclrtDeviceCanAccessPeer";
    if (!canAccessPeer) return npusim_error(ACL_ERROR_INVALID_PARAM, "%s: canAccessPeer is NULL", api);
    aclError rc = rt_require_init(api);
    if (rc || (rc = rt_check_device_id(deviceId, api)) || (rc = rt_check_device_id(peerDeviceId, api)))
        return rc;
    if (deviceId == peerDeviceId)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID, "%s: deviceId and peerDeviceId are both %d",
                            api, (int)deviceId);
    *canAccessPeer = same_switch(deviceId, peerDeviceId) ? 1 : 0;
    return ACL_SUCCESS;
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    const char *api = "aclrtDeviceEnablePeerAccess";
    if (flags != 0) return npusim_error(ACL_ERROR_RT_PARAM_INVALID, "%s: flags must be 0, got %u", api, flags);
    rt_context *ctx = rt_current_context(api);
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    aclError rc = rt_check_device_id(peerDeviceId, api);
    if (rc) return rc;
    if (peerDeviceId == ctx->device)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID, "%s: peerDeviceId %d is the current device",
                            api, (int)peerDeviceId);
    if (!same_switch(ctx->device, peerDeviceId))
        return npusim_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                            "%s: devices %d and %d are not under the same PCIe switch "
                            "(NPUSIM_PCIE_SWITCH_SIZE=%d); see aclrtDeviceCanAccessPeer", api,
                            (int)ctx->device, (int)peerDeviceId, (int)g_rt_config.switch_size);
    atomic_fetch_or(&device_at(ctx->device)->peer_mask, 1ULL << peerDeviceId);
    return ACL_SUCCESS;
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    const char *api = "aclrtDeviceDisablePeerAccess";
    rt_context *ctx = rt_current_context(api);
    if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
    aclError rc = rt_check_device_id(peerDeviceId, api);
    if (rc) return rc;
    if (!rt_peer_enabled(ctx->device, peerDeviceId) || peerDeviceId == ctx->device)
        return npusim_error(ACL_ERROR_RT_PARAM_INVALID,
                            "%s: peer access from device %d to device %d is not enabled", api,
                            (int)ctx->device, (int)peerDeviceId);
    atomic_fetch_and(&device_at(ctx->device)->peer_mask, ~(1ULL << peerDeviceId));
    return ACL_SUCCESS;
}
