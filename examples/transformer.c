/*
 * A small llama-style transformer built with GGML: see transformer.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "transformer.h"

#define RMS_EPS 1e-5f

void transformer_params_init(struct transformer_params *p)
{
	p->own_names = false;
	p->n_layer = 4;
	p->n_embd = 256;
	p->n_head = 4;
	p->n_ff = 512;
	p->n_tokens = 32;
	p->n_vocab = 512;
	p->seed = 42;
}

static int params_valid(const struct transformer_params *p)
{
	return p->n_layer > 0 && p->n_head > 0 && p->n_embd > 0 && p->n_embd % p->n_head == 0 &&
	       p->n_ff > 0 && p->n_tokens > 0 && p->n_vocab > 0;
}

/* xorshift32: the same numbers on every machine, for a given seed. */
static uint32_t next_random(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

/* Uniform in [-scale, scale]. */
static float random_float(uint32_t *state, float scale)
{
	return scale * ((float)(next_random(state) >> 8) / (float)(1u << 23) - 1.0f);
}

/* Fills an f32 tensor of the backend with random values around center. */
static int fill_random(struct ggml_tensor *t, uint32_t *state, float center, float scale)
{
	size_t n = (size_t)ggml_nelements(t);
	float *v = malloc(n * sizeof *v);

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = center + random_float(state, scale);
	ggml_backend_tensor_set(t, v, 0, n * sizeof *v);
	free(v);
	return 0;
}

static struct ggml_tensor *new_weight(struct ggml_context *ctx, int64_t ne0, int64_t ne1,
				      const char *name, int il)
{
	struct ggml_tensor *t = ne1 ? ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1)
				    : ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne0);

	if (il >= 0)
		ggml_format_name(t, "blk.%d.%s.weight", il, name);
	else
		ggml_format_name(t, "%s.weight", name);
	return t;
}

static void new_layer_weights(struct ggml_context *ctx, const struct transformer_params *p,
			      struct transformer_layer *l, int il)
{
	l->attn_norm = new_weight(ctx, p->n_embd, 0, "attn_norm", il);
	l->wq = new_weight(ctx, p->n_embd, p->n_embd, "attn_q", il);
	l->wk = new_weight(ctx, p->n_embd, p->n_embd, "attn_k", il);
	l->wv = new_weight(ctx, p->n_embd, p->n_embd, "attn_v", il);
	l->wo = new_weight(ctx, p->n_embd, p->n_embd, "attn_output", il);
	l->ffn_norm = new_weight(ctx, p->n_embd, 0, "ffn_norm", il);
	l->ffn_gate = new_weight(ctx, p->n_embd, p->n_ff, "ffn_gate", il);
	l->ffn_up = new_weight(ctx, p->n_embd, p->n_ff, "ffn_up", il);
	l->ffn_down = new_weight(ctx, p->n_ff, p->n_embd, "ffn_down", il);
}

/* Norm weights near 1, matrices scaled by 1/sqrt(fan-in) so values stay tame. */
static int fill_weights(struct transformer *m)
{
	uint32_t state = m->p.seed | 1u;
	int rc = 0;

	for (struct ggml_tensor *t = ggml_get_first_tensor(m->weights_ctx); t && rc == 0;
	     t = ggml_get_next_tensor(m->weights_ctx, t))
		rc = t->ne[1] == 1 ? fill_random(t, &state, 1.0f, 0.1f)
				   : fill_random(t, &state, 0.0f, 1.0f / sqrtf((float)t->ne[0]));
	return rc;
}

static int make_weights(struct transformer *m, ggml_backend_t backend)
{
	const struct transformer_params *p = &m->p;
	size_t n_tensors = (size_t)p->n_layer * 9 + 2;
	struct ggml_init_params ip = { n_tensors * ggml_tensor_overhead(), NULL, true };

	m->layers = calloc((size_t)p->n_layer, sizeof *m->layers);
	m->weights_ctx = ggml_init(ip);
	if (!m->layers || !m->weights_ctx)
		return -ENOMEM;
	for (int il = 0; il < p->n_layer; il++)
		new_layer_weights(m->weights_ctx, p, &m->layers[il], il);
	m->output_norm = new_weight(m->weights_ctx, p->n_embd, 0, "output_norm", -1);
	m->output = new_weight(m->weights_ctx, p->n_embd, p->n_vocab, "output", -1);
	m->weights = ggml_backend_alloc_ctx_tensors(m->weights_ctx, backend);
	if (!m->weights)
		return -ENOMEM;
	return fill_weights(m);
}

