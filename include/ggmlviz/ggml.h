/*
 * libggmlviz: tracing GGML programs (the GGML adapter).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GGML_H
#define GGMLVIZ_GGML_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ggml.h>
#include <ggml-backend.h>
/* ggml_graph_compute_with_ctx(): in <ggml-cpu.h> since GGML split out its
 * CPU backend, in <ggml.h> before. */
#if defined(__has_include)
#if __has_include(<ggml-cpu.h>)
#include <ggml-cpu.h>
#endif
#else
#include <ggml-cpu.h>
#endif
#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

/**
 * @file ggml.h
 * @brief Trace a GGML program: each graph computation, each backend's run
 * of nodes, and each node, without changing what the program computes.
 *
 * Include it after GGML's own headers, in any number of source files; in
 * exactly one of them, define #GGMLVIZ_GGML_IMPLEMENTATION first (or after
 * a first include, then include it again: the implementation stands
 * outside the include guard, with a guard of its own):
 * @code
 * #include <ggml.h>
 * #include <ggml-backend.h>
 * #define GGMLVIZ_GGML_IMPLEMENTATION   // in one source file only
 * #include <ggmlviz/ggml.h>
 *
 * ggmlviz_start(NULL);                             // GGML_VIZ_OUTPUT, ...
 * ggmlviz_ggml_trace_sched(sched, n_threads, NULL, NULL);
 * ...
 * ggmlviz_ggml_sched_graph_compute(sched, graph);  // adds GRAPH begin/end
 * @endcode
 * That file holds the adapter's state (the traced schedulers and the
 * callbacks they chain), which every other file then shares; the adapter
 * is compiled against the program's own GGML headers, so libggmlviz itself
 * never depends on GGML. It compiles as C11 and as C++11. For llama.cpp,
 * see <ggmlviz/llama.h>.
 *
 * What a trace holds, by op timing mode (ggmlviz_config::op_timing):
 * - GGMLVIZ_OP_TIMING_AUTO (the default): the eval callback answers "not
 *   wanted" to every ask, so the scheduler computes each split in one go
 *   as without tracing; the asks and GGML's CPU backend calling its abort
 *   callback after each node (which ggmlviz_ggml_trace_sched() installs)
 *   time each node there (<ggmlviz/nodes.h>): OP_COMPUTE_BEGIN/END,
 *   OP_INFO and OP_NODE (method GGMLVIZ_OP_METHOD_TICK). On other backends
 *   (a GPU) each run of nodes is timed as a whole (SPLIT_BEGIN/END):
 *   nothing is synchronized per node.
 * - GGMLVIZ_OP_TIMING_SYNC: the callback answers "wanted" for each node
 *   that computes something, so the scheduler computes it on its own and
 *   synchronizes after it: each node is timed on any backend (method
 *   GGMLVIZ_OP_METHOD_SYNC), and the run is slower (much slower with many CPU
 *   threads, or on a GPU: see ggmlviz_ggml_eval_cb(3)).
 * - in both, SPLIT_BEGIN/END around each backend's run of nodes; a META
 *   OP_NAME record the first time an op type is seen in a session
 *   (ggml_op_desc(), since `enum ggml_op` numbering differs between GGML
 *   versions) and BACKEND_NAME the first time a backend is seen;
 *   GRAPH_COMPUTE_BEGIN/END around each graph computed through
 *   ggmlviz_ggml_sched_graph_compute() and the other wrappers.
 * - with memory tracking on, a TENSOR_ALLOC for each backend buffer the
 *   graphs use, with its exact size: the model's weights ("weights
 *   CPU_Mapped"), the KV cache ("kv_cache CPU"), each backend's compute
 *   buffer ("compute CPU"); a compute buffer the scheduler replaces gets a
 *   TENSOR_FREE; after each TENSOR_ALLOC, a META DEVICE naming the device
 *   the buffer lives on, with its memory; and for each input the
 *   scheduler copied into a run from another backend ("CUDA0#attn_norm-3#0"),
 *   once per run, a COUNTER "sched_copy_bytes" of its bytes (what a model
 *   split between backends moves).
 *
 * Each node's layer (OP_NODE) is the one its name says
 * (ggmlviz_layer_of_name(): "Qcur-3", "cache_k_l3"); a node GGML named
 * itself ("node_12": flash attention, the rows that give logits; every node
 * of a program that names only its weights, as whisper.cpp) takes the layer
 * of the nearest node of its run that says one, by its own name or by a
 * weight it reads ("blk.3.attn_q.weight", "encoder.blocks.3.attn.query.weight"),
 * going both ways along the graph, to what it reads (following views to
 * what they view) and to what reads it; at the same distance a layer wins
 * over none and the higher over the lower. Only a weight says "no layer" to
 * the nodes around it ("decoder.ln.weight"; not an input every layer reads).
 * Named nodes outside every layer ("inp_embd", "result_norm",
 * "result_output") keep none. A weight's name whose first word is
 * "encoder" or "enc", "decoder" or "dec", gives the layer its stack
 * (OP_NODE flag GGMLVIZ_NODE_ENCODER or GGMLVIZ_NODE_DECODER).
 *
 * When tracing is not active, the callback answers what the chained
 * callback answers, or "not wanted", and records nothing.
 */

