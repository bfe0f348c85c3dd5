/*
 * One pass of the writer: snapshot the rings, then batch after batch of
 * rings (about a megabyte each), count and plan what each holds, write it
 * with one writev(2) (what fits of it, when the write fails: salvage.c)
 * and give the rings' room back; then release the rings of threads that
 * are gone. A crash handler's pass reads the same way, without the lock.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/base/clock.h"
#include "tracer/producer/producer.h"
#include "tracer/writer/internal.h"
#include "util/pages.h"

/*
 * A pass writes its rings in batches of about this many bytes, each settled
 * as soon as it is written: a producer waiting for room goes on while the
 * writer writes the next batch (of its ring or the next ones), and rings
 * with little in them share one writev(2).
 */
#define BATCH_BYTES ((uint64_t)1 << 20)
/* Bytes of writer records per ring per pass: THREAD_NAME and DROPPED. */
#define META_PER_RING (GGMLVIZ_LABELED_RECORD_SIZE + 16 + GGMLVIZ_RECORD_SIZE)
/* And once a session, META GPU; once a pass, META USAGE. */
#define META_NOTE (GGMLVIZ_LABELED_RECORD_SIZE + 320 + GGMLVIZ_RECORD_SIZE)
#define IOV_PER_RING 4
#define IOV_NOTES 2
static int grow(void **p, size_t *cap, size_t want, size_t elem)
{
	void *q;

	if (want <= *cap)
		return 0;
	q = ggmlviz__pages_resize(*p, want * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = want;
	return 0;
}

/* Scratch for n rings; 0 or -ENOMEM (then the pass covers fewer rings). */
static int grow_scratch(struct ggmlviz__writer *w, size_t n)
{
	if (grow((void **)&w->pass, &w->pass_cap, n, sizeof *w->pass) < 0 ||
	    grow((void **)&w->iov, &w->iov_cap, n * IOV_PER_RING + IOV_NOTES, sizeof *w->iov) < 0 ||
	    grow((void **)&w->meta, &w->meta_cap, n * META_PER_RING + META_NOTE, 1) < 0)
		return -ENOMEM;
	return 0;
}

/* How many rings the scratch holds now. */
static size_t capacity(const struct ggmlviz__writer *w)
{
	size_t n = w->pass_cap;

	if (w->iov_cap < n * IOV_PER_RING + IOV_NOTES)
		n = w->iov_cap > IOV_NOTES ? (w->iov_cap - IOV_NOTES) / IOV_PER_RING : 0;
	if (w->meta_cap < n * META_PER_RING + META_NOTE)
		n = w->meta_cap > META_NOTE ? (w->meta_cap - META_NOTE) / META_PER_RING : 0;
	return n;
}

int ggmlviz__drain_prepare(struct ggmlviz__writer *w)
{
	return grow_scratch(w, 16);
}

/*
 * How far a pass drains ring r: exited is read before head, head before
 * the move to a larger buffer. A ring whose records go on in a larger
 * buffer is not done (and not freed) by this pass.
 */
static void look(struct ggmlviz__writer *w, struct ggmlviz__pass_ring *p, struct ggmlviz__ring *r)
{
	int clipped;

	p->ring = r;
	p->exited = atomic_load_explicit(&r->exited, memory_order_acquire);
	p->head = ggmlviz__grow_clip(r, atomic_load_explicit(&r->head, memory_order_acquire),
				     &clipped);
	p->events = p->discarded = 0;
	p->moved = clipped;
	if (clipped) {
		p->exited = 0;
		w->clipped++;
	}
}

/* Which rings to drain, and how far. */
static void snapshot(struct ggmlviz__writer *w)
{
	size_t n = 0;

	ggmlviz__registry_lock();
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r; r = r->next)
		n++;
	/* room for threads yet to come: a crash handler's pass cannot grow it */
	if (grow_scratch(w, n + n / 2 + 8) < 0 && grow_scratch(w, n) < 0)
		n = capacity(w); /* out of memory: the other rings wait for a later pass */
	w->n_pass = 0;
	w->clipped = 0;
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r && w->n_pass < n; r = r->next) {
		struct ggmlviz__pass_ring *p = &w->pass[w->n_pass++];
		look(w, p, r);
	}
	ggmlviz__registry_unlock();
}

