/*
 * The machine's peak, measured once a process for a thread count (see
 * session.h): how many bytes a second its threads read from memory, and
 * how many single-precision FLOP a second their fused multiply-adds
 * reach, so that readers can say of an op whether the memory or the
 * arithmetic bounds it, and how close it came (a roofline).
 *
 * Memory: each thread sums its share of an array twice the size of the
 * last-level cache (between 64 and 256 MiB in all), best of eight passes
 * after one that faults the pages in. Arithmetic: each thread runs eight
 * independent chains of vector FMAs in registers, in the widest vectors
 * the CPU has (AVX-512, AVX2+FMA, else SSE2 multiply and add), best of
 * 24 short passes. The threads start each pass together at a barrier, a
 * pass lasts as long as its slowest thread, and a figure is its best pass.
 *
 * Many short passes, because the best of few is not a peak on a busy
 * machine: on this project's 2-core VM, with its tests running beside it,
 * three FMA passes of 5 ms gave 135 to 226 GFLOP/s in five measures,
 * where passes that fit between two of the scheduler's preemptions, the
 * best of many, gave 225 to 234 (and the best of three memory passes 14 to
 * 37 GB/s, of eight 30 to 33): a peak measured low made ops look nearer
 * to it, and bound by the arithmetic, than they were. And each thread's
 * own best pass, as before, overstated the memory with every core busy
 * (a median of 39.2 GB/s against 34.4 idle: a thread whose partner was
 * preempted had the memory to itself); a pass's slowest thread gives 31.0.
 * bench/peak-spread.sh prints both ways' spread.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/base/clock.h"
#include "tracer/base/compat.h"
#include "tracer/session/session.h"
#include "util/pages.h"

#define READ_PASSES 8
#define FMA_PASSES 24
#define FMA_ROUNDS 500000u /* per pass, per thread: about 1.3 ms at 3 GHz */

/* Where the threads start each pass together; abort: a thread could not be started. */
struct gate {
	_Atomic int count, generation, abort;
	int n;
};

/* 0 when every thread has arrived, -1 when the measure is given up. */
static int gate_wait(struct gate *g)
{
	int gen = atomic_load(&g->generation);

	if (atomic_fetch_add(&g->count, 1) + 1 == g->n) {
		atomic_store(&g->count, 0);
		atomic_fetch_add(&g->generation, 1);
		return 0;
	}
	while (atomic_load(&g->generation) == gen)
		if (atomic_load(&g->abort))
			return -1;
		else
			sched_yield();
	return 0;
}

struct worker {
	pthread_t thread;
	const float *data;
	size_t n;                   /* floats of its share */
	struct gate *gate;
	int (*fma)(uint64_t rounds, float *out); /* returns FLOP per round */
	uint64_t read_ns[READ_PASSES], fma_ns[FMA_PASSES]; /* each pass's time */
	int flop_per_round;
	float result; /* what the loops computed: kept, so that they are not optimized away */
};

/* ---- arithmetic: eight chains of vector FMAs, in the widest vectors there are ---- */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* Eight chains x = x * m + a, each its own register, the vectors' type and FMA given. */
#define FMA_CHAINS(vec, set1, fmadd, add, store, lanes)                                  \
	vec m = set1(0.999999f), a = set1(1e-7f), x0 = set1(1), x1 = set1(2), x2 = set1(3), \
	    x3 = set1(4), x4 = set1(5), x5 = set1(6), x6 = set1(7), x7 = set1(8);          \
	float lane[lanes];                                                                   \
	for (uint64_t r = 0; r < rounds; r++) {                                              \
		x0 = fmadd(x0, m, a), x1 = fmadd(x1, m, a), x2 = fmadd(x2, m, a);           \
		x3 = fmadd(x3, m, a), x4 = fmadd(x4, m, a), x5 = fmadd(x5, m, a);           \
		x6 = fmadd(x6, m, a), x7 = fmadd(x7, m, a);                                 \
	}                                                                                    \
	store(lane, add(add(add(x0, x1), add(x2, x3)), add(add(x4, x5), add(x6, x7))));    \
	*out = lane[0];                                                                      \
	return 2 * 8 * lanes

__attribute__((target("avx512f"))) static int fma_avx512(uint64_t rounds, float *out)
{
	FMA_CHAINS(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_storeu_ps, 16);
}

__attribute__((target("avx2,fma"))) static int fma_avx2(uint64_t rounds, float *out)
{
	FMA_CHAINS(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_storeu_ps, 8);
}

/* SSE2, which every x86-64 has: a multiply then an add (counted as 2 FLOP, as an FMA). */
static __m128 mul_add(__m128 x, __m128 m, __m128 a)
{
	return _mm_add_ps(_mm_mul_ps(x, m), a);
}

static int fma_plain(uint64_t rounds, float *out)
{
	FMA_CHAINS(__m128, _mm_set1_ps, mul_add, _mm_add_ps, _mm_storeu_ps, 4);
}
#else
/* Elsewhere: the compiler's own code for eight scalar chains. */
static int fma_plain(uint64_t rounds, float *out)
{
	float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, m = 0.999999f, a = 1e-7f;

	for (uint64_t r = 0; r < rounds; r++)
		for (int c = 0; c < 8; c++)
			x[c] = x[c] * m + a;
	*out = x[0] + x[1] + x[2] + x[3] + x[4] + x[5] + x[6] + x[7];
	return 2 * 8;
}
#endif

