/*
 * libggmlviz: tracing GGML programs (header-only adapter).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GGML_H
#define GGMLVIZ_GGML_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
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
#include <ggmlviz/tracer.h>

/**
 * @file ggml.h
 * @brief Trace a GGML program: one begin/end pair per computed node, and
 * one per graph computation.
 *
 * Include it after GGML's own headers. It is header-only: it adds nothing
 * to libggmlviz's dependencies, and a program that includes it links with
 * GGML and libggmlviz as usual. It compiles as C11 and as C++11.
 *
 * Tracing a program that computes through a scheduler takes one line after
 * the scheduler is made, and tracing must be started as usual:
 * @code
 * #include <ggml.h>
 * #include <ggml-backend.h>
 * #include <ggmlviz/ggml.h>
 *
 * ggmlviz_start(NULL);                             // GGML_VIZ_OUTPUT, ...
 * ggmlviz_ggml_trace_sched(sched, n_threads, NULL, NULL);
 * ...
 * ggmlviz_ggml_sched_graph_compute(sched, graph);  // adds GRAPH begin/end
 * @endcode
 * In llama.cpp, set `llama_context_params.cb_eval = ggmlviz_ggml_eval_cb`
 * and `cb_eval_user_data = NULL`.
 *
 * What a trace holds:
 * - For each node that computes something, OP_COMPUTE_BEGIN when the
 *   scheduler asks whether the node is wanted and OP_COMPUTE_END when it
 *   hands the computed node over, with the node's name as label, its op
 *   type (ggmlviz_ggml_op_type()), its output size in bytes and its
 *   backend; between the two, an OP_INFO record with the output's shape,
 *   element type and estimated work (ggmlviz_ggml_flops()). Answering
 *   "wanted" makes the scheduler synchronize after each node: that is what
 *   times the nodes one by one, on any backend. Nodes that compute nothing
 *   (views, reshapes, permutes, transposes, GGML_OP_NONE, empty tensors)
 *   are not split out, unless #GGMLVIZ_GGML_TRACE_VIEWS is 1.
 * - A META OP_NAME record the first time an op type is seen in a tracing
 *   session, named by ggml_op_desc(), so that the trace names its own ops
 *   (`enum ggml_op` numbering differs between GGML versions), and a META
 *   BACKEND_NAME record the first time a backend is seen.
 * - GRAPH_COMPUTE_BEGIN/END around each graph computed through
 *   ggmlviz_ggml_sched_graph_compute(), ggmlviz_ggml_backend_graph_compute()
 *   or ggmlviz_ggml_graph_compute_with_ctx(), with the node and thread
 *   counts. Readers number the graph runs in order (ggmlviz_timing's
 *   graph_seq), so the same tensor in the next run is another op.
 *
 * When tracing is not active (or op timing is off), the callback answers
 * what the chained callback answers, or "not wanted": the scheduler then
 * computes each split in one go, as without a callback.
 *
 * The adapter's state (the chained callbacks, which names were recorded,
 * the node in flight on each thread) is per translation unit, as the
 * functions are static: install the callback and configure it from the same
 * source file. It is safe to use from several threads, each computing with
 * its own scheduler. It needs GCC or Clang (atomic builtins, __thread).
 */

#if !defined(__GNUC__) && !defined(__clang__)
#error "<ggmlviz/ggml.h> needs the __atomic builtins and __thread of GCC or Clang"
#endif

#ifndef GGMLVIZ_GGML_TRACE_VIEWS
/**
 * @brief 1 to also time the nodes that compute nothing (views, reshapes,
 * permutes, transposes, GGML_OP_NONE, empty tensors); 0 by default.
 *
 * Define it before including this header. Each such node then costs a
 * scheduler synchronization, for no work.
 */
#define GGMLVIZ_GGML_TRACE_VIEWS 0
#endif

#ifndef GGMLVIZ_GGML_MAX_SCHEDS
/**
 * @brief How many schedulers (or user_data values) a translation unit can
 * trace at one time with ggmlviz_ggml_trace_sched() or ggmlviz_ggml_chain();
 * 16 by default. Define it before including this header to change it.
 */
