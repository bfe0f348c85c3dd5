/*
 * A progress line for long reads: shown on stderr only when it is a
 * terminal, only once the work has taken a quarter of a second, updated
 * every quarter of a second, and erased when the work is done.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "input/input.h"

#define PERIOD_S 0.25
/* The clock is read once every this many updates (records), not for each. */
#define TICKS_PER_LOOK 4096u

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(struct cli_progress *p, const char *what, uint64_t total)
{
	p->on = isatty(STDERR_FILENO) == 1;
	p->shown = false;
	p->what = what;
	p->stage = "";
	p->total = total;
	p->tick = 0;
	p->start = p->last = p->on ? now_s() : 0;
}

void cli_progress_update(struct cli_progress *p, uint64_t done)
{
	double t;

	if (!p->on || ++p->tick < TICKS_PER_LOOK)
		return;
	p->tick = 0;
	t = now_s();
	if (t - p->last < PERIOD_S)
		return;
	p->last = t;
	p->shown = true;
	fprintf(stderr, "\rggmlviz: %s: %s%3u%% of %llu MiB ", p->what, p->stage,
		p->total ? (unsigned)(done * 100 / p->total) : 100,
		(unsigned long long)(p->total >> 20));
}

void cli_progress_done(struct cli_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}
