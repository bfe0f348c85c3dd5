/*
 * The GGML adapter on real GGML: graphs computed through a scheduler on the
 * CPU backend, traced, and read back through the reader API.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GGMLVIZ_GGML_MAX_SCHEDS 4 /* small, to reach -ENOSPC */
#include <ggml.h>
#include <ggml-backend.h>
#include <ggmlviz/ggml.h>
#include <ggmlviz/reader.h>

#include "check-compat.h"
#include "test-ggml.h"
#include "trace-util.h"
#include "../examples/transformer.h"

#ifndef GGMLVIZ_GGML_LIBDIR
#error "build with -DGGMLVIZ_GGML_LIBDIR=\"...\" (Makefile.am does)"
#endif

#define MAX_RECORDS 8192
#if defined(__SANITIZE_THREAD__)
/* GGML's thread pool is not instrumented: its barriers would look like races */
#define N_THREADS 1
#else
#define N_THREADS 2
#endif

/* ---- reading a trace back ---------------------------------------------- */

struct meta {
	uint32_t kind;
	uint64_t key;
	char label[64];
};

struct trace {
	struct ggmlviz_reader *r; /* the timings' labels point into it */
	struct ggmlviz_timing *ops, *graphs;
	size_t n_ops, n_graphs;
	struct meta *metas;
	size_t n_metas;
	struct ggmlviz_pairing_counts counts;
};

static int add_meta(const struct ggmlviz_event *ev, void *arg)
{
	struct trace *tr = arg;
	struct meta *m = &tr->metas[tr->n_metas];

	if (ev->type != GGMLVIZ_EVENT_META)
		return 0;
	ck_assert_uint_lt(tr->n_metas, MAX_RECORDS);
	m->kind = ev->data.meta.kind;
	m->key = ev->data.meta.key;
	snprintf(m->label, sizeof m->label, "%.*s", (int)ev->label_len, ev->label ? ev->label : "");
	tr->n_metas++;
	return 0;
}

static void read_trace(struct trace *tr, const char *path)
{
	struct ggmlviz_timing t;
	int rc;

	memset(tr, 0, sizeof *tr);
	tr->ops = calloc(MAX_RECORDS, sizeof *tr->ops);
	tr->graphs = calloc(MAX_RECORDS, sizeof *tr->graphs);
	tr->metas = calloc(MAX_RECORDS, sizeof *tr->metas);
	ck_assert(tr->ops && tr->graphs && tr->metas);
	ck_assert_int_eq(ggmlviz_reader_open(path, &tr->r), 0);
	while ((rc = ggmlviz_timings_next(tr->r, &t)) == 1) {
		ck_assert_uint_lt(tr->n_ops + tr->n_graphs, MAX_RECORDS);
		if (t.kind == GGMLVIZ_TIMING_OP)
			tr->ops[tr->n_ops++] = t;
		else if (t.kind == GGMLVIZ_TIMING_GRAPH)
			tr->graphs[tr->n_graphs++] = t;
	}
	ck_assert_int_eq(rc, 0);
	ggmlviz_timings_counts(tr->r, &tr->counts);
	ck_assert_int_eq(tu_each(path, add_meta, tr), 0);
}

static void trace_free(struct trace *tr)
{
	ggmlviz_reader_close(tr->r);
	free(tr->ops);
	free(tr->graphs);
	free(tr->metas);
}

/* How many META records of kind name key, and the label of the last. */
static size_t count_meta(const struct trace *tr, uint32_t kind, uint64_t key, const char **label)
{
	size_t n = 0;

	for (size_t i = 0; i < tr->n_metas; i++) {
		if (tr->metas[i].kind != kind || tr->metas[i].key != key)
			continue;
		n++;
		if (label)
			*label = tr->metas[i].label;
	}
	return n;
}

static int label_is(const struct ggmlviz_timing *t, const char *name)
{
	return t->label && t->label_len == strlen(name) &&
	       memcmp(t->label, name, t->label_len) == 0;
}

/* ---- tracing into a temporary file --------------------------------------- */

struct tmp_trace {
	char path[256];
};

static void tmp_trace_init(struct tmp_trace *f)
{
	tu_path(f->path, sizeof f->path, "ggml");
}

static void start_tracing(const struct tmp_trace *f)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, f->path);
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK; /* lossless: the tests count every record */
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
}

static void stop_and_read(const struct tmp_trace *f, struct trace *tr)
{
	ck_assert_int_eq(ggmlviz_stop(), 0);
	read_trace(tr, f->path);
	unlink(f->path);
}

/* ---- GGML: the CPU backend, a known graph, the transformer --------------- */

