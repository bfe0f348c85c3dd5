/*
 * The trace's time: each event's timestamp lies between the clock's reads
 * around its emit call (paced and in a burst), the trace says which clock
 * stamped it (META CLOCK) and the process's CPU use while it ran (META
 * USAGE); the writer's offsets convert as their stamps would.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check-compat.h"
#include "trace-util.h"
#include "tracer/base/clock.h"

static char path[4096];

static void start_with(struct ggmlviz_config *cfg)
{
	ck_assert_int_eq(ggmlviz_start(cfg), 0);
	ck_assert_int_eq(ggmlviz_is_active(), 1);
}

/* Each MARK's value is its index; its time must lie between the realtime
 * clock read just before and just after it. */
#define MARKS 40
#define BURST 20000
static uint64_t mark_before[BURST], mark_after[BURST];
static uint64_t marks_checked; /* how many of mark_before/after hold marks */
static uint64_t last_mark_ts;  /* of the mark read before: marks come in order */

static int check_mark_time(const struct ggmlviz_event *ev, void *arg)
{
	int *checked = arg;
	uint64_t i = ev->data.user.value;
	const uint64_t slack = 100000; /* 100 us: two clocks read one after the other */

	if (ev->type != GGMLVIZ_EVENT_MARK)
		return 0;
	ck_assert_uint_lt(i, marks_checked);
	ck_assert_uint_eq(i, (uint64_t)*checked);
	ck_assert_msg(i == 0 || ev->timestamp_ns >= last_mark_ts, "mark %llu before mark %llu",
		      (unsigned long long)i, (unsigned long long)i - 1);
	last_mark_ts = ev->timestamp_ns;
	ck_assert_msg(ev->timestamp_ns + slack >= mark_before[i] &&
		      ev->timestamp_ns <= mark_after[i] + slack,
		      "mark %llu at %llu, outside [%llu, %llu]", (unsigned long long)i,
		      (unsigned long long)ev->timestamp_ns, (unsigned long long)mark_before[i],
		      (unsigned long long)mark_after[i]);
	(*checked)++;
	return 0;
}

/* A session whose writer passes every flush_ms, for n marks. */
static void start_marks(const char *name, uint32_t flush_ms, uint64_t n)
{
	struct ggmlviz_config cfg;

	tu_path(path, sizeof path, name);
	tu_config(&cfg, path);
	cfg.flush_interval_ms = flush_ms;
	marks_checked = n;
	start_with(&cfg);
}

/* Mark i, between two reads of the realtime clock. */
static void clocked_mark(int i)
{
	mark_before[i] = tu_realtime_ns();
	ggmlviz_mark("tick", (uint64_t)i);
	mark_after[i] = tu_realtime_ns();
}

/* Stops, and checks the n marks of the session against the clock (check_mark_time). */
static void stop_and_check_marks(int n)
{
	int checked = 0;

	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each(path, check_mark_time, &checked), 0);
	ck_assert_int_eq(checked, n);
	unlink(path);
}

START_TEST(timestamps_follow_the_clock)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };

	/* marks 10 ms apart over many writer passes (2 ms each): every one of
	 * them converted by the points taken between, against the realtime clock */
	start_marks("clock", 2, MARKS);
	for (int i = 0; i < MARKS; i++) {
		clocked_mark(i);
		nanosleep(&pause, NULL);
	}
	stop_and_check_marks(MARKS);
}
END_TEST

/*
 * Marks close together while the writer passes every millisecond: a
 * pass converts runs of stamps at one rate (clock.h), and a run crosses the
 * calibration points taken between passes; every mark in order and between
 * the realtime clock read around it. 2 us apart: 40 ms, some 40 passes.
 */
START_TEST(burst_timestamps_follow_the_clock)
{
	start_marks("burst", 1, BURST);
	for (int i = 0; i < BURST; i++) {
		clocked_mark(i);
		while (tu_realtime_ns() < mark_before[i] + 2000)
			;
	}
	stop_and_check_marks(BURST);
}
END_TEST

