/*
 * ggmlviz export: a trace for viewers (Chrome Trace Event JSON for Perfetto
 * and chrome://tracing, Perfetto's protobuf trace, speedscope's format:
 * export/viewer.c into a cli_esink) or as tables (export/tables.c). Two
 * reads: the first finds the start of the trace and its first process;
 * the second writes every event as it goes, pairing begins with ends
 * itself so it sees every record.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/anon.h"
#include "export/export.h"
#include "cmd/commands.h"
#include "output/output.h"
#include "input/input.h"
#include "memory/memory.h"
#include "base/opts.h"
#include "stats/stats.h"

/*
 * chrome://tracing reads the whole file into one JavaScript string and
 * fails on JSON traces over 256 MiB (google/trace-viewer#627); the Perfetto
 * UI runs in the browser's ~2 GiB memory budget, which JSON of a few
 * hundred MiB fills (perfetto#99: 900 MB crashed it).
 */
#define BROWSER_LIMIT ((uint64_t)256 << 20)

static const char help[] =
	"Usage: ggmlviz export [OPTIONS] FILE -o OUT.json\n"
	"       ggmlviz export --format perfetto|speedscope [OPTIONS] FILE -o OUT\n"
	"       ggmlviz export --format csv|jsonl-ops|sqlite [--table T] [--force|--append]\n"
	"                      [--raw-ticks] FILE -o OUT\n"	"       ggmlviz export --format otlp [--raw-ticks] FILE -o OUT.jsonl\n"
	"\n"
	"Write a trace as Chrome Trace Event JSON, which opens in Perfetto\n"
	"(ui.perfetto.dev) and chrome://tracing: graphs, ops and scopes as complete\n"
	"(\"X\") events, ops inside their graph on the same thread, with the op name,\n"
	"tensor, size, backend, shape, element type and flops as args; process and\n"
	"thread names as metadata (\"M\"); live tensor bytes and COUNTER records as\n"
	"counters (\"C\"); MARK, DROPPED and BARRIER_WAIT records as instants (\"i\").\n"
	"Times are microseconds from the start of the trace (its earliest timestamp\n"
	"but META records'), with nanosecond decimals. The JSON is strict: labels are\n"
	"escaped, invalid UTF-8 is replaced by U+FFFD.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   where to write (\"-\": standard output); required\n"
	"  -f, --format F      chrome (the default: Chrome Trace Event JSON), perfetto\n"
	"                      (Perfetto's protobuf trace: the same slices, under a\n"
	"                      third of the size, for big traces), speedscope (its\n"
	"                      own format: a profile a thread, a frame per op name,\n"
	"                      no args); or tables: csv or jsonl-ops (one table: a\n"
	"                      row per timed op, or what --table says), sqlite\n"
	"                      (every table into the database OUT; a trace column\n"
	"                      tells traces apart); or otlp: OpenTelemetry spans in\n"
	"                      OTLP/JSON, a line each ExportTraceServiceRequest: a\n"
	"                      server's requests, and the steps, their ops summed\n"
	"      --table T       for csv and jsonl-ops: ops (the default), steps, splits,\n"
	"                      kernels, memory, summaries, requests or run_starts\n"
	"      --force         tables: replace OUT if it exists (refused otherwise)\n"
	"      --append        sqlite: add the trace's rows to the database OUT\n"
	"      --from TIME     only what happens at or after TIME, --to TIME at or before\n"
	"      --to TIME       it: durations (ns, us, ms, s) from the start of the trace\n"
	"  -S, --steps A-B     only what happens from the begin of step A to the end of\n"
	"                      step B (as stats --by step numbers them; A- from A on, -B\n"
	"                      up to B, A alone), instead of --from and --to\n"
	"      --no-args       leave out the args of ops and graphs (a smaller file)\n"
	"      --anonymize     addresses as ids 0x1, 0x2, ... in the order first seen\n"
	"      --raw-ticks     ops timed by the CPU backend's ticks as ticked: without it,\n"
	"                      each CPU run's start is a slice \"(run start)\" of its own\n"
	"                      and waits at GGML's barrier are moved back to the op that\n"
	"                      caused them (estimated: see ggmlviz stats); in tables,\n"
	"                      compute_ns is that (duration_ns is always as ticked)\n"
	"                      and run_starts has the starts\n"
	"  -h, --help          show this help\n"
	"\n"
	"A JSON output over 256 MiB gets a warning: chrome://tracing cannot load it and\n"
	"the Perfetto UI may run out of memory in the browser (use --format perfetto,\n"
	"--from/--to, or open it with 'trace_processor --httpd' and ui.perfetto.dev).\n"
	"\n"
	"Exit status: 0 success, 1 damaged or unreadable trace (what came before the\n"
	"damage is exported, as a valid file) or a write error, 2 bad command line.\n";

