/*
 * The findings of GGML's CPU backend (advise.h): more compute threads than
 * CPUs, CPUs that other work took, the runs' starts as a share of the
 * token, and a memory-bound op far below the machine's measured peak.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"

#define RUN_START_SHARE 0.10 /* of a token's time */
#define BOUND_OP_SHARE 0.20  /* of the op time, for an op group to count */
#define BOUND_PEAK_SHARE 0.50 /* of the measured peak */
#define TAKEN_SHARE 0.80 /* of the steps' time times their compute threads, in CPU time */
#define TAKEN_MIN_NEED_NS 100000000u /* that time judged, at the least */

/* The steps the rules weigh: generation's where there are some, else every step. */
static const struct cli_agg *token_agg(const struct cli_facts *f, const char **what)
{
	*what = f->has_gen ? "generated token" : "token";
	return f->has_gen ? &f->gen : &f->all;
}

/* The runs' starts of a (estimated or measured apart), their number; false if not told apart. */
static bool run_starts(const struct cli_agg *a, uint64_t *ns, uint64_t *n)
{
	*ns = a->start_ns, *n = a->starts;
	return a->starts > 0;
}

/* What the workers waited at GGML's barrier, in words, into buf; its ns per token in *ns. */
static void barrier_said(const struct cli_agg *a, char *buf, size_t size, double *per_token)
{
	char b[2][32];
	double tokens = a->tokens ? (double)a->tokens : 1;

	if (a->backends.shares) {
		*per_token = (double)a->backends.share_wait_ns / tokens;
		snprintf(buf, size, "every worker waited %s a token at GGML's barriers, summed"
			 " (measured), against %s of a token",
			 cli_fmt_ns(*per_token, b[0]), cli_fmt_ns((double)a->step_ns / tokens, b[1]));
	} else if (a->ticks_estimated) {
		*per_token = (double)a->wait_ns / tokens;
		snprintf(buf, size, "thread 0's waits at GGML's barrier moved back to their ops: %s a"
			 " token (estimated from ticks; the other workers' are not in the trace)",
			 cli_fmt_ns(*per_token, b[0]));
	} else {
		*per_token = -1;
		snprintf(buf, size, "the barrier's waits are not told apart (--raw-ticks, or a trace"
			 " read from a pipe)");
	}
}

static void threads_over_cpus(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "threads-over-cpus";
	const char *tok;
	const struct cli_agg *g = token_agg(f, &tok);
	uint32_t cpus = f->cpus_allowed ? f->cpus_allowed : f->cpus_online;
	uint32_t threads = f->n_threads > f->n_threads_batch ? f->n_threads : f->n_threads_batch;
	uint64_t start_ns = 0, starts = 0;
	struct cli_finding *x;
	char wait[300], b[2][32];
	double wait_per_token, step = g->tokens ? (double)g->step_ns / (double)g->tokens : 0;

	if (!f->has_threads) {
		cli_advise_not(a, id, "the trace does not say the threads and CPUs (META THREADS: the"
			       " llama.cpp adapter writes it at a context's first step; a program"
			       " without it, or an older libggmlviz)");
		return;
	}
	if (!cpus) {
		cli_advise_not(a, id, "the trace does not say the CPUs this process may use");
		return;
	}
	if (threads <= cpus) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	run_starts(g, &start_ns, &starts);
	barrier_said(g, wait, sizeof wait, &wait_per_token);
	snprintf(x->title, sizeof x->title, "%u compute threads on %u CPU%s", threads, cpus,
		 cli_s(cpus));
	snprintf(x->seen, sizeof x->seen, "the llama.cpp context computes with %u threads generating"
		 " and %u for a batch; this process may run on %u CPU%s (%u online); %s; the runs'"
		 " starts took %s a %s (%.1f%% of its %s)", f->n_threads, f->n_threads_batch,
		 f->cpus_allowed, cli_s(f->cpus_allowed), f->cpus_online, wait,
		 cli_fmt_ns(g->tokens ? (double)start_ns / (double)g->tokens : 0, b[0]), tok,
		 step > 0 ? 100.0 * (double)start_ns / (double)g->step_ns : 0, cli_fmt_ns(step, b[1]));
	snprintf(x->threshold, sizeof x->threshold, "more compute threads than the CPUs the process"
		 " may run on");
	x->why = "GGML's workers meet at a barrier after every node; with more threads than CPUs"
		 " some are not running, and every other one spins at the next barrier until the"
		 " system runs them again, so each node waits for a time slice";
	snprintf(x->to_try, sizeof x->to_try, "at most %u threads: llama.cpp's -t %u -tb %u (your"
		 " program: llama_context_params n_threads and n_threads_batch); rather the"
		 " physical cores than their hyper-threads; taskset or llama.cpp's --cpu-mask to"
		 " choose them", cpus, cpus, cpus);
	cli_advise_figure(x, "threads", threads);
	cli_advise_figure(x, "cpus", cpus);
	cli_advise_figure(x, "run_start_share", g->step_ns ? (double)start_ns / (double)g->step_ns : 0);
	if (wait_per_token >= 0)
		cli_advise_figure(x, "barrier_wait_ns_per_token", wait_per_token);
}

