/*
 * gpu-kernel-cost: what recording every kernel through CUPTI costs a GPU
 * that runs decode-sized kernels (part of bench/gpu-check.sh, which builds
 * it with nvcc).
 *
 * A decode step of a small model on a GPU is hundreds of kernels of 2 to
 * 5 us each (llama.cpp on an H100: 583 kernels a token of SmolLM2-135M's
 * shape), launched as one CUDA graph. This launches the same: a CUDA graph
 * of KERNELS kernels that each spin for SPIN_NS, and the same kernels
 * launched one by one, each launch inside a GGML-like run (an ask, the
 * launch, the run flushed), in rounds that alternate untraced (no session)
 * and traced (a session recording every kernel, GGML_VIZ_GPU_KERNELS=start),
 * each round its own session. Printed: the median over the rounds of the
 * time a kernel takes, launch to launch on a busy stream, both ways, their
 * ratio, and the difference: what one recorded kernel adds.
 *
 *     gpu-kernel-cost [ROUNDS] [SPIN_NS]    (default 9 rounds, 2000 ns)
 *
 * Exit status 0 when it ran (it states a cost, it checks no target); 77
 * without a GPU; 2 on a CUDA error or a session that did not start.
 *
 * SPDX-License-Identifier: MIT
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <vector>

#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

#define KERNELS 500 /* a graph's kernels: a decode step's */
#define LAUNCHES 20 /* graph launches timed in a round */

#define GPU_BENCH_NAME "gpu-kernel-cost"
#include "gpu-bench.cuh"

static char cuda0, node; /* their addresses name a backend and a node, as GGML's would */

static void describe(void *user, const void *const *nodes, size_t n, size_t i,
		     struct ggmlviz_node_desc *out)
{
	(void)user, (void)nodes, (void)n, (void)i;
	out->ticks = 1;
	out->op_type = 1;
	out->op_name = "SPIN";
}

static double now_ns(void)
{
	return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

struct work {
	struct spin_graph g;
	cudaGraphExec_t exec;
};

/* ns a kernel: LAUNCHES graph launches, each a run, on a stream kept busy. */
static double graph_round(const struct work *w)
{
	double t0;

	CHECK(cudaGraphLaunch(w->exec, w->g.stream)); /* warm */
	CHECK(cudaStreamSynchronize(w->g.stream));
	t0 = now_ns();
	for (int i = 0; i < LAUNCHES; i++) {
		ggmlviz_nodes_ask(&node, &cuda0, describe, NULL);
		CHECK(cudaGraphLaunch(w->exec, w->g.stream));
		ggmlviz_nodes_flush();
	}
	CHECK(cudaStreamSynchronize(w->g.stream));
	return (now_ns() - t0) / (LAUNCHES * KERNELS);
}

/* ns a kernel: KERNELS launches one by one, in one run. */
static double direct_round(const struct work *w)
{
	double t0;

	CHECK(cudaStreamSynchronize(w->g.stream));
	t0 = now_ns();
	ggmlviz_nodes_ask(&node, &cuda0, describe, NULL);
	for (int i = 0; i < KERNELS; i++)
		spin<<<1, 32, 0, w->g.stream>>>(w->g.cycles, w->g.buf);
	CHECK(cudaStreamSynchronize(w->g.stream));
	ggmlviz_nodes_flush();
	return (now_ns() - t0) / KERNELS;
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

static void say(const char *what, const std::vector<double> &plain, const std::vector<double> &traced)
{
	double p = median(plain), t = median(traced);

	printf("%-7s %.0f ns a kernel untraced, %.0f traced: %.3f of the speed, %.0f ns more a "
	       "recorded kernel\n", what, p, t, t > 0 ? p / t : 0, t - p);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 9, spin_ns = argc > 2 ? atoi(argv[2]) : 2000;
	std::vector<double> gp, gt, dp, dt;
	struct ggmlviz_config cfg;
	struct work w;
	char path[64];
	int rc;

	if (rounds < 1 || spin_ns < 0) {
		fprintf(stderr, "usage: gpu-kernel-cost [ROUNDS] [SPIN_NS]\n");
		return 2;
	}
	if ((rc = spin_graph_make(&w.g, KERNELS, spin_ns)) != 0)
		return rc;
	CHECK(cudaGraphInstantiate(&w.exec, w.g.graph, 0));
	snprintf(path, sizeof path, "/tmp/gpu-kernel-cost.%d.ggmlviz", (int)getpid());
	for (int r = 0; r < 2 * rounds; r++) {
		bool traced = (r % 2) == (r / 2 % 2); /* the order rotates */

		if (traced) {
			ggmlviz_config_init(&cfg);
			cfg.output = path;
			cfg.gpu_kernels = GGMLVIZ_GPU_KERNELS_AT_START;
			if (ggmlviz_start(&cfg) < 0)
				return 2;
			ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cuda0, "CUDA0");
		}
		(traced ? gt : gp).push_back(graph_round(&w));
		(traced ? dt : dp).push_back(direct_round(&w));
		if (traced)
			ggmlviz_stop();
	}
	remove(path);
	printf("gpu-kernel-cost: %d rounds each way of %d kernels spinning %d ns, %d graph launches"
	       " and %d launches one by one a round\n", rounds, KERNELS, spin_ns, LAUNCHES, KERNELS);
	say("graph", gp, gt);
	say("direct", dp, dt);
	return 0;
}
