/*
 * gen-gpu: a trace as libggmlviz writes it for llama.cpp on a CUDA GPU,
 * without a GPU: for the tests of the command on GPU op times. Each step
 * (a prompt, then tokens generated one by one) holds a CPU run (the token
 * embedding, timed by the backend's ticks) and a GPU run of two layers on
 * "CUDA0", whose kernels (real ggml-cuda names) the node engine and the
 * kernels' sink record as with CUPTI (tests/gpu-sim.c stands in for it).
 *
 *   gen-gpu OUT STEPS [--no-ticks | --sample K/N] [--fallback] [--idle US]
 *                     [--device-full] [--slow-gpu]
 *
 * STEPS >= 2: one prompt, the rest generated. --no-ticks: the CPU backend
 * never ticks (an eval callback installed without the adapter's abort
 * callback), so its runs are timed as a whole. --sample K/N: kernels
 * recorded in sampled windows (GGML_VIZ_GPU_SAMPLE=K/N), the stand-in
 * detaching and attaching between steps. For ggmlviz advise: --fallback
 * computes layer 1's ROPE on the CPU between the GPU's two runs of the
 * layers (an op the GPU's backend lacks, as GGML's scheduler falls back),
 * 400 us a step (over 1% of a step that a loaded machine stretched by
 * a time slice or two); --idle US has the host busy US microseconds
 * before each step's GPU run (the GPU idle meanwhile); --slow-gpu runs
 * each kernel 100 times as long (a GPU that the host keeps busy, even
 * where the host is slowed, as under a sanitizer or beside other work:
 * 20 times left the GPU idle 45% under a make check beside a CI run, 1.7
 * ms of host a step on 2 shared cores); --device-full records
 * the buffers of a device nearly full, with memory tracking on, as the GGML
 * adapter does (TENSOR_ALLOC, META DEVICE).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

#include "gpu-sim.h"

static const struct gs_node gpu_nodes[] = {
	{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 2, "MUL", "attn_norm-0 (w)", 0 },
	{ 3, "MUL_MAT", "Qcur-0", 0 },       { 3, "MUL_MAT", "Kcur-0", 0 },
	{ 4, "ROPE", "Qcur-0 (rope)", 0 },   { 5, "ADD", "ffn_out-0", 0 },
	{ 1, "RMS_NORM", "attn_norm-1", 1 }, { 2, "MUL", "attn_norm-1 (w)", 1 },
	{ 3, "MUL_MAT", "Qcur-1", 1 },       { 3, "MUL_MAT", "Kcur-1", 1 },
	{ 4, "ROPE", "Qcur-1 (rope)", 1 },   { 5, "ADD", "ffn_out-1", 1 },
};

static const struct gs_kernel gpu_kernels[] = {
	{ GS_RMS_NORM_FUSED, 3000 }, { GS_QUANTIZE, 1000 }, { GS_MMVQ, 20000 },
	{ GS_QUANTIZE, 1000 },       { GS_MMVQ, 20000 },    { GS_ROPE, 2000 },
	{ GS_ADD, 1500 },
	{ GS_RMS_NORM_FUSED, 3000 }, { GS_QUANTIZE, 1000 }, { GS_MMVQ, 20000 },
	{ GS_QUANTIZE, 1000 },       { GS_MMVQ, 20000 },    { GS_ROPE, 2000 },
	{ GS_ADD, 1500 },
};

static char cuda0, cpu, ctx; /* their addresses name them */
static const struct gs_node embd = { 6, "GET_ROWS", "inp_embd", -1 };

/* A CPU node (user: its struct gs_node), which gives one tick. */
static void cpu_describe(void *user, const void *const *nodes, size_t n, size_t i,
			 struct ggmlviz_node_desc *out)
{
	const struct gs_node *node = user;

	(void)nodes, (void)n, (void)i;
	out->op_type = node->op;
	out->op_name = node->op_name;
	out->name = node->name;
	out->layer = node->layer;
	out->ticks = 1;
}

static int ticks = 1, fallback;
static struct gs_kernel kernels[sizeof gpu_kernels / sizeof gpu_kernels[0]];
static long idle_us;
static const struct gs_node rope_on_cpu = { 4, "ROPE", "Qcur-1 (rope)", 1 };

