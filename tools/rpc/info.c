/*
 * What `ggmlviz info` says of a trace's GGML RPC commands (see rpc.h):
 * each connection, which side recorded it, its commands and bytes, the
 * ones that failed; and each server's clock offset where merge aligned it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "rpc/rpc.h"

/* The connection's commands, failed and unended ones, and bytes each way. */
static void conn_counts(const struct cli_rpc_conn *c, uint64_t n[4])
{
	n[0] = n[1] = n[2] = n[3] = 0;
	for (size_t i = 0; i < c->n; i++) {
		n[0] += c->c[i].ended && c->c[i].status != GGMLVIZ_RPC_OK;
		n[1] += !c->c[i].ended;
		n[2] += c->c[i].request_bytes;
		n[3] += c->c[i].reply_bytes;
	}
}

static void print_conn(struct cli_out *o, const struct cli_rpc *r, const struct cli_rpc_conn *c)
{
	const struct cli_rpc_proc *p = cli_rpc_proc_of(r, c->pid);
	uint64_t n[4];
	char a[32], b[32];

	conn_counts(c, n);
	cli_out_printf(o, "  pid %" PRIu64 " (%s) %s %s: %zu commands", c->pid,
		       p && p->name[0] ? p->name : "?",
		       c->side == GGMLVIZ_RPC_SERVER ? "server," : "client of",
		       c->name[0] ? c->name : "(no name)", c->n);
	if (n[0] || n[1])
		cli_out_printf(o, " (%" PRIu64 " failed, %" PRIu64 " never ended)", n[0], n[1]);
	cli_out_printf(o, ", %s requests, %s replies\n", cli_fmt_bytes(n[2], a),
		       cli_fmt_bytes(n[3], b));
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
	for (size_t i = 0; i < r->n; i++)
		if (r->conns[i].n)
			print_conn(o, r, &r->conns[i]);
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
