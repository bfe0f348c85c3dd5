/*
 * stats --by request (see stats.h): a server's requests, from their
 * REQUEST records (GGMLVIZ_TIMING_REQUEST): each one's wait in the queue,
 * its prompt's time, its time to the first token, its time per generated
 * token and its total, with the percentiles of each over the requests;
 * and the steps that served none (a server's warm-up and probes).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "output/output.h"
#include "stats/stats.h"

#define MAX_REQUESTS 10000000u /* held in memory: hours of a busy server */

struct reqs {
	struct cli_request *r;
	size_t n, cap;
	uint64_t steps, housekeeping, over;
	uint64_t pid; /* of the records read last */
};

static int add_request(struct reqs *q, const struct ggmlviz_timing *t)
{
	struct cli_request *r;

	if (q->n == MAX_REQUESTS) {
		q->over++;
		return 0;
	}
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		if (!(r = realloc(q->r, cap * sizeof *r)))
			return -ENOMEM;
		q->r = r, q->cap = cap;
	}
	r = &q->r[q->n++];
	memset(r, 0, sizeof *r);
	r->id = t->ptr;
	r->pid = q->pid;
	r->kind = t->op_type;
	r->slot = t->seq_id;
	r->status = t->status;
	r->arrival_ns = t->begin_ns;
	r->prompt_ns = t->value;
	r->first_token_ns = t->first_token_ns;
	r->end_ns = t->end_ns;
	r->prompt_tokens = t->n_tokens;
	r->cached_tokens = t->context_tokens;
	r->generated = t->n_nodes;
	snprintf(r->stop, sizeof r->stop, "%.*s", (int)t->type_name_len,
		 t->type_name ? t->type_name : "");
	return 0;
}

