/*
 * bench_llama: what tracing costs a real llama.cpp run, in tokens per
 * second, at 1 and 2 CPU threads and every core.
 *
 * A llama model is written with GGML's gguf API (examples/tiny-llama.c;
 * 8 layers, 512 wide by default), loaded with libllama, and decoded in
 * rounds: a prompt, then tokens generated one at a time, on contexts of
 * the same parameters:
 *   untraced  plain params, llama_decode();
 *   steps     params made by ggmlviz_llama_context_params(), tracing with
 *             op timing off: each llama_decode() recorded as a step only;
 *   every op  the same with op timing as by default: every node timed from
 *             GGML's CPU backend's own calls, the graph unchanged.
 * Two passes, each one tracing session (a program traces a session of
 * many steps; op timing is a session's setting) in which rounds of
 * untraced and of one traced mode alternate, the order rotating. Printed:
 * the median of the per-round ratios of generation tokens/s (and prompt
 * tokens/s) traced / untraced, with their spread (targets: steps only
 * under 1% slower, every op >= 0.98), and, from a trace of its own, the
 * share of each step that its op timings cover and whether every
 * computing node was timed.
 *
 * With --gpu-layers N, that many layers go to a GPU backend that GGML
 * loaded (CUDA, Vulkan; on Mesa's software Vulkan device with
 * GGML_VK_VISIBLE_DEVICES=0, which is set unless the environment says
 * otherwise). On CUDA with CUPTI, "every op" then records every kernel,
 * and a round's trace also gives the ops' kernel time against the GPU's
 * busy time (target: within 5%) and a table of each op's time against
 * GGML_VIZ_OP_TIMING=sync's (llama-gpu.c).
 *
 *     bench_llama [--rounds N] [--layers N] [--embd N] [--prompt N]
 *                 [--generate N] [--threads N] [--gpu-layers N]
 *
 * The GGML_VIZ_* variables set apply to its sessions (GGML_VIZ_BUFFER_SIZE
 * to compare ring sizes, say), but for the output and the op timing, which
 * each pass sets.
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
#include <ggmlviz/reader.h>

#include "bench.h"
#include "llama-gpu.h"
#include "../examples/tiny-llama.h"

#ifndef GGMLVIZ_GGML_LIBDIR
#define GGMLVIZ_GGML_LIBDIR "."
#endif

enum mode { UNTRACED, STEPS, EVERY_OP, N_MODES };

static const char *const mode_names[N_MODES] = { "untraced", "steps only", "every op" };

struct options {
	int rounds, layers, embd, prompt, generate, threads, gpu_layers;
};

struct bench {
	struct options o;
	struct llama_model *model;
	struct llama_context *ctx[N_MODES];
	double *gen[N_MODES], *pp[N_MODES]; /* tokens/s per round (untraced: of the steps pass) */
	double *gen0_every, *pp0_every;     /* the untraced rounds of the every-op pass */
	char model_path[256], trace_path[256], sync_path[256];
};

static void quiet(enum ggml_log_level level, const char *text, void *data)
{
	(void)data;
	if (level == GGML_LOG_LEVEL_ERROR)
		fputs(text, stderr);
}

static struct llama_context *new_context(struct bench *b, int traced, int threads)
{
	struct llama_context_params cp = llama_context_default_params();

	cp.n_ctx = cp.n_batch = (uint32_t)(b->o.prompt + b->o.generate + 16);
	cp.n_threads = cp.n_threads_batch = threads;
	cp.no_perf = true;
	if (traced)
		ggmlviz_llama_context_params(&cp);
	return llama_init_from_model(b->model, cp);
}

static llama_token argmax(struct llama_context *ctx, int n_vocab)
{
	const float *logits = llama_get_logits_ith(ctx, -1);
	llama_token best = 0;

	for (llama_token t = 1; t < n_vocab; t++)
		if (logits[t] > logits[best])
			best = t;
	return best;
}

