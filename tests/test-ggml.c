/*
 * The GGML adapter on real GGML, on a small graph of known nodes computed
 * by a scheduler on the CPU backend with 2 threads: per-node timing from
 * the backend's ticks (the default) and synchronized (sync mode), splits,
 * chained callbacks, the state shared by every source file, errors.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GGMLVIZ_GGML_MAX_SCHEDS 4 /* small, to reach -ENOSPC */
#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>
#include <ggmlviz/reader.h>

#include "check-compat.h"
#include "ggml-util.h"
#include "test-ggml.h"
#include "trace-util.h"

#ifndef GGMLVIZ_GGML_LIBDIR
#error "build with -DGGMLVIZ_GGML_LIBDIR=\"...\" (Makefile.am does)"
#endif

/* The fixture: a CPU backend, the known graph, and the one scheduler that
 * computes it (a graph allocated by a scheduler must not be computed by
 * another: its tensors keep that scheduler's buffers). */
static ggml_backend_t cpu;
static struct gu_known kg;
static ggml_backend_sched_t ksched;

static void known_setup(void)
{
	cpu = gu_cpu_backend(GGMLVIZ_GGML_LIBDIR);
	gu_known_init(&kg, cpu);
	ksched = gu_new_sched(&cpu, 64);
}

static void known_teardown(void)
{
	ggml_backend_sched_free(ksched);
	gu_known_free(&kg);
	ggml_backend_free(cpu);
}

static uint64_t addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static void check_known_op(const struct gu_trace *tr, const struct ggmlviz_timing *t,
			   const struct gu_expected_op *e, uint64_t backend, int method)
{
	const char *op_name = NULL;

	ck_assert_msg(gu_label_is(t, e->label), "op labelled %.*s, expected %s",
		      (int)t->label_len, t->label, e->label);
	ck_assert_uint_eq(t->op_type, e->op_type);
	ck_assert_uint_eq(t->op_size, e->size);
	ck_assert_uint_eq(t->backend_ptr, backend);
	for (int d = 0; d < 4; d++)
		ck_assert_int_eq(t->ne[d], e->ne[d]);
	ck_assert_uint_eq(t->flops, e->flops);
	ck_assert_uint_eq(t->type_name_len, 3);
	ck_assert_int_eq(memcmp(t->type_name, "f32", 3), 0);
	ck_assert_int_eq(t->method, method);
	ck_assert_int_eq(t->layer, -1); /* "y", "out": no layer in the name */
	ck_assert_uint_eq(gu_count_meta(tr, GGMLVIZ_META_OP_NAME, e->op_type, &op_name), 1);
	ck_assert_str_eq(op_name, e->op_name);
}

/* An op (or split) inside its graph: same thread and run, within its times. */
static void check_inside(const struct ggmlviz_timing *t, const struct ggmlviz_timing *outer)
{
	ck_assert_uint_eq(t->thread_id, outer->thread_id);
	ck_assert_uint_ge(t->begin_ns, outer->begin_ns);
	ck_assert_uint_le(t->end_ns, outer->end_ns);
	ck_assert_uint_gt(t->depth, outer->depth);
}

/* The known graph computed runs times, traced. */
static void trace_known(struct gu_trace *tr, int op_timing, int runs)
{
	ggml_backend_sched_t sched = ksched;
	char path[256];

	gu_start(path, op_timing);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(sched, GU_THREADS, NULL, NULL), 0);
	for (int i = 0; i < runs; i++)
		ck_assert_int_eq(ggmlviz_ggml_sched_graph_compute(sched, kg.g),
				 GGML_STATUS_SUCCESS);
	ggmlviz_ggml_untrace_sched(sched);
	gu_stop_and_read(path, tr);
}

