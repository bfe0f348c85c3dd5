/*
 * The figures of serve (serve.h) in Prometheus' text exposition format,
 * version 0.0.4: a family's # HELP and # TYPE lines once, then its samples
 * for every process of every trace, told apart by their labels (trace,
 * pid, process). Names follow Prometheus' conventions: a ggmlviz_ prefix,
 * base units (seconds, bytes), _total on counters, _ratio on a share.
 *
 * A label's value is whatever bytes the traced program or the command
 * line gave, and the format wants UTF-8: each invalid sequence is written
 * U+FFFD, as the JSON output does. Names that read the same once written
 * (two op types of one name, names that differ only in bytes replaced)
 * are one series, their figures summed: a series is never written twice.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"

static const char *const statuses[3] = { "done", "cancelled", "failed" };
static const char *const token_kinds[3] = { "prompt", "cached", "generated" };
/* memory/devices.c's parts of a device's memory (CLI_MEM_*), as label values */
static const char *const mem_kinds[CLI_MEM_ROLES] = { "weights", "kv_cache", "compute", "other" };

/* The histograms, by stats --by request's figures (CLI_REQ_*). */
static const struct {
	const char *name, *help;
} hists[CLI_REQ_FIGURES] = {
	{ "ggmlviz_request_queue_time_seconds",
	  "Time a request waited in the server's queue: from its arrival to the start of its prompt on a slot." },
	{ "ggmlviz_request_prompt_time_seconds",
	  "Time of a request's prompt: from its start on a slot to its first token." },
	{ "ggmlviz_request_time_to_first_token_seconds",
	  "Time from a request's arrival to its first token (its queue and its prompt)." },
	{ "ggmlviz_request_time_per_output_token_seconds",
	  "A request's time per generated token after the first: from its first token to its end, over its generated tokens less one." },
	{ "ggmlviz_request_duration_seconds", "Time from a request's arrival to its end." },
};

/*
 * s as a label's value holds it: valid UTF-8, each invalid sequence U+FFFD
 * (output/utf8.c), into o; escaped (backslash, double quote, newline)
 * where escape is set.
 */
static void label_text(struct cli_out *o, const char *s, bool escape)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);

	while (p < end) {
		bool valid;
		size_t n = cli_utf8_char(p, (size_t)(end - p), &valid);

		if (!valid)
			cli_out_write(o, "\xef\xbf\xbd", 3);
		else if (escape && (*p == '\\' || *p == '"'))
			cli_out_char(o, '\\'), cli_out_char(o, (char)*p);
		else if (escape && *p == '\n')
			cli_out_str(o, "\\n");
		else
			cli_out_write(o, p, n);
		p += n;
	}
}

static void label_value(struct cli_out *o, const char *s)
{
	cli_out_char(o, '"');
	label_text(o, s, true);
	cli_out_char(o, '"');
}

bool srv_same_label(const char *a, const char *b)
{
	struct cli_out x, y;
	bool same;

	cli_out_memory(&x), cli_out_memory(&y);
	label_text(&x, a, false), label_text(&y, b, false);
	same = x.len == y.len && (!x.len || !memcmp(x.buf, y.buf, x.len));
	free(x.buf), free(y.buf);
	return same;
}

/* ---- names that read the same as label values: one series ---- */

#define LABEL_KEY_MAX (3 * CLI_OP_NAME_MAX) /* a name of CLI_OP_NAME_MAX bytes, each one U+FFFD */

/* A name as its label's value reads (unescaped), to tell names that make one series. */
struct label_key {
	char s[LABEL_KEY_MAX + 1];
};

static void key_of(const char *name, struct label_key *k)
{
	struct cli_out o;

	cli_out_memory(&o);
	label_text(&o, name, false);
	snprintf(k->s, sizeof k->s, "%.*s", (int)cli_utf8_cut(o.buf ? o.buf : "", o.len, LABEL_KEY_MAX),
		 o.buf ? o.buf : "");
	free(o.buf);
}

/* A figure by name, names merged as their labels read. */
struct by_label {
	struct label_key key;
	uint64_t ns;
};

/* Adds ns under name to v's n entries (at most CLI_WIN_KEYS: op types, parts). */
static void add_by_label(struct by_label *v, size_t *n, const char *name, uint64_t ns)
{
	struct label_key k;
	size_t i;

	key_of(name, &k);
	for (i = 0; i < *n && strcmp(v[i].key.s, k.s); i++)
		;
	if (i == *n) {
		if (*n == CLI_WIN_KEYS)
			return; /* never: one entry an op type at most */
		v[(*n)++] = (struct by_label){ k, 0 };
	}
	v[i].ns += ns;
}

