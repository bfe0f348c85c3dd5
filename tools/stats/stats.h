/*
 * Op timings grouped for stats, diff and the report (tools/stats/): the
 * groups and their distributions (agg.c, dist.c), the reading that fills
 * them (collect.c), their JSON (agg-json.c), and the tables of steps,
 * phases and splits (steps-print.c), and each backend's runs and how its
 * ops were timed (backends.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_STATS_H
#define CLI_STATS_H

#include <ggmlviz/reader.h>
#include <stdint.h>

#include "base/htab.h"
#include "input/input.h"
#include "memory/memory.h"
#include "base/opts.h"
#include "output/output.h"
#include "stats/ticks.h"

/* ---- Op timings in groups, each with its distribution (agg.c, dist.c, collect.c, agg-json.c) ---- */

/*
 * Durations in constant memory: values below 64 ns are counted exactly,
 * larger ones in 32 buckets per power of two, so a quantile (the middle of
 * its bucket, kept within [min, max]) is off by less than 1/64 (1.6%) of
 * the true value (the first and last ranks are the exact min and max). At
 * most 1920 counters, allocated for the range seen.
 */
struct cli_dist {
	uint64_t count, total, min, max;
	/*
	 * Of count, values known only by their sum (OP_SUMMARY): in count,
	 * total and max, not in min, the buckets or the quantiles, which are
	 * of the others; one_max is the largest of those others.
	 */
	uint64_t summed, one_max;
	uint64_t *buckets; /* n counters for the buckets lo .. lo + n - 1 */
	uint32_t lo, n;
	/* Counter bytes of every distribution of the command (struct cli's dist_bytes), set by its owner. */
	uint64_t *spent;
};

/* Adds one value; 0 or -ENOMEM. */
int cli_dist_add(struct cli_dist *d, uint64_t v);
/* Adds n values known by their total and their largest only (summed). */
void cli_dist_add_sum(struct cli_dist *d, uint64_t n, uint64_t total, uint64_t max);
/* Adds every value of from to into (both of the same budget); 0 or -ENOMEM. */
int cli_dist_merge(struct cli_dist *into, const struct cli_dist *from);
/* The q-quantile (0 < q <= 1) by nearest rank, 0 when empty. */
uint64_t cli_dist_quantile(const struct cli_dist *d, double q);
void cli_dist_free(struct cli_dist *d);

/* What op timings are grouped by (--by). */
enum cli_by { CLI_BY_OP, CLI_BY_NAME, CLI_BY_LAYER, CLI_BY_THREAD, CLI_BY_BACKEND,
	      CLI_BY_STEP, CLI_BY_PHASE, CLI_BY_METHOD, CLI_BY_KERNEL, CLI_BY_SEQUENCE,
	      CLI_BY_REQUEST, CLI_BY_PART, CLI_BY_HOST, CLI_BY_COMMAND };

/* ---- The parts of a llama.cpp or whisper.cpp model (parts.c): what --by part groups by ---- */

/* llama.cpp's parts, then whisper.cpp's own (its conv front end and its three attentions) */
enum cli_part { CLI_PART_EMBEDDING, CLI_PART_ATTN_PROJ, CLI_PART_ATTENTION, CLI_PART_ATTN_OUT,
		CLI_PART_KV_WRITE, CLI_PART_NORM, CLI_PART_FFN, CLI_PART_MOE_ROUTER,
		CLI_PART_MOE_EXPERTS, CLI_PART_OUTPUT, CLI_PART_CONV, CLI_PART_ENC_ATTN,
		CLI_PART_DEC_ATTN, CLI_PART_CROSS_ATTN, CLI_PART_OTHER, CLI_PARTS };
/* "embedding", "attention-projections", ..., "(other)", then NULL. */
extern const char *const cli_part_names[CLI_PARTS + 1];
/* Part id's name; "(other)" for an id no part has. */
const char *cli_part_name(uint64_t id);

/*
 * What a tensor name says of its op's part (cli_part_class()): a part, or
 * one of these: a node named after the KV cache (its op decides), or a
 * name no rule knows.
 */
