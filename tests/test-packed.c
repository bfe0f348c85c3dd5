/*
 * Packed times (ggmlviz(5), "Packed times"): a repeated run's ops as
 * OP_TIMES records, a worker's shares of a graph as SHARE_TIMES records.
 *   - the writer: a ticked run of a graph run again is one OP_TIMES, whose
 *     ops, read back, touch and run from the run's last ask (the DESC_SET's
 *     timestamp) to its last tick (the SPLIT_END's), within the packed
 *     stamps' quantum: the writer's conversion adds no rounding up;
 *   - a thread's shares: DEFINE at its first graph (with each node and op
 *     type), REPEAT after (times only), and every share read back as an
 *     OP_SHARE would give it: its node, op, place, begin, compute, and a
 *     wait that reaches the next share's begin;
 *   - at one thread, a repeated run's OP_TIMES are its shares' SHARE_TIMES
 *     bytes (the same stamp, the same body); a run computed twice takes its
 *     last graph; the copy given by place where the run's set is another
 *     (a new graph id), its nodes elsewhere (looked for), or its ticking
 *     places the shares' but not their nodes (each op at its own share),
 *     or its shares' records lost to a full ring (by place, from the
 *     stamps);
 *   - shares begun out of their places' order are written one by one, and
 *     a graph of fewer shares than its set defines a set anew;
 *   - a tick takes the end of the share just ended (no clock read of its
 *     own), and a measured graph's asks are stamped at its first only;
 *   - GGML_VIZ_DESCRIBE_ONCE=0 writes neither; GGML_VIZ_ANONYMIZE changes
 *     the node addresses a DEFINE's body holds as it does the OP records';
 *   - what does not pack (out of order, past 32 bits) is left to records
 *     op by op (packed.c's check).
 * The reader alone, on records made by hand: test-packed-reader.c.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ggmlviz/format.h>
#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "gpu-sim.h"
#include "held-writer.h"
#include "trace-util.h"
#include "tracer/base/clock.h"
#include "tracer/producer/fold.h"
#include "tracer/producer/producer.h"

#define NODES 5
#define GRAPHS 4
#define MAX_SEEN 256

/* packed.c's check (internal: the library's own name for it). */
struct ggmlviz__times {
	const uint64_t *begin, *end;
	const uint32_t *node;
	uint32_t n;
};
int ggmlviz__times_pack(const struct ggmlviz__times *t, uint64_t until);

static const struct gs_node graph[NODES] = {
	{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 3, "MUL_MAT", "Qcur-0", 0 },
	{ 5, "ROPE", "Qcur-0 (rope)", 0 },  { 3, "MUL_MAT", "ffn_up-0", 0 },
	{ 6, "ADD", "ffn_inp-1", 1 },
};
static char cpu_backend, pool;

static uint32_t op_of(const void *node)
{
	return ((const struct gs_node *)node)->op;
}

static const struct gs_node view_node = { 21, "VIEW", "cache_k-0 (view)", 0 };
static const void *const graph_nodes[NODES] = { &graph[0], &graph[1], &graph[2], &graph[3],
						&graph[4] };

/* gs_describe, and view_node a view: no op, no tick. */
static void describe_view(void *user, const void *const *ns, size_t n, size_t i,
			  struct ggmlviz_node_desc *out)
{
	gs_describe(user, ns, n, i, out);
	if (ns[i] == &view_node)
		out->ticks = 0;
}

/* The graph's nodes computed by this thread, alone: each a share (with shares) and a tick. */
static void compute_alone(int shares)
{
	for (int i = 0; i < NODES; i++) {
		if (shares)
			ggmlviz_cpu_share_begin(&pool, 0, i);
		tu_spin_ns(20000u * (uint64_t)(i + 1));
		if (shares)
			ggmlviz_cpu_share_end(&pool, 0, i);
		ggmlviz_nodes_tick();
		tu_spin_ns(3000);
	}
	if (shares)
		ck_assert_int_eq(ggmlviz_cpu_graph_done(&pool, 0, 1, graph_nodes, NODES, op_of), NODES);
}

/*
 * A run of graph id whose nodes are asked as `asked` (n of them), the
 * graph computed by this thread alone `times` times (1: as llama.cpp's
 * step computes it on GGML's CPU backend with one thread); with shares,
 * its ops are measured, without, ticked. Not ended.
 */
static void run_of(uint64_t id, const void *const *asked, int n, int shares, int times)
{
	ggmlviz_nodes_graph_id(id);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(asked[i], &cpu_backend, describe_view, NULL), 0);
	for (int t = 0; t < times; t++)
		compute_alone(shares);
}

