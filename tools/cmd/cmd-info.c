/*
 * ggmlviz info: what a trace holds, in one read: events by type, threads
 * and processes, time span, pairing, dropped events and where, and
 * whether the trace is complete.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/info-flight.h"
#include "output/output.h"
#include "base/htab.h"
#include "input/input.h"
#include "base/opts.h"
#include "stats/stats.h"
#include "advise/usage.h"
#include "memory/memory.h"
#include "rpc/rpc.h"

static const char help[] =
	"Usage: ggmlviz info FILE\n"
	"\n"
	"What a trace holds: its format version, records by type (and META records\n"
	"by kind), processes, threads with their names and event counts, the time\n"
	"span and the clock that stamped it, steps (llama_decode() calls) with their\n"
	"tokens by phase, how the ops were timed, ops left without their descriptions,\n"
	"how many begins and ends pair up, GGML RPC connections and their commands\n"
	"(a merged RPC server's clock offset from its client's), dropped events and\n"
	"where they were lost, and whether the trace is complete (it ends with a\n"
	"TRACE_END record), incomplete, cut short inside a record, or damaged (with\n"
	"the byte offset).\n"
	"\n"
	"Options:\n"
	"  -h, --help   show this help\n"
	"\n"
	"Exit status: 0 the trace was read to its end (complete or not), 1 it is\n"
	"damaged or cut inside a record (what came before is described), or cannot\n"
	"be read, 2 bad command line.\n";

static const struct option longopts[] = { { "help", no_argument, NULL, 'h' },
					  { NULL, 0, NULL, 0 } };

static const struct cli_cmd cmd = { "info", help, "", longopts, 1, 1, cli_no_option };

/* Threads and processes listed at most: a trace naming more is hostile. */
#define CLI_MAX_THREADS 65536
#define META_KINDS (GGMLVIZ_META_RPC_CLOCK + 2) /* the kinds known (1 to the last), then all others */
#define DROPS_SHOWN 10

struct thread {
	uint32_t tid;
	uint64_t events, dropped;
	const char *begin_label; /* THREAD_BEGIN's, borrowed from the reader */
	uint32_t begin_label_len;
};

struct process {
	uint64_t pid;
	const char *name;
	uint32_t name_len;
};

struct drop {
	uint32_t tid;
	uint64_t count, offset, ts;
};

/* Steps of one phase (enum ggmlviz_phase). */
struct phase_sum {
	uint64_t steps, tokens, ns;
};

struct info {
	uint64_t types[256], meta_kinds[META_KINDS];
	uint64_t t_min, t_max, pairs[7], drops_total;
	const char *gpu_note;  /* META GPU's label (borrowed from the reader), or NULL */
	const char *sample_note; /* META SAMPLE's label (borrowed), or NULL: every step op by op */
	uint32_t sample_note_len;
	uint64_t summaries, summed_ops, summed_steps, last_summed_step;
	uint64_t op_windows, window_ops; /* OP_SUMMARY records of windows (GGML_VIZ_OP_WINDOW) */
	int window_event;                /* the event being added is one of those */
	uint32_t gpu_note_len;
	uint64_t gpu_recorded, kernels_tied;
	struct phase_sum phases[CLI_PHASES];
	uint64_t methods[5];                 /* op timings by enum ggmlviz_op_method */
	uint64_t window_steps[4];            /* steps by enum ggmlviz_gpu_window */
	uint64_t windows;                    /* windows begun (META GPU_WINDOW's numbers) */
	uint64_t window_sample;              /* K << 32 | N, as the records say it */
	uint64_t sets_defined, sets_repeated; /* DESC_SET records by mode */
	uint64_t ops_repeated;               /* the ops the REPEATs said they hold */
	const char *clock_note;  /* the first META CLOCK's label (borrowed), or NULL */
	uint32_t clock_note_len;
	uint64_t clock_kinds;    /* bit k: a META CLOCK said clock k (enum ggmlviz_clock) */
	const char *shares_note; /* the last META SHARES's label (borrowed), or NULL */
	uint32_t shares_note_len;
	uint64_t shares_unattributed;        /* the META SHARES' sum */
	struct cli_backends backends;        /* each backend's runs, and its ops by method */
	struct cli_htab threads;
	uint64_t threads_over; /* records of threads past CLI_MAX_THREADS, not listed */
	struct process *procs;
	size_t nprocs;
	uint64_t procs_over;   /* PROCESS records past CLI_MAX_THREADS, not listed */
	struct drop drops[DROPS_SHOWN];
	size_t ndrops;
	struct ggmlviz_pairing *pairing;
	struct cli_mem_devices mem;  /* memory by device and part */
	uint64_t threads_ctx;        /* META THREADS: the last one's threads, CPUs; 0: none */
	uint64_t ctx_threads, cpus;
	struct cli_usage_samples usage; /* META USAGE: the first and the last */
	struct cli_rpc rpc;             /* GGML RPC commands by connection */
	struct cli_flight flight;       /* META FLIGHT and SNAPSHOT */
	int error; /* -ENOMEM */
};

