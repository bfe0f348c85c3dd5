/*
 * The findings of the model and its serving (advise.h): attention's share
 * growing with the context, and llama-server's requests waiting in its
 * queue or processing prompts a cache could keep.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"

#define ATTENTION_MIN_STEPS 8      /* generation steps, to compare their first and last quarter */
#define ATTENTION_SHARE 0.20       /* of the op time, in the last quarter */
#define ATTENTION_GROWTH 1.5       /* the last quarter's attention time (and context) over the first's */
#define QUEUE_SHARE 0.50           /* of the time to the first token, the median request's */
#define SERVER_MIN_REQUESTS 3
#define PROMPT_MIN_TOKENS 16       /* a request's prompt, for the cache rule */

/*
 * A quarter of the generation steps: the median over its bins of
 * attention's share of the op time, and of each step's attention time,
 * context and time (a median, so that a burst of load on a shared machine
 * in a few steps moves none of them).
 */
struct quarter {
	double share, context, step_ns, attention_ns;
};

static struct quarter quarter(const struct cli_facts *f, size_t from, size_t to)
{
	double *v = calloc(4 * (to - from) + 4, sizeof *v), *share, *ctx, *step, *att;
	struct quarter q = { 0, 0, 0, 0 };
	size_t n = 0, m = to - from;

	if (!v || !m) {
		free(v);
		return q;
	}
	share = v, ctx = v + m, step = v + 2 * m, att = v + 3 * m;
	for (size_t i = from; i < to; i++, n++) {
		const struct cli_gen_step *g = &f->gens[i];
		double steps = g->steps ? (double)g->steps : 1;
		share[n] = g->op_ns ? (double)g->attention_ns / (double)g->op_ns : 0;
		ctx[n] = (double)g->context / steps;
		step[n] = (double)g->step_ns / steps;
		att[n] = (double)g->attention_ns / steps;
	}
	q = (struct quarter){ cli_advise_median(share, n), cli_advise_median(ctx, n),
			      cli_advise_median(step, n), cli_advise_median(att, n) };
	free(v);
	return q;
}

static void attention_grows(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "attention-grows-with-context";
	size_t q = f->n_gens / 4;
	struct quarter q0, q1;
	struct cli_finding *x;
	char b[4][32];

	if (f->gen_steps < ATTENTION_MIN_STEPS) {
		cli_advise_not(a, id, "%llu generation step%s in the trace: %d or more are compared",
			       (unsigned long long)f->gen_steps, cli_s(f->gen_steps),
			       ATTENTION_MIN_STEPS);
		return;
	}
	if (!f->has_context) {
		cli_advise_not(a, id, "the steps do not say their context (STEP_SEQ: the llama.cpp"
			       " adapter writes it)");
		return;
	}
	if (!f->parts_named) {
		cli_advise_not(a, id, "no op is placed in attention: the trace has no name of"
			       " llama.cpp's graph builder (stats --by part)");
		return;
	}
	q0 = quarter(f, 0, q), q1 = quarter(f, f->n_gens - q, f->n_gens);
	if (q1.share < ATTENTION_SHARE || q1.share <= q0.share ||
	    q1.attention_ns < ATTENTION_GROWTH * q0.attention_ns ||
	    q1.context < ATTENTION_GROWTH * q0.context) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "attention's share grows with the context: %.1f%% to"
		 " %.1f%% of the op time", 100 * q0.share, 100 * q1.share);
	snprintf(x->seen, sizeof x->seen, "over %llu generation steps, the first quarter's (a context"
		 " of %.0f tokens) spent %s a step in attention, %.1f%% of its op time"
		 " (a step: %s); the last quarter's (%.0f tokens) %s, %.1f%% (a step: %s)",
		 (unsigned long long)f->gen_steps,
		 q0.context, cli_fmt_ns(q0.attention_ns, b[0]), 100 * q0.share,
		 cli_fmt_ns(q0.step_ns, b[1]), q1.context, cli_fmt_ns(q1.attention_ns, b[2]),
		 100 * q1.share, cli_fmt_ns(q1.step_ns, b[3]));
	snprintf(x->threshold, sizeof x->threshold, "in the last quarter of the generation steps,"
		 " attention %.0f%% of the op time or more, a larger share than in the first quarter,"
		 " %.1f times its time there, the context %.1f times longer (medians of each"
		 " quarter's steps)", 100 * ATTENTION_SHARE, ATTENTION_GROWTH, ATTENTION_GROWTH);
	x->why = "each generated token attends to every token before it: attention reads the whole"
		 " KV cache, so its time grows with the context while the rest of the model's stays";
	snprintf(x->to_try, sizeof x->to_try, "%sa KV cache of 8 bits (-ctk q8_0 -ctv q8_0%s),"
		 " half the bytes read; a shorter context (-c) or context shifting; for a server,"
		 " conversations that end sooner", f->flash_attn ? "" : "flash attention (llama.cpp's"
		 " -fa on); ", f->flash_attn ? ": the trace's attention is flash attention already"
		 : ", with -fa");
	cli_advise_figure(x, "first_share", q0.share);
	cli_advise_figure(x, "last_share", q1.share);
	cli_advise_figure(x, "first_attention_ns", q0.attention_ns);
	cli_advise_figure(x, "last_attention_ns", q1.attention_ns);
	cli_advise_figure(x, "first_context", q0.context);
	cli_advise_figure(x, "last_context", q1.context);
}

