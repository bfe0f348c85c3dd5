/*
 * The writer's doorbell: the writer sleeps on it between passes, and
 * whoever needs a pass sooner (a producer whose ring passed its bell, a
 * producer waiting for room, stop) rings it. Lock-free: ringing is an
 * atomic increment, and a system call only when the writer sleeps. It
 * calls nothing of the tracer, so any part may ring it.
 *
 * The bell underneath serves the other way round too: a producer in
 * GGMLVIZ_OVERFLOW_BLOCK mode sleeps on its ring's bell, which the writer
 * rings as it gives the ring's room back, so that a full ring costs its
 * thread one sleep rather than a poll that takes the CPU the writer needs.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_DOORBELL_H
#define GGMLVIZ_DOORBELL_H

#include <stdatomic.h>
#include <stdint.h>

/* A futex word that counts rings, and how many threads sleep on it. */
struct ggmlviz__bell {
	_Atomic uint32_t word;
	_Atomic int sleepers;
};

/* Counts a ring, and wakes up to n sleepers (a system call only if there are any). */
void ggmlviz__bell_ring(struct ggmlviz__bell *b, int n);

/* What the bell says now: read it, then look for what you wait for, then wait with it. */
uint32_t ggmlviz__bell_token(struct ggmlviz__bell *b);

/* Sleeps up to ns unless the bell rang since token was read. */
void ggmlviz__bell_wait(struct ggmlviz__bell *b, uint32_t token, uint64_t ns);

/* Wakes the writer if it sleeps. */
void ggmlviz__doorbell_ring(void);

/*
 * What the doorbell says now: read it, then look whether there is work,
 * then ggmlviz__doorbell_wait() with it, and no ring in between is missed.
 */
uint32_t ggmlviz__doorbell_token(void);

/* Sleeps up to ns unless the doorbell rang since token was read. */
void ggmlviz__doorbell_wait(uint32_t token, uint64_t ns);

/* Wake-ups of the writer so far (for the counters and the benchmark). */
uint64_t ggmlviz__doorbell_wakeups(void);

#endif /* GGMLVIZ_DOORBELL_H */
