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

#endif /* GGMLVIZ_LEAVING_H */
