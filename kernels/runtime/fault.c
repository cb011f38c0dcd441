/* Fault injection: NPUSIM_FAULT_INJECT="malloc:N,launch:N,memcpy:N" (any subset, read by
 * aclInit) makes the N-th call (from 1, counted since aclInit) of a kind fail once with the
 * error CANN returns for it, so that tests can check every failure path of a workload:
 *   malloc  aclrtMalloc / MallocAlign32 / MallocCached / MallocHost   207001 (out of memory)
 *   launch  the second phase of an aclnn operator                     361001 (ACLNN_ERR_RUNTIME_ERROR)
 *   memcpy  aclrtMemcpy / aclrtMemcpyAsync                           507000 (ACL_ERROR_RT_INTERNAL_ERROR)
 * The message of each injected failure says it was injected. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

static const char *const g_kind_names[RT_FAULT_KINDS] = {"malloc", "launch", "memcpy"};
static _Atomic uint64_t g_calls[RT_FAULT_KINDS];
static uint64_t g_fail_at[RT_FAULT_KINDS]; /* 0: never */

static aclError bad_spec(const char *spec)
{
    return npusim_error(ACL_ERROR_INVALID_PARAM,
                        "aclInit: environment variable NPUSIM_FAULT_INJECT=\"%s\" is not a list of "
                        "kind:N (kinds malloc, launch, memcpy; N >= 1), e.g. \"malloc:3,launch:10\"",
                        spec);
}

aclError rt_fault_configure(void)
{
    for (int k = 0; k < RT_FAULT_KINDS; k++) {
        atomic_store(&g_calls[k], 0);
        g_fail_at[k] = 0;
    }
    const char *spec = getenv("NPUSIM_FAULT_INJECT");
    if (!spec || !*spec) return ACL_SUCCESS;
    const char *p = spec;
    while (*p) {
        int kind = -1;
        for (int k = 0; k < RT_FAULT_KINDS; k++) {
            size_t n = strlen(g_kind_names[k]);
            if (strncmp(p, g_kind_names[k], n) == 0 && p[n] == ':') { kind = k; p += n + 1; break; }
        }
        if (kind < 0 || !isdigit((unsigned char)*p)) return bad_spec(spec);
        char *end;
        unsigned long long n = strtoull(p, &end, 10);
        if (n == 0 || (*end && *end != ',')) return bad_spec(spec);
        g_fail_at[kind] = n;
        p = *end ? end + 1 : end;
    }
    return ACL_SUCCESS;
}

aclError rt_fault(rt_fault_kind kind, aclError code, const char *api)
{
    if (!g_fail_at[kind]) return ACL_SUCCESS;
    if (atomic_fetch_add(&g_calls[kind], 1) + 1 != g_fail_at[kind]) return ACL_SUCCESS;
    return npusim_error(code, "%s: injected fault (NPUSIM_FAULT_INJECT %s:%llu)", api,
                        g_kind_names[kind], (unsigned long long)g_fail_at[kind]);
}

int npusim_fault_launch(const char *opname, int code) { return rt_fault(RT_FAULT_LAUNCH, code, opname); }
