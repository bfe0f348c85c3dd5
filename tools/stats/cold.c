/*
 * A first step that ran cold, told apart from its first layer's work
 * (stats --by layer, the report's health). The first graph a process
 * computes touches its compute buffer for the first time (each page a
 * fault, on a fresh machine a slow one) and wakes its threads for the
 * first time: its first ops take longer, and in a table by layer that is
 * all layer 0's. So the op time of each layer is kept apart for the
 * trace's first step and for every later one; where the first layer took
 * a far larger part of the first step than of the later steps, it is said.
 * A layer that is always dearer (a dense first layer before experts) takes
 * the same part of every step, and is not.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "stats/stats.h"
#include "output/output.h"

/* Said where the first layer's part of the first step is this many times its later part ... */
#define COLD_RATIO 1.5
/* ... and the time above its later part is at least this part of the first step's layers' time. */
#define COLD_EXCESS 0.05

void cli_cold_add(struct cli_cold *c, const struct ggmlviz_timing *t)
{
	if (t->kind != GGMLVIZ_TIMING_OP || !t->step_seq || t->layer < 0 ||
	    t->layer >= CLI_COLD_LAYERS)
		return;
	if (!c->first_step) { /* timings come as their steps do: the first op's is the first */
		c->first_step = t->step_seq;
		c->first_phase = t->phase;
	}
	if (t->step_seq == c->first_step)
		c->first[t->layer] += t->duration_ns;
	else if (t->step_seq > c->first_step)
		c->later[t->layer] += t->duration_ns;
}

/* The first layer with ops in the first step, how many have some, and their sums. */
static int first_layer(const struct cli_cold *c, uint64_t *first_ns, uint64_t *later_ns)
{
	int layer = -1, n = 0;

	*first_ns = *later_ns = 0;
	for (int l = 0; l < CLI_COLD_LAYERS; l++) {
		*first_ns += c->first[l], *later_ns += c->later[l];
		if (!c->first[l])
			continue;
		n++;
		if (layer < 0)
			layer = l;
	}
	return n >= 3 ? layer : -1; /* a part of fewer layers says nothing */
}

bool cli_cold_find(const struct cli_agg *a, struct cli_cold_found *f)
{
	const struct cli_cold *c = &a->cold;
	uint64_t first_ns, later_ns;
	int l = first_layer(c, &first_ns, &later_ns);
	double excess;

	if (l < 0 || !c->later[l] || (a->phase && a->phase != c->first_phase) ||
	    !cli_steps_has(&a->step_range, c->first_step))
		return false; /* not there, or not in the view */
	f->step = c->first_step;
	f->layer = (uint32_t)l;
	f->ns = c->first[l];
	f->layers_ns = first_ns;
	f->share = (double)f->ns / (double)first_ns;
	f->later_share = (double)c->later[l] / (double)later_ns;
	excess = (double)f->ns - f->later_share * (double)first_ns;
	f->excess_ns = excess > 0 ? (uint64_t)excess : 0; /* a negative one is not cast */
	return f->share >= COLD_RATIO * f->later_share && excess >= COLD_EXCESS * (double)first_ns;
}

void cli_cold_text(struct cli_out *o, const struct cli_cold_found *f)
{
	char ns[32], excess[32];

	cli_out_printf(o, "(layer %u took %.1f%% of the op time of step %llu, the first (%s), and "
		       "%.1f%% of the later steps': %s more than that part, most likely the first "
		       "step running cold (its buffers touched, its threads woken for the first "
		       "time), which this table counts against layer %u; the later steps show the "
		       "layers warm: --steps %llu- leaves it out)\n", f->layer, 100 * f->share,
		       (unsigned long long)f->step, cli_fmt_ns((double)f->ns, ns),
		       100 * f->later_share, cli_fmt_ns((double)f->excess_ns, excess), f->layer,
		       (unsigned long long)f->step + 1);
}

void cli_cold_json(struct cli_out *o, const struct cli_agg *a)
{
	struct cli_cold_found f;

	cli_out_str(o, ",\"cold_first_step\":");
	if (!cli_cold_find(a, &f)) {
		cli_out_str(o, "null");
		return;
	}
	cli_out_printf(o, "{\"step\":%llu,\"layer\":%u,\"ns\":", (unsigned long long)f.step,
		       f.layer);
	cli_out_u64(o, f.ns);
	cli_out_str(o, ",\"layers_ns\":");
	cli_out_u64(o, f.layers_ns);
	cli_out_str(o, ",\"share\":");
	cli_json_double(o, f.share);
	cli_out_str(o, ",\"later_share\":");
	cli_json_double(o, f.later_share);
	cli_out_str(o, ",\"excess_ns\":");
	cli_out_u64(o, f.excess_ns);
	cli_out_char(o, '}');
}
