/*
 * Perfetto's own trace format (see export.h): a Trace message, that is a
 * stream of TracePackets, each a track descriptor, interned strings or a
 * TrackEvent, written from Perfetto's documented schema
 * (tests/data/perfetto_trace.proto keeps the part used here) without its
 * SDK. All packets are one sequence; names, categories, argument names
 * and argument strings are interned (sent once, then referred to by a
 * number), so that an op costs about a third of its JSON.
 *
 * A slice is a SLICE_BEGIN and a SLICE_END packet. Trace Processor sorts
 * packets by time and, at equal times, keeps the file's order, while the
 * pairing completes a slice after the slices inside it: a parent that
 * begins on the same nanosecond as its first child (a GPU op and its
 * kernel) must still come first. So slices are held a step at a time and
 * written per track in nesting order (nest.c). Memory stays bounded
 * whatever the trace's size: the held slices, the tracks, and at most
 * INTERN_MAX interned strings.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"

/* Field numbers of Perfetto's schema (protos/perfetto/trace/...). */
enum {
	TRACE_PACKET = 1,
	PACKET_TIMESTAMP = 8, PACKET_SEQUENCE = 10, PACKET_TRACK_EVENT = 11,
	PACKET_INTERNED = 12, PACKET_FLAGS = 13, PACKET_TRACK = 60,
	EVENT_CATEGORY_IIDS = 3, EVENT_ANNOTATION = 4, EVENT_TYPE = 9, EVENT_NAME_IID = 10,
	EVENT_TRACK = 11, EVENT_CATEGORY = 22, EVENT_NAME = 23, EVENT_COUNTER = 30,
	EVENT_DOUBLE_COUNTER = 44,
	ANN_NAME_IID = 1, ANN_UINT = 3, ANN_INT = 4, ANN_STRING = 6, ANN_POINTER = 7,
	ANN_NAME = 10, ANN_STRING_IID = 17,
	TRACK_UUID = 1, TRACK_NAME = 2, TRACK_PROCESS = 3, TRACK_THREAD = 4, TRACK_PARENT = 5,
	TRACK_COUNTER = 8,
	PROCESS_PID = 1, PROCESS_NAME = 6, THREAD_PID = 1, THREAD_TID = 2, THREAD_NAME = 5,
	COUNTER_UNIT = 3,
};

/* TrackEvent types, sequence flags, counter units. */
enum { SLICE_BEGIN = 1, SLICE_END = 2, INSTANT = 3, COUNTER = 4 };
enum { STATE_CLEARED = 1, NEEDS_STATE = 2 };
enum { UNIT_COUNT = 2, UNIT_BYTES = 3 };

/* Interned tables: their InternedData field; the entry's string field is 2 in each. */
enum { IN_CATEGORY = 1, IN_NAME = 2, IN_ARG_NAME = 3, IN_ARG_STRING = 29 };

#define SEQUENCE 1
#define INTERN_MAX 65536           /* strings interned; past it, written in place */
#define INTERN_LEN 256             /* longer strings are written in place */
#define OS_TID_LIMIT (1u << 22)    /* OS thread ids stay below; tracks above are not threads */
#define TRACKS_MAX 65536           /* tracks described; what more run goes on one */
#define OTHER_TRACKS 0x7ffffffeu   /* that one's id: no thread's, no GPU track's */

struct interned {
	uint64_t hash, iid;
	uint32_t table, len;
	char s[];
};

/* A track: a process, a thread or a track of one (GPU stream, overlaps), or a counter. */
enum { T_PROCESS, T_THREAD, T_COUNTER };
struct track {
	uint64_t hash, pid, uuid;
	uint32_t kind, id, len; /* id: the thread or track; len: a counter's name */
	char name[];
};

struct cli_perfetto_state {
	struct cli_htab interned, tracks;
	uint64_t next_iid[4], next_uuid; /* each interned table numbers its own */
	uint64_t tracks_over;           /* tracks past TRACKS_MAX asked for */
	size_t n_interned;
	struct cli_pb pkt, tmp;
	struct cli_nest nest; /* slices and instants, held until written in nesting order */
	size_t event;   /* where the open TrackEvent's body starts in pkt */
	bool holding;   /* the event being built is held (a slice or an instant) */
	bool step;      /* it is a step: what is held may be written after it */
	struct cli_nest_slice cur;
	int error;
};

static struct cli_perfetto_state *state(struct cli_esink *s)
{
	return ((struct cli_perfetto *)s)->st;
}

