/*
 * Where each step's time went over GGML's RPC (see rpc.h): a client's step
 * (a llama_decode()) against the commands its connections sent while it
 * ran, each tied to the server command that served it (the same connection
 * and place: merge gave the server's connections their clients' ids).
 *
 * For each host (a server process) in a step: its commands' time in flight
 * on the client's clock (from the request's send to the reply's arrival,
 * or the request sent: their union), the server's work on them (from its
 * request read whole to its reply begun, or its work done), and the wire:
 * the time in flight the server's work does not cover. The client's time
 * is the step's time outside any command in flight (of which its own ops,
 * as timed). Where the server's work lies inside the time in flight, as it
 * must where the clocks are aligned, client + work + wire is the step's
 * time; what is over or short of it is said (unaccounted): the hosts'
 * commands overlapping, or a server's work outside its command's round
 * trip.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "input/input.h"
#include "rpc/rpc.h"
#include "stats/stats.h"

struct span {
	uint64_t a, b;
};

static int by_begin(const void *x, const void *y)
{
	const struct span *p = x, *q = y;

	return (p->a > q->a) - (p->a < q->a);
}

/* The spans sorted and merged in place (overlaps joined); how many remain. */
static size_t merge_spans(struct span *s, size_t n)
{
	size_t k = 0;

	if (!n)
		return 0;
	qsort(s, n, sizeof *s, by_begin);
	for (size_t i = 1; i < n; i++) {
		if (s[i].a <= s[k].b)
			s[k].b = s[i].b > s[k].b ? s[i].b : s[k].b;
		else
			s[++k] = s[i];
	}
	return k + 1;
}

static uint64_t spans_len(const struct span *s, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += s[i].b - s[i].a;
	return t;
}

/* How much of [a, b) the merged spans s cover. */
static uint64_t covered(const struct span *s, size_t n, uint64_t a, uint64_t b)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n && s[i].a < b; i++) {
		uint64_t lo = s[i].a > a ? s[i].a : a, hi = s[i].b < b ? s[i].b : b;
		t += hi > lo ? hi - lo : 0;
	}
	return t;
}

/* ---- reading ---- */

struct reading {
	struct cli_rpc_hosts *h;
	uint64_t *ops;     /* the client's op time by step_seq */
	uint64_t *op_pid;  /* ... and the process they were of */
	size_t n_ops;
	int error;
};

static void on_event(const struct ggmlviz_event *ev, void *arg)
{
	struct reading *rd = arg;

	if (!rd->error && cli_rpc_add(&rd->h->rpc, ev) < 0)
		rd->error = -ENOMEM;
}

static int add_step(struct cli_rpc_hosts *h, const struct ggmlviz_timing *t)
{
	struct cli_rpc_step *s;

	if (cli_rpc_grow((void **)&h->steps, &h->cap_steps, h->n_steps + 1, sizeof *s) < 0)
		return -ENOMEM;
	s = &h->steps[h->n_steps++];
	s->seq = t->step_seq, s->pid = h->rpc.pid;
	s->begin_ns = t->begin_ns, s->end_ns = t->end_ns;
	s->phase = t->phase, s->n_tokens = t->n_tokens;
	return 0;
}

/* Room for the client's op time of steps up to seq. */
static int ops_room(struct reading *rd, uint64_t seq)
{
	size_t cap = rd->n_ops;

	if (seq < rd->n_ops)
		return 0;
	if (cli_rpc_grow((void **)&rd->ops, &cap, seq + 1, sizeof *rd->ops) < 0)
		return -ENOMEM;
	return cli_rpc_grow((void **)&rd->op_pid, &rd->n_ops, seq + 1, sizeof *rd->op_pid);
}

