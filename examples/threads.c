/*
 * threads: trace a small multi-threaded workload, then read the trace back
 * and print where the time went.
 *
 * Four worker threads each run a few "layers" of real arithmetic (matrix
 * products, a softmax, an add), recording each step as an op named the way
 * llama.cpp names its tensors. Afterwards the trace is read back through
 * the reader API: begin/end pairs become timings, summed per op.
 *
 *   examples/threads [TRACE]      (default: threads.ggmlviz)
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

enum { OP_ADD = 2, OP_MUL_MAT = 26, OP_SOFT_MAX = 40 }; /* any numbering: the trace names them */
enum { N = 96, LAYERS = 4, STEPS = 6, WORKERS = 4 };

struct worker {
	pthread_t thread;
	int id;
	float a[N * N], b[N * N], c[N * N];
};

static void mul_mat(float *c, const float *a, const float *b)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			float s = 0;
			for (int k = 0; k < N; k++)
				s += a[i * N + k] * b[k * N + j];
			c[i * N + j] = s;
		}
}

static void soft_max(float *x)
{
	for (int i = 0; i < N; i++) {
		float max = x[i * N], sum = 0;
		for (int j = 1; j < N; j++)
			max = fmaxf(max, x[i * N + j]);
		for (int j = 0; j < N; j++)
			sum += x[i * N + j] = expf(x[i * N + j] - max);
		for (int j = 0; j < N; j++)
			x[i * N + j] /= sum;
	}
}

static void add(float *c, const float *a)
{
	for (int i = 0; i < N * N; i++)
		c[i] += a[i];
}

/* One traced op: begin, the work, end; the name is copied by the tracer. */
#define TRACED(w, op, fmt, layer, work)                                                     \
	do {                                                                                \
		char name_[64];                                                             \
		snprintf(name_, sizeof name_, fmt, layer);                                  \
		ggmlviz_op_begin((w)->c, op, sizeof((w)->c), NULL, name_);                  \
		work;                                                                       \
		ggmlviz_op_end((w)->c, op, sizeof((w)->c), NULL, name_);                    \
	} while (0)

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[16];

	snprintf(name, sizeof name, "worker-%d", w->id);
	ggmlviz_thread_name(name);
	for (int i = 0; i < N * N; i++) {
		w->a[i] = (float)((i * 7 + w->id) % 13) / 13.0f;
		w->b[i] = (float)((i * 5 + 3) % 11) / 11.0f;
	}
	for (int step = 0; step < STEPS; step++) {
		ggmlviz_graph_begin(w, LAYERS * 4, 1, NULL);
		for (int l = 0; l < LAYERS; l++) {
			TRACED(w, OP_MUL_MAT, "Qcur-%d", l, mul_mat(w->c, w->a, w->b));
			TRACED(w, OP_SOFT_MAX, "kq_soft_max-%d", l, soft_max(w->c));
			TRACED(w, OP_MUL_MAT, "ffn_out-%d", l, mul_mat(w->a, w->c, w->b));
			TRACED(w, OP_ADD, "l_out-%d", l, add(w->a, w->b));
		}
		ggmlviz_graph_end(w, LAYERS * 4, 1, NULL);
	}
	return NULL;
}

static int record(const char *path)
{
	static struct worker workers[WORKERS];
	struct ggmlviz_config cfg;
	int rc;

	ggmlviz_config_init(&cfg);
	ggmlviz_config_from_env(&cfg); /* GGML_VIZ_* may still adjust it */
	cfg.output = path;
	rc = ggmlviz_start(&cfg);
	if (rc < 0) {
		fprintf(stderr, "threads: cannot trace to %s: %s\n", path, ggmlviz_strerror(rc));
		return -1;
	}
	ggmlviz_meta(GGMLVIZ_META_OP_NAME, OP_ADD, 0, 0, "ADD");
	ggmlviz_meta(GGMLVIZ_META_OP_NAME, OP_MUL_MAT, 0, 0, "MUL_MAT");
	ggmlviz_meta(GGMLVIZ_META_OP_NAME, OP_SOFT_MAX, 0, 0, "SOFT_MAX");
	for (int i = 0; i < WORKERS; i++) {
		workers[i].id = i;
		pthread_create(&workers[i].thread, NULL, work, &workers[i]);
	}
	for (int i = 0; i < WORKERS; i++)
		pthread_join(workers[i].thread, NULL);
	return ggmlviz_stop();
}

/* Totals per op type, read back from the trace. */
struct total {
	uint32_t op;
	uint64_t count, ns;
};

static int by_time(const void *a, const void *b)
{
	const struct total *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

static int summarize(const char *path)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	struct total totals[64] = { { 0, 0, 0 } };
	uint64_t all = 0, graphs = 0;
	int n = 0, rc = ggmlviz_reader_open(path, &r);

	if (rc < 0) {
		fprintf(stderr, "threads: cannot read %s: %s\n", path, ggmlviz_strerror(rc));
		return 1;
	}
	while ((rc = ggmlviz_reader_next_timing(r, &t)) == 1) {
		int i = 0;
		if (t.kind == GGMLVIZ_TIMING_GRAPH)
			graphs++;
		if (t.kind != GGMLVIZ_TIMING_OP)
			continue;
		while (i < n && totals[i].op != t.op_type)
			i++;
		if (i == n && n < 64)
			totals[n++].op = t.op_type;
		totals[i].count++;
		totals[i].ns += t.duration_ns;
		all += t.duration_ns;
	}
	if (rc < 0)
		fprintf(stderr, "threads: %s at byte %llu: %s\n", path,
			(unsigned long long)ggmlviz_reader_offset(r), ggmlviz_strerror(rc));
	qsort(totals, (size_t)n, sizeof totals[0], by_time);
	printf("%llu graph runs on %d threads; where the op time went:\n",
	       (unsigned long long)graphs, WORKERS);
	printf("  %-10s %6s %12s %12s %7s\n", "op", "count", "total ms", "mean us", "share");
	for (int i = 0; i < n; i++) {
		const char *name = ggmlviz_reader_op_name(r, totals[i].op);
		printf("  %-10s %6llu %12.3f %12.2f %6.1f%%\n", name ? name : "?",
		       (unsigned long long)totals[i].count, (double)totals[i].ns / 1e6,
		       (double)totals[i].ns / (double)totals[i].count / 1e3,
		       all ? 100.0 * (double)totals[i].ns / (double)all : 0.0);
	}
	ggmlviz_reader_close(r);
	return rc < 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "threads.ggmlviz";
	struct ggmlviz_stats st;

	if (record(path) < 0)
		return 1;
	ggmlviz_get_stats(&st);
	printf("traced %llu events (%llu dropped) into %s\n", (unsigned long long)st.written,
	       (unsigned long long)st.dropped, path);
	return summarize(path);
}