/* One round on ctx: prompt then generation; tokens/s of each into pp and gen. */
static int decode_round(struct bench *b, struct llama_context *ctx, int traced, double *pp,
			double *gen)
{
	int32_t (*decode)(struct llama_context *, struct llama_batch) =
		traced ? ggmlviz_llama_decode : llama_decode;
	int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(b->model));
	llama_token tokens[4096], next;
	uint64_t t0, t1, t2;

	llama_memory_clear(llama_get_memory(ctx), true);
	for (int i = 0; i < b->o.prompt; i++)
		tokens[i] = 3 + (llama_token)((i * 37) % (n_vocab - 3));
	t0 = bench_now_ns();
	if (decode(ctx, llama_batch_get_one(tokens, b->o.prompt)) != 0)
		return -1;
	llama_synchronize(ctx); /* a GPU's decode returns before its work is done */
	t1 = bench_now_ns();
	for (int i = 0; i < b->o.generate; i++) {
		next = argmax(ctx, n_vocab);
		if (decode(ctx, llama_batch_get_one(&next, 1)) != 0)
			return -1;
	}
	llama_synchronize(ctx);
	t2 = bench_now_ns();
	*pp = b->o.prompt * 1e9 / (double)(t1 - t0);
	*gen = b->o.generate * 1e9 / (double)(t2 - t1);
	return 0;
}

static int start_tracing_to(const char *path, int op_timing)
{
	struct ggmlviz_config cfg;

	ggmlviz_config_init(&cfg);
	/* GGML_VIZ_BUFFER_SIZE and the like, to compare; a value refused is said, and its default kept */
	(void)ggmlviz_config_from_env(&cfg);
	cfg.output = path;
	cfg.op_timing = op_timing;
	return ggmlviz_start(&cfg);
}

static int start_tracing(struct bench *b, int op_timing)
{
	return start_tracing_to(b->trace_path, op_timing);
}

/* One pass: in one session, rounds of untraced and traced (mode) alternating. */
static int run_pass(struct bench *b, enum mode traced, int rounds, double *pp0, double *gen0)
{
	int rc = start_tracing(b, traced == STEPS ? GGMLVIZ_OP_TIMING_OFF : GGMLVIZ_OP_TIMING_AUTO);

	for (int r = 0; r < rounds && rc == 0; r++)
		for (int k = 0; k < 2 && rc == 0; k++) {
			enum mode m = (r + k) % 2 ? traced : UNTRACED;
			rc = decode_round(b, b->ctx[m], m != UNTRACED, m == UNTRACED ? &pp0[r]
						 : &b->pp[m][r], m == UNTRACED ? &gen0[r] : &b->gen[m][r]);
		}
	ggmlviz_stop();
	return rc;
}

/* The two passes; the untraced rounds of each are its own baseline. */
static int run_rounds(struct bench *b, int rounds)
{
	int rc = run_pass(b, STEPS, rounds, b->pp[UNTRACED], b->gen[UNTRACED]);

	if (rc == 0)
		rc = run_pass(b, EVERY_OP, rounds, b->pp0_every, b->gen0_every);
	return rc;
}

static void print_ratio(const char *what, double *traced, double *untraced, int rounds)
{
	double v[1024];
	struct bench_spread s;

	for (int r = 0; r < rounds; r++)
		v[r] = traced[r] / untraced[r];
	s = bench_spread(v, (size_t)rounds);
	printf("    %-30s %.3f  (rounds: %.3f to %.3f)\n", what, s.median, s.min, s.max);
}

/* On a GPU: the kernels of the round just traced, and a round in sync mode against it. */
static void gpu_round(struct bench *b)
{
	double pp, gen;

	gpu_figures(b->trace_path);
	if (start_tracing_to(b->sync_path, GGMLVIZ_OP_TIMING_SYNC) < 0)
		return;
	decode_round(b, b->ctx[EVERY_OP], 1, &pp, &gen);
	ggmlviz_stop();
	gpu_sync_table(b->trace_path, b->sync_path, 12);
	unlink(b->sync_path);
}

