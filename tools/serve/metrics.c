/*
 * The figures serve exports (serve.h), from the traces followed: each
 * record and timing read goes to the process whose PROCESS record came
 * last (a merged trace holds one process after another; a live trace, one
 * process). A process's requests go to histograms of stats --by request's
 * figures, its steps and tokens to counters by phase as stats --by phase
 * counts them, its ops to counters by op type and to a window of its last
 * seconds (stats/recent.c, as top shows them), its memory to its devices.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"

/* ---- the buckets ---- */

void srv_bounds_default(struct srv_bounds *b)
{
	static const double le[] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
				     1, 2.5, 5, 10, 25, 60, 120 };

	b->n = sizeof le / sizeof le[0];
	memcpy(b->le, le, sizeof le);
}

int srv_bounds_parse(struct srv_bounds *b, const char *list, char *err, size_t size)
{
	const char *s = list;

	b->n = 0;
	while (*s) {
		char *end;
		double v = strtod(s, &end);

		if (end == s || !(v > 0) || v > 1e9 || (*end && *end != ',')) {
			snprintf(err, size, "'%s': each bound a number of seconds above 0, separated by commas",
				 list);
			return -1;
		}
		if (b->n == SRV_BUCKETS_MAX || (b->n && v <= b->le[b->n - 1])) {
			snprintf(err, size, "'%s': %s", list, b->n == SRV_BUCKETS_MAX
				 ? "more bounds than the 32 a histogram holds" : "the bounds must increase");
			return -1;
		}
		b->le[b->n++] = v;
		s = *end ? end + 1 : end;
	}
	if (!b->n) {
		snprintf(err, size, "'%s': no bound", list);
		return -1;
	}
	return 0;
}

static void observe(struct srv_hist *h, const struct srv_bounds *b, uint64_t ns)
{
	size_t i = 0;

	while (i < b->n && (double)ns > b->le[i] * 1e9)
		i++;
	h->in[i]++;
	h->count++;
	h->sum_ns += ns;
}

/* ---- processes ---- */

static void proc_free(struct srv_proc *p)
{
	if (!p)
		return;
	cli_recent_free(p->w);
	free(p->w);
	cli_mem_devices_free(&p->mem);
	free(p);
}

/* The process pid of t, made on first sight; NULL past SRV_PROCS or without memory. */
static struct srv_proc *proc_of(struct srv_trace *t, uint64_t pid)
{
	struct srv_proc *p;

	if (t->cur && t->cur->pid == pid)
		return t->cur;
	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i]->pid == pid)
			return t->cur = t->procs[i];
	if (t->n_procs == SRV_PROCS || !(p = calloc(1, sizeof *p)))
		return t->cur = NULL;
	if (!(p->w = calloc(1, sizeof *p->w))) {
		free(p);
		return t->cur = NULL;
	}
	p->pid = pid;
	p->w->reader = t->f.r; /* the ops' names, to place them in parts */
	t->procs[t->n_procs++] = p;
	return t->cur = p;
}

static void forget_procs(struct srv_trace *t)
{
	for (size_t i = 0; i < t->n_procs; i++)
		proc_free(t->procs[i]);
	t->n_procs = 0;
	t->cur = NULL;
	t->procs_over = 0;
	t->records = 0;
	t->records_state = CLI_FOLLOW_WRITING;
}

/* ---- timings ---- */

static void add_op(struct srv_proc *p, const struct ggmlviz_timing *t)
{
	size_t i;

	for (i = 0; i < p->n_ops && p->ops[i].op_type != t->op_type; i++)
		;
	if (i == CLI_WIN_KEYS) {
		p->ops_over++;
		return;
	}
	if (i == p->n_ops)
		p->ops[p->n_ops++] = (struct srv_op){ t->op_type, 0, 0 };
	p->ops[i].ns += t->duration_ns;
	p->ops[i].count += t->kind == GGMLVIZ_TIMING_OP_SUMMARY ? t->n_nodes : 1;
}

/* A request ended: its figures as stats --by request gives them. */
static void add_request(struct srv_proc *p, const struct srv_bounds *b, const struct ggmlviz_timing *t)
{
	struct cli_request q = { .id = t->ptr, .arrival_ns = t->begin_ns, .prompt_ns = t->value,
				 .first_token_ns = t->first_token_ns, .end_ns = t->end_ns,
				 .generated = t->n_nodes };
	uint64_t ns;

	for (int f = 0; f < CLI_REQ_FIGURES; f++)
		if (cli_request_figure(&q, (enum cli_request_figure)f, &ns) == 0)
			observe(&p->h[f], b, ns);
	p->requests[t->status >= 0 && t->status < 3 ? t->status : 2]++;
	p->request_tokens[0] += t->n_tokens;
	p->request_tokens[1] += t->context_tokens;
	p->request_tokens[2] += t->n_nodes;
}