static void check_known_trace(const struct gu_trace *tr, int method)
{
	struct gu_expected_op e[4];
	const char *backend_name = NULL;

	gu_known_expected(e);
	ck_assert_uint_eq(tr->n_graphs, 1);
	ck_assert_uint_eq(tr->graphs[0].ptr, addr(kg.g));
	ck_assert_uint_eq(tr->graphs[0].n_nodes, 7);
	ck_assert_uint_eq(tr->graphs[0].n_threads, GU_THREADS);
	ck_assert_uint_eq(tr->graphs[0].backend_ptr, addr(cpu));
	ck_assert_uint_eq(tr->n_ops, 4);
	for (int i = 0; i < 4; i++) {
		check_known_op(tr, &tr->ops[i], &e[i], addr(cpu), method);
		check_inside(&tr->ops[i], &tr->graphs[0]);
		ck_assert_uint_eq(tr->ops[i].graph_seq, tr->graphs[0].graph_seq);
	}
	ck_assert_uint_eq(tr->ops[0].ptr, addr(kg.y));
	ck_assert_uint_eq(tr->ops[3].ptr, addr(kg.out));
	/* one split: the whole graph on the CPU backend */
	ck_assert_uint_eq(tr->n_splits, 1);
	ck_assert_uint_eq(tr->splits[0].n_nodes, 7);
	ck_assert_uint_eq(tr->splits[0].backend_ptr, addr(cpu));
	ck_assert_uint_eq(tr->splits[0].ptr, addr(kg.y));
	check_inside(&tr->splits[0], &tr->graphs[0]);
	ck_assert_uint_eq(gu_count_meta(tr, GGMLVIZ_META_BACKEND_NAME, addr(cpu), &backend_name), 1);
	ck_assert_str_eq(backend_name, ggml_backend_name(cpu));
	ck_assert_uint_eq(tr->counts.unmatched_ends, 0);
	ck_assert_uint_eq(tr->counts.unclosed_begins, 0);
}

START_TEST(test_known_graph_ticks)
{
	struct gu_trace tr;

	trace_known(&tr, GGMLVIZ_OP_TIMING_AUTO, 1);
	check_known_trace(&tr, GGMLVIZ_OP_METHOD_TICK);
	/* four ticks, one per computing node, and every one timed */
	ck_assert_uint_eq(tr.splits[0].ticks, 4);
	ck_assert_uint_eq(tr.splits[0].ticks_expected, 4);
	ck_assert_uint_eq(tr.splits[0].n_timed, 4);
	/* back to back: each op begins where the one before it ended */
	for (int i = 1; i < 4; i++)
		ck_assert_uint_eq(tr.ops[i].begin_ns, tr.ops[i - 1].end_ns);
	for (int i = 0; i < 4; i++)
		check_inside(&tr.ops[i], &tr.splits[0]);
	gu_free(&tr);
}
END_TEST

START_TEST(test_known_graph_sync)
{
	struct gu_trace tr;

	trace_known(&tr, GGMLVIZ_OP_TIMING_SYNC, 1);
	check_known_trace(&tr, GGMLVIZ_OP_METHOD_SYNC);
	ck_assert_uint_eq(tr.splits[0].ticks, 0); /* the backend's ticks are not used */
	ck_assert_uint_eq(tr.splits[0].n_timed, 0);
	gu_free(&tr);
}
END_TEST

/*
 * What the scheduler did, as a chained eval callback (answering "not
 * wanted") and a chained abort callback see it: 'A' for each ask, 'T' for
 * each tick after a node.
 */
struct order {
	char seen[64];
	size_t n;
	int abort_at; /* the tick to answer "abort" to (1, 2, ...); 0: never */
	int ticks;
};

static bool order_ask(struct ggml_tensor *t, bool ask, void *user_data)
{
	struct order *o = user_data;

	(void)t;
	if (ask && o->n + 1 < sizeof o->seen)
		o->seen[o->n++] = 'A';
	return false;
}

static bool order_tick(void *data)
{
	struct order *o = data;

	if (o->n + 1 < sizeof o->seen)
		o->seen[o->n++] = 'T';
	return ++o->ticks == o->abort_at;
}

/* The known graph once, traced with op_timing, the order callbacks chained. */
static enum ggml_status run_ordered(struct order *o, int op_timing, struct gu_trace *tr)
{
	ggml_backend_sched_t sched = ksched;
	enum ggml_status status;
	char path[256];

	gu_start(path, op_timing);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(sched, GU_THREADS, order_ask, o), 0);
	ck_assert_int_eq(ggmlviz_ggml_chain_abort(sched, order_tick, o), 0);
	status = ggmlviz_ggml_sched_graph_compute(sched, kg.g);
	ggmlviz_ggml_untrace_sched(sched);
	gu_stop_and_read(path, tr);
	o->seen[o->n] = '\0';
	return status;
}

