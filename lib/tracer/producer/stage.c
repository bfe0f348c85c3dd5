/*
 * A unit's runs, held until it ends (see producer.h): rolling mode keeps
 * a step's ops one by one only where the step is sampled or slow, which
 * is known at its end; until then its SPLIT records, the GRAPH records
 * inside it and its ops wait here, per thread, in the order they would
 * have been recorded. At the end they are recorded as they were, or the
 * SPLIT and GRAPH records with the ops summed by op type and backend
 * (OP_SUMMARY), the runs' n_timed then 0: no op of theirs is in the file.
 * With a flight recorder, a summed unit goes to the rings twice: as kept,
 * for the flight recorder only, and summed, for the file only (base.h's
 * routes; the writer sends each where it goes, writer/route.c).
 *
 * Only the node engine's path comes here (a run's end, a graph's begin
 * and end), never the emit fast path; its arrays grow as the node
 * engine's own do, up to GGMLVIZ__STAGE_MAX ops.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/nodes.h>

#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/producer/emit.h"
#include "tracer/producer/producer.h"
#include "util/pages.h"

#define STAGE_MIN 256u
#define SUMS_MAX 128u /* op types and backends in one unit; more are summed into the last */

enum { HELD_SPLIT, HELD_GRAPH, HELD_OP };

struct held {
	uint8_t kind, type, method, flags;
	uint64_t ts, end; /* raw stamps; an op's begin and end */
	union {
		struct ggmlviz__split split;
		struct {
			uint64_t graph, backend;
			uint32_t n_nodes, n_threads;
		} graph;
		struct {
			const void *node, *backend;
			struct ggmlviz_node_desc desc;
		} op;
	} u;
};

struct stage {
	struct ggmlviz__perthread_item item; /* first: listed, freed when its thread ends */
	struct held *h;
	uint32_t n, cap, ops;
	uint64_t session;
	int full; /* an op could not be held: the unit is summed */
};

static _Thread_local struct stage *tls_stage __attribute__((tls_model("initial-exec")));

static void stage_free(struct ggmlviz__perthread_item *it)
{
	struct stage *st = (struct stage *)(void *)it;

	ggmlviz__pages_free(st->h);
	ggmlviz__pages_free(st);
}

static struct ggmlviz__perthread stages = { stage_free, 0, 0, NULL };

void ggmlviz__stage_unload(void)
{
	tls_stage = NULL;
	ggmlviz__perthread_unload(&stages);
}

/* The calling thread's stage, made on first use, emptied if a session began since; or NULL. */
static struct stage *stage_get(void)
{
	uint64_t session = atomic_load_explicit(&ggmlviz__state.session, memory_order_relaxed);
	struct stage *st = tls_stage;

	if (!st) {
		if (!(st = ggmlviz__pages_array(1, sizeof *st)))
			return NULL;
		ggmlviz__perthread_keep(&stages, &st->item); /* freed when the thread ends */
		tls_stage = st;
	}
	if (st->session != session)
		st->n = st->ops = 0, st->full = 0, st->session = session;
	return st;
}

/* Room for one more entry; NULL when none (out of memory, or too many ops). */
static struct held *stage_add(struct stage *st, uint8_t kind)
{
	uint32_t cap = st->cap ? st->cap * 2 : STAGE_MIN;
	struct held *h;

	if (kind == HELD_OP && st->ops >= GGMLVIZ__STAGE_MAX)
		return NULL;
	if (st->n == st->cap) {
		if (!(h = ggmlviz__pages_resize(st->h, cap * sizeof *h)))
			return NULL;
		st->h = h, st->cap = cap;
	}
	h = &st->h[st->n++];
	h->kind = kind;
	st->ops += kind == HELD_OP;
	return h;
}

void ggmlviz__stage_split(uint64_t ts, uint8_t type, const struct ggmlviz__split *s)
{
	struct stage *st = stage_get();
	struct held *h = st ? stage_add(st, HELD_SPLIT) : NULL;

	if (!h) { /* a run's records are never lost: recorded now, out of order */
		ggmlviz__emit_split_at(ts, type, s);
		return;
	}
	h->type = type, h->ts = ts, h->u.split = *s;
}

