/*
 * What the findings read of a trace (advise.h): a first pass learns the
 * floors of op times from ticks (stats/ticks.h); the second reads every
 * record (the trace's own META records, memory, the scheduler's copies)
 * and every timing, through the same estimate stats uses, into the
 * groupings by op of every step and of generation's, each step's sums
 * (its op time, attention's, its runs of nodes and the host's time
 * between them, its GPU kernels' time), and the layers each backend
 * computed; a third reads a server's requests.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"
#include "cli.h"
#include "input/input.h"
#include "stats/ticks.h"

static bool step_eq(const void *item, const void *key)
{
	return ((const struct cli_step_acc *)item)->seq == *(const uint64_t *)key;
}

/* The sums of step seq, made on first sight; NULL once it was summed (a late timing). */
static struct cli_step_acc *step_of(struct cli_facts *f, uint64_t seq)
{
	uint64_t hash = cli_hash_u64(seq);
	struct cli_step_acc *s;

	if (!seq)
		return NULL;
	if ((s = cli_htab_find(&f->steps, hash, step_eq, &seq)))
		return s;
	if (f->summed_up_to && seq <= f->summed_up_to)
		return NULL; /* summed already */
	if (f->steps.count >= CLI_ADVISE_OPEN_STEPS) {
		f->steps_over++; /* hostile: steps begun and never ended */
		return NULL;
	}
	if (!(s = calloc(1, sizeof *s)) || cli_htab_add(&f->steps, hash, s) < 0) {
		free(s);
		f->error = -ENOMEM;
		return NULL;
	}
	s->seq = seq;
	return s;
}

/* Generation's bins, halved when full: each then holds twice as many steps. */
static void gen_bin(struct cli_facts *f, const struct cli_step_acc *s)
{
	struct cli_gen_step *g;

	if (!f->gen_stride)
		f->gen_stride = 1;
	if (f->n_gens && f->gens[f->n_gens - 1].steps < f->gen_stride) {
		g = &f->gens[f->n_gens - 1];
	} else {
		if (f->n_gens == CLI_ADVISE_GEN_BINS) {
			for (size_t i = 0; i < CLI_ADVISE_GEN_BINS / 2; i++) {
				struct cli_gen_step *a = &f->gens[2 * i], *b = &f->gens[2 * i + 1];
				f->gens[i].steps = a->steps + b->steps;
				f->gens[i].context = a->context + b->context;
				f->gens[i].step_ns = a->step_ns + b->step_ns;
				f->gens[i].op_ns = a->op_ns + b->op_ns;
				f->gens[i].attention_ns = a->attention_ns + b->attention_ns;
				f->gens[i].start_ns = a->start_ns + b->start_ns;
				f->gens[i].kernel_ns = a->kernel_ns + b->kernel_ns;
				f->gens[i].kernel_step_ns = a->kernel_step_ns + b->kernel_step_ns;
			}
			f->n_gens = CLI_ADVISE_GEN_BINS / 2;
			f->gen_stride *= 2;
		}
		g = &f->gens[f->n_gens++];
		memset(g, 0, sizeof *g);
	}
	g->steps++, g->context += s->context, g->step_ns += s->step_ns;
	g->op_ns += s->op_ns, g->attention_ns += s->attention_ns, g->start_ns += s->start_ns;
	if (s->gpu_window == GGMLVIZ_GPU_WINDOW_NONE || s->gpu_window == GGMLVIZ_GPU_WINDOW_IN)
		g->kernel_ns += s->kernel_ns, g->kernel_step_ns += s->step_ns;
}

