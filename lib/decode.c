/*
 * Decoding GGMLVIZ v1 records in place: ggmlviz_reader_next.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <ggmlviz/reader.h>

#include "reader.h"
#include "record.h"

static void decode_op(struct ggmlviz_event *ev, const uint8_t *p)
{
	ev->data.op.tensor_ptr = get_u64(p + OP_TENSOR);
	ev->data.op.op_type = get_u32(p + OP_TYPE);
	ev->data.op.op_size = get_u64(p + OP_SIZE);
	ev->data.op.backend_ptr = get_u64(p + OP_BACKEND);
}

static void decode_graph(struct ggmlviz_event *ev, const uint8_t *p)
{
	ev->data.graph.graph_ptr = get_u64(p + GRAPH_PTR);
	ev->data.graph.n_nodes = get_u32(p + GRAPH_NODES);
	ev->data.graph.n_threads = get_u32(p + GRAPH_THREADS);
	ev->data.graph.backend_ptr = get_u64(p + GRAPH_BACKEND);
}

static void decode_meta(struct ggmlviz_event *ev, const uint8_t *p)
{
	ev->data.meta.kind = get_u32(p + META_KIND);
	ev->data.meta.key = get_u64(p + META_KEY);
	ev->data.meta.value = get_u64(p + META_VALUE);
	ev->data.meta.value2 = get_u64(p + META_VALUE2);
}

static void decode_user(struct ggmlviz_event *ev, const uint8_t *p)
{
	ev->data.user.value = get_u64(p + USER_VALUE);
	memcpy(&ev->data.user.svalue, &ev->data.user.value, sizeof ev->data.user.svalue);
}

static void decode_op_info(struct ggmlviz_event *ev, const uint8_t *p)
{
	ev->data.op_info.tensor_ptr = get_u64(p + INFO_TENSOR);
	for (int i = 0; i < 4; i++)
		ev->data.op_info.ne[i] = get_u32(p + INFO_NE + 4 * i);
	ev->data.op_info.flops = get_u64(p + INFO_FLOPS);
}

/* Fills the payload member of the type; the "zero" holes are never read. */
static void decode_payload(struct ggmlviz_event *ev, const uint8_t *p)
{
	memset(&ev->data, 0, sizeof ev->data);
	switch (ev->type) {
	case GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN:
	case GGMLVIZ_EVENT_GRAPH_COMPUTE_END:
		decode_graph(ev, p);
		break;
	case GGMLVIZ_EVENT_OP_COMPUTE_BEGIN:
	case GGMLVIZ_EVENT_OP_COMPUTE_END:
		decode_op(ev, p);
		break;
	case GGMLVIZ_EVENT_TENSOR_ALLOC:
	case GGMLVIZ_EVENT_TENSOR_FREE:
	case GGMLVIZ_EVENT_BARRIER_WAIT:
	case GGMLVIZ_EVENT_THREAD_BEGIN:
	case GGMLVIZ_EVENT_THREAD_FREE:
		ev->data.memory.ptr = get_u64(p + MEM_PTR);
		ev->data.memory.size = get_u64(p + MEM_SIZE);
		break;
	case GGMLVIZ_EVENT_META:
		decode_meta(ev, p);
		break;
	case GGMLVIZ_EVENT_MARK:
	case GGMLVIZ_EVENT_COUNTER:
	case GGMLVIZ_EVENT_SCOPE_BEGIN:
	case GGMLVIZ_EVENT_SCOPE_END:
		decode_user(ev, p);
		break;
	case GGMLVIZ_EVENT_OP_INFO:
		decode_op_info(ev, p);
		break;
	default:
		break; /* a type from the future: its raw payload is all there is */
	}
}

/* The error of the record at r->pos; corruption stays, truncation may end. */
static int record_error(struct ggmlviz_reader *r, int code)
{
	if (code == GGMLVIZ_ECORRUPT)
		r->error = code;
	return code;
}

/* What is wrong with a record that cannot be decoded (yet). */
struct fault {
	enum { CUT_FIXED, CUT_LENGTH, CUT_LABEL, BAD_HAS_LABEL, LABEL_TOO_LONG } why;
	uint64_t value; /* has_label, or label_length */
};

/*
 * Size of the record at p, of which left bytes are known; or
 * GGMLVIZ_ETRUNCATED / GGMLVIZ_ECORRUPT, saying why in f. Reads nothing
 * past left.
 */
