/*
 * The tracer's clock (see clock.h): the choice of the time-stamp counter,
 * and its calibration points against CLOCK_MONOTONIC.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <ggmlviz/format.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

#include "tracer/base/clock.h"

/*
 * The latest calibration points, oldest first, each with the rate to the
 * next as a 32.32 fixed-point multiplier; written and read by one thread at
 * a time: start, before the writer's thread exists, then the writer.
 */
#define POINTS 128
static struct {
	uint64_t stamp[POINTS], ns[POINTS], mult[POINTS];
	unsigned n, newest;
	unsigned seg; /* the segment used last: stamps come in order */
} cal;

__extension__ typedef unsigned __int128 ggmlviz__u128;

/* Stamps per nanosecond, measured once at init (written before any other thread reads it). */
static double init_rate = 1.0;

unsigned ggmlviz__clock_share_shift;

/*
 * The same over the whole history (up to 128 points, the writer's passes
 * apart), as a double's bits: written by the calibrating thread, read by
 * any. Where 200 us at init give a rate within some 1e-4, a second of
 * history gives one within 1e-7: what a span of seconds needs.
 */
static _Atomic uint64_t history_rate_bits;

/* An invariant TSC: cpuid 0x80000007, EDX bit 8 ("constant and nonstop"). */
static int invariant_tsc(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	return (d >> 8) & 1;
#else
	return 0;
#endif
}

/* The point at index i of the history (0 = oldest). */
static unsigned point(unsigned i)
{
	return (cal.newest + POINTS + 1 - cal.n + i) % POINTS;
}

/* The rate from the oldest point kept to the newest, for ggmlviz__clock_stamps_per_ns(). */
static void store_history_rate(void)
{
	unsigned oldest = point(0);
	double rate;
	uint64_t bits;

	if (cal.n < 2 || cal.ns[cal.newest] - cal.ns[oldest] < 1000000)
		return; /* under a millisecond: init's rate is as good */
	rate = (double)(cal.stamp[cal.newest] - cal.stamp[oldest]) /
	       (double)(cal.ns[cal.newest] - cal.ns[oldest]);
	memcpy(&bits, &rate, sizeof bits);
	atomic_store_explicit(&history_rate_bits, bits, memory_order_relaxed);
}

void ggmlviz__clock_calibrate(void)
{
	uint64_t stamp = 0, ns = 0, width = UINT64_MAX;
	unsigned at = cal.n ? (cal.newest + 1) % POINTS : 0, prev = cal.newest;

	/* the narrowest of 3 reads: a thread preempted between the two clocks would skew the point */
	for (int i = 0; i < 3; i++) {
		uint64_t s0 = ggmlviz__stamp(), t = ggmlviz__monotonic_ns(), s1 = ggmlviz__stamp();

		if (s1 - s0 < width)
			width = s1 - s0, stamp = s0 / 2 + s1 / 2, ns = t;
	}
	if (cal.n && (stamp <= cal.stamp[prev] || ns < cal.ns[prev]))
		return; /* no time passed since the last point */
	cal.stamp[at] = stamp;
	cal.ns[at] = ns;
	cal.mult[at] = cal.n ? cal.mult[prev] : 0; /* until a later point says */
	if (cal.n)
		cal.mult[prev] = (uint64_t)(((ggmlviz__u128)(ns - cal.ns[prev]) << 32) /
					    (stamp - cal.stamp[prev]));
	if (cal.n == 1)
		cal.mult[at] = cal.mult[prev];
	cal.newest = at;
	cal.n += cal.n < POINTS;
	cal.seg = cal.n - 1;
	store_history_rate();
}

