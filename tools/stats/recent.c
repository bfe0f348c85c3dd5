/*
 * What a trace being followed did in its last seconds (stats.h, struct
 * cli_window), for ggmlviz top: tokens per second by phase, the ops and
 * layers by their time, GB/s and bound, a server's requests and their
 * latency, live tensor memory, dropped events and the trace's state.
 *
 * Records and timings come in file order, as a follower reads them; the
 * window is a ring of one-second buckets in the trace's own time, so that
 * its memory does not grow however long the trace runs: what fell out of
 * the window is forgotten, but for the totals since the start.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "stats/stats.h"

#define NS_PER_S 1000000000ull

/* The index of key in the window's keys of kind (op types, layers), added if new; -1 past the limit. */
static int key_index(struct cli_recent *w, int kind, uint64_t key)
{
	for (size_t i = 0; i < w->n_keys[kind]; i++)
		if (w->keys[kind][i] == key)
			return (int)i;
	if (w->n_keys[kind] == CLI_WIN_KEYS) {
		w->keys_over++;
		return -1;
	}
	w->keys[kind][w->n_keys[kind]] = key;
	return (int)w->n_keys[kind]++;
}

/* The bucket of the second at ns, emptied if it held an older second; NULL if ns is older than the window. */
static struct cli_win_bucket *bucket_at(struct cli_recent *w, uint64_t ns)
{
	uint64_t sec = ns / NS_PER_S + 1; /* 0 marks an empty bucket */
	struct cli_win_bucket *b = &w->b[sec % CLI_WIN_SECONDS];

	if (ns > w->now_ns)
		w->now_ns = ns;
	if (sec + CLI_WIN_SECONDS <= w->now_ns / NS_PER_S + 1)
		return NULL; /* already out of the window */
	if (b->second != sec) {
		memset(b, 0, sizeof *b);
		b->second = sec;
	}
	return b;
}

/* The part of op t (stats --by part), by the names its reader knows now. */
static int part_of(struct cli_recent *w, const struct ggmlviz_timing *t)
{
	char buf[CLI_OP_NAME_MAX];
	const char *op = w->reader ? ggmlviz_reader_op_name(w->reader, t->op_type) : NULL;

	if (!op && w->reader && ggmlviz_reader_write_op_name(w->reader, t->op_type, buf,
							      sizeof buf) > 0)
		op = buf;
	return cli_part_place(&w->part_seen, t, cli_part_class(t->label, t->label_len),
			      op ? op : "");
}

/* An op (or, summary, a step's ops of one type summed): its time, bytes and work by op, layer and part. */
static void add_op(struct cli_recent *w, const struct ggmlviz_timing *t, bool summary)
{
	struct cli_win_bucket *b = bucket_at(w, t->end_ns);
	int keys[3] = { key_index(w, 0, (uint64_t)t->op_type + 1),
			summary ? -1 : key_index(w, 1, cli_layer_key(t) + 1),
			summary ? -1 : key_index(w, 2, (uint64_t)part_of(w, t) + 1) };
	uint64_t count = summary ? t->n_nodes : 1;

	if (!b)
		return;
	for (int k = 0; k < 3; k++) {
		if (keys[k] < 0)
			continue;
		b->g[k][keys[k]].ns += t->duration_ns;
		b->g[k][keys[k]].count += count;
		if (!summary && (t->bytes_read || t->bytes_written))
			b->g[k][keys[k]].bytes += t->bytes_read + t->bytes_written,
				b->g[k][keys[k]].bytes_ns += t->duration_ns;
		if (!summary && t->flops)
			b->g[k][keys[k]].flops += t->flops, b->g[k][keys[k]].flops_ns += t->duration_ns;
	}
}

static void add_step(struct cli_recent *w, const struct ggmlviz_timing *t)
{
	struct cli_win_bucket *b = bucket_at(w, t->end_ns);
	uint32_t phase = t->phase < CLI_PHASES ? t->phase : 0;

	w->steps++;
	w->tokens[phase] += t->n_tokens;
	w->step_ns[phase] += t->duration_ns;
	if (b)
		b->tokens[phase] += t->n_tokens, b->step_ns[phase] += t->duration_ns;
}

static void add_request(struct cli_recent *w, const struct ggmlviz_timing *t)
{
	struct cli_request q = { .id = t->ptr, .arrival_ns = t->begin_ns, .prompt_ns = t->value,
				 .first_token_ns = t->first_token_ns, .end_ns = t->end_ns,
				 .generated = t->n_nodes };
	size_t at = w->n_recent % CLI_WIN_REQUESTS;

	w->ended[t->status >= 0 && t->status < 3 ? t->status : 2]++;
	bucket_at(w, t->end_ns);
	for (int f = 0; f < CLI_REQ_FIGURES; f++)
		if (cli_request_figure(&q, (enum cli_request_figure)f, &w->recent[f][at]) < 0)
			w->recent[f][at] = UINT64_MAX; /* the request did not reach that stage */
	w->n_recent++;
}

void cli_recent_timing(struct cli_recent *w, const struct ggmlviz_timing *t)
{
	switch (t->kind) {
	case GGMLVIZ_TIMING_OP: add_op(w, t, false); break;
	case GGMLVIZ_TIMING_OP_SUMMARY: add_op(w, t, true); break;
	case GGMLVIZ_TIMING_STEP: add_step(w, t); break;
	case GGMLVIZ_TIMING_REQUEST: add_request(w, t); break;
	default: break;
	}
}

