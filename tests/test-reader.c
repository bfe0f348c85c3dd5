/*
 * The reader on memory: every field of every record type, unknown types,
 * every cut point, every kind of corruption, headers, names, rewind.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>

#include "check-compat.h"
#include "vectors.h"

static struct ggmlviz_reader *open_mem(const void *data, size_t size)
{
	struct ggmlviz_reader *r = NULL;

	ck_assert_int_eq(ggmlviz_reader_open_memory(data, size, &r), 0);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* A heap copy of exactly n bytes, so that AddressSanitizer sees any over-read. */
static uint8_t *exact_copy(const uint8_t *bytes, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(p);
	if (n)
		memcpy(p, bytes, n);
	return p;
}

static void check_label(const struct vector *v, const struct ggmlviz_event *ev)
{
	ck_assert_uint_eq(ev->label_len, v->expect.label_len);
	if (!v->expect.label) {
		ck_assert_ptr_null(ev->label);
		return;
	}
	ck_assert_ptr_nonnull(ev->label);
	ck_assert_mem_eq(ev->label, v->expect.label, v->expect.label_len);
}

/* Compares the payload member that the type defines, and only it. */
static void check_data(const struct vector *v, const struct ggmlviz_event *ev)
{
	const struct ggmlviz_event *x = &v->expect;

	switch (x->type) {
	case 0:
	case 1:
		ck_assert_uint_eq(ev->data.graph.graph_ptr, x->data.graph.graph_ptr);
		ck_assert_uint_eq(ev->data.graph.n_nodes, x->data.graph.n_nodes);
		ck_assert_uint_eq(ev->data.graph.n_threads, x->data.graph.n_threads);
		ck_assert_uint_eq(ev->data.graph.backend_ptr, x->data.graph.backend_ptr);
		break;
	case 2:
	case 3:
		ck_assert_uint_eq(ev->data.op.tensor_ptr, x->data.op.tensor_ptr);
		ck_assert_uint_eq(ev->data.op.op_type, x->data.op.op_type);
		ck_assert_uint_eq(ev->data.op.op_size, x->data.op.op_size);
		ck_assert_uint_eq(ev->data.op.backend_ptr, x->data.op.backend_ptr);
		break;
	case 4: case 5: case 6: case 7: case 8:
		ck_assert_uint_eq(ev->data.memory.ptr, x->data.memory.ptr);
		ck_assert_uint_eq(ev->data.memory.size, x->data.memory.size);
		break;
	case 9:
		ck_assert_uint_eq(ev->data.meta.kind, x->data.meta.kind);
		ck_assert_uint_eq(ev->data.meta.key, x->data.meta.key);
		ck_assert_uint_eq(ev->data.meta.value, x->data.meta.value);
		ck_assert_uint_eq(ev->data.meta.value2, x->data.meta.value2);
		break;
	case 10: case 11: case 12: case 13:
		ck_assert_uint_eq(ev->data.user.value, x->data.user.value);
		ck_assert_int_eq(ev->data.user.svalue, x->data.user.svalue);
		break;
	case 14:
		ck_assert_uint_eq(ev->data.op_info.tensor_ptr, x->data.op_info.tensor_ptr);
		for (int i = 0; i < 4; i++)
			ck_assert_int_eq(ev->data.op_info.ne[i], x->data.op_info.ne[i]);
		ck_assert_uint_eq(ev->data.op_info.flops, x->data.op_info.flops);
		break;
	default:
		/* unknown: nothing decoded, every byte of data zero */
		for (int i = 0; i < 8; i++)
			ck_assert_uint_eq(ev->data.reserved_[i], 0);
		break;
	}
}

static void check_event(const struct vector *v, const struct ggmlviz_event *ev,
			const uint8_t *file)
{
	ck_assert_msg(ev->type == v->expect.type, "%s: type %u", v->name, ev->type);
	ck_assert_uint_eq(ev->timestamp_ns, v->expect.timestamp_ns);
	ck_assert_uint_eq(ev->thread_id, v->expect.thread_id);
	ck_assert_uint_eq(ev->offset, v->expect.offset);
	ck_assert_uint_eq(ev->size, v->expect.size);
	ck_assert_ptr_eq(ev->payload, file + v->expect.offset + 13);
	ck_assert_mem_eq(ev->payload, v->payload, 32);
	check_label(v, ev);
	check_data(v, ev);
}

