/*
 * The tracer's clock.
 *
 * Records are stamped on the emit path with a raw stamp: the CPU's
 * time-stamp counter where it is invariant (x86-64, cpuid; about a third of
 * the cost of clock_gettime), else CLOCK_MONOTONIC in nanoseconds; chosen
 * once per process. The writer turns raw stamps into nanoseconds since the
 * Unix epoch before the records reach the file (ggmlviz__clock_to_ns), by
 * calibration points it takes against CLOCK_MONOTONIC at every pass: a
 * stamp between two points is placed by linear interpolation, so the file
 * keeps nanoseconds that never go backwards within a thread and line up
 * with other processes.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_CLOCK_H
#define GGMLVIZ_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "tracer/base/base.h"

/* Chooses the clock and fixes the offset of CLOCK_MONOTONIC from the
 * realtime clock; once per process. */
void ggmlviz__clock_init(void);

/* A calibration point: the stamp and CLOCK_MONOTONIC now (start before the writer runs, then the writer). */
void ggmlviz__clock_calibrate(void);

/* Nanoseconds since the Unix epoch of a raw stamp. */
uint64_t ggmlviz__clock_to_ns(uint64_t stamp);

/*
 * A stretch of stamps that convert at one rate: [from, to) gives
 * base_ns + (stamp - from) * mult / 2^32, nanoseconds since the epoch. The
 * writer finds one per run of records and converts the rest of the run
 * with a multiply, since stamps of one thread come in order.
 */
struct ggmlviz__clock_span {
	uint64_t from, to, base_ns, mult;
};

/* The stretch that holds stamp. */
void ggmlviz__clock_span_of(uint64_t stamp, struct ggmlviz__clock_span *s);

/* Nanoseconds since the epoch of a stamp in [s->from, s->to). */
static inline uint64_t ggmlviz__clock_span_ns(const struct ggmlviz__clock_span *s, uint64_t stamp)
{
	__extension__ typedef unsigned __int128 u128;

	return s->base_ns + (uint64_t)(((u128)(stamp - s->from) * s->mult) >> 32);
}

/*
 * Differences of nanoseconds from one stamp of a stretch to later ones in
 * it, each one multiply: with (stamp - from) * mult = q * 2^32 + frac,
 * ns(stamp + d) - ns(stamp) is exactly (frac + d * mult) >> 32, for every
 * d < near (stamp + d still in the stretch). The writer converts a packed
 * body's offsets so (span.c), each as its own stamp would convert.
 */
struct ggmlviz__clock_offsets {
	uint64_t near, mult, frac;
};

/* The offsets from stamp, which s holds. */
static inline struct ggmlviz__clock_offsets
ggmlviz__clock_offsets_from(const struct ggmlviz__clock_span *s, uint64_t stamp)
{
	__extension__ typedef unsigned __int128 u128;
	u128 product = (u128)(stamp - s->from) * s->mult;

	return (struct ggmlviz__clock_offsets){ s->to - stamp, s->mult,
						(uint64_t)product & 0xffffffffu };
}

/* ns(stamp + d) - ns(stamp) for d < o->near. */
static inline uint64_t ggmlviz__clock_offset_ns(const struct ggmlviz__clock_offsets *o, uint64_t d)
{
	__extension__ typedef unsigned __int128 u128;

	return (uint64_t)(((u128)d * o->mult + o->frac) >> 32);
}

/*
 * A 32-bit difference of stamps that must reach 2^32 ns (an OP_SHARE's
 * compute and wait: 4.29 s) holds the difference shifted right by this
 * much (0 for clock_gettime's nanoseconds; 2 for a TSC of 2 to 4 GHz),
 * fixed at init: the writer shifts it back before it converts it.
 */
extern unsigned ggmlviz__clock_share_shift __attribute__((visibility("hidden")));

/* Raw stamps per nanosecond (1 for clock_gettime's): at init, then over the calibration
 * history the writer keeps; any thread, no lock. */
double ggmlviz__clock_stamps_per_ns(void);

/* Which clock stamps records: "the CPU's invariant time-stamp counter" or "clock_gettime". */
const char *ggmlviz__clock_name(void);

/*
 * What META CLOCK says of it: its enum ggmlviz_clock, ticks per second
 * (init's measure for the TSC), and in words into buf; the kind.
 */
uint32_t ggmlviz__clock_describe(uint64_t *hz, char *buf, size_t size);

static inline uint64_t ggmlviz__monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds since the Unix epoch, now (off the emit path). */
static inline uint64_t ggmlviz__now_ns(void)
{
	return ggmlviz__monotonic_ns() + ggmlviz__state.clock_offset;
}

/*
 * ggmlviz__monotonic_ns(), out of line: the stamp's fallback, kept out of
 * its callers so that a caller whose clock is the counter keeps no
 * timespec on its stack (a share's call would set up a frame for it).
 */
uint64_t ggmlviz__monotonic_ns_call(void);

/* The raw stamp of a record, now: the emit path's clock. */
static inline uint64_t ggmlviz__stamp(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (__builtin_expect(ggmlviz__state.use_tsc, 1))
		return __builtin_ia32_rdtsc();
	return ggmlviz__monotonic_ns_call();
#else
	return ggmlviz__monotonic_ns();
#endif
}

#endif /* GGMLVIZ_CLOCK_H */
