/*
 * Spans of a ring's records (see span.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "clock.h"
#include "format/record.h"
#include "span.h"

static int is_drop_note(const uint8_t *rec)
{
	return rec[REC_TYPE] == GGMLVIZ_EVENT_META &&
	       get_u32(rec + REC_PAYLOAD + META_KIND) == GGMLVIZ_META_DROPPED;
}

/*
 * The record at pos gets nanoseconds for its raw stamp, where the writer
 * reads it: in place, and at the start for the bytes copied there (a
 * record running past the end is whole in the slack after it).
 */
static void convert_stamp(const struct ggmlviz__ring *r, uint64_t pos)
{
	uint8_t *whole = r->buf + (pos & r->mask) + REC_TIMESTAMP;
	uint8_t ns[8];

	put_u64(ns, ggmlviz__clock_to_ns(get_u64(whole)));
	memcpy(whole, ns, 8);
	if ((pos & r->mask) + REC_TIMESTAMP + 8 > r->mask + 1) /* bytes past the end: sent from the start */
		for (unsigned k = 0; k < 8; k++)
			r->buf[(pos + REC_TIMESTAMP + k) & r->mask] = ns[k];
}

static uint64_t record_size(const uint8_t *rec)
{
	return rec[REC_HAS_LABEL] ? record_size_labeled(get_u32(rec + REC_LABEL_LEN))
				  : GGMLVIZ_RECORD_SIZE;
}

uint64_t ggmlviz__span_scan(const struct ggmlviz__ring *r, uint64_t from, uint64_t to,
			    uint64_t limit, uint64_t max_bytes, int convert,
			    struct ggmlviz__scan *sc)
{
	uint64_t pos = from;

	memset(sc, 0, sizeof *sc);
	while (pos < to) {
		const uint8_t *rec = r->buf + (pos & r->mask);
		int note = is_drop_note(rec);
		uint64_t size = record_size(rec);

		if (!note && sc->events == limit)
			break;
		if (pos > from && pos + size - from > max_bytes)
			break;
		if (convert)
			convert_stamp(r, pos);
		sc->events += (uint64_t)!note;
		sc->notes += (uint64_t)note;
		if (note)
			sc->noted += get_u64(rec + REC_PAYLOAD + META_VALUE);
		pos += size;
	}
	return pos;
}

void ggmlviz__span_add_bytes(struct ggmlviz__writer *w, const void *base, size_t len)
{
	if (len == 0)
		return;
	w->iov[w->n_iov].iov_base = (void *)(uintptr_t)base;
	w->iov[w->n_iov].iov_len = len;
	w->n_iov++;
}

void ggmlviz__span_add(struct ggmlviz__writer *w, const struct ggmlviz__ring *r, uint64_t from,
		       uint64_t to)
{
	uint64_t off = from & r->mask, len = to - from, size = r->mask + 1;

	if (off + len <= size) {
		ggmlviz__span_add_bytes(w, r->buf + off, (size_t)len);
	} else {
		ggmlviz__span_add_bytes(w, r->buf + off, (size_t)(size - off));
		ggmlviz__span_add_bytes(w, r->buf, (size_t)(len - (size - off)));
	}
}
