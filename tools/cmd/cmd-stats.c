/*
 * ggmlviz stats: the per-op timing table of a trace.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "rpc/rpc.h"
#include "advise/advise.h"
#include "cmd/commands.h"
#include "output/output.h"
#include "input/input.h"
#include "base/opts.h"

static const char help[] =
	"Usage: ggmlviz stats [OPTIONS] FILE\n"
	"\n"
	"Per-op timing table of a trace: for each group of ops, the count, total,\n"
	"mean, min, p50, p95 and max duration, the share of all op time, and the\n"
	"achieved GFLOP/s of the ops whose work the trace records (OP_INFO) and GB/s of\n"
	"those whose bytes it records (OP_BYTES: their sources and output).\n"
	"\n"
	"Options:\n"
	"  -b, --by KEY       group by op (default), name (tensor name), layer (as the\n"
	"                     trace records it, else the trailing -N of llama.cpp tensor\n"
	"                     names; others go to \"(none)\"), thread, backend, step\n"
	"                     (one group per llama_decode(): tokens, time per token),\n"
	"                     phase (prompt and generation), method (how the ops\n"
	"                     were timed: tick, measured, gpu, sync, unknown), kernel\n"
	"                     (the GPU kernels, by their function's name), sequence\n"
	"                     (each sequence of the batches, as llama-server's slots:\n"
	"                     its prompt and generated tokens, and its share of its\n"
	"                     steps' time, by tokens; text or JSON), request (each\n"
	"                     request to llama-server: its wait in the queue, its\n"
	"                     prompt's time, its time to the first token, per\n"
	"                     generated token and in all, with their p50, p95 and\n"
	"                     p99; text or JSON), or part (each op in its part of a\n"
	"                     llama.cpp or whisper.cpp model: attention, ffn,\n"
	"                     kv-cache-write, ..., as ggmlviz(1) lists them, or\n"
	"                     (other); then each layer by part), host or command\n"
	"                     (GGML's RPC: doc/rpc.md)\n"
	"  -s, --sort KEY     total (default), count, mean, min, max, p50, p95, gflops,\n"
	"                     gbps (biggest first), name, or order (layer 0, 1, ...;\n"
	"                     step 1, ...; requests as they arrived: the default by\n"
	"                     layer, step, phase, request and sequence without --top);\n"
	"                     total is TIME by step, phase and sequence, TOTAL by request\n"
	"  -n, --top N        show the N biggest groups only (by total unless --sort\n"
	"                     says otherwise, whatever --by): the 5 slowest steps\n"
	"  -p, --phase PHASE  only the steps of prompt or generation, and the ops in\n"
	"                     them (all: the default); with tokens, each group's time\n"
	"                     per token of that phase (PER TOKEN)\n"
	"  -S, --steps A-B    only steps A to B (as --by step numbers them; A- from A\n"
	"                     on, -B up to B, A alone) and the ops in them: 2- leaves\n"
	"                     out a first step that ran cold, or a warm-up\n"
	"  -f, --format FMT   text (default), csv or json; csv and json give times as\n"
	"                     integer nanoseconds and the share as a fraction\n"
	CLI_RAW_TICKS_HELP
	CLI_AS_TICKS_HELP
	"  -h, --help         show this help\n"
	"\n"
	"Count, total, mean, min and max are exact. p50 and p95 come from a\n"
	"log-bucketed histogram (32 buckets per power of two) that keeps memory\n"
	"constant: they are within 1/64 (1.6%) of the exact percentile (nearest rank),\n"
	"and exact below 64 ns. Memory grows with the number of groups, never with\n"
	"the number of events.\n"
	"\n"
	"Exit status: 0 success, 1 damaged or unreadable trace (the records before the\n"
	"damage are used), 2 bad command line.\n";

static int option(void *ctx, int c, char *arg)
{
	return cli_group_option("stats", ctx, c, arg, cli_sort_names);
}

static const struct option longopts[] = { CLI_GROUP_LONGOPTS, { NULL, 0, NULL, 0 } };

static const struct cli_cmd cmd = { "stats", help, CLI_GROUP_SHORTOPTS, longopts, 1, 1,
					 option };

static size_t shown_of(size_t n, uint64_t top)
{
	return top < n ? (size_t)top : n;
}

static size_t shown(const struct cli_agg *a, uint64_t top)
{
	return shown_of(a->n, top);
}

static const char *const columns[] = { "COUNT", "TOTAL", "MEAN", "MIN", "P50",
				       "P95", "MAX", "SHARE", "GFLOP/S", "GB/S", NULL };

/* With --phase and its tokens, a PER TOKEN column after TOTAL: a group's time per token of that phase. */
/* The last column: WAIT by thread where workers' shares were measured, TIMED where some op was. */
enum extra { EXTRA_NONE, EXTRA_WAIT, EXTRA_TIMED };

