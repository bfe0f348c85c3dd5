/*
 * The report's data (see report.h): lanes, the string table, the slices
 * written as they come, the bins of ops too short to draw, live memory.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "report/report.h"
#include "rpc/rpc.h"
#include "output/output.h"

struct name {
	uint32_t id;
	char text[];
};

int cli_report_init(struct cli_report *rep, struct cli_out *o, struct cli_names *names,
		    uint64_t *dist_bytes, uint64_t t0, uint64_t t1, uint64_t threshold_ns,
		    uint64_t max_slices)
{
	static const int bys[CLI_REPORT_BY_COUNT] = { CLI_BY_OP, CLI_BY_LAYER, CLI_BY_PHASE,
						      CLI_BY_STEP, CLI_BY_BACKEND, CLI_BY_OP,
						      CLI_BY_OP, CLI_BY_LAYER, CLI_BY_LAYER,
						      CLI_BY_PART, CLI_BY_PART, CLI_BY_PART };

	memset(rep, 0, sizeof *rep);
	rep->o = o;
	rep->names = names;
	rep->t0 = t0;
	rep->t1 = t1 > t0 ? t1 : t0 + 1;
	rep->threshold_ns = threshold_ns;
	rep->max_slices = max_slices;
	for (int i = 0; i < CLI_REPORT_BY_COUNT; i++)
		cli_agg_init(&rep->by[i], bys[i], names, dist_bytes);
	rep->by[CLI_REPORT_BY_OP_PROMPT].phase = GGMLVIZ_PHASE_PROMPT; /* stats --phase */
	rep->by[CLI_REPORT_BY_OP_GENERATION].phase = GGMLVIZ_PHASE_GENERATION;
	rep->by[CLI_REPORT_BY_LAYER_PROMPT].phase = GGMLVIZ_PHASE_PROMPT;
	rep->by[CLI_REPORT_BY_LAYER_GENERATION].phase = GGMLVIZ_PHASE_GENERATION;
	rep->by[CLI_REPORT_BY_PART_PROMPT].phase = GGMLVIZ_PHASE_PROMPT;
	rep->by[CLI_REPORT_BY_PART_GENERATION].phase = GGMLVIZ_PHASE_GENERATION;
	rep->bins = calloc((size_t)CLI_REPORT_LANES * CLI_REPORT_BINS, sizeof *rep->bins);
	rep->mem_bins = calloc(CLI_REPORT_BINS, sizeof *rep->mem_bins);
	cli_report_string(rep, "\u2026", 3); /* id 0: a name past the limit */
	return rep->bins && rep->mem_bins && !rep->error ? 0 : -ENOMEM;
}

void cli_report_free(struct cli_report *rep)
{
	for (int i = 0; i < CLI_REPORT_BY_COUNT; i++)
		cli_agg_free(&rep->by[i]);
	for (size_t i = 0; i < rep->n_strings; i++)
		free(rep->string_list[i] - offsetof(struct name, text));
	free(rep->string_list);
	cli_htab_free(&rep->strings);
	cli_live_release(&rep->live);
	free(rep->bins);
	free(rep->mem_bins);
}

/* ---- names ---- */

static bool name_eq(const void *item, const void *key)
{
	return strcmp(((const struct name *)item)->text, key) == 0;
}

static uint32_t name_add(struct cli_report *rep, const char *text, size_t n, uint64_t hash)
{
	struct name *nm;
	char **list;

	if (rep->n_strings == rep->strings_cap) {
		size_t cap = rep->strings_cap ? rep->strings_cap * 2 : 256;
		if (!(list = realloc(rep->string_list, cap * sizeof *list)))
			return rep->error = -ENOMEM, 0;
		rep->string_list = list;
		rep->strings_cap = cap;
	}
	nm = malloc(sizeof *nm + n + 1);
	if (!nm || cli_htab_add(&rep->strings, hash, nm) < 0) {
		free(nm);
		return rep->error = -ENOMEM, 0;
	}
	nm->id = (uint32_t)rep->n_strings;
	memcpy(nm->text, text, n + 1);
	rep->string_list[rep->n_strings++] = nm->text;
	return nm->id;
}