/* The host busy for us microseconds (a sleep would leave the CPU's time unsaid). */
static void busy_us(long us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void step(uint32_t tokens)
{
	uint32_t phase = tokens > 1 ? GGMLVIZ_PHASE_PROMPT : GGMLVIZ_PHASE_GENERATION;
	size_t n = sizeof gpu_nodes / sizeof gpu_nodes[0], m = sizeof kernels / sizeof kernels[0];

	ggmlviz_step_begin(&ctx, tokens, 1, phase, "decode");
	ggmlviz_nodes_ask(&embd, &cpu, cpu_describe, (void *)&embd); /* the CPU's run: one node */
	if (ticks)
		ggmlviz_nodes_tick();
	busy_us(idle_us);
	if (!fallback) {
		gs_run(gpu_nodes, n, &cuda0, kernels, m, 0, NULL);
	} else { /* layer 0 and layer 1's first nodes, layer 1's ROPE on the CPU, the rest */
		gs_run(gpu_nodes, 10, &cuda0, kernels, 12, 0, NULL);
		ggmlviz_nodes_ask(&rope_on_cpu, &cpu, cpu_describe, (void *)&rope_on_cpu);
		busy_us(400);
		ggmlviz_nodes_tick();
		gs_run(gpu_nodes + 11, n - 11, &cuda0, kernels + 13, m - 13, 0, NULL);
	}
	ggmlviz_step_end(&ctx, tokens, 1, phase, 0, "decode");
}

/*
 * --device-full: the buffers of a device of 8 GiB, 7.68 GiB of them in
 * use when the first was used, and their META DEVICE, as the GGML adapter
 * records them with memory tracking on.
 */
static void device_full(void)
{
	static char weights, kv, compute;
	const uint64_t gib = 1ull << 30, total = 8 * gib, free_bytes = total / 25;

	ggmlviz_tensor_alloc(&weights, 6 * gib, "weights CUDA0");
	ggmlviz_meta(GGMLVIZ_META_DEVICE, (uint64_t)(uintptr_t)&weights, total, free_bytes, "CUDA0");
	ggmlviz_tensor_alloc(&kv, gib, "kv_cache CUDA0");
	ggmlviz_meta(GGMLVIZ_META_DEVICE, (uint64_t)(uintptr_t)&kv, total, free_bytes, "CUDA0");
	ggmlviz_tensor_alloc(&compute, gib / 2, "compute CUDA0");
	ggmlviz_meta(GGMLVIZ_META_DEVICE, (uint64_t)(uintptr_t)&compute, total, free_bytes, "CUDA0");
}

static int usage(void)
{
	fputs("usage: gen-gpu OUT STEPS [--no-ticks | --sample K/N] [--fallback] [--idle US]\n"
	      "               [--device-full] [--slow-gpu] (STEPS >= 2)\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct ggmlviz_config cfg;
	int steps = argc >= 3 ? atoi(argv[2]) : 0, full = 0;
	unsigned k = 0, n = 0;
	uint64_t scale = 1;

	for (int i = 3; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--no-ticks") && !k)
			ticks = 0;
		else if (!strcmp(argv[i], "--sample") && ticks && v && sscanf(v, "%u/%u", &k, &n) == 2 &&
			 k && k < n && n <= 65535)
			i++;
		else if (!strcmp(argv[i], "--fallback"))
			fallback = 1;
		else if (!strcmp(argv[i], "--idle") && v && (idle_us = atol(v)) > 0 && idle_us < 1000000)
			i++;
		else if (!strcmp(argv[i], "--device-full"))
			full = 1;
		else if (!strcmp(argv[i], "--slow-gpu"))
			scale = 100;
		else
			return usage();
	}
	if (steps < 2)
		return usage();
	for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
		kernels[i] = (struct gs_kernel){ gpu_kernels[i].name, gpu_kernels[i].ns * scale };
	ggmlviz_config_init(&cfg);
	cfg.output = argv[1];
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	cfg.gpu_sample_k = (uint16_t)k, cfg.gpu_sample_n = (uint16_t)n;
	cfg.memory_tracking = full;
	gs_install(); /* kernels through the stand-in for CUPTI */
	if (ggmlviz_start(&cfg) < 0)
		return 1;
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cuda0, "CUDA0");
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cpu, "CPU");
	if (full)
		device_full();
	step(16);
	gs_serve_windows();
	for (int i = 1; i < steps; i++) {
		step(1);
		gs_serve_windows(); /* between steps, as CUPTI's thread would */
	}
	return ggmlviz_stop() < 0;
}
