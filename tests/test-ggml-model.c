/*
 * The GGML adapter on a small transformer (examples/transformer.c, named
 * as llama.cpp names its tensors), computed by a scheduler on the CPU
 * backend with 2 threads: every computing node timed once, fused pairs,
 * layers, results unchanged, the application's callbacks, threads, and op
 * sampling.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>
#include <ggmlviz/reader.h>

#include "check-compat.h"
#include "ggml-util.h"
#include "trace-util.h"
#include "../examples/transformer.h"

#ifndef GGMLVIZ_GGML_LIBDIR
#error "build with -DGGMLVIZ_GGML_LIBDIR=\"...\" (Makefile.am does)"
#endif

#define FUSED_BIT 0x80000000u

struct model_run {
	ggml_backend_t backend;
	ggml_backend_sched_t sched;
	struct transformer m;
};

static struct transformer_params small_model(void)
{
	struct transformer_params p;

	transformer_params_init(&p);
	p.n_layer = 2;
	p.n_embd = 64;
	p.n_head = 2;
	p.n_ff = 128;
	p.n_tokens = 8;
	p.n_vocab = 96;
	return p;
}

static void model_init(struct model_run *mr)
{
	struct transformer_params p = small_model();

	mr->backend = gu_cpu_backend(GGMLVIZ_GGML_LIBDIR);
	ck_assert_int_eq(transformer_init(&mr->m, &p, mr->backend), 0);
	mr->sched = gu_new_sched(&mr->backend, transformer_graph_size(&p));
}

static void model_free(struct model_run *mr)
{
	ggml_backend_sched_free(mr->sched);
	transformer_free(&mr->m);
	ggml_backend_free(mr->backend);
}

static void model_steps(struct model_run *mr, int steps)
{
	for (int i = 0; i < steps; i++)
		transformer_step(&mr->m, mr->sched, (uint32_t)i, ggmlviz_ggml_sched_graph_compute);
}

/* steps graphs of the model, traced with op_timing. */
static void trace_model(struct model_run *mr, int op_timing, int steps, struct gu_trace *tr)
{
	char path[256];

	gu_start(path, op_timing);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(mr->sched, GU_THREADS, NULL, NULL), 0);
	model_steps(mr, steps);
	ggmlviz_ggml_untrace_sched(mr->sched);
	gu_stop_and_read(path, tr);
}

/* Whether GGML's CPU backend ticks after node: not a view, flagged to compute. */
static int ticks(const struct ggml_tensor *n)
{
	return n->op != GGML_OP_NONE && n->op != GGML_OP_VIEW && n->op != GGML_OP_RESHAPE &&
	       n->op != GGML_OP_PERMUTE && n->op != GGML_OP_TRANSPOSE &&
	       (n->flags & GGML_TENSOR_FLAG_COMPUTE);
}

/*
 * The ops of one run, from ops[at], are the graph's ticking nodes in
 * order, a fused RMS_NORM + MUL pair as one op on the first named
 * "norm + mul"; returns where the next run starts, and counts the pairs.
 */
static size_t check_run_ticks(const struct gu_trace *tr, size_t at, struct ggml_cgraph *g,
			      int *fused)
{
	int n = ggml_graph_n_nodes(g);

	for (int i = 0; i < n; i++) {
		struct ggml_tensor *t = ggml_graph_node(g, i);
		const struct ggmlviz_timing *op = &tr->ops[at];
		char pair[160];

		if (!ticks(t))
			continue;
		ck_assert_uint_lt(at, tr->n_ops);
		ck_assert_uint_eq(op->ptr, (uint64_t)(uintptr_t)t);
		ck_assert_int_eq(op->method, GGMLVIZ_OP_METHOD_TICK);
		ck_assert_int_eq(op->layer, ggmlviz_ggml_layer(t));
		if (op->node_flags & GGMLVIZ_NODE_FUSED) {
			struct ggml_tensor *next = ggml_graph_node(g, ++i);
			snprintf(pair, sizeof pair, "%s + %s", t->name, next->name);
			ck_assert(gu_label_is(op, pair));
			ck_assert_int_eq(t->op, GGML_OP_RMS_NORM);
			ck_assert_int_eq(next->op, GGML_OP_MUL);
			ck_assert_uint_eq(op->op_type & FUSED_BIT, FUSED_BIT);
			(*fused)++;
		} else {
			ck_assert(gu_label_is(op, ggml_get_name(t)));
			ck_assert_uint_eq(op->op_type, ggmlviz_ggml_op_type(t));
		}
		ck_assert_uint_eq(gu_count_meta(tr, GGMLVIZ_META_OP_NAME, op->op_type, NULL), 1);
		at++;
	}
	return at;
}

