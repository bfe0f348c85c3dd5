/*
 * bench_llama's figures on a GPU (see llama-gpu.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/reader.h>

#include "llama-gpu.h"

#define MAX_OPS 256 /* op names of one model: a few dozen */

struct span {
	uint64_t begin, end;
};

struct gpu_read {
	struct span *kernels;
	size_t n_kernels, cap;
	uint64_t tied, untied, gpu_ops, gpu_op_ns;
	char note[320];
};

static int by_begin(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->begin > y->begin) - (x->begin < y->begin);
}

/* The GPU's busy time: the union of its kernels' spans (sorts them). */
static uint64_t busy_ns(struct span *s, size_t n)
{
	uint64_t busy = 0, from = 0, to = 0;

	qsort(s, n, sizeof *s, by_begin);
	for (size_t i = 0; i < n; i++) {
		if (i && s[i].begin <= to) {
			to = s[i].end > to ? s[i].end : to;
			continue;
		}
		busy += to - from;
		from = s[i].begin, to = s[i].end;
	}
	return busy + (to - from);
}

static void add_kernel(struct gpu_read *g, const struct ggmlviz_timing *t)
{
	if (g->n_kernels == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 4096;
		struct span *k = realloc(g->kernels, cap * sizeof *k);
		if (!k)
			return;
		g->kernels = k, g->cap = cap;
	}
	g->kernels[g->n_kernels++] = (struct span){ t->begin_ns, t->end_ns };
	g->tied += t->ptr != 0;
	g->untied += t->ptr == 0;
}

static void add_timing(struct gpu_read *g, const struct ggmlviz_timing *t)
{
	if (t->kind == GGMLVIZ_TIMING_KERNEL)
		add_kernel(g, t);
	else if (t->kind == GGMLVIZ_TIMING_OP && t->method == GGMLVIZ_OP_METHOD_GPU)
		g->gpu_ops++, g->gpu_op_ns += t->duration_ns;
}

static void add_event(struct gpu_read *g, const struct ggmlviz_event *ev)
{
	size_t n = ev->label_len < sizeof g->note ? ev->label_len : sizeof g->note - 1;

	if (ev->type != GGMLVIZ_EVENT_META || ev->data.meta.kind != GGMLVIZ_META_GPU)
		return;
	memcpy(g->note, ev->label ? ev->label : "", ev->label ? n : 0);
	g->note[ev->label ? n : 0] = '\0';
}

static int read_gpu(const char *path, struct gpu_read *g)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_pairing *p;
	struct ggmlviz_event ev;
	struct ggmlviz_timing t;
	int rc;

	if (ggmlviz_reader_open(path, &r) < 0)
		return -1;
	if (ggmlviz_pairing_new(&p) < 0) {
		ggmlviz_reader_close(r);
		return -1;
	}
	while (ggmlviz_reader_next(r, &ev) == 1) {
		add_event(g, &ev);
		for (rc = ggmlviz_pairing_add(p, &ev, &t); rc == 1; rc = ggmlviz_pairing_take(p, &t))
			add_timing(g, &t);
	}
	ggmlviz_pairing_finish(p);
	while (ggmlviz_pairing_take(p, &t) == 1)
		add_timing(g, &t);
	ggmlviz_pairing_free(p);
	ggmlviz_reader_close(r);
	return 0;
}

void gpu_figures(const char *trace_path)
{
	struct gpu_read g = { 0 };
	uint64_t busy;

	if (read_gpu(trace_path, &g) < 0)
		return;
	printf("    GPU kernels %s\n", g.note[0] ? g.note : "(the trace does not say)");
	if (g.n_kernels) {
		busy = busy_ns(g.kernels, g.n_kernels);
		printf("    %zu kernels, %" PRIu64 " tied to their nodes, %" PRIu64 " untied; %" PRIu64
		       " ops timed by kernels: %.3f ms, %.1f%% of the GPU's busy time %.3f ms "
		       "(target: within 5%%)\n", g.n_kernels, g.tied, g.untied, g.gpu_ops,
		       (double)g.gpu_op_ns / 1e6, busy ? 100.0 * (double)g.gpu_op_ns / (double)busy : 0,
		       (double)busy / 1e6);
	}
	free(g.kernels);
}

/* ---- per op, default mode against sync ---- */

struct op_sum {
	char name[64];
	uint64_t n[2], ns[2]; /* [0] default mode, [1] sync */
};

static struct op_sum *op_of(struct op_sum *ops, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	if (*n == MAX_OPS)
		return NULL;
	snprintf(ops[*n].name, sizeof ops[*n].name, "%s", name);
	return &ops[(*n)++];
}

/* Every op timing of path summed by op name into column `mode`. */
static int sum_ops(const char *path, struct op_sum *ops, size_t *n, int mode)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	struct op_sum *o;
	char buf[64];

	if (ggmlviz_reader_open(path, &r) < 0)
		return -1;
	while (ggmlviz_reader_next_timing(r, &t) == 1) {
		if (t.kind != GGMLVIZ_TIMING_OP)
			continue;
		ggmlviz_reader_write_op_name(r, t.op_type, buf, sizeof buf); /* "RMS_NORM+MUL" */
		if ((o = op_of(ops, n, buf)))
			o->n[mode]++, o->ns[mode] += t.duration_ns;
	}
	ggmlviz_reader_close(r);
	return 0;
}

static int by_default_time(const void *a, const void *b)
{
	const struct op_sum *x = a, *y = b;
	uint64_t tx = x->ns[0] ? x->ns[0] : x->ns[1], ty = y->ns[0] ? y->ns[0] : y->ns[1];

	return (tx < ty) - (tx > ty);
}

static void print_mean(const struct op_sum *o, int mode)
{
	if (o->n[mode])
		printf(" %7" PRIu64 " %10.3f", o->n[mode], (double)o->ns[mode] / (double)o->n[mode] / 1e3);
	else
		printf(" %7s %10s", "-", "-");
}

void gpu_sync_table(const char *default_path, const char *sync_path, int top)
{
	static struct op_sum ops[MAX_OPS];
	size_t n = 0;

	memset(ops, 0, sizeof ops);
	if (sum_ops(default_path, ops, &n, 0) < 0 || sum_ops(sync_path, ops, &n, 1) < 0)
		return;
	qsort(ops, n, sizeof *ops, by_default_time);
	printf("    per op, one round: default mode (kernel times on a GPU, ticks on the CPU) "
	       "against GGML_VIZ_OP_TIMING=sync\n");
	printf("    %-16s %7s %10s %7s %10s %8s\n", "OP", "COUNT", "MEAN us", "COUNT", "SYNC us",
	       "SYNC/DEF");
	for (size_t i = 0; i < n && (int)i < top; i++) {
		const struct op_sum *o = &ops[i];
		printf("    %-16s", o->name);
		print_mean(o, 0);
		print_mean(o, 1);
		if (o->n[0] && o->n[1] && o->ns[0])
			printf(" %8.2f\n", ((double)o->ns[1] / (double)o->n[1]) /
						   ((double)o->ns[0] / (double)o->n[0]));
		else
			printf(" %8s\n", "-");
	}
}
