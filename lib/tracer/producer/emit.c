/*
 * The public emit functions, in the order of tracer.h: each fills one
 * record's payload, every byte of it (the ring holds stale bytes from its
 * previous lap). Then the records the node engine stamps with times taken
 * earlier (producer.h). An op's begin and end are also its NVTX range at
 * level 2, and the names of META records those of the ranges (nvtx.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "tracer/producer/emit.h"
#include "tracer/producer/nvtx.h"
#include "tracer/producer/producer.h"

uint32_t ggmlviz__label_cut(struct ggmlviz__ring *r, const char *label)
{
	uint32_t n = GGMLVIZ_LABEL_MAX;

	/* Never split a UTF-8 sequence: back up over continuation bytes. */
	while (n > 0 && ((unsigned char)label[n] & 0xC0) == 0x80)
		n--;
	atomic_fetch_add_explicit(&r->labels_truncated, 1, memory_order_relaxed);
	return n;
}

static inline void emit_op(uint8_t type, uint64_t tensor, uint32_t op_type, uint64_t op_size,
			   uint64_t backend, const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, type, label, GGMLVIZ__NAMES, 0);

	if (!pl)
		return;
	ggmlviz__put_op(pl, tensor, op_type, op_size, backend);
	ggmlviz__emit_close(&e);
}

static inline void emit_memory(unsigned bits, uint8_t type, uint64_t ptr, uint64_t size,
			       const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, bits, type, label, 0, 0);

	if (!pl)
		return;
	ggmlviz__put_memory(pl, ptr, size);
	ggmlviz__emit_close(&e);
}

static inline void emit_user(uint8_t type, const char *name, uint64_t value)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, type, name, 0, 0);

	if (!pl)
		return;
	ggmlviz__put_user(pl, value);
	ggmlviz__emit_close(&e);
}

/*
 * An op's begin or end with its NVTX range: apart, so that the common path
 * (no range) keeps its tail call to emit_op() without a frame of its own.
 */
__attribute__((noinline, cold)) static void op_with_range(uint8_t type, uint64_t tensor,
							  uint32_t op_type, uint64_t op_size,
							  uint64_t backend, const char *label)
{
	if (type == GGMLVIZ_EVENT_OP_COMPUTE_BEGIN)
		ggmlviz__nvtx_op(op_type, label);
	else
		ggmlviz__nvtx_end(GGMLVIZ__NVTX_OP);
	emit_op(type, tensor, op_type, op_size, backend, label);
}

void ggmlviz_op_begin(const void *tensor, uint32_t op_type, uint64_t op_size,
		      const void *backend, const char *label)
{
	if (GGMLVIZ__UNLIKELY(ggmlviz__mask_now() & GGMLVIZ__NVTX_OPS))
		op_with_range(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, ggmlviz__addr(tensor), op_type, op_size,
			      ggmlviz__addr(backend), label);
	else
		emit_op(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, ggmlviz__addr(tensor), op_type, op_size,
			ggmlviz__addr(backend), label);
}

void ggmlviz_op_end(const void *tensor, uint32_t op_type, uint64_t op_size,
		    const void *backend, const char *label)
{
	if (GGMLVIZ__UNLIKELY(ggmlviz__nvtx_maybe_open()))
		op_with_range(GGMLVIZ_EVENT_OP_COMPUTE_END, ggmlviz__addr(tensor), op_type, op_size,
			      ggmlviz__addr(backend), label);
	else
		emit_op(GGMLVIZ_EVENT_OP_COMPUTE_END, ggmlviz__addr(tensor), op_type, op_size,
			ggmlviz__addr(backend), label);
}

void ggmlviz_op_info(const void *tensor, const int64_t ne[4], uint64_t flops,
		     const char *type_name)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, GGMLVIZ_EVENT_OP_INFO, type_name, 0, 0);

	if (!pl)
		return;
	ggmlviz__put_op_info(pl, ggmlviz__addr(tensor), ne, flops);
	ggmlviz__emit_close(&e);
}

void ggmlviz_op_node(const void *tensor, int32_t layer, uint8_t method, uint8_t flags,
		     const void *src0, const void *src1)
{
	const uint64_t src[2] = { ggmlviz__addr(src0), ggmlviz__addr(src1) };

	ggmlviz__emit_op_node_at(0, ggmlviz__addr(tensor), layer, method, flags, src);
}

void ggmlviz__emit_step_at(uint64_t ts, uint8_t type, const struct ggmlviz__step *s,
			   const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, type, label, 0, ts);

	if (!pl)
		return;
	ggmlviz__put_step(pl, s);
	ggmlviz__emit_close(&e);
}