/*
 * The run's fused pairs, counted in one pass when node 0 is described: a
 * norm read once by its MUL is fused, one read again later is not, in the
 * same run; and a node of a run whose node 0 was not described is checked
 * alone, with the same answers.
 */
START_TEST(test_fused_pairs_of_a_run)
{
	struct ggml_init_params ip = { 16 * 1024 * 1024, NULL, true };
	struct ggml_context *ctx = ggml_init(ip);
	struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 4);
	struct ggml_tensor *w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
	struct ggml_tensor *once = ggml_rms_norm(ctx, x, 1e-5f);
	struct ggml_tensor *m1 = ggml_mul(ctx, once, w);
	struct ggml_tensor *twice = ggml_rms_norm(ctx, m1, 1e-5f);
	struct ggml_tensor *m2 = ggml_mul(ctx, twice, w);
	struct ggml_tensor *out = ggml_add(ctx, m2, twice);
	struct ggml_cgraph *g = ggml_new_graph(ctx);
	const void *nodes[8];
	int n;

	ggml_build_forward_expand(g, out);
	n = ggml_graph_n_nodes(g);
	ck_assert_int_eq(n, 5);
	for (int i = 0; i < n; i++)
		nodes[i] = ggml_graph_node(g, i);
	for (int pass = 0; pass < 2; pass++) {
		struct ggmlviz_node_desc d[5];

		memset(d, 0, sizeof d);
		if (pass == 1) { /* another run described first, then this one from node 1 */
			struct ggmlviz_node_desc other;
			memset(&other, 0, sizeof other);
			ggmlviz_ggml_describe(NULL, nodes + 2, 3, 0, &other);
		}
		for (int i = pass; i < n; i++)
			ggmlviz_ggml_describe(NULL, nodes, (size_t)n, (size_t)i, &d[i]);
		if (pass == 0) {
			ck_assert_uint_eq(d[0].flags & GGMLVIZ_NODE_FUSED, GGMLVIZ_NODE_FUSED);
			ck_assert_uint_eq(d[1].ticks, 0); /* the fused MUL ticks with its norm */
		}
		ck_assert_uint_eq(d[2].flags & GGMLVIZ_NODE_FUSED, 0); /* read by the ADD too */
		ck_assert_uint_eq(d[3].ticks, 1);
		ck_assert_uint_eq(d[4].ticks, 1);
		if (pass == 1)
			ck_assert_uint_eq(d[1].ticks, 0);
	}
	ggml_free(ctx);
}
END_TEST

/* A run of more fused pairs than the run's table holds (256): each still found, node by node. */
START_TEST(test_fused_pairs_past_the_table)
{
	struct ggml_init_params ip = { 16 * 1024 * 1024, NULL, true };
	struct ggml_context *ctx = ggml_init(ip);
	struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 4);
	struct ggml_tensor *w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
	struct ggml_cgraph *g = ggml_new_graph(ctx);
	static const void *nodes[600];
	int n, fused = 0;

	for (int i = 0; i < 260; i++)
		x = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), w);
	ggml_build_forward_expand(g, x);
	n = ggml_graph_n_nodes(g);
	ck_assert_int_eq(n, 520);
	for (int i = 0; i < n; i++)
		nodes[i] = ggml_graph_node(g, i);
	for (int i = 0; i < n; i++) {
		struct ggmlviz_node_desc d;

		memset(&d, 0, sizeof d);
		ggmlviz_ggml_describe(NULL, nodes, (size_t)n, (size_t)i, &d);
		fused += (d.flags & GGMLVIZ_NODE_FUSED) != 0;
		ck_assert_uint_eq(d.ticks, i % 2 == 0); /* each MUL ticks with its norm */
	}
	ck_assert_int_eq(fused, 260);
	ggml_free(ctx);
}
END_TEST

