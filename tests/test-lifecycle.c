/*
 * Sessions over a process's life: repeated start/stop, fork() while
 * tracing, a program that exits without ggmlviz_stop(), and one that
 * exit()s from a signal handler while its exit handler stops the session,
 * or while the library or the C library holds a lock.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-compat.h"
#include "trace-util.h"
#include "tracer/producer/producer.h"
#include "tracer/producer/ring.h"

static char path[4096];

START_TEST(repeated_start_stop)
{
	struct ggmlviz_config cfg;
	struct tu_summary s;
	uint64_t first = ggmlviz_session();

	for (int i = 0; i < 100; i++) {
		tu_path(path, sizeof path, "repeat");
		tu_config(&cfg, path);
		cfg.buffer_events = 16u << (i % 8);
		ck_assert_int_eq(ggmlviz_start(&cfg), 0);
		ck_assert_uint_eq(ggmlviz_session(), first + (uint64_t)i + 1);
		for (int k = 0; k <= i; k++)
			ggmlviz_mark("round", (uint64_t)k);
		ck_assert_int_eq(ggmlviz_stop(), 0);
		ck_assert_uint_eq(ggmlviz_session(), first + (uint64_t)i + 1);
		ck_assert_int_eq(tu_summarize(path, &s), 0);
		ck_assert_int_eq(s.end_rc, 0);
		ck_assert_int_eq(s.trace_end_last, 1);
		ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK] + s.dropped_noted, (uint64_t)i + 1);
		ck_assert_uint_eq(s.by_meta[GGMLVIZ_META_PROCESS], 1);
		unlink(path);
	}
}
END_TEST

/* Resident memory of this process, in KiB (VmRSS). */
static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* A stopped session gives its rings' memory back; the next start maps them again. */
START_TEST(stop_gives_ring_memory_back)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct tu_summary s;
	long during, after;

	tu_path(path, sizeof path, "ring-memory");
	tu_config(&cfg, path);
	cfg.buffer_events = 1u << 20; /* 64 MiB, resident from the first event */
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_mark("first", 0);
	during = rss_kib();
	ggmlviz_get_stats(&st); /* the stats say what the ring takes */
	ck_assert_uint_ge(st.ring_bytes, 64u << 20);
	ck_assert_uint_lt(st.ring_bytes, 65u << 20);
	ck_assert_uint_eq(st.ring_bytes_peak, st.ring_bytes);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	after = rss_kib();
	ck_assert_msg(after < during - 48 * 1024, "RSS %ld KiB while tracing, %ld after stop",
		      during, after);
	cfg.buffer_events = 1u << 10; /* the same thread's ring, 64 KiB: the peak starts again */
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_mark("again", 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(&st); /* as at the stop */
	ck_assert_uint_ge(st.ring_bytes_peak, 64u << 10);
	ck_assert_uint_lt(st.ring_bytes_peak, 1u << 20);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 1);
	unlink(path);
}
END_TEST

/* The bracketed word of a /sys setting ("[madvise] never" -> "madvise") in mode; "" if none. */
static void sys_choice(const char *file, char *mode, size_t size)
{
	FILE *f = fopen(file, "r");
	char line[128] = "", *open, *close;

	snprintf(mode, size, "%s", "");
	if (!f)
		return;
	if (fgets(line, sizeof line, f) && (open = strchr(line, '[')) && (close = strchr(open, ']'))) {
		*close = '\0';
		snprintf(mode, size, "%s", open + 1);
	}
	fclose(f);
}

/*
 * The transparent huge pages setting of 2 MiB pages for this process:
 * "always", "madvise", "never", or "" if not said. Kernels from 6.8 say
 * it by size too ("inherit": the system's); a process may have them
 * turned off (PR_SET_THP_DISABLE, inherited from its parent).
 */
static void thp_mode(char *mode, size_t size)
{
	char by_size[32];

	if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1) {
		snprintf(mode, size, "%s", "never");
		return;
	}
	sys_choice("/sys/kernel/mm/transparent_hugepage/enabled", mode, size);
	sys_choice("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled", by_size,
		   sizeof by_size);
	if (by_size[0] && strcmp(by_size, "inherit") != 0)
		snprintf(mode, size, "%s", by_size);
}

