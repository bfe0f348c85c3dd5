/*
 * The trace where programs really send it: a pipe whose reader leaves, a
 * file size limit (ulimit -f), /dev/stdout redirected to a file or a
 * pipe, a FIFO with no reader, and paths that are no place for a trace (a
 * link to nothing, a loop of links, a socket, a block device). Each runs
 * in a child process of its own, with the signals' default actions: the
 * program must go on after ggmlviz_stop(), and start must neither hang
 * nor replace a file of the system.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check-compat.h"
#include "trace-util.h"

static char path[4096];

/* What a child saw, sent back through a pipe. */
struct result {
	int start_rc, stop_rc;
	double start_s;          /* how long ggmlviz_start() took */
	struct ggmlviz_stats st;
	char said[512];          /* the last error the tracer said */
	int went_on;             /* the child ran past stop */
};

static struct result res;

static void keep_said(void *user, int level, const char *msg)
{
	(void)user;
	if (level == GGMLVIZ_LOG_ERROR && !strstr(msg, "cannot start tracing"))
		snprintf(res.said, sizeof res.said, "%s", msg);
}

static void config(struct ggmlviz_config *cfg, const char *out)
{
	tu_config(cfg, out);
	cfg->log_fn = keep_said;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts with cfg, timing it, into res. */
static int timed_start(const struct ggmlviz_config *cfg)
{
	double t0 = now_s();

	res.start_rc = ggmlviz_start(cfg);
	res.start_s = now_s() - t0;
	return res.start_rc;
}

/*
 * Starts fn in a child with default signal actions and a 30 s alarm (a
 * start that hangs is killed), closing `other` there (a pipe end of this
 * process's); *res_fd is where its result comes.
 */
static pid_t spawn(void (*fn)(void *), void *arg, int other, int *res_fd)
{
	int fds[2];
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		if (other >= 0)
			close(other);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		alarm(30);
		memset(&res, 0, sizeof res);
		fn(arg);
		res.went_on = 1;
		_exit(write(fds[1], &res, sizeof res) == (ssize_t)sizeof res ? 0 : 99);
	}
	close(fds[1]);
	*res_fd = fds[0];
	return pid;
}

