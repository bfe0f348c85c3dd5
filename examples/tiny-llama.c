/*
 * A tiny llama model, written with GGML's gguf API (see tiny-llama.h): the
 * keys of llama.cpp's "llama" architecture (or "gemma"'s), an SPM
 * vocabulary with byte fallback, and tensors named as llama.cpp expects
 * them (src/llama-arch.cpp of llama.cpp): a dense feed-forward, or a
 * mixture of experts (Mixtral's layout: a router and 3-D expert matrices).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ggml.h>
#include <gguf.h>

#include "tiny-llama.h"

/* Words of the vocabulary after the bytes, each as SentencePiece writes it ("▁the"). */
static const char *const words[] = {
	"the", "of", "and", "to", "in", "is", "was", "that", "for", "on", "with", "as",
	"it", "by", "at", "from", "this", "be", "are", "an", "or", "which", "one", "all",
	"time", "where", "went", "token", "each", "graph", "model", "layer", "tensor",
	"trace", "llama", "ggml", "fast", "slow", "op", "step", "a", "b", "c", "d", "e",
};

void tiny_llama_params_init(struct tiny_llama_params *p)
{
	p->n_layer = 4;
	p->n_embd = 256;
	p->n_head = 4;
	p->n_head_kv = 2;
	p->n_ff = 688;
	p->n_vocab = 512;
	p->n_ctx_train = 2048;
	p->seed = 42;
	p->type = GGML_TYPE_F32;
	p->arch = "llama";
	p->n_expert = 0;
	p->n_expert_used = 0;
}

int tiny_llama_arch(const char *name)
{
	return strcmp(name, "llama") == 0 || strcmp(name, "gemma") == 0 ? 0 : -1;
}

/* ---- the vocabulary ---- */

struct vocab {
	char **tokens;
	float *scores;
	int32_t *types;
	int n;
};

enum { TOKEN_NORMAL = 1, TOKEN_UNKNOWN = 2, TOKEN_CONTROL = 3, TOKEN_BYTE = 6 };

static int vocab_add(struct vocab *v, const char *text, float score, int32_t type)
{
	v->tokens[v->n] = strdup(text);
	if (!v->tokens[v->n])
		return -1;
	v->scores[v->n] = score;
	v->types[v->n] = type;
	v->n++;
	return 0;
}

static int vocab_fill(struct vocab *v, int n_vocab)
{
	char text[32];
	int rc = 0;

	rc |= vocab_add(v, "<unk>", 0, TOKEN_UNKNOWN);
	rc |= vocab_add(v, "<s>", 0, TOKEN_CONTROL);
	rc |= vocab_add(v, "</s>", 0, TOKEN_CONTROL);
	for (int b = 0; b < 256 && rc == 0; b++) {
		snprintf(text, sizeof text, "<0x%02X>", b);
		rc |= vocab_add(v, text, 0, TOKEN_BYTE);
	}
	for (size_t w = 0; v->n < n_vocab && rc == 0; w++) {
		/* "▁the", then "▁the1", "▁of1", ... until the vocabulary is full */
		size_t k = w % (sizeof words / sizeof words[0]);
		if (w < sizeof words / sizeof words[0])
			snprintf(text, sizeof text, "\xe2\x96\x81%s", words[k]);
		else
			snprintf(text, sizeof text, "\xe2\x96\x81%s%zu", words[k],
				 w / (sizeof words / sizeof words[0]));
		rc |= vocab_add(v, text, -(float)w, TOKEN_NORMAL);
	}
	return rc;
}

static void vocab_free(struct vocab *v)
{
	for (int i = 0; i < v->n; i++)
		free(v->tokens[i]);
	free(v->tokens);
	free(v->scores);
	free(v->types);
}

static void set_vocab(struct gguf_context *g, const struct vocab *v)
{
	gguf_set_val_str(g, "tokenizer.ggml.model", "llama");
	gguf_set_arr_str(g, "tokenizer.ggml.tokens", (const char **)v->tokens, (size_t)v->n);
	gguf_set_arr_data(g, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, v->scores, (size_t)v->n);
	gguf_set_arr_data(g, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, v->types, (size_t)v->n);
	gguf_set_val_u32(g, "tokenizer.ggml.unknown_token_id", 0);
	gguf_set_val_u32(g, "tokenizer.ggml.bos_token_id", 1);
	gguf_set_val_u32(g, "tokenizer.ggml.eos_token_id", 2);
	gguf_set_val_bool(g, "tokenizer.ggml.add_bos_token", true);
}

