/*
 * op-pair: what tracing adds to a llama.cpp decode, token against token,
 * with no counter read inside the decode (bench/op-pair.sh links it into
 * llama-bench).
 *
 * llama-bench is linked again with -Wl,--wrap for the tools' decode, for
 * llama_init_from_model() and for ggml_backend_sched_set_eval_callback():
 * each decode of one token (a generated token's) is timed whole, and the
 * decodes go in pairs on the same context, one traced as the session
 * began (by default every op timed, every worker's share measured; with
 * GGML_VIZ_OP_TIMING=0, steps alone) and one untraced as
 * llama-bench runs with no GGML_VIZ_OUTPUT: the session's mask cleared
 * (every call of GGML's edits returns at once) and the tracer's two
 * callbacks taken off the context for that decode (the scheduler's eval
 * callback and the CPU backend's abort callback, which the tools install
 * only when tracing). Which of a pair goes first is drawn at random. A
 * pair's difference is what tracing added to that token: two tokens of a
 * ms side by side on one context, where the machine's noise moves two
 * rounds or two processes far more, and two contexts' layouts differ by
 * more than what is measured (a control of two untraced contexts read 80
 * ns an op apart). bench/op-self.c times each call, fenced: its figures
 * hold a time read's whole latency, which a decode overlaps with the work
 * around it (doc/cost.md).
 *
 * OP_PAIR=aa leaves both decodes of a pair traced: the method's own noise
 * and bias, the figures' control. OP_PAIR=stopped leaves the tracer's
 * callbacks on the context for the other decode of a pair, the mask
 * cleared: what a program pays, while no session runs, for the callbacks
 * a traced context keeps (a server between two traced windows, a context
 * made while tracing and used after the stop). With OP_PAIR_DROP=abort
 * or =eval, that decode has that one of the two callbacks taken off too:
 * which of them the cost is.
 *
 * At the exit, to the file OP_PAIR_OUT (stderr if unset): "pairs N on N"
 * (the pairs, and the generated tokens' decodes traced: with -p 0, each
 * op of the trace is one of theirs) and one line a pair, "ON_NS
 * OFF_NS" (each decode's time, from the counter at its rate measured
 * against CLOCK_MONOTONIC over the run). x86-64 only; one decoding
 * thread and one context at a time (llama-bench's).
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <ggmlviz/tracer.h>

#include <ggml-backend.h>
#include <llama.h>

#define PAIRS 65536

struct pair {
	uint64_t on, off; /* counter cycles of the traced decode, and of the untraced */
};

static struct pair pairs[PAIRS];
static unsigned n_pairs, half;  /* pairs complete; a pair's first decode done (1) */
static unsigned alone;          /* a generated token's decodes traced outside a pair */
static int first_off, control;  /* the pair's first decode untraced; OP_PAIR=aa */
static int stopped;             /* OP_PAIR=stopped: the other decode untraced, callbacks kept */
static int drop_abort, drop_eval; /* OP_PAIR_DROP=abort or eval: that one taken off too */
static uint64_t lcg = 0x9e3779b97f4a7c15ull;
static uint64_t tsc0, ns0;

/* The last context made, with its callbacks; its scheduler's eval callback as last set. */
static struct {
	struct llama_context *ctx;
	ggml_abort_callback abort_cb;
	void *abort_data;
	ggml_backend_sched_t sched;
	ggml_backend_sched_eval_callback eval_cb;
	void *eval_data;
	int off; /* a decode untraced now: the eval callback set by llama.cpp is held back */
} made;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((constructor)) static void begin(void)
{
	const char *m = getenv("OP_PAIR");

	control = m && !strcmp(m, "aa");
	stopped = m && !strcmp(m, "stopped");
	m = getenv("OP_PAIR_DROP");
	drop_abort = m && !strcmp(m, "abort");
	drop_eval = m && !strcmp(m, "eval");
	tsc0 = __rdtsc();
	ns0 = now_ns();
}

/* A fair coin: the top bit of a 64-bit LCG (Knuth's MMIX constants). */
static int coin(void)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (int)(lcg >> 63);
}

struct llama_context *__real_llama_init_from_model(struct llama_model *model,
						   struct llama_context_params params);
struct llama_context *__wrap_llama_init_from_model(struct llama_model *model,
						   struct llama_context_params params);
struct llama_context *__wrap_llama_init_from_model(struct llama_model *model,
						   struct llama_context_params params)
{
	made.ctx = __real_llama_init_from_model(model, params);
	made.abort_cb = params.abort_callback;
	made.abort_data = params.abort_callback_data;
	made.sched = NULL;
	return made.ctx;
}

