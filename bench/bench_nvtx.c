/*
 * bench_nvtx: what NVTX ranges (GGML_VIZ_NVTX) cost where no tool is
 * attached, in one run: ns per step (ggmlviz_step_begin and _end), per
 * run of nodes (RUN_NODES nodes asked and ticked, as GGML's CPU backend
 * does, then ended: its op records made), per op of such a run, and per
 * op of ggmlviz_op_begin() and _end(), at GGML_VIZ_NVTX=0 and =2 in
 * interleaved rounds, each round with one clock_gettime() measured
 * alongside; medians of the per-round figures and of their ratios to the
 * clock.
 *
 * The level is set through GGML_VIZ_NVTX and ggmlviz_config_from_env(), so
 * that the same source builds against a libggmlviz without NVTX (which
 * reads no such variable): its figures at level 0 are the cost of the
 * hooks themselves. With NVTX_INJECTION64_PATH naming a tool (the tests'
 * tests/libnvtx-standin.so, NVTX_STANDIN_OUT unset: a tool that keeps its
 * stacks and writes nothing) level 2 makes ranges, and the difference is
 * what making them costs on the program's side.
 *
 *   bench_nvtx [DIR]    (traces in DIR, default $TMPDIR or /tmp; deleted)
 *   bench_nvtx --once LEVEL SCALE
 *                       one session at LEVEL: SCALE x 10000 steps, x 500
 *                       runs, x 10000 op pairs, each workload in one call
 *                       of its function, for bench/nvtx-insns.sh to count
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

#include "bench.h"

#define ROUNDS 41
#define STEPS 20000
#define RUNS 1000
#define RUN_NODES 32
#define PAIRS 20000
#define LEVELS 2

static char path[4096];
static const int levels[LEVELS] = { 0, 2 };

struct figures {
	double step, run, op, pair, clock;
};

static char nodes[RUN_NODES][64]; /* their addresses are the nodes */
static char cpu;                  /* and the backend */
static const char *const names[] = { "attn_norm-3", "Qcur-3", "Kcur-3", "kq-3", "ffn_out-3" };

static void describe(void *user, const void *const *ns, size_t n, size_t i,
		     struct ggmlviz_node_desc *d)
{
	(void)user, (void)ns, (void)n;
	d->ticks = 1;
	d->op_type = 29;
	d->op_name = "MUL_MAT";
	d->name = names[i % 5];
	d->layer = 3;
	d->size = 4096;
	d->ne[0] = 512, d->ne[1] = d->ne[2] = d->ne[3] = 1;
}

static int start(int level)
{
	struct ggmlviz_config cfg;
	char value[4];

	snprintf(value, sizeof value, "%d", level);
	setenv("GGML_VIZ_NVTX", value, 1);
	ggmlviz_config_init(&cfg);
	ggmlviz_config_from_env(&cfg);
	cfg.output = path;
	cfg.buffer_events = 1u << 20; /* a round fits: nothing dropped */
	cfg.max_events = 0;
	cfg.gpu_kernels = 0;
	return ggmlviz_start(&cfg);
}

static double clock_round(void)
{
	volatile uint64_t sink = 0;
	uint64_t t0 = bench_now_ns();

	for (int i = 0; i < 20000; i++)
		sink += bench_now_ns();
	(void)sink;
	return (double)(bench_now_ns() - t0) / 20000;
}

__attribute__((noinline)) static double steps(int n)
{
	static char ctx;
	uint64_t t0 = bench_now_ns();

	for (int i = 0; i < n; i++) {
		ggmlviz_step_begin(&ctx, 1, 1, GGMLVIZ_PHASE_GENERATION, "decode");
		ggmlviz_step_end(&ctx, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "decode");
	}
	return (double)(bench_now_ns() - t0) / n;
}

__attribute__((noinline)) static double runs(int n)
{
	uint64_t t0 = bench_now_ns();

	for (int i = 0; i < n; i++) {
		for (int k = 0; k < RUN_NODES; k++)
			ggmlviz_nodes_ask(nodes[k], &cpu, describe, NULL);
		for (int k = 0; k < RUN_NODES; k++)
			ggmlviz_nodes_tick();
		ggmlviz_nodes_flush();
	}
	return (double)(bench_now_ns() - t0) / n;
}

