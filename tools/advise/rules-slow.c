/*
 * The rules of a slow request's window (slow.h): each compares what the
 * window holds with the run's normal, and says both sides' figures. A
 * rule that cannot compare (no step outside the window, a trace that does
 * not say the CPU time or the context) says why it was not applied.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"
#include "advise/slow.h"

#define TAKEN_SHARE 0.80      /* the window's CPU time under this share of its steps' thread time */
#define TAKEN_BELOW 0.75      /* ... and under this much of the normal's share */
#define TAKEN_MIN_NEED_NS 20000000u /* the window's steps' thread time judged, at the least */
#define WINDOW_DILUTED 4      /* the USAGE intervals around the window over its time, at most */
#define TAKEN_RATE_BELOW 0.5  /* the window's CPU time a second, requests in flight, over the normal's */
#define QUEUE_FACTOR 2        /* the judged requests' median wait for a slot, over the normal's */
#define QUEUE_SHARE 0.25      /* ... a share of their time to the first token, at the least */
#define QUEUE_MIN_NS 1000000u /* ... and 1 ms */
#define LONG_PROMPT_FACTOR 4  /* another request's prompt over the normal median prompt */
#define LONG_PROMPT_MIN 256   /* ... and this many tokens computed (not cached), at the least */
#define GROWN_FACTOR 2        /* the window's tokens or slots a step over the normal's */
#define SLOWER_FACTOR 1.5     /* the window's step over the normal's */
#define CONTEXT_FACTOR 2      /* the window's context over the normal's */
#define FALLBACK_SHARE 0.20   /* the CPU's share of the op time, above the normal's by this */
#define TRACE_FACTOR 3        /* the trace's bytes a step over the normal's */
#define MIN_STEPS 8           /* steps on each side, for their medians (a request's own prompt one) */
#define MIN_GEN_STEPS 5       /* generation steps on each side, for theirs */
#define MIN_NORMAL 3          /* requests outside the window, for theirs */

const char *const cli_slow_ids[] = { "slow-cpus-taken", "slow-queue", "slow-batch", "slow-context",
				       "slow-gpu-fallback", "slow-trace-cost", NULL };

static const struct cli_slow_side *in(const struct cli_slow *w)
{
	return &w->side[CLI_SLOW_IN];
}

static const struct cli_slow_side *out(const struct cli_slow *w)
{
	return &w->side[CLI_SLOW_OUT];
}

/* The median of a side's sample (a copy: the side stays as it is). */
static double median(const struct cli_sample *s)
{
	struct cli_sample *c = malloc(sizeof *c);
	double m = 0;

	if (c) {
		memcpy(c, s, sizeof *c);
		m = cli_sample_median(c);
		free(c);
	}
	return m;
}

/* Whether both sides have MIN_STEPS steps (else why not, in the advice). */
static bool steps_both(const struct cli_slow *w, struct cli_advice *a, const char *id, bool gen)
{
	uint64_t i = gen ? in(w)->gen_steps : in(w)->steps, o = gen ? out(w)->gen_steps : out(w)->steps;

	int least = gen ? MIN_GEN_STEPS : MIN_STEPS;

	if (i >= (uint64_t)least && o >= (uint64_t)least)
		return true;
	cli_advise_not(a, id, "%" PRIu64 " %ssteps in the window and %" PRIu64 " outside it: %d on"
		       " each side are weighed", i, gen ? "generation " : "", o, least);
	return false;
}

/* A figure's window and normal values (names window_X, normal_X), and both sides' median step. */
static void side_figures(struct cli_finding *x, const char *win, const char *norm, const double v[2],
			 const double ns[2])
{
	cli_advise_figure(x, win, v[0]);
	cli_advise_figure(x, norm, v[1]);
	cli_advise_figure(x, "window_step_ns", ns[0]);
	cli_advise_figure(x, "normal_step_ns", ns[1]);
}

/* ---- CPUs other work took ---- */

/*
 * Two ways of telling it, each against the normal: the steps' share of the
 * CPUs their threads could have used (where steps ran most of a USAGE
 * interval: a step waiting for a CPU mid-computation), and the process's
 * CPU time a second where requests were in flight all through (the
 * server had work, and the system gave it that much: its loop between
 * steps, its HTTP threads and its steps all waiting for a CPU).
 */