static bool thread_eq(const void *item, const void *key)
{
	return ((const struct thread *)item)->tid == *(const uint32_t *)key;
}

static struct thread *thread_of(struct info *info, uint32_t tid)
{
	uint64_t hash = cli_hash_u64(tid);
	struct thread *t = cli_htab_find(&info->threads, hash, thread_eq, &tid);

	if (t)
		return t;
	if (info->threads.count >= CLI_MAX_THREADS) {
		info->threads_over++; /* hostile input: counted, not listed */
		return NULL;
	}
	t = calloc(1, sizeof *t);
	if (!t || cli_htab_add(&info->threads, hash, t) < 0) {
		free(t);
		info->error = -ENOMEM;
		return NULL;
	}
	t->tid = tid;
	return t;
}

static void add_process(struct info *info, const struct ggmlviz_event *ev)
{
	struct process *p;

	if (info->nprocs >= CLI_MAX_THREADS) {
		info->procs_over++;
		return;
	}
	p = realloc(info->procs, (info->nprocs + 1) * sizeof *p);
	if (!p) {
		info->error = -ENOMEM;
		return;
	}
	info->procs = p;
	p[info->nprocs++] = (struct process){ ev->data.meta.key, ev->label, ev->label_len };
}

static void add_drop(struct info *info, const struct ggmlviz_event *ev)
{
	struct thread *t = thread_of(info, (uint32_t)ev->data.meta.key);

	if (t)
		t->dropped += ev->data.meta.value;
	info->drops_total += ev->data.meta.value;
	if (info->ndrops < DROPS_SHOWN)
		info->drops[info->ndrops++] = (struct drop){ (uint32_t)ev->data.meta.key,
							     ev->data.meta.value, ev->offset,
							     ev->timestamp_ns };
}

static void add_clock(struct info *info, const struct ggmlviz_event *ev)
{
	if (!info->clock_note && ev->label)
		info->clock_note = ev->label, info->clock_note_len = ev->label_len;
	info->clock_kinds |= ev->data.meta.key < 64 ? (uint64_t)1 << ev->data.meta.key : 1;
}

static void add_meta(struct info *info, const struct ggmlviz_event *ev)
{
	uint32_t kind = ev->data.meta.kind;

	info->meta_kinds[kind < META_KINDS ? kind : META_KINDS - 1]++;
	if (kind == GGMLVIZ_META_PROCESS)
		add_process(info, ev);
	else if (kind == GGMLVIZ_META_DROPPED)
		add_drop(info, ev);
	else if (kind == GGMLVIZ_META_GPU && ev->label)
		info->gpu_note = ev->label, info->gpu_note_len = ev->label_len,
		info->gpu_recorded = ev->data.meta.value;
	else if (kind == GGMLVIZ_META_SAMPLE && ev->label)
		info->sample_note = ev->label, info->sample_note_len = ev->label_len;
	else if (kind == GGMLVIZ_META_CLOCK)
		add_clock(info, ev);
	else if (kind == GGMLVIZ_META_SHARES) {
		info->shares_note = ev->label, info->shares_note_len = ev->label_len;
		info->shares_unattributed += ev->data.meta.value;
	} else if (kind == GGMLVIZ_META_GPU_WINDOW) {
		info->windows = ev->data.meta.key > info->windows ? ev->data.meta.key : info->windows;
		info->window_sample = ev->data.meta.value2;
	}
}

static void add_timing(struct info *info, const struct ggmlviz_timing *t)
{
	if (t->kind > 0 && t->kind < 7)
		info->pairs[t->kind]++;
	info->kernels_tied += t->kind == GGMLVIZ_TIMING_KERNEL && t->ptr;
	if (t->kind == GGMLVIZ_TIMING_OP)
		info->methods[t->method <= GGMLVIZ_OP_METHOD_MEASURED ? t->method : 0]++;
	if (t->kind == GGMLVIZ_TIMING_OP_SUMMARY) {
		info->summaries++;
		info->summed_ops += t->n_nodes;
		/* a step's summaries come together, before its end; a window's are counted apart */
		info->summed_steps += (t->step_seq != info->last_summed_step || !t->step_seq) &&
				      !info->window_event;
		info->last_summed_step = t->step_seq;
	}
	cli_backends_add(&info->backends, t);
	if (t->kind == GGMLVIZ_TIMING_STEP) {
		struct phase_sum *p = &info->phases[t->phase < CLI_PHASES ? t->phase : 0];
		info->window_steps[t->gpu_window & 3]++;
		p->steps++;
		p->tokens += t->n_tokens;
		p->ns += t->duration_ns;
	}
}

