/*
 * bench_opcost: what recording one op costs, part by part, on the calls a
 * GGML built with libggmlviz's edit makes for every node of a graph that
 * llama.cpp computes again and again (the same split, graph id and nodes:
 * its descriptions kept, its records packed), with a clock_gettime timed
 * alongside in the same run (a shared machine's noise moves both):
 *
 *   ask      the split's nodes asked about, as the edited scheduler and
 *            the GGML adapter ask: the first through
 *            ggmlviz_nodes_ask_again(), and ggmlviz_nodes_ask() where it
 *            says 0, then the rest at once (ggmlviz_nodes_ask_rest()), and
 *            one by one from where that stopped;
 *   tick     ggmlviz_nodes_tick(): the CPU backend's call after a node;
 *   share    ggmlviz_cpu_share_begin() (_next() at one thread) and _end()
 *            around a worker's share;
 *   done     ggmlviz_cpu_graph_done(): the shares written, thread 0's hand-over;
 *   close    ggmlviz_nodes_flush(): the run recorded (DESC_SET, its ops);
 *
 * each per op, with THREADS - 1 worker threads beside thread 0 (each its
 * shares, its graph_done, a spin barrier after every node, as GGML's CPU
 * backend meets), and the whole per op against the same loop untraced.
 * Then the same with GGML_VIZ_DESCRIBE_ONCE=0, every op and share a
 * record of its own (as before the packed records): the records' share.
 * The writer drains a file meanwhile, as in a traced run.
 *
 * With EVICT (MiB), each thread reads that much memory of its own before
 * every graph, traced or not, as a model's weights stream through the
 * caches between two tokens: the tracer's state (the run, the kept run,
 * the slots, the rings) is then as cold as a real decode leaves it, and
 * what its misses cost shows in the parts and the whole.
 *
 * With THREADS, the graph's threads, thread 0 included (default 2): what
 * grows with them on thread 0 (the hand-over reads every worker's stamps)
 * shows in its parts. Past the machine's cores, every thread yields as it
 * waits (a spinning waiter would hold the core of the thread it waits
 * for): the parts are thread 0's calls, timed inside them, still; the
 * workers' stamps are then in another core's cache or this one's.
 *
 * With WORK (ns), each thread's share of a node lasts that long (a wait on
 * the clock), traced or not: a node's threads then meet at its barrier
 * as a decode's do, their shares apart by more than the tens of ns by
 * which two cores' counters may disagree. The file's bytes an op say
 * whether the runs packed (8 an op and 8 a worker's share).
 *
 * With AFTER 1, thread 0 calls its graph_done once every worker's has
 * returned: what it pays where each worker has a core of its own and
 * ends its graph_done alongside (each folds its slice of the graph's
 * spans there, lib/tracer/producer/fold.h), shown on a machine of fewer
 * cores than threads, whose yielding workers would otherwise not have
 * run yet. Its part is then thread 0's call alone.
 *
 *     bench_opcost [NODES [GRAPHS [ROUNDS [EVICT [THREADS [WORK [AFTER]]]]]]]
 *         (141 nodes: the quick start's model's token; 400 graphs; 9
 *         rounds; 0 MiB: nothing evicted; 2 threads, at most 64; 0 ns;
 *         0: every thread's graph_done at once)
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

#include "bench.h"

#define MAX_NODES 4096
#define MAX_THREADS 64
#define PARTS 5

enum part { ASK, TICK, SHARE, DONE, CLOSE };
static const char *const part_name[PARTS] = { "ask", "tick", "share (begin + end)",
					      "graph done (shares, hand-over)",
					      "run recorded (DESC_SET, ops)" };

struct node {
	uint32_t op;
	char name[40];
};

static struct node nodes[MAX_NODES];
static const void *node_ptrs[MAX_NODES];
static int n_nodes = 141;
static char backend, pool;

/* A node's description, as the GGML adapter gives one: a computing node of one kept graph. */
static void describe(void *user, const void *const *ns, size_t n, size_t i,
		     struct ggmlviz_node_desc *out)
{
	const struct node *nd = ns[i];