static enum extra extra_of(const struct cli_agg *a)
{
	if (a->by == CLI_BY_THREAD && a->backends.shares)
		return EXTRA_WAIT;
	return a->measured && a->by != CLI_BY_METHOD ? EXTRA_TIMED : EXTRA_NONE;
}

/* How a group's ops were timed, in a word. */
static const char *timed_word(const struct cli_agg *a, const struct cli_group *g)
{
	if (g->measured_ops && g->ticked_ops)
		return "mixed";
	if (g->measured_ops)
		return "measured";
	if (g->ticked_ops)
		return a->ticks_estimated ? "estimated" : "ticked";
	return "-";
}

static void text_header(struct cli_table *t, int by, int per_token, bool peak)
{
	char title[16];
	size_t i;

	for (i = 0; cli_by_names[by][i] && i + 1 < sizeof title; i++)
		title[i] = (char)toupper((unsigned char)cli_by_names[by][i]);
	title[i] = '\0';
	cli_table_add(t, "%s", title);
	for (const char *const *h = columns; *h; h++) {
		cli_table_add(t, "%s", *h);
		if (per_token && !strcmp(*h, "TOTAL"))
			cli_table_add(t, "PER TOKEN");
	}
	if (peak)
		cli_table_add(t, "BOUND");
}

/* Whether some op was timed by the CPU backend's ticks. */
static bool ticked(const struct cli_agg *a)
{
	for (size_t i = 0; i < a->backends.n; i++)
		if (a->backends.s[i].ops[GGMLVIZ_OP_METHOD_TICK])
			return true;
	return false;
}

/*
 * The ops that began a CPU run: what their time holds besides their work,
 * and the groups that hold most of them.
 */
/* The (at most) 3 groups of a with the most of value, the most first; the others NULL. */
static void top3(const struct cli_agg *a, uint64_t (*value)(const struct cli_group *),
		 const struct cli_group *top[3])
{
	top[0] = top[1] = top[2] = NULL;
	for (size_t i = 0; i < a->n; i++) {
		const struct cli_group *g = a->sorted[i];
		for (int k = 0; k < 3 && value(g); k++)
			if (!top[k] || value(g) > value(top[k])) {
				memmove(&top[k + 1], &top[k], (size_t)(2 - k) * sizeof top[0]);
				top[k] = g;
				break;
			}
	}
}

static uint64_t run_start_ns(const struct cli_group *g)
{
	return g->run_starts ? g->run_start_ns : 0;
}

static uint64_t wait_ns(const struct cli_group *g)
{
	return g->wait_ns;
}

static void run_start_note(struct cli_out *o, const struct cli_agg *a)
{
	const struct cli_group *top[3];
	char b[32];

	top3(a, run_start_ns, top);
	cli_out_printf(o, "(%llu ops began a CPU run: their time also holds the run's start, GGML's"
		       " graph plan and its worker threads made or woken, %s in all (",
		       (unsigned long long)a->run_starts, cli_fmt_ns((double)a->run_start_ns, b));
	for (int k = 0; k < 3 && top[k]; k++) {
		cli_out_str(o, k ? ", " : "");
		cli_text_str(o, top[k]->name, top[k]->name_len);
		cli_out_printf(o, " %llu of %llu", (unsigned long long)top[k]->run_starts,
			       (unsigned long long)top[k]->d.count);
	}
	cli_out_str(o, "); a program that attaches a threadpool to its context, as llama.cpp's"
		       " tools do, starts its runs without making threads)\n");
}

/* The groups into which most barrier wait was moved, in words. */
static void wait_tops(struct cli_out *o, const struct cli_agg *a)
{
	const struct cli_group *top[3];
	char b[32];

	top3(a, wait_ns, top);
	for (int k = 0; k < 3 && top[k]; k++) {
		cli_out_str(o, k ? ", " : " (");
		cli_text_str(o, top[k]->name, top[k]->name_len);
		cli_out_printf(o, " %s", cli_fmt_ns((double)top[k]->wait_ns, b));
	}
	if (top[0])
		cli_out_char(o, ')');
}