static void on_timing(void *arg, const struct ggmlviz_timing *tm)
{
	struct srv_trace *t = arg;
	struct srv_proc *p = t->cur;

	if (!p)
		return;
	cli_recent_timing(p->w, tm);
	switch (tm->kind) {
	case GGMLVIZ_TIMING_OP:
	case GGMLVIZ_TIMING_OP_SUMMARY:
		add_op(p, tm);
		break;
	case GGMLVIZ_TIMING_STEP:
		p->steps[tm->phase < CLI_PHASES ? tm->phase : 0]++;
		break;
	case GGMLVIZ_TIMING_REQUEST:
		add_request(p, t->bounds, tm);
		break;
	default:
		break;
	}
}

/* ---- records ---- */

static int on_event(struct srv_trace *t, const struct ggmlviz_event *ev)
{
	struct srv_proc *p = proc_of(t, t->f.pid);

	t->records++;
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_TRACE_END)
		t->records_state = CLI_FOLLOW_ENDED;
	else if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_CRASH)
		t->records_state = CLI_FOLLOW_CRASHED;
	if (!p) {
		t->procs_over++;
		return 0;
	}
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_PROCESS)
		snprintf(p->name, sizeof p->name, "%.*s", /* cut before a character, never inside */
			 (int)(ev->label ? cli_utf8_cut(ev->label, ev->label_len, sizeof p->name - 1) : 0),
			 ev->label ? ev->label : "");
	cli_mem_devices_event(&p->mem, ev);
	if (ev->type == GGMLVIZ_EVENT_TENSOR_ALLOC || ev->type == GGMLVIZ_EVENT_TENSOR_FREE)
		return p->mem.error; /* the window's own count of live memory is not served */
	return cli_recent_event(p->w, ev);
}

/* ---- a trace ---- */

/* Every process's memory as far as read: the buffer recorded last counted on its device. */
static void settle(struct srv_trace *t)
{
	for (size_t i = 0; i < t->n_procs; i++)
		cli_mem_devices_end(&t->procs[i]->mem);
}

/* Whether path is a file shorter than a header: one a tracer has just made. */
static bool just_made(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size < GGMLVIZ_HEADER_SIZE;
}

int srv_trace_open(struct srv_trace *t, const char *path, const struct srv_bounds *b,
		   struct cli_names *names)
{
	int rc;

	memset(t, 0, sizeof *t);
	t->path = path, t->bounds = b, t->names = names;
	t->records_state = CLI_FOLLOW_WRITING;
	if (just_made(path)) {
		t->f.path = path;
		t->f.grew_ns = cli_mono_ns();
		return 0;
	}
	rc = cli_follow_open_file(&t->f, path);
	t->open = rc == 0;
	return rc;
}

/* Opens a trace that was waited for, once it holds its header; 1 when it is open. */
static int wait_open(struct srv_trace *t)
{
	int rc = just_made(t->path) ? 0 : cli_follow_open_file(&t->f, t->path);

	if (rc < 0 || just_made(t->path)) {
		snprintf(t->f.note, sizeof t->f.note, rc < 0 ? "cannot read it: %s" : "%s",
			 rc < 0 ? cli_follow_strerror(rc) : "no record written yet");
		t->f.path = t->path;
		return 0;
	}
	t->f.note[0] = '\0';
	return t->open = true;
}

int srv_trace_advance(struct srv_trace *t, uint64_t deadline_ns)
{
	struct ggmlviz_event ev;
	int rc;

	if (!t->open && !wait_open(t))
		return 0;
	rc = cli_follow_refresh(&t->f);
	if (rc != 0)
		forget_procs(t); /* read again from its start, or not readable now */
	if (rc < 0)
		return 0;
	for (uint32_t n = 1; cli_follow_next(&t->f, &ev) == 1; n++) {
		if (on_event(t, &ev) < 0)
			return -ENOMEM;
		cli_follow_feed(&t->f, &ev, on_timing, t);
		if (n % 4096 == 0 && cli_mono_ns() > deadline_ns) {
			settle(t);
			return 1;
		}
	}
	settle(t);
	return 0;
}

int srv_trace_state(const struct srv_trace *t)
{
	if (!t->open)
		return CLI_FOLLOW_WRITING;
	return cli_follow_state(&t->f, t->records_state);
}

void srv_trace_close(struct srv_trace *t)
{
	forget_procs(t);
	cli_follow_close(&t->f);
}
