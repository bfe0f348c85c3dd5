/*
 * What the trace itself lets its figures say (advise.h): cut short or
 * damaged, events dropped, ops sampled or summed, CPU ops estimated from
 * the backend's ticks, GPU kernels recorded in sampled windows. Notes,
 * not faults of the run: each says what the figures can and cannot say.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "advise/advise.h"

static void incomplete(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "trace-incomplete";
	struct cli_finding *x;

	if (f->ended && !f->damaged) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_NOTE);
	snprintf(x->title, sizeof x->title, "the trace is %s", f->damaged ? "damaged or cut short"
							       : f->crashed ? "of a program that crashed"
									    : "incomplete");
	snprintf(x->seen, sizeof x->seen, "%s", f->damaged ? f->damage
				   : f->crashed ? "it ends with a CRASH record: the program died"
						: "it has no TRACE_END record: the program did not stop"
						  " tracing (killed, or still writing)");
	snprintf(x->threshold, sizeof x->threshold, "a trace that does not end with TRACE_END");
	x->why = "the figures are of the records before the end: a step, run or op still open"
		 " then is in none of them, and what the program did after is not in the trace";
	snprintf(x->to_try, sizeof x->to_try, "ggmlviz_stop() before the program exits (llama.cpp's"
		 " tools built by scripts/build-llama-tools.sh stop at exit); a program stopped"
		 " with SIGTERM rather than SIGKILL");
}

static void dropped(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "trace-dropped";
	struct cli_finding *x;

	if (!f->dropped && !f->drop_records) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_NOTE);
	snprintf(x->title, sizeof x->title, "the tracer dropped events");
	snprintf(x->seen, sizeof x->seen, "%" PRIu64 " events dropped (TRACE_END), in %" PRIu64
		 " DROPPED records: a thread's ring was full when it emitted them (ggmlviz info"
		 " lists where)", f->dropped, f->drop_records);
	snprintf(x->threshold, sizeof x->threshold, "any event dropped");
	x->why = "an op whose begin or end was dropped has no timing: the op time of the steps that"
		 " lost events is low, their counts short, and a figure of them undercounts";
	snprintf(x->to_try, sizeof x->to_try, "a larger GGML_VIZ_MAX_EVENTS where the trace"
		 " reached it (GGML_VIZ_VERBOSE=1 says so); larger rings (GGML_VIZ_BUFFER_SIZE,"
		 " GGML_VIZ_BUFFER_MAX); GGML_VIZ_OVERFLOW=block, which waits for room rather than"
		 " drop; fewer ops recorded"
		 " (GGML_VIZ_OP_SAMPLE)");
	cli_advise_figure(x, "dropped", (double)f->dropped);
}

static void sampled(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "trace-sampled";
	struct cli_finding *x;
	char b[32];

	if (!f->sampled && !f->all.summed) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_NOTE);
	snprintf(x->title, sizeof x->title, "ops sampled: not every step kept op by op");
	snprintf(x->seen, sizeof x->seen, "%s%s%" PRIu64 " ops (%s) known by their sums per op type",
		 f->sample_note, f->sample_note[0] ? "; " : "", f->all.summed,
		 cli_fmt_ns((double)f->all.summed_ns, b));
	snprintf(x->threshold, sizeof x->threshold, "a trace written with op sampling (META SAMPLE)");
	x->why = "the steps not kept op by op have no names, layers or single times: by name, layer"
		 " or part they are left out, by op their percentiles are of the kept steps";
	snprintf(x->to_try, sizeof x->to_try, "trace without GGML_VIZ_OP_SAMPLE (and"
		 " GGML_VIZ_OP_SLOW) to keep every op");
}

static void estimated(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "trace-estimated";
	uint64_t ticked = 0;
	struct cli_finding *x;

	for (size_t i = 0; i < f->all.backends.n; i++)
		ticked += f->all.backends.s[i].ops[GGMLVIZ_OP_METHOD_TICK];
	if (!ticked) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_NOTE);
	snprintf(x->title, sizeof x->title, "CPU ops timed by the backend's ticks%s",
		 f->all.ticks_estimated ? ", their waits estimated" : "");
	snprintf(x->seen, sizeof x->seen, "%" PRIu64 " ops timed from the CPU backend's call after"
		 " each node (a prebuilt GGML gives no more)%s", ticked,
		 f->all.ticks_estimated ? "; the runs' starts and the barrier's waits estimated from"
					  " each node's least time in the trace"
					: "; read as ticked (--raw-ticks, or a pipe)");
	snprintf(x->threshold, sizeof x->threshold, "ops of method tick in the trace");
	x->why = "thread 0's tick after a node says when it finished its own share, not when the"
		 " slowest worker did: the large ops (MUL_MAT, FLASH_ATTN_EXT) come within a few"
		 " percent, the small ops after them can be off by a third or more, and the barrier's"
		 " wait is an estimate";
	snprintf(x->to_try, sizeof x->to_try, "llama.cpp's tools built by"
		 " scripts/build-llama-tools.sh, whose GGML measures every worker's share of every"
		 " node: each op then runs from the first worker's begin to the last one's end, and"
		 " stats's TIMED column says measured");
	cli_advise_figure(x, "ticked_ops", (double)ticked);
}

static void gpu_windows(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "trace-gpu-windows";
	const uint64_t *w = f->all.window_steps;
	uint64_t steps = w[0] + w[1] + w[2] + w[3];
	struct cli_finding *x;

	if (!w[GGMLVIZ_GPU_WINDOW_IN] && !w[GGMLVIZ_GPU_WINDOW_OUT]) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_NOTE);
	snprintf(x->title, sizeof x->title, "GPU kernels recorded in sampled windows");
	snprintf(x->seen, sizeof x->seen, "kernels recorded in %" PRIu64 " of %" PRIu64 " steps"
		 " (GGML_VIZ_GPU_SAMPLE=%" PRIu64 "/%" PRIu64 "): %" PRIu64 " steps outside the"
		 " windows, %" PRIu64 " of CUPTI's warm-up", w[GGMLVIZ_GPU_WINDOW_IN], steps,
		 f->window_k, f->window_n, w[GGMLVIZ_GPU_WINDOW_OUT], w[GGMLVIZ_GPU_WINDOW_WARMUP]);
	snprintf(x->threshold, sizeof x->threshold, "a trace with META GPU_WINDOW records");
	x->why = "the GPU ops' times are of the sampled steps only (by op, layer and part); every"
		 " step keeps its own time (by step and phase), and a slow step outside the windows"
		 " shows no kernel";
	snprintf(x->to_try, sizeof x->to_try, "GGML_VIZ_GPU_SAMPLE=1/1 records every step's kernels"
		 " (at CUPTI's cost); more steps in a window (K/N) for steadier figures");
	cli_advise_figure(x, "sampled_steps", (double)w[GGMLVIZ_GPU_WINDOW_IN]);
	cli_advise_figure(x, "steps", (double)steps);
}

void cli_rules_trace(const struct cli_facts *f, struct cli_advice *a)
{
	incomplete(f, a);
	dropped(f, a);
	sampled(f, a);
	estimated(f, a);
	gpu_windows(f, a);
}
