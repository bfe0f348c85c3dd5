/*
 * Salvaging a failed batch (see internal.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ggmlviz/format.h>

#include "tracer/writer/internal.h"

/* Pieces of at most this many bytes: a full disk takes what it has room for. */
#define PIECE ((uint64_t)64 << 10)

/* Bytes the file may still grow by, as far as the last failure tells, keeping `keep`. */
static uint64_t room_keeping(const struct ggmlviz__writer *w, uint64_t keep)
{
	uint64_t limit = w->room_end > keep ? w->room_end - keep : 0;

	return limit > w->file_size ? limit - w->file_size : 0;
}

/* For events: the end's room kept. */
static uint64_t room(const struct ggmlviz__writer *w)
{
	return room_keeping(w, GGMLVIZ__END_ROOM);
}

/*
 * Writes [from, to) of r, whose route at from is *route (the file's
 * records only, with a flight recorder: *routed says how many were not;
 * the summaries summed into their windows again, those due written:
 * *added), the windows put back if the write fails; 0, or -errno
 * (room_end then says where it stopped).
 */
static int write_piece(struct ggmlviz__writer *w, struct ggmlviz__ring *r, uint64_t from,
		       uint64_t to, uint8_t *route, uint64_t *routed, uint64_t *added)
{
	int rc;

	w->n_iov = 0;
	ggmlviz__route_batch(w);
	*routed = *added = 0;
	if (!w->flight.routing) {
		ggmlviz__span_add(w, r, from, to);
		return ggmlviz__output_append(w, w->iov, w->n_iov);
	}
	ggmlviz__compact_save(&w->compact);
	w->compact.added = 0;
	*routed = ggmlviz__route_span(w, r, from, to, route, GGMLVIZ__ROUTE_FOLD);
	if ((rc = ggmlviz__output_append(w, w->iov, w->n_iov)) < 0)
		ggmlviz__compact_restore(&w->compact);
	else
		*added = w->compact.added;
	return rc;
}

/* One ring's records, piece by piece; 0, or -1 once nothing more fits. */
static int salvage_ring(struct ggmlviz__writer *w, struct ggmlviz__pass_ring *p)
{
	struct ggmlviz__ring *r = p->ring;
	uint64_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint8_t route = p->route0;
	uint64_t routed, added;

	while (pos < p->cut) {
		uint64_t left = room(w), max = left < PIECE ? left : PIECE, end;
		struct ggmlviz__scan sc;

		end = ggmlviz__span_scan(r, pos, p->cut, UINT64_MAX, max, 0, &sc, NULL);
		if (end - pos > left || write_piece(w, r, pos, end, &route, &routed, &added) < 0)
			return -1;
		p->written += sc.events;
		p->routed += routed;
		p->added += added;
		p->notes_written += sc.notes;
		pos = end;
	}
	return 0;
}

int ggmlviz__salvage(struct ggmlviz__writer *w, size_t first, size_t end)
{
	struct iovec meta = { w->meta, w->meta_len };
	int meta_ok = 0;

	for (size_t i = first; i < end; i++) /* the windows are as before the batch (drain.c) */
		w->pass[i].written = w->pass[i].notes_written = w->pass[i].routed = w->pass[i].added = 0;
	/* THREAD_NAME and DROPPED may use the end's room, but TRACE_END's */
	if (w->meta_len > 0 && w->meta_len <= room_keeping(w, GGMLVIZ_RECORD_SIZE))
		meta_ok = ggmlviz__output_append(w, &meta, 1) == 0;
	for (size_t i = first; i < end; i++)
		if (salvage_ring(w, &w->pass[i]) < 0)
			break;
	return meta_ok;
}