#define CLI_PART_CLASS_KV (CLI_PARTS + 1)
#define CLI_PART_CLASS_NONE (-1)
#define CLI_PART_CLASS_KQV_OUT (CLI_PARTS + 2) /* "kqv_out": attention, or a MUL_MAT its output */
/* whisper.cpp's "dec.token_embedding": the embedding, or (a MUL_MAT) the output projection */
#define CLI_PART_CLASS_TOKEN_EMBD (CLI_PARTS + 3)

/*
 * The class of an op's tensor name (label, len bytes, not NUL-terminated;
 * a fused pair "a + b" by its first name that places it): by the names
 * llama.cpp's graph builder gives (cb()), less GGML's suffixes and the
 * layer's "-N".
 */
int cli_part_class(const char *label, size_t len);
/*
 * The part of an op of that class and op name (NULL: unknown): a
 * FLASH_ATTN_EXT is attention; a node of the KV cache writes it when it
 * copies into it (SET_ROWS, CPY, SET), else is attention (or, of an op no
 * name says, CLI_PART_OTHER); a name no rule knows is CLI_PART_OTHER,
 * whatever its op.
 */
int cli_part_resolve(int part_class, const char *op);
/* Both: the part of an op named label of op type name op. */
int cli_part_of(const char *label, size_t len, const char *op);
/* The parts of the latest ops, by their tensor: what a node's source was placed in. */
struct cli_part_seen {
	struct {
		uint64_t ptr;
		int part;
	} s[256];
};

/*
 * The part of op timing t, whose name's class is part_class and op name op
 * (not NULL), with the parts of the ops before it in *seen (updated). An
 * op whose name places it nowhere, a MUL_MAT of attention's output (its
 * src[1] an op placed in attention), is attention-output: models whose
 * builder leaves the output projection unnamed (gemma's).
 */
int cli_part_place(struct cli_part_seen *seen, const struct ggmlviz_timing *t, int part_class,
		   const char *op);

struct cli_agg;
/*
 * By part, the group of op timing t: its part (below CLI_PARTS) where the
 * op's name is known (a->reader); else, and for (other), its name's class
 * and op type ((class + 2) << 32 | op_type), which cli_agg_finish() places
 * once every op is named (cli_part_place()).
 */
uint64_t cli_part_key(struct cli_agg *a, const struct ggmlviz_timing *t);

/* By sequence (sequences.c): one request of llama-server, from the steps' STEP_SEQ records. */
struct cli_seq_sum {
	int32_t seq;
	uint64_t steps, prompt_tokens, generated, context, first_ns, last_ns;
	double ns; /* its share of its steps' time, by tokens */
};

struct cli_sequences {
	struct cli_seq_sum *s; /* by sequence id; cli_sequences_top(): the most time first */
	size_t n, shown;       /* shown: the first ones the text and JSON give (--top) */
	uint64_t steps, steps_without; /* steps, and those that said no sequence */
	uint64_t housekeeping;         /* steps labelled warmup or probe: counted in no sequence */
};

/* Reads path's steps and their sequences; the command's exit status, or -1 when unreadable. */
int cli_sequences_collect(const char *cmd, const char *path, struct cli_sequences *out);
/* --top N: the N sequences of the most TIME first, the others not shown. */
void cli_sequences_top(struct cli_sequences *s, uint64_t top);
void cli_sequences_text(struct cli_out *o, const char *path, const struct cli_sequences *s);
void cli_sequences_json(struct cli_out *o, const char *path, const struct cli_sequences *s);
void cli_sequences_free(struct cli_sequences *s);
/*
 * Every record of path, then each timing the records complete, paired by
 * an engine of its own (the records a timing gathers, such as a step's
 * STEP_SEQ, come before it): what stats --by sequence and --by request
 * read. timing's negative value stops the reading.
 */
struct cli_each {
	void (*event)(const struct ggmlviz_event *ev, void *arg); /* may be NULL */
	int (*timing)(const struct ggmlviz_timing *t, void *arg);
	void (*opened)(const struct ggmlviz_reader *r, void *arg); /* may be NULL: the reader, for names */
};

/* The command's exit status, -1 when unreadable (said), or a negative errno. */
int cli_each_timing(const char *cmd, const char *path, const struct cli_each *each, void *arg,
		    struct ggmlviz_pairing_counts *counts);