/* The child's result in *out (zeros if it sent none); its wait status. */
static int reap(pid_t pid, int res_fd, struct result *out)
{
	int status;

	memset(out, 0, sizeof *out);
	if (read(res_fd, out, sizeof *out) != (ssize_t)sizeof *out)
		memset(out, 0, sizeof *out);
	close(res_fd);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/* Runs fn in a child (spawn()); its wait status, its result in *out. */
static int in_child(void (*fn)(void *), void *arg, struct result *out)
{
	int res_fd;
	pid_t pid = spawn(fn, arg, -1, &res_fd);

	return reap(pid, res_fd, out);
}

static void assert_exited(int status)
{
	if (WIFSIGNALED(status))
		ck_abort_msg("the child was killed by signal %d (%s)", WTERMSIG(status),
			     strsignal(WTERMSIG(status)));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}

/* ---- a pipe whose reader leaves ---- */

static void trace_into_pipe_reader_leaves(void *arg)
{
	struct ggmlviz_config cfg;
	char out[64];
	int p[2];

	(void)arg;
	if (pipe(p) < 0)
		_exit(3);
	snprintf(out, sizeof out, "/dev/fd/%d", p[1]);
	config(&cfg, out);
	if (timed_start(&cfg) < 0)
		return;
	for (int i = 0; i < 100; i++)
		ggmlviz_mark("before", (uint64_t)i);
	usleep(50000);
	close(p[0]); /* the reader leaves (`prog | head`) */
	for (int i = 0; i < 1000; i++)
		ggmlviz_mark("after", (uint64_t)i);
	res.stop_rc = ggmlviz_stop();
	ggmlviz_get_stats(&res.st);
}

START_TEST(pipe_reader_leaves_the_program_goes_on)
{
	struct result r;
	int status = in_child(trace_into_pipe_reader_leaves, NULL, &r);

	assert_exited(status);
	ck_assert_int_eq(r.start_rc, 0);
	ck_assert(r.went_on);
	ck_assert_int_eq(r.stop_rc, -EPIPE);
	ck_assert_int_eq(r.st.error, -EPIPE);
	ck_assert_uint_eq(r.st.emitted, 1100);
	ck_assert_uint_eq(r.st.emitted, r.st.written + r.st.dropped);
	ck_assert_uint_ge(r.st.dropped, 1000);
}
END_TEST

/* ---- a file size limit met by stop's last pass ---- */

#define LIMIT (64u << 10)

static void trace_under_limit_at_stop(void *arg)
{
	struct ggmlviz_config cfg;
	struct rlimit lim = { LIMIT, LIMIT };

	(void)arg;
	config(&cfg, path);
	cfg.flush_interval_ms = 60000; /* no pass of the writer's own: stop's writes it all */
	cfg.buffer_events = 65536;     /* 4 MiB rings: 200 KB stay under the doorbell */
	if (setrlimit(RLIMIT_FSIZE, &lim) < 0 || timed_start(&cfg) < 0)
		return;
	ggmlviz_mark("first", 0);
	usleep(100000); /* the new ring's pass is over */
	for (int i = 0; i < 3000; i++) /* 200 KB */
		ggmlviz_mark("past-the-limit", (uint64_t)i);
	res.stop_rc = ggmlviz_stop();
	ggmlviz_get_stats(&res.st);
}

START_TEST(file_size_limit_at_stop_the_program_goes_on)
{
	struct tu_summary s;
	struct result r;
	int status;

	tu_path(path, sizeof path, "fsize-stop");
	status = in_child(trace_under_limit_at_stop, NULL, &r);
	assert_exited(status);
	ck_assert_int_eq(r.start_rc, 0);
	ck_assert(r.went_on);
	ck_assert_int_eq(r.stop_rc, -EFBIG);
	ck_assert_uint_eq(r.st.emitted, 3001);
	ck_assert_uint_eq(r.st.emitted, r.st.written + r.st.dropped);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.end_rc, 0); /* whole records only */
	ck_assert_uint_le(s.size, LIMIT);
	ck_assert_uint_gt(s.size, LIMIT - 2 * 4096); /* all but the room kept for the end */
	ck_assert_int_eq(s.trace_end_last, 1);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], r.st.written);
	ck_assert_uint_eq(s.end_written, r.st.written);
	ck_assert_uint_eq(s.end_dropped, r.st.dropped);
	unlink(path);
}
END_TEST

/* The limit already met at start: start fails with EFBIG, the program goes on. */
static void start_over_limit(void *arg)
{
	struct ggmlviz_config cfg;
	struct rlimit lim = { 0, 0 };

	(void)arg;
	config(&cfg, path);
	if (setrlimit(RLIMIT_FSIZE, &lim) < 0)
		_exit(3);
	timed_start(&cfg);
	ggmlviz_stop();
}

START_TEST(file_size_limit_at_start_the_program_goes_on)
{
	struct result r;
	int status;

	tu_path(path, sizeof path, "fsize-start");
	status = in_child(start_over_limit, NULL, &r);
	assert_exited(status);
	ck_assert_int_eq(r.start_rc, -EFBIG);
	ck_assert(r.went_on);
	unlink(path);
}
END_TEST

/* ---- /dev/stdout ---- */

/*
 * Where the machine allows it (root), the child gets a mount namespace with
 * a /dev of its own, holding only a stdout link as the system's: a tracer
 * that replaced /dev/stdout would replace that one, not the system's.
 */
static int private_dev(void)
{
	if (geteuid() != 0)
		return 0; /* /dev/stdout cannot be replaced: no need */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", "/dev", "tmpfs", 0, "size=64k") < 0 ||
	    symlink("/proc/self/fd/1", "/dev/stdout") < 0 || symlink("/proc/self/fd", "/dev/fd") < 0)
		_exit(7); /* root without a namespace: not run, rather than risk the system's /dev */
	return 1;
}

