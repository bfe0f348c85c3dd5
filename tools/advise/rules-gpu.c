/*
 * The findings of a run on a GPU (advise.h): a model split between
 * backends, ops of the GPU's layers computed on the CPU (fallback), a GPU
 * idle between its runs, and a device near full.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "advise/advise.h"

#define FALLBACK_SHARE 0.01  /* of a generated token */
#define GPU_IDLE_SHARE 0.30  /* of the steps' time */
#define DEVICE_FULL 0.90     /* of a device's memory */

/* Appends to buf (of size bytes) what fmt says. */
#define APPEND(buf, ...) cli_advise_append((buf), sizeof(buf), __VA_ARGS__)

/* The layers a is set for, as "0-3, 7" into buf; how many. */
static int layer_list(const uint8_t *a, const uint8_t *but, char *buf, size_t size)
{
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; i < CLI_ADVISE_LAYERS; i++) {
		int j = i;
		if (!a[i] || (but && but[i]))
			continue;
		while (j + 1 < CLI_ADVISE_LAYERS && a[j + 1] && !(but && but[j + 1]))
			j++;
		if (j > i)
			cli_advise_append(buf, size, "%s%d-%d", n ? ", " : "", i, j);
		else
			cli_advise_append(buf, size, "%s%d", n ? ", " : "", i);
		n += j - i + 1;
		i = j;
	}
	return n;
}

static double per_token(const struct cli_facts *f, uint64_t v)
{
	return f->gen_tokens ? (double)v / (double)f->gen_tokens : 0;
}

static void model_split(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "model-split";
	struct cli_finding *x;
	char layers[200], b[4][32];
	uint64_t cpu_ns = 0;
	int n;

	if (!f->has_gen) {
		cli_advise_not(a, id, "no generation step in the trace: a token's runs are not known");
		return;
	}
	if (!f->has_gpu_runs) {
		cli_advise_silent(a, id); /* every run on the CPU */
		return;
	}
	if (!f->ops_named) {
		cli_advise_not(a, id, "the trace names no op, so a layer's products are not told apart");
		return;
	}
	if (!(n = layer_list(f->layer_cpu_mat, NULL, layers, sizeof layers))) {
		cli_advise_silent(a, id);
		return;
	}
	for (int i = 0; i < CLI_ADVISE_LAYERS; i++)
		cpu_ns += f->layer_cpu_mat[i] ? f->layer_cpu_ns[i] : 0;
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "the model is split: %d layer%s on the CPU, the others"
		 " on a GPU", n, cli_s((uint64_t)n));
	snprintf(x->seen, sizeof x->seen, "the CPU computed the matrix products of layer%s %s"
		 " (%s a generated token, %.1f%% of its %s) while GPU runs computed the others;"
		 " %.1f runs of nodes a token, the backend changing %.1f times; the host's time"
		 " between them (the scheduler's copies of each run's inputs and its own work) %s a"
		 " token", cli_s((uint64_t)n), layers, cli_fmt_ns(per_token(f, cpu_ns), b[0]),
		 f->gen_step_ns ? 100.0 * (double)cpu_ns / (double)f->gen_step_ns : 0,
		 cli_fmt_ns(per_token(f, f->gen_step_ns), b[1]), per_token(f, f->gen_runs),
		 per_token(f, f->gen_switches), cli_fmt_ns(per_token(f, f->gen_gap_ns), b[2]));
	if (f->gen_copies)
		APPEND(x->seen, "; the scheduler copied %s a token between devices (%.1f copies)",
		       cli_fmt_bytes((uint64_t)per_token(f, f->gen_copy_bytes), b[3]),
		       per_token(f, f->gen_copies));
	else
		APPEND(x->seen, "; the bytes copied are not in the trace (the GGML adapter counts the"
		       " scheduler's copies with memory tracking on: GGML_VIZ_MEMORY_TRACKING=1)");
	snprintf(x->threshold, sizeof x->threshold, "a layer's matrix products on the CPU while a"
		 " GPU computes others");
	x->why = "each token crosses between the devices at every change of backend, copying its"
		 " activations and waiting for the other device, and the CPU's layers run at the"
		 " CPU's memory speed";
	snprintf(x->to_try, sizeof x->to_try, "every layer on the GPU where its memory allows"
		 " (llama.cpp's -ngl 99; `ggmlviz info` gives each device's memory); else a smaller"
		 " quantization or context (-c) to fit, or keep whole tensors on the CPU by choice"
		 " (-ot/--override-tensor, such as a mixture's experts) rather than whole layers;"
		 " with several GPUs, -sm layer");
	cli_advise_figure(x, "cpu_layers", n);
	cli_advise_figure(x, "runs_per_token", per_token(f, f->gen_runs));
	cli_advise_figure(x, "switches_per_token", per_token(f, f->gen_switches));
	cli_advise_figure(x, "gap_ns_per_token", per_token(f, f->gen_gap_ns));
	cli_advise_figure(x, "cpu_layer_share",
			  f->gen_step_ns ? (double)cpu_ns / (double)f->gen_step_ns : 0);
	if (f->gen_copies)
		cli_advise_figure(x, "copy_bytes_per_token", per_token(f, f->gen_copy_bytes));
}

