/* aclInit / aclFinalize and the simulated machine's configuration, read from the environment
 * at aclInit: NPUSIM_DEVICE_COUNT, NPUSIM_DEVICE_MEMORY, NPUSIM_PCIE_SWITCH_SIZE,
 * NPUSIM_RUN_MODE, NPUSIM_STRICT, ASCEND_RT_VISIBLE_DEVICES (and NPUSIM_NUM_THREADS, read by
 * the thread pool). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racecheck.h"
#include "rt_internal.h"

rt_config g_rt_config;
static pthread_mutex_t g_init_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool g_initialized;
static bool g_finalized_once;

bool rt_is_initialized(void) { return atomic_load_explicit(&g_initialized, memory_order_acquire); }

aclError rt_require_init(const char *api)
{
    if (rt_is_initialized()) return rt_check_not_forked(api);
    return npusim_error(ACL_ERROR_UNINITIALIZE, "%s: AscendCL is not initialized; call aclInit first",
                        api);
}

aclError rt_check_device_id(int32_t id, const char *api)
{
    if (id >= 0 && id < g_rt_config.device_count) return ACL_SUCCESS;
    return npusim_error(ACL_ERROR_RT_INVALID_DEVICEID,
                        "%s: deviceId %d is out of range [0, %d) (visible devices)", api, (int)id,
                        (int)g_rt_config.device_count);
}

/* Parses a non-negative decimal integer that fills the whole string. */
static bool parse_u64(const char *s, unsigned long long *out)
{
    if (!s || !*s) return false;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p)) return false;
    errno = 0;
    *out = strtoull(s, NULL, 10);
    return errno == 0;
}

static aclError env_number(const char *name, unsigned long long dflt, unsigned long long min,
                           unsigned long long max, unsigned long long *out)
{
    const char *v = getenv(name);
    if (!v) { *out = dflt; return ACL_SUCCESS; }
    if (!parse_u64(v, out) || *out < min || *out > max)
        return npusim_error(ACL_ERROR_INVALID_PARAM,
                            "aclInit: environment variable %s=\"%s\" is not an integer in [%llu, %llu]",
                            name, v, min, max);
    return ACL_SUCCESS;
}

/* ASCEND_RT_VISIBLE_DEVICES: comma-separated physical ids in strictly ascending order; parsing
 * stops at the first invalid character or invalid id, keeping what came before
 * ("1, 2,3" -> 1; "1,3,8" with 8 devices -> 1,3). */
static void parse_visible(const char *v, int32_t physical_count)
{
    int32_t n = 0, last = -1;
    const char *p = v;
    while (*p && n < RT_MAX_DEVICES) {
        if (!isdigit((unsigned char)*p)) break;
        long id = 0;
        while (isdigit((unsigned char)*p) && id <= RT_MAX_DEVICES) id = id * 10 + (*p++ - '0');
        if (isdigit((unsigned char)*p)) break;          /* absurdly long number */
        if (id >= physical_count || id <= last) break;  /* invalid or not ascending */
        g_rt_config.physical[n++] = (int32_t)id;
        last = (int32_t)id;
        if (*p == ',') p++;
        else break;
    }
    g_rt_config.device_count = n;
}

bool rt_parse_run_mode(aclrtRunMode *mode)
{
    const char *v = getenv("NPUSIM_RUN_MODE");
    if (!v || strcmp(v, "host") == 0) *mode = ACL_HOST;
    else if (strcmp(v, "device") == 0) *mode = ACL_DEVICE;
    else return false;
    return true;
}

