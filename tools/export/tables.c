/*
 * ggmlviz export --format csv|jsonl-ops|sqlite (see export.h): the trace
 * as tables for SQL engines and data frames, one row per timed op (ops),
 * per step (steps), per run of nodes (splits), per GPU kernel (kernels),
 * per allocation or free (memory), per op type of a step whose ops were
 * summed (summaries: rolling mode's OP_SUMMARY records), per request to a
 * server (requests), and per CPU run whose start the estimate of op times
 * told apart (run_starts; each op keeps its time as ticked and as stats
 * gives it), each with the trace's file name, so that several traces go
 * into one database or one set of files and are queried together. Rows are
 * written as the pairing engine completes them: memory does not grow with
 * the trace (but for the allocations live at a time, as in mem).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "export/export.h"
#include "input/input.h"
#include "memory/memory.h"
#include "output/output.h"
#include "stats/stats.h"
#include "stats/ticks.h"

/* ---- the tables ---- */

#define T CLI_COL_TEXT
#define I CLI_COL_INT
static const struct cli_column ops_cols[] = {
	{ "trace", T }, { "pid", I },	     { "thread", I },	  { "step", I },
	{ "phase", T }, { "layer", I },	     { "name", T },	  { "op", T },
	{ "backend", T }, { "method", T },   { "start_ns", I },	  { "duration_ns", I },
	{ "ne0", I },	{ "ne1", I },	     { "ne2", I },	  { "ne3", I },
	{ "type", T },	{ "flops", I },	     { "bytes_read", I }, { "bytes_written", I },
	{ "run_id", I }, { "kernels", I },   { "gpu_ns", I },	  { "run_start", I },
	{ "compute_start_ns", I }, { "compute_ns", I }, { "wait_moved_ns", I }, { "above_floor_ns", I },
	{ "part", T }, { "stack", T }, { NULL, 0 }
};
static const struct cli_column run_starts_cols[] = {
	{ "trace", T },	   { "pid", I },      { "thread", I },	       { "step", I },
	{ "phase", T },	   { "backend", T },  { "run_id", I },	       { "start_ns", I },
	{ "duration_ns", I }, { "first_wait_ns", I }, { NULL, 0 }
};
static const struct cli_column steps_cols[] = {
	{ "trace", T },	   { "pid", I },	 { "thread", I },	   { "step", I },
	{ "label", T },	   { "phase", T },	 { "tokens", I },	   { "start_ns", I },
	{ "duration_ns", I }, { "status", I },	 { "sequences", I },	   { "sequence", I },
	{ "context_tokens", I }, { "context_cells", I }, { "gpu_window", T }, { NULL, 0 }
};
static const struct cli_column splits_cols[] = {
	{ "trace", T },	      { "pid", I },	{ "thread", I },  { "step", I },
	{ "backend", T },     { "start_ns", I }, { "duration_ns", I }, { "nodes", I },
	{ "timed", I },	      { "ticks", I },	{ "ticks_expected", I }, { "run_id", I },
	{ NULL, 0 }
};
static const struct cli_column kernels_cols[] = {
	{ "trace", T },	  { "pid", I },	     { "track", I },	     { "step", I },
	{ "run_id", I },  { "op", T },	     { "layer", I },	     { "name", T },
	{ "mangled", T }, { "stream", I },   { "start_ns", I },	     { "duration_ns", I },
	{ NULL, 0 }
};
static const struct cli_column memory_cols[] = {
	{ "trace", T },	 { "pid", I },	  { "thread", I },	{ "ts_ns", I },
	{ "event", T },	 { "ptr", I },	  { "bytes", I },	{ "name", T },
	{ "live_bytes", I }, { NULL, 0 }
};
static const struct cli_column summaries_cols[] = {
	{ "trace", T },	  { "pid", I },	   { "thread", I },	  { "step", I },
	{ "phase", T },	  { "op", T },	   { "backend", T },	  { "ts_ns", I },
	{ "count", I },	  { "total_ns", I }, { "max_ns", I },	  { NULL, 0 }
};
static const struct cli_column requests_cols[] = {
	{ "trace", T },		{ "pid", I },		  { "thread", I },	  { "step", I },
	{ "request", I },	{ "kind", T },		  { "slot", I },	  { "status", T },
	{ "stop", T },		{ "arrival_ns", I },	  { "prompt_start_ns", I },
	{ "first_token_ns", I }, { "end_ns", I },	  { "queue_ns", I },	  { "prompt_ns", I },
	{ "ttft_ns", I },	{ "total_ns", I },	  { "prompt_tokens", I }, { "cached_tokens", I },
	{ "generated_tokens", I }, { "ns_per_token", I }, { NULL, 0 }
};
#undef T
#undef I

