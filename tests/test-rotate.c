/*
 * A trace in segments (GGML_VIZ_ROTATE=SIZE[:KEEP]): each segment at most
 * SIZE bytes and a whole trace on its own (its start, its names), the
 * trace's name read as one trace over the segments kept, the oldest
 * removed past KEEP, one removed while read skipped and counted, another
 * trace's segments at the same names never taken, the setting's values.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-compat.h"
#include "trace-util.h"

#define SEGMENT (64u << 10)
#define OP_TYPE 7u

static char path[4096];

/* A session of n marks (values from first) into path, in segments of SEGMENT bytes, keep kept. */
static void trace_marks(const char *p, uint64_t first, int n, const char *rotate)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, p);
	ck_assert_int_eq(ggmlviz_setting_set("rotate", rotate), 0);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_meta(GGMLVIZ_META_OP_NAME, OP_TYPE, 0, 0, "MUL_MAT");
	for (int i = 0; i < n; i++)
		ggmlviz_mark("m", first + (uint64_t)i);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_setting_set("rotate", NULL), 0);
}

static void segment_path(char *buf, size_t size, uint32_t n)
{
	snprintf(buf, size, "%s.%" PRIu32, path, n);
}

static int exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

/* How many NAME.N there are from 1 on, in a row. */
static uint32_t ended_segments(void)
{
	char p[4200];
	uint32_t n = 0;

	for (;;) {
		segment_path(p, sizeof p, n + 1);
		if (!exists(p))
			return n;
		n++;
	}
}

static void remove_trace(void)
{
	char p[4200];

	for (uint32_t n = 1; n < 10000; n++) {
		segment_path(p, sizeof p, n);
		unlink(p);
	}
	unlink(path);
}

/* What reading a trace (or one segment) whole found. */
struct read_back {
	uint64_t marks, first_mark, last_mark, out_of_order;
	uint64_t segment_no, segment_id, segment_ends, next_segment, trace_ends;
	int op_named, rc;
	struct ggmlviz_segments segs;
	int in_a_row;
};

static void read_back(const char *p, struct read_back *b)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	const char *op;

	memset(b, 0, sizeof *b);
	ck_assert_int_eq(ggmlviz_reader_open(p, &r), 0);
	while ((b->rc = ggmlviz_reader_next(r, &ev)) == 1) {
		if (ev.type == GGMLVIZ_EVENT_MARK) {
			uint64_t v = ev.data.user.value;

			b->out_of_order += b->marks && v != b->last_mark + 1;
			b->first_mark = b->marks ? b->first_mark : v;
			b->last_mark = v;
			b->marks++;
		} else if (ev.type == GGMLVIZ_EVENT_META) {
			uint32_t kind = ev.data.meta.kind;

			if (kind == GGMLVIZ_META_SEGMENT && !b->segment_no)
				b->segment_no = ev.data.meta.key, b->segment_id = ev.data.meta.value2;
			b->segment_ends += kind == GGMLVIZ_META_SEGMENT_END;
			b->next_segment = kind == GGMLVIZ_META_SEGMENT_END ? ev.data.meta.key : b->next_segment;
			b->trace_ends += kind == GGMLVIZ_META_TRACE_END;
		}
	}
	op = ggmlviz_reader_op_name(r, OP_TYPE);
	b->op_named = op && strcmp(op, "MUL_MAT") == 0;
	b->in_a_row = ggmlviz_reader_segments(r, &b->segs);
	ggmlviz_reader_close(r);
}