#ifndef GGMLVIZ_GGML_TRACE_VIEWS
/**
 * @brief 1 to also time, in GGMLVIZ_OP_TIMING_SYNC mode, the nodes that
 * compute nothing (views, reshapes, permutes, transposes, GGML_OP_NONE,
 * empty tensors); 0 by default.
 *
 * Define it before including this header in the file that defines
 * #GGMLVIZ_GGML_IMPLEMENTATION. Each such node then costs a scheduler
 * synchronization, for no work.
 */
#define GGMLVIZ_GGML_TRACE_VIEWS 0
#endif

#ifndef GGMLVIZ_GGML_MAX_SCHEDS
/**
 * @brief How many schedulers (and chained callbacks) a program can trace at
 * one time; 16 by default. Define it before including this header in the
 * file that defines #GGMLVIZ_GGML_IMPLEMENTATION to change it.
 */
#define GGMLVIZ_GGML_MAX_SCHEDS 16
#endif

#ifdef GGMLVIZ_DOXYGEN
/**
 * @brief Define it before including this header in exactly one source file
 * of a program: that file holds the adapter's functions and state.
 */
#define GGMLVIZ_GGML_IMPLEMENTATION
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Tells whether a node computes something.
 *
 * @param t a graph node (borrowed).
 * @return false for the nodes that only describe other tensors' data
 *         (GGML_OP_NONE, VIEW, RESHAPE, PERMUTE, TRANSPOSE) and for empty
 *         tensors; true for every other node.
 */
static inline bool ggmlviz_ggml_node_computes(const struct ggml_tensor *t)
{
	return t->op != GGML_OP_NONE && t->op != GGML_OP_VIEW && t->op != GGML_OP_RESHAPE &&
	       t->op != GGML_OP_PERMUTE && t->op != GGML_OP_TRANSPOSE && !ggml_is_empty(t);
}

/**
 * @brief The op type recorded for a node: its `enum ggml_op`, made
 * distinct for each unary and gated op.
 *
 * Ops that carry a sub-op (GGML_OP_UNARY: SILU, GELU, ...; GGML_OP_GLU:
 * SWIGLU, ...; those whose ggml_op_desc() is not ggml_op_name()) would all
 * look alike in a profile. So the low 16 bits are the node's `enum ggml_op`
 * value, and bits 16 and up hold 1 + the sub-op (the first op parameter),
 * or 0 for an op without one. The trace's OP_NAME records name each value
 * with ggml_op_desc() ("MUL_MAT", "SILU").
 *
 * @param t a graph node (borrowed).
 * @return the op type, as recorded in OP_COMPUTE_BEGIN/END and OP_NAME.
 */
static inline uint32_t ggmlviz_ggml_op_type(const struct ggml_tensor *t)
{
	const char *desc = ggml_op_desc(t), *name = ggml_op_name(t->op);
	uint32_t op = (uint32_t)t->op & 0xffffu;

	if (desc == name || strcmp(desc, name) == 0)
		return op;
	return op | (((uint32_t)t->op_params[0] + 1u) & 0xffffu) << 16;
}

/** @cond GGMLVIZ_INTERNAL */
static inline uint64_t ggmlviz_ggml__u64(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}
/** @endcond */