static ggml_backend_t cpu_backend(void)
{
	ggml_backend_t b = transformer_cpu_backend(GGMLVIZ_GGML_LIBDIR, N_THREADS);

	ck_assert_msg(b != NULL, "no CPU backend in %s", GGMLVIZ_GGML_LIBDIR);
	return b;
}

static ggml_backend_sched_t new_sched(ggml_backend_t *backend, size_t graph_size)
{
	return ggml_backend_sched_new(backend, NULL, 1, graph_size, false, false);
}

/*
 * x [64, 8] and w [64, 48] in a backend buffer;
 *   y = w x [48, 8]       MUL_MAT   computes
 *   yt = yᵀ [8, 48]       TRANSPOSE view
 *   yc = cont(yt)         CONT      computes
 *   r = yc as [48, 8]     RESHAPE   view
 *   s = silu(r)           UNARY     computes
 *   v = s rows 0..3       VIEW      view
 *   out = softmax(v)      SOFT_MAX  computes
 */
struct known {
	struct ggml_context *params_ctx, *ctx;
	ggml_backend_buffer_t params;
	struct ggml_cgraph *g;
	struct ggml_tensor *x, *w, *y, *yt, *yc, *r, *s, *v, *out;
};

static struct ggml_tensor *name(struct ggml_tensor *t, const char *n)
{
	return ggml_set_name(t, n);
}

static void fill(struct ggml_tensor *t, float seed)
{
	size_t n = (size_t)ggml_nelements(t);
	float *v = malloc(n * sizeof *v);

	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)((i * 7 + (size_t)seed) % 13) / 13.0f - 0.5f;
	ggml_backend_tensor_set(t, v, 0, n * sizeof *v);
	free(v);
}

static void known_params(struct known *k, ggml_backend_t backend)
{
	struct ggml_init_params ip = { 2 * ggml_tensor_overhead(), NULL, true };

	k->params_ctx = ggml_init(ip);
	k->x = name(ggml_new_tensor_2d(k->params_ctx, GGML_TYPE_F32, 64, 8), "x");
	k->w = name(ggml_new_tensor_2d(k->params_ctx, GGML_TYPE_F32, 64, 48), "w");
	k->params = ggml_backend_alloc_ctx_tensors(k->params_ctx, backend);
	ck_assert_ptr_nonnull(k->params);
	fill(k->x, 1);
	fill(k->w, 2);
}

static void known_init(struct known *k, ggml_backend_t backend)
{
	struct ggml_init_params ip = {
		16 * ggml_tensor_overhead() + ggml_graph_overhead_custom(64, false), NULL, true
	};
	struct ggml_context *ctx;

	memset(k, 0, sizeof *k);
	known_params(k, backend);
	ctx = k->ctx = ggml_init(ip);
	k->y = name(ggml_mul_mat(ctx, k->w, k->x), "y");
	k->yt = name(ggml_transpose(ctx, k->y), "yt");
	k->yc = name(ggml_cont(ctx, k->yt), "yc");
	k->r = name(ggml_reshape_2d(ctx, k->yc, 48, 8), "r");
	k->s = name(ggml_silu(ctx, k->r), "s");
	k->v = name(ggml_view_2d(ctx, k->s, 48, 4, k->s->nb[1], 0), "v");
	k->out = name(ggml_soft_max(ctx, k->v), "out");
	ggml_set_output(k->out);
	k->g = ggml_new_graph_custom(ctx, 64, false);
	ggml_build_forward_expand(k->g, k->out);
	ck_assert_int_eq(ggml_graph_n_nodes(k->g), 7);
}

static void known_free(struct known *k)
{
	ggml_free(k->ctx);
	ggml_backend_buffer_free(k->params);
	ggml_free(k->params_ctx);
}

/* The fixture of the "known graph" tests: a CPU backend and the graph. */
static ggml_backend_t cpu;
static struct known kg;

static void known_setup(void)
{
	cpu = cpu_backend();
	known_init(&kg, cpu);
}

static void known_teardown(void)
{
	known_free(&kg);
	ggml_backend_free(cpu);
}

/* What the trace must say of each computing node, reasoned from the graph
 * above: sizes are f32 elements x 4, MUL_MAT work is 2 x 64 x 48 x 8. */
struct expected_op {
	const char *label;
	uint32_t op_type;
	const char *op_name;
	uint64_t size;
	int64_t ne[4];
	uint64_t flops;
};

