/*
 * The llama.cpp adapter on real libllama, with a tiny llama model written
 * at test time (examples/tiny-llama.c) and 2 CPU threads: steps and their
 * tokens, every computing node timed once without splitting the graph,
 * layers, the application's callbacks, identical results, memory, and bad
 * input.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggml-backend.h>
#include <llama.h>
#define GGMLVIZ_LLAMA_IMPLEMENTATION /* this file holds the adapters' state */
#include <ggmlviz/llama.h>

#include "check-compat.h"
#include "ggml-util.h"
#include "trace-util.h"
#include "../examples/tiny-llama.h"

#ifndef GGMLVIZ_GGML_LIBDIR
#error "build with -DGGMLVIZ_GGML_LIBDIR=\"...\" (Makefile.am does)"
#endif

#define N_LAYER 3
#define PROMPT 6
#define GENERATED 4
#define MAX_CALLS 65536

static char model_path[256];
static struct llama_model *model;

/* One model for the whole run (each test forks from here). */
static void load_model(void)
{
	struct tiny_llama_params p;
	struct llama_model_params mp = llama_model_default_params();

	tiny_llama_params_init(&p);
	p.n_layer = N_LAYER;
	p.n_embd = 128;
	p.n_ff = 256;
	p.n_vocab = 320;
	tu_path(model_path, sizeof model_path, "tiny-llama");
	if (tiny_llama_write(model_path, &p) < 0)
		exit(99);
	model = llama_model_load_from_file(model_path, mp);
	if (!model) {
		fprintf(stderr, "test-llama: libllama cannot load %s\n", model_path);
		exit(99);
	}
}

/* ---- what the application sees of its own callbacks ---------------------- */

struct app {
	char seen[MAX_CALLS]; /* 'A' an ask, 'O' a hand-over, 'T' a tick, '|' a step */
	size_t n;
	size_t computing_asked; /* asks about nodes GGML's CPU backend computes */
	int wants;              /* answer asks "wanted" every so many (0: never) */
	int abort_after;        /* answer a tick "abort" after so many (0: never) */
	int ticks;
};

static void app_log(struct app *a, char c)
{
	if (a->n + 1 < sizeof a->seen)
		a->seen[a->n++] = c;
}

static bool app_eval(struct ggml_tensor *t, bool ask, void *data)
{
	struct app *a = data;

	app_log(a, ask ? 'A' : 'O');
	if (ask && t->op != GGML_OP_NONE && t->op != GGML_OP_VIEW && t->op != GGML_OP_RESHAPE &&
	    t->op != GGML_OP_PERMUTE && t->op != GGML_OP_TRANSPOSE &&
	    (t->flags & GGML_TENSOR_FLAG_COMPUTE))
		a->computing_asked++;
	if (!ask)
		return true; /* handed over: let the graph go on */
	return a->wants && a->n % (size_t)a->wants == 0;
}

static bool app_abort(void *data)
{
	struct app *a = data;

	app_log(a, 'T');
	return a->abort_after && ++a->ticks >= a->abort_after;
}

/* ---- a run: a context, a prompt, tokens generated greedily --------------- */

struct run {
	llama_token tokens[PROMPT + GENERATED];
	float logits[GENERATED + 1][512];
	int32_t rc;
	int n_vocab;
};

/*
 * Decodes a prompt of PROMPT tokens, then GENERATED tokens one at a time,
 * through ggmlviz_llama_decode() when traced (the context's params made by
 * ggmlviz_llama_context_params()), else through llama_decode(); the
 * application's callbacks set in the params when app is not NULL.
 */
static void run_model(struct run *r, int traced, struct app *a)
{
	struct llama_context_params cp = llama_context_default_params();
	struct llama_context *ctx;
	int32_t (*decode)(struct llama_context *, struct llama_batch) =
		traced ? ggmlviz_llama_decode : llama_decode;

	cp.n_ctx = cp.n_batch = 64;
	cp.n_threads = cp.n_threads_batch = GU_THREADS;
	cp.no_perf = true;
	if (a) {
		cp.cb_eval = app_eval, cp.cb_eval_user_data = a;
		cp.abort_callback = app_abort, cp.abort_callback_data = a;
	}
	if (traced)
		ck_assert_int_eq(ggmlviz_llama_context_params(&cp), 0);
	ctx = llama_init_from_model(model, cp);
	ck_assert_ptr_nonnull(ctx);
	r->n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
	ck_assert_int_le(r->n_vocab, 512);
	for (int i = 0; i < PROMPT; i++)
		r->tokens[i] = 3 + (llama_token)(i * 37 % 250); /* bytes and words */
	r->rc = decode(ctx, llama_batch_get_one(r->tokens, PROMPT));
	for (int i = 0; i <= GENERATED && r->rc == 0; i++) {
		memcpy(r->logits[i], llama_get_logits_ith(ctx, -1), (size_t)r->n_vocab * sizeof(float));
		if (a)
			app_log(a, '|');
		if (i == GENERATED)
			break;
		r->tokens[PROMPT + i] = gu_argmax(r->logits[i], r->n_vocab);
		r->rc = decode(ctx, llama_batch_get_one(&r->tokens[PROMPT + i], 1));
	}
	llama_free(ctx);
}

