/*
 * op-self: the library's own time inside a traced llama.cpp run, call by
 * call, on each thread (bench/op-self.sh links it into llama-bench).
 *
 * llama-bench is linked again with -Wl,--wrap for each public function
 * that GGML's edits and the adapters call (the list below): each call
 * goes through __wrap_NAME, which reads the time-stamp counter before and
 * after __real_NAME and adds the difference to its thread's row. Calls
 * made from inside a wrapped call are not timed again (the outer one holds
 * them). What no counter reads costs the library nothing here: the times
 * are of the calls as the decode makes them, its caches as the weights
 * leave them, on the threads that compute, which no A/B of tokens a second
 * on a noisy machine can resolve to tens of ns an op.
 *
 * The step's own code in the tools' decode wrapper is timed too, as
 * "step-glue" (the end of this file). Not in it: the callbacks' own code
 * around their calls into the library, the scheduler's and the CPU
 * backend's few lines of edit, and what the library's stores take from
 * GGML's own caches (the tokens' A/B holds those; callgrind counts the
 * first two).
 *
 * At the exit, one line a thread to the file OP_SELF_OUT (stderr if
 * unset): "thread ITH calls N ns T" and, per function, "NAME CALLS NS",
 * with T less the counter's own cost (two reads with nothing between,
 * their median measured at the start, times the calls). Each read is
 * fenced (lfence before and after): the call's time is its own, not
 * the end of the work before it. A call of 50 us or more is counted
 * apart and not timed: the thread was preempted in it (a decode's own
 * call of the library takes a few us at most), and one such call would
 * add tens of ns to every op of a run. x86-64 only.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

#define THREADS 256
#define FUNCS 32

static const char *names[FUNCS];
static unsigned n_names;

struct row {
	_Alignas(64) uint64_t cycles[FUNCS], calls[FUNCS], preempted[FUNCS];
	uint64_t timed, counted; /* every timed call's cycles and count: what a step's time holds of them */
	int ith; /* the CPU backend's thread index (first share), -1 if none */
};

static struct row rows[THREADS];
static atomic_uint n_rows;
static _Thread_local struct row *tls_row;
static _Thread_local int tls_depth;
static uint64_t null_cycles, start_tsc, start_ns;
static uint64_t long_call = UINT64_MAX; /* 50 us of counts, once calibrated */

/*
 * The counter, read in order: lfence before, so that the work before a
 * call ends before its time starts (rdtsc alone may run ahead of it), and
 * after, so that the call's work does not start first.
 */