/* How many more events the file may take. */
static uint64_t allowance(const struct ggmlviz__writer *w, uint64_t planned)
{
	uint64_t used = w->events + planned; /* windows may take it past the cap: none then */

	if (w->capped)
		return 0;
	if (w->max_events == 0)
		return UINT64_MAX;
	return used < w->max_events ? w->max_events - used : 0;
}

/*
 * max_events reached: recording has ended (ggmlviz_is_active() says so at
 * once), but emit calls go on being accepted, so that every one of them is
 * counted: the writer discards their events as dropped.
 */
static void reach_cap(struct ggmlviz__writer *w)
{
	w->capped = 1;
	atomic_store(&ggmlviz__state.ended, 1);
	ggmlviz__log(&w->sink, GGMLVIZ_LOG_INFO,
		     "max_events (%" PRIu64 ") reached: recording stopped", w->max_events);
}

/* Whether this batch takes the rest of the pass ring. */
static int ring_done(const struct ggmlviz__pass_ring *p)
{
	return p->upto == p->head;
}

/*
 * Whether the writer says the ring's losses after this batch: its producer
 * is quiescent (its thread gone, or the session ending) and the batch ends
 * the ring's records. Not while records wait in a larger buffer: a
 * producer that moved after this pass's look and then lost events wrote
 * events before those losses there, and a DROPPED record here would come
 * before them in the file (a gap said where none was, and none said where
 * it was: test-races shows it). A later pass, that reads them, says it.
 */
static int says_losses(const struct ggmlviz__pass_ring *p, int final)
{
	return ring_done(p) && !p->moved && (p->exited || final);
}

/* How a batch's plan routes a ring's records (route.c): its windows end with its records. */
static unsigned plan_how(const struct ggmlviz__writer *w, const struct ggmlviz__pass_ring *p,
			 int final)
{
	return (w->keeping ? GGMLVIZ__ROUTE_KEEP : 0u) | GGMLVIZ__ROUTE_FOLD |
	       (says_losses(p, final) ? GGMLVIZ__ROUTE_ENDING : 0u);
}

/*
 * Counts one ring's records, as far as max_bytes, and queues what goes to
 * the file; adds its events to *planned and returns the bytes queued.
 */
static uint64_t plan_ring(struct ggmlviz__writer *w, struct ggmlviz__pass_ring *p, int final,
			  uint64_t *planned, uint64_t max_bytes)
{
	struct ggmlviz__ring *r = p->ring;
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t limit = allowance(w, *planned);
	struct ggmlviz__scan kept, thrown = { 0, 0, 0 };
	uint64_t cut = ggmlviz__span_scan(r, tail, p->head, limit, max_bytes, 1, &kept,
					  w->keeping ? w : NULL);

	/* stopped by max_bytes: the rest is the next batch's; by max_events: thrown away */
	p->upto = cut < p->head && kept.events < limit ? cut : p->head;
	ggmlviz__span_scan(r, cut, p->upto, UINT64_MAX, UINT64_MAX, 0, &thrown, NULL);
	p->cut = cut;
	p->events = p->written = kept.events;
	p->notes = p->notes_written = kept.notes;
	p->discarded = thrown.events;
	p->noting = 0;
	r->unnoted += thrown.noted; /* their DROPPED records are thrown away too */
	if (p->discarded && !w->capped)
		reach_cap(w);
	if (cut > tail && !r->named)
		ggmlviz__records_thread_name(w, r, tail);
	p->route0 = r->route;
	p->routed = p->added = 0;
	if (w->flight.routing) { /* each record where it goes, made smaller (route.c) */
		w->compact.added = 0;
		p->routed = ggmlviz__route_span(w, r, tail, cut, &r->route, plan_how(w, p, final));
		p->added = w->compact.added;
		ggmlviz__route_follow(r, cut, p->upto, &r->route);
	} else {
		ggmlviz__span_add(w, r, tail, cut);
	}
	if (says_losses(p, final))
		ggmlviz__records_drop_note(w, p);
	*planned += p->events + p->added;
	return cut - tail;
}

/*
 * Moves the tails and counters of pass rings [first, end) once their batch
 * is written, whole or in part, and wakes a producer waiting for room.
 */
