/*
 * The writer's doorbell: the writer sleeps on it between passes, and
 * whoever needs a pass sooner (a producer waiting for room, stop) rings
 * it. It calls nothing of the tracer, so any part may ring it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_DOORBELL_H
#define GGMLVIZ_DOORBELL_H

#include <stdatomic.h>
#include <stdint.h>

/* Wakes the writer if it sleeps. */
void ggmlviz__doorbell_ring(void);

/* Sleeps up to ns, until rung or until *stop is set. */
void ggmlviz__doorbell_wait(const _Atomic int *stop, uint64_t ns);

/* In a child after fork(): the lock and condition start over. */
void ggmlviz__doorbell_reset(void);

#endif /* GGMLVIZ_DOORBELL_H */