/* One packet, as a field of the Trace message, into the output. */
static void emit(struct cli_perfetto *p, const uint8_t *buf, size_t len)
{
	uint8_t head[11];
	struct cli_pb h = { head, 0, sizeof head, false };

	cli_pb_varint(&h, (uint64_t)TRACE_PACKET << 3 | 2);
	cli_pb_varint(&h, len);
	cli_out_write(p->o, head, h.len);
	cli_out_write(p->o, buf, len);
}

/* tmp, which holds a packet's fields, as a packet of the sequence into the output. */
static void emit_tmp(struct cli_perfetto *p, uint32_t flags)
{
	struct cli_pb *b = &p->st->tmp;

	cli_pb_uint(b, PACKET_SEQUENCE, SEQUENCE);
	if (flags)
		cli_pb_uint(b, PACKET_FLAGS, flags);
	if (b->failed)
		p->st->error = -ENOMEM;
	else
		emit(p, b->buf, b->len);
	b->len = 0;
}

/* What an interned string or a track is looked up by. */
struct key {
	uint64_t pid;
	uint32_t kind, id; /* interned: kind is the table */
	const char *s;
	size_t len;
};

static bool interned_eq(const void *item, const void *key)
{
	const struct interned *a = item;
	const struct key *k = key;

	return a->table == k->kind && a->len == k->len && !memcmp(a->s, k->s, k->len);
}

/* Where a table's next number is kept. */
static unsigned table_index(uint32_t table)
{
	return table == IN_ARG_STRING ? 0 : table; /* 1, 2, 3 stay */
}

/*
 * The number of string s in table, sent in a packet of its own the first
 * time; 0 where it is written in place (too long, or the tables are full).
 */
static uint64_t intern(struct cli_perfetto *p, uint32_t table, const char *s, size_t len)
{
	struct cli_perfetto_state *st = p->st;
	/* s NULL: the name of a scope without a label, empty */
	struct key k = { .kind = table, .s = s ? s : "", .len = s ? len : 0 };
	struct interned *in;
	uint64_t hash;
	size_t body, entry;

	if (k.len > INTERN_LEN)
		return 0;
	s = k.s, len = k.len;
	hash = cli_hash_bytes(s, len, table);
	if ((in = cli_htab_find(&st->interned, hash, interned_eq, &k)))
		return in->iid;
	if (st->n_interned >= INTERN_MAX || !(in = malloc(sizeof *in + len)))
		return 0;
	*in = (struct interned){ hash, st->next_iid[table_index(table)] + 1, table, (uint32_t)len };
	if (len)
		memcpy(in->s, s, len);
	if (cli_htab_add(&st->interned, hash, in) < 0) {
		free(in);
		return 0;
	}
	st->next_iid[table_index(table)]++, st->n_interned++;
	body = cli_pb_open(&st->tmp, PACKET_INTERNED);
	entry = cli_pb_open(&st->tmp, table);
	cli_pb_uint(&st->tmp, 1, in->iid);
	cli_pb_bytes(&st->tmp, 2, s, len);
	cli_pb_close(&st->tmp, entry);
	cli_pb_close(&st->tmp, body);
	emit_tmp(p, NEEDS_STATE);
	return in->iid;
}

static bool track_eq(const void *item, const void *key)
{
	const struct track *a = item;
	const struct key *k = key;

	return a->kind == k->kind && a->pid == k->pid && a->id == k->id && a->len == k->len &&
	       !memcmp(a->name, k->s, k->len);
}

/* The TrackDescriptor of t into the output, named name (may be NULL). */
static void describe(struct cli_perfetto *p, const struct track *t, uint64_t parent,
		     const char *name, size_t len)
{
	struct cli_pb *b = &p->st->tmp;
	size_t body = cli_pb_open(b, PACKET_TRACK), sub;

	cli_pb_uint(b, TRACK_UUID, t->uuid);
	if (parent)
		cli_pb_uint(b, TRACK_PARENT, parent);
	if (t->kind == T_PROCESS) {
		sub = cli_pb_open(b, TRACK_PROCESS);
		cli_pb_int(b, PROCESS_PID, (int32_t)t->pid);
		if (name)
			cli_pb_bytes(b, PROCESS_NAME, name, len);
		cli_pb_close(b, sub);
	} else if (t->kind == T_THREAD && t->id < OS_TID_LIMIT) {
		sub = cli_pb_open(b, TRACK_THREAD);
		cli_pb_int(b, THREAD_PID, (int32_t)t->pid);
		cli_pb_int(b, THREAD_TID, (int32_t)t->id);
		if (name)
			cli_pb_bytes(b, THREAD_NAME, name, len);
		cli_pb_close(b, sub);
	} else if (name || t->id == OTHER_TRACKS) {
		cli_pb_bytes(b, TRACK_NAME, name ? name : "(other tracks)", name ? len : 14);
	}
	if (t->kind == T_COUNTER) {
		sub = cli_pb_open(b, TRACK_COUNTER);
		cli_pb_uint(b, COUNTER_UNIT, name && len == 17 && !memcmp(name, "live tensor bytes", 17)
						     ? UNIT_BYTES : UNIT_COUNT);
		cli_pb_close(b, sub);
	}
	cli_pb_close(b, body);
	emit_tmp(p, 0);
}