static void trace_to_stdout(void *arg)
{
	const char *out = arg;
	struct ggmlviz_config cfg;
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		_exit(3);
	close(fd);
	private_dev();
	config(&cfg, out);
	if (timed_start(&cfg) < 0)
		return;
	for (int i = 0; i < 10; i++)
		ggmlviz_mark("to-stdout", (uint64_t)i);
	res.stop_rc = ggmlviz_stop();
	ggmlviz_get_stats(&res.st);
	if (lstat("/dev/stdout", &st) < 0 || !S_ISLNK(st.st_mode))
		res.stop_rc = -1000; /* /dev/stdout is no longer a link */
}

static void check_stdout_file(const char *out)
{
	struct tu_summary s;
	struct result r;
	int status;

	tu_path(path, sizeof path, "stdout");
	status = in_child(trace_to_stdout, (void *)(uintptr_t)out, &r);
	assert_exited(status);
	ck_assert_msg(r.start_rc == 0, "start to %s: %d (%s)", out, r.start_rc, r.said);
	ck_assert_int_eq(r.stop_rc, 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.end_rc, 0);
	ck_assert_int_eq(s.trace_end_last, 1);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 10);
	ck_assert_uint_eq(r.st.bytes_written, s.size);
	unlink(path);
}

START_TEST(dev_stdout_redirected_to_a_file_is_written_through)
{
	check_stdout_file("/dev/stdout");
	check_stdout_file("/dev/fd/1");
	check_stdout_file("/proc/self/fd/1");
}
END_TEST

/* A file given as a descriptor that holds bytes already (`>>`): appended to, never cut. */
static void append_to_stdout(void *arg)
{
	struct ggmlviz_config cfg;
	int fd = open(path, O_WRONLY | O_APPEND);

	(void)arg;
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		_exit(3);
	close(fd);
	config(&cfg, "/dev/fd/1");
	if (timed_start(&cfg) < 0)
		return;
	ggmlviz_mark("appended", 1);
	res.stop_rc = ggmlviz_stop();
	ggmlviz_get_stats(&res.st);
}

START_TEST(dev_stdout_appended_to_keeps_what_was_there)
{
	char head[9] = "";
	struct result r;
	struct stat st;
	int fd, status;

	tu_path(path, sizeof path, "stdout-append");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "precious", 8), 8);
	close(fd);
	status = in_child(append_to_stdout, NULL, &r);
	assert_exited(status);
	ck_assert_int_eq(r.start_rc, 0);
	ck_assert_int_eq(r.stop_rc, 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq((uint64_t)st.st_size, 8 + r.st.bytes_written); /* the trace after them */
	fd = open(path, O_RDONLY);
	ck_assert_int_eq(read(fd, head, 8), 8);
	close(fd);
	ck_assert_str_eq(head, "precious");
	unlink(path);
}
END_TEST

static void trace_to_stdout_pipe(void *arg)
{
	int *wfd = arg;
	struct ggmlviz_config cfg;

	if (dup2(*wfd, STDOUT_FILENO) < 0)
		_exit(3);
	config(&cfg, "/dev/stdout");
	if (timed_start(&cfg) < 0)
		return;
	for (int i = 0; i < 2000; i++) /* 130 KB: more than a pipe holds */
		ggmlviz_mark("to-a-pipe", (uint64_t)i);
	res.stop_rc = ggmlviz_stop();
	ggmlviz_get_stats(&res.st);
	close(STDOUT_FILENO);
	close(*wfd);
}

/* Reads fd to its end into *buf; the size. */
static size_t read_all(int fd, char **buf)
{
	size_t n = 0, cap = 1 << 16;
	ssize_t k;

	*buf = malloc(cap);
	ck_assert_ptr_nonnull(*buf);
	while ((k = read(fd, *buf + n, cap - n)) > 0) {
		n += (size_t)k;
		if (n == cap) {
			*buf = realloc(*buf, cap *= 2);
			ck_assert_ptr_nonnull(*buf);
		}
	}
	return n;
}

