/*
 * Where a traced program's own blocks lie, for tests/test-heap-untouched.sh:
 * the library takes its memory from pages of its own (lib/util/pages.h),
 * never the program's heap, so the program's blocks lie where they would
 * untraced.
 *
 *     heap-layout traced|untraced TRACE
 *
 * The program allocates a first block, then (traced) starts tracing into
 * TRACE, or (untraced) starts a thread that waits, as the writer thread
 * does: glibc gives each new thread its TLS array from the creating
 * thread's heap, the one block of a start that is not the library's. Then
 * it computes a real GGML graph with the adapter's callback on its
 * scheduler five times (every op timed where traced: the runs, their
 * descriptions and kept names, each thread's ring) and records steps,
 * ops, counters and memory; a second thread takes a first block of its
 * own and records the same. Each thread then allocates blocks of six
 * sizes and prints where each lies: its distance from the thread's first
 * block, or its offset in its page where it was mapped apart (a large
 * one), which is all that does not move with ASLR. The two modes must
 * print the same.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>


#ifndef GGMLVIZ_GGML_LIBDIR
#error "build with -DGGMLVIZ_GGML_LIBDIR=\"...\" (Makefile.am does)"
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;

/* GGML's log: errors only. */
static void quiet(enum ggml_log_level level, const char *text, void *data)
{
	(void)data;
	if (level == GGML_LOG_LEVEL_ERROR)
		fputs(text, stderr);
}

/* The untraced run's stand-in for the writer thread: it waits until the end. */
static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!done)
		pthread_cond_wait(&done_cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static const size_t sizes[] = { 24, 200, 1000, 5000, 40000, 300000 };

/* Where blocks of each size lie, as the thread that calls it allocates them after first. */
static void say_blocks(const char *who, const char *first)
{
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		char *p = malloc(sizes[i]);

		if (sizes[i] < 128 * 1024)
			printf("%s, %zu bytes: %+td from its first block\n", who, sizes[i], p - first);
		else
			printf("%s, %zu bytes: at %#lx in its page\n", who, sizes[i],
			       (unsigned long)((uintptr_t)p & 4095));
	}
}

/* What a program records by hand, on the calling thread. */
static void *record(void *arg)
{
	static int marker;

	for (int i = 0; i < 50; i++) {
		ggmlviz_step_begin(arg, 1, 1, GGMLVIZ_PHASE_GENERATION, "layout");
		ggmlviz_op_begin(&marker, 1, 64, NULL, "op");
		ggmlviz_op_end(&marker, 1, 64, NULL, "op");
		ggmlviz_counter("layout_counter", i);
		ggmlviz_tensor_alloc(&marker, 4096, "layout");
		ggmlviz_tensor_free(&marker, 4096, "layout");
		ggmlviz_step_end(arg, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "layout");
	}
	return NULL;
}

/*
 * GGML's CPU backend alone, the variant of libdir that scores best here (as
 * GGML picks it): loading every backend would load Vulkan's drivers too,
 * which allocate in an order of their own from run to run.
 */
static ggml_backend_t cpu_backend(const char *libdir)
{
	char path[4096], best[4096] = "";
	int best_score = 0;
	DIR *d;
	struct dirent *e;

	if (ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)) /* linked in: loads nothing */
		return ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
	d = opendir(libdir);

	while (d && (e = readdir(d)))
		if (strncmp(e->d_name, "libggml-cpu", 11) == 0 && strstr(e->d_name, ".so")) {
			void *h;
			int (*score)(void);

			snprintf(path, sizeof path, "%s/%s", libdir, e->d_name);
			if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
				continue;
			*(void **)&score = dlsym(h, "ggml_backend_score");
			if (!score || score() > best_score) {
				best_score = score ? score() : 1;
				snprintf(best, sizeof best, "%s", path);
			}
			dlclose(h);
		}
	if (d)
		closedir(d);
	if (!best[0] || !ggml_backend_load(best))
		return NULL;
	return ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
}

/*
 * A second thread of the program: its first block, its records, then its
 * blocks (from a heap of its own: glibc's arena for the thread, where the
 * library's per-thread memory would have gone too).
 */
