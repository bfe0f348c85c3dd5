/*
 * Findings (tools/advise/): what slows a run, said with its evidence from
 * the trace, the threshold it crossed, why it costs and what to try;
 * ggmlviz advise prints them, the report opens on them, stats ends with
 * them. What the rules read is gathered in passes of their own over the
 * trace (facts.c); each rule (rules.c, rules-gpu.c, rules-trace.c) fires,
 * stays silent, or says why it was not applied (a trace without names,
 * steps, a measured peak, ...): none fires on a guess. advise-print.c
 * writes them as text or JSON, each with a stable id.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_ADVISE_H
#define CLI_ADVISE_H

#include <stdbool.h>
#include <stdint.h>

#include "advise/usage.h"
#include "memory/memory.h"
#include "output/output.h"
#include "rpc/rpc.h"
#include "stats/stats.h"

struct cli;

/* ---- what the rules read (facts.c) ---- */

/*
 * Consecutive generation steps summed, in order, for the rules that follow
 * the context: a trace's steps fill CLI_ADVISE_GEN_BINS of them, each
 * holding twice as many steps whenever they are full (memory flat).
 */
struct cli_gen_step {
	uint64_t steps, context, step_ns, op_ns, attention_ns, start_ns;
	uint64_t kernel_ns, kernel_step_ns; /* of its sampled steps: their kernels', their time */
};
#define CLI_ADVISE_GEN_BINS 4096

/* One step's sums, while the trace is read (until CLI_ADVISE_ENDED later steps ended). */
struct cli_step_acc {
	uint64_t seq, step_ns, tokens, op_ns, attention_ns, start_ns, kernel_ns;
	uint64_t runs, gpu_runs, switches, gap_ns, copy_bytes, copies;
	uint64_t last_end, last_backend;
	uint32_t phase, context;
	uint8_t gpu_window;
	bool ended, has_context, housekeeping;
};
#define CLI_ADVISE_ENDED 256
#define CLI_ADVISE_OPEN_STEPS 65536 /* steps followed at once; past them counted (steps_over) */

#define CLI_ADVISE_LAYERS 1024 /* layers followed by backend */
#define CLI_ADVISE_OPS 8       /* op types of a finding's list */

/* Ops by op type, with their time (the most first). */
struct cli_op_tally {
	char op[CLI_OP_NAME_MAX];
	uint64_t count, ns;
};

/* The CPU's ops of one op type in one layer (generation). */
struct cli_layer_op {
	int32_t layer;
	char op[CLI_OP_NAME_MAX];
	uint64_t count, ns;
};
#define CLI_ADVISE_LAYER_OPS 4096

struct cli_facts {
	const char *path;
	/* the trace itself */
	bool ended, crashed, damaged;
	char damage[256];
	uint64_t written, dropped, drop_records;
	bool sampled, summed;
	char sample_note[200];
	uint64_t window_steps[4], window_k, window_n;
	bool kernels_recorded;
	bool ops_named, names_assumed, tensor_names, parts_named;
	bool flash_attn; /* an op of the trace is FLASH_ATTN_EXT */
	/* META THREADS */
	bool has_threads;
	uint32_t n_threads, n_threads_batch, cpus_allowed, cpus_online; /* the last said */
	uint32_t threads_most; /* the most threads any of them said */
	/* by op, all steps and generation's: runs' starts, waits, shares, bounds */
	struct cli_agg all, gen;
	bool has_gen;
	/*
	 * steps: those open or ended lately (by step_seq), the ring of the
	 * ended ones not summed yet; the generation steps in order (bins)
	 */
	struct cli_htab steps;
	uint64_t ended_seq[CLI_ADVISE_ENDED];
	size_t n_ended;
	uint64_t n_steps, late_ops, summed_up_to, steps_over;
	struct cli_gen_step gens[CLI_ADVISE_GEN_BINS];
	size_t n_gens;
	uint64_t gen_stride;
	uint64_t gen_steps, gen_tokens, gen_step_ns, gen_op_ns, gen_runs, gen_gpu_runs;
	uint64_t gen_switches, gen_gap_ns, gen_copy_bytes, gen_copies;
	uint64_t gen_kernel_ns, gen_kernels;           /* kernels of generation's sampled steps */
	uint64_t gen_kernel_steps, gen_kernel_step_ns; /* ... those steps (every one, without windows) */
	bool has_context, has_gpu_runs;
	/* layers by backend (generation): the CPU's products, ops, and the GPU's ops */
	uint8_t layer_cpu_mat[CLI_ADVISE_LAYERS], layer_cpu[CLI_ADVISE_LAYERS];
	uint64_t layer_cpu_ns[CLI_ADVISE_LAYERS];
	struct cli_layer_op *layer_ops; /* the CPU's ops by layer and op type */
	size_t n_layer_ops, layer_ops_cap;
	uint64_t layer_ops_over;
	struct cli_part_seen seen;
	/* COUNTER sched_copy_bytes by the thread's open step */
	uint64_t thread_step[64][2];
	uint64_t steps_begun;
	/* the process's CPU use between the first and the last META USAGE, the steps between */
	struct cli_usage usage;
	/* memory by device; a server's requests */
	struct cli_mem_devices mem;
	struct cli_requests req;
	bool has_req, request_records;
	/* GGML's RPC: where each step's time went, by host (a merged client and servers) */
	struct cli_rpc_hosts rpc;
	bool has_rpc, rpc_records;
	struct cli_agg *also; /* borrowed: a grouping of the command's, fed as it reads */
	int error;
};

