/*
 * A run's records at its end (run.h): its ops, timed as the run was
 * (measured shares, ticks, a GPU's own times or its kernels), each with
 * its description or, for a run that repeats a kept set, packed as
 * OP_TIMES (DESC_SET REPEAT); and its SPLIT records. nodes.c closes the
 * run and calls here, and gives here the measured times that are not at
 * their own places in the run (a search), or that one thread's copy
 * holds (run.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include <ggmlviz/nodes.h>

#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/producer/emit.h"
#include "tracer/producer/packed.h"
#include "tracer/producer/producer.h"
#include "tracer/producer/run.h"

/* ---- measured times given to the run (shares.c's, through measured.c) ---- */

void ggmlviz__run_measured_search(struct run *r, const void *node, uint64_t begin, uint64_t end)
{
	uint32_t i;

	if (!r || !r->open || end < begin) {
		atomic_fetch_add_explicit(&ggmlviz__state.shares_unasked, 1, memory_order_relaxed);
		return;
	}
	/* nodes come in the run's order: where the last one was, one further on */
	i = r->cpu_hint < r->n ? r->cpu_hint : 0;
	for (uint32_t k = 0; k < r->n; k++, i = i + 1 < r->n ? i + 1 : 0) {
		if (r->nodes[i] == node) {
			ggmlviz__run_measured_at(r, i, begin, end);
			return;
		}
	}
	atomic_fetch_add_explicit(&ggmlviz__state.shares_unasked, 1, memory_order_relaxed);
}

void ggmlviz__run_copy_settle(struct run *r)
{
	const struct ggmlviz__packed_copy *c = r->copy;
	uint32_t kept = 0, hint = r->cpu_hint;

	r->copy = NULL;
	ggmlviz__run_measured_spill(r); /* none, as it was taken; any would be by place */
	ggmlviz__packed_copy_stamps(c, r->op_begin, r->op_end); /* c->n <= r->cap */
	for (uint32_t j = 0; j < c->n; j++) {
		uint32_t i = r->copy_at[j];
		const void *node = (const void *)(uintptr_t)r->copy_node[j];
		uint64_t from = r->op_begin[j], to = r->op_end[j];

		if (i < r->n && r->nodes[i] == node) { /* kept <= j: in place */
			r->dense_place[kept] = i;
			r->op_begin[kept] = from;
			r->op_end[kept++] = to;
			hint = i + 1;
		} else {
			kept = ggmlviz__run_spilled(r, kept);
			r->cpu_hint = hint; /* the search starts there, as the hand-over's */
			ggmlviz__run_measured_search(r, node, from, to);
			hint = r->cpu_hint;
		}
	}
	r->dense_n = kept;
	r->cpu_hint = hint;
}

/* ---- descriptions given once (DESC_SET) ---- */

/* What the thread's records stand on now (producer.h). */
static struct ggmlviz__written written_now(const struct run *r)
{
	return ggmlviz__written_now(r->session);
}

/*
 * Opens the DESC_SET of a run of n ops timed by method, recorded with a
 * kept run's descriptions: REPEAT if they were written and nothing since
 * was lost (its ops then go without them: returns 1), else DEFINE (0).
 * A run with no kept run, held (rolling mode), or traced with
 * GGML_VIZ_DESCRIBE_ONCE=0 has no DESC_SET: 0.
 */
static int set_open(struct run *r, uint32_t n, uint8_t method, uint64_t at, struct ggmlviz__written *now)
{
	struct kept *kp = r->set;
	uint8_t mode;

	*now = (struct ggmlviz__written){ 0, NULL, 0 };
	if (!kp || r->staged || !(ggmlviz__mask_relaxed() & GGMLVIZ__ONCE) || !n)
		return 0;
	*now = written_now(r);
	mode = ggmlviz__written_same(&kp->written, now) ? GGMLVIZ_DESC_SET_REPEAT : GGMLVIZ_DESC_SET_DEFINE;
	if (!ggmlviz__emit_desc_set_at(at, kp->set, n, mode, method, kp->graph_id))
		now->ring = NULL; /* not written: neither is the set */
	return mode == GGMLVIZ_DESC_SET_REPEAT && now->ring;
}

