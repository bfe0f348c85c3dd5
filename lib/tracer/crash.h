/*
 * Saving the rings when the program crashes: handlers for SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE and SIGABRT that drain every ring into the trace with
 * async-signal-safe calls, end the file with a META CRASH record, and give
 * the signal back to the action the program had before.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_CRASH_H
#define GGMLVIZ_CRASH_H

#include "writer-types.h"

/* Installs the handlers for w's session (start); 0 or -errno. */
int ggmlviz__crash_arm(struct ggmlviz__writer *w);

/* Puts the program's actions back, once no handler runs (stop). */
void ggmlviz__crash_disarm(void);

/* In a child after fork(): the parent's writer is not ours. */
void ggmlviz__crash_forget(void);

#endif /* GGMLVIZ_CRASH_H */