static inline uint64_t counter(void)
{
	uint64_t t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct row *row(void)
{
	unsigned i;

	if (tls_row)
		return tls_row;
	i = atomic_fetch_add(&n_rows, 1);
	tls_row = &rows[i < THREADS ? i : THREADS - 1];
	tls_row->ith = -1;
	return tls_row;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The counter's cost within a timed call: two reads with nothing between, the median. */
__attribute__((constructor)) static void calibrate(void)
{
	static uint64_t d[100001];

	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
		uint64_t t0 = counter();

		d[i] = counter() - t0;
	}
	qsort(d, sizeof d / sizeof d[0], sizeof d[0], cmp_u64);
	null_cycles = d[sizeof d / sizeof d[0] / 2];
	start_ns = now_ns();
	start_tsc = __rdtsc();
	while (now_ns() - start_ns < 10000000)
		;
	long_call = (__rdtsc() - start_tsc) / 200; /* 10 ms / 200 */
}

__attribute__((destructor)) static void report(void)
{
	double per_ns = (double)(__rdtsc() - start_tsc) / (double)(now_ns() - start_ns);
	const char *path = getenv("OP_SELF_OUT");
	FILE *f = path ? fopen(path, "w") : stderr;
	unsigned n = atomic_load(&n_rows);

	if (!f)
		return;
	fprintf(f, "op-self: %.4f counts a ns; %llu counts a timed nothing\n", per_ns,
		(unsigned long long)null_cycles);
	for (unsigned t = 0; t < n && t < THREADS; t++) {
		uint64_t calls = 0, cycles = 0, preempted = 0;

		for (unsigned k = 0; k < n_names; k++) {
			calls += rows[t].calls[k];
			preempted += rows[t].preempted[k];
			cycles += rows[t].cycles[k] - (rows[t].calls[k] - rows[t].preempted[k]) * null_cycles;
		}
		fprintf(f, "thread %d calls %llu ns %.0f long %llu\n", rows[t].ith,
			(unsigned long long)calls, (double)cycles / per_ns, (unsigned long long)preempted);
		for (unsigned k = 0; k < n_names; k++)
			if (rows[t].calls[k])
				fprintf(f, "  %s %llu %.0f\n", names[k],
					(unsigned long long)rows[t].calls[k],
					(double)(rows[t].cycles[k] -
						 (rows[t].calls[k] - rows[t].preempted[k]) * null_cycles) /
						per_ns);
	}
	if (f != stderr)
		fclose(f);
}

/* The index of a function's name, given once at its first call. */
static unsigned index_of(const char *name, atomic_uint *slot)
{
	static atomic_flag lock = ATOMIC_FLAG_INIT;
	unsigned k;

	while (atomic_flag_test_and_set(&lock))
		;
	if (!atomic_load(slot)) {
		names[n_names] = name;
		atomic_store(slot, ++n_names);
	}
	k = atomic_load(slot) - 1;
	atomic_flag_clear(&lock);
	return k;
}

/* The index of a function's name: its slot's, once its first call has given it. */
static inline unsigned slot_index(const char *name, atomic_uint *slot)
{
	unsigned s = atomic_load_explicit(slot, memory_order_acquire);

	return s ? s - 1 : index_of(name, slot);
}

/* A call of function k that took d counts: timed, or counted apart as preempted. */
static inline void add_call(struct row *r, unsigned k, uint64_t d)
{
	r->calls[k]++;
	if (d < long_call) {
		r->cycles[k] += d;
		r->timed += d;
		r->counted++;
	} else {
		r->preempted[k]++;
	}
}

#define TIMED(name, call)                                                              \
	static atomic_uint slot_##name;                                                \
	struct row *r = row();                                                         \
	unsigned k = slot_index(#name, &slot_##name);                                  \
	uint64_t t0 = counter();                                                       \
	call;                                                                          \
	add_call(r, k, counter() - t0)

#define WRAP_VOID(name, params, args)                                                  \
	void __real_##name params;                                                     \
	void __wrap_##name params;                                                     \
	void __wrap_##name params                                                      \
	{                                                                              \
		if (tls_depth) {                                                       \
			__real_##name args;                                            \
			return;                                                        \
		}                                                                      \
		tls_depth = 1;                                                         \
		{                                                                      \
			TIMED(name, __real_##name args);                               \
		}                                                                      \
		tls_depth = 0;                                                         \
	}

#define WRAP(type, name, params, args)                                                 \
	type __real_##name params;                                                     \
	type __wrap_##name params;                                                     \
	type __wrap_##name params                                                      \
	{                                                                              \
		type ret;                                                              \
		if (tls_depth)                                                         \
			return __real_##name args;                                     \
		tls_depth = 1;                                                         \
		{                                                                      \
			TIMED(name, ret = __real_##name args);                         \
		}                                                                      \
		tls_depth = 0;                                                         \
		return ret;                                                            \
	}

/* The CPU backend's calls, on every worker (ggmlviz-cpu.h); a share's begin names its row's worker. */
#define WRAP_SHARE_BEGIN(name)                                                         \
	void __real_##name(const void *pool, int ith, int node);                       \
	void __wrap_##name(const void *pool, int ith, int node);                       \
	void __wrap_##name(const void *pool, int ith, int node)                        \
	{                                                                              \
		if (tls_depth) {                                                       \
			__real_##name(pool, ith, node);                                \
			return;                                                        \
		}                                                                      \
		row()->ith = ith;                                                      \
		tls_depth = 1;                                                         \
		{                                                                      \
			TIMED(name, __real_##name(pool, ith, node));                   \
		}                                                                      \
		tls_depth = 0;                                                         \
	}
WRAP_SHARE_BEGIN(ggmlviz_cpu_share_begin)
WRAP_SHARE_BEGIN(ggmlviz_cpu_share_next)
WRAP_VOID(ggmlviz_cpu_share_end, (const void *pool, int ith, int node), (pool, ith, node))
WRAP(int, ggmlviz_cpu_graph_done,
     (const void *pool, int ith, int nth, const void *const *nodes, int n_nodes,
      ggmlviz_node_op_fn op_of),
     (pool, ith, nth, nodes, n_nodes, op_of))

/* The scheduler's (ggmlviz-sched.h). */
WRAP(int, ggmlviz_nodes_ask_rest, (const void *user, const void *const *nodes, int from, int n),
     (user, nodes, from, n))
WRAP_VOID(ggmlviz_nodes_split, (uint64_t id, const void *backend), (id, backend))

/* The GGML and llama adapters' (ggml-impl.h, llama-impl.h). */
WRAP(int, ggmlviz_nodes_ask,
     (const void *node, const void *backend, ggmlviz_node_describe_fn describe, void *user),
     (node, backend, describe, user))
WRAP(int, ggmlviz_nodes_ask_again, (const void *node, const void *user), (node, user))
WRAP_VOID(ggmlviz_nodes_ask_always, (void), ())
WRAP_VOID(ggmlviz_nodes_tick, (void), ())
WRAP(int, ggmlviz_nodes_flush, (void), ())
WRAP_VOID(ggmlviz_graph_begin,
	  (const void *graph, uint32_t n_nodes, uint32_t n_threads, const void *backend),
	  (graph, n_nodes, n_threads, backend))
WRAP_VOID(ggmlviz_graph_end,
	  (const void *graph, uint32_t n_nodes, uint32_t n_threads, const void *backend),
	  (graph, n_nodes, n_threads, backend))
WRAP_VOID(ggmlviz_step_begin,
	  (const void *ctx, uint32_t n_tokens, uint32_t n_outputs, uint32_t phase, const char *label),
	  (ctx, n_tokens, n_outputs, phase, label))
WRAP_VOID(ggmlviz_step_end,
	  (const void *ctx, uint32_t n_tokens, uint32_t n_outputs, uint32_t phase, int32_t status,
	   const char *label),
	  (ctx, n_tokens, n_outputs, phase, status, label))
WRAP_VOID(ggmlviz_step_seq,
	  (const void *ctx, int32_t seq_id, uint32_t n_tokens, uint32_t n_outputs,
	   uint32_t context_tokens, uint32_t context_cells),
	  (ctx, seq_id, n_tokens, n_outputs, context_tokens, context_cells))
WRAP_VOID(ggmlviz_op_begin,
	  (const void *tensor, uint32_t op_type, uint64_t op_size, const void *backend,
	   const char *label),
	  (tensor, op_type, op_size, backend, label))
WRAP_VOID(ggmlviz_op_end,
	  (const void *tensor, uint32_t op_type, uint64_t op_size, const void *backend,
	   const char *label),
	  (tensor, op_type, op_size, backend, label))
WRAP_VOID(ggmlviz_op_info,
	  (const void *tensor, const int64_t ne[4], uint64_t flops, const char *type_name),
	  (tensor, ne, flops, type_name))
WRAP_VOID(ggmlviz_op_node,
	  (const void *tensor, int32_t layer, uint8_t method, uint8_t flags, const void *src0,
	   const void *src1),
	  (tensor, layer, method, flags, src0, src1))
WRAP_VOID(ggmlviz_op_bytes, (const void *tensor, uint64_t bytes_read, uint64_t bytes_written),
	  (tensor, bytes_read, bytes_written))
WRAP_VOID(ggmlviz_counter, (const char *name, int64_t value), (name, value))
WRAP(int, ggmlviz_tensor_alloc_once, (const void *ptr, uint64_t size, const char *label),
     (ptr, size, label))
WRAP(int, ggmlviz_tensor_free_once, (const void *ptr, uint64_t size, const char *label),
     (ptr, size, label))
WRAP(int32_t, ggmlviz_layer_of_name, (const char *name, size_t len), (name, len))

/*
 * The adapters' own code of a step, which no wrap of a library call
 * holds (compiled where op-self.sh finds llama.cpp's llama.h beside the
 * tools' build, and says so with -DOP_SELF_LLAMA): the tools' decode
 * wrapper (ggmlviz_tools_decode(), contrib/llama.cpp, with llama.h's
 * ggmlviz_llama__step() inlined in it) timed whole, less the decode it
 * makes (llama_decode(), timed by its wrap below) and less the timed
 * library calls it makes outside that decode, as "step-glue". The
 * counter's reads around the decode and around each of those calls are
 * taken out as a timed nothing each. What the wrapper calls that no wrap
 * times (ggmlviz_is_active(), llama.cpp's queries of its context) is in
 * it, and so are op-self's own few lines around each timed call.
 */
#ifdef OP_SELF_LLAMA
#include <llama.h>

static _Thread_local struct {
	uint64_t cycles, timed, counted; /* the decode's, and the library's calls' in it */
} tls_decode;

int32_t __real_llama_decode(struct llama_context *ctx, struct llama_batch batch);
int32_t __wrap_llama_decode(struct llama_context *ctx, struct llama_batch batch);
/* Never taken for a preemption (a decode takes a ms): subtracted whole from its step's time. */
int32_t __wrap_llama_decode(struct llama_context *ctx, struct llama_batch batch)
{
	struct row *r = row();
	uint64_t timed = r->timed, counted = r->counted, t0 = counter();
	int32_t rc = __real_llama_decode(ctx, batch);

	tls_decode.cycles += counter() - t0;
	tls_decode.timed += r->timed - timed;
	tls_decode.counted += r->counted - counted;
	return rc;
}

/* What d, the step's time, held of other things: the decode, and the library's calls outside it. */
static uint64_t step_not_glue(const struct row *r, uint64_t timed, uint64_t counted)
{
	uint64_t outside_timed = r->timed - timed - tls_decode.timed;
	uint64_t outside_counted = r->counted - counted - tls_decode.counted;

	return tls_decode.cycles + outside_timed + (outside_counted + 1) * null_cycles;
}

int32_t __real_ggmlviz_tools_decode(const char *site, struct llama_context *ctx,
				    struct llama_batch batch);
int32_t __wrap_ggmlviz_tools_decode(const char *site, struct llama_context *ctx,
				    struct llama_batch batch);
int32_t __wrap_ggmlviz_tools_decode(const char *site, struct llama_context *ctx,
				    struct llama_batch batch)
{
	static atomic_uint slot_glue;
	struct row *r = row();
	unsigned k = slot_index("step-glue", &slot_glue);
	uint64_t timed = r->timed, counted = r->counted, t0, d, other;
	int32_t rc;

	tls_decode.cycles = tls_decode.timed = tls_decode.counted = 0;
	t0 = counter();
	rc = __real_ggmlviz_tools_decode(site, ctx, batch);
	d = counter() - t0;
	other = step_not_glue(r, timed, counted);
	add_call(r, k, d > other ? d - other : 0); /* some 850 ns a step traced: never near 0 */
	return rc;
}
#endif
