/* fork() and the simulated device. A child of fork() has a copy of the runtime's memory but
 * none of its threads (stream workers, the kernel pool): waiting for a stream there would
 * never return. As CUDA does, the child gets an error from every runtime call instead.
 *
 * The parent must not fork while a kernel runs: math libraries with fork handlers of their
 * own (OpenBLAS shuts its thread pool down before fork) deadlock when one of their calls
 * is in flight on another thread. Kernels therefore run under a read lock that the fork
 * handler takes for writing, so fork() waits for the running kernels (not for queued work)
 * and no kernel starts until it returns. Writers are preferred: a stream of kernels cannot
 * postpone a fork for ever. Host functions do not take the lock (they may need the GIL
 * that the forking thread holds). Fork handlers run in reverse order of registration, so the
 * BLAS library the kernels use (NPUSIM_BLAS_LIBRARY, loaded lazily by matmul.c) is loaded
 * before ours is registered: ours then runs first and waits for the kernels. */
#include <dlfcn.h>
#include <stdlib.h>

#include "rt_internal.h"

static pthread_rwlock_t g_kernel_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static pthread_once_t g_handlers_once = PTHREAD_ONCE_INIT;
static atomic_bool g_forked;

static void before_fork(void) { pthread_rwlock_wrlock(&g_kernel_lock); }

static void after_fork_in_parent(void) { pthread_rwlock_unlock(&g_kernel_lock); }

static void after_fork_in_child(void)
{
    pthread_rwlock_unlock(&g_kernel_lock); /* held by this thread, the child's only one */
    if (rt_is_initialized()) atomic_store_explicit(&g_forked, true, memory_order_release);
}

static void install_handlers(void)
{
    const char *blas = getenv("NPUSIM_BLAS_LIBRARY");
    if (blas && *blas) (void)dlopen(blas, RTLD_NOW | RTLD_LOCAL); /* stays loaded; errors: matmul.c */
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

void rt_fork_install_handlers(void) { pthread_once(&g_handlers_once, install_handlers); }

aclError rt_check_not_forked(const char *api)
{
    if (!atomic_load_explicit(&g_forked, memory_order_acquire)) return ACL_SUCCESS;
    return npusim_error(ACL_ERROR_UNINITIALIZE,
                        "%s: this process was created by fork() after AscendCL was initialized "
                        "in its parent; the runtime's threads do not exist here. Initialize the "
                        "runtime in a fresh process (spawn / exec) instead", api);
}

void npusim_kernel_begin(void) { pthread_rwlock_rdlock(&g_kernel_lock); }

void npusim_kernel_end(void) { pthread_rwlock_unlock(&g_kernel_lock); }
