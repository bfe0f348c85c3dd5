/*
 * ggmlviz export: a trace as Chrome Trace Event JSON, for Perfetto and
 * chrome://tracing. Two reads: the first finds the start of the trace and
 * its first process; the second writes every event as it goes, pairing
 * begins with ends itself so it sees every record.
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

/*
 * chrome://tracing reads the whole file into one JavaScript string and
 * fails on JSON traces over 256 MiB (google/trace-viewer#627); the Perfetto
 * UI runs in the browser's ~2 GiB memory budget, which JSON of a few
 * hundred MiB fills (perfetto#99: 900 MB crashed it).
 */
#define BROWSER_LIMIT ((uint64_t)256 << 20)

static const char help[] =
	"Usage: ggmlviz export [OPTIONS] FILE -o OUT.json\n"
	"       ggmlviz export --format csv|jsonl-ops|sqlite [--table T] [--force|--append]\n"
	"                      FILE -o OUT\n"
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
	"  -f, --format F      chrome (the default: Chrome Trace Event JSON), or tables:\n"
	"                      csv or jsonl-ops (one table: a row per timed op, or what\n"
	"                      --table says), sqlite (every table into the database\n"
	"                      OUT; a trace column tells traces apart)\n"
	"      --table T       for csv and jsonl-ops: ops (the default), steps, splits,\n"
	"                      kernels or memory\n"
	"      --force         tables: replace OUT if it exists (refused otherwise)\n"
	"      --append        sqlite: add the trace's rows to the database OUT\n"
	"      --from TIME     only what happens at or after TIME, --to TIME at or before\n"
	"      --to TIME       it: durations (ns, us, ms, s) from the start of the trace\n"
	"      --no-args       leave out the args of ops and graphs (a smaller file)\n"
	"      --anonymize     addresses as ids 0x1, 0x2, ... in the order first seen\n"
	"  -h, --help          show this help\n"
	"\n"
	"An output over 256 MiB gets a warning: chrome://tracing cannot load it and the\n"
	"Perfetto UI may run out of memory in the browser (use --from/--to, or open it\n"
	"with 'trace_processor --httpd' and ui.perfetto.dev).\n"
	"\n"
	"Exit status: 0 success, 1 damaged or unreadable trace (what came before the\n"
	"damage is exported, as valid JSON) or a write error, 2 bad command line.\n";

enum { FORMAT_CHROME, FORMAT_CSV, FORMAT_JSONL_OPS, FORMAT_SQLITE };
static const char *const formats[] = { "chrome", "csv", "jsonl-ops", "sqlite", NULL };
static const char *const tables[] = { "ops", "steps", "splits", "kernels", "memory", NULL };

struct export {
	struct cli *cli;
	const char *output;
	int format, table;
	bool table_given, no_args, force, append;
	struct cli_window window;
	struct cli_chrome chrome;
	struct cli_live live;
	struct cli_tracks tracks;
	const struct ggmlviz_reader *r;
	uint64_t pid;
	int error;
};