/* A step ended a while ago: into the sums, and forgotten. */
static void sum_step(struct cli_facts *f, uint64_t seq)
{
	struct cli_step_acc *s = cli_htab_remove(&f->steps, cli_hash_u64(seq), step_eq, &seq);

	if (seq > f->summed_up_to)
		f->summed_up_to = seq;
	if (!s)
		return;
	if (s->ended && s->phase == GGMLVIZ_PHASE_GENERATION && !s->housekeeping) {
		f->gen_steps++, f->gen_tokens += s->tokens, f->gen_step_ns += s->step_ns;
		f->gen_op_ns += s->op_ns, f->gen_runs += s->runs, f->gen_gpu_runs += s->gpu_runs;
		f->gen_switches += s->switches, f->gen_gap_ns += s->gap_ns;
		f->gen_copy_bytes += s->copy_bytes, f->gen_copies += s->copies;
		if (s->gpu_window == GGMLVIZ_GPU_WINDOW_NONE || s->gpu_window == GGMLVIZ_GPU_WINDOW_IN)
			f->gen_kernel_steps++, f->gen_kernel_step_ns += s->step_ns;
		f->has_context |= s->has_context;
		gen_bin(f, s);
	}
	free(s);
}

/*
 * A step's timing came: it is summed once CLI_ADVISE_ENDED more have
 * ended, so that the GPU ops tied to its runs after it (their kernels
 * come late) are counted in it.
 */
static void step_ended(struct cli_facts *f, uint64_t seq)
{
	if (f->n_ended == CLI_ADVISE_ENDED) {
		sum_step(f, f->ended_seq[0]);
		memmove(f->ended_seq, f->ended_seq + 1,
			(CLI_ADVISE_ENDED - 1) * sizeof f->ended_seq[0]);
		f->n_ended--;
	}
	f->ended_seq[f->n_ended++] = seq;
}

static bool is_cpu(const struct cli_facts *f, const struct ggmlviz_timing *t, char buf[24])
{
	return !strcmp(cli_backend_name(f->all.names, f->all.reader, t->backend_ptr, buf), "CPU");
}

/* The CPU's ops by layer and op type, for the ops of a layer whose products ran elsewhere. */
static void tally(struct cli_facts *f, const struct ggmlviz_timing *t, const char *op)
{
	struct cli_layer_op *e = NULL;

	for (size_t i = f->n_layer_ops; !e && i-- > 0;)
		if (f->layer_ops[i].layer == t->layer && !strcmp(f->layer_ops[i].op, op))
			e = &f->layer_ops[i];
	if (!e && f->n_layer_ops == CLI_ADVISE_LAYER_OPS) {
		f->layer_ops_over++;
		return;
	}
	if (!e && f->n_layer_ops == f->layer_ops_cap) {
		size_t cap = f->layer_ops_cap ? 2 * f->layer_ops_cap : 64;
		struct cli_layer_op *more = realloc(f->layer_ops, cap * sizeof *more);
		if (!more) {
			f->error = -ENOMEM;
			return;
		}
		f->layer_ops = more, f->layer_ops_cap = cap;
	}
	if (!e) {
		e = &f->layer_ops[f->n_layer_ops++];
		memset(e, 0, sizeof *e);
		e->layer = t->layer;
		snprintf(e->op, sizeof e->op, "%s", op);
	}
	e->count++, e->ns += t->duration_ns;
}

/* An op of generation on the CPU in a layer: the layers each backend computed. */
static void layer_op(struct cli_facts *f, const struct ggmlviz_timing *t, const char *op)
{
	char buf[24];

	if (t->layer < 0 || t->layer >= CLI_ADVISE_LAYERS || !is_cpu(f, t, buf))
		return;
	f->layer_cpu[t->layer] = 1;
	f->layer_cpu_ns[t->layer] += t->duration_ns;
	if (op && (!strcmp(op, "MUL_MAT") || !strcmp(op, "MUL_MAT_ID")))
		f->layer_cpu_mat[t->layer] = 1;
	tally(f, t, op ? op : "?");
}