/* What the META CLOCK record said. */
struct clock_said {
	int n;
	uint64_t key, hz;
	char label[256];
};

static int clock_fn(const struct ggmlviz_event *ev, void *arg)
{
	struct clock_said *c = arg;

	if (ev->type != GGMLVIZ_EVENT_META || ev->data.meta.kind != GGMLVIZ_META_CLOCK)
		return 0;
	c->n++;
	c->key = ev->data.meta.key;
	c->hz = ev->data.meta.value;
	snprintf(c->label, sizeof c->label, "%.*s", (int)ev->label_len, ev->label ? ev->label : "");
	return 0;
}

/* The META USAGE records of a trace: how many, where, their figures in order. */
struct usage_said {
	int n, after_clock, before_end, grows, tid_ok;
	uint32_t tid;
	uint64_t invol, cpu_ns, vol, last_offset, end_offset, first_cpu_ns;
	int clock_seen;
};

static int usage_fn(const struct ggmlviz_event *ev, void *arg)
{
	struct usage_said *u = arg;

	if (ev->type != GGMLVIZ_EVENT_META)
		return 0;
	if (ev->data.meta.kind == GGMLVIZ_META_CLOCK)
		u->clock_seen = 1;
	if (ev->data.meta.kind == GGMLVIZ_META_TRACE_END)
		u->end_offset = ev->offset;
	if (ev->data.meta.kind != GGMLVIZ_META_USAGE)
		return 0;
	if (u->n++ == 0)
		u->after_clock = u->clock_seen, u->grows = 1, u->tid_ok = ev->thread_id == u->tid,
		u->first_cpu_ns = ev->data.meta.value;
	else
		u->grows &= ev->data.meta.key >= u->invol && ev->data.meta.value >= u->cpu_ns &&
			    ev->data.meta.value2 >= u->vol;
	u->invol = ev->data.meta.key, u->cpu_ns = ev->data.meta.value, u->vol = ev->data.meta.value2;
	u->last_offset = ev->offset;
	return 0;
}

/* Spins for about ms of CPU time. */
static void spin_cpu_ms(unsigned ms)
{
	struct timespec t0, t;
	volatile uint64_t x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x = x + (uint64_t)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/*
 * The trace says the process's CPU use: META USAGE right after CLOCK, in
 * every pass that writes records a flush interval or more after the last
 * one, and right before TRACE_END; its counts never fall, and the CPU time
 * spent between the first and the last is in them. Each mark waits for the
 * pass that writes it, 30 ms after the one before: a machine busy enough
 * to hold the writer back (a loaded run saw 2 USAGE records, when the marks
 * only slept) makes the test slower, not wrong.
 */
START_TEST(the_trace_says_its_cpu_use)
{
	struct ggmlviz_config cfg;
	struct usage_said u = { .tid = tu_gettid() };
	struct timespec gap = { 0, 30 * 1000000 };
	struct ggmlviz_stats st;

	tu_path(path, sizeof path, "usage-said");
	tu_config(&cfg, path);
	cfg.flush_interval_ms = 20;
	start_with(&cfg);
	for (int i = 0; i < 12; i++) {
		nanosleep(&gap, NULL);
		ggmlviz_get_stats(&st);
		ggmlviz_mark("x", (uint64_t)i);
		spin_cpu_ms(5);
		tu_wait_written_past(st.written);
	}
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each(path, usage_fn, &u), 0);
	ck_assert_msg(u.n >= 14, "%d USAGE records: not one for each of 12 passes 30 ms apart", u.n);
	ck_assert(u.after_clock && u.grows && u.tid_ok);
	ck_assert_uint_eq(u.last_offset + GGMLVIZ_RECORD_SIZE, u.end_offset);
	ck_assert_uint_ge(u.cpu_ns - u.first_cpu_ns, 60u * 1000000u); /* the 60 ms spun, at the least */
	ck_assert_str_eq(ggmlviz_meta_kind_name(GGMLVIZ_META_USAGE), "USAGE");
	unlink(path);
}
END_TEST