START_TEST(test_every_node_timed_once)
{
	struct model_run mr;
	struct gu_trace tr;
	size_t at = 0;
	int fused = 0;
	const char *name = NULL;

	model_init(&mr);
	trace_model(&mr, GGMLVIZ_OP_TIMING_AUTO, 3, &tr);
	ck_assert_uint_eq(tr.n_graphs, 3);
	ck_assert_uint_eq(tr.n_splits, 3);
	for (int run = 0; run < 3; run++) {
		size_t first = at;
		at = check_run_ticks(&tr, at, mr.m.graph, &fused);
		ck_assert_uint_eq(tr.splits[run].n_timed, at - first);
		ck_assert_uint_eq(tr.splits[run].ticks, tr.splits[run].ticks_expected);
		for (size_t i = first; i < at; i++)
			ck_assert_uint_eq(tr.ops[i].graph_seq, tr.graphs[run].graph_seq);
	}
	ck_assert_uint_eq(at, tr.n_ops);
	/* the norms of the 2 layers (attention and feed-forward) and the output */
	ck_assert_int_eq(fused, 3 * (2 * 2 + 1));
	ck_assert(gu_has_label(&tr, "norm-0 + attn_norm-0") && gu_has_label(&tr, "Qcur-0"));
	ck_assert(gu_has_label(&tr, "kq_soft_max_ext-1") && gu_has_label(&tr, "ffn_out-1"));
	ck_assert(gu_has_label(&tr, "result_output"));
	ck_assert_uint_eq(gu_count_meta(&tr, GGMLVIZ_META_OP_NAME,
					FUSED_BIT | GGML_OP_RMS_NORM | GGML_OP_MUL << 16, &name), 1);
	ck_assert_str_eq(name, "RMS_NORM+MUL");
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	gu_free(&tr);
	model_free(&mr);
}
END_TEST

START_TEST(test_sync_times_every_computing_node)
{
	struct model_run mr;
	struct gu_trace tr;
	size_t per_run = 0, at = 0;
	const char *silu = NULL;

	model_init(&mr);
	for (int i = 0; i < ggml_graph_n_nodes(mr.m.graph); i++)
		per_run += ggmlviz_ggml_node_computes(ggml_graph_node(mr.m.graph, i));
	trace_model(&mr, GGMLVIZ_OP_TIMING_SYNC, 2, &tr);
	ck_assert_uint_eq(tr.n_ops, 2 * per_run);
	for (int run = 0; run < 2; run++)
		for (int i = 0; i < ggml_graph_n_nodes(mr.m.graph); i++) {
			struct ggml_tensor *n = ggml_graph_node(mr.m.graph, i);
			if (!ggmlviz_ggml_node_computes(n))
				continue;
			ck_assert_uint_eq(tr.ops[at].ptr, (uint64_t)(uintptr_t)n);
			ck_assert(gu_label_is(&tr.ops[at], ggml_get_name(n)));
			ck_assert_int_eq(tr.ops[at].method, GGMLVIZ_OP_METHOD_SYNC);
			at++;
		}
	ck_assert_uint_eq(gu_count_meta(&tr, GGMLVIZ_META_OP_NAME,
					GGML_OP_UNARY | (GGML_UNARY_OP_SILU + 1u) << 16, &silu), 1);
	ck_assert_str_eq(silu, "SILU");
	gu_free(&tr);
	model_free(&mr);
}
END_TEST

START_TEST(test_layers)
{
	struct model_run mr;
	struct gu_trace tr;
	size_t none = 0;

	model_init(&mr);
	trace_model(&mr, GGMLVIZ_OP_TIMING_AUTO, 1, &tr);
	for (size_t i = 0; i < tr.n_ops; i++) {
		const struct ggmlviz_timing *op = &tr.ops[i];
		int32_t named = ggmlviz_layer_of_name(op->label, op->label_len);

		if (op->layer < 0) {
			none++;
			continue;
		}
		ck_assert_int_le(op->layer, 1);
		/* a node GGML named itself takes the layer of its sources */
		if (named >= 0)
			ck_assert_int_eq(op->layer, named);
	}
	/* outside every layer: the embedding lookup, the output norm, the output */
	ck_assert_uint_le(none, 4);
	ck_assert_int_eq(tr.ops[tr.n_ops - 1].layer, -1); /* result_output */
	gu_free(&tr);
	model_free(&mr);
}
END_TEST

/* The result of 2 steps, computed untraced or traced with op_timing. */
static uint64_t model_result(int traced, int op_timing)
{
	struct model_run mr;
	struct gu_trace tr;
	uint64_t sum;

	model_init(&mr);
	if (traced) {
		trace_model(&mr, op_timing, 2, &tr);
		gu_free(&tr);
	} else {
		for (int i = 0; i < 2; i++)
			transformer_step(&mr.m, mr.sched, (uint32_t)i,
					 ggml_backend_sched_graph_compute);
	}
	sum = transformer_checksum(&mr.m);
	model_free(&mr);
	return sum;
}

