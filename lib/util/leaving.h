/*
 * How this copy of the library leaves the process: with it, at exit(), or
 * before it, unloaded with the shared object that linked it (dlclose).
 * Its destructors tell the two apart: at exit, other threads may still run
 * in the library and nothing of theirs may be freed; unloaded, no thread
 * runs its code any more, and whatever still points into it (a thread
 * key's destructor, a signal handler) must be taken back.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_LEAVING_H
#define GGMLVIZ_LEAVING_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/*
 * Whether the process is exiting: exit() began (an atexit handler of this
 * copy's, registered as it was loaded, has run); 0 in a destructor run
 * because the library is unloaded.
 */
int ggmlviz__process_exiting(void);

/*
 * Calls fn at exit(), or as this copy is unloaded (after its destructors),
 * like atexit() in a shared object. One function for the whole library
 * (the session's stop); 0, or nonzero where it cannot be registered.
 */
int ggmlviz__at_exit(void (*fn)(void));

/*
 * A lock that an exit handler takes (the session's, the GPU's), and whose
 * holder is known: exit() called from a signal handler that interrupted
 * the holder (a program's second Ctrl-C while its exit handler stops the
 * session) runs the exit handlers left on that same thread, which must
 * not wait for it; nor for another thread's for ever.
 */
struct ggmlviz__leave_lock {
	pthread_mutex_t mutex;
	_Atomic uintptr_t owner; /* pthread_self() of its holder, 0 when free */
};
#define GGMLVIZ__LEAVE_LOCK_INIT { PTHREAD_MUTEX_INITIALIZER, 0 }

/* How long an exit handler waits for another thread that holds such a lock. */
#define GGMLVIZ__EXIT_WAIT_MS 2000

void ggmlviz__leave_lock(struct ggmlviz__leave_lock *l);
void ggmlviz__leave_unlock(struct ggmlviz__leave_lock *l);
/*
 * For an exit handler: 1 with the lock held; 0 when this thread holds it
 * already (an exit() that interrupted its holder: what it was doing stays
 * undone), or another thread held it for GGMLVIZ__EXIT_WAIT_MS.
 */
int ggmlviz__leave_lock_at_exit(struct ggmlviz__leave_lock *l);
/* Whether this thread holds l. */
int ggmlviz__leave_lock_mine(struct ggmlviz__leave_lock *l);
/* In the child of a fork(): l free again, whoever held it in the parent. */
void ggmlviz__leave_lock_reset(struct ggmlviz__leave_lock *l);

/*
 * The library's other locks (the thread registry's, the shares', the
 * settings', the kernels'), which a stop may take too: each thread counts
 * those it holds, so that an exit handler run by exit() from a signal
 * handler that interrupted such a holder leaves the trace where it is
 * rather than wait on that thread's own lock for ever (a second Ctrl-C as
 * a thread ends, its ring leaving the registry). The count goes up before
 * the lock is taken and down after it is given back: a signal between the
 * two errs towards leaving the trace incomplete, never towards a hang.
 */
void ggmlviz__inner_lock(pthread_mutex_t *m);
void ggmlviz__inner_unlock(pthread_mutex_t *m);
/*
 * For an exit handler: 1 with the lock held; 0 when another thread held it
 * for GGMLVIZ__EXIT_WAIT_MS (it may wait on a lock of the C library that
 * the thread exit() interrupted holds: malloc's, as it frees).
 */
int ggmlviz__inner_lock_at_exit(pthread_mutex_t *m);
/* How many of those locks this thread holds or is taking: 0 when none. */
int ggmlviz__inner_locks_held(void);

#endif /* GGMLVIZ_LEAVING_H */