/* How the ops timed by ticks were read: estimated (ticks.h), or as ticked and why. */
static void ticks_notes(struct cli_out *o, const struct cli_agg *a)
{
	const struct cli_ticks_sums *k = &a->ticks;
	char b[2][32];

	if (!a->ticks_estimated) {
		if (a->run_starts)
			run_start_note(o, a);
		cli_out_printf(o, "(timed by ticks, as ticked (%s): an op's time starts when the CPU"
			       " backend's first thread finished its share of the op before; with several"
			       " threads, what the others still had of that op, waited for at GGML's"
			       " barrier, is counted in the next op: small ops after MUL_MATs show more"
			       " than their work)\n",
			       a->raw_ticks ? "--raw-ticks" : "not estimated: the trace could not be read a second time");
		return;
	}
	if (a->starts)
		cli_out_printf(o, "((run start): in each of %llu CPU run%s%s, the time from the scheduler's"
			       " last ask to the first op's work: GGML's graph plan, its worker threads"
			       " made or woken, and the first barrier's wait for them; %s in all. Told"
			       " apart by estimate: the first op's work is its bytes at the best rate of"
			       " the same op elsewhere in the trace%s; a program that attaches a"
			       " threadpool to its context, as llama.cpp's tools do, makes no threads)\n",
			       (unsigned long long)a->starts, cli_s(a->starts),
			       a->summed ? " kept op by op (not those of the summed steps)" : "",
			       cli_fmt_ns((double)a->start_ns, b[0]),
			       k->unsplit ? ", and the first ops without such a peer keep their whole"
					    " time" : "");
	cli_out_printf(o, "(timed by ticks, which the CPU backend gives after its first thread's"
		       " share of an op: the wait at GGML's barrier for the other threads to finish"
		       " an op lands on the op after it. Estimated from each node's least time in the"
		       " trace: the time an op took above its least is the wait for the op before,"
		       " when that one is at least %d times longer; %llu waits, %s, were moved back to"
		       " the op that caused them",
		       CLI_TICKS_LEAD, (unsigned long long)a->waits, cli_fmt_ns((double)a->wait_ns, b[1]));
	wait_tops(o, a);
	if (a->above_ns)
		cli_out_printf(o, "; %s more above the nodes' least stays in the ops, their own"
			       " variation or a wait that could not be told apart (above_floor_ns in JSON)",
			       cli_fmt_ns((double)a->above_ns, b[0]));
	if (k->passed)
		cli_out_printf(o, "; %llu ops kept their time as ticked (no run's first op seen on"
			       " their thread, or past the first %u nodes or %u threads)",
			       (unsigned long long)k->passed, CLI_TICKS_NODES, CLI_TICKS_THREADS);
	cli_out_str(o, ". --raw-ticks shows the times as ticked)\n");
}

/* What the trace's META SHARES say of the shares no op got, as the note's end. */
static void said_note(struct cli_out *o, const struct cli_shares_said *s)
{
	if (!s->read)
		return; /* read from a pipe: its end is gone */
	if (!s->sessions)
		cli_out_str(o, "; the trace does not say whether every share went to its op"
			    " (no META SHARES: an older writer's, or cut short)");
	else if (!s->unattributed)
		cli_out_str(o, "; every share went to its op (META SHARES)");
	else
		cli_out_printf(o, "; %llu node shares went to no op and are in no figure here"
			       " (META SHARES: %llu in no run asked about, %llu past what"
			       " the tracer follows)", (unsigned long long)s->unattributed,
			       (unsigned long long)(s->unattributed - s->beyond),
			       (unsigned long long)s->beyond);
}

/* Where ops were measured inside GGML's CPU backend: what the figures are. */
static void measured_note(struct cli_out *o, const struct cli_agg *a)
{
	if (a->by == CLI_BY_THREAD && a->backends.shares) {
		cli_out_printf(o, "(by thread: each CPU worker thread's shares of the nodes, measured"
			       " inside GGML's CPU backend (%llu shares): TOTAL its computing, WAIT its"
			       " waiting at the barrier after each node for the slowest thread",
			       (unsigned long long)a->backends.shares);
		said_note(o, &a->said);
		cli_out_str(o, ")\n");
		return;
	}
	cli_out_printf(o, "(%llu ops measured inside GGML's CPU backend (TIMED measured): each"
		       " from the first worker thread's begin of its share to the last one's end;"
		       " the barrier's wait after it and the run's start before the first are in"
		       " no op%s", (unsigned long long)a->measured,
		       ticked(a) ? "; the others were timed by ticks (TIMED estimated or ticked)" : "");
	said_note(o, &a->said);
	cli_out_str(o, ")\n");
}

