/*
 * The traces `ggmlviz merge` is given, as GGML's RPC sees them (see
 * rpc.h): which are servers' and which clients', each server connection
 * tied to the client connection whose commands it served, and each
 * server trace's clock against its clients'. A server trace tied to no
 * client given is refused, with why.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "input/input.h"
#include "rpc/rpc.h"

/* Reads every RPC record of path into r; 0, or -1 (said). */
static int collect(const char *cmd, const char *path, struct cli_rpc *r)
{
	struct cli_input in;
	struct ggmlviz_event ev;
	int rc = 0;

	if (cli_input_start(&in, cmd, path) != 0)
		return -1; /* the merge's own reader says why */
	while (rc == 0 && cli_input_next(&in, &ev) == 1)
		rc = cli_rpc_add(r, &ev);
	cli_input_close(&in);
	cli_rpc_finish(r);
	if (rc < 0)
		cli_error("%s: %s: out of memory for its RPC commands", cmd, path);
	return rc < 0 ? -1 : 0;
}

/* A client connection that may have served a server's: its input, how many hashes agree. */
struct cand {
	const struct cli_rpc_conn *c;
	size_t input;
	uint64_t hashed;
};

#define CANDS 64 /* client connections weighed for one server connection */

/* The client connections whose commands agree with s's, those with the most hashes agreeing first. */
static size_t candidates(const struct cli_rpc_input *ins, size_t n, const struct cli_rpc_conn *s,
			 struct cand *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < ins[i].rpc.n; j++) {
			const struct cli_rpc_conn *c = &ins[i].rpc.conns[j];
			struct cli_rpc_agree a;

			if (c->side != GGMLVIZ_RPC_CLIENT)
				continue;
			cli_rpc_agree(s, c, &a);
			if (a.differ || !a.hashed)
				continue;
			if (k == CANDS || (k && a.hashed > out[0].hashed))
				k = 0; /* a better one: the others were not as good */
			if (!k || a.hashed == out[0].hashed)
				out[k++] = (struct cand){ c, i, a.hashed };
		}
	}
	return k;
}

static bool taken(const struct cli_rpc_input *in, uint64_t client_id)
{
	for (size_t i = 0; i < in->n_map; i++)
		if (in->map[2 * i + 1] == client_id)
			return true;
	return false;
}

/* How well candidate c fits the server's clock so far: its own bounds' overlap with them (-1: none). */
static double fit(const struct cli_rpc_clock *sofar, const struct cli_rpc_conn *s,
		  const struct cli_rpc_conn *c)
{
	struct cli_rpc_clock k;
	double lo, hi; /* unbounded sides are INT64_MIN and INT64_MAX: no difference overflows */

	cli_rpc_clock_init(&k);
	cli_rpc_clock_add(&k, s, c);
	lo = (double)(k.low > sofar->low ? k.low : sofar->low);
	hi = (double)(k.high < sofar->high ? k.high : sofar->high);
	return lo <= hi ? hi - lo : -1.0;
}
static int map_add(struct cli_rpc_input *in, uint64_t from, uint64_t to)
{
	uint64_t *m = realloc(in->map, (in->n_map + 1) * 2 * sizeof *m);

	if (!m)
		return -ENOMEM;
	in->map = m;
	m[2 * in->n_map] = from, m[2 * in->n_map + 1] = to;
	in->n_map++;
	return 0;
}

uint64_t cli_rpc_map_conn(const struct cli_rpc_input *in, uint64_t id)
{
	for (size_t i = 0; i < in->n_map; i++)
		if (in->map[2 * i] == id)
			return in->map[2 * i + 1];
	return id;
}

/*
 * Whether a connection only asked the server what it has (llama.cpp's tools
 * connect for a few such queries at their start, before they trace).
 */
static bool queries_only(const struct cli_rpc_conn *s)
{
	static const uint8_t queries[] = { 1 /* GET_ALIGNMENT */, 2 /* GET_MAX_SIZE */,
					   11 /* GET_DEVICE_MEMORY */, 14 /* HELLO */, 15 /* DEVICE_COUNT */ };

	for (size_t i = 0; i < s->n; i++)
		if (!memchr(queries, s->c[i].cmd, sizeof queries))
			return false;
	return true;
}

static bool tied(const struct cli_rpc_input *in, uint64_t server_id)
{
	for (size_t i = 0; i < in->n_map; i++)
		if (in->map[2 * i] == server_id)
			return true;
	return false;
}

static int tie(struct cli_rpc_input *in, const struct cli_rpc_conn *s, const struct cand *c)
{
	in->matched++;
	in->client_pid = c->c->pid;
	in->client_input = c->input;
	cli_rpc_clock_add(&in->clock, s, c->c);
	return map_add(in, s->id, c->c->id);
}

