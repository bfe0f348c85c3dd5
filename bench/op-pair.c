/*
 * op-pair: what timing every op adds to a traced llama.cpp decode, token
 * against token, with no counter read inside the decode (bench/op-pair.sh
 * links it into llama-bench).
 *
 * llama-bench is linked again with -Wl,--wrap=ggmlviz_tools_decode: each
 * decode of one token (a generated token's) is timed whole, and the
 * decodes go in pairs, one traced as the session began (every op timed,
 * every worker's share measured: the tools' default) and one untraced
 * (the session's mask cleared for that decode alone, as with no session:
 * every call of GGML's edits and of the adapters returns at once, and the
 * step is not recorded). Which of a pair goes first is drawn at random.
 * A pair's difference is what timing the ops added to that token, where
 * the machine's noise over two tokens of a ms is far less than over two
 * runs (bench/llama-bench.sh's rounds) or two processes. bench/op-self.c
 * times each call, fenced: its figures hold a time read's whole latency,
 * which, left alone, overlaps the work around it (doc/cost.md).
 *
 * OP_PAIR=aa leaves both decodes of a pair as they are: the method's own
 * noise and bias, the figures' control.
 *
 * At the exit, to the file OP_PAIR_OUT (stderr if unset): "pairs N on N"
 * (the pairs, and the decodes timed with ops on) and one line a pair,
 * "ON_NS OFF_NS" (each decode's time, from the counter at its rate
 * measured against CLOCK_MONOTONIC over the run). x86-64 only; one
 * decoding thread (llama-bench's).
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

#include <llama.h>

#define PAIRS 65536

struct pair {
	uint64_t on, off; /* counter cycles of the decode with op timing on, and off */
};

static struct pair pairs[PAIRS];
static unsigned n_pairs, half;          /* pairs complete; a pair's first decode done (1) */
static int first_off, control;          /* the pair's first decode has ops off; OP_PAIR=aa */
static uint64_t lcg = 0x9e3779b97f4a7c15ull;
static uint64_t tsc0, ns0;

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
	tsc0 = __rdtsc();
	ns0 = now_ns();
}

/* A fair coin: the top bit of a 64-bit LCG (Knuth's MMIX constants). */
static int coin(void)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (int)(lcg >> 63);
}

/* The decode timed, untraced when `off` (where the session times ops). */
static uint64_t timed_decode(int32_t (*real)(const char *, struct llama_context *,
					     struct llama_batch),
			     const char *site, struct llama_context *ctx, struct llama_batch batch,
			     int off, int32_t *rc)
{
	unsigned m = __atomic_load_n(&ggmlviz__mask, __ATOMIC_SEQ_CST);
	unsigned off_mask = 0;
	int cleared = off && !control && (m & GGMLVIZ__OPS); /* a session timing ops: not a stop's */
	uint64_t t0;

	if (cleared)
		__atomic_store_n(&ggmlviz__mask, off_mask, __ATOMIC_SEQ_CST);
	t0 = __rdtsc();
	*rc = real(site, ctx, batch);
	t0 = __rdtsc() - t0;
	if (cleared) /* back as it was, unless the session stopped or ended meanwhile */
		__atomic_compare_exchange_n(&ggmlviz__mask, &off_mask, m, 0,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return t0;
}

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

	if (batch.n_tokens != 1 || n_pairs == PAIRS)
		return __real_ggmlviz_tools_decode(site, ctx, batch);
	if (!half)
		first_off = coin();
	off = half ? !first_off : first_off;
	t = timed_decode(__real_ggmlviz_tools_decode, site, ctx, batch, off, &rc);
	*(off ? &pairs[n_pairs].off : &pairs[n_pairs].on) = t;
	if (half)
		n_pairs++;
	half = !half;
	return rc;
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("OP_PAIR_OUT");
	FILE *f = path ? fopen(path, "w") : stderr;
	double ns_a_cycle = (double)(now_ns() - ns0) / (double)(__rdtsc() - tsc0);

	if (!f)
		return;
	fprintf(f, "pairs %u on %u\n", n_pairs, control ? 0 : n_pairs + (half && !first_off));
	for (unsigned i = 0; i < n_pairs; i++)
		fprintf(f, "%.0f %.0f\n", (double)pairs[i].on * ns_a_cycle,
			(double)pairs[i].off * ns_a_cycle);
	if (f != stderr)
		fclose(f);
}