/* After a DEFINE run: the set is written if every record of it was. */
static void set_close(struct run *r, int repeated, const struct ggmlviz__written *before)
{
	struct ggmlviz__written after;

	if (!r->set || repeated || !before->ring)
		return;
	after = written_now(r);
	r->set->written = ggmlviz__written_same(before, &after) ? after : (struct ggmlviz__written){ 0, NULL, 0 };
}

/*
 * The names node i + AHEAD's records will copy, fetched into the cache now:
 * each is in its node's struct, which the weights streamed through the
 * caches since the graph computed, one miss per op otherwise. Inlined
 * always, as ahead() is: GCC 12 drops a call to a function whose only
 * effect is a prefetch, as if it had none (tests/test-prefetch.sh).
 */
__attribute__((always_inline)) static inline void names_ahead(const struct run *r, uint32_t i)
{
	const struct ggmlviz_node_desc *d;

	if (i + AHEAD >= r->n)
		return;
	d = &r->d[i + AHEAD];
	if (d->name) {
		__builtin_prefetch(d->name);
		/* a name of up to 64 bytes may begin late in a line: the next one too */
		__builtin_prefetch((const void *)((uintptr_t)d->name + 32));
	}
	if (d->name2)
		__builtin_prefetch(d->name2);
}

/* One op timing, recorded now or held with its run's unit (rolling mode). */
static void record_op(const struct run *r, const struct ggmlviz_node_desc *d, const void *node,
		      uint64_t begin, uint64_t end, uint8_t method, uint8_t flags, int described)
{
	if (r->staged)
		ggmlviz__stage_op(r->backend, d, node, begin, end, method, flags);
	else
		ggmlviz__nodes_record_op(r->backend, d, node, begin, end, method, flags, described);
}

void ggmlviz__run_record_split(const struct run *r, uint64_t ts, uint8_t type,
			       const struct ggmlviz__split *s)
{
	if (r->staged)
		ggmlviz__stage_split(ts, type, s);
	else
		ggmlviz__emit_split_at(ts, type, s);
}

/*
 * The computing nodes of a run that got no tick, with method GPU, at its
 * end: the reader times each by the kernels of the run it launched.
 */
static void record_gpu_ops(const struct run *r, uint64_t at)
{
	for (uint32_t i = 0; i < r->n; i++) {
		struct ggmlviz_node_desc d = r->d[i];

		names_ahead(r, i);
		if (!d.ticks)
			continue;
		d.flags &= ~(uint32_t)GGMLVIZ_NODE_FUSED; /* a GPU backend fuses as its kernels say */
		record_op(r, &d, r->nodes[i], at, at, GGMLVIZ_OP_METHOD_GPU, 0, 0);
	}
}

/*
 * The same where the backend gave its own time of the nodes it ran
 * (ggmlviz_nodes_gpu_time(): Vulkan's timestamp queries): each computing
 * node at its time; one it gave none is one it computed in the kernel of
 * the node before (fused), whose op then names both.
 */
static uint32_t record_gpu_timed_ops(const struct run *r)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < r->n; i++) {
		struct ggmlviz_node_desc d = r->d[i];
		uint32_t next = i + 1;

		names_ahead(r, i);
		if (!d.ticks || !r->gpu[2 * i + 1])
			continue;
		d.flags &= ~(uint32_t)GGMLVIZ_NODE_FUSED;
		while (next < r->n && !r->d[next].ticks)
			next++; /* views compute nothing */
		if (next < r->n && !r->gpu[2 * next + 1]) {
			d.flags |= GGMLVIZ_NODE_FUSED;
			d.op_type2 = r->d[next].op_type;
			d.op_name2 = r->d[next].op_name;
			d.name2 = r->d[next].name;
		}
		record_op(r, &d, r->nodes[i], r->gpu[2 * i], r->gpu[2 * i + 1],
			  GGMLVIZ_OP_METHOD_GPU, 0, 0);
		n++;
	}
	return n;
}

/*
 * The ops of a run that repeats its set, k of them with their times in
 * op_begin and op_end, as OP_TIMES records (packed.c); 0 if their times
 * do not pack (then they are written op by op).
 */
static int record_times(const struct run *r, uint32_t k, uint8_t method, uint8_t flags)
{
	struct ggmlviz__times t = { r->op_begin, r->op_end, NULL, k };

	if (!ggmlviz__times_pack(&t, 0))
		return 0;
	ggmlviz__emit_op_times(r->set->set, method, flags, &t);
	return 1;
}

