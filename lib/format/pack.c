/*
 * Packing and unpacking a run of records (see pack.h and ggmlviz(5),
 * "Packed records").
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "pack.h"
#include "record.h"

/* ---- varints ---- */

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static uint64_t zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)-(int64_t)(delta >> 63);
}

static uint64_t unzigzag(uint64_t v)
{
	return (v >> 1) ^ (uint64_t)-(int64_t)(v & 1);
}

/* ---- packing ---- */

static uint8_t *body_of(const struct ggmlviz__pack_enc *e)
{
	return e->rec + REC_LABEL;
}

/* Whether rec's label is the run's last label of its type. */
static int same_label(const struct ggmlviz__pack_enc *e, const struct ggmlviz__pack_last *l,
		      const uint8_t *rec)
{
	uint32_t len = get_u32(rec + REC_LABEL_LEN);

	return l->has_label && l->label_len == len &&
	       !memcmp(body_of(e) + l->label_at, rec + REC_LABEL, len);
}

/* The label's code (and bytes); returns the bytes written at p. */
static size_t put_label(struct ggmlviz__pack_enc *e, struct ggmlviz__pack_last *l,
			const uint8_t *rec, uint8_t *p)
{
	uint32_t len;
	size_t n;

	if (!rec[REC_HAS_LABEL]) {
		l->has_label = 0;
		return put_varint(p, 0);
	}
	if (same_label(e, l, rec))
		return put_varint(p, 1);
	len = get_u32(rec + REC_LABEL_LEN);
	n = put_varint(p, (uint64_t)len + 2);
	memcpy(p + n, rec + REC_LABEL, len);
	l->has_label = 1;
	l->label_at = (uint32_t)(p + n - body_of(e));
	l->label_len = len;
	return n + len;
}

size_t ggmlviz__pack_add(struct ggmlviz__pack_enc *e, const uint8_t *rec)
{
	uint8_t type = rec[REC_TYPE], *p = body_of(e) + e->len, *mask;
	struct ggmlviz__pack_last *l = &e->last[type];
	uint64_t ts = get_u64(rec + REC_TIMESTAMP);
	size_t n = 0;

	if (!(e->seen >> type & 1)) {
		memset(l, 0, sizeof *l);
		e->seen |= (uint64_t)1 << type;
	}
	p[n++] = type;
	n += put_varint(p + n, zigzag(ts - e->ts));
	mask = p + n++;
	*mask = 0;
	for (unsigned i = 0; i < GGMLVIZ__PACK_WORDS; i++) {
		uint32_t now = get_u32(rec + REC_PAYLOAD + 4 * i);
		uint32_t x = now ^ get_u32(l->payload + 4 * i);

		if (x) {
			*mask |= (uint8_t)(1u << i);
			n += put_varint(p + n, x);
		}
	}
	memcpy(l->payload, rec + REC_PAYLOAD, GGMLVIZ_PAYLOAD_SIZE);
	n += put_label(e, l, rec, p + n);
	e->ts = ts;
	e->len += (uint32_t)n;
	e->n++;
	return n;
}

size_t ggmlviz__pack_open(struct ggmlviz__pack_enc *e, uint8_t *out, const uint8_t *rec)
{
	e->rec = out;
	e->len = e->n = 0;
	e->seen = 0;
	e->ts = get_u64(rec + REC_TIMESTAMP);
	memset(out, 0, GGMLVIZ_LABELED_RECORD_SIZE);
	out[REC_TYPE] = GGMLVIZ_EVENT_PACK;
	memcpy(out + REC_TIMESTAMP, rec + REC_TIMESTAMP, 8);
	memcpy(out + REC_THREAD, rec + REC_THREAD, 4);
	out[REC_HAS_LABEL] = 1;
	return GGMLVIZ_LABELED_RECORD_SIZE + ggmlviz__pack_add(e, rec);
}

size_t ggmlviz__pack_close(struct ggmlviz__pack_enc *e)
{
	put_u32(e->rec + REC_PAYLOAD + PACK_COUNT, e->n);
	put_u32(e->rec + REC_LABEL_LEN, e->len);
	return GGMLVIZ_LABELED_RECORD_SIZE + (size_t)e->len;
}

int ggmlviz__pack_joins(const struct ggmlviz__pack_enc *e, const uint8_t *rec, size_t n)
{
	return ggmlviz__pack_packable(rec[REC_TYPE]) &&
	       !memcmp(e->rec + REC_THREAD, rec + REC_THREAD, 4) &&
	       e->len + n + GGMLVIZ__PACK_INNER_MAX <= GGMLVIZ__PACK_BODY_MAX;
}

