/*
 * A thread's runs of asked nodes and the runs kept for their graphs'
 * next runs: the state nodes.c records from and kept-runs.c keeps.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_TRACER_PRODUCER_RUN_H
#define GGMLVIZ_TRACER_PRODUCER_RUN_H

#include <stdint.h>

#include <ggmlviz/nodes.h>

#include "tracer/producer/producer.h"

#define RUN_MIN 64u
#define KEPT_RUNS 4u /* runs whose descriptions are kept: a step's splits (CPU, GPU, ...) */
#define AHEAD 16u    /* nodes fetched into the cache before they are needed (see ahead()) */
#define IDS_SEEN 8u   /* the ids the thread's last runs were named by: one seen there is kept */

struct run;
/* The calling thread's run (nodes.c), or NULL before its first ask. */
extern _Thread_local struct run *ggmlviz__tls_run __attribute__((tls_model("initial-exec")));

/* A run's descriptions, kept for the next run of the same split graph. */
struct kept {
	uint64_t graph_id;               /* GGML's id of the split graph; 0: empty */
	ggmlviz_node_describe_fn describe;
	void *user;
	const void **nodes;              /* its nodes, in order */
	struct ggmlviz_node_desc *desc;  /* and their descriptions */
	uint32_t *ticking;               /* the places of the nodes that tick (expected of them) */
	uint32_t n, cap, expected;       /* expected: the ticks they give */
	uint64_t used;                   /* when last used, in runs: the oldest is replaced */
	uint64_t set;                    /* its id in DESC_SET records: new when it is kept */
	uint64_t shares_set;             /* a set of shares found to be its ticking nodes, in order (0: none) */
	struct ggmlviz__written written;          /* where its descriptions were written (DESC_SET DEFINE) */
	void **nvtx_names;               /* NVTX level 2: its ops' names, registered (or NULL) */
	int ticked;                      /* its last run got ticks: a backend that ticks computes it */
	int measured;                    /* its last run was measured (shares): its asks need no stamp */
	int ask_always;                  /* its last run's nodes were each asked in full (ggmlviz_nodes_ask_always()) */
	uint64_t session;                /* the session of its last run (ggmlviz_nodes_asked_before()) */
};

struct run {
	struct ggmlviz__perthread_item item; /* first: listed, freed when its thread ends */
	const void **nodes;              /* the run's nodes, in order */
	uint64_t *ticks;                 /* the stamp of each tick (one per node at most) */
	uint64_t *gpu;                   /* a GPU backend's own time of each node: begin, end stamps (0: none) */
	uint64_t *cpu;                   /* the CPU backend's measured time of each node: its shares' first begin, last end */
	uint32_t cpu_timed, cpu_hint;    /* nodes given a measured time; where the last one was found */
	uint64_t *op_begin, *op_end;     /* a repeated run's ops' times, in order, packed at its end (OP_TIMES) */
	/*
	 * Measured times given at their own places (a graph that is the run's
	 * nodes: llama.cpp's at every token) are kept in order, in op_begin
	 * and op_end at [0, dense_n), with their places in dense_place, and
	 * not in cpu: a run that repeats its kept set writes its OP_TIMES from
	 * there. By place they were stores into a line for every four of the
	 * graph's places (views too), lines the weights had pushed out of the
	 * caches since, then read in the kept set's order, copied here and
	 * cleared at the run's end. They are moved to cpu (by place) before
	 * any time is written there, and at the end of any other run: one
	 * that defines its set (its ops written one by one), a place
	 * measured twice, places not its kept set's (ggmlviz__run_measured_spill()).
	 */
	uint32_t *dense_place;
	uint32_t dense_n;
	/*
	 * Of them, how many from the first the two workers' hand-over found in
	 * ggmlviz__times_pack()'s order as it kept them (0: not known), so that
	 * the run's end does not read them all again to check it.
	 */
	uint32_t dense_ordered;
	/*
	 * At one thread, the times of its graph's shares, as their SHARE_TIMES
	 * bodies (packed.h), of share set copy_set at places copy_at of nodes
	 * copy_node (shares.c's, which only the thread's next graph's end
	 * writes over, after it gave them by place): its OP_TIMES' own bytes
	 * where the run repeats a kept set whose ticking nodes they are; else
	 * given by place (ggmlviz__run_copy_settle()).
	 */
	const struct ggmlviz__packed_copy *copy;
	const uint32_t *copy_at;
	const uint64_t *copy_node;
	uint64_t copy_set;
	uint32_t gpu_timed, gpu_hint;    /* nodes given a time; where the last one was found */
	struct ggmlviz_node_desc *desc;  /* filled when the run is recorded */
	const struct ggmlviz_node_desc *d; /* what it is recorded with: desc, or a kept run's */
	uint32_t n, cap;
	uint32_t n_ticks;                /* ticks received (those past n are counted only) */
	uint32_t lost;                   /* asks that could not be stored (out of memory) */
	const void *backend;
	ggmlviz_node_describe_fn describe;
	void *user;
	uint64_t session;
	uint64_t last_ask_stamp;         /* the run's last ask (a raw stamp, clock.h): its first op begins there */
	int asks_unstamped;              /* its graph's last run was measured: only its first ask is stamped */
	uint64_t run_id;                 /* while GPU kernels are recorded: the run's id, else 0 */
	int gpu_hooked;                  /* the GPU's run hook saw its begin: it sees its end */
	uint64_t graph_id;               /* GGML's id of its split graph (ggmlviz_nodes_graph_id()), else 0 */
	uint64_t named_id;               /* the id its describer named it by at its first node, else 0 */
	int named_kept;                  /* the describer was told its name is kept (naming 2) */
	uint64_t ids_seen[IDS_SEEN];     /* the ids the thread's last IDS_SEEN named runs were named by */
	uint32_t ids_at;                 /* where the next one goes */
	struct ggmlviz__steps_seen steps; /* steps alone or no session: splits seen (steps-asks.c) */
	struct kept kept[KEPT_RUNS];
	struct kept *again;              /* the kept run of the open run's graph id, if any */
	const struct kept *fast;         /* the kept run whose nodes ggmlviz_nodes_ask_again() takes */
	int ask_always;                  /* its nodes must each be asked in full when it runs again */
	struct kept *set;                /* the kept run it is recorded with, if any (DESC_SET) */
	uint64_t sets;                   /* sets kept by this thread: the last one's id */
	uint64_t closed;                 /* runs recorded with an id: the kept runs' clock */
	uint32_t described;              /* nodes described so far (at NVTX level 2, as ticks come) */
	uint32_t described_ticks;        /* the ticks those give */
	unsigned nvtx;                   /* the mask's NVTX bits at its start: its ranges (nvtx.h) */
	uint32_t nvtx_next;              /* where the next op's range is looked for */
	uint32_t nvtx_match;             /* asks that matched its kept run's nodes, in order */
	int nvtx_op;                     /* an op's range is open */
	struct kept *nvtx_kept;          /* the kept run its nodes are, known before they compute */
	int open;
	int ignore_ticks;                /* sync mode, or ops sampled out */
	int staged;                      /* rolling mode: its records held until its unit ends (stage.c) */
};