static void known_expected(struct expected_op e[4])
{
	const struct expected_op ops[4] = {
		{ "y", GGML_OP_MUL_MAT, "MUL_MAT", 48 * 8 * 4, { 48, 8, 1, 1 }, 2 * 64 * 48 * 8 },
		{ "yc", GGML_OP_CONT, "CONT", 8 * 48 * 4, { 8, 48, 1, 1 }, 8 * 48 },
		{ "s", GGML_OP_UNARY | (GGML_UNARY_OP_SILU + 1u) << 16, "SILU", 48 * 8 * 4,
		  { 48, 8, 1, 1 }, 48 * 8 },
		{ "out", GGML_OP_SOFT_MAX, "SOFT_MAX", 48 * 4 * 4, { 48, 4, 1, 1 }, 48 * 4 },
	};

	memcpy(e, ops, sizeof ops);
}

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

/* ---- a known graph ------------------------------------------------------- */

static void check_known_op(const struct trace *tr, const struct ggmlviz_timing *t,
			   const struct expected_op *e, uint64_t backend)
{
	const char *op_name = NULL;

	ck_assert_msg(label_is(t, e->label), "op labelled %.*s, expected %s", (int)t->label_len,
		      t->label, e->label);
	ck_assert_uint_eq(t->op_type, e->op_type);
	ck_assert_uint_eq(t->op_size, e->size);
	ck_assert_uint_eq(t->backend_ptr, backend);
	for (int d = 0; d < 4; d++)
		ck_assert_int_eq(t->ne[d], e->ne[d]);
	ck_assert_uint_eq(t->flops, e->flops);
	ck_assert_uint_eq(t->type_name_len, 3);
	ck_assert_int_eq(memcmp(t->type_name, "f32", 3), 0);
	ck_assert_uint_eq(count_meta(tr, GGMLVIZ_META_OP_NAME, e->op_type, &op_name), 1);
	ck_assert_str_eq(op_name, e->op_name);
}

/* Each op inside its graph: same thread and run, within its times. */
static void check_nested(const struct ggmlviz_timing *op, const struct ggmlviz_timing *graph)
{
	ck_assert_uint_eq(op->graph_seq, graph->graph_seq);
	ck_assert_uint_eq(op->thread_id, graph->thread_id);
	ck_assert_uint_ge(op->begin_ns, graph->begin_ns);
	ck_assert_uint_le(op->end_ns, graph->end_ns);
	ck_assert_uint_eq(op->depth, 1);
	ck_assert_uint_eq(graph->depth, 0);
}

/* One tracing session: the known graph computed runs times on sched, traced. */
static void trace_session(struct trace *tr, struct known *k, ggml_backend_sched_t sched, int runs)
{
	struct tmp_trace f;

	tmp_trace_init(&f);
	start_tracing(&f);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(sched, N_THREADS, NULL, NULL), 0);
	for (int i = 0; i < runs; i++)
		ck_assert_int_eq(ggmlviz_ggml_sched_graph_compute(sched, k->g),
				 GGML_STATUS_SUCCESS);
	ggmlviz_ggml_untrace_sched(sched);
	stop_and_read(&f, tr);
}

/* The same on a scheduler of its own (a graph once allocated by a
 * scheduler must not be computed by another). */
static void trace_known(struct trace *tr, struct known *k, ggml_backend_t backend, int runs)
{
	ggml_backend_sched_t sched = new_sched(&backend, 64);

	trace_session(tr, k, sched, runs);
	ggml_backend_sched_free(sched);
}

START_TEST(test_known_graph_pairs)
{
	struct expected_op e[4];
	struct trace tr;
	const char *backend_name = NULL;

	known_expected(e);
	trace_known(&tr, &kg, cpu, 1);
	ck_assert_uint_eq(tr.n_graphs, 1);
	ck_assert_uint_eq(tr.graphs[0].ptr, (uint64_t)(uintptr_t)kg.g);
	ck_assert_uint_eq(tr.graphs[0].n_nodes, 7);
	ck_assert_uint_eq(tr.graphs[0].n_threads, N_THREADS);
	ck_assert_uint_eq(tr.graphs[0].backend_ptr, (uint64_t)(uintptr_t)cpu);
	ck_assert_uint_eq(tr.n_ops, 4);
	for (int i = 0; i < 4; i++) {
		check_known_op(&tr, &tr.ops[i], &e[i], (uint64_t)(uintptr_t)cpu);
		check_nested(&tr.ops[i], &tr.graphs[0]);
	}
	ck_assert_uint_eq(tr.ops[0].ptr, (uint64_t)(uintptr_t)kg.y);
	ck_assert_uint_eq(tr.ops[3].ptr, (uint64_t)(uintptr_t)kg.out);
	ck_assert_uint_eq(count_meta(&tr, GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)cpu,
				     &backend_name), 1);
	ck_assert_str_eq(backend_name, ggml_backend_name(cpu));
	ck_assert_uint_eq(tr.counts.unmatched_ends, 0);
	ck_assert_uint_eq(tr.counts.unclosed_begins, 0);
	trace_free(&tr);
}
END_TEST

