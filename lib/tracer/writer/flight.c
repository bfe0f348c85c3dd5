/*
 * The flight recorder's memory (GGML_VIZ_FLIGHT, see internal.h): the
 * records the writer routes to it (route.c), their stamps nanoseconds
 * already, in chunks of about a megabyte, oldest first; a chunk whose
 * newest record is older than the window, or that the memory bound needs
 * back, is let go of whole. The requests open are followed beside it, so
 * that a snapshot that begins after a request's first records repeats them,
 * and so that a request that ends slower than GGML_VIZ_FLIGHT_ON makes a
 * snapshot due (snapshot.c takes it).
 *
 * The writer thread's only (a crash handler's pass routes, but keeps
 * nothing: it may not allocate).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec.h"
#include "format/record.h"
#include "tracer/writer/internal.h"
#include "util/pages.h"

#define CHUNK_BYTES ((size_t)1 << 20)
/* Requests followed at most; past it the oldest is let go of (a server that never ends its requests). */
#define REQUESTS_MAX 4096u

struct ggmlviz__flight_chunk {
	struct ggmlviz__flight_chunk *next;
	uint64_t newest_ns; /* its newest record's time */
	uint64_t records;
	size_t len, cap;
	uint8_t data[];
};

/* An open request: its first records, copied (REQUEST_BEGIN, and its stages so far). */
struct ggmlviz__flight_request {
	uint64_t id, begin_ns, first_ns; /* first_ns: its first token's time, 0 before it */
	uint8_t *recs;
	uint32_t len, n;
	int ended; /* let go of after the pass (a snapshot it made repeats it) */
};

/* s and then suffix, in memory the caller frees; NULL without memory. */
static char *joined(const char *s, size_t len, const char *suffix)
{
	size_t size = len + strlen(suffix) + 1;
	char *p = ggmlviz__pages_alloc(size);

	if (p)
		snprintf(p, size, "%.*s%s", (int)len, s, suffix);
	return p;
}

/* The names of the snapshots and of an ask and its reply, from the trace's; 0 or -ENOMEM. */
static int names(struct ggmlviz__flight *f, const char *path)
{
	static const char ext[] = ".ggmlviz";
	char *abs = ggmlviz__output_absolute(path);
	size_t len = abs ? strlen(abs) : 0;
	size_t base = len > strlen(ext) && strcmp(abs + len - strlen(ext), ext) == 0
			      ? len - strlen(ext) : len;

	if (abs) {
		f->base = joined(abs, base, "");
		f->ask = joined(abs, len, ".snapshot-ask");
		f->reply = joined(abs, len, ".snapshot-reply");
	}
	ggmlviz__pages_free(abs);
	return f->base && f->ask && f->reply ? 0 : -ENOMEM;
}

int ggmlviz__flight_setup(struct ggmlviz__writer *w, const struct ggmlviz__writer_opts *o)
{
	struct ggmlviz__flight *f = &w->flight;

	f->seconds = o->flight.seconds;
	f->window_ns = (uint64_t)o->flight.seconds * 1000000000u;
	f->max_bytes = o->flight.bytes;
	f->keep = o->flight.keep;
	f->ttft_ns = (uint64_t)o->flight.ttft_ms * 1000000u;
	f->token_ns = (uint64_t)o->flight.token_ms * 1000000u;
	if (!w->regular || w->file_base) {
		ggmlviz__log(&w->sink, GGMLVIZ_LOG_WARN, "GGML_VIZ_FLIGHT: %s is not a file of its "
			     "own (a descriptor's, a FIFO, a device): no flight recorder", o->path);
		return 0;
	}
	if (names(f, o->path) < 0)
		return -ENOMEM;
	f->on = 1;
	w->keeping = 1; /* a snapshot begins with the names given so far */
	return 0;
}

static void request_free(struct ggmlviz__flight_request *q)
{
	free(q->recs); /* the C library's: see request_keep() */
	memset(q, 0, sizeof *q);
}

