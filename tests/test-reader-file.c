/*
 * The reader on files: open errors, a file written while it is read
 * (refresh, window growth, old labels still valid), a file that shrinks,
 * pipes.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ggmlviz/reader.h>

#include "check-compat.h"
#include "reader/reader.h" /* the windows */
#include "vectors.h"

static char dir[PATH_MAX];

static void make_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof dir, "%s/ggmlviz-reader-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *in_dir(const char *name)
{
	static char path[PATH_MAX + 64];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return path;
}

static int open_path(const char *path, struct ggmlviz_reader **r)
{
	*r = (struct ggmlviz_reader *)r; /* must be set to NULL on failure */
	return ggmlviz_reader_open(path, r);
}

START_TEST(test_open_errors)
{
	struct ggmlviz_reader *r;
	static const uint8_t bad_version[12] = { 'G', 'G', 'M', 'L', 'V', 'I', 'Z', '1', 2 };

	ck_assert_int_eq(open_path(in_dir("missing"), &r), -ENOENT);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(open_path(dir, &r), -EISDIR);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(vec_write_file(in_dir("empty"), "", 0), 0);
	ck_assert_int_eq(open_path(in_dir("empty"), &r), GGMLVIZ_EMAGIC);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(vec_write_file(in_dir("short"), "GGMLVIZ1\1\0\0", 11), 0);
	ck_assert_int_eq(open_path(in_dir("short"), &r), GGMLVIZ_EMAGIC);
	ck_assert_int_eq(vec_write_file(in_dir("text"), "hello, world\n", 13), 0);
	ck_assert_int_eq(open_path(in_dir("text"), &r), GGMLVIZ_EMAGIC);
	ck_assert_int_eq(vec_write_file(in_dir("v2"), bad_version, 12), 0);
	ck_assert_int_eq(open_path(in_dir("v2"), &r), GGMLVIZ_EVERSION);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(open_path(NULL, &r), -EINVAL);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(ggmlviz_reader_open(in_dir("v2"), NULL), -EINVAL);
	ck_assert_int_eq(open_path("/dev/null", &r), GGMLVIZ_EMAGIC);
	ck_assert_int_eq(open_path("/dev/zero", &r), GGMLVIZ_EMAGIC); /* read, not mapped */
}
END_TEST

START_TEST(test_open_file_decodes)
{
	struct vbuf b = { 0 };
	struct vector v[VECTORS_MAX];
	size_t n = vectors_build(&b, v);
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;

	ck_assert_int_eq(vec_write_file(in_dir("all"), b.bytes, b.len), 0);
	ck_assert_int_eq(open_path(in_dir("all"), &r), 0);
	ck_assert_uint_eq(ggmlviz_reader_size(r), b.len);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
		ck_assert_uint_eq(ev.type, v[i].expect.type);
		ck_assert_uint_eq(ev.timestamp_ns, v[i].expect.timestamp_ns);
		ck_assert_uint_eq(ev.offset, v[i].expect.offset);
		ck_assert_mem_eq(ev.payload, v[i].payload, 32);
		if (v[i].expect.label)
			ck_assert_mem_eq(ev.label, v[i].expect.label, v[i].expect.label_len);
	}
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ck_assert_int_eq(ggmlviz_reader_refresh(r), 0);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

static size_t labeled(struct vbuf *b, uint64_t ts, const char *label)
{
	uint8_t pl[32];

	vec_op(pl, 0x1000 + ts, 1, 2, 3, 0);
	return vec_record_s(b, 2, ts, 7, pl, label);
}

/* A file written in pieces, as a live tracer does. */
START_TEST(test_refresh_follows_writer)
{
	const char *path = in_dir("live");
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	const char *old_label;
	size_t cut_record, half;

	vec_header(&b, 1);
	labeled(&b, 1, "first-label");
	cut_record = labeled(&b, 2, "second-label");
	half = cut_record + 30;
	ck_assert_int_eq(vec_write_file(path, b.bytes, half), 0);

	ck_assert_int_eq(open_path(path, &r), 0);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	old_label = ev.label;
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), GGMLVIZ_ETRUNCATED);
	ck_assert_uint_eq(ggmlviz_reader_offset(r), cut_record);
	ck_assert_int_eq(ggmlviz_reader_refresh(r), 0); /* nothing new yet */
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), GGMLVIZ_ETRUNCATED);

	/* the rest of the fixed part, but not all the label */
	ck_assert_int_eq(vec_append_file(path, b.bytes + half, 25), 0);
	ck_assert_int_eq(ggmlviz_reader_refresh(r), 25);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), GGMLVIZ_ETRUNCATED);
	ck_assert_uint_eq(ggmlviz_reader_offset(r), cut_record);

	ck_assert_int_eq(vec_append_file(path, b.bytes + half + 25, b.len - half - 25), 0);
	ck_assert_int_eq(ggmlviz_reader_refresh(r), (int)(b.len - half - 25));
	ck_assert_uint_eq(ggmlviz_reader_size(r), b.len);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.offset, cut_record);
	ck_assert_uint_eq(ev.timestamp_ns, 2);
	ck_assert_mem_eq(ev.label, "second-label", 12);
	ck_assert_mem_eq(old_label, "first-label", 11);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/*
 * Growth past the mapped window (64 MiB at least) remaps; a label handed
 * out before stays readable. The middle of the file is a hole: zero bytes,
 * which read as 46-byte GRAPH_COMPUTE_BEGIN records of all-zero fields.
 */