START_TEST(test_views_yield_none)
{
	struct trace tr;

	trace_known(&tr, &kg, cpu, 1);
	for (size_t i = 0; i < tr.n_ops; i++) {
		ck_assert(!label_is(&tr.ops[i], "yt"));
		ck_assert(!label_is(&tr.ops[i], "r"));
		ck_assert(!label_is(&tr.ops[i], "v"));
	}
	ck_assert_uint_eq(tr.n_ops, 4);
	ck_assert(!ggmlviz_ggml_node_computes(kg.yt));
	ck_assert(!ggmlviz_ggml_node_computes(kg.r));
	ck_assert(!ggmlviz_ggml_node_computes(kg.v));
	ck_assert(ggmlviz_ggml_node_computes(kg.yc));
	trace_free(&tr);
}
END_TEST

START_TEST(test_views_traced_when_asked)
{
	ggml_backend_sched_t sched = new_sched(&cpu, 64);
	struct tmp_trace f;
	struct trace tr;

	tmp_trace_init(&f);
	start_tracing(&f);
	ck_assert_int_eq(views_trace_sched(sched, 1), 0);
	ck_assert_int_eq(ggml_backend_sched_graph_compute(sched, kg.g), GGML_STATUS_SUCCESS);
	views_untrace_sched(sched);
	stop_and_read(&f, &tr);
	ck_assert_uint_eq(tr.n_ops, 7); /* every node, views included */
	ck_assert(label_is(&tr.ops[1], "yt"));
	ck_assert_uint_eq(tr.ops[1].op_type, GGML_OP_TRANSPOSE);
	ck_assert_uint_eq(tr.ops[1].flops, 0);
	ck_assert_uint_eq(tr.n_graphs, 0); /* computed without the graph wrapper */
	trace_free(&tr);
	ggml_backend_sched_free(sched);
}
END_TEST

START_TEST(test_two_runs_told_apart)
{
	struct trace tr;

	trace_known(&tr, &kg, cpu, 2);
	ck_assert_uint_eq(tr.n_graphs, 2);
	ck_assert_uint_ne(tr.graphs[0].graph_seq, tr.graphs[1].graph_seq);
	ck_assert_uint_eq(tr.graphs[0].ptr, tr.graphs[1].ptr);
	ck_assert_uint_eq(tr.n_ops, 8);
	for (size_t i = 0; i < 4; i++) {
		/* the same tensor, the same address: two ops, one per run */
		ck_assert_uint_eq(tr.ops[i].ptr, tr.ops[i + 4].ptr);
		check_nested(&tr.ops[i], &tr.graphs[0]);
		check_nested(&tr.ops[i + 4], &tr.graphs[1]);
	}
	/* named once per session, not once per run */
	ck_assert_uint_eq(count_meta(&tr, GGMLVIZ_META_OP_NAME, GGML_OP_MUL_MAT, NULL), 1);
	ck_assert_uint_eq(tr.counts.paired, 10);
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	trace_free(&tr);
}
END_TEST

/* ---- the transformer: llama.cpp's names, several runs -------------------- */

struct model_run {
	ggml_backend_t backend;
	ggml_backend_sched_t sched;
	struct transformer m;
};

static void model_init(struct model_run *mr, const struct transformer_params *p)
{
	mr->backend = cpu_backend();
	ck_assert_int_eq(transformer_init(&mr->m, p, mr->backend), 0);
	mr->sched = new_sched(&mr->backend, transformer_graph_size(p));
}

static void model_free(struct model_run *mr)
{
	ggml_backend_sched_free(mr->sched);
	transformer_free(&mr->m);
	ggml_backend_free(mr->backend);
}

static void model_steps(struct model_run *mr, int steps,
			enum ggml_status (*compute)(ggml_backend_sched_t, struct ggml_cgraph *))
{
	for (int i = 0; i < steps; i++)
		ck_assert_int_eq(transformer_step(&mr->m, mr->sched, (uint32_t)i, compute),
				 GGML_STATUS_SUCCESS);
}

