/*
 * What stats shows of steps and splits (see steps.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "output/output.h"
#include "stats/stats.h"

static double per_token_ns(uint64_t ns, uint64_t tokens)
{
	return tokens ? (double)ns / (double)tokens : (double)NAN;
}

static double tokens_per_s(uint64_t ns, uint64_t tokens)
{
	return ns ? (double)tokens * 1e9 / (double)ns : (double)NAN;
}

static const char *const columns[] = { "STEPS", "TOKENS", "TIME", "PER TOKEN", "TOKENS/S",
				       "OPS", "OP TIME", "COVERED", NULL };

/* CONTEXT: the tokens in the context before the step (by phase: the most before any of its steps). */
static void context_cell(struct cli_table *t, const struct cli_group *g)
{
	if (g && g->has_context)
		cli_table_add(t, "%u", g->context_tokens);
	else
		cli_table_add(t, "-");
}

static void row(struct cli_table *t, const char *name, uint64_t steps, uint64_t tokens,
		uint64_t step_ns, uint64_t ops, uint64_t op_ns)
{
	char b[3][32];
	double per = per_token_ns(step_ns, tokens), rate = tokens_per_s(step_ns, tokens);

	cli_table_add(t, "%s", name);
	cli_table_add(t, "%llu", (unsigned long long)steps);
	cli_table_add(t, "%llu", (unsigned long long)tokens);
	cli_table_add(t, "%s", cli_fmt_ns((double)step_ns, b[0]));
	cli_table_add(t, "%s", isnan(per) ? "-" : cli_fmt_ns(per, b[1]));
	if (isnan(rate))
		cli_table_add(t, "-");
	else
		cli_table_add(t, "%.1f", rate);
	cli_table_add(t, "%llu", (unsigned long long)ops);
	cli_table_add(t, "%s", cli_fmt_ns((double)op_ns, b[2]));
	if (step_ns)
		cli_table_add(t, "%.1f%%", 100.0 * (double)op_ns / (double)step_ns);
	else
		cli_table_add(t, "-");
}

void cli_steps_text(struct cli_out *o, const struct cli_agg *a, uint64_t top)
{
	struct cli_table t;
	size_t n = top < a->n ? (size_t)top : a->n;

	cli_table_init(&t, a->has_context ? 10 : 9);
	cli_table_add(&t, "%s", a->by == CLI_BY_STEP ? "STEP" : "PHASE");
	for (const char *const *h = columns; *h; h++)
		cli_table_add(&t, "%s", *h);
	if (a->has_context)
		cli_table_add(&t, "CONTEXT");
	for (size_t i = 0; i < n; i++) {
		const struct cli_group *g = a->sorted[i];
		char *name = cli_text_dup(g->name, g->name_len);
		row(&t, name ? name : "?", g->steps, g->tokens, g->step_ns, g->d.count,
		    g->d.total);
		if (a->has_context)
			context_cell(&t, g);
		free(name);
	}
	if (a->n)
		row(&t, "TOTAL", a->steps, a->tokens, a->step_ns, a->ops, a->op_ns);
	if (a->n && a->has_context)
		context_cell(&t, NULL);
	cli_table_print(&t, o, "");
	cli_table_free(&t);
	cli_out_not_shown(o, a->n - n);
	cli_out_str(o, "(TIME: of the steps; PER TOKEN and TOKENS/S: step time over its tokens;"
		       " COVERED: the share of the steps' time that their op timings cover");
	cli_out_str(o, a->has_context ? "; CONTEXT: tokens already in the context before the step,"
					" the most before any step of the group)\n" : ")\n");
}

static void json_num(struct cli_out *o, const char *key, double v)
{
	cli_out_printf(o, ",\"%s\":", key);
	cli_json_double(o, v);
}

void cli_steps_json(struct cli_out *o, const struct cli_group *g)
{
	cli_out_printf(o, ",\"steps\":%llu,\"tokens\":%llu,\"step_ns\":%llu",
		       (unsigned long long)g->steps, (unsigned long long)g->tokens,
		       (unsigned long long)g->step_ns);
	json_num(o, "ns_per_token", per_token_ns(g->step_ns, g->tokens));
	json_num(o, "tokens_per_s", tokens_per_s(g->step_ns, g->tokens));
	cli_out_printf(o, ",\"phase\":\"%s\"", cli_phase_name(g->phase));
	if (g->has_context)
		cli_out_printf(o, ",\"context_tokens\":%u,\"context_cells\":%u,\"sequences\":%u",
			       g->context_tokens, g->context_cells, g->n_seqs);
	else
		cli_out_str(o, ",\"context_tokens\":null,\"context_cells\":null,\"sequences\":null");
}

