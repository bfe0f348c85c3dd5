/*
 * What viewers see of a trace (see export.h): each timing as a slice with
 * its args (a step, a graph, a run of nodes, an op, a GPU kernel, a
 * scope), each step's tokens per second and the live tensor bytes and
 * COUNTER records as counters, MARK, DROPPED, BARRIER_WAIT and summed ops
 * as instants, and the names of processes and threads, written into a
 * cli_esink (Chrome JSON, Perfetto, speedscope) as the records are read,
 * with the pairing engine completing the timings.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "export/export.h"
#include "input/input.h"
#include "memory/memory.h"

/* Whether [begin, end] meets the --from/--to window. */
static bool in_window(const struct cli_viewer *x, uint64_t begin, uint64_t end)
{
	return cli_window_meets(&x->window, x->sink->t0, begin, end);
}

static const char *method_name(uint8_t method)
{
	static const char *const names[] = { "unknown", "sync", "tick", "gpu", "measured" };

	return method < 5 ? names[method] : "unknown";
}

/*
 * Where slices nest: whether op t lies in a run of its own backend open on
 * its thread, timed by that run's ticks, which the run's slice says (its
 * backend, and timed_by); the op's args then leave both out.
 */
static bool said_by_run(const struct cli_viewer *x, const struct ggmlviz_timing *t)
{
	if (!x->sink->nested || t->method != GGMLVIZ_OP_METHOD_TICK)
		return false;
	for (int i = 0; i < CLI_RUNS_FOLLOWED; i++)
		if (x->runs[i].open && x->runs[i].tid == t->thread_id)
			return x->runs[i].backend == t->backend_ptr;
	return false;
}

/* Follows the run open on each thread (the first CLI_RUNS_FOLLOWED threads that run any). */
static void follow_run(struct cli_viewer *x, const struct ggmlviz_event *ev)
{
	bool begin = ev->type == GGMLVIZ_EVENT_SPLIT_BEGIN;
	int free_slot = -1;

	for (int i = 0; i < CLI_RUNS_FOLLOWED; i++) {
		if (x->runs[i].open && x->runs[i].tid == ev->thread_id) {
			x->runs[i].open = begin;
			x->runs[i].backend = ev->data.split.backend_ptr;
			return;
		}
		if (!x->runs[i].open && free_slot < 0)
			free_slot = i;
	}
	if (begin && free_slot >= 0)
		x->runs[free_slot] = (struct cli_open_run){ ev->thread_id, true, ev->data.split.backend_ptr };
}

static void op_args(struct cli_viewer *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;
	bool by_run = said_by_run(x, t);
	char buf[24];

	if (t->op_type == CLI_OP_RUN_START) { /* not an op: the time before the first */
		s->ops->arg_u64(s, "workers_wait_ns", t->value);
		s->ops->arg_u64(s, "estimated", 1);
		if (t->step_seq && !s->nested)
			s->ops->arg_u64(s, "step", t->step_seq);
		return;
	}

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
	if (cli_layer_key(t) >> 32) /* the layer's stack (whisper.cpp: enc.3, dec.3) */
		cli_esink_arg_cstr(s, "stack", cli_layer_key(t) >> 32 == 1 ? "encoder" : "decoder");
	if (x->est.wait_ns)
		s->ops->arg_u64(s, "barrier_wait_ns", x->est.wait_ns);
	if (x->est.above_ns)
		s->ops->arg_u64(s, "above_floor_ns", x->est.above_ns);
	if (!by_run)
		cli_esink_arg_cstr(s, "timed_by", method_name(t->method));
	if (t->n_kernels) {
		s->ops->arg_u64(s, "kernels", t->n_kernels);
		s->ops->arg_u64(s, "gpu_ns", t->gpu_ns);
	}
}

static const char *phase_name(uint32_t phase)
{
	return cli_phase_name(phase);
}