uint32_t cli_report_string(struct cli_report *rep, const char *s, size_t len)
{
	char text[CLI_REPORT_STRING_MAX + 1];
	size_t n = s ? (len < CLI_REPORT_STRING_MAX ? len : CLI_REPORT_STRING_MAX) : 0;
	uint64_t hash;
	struct name *found;

	if (n)
		memcpy(text, s, n);
	text[n] = '\0';
	n = strlen(text); /* a name with a NUL in it ends there */
	hash = cli_hash_bytes(text, n, 0);
	found = cli_htab_find(&rep->strings, hash, name_eq, text);
	if (found)
		return found->id;
	if (rep->n_strings >= CLI_REPORT_STRINGS)
		return 0;
	return name_add(rep, text, n, hash);
}

/* ---- lanes ---- */

/* The lane of pid's thread tid: made if new, the last one past the limit. */
static size_t lane_of(struct cli_report *rep, uint64_t pid, uint32_t tid)
{
	uint64_t key = pid << 32 | tid;

	for (size_t i = rep->n_lanes; i-- > 0;)
		if (rep->lane_key[i] == key)
			return i;
	if (rep->n_lanes == CLI_REPORT_LANES) {
		rep->lanes_over++;
		return CLI_REPORT_LANES - 1;
	}
	rep->lane_key[rep->n_lanes] = key;
	return rep->n_lanes++;
}

/* The bin of time ts. */
static size_t bin_of(const struct cli_report *rep, uint64_t ts)
{
	uint64_t t = ts > rep->t0 ? ts - rep->t0 : 0, span = rep->t1 - rep->t0;
	size_t b = (size_t)((double)t / (double)span * CLI_REPORT_BINS);

	return b < CLI_REPORT_BINS ? b : CLI_REPORT_BINS - 1;
}

/* An op too short to draw: its time, spread over the bins it covers (cut at --steps' edges). */
static void add_to_bins(struct cli_report *rep, size_t lane, const struct ggmlviz_timing *t)
{
	double *row = rep->bins + lane * CLI_REPORT_BINS;
	double width = (double)(rep->t1 - rep->t0) / CLI_REPORT_BINS;
	size_t b = bin_of(rep, t->begin_ns), last = bin_of(rep, t->end_ns);

	rep->ops_binned++;
	if (b == last && t->begin_ns >= rep->t0 && t->end_ns <= rep->t1) {
		row[b] += (double)t->duration_ns;
		return;
	}
	for (; b <= last; b++) {
		double lo = (double)rep->t0 + width * (double)b, hi = lo + width;
		double from = (double)t->begin_ns > lo ? (double)t->begin_ns : lo;
		double to = (double)t->end_ns < hi ? (double)t->end_ns : hi;
		row[b] += to > from ? to - from : 0;
	}
}

/* ---- slices ---- */

static void num(struct cli_out *o, uint64_t v)
{
	cli_out_char(o, ',');
	cli_out_u64(o, v);
}

static void snum(struct cli_out *o, int64_t v)
{
	cli_out_char(o, ',');
	cli_out_i64(o, v);
}

static void op_fields(struct cli_report *rep, const struct ggmlviz_timing *t)
{
	char buf[CLI_OP_NAME_MAX];
	const char *op = cli_op_name(rep->names, rep->r, t->op_type, buf);

	num(rep->o, cli_report_string(rep, op, strlen(op)));
	num(rep->o, cli_report_string(rep, t->label, t->label_len));
	snum(rep->o, t->layer);
	num(rep->o, t->step_seq);
	num(rep->o, t->flops);
	for (int i = 0; i < 4; i++)
		snum(rep->o, t->ne[i]);
	num(rep->o, cli_report_string(rep, t->type_name, t->type_name_len));
	op = cli_backend_name(rep->names, rep->r, t->backend_ptr, buf);
	num(rep->o, cli_report_string(rep, op, strlen(op)));
	num(rep->o, t->method);
	num(rep->o, t->bytes_read + t->bytes_written);
}