	(void)user, (void)n;
	out->op_type = nd->op;
	out->op_name = nd->op == 3 ? "MUL_MAT" : "ADD";
	out->name = nd->name;
	out->ticks = 1;
	out->layer = (int32_t)(i / 17);
	out->size = 4096;
	out->ne[0] = 512, out->ne[1] = 1, out->ne[2] = 1, out->ne[3] = 1;
	out->flops = 1024;
	out->type_name = "f32";
}

static uint32_t op_of(const void *node)
{
	return ((const struct node *)node)->op;
}

static int nth = 2;        /* the graph's threads */
static uint64_t work_ns;   /* a share's own time */
static int oversubscribed; /* more threads than cores: waiters yield */
static int done_after;     /* thread 0's graph_done after every worker's (AFTER) */

/* The CPUs this process may run on (its affinity), at least 1. */
static int usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return 1;
}

/* A waiter's turn: the core given up where the thread it waits for may need it. */
static inline void wait_turn(void)
{
	if (oversubscribed)
		sched_yield();
}

/* A share's work: WORK ns on the clock. */
static void share_work(void)
{
	uint64_t until;

	if (!work_ns)
		return;
	until = bench_now_ns() + work_ns;
	while (bench_now_ns() < until)
		;
}

/* A spin barrier of the graph's threads, as GGML's CPU backend meets after every node. */
static _Atomic unsigned arrived, passed;

static void barrier(void)
{
	unsigned gen = atomic_load_explicit(&passed, memory_order_relaxed);

	if (atomic_fetch_add(&arrived, 1) == (unsigned)nth - 1) {
		atomic_store(&arrived, 0);
		atomic_fetch_add(&passed, 1);
		return;
	}
	while (atomic_load_explicit(&passed, memory_order_acquire) == gen)
		wait_turn();
}

static _Atomic int graph_go, evict_go, worker_quit, traced_now;
static const uint8_t *evict_buf[MAX_THREADS]; /* each thread's memory to read before a graph */
static size_t evict_bytes;
static volatile uint64_t evict_sink;

/* Thread t reads its EVICT MiB, a line at a time: the caches hold that memory after. */
static void evict(int t)
{
	uint64_t sum = 0;

	for (size_t k = 0; k < evict_bytes; k += 64)
		sum += evict_buf[t][k];
	evict_sink += sum;
}

/* A worker of the graph (arg: its ith): its share of every node, the barrier, its graph_done. */
static void *worker(void *arg)
{
	const int ith = (int)(intptr_t)arg;
	int seen = 0, seen_evict = 0;

	for (;;) {
		int go;

		while ((go = atomic_load(&graph_go)) == seen && atomic_load(&evict_go) == seen_evict &&
		       !atomic_load(&worker_quit))
			wait_turn();
		if (atomic_load(&worker_quit))
			return NULL;
		if (atomic_load(&evict_go) != seen_evict) { /* before the graph: every thread evicts */
			seen_evict = atomic_load(&evict_go);
			evict(ith);
			barrier();
			continue;
		}
		seen = go;
		for (int i = 0; i < n_nodes; i++) {
			if (atomic_load_explicit(&traced_now, memory_order_relaxed))
				ggmlviz_cpu_share_begin(&pool, ith, i);
			share_work();
			if (atomic_load_explicit(&traced_now, memory_order_relaxed))
				ggmlviz_cpu_share_end(&pool, ith, i);
			barrier();
		}
		if (atomic_load_explicit(&traced_now, memory_order_relaxed))
			ggmlviz_cpu_graph_done(&pool, ith, nth, node_ptrs, n_nodes, op_of);
		barrier();
	}
}