START_TEST(test_results_unchanged)
{
	uint64_t plain = model_result(0, 0);

	ck_assert_uint_eq(model_result(1, GGMLVIZ_OP_TIMING_AUTO), plain);
	ck_assert_uint_eq(model_result(1, GGMLVIZ_OP_TIMING_SYNC), plain);
	ck_assert_uint_eq(model_result(1, GGMLVIZ_OP_TIMING_OFF), plain);
}
END_TEST

/* ---- the application's own callbacks ------------------------------------- */

struct call {
	const struct ggml_tensor *t;
	bool ask;
	char name[GGML_MAX_NAME]; /* the tensors are gone when the calls are compared */
};

struct app {
	struct call *calls;
	size_t n;
	const char *stop_at; /* answer false when handed this node over */
	int aborts_asked;
};

/* Wants every 5th node it is asked about, and every permuted view. */
static bool app_cb(struct ggml_tensor *t, bool ask, void *user_data)
{
	struct app *a = user_data;

	ck_assert_uint_lt(a->n, GU_MAX_RECORDS);
	a->calls[a->n].t = t;
	a->calls[a->n].ask = ask;
	snprintf(a->calls[a->n].name, sizeof a->calls[a->n].name, "%s", ggml_get_name(t));
	a->n++;
	if (!ask)
		return !(a->stop_at && strcmp(ggml_get_name(t), a->stop_at) == 0);
	return a->n % 5 == 0 || strstr(ggml_get_name(t), "(permuted)") != NULL;
}

static bool app_abort(void *data)
{
	struct app *a = data;

	a->aborts_asked++;
	return false;
}

static void app_init(struct app *a, const char *stop_at)
{
	a->calls = calloc(GU_MAX_RECORDS, sizeof *a->calls);
	ck_assert_ptr_nonnull(a->calls);
	a->n = 0;
	a->stop_at = stop_at;
	a->aborts_asked = 0;
}

/* The calls app sees: without tracing (its callbacks set directly), then
 * chained behind the adapter while tracing. */
static void app_calls(struct app *plain, struct app *chained, const char *stop_at,
		      struct gu_trace *tr)
{
	struct model_run mr;
	char path[256];

	model_init(&mr);
	app_init(plain, stop_at);
	app_init(chained, stop_at);
	ggml_backend_sched_set_eval_callback(mr.sched, app_cb, plain);
	gu_set_cpu_abort(mr.backend, app_abort, plain);
	model_steps(&mr, 2);
	gu_start(path, GGMLVIZ_OP_TIMING_AUTO);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(mr.sched, GU_THREADS, app_cb, chained), 0);
	ck_assert_int_eq(ggmlviz_ggml_chain_abort(mr.sched, app_abort, chained), 0);
	model_steps(&mr, 2);
	ggmlviz_ggml_untrace_sched(mr.sched);
	gu_stop_and_read(path, tr);
	model_free(&mr);
}

static void check_same_calls(const struct app *plain, const struct app *chained)
{
	size_t observed = 0;

	ck_assert_uint_eq(chained->n, plain->n);
	for (size_t i = 0; i < plain->n; i++) {
		ck_assert_ptr_eq(chained->calls[i].t, plain->calls[i].t);
		ck_assert_int_eq(chained->calls[i].ask, plain->calls[i].ask);
		observed += !plain->calls[i].ask;
	}
	ck_assert_uint_gt(observed, 0); /* the hand-overs were passed on too */
	ck_assert_int_gt(plain->aborts_asked, 0);
	ck_assert_int_eq(chained->aborts_asked, plain->aborts_asked);
}

START_TEST(test_chain_sees_every_call)
{
	struct app plain, chained;
	struct gu_trace tr;

	app_calls(&plain, &chained, NULL, &tr);
	check_same_calls(&plain, &chained);
	/* the application's wanted nodes split the graph: still every node timed */
	ck_assert_uint_gt(tr.n_ops, 0);
	for (size_t i = 0; i < tr.n_splits; i++)
		ck_assert_uint_eq(tr.splits[i].ticks, tr.splits[i].ticks_expected);
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	gu_free(&tr);
	free(plain.calls);
	free(chained.calls);
}
END_TEST

