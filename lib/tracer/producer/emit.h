/*
 * Emitting records on the calling thread's ring: the one inline path every
 * public emit function goes through.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_EMIT_H
#define GGMLVIZ_EMIT_H

#include <stdint.h>
#include <string.h>

#include "format/record.h"
#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/producer/producer.h"
#include "tracer/producer/ring.h"

/* A record being written: its ring, and its size once reserved. */
struct ggmlviz__emit {
	struct ggmlviz__ring *ring;
	uint32_t need;
};

/* A label longer than GGMLVIZ_LABEL_MAX: its length cut on a UTF-8 boundary (emit.c). */
uint32_t ggmlviz__label_cut(struct ggmlviz__ring *r, const char *label);

static inline uint32_t ggmlviz__label_len(struct ggmlviz__ring *r, const char *label)
{
	size_t n = strnlen(label, GGMLVIZ_LABEL_MAX + 1);

	return GGMLVIZ__LIKELY(n <= GGMLVIZ_LABEL_MAX) ? (uint32_t)n : ggmlviz__label_cut(r, label);
}

/*
 * Copies a label with a few overlapping fixed-size moves: tensor names are
 * short, and a variable-length memcpy expands to `rep movs`, whose startup
 * costs more than the copy itself.
 */
static inline void ggmlviz__label_copy(uint8_t *dst, const char *src, uint32_t n)
{
	if (n >= 16 && n <= 64) {
		for (uint32_t i = 0; i + 16 < n; i += 16)
			memcpy(dst + i, src + i, 16);
		memcpy(dst + n - 16, src + n - 16, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(dst, src, 4);
		memcpy(dst + n - 4, src + n - 4, 4);
	} else if (n > 0 && n < 4) {
		dst[0] = (uint8_t)src[0];
		dst[n / 2] = (uint8_t)src[n / 2];
		dst[n - 1] = (uint8_t)src[n - 1];
	} else if (n > 64) {
		memcpy(dst, src, n);
	}
}

/*
 * Reserves a record of `type` at stamp ts on ring r, with a label of len
 * bytes if labeled, and writes its header (type, timestamp, thread,
 * has_label, label length): where the record begins, or NULL (dropped
 * and counted). The caller is inside r (ggmlviz__ring_enter).
 */
__attribute__((always_inline)) static inline uint8_t *
ggmlviz__emit_frame(struct ggmlviz__emit *e, struct ggmlviz__ring *r, uint8_t type, uint64_t ts,
		    int labeled, uint32_t len)
{
	uint8_t *p;

	e->need = labeled ? GGMLVIZ_LABELED_RECORD_SIZE + len : GGMLVIZ_RECORD_SIZE;
	p = ggmlviz__ring_reserve(r, e->need, ts);
	if (GGMLVIZ__UNLIKELY(!p))
		return NULL;
	p[REC_TYPE] = type;
	put_u64(p + REC_TIMESTAMP, ts);
	put_u32(p + REC_THREAD, r->tid);
	p[REC_HAS_LABEL] = (uint8_t)(labeled != 0);
	if (labeled)
		put_u32(p + REC_LABEL_LEN, len);
	e->ring = r;
	return p;
}

/*
 * Starts a record of `type` if the mask has all of `bits`: writes type,
 * timestamp, thread and label, and returns where its 32-byte payload goes
 * (the caller writes every payload byte, then calls ggmlviz__emit_close).
 * NULL: nothing to record (not active, or dropped and counted).
 * The label is kept only if the mask also has `label_bits` (0 = always).
 * The timestamp is at (a raw stamp, clock.h), or the clock now when at is
 * 0 (a constant 0 costs nothing: the function is always inlined).
 */
__attribute__((always_inline)) static inline uint8_t *
ggmlviz__emit_open(struct ggmlviz__emit *e, unsigned bits, uint8_t type, const char *label,
		   unsigned label_bits, uint64_t at)
{
	struct ggmlviz__ring *r;
	unsigned mask;
	uint32_t len = 0;
	uint64_t ts;
	uint8_t *p;

	if (GGMLVIZ__UNLIKELY((ggmlviz__mask_relaxed() & bits) != bits))
		return NULL;
	r = ggmlviz__thread_ring();
	if (GGMLVIZ__UNLIKELY(!r))
		return NULL;
	ggmlviz__ring_enter(r);
	mask = ggmlviz__mask_now(); /* after in_emit: see ggmlviz__ring_enter */
	if (GGMLVIZ__UNLIKELY((mask & bits) != bits))
		goto out;
	if (label && (mask & label_bits) != label_bits)
		label = NULL;
	if (label)
		len = ggmlviz__label_len(r, label);
	ts = at ? at : ggmlviz__stamp();
	p = ggmlviz__emit_frame(e, r, type, ts, label != NULL, len);
	if (GGMLVIZ__UNLIKELY(!p))
		goto out;
	if (label)
		ggmlviz__label_copy(p + REC_LABEL, label, len);
	return p + REC_PAYLOAD;
out:
	ggmlviz__ring_leave(r);
	return NULL;
}

/*
 * Starts a record of `type` with a body of len bytes (at most
 * GGMLVIZ_LABEL_MAX) where a label goes, as ggmlviz__emit_open does: the
 * body's place in *body, for the caller to fill (a packed record's times,
 * packed.c). Off the per-op path: once per run.
 */
uint8_t *ggmlviz__emit_open_body(struct ggmlviz__emit *e, unsigned bits, uint8_t type,
				 uint32_t len, uint64_t at, uint8_t **body);

/* The record being written by e is on another track than its thread's (a GPU's). */
static inline void ggmlviz__emit_track(struct ggmlviz__emit *e, uint8_t *payload, uint32_t track)
{
	(void)e;
	put_u32(payload - REC_PAYLOAD + REC_THREAD, track);
}

__attribute__((always_inline)) static inline void ggmlviz__emit_close(struct ggmlviz__emit *e)
{
	ggmlviz__ring_commit(e->ring, e->need);
	ggmlviz__ring_leave(e->ring);
}

/* ---- payloads: every byte written (the ring holds stale bytes from its previous lap) ---- */

/* The address only: the tracer never reads through the pointers it records. */
static inline uint64_t ggmlviz__addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static inline void ggmlviz__put_op(uint8_t *pl, uint64_t tensor, uint32_t op_type, uint64_t op_size,
			  uint64_t backend)
{
	put_u64(pl + OP_TENSOR, tensor);
	put_u32(pl + OP_TYPE, op_type);
	put_u32(pl + OP_HOLE, 0);
	put_u64(pl + OP_SIZE, op_size);
	put_u64(pl + OP_BACKEND, backend);
}

static inline void ggmlviz__put_graph(uint8_t *pl, uint64_t graph, uint32_t n_nodes, uint32_t n_threads,
			     uint64_t backend)
{
	put_u64(pl + GRAPH_PTR, graph);
	put_u32(pl + GRAPH_NODES, n_nodes);
	put_u32(pl + GRAPH_THREADS, n_threads);
	put_u64(pl + GRAPH_BACKEND, backend);
	put_u64(pl + GRAPH_ZERO, 0);
}

static inline void ggmlviz__put_memory(uint8_t *pl, uint64_t ptr, uint64_t size)
{
	put_u64(pl + MEM_PTR, ptr);
	put_u64(pl + MEM_SIZE, size);
	put_u64(pl + MEM_ZERO, 0);
	put_u64(pl + MEM_ZERO + 8, 0);
}

static inline void ggmlviz__put_user(uint8_t *pl, uint64_t value)
{
	put_u64(pl + USER_VALUE, value);
	memset(pl + USER_ZERO, 0, GGMLVIZ_PAYLOAD_SIZE - USER_ZERO);
}

static inline uint32_t ggmlviz__dim(const int64_t *ne, int i)
{
	if (!ne || ne[i] < 0)
		return 0;
	return ne[i] > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)ne[i];
}

