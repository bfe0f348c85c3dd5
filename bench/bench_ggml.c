/*
 * bench_ggml: what tracing a real GGML graph costs.
 *
 * The transformer of examples/ggml_transformer is computed through a
 * scheduler in three ways, interleaved round by round so that drift on a
 * shared machine hits them alike:
 *   plain     no eval callback: GGML computes each split in one go;
 *   callback  an eval callback that wants the same nodes as the adapter and
 *             does nothing else: GGML synchronizes after each of them, a
 *             cost that timing nodes one by one always has (GGML's, not ours);
 *   traced    ggmlviz_ggml_trace_sched() and ggmlviz_ggml_sched_graph_compute()
 *             with tracing active, into a file.
 * The tracer's overhead is traced against callback; the target is under 1%.
 *
 *     bench_ggml [RUNS [LAYERS [THREADS]]]      (200 runs, 4 layers, 1 thread)
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>

#include "bench.h"
#include "../examples/transformer.h"

#ifndef GGMLVIZ_GGML_LIBDIR
#define GGMLVIZ_GGML_LIBDIR NULL
#endif

enum mode { PLAIN, CALLBACK, TRACED, N_MODES };

static const char *const mode_names[N_MODES] = {
	"no callback", "do-nothing callback", "traced (ggmlviz)"
};

struct bench {
	ggml_backend_t backend;
	ggml_backend_sched_t sched;
	struct transformer m;
	int threads;
	double *ns[N_MODES];
	double *diff; /* traced - callback, per round */
};

/* The baseline: wants exactly the nodes the adapter times, does nothing. */
static bool do_nothing_cb(struct ggml_tensor *t, bool ask, void *user_data)
{
	(void)user_data;
	return !ask || ggmlviz_ggml_node_computes(t);
}

static uint64_t last_compute_ns;
static enum ggml_status (*inner_compute)(ggml_backend_sched_t, struct ggml_cgraph *);

/* Times the compute call only: resetting, allocating and setting the
 * inputs are the same in every mode. */
static enum ggml_status timed_compute(ggml_backend_sched_t s, struct ggml_cgraph *g)
{
	uint64_t t0 = bench_now_ns();
	enum ggml_status st = inner_compute(s, g);

	last_compute_ns = bench_now_ns() - t0;
	return st;
}

static void set_mode(struct bench *b, enum mode mode)
{
	ggmlviz_ggml_untrace_sched(b->sched);
	inner_compute = ggml_backend_sched_graph_compute;
	if (mode == CALLBACK)
		ggml_backend_sched_set_eval_callback(b->sched, do_nothing_cb, NULL);
	if (mode == TRACED) {
		ggmlviz_ggml_trace_sched(b->sched, b->threads, NULL, NULL);
		inner_compute = ggmlviz_ggml_sched_graph_compute;
	}
}

static int run_once(struct bench *b, enum mode mode, int round)
{
	set_mode(b, mode);
	if (transformer_step(&b->m, b->sched, (uint32_t)round, timed_compute) !=
	    GGML_STATUS_SUCCESS) {
		fprintf(stderr, "bench_ggml: the graph failed (%s)\n", mode_names[mode]);
		return -1;
	}
	b->ns[mode][round] = (double)last_compute_ns;
	return 0;
}

/* Rounds of the three modes, in an order that rotates each round. */
static int run_rounds(struct bench *b, int runs)
{
	for (int r = 0; r < runs; r++) {
		for (int i = 0; i < N_MODES; i++)
			if (run_once(b, (enum mode)((r + i) % N_MODES), r) < 0)
				return -1;
		b->diff[r] = b->ns[TRACED][r] - b->ns[CALLBACK][r];
	}
	return 0;
}

static int timed_nodes(struct ggml_cgraph *g)
{
	int n = 0;

	for (int i = 0; i < ggml_graph_n_nodes(g); i++)
		n += ggmlviz_ggml_node_computes(ggml_graph_node(g, i));
	return n;
}

/* ns per node of cb's ask and hand-over calls, over the graph's timed
 * nodes rounds times: the callback's own cost, free of GGML's noise. */
static double callback_ns(ggml_backend_sched_eval_callback cb, void *user_data,
			  struct ggml_cgraph *g, int rounds)
{
	uint64_t t0 = bench_now_ns();
	int calls = 0;

	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < ggml_graph_n_nodes(g); i++) {
			struct ggml_tensor *t = ggml_graph_node(g, i);

			if (!ggmlviz_ggml_node_computes(t))
				continue;
			cb(t, true, user_data);
			cb(t, false, user_data);
			calls++;
		}
	return (double)(bench_now_ns() - t0) / calls;
}