/* One graph on thread 0, traced or not; each part's ns added to t[]. */
static void graph(int traced, double t[PARTS + 1])
{
	uint64_t t0, a;

	if (evict_bytes) {
		atomic_fetch_add(&evict_go, 1);
		evict(0);
		barrier(); /* every thread's cache as a decode's weights leave it */
	}
	t0 = bench_now_ns();
	atomic_fetch_add(&graph_go, 1);
	if (traced) {
		ggmlviz_nodes_split(7, &backend);
		for (int i = 0; i < n_nodes; i++) {
			if (!ggmlviz_nodes_ask_again(node_ptrs[i], NULL))
				ggmlviz_nodes_ask(node_ptrs[i], &backend, describe, NULL);
			if (i == 0) /* the scheduler's edit: the rest at once, where it can be */
				i = ggmlviz_nodes_ask_rest(NULL, node_ptrs, 1, n_nodes) - 1;
		}
	}
	a = bench_now_ns();
	t[ASK] += (double)(a - t0);
	for (int i = 0; i < n_nodes; i++) {
		uint64_t s0 = bench_now_ns(), s1;

		if (traced && nth == 1) /* no barrier between shares: GGML's edit begins at the end before */
			ggmlviz_cpu_share_next(&pool, 0, i);
		else if (traced)
			ggmlviz_cpu_share_begin(&pool, 0, i);
		s1 = bench_now_ns();
		share_work();
		s0 += bench_now_ns() - s1; /* the share's work is not the tracer's */
		if (traced)
			ggmlviz_cpu_share_end(&pool, 0, i);
		s1 = bench_now_ns();
		if (traced)
			ggmlviz_nodes_tick();
		t[SHARE] += (double)(s1 - s0);
		t[TICK] += (double)(bench_now_ns() - s1);
		barrier();
	}
	if (done_after)
		barrier(); /* every worker's graph_done returned, as on cores of their own */
	a = bench_now_ns();
	if (traced)
		ggmlviz_cpu_graph_done(&pool, 0, nth, node_ptrs, n_nodes, op_of);
	t[DONE] += (double)(bench_now_ns() - a);
	if (!done_after)
		barrier();
	a = bench_now_ns();
	if (traced)
		ggmlviz_nodes_flush();
	t[CLOSE] += (double)(bench_now_ns() - a);
	t[PARTS] += (double)(bench_now_ns() - t0);
}

/* A round of graphs traced or not: each part's ns an op. */
static void round_of(int traced, int graphs, double per_op[PARTS + 1])
{
	double t[PARTS + 1] = { 0 };

	atomic_store(&traced_now, traced);
	for (int g = 0; g < graphs; g++)
		graph(traced, t);
	for (int k = 0; k <= PARTS; k++)
		per_op[k] = t[k] / ((double)graphs * n_nodes);
}

static void start(const char *path, int every)
{
	struct ggmlviz_config cfg;

	ggmlviz_config_init(&cfg);
	cfg.output = path;
	cfg.describe_every = (uint32_t)every;
	cfg.gpu_kernels = 0;
	if (ggmlviz_start(&cfg) < 0) {
		fprintf(stderr, "bench_opcost: cannot trace to %s\n", path);
		exit(1);
	}
}

