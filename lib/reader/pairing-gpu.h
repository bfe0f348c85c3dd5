/*
 * GPU runs in the pairing engine (pairing-gpu.c): a run's nodes are held
 * until its kernels are in, then tied to them (tie.c) and given the
 * kernels' times.
 *
 * A GPU run is a SPLIT_BEGIN with a run id. The tracer records its
 * computing nodes (op pairs of method GGMLVIZ_OP_METHOD_GPU) at its end,
 * and the kernels it launched come later, as KERNEL records of that run id
 * on a GPU track. A run is complete when a kernel of a later run on the
 * same device comes (a device runs a stream's kernels in order), when it
 * has waited for RUNS_WAIT later runs without any kernel, or at the end.
 *
 * The writer drains each thread's ring in turn, so the profiler's thread's
 * KERNEL records may reach the file before the records of the run that
 * launched them (a window's last run, whose kernels are written at once as
 * CUPTI detaches): a kernel of a run id newer than any begun is held until
 * that run begins (run ids only grow), and is untied only if it never does.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_PAIRING_GPU_H
#define GGMLVIZ_PAIRING_GPU_H

#include <stdint.h>

#include <ggmlviz/reader.h>

#include "util/map.h"

struct ggmlviz__ties_kernel;
struct ggmlviz__ties_run;
struct ggmlviz__ties_early;

struct ggmlviz__ties {
	struct ggmlviz__ties_run *runs;   /* waiting for kernels, oldest first */
	uint32_t n_runs, runs_cap;
	struct ggmlviz__ties_early *early; /* kernels read before their run began, in order */
	uint32_t n_early, early_cap;
	uint64_t last_run;                /* the newest run id begun */
	struct ggmlviz_timing *queue;    /* completed, not yet taken: [head, head + len) */
	uint32_t q_head, q_len, q_cap;
	struct ggmlviz__map op_names;    /* op_type -> index in names */
	struct { const char *s; uint32_t len; } *names;
	uint32_t n_names, names_cap;
	int error;                       /* -ENOMEM met: timings were lost, counted */
};

/* Forgets every run, queued timing and name (zeroed: empty). */
void ggmlviz__ties_clear(struct ggmlviz__ties *g);
void ggmlviz__ties_free(struct ggmlviz__ties *g);

/* A META OP_NAME: the names the tying needs (borrowed label). */
void ggmlviz__ties_op_name(struct ggmlviz__ties *g, const struct ggmlviz_event *ev);

/* A GPU run begins: split is its SPLIT_BEGIN's timing, step fields set. */
void ggmlviz__ties_run_begin(struct ggmlviz__ties *g, const struct ggmlviz_timing *split,
			    struct ggmlviz_pairing_counts *c);

/*
 * An op of method GPU ended: held in the run open on its thread; 1, or 0
 * when no run holds it (the caller returns it as it is).
 */
int ggmlviz__ties_node(struct ggmlviz__ties *g, const struct ggmlviz_timing *t,
		      struct ggmlviz_pairing_counts *c);

/* A GPU run ends (its SPLIT_END): its nodes are all in. */
void ggmlviz__ties_run_end(struct ggmlviz__ties *g, const struct ggmlviz_timing *split);

/* A KERNEL record: kept for its run, or queued untied; earlier runs it completes are tied. */
void ggmlviz__ties_kernel(struct ggmlviz__ties *g, const struct ggmlviz_event *ev,
			 struct ggmlviz_pairing_counts *c);

/* The end: every run waiting is tied with the kernels it has. */
void ggmlviz__ties_finish(struct ggmlviz__ties *g, struct ggmlviz_pairing_counts *c);

/* The oldest completed timing: 1, or 0 when none waits. */
int ggmlviz__ties_take(struct ggmlviz__ties *g, struct ggmlviz_timing *t);

#endif /* GGMLVIZ_PAIRING_GPU_H */
