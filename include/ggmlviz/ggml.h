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
 * exactly one of them, define #GGMLVIZ_GGML_IMPLEMENTATION first:
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
 *   OP_INFO and OP_NODE (method GGMLVIZ_METHOD_TICK). On other backends
 *   (a GPU) each run of nodes is timed as a whole (SPLIT_BEGIN/END):
 *   nothing is synchronized per node.
 * - GGMLVIZ_OP_TIMING_SYNC: the callback answers "wanted" for each node
 *   that computes something, so the scheduler computes it on its own and
 *   synchronizes after it: each node is timed on any backend (method
 *   GGMLVIZ_METHOD_SYNC), and the run is slower (much slower with many CPU
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
 *   TENSOR_FREE.
 *
 * Each node's layer (OP_NODE) is the one its name says
 * (ggmlviz_layer_of_name(): "Qcur-3", "cache_k_l3"); a node GGML named
 * itself ("node_12": flash attention, the rows that give logits) takes the
 * highest layer among its sources (following views to what they view) and
 * the closest node before it in the graph whose name says a layer: where
 * the model's code built it. Named nodes outside every layer ("inp_embd",
 * "result_norm", "result_output") keep none.
 *
 * When tracing is not active, the callback answers what the chained
 * callback answers, or "not wanted", and records nothing.
 */

#if !defined(__GNUC__) && !defined(__clang__)
#error "<ggmlviz/ggml.h> needs the __atomic builtins and __thread of GCC or Clang"
#endif

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
 * FLASH_ATTN_EXT 2·n_q·n_kv·(D_k + D_v)·heads·batch. Nodes that compute
 * nothing count 0, and every other op one per output element (a rough
 * lower bound, enough to rank ops that are not matrix products).
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
	return out;
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
 *        for @p t is recorded), a value given to ggmlviz_ggml_chain(), or
 *        NULL (then the buffer type holding @p t stands for its backend).
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
 * fused kernel and one tick, unless GGML_CPU_DISABLE_FUSION=1).
 *
 * @param user the scheduler the nodes were asked by, or NULL.
 * @param nodes the run's nodes (struct ggml_tensor pointers).
 * @param n how many.
 * @param i which one.
 * @param out filled.
 */
void ggmlviz_ggml_describe(void *user, const void *const *nodes, size_t n, size_t i,
			   struct ggmlviz_node_desc *out);