/* The number after `field` in /proc/self/smaps for the mapping that holds p; -1: not said. */
static long smaps_field(const void *p, const char *field)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0;
	long got = -1;

	if (!f)
		return -1; /* no /proc */
	while (got < 0 && fgets(line, sizeof line, f)) {
		unsigned long from, to;

		if (sscanf(line, "%lx-%lx ", &from, &to) == 2) /* a mapping's line: its fields follow */
			in = (uintptr_t)p >= from && (uintptr_t)p < to;
		else if (in && strncmp(line, field, strlen(field)) == 0)
			got = strtol(line + strlen(field), NULL, 10);
	}
	fclose(f);
	return got;
}

/*
 * A ring of a huge page or more is mapped on a huge page's boundary and
 * advised onto huge pages (ring.c: on 4 KiB pages a lap's records waited
 * on each new page): where the system gives them on advice, the kernel
 * says its mapping may have them (THPeligible; in "madvise" mode only
 * with the advice, in "always" mode without it too). Whether it got them
 * depends on the memory free in 2 MiB pieces, and is not asserted; a
 * kernel that does not say (before 5.0, or no /proc) is not asked.
 */
START_TEST(a_large_ring_is_on_huge_pages_where_given)
{
	const uint64_t size = 4u << 20;
	uint8_t *buf = ggmlviz__ring_map(size, 1);
	char mode[32];
	long eligible;

	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq((uintptr_t)buf % GGMLVIZ__HUGE_PAGE, 0);
	buf[0] = buf[size - 1] = 1; /* mapped, and written */
	thp_mode(mode, sizeof mode);
	eligible = smaps_field(buf, "THPeligible:");
	if ((strcmp(mode, "always") == 0 || strcmp(mode, "madvise") == 0) && eligible >= 0)
		ck_assert_msg(eligible == 1,
			      "a 4 MiB ring cannot have huge pages (transparent huge pages: %s)", mode);
	ggmlviz__ring_unmap(buf, size);
}
END_TEST

struct tid_count {
	uint32_t tid;
	uint64_t n;
};

static int count_tid(const struct ggmlviz_event *ev, void *arg)
{
	struct tid_count *c = arg;

	c->n += ev->thread_id == c->tid && ev->type == GGMLVIZ_EVENT_MARK;
	return 0;
}

static int wait_child(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * The child of a tracing process emits and exits normally (its atexit
 * handler runs ggmlviz_stop): the parent's file gets nothing of it, and
 * stays whole.
 */
START_TEST(fork_child_leaves_parent_file_alone)
{
	struct ggmlviz_config cfg;
	struct tu_summary s;
	struct tid_count c = { 0, 0 };
	pid_t pid;

	tu_path(path, sizeof path, "fork-parent");
	tu_config(&cfg, path);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_mark("parent", 0);
	tu_wait_for_a_pass();
	pid = fork();
	if (pid == 0) {
		int active = ggmlviz_is_active();
		for (int i = 0; i < 1000; i++)
			ggmlviz_mark("child", (uint64_t)i);
		exit(active ? 3 : 0);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(wait_child(pid), 0);
	c.tid = (uint32_t)pid; /* the child's only thread */
	ggmlviz_mark("parent", 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.end_rc, 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 2);
	ck_assert_uint_eq(s.by_meta[GGMLVIZ_META_TRACE_END], 1);
	ck_assert_int_eq(tu_each(path, count_tid, &c), 0);
	ck_assert_uint_eq(c.n, 0);
	unlink(path);
}
END_TEST

#ifndef __SANITIZE_THREAD__
/* A child may trace on its own, into its own file, while the parent still traces. */
START_TEST(fork_child_traces_its_own_file)
{
	struct ggmlviz_config cfg;
	struct tu_summary s;
	char child_path[4096];
	pid_t pid;

	tu_path(path, sizeof path, "fork-parent2");
	tu_path(child_path, sizeof child_path, "fork-child");
	tu_config(&cfg, path);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_mark("parent", 0);
	tu_wait_for_a_pass();
	pid = fork();
	if (pid == 0) {
		struct ggmlviz_config child;
		tu_config(&child, child_path);
		if (ggmlviz_start(&child) != 0)
			_exit(4);
		for (int i = 0; i < 5000; i++)
			ggmlviz_mark("child", (uint64_t)i);
		_exit(ggmlviz_stop() == 0 ? 0 : 5);
	}
	for (int i = 1; i < 5000; i++)
		ggmlviz_mark("parent", (uint64_t)i);
	ck_assert_int_eq(wait_child(pid), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_summarize(child_path, &s), 0);
	ck_assert_int_eq(s.trace_end_last, 1);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK] + s.dropped_noted, 5000);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.trace_end_last, 1);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK] + s.dropped_noted, 5000);
	unlink(path);
	unlink(child_path);
}
END_TEST
#endif

