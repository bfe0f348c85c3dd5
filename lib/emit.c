/*
 * The public emit functions: each fills one record's payload, every byte
 * of it (the ring holds stale bytes from its previous lap).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "emit.h"

/* The address only: the tracer never reads through the pointers it records. */
static inline uint64_t addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

uint32_t ggmlviz__label_cut(struct ggmlviz__ring *r, const char *label)
{
	uint32_t n = GGMLVIZ_LABEL_MAX;

	/* Never split a UTF-8 sequence: back up over continuation bytes. */
	while (n > 0 && ((unsigned char)label[n] & 0xC0) == 0x80)
		n--;
	atomic_fetch_add_explicit(&r->labels_truncated, 1, memory_order_relaxed);
	return n;
}

static inline void put_op(uint8_t *pl, uint64_t tensor, uint32_t op_type, uint64_t op_size,
			  uint64_t backend)
{
	put_u64(pl + OP_TENSOR, tensor);
	put_u32(pl + OP_TYPE, op_type);
	put_u32(pl + OP_HOLE, 0);
	put_u64(pl + OP_SIZE, op_size);
	put_u64(pl + OP_BACKEND, backend);
}

static inline void put_graph(uint8_t *pl, uint64_t graph, uint32_t n_nodes, uint32_t n_threads,
			     uint64_t backend)
{
	put_u64(pl + GRAPH_PTR, graph);
	put_u32(pl + GRAPH_NODES, n_nodes);
	put_u32(pl + GRAPH_THREADS, n_threads);
	put_u64(pl + GRAPH_BACKEND, backend);
	put_u64(pl + GRAPH_ZERO, 0);
}

static inline void put_memory(uint8_t *pl, uint64_t ptr, uint64_t size)
{
	put_u64(pl + MEM_PTR, ptr);
	put_u64(pl + MEM_SIZE, size);
	put_u64(pl + MEM_ZERO, 0);
	put_u64(pl + MEM_ZERO + 8, 0);
}

static inline void put_user(uint8_t *pl, uint64_t value)
{
	put_u64(pl + USER_VALUE, value);
	memset(pl + USER_ZERO, 0, GGMLVIZ_PAYLOAD_SIZE - USER_ZERO);
}

static inline void emit_op(uint8_t type, uint64_t tensor, uint32_t op_type, uint64_t op_size,
			   uint64_t backend, const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, type, label, GGMLVIZ__NAMES);

	if (!pl)
		return;
	put_op(pl, tensor, op_type, op_size, backend);
	ggmlviz__emit_close(&e);
}

static inline void emit_graph(uint8_t type, uint64_t graph, uint32_t n_nodes,
			      uint32_t n_threads, uint64_t backend)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, type, NULL, 0);

	if (!pl)
		return;
	put_graph(pl, graph, n_nodes, n_threads, backend);
	ggmlviz__emit_close(&e);
}

static inline void emit_memory(unsigned bits, uint8_t type, uint64_t ptr, uint64_t size,
			       const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, bits, type, label, 0);

	if (!pl)
		return;
	put_memory(pl, ptr, size);
	ggmlviz__emit_close(&e);
}

static inline void emit_user(uint8_t type, const char *name, uint64_t value)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, type, name, 0);

	if (!pl)
		return;
	put_user(pl, value);
	ggmlviz__emit_close(&e);
}

void ggmlviz_graph_begin(const void *graph, uint32_t n_nodes, uint32_t n_threads,
			 const void *backend)
{
	emit_graph(GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN, addr(graph), n_nodes, n_threads, addr(backend));
}

void ggmlviz_graph_end(const void *graph, uint32_t n_nodes, uint32_t n_threads,
		       const void *backend)
{
	emit_graph(GGMLVIZ_EVENT_GRAPH_COMPUTE_END, addr(graph), n_nodes, n_threads, addr(backend));
}

void ggmlviz_op_begin(const void *tensor, uint32_t op_type, uint64_t op_size,
		      const void *backend, const char *label)
{
	emit_op(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, addr(tensor), op_type, op_size, addr(backend), label);
}

