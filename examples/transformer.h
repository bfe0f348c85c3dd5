/*
 * A small llama-style transformer built with GGML, computed on the CPU
 * through a ggml_backend_sched: the workload of examples/ggml_transformer,
 * bench/bench_ggml and tests/test-ggml. Its nodes are named as llama.cpp
 * names them ("attn_norm-0", "Qcur-0", "kq_soft_max_ext-0", "ffn_out-1").
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_EXAMPLES_TRANSFORMER_H
#define GGMLVIZ_EXAMPLES_TRANSFORMER_H

#include <stdbool.h>
#include <stdint.h>
#include <ggml.h>
#include <ggml-backend.h>

/* The shape of the model and of one step's input. */
struct transformer_params {
	int n_layer;  /* transformer blocks */
	int n_embd;   /* embedding size, a multiple of n_head */
	int n_head;   /* attention heads */
	int n_ff;     /* hidden size of the MLP */
	int n_tokens; /* tokens per step (the batch) */
	int n_vocab;  /* rows of the output projection */
	uint32_t seed; /* of the weights and inputs: same seed, same results */
	bool own_names; /* the nodes named "t0", "t1", ... as a program of its own may, not as llama.cpp */
};

/* One block's weights. */
struct transformer_layer {
	struct ggml_tensor *attn_norm, *wq, *wk, *wv, *wo;
	struct ggml_tensor *ffn_norm, *ffn_gate, *ffn_up, *ffn_down;
};

struct transformer {
	struct transformer_params p;
	struct ggml_context *weights_ctx;
	ggml_backend_buffer_t weights;
	struct transformer_layer *layers;
	struct ggml_tensor *output_norm, *output;
	struct ggml_context *graph_ctx;
	struct ggml_cgraph *graph;
	struct ggml_tensor *inp_embd, *kq_mask, *result; /* inputs and output of the graph */
};

/* Defaults: 4 layers, 256 wide, 4 heads, 32 tokens. */
void transformer_params_init(struct transformer_params *p);

/*
 * Makes the weights (filled from p->seed) in a buffer of backend, and the
 * graph of one forward pass. Returns 0, or -EINVAL for a bad shape, or
 * -ENOMEM. Free with transformer_free().
 */
int transformer_init(struct transformer *m, const struct transformer_params *p,
		     ggml_backend_t backend);
void transformer_free(struct transformer *m);

/* The graph size to give ggml_backend_sched_new() for this model. */
size_t transformer_graph_size(const struct transformer_params *p);

/* Fills the inputs of an allocated graph for step number step: 0 or -ENOMEM. */
int transformer_set_inputs(struct transformer *m, uint32_t step);

/* FNV-1a of the result's bytes, to compare runs. */
uint64_t transformer_checksum(const struct transformer *m);

/*
 * The CPU backend with n_threads threads, loading GGML's CPU backend
 * libraries from libdir first if none is registered yet (GGML looks only
 * beside the executable otherwise). NULL if there is none.
 */
ggml_backend_t transformer_cpu_backend(const char *libdir, int n_threads);

/*
 * One step as llama.cpp does it: reset the scheduler, allocate the graph,
 * set the inputs, compute with compute(sched, graph). Returns its status.
 */
enum ggml_status transformer_step(struct transformer *m, ggml_backend_sched_t sched,
				  uint32_t step,
				  enum ggml_status (*compute)(ggml_backend_sched_t,
							      struct ggml_cgraph *));

#endif
