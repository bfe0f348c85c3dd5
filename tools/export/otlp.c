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
 * op times from ticks). Ids are derived from the trace's name, its
 * process, the request and the step: exporting again gives the same ids.
 *
 * Two passes: the requests first (they end after their steps), then the
 * steps with their STEP_SEQ records and ops, each span written when its
 * step ends.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
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
#define OPEN_STEPS 16   /* steps whose ops are being summed at once */
#define STEP_OPS 64     /* op types summed for one step */

/* Ids: whose (a request's trace, or the process's), and what of it (its trace id's halves, a span). */
enum { OF_REQUEST = 1, OF_PROCESS };
enum { ID_TRACE_HI = 1, ID_TRACE_LO, ID_REQUEST, ID_QUEUE, ID_PROMPT, ID_GENERATION, ID_ROOT, ID_STEP };

struct op_sum {
	uint32_t op_type;
	uint64_t count, ns;
};

/* The ops of one step, summed by op type while it runs. */
struct step_ops {
	uint64_t step_seq; /* 0: a free entry */
	struct op_sum ops[STEP_OPS];
	size_t n;
};

/* A STEP_SEQ waiting for its step to end (stats/sequences.c does the same). */
struct pending {
	uint32_t tid;
	uint64_t ctx;
	int32_t seq;
};

struct otlp {
	struct cli *cli;
	const struct ggmlviz_reader *r;
	struct cli_out *o;
	const char *trace;
	uint64_t pid, line_pid;
	char process[64];
	struct cli_requests reqs;
	size_t *by_slot;                   /* request indices by slot, then prompt start */
	struct pending pend[MAX_PENDING];
	size_t n_pend;
	struct step_ops open[OPEN_STEPS];
	uint64_t first_ns, last_ns;        /* of the steps in no request: the process's span */
	size_t line_spans;                 /* spans in the open line; 0: none open */
	uint64_t steps, request_steps, ops_lost;
};

/* ---- ids: 64-bit hashes of what a span is ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31, h *= 0xbf58476d1ce4e5b9ull, h ^= h >> 27, h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/* The id of what (ID_*, of step for ID_STEP) in whose (OF_*) trace, request rid's or the process's. */
static uint64_t id_of(const struct otlp *x, uint64_t whose, uint64_t rid, uint64_t what, uint64_t step)
{
	uint64_t h = 0x67676d6c76697aull; /* "ggmlviz" */

	for (const char *p = x->trace; *p; p++)
		h = mix(h, (unsigned char)*p);
	h = mix(mix(mix(mix(mix(h, x->pid), whose), rid), what), step);
	return h | 1; /* never all zero: an invalid id in OTLP */
}

#define REQ_ID(x, q, what) id_of(x, OF_REQUEST, (q)->id, what, 0)
#define PROC_ID(x, what) id_of(x, OF_PROCESS, 0, what, 0)

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
	cli_json_cstr(o, x->process[0] ? x->process : "ggml");
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