struct taken {
	bool by_share, by_rate;   /* weighed so */
	double share[2], rate[2]; /* the window's, the normal's */
};

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static double ratio_of(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static double invol_rate(const struct cli_slow_side *s)
{
	return s->cpu_ns ? (double)s->invol / ((double)s->cpu_ns / 1e9) : 0;
}

/* Why the window's CPU time cannot be weighed at all, or NULL. */
static const char *taken_not_weighed(const struct cli_slow *w)
{
	if (w->n_marks < 2)
		return "the trace does not say the process's CPU time (META USAGE, written by"
		       " libggmlviz 0.2.0 and later once per flush interval)";
	if (w->usage_mixed)
		return "its USAGE records are of more than one session or process (a merged"
		       " trace): their differences say nothing";
	if (w->gpu)
		return "a GPU computes in this trace: the CPU's threads wait for it, and their CPU"
		       " time says nothing of other work";
	if (in(w)->usage_ns + in(w)->flight_ns > WINDOW_DILUTED * 2 * w->window_ns)
		return "the window is much shorter than the USAGE intervals around it (one a flush"
		       " interval, 100 ms by default): their CPU time would be mostly its neighbours'";
	return NULL;
}

/* What can be weighed, and its figures. */
static void taken_figures(const struct cli_slow *w, struct taken *t)
{
	t->by_share = w->has_threads && w->threads_most && in(w)->intervals && out(w)->intervals &&
		      in(w)->need_ns >= TAKEN_MIN_NEED_NS;
	t->by_rate = in(w)->flight_ns >= TAKEN_MIN_NEED_NS && out(w)->flight_ns >= TAKEN_MIN_NEED_NS;
	for (int k = 0; k < 2; k++) {
		t->share[k] = ratio(w->side[k].cpu_ns, w->side[k].need_ns);
		t->rate[k] = ratio(w->side[k].flight_cpu_ns, w->side[k].flight_ns);
	}
}

static bool taken_by_share(const struct taken *t)
{
	return t->by_share && t->share[0] < TAKEN_SHARE && t->share[0] < TAKEN_BELOW * t->share[1];
}

static bool taken_by_rate(const struct taken *t)
{
	return t->by_rate && t->rate[0] < TAKEN_RATE_BELOW * t->rate[1];
}

static void taken_said(const struct cli_slow *w, const struct taken *t, struct cli_finding *x)
{
	char b[4][32];

	snprintf(x->seen, sizeof x->seen, "%u compute thread%s (%u for a batch) on %u CPU%s",
		 w->n_threads, cli_s(w->n_threads), w->n_threads_batch, w->cpus, cli_s(w->cpus));
	if (t->by_rate)
		cli_advise_append(x->seen, sizeof x->seen, "; over the %s of USAGE intervals around the"
				  " window where requests were in flight all through, the process used"
				  " %.2f s of CPU time a second; over the %s of such intervals outside it,"
				  " %.2f", cli_fmt_ns((double)in(w)->flight_ns, b[0]), t->rate[0],
				  cli_fmt_ns((double)out(w)->flight_ns, b[1]), t->rate[1]);
	if (t->by_share)
		cli_advise_append(x->seen, sizeof x->seen, "; where steps ran half an interval or more,"
				  " the steps' time times their threads got %.0f%% of it in CPU time in the"
				  " window (%s of it), %.0f%% outside it; the scheduler took a CPU from its"
				  " threads %.0f times a second of CPU time there, %.0f outside",
				  100 * t->share[0], cli_fmt_ns((double)in(w)->need_ns, b[2]),
				  100 * t->share[1], invol_rate(in(w)), invol_rate(out(w)));
	cli_advise_append(x->seen, sizeof x->seen, "; the window's median step took %s, the"
			  " normal's %s", cli_fmt_ns(median(&in(w)->step_time), b[2]),
			  cli_fmt_ns(median(&out(w)->step_time), b[3]));
}

static void taken_fire(const struct cli_slow *w, const struct taken *t, struct cli_advice *a)
{
	struct cli_finding *x = cli_advise_fire(a, "slow-cpus-taken", CLI_ADVISE_WARN);

	if (taken_by_rate(t))
		snprintf(x->title, sizeof x->title, "other work took the CPUs in the window: the server"
			 " got %.2f s of CPU time a second while its requests waited, %.2f in the run's"
			 " normal", t->rate[0], t->rate[1]);
	else
		snprintf(x->title, sizeof x->title, "other work took the CPUs in the window: the compute"
			 " threads got %.0f%% of their CPUs there, %.0f%% in the run's normal",
			 100 * t->share[0], 100 * t->share[1]);
	taken_said(w, t, x);
	snprintf(x->threshold, sizeof x->threshold, "the process's CPU time a second, requests in"
		 " flight, under %.0f%% of the normal's; or the steps' CPU time under %.0f%% of their"
		 " time times their compute threads, and under %.0f%% of the normal's share",
		 100 * TAKEN_RATE_BELOW, 100 * TAKEN_SHARE, 100 * TAKEN_BELOW);
	x->why = "a server with requests waiting computes all the time: CPU time it did not get"
		 " went to other work, its loop, its HTTP threads and its compute threads each waiting"
		 " for a CPU (GGML's threads meet at a barrier after every node, so one that waits holds"
		 " the others spinning); the window's requests took as long as those waits. A process"
		 " waiting for the disk (a model's pages read again) reads low too";
	snprintf(x->to_try, sizeof x->to_try, "find what ran then (the system's metrics at that"
		 " time, top(1), pidstat(1)); keep it off the server's CPUs (taskset, a cgroup's"
		 " cpuset, llama-server's --cpu-mask), or leave it CPUs: fewer threads (-t, -tb)");
	cli_advise_figure(x, "window_cpu_per_s", t->rate[0]);
	cli_advise_figure(x, "normal_cpu_per_s", t->rate[1]);
	cli_advise_figure(x, "window_cpu_share", t->share[0]);
	cli_advise_figure(x, "normal_cpu_share", t->share[1]);
	cli_advise_figure(x, "window_involuntary_per_s", invol_rate(in(w)));
	cli_advise_figure(x, "normal_involuntary_per_s", invol_rate(out(w)));
	cli_advise_figure(x, "window_thread_step_ns", (double)in(w)->need_ns);
	cli_advise_figure(x, "window_flight_ns", (double)in(w)->flight_ns);
}

static void cpus_taken(const struct cli_slow *w, struct cli_advice *a)
{
	static const char id[] = "slow-cpus-taken";
	const char *not = taken_not_weighed(w);
	struct taken t;

	if (not) {
		cli_advise_not(a, id, "%s", not);
		return;
	}
	taken_figures(w, &t);
	if (!t.by_share && !t.by_rate)
		cli_advise_not(a, id, "neither %.0f ms of USAGE intervals with requests in flight all"
			       " through on each side of the window, nor %.0f ms of steps' time times"
			       " their compute threads (META THREADS) where steps ran half an interval"
			       " or more", TAKEN_MIN_NEED_NS / 1e6, TAKEN_MIN_NEED_NS / 1e6);
	else if (taken_by_rate(&t) || taken_by_share(&t))
		taken_fire(w, &t, a);
	else
		cli_advise_silent(a, id);
}

/* ---- a queue, or another request's long prompt, before the first token ---- */

/* A request's prompt tokens not taken from a cache. */
static uint32_t computed(const struct cli_request *r)
{
	return r->prompt_tokens > r->cached_tokens ? r->prompt_tokens - r->cached_tokens : 0;
}

/* The normal requests' median prompt (computed tokens). */
static double normal_prompt(const struct cli_slow *w)
{
	struct cli_sample *s = calloc(1, sizeof *s);
	double m = 0;

	for (size_t i = 0; s && i < w->req.n; i++)
		if (cli_slow_normal(w, i))
			cli_sample_add(s, computed(&w->req.r[i]));
	if (s)
		m = cli_sample_median(s);
	free(s);
	return m;
}

/* The longest prompt of another request computed while a judged one waited for its first token. */
struct behind {
	const struct cli_request *judged, *other;
	uint64_t overlap_ns;
};

#define BEHIND_LOOK 256 /* requests that arrived before a judged one, looked at (a queue's worth) */

static void longest_before(const struct cli_slow *w, struct behind *b)
{
	memset(b, 0, sizeof *b);
	for (size_t k = 0; k < w->n_chosen; k++) {
		size_t at = w->chosen[k];
		const struct cli_request *c = &w->req.r[at];
		for (size_t i = at > BEHIND_LOOK ? at - BEHIND_LOOK : 0;
		     c->first_token_ns && i < w->req.n && w->req.r[i].arrival_ns < c->first_token_ns; i++) {
			const struct cli_request *o = &w->req.r[i];
			uint64_t from = o->prompt_ns > c->arrival_ns ? o->prompt_ns : c->arrival_ns;
			uint64_t to = o->first_token_ns < c->first_token_ns ? o->first_token_ns
									    : c->first_token_ns;
			if (o == c || !o->prompt_ns || !o->first_token_ns || to <= from)
				continue;
			if (!b->other || computed(o) > computed(b->other))
				*b = (struct behind){ c, o, to - from };
		}
	}
}

struct queue_figs {
	uint64_t queue, normal_queue, ttft, normal_ttft;
	double normal_prompt;
	struct behind b;
};

static bool behind_prompt(const struct queue_figs *q)
{
	uint64_t ttft = 0;

	if (!q->b.other || cli_request_figure(q->b.judged, CLI_REQ_TTFT, &ttft) < 0)
		return false;
	return computed(q->b.other) >= LONG_PROMPT_FACTOR * q->normal_prompt &&
	       computed(q->b.other) >= LONG_PROMPT_MIN && (double)q->b.overlap_ns >= QUEUE_SHARE * (double)ttft;
}

static bool waited(const struct queue_figs *q)
{
	return q->queue >= QUEUE_FACTOR * q->normal_queue && (double)q->queue >= QUEUE_SHARE * (double)q->ttft &&
	       q->queue >= QUEUE_MIN_NS;
}

static void queue_said(const struct cli_slow *w, const struct queue_figs *q, struct cli_finding *x)
{
	char b[5][32];

	snprintf(x->seen, sizeof x->seen, "the request%s judged waited %s for a slot (median) of a"
		 " time to the first token of %s; the %zu requests outside the window waited %s, of %s",
		 w->n_chosen == 1 ? "" : "s", cli_fmt_ns((double)q->queue, b[0]),
		 cli_fmt_ns((double)q->ttft, b[1]), w->n_normal, cli_fmt_ns((double)q->normal_queue, b[2]),
		 cli_fmt_ns((double)q->normal_ttft, b[3]));
	if (q->b.other)
		cli_advise_append(x->seen, sizeof x->seen, "; meanwhile request %" PRIu64 " (slot %d) had"
				  " its prompt of %u tokens computed (%u of them cached), %s of it before"
				  " request %" PRIu64 "'s first token; the normal median prompt: %.0f"
				  " tokens", q->b.other->id, q->b.other->slot, q->b.other->prompt_tokens,
				  q->b.other->cached_tokens, cli_fmt_ns((double)q->b.overlap_ns, b[4]),
				  q->b.judged->id, q->normal_prompt);
}

static void queue_fire(const struct cli_slow *w, const struct queue_figs *q, struct cli_advice *a)
{
	bool prompt = behind_prompt(q);
	struct cli_finding *x = cli_advise_fire(a, "slow-queue", CLI_ADVISE_WARN);
	char b[2][32];

	if (prompt)
		snprintf(x->title, sizeof x->title, "request %" PRIu64 "'s first token waited %s behind"
			 " request %" PRIu64 "'s prompt of %u tokens (the normal median prompt: %.0f)",
			 q->b.judged->id, cli_fmt_ns((double)q->b.overlap_ns, b[0]), q->b.other->id,
			 computed(q->b.other), q->normal_prompt);
	else
		snprintf(x->title, sizeof x->title, "the request%s judged waited %s for a slot, %s"
			 " normally", w->n_chosen == 1 ? "" : "s", cli_fmt_ns((double)q->queue, b[0]),
			 cli_fmt_ns((double)q->normal_queue, b[1]));
	queue_said(w, q, x);
	snprintf(x->threshold, sizeof x->threshold, "a wait for a slot %d times the normal's or"
		 " more, %.0f%% of the time to the first token or more; or another request's prompt"
		 " %d times the normal median prompt or more (%d tokens or more, not cached), computed"
		 " through %.0f%% of that time", QUEUE_FACTOR, 100 * QUEUE_SHARE, LONG_PROMPT_FACTOR,
		 LONG_PROMPT_MIN, 100 * QUEUE_SHARE);
	x->why = prompt ? "llama-server computes a prompt in batches of up to -b tokens, one decode"
			  " at a time for every slot: a long prompt's batches run before the first"
			  " tokens of the requests that came after it"
			: "a request waits for a free slot before its prompt starts: every slot busy,"
			  " the wait adds to its time to the first token";
	snprintf(x->to_try, sizeof x->to_try, "%s", prompt
		 ? "a smaller batch (-b, -ub) lets the other slots' tokens in between a long prompt's"
		   " pieces; a prompt cache (\"cache_prompt\": true) so that a conversation is not"
		   " computed again; long documents on a server of their own"
		 : "more slots (-np N, with a context -c of N times what one request needs); a"
		   " second server behind a balancer when the machine has room");
	cli_advise_figure(x, "window_queue_ns", (double)q->queue);
	cli_advise_figure(x, "normal_queue_ns", (double)q->normal_queue);
	cli_advise_figure(x, "window_ttft_ns", (double)q->ttft);
	cli_advise_figure(x, "normal_ttft_ns", (double)q->normal_ttft);
	cli_advise_figure(x, "normal_prompt_tokens", q->normal_prompt);
	if (q->b.other)
		cli_advise_figure(x, "behind_prompt_tokens", computed(q->b.other)),
			cli_advise_figure(x, "behind_ns", (double)q->b.overlap_ns);
}

static void queue(const struct cli_slow *w, struct cli_advice *a)
{
	static const char id[] = "slow-queue";
	struct queue_figs q = { 0 };

	if (w->n_normal < MIN_NORMAL) {
		cli_advise_not(a, id, "%zu request%s outside the window: %d or more make a normal",
			       w->n_normal, cli_s(w->n_normal), MIN_NORMAL);
		return;
	}
	if (!cli_slow_median(w, true, CLI_REQ_TTFT, &q.ttft) ||
	    !cli_slow_median(w, false, CLI_REQ_TTFT, &q.normal_ttft)) {
		cli_advise_not(a, id, "the requests judged, or those outside the window, have no first"
			       " token (REQUEST_STAGE FIRST_TOKEN)");
		return;
	}
	cli_slow_median(w, true, CLI_REQ_QUEUE, &q.queue);
	cli_slow_median(w, false, CLI_REQ_QUEUE, &q.normal_queue);
	q.normal_prompt = normal_prompt(w);
	longest_before(w, &q.b);
	if (waited(&q) || behind_prompt(&q))
		queue_fire(w, &q, a);
	else
		cli_advise_silent(a, id);
}

/* ---- a batch grown by other slots ---- */

static void batch(const struct cli_slow *w, struct cli_advice *a)
{
	static const char id[] = "slow-batch";
	double tok[2] = { median(&in(w)->tokens), median(&out(w)->tokens) };
	double seq[2] = { median(&in(w)->seqs), median(&out(w)->seqs) };
	double ns[2] = { median(&in(w)->step_time), median(&out(w)->step_time) };
	double grew = fmax(ratio_of(tok[0], tok[1]), ratio_of(seq[0], seq[1]));
	struct cli_finding *x;
	char b[2][32];

	if (!steps_both(w, a, id, false))
		return;
	/* the steps longer for carrying more, not more than what they carry grew (CPUs taken) */
	if (grew < GROWN_FACTOR || ns[0] < SLOWER_FACTOR * ns[1] || ns[0] > SLOWER_FACTOR * grew * ns[1]) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "the window's steps carried %.0f tokens of %.0f slots"
		 " (median), %.0f of %.0f normally: %s a step, %s normally", tok[0], seq[0], tok[1],
		 seq[1], cli_fmt_ns(ns[0], b[0]), cli_fmt_ns(ns[1], b[1]));
	snprintf(x->seen, sizeof x->seen, "%" PRIu64 " steps in the window, %" PRIu64 " outside it;"
		 " the median step of the window computed %.0f tokens of %.0f sequences (slots) in %s,"
		 " the normal's %.0f tokens of %.0f in %s%s", in(w)->steps, out(w)->steps, tok[0], seq[0],
		 cli_fmt_ns(ns[0], b[0]), tok[1], seq[1], cli_fmt_ns(ns[1], b[1]),
		 seq[0] > 0 || seq[1] > 0 ? "" : " (the steps do not say their sequences: no STEP_SEQ)");
	snprintf(x->threshold, sizeof x->threshold, "the window's median step %d times the normal's"
		 " tokens or slots, and %.1f times its time, or more; its time grown no more than %.1f"
		 " times what it carries grew (else each token was slower: another cause)", GROWN_FACTOR,
		 SLOWER_FACTOR, SLOWER_FACTOR);
	x->why = "a step computes every busy slot's tokens together: the more slots and prompt"
		 " tokens in the batch, the longer the step, and each request in it waits for the"
		 " whole step for its next token";
	snprintf(x->to_try, sizeof x->to_try, "fewer slots (-np) where a request's latency matters"
		 " more than the server's throughput; a smaller batch (-b, -ub) keeps a long prompt"
		 " from filling the steps; the requests spread over more servers");
	cli_advise_figure(x, "window_tokens_per_step", tok[0]);
	cli_advise_figure(x, "normal_tokens_per_step", tok[1]);
	side_figures(x, "window_slots_per_step", "normal_slots_per_step", seq, ns);
}

