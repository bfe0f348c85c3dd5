/*
 * The tracer under several threads: exact accounting, each thread's order
 * kept, losses reported where they happened, threads coming and going,
 * sessions stopped and started while threads keep emitting, and a new
 * thread's ring faulted in when it is made, not by its first lap.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "check-compat.h"
#include "trace-util.h"

#define THREADS 4
#define PER_THREAD 1000000u

static char path[4096];
static uint64_t last_peak; /* ring_bytes_peak of lossless()'s session */
static int pausing; /* producers pause now and then (struct producer) */
static uint64_t pace_per_ms; /* producers keep to this many marks a millisecond (0: no pace) */

/*
 * Each thread emits MARKs whose value is its sequence number 0, 1, 2, ...;
 * with `pause`, it sleeps 100 us after every 1000 (it lives long enough for
 * the writer to take its rate, and its ring to grow).
 */
struct producer {
	pthread_t th;
	uint32_t tid;
	uint64_t count;
	int pause;
	uint64_t per_ms; /* marks a millisecond at most (0: as fast as it can) */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* When set, producers wait here before they exit (their rings stay). */
static pthread_barrier_t *linger;
/* When set, producers then wait until it is 1: their rings live through the stop. */
static atomic_int *hold;

static void *produce(void *arg)
{
	struct producer *p = arg;

	uint64_t t0 = now_ns();

	p->tid = tu_gettid();
	for (uint64_t i = 0; i < p->count; i++) {
		ggmlviz_mark(NULL, i);
		if (p->pause && i % 1000 == 999)
			usleep(100);
		while (p->per_ms && i / p->per_ms >= (now_ns() - t0) / 1000000u)
			usleep(200); /* ahead of its pace */
	}
	if (linger)
		pthread_barrier_wait(linger);
	while (hold && !atomic_load(hold))
		usleep(1000);
	return NULL;
}

/*
 * From the tracer's messages (verbose, on the writer thread): how many
 * times a ring grew, to how many KiB at most, and whether a message did not
 * say "from X to Y KiB" with Y larger.
 */
static atomic_int grew, garbled, capped, short_of_hold;
/* The most a ring may grow to in the session watched, in KiB (0: not checked). */
static unsigned long ring_max_kib;
static atomic_ulong largest_kib;
/* Each thread's largest ring, in KiB (written by the writer thread only, read after the stop). */
static struct {
	unsigned tid;
	unsigned long kib;
} grown[64];

static void note_thread(unsigned tid, unsigned long kib)
{
	for (size_t i = 0; i < sizeof grown / sizeof grown[0]; i++)
		if (grown[i].tid == tid || grown[i].tid == 0) {
			grown[i].tid = tid;
			grown[i].kib = kib;
			return;
		}
}

/*
 * Whether a growth from `from` to `to` KiB that said "it records R MB/s"
 * gave the ring what it takes to hold 250 ms of that rate: that, or four
 * times its size (the most one growth takes), or the most it may be.
 */
static int holds_a_quarter_second(const char *said, unsigned long from, unsigned long to)
{
	double mb_per_s, wanted_kib;

	if (!ring_max_kib)
		return 1;
	if (!said || sscanf(said, "it records %lf MB/s", &mb_per_s) != 1)
		return 0;
	/* the rate is said to the nearest MB/s */
	wanted_kib = (mb_per_s - 0.5) * 1e6 * 0.25 / 1024;
	return to >= 4 * from || to >= ring_max_kib || (double)to >= wanted_kib;
}

static void count_growth(void *user, int level, const char *msg)
{
	const char *at = strstr(msg, "'s ring grows from ");
	unsigned long from, to;
	unsigned tid;

	(void)user;
	(void)level;
	if (strstr(msg, "the most they may"))
		atomic_fetch_add(&capped, 1);
	if (!at)
		return;
	atomic_fetch_add(&grew, 1);
	if (sscanf(msg, "thread %u's ring grows from %lu to %lu KiB", &tid, &from, &to) != 3 ||
	    from >= to) {
		atomic_fetch_add(&garbled, 1);
		return;
	}
	note_thread(tid, to);
	if (!holds_a_quarter_second(strstr(msg, "it records "), from, to))
		atomic_fetch_add(&short_of_hold, 1);
	if (to > atomic_load(&largest_kib)) /* one writer thread says them all */
		atomic_store(&largest_kib, to);
}

static int growths(void)
{
	return atomic_load(&grew);
}

static int growths_short_of_hold(void)
{
	return atomic_load(&short_of_hold);
}

static int garbled_messages(void)
{
	return atomic_load(&garbled);
}

static unsigned long largest_grown_kib(void)
{
	return atomic_load(&largest_kib);
}

static void watch_growth(struct ggmlviz_config *cfg)
{
	atomic_store(&grew, 0);
	atomic_store(&garbled, 0);
	atomic_store(&capped, 0);
	atomic_store(&short_of_hold, 0);
	ring_max_kib = 0;
	memset(grown, 0, sizeof grown);
	atomic_store(&largest_kib, 0);
	cfg->verbose = 1;
	cfg->log_fn = count_growth;
}

static void start_producers(struct producer *p, int n, uint64_t count)
{
	for (int i = 0; i < n; i++) {
		p[i].count = count;
		p[i].pause = pausing;
		p[i].per_ms = pace_per_ms;
		ck_assert_int_eq(pthread_create(&p[i].th, NULL, produce, &p[i]), 0);
	}
}

static void join_producers(struct producer *p, int n)
{
	for (int i = 0; i < n; i++)
		pthread_join(p[i].th, NULL);
}

static void run_producers(struct producer *p, int n, uint64_t count)
{
	start_producers(p, n, count);
	join_producers(p, n);
}

/*
 * Walks a thread's records in file order: each MARK must carry the next
 * sequence number, skipping exactly the losses the DROPPED records since
 * the previous MARK announced. Gaps that no DROPPED record explains, and
 * repeats, are errors.
 */
struct order {
	struct producer *p;
	int n;
	uint64_t next[THREADS];
	uint64_t announced[THREADS];
	uint64_t marks[THREADS];
	uint64_t errors;
};

static int thread_index(const struct order *o, uint32_t tid)
{
	for (int i = 0; i < o->n; i++)
		if (o->p[i].tid == tid)
			return i;
	return -1;
}

static int check_order(const struct ggmlviz_event *ev, void *arg)
{
	struct order *o = arg;
	int i = thread_index(o, ev->thread_id);

	if (i < 0)
		return 0;
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_DROPPED) {
		o->announced[i] += ev->data.meta.value;
	} else if (ev->type == GGMLVIZ_EVENT_MARK) {
		if (ev->data.user.value != o->next[i] + o->announced[i])
			o->errors++;
		o->next[i] = ev->data.user.value + 1;
		o->announced[i] = 0;
		o->marks[i]++;
	}
	return 0;
}

