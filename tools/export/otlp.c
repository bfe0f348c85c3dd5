/*
 * ggmlviz export --format otlp (see export.h): a trace's requests and
 * steps as OpenTelemetry spans in OTLP/JSON, one ExportTraceServiceRequest
 * a line, as the OpenTelemetry Collector's OTLP JSON file receiver reads
 * them.
 *
 * A server's request (stats --by request) is a trace of its own: a span
 * from its arrival to its end (the semantic conventions' gen_ai.*
 * attributes where they exist), with its wait in the queue, its prompt and
 * its generation as children, and under those the steps that decoded it
 * (a step of several requests' slots under each of them). A step that
 * served no request (any llama.cpp trace's, a server's warm-up) is a child
 * of its process's span. A step's ops are never spans: they are summed
 * per op type into its attributes, as stats gives them (the estimate of
 * op times from ticks). Ids are derived from the trace's name, the
 * process, the request and the step: exporting again gives the same ids,
 * and the processes of a merged trace never share one (each request, step
 * and process span is hashed with its own process's pid, each under its
 * own process's resource).
 *
 * Two passes: the requests first (they end after their steps), then the
 * steps with their STEP_SEQ records and ops. A step's span is written once
 * its ops are all in: the reader hands a GPU run's ops over after the
 * step has ended, once its kernels are in (or a later run of the same
 * thread says they will not come), so a step with GPU runs waits for them,
 * STEPS_HELD steps at most, and every step left waiting at the end.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export/export.h"
#include "input/input.h"
#include "output/output.h"
#include "stats/stats.h"
#include "stats/ticks.h"

#define LINE_SPANS 64   /* spans a line (an ExportTraceServiceRequest) holds at most */
#define MAX_PENDING 256 /* STEP_SEQ records of the steps open at once (a server's slots) */
#define STEPS_HELD 64   /* steps being summed, or waiting for their GPU runs' ops */
#define STEP_OPS 64     /* op types summed for one step */
#define STEP_RUNS 32    /* GPU runs a step waits for; a step with more waits for STEPS_HELD */
#define PROCESSES 64    /* processes of a merged trace kept apart; the others share the last */

/* Ids: whose (a request's trace, or the process's), and what of it (its trace id's halves, a span). */
enum { OF_REQUEST = 1, OF_PROCESS };
enum { ID_TRACE_HI = 1, ID_TRACE_LO, ID_REQUEST, ID_QUEUE, ID_PROMPT, ID_GENERATION, ID_ROOT, ID_STEP };

struct op_sum {
	uint32_t op_type;
	uint64_t count, ns;
};

/* A GPU run of a step: its ops come after the step ended. */
struct step_run {
	uint64_t run_id;
	uint32_t tid; /* the thread that launched it */
};

/* A thread that launches GPU runs: its newest run whose ops came. */
struct thread_runs {
	uint32_t tid;
	uint64_t run_id;
};

/* A process: its name, and the time of its steps that served no request (its span). */
struct process {
	uint64_t pid;
	char name[64];
	uint64_t first_ns, last_ns, steps;
};

/* A STEP_SEQ waiting for its step to end (stats/sequences.c does the same). */
struct pending {
	uint32_t tid;
	uint64_t ctx;
	int32_t seq;
};

/* A step: its ops summed by op type while they come, then its span once they all have. */
struct step {
	uint64_t step_seq;       /* 0: a free entry */
	bool ended;              /* its STEP timing came: t, served, seqs and proc are set */
	struct op_sum ops[STEP_OPS];
	size_t n;
	struct step_run runs[STEP_RUNS];
	size_t n_runs, runs_over;
	struct ggmlviz_timing t;
	char label[64];          /* t's, copied (the reader lets go of what it read) */
	size_t served[MAX_PENDING]; /* the requests it served (indices into reqs.r) */
	int32_t seqs[MAX_PENDING];
	uint32_t n_served;
	size_t proc;             /* its process (index into procs) */
};

