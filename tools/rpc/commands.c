/*
 * stats --by command over GGML's RPC (see rpc.h): the clients' commands by
 * kind, over the whole trace: how many, how many failed, their round trips
 * on the client's clock, the servers' work on them, the wire (a round trip
 * less the server's work inside it), bytes each way, and how many a
 * generation step sends.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "input/input.h"
#include "rpc/rpc.h"

struct by_cmd {
	uint64_t count, failed, served, replied, rtt_ns, work_ns, wire_ns, bytes_out, bytes_in;
};

/* Where the server's record of command k of client connection i lies (or SIZE_MAX). */
static size_t served_at(const struct cli_rpc_hosts *h, size_t i, const struct cli_rpc_cmd *k,
			size_t *hint)
{
	const struct cli_rpc_conn *s = h->conn_server[i];

	for (size_t j = s && *hint < s->n ? *hint : 0, n = 0; s && n < s->n; n++, j = (j + 1) % s->n)
		if (s->c[j].seq == k->seq) {
			*hint = j + 1;
			return j;
		}
	return SIZE_MAX;
}

/* Client command k, served (or not) by the j-th command of server connection s. */
static void add(struct by_cmd *x, const struct cli_rpc_cmd *k, const struct cli_rpc_conn *s, size_t j)
{
	uint64_t rtt = k->end_ns > k->begin_ns ? k->end_ns - k->begin_ns : 0, in = 0;

	x->count++;
	x->failed += k->ended && k->status != GGMLVIZ_RPC_OK;
	x->replied += k->reply_bytes > 0;
	x->rtt_ns += rtt;
	x->bytes_out += k->request_bytes, x->bytes_in += k->reply_bytes;
	if (j != SIZE_MAX) {
		const struct cli_rpc_cmd *sk = &s->c[j];
		uint64_t a = sk->in_ns ? sk->in_ns : sk->begin_ns, b = sk->reply_ns ? sk->reply_ns : sk->end_ns;

		x->served++;
		x->work_ns += b > a ? b - a : 0;
		in = cli_rpc_work_in(s, j, k->begin_ns, k->end_ns);
	}
	x->wire_ns += rtt - (in < rtt ? in : rtt);
}

static void sum(const struct cli_rpc_hosts *h, struct by_cmd x[256], uint64_t *gen_steps)
{
	memset(x, 0, 256 * sizeof *x);
	for (size_t i = 0; i < h->rpc.n; i++) {
		const struct cli_rpc_conn *c = &h->rpc.conns[i];
		size_t hint = 0;

		for (size_t j = 0; c->side == GGMLVIZ_RPC_CLIENT && j < c->n; j++)
			add(&x[c->c[j].cmd], &c->c[j], h->conn_server[i], served_at(h, i, &c->c[j], &hint));
	}
	*gen_steps = 0;
	for (size_t i = 0; i < h->n_steps; i++)
		*gen_steps += h->steps[i].phase == GGMLVIZ_PHASE_GENERATION;
}

/* The commands a generation step sends, of kind cmd, on average. */
static double per_gen_step(const struct cli_rpc_hosts *h, uint8_t cmd, uint64_t gen_steps)
{
	uint64_t n = 0;

	for (size_t i = 0; gen_steps && i < h->rpc.n; i++) {
		const struct cli_rpc_conn *c = &h->rpc.conns[i];

		for (size_t j = 0, s = 0; c->side == GGMLVIZ_RPC_CLIENT && j < c->n; j++) {
			while (s < h->n_steps && (h->steps[s].pid != c->pid || h->steps[s].end_ns < c->c[j].begin_ns))
				s++;
			n += s < h->n_steps && c->c[j].cmd == cmd && h->steps[s].begin_ns <= c->c[j].begin_ns &&
			     h->steps[s].phase == GGMLVIZ_PHASE_GENERATION;
		}
	}
	return gen_steps ? (double)n / (double)gen_steps : 0.0;
}

