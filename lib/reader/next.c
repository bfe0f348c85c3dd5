/*
 * Reading records in order: ggmlviz_reader_next, and what stops it
 * (ggmlviz_reader_describe). Records are decoded in place by the format
 * layer's decoder.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <ggmlviz/reader.h>

#include "chain.h"
#include "format/frame.h"
#include "format/pack.h"
#include "names.h"
#include "reader.h"
#include "window.h"

/* Names carried by META records and THREAD_BEGIN labels are kept as read. */
static int learns_names(const struct ggmlviz_event *ev)
{
	return ev->type == GGMLVIZ_EVENT_META || ev->type == GGMLVIZ_EVENT_THREAD_BEGIN;
}

/*
 * ---- PACK records (format/pack.h): while one is read, pos stays at it
 * (ggmlviz_reader_offset() and errors name it) and its records are
 * returned one by one, each at the offset of its bytes in the body ----
 */

/* Starts returning the records of the PACK record ev, n bytes at pos; 0 or -ENOMEM. */
static int unpack_start(struct ggmlviz_reader *r, const struct ggmlviz_event *ev, int n)
{
	if (!r->pack && !(r->pack = malloc(sizeof *r->pack)))
		return -ENOMEM;
	ggmlviz__pack_start(r->pack, ev);
	r->unpacking = 1;
	r->pack_size = (uint64_t)n;
	return 0;
}

/* The PACK's next record into ev: 1; 0 once it has none left (pos then past it); < 0. */
static int unpack_next(struct ggmlviz_reader *r, struct ggmlviz_event *ev)
{
	struct ggmlviz__pack_inner *in = &r->pack->in; /* ev->payload points here */
	int rc = ggmlviz__pack_next(r->pack, in);

	if (rc == 0) {
		r->unpacking = 0;
		r->pos += r->pack_size;
		if (r->pos >= r->release_at)
			ggmlviz__window_release(r, r->pos - r->pack_size);
		return 0;
	}
	if (atomic_load_explicit(&r->shrunk, memory_order_relaxed))
		return r->error = -ESTALE; /* the body read may be zeros, not the file */
	if (rc < 0 || ggmlviz_decode_record(in->fixed, sizeof in->fixed, ev) < 0)
		return r->error = GGMLVIZ_ECORRUPT; /* pack->why says what */
	ev->label = in->label;
	ev->label_len = in->label_len;
	ev->size = r->pack->at - in->at; /* its bytes in the body */
	ev->offset = r->base + r->pos + GGMLVIZ_LABELED_RECORD_SIZE + in->at;
	return 1;
}

/* The record at pos into ev: 1; UNPACKING where it is a PACK (its records follow); 0; < 0. */
#define UNPACKING 2
static int next_in_file(struct ggmlviz_reader *r, struct ggmlviz_event *ev)
{
	int n;

	/* a rotated trace: on to the next segment (past any that holds nothing of its own yet) */
	for (int moved = 0; r->pos == r->size; moved++) {
		int rc = r->chain && moved < 64 ? ggmlviz__chain_next(r) : 0;

		if (rc <= 0)
			return rc < 0 ? (r->error = rc) : 0;
	}
	n = ggmlviz_decode_record(r->data + r->pos, r->size - r->pos, ev);
	if (atomic_load_explicit(&r->shrunk, memory_order_relaxed)) {
		r->error = -ESTALE; /* what was decoded may be zeros, not the file */
		return -ESTALE;
	}
	if (n < 0) {
		if (n == GGMLVIZ_ECORRUPT)
			r->error = n; /* corruption stays; truncation may end with a refresh */
		return n;
	}
	ev->offset = r->pos;
	if (ev->type == GGMLVIZ_EVENT_PACK) {
		int rc = unpack_start(r, ev, n);

		return rc < 0 ? rc : UNPACKING;
	}
	if (learns_names(ev)) {
		int rc = ggmlviz__names_update(r, ev);
		if (rc < 0)
			return rc; /* not consumed: a later call tries again */
	}
	r->pos += (uint64_t)n;
	if (r->pos >= r->release_at)
		ggmlviz__window_release(r, ev->offset);
	ggmlviz__chain_saw(r, ev);
	ev->offset += r->base; /* in the segments read in a row */
	return 1;
}

int ggmlviz_reader_next(struct ggmlviz_reader *r, struct ggmlviz_event *ev)
{
	int rc;

	if (r->error)
		return r->error;
	do { /* a loop, not a call, past PACK records of no records: whatever the file holds */
		while (r->unpacking)
			if ((rc = unpack_next(r, ev)) != 0)
				return rc;
	} while ((rc = next_in_file(r, ev)) == UNPACKING);
	return rc;
}

/* What stops the reader in the file read now (the segment's, in a rotated trace). */
static int describe_here(const struct ggmlviz_reader *r, char *buf, size_t size)
{
	uint64_t left = r->size - r->pos;
	struct ggmlviz__fault f;

	if (r->error == GGMLVIZ_ECORRUPT && r->unpacking)
		return snprintf(buf, size, "corrupt PACK record at byte %" PRIu64 ": its record %"
				PRIu32 " of %" PRIu32 ", at byte %" PRIu64 ": %s", r->pos,
				r->pack->done + 1, r->pack->count,
				r->pos + GGMLVIZ_LABELED_RECORD_SIZE + r->pack->at,
				r->pack->why ? r->pack->why : "its payload does not decode");
	if (r->error == -ESTALE)
		return snprintf(buf, size, "the file shrank under the reader at byte %" PRIu64
				" (it was replaced or truncated)", r->pos);
	if (left == 0)
		return snprintf(buf, size, "no error: the data ends at byte %" PRIu64
				", after a whole record", r->pos);
	if (ggmlviz__frame_size(r->data + r->pos, left, &f) >= 0)
		return snprintf(buf, size, "no error at byte %" PRIu64, r->pos);
	return ggmlviz__frame_describe(buf, size, r->pos, left, &f);
}

int ggmlviz_reader_describe(const struct ggmlviz_reader *r, char *buf, size_t size)
{
	int n;

	if (!buf && size)
		return -EINVAL;
	if (!r->chain)
		return describe_here(r, buf, size);
	/* a rotated trace read in a row: the byte is the segment's own */
	n = snprintf(buf, size, "segment %" PRIu32 ": ", r->chain->at);
	if (n < 0)
		return n;
	return n + describe_here(r, (size_t)n < size ? buf + n : NULL,
				 (size_t)n < size ? size - (size_t)n : 0);
}