/* The same of the graph's nodes, and the run ends. */
static void cpu_run(int shares, uint64_t id, int times)
{
	run_of(id, graph_nodes, NODES, shares, times);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

static void cpu_graph(int shares)
{
	cpu_run(shares, 11, 1);
}

static void trace_graphs(const char *path, int shares, int every, int anonymize)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, path);
	cfg.gpu_kernels = 0;
	cfg.describe_every = (uint32_t)every;
	cfg.anonymize = anonymize;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	for (int g = 0; g < GRAPHS; g++)
		cpu_graph(shares);
	ck_assert_int_eq(ggmlviz_stop(), 0);
}

/* ---- what the file holds, and what the reader gives ---- */

struct seen {
	size_t op_times, share_times, defines, op_shares, op_records;
	uint64_t set_ts[GRAPHS], split_end_ts[GRAPHS], id_tensor[NODES], op_tensor[NODES];
	size_t sets, splits;
	uint64_t dropped; /* events said lost (META DROPPED) */
	struct ggmlviz_timing op[MAX_SEEN], share[MAX_SEEN];
	char name[MAX_SEEN][32]; /* each op's label: its pointer is valid during the call only */
	size_t ops, shares;
};

static uint64_t le(const char *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i-- > 0;)
		v = v << 8 | (uint8_t)p[i];
	return v;
}

static void count_share_times(const struct ggmlviz_event *ev, struct seen *s)
{
	s->share_times++;
	ck_assert_uint_eq(ev->data.share_times.n_shares, NODES);
	ck_assert_uint_eq(ev->data.share_times.first, 0);
	if (ev->data.share_times.mode != GGMLVIZ_DESC_SET_DEFINE) {
		ck_assert_uint_eq(ev->label_len, NODES * GGMLVIZ_OP_TIMES_ENTRY);
		return;
	}
	s->defines++;
	ck_assert_uint_eq(ev->label_len,
			  NODES * (GGMLVIZ_OP_TIMES_ENTRY + GGMLVIZ_SHARE_TIMES_IDENTITY));
	for (int i = 0; i < NODES; i++)
		s->id_tensor[i] = le(ev->label + GGMLVIZ_SHARE_TIMES_IDENTITY * (unsigned)i, 8);
}

static int count(const struct ggmlviz_event *ev, void *arg)
{
	struct seen *s = arg;

	switch (ev->type) {
	case GGMLVIZ_EVENT_OP_TIMES:
		s->op_times++;
		break;
	case GGMLVIZ_EVENT_SHARE_TIMES:
		count_share_times(ev, s);
		break;
	case GGMLVIZ_EVENT_OP_SHARE:
		s->op_shares++;
		break;
	case GGMLVIZ_EVENT_OP_COMPUTE_BEGIN:
		if (s->op_records < NODES)
			s->op_tensor[s->op_records] = ev->data.op.tensor_ptr;
		s->op_records++;
		break;
	case GGMLVIZ_EVENT_DESC_SET:
		if (s->sets < GRAPHS)
			s->set_ts[s->sets++] = ev->timestamp_ns;
		break;
	case GGMLVIZ_EVENT_SPLIT_END:
		if (s->splits < GRAPHS)
			s->split_end_ts[s->splits++] = ev->timestamp_ns;
		break;
	case GGMLVIZ_EVENT_META:
		if (ev->data.meta.kind == GGMLVIZ_META_DROPPED)
			s->dropped += ev->data.meta.value;
		break;
	default:
		break;
	}
	return 0;
}

static void note(const struct ggmlviz_timing *t, void *arg)
{
	struct seen *s = arg;

	if (t->kind == GGMLVIZ_TIMING_OP && s->ops < MAX_SEEN) {
		snprintf(s->name[s->ops], sizeof s->name[0], "%.*s", (int)t->label_len,
			 t->label ? t->label : "");
		s->op[s->ops++] = *t;
	}
	else if (t->kind == GGMLVIZ_TIMING_SHARE && s->shares < MAX_SEEN)
		s->share[s->shares++] = *t;
}

static struct seen *read_trace(const char *path)
{
	struct seen *s = calloc(1, sizeof *s);

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(tu_each(path, count, s), 0);
	ck_assert_int_eq(tu_each_timing(path, note, s), 0);
	unlink(path);
	return s;
}

/* Op k of the reader's is node k % NODES, named and typed as its first run wrote it. */
static void assert_op(const struct seen *s, size_t k, uint8_t method)
{
	const struct ggmlviz_timing *t = &s->op[k];
	const struct gs_node *nd = &graph[k % NODES];

	ck_assert_uint_eq(t->ptr, (uint64_t)(uintptr_t)nd);
	ck_assert_uint_eq(t->op_type, nd->op);
	ck_assert_str_eq(s->name[k], nd->name);
	ck_assert_int_eq(t->layer, nd->layer);
	ck_assert_int_eq(t->ne[0], 512);
	ck_assert_uint_eq(t->op_size, 4096);
	ck_assert_uint_eq(t->backend_ptr, (uint64_t)(uintptr_t)&cpu_backend);
	ck_assert_int_eq(t->method, method);
	ck_assert_uint_ge(t->end_ns, t->begin_ns);
	ck_assert_uint_ge(t->duration_ns, 20000u * (k % NODES + 1));
}