static void *second(void *arg)
{
	char *first = malloc(64);

	(void)arg;
	record(first);
	say_blocks("a second thread", first);
	return NULL;
}

/* A graph of GGML's own ops, x [64, 8] and w [64, 48] filled: mul_mat, cont of a transpose, silu, softmax. */
static struct ggml_cgraph *graph_of(struct ggml_context *ctx, struct ggml_tensor *w,
				    struct ggml_tensor *x)
{
	struct ggml_tensor *y = ggml_mul_mat(ctx, w, x);
	struct ggml_tensor *out = ggml_soft_max(ctx, ggml_silu(ctx, ggml_cont(ctx, ggml_transpose(ctx, y))));
	struct ggml_cgraph *g = ggml_new_graph_custom(ctx, 64, false);

	ggml_set_name(y, "y");
	ggml_set_output(out);
	ggml_build_forward_expand(g, out);
	return g;
}

static int compute(void)
{
	struct ggml_init_params pp = { 2 * ggml_tensor_overhead(), NULL, true };
	struct ggml_init_params gp = { 16 * ggml_tensor_overhead() +
					       ggml_graph_overhead_custom(64, false), NULL, true };
	ggml_backend_t cpu = cpu_backend(GGMLVIZ_GGML_LIBDIR);
	struct ggml_context *params = ggml_init(pp), *ctx = ggml_init(gp);
	struct ggml_tensor *x = ggml_new_tensor_2d(params, GGML_TYPE_F32, 64, 8);
	struct ggml_tensor *w = ggml_new_tensor_2d(params, GGML_TYPE_F32, 64, 48);
	ggml_backend_buffer_t buf = cpu ? ggml_backend_alloc_ctx_tensors(params, cpu) : NULL;
	static float ones[64 * 48];
	ggml_backend_sched_t sched;
	struct ggml_cgraph *g;
	int rc = 0;

	if (!buf)
		return -1;
	for (size_t i = 0; i < sizeof ones / sizeof *ones; i++)
		ones[i] = 1.0f / 64;
	ggml_backend_tensor_set(x, ones, 0, ggml_nbytes(x));
	ggml_backend_tensor_set(w, ones, 0, ggml_nbytes(w));
	g = graph_of(ctx, w, x);
	sched = ggml_backend_sched_new(&cpu, NULL, 1, 64, false, false);
	ggml_backend_sched_set_eval_callback(sched, ggmlviz_ggml_eval_cb, sched);
	for (int i = 0; i < 5 && rc == 0; i++)
		rc = ggml_backend_sched_graph_compute(sched, g) == GGML_STATUS_SUCCESS ? 0 : -1;
	ggml_backend_sched_free(sched);
	ggml_free(ctx);
	ggml_backend_buffer_free(buf);
	ggml_free(params);
	ggml_backend_free(cpu);
	return rc;
}

int main(int argc, char **argv)
{
	int traced = argc == 3 && strcmp(argv[1], "traced") == 0;
	char *first;
	pthread_t writer_like = 0, other;
	struct ggmlviz_config cfg;

	if (argc != 3 || (!traced && strcmp(argv[1], "untraced") != 0)) {
		fprintf(stderr, "usage: heap-layout traced|untraced TRACE\n");
		return 2;
	}
	ggml_log_set(quiet, NULL);
	first = malloc(64);
	if (traced) {
		ggmlviz_config_init(&cfg);
		cfg.output = argv[2];
		if (ggmlviz_start(&cfg) != 0)
			return 2;
	} else if (pthread_create(&writer_like, NULL, waiter, NULL) != 0) {
		return 2;
	}
	if (compute() != 0) {
		fprintf(stderr, "heap-layout: the GGML graph was not computed\n");
		return 2;
	}
	record(first);
	if (pthread_create(&other, NULL, second, NULL) != 0 || pthread_join(other, NULL) != 0)
		return 2;
	say_blocks("the first thread", first);
	if (traced)
		(void)ggmlviz_stop();
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_signal(&done_cond);
	pthread_mutex_unlock(&lock);
	if (writer_like)
		pthread_join(writer_like, NULL);
	return 0;
}
