/*
 * The CPU backend's measured times of a graph's nodes, handed to the run
 * of the thread that computes the graph (producer.h): the spans of its
 * shares over the graph's workers (shares.c's hand-over), or at one
 * thread the copy of its own shares' packed times. The run records them
 * at its end (run-records.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>

#include "tracer/base/base.h"
#include "tracer/producer/fold.h"
#include "tracer/producer/packed.h"
#include "tracer/producer/producer.h"
#include "tracer/producer/run.h"

/* r->dense_ordered while the hand-over runs: its times not known in order (run.h) */
#define UNKNOWN UINT32_MAX

/*
 * Node s after the one before it, prev: GGML's barrier between two nodes
 * has every share of the first end before any of the next begins, but
 * two cores' counters may disagree by tens of ns (up to 120 seen on the
 * project's 2-core machine), so a begin read on one core can come out
 * before an end read on another. Such an op begins where the one before
 * it ended (and ends there at the earliest): the ops keep the order the
 * barrier gave them, and a run's times still pack
 * (ggmlviz__times_pack()). A node whose first begin, as read, is before
 * the first begin of the node before it was computed out of order, and
 * is left as measured.
 */
static inline void after_the_one_before(const struct ggmlviz__span *prev, struct ggmlviz__span *s)
{
	if (s->first >= prev->first && s->from < prev->to) {
		s->from = prev->to;
		s->to = s->to < prev->to ? prev->to : s->to;
	}
}

/*
 * A node's span [from, to), at place i, where the hand-over does not keep
 * it in order in the open run r: no room left (a run computed again and
 * again: the times kept so far moved by place first), or a node not at
 * its own place (those moved by place too, so that its later time takes
 * the place; then looked for, from place hint). Returns the times kept;
 * r->cpu_hint is where the run's next search starts.
 */
static __attribute__((noinline)) uint32_t measured_aside(struct run *r, uint32_t kept,
							 uint32_t hint, const void *node,
							 uint32_t i, int at_place, uint64_t from,
							 uint64_t to)
{
	kept = ggmlviz__run_spilled(r, kept);
	r->cpu_hint = hint;
	if (at_place) {
		r->dense_place[kept] = i;
		r->op_begin[kept] = from;
		r->op_end[kept++] = to;
		r->cpu_hint = i + 1;
	} else {
		ggmlviz__run_measured_search(r, node, from, to);
	}
	return kept;
}

/*
 * The hand-over of two workers (no slices: GGML at two threads) into the
 * open run r, what the loop below does for any count in a loop of its
 * own: the two workers' loads unrolled, and a node not kept in order
 * handled out of line, so that the loop's values stay in registers. The
 * general loop took 86 instructions a node here (callgrind), on the
 * graph's thread, whose graph end the token waits for. The order of the
 * times it keeps is known as it keeps them (r->dense_ordered), where the
 * run's end read them all again for it (13 instructions an op): each
 * begins at or after the end of the one before, and ends at or after its
 * begin (the latest end of its shares is past the latest begin), unless
 * a node first began before the one before it did, which
 * after_the_one_before() leaves as measured.
 */
static void measured_two(struct run *r, const void *const *nodes, const uint32_t *places,
			 uint32_t n, const struct ggmlviz__spans *sp)
{
	const uint64_t *b0 = sp->begin[0], *e0 = sp->end[0], *b1 = sp->begin[1], *e1 = sp->end[1];
	const uint64_t floor = sp->floor;
	const void **at = r->nodes;
	uint32_t *place = r->dense_place;
	uint64_t *op_begin = r->op_begin, *op_end = r->op_end;
	const uint32_t size = r->n, room = r->cap;
	uint32_t kept = r->dense_n, hint = r->cpu_hint;
	struct ggmlviz__span prev = { 0, 0, 0 }, s;
	const uint32_t before = kept; /* kept by an earlier graph of the run */
	int started = 0, ordered;

	if (r->dense_ordered != kept)
		r->dense_ordered = UNKNOWN; /* those kept before not known in order */

	for (uint32_t j = 0; j < n; j++) {
		const uint32_t i = places[j];
		const uint64_t x0 = ggmlviz__stamp_load(&b0[i]), y0 = ggmlviz__stamp_load(&e0[i]);
		const uint64_t x1 = ggmlviz__stamp_load(&b1[i]), y1 = ggmlviz__stamp_load(&e1[i]);
		int at_place;

		if (!(x0 > floor) || y0 < x0 || !(x1 > floor) || y1 < x1)
			continue; /* a share not of this graph, or not whole: no span */
		s.first = x0 < x1 ? x0 : x1;
		s.from = started ? s.first : (x0 > x1 ? x0 : x1);
		s.to = y0 > y1 ? y0 : y1;
		started = 1;
		if (GGMLVIZ__UNLIKELY(s.first < prev.first))
			r->dense_ordered = UNKNOWN; /* left as measured by after_the_one_before() */
		after_the_one_before(&prev, &s);
		prev = s;
		at_place = i < size && at[i] == nodes[i];
		if (GGMLVIZ__LIKELY(at_place && kept < room)) {
			place[kept] = i;
			op_begin[kept] = s.from;
			op_end[kept++] = s.to;
			hint = i + 1;
		} else {
			kept = measured_aside(r, kept, hint, nodes[i], i, at_place, s.from, s.to);
			hint = r->cpu_hint;
			r->dense_ordered = UNKNOWN; /* moved by place, or kept after a spill */
		}
	}
	ordered = r->dense_ordered == before;
	if (ordered && before && kept > before) /* and after the earlier graph's last */
		ordered = op_begin[before] >= op_end[before - 1];
	r->dense_n = kept;
	r->dense_ordered = ordered ? kept : 0;
	r->cpu_hint = hint;
}

