/*
 * When the writer drains: every flush interval at the latest, and as soon
 * as a producer rings the doorbell because its ring passed its bell (about
 * 1 MiB of records, or a quarter of a smaller ring).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_PACE_H
#define GGMLVIZ_PACE_H

#include "writer-types.h"

/* Is a pass due (flush interval passed, a ring past its bell, a thread gone)? */
int ggmlviz__pace_due(const struct ggmlviz__writer *w);
/* A pass is done: the flush interval starts again. */
void ggmlviz__pace_passed(struct ggmlviz__writer *w);
/* How long to sleep, unless rung: until the flush interval ends. */
uint64_t ggmlviz__pace_sleep(const struct ggmlviz__writer *w);

#endif /* GGMLVIZ_PACE_H */