/* Of s's candidates not taken, the one that fits the clock so far best, or NULL. */
static const struct cand *best_fit(const struct cli_rpc_input *in, const struct cli_rpc_conn *s,
				   const struct cand *cands, size_t k)
{
	const struct cand *best = NULL;
	double most = -1.0;

	for (size_t i = 0; i < k; i++) {
		double f = taken(in, cands[i].c->id) ? -1.0 : fit(&in->clock, s, cands[i].c);

		if (f > most)
			best = &cands[i], most = f;
	}
	return best;
}

/*
 * Ties each server connection of in to its client's, and bounds the
 * clock; 0 or -ENOMEM. Connections alike (a client that connects again
 * and again for the same few commands) are told apart by time: those with
 * one best candidate are tied first, and bound the server's clock; each
 * other takes the candidate whose times fit those bounds.
 */
static int tie_server(struct cli_rpc_input *ins, size_t n, struct cli_rpc_input *in)
{
	struct cand cands[CANDS];

	cli_rpc_clock_init(&in->clock);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t j = 0; j < in->rpc.n; j++) {
			const struct cli_rpc_conn *s = &in->rpc.conns[j];
			size_t k = s->side == GGMLVIZ_RPC_SERVER && s->n ? candidates(ins, n, s, cands) : 0;
			const struct cand *c = k == 1 ? cands : pass ? best_fit(in, s, cands, k) : NULL;

			in->server_conns += pass == 0 && s->side == GGMLVIZ_RPC_SERVER && s->n;
			if ((k == 1) != (pass == 0) || !c || taken(in, c->c->id))
				continue; /* unique ones in the first pass, the others in the second */
			in->ambiguous += k > 1 && in->clock.low == INT64_MIN;
			if (tie(in, s, c) < 0)
				return -ENOMEM;
		}
	}
	for (size_t j = 0; j < in->rpc.n; j++) {
		const struct cli_rpc_conn *s = &in->rpc.conns[j];
		in->unmatched_work += s->side == GGMLVIZ_RPC_SERVER && s->n && !tied(in, s->id) &&
				      !queries_only(s);
	}
	return 0;
}

/* Why in cannot be merged aligned, said; -1, or 0 when it can. */
static int refuse(const char *cmd, const struct cli_rpc_input *in, const char *path, bool clients)
{
	char off[96];

	if (!in->matched && !clients) {
		cli_error("%s: %s is a GGML RPC server's trace (%zu connection%s), and no client's"
			  " trace is given: give the trace of the program that used it (--rpc) too,"
			  " so that its clock can be aligned; nothing written", cmd, path,
			  in->server_conns, in->server_conns == 1 ? "" : "s");
		return -1;
	}
	if (!in->matched) {
		cli_error("%s: %s is a GGML RPC server's trace whose %zu connection(s)' commands match"
			  " those of no client trace given (another run's?); nothing written", cmd,
			  path, in->server_conns);
		return -1;
	}
	if (in->clock.low == INT64_MIN || in->clock.high == INT64_MAX) {
		cli_error("%s: %s: its %" PRIu64 " commands shared with its client's give no round"
			  " trip both sides recorded whole, to align its clock by; nothing written",
			  cmd, path, in->clock.pairs);
		return -1;
	}
	if (in->unmatched_work)
		cli_error("%s: %s: %zu of its %zu connections that had it work match no client trace"
			  " given (another client's?): their commands stay the server's alone", cmd, path,
			  in->unmatched_work, in->server_conns);
	if (in->ambiguous)
		cli_error("%s: %s: %zu of its connections match more than one client connection"
			  " equally, and no other bounds its clock to tell which: the first found was"
			  " taken", cmd, path, in->ambiguous);
	if (in->clock.crossed)
		cli_error("%s: %s: its commands' times bound its clock from both sides, %" PRIu64
			  " ns crossed (drift, or records out of place): the tightest round trip's"
			  " estimate is kept (%s)", cmd, path, in->clock.crossed,
			  cli_rpc_fmt_offset(in->clock.offset, in->clock.uncertainty, off, sizeof off));
	return 0;
}

int cli_rpc_align(const char *cmd, struct cli_rpc_input *ins, const char *const *paths,
		  size_t n)
{
	bool clients = false;

	for (size_t i = 0; i < n; i++) {
		if (collect(cmd, paths[i], &ins[i].rpc) < 0)
			return -1;
		ins[i].server = cli_rpc_commands(&ins[i].rpc, GGMLVIZ_RPC_SERVER) > 0;
		clients |= cli_rpc_commands(&ins[i].rpc, GGMLVIZ_RPC_CLIENT) > 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!ins[i].server)
			continue;
		if (tie_server(ins, n, &ins[i]) < 0) {
			cli_error("%s: out of memory tying %s's connections", cmd, paths[i]);
			return -1;
		}
		cli_rpc_clock_solve(&ins[i].clock);
		if (refuse(cmd, &ins[i], paths[i], clients) < 0)
			return -1;
	}
	return 0;
}

void cli_rpc_inputs_free(struct cli_rpc_input *ins, size_t n)
{
	for (size_t i = 0; ins && i < n; i++) {
		cli_rpc_free(&ins[i].rpc);
		free(ins[i].map);
	}
}
