/* Per-thread error state: the code and message of the latest failure of this thread. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt_internal.h"

static _Thread_local char tls_message[RT_MSG_BYTES];
static _Thread_local bool tls_has_message;
static _Thread_local char tls_returned[RT_MSG_BYTES]; /* what aclGetRecentErrMsg handed out */
static _Thread_local aclError tls_last_error;

int npusim_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_message, sizeof tls_message, fmt, ap);
    va_end(ap);
    tls_has_message = true;
    tls_last_error = code;
    return code;
}

const char *rt_thread_message(void) { return tls_has_message ? tls_message : ""; }

void rt_error_save(rt_error_state *state)
{
    state->last_error = tls_last_error;
    state->has_message = tls_has_message;
    if (tls_has_message) memcpy(state->message, tls_message, sizeof state->message);
}

void rt_error_restore(const rt_error_state *state)
{
    tls_last_error = state->last_error;
    tls_has_message = state->has_message;
    if (state->has_message) memcpy(tls_message, state->message, sizeof tls_message);
    else tls_message[0] = '\0';
}

/* Returns and clears this thread's latest message; NULL when there is none. The pointer stays
 * valid until the next call on this thread. */
const char *aclGetRecentErrMsg(void)
{
    if (!tls_has_message) return NULL;
    memcpy(tls_returned, tls_message, sizeof tls_returned);
    tls_has_message = false;
    tls_message[0] = '\0';
    return tls_returned;
}

aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL) return ACL_ERROR_INVALID_PARAM;
    aclError code = tls_last_error;
    tls_last_error = ACL_SUCCESS;
    return code;
}

aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL) return ACL_ERROR_INVALID_PARAM;
    return tls_last_error;
}
