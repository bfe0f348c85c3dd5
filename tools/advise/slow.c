/*
 * The window of the requests advise --request and --slow judge, and what
 * it holds against the run's normal (slow.h). Three passes: the
 * requests (stats --by request's), which make the window; the first
 * session's USAGE records, which cut the run into intervals of known CPU
 * time; then every record and timing, each step, op and record put on
 * its side by its time (a step and an op by their middle), and each
 * step's time times its compute threads into the USAGE intervals it
 * overlaps, so that an interval's CPU time is weighed against the steps
 * that ran in it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "advise/slow.h"
#include "cli.h"
#include "input/input.h"

#define SLOW_FACTOR 2       /* a slow request: a figure above twice the run's median */
#define SLOW_MIN_REQUESTS 5 /* requests with the figure, for its median to say a normal */

/* ---- a figure's values, for its median ---- */

void cli_sample_add(struct cli_sample *s, double v)
{
	if (!s->stride)
		s->stride = 1;
	if (s->seen++ % s->stride)
		return;
	if (s->n == CLI_SAMPLE_MAX) { /* every other one let go: the rest stays spread over the run */
		for (size_t i = 0; i < CLI_SAMPLE_MAX / 2; i++)
			s->v[i] = s->v[2 * i];
		s->n = CLI_SAMPLE_MAX / 2;
		s->stride *= 2;
	}
	s->v[s->n++] = v;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double cli_sample_median(struct cli_sample *s)
{
	if (!s->n)
		return 0;
	qsort(s->v, s->n, sizeof s->v[0], by_double);
	return s->n % 2 ? s->v[s->n / 2] : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
}

/* ---- the requests, and the window they make ---- */

int cli_slow_figure(const struct cli_slow *w, size_t i, enum cli_request_figure f, uint64_t *ns)
{
	return cli_request_figure(&w->req.r[i], f, ns);
}

/* The end of request i's life in the trace: its end, its first token, or the trace's last time. */
static uint64_t life_end(const struct cli_slow *w, const struct cli_request *r)
{
	return r->end_ns ? r->end_ns : r->first_token_ns ? r->first_token_ns : w->last_ns;
}

/* The first of spans s (sorted, apart) that ends after b: n when none. */
static size_t first_after(const struct cli_win_span *s, size_t n, uint64_t b)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s[mid].end <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether [b, e) meets the window. */
static bool overlaps(const struct cli_slow *w, uint64_t b, uint64_t e)
{
	size_t i = first_after(w->spans, w->n_spans, b);

	return i < w->n_spans && w->spans[i].begin < e;
}

/* How much of [b, e) the requests' lives cover. */
static uint64_t in_flight(const struct cli_slow *w, uint64_t b, uint64_t e)
{
	uint64_t ns = 0;

	for (size_t i = first_after(w->lives, w->n_lives, b); i < w->n_lives && w->lives[i].begin < e; i++)
		ns += (w->lives[i].end < e ? w->lives[i].end : e) -
		      (w->lives[i].begin > b ? w->lives[i].begin : b);
	return ns;
}

bool cli_slow_holds(const struct cli_slow *w, uint64_t t)
{
	return overlaps(w, t, t + 1);
}

bool cli_slow_normal(const struct cli_slow *w, size_t i)
{
	const struct cli_request *r = &w->req.r[i];

	return !overlaps(w, r->arrival_ns, life_end(w, r) + 1);
}

size_t cli_slow_median(const struct cli_slow *w, bool chosen, enum cli_request_figure f,
			 uint64_t *ns)
{
	double *v = calloc(w->req.n + 1, sizeof *v);
	size_t n = 0;
	uint64_t x;

	for (size_t i = 0; v && i < (chosen ? w->n_chosen : w->req.n); i++) {
		size_t k = chosen ? w->chosen[i] : i;
		if ((chosen || cli_slow_normal(w, k)) && cli_slow_figure(w, k, f, &x) == 0)
			v[n++] = (double)x;
	}
	if (v && n)
		qsort(v, n, sizeof *v, by_double);
	*ns = n ? (uint64_t)(n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
	free(v);
	return n;
}

/* The median of figure f over every request, where enough have it (else 0: not judged). */
static uint64_t run_median(const struct cli_slow *w, enum cli_request_figure f)
{
	struct cli_sample *s = calloc(1, sizeof *s);
	uint64_t x, m = 0;

	for (size_t i = 0; s && i < w->req.n; i++)
		if (cli_slow_figure(w, i, f, &x) == 0)
			cli_sample_add(s, (double)x);
	if (s && s->seen >= SLOW_MIN_REQUESTS)
		m = (uint64_t)cli_sample_median(s);
	free(s);
	return m;
}

/* Whether request i is slow: its time to first token or per token above twice the run's median. */
static bool slow(const struct cli_slow *w, size_t i, const uint64_t median[2])
{
	static const enum cli_request_figure figs[2] = { CLI_REQ_TTFT, CLI_REQ_PER_TOKEN };
	uint64_t x;

	for (int k = 0; k < 2; k++)
		if (median[k] && cli_slow_figure(w, i, figs[k], &x) == 0 && x > SLOW_FACTOR * median[k])
			return true;
	return false;
}

static int by_begin(const void *a, const void *b)
{
	const struct cli_win_span *x = a, *y = b;

	return (x->begin > y->begin) - (x->begin < y->begin);
}

/*
 * The lives of the requests idx names (all of them where idx is NULL),
 * merged where they overlap, into *out; how many, or -ENOMEM.
 */
static ssize_t merge_lives(const struct cli_slow *w, const size_t *idx, size_t n,
			   struct cli_win_span **out)
{
	struct cli_win_span *s = calloc(n + 1, sizeof *s);
	size_t m = 0;

	if (!(*out = s))
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		const struct cli_request *r = &w->req.r[idx ? idx[k] : k];
		s[k] = (struct cli_win_span){ r->arrival_ns, life_end(w, r) + 1 };
	}
	qsort(s, n, sizeof *s, by_begin);
	for (size_t k = 0; k < n; k++)
		if (m && s[k].begin <= s[m - 1].end)
			s[m - 1].end = s[k].end > s[m - 1].end ? s[k].end : s[m - 1].end;
		else
			s[m++] = s[k];
	return (ssize_t)m;
}

/* The window (the chosen requests' lives), and every request's. */
static int make_spans(struct cli_slow *w)
{
	ssize_t n = merge_lives(w, w->chosen, w->n_chosen, &w->spans);

	if (n < 0)
		return -ENOMEM;
	w->n_spans = (size_t)n;
	if ((n = merge_lives(w, NULL, w->req.n, &w->lives)) < 0)
		return -ENOMEM;
	w->n_lives = (size_t)n;
	for (size_t k = 0; k < w->n_spans; k++)
		w->window_ns += w->spans[k].end - w->spans[k].begin;
	return 0;
}

/* The requests ask names, into w->chosen; the window they make. */
static int choose(struct cli_slow *w, const struct cli_slow_ask *ask)
{
	uint64_t median[2] = { run_median(w, CLI_REQ_TTFT), run_median(w, CLI_REQ_PER_TOKEN) };

	if (!(w->chosen = calloc(w->req.n + 1, sizeof *w->chosen)))
		return -ENOMEM;
	for (size_t i = 0; i < w->req.n; i++)
		if (ask->slow ? slow(w, i, median) : w->req.r[i].id == ask->id)
			w->chosen[w->n_chosen++] = i;
	if (make_spans(w) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < w->req.n; i++)
		w->n_normal += cli_slow_normal(w, i);
	return 0;
}

/* ---- the USAGE records: the intervals of known CPU time ---- */

static int add_mark(struct cli_slow *w, const struct ggmlviz_event *ev)
{
	struct cli_usage_mark m = { ev->timestamp_ns, ev->data.meta.value, ev->data.meta.key, 0, 0 };
	const struct cli_usage_mark *last = w->n_marks ? &w->marks[w->n_marks - 1] : NULL;

	if (last && (ev->thread_id != w->usage_tid || m.ts < last->ts || m.cpu_ns < last->cpu_ns ||
		     m.invol < last->invol))
		w->usage_mixed = true; /* another session's, or process's: differences say nothing */
	if (w->usage_mixed)
		return 0;
	w->usage_tid = ev->thread_id;
	if (!w->marks && !(w->marks = malloc(CLI_USAGE_MARKS * sizeof *w->marks)))
		return -ENOMEM;
	if (w->n_marks == CLI_USAGE_MARKS) { /* every other one let go: longer intervals, sums exact */
		for (size_t i = 0; i < CLI_USAGE_MARKS / 2; i++)
			w->marks[i] = w->marks[2 * i];
		w->n_marks = CLI_USAGE_MARKS / 2;
	}
	w->marks[w->n_marks++] = m;
	return 0;
}

/*
 * The first pass of records: the USAGE records, and the trace's first and
 * last times; 0, -ENOMEM, or CLI_EXIT_DAMAGED after a message (path
 * cannot be read now).
 */
static int read_marks(const char *cmd, const char *path, struct cli_slow *w)
{
	struct cli_input in;
	struct ggmlviz_event ev;
	int rc = 0;

	if (cli_input_open(&in, cmd, path) < 0)
		return CLI_EXIT_DAMAGED;
	while (rc == 0 && cli_input_next(&in, &ev) == 1) {
		if (ev.type != GGMLVIZ_EVENT_META && ev.timestamp_ns) {
			if (!w->first_ns || ev.timestamp_ns < w->first_ns)
				w->first_ns = ev.timestamp_ns;
			if (ev.timestamp_ns > w->last_ns)
				w->last_ns = ev.timestamp_ns;
		}
		if (ev.type == GGMLVIZ_EVENT_META && ev.data.meta.kind == GGMLVIZ_META_USAGE)
			rc = add_mark(w, &ev);
	}
	cli_input_close(&in);
	return rc;
}

/* The steps' time [b, e) times threads, into the USAGE intervals it overlaps. */
static void spread_need(struct cli_slow *w, uint64_t b, uint64_t e, uint32_t threads)
{
	size_t lo = 0, hi = w->n_marks;

	if (w->n_marks < 2 || w->usage_mixed || e <= b)
		return;
	while (hi - lo > 1) { /* the last mark at or before b */
		size_t mid = (lo + hi) / 2;
		if (w->marks[mid].ts <= b)
			lo = mid;
		else
			hi = mid;
	}
	for (size_t i = lo; i + 1 < w->n_marks && w->marks[i].ts < e; i++) {
		uint64_t from = b > w->marks[i].ts ? b : w->marks[i].ts;
		uint64_t to = e < w->marks[i + 1].ts ? e : w->marks[i + 1].ts;
		if (to > from)
			w->marks[i].busy_ns += to - from, w->marks[i].need_ns += (to - from) * threads;
	}
}

/*
 * Each USAGE interval on its side (the window's if it overlaps the
 * window): its CPU time against the wall time where requests were in
 * flight all through (the server had work: its CPU time a second is what
 * the system gave it), and against the steps' time where they ran most
 * of the interval (in the others the process's CPU time is mostly what
 * it does between steps, its HTTP threads' and the tracer's writer's,
 * which would be taken for the steps').
 */
static void settle_usage(struct cli_slow *w)
{
	for (size_t i = 0; !w->usage_mixed && i + 1 < w->n_marks; i++) {
		const struct cli_usage_mark *a = &w->marks[i], *b = &w->marks[i + 1];
		struct cli_slow_side *s = &w->side[overlaps(w, a->ts, b->ts + 1) ? CLI_SLOW_IN : CLI_SLOW_OUT];

		if (b->ts > a->ts && 10 * in_flight(w, a->ts, b->ts) >= 9 * (b->ts - a->ts))
			s->flight_ns += b->ts - a->ts, s->flight_cpu_ns += b->cpu_ns - a->cpu_ns;
		if (!a->need_ns)
			continue; /* no step: loading, idle */
		if (2 * a->busy_ns < b->ts - a->ts) {
			s->idle_intervals++;
			continue;
		}
		s->cpu_ns += b->cpu_ns - a->cpu_ns, s->invol += b->invol - a->invol;
		s->need_ns += a->need_ns, s->usage_ns += b->ts - a->ts;
		s->intervals++;
	}
}

/* ---- every record and timing, on its side ---- */

struct pass {
	struct cli_slow *w;
	struct cli *cli;
	const struct ggmlviz_reader *r; /* for the backends' names */
};

static struct cli_slow_side *side_at(struct cli_slow *w, uint64_t b, uint64_t e)
{
	return &w->side[cli_slow_holds(w, b + (e - b) / 2) ? CLI_SLOW_IN : CLI_SLOW_OUT];
}

static void on_event(const struct ggmlviz_event *ev, void *arg)
{
	struct pass *x = arg;
	struct cli_slow *w = x->w;
	struct cli_slow_side *s = side_at(w, ev->timestamp_ns, ev->timestamp_ns);
	uint64_t v, v2;

	s->records++, s->bytes += ev->size;
	if (ev->type != GGMLVIZ_EVENT_META)
		return;
	v = ev->data.meta.value, v2 = ev->data.meta.value2;
	if (ev->data.meta.kind == GGMLVIZ_META_DROPPED)
		s->dropped += v;
	if (ev->data.meta.kind != GGMLVIZ_META_THREADS)
		return;
	w->has_threads = true;
	w->n_threads = (uint32_t)v, w->n_threads_batch = (uint32_t)(v >> 32);
	w->cpus = (uint32_t)v2 ? (uint32_t)v2 : (uint32_t)(v2 >> 32);
	w->threads_most = w->n_threads > w->threads_most ? w->n_threads : w->threads_most;
	w->threads_most = w->n_threads_batch > w->threads_most ? w->n_threads_batch : w->threads_most;
}

static void on_step(struct cli_slow *w, const struct ggmlviz_timing *t)
{
	struct cli_slow_side *s = side_at(w, t->begin_ns, t->end_ns);

	if (cli_step_is_housekeeping(t))
		return; /* a tool's warm-up: no request's */
	spread_need(w, t->begin_ns, t->end_ns, t->n_tokens > 1 ? w->n_threads_batch : w->n_threads);
	s->steps++, s->step_ns += t->duration_ns;
	cli_sample_add(&s->tokens, t->n_tokens);
	cli_sample_add(&s->step_time, (double)t->duration_ns);
	if (t->n_seqs)
		cli_sample_add(&s->seqs, t->n_seqs);
	if (t->phase != GGMLVIZ_PHASE_GENERATION)
		return;
	s->gen_steps++;
	cli_sample_add(&s->gen_time, (double)t->duration_ns);
	if (t->n_seqs)
		w->context_said = true, cli_sample_add(&s->context, t->context_tokens);
}

static void on_op(struct pass *x, const struct ggmlviz_timing *t)
{
	struct cli_slow_side *s = side_at(x->w, t->begin_ns, t->end_ns);
	char buf[24];
	bool cpu = t->method != GGMLVIZ_OP_METHOD_GPU &&
		   !strcmp(cli_backend_name(&x->cli->names, x->r, t->backend_ptr, buf), "CPU");

	s->op_ns += t->duration_ns;
	s->cpu_op_ns += cpu ? t->duration_ns : 0;
	x->w->gpu |= !cpu;
}

static int on_timing(const struct ggmlviz_timing *t, void *arg)
{
	struct pass *x = arg;

	if (t->kind == GGMLVIZ_TIMING_STEP)
		on_step(x->w, t);
	else if (t->kind == GGMLVIZ_TIMING_OP)
		on_op(x, t);
	else if (t->kind == GGMLVIZ_TIMING_KERNEL)
		x->w->gpu = true;
	return 0;
}

static void on_open(const struct ggmlviz_reader *r, void *arg)
{
	((struct pass *)arg)->r = r;
}

/* The last pass: every record and timing. The command's exit status, or -1. */
static int read_sides(const char *cmd, const char *path, struct cli *cli, struct cli_slow *w)
{
	static const struct cli_each each = { on_event, on_timing, on_open };
	struct pass x = { w, cli, NULL };
	int status = cli_each_timing(cmd, path, &each, &x, NULL);

	settle_usage(w);
	return status;
}

int cli_slow_read(const char *cmd, const char *path, struct cli *cli,
		    const struct cli_slow_ask *ask, struct cli_slow *w)
{
	int status, rc;

	memset(w, 0, sizeof *w);
	status = cli_requests_collect(cmd, path, &w->req);
	if (status < 0)
		return -1;
	rc = read_marks(cmd, path, w);
	if (rc == 0)
		rc = choose(w, ask);
	if (rc < 0)
		cli_error("%s: %s", path, ggmlviz_strerror(rc));
	if (rc)
		return CLI_EXIT_DAMAGED;
	if (!w->n_chosen)
		return status;
	rc = read_sides(cmd, path, cli, w);
	return rc ? rc : status;
}

void cli_slow_free(struct cli_slow *w)
{
	cli_requests_free(&w->req);
	free(w->chosen);
	free(w->spans);
	free(w->lives);
	free(w->marks);
	memset(w, 0, sizeof *w);
}
