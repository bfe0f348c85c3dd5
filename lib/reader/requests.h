/*
 * A server's requests in the pairing engine: REQUEST_BEGIN, _STAGE and
 * _END paired by request id, whatever thread wrote each, into timings of
 * kind GGMLVIZ_TIMING_REQUEST (see <ggmlviz/reader.h>).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_READER_REQUESTS_H
#define GGMLVIZ_READER_REQUESTS_H

#include <stdint.h>

#include <ggmlviz/reader.h>

#include "util/map.h"

/* Requests open at once, at most: past it a begin is not followed (hostile input). */
#define GGMLVIZ__MAX_OPEN_REQUESTS 65536u

struct ggmlviz__requests {
	struct ggmlviz__map open;     /* request id -> index in items */
	struct ggmlviz_timing *items; /* what is known of each open request */
	uint32_t n, cap;              /* items used (a free one is one with kind 0), allocated */
	uint32_t free_hint;
};

/*
 * A REQUEST_BEGIN, _STAGE or _END record. 1 with *t filled when it ended a
 * request; 0 otherwise; -ENOMEM. An end or stage of no open request, or a
 * begin past the limit, is counted in c (unmatched_ends, over_limit); a
 * begin of an id still open abandons the older one (unclosed_begins).
 */
int ggmlviz__requests_add(struct ggmlviz__requests *q, const struct ggmlviz_event *ev,
			  struct ggmlviz_pairing_counts *c, struct ggmlviz_timing *t);

/* Requests open now (counted as open by the engine). */
uint32_t ggmlviz__requests_open(const struct ggmlviz__requests *q);

/* Forgets every open request, keeping the memory. */
void ggmlviz__requests_clear(struct ggmlviz__requests *q);

/* Frees it all. */
void ggmlviz__requests_free(struct ggmlviz__requests *q);

#endif /* GGMLVIZ_READER_REQUESTS_H */