/*
 * Block mode: every event of every thread, in order; rings of `ring`
 * events, which may grow to `max` (0: the default, no growth in block mode).
 */
static void lossless(uint32_t ring, uint32_t max, uint64_t per_thread)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct producer p[THREADS];
	struct order o = { .p = p, .n = THREADS };

	tu_path(path, sizeof path, "lossless");
	tu_config(&cfg, path);
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	cfg.buffer_events = ring;
	cfg.buffer_events_max = max;
	watch_growth(&cfg);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	run_producers(p, THREADS, per_thread);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.emitted, THREADS * per_thread);
	ck_assert_uint_eq(st.written, THREADS * per_thread);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_eq(st.threads, THREADS);
	ck_assert_int_eq(tu_each(path, check_order, &o), 0);
	ck_assert_uint_eq(o.errors, 0);
	for (int i = 0; i < THREADS; i++) {
		ck_assert_uint_eq(o.marks[i], per_thread);
		ck_assert_uint_eq(o.next[i], per_thread);
	}
	if (max == 0)
		ck_assert_int_eq(growths(), 0);
	last_peak = st.ring_bytes_peak;
	unlink(path);
}

START_TEST(four_threads_lossless)
{
	lossless(65536, 0, PER_THREAD);
}
END_TEST

/* 1 KiB rings: every thread sleeps for room again and again, and is woken. */
START_TEST(four_threads_lossless_in_small_rings)
{
	lossless(16, 0, PER_THREAD / 10);
}
END_TEST

/*
 * Block mode, 1 KiB rings allowed to grow to 4 MiB: the threads move to
 * larger buffers while they emit (some while asleep for room), and still
 * every event arrives, in order: a record read from the wrong buffer, or
 * skipped at a move, breaks the order.
 */