START_TEST(test_default_keeps_the_graph_whole)
{
	struct order o = { .abort_at = 0 };
	struct gu_trace tr;

	ck_assert_int_eq(run_ordered(&o, GGMLVIZ_OP_TIMING_AUTO, &tr), GGML_STATUS_SUCCESS);
	/* every node asked about first, then computed in one go: a split per
	 * node would interleave them (ATATAT...) */
	ck_assert_str_eq(o.seen, "AAAAAAATTTT");
	ck_assert_uint_eq(tr.n_ops, 4);
	gu_free(&tr);
}
END_TEST

START_TEST(test_sync_splits_per_node)
{
	struct order o = { .abort_at = 0 };
	struct gu_trace tr;

	ck_assert_int_eq(run_ordered(&o, GGMLVIZ_OP_TIMING_SYNC, &tr), GGML_STATUS_SUCCESS);
	/* what sync mode costs: each computing node is a graph of its own */
	ck_assert_str_eq(o.seen, "ATAATAATAAT");
	gu_free(&tr);
}
END_TEST

START_TEST(test_app_abort_still_aborts)
{
	struct order o = { .abort_at = 2 };
	struct ggmlviz_stats st;
	struct gu_trace tr;

	/* the application's abort callback answers "abort" after the second node */
	ck_assert_int_eq(run_ordered(&o, GGMLVIZ_OP_TIMING_AUTO, &tr), GGML_STATUS_ABORTED);
	ck_assert_str_eq(o.seen, "AAAAAAATT");
	ggmlviz_get_stats(&st);
	/* 2 ticks for 4 nodes: never guessed through, the split alone is timed */
	ck_assert_uint_eq(st.timing_mismatches, 1);
	ck_assert_uint_eq(tr.n_ops, 0);
	ck_assert_uint_eq(tr.n_splits, 1);
	ck_assert_uint_eq(tr.splits[0].ticks, 2);
	ck_assert_uint_eq(tr.splits[0].ticks_expected, 4);
	ck_assert_uint_eq(tr.splits[0].n_timed, 0);
	gu_free(&tr);
}
END_TEST

START_TEST(test_views_yield_none)
{
	struct gu_trace tr;

	trace_known(&tr, GGMLVIZ_OP_TIMING_AUTO, 1);
	for (size_t i = 0; i < tr.n_ops; i++) {
		ck_assert(!gu_label_is(&tr.ops[i], "yt"));
		ck_assert(!gu_label_is(&tr.ops[i], "r"));
		ck_assert(!gu_label_is(&tr.ops[i], "v"));
	}
	ck_assert_uint_eq(tr.n_ops, 4);
	ck_assert(!ggmlviz_ggml_node_computes(kg.yt));
	ck_assert(!ggmlviz_ggml_node_computes(kg.r));
	ck_assert(!ggmlviz_ggml_node_computes(kg.v));
	ck_assert(ggmlviz_ggml_node_computes(kg.yc));
	gu_free(&tr);
}
END_TEST

START_TEST(test_two_runs_told_apart)
{
	struct gu_trace tr;

	trace_known(&tr, GGMLVIZ_OP_TIMING_AUTO, 2);
	ck_assert_uint_eq(tr.n_graphs, 2);
	ck_assert_uint_ne(tr.graphs[0].graph_seq, tr.graphs[1].graph_seq);
	ck_assert_uint_eq(tr.graphs[0].ptr, tr.graphs[1].ptr);
	ck_assert_uint_eq(tr.n_ops, 8);
	ck_assert_uint_eq(tr.n_splits, 2);
	for (size_t i = 0; i < 4; i++) {
		/* the same tensor, the same address: two ops, one per run */
		ck_assert_uint_eq(tr.ops[i].ptr, tr.ops[i + 4].ptr);
		check_inside(&tr.ops[i], &tr.graphs[0]);
		check_inside(&tr.ops[i + 4], &tr.graphs[1]);
		ck_assert_uint_eq(tr.ops[i + 4].graph_seq, tr.graphs[1].graph_seq);
	}
	/* named once per session, not once per run */
	ck_assert_uint_eq(gu_count_meta(&tr, GGMLVIZ_META_OP_NAME, GGML_OP_MUL_MAT, NULL), 1);
	ck_assert_uint_eq(tr.counts.paired, 12);
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	gu_free(&tr);
}
END_TEST

