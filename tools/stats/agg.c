/*
 * Grouping op timings (stats, diff): one group per op, tensor name,
 * layer, thread, backend, step, phase or method (or GPU kernels, by their
 * function's name), found by hash. Groups are keyed by number
 * while reading (names may come later in the file) and named at the end.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "base/htab.h"
#include "input/input.h"

const char *const cli_by_names[] = { "op",   "name",  "layer",  "thread",
				     "backend", "step", "phase", "method", "kernel", "sequence",
				     "request", "part", "host", "command", NULL };
const char *const cli_sort_names[] = { "total", "count", "mean", "min",   "max",   "p50",
				       "p95",   "gflops", "name", "order", "gbps", NULL };

struct key {
	uint64_t id;
	const char *s;
	size_t len;
};

static bool group_eq(const void *item, const void *k)
{
	const struct cli_group *g = item;
	const struct key *key = k;

	return g->id == key->id && g->key_len == key->len &&
	       (!key->len || !memcmp(g->key, key->s, key->len));
}

/* The group of the runs' starts (ticks.h) where the grouping has no place for them. */
#define RUN_START_ID (UINT64_MAX - 1)

/*
 * Whether the runs' starts are a group of their own by `by`: by op and by
 * name they are already (their op type and label), by step and phase they
 * are in their step's time, not an op of some layer, thread or method.
 */
static bool starts_apart(int by)
{
	return by == CLI_BY_LAYER || by == CLI_BY_THREAD || by == CLI_BY_BACKEND ||
	       by == CLI_BY_METHOD || by == CLI_BY_PART;
}

/* The group of a timing: by op, name, layer (cli_layer_key(): N + 1, 0 for none), thread, ... */
static struct key key_of(struct cli_agg *a, int by, const struct ggmlviz_timing *t)
{
	struct key k = { 0, NULL, 0 };

	if (t->kind == GGMLVIZ_TIMING_OP && t->op_type == CLI_OP_RUN_START && starts_apart(by)) {
		k.id = RUN_START_ID;
		return k;
	}
	switch (by) {
	case CLI_BY_OP: k.id = t->op_type; break;
	case CLI_BY_NAME: k.s = t->label_len ? t->label : NULL, k.len = t->label_len; break;
	case CLI_BY_LAYER: k.id = cli_layer_key(t); break;
	case CLI_BY_THREAD: k.id = t->thread_id; break;
	case CLI_BY_BACKEND: k.id = t->backend_ptr; break;
	case CLI_BY_STEP: k.id = t->step_seq; break;
	case CLI_BY_PHASE: k.id = t->step_seq || t->phase ? t->phase + 1 : 0; break; /* a window: its phase, no step */
	case CLI_BY_METHOD: k.id = t->method; break;
	case CLI_BY_PART: k.id = cli_part_key(a, t); break;
	default: break;
	}
	return k;
}

static struct cli_group *group_new(struct cli_agg *a, const struct key *k,
					uint64_t hash)
{
	struct cli_group *g = calloc(1, sizeof *g);

	if (!g || (k->len && !(g->key = malloc(k->len)))) {
		free(g);
		return NULL;
	}
	g->id = k->id;
	g->key_len = k->len;
	g->d.spent = a->dist_bytes;
	if (k->len)
		memcpy(g->key, k->s, k->len);
	if (cli_htab_add(&a->groups, hash, g) < 0) {
		free(g->key);
		free(g);
		return NULL;
	}
	return g;
}

void cli_agg_init(struct cli_agg *a, int by, struct cli_names *names, uint64_t *dist_bytes)
{
	memset(a, 0, sizeof *a);
	a->by = by;
	a->t_first = UINT64_MAX;
	a->names = names;
	a->dist_bytes = dist_bytes;
}

static void add_span(struct cli_agg *a, const struct ggmlviz_timing *t)
{
	a->t_first = t->begin_ns < a->t_first ? t->begin_ns : a->t_first;
	a->t_last = t->end_ns > a->t_last ? t->end_ns : a->t_last;
}