/* By request (requests.c): one request to a server, from its REQUEST records. */
struct cli_request {
	uint64_t id, arrival_ns, prompt_ns, first_token_ns, end_ns; /* prompt_ns: its prompt's start */
	uint64_t pid; /* the process that served it (a merged trace holds several) */
	uint32_t kind, prompt_tokens, cached_tokens, generated;
	int32_t slot, status;
	char stop[24]; /* why it stopped, as the server said */
};

struct cli_requests {
	struct cli_request *r; /* in the order they arrived; cli_requests_top(): the longest first */
	size_t n, shown;       /* shown: the first ones the text and JSON give (--top) */
	uint64_t steps, housekeeping; /* steps, and those labelled warmup or probe (in no request) */
	uint64_t unended, over;       /* requests never ended in the trace; past the ones held */
};

/* What stats --by request gives of each request, in ns (queue: arrival to its prompt's start). */
enum cli_request_figure { CLI_REQ_QUEUE, CLI_REQ_PROMPT, CLI_REQ_TTFT, CLI_REQ_PER_TOKEN,
			  CLI_REQ_TOTAL, CLI_REQ_FIGURES };
extern const char *const cli_request_figure_names[CLI_REQ_FIGURES]; /* "queue", ..., "total" */
/* One figure of a request in ns: 0, or -1 when its records do not give it. */
int cli_request_figure(const struct cli_request *r, enum cli_request_figure f, uint64_t *ns);

/* Reads path's requests; the command's exit status, or -1 when unreadable. */
int cli_requests_collect(const char *cmd, const char *path, struct cli_requests *out);
/* --top N: the N requests of the longest TOTAL first (those never ended after them), the others not shown. */
void cli_requests_top(struct cli_requests *s, uint64_t top);
void cli_requests_text(struct cli_out *o, const char *path, const struct cli_requests *s);
void cli_requests_json(struct cli_out *o, const char *path, const struct cli_requests *s);
void cli_requests_free(struct cli_requests *s);

extern const char *const cli_by_names[];

/* How groups are sorted (--sort): by a value, biggest first, or by name. */
enum cli_sort { CLI_SORT_TOTAL, CLI_SORT_COUNT, CLI_SORT_MEAN,
		     CLI_SORT_MIN, CLI_SORT_MAX, CLI_SORT_P50, CLI_SORT_P95,
		     CLI_SORT_GFLOPS, CLI_SORT_NAME, CLI_SORT_ORDER, CLI_SORT_GBPS };
extern const char *const cli_sort_names[];

struct cli_group {
	uint64_t id;       /* op type, layer + 1 (0: none), thread id, backend, step, phase, method */
	char *key;         /* by name: the tensor name (owned); else NULL */
	size_t key_len;
	char *name;        /* display name (owned, NUL-terminated), set by _finish */
	size_t name_len;
	struct cli_dist d;
	uint64_t flops, flops_ns; /* work, and time, of the ops whose work is known */
	uint64_t bytes, bytes_ns; /* bytes moved, and time, of the ops whose bytes are known */
	uint64_t run_starts, run_start_ns; /* its ops that began a run (GGMLVIZ_NODE_RUN_START) */
	uint64_t wait_ns; /* of d.total: barrier waits charged to it from the ops after (ticks.h) */
	uint64_t above_ns; /* of d.total: its ops' time above their nodes' floors, left in them */
	uint64_t measured_ops, ticked_ops; /* its ops by how they were timed: measured, or by ticks */
	uint64_t p50, p95;        /* set by _finish */
	double sort_value;
	/* by step and by phase: the steps of the group, their tokens and time */
	uint64_t steps, tokens, step_ns;
	/* ... the most context of any (STEP_SEQ; by step: the step's own), 0 unknown */
	uint32_t context_tokens, context_cells, n_seqs;
	bool has_context;
	uint32_t phase; /* ... the phase of its last step (enum ggmlviz_phase) */
	/* by part: op time by layer (index layer + 1; 0: none), n_layers of them */
	uint64_t *layer_ns;
	uint32_t n_layers;
	char *example; /* by part, before the merge: the first tensor name seen (owned) */
};

