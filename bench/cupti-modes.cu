/*
 * cupti-modes: what CUPTI itself costs a CUDA graph of decode-sized kernels
 * in each way it can record them, without libggmlviz (part of
 * bench/gpu-check.sh, which builds it with nvcc against the toolkit's
 * CUPTI). On an H100, recording every kernel cost llama.cpp's decode of a
 * small model about 40% of its speed (README, On a GPU); this asks the
 * GPU the two questions that decide what to build next:
 *
 * - graph-level records: CUPTI_ACTIVITY_KIND_GRAPH_TRACE gives one record
 *   a graph launch, "intended to reduce overheads in tracing each node"
 *   (cupti_activity.h). What does it cost against CONCURRENT_KERNEL, and
 *   can the two be enabled together (a prompt's kernels are launched
 *   outside graphs)?
 * - recording only some steps: once a kind is disabled again, is the graph
 *   back at its untraced speed, or does CUPTI's instrumentation stay?
 *
 * A graph of KERNELS kernels that each spin for SPIN_NS is launched
 * LAUNCHES times a round, on a busy stream, in rounds that rotate the modes:
 * "before" (CUPTI not yet called: first, once), "off" (CUPTI's callbacks
 * registered, no kind enabled: after a kind was enabled and disabled),
 * "kernels" (CONCURRENT_KERNEL) and "graphs" (GRAPH_TRACE). Each round
 * instantiates the graph anew after its kinds are enabled (as a program
 * that starts tracing before its first graph does), then flushes CUPTI's
 * buffers and counts their records by kind. Printed: each mode's median ns
 * a kernel and its speed against "before", the records a round gave, and
 * CUPTI's answers.
 *
 *     cupti-modes [ROUNDS] [SPIN_NS]    (default 9 rounds, 2000 ns)
 *
 * Exit status 0 when it ran (it states costs, it checks no target); 77
 * without a GPU; 2 on a CUDA or CUPTI error.
 *
 * SPDX-License-Identifier: MIT
 */
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#define KERNELS 500 /* a graph's kernels: a decode step's */
#define LAUNCHES 20 /* graph launches timed in a round */
#define DIRECT 100  /* kernels launched outside the graph, after it, a round */

#define GPU_BENCH_NAME "cupti-modes"
#include "gpu-bench.cuh"

#define CUPTI_CHECK(call)                                                                  \
	do {                                                                               \
		CUptiResult r_ = (call);                                                   \
		if (r_ != CUPTI_SUCCESS) {                                                 \
			const char *s_ = "?";                                              \
			cuptiGetResultString(r_, &s_);                                     \
			fprintf(stderr, "%s: %s: %s\n", GPU_BENCH_NAME, #call, s_);        \
			exit(2);                                                           \
		}                                                                          \
	} while (0)

enum mode { BEFORE, OFF, KERNELS_ON, GRAPHS_ON, MODES };
static const char *const mode_names[MODES] = { "before", "off", "kernels", "graphs" };

/* Records of the round, by kind (the kinds past the array counted in its last slot). */
#define KINDS 64
static unsigned long long counted[KINDS];

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*size = 8u << 20;
	*buffer = (uint8_t *)aligned_alloc(8, *size);
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
				      size_t size, size_t valid)
{
	CUpti_Activity *record = NULL;

	(void)ctx, (void)stream, (void)size;
	while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
		counted[record->kind < KINDS ? record->kind : KINDS - 1]++;
	free(buffer);
}

static double now_ns(void)
{
	return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}


