/*
 * When the writer drains: every flush interval at the latest, and as soon
 * as a ring fills past its drain target.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_PACE_H
#define GGMLVIZ_PACE_H

#include "writer-types.h"

/* Is a pass due (flush interval passed, or a ring filling up)? */
int ggmlviz__pace_due(const struct ggmlviz__writer *w);
/* After a pass, how long to sleep before looking again. */
void ggmlviz__pace_plan_sleep(struct ggmlviz__writer *w);

#endif /* GGMLVIZ_PACE_H */
