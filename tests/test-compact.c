/*
 * PACK records (GGML_VIZ_PACK, ggmlviz(5) "Packed records"): a trace
 * packed reads as the same records, field for field and label for label,
 * timings too; every way a body can be damaged is refused with what and
 * where; a session with packing on writes the records it would have
 * written unpacked, in a fraction of the bytes, and counts them in
 * TRACE_END as records; the setting's values.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-compat.h"
#include "format/pack.h"
#include "format/record.h"
#include "trace-util.h"

#define OPS 400
#define OP_TYPE 29u

/* The file at path, whole, into *size bytes (the caller frees it). */
static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *b;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fstat(fileno(f), &st), 0);
	b = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*size = (size_t)st.st_size;
	return b;
}

/* in (a trace) packed as the writer packs it, into a new buffer (the caller frees it). */
static uint8_t *repack(const uint8_t *in, size_t size, size_t *out_size)
{
	uint8_t *out = malloc(3 * size + 4096);

	ck_assert_ptr_nonnull(out);
	*out_size = ggmlviz__pack_trace(in, size, out);
	return out;
}

/* A session of ops with labels, steps, marks and a counter, from this thread and another. */
static void *emit_some(void *arg)
{
	const char *who = arg;
	char label[32];

	for (int i = 0; i < OPS; i++) {
		snprintf(label, sizeof label, "%s-%d", who, i % 7);
		ggmlviz_op_begin((const void *)(uintptr_t)(0x1000 + 64 * (i % 7)), OP_TYPE,
				 4096u * (unsigned)(i % 3), NULL, label);
		ggmlviz_op_end((const void *)(uintptr_t)(0x1000 + 64 * (i % 7)), OP_TYPE,
			       4096u * (unsigned)(i % 3), NULL, label);
		if (i % 50 == 0)
			ggmlviz_mark("checkpoint", (uint64_t)i);
		if (i % 20 == 0)
			ggmlviz_counter("queue", i / 20);
	}
	return NULL;
}

static void trace_some(const char *path, int pack)
{
	struct ggmlviz_config cfg;
	static char worker[] = "worker", main_thread[] = "main";
	pthread_t t;

	tu_config(&cfg, path);
	ck_assert_int_eq(ggmlviz_setting_set("pack", pack ? "1" : "0"), 0);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_meta(GGMLVIZ_META_OP_NAME, OP_TYPE, 0, 0, "MUL_MAT");
	ck_assert_int_eq(pthread_create(&t, NULL, emit_some, worker), 0);
	emit_some(main_thread);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_setting_set("pack", NULL), 0);
}

/* Every record of a and b alike, offsets aside. */
static void same_records(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	struct ggmlviz_reader *ra, *rb;
	struct ggmlviz_event ea, eb;
	uint64_t n = 0;
	int rca, rcb;

	ck_assert_int_eq(ggmlviz_reader_open_memory(a, na, &ra), 0);
	ck_assert_int_eq(ggmlviz_reader_open_memory(b, nb, &rb), 0);
	for (;;) {
		rca = ggmlviz_reader_next(ra, &ea);
		rcb = ggmlviz_reader_next(rb, &eb);
		ck_assert_int_eq(rca, rcb);
		if (rca != 1)
			break;
		n++;
		ck_assert_uint_eq(ea.type, eb.type);
		ck_assert_uint_eq(ea.type == GGMLVIZ_EVENT_PACK, 0);
		ck_assert_uint_eq(ea.timestamp_ns, eb.timestamp_ns);
		ck_assert_uint_eq(ea.thread_id, eb.thread_id);
		ck_assert_int_eq(memcmp(&ea.data, &eb.data, sizeof ea.data), 0);
		ck_assert_int_eq(memcmp(ea.payload, eb.payload, GGMLVIZ_PAYLOAD_SIZE), 0);
		ck_assert_uint_eq(ea.label_len, eb.label_len);
		ck_assert_int_eq(ea.label == NULL, eb.label == NULL);
		if (ea.label_len)
			ck_assert_int_eq(memcmp(ea.label, eb.label, ea.label_len), 0);
	}
	ck_assert_int_eq(rca, 0);
	ck_assert_uint_gt(n, 2 * 2 * OPS);
	ggmlviz_reader_close(ra);
	ggmlviz_reader_close(rb);
}