static int by_arrival(const void *a, const void *b)
{
	const struct cli_request *x = a, *y = b;

	if (x->arrival_ns != y->arrival_ns)
		return x->arrival_ns < y->arrival_ns ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static void on_event(const struct ggmlviz_event *ev, void *arg)
{
	cli_track_pid(&((struct reqs *)arg)->pid, ev);
}

static int on_timing(const struct ggmlviz_timing *t, void *arg)
{
	struct reqs *q = arg;

	q->steps += t->kind == GGMLVIZ_TIMING_STEP;
	q->housekeeping += cli_step_is_housekeeping(t);
	return t->kind == GGMLVIZ_TIMING_REQUEST ? add_request(q, t) : 0;
}

int cli_requests_collect(const char *cmd, const char *path, struct cli_requests *out)
{
	static const struct cli_each each = { on_event, on_timing, NULL };
	struct ggmlviz_pairing_counts c = { 0 };
	struct reqs q = { 0 };
	int status = cli_each_timing(cmd, path, &each, &q, &c);

	if (q.n)
		qsort(q.r, q.n, sizeof *q.r, by_arrival);
	*out = (struct cli_requests){ q.r, q.n, q.n, q.steps, q.housekeeping, c.unclosed_begins, q.over };
	return status;
}

/* A request's TOTAL, 0 where it never ended: those come last. */
static uint64_t total_of(const struct cli_request *r)
{
	uint64_t ns;

	return cli_request_figure(r, CLI_REQ_TOTAL, &ns) == 0 ? ns : 0;
}

static int by_total(const void *a, const void *b)
{
	uint64_t x = total_of(a), y = total_of(b);

	return x != y ? (x < y) - (x > y) : by_arrival(a, b);
}

void cli_requests_top(struct cli_requests *s, uint64_t top)
{
	if (s->n)
		qsort(s->r, s->n, sizeof *s->r, by_total);
	s->shown = top < s->n ? (size_t)top : s->n;
}

void cli_requests_free(struct cli_requests *s)
{
	free(s->r);
	memset(s, 0, sizeof *s);
}

/* ---- the figures ---- */

const char *const cli_request_figure_names[CLI_REQ_FIGURES] = { "queue", "prompt", "ttft",
								 "per_token", "total" };

int cli_request_figure(const struct cli_request *r, enum cli_request_figure f, uint64_t *ns)
{
	uint64_t a = 0, b = 0, div = 1;

	switch (f) {
	case CLI_REQ_QUEUE: a = r->arrival_ns, b = r->prompt_ns; break;
	case CLI_REQ_PROMPT: a = r->prompt_ns, b = r->first_token_ns; break;
	case CLI_REQ_TTFT: a = r->arrival_ns, b = r->first_token_ns; break;
	case CLI_REQ_PER_TOKEN: a = r->first_token_ns, b = r->end_ns, div = r->generated - 1u; break;
	case CLI_REQ_TOTAL: a = r->arrival_ns, b = r->end_ns; break;
	case CLI_REQ_FIGURES: break;
	}
	if (!a || !b || b < a || (f == CLI_REQ_PER_TOKEN && r->generated < 2))
		return -1;
	*ns = (b - a) / div;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank percentiles of a figure over the requests that have it; how many do. */
static size_t percentiles(const struct cli_requests *s, enum cli_request_figure f, uint64_t p[3])
{
	static const double ranks[3] = { 0.50, 0.95, 0.99 };
	uint64_t *v = s->n ? malloc(s->n * sizeof *v) : NULL;
	size_t n = 0;

	for (size_t i = 0; v && i < s->n; i++)
		n += cli_request_figure(&s->r[i], f, &v[n]) == 0;
	if (n)
		qsort(v, n, sizeof *v, by_value);
	for (int k = 0; k < 3; k++) {
		size_t rank = (size_t)(ranks[k] * (double)n + 0.999999999);
		p[k] = n ? v[(rank ? rank : 1) - 1] : 0;
	}
	free(v);
	return n;
}

/* ---- output ---- */

static void cell_ns(struct cli_table *t, const struct cli_request *r, enum cli_request_figure f)
{
	char b[32];
	uint64_t ns;

	cli_table_add(t, "%s", cli_request_figure(r, f, &ns) == 0 ? cli_fmt_ns((double)ns, b) : "-");
}

static void text_row(struct cli_table *t, const struct cli_request *r)
{
	cli_table_add(t, "%" PRIu64, r->id);
	if (r->slot >= 0)
		cli_table_add(t, "%" PRId32, r->slot);
	else
		cli_table_add(t, "-");
	cli_table_add(t, "%s", cli_request_status(r->status));
	cli_table_add(t, "%" PRIu32, r->prompt_tokens);
	cli_table_add(t, "%" PRIu32, r->cached_tokens);
	cli_table_add(t, "%" PRIu32, r->generated);
	for (enum cli_request_figure f = CLI_REQ_QUEUE; f < CLI_REQ_FIGURES; f++)
		cell_ns(t, r, f);
	cli_table_add(t, "%s", r->stop[0] ? r->stop : "-");
}

static void text_percentiles(struct cli_out *o, const struct cli_requests *s)
{
	static const char *const words[CLI_REQ_FIGURES] = { "queue", "prompt", "time to first token",
						    "per token", "total" };

	for (enum cli_request_figure f = CLI_REQ_QUEUE; f < CLI_REQ_FIGURES; f++) {
		uint64_t p[3];
		char b[3][32];
		size_t n = percentiles(s, f, p);

		if (n)
			cli_out_printf(o, "  %-20s p50 %s, p95 %s, p99 %s (%zu request%s)\n", words[f],
				       cli_fmt_ns((double)p[0], b[0]), cli_fmt_ns((double)p[1], b[1]),
				       cli_fmt_ns((double)p[2], b[2]), n, n == 1 ? "" : "s");
	}
}

void cli_requests_text(struct cli_out *o, const char *path, const struct cli_requests *s)
{
	static const char *const head[] = { "REQUEST", "SLOT", "STATUS", "PROMPT", "CACHED",
					     "GENERATED", "QUEUE", "PROMPT TIME", "TTFT",
					     "PER TOKEN", "TOTAL", "STOP", NULL };
	size_t done = 0;
	struct cli_table t;

	for (size_t i = 0; i < s->n; i++)
		done += s->r[i].status == GGMLVIZ_REQUEST_DONE;
	cli_out_printf(o, "%s: %zu request%s (%zu done, %zu cancelled or failed), %" PRIu64
		       " steps, %" PRIu64 " of them in no request (warm-up, probes)\n", path, s->n,
		       s->n == 1 ? "" : "s", done, s->n - done, s->steps, s->housekeeping);
	if (!s->n) {
		cli_out_str(o, "(no REQUEST records: a server built by scripts/build-llama-tools.sh "
			       "records its requests; stats --by sequence tells the slots apart)\n");
		return;
	}
	cli_table_init(&t, 12);
	for (const char *const *h = head; *h; h++)
		cli_table_add(&t, "%s", *h);
	for (size_t i = 0; i < s->shown; i++)
		text_row(&t, &s->r[i]);
	cli_table_print(&t, o, "");
	cli_table_free(&t);
	cli_out_not_shown(o, s->n - s->shown);
	text_percentiles(o, s);
	cli_out_str(o, "(QUEUE: from its arrival to its slot beginning on its prompt; PROMPT TIME: "
		       "from then to its first token; TTFT: from its arrival to its first token; PER "
		       "TOKEN: from its first token to its end, per token after the first; TOTAL: "
		       "from its arrival to its end; CACHED: its prompt's tokens its slot held "
		       "already)\n");
	if (s->unended || s->over)
		cli_out_printf(o, "(%" PRIu64 " requests never ended in the trace, %" PRIu64
			       " past the %u held: not shown)\n", s->unended, s->over,
			       MAX_REQUESTS);
}

static void json_ns(struct cli_out *o, const struct cli_request *r, enum cli_request_figure f)
{
	uint64_t ns;

	cli_out_printf(o, ",\"%s_ns\":", cli_request_figure_names[f]);
	if (cli_request_figure(r, f, &ns) == 0)
		cli_out_printf(o, "%" PRIu64, ns);
	else
		cli_out_str(o, "null");
}

static void json_request(struct cli_out *o, const struct cli_request *r)
{
	cli_out_printf(o, "{\"request\":%" PRIu64 ",\"kind\":\"%s\",\"slot\":%" PRId32
		       ",\"status\":\"%s\",\"stop\":", r->id, cli_request_kind(r->kind), r->slot,
		       cli_request_status(r->status));
	cli_json_cstr(o, r->stop);
	cli_out_printf(o, ",\"prompt_tokens\":%" PRIu32 ",\"cached_tokens\":%" PRIu32
		       ",\"generated_tokens\":%" PRIu32 ",\"arrival_ns\":%" PRIu64
		       ",\"end_ns\":%" PRIu64, r->prompt_tokens, r->cached_tokens, r->generated,
		       r->arrival_ns, r->end_ns);
	for (enum cli_request_figure f = CLI_REQ_QUEUE; f < CLI_REQ_FIGURES; f++)
		json_ns(o, r, f);
	cli_out_char(o, '}');
}

void cli_requests_json(struct cli_out *o, const char *path, const struct cli_requests *s)
{
	cli_out_str(o, "{\"file\":");
	cli_json_cstr(o, path);
	cli_out_printf(o, ",\"by\":\"request\",\"steps\":%" PRIu64 ",\"housekeeping_steps\":%" PRIu64
		       ",\"unended\":%" PRIu64 ",\"requests\":[", s->steps, s->housekeeping,
		       s->unended);
	for (size_t i = 0; i < s->shown; i++) {
		if (i)
			cli_out_char(o, ',');
		json_request(o, &s->r[i]);
	}
	cli_out_printf(o, "],\"requests_not_shown\":%zu,\"percentiles\":{", s->n - s->shown);
	for (enum cli_request_figure f = CLI_REQ_QUEUE; f < CLI_REQ_FIGURES; f++) {
		uint64_t p[3];
		size_t n = percentiles(s, f, p);

		cli_out_printf(o, "%s\"%s_ns\":", f ? "," : "", cli_request_figure_names[f]);
		if (n)
			cli_out_printf(o, "{\"requests\":%zu,\"p50\":%" PRIu64 ",\"p95\":%" PRIu64
				       ",\"p99\":%" PRIu64 "}", n, p[0], p[1], p[2]);
		else
			cli_out_str(o, "null");
	}
	cli_out_str(o, "}}\n");
}