/**
 * @brief Estimates the floating-point operations a node performs.
 *
 * Matrix products count a multiply-add as 2: MUL_MAT and MUL_MAT_ID
 * 2·K·(output elements), K being the shared dimension (ne[0] of the first
 * source); OUT_PROD 2·K·(output elements), K = ne[1] of the first source;
 * FLASH_ATTN_EXT 2·n_q·n_kv·(D_k + D_v)·heads·batch; SET_ROWS one per
 * element of the rows it writes (its output is the whole cache). Nodes
 * that compute nothing count 0, and every other op one per output element
 * (a rough lower bound, enough to rank ops that are not matrix products).
 *
 * @param t a graph node (borrowed).
 * @return the estimate; 0 for nodes that compute nothing.
 */
static inline uint64_t ggmlviz_ggml_flops(const struct ggml_tensor *t)
{
	uint64_t out = ggmlviz_ggml__u64(ggml_nelements(t));
	const struct ggml_tensor *q = t->src[0], *k = t->src[1], *v = t->src[2];

	if (!ggmlviz_ggml_node_computes(t))
		return 0;
	if (t->op == GGML_OP_MUL_MAT || t->op == GGML_OP_MUL_MAT_ID)
		return 2 * ggmlviz_ggml__u64(q->ne[0]) * out;
	if (t->op == GGML_OP_OUT_PROD)
		return 2 * ggmlviz_ggml__u64(q->ne[1]) * out;
	if (t->op == GGML_OP_FLASH_ATTN_EXT)
		return 2 * ggmlviz_ggml__u64(q->ne[1] * q->ne[2] * q->ne[3]) *
		       ggmlviz_ggml__u64(k->ne[1]) * ggmlviz_ggml__u64(k->ne[0] + v->ne[0]);
	if (t->op == GGML_OP_SET_ROWS && q)
		return ggmlviz_ggml__u64(ggml_nelements(q)); /* the rows it writes, not the cache */
	return out;
}

/** @cond GGMLVIZ_INTERNAL */
/* The bytes of n rows of t's row length in t's type (block-quantized types by their blocks). */
static inline uint64_t ggmlviz_ggml__rows(const struct ggml_tensor *t, int64_t n)
{
	return (uint64_t)ggml_row_size(t->type, t->ne[0]) * ggmlviz_ggml__u64(n);
}

/* What op reads of source j: all of it, but the rows a lookup takes and the experts MoE uses. */
static inline uint64_t ggmlviz_ggml__src_bytes(const struct ggml_tensor *t, int j)
{
	const struct ggml_tensor *s = t->src[j], *ids = t->src[2];
	uint64_t all = (uint64_t)ggml_nbytes(s);

	if (t->op == GGML_OP_GET_ROWS && j == 0 && t->src[1])
		return ggmlviz_ggml__rows(s, ggml_nelements(t->src[1]));
	if (t->op == GGML_OP_SET_ROWS && j >= 2)
		return 0; /* the cache it writes into, which it does not read */
	if (t->op == GGML_OP_MUL_MAT_ID && j == 0 && ids && s->ne[2] > ids->ne[0] * ids->ne[1])
		return all / ggmlviz_ggml__u64(s->ne[2]) * ggmlviz_ggml__u64(ids->ne[0] * ids->ne[1]);
	return all;
}
/** @endcond */

/**
 * @brief The bytes a node reads and writes: its sources and its output.
 *
 * Every source counts whole, in its own type (a block-quantized weight by
 * its blocks, ggml_nbytes()), but for GET_ROWS the rows it looks up (not
 * the whole table), for MUL_MAT_ID the experts its ids can use at most,
 * and for SET_ROWS the rows it writes into the cache (not the whole cache,
 * which it does not read either).
 * What the backend keeps in cache is not told apart: this is what the op
 * needs to move, the figure a roofline compares with the memory's
 * bandwidth.
 *
 * @param t a graph node (borrowed).
 * @param read set to the bytes of its sources it reads (may be NULL).
 * @param written set to the bytes of its output it writes (may be NULL).
 * @return read + written; 0 for nodes that compute nothing.
 */
