/*
 * The JSON of an aggregate of op timings, as stats --format json writes it
 * and the report embeds it: the totals, the groups in their order, the
 * runs of nodes by backend.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <math.h>

#include "stats/stats.h"
#include "input/input.h"
#include "output/output.h"

/* ,"key":v (every member but the first of an object). */
static void json_u64(struct cli_out *o, const char *key, uint64_t v)
{
	cli_out_printf(o, ",\"%s\":", key);
	cli_out_u64(o, v);
}

static void json_double(struct cli_out *o, const char *key, double v)
{
	cli_out_printf(o, ",\"%s\":", key);
	cli_json_double(o, v);
}

/* ,"step_range":{"first":F,"last":L} as --steps gave it (1, null: no bound), or null. */
static void step_range_json(struct cli_out *o, const struct cli_steps *s)
{
	if (!cli_steps_set(s)) {
		cli_out_str(o, ",\"step_range\":null");
		return;
	}
	cli_out_str(o, ",\"step_range\":{\"first\":");
	cli_out_u64(o, s->first ? s->first : 1);
	cli_out_str(o, ",\"last\":");
	if (s->last)
		cli_out_u64(o, s->last);
	else
		cli_out_str(o, "null");
	cli_out_char(o, '}');
}

/* The group's FLOP per byte, and what bounds it on the trace's machine (null where unknown). */
static void json_bound(struct cli_out *o, const struct cli_agg *a, const struct cli_group *g)
{
	double share;
	int bound = cli_roofline(g, &a->peak, &share);

	json_double(o, "intensity", g->bytes && g->flops_ns ? (double)g->flops / (double)g->bytes
							    : (double)NAN);
	cli_out_str(o, ",\"bound\":");
	cli_out_str(o, bound == CLI_BOUND_MEMORY ? "\"memory\"" : bound == CLI_BOUND_COMPUTE
										? "\"compute\""
										: "null");
	json_double(o, "peak_share", bound == CLI_BOUND_UNKNOWN ? (double)NAN : share);
}

static void json_group(struct cli_out *o, const struct cli_agg *a,
		       const struct cli_group *g)
{
	cli_out_str(o, "{\"name\":");
	cli_json_str(o, g->name, g->name_len);
	json_u64(o, "count", g->d.count);
	json_u64(o, "total_ns", g->d.total);
	json_double(o, "mean_ns", cli_group_mean(g));
	if (g->d.count && g->d.count == g->d.summed) { /* summed ops only: no one op's time */
		cli_out_str(o, ",\"min_ns\":null,\"p50_ns\":null,\"p95_ns\":null");
	} else {
		json_u64(o, "min_ns", g->d.min);
		json_u64(o, "p50_ns", g->p50);
		json_u64(o, "p95_ns", g->p95);
	}
	json_u64(o, "max_ns", g->d.max);
	json_double(o, "share", cli_group_share(a, g));
	json_double(o, "gflops", g->flops_ns ? cli_group_gflops(g) : (double)NAN);
	json_u64(o, "flops", g->flops);
	json_double(o, "gbps", g->bytes_ns ? cli_group_gbps(g) : (double)NAN);
	json_u64(o, "bytes", g->bytes);
	json_bound(o, a, g);
	json_u64(o, "run_start_ops", g->run_starts);
	json_u64(o, "summed", g->d.summed);
	json_u64(o, "run_start_ns", g->run_start_ns);
	json_u64(o, "barrier_wait_ns", g->wait_ns);
	json_u64(o, "above_floor_ns", g->above_ns);
	json_u64(o, "measured_ops", g->measured_ops);
	json_u64(o, "ticked_ops", g->ticked_ops);
	if (cli_by_steps(a->by))
		cli_steps_json(o, g);
	cli_out_char(o, '}');
}

void cli_agg_json(struct cli_out *o, const char *path, const struct cli_agg *a, uint64_t top)
{
	size_t n = top < a->n ? (size_t)top : a->n;

	cli_out_str(o, "{\"file\":");
	cli_json_cstr(o, path);
	cli_out_printf(o, ",\"by\":\"%s\"", cli_by_names[a->by]);
	if (a->phase)
		cli_out_printf(o, ",\"phase\":\"%s\"", cli_phase_name((uint32_t)a->phase));
	step_range_json(o, &a->step_range);
	json_u64(o, "ops", a->ops);
	json_u64(o, "graphs", a->graphs);
	json_u64(o, "op_ns", a->op_ns);
	json_u64(o, "summed_ops", a->summed);
	json_u64(o, "summed_ns", a->summed_ns);
	json_u64(o, "summed_not_grouped", a->summed_out);
	json_u64(o, "graph_ns", a->graph_ns);
	json_u64(o, "steps", a->steps);
	json_u64(o, "tokens", a->tokens);
	json_u64(o, "step_ns", a->step_ns);
	cli_window_json(o, a);
	json_u64(o, "span_ns", a->t_last > a->t_first ? a->t_last - a->t_first : 0);
	json_u64(o, "unmatched_ends", a->counts.unmatched_ends);
	json_u64(o, "unclosed_begins", a->counts.unclosed_begins);
	json_u64(o, "measured_ops", a->measured);
	json_u64(o, "shares", a->backends.shares);
	if (a->said.sessions)
		json_u64(o, "shares_unattributed", a->said.unattributed);
	cli_out_printf(o, ",\"ticks\":{\"estimated\":%s", a->ticks_estimated ? "true" : "false");
	json_u64(o, "run_starts", a->starts);
	json_u64(o, "run_start_ns", a->start_ns);
	json_u64(o, "first_ops_unsplit", a->ticks.unsplit);
	json_u64(o, "waits_moved", a->waits);
	json_u64(o, "wait_ns_moved", a->wait_ns);
	json_u64(o, "above_floor_ns", a->above_ns);
	json_u64(o, "lead", CLI_TICKS_LEAD);
	cli_out_printf(o, ",\"raw\":%s", a->raw_ticks ? "true" : "false");
	cli_out_char(o, '}');
	if (a->peak.known) {
		cli_out_printf(o, ",\"peak\":{\"threads\":%u", a->peak.threads);
		json_double(o, "bytes_per_s", a->peak.bytes_per_s);
		json_double(o, "flop_per_s", a->peak.flop_per_s);
		cli_out_str(o, ",\"how\":");
		cli_json_cstr(o, a->peak.how);
		cli_out_char(o, '}');
	} else {
		cli_out_str(o, ",\"peak\":null");
	}
	cli_out_str(o, ",\"quantile_max_relative_error\":0.015625,\"groups\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			cli_out_char(o, ',');
		json_group(o, a, a->sorted[i]);
	}
	cli_out_char(o, ']');
	json_u64(o, "groups_not_shown", a->n - n);
	cli_out_printf(o, ",\"op_names_assumed\":%s", a->names->assumed ? "true" : "false");
	if (a->by == CLI_BY_LAYER)
		cli_cold_json(o, a);
	if (a->by == CLI_BY_PART)
		cli_parts_json(o, a);
	cli_backends_json(o, &a->backends);
	if (a->mem && a->mem->any) {
		cli_out_str(o, ",\"memory\":");
		cli_mem_devices_json(o, a->mem);
	}
	if (a->extra_json)
		a->extra_json(o, a->extra_arg);
	cli_out_str(o, "}");
}