static uint64_t diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * Packed stamps keep 4 TSC ticks at the finest (clock.h's shift: 32 bits
 * reach 4.29 s), under 2 ns on a CPU of 2 GHz or more; two packed times
 * taken from one stamp may differ by that, once in each record.
 */
#define QUANTUM 4

START_TEST(ticked_runs_pack_to_the_nanosecond)
{
	char path[256];
	struct seen *s;

	tu_path(path, sizeof path, "packed-ticks");
	trace_graphs(path, 0, 0, 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->op_times, GRAPHS - 1); /* the first run defines, the others pack */
	ck_assert_uint_eq(s->op_records, NODES);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = 0; k < s->ops; k++)
		assert_op(s, k, GGMLVIZ_OP_METHOD_TICK);
	for (size_t g = 0; g < GRAPHS; g++) {
		const struct ggmlviz_timing *first = &s->op[g * NODES], *last = &first[NODES - 1];

		ck_assert_int_eq(!!(first->node_flags & GGMLVIZ_NODE_RUN_START), 1);
		ck_assert_uint_le(diff(first->begin_ns, s->set_ts[g]), QUANTUM);
		ck_assert_uint_le(diff(last->end_ns, s->split_end_ts[g]), QUANTUM);
		for (size_t i = 1; i < NODES; i++) /* ticked ops touch */
			ck_assert_uint_le(diff(first[i].begin_ns, first[i - 1].end_ns), QUANTUM);
	}
	free(s);
}
END_TEST

/* Share k and the one after it of the same graph: compute, wait, and the next begin. */
static void assert_share(const struct seen *s, size_t k)
{
	const struct ggmlviz_timing *sh = &s->share[k];
	size_t i = k % NODES;

	ck_assert_int_eq(sh->kind, GGMLVIZ_TIMING_SHARE);
	ck_assert_uint_eq(sh->ptr, (uint64_t)(uintptr_t)&graph[i]);
	ck_assert_uint_eq(sh->op_type, graph[i].op);
	ck_assert_uint_eq(sh->n_nodes, i);
	ck_assert_uint_eq(sh->ticks, 0);
	ck_assert_uint_eq(sh->n_threads, 1);
	ck_assert_uint_ge(sh->duration_ns, 20000u * (i + 1));
	ck_assert_uint_ge(sh->value, 2000); /* the tick and the spin after it */
	if (i + 1 < NODES)
		ck_assert_uint_le(diff(sh->end_ns + sh->value, sh[1].begin_ns), QUANTUM);
}

START_TEST(shares_defined_once_then_times_only)
{
	char path[256];
	struct seen *s;

	tu_path(path, sizeof path, "packed-shares");
	trace_graphs(path, 1, 0, 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->share_times, GRAPHS);
	ck_assert_uint_eq(s->defines, 1);
	ck_assert_uint_eq(s->op_shares, 0);
	ck_assert_uint_eq(s->op_times, GRAPHS - 1);
	ck_assert_uint_eq(s->shares, GRAPHS * NODES);
	for (size_t k = 0; k < s->shares; k++)
		assert_share(s, k);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = 0; k < s->ops; k++) { /* each op at its one thread's share */
		assert_op(s, k, GGMLVIZ_OP_METHOD_MEASURED);
		if (k % NODES) /* the first begins where its last thread began: the same here */
			ck_assert_uint_le(diff(s->op[k].begin_ns, s->share[k].begin_ns), QUANTUM);
		ck_assert_uint_le(diff(s->op[k].end_ns, s->share[k].end_ns), QUANTUM);
	}
	free(s);
}
END_TEST

/* A trace's SHARE_TIMES REPEAT and OP_TIMES records: their stamps and bodies. */
struct bodies {
	uint64_t share_ts[GRAPHS], op_ts[GRAPHS];
	uint8_t share[GRAPHS][NODES * GGMLVIZ_OP_TIMES_ENTRY], op[GRAPHS][NODES * GGMLVIZ_OP_TIMES_ENTRY];
	size_t shares, ops;
};

static int keep_body(const struct ggmlviz_event *ev, void *arg)
{
	struct bodies *b = arg;
	int repeat = ev->type == GGMLVIZ_EVENT_SHARE_TIMES &&
		     ev->data.share_times.mode == GGMLVIZ_DESC_SET_REPEAT;

	if ((!repeat && ev->type != GGMLVIZ_EVENT_OP_TIMES) ||
	    (repeat ? b->shares : b->ops) >= GRAPHS)
		return 0;
	ck_assert_uint_eq(ev->label_len, NODES * GGMLVIZ_OP_TIMES_ENTRY);
	if (repeat) {
		b->share_ts[b->shares] = ev->timestamp_ns;
		memcpy(b->share[b->shares++], ev->label, ev->label_len);
	} else {
		b->op_ts[b->ops] = ev->timestamp_ns;
		memcpy(b->op[b->ops++], ev->label, ev->label_len);
	}
	return 0;
}

