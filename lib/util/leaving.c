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