static void step_args(struct cli_viewer *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;

	static const char *const windows[] = { NULL, "outside", "warmup", "sampled" };

	s->ops->arg_u64(s, "step", t->step_seq);
	s->ops->arg_u64(s, "tokens", t->n_tokens);
	cli_esink_arg_cstr(s, "phase", phase_name(t->phase));
	s->ops->arg_i64(s, "status", t->status);
	if (windows[t->gpu_window & 3]) /* kernels in sampled windows: which steps have theirs */
		cli_esink_arg_cstr(s, "gpu_window", windows[t->gpu_window & 3]);
}

static void split_args(struct cli_viewer *x, const struct ggmlviz_timing *t)
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

static void graph_args(struct cli_viewer *x, const struct ggmlviz_timing *t)
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
static void kernel_args(struct cli_viewer *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;
	char buf[CLI_OP_NAME_MAX];

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
static const char *timing_name(struct cli_viewer *x, const struct ggmlviz_timing *t, char buf[96])
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
			snprintf(buf, 96, "%.*s (%" PRIu32 " token%s)",
				 t->label ? (int)(t->label_len < 24 ? t->label_len : 24) : 4,
				 t->label ? t->label : "step", t->n_tokens, cli_s(t->n_tokens));
		else
			snprintf(buf, 96, "%.*s %" PRIu64 " (%" PRIu32 " token%s)",
				 t->label ? (int)(t->label_len < 24 ? t->label_len : 24) : 4,
				 t->label ? t->label : "step", t->step_seq, t->n_tokens,
				 cli_s(t->n_tokens));
		return buf;
	case GGMLVIZ_TIMING_SPLIT:
		snprintf(buf, 96, "%s run", cli_backend_name(&x->cli->names, x->r, t->backend_ptr, backend));
		return buf;
	default:
		return NULL;
	}
}

/* A timing's args, as its kind has them (most are left out with --no-args). */
static void timing_args(struct cli_viewer *x, const struct ggmlviz_timing *t)
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
static void tokens_per_second(struct cli_viewer *x, const struct ggmlviz_timing *t)
{
	static const char name[] = "tokens/s";

	if (t->n_tokens && t->duration_ns)
		x->sink->ops->counter(x->sink, x->pid, name, sizeof name - 1, t->begin_ns, "value",
				      (double)t->n_tokens * 1e9 / (double)t->duration_ns);
}

/* A step's ops of one type, summed (rolling mode): an instant on its thread at the sum's record. */
static void summary(struct cli_viewer *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;
	char op[CLI_OP_NAME_MAX], backend[24], name[64];

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

/* One slice on the worker's own track, where it has one; the track. */
static void worker_slice(struct cli_viewer *x, uint32_t thread, const char *name, uint64_t begin,
			 uint64_t ns, const char *cat)
{
	struct cli_esink *s = x->sink;
	char buf[64];
	int level;
	bool first;
	uint32_t track = cli_track_of(&x->tracks, thread, begin, begin + ns, &level, &first);

	if (first) {
		snprintf(buf, sizeof buf, "%" PRIu32 " (overlapping slices %d)", thread, level);
		s->ops->name_track(s, x->pid, track, buf, strlen(buf));
	}
	s->ops->slice(s, x->pid, track, name, strlen(name), cat, begin, ns, false);
}

/*
 * A CPU worker's share of a node (OP_SHARE): a slice of its op on the
 * worker's lane, then its wait at the barrier as a slice of its own.
 */
static void share(struct cli_viewer *x, const struct ggmlviz_timing *t)
{
	struct cli_esink *s = x->sink;
	char op[CLI_OP_NAME_MAX];

	if (!in_window(x, t->begin_ns, t->end_ns + t->value))
		return;
	worker_slice(x, t->thread_id, cli_op_name(&x->cli->names, x->r, t->op_type, op), t->begin_ns,
		     t->duration_ns, "share");
	if (!x->no_args) {
		s->ops->arg_u64(s, "node", t->n_nodes);
		s->ops->arg_u64(s, "thread_index", t->ticks);
		s->ops->arg_u64(s, "n_threads", t->n_threads);
		s->ops->arg_u64(s, "wait_ns", t->value);
	}
	s->ops->end(s);
	if (!t->value)
		return;
	worker_slice(x, t->thread_id, "barrier wait", t->end_ns, t->value, "wait");
	s->ops->end(s);
}

/* A slice's length: a run's start is drawn up to its first op (its wait for the workers comes after). */
static uint64_t slice_ns(const struct ggmlviz_timing *t)
{
	if (t->kind == GGMLVIZ_TIMING_OP && t->op_type == CLI_OP_RUN_START)
		return t->end_ns - t->begin_ns;
	return t->duration_ns;
}

/* A pair, as a slice: an op, a graph, a step, a split, a scope, a kernel. */
static void timing(struct cli_viewer *x, const struct ggmlviz_timing *t)
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
	if (t->kind == GGMLVIZ_TIMING_SHARE) {
		share(x, t);
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
		      cats[t->kind], t->begin_ns, slice_ns(t),
		      t->kind != GGMLVIZ_TIMING_KERNEL &&
			      (t->kind != GGMLVIZ_TIMING_OP || t->method == GGMLVIZ_OP_METHOD_GPU));
	timing_args(x, t);
	s->ops->end(s);
}

