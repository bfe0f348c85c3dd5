/*
 * A busy ring grows: the writer's side (the producer's is take_offer() in
 * ring.c; the protocol is in ring.h).
 *
 * A thread's ring is sized for a quiet thread (buffer_events), and one that
 * records faster than that ring can hold for GROW_HOLD_NS would lose events
 * whenever the writer is held up that long: the page cache stalls a
 * write(2), or a virtual machine takes the writer's CPU away for a few
 * milliseconds. So the writer measures each ring's rate and, for a busy
 * one, maps a buffer large enough to hold that long (up to the session's
 * ring_max_bytes), faults it in by parts between its passes (never on the
 * emit path, never for long), and offers it to the producer.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GROW_H
#define GGMLVIZ_GROW_H

#include <stdint.h>

#include "ring.h"
#include "writer-types.h"

/*
 * Where a pass may read ring r up to, given the head it read (head first,
 * then moved_at: a head past the move is seen with the move). When the
 * producer has moved to a larger buffer and everything before the move is
 * written, the writer's view follows it first. *clipped is 1 when records
 * may wait in the new buffer: another pass is due at once.
 */
uint64_t ggmlviz__grow_clip(struct ggmlviz__ring *r, uint64_t head, int *clipped);

/*
 * After a pass, for each ring it read (not those of threads that are gone):
 * takes the ring's rate, starts a larger buffer when the ring holds less
 * than GROW_HOLD_NS of it, faults in the next part of one being made, and
 * offers it once whole. Each ring grows to ring_max_bytes at most, and all
 * together by GGMLVIZ__GROW_RINGS times what one may (so that many busy
 * threads, which one writer could not keep up with anyway, do not take
 * gigabytes); reaching that is said once.
 */
#define GGMLVIZ__GROW_RINGS 4u
void ggmlviz__grow_rings(struct ggmlviz__writer *w);

#endif /* GGMLVIZ_GROW_H */