enum { FORMAT_CHROME, FORMAT_PERFETTO, FORMAT_SPEEDSCOPE, FORMAT_CSV, FORMAT_JSONL_OPS,
       FORMAT_SQLITE, FORMAT_OTLP };
static const char *const formats[] = { "chrome", "perfetto", "speedscope", "csv", "jsonl-ops",
				       "sqlite", "otlp", NULL };
static const char *const tables[] = { "ops", "steps", "splits", "kernels", "memory", "summaries",
				      "requests", "run_starts", NULL };

struct export {
	struct cli_viewer v; /* what viewers see of the trace, and where it goes */
	const char *output;
	int format, table;
	bool table_given, force, append;
	struct cli_steps steps;     /* --steps */
	struct cli_step_span span;  /* ... the time they span */
	struct cli_chrome chrome;
	struct cli_perfetto perfetto;
	struct cli_speedscope speedscope;
};

static int option(void *ctx, int c, char *arg)
{
	struct export *x = ctx;

	switch (c) {
	case 'o':
		x->output = arg;
		return 0;
	case 'A':
		x->v.no_args = true;
		return 0;
	case CLI_OPT_RAW_TICKS:
		x->v.ticks.raw = true;
		return 0;
	case 'N':
		cli_anon_enable(&x->v.cli->anon);
		return 0;
	case 'F':
	case 'U':
		return cli_window_option("export", &x->v.window, c, arg);
	case 'S':
		return cli_parse_steps("export", arg, &x->steps);
	case 'f':
		return cli_parse_choice("export", "--format", arg, formats, &x->format);
	case 'R':
		x->force = true;
		return 0;
	case 'P':
		x->append = true;
		return 0;
	case 'T':
		x->table_given = true;
		return cli_parse_choice("export", "--table", arg, tables, &x->table);
	default:
		return CLI_EXIT_USAGE;
	}
}

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' }, { "from", required_argument, NULL, 'F' },
	{ "to", required_argument, NULL, 'U' },	    { "no-args", no_argument, NULL, 'A' },
	{ "anonymize", no_argument, NULL, 'N' },    { "help", no_argument, NULL, 'h' },
	{ "format", required_argument, NULL, 'f' }, { "table", required_argument, NULL, 'T' },
	{ "force", no_argument, NULL, 'R' },	    { "append", no_argument, NULL, 'P' },
	{ "raw-ticks", no_argument, NULL, CLI_OPT_RAW_TICKS }, { "steps", required_argument, NULL, 'S' },
	{ NULL, 0, NULL, 0 }
};

static const struct cli_cmd cmd = { "export", help, "o:f:S:", longopts, 1, 1, option };

static void other_data(struct export *x, const struct cli_input *in)
{
	struct cli_out *o = x->chrome.o;
	uint64_t t0 = x->v.sink->t0;
	char what[256];

	cli_out_str(o, ",\"otherData\":{\"source\":");
	cli_json_cstr(o, in->path);
	cli_out_str(o, ",\"exporter\":\"ggmlviz " GGMLVIZ_VERSION_STRING "\"");
	cli_out_str(o, ",\"start_ts_ns\":");
	cli_out_u64(o, t0);
	cli_out_str(o, ",\"complete\":");
	cli_out_str(o, in->ended && !in->error ? "true" : "false");
	cli_out_printf(o, ",\"clock\":\"%s\",\"op_names_assumed\":%s,\"slices_on_overlap_tracks\":%"
			  PRIu64, cli_clock_is_steady(t0) ? "steady" : "wall",
		       x->v.cli->names.assumed ? "true" : "false", x->v.tracks.moved);
	if (in->error) {
		cli_input_describe(in, what, sizeof what);
		cli_out_str(o, ",\"damage\":");
		cli_json_cstr(o, what);
	}
	cli_out_str(o, "}}\n");
}

/* The sink of x->format, started; 0 or a negative errno (said). */
static int sink_begin(struct export *x, struct cli_out *o, uint64_t t0)
{
	int rc = 0;

	if (x->format == FORMAT_PERFETTO) {
		rc = cli_perfetto_begin(&x->perfetto, o, t0, &x->v.cli->anon);
		x->v.sink = &x->perfetto.base;
	} else if (x->format == FORMAT_SPEEDSCOPE) {
		rc = cli_speedscope_begin(&x->speedscope, o, t0);
		x->v.sink = &x->speedscope.base;
	} else {
		cli_chrome_begin(&x->chrome, o, t0, &x->v.cli->anon);
		x->v.sink = &x->chrome.base;
	}
	if (rc < 0)
		cli_error("export: %s", strerror(-rc));
	return rc;
}

