/*
 * Packed times: OP_TIMES and SHARE_TIMES records (see packed.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include <ggmlviz/format.h>

#include "format/record.h"
#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/producer/emit.h"
#include "tracer/producer/packed.h"

static inline uint32_t at(const struct ggmlviz__times *t, uint32_t j)
{
	return t->node ? t->node[j] : j;
}

static inline uint64_t begin_of(const struct ggmlviz__times *t, uint32_t j)
{
	return t->begin[at(t, j)];
}

static inline uint64_t end_of(const struct ggmlviz__times *t, uint32_t j)
{
	return t->end[at(t, j)];
}

int ggmlviz__times_pack(const struct ggmlviz__times *t, uint64_t until)
{
	uint64_t prev;

	if (!t->n)
		return 0;
	prev = begin_of(t, 0);
	for (uint32_t j = 0; j < t->n; j++) {
		if (begin_of(t, j) < prev || end_of(t, j) < begin_of(t, j))
			return 0;
		prev = end_of(t, j);
	}
	if (until && until < prev)
		return 0;
	return ggmlviz__times_fit(begin_of(t, 0), until ? until : prev);
}

/* Shifted stamps from base (which they follow; times_pack checked they fit). */
static inline uint32_t offset(uint64_t stamp, uint64_t base, unsigned shift)
{
	return (uint32_t)((stamp - base) >> shift);
}

/*
 * Entries [first, first + k) of t as a body's gaps and durations, from
 * base; returns the last one's end as an offset from base. Offsets are
 * shifted before they are subtracted, so that the chain adds up to them.
 * What the loop reads is in locals first: a store through the body's
 * bytes may alias anything, and would have each read again at every entry.
 */
static uint32_t put_times(uint8_t *body, const struct ggmlviz__times *t, uint32_t first,
			  uint32_t k, uint64_t base)
{
	const uint64_t *begin = t->begin, *end = t->end;
	const uint32_t *node = t->node ? t->node + first : NULL;
	const unsigned shift = ggmlviz__clock_share_shift;
	uint32_t prev = 0;

	for (uint32_t j = 0; j < k; j++) {
		uint32_t i = node ? node[j] : first + j;
		uint32_t b = offset(begin[i], base, shift);
		uint32_t e = offset(end[i], base, shift);

		put_u32(body + GGMLVIZ_OP_TIMES_ENTRY * j + TIMES_GAP, b - prev);
		put_u32(body + GGMLVIZ_OP_TIMES_ENTRY * j + TIMES_DURATION, e - b);
		prev = e;
	}
	return prev;
}

static inline uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * Opens an OP_TIMES record of set's entries [first, first + k) at raw stamp
 * base, its payload written: the body's place, for the caller to fill and
 * close e; NULL where the ring dropped it (counted there).
 */
static uint8_t *open_op_times(struct ggmlviz__emit *e, uint64_t set, uint8_t method,
			      uint8_t flags, uint32_t first, uint32_t k, uint64_t base)
{
	uint8_t *body, *pl = ggmlviz__emit_open_body(e, GGMLVIZ__ACTIVE | GGMLVIZ__OPS,
						     GGMLVIZ_EVENT_OP_TIMES,
						     k * GGMLVIZ_OP_TIMES_ENTRY, base, &body);

	if (!pl)
		return NULL;
	memset(pl, 0, GGMLVIZ_PAYLOAD_SIZE);
	put_u64(pl + TIMES_SET, set);
	put_u32(pl + TIMES_FIRST, first);
	put_u32(pl + TIMES_COUNT, k);
	pl[TIMES_METHOD] = method;
	pl[TIMES_FLAGS] = first ? 0 : flags;
	return body;
}

uint32_t ggmlviz__emit_op_times(uint64_t set, uint8_t method, uint8_t flags,
				const struct ggmlviz__times *t)
{
	uint32_t records = 0;

	for (uint32_t first = 0; first < t->n; first += GGMLVIZ__TIMES_PER_RECORD) {
		uint32_t k = min_u32(GGMLVIZ__TIMES_PER_RECORD, t->n - first);
		uint64_t base = begin_of(t, first);
		struct ggmlviz__emit e;
		uint8_t *body = open_op_times(&e, set, method, flags, first, k, base);

		if (!body)
			continue;
		put_times(body, t, first, k, base);
		ggmlviz__emit_close(&e);
		records++;
	}
	return records;
}

