/*
 * Where each record goes, with a flight recorder (GGML_VIZ_FLIGHT, see
 * internal.h). A producer says it with META ROUTE records (base.h): a step
 * that rolling mode sums comes twice, op by op for the flight recorder
 * only, then summed for the file only. The writer walks a batch's records
 * once their stamps are nanoseconds: those for the file are copied one
 * after the other into the batch's scratch and written from there (one
 * iovec a ring), those for the flight recorder kept in its memory
 * (flight.c); a META record goes to both wherever it is (a name given once
 * must reach the file), META ROUTE to neither.
 *
 * Without a flight recorder nothing here runs: a span goes to the file as
 * it lies in the ring (span.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/record.h"
#include "tracer/writer/internal.h"

/*
 * A batch's records are about BATCH_BYTES (drain.c: a megabyte) and at
 * most one record more; a salvage's pieces are smaller. The scratch holds
 * them all, so that routing never cuts a batch short (a crash handler's
 * pass may not allocate).
 */
#define SCRATCH_BYTES (((size_t)1 << 20) + 2 * GGMLVIZ__SLACK)

int ggmlviz__route_setup(struct ggmlviz__writer *w, const struct ggmlviz__writer_opts *o)
{
	if (!o->flight.seconds)
		return 0;
	w->flight.scratch = malloc(SCRATCH_BYTES);
	if (!w->flight.scratch)
		return -ENOMEM;
	w->flight.scratch_cap = SCRATCH_BYTES;
	w->flight.routing = 1;
	return ggmlviz__flight_setup(w, o);
}

void ggmlviz__route_free(struct ggmlviz__writer *w)
{
	ggmlviz__flight_free(&w->flight);
	free(w->flight.scratch);
	w->flight.scratch = NULL;
}

/*
 * The route a META ROUTE record at rec sets, or -1 if it is none. A
 * producer's DROPPED note sets the route back to both: the ring was full,
 * and the records lost may have been the markers themselves (a unit's
 * route then goes wrong up to its unit's end at most, never further).
 */
static int route_of(const uint8_t *rec)
{
	uint32_t kind;

	if (rec[REC_TYPE] != GGMLVIZ_EVENT_META)
		return -1;
	kind = get_u32(rec + REC_PAYLOAD + META_KIND);
	if (kind == GGMLVIZ_META_DROPPED)
		return GGMLVIZ__ROUTE_BOTH;
	return kind == GGMLVIZ__META_ROUTE ? (int)(get_u64(rec + REC_PAYLOAD + META_KEY) & 3u) : -1;
}

static int is_marker(const uint8_t *rec)
{
	return get_u32(rec + REC_PAYLOAD + META_KIND) == GGMLVIZ__META_ROUTE;
}

static int to_file(uint8_t route, const uint8_t *rec)
{
	return route != GGMLVIZ__ROUTE_FLIGHT || rec[REC_TYPE] == GGMLVIZ_EVENT_META;
}

static int to_flight(uint8_t route, const uint8_t *rec)
{
	return route != GGMLVIZ__ROUTE_FILE || rec[REC_TYPE] == GGMLVIZ_EVENT_META;
}

/* A record into the scratch (always room: SCRATCH_BYTES). */
static void copy_out(struct ggmlviz__flight *f, const uint8_t *rec, uint32_t size)
{
	if (f->scratch_cap - f->scratch_len < size)
		return; /* never: a batch is smaller */
	memcpy(f->scratch + f->scratch_len, rec, size);
	f->scratch_len += size;
}

uint64_t ggmlviz__route_span(struct ggmlviz__writer *w, const struct ggmlviz__ring *r,
			     uint64_t from, uint64_t to, uint8_t *route, int keep)
{
	struct ggmlviz__flight *f = &w->flight;
	size_t start = f->scratch_len;
	uint64_t left_out = 0;
	uint32_t size;
	int set;

	keep = keep && f->on;
	for (uint64_t pos = from; pos < to; pos += size) {
		const uint8_t *rec = r->cbuf + (pos & r->cmask); /* whole: the slack after the end */

		size = (uint32_t)record_size_at(rec);
		if ((set = route_of(rec)) >= 0 && is_marker(rec)) {
			*route = (uint8_t)set;
			left_out++;
			continue;
		}
		if (set >= 0)
			*route = (uint8_t)set; /* a DROPPED note: it goes to both, and so does what follows */
		if (to_file(*route, rec))
			copy_out(f, rec, size);
		else
			left_out++;
		if (keep && to_flight(*route, rec))
			ggmlviz__flight_add(f, rec, size);
	}
	ggmlviz__span_add_bytes(w, f->scratch + start, f->scratch_len - start);
	return left_out;
}

void ggmlviz__route_follow(const struct ggmlviz__ring *r, uint64_t from, uint64_t to,
			   uint8_t *route)
{
	uint32_t size;
	int set;

	for (uint64_t pos = from; pos < to; pos += size) {
		const uint8_t *rec = r->cbuf + (pos & r->cmask);

		size = (uint32_t)record_size_at(rec);
		if ((set = route_of(rec)) >= 0)
			*route = (uint8_t)set;
	}
}
