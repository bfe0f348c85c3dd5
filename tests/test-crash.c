/*
 * A crash loses nothing: a child traces from several threads with a flush
 * interval far longer than the test, so that the events are still in the
 * rings when it crashes (a fault, abort()); the crash handler saves them
 * all and ends the file with META CRASH, and the signal still goes on to
 * what the program had (the default action: the child dies of it; its own
 * handler: that handler runs). Without the handler the same events are
 * lost, which shows that the test can fail.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-compat.h"
#include "trace-util.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1 /* the sanitizer's own handler is "what the program had" */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define THREADS 4
#define MARKS 5000
#define GROWING_MARKS 40000 /* with pauses: long enough for the rings to grow */

static char path[4096];
/* The child's rings start at 1 KiB and grow while it emits (block mode); growths are told to grew_fd. */
static int growing, grew_fd = -1;
static volatile uintptr_t fault_address = 16; /* unmapped: the compiler cannot tell */

enum crash_how { FAULT, ABORT };

static pthread_barrier_t emitted;

/*
 * MARKS marks, left in the ring: the thread then waits for the crash
 * without exiting (an exiting thread's ring is drained at once).
 */
static int marks_per_thread(void)
{
	return growing ? GROWING_MARKS : MARKS;
}

static void *emit_marks(void *arg)
{
	uintptr_t t = (uintptr_t)arg;
	int n = marks_per_thread();

	for (int i = 0; i < n; i++) {
		ggmlviz_mark("before-the-crash", t * (uint64_t)n + (uint64_t)i);
		if (growing && i % 1000 == 999)
			usleep(100);
	}
	pthread_barrier_wait(&emitted);
	for (;;)
		pause();
	return NULL;
}

static void own_handler(int sig)
{
	(void)sig;
	_exit(42);
}

/* The tracer's messages in a growing child: a byte to grew_fd per growth. */
static void note_growth(void *user, int level, const char *msg)
{
	(void)user;
	(void)level;
	if (strstr(msg, "'s ring grows from ") && write(grew_fd, "g", 1) != 1)
		_exit(5);
}

/* The child: THREADS threads emit MARKS marks each, then the program crashes. */
static void crash_child(enum crash_how how, int handler, int own)
{
	struct ggmlviz_config cfg;
	pthread_t th[THREADS];

	if (own)
		signal(how == FAULT ? SIGSEGV : SIGABRT, own_handler);
	tu_config(&cfg, path);
	cfg.flush_interval_ms = 60000; /* nothing is drained before the crash */
	cfg.crash_handler = handler;
	if (growing) { /* drained as the rings fill, some records in old buffers, some in new */
		cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
		cfg.buffer_events = 16;
		cfg.buffer_events_max = 4096;
		cfg.verbose = 1;
		cfg.log_fn = note_growth;
	}
	if (ggmlviz_start(&cfg) < 0)
		_exit(3);
	pthread_barrier_init(&emitted, NULL, THREADS + 1);
	for (uintptr_t t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, emit_marks, (void *)t);
	pthread_barrier_wait(&emitted);
	if (how == ABORT)
		abort();
	*(volatile int *)fault_address = 1; /* a real fault */
	_exit(4);
}

/* What the file holds after the crash. */
struct after {
	uint64_t marks, crash_sig, crash_written, records;
	int crash_last, end_rc;
	char crash_label[16];
};

static int look(const struct ggmlviz_event *ev, void *arg)
{
	struct after *a = arg;

	a->records++;
	a->marks += ev->type == GGMLVIZ_EVENT_MARK;
	a->crash_last = ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_CRASH;
	if (a->crash_last) {
		a->crash_sig = ev->data.meta.key;
		a->crash_written = ev->data.meta.value;
		snprintf(a->crash_label, sizeof a->crash_label, "%.*s", (int)ev->label_len,
			 ev->label ? ev->label : "");
	}
	return 0;
}

static int run_child(enum crash_how how, int handler, int own, struct after *a)
{
	int status;
	pid_t pid;

	tu_path(path, sizeof path, "crash");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		crash_child(how, handler, own);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	memset(a, 0, sizeof *a);
	a->end_rc = tu_each(path, look, a);
	unlink(path);
	return status;
}

/* The child died of sig, as without tracing (or, sanitized, the sanitizer reported it). */
static void died_of(int status, int sig)
{
	if (SANITIZED && !(sig == SIGABRT))
		ck_assert(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
	else
		ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig,
			      "status %#x: not killed by signal %d", status, sig);
}

START_TEST(fault_saves_every_event)
{
	struct after a;

	died_of(run_child(FAULT, 1, 0, &a), SIGSEGV);
	ck_assert_int_eq(a.end_rc, 0);
	ck_assert_uint_eq(a.marks, THREADS * MARKS);
	ck_assert_int_eq(a.crash_last, 1);
	ck_assert_uint_eq(a.crash_sig, SIGSEGV);
	ck_assert_str_eq(a.crash_label, "SIGSEGV");
	ck_assert_uint_eq(a.crash_written, THREADS * MARKS);
}
END_TEST