START_TEST(lossless_while_rings_grow)
{
	pausing = 1;
	lossless(16, 65536, PER_THREAD / 4);
	pausing = 0;
	ck_assert_int_ge(growths(), THREADS);
	ck_assert_int_eq(garbled_messages(), 0);
	ck_assert_uint_le(largest_grown_kib(), 65536 * 64 / 1024);
	ck_assert_uint_ge(last_peak, largest_grown_kib() * 1024); /* the stats counted it */
}
END_TEST

/*
 * A session of cfg with THREADS producers of per_thread marks that may
 * lose some: every event written or dropped, each thread's marks in order
 * with every gap announced by a DROPPED record, and the file's end saying
 * the same. Leaves the stats in *st.
 */
static void run_lossy(struct ggmlviz_config *cfg, uint64_t per_thread, struct ggmlviz_stats *st)
{
	struct tu_summary s;
	struct producer p[THREADS];
	struct order o = { .p = p, .n = THREADS };
	uint64_t marks = 0;

	ck_assert_int_eq(ggmlviz_start(cfg), 0);
	run_producers(p, THREADS, per_thread);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(st);
	ck_assert_uint_eq(st->emitted, THREADS * per_thread);
	ck_assert_uint_eq(st->emitted, st->written + st->dropped);
	ck_assert_int_eq(tu_each(path, check_order, &o), 0);
	ck_assert_uint_eq(o.errors, 0);
	for (int i = 0; i < THREADS; i++) {
		/* what follows the last MARK was announced by the final DROPPED record */
		ck_assert_uint_eq(o.next[i] + o.announced[i], per_thread);
		marks += o.marks[i];
	}
	ck_assert_uint_eq(marks, st->written);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_uint_eq(s.dropped_noted, st->dropped);
	ck_assert_uint_eq(s.end_written, st->written);
	ck_assert_uint_eq(s.end_dropped, st->dropped);
	unlink(path);
}

START_TEST(four_threads_with_drops)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;

	tu_path(path, sizeof path, "drops");
	tu_config(&cfg, path);
	cfg.buffer_events = 16; /* 1 KiB rings: they overflow, however slow the machine */
	cfg.buffer_events_max = 16; /* and never grow */
	watch_growth(&cfg);
	run_lossy(&cfg, PER_THREAD, &st);
	ck_assert_uint_gt(st.dropped, 0);
	ck_assert_int_eq(growths(), 0);
	/* four rings of 1 KiB (and their slack, in pages), never more */
	ck_assert_uint_ge(st.ring_bytes_peak, THREADS * 1024);
	ck_assert_uint_lt(st.ring_bytes_peak, THREADS * 64 * 1024);
}
END_TEST

/*
 * Drop mode, 1 KiB rings that grow by default (up to 16 KiB) or to 4 MiB:
 * rings move to larger buffers again and again while their threads emit;
 * every event is written or dropped, each thread's marks in order with
 * every gap said, and the file's end agrees.
 */
START_TEST(rings_grow_while_threads_emit)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;

	pausing = 1;
	for (uint32_t max = 0; max <= 65536; max += 65536) {
		tu_path(path, sizeof path, "grow");
		tu_config(&cfg, path);
		cfg.buffer_events = 16;
		cfg.buffer_events_max = max;
		watch_growth(&cfg);
		run_lossy(&cfg, PER_THREAD / 4, &st);
		ck_assert_int_ge(growths(), THREADS);
		ck_assert_int_eq(garbled_messages(), 0);
		ck_assert_uint_ge(st.ring_bytes_peak, largest_grown_kib() * 1024);
		/* never past the most: 16 times the ring by default */
		ck_assert_uint_le(largest_grown_kib(), (max ? max : 16 * 16) * 64 / 1024);
	}
	pausing = 0;
}
END_TEST

/*
 * A thread that records about 30 MB/s for 3 s, from a ring of 1 KiB that
 * may grow to 16 MiB: each growth gives it what holds 250 ms of its rate
 * (or four times its size, or the most), so that a writer kept away for
 * that long loses none of it. Rings that held 50 ms lost the flight
 * recorder's records in an hour of llama-server (doc/performance.md): a
 * ring held to that grows from 1 to 2 MiB here, where 250 ms takes 8.
 */
