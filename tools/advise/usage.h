/*
 * The process's use of the CPUs while its steps ran (tools/advise/usage.c),
 * from the writer's META USAGE records: the involuntary context switches
 * and the CPU time between the first record and the last, and the steps'
 * time between them, for the rule that tells a run whose threads waited
 * for CPUs other work held (rules-cpu.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_ADVISE_USAGE_H
#define CLI_ADVISE_USAGE_H

#include <stdint.h>

#include <ggmlviz/reader.h>

/*
 * Steps kept at each edge of the trace: those that may cross the first or
 * the last USAGE record (written a flush interval apart, 100 ms by
 * default); the steps between are inside.
 */
#define CLI_USAGE_EDGE 4096

/*
 * The first USAGE record and the last (the same where there is one);
 * mixed: two of them came from different threads (each session's are its
 * starting thread's), out of time order, or with counts that fell: records
 * of more than one session or process (a merged trace), whose differences
 * say nothing (the records after that are counted, not read).
 */
struct cli_usage_samples {
	uint64_t samples;
	uint64_t ts[2], invol[2], cpu_ns[2], vol[2];
	uint32_t tid; /* the last record's thread */
	int mixed;
};

/* A META USAGE record's figures. */
struct cli_usage_point {
	uint64_t ts, invol, cpu_ns, vol;
	uint32_t tid;
};

/* Records kept until the first step weighed is read: the last ones. */
#define CLI_USAGE_EARLY 64

/*
 * s: every record (info's); w: those from the first at or after the first
 * weighed step's begin (loading the model and the like left out).
 */
struct cli_usage {
	struct cli_usage_samples s, w;
	struct cli_usage_point early[CLI_USAGE_EARLY];
	uint64_t n_early, first_begin;
	int stepped;
	uint64_t steps, thread_ns; /* every step weighed; its time times its threads, summed */
	struct cli_span {
		uint64_t begin, end;
		uint32_t threads;
	} head[CLI_USAGE_EDGE], tail[CLI_USAGE_EDGE]; /* the first steps; the last, a ring */
};

/* A record of the trace: its META USAGE, if it is one. */
void cli_usage_sample(struct cli_usage_samples *s, const struct ggmlviz_event *ev);

/* The same into both of u's series (advise's). */
void cli_usage_record(struct cli_usage *u, const struct ggmlviz_event *ev);

/* A step that ended, computed by that many CPU threads (0: not said). */
void cli_usage_step(struct cli_usage *u, uint64_t begin_ns, uint64_t end_ns, uint32_t threads);

/*
 * Whether the steps between those kept at the edges lie inside u->w's
 * span, as cli_usage_thread_ns() takes them: not where the first record
 * came more than CLI_USAGE_EDGE steps after the first step's begin, or the
 * last that many before the last step's end (a long flush interval).
 */
int cli_usage_middle_inside(const struct cli_usage *u);

/*
 * The steps' time inside u->w's span, each times its threads (0 with
 * fewer than two records there, or where the middle steps are not inside).
 */
uint64_t cli_usage_thread_ns(const struct cli_usage *u);

#endif