#ifdef GGMLVIZ_GGML_IMPLEMENTATION
/** @cond GGMLVIZ_INTERNAL */
#define GGMLVIZ_GGML__LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define GGMLVIZ_GGML__STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define GGMLVIZ_GGML__CAS(p, expected, v) \
	__atomic_compare_exchange_n((p), (expected), (v), false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define GGMLVIZ_GGML__SLOT_FREE 0u
#define GGMLVIZ_GGML__SLOT_BUSY 1u
#define GGMLVIZ_GGML__SLOT_READY 2u

/* What one scheduler (or user_data value) is traced with. */
struct ggmlviz_ggml__slot {
	unsigned int state; /* GGMLVIZ_GGML__SLOT_* */
	void *key;
	bool is_sched;      /* key is a ggml_backend_sched_t */
	ggml_backend_sched_eval_callback chain;
	void *chain_user_data;
	ggml_abort_callback abort_chain;
	void *abort_data;
	int n_threads;
};

static struct ggmlviz_ggml__slot ggmlviz_ggml__slots[GGMLVIZ_GGML_MAX_SCHEDS];
/* Bumped whenever a slot is freed or given a key: a thread's cached lookup is then stale. */
static unsigned int ggmlviz_ggml__slots_epoch;

/* The node a thread answered "wanted" for (sync mode), until it is handed over. */
struct ggmlviz_ggml__inflight {
	const struct ggml_tensor *tensor;
	bool traced;    /* its OP_COMPUTE_BEGIN was recorded */
	bool app_wants; /* the chained callback asked to observe it */
	uint32_t op_type;
	uint64_t size;
	const void *backend;
};

static __thread struct ggmlviz_ggml__inflight ggmlviz_ggml__flight;
/* Sync mode: the layer of the last node asked about whose name says one. */
static __thread int32_t ggmlviz_ggml__named_layer = -1;
/* The backend this thread named last, in which session: one compare per ask. */
static __thread const void *ggmlviz_ggml__named_backend;
static __thread uint64_t ggmlviz_ggml__named_session;

static struct ggmlviz_ggml__slot *ggmlviz_ggml__find(const void *key)
{
	for (int i = 0; i < GGMLVIZ_GGML_MAX_SCHEDS; i++) {
		struct ggmlviz_ggml__slot *s = &ggmlviz_ggml__slots[i];
		if (GGMLVIZ_GGML__LOAD(&s->state) == GGMLVIZ_GGML__SLOT_READY &&
		    GGMLVIZ_GGML__LOAD(&s->key) == key)
			return s;
	}
	return NULL;
}

static struct ggmlviz_ggml__slot *ggmlviz_ggml__claim(void *key)
{
	for (int i = 0; i < GGMLVIZ_GGML_MAX_SCHEDS; i++) {
		struct ggmlviz_ggml__slot *s = &ggmlviz_ggml__slots[i];
		unsigned int free_state = GGMLVIZ_GGML__SLOT_FREE;

		if (GGMLVIZ_GGML__CAS(&s->state, &free_state, GGMLVIZ_GGML__SLOT_BUSY)) {
			GGMLVIZ_GGML__STORE(&s->key, key);
			__atomic_fetch_add(&ggmlviz_ggml__slots_epoch, 1, __ATOMIC_ACQ_REL);
			return s;
		}
	}
	return NULL;
}

/* A slot is ready for its key: lookups cached by the threads are stale. */
static void ggmlviz_ggml__ready(struct ggmlviz_ggml__slot *s)
{
	GGMLVIZ_GGML__STORE(&s->state, GGMLVIZ_GGML__SLOT_READY);
	__atomic_fetch_add(&ggmlviz_ggml__slots_epoch, 1, __ATOMIC_ACQ_REL);
}

/* A slot becomes free: lookups cached by the threads are stale. */
static void ggmlviz_ggml__release(struct ggmlviz_ggml__slot *s)
{
	GGMLVIZ_GGML__STORE(&s->state, GGMLVIZ_GGML__SLOT_FREE);
	__atomic_fetch_add(&ggmlviz_ggml__slots_epoch, 1, __ATOMIC_ACQ_REL);
}

/* ggmlviz_ggml__find(), remembered per thread until a slot changes: the
 * callback asks it for every node, always with the same user_data. */
static const struct ggmlviz_ggml__slot *ggmlviz_ggml__find_cached(const void *key)
{
	static __thread const void *cached_key;
	static __thread const struct ggmlviz_ggml__slot *cached_slot;
	static __thread unsigned int cached_epoch = ~0u;
	unsigned int epoch = GGMLVIZ_GGML__LOAD(&ggmlviz_ggml__slots_epoch);

	if (cached_epoch != epoch || cached_key != key) {
		cached_slot = ggmlviz_ggml__find(key);
		cached_key = key;
		cached_epoch = epoch;
	}
	return cached_slot;
}

/* The slot of key, claimed if new and made ready; NULL when all are taken. */
static struct ggmlviz_ggml__slot *ggmlviz_ggml__slot_for(void *key, bool is_sched)
{
	struct ggmlviz_ggml__slot *s = ggmlviz_ggml__find(key);

	if (!s && !(s = ggmlviz_ggml__claim(key)))
		return NULL;
	s->is_sched = is_sched;
	ggmlviz_ggml__ready(s);
	return s;
}

static void ggmlviz_ggml__name_backend(const void *backend, const char *name)
{
	uint64_t session = ggmlviz_session();

	if (!backend || (ggmlviz_ggml__named_backend == backend &&
			 ggmlviz_ggml__named_session == session))
		return;
	ggmlviz_ggml__named_backend = backend;
	ggmlviz_ggml__named_session = session;
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)backend, name);
}