void ggmlviz__flight_chunks_free(struct ggmlviz__flight_chunk *c)
{
	while (c) {
		struct ggmlviz__flight_chunk *next = c->next;
		free(c); /* the C library's, as room() took it */
		c = next;
	}
}

void ggmlviz__flight_spend(struct ggmlviz__flight *f, struct ggmlviz__flight_chunk *c)
{
	struct ggmlviz__flight_chunk **end = &f->spent;

	while (*end)
		end = &(*end)->next;
	*end = c;
}

void ggmlviz__flight_give_back(struct ggmlviz__flight *f, unsigned n)
{
	for (; n && f->spent; n--) {
		struct ggmlviz__flight_chunk *next = f->spent->next;

		free(f->spent);
		f->spent = next;
	}
}

struct ggmlviz__flight_chunk *ggmlviz__flight_detach(struct ggmlviz__flight *f, uint64_t *records)
{
	struct ggmlviz__flight_chunk *c = f->first;

	*records = f->records;
	f->first = f->last = NULL;
	f->bytes = f->records = 0;
	return c;
}

void ggmlviz__flight_free(struct ggmlviz__flight *f)
{
	ggmlviz__flight_chunks_free(f->first);
	ggmlviz__flight_chunks_free(f->spent);
	f->first = f->last = f->spent = NULL;
	for (size_t i = 0; i < f->n_req; i++)
		request_free(&f->req[i]);
	ggmlviz__pages_free(f->req);
	f->req = NULL;
	ggmlviz__pages_free(f->base);
	ggmlviz__pages_free(f->ask);
	ggmlviz__pages_free(f->reply);
	f->base = f->ask = f->reply = NULL;
	f->n_req = f->req_cap = 0;
	f->bytes = f->records = 0;
}

/* The oldest chunk let go of. */
static void drop_first(struct ggmlviz__flight *f)
{
	struct ggmlviz__flight_chunk *c = f->first;

	f->first = c->next;
	if (!f->first)
		f->last = NULL;
	f->bytes -= c->len;
	f->records -= c->records;
	free(c);
}

/* Room for size more bytes at the end: a new chunk where the last is full; NULL without memory. */
static struct ggmlviz__flight_chunk *room(struct ggmlviz__flight *f, uint32_t size)
{
	struct ggmlviz__flight_chunk *c = f->last;
	size_t cap = size > CHUNK_BYTES ? size : CHUNK_BYTES;

	if (c && c->cap - c->len >= size)
		return c;
	while (f->first && f->bytes + cap > f->max_bytes)
		drop_first(f); /* the memory bound: the oldest go first */
	/* the C library's heap, on the writer thread (not the program's threads' heap): a
	 * chunk a megabyte comes and goes, and glibc keeps the memory of one given back
	 * warm for the next, where a mapping's munmap() would interrupt every CPU */
	c = malloc(sizeof *c + cap);
	if (!c)
		return NULL;
	*c = (struct ggmlviz__flight_chunk){ NULL, 0, 0, 0, cap };
	if (f->last)
		f->last->next = c;
	else
		f->first = c;
	f->last = c;
	return c;
}

/* ---- requests ---- */

static struct ggmlviz__flight_request *request_find(struct ggmlviz__flight *f, uint64_t id)
{
	for (size_t i = 0; i < f->n_req; i++)
		if (f->req[i].id == id && !f->req[i].ended)
			return &f->req[i];
	return NULL;
}

/* The oldest request's slot, given up for a new one. */
static struct ggmlviz__flight_request *oldest(struct ggmlviz__flight *f)
{
	struct ggmlviz__flight_request *q = &f->req[0];

	for (size_t i = 1; i < f->n_req; i++)
		if (f->req[i].begin_ns < q->begin_ns)
			q = &f->req[i];
	request_free(q);
	return q;
}