START_TEST(test_other_file_shares_the_state)
{
	ggml_backend_sched_t sched = ksched;
	struct gu_trace tr;
	char path[256];

	gu_start(path, GGMLVIZ_OP_TIMING_AUTO);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(sched, GU_THREADS, NULL, NULL), 0);
	/* computed through the adapter as test-ggml-other.c includes it */
	ck_assert_int_eq(other_sched_graph_compute(sched, kg.g), GGML_STATUS_SUCCESS);
	ggmlviz_ggml_untrace_sched(sched);
	gu_stop_and_read(path, &tr);
	ck_assert_uint_eq(tr.n_graphs, 1);
	ck_assert_uint_eq(tr.graphs[0].n_threads, GU_THREADS); /* the scheduler is known there */
	ck_assert_uint_eq(tr.n_ops, 4);
	ck_assert_uint_eq(gu_count_meta(&tr, GGMLVIZ_META_OP_NAME, GGML_OP_MUL_MAT, NULL), 1);
	gu_free(&tr);
}
END_TEST

/* ---- the callback by itself ---------------------------------------------- */

/* Wants every node, and lets the graph go on. */
static bool want_all(struct ggml_tensor *t, bool ask, void *user_data)
{
	int *calls = user_data;

	(void)t;
	(void)ask;
	(*calls)++;
	return true;
}

/*
 * The known graph's nodes asked as GGML's scheduler with libggmlviz's edit
 * asks a split (ggmlviz-edit.py --sched-graph-ids): the first through the
 * adapter's callback, the next ones given to ggmlviz_nodes_ask_rest(), the
 * rest through the callback again; the split computed three times. How
 * many nodes the last run's ask_rest took.
 */
static int asks_at_once(ggml_backend_sched_t sched, uint64_t id)
{
	const int n = ggml_graph_n_nodes(kg.g);
	const void *nodes[16];
	int taken = 0;

	ck_assert_int_le(n, 16);
	for (int i = 0; i < n; i++)
		nodes[i] = ggml_graph_node(kg.g, i);
	for (int run = 0; run < 3; run++) {
		ggmlviz_nodes_split(id, cpu);
		ck_assert(!ggmlviz_ggml_eval_cb(ggml_graph_node(kg.g, 0), true, sched));
		taken = ggmlviz_nodes_ask_rest(sched, nodes, 1, n) - 1;
		for (int j = taken + 1; j < n; j++)
			ck_assert(!ggmlviz_ggml_eval_cb(ggml_graph_node(kg.g, j), true, sched));
		ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	}
	return taken;
}

/*
 * A repeat's asks taken at once by the library skip the callback: not
 * where the application chained its own, which sees every ask of every
 * run (the adapter says ggmlviz_nodes_ask_always() at the split's first).
 */
START_TEST(test_a_chained_callback_sees_every_ask_of_a_repeat)
{
	const int n = ggml_graph_n_nodes(kg.g);
	struct order o = { .abort_at = 0 };
	struct gu_trace tr;
	char path[256];

	gu_start(path, GGMLVIZ_OP_TIMING_AUTO);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(ksched, GU_THREADS, NULL, NULL), 0);
	ck_assert_int_eq(asks_at_once(ksched, 901), n - 1); /* nothing chained: all at once */
	ggmlviz_ggml_untrace_sched(ksched);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(ksched, GU_THREADS, order_ask, &o), 0);
	ck_assert_int_eq(asks_at_once(ksched, 902), 0);
	ck_assert_uint_eq(o.n, 3u * (unsigned)n); /* every ask of the three runs */
	ggmlviz_ggml_untrace_sched(ksched);
	gu_stop_and_read(path, &tr);
	gu_free(&tr);
}
END_TEST

