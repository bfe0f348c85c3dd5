/*
 * A tiny llama model written with GGML's gguf API, that libllama loads: the
 * quick start's demo and the llama.cpp tests make one at run time, so that
 * nothing binary is committed and nothing is downloaded.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef TINY_LLAMA_H
#define TINY_LLAMA_H

#include <stdint.h>

#include <ggml.h>

struct tiny_llama_params {
	int n_layer;     /* blocks */
	int n_embd;      /* width */
	int n_head;      /* attention heads */
	int n_head_kv;   /* key/value heads (grouped-query attention when fewer) */
	int n_ff;        /* feed-forward width */
	int n_vocab;     /* tokens: <unk>, <s>, </s>, 256 bytes, then words */
	int n_ctx_train; /* the context length the model claims */
	uint32_t seed;   /* of the weights, drawn uniformly in [-0.08, 0.08] */
	enum ggml_type type; /* of the matrices (f32, f16, q8_0, q4_0, q4_K): GGML's own quantization */
	const char *arch;    /* llama.cpp's architecture: "llama" or "gemma" */
	int n_expert;        /* llama: experts of each layer's feed-forward (0: a dense one) */
	int n_expert_used;   /* ... of which each token uses this many */
};

/*
 * 4 layers, 256 wide, 4 heads of which 2 for keys and values, 688
 * feed-forward, 512 tokens, f32, a dense llama.
 */
void tiny_llama_params_init(struct tiny_llama_params *p);

/*
 * The matrix type named name (f32, f16, q8_0, q4_0, q4_K; any case) in *type;
 * 0, or -1 for another name.
 */
int tiny_llama_type(const char *name, enum ggml_type *type);

/* The architectures tiny_llama_write() writes: "llama" (dense, or a mixture of experts) and
 * "gemma" (GELU, the output tied to the token embedding, the embedding scaled). */
int tiny_llama_arch(const char *name);

/*
 * Writes the model to path; 0, or -1 after a message on stderr. Matrices
 * are quantized to p->type by GGML (ggml_quantize_chunk()); one whose rows
 * are not whole blocks of that type stays f16, as llama.cpp's quantizer
 * falls back; the norms stay f32.
 */
int tiny_llama_write(const char *path, const struct tiny_llama_params *p);

#endif