START_TEST(test_every_type_decoded)
{
	struct vbuf b = { 0 };
	struct vector v[VECTORS_MAX];
	size_t n = vectors_build(&b, v);
	struct ggmlviz_reader *r = open_mem(b.bytes, b.len);
	struct ggmlviz_event ev;

	ck_assert_uint_eq(ggmlviz_reader_offset(r), 12);
	ck_assert_uint_eq(ggmlviz_reader_size(r), b.len);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
		check_event(&v[i], &ev, b.bytes);
		ck_assert_uint_eq(ggmlviz_reader_offset(r), v[i].expect.offset + v[i].expect.size);
	}
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ck_assert_uint_eq(ggmlviz_reader_offset(r), b.len);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* Decoding never depends on the host: bytes typed in by hand, field by field. */
START_TEST(test_literal_bytes)
{
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;

	vec_header(&b, 1);
	vbuf_bytes(&b, vec_literal_op, vec_literal_op_size);
	r = open_mem(b.bytes, b.len);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.type, GGMLVIZ_EVENT_OP_COMPUTE_BEGIN);
	ck_assert_uint_eq(ev.timestamp_ns, 0x0102030405060708ull);
	ck_assert_uint_eq(ev.thread_id, 12345);
	ck_assert_uint_eq(ev.data.op.tensor_ptr, 0x7f4030201000ull);
	ck_assert_uint_eq(ev.data.op.op_type, 29);
	ck_assert_uint_eq(ev.data.op.op_size, 65536);
	ck_assert_uint_eq(ev.data.op.backend_ptr, 0);
	ck_assert_uint_eq(ev.label_len, 4);
	ck_assert_mem_eq(ev.label, "node", 4);
	ck_assert_uint_eq(ev.size, 54);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* The same record with zero holes and with garbage holes decodes the same. */
START_TEST(test_holes_ignored)
{
	uint8_t clean[32], dirty[32];
	struct vbuf b = { 0 };
	struct ggmlviz_event e1, e2;
	struct ggmlviz_reader *r;

	vec_header(&b, 1);
	vec_op(clean, 0xabcdef, 3, 4, 5, 0x00);
	vec_op(dirty, 0xabcdef, 3, 4, 5, 0xff);
	vec_record_s(&b, 2, 1, 2, clean, NULL);
	vec_record_s(&b, 2, 1, 2, dirty, NULL);
	vec_graph(clean, 9, 8, 7, 6, 0x00);
	vec_graph(dirty, 9, 8, 7, 6, 0x81);
	vec_record_s(&b, 0, 1, 2, clean, NULL);
	vec_record_s(&b, 0, 1, 2, dirty, NULL);
	vec_meta(clean, 3, 9, 8, 7, 0x00);
	vec_meta(dirty, 3, 9, 8, 7, 0xee);
	vec_record_s(&b, 9, 1, 2, clean, NULL);
	vec_record_s(&b, 9, 1, 2, dirty, NULL);
	r = open_mem(b.bytes, b.len);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ggmlviz_reader_next(r, &e1), 1);
		ck_assert_int_eq(ggmlviz_reader_next(r, &e2), 1);
		ck_assert_mem_eq(&e1.data, &e2.data, sizeof e1.data);
		ck_assert_mem_ne(e1.payload, e2.payload, 32);
	}
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* A type from the future is delivered, then skipped by its size alone. */
START_TEST(test_unknown_type_skipped)
{
	static char big[3000];
	uint8_t pl[32];
	struct vbuf b = { 0 };
	struct ggmlviz_event ev;
	struct ggmlviz_reader *r;

	memset(big, 0x02, sizeof big); /* bytes that would look like OP records */
	memset(pl, 0x03, sizeof pl);
	vec_header(&b, 1);
	vec_record(&b, 200, 5, 6, pl, big, sizeof big);
	vec_record(&b, 99, 7, 8, pl, NULL, 0);
	vec_user(pl, 77, 0);
	vec_record_s(&b, 10, 9, 10, pl, "after");
	r = open_mem(b.bytes, b.len);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.type, 200);
	ck_assert_uint_eq(ev.size, 50 + sizeof big);
	ck_assert_uint_eq(ev.label_len, sizeof big);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.type, 99);
	ck_assert_uint_eq(ev.timestamp_ns, 7);
	ck_assert_ptr_null(ev.label);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.type, 10);
	ck_assert_uint_eq(ev.data.user.value, 77);
	ck_assert_mem_eq(ev.label, "after", 5);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* Where the record that contains byte cut starts; or cut itself at a boundary. */