START_TEST(test_not_tracing_answers_like_the_chain)
{
	int calls = 0;

	/* not tracing, nothing chained: no node is wanted */
	ck_assert(!ggmlviz_ggml_eval_cb(kg.y, true, NULL));
	/* a hand-over never asked for: the graph goes on, nothing is called */
	ck_assert(ggmlviz_ggml_eval_cb(kg.out, false, NULL));
	ck_assert_int_eq(ggmlviz_ggml_chain(NULL, want_all, &calls), 0);
	ck_assert(ggmlviz_ggml_eval_cb(kg.yt, true, NULL));
	ck_assert(ggmlviz_ggml_eval_cb(kg.yt, false, NULL));
	ck_assert_int_eq(calls, 2);
	ck_assert_int_eq(ggmlviz_ggml_chain(NULL, NULL, NULL), 0);
	ck_assert(!ggmlviz_ggml_eval_cb(kg.yt, true, NULL));
	ck_assert_int_eq(calls, 2);
	ck_assert(!ggmlviz_ggml_abort_cb(NULL)); /* no chained abort: the graph goes on */
}
END_TEST

START_TEST(test_op_timing_off_records_graphs_only)
{
	struct gu_trace tr;

	trace_known(&tr, GGMLVIZ_OP_TIMING_OFF, 1);
	ck_assert_uint_eq(tr.n_graphs, 1);
	ck_assert_uint_eq(tr.n_ops, 0);
	ck_assert_uint_eq(tr.n_splits, 0);
	ck_assert_uint_eq(gu_count_meta(&tr, GGMLVIZ_META_OP_NAME, GGML_OP_MUL_MAT, NULL), 0);
	gu_free(&tr);
}
END_TEST

/* As llama.cpp's cb_eval without ggmlviz_llama_context_params(): the
 * adapter's eval callback, user_data NULL, no abort callback. */
static void trace_bare_callback(struct gu_trace *tr, int op_timing)
{
	char path[256];

	gu_start(path, op_timing);
	ggml_backend_sched_set_eval_callback(ksched, ggmlviz_ggml_eval_cb, NULL);
	ck_assert_int_eq(ggml_backend_sched_graph_compute(ksched, kg.g), GGML_STATUS_SUCCESS);
	ggml_backend_sched_set_eval_callback(ksched, NULL, NULL);
	ggmlviz_nodes_flush(); /* no graph wrapper: end the run by hand */
	gu_stop_and_read(path, tr);
}

/*
 * The one-liner of GGML programs, the scheduler as user_data and nothing
 * else called: the adapter takes the scheduler on its first ask and
 * installs its ticks before the run computes, so that every computing node
 * of every graph is timed once, by ticks, on the scheduler's backend.
 */
START_TEST(test_one_liner_times_every_node)
{
	struct gu_expected_op e[4];
	struct gu_trace tr;
	char path[256];

	gu_start(path, GGMLVIZ_OP_TIMING_AUTO);
	ggml_backend_sched_set_eval_callback(ksched, ggmlviz_ggml_eval_cb, ksched);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(ggml_backend_sched_graph_compute(ksched, kg.g), GGML_STATUS_SUCCESS);
		ggmlviz_nodes_flush(); /* no graph wrapper: end the run by hand */
	}
	ggmlviz_ggml_untrace_sched(ksched); /* before freeing it: its ticks off, its slot free */
	gu_stop_and_read(path, &tr);
	gu_known_expected(e);
	ck_assert_uint_eq(tr.n_splits, 2);
	ck_assert_uint_eq(tr.n_ops, 8);
	for (size_t i = 0; i < tr.n_ops; i++)
		check_known_op(&tr, &tr.ops[i], &e[i % 4], addr(cpu), GGMLVIZ_OP_METHOD_TICK);
	for (size_t i = 0; i < tr.n_splits; i++) {
		ck_assert_uint_eq(tr.splits[i].ticks, 4);
		ck_assert_uint_eq(tr.splits[i].ticks_expected, 4);
		ck_assert_uint_eq(tr.splits[i].n_timed, 4);
	}
	gu_free(&tr);
}
END_TEST

/*
 * Without the scheduler (user_data NULL), a node's backend is told by the
 * buffer its output is in: host memory (the CPU's buffers, or a GPU
 * backend's pinned host buffers) is the CPU backend's, keyed by the CPU
 * device and named "CPU"; a device buffer would be named by its type.
 */