void ggmlviz_step_seq(const void *ctx, int32_t seq_id, uint32_t n_tokens, uint32_t n_outputs,
		      uint32_t context_tokens, uint32_t context_cells)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, GGMLVIZ_EVENT_STEP_SEQ, NULL, 0, 0);

	if (!pl)
		return;
	put_u64(pl + SEQ_CTX, ggmlviz__addr(ctx));
	put_u32(pl + SEQ_ID, (uint32_t)seq_id);
	put_u32(pl + SEQ_TOKENS, n_tokens);
	put_u32(pl + SEQ_OUTPUTS, n_outputs);
	put_u32(pl + SEQ_CONTEXT, context_tokens);
	put_u32(pl + SEQ_CELLS, context_cells);
	put_u32(pl + SEQ_ZERO, 0);
	ggmlviz__emit_close(&e);
}

void ggmlviz_tensor_alloc(const void *ptr, uint64_t size, const char *label)
{
	emit_memory(GGMLVIZ__MEMORY, GGMLVIZ_EVENT_TENSOR_ALLOC, ggmlviz__addr(ptr), size, label);
}

void ggmlviz_tensor_free(const void *ptr, uint64_t size, const char *label)
{
	emit_memory(GGMLVIZ__MEMORY, GGMLVIZ_EVENT_TENSOR_FREE, ggmlviz__addr(ptr), size, label);
}

void ggmlviz_barrier_wait(const void *barrier, uint64_t waited_ns)
{
	emit_memory(GGMLVIZ__ACTIVE, GGMLVIZ_EVENT_BARRIER_WAIT, ggmlviz__addr(barrier), waited_ns, NULL);
}

void ggmlviz__emit_thread_free(void)
{
	emit_memory(GGMLVIZ__THREADS, GGMLVIZ_EVENT_THREAD_FREE, 0, 0, NULL);
}

static int tracer_writes_kind(uint32_t kind)
{
	return kind == GGMLVIZ_META_PROCESS || kind == GGMLVIZ_META_DROPPED ||
	       kind == GGMLVIZ_META_TRACE_END || kind == GGMLVIZ_META_CRASH ||
	       kind == GGMLVIZ_META_GPU || kind == GGMLVIZ_META_SHARES ||
	       kind == GGMLVIZ_META_CLOCK || kind == GGMLVIZ_META_GPU_WINDOW ||
	       kind == GGMLVIZ_META_USAGE || kind == GGMLVIZ_META_SEGMENT ||
	       kind == GGMLVIZ_META_SEGMENT_END || kind == GGMLVIZ_META_FLIGHT ||
	       kind == GGMLVIZ_META_SNAPSHOT || kind == GGMLVIZ__META_ROUTE;
}

static void emit_meta(uint32_t kind, uint64_t key, uint64_t value, uint64_t value2,
		      const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, GGMLVIZ_EVENT_META, label, 0, 0);

	if (!pl)
		return;
	put_u32(pl + META_KIND, kind);
	put_u32(pl + META_ZERO, 0);
	put_u64(pl + META_KEY, key);
	put_u64(pl + META_VALUE, value);
	put_u64(pl + META_VALUE2, value2);
	ggmlviz__emit_close(&e);
}

void ggmlviz_meta(uint32_t kind, uint64_t key, uint64_t value, uint64_t value2,
		  const char *label)
{
	if (tracer_writes_kind(kind))
		return; /* the accounting records are the tracer's own */
	if (GGMLVIZ__UNLIKELY(ggmlviz__mask_now() & GGMLVIZ__NVTX))
		ggmlviz__nvtx_named(kind, key, label);
	emit_meta(kind, key, value, value2, label);
}

void ggmlviz__emit_route(uint32_t route)
{
	emit_meta(GGMLVIZ__META_ROUTE, route, 0, 0, NULL);
}

void ggmlviz__emit_meta_gpu(uint64_t kernels, uint64_t recorded, uint64_t left_out,
			    const char *label)
{
	emit_meta(GGMLVIZ_META_GPU, kernels, recorded, left_out, label);
}

void ggmlviz__emit_meta_gpu_window(uint64_t window, uint64_t state, uint64_t sample,
				   const char *label)
{
	emit_meta(GGMLVIZ_META_GPU_WINDOW, window, state, sample, label);
}

void ggmlviz__emit_meta_shares(uint64_t unattributed, uint64_t beyond, const char *label)
{
	emit_meta(GGMLVIZ_META_SHARES, 0, unattributed, beyond, label);
}