void ggmlviz__clock_init(void)
{
	struct timespec rt;
	uint64_t mono = ggmlviz__monotonic_ns(), until;

	clock_gettime(CLOCK_REALTIME, &rt);
	ggmlviz__state.clock_offset =
		(uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec - mono;
	ggmlviz__state.use_tsc = invariant_tsc();
	if (!ggmlviz__state.use_tsc)
		return;
	/* two points 200 us apart: a first rate, for stamps past the newest point */
	ggmlviz__clock_calibrate();
	for (until = ggmlviz__monotonic_ns() + 200000; ggmlviz__monotonic_ns() < until;)
		;
	ggmlviz__clock_calibrate();
	if (cal.n >= 2 && cal.ns[point(1)] > cal.ns[point(0)])
		init_rate = (double)(cal.stamp[point(1)] - cal.stamp[point(0)]) /
			    (double)(cal.ns[point(1)] - cal.ns[point(0)]);
	/* 2^32 ns in 32 bits of stamps >> shift, with room for init's error (1e-4 at most) */
	while (ggmlviz__clock_share_shift < 8 &&
	       (double)(1u << ggmlviz__clock_share_shift) < init_rate * 1.01)
		ggmlviz__clock_share_shift++;
}

__attribute__((noinline)) uint64_t ggmlviz__monotonic_ns_call(void)
{
	return ggmlviz__monotonic_ns();
}

double ggmlviz__clock_stamps_per_ns(void)
{
	uint64_t bits = atomic_load_explicit(&history_rate_bits, memory_order_relaxed);
	double rate;

	if (!bits)
		return init_rate;
	memcpy(&rate, &bits, sizeof rate);
	return rate;
}

/*
 * The multiplier for stamps before the oldest point kept (a share begun
 * longer ago than the history reaches: a long graph's first ones): the
 * history's rate, the best measured over the longest time; the oldest
 * segment's while there is no history.
 */
static uint64_t before_mult(void)
{
	uint64_t bits = atomic_load_explicit(&history_rate_bits, memory_order_relaxed);
	double rate;

	if (!bits)
		return cal.mult[point(0)];
	memcpy(&rate, &bits, sizeof rate);
	return rate > 0 ? (uint64_t)(4294967296.0 / rate) : cal.mult[point(0)];
}

/* ns of stamp from point p on, at p's rate (before the oldest point: backwards from it). */
static uint64_t from_point(unsigned p, uint64_t stamp)
{
	if (stamp >= cal.stamp[p])
		return cal.ns[p] + (uint64_t)(((ggmlviz__u128)(stamp - cal.stamp[p]) * cal.mult[p]) >> 32);
	return cal.ns[p] - (uint64_t)(((ggmlviz__u128)(cal.stamp[p] - stamp) * before_mult()) >> 32);
}

/* The history index of the segment [i, i + 1] holding stamp (the last one past the newest). */
static unsigned segment(uint64_t stamp)
{
	unsigned i = cal.seg;

	if (i + 1 < cal.n && stamp >= cal.stamp[point(i)] && stamp < cal.stamp[point(i + 1)])
		return i; /* the same as last time: the common case */
	for (i = cal.n - 1; i > 0 && stamp < cal.stamp[point(i)]; i--)
		;
	cal.seg = i;
	return i;
}

uint64_t ggmlviz__clock_to_ns(uint64_t stamp)
{
	if (!ggmlviz__state.use_tsc)
		return stamp + ggmlviz__state.clock_offset;
	return from_point(point(segment(stamp)), stamp) + ggmlviz__state.clock_offset;
}

void ggmlviz__clock_span_of(uint64_t stamp, struct ggmlviz__clock_span *s)
{
	unsigned i, p;

	if (!ggmlviz__state.use_tsc) {
		*s = (struct ggmlviz__clock_span){ 0, UINT64_MAX, ggmlviz__state.clock_offset,
						   (uint64_t)1 << 32 };
		return;
	}
	i = segment(stamp);
	p = point(i);
	if (stamp < cal.stamp[p]) { /* before the oldest point: up to it, at the history's rate */
		*s = (struct ggmlviz__clock_span){ stamp, cal.stamp[p], ggmlviz__clock_to_ns(stamp),
						   before_mult() };
		return;
	}
	s->from = cal.stamp[p];
	s->to = i + 1 < cal.n ? cal.stamp[point(i + 1)] : UINT64_MAX;
	s->base_ns = cal.ns[p] + ggmlviz__state.clock_offset;
	s->mult = cal.mult[p];
}

uint32_t ggmlviz__clock_describe(uint64_t *hz, char *buf, size_t size)
{
	if (!ggmlviz__state.use_tsc) {
		*hz = 1000000000u;
		snprintf(buf, size, "clock_gettime(CLOCK_MONOTONIC), 1 ns: the CPU does not say that "
			 "its time-stamp counter is invariant (CPUID 0x80000007, EDX bit 8; a virtual "
			 "machine may hide it), so each record costs a clock_gettime()");
		return GGMLVIZ_CLOCK_MONOTONIC;
	}
	*hz = (uint64_t)(init_rate * 1e9 + 0.5);
	snprintf(buf, size, "the CPU's invariant time-stamp counter, %.3f GHz, made nanoseconds "
		 "by calibration against CLOCK_MONOTONIC at every pass of the writer", init_rate);
	return GGMLVIZ_CLOCK_TSC;
}

const char *ggmlviz__clock_name(void)
{
	return ggmlviz__state.use_tsc ? "the CPU's invariant time-stamp counter" : "clock_gettime";
}