/* The kept run of r's graph id, nodes and describer, if any; nothing noted. */
struct kept *ggmlviz__kept_find(struct run *r);
/*
 * The kept run of r's graph, nodes and describer, now used by r (its
 * clock, session and last run's ticks and asks noted); NULL if none.
 */
struct kept *ggmlviz__kept_reused(struct run *r);
/*
 * Keeps the descriptions of r, just described, expecting so many ticks:
 * the slot they are in, or NULL when it cannot grow (it is then emptied).
 */
struct kept *ggmlviz__keep(struct run *r, uint32_t expected);
/* Whether kp (or NULL) was last run in r's session, by r's describer and user. */
static inline int ggmlviz__kept_is_runs(const struct kept *kp, const struct run *r)
{
	return kp && kp->session == r->session && kp->describe == r->describe && kp->user == r->user;
}
/* The kept run of the run's graph id, whose nodes the asks fetch ahead. */
struct kept *ggmlviz__kept_again(struct run *r);

/* ---- the run's records at its end (run-records.c) ---- */

/* Node i of r measured from begin to end, by place (cpu). */
static inline void ggmlviz__run_measured_at(struct run *r, uint32_t i, uint64_t begin, uint64_t end)
{
	r->cpu_timed += !r->cpu[2 * i + 1];
	r->cpu[2 * i] = begin;
	r->cpu[2 * i + 1] = end;
	r->cpu_hint = i + 1;
}

/*
 * The measured times r kept in order moved to cpu, by place, as any
 * other's: before a time is written there by place (a later one must
 * take the place), and at the run's end unless its OP_TIMES are written
 * from them.
 */
static inline void ggmlviz__run_measured_spill(struct run *r)
{
	for (uint32_t k = 0; k < r->dense_n; k++)
		ggmlviz__run_measured_at(r, r->dense_place[k], r->op_begin[k], r->op_end[k]);
	r->dense_n = r->dense_ordered = 0;
}

/* The kept measured times of r, kept of them, moved to cpu by place (above); 0. */
static inline uint32_t ggmlviz__run_spilled(struct run *r, uint32_t kept)
{
	r->dense_n = kept;
	ggmlviz__run_measured_spill(r);
	return 0;
}

/*
 * node measured from begin to end, looked for in r's nodes (r NULL: none
 * open); counted (ggmlviz__state.shares_unasked) where it is not there.
 */
void ggmlviz__run_measured_search(struct run *r, const void *node, uint64_t begin, uint64_t end);

/*
 * r's copied times (copy, above) given as the hand-over gives them: in
 * order where each node is at its own place in r, else looked for (a node
 * not there counted then, at the run's end or the thread's next graph's,
 * not at its own graph's); the copy forgotten. Each time is the packed
 * one, below its stamp by less than a packed record's quantum
 * (1 << ggmlviz__clock_share_shift stamps).
 */
void ggmlviz__run_copy_settle(struct run *r);

/* A SPLIT record of r at ts, recorded now or held with its run's unit (rolling mode). */
void ggmlviz__run_record_split(const struct run *r, uint64_t ts, uint8_t type,
			       const struct ggmlviz__split *s);
/*
 * The ops of r, closing with its descriptions (r->d) and `expected` ticks
 * among them, recorded as they were timed: every share measured, else its
 * ticks where they match, else a GPU's own times, else its kernels' run
 * (at end); a tick count that matches nothing is counted. Returns the ops
 * timed.
 */
uint32_t ggmlviz__run_record_ops(struct run *r, uint32_t expected, uint64_t end);

#endif