/* Past CLI_MAX_GROUPS groups, every new key goes to this one. */
static const struct key other_key = { UINT64_MAX, "\x01(other groups)", 16 };

/* The group of key k, made if new; NULL when out of memory. */
static struct cli_group *group_of(struct cli_agg *a, const struct key *k)
{
	uint64_t hash = cli_hash_bytes(k->s, k->len, k->id);
	struct cli_group *g = cli_htab_find(&a->groups, hash, group_eq, k);

	if (g)
		return g;
	if (a->groups.count < CLI_MAX_GROUPS)
		return group_new(a, k, hash);
	a->keys_folded++;
	hash = cli_hash_bytes(other_key.s, other_key.len, other_key.id);
	g = cli_htab_find(&a->groups, hash, group_eq, &other_key);
	return g ? g : group_new(a, &other_key, hash);
}


/* A step: to the totals, and to its group by step or by phase. */
static int add_step(struct cli_agg *a, const struct ggmlviz_timing *t)
{
	struct key k = key_of(a, a->by, t);
	struct cli_group *g;

	a->steps++;
	a->tokens += t->n_tokens;
	a->step_ns += t->duration_ns;
	a->has_context |= t->n_seqs > 0;
	if (!cli_by_steps(a->by))
		return 0;
	if (!(g = group_of(a, &k)))
		return -ENOMEM;
	g->steps++;
	g->tokens += t->n_tokens;
	g->step_ns += t->duration_ns;
	g->phase = t->phase;
	if (t->n_seqs) {
		g->has_context = a->has_context = true;
		g->context_tokens = t->context_tokens > g->context_tokens ? t->context_tokens
									   : g->context_tokens;
		g->context_cells = t->context_cells > g->context_cells ? t->context_cells
								       : g->context_cells;
		g->n_seqs = t->n_seqs > g->n_seqs ? t->n_seqs : g->n_seqs;
	}
	return 0;
}

/* By kernel: a GPU kernel's group is its function's name (its template arguments aside). */
static int add_kernel(struct cli_agg *a, const struct ggmlviz_timing *t)
{
	char buf[96];
	struct key k = { 0, cli_kernel_name(t->label, t->label_len, buf), 0 };
	struct cli_group *g;

	k.len = strlen(k.s);
	if (!(g = group_of(a, &k)) || cli_dist_add(&g->d, t->duration_ns) < 0)
		return -ENOMEM;
	a->ops++; /* its op's flops are not the kernel's: no GFLOP/s */
	a->op_ns += t->duration_ns;
	return 0;
}

/*
 * Ops a step ran, summed by op type and backend (OP_SUMMARY): in the
 * totals, and in their group where the grouping has a key for them (not
 * by name or layer: a summary has neither).
 */
static int add_summary(struct cli_agg *a, const struct ggmlviz_timing *t)
{
	struct key k = key_of(a, a->by, t);
	struct cli_group *g;

	a->ops += t->n_nodes, a->op_ns += t->duration_ns;
	a->summed += t->n_nodes, a->summed_ns += t->duration_ns;
	if (a->by == CLI_BY_NAME || a->by == CLI_BY_LAYER || a->by == CLI_BY_PART) {
		a->summed_out += t->n_nodes;
		return 0;
	}
	if (!(g = group_of(a, &k)))
		return -ENOMEM;
	cli_dist_add_sum(&g->d, t->n_nodes, t->duration_ns, t->value);
	return 0;
}

/* By part: the op's time in its layer (its slot: cli_layer_slot()), and the first name of its group. */
static int part_layer(struct cli_group *g, const struct ggmlviz_timing *t)
{
	uint32_t i = t->layer < 65535 ? cli_layer_slot(cli_layer_key(t)) : 0;

	if (!g->example && t->label_len && (g->example = malloc(48))) {
		size_t n = t->label_len < 47 ? t->label_len : 47;
		memcpy(g->example, t->label, n);
		g->example[n] = '\0';
	}
	if (i >= g->n_layers) {
		uint64_t *more = realloc(g->layer_ns, (i + 1) * sizeof *more);
		if (!more)
			return -ENOMEM;
		memset(more + g->n_layers, 0, (i + 1 - g->n_layers) * sizeof *more);
		g->layer_ns = more;
		g->n_layers = i + 1;
	}
	g->layer_ns[i] += t->duration_ns;
	return 0;
}

