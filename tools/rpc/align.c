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
	if (rc < 0)
		cli_error("%s: %s: out of memory for its RPC commands", cmd, path);
	return rc < 0 ? -1 : 0;
}

/* The client connection of the other inputs that served connection s, or NULL; its input in *at. */
static const struct cli_rpc_conn *client_of(const struct cli_rpc_input *ins, size_t n,
					    const struct cli_rpc_conn *s, size_t *at,
					    size_t *ties)
{
	const struct cli_rpc_conn *best = NULL;
	uint64_t most = 0;

	*ties = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < ins[i].rpc.n; j++) {
			const struct cli_rpc_conn *c = &ins[i].rpc.conns[j];
			struct cli_rpc_agree a;

			if (c->side != GGMLVIZ_RPC_CLIENT)
				continue;
			cli_rpc_agree(s, c, &a);
			if (a.differ || !a.hashed || a.hashed < most)
				continue;
			if (a.hashed == most) {
				++*ties; /* the first found is kept */
				continue;
			}
			best = c, most = a.hashed, *at = i, *ties = 0;
		}
	}
	return best;
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

/* Ties each server connection of in to its client's, and bounds the clock; 0 or -ENOMEM. */
static int tie_server(struct cli_rpc_input *ins, size_t n, struct cli_rpc_input *in)
{
	cli_rpc_clock_init(&in->clock);
	for (size_t j = 0; j < in->rpc.n; j++) {
		const struct cli_rpc_conn *s = &in->rpc.conns[j], *c;
		size_t at = 0, ties;

		if (s->side != GGMLVIZ_RPC_SERVER || !s->n)
			continue;
		in->server_conns++;
		if (!(c = client_of(ins, n, s, &at, &ties)))
			continue;
		in->ambiguous += ties > 0;
		in->matched++;
		in->client_pid = c->pid;
		in->client_input = at;
		cli_rpc_clock_add(&in->clock, s, c);
		if (map_add(in, s->id, c->id) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Why in cannot be merged aligned, said; -1, or 0 when it can. */
static int refuse(const char *cmd, const struct cli_rpc_input *in, const char *path, bool clients)
{
	char off[96];

	if (!in->matched && !clients) {
		cli_error("%s: %s is a GGML RPC server's trace (%zu connections), and no client's"
			  " trace is given: give the trace of the program that used it (--rpc) too,"
			  " so that its clock can be aligned; nothing written", cmd, path,
			  in->server_conns);
		return -1;
	}
	if (!in->matched) {
		cli_error("%s: %s is a GGML RPC server's trace whose %zu connections' commands match"
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
	if (in->matched < in->server_conns)
		cli_error("%s: %s: %zu of its %zu connections match no client trace given: their"
			  " commands stay the server's alone", cmd, path,
			  in->server_conns - in->matched, in->server_conns);
	if (in->ambiguous)
		cli_error("%s: %s: %zu of its connections match more than one client connection"
			  " equally: the first found was taken", cmd, path, in->ambiguous);
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
