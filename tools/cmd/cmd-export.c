/*
 * ggmlviz export: a trace as Chrome Trace Event JSON (for Perfetto and
 * chrome://tracing) or Perfetto's protobuf trace, through a cli_esink. Two reads: the first finds the start of the trace and
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
	"       ggmlviz export --format perfetto|speedscope [OPTIONS] FILE -o OUT\n"
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
	"  -f, --format F      chrome (the default: Chrome Trace Event JSON), perfetto\n"
	"                      (Perfetto's protobuf trace: the same slices, a third of\n"
	"                      the size, for big traces), speedscope (its own format:\n"
	"                      a profile a thread, a frame per op name, no args), or\n"
	"                      tables:\n"
	"                      csv or jsonl-ops (one table: a row per timed op, or what\n"
	"                      --table says), sqlite (every table into the database\n"
	"                      OUT; a trace column tells traces apart)\n"
	"      --table T       for csv and jsonl-ops: ops (the default), steps, splits,\n"
	"                      kernels, memory or summaries\n"
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

enum { FORMAT_CHROME, FORMAT_PERFETTO, FORMAT_SPEEDSCOPE, FORMAT_CSV, FORMAT_JSONL_OPS,
       FORMAT_SQLITE };
static const char *const formats[] = { "chrome", "perfetto", "speedscope", "csv", "jsonl-ops",
				       "sqlite", NULL };
static const char *const tables[] = { "ops", "steps", "splits", "kernels", "memory", "summaries",
				      NULL };

#define RUNS_FOLLOWED 16 /* threads whose open run is followed (formats where slices nest) */

/* The run of nodes open on a thread (SPLIT_BEGIN seen, not its end). */
struct open_run {
	uint32_t tid;
	bool open;
	uint64_t backend;
};

struct export {
	struct cli *cli;
	const char *output;
	int format, table;
	bool table_given, no_args, force, append;
	struct cli_window window;
	struct cli_chrome chrome;
	struct cli_perfetto perfetto;
	struct cli_speedscope speedscope;
	struct cli_esink *sink; /* one of the three */
	struct cli_live live;
	struct cli_tracks tracks;
	const struct ggmlviz_reader *r;
	uint64_t pid;
	struct open_run runs[RUNS_FOLLOWED];
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
	uint64_t t0 = x->sink->t0;

	return !x->window.set ||
	       ((begin > t0 ? begin - t0 : 0) <= x->window.to &&
		(end > t0 ? end - t0 : 0) >= x->window.from);
}

static const char *method_name(uint8_t method)
{
	static const char *const names[] = { "unknown", "sync", "tick", "gpu" };

	return method < 4 ? names[method] : "unknown";
}

/*
 * Where slices nest: whether op t lies in a run of its own backend open on
 * its thread, timed by that run's ticks, which the run's slice says (its
 * backend, and timed_by); the op's args then leave both out.
 */
static bool said_by_run(const struct export *x, const struct ggmlviz_timing *t)
{
	if (!x->sink->nested || t->method != GGMLVIZ_OP_METHOD_TICK)
		return false;
	for (int i = 0; i < RUNS_FOLLOWED; i++)
		if (x->runs[i].open && x->runs[i].tid == t->thread_id)
			return x->runs[i].backend == t->backend_ptr;
	return false;
}

/* Follows the run open on each thread (the first RUNS_FOLLOWED threads that run any). */
static void follow_run(struct export *x, const struct ggmlviz_event *ev)
{
	bool begin = ev->type == GGMLVIZ_EVENT_SPLIT_BEGIN;
	int free_slot = -1;

	for (int i = 0; i < RUNS_FOLLOWED; i++) {
		if (x->runs[i].open && x->runs[i].tid == ev->thread_id) {
			x->runs[i].open = begin;
			x->runs[i].backend = ev->data.split.backend_ptr;
			return;
		}
		if (!x->runs[i].open && free_slot < 0)
			free_slot = i;
	}
	if (begin && free_slot >= 0)
		x->runs[free_slot] = (struct open_run){ ev->thread_id, true, ev->data.split.backend_ptr };
}