/* The ops of one run are the graph's computing nodes, in order. */
static void check_run(const struct trace *tr, size_t first, struct ggml_cgraph *g)
{
	size_t at = first;

	for (int i = 0; i < ggml_graph_n_nodes(g); i++) {
		struct ggml_tensor *n = ggml_graph_node(g, i);

		if (!ggmlviz_ggml_node_computes(n))
			continue;
		ck_assert_uint_lt(at, tr->n_ops);
		ck_assert_uint_eq(tr->ops[at].ptr, (uint64_t)(uintptr_t)n);
		ck_assert(label_is(&tr->ops[at], ggml_get_name(n)));
		ck_assert_uint_eq(tr->ops[at].op_type, ggmlviz_ggml_op_type(n));
		ck_assert_uint_eq(tr->ops[at].op_size, ggml_nbytes(n));
		ck_assert_uint_eq(count_meta(tr, GGMLVIZ_META_OP_NAME, tr->ops[at].op_type, NULL),
				  1);
		at++;
	}
}

static int has_label(const struct trace *tr, const char *label)
{
	for (size_t i = 0; i < tr->n_ops; i++)
		if (label_is(&tr->ops[i], label))
			return 1;
	return 0;
}

START_TEST(test_transformer_every_node)
{
	struct transformer_params p = small_model();
	struct model_run mr;
	struct tmp_trace f;
	struct trace tr;
	size_t per_run = 0;
	const char *silu = NULL;

	model_init(&mr, &p);
	for (int i = 0; i < ggml_graph_n_nodes(mr.m.graph); i++)
		per_run += ggmlviz_ggml_node_computes(ggml_graph_node(mr.m.graph, i));
	tmp_trace_init(&f);
	start_tracing(&f);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(mr.sched, N_THREADS, NULL, NULL), 0);
	model_steps(&mr, 3, ggmlviz_ggml_sched_graph_compute);
	ggmlviz_ggml_untrace_sched(mr.sched);
	stop_and_read(&f, &tr);
	ck_assert_uint_eq(tr.n_graphs, 3);
	ck_assert_uint_eq(tr.n_ops, 3 * per_run);
	for (size_t run = 0; run < 3; run++)
		check_run(&tr, run * per_run, mr.m.graph);
	for (size_t i = 0; i < tr.n_ops; i++)
		check_nested(&tr.ops[i], &tr.graphs[i / per_run]);
	ck_assert(has_label(&tr, "attn_norm-0") && has_label(&tr, "Qcur-0"));
	ck_assert(has_label(&tr, "kq_soft_max_ext-1") && has_label(&tr, "ffn_out-1"));
	ck_assert(has_label(&tr, "result_output"));
	ck_assert_uint_eq(count_meta(&tr, GGMLVIZ_META_OP_NAME,
				     GGML_OP_UNARY | (GGML_UNARY_OP_SILU + 1u) << 16, &silu), 1);
	ck_assert_str_eq(silu, "SILU");
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	trace_free(&tr);
	model_free(&mr);
}
END_TEST

static enum ggml_status plain_compute(ggml_backend_sched_t s, struct ggml_cgraph *g)
{
	return ggml_backend_sched_graph_compute(s, g);
}

/* The result of 2 steps, computed as run() says. */
static uint64_t model_result(void (*run)(struct model_run *mr))
{
	struct transformer_params p = small_model();
	struct model_run mr;
	uint64_t sum;

	model_init(&mr, &p);
	run(&mr);
	sum = transformer_checksum(&mr.m);
	model_free(&mr);
	return sum;
}

static void run_plain(struct model_run *mr)
{
	model_steps(mr, 2, plain_compute);
}

static void run_traced(struct model_run *mr)
{
	struct tmp_trace f;
	struct trace tr;

	tmp_trace_init(&f);
	start_tracing(&f);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(mr->sched, N_THREADS, NULL, NULL), 0);
	model_steps(mr, 2, ggmlviz_ggml_sched_graph_compute);
	ggmlviz_ggml_untrace_sched(mr->sched);
	stop_and_read(&f, &tr);
	ck_assert_uint_gt(tr.n_ops, 0); /* the nodes were split out one by one */
	trace_free(&tr);
}

static void run_installed_not_tracing(struct model_run *mr)
{
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(mr->sched, N_THREADS, NULL, NULL), 0);
	model_steps(mr, 2, ggmlviz_ggml_sched_graph_compute);
	ggmlviz_ggml_untrace_sched(mr->sched);
}

START_TEST(test_results_unchanged)
{
	uint64_t plain = model_result(run_plain);

	ck_assert_uint_eq(model_result(run_traced), plain);
	ck_assert_uint_eq(model_result(run_installed_not_tracing), plain);
}
END_TEST