/* The CPU's ops of layers whose products it did not compute, by op type, into buf; their ns. */
static uint64_t fallback_ops(const struct cli_facts *f, char *buf, size_t size, uint64_t *count)
{
	struct cli_op_tally t[CLI_ADVISE_OPS] = { { "", 0, 0 } };
	uint64_t ns = 0;
	char b[32];

	*count = 0;
	for (size_t i = 0; i < f->n_layer_ops; i++) {
		const struct cli_layer_op *e = &f->layer_ops[i];
		int k = 0;
		if (f->layer_cpu_mat[e->layer])
			continue;
		ns += e->ns, *count += e->count;
		while (k < CLI_ADVISE_OPS && t[k].count && strcmp(t[k].op, e->op))
			k++;
		if (k == CLI_ADVISE_OPS)
			continue;
		snprintf(t[k].op, sizeof t[k].op, "%s", e->op);
		t[k].count += e->count, t[k].ns += e->ns;
	}
	buf[0] = '\0';
	for (int k = 0; k < CLI_ADVISE_OPS && t[k].count; k++)
		cli_advise_append(buf, size, "%s%s %" PRIu64 " (%s)", k ? ", " : "", t[k].op,
				  t[k].count, cli_fmt_ns((double)t[k].ns, b));
	return ns;
}

static void gpu_fallback(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "gpu-fallback";
	struct cli_finding *x;
	char ops[400], b[2][32];
	uint64_t count, ns;
	double share;

	if (!f->has_gen || !f->has_gpu_runs) {
		if (!f->has_gen && f->has_gpu_runs)
			cli_advise_not(a, id, "no generation step in the trace");
		else
			cli_advise_silent(a, id);
		return;
	}
	if (!f->ops_named) {
		cli_advise_not(a, id, "the trace names no op, so a layer's products are not told apart");
		return;
	}
	ns = fallback_ops(f, ops, sizeof ops, &count);
	share = f->gen_step_ns ? (double)ns / (double)f->gen_step_ns : 0;
	if (!count || share < FALLBACK_SHARE) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "ops of the GPU's layers computed on the CPU: %.1f%% of"
		 " a generated token", 100 * share);
	snprintf(x->seen, sizeof x->seen, "in layers whose matrix products ran on a GPU, the CPU"
		 " computed %" PRIu64 " ops in %" PRIu64 " generated tokens: %s; %s a token, %.1f%% of"
		 " its %s", count, f->gen_tokens, ops, cli_fmt_ns(per_token(f, ns), b[0]), 100 * share,
		 cli_fmt_ns(per_token(f, f->gen_step_ns), b[1]));
	snprintf(x->threshold, sizeof x->threshold, "%.0f%% of a generated token", 100 * FALLBACK_SHARE);
	x->why = "an op the GPU's backend does not support runs on the CPU: GGML's scheduler splits"
		 " the layer there and back, copying its tensors both ways and waiting for each"
		 " device";
	snprintf(x->to_try, sizeof x->to_try, "a newer GGML (its backends gain ops); a type or"
		 " shape the backend supports: the KV cache in f16 (-ctk f16 -ctv f16), flash"
		 " attention on or off (-fa); GGML_SCHED_DEBUG=2 prints where each node went and why");
	cli_advise_figure(x, "ops", (double)count);
	cli_advise_figure(x, "share", share);
	cli_advise_figure(x, "ns_per_token", per_token(f, ns));
}

/*
 * The median over generation's sampled steps (their bins) of the share of
 * a step without a kernel on the GPU: a burst of the host's load in a few
 * steps moves it less than the sum.
 */
static double median_idle(const struct cli_facts *f)
{
	double v[CLI_ADVISE_GEN_BINS];
	size_t n = 0;

	for (size_t i = 0; i < f->n_gens; i++) {
		const struct cli_gen_step *g = &f->gens[i];
		if (g->kernel_step_ns)
			v[n++] = g->kernel_step_ns > g->kernel_ns
					 ? (double)(g->kernel_step_ns - g->kernel_ns) / (double)g->kernel_step_ns
					 : 0;
	}
	return cli_advise_median(v, n);
}