size_t ggmlviz__pack_trace(const uint8_t *data, size_t size, uint8_t *out)
{
	static struct ggmlviz__pack_enc e; /* 3 KiB: not on a test's stack */
	size_t o = GGMLVIZ_HEADER_SIZE, pos = GGMLVIZ_HEADER_SIZE, n;
	int open = 0;

	memcpy(out, data, GGMLVIZ_HEADER_SIZE);
	for (; pos + GGMLVIZ_RECORD_SIZE <= size; pos += n) {
		const uint8_t *rec = data + pos;

		if ((n = (size_t)record_size_at(rec)) > size - pos)
			break; /* cut short: left out */
		if (open && ggmlviz__pack_joins(&e, rec, n)) {
			o += ggmlviz__pack_add(&e, rec);
			continue;
		}
		if (open)
			ggmlviz__pack_close(&e);
		open = ggmlviz__pack_packable(rec[REC_TYPE]);
		if (open) {
			o += ggmlviz__pack_open(&e, out + o, rec);
		} else {
			memcpy(out + o, rec, n);
			o += n;
		}
	}
	if (open)
		ggmlviz__pack_close(&e);
	return o;
}

/* ---- unpacking ---- */

void ggmlviz__pack_start(struct ggmlviz__pack_dec *d, const struct ggmlviz_event *ev)
{
	d->body = (const uint8_t *)ev->label;
	d->len = ev->label ? ev->label_len : 0;
	d->at = 0;
	d->count = ev->data.pack.n_records;
	d->done = 0;
	d->ts = ev->timestamp_ns;
	d->tid = ev->thread_id;
	d->seen = 0;
	d->why = NULL;
}

/* A varint at *at (moved past it); 0 or -1 if the body ends inside it or it is too long. */
static int get_varint(const struct ggmlviz__pack_dec *d, uint32_t *at, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		uint8_t b;

		if (*at >= d->len)
			return -1;
		b = d->body[(*at)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

static int corrupt(struct ggmlviz__pack_dec *d, const char *why)
{
	d->why = why;
	return GGMLVIZ_ECORRUPT;
}

/* The payload's words, from the mask and the type's last payload. */
static int get_payload(struct ggmlviz__pack_dec *d, uint32_t *at, struct ggmlviz__pack_last *l)
{
	uint64_t x;
	uint8_t mask;

	if (*at >= d->len)
		return corrupt(d, "the body ends before a record's mask");
	mask = d->body[(*at)++];
	for (unsigned i = 0; i < GGMLVIZ__PACK_WORDS; i++) {
		if (!(mask >> i & 1))
			continue;
		if (get_varint(d, at, &x) < 0)
			return corrupt(d, "a payload word runs past the body");
		if (x > UINT32_MAX)
			return corrupt(d, "a payload word is wider than 32 bits");
		put_u32(l->payload + 4 * i, get_u32(l->payload + 4 * i) ^ (uint32_t)x);
	}
	return 0;
}

static int get_label(struct ggmlviz__pack_dec *d, uint32_t *at, struct ggmlviz__pack_last *l,
		     struct ggmlviz__pack_inner *in)
{
	uint64_t code;

	if (get_varint(d, at, &code) < 0)
		return corrupt(d, "a label's length runs past the body");
	if (code == 1 && !l->has_label)
		return corrupt(d, "a label repeats where its type had none");
	if (code >= 2) {
		if (code - 2 > d->len - *at)
			return corrupt(d, "a label runs past the body");
		l->has_label = 1;
		l->label_at = *at;
		l->label_len = (uint32_t)(code - 2);
		*at += l->label_len;
	} else if (code == 0) {
		l->has_label = 0;
	}
	in->label = l->has_label ? (const char *)d->body + l->label_at : NULL;
	in->label_len = l->has_label ? l->label_len : 0;
	return 0;
}

/* The fixed part of the record, as it was. */
static void put_fixed(const struct ggmlviz__pack_dec *d, uint8_t type,
		      const struct ggmlviz__pack_last *l, struct ggmlviz__pack_inner *in)
{
	in->fixed[REC_TYPE] = type;
	put_u64(in->fixed + REC_TIMESTAMP, d->ts);
	put_u32(in->fixed + REC_THREAD, d->tid);
	memcpy(in->fixed + REC_PAYLOAD, l->payload, GGMLVIZ_PAYLOAD_SIZE);
	in->fixed[REC_HAS_LABEL] = 0;
}

int ggmlviz__pack_next(struct ggmlviz__pack_dec *d, struct ggmlviz__pack_inner *in)
{
	uint32_t at = d->at;
	struct ggmlviz__pack_last *l;
	uint64_t delta;
	uint8_t type;
	int rc;

	if (d->done == d->count)
		return at == d->len ? 0 : corrupt(d, "bytes follow the last record its count says");
	if (at >= d->len)
		return corrupt(d, "the body ends before the records its count says");
	in->at = at;
	type = d->body[at++];
	if (!ggmlviz__pack_packable(type))
		return corrupt(d, "a record's type is not one a run holds (META, THREAD_BEGIN, PACK, 64 and up)");
	l = &d->last[type];
	if (!(d->seen >> type & 1)) {
		memset(l, 0, sizeof *l);
		d->seen |= (uint64_t)1 << type;
	}
	if (get_varint(d, &at, &delta) < 0)
		return corrupt(d, "a record's time runs past the body");
	if ((rc = get_payload(d, &at, l)) < 0 || (rc = get_label(d, &at, l, in)) < 0)
		return rc;
	d->ts += unzigzag(delta);
	put_fixed(d, type, l, in);
	d->at = at;
	d->done++;
	return 1;
}