/* The backend computing t: the scheduler's, else the buffer type holding t. */
static const void *ggmlviz_ggml__node_backend(const struct ggml_tensor *t,
					      const struct ggmlviz_ggml__slot *slot)
{
	const struct ggml_tensor *data = t->view_src ? t->view_src : t;
	ggml_backend_buffer_type_t buft;
	ggml_backend_t backend;

	if (slot && slot->is_sched) {
		backend = ggml_backend_sched_get_tensor_backend((ggml_backend_sched_t)slot->key,
								(struct ggml_tensor *)t);
		if (backend)
			ggmlviz_ggml__name_backend(backend, ggml_backend_name(backend));
		return backend;
	}
	if (!data->buffer)
		return NULL;
	buft = ggml_backend_buffer_get_type(data->buffer);
	ggmlviz_ggml__name_backend(buft, ggml_backend_buft_name(buft));
	return buft;
}

/* ---- memory: the backend buffers a graph uses ---- */

static const char *ggmlviz_ggml__buffer_role(ggml_backend_buffer_t buf, const struct ggml_tensor *t)
{
	enum ggml_backend_buffer_usage usage = ggml_backend_buffer_get_usage(buf);

	if (usage == GGML_BACKEND_BUFFER_USAGE_WEIGHTS)
		return "weights";
	if (usage == GGML_BACKEND_BUFFER_USAGE_COMPUTE)
		return "compute";
	return strncmp(t->name, "cache_", 6) == 0 ? "kv_cache" : "buffer";
}

/* The compute buffer this thread saw last for each buffer type, to free the one replaced. */
static __thread const void *ggmlviz_ggml__compute_buft[8];
static __thread ggml_backend_buffer_t ggmlviz_ggml__compute_buf[8];

static void ggmlviz_ggml__replaced(ggml_backend_buffer_t buf)
{
	const void *buft = ggml_backend_buffer_get_type(buf);
	int i = 0;

	while (i < 7 && ggmlviz_ggml__compute_buft[i] && ggmlviz_ggml__compute_buft[i] != buft)
		i++;
	if (ggmlviz_ggml__compute_buft[i] == buft && ggmlviz_ggml__compute_buf[i] &&
	    ggmlviz_ggml__compute_buf[i] != buf)
		ggmlviz_tensor_free(ggmlviz_ggml__compute_buf[i], 0, "compute buffer replaced");
	ggmlviz_ggml__compute_buft[i] = buft;
	ggmlviz_ggml__compute_buf[i] = buf;
}

/* TENSOR_ALLOC for a buffer, the first time it is seen this session. */
static void ggmlviz_ggml__buffer_seen(const struct ggml_tensor *t)
{
	const struct ggml_tensor *data = t->view_src ? t->view_src : t;
	ggml_backend_buffer_t buf = data->buffer;
	char label[96];

	if (!buf)
		return;
	snprintf(label, sizeof label, "%s %s", ggmlviz_ggml__buffer_role(buf, data),
		 ggml_backend_buffer_name(buf));
	if (ggmlviz_tensor_alloc_once(buf, (uint64_t)ggml_backend_buffer_get_size(buf), label) &&
	    ggml_backend_buffer_get_usage(buf) == GGML_BACKEND_BUFFER_USAGE_COMPUTE)
		ggmlviz_ggml__replaced(buf);
}

static void ggmlviz_ggml__buffers_seen(const struct ggml_tensor *t)
{
	ggmlviz_ggml__buffer_seen(t);
	for (int i = 0; i < GGML_MAX_SRC && t->src[i]; i++)
		ggmlviz_ggml__buffer_seen(t->src[i]);
}

