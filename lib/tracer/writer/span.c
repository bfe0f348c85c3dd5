/*
 * Spans of a ring's records, as the writer handles them (see internal.h):
 * walking them (counting events and the producer's DROPPED notes,
 * converting raw stamps to nanoseconds, anonymizing) and queueing their
 * bytes for a batch written with one writev(2).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include <ggmlviz/format.h>

#include "format/record.h"
#include "tracer/base/clock.h"
#include "tracer/writer/internal.h"

static int is_drop_note(const uint8_t *rec)
{
	return rec[REC_TYPE] == GGMLVIZ_EVENT_META &&
	       get_u32(rec + REC_PAYLOAD + META_KIND) == GGMLVIZ_META_DROPPED;
}

/*
 * Bytes [from, to) of the record at pos, changed where the writer reads it
 * whole (a record running past the end is whole in the slack after it),
 * copied to the start where they were sent from there.
 */
static void resync(const struct ggmlviz__ring *r, uint64_t pos, unsigned from, unsigned to)
{
	const uint8_t *whole = r->cbuf + (pos & r->cmask);

	if ((pos & r->cmask) + to <= r->cmask + 1)
		return;
	for (unsigned k = from; k < to; k++)
		r->cbuf[(pos + k) & r->cmask] = whole[k];
}

/*
 * An OP_SUMMARY record's total and longest time: raw stamp differences
 * (producer.h), made nanoseconds at the rate of the record's stretch.
 */
static void convert_summary(const struct ggmlviz__ring *r, uint64_t pos,
			    const struct ggmlviz__clock_span *cs)
{
	__extension__ typedef unsigned __int128 u128;
	uint8_t *whole = r->cbuf + (pos & r->cmask);
	static const unsigned fields[] = { SUM_TOTAL, SUM_MAX };

	for (unsigned i = 0; i < 2; i++) {
		uint8_t *field = whole + REC_PAYLOAD + fields[i];

		put_u64(field, (uint64_t)(((u128)get_u64(field) * cs->mult) >> 32));
		resync(r, pos, REC_PAYLOAD + fields[i], REC_PAYLOAD + fields[i] + 8);
	}
}

/*
 * An OP_SHARE record's compute and wait: raw stamp differences shifted
 * right (shares.c, clock.h), shifted back and made nanoseconds the same
 * way, and held to 32 bits (4.29 s).
 */
static void convert_share(const struct ggmlviz__ring *r, uint64_t pos,
			  const struct ggmlviz__clock_span *cs)
{
	__extension__ typedef unsigned __int128 u128;
	uint8_t *whole = r->cbuf + (pos & r->cmask);
	static const unsigned fields[] = { SHARE_COMPUTE, SHARE_WAIT };

	for (unsigned i = 0; i < 2; i++) {
		uint8_t *field = whole + REC_PAYLOAD + fields[i];
		uint64_t stamps = (uint64_t)get_u32(field) << ggmlviz__clock_share_shift;
		uint64_t ns = (uint64_t)(((u128)stamps * cs->mult) >> 32);

		put_u32(field, ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns);
		resync(r, pos, REC_PAYLOAD + fields[i], REC_PAYLOAD + fields[i] + 4);
	}
}

/*
 * Where a packed body's offsets are made nanoseconds (packed.c): from the
 * record's raw stamp, each offset's stamp converted in its own stretch of
 * the clock (as a record of its own would be), less the record's.
 */
struct offsets {
	uint64_t stamp, ns;                 /* the record's stamp, and its nanoseconds */
	struct ggmlviz__clock_offsets near; /* in the record's stretch (convert_near()) */
	struct ggmlviz__clock_span span;    /* the stretch of the last offset past it */
};

/*
 * The stretch that holds stamp, returned: only this call's copy has its
 * address taken, so that a caller's stays in registers while it stores
 * through a body's bytes (which may alias anything whose address escaped).
 */
static __attribute__((noinline)) struct ggmlviz__clock_span span_at(uint64_t stamp)
{
	struct ggmlviz__clock_span s;

	ggmlviz__clock_span_of(stamp, &s);
	return s;
}

/* Shifted stamps from the record's stamp, as nanoseconds from its nanoseconds. */
static inline uint64_t offset_ns(struct offsets *o, uint64_t shifted, unsigned shift)
{
	uint64_t stamp = o->stamp + (shifted << shift);

	if (stamp < o->span.from || stamp >= o->span.to)
		o->span = span_at(stamp);
	return ggmlviz__clock_span_ns(&o->span, stamp) - o->ns;
}

