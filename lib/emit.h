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

#include "clock.h"
#include "record.h"
#include "registry.h"
#include "session.h"

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
 * Starts a record of `type` if the mask has all of `bits`: writes type,
 * timestamp, thread and label, and returns where its 32-byte payload goes
 * (the caller writes every payload byte, then calls ggmlviz__emit_close).
 * NULL: nothing to record (not active, or dropped and counted).
 * The label is kept only if the mask also has `label_bits` (0 = always).
 */
__attribute__((always_inline)) static inline uint8_t *
ggmlviz__emit_open(struct ggmlviz__emit *e, unsigned bits, uint8_t type, const char *label,
		   unsigned label_bits)
{
	struct ggmlviz__ring *r;
	unsigned mask;
	uint32_t len = 0;
	uint64_t ts;
	uint8_t *p;

	if (GGMLVIZ__UNLIKELY((__atomic_load_n(&ggmlviz__mask, __ATOMIC_RELAXED) & bits) != bits))
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
	e->need = label ? GGMLVIZ_LABELED_RECORD_SIZE + len : GGMLVIZ_RECORD_SIZE;
	ts = ggmlviz__now_ns();
	p = ggmlviz__ring_reserve(r, e->need, ts);
	if (GGMLVIZ__UNLIKELY(!p))
		goto out;
	p[REC_TYPE] = type;
	put_u64(p + REC_TIMESTAMP, ts);
	put_u32(p + REC_THREAD, r->tid);
	p[REC_HAS_LABEL] = label != NULL;
	if (label) {
		put_u32(p + REC_LABEL_LEN, len);
		ggmlviz__label_copy(p + REC_LABEL, label, len);
	}
	e->ring = r;
	return p + REC_PAYLOAD;
out:
	ggmlviz__ring_leave(r);
	return NULL;
}

__attribute__((always_inline)) static inline void ggmlviz__emit_close(struct ggmlviz__emit *e)
{
	ggmlviz__ring_commit(e->ring, e->need);
	ggmlviz__ring_leave(e->ring);
}

/* THREAD_FREE for the calling thread, if thread tracking is on (registry.c). */
void ggmlviz__emit_thread_free(void);

#endif /* GGMLVIZ_EMIT_H */