const struct cli_table_def cli_tables[CLI_TABLE_COUNT] = {
	[CLI_TABLE_OPS] = { "ops", ops_cols, "op layer step phase part" },
	[CLI_TABLE_STEPS] = { "steps", steps_cols, "step phase" },
	[CLI_TABLE_SPLITS] = { "splits", splits_cols, "step backend" },
	[CLI_TABLE_KERNELS] = { "kernels", kernels_cols, "step name" },
	[CLI_TABLE_MEMORY] = { "memory", memory_cols, "name" },
	[CLI_TABLE_SUMMARIES] = { "summaries", summaries_cols, "op step phase" },
	[CLI_TABLE_REQUESTS] = { "requests", requests_cols, "request slot" },
	[CLI_TABLE_RUN_STARTS] = { "run_starts", run_starts_cols, "step phase" },
};

/* ---- rows ---- */

struct rows {
	struct cli *cli;
	const struct ggmlviz_reader *r;
	struct cli_table_sink *sink;
	const char *trace;
	uint64_t pid;
	struct cli_live live;
	struct cli_part_seen seen; /* the latest ops' parts (stats --by part) */
	struct cli_val v[32];
	size_t n;
	int error;
};

static void text(struct rows *w, const char *s, size_t len)
{
	w->v[w->n++] = (struct cli_val){ s ? CLI_COL_TEXT : CLI_COL_NULL, 0, s, len };
}

static void cstr(struct rows *w, const char *s)
{
	text(w, s, s ? strlen(s) : 0);
}

static void num(struct rows *w, int64_t i)
{
	w->v[w->n++] = (struct cli_val){ CLI_COL_INT, i, NULL, 0 };
}

static void none(struct rows *w)
{
	w->v[w->n++] = (struct cli_val){ CLI_COL_NULL, 0, NULL, 0 };
}

/* trace, pid, thread (or track), step: the first columns of every table. */
static void head(struct rows *w, const struct ggmlviz_timing *t)
{
	w->n = 0;
	cstr(w, w->trace);
	num(w, (int64_t)w->pid);
	num(w, t->thread_id);
	if (t->step_seq)
		num(w, (int64_t)t->step_seq);
	else
		none(w);
}

static const char *phase_of(const struct ggmlviz_timing *t)
{
	return !t->step_seq ? NULL : cli_phase_name(t->phase);
}

static void put(struct rows *w, int table)
{
	if (!w->error && w->sink->row(w->sink, table, w->v) < 0)
		w->error = -EIO;
}

/*
 * An op: start_ns and duration_ns as ticked, compute_start_ns and
 * compute_ns as stats gives them (the estimate of ticks.h moves the runs'
 * starts out and the waits at GGML's barrier back; the same where it did
 * not touch the op), with the wait moved into it and its time above its
 * node's floor.
 */
static void op_row(struct rows *w, const struct ggmlviz_timing *t, const struct cli_tick_est *e)
{
	static const char *const methods[] = { "unknown", "sync", "tick", "gpu", "measured" };
	uint64_t begin = e->held ? e->ticked_begin_ns : t->begin_ns;
	uint64_t ns = e->held ? e->ticked_ns : t->duration_ns;
	char buf[CLI_OP_NAME_MAX], backend[24];
	const char *op = cli_op_name(&w->cli->names, w->r, t->op_type, buf);

	head(w, t);
	cstr(w, phase_of(t));
	if (t->layer >= 0)
		num(w, t->layer);
	else
		none(w);
	text(w, t->label, t->label_len);
	cstr(w, op);
	cstr(w, cli_backend_name(&w->cli->names, w->r, t->backend_ptr, backend));
	cstr(w, methods[t->method < 5 ? t->method : 0]);
	num(w, (int64_t)begin);
	num(w, (int64_t)ns);
	for (int i = 0; i < 4; i++)
		num(w, t->ne[i]);
	text(w, t->type_name, t->type_name_len);
	num(w, (int64_t)t->flops);
	num(w, (int64_t)t->bytes_read);
	num(w, (int64_t)t->bytes_written);
	num(w, (int64_t)t->run_id);
	num(w, t->n_kernels);
	num(w, (int64_t)t->gpu_ns);
	num(w, t->node_flags & GGMLVIZ_NODE_RUN_START ? 1 : 0);
	num(w, (int64_t)t->begin_ns);
	num(w, (int64_t)t->duration_ns);
	num(w, (int64_t)e->wait_ns);
	num(w, (int64_t)e->above_ns);
	cstr(w, cli_part_names[cli_part_place(&w->seen, t, cli_part_class(t->label, t->label_len),
					       op)]);
	cstr(w, cli_layer_key(t) >> 32 == 1 ? "encoder" : cli_layer_key(t) >> 32 == 2 ? "decoder" : NULL);
	put(w, CLI_TABLE_OPS);
}