uint32_t ggmlviz__emit_op_times_copy(uint64_t set, uint8_t method, uint8_t flags,
				     const struct ggmlviz__packed_copy *c)
{
	uint32_t records = 0;

	for (uint32_t first = 0; first < c->n; first += GGMLVIZ__TIMES_PER_RECORD) {
		uint32_t k = min_u32(GGMLVIZ__TIMES_PER_RECORD, c->n - first);
		struct ggmlviz__emit e;
		uint8_t *body = open_op_times(&e, set, method, flags, first, k,
					      c->base[first / GGMLVIZ__TIMES_PER_RECORD]);

		if (!body)
			continue;
		memcpy(body, c->body + (size_t)first * GGMLVIZ_OP_TIMES_ENTRY,
		       (size_t)k * GGMLVIZ_OP_TIMES_ENTRY);
		ggmlviz__emit_close(&e);
		records++;
	}
	return records;
}

void ggmlviz__packed_copy_stamps(const struct ggmlviz__packed_copy *c, uint64_t *begin,
				 uint64_t *end)
{
	const unsigned shift = ggmlviz__clock_share_shift;
	uint64_t base = 0, at = 0;

	for (uint32_t j = 0; j < c->n; j++) {
		const uint8_t *entry = c->body + (size_t)j * GGMLVIZ_OP_TIMES_ENTRY;

		if (j % GGMLVIZ__TIMES_PER_RECORD == 0) {
			base = c->base[j / GGMLVIZ__TIMES_PER_RECORD];
			at = 0; /* each record's chain starts at its own stamp */
		}
		at += get_u32(entry + TIMES_GAP);
		begin[j] = base + (at << shift);
		at += get_u32(entry + TIMES_DURATION);
		end[j] = base + (at << shift);
	}
}

/* A DEFINE body's identities of shares [first, first + k). */
static void put_identities(uint8_t *body, const struct ggmlviz__shares_pack *sp, uint32_t first,
			   uint32_t k)
{
	for (uint32_t j = 0; j < k; j++) {
		uint8_t *id = body + GGMLVIZ_SHARE_TIMES_IDENTITY * j;

		put_u64(id + STIMES_ID_TENSOR, sp->tensor[first + j]);
		put_u32(id + STIMES_ID_TYPE, sp->op_type[first + j]);
		put_u32(id + STIMES_ID_NODE, at(&sp->times, first + j));
	}
}

/* One SHARE_TIMES record of shares [first, first + k); 1 if written. */
static uint32_t emit_shares(const struct ggmlviz__shares_pack *sp, uint32_t first, uint32_t k)
{
	const struct ggmlviz__times *t = &sp->times;
	uint32_t ids = sp->mode == GGMLVIZ_DESC_SET_DEFINE ? GGMLVIZ_SHARE_TIMES_IDENTITY * k : 0;
	uint64_t base = begin_of(t, first);
	uint64_t next = first + k < t->n ? begin_of(t, first + k) : sp->done;
	struct ggmlviz__emit e;
	uint8_t *body, *pl = ggmlviz__emit_open_body(&e, GGMLVIZ__ACTIVE | GGMLVIZ__OPS,
						     GGMLVIZ_EVENT_SHARE_TIMES,
						     ids + k * GGMLVIZ_OP_TIMES_ENTRY, base, &body);
	uint32_t last;

	if (!pl)
		return 0;
	memset(pl, 0, GGMLVIZ_PAYLOAD_SIZE);
	put_u64(pl + STIMES_SET, sp->set);
	put_u32(pl + STIMES_FIRST, first);
	put_u32(pl + STIMES_COUNT, k);
	pl[STIMES_MODE] = sp->mode;
	put_u32(pl + STIMES_ITH, sp->ith);
	put_u32(pl + STIMES_NTH, sp->nth);
	if (ids)
		put_identities(body, sp, first, k);
	last = put_times(body + ids, t, first, k, base);
	if (sp->copy) { /* REPEAT: its body is the times alone */
		memcpy(sp->copy->body + (size_t)first * GGMLVIZ_OP_TIMES_ENTRY, body,
		       (size_t)k * GGMLVIZ_OP_TIMES_ENTRY);
		sp->copy->base[first / GGMLVIZ__TIMES_PER_RECORD] = base;
	}
	put_u32(pl + STIMES_LAST_WAIT, offset(next, base, ggmlviz__clock_share_shift) - last);
	ggmlviz__emit_close(&e);
	return 1;
}

uint32_t ggmlviz__emit_share_times(const struct ggmlviz__shares_pack *sp)
{
	uint32_t per = sp->mode == GGMLVIZ_DESC_SET_DEFINE ? GGMLVIZ__SHARES_DEFINED_PER_RECORD
							   : GGMLVIZ__TIMES_PER_RECORD;
	uint32_t records = 0, want = 0;

	if (sp->copy)
		sp->copy->n = 0;
	for (uint32_t first = 0; first < sp->times.n; first += per, want++)
		records += emit_shares(sp, first, min_u32(per, sp->times.n - first));
	if (sp->copy && records == want)
		sp->copy->n = sp->times.n;
	return records;
}
