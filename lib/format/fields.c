/*
 * The payload field table (see fields.h and ggmlviz(5)).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include <ggmlviz/format.h>

#include "fields.h"
#include "pack.h"
#include "record.h"

/*
 * Each layout is listed once, as X(name, kind, offset, size, flags, member),
 * and expanded twice: the public fields, and where each value lives in
 * struct ggmlviz_event.
 */
#define GRAPH(X)                                                    \
	X("graph", ADDRESS, GRAPH_PTR, 8, 0, graph.graph_ptr)       \
	X("n_nodes", U32, GRAPH_NODES, 4, 0, graph.n_nodes)         \
	X("n_threads", U32, GRAPH_THREADS, 4, 0, graph.n_threads)   \
	X("backend", BACKEND, GRAPH_BACKEND, 8, 0, graph.backend_ptr)
#define OP(X)                                              \
	X("tensor", ADDRESS, OP_TENSOR, 8, 0, op.tensor_ptr) \
	X("op_type", OP_TYPE, OP_TYPE, 4, 0, op.op_type)     \
	X("size", U64, OP_SIZE, 8, 0, op.op_size)            \
	X("backend", BACKEND, OP_BACKEND, 8, 0, op.backend_ptr)
#define MEMORY(X)                                    \
	X("ptr", ADDRESS, MEM_PTR, 8, 0, memory.ptr) \
	X("size", U64, MEM_SIZE, 8, 0, memory.size)
#define BARRIER(X)                                       \
	X("barrier", ADDRESS, MEM_PTR, 8, 0, memory.ptr) \
	X("wait_ns", U64, MEM_SIZE, 8, 0, memory.size)
#define META(X)                                          \
	X("kind", META_KIND, META_KIND, 4, 0, meta.kind) \
	X("key", U64, META_KEY, 8, 0, meta.key)          \
	X("value", U64, META_VALUE, 8, 0, meta.value)    \
	X("value2", U64, META_VALUE2, 8, 0, meta.value2)
#define USER(X)                                        \
	X("value", U64, USER_VALUE, 8, 0, user.value) \
	X("svalue", I64, USER_VALUE, 8, GGMLVIZ_FIELD_ALIAS, user.svalue)
#define COUNTER(X)                                      \
	X("value", I64, USER_VALUE, 8, 0, user.svalue) \
	X("uvalue", U64, USER_VALUE, 8, GGMLVIZ_FIELD_ALIAS, user.value)
#define OP_INFO(X)                                               \
	X("tensor", ADDRESS, INFO_TENSOR, 8, 0, op_info.tensor_ptr) \
	X("ne", DIMS, INFO_NE, 16, 0, op_info.ne)                   \
	X("flops", U64, INFO_FLOPS, 8, 0, op_info.flops)
#define OP_NODE(X)                                               \
	X("tensor", ADDRESS, NODE_TENSOR, 8, 0, op_node.tensor_ptr) \
	X("layer", I32, NODE_LAYER, 4, 0, op_node.layer)            \
	X("method", U8, NODE_METHOD, 1, 0, op_node.method)          \
	X("flags", U8, NODE_FLAGS, 1, 0, op_node.flags)             \
	X("src0", ADDRESS, NODE_SRC0, 8, 0, op_node.src[0])         \
	X("src1", ADDRESS, NODE_SRC1, 8, 0, op_node.src[1])
#define STEP(X)                                               \
	X("ctx", ADDRESS, STEP_CTX, 8, 0, step.ctx)               \
	X("n_tokens", U32, STEP_TOKENS, 4, 0, step.n_tokens)      \
	X("n_outputs", U32, STEP_OUTPUTS, 4, 0, step.n_outputs)   \
	X("phase", U32, STEP_PHASE, 4, 0, step.phase)             \
	X("status", I32, STEP_STATUS, 4, 0, step.status)
#define SPLIT(X)                                                       \
	X("first_node", ADDRESS, SPLIT_FIRST, 8, 0, split.first_node)      \
	X("n_nodes", U32, SPLIT_NODES, 4, 0, split.n_nodes)                \
	X("n_timed", U32, SPLIT_TIMED, 4, 0, split.n_timed)                \
	X("backend", BACKEND, SPLIT_BACKEND, 8, 0, split.backend_ptr)      \
	X("ticks", U32, SPLIT_TICKS, 4, 0, split.ticks)                    \
	X("ticks_expected", U32, SPLIT_EXPECTED, 4, 0, split.ticks_expected)