START_TEST(segments_are_whole_traces_read_as_one)
{
	char p[4200];
	struct read_back all, one;
	struct stat st;
	uint32_t ended;
	uint64_t id = 0, marks = 0;

	tu_path(path, sizeof path, "rotate-all");
	trace_marks(path, 0, 20000, "64K");
	ended = ended_segments();
	ck_assert_uint_ge(ended, 3);
	ck_assert_int_eq(stat(path, &st), 0); /* the live one, at the name */
	ck_assert_uint_le((uint64_t)st.st_size, SEGMENT);
	for (uint32_t n = 1; n <= ended; n++) {
		segment_path(p, sizeof p, n);
		ck_assert_int_eq(stat(p, &st), 0);
		ck_assert_uint_le((uint64_t)st.st_size, SEGMENT);
		read_back(p, &one); /* alone: its number, the trace's id, its names, its end */
		ck_assert_int_eq(one.rc, 0);
		ck_assert_int_eq(one.in_a_row, 0);
		ck_assert_uint_eq(one.segment_no, n);
		ck_assert(n == 1 || one.segment_id == id);
		id = one.segment_id;
		ck_assert(one.op_named);
		ck_assert_uint_eq(one.segment_ends, 1);
		ck_assert_uint_eq(one.next_segment, n + 1);
		ck_assert_uint_eq(one.trace_ends, 0);
		ck_assert_uint_eq(one.out_of_order, 0);
		marks += one.marks;
	}
	/* the live one holds the rest, if any: the stop's last batch may have just ended a
	 * segment (seen once under ThreadSanitizer), leaving it the trace's end alone */
	ck_assert_uint_le(marks, 20000);
	read_back(path, &all); /* the name: every segment in a row, the repeated starts skipped */
	ck_assert_int_eq(all.rc, 0);
	ck_assert_uint_eq(all.marks, 20000);
	ck_assert_uint_eq(all.first_mark, 0);
	ck_assert_uint_eq(all.out_of_order, 0);
	ck_assert_uint_eq(all.segment_ends, ended);
	ck_assert_uint_eq(all.trace_ends, 1);
	ck_assert_int_eq(all.in_a_row, 1);
	ck_assert_uint_eq(all.segs.first, 1);
	ck_assert_uint_eq(all.segs.current, ended + 1);
	ck_assert_uint_eq(all.segs.missing, 0);
	remove_trace();
}
END_TEST

START_TEST(only_the_newest_are_kept)
{
	char p[4200];
	struct read_back all;
	uint32_t n = 0;

	tu_path(path, sizeof path, "rotate-keep");
	trace_marks(path, 0, 20000, "64K:3");
	for (uint32_t k = 1; k < 1000; k++) {
		segment_path(p, sizeof p, k);
		n += (uint32_t)exists(p);
	}
	ck_assert_uint_eq(n, 2); /* and the live one */
	segment_path(p, sizeof p, 1);
	ck_assert(!exists(p));
	read_back(path, &all);
	ck_assert_int_eq(all.rc, 0);
	ck_assert_uint_eq(all.last_mark, 19999);
	ck_assert_uint_eq(all.first_mark + all.marks, 20000); /* the newest, whole and in order */
	ck_assert_uint_eq(all.out_of_order, 0);
	ck_assert_uint_gt(all.segs.first, 1);
	ck_assert_uint_eq(all.segs.current, all.segs.first + 2);
	remove_trace();
}
END_TEST

START_TEST(a_segment_removed_while_read_is_skipped_and_counted)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	struct ggmlviz_segments segs;
	char p[4200];
	uint64_t marks = 0, last = 0, gaps = 0;
	int rc;

	tu_path(path, sizeof path, "rotate-removed");
	trace_marks(path, 0, 20000, "64K");
	ck_assert_uint_ge(ended_segments(), 4);
	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	for (uint32_t n = 2; n <= 3; n++) {
		segment_path(p, sizeof p, n);
		ck_assert_int_eq(unlink(p), 0);
	}
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1) {
		if (ev.type != GGMLVIZ_EVENT_MARK)
			continue;
		gaps += marks && ev.data.user.value != last + 1;
		last = ev.data.user.value;
		marks++;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(ggmlviz_reader_segments(r, &segs), 1);
	ck_assert_uint_eq(segs.missing, 2);
	ck_assert_uint_eq(gaps, 1); /* where the two were */
	ck_assert_uint_eq(last, 19999);
	ggmlviz_reader_close(r);
	remove_trace();
}
END_TEST

START_TEST(another_traces_segments_are_never_read)
{
	struct read_back b;
	uint32_t older;

	tu_path(path, sizeof path, "rotate-twice");
	trace_marks(path, 0, 20000, "64K"); /* many segments */
	older = ended_segments();
	trace_marks(path, 100000, 3000, "64K"); /* fewer, at the same names */
	ck_assert_uint_lt(ended_segments(), older + 1);
	read_back(path, &b);
	ck_assert_int_eq(b.rc, 0);
	ck_assert_uint_eq(b.marks, 3000);
	ck_assert_uint_eq(b.first_mark, 100000);
	ck_assert_uint_eq(b.out_of_order, 0);
	remove_trace();
}
END_TEST