void ggmlviz_op_end(const void *tensor, uint32_t op_type, uint64_t op_size,
		    const void *backend, const char *label)
{
	emit_op(GGMLVIZ_EVENT_OP_COMPUTE_END, addr(tensor), op_type, op_size, addr(backend), label);
}

static inline uint32_t dim(const int64_t *ne, int i)
{
	if (!ne || ne[i] < 0)
		return 0;
	return ne[i] > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)ne[i];
}

void ggmlviz_op_info(const void *tensor, const int64_t ne[4], uint64_t flops,
		     const char *type_name)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, GGMLVIZ_EVENT_OP_INFO, type_name, 0);

	if (!pl)
		return;
	put_u64(pl + INFO_TENSOR, addr(tensor));
	for (int i = 0; i < 4; i++)
		put_u32(pl + INFO_NE + 4 * i, dim(ne, i));
	put_u64(pl + INFO_FLOPS, flops);
	ggmlviz__emit_close(&e);
}

void ggmlviz_tensor_alloc(const void *ptr, uint64_t size, const char *label)
{
	emit_memory(GGMLVIZ__MEMORY, GGMLVIZ_EVENT_TENSOR_ALLOC, addr(ptr), size, label);
}

void ggmlviz_tensor_free(const void *ptr, uint64_t size, const char *label)
{
	emit_memory(GGMLVIZ__MEMORY, GGMLVIZ_EVENT_TENSOR_FREE, addr(ptr), size, label);
}

void ggmlviz_barrier_wait(const void *barrier, uint64_t waited_ns)
{
	emit_memory(GGMLVIZ__ACTIVE, GGMLVIZ_EVENT_BARRIER_WAIT, addr(barrier), waited_ns, NULL);
}

void ggmlviz__emit_thread_free(void)
{
	emit_memory(GGMLVIZ__THREADS, GGMLVIZ_EVENT_THREAD_FREE, 0, 0, NULL);
}

static int tracer_writes_kind(uint32_t kind)
{
	return kind == GGMLVIZ_META_PROCESS || kind == GGMLVIZ_META_DROPPED ||
	       kind == GGMLVIZ_META_TRACE_END;
}

void ggmlviz_meta(uint32_t kind, uint64_t key, uint64_t value, uint64_t value2,
		  const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl;

	if (tracer_writes_kind(kind))
		return; /* the accounting records are the tracer's own */
	pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, GGMLVIZ_EVENT_META, label, 0);
	if (!pl)
		return;
	put_u32(pl + META_KIND, kind);
	put_u32(pl + META_ZERO, 0);
	put_u64(pl + META_KEY, key);
	put_u64(pl + META_VALUE, value);
	put_u64(pl + META_VALUE2, value2);
	ggmlviz__emit_close(&e);
}

void ggmlviz_thread_name(const char *name)
{
	struct ggmlviz__ring *r;

	if (!name || !(__atomic_load_n(&ggmlviz__mask, __ATOMIC_RELAXED) & GGMLVIZ__ACTIVE))
		return;
	r = ggmlviz__thread_ring(); /* for its cached thread id: no gettid per call */
	if (r)
		ggmlviz_meta(GGMLVIZ_META_THREAD_NAME, r->tid, 0, 0, name);
}

void ggmlviz_mark(const char *name, uint64_t value)
{
	emit_user(GGMLVIZ_EVENT_MARK, name, value);
}

void ggmlviz_counter(const char *name, int64_t value)
{
	emit_user(GGMLVIZ_EVENT_COUNTER, name, (uint64_t)value);
}

void ggmlviz_scope_begin(const char *name, uint64_t value)
{
	emit_user(GGMLVIZ_EVENT_SCOPE_BEGIN, name, value);
}

void ggmlviz_scope_end(const char *name, uint64_t value)
{
	emit_user(GGMLVIZ_EVENT_SCOPE_END, name, value);
}
