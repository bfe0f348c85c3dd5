/*
 * gen-gpu: a trace as libggmlviz writes it for llama.cpp on a CUDA GPU,
 * without a GPU: for the tests of the command on GPU op times. Each step
 * (a prompt, then tokens generated one by one) holds a CPU run (the token
 * embedding, timed by the backend's ticks) and a GPU run of two layers on
 * "CUDA0", whose kernels (real ggml-cuda names) the node engine and the
 * kernels' sink record as with CUPTI (tests/gpu-sim.c stands in for it).
 *
 *   gen-gpu OUT STEPS [--no-ticks | --sample K/N]
 *
 * STEPS >= 2: one prompt, the rest generated. --no-ticks: the CPU backend
 * never ticks (an eval callback installed without the adapter's abort
 * callback), so its runs are timed as a whole. --sample K/N: kernels
 * recorded in sampled windows (GGML_VIZ_GPU_SAMPLE=K/N), the stand-in
 * detaching and attaching between steps.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void cpu_describe(void *user, const void *const *nodes, size_t n, size_t i,
			 struct ggmlviz_node_desc *out)
{
	(void)user, (void)nodes, (void)n, (void)i;
	out->op_type = embd.op;
	out->op_name = embd.op_name;
	out->name = embd.name;
	out->ticks = 1;
}

static int ticks = 1;

static void step(uint32_t tokens)
{
	uint32_t phase = tokens > 1 ? GGMLVIZ_PHASE_PROMPT : GGMLVIZ_PHASE_GENERATION;

	ggmlviz_step_begin(&ctx, tokens, 1, phase, "decode");
	ggmlviz_nodes_ask(&embd, &cpu, cpu_describe, NULL); /* the CPU's run: one node, one tick */
	if (ticks)
		ggmlviz_nodes_tick();
	gs_run(gpu_nodes, sizeof gpu_nodes / sizeof gpu_nodes[0], &cuda0, gpu_kernels,
	       sizeof gpu_kernels / sizeof gpu_kernels[0], 0, NULL);
	ggmlviz_step_end(&ctx, tokens, 1, phase, 0, "decode");
}

int main(int argc, char **argv)
{
	struct ggmlviz_config cfg;
	int steps = argc >= 3 ? atoi(argv[2]) : 0;
	unsigned k = 0, n = 0;
	int sample = argc == 5 && strcmp(argv[3], "--sample") == 0;

	ticks = !(argc == 4 && strcmp(argv[3], "--no-ticks") == 0);
	if (steps < 2 || argc > 5 || (argc == 4 && ticks) || (argc == 5 && !sample) ||
	    (sample && (sscanf(argv[4], "%u/%u", &k, &n) != 2 || !k || k >= n || n > 65535))) {
		fputs("usage: gen-gpu OUT STEPS [--no-ticks | --sample K/N] (STEPS >= 2)\n", stderr);
		return 2;
	}
	ggmlviz_config_init(&cfg);
	cfg.output = argv[1];
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	cfg.gpu_sample_k = (uint16_t)k, cfg.gpu_sample_n = (uint16_t)n;
	gs_install(); /* kernels through the stand-in for CUPTI */
	if (ggmlviz_start(&cfg) < 0)
		return 1;
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cuda0, "CUDA0");
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cpu, "CPU");
	step(16);
	gs_serve_windows();
	for (int i = 1; i < steps; i++) {
		step(1);
		gs_serve_windows(); /* between steps, as CUPTI's thread would */
	}
	return ggmlviz_stop() < 0;
}
