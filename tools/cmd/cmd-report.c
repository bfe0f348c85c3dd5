/*
 * ggmlviz report: one HTML file that shows where the time went (report.h).
 *
 * Three passes over the trace, each streaming: cli_scan() for its times and
 * names; a count of its op timings and their durations, which sets the
 * shortest op drawn one by one (max_slices of them at most), and with
 * --steps the time those steps span; then the page, its slices written as
 * they are read.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "output/output.h"
#include "input/input.h"
#include "base/opts.h"
#include "report/report.h"
#include "advise/advise.h"

static const char help[] =
	"Usage: ggmlviz report [OPTIONS] FILE -o REPORT.html\n"
	"\n"
	"Write one self-contained HTML page that any current browser opens from disk,\n"
	"with nothing fetched: first the findings of 'ggmlviz advise' (of the whole\n"
	"trace), then a timeline of steps, graphs, runs of nodes and ops, a\n"
	"lane per thread (zoom, pan, click for details); the op table of 'ggmlviz\n"
	"stats'; the time by layer, part, phase, step and backend; memory over time; and the\n"
	"trace's health in words. On a big trace, the ops too short to be seen past\n"
	"--max-slices are summed into a density strip instead of drawn one by one.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE     the page to write (\"-\": standard output); required\n"
	"      --max-slices N    draw at most N ops one by one (default 200000)\n"
	"      --title TEXT      the page's title (default: the trace's file name)\n"
	"  -S, --steps A-B       only steps A to B (as stats --by step numbers them;\n"
	"                        A- from A on, -B up to B, A alone): the timeline from\n"
	"                        the first one's begin to the last one's end, the tables\n"
	"                        of their ops (as stats --steps), memory as it was live\n"
	"                        then; the requests' tables, of the whole trace, are\n"
	"                        left out\n"
	"      --raw-ticks       ops timed by the CPU backend's ticks as ticked (see\n"
	"                        ggmlviz-stats: no run start, no barrier wait moved)\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 success, 1 damaged or unreadable trace (what came before the\n"
	"damage is in the page) or a write error, 2 bad command line.\n";

struct report_opts {
	struct cli *cli;
	const char *output, *title;
	uint64_t max_slices;
	int status;
	bool raw_ticks;
	struct cli_steps steps; /* --steps; unset: every step */
};

static int option(void *ctx, int c, char *arg)
{
	struct report_opts *x = ctx;

	switch (c) {
	case 'o':
		x->output = arg;
		return 0;
	case 'M':
		return cli_parse_count("report", "--max-slices", arg, &x->max_slices);
	case 'T':
		x->title = arg;
		return 0;
	case 'S':
		return cli_parse_steps("report", arg, &x->steps);
	case CLI_OPT_RAW_TICKS:
		x->raw_ticks = true;
		return 0;
	default:
		return CLI_EXIT_USAGE;
	}
}

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' }, { "max-slices", required_argument, NULL, 'M' },
	{ "title", required_argument, NULL, 'T' },  { "help", no_argument, NULL, 'h' },
	{ "steps", required_argument, NULL, 'S' },
	{ "raw-ticks", no_argument, NULL, CLI_OPT_RAW_TICKS },
	{ NULL, 0, NULL, 0 }
};

static const struct cli_cmd cmd = { "report", help, "o:S:", longopts, 1, 1, option };

/*
 * The shortest op or GPU kernel drawn one by one: 0 when every one fits in
 * max_slices (of the ops of steps, with --steps), else the duration above
 * which about max_slices lie (second pass, which also learns the floors of
 * op times from ticks, unless k->raw: stats/ticks.h, and the time steps
 * span, into *w).
 */
static uint64_t threshold(struct cli *cli, const char *path, uint64_t max_slices,
			  struct cli_ticks *k, const struct cli_steps *steps,
			  struct cli_step_span *w)
{
	struct cli_input in;
	struct ggmlviz_timing t;
	struct cli_dist d = { .spent = &cli->dist_bytes };
	bool learn = !k->raw;
	uint64_t ns = 0;