/* By part: what "(other)" holds, by op type (the most time first), with a name of each. */
#define CLI_PART_OTHERS 4
struct cli_part_other {
	char op[CLI_OP_NAME_MAX];
	char example[48];
	uint64_t count, ns;
};

/* A backend's runs of nodes (SPLIT timings), and its op timings by method. */
struct cli_split_sum {
	uint64_t backend, count, ns, nodes, timed, mismatched;
	uint64_t ops[5]; /* op timings on this backend, by enum ggmlviz_op_method */
	uint64_t summed; /* its ops known by their sums per step (OP_SUMMARY) */
	uint64_t gpu_ns; /* the GPU time of its ops timed by kernels */
	char name[48]; /* the backend's, set by cli_backends_name() */
};
#define CLI_MAX_BACKENDS 16

/* Every backend's sums (backends.c), the first CLI_MAX_BACKENDS seen. Zeroed: empty. */
struct cli_backends {
	struct cli_split_sum s[CLI_MAX_BACKENDS];
	size_t n;
	uint64_t shares, share_ns, share_wait_ns; /* the CPU workers' measured shares (OP_SHARE): count, compute, wait */
};

/* The sums of backend, made on first sight; NULL past CLI_MAX_BACKENDS. */
struct cli_split_sum *cli_backends_of(struct cli_backends *b, uint64_t backend);
/* Counts a split (a run) or an op timing; other kinds are ignored. */
void cli_backends_add(struct cli_backends *b, const struct ggmlviz_timing *t);
/* Names each backend as the trace does. */
void cli_backends_name(struct cli_backends *b, const struct cli_names *n,
		       const struct ggmlviz_reader *r);
/* Each backend that ran runs, its runs' figures and how its ops were timed, in words. */
void cli_backends_text(struct cli_out *o, const struct cli_backends *b, const char *indent);
/* The same as a JSON member "splits": [...]. */
void cli_backends_json(struct cli_out *o, const struct cli_backends *b);

/* A group's share of all op time (0 to 1), and its mean duration in ns. */
struct cli_agg;
double cli_group_share(const struct cli_agg *a, const struct cli_group *g);
double cli_group_mean(const struct cli_group *g);

/* GFLOP/s of a group (flops per ns), or -1 when no op knows its work. */
double cli_group_gflops(const struct cli_group *g);
/* The group's GB/s over the ops whose bytes are known (OP_BYTES); -1 when none is. */
double cli_group_gbps(const struct cli_group *g);

/* Groups kept apart at most; the keys past it share one "(other groups)". */
#define CLI_MAX_GROUPS 65536

/* The machine's peak, from the trace's META PEAK record (roofline.c). */
struct cli_peak {
	bool known;
	uint32_t threads;
	double bytes_per_s, flop_per_s;
	char how[160];
};

/* Reads path's META PEAK, if it is a file that has one (a second reader: its first records). */
void cli_peak_read(const char *path, struct cli_peak *p);

/* The trace's META SHARES records (shares-said.c): the CPU backend's shares no op got. */
struct cli_shares_said {
	bool read;             /* the file could be read again (not a pipe) */
	uint64_t sessions;     /* records: 0 where the trace says nothing (an older writer's) */
	uint64_t unattributed; /* their sum */
	uint64_t beyond;       /* ... of which past the nodes or threads followed */
};

/* Reads path's META SHARES records, if it is a file (a second reader, to the end). */
void cli_shares_said_read(const char *path, struct cli_shares_said *s);

enum { CLI_BOUND_UNKNOWN, CLI_BOUND_MEMORY, CLI_BOUND_COMPUTE };

struct cli_group;
/*
 * What bounds g on a machine of peak p (CLI_BOUND_*), and in *share how
 * close it came: its bytes/s over the peak's when memory bounds it, its
 * FLOP/s over the peak's when arithmetic does. UNKNOWN (share 0) without a
 * peak, or without both bytes and flops.
 */
int cli_roofline(const struct cli_group *g, const struct cli_peak *p, double *share);

