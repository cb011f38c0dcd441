/* Concurrent misuse of events: six threads create, record, wait on (aclrtStreamWaitEvent),
 * query, synchronise and destroy events held in shared slots, so that a thread often uses an
 * event another thread is destroying at that moment. Every call must return a code (success,
 * 107017 for a destroyed handle, 507006 for a destroy with a pending wait), never crash; run
 * under AddressSanitizer and ThreadSanitizer by tests/npusim/test_adversarial_c.py. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "rt_check.h"

#define THREADS 6
#define SLOTS 4
#define ROUNDS 3000

static _Atomic(aclrtEvent) g_slots[SLOTS];
static aclrtEvent g_created[THREADS][ROUNDS]; /* destroyed at the end (107017 when done already) */
static atomic_int g_bad, g_destroyed, g_stale;

static int allowed(aclError rc, int op)
{
    if (rc == ACL_SUCCESS) return 1;
    if (rc == ACL_ERROR_RT_INVALID_HANDLE) {
        atomic_fetch_add(&g_stale, 1);
        return 1;
    }
    return op == 'd' && rc == ACL_ERROR_RT_EVENT_NOT_COMPLETE;
}

static void note(aclError rc, int op)
{
    if (!allowed(rc, op)) {
        atomic_fetch_add(&g_bad, 1);
        fprintf(stderr, "operation '%c' returned %d (%s)\n", op, rc, aclGetRecentErrMsg());
    }
}

static void *worker(void *arg)
{
    uintptr_t index = (uintptr_t)arg;
    uint64_t seed = (uint64_t)index * 0x9E3779B97F4A7C15ULL + 1;
    int created = 0;
    if (aclrtSetDevice(0) != ACL_SUCCESS) return (void *)1;
    aclrtStream stream;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS) return (void *)1;
    for (int round = 0; round < ROUNDS; round++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        int slot = (int)(seed % SLOTS), op = (int)((seed >> 8) % 7);
        aclrtEvent e = atomic_load(&g_slots[slot]);
        if (!e || op == 0) {
            aclrtEvent fresh;
            if (aclrtCreateEventExWithFlag(&fresh, ACL_EVENT_SYNC) == ACL_SUCCESS) {
                g_created[index][created++] = fresh;
                aclrtEvent old = atomic_exchange(&g_slots[slot], fresh);
                (void)old; /* left to the other threads: they may destroy it while using it */
            }
            continue;
        }
        aclrtEventRecordedStatus status;
        switch (op) {
        case 1: note(aclrtRecordEvent(e, stream), 'r'); break;
        case 2: note(aclrtStreamWaitEvent(stream, e), 'w'); break;
        case 3: note(aclrtQueryEventStatus(e, &status), 'q'); break;
        case 4: note(aclrtSynchronizeEventWithTimeout(e, 1000), 's'); break;
        case 5: note(aclrtSynchronizeStream(stream), 'S'); break;
        default: {
            aclError rc = aclrtDestroyEvent(e);
            note(rc, 'd');
            if (rc == ACL_SUCCESS) atomic_fetch_add(&g_destroyed, 1);
        }
        }
    }
    if (aclrtSynchronizeStream(stream) != ACL_SUCCESS || aclrtDestroyStream(stream) != ACL_SUCCESS)
        return (void *)1;
    return NULL;
}

int main(void)
{
    EXPECT_OK(aclInit(NULL));
    EXPECT_OK(aclrtSetDevice(0));
    pthread_t threads[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, worker, (void *)i);
    int failed_threads = 0;
    for (int i = 0; i < THREADS; i++) {
        void *rc;
        pthread_join(threads[i], &rc);
        failed_threads += rc != NULL;
    }
    EXPECT(failed_threads == 0, "%d worker threads could not set up or tear down", failed_threads);
    EXPECT(atomic_load(&g_bad) == 0, "%d calls returned a code other than 0 / 107017 / 507006",
           atomic_load(&g_bad));
    EXPECT(atomic_load(&g_destroyed) > 0 && atomic_load(&g_stale) > 0,
           "the run destroyed %d events and met %d stale handles: no race was exercised",
           atomic_load(&g_destroyed), atomic_load(&g_stale));
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < ROUNDS && g_created[t][i]; i++) aclrtDestroyEvent(g_created[t][i]);
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return rt_check_summary("rt_event_destroy_race");
}