static uint32_t record_measured_each(struct run *r, int repeat,
				     const struct ggmlviz__written *before);

/*
 * Every op of a run whose every ticking node the CPU backend measured
 * (shares.c): each at its shares' first begin and last end, so that the
 * barrier's wait after it and the run's start before the first are in no
 * op; returns how many. packs: a repeated run's times, in op_begin and
 * op_end, pack (measured_set()): they go as OP_TIMES records.
 */
static uint32_t record_measured_ops(struct run *r, uint32_t expected, int packs)
{
	struct ggmlviz__times t = { r->op_begin, r->op_end, NULL, expected };
	struct ggmlviz__written before;
	int repeat;

	/* a kept run's first op's begin is op_begin[0] (dense_measured(), measured_set()); a
	 * run without one has no DESC_SET to begin there */
	repeat = set_open(r, expected, GGMLVIZ_OP_METHOD_MEASURED, r->set ? r->op_begin[0] : 0,
			  &before);
	if (repeat && packs) {
		ggmlviz__emit_op_times(r->set->set, GGMLVIZ_OP_METHOD_MEASURED, 0, &t);
		return expected;
	}
	return record_measured_each(r, repeat, &before);
}

/* The same op by op, with their descriptions unless repeat: by place (the DESC_SET opened). */
static uint32_t record_measured_each(struct run *r, int repeat,
				     const struct ggmlviz__written *before)
{
	uint32_t k = 0;

	ggmlviz__run_measured_spill(r);
	for (uint32_t i = 0; i < r->n; i++) {
		names_ahead(r, i);
		if (!r->d[i].ticks)
			continue;
		record_op(r, &r->d[i], r->nodes[i], r->cpu[2 * i], r->cpu[2 * i + 1],
			  GGMLVIZ_OP_METHOD_MEASURED, 0, repeat);
		k++;
	}
	set_close(r, repeat, before);
	return k;
}

/*
 * Whether r's copied times (run.h) are its ops' times, in order: its
 * kept set's ticking nodes are the shares' nodes at their places, no more
 * and no less. Looked at once for a kept set and a set of shares: each
 * stays as it was while its id does.
 */
static int copy_is_ops(const struct run *r, uint32_t expected)
{
	struct kept *kp = r->set;

	if (!kp || r->lost || expected != r->copy->n)
		return 0;
	if (kp->shares_set == r->copy_set)
		return 1;
	for (uint32_t j = 0; j < expected; j++) {
		uint32_t i = r->copy_at[j];

		if (kp->ticking[j] != i || i >= kp->n ||
		    ggmlviz__addr(kp->nodes[i]) != r->copy_node[j])
			return 0;
	}
	kp->shares_set = r->copy_set;
	return 1;
}

/*
 * Every op of a run whose times are its one worker's shares (copy_is_ops()):
 * a repeated run's OP_TIMES written from their copy, else op by op.
 */
static uint32_t record_copied_ops(struct run *r, uint32_t expected)
{
	struct ggmlviz__written before;
	int repeat = set_open(r, expected, GGMLVIZ_OP_METHOD_MEASURED, r->copy->base[0], &before);

	if (repeat) {
		ggmlviz__emit_op_times_copy(r->set->set, GGMLVIZ_OP_METHOD_MEASURED, 0, r->copy);
		r->copy = NULL;
		return expected;
	}
	ggmlviz__run_copy_settle(r);
	return record_measured_each(r, repeat, &before);
}

/* Whether every node that should tick was measured, and nothing else (a run without a kept run). */
static int all_measured(const struct run *r, uint32_t expected)
{
	uint32_t k = 0;

	if (r->cpu_timed != expected)
		return 0;
	for (uint32_t i = 0; i < r->n; i++)
		k += r->d[i].ticks && r->cpu[2 * i + 1];
	return k == expected;
}

/*
 * The same for a run with a kept run, whose list of its ops' places is
 * read instead of their descriptions (some 40 kB a run, which the weights
 * pushed out of the caches since); in the same pass, the ops' times
 * copied in order into op_begin and op_end, and *packs set where they
 * pack (ggmlviz__times_pack()'s rule, taken here once and not again).
 */
