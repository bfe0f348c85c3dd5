/*
 * Writing GGMLVIZ v1 records (merge), byte by byte from FORMAT.md: a
 * record read from a trace is written again with its payload bytes as
 * stored, so a merged file holds the very records of its inputs.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "cli.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void ggmlviz__trace_header(struct ggmlviz__out *o)
{
	uint8_t h[GGMLVIZ_HEADER_SIZE];

	memcpy(h, GGMLVIZ_MAGIC, 8);
	put32(h + 8, GGMLVIZ_FORMAT_VERSION);
	ggmlviz__out_write(o, h, sizeof h);
}

static void record(struct ggmlviz__out *o, uint8_t type, uint64_t ts, uint32_t tid,
		   const uint8_t payload[GGMLVIZ_PAYLOAD_SIZE], const char *label, uint32_t len)
{
	uint8_t rec[GGMLVIZ_LABELED_RECORD_SIZE];

	rec[0] = type;
	put64(rec + 1, ts);
	put32(rec + 9, tid);
	memcpy(rec + 13, payload, GGMLVIZ_PAYLOAD_SIZE);
	rec[45] = label != NULL;
	put32(rec + 46, len);
	ggmlviz__out_write(o, rec, label ? GGMLVIZ_LABELED_RECORD_SIZE : GGMLVIZ_RECORD_SIZE);
	if (label)
		ggmlviz__out_write(o, label, len);
}

void ggmlviz__trace_record(struct ggmlviz__out *o, const struct ggmlviz_event *ev)
{
	record(o, ev->type, ev->timestamp_ns, ev->thread_id, ev->payload, ev->label, ev->label_len);
}

void ggmlviz__trace_meta(struct ggmlviz__out *o, uint64_t ts, uint32_t tid, uint32_t kind,
			 const uint64_t kv[3], const char *label, uint32_t len)
{
	uint8_t payload[GGMLVIZ_PAYLOAD_SIZE] = { 0 };

	put32(payload, kind);
	put64(payload + 8, kv[0]);
	put64(payload + 16, kv[1]);
	put64(payload + 24, kv[2]);
	record(o, GGMLVIZ_EVENT_META, ts, tid, payload, label, len);
}