static void op_args(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;
	bool by_run = said_by_run(x, t);
	char buf[24];

	s->ops->arg_str(s, "tensor", t->label, t->label_len);
	if (!s->nested)
		s->ops->arg_u64(s, "op_type", t->op_type);
	s->ops->arg_u64(s, "size", t->op_size);
	if (!by_run)
		cli_esink_arg_cstr(s, "backend",
				   cli_backend_name(&x->cli->names, x->r, t->backend_ptr, buf));
	if (t->type_name)
		s->ops->arg_str(s, "type", t->type_name, t->type_name_len);
	if (t->ne[0] || t->ne[1] || t->ne[2] || t->ne[3])
		s->ops->arg_shape(s, "shape", t->ne);
	if (t->flops)
		s->ops->arg_u64(s, "flops", t->flops);
	if (!s->nested)
		s->ops->arg_u64(s, "graph", t->graph_seq);
	if (t->step_seq && !s->nested)
		s->ops->arg_u64(s, "step", t->step_seq);
	if (t->layer >= 0)
		s->ops->arg_i64(s, "layer", t->layer);
	if (!by_run)
		cli_esink_arg_cstr(s, "timed_by", method_name(t->method));
	if (t->n_kernels) {
		s->ops->arg_u64(s, "kernels", t->n_kernels);
		s->ops->arg_u64(s, "gpu_ns", t->gpu_ns);
	}
}

static const char *phase_name(uint32_t phase)
{
	return phase == GGMLVIZ_PHASE_PROMPT ? "prompt"
	       : phase == GGMLVIZ_PHASE_GENERATION ? "generation" : "unknown";
}

static void step_args(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;

	s->ops->arg_u64(s, "step", t->step_seq);
	s->ops->arg_u64(s, "tokens", t->n_tokens);
	cli_esink_arg_cstr(s, "phase", phase_name(t->phase));
	s->ops->arg_i64(s, "status", t->status);
}

static void split_args(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;
	char buf[24];

	cli_esink_arg_cstr(s, "backend", cli_backend_name(&x->cli->names, x->r, t->backend_ptr, buf));
	s->ops->arg_u64(s, "n_nodes", t->n_nodes);
	s->ops->arg_u64(s, "timed_one_by_one", t->n_timed);
	s->ops->arg_u64(s, "ticks", t->ticks);
	s->ops->arg_u64(s, "ticks_expected", t->ticks_expected);
	if (s->nested && t->ticks) /* its ops leave out what it says (said_by_run) */
		cli_esink_arg_cstr(s, "timed_by", method_name(GGMLVIZ_OP_METHOD_TICK));
	if (t->step_seq)
		s->ops->arg_u64(s, "step", t->step_seq);
}

static void graph_args(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;
	char buf[24];

	s->ops->arg_addr(s, "graph_ptr", t->ptr);
	s->ops->arg_u64(s, "n_nodes", t->n_nodes);
	s->ops->arg_u64(s, "n_threads", t->n_threads);
	cli_esink_arg_cstr(s, "backend", cli_backend_name(&x->cli->names, x->r, t->backend_ptr, buf));
	s->ops->arg_u64(s, "seq", t->graph_seq);
}