/* What a child wrote into a stream (a pipe, a FIFO) that this process read. */
struct streamed {
	struct result r;
	uint64_t marks, ends;
	size_t bytes;
};

/* Reads the child's stream from data_fd to its end, then its result; the trace must be whole. */
static void read_streamed(pid_t pid, int data_fd, int res_fd, struct streamed *out)
{
	struct ggmlviz_reader *rd;
	struct ggmlviz_event ev;
	char *buf;
	int rc;

	memset(out, 0, sizeof *out);
	out->bytes = read_all(data_fd, &buf);
	close(data_fd);
	assert_exited(reap(pid, res_fd, &out->r));
	ck_assert_int_eq(out->r.start_rc, 0);
	ck_assert_int_eq(out->r.stop_rc, 0);
	ck_assert_int_eq(ggmlviz_reader_open_memory(buf, out->bytes, &rd), 0);
	while ((rc = ggmlviz_reader_next(rd, &ev)) == 1) {
		out->marks += ev.type == GGMLVIZ_EVENT_MARK;
		out->ends += ev.type == GGMLVIZ_EVENT_META &&
			     ev.data.meta.kind == GGMLVIZ_META_TRACE_END;
	}
	ck_assert_int_eq(rc, 0);
	ggmlviz_reader_close(rd);
	free(buf);
}

START_TEST(dev_stdout_to_a_pipe_is_written_through)
{
	struct streamed s;
	int p[2], res_fd;
	pid_t pid;

	/* the child's stdout is a pipe this process reads while the child writes */
	ck_assert_int_eq(pipe(p), 0);
	pid = spawn(trace_to_stdout_pipe, &p[1], p[0], &res_fd);
	close(p[1]);
	read_streamed(pid, p[0], res_fd, &s);
	ck_assert_uint_eq(s.marks, 2000);
	ck_assert_uint_eq(s.ends, 1);
	ck_assert_uint_eq(s.r.st.bytes_written, s.bytes);
}
END_TEST

/* ---- FIFOs ---- */

static void start_on(void *arg)
{
	struct ggmlviz_config cfg;

	config(&cfg, arg);
	if (timed_start(&cfg) == 0) {
		ggmlviz_mark("x", 1);
		res.stop_rc = ggmlviz_stop();
	}
}

START_TEST(fifo_without_reader_fails_in_bounded_time)
{
	struct result r;
	int status;

	tu_path(path, sizeof path, "fifo");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	status = in_child(start_on, path, &r);
	assert_exited(status); /* not killed by the alarm: start did not hang */
	ck_assert_int_eq(r.start_rc, -ENXIO);
	ck_assert_double_ge(r.start_s, 1.5);
	ck_assert_double_lt(r.start_s, 10.0);
	ck_assert_msg(strstr(r.said, path) && strstr(r.said, "no process"), "said: %s", r.said);
	unlink(path);
}
END_TEST

/*
 * A pipe's write end through /dev/fd, its only reader gone before start:
 * unlike a FIFO's, a pipe's open(2) never waits; the first write fails.
 */
static void start_on_readerless_pipe(void *arg)
{
	char out[64];
	int p[2];

	(void)arg;
	if (pipe(p) < 0)
		_exit(3);
	close(p[0]);
	snprintf(out, sizeof out, "/dev/fd/%d", p[1]);
	start_on(out);
}

START_TEST(pipe_without_reader_fails_at_start)
{
	struct result r;
	int status = in_child(start_on_readerless_pipe, NULL, &r);

	assert_exited(status);
	ck_assert_int_eq(r.start_rc, -EPIPE);
	ck_assert_double_lt(r.start_s, 10.0);
}
END_TEST

START_TEST(fifo_with_a_late_reader_is_written)
{
	struct streamed s;
	int res_fd, fd;
	pid_t pid;

	tu_path(path, sizeof path, "fifo-late");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	pid = spawn(start_on, path, -1, &res_fd);
	usleep(300000); /* the child waits for a reader meanwhile */
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	read_streamed(pid, fd, res_fd, &s);
	ck_assert_uint_eq(s.marks, 1);
	ck_assert_uint_eq(s.ends, 1);
	unlink(path);
}
END_TEST