/*
 * At one thread a repeated run's OP_TIMES are written from its shares'
 * SHARE_TIMES as they were written (shares.c): the same stamp and the
 * same bytes, record for record, and each op read back at its share's
 * very nanoseconds.
 */
START_TEST(one_thread_ops_are_their_shares_bytes)
{
	char path[256];
	struct bodies b = { 0 };
	struct seen *s;

	tu_path(path, sizeof path, "packed-copy");
	trace_graphs(path, 1, 0, 0);
	ck_assert_int_eq(tu_each(path, keep_body, &b), 0);
	s = read_trace(path);
	ck_assert_uint_eq(b.shares, GRAPHS - 1); /* the first graph defines its shares */
	ck_assert_uint_eq(b.ops, GRAPHS - 1);    /* and its run its descriptions */
	for (size_t g = 0; g < b.ops; g++) {
		ck_assert_uint_eq(b.op_ts[g], b.share_ts[g]);
		ck_assert_mem_eq(b.op[g], b.share[g], sizeof b.op[g]);
	}
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = NODES; k < s->ops; k++) {
		ck_assert_uint_eq(s->op[k].begin_ns, s->share[k].begin_ns);
		ck_assert_uint_eq(s->op[k].end_ns, s->share[k].end_ns);
	}
	free(s);
}
END_TEST

/* A session of its own, traced to path (tag), GPU kernels not followed. */
static void start_alone(char *path, size_t size, const char *tag)
{
	struct ggmlviz_config cfg;

	tu_config_cpu(&cfg, path, size, tag);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
}

/* The session's records read back; the session stopped first. */
static struct seen *stopped_and_read(const char *path)
{
	struct seen *s = calloc(1, sizeof *s);

	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(tu_each_timing(path, note, s), 0);
	unlink(path);
	return s;
}

/*
 * A session of its own (tag) of GRAPHS runs of graph 11, each asked as
 * `asked` (n nodes) and computed `times` times by this thread; read back.
 */
static struct seen *traced_runs(char *path, size_t size, const char *tag,
				const void *const *asked, int n, int times)
{
	start_alone(path, size, tag);
	for (int g = 0; g < GRAPHS; g++) {
		run_of(11, asked, n, 1, times);
		ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	}
	return stopped_and_read(path);
}

/* op measured at share sh, to a packed stamp's quantum (a run's first op: its end only). */
static void assert_at_share(const struct ggmlviz_timing *op, const struct ggmlviz_timing *sh,
			    int first)
{
	ck_assert_ptr_nonnull(sh);
	ck_assert_int_eq(op->method, GGMLVIZ_OP_METHOD_MEASURED);
	ck_assert_uint_eq(op->ptr, sh->ptr);
	if (!first) /* the first begins where its last thread began: the run's start before */
		ck_assert_uint_le(diff(op->begin_ns, sh->begin_ns), QUANTUM);
	ck_assert_uint_le(diff(op->end_ns, sh->end_ns), QUANTUM);
}

/*
 * A run whose one thread computes its graph twice (the copy of the
 * first graph's times given by place at the second's end): each op is
 * the second graph's, measured.
 */
START_TEST(one_thread_run_computed_twice_takes_its_last_graph)
{
	char path[256];
	struct seen *s;

	s = traced_runs(path, sizeof path, "packed-twice", graph_nodes, NODES, 2);
	ck_assert_uint_eq(s->shares, 2 * GRAPHS * NODES);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = 0; k < s->ops; k++)
		assert_at_share(&s->op[k], &s->share[(2 * (k / NODES) + 1) * NODES + k % NODES],
				k % NODES == 0);
	free(s);
}
END_TEST

/*
 * The same nodes under a new graph id at each run: the shares repeat,
 * the run's descriptions do not, so its ops are written one by one with
 * them, the copied times given by place (a packed stamp's quantum off).
 */
START_TEST(one_thread_new_graph_ids_give_their_copy_by_place)
{
	char path[256];
	struct seen *s;

	start_alone(path, sizeof path, "packed-ids");
	for (int g = 0; g < GRAPHS; g++)
		cpu_run(1, 11 + (uint64_t)g, 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->defines, 1);
	ck_assert_uint_eq(s->op_times, 0);
	ck_assert_uint_eq(s->op_records, GRAPHS * NODES);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = 0; k < s->ops; k++) {
		assert_op(s, k, GGMLVIZ_OP_METHOD_MEASURED);
		assert_at_share(&s->op[k], &s->share[k], 0);
	}
	free(s);
}
END_TEST

