/*
 * Reading a mapped file that shrinks: a SIGBUS handler, installed the first
 * time the reader maps a file, that turns a fault inside one of the
 * reader's windows into a page of zeros and a flag the reader then reports
 * as -ESTALE. A fault anywhere else goes to the action the program had.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GUARD_H
#define GGMLVIZ_GUARD_H

#include <stdatomic.h>
#include <stddef.h>

/*
 * Watches [base, base + length): a fault there sets *shrunk. 0, or -ENOSPC
 * when GGMLVIZ__GUARDS windows are watched already (the window is then
 * read unguarded, as a plain mapping).
 */
int ggmlviz__guard_add(const void *base, size_t length, _Atomic int *shrunk);

/* Stops watching the window at base (before it is unmapped). */
void ggmlviz__guard_remove(const void *base);

#define GGMLVIZ__GUARDS 256

#endif /* GGMLVIZ_GUARD_H */