/*
 * --steps A-B: only steps A to B (numbered from 1, as --by step numbers
 * them) and what ran in them; A- from A on, -B up to B, A step A alone.
 * Zeroed: every step, and what ran outside them.
 */
struct cli_steps {
	uint64_t first, last; /* 0: no bound on that side */
};

/* Whether --steps was given. */
static inline bool cli_steps_set(const struct cli_steps *s)
{
	return s->first || s->last;
}

/* Whether step (a step_seq; 0: outside every step) is among s. */
static inline bool cli_steps_has(const struct cli_steps *s, uint64_t step)
{
	return !cli_steps_set(s) || (step && step >= s->first && (!s->last || step <= s->last));
}

/* Takes --steps' value into s; 0, or CLI_EXIT_USAGE after a message naming it. */
int cli_parse_steps(const char *cmd, const char *val, struct cli_steps *s);

/* The time that the steps of a --steps span (step-span.c): report's and export's window. */
struct cli_step_span {
	uint64_t begin, end;  /* the first chosen step's begin, the last one's end */
	uint64_t chosen;      /* steps of the trace among them */
	uint64_t last_step;   /* the trace's last step */
};

/* A timing read, to *w: the steps among s (STEP timings) widen it. */
void cli_step_span_add(struct cli_step_span *w, const struct cli_steps *s,
		       const struct ggmlviz_timing *t);
/* 0 when s is unset or w has a step; else CLI_EXIT_USAGE after saying which steps path has. */
int cli_step_span_check(const char *cmd, const char *path, const struct cli_steps *s,
			const struct cli_step_span *w);
/*
 * The span of s in the trace at path, by a pass of its own; 0, CLI_EXIT_DAMAGED
 * when path cannot be read (said), or as cli_step_span_check().
 */
int cli_step_span_read(const char *cmd, const char *path, const struct cli_steps *s,
		       struct cli_step_span *w);

/*
 * A first step that ran cold (cold.c): by layer, each layer's op time in
 * the trace's first step and in every step after it.
 */
#define CLI_COLD_LAYERS 256
struct cli_cold {
	uint64_t first_step;             /* the first step's step_seq; 0: no op in a step yet */
	uint32_t first_phase;            /* its phase (enum ggmlviz_phase) */
	uint64_t first[CLI_COLD_LAYERS]; /* each layer's op time in it */
	uint64_t later[CLI_COLD_LAYERS]; /* ... in every later step */
};

/* What cli_cold_find() says of a first step that ran cold. */
struct cli_cold_found {
	uint64_t step;             /* the first step's step_seq */
	uint32_t layer;            /* the first layer with ops in it */
	uint64_t ns, layers_ns;    /* that layer's op time there, and every layer's */
	double share, later_share; /* its part of the first step's layers' time, and of the later steps' */
	uint64_t excess_ns;        /* ns less the time its later part would have given it */
};