static inline void ggmlviz__put_op_info(uint8_t *pl, uint64_t tensor, const int64_t *ne,
					uint64_t flops)
{
	put_u64(pl + INFO_TENSOR, tensor);
	for (int i = 0; i < 4; i++)
		put_u32(pl + INFO_NE + 4 * i, ggmlviz__dim(ne, i));
	put_u64(pl + INFO_FLOPS, flops);
}

static inline void ggmlviz__put_op_node(uint8_t *pl, uint64_t tensor, int32_t layer,
					uint8_t method, uint8_t flags, uint64_t src0,
					uint64_t src1)
{
	put_u64(pl + NODE_TENSOR, tensor);
	put_u32(pl + NODE_LAYER, (uint32_t)layer);
	pl[NODE_METHOD] = method;
	pl[NODE_FLAGS] = flags;
	pl[NODE_ZERO] = 0;
	pl[NODE_ZERO + 1] = 0;
	put_u64(pl + NODE_SRC0, src0);
	put_u64(pl + NODE_SRC1, src1);
}


static inline void ggmlviz__put_step(uint8_t *pl, const struct ggmlviz__step *s)
{
	put_u64(pl + STEP_CTX, s->ctx);
	put_u32(pl + STEP_TOKENS, s->n_tokens);
	put_u32(pl + STEP_OUTPUTS, s->n_outputs);
	put_u32(pl + STEP_PHASE, s->phase);
	put_u32(pl + STEP_STATUS, (uint32_t)s->status);
	put_u64(pl + STEP_ZERO, 0);
}

static inline void ggmlviz__put_split(uint8_t *pl, const struct ggmlviz__split *s)
{
	put_u64(pl + SPLIT_FIRST, s->first);
	put_u32(pl + SPLIT_NODES, s->n_nodes);
	put_u32(pl + SPLIT_TIMED, s->n_timed);
	put_u64(pl + SPLIT_BACKEND, s->backend);
	put_u32(pl + SPLIT_TICKS, s->ticks);
	put_u32(pl + SPLIT_EXPECTED, s->expected);
	if (s->run_id) /* at a begin, where ticks and expected are 0 */
		put_u64(pl + SPLIT_RUN, s->run_id);
}

#endif /* GGMLVIZ_EMIT_H */
