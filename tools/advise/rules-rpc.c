/*
 * The rules on GGML's RPC (advise.h): a run whose steps wait on the
 * network more than they compute, and the round trips each step waits
 * for. They read where each step's time went by host (tools/rpc/hosts.c),
 * from a client's trace its servers' traces were merged into (ggmlviz
 * merge): without the servers' work the wire cannot be told from it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "advise/advise.h"

#define ROUND_TRIP_SHARE 0.20 /* the round trips' floor a share of the step's time this large */

/* The steps weighed (generation's, else all) summed. */
struct rpc_sum {
	uint64_t steps, tokens, time_ns, client_ops_ns, work_ns, wire_ns, round_trips;
	uint64_t bytes_out, bytes_in, floor_ns; /* floor: round trips times their host's tightest */
	bool gen, untraced;                     /* a host without its server's trace */
};

static void sum_steps(const struct cli_rpc_hosts *h, struct rpc_sum *s)
{
	*s = (struct rpc_sum){ 0 };
	for (size_t i = 0; i < h->n_steps; i++)
		s->gen |= h->steps[i].phase == GGMLVIZ_PHASE_GENERATION;
	for (size_t i = 0; i < h->n_steps; i++) {
		const struct cli_rpc_step *st = &h->steps[i];

		if (s->gen && st->phase != GGMLVIZ_PHASE_GENERATION)
			continue;
		s->steps++, s->tokens += st->n_tokens, s->time_ns += st->end_ns - st->begin_ns;
		s->client_ops_ns += st->client_ops_ns;
		for (size_t k = 1; k < h->n_hosts; k++) {
			const struct cli_rpc_cell *c = &cli_rpc_cells(h, i)[k];

			s->work_ns += c->compute_ns, s->wire_ns += c->wire_ns, s->round_trips += c->round_trips;
			s->bytes_out += c->bytes_out, s->bytes_in += c->bytes_in;
			s->floor_ns += c->round_trips * h->hosts[k].min_round_trip_ns;
		}
	}
	for (size_t k = 1; k < h->n_hosts; k++)
		s->untraced |= !h->hosts[k].pid;
}

/* Whether the rule can weigh the run; said why not where it cannot. */
static bool weighable(const struct cli_facts *f, struct cli_advice *a, const char *id,
		      const struct rpc_sum *s)
{
	if (!f->has_rpc) {
		cli_advise_not(a, id, "no step sent a command of GGML's RPC protocol (a client of"
			       " scripts/build-llama-tools.sh --rpc records them)");
		return false;
	}
	if (s->untraced) {
		cli_advise_not(a, id, "a server's trace is not merged in: its work cannot be told"
			       " from the wire (ggmlviz merge CLIENT SERVER... -o ALL)");
		return false;
	}
	if (!s->steps || !s->time_ns) {
		cli_advise_not(a, id, "no step timed");
		return false;
	}
	return true;
}

static const char *per_what(const struct rpc_sum *s)
{
	return s->gen && s->tokens ? "token" : "step";
}

static double per(const struct rpc_sum *s, uint64_t v)
{
	return (double)v / (double)(s->gen && s->tokens ? s->tokens : s->steps);
}