#define SPLIT_BEGIN(X)                                                 \
	X("first_node", ADDRESS, SPLIT_FIRST, 8, 0, split.first_node)      \
	X("n_nodes", U32, SPLIT_NODES, 4, 0, split.n_nodes)                \
	X("n_timed", U32, SPLIT_TIMED, 4, 0, split.n_timed)                \
	X("backend", BACKEND, SPLIT_BACKEND, 8, 0, split.backend_ptr)      \
	X("run_id", U64, SPLIT_RUN, 8, 0, split.run_id)
#define KERNEL(X)                                                      \
	X("duration_ns", U64, KERN_DURATION, 8, 0, kernel.duration_ns)     \
	X("run_id", U64, KERN_RUN, 8, 0, kernel.run_id)                    \
	X("correlation", U32, KERN_CORRELATION, 4, 0, kernel.correlation)  \
	X("stream", U32, KERN_STREAM, 4, 0, kernel.stream)                 \
	X("device", U32, KERN_DEVICE, 4, 0, kernel.device)
#define STEP_SEQ(X)                                                     \
	X("ctx", ADDRESS, SEQ_CTX, 8, 0, step_seq.ctx)                      \
	X("seq_id", I32, SEQ_ID, 4, 0, step_seq.seq_id)                     \
	X("n_tokens", U32, SEQ_TOKENS, 4, 0, step_seq.n_tokens)             \
	X("n_outputs", U32, SEQ_OUTPUTS, 4, 0, step_seq.n_outputs)          \
	X("context_tokens", U32, SEQ_CONTEXT, 4, 0, step_seq.context_tokens) \
	X("context_cells", U32, SEQ_CELLS, 4, 0, step_seq.context_cells)
#define OP_BYTES(X)                                                        \
	X("tensor", ADDRESS, BYTES_TENSOR, 8, 0, op_bytes.tensor_ptr)          \
	X("bytes_read", U64, BYTES_READ, 8, 0, op_bytes.bytes_read)            \
	X("bytes_written", U64, BYTES_WRITTEN, 8, 0, op_bytes.bytes_written)
#define OP_SUMMARY(X)                                                  \
	X("op_type", OP_TYPE, SUM_TYPE, 4, 0, op_summary.op_type)          \
	X("count", U32, SUM_COUNT, 4, 0, op_summary.count)                 \
	X("total_ns", U64, SUM_TOTAL, 8, 0, op_summary.total_ns)           \
	X("backend", BACKEND, SUM_BACKEND, 8, 0, op_summary.backend_ptr)   \
	X("max_ns", U64, SUM_MAX, 8, 0, op_summary.max_ns)
#define OP_SHARE(X)                                                     \
	X("tensor", ADDRESS, SHARE_TENSOR, 8, 0, op_share.tensor_ptr)       \
	X("compute_ns", U32, SHARE_COMPUTE, 4, 0, op_share.compute_ns)      \
	X("wait_ns", U32, SHARE_WAIT, 4, 0, op_share.wait_ns)               \
	X("op_type", OP_TYPE, SHARE_TYPE, 4, 0, op_share.op_type)           \
	X("node", U32, SHARE_NODE, 4, 0, op_share.node)                     \
	X("thread_index", U32, SHARE_ITH, 4, 0, op_share.thread_index)      \
	X("n_threads", U32, SHARE_NTH, 4, 0, op_share.n_threads)
#define DESC_SET(X)                                                     \
	X("set", U64, SET_ID, 8, 0, desc_set.set)                           \
	X("n_ops", U32, SET_OPS, 4, 0, desc_set.n_ops)                      \
	X("mode", U8, SET_MODE, 1, 0, desc_set.mode)                        \
	X("method", U8, SET_METHOD, 1, 0, desc_set.method)                  \
	X("graph_id", U64, SET_GRAPH, 8, 0, desc_set.graph_id)
#define OP_TIMES(X)                                                    \
	X("set", U64, TIMES_SET, 8, 0, op_times.set)                       \
	X("first", U32, TIMES_FIRST, 4, 0, op_times.first)                 \
	X("n_ops", U32, TIMES_COUNT, 4, 0, op_times.n_ops)                 \
	X("method", U8, TIMES_METHOD, 1, 0, op_times.method)               \
	X("flags", U8, TIMES_FLAGS, 1, 0, op_times.flags)