/* ---- the context ---- */

static void context(const struct cli_slow *w, struct cli_advice *a)
{
	static const char id[] = "slow-context";
	double ctx[2] = { median(&in(w)->context), median(&out(w)->context) };
	double ns[2] = { median(&in(w)->gen_time), median(&out(w)->gen_time) };
	struct cli_finding *x;
	char b[2][32];

	if (!w->context_said) {
		cli_advise_not(a, id, "the steps do not say their context (STEP_SEQ records: the"
			       " llama.cpp adapter writes them)");
		return;
	}
	if (!steps_both(w, a, id, true))
		return;
	if (ctx[0] < CONTEXT_FACTOR * ctx[1] || ns[0] < SLOWER_FACTOR * ns[1]) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "the window's tokens were generated over %.0f tokens of"
		 " context (median), %.0f normally: %s a step, %s normally", ctx[0], ctx[1],
		 cli_fmt_ns(ns[0], b[0]), cli_fmt_ns(ns[1], b[1]));
	snprintf(x->seen, sizeof x->seen, "%" PRIu64 " generation steps in the window, %" PRIu64
		 " outside it; the window's median step attended to %.0f tokens already in its"
		 " context and took %s; the normal's, %.0f tokens and %s", in(w)->gen_steps,
		 out(w)->gen_steps, ctx[0], cli_fmt_ns(ns[0], b[0]), ctx[1], cli_fmt_ns(ns[1], b[1]));
	snprintf(x->threshold, sizeof x->threshold, "the window's median generation step over %d"
		 " times the normal's context, and %.1f times its time, or more", CONTEXT_FACTOR,
		 SLOWER_FACTOR);
	x->why = "each generated token attends to every token before it: attention reads the"
		 " whole KV cache, so a long conversation's tokens take longer than a short one's";
	snprintf(x->to_try, sizeof x->to_try, "a shorter context (-c) or conversations that end"
		 " sooner; flash attention (-fa on) and a KV cache of 8 bits (-ctk q8_0 -ctv q8_0)"
		 " read less for each token");
	side_figures(x, "window_context", "normal_context", ctx, ns);
}