/* A kernel's arguments: the op it was tied to (or none), its layer, run and stream. */
static void kernel_args(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;
	char buf[24];

	cli_esink_arg_cstr(s, "op", t->ptr ? cli_op_name(&x->cli->names, x->r, t->op_type, buf)
					   : "(untied)");
	s->ops->arg_str(s, "kernel", t->label, t->label_len);
	if (t->layer >= 0)
		s->ops->arg_i64(s, "layer", t->layer);
	s->ops->arg_u64(s, "run", t->run_id);
	s->ops->arg_u64(s, "stream", t->stream);
	s->ops->arg_u64(s, "step", t->step_seq);
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
		if (x->sink->unnumbered)
			snprintf(buf, 96, "%.*s (%" PRIu32 " tokens)",
				 t->label ? (int)(t->label_len < 24 ? t->label_len : 24) : 4,
				 t->label ? t->label : "step", t->n_tokens);
		else
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

/* A timing's args, as its kind has them (most are left out with --no-args). */
static void timing_args(struct export *x, const struct ggmlviz_timing *t)
{
	if (t->kind == GGMLVIZ_TIMING_STEP)
		step_args(x, t);
	else if (t->kind == GGMLVIZ_TIMING_SCOPE)
		x->sink->ops->arg_u64(x->sink, "value", t->value);
	else if (x->no_args)
		return;
	else if (t->kind == GGMLVIZ_TIMING_OP)
		op_args(x, t);
	else if (t->kind == GGMLVIZ_TIMING_GRAPH)
		graph_args(x, t);
	else if (t->kind == GGMLVIZ_TIMING_SPLIT)
		split_args(x, t);
	else if (t->kind == GGMLVIZ_TIMING_KERNEL)
		kernel_args(x, t);
}

/* A step's tokens per second, as a counter over the step. */
static void tokens_per_second(struct export *x, const struct ggmlviz_timing *t)
{
	static const char name[] = "tokens/s";

	if (t->n_tokens && t->duration_ns)
		x->sink->ops->counter(x->sink, x->pid, name, sizeof name - 1, t->begin_ns, "value",
				      (double)t->n_tokens * 1e9 / (double)t->duration_ns);
}

/* A step's ops of one type, summed (rolling mode): an instant on its thread at the sum's record. */
static void summary(struct export *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;
	char op[24], backend[24], name[64];

	if (!in_window(x, t->begin_ns, t->end_ns))
		return;
	snprintf(name, sizeof name, "%s x%" PRIu32 " (summed)",
		 cli_op_name(&x->cli->names, x->r, t->op_type, op), t->n_nodes);
	s->ops->instant(s, x->pid, t->thread_id, name, strlen(name), t->begin_ns);
	s->ops->arg_u64(s, "count", t->n_nodes);
	s->ops->arg_u64(s, "total_ns", t->duration_ns);
	s->ops->arg_u64(s, "max_ns", t->value);
	cli_esink_arg_cstr(s, "backend", cli_backend_name(&x->cli->names, x->r, t->backend_ptr, backend));
	if (t->step_seq)
		s->ops->arg_u64(s, "step", t->step_seq);
	s->ops->end(s);
}

/* A pair, as a slice: an op, a graph, a step, a split, a scope, a kernel. */
static void timing(struct export *x, const struct ggmlviz_timing *t)
{
	static const char *const cats[] = { "", "op", "graph", "scope", "step", "split", "kernel" };
	struct cli_esink *s = x->sink;
	char buf[96];
	const char *name = timing_name(x, t, buf);
	uint32_t track;
	int level;
	bool first;

	if (t->kind == GGMLVIZ_TIMING_OP_SUMMARY) {
		summary(x, t);
		return;
	}
	if (t->kind < 1 || t->kind > 6 || !in_window(x, t->begin_ns, t->end_ns))
		return;
	track = cli_track_of(&x->tracks, t->thread_id, t->begin_ns, t->end_ns, &level, &first);
	if (first) {
		snprintf(buf, sizeof buf, "%" PRIu32 " (overlapping slices %d)", t->thread_id, level);
		s->ops->name_track(s, x->pid, track, buf, strlen(buf));
		name = timing_name(x, t, buf);
	}
	if (t->kind == GGMLVIZ_TIMING_STEP)
		tokens_per_second(x, t);
	/* an op encloses its kernels on a GPU track; ops elsewhere and kernels enclose nothing */
	s->ops->slice(s, x->pid, track, name ? name : t->label, name ? strlen(name) : t->label_len,
		      cats[t->kind], t->begin_ns, t->duration_ns,
		      t->kind != GGMLVIZ_TIMING_KERNEL &&
			      (t->kind != GGMLVIZ_TIMING_OP || t->method == GGMLVIZ_OP_METHOD_GPU));
	timing_args(x, t);
	s->ops->end(s);
}

/* An instant (on the record's thread) or a counter named name, with one numeric arg. */
static void point(struct export *x, const struct ggmlviz_event *ev, char ph, const char *name,
		  size_t len, const char *key, int64_t v)
{
	struct cli_esink *s = x->sink;

	if (!in_window(x, ev->timestamp_ns, ev->timestamp_ns))
		return;
	if (ph == 'C') {
		s->ops->counter(s, x->pid, name, len, ev->timestamp_ns, key, (double)v);
		return;
	}
	s->ops->instant(s, x->pid, ev->thread_id, name, len, ev->timestamp_ns);
	s->ops->arg_i64(s, key, v);
	s->ops->end(s);
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
		x->sink->ops->name_process(x->sink, x->pid, ev->label, ev->label_len);
		break;
	case GGMLVIZ_META_THREAD_NAME:
		x->sink->ops->name_track(x->sink, x->pid, (uint32_t)ev->data.meta.key, ev->label,
					 ev->label_len);
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
	case GGMLVIZ_EVENT_SPLIT_BEGIN:
	case GGMLVIZ_EVENT_SPLIT_END:
		follow_run(x, ev);
		break;
	case GGMLVIZ_EVENT_THREAD_BEGIN:
		if (ev->label_len && !ggmlviz_reader_thread_name(x->r, ev->thread_id))
			x->sink->ops->name_track(x->sink, x->pid, ev->thread_id, ev->label,
						 ev->label_len);
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
	uint64_t t0 = x->sink->t0;
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
		       x->cli->names.assumed ? "true" : "false", x->tracks.moved);
	if (in->error) {
		cli_input_describe(in, what, sizeof what);
		cli_out_str(o, ",\"damage\":");
		cli_json_cstr(o, what);
	}
	cli_out_str(o, "}}\n");
}