static int on_timing(const struct ggmlviz_timing *t, void *arg)
{
	struct reading *rd = arg;

	if (t->kind == GGMLVIZ_TIMING_STEP)
		return add_step(rd->h, t);
	if (t->kind != GGMLVIZ_TIMING_OP || !t->step_seq)
		return 0;
	if (ops_room(rd, t->step_seq) < 0)
		return -ENOMEM;
	if (rd->op_pid[t->step_seq] && rd->op_pid[t->step_seq] != rd->h->rpc.pid)
		return 0; /* a server's op: the pairing gave it the newest step, of its client */
	rd->op_pid[t->step_seq] = rd->h->rpc.pid;
	rd->ops[t->step_seq] += t->duration_ns;
	return 0;
}

/* ---- hosts ---- */

/* The server connection that served client connection c (the same id after merge), or NULL. */
static const struct cli_rpc_conn *server_of(const struct cli_rpc_hosts *h, const struct cli_rpc_conn *c)
{
	for (size_t i = 0; i < h->rpc.n; i++)
		if (h->rpc.conns[i].id == c->id && h->rpc.conns[i].side == GGMLVIZ_RPC_SERVER)
			return &h->rpc.conns[i];
	return NULL;
}

/* The host of a client connection's commands: its server's process (or, with no server trace,
 * its endpoint); past CLI_RPC_HOSTS - 1 hosts, the last holds the others. */
static size_t host_of(struct cli_rpc_hosts *h, const struct cli_rpc_conn *c,
		      const struct cli_rpc_conn *s)
{
	struct cli_rpc_host *x;

	for (size_t i = 1; i < h->n_hosts; i++)
		if (s ? h->hosts[i].pid == s->pid : !h->hosts[i].pid && !strcmp(h->hosts[i].name, c->name))
			return i;
	if (h->n_hosts == CLI_RPC_HOSTS)
		return CLI_RPC_HOSTS - 1;
	x = &h->hosts[h->n_hosts];
	x->pid = s ? s->pid : 0;
	memcpy(x->name, c->name, sizeof x->name);
	return h->n_hosts++;
}

/* The server's record of client command k (of the connection s served), or NULL. */
static const struct cli_rpc_cmd *served(const struct cli_rpc_conn *s, const struct cli_rpc_cmd *k,
					size_t *hint)
{
	for (size_t j = *hint < s->n ? *hint : 0, n = 0; n < s->n; n++, j = (j + 1) % s->n)
		if (s->c[j].seq == k->seq) {
			*hint = j + 1;
			return &s->c[j];
		}
	return NULL;
}

/* The server's work on a command: from its request read whole to its reply begun, or its end. */
static struct span work_of(const struct cli_rpc_cmd *sk)
{
	struct span w = { sk->in_ns ? sk->in_ns : sk->begin_ns, sk->reply_ns ? sk->reply_ns : sk->end_ns };

	if (w.b < w.a)
		w.b = w.a;
	return w;
}

uint64_t cli_rpc_work_in(const struct cli_rpc_conn *s, size_t j, uint64_t a, uint64_t b)
{
	uint64_t t = 0;

	for (size_t i = j + 1; i-- > 0;) {
		struct span w = work_of(&s->c[i]);
		uint64_t lo = w.a > a ? w.a : a, hi = w.b < b ? w.b : b;

		if (w.b <= a)
			break; /* the server serves in order: the ones before ended earlier */
		t += hi > lo ? hi - lo : 0;
	}
	return t;
}

/* Each host's tightest round trip: a command whose reply the client waited for, less the work in it. */
static void tightest(struct cli_rpc_hosts *h)
{
	for (size_t i = 0; i < h->rpc.n; i++) {
		const struct cli_rpc_conn *c = &h->rpc.conns[i], *s = h->conn_server[i];
		struct cli_rpc_host *x = &h->hosts[h->conn_host[i]];
		size_t hint = 0;

		for (size_t j = 0; c->side == GGMLVIZ_RPC_CLIENT && j < c->n; j++) {
			const struct cli_rpc_cmd *k = &c->c[j], *sk;
			uint64_t rtt = k->end_ns - k->begin_ns, in;

			if (!k->reply_bytes || !k->ended || k->status != GGMLVIZ_RPC_OK || k->end_ns < k->begin_ns)
				continue;
			sk = s ? served(s, k, &hint) : NULL;
			in = sk ? cli_rpc_work_in(s, (size_t)(sk - s->c), k->begin_ns, k->end_ns) : 0;
			if (!x->min_round_trip_ns || rtt - (in < rtt ? in : rtt) < x->min_round_trip_ns)
				x->min_round_trip_ns = rtt - (in < rtt ? in : rtt);
		}
	}
}