static void emit_request(uint8_t type, uint64_t id, int32_t slot, uint32_t what,
			 uint32_t prompt, uint32_t cached, uint32_t generated, const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, type, label, 0, 0);

	if (!pl)
		return;
	put_u64(pl + REQ_ID, id);
	put_u32(pl + REQ_SLOT, (uint32_t)slot);
	put_u32(pl + REQ_WHAT, what);
	put_u32(pl + REQ_PROMPT, prompt);
	put_u32(pl + REQ_CACHED, cached);
	put_u32(pl + REQ_GENERATED, generated);
	put_u32(pl + REQ_ZERO, 0);
	ggmlviz__emit_close(&e);
}

void ggmlviz_request_begin(uint64_t id, uint32_t kind, uint32_t prompt_tokens, const char *label)
{
	emit_request(GGMLVIZ_EVENT_REQUEST_BEGIN, id, -1, kind, prompt_tokens, 0, 0, label);
}

void ggmlviz_request_stage(uint64_t id, int32_t slot, uint32_t stage, uint32_t prompt_tokens,
			   uint32_t cached_tokens)
{
	emit_request(GGMLVIZ_EVENT_REQUEST_STAGE, id, slot, stage, prompt_tokens, cached_tokens, 0,
		     NULL);
}

void ggmlviz_request_end(uint64_t id, int32_t slot, uint32_t status, uint32_t prompt_tokens,
			 uint32_t cached_tokens, uint32_t generated_tokens, const char *label)
{
	emit_request(GGMLVIZ_EVENT_REQUEST_END, id, slot, status, prompt_tokens, cached_tokens,
		     generated_tokens, label);
}

static void emit_rpc(uint8_t type, const struct ggmlviz_rpc_command *c, uint8_t status)
{
	struct ggmlviz__emit e;
	uint8_t *pl = c ? ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, type, NULL, 0, 0) : NULL;

	if (!pl)
		return;
	put_u64(pl + RPC_CONN, c->conn);
	put_u32(pl + RPC_SEQ, c->seq);
	pl[RPC_CMD] = c->cmd;
	pl[RPC_SIDE] = c->side;
	pl[RPC_STATUS] = status;
	pl[RPC_ZERO] = 0;
	put_u64(pl + RPC_REQUEST, c->request_bytes);
	if (type == GGMLVIZ_EVENT_RPC_END) {
		put_u64(pl + RPC_REPLY, c->reply_bytes);
	} else {
		put_u32(pl + RPC_HASH, c->request_hash);
		put_u32(pl + RPC_ZERO2, 0);
	}
	ggmlviz__emit_close(&e);
}

void ggmlviz_rpc_begin(const struct ggmlviz_rpc_command *c)
{
	emit_rpc(GGMLVIZ_EVENT_RPC_BEGIN, c, 0);
}

void ggmlviz_rpc_stage(const struct ggmlviz_rpc_command *c, uint32_t stage)
{
	emit_rpc(GGMLVIZ_EVENT_RPC_STAGE, c, (uint8_t)stage);
}

void ggmlviz_rpc_end(const struct ggmlviz_rpc_command *c)
{
	emit_rpc(GGMLVIZ_EVENT_RPC_END, c, c ? c->status : 0);
}

void ggmlviz_thread_name(const char *name)
{
	struct ggmlviz__ring *r;

	if (!name || !(ggmlviz__mask_relaxed() & GGMLVIZ__ACTIVE))
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

/* ---- records stamped with a time taken earlier (producer.h) ---- */

void ggmlviz__emit_op_at(uint64_t ts, uint8_t type, uint64_t tensor, uint32_t op_type,
			 uint64_t size, uint64_t backend, const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, type, label, GGMLVIZ__NAMES, ts);

	if (!pl)
		return;
	ggmlviz__put_op(pl, tensor, op_type, size, backend);
	ggmlviz__emit_close(&e);
}

void ggmlviz__emit_op_info_at(uint64_t ts, uint64_t tensor, const int64_t ne[4], uint64_t flops,
			      const char *type_name)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, GGMLVIZ_EVENT_OP_INFO, type_name, 0, ts);

	if (!pl)
		return;
	ggmlviz__put_op_info(pl, tensor, ne, flops);
	ggmlviz__emit_close(&e);
}

void ggmlviz__emit_op_bytes_at(uint64_t ts, uint64_t tensor, uint64_t bytes_read,
			       uint64_t bytes_written)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, GGMLVIZ_EVENT_OP_BYTES, NULL, 0, ts);

	if (!pl)
		return;
	put_u64(pl + BYTES_TENSOR, tensor);
	put_u64(pl + BYTES_READ, bytes_read);
	put_u64(pl + BYTES_WRITTEN, bytes_written);
	put_u64(pl + BYTES_ZERO, 0);
	ggmlviz__emit_close(&e);
}

