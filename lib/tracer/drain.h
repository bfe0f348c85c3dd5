/*
 * One pass of the writer over every ring, and the closing TRACE_END.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_DRAIN_H
#define GGMLVIZ_DRAIN_H

#include <stdint.h>

#include "writer-types.h"

/* One pass over every ring; `final` when the rings are quiescent. */
void ggmlviz__drain_pass(struct ggmlviz__writer *w, int final);
/* TRACE_END, after the final pass (unless recording failed). */
void ggmlviz__drain_end(struct ggmlviz__writer *w, uint32_t tid);

#endif /* GGMLVIZ_DRAIN_H */