static void traced_run(struct run *r, struct app *a, int op_timing, int memory,
		       struct gu_trace *tr)
{
	struct ggmlviz_config cfg;
	char path[256];

	tu_path(path, sizeof path, "llama");
	tu_config(&cfg, path);
	cfg.op_timing = op_timing;
	cfg.memory_tracking = memory;
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	run_model(r, 1, a);
	gu_stop_and_read(path, tr);
}

/* ---- the tests ------------------------------------------------------------ */

START_TEST(test_steps_and_tokens)
{
	struct gu_trace tr;
	struct run r;

	traced_run(&r, NULL, GGMLVIZ_OP_TIMING_AUTO, 0, &tr);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_uint_eq(tr.n_steps, 1 + GENERATED);
	ck_assert_uint_eq(tr.steps[0].n_tokens, PROMPT);
	ck_assert_uint_eq(tr.steps[0].phase, GGMLVIZ_PHASE_PROMPT);
	for (size_t i = 1; i < tr.n_steps; i++) {
		ck_assert_uint_eq(tr.steps[i].n_tokens, 1);
		ck_assert_uint_eq(tr.steps[i].phase, GGMLVIZ_PHASE_GENERATION);
	}
	for (size_t i = 0; i < tr.n_steps; i++) {
		ck_assert_uint_eq(tr.steps[i].step_seq, i + 1);
		ck_assert_int_eq(tr.steps[i].status, 0);
		ck_assert(gu_label_is(&tr.steps[i], "decode"));
		/* one sequence, 0, whose context holds every token decoded before */
		ck_assert_uint_eq(tr.steps[i].n_seqs, 1);
		ck_assert_int_eq(tr.steps[i].seq_id, 0);
		ck_assert_uint_eq(tr.steps[i].context_tokens, i ? PROMPT + i - 1 : 0);
		ck_assert_uint_eq(tr.steps[i].context_cells, i ? PROMPT + i - 1 : 0);
	}
	/* every op inside its step, on its thread */
	ck_assert_uint_gt(tr.n_ops, 0);
	for (size_t i = 0; i < tr.n_ops; i++) {
		const struct ggmlviz_timing *op = &tr.ops[i], *st = &tr.steps[op->step_seq - 1];
		ck_assert_uint_ge(op->step_seq, 1);
		ck_assert_uint_ge(op->begin_ns, st->begin_ns);
		ck_assert_uint_le(op->end_ns, st->end_ns);
		ck_assert_uint_eq(op->thread_id, st->thread_id);
		ck_assert_uint_eq(op->n_tokens, st->n_tokens);
		ck_assert_int_eq(op->method, GGMLVIZ_OP_METHOD_TICK);
	}
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	gu_free(&tr);
}
END_TEST

/*
 * Two sequences in one batch, as llama-server decodes its requests: each
 * step says how many sequences it holds, the context of the longest, and
 * the cells of both.
 */