/* ---- layers and sources ---- */

static bool ggmlviz_ggml__is_view(const struct ggml_tensor *t)
{
	return t->op == GGML_OP_NONE || t->op == GGML_OP_VIEW || t->op == GGML_OP_RESHAPE ||
	       t->op == GGML_OP_PERMUTE || t->op == GGML_OP_TRANSPOSE;
}

/* The tensor a chain of views shows (the node that computed the data). */
static const struct ggml_tensor *ggmlviz_ggml__seen_through(const struct ggml_tensor *t)
{
	for (int k = 0; t && k < 8 && t->op != GGML_OP_NONE && ggmlviz_ggml__is_view(t); k++)
		t = t->view_src ? t->view_src : t->src[0];
	return t;
}

/* A name GGML gave (empty, "node_N", "leaf_N"), not the program. */
static bool ggmlviz_ggml__unnamed(const struct ggml_tensor *t)
{
	return !t->name[0] || strncmp(t->name, "node_", 5) == 0 ||
	       strncmp(t->name, "leaf_", 5) == 0;
}

static int32_t ggmlviz_ggml__layer_at(const struct ggml_tensor *t, int depth)
{
	int32_t layer = ggmlviz_layer_of_name(t->name, strlen(t->name));

	if (layer >= 0 || depth == 0 || !ggmlviz_ggml__unnamed(t))
		return layer;
	for (int i = 0; i < GGML_MAX_SRC && t->src[i]; i++) {
		int32_t l = ggmlviz_ggml__layer_at(t->src[i], depth - 1);
		layer = l > layer ? l : layer;
	}
	return layer;
}

int32_t ggmlviz_ggml_layer(const struct ggml_tensor *t)
{
	return ggmlviz_ggml__layer_at(t, 3);
}

/* The layer of node i of a run: its own, else the highest of its sources'
 * and of the closest node before it whose name says one. */
static int32_t ggmlviz_ggml__run_layer(const void *const *nodes, size_t i)
{
	const struct ggml_tensor *t = (const struct ggml_tensor *)nodes[i];
	int32_t layer = ggmlviz_ggml_layer(t), before = -1;

	if (!ggmlviz_ggml__unnamed(t))
		return layer;
	for (size_t k = i, seen = 0; k > 0 && seen < 64 && before < 0; k--, seen++) {
		const struct ggml_tensor *p = (const struct ggml_tensor *)nodes[k - 1];
		before = ggmlviz_layer_of_name(p->name, strlen(p->name));
	}
	return before > layer ? before : layer;
}

/* ---- the CPU backend's ticks, and its fused kernels ---- */

/* Whether GGML's CPU backend computes t, calling its abort callback after it. */
static bool ggmlviz_ggml__ticks(const struct ggml_tensor *t)
{
	return !ggmlviz_ggml__is_view(t) && (t->flags & GGML_TENSOR_FLAG_COMPUTE);
}