static void settle(struct ggmlviz__writer *w, size_t first, size_t end, int meta_ok)
{
	if (meta_ok)
		atomic_fetch_add_explicit(&w->meta_written, w->meta_records, memory_order_relaxed);
	for (size_t i = first; i < end; i++) {
		struct ggmlviz__pass_ring *p = &w->pass[i];
		struct ggmlviz__ring *r = p->ring;
		uint64_t lost = p->discarded + (p->events - p->written);

		if (meta_ok)
			ggmlviz__records_drop_noted(p);
		atomic_fetch_add_explicit(&r->written, p->written, memory_order_release);
		atomic_fetch_add_explicit(&w->meta_written, p->notes_written, memory_order_relaxed);
		/* the file's events (TRACE_END's, max_events'): not those routed away from it */
		w->events += p->written - (p->routed < p->written ? p->routed : p->written) + p->added;
		if (lost)
			atomic_fetch_add_explicit(&r->discarded, lost, memory_order_release);
		atomic_store_explicit(&r->tail, p->upto, memory_order_release);
		ggmlviz__bell_ring(&r->room, 1);
	}
}

static void retire(struct ggmlviz__writer *w, struct ggmlviz__ring *r)
{
	w->retired.emitted += atomic_load(&r->emitted);
	w->retired.written += atomic_load(&r->written);
	w->retired.dropped += atomic_load(&r->dropped) + atomic_load(&r->discarded);
	w->retired.labels_truncated += atomic_load(&r->labels_truncated);
	w->retired.threads += atomic_load(&r->emitted) > 0;
	if (w->keeping) /* its name is no segment's business any more */
		ggmlviz__kept_forget(&w->kept, GGMLVIZ_META_THREAD_NAME, r->tid);
	ggmlviz__registry_release(r);
}

/* Frees the rings of threads that were gone before this pass read them. */
static void release_exited(struct ggmlviz__writer *w)
{
	ggmlviz__registry_lock();
	for (size_t i = 0; i < w->n_pass; i++)
		if (w->pass[i].exited)
			retire(w, w->pass[i].ring);
	ggmlviz__registry_unlock();
}

/*
 * After a failed batch: DROPPED for what it lost, for the rings whose losses
 * must be said now (their thread is gone, or the session ends), in the room
 * salvage kept.
 */
static void note_losses(struct ggmlviz__writer *w, size_t first, size_t end, int final)
{
	w->n_iov = 0;
	w->meta_len = 0;
	w->meta_records = 0;
	for (size_t i = first; i < end; i++) {
		w->pass[i].discarded = 0; /* settled: counted in the ring now */
		if (says_losses(&w->pass[i], final))
			ggmlviz__records_drop_note(w, &w->pass[i]);
	}
	if (w->n_iov == 0 ||
	    ggmlviz__output_keeping(w, w->iov, w->n_iov, GGMLVIZ_RECORD_SIZE) < 0)
		return;
	atomic_fetch_add_explicit(&w->meta_written, w->meta_records, memory_order_relaxed);
	for (size_t i = first; i < end; i++)
		ggmlviz__records_drop_noted(&w->pass[i]);
}

/* The most bytes of the writer's own records a batch from pass ring first on adds. */
static uint64_t writer_bytes(const struct ggmlviz__writer *w, size_t first)
{
	return META_NOTE + (w->n_pass - first) * META_PER_RING + GGMLVIZ_RECORD_SIZE;
}

/*
 * Plans, writes and settles a batch of about BATCH_BYTES, from pass ring
 * first on (a busy ring's records may take several batches); returns the
 * pass ring the next batch starts with.
 */
