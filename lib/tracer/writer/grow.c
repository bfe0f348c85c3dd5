/*
 * A busy ring grows: the writer's side (see internal.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>

#include "tracer/base/clock.h"
#include "tracer/base/compat.h"
#include "tracer/writer/internal.h"

/* A ring should hold this long of its thread's records: longer than the
 * page cache's stalls and a VM's lost milliseconds (bench/bench_writer),
 * and than the writer's absences in an hour of a traced llama-server on a
 * 2-core machine, which lost 11 and 33 ms of the flight recorder's records
 * where rings held 50 ms (doc/performance.md). */
#define GROW_HOLD_NS 250000000u
/* The rate is taken over at least this long. */
#define RATE_WINDOW_NS 10000000u
/*
 * Bytes of a new buffer faulted in per pass: well under a millisecond. On
 * huge pages (producer/ring.c) a pass faults in the 2 MiB page its part
 * begins in, after the kernel compacted memory for it where it had to.
 */
#define FAULT_STEP ((uint64_t)1 << 20)
/* A ring grows by at most this factor at a time. */
#define GROW_STEP 4u

/* Everything before the move is written: read the new buffer from now on. */
static void follow(struct ggmlviz__ring *r)
{
	uint8_t *old = r->cbuf;
	uint64_t old_size = r->cmask + 1;

	/* the view first, the old buffer last: a fork in between leaks it, frees nothing twice */
	r->cbuf = atomic_load_explicit(&r->offer, memory_order_relaxed);
	r->cmask = r->offer_size - 1;
	/* offer first: a producer that sees moved_at at 0 sees no offer */
	atomic_store_explicit(&r->offer, NULL, memory_order_relaxed);
	atomic_store_explicit(&r->moved_at, 0, memory_order_release);
	ggmlviz__ring_unmap(old, old_size);
}

uint64_t ggmlviz__grow_clip(struct ggmlviz__ring *r, uint64_t head, int *clipped)
{
	uint64_t moved = atomic_load_explicit(&r->moved_at, memory_order_acquire);

	*clipped = 0;
	if (moved == 0)
		return head;
	if (atomic_load_explicit(&r->tail, memory_order_relaxed) == moved - 1) {
		follow(r);
		return head;
	}
	*clipped = 1;
	return head < moved - 1 ? head : moved - 1;
}

/* The smallest power of two of at least n bytes, up to max. */
static uint64_t size_for(double n, uint64_t max)
{
	uint64_t size = 1;

	while (size < max && (double)size < n)
		size <<= 1;
	return size;
}

/* Bytes the ring should have for its rate (*per_ns) since the last look, or 0: not known yet. */
static uint64_t wanted(struct ggmlviz__ring *r, uint64_t head, uint64_t now, uint64_t max,
		       double *per_ns)
{
	if (r->rate_ns == 0 || head < r->rate_pos || now < r->rate_ns) {
		r->rate_pos = head;
		r->rate_ns = now;
		return 0;
	}
	if (now - r->rate_ns < RATE_WINDOW_NS)
		return 0;
	*per_ns = (double)(head - r->rate_pos) / (double)(now - r->rate_ns);
	r->rate_pos = head;
	r->rate_ns = now;
	return size_for(*per_ns * GROW_HOLD_NS, max);
}

/* The next part of the buffer being made; offered once whole. */
static void fault_in(struct ggmlviz__ring *r)
{
	volatile uint8_t *p = r->grow_buf;
	uint64_t page = ggmlviz__os_page_size();
	uint64_t whole = r->grow_size + GGMLVIZ__SLACK;
	uint64_t end = r->grow_done + FAULT_STEP < whole ? r->grow_done + FAULT_STEP : whole;

	for (uint64_t off = r->grow_done; off < end; off += page)
		p[off] = 0;
	r->grow_done = end;
	if (end < whole)
		return;
	r->offer_size = r->grow_size;
	atomic_store_explicit(&r->offer, r->grow_buf, memory_order_release);
	r->grow_buf = NULL;
	ggmlviz__bell_ring(&r->room, 1); /* a producer asleep for room takes it */
}