static void on_meta(struct cli_recent *w, const struct ggmlviz_event *ev)
{
	uint64_t key = ev->data.meta.key, value = ev->data.meta.value, value2 = ev->data.meta.value2;

	switch (ev->data.meta.kind) {
	case GGMLVIZ_META_PROCESS: w->pid = key; break;
	case GGMLVIZ_META_DROPPED: w->dropped += value; break;
	case GGMLVIZ_META_TRACE_END: w->state = CLI_WIN_ENDED; break;
	case GGMLVIZ_META_CRASH: w->state = CLI_WIN_CRASHED, w->crash_signal = key; break;
	case GGMLVIZ_META_PEAK:
		if (value && value2)
			w->peak = (struct cli_peak){ true, (uint32_t)key, (double)value, (double)value2, "" };
		break;
	default: break;
	}
}

int cli_recent_event(struct cli_recent *w, const struct ggmlviz_event *ev)
{
	if (ev->type != GGMLVIZ_EVENT_META && ev->timestamp_ns > w->now_ns)
		w->now_ns = ev->timestamp_ns;
	if (ev->type != GGMLVIZ_EVENT_META && ev->timestamp_ns && !w->first_ns)
		w->first_ns = ev->timestamp_ns;
	if (ev->type == GGMLVIZ_EVENT_META)
		on_meta(w, ev);
	else if (ev->type == GGMLVIZ_EVENT_REQUEST_BEGIN)
		w->begun++;
	if (ev->type != GGMLVIZ_EVENT_TENSOR_ALLOC && ev->type != GGMLVIZ_EVENT_TENSOR_FREE)
		return 0;
	if (cli_live_event(&w->live, w->pid, ev) < 0)
		return -1;
	w->live_bytes = cli_live_bytes(&w->live, w->pid);
	w->peak_bytes = w->live_bytes > w->peak_bytes ? w->live_bytes : w->peak_bytes;
	return 0;
}

/* ---- what the window holds ---- */

/*
 * The buckets in the window are those of the last CLI_WIN_SECONDS seconds
 * counting the one now_ns is in, whose part after now_ns is yet to come:
 * they cover from the start of the oldest to now_ns.
 */
double cli_recent_span_s(const struct cli_recent *w)
{
	uint64_t sec = w->now_ns / NS_PER_S, from;

	from = sec >= CLI_WIN_SECONDS - 1 ? (sec - (CLI_WIN_SECONDS - 1)) * NS_PER_S : 0;
	from = w->first_ns > from ? w->first_ns : from;
	return w->first_ns && w->now_ns > from ? (double)(w->now_ns - from) / 1e9 : 0;
}

/* Whether bucket b is in the window that ends at now. */
static bool in_window(const struct cli_recent *w, const struct cli_win_bucket *b)
{
	uint64_t now_sec = w->now_ns / NS_PER_S + 1;

	return b->second && b->second + CLI_WIN_SECONDS > now_sec;
}

uint64_t cli_recent_tokens(const struct cli_recent *w, uint32_t phase, uint64_t *step_ns)
{
	uint64_t n = 0;

	*step_ns = 0;
	for (int i = 0; i < CLI_WIN_SECONDS; i++) {
		if (!in_window(w, &w->b[i]))
			continue;
		n += w->b[i].tokens[phase];
		*step_ns += w->b[i].step_ns[phase];
	}
	return n;
}

void cli_recent_rates(const struct cli_recent *w, uint32_t phase, double *recent, double *all)
{
	uint64_t ns, n = cli_recent_tokens(w, phase, &ns);

	*recent = ns ? (double)n * 1e9 / (double)ns : 0;
	*all = w->step_ns[phase] ? (double)w->tokens[phase] * 1e9 / (double)w->step_ns[phase] : 0;
}

void cli_recent_groups(const struct cli_recent *w, int kind, struct cli_win_group *out,
		       size_t *n, uint64_t *total_ns)
{
	*n = w->n_keys[kind];
	*total_ns = 0;
	for (size_t k = 0; k < *n; k++) {
		out[k] = (struct cli_win_group){ .key = w->keys[kind][k] };
		for (int i = 0; i < CLI_WIN_SECONDS; i++) {
			const struct cli_win_sum *s = &w->b[i].g[kind][k];

			if (!in_window(w, &w->b[i]))
				continue;
			out[k].sum.ns += s->ns, out[k].sum.count += s->count;
			out[k].sum.bytes += s->bytes, out[k].sum.bytes_ns += s->bytes_ns;
			out[k].sum.flops += s->flops, out[k].sum.flops_ns += s->flops_ns;
		}
		*total_ns += out[k].sum.ns;
	}
}

const char *cli_recent_group_name(struct cli_names *names, const struct ggmlviz_reader *r,
				  int kind, uint64_t key, char buf[CLI_OP_NAME_MAX])
{
	if (kind == 0)
		return cli_op_name(names, r, (uint32_t)(key - 1), buf);
	if (kind == 2)
		return cli_part_name(key - 1);
	return cli_layer_name(key ? key - 1 : 0, buf, CLI_OP_NAME_MAX);
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

size_t cli_recent_percentiles(const struct cli_recent *w, enum cli_request_figure f, uint64_t p[3])
{
	static const double ranks[3] = { 0.50, 0.95, 0.99 };
	uint64_t v[CLI_WIN_REQUESTS];
	size_t have = w->n_recent < CLI_WIN_REQUESTS ? w->n_recent : CLI_WIN_REQUESTS, n = 0;

	for (size_t i = 0; i < have; i++)
		if (w->recent[f][i] != UINT64_MAX)
			v[n++] = w->recent[f][i];
	qsort(v, n, sizeof *v, by_value);
	for (int k = 0; k < 3; k++) {
		size_t rank = (size_t)(ranks[k] * (double)n + 0.999999999);
		p[k] = n ? v[(rank ? rank : 1) - 1] : 0;
	}
	return n;
}

void cli_recent_free(struct cli_recent *w)
{
	cli_live_release(&w->live);
}