__attribute__((noinline)) static double pairs(int n)
{
	uint64_t t0 = bench_now_ns();

	for (int i = 0; i < n; i++) {
		const void *t = nodes[i & (RUN_NODES - 1)];
		ggmlviz_op_begin(t, 29, 4096, NULL, "ffn_out-3");
		ggmlviz_op_end(t, 29, 4096, NULL, "ffn_out-3");
	}
	return (double)(bench_now_ns() - t0) / n;
}

/* One round at level: a session, warmed, each workload timed, stopped. */
static struct figures round_at(int level)
{
	struct figures f;

	f.clock = clock_round();
	if (start(level) < 0) {
		fprintf(stderr, "bench_nvtx: cannot trace to %s\n", path);
		exit(1);
	}
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cpu, "CPU");
	steps(STEPS / 10), runs(RUNS / 10), pairs(PAIRS / 10); /* rings, run memory, names */
	f.step = steps(STEPS);
	f.run = runs(RUNS);
	f.op = f.run / RUN_NODES;
	f.pair = pairs(PAIRS);
	ggmlviz_stop();
	usleep(20000);
	return f;
}

static void line(const char *what, double v[LEVELS][ROUNDS], double ratio[LEVELS][ROUNDS])
{
	double med[LEVELS], rat[LEVELS];

	for (int l = 0; l < LEVELS; l++) {
		med[l] = bench_median(v[l], ROUNDS);
		rat[l] = bench_median(ratio[l], ROUNDS);
	}
	printf("%-44s %8.1f ns (%5.2fx) %8.1f ns (%5.2fx) %+7.1f ns\n", what, med[0], rat[0], med[1],
	       rat[1], med[1] - med[0]);
}

/* --once LEVEL SCALE: each workload once, SCALE times its base (bench/nvtx-insns.sh). */
static int once(const char *level, const char *scale)
{
	int n = atoi(scale);

	if (n <= 0 || start(atoi(level)) < 0)
		return 2;
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cpu, "CPU");
	steps(10000 * n);
	runs(500 * n);
	pairs(10000 * n);
	ggmlviz_stop();
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 && argv[1][0] != '-' ? argv[1] : getenv("TMPDIR");
	const char *tool = getenv("NVTX_INJECTION64_PATH");
	double v[4][LEVELS][ROUNDS], ratio[4][LEVELS][ROUNDS], clock[ROUNDS * LEVELS];

	snprintf(path, sizeof path, "%s/bench-nvtx-%ld.ggmlviz", dir ? dir : "/tmp", (long)getpid());
	if (argc > 3 && !strcmp(argv[1], "--once"))
		return once(argv[2], argv[3]);
	for (int r = 0; r < ROUNDS; r++) {
		for (int l = 0; l < LEVELS; l++) {
			struct figures f = round_at(levels[(r + l) % LEVELS]); /* alternate which goes first */
			int at = (r + l) % LEVELS;
			const double x[4] = { f.step, f.run, f.op, f.pair };

			for (int k = 0; k < 4; k++) {
				v[k][at][r] = x[k];
				ratio[k][at][r] = x[k] / f.clock;
			}
			clock[r * LEVELS + l] = f.clock;
		}
	}
	unlink(path);
	printf("clock_gettime(CLOCK_MONOTONIC): %.1f ns (median of the rounds)\n",
	       bench_median(clock, ROUNDS * LEVELS));
	printf("NVTX tool: %s\n", tool && *tool ? tool : "none (NVTX_INJECTION64_PATH unset)");
	printf("medians of %d interleaved rounds; (x) = ratio to one clock_gettime of the round\n",
	       ROUNDS);
	printf("%-44s %22s %22s %10s\n", "", "GGML_VIZ_NVTX=0", "GGML_VIZ_NVTX=2", "2 - 0");
	line("step (ggmlviz_step_begin + _end)", v[0], ratio[0]);
	line("run of 32 nodes (asked, ticked, recorded)", v[1], ratio[1]);
	line("op of such a run", v[2], ratio[2]);
	line("op by ggmlviz_op_begin + _end, a label", v[3], ratio[3]);
	return 0;
}