/* A CPU run's start, told apart from its first op by the estimate (ticks.h): "(run start)" in stats. */
static void run_start_row(struct rows *w, const struct ggmlviz_timing *t)
{
	char backend[24];

	head(w, t);
	cstr(w, phase_of(t));
	cstr(w, cli_backend_name(&w->cli->names, w->r, t->backend_ptr, backend));
	num(w, (int64_t)t->run_id);
	num(w, (int64_t)t->begin_ns);
	num(w, (int64_t)t->duration_ns);
	num(w, (int64_t)t->value);
	put(w, CLI_TABLE_RUN_STARTS);
}

/* A step's GPU window (GGML_VIZ_GPU_SAMPLE): NULL in a trace without windows. */
static const char *window_of(const struct ggmlviz_timing *t)
{
	static const char *const names[] = { NULL, "outside", "warmup", "sampled" };

	return names[t->gpu_window & 3];
}

static void step_row(struct rows *w, const struct ggmlviz_timing *t)
{
	head(w, t);
	text(w, t->label, t->label_len);
	cstr(w, phase_of(t));
	num(w, t->n_tokens);
	num(w, (int64_t)t->begin_ns);
	num(w, (int64_t)t->duration_ns);
	num(w, t->status);
	num(w, t->n_seqs);
	if (t->n_seqs)
		num(w, t->seq_id), num(w, t->context_tokens), num(w, t->context_cells);
	else
		none(w), none(w), none(w);
	cstr(w, window_of(t));
	put(w, CLI_TABLE_STEPS);
}

static void split_row(struct rows *w, const struct ggmlviz_timing *t)
{
	char backend[24];

	head(w, t);
	cstr(w, cli_backend_name(&w->cli->names, w->r, t->backend_ptr, backend));
	num(w, (int64_t)t->begin_ns);
	num(w, (int64_t)t->duration_ns);
	num(w, t->n_nodes);
	num(w, t->n_timed);
	num(w, t->ticks);
	num(w, t->ticks_expected);
	num(w, (int64_t)t->run_id);
	put(w, CLI_TABLE_SPLITS);
}

static void kernel_row(struct rows *w, const struct ggmlviz_timing *t)
{
	char op[CLI_OP_NAME_MAX], name[96];

	head(w, t);
	num(w, (int64_t)t->run_id);
	if (t->ptr)
		cstr(w, cli_op_name(&w->cli->names, w->r, t->op_type, op));
	else
		none(w);
	if (t->layer >= 0)
		num(w, t->layer);
	else
		none(w);
	cstr(w, cli_kernel_name(t->label, t->label_len, name));
	text(w, t->label, t->label_len);
	num(w, t->stream);
	num(w, (int64_t)t->begin_ns);
	num(w, (int64_t)t->duration_ns);
	put(w, CLI_TABLE_KERNELS);
}

/*
 * An allocation or a free, with the bytes live in its process after it (a
 * free's bytes are those its allocation held, as mem counts them).
 */
static void memory_row(struct rows *w, const struct ggmlviz_event *ev)
{
	bool alloc = ev->type == GGMLVIZ_EVENT_TENSOR_ALLOC;
	uint64_t size = ev->data.memory.size;

	if (alloc) {
		struct cli_alloc a = { w->pid, ev->data.memory.ptr, size, ev->timestamp_ns,
				       ev->offset, NULL, 0 };
		if (cli_live_alloc(&w->live, &a) < 0)
			w->error = -ENOMEM;
	} else if (!cli_live_free(&w->live, w->pid, ev->data.memory.ptr, &size)) {
		size = ev->data.memory.size;
	}
	w->n = 0;
	cstr(w, w->trace);
	num(w, (int64_t)w->pid);
	num(w, ev->thread_id);
	num(w, (int64_t)ev->timestamp_ns);
	cstr(w, alloc ? "alloc" : "free");
	num(w, (int64_t)ev->data.memory.ptr);
	num(w, (int64_t)size);
	text(w, ev->label_len ? ev->label : NULL, ev->label_len);
	num(w, (int64_t)cli_live_bytes(&w->live, w->pid));
	put(w, CLI_TABLE_MEMORY);
}

