/*
 * bench_ggml: what tracing a real GGML graph costs, at the thread counts
 * users run (1, 2 and every core).
 *
 * The transformer of examples/ggml_transformer is computed through a
 * scheduler on GGML's CPU backend in three ways, interleaved round by round
 * (the order rotating) so that drift on a shared machine hits them alike,
 * within one tracing session (a program traces a session of many graphs;
 * a session's first graph also pays for its ring's first touch):
 *   plain     no callbacks: GGML computes each split in one go;
 *   callback  a do-nothing eval callback answering "not wanted" and a
 *             do-nothing abort callback: what any tool installing
 *             callbacks costs GGML;
 *   traced    ggmlviz_ggml_trace_sched() and ggmlviz_ggml_sched_graph_compute()
 *             tracing into a file, op timing as by default (every node timed
 *             from the backend's ticks);
 * and, in a session of its own, for comparison:
 *   sync      the same with op timing "sync" (every node computed on its own
 *             and the backend synchronized after it).
 * For each thread count it prints the median of the per-round ratios
 * traced / plain and traced / callback with their spread (target: at least
 * 0.98, i.e. under 2% slower; the README's "under 1%" is the median), the
 * sum of each graph's op times against the graph's own time, and whether
 * every computing node was timed (fused pairs once).
 *
 *     bench_ggml [ROUNDS [LAYERS [THREADS]]]   (50 rounds, 4 layers, 1, 2, all)
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>
#include <ggmlviz/reader.h>

#include "bench.h"
#include "../examples/transformer.h"

#ifndef GGMLVIZ_GGML_LIBDIR
#define GGMLVIZ_GGML_LIBDIR NULL
#endif

enum mode { PLAIN, CALLBACK, TRACED, SYNC, N_MODES };

static const char *const mode_names[N_MODES] = { "no callbacks", "do-nothing callbacks",
						  "traced (default)", "traced (sync)" };

struct bench {
	ggml_backend_t backend;
	ggml_backend_sched_t sched;
	struct transformer m;
	int threads;
	double *ns[N_MODES];
	char path[256];
};

static bool nothing_eval(struct ggml_tensor *t, bool ask, void *user_data)
{
	(void)t;
	(void)user_data;
	return !ask; /* not wanted; a hand-over never comes */
}

static bool nothing_abort(void *data)
{
	(void)data;
	return false;
}

/* ggml_backend_cpu_set_abort_callback(), through the registry: the CPU
 * backend is loaded at run time, not linked. */
static void set_cpu_abort(ggml_backend_t cpu, ggml_abort_callback cb, void *data)
{
	ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(cpu));
	void *proc = ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback");
	ggml_backend_set_abort_callback_t set;

	memcpy(&set, &proc, sizeof set);
	if (set)
		set(cpu, cb, data);
}

static uint64_t last_compute_ns;
static enum ggml_status (*inner_compute)(ggml_backend_sched_t, struct ggml_cgraph *);

/* Times the compute call only: allocating and setting the inputs are the
 * same in every mode. */
static enum ggml_status timed_compute(ggml_backend_sched_t s, struct ggml_cgraph *g)
{
	uint64_t t0 = bench_now_ns();
	enum ggml_status st = inner_compute(s, g);

	last_compute_ns = bench_now_ns() - t0;
	return st;
}

static void start_tracing(struct bench *b, int op_timing)
{
	struct ggmlviz_config cfg;

	ggmlviz_config_init(&cfg);
	cfg.output = b->path;
	cfg.op_timing = op_timing;
	if (ggmlviz_start(&cfg) < 0) {
		fprintf(stderr, "bench_ggml: cannot trace to %s\n", b->path);
		exit(1);
	}
}

/* Puts the scheduler in mode (tracing itself is started by the caller). */
static void set_mode(struct bench *b, enum mode mode)
{
	ggmlviz_ggml_untrace_sched(b->sched);
	set_cpu_abort(b->backend, NULL, NULL);
	inner_compute = ggml_backend_sched_graph_compute;
	if (mode == CALLBACK) {
		ggml_backend_sched_set_eval_callback(b->sched, nothing_eval, NULL);
		set_cpu_abort(b->backend, nothing_abort, NULL);
	} else if (mode == TRACED || mode == SYNC) {
		ggmlviz_ggml_trace_sched(b->sched, b->threads, NULL, NULL);
		inner_compute = ggmlviz_ggml_sched_graph_compute;
	}
}

static int run_once(struct bench *b, enum mode mode, int round)
{
	enum ggml_status st;

	set_mode(b, mode);
	st = transformer_step(&b->m, b->sched, (uint32_t)round, timed_compute);
	if (st != GGML_STATUS_SUCCESS) {
		fprintf(stderr, "bench_ggml: the graph failed (%s)\n", mode_names[mode]);
		return -1;
	}
	b->ns[mode][round] = (double)last_compute_ns;
	return 0;
}