static inline uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* A packed body's last end: its gaps and durations added, a shifted offset. */
static uint64_t body_end(const uint8_t *body, uint32_t n)
{
	uint64_t at = 0;

	for (uint32_t k = 0; k < n; k++)
		at += (uint64_t)get_u32(body + GGMLVIZ_OP_TIMES_ENTRY * k + TIMES_GAP) +
		      get_u32(body + GGMLVIZ_OP_TIMES_ENTRY * k + TIMES_DURATION);
	return at;
}

/*
 * convert_times() for a body all in the record's own stretch (every body
 * but one across a calibration point): an offset is a multiply, and a
 * later one never converts to less, so no difference needs a floor.
 */
static void convert_near(uint8_t *body, uint32_t n, struct ggmlviz__clock_offsets near,
			 unsigned shift)
{
	uint64_t at = 0, end_ns = 0;

	for (uint32_t k = 0; k < n; k++) {
		uint8_t *gap = body + GGMLVIZ_OP_TIMES_ENTRY * k + TIMES_GAP;
		uint8_t *dur = body + GGMLVIZ_OP_TIMES_ENTRY * k + TIMES_DURATION;
		uint64_t begin_ns, e;

		at += get_u32(gap);
		begin_ns = ggmlviz__clock_offset_ns(&near, at << shift);
		at += get_u32(dur);
		e = ggmlviz__clock_offset_ns(&near, at << shift);
		put_u32(gap, clamp32(begin_ns - end_ns));
		put_u32(dur, clamp32(e - begin_ns));
		end_ns = e;
	}
}

/*
 * A packed body's n gaps and durations: shifted stamps chained from the
 * record's stamp, made nanoseconds by their offsets (each rounding once,
 * none adding up along the body); returns the last end's offset, shifted.
 */
static uint64_t convert_times(uint8_t *body, uint32_t n, struct offsets *to)
{
	struct offsets o = *to; /* in registers through the loop (span_at()) */
	const unsigned shift = ggmlviz__clock_share_shift;
	uint64_t at = body_end(body, n), end_ns = 0;

	if ((at << shift) < o.near.near) {
		convert_near(body, n, o.near, shift);
		return at;
	}
	at = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint8_t *gap = body + GGMLVIZ_OP_TIMES_ENTRY * k + TIMES_GAP;
		uint8_t *dur = body + GGMLVIZ_OP_TIMES_ENTRY * k + TIMES_DURATION;
		uint64_t begin_ns, e;

		at += get_u32(gap);
		begin_ns = offset_ns(&o, at, shift);
		at += get_u32(dur);
		e = offset_ns(&o, at, shift);
		put_u32(gap, clamp32(begin_ns >= end_ns ? begin_ns - end_ns : 0));
		put_u32(dur, clamp32(e >= begin_ns ? e - begin_ns : 0));
		end_ns = e;
	}
	*to = o;
	return at;
}

/*
 * An OP_TIMES or SHARE_TIMES record's body (and SHARE_TIMES' last wait),
 * made nanoseconds; stamp is the record's raw stamp, cs its stretch.
 */
static void convert_packed(const struct ggmlviz__ring *r, uint64_t pos, uint64_t stamp,
			   const struct ggmlviz__clock_span *cs)
{
	uint8_t *whole = r->cbuf + (pos & r->cmask), *pl = whole + REC_PAYLOAD;
	int shares = whole[REC_TYPE] == GGMLVIZ_EVENT_SHARE_TIMES;
	uint32_t n = get_u32(pl + (shares ? STIMES_COUNT : TIMES_COUNT));
	uint32_t ids = shares && pl[STIMES_MODE] == GGMLVIZ_DESC_SET_DEFINE
			       ? n * GGMLVIZ_SHARE_TIMES_IDENTITY : 0;
	uint32_t len = whole[REC_HAS_LABEL] ? get_u32(whole + REC_LABEL_LEN) : 0;
	struct offsets o = { stamp, ggmlviz__clock_span_ns(cs, stamp),
			     ggmlviz__clock_offsets_from(cs, stamp), *cs };
	uint64_t last, last_ns, next_ns;

	if ((uint64_t)ids + (uint64_t)n * GGMLVIZ_OP_TIMES_ENTRY != len)
		return; /* not the tracer's (packed.c writes them so): left as it is */
	last = convert_times(whole + REC_LABEL + ids, n, &o);
	resync(r, pos, REC_LABEL + ids, REC_LABEL + len);
	if (!shares)
		return;
	last_ns = offset_ns(&o, last, ggmlviz__clock_share_shift);
	next_ns = offset_ns(&o, last + get_u32(pl + STIMES_LAST_WAIT), ggmlviz__clock_share_shift);
	put_u32(pl + STIMES_LAST_WAIT, clamp32(next_ns >= last_ns ? next_ns - last_ns : 0));
	resync(r, pos, REC_PAYLOAD + STIMES_LAST_WAIT, REC_PAYLOAD + STIMES_LAST_WAIT + 4);
}

