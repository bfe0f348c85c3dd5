/*
 * The first pass of a command that reads a trace twice (scan.c), and
 * the window of time a command looks at.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_SCAN_H
#define CLI_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include <ggmlviz/reader.h>

#include "input.h"
#include "names.h"
#include "opts.h"

/* What a first pass learns of a trace (scan.c): its times, its first
 * process, and the names of what it holds (kept by names.c). */
struct cli_scan {
	uint64_t t_min, t_max; /* over every record but META (whose times mean little) */
	bool has_time;
	uint64_t first_pid;    /* of the first PROCESS record, or 0 */
};

/*
 * The first pass of a command that reads in twice: reads in's file to its
 * end on a reader of its own (closed after: none of its pages stay
 * mapped), fills s, and keeps the names it found (cli_names_learn).
 * Sets the progress stages of both passes. Damage is left for in to find.
 */
void cli_scan(struct cli_input *in, struct cli_scan *s);

/* Whether ev, at ev->timestamp_ns, lies in the window (relative to t0). */
bool cli_in_window(const struct cli_window *w, uint64_t t0, uint64_t ts);

/* The pid of the events that follow ev: a PROCESS record changes it. */
void cli_track_pid(uint64_t *pid, const struct ggmlviz_event *ev);

#endif /* CLI_SCAN_H */