/* From a trace of one round: the share of the steps that ops cover, and the ticks. */
static void coverage(struct bench *b, int threads)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	double shares[4096];
	uint64_t op_ns[4096] = { 0 }, ticks = 0, expected = 0, ops = 0;
	size_t n = 0;
	double pp, gen;

	if (start_tracing(b, GGMLVIZ_OP_TIMING_AUTO) < 0)
		return;
	decode_round(b, b->ctx[EVERY_OP], 1, &pp, &gen);
	ggmlviz_stop();
	if (ggmlviz_reader_open(b->trace_path, &r) < 0)
		return;
	while (ggmlviz_reader_next_timing(r, &t) == 1) {
		if (t.kind == GGMLVIZ_TIMING_OP && t.step_seq && t.step_seq < 4096)
			op_ns[t.step_seq] += t.duration_ns, ops++;
		else if (t.kind == GGMLVIZ_TIMING_SPLIT)
			ticks += t.ticks, expected += t.ticks_expected;
		else if (t.kind == GGMLVIZ_TIMING_STEP && t.step_seq < 4096 && n < 4096)
			shares[n++] = (double)op_ns[t.step_seq] / (double)t.duration_ns;
	}
	ggmlviz_reader_close(r);
	if (b->o.gpu_layers)
		gpu_round(b);
	if (!n)
		return;
	{
		struct bench_spread s = bench_spread(shares, n);
		printf("    a trace of one round (%d threads): %zu steps, %llu op timings; ops cover "
		       "%.1f%% of a step (median; %.1f%% to %.1f%%); ticks %llu of %llu expected\n",
		       threads, n, (unsigned long long)ops, 100 * s.median, 100 * s.min,
		       100 * s.max, (unsigned long long)ticks, (unsigned long long)expected);
	}
}

static int bench_threads(struct bench *b, int threads)
{
	int rc = 0;

	for (int m = 0; m < N_MODES && rc == 0; m++)
		if (!(b->ctx[m] = new_context(b, m != UNTRACED, threads)))
			rc = -1;
	if (rc == 0)
		rc = run_rounds(b, 2); /* warm up */
	if (rc == 0)
		rc = run_rounds(b, b->o.rounds);
	if (rc == 0) {
		printf("  %d thread(s): generation tokens/s (median)", threads);
		for (int m = 0; m < N_MODES; m++)
			printf("%s %s %.1f", m ? "," : "", mode_names[m],
			       bench_median(b->gen[m], (size_t)b->o.rounds));
		printf("; prompt tokens/s untraced %.1f\n",
		       bench_median(b->pp[UNTRACED], (size_t)b->o.rounds));
		printf("    tokens/s traced / untraced, median of per-round ratios:\n");
		print_ratio("generation, steps only", b->gen[STEPS], b->gen[UNTRACED], b->o.rounds);
		print_ratio("generation, every op", b->gen[EVERY_OP], b->gen0_every, b->o.rounds);
		print_ratio("prompt, steps only", b->pp[STEPS], b->pp[UNTRACED], b->o.rounds);
		print_ratio("prompt, every op", b->pp[EVERY_OP], b->pp0_every, b->o.rounds);
		coverage(b, threads);
	}
	for (int m = 0; m < N_MODES; m++) {
		llama_free(b->ctx[m]);
		b->ctx[m] = NULL;
	}
	return rc;
}

static int number(const char *opt, const char *v, int max)
{
	char *end;
	long n = v ? strtol(v, &end, 10) : 0;

	if (!v || *end || n < 1 || n > max) {
		fprintf(stderr, "bench_llama: %s wants a number from 1 to %d\n", opt, max);
		exit(2);
	}
	return (int)n;
}