#define GGMLVIZ_GGML_MAX_SCHEDS 16
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @cond GGMLVIZ_INTERNAL */
#define GGMLVIZ_GGML__LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define GGMLVIZ_GGML__STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define GGMLVIZ_GGML__XCHG(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQ_REL)
#define GGMLVIZ_GGML__CAS(p, expected, v) \
	__atomic_compare_exchange_n((p), (expected), (v), false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define GGMLVIZ_GGML__NAME_SLOTS 256u
#define GGMLVIZ_GGML__SLOT_FREE 0u
#define GGMLVIZ_GGML__SLOT_BUSY 1u
#define GGMLVIZ_GGML__SLOT_READY 2u

/* The keys already named in a session: set once, never removed; each with
 * the session it was last named in. */
struct ggmlviz_ggml__names {
	uint64_t key[GGMLVIZ_GGML__NAME_SLOTS];
	uint64_t session[GGMLVIZ_GGML__NAME_SLOTS];
};

/* What one scheduler (or user_data value) was traced with. */
struct ggmlviz_ggml__slot {
	unsigned int state; /* GGMLVIZ_GGML__SLOT_* */
	void *key;
	ggml_backend_sched_eval_callback chain;
	void *chain_user_data;
	int n_threads;
};

/* The node a thread answered "wanted" for, until the scheduler observes it. */
struct ggmlviz_ggml__inflight {
	const struct ggml_tensor *tensor;
	bool traced;    /* its OP_COMPUTE_BEGIN was recorded */
	bool app_wants; /* the chained callback asked to observe it */
	uint32_t op_type;
	uint64_t size;
	const void *backend;
};

static inline struct ggmlviz_ggml__names *ggmlviz_ggml__op_names(void)
{
	static struct ggmlviz_ggml__names names;

	return &names;
}

static inline struct ggmlviz_ggml__names *ggmlviz_ggml__backend_names(void)
{
	static struct ggmlviz_ggml__names names;

	return &names;
}

static inline struct ggmlviz_ggml__slot *ggmlviz_ggml__slots(void)
{
	static struct ggmlviz_ggml__slot slots[GGMLVIZ_GGML_MAX_SCHEDS];

	return slots;
}

static inline struct ggmlviz_ggml__inflight *ggmlviz_ggml__inflight(void)
{
	static __thread struct ggmlviz_ggml__inflight inflight;

	return &inflight;
}

/* Claims the slot for key in a set that only grows; -1 when it is full. */
static inline int ggmlviz_ggml__names_slot(struct ggmlviz_ggml__names *names, uint64_t key)
{
	unsigned int i = (unsigned int)((key * 0x9e3779b97f4a7c15u) >> 56);

	for (unsigned int probe = 0; probe < GGMLVIZ_GGML__NAME_SLOTS; probe++) {
		unsigned int at = (i + probe) & (GGMLVIZ_GGML__NAME_SLOTS - 1u); /* a power of two */
		uint64_t seen = GGMLVIZ_GGML__LOAD(&names->key[at]);

		if (seen == 0 && GGMLVIZ_GGML__CAS(&names->key[at], &seen, key))
			return (int)at;
		if (seen == key)
			return (int)at; /* ours, or another thread's claim of the same key */
	}
	return -1;
}

/* True for the first caller that sees key (never 0) in this session. */
static inline bool ggmlviz_ggml__first_in_session(struct ggmlviz_ggml__names *names, uint64_t key)
{
	uint64_t session = ggmlviz_session();
	int at = ggmlviz_ggml__names_slot(names, key);

	if (at < 0)
		return true; /* full: naming again is harmless */
	return GGMLVIZ_GGML__XCHG(&names->session[at], session) != session;
}

static inline void ggmlviz_ggml__name_backend(const void *backend, const char *name)
{
	if (backend && ggmlviz_ggml__first_in_session(ggmlviz_ggml__backend_names(),
							(uint64_t)(uintptr_t)backend))
		ggmlviz_meta(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)backend, 0, 0, name);
}