static void gpu_idle(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "gpu-idle";
	struct cli_finding *x;
	double busy, span, idle;
	char b[4][32];

	if (!f->has_gpu_runs) {
		cli_advise_silent(a, id);
		return;
	}
	if (!f->gen_kernels || !f->gen_kernel_steps) {
		cli_advise_not(a, id, "no GPU kernel in a generation step of the trace (recorded on CUDA"
			       " where CUPTI is found; `ggmlviz info` says why not)");
		return;
	}
	busy = (double)f->gen_kernel_ns, span = (double)f->gen_kernel_step_ns;
	idle = median_idle(f);
	if (idle < GPU_IDLE_SHARE) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "the GPU is idle %.1f%% of the median generated token",
		 100 * idle);
	snprintf(x->seen, sizeof x->seen, "in %" PRIu64 " generation steps whose kernels were"
		 " recorded, the GPU ran kernels %s of their %s (%s a step): between its runs it"
		 " waited %s a step for the host (the graph's preparation, the launches, the"
		 " scheduler's waits and copies)", f->gen_kernel_steps, cli_fmt_ns(busy, b[0]),
		 cli_fmt_ns(span, b[1]), cli_fmt_ns(span / (double)f->gen_kernel_steps, b[2]),
		 cli_fmt_ns((span - busy) / (double)f->gen_kernel_steps, b[3]));
	snprintf(x->threshold, sizeof x->threshold, "%.0f%% of the median generation step's time"
		 " without a kernel on the GPU", 100 * GPU_IDLE_SHARE);
	x->why = "the GPU computes only what the host has launched; while the host prepares the"
		 " next graph or waits for a copy, the GPU's time is lost";
	snprintf(x->to_try, sizeof x->to_try, "CUDA graphs (on by default; leave"
		 " GGML_CUDA_DISABLE_GRAPHS unset), so that a token's kernels launch at once; larger"
		 " batches (-b, -ub; more slots -np) so that each launch carries more work; traced,"
		 " a GGML built with libggmlviz's --sched-no-wait edit (scripts/build-llama-tools.sh),"
		 " else the scheduler waits for the device after every run");
	cli_advise_figure(x, "idle_share", idle);
	cli_advise_figure(x, "idle_ns_per_step", (span - busy) / (double)f->gen_kernel_steps);
}

static void device_near_full(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "device-memory-near-full";
	const struct cli_mem_devices *m = &f->mem;
	struct cli_finding *x = NULL;
	char b[3][32];
	bool any_total = false;

	if (!m->any) {
		cli_advise_not(a, id, "no memory in the trace (GGML_VIZ_MEMORY_TRACKING=1 records the"
			       " backend buffers)");
		return;
	}
	for (size_t i = 0; i < m->n; i++) {
		const struct cli_mem_device *d = &m->d[i];
		double used = d->total ? 1 - (double)d->free_seen / (double)d->total : 0;
		double peak = d->total ? (double)d->peak / (double)d->total : 0;

		any_total |= d->total != 0;
		if (!d->total || (used < DEVICE_FULL && peak < DEVICE_FULL))
			continue;
		if (!x) {
			x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
			snprintf(x->title, sizeof x->title, "%s's memory is near full", d->name);
			x->why = "a device out of memory fails the next allocation (a longer context, more"
				 " slots, a larger batch), and GGML does not move a buffer to another"
				 " device by itself";
			snprintf(x->threshold, sizeof x->threshold, "%.0f%% of a device's memory in use"
				 " (GGML's free bytes when one of its buffers was first used), or the"
				 " trace's buffers' peak", 100 * DEVICE_FULL);
			snprintf(x->to_try, sizeof x->to_try, "a smaller context (-c), a KV cache of 8"
				 " bits (-ctk q8_0 -ctv q8_0, with -fa), a smaller micro-batch (-ub) for the"
				 " compute buffers, fewer layers on that device (-ngl), a smaller"
				 " quantization of the model");
		}
		APPEND(x->seen, "%s%s: %s of %s in use (%s free at least), this process's buffers'"
		       " peak %s: weights %s, KV cache %s, compute %s", x->seen[0] ? "; " : "", d->name,
		       cli_fmt_bytes(d->total - d->free_seen, b[0]), cli_fmt_bytes(d->total, b[1]),
		       cli_fmt_bytes(d->free_seen, b[2]), cli_fmt_bytes(d->peak, b[0]),
		       cli_fmt_bytes(d->role_peak[CLI_MEM_WEIGHTS], b[1]),
		       cli_fmt_bytes(d->role_peak[CLI_MEM_KV], b[2]),
		       cli_fmt_bytes(d->role_peak[CLI_MEM_COMPUTE], b[0]));
		cli_advise_figure(x, "used_share", used > peak ? used : peak);
	}
	if (!x && !any_total)
		cli_advise_not(a, id, "no device's memory in the trace (META DEVICE, which the GGML"
			       " adapter writes with memory tracking on; an older writer)");
	else if (!x)
		cli_advise_silent(a, id);
}

void cli_rules_gpu(const struct cli_facts *f, struct cli_advice *a)
{
	model_split(f, a);
	gpu_fallback(f, a);
	gpu_idle(f, a);
	device_near_full(f, a);
}