/* ---- paths that are no place for a trace ---- */

/* Starts on p in a child: start's result, and what the tracer said. */
static struct result start_child(const char *p)
{
	struct result r;
	int status = in_child(start_on, (void *)(uintptr_t)p, &r);

	assert_exited(status);
	return r;
}

START_TEST(dangling_link_is_refused_and_left)
{
	char target[4096] = "/nonexistent-ggmlviz-dir/trace.ggmlviz", back[4096];
	struct result r;
	ssize_t n;

	tu_path(path, sizeof path, "dangling");
	ck_assert_int_eq(symlink(target, path), 0);
	r = start_child(path);
	ck_assert_int_eq(r.start_rc, -ENOENT);
	ck_assert_msg(strstr(r.said, path) && strstr(r.said, "dangling"), "said: %s", r.said);
	n = readlink(path, back, sizeof back - 1);
	ck_assert_int_gt(n, 0);
	back[n] = '\0';
	ck_assert_str_eq(back, target); /* the link as it was */
	unlink(path);
}
END_TEST

START_TEST(link_loop_is_refused_and_left)
{
	char other[4096];
	struct result r;
	struct stat st;

	tu_path(path, sizeof path, "loop-a");
	tu_path(other, sizeof other, "loop-b");
	ck_assert_int_eq(symlink(other, path), 0);
	ck_assert_int_eq(symlink(path, other), 0);
	r = start_child(path);
	ck_assert_int_eq(r.start_rc, -ELOOP);
	ck_assert_msg(strstr(r.said, path) && strstr(r.said, "loop"), "said: %s", r.said);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(lstat(other, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	unlink(path);
	unlink(other);
}
END_TEST

START_TEST(directory_and_socket_are_refused)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct result r;
	struct stat st;
	int fd;

	r = start_child("/tmp");
	ck_assert_int_eq(r.start_rc, -EISDIR);
	tu_path(path, sizeof path, "socket");
	ck_assert_uint_lt(strlen(path), sizeof sa.sun_path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	r = start_child(path);
	ck_assert_int_eq(r.start_rc, -ENXIO);
	ck_assert_msg(strstr(r.said, path) && strstr(r.said, "socket"), "said: %s", r.said);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode)); /* not replaced */
	close(fd);
	unlink(path);
}
END_TEST

/*
 * A block device is never written over. The node made here names a loop
 * device no one attached (opening it fails), so that a tracer that would
 * open it harms nothing; making it takes root.
 */
START_TEST(block_device_is_refused)
{
	struct result r;

	tu_path(path, sizeof path, "blockdev");
	if (mknod(path, S_IFBLK | 0600, makedev(7, 255)) < 0) {
		fprintf(stderr, "block_device_is_refused: cannot make a block device node here "
				"(%s): not run\n", strerror(errno));
		return;
	}
	r = start_child(path);
	ck_assert_int_eq(r.start_rc, -EINVAL);
	ck_assert_msg(strstr(r.said, path) && strstr(r.said, "block device"), "said: %s", r.said);
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("output");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, pipe_reader_leaves_the_program_goes_on);
	tcase_add_test(tc, file_size_limit_at_stop_the_program_goes_on);
	tcase_add_test(tc, file_size_limit_at_start_the_program_goes_on);
	tcase_add_test(tc, dev_stdout_redirected_to_a_file_is_written_through);
	tcase_add_test(tc, dev_stdout_appended_to_keeps_what_was_there);
	tcase_add_test(tc, dev_stdout_to_a_pipe_is_written_through);
	tcase_add_test(tc, fifo_without_reader_fails_in_bounded_time);
	tcase_add_test(tc, pipe_without_reader_fails_at_start);
	tcase_add_test(tc, fifo_with_a_late_reader_is_written);
	tcase_add_test(tc, dangling_link_is_refused_and_left);
	tcase_add_test(tc, link_loop_is_refused_and_left);
	tcase_add_test(tc, directory_and_socket_are_refused);
	tcase_add_test(tc, block_device_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