static int measured_set(struct run *r, uint32_t expected, int *packs)
{
	const uint32_t *at = r->set->ticking;
	uint64_t prev = expected ? r->cpu[2 * at[0]] : 0, first = prev;
	uint32_t missing = 0, disorder = 0;

	*packs = 0;
	if (r->cpu_timed != expected)
		return 0;
	for (uint32_t k = 0; k < expected; k++) {
		uint64_t b = r->cpu[2 * at[k]], e = r->cpu[2 * at[k] + 1];

		missing += e == 0;
		disorder += (b < prev) | (e < b);
		r->op_begin[k] = b;
		r->op_end[k] = e;
		prev = e;
	}
	*packs = expected && !disorder && ggmlviz__times_fit(first, prev);
	return missing == 0;
}

/*
 * The same for a run that repeats its kept set and whose every measured
 * time was kept in order (run.h): every op measured, at the kept set's
 * places, in op_begin and op_end already; *packs where they pack (their
 * order checked here unless the hand-over found it as it kept them).
 */
static int dense_measured(const struct run *r, uint32_t expected, int *packs)
{
	struct ggmlviz__times t = { r->op_begin, r->op_end, NULL, expected };

	*packs = 0;
	if (r->cpu_timed || r->dense_n != expected ||
	    memcmp(r->dense_place, r->set->ticking, expected * sizeof *r->dense_place))
		return 0;
	*packs = r->dense_ordered == expected
			 ? ggmlviz__times_fit(r->op_begin[0], r->op_end[expected - 1])
			 : ggmlviz__times_pack(&t, 0);
	return 1;
}

/* A repeated run's ticked ops, packed: 0 if they were not (see record_times). */
static int record_ticked_times(struct run *r, uint32_t expected)
{
	uint64_t prev = r->last_ask_stamp;

	for (uint32_t k = 0; k < expected; k++) {
		r->op_begin[k] = prev;
		r->op_end[k] = prev = r->ticks[k];
	}
	return record_times(r, expected, GGMLVIZ_OP_METHOD_TICK, GGMLVIZ_NODE_RUN_START) ? 1 : 0;
}

/* Every op of a run whose ticks match its nodes; returns how many. */
static uint32_t record_ops(struct run *r, uint32_t expected)
{
	uint64_t prev = r->last_ask_stamp;
	uint32_t k = 0;
	struct ggmlviz__written before;
	int repeat = set_open(r, expected, GGMLVIZ_OP_METHOD_TICK, prev, &before);

	if (repeat && record_ticked_times(r, expected))
		return expected;
	for (uint32_t i = 0; i < r->n; i++) {
		names_ahead(r, i);
		if (!r->d[i].ticks)
			continue;
		record_op(r, &r->d[i], r->nodes[i], prev, r->ticks[k], GGMLVIZ_OP_METHOD_TICK,
			  k ? 0 : GGMLVIZ_NODE_RUN_START, repeat);
		prev = r->ticks[k++];
	}
	set_close(r, repeat, &before);
	return k;
}

uint32_t ggmlviz__run_record_ops(struct run *r, uint32_t expected, uint64_t end)
{
	uint32_t got = r->n_ticks;
	int packs = 0;

	if (r->set)
		r->set->measured = 0;
	if (r->copy && !r->ignore_ticks && copy_is_ops(r, expected)) {
		r->set->measured = 1;
		return record_copied_ops(r, expected);
	}
	if (r->copy)
		ggmlviz__run_copy_settle(r); /* by place, as the hand-over gives them (to a quantum) */
	if (r->set && expected && r->dense_n && !r->ignore_ticks && !r->lost &&
	    dense_measured(r, expected, &packs)) {
		r->set->measured = 1;
		return record_measured_ops(r, expected, packs);
	}
	ggmlviz__run_measured_spill(r); /* any other run's measured times: by place, as before */
	if (r->cpu_timed && !r->ignore_ticks && !r->lost &&
	    (r->set ? measured_set(r, expected, &packs) : all_measured(r, expected))) {
		if (r->set)
			r->set->measured = 1;
		return record_measured_ops(r, expected, packs);
	}
	if (got && !r->ignore_ticks && got == expected && !r->lost)
		return record_ops(r, expected);
	if (got && !r->ignore_ticks)
		atomic_fetch_add_explicit(&ggmlviz__state.mismatches, 1, memory_order_relaxed);
	else if (r->gpu_timed && !r->ignore_ticks && !r->lost)
		return record_gpu_timed_ops(r);
	else if (r->run_id && !r->ignore_ticks && !r->lost)
		record_gpu_ops(r, end);
	return 0;
}