void cli_rpc_commands_text(struct cli_out *o, const char *path, const struct cli_rpc_hosts *h)
{
	static const char *const head[] = { "COMMAND", "COUNT", "FAILED", "ROUND TRIPS", "SERVER",
					     "WIRE", "SENT", "RECEIVED", "PER GEN STEP", NULL };
	struct by_cmd x[256];
	uint64_t gen;
	struct cli_table t;
	char b[6][32], nb[16];

	sum(h, x, &gen);
	cli_out_printf(o, "%s: %" PRIu64 " commands of GGML's RPC protocol sent by clients\n", path,
		       cli_rpc_commands(&h->rpc, GGMLVIZ_RPC_CLIENT));
	cli_table_init(&t, 9);
	for (const char *const *c = head; *c; c++)
		cli_table_add(&t, "%s", *c);
	for (unsigned k = 0; k < 256; k++) {
		if (!x[k].count)
			continue;
		cli_table_add(&t, "%s", cli_rpc_cmd_name((uint8_t)k, nb));
		cli_table_add(&t, "%" PRIu64, x[k].count);
		cli_table_add(&t, "%" PRIu64, x[k].failed);
		cli_table_add(&t, "%s", cli_fmt_ns((double)x[k].rtt_ns, b[0]));
		cli_table_add(&t, "%s", x[k].served ? cli_fmt_ns((double)x[k].work_ns, b[1]) : "-");
		cli_table_add(&t, "%s", cli_fmt_ns((double)x[k].wire_ns, b[2]));
		cli_table_add(&t, "%s", cli_fmt_bytes(x[k].bytes_out, b[3]));
		cli_table_add(&t, "%s", cli_fmt_bytes(x[k].bytes_in, b[4]));
		cli_table_add(&t, "%.2f", per_gen_step(h, (uint8_t)k, gen));
	}
	cli_table_print(&t, o, "");
	cli_table_free(&t);
	cli_out_str(o, "(ROUND TRIPS: each command on the client's clock, from its request's send to"
		       " its reply's arrival, or its request sent when it has no reply; SERVER: the"
		       " servers' work on them (a merged server trace's); WIRE: the round trips less the"
		       " servers' work inside them (on that command, or on those before it that it waited"
		       " for); PER GEN STEP: sent by a generation step, on average)\n");
}

void cli_rpc_commands_json(struct cli_out *o, const char *path, const struct cli_rpc_hosts *h)
{
	struct by_cmd x[256];
	uint64_t gen;
	bool first = true;
	char nb[16];

	sum(h, x, &gen);
	cli_out_str(o, "{\"file\":");
	cli_json_cstr(o, path);
	cli_out_printf(o, ",\"by\":\"command\",\"generation_steps\":%" PRIu64 ",\"commands\":[", gen);
	for (unsigned k = 0; k < 256; k++) {
		if (!x[k].count)
			continue;
		cli_out_printf(o, "%s{\"command\":\"%s\",\"cmd\":%u,\"count\":%" PRIu64 ",\"failed\":%" PRIu64
			       ",\"served\":%" PRIu64 ",\"replied\":%" PRIu64 ",\"round_trip_ns\":%" PRIu64
			       ",\"server_ns\":%" PRIu64 ",\"wire_ns\":%" PRIu64 ",\"bytes_out\":%" PRIu64
			       ",\"bytes_in\":%" PRIu64 ",\"per_generation_step\":%.3f}", first ? "" : ",",
			       cli_rpc_cmd_name((uint8_t)k, nb), k, x[k].count, x[k].failed, x[k].served,
			       x[k].replied, x[k].rtt_ns, x[k].work_ns, x[k].wire_ns, x[k].bytes_out,
			       x[k].bytes_in, per_gen_step(h, (uint8_t)k, gen));
		first = false;
	}
	cli_out_str(o, "]}\n");
}
