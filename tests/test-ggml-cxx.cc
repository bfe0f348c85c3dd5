/*
 * The GGML adapter compiled as C++11 (GGML's headers first), and run: a
 * small graph through a traced scheduler, read back. Prints TAP.
 *
 * SPDX-License-Identifier: MIT
 */
#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>
#include <ggmlviz/reader.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

static int n_tests;
static int n_failed;

static void ok(bool pass, const char *what)
{
	std::printf("%sok %d - %s\n", pass ? "" : "not ", ++n_tests, what);
	n_failed += !pass;
}

/* y = silu(w x), viewed and softmaxed: three computing nodes, two views. */
static ggml_cgraph *build(ggml_context *ctx, ggml_tensor *w, ggml_tensor *x)
{
	ggml_tensor *y = ggml_silu(ctx, ggml_mul_mat(ctx, w, x));
	ggml_tensor *v = ggml_view_2d(ctx, y, y->ne[0], 2, y->nb[1], 0);
	ggml_tensor *out = ggml_soft_max(ctx, ggml_reshape_1d(ctx, v, y->ne[0] * 2));
	ggml_cgraph *g = ggml_new_graph(ctx);

	ggml_build_forward_expand(g, out);
	return g;
}

static int count_ops(const char *path, int *graphs)
{
	ggmlviz_reader *r = nullptr;
	ggmlviz_timing t;
	int ops = 0;

	*graphs = 0;
	if (ggmlviz_reader_open(path, &r) < 0)
		return -1;
	while (ggmlviz_reader_next_timing(r, &t) == 1) {
		ops += t.kind == GGMLVIZ_TIMING_OP;
		*graphs += t.kind == GGMLVIZ_TIMING_GRAPH;
	}
	ggmlviz_reader_close(r);
	return ops;
}

int main()
{
	ggml_init_params params = { 2 * ggml_tensor_overhead(), nullptr, true };
	ggml_init_params graph_params = { 16 * ggml_tensor_overhead() + ggml_graph_overhead(),
					  nullptr, true };
	char path[] = "/tmp/test-ggml-cxx-XXXXXX";
	int fd = mkstemp(path), graphs = 0;

	std::printf("1..4\n");
	ggml_backend_load_all_from_path(GGMLVIZ_GGML_LIBDIR);
	ggml_backend_t backend = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, nullptr);
	ok(backend != nullptr && fd >= 0, "a CPU backend and a trace file");
	if (!backend || fd < 0)
		return 1;
	close(fd);
	ggml_context *weights = ggml_init(params);
	ggml_tensor *w = ggml_new_tensor_2d(weights, GGML_TYPE_F32, 16, 8);
	ggml_tensor *x = ggml_new_tensor_2d(weights, GGML_TYPE_F32, 16, 4);
	ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(weights, backend);
	ggml_backend_buffer_clear(buf, 1);
	ggml_context *ctx = ggml_init(graph_params);
	ggml_cgraph *g = build(ctx, w, x);
	ggml_backend_sched_t sched = ggml_backend_sched_new(&backend, nullptr, 1, 64, false, false);

	ggmlviz_config cfg;
	ggmlviz_config_init(&cfg);
	cfg.output = path;
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	ok(ggmlviz_start(&cfg) == 0 && ggmlviz_ggml_trace_sched(sched, 1, nullptr, nullptr) == 0,
	   "tracing starts and the scheduler is traced");
	ok(ggmlviz_ggml_sched_graph_compute(sched, g) == GGML_STATUS_SUCCESS, "the graph computes");
	ggmlviz_ggml_untrace_sched(sched);
	ggmlviz_stop();
	ok(count_ops(path, &graphs) == 3 && graphs == 1,
	   "one graph and its three computing nodes are in the trace");
	unlink(path);
	ggml_backend_sched_free(sched);
	ggml_free(ctx);
	ggml_backend_buffer_free(buf);
	ggml_free(weights);
	ggml_backend_free(backend);
	return n_failed ? 1 : 0;
}