/* Rounds of plain, callback and traced in one session; then sync in its own. */
static int run_rounds(struct bench *b, int rounds)
{
	int rc = 0;

	start_tracing(b, GGMLVIZ_OP_TIMING_AUTO);
	for (int r = 0; r < rounds && rc == 0; r++)
		for (int i = 0; i < SYNC && rc == 0; i++)
			rc = run_once(b, (enum mode)((r + i) % SYNC), r);
	ggmlviz_stop();
	start_tracing(b, GGMLVIZ_OP_TIMING_SYNC);
	for (int r = 0; r < rounds && rc == 0; r++)
		rc = run_once(b, SYNC, r);
	ggmlviz_stop();
	return rc;
}

/* What one traced graph holds: its op times against its own, and its ticks. */
struct coverage {
	double op_share;              /* sum of op times / graph time */
	uint64_t ops, ticks, expected; /* op timings; the splits' ticks */
};

static struct coverage read_coverage(const char *path)
{
	struct coverage c = { 0, 0, 0, 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	uint64_t op_ns = 0, graph_ns = 0;

	if (ggmlviz_reader_open(path, &r) < 0)
		return c;
	while (ggmlviz_reader_next_timing(r, &t) == 1) {
		if (t.kind == GGMLVIZ_TIMING_OP)
			op_ns += t.duration_ns, c.ops++;
		else if (t.kind == GGMLVIZ_TIMING_GRAPH)
			graph_ns += t.duration_ns;
		else if (t.kind == GGMLVIZ_TIMING_SPLIT)
			c.ticks += t.ticks, c.expected += t.ticks_expected;
	}
	ggmlviz_reader_close(r);
	c.op_share = graph_ns ? (double)op_ns / (double)graph_ns : 0;
	return c;
}

static void print_ratio(const char *what, double *num, double *den, int rounds)
{
	double *v = calloc((size_t)rounds, sizeof *v);
	struct bench_spread s;

	if (!v)
		return;
	for (int r = 0; r < rounds; r++)
		v[r] = den[r] / num[r]; /* speed ratio: time of the baseline over time traced */
	s = bench_spread(v, (size_t)rounds);
	printf("    %-34s %.3f  (rounds: %.3f to %.3f)\n", what, s.median, s.min, s.max);
	free(v);
}

/*
 * The adapter's own cost per graph: what GGML calls for one graph (an ask
 * per node, a tick per computed node, the flush at its end), in a loop
 * without GGML computing anything; median of 9 measures of 50 graphs.
 * graph_id: 0, as a GGML without libggmlviz's edit; else given before each
 * graph's asks, as a GGML built with it gives its split's id
 * (ggmlviz_nodes_graph_id(3)): the same graph each time, described once.
 */
static int adapter_graphs = 50; /* BENCH_ADAPTER_GRAPHS=N for a longer run (profiling) */

static double adapter_us_per_graph(struct bench *b, uint64_t graph_id)
{
	const struct ggmlviz_ggml__slot *slot = ggmlviz_ggml__find(b->sched);
	struct ggml_cgraph *g = b->m.graph;
	double s[9];

	for (int k = 0; k < 9; k++) {
		uint64_t t0 = bench_now_ns();
		for (int r = 0; r < adapter_graphs; r++) {
			if (graph_id)
				ggmlviz_nodes_graph_id(graph_id);
			for (int i = 0; i < ggml_graph_n_nodes(g); i++)
				ggmlviz_ggml_eval_cb(ggml_graph_node(g, i), true, b->sched);
			for (int i = 0; i < ggml_graph_n_nodes(g); i++)
				if (ggml_graph_node(g, i)->op != GGML_OP_NONE &&
				    ggmlviz_ggml_node_computes(ggml_graph_node(g, i)))
					ggmlviz_ggml_abort_cb((void *)(uintptr_t)slot);
			ggmlviz_nodes_flush();
		}
		s[k] = (double)(bench_now_ns() - t0) / adapter_graphs / 1e3;
	}
	return bench_median(s, 9);
}

static void report(struct bench *b, int rounds)
{
	struct coverage c;
	int computing = 0, nodes;
	double us;

	for (int i = 0; i < ggml_graph_n_nodes(b->m.graph); i++)
		computing += ggmlviz_ggml_node_computes(ggml_graph_node(b->m.graph, i));
	printf("  %d thread(s): median per graph", b->threads);
	for (int i = 0; i < N_MODES; i++)
		printf("%s %s %.1f us", i ? "," : "", mode_names[i],
		       bench_median(b->ns[i], (size_t)rounds) / 1e3);
	printf("\n    speed traced / untraced, median of per-round ratios (target >= 0.98):\n");
	print_ratio("default / no callbacks", b->ns[TRACED], b->ns[PLAIN], rounds);
	print_ratio("default / do-nothing callbacks", b->ns[TRACED], b->ns[CALLBACK], rounds);
	print_ratio("sync / no callbacks", b->ns[SYNC], b->ns[PLAIN], rounds);
	/* one more graph in a session of its own, read back */
	start_tracing(b, GGMLVIZ_OP_TIMING_AUTO);
	set_mode(b, TRACED);
	transformer_step(&b->m, b->sched, 0, timed_compute);
	ggmlviz_stop();
	c = read_coverage(b->path);
	printf("    ops cover %.1f%% of their graph's time; %llu op timings for %d computing "
	       "nodes (fused pairs count once); ticks %llu of %llu expected\n",
	       100.0 * c.op_share, (unsigned long long)c.ops, computing,
	       (unsigned long long)c.ticks, (unsigned long long)c.expected);
	start_tracing(b, GGMLVIZ_OP_TIMING_AUTO);
	set_mode(b, TRACED);
	us = adapter_us_per_graph(b, 0);
	nodes = ggml_graph_n_nodes(b->m.graph);
	/* also in clock_gettime calls, measured in this run: a figure other machines can compare */
	printf("    the adapter's own cost: %.1f us per graph of %d nodes (asks, ticks, records),"
	       " without GGML: %.0f ns a node, %.1fx clock_gettime\n", us, nodes,
	       us * 1e3 / nodes, us * 1e3 / nodes / bench_clock_cost_ns());
	us = adapter_us_per_graph(b, 1); /* a GGML with the edit: the graph's id given */
	printf("    the same, the graph's id given (GGML built with libggmlviz's edit, its"
	       " descriptions kept): %.1f us, %.0f ns a node, %.1fx clock_gettime\n", us,
	       us * 1e3 / nodes, us * 1e3 / nodes / bench_clock_cost_ns());
	ggmlviz_stop();
}

static int parse_arg(int argc, char **argv, int i, int def, int max)
{
	char *end;
	long v;

	if (argc <= i)
		return def;
	v = strtol(argv[i], &end, 10);
	if (*end || v < 1 || v > max) {
		fprintf(stderr, "bench_ggml: argument %d: '%s' is not a number from 1 to %d\n", i,
			argv[i], max);
		exit(2);
	}
	return (int)v;
}

static int setup(struct bench *b, const struct transformer_params *p, int rounds)
{
	const char *dir = getenv("TMPDIR");

	snprintf(b->path, sizeof b->path, "%s/bench_ggml-%d.ggmlviz", dir ? dir : "/tmp",
		 (int)getpid());
	b->backend = transformer_cpu_backend(GGMLVIZ_GGML_LIBDIR, b->threads);
	if (!b->backend) {
		fprintf(stderr, "bench_ggml: no GGML CPU backend (libggml-cpu-*.so) in %s\n",
			GGMLVIZ_GGML_LIBDIR ? GGMLVIZ_GGML_LIBDIR : "the program's folder");
		return -1;
	}
	if (transformer_init(&b->m, p, b->backend) < 0)
		return -1;
	b->sched = ggml_backend_sched_new(&b->backend, NULL, 1, transformer_graph_size(p), false,
					  false);
	for (int i = 0; i < N_MODES; i++)
		if (!(b->ns[i] = calloc((size_t)rounds, sizeof(double))))
			return -1;
	return b->sched ? 0 : -1;
}

static void teardown(struct bench *b)
{
	if (b->sched) {
		ggmlviz_ggml_untrace_sched(b->sched);
		ggml_backend_sched_free(b->sched);
	}
	transformer_free(&b->m);
	if (b->backend)
		ggml_backend_free(b->backend);
	for (int i = 0; i < N_MODES; i++)
		free(b->ns[i]);
	unlink(b->path);
}

static int bench_threads(const struct transformer_params *p, int threads, int rounds)
{
	struct bench b;
	int rc;

	memset(&b, 0, sizeof b);
	b.threads = threads;
	rc = setup(&b, p, rounds);
	if (rc == 0)
		rc = run_rounds(&b, 3 < rounds ? 3 : rounds); /* warm up */
	if (rc == 0)
		rc = run_rounds(&b, rounds);
	if (rc == 0)
		report(&b, rounds);
	teardown(&b);
	return rc;
}

int main(int argc, char **argv)
{
	struct transformer_params p;
	int rounds = parse_arg(argc, argv, 1, 50, 1000000), counts[3], n;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	transformer_params_init(&p);
	p.n_layer = parse_arg(argc, argv, 2, 4, 256);
	if (getenv("BENCH_ADAPTER_GRAPHS"))
		adapter_graphs = atoi(getenv("BENCH_ADAPTER_GRAPHS")) > 0 ?
					 atoi(getenv("BENCH_ADAPTER_GRAPHS")) : 50;
	n = bench_thread_counts(counts, cores > 0 ? (int)cores : 1);
	if (argc > 3)
		counts[0] = parse_arg(argc, argv, 3, 1, 512), n = 1;
	printf("bench_ggml: transformer of %d layers, %d tokens, %d wide, on GGML's CPU backend; "
	       "%d rounds of each mode, interleaved; clock_gettime %.1f ns\n", p.n_layer,
	       p.n_tokens, p.n_embd, rounds, bench_clock_cost_ns());
	for (int i = 0; i < n; i++)
		if (bench_threads(&p, counts[i], rounds) < 0)
			return 1;
	return 0;
}