/* fork() from a thread while another thread emits: the child neither hangs nor crashes. */
static atomic_int spinning;

static void *spin_emit(void *arg)
{
	(void)arg;
	while (atomic_load(&spinning))
		ggmlviz_mark("spin", 0);
	return NULL;
}

START_TEST(fork_while_threads_emit)
{
	struct ggmlviz_config cfg;
	struct tu_summary s;
	pthread_t th;

	tu_path(path, sizeof path, "fork-busy");
	tu_config(&cfg, path);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	atomic_store(&spinning, 1);
	ck_assert_int_eq(pthread_create(&th, NULL, spin_emit, NULL), 0);
	tu_wait_for_a_pass();
	for (int i = 0; i < 20; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			/* _exit: stop is called here; atexit in a child is covered above */
			ggmlviz_mark("child", 0);
			_exit(ggmlviz_stop() == 0 && !ggmlviz_is_active() ? 0 : 6);
		}
		ck_assert_int_eq(wait_child(pid), 0);
	}
	atomic_store(&spinning, 0);
	pthread_join(th, NULL);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.end_rc, 0);
	ck_assert_int_eq(s.trace_end_last, 1);
	ck_assert_uint_eq(s.by_meta[GGMLVIZ_META_TRACE_END], 1);
	unlink(path);
}
END_TEST

/* A program that forgets ggmlviz_stop() still leaves a complete file. */
START_TEST(exit_without_stop_completes_the_file)
{
	struct tu_summary s;
	pid_t pid;

	tu_path(path, sizeof path, "atexit");
	pid = fork();
	if (pid == 0) {
		struct ggmlviz_config cfg;
		tu_config(&cfg, path);
		if (ggmlviz_start(&cfg) != 0)
			_exit(7);
		for (int i = 0; i < 1000; i++)
			ggmlviz_mark("forgotten", (uint64_t)i);
		exit(0); /* no ggmlviz_stop() */
	}
	ck_assert_int_eq(wait_child(pid), 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.end_rc, 0);
	ck_assert_int_eq(s.trace_end_last, 1);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK] + s.dropped_noted, 1000);
	unlink(path);
}
END_TEST

/*
 * The child's status, or 999 when it did not end within 20 s (then killed):
 * a test of what must never hang.
 */
static int wait_child_bounded(pid_t pid)
{
	int status;

	for (int i = 0; i < 2000; i++) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		ck_assert_int_ge(got, 0);
		if (got == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 999;
}

/* llama-server's handler of a second interrupt: exit() at once. */
static void exit_now(int sig)
{
	(void)sig;
	exit(1);
}

/* In a child: a session on file, 1000 marks recorded, SIGINT's handler exit()s. */
static void start_served_child(const char *file)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, file);
	signal(SIGINT, exit_now);
	if (ggmlviz_start(&cfg) != 0)
		_exit(7);
	for (int i = 0; i < 1000; i++)
		ggmlviz_mark("served", (uint64_t)i);
}

static void atexit_stop(void)
{
	ggmlviz_stop();
}

/* The session's last message, logged while its lock is held: the second interrupt comes then. */
static void interrupt_at_stopped(void *user, int level, const char *msg)
{
	(void)user, (void)level;
	if (!strncmp(msg, "stopped:", 8))
		raise(SIGINT);
}

/*
 * A traced llama-server stopped by SIGINT stops the session in an atexit
 * handler (the tools' own); a second SIGINT then exit()s from its signal
 * handler, which runs the exit handlers left, the library's among them,
 * while the first still holds the session's lock. It must end at once
 * (the old library locked the session again, for ever), its trace as far
 * as the stop had got: here, whole.
 */