static int option(void *ctx, int c, char *arg)
{
	struct export *x = ctx;

	switch (c) {
	case 'o':
		x->output = arg;
		return 0;
	case 'A':
		x->no_args = true;
		return 0;
	case 'N':
		cli_anon_enable(&x->cli->anon);
		return 0;
	case 'F':
	case 'U':
		return cli_window_option("export", &x->window, c, arg);
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
	{ NULL, 0, NULL, 0 }
};

static const struct cli_cmd cmd = { "export", help, "o:f:", longopts, 1, 1, option };

/* Whether [begin, end] meets the --from/--to window. */
static bool in_window(const struct export *x, uint64_t begin, uint64_t end)
{
	uint64_t t0 = x->chrome.t0;

	return !x->window.set ||
	       ((begin > t0 ? begin - t0 : 0) <= x->window.to &&
		(end > t0 ? end - t0 : 0) >= x->window.from);
}

static void shape_arg(struct cli_chrome *c, const int64_t ne[4])
{
	cli_out_str(c->o, ",\"shape\":[");
	for (int i = 0; i < 4; i++) {
		cli_out_str(c->o, i ? "," : "");
		cli_out_i64(c->o, ne[i]);
	}
	cli_out_char(c->o, ']');
}

static const char *method_name(uint8_t method)
{
	static const char *const names[] = { "unknown", "sync", "tick", "gpu" };

	return method < 4 ? names[method] : "unknown";
}

static void op_args(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_chrome *c = &x->chrome;
	char buf[24];

	cli_chrome_args(c);
	cli_chrome_arg_str(c, "tensor", t->label, t->label_len, true);
	cli_chrome_arg_u64(c, "op_type", t->op_type, false);
	cli_chrome_arg_u64(c, "size", t->op_size, false);
	cli_chrome_arg_cstr(c, "backend", cli_backend_name(&x->cli->names, x->r, t->backend_ptr, buf),
				 false);
	if (t->type_name)
		cli_chrome_arg_str(c, "type", t->type_name, t->type_name_len, false);
	if (t->ne[0] || t->ne[1] || t->ne[2] || t->ne[3])
		shape_arg(c, t->ne);
	if (t->flops)
		cli_chrome_arg_u64(c, "flops", t->flops, false);
	cli_chrome_arg_u64(c, "graph", t->graph_seq, false);
	if (t->step_seq)
		cli_chrome_arg_u64(c, "step", t->step_seq, false);
	if (t->layer >= 0)
		cli_chrome_arg_i64(c, "layer", t->layer, false);
	cli_chrome_arg_cstr(c, "timed_by", method_name(t->method), false);
	if (t->n_kernels) {
		cli_chrome_arg_u64(c, "kernels", t->n_kernels, false);
		cli_chrome_arg_u64(c, "gpu_ns", t->gpu_ns, false);
	}
	cli_chrome_args_end(c);
}

static const char *phase_name(uint32_t phase)
{
	return phase == GGMLVIZ_PHASE_PROMPT ? "prompt"
	       : phase == GGMLVIZ_PHASE_GENERATION ? "generation" : "unknown";
}

static void step_args(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_chrome *c = &x->chrome;

	cli_chrome_args(c);
	cli_chrome_arg_u64(c, "step", t->step_seq, true);
	cli_chrome_arg_u64(c, "tokens", t->n_tokens, false);
	cli_chrome_arg_cstr(c, "phase", phase_name(t->phase), false);
	cli_chrome_arg_i64(c, "status", t->status, false);
	cli_chrome_args_end(c);
}

static void split_args(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_chrome *c = &x->chrome;
	char buf[24];

	cli_chrome_args(c);
	cli_chrome_arg_cstr(c, "backend", cli_backend_name(&x->cli->names, x->r, t->backend_ptr, buf), true);
	cli_chrome_arg_u64(c, "n_nodes", t->n_nodes, false);
	cli_chrome_arg_u64(c, "timed_one_by_one", t->n_timed, false);
	cli_chrome_arg_u64(c, "ticks", t->ticks, false);
	cli_chrome_arg_u64(c, "ticks_expected", t->ticks_expected, false);
	if (t->step_seq)
		cli_chrome_arg_u64(c, "step", t->step_seq, false);
	cli_chrome_args_end(c);
}

static void graph_args(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_chrome *c = &x->chrome;
	char buf[24];

	cli_chrome_args(c);
	cli_chrome_arg_hex(c, "graph_ptr", t->ptr, true);
	cli_chrome_arg_u64(c, "n_nodes", t->n_nodes, false);
	cli_chrome_arg_u64(c, "n_threads", t->n_threads, false);
	cli_chrome_arg_cstr(c, "backend", cli_backend_name(&x->cli->names, x->r, t->backend_ptr, buf),
				 false);
	cli_chrome_arg_u64(c, "seq", t->graph_seq, false);
	cli_chrome_args_end(c);
}

/* A kernel's arguments: the op it was tied to (or none), its layer, run and stream. */
static void kernel_args(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_chrome *c = &x->chrome;
	char buf[24];

	cli_chrome_args(c);
	cli_chrome_arg_cstr(c, "op", t->ptr ? cli_op_name(&x->cli->names, x->r, t->op_type, buf)
					    : "(untied)", true);
	cli_chrome_arg_str(c, "kernel", t->label, t->label_len, false);
	if (t->layer >= 0)
		cli_chrome_arg_i64(c, "layer", t->layer, false);
	cli_chrome_arg_u64(c, "run", t->run_id, false);
	cli_chrome_arg_u64(c, "stream", t->stream, false);
	cli_chrome_arg_u64(c, "step", t->step_seq, false);
	cli_chrome_args_end(c);
}

/* What a complete event is named: its op, "graph", "decode 12", "CPU run", a scope's label. */
static const char *timing_name(struct export *x, const struct ggmlviz_timing *t, char buf[96])
{
	char backend[24];

	switch (t->kind) {
	case GGMLVIZ_TIMING_KERNEL:
		return cli_kernel_name(t->label, t->label_len, buf);
	case GGMLVIZ_TIMING_OP:
		return cli_op_name(&x->cli->names, x->r, t->op_type, buf);
	case GGMLVIZ_TIMING_GRAPH:
		return "graph";
	case GGMLVIZ_TIMING_STEP:
		snprintf(buf, 96, "%.*s %" PRIu64 " (%" PRIu32 " tokens)",
			 t->label ? (int)(t->label_len < 24 ? t->label_len : 24) : 4,
			 t->label ? t->label : "step", t->step_seq, t->n_tokens);
		return buf;
	case GGMLVIZ_TIMING_SPLIT:
		snprintf(buf, 96, "%s run", cli_backend_name(&x->cli->names, x->r, t->backend_ptr, backend));
		return buf;
	default:
		return NULL;
	}
}

/* A pair, as a complete event: an op, a graph, a step, a split, a scope. */
static void timing(struct export *x, const struct ggmlviz_timing *t)
{
	static const char *const cats[] = { "", "op", "graph", "scope", "step", "split", "kernel" };
	char buf[96];
	const char *name = timing_name(x, t, buf);

	uint32_t track;
	int level;
	bool first;

	if (t->kind < 1 || t->kind > 6 || !in_window(x, t->begin_ns, t->end_ns))
		return;
	track = cli_track_of(&x->tracks, t->thread_id, t->begin_ns, t->end_ns, &level, &first);
	if (first) {
		snprintf(buf, sizeof buf, "%" PRIu32 " (overlapping slices %d)", t->thread_id, level);
		cli_chrome_name(&x->chrome, "thread_name", x->pid, track, buf, strlen(buf));
		name = timing_name(x, t, buf);
	}
	cli_chrome_event(&x->chrome, 'X', x->pid, track, name ? name : t->label,
			      name ? strlen(name) : t->label_len, t->begin_ns);
	/* an op encloses its kernels on a GPU track; ops elsewhere and kernels enclose nothing */
	cli_chrome_dur(&x->chrome, t->duration_ns,
		       t->kind != GGMLVIZ_TIMING_KERNEL &&
			       (t->kind != GGMLVIZ_TIMING_OP || t->method == GGMLVIZ_OP_METHOD_GPU));
	cli_chrome_cat(&x->chrome, cats[t->kind]);
	if (t->kind == GGMLVIZ_TIMING_OP && !x->no_args)
		op_args(x, t);
	else if (t->kind == GGMLVIZ_TIMING_GRAPH && !x->no_args)
		graph_args(x, t);
	else if (t->kind == GGMLVIZ_TIMING_STEP)
		step_args(x, t);
	else if (t->kind == GGMLVIZ_TIMING_SPLIT && !x->no_args)
		split_args(x, t);
	else if (t->kind == GGMLVIZ_TIMING_KERNEL && !x->no_args)
		kernel_args(x, t);
	else if (t->kind == GGMLVIZ_TIMING_SCOPE) {
		cli_chrome_args(&x->chrome);
		cli_chrome_arg_u64(&x->chrome, "value", t->value, true);
		cli_chrome_args_end(&x->chrome);
	}
	cli_chrome_end_event(&x->chrome);
}

/* An instant or counter event named name, with one numeric arg. */
static void point(struct export *x, const struct ggmlviz_event *ev, char ph, const char *name,
		  size_t len, const char *key, int64_t v)
{
	struct cli_chrome *c = &x->chrome;

	if (!in_window(x, ev->timestamp_ns, ev->timestamp_ns))
		return;
	cli_chrome_event(c, ph, x->pid, ev->thread_id, name, len, ev->timestamp_ns);
	if (ph == 'i')
		cli_out_str(c->o, ",\"s\":\"t\"");
	cli_chrome_args(c);
	cli_chrome_arg_i64(c, key, v, true);
	cli_chrome_args_end(c);
	cli_chrome_end_event(c);
}

static void live_counter(struct export *x, const struct ggmlviz_event *ev)
{
	static const char name[] = "live tensor bytes";
	uint64_t size, bytes;

	if (ev->type == GGMLVIZ_EVENT_TENSOR_FREE) {
		cli_live_free(&x->live, x->pid, ev->data.memory.ptr, &size);
	} else {
		struct cli_alloc a = { x->pid, ev->data.memory.ptr, ev->data.memory.size,
					    ev->timestamp_ns, ev->offset, NULL, 0 };
		if (cli_live_alloc(&x->live, &a) < 0)
			x->error = -ENOMEM;
	}
	bytes = cli_live_bytes(&x->live, x->pid);
	point(x, ev, 'C', name, sizeof name - 1, "bytes", bytes > INT64_MAX ? INT64_MAX
									 : (int64_t)bytes);
}

static void meta(struct export *x, const struct ggmlviz_event *ev)
{
	static const char dropped[] = "dropped events";
	uint64_t v = ev->data.meta.value;

	cli_track_pid(&x->pid, ev);
	switch (ev->data.meta.kind) {
	case GGMLVIZ_META_PROCESS:
		cli_chrome_name(&x->chrome, "process_name", x->pid, 0, ev->label,
				     ev->label_len);
		break;
	case GGMLVIZ_META_THREAD_NAME:
		cli_chrome_name(&x->chrome, "thread_name", x->pid, (uint32_t)ev->data.meta.key,
				     ev->label, ev->label_len);
		break;
	case GGMLVIZ_META_DROPPED:
		point(x, ev, 'i', dropped, sizeof dropped - 1, "count",
		      v > INT64_MAX ? INT64_MAX : (int64_t)v);
		break;
	default:
		break;
	}
}

static void record(struct export *x, const struct ggmlviz_event *ev)
{
	static const char barrier[] = "barrier wait";
	int64_t v = ev->data.user.svalue;

	switch (ev->type) {
	case GGMLVIZ_EVENT_META:
		meta(x, ev);
		break;
	case GGMLVIZ_EVENT_TENSOR_ALLOC:
	case GGMLVIZ_EVENT_TENSOR_FREE:
		live_counter(x, ev);
		break;
	case GGMLVIZ_EVENT_MARK:
		point(x, ev, 'i', ev->label, ev->label_len, "value", v);
		break;
	case GGMLVIZ_EVENT_COUNTER:
		point(x, ev, 'C', ev->label, ev->label_len, "value", v);
		break;
	case GGMLVIZ_EVENT_BARRIER_WAIT:
		point(x, ev, 'i', barrier, sizeof barrier - 1, "wait_ns",
		      ev->data.memory.size > INT64_MAX ? INT64_MAX : (int64_t)ev->data.memory.size);
		break;
	case GGMLVIZ_EVENT_THREAD_BEGIN:
		if (ev->label_len && !ggmlviz_reader_thread_name(x->r, ev->thread_id))
			cli_chrome_name(&x->chrome, "thread_name", x->pid, ev->thread_id,
					     ev->label, ev->label_len);
		break;
	default:
		break;
	}
}

static int write_events(struct export *x, struct cli_input *in)
{
	struct ggmlviz_pairing *pairing;
	struct ggmlviz_timing t;
	struct ggmlviz_event ev;
	int rc = ggmlviz_pairing_new(&pairing);

	while (rc == 0 && !x->error && cli_input_next(in, &ev) == 1) {
		record(x, &ev);
		rc = ggmlviz_pairing_add(pairing, &ev, &t);
		for (; rc == 1; rc = ggmlviz_pairing_take(pairing, &t))
			timing(x, &t);
	}
	ggmlviz_pairing_finish(pairing);
	while (ggmlviz_pairing_take(pairing, &t) == 1) /* GPU runs tied at the end */
		timing(x, &t);
	ggmlviz_pairing_free(pairing);
	return rc < 0 ? rc : x->error;
}

static void other_data(struct export *x, const struct cli_input *in)
{
	struct cli_out *o = x->chrome.o;
	char what[256];

	cli_out_str(o, ",\"otherData\":{\"source\":");
	cli_json_cstr(o, in->path);
	cli_out_str(o, ",\"exporter\":\"ggmlviz " GGMLVIZ_VERSION_STRING "\"");
	cli_out_str(o, ",\"start_ts_ns\":");
	cli_out_u64(o, x->chrome.t0);
	cli_out_str(o, ",\"complete\":");
	cli_out_str(o, in->ended && !in->error ? "true" : "false");
	cli_out_printf(o, ",\"clock\":\"%s\",\"op_names_assumed\":%s,\"slices_on_overlap_tracks\":%"
			  PRIu64, cli_clock_is_steady(x->chrome.t0) ? "steady" : "wall",
		       x->cli->names.assumed ? "true" : "false", x->tracks.moved);
	if (in->error) {
		cli_input_describe(in, what, sizeof what);
		cli_out_str(o, ",\"damage\":");
		cli_json_cstr(o, what);
	}
	cli_out_str(o, "}}\n");
}

static int export_to(struct export *x, struct cli_input *in, struct cli_out *o)
{
	struct cli_scan scan;
	int rc;

	cli_scan(in, &scan, &x->cli->names);
	x->pid = scan.first_pid;
	x->r = in->r;
	cli_chrome_begin(&x->chrome, o, scan.t_min, &x->cli->anon);
	rc = write_events(x, in);
	cli_chrome_end(&x->chrome);
	other_data(x, in);
	if (rc < 0)
		cli_error("%s: %s", in->path, ggmlviz_strerror(rc));
	return rc;
}

static void warn_size(const struct cli_out *o)
{
	char size[32];

	if (o->bytes <= BROWSER_LIMIT || o->error)
		return;
	cli_error("export: %s holds %s of JSON: chrome://tracing cannot load more than"
		       " 256 MiB, and the Perfetto UI may run out of memory in the browser; cut it"
		       " with --from/--to, or open it with 'trace_processor --httpd FILE' and"
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
	if (x->format == FORMAT_CHROME)
		return x->table_given || x->force || x->append
			       ? cli_usage("export", "--table, --force and --append are for"
						     " --format csv, jsonl-ops or sqlite")
			       : -1;
	if (x->window.set || x->no_args || x->cli->anon.on)
		return cli_usage("export", "--from, --to, --no-args and --anonymize are for"
				      " --format chrome: the tables hold every row, and no address");
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

	cli_scan(in, &scan, &x->cli->names);
	if (x->format == FORMAT_SQLITE)
		return cli_tables_sqlite(x->cli, in, x->output, x->append) < 0 ? -1 : 0;
	if (cli_out_open(&o, "export", x->output) < 0)
		return -1;
	cli_text_sink_init(&sink, &o, x->table,
			   x->format == FORMAT_CSV ? CLI_TABLES_CSV : CLI_TABLES_JSONL);
	rc = cli_tables_write(x->cli, in, &sink.base);
	if (rc < 0 && !o.error) /* a write error is said by cli_out_close() */
		cli_error("export: %s", strerror(-rc));
	return cli_out_close(&o, "export") || rc < 0 ? -1 : 0;
}

int cli_cmd_export(struct cli *cli, int argc, char **argv)
{
	struct export x = { .cli = cli, .window = { 0, UINT64_MAX, false } };
	struct cli_input in;
	struct cli_out o;
	int first, rc, status = cli_parse(&cmd, argc, argv, &x, &first);

	if (status >= 0)
		return status;
	if (!x.output)
		return cli_usage("export", "no output: give -o OUT.json (or -o - for standard"
				      " output)");
	if ((status = cli_window_check("export", &x.window)) >= 0)
		return status;
	if (cli_same_file(argv[first], x.output))
		return cli_usage("export", "the output %s is the input", x.output);
	if ((status = check_format_options(&x)) >= 0)
		return status;
	if (cli_input_open(&in, "export", argv[first]) < 0)
		return CLI_EXIT_DAMAGED;
	if (x.format != FORMAT_CHROME) {
		rc = export_tables(&x, &in);
		status = cli_input_report(&in);
		cli_input_close(&in);
		return rc < 0 ? CLI_EXIT_DAMAGED : status;
	}
	if (cli_out_open(&o, "export", x.output) < 0) {
		cli_input_close(&in);
		return CLI_EXIT_DAMAGED;
	}
	rc = export_to(&x, &in, &o);
	status = cli_input_report(&in);
	warn_size(&o);
	cli_input_close(&in);
	cli_live_release(&x.live);
	cli_tracks_free(&x.tracks);
	status = cli_out_close(&o, "export") || rc < 0 ? CLI_EXIT_DAMAGED : status;
	return status;
}