void ggmlviz__stage_graph(uint64_t ts, uint8_t type, uint64_t graph, uint32_t n_nodes,
			  uint32_t n_threads, uint64_t backend)
{
	struct stage *st = stage_get();
	struct held *h = st ? stage_add(st, HELD_GRAPH) : NULL;

	if (!h) {
		ggmlviz__emit_graph_at(ts, type, graph, n_nodes, n_threads, backend);
		return;
	}
	h->type = type, h->ts = ts;
	h->u.graph.graph = graph, h->u.graph.backend = backend;
	h->u.graph.n_nodes = n_nodes, h->u.graph.n_threads = n_threads;
}

void ggmlviz__stage_op(const void *backend, const struct ggmlviz_node_desc *d, const void *node,
		       uint64_t begin, uint64_t end, uint8_t method, uint8_t flags)
{
	struct stage *st = stage_get();
	struct held *h = st ? stage_add(st, HELD_OP) : NULL;

	if (!h) {
		if (st)
			st->full = 1;
		return;
	}
	h->method = method, h->flags = flags, h->ts = begin, h->end = end;
	h->u.op.node = node, h->u.op.backend = backend, h->u.op.desc = *d;
}

/* ---- at the unit's end ---- */

/* Adds an op to the sums of its op type and backend. */
static void sum_op(struct ggmlviz__op_summary *sums, uint32_t *n, const struct held *h)
{
	uint32_t op_type = ggmlviz__nodes_op_type(&h->u.op.desc), i;
	uint64_t backend = ggmlviz__addr(h->u.op.backend), d = h->end - h->ts;

	for (i = 0; i < *n; i++)
		if (sums[i].op_type == op_type && sums[i].backend == backend)
			break;
	if (i == *n && *n == SUMS_MAX)
		i = SUMS_MAX - 1; /* never with GGML's op types: summed into the last */
	else if (i == *n)
		sums[(*n)++] = (struct ggmlviz__op_summary){ op_type, 0, 0, backend, 0 };
	sums[i].count++;
	sums[i].total_stamps += d;
	if (d > sums[i].max_stamps)
		sums[i].max_stamps = d;
}

/* Records one held entry as it would have been; a summed run says no op was timed. */
static void record(const struct held *h, int keep)
{
	struct ggmlviz__split s;

	switch (h->kind) {
	case HELD_SPLIT:
		s = h->u.split;
		if (!keep)
			s.n_timed = 0;
		ggmlviz__emit_split_at(h->ts, h->type, &s);
		break;
	case HELD_GRAPH:
		ggmlviz__emit_graph_at(h->ts, h->type, h->u.graph.graph, h->u.graph.n_nodes,
				       h->u.graph.n_threads, h->u.graph.backend);
		break;
	default:
		ggmlviz__nodes_record_op(h->u.op.backend, &h->u.op.desc, h->u.op.node, h->ts,
					 h->end, h->method, h->flags, 0);
		break;
	}
}

/*
 * A unit rolling mode sums, op by op for the flight recorder only: its
 * held entries as kept, then the file's summed version after them
 * (GGMLVIZ__ROUTE_FILE); returns whether the route was changed.
 */
static int flight_copy(const struct stage *st)
{
	ggmlviz__emit_route(GGMLVIZ__ROUTE_FLIGHT);
	for (uint32_t i = 0; i < st->n; i++)
		record(&st->h[i], 1);
	ggmlviz__emit_route(GGMLVIZ__ROUTE_FILE);
	return 1;
}

void ggmlviz__stage_flush(int keep)
{
	struct ggmlviz__op_summary sums[SUMS_MAX];
	struct stage *st = stage_get();
	uint32_t n_sums = 0;
	uint64_t now;
	int routed;

	if (!st)
		return;
	keep = keep && !st->full;
	routed = !keep && !st->full && st->ops && ggmlviz__flight() && flight_copy(st);
	for (uint32_t i = 0; i < st->n; i++) {
		const struct held *h = &st->h[i];

		if (keep || h->kind != HELD_OP)
			record(h, keep);
		else if (h->method == GGMLVIZ_OP_METHOD_TICK) /* a GPU op's time is its kernels' */
			sum_op(sums, &n_sums, h);
	}
	now = ggmlviz__stamp();
	for (uint32_t i = 0; i < n_sums; i++)
		ggmlviz__emit_op_summary_at(now, &sums[i]);
	if (routed)
		ggmlviz__emit_route(GGMLVIZ__ROUTE_BOTH);
	st->n = st->ops = 0;
	st->full = 0;
}