/* Whether this CPU says its time-stamp counter is invariant (what the tracer asks). */
static int tsc_invariant(void)
{
#if defined(__x86_64__)
	unsigned a = 0x80000000u, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	if (a < 0x80000007u)
		return 0;
	a = 0x80000007u, c = 0;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return (d >> 8) & 1;
#else
	return 0;
#endif
}

/* The trace says which clock stamped it, in one META CLOCK record after PROCESS. */
START_TEST(the_trace_says_its_clock)
{
	struct ggmlviz_config cfg;
	struct clock_said c = { 0 };

	tu_path(path, sizeof path, "clock-said");
	tu_config(&cfg, path);
	start_with(&cfg);
	ggmlviz_mark("x", 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each(path, clock_fn, &c), 0);
	ck_assert_int_eq(c.n, 1);
	if (tsc_invariant()) {
		ck_assert_uint_eq(c.key, GGMLVIZ_CLOCK_TSC);
		ck_assert_uint_gt(c.hz, 100000000u); /* a TSC of 100 MHz or more */
		ck_assert_uint_lt(c.hz, 10000000000u);
		ck_assert_msg(strstr(c.label, "invariant time-stamp counter") &&
				      strstr(c.label, "GHz"), "%s", c.label);
	} else {
		ck_assert_uint_eq(c.key, GGMLVIZ_CLOCK_MONOTONIC);
		ck_assert_uint_eq(c.hz, 1000000000u);
		ck_assert_ptr_nonnull(strstr(c.label, "clock_gettime"));
	}
	ck_assert_str_eq(ggmlviz_meta_kind_name(GGMLVIZ_META_CLOCK), "CLOCK");
	unlink(path);
}
END_TEST

/* xorshift64: the same draws on every run, so that a failure repeats. */
static uint64_t draw(uint64_t *x, unsigned bits)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return bits >= 64 ? *x : *x >> (64 - bits);
}

/*
 * The writer converts a packed body's offsets with one multiply each
 * (ggmlviz__clock_offset_ns): each must be exactly the difference of the
 * two stamps' own conversions, to the nanosecond, for stretches of any
 * rate (an eighth of a ns a tick to 8, and clock_gettime's 1) and offsets
 * from one tick to the stretch's end.
 */
START_TEST(an_offset_converts_as_its_stamp_would)
{
	uint64_t x = 0x9e3779b97f4a7c15u;

	for (int i = 0; i < 200000; i++) {
		uint64_t from = draw(&x, 62), extent = 1 + draw(&x, 1 + (unsigned)(i % 44));
		struct ggmlviz__clock_span s = { from, from + extent, draw(&x, 62),
						 i % 7 ? ((uint64_t)1 << 29) + draw(&x, 35)
						       : (uint64_t)1 << 32 };
		uint64_t stamp = from + draw(&x, 64) % extent;
		struct ggmlviz__clock_offsets o = ggmlviz__clock_offsets_from(&s, stamp);
		uint64_t d = i % 5 ? draw(&x, 64) % o.near : o.near - 1;
		uint64_t want = ggmlviz__clock_span_ns(&s, stamp + d) -
				ggmlviz__clock_span_ns(&s, stamp);

		ck_assert_uint_eq(o.near, s.to - stamp);
		ck_assert_msg(ggmlviz__clock_offset_ns(&o, d) == want,
			      "draw %d: offset %llu from %llu in [%llu, %llu) at %llu/2^32: "
			      "%llu ns, not %llu", i, (unsigned long long)d,
			      (unsigned long long)stamp, (unsigned long long)s.from,
			      (unsigned long long)s.to, (unsigned long long)s.mult,
			      (unsigned long long)ggmlviz__clock_offset_ns(&o, d),
			      (unsigned long long)want);
	}
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("time and CPU use");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, timestamps_follow_the_clock);
	tcase_add_test(tc, burst_timestamps_follow_the_clock);
	tcase_add_test(tc, the_trace_says_its_clock);
	tcase_add_test(tc, the_trace_says_its_cpu_use);
	tcase_add_test(tc, an_offset_converts_as_its_stamp_would);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