static void parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ 7, 8, 512, 16, 16, 0, 0 };
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int *f = !strcmp(a, "--rounds") ? &o->rounds : !strcmp(a, "--layers") ? &o->layers
			 : !strcmp(a, "--embd") ? &o->embd : !strcmp(a, "--prompt") ? &o->prompt
			 : !strcmp(a, "--generate") ? &o->generate
			 : !strcmp(a, "--threads") ? &o->threads
			 : !strcmp(a, "--gpu-layers") ? &o->gpu_layers : NULL;
		if (!f) {
			fprintf(stderr, "usage: bench_llama [--rounds N] [--layers N] [--embd N] "
				"[--prompt N] [--generate N] [--threads N] [--gpu-layers N]\n");
			exit(2);
		}
		*f = number(a, v, a[2] == 'r' ? 1000 : 4000);
	}
}

int main(int argc, char **argv)
{
	struct llama_model_params mp = llama_model_default_params();
	struct tiny_llama_params p;
	const char *dir = getenv("TMPDIR");
	struct bench b;
	int counts[3], n, rc = 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	memset(&b, 0, sizeof b);
	parse(argc, argv, &b.o);
	snprintf(b.model_path, sizeof b.model_path, "%s/bench_llama-%d.gguf", dir ? dir : "/tmp",
		 (int)getpid());
	snprintf(b.trace_path, sizeof b.trace_path, "%s/bench_llama-%d.ggmlviz",
		 dir ? dir : "/tmp", (int)getpid());
	snprintf(b.sync_path, sizeof b.sync_path, "%s/bench_llama-%d-sync.ggmlviz",
		 dir ? dir : "/tmp", (int)getpid());
	mp.n_gpu_layers = b.o.gpu_layers;
	if (b.o.gpu_layers)
		setenv("GGML_VK_VISIBLE_DEVICES", "0", 0); /* Mesa's CPU-type device, if that is all */
	tiny_llama_params_init(&p);
	p.n_layer = b.o.layers;
	p.n_embd = b.o.embd;
	p.n_head = b.o.embd / 64 > 0 ? b.o.embd / 64 : 1;
	p.n_head_kv = p.n_head;
	p.n_ff = b.o.embd * 8 / 3;
	llama_log_set(quiet, NULL);
	ggml_backend_load_all_from_path(GGMLVIZ_GGML_LIBDIR);
	llama_backend_init();
	if (tiny_llama_write(b.model_path, &p) < 0 ||
	    !(b.model = llama_model_load_from_file(b.model_path, mp))) {
		fprintf(stderr, "bench_llama: cannot make or load the model %s\n", b.model_path);
		unlink(b.model_path);
		return 1;
	}
	for (int m = 0; m < N_MODES; m++) {
		b.gen[m] = calloc((size_t)b.o.rounds, sizeof(double));
		b.pp[m] = calloc((size_t)b.o.rounds, sizeof(double));
	}
	b.gen0_every = calloc((size_t)b.o.rounds, sizeof(double));
	b.pp0_every = calloc((size_t)b.o.rounds, sizeof(double));
	n = bench_thread_counts(counts, cores > 0 ? (int)cores : 1);
	if (b.o.threads)
		counts[0] = b.o.threads, n = 1;
	printf("bench_llama: llama model of %d layers, %d wide (%.0f MB), %d prompt tokens then %d "
	       "generated; %d rounds, interleaved; %d layers on a GPU\n", p.n_layer, p.n_embd,
	       (double)llama_model_size(b.model) / 1e6, b.o.prompt, b.o.generate, b.o.rounds,
	       b.o.gpu_layers);
	for (int i = 0; i < n && rc == 0; i++)
		rc = bench_threads(&b, counts[i]);
	for (int m = 0; m < N_MODES; m++)
		free(b.gen[m]), free(b.pp[m]);
	free(b.gen0_every), free(b.pp0_every);
	llama_model_free(b.model);
	llama_backend_free();
	unlink(b.model_path);
	unlink(b.trace_path);
	return rc < 0;
}