/* Whether one of the first n groups (those shown) went past the measured peak, or any has a bound. */
static bool over_peak(const struct cli_agg *a, size_t n, bool any)
{
	double share;

	for (size_t i = 0; i < n; i++)
		if (cli_roofline(a->sorted[i], &a->peak, &share) != CLI_BOUND_UNKNOWN &&
		    (any || share > 1))
			return true;
	return false;
}

/* BOUND: what limits the group on this machine, and how close to that peak it came. */
static void bound_cell(struct cli_table *t, const struct cli_group *g, const struct cli_peak *p)
{
	double share;
	int bound = g ? cli_roofline(g, p, &share) : CLI_BOUND_UNKNOWN;

	if (bound == CLI_BOUND_UNKNOWN)
		cli_table_add(t, "-");
	else
		cli_table_add(t, "%s %.0f%%", bound == CLI_BOUND_MEMORY ? "memory" : "compute",
			      share * 100);
}

/* One group's row; tokens: the phase's, for the PER TOKEN column (0: none). */
static void text_row(struct cli_table *t, const char *name, const struct cli_dist *d,
		     uint64_t p50, uint64_t p95, double sh, const struct cli_group *g,
		     uint64_t tokens)
{
	char b[7][32];
	double avg = d->count ? (double)d->total / (double)d->count : 0;

	cli_table_add(t, "%s", name);
	cli_table_add(t, "%llu", (unsigned long long)d->count);
	cli_table_add(t, "%s", cli_fmt_ns((double)d->total, b[0]));
	if (tokens)
		cli_table_add(t, "%s", cli_fmt_ns((double)d->total / (double)tokens, b[6]));
	cli_table_add(t, "%s", cli_fmt_ns(avg, b[1]));
	if (d->count && d->count == d->summed) { /* known by sums only: no one op's time */
		cli_table_add(t, "-");
		cli_table_add(t, "%s", p50 == UINT64_MAX ? "" : "-");
		cli_table_add(t, "%s", p95 == UINT64_MAX ? "" : "-");
	} else {
		cli_table_add(t, "%s", cli_fmt_ns((double)d->min, b[2]));
		cli_table_add(t, "%s", p50 == UINT64_MAX ? "" : cli_fmt_ns((double)p50, b[3]));
		cli_table_add(t, "%s", p95 == UINT64_MAX ? "" : cli_fmt_ns((double)p95, b[4]));
	}
	cli_table_add(t, "%s", cli_fmt_ns((double)d->max, b[5]));
	cli_table_add(t, "%.1f%%", sh * 100);
	if (g && cli_group_gflops(g) >= 0)
		cli_table_add(t, "%.1f", cli_group_gflops(g));
	else
		cli_table_add(t, "-");
	if (g && cli_group_gbps(g) >= 0)
		cli_table_add(t, "%.2f", cli_group_gbps(g));
	else
		cli_table_add(t, "-");
}

/* The exact totals of all groups, as a distribution without quantiles. */
static struct cli_dist all_groups(const struct cli_agg *a)
{
	struct cli_dist d = { 0 };

	for (size_t i = 0; i < a->n; i++) {
		const struct cli_dist *g = &a->sorted[i]->d;
		if (g->count > g->summed)
			d.min = d.count > d.summed && d.min < g->min ? d.min : g->min;
		d.max = d.max > g->max ? d.max : g->max;
		d.count += g->count;
		d.total += g->total;
		d.summed += g->summed;
	}
	return d;
}

/* " (steps 2 to 9)", " (steps 2 on)", " (steps up to 9)", " (step 3)": --steps, where given. */
static void steps_said(struct cli_out *o, const struct cli_steps *s)
{
	unsigned long long first = s->first ? s->first : 1, last = s->last;

	if (!cli_steps_set(s))
		return;
	if (first == last)
		cli_out_printf(o, " (step %llu)", first);
	else if (!last)
		cli_out_printf(o, " (steps %llu on)", first);
	else if (!s->first)
		cli_out_printf(o, " (steps up to %llu)", last);
	else
		cli_out_printf(o, " (steps %llu to %llu)", first, last);
}