void __real_ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched,
						 ggml_backend_sched_eval_callback cb, void *data);
void __wrap_ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched,
						 ggml_backend_sched_eval_callback cb, void *data);
void __wrap_ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched,
						 ggml_backend_sched_eval_callback cb, void *data)
{
	made.sched = sched;
	made.eval_cb = cb;
	made.eval_data = data;
	__real_ggml_backend_sched_set_eval_callback(sched, made.off ? NULL : cb,
						    made.off ? NULL : data);
}

/* ctx untraced (1) or as it was made (0): the mask, and the tracer's callbacks. */
static void untraced(struct llama_context *ctx, unsigned mask, int off)
{
	made.off = off;
	__atomic_store_n(&ggmlviz__mask, off ? 0u : mask, __ATOMIC_SEQ_CST);
	llama_set_abort_callback(ctx, off ? NULL : made.abort_cb, off ? NULL : made.abort_data);
	if (made.sched)
		__real_ggml_backend_sched_set_eval_callback(made.sched, off ? NULL : made.eval_cb,
							    off ? NULL : made.eval_data);
}

/* The decode timed, untraced when `off`: its cycles. */
static uint64_t timed_decode(const char *site, struct llama_context *ctx,
			     struct llama_batch batch, int off, int32_t *rc);

int32_t __real_ggmlviz_tools_decode(const char *site, struct llama_context *ctx,
				    struct llama_batch batch);
int32_t __wrap_ggmlviz_tools_decode(const char *site, struct llama_context *ctx,
				    struct llama_batch batch);
int32_t __wrap_ggmlviz_tools_decode(const char *site, struct llama_context *ctx,
				    struct llama_batch batch)
{
	int32_t rc;
	int off;
	uint64_t t;

	/* no session, another context than the last made, or a pool of pairs full */
	if (batch.n_tokens != 1 || n_pairs == PAIRS || ctx != made.ctx || !made.sched ||
	    !(__atomic_load_n(&ggmlviz__mask, __ATOMIC_SEQ_CST) & GGMLVIZ__ACTIVE)) {
		alone += batch.n_tokens == 1; /* its ops are in the trace: counted with the traced */
		return __real_ggmlviz_tools_decode(site, ctx, batch);
	}
	if (!half)
		first_off = coin();
	off = half ? !first_off : first_off;
	t = timed_decode(site, ctx, batch, off && !control, &rc);
	*(off ? &pairs[n_pairs].off : &pairs[n_pairs].on) = t;
	n_pairs += half;
	half = !half;
	return rc;
}

static uint64_t timed_decode(const char *site, struct llama_context *ctx,
			     struct llama_batch batch, int off, int32_t *rc)
{
	unsigned mask = __atomic_load_n(&ggmlviz__mask, __ATOMIC_SEQ_CST);
	uint64_t t;

	if (off)
		untraced(ctx, mask, 1);
	else if (stopped) { /* as after a stop: nothing traced, the callbacks kept */
		__atomic_store_n(&ggmlviz__mask, 0u, __ATOMIC_SEQ_CST);
		if (drop_abort)
			llama_set_abort_callback(ctx, NULL, NULL);
		if (drop_eval && made.sched)
			__real_ggml_backend_sched_set_eval_callback(made.sched, NULL, NULL);
	}
	t = __rdtsc();
	*rc = __real_ggmlviz_tools_decode(site, ctx, batch);
	t = __rdtsc() - t;
	if (off) /* llama-bench starts and stops its session outside its decodes */
		untraced(ctx, mask, 0);
	else if (stopped) {
		__atomic_store_n(&ggmlviz__mask, mask, __ATOMIC_SEQ_CST);
		if (drop_abort)
			llama_set_abort_callback(ctx, made.abort_cb, made.abort_data);
		if (drop_eval && made.sched)
			__real_ggml_backend_sched_set_eval_callback(made.sched, made.eval_cb, made.eval_data);
	}
	return t;
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("OP_PAIR_OUT");
	FILE *f = path ? fopen(path, "w") : stderr;
	double ns_a_cycle = (double)(now_ns() - ns0) / (double)(__rdtsc() - tsc0);

	if (!f)
		return;
	fprintf(f, "pairs %u on %u\n", n_pairs,
		control || stopped ? 0 : n_pairs + (half && !first_off) + alone);
	for (unsigned i = 0; i < n_pairs; i++)
		fprintf(f, "%.0f %.0f\n", (double)pairs[i].on * ns_a_cycle,
			(double)pairs[i].off * ns_a_cycle);
	if (f != stderr)
		fclose(f);
}