/* The CPUs the process may use, as META THREADS says them (0: not said). */
static uint32_t cpus_of(const struct cli_facts *f)
{
	return !f->has_threads ? 0 : f->cpus_allowed ? f->cpus_allowed : f->cpus_online;
}

/*
 * What the compute threads could have used while the steps ran: each
 * step's time times the threads GGML computed it with (the context's for
 * a token, its batch threads for a batch, as META THREADS said them
 * then), into *need; the CPU time the process used meanwhile over it, the
 * share of the CPUs its threads got.
 */
static double cpu_share(const struct cli_facts *f, uint64_t *need)
{
	const struct cli_usage_samples *u = &f->usage.w;

	*need = cli_usage_thread_ns(&f->usage);
	return *need ? (double)(u->cpu_ns[1] - u->cpu_ns[0]) / (double)*need : 0;
}

/* Why the rule cannot weigh this trace, or NULL. */
static const char *taken_not_weighed(const struct cli_facts *f, char *why, size_t size)
{
	uint64_t need;
	char b[32];

	if (f->usage.s.samples < 2)
		return "the trace does not say the process's CPU time (META USAGE, written by"
		       " libggmlviz 0.2.0 and later at a session's start, at its stop and once"
		       " per flush interval)";
	if (f->usage.s.mixed)
		return "its USAGE records are of more than one session or process (a merged"
		       " trace): their differences say nothing";
	if (!f->ended || f->damaged)
		return "the trace did not end with a stop: its last USAGE record may come long"
		       " before its last steps";
	if (f->usage.w.samples < 2)
		return "fewer than two USAGE records from the first step's begin on (one a flush"
		       " interval, 100 ms by default)";
	if (!f->has_threads || !f->threads_most)
		return "the trace does not say the compute threads (META THREADS, written by the"
		       " llama.cpp adapter)";
	if (cpus_of(f) && f->threads_most > cpus_of(f))
		return "more compute threads than CPUs take CPUs from each other"
		       " (threads-over-cpus)";
	if (f->has_gpu_runs || f->kernels_recorded || f->gen_kernels)
		return "a GPU computes in this trace: the CPU's threads wait for it, and their"
		       " CPU time says nothing of other work";
	if (!cli_usage_middle_inside(&f->usage))
		return "its first USAGE record came more than 4096 steps after the first step, or"
		       " its last that many before the last (a long flush interval): the steps'"
		       " time between them cannot be told";
	cpu_share(f, &need);
	if (need >= TAKEN_MIN_NEED_NS)
		return NULL;
	snprintf(why, size, "the steps' time times their compute threads is %s between the"
		 " first and the last USAGE record: at least %.0f ms of it is judged",
		 cli_fmt_ns((double)need, b), TAKEN_MIN_NEED_NS / 1e6);
	return why;
}

/* What the process's threads got of the CPUs, in words and figures. */
static void taken_said(const struct cli_facts *f, struct cli_finding *x, double share,
		       uint64_t need)
{
	const struct cli_usage_samples *u = &f->usage.w;
	uint64_t taken = u->invol[1] - u->invol[0], cpu = u->cpu_ns[1] - u->cpu_ns[0];
	char b[3][32];

	snprintf(x->seen, sizeof x->seen, "%u compute thread%s (%u for a batch) on %u CPU%s;"
		 " over %s of the trace (from its first USAGE record at or after the first step's"
		 " begin to its last) the steps' time times"
		 " their threads is %s, and the process used %s of CPU time: %.0f%% of it; the"
		 " scheduler took a CPU from its threads %llu times (involuntary context"
		 " switches), %.0f a second of CPU time", f->n_threads, cli_s(f->n_threads),
		 f->n_threads_batch, cpus_of(f), cli_s(cpus_of(f)),
		 cli_fmt_ns((double)(u->ts[1] - u->ts[0]), b[0]), cli_fmt_ns((double)need, b[1]),
		 cli_fmt_ns((double)cpu, b[2]), 100 * share, (unsigned long long)taken,
		 cpu ? (double)taken / ((double)cpu / 1e9) : 0);
}