/* Ends the sink's output with what the trace says of itself; 0 or a negative errno. */
static int sink_end(struct export *x, const struct cli_input *in)
{
	uint64_t left_out = 0;
	int rc = 0;

	if (x->format == FORMAT_PERFETTO) {
		cli_viewer_about(&x->v, in);
		rc = cli_perfetto_end(&x->perfetto, &left_out);
		if (left_out)
			cli_error("export: more than 65536 threads and counters: %" PRIu64 " slices,"
				  " names and counter values of the others went on one track or"
				  " were left out", left_out);
		return rc;
	}
	if (x->format == FORMAT_SPEEDSCOPE) {
		rc = cli_speedscope_end(&x->speedscope, cli_trace_name(in), &left_out);
		if (left_out)
			cli_error("export: %" PRIu64 " slices of threads past the 256th left out"
				  " (speedscope: a profile a thread)", left_out);
		return rc;
	}
	cli_chrome_end(&x->chrome);
	other_data(x, in);
	return 0;
}

static int export_to(struct export *x, struct cli_input *in, struct cli_out *o)
{
	struct cli_scan scan;
	int rc, rc_end;

	cli_scan(in, &scan, &x->v.cli->names);
	if (cli_steps_set(&x->steps)) /* --steps: their time, from the start of the trace */
		x->v.window = (struct cli_window){ x->span.begin > scan.t_min ? x->span.begin - scan.t_min : 0,
						   x->span.end > scan.t_min ? x->span.end - scan.t_min : 0,
						   true };
	x->v.pid = scan.first_pid;
	x->v.r = in->r;
	cli_ticks_learn_file(&x->v.ticks, "export", in->path);
	if ((rc = sink_begin(x, o, scan.t_min)) < 0)
		return rc;
	rc = cli_viewer_write(&x->v, in);
	rc_end = sink_end(x, in);
	if (rc < 0)
		cli_error("%s: %s", in->path, ggmlviz_strerror(rc));
	else if ((rc = rc_end) < 0)
		cli_error("export: %s", strerror(-rc));
	return rc;
}

static void warn_size(const struct cli_out *o)
{
	char size[32];

	if (o->bytes <= BROWSER_LIMIT || o->error)
		return;
	cli_error("export: %s holds %s of JSON: chrome://tracing cannot load more than"
		       " 256 MiB, and the Perfetto UI may run out of memory in the browser; export"
		       " it with --format perfetto (under a third of the size), cut it with"
		       " --from/--to, or open it with 'trace_processor --httpd FILE' and"
		       " ui.perfetto.dev", o->path, cli_fmt_bytes(o->bytes, size));
}

/*
 * Tables are things people keep and add to: an output that exists is
 * refused (exit 2) unless --force replaces it or --append adds to it; a
 * database to add to must exist.
 */
static int check_output_exists(const struct export *x)
{
	bool exists = strcmp(x->output, "-") && access(x->output, F_OK) == 0;

	if (exists && !x->force && !x->append)
		return cli_usage("export", "%s exists: --force replaces it%s", x->output,
				 x->format == FORMAT_SQLITE ? ", --append adds this trace to it" : "");
	if (!exists && x->append)
		return cli_usage("export", "--append: %s does not exist", x->output);
	return -1;
}

/*
 * Options that one kind of output does not take are refused, not ignored:
 * a user who asked for a window or anonymity must not get a file without.
 */
static int check_format_options(const struct export *x)
{
	if (x->format == FORMAT_OTLP &&
	    (x->table_given || x->force || x->append || x->v.window.set ||
	     cli_steps_set(&x->steps) || x->v.no_args || x->v.cli->anon.on))
		return cli_usage("export", "--format otlp takes --raw-ticks only: its spans are every"
				      " request and step of the trace, with no address");
	if (x->format == FORMAT_OTLP)
		return -1;
	if (x->format <= FORMAT_SPEEDSCOPE) /* the formats for viewers */
		return x->table_given || x->force || x->append
			       ? cli_usage("export", "--table, --force and --append are for"
						     " --format csv, jsonl-ops or sqlite")
			       : -1;
	if (x->v.window.set || cli_steps_set(&x->steps) || x->v.no_args || x->v.cli->anon.on)
		return cli_usage("export", "--from, --to, --steps, --no-args and --anonymize are for"
				      " --format chrome, perfetto and speedscope: the tables hold every"
				      " row as recorded, and no address");
	if (x->format == FORMAT_SQLITE && x->table_given)
		return cli_usage("export", "--format sqlite writes every table: --table is for"
				      " csv and jsonl-ops");
	if (x->format == FORMAT_SQLITE && !strcmp(x->output, "-"))
		return cli_usage("export", "--format sqlite writes a database: give -o FILE.db");
	if (x->append && (x->format != FORMAT_SQLITE || x->force))
		return cli_usage("export", "--append adds to a database: it is for --format"
				      " sqlite, without --force");
	return check_output_exists(x);
}