static struct ggmlviz__flight_request *request_new(struct ggmlviz__flight *f)
{
	size_t cap = f->req_cap ? f->req_cap * 2 : 16;
	void *p;

	if (f->n_req >= REQUESTS_MAX)
		return oldest(f);
	if (f->n_req == f->req_cap) {
		if (!(p = ggmlviz__pages_resize(f->req, cap * sizeof *f->req)))
			return NULL;
		f->req = p;
		f->req_cap = cap;
	}
	memset(&f->req[f->n_req], 0, sizeof *f->req);
	return &f->req[f->n_req++];
}

/*
 * A copy of the record kept with its request; 0 or -ENOMEM. From the C
 * library's heap, not pages of the tracer's own: a request's few records
 * come and go with it, hundreds a second on a server, and each munmap()
 * would interrupt every CPU the program's threads run on; this is the
 * writer thread, whose heap is not the program's threads'.
 */
static int request_keep(struct ggmlviz__flight_request *q, const uint8_t *rec, uint32_t size)
{
	uint8_t *p = realloc(q->recs, (size_t)q->len + size);

	if (!p)
		return -ENOMEM;
	memcpy(p + q->len, rec, size);
	q->recs = p;
	q->len += size;
	q->n++;
	return 0;
}

/* Whether the request that ended at end_ns is slow: its why and figure into f's due snapshot. */
static void judge(struct ggmlviz__flight *f, const struct ggmlviz__flight_request *q,
		  uint64_t end_ns, uint32_t generated)
{
	uint64_t ttft = (q->first_ns ? q->first_ns : end_ns) - q->begin_ns;
	uint64_t token = q->first_ns && generated > 1 ? (end_ns - q->first_ns) / (generated - 1) : 0;

	if (f->due)
		return; /* the first slow request's */
	if (f->ttft_ns && ttft > f->ttft_ns)
		f->why = GGMLVIZ_SNAPSHOT_TTFT, f->figure = ttft;
	else if (f->token_ns && token > f->token_ns)
		f->why = GGMLVIZ_SNAPSHOT_TOKEN, f->figure = token;
	else
		return;
	f->due = 1;
	f->request = q->id;
}

static void follow_request(struct ggmlviz__flight *f, const uint8_t *rec, uint32_t size,
			   uint64_t ts)
{
	const uint8_t *pl = rec + REC_PAYLOAD;
	uint64_t id = get_u64(pl + REQ_ID);
	struct ggmlviz__flight_request *q = request_find(f, id);

	if (rec[REC_TYPE] == GGMLVIZ_EVENT_REQUEST_BEGIN) {
		if (q)
			request_free(q); /* its END was lost: the new one begins anew */
		else if (!(q = request_new(f)))
			return; /* no memory: not followed */
		q->id = id, q->begin_ns = ts;
		(void)request_keep(q, rec, size);
		return;
	}
	if (!q)
		return; /* begun before the session, or not followed */
	if (rec[REC_TYPE] == GGMLVIZ_EVENT_REQUEST_STAGE) {
		if (get_u32(pl + REQ_WHAT) == GGMLVIZ_REQUEST_FIRST_TOKEN && !q->first_ns)
			q->first_ns = ts;
		(void)request_keep(q, rec, size);
		return;
	}
	if (get_u32(pl + REQ_WHAT) == GGMLVIZ_REQUEST_DONE)
		judge(f, q, ts, get_u32(pl + REQ_GENERATED));
	q->ended = 1;
}

void ggmlviz__flight_requests_ended(struct ggmlviz__flight *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_req; i++) {
		if (f->req[i].ended)
			request_free(&f->req[i]);
		else
			f->req[n++] = f->req[i];
	}
	f->n_req = n;
}

/* The memory's oldest record's time (UINT64_MAX: none). */
static uint64_t held_from(const struct ggmlviz__flight *f)
{
	return f->first && f->first->len ? get_u64(f->first->data + REC_TIMESTAMP) : UINT64_MAX;
}

