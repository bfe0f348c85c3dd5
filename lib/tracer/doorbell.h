/*
 * The writer's doorbell: the writer sleeps on it between passes, and
 * whoever needs a pass sooner (a producer whose ring passed its bell, a
 * producer waiting for room, stop) rings it. Lock-free: ringing is an
 * atomic increment, and a system call only when the writer sleeps. It
 * calls nothing of the tracer, so any part may ring it.
 *
 * The other way round, producers in GGMLVIZ_OVERFLOW_BLOCK mode sleep on
 * the writer's passes: each pass that moved tails says so, waking them
 * (a system call only when one waits), so that a full ring costs its
 * thread one sleep until room is made rather than a poll that takes the
 * CPU the writer needs.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_DOORBELL_H
#define GGMLVIZ_DOORBELL_H

#include <stdatomic.h>
#include <stdint.h>

/* Wakes the writer if it sleeps. */
void ggmlviz__doorbell_ring(void);

/*
 * What the doorbell says now: read it, then look whether there is work,
 * then ggmlviz__doorbell_wait() with it, and no ring in between is missed.
 */
uint32_t ggmlviz__doorbell_token(void);

/* Sleeps up to ns unless the doorbell rang since token was read. */
void ggmlviz__doorbell_wait(uint32_t token, uint64_t ns);

/* What the writer's passes say now: read it, then look for room, then wait with it. */
uint32_t ggmlviz__doorbell_room_token(void);

/* Sleeps up to ns unless a pass made room since token was read. */
void ggmlviz__doorbell_room_wait(uint32_t token, uint64_t ns);

/* A pass moved tails: wakes every producer waiting for room. */
void ggmlviz__doorbell_room_made(void);

/* Wake-ups of the writer so far (for the counters and the benchmark). */
uint64_t ggmlviz__doorbell_wakeups(void);

#endif /* GGMLVIZ_DOORBELL_H */
