/*
 * Encoding and decoding whole records: the header, the fixed part, the
 * payload (fields.c) and the label. The tracer, the reader, the ggmlviz
 * command and the tests' trace generators all write and read through here.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <ggmlviz/format.h>

#include "codec.h"
#include "fields.h"
#include "frame.h"
#include "record.h"

int ggmlviz_encode_header(void *out, size_t size)
{
	if (!out)
		return -EINVAL;
	if (size < GGMLVIZ_HEADER_SIZE)
		return -ENOBUFS;
	put_header(out);
	return GGMLVIZ_HEADER_SIZE;
}

int ggmlviz_record_size(const struct ggmlviz_event *ev)
{
	if (!ev || (ev->label && ev->label_len > GGMLVIZ_LABEL_LIMIT))
		return -EINVAL;
	return (int)(ev->label ? record_size_labeled(ev->label_len) : GGMLVIZ_RECORD_SIZE);
}

int ggmlviz_encode_record(const struct ggmlviz_event *ev, void *out, size_t size)
{
	int n = ggmlviz_record_size(ev);
	uint8_t *p = out;

	if (n < 0 || !out)
		return -EINVAL;
	if (size < (size_t)n)
		return -ENOBUFS;
	p[REC_TYPE] = ev->type;
	put_u64(p + REC_TIMESTAMP, ev->timestamp_ns);
	put_u32(p + REC_THREAD, ev->thread_id);
	ggmlviz__payload_encode(ev, p + REC_PAYLOAD);
	p[REC_HAS_LABEL] = ev->label != NULL;
	if (ev->label) {
		put_u32(p + REC_LABEL_LEN, ev->label_len);
		memcpy(p + REC_LABEL, ev->label, ev->label_len);
	}
	return n;
}

int ggmlviz_decode_record(const void *data, size_t size, struct ggmlviz_event *ev)
{
	const uint8_t *p = data;
	struct ggmlviz__fault f;
	int64_t n;

	if (!data || !ev)
		return -EINVAL;
	n = ggmlviz__frame_size(p, size, &f);
	if (n < 0)
		return (int)n;
	ev->type = p[REC_TYPE];
	ev->timestamp_ns = get_u64(p + REC_TIMESTAMP);
	ev->thread_id = get_u32(p + REC_THREAD);
	ev->payload = p + REC_PAYLOAD;
	ggmlviz__payload_decode(ev, ev->payload);
	if (n == GGMLVIZ_RECORD_SIZE) {
		ev->label = NULL;
		ev->label_len = 0;
	} else {
		ev->label = (const char *)p + REC_LABEL;
		ev->label_len = (uint32_t)n - GGMLVIZ_LABELED_RECORD_SIZE;
	}
	ev->size = (uint32_t)n;
	ev->offset = 0;
	memset(ev->reserved, 0, sizeof ev->reserved);
	return (int)n;
}

static struct ggmlviz_event plain(uint8_t type, uint64_t ts, uint32_t tid, const char *label,
				  uint32_t len)
{
	struct ggmlviz_event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = type;
	ev.timestamp_ns = ts;
	ev.thread_id = tid;
	ev.label = label;
	ev.label_len = len;
	return ev;
}

static uint32_t encoded(const struct ggmlviz_event *ev, uint8_t *out, size_t size)
{
	int n = ggmlviz_encode_record(ev, out, size);

	return n > 0 ? (uint32_t)n : 0;
}

uint32_t ggmlviz__encode_meta(uint8_t *out, size_t size, uint64_t ts, uint32_t tid,
			      const struct ggmlviz__meta *m, const char *label, uint32_t len)
{
	struct ggmlviz_event ev = plain(GGMLVIZ_EVENT_META, ts, tid, label, len);

	ev.data.meta.kind = m->kind;
	ev.data.meta.key = m->key;
	ev.data.meta.value = m->value;
	ev.data.meta.value2 = m->value2;
	return encoded(&ev, out, size);
}

uint32_t ggmlviz__encode_plain(uint8_t *out, size_t size, uint8_t type, uint64_t ts,
			       uint32_t tid, const char *label, uint32_t len)
{
	struct ggmlviz_event ev = plain(type, ts, tid, label, len);

	return encoded(&ev, out, size);
}
