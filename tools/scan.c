/*
 * A first pass over a trace, for the subcommands that need to know its
 * start (times are written relative to it), its first process, or the
 * names of its ops before they write anything. It costs a read of the
 * file, not memory: it runs on a reader of its own, closed at the end.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "cli.h"

void ggmlviz__scan(struct ggmlviz__input *in, struct ggmlviz__scan *s)
{
	struct ggmlviz__input first;
	struct ggmlviz_event ev;
	bool has_pid = false;

	*s = (struct ggmlviz__scan){ 0 };
	in->progress.stage = "pass 2 of 2: ";
	if (ggmlviz__input_start(&first, in->cmd, in->path) < 0)
		return; /* in is open: the second pass says what is wrong */
	s->t_min = UINT64_MAX;
	first.progress.stage = "pass 1 of 2: ";
	while (ggmlviz__input_next(&first, &ev) == 1) {
		ggmlviz__names_note(&ev);
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
	ggmlviz__names_learn(first.r);
	ggmlviz__input_close(&first);
}

bool ggmlviz__in_window(const struct ggmlviz__window *w, uint64_t t0, uint64_t ts)
{
	uint64_t rel;

	if (!w->set)
		return true;
	rel = ts > t0 ? ts - t0 : 0;
	return rel >= w->from && rel <= w->to;
}

void ggmlviz__track_pid(uint64_t *pid, const struct ggmlviz_event *ev)
{
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_PROCESS)
		*pid = ev->data.meta.key;
}
