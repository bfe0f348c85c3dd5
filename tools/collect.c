/*
 * What stats and diff share: their grouping options, and reading every op
 * timing of a trace into a grouping, named with the trace's names.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <getopt.h>

#include "agg.h"
#include "cli.h"

const char *const ggmlviz__format_names[] = { "text", "csv", "json", NULL };

int ggmlviz__group_option(const char *cmd, struct ggmlviz__group_opts *o, int c,
			  const char *arg, const char *const *sorts)
{
	switch (c) {
	case 'b':
		return ggmlviz__parse_choice(cmd, "--by", arg, ggmlviz__by_names, &o->by);
	case 's':
		return ggmlviz__parse_choice(cmd, "--sort", arg, sorts, &o->sort);
	case 'n':
		return ggmlviz__parse_count(cmd, "--top", arg, &o->top);
	case 'f':
		return ggmlviz__parse_choice(cmd, "--format", arg, ggmlviz__format_names,
					     &o->format);
	default:
		return GGMLVIZ__EXIT_USAGE;
	}
}

int ggmlviz__collect(const char *cmd, const char *path, struct ggmlviz__agg *a)
{
	struct ggmlviz__input in;
	struct ggmlviz_timing t;
	int rc = 0, status;

	if (ggmlviz__input_open(&in, cmd, path) < 0)
		return -1;
	while (rc == 0 && ggmlviz__input_timing(&in, &t) == 1)
		rc = ggmlviz__agg_add(a, &t);
	ggmlviz_timings_counts(in.r, &a->counts);
	if (rc == 0)
		rc = ggmlviz__agg_finish(a, in.r);
	status = ggmlviz__input_report(&in);
	ggmlviz__input_close(&in);
	if (rc < 0) {
		ggmlviz__error("%s: %s", path, ggmlviz_strerror(rc));
		return GGMLVIZ__EXIT_DAMAGED;
	}
	return status;
}
