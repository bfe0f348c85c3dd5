/*
 * How the library leaves the process (see leaving.h).
 *
 * At exit(), the atexit handlers run before any object's destructors; at
 * dlclose(), an object's destructors run before the atexit handlers it
 * registered (glibc runs those from its last destructor, __cxa_finalize).
 * So a handler registered as the library is loaded has run by the time
 * its destructors run at exit, and not yet when it is unloaded.
 *
 * Handlers are registered with the object that holds this copy
 * (__cxa_atexit with its __dso_handle, as atexit() in a shared object
 * does): a sanitizer's atexit() would register them with the program,
 * to be called at its exit, after the object was unloaded.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include "util/leaving.h"

extern void *__dso_handle __attribute__((visibility("hidden")));
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);

static _Atomic int exiting;
static void (*_Atomic exit_fn)(void);

static void at_exit(void *unused)
{
	(void)unused;
	atomic_store(&exiting, 1);
}

static void call_exit_fn(void *unused)
{
	void (*fn)(void) = atomic_load(&exit_fn);

	(void)unused;
	if (fn)
		fn();
}

__attribute__((constructor)) static void at_load(void)
{
	if (__cxa_atexit(at_exit, NULL, &__dso_handle) != 0)
		atomic_store(&exiting, 1); /* cannot tell: as at exit, nothing is taken back */
}

int ggmlviz__process_exiting(void)
{
	return atomic_load(&exiting);
}

int ggmlviz__at_exit(void (*fn)(void))
{
	atomic_store(&exit_fn, fn);
	return __cxa_atexit(call_exit_fn, NULL, &__dso_handle);
}

/* ---- locks an exit handler takes ---- */

static uintptr_t self(void)
{
	return (uintptr_t)pthread_self();
}

void ggmlviz__leave_lock(struct ggmlviz__leave_lock *l)
{
	pthread_mutex_lock(&l->mutex);
	atomic_store_explicit(&l->owner, self(), memory_order_relaxed);
}

void ggmlviz__leave_unlock(struct ggmlviz__leave_lock *l)
{
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	pthread_mutex_unlock(&l->mutex);
}

int ggmlviz__leave_lock_mine(struct ggmlviz__leave_lock *l)
{
	return atomic_load_explicit(&l->owner, memory_order_relaxed) == self();
}

/* GGMLVIZ__EXIT_WAIT_MS from now, on the clock pthread_mutex_timedlock() reads. */
static struct timespec exit_deadline(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += GGMLVIZ__EXIT_WAIT_MS / 1000;
	until.tv_nsec += (GGMLVIZ__EXIT_WAIT_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L)
		until.tv_sec++, until.tv_nsec -= 1000000000L;
	return until;
}

int ggmlviz__leave_lock_at_exit(struct ggmlviz__leave_lock *l)
{
	struct timespec until = exit_deadline();

	if (ggmlviz__leave_lock_mine(l))
		return 0;
	if (pthread_mutex_timedlock(&l->mutex, &until) != 0)
		return 0;
	atomic_store_explicit(&l->owner, self(), memory_order_relaxed);
	return 1;
}

/* ---- the library's other locks ---- */

static _Thread_local int inner_held __attribute__((tls_model("initial-exec")));

void ggmlviz__inner_lock(pthread_mutex_t *m)
{
	inner_held++;
	atomic_signal_fence(memory_order_seq_cst); /* counted before the lock is asked */
	pthread_mutex_lock(m);
}

void ggmlviz__inner_unlock(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
	atomic_signal_fence(memory_order_seq_cst); /* uncounted once it is given back */
	inner_held--;
}

int ggmlviz__inner_lock_at_exit(pthread_mutex_t *m)
{
	struct timespec until = exit_deadline();

	inner_held++;
	atomic_signal_fence(memory_order_seq_cst);
	if (pthread_mutex_timedlock(m, &until) == 0)
		return 1;
	atomic_signal_fence(memory_order_seq_cst);
	inner_held--;
	return 0;
}

int ggmlviz__inner_locks_held(void)
{
	return inner_held;
}

void ggmlviz__leave_lock_reset(struct ggmlviz__leave_lock *l)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	l->mutex = fresh;
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
}