START_TEST(a_trace_that_does_not_rotate_reads_as_one_file)
{
	struct read_back b;

	tu_path(path, sizeof path, "rotate-off");
	trace_marks(path, 0, 3000, "0");
	read_back(path, &b);
	ck_assert_int_eq(b.in_a_row, 0);
	ck_assert_uint_eq(b.segment_no, 0);
	ck_assert_uint_eq(b.marks, 3000);
	ck_assert_uint_eq(ended_segments(), 0);
	unlink(path);
}
END_TEST

START_TEST(the_setting_takes_size_and_keep)
{
	static const char *const good[][2] = {
		{ "64K", "64K" }, { "256M:8", "256M:8" }, { "1g:2", "1G:2" }, { "65536", "64K" },
		{ "100000", "100000" }, { "2T:0", "2T" }, { "0", "" }, { "", "" },
	};
	static const char *const bad[] = {
		"12", "63K", "64K:", "64K:x", "64Q", "64KB", ":3", "0:3", "K", "64K:1000001",
		"99999999999999999999", "-1", "64K:-1",
	};
	char buf[64];

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		ck_assert_msg(ggmlviz_setting_set("rotate", good[i][0]) == 0, "%s", good[i][0]);
		ck_assert_int_ge(ggmlviz_setting_get("rotate", buf, sizeof buf), 0);
		ck_assert_str_eq(buf, good[i][1]);
	}
	ck_assert_int_eq(ggmlviz_setting_set("rotate", "256M:8"), 0);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(ggmlviz_setting_set("rotate", bad[i]) == GGMLVIZ_EVALUE, "%s", bad[i]);
		ck_assert_int_ge(ggmlviz_setting_get("rotate", buf, sizeof buf), 0);
		ck_assert_str_eq(buf, "256M:8"); /* kept */
	}
	ck_assert_int_eq(ggmlviz_setting_set("rotate", NULL), 0);
}
END_TEST

/* A producer of n marks, a little at a time, into the session open. */
static void *slow_marks(void *arg)
{
	int n = *(const int *)arg;

	for (int i = 0; i < n; i++) {
		ggmlviz_mark("m", (uint64_t)i);
		if (i % 500 == 499)
			nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
	return NULL;
}

/* A reader that follows the trace as it rotates (refresh, read on) gets every record once, in order. */
START_TEST(a_reader_follows_the_rotations_and_loses_nothing)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_reader *r = NULL;
	struct ggmlviz_event ev;
	struct ggmlviz_segments segs;
	pthread_t t;
	int n = 30000, rc, ended = 0, stopped = 0;
	uint64_t marks = 0, last = 0, gaps = 0;

	tu_path(path, sizeof path, "rotate-follow");
	tu_config(&cfg, path);
	cfg.flush_interval_ms = 5;
	ck_assert_int_eq(ggmlviz_setting_set("rotate", "64K"), 0);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, slow_marks, &n), 0);
	for (int spins = 0; !ended && spins < 200000; spins++) {
		while ((rc = ggmlviz_reader_next(r, &ev)) == 1) {
			ended |= ev.type == GGMLVIZ_EVENT_META && ev.data.meta.kind == GGMLVIZ_META_TRACE_END;
			if (ev.type != GGMLVIZ_EVENT_MARK)
				continue;
			gaps += marks && ev.data.user.value != last + 1;
			last = ev.data.user.value;
			marks++;
		}
		ck_assert(rc == 0 || rc == GGMLVIZ_ETRUNCATED);
		if (!stopped && marks >= (uint64_t)n / 2) { /* the rest read after the stop */
			pthread_join(t, NULL);
			ck_assert_int_eq(ggmlviz_stop(), 0);
			stopped = 1;
		}
		ggmlviz_reader_refresh(r);
		nanosleep(&(struct timespec){ 0, 200000 }, NULL);
	}
	ck_assert(ended);
	ck_assert_uint_eq(marks, (uint64_t)n);
	ck_assert_uint_eq(gaps, 0);
	ck_assert_int_eq(ggmlviz_reader_segments(r, &segs), 1);
	ck_assert_uint_eq(segs.first, 1);
	ck_assert_uint_ge(segs.current, 4);
	ck_assert_uint_eq(segs.missing, 0);
	ggmlviz_reader_close(r);
	ck_assert_int_eq(ggmlviz_setting_set("rotate", NULL), 0);
	remove_trace();
}
END_TEST