/* ---- ops that left the GPU ---- */

static double cpu_op_share(const struct cli_slow_side *s)
{
	return s->op_ns ? (double)s->cpu_op_ns / (double)s->op_ns : 0;
}

static void gpu_fallback(const struct cli_slow *w, struct cli_advice *a)
{
	static const char id[] = "slow-gpu-fallback";
	double sh[2] = { cpu_op_share(in(w)), cpu_op_share(out(w)) };
	double ns[2] = { median(&in(w)->step_time), median(&out(w)->step_time) };
	struct cli_finding *x;
	char b[2][32];

	if (!w->gpu) {
		cli_advise_not(a, id, "no op of this trace ran on a GPU");
		return;
	}
	if (!in(w)->op_ns || !out(w)->op_ns) {
		cli_advise_not(a, id, "no op timed in the window, or outside it");
		return;
	}
	if (!steps_both(w, a, id, false))
		return;
	if (sh[0] < sh[1] + FALLBACK_SHARE || ns[0] < SLOWER_FACTOR * ns[1]) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "the CPU computed %.0f%% of the window's op time, %.0f%%"
		 " normally: ops left the GPU", 100 * sh[0], 100 * sh[1]);
	snprintf(x->seen, sizeof x->seen, "ops on the CPU: %.0f%% of the op time in the window, %.0f%%"
		 " outside it; the window's median step took %s, the normal's %s", 100 * sh[0],
		 100 * sh[1], cli_fmt_ns(ns[0], b[0]), cli_fmt_ns(ns[1], b[1]));
	snprintf(x->threshold, sizeof x->threshold, "the CPU's share of the window's op time %.0f"
		 " points above the normal's or more, its median step %.1f times the normal's",
		 100 * FALLBACK_SHARE, SLOWER_FACTOR);
	x->why = "an op the GPU's backend cannot run for its shapes or types, or whose tensors"
		 " find no room in the device's memory, is computed by the CPU: its inputs cross"
		 " to the host and back, and it runs many times slower";
	snprintf(x->to_try, sizeof x->to_try, "ggmlviz stats --by backend and --by op on the trace"
		 " say which ops ran on the CPU; more layers on the GPU (-ngl), a KV cache that fits"
		 " (-c, -ctk), a quantization the GPU's kernels run");
	side_figures(x, "window_cpu_op_share", "normal_cpu_op_share", sh, ns);
}