START_TEST(a_packed_trace_reads_as_the_same_records)
{
	char path[256];
	uint8_t *raw, *packed;
	size_t n_raw, n_packed;

	tu_path(path, sizeof path, "pack-same");
	trace_some(path, 0);
	raw = slurp(path, &n_raw);
	packed = repack(raw, n_raw, &n_packed);
	ck_assert_uint_lt(n_packed, n_raw / 3);
	same_records(raw, n_raw, packed, n_packed);
	free(raw);
	free(packed);
	unlink(path);
}
END_TEST

/* The timings of a trace at data, as (kind, op_type, thread, begin, end, label) in order. */
static size_t timings_of(const uint8_t *data, size_t size, struct ggmlviz_timing *out, size_t cap)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	size_t n = 0;

	ck_assert_int_eq(ggmlviz_reader_open_memory(data, size, &r), 0);
	while (ggmlviz_reader_next_timing(r, &t) == 1) {
		ck_assert_uint_lt(n, cap);
		out[n] = t;
		out[n].label = NULL; /* compared by same_records */
		out[n].begin_offset = out[n].end_offset = 0;
		n++;
	}
	ggmlviz_reader_close(r);
	return n;
}

START_TEST(a_packed_trace_pairs_into_the_same_timings)
{
	static struct ggmlviz_timing a[4 * OPS], b[4 * OPS];
	char path[256];
	uint8_t *raw, *packed;
	size_t n_raw, n_packed, na, nb;

	tu_path(path, sizeof path, "pack-timings");
	trace_some(path, 0);
	raw = slurp(path, &n_raw);
	packed = repack(raw, n_raw, &n_packed);
	na = timings_of(raw, n_raw, a, 4 * OPS);
	nb = timings_of(packed, n_packed, b, 4 * OPS);
	ck_assert_uint_eq(na, 2 * OPS);
	ck_assert_uint_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		a[i].label_len = b[i].label_len; /* compared by same_records */
		ck_assert_int_eq(memcmp(&a[i], &b[i], sizeof a[i]), 0);
	}
	free(raw);
	free(packed);
	unlink(path);
}
END_TEST

/* ---- damaged bodies ---- */

/* A trace of one PACK record whose body is body (len bytes), of count records. */
static size_t pack_file(uint8_t *out, const uint8_t *body, uint32_t len, uint32_t count)
{
	put_header(out);
	memset(out + GGMLVIZ_HEADER_SIZE, 0, GGMLVIZ_LABELED_RECORD_SIZE);
	out[GGMLVIZ_HEADER_SIZE + REC_TYPE] = GGMLVIZ_EVENT_PACK;
	put_u64(out + GGMLVIZ_HEADER_SIZE + REC_TIMESTAMP, 1000);
	put_u32(out + GGMLVIZ_HEADER_SIZE + REC_THREAD, 42);
	put_u32(out + GGMLVIZ_HEADER_SIZE + REC_PAYLOAD + PACK_COUNT, count);
	out[GGMLVIZ_HEADER_SIZE + REC_HAS_LABEL] = 1;
	put_u32(out + GGMLVIZ_HEADER_SIZE + REC_LABEL_LEN, len);
	if (len) /* a body of none may be NULL */
		memcpy(out + GGMLVIZ_HEADER_SIZE + REC_LABEL, body, len);
	return GGMLVIZ_HEADER_SIZE + GGMLVIZ_LABELED_RECORD_SIZE + len;
}