static void network_bound(const struct cli_facts *f, struct cli_advice *a, const struct rpc_sum *s)
{
	static const char id[] = "rpc-network-bound";
	uint64_t compute = s->client_ops_ns + s->work_ns;
	struct cli_finding *x;
	char b[5][32];

	if (!weighable(f, a, id, s))
		return;
	if (s->wire_ns <= compute) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "the %s steps wait on the network more than they compute:"
		 " the wire %.0f%% of their time", s->gen ? "generation" : "", 100.0 * (double)s->wire_ns /
		 (double)s->time_ns);
	snprintf(x->seen, sizeof x->seen, "%" PRIu64 " steps, a %s of %s: on the wire %s, computing %s"
		 " (the client's ops %s, the servers' work %s); %.1f round trips, %s sent and %s"
		 " received a %s (stats --by host)", s->steps, per_what(s),
		 cli_fmt_ns(per(s, s->time_ns), b[0]), cli_fmt_ns(per(s, s->wire_ns), b[1]),
		 cli_fmt_ns(per(s, compute), b[2]), cli_fmt_ns(per(s, s->client_ops_ns), b[3]),
		 cli_fmt_ns(per(s, s->work_ns), b[4]), per(s, s->round_trips),
		 cli_fmt_bytes((uint64_t)per(s, s->bytes_out), b[0]),
		 cli_fmt_bytes((uint64_t)per(s, s->bytes_in), b[1]), per_what(s));
	snprintf(x->threshold, sizeof x->threshold, "the wire (the commands in flight less the"
		 " servers' work in them) longer than the compute (the client's ops and the servers'"
		 " work)");
	x->why = "a step of a model split over hosts moves its activations from host to host and"
		 " waits for each transfer: each hop costs the link's round trip and its bytes' time,"
		 " whatever the hosts compute";
	snprintf(x->to_try, sizeof x->to_try, "fewer, larger transfers: larger batches (-b, -ub; in"
		 " a server, more requests decoded together), so that one round trip carries more"
		 " tokens; the layer split: consecutive layers on one host (-sm layer, --tensor-split"
		 " to give each host one block of layers), or the model on fewer hosts; a faster link"
		 " (hosts on one switch, a faster NIC, RDMA where GGML_RPC_RDMA is built)");
	cli_advise_figure(x, "steps", (double)s->steps);
	cli_advise_figure(x, "wire_share", (double)s->wire_ns / (double)s->time_ns);
	cli_advise_figure(x, "wire_ns", (double)s->wire_ns);
	cli_advise_figure(x, "compute_ns", (double)compute);
	cli_advise_figure(x, "round_trips_per_step", (double)s->round_trips / (double)s->steps);
}

static void round_trips(const struct cli_facts *f, struct cli_advice *a, const struct rpc_sum *s)
{
	static const char id[] = "rpc-round-trips";
	double share;
	struct cli_finding *x;
	char b[3][32];

	if (!weighable(f, a, id, s))
		return;
	share = (double)s->floor_ns / (double)s->time_ns;
	if (!s->round_trips || share < ROUND_TRIP_SHARE) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "%.1f synchronous round trips a step, %.0f%% of its time"
		 " at the link's fastest", (double)s->round_trips / (double)s->steps, 100 * share);
	snprintf(x->seen, sizeof x->seen, "%" PRIu64 " steps waited for %" PRIu64 " replies of their"
		 " servers (%.1f a step, stats --by command says which commands); each round trip"
		 " took at least the link's fastest, %s a step in all, of %s a step",
		 s->steps, s->round_trips, (double)s->round_trips / (double)s->steps,
		 cli_fmt_ns((double)s->floor_ns / (double)s->steps, b[0]),
		 cli_fmt_ns((double)s->time_ns / (double)s->steps, b[1]));
	snprintf(x->threshold, sizeof x->threshold, "the round trips a step waits for, each at its"
		 " host's tightest (a command's round trip less the server's work), %.0f%% of the"
		 " step's time or more", 100 * ROUND_TRIP_SHARE);
	x->why = "a command whose reply the client waits for (GET_TENSOR: the activations a next"
		 " host needs, the logits) stops the step for a whole round trip of the link; such"
		 " waits add up one after another, however fast the hosts compute";
	snprintf(x->to_try, sizeof x->to_try, "fewer hops: the model on fewer hosts, or the layer"
		 " split so that each host holds one block of consecutive layers (-sm layer,"
		 " --tensor-split); larger batches, so that one round trip serves more tokens; a link"
		 " of a shorter round trip (the same switch; RDMA where GGML_RPC_RDMA is built)");
	cli_advise_figure(x, "round_trips_per_step", (double)s->round_trips / (double)s->steps);
	cli_advise_figure(x, "floor_share", share);
	cli_advise_figure(x, "floor_ns_per_step", (double)s->floor_ns / (double)s->steps);
	(void)b;
}

void cli_rules_rpc(const struct cli_facts *f, struct cli_advice *a)
{
	struct rpc_sum s = { 0 };

	if (f->has_rpc)
		sum_steps(&f->rpc, &s);
	network_bound(f, a, &s);
	round_trips(f, a, &s);
}