START_TEST(a_busy_ring_grows_to_hold_a_quarter_second)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct producer p;

	tu_path(path, sizeof path, "hold");
	tu_config(&cfg, path);
	cfg.buffer_events = 16;
	cfg.buffer_events_max = 262144;
	watch_growth(&cfg);
	ring_max_kib = 262144 * 64 / 1024;
	pace_per_ms = 650;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	run_producers(&p, 1, 2000000);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	pace_per_ms = 0;
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.emitted, st.written + st.dropped);
	ck_assert_int_ge(growths(), 5);
	ck_assert_int_eq(garbled_messages(), 0);
	ck_assert_int_eq(growths_short_of_hold(), 0);
	unlink(path);
}
END_TEST

/*
 * Four rings of 20000 marks (920 KB each, under their bells), drained only
 * by the stop's pass, which writes them in batches of about a megabyte: a
 * ring's records split across batches, and max_events reached in the
 * third ring. Exactly 50000 written, in order, the rest dropped and said.
 */
START_TEST(max_events_across_batches)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;

	tu_path(path, sizeof path, "batches");
	tu_config(&cfg, path);
	cfg.flush_interval_ms = 60000;
	cfg.max_events = 50000;
	run_lossy(&cfg, 20000, &st);
	ck_assert_uint_eq(st.written, 50000);
}
END_TEST

/*
 * Eight busy threads, 1 KiB rings that may grow to 16 KiB each, all alive
 * until the session stops: together they grow by at most four times what
 * one may (60 KiB), which is said once. The budget bounds the rings'
 * memory at any time: a thread that ends gives its ring's growth back to
 * the others (so the test's sum of each ring's largest size holds only
 * while none ends: 72 KiB, once in 200 runs beside two busy loops, when
 * the threads ended before the stop).
 */
START_TEST(many_busy_threads_share_a_growth_budget)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct producer p[8];
	pthread_barrier_t all_done;
	atomic_int stopped = 0;
	unsigned long extra = 0;

	pthread_barrier_init(&all_done, NULL, 8 + 1);
	linger = &all_done;
	hold = &stopped;
	tu_path(path, sizeof path, "budget");
	tu_config(&cfg, path);
	cfg.buffer_events = 16;
	cfg.buffer_events_max = 256;
	watch_growth(&cfg);
	pausing = 1;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	start_producers(p, 8, PER_THREAD / 4);
	pthread_barrier_wait(&all_done); /* every producer done, none ended */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	atomic_store(&stopped, 1);
	join_producers(p, 8);
	pausing = 0;
	linger = NULL;
	hold = NULL;
	pthread_barrier_destroy(&all_done);
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.emitted, st.written + st.dropped);
	for (size_t i = 0; i < sizeof grown / sizeof grown[0] && grown[i].tid; i++)
		extra += grown[i].kib - 1;
	ck_assert_int_eq(garbled_messages(), 0);
	ck_assert_uint_le(extra, 4 * (16 - 1));
	ck_assert_uint_ge(extra, 3 * (16 - 1)); /* they did grow, to the budget's edge */
	ck_assert_int_eq(atomic_load(&capped), 1); /* said once */
	unlink(path);
}
END_TEST

/* 64 threads that live briefly, 8 at a time: every event arrives, every ring is freed. */
START_TEST(threads_come_and_go)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct tu_summary s;
	struct producer p[8];

	tu_path(path, sizeof path, "comings");
	tu_config(&cfg, path);
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	cfg.thread_tracking = 1;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	for (int round = 0; round < 8; round++)
		run_producers(p, 8, 5000);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.threads, 64);
	ck_assert_uint_eq(st.dropped, 0);
	/* each thread: THREAD_BEGIN, 5000 marks, THREAD_FREE */
	ck_assert_uint_eq(st.emitted, 64 * 5002);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 64 * 5000);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_THREAD_BEGIN], 64);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_THREAD_FREE], 64);
	ck_assert_uint_eq(s.by_meta[GGMLVIZ_META_THREAD_NAME], 64);
	unlink(path);
}
END_TEST

/*
 * Producers that never pause while the main thread stops and starts
 * sessions: rings resized, threads asleep for room at the stop, rings
 * stopped while they grow and given their session's size again.
 */
static atomic_int keep_going;

static void *produce_forever(void *arg)
{
	uint64_t i = 0;

	(void)arg;
	while (atomic_load_explicit(&keep_going, memory_order_relaxed)) {
		ggmlviz_mark("busy", i++);
		ggmlviz_op_begin((void *)(uintptr_t)i, 1, 2, NULL, "op");
		ggmlviz_op_end((void *)(uintptr_t)i, 1, 2, NULL, "op");
	}
	return NULL;
}