/*
 * A run that asks a view before the graph's nodes, so that each is one
 * place further on in the run than in the graph: the copied times are
 * each looked for in the run (as the hand-over looks), and every op is
 * measured at its share.
 */
START_TEST(one_thread_copy_at_other_places_is_looked_for)
{
	static const void *const asked[NODES + 1] = { &view_node, &graph[0], &graph[1],
						      &graph[2], &graph[3], &graph[4] };
	char path[256];
	struct seen *s;

	s = traced_runs(path, sizeof path, "packed-places", asked, NODES + 1, 1);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = 0; k < s->ops; k++)
		assert_at_share(&s->op[k], &s->share[k], k % NODES == 0);
	free(s);
}
END_TEST

/* The share of run g whose node is op's: the one its time must be. */
static const struct ggmlviz_timing *share_of_op(const struct seen *s, size_t g,
						 const struct ggmlviz_timing *op)
{
	for (size_t j = g * NODES; j < (g + 1) * NODES && j < s->shares; j++)
		if (s->share[j].ptr == op->ptr)
			return &s->share[j];
	return NULL;
}

/*
 * A run that asks the graph's first two nodes the other way round: the
 * places of its ticking nodes are the shares', their nodes are not, so
 * the copy is not its OP_TIMES; each op is measured at its own node's
 * share, not at the one of its place.
 */
START_TEST(one_thread_copy_of_other_nodes_is_not_the_runs)
{
	static const void *const asked[NODES] = { &graph[1], &graph[0], &graph[2], &graph[3],
						  &graph[4] };
	char path[256];
	struct seen *s;

	s = traced_runs(path, sizeof path, "packed-order", asked, NODES, 1);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = 0; k < s->ops; k++)
		assert_at_share(&s->op[k], share_of_op(s, k / NODES, &s->op[k]),
				s->op[k].ptr == (uint64_t)(uintptr_t)&graph[0]);
	free(s);
}
END_TEST

/*
 * A run whose one thread, after computing its graph (the run holding the
 * copy of its shares' times), computes a share of another pool's graph as
 * that pool's worker 1 before the run ends: that graph's end, which
 * writes over the copy, gives the run its times first, and every op of
 * every run is measured.
 */
START_TEST(one_thread_copy_outlives_a_graph_of_another_pool)
{
	static const struct gs_node other = { 3, "MUL_MAT", "other-pool", 0 };
	const void *other_nodes[1] = { &other };
	char path[256], other_pool;
	struct seen *s;

	start_alone(path, sizeof path, "packed-pools");
	for (int g = 0; g < GRAPHS; g++) {
		run_of(11, graph_nodes, NODES, 1, 1);
		if (g == GRAPHS - 1) { /* the last run holds its copy: another pool's graph ends */
			ggmlviz_cpu_share_begin(&other_pool, 1, 0);
			tu_spin_ns(2000);
			ggmlviz_cpu_share_end(&other_pool, 1, 0);
			ck_assert_int_eq(ggmlviz_cpu_graph_done(&other_pool, 1, 2, other_nodes, 1, op_of), 1);
		}
		ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	}
	s = stopped_and_read(path);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = 0; k < s->ops; k++)
		assert_at_share(&s->op[k], &s->share[k], k % NODES == 0);
	free(s);
}
END_TEST

/* The calling thread's ring filled with marks, none lost, until a record of `size` bytes does not fit. */
static void ring_filled_below(uint64_t size)
{
	struct ggmlviz__ring *r = ggmlviz__thread_ring();
	uint64_t v = 0;

	ck_assert_ptr_nonnull(r);
	while (atomic_load(&r->tail) + r->mask + 1 - r->pos >= size)
		ggmlviz_mark(NULL, v++);
	ck_assert_uint_eq(atomic_load(&r->dropped), 0);
}

/*
 * At one thread, a graph whose SHARE_TIMES REPEAT found its ring full
 * (the writer held, the ring filled with marks, none lost, just short of
 * that record before the graph's end, so that the set still stands and
 * the record is the one lost): the thread's copy of it holds nothing of
 * this graph (what it holds is the graph before's), so the run is given its times
 * by place from the slot's stamps, as at two threads, and once the writer
 * has made room, every op of that run is still written, measured, in
 * order and after the run before (not that run's times, copied before);
 * only the graph's shares are lost (said DROPPED), and the runs after it
 * are their shares' again.
 */