/* The record at pos gets nanoseconds for its raw stamp; cs is the stretch of the last one. */
static void convert_stamp(const struct ggmlviz__ring *r, uint64_t pos,
			  struct ggmlviz__clock_span *cs)
{
	uint8_t *whole = r->cbuf + (pos & r->cmask);
	uint64_t stamp = get_u64(whole + REC_TIMESTAMP);

	if (whole[REC_TYPE] == GGMLVIZ_EVENT_KERNEL)
		return; /* the GPU's sink wrote the trace's nanoseconds (producer.h) */
	if (stamp < cs->from || stamp >= cs->to)
		ggmlviz__clock_span_of(stamp, cs);
	put_u64(whole + REC_TIMESTAMP, ggmlviz__clock_span_ns(cs, stamp));
	resync(r, pos, REC_TIMESTAMP, REC_TIMESTAMP + 8);
	if (whole[REC_TYPE] == GGMLVIZ_EVENT_OP_SUMMARY)
		convert_summary(r, pos, cs);
	else if (whole[REC_TYPE] == GGMLVIZ_EVENT_OP_SHARE)
		convert_share(r, pos, cs);
	else if (whole[REC_TYPE] == GGMLVIZ_EVENT_OP_TIMES ||
		 whole[REC_TYPE] == GGMLVIZ_EVENT_SHARE_TIMES)
		convert_packed(r, pos, stamp, cs);
}

/* Every address of the record at pos becomes its id (GGML_VIZ_ANONYMIZE). */
static void anonymize(const struct ggmlviz__ring *r, uint64_t pos)
{
	ggmlviz__anon_record(r->cbuf + (pos & r->cmask));
	resync(r, pos, REC_PAYLOAD, REC_PAYLOAD + GGMLVIZ_PAYLOAD_SIZE);
	resync(r, pos, REC_LABEL, REC_LABEL + ggmlviz__anon_body(r->cbuf + (pos & r->cmask)));
}

uint64_t ggmlviz__span_scan(const struct ggmlviz__ring *r, uint64_t from, uint64_t to,
			    uint64_t limit, uint64_t max_bytes, int convert,
			    struct ggmlviz__scan *sc, struct ggmlviz__writer *keep)
{
	struct ggmlviz__clock_span cs = { 1, 0, 0, 0 }; /* holds no stamp */
	uint64_t pos = from;

	memset(sc, 0, sizeof *sc);
	while (pos < to) {
		const uint8_t *rec = r->cbuf + (pos & r->cmask);
		int note = is_drop_note(rec);
		uint64_t size = record_size_at(rec);

		if (!note && sc->events == limit)
			break;
		if (pos > from && pos + size - from > max_bytes)
			break;
		if (convert)
			convert_stamp(r, pos, &cs);
		if (convert && ggmlviz__state.anonymize)
			anonymize(r, pos);
		if (keep && ggmlviz__kept_takes(rec))
			ggmlviz__kept_add(&keep->kept, rec, (uint32_t)size, &keep->sink);
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
	uint64_t off = from & r->cmask, len = to - from, size = r->cmask + 1;

	if (off + len <= size) {
		ggmlviz__span_add_bytes(w, r->cbuf + off, (size_t)len);
	} else {
		ggmlviz__span_add_bytes(w, r->cbuf + off, (size_t)(size - off));
		ggmlviz__span_add_bytes(w, r->cbuf, (size_t)(len - (size - off)));
	}
}
