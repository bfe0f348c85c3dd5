/*
 * Packed times in the reader alone (ggmlviz(5), "Packed times"), on
 * records made here rather than by the tracer (test-packed.c writes them):
 *   - a run cut into records (each its `first`), read as one;
 *   - a body that does not hold what its payload says, a REPEAT of a set
 *     never defined: counted, never guessed;
 *   - a thread's shares defined in parts, then repeated.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/format.h>
#include <ggmlviz/reader.h>

#include "check-compat.h"

static struct ggmlviz_pairing *p;

static void setup(void)
{
	ck_assert_int_eq(ggmlviz_pairing_new(&p), 0);
}

static void teardown(void)
{
	ggmlviz_pairing_free(p);
	p = NULL;
}

/* Feeds ev; the timings it completes, into out (n at most); how many. */
static size_t feed(struct ggmlviz_event *ev, struct ggmlviz_timing *out, size_t n)
{
	struct ggmlviz_timing t;
	size_t got = 0;
	int rc;

	ev->thread_id = 7;
	for (rc = ggmlviz_pairing_add(p, ev, &t); rc == 1; rc = ggmlviz_pairing_take(p, &t))
		if (got < n)
			out[got++] = t;
	ck_assert_int_ge(rc, 0);
	return got;
}

static void op_record(uint8_t type, uint64_t tensor, uint64_t ts)
{
	struct ggmlviz_event ev = { 0 };
	struct ggmlviz_timing t;

	ev.type = type;
	ev.timestamp_ns = ts;
	ev.data.op.tensor_ptr = tensor;
	ev.data.op.op_type = (uint32_t)(tensor >> 4);
	ev.label = "n";
	ev.label_len = 1;
	feed(&ev, &t, 1);
}

static void desc_set(uint64_t id, uint32_t n_ops, uint8_t mode)
{
	struct ggmlviz_event ev = { 0 };
	struct ggmlviz_timing t;

	ev.type = GGMLVIZ_EVENT_DESC_SET;
	ev.data.desc_set.set = id;
	ev.data.desc_set.n_ops = n_ops;
	ev.data.desc_set.mode = mode;
	ev.data.desc_set.method = GGMLVIZ_OP_METHOD_TICK;
	feed(&ev, &t, 1);
}

static void put32(char *p32, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p32[i] = (char)(v >> (8 * i));
}

/* An OP_TIMES of set `id` from op `first`: n ops of 10 ns after gaps of 5, from ts. */
static size_t op_times(uint64_t id, uint32_t first, uint32_t n, uint32_t body_len, uint64_t ts,
		       struct ggmlviz_timing *out)
{
	static char body[64 * 8];
	struct ggmlviz_event ev = { 0 };

	for (uint32_t k = 0; k < 64; k++) {
		put32(body + 8 * k, 5);
		put32(body + 8 * k + 4, 10);
	}
	ev.type = GGMLVIZ_EVENT_OP_TIMES;
	ev.timestamp_ns = ts;
	ev.data.op_times.set = id;
	ev.data.op_times.first = first;
	ev.data.op_times.n_ops = n;
	ev.data.op_times.method = GGMLVIZ_OP_METHOD_TICK;
	ev.label = body;
	ev.label_len = body_len;
	return feed(&ev, out, 64);
}

/* A DEFINE run of 4 ops (tensors 0x100 to 0x400), then a REPEAT cut in two records. */
START_TEST(reader_a_run_in_parts)
{
	struct ggmlviz_timing out[64];

	desc_set(3, 4, GGMLVIZ_DESC_SET_DEFINE);
	for (uint64_t k = 1; k <= 4; k++) {
		op_record(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, 0x100 * k, 1000 * k);
		op_record(GGMLVIZ_EVENT_OP_COMPUTE_END, 0x100 * k, 1000 * k + 500);
	}
	desc_set(3, 4, GGMLVIZ_DESC_SET_REPEAT);
	ck_assert_uint_eq(op_times(3, 0, 3, 3 * 8, 9000, out), 3);
	ck_assert_uint_eq(out[0].ptr, 0x100);
	ck_assert_uint_eq(out[0].begin_ns, 9005);
	ck_assert_uint_eq(out[0].end_ns, 9015);
	ck_assert_uint_eq(out[2].ptr, 0x300);
	ck_assert_uint_eq(out[2].begin_ns, 9035);
	ck_assert_uint_eq(out[2].op_type, 0x30);
	ck_assert_uint_eq(out[2].label_len, 1);
	ck_assert_uint_eq(op_times(3, 3, 1, 8, 9100, out), 1); /* its last op, from `first` */
	ck_assert_uint_eq(out[0].ptr, 0x400);
	ck_assert_uint_eq(out[0].duration_ns, 10);
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 0);
}
END_TEST