START_TEST(one_thread_shares_lost_give_the_run_its_times_by_place)
{
	enum { LOST = 2 };
	struct ggmlviz_config cfg;
	struct ggmlviz__writer *w;
	char path[256];
	struct seen *s;

	tu_config_cpu(&cfg, path, sizeof path, "packed-lost");
	cfg.buffer_events = cfg.buffer_events_max = 64; /* 4 KiB, never grown */
	w = start_held(&cfg);
	for (int g = 0; g < GRAPHS; g++) {
		run_of(11, graph_nodes, NODES, 1, 0);
		if (g == LOST) /* the SHARE_TIMES REPEAT of NODES times does not fit */
			ring_filled_below(GGMLVIZ_LABELED_RECORD_SIZE + NODES * GGMLVIZ_OP_TIMES_ENTRY);
		compute_alone(1);
		ggmlviz__drain_pass(w, 0); /* room for the run's records */
		ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
		ggmlviz__drain_pass(w, 0);
	}
	stop_held(0);
	s = read_trace(path);
	ck_assert_uint_eq(s->shares, (GRAPHS - 1) * NODES);
	ck_assert_uint_eq(s->dropped, 1); /* that record alone */
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = 0; k < s->ops; k++) {
		size_t g = k / NODES;

		assert_op(s, k, GGMLVIZ_OP_METHOD_MEASURED);
		if (k) /* each run after the one before: its own graph's times */
			ck_assert_uint_ge(s->op[k].begin_ns, s->op[k - 1].end_ns);
		if (g != LOST)
			assert_at_share(&s->op[k], &s->share[k - (g > LOST ? NODES : 0)], k % NODES == 0);
	}
	free(s);
}
END_TEST

/*
 * A session (tag, its file in path) whose graph ran measured once, then a
 * run of the same graph asked again, its asks 10 us apart: the run that
 * the tick tests below compute with one thread's shares of two.
 */
static void ticked_run_asked(const char *tag, char *path, size_t size)
{
	struct ggmlviz_config cfg;

	tu_config_cpu(&cfg, path, size, tag);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	cpu_graph(1); /* measured */
	ggmlviz_nodes_graph_id(11);
	for (int i = 0; i < NODES; i++) {
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &cpu_backend, describe_view, NULL), 0);
		tu_spin_ns(10000);
	}
}

/*
 * A graph whose shares are not every thread's (it says two, only thread 0
 * shares) is timed by its ticks: each tick took the end of the share
 * thread 0 had just ended, the time read there (no read of its own), so
 * each op ends where its share ended. And after a measured run of the
 * same graph, its asks were not stamped but the first: its first op
 * begins at its first ask (SPLIT_BEGIN), not its last.
 */
START_TEST(a_tick_takes_its_shares_end)
{
	char path[256];
	struct seen *s;

	ticked_run_asked("packed-tick", path, sizeof path);
	for (int i = 0; i < NODES; i++) {
		ggmlviz_cpu_share_begin(&pool, 0, i);
		tu_spin_ns(20000u * (uint64_t)(i + 1));
		ggmlviz_cpu_share_end(&pool, 0, i);
		tu_spin_ns(5000); /* a tick's own read would be this much later */
		ggmlviz_nodes_tick();
	}
	ggmlviz_cpu_graph_done(&pool, 0, 2, graph_nodes, NODES, op_of); /* thread 1 shared nothing */
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->ops, 2 * NODES);
	ck_assert_uint_eq(s->shares, 2 * NODES);
	for (size_t k = NODES; k < 2 * NODES; k++) {
		ck_assert_int_eq(s->op[k].method, GGMLVIZ_OP_METHOD_TICK);
		ck_assert_uint_le(diff(s->op[k].end_ns, s->share[k].end_ns), QUANTUM);
	}
	ck_assert_uint_ge(s->share[NODES].begin_ns - s->op[NODES].begin_ns, 4 * 10000);
	free(s);
}
END_TEST

/*
 * The same graph, but no tick after thread 0's share of node 2 (an abort
 * callback that did not run there): the graph's end holds a tick fewer
 * than it found shares, and gives the run the ticks it was given, not one
 * a share. The run is then a tick short of its nodes: counted as a
 * mismatch, its ops not timed, where ticks made up from its shares would
 * have timed them.
 */
START_TEST(ticks_fewer_than_the_shares_are_not_made_up)
{
	struct ggmlviz_stats st;
	char path[256];
	struct seen *s;

	ticked_run_asked("packed-tick-short", path, sizeof path);
	for (int i = 0; i < NODES; i++) {
		ggmlviz_cpu_share_begin(&pool, 0, i);
		tu_spin_ns(10000);
		ggmlviz_cpu_share_end(&pool, 0, i);
		if (i != 2)
			ggmlviz_nodes_tick();
	}
	ggmlviz_cpu_graph_done(&pool, 0, 2, graph_nodes, NODES, op_of); /* thread 1 shared nothing */
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.timing_mismatches, 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->ops, NODES); /* the measured graph's only */
	free(s);
}
END_TEST

START_TEST(every_description_asked_packs_nothing)
{
	char path[256];
	struct seen *s;

	tu_path(path, sizeof path, "packed-every");
	trace_graphs(path, 1, 1, 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->op_times + s->share_times, 0);
	ck_assert_uint_eq(s->op_shares, GRAPHS * NODES);
	ck_assert_uint_eq(s->op_records, GRAPHS * NODES);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	ck_assert_uint_eq(s->shares, GRAPHS * NODES);
	free(s);
}
END_TEST