/* llama.cpp's llama_ftype of a model whose matrices are of type t. */
static uint32_t file_type(enum ggml_type t)
{
	switch (t) {
	case GGML_TYPE_F16: return 1;  /* MOSTLY_F16 */
	case GGML_TYPE_Q4_0: return 2; /* MOSTLY_Q4_0 */
	case GGML_TYPE_Q8_0: return 7; /* MOSTLY_Q8_0 */
	case GGML_TYPE_Q4_K: return 14; /* MOSTLY_Q4_K_S */
	default: return 0;             /* ALL_F32 */
	}
}

/* The key "ARCH.what" of the model's architecture. */
static const char *key(const struct tiny_llama_params *p, const char *what)
{
	static char k[96];

	snprintf(k, sizeof k, "%s.%s", p->arch, what);
	return k;
}

static void set_hparams(struct gguf_context *g, const struct tiny_llama_params *p)
{
	gguf_set_val_str(g, "general.architecture", p->arch);
	gguf_set_val_str(g, "general.name", "tiny llama (libggmlviz tests)");
	gguf_set_val_u32(g, key(p, "context_length"), (uint32_t)p->n_ctx_train);
	gguf_set_val_u32(g, key(p, "embedding_length"), (uint32_t)p->n_embd);
	gguf_set_val_u32(g, key(p, "block_count"), (uint32_t)p->n_layer);
	gguf_set_val_u32(g, key(p, "feed_forward_length"), (uint32_t)p->n_ff);
	gguf_set_val_u32(g, key(p, "attention.head_count"), (uint32_t)p->n_head);
	gguf_set_val_u32(g, key(p, "attention.head_count_kv"), (uint32_t)p->n_head_kv);
	gguf_set_val_f32(g, key(p, "attention.layer_norm_rms_epsilon"), 1e-5f);
	gguf_set_val_u32(g, key(p, "rope.dimension_count"), (uint32_t)(p->n_embd / p->n_head));
	gguf_set_val_f32(g, key(p, "rope.freq_base"), 10000.0f);
	gguf_set_val_u32(g, key(p, "vocab_size"), (uint32_t)p->n_vocab);
	if (p->n_expert) { /* a mixture of experts: llama.cpp's llama reads these (Mixtral's) */
		gguf_set_val_u32(g, key(p, "expert_count"), (uint32_t)p->n_expert);
		gguf_set_val_u32(g, key(p, "expert_used_count"), (uint32_t)p->n_expert_used);
	}
	gguf_set_val_u32(g, "general.file_type", file_type(p->type)); /* llama_ftype */
}

/* ---- the tensors ---- */

static uint32_t next_random(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

int tiny_llama_type(const char *name, enum ggml_type *type)
{
	static const enum ggml_type known[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q8_0,
						GGML_TYPE_Q4_0, GGML_TYPE_Q4_K };

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcasecmp(name, ggml_type_name(known[i]))) {
			*type = known[i];
			return 0;
		}
	return -1;
}

/* The type a matrix of rows of ne0 takes: the model's, else f16 where its blocks do not fit. */
static enum ggml_type matrix_type(enum ggml_type want, int64_t ne0)
{
	return ne0 % ggml_blck_size(want) == 0 ? want : GGML_TYPE_F16;
}

/*
 * A weight filled from the seed (norms, of 1 dimension, are all ones), in its
 * type: a matrix of ne1 rows (0: a vector), ne2 of them (an expert each; 0: one).
 */
static struct ggml_tensor *weight(struct ggml_context *ctx, struct gguf_context *g,
				  const char *name, int64_t ne0, int64_t ne1, int64_t ne2,
				  uint32_t *rng, enum ggml_type type)
{
	enum ggml_type as = ne1 ? matrix_type(type, ne0) : GGML_TYPE_F32;
	struct ggml_tensor *t = ne2 ? ggml_new_tensor_3d(ctx, as, ne0, ne1, ne2)
				: ne1 ? ggml_new_tensor_2d(ctx, as, ne0, ne1)
				      : ggml_new_tensor_1d(ctx, as, ne0);
	int64_t rows = (ne1 ? ne1 : 1) * (ne2 ? ne2 : 1), n = ne0 * rows;
	float *data = as == GGML_TYPE_F32 ? (float *)t->data : malloc((size_t)n * sizeof *data);

	if (!data)
		return NULL;
	ggml_set_name(t, name);
	for (int64_t i = 0; i < n; i++)
		data[i] = ne1 ? ((float)(next_random(rng) % 16001) / 100000.0f - 0.08f) : 1.0f;
	if (as != GGML_TYPE_F32) {
		ggml_quantize_chunk(as, data, t->data, 0, rows, ne0, NULL);
		free(data);
	}
	gguf_add_tensor(g, t);
	return t;
}

