/*
 * What stats says of a trace whose GPU kernels were recorded in sampled
 * windows (GGML_VIZ_GPU_SAMPLE): its op groupings hold the sampled steps
 * only (agg.c, cli_window_out()), and say so under their table and in
 * their JSON; by step and phase every step is a row, and only the steps
 * of the windows have their GPU ops.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "output/output.h"
#include "stats/stats.h"

/* Steps that were in a window, warm-up or outside: none in a trace without windows. */
static uint64_t windowed(const struct cli_agg *a)
{
	return a->window_steps[GGMLVIZ_GPU_WINDOW_IN] + a->window_steps[GGMLVIZ_GPU_WINDOW_WARMUP] +
	       a->window_steps[GGMLVIZ_GPU_WINDOW_OUT];
}

void cli_window_note(struct cli_out *o, const struct cli_agg *a)
{
	const uint64_t *w = a->window_steps;

	if (!windowed(a))
		return;
	if (cli_by_steps(a->by)) {
		cli_out_printf(o, "(GPU kernels recorded in sampled windows (GGML_VIZ_GPU_SAMPLE): the "
			       "%llu sampled steps and %llu of CUPTI's warm-up have their GPU ops; "
			       "the OP TIME of the %llu outside holds their CPU ops only)\n",
			       (unsigned long long)w[GGMLVIZ_GPU_WINDOW_IN],
			       (unsigned long long)w[GGMLVIZ_GPU_WINDOW_WARMUP],
			       (unsigned long long)w[GGMLVIZ_GPU_WINDOW_OUT]);
		return;
	}
	cli_out_printf(o, "(GPU kernels recorded in sampled windows (GGML_VIZ_GPU_SAMPLE): the rows, "
		       "totals and per-token figures are of the %llu sampled steps only; %llu steps "
		       "of CUPTI's warm-up and %llu outside the windows are left out, with their "
		       "%llu op timings; --by step gives every step's time)\n",
		       (unsigned long long)w[GGMLVIZ_GPU_WINDOW_IN],
		       (unsigned long long)w[GGMLVIZ_GPU_WINDOW_WARMUP],
		       (unsigned long long)w[GGMLVIZ_GPU_WINDOW_OUT],
		       (unsigned long long)a->window_ops_out);
}

void cli_window_json(struct cli_out *o, const struct cli_agg *a)
{
	const uint64_t *w = a->window_steps;

	if (!windowed(a)) {
		cli_out_str(o, ",\"gpu_windows\":null");
		return;
	}
	cli_out_printf(o, ",\"gpu_windows\":{\"sampled_steps\":%llu,\"warmup_steps\":%llu,"
		       "\"outside_steps\":%llu,\"ops_left_out\":%llu}",
		       (unsigned long long)w[GGMLVIZ_GPU_WINDOW_IN],
		       (unsigned long long)w[GGMLVIZ_GPU_WINDOW_WARMUP],
		       (unsigned long long)w[GGMLVIZ_GPU_WINDOW_OUT],
		       (unsigned long long)a->window_ops_out);
}
