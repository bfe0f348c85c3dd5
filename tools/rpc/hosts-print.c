/*
 * stats --by host and --by command over GGML's RPC (see rpc.h, hosts.c):
 * each phase's steps by host, per token for generation and per step for
 * the others, with what the figures leave unaccounted; and the commands by
 * kind, over the whole trace. Text or JSON (the JSON also step by step).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "input/input.h"
#include "rpc/rpc.h"

/* A phase's steps summed, by host. */
struct phase_sum {
	uint64_t steps, tokens, time_ns, client_ns, client_ops_ns;
	int64_t unaccounted_ns;
	struct cli_rpc_cell h[CLI_RPC_HOSTS];
};

static void cell_add(struct cli_rpc_cell *into, const struct cli_rpc_cell *c)
{
	into->inflight_ns += c->inflight_ns, into->compute_ns += c->compute_ns;
	into->wire_ns += c->wire_ns, into->outside_ns += c->outside_ns;
	into->bytes_out += c->bytes_out, into->bytes_in += c->bytes_in;
	into->commands += c->commands, into->round_trips += c->round_trips, into->failed += c->failed;
}

static void sum_phases(const struct cli_rpc_hosts *h, struct phase_sum p[CLI_PHASES])
{
	memset(p, 0, CLI_PHASES * sizeof *p);
	for (size_t i = 0; i < h->n_steps; i++) {
		const struct cli_rpc_step *s = &h->steps[i];
		struct phase_sum *x = &p[s->phase < CLI_PHASES ? s->phase : 0];

		x->steps++, x->tokens += s->n_tokens, x->time_ns += s->span_end_ns - s->begin_ns;
		x->client_ns += s->client_ns, x->client_ops_ns += s->client_ops_ns;
		x->unaccounted_ns += s->unaccounted_ns;
		for (size_t k = 1; k < h->n_hosts; k++)
			cell_add(&x->h[k], &cli_rpc_cells(h, i)[k]);
	}
}

/* A host's name as the tables show it: "client", or its endpoint and process. */
static const char *host_name(const struct cli_rpc_hosts *h, size_t k, char *buf, size_t size)
{
	const struct cli_rpc_proc *p;

	if (k == 0)
		return "client";
	p = cli_rpc_proc_of(&h->rpc, h->hosts[k].pid);
	if (p && h->hosts[k].pid)
		snprintf(buf, size, "%s (pid %" PRIu64 ")", h->hosts[k].name, p->pid);
	else
		snprintf(buf, size, "%s (no trace)", h->hosts[k].name);
	return buf;
}

/* ---- text ---- */

static void text_cell_ns(struct cli_table *t, double ns)
{
	char b[32];

	cli_table_add(t, "%s", cli_fmt_ns(ns, b));
}

static void text_host_row(struct cli_table *t, const struct cli_rpc_hosts *h, size_t k,
			  const struct phase_sum *x, double per)
{
	const struct cli_rpc_cell *c = &x->h[k];
	char name[128], b[2][32];

	cli_table_add(t, "%s", host_name(h, k, name, sizeof name));
	if (k == 0) {
		text_cell_ns(t, (double)x->client_ns / per);
		text_cell_ns(t, (double)x->client_ops_ns / per);
		for (int i = 0; i < 5; i++)
			cli_table_add(t, "-");
		return;
	}
	text_cell_ns(t, (double)c->compute_ns / per);
	cli_table_add(t, "-");
	text_cell_ns(t, (double)c->wire_ns / per);
	cli_table_add(t, "%s", cli_fmt_bytes((uint64_t)((double)c->bytes_out / per), b[0]));
	cli_table_add(t, "%s", cli_fmt_bytes((uint64_t)((double)c->bytes_in / per), b[1]));
	cli_table_add(t, "%.1f", (double)c->commands / per);
	cli_table_add(t, "%.1f", (double)c->round_trips / per);
}