/* The request of slot that was on its prompt or generating at ns; NULL if none. */
static const struct cli_request *request_at(const struct otlp *x, int32_t slot, uint64_t ns)
{
	size_t lo = 0, hi = x->reqs.n;

	while (lo < hi) { /* the first entry past (slot, ns) */
		size_t mid = lo + (hi - lo) / 2;
		const struct cli_request *q = &x->reqs.r[x->by_slot[mid]];

		if (q->slot < slot || (q->slot == slot && q->prompt_ns <= ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct cli_request *q = &x->reqs.r[x->by_slot[lo - 1]];
	return q->slot == slot && q->prompt_ns && ns <= q->end_ns ? q : NULL;
}

/* ---- a step: its ops summed, its spans ---- */

static struct step_ops *ops_of(struct otlp *x, uint64_t step_seq)
{
	struct step_ops *oldest = &x->open[0];

	for (int i = 0; i < OPEN_STEPS; i++) {
		if (x->open[i].step_seq == step_seq)
			return &x->open[i];
		if (x->open[i].step_seq < oldest->step_seq)
			oldest = &x->open[i];
	}
	for (size_t i = 0; oldest->step_seq && i < oldest->n; i++)
		x->ops_lost += oldest->ops[i].count; /* a step never ended: its ops go untold */
	oldest->step_seq = step_seq, oldest->n = 0;
	return oldest;
}

static void add_op(struct otlp *x, const struct ggmlviz_timing *t)
{
	struct step_ops *s;
	size_t i;

	if (!t->step_seq)
		return; /* outside every step: no span to sum it into */
	s = ops_of(x, t->step_seq);
	for (i = 0; i < s->n && s->ops[i].op_type != t->op_type; i++)
		;
	if (i == STEP_OPS) {
		x->ops_lost++;
		return;
	}
	if (i == s->n)
		s->ops[s->n++] = (struct op_sum){ t->op_type, 0, 0 };
	s->ops[i].count++, s->ops[i].ns += t->duration_ns;
}

/* The step's ops, summed by op type: ggmlviz.op.MUL_MAT.ns and .count, ... */
static void op_attrs(struct otlp *x, int *n, const struct step_ops *s)
{
	char name[CLI_OP_NAME_MAX], key[64];
	uint64_t total = 0;

	for (size_t i = 0; s && i < s->n; i++) {
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

/* The step's span, under the request q (the stage it was in) or, q NULL, its process's. */
static void step_span(struct otlp *x, const struct ggmlviz_timing *t, const struct step_ops *s,
		      const struct cli_request *q, uint32_t shared, int32_t seq)
{
	uint64_t whose = q ? OF_REQUEST : OF_PROCESS, rid = q ? q->id : 0, parent;
	char label[64];
	int n = 0;

	if (q)
		parent = REQ_ID(x, q, q->first_token_ns && t->end_ns > q->first_token_ns
				       ? ID_GENERATION : ID_PROMPT);
	else
		parent = PROC_ID(x, ID_ROOT);
	snprintf(label, sizeof label, "%.*s", (int)(t->label ? t->label_len : 0), t->label ? t->label : "");
	span_begin(x, id_of(x, whose, rid, ID_TRACE_HI, 0), id_of(x, whose, rid, ID_TRACE_LO, 0),
		   id_of(x, whose, rid, ID_STEP, t->step_seq), parent, label[0] ? label : "step", 1,
		   t->begin_ns, t->end_ns);
	attr_int(x, &n, "ggmlviz.step", t->step_seq);
	attr_int(x, &n, "ggmlviz.step.tokens", t->n_tokens);
	attr_str(x, &n, "ggmlviz.step.phase", cli_phase_name(t->phase));
	attr_int(x, &n, "ggmlviz.step.status", (uint64_t)(int64_t)t->status);
	if (q) {
		attr_int(x, &n, "ggmlviz.step.sequence", (uint64_t)seq);
		attr_int(x, &n, "ggmlviz.step.requests", shared);
	}
	op_attrs(x, &n, s);
	span_end(x, NULL);
}

/* A step ended: a span under each request its sequences served, else under its process. */
static void on_step(struct otlp *x, const struct ggmlviz_timing *t)
{
	const struct cli_request *served[MAX_PENDING];
	int32_t seqs[MAX_PENDING];
	struct step_ops *s = ops_of(x, t->step_seq);
	uint32_t n = 0;
	size_t kept = 0;

	for (size_t i = 0; i < x->n_pend; i++) {
		const struct pending *p = &x->pend[i];
		const struct cli_request *q;

		if (p->tid != t->thread_id || p->ctx != t->ptr) {
			x->pend[kept++] = *p;
			continue;
		}
		q = cli_step_is_housekeeping(t) ? NULL : request_at(x, p->seq, t->begin_ns);
		if (q)
			served[n] = q, seqs[n++] = p->seq;
	}
	x->n_pend = kept;
	x->steps++;
	for (uint32_t i = 0; i < n; i++)
		step_span(x, t, s, served[i], n, seqs[i]);
	x->request_steps += n != 0;
	if (!n) {
		step_span(x, t, s, NULL, 0, -1);
		x->first_ns = x->first_ns && x->first_ns < t->begin_ns ? x->first_ns : t->begin_ns;
		x->last_ns = t->end_ns > x->last_ns ? t->end_ns : x->last_ns;
	}
	s->step_seq = 0, s->n = 0;
}

/* The process's span, around its steps that served no request. */
static void process_span(struct otlp *x)
{
	int n = 0;

	if (!x->first_ns)
		return;
	span_begin(x, PROC_ID(x, ID_TRACE_HI), PROC_ID(x, ID_TRACE_LO), PROC_ID(x, ID_ROOT), 0,
		   x->process[0] ? x->process : "process", 1, x->first_ns, x->last_ns);
	attr_int(x, &n, "ggmlviz.steps", x->steps - x->request_steps);
	span_end(x, NULL);
	x->first_ns = x->last_ns = 0;
}

/* ---- the pass over the events ---- */

static int on_timing(void *arg, const struct ggmlviz_timing *t, const struct cli_tick_est *e)
{
	struct otlp *x = arg;

	(void)e;
	if (t->kind == GGMLVIZ_TIMING_OP)
		add_op(x, t);
	else if (t->kind == GGMLVIZ_TIMING_STEP)
		on_step(x, t);
	return x->o->error ? -EIO : 0;
}

static void on_event(struct otlp *x, const struct ggmlviz_event *ev)
{
	if (ev->type == GGMLVIZ_EVENT_STEP_SEQ && x->n_pend < MAX_PENDING) {
		x->pend[x->n_pend++] = (struct pending){ ev->thread_id, ev->data.step_seq.ctx,
							 ev->data.step_seq.seq_id };
	} else if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_PROCESS) {
		if (x->pid != ev->data.meta.key)
			process_span(x); /* another process of a merged trace: the last one's ends */
		x->pid = ev->data.meta.key;
		snprintf(x->process, sizeof x->process, "%.*s",
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
	}
	ggmlviz_pairing_finish(p);
	while (fed == 0 && ggmlviz_pairing_take(p, &t) == 1)
		fed = cli_ticks_feed(k, &t, on_timing, x);
	if (fed == 0)
		fed = cli_ticks_flush(k, on_timing, x);
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
	rc = cli_requests_collect("export", in->path, &x->reqs) < 0 ? -EIO : index_requests(x);
	if (rc == 0)
		rc = steps_pass(x, in, k);
	process_span(x);
	if (rc == 0)
		request_spans(x); /* under the process that served them (its PROCESS record read) */
	line_end(x);
	if (x->ops_lost)
		cli_error("export: %" PRIu64 " ops of steps that never ended, or past %d op types in"
			  " a step, are in no step's attributes", x->ops_lost, STEP_OPS);
	cli_requests_free(&x->reqs);
	free(x->by_slot);
	free(x);
	return rc;
}