/* ---- the trace's own cost ---- */

static double bytes_a_step(const struct cli_slow_side *s)
{
	return s->steps ? (double)s->bytes / (double)s->steps : 0;
}

static void trace_cost(const struct cli_slow *w, struct cli_advice *a)
{
	static const char id[] = "slow-trace-cost";
	double by[2] = { bytes_a_step(in(w)), bytes_a_step(out(w)) };
	struct cli_finding *x;
	char b[2][32];

	if (!steps_both(w, a, id, false))
		return;
	if (by[0] < TRACE_FACTOR * by[1] && !in(w)->dropped) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_NOTE);
	snprintf(x->title, sizeof x->title, "the trace wrote %s a step in the window, %s normally%s",
		 cli_fmt_bytes((uint64_t)by[0], b[0]), cli_fmt_bytes((uint64_t)by[1], b[1]),
		 in(w)->dropped ? "; events were dropped there" : "");
	snprintf(x->seen, sizeof x->seen, "%" PRIu64 " records in the window (%" PRIu64 " steps),"
		 " %" PRIu64 " outside it (%" PRIu64 " steps); %" PRIu64 " events dropped in the window,"
		 " %" PRIu64 " outside it", in(w)->records, in(w)->steps, out(w)->records, out(w)->steps,
		 in(w)->dropped, out(w)->dropped);
	snprintf(x->threshold, sizeof x->threshold, "the window's bytes a step %d times the normal's"
		 " or more, or an event dropped in it", TRACE_FACTOR);
	x->why = "each record costs the thread that writes it and the tracer's writer their time: a"
		 " window that records many more a step (ops kept one by one, a slow step's ops,"
		 " marks) is slowed by its own trace, and a ring that fills loses events";
	snprintf(x->to_try, sizeof x->to_try, "compare with a run traced with fewer records"
		 " (GGML_VIZ_OP_SAMPLE, GGML_VIZ_OP_SLOW=0, GGML_VIZ_OP_TIMING=0) before trusting the"
		 " window's times; a larger ring (GGML_VIZ_BUFFER_SIZE) where events were dropped");
	cli_advise_figure(x, "window_bytes_per_step", by[0]);
	cli_advise_figure(x, "normal_bytes_per_step", by[1]);
	cli_advise_figure(x, "window_dropped", (double)in(w)->dropped);
}

void cli_slow_rules(const struct cli_slow *w, struct cli_advice *a)
{
	memset(a, 0, sizeof *a);
	cpus_taken(w, a);
	queue(w, a);
	batch(w, a);
	context(w, a);
	gpu_fallback(w, a);
	trace_cost(w, a);
}