/* An op: to its group and the totals, with what the estimate of op times from ticks says of it. */
static int add_op(struct cli_agg *a, const struct ggmlviz_timing *t, const struct cli_tick_est *e)
{
	struct key k = key_of(a, a->by, t);
	struct cli_group *g = group_of(a, &k);

	if (!g)
		return -ENOMEM;
	if (t->op_type == CLI_OP_RUN_START && cli_by_steps(a->by))
		g->d.total += t->duration_ns; /* in the step's op time, not one of its ops */
	else if (cli_dist_add(&g->d, t->duration_ns) < 0)
		return -ENOMEM;
	if (t->flops)
		g->flops += t->flops, g->flops_ns += t->duration_ns;
	if (t->bytes_read || t->bytes_written)
		g->bytes += t->bytes_read + t->bytes_written, g->bytes_ns += t->duration_ns;
	g->wait_ns += e->wait_ns, g->above_ns += e->above_ns;
	if (a->by == CLI_BY_PART && t->op_type != CLI_OP_RUN_START && part_layer(g, t) < 0)
		return -ENOMEM;
	g->measured_ops += t->method == GGMLVIZ_OP_METHOD_MEASURED;
	g->ticked_ops += t->method == GGMLVIZ_OP_METHOD_TICK;
	a->waits += e->wait_ns != 0, a->wait_ns += e->wait_ns, a->above_ns += e->above_ns;
	a->op_ns += t->duration_ns;
	if (t->op_type == CLI_OP_RUN_START) { /* not an op: the time before one (ticks.h) */
		a->starts++, a->start_ns += t->duration_ns;
		return 0;
	}
	if (t->node_flags & GGMLVIZ_NODE_RUN_START) {
		g->run_starts++, g->run_start_ns += t->duration_ns;
		a->run_starts++, a->run_start_ns += t->duration_ns;
	}
	a->ops++;
	return 0;
}

/*
 * A CPU worker's share of a node (OP_SHARE): by thread, a row of its
 * worker, its compute the time and its wait at the barrier WAIT; else it
 * is in the op's measured time already (backends.c counts it either way).
 */
static int add_share(struct cli_agg *a, const struct ggmlviz_timing *t)
{
	struct key k = key_of(a, CLI_BY_THREAD, t);
	struct cli_group *g;

	if (a->by != CLI_BY_THREAD)
		return 0;
	if (!(g = group_of(a, &k)) || cli_dist_add(&g->d, t->duration_ns) < 0)
		return -ENOMEM;
	g->wait_ns += t->value;
	a->op_ns += t->duration_ns;
	return 0;
}

bool cli_window_out(int by, const struct ggmlviz_timing *t)
{
	return !cli_by_steps(by) &&
	       (t->gpu_window == GGMLVIZ_GPU_WINDOW_OUT || t->gpu_window == GGMLVIZ_GPU_WINDOW_WARMUP);
}