START_TEST(anonymized_like_the_op_records)
{
	char path[256];
	struct seen *s;

	tu_path(path, sizeof path, "packed-anon");
	trace_graphs(path, 1, 0, 1);
	s = read_trace(path);
	ck_assert_uint_eq(s->defines, 1);
	for (int i = 0; i < NODES; i++) {
		ck_assert_uint_ne(s->id_tensor[i], (uint64_t)(uintptr_t)&graph[i]);
		ck_assert_uint_eq(s->id_tensor[i], s->op_tensor[i]);
	}
	for (size_t k = 0; k < s->shares; k++)
		ck_assert_uint_eq(s->share[k].ptr, s->op[k].ptr);
	free(s);
}
END_TEST

START_TEST(what_does_not_pack)
{
	uint64_t b[3] = { 100, 300, 250 }, e[3] = { 200, 400, 500 };
	struct ggmlviz__times t = { b, e, NULL, 2 };

	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 1);
	ck_assert_int_eq(ggmlviz__times_pack(&t, 450), 1);
	ck_assert_int_eq(ggmlviz__times_pack(&t, 350), 0); /* ends before the last end */
	t.n = 3;
	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 0); /* begins before the one before ended */
	b[2] = 400;
	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 1);
	e[1] = 299;
	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 0); /* ends before it begins */
	e[1] = 400;
	e[2] = b[0] + ((uint64_t)UINT32_MAX << 2) + 100; /* past 32 bits, even shifted */
	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 0);
	t.n = 0;
	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 0);
}
END_TEST

/*
 * One graph of this thread: its shares begun and ended in the order given
 * (places), n of them; the graph done over all NODES places.
 */
static void shares_in_order(const int *places, int n)
{
	for (int j = 0; j < n; j++) {
		ggmlviz_cpu_share_begin(&pool, 0, places[j]);
		tu_spin_ns(2000);
		ggmlviz_cpu_share_end(&pool, 0, places[j]);
	}
	ck_assert_int_eq(ggmlviz_cpu_graph_done(&pool, 0, 1, graph_nodes, NODES, op_of), n);
}

/* The records of a thread's shares: OP_SHARE, SHARE_TIMES, and those of them that define. */
struct share_records {
	size_t op_shares, share_times, defines;
};

static int count_shares(const struct ggmlviz_event *ev, void *arg)
{
	struct share_records *c = arg;

	c->op_shares += ev->type == GGMLVIZ_EVENT_OP_SHARE;
	c->share_times += ev->type == GGMLVIZ_EVENT_SHARE_TIMES;
	c->defines += ev->type == GGMLVIZ_EVENT_SHARE_TIMES &&
		      ev->data.share_times.mode == GGMLVIZ_DESC_SET_DEFINE;
	return 0;
}

/*
 * The shares' one pass (shares.c) says what their records may be: a
 * graph whose shares began out of the order of their places does not
 * pack (OP_SHARE records, each at its own time); a graph with fewer
 * shares than the set before it, the same ones first, defines a set
 * anew (not a REPEAT of part of one).
 */
START_TEST(shares_out_of_order_or_fewer_are_not_repeats)
{
	static const int in_order[NODES] = { 0, 1, 2, 3, 4 }, reversed[NODES] = { 4, 3, 2, 1, 0 };
	struct share_records c = { 0 };
	char path[256];
	struct seen *s;

	start_alone(path, sizeof path, "packed-scan");
	shares_in_order(in_order, NODES);     /* its set defined */
	shares_in_order(reversed, NODES);     /* out of order: one by one */
	shares_in_order(in_order, NODES);     /* the set repeated */
	shares_in_order(in_order, NODES - 1); /* the first four: a set of its own */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each(path, count_shares, &c), 0);
	s = calloc(1, sizeof *s);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(tu_each_timing(path, note, s), 0);
	unlink(path);
	ck_assert_uint_eq(c.op_shares, NODES);
	ck_assert_uint_eq(c.share_times, 3);
	ck_assert_uint_eq(c.defines, 2);
	ck_assert_uint_eq(s->shares, 4 * NODES - 1);
	for (size_t k = NODES; k < 2 * NODES; k++) { /* the reversed graph's, by place */
		ck_assert_uint_eq(s->share[k].n_nodes, k - NODES);
		if (k + 1 < 2 * NODES) /* each begun after the next place's */
			ck_assert_uint_ge(s->share[k].begin_ns, s->share[k + 1].end_ns);
	}
	free(s);
}
END_TEST

