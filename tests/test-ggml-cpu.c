/*
 * ggmlviz_ggml_graph_compute_with_ctx(): a plain CPU graph, computed by the
 * CPU backend's library linked in (no scheduler, no backend loading).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggml.h>
#include <ggml-cpu.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>
#include <ggmlviz/reader.h>

#include "check-compat.h"
#include "trace-util.h"

/* out = softmax(w x + x'), w [32, 16], x [32, 4]: a graph of 3 nodes, in a
 * context that holds the data too. */
struct plain {
	struct ggml_context *ctx;
	struct ggml_cgraph *g;
	struct ggml_tensor *out;
};

static void fill(struct ggml_tensor *t)
{
	float *v = (float *)t->data;

	for (int64_t i = 0; i < ggml_nelements(t); i++)
		v[i] = (float)(i % 11) / 11.0f - 0.5f;
}

static void plain_init(struct plain *p)
{
	struct ggml_init_params ip = { 1u << 20, NULL, false };
	struct ggml_tensor *w, *x, *b;

	p->ctx = ggml_init(ip);
	ck_assert_ptr_nonnull(p->ctx);
	w = ggml_new_tensor_2d(p->ctx, GGML_TYPE_F32, 32, 16);
	x = ggml_new_tensor_2d(p->ctx, GGML_TYPE_F32, 32, 4);
	b = ggml_new_tensor_2d(p->ctx, GGML_TYPE_F32, 16, 4);
	fill(w);
	fill(x);
	fill(b);
	p->out = ggml_soft_max(p->ctx, ggml_add(p->ctx, ggml_mul_mat(p->ctx, w, x), b));
	p->g = ggml_new_graph(p->ctx);
	ggml_build_forward_expand(p->g, p->out);
}

START_TEST(test_plain_cpu_graph)
{
	struct plain p;
	struct ggmlviz_config cfg;
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	char path[256];
	float plain[16 * 4];
	int graphs = 0;

	tu_path(path, sizeof path, "ggml-cpu");
	plain_init(&p);
	ck_assert_int_eq(ggml_graph_compute_with_ctx(p.ctx, p.g, 2), GGML_STATUS_SUCCESS);
	memcpy(plain, p.out->data, sizeof plain);
	tu_config(&cfg, path);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_ggml_graph_compute_with_ctx(p.ctx, p.g, 2), GGML_STATUS_SUCCESS);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(memcmp(plain, p.out->data, sizeof plain), 0);
	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	while (ggmlviz_reader_next_timing(r, &t) == 1) {
		ck_assert_int_eq(t.kind, GGMLVIZ_TIMING_GRAPH);
		ck_assert_uint_eq(t.ptr, (uint64_t)(uintptr_t)p.g);
		ck_assert_uint_eq(t.n_nodes, 3);
		ck_assert_uint_eq(t.n_threads, 2);
		ck_assert_uint_eq(t.backend_ptr, 0);
		graphs++;
	}
	ck_assert_int_eq(graphs, 1);
	ggmlviz_reader_close(r);
	unlink(path);
	ggml_free(p.ctx);
}
END_TEST

START_TEST(test_not_tracing_computes_the_same)
{
	struct plain p;

	plain_init(&p);
	ck_assert(!ggmlviz_is_active());
	ck_assert_int_eq(ggmlviz_ggml_graph_compute_with_ctx(p.ctx, p.g, 1), GGML_STATUS_SUCCESS);
	ggml_free(p.ctx);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("ggml-cpu");
	TCase *tc = tcase_create("plain graph");

	tcase_add_test(tc, test_plain_cpu_graph);
	tcase_add_test(tc, test_not_tracing_computes_the_same);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