int cli_agg_add(void *agg, const struct ggmlviz_timing *t, const struct cli_tick_est *e)
{
	struct cli_agg *a = agg;

	if (a->by == CLI_BY_LAYER)
		cli_cold_add(&a->cold, t); /* every step's, whatever --phase shows: see cold.c */
	cli_step_span_add(&a->span, &a->step_range, t);
	if ((a->phase && t->phase != a->phase) || !cli_steps_has(&a->step_range, t->step_seq))
		return 0; /* --phase, --steps: another phase's or step's, or outside every step */
	if (t->kind == GGMLVIZ_TIMING_STEP)
		a->window_steps[t->gpu_window & 3]++;
	if (cli_window_out(a->by, t)) {
		a->window_ops_out += t->kind == GGMLVIZ_TIMING_OP;
		return 0; /* kernels not recorded there (or CUPTI's start slowed them) */
	}
	add_span(a, t);
	if (t->kind >= GGMLVIZ_TIMING_SCOPE || (t->kind == GGMLVIZ_TIMING_OP && t->method))
		cli_names_ours(a->names); /* records the original ggml-viz never wrote */
	if (t->kind == GGMLVIZ_TIMING_GRAPH)
		a->graphs++, a->graph_ns += t->duration_ns;
	cli_backends_add(&a->backends, t);
	if (t->kind == GGMLVIZ_TIMING_STEP)
		return add_step(a, t);
	if (a->by == CLI_BY_KERNEL)
		return t->kind == GGMLVIZ_TIMING_KERNEL ? add_kernel(a, t) : 0;
	if (t->kind == GGMLVIZ_TIMING_OP_SUMMARY)
		return add_summary(a, t);
	if (t->kind == GGMLVIZ_TIMING_SHARE)
		return add_share(a, t);
	if (t->kind == GGMLVIZ_TIMING_OP && t->method == GGMLVIZ_OP_METHOD_MEASURED &&
	    t->op_type != CLI_OP_RUN_START) {
		a->measured++;
		if (a->by == CLI_BY_THREAD) {
			a->ops++; /* its thread's part is a share: the rows are the workers' */
			return 0;
		}
	}
	return t->kind == GGMLVIZ_TIMING_OP ? add_op(a, t, e) : 0;
}

void cli_agg_ticks(struct cli_agg *a, const struct cli_ticks *k)
{
	a->ticks = k->sums;
	a->ticks_estimated = k->learnt;
	a->raw_ticks = k->raw;
}

double cli_group_share(const struct cli_agg *a, const struct cli_group *g)
{
	return a->op_ns ? (double)g->d.total / (double)a->op_ns : 0;
}

double cli_group_mean(const struct cli_group *g)
{
	return g->d.count ? (double)g->d.total / (double)g->d.count : 0;
}

double cli_group_gbps(const struct cli_group *g)
{
	return g->bytes_ns ? (double)g->bytes / (double)g->bytes_ns : -1;
}

double cli_group_gflops(const struct cli_group *g)
{
	return g->flops_ns ? (double)g->flops / (double)g->flops_ns : -1;
}

/* Groups keyed by bytes (a tensor's name, a kernel's), which name them. */
static bool by_bytes(int by)
{
	return by == CLI_BY_NAME || by == CLI_BY_KERNEL;
}

/* A NUL-terminated copy of n bytes that may hold NULs themselves. */
static char *dup_bytes(const char *s, size_t n)
{
	char *copy = malloc(n + 1);

	if (copy) {
		memcpy(copy, s, n);
		copy[n] = '\0';
	}
	return copy;
}

/* The display name of g: the op's, the thread's, ... */
static char *group_name(const struct cli_agg *a, const struct cli_group *g,
			const struct ggmlviz_reader *r)
{
	char buf[320];
	const char *name = buf;

	static const char *const methods[] = { "unknown", "sync", "tick", "gpu", "measured" };

	if (g->id == other_key.id && g->key_len == other_key.len &&
	    !memcmp(g->key, other_key.s, other_key.len))
		name = "(other groups)";
	else if (g->id == RUN_START_ID && starts_apart(a->by))
		name = "(run start)";
	else if (a->by == CLI_BY_OP)
		name = cli_op_name(a->names, r, (uint32_t)g->id, buf);
	else if (by_bytes(a->by))
		name = g->key_len ? NULL : "(no name)";
	else if (a->by == CLI_BY_LAYER)
		name = cli_layer_name(g->id, buf, sizeof buf);
	else if (a->by == CLI_BY_STEP && g->id)
		snprintf(buf, sizeof buf, "%" PRIu64, g->id);
	else if (a->by == CLI_BY_STEP)
		name = "(none)";
	else if (a->by == CLI_BY_PHASE)
		name = g->id ? cli_phase_name((uint32_t)(g->id - 1)) : "(no step)";
	else if (a->by == CLI_BY_METHOD)
		name = g->id < 5 ? methods[g->id] : "unknown";
	else if (a->by == CLI_BY_PART)
		name = cli_part_name(g->id);
	else if (a->by == CLI_BY_THREAD)
		name = cli_thread_label(a->names, r, (uint32_t)g->id, buf, sizeof buf);
	else
		name = cli_backend_name(a->names, r, g->id, buf);
	return name ? strdup(name) : dup_bytes(g->key, g->key_len);
}

