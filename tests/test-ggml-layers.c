/*
 * The GGML adapter's layers on a graph whose nodes GGML named (whisper.cpp's
 * way: only the weights have names, "encoder.blocks.1.attn.query.weight"):
 * two stacks of two layers each, an encoder and a decoder that reads it,
 * computed by a scheduler on the CPU backend. Every op must be in the layer
 * and stack of the loop that built it: a norm that begins a layer in that
 * layer (not the last one, whose output it reads), an op that reads no
 * weight (the softmax, the residual adds, the GELU) in its block's layer,
 * the final norms and the output in none; an input read by every layer
 * ("x") places nothing but itself.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>
#include <ggmlviz/reader.h>

#include "check-compat.h"
#include "ggml-util.h"

#ifndef GGMLVIZ_GGML_LIBDIR
#error "build with -DGGMLVIZ_GGML_LIBDIR=\"...\" (Makefile.am does)"
#endif

#define E 32      /* width */
#define T 4       /* tokens */
#define V 48      /* the output's size */
#define LAYERS 2
#define MAX_NODES 256

/* What each node is expected to be in: its layer and its stack's flag. */
struct expect {
	const struct ggml_tensor *t;
	int32_t layer;
	uint32_t stack;
};

struct two_stacks {
	struct ggml_context *w_ctx, *ctx;
	ggml_backend_buffer_t w_buf;
	struct ggml_tensor *x, *w[64];
	int n_w;
	struct ggml_cgraph *g;
	struct expect e[MAX_NODES];
	int n_e;
	int32_t layer; /* of the nodes being built */
	uint32_t stack;
};

static struct ggml_tensor *weight(struct two_stacks *m, const char *stack, int l, const char *what,
				  int64_t a, int64_t b)
{
	struct ggml_tensor *w = b ? ggml_new_tensor_2d(m->w_ctx, GGML_TYPE_F32, a, b)
				  : ggml_new_tensor_1d(m->w_ctx, GGML_TYPE_F32, a);

	if (l >= 0)
		ggml_format_name(w, "%s.blocks.%d.%s", stack, l, what);
	else
		ggml_format_name(w, "%s.%s", stack, what);
	m->w[m->n_w++] = w;
	return w;
}

/* A node built now: expected in the current layer and stack. */
static struct ggml_tensor *node(struct two_stacks *m, struct ggml_tensor *t)
{
	ck_assert_int_lt(m->n_e, MAX_NODES);
	m->e[m->n_e++] = (struct expect){ t, m->layer, m->layer >= 0 ? m->stack : 0 };
	return t;
}

/* One layer: norm, its weight and bias, a projection, a softmax, the output
 * projection and the residual add; a feed-forward of two products around a
 * GELU, and its residual add. `with` (the decoder's) is added to the query. */
static struct ggml_tensor *block(struct two_stacks *m, const char *stack, int l,
				 struct ggml_tensor *inp, struct ggml_tensor *with)
{
	struct ggml_context *c = m->ctx;
	struct ggml_tensor *lw = weight(m, stack, l, "attn_ln.weight", E, 0);
	struct ggml_tensor *lb = weight(m, stack, l, "attn_ln.bias", E, 0);
	struct ggml_tensor *q = weight(m, stack, l, "attn.query.weight", E, E);
	struct ggml_tensor *o = weight(m, stack, l, "attn.out.weight", E, E);
	struct ggml_tensor *w0 = weight(m, stack, l, "mlp.0.weight", E, 2 * E);
	struct ggml_tensor *w2 = weight(m, stack, l, "mlp.2.weight", 2 * E, E);
	struct ggml_tensor *cur, *mid;

	cur = node(m, ggml_norm(c, inp, 1e-5f));
	cur = node(m, ggml_add(c, node(m, ggml_mul(c, cur, lw)), lb));
	cur = node(m, ggml_mul_mat(c, q, cur));
	if (with)
		cur = node(m, ggml_add(c, cur, with));
	cur = node(m, ggml_soft_max(c, cur));
	cur = node(m, ggml_mul_mat(c, o, cur));
	mid = node(m, ggml_add(c, cur, inp));
	cur = node(m, ggml_gelu(c, node(m, ggml_mul_mat(c, w0, mid))));
	cur = node(m, ggml_mul_mat(c, w2, cur));
	return node(m, ggml_add(c, cur, mid));
}

/* A stack of LAYERS blocks from inp, then its norm by a weight of no layer (what). */
static struct ggml_tensor *stack(struct two_stacks *m, const char *name, uint32_t flag,
				 struct ggml_tensor *inp, struct ggml_tensor *with, const char *what)
{
	struct ggml_tensor *w;

	m->stack = flag;
	for (int l = 0; l < LAYERS; l++) {
		m->layer = l;
		inp = block(m, name, l, inp, with);
	}
	m->layer = -1;
	w = weight(m, name, -1, what, E, 0);
	return node(m, ggml_mul(m->ctx, node(m, ggml_norm(m->ctx, inp, 1e-5f)), w));
}