static inline uint64_t ggmlviz_ggml_bytes(const struct ggml_tensor *t, uint64_t *read,
					  uint64_t *written)
{
	uint64_t r = 0, w = 0;

	if (ggmlviz_ggml_node_computes(t)) {
		for (int j = 0; j < GGML_MAX_SRC; j++)
			r += t->src[j] ? ggmlviz_ggml__src_bytes(t, j) : 0;
		w = t->op == GGML_OP_SET_ROWS && t->src[0] ? ggmlviz_ggml__rows(t, ggml_nrows(t->src[0]))
							     : (uint64_t)ggml_nbytes(t);
	}
	if (read)
		*read = r;
	if (written)
		*written = w;
	return r + w;
}

/**
 * @brief The eval callback: reports each node the scheduler asks about.
 *
 * Give it to ggml_backend_sched_set_eval_callback() (ggmlviz_ggml_trace_sched()
 * does), or as llama.cpp's `cb_eval` (ggmlviz_llama_context_params() does).
 * On an ask (@p ask true) it passes the node to the calling thread's run
 * (ggmlviz_nodes_ask()) and, in GGMLVIZ_OP_TIMING_SYNC mode, records
 * OP_COMPUTE_BEGIN and answers "wanted" for a node that computes
 * something; when the scheduler hands a wanted node over (@p ask false),
 * it records OP_COMPUTE_END.
 *
 * A callback chained with ggmlviz_ggml_trace_sched() or ggmlviz_ggml_chain()
 * for this @p user_data gets every call it would get without tracing:
 * every ask, and the hand-over of each node it answered true for, whose
 * answer is returned (false stops the graph, as it would have). Otherwise
 * the answer to a hand-over is always true: the graph goes on.
 *
 * @param t the node (borrowed; read, never changed).
 * @param ask true when the scheduler asks whether @p t is wanted; false
 *        when it hands over the computed @p t.
 * @param user_data the ggml_backend_sched_t computing the graph (its backend
 *        for @p t is recorded; a scheduler no call registered is taken on
 *        its first ask as ggmlviz_ggml_trace_sched() takes one: its CPU
 *        backends get the adapter's abort callback, so that every node is
 *        timed; ggmlviz_ggml_untrace_sched() before freeing it), a value
 *        given to ggmlviz_ggml_chain(), or NULL (then the buffer type
 *        holding @p t stands for its backend, and CPU runs are timed as a
 *        whole).
 * @return on an ask: whether the scheduler should stop after @p t and hand
 *         it over; on a hand-over: whether the graph goes on.
 */
bool ggmlviz_ggml_eval_cb(struct ggml_tensor *t, bool ask, void *user_data);

/**
 * @brief The abort callback: GGML's CPU backend calls it after each node it
 * computed; it ticks the calling thread's run (ggmlviz_nodes_tick()).
 *
 * ggmlviz_ggml_trace_sched() installs it on a scheduler's CPU backends,
 * ggmlviz_llama_context_params() in llama.cpp.
 *
 * @param data a value of the adapter's that says which callback it chains
 *        (the one given to ggmlviz_ggml_chain_abort()), or NULL.
 * @return what the chained abort callback returns (true aborts the
 *         graph); false without one.
 */
bool ggmlviz_ggml_abort_cb(void *data);

/**
 * @brief Chains a callback for the calls that ggmlviz_ggml_eval_cb() gets
 * with a given user_data, without installing anything.
 *
 * @param user_data the user_data that ggmlviz_ggml_eval_cb() is called with
 *        (a scheduler, or NULL).
 * @param chain the callback to pass calls on to, or NULL to pass nothing on.
 * @param chain_user_data given to @p chain (borrowed).
 * @return 0 on success; -EINVAL if @p chain is ggmlviz_ggml_eval_cb itself;
 *         -ENOSPC if #GGMLVIZ_GGML_MAX_SCHEDS values already have a chain
 *         or a traced scheduler.
 */
int ggmlviz_ggml_chain(void *user_data, ggml_backend_sched_eval_callback chain,
		       void *chain_user_data);

