/*
 * The trace file against its surroundings: an existing trace is replaced,
 * never truncated under a reader; a symbolic link at the name is replaced,
 * never followed; a device is written as it is; a real full disk (a 1 MiB
 * tmpfs in a mount namespace of its own, where the machine allows one)
 * keeps every whole record that fits and ends with DROPPED and TRACE_END.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-compat.h"
#include "trace-util.h"

static char path[4096];

/* A session of n marks into p. */
static void trace_marks(const char *p, int n, const char *label)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, p);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	for (int i = 0; i < n; i++)
		ggmlviz_mark(label, (uint64_t)i);
	ck_assert_int_eq(ggmlviz_stop(), 0);
}

/* A reader in the middle of the last trace keeps reading it whole when the program runs again. */
START_TEST(rerun_replaces_the_file_under_a_reader)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	struct tu_summary s;
	uint64_t marks = 0;
	int rc;

	tu_path(path, sizeof path, "rerun");
	trace_marks(path, 20000, "first-run");
	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(ggmlviz_reader_next(r, &ev), 1);
	trace_marks(path, 10, "second-run"); /* the same name, while the reader reads */
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1)
		marks += ev.type == GGMLVIZ_EVENT_MARK;
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_ge(marks, 20000 - 100); /* the old file, whole */
	ggmlviz_reader_close(r);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 10); /* the name holds the new one */
	unlink(path);
}
END_TEST

START_TEST(link_at_the_name_is_replaced_not_followed)
{
	char target[4096];
	struct stat st;
	struct tu_summary s;
	int fd;

	tu_path(path, sizeof path, "link");
	tu_path(target, sizeof target, "link-target");
	fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "precious", 8), 8);
	close(fd);
	ck_assert_int_eq(symlink(target, path), 0);
	trace_marks(path, 5, "x");
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode)); /* a file now, not the link */
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_int_eq(st.st_size, 8); /* the link's target untouched */
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 5);
	unlink(path);
	unlink(target);
}
END_TEST

START_TEST(no_file_is_left_beside_the_trace)
{
	char dir[4096], *slash;
	struct dirent *d;
	DIR *dp;
	int beside = 0;

	tu_path(path, sizeof path, "beside");
	trace_marks(path, 5, "x");
	trace_marks(path, 5, "x");
	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	ck_assert_ptr_nonnull(slash);
	*slash = '\0';
	dp = opendir(dir);
	ck_assert_ptr_nonnull(dp);
	while ((d = readdir(dp)))
		beside += strncmp(d->d_name, slash + 1, strlen(slash + 1)) == 0 &&
			  strcmp(d->d_name, slash + 1) != 0;
	closedir(dp);
	ck_assert_int_eq(beside, 0);
	unlink(path);
}
END_TEST

START_TEST(devices_are_written_as_they_are)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, "/dev/null");
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_mark("x", 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	tu_config(&cfg, "/dev/full");
	ck_assert_int_eq(ggmlviz_start(&cfg), -ENOSPC);
	tu_config(&cfg, "/tmp");
	ck_assert_int_eq(ggmlviz_start(&cfg), -EISDIR);
}
END_TEST

/* What the child saw on a full tmpfs, sent back through a pipe. */
struct full_disk {
	int mounted; /* 0: no mount namespace or tmpfs here */
	struct ggmlviz_stats st;
	struct tu_summary s;
};

static void trace_on_small_tmpfs(int out)
{
	struct full_disk r = { 0 };
	struct ggmlviz_config cfg;
	char dir[] = "/tmp/ggmlviz-tmpfs-XXXXXX";

	if (!mkdtemp(dir))
		_exit(3);
	if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("tmpfs", dir, "tmpfs", 0, "size=1m") == 0) {
		r.mounted = 1;
		snprintf(path, sizeof path, "%s/full.ggmlviz", dir);
		tu_config(&cfg, path);
		cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
		if (ggmlviz_start(&cfg) < 0)
			_exit(4);
		for (int i = 0; i < 40000; i++) /* 2.6 MB into 1 MiB */
			ggmlviz_mark("filling-the-disk", (uint64_t)i);
		ggmlviz_stop();
		ggmlviz_get_stats(&r.st);
		tu_summarize(path, &r.s);
		umount(dir);
	}
	rmdir(dir);
	_exit(write(out, &r, sizeof r) == (ssize_t)sizeof r ? 0 : 5);
}

START_TEST(full_disk_keeps_what_fits_and_says_what_was_lost)
{
	struct full_disk r;
	int fds[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	if (pid == 0)
		trace_on_small_tmpfs(fds[1]);
	ck_assert_int_eq(read(fds[0], &r, sizeof r), (ssize_t)sizeof r);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	if (!r.mounted) {
		fprintf(stderr, "full_disk: no tmpfs in a mount namespace here (not root?): only "
				"the RLIMIT_FSIZE test of test-tracer covers a full file\n");
		return;
	}
	ck_assert_int_eq(r.st.error, -ENOSPC);
	ck_assert_uint_eq(r.st.emitted, 40000);
	ck_assert_uint_eq(r.st.emitted, r.st.written + r.st.dropped);
	ck_assert_int_eq(r.s.end_rc, 0);
	ck_assert_uint_eq(r.s.by_type[GGMLVIZ_EVENT_MARK], r.st.written);
	ck_assert_uint_gt(r.s.size, (1 << 20) - 3 * 4096); /* all but the end's room */
	ck_assert_int_eq(r.s.trace_end_last, 1);
	ck_assert_uint_eq(r.s.end_dropped, r.st.dropped);
	ck_assert_uint_eq(r.s.dropped_noted, r.st.dropped);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("files");
	TCase *tc = tcase_create("output");

	tcase_add_test(tc, rerun_replaces_the_file_under_a_reader);
	tcase_add_test(tc, link_at_the_name_is_replaced_not_followed);
	tcase_add_test(tc, no_file_is_left_beside_the_trace);
	tcase_add_test(tc, devices_are_written_as_they_are);
	tcase_add_test(tc, full_disk_keeps_what_fits_and_says_what_was_lost);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
