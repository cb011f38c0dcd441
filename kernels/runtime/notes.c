/* The strict-mode log: what npusim performs because CANN performs it, but which a careful
 * program would not rely on (e.g. a copy whose kind names the other direction between pinned
 * host memory and device memory, which CANN's runtime corrects by where the pointers live).
 * Enabled by NPUSIM_STRICT=1 at aclInit; npusim never prints: npuarray reads the notes with
 * npusim_take_notes and turns them into Python warnings. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define NOTE_SLOTS 64

static pthread_mutex_t g_notes_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_notes[NOTE_SLOTS][RT_MSG_BYTES];
static size_t g_first, g_count;   /* ring of the latest NOTE_SLOTS notes */
static atomic_bool g_strict;

aclError rt_notes_configure(void)
{
    const char *v = getenv("NPUSIM_STRICT");
    if (v && strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
        return npusim_error(ACL_ERROR_INVALID_PARAM,
                            "aclInit: environment variable NPUSIM_STRICT=\"%s\" is not 0 or 1", v);
    atomic_store(&g_strict, v && strcmp(v, "1") == 0);
    return ACL_SUCCESS;
}

void rt_note(const char *fmt, ...)
{
    if (!atomic_load_explicit(&g_strict, memory_order_relaxed)) return;
    pthread_mutex_lock(&g_notes_mu);
    size_t slot = (g_first + g_count) % NOTE_SLOTS;
    if (g_count == NOTE_SLOTS) g_first = (g_first + 1) % NOTE_SLOTS; /* oldest note dropped */
    else g_count++;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_notes[slot], RT_MSG_BYTES, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&g_notes_mu);
}

size_t npusim_take_notes(char *buf, size_t cap)
{
    pthread_mutex_lock(&g_notes_mu);
    size_t used = 0;
    while (g_count) {
        size_t n = strlen(g_notes[g_first]);
        if (!buf || used + n + 2 > cap) break; /* the rest stays for the next call */
        memcpy(buf + used, g_notes[g_first], n);
        used += n;
        buf[used++] = '\n';
        g_first = (g_first + 1) % NOTE_SLOTS;
        g_count--;
    }
    if (buf && cap) buf[used < cap ? used : cap - 1] = '\0';
    pthread_mutex_unlock(&g_notes_mu);
    return used;
}