/* A GPU kernel: its function's name, the op it was tied to ("" if none), layer, step, stream. */
static void kernel_fields(struct cli_report *rep, const struct ggmlviz_timing *t)
{
	char buf[96], opbuf[CLI_OP_NAME_MAX];
	const char *name = cli_kernel_name(t->label, t->label_len, buf);
	const char *op = t->ptr ? cli_op_name(rep->names, rep->r, t->op_type, opbuf) : "";

	num(rep->o, cli_report_string(rep, name, strlen(name)));
	num(rep->o, cli_report_string(rep, op, strlen(op)));
	snum(rep->o, t->layer);
	num(rep->o, t->step_seq);
	num(rep->o, t->stream);
	num(rep->o, t->run_id);
}

/* The fields of a slice after [kind, lane, depth, begin, duration]. */
static void kind_fields(struct cli_report *rep, const struct ggmlviz_timing *t)
{
	char buf[24];
	const char *backend;

	switch (t->kind) {
	case GGMLVIZ_TIMING_OP:
		op_fields(rep, t);
		break;
	case GGMLVIZ_TIMING_GRAPH:
		num(rep->o, t->n_nodes), num(rep->o, t->n_threads), num(rep->o, t->graph_seq);
		break;
	case GGMLVIZ_TIMING_SCOPE:
		num(rep->o, cli_report_string(rep, t->label, t->label_len)), num(rep->o, t->value);
		break;
	case GGMLVIZ_TIMING_STEP:
		num(rep->o, cli_report_string(rep, t->label ? t->label : "step",
					      t->label ? t->label_len : 4));
		num(rep->o, t->step_seq), num(rep->o, t->n_tokens), num(rep->o, t->phase);
		snum(rep->o, t->status);
		break;
	case GGMLVIZ_TIMING_KERNEL:
		kernel_fields(rep, t);
		break;
	default: /* GGMLVIZ_TIMING_SPLIT */
		backend = cli_backend_name(rep->names, rep->r, t->backend_ptr, buf);
		num(rep->o, cli_report_string(rep, backend, strlen(backend)));
		num(rep->o, t->n_nodes), num(rep->o, t->n_timed), num(rep->o, t->ticks);
		num(rep->o, t->ticks_expected);
		break;
	}
}

static void slice(struct cli_report *rep, size_t lane, const struct ggmlviz_timing *t)
{
	struct cli_out *o = rep->o;

	cli_out_str(o, rep->slices++ ? ",\n[" : "\n[");
	cli_out_u64(o, (uint64_t)t->kind);
	num(o, lane);
	num(o, t->depth);
	snum(o, (int64_t)t->begin_ns - (int64_t)rep->t0); /* before 0: begun before --steps' first */
	num(o, t->duration_ns);
	kind_fields(rep, t);
	cli_out_char(o, ']');
}

/*
 * A CPU worker's share of a node (OP_SHARE), drawn as its op on the
 * worker's lane; thread 0's are its lane's ops already (measured).
 */
static struct ggmlviz_timing share_as_op(const struct ggmlviz_timing *t)
{
	struct ggmlviz_timing u = *t;

	u.kind = GGMLVIZ_TIMING_OP;
	u.label = "(share)", u.label_len = 7;
	u.depth = 0, u.n_nodes = 0, u.n_threads = 0, u.ticks = 0;
	return u;
}