static void add_event(struct info *info, const struct ggmlviz_event *ev)
{
	struct thread *t = thread_of(info, ev->thread_id);
	struct ggmlviz_timing timing;
	int rc;

	info->types[ev->type]++;
	if (t && ev->type == GGMLVIZ_EVENT_THREAD_BEGIN && ev->label_len)
		t->begin_label = ev->label, t->begin_label_len = ev->label_len;
	if (t)
		t->events++;
	info->window_event = ev->type == GGMLVIZ_EVENT_OP_SUMMARY &&
			     ev->label_len == GGMLVIZ_OP_WINDOW_BODY;
	if (info->window_event) { /* no step of its own: add_timing counts none */
		info->op_windows++;
		info->window_ops += ev->data.op_summary.count;
	}
	if (ev->type == GGMLVIZ_EVENT_DESC_SET) {
		info->sets_defined += ev->data.desc_set.mode == GGMLVIZ_DESC_SET_DEFINE;
		info->sets_repeated += ev->data.desc_set.mode == GGMLVIZ_DESC_SET_REPEAT;
		if (ev->data.desc_set.mode == GGMLVIZ_DESC_SET_REPEAT)
			info->ops_repeated += ev->data.desc_set.n_ops;
	}
	cli_mem_devices_event(&info->mem, ev);
	cli_usage_sample(&info->usage, ev);
	cli_flight_note(&info->flight, ev);
	if (cli_rpc_add(&info->rpc, ev) < 0)
		info->error = -ENOMEM;
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_THREADS)
		info->threads_ctx = ev->data.meta.key, info->ctx_threads = ev->data.meta.value,
		info->cpus = ev->data.meta.value2;
	if (ev->type == GGMLVIZ_EVENT_META) {
		add_meta(info, ev);
	} else {
		info->t_min = ev->timestamp_ns < info->t_min ? ev->timestamp_ns : info->t_min;
		info->t_max = ev->timestamp_ns > info->t_max ? ev->timestamp_ns : info->t_max;
	}
	rc = ggmlviz_pairing_add(info->pairing, ev, &timing); /* META too: GPU runs name their ops */
	for (; rc == 1; rc = ggmlviz_pairing_take(info->pairing, &timing))
		add_timing(info, &timing);
	if (rc < 0)
		info->error = rc;
	info->window_event = 0;
}

static void print_status(struct cli_out *o, const struct cli_input *in, const struct info *info)
{
	char what[256];

	if (in->error) {
		cli_input_describe(in, what, sizeof what);
		cli_out_printf(o, "status:     %s: %s\n",
				    in->error == GGMLVIZ_ETRUNCATED ? "cut short" : "damaged",
				    what);
	} else if (in->ended) {
		cli_out_printf(o, "status:     complete (TRACE_END at byte %" PRIu64
				    ": %" PRIu64 " events written, %" PRIu64 " dropped)\n",
				    in->end_offset, in->end_written, in->end_dropped);
	} else if (in->crashed) {
		cli_out_printf(o, "status:     ended by a crash (%s, signal %" PRIu64 "; CRASH at byte %"
				    PRIu64 "): the rings were saved, %" PRIu64 " events written, %"
				    PRIu64 " dropped\n", in->crash_name[0] ? in->crash_name : "?",
				    in->crash_signal, in->end_offset, in->end_written, in->end_dropped);
	} else if (in->segment_next) {
		cli_out_printf(o, "status:     a segment of a rotated trace, whole: the trace goes on in"
				    " segment %" PRIu64 " (%" PRIu64 " events written, %" PRIu64
				    " dropped by then); the trace's name reads its segments as one\n",
				    in->segment_next, in->end_written, in->end_dropped);
	} else if (in->records && !info->types[GGMLVIZ_EVENT_META]) {
		cli_out_str(o, "status:     whole, from a writer that never ends its traces (no META"
				 " record at all, as the original ggml-viz wrote them): whether it is"
				 " complete cannot be told\n");
	} else {
		cli_out_str(o, "status:     incomplete: no TRACE_END record at the end (the"
				 " program was stopped before it ended tracing, or is still"
				 " writing)\n");
	}
}