START_TEST(stop_and_start_under_load)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct tu_summary s;
	pthread_t th[THREADS];
	int growths_seen = 0;

	atomic_store(&keep_going, 1);
	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, produce_forever, NULL), 0);
	for (int round = 0; round < 20; round++) {
		tu_path(path, sizeof path, "restart");
		tu_config(&cfg, path);
		cfg.buffer_events = round % 2 ? 1024 : 4096; /* rings resized while their threads run */
		if (round % 4 >= 2) /* threads asleep for room when the stop comes */
			cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
		watch_growth(&cfg);
		ck_assert_int_eq(ggmlviz_start(&cfg), 0);
		/*
		 * drop mode, until a ring grows: stopped mid-growth, resized at the next
		 * start (a wait of 40 ms saw no ring grow in 7 runs of 10 on one CPU
		 * beside two busy loops: the rate is taken over 10 ms, from passes)
		 */
		if (round % 4 == 1)
			while (growths() == 0)
				usleep(1000);
		else
			usleep(5000);
		ck_assert_int_eq(ggmlviz_stop(), 0);
		growths_seen += growths();
		ggmlviz_get_stats(&st);
		ck_assert_uint_eq(st.emitted, st.written + st.dropped);
		ck_assert_uint_eq(st.queued, 0);
		ck_assert_int_eq(tu_summarize(path, &s), 0);
		ck_assert_int_eq(s.end_rc, 0);
		ck_assert_int_eq(s.trace_end_last, 1);
		ck_assert_uint_eq(s.end_written, st.written);
		ck_assert_uint_eq(s.dropped_noted, st.dropped);
		ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK] + s.by_type[GGMLVIZ_EVENT_OP_COMPUTE_BEGIN] +
					  s.by_type[GGMLVIZ_EVENT_OP_COMPUTE_END],
				  st.written);
		unlink(path);
	}
	atomic_store(&keep_going, 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_gt(growths_seen, 0);
}
END_TEST

/* A thread's minor page faults so far (RUSAGE_THREAD). */
static long thread_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

struct lap {
	int events;
	long faults; /* taken by the lap, after the first event */
};

static void *first_lap(void *arg)
{
	struct lap *l = arg;
	long before;

	ggmlviz_mark("first", 0); /* the ring made: mapped and faulted in */
	before = thread_faults();
	for (int i = 1; i < l->events; i++)
		ggmlviz_mark("lap", (uint64_t)i);
	l->faults = thread_faults() - before;
	return NULL;
}

/*
 * A new thread's ring is faulted in when it is made (its first event):
 * the emit path never takes a page fault on it, not even in its first lap
 * through a fresh ring (a ring mapped without them took one fault every 4
 * KiB there: about 1000 in this lap of 4 MiB).
 */
START_TEST(first_lap_takes_no_page_fault)
{
	struct ggmlviz_config cfg;
	struct lap l = { 0, 0 };
	pthread_t t;

	tu_path(path, sizeof path, "first-lap");
	tu_config(&cfg, path);
	cfg.buffer_events = 1u << 16; /* 4 MiB, kept at its size */
	cfg.buffer_events_max = cfg.buffer_events;
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	l.events = 60000; /* 60000 marks of 64 bytes: the ring's first lap */
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, first_lap, &l), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	/* (a sanitizer's shadow of the ring takes faults of its own: about 100 under ASan) */
	ck_assert_msg(l.faults < 32, "%ld page faults in the first lap", l.faults);
#endif
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("threads");
	TCase *tc = tcase_create("concurrent");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, four_threads_lossless);
	tcase_add_test(tc, four_threads_lossless_in_small_rings);
	tcase_add_test(tc, lossless_while_rings_grow);
	tcase_add_test(tc, four_threads_with_drops);
	tcase_add_test(tc, rings_grow_while_threads_emit);
	tcase_add_test(tc, many_busy_threads_share_a_growth_budget);
	tcase_add_test(tc, a_busy_ring_grows_to_hold_a_quarter_second);
	tcase_add_test(tc, max_events_across_batches);
	tcase_add_test(tc, threads_come_and_go);
	tcase_add_test(tc, stop_and_start_under_load);
	tcase_add_test(tc, first_lap_takes_no_page_fault);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