/* ---- the steps ---- */

/* What a step's commands of one host add up to (their spans gathered in the room given). */
struct gather {
	struct span *fly, *work;
	size_t n_fly, n_work, cap;
};

static int gather_add(struct gather *g, struct span fly, const struct span *work)
{
	if (g->n_fly == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		struct span *a = realloc(g->fly, cap * sizeof *a), *b;
		if (!a)
			return -ENOMEM;
		g->fly = a;
		if (!(b = realloc(g->work, cap * sizeof *b)))
			return -ENOMEM;
		g->work = b, g->cap = cap;
	}
	g->fly[g->n_fly++] = fly;
	if (work)
		g->work[g->n_work++] = *work;
	return 0;
}

/* The spans s clipped to [a, b) in place, those left empty dropped; how many remain. */
static size_t clip_spans(struct span *s, size_t n, uint64_t a, uint64_t b)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct span x = { s[i].a > a ? s[i].a : a, s[i].b < b ? s[i].b : b };
		if (x.b > x.a)
			s[k++] = x;
	}
	return k;
}

/* How much of span x lies outside [a, b). */
static uint64_t outside(struct span x, uint64_t a, uint64_t b)
{
	uint64_t lo = x.a > a ? x.a : a, hi = x.b < b ? x.b : b;

	return (x.b - x.a) - (hi > lo ? hi - lo : 0);
}

/*
 * A step's figures from each host's spans: its time goes to the servers'
 * work wherever one works (their work, all hosts', merged into w), to the
 * wire where a host's command is in flight and none works, to the client
 * elsewhere. A host's compute is its work whole: what of it lies outside the
 * span (misaligned clocks) is over the step's time, unaccounted.
 */
static int span_figures(struct cli_rpc_hosts *h, struct cli_rpc_step *s, struct gather *g,
			struct gather *w)
{
	struct cli_rpc_cell *cells = cli_rpc_cells(h, (size_t)(s - h->steps));
	uint64_t t = s->span_end_ns - s->begin_ns, busy;
	size_t nw;
	uint64_t sum; /* in modular arithmetic: a hostile trace's times may pass 2^63 */

	w->n_fly = w->n_work = 0;
	for (size_t k = 1; k < h->n_hosts; k++) {
		g[k].n_fly = merge_spans(g[k].fly, g[k].n_fly);
		cells[k].inflight_ns = spans_len(g[k].fly, g[k].n_fly);
		for (size_t i = 0; i < g[k].n_work; i++) {
			cells[k].compute_ns += g[k].work[i].b - g[k].work[i].a;
			cells[k].outside_ns += outside(g[k].work[i], s->begin_ns, s->span_end_ns);
			if (gather_add(w, g[k].work[i], NULL) < 0)
				return -ENOMEM;
		}
	}
	nw = merge_spans(w->fly, clip_spans(w->fly, w->n_fly, s->begin_ns, s->span_end_ns));
	busy = spans_len(w->fly, nw);
	sum = 0;
	for (size_t k = 1; k < h->n_hosts; k++) {
		uint64_t in_work = 0;
		for (size_t i = 0; i < g[k].n_fly; i++)
			in_work += covered(w->fly, nw, g[k].fly[i].a, g[k].fly[i].b);
		cells[k].wire_ns = cells[k].inflight_ns - in_work;
		sum += cells[k].compute_ns + cells[k].wire_ns;
		for (size_t i = 0; i < g[k].n_fly; i++)
			if (gather_add(w, g[k].fly[i], NULL) < 0)
				return -ENOMEM;
	}
	/* w now holds the work (merged) and every host's flights: their union is the servers' */
	s->inflight_ns = spans_len(w->fly, merge_spans(w->fly, w->n_fly)) - busy;
	s->client_ns = t - s->inflight_ns - busy;
	s->unaccounted_ns = (int64_t)(sum + s->client_ns - t); /* what is left, signed */
	return 0;
}