/* Median of 9 measures of the adapter's cost per node over the do-nothing
 * callback's, small enough (100 rounds) for the rings to hold them; the
 * writer gets time to drain between measures. */
static double adapter_ns_per_node(struct bench *b)
{
	double s[9];
	struct timespec pause = { 0, 30 * 1000 * 1000 };

	set_mode(b, TRACED);
	for (int i = 0; i < 9; i++) {
		double traced = callback_ns(ggmlviz_ggml_eval_cb, b->sched, b->m.graph, 100);

		s[i] = traced - callback_ns(do_nothing_cb, NULL, b->m.graph, 100);
		nanosleep(&pause, NULL);
	}
	return bench_median(s, 9);
}

static void report(struct bench *b, const struct transformer_params *p, int runs,
		   double clock_ns, double node_ns)
{
	double med[N_MODES], diff = bench_median(b->diff, (size_t)runs);
	int nodes = timed_nodes(b->m.graph);
	struct ggmlviz_stats st;

	ggmlviz_get_stats(&st);
	for (int i = 0; i < N_MODES; i++)
		med[i] = bench_median(b->ns[i], (size_t)runs);
	printf("bench_ggml: transformer %d layers, %d tokens, %d embd, %d thread(s); "
	       "%d runs of each mode, interleaved\n",
	       p->n_layer, p->n_tokens, p->n_embd, b->threads, runs);
	printf("  graph: %d nodes, %d timed one by one\n", ggml_graph_n_nodes(b->m.graph), nodes);
	for (int i = 0; i < N_MODES; i++)
		printf("  %-22s median %9.1f us per graph\n", mode_names[i], med[i] / 1e3);
	printf("  GGML's cost of a node-by-node callback: %+.2f%% (callback vs no callback)\n",
	       100.0 * (med[CALLBACK] / med[PLAIN] - 1.0));
	printf("  tracer overhead: %+.2f%% (median traced / median callback), median of per-round "
	       "differences %+.2f%%, %.0f ns per timed node (target: under 1%%)\n",
	       100.0 * (med[TRACED] / med[CALLBACK] - 1.0), 100.0 * diff / med[CALLBACK],
	       diff / nodes);
	printf("  adapter's own cost: %.0f ns per timed node (its callback calls in a loop, over "
	       "the do-nothing callback's) = %.3f%% of a graph run\n",
	       node_ns, 100.0 * node_ns * nodes / med[CALLBACK]);
	printf("  clock_gettime: %.1f ns per call, measured alongside\n", clock_ns);
	printf("  trace: %llu events written, %llu dropped\n", (unsigned long long)st.written,
	       (unsigned long long)st.dropped);
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

static int setup(struct bench *b, const struct transformer_params *p, int runs)
{
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
		b->ns[i] = calloc((size_t)runs, sizeof(double));
	b->diff = calloc((size_t)runs, sizeof(double));
	return b->sched && b->ns[PLAIN] && b->ns[CALLBACK] && b->ns[TRACED] && b->diff ? 0 : -1;
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
	free(b->diff);
}

static int start_tracing(char *path, size_t size)
{
	struct ggmlviz_config cfg;

	const char *dir = getenv("TMPDIR");

	snprintf(path, size, "%s/bench_ggml-%d.ggmlviz", dir ? dir : "/tmp", (int)getpid());
	ggmlviz_config_init(&cfg);
	cfg.output = path;
	cfg.flush_interval_ms = 10;
	return ggmlviz_start(&cfg);
}

int main(int argc, char **argv)
{
	struct transformer_params p;
	struct bench b;
	char path[256];
	int runs = parse_arg(argc, argv, 1, 200, 1000000), rc = -1;
	double clock_ns, node_ns = 0;

	memset(&b, 0, sizeof b);
	transformer_params_init(&p);
	p.n_layer = parse_arg(argc, argv, 2, 4, 256);
	b.threads = parse_arg(argc, argv, 3, 1, 512);
	if (setup(&b, &p, runs) < 0 || start_tracing(path, sizeof path) < 0) {
		fprintf(stderr, "bench_ggml: cannot set up the model or the tracer\n");
		teardown(&b);
		return 1;
	}
	run_rounds(&b, 3 < runs ? 3 : runs); /* warm up: first allocations, caches */
	clock_ns = bench_clock_cost_ns();
	rc = run_rounds(&b, runs);
	if (rc == 0)
		node_ns = adapter_ns_per_node(&b);
	ggmlviz_stop();
	if (rc == 0)
		report(&b, &p, runs, clock_ns, node_ns);
	unlink(path);
	teardown(&b);
	return rc == 0 ? 0 : 1;
}