uint64_t ggmlviz__flight_oldest_ns(const struct ggmlviz__flight *f)
{
	uint64_t from = held_from(f);

	for (size_t i = 0; i < f->n_req; i++)
		if (f->req[i].begin_ns < from)
			from = f->req[i].begin_ns;
	return from == UINT64_MAX ? f->newest_ns : from;
}

/* Of q's records, those older than from (the memory holds the others) into buf (NULL: counted); their bytes. */
static size_t older_records(const struct ggmlviz__flight_request *q, uint64_t from, uint8_t *buf,
			    uint64_t *records)
{
	size_t n = 0;
	uint32_t size;

	for (uint32_t at = 0; at < q->len; at += size) {
		const uint8_t *rec = q->recs + at;

		size = (uint32_t)record_size_at(rec);
		if (get_u64(rec + REC_TIMESTAMP) >= from)
			continue;
		if (buf)
			memcpy(buf + n, rec, size);
		n += size;
		(*records)++;
	}
	return n;
}

size_t ggmlviz__flight_requests_copy(const struct ggmlviz__flight *f, uint8_t *buf,
				     uint64_t *records)
{
	uint64_t from = held_from(f);
	size_t n = 0;

	*records = 0;
	for (size_t i = 0; i < f->n_req; i++)
		n += older_records(&f->req[i], from, buf ? buf + n : NULL, records);
	return n;
}

/* ---- the memory ---- */

void ggmlviz__flight_add(struct ggmlviz__flight *f, const uint8_t *rec, uint32_t size)
{
	uint64_t ts = get_u64(rec + REC_TIMESTAMP);
	struct ggmlviz__flight_chunk *c;
	uint8_t type = rec[REC_TYPE];

	if (type == GGMLVIZ_EVENT_REQUEST_BEGIN || type == GGMLVIZ_EVENT_REQUEST_STAGE ||
	    type == GGMLVIZ_EVENT_REQUEST_END)
		follow_request(f, rec, size, ts);
	if (!(c = room(f, size))) {
		f->short_of_memory = 1;
		return;
	}
	memcpy(c->data + c->len, rec, size);
	c->len += size;
	c->records++;
	f->bytes += size;
	f->records++;
	if (ts > c->newest_ns && type != GGMLVIZ_EVENT_KERNEL)
		c->newest_ns = ts;
	if (ts > f->newest_ns && type != GGMLVIZ_EVENT_KERNEL)
		f->newest_ns = ts;
}

void ggmlviz__flight_evict(struct ggmlviz__flight *f)
{
	while (f->first && f->first != f->last && f->first->newest_ns + f->window_ns < f->newest_ns)
		drop_first(f);
}

/* A chunk's bytes, and the next chunk (NULL: none). */
const struct ggmlviz__flight_chunk *ggmlviz__flight_next(const struct ggmlviz__flight_chunk *c,
							  const uint8_t **data, size_t *len)
{
	*data = c->data;
	*len = c->len;
	return c->next;
}

uint32_t ggmlviz__flight_record(const struct ggmlviz__writer *w, uint8_t *buf, size_t cap,
				uint64_t now)
{
	const struct ggmlviz__flight *f = &w->flight;
	char words[160];
	int n;

	if (!f->on)
		return 0;
	n = snprintf(words, sizeof words,
		     "the last %" PRIu32 " s of every op in memory (%" PRIu64 " MiB at most); "
		     "snapshots kept: %" PRIu32 " (0: all)",
		     f->seconds, f->max_bytes >> 20, f->keep);
	return ggmlviz__encode_meta(buf, cap, now, w->start_tid,
				    &(struct ggmlviz__meta){ GGMLVIZ_META_FLIGHT, f->seconds,
							     f->max_bytes, f->keep },
				    words, n < 0 ? 0 : (uint32_t)strnlen(words, sizeof words));
}
