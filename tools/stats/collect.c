/*
 * What stats and diff share: their grouping options, and reading every op
 * timing of a trace into a grouping, named with the trace's names.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <getopt.h>

#include "stats/stats.h"
#include "input/input.h"
#include "base/opts.h"

const char *const cli_format_names[] = { "text", "csv", "json", NULL };

int cli_group_option(const char *cmd, struct cli_group_opts *o, int c,
			  const char *arg, const char *const *sorts)
{
	switch (c) {
	case 'b':
		return cli_parse_choice(cmd, "--by", arg, cli_by_names, &o->by);
	case 's':
		return cli_parse_choice(cmd, "--sort", arg, sorts, &o->sort);
	case 'n':
		return cli_parse_count(cmd, "--top", arg, &o->top);
	case 'f':
		return cli_parse_choice(cmd, "--format", arg, cli_format_names,
					     &o->format);
	case CLI_OPT_RAW_TICKS:
		o->raw_ticks = true;
		return 0;
	case CLI_OPT_AS_TICKS:
		cli_as_ticks_on = true;
		return 0;
	case 'p': /* the order of enum ggmlviz_phase */
		return cli_parse_choice(cmd, "--phase", arg,
					(const char *const[]){ "all", "prompt", "generation", NULL },
					&o->phase);
	default:
		return CLI_EXIT_USAGE;
	}
}

int cli_collect(const char *cmd, const char *path, struct cli_agg *a)
{
	struct cli_input in;
	struct ggmlviz_timing t;
	int rc = 0, status;

	struct cli_ticks ticks = { .raw = a->raw_ticks };

	if (cli_input_open(&in, cmd, path) < 0)
		return -1;
	cli_peak_read(path, &a->peak);
	cli_ticks_learn_file(&ticks, cmd, path);
	while (rc == 0 && cli_input_timing(&in, &t) == 1)
		rc = cli_ticks_feed(&ticks, &t, cli_agg_add, a);
	if (rc == 0)
		rc = cli_ticks_flush(&ticks, cli_agg_add, a);
	cli_agg_ticks(a, &ticks);
	cli_ticks_free(&ticks);
	ggmlviz_reader_pairing_counts(in.r, &a->counts);
	if (rc == 0)
		rc = cli_agg_finish(a, in.r);
	if (a->measured || a->backends.shares)
		cli_shares_said_read(path, &a->said);
	status = cli_input_report(&in);
	cli_input_close(&in);
	if (rc < 0) {
		cli_error("%s: %s", path, ggmlviz_strerror(rc));
		return CLI_EXIT_DAMAGED;
	}
	return status;
}

int cli_each_timing(const char *cmd, const char *path, const struct cli_each *each, void *arg,
		    struct ggmlviz_pairing_counts *counts)
{
	struct cli_input in;
	struct ggmlviz_pairing *p;
	struct ggmlviz_event ev;
	struct ggmlviz_timing t;
	int rc = 0, status;

	if (cli_input_open(&in, cmd, path) < 0)
		return -1;
	if ((rc = ggmlviz_pairing_new(&p)) < 0) {
		cli_input_close(&in);
		return rc;
	}
	while (rc == 0 && cli_input_next(&in, &ev) == 1) {
		if (each->event)
			each->event(&ev, arg);
		for (int got = ggmlviz_pairing_add(p, &ev, &t); got == 1 && rc == 0;
		     got = ggmlviz_pairing_take(p, &t))
			rc = each->timing(&t, arg);
	}
	ggmlviz_pairing_finish(p);
	if (counts)
		ggmlviz_pairing_counts(p, counts);
	ggmlviz_pairing_free(p);
	status = cli_input_report(&in);
	cli_input_close(&in);
	if (rc < 0) {
		cli_error("%s: %s", path, ggmlviz_strerror(rc));
		return CLI_EXIT_DAMAGED;
	}
	return status;
}