START_TEST(test_chain_stop_passes_through)
{
	struct app plain, chained;
	struct gu_trace tr;
	const struct call *last;

	/* a permuted view, so wanted: answering false at its hand-over stops there */
	app_calls(&plain, &chained, "Qcur-1 (reshaped) (permuted)", &tr);
	check_same_calls(&plain, &chained);
	last = &plain.calls[plain.n - 1];
	ck_assert(!last->ask);
	ck_assert_str_eq(last->name, "Qcur-1 (reshaped) (permuted)");
	/* everything timed before the stop is complete; nothing after it */
	ck_assert(!gu_has_label(&tr, "ffn_out-1"));
	ck_assert(gu_has_label(&tr, "Qcur-1"));
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	gu_free(&tr);
	free(plain.calls);
	free(chained.calls);
}
END_TEST

START_TEST(test_untrace_restores_chain)
{
	struct model_run mr;
	struct app a;
	struct gu_trace tr;
	char path[256];

	model_init(&mr);
	app_init(&a, NULL);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(mr.sched, GU_THREADS, app_cb, &a), 0);
	ck_assert_int_eq(ggmlviz_ggml_chain_abort(mr.sched, app_abort, &a), 0);
	ggmlviz_ggml_untrace_sched(mr.sched);
	gu_start(path, GGMLVIZ_OP_TIMING_AUTO);
	model_steps(&mr, 1);
	gu_stop_and_read(path, &tr);
	ck_assert_uint_gt(a.n, 0);            /* the application's callbacks are back */
	ck_assert_int_gt(a.aborts_asked, 0);
	ck_assert_uint_eq(tr.n_ops, 0);       /* and the adapter's are gone */
	ck_assert_uint_eq(tr.n_graphs, 1);
	ck_assert_uint_eq(tr.graphs[0].n_threads, 0); /* forgotten with the scheduler */
	gu_free(&tr);
	free(a.calls);
	model_free(&mr);
}
END_TEST

/* ---- threads, sampling --------------------------------------------------- */

struct worker {
	pthread_t thread;
	struct model_run mr;
	int steps;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	ck_assert_int_eq(ggmlviz_ggml_trace_sched(w->mr.sched, GU_THREADS, NULL, NULL), 0);
	model_steps(&w->mr, w->steps);
	ggmlviz_ggml_untrace_sched(w->mr.sched);
	return NULL;
}

START_TEST(test_threads_each_with_a_scheduler)
{
	struct worker w[3];
	struct gu_trace tr;
	char path[256];

	for (int i = 0; i < 3; i++) {
		model_init(&w[i].mr);
		w[i].steps = 2 + i;
	}
	gu_start(path, GGMLVIZ_OP_TIMING_AUTO);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_create(&w[i].thread, NULL, worker_main, &w[i]), 0);
	for (int i = 0; i < 3; i++)
		pthread_join(w[i].thread, NULL);
	gu_stop_and_read(path, &tr);
	ck_assert_uint_eq(tr.n_graphs, 2 + 3 + 4);
	ck_assert_uint_eq(tr.n_splits, 2 + 3 + 4);
	for (size_t i = 0; i < tr.n_splits; i++) {
		ck_assert_uint_eq(tr.splits[i].ticks, tr.splits[i].ticks_expected);
		ck_assert_uint_eq(tr.splits[i].n_timed, tr.splits[0].n_timed);
	}
	ck_assert_uint_eq(tr.n_ops, (2 + 3 + 4) * tr.splits[0].n_timed);
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	/* named once per session, however many threads saw the op first */
	ck_assert_uint_eq(gu_count_meta(&tr, GGMLVIZ_META_OP_NAME, GGML_OP_MUL_MAT, NULL), 1);
	gu_free(&tr);
	for (int i = 0; i < 3; i++)
		model_free(&w[i].mr);
}
END_TEST

/* The ops of the graphs (the units here) summed, by op type, per graph n: their count. */
/* Steps of the model traced with cfg (its sched traced for them), read back into tr. */
static void traced_steps(struct model_run *mr, const struct ggmlviz_config *cfg, int steps,
			 struct gu_trace *tr)
{
	ck_assert_int_eq(ggmlviz_start(cfg), 0);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(mr->sched, GU_THREADS, NULL, NULL), 0);
	model_steps(mr, steps);
	ggmlviz_ggml_untrace_sched(mr->sched);
	gu_stop_and_read(cfg->output, tr);
}