/* ---- a chained application callback ------------------------------------- */

struct call {
	const struct ggml_tensor *t;
	bool ask;
	char name[GGML_MAX_NAME]; /* the tensors are gone when the calls are compared */
};

struct app {
	struct call *calls;
	size_t n;
	const char *stop_at; /* answer false when handed this node over */
};

/* Wants every 5th node it is asked about, and every permuted view. */
static bool app_cb(struct ggml_tensor *t, bool ask, void *user_data)
{
	struct app *a = user_data;

	ck_assert_uint_lt(a->n, MAX_RECORDS);
	a->calls[a->n].t = t;
	a->calls[a->n].ask = ask;
	snprintf(a->calls[a->n].name, sizeof a->calls[a->n].name, "%s", ggml_get_name(t));
	a->n++;
	if (!ask)
		return !(a->stop_at && strcmp(ggml_get_name(t), a->stop_at) == 0);
	return a->n % 5 == 0 || strstr(ggml_get_name(t), "(permuted)") != NULL;
}

static void app_init(struct app *a, const char *stop_at)
{
	a->calls = calloc(MAX_RECORDS, sizeof *a->calls);
	ck_assert_ptr_nonnull(a->calls);
	a->n = 0;
	a->stop_at = stop_at;
}

static void model_steps_status(struct model_run *mr, int steps)
{
	for (int i = 0; i < steps; i++)
		transformer_step(&mr->m, mr->sched, (uint32_t)i, ggmlviz_ggml_sched_graph_compute);
}

/* The calls app sees: without tracing (its callback set directly), then
 * chained behind the adapter while tracing. */
static void app_calls(struct app *plain, struct app *chained, const char *stop_at,
		      struct trace *tr)
{
	struct transformer_params p = small_model();
	struct model_run mr;
	struct tmp_trace f;

	model_init(&mr, &p);
	app_init(plain, stop_at);
	app_init(chained, stop_at);
	ggml_backend_sched_set_eval_callback(mr.sched, app_cb, plain);
	model_steps_status(&mr, 2);
	tmp_trace_init(&f);
	start_tracing(&f);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(mr.sched, N_THREADS, app_cb, chained), 0);
	model_steps_status(&mr, 2);
	ggmlviz_ggml_untrace_sched(mr.sched);
	stop_and_read(&f, tr);
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
}

START_TEST(test_chain_sees_every_call)
{
	struct app plain, chained;
	struct trace tr;

	app_calls(&plain, &chained, NULL, &tr);
	check_same_calls(&plain, &chained);
	ck_assert_uint_gt(tr.n_ops, 0);
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	trace_free(&tr);
	free(plain.calls);
	free(chained.calls);
}
END_TEST

START_TEST(test_chain_stop_passes_through)
{
	struct app plain, chained;
	struct trace tr;
	const struct call *last;

	/* a permuted view, so wanted: answering false at its hand-over stops there */
	app_calls(&plain, &chained, "Qcur-1 (reshaped) (permuted)", &tr);
	check_same_calls(&plain, &chained);
	last = &plain.calls[plain.n - 1];
	ck_assert(!last->ask);
	ck_assert_str_eq(last->name, "Qcur-1 (reshaped) (permuted)");
	/* everything timed before the stop is complete; nothing after it */
	ck_assert(!has_label(&tr, "ffn_out-1"));
	ck_assert(has_label(&tr, "Qcur-1"));
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	trace_free(&tr);
	free(plain.calls);
	free(chained.calls);
}
END_TEST

START_TEST(test_untrace_restores_chain)
{
	struct transformer_params p = small_model();
	struct model_run mr;
	struct app a;
	struct tmp_trace f;
	struct trace tr;

	model_init(&mr, &p);
	app_init(&a, NULL);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(mr.sched, N_THREADS, app_cb, &a), 0);
	ggmlviz_ggml_untrace_sched(mr.sched);
	tmp_trace_init(&f);
	start_tracing(&f);
	model_steps(&mr, 1, ggmlviz_ggml_sched_graph_compute);
	stop_and_read(&f, &tr);
	ck_assert_uint_gt(a.n, 0);   /* the application's callback is back */
	ck_assert_uint_eq(tr.n_ops, 0); /* and the adapter's is gone */
	ck_assert_uint_eq(tr.n_graphs, 1);
	ck_assert_uint_eq(tr.graphs[0].n_threads, 0); /* forgotten with the scheduler */
	trace_free(&tr);
	free(a.calls);
	model_free(&mr);
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
}
END_TEST

