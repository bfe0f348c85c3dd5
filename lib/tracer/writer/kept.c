/*
 * The names a trace has given so far (see internal.h): each segment of a
 * rotated trace begins with them, so that a segment read alone names its
 * op types, threads, backends, devices and connections as the whole trace
 * does. The latest record of each kind and key is kept, copied as it
 * passes the writer (records.c's THREAD_NAME, a drain's scan of the
 * rings' records); a thread that is gone is forgotten. Only the writer
 * thread touches it: it allocates, so a crash handler's pass keeps nothing.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <ggmlviz/format.h>

#include "format/record.h"
#include "tracer/writer/internal.h"
#include "util/pages.h"

int ggmlviz__kept_takes(const uint8_t *rec)
{
	uint32_t kind;

	if (rec[REC_TYPE] != GGMLVIZ_EVENT_META)
		return 0;
	kind = get_u32(rec + REC_PAYLOAD + META_KIND);
	return kind == GGMLVIZ_META_OP_NAME || kind == GGMLVIZ_META_THREAD_NAME ||
	       kind == GGMLVIZ_META_BACKEND_NAME || kind == GGMLVIZ_META_DEVICE ||
	       kind == GGMLVIZ_META_THREADS || kind == GGMLVIZ_META_RPC_CONNECTION;
}

/* The index's key of (kind, key): a hash; two names that share it are told apart by their records. */
static uint64_t index_key(uint32_t kind, uint64_t key)
{
	return (key ^ ((uint64_t)kind << 56)) * 0x9e3779b97f4a7c15ull;
}

static int same_name(const struct ggmlviz__kept_rec *kr, uint32_t kind, uint64_t key)
{
	return kr->rec && get_u32(kr->rec + REC_PAYLOAD + META_KIND) == kind &&
	       get_u64(kr->rec + REC_PAYLOAD + META_KEY) == key;
}

/* The records left after forgotten ones, moved together, and the index made again. */
static void compact(struct ggmlviz__kept *k)
{
	size_t n = 0;
	bool created;

	ggmlviz__map_clear(&k->index); /* the table stays: the inserts below need no memory */
	for (size_t i = 0; i < k->n; i++) {
		struct ggmlviz__kept_rec kr = k->recs[i];
		uint64_t *at;

		if (!kr.rec)
			continue;
		k->recs[n++] = kr;
		at = ggmlviz__map_insert(&k->index,
					 index_key(get_u32(kr.rec + REC_PAYLOAD + META_KIND),
						   get_u64(kr.rec + REC_PAYLOAD + META_KEY)),
					 &created);
		if (at)
			*at = n;
	}
	k->n = n;
	k->holes = 0;
}

/* Room for one more record in k->recs; 0 or -1 without memory. */
static int room(struct ggmlviz__kept *k)
{
	size_t cap;
	struct ggmlviz__kept_rec *recs;

	if (k->n < k->cap)
		return 0;
	if (k->holes > k->n / 2) { /* threads come and go: their names do not pile up */
		compact(k);
		return 0;
	}
	cap = k->cap ? 2 * k->cap : 64;
	recs = ggmlviz__pages_resize(k->recs, cap * sizeof *recs);
	if (!recs)
		return -1;
	k->recs = recs;
	k->cap = cap;
	return 0;
}

/* The slot of (kind, key) in k->recs: the one it has, or a new one; NULL without memory. */
static struct ggmlviz__kept_rec *slot_of(struct ggmlviz__kept *k, uint32_t kind, uint64_t key)
{
	uint64_t *at = ggmlviz__map_find(&k->index, index_key(kind, key));
	bool created;

	if (at && *at && same_name(&k->recs[*at - 1], kind, key))
		return &k->recs[*at - 1];
	if (room(k) < 0)
		return NULL;
	at = ggmlviz__map_insert(&k->index, index_key(kind, key), &created);
	if (!at)
		return NULL;
	k->recs[k->n] = (struct ggmlviz__kept_rec){ NULL, 0 };
	*at = ++k->n; /* a hash shared with another name: the newer one is found by it */
	return &k->recs[k->n - 1];
}

void ggmlviz__kept_add(struct ggmlviz__kept *k, const uint8_t *rec, uint32_t size,
		       const struct ggmlviz__log_sink *sink)
{
	uint32_t kind = get_u32(rec + REC_PAYLOAD + META_KIND);
	uint64_t key = get_u64(rec + REC_PAYLOAD + META_KEY);
	struct ggmlviz__kept_rec *kr = slot_of(k, kind, key);
	/* the C library's heap: a record kept comes and goes as often as its kind is
	 * said again, on the writer thread, whose heap is not the program's threads' */
	uint8_t *copy = kr ? malloc(size) : NULL;

	if (!copy) {
		if (kr && !kr->rec)
			k->holes++; /* a new slot left empty */
		if (!k->short_of_memory++)
			ggmlviz__log(sink, GGMLVIZ_LOG_ERROR, "out of memory: a segment read alone "
				     "may lack some names (GGML_VIZ_ROTATE)");
		return;
	}
	memcpy(copy, rec, size);
	if (kr->rec)
		k->bytes -= kr->size;
	free(kr->rec);
	*kr = (struct ggmlviz__kept_rec){ copy, size };
	k->bytes += size;
}

void ggmlviz__kept_forget(struct ggmlviz__kept *k, uint32_t kind, uint64_t key)
{
	uint64_t at;

	if (!ggmlviz__map_get(&k->index, index_key(kind, key), &at) || !at ||
	    !same_name(&k->recs[at - 1], kind, key))
		return;
	k->bytes -= k->recs[at - 1].size;
	free(k->recs[at - 1].rec);
	k->recs[at - 1].rec = NULL;
	k->holes++;
	ggmlviz__map_remove(&k->index, index_key(kind, key));
}

uint64_t ggmlviz__kept_copy(const struct ggmlviz__kept *k, uint8_t *buf)
{
	uint64_t n = 0;

	for (size_t i = 0; i < k->n; i++) {
		if (!k->recs[i].rec)
			continue;
		memcpy(buf, k->recs[i].rec, k->recs[i].size);
		buf += k->recs[i].size;
		n++;
	}
	return n;
}

void ggmlviz__kept_free(struct ggmlviz__kept *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->recs[i].rec);
	ggmlviz__pages_free(k->recs);
	ggmlviz__map_release(&k->index);
	memset(k, 0, sizeof *k);
}