int cli_report_timing(void *report, const struct ggmlviz_timing *t, const struct cli_tick_est *e)
{
	struct cli_report *rep = report;
	struct ggmlviz_timing u;
	size_t lane;

	for (int i = 0; i < CLI_REPORT_BY_COUNT; i++)
		if (cli_agg_add(&rep->by[i], t, e) < 0)
			rep->error = -ENOMEM;
	if (t->kind == GGMLVIZ_TIMING_SHARE) {
		if (t->ticks == 0)
			return 0;
		u = share_as_op(t);
		t = &u;
	}
	if (t->kind < GGMLVIZ_TIMING_OP || t->kind > GGMLVIZ_TIMING_KERNEL)
		return 0;
	if (!cli_window_meets(&rep->window, rep->t0, t->begin_ns, t->end_ns))
		return 0; /* --steps: what meets their time, as export keeps it; the page cuts it */
	lane = lane_of(rep, rep->pid, t->thread_id);
	rep->kernels += t->kind == GGMLVIZ_TIMING_KERNEL;
	if (t->kind == GGMLVIZ_TIMING_KERNEL &&
	    (t->duration_ns < rep->threshold_ns || rep->slices >= rep->max_slices))
		rep->kernels_hidden++; /* its op's time is drawn, or binned */
	else if (t->kind == GGMLVIZ_TIMING_OP &&
	    (t->duration_ns < rep->threshold_ns || rep->slices >= rep->max_slices))
		add_to_bins(rep, lane, t);
	else
		slice(rep, lane, t);
	return 0;
}

/* ---- records: the process, memory ---- */

/*
 * Live memory over the time drawn: before it (--steps) only followed, so that
 * the window opens with what was live then; after it not read.
 */
static void memory(struct cli_report *rep, const struct ggmlviz_event *ev)
{
	uint64_t bytes;
	size_t b;

	if (ev->timestamp_ns > rep->t1)
		return;
	rep->has_memory = true;
	if (cli_live_event(&rep->live, rep->pid, ev) < 0)
		rep->error = -ENOMEM;
	bytes = rep->live.bytes;
	if (ev->timestamp_ns < rep->t0) {
		rep->mem_before = bytes;
		return;
	}
	b = bin_of(rep, ev->timestamp_ns);
	if (bytes > rep->mem_bins[b])
		rep->mem_bins[b] = bytes;
	if (bytes > rep->mem_peak)
		rep->mem_peak = bytes, rep->mem_peak_ts = ev->timestamp_ns;
}

/*
 * The trace's last word on GPU kernels: a session says at its start how they
 * are recorded, and at its end what was (a merged trace: its last process's).
 */
static void gpu_note(struct cli_report *rep, const struct ggmlviz_event *ev)
{
	size_t n = ev->label_len < sizeof rep->gpu_note ? ev->label_len : sizeof rep->gpu_note - 1;

	if (n)
		memcpy(rep->gpu_note, ev->label, n);
	rep->gpu_note[n] = '\0';
	rep->has_gpu_note = true;
}

/* A GGML RPC command that ended, as a slice: [kind, lane, depth, begin, duration, name, seq, ...]. */
static void rpc_slice(struct cli_report *rep, const struct cli_report_rpc_done *d)
{
	struct cli_out *o = rep->o;
	char buf[16];
	const char *name = cli_rpc_cmd_name(d->cmd, buf);

	if (!cli_window_meets(&rep->window, rep->t0, d->begin_ns, d->end_ns))
		return;
	cli_out_str(o, rep->slices++ ? ",\n[" : "\n[");
	cli_out_u64(o, CLI_REPORT_KIND_RPC);
	num(o, lane_of(rep, d->pid, d->tid));
	num(o, 0);
	snum(o, (int64_t)d->begin_ns - (int64_t)rep->t0);
	num(o, d->end_ns > d->begin_ns ? d->end_ns - d->begin_ns : 0);
	num(o, cli_report_string(rep, name, strlen(name)));
	num(o, d->seq), num(o, d->request_bytes), num(o, d->reply_bytes), num(o, d->side);
	num(o, d->status);
	cli_out_char(o, ']');
}

void cli_report_record(struct cli_report *rep, const struct ggmlviz_event *ev)
{
	struct cli_report_rpc_done done;

	if (cli_report_rpc_record(&rep->rpc, rep->pid, ev, &done))
		rpc_slice(rep, &done);
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_PROCESS)
		rep->pid = ev->data.meta.key;
	else if (ev->type == GGMLVIZ_EVENT_TENSOR_ALLOC || ev->type == GGMLVIZ_EVENT_TENSOR_FREE)
		memory(rep, ev);
	else if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_GPU)
		gpu_note(rep, ev); /* the last one says most: how, and at the end what was recorded */
}

