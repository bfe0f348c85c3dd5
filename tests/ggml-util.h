/*
 * Helpers of the tests on real GGML (test-ggml, test-ggml-model, and the
 * llama.cpp tests): a CPU backend and scheduler, a small graph of known
 * nodes, tracing into a temporary file, and the trace read back as
 * timings of each kind.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GGML_UTIL_H
#define GGMLVIZ_GGML_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <ggml.h>
#include <ggml-backend.h>
#include <ggmlviz/reader.h>

#define GU_MAX_RECORDS 16384
#if defined(__SANITIZE_THREAD__)
/* GGML's thread pool is not instrumented: its barriers would look like races */
#define GU_THREADS 1
#else
#define GU_THREADS 2
#endif

/*
 * Check's limit on a test that computes GGML graphs: a hang's guard, not a
 * speed bound. GGML's barrier spins: on a machine with more runnable
 * threads than cores (2 cores, make -j2 distcheck) each barrier may wait
 * out a time slice of the other thread's, and a test of 400 graphs that
 * takes seconds alone took 90 s (98.6% of it in ggml_barrier).
 */
#define GU_TIMEOUT_S 600

struct gu_meta {
	uint32_t kind;
	uint64_t key;
	char label[160];
};

/* A trace read back: its timings by kind, its META records, pairing counts. */
struct gu_trace {
	struct ggmlviz_reader *r; /* the timings' labels point into it */
	struct ggmlviz_timing *ops, *graphs, *splits, *steps, *sums; /* sums: OP_SUMMARY */
	size_t n_ops, n_graphs, n_splits, n_steps, n_sums;
	struct gu_meta *metas;
	size_t n_metas;
	uint64_t events; /* records of every kind */
	struct ggmlviz_pairing_counts counts;
};

void gu_read(struct gu_trace *tr, const char *path);
void gu_free(struct gu_trace *tr);
/* How many META records of kind name key, and the label of the last. */
size_t gu_count_meta(const struct gu_trace *tr, uint32_t kind, uint64_t key, const char **label);
int gu_label_is(const struct ggmlviz_timing *t, const char *name);
int gu_has_label(const struct gu_trace *tr, const char *label);

/* Tracing into a fresh temporary file, op_timing as given, lossless. */
void gu_start(char path[256], int op_timing);
/* Stops, reads the trace into tr, removes the file. */
void gu_stop_and_read(const char *path, struct gu_trace *tr);

/* A CPU backend of GU_THREADS threads, from the libraries of libdir. */
ggml_backend_t gu_cpu_backend(const char *libdir);
ggml_backend_sched_t gu_new_sched(ggml_backend_t *backend, size_t graph_size);
/* ggml_backend_cpu_set_abort_callback(), through the backend's registry
 * (the CPU backend is loaded at run time, not linked). */
void gu_set_cpu_abort(ggml_backend_t cpu, ggml_abort_callback cb, void *data);

/*
 * x [64, 8] and w [64, 48] in a backend buffer;
 *   y = w x [48, 8]       MUL_MAT   computes
 *   yt = yᵀ [8, 48]       TRANSPOSE view
 *   yc = cont(yt)         CONT      computes
 *   r = yc as [48, 8]     RESHAPE   view
 *   s = silu(r)           UNARY     computes
 *   v = s rows 0..3       VIEW      view
 *   out = softmax(v)      SOFT_MAX  computes
 */
struct gu_known {
	struct ggml_context *params_ctx, *ctx;
	ggml_backend_buffer_t params;
	struct ggml_cgraph *g;
	struct ggml_tensor *x, *w, *y, *yt, *yc, *r, *s, *v, *out;
};

void gu_known_init(struct gu_known *k, ggml_backend_t backend);
void gu_known_free(struct gu_known *k);

/* What the trace must say of each computing node of the known graph. */
struct gu_expected_op {
	const char *label;
	uint32_t op_type;
	const char *op_name;
	uint64_t size;
	int64_t ne[4];
	uint64_t flops;
};

void gu_known_expected(struct gu_expected_op e[4]);

/* A GGML (and llama.cpp) log function that lets errors through only. */
void gu_silent_log(enum ggml_log_level level, const char *text, void *data);

/* The index of the largest of n values (greedy sampling of logits). */
int32_t gu_argmax(const float *v, int n);

#endif /* GGMLVIZ_GGML_UTIL_H */
