/*
 * stats --by sequence (see stats.h): the requests of a llama-server run,
 * told apart by their sequence (STEP_SEQ records: each sequence of a
 * step's batch, its tokens and outputs). Each step's time is shared among
 * its sequences in proportion to their tokens; a sequence's tokens count
 * as prompt in a step where it had more tokens than outputs, as generated
 * otherwise. Read from the records themselves, with a pairing engine of
 * its own: a step's STEP_SEQ records are waiting when its STEP_END pairs.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "output/output.h"
#include "stats/stats.h"

#define MAX_PENDING 256 /* sequences of the steps open at once: llama-server's slots */

/* A STEP_SEQ waiting for its step to end. */
struct pending {
	uint32_t tid;
	uint64_t ctx;
	int32_t seq;
	uint32_t tokens, outputs, context;
};

struct seqs {
	struct cli_seq_sum *s;
	size_t n, cap;
	struct pending pend[MAX_PENDING];
	size_t n_pend;
	uint64_t steps, steps_without; /* steps, and those without STEP_SEQ records */
	uint64_t housekeeping;         /* steps labelled warmup or probe: in no sequence */
};

static struct cli_seq_sum *sum_of(struct seqs *q, int32_t seq)
{
	struct cli_seq_sum *s;

	for (size_t i = 0; i < q->n; i++)
		if (q->s[i].seq == seq)
			return &q->s[i];
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 16;
		if (!(s = realloc(q->s, cap * sizeof *s)))
			return NULL;
		q->s = s, q->cap = cap;
	}
	s = &q->s[q->n++];
	memset(s, 0, sizeof *s);
	s->seq = seq;
	s->first_ns = UINT64_MAX;
	return s;
}

static void on_seq(struct seqs *q, const struct ggmlviz_event *ev)
{
	if (q->n_pend == MAX_PENDING)
		return; /* more sequences open than any server has: the rest go untold */
	q->pend[q->n_pend++] = (struct pending){ ev->thread_id, ev->data.step_seq.ctx,
						  ev->data.step_seq.seq_id, ev->data.step_seq.n_tokens,
						  ev->data.step_seq.n_outputs,
						  ev->data.step_seq.context_tokens };
}

/* A sequence's part of a step: its tokens, and its share of the step's time. */
static int add_part(struct seqs *q, const struct pending *p, const struct ggmlviz_timing *t,
		    uint32_t step_tokens)
{
	struct cli_seq_sum *s = sum_of(q, p->seq);

	if (!s)
		return -ENOMEM;
	s->steps++;
	if (p->tokens > p->outputs)
		s->prompt_tokens += p->tokens;
	else
		s->generated += p->tokens;
	s->ns += step_tokens ? (double)t->duration_ns * p->tokens / step_tokens : 0;
	s->first_ns = t->begin_ns < s->first_ns ? t->begin_ns : s->first_ns;
	s->last_ns = t->end_ns > s->last_ns ? t->end_ns : s->last_ns;
	s->context = p->context + p->tokens > s->context ? p->context + p->tokens : s->context;
	return 0;
}

/* A step ended: its sequences (waiting, same thread and context) share its time. */
static int on_step(struct seqs *q, const struct ggmlviz_timing *t)
{
	uint32_t tokens = 0;
	size_t kept = 0;
	int rc = 0, found = 0;

	q->steps++;
	q->housekeeping += cli_step_is_housekeeping(t);
	for (size_t i = 0; i < q->n_pend; i++)
		if (q->pend[i].tid == t->thread_id && q->pend[i].ctx == t->ptr)
			tokens += q->pend[i].tokens;
	for (size_t i = 0; i < q->n_pend; i++) {
		const struct pending *p = &q->pend[i];
		if (p->tid != t->thread_id || p->ctx != t->ptr) {
			q->pend[kept++] = *p;
			continue;
		}
		found = 1;
		if (rc == 0 && !cli_step_is_housekeeping(t)) /* a warm-up serves no request */
			rc = add_part(q, p, t, tokens);
	}
	q->n_pend = kept;
	q->steps_without += !found;
	return rc;
}