/* ---- what the end knows ---- */

static void lanes(struct cli_report *rep)
{
	struct cli_out *o = rep->o;
	char buf[96], named[192];

	cli_out_str(o, "\"lanes\":[");
	for (size_t i = 0; i < rep->n_lanes; i++) {
		uint32_t tid = (uint32_t)rep->lane_key[i];
		const char *name = i == CLI_REPORT_LANES - 1 && rep->lanes_over
					   ? "(more threads)"
					   : cli_report_lane_name(&rep->rpc, rep->lane_key[i] >> 32,
								  cli_thread_label(rep->names, rep->r, tid,
										   buf, sizeof buf),
								  named, sizeof named);

		cli_out_printf(o, "%s{\"pid\":%" PRIu64 ",\"tid\":%" PRIu32 ",\"name\":",
			       i ? "," : "", rep->lane_key[i] >> 32, tid);
		cli_json_cstr(o, name);
		cli_out_char(o, '}');
	}
	cli_out_str(o, "],");
}

static void bins(struct cli_report *rep)
{
	struct cli_out *o = rep->o;

	cli_out_str(o, "\"bins\":[");
	for (size_t l = 0; l < rep->n_lanes; l++) {
		const double *row = rep->bins + l * CLI_REPORT_BINS;

		cli_out_str(o, l ? ",[" : "[");
		for (size_t b = 0; b < CLI_REPORT_BINS; b++) {
			if (b)
				cli_out_char(o, ',');
			cli_out_u64(o, (uint64_t)row[b]);
		}
		cli_out_char(o, ']');
	}
	cli_out_str(o, "],");
}

static void mem(struct cli_report *rep)
{
	struct cli_out *o = rep->o;

	cli_out_str(o, "\"memory\":");
	if (!rep->has_memory) {
		cli_out_str(o, "null,");
		return;
	}
	if (rep->mem_before > rep->mem_bins[0])
		rep->mem_bins[0] = rep->mem_before; /* what the window opened with */
	if (rep->mem_before > rep->mem_peak)
		rep->mem_peak = rep->mem_before, rep->mem_peak_ts = rep->t0;
	cli_out_printf(o, "{\"peak\":%" PRIu64 ",\"peak_t\":%" PRIu64 ",\"end\":%" PRIu64
			  ",\"max_per_bin\":[", rep->mem_peak,
		       rep->mem_peak_ts > rep->t0 ? rep->mem_peak_ts - rep->t0 : 0, rep->live.bytes);
	for (size_t b = 0; b < CLI_REPORT_BINS; b++) {
		if (b)
			cli_out_char(o, ',');
		cli_out_u64(o, rep->mem_bins[b]);
	}
	cli_out_str(o, "]},");
}

void cli_report_tail(struct cli_report *rep)
{
	struct cli_out *o = rep->o;

	lanes(rep);
	bins(rep);
	mem(rep);
	cli_out_str(o, "\"strings\":[");
	for (size_t i = 0; i < rep->n_strings; i++) {
		if (i)
			cli_out_char(o, ',');
		cli_json_cstr(o, rep->string_list[i]);
	}
	cli_out_printf(o, "],\"binned_ops\":%" PRIu64 ",\"hidden_kernels\":%" PRIu64
			  ",\"threshold_ns\":%" PRIu64 ",\"lanes_over\":%" PRIu64 ",",
		       rep->ops_binned, rep->kernels_hidden, rep->threshold_ns, rep->lanes_over);
	cli_out_printf(o, "\"kernels\":%" PRIu64 ",\"gpu_note\":", rep->kernels);
	if (rep->has_gpu_note)
		cli_json_cstr(o, rep->gpu_note);
	else
		cli_out_str(o, "null");
	cli_out_char(o, ',');
}