#define SHARE_TIMES(X)                                                   \
	X("set", U64, STIMES_SET, 8, 0, share_times.set)                     \
	X("first", U32, STIMES_FIRST, 4, 0, share_times.first)               \
	X("n_shares", U32, STIMES_COUNT, 4, 0, share_times.n_shares)         \
	X("mode", U8, STIMES_MODE, 1, 0, share_times.mode)                   \
	X("thread_index", U32, STIMES_ITH, 4, 0, share_times.thread_index)   \
	X("n_threads", U32, STIMES_NTH, 4, 0, share_times.n_threads)         \
	X("last_wait_ns", U32, STIMES_LAST_WAIT, 4, 0, share_times.last_wait_ns)

#define RPC(STATUS, X)                                                  \
	X("conn", U64, RPC_CONN, 8, 0, rpc.conn)                            \
	X("seq", U32, RPC_SEQ, 4, 0, rpc.seq)                               \
	X("cmd", U8, RPC_CMD, 1, 0, rpc.cmd)                                \
	X("side", U8, RPC_SIDE, 1, 0, rpc.side)                             \
	X(STATUS, U8, RPC_STATUS, 1, 0, rpc.status)                         \
	X("request_bytes", U64, RPC_REQUEST, 8, 0, rpc.request_bytes)
#define RPC_BEGIN(X) RPC("status", X) X("request_hash", U32, RPC_HASH, 4, 0, rpc.request_hash)
#define RPC_STAGE(X) RPC("stage", X) X("request_hash", U32, RPC_HASH, 4, 0, rpc.request_hash)
#define RPC_END(X) RPC("status", X) X("reply_bytes", U64, RPC_REPLY, 8, 0, rpc.reply_bytes)

#define PACK(X) X("n_records", U32, PACK_COUNT, 4, 0, pack.n_records)

#define REQUEST(WHAT, X)                                                  \
	X("request", U64, REQ_ID, 8, 0, request.request_id)                 \
	X("slot", I32, REQ_SLOT, 4, 0, request.slot)                        \
	X(WHAT, U32, REQ_WHAT, 4, 0, request.what)                          \
	X("prompt_tokens", U32, REQ_PROMPT, 4, 0, request.prompt_tokens)    \
	X("cached_tokens", U32, REQ_CACHED, 4, 0, request.cached_tokens)    \
	X("generated_tokens", U32, REQ_GENERATED, 4, 0, request.generated_tokens)
#define REQUEST_BEGIN(X) REQUEST("kind", X)
#define REQUEST_END(X) REQUEST("status", X)
#define REQUEST_STAGE(X) REQUEST("stage", X)