static size_t record_start_before(const struct vector *v, size_t n, size_t cut, size_t *complete)
{
	*complete = 0;
	for (size_t i = 0; i < n; i++) {
		size_t end = v[i].expect.offset + v[i].expect.size;
		if (end > cut)
			return v[i].expect.offset;
		(*complete)++;
	}
	return cut;
}

START_TEST(test_every_cut_point)
{
	struct vbuf b = { 0 };
	struct vector v[VECTORS_MAX];
	size_t n = vectors_build(&b, v);

	for (size_t len = 0; len <= b.len; len++) {
		uint8_t *copy = exact_copy(b.bytes, len);
		struct ggmlviz_reader *r = NULL;
		struct ggmlviz_event ev;
		size_t complete, cut_at, got = 0;
		int rc = ggmlviz_reader_open_memory(copy, len, &r);

		if (len < 12) {
			ck_assert_msg(rc == GGMLVIZ_EMAGIC, "length %zu: %d", len, rc);
			ck_assert_ptr_null(r);
			free(copy);
			continue;
		}
		ck_assert_int_eq(rc, 0);
		cut_at = record_start_before(v, n, len, &complete);
		while ((rc = ggmlviz_reader_next(r, &ev)) == 1)
			check_event(&v[got++], &ev, copy);
		ck_assert_msg(got == complete, "length %zu: %zu records, not %zu", len, got,
			      complete);
		ck_assert_int_eq(rc, cut_at == len ? 0 : GGMLVIZ_ETRUNCATED);
		ck_assert_uint_eq(ggmlviz_reader_offset(r), cut_at);
		/* truncation repeats, at the same place */
		ck_assert_int_eq(ggmlviz_reader_next(r, &ev), rc);
		ck_assert_uint_eq(ggmlviz_reader_offset(r), cut_at);
		ggmlviz_reader_close(r);
		free(copy);
	}
	vbuf_free(&b);
}
END_TEST

/* Two good records, then a record whose bytes 45.. are replaced. */
static size_t corrupt_trace(struct vbuf *b, const uint8_t *tail, size_t tail_len)
{
	uint8_t pl[32];
	size_t at;

	vec_header(b, 1);
	vec_user(pl, 1, 0);
	vec_record_s(b, 10, 1, 1, pl, "one");
	vec_record_s(b, 10, 2, 1, pl, NULL);
	at = vec_record_s(b, 10, 3, 1, pl, NULL);
	b->len = at + 45; /* keep the fixed part up to has_label */
	vbuf_bytes(b, tail, tail_len);
	vec_record_s(b, 10, 4, 1, pl, "never reached");
	return at;
}

static void check_corrupt(const uint8_t *tail, size_t tail_len, int expect)
{
	struct vbuf b = { 0 };
	size_t at = corrupt_trace(&b, tail, tail_len);
	struct ggmlviz_reader *r = open_mem(b.bytes, b.len);
	struct ggmlviz_event ev;

	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.timestamp_ns, 1);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.timestamp_ns, 2);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ggmlviz_reader_next(r, &ev), expect);
		ck_assert_uint_eq(ggmlviz_reader_offset(r), at);
	}
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}

START_TEST(test_corrupt_has_label)
{
	static const uint8_t two[] = { 2 }, ff[] = { 255 }, big[] = { 0x80, 0, 0, 0, 0 };

	check_corrupt(two, sizeof two, GGMLVIZ_ECORRUPT);
	check_corrupt(ff, sizeof ff, GGMLVIZ_ECORRUPT);
	check_corrupt(big, sizeof big, GGMLVIZ_ECORRUPT);
}
END_TEST

START_TEST(test_corrupt_label_length)
{
	uint8_t over[5] = { 1 }, max[5] = { 1 };

	le32(over + 1, GGMLVIZ_LABEL_LIMIT + 1);
	le32(max + 1, 0xffffffffu);
	check_corrupt(over, sizeof over, GGMLVIZ_ECORRUPT);
	check_corrupt(max, sizeof max, GGMLVIZ_ECORRUPT);
}
END_TEST