START_TEST(abort_saves_every_event)
{
	struct after a;

	died_of(run_child(ABORT, 1, 0, &a), SIGABRT);
	ck_assert_int_eq(a.end_rc, 0);
	ck_assert_uint_eq(a.marks, THREADS * MARKS);
	ck_assert_int_eq(a.crash_last, 1);
	ck_assert_uint_eq(a.crash_sig, SIGABRT);
}
END_TEST

START_TEST(programs_own_handler_still_runs)
{
	struct after a;
	int status = run_child(FAULT, 1, 1, &a);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 42, "status %#x", status);
	ck_assert_uint_eq(a.marks, THREADS * MARKS);
	ck_assert_int_eq(a.crash_last, 1);
	status = run_child(ABORT, 1, 1, &a);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 42, "status %#x", status);
	ck_assert_uint_eq(a.marks, THREADS * MARKS);
}
END_TEST

/*
 * A fault on the writer thread itself (here in the program's log function,
 * which the writer calls when max_events is reached) goes to the
 * program's own handler, through the crash handler or without it: the
 * writer does not block the signals of faults, which the kernel would
 * then deliver by killing the process.
 */
static void fault_in_writer(void *user, int level, const char *msg)
{
	char name[16] = "";

	(void)user;
	(void)level;
	pthread_getname_np(pthread_self(), name, sizeof name);
	if (strstr(msg, "max_events") && !strcmp(name, "ggmlviz-writer"))
		*(volatile int *)fault_address = 1;
}

static void writer_fault_child(int handler)
{
	struct ggmlviz_config cfg;

	signal(SIGSEGV, own_handler);
	tu_config(&cfg, path);
	cfg.max_events = 10;
	cfg.verbose = 1;
	cfg.log_fn = fault_in_writer;
	cfg.crash_handler = handler;
	if (ggmlviz_start(&cfg) < 0)
		_exit(3);
	for (int i = 0; i < 100; i++)
		ggmlviz_mark("past-max-events", (uint64_t)i);
	sleep(10); /* the writer's pass faults meanwhile */
	_exit(4);
}

START_TEST(a_fault_on_the_writer_reaches_the_programs_handler)
{
	for (int handler = 0; handler < 2; handler++) {
		int status;
		pid_t pid;

		tu_path(path, sizeof path, "writer-fault");
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			writer_fault_child(handler);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		unlink(path);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 42,
			      "crash handler %d: status %#x: the program's handler did not run%s",
			      handler, status, WIFSIGNALED(status) ? " (killed by a signal)" : "");
	}
}
END_TEST

/* Without the handler the rings die with the process: what the test above would see broken. */
/*
 * Rings that grew while their threads emitted (block mode: nothing lost
 * before the crash): the handler reads the grown rings, where the writer's
 * view followed its producer, and saves every event; the growths happened.
 */
START_TEST(crash_after_rings_grew_saves_every_event)
{
	char grew_path[4200];
	struct after a;
	off_t growths;

	tu_path(grew_path, sizeof grew_path, "grew");
	grew_fd = open(grew_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(grew_fd, 0);
	growing = 1;
	died_of(run_child(FAULT, 1, 0, &a), SIGSEGV);
	growing = 0;
	growths = lseek(grew_fd, 0, SEEK_END);
	close(grew_fd);
	unlink(grew_path);
	ck_assert_int_eq(a.end_rc, 0);
	ck_assert_uint_eq(a.marks, THREADS * GROWING_MARKS);
	ck_assert_int_eq(a.crash_last, 1);
	ck_assert_uint_eq(a.crash_written, THREADS * GROWING_MARKS);
	ck_assert_int_ge(growths, THREADS);
}
END_TEST

START_TEST(without_the_handler_the_rings_are_lost)
{
	struct after a;

	died_of(run_child(ABORT, 0, 0, &a), SIGABRT);
	ck_assert_uint_eq(a.marks, 0);
	ck_assert_int_eq(a.crash_last, 0);
}
END_TEST

START_TEST(stop_gives_the_signals_back)
{
	struct ggmlviz_config cfg;
	struct sigaction before, during, after;

	ck_assert_int_eq(sigaction(SIGSEGV, NULL, &before), 0);
	tu_path(path, sizeof path, "signals");
	tu_config(&cfg, path);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(sigaction(SIGSEGV, NULL, &during), 0);
	ck_assert(during.sa_flags & SA_SIGINFO); /* ours */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(sigaction(SIGSEGV, NULL, &after), 0);
	ck_assert_ptr_eq((void *)(uintptr_t)after.sa_handler, (void *)(uintptr_t)before.sa_handler);
	cfg.crash_handler = 0;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(sigaction(SIGSEGV, NULL, &during), 0);
	ck_assert_ptr_eq((void *)(uintptr_t)during.sa_handler, (void *)(uintptr_t)before.sa_handler);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("crash");
	TCase *tc = tcase_create("signals");

	tcase_add_test(tc, fault_saves_every_event);
	tcase_add_test(tc, abort_saves_every_event);
	tcase_add_test(tc, programs_own_handler_still_runs);
	tcase_add_test(tc, crash_after_rings_grew_saves_every_event);
	tcase_add_test(tc, without_the_handler_the_rings_are_lost);
	tcase_add_test(tc, stop_gives_the_signals_back);
	tcase_add_test(tc, a_fault_on_the_writer_reaches_the_programs_handler);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