static void print_head(struct cli_out *o, const char *path, const struct cli_agg *a)
{
	char b[2][32];

	const char *what = a->by == CLI_BY_KERNEL ? "kernel" : "op";

	cli_out_printf(o, "%s%s%s%s", path, a->phase ? " (" : "",
		       a->phase ? cli_phase_name((uint32_t)a->phase) : "", a->phase ? ")" : "");
	steps_said(o, &a->step_range);
	cli_out_printf(o, ": %llu %s%s in ", (unsigned long long)a->ops, what, cli_s(a->ops));
	if (a->steps)
		cli_out_printf(o, "%llu step%s (%llu token%s)%s", (unsigned long long)a->steps,
			       cli_s(a->steps), (unsigned long long)a->tokens, cli_s(a->tokens),
			       a->graphs ? " and " : "");
	if (a->graphs || !a->steps)
		cli_out_printf(o, "%llu graph%s", (unsigned long long)a->graphs, cli_s(a->graphs));
	if (a->starts)
		cli_out_printf(o, "; %llu %s", (unsigned long long)a->starts,
			       a->starts == 1 ? "run's start" : "runs' starts");
	cli_out_printf(o, "; %s time %s", what, cli_fmt_ns((double)a->op_ns, b[0]));
	if (a->tokens)
		cli_out_printf(o, " (%s per token)",
			       cli_fmt_ns((double)a->op_ns / (double)a->tokens, b[0]));
	cli_out_printf(o, ", %s %s\n",
		       a->phase || cli_steps_set(&a->step_range) ? "span of those steps" : "trace span",
		       cli_fmt_ns(a->t_last > a->t_first ? (double)(a->t_last - a->t_first) : 0,
				  b[1]));
}

/* Ops known by their sums per step (rolling mode): where they count, and where not. */
static void summed_note(struct cli_out *o, const struct cli_agg *a)
{
	char b[32];

	if (a->summed_out)
		cli_out_printf(o, "(%llu ops, %s, of the steps not kept op by op (GGML_VIZ_OP_SAMPLE,"
			       " GGML_VIZ_OP_SLOW) are known by their sums per op type, without names"
			       " or layers: they are in the header's figures, not in this table;"
			       " --by op or --by step shows them)\n",
			       (unsigned long long)a->summed_out, cli_fmt_ns((double)a->summed_ns, b));
	else if (a->summed)
		cli_out_printf(o, "(%llu ops, %s, of the steps not kept op by op (GGML_VIZ_OP_SAMPLE,"
			       " GGML_VIZ_OP_SLOW) are known by their sums per op type: they count in"
			       " COUNT, TOTAL, MEAN, MAX and SHARE; MIN, P50 and P95 are of the ops"
			       " timed one by one)\n",
			       (unsigned long long)a->summed, cli_fmt_ns((double)a->summed_ns, b));
	if (a->summed && !a->raw_ticks)
		cli_out_str(o, "(those sums are as ticked: the runs' starts and the waits at GGML's"
			       " barrier are told apart in the steps kept op by op only, so in the"
			       " summed steps an op holds the wait for the op before it, and the first"
			       " op of a run its start; the shares mix both: --raw-ticks gives every"
			       " row as ticked, a trace that keeps every op every row estimated)\n");
}

/* By layer: what "(none)" holds, when it is there, and a first step that ran cold. */
static void layer_note(struct cli_out *o, const struct cli_agg *a)
{
	struct cli_cold_found cold;

	for (size_t i = 0; i < a->n; i++)
		if (a->sorted[i]->id == 0) {
			cli_out_str(o, "((none): ops of no layer; in llama.cpp the token embedding, "
				       "the output norm and the output projection)\n");
			break;
		}
	if (cli_cold_find(a, &cold))
		cli_cold_text(o, &cold);
}