static void text_phase(struct cli_out *o, const struct cli_rpc_hosts *h, uint32_t phase,
		       const struct phase_sum *x)
{
	static const char *const head[] = { "HOST", "TIME", "OPS", "WIRE", "SENT", "RECEIVED",
					     "COMMANDS", "ROUND TRIPS", NULL };
	bool gen = phase == GGMLVIZ_PHASE_GENERATION && x->tokens;
	double per = gen ? (double)x->tokens : (double)x->steps;
	uint64_t compute = 0, wire = 0;
	struct cli_table t;
	char b[5][32];

	cli_out_printf(o, "\n%s: %" PRIu64 " steps, %" PRIu64 " tokens; %s:\n", cli_phase_name(phase),
		       x->steps, x->tokens, gen ? "per token" : "per step");
	cli_table_init(&t, 8);
	for (const char *const *c = head; *c; c++)
		cli_table_add(&t, "%s", *c);
	for (size_t k = 0; k < h->n_hosts; k++) {
		text_host_row(&t, h, k, x, per);
		compute += x->h[k].compute_ns, wire += x->h[k].wire_ns;
	}
	cli_table_print(&t, o, "");
	cli_table_free(&t);
	cli_out_printf(o, "= %s a %s: client %s, servers' work %s, wire %s; unaccounted %s%s (%+.1f%%)\n",
		       cli_fmt_ns((double)x->time_ns / per, b[0]), gen ? "token" : "step",
		       cli_fmt_ns((double)x->client_ns / per, b[1]), cli_fmt_ns((double)compute / per, b[2]),
		       cli_fmt_ns((double)wire / per, b[3]), x->unaccounted_ns < 0 ? "-" : "+",
		       cli_fmt_ns((double)(x->unaccounted_ns < 0 ? -x->unaccounted_ns : x->unaccounted_ns) / per,
				  b[4]),
		       x->time_ns ? 100.0 * (double)x->unaccounted_ns / (double)x->time_ns : 0.0);
}

static void text_hosts_line(struct cli_out *o, const struct cli_rpc_hosts *h)
{
	for (size_t k = 1; k < h->n_hosts; k++) {
		const struct cli_rpc_proc *p = cli_rpc_proc_of(&h->rpc, h->hosts[k].pid);
		char name[128];

		cli_out_printf(o, "  %s: %s\n", host_name(h, k, name, sizeof name),
			       !p ? "no server trace merged: its work is not known, its time in flight is wire"
			       : p->clocked ? p->clock_words : "its clock not aligned (merge aligns it)");
	}
}

void cli_rpc_hosts_text(struct cli_out *o, const char *path, const struct cli_rpc_hosts *h)
{
	struct phase_sum p[CLI_PHASES];

	cli_out_printf(o, "%s: %zu steps, %zu server%s of GGML's RPC\n", path, h->n_steps,
		       h->n_hosts - 1, h->n_hosts == 2 ? "" : "s");
	if (h->n_hosts < 2 || !h->n_steps) {
		cli_out_str(o, "(no step sent a command of GGML's RPC protocol: a client built by"
			       " scripts/build-llama-tools.sh --rpc and run with --rpc records them;"
			       " merge its servers' traces in with ggmlviz merge)\n");
		return;
	}
	text_hosts_line(o, h);
	sum_phases(h, p);
	for (uint32_t ph = 0; ph < CLI_PHASES; ph++)
		if (p[ph].steps)
			text_phase(o, h, ph, &p[ph]);
	cli_out_str(o, "\n(a step from its begin to the end of the last command it sent, which GGML's"
		       " dispatcher may send on after llama_decode() returns; TIME: the client's time"
		       " outside every command in flight, and a server's"
		       " work on its commands, from its request read whole to its reply begun; OPS: the"
		       " client's own ops in its time; WIRE: a server's commands in flight on the"
		       " client's clock, less its work in them; SENT, RECEIVED: the client's bytes"
		       " each way; ROUND TRIPS: commands whose reply the client waited for;"
		       " unaccounted: what the hosts' figures add up to over the steps' time, as where"
		       " a server's work lies outside its commands in flight)\n");
}

/* ---- JSON ---- */

static void json_cell(struct cli_out *o, const struct cli_rpc_cell *c)
{
	cli_out_printf(o, "{\"compute_ns\":%" PRIu64 ",\"wire_ns\":%" PRIu64 ",\"inflight_ns\":%" PRIu64
		       ",\"outside_ns\":%" PRIu64 ",\"bytes_out\":%" PRIu64 ",\"bytes_in\":%" PRIu64
		       ",\"commands\":%" PRIu64 ",\"round_trips\":%" PRIu64 ",\"failed\":%" PRIu64 "}",
		       c->compute_ns, c->wire_ns, c->inflight_ns, c->outside_ns, c->bytes_out, c->bytes_in,
		       c->commands, c->round_trips, c->failed);
}

