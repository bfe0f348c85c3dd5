/*
 * What stats and diff share: their grouping options, and reading every op
 * timing of a trace into a grouping, named with the trace's names.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <getopt.h>
#include <string.h>

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
	case 'S':
		return cli_parse_steps(cmd, arg, &o->step_range);
	case 'p': /* the order of enum ggmlviz_phase */
		return cli_parse_choice(cmd, "--phase", arg,
					(const char *const[]){ "all", "prompt", "generation", "encode", NULL },
					&o->phase);
	default:
		return CLI_EXIT_USAGE;
	}
}

/* A step's number in --steps: 1 or more. */
static int step_number(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 19)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return v ? 0 : -1;
}

/* A-B, A-, -B (either side may be left out, not both); 0 or -1. */
static int step_range(const char *val, const char *dash, struct cli_steps *s)
{
	size_t head = (size_t)(dash - val);

	if (head && step_number(val, head, &s->first) < 0)
		return -1;
	if (dash[1] && step_number(dash + 1, strlen(dash + 1), &s->last) < 0)
		return -1;
	return cli_steps_set(s) && (!s->last || s->first <= s->last) ? 0 : -1;
}

int cli_parse_steps(const char *cmd, const char *val, struct cli_steps *s)
{
	const char *dash = strchr(val, '-');
	int rc;

	*s = (struct cli_steps){ 0, 0 };
	if (dash)
		rc = step_range(val, dash, s);
	else if ((rc = step_number(val, strlen(val), &s->first)) == 0)
		s->last = s->first; /* A: step A alone */
	if (rc < 0)
		return cli_usage(cmd, "--steps: '%s' is not a range of steps (A-B, A-, -B or A, "
				      "numbered from 1 as --by step numbers them)", val);
	return 0;
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
	a->reader = in.r;
	cli_ticks_learn_file(&ticks, cmd, path);
	while (rc == 0 && cli_input_timing(&in, &t) == 1)
		rc = cli_ticks_feed(&ticks, &t, cli_agg_add, a);
	if (rc == 0)
		rc = cli_ticks_flush(&ticks, cli_agg_add, a);
	cli_agg_ticks(a, &ticks);
	cli_ticks_free(&ticks);
	ggmlviz_reader_pairing_counts(in.r, &a->counts);
	a->reader = NULL;
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
	if (each->opened)
		each->opened(in.r, arg);
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