static void print_span(struct cli_out *o, const struct info *info)
{
	char a[40], b[40], d[32];

	if (info->t_min > info->t_max) {
		cli_out_str(o, "time span:  none (no timed records)\n");
		return;
	}
	if (cli_clock_is_steady(info->t_min)) {
		cli_out_printf(o, "time span:  %s, from a steady clock (time since boot: %s at the"
				    " first record), not the wall clock\n",
				    cli_fmt_ns((double)(info->t_max - info->t_min), d),
				    cli_fmt_ns((double)info->t_min, a));
		return;
	}
	cli_out_printf(o, "time span:  %s to %s (%s)\n", cli_fmt_epoch(info->t_min, a),
			    cli_fmt_epoch(info->t_max, b),
			    cli_fmt_ns((double)(info->t_max - info->t_min), d));
}

/* What stamped the records (META CLOCK), or that the trace does not say. */
static void print_clock(struct cli_out *o, const struct info *info)
{
	uint64_t n = info->meta_kinds[GGMLVIZ_META_CLOCK];

	if (!n) {
		if (info->types[GGMLVIZ_EVENT_META])
			cli_out_str(o, "clock:      not said (a writer older than META CLOCK)\n");
		return;
	}
	cli_out_str(o, "clock:      ");
	if (info->clock_note)
		cli_text_str(o, info->clock_note, info->clock_note_len);
	else
		cli_out_str(o, "said without words");
	if (n > 1)
		cli_out_printf(o, " (%" PRIu64 " CLOCK records%s)", n,
			       info->clock_kinds & (info->clock_kinds - 1) ?
				       ": the sessions had different clocks" : ", all of one clock");
	cli_out_char(o, '\n');
}

static void print_meta_kinds(struct cli_out *o, const struct info *info)
{
	const char *sep = "  (";

	for (uint32_t k = 1; k < META_KINDS; k++) {
		if (!info->meta_kinds[k])
			continue;
		cli_out_printf(o, "%s%s %" PRIu64, sep,
				    k < META_KINDS - 1 ? ggmlviz_meta_kind_name(k) : "other",
				    info->meta_kinds[k]);
		sep = ", ";
	}
	if (info->meta_kinds[0])
		cli_out_printf(o, "%skind 0 %" PRIu64, sep, info->meta_kinds[0]);
	if (sep[0] == ',' || info->meta_kinds[0])
		cli_out_char(o, ')');
}

static void print_types(struct cli_out *o, const struct info *info)
{
	cli_out_str(o, "records by type:\n");
	for (unsigned type = 0; type < 256; type++) {
		if (!info->types[type])
			continue;
		const char *name = ggmlviz_event_type_name((uint8_t)type);

		if (type < GGMLVIZ_EVENT_TYPE_COUNT)
			cli_out_printf(o, "  %-20s %10" PRIu64, name, info->types[type]);
		else
			cli_out_printf(o, "  type %-15u %10" PRIu64 "  (unknown: skipped)",
					    type, info->types[type]);
		if (type == GGMLVIZ_EVENT_META)
			print_meta_kinds(o, info);
		cli_out_char(o, '\n');
	}
}

static void print_processes(struct cli_out *o, const struct info *info)
{
	cli_out_printf(o, "processes:  %zu\n", info->nprocs);
	if (info->procs_over)
		cli_out_printf(o, "  (and %" PRIu64 " more PROCESS records, not listed)\n",
				    info->procs_over);
	for (size_t i = 0; i < info->nprocs; i++) {
		cli_out_printf(o, "  pid %" PRIu64 "  ", info->procs[i].pid);
		cli_text_str(o, info->procs[i].name, info->procs[i].name_len);
		cli_out_char(o, '\n');
	}
}

static int by_tid(const void *a, const void *b)
{
	uint32_t x = (*(const struct thread *const *)a)->tid;
	uint32_t y = (*(const struct thread *const *)b)->tid;

	return x < y ? -1 : x > y;
}

static void print_thread(struct cli_out *o, const struct thread *t, const char *name)
{
	cli_out_printf(o, "  %-10" PRIu32 " %10" PRIu64 "  ", t->tid, t->events);
	if (name)
		cli_text_str(o, name, strlen(name));
	else if (t->begin_label)
		cli_text_str(o, t->begin_label, t->begin_label_len);
	cli_out_char(o, '\n');
}