static uint64_t summed_in_graph(const struct gu_trace *tr, size_t n)
{
	uint64_t count = 0;

	for (size_t i = 0; i < tr->n_sums; i++)
		if (tr->sums[i].begin_ns >= tr->graphs[n].begin_ns &&
		    tr->sums[i].begin_ns <= tr->graphs[n].end_ns)
			count += tr->sums[i].n_nodes;
	return count;
}

START_TEST(test_op_sampling)
{
	struct ggmlviz_config cfg;
	struct model_run mr;
	struct gu_trace tr;
	char path[256];
	size_t per_graph;

	model_init(&mr);
	tu_path(path, sizeof path, "ggml-sample");
	tu_config(&cfg, path);
	cfg.op_sample = 2;
	traced_steps(&mr, &cfg, 5, &tr);
	/* graphs and splits always; ops of graphs 1, 3 and 5 one by one */
	ck_assert_uint_eq(tr.n_graphs, 5);
	ck_assert_uint_eq(tr.n_splits, 5);
	per_graph = tr.splits[0].n_timed;
	ck_assert_uint_gt(per_graph, 0);
	ck_assert_uint_eq(tr.n_ops, 3 * per_graph);
	for (size_t i = 0; i < tr.n_ops; i++)
		ck_assert_uint_eq(tr.ops[i].graph_seq % 2, 1);
	/* ... and those of graphs 2 and 4 summed by op type, inside their graph */
	ck_assert_uint_eq(tr.splits[1].n_timed, 0);
	ck_assert_uint_eq(tr.splits[1].ticks, tr.splits[1].ticks_expected);
	ck_assert_uint_eq(summed_in_graph(&tr, 1), per_graph);
	ck_assert_uint_eq(summed_in_graph(&tr, 3), per_graph);
	ck_assert_uint_eq(summed_in_graph(&tr, 0) + summed_in_graph(&tr, 2), 0);
	for (size_t i = 0; i < tr.n_sums; i++)
		ck_assert_uint_le(tr.sums[i].value, tr.sums[i].duration_ns); /* longest <= total */
	ck_assert_uint_eq(gu_count_meta(&tr, GGMLVIZ_META_SAMPLE, 2, NULL), 1);
	gu_free(&tr);
	model_free(&mr);
}
END_TEST

/*
 * op_slow_us: a graph that took that long keeps its ops one by one,
 * sampled or not: 1 us keeps every graph, a minute none but the sampled.
 */
START_TEST(test_slow_units_kept)
{
	static const uint64_t slow_us[2] = { 1, 60000000 };
	struct ggmlviz_config cfg;
	struct model_run mr;
	struct gu_trace tr;
	char path[256];

	model_init(&mr);
	for (int k = 0; k < 2; k++) {
		tu_path(path, sizeof path, "ggml-slow");
		tu_config(&cfg, path);
		cfg.op_sample = 1000;
		cfg.op_slow_us = slow_us[k];
		traced_steps(&mr, &cfg, 4, &tr);
		ck_assert_uint_eq(tr.n_graphs, 4);
		ck_assert_uint_eq(tr.n_ops, (k == 0 ? 4 : 1) * tr.splits[0].n_timed);
		ck_assert_uint_eq(tr.n_sums == 0, k == 0);
		ck_assert_uint_eq(summed_in_graph(&tr, 3), k == 0 ? 0 : tr.splits[0].n_timed);
		gu_free(&tr);
	}
	model_free(&mr);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("ggml-model");
	TCase *model = tcase_create("transformer");

	tcase_add_test(model, test_fused_pairs_of_a_run);
	tcase_add_test(model, test_fused_pairs_past_the_table);
	tcase_add_test(model, test_every_node_timed_once);
	tcase_add_test(model, test_sync_times_every_computing_node);
	tcase_add_test(model, test_layers);
	tcase_add_test(model, test_results_unchanged);
	tcase_add_test(model, test_chain_sees_every_call);
	tcase_add_test(model, test_chain_stop_passes_through);
	tcase_add_test(model, test_untrace_restores_chain);
	tcase_add_test(model, test_threads_each_with_a_scheduler);
	tcase_add_test(model, test_op_sampling);
	tcase_add_test(model, test_slow_units_kept);
	tcase_set_timeout(model, GU_TIMEOUT_S);
	suite_add_tcase(s, model);
	return s;
}

int main(void)
{
	/* GGML looks for its CPU backend beside the executable only */
	ggml_backend_load_all_from_path(GGMLVIZ_GGML_LIBDIR);
	return run_suite(make_suite());
}