/* What a pass's growths may take. */
struct grow_room {
	uint64_t ring_max; /* the largest a ring may be */
	uint64_t left;     /* bytes all rings together may still grow by */
	int refused;       /* a growth did not fit in left */
};

/* Bytes ring r takes beyond base, its session's size: its largest buffer, made or being made. */
static uint64_t extra(const struct ggmlviz__ring *r, uint64_t base)
{
	uint64_t size = r->cmask + 1;

	if (r->grow_buf && r->grow_size > size)
		size = r->grow_size;
	if (atomic_load_explicit(&r->offer, memory_order_relaxed) && r->offer_size > size)
		size = r->offer_size;
	return size > base ? size - base : 0;
}

/* One ring after a pass that read it up to head at now_ns (see ggmlviz__grow_rings). */
static void tend(struct ggmlviz__ring *r, uint64_t head, uint64_t now_ns, struct grow_room *room,
		 const struct ggmlviz__log_sink *sink)
{
	double per_ns = 0;
	uint64_t size;

	if (r->grow_buf) {
		fault_in(r);
		return;
	}
	if (atomic_load_explicit(&r->offer, memory_order_relaxed))
		return; /* offered, not taken or not followed yet */
	size = wanted(r, head, now_ns, room->ring_max, &per_ns);
	if (size <= r->cmask + 1)
		return;
	if (size > (r->cmask + 1) * GROW_STEP)
		size = (r->cmask + 1) * GROW_STEP; /* sooner there: each step is faulted in by parts */
	if (size - (r->cmask + 1) > room->left) {
		room->refused = 1;
		return;
	}
	r->grow_buf = ggmlviz__ring_map(size, 0);
	if (!r->grow_buf)
		return; /* no memory: the ring stays as it is, and the rate is taken again */
	room->left -= size - (r->cmask + 1);
	r->grow_size = size;
	r->grow_done = 0;
	ggmlviz__log(sink, GGMLVIZ_LOG_INFO,
		     "thread %" PRIu32 "'s ring grows from %" PRIu64 " to %" PRIu64
		     " KiB: it records %.0f MB/s", r->tid, (r->cmask + 1) >> 10, size >> 10,
		     per_ns * 1e3);
	fault_in(r);
}

/* What all rings together may still grow by. */
static uint64_t growth_left(const struct ggmlviz__writer *w, uint64_t budget)
{
	uint64_t grown = 0;

	for (size_t i = 0; i < w->n_pass; i++)
		grown += extra(w->pass[i].ring, ggmlviz__state.ring_bytes);
	return grown < budget ? budget - grown : 0;
}

void ggmlviz__grow_rings(struct ggmlviz__writer *w)
{
	struct grow_room room = { ggmlviz__state.ring_max_bytes, 0, 0 };
	uint64_t budget, now = ggmlviz__monotonic_ns();

	if (room.ring_max <= ggmlviz__state.ring_bytes)
		return; /* rings keep their size */
	budget = GGMLVIZ__GROW_RINGS * (room.ring_max - ggmlviz__state.ring_bytes);
	room.left = growth_left(w, budget);
	for (size_t i = 0; i < w->n_pass; i++)
		if (!w->pass[i].exited)
			tend(w->pass[i].ring, w->pass[i].head, now, &room, &w->sink);
	if (!room.refused || w->growth_capped)
		return;
	w->growth_capped = 1;
	ggmlviz__log(&w->sink, GGMLVIZ_LOG_INFO,
		     "rings have grown by %" PRIu64 " MiB in all, the most they may (%u times what "
		     "one ring may): the others keep their size", (budget - room.left) >> 20,
		     GGMLVIZ__GROW_RINGS);
}