/*
 * --format csv, jsonl-ops or sqlite: the trace as tables (tables.c), its
 * names learnt by a first pass.
 */
static int export_tables(struct export *x, struct cli_input *in)
{
	struct cli_text_sink sink;
	struct cli_scan scan;
	struct cli_out o;
	int rc;

	cli_scan(in, &scan, &x->v.cli->names);
	cli_ticks_learn_file(&x->v.ticks, "export", in->path); /* compute_ns, run_starts */
	if (x->format == FORMAT_SQLITE)
		return cli_tables_sqlite(x->v.cli, in, x->output, x->append, &x->v.ticks) < 0 ? -1 : 0;
	if (cli_out_open(&o, "export", x->output) < 0)
		return -1;
	cli_text_sink_init(&sink, &o, x->table,
			   x->format == FORMAT_CSV ? CLI_TABLES_CSV : CLI_TABLES_JSONL);
	sink.base.ticks = &x->v.ticks;
	rc = cli_tables_write(x->v.cli, in, &sink.base);
	if (rc < 0 && !o.error) /* a write error is said by cli_out_close() */
		cli_error("export: %s", strerror(-rc));
	return cli_out_close(&o, "export") || rc < 0 ? -1 : 0;
}

/* --format otlp: the requests and steps as OpenTelemetry spans (otlp.c); the exit status. */
static int export_otlp(struct export *x, struct cli_input *in)
{
	struct cli_out o;
	int rc, status;

	if (cli_out_open(&o, "export", x->output) < 0) {
		cli_input_close(in);
		return CLI_EXIT_DAMAGED;
	}
	cli_scan(in, &(struct cli_scan){ 0 }, &x->v.cli->names);
	cli_ticks_learn_file(&x->v.ticks, "export", in->path); /* the ops' times as stats gives them */
	rc = cli_otlp_write(x->v.cli, in, &o, &x->v.ticks);
	if (rc < 0 && !o.error)
		cli_error("%s: %s", in->path, ggmlviz_strerror(rc));
	status = cli_input_report(in);
	cli_input_close(in);
	cli_ticks_free(&x->v.ticks);
	return cli_out_close(&o, "export") || rc < 0 ? CLI_EXIT_DAMAGED : status;
}

int cli_cmd_export(struct cli *cli, int argc, char **argv)
{
	struct export x = { .v = { .cli = cli, .window = { 0, UINT64_MAX, false } } };
	struct cli_input in;
	struct cli_out o;
	int first, rc, status = cli_parse(&cmd, argc, argv, &x, &first);

	if (status >= 0)
		return status;
	if (!x.output)
		return cli_usage("export", "no output: give -o OUT.json (or -o - for standard"
				      " output)");
	if ((status = cli_window_check("export", &x.v.window)) >= 0)
		return status;
	if (x.v.window.set && cli_steps_set(&x.steps))
		return cli_usage("export", "--steps is a window of its own: give it or --from/--to,"
				      " not both");
	if (cli_same_file(argv[first], x.output))
		return cli_usage("export", "the output %s is the input", x.output);
	if ((status = check_format_options(&x)) >= 0)
		return status;
	if (cli_input_open(&in, "export", argv[first]) < 0)
		return CLI_EXIT_DAMAGED;
	if (cli_steps_set(&x.steps) && /* in.path: a pipe's copy, read again */
	    (status = cli_step_span_read("export", in.path, &x.steps, &x.span)) != 0) {
		cli_input_close(&in);
		return status;
	}
	if (x.format == FORMAT_OTLP)
		return export_otlp(&x, &in);
	if (x.format > FORMAT_SPEEDSCOPE) {
		rc = export_tables(&x, &in);
		status = cli_input_report(&in);
		cli_input_close(&in);
		cli_ticks_free(&x.v.ticks);
		return rc < 0 ? CLI_EXIT_DAMAGED : status;
	}
	if (cli_out_open(&o, "export", x.output) < 0) {
		cli_input_close(&in);
		return CLI_EXIT_DAMAGED;
	}
	rc = export_to(&x, &in, &o);
	status = cli_input_report(&in);
	if (x.format == FORMAT_CHROME)
		warn_size(&o);
	cli_input_close(&in);
	cli_live_release(&x.v.live);
	cli_tracks_free(&x.v.tracks);
	cli_ticks_free(&x.v.ticks);
	status = cli_out_close(&o, "export") || rc < 0 ? CLI_EXIT_DAMAGED : status;
	return status;
}