static void print_text(struct cli_out *o, const char *path, const struct cli_agg *a,
		       uint64_t top)
{
	struct cli_table t;
	struct cli_dist all = all_groups(a);
	size_t n = shown(a, top);
	uint64_t per_token = a->phase ? a->tokens : 0; /* tokens of one phase only mean something */

	print_head(o, path, a);
	if (cli_by_steps(a->by)) {
		cli_steps_text(o, a, top);
		cli_window_note(o, a);
		summed_note(o, a);
		cli_backends_text(o, &a->backends, "");
		return;
	}
	cli_table_init(&t, (per_token ? 12u : 11u) + (a->peak.known ? 1u : 0u) +
				   (extra_of(a) != EXTRA_NONE ? 1u : 0u));
	text_header(&t, a->by, per_token != 0, a->peak.known);
	if (extra_of(a) != EXTRA_NONE)
		cli_table_add(&t, extra_of(a) == EXTRA_WAIT ? "WAIT" : "TIMED");
	for (size_t i = 0; i < n; i++) {
		const struct cli_group *g = a->sorted[i];
		char *name = cli_text_dup(g->name, g->name_len);
		char w[32];
		text_row(&t, name ? name : "?", &g->d, g->p50, g->p95, cli_group_share(a, g),
			 g, per_token);
		if (a->peak.known)
			bound_cell(&t, g, &a->peak);
		if (extra_of(a) == EXTRA_WAIT)
			cli_table_add(&t, "%s", cli_fmt_ns((double)g->wait_ns, w));
		else if (extra_of(a) == EXTRA_TIMED)
			cli_table_add(&t, "%s", timed_word(a, g));
		free(name);
	}
	if (a->n)
		text_row(&t, "TOTAL", &all, UINT64_MAX, UINT64_MAX, a->op_ns ? 1 : 0, NULL,
			 per_token);
	if (a->n && a->peak.known)
		bound_cell(&t, NULL, &a->peak);
	if (a->n && extra_of(a) != EXTRA_NONE)
		cli_table_add(&t, "%s", "");
	cli_table_print(&t, o, "");
	cli_table_free(&t);
	cli_out_not_shown(o, a->n - n);
	if (a->by == CLI_BY_LAYER)
		layer_note(o, a);
	if (a->by == CLI_BY_PART)
		cli_parts_text(o, a, per_token);
	cli_window_note(o, a);
	summed_note(o, a);
	if (a->measured || a->backends.shares)
		measured_note(o, a);
	if (a->backends.n && ticked(a) && a->by == CLI_BY_OP)
		ticks_notes(o, a);
	if (a->peak.known && over_peak(a, n, false))
		cli_out_str(o, "(a share over 100%: the op's data were in the CPU's caches, which are"
			       " faster than the memory the peak was measured from)\n");
	if (a->peak.known && over_peak(a, n, true)) /* what the BOUND column says, where it says it */
		cli_out_printf(o, "(BOUND: the machine's peak, measured when tracing started with %u "
			       "thread%s, is %.1f GB/s read from memory and %.1f GFLOP/s of f32 FMAs (%s);"
			       " a group whose FLOP per byte is below %.1f is memory-bound, the share"
			       " its GB/s of the peak's, else compute-bound, the share its GFLOP/s of"
			       " the peak's; quantized products use integer units with other peaks)\n",
			       a->peak.threads, cli_s(a->peak.threads), a->peak.bytes_per_s / 1e9, a->peak.flop_per_s / 1e9,
			       a->peak.how, a->peak.flop_per_s / a->peak.bytes_per_s);
	if (a->by == CLI_BY_KERNEL && !a->n)
		cli_out_str(o, "(no GPU kernels in this trace: the tracer records them on CUDA where "
			       "it finds CUPTI; `ggmlviz info` says why not)\n");
	if (a->counts.unmatched_ends || a->counts.unclosed_begins)
		cli_out_printf(o, "(%llu ends without a begin, %llu begins never ended: not"
				    " counted)\n", (unsigned long long)a->counts.unmatched_ends,
				    (unsigned long long)a->counts.unclosed_begins);
	if (a->names->assumed)
		cli_out_str(o, "(op names assumed from GGML's numbering of mid-2025, which the "
			       "original ggml-viz wrote: the trace names none of its ops)\n");
	cli_backends_text(o, &a->backends, "");
	if (a->mem && a->mem->any) {
		cli_out_str(o, "memory by device (the most of each part live at once, and the peak):\n");
		cli_mem_devices_text(o, a->mem, "  ");
	}
}

/* Keeps of a's findings those that slow the run (warn: the trace's own notes are stats' notes). */
static void warn_only(struct cli_advice *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		if (a->f[i].level == CLI_ADVISE_WARN)
			a->f[n++] = a->f[i];
	a->n = n;
}

/*
 * Reads path into a and, where its findings are said (text and JSON, the
 * op times estimated as advise estimates them), into f and advice, in the
 * same passes; its memory by device too. The command's exit status, or -1
 * where path cannot be read.
 */
static int collect(struct cli *cli, const struct cli_group_opts *opts, const char *path,
		   struct cli_agg *a, struct cli_facts *f, struct cli_advice *advice,
		   struct cli_mem_devices *mem)
{
	int status;

	if (opts->format == CLI_FORMAT_CSV || opts->raw_ticks || cli_as_ticks_on) {
		status = cli_collect("stats", path, a);
		if (status >= 0 && opts->format != CLI_FORMAT_CSV && cli_mem_devices_read(path, mem) == 0)
			a->mem = mem;
		return status;
	}
	status = cli_facts_read("stats", path, cli, f, a);
	if (status == CLI_EXIT_OK) {
		cli_advise(f, advice);
		warn_only(advice);
	}
	if (f->mem.any)
		a->mem = &f->mem;
	return status;
}