START_TEST(exit_from_a_signal_while_stopping_never_hangs)
{
	struct tu_summary s;
	pid_t pid;

	tu_path(path, sizeof path, "second-interrupt");
	pid = fork();
	if (pid == 0) {
		struct ggmlviz_config cfg;

		tu_config(&cfg, path);
		cfg.verbose = 1;
		cfg.log_fn = interrupt_at_stopped;
		signal(SIGINT, exit_now);
		if (ggmlviz_start(&cfg) != 0)
			_exit(7);
		atexit(atexit_stop); /* after the start, as the tools register theirs */
		for (int i = 0; i < 1000; i++)
			ggmlviz_mark("served", (uint64_t)i);
		exit(0);
	}
	ck_assert_int_eq(wait_child_bounded(pid), 1);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.end_rc, 0);
	ck_assert_int_eq(s.trace_end_last, 1);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK] + s.dropped_noted, 1000);
	unlink(path);
}
END_TEST

/*
 * The same second interrupt, landing on a thread that holds another of
 * the library's locks, which the stop takes too: here the registry's, as
 * a thread that ends takes it to leave it (the hang once seen in
 * tests/test-llama-fleet.sh's second SIGINT: exit() ran the stop on that
 * thread, which asked for the registry's lock again, for ever). It must
 * end at once; its trace ends where it was, without its end.
 */
START_TEST(exit_from_a_signal_in_an_inner_lock_never_hangs)
{
	struct tu_summary s;
	pid_t pid;

	tu_path(path, sizeof path, "interrupt-in-registry");
	pid = fork();
	if (pid == 0) {
		start_served_child(path);
		ggmlviz__registry_lock();
		raise(SIGINT);
		_exit(8); /* not reached: the handler exit()s */
	}
	ck_assert_int_eq(wait_child_bounded(pid), 1);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.trace_end_last, 0);
	unlink(path);
}
END_TEST

static void *hold_the_registry(void *arg)
{
	ggmlviz__registry_lock();
	atomic_store((_Atomic int *)arg, 1);
	for (;;)
		pause(); /* as a thread stuck in free() under the lock would */
	return NULL;
}

/*
 * The same second interrupt while another thread holds the registry's lock
 * and never gives it back: a thread that ends frees its ring under it, and
 * the writer a dead thread's, and free() may wait on malloc's lock, which
 * the interrupted thread holds. The stop at exit waits for that lock, and
 * for a writer that writes nothing, GGMLVIZ__EXIT_WAIT_MS at most each; it
 * ends within seconds, its trace without its end (the old one waited for
 * ever).
 */
START_TEST(exit_while_another_thread_holds_the_registry_ends)
{
	struct tu_summary s;
	pid_t pid;

	tu_path(path, sizeof path, "registry-held");
	pid = fork();
	if (pid == 0) {
		static _Atomic int held;
		pthread_t t;

		start_served_child(path);
		if (pthread_create(&t, NULL, hold_the_registry, (void *)&held) != 0)
			_exit(9);
		while (!atomic_load(&held))
			usleep(1000);
		raise(SIGINT);
		_exit(8); /* not reached: the handler exit()s */
	}
	ck_assert_int_eq(wait_child_bounded(pid), 1);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.end_rc, 0);
	ck_assert_int_eq(s.trace_end_last, 0);
	unlink(path);
}
END_TEST

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
/*
 * A test of glibc's own locks, in the plain build: the sanitizers put
 * their malloc and join in its place, and their checks at exit (leaks,
 * threads not joined) take locks of their own that the interrupted thread
 * holds.
 */
#define GLIBC_LOCKS 1

/*
 * What a thread of the C library holds when the second interrupt lands:
 * the lock on the threads' stacks, as pthread_join() munmaps a large one
 * (llama-server's cleanup joins its HTTP threads: the hang seen in
 * tests/test-llama-fleet.sh, the library's own join of its writer then
 * waiting on that lock for ever), or malloc's, as it serves blocks below
 * the mmap threshold (the old stop's free() and join both take it).
 */
#define SMALL_STACK (64u << 10)
#define SMALL_THREADS 590     /* their stacks fill glibc's cache (40 MiB), nearly */
#define BIG_STACK (64u << 20) /* then this one's join frees them all, under its lock */

static void *return_at_once(void *arg)
{
	return arg;
}

struct interrupt {
	pthread_t target;
	unsigned after_us; /* after the work says the moment is near */
	_Atomic int near;
};

static struct interrupt interrupt;