/* Reads it: the records before the damage, then ECORRUPT described with why. */
static void refused(const uint8_t *body, uint32_t len, uint32_t count, int good,
		    const char *why)
{
	uint8_t file[256];
	size_t size = pack_file(file, body, len, count);
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	char text[512];
	int n = 0, rc;

	ck_assert_int_eq(ggmlviz_reader_open_memory(file, size, &r), 0);
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1) {
		ck_assert_uint_eq(ev.thread_id, 42);
		n++;
	}
	ck_assert_int_eq(rc, GGMLVIZ_ECORRUPT);
	ck_assert_int_eq(n, good);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), GGMLVIZ_ECORRUPT); /* it stays */
	ck_assert_int_gt(ggmlviz_reader_describe(r, text, sizeof text), 0);
	ck_assert_msg(strstr(text, "corrupt PACK record at byte 12: its record") != NULL, "%s", text);
	ck_assert_msg(strstr(text, why) != NULL, "%s lacks %s", text, why);
	ck_assert_uint_eq(ggmlviz_reader_offset(r), GGMLVIZ_HEADER_SIZE);
	ggmlviz_reader_close(r);
}

/* A MARK (type 10) of value 5, no label: type, time, mask 1, word 5, label code 0. */
#define MARK5 GGMLVIZ_EVENT_MARK, 0, 1, 5, 0

START_TEST(damaged_bodies_are_refused_with_what_and_where)
{
	const uint8_t ok[] = { MARK5 };
	const uint8_t two[] = { MARK5, MARK5 };
	const uint8_t meta[] = { GGMLVIZ_EVENT_META, 0, 0, 0 };
	const uint8_t thread[] = { GGMLVIZ_EVENT_THREAD_BEGIN, 0, 0, 0 };
	const uint8_t type64[] = { 64, 0, 0, 0 };
	const uint8_t cut_time[] = { MARK5, GGMLVIZ_EVENT_MARK, 0x80 };
	const uint8_t no_mask[] = { GGMLVIZ_EVENT_MARK, 0 };
	const uint8_t cut_word[] = { GGMLVIZ_EVENT_MARK, 0, 1, 0x85 };
	const uint8_t wide[] = { GGMLVIZ_EVENT_MARK, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x10, 0 };
	const uint8_t long_varint[] = { GGMLVIZ_EVENT_MARK, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					0x80, 0x80, 0x80, 0x80, 0x01, 0, 0 };
	const uint8_t repeat[] = { GGMLVIZ_EVENT_MARK, 0, 0, 1 };
	const uint8_t cut_label[] = { GGMLVIZ_EVENT_MARK, 0, 0, 2 + 9, 'a', 'b' };
	const uint8_t no_label_code[] = { GGMLVIZ_EVENT_MARK, 0, 0 };

	refused(ok, sizeof ok, 2, 1, "the body ends before the records its count says");
	refused(two, sizeof two, 1, 1, "bytes follow the last record its count says");
	refused(meta, sizeof meta, 1, 0, "not one a run holds");
	refused(thread, sizeof thread, 1, 0, "not one a run holds");
	refused(type64, sizeof type64, 1, 0, "not one a run holds");
	refused(cut_time, sizeof cut_time, 2, 1, "a record's time runs past the body");
	refused(no_mask, sizeof no_mask, 1, 0, "the body ends before a record's mask");
	refused(cut_word, sizeof cut_word, 1, 0, "a payload word runs past the body");
	refused(wide, sizeof wide, 1, 0, "a payload word is wider than 32 bits");
	refused(long_varint, sizeof long_varint, 1, 0, "a record's time runs past the body");
	refused(repeat, sizeof repeat, 1, 0, "a label repeats where its type had none");
	refused(cut_label, sizeof cut_label, 1, 0, "a label runs past the body");
	refused(no_label_code, sizeof no_label_code, 1, 0, "a label's length runs past the body");
}
END_TEST

START_TEST(a_run_of_no_records_reads_as_nothing)
{
	uint8_t file[256];
	size_t size = pack_file(file, NULL, 0, 0);
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;

	memset(file + size, 0, GGMLVIZ_RECORD_SIZE); /* a GRAPH_COMPUTE_BEGIN after it */
	size += GGMLVIZ_RECORD_SIZE;
	ck_assert_int_eq(ggmlviz_reader_open_memory(file, size, &r), 0);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.type, GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN);
	ck_assert_uint_eq(ev.offset, GGMLVIZ_HEADER_SIZE + GGMLVIZ_LABELED_RECORD_SIZE);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ggmlviz_reader_close(r);
}
END_TEST