struct otlp {
	struct cli *cli;
	const struct ggmlviz_reader *r;
	struct cli_out *o;
	const char *trace;
	uint64_t pid, line_pid;            /* the process of the span being written, of the open line */
	const char *process;               /* ... its name */
	struct cli_requests reqs;
	size_t *by_slot;                   /* request indices by process, slot, then prompt start */
	struct pending pend[MAX_PENDING];
	size_t n_pend;
	struct step held[STEPS_HELD];
	struct step *last;                 /* the entry the last op went to */
	struct process procs[PROCESSES];
	size_t n_procs, cur;               /* cur: the process of the records being read */
	struct thread_runs seen[STEPS_HELD]; /* each thread's newest run whose ops came */
	size_t n_seen;
	size_t line_spans;                 /* spans in the open line; 0: none open */
	uint64_t steps, request_steps, ops_lost, ops_late, steps_unwaited;
	uint64_t steps_ended_max;          /* the newest step that ended */
};

/* ---- processes ---- */

/* The process pid, made on first sight (the last one holds those past PROCESSES). */
static size_t process_of(struct otlp *x, uint64_t pid)
{
	for (size_t i = 0; i < x->n_procs; i++)
		if (x->procs[i].pid == pid)
			return i;
	if (x->n_procs == PROCESSES)
		return PROCESSES - 1;
	x->procs[x->n_procs] = (struct process){ .pid = pid };
	return x->n_procs++;
}

/* The spans written from now on are process i's (their ids, their line's resource). */
static void as_process(struct otlp *x, size_t i)
{
	x->pid = x->procs[i].pid;
	x->process = x->procs[i].name;
}

/* ---- ids: 64-bit hashes of what a span is ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31, h *= 0xbf58476d1ce4e5b9ull, h ^= h >> 27, h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/*
 * The id of what (ID_*, of step for ID_STEP) in whose (OF_*) trace, request
 * rid's or the process's, in process pid.
 */
static uint64_t id_of(const struct otlp *x, uint64_t pid, uint64_t whose, uint64_t rid, uint64_t what,
		      uint64_t step)
{
	uint64_t h = 0x67676d6c76697aull; /* "ggmlviz" */

	for (const char *p = x->trace; *p; p++)
		h = mix(h, (unsigned char)*p);
	h = mix(mix(mix(mix(mix(h, pid), whose), rid), what), step);
	return h | 1; /* never all zero: an invalid id in OTLP */
}

#define REQ_ID(x, q, what) id_of(x, (q)->pid, OF_REQUEST, (q)->id, what, 0)
#define PROC_ID(x, pid, what) id_of(x, pid, OF_PROCESS, 0, what, 0)

static void hex_id(struct cli_out *o, const char *key, uint64_t hi, uint64_t lo, bool wide)
{
	if (wide)
		cli_out_printf(o, ",\"%s\":\"%016" PRIx64 "%016" PRIx64 "\"", key, hi, lo);
	else
		cli_out_printf(o, ",\"%s\":\"%016" PRIx64 "\"", key, lo);
}

/* ---- lines and spans ---- */

static void line_end(struct otlp *x)
{
	if (x->line_spans)
		cli_out_str(x->o, "]}]}]}\n");
	x->line_spans = 0;
}

/* The resource (the process), the scope (libggmlviz), and the spans' array opened. */
static void line_begin(struct otlp *x)
{
	struct cli_out *o = x->o;

	cli_out_str(o, "{\"resourceSpans\":[{\"resource\":{\"attributes\":["
		       "{\"key\":\"service.name\",\"value\":{\"stringValue\":");
	cli_json_cstr(o, x->process && x->process[0] ? x->process : "ggml");
	cli_out_printf(o, "}},{\"key\":\"process.pid\",\"value\":{\"intValue\":\"%" PRIu64 "\"}},"
		       "{\"key\":\"ggmlviz.trace\",\"value\":{\"stringValue\":", x->pid);
	cli_json_cstr(o, x->trace);
	cli_out_str(o, "}}]},\"scopeSpans\":[{\"scope\":{\"name\":\"libggmlviz\",\"version\":\""
		       PACKAGE_VERSION "\"},\"spans\":[");
	x->line_pid = x->pid;
}

/* Opens a span: {"traceId":..., "spanId":..., "parentSpanId":..., name, kind, times, "attributes":[ */
static void span_begin(struct otlp *x, uint64_t trace_hi, uint64_t trace_lo, uint64_t span,
		       uint64_t parent, const char *name, int kind, uint64_t begin_ns, uint64_t end_ns)
{
	struct cli_out *o = x->o;

	if (x->line_spans && (x->line_spans == LINE_SPANS || x->line_pid != x->pid))
		line_end(x);
	if (!x->line_spans)
		line_begin(x);
	cli_out_str(o, x->line_spans++ ? ",{" : "{");
	cli_out_str(o, "\"name\":");
	cli_json_cstr(o, name);
	hex_id(o, "traceId", trace_hi, trace_lo, true);
	hex_id(o, "spanId", 0, span, false);
	if (parent)
		hex_id(o, "parentSpanId", 0, parent, false);
	cli_out_printf(o, ",\"kind\":%d,\"startTimeUnixNano\":\"%" PRIu64 "\",\"endTimeUnixNano\":\"%"
		       PRIu64 "\",\"attributes\":[", kind, begin_ns, end_ns > begin_ns ? end_ns : begin_ns);
}

