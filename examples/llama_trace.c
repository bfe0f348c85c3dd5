/*
 * llama_trace: a llama.cpp program traced by libggmlviz. It loads a GGUF
 * model with libllama, processes a prompt, generates tokens greedily, and
 * records every llama_decode() as a step holding its ops:
 *
 *   llama_trace --model M.gguf [--prompt TEXT] [--generate N] [--threads N]
 *               [--output TRACE] [--ctx N] [--gpu-layers N] [--text] [--verbose]
 *               [--no-threadpool] [--sequences N]
 *
 * --sequences N decodes N requests together, as llama-server decodes its
 * slots: their prompts (the prompt less its last s tokens for sequence s)
 * in one batch, then a batch of one token each per generated token;
 * ggmlviz stats --by sequence tells them apart.
 * As llama.cpp's own tools do, it attaches a threadpool of --threads
 * threads to its context (GGML's CPU backend then wakes its workers for
 * each graph); --no-threadpool leaves the backend to make the threads
 * anew for every graph, which the first op of each run then holds.
 * --text prints the generated text (the demo's model has random weights:
 * its text means nothing); --verbose lets llama.cpp's own log through
 * (otherwise only its warnings and errors). --gpu-layers puts that many
 * layers on a GPU backend, where one is loaded (GGML's Vulkan backend beside
 * the CPU ones: GGML_VK_VISIBLE_DEVICES=0 on Mesa's software device).
 *
 * The tracing takes three lines: ggmlviz_start(), ggmlviz_llama_context_params()
 * on the context's params, and ggmlviz_llama_decode() instead of
 * llama_decode(). GGML_VIZ_* variables apply (GGML_VIZ_OP_TIMING=sync,
 * GGML_VIZ_MEMORY_TRACKING=1, ...). Then: ggmlviz stats TRACE --by phase.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ggml-backend.h>
#include <llama.h>
#define GGMLVIZ_LLAMA_IMPLEMENTATION /* this file holds the adapters' state */
#include <ggmlviz/llama.h>
#include <ggmlviz/tracer.h>

#ifndef GGMLVIZ_GGML_LIBDIR
#define GGMLVIZ_GGML_LIBDIR "."
#endif

struct options {
	const char *model, *prompt, *output;
	int generate, threads, n_ctx;
	bool text, verbose;
	int gpu_layers; /* -1: libllama's default */
	bool no_threadpool;
	int sequences;  /* decoded together, as a server's requests */
};

typedef struct ggml_threadpool *(*threadpool_new_fn)(struct ggml_threadpool_params *params);
typedef void (*threadpool_free_fn)(struct ggml_threadpool *tp);

/* GGML's CPU backend's threadpool functions (it may be a module loaded at run time). */
static void *cpu_proc(const char *name)
{
	ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);

	return dev ? ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(dev), name)
		   : NULL;
}

/* A threadpool of n threads attached to ctx, as llama.cpp's tools attach one; NULL if none. */
static struct ggml_threadpool *attach_threadpool(struct llama_context *ctx, int n)
{
	threadpool_new_fn make = NULL;
	void *proc = cpu_proc("ggml_threadpool_new");
	struct ggml_threadpool_params tpp = ggml_threadpool_params_default(n);
	struct ggml_threadpool *tp;

	memcpy(&make, &proc, sizeof make); /* POSIX: a function's address as a void * */
	if (!make || !(tp = make(&tpp)))
		return NULL;
	llama_attach_threadpool(ctx, tp, NULL);
	return tp;
}

static void free_threadpool(struct ggml_threadpool *tp)
{
	threadpool_free_fn release = NULL;
	void *proc = cpu_proc("ggml_threadpool_free");

	memcpy(&release, &proc, sizeof release);
	if (tp && release)
		release(tp);
}

static int usage(void)
{
	fputs("usage: llama_trace --model M.gguf [--prompt TEXT] [--generate N] [--threads N]\n"
	      "                   [--output TRACE] [--ctx N] [--gpu-layers N] [--text] [--verbose]\n"
	      "                   [--no-threadpool] [--sequences N]\n",
	      stderr);
	return 2;
}

/* A valued option; 1 if a is one, 0 if not, -1 when its value is missing. */
static int valued(struct options *o, const char *a, const char *v)
{
	const char **str = NULL;
	int *num = NULL;

	if (!strcmp(a, "--model"))
		str = &o->model;
	else if (!strcmp(a, "--prompt"))
		str = &o->prompt;
	else if (!strcmp(a, "--output"))
		str = &o->output;
	else if (!strcmp(a, "--generate"))
		num = &o->generate;
	else if (!strcmp(a, "--threads"))
		num = &o->threads;
	else if (!strcmp(a, "--ctx"))
		num = &o->n_ctx;
	else if (!strcmp(a, "--gpu-layers"))
		num = &o->gpu_layers;
	else if (!strcmp(a, "--sequences"))
		num = &o->sequences;
	if (!str && !num)
		return 0;
	if (!v)
		return -1;
	if (str)
		*str = v;
	else
		*num = atoi(v);
	return 1;
}