START_TEST(test_op_timing_off_splits_nothing)
{
	ggml_backend_sched_t sched = new_sched(&cpu, 64);
	struct ggmlviz_config cfg;
	struct tmp_trace f;
	struct trace tr;

	tmp_trace_init(&f);
	tu_config(&cfg, f.path);
	cfg.op_timing = 0; /* GGML_VIZ_OP_TIMING=0: graphs only, no synchronization per node */
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert(!ggmlviz_ggml_eval_cb(kg.y, true, NULL));
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(sched, 1, NULL, NULL), 0);
	ck_assert_int_eq(ggmlviz_ggml_sched_graph_compute(sched, kg.g), GGML_STATUS_SUCCESS);
	ggmlviz_ggml_untrace_sched(sched);
	stop_and_read(&f, &tr);
	ck_assert_uint_eq(tr.n_graphs, 1);
	ck_assert_uint_eq(tr.n_ops, 0);
	ck_assert_uint_eq(count_meta(&tr, GGMLVIZ_META_OP_NAME, GGML_OP_MUL_MAT, NULL), 0);
	trace_free(&tr);
	ggml_backend_sched_free(sched);
}
END_TEST

START_TEST(test_user_data_null_names_buffer_type)
{
	ggml_backend_sched_t sched = new_sched(&cpu, 64);
	ggml_backend_buffer_type_t buft;
	struct tmp_trace f;
	struct trace tr;
	const char *label = NULL;

	tmp_trace_init(&f);
	start_tracing(&f);
	/* as llama.cpp's cb_eval: the adapter's callback, user_data NULL */
	ggml_backend_sched_set_eval_callback(sched, ggmlviz_ggml_eval_cb, NULL);
	ck_assert_int_eq(ggml_backend_sched_graph_compute(sched, kg.g), GGML_STATUS_SUCCESS);
	stop_and_read(&f, &tr);
	buft = ggml_backend_buffer_get_type(kg.y->buffer);
	ck_assert_uint_eq(tr.n_ops, 4);
	for (size_t i = 0; i < tr.n_ops; i++)
		ck_assert_uint_eq(tr.ops[i].backend_ptr, (uint64_t)(uintptr_t)buft);
	ck_assert_uint_eq(count_meta(&tr, GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)buft,
				     &label), 1);
	ck_assert_str_eq(label, ggml_backend_buft_name(buft));
	trace_free(&tr);
	ggml_backend_sched_free(sched);
}
END_TEST

START_TEST(test_names_again_each_session)
{
	ggml_backend_sched_t sched = new_sched(&cpu, 64);
	struct trace first, second;

	trace_session(&first, &kg, sched, 1);
	trace_session(&second, &kg, sched, 1);
	ggml_backend_sched_free(sched);
	/* each file names its own ops and cpu */
	ck_assert_uint_eq(count_meta(&first, GGMLVIZ_META_OP_NAME, GGML_OP_SOFT_MAX, NULL), 1);
	ck_assert_uint_eq(count_meta(&second, GGMLVIZ_META_OP_NAME, GGML_OP_SOFT_MAX, NULL), 1);
	ck_assert_uint_eq(count_meta(&second, GGMLVIZ_META_BACKEND_NAME,
				     (uint64_t)(uintptr_t)cpu, NULL), 1);
	trace_free(&first);
	trace_free(&second);
}
END_TEST

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

/* ---- the graph helpers, errors, threads ---------------------------------- */

START_TEST(test_backend_graph_compute)
{
	struct tmp_trace f;
	struct trace tr;
	ggml_backend_buffer_t buf;
	float plain[48 * 4], traced[48 * 4];

	buf = ggml_backend_alloc_ctx_tensors(kg.ctx, cpu);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(ggml_backend_graph_compute(cpu, kg.g), GGML_STATUS_SUCCESS);
	ggml_backend_tensor_get(kg.out, plain, 0, sizeof plain);
	tmp_trace_init(&f);
	start_tracing(&f);
	ck_assert_int_eq(ggmlviz_ggml_backend_graph_compute(cpu, kg.g, 3), GGML_STATUS_SUCCESS);
	stop_and_read(&f, &tr);
	ggml_backend_tensor_get(kg.out, traced, 0, sizeof traced);
	ck_assert_int_eq(memcmp(plain, traced, sizeof plain), 0);
	ck_assert_uint_eq(tr.n_graphs, 1);
	ck_assert_uint_eq(tr.n_ops, 0);
	ck_assert_uint_eq(tr.graphs[0].n_nodes, 7);
	ck_assert_uint_eq(tr.graphs[0].n_threads, 3);
	ck_assert_uint_eq(tr.graphs[0].backend_ptr, (uint64_t)(uintptr_t)cpu);
	ck_assert_uint_eq(count_meta(&tr, GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)cpu,
				     NULL), 1);
	trace_free(&tr);
	ggml_backend_buffer_free(buf);
}
END_TEST