static void print_threads(struct cli_out *o, const struct info *info,
			  const struct ggmlviz_reader *r)
{
	struct thread **list = calloc(info->threads.count + 1, sizeof *list), *t;
	size_t n = 0, cursor = 0;

	cli_out_printf(o, "threads:    %zu\n", info->threads.count);
	if (info->threads_over)
		cli_out_printf(o, "  (and %" PRIu64 " records of more threads, not listed: %d "
				    "threads is the most this command lists)\n", info->threads_over,
				    CLI_MAX_THREADS);
	if (!list || !info->threads.count) {
		free(list);
		return;
	}
	while ((t = cli_htab_next(&info->threads, &cursor)))
		list[n++] = t;
	qsort(list, n, sizeof *list, by_tid);
	cli_out_str(o, "  TID            RECORDS  NAME\n");
	for (size_t i = 0; i < n; i++)
		print_thread(o, list[i], ggmlviz_reader_thread_name(r, list[i]->tid));
	free(list);
}

static void print_pairs(struct cli_out *o, const struct info *info)
{
	struct ggmlviz_pairing_counts c;

	ggmlviz_pairing_counts(info->pairing, &c);
	cli_out_printf(o, "paired:     %" PRIu64 " ops, %" PRIu64 " graphs, %" PRIu64
			    " steps, %" PRIu64 " splits, %" PRIu64 " scopes; %" PRIu64
			    " ends without a begin, %" PRIu64 " begins never ended\n",
			    info->pairs[GGMLVIZ_TIMING_OP], info->pairs[GGMLVIZ_TIMING_GRAPH],
			    info->pairs[GGMLVIZ_TIMING_STEP], info->pairs[GGMLVIZ_TIMING_SPLIT],
			    info->pairs[GGMLVIZ_TIMING_SCOPE], c.unmatched_ends, c.unclosed_begins);
	if (c.over_limit)
		cli_out_printf(o, "  (%" PRIu64 " begins not followed: %d were open at once, or %d "
				    "threads had begins open, the most the reader follows)\n", c.over_limit,
				    GGMLVIZ_PAIRING_MAX_OPEN, GGMLVIZ_PAIRING_MAX_THREADS);
}

/* What the sessions said of the CPU backend's shares no op got (META SHARES). */
static void print_shares_said(struct cli_out *o, const struct info *info)
{
	uint64_t said = info->meta_kinds[GGMLVIZ_META_SHARES];

	if (!said)
		return;
	cli_out_str(o, "  CPU shares: ");
	if (said == 1 && info->shares_note)
		cli_text_str(o, info->shares_note, info->shares_note_len);
	else
		cli_out_printf(o, "%" PRIu64 " went to no op, in %" PRIu64 " sessions",
			       info->shares_unattributed, said);
	cli_out_char(o, '\n');
}

/* Sampled windows (GGML_VIZ_GPU_SAMPLE): which steps have their kernels. */
static void print_windows(struct cli_out *o, const struct info *info)
{
	const uint64_t *w = info->window_steps;

	if (!info->windows && !w[GGMLVIZ_GPU_WINDOW_OUT])
		return;
	cli_out_printf(o, "  in sampled windows of %u steps of every %u (GGML_VIZ_GPU_SAMPLE): %"
		       PRIu64 " windows; %" PRIu64 " steps sampled, %" PRIu64 " of CUPTI's warm-up, %"
		       PRIu64 " outside (no kernel recorded), %" PRIu64 " before the first; stats "
		       "gives the ops of the sampled steps\n",
		       (unsigned)(info->window_sample >> 32), (unsigned)(info->window_sample & 0xffffffffu),
		       info->windows, w[GGMLVIZ_GPU_WINDOW_IN], w[GGMLVIZ_GPU_WINDOW_WARMUP],
		       w[GGMLVIZ_GPU_WINDOW_OUT], w[GGMLVIZ_GPU_WINDOW_NONE]);
}

/* Whether GPU kernels were recorded (or why not), and how many were tied to their nodes. */
static void print_gpu(struct cli_out *o, const struct info *info)
{
	struct ggmlviz_pairing_counts c;

	bool runs_only = false;

	for (size_t i = 0; i < info->backends.n; i++) {
		const struct cli_split_sum *b = &info->backends.s[i];
		runs_only |= b->count && !b->ops[0] && !b->ops[1] && !b->ops[2] && !b->ops[3] &&
			     !b->ops[4];
	}
	/* said where it matters: kernels, or a backend whose runs no op timing covers */
	if (!info->gpu_recorded && !info->pairs[GGMLVIZ_TIMING_KERNEL] && !runs_only)
		return;
	ggmlviz_pairing_counts(info->pairing, &c);
	cli_out_str(o, "GPU:        kernels ");
	if (info->gpu_note)
		cli_text_str(o, info->gpu_note, info->gpu_note_len);
	else if (info->pairs[GGMLVIZ_TIMING_KERNEL])
		cli_out_str(o, "recorded");
	else
		cli_out_str(o, "not recorded (the trace does not say why: an older writer's)");
	cli_out_char(o, '\n');
	if (!info->pairs[GGMLVIZ_TIMING_KERNEL])
		return;
	cli_out_printf(o, "  %" PRIu64 " kernels, %" PRIu64 " tied to the node that launched them, %"
		       PRIu64 " untied (no op of their run launches them, or their run was not "
		       "traced); %" PRIu64 " nodes of GPU runs got no kernel\n",
		       info->pairs[GGMLVIZ_TIMING_KERNEL], info->kernels_tied, c.kernels_untied,
		       c.gpu_nodes_untimed);
	print_windows(o, info);
}