/**
 * @brief Traces every node a scheduler computes: installs
 * ggmlviz_ggml_eval_cb() on it, chaining the application's own callback,
 * and ggmlviz_ggml_abort_cb() on its CPU backends.
 *
 * GGML cannot tell which callbacks a scheduler has, so an application that
 * set an eval callback passes it here, and one that set an abort callback
 * on the CPU backend passes it to ggmlviz_ggml_chain_abort() afterwards;
 * each then gets every call it got before. Calling it again for the same
 * scheduler replaces the thread count and the chained eval callback. Call
 * ggmlviz_ggml_untrace_sched() before freeing the scheduler.
 *
 * @param sched the scheduler (borrowed; its eval callback is replaced).
 * @param n_threads the threads its CPU backend computes with, recorded in
 *        GRAPH_COMPUTE_BEGIN/END by ggmlviz_ggml_sched_graph_compute(); 0
 *        if unknown.
 * @param chain the eval callback the application had set, or NULL.
 * @param chain_user_data the user_data it had set with it (borrowed).
 * @return 0 on success; -EINVAL if @p sched is NULL, @p n_threads is
 *         negative or @p chain is ggmlviz_ggml_eval_cb itself; -ENOSPC if
 *         #GGMLVIZ_GGML_MAX_SCHEDS schedulers are already traced. On
 *         failure the scheduler is left as it was.
 */
int ggmlviz_ggml_trace_sched(ggml_backend_sched_t sched, int n_threads,
			     ggml_backend_sched_eval_callback chain, void *chain_user_data);

/**
 * @brief Chains the abort callback the application had set on a traced
 * scheduler's CPU backend: it is called after each node, as before, and
 * its answer still aborts the graph.
 *
 * @param sched a scheduler traced with ggmlviz_ggml_trace_sched().
 * @param abort_cb the application's abort callback, or NULL for none.
 * @param abort_data its data (borrowed).
 * @return 0; -EINVAL if @p sched is not traced or @p abort_cb is
 *         ggmlviz_ggml_abort_cb itself.
 */
int ggmlviz_ggml_chain_abort(ggml_backend_sched_t sched, ggml_abort_callback abort_cb,
			     void *abort_data);

/**
 * @brief Stops tracing a scheduler's nodes: puts back the callbacks chained
 * by ggmlviz_ggml_trace_sched() and ggmlviz_ggml_chain_abort() (or none),
 * and forgets the scheduler.
 *
 * Call it before ggml_backend_sched_free(), so that a later scheduler at
 * the same address does not inherit its settings. Not while the scheduler
 * is computing.
 *
 * @param sched the scheduler, or NULL (nothing happens). One that was not
 *        traced gets no eval callback.
 */
void ggmlviz_ggml_untrace_sched(ggml_backend_sched_t sched);

/**
 * @brief ggml_backend_sched_graph_compute() between GRAPH_COMPUTE_BEGIN and
 * GRAPH_COMPUTE_END, with the graph's runs and nodes recorded before its end.
 *
 * The records carry @p g's address, its node count, the thread count given
 * to ggmlviz_ggml_trace_sched() (0 if the scheduler was not traced that
 * way) and the scheduler's backend when it has only one (NULL otherwise).
 *
 * @param s the scheduler (borrowed).
 * @param g the graph (borrowed).
 * @return what ggml_backend_sched_graph_compute() returned.
 */
enum ggml_status ggmlviz_ggml_sched_graph_compute(ggml_backend_sched_t s, struct ggml_cgraph *g);

/**
 * @brief ggml_backend_graph_compute() between GRAPH_COMPUTE_BEGIN and
 * GRAPH_COMPUTE_END.
 *
 * Only the whole graph is timed: a backend computing a graph by itself
 * asks no eval callback.
 *
 * @param backend the backend (borrowed), named in a BACKEND_NAME record the
 *        first time it is seen.
 * @param g the graph (borrowed).
 * @param n_threads the threads the backend computes with, recorded; 0 if
 *        unknown or not meaningful (a GPU).
 * @return what ggml_backend_graph_compute() returned.
 */
enum ggml_status ggmlviz_ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph *g,
						    int n_threads);