static int parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ NULL, "the model is a tensor graph and each token is a step",
			       "llama.ggmlviz", 16, 2, 256, false, false, -1, false, 1 };
	for (int i = 1; i < argc; i++) {
		int rc = valued(o, argv[i], i + 1 < argc ? argv[i + 1] : NULL);

		if (rc < 0)
			return usage();
		if (rc > 0)
			i++;
		else if (!strcmp(argv[i], "--text"))
			o->text = true;
		else if (!strcmp(argv[i], "--verbose"))
			o->verbose = true;
		else if (!strcmp(argv[i], "--no-threadpool"))
			o->no_threadpool = true;
		else
			return usage();
	}
	if (!o->model || o->generate < 0 || o->threads < 1 || o->n_ctx < 16 || o->sequences < 1 ||
	    o->sequences > 256)
		return usage();
	return 0;
}

/* llama.cpp's log without its information lines: warnings and errors only. */
static void quiet_log(enum ggml_log_level level, const char *text, void *user)
{
	static enum ggml_log_level last = GGML_LOG_LEVEL_INFO;

	(void)user;
	if (level != GGML_LOG_LEVEL_CONT)
		last = level;
	if (last == GGML_LOG_LEVEL_WARN || last == GGML_LOG_LEVEL_ERROR)
		fputs(text, stderr);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The most likely next token (greedy). */
/* The most likely next token after the batch's output i (-1: the last). */
static llama_token argmax(struct llama_context *ctx, const struct llama_vocab *vocab, int32_t i)
{
	const float *logits = llama_get_logits_ith(ctx, i);
	int32_t n = llama_vocab_n_tokens(vocab);
	llama_token best = 0;

	for (llama_token t = 1; t < n; t++)
		if (logits[t] > logits[best])
			best = t;
	return best;
}

static void print_piece(const struct llama_vocab *vocab, llama_token t)
{
	char buf[64];
	int n = llama_token_to_piece(vocab, t, buf, sizeof buf, 0, false);

	if (n > 0)
		fwrite(buf, 1, (size_t)n, stdout);
}

/* Prompt, then generation; 0, or 1 after a message. */
/* Token k of the batch: token t at position pos of sequence seq, with an output or not. */
static void put(struct llama_batch *b, llama_token t, llama_pos pos, llama_seq_id seq, bool out)
{
	int32_t k = b->n_tokens++;

	b->token[k] = t, b->pos[k] = pos, b->n_seq_id[k] = 1, b->seq_id[k][0] = seq;
	b->logits[k] = out;
}

/*
 * --sequences N: N requests decoded together, as llama-server decodes its
 * slots: sequence s's prompt is the prompt less its last s tokens, all of
 * them in one batch, then one batch a generated token, a token of each.
 */
static int run_sequences(struct llama_context *ctx, const struct llama_vocab *vocab,
			 const struct options *o, const llama_token *tokens, int n)
{
	int seqs = o->sequences, rc;
	struct llama_batch b = llama_batch_init(n * seqs, 0, 1);
	int32_t *last = calloc((size_t)seqs, sizeof *last); /* each sequence's output in the batch */
	llama_pos *pos = calloc((size_t)seqs, sizeof *pos);

	if (!last || !pos || n - seqs + 1 < 1) {
		fprintf(stderr, "llama_trace: --sequences %d wants a prompt of %d tokens or more\n",
			seqs, seqs);
		rc = 1;
		goto out;
	}
	for (int s = 0; s < seqs; s++)
		for (int i = 0; i < n - s; i++) {
			put(&b, tokens[i], i, s, i == n - s - 1);
			last[s] = b.n_tokens - 1, pos[s] = i + 1;
		}
	rc = ggmlviz_llama_decode(ctx, b); /* every prompt: one step */
	for (int g = 0; g < o->generate && rc == 0; g++) {
		llama_token next[256];
		for (int s = 0; s < seqs && s < 256; s++)
			next[s] = argmax(ctx, vocab, last[s]);
		b.n_tokens = 0;
		for (int s = 0; s < seqs && s < 256; s++) {
			put(&b, next[s], pos[s]++, s, true);
			last[s] = s;
		}
		rc = ggmlviz_llama_decode(ctx, b); /* a token of each sequence: one step */
	}
	printf("llama_trace: %d sequences, each a prompt then %d tokens generated together\n", seqs,
	       o->generate);
	if (rc != 0)
		fprintf(stderr, "llama_trace: llama_decode() returned %d\n", rc);
	rc = rc != 0;
out:
	free(last);
	free(pos);
	llama_batch_free(b);
	return rc;
}

static int run(struct llama_context *ctx, const struct llama_vocab *vocab, const struct options *o)
{
	llama_token tokens[512], next;
	int n = llama_tokenize(vocab, o->prompt, (int32_t)strlen(o->prompt), tokens, 512, true,
			       false);
	double t0, t1, t2;
	int rc;

	if (n <= 0) {
		/* llama_tokenize() gives minus the tokens needed when they are more than it was given */
		fprintf(stderr, "llama_trace: --prompt gives %s tokens: 1 to 512 wanted\n",
			n < 0 ? "more than 512" : "no");
		return 1;
	}
	if (n + o->generate > o->n_ctx) {
		/* the KV cache holds the prompt and every generated token */
		fprintf(stderr, "llama_trace: the prompt's %d tokens and --generate %d need %d positions:"
			" more than --ctx %d (give --ctx %d, or generate fewer)\n", n, o->generate,
			n + o->generate, o->n_ctx, n + o->generate);
		return 1;
	}
	if (o->sequences > 1)
		return run_sequences(ctx, vocab, o, tokens, n);
	t0 = now_ms();
	rc = ggmlviz_llama_decode(ctx, llama_batch_get_one(tokens, n)); /* the prompt: one step */
	t1 = now_ms();
	if (o->text)
		printf("llama_trace: generated:");
	for (int i = 0; i < o->generate && rc == 0; i++) {
		next = argmax(ctx, vocab, -1);
		if (o->text)
			print_piece(vocab, next);
		rc = ggmlviz_llama_decode(ctx, llama_batch_get_one(&next, 1)); /* a step per token */
	}
	t2 = now_ms();
	if (o->text)
		putchar('\n');
	printf("llama_trace: prompt: %d tokens in %.2f ms (%.0f tokens/s); generation: %d tokens "
	       "in %.2f ms (%.0f tokens/s)\n", n, t1 - t0, n / ((t1 - t0) / 1e3), o->generate,
	       t2 - t1, o->generate / ((t2 - t1) / 1e3));
	if (rc != 0)
		fprintf(stderr, "llama_trace: llama_decode() returned %d\n", rc);
	return rc != 0;
}

int main(int argc, char **argv)
{
	struct llama_model_params mp = llama_model_default_params();
	struct llama_context_params cp = llama_context_default_params();
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct llama_model *model;
	struct llama_context *ctx;
	struct ggml_threadpool *tp;
	struct options o;
	int rc;

	if (parse(argc, argv, &o))
		return 2;
	ggmlviz_config_init(&cfg);
	cfg.output = o.output;
	ggmlviz_config_from_env(&cfg); /* GGML_VIZ_* override */
	if ((rc = ggmlviz_start(&cfg)) < 0) {
		fprintf(stderr, "llama_trace: cannot trace to %s: %s\n", cfg.output,
			ggmlviz_strerror(rc));
		return 1;
	}
	if (!o.verbose)
		llama_log_set(quiet_log, NULL);
	ggml_backend_load_all_from_path(GGMLVIZ_GGML_LIBDIR); /* before loading: or no backend */
	llama_backend_init();
	if (o.gpu_layers >= 0)
		mp.n_gpu_layers = o.gpu_layers; /* with a GPU backend loaded: layers put there */
	model = llama_model_load_from_file(o.model, mp);
	if (!model) {
		fprintf(stderr, "llama_trace: cannot load the model %s\n", o.model);
		ggmlviz_stop();
		return 1;
	}
	cp.n_ctx = cp.n_batch = (uint32_t)(o.n_ctx * o.sequences); /* --ctx for each sequence */
	cp.n_seq_max = (uint32_t)o.sequences;
	cp.n_threads = cp.n_threads_batch = o.threads;
	cp.no_perf = true;
	ggmlviz_llama_context_params(&cp); /* the one line: per-op timing without splitting */
	ctx = llama_init_from_model(model, cp);
	tp = ctx && !o.no_threadpool ? attach_threadpool(ctx, o.threads) : NULL;
	rc = ctx ? run(ctx, llama_model_get_vocab(model), &o) : 1;
	if (!ctx)
		fprintf(stderr, "llama_trace: cannot make a context\n");
	ggmlviz_llama_free(ctx); /* llama_free(), the context's buffers' frees recorded */
	free_threadpool(tp);
	ggmlviz_llama_model_free(model);
	llama_backend_free();
	ggmlviz_stop();
	ggmlviz_get_stats(&st);
	printf("llama_trace: trace in %s: %llu events, %llu dropped", cfg.output,
	       (unsigned long long)st.written, (unsigned long long)st.dropped);
	if (rc == 0)
		printf("; next: ggmlviz stats %s --by phase", cfg.output);
	printf("\n");
	return rc;
}