	if (cli_input_start(&in, "report", path) < 0)
		return 0;
	while (cli_input_timing(&in, &t) == 1) {
		if (learn && cli_ticks_learn(k, &t) < 0)
			learn = false;
		cli_step_span_add(w, steps, &t);
		if ((t.kind == GGMLVIZ_TIMING_OP || t.kind == GGMLVIZ_TIMING_KERNEL) &&
		    cli_steps_has(steps, t.step_seq) && cli_dist_add(&d, t.duration_ns) < 0)
			break;
	}
	if (d.count > max_slices)
		ns = cli_dist_quantile(&d, 1.0 - 0.9 * (double)max_slices / (double)d.count) + 1;
	if (!learn || cli_ticks_ready(k) < 0)
		cli_ticks_free(k); /* as ticked: --raw-ticks, or no memory to learn */
	cli_dist_free(&d);
	cli_input_close(&in);
	return ns;
}

static void third_pass(struct cli_report *rep, struct cli_input *in, struct cli_ticks *k)
{
	struct ggmlviz_pairing *pairing;
	struct ggmlviz_timing t;
	struct ggmlviz_event ev;
	int rc = ggmlviz_pairing_new(&pairing);

	rep->r = in->r;
	for (int i = 0; i < CLI_REPORT_BY_COUNT; i++)
		rep->by[i].reader = in->r; /* by part: ops placed as they come */
	while (rc == 0 && !rep->error && cli_input_next(in, &ev) == 1) {
		cli_report_record(rep, &ev);
		rc = ggmlviz_pairing_add(pairing, &ev, &t);
		while (rc == 1) {
			if (cli_ticks_feed(k, &t, cli_report_timing, rep) < 0)
				rc = -ENOMEM;
			else
				rc = ggmlviz_pairing_take(pairing, &t);
		}
	}
	ggmlviz_pairing_finish(pairing);
	while (rc >= 0 && ggmlviz_pairing_take(pairing, &t) == 1) /* GPU runs tied at the end */
		rc = cli_ticks_feed(k, &t, cli_report_timing, rep);
	if (rc >= 0)
		rc = cli_ticks_flush(k, cli_report_timing, rep);
	for (int i = 0; i < CLI_REPORT_BY_COUNT; i++) {
		cli_agg_ticks(&rep->by[i], k);
		ggmlviz_pairing_counts(pairing, &rep->by[i].counts);
	}
	ggmlviz_pairing_free(pairing);
	if (rc < 0)
		rep->error = rc;
}

/* Every grouping, as stats --by writes it (steps: the first 5000 in order; the ops
 * and the layers of each phase as stats --phase). */
/* The requests (sequences), as stats --by sequence gives them: a pass of its own; null if none. */
static void sequences(struct cli_report *rep, const char *path)
{
	struct cli_sequences s;

	cli_out_str(rep->o, "\"by_sequence\":");
	if (cli_path_is_file(path) && cli_sequences_collect("report", path, &s) >= 0 && s.n)
		cli_sequences_json(rep->o, path, &s);
	else
		cli_out_str(rep->o, "null");
	cli_out_char(rep->o, ',');
	if (cli_path_is_file(path))
		cli_sequences_free(&s);
}

/* A server's requests, as stats --by request gives them: a pass of its own; null if none. */
static void requests(struct cli_report *rep, const char *path)
{
	struct cli_requests s;

	cli_out_str(rep->o, "\"by_request\":");
	if (cli_path_is_file(path) && cli_requests_collect("report", path, &s) >= 0 && s.n)
		cli_requests_json(rep->o, path, &s);
	else
		cli_out_str(rep->o, "null");
	cli_out_char(rep->o, ',');
	if (cli_path_is_file(path))
		cli_requests_free(&s);
}

