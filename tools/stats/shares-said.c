/*
 * What a trace says of the CPU backend's shares that no op got: its META
 * SHARES records, written at each session's clean stop (see
 * ggmlviz_cpu_share_begin(3)). They come near the end, so a second reader
 * goes through the file; stats asks only where shares were measured.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "input/input.h"
#include "stats/stats.h"

void cli_shares_said_read(const char *path, struct cli_shares_said *s)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;

	memset(s, 0, sizeof *s);
	if (cli_path_reopen(path, &r) < 0)
		return; /* a stream not copied: not said */
	s->read = true;
	while (ggmlviz_reader_next(r, &ev) == 1) {
		if (ev.type != GGMLVIZ_EVENT_META || ev.data.meta.kind != GGMLVIZ_META_SHARES)
			continue;
		s->sessions++; /* one a session: merged traces hold several */
		s->unattributed += ev.data.meta.value;
		s->beyond += ev.data.meta.value2;
	}
	ggmlviz_reader_close(r);
}
