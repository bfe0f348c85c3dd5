/*
 * The machine's peak, as the trace's META PEAK record says it, and what
 * bounds each op group (see stats.h): its arithmetic intensity (FLOP per
 * byte moved) against the machine's balance (peak FLOP/s over peak
 * bytes/s) says whether memory or arithmetic limits it, and its achieved
 * rate over that peak how close it came.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "input/input.h"
#include "stats/stats.h"

#define PEAK_SEARCH 64 /* META PEAK comes right after PROCESS: the first records only */

void cli_peak_read(const char *path, struct cli_peak *p)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;

	memset(p, 0, sizeof *p);
	if (cli_path_reopen(path, &r) < 0)
		return;
	for (int i = 0; i < PEAK_SEARCH && !p->known && ggmlviz_reader_next(r, &ev) == 1; i++) {
		if (ev.type != GGMLVIZ_EVENT_META || ev.data.meta.kind != GGMLVIZ_META_PEAK ||
		    !ev.data.meta.value || !ev.data.meta.value2)
			continue;
		p->known = true;
		p->threads = (uint32_t)ev.data.meta.key;
		p->bytes_per_s = (double)ev.data.meta.value;
		p->flop_per_s = (double)ev.data.meta.value2;
		snprintf(p->how, sizeof p->how, "%.*s", (int)(ev.label ? ev.label_len : 0),
			 ev.label ? ev.label : "");
	}
	ggmlviz_reader_close(r);
}

int cli_roofline(const struct cli_group *g, const struct cli_peak *p, double *share)
{
	double intensity, gbps = cli_group_gbps(g), gflops = cli_group_gflops(g);

	*share = 0;
	if (!p->known || gbps < 0 || gflops < 0 || !g->bytes)
		return CLI_BOUND_UNKNOWN;
	intensity = (double)g->flops / (double)g->bytes;
	if (intensity < p->flop_per_s / p->bytes_per_s) {
		*share = gbps * 1e9 / p->bytes_per_s;
		return CLI_BOUND_MEMORY;
	}
	*share = gflops * 1e9 / p->flop_per_s;
	return CLI_BOUND_COMPUTE;
}