static int by_seq(const void *a, const void *b)
{
	const struct cli_seq_sum *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void on_event(const struct ggmlviz_event *ev, void *arg)
{
	if (ev->type == GGMLVIZ_EVENT_STEP_SEQ)
		on_seq(arg, ev);
}

static int on_timing(const struct ggmlviz_timing *t, void *arg)
{
	return t->kind == GGMLVIZ_TIMING_STEP ? on_step(arg, t) : 0;
}

int cli_sequences_collect(const char *cmd, const char *path, struct cli_sequences *out)
{
	static const struct cli_each each = { on_event, on_timing, NULL };
	struct seqs q = { 0 };
	int status = cli_each_timing(cmd, path, &each, &q, NULL);

	if (q.n)
		qsort(q.s, q.n, sizeof *q.s, by_seq);
	*out = (struct cli_sequences){ q.s, q.n, q.n, q.steps, q.steps_without, q.housekeeping };
	return status;
}

static int by_time(const void *a, const void *b)
{
	const struct cli_seq_sum *x = a, *y = b;

	return x->ns != y->ns ? (x->ns < y->ns) - (x->ns > y->ns) : by_seq(a, b);
}

void cli_sequences_top(struct cli_sequences *s, uint64_t top)
{
	if (s->n)
		qsort(s->s, s->n, sizeof *s->s, by_time);
	s->shown = top < s->n ? (size_t)top : s->n;
}

void cli_sequences_free(struct cli_sequences *s)
{
	free(s->s);
	memset(s, 0, sizeof *s);
}

/* ---- output ---- */

static void text_row(struct cli_table *t, const struct cli_seq_sum *s)
{
	uint64_t tokens = s->prompt_tokens + s->generated;
	char b[3][32];

	cli_table_add(t, "%" PRId32, s->seq);
	cli_table_add(t, "%" PRIu64, s->steps);
	cli_table_add(t, "%" PRIu64, s->prompt_tokens);
	cli_table_add(t, "%" PRIu64, s->generated);
	cli_table_add(t, "%" PRIu64, s->context);
	cli_table_add(t, "%s", cli_fmt_ns(s->ns, b[0]));
	cli_table_add(t, "%s", tokens ? cli_fmt_ns(s->ns / (double)tokens, b[1]) : "-");
	cli_table_add(t, "%s", cli_fmt_ns((double)(s->last_ns - s->first_ns), b[2]));
}

void cli_sequences_text(struct cli_out *o, const char *path, const struct cli_sequences *s)
{
	struct cli_table t;
	static const char *const head[] = { "SEQUENCE", "STEPS", "PROMPT", "GENERATED", "CONTEXT",
					    "TIME", "PER TOKEN", "SPAN", NULL };

	cli_out_printf(o, "%s: %zu sequence%s in %" PRIu64 " step%s\n", path, s->n, cli_s(s->n),
		       s->steps, cli_s(s->steps));
	if (!s->n) {
		cli_out_str(o, "(no STEP_SEQ records: the trace does not say the sequences of its "
			       "steps; ggmlviz_llama_decode() records them)\n");
		return;
	}
	cli_table_init(&t, 8);
	for (const char *const *h = head; *h; h++)
		cli_table_add(&t, "%s", *h);
	for (size_t i = 0; i < s->shown; i++)
		text_row(&t, &s->s[i]);
	cli_table_print(&t, o, "");
	cli_table_free(&t);
	cli_out_not_shown(o, s->n - s->shown);
	cli_out_str(o, "(PROMPT and GENERATED: a sequence's tokens in steps where it had more "
		       "tokens than outputs, and in the others; TIME: each step's time shared among "
		       "its sequences in proportion to their tokens; CONTEXT: its tokens in the "
		       "context at its last step; SPAN: from its first step's start to its last "
		       "step's end)\n");
	if (s->steps_without)
		cli_out_printf(o, "(%" PRIu64 " steps said no sequence: not counted)\n",
			       s->steps_without);
	if (s->housekeeping)
		cli_out_printf(o, "(%" PRIu64 " steps were the server's warm-up or probes, labelled so: "
			       "in no sequence)\n", s->housekeeping);
}

void cli_sequences_json(struct cli_out *o, const char *path, const struct cli_sequences *s)
{
	cli_out_str(o, "{\"file\":");
	cli_json_cstr(o, path);
	cli_out_printf(o, ",\"by\":\"sequence\",\"steps\":%" PRIu64 ",\"steps_without_sequences\":%"
		       PRIu64 ",\"housekeeping_steps\":%" PRIu64 ",\"groups\":[", s->steps,
		       s->steps_without, s->housekeeping);
	for (size_t i = 0; i < s->shown; i++) {
		const struct cli_seq_sum *q = &s->s[i];
		uint64_t tokens = q->prompt_tokens + q->generated;

		cli_out_printf(o, "%s{\"name\":\"%" PRId32 "\",\"sequence\":%" PRId32 ",\"steps\":%"
			       PRIu64 ",\"prompt_tokens\":%" PRIu64 ",\"generated_tokens\":%" PRIu64
			       ",\"context_tokens\":%" PRIu64 ",\"ns\":", i ? "," : "", q->seq, q->seq,
			       q->steps, q->prompt_tokens, q->generated, q->context);
		cli_json_double(o, q->ns);
		cli_out_str(o, ",\"ns_per_token\":");
		cli_json_double(o, tokens ? q->ns / (double)tokens : (double)NAN);
		cli_out_printf(o, ",\"first_ns\":%" PRIu64 ",\"last_ns\":%" PRIu64 "}", q->first_ns,
			       q->last_ns);
	}
	cli_out_printf(o, "],\"groups_not_shown\":%zu}\n", s->n - s->shown);
}