static struct ggml_tensor *named(struct ggml_tensor *t, const char *name, int il)
{
	if (il >= 0)
		ggml_format_name(t, "%s-%d", name, il);
	else
		ggml_set_name(t, name);
	return t;
}

/* rms_norm(x) * w, named "norm-il" and name-il, as llama.cpp's build_norm. */
static struct ggml_tensor *norm(struct ggml_context *ctx, struct ggml_tensor *x,
				struct ggml_tensor *w, const char *name, int il)
{
	struct ggml_tensor *cur = named(ggml_rms_norm(ctx, x, RMS_EPS), "norm", il);

	return named(ggml_mul(ctx, cur, w), name, il);
}

/* [n_embd, n_tokens] -> [head_dim, n_tokens, n_head] (a view). */
static struct ggml_tensor *split_heads(struct ggml_context *ctx, const struct transformer *m,
				       struct ggml_tensor *x)
{
	int64_t head_dim = m->p.n_embd / m->p.n_head;

	x = ggml_reshape_3d(ctx, x, head_dim, m->p.n_head, m->p.n_tokens);
	return ggml_permute(ctx, x, 0, 2, 1, 3);
}

static struct ggml_tensor *attention(struct ggml_context *ctx, const struct transformer *m,
				     const struct transformer_layer *l, struct ggml_tensor *cur,
				     int il)
{
	float scale = 1.0f / sqrtf((float)(m->p.n_embd / m->p.n_head));
	struct ggml_tensor *q = named(ggml_mul_mat(ctx, l->wq, cur), "Qcur", il);
	struct ggml_tensor *k = named(ggml_mul_mat(ctx, l->wk, cur), "Kcur", il);
	struct ggml_tensor *v = named(ggml_mul_mat(ctx, l->wv, cur), "Vcur", il);
	struct ggml_tensor *kq, *kqv;

	kq = named(ggml_mul_mat(ctx, split_heads(ctx, m, k), split_heads(ctx, m, q)), "kq", il);
	kq = named(ggml_soft_max_ext(ctx, kq, m->kq_mask, scale, 0.0f), "kq_soft_max_ext", il);
	/* v as [n_tokens, head_dim, n_head], so that kqv = v x kq per head */
	v = ggml_reshape_3d(ctx, v, m->p.n_embd / m->p.n_head, m->p.n_head, m->p.n_tokens);
	v = named(ggml_cont(ctx, ggml_permute(ctx, v, 1, 2, 0, 3)), "v", il);
	kqv = named(ggml_mul_mat(ctx, v, kq), "kqv", il);
	kqv = named(ggml_permute(ctx, kqv, 0, 2, 1, 3), "kqv_merged", il);
	kqv = named(ggml_cont_2d(ctx, kqv, m->p.n_embd, m->p.n_tokens), "kqv_merged_cont", il);
	return named(ggml_mul_mat(ctx, l->wo, kqv), "kqv_out", il);
}

static struct ggml_tensor *mlp(struct ggml_context *ctx, const struct transformer_layer *l,
			       struct ggml_tensor *cur, int il)
{
	struct ggml_tensor *up = named(ggml_mul_mat(ctx, l->ffn_up, cur), "ffn_up", il);
	struct ggml_tensor *gate = named(ggml_mul_mat(ctx, l->ffn_gate, cur), "ffn_gate", il);

	gate = named(ggml_silu(ctx, gate), "ffn_silu", il);
	cur = named(ggml_mul(ctx, gate, up), "ffn_gate_par", il);
	return named(ggml_mul_mat(ctx, l->ffn_down, cur), "ffn_out", il);
}

static struct ggml_tensor *block(struct ggml_context *ctx, const struct transformer *m, int il,
				 struct ggml_tensor *inp)
{
	const struct transformer_layer *l = &m->layers[il];
	struct ggml_tensor *cur = norm(ctx, inp, l->attn_norm, "attn_norm", il);
	struct ggml_tensor *ffn_inp;

	cur = attention(ctx, m, l, cur, il);
	ffn_inp = named(ggml_add(ctx, cur, inp), "ffn_inp", il);
	cur = norm(ctx, ffn_inp, l->ffn_norm, "ffn_norm", il);
	cur = mlp(ctx, l, cur, il);
	return named(ggml_add(ctx, cur, ffn_inp), "l_out", il);
}

size_t transformer_graph_size(const struct transformer_params *p)
{
	return (size_t)p->n_layer * 64 + 64;
}