static void print_steps(struct cli_out *o, const struct info *info)
{
	uint64_t steps = 0, tokens = 0;
	char d[32];

	for (int p = 0; p < CLI_PHASES; p++)
		steps += info->phases[p].steps, tokens += info->phases[p].tokens;
	if (!steps)
		return;
	cli_out_printf(o, "steps:      %" PRIu64 " (%" PRIu64 " token%s)\n", steps, tokens, cli_s(tokens));
	for (int p = 0; p < CLI_PHASES; p++) {
		const struct phase_sum *s = &info->phases[p];
		if (!s->steps)
			continue;
		cli_out_printf(o, "  %-11s %" PRIu64 " step%s, %" PRIu64 " token%s, %s", cli_phase_name((uint32_t)p),
			       s->steps, cli_s(s->steps), s->tokens, cli_s(s->tokens),
			       cli_fmt_ns((double)s->ns, d));
		if (s->tokens)
			cli_out_printf(o, ", %.1f tokens/s", (double)s->tokens * 1e9 / (double)s->ns);
		cli_out_char(o, '\n');
	}
}

static void print_methods(struct cli_out *o, const struct info *info)
{
	if (!info->pairs[GGMLVIZ_TIMING_OP] && !info->pairs[GGMLVIZ_TIMING_SPLIT])
		return;
	cli_out_printf(o, "op timing:  ");
	if (info->methods[GGMLVIZ_OP_METHOD_MEASURED])
		cli_out_printf(o, "%" PRIu64 " measured inside GGML's CPU backend (every worker"
			       " thread's share), ", info->methods[GGMLVIZ_OP_METHOD_MEASURED]);
	cli_out_printf(o, "%" PRIu64 " from the backend's ticks and %" PRIu64
		       " on the GPU (the run unchanged), %" PRIu64 " synchronized per node"
		       " (the run changed), %" PRIu64 " by an unknown method\n",
		       info->methods[GGMLVIZ_OP_METHOD_TICK], info->methods[GGMLVIZ_OP_METHOD_GPU],
		       info->methods[GGMLVIZ_OP_METHOD_SYNC],
		       info->methods[GGMLVIZ_OP_METHOD_UNKNOWN]);
	print_shares_said(o, info);
	cli_backends_text(o, &info->backends, "  ");
}

/* Packed times (OP_TIMES, SHARE_TIMES): what a reader older than them would miss. */
static void print_packed(struct cli_out *o, const struct info *info)
{
	uint64_t times = info->types[GGMLVIZ_EVENT_OP_TIMES];
	uint64_t shares = info->types[GGMLVIZ_EVENT_SHARE_TIMES];

	if (!times && !shares)
		return;
	cli_out_printf(o, "  packed: %" PRIu64 " OP_TIMES record%s (a repeated run's ops, 8 bytes an"
		       " op), %" PRIu64 " SHARE_TIMES record%s (a worker's shares of a graph);"
		       " a reader older than them sees neither\n", times, cli_s(times), shares,
		       cli_s(shares));
}

/* Graphs described once (DESC_SET): what a reader that does not know it would miss. */
static void print_descriptions(struct cli_out *o, const struct info *info)
{
	uint64_t lacking = ggmlviz_pairing_undescribed(info->pairing);

	if (!info->sets_defined && !info->sets_repeated)
		return;
	cli_out_printf(o, "descriptions: given once: %" PRIu64 " runs described their graph's ops"
		       " (DESC_SET DEFINE), %" PRIu64 " runs of %" PRIu64 " ops in all took them"
		       " from there (REPEAT; a reader older than DESC_SET sees those ops without"
		       " shapes, bytes or layers; GGML_VIZ_DESCRIBE_ONCE=0 writes them all)\n",
		       info->sets_defined, info->sets_repeated, info->ops_repeated);
	print_packed(o, info);
	if (!info->sets_repeated)
		return;
	if (!lacking)
		cli_out_str(o, "  every op of those runs got its descriptions\n");
	else
		cli_out_printf(o, "  %" PRIu64 " op%s of those runs left without their descriptions"
			       " (no shape, FLOPs, bytes or layer): their set was not kept (the"
			       " reader keeps the descriptions of 262144 ops in all, the least"
			       " recently used going first) or never seen\n", lacking, cli_s(lacking));
}