/* Adds client command k of connection c (of host) to step s's cell and spans. */
static int add_command(struct cli_rpc_hosts *h, struct cli_rpc_cell *cell, struct gather *g,
		       const struct cli_rpc_step *s, const struct cli_rpc_conn *c,
		       const struct cli_rpc_cmd *k, size_t *hint)
{
	const struct cli_rpc_conn *server = h->conn_server[c - h->rpc.conns];
	const struct cli_rpc_cmd *sk = server ? served(server, k, hint) : NULL;
	struct span fly = { k->begin_ns, k->end_ns ? k->end_ns : s->span_end_ns }, work;

	fly.b = fly.b > s->span_end_ns ? s->span_end_ns : fly.b < fly.a ? fly.a : fly.b;
	cell->commands++;
	cell->round_trips += k->reply_bytes > 0;
	cell->bytes_out += k->request_bytes;
	cell->bytes_in += k->reply_bytes;
	cell->failed += k->ended && k->status != GGMLVIZ_RPC_OK;
	if (sk)
		work = work_of(sk);
	return gather_add(g, fly, sk ? &work : NULL);
}

/*
 * The commands of client connection c that step s sent, from *cursor on:
 * those begun while it ran, and those its connection sent on after it
 * until the first whose reply the client waited for (llama_decode()
 * returns before GGML's dispatcher has sent the last split's inputs and
 * graph and asked for its output, which llama_synchronize() then waits
 * for), before the next step's begin. Their end in *to; the step's span
 * made to hold them.
 */
static void step_commands(const struct cli_rpc_conn *c, struct cli_rpc_step *s, size_t *cursor,
			  size_t *to)
{
	size_t i = *cursor;
	bool replied = true; /* the connection's last command of the step had a reply */

	while (i < c->n && c->c[i].begin_ns < s->begin_ns)
		i++;
	*cursor = i;
	for (; i < c->n && c->c[i].begin_ns < s->next_ns; i++) {
		const struct cli_rpc_cmd *k = &c->c[i];

		if (k->begin_ns > s->end_ns && replied)
			break;
		replied = k->reply_bytes > 0 || (k->ended && k->status != GGMLVIZ_RPC_OK);
		s->span_end_ns = k->end_ns > s->span_end_ns ? k->end_ns : s->span_end_ns;
	}
	*to = i;
}

/* Step s: every host's commands it sent, and where its time went. */
static int step_figures(struct cli_rpc_hosts *h, size_t si, size_t *cursor, size_t *to,
			size_t *hints, struct gather *g, struct gather *w)
{
	struct cli_rpc_step *s = &h->steps[si];
	struct cli_rpc_cell *cells = cli_rpc_cells(h, si);

	s->span_end_ns = s->end_ns;
	for (size_t i = 0; i < h->rpc.n; i++)
		if (h->rpc.conns[i].side == GGMLVIZ_RPC_CLIENT && h->rpc.conns[i].pid == s->pid)
			step_commands(&h->rpc.conns[i], s, &cursor[i], &to[i]);
	for (size_t k = 0; k < h->n_hosts; k++)
		g[k].n_fly = g[k].n_work = 0;
	for (size_t i = 0; i < h->rpc.n; i++) {
		const struct cli_rpc_conn *c = &h->rpc.conns[i];
		size_t k = h->conn_host[i];

		if (c->side != GGMLVIZ_RPC_CLIENT || c->pid != s->pid)
			continue;
		for (; cursor[i] < to[i]; cursor[i]++)
			if (add_command(h, &cells[k], &g[k], s, c, &c->c[cursor[i]], &hints[i]) < 0)
				return -ENOMEM;
	}
	return span_figures(h, s, g, w);
}