static void cpus_taken(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "cpus-taken";
	const char *why;
	char why_buf[200];
	uint64_t need;
	double share;
	struct cli_finding *x;

	if ((why = taken_not_weighed(f, why_buf, sizeof why_buf))) {
		cli_advise_not(a, id, "%s", why);
		return;
	}
	if ((share = cpu_share(f, &need)) >= TAKEN_SHARE) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "the compute threads got %.0f%% of their CPUs: other"
		 " work took the rest", 100 * share);
	taken_said(f, x, share, need);
	snprintf(x->threshold, sizeof x->threshold, "the process's CPU time under %.0f%% of the"
		 " steps' time times their compute threads (GGML's threads compute or spin at"
		 " their barriers all through a step), no more compute threads than CPUs",
		 100 * TAKEN_SHARE);
	x->why = "GGML's compute threads meet at a barrier after every node: a thread taken from"
		 " its CPU for a time slice (milliseconds) holds every other one spinning there, so"
		 " a node takes as long as the slowest thread's wait for a CPU; this trace's op"
		 " times and tokens hold those waits, which a run on a quiet machine does not";
	snprintf(x->to_try, sizeof x->to_try, "run where nothing else computes (top(1) shows what"
		 " does), or leave CPUs to the other work: fewer threads (llama.cpp's -t, -tb);"
		 " taskset or llama.cpp's --cpu-mask to keep them apart; compare with a quiet run"
		 " before trusting these op times");
	cli_advise_figure(x, "cpu_share", share);
	cli_advise_figure(x, "cpu_ns", (double)(f->usage.w.cpu_ns[1] - f->usage.w.cpu_ns[0]));
	cli_advise_figure(x, "thread_step_ns", (double)need);
	cli_advise_figure(x, "involuntary_switches",
			  (double)(f->usage.w.invol[1] - f->usage.w.invol[0]));
	cli_advise_figure(x, "span_ns", (double)(f->usage.w.ts[1] - f->usage.w.ts[0]));
}

/*
 * The median over generation's steps (their bins) of the runs' starts'
 * share of the step: a burst of load on a shared machine in a few steps
 * moves it less than the sum.
 */
static double median_start_share(const struct cli_facts *f)
{
	double v[CLI_ADVISE_GEN_BINS];
	size_t n = 0;

	for (size_t i = 0; i < f->n_gens; i++)
		if (f->gens[i].step_ns)
			v[n++] = (double)f->gens[i].start_ns / (double)f->gens[i].step_ns;
	return cli_advise_median(v, n);
}

static void run_start_share(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "run-start-share";
	const char *tok;
	const struct cli_agg *g = token_agg(f, &tok);
	uint64_t ns, n;
	double share, median;
	struct cli_finding *x;
	char b[3][32];

	if (!g->steps || !g->tokens) {
		cli_advise_not(a, id, "the trace has no steps, so a token's time is not known (the"
			       " llama.cpp adapter marks each llama_decode() as one)");
		return;
	}
	if (!run_starts(g, &ns, &n)) {
		if (g->run_starts)
			cli_advise_not(a, id, "the runs' starts are not told apart from their first op"
				       " (--raw-ticks, or a trace read from a pipe)");
		else
			cli_advise_silent(a, id); /* no CPU run */
		return;
	}
	share = (double)ns / (double)g->step_ns;
	median = median_start_share(f);
	if ((f->has_gen ? median : share) < RUN_START_SHARE) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "the CPU runs' starts take %.1f%% of %s %s",
		 100 * (f->has_gen ? median : share), f->has_gen ? "the median" : "a", tok);
	snprintf(x->seen, sizeof x->seen, "%llu %ss of %s each; their %llu CPU runs began with %s"
		 " a %s of GGML's graph plan, its workers made or woken and the first barrier's"
		 " wait for them (%s each, %s)%s", (unsigned long long)g->tokens, tok,
		 cli_fmt_ns((double)g->step_ns / (double)g->tokens, b[0]), (unsigned long long)n,
		 cli_fmt_ns((double)ns / (double)g->tokens, b[1]), tok,
		 cli_fmt_ns((double)ns / (double)n, b[2]),
		 g->measured ? "measured" : "estimated from the backend's ticks",
		 f->has_threads ? "" : "; the threads are not said (no META THREADS)");
	if (f->has_threads)
		cli_advise_append(x->seen, sizeof x->seen, "; %u threads generating", f->n_threads);
	if (f->has_gen)
		cli_advise_append(x->seen, sizeof x->seen, "; the median generation step's runs' start"
				  " %.1f%% of it", 100 * median);
	snprintf(x->threshold, sizeof x->threshold, "%.0f%% of a %s's time (%s)",
		 100 * RUN_START_SHARE, tok, f->has_gen ? "the median generation step's" : "in all");
	x->why = "a run of nodes cannot start computing until GGML has planned the graph and every"
		 " worker is awake; without a threadpool the workers are made anew for each graph,"
		 " and the more threads, the longer the wait for the last one";
	snprintf(x->to_try, sizeof x->to_try, "a threadpool kept between graphs: llama.cpp's tools"
		 " attach one; a program of your own: ggml_threadpool_new() and"
		 " llama_attach_threadpool(); fewer threads (-t), each run waking fewer; a larger"
		 " batch (-b, -ub, more slots -np) spreads a run's start over more tokens");
	cli_advise_figure(x, "run_start_share", share);
	if (f->has_gen)
		cli_advise_figure(x, "median_run_start_share", median);
	cli_advise_figure(x, "run_start_ns_per_token", (double)ns / (double)g->tokens);
	cli_advise_figure(x, "runs", (double)n);
}