START_TEST(test_user_data_null_names_buffer_type)
{
	ggml_backend_buffer_type_t buft;
	ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
	const char *label = NULL;
	struct gu_trace tr;

	/* no ticks: the run is timed as a whole, on the CPU */
	trace_bare_callback(&tr, GGMLVIZ_OP_TIMING_AUTO);
	buft = ggml_backend_buffer_get_type(kg.y->buffer); /* allocated by the scheduler */
	ck_assert(ggml_backend_buft_is_host(buft));
	ck_assert_ptr_nonnull(cpu_dev);
	ck_assert_uint_eq(tr.n_ops, 0);
	ck_assert_uint_eq(tr.n_splits, 1);
	ck_assert_uint_eq(tr.splits[0].backend_ptr, addr(cpu_dev));
	ck_assert_uint_eq(tr.splits[0].ticks, 0);
	ck_assert_uint_eq(gu_count_meta(&tr, GGMLVIZ_META_BACKEND_NAME, addr(cpu_dev), &label), 1);
	ck_assert_str_eq(label, "CPU");
	gu_free(&tr);
	/* synchronized, every node is timed whatever the backend */
	trace_bare_callback(&tr, GGMLVIZ_OP_TIMING_SYNC);
	ck_assert_uint_eq(tr.n_ops, 4);
	for (size_t i = 0; i < tr.n_ops; i++)
		ck_assert_uint_eq(tr.ops[i].backend_ptr, addr(cpu_dev));
	gu_free(&tr);
}
END_TEST

START_TEST(test_names_again_each_session)
{
	struct gu_trace first, second;

	trace_known(&first, GGMLVIZ_OP_TIMING_AUTO, 1);
	trace_known(&second, GGMLVIZ_OP_TIMING_AUTO, 1);
	/* each file names its own ops and cpu */
	ck_assert_uint_eq(gu_count_meta(&first, GGMLVIZ_META_OP_NAME, GGML_OP_SOFT_MAX, NULL), 1);
	ck_assert_uint_eq(gu_count_meta(&second, GGMLVIZ_META_OP_NAME, GGML_OP_SOFT_MAX, NULL), 1);
	ck_assert_uint_eq(gu_count_meta(&second, GGMLVIZ_META_BACKEND_NAME, addr(cpu), NULL), 1);
	gu_free(&first);
	gu_free(&second);
}
END_TEST

/* The TENSOR_ALLOC records of a trace whose label starts with prefix. */
struct allocs {
	const char *prefix;
	int n;
	uint64_t ptr, size;
};

static int find_alloc(const struct ggmlviz_event *ev, void *arg)
{
	struct allocs *a = arg;
	size_t len = strlen(a->prefix);

	if (ev->type == GGMLVIZ_EVENT_TENSOR_ALLOC && ev->label && ev->label_len >= len &&
	    memcmp(ev->label, a->prefix, len) == 0) {
		a->n++;
		a->ptr = ev->data.memory.ptr;
		a->size = ev->data.memory.size;
	}
	return 0;
}

START_TEST(test_memory_buffers)
{
	ggml_backend_sched_t sched = ksched;
	struct allocs weights = { "weights ", 0, 0, 0 }, compute = { "compute ", 0, 0, 0 };
	struct ggmlviz_config cfg;
	uint64_t compute_size;
	char path[256];

	ggml_backend_buffer_set_usage(kg.params, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
	tu_path(path, sizeof path, "ggml-mem");
	tu_config(&cfg, path);
	cfg.memory_tracking = 1;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(sched, GU_THREADS, NULL, NULL), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(ggmlviz_ggml_sched_graph_compute(sched, kg.g),
				 GGML_STATUS_SUCCESS);
	compute_size = ggml_backend_sched_get_buffer_size(sched, cpu);
	ggmlviz_ggml_untrace_sched(sched);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each(path, find_alloc, &weights), 0);
	ck_assert_int_eq(tu_each(path, find_alloc, &compute), 0);
	unlink(path);
	/* each buffer once, however many graphs used it, with its exact size */
	ck_assert_int_eq(weights.n, 1);
	ck_assert_uint_eq(weights.ptr, addr(kg.params));
	ck_assert_uint_eq(weights.size, ggml_backend_buffer_get_size(kg.params));
	ck_assert_int_eq(compute.n, 1);
	ck_assert_uint_eq(compute.size, compute_size);
}
END_TEST

