/*
 * The llama.cpp adapter on a real GGML GPU backend: GGML's Vulkan backend
 * of the same release (scripts/fetch-ggml.sh puts libggml-vulkan.so beside
 * the CPU backends) on Mesa's software Vulkan device, with every layer on
 * Vulkan0 and with some layers on the CPU:
 *   - tokens and logits identical traced and untraced (sync mode: the same
 *     tokens, logits within 1e-5);
 *   - each step holds its Vulkan runs and its CPU runs;
 *   - on the CPU runs every computing node is timed by ticks, the Vulkan
 *     runs as wholes (nothing synchronized per node);
 *   - with GGML_VIZ_OP_TIMING=sync, and with op sampling, every computing
 *     node of the timed steps is timed on Vulkan0 (or the CPU).
 * Skips (TAP "1..0 # SKIP") where the Vulkan backend or a Vulkan device is
 * missing; CI has both (scripts/install-deps.sh installs Mesa's driver).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

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
#define GENERATED 3
#define ALL_LAYERS 99   /* every layer, and the output, on Vulkan0 */
#define SOME_LAYERS 2   /* the first layer on the CPU, the others on Vulkan0 */

static char model_path[256];

/* ---- what the application sees: each computing node, and where it computes ---- */

struct app {
	size_t computing[1 + GENERATED][2]; /* per step: nodes on the CPU [0], on the GPU [1] */
	int step;
};

/* The node computes something (what the adapter times in sync mode). */
static bool computes(const struct ggml_tensor *t)
{
	return t->op != GGML_OP_NONE && t->op != GGML_OP_VIEW && t->op != GGML_OP_RESHAPE &&
	       t->op != GGML_OP_PERMUTE && t->op != GGML_OP_TRANSPOSE && !ggml_is_empty(t);
}

/* The node's output is in host memory: the CPU backend computes it. */
static bool on_host(const struct ggml_tensor *t)
{
	const struct ggml_tensor *data = t->view_src ? t->view_src : t;

	return !data->buffer || ggml_backend_buft_is_host(ggml_backend_buffer_get_type(data->buffer));
}

static bool app_eval(struct ggml_tensor *t, bool ask, void *data)
{
	struct app *a = data;

	if (ask && computes(t) && a->step <= GENERATED)
		a->computing[a->step][on_host(t) ? 0 : 1]++;
	return !ask; /* never wanted: the graph stays whole unless the adapter asks */
}

/* ---- a run: a context on the model, a prompt, tokens generated greedily ---- */

struct run {
	llama_token tokens[PROMPT + GENERATED];
	float logits[GENERATED + 1][512];
	int32_t rc;
};

static void decode_all(struct llama_context *ctx, struct run *r, int traced, struct app *a)
{
	int32_t (*decode)(struct llama_context *, struct llama_batch) =
		traced ? ggmlviz_llama_decode : llama_decode;
	int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx)));

	ck_assert_int_le(n_vocab, 512);
	for (int i = 0; i < PROMPT; i++)
		r->tokens[i] = 3 + (llama_token)(i * 37 % 250);
	r->rc = decode(ctx, llama_batch_get_one(r->tokens, PROMPT));
	for (int i = 0; i <= GENERATED && r->rc == 0; i++) {
		memcpy(r->logits[i], llama_get_logits_ith(ctx, -1), (size_t)n_vocab * sizeof(float));
		if (a)
			a->step++;
		if (i == GENERATED)
			break;
		r->tokens[PROMPT + i] = gu_argmax(r->logits[i], n_vocab);
		r->rc = decode(ctx, llama_batch_get_one(&r->tokens[PROMPT + i], 1));
	}
}

/* The model with gpu_layers layers on Vulkan0, a context, a run; NULL app: untraced. */
static void run_model(struct run *r, int gpu_layers, int traced, struct app *a)
{
	struct llama_model_params mp = llama_model_default_params();
	struct llama_context_params cp = llama_context_default_params();
	struct llama_model *model;
	struct llama_context *ctx;

	mp.n_gpu_layers = gpu_layers;
	model = llama_model_load_from_file(model_path, mp);
	ck_assert_ptr_nonnull(model);
	cp.n_ctx = cp.n_batch = 64;
	cp.n_threads = cp.n_threads_batch = GU_THREADS;
	cp.no_perf = true;
	if (a)
		cp.cb_eval = app_eval, cp.cb_eval_user_data = a;
	if (traced)
		ck_assert_int_eq(ggmlviz_llama_context_params(&cp), 0);
	ctx = llama_init_from_model(model, cp);
	ck_assert_ptr_nonnull(ctx);
	decode_all(ctx, r, traced, a);
	llama_free(ctx);
	llama_model_free(model);
	ck_assert_int_eq(r->rc, 0);
}