/*
 * The uuid of a track (a process's, a thread's or a counter's), described
 * in the output the first time, or again when name is given; 0 when
 * memory ran out.
 */
static uint64_t track(struct cli_perfetto *p, uint32_t kind, uint64_t pid, uint32_t id,
		      const char *name, size_t len)
{
	struct cli_perfetto_state *st = p->st;
	/* a counter is known by its name, a process or thread by its id */
	struct key k = { pid, kind, id, name ? name : "", kind == T_COUNTER ? len : 0 };
	uint64_t hash = cli_hash_bytes(k.s, k.len, cli_hash_u64(pid << 34 ^ (uint64_t)kind << 32 ^ id));
	struct track *t = cli_htab_find(&st->tracks, hash, track_eq, &k);

	if (t && (!name || kind == T_COUNTER))
		return t->uuid;
	if (!t && st->tracks.count >= TRACKS_MAX && !(kind == T_THREAD && id == OTHER_TRACKS)) {
		/*
		 * Memory stays bounded: the slices of more threads go on one
		 * track, their names and more counters are left out (0).
		 */
		st->tracks_over++;
		return kind == T_THREAD && !name ? track(p, T_THREAD, pid, OTHER_TRACKS, NULL, 0) : 0;
	}
	if (!t) {
		if (!(t = malloc(sizeof *t + k.len)))
			return st->error = -ENOMEM, 0;
		*t = (struct track){ hash, pid, st->next_uuid + 1, kind, id, (uint32_t)k.len };
		if (k.len)
			memcpy(t->name, k.s, k.len);
		if (cli_htab_add(&st->tracks, hash, t) < 0) {
			free(t);
			return st->error = -ENOMEM, 0;
		}
		st->next_uuid++;
	}
	describe(p, t, kind == T_PROCESS ? 0 : track(p, T_PROCESS, pid, 0, NULL, 0), name, len);
	return t->uuid;
}

/* ---- Slices and instants, held and written in nesting order ---- */

/* The SLICE_END of h into the output. */
static void close_slice(void *ctx, const struct cli_nest_slice *h, const uint8_t *bytes)
{
	struct cli_perfetto *p = ctx;
	struct cli_pb *b = &p->st->tmp;
	size_t body;

	(void)bytes; /* its begin's packet: the end needs only its track */
	cli_pb_uint(b, PACKET_TIMESTAMP, h->end - p->base.t0);
	body = cli_pb_open(b, PACKET_TRACK_EVENT);
	cli_pb_uint(b, EVENT_TYPE, SLICE_END);
	cli_pb_uint(b, EVENT_TRACK, h->track);
	cli_pb_close(b, body);
	emit_tmp(p, 0);
}

/* Its SLICE_BEGIN or INSTANT packet, as it was built, into the output. */
static void open_slice(void *ctx, const struct cli_nest_slice *h, const uint8_t *bytes)
{
	emit(ctx, bytes, h->len);
}

/* Keeps the event built in pkt until its step, or the room for held slices, ends. */
static void hold(struct cli_perfetto *p)
{
	struct cli_perfetto_state *st = p->st;

	if (cli_nest_hold(&st->nest, &st->cur, st->pkt.buf, st->pkt.len) < 0)
		st->error = -ENOMEM;
	else if (st->step)
		cli_nest_flush(&st->nest);
}