struct cli_advice;
struct cli_agg {
	int by;                       /* enum cli_by */
	uint32_t phase;               /* only timings of steps of this phase (enum ggmlviz_phase); 0: all */
	struct cli_steps step_range;  /* ... and of these steps (--steps) */
	struct cli_step_span span;    /* the steps of step_range the trace has (cli_step_span_check()) */
	struct cli_htab groups;
	uint64_t keys_folded;         /* timings of keys past CLI_MAX_GROUPS */
	uint64_t ops, op_ns, graphs, graph_ns;
	uint64_t steps, tokens, step_ns; /* every step (grouped by op, name, ...: the sampled ones) */
	/*
	 * Steps by their GPU window (ggmlviz_timing::gpu_window), every one;
	 * where kernels were recorded in sampled windows, the groupings other
	 * than by step and phase count only the sampled steps and what ran in
	 * them (cli_window_out()), and the op timings left out are counted.
	 */
	uint64_t window_steps[4];
	uint64_t window_ops_out;
	bool has_context;             /* a step said its context (STEP_SEQ) */
	struct cli_peak peak;         /* the machine's, when the trace says it */
	uint64_t run_starts, run_start_ns; /* ops that began a run, and their time */
	bool raw_ticks;               /* set by the command: tick-timed ops as ticked, no estimate */
	bool ticks_estimated;         /* a first pass learnt the floors: run starts and waits estimated */
	struct cli_ticks_sums ticks;  /* ... what the estimate could not do (ticks.h) */
	uint64_t starts, start_ns;    /* the runs' starts told apart (CLI_OP_RUN_START), in op_ns */
	uint64_t waits, wait_ns;      /* barrier waits moved back to the op that caused them */
	uint64_t above_ns;            /* time above the nodes' floors left in the ops */
	uint64_t summed, summed_ns;   /* ops known by their sums (OP_SUMMARY), in ops and op_ns */
	uint64_t summed_out;          /* ... left out: this grouping (name, layer) has no key for them */
	uint64_t measured;            /* ops measured (GGMLVIZ_OP_METHOD_MEASURED) */
	struct cli_shares_said said;  /* what the trace says of the shares no op got, where measured */
	struct cli_backends backends;  /* runs and op timings by backend */
	struct cli_cold cold;         /* by layer: a first step that ran cold, from every step */
	uint64_t t_first, t_last;     /* earliest begin, latest end of any timing */
	struct ggmlviz_pairing_counts counts;
	/*
	 * by part: the reader whose op names place the ops as they come
	 * (borrowed; NULL: placed when the groups are named), the parts of
	 * the latest ops by their tensor (what a node's source was), the op
	 * types most of "(other)" holds, and whether any op's name was placed
	 */
	const struct ggmlviz_reader *reader;
	struct cli_part_seen part_seen;
	struct cli_part_other others[CLI_PART_OTHERS];
	uint64_t other_ops;
	bool any_placed, any_label; /* ... and whether any op has a tensor name at all */
	struct cli_group **sorted; /* n groups, after _finish */
	size_t n;
	struct cli_names *names;   /* borrowed: the command's */
	uint64_t *dist_bytes;      /* borrowed: the command's budget of distributions */
	const struct cli_mem_devices *mem; /* borrowed, or NULL: memory by device, in the JSON */
	/* a command's own members at the JSON's end (stats: its findings), or NULL */
	void (*extra_json)(struct cli_out *o, const struct cli_advice *arg);
	const struct cli_advice *extra_arg;
};

struct cli_out;
/* Adds an op timing (other kinds, and ops of no layer or step, are left). */
void cli_cold_add(struct cli_cold *c, const struct ggmlviz_timing *t);
/*
 * Whether the first step ran cold, and a (by layer) shows it: its first
 * layer (of 3 or more) took at least 1.5 times its part of the later
 * steps, and 5% or more of the step's layers' time above that part; fills
 * *f when it did. A first step that --phase or --steps leave out is not said.
 */
bool cli_cold_find(const struct cli_agg *a, struct cli_cold_found *f);
/* The note stats --by layer prints under its table. */
void cli_cold_text(struct cli_out *o, const struct cli_cold_found *f);
/* The member ,"cold_first_step":{...} (null where cli_cold_find() says nothing). */
void cli_cold_json(struct cli_out *o, const struct cli_agg *a);

/*
 * Whether the GPU window t was in leaves it out of a grouping by `by`:
 * a step that was CUPTI's warm-up, or outside the windows, and what ran
 * in it, out of every grouping but by step and phase (their rows are
 * steps, every one of which keeps its time).
 */
bool cli_window_out(int by, const struct ggmlviz_timing *t);
/* The note under a grouping of a trace with sampled windows: what it holds (nothing without). */
void cli_window_note(struct cli_out *o, const struct cli_agg *a);
/* Its member ,"gpu_windows":{...} of the JSON (null without windows). */
void cli_window_json(struct cli_out *o, const struct cli_agg *a);

/*
 * An empty aggregation by `by`, naming its groups with names, its
 * distributions within the command's budget (*dist_bytes: struct cli).
 */
void cli_agg_init(struct cli_agg *a, int by, struct cli_names *names, uint64_t *dist_bytes);
/*
 * Adds a timing to the cli_agg a (ops to their group, with what the
 * estimate of op times from ticks says of them, e; steps to theirs by step
 * or phase; graphs, steps and splits to the totals): a cli_timing_sink;
 * 0 or -ENOMEM.
 */