/* Adds g's ops to into (both of the same grouping); 0 or -ENOMEM. */
static int group_merge(struct cli_group *into, const struct cli_group *g)
{
	if (cli_dist_merge(&into->d, &g->d) < 0)
		return -ENOMEM;
	into->flops += g->flops, into->flops_ns += g->flops_ns;
	into->bytes += g->bytes, into->bytes_ns += g->bytes_ns;
	into->run_starts += g->run_starts, into->run_start_ns += g->run_start_ns;
	into->wait_ns += g->wait_ns, into->above_ns += g->above_ns;
	into->measured_ops += g->measured_ops, into->ticked_ops += g->ticked_ops;
	if (g->n_layers > into->n_layers) {
		uint64_t *more = realloc(into->layer_ns, g->n_layers * sizeof *more);
		if (!more)
			return -ENOMEM;
		memset(more + into->n_layers, 0, (g->n_layers - into->n_layers) * sizeof *more);
		into->layer_ns = more;
		into->n_layers = g->n_layers;
	}
	for (uint32_t i = 0; i < g->n_layers; i++)
		into->layer_ns[i] += g->layer_ns[i];
	return 0;
}

static void group_free(struct cli_group *g)
{
	cli_dist_free(&g->d);
	free(g->key);
	free(g->name);
	free(g->layer_ns);
	free(g->example);
	free(g);
}

/* By part: what "(other)" holds, kept by op type, the most time first. */
static void note_other(struct cli_agg *a, const char *op, const struct cli_group *g)
{
	struct cli_part_other *o = a->others, *end = o + CLI_PART_OTHERS;

	a->other_ops += g->d.count;
	while (o < end && o->count && o->ns >= g->d.total)
		o++;
	if (o == end)
		return;
	memmove(o + 1, o, (size_t)(end - o - 1) * sizeof *o);
	memset(o, 0, sizeof *o);
	snprintf(o->op, sizeof o->op, "%s", op);
	snprintf(o->example, sizeof o->example, "%s", g->example ? g->example : "");
	o->count = g->d.count, o->ns = g->d.total;
}

/*
 * By part: the groups of (name's class, op type) read, each put in its
 * part now that the ops have their names, and merged there.
 */
static int parts_merge(struct cli_agg *a, const struct ggmlviz_reader *r)
{
	size_t n = 0, cursor = 0;
	struct cli_group *g, **raw = calloc(a->groups.count + 1, sizeof *raw);
	int rc = 0;

	if (!raw)
		return -ENOMEM;
	while ((g = cli_htab_next(&a->groups, &cursor)))
		raw[n++] = g;
	cli_htab_free(&a->groups);
	memset(&a->groups, 0, sizeof a->groups);
	for (size_t i = 0; i < n; i++) /* those placed already, and the runs' starts, as they are */
		if (raw[i]->id == RUN_START_ID || raw[i]->key_len || raw[i]->id < CLI_PARTS) {
			if (cli_htab_add(&a->groups, cli_hash_bytes(raw[i]->key, raw[i]->key_len,
								    raw[i]->id), raw[i]) < 0)
				rc = -ENOMEM, group_free(raw[i]);
			raw[i] = NULL;
		}
	for (size_t i = 0; i < n; i++) {
		char buf[CLI_OP_NAME_MAX];
		const char *op;
		int part_class;
		struct key k = { 0, NULL, 0 };
		struct cli_group *into;

		if (!raw[i])
			continue;
		part_class = (int)(raw[i]->id >> 32) - 2; /* a raw key: cli_part_key() */
		op = cli_op_name(a->names, r, (uint32_t)raw[i]->id, buf);
		k.id = (uint64_t)cli_part_resolve(part_class, op);
		a->any_placed |= part_class != CLI_PART_CLASS_NONE;
		if (k.id == CLI_PART_OTHER)
			note_other(a, op, raw[i]);
		into = rc ? NULL : group_of(a, &k);
		if (!rc && (!into || group_merge(into, raw[i]) < 0))
			rc = -ENOMEM;
		group_free(raw[i]);
	}
	free(raw);
	return rc;
}