static void traced_run(struct run *r, int gpu_layers, int op_timing, uint32_t sample,
		       struct app *a, struct gu_trace *tr)
{
	struct ggmlviz_config cfg;
	char path[256];

	tu_path(path, sizeof path, "vulkan");
	tu_config(&cfg, path);
	cfg.op_timing = op_timing;
	cfg.op_sample = sample;
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	run_model(r, gpu_layers, 1, a);
	gu_stop_and_read(path, tr);
}

/* Whether the timing's backend is the Vulkan device (by its name in the trace). */
static bool on_vulkan(const struct gu_trace *tr, const struct ggmlviz_timing *t)
{
	const char *name = ggmlviz_reader_backend_name(tr->r, t->backend_ptr);

	return name && strncmp(name, "Vulkan", 6) == 0;
}

static bool on_cpu(const struct gu_trace *tr, const struct ggmlviz_timing *t)
{
	const char *name = ggmlviz_reader_backend_name(tr->r, t->backend_ptr);

	return name && strcmp(name, "CPU") == 0;
}

/* ---- the tests ------------------------------------------------------------ */

static const int offloads[] = { ALL_LAYERS, SOME_LAYERS };

/* The largest difference between two runs' logits. */
static double max_difference(const struct run *a, const struct run *b)
{
	double most = 0;

	for (int i = 0; i <= GENERATED; i++)
		for (int k = 0; k < 512; k++) {
			double d = (double)a->logits[i][k] - (double)b->logits[i][k];
			most = d > most ? d : -d > most ? -d : most;
		}
	return most;
}

/*
 * Timing every op by the backends' ticks leaves the run as it was: tokens
 * and logits identical, bit for bit. Sync mode computes each node as a
 * graph of its own: the same tokens, and logits that may differ in their
 * last bits (seen here with part of the model on the CPU: 261 of 320
 * logits by up to 2.7e-7), one more reason it is not the default.
 */
START_TEST(test_results_identical)
{
	static struct run plain, traced, synced;
	struct gu_trace tr;
	int layers = offloads[_i];

	memset(&plain, 0, sizeof plain);
	memset(&traced, 0, sizeof traced);
	memset(&synced, 0, sizeof synced);
	run_model(&plain, layers, 0, NULL);
	traced_run(&traced, layers, GGMLVIZ_OP_TIMING_AUTO, 1, NULL, &tr);
	gu_free(&tr);
	traced_run(&synced, layers, GGMLVIZ_OP_TIMING_SYNC, 1, NULL, &tr);
	gu_free(&tr);
	ck_assert_int_eq(memcmp(plain.tokens, traced.tokens, sizeof plain.tokens), 0);
	ck_assert_int_eq(memcmp(plain.logits, traced.logits, sizeof plain.logits), 0);
	ck_assert_int_eq(memcmp(plain.tokens, synced.tokens, sizeof plain.tokens), 0);
	ck_assert_msg(max_difference(&plain, &synced) < 1e-5, "sync: logits differ by %g",
		      max_difference(&plain, &synced));
}
END_TEST

/* Each step's runs: Vulkan runs as wholes, CPU runs with every node timed by ticks. */
START_TEST(test_runs_per_backend)
{
	struct gu_trace tr;
	struct run r;
	int layers = offloads[_i];

	traced_run(&r, layers, GGMLVIZ_OP_TIMING_AUTO, 1, NULL, &tr);
	ck_assert_uint_eq(tr.n_steps, 1 + GENERATED);
	for (size_t s = 1; s <= tr.n_steps; s++) {
		size_t vulkan = 0, cpu = 0;

		for (size_t i = 0; i < tr.n_splits; i++) {
			const struct ggmlviz_timing *sp = &tr.splits[i];

			if (sp->step_seq != s)
				continue;
			ck_assert_msg(on_vulkan(&tr, sp) || on_cpu(&tr, sp), "a run of backend %s",
				      ggmlviz_reader_backend_name(tr.r, sp->backend_ptr));
			if (on_vulkan(&tr, sp)) {
				vulkan++;
				ck_assert_uint_eq(sp->n_timed, 0); /* nothing synchronized per node */
				ck_assert_uint_eq(sp->ticks, 0);
			} else {
				cpu++;
				ck_assert_uint_eq(sp->ticks, sp->ticks_expected);
				ck_assert_uint_eq(sp->n_timed + 0u, sp->ticks_expected);
			}
		}
		ck_assert_msg(vulkan > 0 && cpu > 0, "step %zu: %zu Vulkan runs, %zu CPU runs", s,
			      vulkan, cpu);
	}
	for (size_t i = 0; i < tr.n_ops; i++) {
		ck_assert(on_cpu(&tr, &tr.ops[i]));
		ck_assert_int_eq(tr.ops[i].method, GGMLVIZ_OP_METHOD_TICK);
	}
	ck_assert_uint_gt(tr.n_ops, 0);
	gu_free(&tr);
}
END_TEST