static void *interrupt_later(void *arg)
{
	struct interrupt *in = arg;

	while (!atomic_load(&in->near))
		usleep(100);
	usleep(in->after_us);
	pthread_kill(in->target, SIGINT);
	return NULL;
}

static void start_and_join(pthread_t *t, size_t n, size_t stack)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	for (size_t i = 0; i < n; i++)
		if (pthread_create(&t[i], &attr, return_at_once, NULL) != 0)
			_exit(9);
	if (stack == BIG_STACK)
		atomic_store(&interrupt.near, 1); /* its join frees some 600 stacks */
	for (size_t i = 0; i < n; i++)
		pthread_join(t[i], NULL); /* only now does the stack go to the cache */
	pthread_attr_destroy(&attr);
}

static void join_big_stacks(void)
{
	static pthread_t t[SMALL_THREADS];

	for (;;) {
		start_and_join(t, SMALL_THREADS, SMALL_STACK);
		start_and_join(t, 1, BIG_STACK);
	}
}

static void malloc_and_free(void)
{
	atomic_store(&interrupt.near, 1);
	for (unsigned i = 0;; i++) {
		void *volatile p = malloc(1024 + i % 65536u);

		free(p);
	}
}

/* A traced child doing work(), interrupted by exit_now() after_us after its moment is near. */
static int interrupted_child(const char *file, void (*work)(void), unsigned after_us)
{
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t t;

		start_served_child(file);
		interrupt.target = pthread_self();
		interrupt.after_us = after_us;
		if (pthread_create(&t, NULL, interrupt_later, &interrupt) != 0)
			_exit(9);
		work();
	}
	return wait_child_bounded(pid);
}

/*
 * A second interrupt that lands while the C library holds a lock of its
 * own. The old stop joined its writer and freed its memory there, and
 * waited on the lock for ever: in 13 and 15 of 20 of these runs (a
 * stack's join, malloc) on the old library. Each must end at once, its
 * trace complete or said incomplete, never damaged: the stop at exit takes
 * no lock of the C library (the writer writes the file's end itself, is
 * not joined, and nothing is freed).
 */
START_TEST(exit_from_a_signal_in_the_c_library_never_hangs)
{
	void (*const works[])(void) = { join_big_stacks, malloc_and_free };

	tu_path(path, sizeof path, "interrupt-in-libc");
	for (int round = 0; round < 24; round++) {
		struct tu_summary s;
		int work = round % 2;
		unsigned after_us = 397u * (unsigned)round; /* 0 to 9 ms into the join, or malloc */

		ck_assert_msg(interrupted_child(path, works[work], after_us) == 1,
			      "round %d (%s, %u us): the child did not end at once", round,
			      work ? "malloc" : "pthread_join", after_us);
		ck_assert_int_eq(tu_summarize(path, &s), 0);
		ck_assert_int_eq(s.end_rc, 0); /* ends at a record's end: never damaged */
		if (s.trace_end_last) /* complete: every mark in, or said dropped */
			ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK] + s.dropped_noted, 1000);
		unlink(path);
	}
}
END_TEST
#endif /* GLIBC_LOCKS */

static Suite *make_suite(void)
{
	Suite *s = suite_create("lifecycle");
	TCase *tc = tcase_create("sessions");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, repeated_start_stop);
	tcase_add_test(tc, stop_gives_ring_memory_back);
	tcase_add_test(tc, a_large_ring_is_on_huge_pages_where_given);
	tcase_add_test(tc, fork_child_leaves_parent_file_alone);
#ifndef __SANITIZE_THREAD__
	/*
	 * ThreadSanitizer cannot start a thread in the child of a threaded
	 * process ("dup thread with used id", exit 66); the plain and ASan
	 * builds run this test.
	 */
	tcase_add_test(tc, fork_child_traces_its_own_file);
#endif
	tcase_add_test(tc, fork_while_threads_emit);
	tcase_add_test(tc, exit_without_stop_completes_the_file);
	tcase_add_test(tc, exit_from_a_signal_while_stopping_never_hangs);
	tcase_add_test(tc, exit_from_a_signal_in_an_inner_lock_never_hangs);
	tcase_add_test(tc, exit_while_another_thread_holds_the_registry_ends);
#ifdef GLIBC_LOCKS
	tcase_add_test(tc, exit_from_a_signal_in_the_c_library_never_hangs);
#endif
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