static bool ggmlviz_ggml__fusion_off(void)
{
	static int off = -1; /* read once, as GGML does */
	const char *env;

	if (__atomic_load_n(&off, __ATOMIC_RELAXED) < 0) {
		env = getenv("GGML_CPU_DISABLE_FUSION");
		__atomic_store_n(&off, env && atoi(env) == 1, __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&off, __ATOMIC_RELAXED) == 1;
}

/* How many of the run's nodes after node i read it as a source (only
 * later nodes can: a graph is in order), counting up to 2. */
static int ggmlviz_ggml__uses(const void *const *nodes, size_t n, size_t i)
{
	const struct ggml_tensor *a = (const struct ggml_tensor *)nodes[i];
	int uses = 0;

	for (size_t j = i + 1; j < n && uses < 2; j++) {
		const struct ggml_tensor *t = (const struct ggml_tensor *)nodes[j];
		for (int k = 0; k < GGML_MAX_SRC && t->src[k]; k++)
			uses += t->src[k] == a;
	}
	return uses;
}

/*
 * Whether the CPU backend computes nodes[i] and nodes[i + 1] in one kernel
 * (ggml-cpu.c, ggml_cpu_try_fuse_ops: RMS_NORM + MUL, F32, the norm used
 * once), and so ticks once for both.
 */
static bool ggmlviz_ggml__fused(const void *const *nodes, size_t n, size_t i)
{
	const struct ggml_tensor *a, *b, *w;

	if (i + 1 >= n || ggmlviz_ggml__fusion_off())
		return false;
	a = (const struct ggml_tensor *)nodes[i];
	b = (const struct ggml_tensor *)nodes[i + 1];
	if (a->op != GGML_OP_RMS_NORM || b->op != GGML_OP_MUL || !ggmlviz_ggml__ticks(a) ||
	    !ggmlviz_ggml__ticks(b) || a->view_src || (a->flags & GGML_TENSOR_FLAG_OUTPUT) ||
	    (b->src[0] != a && b->src[1] != a) || !ggml_are_same_shape(a, b) ||
	    ggmlviz_ggml__uses(nodes, n, i) != 1)
		return false;
	w = b->src[0] == a ? b->src[1] : b->src[0];
	return a->src[0]->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32 &&
	       w->type == GGML_TYPE_F32 && w->ne[0] == a->ne[0] && w->nb[0] == sizeof(float);
}

/* Whether nodes[i] heads a fused pair. The last answer is remembered, since
 * describing node i + 1 asks it again; the run's first node forgets it (a
 * new run may reuse the same array). */
static bool ggmlviz_ggml__fused_at(const void *const *nodes, size_t n, size_t i, size_t asking)
{
	static __thread const void *const *memo_nodes;
	static __thread size_t memo_i;
	static __thread bool memo_fused;

	if (asking == 0)
		memo_nodes = NULL;
	if (memo_nodes == nodes && memo_i == i)
		return memo_fused;
	memo_nodes = nodes;
	memo_i = i;
	memo_fused = ggmlviz_ggml__fused(nodes, n, i);
	return memo_fused;
}

void ggmlviz_ggml_describe(void *user, const void *const *nodes, size_t n, size_t i,
			   struct ggmlviz_node_desc *out)
{
	const struct ggml_tensor *t = (const struct ggml_tensor *)nodes[i];
	bool tail = i > 0 && ggmlviz_ggml__fused_at(nodes, n, i - 1, i);

	(void)user;
	out->ticks = ggmlviz_ggml__ticks(t) && !tail;
	if (!out->ticks)
		return; /* no op timing of its own: nothing more is asked of it */
	out->op_type = ggmlviz_ggml_op_type(t);
	out->op_name = ggml_op_desc(t);
	out->size = (uint64_t)ggml_nbytes(t);
	out->flops = ggmlviz_ggml_flops(t);
	memcpy(out->ne, t->ne, sizeof out->ne);
	out->type_name = ggml_type_name(t->type);
	out->name = t->name[0] ? t->name : NULL;
	out->layer = ggmlviz_ggml__run_layer(nodes, i);
	out->src[0] = t->src[0] ? ggmlviz_ggml__seen_through(t->src[0]) : NULL;
	out->src[1] = t->src[1] ? ggmlviz_ggml__seen_through(t->src[1]) : NULL;
	if (ggmlviz_ggml__fused_at(nodes, n, i, i)) {
		const struct ggml_tensor *b = (const struct ggml_tensor *)nodes[i + 1];
		out->flags |= GGMLVIZ_NODE_FUSED;
		out->op_type2 = ggmlviz_ggml_op_type(b);
		out->op_name2 = ggml_op_desc(b);
		out->name2 = b->name[0] ? b->name : NULL;
	}
}

/* ---- the callbacks ---- */

/* Sync mode: OP_COMPUTE_BEGIN, OP_INFO and OP_NODE for a node, remembered until handed over. */
static void ggmlviz_ggml__sync_begin(struct ggmlviz_ggml__inflight *f, struct ggml_tensor *t,
				     const void *backend)
{
	const char *label = t->name[0] ? t->name : NULL;
	int32_t layer = ggmlviz_ggml_layer(t);

	f->op_type = ggmlviz_ggml_op_type(t);
	f->size = (uint64_t)ggml_nbytes(t);
	f->backend = backend;
	ggmlviz_meta_once(GGMLVIZ_META_OP_NAME, f->op_type, ggml_op_desc(t));
	ggmlviz_op_begin(t, f->op_type, f->size, f->backend, label);
	ggmlviz_op_info(t, t->ne, ggmlviz_ggml_flops(t), ggml_type_name(t->type));
	if (ggmlviz_ggml__unnamed(t) && ggmlviz_ggml__named_layer > layer)
		layer = ggmlviz_ggml__named_layer; /* as ggmlviz_ggml__run_layer() */
	ggmlviz_op_node(t, layer, GGMLVIZ_METHOD_SYNC, 0,
			t->src[0] ? ggmlviz_ggml__seen_through(t->src[0]) : NULL,
			t->src[1] ? ggmlviz_ggml__seen_through(t->src[1]) : NULL);
	f->traced = true;
}

static bool ggmlviz_ggml__ask(struct ggml_tensor *t, void *user_data,
			      const struct ggmlviz_ggml__slot *slot)
{
	struct ggmlviz_ggml__inflight *f = &ggmlviz_ggml__flight;
	ggml_backend_sched_eval_callback chain =
		slot ? GGMLVIZ_GGML__LOAD(&slot->chain) : (ggml_backend_sched_eval_callback)NULL;
	const void *backend;

	f->tensor = t;
	f->traced = false;
	f->app_wants = chain && chain(t, true, GGMLVIZ_GGML__LOAD(&slot->chain_user_data));
	if (GGMLVIZ__ON(GGMLVIZ__MEMORY))
		ggmlviz_ggml__buffers_seen(t);
	if (!GGMLVIZ__ON(GGMLVIZ__OPS))
		return f->app_wants;
	backend = ggmlviz_ggml__node_backend(t, slot);
	ggmlviz_nodes_ask(t, backend, ggmlviz_ggml_describe, user_data);
	if (ggmlviz_ops_timing() != GGMLVIZ_OP_TIMING_SYNC)
		return f->app_wants;
	if (!ggmlviz_ggml__unnamed(t) && ggmlviz_layer_of_name(t->name, strlen(t->name)) >= 0)
		ggmlviz_ggml__named_layer = ggmlviz_layer_of_name(t->name, strlen(t->name));
	if (GGMLVIZ_GGML_TRACE_VIEWS || ggmlviz_ggml_node_computes(t))
		ggmlviz_ggml__sync_begin(f, t, backend);
	return f->traced || f->app_wants;
}

static bool ggmlviz_ggml__observe(struct ggml_tensor *t, const struct ggmlviz_ggml__slot *slot)
{
	struct ggmlviz_ggml__inflight *f = &ggmlviz_ggml__flight;
	struct ggmlviz_ggml__inflight was = *f;
	ggml_backend_sched_eval_callback chain;

	if (was.tensor != t)
		return true; /* not asked through this callback: nothing to end or pass on */
	f->tensor = NULL;
	if (was.traced)
		ggmlviz_op_end(t, was.op_type, was.size, was.backend, t->name[0] ? t->name : NULL);
	chain = slot ? GGMLVIZ_GGML__LOAD(&slot->chain) : (ggml_backend_sched_eval_callback)NULL;
	if (was.app_wants && chain)
		return chain(t, false, GGMLVIZ_GGML__LOAD(&slot->chain_user_data));
	return true;
}

bool ggmlviz_ggml_eval_cb(struct ggml_tensor *t, bool ask, void *user_data)
{
	const struct ggmlviz_ggml__slot *slot = ggmlviz_ggml__find_cached(user_data);

	return ask ? ggmlviz_ggml__ask(t, user_data, slot) : ggmlviz_ggml__observe(t, slot);
}

bool ggmlviz_ggml_abort_cb(void *data)
{
	const struct ggmlviz_ggml__slot *slot = (const struct ggmlviz_ggml__slot *)data;
	ggml_abort_callback chain;

	ggmlviz_nodes_tick();
	chain = slot ? GGMLVIZ_GGML__LOAD(&slot->abort_chain) : (ggml_abort_callback)NULL;
	return chain ? chain(GGMLVIZ_GGML__LOAD(&slot->abort_data)) : false;
}

/* ---- installing ---- */

int ggmlviz_ggml_chain(void *user_data, ggml_backend_sched_eval_callback chain,
		       void *chain_user_data)
{
	struct ggmlviz_ggml__slot *slot = ggmlviz_ggml__find(user_data);

	if (chain == ggmlviz_ggml_eval_cb)
		return -EINVAL;
	if (!slot && !chain)
		return 0;
	if (!slot && !(slot = ggmlviz_ggml__slot_for(user_data, false)))
		return -ENOSPC;
	GGMLVIZ_GGML__STORE(&slot->chain, chain);
	GGMLVIZ_GGML__STORE(&slot->chain_user_data, chain_user_data);
	if (!chain && !slot->is_sched && !GGMLVIZ_GGML__LOAD(&slot->abort_chain))
		ggmlviz_ggml__release(slot); /* nothing left to hold */
	return 0;
}

/* Sets the abort callback of every CPU backend of sched. */
static void ggmlviz_ggml__set_abort(ggml_backend_sched_t sched, ggml_abort_callback cb, void *data)
{
	for (int i = 0; i < ggml_backend_sched_get_n_backends(sched); i++) {
		ggml_backend_t b = ggml_backend_sched_get_backend(sched, i);
		ggml_backend_dev_t dev = ggml_backend_get_device(b);
		ggml_backend_reg_t reg = dev ? ggml_backend_dev_backend_reg(dev) : NULL;
		ggml_backend_set_abort_callback_t set = NULL;
		void *proc;

		if (!dev || ggml_backend_dev_type(dev) != GGML_BACKEND_DEVICE_TYPE_CPU || !reg)
			continue;
		proc = ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback");
		memcpy(&set, &proc, sizeof set); /* POSIX: a function's address as a void * */
		if (set)
			set(b, cb, data);
	}
}

int ggmlviz_ggml_trace_sched(ggml_backend_sched_t sched, int n_threads,
			     ggml_backend_sched_eval_callback chain, void *chain_user_data)
{
	struct ggmlviz_ggml__slot *slot;

	if (!sched || n_threads < 0 || chain == ggmlviz_ggml_eval_cb)
		return -EINVAL;
	if (!(slot = ggmlviz_ggml__slot_for(sched, true)))
		return -ENOSPC;
	GGMLVIZ_GGML__STORE(&slot->chain, chain);
	GGMLVIZ_GGML__STORE(&slot->chain_user_data, chain_user_data);
	GGMLVIZ_GGML__STORE(&slot->n_threads, n_threads);
	ggml_backend_sched_set_eval_callback(sched, ggmlviz_ggml_eval_cb, sched);
	ggmlviz_ggml__set_abort(sched, ggmlviz_ggml_abort_cb, slot);
	return 0;
}

int ggmlviz_ggml_chain_abort(ggml_backend_sched_t sched, ggml_abort_callback abort_cb,
			     void *abort_data)
{
	struct ggmlviz_ggml__slot *slot = sched ? ggmlviz_ggml__find(sched) : NULL;

	if (!slot || !slot->is_sched || abort_cb == ggmlviz_ggml_abort_cb)
		return -EINVAL;
	GGMLVIZ_GGML__STORE(&slot->abort_data, abort_data);
	GGMLVIZ_GGML__STORE(&slot->abort_chain, abort_cb);
	return 0;
}

void ggmlviz_ggml_untrace_sched(ggml_backend_sched_t sched)
{
	struct ggmlviz_ggml__slot *slot = sched ? ggmlviz_ggml__find(sched) : NULL;

	if (!sched)
		return;
	if (!slot) {
		ggml_backend_sched_set_eval_callback(sched, NULL, NULL);
		return;
	}
	ggml_backend_sched_set_eval_callback(sched, GGMLVIZ_GGML__LOAD(&slot->chain),
					     GGMLVIZ_GGML__LOAD(&slot->chain_user_data));
	ggmlviz_ggml__set_abort(sched, GGMLVIZ_GGML__LOAD(&slot->abort_chain),
				GGMLVIZ_GGML__LOAD(&slot->abort_data));
	GGMLVIZ_GGML__STORE(&slot->chain, (ggml_backend_sched_eval_callback)NULL);
	GGMLVIZ_GGML__STORE(&slot->abort_chain, (ggml_abort_callback)NULL);
	GGMLVIZ_GGML__STORE(&slot->n_threads, 0);
	ggmlviz_ggml__release(slot);
}

/* ---- graph computations ---- */

static uint32_t ggmlviz_ggml__n_nodes(struct ggml_cgraph *g)
{
	int n = ggml_graph_n_nodes(g);

	return n > 0 ? (uint32_t)n : 0;
}

/* A scheduler with one backend computes its graphs there; with several,
 * the graph's backend is unknown (NULL). */
static ggml_backend_t ggmlviz_ggml__sched_backend(ggml_backend_sched_t s)
{
	return ggml_backend_sched_get_n_backends(s) == 1 ? ggml_backend_sched_get_backend(s, 0)
							   : NULL;
}

/* GRAPH_COMPUTE_BEGIN, after naming the backend the first time it is seen. */
static void ggmlviz_ggml__graph_begin(struct ggml_cgraph *g, int n_threads, ggml_backend_t backend)
{
	if (backend && ggmlviz_is_active())
		ggmlviz_ggml__name_backend(backend, ggml_backend_name(backend));
	ggmlviz_graph_begin(g, ggmlviz_ggml__n_nodes(g), n_threads > 0 ? (uint32_t)n_threads : 0,
			    backend);
}

/* The graph's last run, then GRAPH_COMPUTE_END. */
static void ggmlviz_ggml__graph_end(struct ggml_cgraph *g, int n_threads, ggml_backend_t backend)
{
	ggmlviz_nodes_flush();
	ggmlviz_graph_end(g, ggmlviz_ggml__n_nodes(g), n_threads > 0 ? (uint32_t)n_threads : 0,
			  backend);
}

enum ggml_status ggmlviz_ggml_sched_graph_compute(ggml_backend_sched_t s, struct ggml_cgraph *g)
{
	const struct ggmlviz_ggml__slot *slot = ggmlviz_ggml__find(s);
	int n_threads = slot ? GGMLVIZ_GGML__LOAD(&slot->n_threads) : 0;
	ggml_backend_t backend = ggmlviz_ggml__sched_backend(s);
	enum ggml_status status;

	ggmlviz_ggml__graph_begin(g, n_threads, backend);
	status = ggml_backend_sched_graph_compute(s, g);
	ggmlviz_ggml__graph_end(g, n_threads, backend);
	return status;
}

enum ggml_status ggmlviz_ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph *g,
						    int n_threads)
{
	enum ggml_status status;

	ggmlviz_ggml__graph_begin(g, n_threads, backend);
	status = ggml_backend_graph_compute(backend, g);
	ggmlviz_ggml__graph_end(g, n_threads, backend);
	return status;
}
/** @endcond */
#endif /* GGMLVIZ_GGML_IMPLEMENTATION */

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_GGML_H */