/*
 * What the JSON's otherData says, for Perfetto: an instant "ggmlviz export"
 * at time 0 on the process's track, with the same keys as args.
 */
static void about(struct export *x, const struct cli_input *in)
{
	static const char name[] = "ggmlviz export";
	struct cli_esink *s = x->sink;
	char what[256];

	s->ops->instant(s, x->pid, CLI_PROCESS_TRACK, name, sizeof name - 1, s->t0);
	cli_esink_arg_cstr(s, "source", in->path);
	cli_esink_arg_cstr(s, "exporter", "ggmlviz " GGMLVIZ_VERSION_STRING);
	s->ops->arg_u64(s, "start_ts_ns", s->t0);
	s->ops->arg_u64(s, "complete", in->ended && !in->error);
	cli_esink_arg_cstr(s, "clock", cli_clock_is_steady(s->t0) ? "steady" : "wall");
	s->ops->arg_u64(s, "op_names_assumed", x->cli->names.assumed);
	s->ops->arg_u64(s, "slices_on_overlap_tracks", x->tracks.moved);
	if (in->error) {
		cli_input_describe(in, what, sizeof what);
		cli_esink_arg_cstr(s, "damage", what);
	}
	s->ops->end(s);
}

/* The sink of x->format, started; 0 or a negative errno (said). */
static int sink_begin(struct export *x, struct cli_out *o, uint64_t t0)
{
	int rc = 0;

	if (x->format == FORMAT_PERFETTO) {
		rc = cli_perfetto_begin(&x->perfetto, o, t0, &x->cli->anon);
		x->sink = &x->perfetto.base;
	} else if (x->format == FORMAT_SPEEDSCOPE) {
		rc = cli_speedscope_begin(&x->speedscope, o, t0);
		x->sink = &x->speedscope.base;
	} else {
		cli_chrome_begin(&x->chrome, o, t0, &x->cli->anon);
		x->sink = &x->chrome.base;
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
		about(x, in);
		return cli_perfetto_end(&x->perfetto);
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

	cli_scan(in, &scan, &x->cli->names);
	x->pid = scan.first_pid;
	x->r = in->r;
	if ((rc = sink_begin(x, o, scan.t_min)) < 0)
		return rc;
	rc = write_events(x, in);
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
	if (x->format <= FORMAT_SPEEDSCOPE) /* the formats for viewers */
		return x->table_given || x->force || x->append
			       ? cli_usage("export", "--table, --force and --append are for"
						     " --format csv, jsonl-ops or sqlite")
			       : -1;
	if (x->window.set || x->no_args || x->cli->anon.on)
		return cli_usage("export", "--from, --to, --no-args and --anonymize are for"
				      " --format chrome, perfetto and speedscope: the tables hold every row,"
				      " and no address");
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
	if (x.format > FORMAT_SPEEDSCOPE) {
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
	if (x.format == FORMAT_CHROME)
		warn_size(&o);
	cli_input_close(&in);
	cli_live_release(&x.live);
	cli_tracks_free(&x.tracks);
	status = cli_out_close(&o, "export") || rc < 0 ? CLI_EXIT_DAMAGED : status;
	return status;
}
