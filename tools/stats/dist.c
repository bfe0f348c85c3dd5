/*
 * The log-bucketed duration histogram of agg.h. Bucket b < 64 holds the
 * value b; above, a value with its highest bit e (e >= 6) falls in the
 * bucket of its 5 bits below that one: 64 + 32 (e - 6) + those bits.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

#define SUB_BITS 5
#define EXACT 64u

static uint32_t bucket_of(uint64_t v)
{
	uint32_t e, top;

	if (v < EXACT)
		return (uint32_t)v;
	e = 63u - (uint32_t)__builtin_clzll(v);
	top = (uint32_t)(v >> (e - SUB_BITS)) & ((1u << SUB_BITS) - 1);
	return EXACT + (e - 6) * (1u << SUB_BITS) + top;
}

/* The middle of bucket b. */
static uint64_t bucket_middle(uint32_t b)
{
	uint32_t e, top;
	uint64_t width;

	if (b < EXACT)
		return b;
	e = (b - EXACT) / (1u << SUB_BITS) + 6;
	top = (b - EXACT) % (1u << SUB_BITS) + (1u << SUB_BITS);
	width = (uint64_t)1 << (e - SUB_BITS);
	return ((uint64_t)top << (e - SUB_BITS)) + (width - 1) / 2;
}

/*
 * Counter memory of every distribution of the command together (*d->spent): past it (thousands of
 * groups, each with durations over a huge range: hostile input), a
 * distribution grows no more, and values past its range count in its
 * first or last bucket, so that its percentiles are cruder.
 */
#define BUDGET ((uint64_t)64 << 20)

/* The bucket that counts b: b, or the nearest one held once over budget. */
static uint32_t held(const struct cli_dist *d, uint32_t b)
{
	if (b < d->lo)
		return d->lo;
	return b >= d->lo + d->n ? d->lo + d->n - 1 : b;
}

/* Makes the counters cover bucket b. */
static int cover(struct cli_dist *d, uint32_t b)
{
	uint32_t lo = d->n && d->lo < b ? d->lo : b;
	uint32_t hi = d->n && d->lo + d->n > b + 1 ? d->lo + d->n : b + 1;
	uint64_t *bigger;

	if (d->n && lo == d->lo && hi == d->lo + d->n)
		return 0;
	if (d->n && *d->spent + (hi - lo - d->n) * sizeof *bigger > BUDGET)
		return 1; /* over budget: b is counted in the nearest bucket held */
	bigger = calloc(hi - lo, sizeof *bigger);
	if (!bigger)
		return -ENOMEM;
	if (d->n)
		memcpy(bigger + (d->lo - lo), d->buckets, d->n * sizeof *bigger);
	free(d->buckets);
	*d->spent += (hi - lo - d->n) * sizeof *bigger;
	d->buckets = bigger;
	d->lo = lo;
	d->n = hi - lo;
	return 0;
}

int cli_dist_add(struct cli_dist *d, uint64_t v)
{
	uint32_t b = bucket_of(v);
	int rc = b < d->lo || b >= d->lo + d->n ? cover(d, b) : 0;

	if (rc < 0)
		return -ENOMEM;
	d->buckets[held(d, b) - d->lo]++;
	d->min = d->count > d->summed && d->min < v ? d->min : v;
	d->one_max = d->count > d->summed && d->one_max > v ? d->one_max : v;
	d->max = d->count && d->max > v ? d->max : v;
	d->count++;
	d->total += v;
	return 0;
}

void cli_dist_add_sum(struct cli_dist *d, uint64_t n, uint64_t total, uint64_t max)
{
	if (!n)
		return;
	d->max = d->count && d->max > max ? d->max : max;
	d->count += n;
	d->summed += n;
	d->total += total;
}

int cli_dist_merge(struct cli_dist *into, const struct cli_dist *from)
{
	uint64_t alone = from->count - from->summed; /* values in from's buckets */

	for (uint32_t i = 0; i < from->n; i++) {
		uint32_t b = from->lo + i;
		if (!from->buckets[i])
			continue;
		if ((b < into->lo || b >= into->lo + into->n) && cover(into, b) < 0)
			return -ENOMEM;
		into->buckets[held(into, b) - into->lo] += from->buckets[i];
	}
	if (alone) {
		bool had = into->count > into->summed;
		into->min = had && into->min < from->min ? into->min : from->min;
		into->one_max = had && into->one_max > from->one_max ? into->one_max : from->one_max;
	}
	if (from->count)
		into->max = into->count && into->max > from->max ? into->max : from->max;
	into->count += from->count;
	into->summed += from->summed;
	into->total += from->total;
	return 0;
}

uint64_t cli_dist_quantile(const struct cli_dist *d, double q)
{
	uint64_t n = d->count - d->summed; /* the values in the buckets */
	uint64_t rank = (uint64_t)ceil(q * (double)n), seen = 0, mid;
	uint32_t i;

	if (!n)
		return 0;
	rank = rank < 1 ? 1 : rank > n ? n : rank;
	if (rank == 1 || rank == n)
		return rank == 1 ? d->min : d->one_max; /* known exactly */
	for (i = 0; i + 1 < d->n && seen + d->buckets[i] < rank; i++)
		seen += d->buckets[i];
	mid = bucket_middle(d->lo + i);
	return mid < d->min ? d->min : mid > d->one_max ? d->one_max : mid;
}

void cli_dist_free(struct cli_dist *d)
{
	*d->spent -= d->n * sizeof *d->buckets;
	free(d->buckets);
	memset(d, 0, sizeof *d);
}