int cli_agg_add(void *a, const struct ggmlviz_timing *t, const struct cli_tick_est *e);
/* Keeps how op times from ticks were read (k, after its feed): said by stats and the report. */
void cli_agg_ticks(struct cli_agg *a, const struct cli_ticks *k);
/* Names the groups (with r's names) and lists them; 0 or -ENOMEM. */
int cli_agg_finish(struct cli_agg *a, const struct ggmlviz_reader *r);
/* Sorts the list by enum cli_sort. */
void cli_agg_sort(struct cli_agg *a, int sort);
void cli_agg_free(struct cli_agg *a);

/*
 * Writes a as one JSON object (stats --format json): file (path), by, the
 * totals, the first top groups in their order, groups_not_shown, splits.
 */
struct cli_out;
void cli_agg_json(struct cli_out *o, const char *path, const struct cli_agg *a, uint64_t top);

/* Whether groups are steps or phases, which carry tokens and step times. */
static inline int cli_by_steps(int by)
{
	return by == CLI_BY_STEP || by == CLI_BY_PHASE;
}

/* Output formats of stats and diff (--format). */
enum cli_format { CLI_FORMAT_TEXT, CLI_FORMAT_CSV, CLI_FORMAT_JSON };
extern const char *const cli_format_names[];

/* The options stats and diff share. */
struct cli_group_opts {
	int by;       /* enum cli_by */
	int sort;     /* stats: enum cli_sort; diff: its own */
	int format;   /* enum cli_format */
	uint64_t top; /* groups shown, UINT64_MAX: all */
	int phase;    /* --phase: 0 all, GGMLVIZ_PHASE_PROMPT, GGMLVIZ_PHASE_GENERATION */
	bool raw_ticks; /* --raw-ticks: tick-timed ops as ticked (stats/ticks.h) */
	struct cli_steps step_range; /* --steps */
};

#define CLI_GROUP_SHORTOPTS "b:s:n:f:p:S:"
#define CLI_GROUP_LONGOPTS                                                              \
	{ "by", required_argument, NULL, 'b' }, { "sort", required_argument, NULL, 's' },   \
	{ "top", required_argument, NULL, 'n' }, { "format", required_argument, NULL, 'f' }, \
	{ "phase", required_argument, NULL, 'p' }, { "help", no_argument, NULL, 'h' }, \
	{ "steps", required_argument, NULL, 'S' }, \
	{ "raw-ticks", no_argument, NULL, CLI_OPT_RAW_TICKS }, \
	{ "as-ticks", no_argument, NULL, CLI_OPT_AS_TICKS }



/* Takes --by, --top, --format, and --sort among sorts; 0 or CLI_EXIT_USAGE. */
int cli_group_option(const char *cmd, struct cli_group_opts *o, int c,
			  const char *arg, const char *const *sorts);

/*
 * Reads the op timings of path into a (ggmlviz_agg_init first): 0;
 * CLI_EXIT_DAMAGED after a message when the trace is damaged (what
 * came before is in a, named and listed); -1 after a message when it
 * cannot be read at all.
 */
int cli_collect(const char *cmd, const char *path, struct cli_agg *a);

/* ---- By part: what stats says besides the table (parts-print.c) ---- */

/* The parts by layer (per token with tokens: --phase's; 0: totals) and what (other) holds. */
void cli_parts_text(struct cli_out *o, const struct cli_agg *a, uint64_t tokens);
/* The same as members ,"parts_named":..,"by_layer":[...],"other":{...}. */
void cli_parts_json(struct cli_out *o, const struct cli_agg *a);

/* ---- Steps, phases and splits as tables (steps-print.c) ---- */

/* The step or phase table of a (by step or phase), its first top groups. */
void cli_steps_text(struct cli_out *o, const struct cli_agg *a, uint64_t top);

/* ,"steps":..,"tokens":..,"step_ns":..,"ns_per_token":..,"tokens_per_s":.. of a group. */
void cli_steps_json(struct cli_out *o, const struct cli_group *g);



/* ---- What a trace being followed did in its last seconds (recent.c): ggmlviz top ---- */