/*
 * A run of graph 11 whose two workers' shares are given to it as the
 * hand-over gives them (ggmlviz__nodes_measured_shares()), with stamps
 * made here, a node every `step` counts: node i's from step (i + 0.1) to
 * step (i + 0.6) on thread 0, to step (i + 0.9) on worker 1, whose
 * counter reads `ahead` counts ahead (another core's may, by tens of
 * ns); with `swapped`, nodes 2 and 3 computed in each other's time (out
 * of their order).
 */
static void two_workers_run(uint64_t step, uint64_t ahead, int swapped)
{
	static const uint32_t places[NODES] = { 0, 1, 2, 3, 4 };
	uint64_t b0[NODES], e0[NODES], b1[NODES], e1[NODES], base;
	static struct ggmlviz__spans sp; /* the workers' stamps, none folded */

	run_of(11, graph_nodes, NODES, 1, 0); /* asked, not computed: the shares are given below */
	base = ggmlviz__stamp();
	for (int i = 0; i < NODES; i++) {
		uint64_t at = base + step * (uint64_t)(swapped && (i == 2 || i == 3) ? 5 - i : i);

		b0[i] = at + step / 10;
		e0[i] = at + step * 6 / 10;
		b1[i] = b0[i] + ahead;
		e1[i] = at + step * 9 / 10 + ahead;
	}
	tu_spin_ns(20000); /* every stamp made is in the past */
	sp.begin[0] = b0;
	sp.end[0] = e0;
	sp.begin[1] = b1;
	sp.end[1] = e1;
	sp.k = 2;
	sp.slices = 0; /* none folded */
	sp.floor = base;
	ggmlviz__nodes_measured_shares(graph_nodes, places, NODES, &sp);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

/*
 * GGML's barrier ends every share of a node before any share of the next
 * begins, but two cores' counters may disagree: an op that begins (on one
 * core's counter) before the one before it ended (on another's) begins
 * where that one ended, and its run still packs. Worker 1's counter
 * 300 counts ahead has each of its ends 100 past thread 0's next begin
 * (nodes 1000 counts apart), or three nodes past it (nodes 100 apart:
 * every op then begins before the one before it began, as moved, and
 * after it, as read). Nodes computed out of their order are left as
 * measured (op by op).
 */
START_TEST(an_op_behind_another_cores_counter_begins_at_the_end_before)
{
	char path[256];
	struct seen *s;

	start_alone(path, sizeof path, "packed-skew");
	two_workers_run(1000, 0, 0);   /* the set defined: its ops in full */
	two_workers_run(1000, 300, 0); /* repeated, worker 1 ahead: packed */
	two_workers_run(100, 300, 0);  /* and by three short nodes: packed */
	two_workers_run(1000, 0, 1);   /* repeated, out of order: op by op */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->op_times, 2);
	ck_assert_uint_eq(s->op_records, 2 * NODES);
	ck_assert_uint_eq(s->ops, 4 * NODES);
	for (size_t k = NODES; k < 3 * NODES; k++) {
		ck_assert_int_eq(s->op[k].method, GGMLVIZ_OP_METHOD_MEASURED);
		ck_assert_uint_gt(s->op[k].end_ns, s->op[k].begin_ns);
		if (k % NODES) /* each but the run's first begins where the one before it ended */
			ck_assert_uint_le(diff(s->op[k].begin_ns, s->op[k - 1].end_ns), QUANTUM);
	}
	/* out of order: node 3 began before node 2, as measured */
	ck_assert_uint_lt(s->op[3 * NODES + 3].begin_ns, s->op[3 * NODES + 2].begin_ns);
	free(s);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("packed");
	TCase *tw = tcase_create("writer");

	tcase_set_timeout(tw, 60);
	tcase_add_test(tw, ticked_runs_pack_to_the_nanosecond);
	tcase_add_test(tw, shares_defined_once_then_times_only);
	tcase_add_test(tw, one_thread_ops_are_their_shares_bytes);
	tcase_add_test(tw, one_thread_run_computed_twice_takes_its_last_graph);
	tcase_add_test(tw, one_thread_new_graph_ids_give_their_copy_by_place);
	tcase_add_test(tw, one_thread_copy_at_other_places_is_looked_for);
	tcase_add_test(tw, one_thread_copy_of_other_nodes_is_not_the_runs);
	tcase_add_test(tw, one_thread_copy_outlives_a_graph_of_another_pool);
	tcase_add_test(tw, one_thread_shares_lost_give_the_run_its_times_by_place);
	tcase_add_test(tw, a_tick_takes_its_shares_end);
	tcase_add_test(tw, ticks_fewer_than_the_shares_are_not_made_up);
	tcase_add_test(tw, every_description_asked_packs_nothing);
	tcase_add_test(tw, anonymized_like_the_op_records);
	tcase_add_test(tw, what_does_not_pack);
	tcase_add_test(tw, shares_out_of_order_or_fewer_are_not_repeats);
	tcase_add_test(tw, an_op_behind_another_cores_counter_begins_at_the_end_before);
	suite_add_tcase(s, tw);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