START_TEST(test_sequences)
{
	struct llama_context_params cp = llama_context_default_params();
	struct ggmlviz_config cfg;
	struct llama_context *ctx;
	struct llama_batch b = llama_batch_init(8, 0, 1);
	struct gu_trace tr;
	char path[256];
	static const int32_t seq[5] = { 0, 0, 0, 1, 1 }, pos[5] = { 0, 1, 2, 0, 1 };

	cp.n_ctx = cp.n_batch = 64;
	cp.n_seq_max = 2;
	cp.n_threads = cp.n_threads_batch = GU_THREADS;
	ck_assert_int_eq(ggmlviz_llama_context_params(&cp), 0);
	ck_assert_ptr_nonnull(ctx = llama_init_from_model(model, cp));
	tu_path(path, sizeof path, "seqs");
	tu_config(&cfg, path);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	b.n_tokens = 5; /* prompts: 3 tokens of sequence 0, 2 of sequence 1 */
	for (int i = 0; i < 5; i++) {
		b.token[i] = 3 + i, b.pos[i] = pos[i], b.n_seq_id[i] = 1, b.seq_id[i][0] = seq[i];
		b.logits[i] = i == 2 || i == 4;
	}
	ck_assert_int_eq(ggmlviz_llama_decode(ctx, b), 0);
	b.n_tokens = 2; /* one generated token each */
	for (int i = 0; i < 2; i++)
		b.token[i] = 9, b.pos[i] = i ? 2 : 3, b.seq_id[i][0] = i, b.logits[i] = 1;
	ck_assert_int_eq(ggmlviz_llama_decode(ctx, b), 0);
	gu_stop_and_read(path, &tr);
	llama_batch_free(b);
	llama_free(ctx);
	ck_assert_uint_eq(tr.n_steps, 2);
	ck_assert_uint_eq(tr.steps[0].n_seqs, 2);
	ck_assert_uint_eq(tr.steps[0].context_tokens, 0);
	ck_assert_uint_eq(tr.steps[0].context_cells, 0);
	ck_assert_uint_eq(tr.steps[1].n_seqs, 2);
	ck_assert_uint_eq(tr.steps[1].context_tokens, 3); /* sequence 0's */
	ck_assert_uint_eq(tr.steps[1].context_cells, 5);  /* both sequences' */
	gu_free(&tr);
}
END_TEST

START_TEST(test_results_identical)
{
	static struct run plain, traced, synced;
	struct gu_trace tr;

	run_model(&plain, 0, NULL);
	traced_run(&traced, NULL, GGMLVIZ_OP_TIMING_AUTO, 1, &tr);
	gu_free(&tr);
	traced_run(&synced, NULL, GGMLVIZ_OP_TIMING_SYNC, 0, &tr);
	gu_free(&tr);
	ck_assert_int_eq(plain.rc, 0);
	ck_assert_int_eq(memcmp(plain.tokens, traced.tokens, sizeof plain.tokens), 0);
	ck_assert_int_eq(memcmp(plain.logits, traced.logits, sizeof plain.logits), 0);
	ck_assert_int_eq(memcmp(plain.tokens, synced.tokens, sizeof plain.tokens), 0);
	ck_assert_int_eq(memcmp(plain.logits, synced.logits, sizeof plain.logits), 0);
}
END_TEST

START_TEST(test_every_node_timed_once)
{
	static struct app a;
	struct gu_trace tr;
	struct run r;
	size_t fused = 0;

	traced_run(&r, &a, GGMLVIZ_OP_TIMING_AUTO, 0, &tr);
	for (size_t i = 0; i < tr.n_ops; i++)
		fused += (tr.ops[i].node_flags & GGMLVIZ_NODE_FUSED) != 0;
	/* each computing node asked about is one op, or half of a fused pair */
	ck_assert_uint_eq(tr.n_ops + fused, a.computing_asked);
	ck_assert_uint_eq(fused, (2 * N_LAYER + 1) * (1 + GENERATED)); /* the norms */
	for (size_t i = 0; i < tr.n_splits; i++) {
		ck_assert_uint_eq(tr.splits[i].ticks, tr.splits[i].ticks_expected);
		ck_assert_uint_gt(tr.splits[i].n_timed, 0);
	}
	gu_free(&tr);
}
END_TEST

START_TEST(test_graph_not_split_per_node)
{
	static struct app a;
	struct gu_trace tr;
	struct run r;
	const char *p;

	traced_run(&r, &a, GGMLVIZ_OP_TIMING_AUTO, 0, &tr);
	a.seen[a.n] = '\0';
	/* in each step: the scheduler asks about every node, then the backend
	 * computes them in one go (ticks); answering "wanted" per node would
	 * interleave them, and so would the hand-overs it brings */
	ck_assert_ptr_null(strchr(a.seen, 'O'));
	for (p = a.seen; *p; p++)
		if (p[0] == 'T' && p[1] == 'A')
			ck_abort_msg("an ask after a tick inside a step: %.40s", p);
	ck_assert_uint_eq(tr.n_splits, 1 + GENERATED); /* one CPU split per step */
	gu_free(&tr);
}
END_TEST