/* The sentence for the record at the reader's offset, for a test to compare. */
static const char *described(struct ggmlviz_reader *r)
{
	static char buf[256];

	ck_assert_int_gt(ggmlviz_reader_describe(r, buf, sizeof buf), 0);
	return buf;
}

/* What stopped the reader, in words, with the offset and the faulty bytes. */
START_TEST(test_describe)
{
	static const uint8_t seven[] = { 7 };
	uint8_t huge[5] = { 1 }, pl[32];
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	char want[160], small[8];
	size_t at;

	at = corrupt_trace(&b, seven, sizeof seven);
	r = open_mem(b.bytes, b.len);
	while (ggmlviz_reader_next(r, &ev) == 1)
		;
	snprintf(want, sizeof want, "corrupt record at byte %zu: has_label is 7 (must be 0 or 1)", at);
	ck_assert_str_eq(described(r), want);
	ck_assert_int_eq(ggmlviz_reader_describe(r, NULL, 0), (int)strlen(want));
	ck_assert_int_eq(ggmlviz_reader_describe(r, NULL, 4), -EINVAL);
	ck_assert_int_eq(ggmlviz_reader_describe(r, small, sizeof small), (int)strlen(want));
	ck_assert_str_eq(small, "corrupt"); /* cut to fit, NUL-terminated */
	ggmlviz_reader_close(r);
	vbuf_free(&b);

	le32(huge + 1, 0xffffffffu);
	at = corrupt_trace(&b, huge, sizeof huge);
	r = open_mem(b.bytes, b.len);
	while (ggmlviz_reader_next(r, &ev) == 1)
		;
	snprintf(want, sizeof want, "corrupt record at byte %zu: label_length is 4294967295, "
		 "more than the 1048576-byte limit", at);
	ck_assert_str_eq(described(r), want);
	ggmlviz_reader_close(r);
	vbuf_free(&b);

	vec_header(&b, 1);
	vec_user(pl, 1, 0);
	at = vec_record_s(&b, 10, 1, 1, pl, "sixteen-byte-lab"); /* 66 bytes */
	r = open_mem(b.bytes, b.len - 46);                       /* 20 of them */
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), GGMLVIZ_ETRUNCATED);
	snprintf(want, sizeof want, "truncated at byte %zu: the data ends 20 bytes into the last "
		 "record (its fixed part is 46 bytes)", at);
	ck_assert_str_eq(described(r), want);
	ggmlviz_reader_close(r);
	r = open_mem(b.bytes, b.len - 6); /* 60 of 66: inside the label */
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), GGMLVIZ_ETRUNCATED);
	snprintf(want, sizeof want, "truncated at byte %zu: the data ends 60 bytes into the last "
		 "record, which holds 66 bytes", at);
	ck_assert_str_eq(described(r), want);
	ggmlviz_reader_close(r);
	r = open_mem(b.bytes, b.len);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	snprintf(want, sizeof want, "no error: the data ends at byte %zu, after a whole record",
		 b.len);
	ck_assert_str_eq(described(r), want);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* A label of the limit is legal: cut, it is truncation; whole, a record. */
START_TEST(test_label_at_limit)
{
	struct vbuf b = { 0 };
	char *label = malloc(GGMLVIZ_LABEL_LIMIT);
	uint8_t pl[32] = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	size_t at;

	ck_assert_ptr_nonnull(label);
	memset(label, 'x', GGMLVIZ_LABEL_LIMIT);
	vec_header(&b, 1);
	at = vec_record(&b, 10, 1, 1, pl, label, GGMLVIZ_LABEL_LIMIT);
	r = open_mem(b.bytes, b.len - 1);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), GGMLVIZ_ETRUNCATED);
	ck_assert_uint_eq(ggmlviz_reader_offset(r), at);
	ggmlviz_reader_close(r);
	r = open_mem(b.bytes, b.len);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.label_len, GGMLVIZ_LABEL_LIMIT);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ggmlviz_reader_close(r);
	free(label);
	vbuf_free(&b);
}
END_TEST

static int open_header(const uint8_t header[12])
{
	struct ggmlviz_reader *r = (struct ggmlviz_reader *)&r; /* must be reset */
	int rc = ggmlviz_reader_open_memory(header, 12, &r);

	if (rc < 0)
		ck_assert_ptr_null(r);
	ggmlviz_reader_close(r);
	return rc;
}