/*
 * Reads what the rules need of path: a first pass (the op times' floors), a
 * second of every record, and a third of a server's requests where it has
 * some. also, where not NULL, is fed every timing of the second pass as
 * cli_collect() would feed it, and finished (stats: one read for its table
 * and its findings). The command's exit status: 0, CLI_EXIT_DAMAGED after a
 * message (what came before the damage is read); -1 after a message when
 * path cannot be read at all.
 */
int cli_facts_read(const char *cmd, const char *path, struct cli *cli, struct cli_facts *f,
		   struct cli_agg *also);
void cli_facts_free(struct cli_facts *f);

/* ---- the findings ---- */

enum { CLI_ADVISE_WARN, CLI_ADVISE_NOTE }; /* slows the run; what the trace can say */

#define CLI_ADVISE_FIGURES 8

struct cli_finding {
	const char *id;           /* stable: what --fail-on and CI name */
	int level;
	char title[200];          /* the finding in one line, with its main figure */
	char seen[900];           /* what was seen, with the trace's figures */
	char threshold[240];      /* what made it a finding */
	const char *why;          /* why it costs */
	char to_try[600];         /* flags of llama.cpp's or the program's, build options */
	struct {
		const char *name;
		double value;
	} fig[CLI_ADVISE_FIGURES]; /* the figures, for JSON */
	int n_fig;
};

/* Whether a rule was applied to the trace, and why not. */
struct cli_rule_said {
	const char *id;
	bool applied, fired;
	char why_not[240];
};

#define CLI_ADVISE_RULES 20

struct cli_advice {
	struct cli_finding f[CLI_ADVISE_RULES];
	size_t n;
	struct cli_rule_said rules[CLI_ADVISE_RULES];
	size_t n_rules;
};

/* Every rule's id, in the order they run; NULL-terminated. */
extern const char *const cli_advise_ids[];

/* Applies every rule to f. */
void cli_advise(const struct cli_facts *f, struct cli_advice *a);

/* What the rules say to each other (rules*.c): a finding begun, a rule not applied. */
struct cli_finding *cli_advise_fire(struct cli_advice *a, const char *id, int level);
void cli_advise_figure(struct cli_finding *x, const char *name, double value);
void cli_advise_not(struct cli_advice *a, const char *id, const char *fmt, ...) CLI_PRINTF(3, 4);
void cli_advise_silent(struct cli_advice *a, const char *id);
/* The median of v's n values (sorted in place); 0 when n is 0. */
double cli_advise_median(double *v, size_t n);
/* Appends to the string buf (of size bytes) what fmt says, cut where it does not fit. */
void cli_advise_append(char *buf, size_t size, const char *fmt, ...) CLI_PRINTF(3, 4);
/* The rules, by what they read. */
void cli_rules_cpu(const struct cli_facts *f, struct cli_advice *a);
void cli_rules_gpu(const struct cli_facts *f, struct cli_advice *a);
void cli_rules_model(const struct cli_facts *f, struct cli_advice *a);
void cli_rules_trace(const struct cli_facts *f, struct cli_advice *a);
void cli_rules_rpc(const struct cli_facts *f, struct cli_advice *a);

/* ---- as text and JSON (advise-print.c) ---- */

/* Each finding whole, then the rules not applied and why. */
void cli_advise_text(struct cli_out *o, const char *path, const struct cli_advice *a);
void cli_advise_json(struct cli_out *o, const char *path, const struct cli_advice *a);
/* Their members of a JSON object: "findings":[...],"rules":[...] (advise --slow's object holds more). */
void cli_advise_json_members(struct cli_out *o, const struct cli_advice *a);
/* stats' last lines: one line a finding, and the command that says it whole (nothing when none). */
void cli_advise_brief(struct cli_out *o, const char *path, const struct cli_advice *a);

#endif /* CLI_ADVISE_H */