/*
 * The run's fields in locals through the loop: its stores of uint32_t
 * places and counts would otherwise have its size and flags read again at each node.
 */
void ggmlviz__nodes_measured_shares(const void *const *nodes, const uint32_t *places, uint32_t n,
				    const struct ggmlviz__spans *sp)
{
	struct run *r = ggmlviz__tls_run;
	const int open = r && r->open;
	const void **at = open ? r->nodes : NULL;
	uint32_t *place = open ? r->dense_place : NULL;
	uint64_t *op_begin = open ? r->op_begin : NULL, *op_end = open ? r->op_end : NULL;
	uint32_t started = 0, size = open ? r->n : 0, hint = open ? r->cpu_hint : 0;
	uint32_t kept = open ? r->dense_n : 0, room = open ? r->cap : 0;
	const uint64_t *const *begin = sp->begin, *const *end = sp->end;
	const uint64_t floor = sp->floor;
	const uint32_t k = sp->k, slices = sp->slices, chunk = sp->chunk;
	uint32_t t = 0, slice_end = slices ? chunk : UINT32_MAX; /* place i is in slice t */
	const uint64_t *first = slices ? sp->first[0] : NULL;
	struct ggmlviz__span prev = { 0, 0, 0 }, s;

	if (open && r->ignore_ticks)
		return;
	if (open && k == 2 && !slices) {
		measured_two(r, nodes, places, n, sp);
		return;
	}
	for (uint32_t j = 0; j < n; j++) {
		uint32_t i = places[j];
		int got, at_place;

		while (GGMLVIZ__UNLIKELY(i >= slice_end)) { /* the next slice: places ascend */
			t++;
			slice_end = t + 1 < slices ? slice_end + chunk : UINT32_MAX;
			first = t < slices ? sp->first[t] : NULL;
		}
		got = first ? ggmlviz__span_folded(first, sp->latest[t], sp->last[t], floor, i,
						   !started, &s)
			    : ggmlviz__span_stamps(begin, end, k, floor, i, !started, &s);
		if (!got)
			continue;
		started++;
		after_the_one_before(&prev, &s);
		prev = s;
		at_place = i < size && at[i] == nodes[i]; /* at its own place: the run is its split's nodes */
		if (at_place && kept < room) {
			place[kept] = i; /* kept in order (run.h) */
			op_begin[kept] = s.from;
			op_end[kept++] = s.to;
			hint = i + 1;
		} else if (!open) {
			ggmlviz__run_measured_search(r, nodes[i], s.from, s.to); /* counted: no run */
		} else {
			kept = measured_aside(r, kept, hint, nodes[i], i, at_place, s.from, s.to);
			hint = r->cpu_hint;
		}
	}
	if (open) {
		r->dense_n = kept;
		r->cpu_hint = hint;
	}
}

int ggmlviz__nodes_measured_copy(const struct ggmlviz__packed_copy *c, const uint32_t *places,
				 const uint64_t *node, uint64_t set)
{
	struct run *r = ggmlviz__tls_run;

	if (!r || !r->open || r->ignore_ticks || r->copy || r->cpu_timed || r->dense_n ||
	    !c->n || c->n > r->cap)
		return 0; /* the hand-over's: a run holding measured times takes later ones by place */
	r->copy = c;
	r->copy_at = places;
	r->copy_node = node;
	r->copy_set = set;
	return 1;
}

void ggmlviz__nodes_copy_settle(void)
{
	struct run *r = ggmlviz__tls_run;

	if (r && r->copy)
		ggmlviz__run_copy_settle(r);
}
