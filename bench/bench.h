/*
 * Shared by the benchmarks: a clock, medians, and the cost of one
 * clock_gettime measured in the same run, so figures are quoted as ratios
 * on a shared, noisy machine.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_BENCH_H
#define GGMLVIZ_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n samples (sorts them). */
static inline double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Median, min and max of n samples (sorts them). */
struct bench_spread {
	double median, min, max;
};

static inline struct bench_spread bench_spread(double *v, size_t n)
{
	struct bench_spread s;

	s.median = bench_median(v, n);
	s.min = v[0];
	s.max = v[n - 1];
	return s;
}

/* The thread counts to measure: 1, 2 and every core (without repeats); returns how many. */
static inline int bench_thread_counts(int out[3], int all)
{
	int n = 0;

	out[n++] = 1;
	if (all >= 2)
		out[n++] = 2;
	if (all > 2)
		out[n++] = all;
	return n;
}

/* ns per clock_gettime(CLOCK_MONOTONIC): median of 7 runs of 1M calls. */
static inline double bench_clock_cost_ns(void)
{
	double s[7];
	volatile uint64_t sink = 0;

	for (int r = 0; r < 7; r++) {
		uint64_t t0 = bench_now_ns();
		for (int i = 0; i < 1000000; i++)
			sink += bench_now_ns();
		s[r] = (double)(bench_now_ns() - t0) / 1e6;
	}
	(void)sink;
	return bench_median(s, 7);
}

#endif
