/*
 * The time a --steps range spans (stats.h): from the first chosen step's
 * begin to the last one's end, which report draws and export keeps; a
 * range that holds none of the trace's steps is a bad command line, said
 * with the steps the trace has.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>

#include "base/opts.h"
#include "input/input.h"
#include "stats/stats.h"

void cli_step_span_add(struct cli_step_span *w, const struct cli_steps *s,
		       const struct ggmlviz_timing *t)
{
	if (t->kind != GGMLVIZ_TIMING_STEP)
		return;
	if (t->step_seq > w->last_step)
		w->last_step = t->step_seq;
	if (!cli_steps_has(s, t->step_seq))
		return;
	if (!w->chosen++ || t->begin_ns < w->begin)
		w->begin = t->begin_ns;
	if (t->end_ns > w->end)
		w->end = t->end_ns;
}

int cli_step_span_check(const char *cmd, const char *path, const struct cli_steps *s,
			const struct cli_step_span *w)
{
	if (!cli_steps_set(s) || w->chosen)
		return 0;
	if (w->last_step)
		return cli_usage(cmd, "--steps: %s has steps 1 to %" PRIu64 ", none of those asked",
				 path, w->last_step);
	return cli_usage(cmd, "--steps: %s has no steps (no llama_decode() or ggmlviz_step "
			 "records)", path);
}

int cli_step_span_read(const char *cmd, const char *path, const struct cli_steps *s,
		       struct cli_step_span *w)
{
	struct cli_input in;
	struct ggmlviz_timing t;

	*w = (struct cli_step_span){ 0, 0, 0, 0 };
	if (cli_input_open(&in, cmd, path) < 0)
		return CLI_EXIT_DAMAGED; /* said */
	while (cli_input_timing(&in, &t) == 1)
		cli_step_span_add(w, s, &t);
	cli_input_close(&in);
	return cli_step_span_check(cmd, path, s, w);
}