START_TEST(test_chained_callbacks_see_every_call)
{
	static struct app plain, chained;
	struct gu_trace tr;
	struct run r1, r2;

	plain.wants = chained.wants = 7; /* the application wants some nodes */
	run_model(&r1, 0, &plain);
	traced_run(&r2, &chained, GGMLVIZ_OP_TIMING_AUTO, 0, &tr);
	plain.seen[plain.n] = chained.seen[chained.n] = '\0';
	ck_assert_uint_gt(plain.n, 100);
	ck_assert_str_eq(chained.seen, plain.seen);
	/* (logits are compared in test_results_identical: with the graph split at
	 * the nodes the application wants, GGML itself does not give the same
	 * last bits from one context to the next) */
	ck_assert_int_eq(memcmp(r1.tokens, r2.tokens, sizeof r1.tokens), 0);
	/* the nodes it wants split the graph: still timed, each in its own run */
	ck_assert_uint_gt(tr.n_ops, 0);
	for (size_t i = 0; i < tr.n_splits; i++)
		ck_assert_uint_eq(tr.splits[i].ticks, tr.splits[i].ticks_expected);
	gu_free(&tr);
}
END_TEST

START_TEST(test_application_abort_still_aborts)
{
	static struct app a;
	struct ggmlviz_stats st;
	struct gu_trace tr;
	struct run r;

	a.abort_after = 5; /* in the prompt's graph */
	traced_run(&r, &a, GGMLVIZ_OP_TIMING_AUTO, 0, &tr);
	ck_assert_int_eq(r.rc, 2); /* llama_decode(): aborted */
	ck_assert_uint_eq(tr.n_steps, 1);
	ck_assert_int_eq(tr.steps[0].status, 2);
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.timing_mismatches, 1); /* never guessed through */
	ck_assert_uint_eq(tr.n_ops, 0);
	gu_free(&tr);
}
END_TEST

START_TEST(test_layers)
{
	struct gu_trace tr;
	struct run r;
	size_t none[1 + GENERATED] = { 0 }, in_layer[N_LAYER] = { 0 };
	int attention = 0, kv_writes = 0;

	traced_run(&r, NULL, GGMLVIZ_OP_TIMING_AUTO, 0, &tr);
	for (size_t i = 0; i < tr.n_ops; i++) {
		const struct ggmlviz_timing *op = &tr.ops[i];
		const char *name = ggmlviz_reader_op_name(tr.r, op->op_type);

		if (op->layer < 0) {
			none[op->step_seq - 1]++;
			continue;
		}
		ck_assert_int_lt(op->layer, N_LAYER);
		in_layer[op->layer]++;
		attention += name && !strcmp(name, "FLASH_ATTN_EXT");
		kv_writes += name && !strcmp(name, "SET_ROWS");
	}
	/* only the embedding lookup, the output norm and the output stay out */
	for (size_t s = 0; s < 1 + GENERATED; s++)
		ck_assert_uint_le(none[s], 4);
	for (int l = 1; l < N_LAYER - 1; l++)
		ck_assert_uint_eq(in_layer[l], in_layer[0]);
	/* the last layer also picks the rows that give logits (two GET_ROWS GGML
	 * names itself) when not every token gives one */
	ck_assert_uint_ge(in_layer[N_LAYER - 1], in_layer[0]);
	ck_assert_uint_le(in_layer[N_LAYER - 1], in_layer[0] + 2 * (1 + GENERATED));
	/* the unnamed attention and the KV cache writes are in their layers */
	ck_assert_int_eq(attention, N_LAYER * (1 + GENERATED));
	ck_assert_int_eq(kv_writes, 2 * N_LAYER * (1 + GENERATED));
	gu_free(&tr);
}
END_TEST

/* The TENSOR_ALLOC records whose label starts with what. */
struct allocs {
	const char *what;
	int n;
	uint64_t bytes;
};

static int count_alloc(const struct ggmlviz_event *ev, void *arg)
{
	struct allocs *a = arg;
	size_t len = strlen(a->what);

	if (ev->type == GGMLVIZ_EVENT_TENSOR_ALLOC && ev->label_len >= len &&
	    !memcmp(ev->label, a->what, len))
		a->n++, a->bytes += ev->data.memory.size;
	return 0;
}

