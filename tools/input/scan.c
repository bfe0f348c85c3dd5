/*
 * A first pass over a trace, for the subcommands that need to know its
 * start (times are written relative to it), its first process, or the
 * names of its ops before they write anything. It costs a read of the
 * file, not memory: it runs on a reader of its own, closed at the end.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "input/input.h"
#include "base/opts.h"

void cli_scan(struct cli_input *in, struct cli_scan *s, struct cli_names *names)
{
	struct cli_input first;
	struct ggmlviz_event ev;
	bool has_pid = false;

	*s = (struct cli_scan){ 0 };
	in->progress.stage = "pass 2 of 2: ";
	if (cli_input_start(&first, in->cmd, in->path) < 0)
		return; /* in is open: the second pass says what is wrong */
	s->t_min = UINT64_MAX;
	first.progress.stage = "pass 1 of 2: ";
	while (cli_input_next(&first, &ev) == 1) {
		cli_names_note(names, &ev);
		if (ev.type == GGMLVIZ_EVENT_META) {
			if (!has_pid && ev.data.meta.kind == GGMLVIZ_META_PROCESS)
				s->first_pid = ev.data.meta.key, has_pid = true;
			continue;
		}
		s->t_min = ev.timestamp_ns < s->t_min ? ev.timestamp_ns : s->t_min;
		s->t_max = ev.timestamp_ns > s->t_max ? ev.timestamp_ns : s->t_max;
		s->has_time = true;
	}
	if (!s->has_time)
		s->t_min = s->t_max = 0;
	cli_names_learn(names, first.r);
	cli_input_close(&first);
}

void cli_track_pid(uint64_t *pid, const struct ggmlviz_event *ev)
{
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_PROCESS)
		*pid = ev->data.meta.key;
}