/* ggmlviz(5)'s example, "EXAMPLES": two MARKs of thread 4242, "tick", 5 then 6, 500 ns apart. */
START_TEST(a_records_offset_is_where_its_bytes_start_in_the_body)
{
	const uint8_t two[] = { GGMLVIZ_EVENT_MARK, 0, 1, 5, 2 + 4, 't', 'i', 'c', 'k',
				GGMLVIZ_EVENT_MARK, 0xe8, 0x07, 1, 3, 1 };
	uint8_t file[256];
	size_t size = pack_file(file, two, sizeof two, 2);
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	const uint64_t body = GGMLVIZ_HEADER_SIZE + GGMLVIZ_LABELED_RECORD_SIZE;

	put_u64(file + GGMLVIZ_HEADER_SIZE + REC_TIMESTAMP, 1764633600000000000u);
	put_u32(file + GGMLVIZ_HEADER_SIZE + REC_THREAD, 4242);
	ck_assert_int_eq(ggmlviz_reader_open_memory(file, size, &r), 0);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.offset, body);
	ck_assert_uint_eq(ev.offset, 62);
	ck_assert_uint_eq(ev.timestamp_ns, 1764633600000000000u);
	ck_assert_uint_eq(ev.thread_id, 4242);
	ck_assert_uint_eq(ev.data.user.value, 5);
	ck_assert_uint_eq(ev.payload[0], 5);
	ck_assert_uint_eq(ev.label_len, 4);
	ck_assert_int_eq(memcmp(ev.label, "tick", 4), 0);
	ck_assert_uint_eq(ggmlviz_reader_offset(r), GGMLVIZ_HEADER_SIZE); /* at the PACK */
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.offset, 71);
	ck_assert_uint_eq(ev.timestamp_ns, 1764633600000000500u); /* zigzag 1000: +500 */
	ck_assert_uint_eq(ev.data.user.value, 6);                /* 5 XOR 3 */
	ck_assert_uint_eq(ev.label_len, 4);                       /* the last MARK's */
	ck_assert_int_eq(memcmp(ev.label, "tick", 4), 0);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ck_assert_uint_eq(ggmlviz_reader_offset(r), size);
	ck_assert_uint_eq(size, GGMLVIZ_HEADER_SIZE + 65); /* the example's 0x41 bytes */
	ggmlviz_reader_close(r);
}
END_TEST

/* ---- the tracer's packing ---- */

/* A thread's records (not META) as text: type, payload and label, one a line. */
struct thread_text {
	uint32_t tid;
	char *text;
	size_t len, cap;
};

static void add_text(struct thread_text *t, const struct ggmlviz_event *ev)
{
	size_t need = 2 + 2 * GGMLVIZ_PAYLOAD_SIZE + ev->label_len + 4;

	if (t->len + need > t->cap) {
		t->cap = 2 * (t->len + need);
		t->text = realloc(t->text, t->cap);
		ck_assert_ptr_nonnull(t->text);
	}
	t->text[t->len++] = (char)('A' + ev->type);
	for (unsigned i = 0; i < GGMLVIZ_PAYLOAD_SIZE; i++)
		t->len += (size_t)sprintf(t->text + t->len, "%02x", ev->payload[i]);
	memcpy(t->text + t->len, ev->label ? ev->label : "", ev->label_len);
	t->len += ev->label_len;
	t->text[t->len++] = '\n';
}

/* Each thread's records of a trace as text, the thread that wrote "main-0" first. */
static void threads_of(const uint8_t *data, size_t size, struct thread_text out[2])
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;

	memset(out, 0, 2 * sizeof *out);
	ck_assert_int_eq(ggmlviz_reader_open_memory(data, size, &r), 0);
	while (ggmlviz_reader_next(r, &ev) == 1) {
		int k;

		if (ev.type == GGMLVIZ_EVENT_META)
			continue; /* the writer's (a PROCESS's pid, a USAGE's figures): the runs' own */
		for (k = 0; k < 2 && out[k].tid && out[k].tid != ev.thread_id; k++)
			;
		ck_assert_int_lt(k, 2);
		out[k].tid = ev.thread_id;
		add_text(&out[k], &ev);
	}
	ggmlviz_reader_close(r);
	ck_assert_ptr_nonnull(out[0].text);
	ck_assert_ptr_nonnull(out[1].text);
	if (!strstr(out[0].text, "main-0")) {
		struct thread_text t = out[0];

		out[0] = out[1];
		out[1] = t;
	}
}