/* The ops of one type and backend a step ran, summed (OP_SUMMARY). */
static void summary_row(struct rows *w, const struct ggmlviz_timing *t)
{
	char op[CLI_OP_NAME_MAX], backend[24];

	head(w, t);
	cstr(w, phase_of(t));
	cstr(w, cli_op_name(&w->cli->names, w->r, t->op_type, op));
	cstr(w, cli_backend_name(&w->cli->names, w->r, t->backend_ptr, backend));
	num(w, (int64_t)t->begin_ns);
	num(w, t->n_nodes);
	num(w, (int64_t)t->duration_ns);
	num(w, (int64_t)t->value);
	put(w, CLI_TABLE_SUMMARIES);
}

/* b - a when both were recorded, else NULL. */
static void span(struct rows *w, uint64_t a, uint64_t b)
{
	if (a && b && b >= a)
		num(w, (int64_t)(b - a));
	else
		none(w);
}

static void time_or_none(struct rows *w, uint64_t ns)
{
	if (ns)
		num(w, (int64_t)ns);
	else
		none(w);
}

/* A request to a server: its times, stages and tokens (see cli_request_kind()). */
static void request_row(struct rows *w, const struct ggmlviz_timing *t)
{
	head(w, t);
	num(w, (int64_t)t->ptr);
	cstr(w, cli_request_kind(t->op_type));
	if (t->seq_id >= 0)
		num(w, t->seq_id);
	else
		none(w);
	cstr(w, cli_request_status(t->status));
	text(w, t->type_name, t->type_name_len);
	num(w, (int64_t)t->begin_ns);
	time_or_none(w, t->value);
	time_or_none(w, t->first_token_ns);
	num(w, (int64_t)t->end_ns);
	span(w, t->begin_ns, t->value);
	span(w, t->value, t->first_token_ns);
	span(w, t->begin_ns, t->first_token_ns);
	num(w, (int64_t)t->duration_ns);
	num(w, t->n_tokens);
	num(w, t->context_tokens);
	num(w, t->n_nodes);
	if (t->n_nodes > 1 && t->first_token_ns && t->end_ns > t->first_token_ns)
		num(w, (int64_t)((t->end_ns - t->first_token_ns) / (t->n_nodes - 1)));
	else
		none(w);
	put(w, CLI_TABLE_REQUESTS);
}

/* A timing's row, after the estimate (a cli_timing_sink): 0, or the sink's error. */
static int timing_row(void *rows, const struct ggmlviz_timing *t, const struct cli_tick_est *e)
{
	struct rows *w = rows;

	switch (t->kind) {
	case GGMLVIZ_TIMING_OP_SUMMARY: summary_row(w, t); break;
	case GGMLVIZ_TIMING_OP:
		if (t->op_type == CLI_OP_RUN_START)
			run_start_row(w, t);
		else
			op_row(w, t, e);
		break;
	case GGMLVIZ_TIMING_STEP: step_row(w, t); break;
	case GGMLVIZ_TIMING_SPLIT: split_row(w, t); break;
	case GGMLVIZ_TIMING_KERNEL: kernel_row(w, t); break;
	case GGMLVIZ_TIMING_REQUEST: request_row(w, t); break;
	default: break;
	}
	return w->error;
}

const char *cli_trace_name(const struct cli_input *in)
{
	const char *slash = strrchr(in->path, '/');

	return slash ? slash + 1 : in->path;
}

int cli_tables_write(struct cli *cli, struct cli_input *in, struct cli_table_sink *sink)
{
	struct rows w = { .cli = cli, .r = in->r, .sink = sink };
	struct cli_ticks as_ticked = { .raw = true };
	struct cli_ticks *k = sink->ticks ? sink->ticks : &as_ticked;
	struct ggmlviz_pairing *p;
	struct ggmlviz_event ev;
	struct ggmlviz_timing t;
	int rc, fed = 0;

	w.trace = cli_trace_name(in);
	if ((rc = ggmlviz_pairing_new(&p)) < 0)
		return rc;
	while (!w.error && fed == 0 && cli_input_next(in, &ev) == 1) {
		cli_track_pid(&w.pid, &ev);
		if (ev.type == GGMLVIZ_EVENT_TENSOR_ALLOC || ev.type == GGMLVIZ_EVENT_TENSOR_FREE)
			memory_row(&w, &ev);
		for (rc = ggmlviz_pairing_add(p, &ev, &t); rc == 1 && fed == 0;
		     rc = ggmlviz_pairing_take(p, &t))
			fed = cli_ticks_feed(k, &t, timing_row, &w);
	}
	ggmlviz_pairing_finish(p);
	while (!w.error && fed == 0 && ggmlviz_pairing_take(p, &t) == 1)
		fed = cli_ticks_feed(k, &t, timing_row, &w);
	if (fed == 0)
		fed = cli_ticks_flush(k, timing_row, &w);
	ggmlviz_pairing_free(p);
	cli_live_release(&w.live);
	return w.error ? w.error : fed;
}