/* Starts a TrackEvent packet in pkt: its time, sequence, type, track, name and category. */
static void event(struct cli_perfetto *p, uint64_t ts, uint32_t type, uint64_t uuid,
		  const char *name, size_t len, const char *cat, bool intern_name)
{
	struct cli_perfetto_state *st = p->st;
	uint64_t name_iid = intern_name ? intern(p, IN_NAME, name, len) : 0;
	uint64_t cat_iid = cat ? intern(p, IN_CATEGORY, cat, strlen(cat)) : 0;
	struct cli_pb *b = &st->pkt;

	b->len = 0;
	cli_pb_uint(b, PACKET_TIMESTAMP, ts > p->base.t0 ? ts - p->base.t0 : 0);
	cli_pb_uint(b, PACKET_SEQUENCE, SEQUENCE);
	cli_pb_uint(b, PACKET_FLAGS, NEEDS_STATE);
	st->event = cli_pb_open(b, PACKET_TRACK_EVENT);
	cli_pb_uint(b, EVENT_TYPE, type);
	cli_pb_uint(b, EVENT_TRACK, uuid);
	if (name_iid)
		cli_pb_uint(b, EVENT_NAME_IID, name_iid);
	else
		cli_pb_bytes(b, EVENT_NAME, name ? name : "", name ? len : 0);
	if (cat_iid)
		cli_pb_uint(b, EVENT_CATEGORY_IIDS, cat_iid);
	else if (cat)
		cli_pb_bytes(b, EVENT_CATEGORY, cat, strlen(cat));
}

static void slice(struct cli_esink *s, uint64_t pid, uint32_t id, const char *name, size_t len,
		  const char *cat, uint64_t ts, uint64_t dur, bool encloses)
{
	struct cli_perfetto *p = (struct cli_perfetto *)s;
	struct cli_perfetto_state *st = p->st;
	uint64_t uuid = track(p, T_THREAD, pid, id, NULL, 0);
	uint64_t end = dur > UINT64_MAX - ts ? UINT64_MAX : ts + dur;

	(void)encloses; /* exact nanoseconds: no viewer's rounding to make room for */
	st->step = !strcmp(cat, "step"); /* a step's name holds its number: not interned */
	event(p, ts, SLICE_BEGIN, uuid, name, len, cat, !st->step);
	st->cur = (struct cli_nest_slice){ .track = uuid, .begin = ts, .end = end,
					   .rank = cli_nest_rank(cat), .slice = true };
	st->holding = true;
}

static void instant(struct cli_esink *s, uint64_t pid, uint32_t id, const char *name,
		    size_t len, uint64_t ts)
{
	struct cli_perfetto *p = (struct cli_perfetto *)s;
	uint64_t uuid = id == CLI_PROCESS_TRACK ? track(p, T_PROCESS, pid, 0, NULL, 0)
						: track(p, T_THREAD, pid, id, NULL, 0);

	p->st->step = false;
	event(p, ts, INSTANT, uuid, name, len, NULL, true);
	p->st->cur = (struct cli_nest_slice){ .track = uuid, .begin = ts, .end = ts, .rank = 7 };
	p->st->holding = true;
}

static void end(struct cli_esink *s)
{
	struct cli_perfetto *p = (struct cli_perfetto *)s;
	struct cli_perfetto_state *st = p->st;

	cli_pb_close(&st->pkt, st->event);
	if (st->pkt.failed) {
		st->error = -ENOMEM;
		st->pkt.failed = false;
	} else if (st->holding) {
		hold(p);
	}
	st->holding = false;
}

static void counter(struct cli_esink *s, uint64_t pid, const char *name, size_t len,
		    uint64_t ts, const char *key, double v)
{
	struct cli_perfetto *p = (struct cli_perfetto *)s;
	struct cli_pb *b = &p->st->pkt;
	uint64_t uuid = track(p, T_COUNTER, pid, 0, name, len);
	size_t body;

	(void)key; /* the track's unit says what v is */
	if (!uuid)
		return; /* a counter past TRACKS_MAX tracks: left out, counted */
	b->len = 0;
	cli_pb_uint(b, PACKET_TIMESTAMP, ts > p->base.t0 ? ts - p->base.t0 : 0);
	cli_pb_uint(b, PACKET_SEQUENCE, SEQUENCE);
	body = cli_pb_open(b, PACKET_TRACK_EVENT);
	cli_pb_uint(b, EVENT_TYPE, COUNTER);
	cli_pb_uint(b, EVENT_TRACK, uuid);
	if (cli_esink_integral(v))
		cli_pb_int(b, EVENT_COUNTER, (int64_t)v);
	else
		cli_pb_double(b, EVENT_DOUBLE_COUNTER, v);
	cli_pb_close(b, body);
	if (b->failed)
		p->st->error = -ENOMEM, b->failed = false;
	else
		emit(p, b->buf, b->len);
}