static inline struct ggmlviz_ggml__slot *ggmlviz_ggml__find(const void *key)
{
	struct ggmlviz_ggml__slot *slots = ggmlviz_ggml__slots();

	for (int i = 0; i < GGMLVIZ_GGML_MAX_SCHEDS; i++)
		if (GGMLVIZ_GGML__LOAD(&slots[i].state) == GGMLVIZ_GGML__SLOT_READY &&
		    GGMLVIZ_GGML__LOAD(&slots[i].key) == key)
			return &slots[i];
	return NULL;
}

static inline struct ggmlviz_ggml__slot *ggmlviz_ggml__claim(void *key)
{
	struct ggmlviz_ggml__slot *slots = ggmlviz_ggml__slots();

	for (int i = 0; i < GGMLVIZ_GGML_MAX_SCHEDS; i++) {
		unsigned int free_state = GGMLVIZ_GGML__SLOT_FREE;

		if (GGMLVIZ_GGML__CAS(&slots[i].state, &free_state, GGMLVIZ_GGML__SLOT_BUSY)) {
			GGMLVIZ_GGML__STORE(&slots[i].key, key);
			return &slots[i];
		}
	}
	return NULL;
}

/* Records what key is traced with: its own slot, a new one, or -ENOSPC. */
static inline int ggmlviz_ggml__set_slot(void *key, int n_threads,
					 ggml_backend_sched_eval_callback chain,
					 void *chain_user_data)
{
	struct ggmlviz_ggml__slot *slot = ggmlviz_ggml__find(key);

	if (!slot && !(slot = ggmlviz_ggml__claim(key)))
		return -ENOSPC;
	GGMLVIZ_GGML__STORE(&slot->chain, chain);
	GGMLVIZ_GGML__STORE(&slot->chain_user_data, chain_user_data);
	GGMLVIZ_GGML__STORE(&slot->n_threads, n_threads);
	GGMLVIZ_GGML__STORE(&slot->state, GGMLVIZ_GGML__SLOT_READY);
	return 0;
}

static inline bool ggmlviz_ggml__tracing_ops(void)
{
	return GGMLVIZ__ON(GGMLVIZ__OPS);
}

static inline bool ggmlviz_ggml__is_view_op(enum ggml_op op)
{
	return op == GGML_OP_NONE || op == GGML_OP_VIEW || op == GGML_OP_RESHAPE ||
	       op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}

static inline uint64_t ggmlviz_ggml__u64(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}
/** @endcond */

/**
 * @brief Tells whether a node computes something, and so gets its own
 * begin/end pair.
 *
 * @param t a graph node (borrowed).
 * @return false for the nodes that only describe other tensors' data
 *         (GGML_OP_NONE, VIEW, RESHAPE, PERMUTE, TRANSPOSE) and for empty
 *         tensors, which GGML's backends skip; true for every other node.
 */