/* The widest FMA this CPU runs, and its name. */
static int (*pick_fma(const char **name))(uint64_t, float *)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return *name = "AVX-512", fma_avx512;
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return *name = "AVX2 FMA", fma_avx2;
#endif
	*name = "multiply and add";
	return fma_plain;
}

/* ---- memory: a sum over the thread's share ---- */

static float sum(const float *p, size_t n)
{
	float s[8] = { 0 };

	for (size_t i = 0; i + 8 <= n; i += 8)
		for (int k = 0; k < 8; k++)
			s[k] += p[i + (size_t)k];
	return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

/*
 * The best of passes, each pass as long as its slowest thread: a thread's
 * own best could come from a pass where the others were preempted, and
 * had the memory to itself (summed, more than the machine reads at once).
 */
static uint64_t best_pass(const struct worker *w, int threads, bool fma)
{
	int passes = fma ? FMA_PASSES : READ_PASSES;
	uint64_t best = 0;

	for (int p = 0; p < passes; p++) {
		uint64_t slowest = 0;

		for (int i = 0; i < threads; i++) {
			uint64_t ns = fma ? w[i].fma_ns[p] : w[i].read_ns[p];

			slowest = ns > slowest ? ns : slowest;
		}
		if (slowest && (!best || slowest < best))
			best = slowest;
	}
	return best;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	float f;

	w->result = sum(w->data, w->n); /* the pages faulted in */
	for (int p = 0; p < READ_PASSES; p++) {
		uint64_t t0;

		if (gate_wait(w->gate) < 0)
			return NULL;
		t0 = ggmlviz__monotonic_ns();
		w->result += sum(w->data, w->n);
		w->read_ns[p] = ggmlviz__monotonic_ns() - t0;
	}
	for (int p = 0; p < FMA_PASSES; p++) {
		uint64_t t0;

		if (gate_wait(w->gate) < 0)
			return NULL;
		t0 = ggmlviz__monotonic_ns();
		w->flop_per_round = w->fma(FMA_ROUNDS, &f);
		w->fma_ns[p] = ggmlviz__monotonic_ns() - t0;
		w->result += f;
	}
	return NULL;
}

/* The array's size: twice the last-level cache, 64 to 256 MiB. */
static size_t array_bytes(void)
{
	uint64_t b = 2 * ggmlviz__os_cache_bytes();

	b = b < (64u << 20) ? 64u << 20 : b > (256u << 20) ? 256u << 20 : b;
	return (size_t)b;
}

static int run(struct worker *w, int threads, struct gate *gate)
{
	int started = 0, rc = 0;

	while (started < threads && rc == 0)
		if ((rc = pthread_create(&w[started].thread, NULL, work, &w[started])) == 0)
			started++;
	if (rc != 0)
		atomic_store(&gate->abort, 1); /* those started must not wait for the others */
	for (int i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	return -rc;
}

int ggmlviz__peak_measure(int threads, struct ggmlviz__peak *out)
{
	size_t bytes = array_bytes(), per = 0;
	struct worker *w = ggmlviz__pages_array((size_t)threads, sizeof *w);
	float *data = ggmlviz__pages_alloc(bytes);
	struct gate gate = { 0, 0, 0, threads };
	const char *how;
	int (*fma)(uint64_t, float *) = pick_fma(&how);
	uint64_t read_ns = 0, fma_ns = 0, t0 = ggmlviz__monotonic_ns();
	int rc = -ENOMEM;

	memset(out, 0, sizeof *out);
	if (w && data) {
		memset(data, 0, bytes);
		per = bytes / sizeof *data / (size_t)threads;
		for (int i = 0; i < threads; i++)
			w[i] = (struct worker){ .data = data + per * (size_t)i, .n = per,
						.gate = &gate, .fma = fma };
		rc = run(w, threads, &gate);
	}
	if (rc == 0) {
		read_ns = best_pass(w, threads, false);
		fma_ns = best_pass(w, threads, true);
	}
	if (rc == 0 && read_ns && fma_ns) {
		out->threads = (uint32_t)threads;
		out->bytes_per_s = (uint64_t)((double)per * sizeof *data * (double)threads * 1e9 /
					      (double)read_ns);
		out->flop_per_s = (uint64_t)((double)FMA_ROUNDS * w[0].flop_per_round *
					     (double)threads * 1e9 / (double)fma_ns);
		snprintf(out->how, sizeof out->how, "%d threads: reading %zu MiB, best of %d; f32 %s, "
			 "best of %d; %.2f s", threads, bytes >> 20, READ_PASSES, how, FMA_PASSES,
			 (double)(ggmlviz__monotonic_ns() - t0) / 1e9);
	}
	ggmlviz__pages_free(data);
	ggmlviz__pages_free(w);
	return rc;
}