static void json_cells(struct cli_out *o, const struct cli_rpc_hosts *h, const struct cli_rpc_cell *c)
{
	cli_out_str(o, ",\"hosts\":[");
	for (size_t k = 1; k < h->n_hosts; k++) {
		if (k > 1)
			cli_out_char(o, ',');
		json_cell(o, &c[k]);
	}
	cli_out_char(o, ']');
}

static void json_hosts(struct cli_out *o, const struct cli_rpc_hosts *h)
{
	cli_out_str(o, ",\"hosts\":[");
	for (size_t k = 1; k < h->n_hosts; k++) {
		const struct cli_rpc_proc *p = cli_rpc_proc_of(&h->rpc, h->hosts[k].pid);

		cli_out_str(o, k > 1 ? ",{\"host\":" : "{\"host\":");
		cli_json_cstr(o, h->hosts[k].name);
		cli_out_printf(o, ",\"pid\":%" PRIu64 ",\"traced\":%s,\"aligned\":%s", h->hosts[k].pid,
			       p ? "true" : "false", p && p->clocked ? "true" : "false");
		if (p && p->clocked)
			cli_out_printf(o, ",\"clock_offset_ns\":%" PRId64 ",\"clock_uncertainty_ns\":%" PRIu64,
				       p->offset_ns, p->uncertainty_ns);
		cli_out_char(o, '}');
	}
	cli_out_char(o, ']');
}

static void json_step(struct cli_out *o, const struct cli_rpc_hosts *h, size_t i)
{
	const struct cli_rpc_step *s = &h->steps[i];

	cli_out_printf(o, "{\"step\":%" PRIu64 ",\"pid\":%" PRIu64 ",\"phase\":\"%s\",\"n_tokens\":%" PRIu32
		       ",\"begin_ns\":%" PRIu64 ",\"time_ns\":%" PRIu64 ",\"decode_ns\":%" PRIu64
		       ",\"client_ns\":%" PRIu64 ",\"client_ops_ns\":%" PRIu64 ",\"inflight_ns\":%" PRIu64
		       ",\"unaccounted_ns\":%" PRId64, s->seq, s->pid, cli_phase_name(s->phase), s->n_tokens,
		       s->begin_ns, s->span_end_ns - s->begin_ns, s->end_ns - s->begin_ns, s->client_ns,
		       s->client_ops_ns, s->inflight_ns, s->unaccounted_ns);
	json_cells(o, h, cli_rpc_cells(h, i));
	cli_out_char(o, '}');
}

void cli_rpc_hosts_json(struct cli_out *o, const char *path, const struct cli_rpc_hosts *h)
{
	struct phase_sum p[CLI_PHASES];
	bool first = true;

	sum_phases(h, p);
	cli_out_str(o, "{\"file\":");
	cli_json_cstr(o, path);
	cli_out_str(o, ",\"by\":\"host\"");
	json_hosts(o, h);
	cli_out_str(o, ",\"phases\":[");
	for (uint32_t ph = 0; ph < CLI_PHASES; ph++) {
		if (!p[ph].steps)
			continue;
		cli_out_printf(o, "%s{\"phase\":\"%s\",\"steps\":%" PRIu64 ",\"tokens\":%" PRIu64
			       ",\"time_ns\":%" PRIu64 ",\"client_ns\":%" PRIu64 ",\"client_ops_ns\":%" PRIu64
			       ",\"unaccounted_ns\":%" PRId64, first ? "" : ",", cli_phase_name(ph), p[ph].steps,
			       p[ph].tokens, p[ph].time_ns, p[ph].client_ns, p[ph].client_ops_ns,
			       p[ph].unaccounted_ns);
		json_cells(o, h, p[ph].h);
		cli_out_char(o, '}');
		first = false;
	}
	cli_out_str(o, "],\"steps\":[");
	for (size_t i = 0; i < h->n_steps; i++) {
		if (i)
			cli_out_char(o, ',');
		json_step(o, h, i);
	}
	cli_out_str(o, "]}\n");
}
