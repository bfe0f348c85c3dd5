/*
 * Runs doc/api.md's compute_traced() (its "A GGML program" block,
 * compiled on its own by tests/test-readme.sh) on a small graph of GGML's
 * CPU backend, twice, as a program computes graph after graph: both must
 * compute, and the trace hold both graphs.
 *
 *     readme-ggml-main GGML_LIBDIR TRACE
 *
 * SPDX-License-Identifier: MIT
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>

#include <ggml-backend.h>
#include <ggml.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

enum ggml_status compute_traced(ggml_backend_sched_t sched, struct ggml_cgraph *graph,
				int n_threads);

/* A MUL_MAT then an ADD, whose inputs the scheduler allocates. */
static struct ggml_cgraph *small_graph(struct ggml_context *ctx)
{
	struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 64);
	struct ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 8);
	struct ggml_cgraph *g = ggml_new_graph(ctx);

	ggml_set_input(a);
	ggml_set_input(b);
	ggml_build_forward_expand(g, ggml_add(ctx, ggml_mul_mat(ctx, a, b), b));
	return g;
}

static int graphs_in(const char *path)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	int n = 0;

	if (ggmlviz_reader_open(path, &r) < 0)
		return -1;
	while (ggmlviz_reader_next(r, &ev) == 1)
		n += ev.type == GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN;
	ggmlviz_reader_close(r);
	return n;
}

int main(int argc, char **argv)
{
	struct ggml_init_params ip = { 1024 * 1024, NULL, true };
	struct ggml_context *ctx;
	ggml_backend_t cpu;
	ggml_backend_sched_t sched;
	struct ggml_cgraph *g;
	int ok = 1;

	if (argc != 3 || setenv("GGML_VIZ_OUTPUT", argv[2], 1))
		return 2;
	ggml_backend_load_all_from_path(argv[1]);
	cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
	ctx = ggml_init(ip);
	if (!cpu || !ctx)
		return 1;
	sched = ggml_backend_sched_new(&cpu, NULL, 1, GGML_DEFAULT_GRAPH_SIZE, false, false);
	g = small_graph(ctx);
	for (int i = 0; i < 2; i++) {
		ggml_backend_sched_reset(sched);
		if (!ggml_backend_sched_alloc_graph(sched, g))
			return 1;
		if (compute_traced(sched, g, 2) != GGML_STATUS_SUCCESS) {
			printf("compute_traced: call %d failed\n", i + 1);
			ok = 0;
		}
	}
	if (ggmlviz_stop() < 0)
		ok = 0;
	printf("graphs in the trace: %d\n", graphs_in(argv[2]));
	ok = ok && graphs_in(argv[2]) == 2;
	ggml_backend_sched_free(sched);
	ggml_backend_free(cpu);
	ggml_free(ctx);
	return ok ? 0 : 1;
}