static void op_timing(struct cli_facts *f, struct cli_step_acc *s, const struct ggmlviz_timing *t)
{
	const char *op = f->all.reader ? ggmlviz_reader_op_name(f->all.reader, t->op_type) : NULL;
	int part_class = cli_part_class(t->label, t->label_len);

	if (t->op_type == CLI_OP_RUN_START) { /* the run's start told apart (ticks.h), or measured */
		if (s)
			s->start_ns += t->duration_ns;
		return;
	}
	f->tensor_names |= t->label_len > 0;
	f->flash_attn |= op && !strcmp(op, "FLASH_ATTN_EXT");
	f->parts_named |= part_class != CLI_PART_CLASS_NONE;
	if (!s) {
		f->late_ops += t->step_seq != 0;
		return;
	}
	s->op_ns += t->duration_ns;
	if (op && cli_part_place(&f->seen, t, part_class, op) == CLI_PART_ATTENTION)
		s->attention_ns += t->duration_ns;
	if (t->phase == GGMLVIZ_PHASE_GENERATION)
		layer_op(f, t, op);
}

/* A run of nodes: the runs of its step, their backends and the host's time between them. */
static void split_timing(struct cli_facts *f, struct cli_step_acc *s,
			 const struct ggmlviz_timing *t)
{
	char buf[24];

	if (!s)
		return;
	if (!is_cpu(f, t, buf))
		s->gpu_runs++, f->has_gpu_runs = true;
	if (s->runs && t->begin_ns > s->last_end)
		s->gap_ns += t->begin_ns - s->last_end;
	if (s->runs && t->backend_ptr != s->last_backend)
		s->switches++;
	s->runs++;
	s->last_end = t->end_ns;
	s->last_backend = t->backend_ptr;
}

static int facts_timing(void *ctx, const struct ggmlviz_timing *t, const struct cli_tick_est *e)
{
	struct cli_facts *f = ctx;
	struct cli_step_acc *s = t->step_seq ? step_of(f, t->step_seq) : NULL;

	if (cli_agg_add(&f->all, t, e) < 0 || cli_agg_add(&f->gen, t, e) < 0 ||
	    (f->also && cli_agg_add(f->also, t, e) < 0))
		return -ENOMEM;
	switch (t->kind) {
	case GGMLVIZ_TIMING_OP:
		op_timing(f, s, t);
		break;
	case GGMLVIZ_TIMING_SPLIT:
		split_timing(f, s, t);
		break;
	case GGMLVIZ_TIMING_KERNEL: /* of generation's sampled steps (every one, without windows) */
		if (t->phase == GGMLVIZ_PHASE_GENERATION && (t->gpu_window == GGMLVIZ_GPU_WINDOW_NONE ||
							    t->gpu_window == GGMLVIZ_GPU_WINDOW_IN)) {
			f->gen_kernel_ns += t->duration_ns, f->gen_kernels++;
			if (s)
				s->kernel_ns += t->duration_ns;
		}
		break;
	case GGMLVIZ_TIMING_STEP:
		if (!cli_step_is_housekeeping(t)) /* a warm-up may wait on the model's pages */
			cli_usage_step(&f->usage, t->begin_ns, t->end_ns,
				       t->n_tokens > 1 ? f->n_threads_batch : f->n_threads);
		if (!s)
			break;
		s->ended = true;
		s->step_ns = t->duration_ns, s->tokens = t->n_tokens, s->phase = t->phase;
		s->has_context = t->n_seqs > 0, s->context = t->context_tokens;
		s->gpu_window = t->gpu_window;
		s->housekeeping = cli_step_is_housekeeping(t); /* a tool's warm-up: no token served */
		f->n_steps++;
		step_ended(f, t->step_seq);
		break;
	default:
		break;
	}
	return 0;
}