/* How ops were sampled (META SAMPLE), and what the trace holds of it. */
static void print_sampling(struct cli_out *o, const struct info *info)
{
	if (!info->sample_note && !info->summaries)
		return;
	cli_out_str(o, "sampling:   ");
	if (info->sample_note)
		cli_text_str(o, info->sample_note, info->sample_note_len);
	else
		cli_out_str(o, "not said (no META SAMPLE record)");
	cli_out_char(o, '\n');
	if (info->summaries > info->op_windows)
		cli_out_printf(o, "  %" PRIu64 " steps summed (%" PRIu64 " ops in %" PRIu64
			       " OP_SUMMARY records: count, total and longest time by op type),"
			       " %" PRIu64 " ops timed one by one\n", info->summed_steps,
			       info->summed_ops - info->window_ops, info->summaries - info->op_windows,
			       info->pairs[GGMLVIZ_TIMING_OP]);
	if (info->op_windows)
		cli_out_printf(o, "  %" PRIu64 " ops of summed steps summed again over windows of"
			       " seconds (GGML_VIZ_OP_WINDOW) in %" PRIu64 " OP_SUMMARY records\n",
			       info->window_ops, info->op_windows);
}

static void print_drops(struct cli_out *o, const struct info *info,
			const struct cli_input *in)
{
	char rel[32];

	cli_out_printf(o, "dropped:    %" PRIu64 " events in %" PRIu64 " DROPPED records",
			    info->drops_total, info->meta_kinds[GGMLVIZ_META_DROPPED]);
	if (in->ended)
		cli_out_printf(o, " (TRACE_END counts %" PRIu64 ")", in->end_dropped);
	cli_out_char(o, '\n');
	for (size_t i = 0; i < info->ndrops; i++) {
		const struct drop *d = &info->drops[i];
		uint64_t t = d->ts > info->t_min ? d->ts - info->t_min : 0;

		cli_out_printf(o, "  thread %" PRIu32 ": %" PRIu64 " lost before byte %" PRIu64
				    " (at +%s)\n", d->tid, d->count, d->offset,
				    cli_fmt_ns((double)t, rel));
	}
	if (info->meta_kinds[GGMLVIZ_META_DROPPED] > info->ndrops)
		cli_out_printf(o, "  (%" PRIu64 " more DROPPED records)\n",
				    info->meta_kinds[GGMLVIZ_META_DROPPED] - info->ndrops);
}

/* META THREADS: the threads a llama.cpp context computes with, and the CPUs for them. */
static void print_cpus(struct cli_out *o, const struct info *info)
{
	uint32_t allowed = (uint32_t)info->cpus, online = (uint32_t)(info->cpus >> 32);

	if (!info->threads_ctx)
		return;
	cli_out_printf(o, "cpu:        %" PRIu32 " threads generating, %" PRIu32 " for a batch (the"
		       " last llama.cpp context said); this process may run on ",
		       (uint32_t)info->ctx_threads, (uint32_t)(info->ctx_threads >> 32));
	if (allowed)
		cli_out_printf(o, "%" PRIu32 " CPUs", allowed);
	else
		cli_out_str(o, "CPUs not said");
	if (online)
		cli_out_printf(o, " of %" PRIu32 " online", online);
	cli_out_char(o, '\n');
}

/* META USAGE: the process's CPU time and context switches between the first and the last. */
static void print_usage(struct cli_out *o, const struct info *info)
{
	const struct cli_usage_samples *u = &info->usage;
	uint64_t cpu = u->cpu_ns[1] - u->cpu_ns[0], taken = u->invol[1] - u->invol[0];
	char b[2][32];

	if (u->samples < 2)
		return;
	if (u->mixed) {
		cli_out_printf(o, "cpu use:    %" PRIu64 " USAGE records of more than one session or"
			       " process (a merged trace): not summed\n", u->samples);
		return;
	}
	cli_out_printf(o, "cpu use:    %s of CPU time in %s (the first and the last of %" PRIu64
		       " USAGE records); the scheduler took a CPU from the process's threads %"
		       PRIu64 " times", cli_fmt_ns((double)cpu, b[0]),
		       cli_fmt_ns((double)(u->ts[1] - u->ts[0]), b[1]), u->samples, taken);
	if (cpu)
		cli_out_printf(o, " (%.0f a second of CPU time)", (double)taken / ((double)cpu / 1e9));
	cli_out_printf(o, ", and they gave one up %" PRIu64 " times\n", u->vol[1] - u->vol[0]);
}