#define PUBLIC(name, kind, off, size, flags, member) \
	{ name, GGMLVIZ_FIELD_##kind, off, size, flags, 0 },
#define MEMBER(name, kind, off, size, flags, member) \
	(uint16_t)offsetof(struct ggmlviz_event, data.member),
#define DEFINE(id, LIST)                                            \
	static const struct ggmlviz_field id##_fields[] = { LIST(PUBLIC) }; \
	static const uint16_t id##_members[] = { LIST(MEMBER) };

DEFINE(graph, GRAPH)
DEFINE(op, OP)
DEFINE(memory, MEMORY)
DEFINE(barrier, BARRIER)
DEFINE(meta, META)
DEFINE(user, USER)
DEFINE(counter, COUNTER)
DEFINE(op_info, OP_INFO)
DEFINE(op_node, OP_NODE)
DEFINE(step, STEP)
DEFINE(split, SPLIT)
DEFINE(split_begin, SPLIT_BEGIN)
DEFINE(kernel, KERNEL)
DEFINE(step_seq, STEP_SEQ)
DEFINE(op_bytes, OP_BYTES)
DEFINE(op_summary, OP_SUMMARY)
DEFINE(request_begin, REQUEST_BEGIN)
DEFINE(request_end, REQUEST_END)
DEFINE(request_stage, REQUEST_STAGE)
DEFINE(op_share, OP_SHARE)
DEFINE(desc_set, DESC_SET)
DEFINE(op_times, OP_TIMES)
DEFINE(share_times, SHARE_TIMES)
DEFINE(rpc_begin, RPC_BEGIN)
DEFINE(rpc_end, RPC_END)
DEFINE(rpc_stage, RPC_STAGE)
DEFINE(pack, PACK)

struct layout {
	const struct ggmlviz_field *fields;
	const uint16_t *members;
	size_t n;
};

#define LAYOUT(id) { id##_fields, id##_members, sizeof id##_fields / sizeof id##_fields[0] }
static const struct layout layouts[GGMLVIZ_EVENT_TYPE_COUNT] = {
	[GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN] = LAYOUT(graph),
	[GGMLVIZ_EVENT_GRAPH_COMPUTE_END] = LAYOUT(graph),
	[GGMLVIZ_EVENT_OP_COMPUTE_BEGIN] = LAYOUT(op),
	[GGMLVIZ_EVENT_OP_COMPUTE_END] = LAYOUT(op),
	[GGMLVIZ_EVENT_TENSOR_ALLOC] = LAYOUT(memory),
	[GGMLVIZ_EVENT_TENSOR_FREE] = LAYOUT(memory),
	[GGMLVIZ_EVENT_BARRIER_WAIT] = LAYOUT(barrier),
	[GGMLVIZ_EVENT_THREAD_BEGIN] = LAYOUT(memory),
	[GGMLVIZ_EVENT_THREAD_FREE] = LAYOUT(memory),
	[GGMLVIZ_EVENT_META] = LAYOUT(meta),
	[GGMLVIZ_EVENT_MARK] = LAYOUT(user),
	[GGMLVIZ_EVENT_COUNTER] = LAYOUT(counter),
	[GGMLVIZ_EVENT_SCOPE_BEGIN] = LAYOUT(user),
	[GGMLVIZ_EVENT_SCOPE_END] = LAYOUT(user),
	[GGMLVIZ_EVENT_OP_INFO] = LAYOUT(op_info),
	[GGMLVIZ_EVENT_OP_NODE] = LAYOUT(op_node),
	[GGMLVIZ_EVENT_STEP_BEGIN] = LAYOUT(step),
	[GGMLVIZ_EVENT_STEP_END] = LAYOUT(step),
	[GGMLVIZ_EVENT_SPLIT_BEGIN] = LAYOUT(split_begin),
	[GGMLVIZ_EVENT_SPLIT_END] = LAYOUT(split),
	[GGMLVIZ_EVENT_KERNEL] = LAYOUT(kernel),
	[GGMLVIZ_EVENT_STEP_SEQ] = LAYOUT(step_seq),
	[GGMLVIZ_EVENT_OP_BYTES] = LAYOUT(op_bytes),
	[GGMLVIZ_EVENT_OP_SUMMARY] = LAYOUT(op_summary),
	[GGMLVIZ_EVENT_REQUEST_BEGIN] = LAYOUT(request_begin),
	[GGMLVIZ_EVENT_REQUEST_END] = LAYOUT(request_end),
	[GGMLVIZ_EVENT_REQUEST_STAGE] = LAYOUT(request_stage),
	[GGMLVIZ_EVENT_OP_SHARE] = LAYOUT(op_share),
	[GGMLVIZ_EVENT_DESC_SET] = LAYOUT(desc_set),
	[GGMLVIZ_EVENT_OP_TIMES] = LAYOUT(op_times),
	[GGMLVIZ_EVENT_SHARE_TIMES] = LAYOUT(share_times),
	[GGMLVIZ_EVENT_RPC_BEGIN] = LAYOUT(rpc_begin),
	[GGMLVIZ_EVENT_RPC_END] = LAYOUT(rpc_end),
	[GGMLVIZ_EVENT_RPC_STAGE] = LAYOUT(rpc_stage),
	[GGMLVIZ_EVENT_PACK] = LAYOUT(pack),
};

static const struct layout *layout_of(uint8_t type)
{
	return type < GGMLVIZ_EVENT_TYPE_COUNT ? &layouts[type] : NULL;
}

/* The value of one stored field (a dimension: index 0 to 3), sign-extended. */
static uint64_t load(const uint8_t *pl, const struct ggmlviz_field *f, unsigned index)
{
	const uint8_t *p = pl + f->offset;

	switch (f->kind) {
	case GGMLVIZ_FIELD_U8:
		return p[0];
	case GGMLVIZ_FIELD_I32:
		return (uint64_t)(int64_t)(int32_t)get_u32(p);
	case GGMLVIZ_FIELD_U32:
	case GGMLVIZ_FIELD_OP_TYPE:
	case GGMLVIZ_FIELD_META_KIND:
		return get_u32(p);
	case GGMLVIZ_FIELD_DIMS:
		return get_u32(p + 4 * index);
	default:
		return get_u64(p);
	}
}

static void store(uint8_t *pl, const struct ggmlviz_field *f, unsigned index, uint64_t v)
{
	uint8_t *p = pl + f->offset;

	switch (f->kind) {
	case GGMLVIZ_FIELD_U8:
		p[0] = (uint8_t)v;
		break;
	case GGMLVIZ_FIELD_I32:
	case GGMLVIZ_FIELD_U32:
	case GGMLVIZ_FIELD_OP_TYPE:
	case GGMLVIZ_FIELD_META_KIND:
		put_u32(p, (uint32_t)v);
		break;
	case GGMLVIZ_FIELD_DIMS:
		put_u32(p + 4 * index, (uint32_t)v);
		break;
	default:
		put_u64(p, v);
		break;
	}
}

/* Copies between a field's member of the event and a u64, in the member's own type. */
static void member_set(struct ggmlviz_event *ev, const struct ggmlviz_field *f, uint16_t member,
		       unsigned index, uint64_t v)
{
	char *m = (char *)ev + member;
	uint32_t u32 = (uint32_t)v;
	int32_t i32 = (int32_t)u32;
	int64_t dim = (int64_t)u32;
	uint8_t u8 = (uint8_t)v;

	switch (f->kind) {
	case GGMLVIZ_FIELD_U8:
		memcpy(m, &u8, 1);
		break;
	case GGMLVIZ_FIELD_I32:
		memcpy(m, &i32, 4);
		break;
	case GGMLVIZ_FIELD_U32:
	case GGMLVIZ_FIELD_OP_TYPE:
	case GGMLVIZ_FIELD_META_KIND:
		memcpy(m, &u32, 4);
		break;
	case GGMLVIZ_FIELD_DIMS:
		memcpy(m + 8 * index, &dim, 8);
		break;
	default:
		memcpy(m, &v, 8);
		break;
	}
}

static uint64_t member_get(const struct ggmlviz_event *ev, const struct ggmlviz_field *f,
			   uint16_t member, unsigned index)
{
	const char *m = (const char *)ev + member;
	uint32_t u32;
	int64_t dim;
	uint64_t v;
	uint8_t u8;

	switch (f->kind) {
	case GGMLVIZ_FIELD_U8:
		memcpy(&u8, m, 1);
		return u8;
	case GGMLVIZ_FIELD_I32:
	case GGMLVIZ_FIELD_U32:
	case GGMLVIZ_FIELD_OP_TYPE:
	case GGMLVIZ_FIELD_META_KIND:
		memcpy(&u32, m, 4);
		return u32;
	case GGMLVIZ_FIELD_DIMS:
		/* on disk a u32: a negative or larger dimension is cut */
		memcpy(&dim, m + 8 * index, 8);
		return dim < 0 ? 0 : dim > (int64_t)UINT32_MAX ? UINT32_MAX : (uint64_t)dim;
	default:
		memcpy(&v, m, 8);
		return v;
	}
}

static unsigned values_of(const struct ggmlviz_field *f)
{
	return f->kind == GGMLVIZ_FIELD_DIMS ? 4u : 1u;
}

void ggmlviz__payload_decode(struct ggmlviz_event *ev, const uint8_t *payload)
{
	const struct layout *l = layout_of(ev->type);

	memset(&ev->data, 0, sizeof ev->data);
	if (!l)
		return; /* a type from the future: its raw payload is all there is */
	for (size_t i = 0; i < l->n; i++)
		for (unsigned k = 0; k < values_of(&l->fields[i]); k++)
			member_set(ev, &l->fields[i], l->members[i], k, load(payload, &l->fields[i], k));
}

void ggmlviz__payload_encode(const struct ggmlviz_event *ev, uint8_t *payload)
{
	const struct layout *l = layout_of(ev->type);

	memset(payload, 0, GGMLVIZ_PAYLOAD_SIZE);
	if (!l) {
		if (ev->payload)
			memcpy(payload, ev->payload, GGMLVIZ_PAYLOAD_SIZE);
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (l->fields[i].flags & GGMLVIZ_FIELD_ALIAS)
			continue;
		for (unsigned k = 0; k < values_of(&l->fields[i]); k++)
			store(payload, &l->fields[i], k,
			      member_get(ev, &l->fields[i], l->members[i], k));
	}
}

/* ---- the public view of the table ---- */

const struct ggmlviz_field *ggmlviz_event_fields(uint8_t type, size_t *count)
{
	const struct layout *l = layout_of(type);

	*count = l ? l->n : 0;
	return l ? l->fields : NULL;
}

uint64_t ggmlviz_field_get(const uint8_t *payload, const struct ggmlviz_field *field,
			   unsigned index)
{
	if (!payload || !field || index >= values_of(field))
		return 0;
	return load(payload, field, index);
}