/* How many of this process's mappings are of removed files under path's name. */
static int removed_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[8192];
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f))
		n += strstr(line, base) && strstr(line, "(deleted)");
	fclose(f);
	return n;
}

/* Segments removed behind a reader are let go of as it reads on: their disk is given back. */
START_TEST(segments_removed_behind_a_reader_are_let_go)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	char p[4200];
	uint32_t ended;
	uint64_t marks = 0;
	int rc;

	tu_path(path, sizeof path, "rotate-behind");
	trace_marks(path, 0, 20000, "64K");
	ended = ended_segments();
	ck_assert_uint_ge(ended, 6);
	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	while (ggmlviz_reader_segments(r, &(struct ggmlviz_segments){ 0 }) == 1 &&
	       (rc = ggmlviz_reader_next(r, &ev)) == 1) {
		struct ggmlviz_segments s;

		marks += ev.type == GGMLVIZ_EVENT_MARK;
		ggmlviz_reader_segments(r, &s);
		if (s.current == 4)
			break;
	}
	for (uint32_t n = 1; n <= 3; n++) { /* read, and removed as KEEP removes them */
		segment_path(p, sizeof p, n);
		ck_assert_int_eq(unlink(p), 0);
	}
	ck_assert_int_ge(removed_mapped(), 1); /* held by the reader's mappings so far */
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1)
		marks += ev.type == GGMLVIZ_EVENT_MARK;
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(marks, 20000);
	ck_assert_int_eq(removed_mapped(), 0);
	ggmlviz_reader_close(r);
	remove_trace();
}
END_TEST

/* A segment number at the end of the range (a hostile file) is no segment: read alone, at once. */
START_TEST(a_segment_number_that_would_wrap_is_no_segment)
{
	uint8_t buf[GGMLVIZ_HEADER_SIZE + GGMLVIZ_RECORD_SIZE + 8];
	struct ggmlviz_event ev;
	struct read_back b;
	int n;
	FILE *f;

	memset(&ev, 0, sizeof ev);
	ev.type = GGMLVIZ_EVENT_META;
	ev.timestamp_ns = 1;
	ev.thread_id = 1;
	ev.data.meta.kind = GGMLVIZ_META_SEGMENT;
	ev.data.meta.key = UINT32_MAX;
	ev.data.meta.value = GGMLVIZ_HEADER_SIZE;
	ev.data.meta.value2 = 7;
	tu_path(path, sizeof path, "rotate-wrap");
	ck_assert_int_eq(ggmlviz_encode_header(buf, sizeof buf), GGMLVIZ_HEADER_SIZE);
	n = ggmlviz_encode_record(&ev, buf + GGMLVIZ_HEADER_SIZE, sizeof buf - GGMLVIZ_HEADER_SIZE);
	ck_assert_int_gt(n, 0);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, GGMLVIZ_HEADER_SIZE + (size_t)n, f),
			  GGMLVIZ_HEADER_SIZE + (size_t)n);
	fclose(f);
	read_back(path, &b); /* a reader that took it for a segment would look for 0 after it */
	ck_assert_int_eq(b.rc, 0);
	ck_assert_int_eq(b.in_a_row, 0);
	ck_assert_uint_eq(b.segment_no, UINT32_MAX);
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("rotate");
	TCase *tc = tcase_create("segments");

	tcase_add_test(tc, segments_are_whole_traces_read_as_one);
	tcase_add_test(tc, only_the_newest_are_kept);
	tcase_add_test(tc, a_segment_removed_while_read_is_skipped_and_counted);
	tcase_add_test(tc, another_traces_segments_are_never_read);
	tcase_add_test(tc, a_trace_that_does_not_rotate_reads_as_one_file);
	tcase_add_test(tc, the_setting_takes_size_and_keep);
	tcase_add_test(tc, a_reader_follows_the_rotations_and_loses_nothing);
	tcase_add_test(tc, segments_removed_behind_a_reader_are_let_go);
	tcase_add_test(tc, a_segment_number_that_would_wrap_is_no_segment);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