START_TEST(test_headers)
{
	static const uint8_t good[12] = { 'G', 'G', 'M', 'L', 'V', 'I', 'Z', '1', 1, 0, 0, 0 };
	uint8_t h[12];

	ck_assert_int_eq(open_header(good), 0);
	memcpy(h, good, 12);
	h[7] = '2';
	ck_assert_int_eq(open_header(h), GGMLVIZ_EMAGIC);
	memcpy(h, "ggmlviz1", 8);
	ck_assert_int_eq(open_header(h), GGMLVIZ_EMAGIC);
	memset(h, 0, 12);
	ck_assert_int_eq(open_header(h), GGMLVIZ_EMAGIC);
	memcpy(h, good, 12);
	h[8] = 2;
	ck_assert_int_eq(open_header(h), GGMLVIZ_EVERSION);
	h[8] = 0;
	ck_assert_int_eq(open_header(h), GGMLVIZ_EVERSION);
	h[11] = 1; /* 1 stored big-endian */
	ck_assert_int_eq(open_header(h), GGMLVIZ_EVERSION);
	memcpy(h, good, 12);
	h[9] = 1; /* 257 */
	ck_assert_int_eq(open_header(h), GGMLVIZ_EVERSION);
}
END_TEST

START_TEST(test_short_and_bad_arguments)
{
	struct ggmlviz_reader *r = (struct ggmlviz_reader *)&r;

	for (size_t n = 0; n < 12; n++) {
		r = (struct ggmlviz_reader *)&r;
		ck_assert_int_eq(ggmlviz_reader_open_memory("GGMLVIZ1\1\0\0\0", n, &r),
				 GGMLVIZ_EMAGIC);
		ck_assert_ptr_null(r);
	}
	r = (struct ggmlviz_reader *)&r;
	ck_assert_int_eq(ggmlviz_reader_open_memory(NULL, 12, &r), -EINVAL);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(ggmlviz_reader_open_memory("GGMLVIZ1\1\0\0\0", 12, NULL), -EINVAL);
	ggmlviz_reader_close(NULL);
}
END_TEST

START_TEST(test_header_only_is_empty_trace)
{
	struct ggmlviz_reader *r = open_mem("GGMLVIZ1\1\0\0\0", 12);
	struct ggmlviz_event ev;

	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ck_assert_uint_eq(ggmlviz_reader_offset(r), 12);
	ck_assert_int_eq(ggmlviz_reader_refresh(r), -ENOTSUP);
	ggmlviz_reader_close(r);
}
END_TEST