static void groupings(struct cli_report *rep, const char *path)
{
	static const char *const keys[CLI_REPORT_BY_COUNT] = {
		"by_op", "by_layer", "by_phase", "by_step", "by_backend", "by_op_prompt",
		"by_op_generation", "by_layer_prompt", "by_layer_generation", "by_part",
		"by_part_prompt", "by_part_generation"
	};
	static const int sorts[CLI_REPORT_BY_COUNT] = { CLI_SORT_TOTAL, CLI_SORT_ORDER,
							 CLI_SORT_ORDER, CLI_SORT_ORDER,
							 CLI_SORT_TOTAL, CLI_SORT_TOTAL,
							 CLI_SORT_TOTAL, CLI_SORT_ORDER,
							 CLI_SORT_ORDER, CLI_SORT_TOTAL,
							 CLI_SORT_TOTAL, CLI_SORT_TOTAL };

	for (int i = 0; i < CLI_REPORT_BY_COUNT; i++) {
		if (cli_agg_finish(&rep->by[i], rep->r) < 0)
			rep->error = -ENOMEM;
		cli_agg_sort(&rep->by[i], sorts[i]);
		cli_out_printf(rep->o, "\"%s\":", keys[i]);
		cli_agg_json(rep->o, path, &rep->by[i], i == CLI_REPORT_BY_STEP ? 5000 : UINT64_MAX);
		cli_out_char(rep->o, ',');
	}
	if (rep->window.set) { /* of the whole trace, not of the steps the page is of */
		cli_out_str(rep->o, "\"by_sequence\":null,\"by_request\":null,");
		return;
	}
	sequences(rep, path);
	requests(rep, path);
}

/* The trace itself: its file, state, time base and clock. */
static void summary(struct cli_report *rep, const struct cli_input *in,
		    const struct cli_steps *steps)
{
	struct cli_out *o = rep->o;
	char what[256];

	cli_out_str(o, "\"summary\":{\"file\":");
	cli_json_cstr(o, in->path);
	cli_out_printf(o, ",\"bytes\":%" PRIu64 ",\"records\":%" PRIu64 ",\"t0_ns\":%" PRIu64
			  ",\"span_ns\":%" PRIu64 ",\"clock\":\"%s\",\"status\":\"%s\"",
		       ggmlviz_reader_size(in->r), in->records, rep->t0, rep->t1 - rep->t0,
		       cli_clock_is_steady(rep->t0) ? "steady" : "wall",
		       in->error == GGMLVIZ_ETRUNCATED ? "cut short"
		       : in->error		       ? "damaged"
		       : in->crashed		       ? "crashed"
		       : in->ended		       ? "complete"
						       : "incomplete");
	cli_out_printf(o, ",\"written\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"crash_signal\":",
		       in->end_written, in->end_dropped);
	cli_json_cstr(o, in->crashed ? in->crash_name : "");
	cli_out_str(o, ",\"damage\":");
	if (in->error) {
		cli_input_describe(in, what, sizeof what);
		cli_json_cstr(o, what);
	} else {
		cli_out_str(o, "null");
	}
	cli_out_printf(o, ",\"op_names_assumed\":%s,\"generator\":\"ggmlviz " GGMLVIZ_VERSION_STRING
			  "\",\"steps\":", rep->names->assumed ? "true" : "false");
	if (cli_steps_set(steps)) /* --steps: [first, last], 0 where open */
		cli_out_printf(o, "[%" PRIu64 ",%" PRIu64 "]}", steps->first, steps->last);
	else
		cli_out_str(o, "null}");
}

/*
 * The findings of ggmlviz advise, of the whole trace (passes of their own),
 * as its JSON: the page opens on them. null where they could not be read.
 */
static void findings(struct cli *cli, struct cli_out *o, const char *path)
{
	struct cli_facts *f = calloc(1, sizeof *f);
	struct cli_advice *a = calloc(1, sizeof *a);

	cli_out_str(o, "\"findings\":");
	if (f && a && cli_facts_read("report", path, cli, f, NULL) >= 0) {
		cli_advise(f, a);
		cli_advise_json(o, path, a);
	} else {
		cli_out_str(o, "null");
	}
	cli_out_char(o, ',');
	if (f)
		cli_facts_free(f);
	free(f), free(a);
}

