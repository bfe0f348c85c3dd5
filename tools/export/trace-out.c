/*
 * Writing GGMLVIZ v1 records (merge) through the library's encoder: a
 * record read from a trace is written again as it was read.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"

void cli_trace_header(struct cli_out *o)
{
	uint8_t h[GGMLVIZ_HEADER_SIZE];

	ggmlviz_encode_header(h, sizeof h);
	cli_out_write(o, h, sizeof h);
}

/* The encoded record, in rb's buffer grown to the largest record seen. */
static uint8_t *encoded(struct cli_recbuf *rb, const struct ggmlviz_event *ev, int *size)
{
	int n = ggmlviz_record_size(ev);

	if (n < 0)
		return NULL;
	if ((size_t)n > rb->cap) {
		uint8_t *bigger = realloc(rb->buf, (size_t)n);
		if (!bigger)
			return NULL;
		rb->buf = bigger;
		rb->cap = (size_t)n;
	}
	*size = ggmlviz_encode_record(ev, rb->buf, rb->cap);
	return *size > 0 ? rb->buf : NULL;
}

void cli_recbuf_free(struct cli_recbuf *rb)
{
	free(rb->buf);
	rb->buf = NULL;
	rb->cap = 0;
}

void cli_trace_record(struct cli_out *o, struct cli_recbuf *rb, const struct ggmlviz_event *ev)
{
	int n;
	uint8_t *rec = encoded(rb, ev, &n);

	if (!rec) {
		o->error = o->error ? o->error : -ENOMEM;
		return;
	}
	cli_out_write(o, rec, (size_t)n);
}

void cli_trace_meta(struct cli_out *o, struct cli_recbuf *rb, uint64_t ts, uint32_t tid,
		    uint32_t kind, const uint64_t kv[3], const char *label, uint32_t len)
{
	struct ggmlviz_event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = GGMLVIZ_EVENT_META;
	ev.timestamp_ns = ts;
	ev.thread_id = tid;
	ev.data.meta.kind = kind;
	ev.data.meta.key = kv[0];
	ev.data.meta.value = kv[1];
	ev.data.meta.value2 = kv[2];
	ev.label = label;
	ev.label_len = len;
	cli_trace_record(o, rb, &ev);
}