/* The slots one server of the trace was seen to use (a merged trace holds several). */
struct server_slots {
	uint64_t pid, bits; /* bits: slots 0 to 63 */
};

/* Each server's slots, for up to max servers (those past it: none seen); how many. */
static size_t servers_slots(const struct cli_requests *r, struct server_slots *s, size_t max)
{
	size_t n = 0, k;

	for (size_t i = 0; i < r->n; i++) {
		for (k = 0; k < n && s[k].pid != r->r[i].pid; k++)
			;
		if (k == n && n == max)
			continue;
		if (k == n)
			s[n++] = (struct server_slots){ r->r[i].pid, 0 };
		if (r->r[i].slot >= 0 && r->r[i].slot < 64)
			s[k].bits |= 1ull << r->r[i].slot;
	}
	return n;
}

/*
 * Whether request i waited for a slot: at its arrival, as many requests of
 * its server as the slots that server was seen to use were ahead of it
 * (before it in the order of arrival, and ended after it arrived). A
 * request that arrives with a slot free still waits for the decode in
 * progress (llama-server takes new tasks between its steps), or for the
 * loop to wake: no slot's wait, and more slots would not shorten it. Where
 * no slot is seen, the whole wait counts. The requests are in the order
 * they arrived; those still running at the trace's end are not among them
 * (the reader pairs a request at its end), so none of them counts ahead.
 */
static bool waited_for_a_slot(const struct cli_requests *r, size_t i, const struct server_slots *s,
			      size_t n_servers)
{
	const struct cli_request *me = &r->r[i];
	uint64_t slots = 0;
	int ahead = 0;

	for (size_t k = 0; k < n_servers; k++)
		if (s[k].pid == me->pid)
			slots = s[k].bits;
	for (size_t j = i; slots && j-- > 0;) {
		const struct cli_request *o = &r->r[j];
		ahead += o->pid == me->pid && o->arrival_ns <= me->arrival_ns && o->end_ns > me->arrival_ns;
	}
	return ahead >= __builtin_popcountll(slots);
}

/* The finding's seen: the requests, their servers' slots, and the median waits. */
static void queue_seen(struct cli_finding *x, const struct server_slots *s, size_t n_servers,
		       size_t n, size_t full, double *queue, double *ttft)
{
	int slots = n_servers == 1 ? __builtin_popcountll(s[0].bits) : 0;
	char b[2][32];

	snprintf(x->seen, sizeof x->seen, "%zu requests", n);
	if (n_servers > 1)
		cli_advise_append(x->seen, sizeof x->seen, " of %zu servers", n_servers);
	else if (slots)
		cli_advise_append(x->seen, sizeof x->seen, " on %d slot%s", slots, cli_s((uint64_t)slots));
	cli_advise_append(x->seen, sizeof x->seen, ", %zu of them arriving with every slot taken:"
			  " the median request waited %s in the queue for a slot, of a median time"
			  " to its first token of %s", full, cli_fmt_ns(cli_advise_median(queue, n), b[0]),
			  cli_fmt_ns(cli_advise_median(ttft, n), b[1]));
}