/* Rounds traced and untraced, alternating; the medians an op, printed. */
static void measure(const char *what, const char *path, int every, int graphs, int rounds)
{
	double traced[64][PARTS + 1], plain[64][PARTS + 1], v[64], clock_ns = bench_clock_cost_ns();
	double ops;
	struct ggmlviz_stats st;

	start(path, every);
	round_of(1, graphs / 4 + 1, traced[0]); /* the slots, rings and kept runs made */
	for (int r = 0; r < rounds; r++) {
		round_of(r % 2, graphs, r % 2 ? traced[r / 2] : plain[r / 2]);
		round_of(!(r % 2), graphs, r % 2 ? plain[r / 2] : traced[r / 2]);
	}
	ggmlviz_stop();
	ggmlviz_get_stats(&st);
	printf("%s (%d threads%s, %d graphs of %d nodes a round, %d rounds, %zu MiB read by each "
	       "thread before each graph, shares of %llu ns; clock_gettime %.1f ns):\n", what, nth,
	       oversubscribed ? ", more than the cores: waiters yield" : "", graphs, n_nodes, rounds,
	       evict_bytes >> 20, (unsigned long long)work_ns, clock_ns);
	for (int k = 0; k < PARTS; k++) {
		for (int r = 0; r < rounds; r++)
			v[r] = traced[r][k] - plain[r][k];
		printf("  %-32s %7.1f ns an op (%.2f clock reads)\n", part_name[k],
		       bench_median(v, (size_t)rounds), bench_median(v, (size_t)rounds) / clock_ns);
	}
	for (int r = 0; r < rounds; r++)
		v[r] = traced[r][PARTS] - plain[r][PARTS];
	printf("  %-32s %7.1f ns an op, the graph's thread (the timers' own reads taken out)\n",
	       "in all", bench_median(v, (size_t)rounds));
	ops = ((double)(graphs / 4 + 1) + (double)graphs * rounds) * n_nodes; /* traced */
	printf("  the file: %.1f bytes an op; the writer: %llu passes, %.1f ns of its CPU an op\n",
	       (double)st.bytes_written / ops, (unsigned long long)st.writer_passes,
	       (double)st.writer_cpu_ns / ops);
}

int main(int argc, char **argv)
{
	int graphs = argc > 2 ? atoi(argv[2]) : 400, rounds = argc > 3 ? atoi(argv[3]) : 9;
	int evict_mib = argc > 4 ? atoi(argv[4]) : 0, work;
	char path[64];
	pthread_t w[MAX_THREADS];

	n_nodes = argc > 1 ? atoi(argv[1]) : 141;
	nth = argc > 5 ? atoi(argv[5]) : 2;
	work = argc > 6 ? atoi(argv[6]) : 0;
	done_after = argc > 7 && atoi(argv[7]) != 0;
	if (n_nodes < 1 || n_nodes > MAX_NODES || graphs < 1 || rounds < 1 || rounds > 64 ||
	    evict_mib < 0 || evict_mib > 4096 || nth < 1 || nth > MAX_THREADS || work < 0 ||
	    work > 1000000) {
		fprintf(stderr, "usage: bench_opcost [NODES (1-%d) [GRAPHS [ROUNDS (1-64) "
			"[EVICT (MiB, 0-4096) [THREADS (1-%d) [WORK (ns, 0-1000000)]]]]]]\n",
			MAX_NODES, MAX_THREADS);
		return 2;
	}
	work_ns = (uint64_t)work;
	oversubscribed = nth > usable_cpus();
	evict_bytes = (size_t)evict_mib << 20;
	for (int t = 0; t < nth && evict_bytes; t++) {
		uint8_t *b = malloc(evict_bytes);

		if (!b) {
			fprintf(stderr, "bench_opcost: no memory for EVICT %d MiB\n", evict_mib);
			return 1;
		}
		memset(b, t + 1, evict_bytes); /* pages made, not zero pages shared */
		evict_buf[t] = b;
	}
	for (int i = 0; i < n_nodes; i++) {
		nodes[i].op = i % 3 ? 3 : 6;
		snprintf(nodes[i].name, sizeof nodes[i].name, "blk.%d.node-%d", i / 17, i);
		node_ptrs[i] = &nodes[i];
	}
	snprintf(path, sizeof path, "/tmp/bench_opcost.%d.ggmlviz", (int)getpid());
	for (int t = 1; t < nth; t++)
		pthread_create(&w[t], NULL, worker, (void *)(intptr_t)t);
	measure("packed (the default)", path, 0, graphs, rounds);
	measure("every op and share a record (GGML_VIZ_DESCRIBE_ONCE=0)", path, 1, graphs, rounds);
	atomic_store(&worker_quit, 1);
	for (int t = 1; t < nth; t++)
		pthread_join(w[t], NULL);
	unlink(path);
	for (int t = 0; t < nth; t++)
		free((void *)evict_buf[t]);
	return 0;
}