/* What the first two passes learn, before anything is written. */
struct prepared {
	struct cli_scan scan;
	struct cli_ticks ticks;
	struct cli_step_span window;
	uint64_t threshold_ns;
};

/*
 * The first two passes; with --steps, none of the trace's steps chosen is
 * a bad command line (said, with the steps it has): CLI_EXIT_USAGE, else 0.
 */
static int prepare(struct report_opts *x, struct cli_input *in, struct prepared *p)
{
	memset(p, 0, sizeof *p);
	p->ticks.raw = x->raw_ticks;
	cli_scan(in, &p->scan, &x->cli->names);
	p->threshold_ns = threshold(x->cli, in->path, x->max_slices, &p->ticks, &x->steps,
				    &p->window);
	if (cli_step_span_check("report", in->path, &x->steps, &p->window) == 0)
		return 0;
	cli_ticks_free(&p->ticks);
	return CLI_EXIT_USAGE;
}

static int write_report(struct report_opts *x, struct cli_input *in, struct cli_out *o,
			struct prepared *p)
{
	struct cli_report rep;
	const char *slash = strrchr(in->path, '/');
	bool windowed = cli_steps_set(&x->steps);
	int rc;

	rc = cli_report_init(&rep, o, &x->cli->names, &x->cli->dist_bytes,
			     windowed ? p->window.begin : p->scan.t_min,
			     windowed ? p->window.end : p->scan.t_max, p->threshold_ns, x->max_slices);
	rep.window = (struct cli_window){ 0, rep.t1 - rep.t0, windowed };
	cli_peak_read(in->path, &rep.by[0].peak);
	for (int i = 0; i < CLI_REPORT_BY_COUNT; i++) {
		rep.by[i].peak = rep.by[0].peak; /* every table's BOUND on the same machine */
		rep.by[i].step_range = x->steps; /* stats --steps */
	}
	o->json_html = true;
	cli_report_page_begin(o, x->title ? x->title : slash ? slash + 1 : in->path);
	cli_out_str(o, "{\"slices\":[");
	if (rc == 0)
		third_pass(&rep, in, &p->ticks);
	cli_ticks_free(&p->ticks);
	cli_out_str(o, "],\n");
	cli_report_tail(&rep);
	groupings(&rep, in->path);
	findings(x->cli, o, in->path);
	summary(&rep, in, &x->steps);
	cli_out_str(o, "}");
	cli_report_page_end(o);
	o->json_html = false;
	rc = rc < 0 ? rc : rep.error;
	cli_report_free(&rep);
	if (rc < 0)
		cli_error("report: %s: %s", in->path, ggmlviz_strerror(rc));
	return rc;
}

int cli_cmd_report(struct cli *cli, int argc, char **argv)
{
	struct report_opts x = { cli, NULL, NULL, 200000, 0, false, { 0, 0 } };
	struct cli_input in;
	struct cli_out o;
	struct prepared p;
	int first, rc, status = cli_parse(&cmd, argc, argv, &x, &first);

	if (status >= 0)
		return status;
	if (!x.output)
		return cli_usage("report", "no output: give -o REPORT.html");
	if (cli_same_file(argv[first], x.output))
		return cli_usage("report", "the output %s is the input", x.output);
	if (cli_input_open(&in, "report", argv[first]) < 0)
		return CLI_EXIT_DAMAGED;
	if (prepare(&x, &in, &p) != 0) {
		cli_input_close(&in);
		return CLI_EXIT_USAGE;
	}
	if (cli_out_open(&o, "report", x.output) < 0) {
		cli_ticks_free(&p.ticks);
		cli_input_close(&in);
		return CLI_EXIT_DAMAGED;
	}
	rc = write_report(&x, &in, &o, &p);
	status = cli_input_report(&in);
	cli_input_close(&in);
	if (cli_out_close(&o, "report") || rc < 0)
		return CLI_EXIT_DAMAGED;
	if (status != CLI_EXIT_OK) /* the page is whole: exit 1 says the trace is not */
		cli_error("report: %s written all the same, from what came before the damage",
			  strcmp(x.output, "-") ? x.output : "the page");
	return status;
}
