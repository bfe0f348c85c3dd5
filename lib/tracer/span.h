/*
 * Spans of a ring's records, as the writer handles them: walking them
 * (counting events and the producer's DROPPED notes, converting raw stamps
 * to nanoseconds) and queueing their bytes for a batch written with one writev(2).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_SPAN_H
#define GGMLVIZ_SPAN_H

#include <stdint.h>

#include "ring.h"
#include "writer-types.h"

/* What a walk over records passed. */
struct ggmlviz__scan {
	uint64_t events; /* events passed */
	uint64_t notes;  /* DROPPED notes passed (not events) */
	uint64_t noted;  /* the losses those notes report */
};

/*
 * Walks the records in [from, to) and returns where it stopped: before the
 * event that would pass `limit` events, or before the record that would
 * pass `max_bytes` bytes (the first record is always passed). With
 * convert, each record's raw stamp becomes nanoseconds (clock.h).
 */
uint64_t ggmlviz__span_scan(const struct ggmlviz__ring *r, uint64_t from, uint64_t to,
			    uint64_t limit, uint64_t max_bytes, int convert,
			    struct ggmlviz__scan *sc);

/* Queues [from, to) of r in w's batch: one iovec, or two across the end. */
void ggmlviz__span_add(struct ggmlviz__writer *w, const struct ggmlviz__ring *r, uint64_t from,
		       uint64_t to);

/* Queues len bytes at base in w's batch (nothing if len is 0). */
void ggmlviz__span_add_bytes(struct ggmlviz__writer *w, const void *base, size_t len);

#endif /* GGMLVIZ_SPAN_H */