START_TEST(test_refresh_past_window)
{
	const char *path = in_dir("grow");
	const uint64_t zero_records = (64u << 20) / 46 + 1000; /* past 64 MiB */
	struct vbuf b = { 0 }, tail = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	const char *old_label;
	uint64_t n = 0, end;
	int fd;

	vec_header(&b, 1);
	labeled(&b, 1, "before-growth");
	ck_assert_int_eq(vec_write_file(path, b.bytes, b.len), 0);
	ck_assert_int_eq(open_path(path, &r), 0);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	old_label = ev.label;
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);

	end = b.len + zero_records * 46;
	labeled(&tail, 2, "after-growth");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)end), 0);
	ck_assert_int_eq(pwrite(fd, tail.bytes, tail.len, (off_t)end), (ssize_t)tail.len);
	close(fd);
	ck_assert_ptr_null(r->window->older);
	ck_assert_int_eq(ggmlviz_reader_refresh(r), (int)(end + tail.len - b.len));
	ck_assert_ptr_nonnull(r->window->older); /* a second window; the first kept */

	while (ggmlviz_reader_next(r, &ev) == 1 && ev.timestamp_ns == 0) {
		ck_assert_uint_eq(ev.type, 0);
		n++;
	}
	ck_assert_uint_eq(n, zero_records);
	ck_assert_uint_gt(r->release_from, 32u << 20); /* pages read were given back */
	ck_assert_uint_eq(ev.timestamp_ns, 2);
	ck_assert_mem_eq(ev.label, "after-growth", 12);
	ck_assert_mem_eq(old_label, "before-growth", 13);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 0);
	/* read it all again: pages given back fault in again */
	ggmlviz_reader_rewind(r);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_mem_eq(ev.label, "before-growth", 13);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
	vbuf_free(&tail);
}
END_TEST

START_TEST(test_refresh_shrunk_is_stale)
{
	const char *path = in_dir("shrink");
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	size_t second;

	vec_header(&b, 1);
	labeled(&b, 1, "one");
	second = labeled(&b, 2, "two");
	ck_assert_int_eq(vec_write_file(path, b.bytes, b.len), 0);
	ck_assert_int_eq(open_path(path, &r), 0);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	ck_assert_int_eq(truncate(path, (off_t)second), 0);
	ck_assert_int_eq(ggmlviz_reader_refresh(r), -ESTALE);
	/* the bytes that were there are gone: never touched again */
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), -ESTALE);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), -ESTALE);
	ggmlviz_reader_rewind(r);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), -ESTALE);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/*
 * The file shrinks while it is read, with no refresh in between: the pages
 * past the new end are gone from the mapping. Reading on (and reading a
 * label handed out before, now past the end) must not die of SIGBUS: the
 * reader stops with -ESTALE, after every record it could read whole.
 */
START_TEST(test_shrunk_under_the_reader)
{
	const char *path = in_dir("shrink-under");
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	const char *late_label = NULL;
	uint64_t got = 0;
	char copy = 0;
	int rc;

	vec_header(&b, 1);
	for (uint64_t i = 0; i < 40000; i++) /* 2.5 MB */
		labeled(&b, i, "a-label-of-some-length");
	ck_assert_int_eq(vec_write_file(path, b.bytes, b.len), 0);
	ck_assert_int_eq(open_path(path, &r), 0);
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1 && ++got < 30000)
		late_label = ev.label; /* at about 1.9 MB */
	ck_assert_int_eq(rc, 1);
	ck_assert_int_eq(truncate(path, 8192), 0);
	copy = late_label[0]; /* past the end now: a page of zeros, no SIGBUS */
	ck_assert_int_eq(copy, 0);
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1)
		got++;
	ck_assert_int_eq(rc, -ESTALE);
	ck_assert_uint_lt(got, 40000);
	ck_assert_int_eq(ggmlviz_reader_next(r, &ev), -ESTALE); /* it stays */
	ck_assert_int_eq(ggmlviz_reader_refresh(r), -ESTALE);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* A pipe cannot be mapped: it is read to its end at open. */
START_TEST(test_pipe)
{
	struct vbuf b = { 0 };
	struct vector v[VECTORS_MAX];
	size_t n = vectors_build(&b, v), got = 0;
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	char path[64];
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(write(fds[1], b.bytes, b.len), (ssize_t)b.len);
	close(fds[1]);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
	ck_assert_int_eq(open_path(path, &r), 0);
	close(fds[0]);
	while (ggmlviz_reader_next(r, &ev) == 1) {
		ck_assert_uint_eq(ev.offset, v[got].expect.offset);
		got++;
	}
	ck_assert_uint_eq(got, n);
	ck_assert_int_eq(ggmlviz_reader_refresh(r), -ENOTSUP);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

static void setup(void)
{
	make_dir();
}

static void teardown(void)
{
	remove_dir();
}

static Suite *make_suite(void)
{
	Suite *s = suite_create("reader-file");
	TCase *tc = tcase_create("file");

	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_open_errors);
	tcase_add_test(tc, test_open_file_decodes);
	tcase_add_test(tc, test_refresh_follows_writer);
	tcase_add_test(tc, test_refresh_past_window);
	tcase_add_test(tc, test_refresh_shrunk_is_stale);
	tcase_add_test(tc, test_shrunk_under_the_reader);
	tcase_add_test(tc, test_pipe);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