int cli_agg_finish(struct cli_agg *a, const struct ggmlviz_reader *r)
{
	struct cli_group *g;
	size_t cursor = 0;

	cli_backends_name(&a->backends, a->names, r);
	if (a->by == CLI_BY_PART && parts_merge(a, r) < 0)
		return -ENOMEM;
	a->sorted = calloc(a->groups.count + 1, sizeof *a->sorted);
	if (!a->sorted)
		return -ENOMEM;
	if (a->by == CLI_BY_OP) {
		bool named = false;
		while (!named && (g = cli_htab_next(&a->groups, &cursor)))
			named = ggmlviz_reader_op_name(r, (uint32_t)g->id) != NULL;
		cli_names_decide(a->names, named || a->groups.count == 0);
		cursor = 0;
	}
	while ((g = cli_htab_next(&a->groups, &cursor))) {
		g->name = group_name(a, g, r);
		if (!g->name)
			return -ENOMEM;
		g->name_len = by_bytes(a->by) && g->key_len ? g->key_len : strlen(g->name);
		g->p50 = cli_dist_quantile(&g->d, 0.50);
		g->p95 = cli_dist_quantile(&g->d, 0.95);
		a->sorted[a->n++] = g;
	}
	return 0;
}

static double sort_value(const struct cli_group *g, int sort)
{
	switch (sort) {
	case CLI_SORT_COUNT: return (double)g->d.count;
	case CLI_SORT_MEAN: return (double)g->d.total / (double)g->d.count;
	case CLI_SORT_MIN: return (double)g->d.min;
	case CLI_SORT_MAX: return (double)g->d.max;
	case CLI_SORT_P50: return (double)g->p50;
	case CLI_SORT_P95: return (double)g->p95;
	case CLI_SORT_GFLOPS: return cli_group_gflops(g);
	case CLI_SORT_GBPS: return cli_group_gbps(g);
	default: /* by step and phase: the steps' own time, the TIME column, not their ops' */
		return g->steps ? (double)g->step_ns : (double)g->d.total;
	}
}

static int by_name(const void *pa, const void *pb)
{
	const struct cli_group *a = *(const struct cli_group *const *)pa;
	const struct cli_group *b = *(const struct cli_group *const *)pb;

	return strverscmp(a->name, b->name);
}

/* The natural order of the groups' numbers: layer 0, 1, ...; step 1, 2, ... */
static int by_id(const void *pa, const void *pb)
{
	const struct cli_group *a = *(const struct cli_group *const *)pa;
	const struct cli_group *b = *(const struct cli_group *const *)pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return by_name(pa, pb);
}

/* Biggest first; ties by name, so the order never depends on the hash. */
static int by_value(const void *pa, const void *pb)
{
	const struct cli_group *a = *(const struct cli_group *const *)pa;
	const struct cli_group *b = *(const struct cli_group *const *)pb;

	if (a->sort_value != b->sort_value)
		return a->sort_value < b->sort_value ? 1 : -1;
	return by_name(pa, pb);
}

void cli_agg_sort(struct cli_agg *a, int sort)
{
	for (size_t i = 0; i < a->n; i++)
		a->sorted[i]->sort_value = sort_value(a->sorted[i], sort);
	qsort(a->sorted, a->n, sizeof *a->sorted,
	      sort == CLI_SORT_NAME ? by_name : sort == CLI_SORT_ORDER ? by_id : by_value);
}

void cli_agg_free(struct cli_agg *a)
{
	struct cli_group *g;
	size_t cursor = 0;

	while ((g = cli_htab_next(&a->groups, &cursor)))
		group_free(g);
	cli_htab_free(&a->groups);
	free(a->sorted);
	a->sorted = NULL;
	a->n = 0;
}