/* The backend buffers by device and part, where memory was tracked. */
static void print_memory(struct cli_out *o, const struct info *info)
{
	if (!info->mem.any)
		return;
	cli_out_str(o, "memory:     by device, the most of each part live at once, and its peak (its free\n"
		       "            bytes: the least GGML said when one of its buffers was first used):\n");
	cli_mem_devices_text(o, &info->mem, "  ");
}

/* A rotated trace: the segments read, and those gone. */
static void print_segments(struct cli_out *o, const struct cli_input *in)
{
	struct ggmlviz_segments s;

	if (ggmlviz_reader_segments(in->r, &s) != 1)
		return;
	cli_out_printf(o, "segments:   %" PRIu32 " to %" PRIu32 " of a rotated trace (GGML_VIZ_ROTATE),"
			    " read in a row", s.first, s.current);
	if (s.first == 2)
		cli_out_str(o, "; segment 1 removed before (the newest are kept)");
	else if (s.first > 2)
		cli_out_printf(o, "; 1 to %" PRIu32 " removed before (the newest are kept)",
			       s.first - 1);
	if (s.missing)
		cli_out_printf(o, "; %" PRIu32 " removed while read", s.missing);
	cli_out_str(o, "\n");
}

static void print_info(struct cli_out *o, const struct info *info,
		       const struct cli_input *in)
{
	cli_out_printf(o, "file:       %s (%" PRIu64 " bytes)\n", in->path,
			    ggmlviz_reader_size(in->r));
	print_segments(o, in);
	cli_out_printf(o, "format:     GGMLVIZ version %u\n", GGMLVIZ_FORMAT_VERSION);
	print_status(o, in, info);
	cli_out_printf(o, "records:    %" PRIu64 "\n", in->records);
	print_span(o, info);
	print_clock(o, info);
	print_types(o, info);
	print_processes(o, info);
	print_threads(o, info, in->r);
	print_steps(o, info);
	print_methods(o, info);
	print_descriptions(o, info);
	print_sampling(o, info);
	print_gpu(o, info);
	print_cpus(o, info);
	print_usage(o, info);
	print_memory(o, info);
	cli_flight_print(o, &info->flight, info->t_min);
	cli_rpc_info(o, &info->rpc);
	print_pairs(o, info);
	print_drops(o, info, in);
}

static void info_free(struct info *info)
{
	cli_mem_devices_free(&info->mem);
	struct thread *t;
	size_t cursor = 0;

	while ((t = cli_htab_next(&info->threads, &cursor)))
		free(t);
	cli_htab_free(&info->threads);
	free(info->procs);
	cli_rpc_free(&info->rpc);
	ggmlviz_pairing_free(info->pairing);
}

int cli_cmd_info(struct cli *cli, int argc, char **argv)
{
	struct info info = { .t_min = UINT64_MAX };
	struct cli_input in;
	struct ggmlviz_event ev;
	struct ggmlviz_timing timing;
	struct cli_out o;
	int first, status = cli_parse(&cmd, argc, argv, NULL, &first);

	if (status >= 0)
		return status;
	if (cli_input_open(&in, "info", argv[first]) < 0)
		return CLI_EXIT_DAMAGED;
	if (ggmlviz_pairing_new(&info.pairing) < 0 || cli_out_open(&o, "info", NULL) < 0) {
		cli_input_close(&in);
		info_free(&info);
		return CLI_EXIT_DAMAGED;
	}
	while (!info.error && cli_input_next(&in, &ev) == 1)
		add_event(&info, &ev);
	ggmlviz_pairing_finish(info.pairing);
	while (ggmlviz_pairing_take(info.pairing, &timing) == 1) /* GPU runs tied at the end */
		add_timing(&info, &timing);
	cli_backends_name(&info.backends, &cli->names, in.r);
	cli_mem_devices_end(&info.mem);
	cli_rpc_finish(&info.rpc);
	print_info(&o, &info, &in);
	status = cli_input_report(&in);
	if (info.error)
		cli_error("%s: %s", in.path, ggmlviz_strerror(info.error));
	cli_input_close(&in);
	info_free(&info);
	status = info.error ? CLI_EXIT_DAMAGED : status;
	return cli_out_close(&o, "info") ? CLI_EXIT_DAMAGED : status;
}
