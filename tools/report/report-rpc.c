/*
 * GGML's RPC on the report's page (see report.h): each host's lanes named
 * by it (the client's, and each server's by the endpoint it serves), and
 * each command drawn where it was recorded: on the client's connection
 * thread from its request's send to its reply, on the server's thread from
 * its arrival to its reply sent, its ops under it. Merged, the hosts' lanes
 * share one clock (ggmlviz merge).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/report.h"

static size_t host_index(struct cli_report_rpc *x, uint64_t pid)
{
	for (size_t i = 0; i < x->n_hosts; i++)
		if (x->hosts[i].pid == pid)
			return i;
	if (x->n_hosts == CLI_REPORT_HOSTS)
		return CLI_REPORT_HOSTS;
	memset(&x->hosts[x->n_hosts], 0, sizeof x->hosts[0]);
	x->hosts[x->n_hosts].pid = pid;
	return x->n_hosts++;
}

/* A server's host: the endpoint its connection's name says it serves. */
static void name_host(struct cli_report_rpc *x, uint64_t pid, const struct ggmlviz_event *ev)
{
	static const char serving[] = "serving ";
	size_t i = host_index(x, pid), skip = sizeof serving - 1, n;

	if (i == CLI_REPORT_HOSTS || !ev->label || ev->label_len <= skip ||
	    memcmp(ev->label, serving, skip) != 0)
		return;
	n = ev->label_len - skip < sizeof x->hosts[i].host ? ev->label_len - skip
							    : sizeof x->hosts[i].host - 1;
	memcpy(x->hosts[i].host, ev->label + skip, n);
	x->hosts[i].host[n] = '\0';
}

static void begin(struct cli_report_rpc *x, uint64_t pid, const struct ggmlviz_event *ev)
{
	size_t h = host_index(x, pid), i = x->n_open;

	if (h < CLI_REPORT_HOSTS)
		x->hosts[h].side = ev->data.rpc.side;
	for (size_t k = 0; k < x->n_open; k++)
		if (x->open[k].pid == pid && x->open[k].tid == ev->thread_id)
			i = k; /* a thread's commands follow one another: one left open never ended */
	if (i == CLI_REPORT_RPC_OPEN)
		return;
	x->n_open += i == x->n_open;
	x->open[i].pid = pid, x->open[i].tid = ev->thread_id, x->open[i].conn = ev->data.rpc.conn;
	x->open[i].seq = ev->data.rpc.seq, x->open[i].cmd = ev->data.rpc.cmd;
	x->open[i].begin_ns = ev->timestamp_ns, x->open[i].request_bytes = ev->data.rpc.request_bytes;
}

/* The command that ev ends, told in *d: 1, or 0 when none was open. */
static int end(struct cli_report_rpc *x, uint64_t pid, const struct ggmlviz_event *ev,
	       struct cli_report_rpc_done *d)
{
	for (size_t k = 0; k < x->n_open; k++) {
		if (x->open[k].pid != pid || x->open[k].tid != ev->thread_id ||
		    x->open[k].conn != ev->data.rpc.conn || x->open[k].seq != ev->data.rpc.seq)
			continue;
		x->commands++, x->failed += ev->data.rpc.status != GGMLVIZ_RPC_OK;
		*d = (struct cli_report_rpc_done){ pid, x->open[k].begin_ns, ev->timestamp_ns,
						   ev->data.rpc.request_bytes, ev->data.rpc.reply_bytes,
						   ev->thread_id, ev->data.rpc.seq, x->open[k].cmd,
						   ev->data.rpc.side, ev->data.rpc.status };
		x->open[k] = x->open[--x->n_open];
		return 1;
	}
	return 0;
}

int cli_report_rpc_record(struct cli_report_rpc *x, uint64_t pid, const struct ggmlviz_event *ev,
			  struct cli_report_rpc_done *done)
{
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_RPC_CONNECTION)
		name_host(x, pid, ev);
	else if (ev->type == GGMLVIZ_EVENT_RPC_BEGIN)
		begin(x, pid, ev);
	else if (ev->type == GGMLVIZ_EVENT_RPC_END)
		return end(x, pid, ev, done);
	return 0;
}

const char *cli_report_lane_name(const struct cli_report_rpc *x, uint64_t pid, const char *thread,
				 char *buf, size_t size)
{
	for (size_t i = 0; i < x->n_hosts; i++) {
		if (x->hosts[i].pid != pid || !x->hosts[i].side)
			continue;
		if (x->hosts[i].side == GGMLVIZ_RPC_SERVER)
			snprintf(buf, size, "server %s: %s", x->hosts[i].host[0] ? x->hosts[i].host : "?",
				 thread);
		else
			snprintf(buf, size, "client: %s", thread);
		return buf;
	}
	return thread;
}