#define CLI_WIN_SECONDS 10    /* the window */
#define CLI_WIN_KEYS 64       /* op types (and layers) followed; more are counted in keys_over */
#define CLI_WIN_REQUESTS 1024 /* the last requests ended, whose figures give the percentiles */

/* The trace's state from its own records (input.h's first three). */
enum { CLI_WIN_WRITING = CLI_FOLLOW_WRITING, CLI_WIN_ENDED = CLI_FOLLOW_ENDED,
       CLI_WIN_CRASHED = CLI_FOLLOW_CRASHED };

/* What ops of one op type (or layer) did in a second, or in the window. */
struct cli_win_sum {
	uint64_t ns, count, bytes, bytes_ns, flops, flops_ns;
};

/* One second of the trace's own time. */
struct cli_win_bucket {
	uint64_t second;                            /* its second + 1; 0: empty */
	uint64_t tokens[CLI_PHASES];                /* of the steps ended in it, by phase */
	uint64_t step_ns[CLI_PHASES];               /* ... and their time */
	struct cli_win_sum g[3][CLI_WIN_KEYS];      /* [0]: by op type, [1]: by layer, [2]: by part */
};

struct cli_recent {
	struct cli_win_bucket b[CLI_WIN_SECONDS];
	uint64_t keys[3][CLI_WIN_KEYS];             /* op type + 1; layer + 2 (1: none); part + 1 */
	size_t n_keys[3];
	const struct ggmlviz_reader *reader;        /* names the ops, to place them in parts */
	struct cli_part_seen part_seen;
	uint64_t keys_over;
	uint64_t now_ns, first_ns;                  /* the latest and the first time seen (but META's) */
	uint64_t steps, tokens[CLI_PHASES], step_ns[CLI_PHASES]; /* since the start; tokens and step time by phase */
	uint64_t begun, ended[3];                   /* requests begun; ended by status */
	uint64_t recent[CLI_REQ_FIGURES][CLI_WIN_REQUESTS]; /* UINT64_MAX: not reached */
	size_t n_recent;
	struct cli_live live;
	uint64_t pid, live_bytes, peak_bytes, dropped;
	int state;                                  /* CLI_WIN_*, from the trace's own records */
	uint64_t crash_signal;
	struct cli_peak peak;
};

/* A group of the window: its key (as in keys) and its sums. */
struct cli_win_group {
	uint64_t key;
	struct cli_win_sum sum;
};

/* A record read; 0, or -1 without the memory to follow its allocations. */
int cli_recent_event(struct cli_recent *w, const struct ggmlviz_event *ev);
void cli_recent_timing(struct cli_recent *w, const struct ggmlviz_timing *t);
/*
 * The seconds the window's buckets cover now: from the start of its
 * oldest second (or the trace's first record) to the latest time seen,
 * CLI_WIN_SECONDS - 1 and a fraction.
 */
double cli_recent_span_s(const struct cli_recent *w);
/* Tokens of the steps of phase ended in the window, and those steps' time in ns. */
uint64_t cli_recent_tokens(const struct cli_recent *w, uint32_t phase, uint64_t *step_ns);
/*
 * tokens/s of phase as stats --by phase gives them (its steps' tokens over
 * their time): in the window (*recent), since the start (*all); 0 without
 * a step.
 */
void cli_recent_rates(const struct cli_recent *w, uint32_t phase, double *recent, double *all);
/* The groups of kind (0: op types, 1: layers, 2: parts) in the window, into out[CLI_WIN_KEYS]. */
void cli_recent_groups(const struct cli_recent *w, int kind, struct cli_win_group *out,
		       size_t *n, uint64_t *total_ns);
/* The name of a group of kind (its key, an op type, layer or part + 1), in buf or static. */
const char *cli_recent_group_name(struct cli_names *names, const struct ggmlviz_reader *r,
				  int kind, uint64_t key, char buf[CLI_OP_NAME_MAX]);
/* p50, p95, p99 of figure f over the last requests ended; how many had it. */
size_t cli_recent_percentiles(const struct cli_recent *w, enum cli_request_figure f, uint64_t p[3]);
void cli_recent_free(struct cli_recent *w);

#endif /* CLI_STATS_H */
