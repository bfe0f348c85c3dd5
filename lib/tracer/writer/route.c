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
 * The file's records go to it through compact.c, which packs runs of them
 * (GGML_VIZ_PACK) and sums steps' OP_SUMMARY records over windows
 * (GGML_VIZ_OP_WINDOW); a step's phase, which a window is kept by, is
 * followed here, from its STEP_BEGIN.
 *
 * Without a flight recorder, packing or windows nothing here runs: a span
 * goes to the file as it lies in the ring (span.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/record.h"
#include "tracer/base/clock.h"
#include "tracer/writer/internal.h"
#include "util/pages.h"

/*
 * A batch's records are about BATCH_BYTES (drain.c: a megabyte) and at
 * most one record more; a salvage's pieces are smaller. The scratch holds
 * them all, so that routing never cuts a batch short (a crash handler's
 * pass may not allocate).
 */
#define SCRATCH_BYTES (((size_t)1 << 20) + 2 * GGMLVIZ__SLACK)
/*
 * Packed, a batch takes more at its worst: runs of two 46-byte records
 * cost 50 + 2 * 52 bytes (a run of one is written as it was). And room for
 * the op windows written after a ring's records (compact.c's table).
 */
#define PACKED_BYTES (2 * SCRATCH_BYTES)
#define WINDOWS_BYTES (256u * (GGMLVIZ_LABELED_RECORD_SIZE + GGMLVIZ_OP_WINDOW_BODY))

int ggmlviz__route_setup(struct ggmlviz__writer *w, const struct ggmlviz__writer_opts *o)
{
	/* a window may take the place of a summary (66 bytes for 46): as packing at its worst */
	size_t bytes = (o->pack || o->op_window_s ? PACKED_BYTES : SCRATCH_BYTES) + WINDOWS_BYTES;
	int rc;

	if (!o->flight.seconds && !o->pack && !o->op_window_s)
		return 0;
	w->flight.scratch = ggmlviz__pages_alloc(bytes);
	if (!w->flight.scratch)
		return -ENOMEM;
	w->flight.scratch_cap = bytes;
	w->flight.routing = 1;
	if ((rc = ggmlviz__compact_setup(&w->compact, o)) < 0)
		return rc;
	return o->flight.seconds ? ggmlviz__flight_setup(w, o) : 0;
}

void ggmlviz__route_free(struct ggmlviz__writer *w)
{
	ggmlviz__flight_free(&w->flight);
	ggmlviz__compact_free(&w->compact);
	ggmlviz__pages_free(w->flight.scratch);
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

/*
 * A record for the file, in the batch's plan (ROUTE_FOLD: a step's
 * OP_SUMMARY summed into its window) or its salvage (the summaries were
 * summed when it was planned); returns whether it is left out of the file.
 */
static int file_out(struct ggmlviz__writer *w, struct ggmlviz__ring *r, const uint8_t *rec,
		    uint32_t size, unsigned how)
{
	struct ggmlviz__compact *c = &w->compact;

	if (rec[REC_TYPE] == GGMLVIZ_EVENT_STEP_BEGIN)
		r->phase = get_u32(rec + REC_PAYLOAD + STEP_PHASE);
	if (c->window_ns && rec[REC_TYPE] == GGMLVIZ_EVENT_OP_SUMMARY && !rec[REC_HAS_LABEL])
		return (how & GGMLVIZ__ROUTE_FOLD) ? ggmlviz__compact_fold(&w->flight, c, rec, r->phase)
						   : 1;
	ggmlviz__compact_out(&w->flight, c, rec, size); /* always room: route_setup's */
	return 0;
}

uint64_t ggmlviz__route_span(struct ggmlviz__writer *w, struct ggmlviz__ring *r, uint64_t from,
			     uint64_t to, uint8_t *route, unsigned how)
{
	struct ggmlviz__flight *f = &w->flight;
	size_t start = f->scratch_len;
	uint64_t left_out = 0;
	uint32_t size;
	int set, keep = (how & GGMLVIZ__ROUTE_KEEP) && f->on;

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
			left_out += (uint64_t)file_out(w, r, rec, size, how);
		else
			left_out++;
		if (keep && to_flight(*route, rec))
			ggmlviz__flight_add(f, rec, size);
	}
	ggmlviz__compact_span_end(f, &w->compact);
	if (how & GGMLVIZ__ROUTE_FOLD)
		ggmlviz__compact_windows(f, &w->compact, r->tid, (how & GGMLVIZ__ROUTE_ENDING) != 0,
					 ggmlviz__now_ns());
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