/* ,"findings":[{"id":..,"level":..,"title":..}] (ggmlviz advise -f json says each whole). */
static void findings_json(struct cli_out *o, const struct cli_advice *a)
{
	cli_out_str(o, ",\"findings\":[");
	for (size_t i = 0; a && i < a->n; i++) {
		cli_out_printf(o, "%s{\"id\":\"%s\",\"level\":\"warn\",\"title\":", i ? "," : "",
			       a->f[i].id);
		cli_json_cstr(o, a->f[i].title);
		cli_out_char(o, '}');
	}
	cli_out_char(o, ']');
}

static void print_csv(struct cli_out *o, const struct cli_agg *a, uint64_t top)
{
	cli_out_str(o, "group,count,total_ns,mean_ns,min_ns,p50_ns,p95_ns,max_ns,share,"
			 "gflops,flops,gbps,bytes");
	cli_out_str(o, cli_by_steps(a->by) ? ",steps,tokens,step_ns\n" : "\n");
	for (size_t i = 0; i < shown(a, top); i++) {
		const struct cli_group *g = a->sorted[i];
		double gf = cli_group_gflops(g);

		cli_csv_str(o, g->name, g->name_len);
		cli_out_printf(o, ",%llu,%llu,%.3f,", (unsigned long long)g->d.count,
			       (unsigned long long)g->d.total, cli_group_mean(g));
		if (g->d.count && g->d.count == g->d.summed) /* summed ops only: empty */
			cli_out_str(o, ",,,");
		else
			cli_out_printf(o, "%llu,%llu,%llu,", (unsigned long long)g->d.min,
				       (unsigned long long)g->p50, (unsigned long long)g->p95);
		cli_out_printf(o, "%llu,%.6f,", (unsigned long long)g->d.max, cli_group_share(a, g));
		if (gf >= 0)
			cli_out_printf(o, "%.3f", gf);
		cli_out_printf(o, ",%llu,", (unsigned long long)g->flops);
		if (cli_group_gbps(g) >= 0)
			cli_out_printf(o, "%.3f", cli_group_gbps(g));
		cli_out_printf(o, ",%llu", (unsigned long long)g->bytes);
		if (cli_by_steps(a->by))
			cli_out_printf(o, ",%llu,%llu,%llu", (unsigned long long)g->steps,
				       (unsigned long long)g->tokens,
				       (unsigned long long)g->step_ns);
		cli_out_char(o, '\n');
	}
}

/* By request: a server's requests, from their REQUEST records (requests.c). */
static int stats_requests(const struct cli_group_opts *opts, const char *path)
{
	struct cli_requests s;
	struct cli_out o;
	int status;

	if (cli_out_open(&o, "stats", NULL) < 0)
		return CLI_EXIT_DAMAGED;
	status = cli_requests_collect("stats", path, &s);
	if (opts->sort == CLI_SORT_ORDER)
		s.shown = shown_of(s.n, opts->top);
	else if (opts->top != UINT64_MAX || opts->sort == CLI_SORT_TOTAL)
		cli_requests_top(&s, opts->top);
	if (status >= 0 && opts->format == CLI_FORMAT_TEXT)
		cli_requests_text(&o, path, &s);
	else if (status >= 0)
		cli_requests_json(&o, path, &s);
	cli_requests_free(&s);
	return cli_out_close(&o, "stats") || status < 0 ? CLI_EXIT_DAMAGED : status;
}

/* By host or command: GGML's RPC commands and the steps they served (tools/rpc/). */
static int stats_rpc(const struct cli_group_opts *opts, const char *path)
{
	struct cli_rpc_hosts h;
	struct cli_out o;
	int status;

	if (cli_out_open(&o, "stats", NULL) < 0)
		return CLI_EXIT_DAMAGED;
	status = cli_rpc_hosts_read("stats", path, &h);
	if (status >= 0 && opts->by == CLI_BY_HOST)
		(opts->format == CLI_FORMAT_TEXT ? cli_rpc_hosts_text : cli_rpc_hosts_json)(&o, path, &h);
	else if (status >= 0)
		(opts->format == CLI_FORMAT_TEXT ? cli_rpc_commands_text : cli_rpc_commands_json)(&o, path, &h);
	cli_rpc_hosts_free(&h);
	return cli_out_close(&o, "stats") || status < 0 ? CLI_EXIT_DAMAGED : status;
}