START_TEST(test_backend_graph_compute)
{
	ggml_backend_buffer_t buf;
	float plain[48 * 4], traced[48 * 4];
	struct gu_trace tr;
	char path[256];

	buf = ggml_backend_alloc_ctx_tensors(kg.ctx, cpu);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(ggml_backend_graph_compute(cpu, kg.g), GGML_STATUS_SUCCESS);
	ggml_backend_tensor_get(kg.out, plain, 0, sizeof plain);
	gu_start(path, GGMLVIZ_OP_TIMING_AUTO);
	ck_assert_int_eq(ggmlviz_ggml_backend_graph_compute(cpu, kg.g, 3), GGML_STATUS_SUCCESS);
	gu_stop_and_read(path, &tr);
	ggml_backend_tensor_get(kg.out, traced, 0, sizeof traced);
	ck_assert_int_eq(memcmp(plain, traced, sizeof plain), 0);
	ck_assert_uint_eq(tr.n_graphs, 1);
	ck_assert_uint_eq(tr.n_ops, 0);
	ck_assert_uint_eq(tr.graphs[0].n_nodes, 7);
	ck_assert_uint_eq(tr.graphs[0].n_threads, 3);
	ck_assert_uint_eq(tr.graphs[0].backend_ptr, addr(cpu));
	ck_assert_uint_eq(gu_count_meta(&tr, GGMLVIZ_META_BACKEND_NAME, addr(cpu), NULL), 1);
	gu_free(&tr);
	ggml_backend_buffer_free(buf);
}
END_TEST

/* ---- the API ------------------------------------------------------------- */

START_TEST(test_op_type_and_flops)
{
	struct ggml_init_params ip = { 64 * ggml_tensor_overhead(), NULL, true };
	struct ggml_context *ctx = ggml_init(ip);
	struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 32, 10); /* K=32, M=10 */
	struct ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 32, 6);  /* K=32, N=6 */
	struct ggml_tensor *c = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 10, 6);
	struct ggml_tensor *q = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 4, 2);  /* D, n_q, H */
	struct ggml_tensor *kk = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 16, 8, 2); /* D, n_kv, H */
	struct ggml_tensor *vv = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 16, 8, 2);
	struct ggml_tensor *gated = ggml_swiglu(ctx, c);
	struct ggml_tensor *empty = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 0);

	ck_assert_uint_eq(ggmlviz_ggml_flops(ggml_mul_mat(ctx, a, b)), 2 * 32 * 10 * 6);
	/* out_prod(c, c): [10, 6] x [10, 6]: dst [10, 10], K = 6 */
	ck_assert_uint_eq(ggmlviz_ggml_flops(ggml_out_prod(ctx, c, c)), 2 * 6 * 10 * 10);
	ck_assert_uint_eq(ggmlviz_ggml_flops(ggml_flash_attn_ext(ctx, q, kk, vv, NULL, 1.0f, 0, 0)),
			  2 * 4 * 2 * 8 * (16 + 16));
	ck_assert_uint_eq(ggmlviz_ggml_flops(ggml_add(ctx, c, c)), 60);
	ck_assert_uint_eq(ggmlviz_ggml_flops(ggml_transpose(ctx, c)), 0);
	ck_assert_uint_eq(ggmlviz_ggml_op_type(ggml_add(ctx, c, c)), GGML_OP_ADD);
	ck_assert_uint_eq(ggmlviz_ggml_op_type(ggml_gelu(ctx, c)),
			  GGML_OP_UNARY | (GGML_UNARY_OP_GELU + 1u) << 16);
	ck_assert_uint_eq(ggmlviz_ggml_op_type(gated),
			  GGML_OP_GLU | (GGML_GLU_OP_SWIGLU + 1u) << 16);
	ck_assert_uint_ne(ggmlviz_ggml_op_type(ggml_silu(ctx, c)),
			  ggmlviz_ggml_op_type(ggml_gelu(ctx, c)));
	ck_assert(!ggmlviz_ggml_node_computes(ggml_reshape_1d(ctx, c, 60)));
	ck_assert(!ggmlviz_ggml_node_computes(ggml_permute(ctx, q, 1, 0, 2, 3)));
	ck_assert(!ggmlviz_ggml_node_computes(c)); /* GGML_OP_NONE */
	ck_assert(!ggmlviz_ggml_node_computes(ggml_add(ctx, empty, empty)));
	ggml_free(ctx);
}
END_TEST