static int make_graph(struct transformer *m)
{
	size_t size = transformer_graph_size(&m->p);
	struct ggml_init_params ip = {
		size * ggml_tensor_overhead() + ggml_graph_overhead_custom(size, false), NULL, true
	};
	struct ggml_context *ctx = m->graph_ctx = ggml_init(ip);
	struct ggml_tensor *cur;

	if (!ctx)
		return -ENOMEM;
	m->graph = ggml_new_graph_custom(ctx, size, false);
	m->inp_embd = named(ggml_new_tensor_2d(ctx, GGML_TYPE_F32, m->p.n_embd, m->p.n_tokens),
			    "inp_embd", -1);
	m->kq_mask = named(ggml_new_tensor_2d(ctx, GGML_TYPE_F32, m->p.n_tokens, m->p.n_tokens),
			   "KQ_mask", -1);
	ggml_set_input(m->inp_embd);
	ggml_set_input(m->kq_mask);
	cur = m->inp_embd;
	for (int il = 0; il < m->p.n_layer; il++)
		cur = block(ctx, m, il, cur);
	cur = norm(ctx, cur, m->output_norm, "result_norm", -1);
	m->result = named(ggml_mul_mat(ctx, m->output, cur), "result_output", -1);
	ggml_set_output(m->result);
	ggml_build_forward_expand(m->graph, m->result);
	for (int i = 0; m->p.own_names && i < ggml_graph_n_nodes(m->graph); i++)
		ggml_format_name(ggml_graph_node(m->graph, i), "t%d", i);
	return 0;
}

int transformer_init(struct transformer *m, const struct transformer_params *p,
		     ggml_backend_t backend)
{
	int rc;

	memset(m, 0, sizeof *m);
	if (!params_valid(p))
		return -EINVAL;
	m->p = *p;
	rc = make_weights(m, backend);
	if (rc == 0)
		rc = make_graph(m);
	if (rc < 0)
		transformer_free(m);
	return rc;
}

void transformer_free(struct transformer *m)
{
	if (m->graph_ctx)
		ggml_free(m->graph_ctx);
	if (m->weights)
		ggml_backend_buffer_free(m->weights);
	if (m->weights_ctx)
		ggml_free(m->weights_ctx);
	free(m->layers);
	memset(m, 0, sizeof *m);
}

/* A causal mask: token i sees tokens 0..i. */
static int set_mask(struct transformer *m)
{
	size_t n = (size_t)m->p.n_tokens;
	float *mask = malloc(n * n * sizeof *mask);

	if (!mask)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			mask[i * n + j] = j <= i ? 0.0f : -INFINITY;
	ggml_backend_tensor_set(m->kq_mask, mask, 0, n * n * sizeof *mask);
	free(mask);
	return 0;
}

int transformer_set_inputs(struct transformer *m, uint32_t step)
{
	uint32_t state = (m->p.seed ^ (step * 0x9e3779b9u)) | 1u;
	int rc = fill_random(m->inp_embd, &state, 0.0f, 1.0f);

	return rc < 0 ? rc : set_mask(m);
}

uint64_t transformer_checksum(const struct transformer *m)
{
	size_t n = ggml_nbytes(m->result);
	unsigned char *bytes = malloc(n);
	uint64_t h = 0xcbf29ce484222325u;

	if (!bytes)
		return 0;
	ggml_backend_tensor_get(m->result, bytes, 0, n);
	for (size_t i = 0; i < n; i++)
		h = (h ^ bytes[i]) * 0x100000001b3u;
	free(bytes);
	return h;
}

/* The CPU backend's thread setter is reached through its registry entry:
 * with loadable backends, libggml does not export it. */
static void set_threads(ggml_backend_t backend, int n_threads)
{
	ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(backend));
	void *proc = ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
	ggml_backend_set_n_threads_t fn;

	if (!proc)
		return;
	memcpy(&fn, &proc, sizeof fn); /* ISO C has no cast from void * to a function */
	fn(backend, n_threads);
}

ggml_backend_t transformer_cpu_backend(const char *libdir, int n_threads)
{
	ggml_backend_t backend;

	if (!ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU) && libdir)
		ggml_backend_load_all_from_path(libdir);
	if (!ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU))
		return NULL;
	backend = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
	if (backend)
		set_threads(backend, n_threads);
	return backend;
}

enum ggml_status transformer_step(struct transformer *m, ggml_backend_sched_t sched,
				  uint32_t step,
				  enum ggml_status (*compute)(ggml_backend_sched_t,
							      struct ggml_cgraph *))
{
	ggml_backend_sched_reset(sched);
	if (!ggml_backend_sched_alloc_graph(sched, m->graph))
		return GGML_STATUS_ALLOC_FAILED;
	if (transformer_set_inputs(m, step) < 0)
		return GGML_STATUS_ALLOC_FAILED;
	return compute(sched, m->graph);
}