/* By sequence: the requests of a server, from the records (sequences.c). */
static int stats_sequences(const struct cli_group_opts *opts, const char *path)
{
	struct cli_sequences s;
	struct cli_out o;
	int status;

	if (cli_out_open(&o, "stats", NULL) < 0)
		return CLI_EXIT_DAMAGED;
	status = cli_sequences_collect("stats", path, &s);
	if (opts->sort == CLI_SORT_ORDER)
		s.shown = shown_of(s.n, opts->top);
	else if (opts->top != UINT64_MAX || opts->sort == CLI_SORT_TOTAL)
		cli_sequences_top(&s, opts->top);
	if (status >= 0 && opts->format == CLI_FORMAT_TEXT)
		cli_sequences_text(&o, path, &s);
	else if (status >= 0)
		cli_sequences_json(&o, path, &s);
	cli_sequences_free(&s);
	return cli_out_close(&o, "stats") || status < 0 ? CLI_EXIT_DAMAGED : status;
}

int cli_cmd_stats(struct cli *cli, int argc, char **argv)
{
	struct cli_group_opts opts = { CLI_BY_OP, -1, CLI_FORMAT_TEXT, UINT64_MAX, 0, false, { 0, 0 } };
	struct cli_agg a;
	struct cli_out o;
	struct cli_mem_devices mem;
	struct cli_facts *f;
	struct cli_advice *advice;
	int first, status = cli_parse(&cmd, argc, argv, &opts, &first);

	if (status >= 0)
		return status;
	if ((opts.by == CLI_BY_SEQUENCE || opts.by == CLI_BY_REQUEST || opts.by == CLI_BY_HOST ||
	     opts.by == CLI_BY_COMMAND) && cli_steps_set(&opts.step_range))
		return cli_usage("stats", "--steps: --by %s follows each request over all its steps",
				 cli_by_names[opts.by]);
	if ((opts.by == CLI_BY_SEQUENCE || opts.by == CLI_BY_REQUEST) && opts.sort >= 0 &&
	    opts.sort != CLI_SORT_TOTAL && opts.sort != CLI_SORT_ORDER)
		return cli_usage("stats", "--sort %s: --by %s sorts by total (its %s, the longest "
				 "first) or order (%s)", cli_sort_names[opts.sort], cli_by_names[opts.by],
				 opts.by == CLI_BY_REQUEST ? "TOTAL" : "TIME",
				 opts.by == CLI_BY_REQUEST ? "as they arrived" : "by sequence id");
	if (opts.by == CLI_BY_SEQUENCE)
		return stats_sequences(&opts, argv[first]);
	if (opts.by == CLI_BY_REQUEST)
		return stats_requests(&opts, argv[first]);
	if (opts.by == CLI_BY_HOST || opts.by == CLI_BY_COMMAND)
		return stats_rpc(&opts, argv[first]);
	if (opts.sort < 0) /* --top N: the N biggest; else steps, phases and layers in order */
		opts.sort = opts.top == UINT64_MAX && (cli_by_steps(opts.by) || opts.by == CLI_BY_LAYER)
				    ? CLI_SORT_ORDER
				    : CLI_SORT_TOTAL;
	f = calloc(1, sizeof *f), advice = calloc(1, sizeof *advice);
	memset(&mem, 0, sizeof mem);
	if (!f || !advice || cli_out_open(&o, "stats", NULL) < 0) {
		free(f), free(advice);
		return CLI_EXIT_DAMAGED;
	}
	cli_agg_init(&a, opts.by, &cli->names, &cli->dist_bytes);
	a.phase = (uint32_t)opts.phase;
	a.step_range = opts.step_range;
	a.raw_ticks = opts.raw_ticks;
	status = collect(cli, &opts, argv[first], &a, f, advice, &mem);
	if (status >= 0 && cli_step_span_check("stats", argv[first], &a.step_range, &a.span))
		status = -CLI_EXIT_USAGE; /* said: the steps the trace has */
	if (status >= 0) {
		cli_agg_sort(&a, opts.sort);
		if (opts.format == CLI_FORMAT_TEXT) {
			print_text(&o, argv[first], &a, opts.top);
			cli_advise_brief(&o, argv[first], advice);
		} else if (opts.format == CLI_FORMAT_CSV) {
			print_csv(&o, &a, opts.top);
		} else {
			a.extra_json = findings_json, a.extra_arg = advice;
			cli_agg_json(&o, argv[first], &a, opts.top), cli_out_char(&o, '\n');
		}
	}
	cli_agg_free(&a);
	cli_facts_free(f);
	cli_mem_devices_free(&mem);
	free(f), free(advice);
	if (status == -CLI_EXIT_USAGE)
		return cli_out_close(&o, "stats") ? CLI_EXIT_DAMAGED : CLI_EXIT_USAGE;
	if (cli_out_close(&o, "stats") || status < 0)
		return CLI_EXIT_DAMAGED;
	return status;
}