/* Closes a span's attributes, with its status: an error where error_message is not NULL. */
static void span_end(struct otlp *x, const char *error_message)
{
	cli_out_char(x->o, ']');
	if (error_message) {
		cli_out_str(x->o, ",\"status\":{\"code\":2,\"message\":");
		cli_json_cstr(x->o, error_message);
		cli_out_char(x->o, '}');
	}
	cli_out_char(x->o, '}');
}

/* An attribute, after n others of its span. */
static void attr_int(struct otlp *x, int *n, const char *key, uint64_t v)
{
	cli_out_str(x->o, (*n)++ ? ",{\"key\":" : "{\"key\":");
	cli_json_cstr(x->o, key);
	cli_out_printf(x->o, ",\"value\":{\"intValue\":\"%" PRIu64 "\"}}", v);
}

static void attr_str(struct otlp *x, int *n, const char *key, const char *v)
{
	cli_out_str(x->o, (*n)++ ? ",{\"key\":" : "{\"key\":");
	cli_json_cstr(x->o, key);
	cli_out_str(x->o, ",\"value\":{\"stringValue\":");
	cli_json_cstr(x->o, v);
	cli_out_str(x->o, "}}");
}

/* ---- a request: its span and its stages' ---- */

/* The semantic conventions' gen_ai.operation.name of a request's kind. */
static const char *operation_of(uint32_t kind)
{
	switch (kind) {
	case GGMLVIZ_REQUEST_COMPLETION: return "text_completion";
	case GGMLVIZ_REQUEST_EMBEDDING: return "embeddings";
	case GGMLVIZ_REQUEST_RERANK: return "rerank";
	case GGMLVIZ_REQUEST_INFILL: return "text_completion";
	default: return "other";
	}
}

/* The request's figures as stats --by request gives them: ggmlviz.request.queue_ns, ... */
static void request_figures(struct otlp *x, int *n, const struct cli_request *q)
{
	char key[48];
	uint64_t ns;

	for (int f = 0; f < CLI_REQ_FIGURES; f++) {
		if (cli_request_figure(q, (enum cli_request_figure)f, &ns) < 0)
			continue;
		snprintf(key, sizeof key, "ggmlviz.request.%s_ns", cli_request_figure_names[f]);
		attr_int(x, n, key, ns);
	}
}

static void request_span(struct otlp *x, const struct cli_request *q)
{
	int n = 0;

	span_begin(x, REQ_ID(x, q, ID_TRACE_HI), REQ_ID(x, q, ID_TRACE_LO), REQ_ID(x, q, ID_REQUEST), 0,
		   operation_of(q->kind), 2, q->arrival_ns, q->end_ns);
	attr_str(x, &n, "gen_ai.operation.name", operation_of(q->kind));
	attr_int(x, &n, "gen_ai.usage.input_tokens", q->prompt_tokens);
	attr_int(x, &n, "gen_ai.usage.output_tokens", q->generated);
	if (q->stop[0]) {
		cli_out_str(x->o, ",{\"key\":\"gen_ai.response.finish_reasons\",\"value\":{\"arrayValue\":"
			       "{\"values\":[{\"stringValue\":");
		cli_json_cstr(x->o, q->stop);
		cli_out_str(x->o, "}]}}}");
	}
	attr_int(x, &n, "ggmlviz.request.id", q->id);
	if (q->slot >= 0)
		attr_int(x, &n, "ggmlviz.request.slot", (uint64_t)q->slot);
	attr_str(x, &n, "ggmlviz.request.status", cli_request_status(q->status));
	attr_int(x, &n, "ggmlviz.request.cached_tokens", q->cached_tokens);
	request_figures(x, &n, q);
	span_end(x, q->status == GGMLVIZ_REQUEST_FAILED ? "the server ended it with an error" : NULL);
}