/* The trace's own META records: how it was written, and what it says of the machine. */
static void meta(struct cli_facts *f, const struct ggmlviz_event *ev)
{
	uint64_t key = ev->data.meta.key, v = ev->data.meta.value, v2 = ev->data.meta.value2;
	size_t n;

	switch (ev->data.meta.kind) {
	case GGMLVIZ_META_THREADS:
		f->has_threads = true;
		f->n_threads = (uint32_t)v, f->n_threads_batch = (uint32_t)(v >> 32);
		f->cpus_allowed = (uint32_t)v2, f->cpus_online = (uint32_t)(v2 >> 32);
		if (f->n_threads > f->threads_most)
			f->threads_most = f->n_threads;
		if (f->n_threads_batch > f->threads_most)
			f->threads_most = f->n_threads_batch;
		break;
	case GGMLVIZ_META_SAMPLE:
		f->sampled = true, f->summed = v2 != 0;
		n = ev->label_len < sizeof f->sample_note - 1 ? ev->label_len : sizeof f->sample_note - 1;
		memcpy(f->sample_note, ev->label ? ev->label : "", n);
		f->sample_note[n] = '\0';
		break;
	case GGMLVIZ_META_GPU:
		f->kernels_recorded |= v == 1;
		break;
	case GGMLVIZ_META_GPU_WINDOW:
		f->window_k = v2 >> 32, f->window_n = (uint32_t)v2;
		break;
	case GGMLVIZ_META_DROPPED:
		f->drop_records++;
		break;
	default:
		break;
	}
	(void)key;
}

/* The step open on ev's thread (STEP_BEGIN numbers them as the reader does), or 0. */
static uint64_t *thread_step(struct cli_facts *f, uint32_t tid)
{
	for (int i = 0; i < 64; i++)
		if (f->thread_step[i][0] == (uint64_t)tid + 1 || !f->thread_step[i][0]) {
			f->thread_step[i][0] = (uint64_t)tid + 1;
			return &f->thread_step[i][1];
		}
	return NULL;
}

static void facts_event(struct cli_facts *f, const struct ggmlviz_event *ev)
{
	uint64_t *open;
	struct cli_step_acc *s;

	cli_mem_devices_event(&f->mem, ev);
	cli_usage_record(&f->usage, ev);
	f->request_records |= ev->type == GGMLVIZ_EVENT_REQUEST_BEGIN;
	f->rpc_records |= ev->type == GGMLVIZ_EVENT_RPC_BEGIN;
	if (ev->type == GGMLVIZ_EVENT_META) {
		meta(f, ev);
	} else if (ev->type == GGMLVIZ_EVENT_STEP_BEGIN) {
		f->steps_begun++;
		if ((open = thread_step(f, ev->thread_id)))
			*open = f->steps_begun;
	} else if (ev->type == GGMLVIZ_EVENT_STEP_END) {
		if ((open = thread_step(f, ev->thread_id)))
			*open = 0;
	} else if (ev->type == GGMLVIZ_EVENT_COUNTER && ev->label_len == 16 &&
		   !memcmp(ev->label, "sched_copy_bytes", 16)) {
		open = thread_step(f, ev->thread_id);
		if (open && *open && (s = step_of(f, *open)))
			s->copy_bytes += ev->data.user.svalue > 0 ? (uint64_t)ev->data.user.svalue : 0, s->copies++;
	}
}

/* The second pass: every record and timing. */
static int read_all(struct cli_facts *f, struct cli_input *in, struct cli_ticks *k)
{
	struct ggmlviz_pairing *p;
	struct ggmlviz_timing t;
	struct ggmlviz_event ev;
	int rc = ggmlviz_pairing_new(&p);

	f->all.reader = f->gen.reader = in->r;
	if (f->also)
		f->also->reader = in->r;
	while (rc == 0 && !f->error && cli_input_next(in, &ev) == 1) {
		facts_event(f, &ev);
		rc = ggmlviz_pairing_add(p, &ev, &t);
		while (rc == 1)
			rc = cli_ticks_feed(k, &t, facts_timing, f) < 0 ? -ENOMEM
									: ggmlviz_pairing_take(p, &t);
	}
	ggmlviz_pairing_finish(p);
	while (rc >= 0 && ggmlviz_pairing_take(p, &t) == 1) /* GPU runs tied at the end */
		rc = cli_ticks_feed(k, &t, facts_timing, f);
	if (rc >= 0)
		rc = cli_ticks_flush(k, facts_timing, f);
	cli_agg_ticks(&f->all, k);
	cli_agg_ticks(&f->gen, k);
	ggmlviz_pairing_counts(p, &f->all.counts);
	if (f->also) {
		cli_agg_ticks(f->also, k);
		f->also->counts = f->all.counts;
	}
	ggmlviz_pairing_free(p);
	cli_mem_devices_end(&f->mem);
	return rc < 0 ? rc : f->error;
}

