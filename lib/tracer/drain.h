/*
 * One pass of the writer over every ring, and the closing TRACE_END.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_DRAIN_H
#define GGMLVIZ_DRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "writer-types.h"

/* Scratch for the first passes (16 rings), before any thread registers; 0 or -ENOMEM. */
int ggmlviz__drain_prepare(struct ggmlviz__writer *w);

/*
 * One pass over every ring; `final` when the rings are quiescent. Returns
 * how many rings it drained only up to their move to a larger buffer
 * (grow.h): another pass is due at once. 0 when a crash handler has the
 * writer.
 */
size_t ggmlviz__drain_pass(struct ggmlviz__writer *w, int final);
/* TRACE_END, after the final pass. */
void ggmlviz__drain_end(struct ggmlviz__writer *w, uint32_t tid);
/*
 * From a crash handler: takes the writer over for good (waiting a second at
 * most for its pass to end), drains every ring as a final pass, and ends
 * the file with META CRASH (key: sig). Async-signal-safe: no lock, no
 * allocation, no stdio (munmap(2) of a ring's old buffer: a system call).
 */
void ggmlviz__drain_crash(struct ggmlviz__writer *w, int sig);

#endif /* GGMLVIZ_DRAIN_H */
