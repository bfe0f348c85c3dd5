/*
 * One event as a line of text or as a JSON object (dump). The fields of
 * each record type are listed once, and written in either form, so the
 * two formats always carry the same data under the same key names.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/anon.h"
#include "export/export.h"
#include "input/input.h"
#include "output/output.h"

struct fields {
	struct cli_out *o;
	struct cli_names *names;
	const struct ggmlviz_reader *r;
	bool json;
};

static void key(struct fields *f, const char *name)
{
	cli_out_char(f->o, f->json ? ',' : ' ');
	if (f->json)
		cli_out_char(f->o, '"');
	cli_out_str(f->o, name);
	cli_out_str(f->o, f->json ? "\":" : "=");
}

static void field_u64(struct fields *f, const char *name, uint64_t v)
{
	key(f, name);
	cli_out_u64(f->o, v);
}

static void field_i64(struct fields *f, const char *name, int64_t v)
{
	key(f, name);
	cli_out_i64(f->o, v);
}

/* Pointers: "0x..." strings in JSON (a double cannot hold every u64); ids with --anonymize. */
static void field_hex(struct fields *f, const char *name, uint64_t v)
{
	key(f, name);
	if (f->json)
		cli_out_char(f->o, '"');
	cli_out_hex(f->o, cli_anon(f->names->anon, v));
	if (f->json)
		cli_out_char(f->o, '"');
}

static void field_str(struct fields *f, const char *name, const char *s, size_t len)
{
	key(f, name);
	if (f->json) {
		cli_json_str(f->o, s, len);
		return;
	}
	cli_out_char(f->o, '"');
	cli_text_str(f->o, s, len);
	cli_out_char(f->o, '"');
}

static void field_cstr(struct fields *f, const char *name, const char *s)
{
	field_str(f, name, s, strlen(s));
}

static void backend_fields(struct fields *f, const char *name, uint64_t backend)
{
	char buf[24];

	field_hex(f, name, backend);
	field_cstr(f, "backend_name", cli_backend_name(f->names, f->r, backend, buf));
}

static void dims_field(struct fields *f, const struct ggmlviz_event *ev,
		       const struct ggmlviz_field *d)
{
	key(f, d->name);
	for (unsigned i = 0; i < 4; i++) {
		cli_out_str(f->o, i ? "," : f->json ? "[" : "");
		cli_out_u64(f->o, ggmlviz_field_get(ev->payload, d, i));
	}
	if (f->json)
		cli_out_char(f->o, ']');
}

/* One field of the format's table, with the name of what it numbers. */
static void table_field(struct fields *f, const struct ggmlviz_event *ev,
			const struct ggmlviz_field *d)
{
	uint64_t v = ggmlviz_field_get(ev->payload, d, 0);
	char buf[CLI_OP_NAME_MAX], id[64];
	bool backend_key = ev->type == GGMLVIZ_EVENT_META && d->offset == 8 &&
			   ev->data.meta.kind == GGMLVIZ_META_BACKEND_NAME;

	if (backend_key && cli_anon_on(f->names->anon)) {
		field_hex(f, d->name, v); /* a backend's address, as in the records it names */
		return;
	}
	switch (d->kind) {
	case GGMLVIZ_FIELD_ADDRESS:
		field_hex(f, d->name, v);
		break;
	case GGMLVIZ_FIELD_BACKEND:
		backend_fields(f, d->name, v);
		break;
	case GGMLVIZ_FIELD_OP_TYPE:
		field_u64(f, d->name, v);
		field_cstr(f, "op", cli_op_name(f->names, f->r, (uint32_t)v, buf));
		break;
	case GGMLVIZ_FIELD_META_KIND:
		field_cstr(f, d->name, ggmlviz_meta_kind_name((uint32_t)v));
		snprintf(id, sizeof id, "%s_id", d->name);
		field_u64(f, id, v);
		break;
	case GGMLVIZ_FIELD_DIMS:
		dims_field(f, ev, d);
		break;
	case GGMLVIZ_FIELD_I32:
	case GGMLVIZ_FIELD_I64:
		field_i64(f, d->name, (int64_t)v);
		break;
	default:
		field_u64(f, d->name, v);
		break;
	}
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
	size_t n;
	const struct ggmlviz_field *table = ggmlviz_event_fields(ev->type, &n);

	if (!table) {
		if (!cli_anon_on(f->names->anon))
			raw_fields(f, ev); /* a type from the future (it may hold addresses) */
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!(table[i].flags & GGMLVIZ_FIELD_ALIAS))
			table_field(f, ev, &table[i]);
}

/* Little-endian loads from a packed record's body (ggmlviz(5), "Packed times"). */
static uint64_t body_u(const char *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i-- > 0;)
		v = v << 8 | (uint8_t)p[i];
	return v;
}