/* The op groups of a, memory-bound and far below the peak, into x; how many. */
static int below_peak(const struct cli_agg *g, char *seen, size_t size)
{
	int n = 0;
	char b[32];

	for (size_t i = 0; i < g->n; i++) {
		const struct cli_group *grp = g->sorted[i];
		double share, of_ops = g->op_ns ? (double)grp->d.total / (double)g->op_ns : 0;

		if (of_ops < BOUND_OP_SHARE ||
		    cli_roofline(grp, &g->peak, &share) != CLI_BOUND_MEMORY || share >= BOUND_PEAK_SHARE)
			continue;
		cli_advise_append(seen, size, "%s%.*s: %.1f%% of the op time, %s"
			 " a token, %.2f GB/s read and written, %.0f%% of the peak", n ? "; " : "",
			 (int)grp->name_len, grp->name, 100 * of_ops,
			 cli_fmt_ns(g->tokens ? (double)grp->d.total / (double)g->tokens : 0, b),
			 cli_group_gbps(grp), 100 * share);
		n++;
	}
	return n;
}

static void memory_bound_below_peak(const struct cli_facts *f, struct cli_advice *a)
{
	static const char id[] = "memory-bound-below-peak";
	const char *tok;
	const struct cli_agg *g = token_agg(f, &tok);
	struct cli_finding *x;
	char seen[600] = "";
	int n;

	if (!g->peak.known) {
		cli_advise_not(a, id, "no machine peak in the trace: GGML_VIZ_PEAK=N (the threads the"
			       " program computes with) measures one when tracing starts");
		return;
	}
	if (!g->n) {
		cli_advise_not(a, id, "no op timing in the trace");
		return;
	}
	if (!(n = below_peak(g, seen, sizeof seen))) {
		cli_advise_silent(a, id);
		return;
	}
	x = cli_advise_fire(a, id, CLI_ADVISE_WARN);
	snprintf(x->title, sizeof x->title, "memory-bound ops far below the memory's measured peak");
	snprintf(x->seen, sizeof x->seen, "%s (%ss); the machine's peak, measured when tracing"
		 " started with %u thread%s: %.1f GB/s read from memory", seen, tok, g->peak.threads,
		 cli_s(g->peak.threads), g->peak.bytes_per_s / 1e9);
	snprintf(x->threshold, sizeof x->threshold, "an op type of %.0f%% of the op time or more,"
		 " memory-bound (its FLOP per byte below the machine's), under %.0f%% of the measured"
		 " peak", 100 * BOUND_OP_SHARE, 100 * BOUND_PEAK_SHARE);
	x->why = "a memory-bound op is as fast as the bytes it moves: far below the peak, what"
		 " holds it back is its kernel, its threads or where its memory lies, not the memory";
	snprintf(x->to_try, sizeof x->to_try, "as many threads as the memory wants (-t: the peak"
		 " was measured with %u; %s); GGML's CPU backend for this CPU (GGML_NATIVE=ON, or"
		 " the prebuilt variant its log names); --numa distribute on a machine of several"
		 " NUMA nodes; a quantization whose kernels this CPU runs well (q4_0, q8_0)",
		 g->peak.threads, f->has_threads ? "the trace's context computes with its own count"
						  : "the trace does not say the threads");
	cli_advise_figure(x, "op_groups", n);
	cli_advise_figure(x, "peak_bytes_per_s", g->peak.bytes_per_s);
}

void cli_rules_cpu(const struct cli_facts *f, struct cli_advice *a)
{
	threads_over_cpus(f, a);
	cpus_taken(f, a);
	run_start_share(f, a);
	memory_bound_below_peak(f, a);
}