static aclError read_config(void)
{
    unsigned long long count, memory, sw;
    aclError rc;
    if (!rt_parse_run_mode(&g_rt_config.run_mode))
        return npusim_error(ACL_ERROR_INVALID_PARAM,
                            "aclInit: environment variable NPUSIM_RUN_MODE=\"%s\" is not \"host\" or "
                            "\"device\"", getenv("NPUSIM_RUN_MODE"));
    if ((rc = rt_notes_configure())) return rc;
    if ((rc = env_number("NPUSIM_DEVICE_COUNT", 8, 0, RT_MAX_DEVICES, &count))) return rc;
    if ((rc = env_number("NPUSIM_DEVICE_MEMORY", 8ULL << 30, 4096, 1ULL << 44, &memory))) return rc;
    if ((rc = env_number("NPUSIM_PCIE_SWITCH_SIZE", 4, 1, RT_MAX_DEVICES, &sw))) return rc;
    g_rt_config.device_memory = (size_t)memory;
    g_rt_config.switch_size = (int32_t)sw;
    const char *visible = getenv("ASCEND_RT_VISIBLE_DEVICES");
    if (visible) {
        parse_visible(visible, (int32_t)count);
    } else {
        g_rt_config.device_count = (int32_t)count;
        for (int32_t i = 0; i < (int32_t)count; i++) g_rt_config.physical[i] = i;
    }
    return ACL_SUCCESS;
}

/* The JSON configuration file must exist and hold a JSON object; npusim has no options. */
static aclError check_config_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return npusim_error(ACL_ERROR_INVALID_FILE, "aclInit: cannot open configPath \"%s\": %s",
                            path, strerror(errno));
    int c;
    do c = fgetc(f); while (c != EOF && isspace(c));
    fclose(f);
    if (c != '{')
        return npusim_error(ACL_ERROR_PARSE_FILE,
                            "aclInit: configPath \"%s\" is not a JSON object (expected '{')", path);
    return ACL_SUCCESS;
}

aclError aclInit(const char *configPath)
{
    rt_fork_install_handlers();
    pthread_mutex_lock(&g_init_mu);
    aclError rc = rt_check_not_forked("aclInit");
    if (!rc && rt_is_initialized())
        rc = npusim_error(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: AscendCL is already initialized");
    if (!rc && configPath) rc = check_config_file(configPath);
    if (!rc) rc = read_config();
    if (!rc) rc = rt_fault_configure();
    if (!rc) rc = rt_race_configure();
    if (!rc) {
        rt_mem_reset_config();
        rt_pool_reset_config();
        atomic_store_explicit(&g_initialized, true, memory_order_release);
    }
    pthread_mutex_unlock(&g_init_mu);
    return rc;
}

aclError aclFinalize(void)
{
    pthread_mutex_lock(&g_init_mu);
    aclError rc = ACL_SUCCESS;
    if (!rt_is_initialized()) {
        rc = g_finalized_once
                 ? npusim_error(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: AscendCL is already finalized")
                 : npusim_error(ACL_ERROR_UNINITIALIZE, "aclFinalize: aclInit was never called");
    } else {
        rt_devices_shutdown();
        atomic_store_explicit(&g_initialized, false, memory_order_release);
        g_finalized_once = true;
    }
    pthread_mutex_unlock(&g_init_mu);
    return rc;
}

aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    if (!majorVersion || !minorVersion || !patchVersion)
        return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetVersion: an output pointer is NULL");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}

const char *aclrtGetSocName(void) { return "Ascend910B1"; }

aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    if (!runMode) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode is NULL");
    /* ACL_HOST: the application runs on a host, the NPU is a PCIe device (EP); ACL_DEVICE: it
     * runs on the board's own CPU (RC). Fixed at aclInit; before it, read from the environment. */
    if (rt_is_initialized()) {
        *runMode = g_rt_config.run_mode;
    } else if (!rt_parse_run_mode(runMode)) {
        return npusim_error(ACL_ERROR_INVALID_PARAM,
                            "aclrtGetRunMode: NPUSIM_RUN_MODE=\"%s\" is not \"host\" or \"device\"",
                            getenv("NPUSIM_RUN_MODE"));
    }
    return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count)
{
    if (!count) return npusim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is NULL");
    aclError rc = rt_require_init("aclrtGetDeviceCount");
    if (rc) return rc;
    *count = (uint32_t)g_rt_config.device_count;
    return ACL_SUCCESS;
}