START_TEST(test_errors)
{
	ggml_backend_t backend = cpu_backend();
	ggml_backend_sched_t s[GGMLVIZ_GGML_MAX_SCHEDS + 1];
	int calls = 0;

	for (int i = 0; i <= GGMLVIZ_GGML_MAX_SCHEDS; i++)
		s[i] = new_sched(&backend, 16);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(NULL, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(s[0], -1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(s[0], 1, ggmlviz_ggml_eval_cb, NULL), -EINVAL);
	ck_assert_int_eq(ggmlviz_ggml_chain(s[0], ggmlviz_ggml_eval_cb, NULL), -EINVAL);
	for (int i = 0; i < GGMLVIZ_GGML_MAX_SCHEDS; i++)
		ck_assert_int_eq(ggmlviz_ggml_trace_sched(s[i], 1, NULL, NULL), 0);
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

struct worker {
	pthread_t thread;
	struct model_run mr;
	int steps;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	ck_assert_int_eq(ggmlviz_ggml_trace_sched(w->mr.sched, 1, NULL, NULL), 0);
	model_steps(&w->mr, w->steps, ggmlviz_ggml_sched_graph_compute);
	ggmlviz_ggml_untrace_sched(w->mr.sched);
	return NULL;
}

START_TEST(test_threads_each_with_a_scheduler)
{
	struct transformer_params p = small_model();
	struct worker w[3];
	struct tmp_trace f;
	struct trace tr;
	size_t per_run = 0;

	for (int i = 0; i < 3; i++) {
		model_init(&w[i].mr, &p);
		w[i].steps = 2 + i;
	}
	for (int i = 0; i < ggml_graph_n_nodes(w[0].mr.m.graph); i++)
		per_run += ggmlviz_ggml_node_computes(ggml_graph_node(w[0].mr.m.graph, i));
	tmp_trace_init(&f);
	start_tracing(&f);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_create(&w[i].thread, NULL, worker_main, &w[i]), 0);
	for (int i = 0; i < 3; i++)
		pthread_join(w[i].thread, NULL);
	stop_and_read(&f, &tr);
	ck_assert_uint_eq(tr.n_graphs, 2 + 3 + 4);
	ck_assert_uint_eq(tr.n_ops, (2 + 3 + 4) * per_run);
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	for (size_t i = 0; i < tr.n_ops; i++)
		ck_assert_uint_eq(tr.ops[i].depth, 1);
	/* named once per session, however many threads saw the op first */
	ck_assert_uint_eq(count_meta(&tr, GGMLVIZ_META_OP_NAME, GGML_OP_MUL_MAT, NULL), 1);
	trace_free(&tr);
	for (int i = 0; i < 3; i++)
		model_free(&w[i].mr);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("ggml");
	TCase *known = tcase_create("known graph");
	TCase *model = tcase_create("transformer");
	TCase *api = tcase_create("api");

	tcase_add_checked_fixture(known, known_setup, known_teardown);
	tcase_add_test(known, test_known_graph_pairs);
	tcase_add_test(known, test_views_yield_none);
	tcase_add_test(known, test_views_traced_when_asked);
	tcase_add_test(known, test_two_runs_told_apart);
	tcase_add_test(known, test_user_data_null_names_buffer_type);
	tcase_add_test(known, test_names_again_each_session);
	tcase_add_test(known, test_backend_graph_compute);
	tcase_add_test(known, test_not_tracing_answers_like_the_chain);
	tcase_add_test(known, test_op_timing_off_splits_nothing);
	tcase_add_test(model, test_transformer_every_node);
	tcase_add_test(model, test_results_unchanged);
	tcase_add_test(model, test_chain_sees_every_call);
	tcase_add_test(model, test_chain_stop_passes_through);
	tcase_add_test(model, test_untrace_restores_chain);
	tcase_add_test(model, test_threads_each_with_a_scheduler);
	tcase_set_timeout(model, 120);
	tcase_add_test(api, test_op_type_and_flops);
	tcase_add_test(api, test_errors);
	suite_add_tcase(s, known);
	suite_add_tcase(s, model);
	suite_add_tcase(s, api);
	return s;
}

int main(void)
{
	/* GGML looks for its CPU backend beside the executable only */
	ggml_backend_load_all_from_path(GGMLVIZ_GGML_LIBDIR);
	return run_suite(make_suite());
}