START_TEST(test_rewind)
{
	struct vbuf b = { 0 };
	struct vector v[VECTORS_MAX];
	size_t n = vectors_build(&b, v);
	struct ggmlviz_reader *r = open_mem(b.bytes, b.len);
	struct ggmlviz_event ev;

	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < n; i++) {
			ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
			check_event(&v[i], &ev, b.bytes);
		}
		ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
		ggmlviz_reader_rewind(r);
		ck_assert_uint_eq(ggmlviz_reader_offset(r), 12);
	}
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* Corruption is found again after a rewind, and what came before delivered again. */
START_TEST(test_rewind_after_corruption)
{
	static const uint8_t two[] = { 2 };
	struct vbuf b = { 0 };
	size_t at = corrupt_trace(&b, two, 1);
	struct ggmlviz_reader *r = open_mem(b.bytes, b.len);
	struct ggmlviz_event ev;

	for (int pass = 0; pass < 2; pass++) {
		ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
		ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
		ck_assert_int_eq(ggmlviz_reader_next(r, &ev), GGMLVIZ_ECORRUPT);
		ck_assert_uint_eq(ggmlviz_reader_offset(r), at);
		ggmlviz_reader_rewind(r);
	}
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

static void add_name(struct vbuf *b, uint32_t kind, uint64_t key, const char *name)
{
	uint8_t pl[32];

	vec_meta(pl, kind, key, 0, 0, 0);
	vec_record_s(b, 9, 1, 1, pl, name);
}

START_TEST(test_names)
{
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	const char *first;

	vec_header(&b, 1);
	add_name(&b, GGMLVIZ_META_OP_NAME, 29, "MUL_MAT");
	add_name(&b, GGMLVIZ_META_BACKEND_NAME, 0x7f0000001000ull, "CUDA0");
	add_name(&b, GGMLVIZ_META_BACKEND_NAME, 0, "CPU");
	add_name(&b, GGMLVIZ_META_THREAD_NAME, 4242, "main");
	add_name(&b, GGMLVIZ_META_PROCESS, 29, "llama-cli"); /* not a name table */
	add_name(&b, GGMLVIZ_META_OP_NAME, 30, NULL);         /* no label: ignored */
	add_name(&b, GGMLVIZ_META_OP_NAME, 29, "MUL_MAT_ID"); /* replaces */
	r = open_mem(b.bytes, b.len);
	ck_assert_ptr_null(ggmlviz_reader_op_name(r, 29));
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	first = ggmlviz_reader_op_name(r, 29);
	ck_assert_str_eq(first, "MUL_MAT");
	ck_assert_ptr_ne(first, ev.label); /* a NUL-terminated copy */
	while (ggmlviz_reader_next(r, &ev) == 1)
		;
	ck_assert_str_eq(ggmlviz_reader_op_name(r, 29), "MUL_MAT_ID");
	ck_assert_str_eq(first, "MUL_MAT"); /* the replaced name lives on */
	ck_assert_ptr_null(ggmlviz_reader_op_name(r, 30));
	ck_assert_ptr_null(ggmlviz_reader_op_name(r, 4242));
	ck_assert_str_eq(ggmlviz_reader_backend_name(r, 0x7f0000001000ull), "CUDA0");
	ck_assert_str_eq(ggmlviz_reader_backend_name(r, 0), "CPU");
	ck_assert_ptr_null(ggmlviz_reader_backend_name(r, 29));
	ck_assert_str_eq(ggmlviz_reader_thread_name(r, 4242), "main");
	ck_assert_ptr_null(ggmlviz_reader_thread_name(r, 29));
	ggmlviz_reader_rewind(r); /* names are kept */
	ck_assert_str_eq(ggmlviz_reader_thread_name(r, 4242), "main");
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* Every op type written as the tools print it: the trace's name, a fused pair's from its parts. */
START_TEST(test_write_op_name)
{
	const uint32_t norm_mul = GGMLVIZ_OP_TYPE_FUSE(24, 7), cpu_pair = GGMLVIZ_OP_TYPE_FUSE(24, 8);
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	char buf[32];

	ck_assert_uint_eq(norm_mul, 0x80070018u);
	ck_assert_uint_eq(GGMLVIZ_OP_TYPE_FIRST(norm_mul), 24);
	ck_assert_uint_eq(GGMLVIZ_OP_TYPE_SECOND(norm_mul), 7);
	ck_assert_uint_eq(GGMLVIZ_OP_TYPE_FUSE(0x18018, 0x7fff), 0xffff0018u); /* cut to 15 bits */
	vec_header(&b, 1);
	add_name(&b, GGMLVIZ_META_OP_NAME, 24, "RMS_NORM");
	add_name(&b, GGMLVIZ_META_OP_NAME, 7, "MUL");
	add_name(&b, GGMLVIZ_META_OP_NAME, cpu_pair, "the pair's own"); /* named by the trace */
	r = open_mem(b.bytes, b.len);
	ck_assert_int_eq(ggmlviz_reader_write_op_name(r, norm_mul, buf, sizeof buf), 10);
	ck_assert_str_eq(buf, "op#24+op#7"); /* nothing read yet */
	while (ggmlviz_reader_next(r, &ev) == 1)
		;
	ck_assert_int_eq(ggmlviz_reader_write_op_name(r, norm_mul, buf, sizeof buf), 12);
	ck_assert_str_eq(buf, "RMS_NORM+MUL");
	ck_assert_int_eq(ggmlviz_reader_write_op_name(r, 24, buf, sizeof buf), 8);
	ck_assert_str_eq(buf, "RMS_NORM");
	ck_assert_int_eq(ggmlviz_reader_write_op_name(r, cpu_pair, buf, sizeof buf), 14);
	ck_assert_str_eq(buf, "the pair's own");
	ck_assert_int_eq(ggmlviz_reader_write_op_name(r, GGMLVIZ_OP_TYPE_FUSE(29, 7), buf, sizeof buf),
			 9);
	ck_assert_str_eq(buf, "op#29+MUL");
	ck_assert_int_eq(ggmlviz_reader_write_op_name(r, 4242, buf, sizeof buf), 7);
	ck_assert_str_eq(buf, "op#4242");
	/* cut to fit, counted whole, as snprintf */
	ck_assert_int_eq(ggmlviz_reader_write_op_name(r, norm_mul, buf, 10), 12);
	ck_assert_str_eq(buf, "RMS_NORM+");
	ck_assert_int_eq(ggmlviz_reader_write_op_name(r, norm_mul, NULL, 0), 12);
	ck_assert_int_eq(ggmlviz_reader_write_op_name(r, norm_mul, NULL, 4), -EINVAL);
	ck_assert_int_eq(ggmlviz_reader_write_op_name(NULL, 24, buf, sizeof buf), -EINVAL);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* The original writer named threads by THREAD_BEGIN's label; a later THREAD_NAME wins. */
START_TEST(test_thread_begin_names)
{
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	uint8_t pl[32];

	vec_header(&b, 1);
	vec_memory(pl, 0, 0, 0);
	vec_record_s(&b, GGMLVIZ_EVENT_THREAD_BEGIN, 5, 777, pl, "worker");
	vec_record_s(&b, GGMLVIZ_EVENT_THREAD_BEGIN, 5, 778, pl, "");   /* empty: no name */
	vec_record_s(&b, GGMLVIZ_EVENT_THREAD_BEGIN, 5, 779, pl, NULL); /* none */
	r = open_mem(b.bytes, b.len);
	while (ggmlviz_reader_next(r, &ev) == 1)
		;
	ck_assert_str_eq(ggmlviz_reader_thread_name(r, 777), "worker");
	ck_assert_ptr_null(ggmlviz_reader_thread_name(r, 778));
	ck_assert_ptr_null(ggmlviz_reader_thread_name(r, 779));
	ggmlviz_reader_close(r);
	add_name(&b, GGMLVIZ_META_THREAD_NAME, 777, "decoder");
	r = open_mem(b.bytes, b.len);
	while (ggmlviz_reader_next(r, &ev) == 1)
		;
	ck_assert_str_eq(ggmlviz_reader_thread_name(r, 777), "decoder");
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* Many names, repeated: each key keeps one name, lookups stay right. */
START_TEST(test_many_names)
{
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	char name[32];

	vec_header(&b, 1);
	for (int rep = 0; rep < 2; rep++)
		for (uint32_t i = 0; i < 2000; i++) {
			snprintf(name, sizeof name, "op%u", i);
			add_name(&b, GGMLVIZ_META_OP_NAME, i, name);
		}
	r = open_mem(b.bytes, b.len);
	while (ggmlviz_reader_next(r, &ev) == 1)
		;
	for (uint32_t i = 0; i < 2000; i++) {
		snprintf(name, sizeof name, "op%u", i);
		ck_assert_str_eq(ggmlviz_reader_op_name(r, i), name);
	}
	ck_assert_ptr_null(ggmlviz_reader_op_name(r, 2000));
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* ---- whatever the bytes ---- */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13; /* xorshift64 */
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 32);
}

/* Reads all of data: every event inside it, offsets rising, a legal ending. */
static void read_anything(const uint8_t *data, size_t len)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	struct ggmlviz_timing t;
	uint64_t last = 0;
	int rc;

	if (ggmlviz_reader_open_memory(data, len, &r) < 0)
		return;
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1) {
		ck_assert_uint_ge(ev.offset, 12);
		ck_assert_uint_ge(ev.offset, last);
		ck_assert_uint_le(ev.offset + ev.size, len);
		if (ev.label)
			ck_assert_ptr_eq(ev.label, (const char *)data + ev.offset + 50);
		last = ev.offset + ev.size;
	}
	ck_assert(rc == 0 || rc == GGMLVIZ_ETRUNCATED || rc == GGMLVIZ_ECORRUPT);
	ck_assert_uint_eq(ggmlviz_reader_offset(r), last ? last : 12);
	ggmlviz_reader_rewind(r);
	while ((rc = ggmlviz_reader_next_timing(r, &t)) == 1)
		ck_assert_uint_le(t.end_offset, len);
	ggmlviz_reader_close(r);
}

/* A valid trace with a few bytes changed at random, cut at random. */
START_TEST(test_damaged_bytes)
{
	struct vbuf b = { 0 };
	struct vector v[VECTORS_MAX];

	vectors_build(&b, v);
	for (int round = 0; round < 3000; round++) {
		size_t len = 12 + rng() % (b.len - 11);
		uint8_t *copy = exact_copy(b.bytes, len);
		for (uint32_t n = 1 + rng() % 8; n && len > 12; n--)
			copy[12 + rng() % (len - 12)] = (uint8_t)rng();
		read_anything(copy, len);
		free(copy);
	}
	vbuf_free(&b);
}
END_TEST

/* Records of random bytes, has_label mostly 0 or 1 so that reading goes on. */
START_TEST(test_random_records)
{
	for (int round = 0; round < 300; round++) {
		struct vbuf b = { 0 };
		uint8_t *copy;
		vec_header(&b, 1);
		for (int i = 0; i < 64; i++) {
			uint8_t rec[50 + 40];
			uint32_t label_len = rng() % 41;
			for (size_t k = 0; k < sizeof rec; k++)
				rec[k] = (uint8_t)rng();
			rec[0] = (uint8_t)(rng() % 20); /* mostly types this library knows */
			rec[45] = rng() % 16 ? (uint8_t)(rng() % 2) : rec[45];
			le32(rec + 46, rng() % 32 ? label_len : rng());
			vbuf_bytes(&b, rec, rec[45] == 1 ? 50 + label_len : 46);
		}
		copy = exact_copy(b.bytes, b.len);
		read_anything(copy, b.len);
		free(copy);
		vbuf_free(&b);
	}
}
END_TEST

/* The layer a tensor name says (llama.cpp's, GGUF's and whisper.cpp's conventions), and names
 * that say none. */
START_TEST(test_layer_of_name)
{
	static const struct {
		const char *name;
		int32_t layer;
	} cases[] = {
		{ "attn_norm-0", 0 },	   { "ffn_out-12", 12 },	  { "Kcur-3 (view)", 3 },
		{ "v-7 (view) (permuted)", 7 }, { "cache_k_l3", 3 },	  { "cache_v_l31 (view)", 31 },
		{ "blk.5.attn_q.weight", 5 },	{ "result_output", -1 },  { "-7", -1 },
		{ "x-", -1 },		   { "x-1a", -1 },		  { "(view)", -1 },
		{ "", -1 },		   { "node_12", -1 },	  { "x-1234567890", -1 },
		{ "blk.x.weight", -1 },	   { "myblk.3.w", -1 },
		/* whisper.cpp's model file */
		{ "encoder.blocks.3.attn.query.weight", 3 }, { "decoder.blocks.12.mlp.0.bias", 12 },
		{ "blocks.0.mlp_ln.weight", 0 }, { "encoder.conv1.weight", -1 },
		{ "decoder.myblocks.3.w", -1 },	{ "encoder.blocks.3", -1 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(ggmlviz_layer_of_name(cases[i].name, strlen(cases[i].name)) ==
				      cases[i].layer,
			      "'%s': %d, not %d", cases[i].name,
			      ggmlviz_layer_of_name(cases[i].name, strlen(cases[i].name)),
			      cases[i].layer);
	ck_assert_int_eq(ggmlviz_layer_of_name(NULL, 4), -1);
	ck_assert_int_eq(ggmlviz_layer_of_name("Qcur-9", 4), -1); /* only len bytes: "Qcur" */
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("memory");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_every_type_decoded);
	tcase_add_test(tc, test_literal_bytes);
	tcase_add_test(tc, test_holes_ignored);
	tcase_add_test(tc, test_unknown_type_skipped);
	tcase_add_test(tc, test_every_cut_point);
	tcase_add_test(tc, test_corrupt_has_label);
	tcase_add_test(tc, test_corrupt_label_length);
	tcase_add_test(tc, test_describe);
	tcase_add_test(tc, test_label_at_limit);
	tcase_add_test(tc, test_headers);
	tcase_add_test(tc, test_short_and_bad_arguments);
	tcase_add_test(tc, test_header_only_is_empty_trace);
	tcase_add_test(tc, test_rewind);
	tcase_add_test(tc, test_rewind_after_corruption);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_write_op_name);
	tcase_add_test(tc, test_thread_begin_names);
	tcase_add_test(tc, test_many_names);
	tcase_add_test(tc, test_damaged_bytes);
	tcase_add_test(tc, test_random_records);
	tcase_add_test(tc, test_layer_of_name);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
