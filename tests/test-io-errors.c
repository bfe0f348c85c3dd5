/*
 * Writes that fail mid-session, as a file size limit (RLIMIT_FSIZE, EFBIG)
 * makes them fail (each test runs in a process of its own): the file keeps
 * every whole record that fits, keeps room for its end however the later
 * batches fall, goes on once there is room again, and its stats count
 * only what is in it.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check-compat.h"
#include "trace-util.h"

/* Where the limit stops the file in the tests that run in Check's own process. */
#define LIMIT (1u << 20)

static char path[4096];

/*
 * Starts a session at a path named after tag, under a file size limit of
 * LIMIT (its hard limit max), then emits n marks of 66 bytes each.
 * Batches of 64 KiB at most: several fit under the limit.
 */
static void mark_under_limit(const char *tag, rlim_t max, int n)
{
	struct ggmlviz_config cfg;
	struct rlimit lim = { LIMIT, max };

	signal(SIGXFSZ, SIG_IGN);
	tu_path(path, sizeof path, tag);
	tu_config(&cfg, path);
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	cfg.buffer_events = 1024;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	for (int i = 0; i < n; i++)
		ggmlviz_mark("filling-the-disk", (uint64_t)i);
}

/* Every count of the stats, the file and its end agree. */
static void check_losses_said(const struct ggmlviz_stats *st, const struct tu_summary *s)
{
	ck_assert_int_eq(s->end_rc, 0); /* whole records only */
	ck_assert_int_eq(s->trace_end_last, 1);
	ck_assert_uint_eq(s->by_type[GGMLVIZ_EVENT_MARK], st->written);
	ck_assert_uint_eq(st->emitted, st->written + st->dropped);
	ck_assert_uint_eq(s->end_written, st->written);
	ck_assert_uint_eq(s->end_dropped, st->dropped);
	ck_assert_uint_eq(s->dropped_noted, st->dropped);
}

/* Waits (up to two seconds) until the writer has drained what was emitted. */
static void wait_until_drained(struct ggmlviz_stats *st)
{
	for (int i = 0; i < 400; i++) {
		ggmlviz_get_stats(st);
		if (st->queued == 0)
			return;
		usleep(5000);
	}
}

/*
 * A file size limit (as a full disk): the file keeps every whole record that
 * fits, keeps room for its end, and ends with DROPPED and TRACE_END saying
 * what was lost.
 */
START_TEST(io_error_keeps_what_fits)
{
	struct ggmlviz_stats st;
	struct tu_summary s;

	mark_under_limit("efbig", LIMIT, 100000); /* 6.6 MB */
	ck_assert_int_eq(ggmlviz_stop(), -EFBIG);
	ggmlviz_get_stats(&st);
	ck_assert_int_eq(st.error, -EFBIG);
	ck_assert_uint_gt(st.written, 0);
	ck_assert_uint_gt(st.dropped, 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	check_losses_said(&st, &s);
	ck_assert_uint_le(s.size, LIMIT);
	ck_assert_uint_gt(s.size, LIMIT - 2 * 4096); /* all but the room kept for the end */
	unlink(path);
}
END_TEST

/* Once there is room again, writing goes on where it stopped. */
START_TEST(io_error_then_room_again)
{
	struct ggmlviz_stats st;
	struct tu_summary s;
	struct rlimit old;

	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	mark_under_limit("efbig-again", old.rlim_max, 40000); /* 2.6 MB: more than fits */
	wait_until_drained(&st); /* the writer has met the limit */
	ck_assert_int_eq(st.error, -EFBIG);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0); /* room again */
	for (int i = 0; i < 1000; i++)
		ggmlviz_mark("after", (uint64_t)i);
	ck_assert_int_eq(ggmlviz_stop(), -EFBIG); /* the last error is still reported */
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.emitted, 41000);
	ck_assert_uint_gt(st.dropped, 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	check_losses_said(&st, &s);
	ck_assert_uint_gt(s.size, LIMIT); /* went on past the old limit */
	unlink(path);
}
END_TEST

/*
 * The first batch fails: the stats count no record that is not in the file.
 * The tiny file size limit would stop Check's own result file too, so the
 * tracing runs in a child that sends its stats back through a pipe.
 */
static int preamble_end(const struct ggmlviz_event *ev, void *arg)
{
	uint64_t *end = arg;

	if (ev->type == GGMLVIZ_EVENT_META && (ev->data.meta.kind == GGMLVIZ_META_PROCESS ||
					       ev->data.meta.kind == GGMLVIZ_META_CLOCK ||
					       ev->data.meta.kind == GGMLVIZ_META_USAGE)) {
		*end = ev->offset + ev->size; /* a stop's USAGE and TRACE_END come after it */
		return ev->data.meta.kind == GGMLVIZ_META_USAGE;
	}
	*end = ev->offset;
	return 1;
}

/* Bytes of a session's first records (header, PROCESS, CLOCK, USAGE), as a session of nothing writes them. */
static uint64_t preamble_bytes(void)
{
	struct ggmlviz_config cfg;
	uint64_t end = 0;

	tu_path(path, sizeof path, "preamble");
	tu_config(&cfg, path);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each(path, preamble_end, &end), 0);
	unlink(path);
	ck_assert_uint_gt(end, 0);
	return end;
}