START_TEST(test_memory)
{
	struct allocs weights = { "weights ", 0, 0 }, kv = { "kv_cache ", 0, 0 },
		      compute = { "compute ", 0, 0 };
	struct ggmlviz_config cfg;
	char path[256];
	struct run r;

	tu_path(path, sizeof path, "llama-mem");
	tu_config(&cfg, path);
	cfg.memory_tracking = 1;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	run_model(&r, 1, NULL);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each(path, count_alloc, &weights), 0);
	ck_assert_int_eq(tu_each(path, count_alloc, &kv), 0);
	ck_assert_int_eq(tu_each(path, count_alloc, &compute), 0);
	unlink(path);
	/* the model's weights, once, all of them */
	ck_assert_int_eq(weights.n, 1);
	ck_assert_uint_ge(weights.bytes, llama_model_size(model));
	/* the KV cache: 64 cells x 3 layers x (K + V) x 64 values (2 heads of 32) x f16 */
	ck_assert_int_ge(kv.n, 1);
	ck_assert_uint_ge(kv.bytes, 64u * N_LAYER * 2 * 64 * 2);
	ck_assert_int_ge(compute.n, 1);
	ck_assert_uint_gt(compute.bytes, 0);
}
END_TEST

START_TEST(test_bad_input)
{
	struct llama_context_params cp = llama_context_default_params();
	struct llama_model_params mp = llama_model_default_params();
	struct llama_batch empty = llama_batch_get_one(NULL, 0);
	struct llama_context *ctx;
	llama_token tok = 5;
	struct gu_trace tr;
	char path[256];

	ck_assert_int_eq(ggmlviz_llama_context_params(NULL), -EINVAL);
	ck_assert_int_eq(ggmlviz_llama_context_params(&cp), 0);
	ck_assert_int_eq(ggmlviz_llama_context_params(&cp), 0); /* twice: nothing more */
	ck_assert_ptr_null(cp.cb_eval_user_data);
	cp.n_ctx = cp.n_batch = 32;
	cp.n_threads = cp.n_threads_batch = 1;
	ctx = llama_init_from_model(model, cp);
	ck_assert_ptr_nonnull(ctx);
	/* not tracing: it only decodes */
	ck_assert_int_eq(ggmlviz_llama_decode(ctx, llama_batch_get_one(&tok, 1)), 0);
	gu_start(path, GGMLVIZ_OP_TIMING_AUTO);
	ck_assert_int_eq(ggmlviz_llama_decode(NULL, llama_batch_get_one(&tok, 1)), -EINVAL);
	ck_assert_int_eq(ggmlviz_llama_decode(ctx, empty), -EINVAL);
	ck_assert_int_eq(ggmlviz_llama_encode(NULL, empty), -EINVAL);
	gu_stop_and_read(path, &tr);
	ck_assert_uint_eq(tr.n_steps + tr.n_ops + tr.n_splits, 0); /* nothing recorded */
	gu_free(&tr);
	llama_free(ctx);
	/* a model that fails to load: no model, no crash */
	ck_assert_ptr_null(llama_model_load_from_file("/nonexistent/model.gguf", mp));
}
END_TEST

START_TEST(test_sync_mode)
{
	struct gu_trace tr;
	struct run r;

	traced_run(&r, NULL, GGMLVIZ_OP_TIMING_SYNC, 0, &tr);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_uint_gt(tr.n_ops, 0);
	for (size_t i = 0; i < tr.n_ops; i++)
		ck_assert_int_eq(tr.ops[i].method, GGMLVIZ_OP_METHOD_SYNC);
	ck_assert_uint_eq(tr.n_steps, 1 + GENERATED);
	gu_free(&tr);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("llama");
	TCase *c = tcase_create("libllama");

	tcase_add_test(c, test_steps_and_tokens);
	tcase_add_test(c, test_sequences);
	tcase_add_test(c, test_results_identical);
	tcase_add_test(c, test_every_node_timed_once);
	tcase_add_test(c, test_graph_not_split_per_node);
	tcase_add_test(c, test_chained_callbacks_see_every_call);
	tcase_add_test(c, test_application_abort_still_aborts);
	tcase_add_test(c, test_layers);
	tcase_add_test(c, test_memory);
	tcase_add_test(c, test_bad_input);
	tcase_add_test(c, test_sync_mode);
	tcase_set_timeout(c, 120);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	int rc;

	llama_log_set(gu_silent_log, NULL);
	ggml_backend_load_all_from_path(GGMLVIZ_GGML_LIBDIR); /* before loading a model */
	llama_backend_init();
	load_model();
	rc = run_suite(make_suite());
	llama_model_free(model);
	unlink(model_path);
	return rc;
}