/* A packed body's n times (gap, duration: u32 each), as a list. */
static void body_times(struct fields *f, const char *p, uint32_t n)
{
	key(f, "times");
	cli_out_char(f->o, '[');
	for (uint32_t k = 0; k < n; k++, p += GGMLVIZ_OP_TIMES_ENTRY) {
		cli_out_str(f->o, k ? ",[" : "[");
		cli_out_u64(f->o, body_u(p, 4));
		cli_out_char(f->o, ',');
		cli_out_u64(f->o, body_u(p + 4, 4));
		cli_out_char(f->o, ']');
	}
	cli_out_char(f->o, ']');
}

/* A SHARE_TIMES DEFINE's n identities (tensor, op_type, node), as a list. */
static void body_ids(struct fields *f, const char *p, uint32_t n)
{
	key(f, "ids");
	cli_out_char(f->o, '[');
	for (uint32_t k = 0; k < n; k++, p += GGMLVIZ_SHARE_TIMES_IDENTITY) {
		cli_out_str(f->o, k ? (f->json ? ",[\"" : ",[") : (f->json ? "[\"" : "["));
		cli_out_hex(f->o, cli_anon(f->names->anon, body_u(p, 8)));
		cli_out_str(f->o, f->json ? "\"," : ",");
		cli_out_u64(f->o, body_u(p + 8, 4));
		cli_out_char(f->o, ',');
		cli_out_u64(f->o, body_u(p + 12, 4));
		cli_out_char(f->o, ']');
	}
	cli_out_char(f->o, ']');
}

/*
 * An OP_TIMES or SHARE_TIMES body, decoded: "ids" [tensor, op_type, node]
 * (a SHARE_TIMES DEFINE's) and "times" [gap_ns, duration_ns]; false if it
 * does not hold what its payload says (then it is printed as a label).
 */
static bool packed_body(struct fields *f, const struct ggmlviz_event *ev)
{
	bool shares = ev->type == GGMLVIZ_EVENT_SHARE_TIMES;
	uint32_t n = shares ? ev->data.share_times.n_shares : ev->data.op_times.n_ops;
	uint32_t n_ids = shares && ev->data.share_times.mode == GGMLVIZ_DESC_SET_DEFINE ? n : 0;

	if ((uint64_t)ev->label_len !=
	    (uint64_t)n * GGMLVIZ_OP_TIMES_ENTRY + (uint64_t)n_ids * GGMLVIZ_SHARE_TIMES_IDENTITY)
		return false;
	if (n_ids)
		body_ids(f, ev->label, n_ids);
	body_times(f, ev->label + n_ids * GGMLVIZ_SHARE_TIMES_IDENTITY, n);
	return true;
}

/* An OP_SUMMARY window's body (ggmlviz(5), "Op windows"): its first step's time, its steps, their phase. */
static bool window_body(struct fields *f, const struct ggmlviz_event *ev)
{
	if (ev->label_len != GGMLVIZ_OP_WINDOW_BODY)
		return false;
	field_u64(f, "window_first_ts", body_u(ev->label, 8));
	field_u64(f, "window_steps", body_u(ev->label + 8, 4));
	field_u64(f, "window_phase", body_u(ev->label + 12, 4));
	return true;
}

static bool is_packed(uint8_t type)
{
	return type == GGMLVIZ_EVENT_OP_TIMES || type == GGMLVIZ_EVENT_SHARE_TIMES;
}

void cli_event_print(struct cli_out *o, struct cli_names *names, const struct ggmlviz_reader *r,
		     const struct ggmlviz_event *ev, bool json)
{
	struct fields f = { o, names, r, json };

	cli_out_str(o, json ? "{\"offset\":" : "@");
	cli_out_u64(o, ev->offset);
	if (json) {
		field_cstr(&f, "type", ggmlviz_event_type_name(ev->type));
		field_u64(&f, "type_id", ev->type);
	} else {
		cli_out_char(o, ' ');
		cli_out_str(o, ggmlviz_event_type_name(ev->type));
		if (ev->type >= GGMLVIZ_EVENT_TYPE_COUNT)
			field_u64(&f, "type_id", ev->type);
	}
	field_u64(&f, "ts", ev->timestamp_ns);
	field_u64(&f, "tid", ev->thread_id);
	payload_fields(&f, ev);
	if (ev->label && is_packed(ev->type) && packed_body(&f, ev))
		; /* its label is a body of numbers */
	else if (ev->label && ev->type == GGMLVIZ_EVENT_OP_SUMMARY && window_body(&f, ev))
		; /* so is a window's */
	else if (ev->label)
		field_str(&f, "label", ev->label, ev->label_len);
	else if (json)
		cli_out_str(o, ",\"label\":null");
	cli_out_str(o, json ? "}\n" : "\n");
}
