/*
 * One event as a line of text or as a JSON object (dump). The fields of
 * each record type are listed once, and written in either form, so the
 * two formats always carry the same data under the same key names.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "cli.h"

struct fields {
	struct ggmlviz__out *o;
	const struct ggmlviz_reader *r;
	bool json;
};

static void key(struct fields *f, const char *name)
{
	ggmlviz__out_char(f->o, f->json ? ',' : ' ');
	if (f->json)
		ggmlviz__out_char(f->o, '"');
	ggmlviz__out_str(f->o, name);
	ggmlviz__out_str(f->o, f->json ? "\":" : "=");
}

static void field_u64(struct fields *f, const char *name, uint64_t v)
{
	key(f, name);
	ggmlviz__out_u64(f->o, v);
}

static void field_i64(struct fields *f, const char *name, int64_t v)
{
	key(f, name);
	ggmlviz__out_i64(f->o, v);
}

/* Pointers: "0x..." strings in JSON (a double cannot hold every u64). */
static void field_hex(struct fields *f, const char *name, uint64_t v)
{
	key(f, name);
	if (f->json)
		ggmlviz__out_char(f->o, '"');
	ggmlviz__out_hex(f->o, v);
	if (f->json)
		ggmlviz__out_char(f->o, '"');
}

static void field_str(struct fields *f, const char *name, const char *s, size_t len)
{
	key(f, name);
	if (f->json) {
		ggmlviz__json_str(f->o, s, len);
		return;
	}
	ggmlviz__out_char(f->o, '"');
	ggmlviz__text_str(f->o, s, len);
	ggmlviz__out_char(f->o, '"');
}

static void field_cstr(struct fields *f, const char *name, const char *s)
{
	field_str(f, name, s, strlen(s));
}

static void backend_fields(struct fields *f, uint64_t backend)
{
	char buf[24];

	field_hex(f, "backend", backend);
	field_cstr(f, "backend_name", ggmlviz__backend_name(f->r, backend, buf));
}

static void op_fields(struct fields *f, const struct ggmlviz_event *ev)
{
	char buf[24];

	field_hex(f, "tensor", ev->data.op.tensor_ptr);
	field_u64(f, "op_type", ev->data.op.op_type);
	field_cstr(f, "op", ggmlviz__op_name(f->r, ev->data.op.op_type, buf));
	field_u64(f, "size", ev->data.op.op_size);
	backend_fields(f, ev->data.op.backend_ptr);
}

static void graph_fields(struct fields *f, const struct ggmlviz_event *ev)
{
	field_hex(f, "graph", ev->data.graph.graph_ptr);
	field_u64(f, "n_nodes", ev->data.graph.n_nodes);
	field_u64(f, "n_threads", ev->data.graph.n_threads);
	backend_fields(f, ev->data.graph.backend_ptr);
}

static void meta_fields(struct fields *f, const struct ggmlviz_event *ev)
{
	field_cstr(f, "kind", ggmlviz_meta_kind_name(ev->data.meta.kind));
	field_u64(f, "kind_id", ev->data.meta.kind);
	field_u64(f, "key", ev->data.meta.key);
	field_u64(f, "value", ev->data.meta.value);
	field_u64(f, "value2", ev->data.meta.value2);
}

static void info_fields(struct fields *f, const struct ggmlviz_event *ev)
{
	field_hex(f, "tensor", ev->data.op_info.tensor_ptr);
	key(f, "ne");
	for (int i = 0; i < 4; i++) {
		ggmlviz__out_str(f->o, i ? "," : f->json ? "[" : "");
		ggmlviz__out_i64(f->o, ev->data.op_info.ne[i]);
	}
	if (f->json)
		ggmlviz__out_char(f->o, ']');
	field_u64(f, "flops", ev->data.op_info.flops);
}

static void raw_fields(struct fields *f, const struct ggmlviz_event *ev)
{
	char hex[2 * GGMLVIZ_PAYLOAD_SIZE];

	for (unsigned i = 0; i < GGMLVIZ_PAYLOAD_SIZE; i++) {
		hex[2 * i] = "0123456789abcdef"[ev->payload[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[ev->payload[i] & 15];
	}
	field_str(f, "payload", hex, sizeof hex);
}

static void payload_fields(struct fields *f, const struct ggmlviz_event *ev)
{
	switch (ev->type) {
	case GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN:
	case GGMLVIZ_EVENT_GRAPH_COMPUTE_END:
		graph_fields(f, ev);
		break;
	case GGMLVIZ_EVENT_OP_COMPUTE_BEGIN:
	case GGMLVIZ_EVENT_OP_COMPUTE_END:
		op_fields(f, ev);
		break;
	case GGMLVIZ_EVENT_BARRIER_WAIT:
		field_hex(f, "barrier", ev->data.memory.ptr);
		field_u64(f, "wait_ns", ev->data.memory.size);
		break;
	case GGMLVIZ_EVENT_TENSOR_ALLOC:
	case GGMLVIZ_EVENT_TENSOR_FREE:
	case GGMLVIZ_EVENT_THREAD_BEGIN:
	case GGMLVIZ_EVENT_THREAD_FREE:
		field_hex(f, "ptr", ev->data.memory.ptr);
		field_u64(f, "size", ev->data.memory.size);
		break;
	case GGMLVIZ_EVENT_META:
		meta_fields(f, ev);
		break;
	case GGMLVIZ_EVENT_COUNTER:
		field_i64(f, "value", ev->data.user.svalue);
		break;
	case GGMLVIZ_EVENT_MARK:
	case GGMLVIZ_EVENT_SCOPE_BEGIN:
	case GGMLVIZ_EVENT_SCOPE_END:
		field_u64(f, "value", ev->data.user.value);
		break;
	case GGMLVIZ_EVENT_OP_INFO:
		info_fields(f, ev);
		break;
	default:
		raw_fields(f, ev);
		break;
	}
}

void ggmlviz__event_print(struct ggmlviz__out *o, const struct ggmlviz_reader *r,
			  const struct ggmlviz_event *ev, bool json)
{
	struct fields f = { o, r, json };

	ggmlviz__out_str(o, json ? "{\"offset\":" : "@");
	ggmlviz__out_u64(o, ev->offset);
	if (json) {
		field_cstr(&f, "type", ggmlviz_event_type_name(ev->type));
		field_u64(&f, "type_id", ev->type);
	} else {
		ggmlviz__out_char(o, ' ');
		ggmlviz__out_str(o, ggmlviz_event_type_name(ev->type));
		if (ev->type >= GGMLVIZ_EVENT_TYPE_COUNT)
			field_u64(&f, "type_id", ev->type);
	}
	field_u64(&f, "ts", ev->timestamp_ns);
	field_u64(&f, "tid", ev->thread_id);
	payload_fields(&f, ev);
	if (ev->label)
		field_str(&f, "label", ev->label, ev->label_len);
	else if (json)
		ggmlviz__out_str(o, ",\"label\":null");
	ggmlviz__out_str(o, json ? "}\n" : "\n");
}
