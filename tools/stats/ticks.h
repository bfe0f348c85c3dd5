/*
 * Op times from the CPU backend's ticks, read as compute (ticks.c).
 *
 * GGML's CPU backend calls the abort callback on its first thread only,
 * after that thread's share of a node and before the barrier where it
 * waits for the others. A tick-timed op's interval therefore holds two
 * things that are not its work:
 *
 * - the first op of a run holds the run's start (the graph plan, the
 *   worker threads made or woken), from the scheduler's last ask;
 * - every op holds the wait, at the barrier before it, for the other
 *   threads to finish the op before: a small op after a MUL_MAT carries
 *   what the MUL_MAT still had on the other threads.
 *
 * Neither can be measured without changing GGML. What a first pass over
 * the trace can tell is each node's floor: the least time it took over
 * the trace's runs (a node: its place in its run, op, bytes and name).
 * The second pass then estimates:
 *
 * - the first op's work as the bytes it moves at the rate the best node
 *   of the same op elsewhere achieved; the rest of its interval is the
 *   run's start, given as an op timing of its own (CLI_OP_RUN_START);
 * - the second op's time above its floor as the run's start too: the
 *   first barrier waits for the worker threads to start;
 * - an op's time above its floor as the barrier's wait for the op
 *   before it, when that op's floor is at least CLI_TICKS_LEAD times this
 *   op's (only a much longer op leaves a wait that dwarfs a small op's own
 *   variation); the wait is charged to the op that caused it.
 *
 * Intervals stay contiguous: a wait moves the boundary between two ops.
 * Each sum (run start, waits moved) is kept for the commands to say.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_TICKS_H
#define CLI_TICKS_H

#include <ggmlviz/reader.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/htab.h"
#include "input/input.h"

/*
 * A run's start is given as an op timing of its own, of op type
 * CLI_OP_RUN_START (input.h): begin_ns to end_ns, from the last ask to the
 * first op's work; duration_ns adds value, the first barrier's wait for
 * the worker threads, which comes after the first op.
 */

/* How many times longer (at its floor) an op must be than the next for the next's excess to be its wait. */
#define CLI_TICKS_LEAD 4

/* The most threads whose runs are followed; ops of others pass unchanged. */
#define CLI_TICKS_THREADS 256

/* The most nodes whose floors are kept (about 20 MiB); ops of others pass unchanged. */
#define CLI_TICKS_NODES (1u << 18)

/* --raw-ticks (stats, diff, report, export), a long option only. */
#define CLI_OPT_RAW_TICKS 0x100

/* --as-ticks (stats, diff), a long option only: measured CPU ops read as ticked (input/as-ticks.c). */
#define CLI_OPT_AS_TICKS 0x101

/* The help of --as-ticks (stats, diff). */
#define CLI_AS_TICKS_HELP                                                                    \
	"      --as-ticks     CPU ops that were measured (every worker thread's share, a\n"    \
	"                     GGML built with libggmlviz's edit) read as if the backend\n"    \
	"                     had only ticked: each op ends where thread 0 ended its\n"       \
	"                     share, then the estimate as for a ticked trace; to compare\n"   \
	"                     the estimate with the measure (bench/ticks-truth.sh)\n"

/* The help of --raw-ticks (stats, diff, report). */
#define CLI_RAW_TICKS_HELP                                                                   \
	"      --raw-ticks    ops timed by the CPU backend's ticks as ticked: without it,\n"      \
	"                     a file is read twice and each CPU run's start is told\n"          \
	"                     apart from its first op, as \"(run start)\", and the wait at\n"  \
	"                     GGML's barrier is moved back to the op that caused it\n"          \
	"                     (both estimated: see libggmlviz(7))\n"

struct cli_tick_thread;

/*
 * What the estimate could not do, for the commands to say (what it did,
 * each command sums from the timings it keeps: a phase's, say).
 */
struct cli_ticks_sums {
	uint64_t unsplit; /* first ops whose work could not be told (no peer): left whole */
	uint64_t passed;  /* tick-timed ops left as they were (no floor, or past the caps) */
};

/* Floors learnt in a first pass, and the state of the second. Zeroed: empty. */
struct cli_ticks {
	bool learnt;             /* a first pass ran: the second estimates */
	bool raw;                /* asked not to: every timing passes as it is */
	struct cli_htab floors;  /* node key -> struct cli_tick_floor */
	struct cli_htab rates;   /* op type -> least ns per byte of its non-first nodes */
	struct cli_tick_thread *threads;
	uint32_t n_threads, last; /* threads followed; the one found last */
	struct cli_ticks_sums sums;
};

/* What the estimate says of an op it gives (zero for any other timing). */
struct cli_tick_est {
	uint64_t wait_ns;  /* barrier wait moved into its time, from the op after it */
	uint64_t above_ns; /* its time above its node's floor, left in it: its own variation,
			      or a wait for the op before that could not be told apart */
	bool held;         /* the estimate had the op: ticked_* say it as ticked (else the
			      timing given is as ticked) */
	uint64_t ticked_begin_ns, ticked_ns;
};

/* Where timings go after the estimate: 0, or a negative code that stops the feed. */
typedef int (*cli_timing_sink)(void *ctx, const struct ggmlviz_timing *t,
			       const struct cli_tick_est *e);

/* First pass: learns t's node floor (other timings are ignored); 0 or -ENOMEM. */
int cli_ticks_learn(struct cli_ticks *k, const struct ggmlviz_timing *t);

/* Ends the first pass: the rates, and the second pass ready; 0 or -ENOMEM. */
int cli_ticks_ready(struct cli_ticks *k);

/*
 * Second pass: gives t to sink, or holds it until the op after it on its
 * thread says its wait (without a first pass, or raw, every timing goes
 * straight to sink). The timings given are sink's to read only then: a
 * held op's label is a copy, valid during the call. 0, or what sink or
 * an allocation returned.
 */
int cli_ticks_feed(struct cli_ticks *k, const struct ggmlviz_timing *t, cli_timing_sink sink,
		   void *ctx);

/* Gives sink what is still held; 0 or what sink returned. */
int cli_ticks_flush(struct cli_ticks *k, cli_timing_sink sink, void *ctx);

/*
 * Reads path a first time to learn its floors, up to any damage (the
 * second pass reports it). Nothing is learnt, and k stays as ticked, when
 * path is not a regular file, when k->raw, or without the memory.
 */
void cli_ticks_learn_file(struct cli_ticks *k, const char *cmd, const char *path);

/* Frees what k holds and leaves it empty, as ticked (its raw kept); k may be NULL. */
void cli_ticks_free(struct cli_ticks *k);

#endif /* CLI_TICKS_H */
