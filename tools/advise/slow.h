/*
 * Why a server's request was slow (tools/advise/): ggmlviz advise
 * --request ID and --slow. The requests judged (one, or those slower than
 * twice the run's median) make a window of the trace, from each one's
 * arrival to its end; what the window holds (slow.c reads it) is
 * judged against the run's normal, the rest of the run where steps ran
 * (rules-slow.c): CPUs other work took, a queue or another request's
 * long prompt before the first token, a batch grown by other slots, the
 * context, ops that left the GPU for the CPU, the trace's own records;
 * each finding with its figures for the window and for the normal.
 * slow-print.c says which requests were judged, and their figures.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_ADVISE_SLOW_H
#define CLI_ADVISE_SLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "output/output.h"
#include "stats/stats.h"

struct cli;
struct cli_advice;

#define CLI_SAMPLE_MAX 4096 /* values kept of a figure for its median: every k-th past it */

/* Values of a figure, every other one let go whenever full (each then keeps one in twice as many). */
struct cli_sample {
	double v[CLI_SAMPLE_MAX];
	size_t n;
	uint64_t seen, stride;
};

void cli_sample_add(struct cli_sample *s, double v);
/* The median of what s kept (reordered); 0 when it kept nothing. */
double cli_sample_median(struct cli_sample *s);

/* What one side holds: the window's (CLI_SLOW_IN) or the run's normal (CLI_SLOW_OUT). */
struct cli_slow_side {
	uint64_t steps, step_ns, gen_steps;
	struct cli_sample tokens, seqs, step_time, context, gen_time; /* per step; generation's */
	uint64_t op_ns, cpu_op_ns;            /* the ops' time, and on the CPU */
	uint64_t records, bytes, dropped;     /* the trace's own: records written, events lost */
	uint64_t cpu_ns, need_ns, invol, usage_ns; /* between USAGE records, steps running */
	uint64_t intervals, idle_intervals;   /* ... how many intervals; those left out (idle) */
	uint64_t flight_ns, flight_cpu_ns;    /* between USAGE records, requests in flight all through */
};
enum { CLI_SLOW_IN, CLI_SLOW_OUT };

/*
 * A META USAGE record, and until the next: the steps' time, and that
 * time times their compute threads.
 */
struct cli_usage_mark {
	uint64_t ts, cpu_ns, invol, busy_ns, need_ns;
};
#define CLI_USAGE_MARKS (1u << 20) /* kept at most: past them, every other one is let go */

/* A stretch of the trace's time, [begin, end). */
struct cli_win_span {
	uint64_t begin, end;
};

struct cli_slow {
	struct cli_requests req;          /* every request of the trace, in order of arrival */
	size_t *chosen, n_chosen;         /* the requests judged (their index in req) */
	size_t n_normal;                  /* requests wholly outside the window */
	struct cli_win_span *spans;           /* the window: the chosen requests' lives, merged */
	size_t n_spans;
	struct cli_win_span *lives;           /* every request's life, merged: the server had work */
	size_t n_lives;
	uint64_t window_ns, first_ns, last_ns; /* its time; the trace's first and last */
	struct cli_slow_side side[2];
	struct cli_usage_mark *marks;     /* the first session's USAGE records */
	size_t n_marks;
	bool usage_mixed;                 /* records of several sessions: not weighed */
	uint32_t usage_tid;
	bool has_threads, gpu, context_said;
	uint32_t n_threads, n_threads_batch, cpus; /* META THREADS, the last said */
	uint32_t threads_most;
};

/* What advise --request or --slow asked for. */
struct cli_slow_ask {
	bool slow;        /* --slow; else --request id */
	uint64_t id;
};

/*
 * Reads path for the window of the requests ask names (none: w->n_chosen
 * 0, no such request or no slow one): the command's exit status, 0 or
 * CLI_EXIT_DAMAGED after a message (what came before the damage is read),
 * or -1 after a message when path cannot be read.
 */
int cli_slow_read(const char *cmd, const char *path, struct cli *cli,
		    const struct cli_slow_ask *ask, struct cli_slow *w);
void cli_slow_free(struct cli_slow *w);
/* Whether t (ns) lies in the window. */
bool cli_slow_holds(const struct cli_slow *w, uint64_t t);
/* A figure of request i (CLI_REQ_*): 0 and its value, or -1. */
int cli_slow_figure(const struct cli_slow *w, size_t i, enum cli_request_figure f, uint64_t *ns);
/* The median of figure f over the normal requests (or the chosen ones); how many had it. */
size_t cli_slow_median(const struct cli_slow *w, bool chosen, enum cli_request_figure f,
			 uint64_t *ns);
/* Whether request i lies wholly outside the window (one of the run's normal). */
bool cli_slow_normal(const struct cli_slow *w, size_t i);

/* The rules (rules-slow.c), each one's id in order; NULL-terminated. */
extern const char *const cli_slow_ids[];
void cli_slow_rules(const struct cli_slow *w, struct cli_advice *a);

/* Which requests were judged, their figures and the normal's; or that --slow found none (slow-print.c). */
void cli_slow_text(struct cli_out *o, const char *path, const struct cli_slow *w,
		     const struct cli_slow_ask *ask);
void cli_slow_json(struct cli_out *o, const struct cli_slow *w);

#endif
