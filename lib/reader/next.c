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

#include <ggmlviz/reader.h>

#include "chain.h"
#include "format/frame.h"
#include "names.h"
#include "reader.h"
#include "window.h"

/* Names carried by META records and THREAD_BEGIN labels are kept as read. */
static int learns_names(const struct ggmlviz_event *ev)
{
	return ev->type == GGMLVIZ_EVENT_META || ev->type == GGMLVIZ_EVENT_THREAD_BEGIN;
}

int ggmlviz_reader_next(struct ggmlviz_reader *r, struct ggmlviz_event *ev)
{
	int n;

	if (r->error)
		return r->error;
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

/* What stops the reader in the file read now (the segment's, in a rotated trace). */
static int describe_here(const struct ggmlviz_reader *r, char *buf, size_t size)
{
	uint64_t left = r->size - r->pos;
	struct ggmlviz__fault f;

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