START_TEST(test_errors)
{
	ggml_backend_t backend = gu_cpu_backend(GGMLVIZ_GGML_LIBDIR);
	ggml_backend_sched_t s[GGMLVIZ_GGML_MAX_SCHEDS + 1];
	int calls = 0;

	for (int i = 0; i <= GGMLVIZ_GGML_MAX_SCHEDS; i++)
		s[i] = gu_new_sched(&backend, 16);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(NULL, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(s[0], -1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(s[0], 1, ggmlviz_ggml_eval_cb, NULL), -EINVAL);
	ck_assert_int_eq(ggmlviz_ggml_chain(s[0], ggmlviz_ggml_eval_cb, NULL), -EINVAL);
	ck_assert_int_eq(ggmlviz_ggml_chain_abort(s[0], NULL, NULL), -EINVAL); /* not traced */
	ck_assert_int_eq(ggmlviz_ggml_chain_abort(NULL, NULL, NULL), -EINVAL);
	for (int i = 0; i < GGMLVIZ_GGML_MAX_SCHEDS; i++)
		ck_assert_int_eq(ggmlviz_ggml_trace_sched(s[i], 1, NULL, NULL), 0);
	ck_assert_int_eq(ggmlviz_ggml_chain_abort(s[0], ggmlviz_ggml_abort_cb, NULL), -EINVAL);
	/* the same scheduler again takes no new slot */
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(s[0], 2, want_all, &calls), 0);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(s[GGMLVIZ_GGML_MAX_SCHEDS], 1, NULL, NULL),
			 -ENOSPC);
	ck_assert_int_eq(ggmlviz_ggml_chain(NULL, want_all, &calls), -ENOSPC);
	ggmlviz_ggml_untrace_sched(s[1]);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(s[GGMLVIZ_GGML_MAX_SCHEDS], 1, NULL, NULL), 0);
	ggmlviz_ggml_untrace_sched(NULL);
	for (int i = 0; i <= GGMLVIZ_GGML_MAX_SCHEDS; i++) {
		ggmlviz_ggml_untrace_sched(s[i]);
		ggml_backend_sched_free(s[i]);
	}
	ggml_backend_free(backend);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("ggml");
	TCase *known = tcase_create("known graph");
	TCase *api = tcase_create("api");

	tcase_add_checked_fixture(known, known_setup, known_teardown);
	tcase_add_test(known, test_known_graph_ticks);
	tcase_add_test(known, test_known_graph_sync);
	tcase_add_test(known, test_default_keeps_the_graph_whole);
	tcase_add_test(known, test_sync_splits_per_node);
	tcase_add_test(known, test_app_abort_still_aborts);
	tcase_add_test(known, test_a_chained_callback_sees_every_ask_of_a_repeat);
	tcase_add_test(known, test_views_yield_none);
	tcase_add_test(known, test_two_runs_told_apart);
	tcase_add_test(known, test_other_file_shares_the_state);
	tcase_add_test(known, test_user_data_null_names_buffer_type);
	tcase_add_test(known, test_one_liner_times_every_node);
	tcase_add_test(known, test_names_again_each_session);
	tcase_add_test(known, test_memory_buffers);
	tcase_add_test(known, test_backend_graph_compute);
	tcase_add_test(known, test_not_tracing_answers_like_the_chain);
	tcase_add_test(known, test_op_timing_off_records_graphs_only);
	tcase_add_test(api, test_op_type_and_flops);
	tcase_add_test(api, test_errors);
	suite_add_tcase(s, known);
	suite_add_tcase(s, api);
	return s;
}

int main(void)
{
	/* GGML looks for its CPU backend beside the executable only */
	ggml_backend_load_all_from_path(GGMLVIZ_GGML_LIBDIR);
	return run_suite(make_suite());
}