static inline bool ggmlviz_ggml_node_computes(const struct ggml_tensor *t)
{
	return !ggmlviz_ggml__is_view_op(t->op) && !ggml_is_empty(t);
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

/** @cond GGMLVIZ_INTERNAL */
/* The backend of a node, and its name the first time it is seen: the
 * scheduler's backend for the node, else the buffer type that holds it. */
static inline const void *ggmlviz_ggml__node_backend(struct ggml_tensor *t, void *user_data)
{
	const struct ggml_tensor *data = t->view_src ? t->view_src : t;
	ggml_backend_buffer_type_t buft;
	ggml_backend_t backend;

	if (user_data) {
		backend = ggml_backend_sched_get_tensor_backend((ggml_backend_sched_t)user_data, t);
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

/* OP_COMPUTE_BEGIN and OP_INFO for a node, remembered until it is observed. */
static inline void ggmlviz_ggml__begin(struct ggmlviz_ggml__inflight *f, struct ggml_tensor *t,
				       void *user_data)
{
	const char *label = t->name[0] ? t->name : NULL;

	f->op_type = ggmlviz_ggml_op_type(t);
	f->size = (uint64_t)ggml_nbytes(t);
	f->backend = ggmlviz_ggml__node_backend(t, user_data);
	if (ggmlviz_ggml__first_in_session(ggmlviz_ggml__op_names(), (uint64_t)f->op_type + 1))
		ggmlviz_meta(GGMLVIZ_META_OP_NAME, f->op_type, 0, 0, ggml_op_desc(t));
	ggmlviz_op_begin(t, f->op_type, f->size, f->backend, label);
	ggmlviz_op_info(t, t->ne, ggmlviz_ggml_flops(t), ggml_type_name(t->type));
	f->traced = true;
}

static inline bool ggmlviz_ggml__ask(struct ggml_tensor *t, void *user_data,
				     const struct ggmlviz_ggml__slot *slot)
{
	struct ggmlviz_ggml__inflight *f = ggmlviz_ggml__inflight();
	ggml_backend_sched_eval_callback chain =
		slot ? GGMLVIZ_GGML__LOAD(&slot->chain) : (ggml_backend_sched_eval_callback)NULL;

	f->tensor = t;
	f->traced = false;
	f->app_wants = chain && chain(t, true, GGMLVIZ_GGML__LOAD(&slot->chain_user_data));
	if (ggmlviz_ggml__tracing_ops() &&
	    (GGMLVIZ_GGML_TRACE_VIEWS || ggmlviz_ggml_node_computes(t)))
		ggmlviz_ggml__begin(f, t, user_data);
	return f->traced || f->app_wants;
}

static inline bool ggmlviz_ggml__observe(struct ggml_tensor *t,
					 const struct ggmlviz_ggml__slot *slot)
{
	struct ggmlviz_ggml__inflight *f = ggmlviz_ggml__inflight();
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
/** @endcond */

/**
 * @brief The eval callback: times each node that computes something.
 *
 * Give it to ggml_backend_sched_set_eval_callback() (ggmlviz_ggml_trace_sched()
 * does), or as llama.cpp's `llama_context_params.cb_eval`. When the
 * scheduler asks about a node (@p ask true) and tracing is active with op
 * timing on, it records OP_COMPUTE_BEGIN (and the OP_NAME, BACKEND_NAME
 * and OP_INFO records described in ggml.h) and answers true for a node
 * that computes something (ggmlviz_ggml_node_computes()); when the
 * scheduler then hands the computed node over (@p ask false), it records
 * OP_COMPUTE_END.
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
 *        for @p t is recorded), or NULL (the buffer type holding @p t is
 *        recorded as its backend, as in llama.cpp's cb_eval).
 * @return on an ask: whether the scheduler should stop after @p t and hand
 *         it over; on a hand-over: whether the graph goes on.
 */
static inline bool ggmlviz_ggml_eval_cb(struct ggml_tensor *t, bool ask, void *user_data)
{
	const struct ggmlviz_ggml__slot *slot = ggmlviz_ggml__find(user_data);

	return ask ? ggmlviz_ggml__ask(t, user_data, slot) : ggmlviz_ggml__observe(t, slot);
}

/**
 * @brief Chains a callback for the calls that ggmlviz_ggml_eval_cb() gets
 * with a given user_data, without installing anything.
 *
 * For llama.cpp, whose `cb_eval` slot an application may already use: set
 * `cb_eval = ggmlviz_ggml_eval_cb`, `cb_eval_user_data = NULL`, and chain
 * the application's callback with `ggmlviz_ggml_chain(NULL, its_cb,
 * its_user_data)`, in the same source file.
 *
 * @param user_data the user_data that ggmlviz_ggml_eval_cb() is called with
 *        (a scheduler, or NULL).
 * @param chain the callback to pass calls on to, or NULL to pass nothing on.
 * @param chain_user_data given to @p chain (borrowed).
 * @return 0 on success; -EINVAL if @p chain is ggmlviz_ggml_eval_cb itself;
 *         -ENOSPC if #GGMLVIZ_GGML_MAX_SCHEDS user_data values already have
 *         a chain or a traced scheduler in this translation unit.
 */
static inline int ggmlviz_ggml_chain(void *user_data, ggml_backend_sched_eval_callback chain,
				     void *chain_user_data)
{
	struct ggmlviz_ggml__slot *slot = ggmlviz_ggml__find(user_data);

	if (chain == ggmlviz_ggml_eval_cb)
		return -EINVAL;
	if (!slot && !chain)
		return 0;
	return ggmlviz_ggml__set_slot(user_data, slot ? GGMLVIZ_GGML__LOAD(&slot->n_threads) : 0,
				      chain, chain_user_data);
}

/**
 * @brief Traces every node a scheduler computes: installs
 * ggmlviz_ggml_eval_cb() on it, chaining the application's own callback.
 *
 * GGML cannot tell which eval callback a scheduler has, so an application
 * that set one passes it here; it then gets every call it got before (see
 * ggmlviz_ggml_eval_cb()). Calling it again for the same scheduler replaces
 * the thread count and the chained callback. Call ggmlviz_ggml_untrace_sched()
 * before freeing the scheduler.
 *
 * @param sched the scheduler (borrowed; its eval callback is replaced).
 * @param n_threads the threads its CPU backend computes with (what the
 *        application gave ggml_backend_cpu_set_n_threads()), recorded in
 *        GRAPH_COMPUTE_BEGIN/END by ggmlviz_ggml_sched_graph_compute(); 0
 *        if unknown.
 * @param chain the eval callback the application had set, or NULL.
 * @param chain_user_data the user_data it had set with it (borrowed).
 * @return 0 on success; -EINVAL if @p sched is NULL, @p n_threads is
 *         negative or @p chain is ggmlviz_ggml_eval_cb itself; -ENOSPC if
 *         #GGMLVIZ_GGML_MAX_SCHEDS schedulers are already traced in this
 *         translation unit. On failure the scheduler is left as it was.
 */
static inline int ggmlviz_ggml_trace_sched(ggml_backend_sched_t sched, int n_threads,
					   ggml_backend_sched_eval_callback chain,
					   void *chain_user_data)
{
	int rc;

	if (!sched || n_threads < 0 || chain == ggmlviz_ggml_eval_cb)
		return -EINVAL;
	rc = ggmlviz_ggml__set_slot(sched, n_threads, chain, chain_user_data);
	if (rc == 0)
		ggml_backend_sched_set_eval_callback(sched, ggmlviz_ggml_eval_cb, sched);
	return rc;
}

/**
 * @brief Stops tracing a scheduler's nodes: puts back the callback chained
 * by ggmlviz_ggml_trace_sched() (or none), and forgets the scheduler.
 *
 * Call it before ggml_backend_sched_free(), so that a later scheduler at
 * the same address does not inherit its settings. Not while the scheduler
 * is computing.
 *
 * @param sched the scheduler, or NULL (nothing happens). One that was not
 *        traced gets no eval callback.
 */
static inline void ggmlviz_ggml_untrace_sched(ggml_backend_sched_t sched)
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
	GGMLVIZ_GGML__STORE(&slot->state, GGMLVIZ_GGML__SLOT_FREE);
}

/** @cond GGMLVIZ_INTERNAL */
static inline uint32_t ggmlviz_ggml__n_nodes(struct ggml_cgraph *g)
{
	int n = ggml_graph_n_nodes(g);

	return n > 0 ? (uint32_t)n : 0;
}

static inline uint32_t ggmlviz_ggml__n_threads(int n)
{
	return n > 0 ? (uint32_t)n : 0;
}

/* A scheduler with one backend computes its graphs there; with several,
 * the graph's backend is unknown (NULL). */
static inline ggml_backend_t ggmlviz_ggml__sched_backend(ggml_backend_sched_t s)
{
	return ggml_backend_sched_get_n_backends(s) == 1 ? ggml_backend_sched_get_backend(s, 0)
							   : NULL;
}

/* GRAPH_COMPUTE_BEGIN, after naming the backend the first time it is seen. */
static inline void ggmlviz_ggml__graph_begin(struct ggml_cgraph *g, int n_threads,
					     ggml_backend_t backend)
{
	if (backend && ggmlviz_is_active())
		ggmlviz_ggml__name_backend(backend, ggml_backend_name(backend));
	ggmlviz_graph_begin(g, ggmlviz_ggml__n_nodes(g), ggmlviz_ggml__n_threads(n_threads),
			    backend);
}

static inline void ggmlviz_ggml__graph_end(struct ggml_cgraph *g, int n_threads,
					   ggml_backend_t backend)
{
	ggmlviz_graph_end(g, ggmlviz_ggml__n_nodes(g), ggmlviz_ggml__n_threads(n_threads), backend);
}
/** @endcond */

/**
 * @brief ggml_backend_sched_graph_compute() between GRAPH_COMPUTE_BEGIN and
 * GRAPH_COMPUTE_END.
 *
 * The records carry @p g's address, its node count, the thread count given
 * to ggmlviz_ggml_trace_sched() (0 if the scheduler was not traced that
 * way) and the scheduler's backend when it has only one (NULL otherwise).
 * The nodes are timed only if the scheduler's eval callback is
 * ggmlviz_ggml_eval_cb().
 *
 * @param s the scheduler (borrowed).
 * @param g the graph (borrowed).
 * @return what ggml_backend_sched_graph_compute() returned.
 */
static inline enum ggml_status ggmlviz_ggml_sched_graph_compute(ggml_backend_sched_t s,
								 struct ggml_cgraph *g)
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

/**
 * @brief ggml_backend_graph_compute() between GRAPH_COMPUTE_BEGIN and
 * GRAPH_COMPUTE_END.
 *
 * Only the whole graph is timed: a backend computing a graph by itself
 * calls no eval callback.
 *
 * @param backend the backend (borrowed), named in a BACKEND_NAME record the
 *        first time it is seen.
 * @param g the graph (borrowed).
 * @param n_threads the threads the backend computes with, recorded; 0 if
 *        unknown or not meaningful (a GPU).
 * @return what ggml_backend_graph_compute() returned.
 */
static inline enum ggml_status ggmlviz_ggml_backend_graph_compute(ggml_backend_t backend,
								   struct ggml_cgraph *g,
								   int n_threads)
{
	enum ggml_status status;

	ggmlviz_ggml__graph_begin(g, n_threads, backend);
	status = ggml_backend_graph_compute(backend, g);
	ggmlviz_ggml__graph_end(g, n_threads, backend);
	return status;
}

/**
 * @brief ggml_graph_compute_with_ctx() between GRAPH_COMPUTE_BEGIN and
 * GRAPH_COMPUTE_END, for a plain CPU graph.
 *
 * A program that calls it links with the CPU backend's library
 * (libggml-cpu.so, or a variant such as libggml-cpu-x64.so); others do
 * not. Only the whole graph is timed, recorded with no backend (CPU).
 *
 * @param ctx the context the work buffer is allocated in (borrowed).
 * @param g the graph (borrowed).
 * @param n_threads the threads to compute with, as for
 *        ggml_graph_compute_with_ctx(); recorded.
 * @return what ggml_graph_compute_with_ctx() returned.
 */
static inline enum ggml_status ggmlviz_ggml_graph_compute_with_ctx(struct ggml_context *ctx,
								    struct ggml_cgraph *g,
								    int n_threads)
{
	enum ggml_status status;

	ggmlviz_ggml__graph_begin(g, n_threads, NULL);
	status = ggml_graph_compute_with_ctx(ctx, g, n_threads);
	ggmlviz_ggml__graph_end(g, n_threads, NULL);
	return status;
}

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_GGML_H */