/* Op timings of step s (1-based) on the GPU [1] and the CPU [0]. */
static void ops_of_step(const struct gu_trace *tr, size_t s, size_t n[2])
{
	n[0] = n[1] = 0;
	for (size_t i = 0; i < tr->n_ops; i++)
		if (tr->ops[i].step_seq == s)
			n[on_vulkan(tr, &tr->ops[i]) ? 1 : 0]++;
}

/* sync, and sync with 1 step in 2 sampled: every computing node of a timed step, once. */
START_TEST(test_sync_times_every_gpu_node)
{
	static struct app a;
	struct gu_trace tr;
	struct run r;
	uint32_t sample = _i == 0 ? 1 : 2;

	memset(&a, 0, sizeof a);
	traced_run(&r, ALL_LAYERS, GGMLVIZ_OP_TIMING_SYNC, sample, &a, &tr);
	ck_assert_uint_eq(tr.n_steps, 1 + GENERATED);
	for (size_t s = 1; s <= tr.n_steps; s++) {
		size_t n[2];
		bool timed = (s - 1) % sample == 0;

		ops_of_step(&tr, s, n);
		ck_assert_uint_gt(a.computing[s - 1][1], 0);
		ck_assert_msg(n[1] == (timed ? a.computing[s - 1][1] : 0),
			      "step %zu: %zu ops on Vulkan0 for %zu computing nodes", s, n[1],
			      a.computing[s - 1][1]);
		ck_assert_uint_eq(n[0], timed ? a.computing[s - 1][0] : 0);
	}
	for (size_t i = 0; i < tr.n_ops; i++)
		ck_assert_int_eq(tr.ops[i].method, GGMLVIZ_OP_METHOD_SYNC);
	gu_free(&tr);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("llama.cpp on GGML's Vulkan backend");
	TCase *c = tcase_create("vulkan");

	tcase_set_timeout(c, 600);
	tcase_add_loop_test(c, test_results_identical, 0, 2);
	tcase_add_loop_test(c, test_runs_per_backend, 0, 2);
	tcase_add_loop_test(c, test_sync_times_every_gpu_node, 0, 2);
	suite_add_tcase(s, c);
	return s;
}

/* Whether GGML found a Vulkan device; else why not, in why. */
static bool vulkan_here(char *why, size_t size)
{
	char lib[512];

	snprintf(lib, sizeof lib, "%s/libggml-vulkan.so", GGMLVIZ_GGML_LIBDIR);
	if (access(lib, R_OK) != 0) {
		snprintf(why, size, "no %s (scripts/fetch-ggml.sh fetches it)", lib);
		return false;
	}
	for (size_t i = 0; i < ggml_backend_dev_count(); i++)
		if (strncmp(ggml_backend_dev_name(ggml_backend_dev_get(i)), "Vulkan", 6) == 0)
			return true;
	snprintf(why, size, "GGML's Vulkan backend found no device (Mesa's driver: "
		 "apt-get install mesa-vulkan-drivers libvulkan1)");
	return false;
}

int main(void)
{
	struct tiny_llama_params p;
	char why[600];
	int rc;

	setenv("GGML_VK_VISIBLE_DEVICES", "0", 0); /* GGML skips CPU-type devices otherwise */
	llama_log_set(gu_silent_log, NULL);
	ggml_backend_load_all_from_path(GGMLVIZ_GGML_LIBDIR);
	if (!vulkan_here(why, sizeof why)) {
		printf("1..0 # SKIP %s\n", why);
		return 0;
	}
	llama_backend_init();
	tiny_llama_params_init(&p);
	p.n_layer = N_LAYER;
	p.n_embd = 128;
	p.n_ff = 256;
	p.n_vocab = 320;
	tu_path(model_path, sizeof model_path, "tiny-llama-vk");
	if (tiny_llama_write(model_path, &p) < 0)
		return 99;
	rc = run_suite(make_suite());
	unlink(model_path);
	return rc;
}