/* An instant (on the record's thread) or a counter named name, with one numeric arg. */
static void point(struct cli_viewer *x, const struct ggmlviz_event *ev, char ph, const char *name,
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

static void live_counter(struct cli_viewer *x, const struct ggmlviz_event *ev)
{
	static const char name[] = "live tensor bytes";
	uint64_t bytes;

	if (cli_live_event(&x->live, x->pid, ev) < 0)
		x->error = -ENOMEM;
	bytes = cli_live_bytes(&x->live, x->pid);
	point(x, ev, 'C', name, sizeof name - 1, "bytes", bytes > INT64_MAX ? INT64_MAX
									 : (int64_t)bytes);
}

static void meta(struct cli_viewer *x, const struct ggmlviz_event *ev)
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

static void record(struct cli_viewer *x, const struct ggmlviz_event *ev)
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

/* A timing after the estimate of op times from ticks (a cli_timing_sink). */
static int estimated(void *ctx, const struct ggmlviz_timing *t, const struct cli_tick_est *e)
{
	struct cli_viewer *x = ctx;

	x->est = *e;
	timing(x, t);
	return 0;
}

int cli_viewer_write(struct cli_viewer *x, struct cli_input *in)
{
	struct ggmlviz_pairing *pairing;
	struct ggmlviz_timing t;
	struct ggmlviz_event ev;
	int rc = ggmlviz_pairing_new(&pairing);

	while (rc == 0 && !x->error && cli_input_next(in, &ev) == 1) {
		record(x, &ev);
		rc = ggmlviz_pairing_add(pairing, &ev, &t);
		while (rc == 1)
			rc = cli_ticks_feed(&x->ticks, &t, estimated, x) < 0
				     ? -ENOMEM
				     : ggmlviz_pairing_take(pairing, &t);
	}
	ggmlviz_pairing_finish(pairing);
	while (rc >= 0 && ggmlviz_pairing_take(pairing, &t) == 1) /* GPU runs tied at the end */
		rc = cli_ticks_feed(&x->ticks, &t, estimated, x);
	if (rc >= 0)
		rc = cli_ticks_flush(&x->ticks, estimated, x);
	ggmlviz_pairing_free(pairing);
	return rc < 0 ? rc : x->error;
}

/*
 * What the JSON's otherData says, for Perfetto: an instant "ggmlviz export"
 * at time 0 on the process's track, with the same keys as args.
 */
void cli_viewer_about(struct cli_viewer *x, const struct cli_input *in)
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