/**
 * @brief ggml_graph_compute_with_ctx() between GRAPH_COMPUTE_BEGIN and
 * GRAPH_COMPUTE_END, for a plain CPU graph.
 *
 * A program that calls it links with the CPU backend's library
 * (libggml-cpu.so, or a variant such as libggml-cpu-x64.so); others do
 * not, which is why it is inline in every file that uses it. Only the
 * whole graph is timed, recorded with no backend (CPU).
 *
 * @param ctx the context the work buffer is allocated in (borrowed).
 * @param g the graph (borrowed).
 * @param n_threads the threads to compute with; recorded.
 * @return what ggml_graph_compute_with_ctx() returned.
 */
static inline enum ggml_status ggmlviz_ggml_graph_compute_with_ctx(struct ggml_context *ctx,
								    struct ggml_cgraph *g,
								    int n_threads)
{
	uint32_t nodes = (uint32_t)(ggml_graph_n_nodes(g) > 0 ? ggml_graph_n_nodes(g) : 0);
	uint32_t threads = n_threads > 0 ? (uint32_t)n_threads : 0;
	enum ggml_status status;

	ggmlviz_graph_begin(g, nodes, threads, NULL);
	status = ggml_graph_compute_with_ctx(ctx, g, n_threads);
	ggmlviz_nodes_flush();
	ggmlviz_graph_end(g, nodes, threads, NULL);
	return status;
}

/**
 * @brief The model layer a node says it belongs to, by itself.
 *
 * The layer its name says (ggmlviz_layer_of_name()); for a node without a
 * name of its own (empty, or GGML's "node_N"), the highest layer of its
 * sources, following views to the tensors they view, three levels deep.
 * What OP_NODE records also looks at the node before it in the graph (see
 * <ggmlviz/ggml.h>).
 *
 * @param t a graph node (borrowed).
 * @return the layer, or -1 for none.
 */
int32_t ggmlviz_ggml_layer(const struct ggml_tensor *t);

/**
 * @brief Describes the nodes of a run for <ggmlviz/nodes.h> (a
 * ggmlviz_node_describe_fn): names, op types, shapes, work, layers,
 * sources, and the ticks GGML's CPU backend gives for each (one per node
 * it computes; RMS_NORM followed by the MUL that uses it, in F32, is one
 * fused kernel and one tick, unless GGML_CPU_DISABLE_FUSION=1). The run's
 * fused pairs are counted in one pass when its node 0 is described, so
 * describe node 0 first, as the node engine does (a run that reuses the
 * last one's array must begin at node 0 again); a node of another array or
 * length than the last node 0 described is checked alone.
 *
 * @param user the scheduler the nodes were asked by, or NULL.
 * @param nodes the run's nodes (struct ggml_tensor pointers).
 * @param n how many.
 * @param i which one.
 * @param out filled.
 */
void ggmlviz_ggml_describe(void *user, const void *const *nodes, size_t n, size_t i,
			   struct ggmlviz_node_desc *out);

/** @cond GGMLVIZ_INTERNAL */
/*
 * For <ggmlviz/llama.h>: the user data that chains an application's eval
 * and abort callbacks behind the adapter's (one slot for every context
 * given the same four values); NULL when all GGMLVIZ_GGML_MAX_SCHEDS slots
 * are taken. Defined with the adapter's implementation.
 */
void *ggmlviz_ggml__chain_pair(ggml_backend_sched_eval_callback eval, void *eval_data,
			       ggml_abort_callback abort_cb, void *abort_data);
/*
 * For <ggmlviz/llama.h>: what frees the backend buffers the calling
 * thread's graphs use from now on (a llama.cpp context its KV cache and
 * compute buffers, its model the weights; NULL, NULL: not told), and the
 * TENSOR_FREE records of those of one owner (or, owner NULL, of buf);
 * how many. Defined with the adapter's implementation.
 */
void ggmlviz_ggml__owners(const void *ctx, const void *model);
int ggmlviz_ggml__free_owned(const void *owner, const void *buf, const char *label);
/** @endcond */

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_GGML_H */

/*
 * The implementation, outside the include guard: a file that included this
 * header before defining GGMLVIZ_GGML_IMPLEMENTATION gets it when it
 * includes the header again; ggml-impl.h's own guard keeps it to once.
 */
#ifdef GGMLVIZ_GGML_IMPLEMENTATION
#include <ggmlviz/ggml-impl.h> /* the adapter's functions and state: in this file only */
#endif