static void family(struct cli_out *o, const char *name, const char *type, const char *help)
{
	cli_out_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{trace="...",pid="...",process="..."[,k1="v1"[,k2="v2"]]} (a key NULL: none). */
static void series2(struct cli_out *o, const char *name, const struct srv_trace *t,
		    const struct srv_proc *p, const char *k1, const char *v1, const char *k2,
		    const char *v2)
{
	char pid[24];

	cli_out_printf(o, "%s{trace=", name);
	label_value(o, t->path);
	if (p) {
		snprintf(pid, sizeof pid, "%" PRIu64, p->pid);
		cli_out_str(o, ",pid=");
		label_value(o, pid);
		cli_out_str(o, ",process=");
		label_value(o, p->name);
	}
	if (k1) {
		cli_out_printf(o, ",%s=", k1);
		label_value(o, v1);
	}
	if (k2) {
		cli_out_printf(o, ",%s=", k2);
		label_value(o, v2);
	}
	cli_out_str(o, "} ");
}

static void series(struct cli_out *o, const char *name, const struct srv_trace *t,
		   const struct srv_proc *p, const char *key, const char *value)
{
	series2(o, name, t, p, key, value, NULL, NULL);
}

static void u64_line(struct cli_out *o, uint64_t v)
{
	cli_out_printf(o, "%" PRIu64 "\n", v);
}

static void seconds_line(struct cli_out *o, uint64_t ns)
{
	cli_out_printf(o, "%" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000u, ns % 1000000000u);
}

/* Each process of each trace, in turn. */
#define EACH_PROC(traces, n, t, p)                                           \
	for (size_t ti_ = 0; ti_ < (n); ti_++)                               \
		for (size_t pi_ = 0; pi_ < (traces)[ti_]->n_procs; pi_++)    \
			for (const struct srv_trace *t = (traces)[ti_]; t; t = NULL) \
				for (const struct srv_proc *p = t->procs[pi_]; p; p = NULL)

static void histogram(struct cli_out *o, struct srv_trace *const *traces, size_t n, int f)
{
	char name[96], le[32];

	family(o, hists[f].name, "histogram", hists[f].help);
	EACH_PROC(traces, n, t, p) {
		const struct srv_hist *h = &p->h[f];
		uint64_t below = 0;

		snprintf(name, sizeof name, "%s_bucket", hists[f].name);
		for (size_t i = 0; i <= t->bounds->n; i++) {
			below += h->in[i];
			if (i < t->bounds->n)
				snprintf(le, sizeof le, "%.10g", t->bounds->le[i]);
			series(o, name, t, p, "le", i < t->bounds->n ? le : "+Inf");
			u64_line(o, below);
		}
		snprintf(name, sizeof name, "%s_sum", hists[f].name);
		series(o, name, t, p, NULL, NULL);
		seconds_line(o, h->sum_ns);
		snprintf(name, sizeof name, "%s_count", hists[f].name);
		series(o, name, t, p, NULL, NULL);
		u64_line(o, h->count);
	}
}

static void requests(struct cli_out *o, struct srv_trace *const *traces, size_t n)
{
	family(o, "ggmlviz_requests_total", "counter", "Requests ended, by how: done (answered), "
	       "cancelled (the client went away), failed (an error answered it).");
	EACH_PROC(traces, n, t, p)
		for (int s = 0; s < 3; s++)
			series(o, "ggmlviz_requests_total", t, p, "status", statuses[s]),
				u64_line(o, p->requests[s]);
	family(o, "ggmlviz_requests_in_flight", "gauge", "Requests arrived and not ended yet.");
	EACH_PROC(traces, n, t, p) {
		uint64_t ended = p->w->ended[0] + p->w->ended[1] + p->w->ended[2];

		series(o, "ggmlviz_requests_in_flight", t, p, NULL, NULL);
		u64_line(o, p->w->begun > ended ? p->w->begun - ended : 0);
	}
	family(o, "ggmlviz_request_tokens_total", "counter", "Tokens of the requests ended: their "
	       "prompts' (kind prompt), of those the ones the server found in its cache (cached), "
	       "and the ones generated.");
	EACH_PROC(traces, n, t, p)
		for (int k = 0; k < 3; k++)
			series(o, "ggmlviz_request_tokens_total", t, p, "kind", token_kinds[k]),
				u64_line(o, p->request_tokens[k]);
}

static void steps(struct cli_out *o, struct srv_trace *const *traces, size_t n)
{
	family(o, "ggmlviz_steps_total", "counter", "Steps (decode calls) ended, by phase.");
	EACH_PROC(traces, n, t, p)
		for (uint32_t k = 0; k < CLI_PHASES; k++)
			series(o, "ggmlviz_steps_total", t, p, "phase", cli_phase_name(k)), u64_line(o, p->steps[k]);
	family(o, "ggmlviz_tokens_total", "counter", "Tokens of the steps ended, by phase, as "
	       "ggmlviz stats --by phase counts them.");
	EACH_PROC(traces, n, t, p)
		for (uint32_t k = 0; k < CLI_PHASES; k++)
			series(o, "ggmlviz_tokens_total", t, p, "phase", cli_phase_name(k)),
				u64_line(o, p->w->tokens[k]);
	family(o, "ggmlviz_step_seconds_total", "counter", "Time of the steps ended, by phase: "
	       "ggmlviz_tokens_total over it is ggmlviz stats --by phase's TOKENS/S.");
	EACH_PROC(traces, n, t, p)
		for (uint32_t k = 0; k < CLI_PHASES; k++)
			series(o, "ggmlviz_step_seconds_total", t, p, "phase", cli_phase_name(k)),
				seconds_line(o, p->w->step_ns[k]);
}

/* The name of an op type of t, in buf. */
static const char *op_name(const struct srv_trace *t, uint32_t op_type, char buf[CLI_OP_NAME_MAX])
{
	return cli_op_name(t->names, t->f.r, op_type, buf);
}

/* Each group's share of the op time of the last window: kind 0 op types, 2 model parts. */
static void window_shares(struct cli_out *o, struct srv_trace *const *traces, size_t n,
			  const char *metric, const char *label, int kind)
{
	char name[CLI_OP_NAME_MAX];

	EACH_PROC(traces, n, t, p) {
		struct cli_win_group g[CLI_WIN_KEYS];
		struct by_label v[CLI_WIN_KEYS];
		size_t k, nv = 0;
		uint64_t total;

		cli_recent_groups(p->w, kind, g, &k, &total);
		for (size_t i = 0; i < k; i++)
			add_by_label(v, &nv, cli_recent_group_name(t->names, t->f.r, kind, g[i].key, name),
				     g[i].sum.ns);
		for (size_t i = 0; i < nv; i++) {
			series(o, metric, t, p, label, v[i].key.s);
			cli_out_printf(o, "%.6g\n", total ? (double)v[i].ns / (double)total : 0);
		}
	}
}

static void ops(struct cli_out *o, struct srv_trace *const *traces, size_t n)
{
	char name[CLI_OP_NAME_MAX];

	family(o, "ggmlviz_op_seconds_total", "counter", "Time of the ops ended, by op type (a CPU "
	       "op as ticked: with the wait at GGML's barrier of the op before it).");
	EACH_PROC(traces, n, t, p) {
		struct by_label v[CLI_WIN_KEYS];
		size_t nv = 0;

		for (size_t i = 0; i < p->n_ops; i++)
			add_by_label(v, &nv, op_name(t, p->ops[i].op_type, name), p->ops[i].ns);
		for (size_t i = 0; i < nv; i++)
			series(o, "ggmlviz_op_seconds_total", t, p, "op", v[i].key.s),
				seconds_line(o, v[i].ns);
	}
	family(o, "ggmlviz_op_time_ratio", "gauge", "Share of the op time of the last window "
	       "(ggmlviz_op_window_seconds of the trace's time) taken by ops of this type, 0 to 1.");
	window_shares(o, traces, n, "ggmlviz_op_time_ratio", "op", 0);
	family(o, "ggmlviz_part_time_ratio", "gauge", "Share of the op time of the last window taken "
	       "by each part of the model, as ggmlviz stats --by part groups the ops, 0 to 1.");
	window_shares(o, traces, n, "ggmlviz_part_time_ratio", "part", 2);
	family(o, "ggmlviz_op_window_seconds", "gauge", "The trace's time the last window covers, "
	       "up to 10 s.");
	EACH_PROC(traces, n, t, p)
		series(o, "ggmlviz_op_window_seconds", t, p, NULL, NULL),
			cli_out_printf(o, "%.3f\n", cli_recent_span_s(p->w));
}

/* A process's devices, those whose names read the same as labels summed. */
struct device_sum {
	struct label_key key;
	uint64_t role_live[CLI_MEM_ROLES], peak, total;
};

static size_t devices_by_label(const struct srv_proc *p, struct device_sum d[CLI_MEM_DEVICES])
{
	size_t n = 0;

	for (size_t i = 0; i < p->mem.n; i++) {
		const struct cli_mem_device *m = &p->mem.d[i];
		struct label_key k;
		size_t j;

		key_of(m->name, &k);
		for (j = 0; j < n && strcmp(d[j].key.s, k.s); j++)
			;
		if (j == n)
			memset(&d[n++], 0, sizeof d[0]), d[j].key = k;
		for (int r = 0; r < CLI_MEM_ROLES; r++)
			d[j].role_live[r] += m->role_live[r];
		d[j].peak += m->peak, d[j].total += m->total;
	}
	return n;
}

/* Each device of each process, as d (its figures summed over the devices of its label). */
#define EACH_DEVICE(traces, n, t, p, d)                                                  \
	EACH_PROC(traces, n, t, p)                                                       \
		for (struct device_sum dv_[CLI_MEM_DEVICES], *d = dv_,                   \
				       *end_ = dv_ + devices_by_label(p, dv_); d < end_; d++)

static void memory(struct cli_out *o, struct srv_trace *const *traces, size_t n)
{
	family(o, "ggmlviz_tensor_memory_bytes", "gauge", "Tensor memory allocated and not freed, by "
	       "device (META DEVICE's, else the buffer's name: CPU, CUDA0) and what it holds "
	       "(weights, kv_cache, compute, other), where the trace records memory "
	       "(GGML_VIZ_MEMORY_TRACKING=1).");
	EACH_DEVICE(traces, n, t, p, d)
		for (int k = 0; k < CLI_MEM_ROLES; k++)
			series2(o, "ggmlviz_tensor_memory_bytes", t, p, "device", d->key.s, "kind",
				mem_kinds[k]), u64_line(o, d->role_live[k]);
	family(o, "ggmlviz_tensor_memory_peak_bytes", "gauge", "The most tensor memory a device held "
	       "at once since the trace began.");
	EACH_DEVICE(traces, n, t, p, d)
		series(o, "ggmlviz_tensor_memory_peak_bytes", t, p, "device", d->key.s), u64_line(o, d->peak);
	family(o, "ggmlviz_device_memory_bytes", "gauge", "A device's memory, where the trace says it "
	       "(META DEVICE).");
	EACH_DEVICE(traces, n, t, p, d)
		if (d->total)
			series(o, "ggmlviz_device_memory_bytes", t, p, "device", d->key.s),
				u64_line(o, d->total);
	family(o, "ggmlviz_dropped_events_total", "counter", "Events the tracer dropped (a thread's "
	       "ring was full), as the trace's DROPPED records say.");
	EACH_PROC(traces, n, t, p)
		series(o, "ggmlviz_dropped_events_total", t, p, NULL, NULL), u64_line(o, p->w->dropped);
}

static void trace_state(struct cli_out *o, struct srv_trace *const *traces, size_t n)
{
	family(o, "ggmlviz_trace_state", "gauge", "1 for the state the trace is in: writing, ended "
	       "(its TRACE_END read), crashed, idle (not grown for 3 s, no end), cut (read from a "
	       "pipe), damaged (not read further), gone (not readable now). An ended or cut trace "
	       "keeps its last values.");
	for (size_t i = 0; i < n; i++) {
		int state = srv_trace_state(traces[i]);

		for (int s = 0; s < CLI_FOLLOW_STATES; s++)
			series(o, "ggmlviz_trace_state", traces[i], NULL, "state", cli_follow_state_names[s]),
				u64_line(o, s == state);
	}
	family(o, "ggmlviz_trace_records_total", "counter", "Records read from the trace since it "
	       "was opened (again from its start, when it was replaced).");
	for (size_t i = 0; i < n; i++)
		series(o, "ggmlviz_trace_records_total", traces[i], NULL, NULL, NULL),
			u64_line(o, traces[i]->records);
}

void srv_expose(struct cli_out *o, struct srv_trace *const *traces, size_t n)
{
	for (int f = 0; f < CLI_REQ_FIGURES; f++)
		histogram(o, traces, n, f);
	requests(o, traces, n);
	steps(o, traces, n);
	ops(o, traces, n);
	memory(o, traces, n);
	trace_state(o, traces, n);
}