static int by_seq(const void *a, const void *b)
{
	const struct cli_step_acc *x = *(const struct cli_step_acc *const *)a;
	const struct cli_step_acc *y = *(const struct cli_step_acc *const *)b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* At the end: every step still held, in order, into the sums. */
static int sum_steps(struct cli_facts *f)
{
	struct cli_step_acc *s, **held = calloc(f->steps.count + 1, sizeof *held);
	size_t n = 0, cursor = 0;

	if (!held)
		return -ENOMEM;
	while ((s = cli_htab_next(&f->steps, &cursor)))
		held[n++] = s;
	qsort(held, n, sizeof *held, by_seq);
	for (size_t i = 0; i < n; i++)
		sum_step(f, held[i]->seq);
	free(held);
	f->n_ended = 0;
	return 0;
}

int cli_facts_read(const char *cmd, const char *path, struct cli *cli, struct cli_facts *f,
		   struct cli_agg *also)
{
	struct cli_ticks k = { .raw = also && also->raw_ticks };
	struct cli_input in;
	int rc, status;

	memset(f, 0, sizeof *f);
	f->path = path;
	f->also = also;
	cli_agg_init(&f->all, CLI_BY_OP, &cli->names, &cli->dist_bytes);
	cli_agg_init(&f->gen, CLI_BY_OP, &cli->names, &cli->dist_bytes);
	f->gen.phase = GGMLVIZ_PHASE_GENERATION;
	if (cli_input_open(&in, cmd, path) < 0)
		return -1;
	cli_peak_read(path, &f->all.peak);
	f->gen.peak = f->all.peak;
	if (also)
		also->peak = f->all.peak;
	cli_ticks_learn_file(&k, cmd, path);
	rc = read_all(f, &in, &k);
	cli_ticks_free(&k);
	if (rc == 0)
		rc = cli_agg_finish(&f->all, in.r);
	if (rc == 0)
		rc = cli_agg_finish(&f->gen, in.r);
	if (rc == 0 && also)
		rc = cli_agg_finish(also, in.r);
	if (rc == 0)
		rc = sum_steps(f);
	if (also && (also->measured || also->backends.shares))
		cli_shares_said_read(path, &also->said);
	f->all.reader = f->gen.reader = NULL;
	if (also)
		also->reader = NULL;
	f->ended = in.ended, f->crashed = in.crashed, f->damaged = in.error != 0;
	f->written = in.end_written, f->dropped = in.end_dropped;
	if (in.error)
		cli_input_describe(&in, f->damage, sizeof f->damage);
	f->names_assumed = cli->names.assumed;
	f->ops_named = cli->names.ops_named == 1 && !cli->names.assumed;
	status = cli_input_report(&in);
	cli_input_close(&in);
	if (rc < 0) {
		cli_error("%s: %s", path, ggmlviz_strerror(rc));
		return CLI_EXIT_DAMAGED;
	}
	f->has_gen = f->gen_steps > 0;
	f->has_req = f->request_records && cli_path_is_file(path) &&
		     cli_requests_collect(cmd, path, &f->req) >= 0 && f->req.n > 0;
	f->has_rpc = f->rpc_records && cli_path_is_file(path) &&
		     cli_rpc_hosts_read(cmd, path, &f->rpc) >= 0 && f->rpc.n_steps && f->rpc.n_hosts > 1;
	return status;
}

void cli_facts_free(struct cli_facts *f)
{
	cli_agg_free(&f->all);
	cli_agg_free(&f->gen);
	cli_htab_free_all(&f->steps);
	free(f->layer_ops);
	cli_mem_devices_free(&f->mem);
	if (f->has_req || f->req.r)
		cli_requests_free(&f->req);
	cli_rpc_hosts_free(&f->rpc);
}