/* Two sessions' records alike thread by thread: type, payload, label, in order. */
static void same_threads(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	struct thread_text ta[2], tb[2];

	threads_of(a, na, ta);
	threads_of(b, nb, tb);
	for (int k = 0; k < 2; k++) {
		ck_assert_uint_eq(ta[k].len, tb[k].len);
		ck_assert_int_eq(memcmp(ta[k].text, tb[k].text, ta[k].len), 0);
		free(ta[k].text);
		free(tb[k].text);
	}
}

START_TEST(a_session_packs_what_it_would_write)
{
	char plain[256], packed[256];
	struct tu_summary a, b;
	uint8_t *ra, *rb;
	size_t na, nb;

	tu_path(plain, sizeof plain, "pack-off");
	tu_path(packed, sizeof packed, "pack-on");
	trace_some(plain, 0);
	trace_some(packed, 1);
	ck_assert_int_eq(tu_summarize(plain, &a), 0);
	ck_assert_int_eq(tu_summarize(packed, &b), 0);
	ck_assert_int_eq(b.end_rc, 0);
	ck_assert_int_eq(b.trace_end_last, 1);
	for (unsigned t = 0; t < GGMLVIZ_EVENT_META; t++)
		ck_assert_uint_eq(a.by_type[t], b.by_type[t]);
	ck_assert_uint_eq(b.by_type[GGMLVIZ_EVENT_MARK], a.by_type[GGMLVIZ_EVENT_MARK]);
	ck_assert_uint_eq(b.by_type[GGMLVIZ_EVENT_COUNTER], a.by_type[GGMLVIZ_EVENT_COUNTER]);
	ck_assert_uint_eq(b.by_type[GGMLVIZ_EVENT_PACK], 0);
	ck_assert_uint_eq(b.end_written, a.end_written); /* records, not PACK records */
	ck_assert_uint_eq(b.end_dropped, 0);
	ck_assert_uint_lt(b.size, a.size / 3);
	ra = slurp(plain, &na);
	rb = slurp(packed, &nb);
	same_threads(ra, na, rb, nb);
	free(ra);
	free(rb);
	unlink(plain);
	unlink(packed);
}
END_TEST

START_TEST(the_settings_take_their_values)
{
	char buf[64];

	ck_assert_int_eq(ggmlviz_setting_set("pack", "yes"), 0);
	ck_assert_int_gt(ggmlviz_setting_get("pack", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "1");
	ck_assert_int_eq(ggmlviz_setting_set("pack", "sometimes"), GGMLVIZ_EVALUE);
	ck_assert_int_eq(ggmlviz_setting_set("pack", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("op_window", "5"), 0);
	ck_assert_int_eq(ggmlviz_setting_set("op_window", "3601"), GGMLVIZ_EVALUE);
	ck_assert_int_eq(ggmlviz_setting_set("op_window", "1s"), GGMLVIZ_EVALUE);
	ck_assert_int_gt(ggmlviz_setting_get("op_window", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "5");
	ck_assert_int_eq(ggmlviz_setting_set("op_window", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("preset", "server"), 0);
	ck_assert_int_gt(ggmlviz_setting_get("pack", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "1");
	ck_assert_int_gt(ggmlviz_setting_get("op_window", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "5");
	ck_assert_int_eq(ggmlviz_setting_set("preset", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("pack", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("op_window", NULL), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("compact");
	TCase *tc = tcase_create("pack");

	tcase_add_test(tc, a_packed_trace_reads_as_the_same_records);
	tcase_add_test(tc, a_packed_trace_pairs_into_the_same_timings);
	tcase_add_test(tc, damaged_bodies_are_refused_with_what_and_where);
	tcase_add_test(tc, a_run_of_no_records_reads_as_nothing);
	tcase_add_test(tc, a_records_offset_is_where_its_bytes_start_in_the_body);
	tcase_add_test(tc, a_session_packs_what_it_would_write);
	tcase_add_test(tc, the_settings_take_their_values);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