START_TEST(reader_counts_what_it_cannot_read)
{
	struct ggmlviz_timing out[64];

	desc_set(3, 2, GGMLVIZ_DESC_SET_DEFINE);
	op_record(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, 0x100, 1000);
	op_record(GGMLVIZ_EVENT_OP_COMPUTE_END, 0x100, 1500);
	desc_set(3, 2, GGMLVIZ_DESC_SET_REPEAT);
	ck_assert_uint_eq(op_times(3, 0, 2, 2 * 8 - 1, 9000, out), 0); /* body one byte short */
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 2);
	ck_assert_uint_eq(op_times(3, 0, 2, 2 * 8, 9000, out), 1); /* the set has no op 1 */
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 3);
	desc_set(4, 2, GGMLVIZ_DESC_SET_REPEAT); /* never defined */
	ck_assert_uint_eq(op_times(4, 0, 2, 2 * 8, 9000, out), 0);
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 5);
	ck_assert_uint_eq(op_times(3, 0, 1, 8, 9000, out), 0); /* no REPEAT of set 3 open */
}
END_TEST

/* A SHARE_TIMES of set id: n shares (ids when define) of 10 ns after gaps of 5, last wait 7. */
static size_t share_times(uint64_t id, uint8_t mode, uint32_t first, uint32_t n,
			  struct ggmlviz_timing *out)
{
	static char body[64 * 24];
	uint32_t ids = mode == GGMLVIZ_DESC_SET_DEFINE ? n * 16 : 0;
	struct ggmlviz_event ev = { 0 };

	for (uint32_t k = 0; k < n; k++) {
		if (ids) {
			memset(body + 16 * k, 0, 16);
			put32(body + 16 * k, 0x1000 + first + k); /* tensor */
			put32(body + 16 * k + 8, 3);              /* op type */
			put32(body + 16 * k + 12, 2 * (first + k)); /* place */
		}
		put32(body + ids + 8 * k, 5);
		put32(body + ids + 8 * k + 4, 10);
	}
	ev.type = GGMLVIZ_EVENT_SHARE_TIMES;
	ev.timestamp_ns = 50000;
	ev.data.share_times.set = id;
	ev.data.share_times.first = first;
	ev.data.share_times.n_shares = n;
	ev.data.share_times.mode = mode;
	ev.data.share_times.thread_index = 1;
	ev.data.share_times.n_threads = 2;
	ev.data.share_times.last_wait_ns = 7;
	ev.label = body;
	ev.label_len = ids + 8 * n;
	return feed(&ev, out, 64);
}

START_TEST(reader_shares_defined_in_parts_then_repeated)
{
	struct ggmlviz_timing out[64];

	ck_assert_uint_eq(share_times(9, GGMLVIZ_DESC_SET_DEFINE, 0, 3, out), 3);
	ck_assert_uint_eq(share_times(9, GGMLVIZ_DESC_SET_DEFINE, 3, 2, out), 2);
	ck_assert_uint_eq(out[1].ptr, 0x1004);
	ck_assert_uint_eq(out[1].n_nodes, 8);
	ck_assert_uint_eq(out[1].value, 7); /* the record's last share: its last wait */
	ck_assert_uint_eq(share_times(9, GGMLVIZ_DESC_SET_REPEAT, 0, 5, out), 5);
	for (uint32_t k = 0; k < 5; k++) {
		ck_assert_int_eq(out[k].kind, GGMLVIZ_TIMING_SHARE);
		ck_assert_uint_eq(out[k].ptr, 0x1000 + k);
		ck_assert_uint_eq(out[k].op_type, 3);
		ck_assert_uint_eq(out[k].n_nodes, 2 * k);
		ck_assert_uint_eq(out[k].ticks, 1);
		ck_assert_uint_eq(out[k].n_threads, 2);
		ck_assert_uint_eq(out[k].begin_ns, 50000 + 15 * k + 5);
		ck_assert_uint_eq(out[k].duration_ns, 10);
		ck_assert_uint_eq(out[k].value, k < 4 ? 5 : 7);
	}
	ck_assert_uint_eq(share_times(10, GGMLVIZ_DESC_SET_REPEAT, 0, 5, out), 0); /* no such set */
	ck_assert_uint_eq(share_times(9, GGMLVIZ_DESC_SET_REPEAT, 4, 2, out), 1); /* past its end */
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("packed-reader");
	TCase *tr = tcase_create("reader");

	tcase_add_checked_fixture(tr, setup, teardown);
	tcase_add_test(tr, reader_a_run_in_parts);
	tcase_add_test(tr, reader_counts_what_it_cannot_read);
	tcase_add_test(tr, reader_shares_defined_in_parts_then_repeated);
	suite_add_tcase(s, tr);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