void ggmlviz_op_bytes(const void *tensor, uint64_t bytes_read, uint64_t bytes_written)
{
	ggmlviz__emit_op_bytes_at(0, ggmlviz__addr(tensor), bytes_read, bytes_written);
}

void ggmlviz__emit_op_node_at(uint64_t ts, uint64_t tensor, int32_t layer, uint8_t method,
			      uint8_t flags, const uint64_t src[2])
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, GGMLVIZ_EVENT_OP_NODE, NULL, 0, ts);

	if (!pl)
		return;
	ggmlviz__put_op_node(pl, tensor, layer, method, flags, src[0], src[1]);
	ggmlviz__emit_close(&e);
}

int ggmlviz__emit_desc_set_at(uint64_t ts, uint64_t set, uint32_t n_ops, uint8_t mode,
			      uint8_t method, uint64_t graph_id)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, GGMLVIZ_EVENT_DESC_SET, NULL, 0, ts);

	if (!pl)
		return 0;
	put_u64(pl + SET_ID, set);
	put_u32(pl + SET_OPS, n_ops);
	pl[SET_MODE] = mode;
	pl[SET_METHOD] = method;
	pl[SET_ZERO] = pl[SET_ZERO + 1] = 0;
	put_u64(pl + SET_GRAPH, graph_id);
	put_u64(pl + SET_ZERO2, 0);
	ggmlviz__emit_close(&e);
	return 1;
}

void ggmlviz__emit_split_at(uint64_t ts, uint8_t type, const struct ggmlviz__split *s)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, type, NULL, 0, ts);

	if (!pl)
		return;
	ggmlviz__put_split(pl, s);
	ggmlviz__emit_close(&e);
}

void ggmlviz__emit_graph_at(uint64_t ts, uint8_t type, uint64_t graph, uint32_t n_nodes,
			    uint32_t n_threads, uint64_t backend)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, type, NULL, 0, ts);

	if (!pl)
		return;
	ggmlviz__put_graph(pl, graph, n_nodes, n_threads, backend);
	ggmlviz__emit_close(&e);
}

void ggmlviz__emit_op_summary_at(uint64_t ts, const struct ggmlviz__op_summary *s)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, GGMLVIZ_EVENT_OP_SUMMARY, NULL, 0, ts);

	if (!pl)
		return;
	put_u32(pl + SUM_TYPE, s->op_type);
	put_u32(pl + SUM_COUNT, s->count);
	put_u64(pl + SUM_TOTAL, s->total_stamps); /* the writer makes them nanoseconds */
	put_u64(pl + SUM_BACKEND, s->backend);
	put_u64(pl + SUM_MAX, s->max_stamps);
	ggmlviz__emit_close(&e);
}

void ggmlviz__emit_kernel_at(uint64_t start_ns, uint32_t track,
			     const struct ggmlviz__kernel_rec *k, const char *name)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, GGMLVIZ_EVENT_KERNEL, name, 0, 0);

	if (!pl)
		return;
	/* stamped now for the ring (a drop note's time); the record keeps the GPU's time */
	put_u64(pl - REC_PAYLOAD + REC_TIMESTAMP, start_ns);
	ggmlviz__emit_track(&e, pl, track);
	put_u64(pl + KERN_DURATION, k->duration_ns);
	put_u64(pl + KERN_RUN, k->run_id);
	put_u32(pl + KERN_CORRELATION, k->correlation);
	put_u32(pl + KERN_STREAM, k->stream);
	put_u32(pl + KERN_DEVICE, k->device);
	put_u32(pl + KERN_ZERO, 0);
	ggmlviz__emit_close(&e);
}

uint8_t *ggmlviz__emit_open_body(struct ggmlviz__emit *e, unsigned bits, uint8_t type,
				 uint32_t len, uint64_t at, uint8_t **body)
{
	struct ggmlviz__ring *r;
	uint8_t *p;

	if ((ggmlviz__mask_relaxed() & bits) != bits || len > GGMLVIZ_LABEL_MAX)
		return NULL;
	if (!(r = ggmlviz__thread_ring()))
		return NULL;
	ggmlviz__ring_enter(r);
	p = (ggmlviz__mask_now() & bits) == bits ? ggmlviz__emit_frame(e, r, type, at, 1, len) : NULL;
	if (!p) {
		ggmlviz__ring_leave(r);
		return NULL;
	}
	*body = p + REC_LABEL;
	return p + REC_PAYLOAD;
}