static void trace_under_tiny_limit(int out, uint64_t preamble)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct rlimit lim = { preamble + 20, preamble + 20 }; /* the first records fit, nothing more */
	int rc;

	signal(SIGXFSZ, SIG_IGN);
	tu_config(&cfg, path);
	if (setrlimit(RLIMIT_FSIZE, &lim) < 0 || ggmlviz_start(&cfg) < 0)
		_exit(3);
	for (int i = 0; i < 1000; i++)
		ggmlviz_mark("never-written", (uint64_t)i);
	rc = ggmlviz_stop();
	ggmlviz_get_stats(&st);
	_exit(write(out, &st, sizeof st) == (ssize_t)sizeof st && rc == -EFBIG ? 0 : 4);
}

START_TEST(io_error_in_first_batch)
{
	uint64_t preamble = preamble_bytes();
	struct ggmlviz_stats st;
	struct tu_summary s;
	int fds[2], status;
	pid_t pid;

	tu_path(path, sizeof path, "efbig-first");
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	if (pid == 0)
		trace_under_tiny_limit(fds[1], preamble);
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &st, sizeof st), (ssize_t)sizeof st);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	/*
	 * 1000 marks do not fit in 20 bytes: not even the first one, when a
	 * slow machine (a sanitizer) drains it alone, before the others come.
	 */
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 0);
	ck_assert_uint_eq(st.written, s.by_type[GGMLVIZ_EVENT_MARK]);
	ck_assert_uint_eq(st.dropped, st.emitted - st.written);
	ck_assert_uint_eq(st.meta_written, s.records - st.written); /* the rest is the tracer's */
	ck_assert_uint_eq(st.bytes_written, s.size);
	unlink(path);
}
END_TEST
/*
 * After the failure the writer's batches may be small (a program that
 * emits slowly, a sanitizer's slow thread). Here they would end the file
 * 20 bytes short of the limit, too close for TRACE_END (46 bytes): none is
 * written into the room kept for the end, so the file still ends with
 * DROPPED and TRACE_END, and what was not written is counted as dropped.
 */
START_TEST(io_error_small_batches_keep_the_end)
{
	struct ggmlviz_stats st;
	struct tu_summary s;
	char label[128];
	uint64_t left;

	mark_under_limit("efbig-small", LIMIT, 20000); /* 1.3 MB: more than fits */
	wait_until_drained(&st);
	ck_assert_int_eq(st.error, -EFBIG);
	ck_assert_uint_le(st.bytes_written + 20 + GGMLVIZ_LABELED_RECORD_SIZE, LIMIT);
	/* marks of 50 + label bytes, one at a time, up to 20 bytes short of the limit */
	for (left = LIMIT - 20 - st.bytes_written; left > 0;) {
		size_t n = left >= 2 * (sizeof label - 1 + GGMLVIZ_LABELED_RECORD_SIZE)
				   ? sizeof label - 1 : (size_t)left - GGMLVIZ_LABELED_RECORD_SIZE;

		if (n > sizeof label - 1) /* the last two share what is left */
			n = (size_t)left / 2 - GGMLVIZ_LABELED_RECORD_SIZE;
		memset(label, 'x', n);
		label[n] = '\0';
		ggmlviz_mark(label, left);
		left -= n + GGMLVIZ_LABELED_RECORD_SIZE;
		wait_until_drained(&st);
	}
	ck_assert_int_eq(ggmlviz_stop(), -EFBIG);
	ggmlviz_get_stats(&st);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	check_losses_said(&st, &s);
	ck_assert_uint_le(s.size, LIMIT);
	unlink(path);
}
END_TEST

/*
 * The writer's own records keep out of the end's room too: with a flush
 * interval of 1 ms, a program that goes on emitting after the failure has
 * its writer pass hundreds of times, and a META USAGE record a pass
 * would fill the 4 KiB kept for DROPPED and TRACE_END in some 90.
 */
START_TEST(io_error_usage_keeps_out_of_the_end)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct tu_summary s;
	struct rlimit lim = { LIMIT, LIMIT };
	struct timespec pause = { 0, 2 * 1000000 };

	signal(SIGXFSZ, SIG_IGN);
	tu_path(path, sizeof path, "efbig-usage");
	tu_config(&cfg, path);
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	cfg.flush_interval_ms = 1;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	for (int i = 0; i < 20000; i++) /* 1.3 MB: more than fits */
		ggmlviz_mark("filling-the-disk", (uint64_t)i);
	wait_until_drained(&st);
	ck_assert_int_eq(st.error, -EFBIG);
	for (int i = 0; i < 200; i++) { /* 400 ms, a pass or two a mark */
		ggmlviz_mark("one-by-one", (uint64_t)i);
		nanosleep(&pause, NULL);
	}
	ck_assert_int_eq(ggmlviz_stop(), -EFBIG);
	ggmlviz_get_stats(&st);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	check_losses_said(&st, &s);
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("io-errors");
	TCase *tc = tcase_create("file size limit");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, io_error_keeps_what_fits);
	tcase_add_test(tc, io_error_then_room_again);
	tcase_add_test(tc, io_error_small_batches_keep_the_end);
	tcase_add_test(tc, io_error_usage_keeps_out_of_the_end);
	tcase_add_test(tc, io_error_in_first_batch);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