/* Each step's next: the next step of its process begins there (or never). */
static void next_steps(struct cli_rpc_hosts *h)
{
	for (size_t i = 0; i < h->n_steps; i++) {
		h->steps[i].next_ns = UINT64_MAX;
		for (size_t j = i + 1; j < h->n_steps; j++)
			if (h->steps[j].pid == h->steps[i].pid) {
				h->steps[i].next_ns = h->steps[j].begin_ns;
				break;
			}
	}
}

static int by_step_begin(const void *x, const void *y)
{
	const struct cli_rpc_step *p = x, *q = y;

	return (p->begin_ns > q->begin_ns) - (p->begin_ns < q->begin_ns);
}

/* Each client connection's server side and host. */
static int assign_hosts(struct cli_rpc_hosts *h)
{
	h->conn_host = calloc(h->rpc.n + 1, sizeof *h->conn_host);
	h->conn_server = calloc(h->rpc.n + 1, sizeof *h->conn_server);
	if (!h->conn_host || !h->conn_server)
		return -ENOMEM;
	for (size_t i = 0; i < h->rpc.n; i++) {
		if (h->rpc.conns[i].side != GGMLVIZ_RPC_CLIENT)
			continue;
		h->conn_server[i] = server_of(h, &h->rpc.conns[i]);
		h->conn_host[i] = host_of(h, &h->rpc.conns[i], h->conn_server[i]);
	}
	return 0;
}

/* Every step's figures: the hosts first, then each step's commands (none without a host). */
static int figure_steps(struct cli_rpc_hosts *h)
{
	size_t *cursor = calloc(h->rpc.n + 1, sizeof *cursor), *hints = calloc(h->rpc.n + 1, sizeof *hints);
	size_t *to = calloc(h->rpc.n + 1, sizeof *to);
	struct gather g[CLI_RPC_HOSTS], w = { 0 };
	int rc = cursor && hints && to ? assign_hosts(h) : -ENOMEM;

	memset(g, 0, sizeof g);
	if (rc == 0 && h->n_hosts > 1 &&
	    !(h->cells = calloc(h->n_steps + 1, h->n_hosts * sizeof *h->cells)))
		rc = -ENOMEM;
	if (h->n_steps)
		qsort(h->steps, h->n_steps, sizeof *h->steps, by_step_begin);
	next_steps(h);
	for (size_t si = 0; rc == 0 && h->cells && si < h->n_steps; si++)
		rc = step_figures(h, si, cursor, to, hints, g, &w);
	if (rc == 0)
		tightest(h);
	free(cursor), free(hints), free(to);
	for (size_t k = 0; k < CLI_RPC_HOSTS; k++)
		free(g[k].fly), free(g[k].work);
	free(w.fly), free(w.work);
	return rc;
}

int cli_rpc_hosts_read(const char *cmd, const char *path, struct cli_rpc_hosts *h)
{
	static const struct cli_each each = { on_event, on_timing, NULL };
	struct reading rd = { h, NULL, NULL, 0, 0 };
	int status;

	memset(h, 0, sizeof *h);
	h->n_hosts = 1; /* 0: the client */
	status = cli_each_timing(cmd, path, &each, &rd, NULL);
	cli_rpc_finish(&h->rpc);
	if (status >= 0 && !rd.error)
		for (size_t i = 0; i < h->n_steps; i++)
			if (h->steps[i].seq < rd.n_ops && rd.op_pid[h->steps[i].seq] == h->steps[i].pid)
				h->steps[i].client_ops_ns = rd.ops[h->steps[i].seq];
	if (status >= 0 && !rd.error)
		rd.error = figure_steps(h);
	free(rd.ops), free(rd.op_pid);
	if (rd.error) {
		cli_error("%s: %s: %s", cmd, path, ggmlviz_strerror(rd.error));
		return CLI_EXIT_DAMAGED;
	}
	return status;
}

void cli_rpc_hosts_free(struct cli_rpc_hosts *h)
{
	cli_rpc_free(&h->rpc);
	free(h->steps);
	free(h->cells);
	free(h->conn_host);
	free(h->conn_server);
	memset(h, 0, sizeof *h);
}