/* A stage of a request (its wait in the queue, its prompt, its generation), where it had one. */
static void stage_span(struct otlp *x, const struct cli_request *q, uint64_t what, const char *name,
		       uint64_t begin_ns, uint64_t end_ns)
{
	if (!begin_ns || !end_ns || end_ns < begin_ns)
		return;
	span_begin(x, REQ_ID(x, q, ID_TRACE_HI), REQ_ID(x, q, ID_TRACE_LO), REQ_ID(x, q, what),
		   REQ_ID(x, q, ID_REQUEST), name, 1, begin_ns, end_ns);
	span_end(x, NULL);
}

static void request_spans(struct otlp *x)
{
	for (size_t i = 0; i < x->reqs.n; i++) {
		const struct cli_request *q = &x->reqs.r[i];

		as_process(x, process_of(x, q->pid));
		request_span(x, q);
		stage_span(x, q, ID_QUEUE, "queue", q->arrival_ns, q->prompt_ns);
		stage_span(x, q, ID_PROMPT, "prompt", q->prompt_ns,
			   q->first_token_ns ? q->first_token_ns : q->end_ns);
		stage_span(x, q, ID_GENERATION, "generation", q->first_token_ns, q->end_ns);
	}
}

/* ---- which request a step of a slot served ---- */

static const struct cli_requests *sorting;

static int by_slot_then_prompt(const void *a, const void *b)
{
	const struct cli_request *p = &sorting->r[*(const size_t *)a];
	const struct cli_request *q = &sorting->r[*(const size_t *)b];

	if (p->pid != q->pid)
		return (p->pid > q->pid) - (p->pid < q->pid);
	if (p->slot != q->slot)
		return (p->slot > q->slot) - (p->slot < q->slot);
	return (p->prompt_ns > q->prompt_ns) - (p->prompt_ns < q->prompt_ns);
}

static int index_requests(struct otlp *x)
{
	if (!x->reqs.n)
		return 0;
	if (!(x->by_slot = malloc(x->reqs.n * sizeof *x->by_slot)))
		return -ENOMEM;
	for (size_t i = 0; i < x->reqs.n; i++)
		x->by_slot[i] = i;
	sorting = &x->reqs;
	qsort(x->by_slot, x->reqs.n, sizeof *x->by_slot, by_slot_then_prompt);
	return 0;
}

/* Whether request q comes before (pid, slot, ns) in by_slot's order. */
static bool before(const struct cli_request *q, uint64_t pid, int32_t slot, uint64_t ns)
{
	if (q->pid != pid)
		return q->pid < pid;
	return q->slot < slot || (q->slot == slot && q->prompt_ns <= ns);
}