static size_t drain_batch(struct ggmlviz__writer *w, size_t first, int final)
{
	uint64_t planned = 0, bytes = 0, room = ggmlviz__rotate_room(w, writer_bytes(w, first));
	uint64_t most = room < BATCH_BYTES ? room : BATCH_BYTES; /* a rotated trace's segment ends */
	size_t end = first;
	int meta_ok = 1, rc;

	w->n_iov = 0;
	w->meta_len = 0;
	w->meta_records = 0;
	ggmlviz__route_batch(w);
	ggmlviz__compact_save(&w->compact); /* put back if the write fails */
	ggmlviz__records_gpu_note(w);
	while (end < w->n_pass && bytes < most &&
	       (end == first || ring_done(&w->pass[end - 1])))
		bytes += plan_ring(w, &w->pass[end++], final, &planned, most - bytes);
	/* not from a crash handler (getrusage(2) is no promise there); not into the end's room */
	if (first == 0 && planned && !final && !w->room_end)
		ggmlviz__records_usage(w);
	if (w->n_iov > 0 &&
	    (rc = ggmlviz__output_keeping(w, w->iov, w->n_iov, GGMLVIZ__END_ROOM)) < 0) {
		ggmlviz__output_failed(w, rc);
		ggmlviz__compact_restore(&w->compact); /* the salvage sums the summaries again */
		meta_ok = ggmlviz__salvage(w, first, end);
		settle(w, first, end, meta_ok);
		note_losses(w, first, end, final);
	} else {
		if (w->n_iov > 0)
			ggmlviz__output_works(w);
		settle(w, first, end, meta_ok);
	}
	return ring_done(&w->pass[end - 1]) ? end : end - 1;
}

/* The session's word on GPU kernels, in a pass with no ring to drain (no thread emitted yet). */
static void note_alone(struct ggmlviz__writer *w)
{
	w->n_iov = 0;
	w->meta_len = 0;
	w->meta_records = 0;
	ggmlviz__records_gpu_note(w);
	if (w->n_iov == 0)
		return;
	if (ggmlviz__output_append(w, w->iov, w->n_iov) < 0) {
		w->gpu_note_due = 1; /* written with the next batch that is */
		return;
	}
	atomic_fetch_add_explicit(&w->meta_written, w->meta_records, memory_order_relaxed);
}

/*
 * The pass's core: every ring of w->pass, batch after batch; in a rotated
 * trace (not a crash handler's pass), a new segment begun before a batch
 * where the segment is full.
 */
static void drain_rings(struct ggmlviz__writer *w, int final)
{
	ggmlviz__clock_calibrate(); /* after the heads: every stamp drained is older */
	if (w->n_pass == 0)
		note_alone(w);
	for (size_t first = 0; first < w->n_pass;) {
		if (w->keeping)
			ggmlviz__rotate_if_full(w, writer_bytes(w, first));
		first = drain_batch(w, first, final);
	}
}

void ggmlviz__drain_windows(struct ggmlviz__writer *w)
{
	w->n_iov = 0;
	if (!w->compact.n_sums || w->capped)
		return;
	ggmlviz__route_batch(w);
	w->compact.added = 0;
	ggmlviz__compact_windows_all(&w->flight, &w->compact);
	ggmlviz__span_add_bytes(w, w->flight.scratch, w->flight.scratch_len);
	if (w->n_iov && ggmlviz__output_keeping(w, w->iov, w->n_iov, GGMLVIZ__END_ROOM) == 0)
		w->events += w->compact.added;
}

size_t ggmlviz__drain_pass(struct ggmlviz__writer *w, int final)
{
	size_t clipped;

	if (atomic_exchange(&w->busy, 1))
		return 0; /* a crash handler has taken the writer over */
	snapshot(w);
	drain_rings(w, final);
	if (!final)
		ggmlviz__grow_rings(w); /* not at the end: nothing is emitted any more */
	ggmlviz__snapshot_pass(w, final);
	ggmlviz__pace_passed(w);
	release_exited(w);
	clipped = w->clipped;
	atomic_store(&w->busy, 0);
	return clipped;
}

/* The rings as they are, without the registry's lock, in the room the scratch has. */
static void snapshot_unlocked(struct ggmlviz__writer *w)
{
	size_t n = capacity(w);

	w->n_pass = 0;
	w->clipped = 0;
	for (struct ggmlviz__ring *r = ggmlviz__registry_first_unlocked(); r && w->n_pass < n;
	     r = r->next) {
		struct ggmlviz__pass_ring *p = &w->pass[w->n_pass++];
		look(w, p, r);
	}
}

void ggmlviz__drain_unlocked(struct ggmlviz__writer *w)
{
	w->keeping = 0; /* a crash handler's: no allocation, no new segment */
	/* a ring that moved to a larger buffer takes a second look */
	for (int look_again = 2; look_again-- > 0;) {
		snapshot_unlocked(w);
		drain_rings(w, 1);
		if (!w->clipped)
			break;
	}
	ggmlviz__drain_windows(w);
}
