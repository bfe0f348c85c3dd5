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
	if (r->pos == r->size) {
		int rc = r->chain ? ggmlviz__chain_next(r) : 0;

		if (rc <= 0 || r->pos == r->size)
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

int ggmlviz_reader_describe(const struct ggmlviz_reader *r, char *buf, size_t size)
{
	uint64_t left = r->size - r->pos;
	struct ggmlviz__fault f;

	if (!buf && size)
		return -EINVAL;
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