/* The index of process pid's request of slot that was on its prompt or generating at ns; SIZE_MAX if none. */
static size_t request_at(const struct otlp *x, uint64_t pid, int32_t slot, uint64_t ns)
{
	size_t lo = 0, hi = x->reqs.n;
	const struct cli_request *q;

	while (lo < hi) { /* the first entry past (pid, slot, ns) */
		size_t mid = lo + (hi - lo) / 2;

		if (before(&x->reqs.r[x->by_slot[mid]], pid, slot, ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return SIZE_MAX;
	q = &x->reqs.r[x->by_slot[lo - 1]];
	return q->pid == pid && q->slot == slot && q->prompt_ns && ns <= q->end_ns ? x->by_slot[lo - 1]
										     : SIZE_MAX;
}

/* ---- a step: its ops summed, its spans ---- */

static void write_step(struct otlp *x, struct step *s);

/* Frees entry s: its span written if its step ended, else its ops counted lost (it never ended). */
static void let_go(struct otlp *x, struct step *s)
{
	if (s->ended) {
		write_step(x, s);
	} else {
		for (size_t i = 0; i < s->n; i++)
			x->ops_lost += s->ops[i].count;
	}
	s->step_seq = 0;
}

/* The entry of step_seq, made on first sight (the oldest let go when all are taken); NULL for 0. */
static struct step *step_of(struct otlp *x, uint64_t step_seq)
{
	struct step *oldest = NULL, *free_one = NULL;

	if (!step_seq)
		return NULL;
	for (int i = 0; i < STEPS_HELD; i++) {
		struct step *s = &x->held[i];

		if (s->step_seq == step_seq)
			return s;
		if (!s->step_seq && !free_one)
			free_one = s;
		if (s->step_seq && (!oldest || s->step_seq < oldest->step_seq))
			oldest = s;
	}
	if (!free_one) {
		x->steps_unwaited += oldest->ended && oldest->n_runs;
		let_go(x, oldest);
		free_one = oldest;
	}
	memset(free_one, 0, offsetof(struct step, ops)); /* step_seq, ended */
	free_one->step_seq = step_seq, free_one->n = 0, free_one->n_runs = 0, free_one->runs_over = 0;
	return free_one;
}

/* The step waiting for run run_id's ops, if any. */
static struct step *step_of_run(struct otlp *x, uint64_t run_id, uint32_t *tid)
{
	for (int i = 0; i < STEPS_HELD; i++)
		for (size_t k = 0; x->held[i].step_seq && k < x->held[i].n_runs; k++)
			if (x->held[i].runs[k].run_id == run_id) {
				*tid = x->held[i].runs[k].tid;
				return &x->held[i];
			}
	return NULL;
}

static void add_op(struct otlp *x, const struct ggmlviz_timing *t)
{
	struct step *s;
	uint32_t tid;
	size_t i;

	if (!t->step_seq)
		return; /* outside every step: no span to sum it into */
	s = t->run_id ? step_of_run(x, t->run_id, &tid) : NULL;
	if (!s && x->last && x->last->step_seq == t->step_seq)
		s = x->last; /* the step of the op before: most often */
	if (!s) {
		for (i = 0; i < STEPS_HELD && x->held[i].step_seq != t->step_seq; i++)
			;
		if (i == STEPS_HELD && t->run_id && t->step_seq <= x->steps_ended_max) {
			x->ops_late++; /* its step's span was written without it (it waited too long) */
			return;
		}
		s = step_of(x, t->step_seq);
	}
	for (i = 0; i < s->n && s->ops[i].op_type != t->op_type; i++)
		;
	if (i == STEP_OPS) {
		x->ops_lost++;
		return;
	}
	if (i == s->n)
		s->ops[s->n++] = (struct op_sum){ t->op_type, 0, 0 };
	s->ops[i].count++, s->ops[i].ns += t->duration_ns;
	x->last = s;
}

/* A GPU run of a step (a SPLIT with a run id): the step waits for its ops. */
static void add_run(struct otlp *x, const struct ggmlviz_timing *t)
{
	struct step *s = step_of(x, t->step_seq);

	if (!s)
		return;
	if (s->n_runs == STEP_RUNS) {
		s->runs_over++; /* waits until it is let go */
		return;
	}
	s->runs[s->n_runs++] = (struct step_run){ t->run_id, t->thread_id };
}

/* Thread tid's newest run whose ops came; 0 if none. */
static uint64_t *seen_of(struct otlp *x, uint32_t tid)
{
	for (size_t i = 0; i < x->n_seen; i++)
		if (x->seen[i].tid == tid)
			return &x->seen[i].run_id;
	if (x->n_seen == STEPS_HELD)
		return &x->seen[STEPS_HELD - 1].run_id;
	x->seen[x->n_seen] = (struct thread_runs){ tid, 0 };
	return &x->seen[x->n_seen++].run_id;
}

/*
 * An op or kernel of a GPU run came: its run's are all in (the reader
 * hands a run's timings over together), and the runs its thread launched
 * before it are done (the reader ties a thread's runs in order).
 */
static void run_came(struct otlp *x, uint64_t run_id)
{
	uint32_t tid;
	uint64_t *seen;

	if (!run_id || !step_of_run(x, run_id, &tid))
		return;
	seen = seen_of(x, tid);
	*seen = run_id > *seen ? run_id : *seen;
}

/* Whether every GPU run of step s has had its ops come. */
static bool runs_done(struct otlp *x, const struct step *s)
{
	if (s->runs_over)
		return false;
	for (size_t k = 0; k < s->n_runs; k++)
		if (*seen_of(x, s->runs[k].tid) < s->runs[k].run_id)
			return false;
	return true;
}

/* Writes the spans of the steps that ended and have all their ops. */
static void write_done(struct otlp *x)
{
	for (int i = 0; i < STEPS_HELD; i++)
		if (x->held[i].step_seq && x->held[i].ended && runs_done(x, &x->held[i]))
			let_go(x, &x->held[i]);
}

/* The step's ops, summed by op type: ggmlviz.op.MUL_MAT.ns and .count, ... */
static void op_attrs(struct otlp *x, int *n, const struct step *s)
{
	char name[CLI_OP_NAME_MAX], key[64];
	uint64_t total = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct op_sum *p = &s->ops[i];
		const char *op = p->op_type == CLI_OP_RUN_START
				 ? "(run start)" : cli_op_name(&x->cli->names, x->r, p->op_type, name);

		snprintf(key, sizeof key, "ggmlviz.op.%s.count", op);
		attr_int(x, n, key, p->count);
		snprintf(key, sizeof key, "ggmlviz.op.%s.ns", op);
		attr_int(x, n, key, p->ns);
		total += p->ns;
	}
	attr_int(x, n, "ggmlviz.step.op_ns", total);
}

/* Step s's span, under the request q (the stage it was in) or, q NULL, its process's. */
static void step_span(struct otlp *x, const struct step *s, const struct cli_request *q,
		      int32_t seq)
{
	const struct ggmlviz_timing *t = &s->t;
	uint64_t whose = q ? OF_REQUEST : OF_PROCESS, rid = q ? q->id : 0, parent;
	int n = 0;

	if (q)
		parent = REQ_ID(x, q, q->first_token_ns && t->end_ns > q->first_token_ns
				       ? ID_GENERATION : ID_PROMPT);
	else
		parent = PROC_ID(x, x->pid, ID_ROOT);
	span_begin(x, id_of(x, x->pid, whose, rid, ID_TRACE_HI, 0), id_of(x, x->pid, whose, rid, ID_TRACE_LO, 0),
		   id_of(x, x->pid, whose, rid, ID_STEP, t->step_seq), parent,
		   s->label[0] ? s->label : "step", 1, t->begin_ns, t->end_ns);
	attr_int(x, &n, "ggmlviz.step", t->step_seq);
	attr_int(x, &n, "ggmlviz.step.tokens", t->n_tokens);
	attr_str(x, &n, "ggmlviz.step.phase", cli_phase_name(t->phase));
	attr_int(x, &n, "ggmlviz.step.status", (uint64_t)(int64_t)t->status);
	if (q) {
		attr_int(x, &n, "ggmlviz.step.sequence", (uint64_t)seq);
		attr_int(x, &n, "ggmlviz.step.requests", s->n_served);
	}
	op_attrs(x, &n, s);
	span_end(x, NULL);
}

/* A span under each request step s served, else under its process's. */
static void write_step(struct otlp *x, struct step *s)
{
	struct process *p = &x->procs[s->proc];

	as_process(x, s->proc);
	for (uint32_t i = 0; i < s->n_served; i++)
		step_span(x, s, &x->reqs.r[s->served[i]], s->seqs[i]);
	if (s->n_served)
		return;
	step_span(x, s, NULL, -1);
	p->first_ns = p->first_ns && p->first_ns < s->t.begin_ns ? p->first_ns : s->t.begin_ns;
	p->last_ns = s->t.end_ns > p->last_ns ? s->t.end_ns : p->last_ns;
	p->steps++;
}

/* A step ended: the requests its sequences served noted; written once its GPU runs' ops are in. */
static void on_step(struct otlp *x, const struct ggmlviz_timing *t)
{
	struct step *s = step_of(x, t->step_seq);
	size_t kept = 0;

	if (!s)
		return;
	s->ended = true;
	s->t = *t;
	s->t.label = NULL, s->t.type_name = NULL;
	snprintf(s->label, sizeof s->label, "%.*s", (int)(t->label ? t->label_len : 0),
		 t->label ? t->label : "");
	s->proc = x->cur;
	s->n_served = 0;
	for (size_t i = 0; i < x->n_pend; i++) {
		const struct pending *p = &x->pend[i];
		size_t q;

		if (p->tid != t->thread_id || p->ctx != t->ptr) {
			x->pend[kept++] = *p;
			continue;
		}
		q = cli_step_is_housekeeping(t) ? SIZE_MAX
						: request_at(x, x->procs[x->cur].pid, p->seq, t->begin_ns);
		if (q != SIZE_MAX)
			s->served[s->n_served] = q, s->seqs[s->n_served++] = p->seq;
	}
	x->n_pend = kept;
	x->steps++;
	x->request_steps += s->n_served != 0;
	x->steps_ended_max = t->step_seq > x->steps_ended_max ? t->step_seq : x->steps_ended_max;
}

/* Every process's span, around its steps that served no request. */
static void process_spans(struct otlp *x)
{
	for (size_t i = 0; i < x->n_procs; i++) {
		const struct process *p = &x->procs[i];
		int n = 0;

		if (!p->first_ns)
			continue;
		as_process(x, i);
		span_begin(x, PROC_ID(x, p->pid, ID_TRACE_HI), PROC_ID(x, p->pid, ID_TRACE_LO),
			   PROC_ID(x, p->pid, ID_ROOT), 0, p->name[0] ? p->name : "process", 1, p->first_ns,
			   p->last_ns);
		attr_int(x, &n, "ggmlviz.steps", p->steps);
		span_end(x, NULL);
	}
}

/* ---- the pass over the events ---- */

static int on_timing(void *arg, const struct ggmlviz_timing *t, const struct cli_tick_est *e)
{
	struct otlp *x = arg;

	(void)e;
	if (t->kind == GGMLVIZ_TIMING_OP)
		add_op(x, t);
	else if (t->kind == GGMLVIZ_TIMING_SPLIT && t->run_id)
		add_run(x, t);
	else if (t->kind == GGMLVIZ_TIMING_STEP)
		on_step(x, t);
	if ((t->kind == GGMLVIZ_TIMING_OP || t->kind == GGMLVIZ_TIMING_KERNEL) && t->run_id)
		run_came(x, t->run_id);
	return x->o->error ? -EIO : 0;
}

static void on_event(struct otlp *x, const struct ggmlviz_event *ev)
{
	if (ev->type == GGMLVIZ_EVENT_STEP_SEQ && x->n_pend < MAX_PENDING) {
		x->pend[x->n_pend++] = (struct pending){ ev->thread_id, ev->data.step_seq.ctx,
							 ev->data.step_seq.seq_id };
	} else if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_PROCESS) {
		x->cur = process_of(x, ev->data.meta.key);
		snprintf(x->procs[x->cur].name, sizeof x->procs[x->cur].name, "%.*s",
			 (int)(ev->label ? ev->label_len : 0), ev->label ? ev->label : "");
	}
}

static int steps_pass(struct otlp *x, struct cli_input *in, struct cli_ticks *k)
{
	struct ggmlviz_pairing *p;
	struct ggmlviz_event ev;
	struct ggmlviz_timing t;
	int rc, fed = 0;

	if ((rc = ggmlviz_pairing_new(&p)) < 0)
		return rc;
	while (fed == 0 && cli_input_next(in, &ev) == 1) {
		on_event(x, &ev);
		for (rc = ggmlviz_pairing_add(p, &ev, &t); rc == 1 && fed == 0;
		     rc = ggmlviz_pairing_take(p, &t))
			fed = cli_ticks_feed(k, &t, on_timing, x);
		write_done(x);
	}
	ggmlviz_pairing_finish(p);
	while (fed == 0 && ggmlviz_pairing_take(p, &t) == 1)
		fed = cli_ticks_feed(k, &t, on_timing, x);
	if (fed == 0)
		fed = cli_ticks_flush(k, on_timing, x);
	for (int i = 0; i < STEPS_HELD; i++) /* the end: no op is still to come */
		if (x->held[i].step_seq)
			let_go(x, &x->held[i]);
	ggmlviz_pairing_free(p);
	return fed;
}

int cli_otlp_write(struct cli *cli, struct cli_input *in, struct cli_out *o, struct cli_ticks *k)
{
	struct otlp *x = calloc(1, sizeof *x);
	int rc;

	if (!x)
		return -ENOMEM;
	x->cli = cli, x->r = in->r, x->o = o, x->trace = cli_trace_name(in);
	x->n_procs = 1; /* the records before any PROCESS record: pid 0 */
	rc = cli_requests_collect("export", in->path, &x->reqs) < 0 ? -EIO : index_requests(x);
	if (rc == 0)
		rc = steps_pass(x, in, k);
	process_spans(x);
	if (rc == 0)
		request_spans(x);
	line_end(x);
	if (x->ops_lost)
		cli_error("export: %" PRIu64 " ops of steps that never ended, or past %d op types in"
			  " a step, are in no step's attributes", x->ops_lost, STEP_OPS);
	if (x->ops_late)
		cli_error("export: %" PRIu64 " ops of GPU runs came after their step's span was written"
			  " (%" PRIu64 " steps could not wait longer: %d at most wait at once)", x->ops_late,
			  x->steps_unwaited, STEPS_HELD);
	cli_requests_free(&x->reqs);
	free(x->by_slot);
	free(x);
	return rc;
}
