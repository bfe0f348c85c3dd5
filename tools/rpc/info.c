/*
 * What `ggmlviz info` says of a trace's GGML RPC commands (see rpc.h):
 * each process's connections of each endpoint (llama.cpp's tools connect
 * again and again for a few queries), which side recorded them, their
 * commands and bytes, the ones that failed; and each server's clock offset
 * where merge aligned it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rpc/rpc.h"

/* One process's connections of one side and endpoint, summed. */
struct group {
	uint64_t pid, conns, commands, failed, unended, out, in;
	uint8_t side;
	const char *name;
};

static void add_conn(struct group *g, const struct cli_rpc_conn *c)
{
	g->conns++;
	g->commands += c->n;
	for (size_t i = 0; i < c->n; i++) {
		g->failed += c->c[i].ended && c->c[i].status != GGMLVIZ_RPC_OK;
		g->unended += !c->c[i].ended;
		g->out += c->c[i].request_bytes;
		g->in += c->c[i].reply_bytes;
	}
}

static void print_group(struct cli_out *o, const struct cli_rpc *r, const struct group *g)
{
	const struct cli_rpc_proc *p = cli_rpc_proc_of(r, g->pid);
	char a[32], b[32];

	cli_out_printf(o, "  pid %" PRIu64 " (%s) %s %s: %" PRIu64 " connection%s, %" PRIu64 " commands",
		       g->pid, p && p->name[0] ? p->name : "?",
		       g->side == GGMLVIZ_RPC_SERVER ? "server," : "client of", g->name[0] ? g->name : "(no name)",
		       g->conns, g->conns == 1 ? "" : "s", g->commands);
	if (g->failed || g->unended)
		cli_out_printf(o, " (%" PRIu64 " failed, %" PRIu64 " never ended)", g->failed, g->unended);
	cli_out_printf(o, ", %s requests, %s replies\n", cli_fmt_bytes(g->out, a), cli_fmt_bytes(g->in, b));
}

/* Each process's connections of one endpoint, in the order first seen. */
static void print_groups(struct cli_out *o, const struct cli_rpc *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct cli_rpc_conn *c = &r->conns[i];
		struct group g = { c->pid, 0, 0, 0, 0, 0, 0, c->side, c->name };
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = r->conns[j].n && r->conns[j].pid == c->pid && r->conns[j].side == c->side &&
			       !strcmp(r->conns[j].name, c->name);
		if (!c->n || seen)
			continue;
		for (size_t j = i; j < r->n; j++)
			if (r->conns[j].n && r->conns[j].pid == c->pid && r->conns[j].side == c->side &&
			    !strcmp(r->conns[j].name, c->name))
				add_conn(&g, &r->conns[j]);
		print_group(o, r, &g);
	}
}

void cli_rpc_info(struct cli_out *o, const struct cli_rpc *r)
{
	size_t conns = 0;

	for (size_t i = 0; i < r->n; i++)
		conns += r->conns[i].n > 0;
	if (!conns)
		return;
	cli_out_printf(o, "rpc:        %zu connections of GGML's RPC protocol, %" PRIu64
		       " commands recorded by clients, %" PRIu64 " by servers\n", conns,
		       cli_rpc_commands(r, GGMLVIZ_RPC_CLIENT), cli_rpc_commands(r, GGMLVIZ_RPC_SERVER));
	print_groups(o, r);
	for (size_t i = 0; i < r->n_procs; i++) {
		const struct cli_rpc_proc *p = &r->procs[i];

		if (p->side == GGMLVIZ_RPC_SERVER && p->clocked)
			cli_out_printf(o, "  pid %" PRIu64 " (%s): %s\n", p->pid, p->name, p->clock_words);
		else if (p->side == GGMLVIZ_RPC_SERVER)
			cli_out_printf(o, "  pid %" PRIu64 " (%s): its clock is its own (not aligned:"
				       " ggmlviz merge CLIENT SERVER... aligns it)\n", p->pid, p->name);
	}
	if (r->unpaired)
		cli_out_printf(o, "  (%" PRIu64 " RPC stages and ends belong to no open command)\n",
			       r->unpaired);
}