static void add_tensors(struct ggml_context *ctx, struct gguf_context *g,
			const struct tiny_llama_params *p)
{
	int64_t e = p->n_embd, kv = (int64_t)p->n_embd / p->n_head * p->n_head_kv, f = p->n_ff;
	int64_t x = p->n_expert;
	uint32_t rng = p->seed;
	char name[64];

	weight(ctx, g, "token_embd.weight", e, p->n_vocab, 0, &rng, p->type);
	for (int l = 0; l < p->n_layer; l++) {
		/* a dense feed-forward, or (experts) the router and each expert's three matrices */
		static const char *const parts[] = { "attn_norm", "attn_q", "attn_k", "attn_v",
						     "attn_output", "ffn_norm", "ffn_gate",
						     "ffn_down", "ffn_up" };
		static const char *const moe[] = { "ffn_gate_inp", "ffn_gate_exps", "ffn_down_exps",
						   "ffn_up_exps" };
		const int64_t shape[9][2] = { { e, 0 }, { e, e }, { e, kv }, { e, kv }, { e, e },
					      { e, 0 }, { e, f }, { f, e }, { e, f } };
		const int64_t moe_shape[4][3] = { { e, x, 0 }, { e, f, x }, { f, e, x }, { e, f, x } };
		for (int k = 0; k < (x ? 6 : 9); k++) {
			snprintf(name, sizeof name, "blk.%d.%s.weight", l, parts[k]);
			weight(ctx, g, name, shape[k][0], shape[k][1], 0, &rng, p->type);
		}
		for (int k = 0; x && k < 4; k++) {
			snprintf(name, sizeof name, "blk.%d.%s.weight", l, moe[k]);
			weight(ctx, g, name, moe_shape[k][0], moe_shape[k][1], moe_shape[k][2], &rng,
			       p->type);
		}
	}
	weight(ctx, g, "output_norm.weight", e, 0, 0, &rng, p->type);
	if (strcmp(p->arch, "gemma") != 0) /* gemma's output is its token embedding */
		weight(ctx, g, "output.weight", e, p->n_vocab, 0, &rng, p->type);
}

static size_t tensor_bytes(const struct tiny_llama_params *p)
{
	size_t e = (size_t)p->n_embd, kv = e / (size_t)p->n_head * (size_t)p->n_head_kv;
	size_t x = (size_t)p->n_expert, ffn = 3 * e * (size_t)p->n_ff;
	size_t per_layer = 2 * e + 2 * e * e + 2 * e * kv + (x ? e * x + x * ffn : ffn);

	return 4 * (2 * e * (size_t)p->n_vocab + e + (size_t)p->n_layer * per_layer);
}

int tiny_llama_write(const char *path, const struct tiny_llama_params *p)
{
	struct ggml_init_params ip = { tensor_bytes(p) + (size_t)(10 * p->n_layer + 8) *
						       ggml_tensor_overhead(), NULL, false };
	struct vocab v = { calloc((size_t)p->n_vocab, sizeof(char *)),
			   calloc((size_t)p->n_vocab, sizeof(float)),
			   calloc((size_t)p->n_vocab, sizeof(int32_t)), 0 };
	struct gguf_context *g = gguf_init_empty();
	struct ggml_context *ctx = ggml_init(ip);
	int rc = -1;

	if (!v.tokens || !v.scores || !v.types || !g || !ctx || p->n_vocab < 300 ||
	    vocab_fill(&v, p->n_vocab) < 0) {
		fprintf(stderr, "tiny_llama: out of memory, or fewer than 300 tokens asked\n");
		goto out;
	}
	set_hparams(g, p);
	set_vocab(g, &v);
	add_tensors(ctx, g, p);
	if (!gguf_write_to_file(g, path, false)) {
		fprintf(stderr, "tiny_llama: cannot write %s\n", path);
		goto out;
	}
	rc = 0;
out:
	vocab_free(&v);
	if (ctx)
		ggml_free(ctx);
	if (g)
		gguf_free(g);
	return rc;
}