static void server_queue(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "server-queue-wait";
	const struct cli_requests *r = &f->req;
	double share[256], queue[256], ttft[256];
	struct server_slots servers[64];
	size_t n_servers;
	size_t n = 0, full = 0; /* full: requests that arrived with every slot taken */
	struct cli_finding *x;

	if (!f->has_req) {
		cli_advise_not(a, id, "no server request in the trace (the llama-server of"
			       " scripts/build-llama-tools.sh records them)");
		return;
	}
	n_servers = servers_slots(r, servers, sizeof servers / sizeof servers[0]);
	for (size_t i = 0; i < r->n && n < 256; i++) {
		uint64_t q, t;
		if (cli_request_figure(&r->r[i], CLI_REQ_QUEUE, &q) < 0 ||
		    cli_request_figure(&r->r[i], CLI_REQ_TTFT, &t) < 0 || !t)
			continue;
		if (waited_for_a_slot(r, i, servers, n_servers))
			full++;
		else
			q = 0;
		share[n] = (double)q / (double)t, queue[n] = (double)q, ttft[n++] = (double)t;
	}
	if (n < SERVER_MIN_REQUESTS) {
		cli_advise_not(a, id, "%zu request%s with a first token: %d or more are weighed", n,
			       cli_s(n), SERVER_MIN_REQUESTS);
		return;
	}
	if (cli_advise_median(share, n) < QUEUE_SHARE) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "requests wait in the queue for a slot: %.0f%% of the"
		 " median time to the first token", 100 * cli_advise_median(share, n));
	queue_seen(x, servers, n_servers, n, full, queue, ttft);
	snprintf(x->threshold, sizeof x->threshold, "the median request's wait in the queue for a"
		 " slot %.0f%% of its time to the first token or more (%d requests or more; a wait"
		 " counts where as many of its server's requests as the slots it was seen to use"
		 " were running or queued as it arrived)", 100 * QUEUE_SHARE,
		 SERVER_MIN_REQUESTS);
	x->why = "a request waits for a free slot before its prompt starts: every slot busy, the"
		 " wait adds to its time to the first token whatever the model's speed";
	snprintf(x->to_try, sizeof x->to_try, "more slots (llama-server -np N, with a context -c"
		 " of N times what one request needs: the slots share it); continuous batching (on"
		 " by default, --cont-batching) decodes the slots together; a second server behind a"
		 " balancer when the machine has room");
	cli_advise_figure(x, "requests", (double)n);
	cli_advise_figure(x, "requests_with_slots_taken", (double)full);
	cli_advise_figure(x, "median_queue_share", cli_advise_median(share, n));
	cli_advise_figure(x, "median_queue_ns", cli_advise_median(queue, n));
	cli_advise_figure(x, "median_ttft_ns", cli_advise_median(ttft, n));
}

static void server_prompt_cache(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "server-prompt-cache";
	const struct cli_requests *r = &f->req;
	uint64_t n = 0, cached = 0, tokens = 0, prompt_ns = 0, total_ns = 0, v;
	struct cli_finding *x;
	char b[2][32];

	if (!f->has_req) {
		cli_advise_not(a, id, "no server request in the trace");
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		if (r->r[i].prompt_tokens < PROMPT_MIN_TOKENS)
			continue;
		n++, cached += r->r[i].cached_tokens, tokens += r->r[i].prompt_tokens;
		if (cli_request_figure(&r->r[i], CLI_REQ_PROMPT, &v) == 0)
			prompt_ns += v;
		if (cli_request_figure(&r->r[i], CLI_REQ_TOTAL, &v) == 0)
			total_ns += v;
	}
	if (n < SERVER_MIN_REQUESTS) {
		cli_advise_not(a, id, "%" PRIu64 " request%s with a prompt of %d tokens or more: %d or"
			       " more are weighed", n, cli_s(n), PROMPT_MIN_TOKENS, SERVER_MIN_REQUESTS);
		return;
	}
	if (cached) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "no request reused a cached prompt: %" PRIu64 " prompts"
		 " processed whole", n);
	snprintf(x->seen, sizeof x->seen, "%" PRIu64 " requests with prompts of %d tokens or more,"
		 " %" PRIu64 " prompt tokens in all, none of them taken from a slot's cache; their"
		 " prompts took %s, %.1f%% of their time (the trace holds no tokens: whether the"
		 " prompts shared a beginning it cannot say)", n, PROMPT_MIN_TOKENS, tokens,
		 cli_fmt_ns((double)prompt_ns, b[0]),
		 total_ns ? 100.0 * (double)prompt_ns / (double)total_ns : 0);
	snprintf(x->threshold, sizeof x->threshold, "%d requests or more with prompts of %d tokens or"
		 " more, none with a cached token", SERVER_MIN_REQUESTS, PROMPT_MIN_TOKENS);
	x->why = "a prompt that begins as an earlier one did (a system prompt, a conversation's"
		 " history) is computed again when no slot kept it, each time costing its whole"
		 " prompt's time before the first token";
	snprintf(x->to_try, sizeof x->to_try, "\"cache_prompt\": true in the request (llama-server's"
		 " default); enough slots (-np) that a conversation keeps its own;"
		 " --slot-prompt-similarity to send a request to the slot that holds its beginning;"
		 " --cache-reuse N to reuse a beginning that moved in the context");
	cli_advise_figure(x, "requests", (double)n);
	cli_advise_figure(x, "prompt_tokens", (double)tokens);
	cli_advise_figure(x, "prompt_share", total_ns ? (double)prompt_ns / (double)total_ns : 0);
	(void)b;
}

void cli_rules_model(const struct cli_facts *f, struct cli_advice *a)
{
	attention_grows(f, a);
	server_queue(f, a);
	server_prompt_cache(f, a);
}