static void build(struct two_stacks *m, ggml_backend_t backend)
{
	struct ggml_init_params wp = { 64 * ggml_tensor_overhead(), NULL, true };
	struct ggml_init_params gp = { (MAX_NODES + 16) * ggml_tensor_overhead() +
					       ggml_graph_overhead_custom(MAX_NODES, false),
				       NULL, true };
	struct ggml_tensor *enc, *dec, *te;

	memset(m, 0, sizeof *m);
	m->w_ctx = ggml_init(wp);
	m->ctx = ggml_init(gp);
	m->x = ggml_new_tensor_2d(m->w_ctx, GGML_TYPE_F32, E, T);
	ggml_set_name(m->x, "x");
	ggml_set_input(m->x);
	enc = stack(m, "encoder", GGMLVIZ_NODE_ENCODER, m->x, NULL, "ln_post.weight");
	dec = stack(m, "decoder", GGMLVIZ_NODE_DECODER, m->x, enc, "ln.weight");
	te = weight(m, "decoder", -1, "token_embedding.weight", E, V);
	m->layer = -1;
	m->g = ggml_new_graph_custom(m->ctx, MAX_NODES, false);
	ggml_build_forward_expand(m->g, node(m, ggml_mul_mat(m->ctx, te, dec)));
	m->w_buf = ggml_backend_alloc_ctx_tensors(m->w_ctx, backend);
	ck_assert_ptr_nonnull(m->w_buf);
	for (int i = 0; i < m->n_w + 1; i++) {
		struct ggml_tensor *t = i < m->n_w ? m->w[i] : m->x;
		size_t n = (size_t)ggml_nelements(t);
		float *v = malloc(n * sizeof *v);

		for (size_t k = 0; k < n; k++)
			v[k] = (float)((k * 7 + (size_t)i) % 13) / 13.0f - 0.5f;
		ggml_backend_tensor_set(t, v, 0, n * sizeof *v);
		free(v);
	}
}

static const struct expect *expected(const struct two_stacks *m, uint64_t ptr)
{
	for (int i = 0; i < m->n_e; i++)
		if ((uint64_t)(uintptr_t)m->e[i].t == ptr)
			return &m->e[i];
	return NULL;
}

START_TEST(test_every_op_in_its_layer_and_stack)
{
	ggml_backend_t backend = gu_cpu_backend(GGMLVIZ_GGML_LIBDIR);
	ggml_backend_sched_t sched = gu_new_sched(&backend, MAX_NODES);
	struct two_stacks m;
	struct gu_trace tr;
	char path[256];
	int seen[3] = { 0 };

	build(&m, backend);
	gu_start(path, GGMLVIZ_OP_TIMING_AUTO);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(sched, GU_THREADS, NULL, NULL), 0);
	ck_assert_int_eq(ggmlviz_ggml_sched_graph_compute(sched, m.g), GGML_STATUS_SUCCESS);
	ggmlviz_ggml_untrace_sched(sched);
	gu_stop_and_read(path, &tr);
	ck_assert_uint_eq(tr.n_ops, (size_t)m.n_e); /* every node computes, none is fused */
	for (size_t i = 0; i < tr.n_ops; i++) {
		const struct ggmlviz_timing *op = &tr.ops[i];
		const struct expect *e = expected(&m, op->ptr);
		uint32_t stack = op->node_flags & (GGMLVIZ_NODE_ENCODER | GGMLVIZ_NODE_DECODER);

		ck_assert_ptr_nonnull(e);
		ck_assert_msg(op->layer == e->layer && stack == e->stack,
			      "op %zu (%s of %s): layer %d stack %u, not layer %d stack %u", i,
			      ggml_op_desc(e->t), e->t->src[1] ? e->t->src[1]->name : "-", op->layer,
			      stack, e->layer, e->stack);
		seen[e->layer < 0 ? 0 : e->stack == GGMLVIZ_NODE_ENCODER ? 1 : 2]++;
	}
	ck_assert_int_gt(seen[0], 0);
	ck_assert_int_gt(seen[1], 0);
	ck_assert_int_eq(seen[1], seen[2] - LAYERS); /* the decoder adds the encoder to each query */
	gu_free(&tr);
	ggml_backend_sched_free(sched);
	ggml_free(m.ctx);
	ggml_backend_buffer_free(m.w_buf);
	ggml_free(m.w_ctx);
	ggml_backend_free(backend);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("ggml-layers");
	TCase *tc = tcase_create("two stacks");

	tcase_add_test(tc, test_every_op_in_its_layer_and_stack);
	tcase_set_timeout(tc, GU_TIMEOUT_S);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* GGML looks for its CPU backend beside the executable only */
	ggml_backend_load_all_from_path(GGMLVIZ_GGML_LIBDIR);
	return run_suite(make_suite());
}