/* ns a kernel over LAUNCHES launches of the graph, instantiated now; then DIRECT launches. */
static double round_ns(const struct spin_graph *w)
{
	cudaGraphExec_t exec;
	double t0, ns;

	CHECK(cudaGraphInstantiate(&exec, w->graph, 0));
	CHECK(cudaGraphLaunch(exec, w->stream)); /* warm */
	CHECK(cudaStreamSynchronize(w->stream));
	t0 = now_ns();
	for (int i = 0; i < LAUNCHES; i++)
		CHECK(cudaGraphLaunch(exec, w->stream));
	CHECK(cudaStreamSynchronize(w->stream));
	ns = (now_ns() - t0) / (LAUNCHES * KERNELS);
	for (int i = 0; i < DIRECT; i++) /* a prompt's kernels: outside every graph */
		spin<<<1, 32, 0, w->stream>>>(w->cycles, w->buf);
	CHECK(cudaStreamSynchronize(w->stream));
	CHECK(cudaGraphExecDestroy(exec));
	return ns;
}

/* Enables (or disables) the kinds of mode m; CUPTI's answer for the first that failed. */
static CUptiResult set_mode(enum mode m, bool on)
{
	CUptiResult (*fn)(CUpti_ActivityKind) = on ? cuptiActivityEnable : cuptiActivityDisable;

	if (m == KERNELS_ON)
		return fn(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	if (m == GRAPHS_ON)
		return fn(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
	return CUPTI_SUCCESS;
}

/* A round of mode m: its ns a kernel, and the records it gave (kernels, graphs) added up. */
static double run_mode(const struct spin_graph *w, enum mode m, unsigned long long got[2])
{
	double ns;

	CUPTI_CHECK(set_mode(m, true));
	ns = round_ns(w);
	CUPTI_CHECK(cuptiActivityFlushAll(1));
	CUPTI_CHECK(set_mode(m, false));
	got[0] += counted[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] + counted[CUPTI_ACTIVITY_KIND_KERNEL];
	got[1] += counted[CUPTI_ACTIVITY_KIND_GRAPH_TRACE];
	std::fill(counted, counted + KINDS, 0ull);
	return ns;
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

/* Whether GRAPH_TRACE can be enabled with CONCURRENT_KERNEL: CUPTI's answer, in words. */
static void both_kinds(void)
{
	const char *s = "?";
	CUptiResult r;

	CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
	r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
	cuptiGetResultString(r, &s);
	printf("cupti-modes: GRAPH_TRACE enabled beside CONCURRENT_KERNEL: %s\n", s);
	if (r == CUPTI_SUCCESS)
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
	CUPTI_CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
	CUPTI_CHECK(cuptiActivityFlushAll(1));
	std::fill(counted, counted + KINDS, 0ull);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 9, spin_ns = argc > 2 ? atoi(argv[2]) : 2000;
	std::vector<double> ns[MODES];
	unsigned long long got[MODES][2] = { { 0 } };
	struct spin_graph w;
	int rc;

	if (rounds < 1 || spin_ns < 0) {
		fprintf(stderr, "usage: cupti-modes [ROUNDS] [SPIN_NS]\n");
		return 2;
	}
	if ((rc = spin_graph_make(&w, KERNELS, spin_ns)) != 0)
		return rc;
	for (int r = 0; r < rounds; r++) /* before CUPTI is called at all */
		ns[BEFORE].push_back(round_ns(&w));
	CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
	both_kinds();
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < MODES - 1; k++) { /* off, kernels, graphs, in a rotating order */
			enum mode m = (enum mode)(OFF + (r + k) % (MODES - 1));

			ns[m].push_back(run_mode(&w, m, got[m]));
		}
	printf("cupti-modes: %d rounds of each mode, %d graph launches of %d kernels spinning %d ns "
	       "and %d kernels outside the graph a round\n", rounds, LAUNCHES, KERNELS, spin_ns,
	       DIRECT);
	for (int m = 0; m < MODES; m++) {
		double base = median(ns[BEFORE]), t = median(ns[m]);

		printf("%-8s %.0f ns a kernel in the graph: %.3f of the speed before CUPTI, %+.0f ns a "
		       "kernel; records a round: %.0f kernels, %.0f graphs\n", mode_names[m], t,
		       t > 0 ? base / t : 0, t - base, (double)got[m][0] / rounds,
		       (double)got[m][1] / rounds);
	}
	return 0;
}