/* Opens a DebugAnnotation named key in the event being built; close it with cli_pb_close(). */
static size_t arg(struct cli_esink *s, const char *key)
{
	struct cli_perfetto *p = (struct cli_perfetto *)s;
	struct cli_pb *b = &p->st->pkt;
	uint64_t iid = intern(p, IN_ARG_NAME, key, strlen(key));
	size_t body = cli_pb_open(b, EVENT_ANNOTATION);

	if (iid)
		cli_pb_uint(b, ANN_NAME_IID, iid);
	else
		cli_pb_bytes(b, ANN_NAME, key, strlen(key));
	return body;
}

static void arg_u64(struct cli_esink *s, const char *key, uint64_t v)
{
	size_t body = arg(s, key);

	cli_pb_uint(&state(s)->pkt, ANN_UINT, v);
	cli_pb_close(&state(s)->pkt, body);
}

static void arg_i64(struct cli_esink *s, const char *key, int64_t v)
{
	size_t body = arg(s, key);

	cli_pb_int(&state(s)->pkt, ANN_INT, v);
	cli_pb_close(&state(s)->pkt, body);
}

static void arg_str(struct cli_esink *s, const char *key, const char *v, size_t len)
{
	/* interned before the annotation opens: interning writes a packet of its own */
	uint64_t iid = intern((struct cli_perfetto *)s, IN_ARG_STRING, v ? v : "", v ? len : 0);
	size_t body = arg(s, key);

	if (iid)
		cli_pb_uint(&state(s)->pkt, ANN_STRING_IID, iid);
	else
		cli_pb_bytes(&state(s)->pkt, ANN_STRING, v ? v : "", v ? len : 0);
	cli_pb_close(&state(s)->pkt, body);
}

static void arg_addr(struct cli_esink *s, const char *key, uint64_t v)
{
	size_t body = arg(s, key);

	cli_pb_uint(&state(s)->pkt, ANN_POINTER, cli_anon(s->anon, v));
	cli_pb_close(&state(s)->pkt, body);
}

/* A shape as "4096x32x1x1", a string interned like any other. */
static void arg_shape(struct cli_esink *s, const char *key, const int64_t ne[4])
{
	char buf[96];
	int n = snprintf(buf, sizeof buf, "%" PRId64 "x%" PRId64 "x%" PRId64 "x%" PRId64,
			 ne[0], ne[1], ne[2], ne[3]);

	arg_str(s, key, buf, (size_t)n);
}

static void name_process(struct cli_esink *s, uint64_t pid, const char *name, size_t len)
{
	track((struct cli_perfetto *)s, T_PROCESS, pid, 0, name ? name : "", name ? len : 0);
}

static void name_track(struct cli_esink *s, uint64_t pid, uint32_t id, const char *name,
		       size_t len)
{
	track((struct cli_perfetto *)s, T_THREAD, pid, id, name ? name : "", name ? len : 0);
}

static const struct cli_esink_ops perfetto_ops = {
	name_process, name_track, slice, instant, counter,
	arg_u64, arg_i64, arg_str, arg_addr, arg_shape, end,
};

int cli_perfetto_begin(struct cli_perfetto *p, struct cli_out *o, uint64_t t0,
		       struct cli_anon *anon)
{
	*p = (struct cli_perfetto){ .base = { .ops = &perfetto_ops, .t0 = t0, .anon = anon, .nested = true }, .o = o };
	if (!(p->st = calloc(1, sizeof *p->st)))
		return -ENOMEM;
	p->st->nest.open = open_slice;
	p->st->nest.close = close_slice;
	p->st->nest.ctx = p;
	emit_tmp(p, STATE_CLEARED); /* the sequence's interned strings start here */
	return 0;
}

int cli_perfetto_end(struct cli_perfetto *p, uint64_t *tracks_over)
{
	struct cli_perfetto_state *st = p->st;
	int error;

	*tracks_over = 0;
	if (!st)
		return 0;
	cli_nest_flush(&st->nest);
	error = st->error;
	*tracks_over = st->tracks_over;
	cli_htab_free_all(&st->interned);
	cli_htab_free_all(&st->tracks);
	cli_pb_free(&st->pkt);
	cli_pb_free(&st->tmp);
	cli_nest_free(&st->nest);
	free(st);
	p->st = NULL;
	return error;
}