static int64_t record_size(const uint8_t *p, uint64_t left, struct fault *f)
{
	uint32_t label_len;

	f->why = CUT_FIXED;
	if (left < GGMLVIZ_RECORD_SIZE)
		return GGMLVIZ_ETRUNCATED;
	if (p[REC_HAS_LABEL] == 0)
		return GGMLVIZ_RECORD_SIZE;
	f->value = p[REC_HAS_LABEL];
	f->why = BAD_HAS_LABEL;
	if (p[REC_HAS_LABEL] != 1)
		return GGMLVIZ_ECORRUPT;
	f->why = CUT_LENGTH;
	if (left < GGMLVIZ_LABELED_RECORD_SIZE)
		return GGMLVIZ_ETRUNCATED;
	label_len = get_u32(p + REC_LABEL_LEN);
	f->value = label_len;
	f->why = LABEL_TOO_LONG;
	if (label_len > GGMLVIZ_LABEL_LIMIT)
		return GGMLVIZ_ECORRUPT;
	f->why = CUT_LABEL;
	if (left - GGMLVIZ_LABELED_RECORD_SIZE < label_len)
		return GGMLVIZ_ETRUNCATED;
	return (int64_t)record_size_labeled(label_len);
}

/* Fills ev from the record of size bytes at p, at offset in the file. */
static void decode_record(struct ggmlviz_event *ev, const uint8_t *p, int64_t size,
			  uint64_t offset)
{
	ev->type = p[REC_TYPE];
	ev->timestamp_ns = get_u64(p + REC_TIMESTAMP);
	ev->thread_id = get_u32(p + REC_THREAD);
	ev->payload = p + REC_PAYLOAD;
	decode_payload(ev, ev->payload);
	if (size == GGMLVIZ_RECORD_SIZE) {
		ev->label = NULL;
		ev->label_len = 0;
	} else {
		ev->label = (const char *)p + REC_LABEL;
		ev->label_len = (uint32_t)size - GGMLVIZ_LABELED_RECORD_SIZE;
	}
	ev->size = (uint32_t)size;
	ev->offset = offset;
	memset(ev->reserved, 0, sizeof ev->reserved);
}

int ggmlviz_reader_next(struct ggmlviz_reader *r, struct ggmlviz_event *ev)
{
	const uint8_t *p = r->data + r->pos;
	uint64_t left = r->size - r->pos;
	struct fault f;
	int64_t size;

	if (r->error)
		return r->error;
	if (left == 0)
		return 0;
	size = record_size(p, left, &f);
	if (size < 0)
		return record_error(r, (int)size);
	decode_record(ev, p, size, r->pos);
	if (ev->type == GGMLVIZ_EVENT_META || ev->type == GGMLVIZ_EVENT_THREAD_BEGIN) {
		int rc = ggmlviz__names_update(r, ev);
		if (rc < 0)
			return rc; /* not consumed: a later call tries again */
	}
	r->pos += (uint64_t)size;
	if (r->pos >= r->release_at)
		ggmlviz__reader_release(r, ev->offset);
	return 1;
}

/* The sentence for a fault at offset, with left bytes of data there. */
static int say_fault(char *buf, size_t size, uint64_t offset, uint64_t left,
		     const struct fault *f)
{
	switch (f->why) {
	case BAD_HAS_LABEL:
		return snprintf(buf, size, "corrupt record at byte %" PRIu64 ": has_label is %" PRIu64
				" (must be 0 or 1)", offset, f->value);
	case LABEL_TOO_LONG:
		return snprintf(buf, size, "corrupt record at byte %" PRIu64 ": label_length is %"
				PRIu64 ", more than the %u-byte limit", offset, f->value,
				GGMLVIZ_LABEL_LIMIT);
	case CUT_LABEL:
		return snprintf(buf, size, "truncated at byte %" PRIu64 ": the data ends %" PRIu64
				" bytes into the last record, which holds %" PRIu64 " bytes", offset,
				left, record_size_labeled((uint32_t)f->value));
	case CUT_FIXED:
	case CUT_LENGTH:
		break;
	}
	return snprintf(buf, size, "truncated at byte %" PRIu64 ": the data ends %" PRIu64
			" bytes into the last record (its fixed part is %u bytes%s)", offset, left,
			GGMLVIZ_RECORD_SIZE, f->why == CUT_LENGTH ? ", 50 with a label length" : "");
}

int ggmlviz_reader_describe(const struct ggmlviz_reader *r, char *buf, size_t size)
{
	uint64_t left = r->size - r->pos;
	struct fault f;

	if (!buf && size)
		return -EINVAL;
	if (r->error == -ESTALE)
		return snprintf(buf, size, "the file shrank under the reader at byte %" PRIu64
				" (it was replaced or truncated)", r->pos);
	if (left == 0)
		return snprintf(buf, size, "no error: the data ends at byte %" PRIu64
				", after a whole record", r->pos);
	if (record_size(r->data + r->pos, left, &f) >= 0)
		return snprintf(buf, size, "no error at byte %" PRIu64, r->pos);
	return say_fault(buf, size, r->pos, left, &f);
}
