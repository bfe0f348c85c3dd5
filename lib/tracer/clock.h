/*
 * The tracer's clock: one function, so that a faster clock can replace it.
 *
 * Timestamps are nanoseconds since the Unix epoch, taken from the
 * monotonic clock plus an offset fixed once per process (at the first
 * ggmlviz_start()): they never go backwards within a process, and traces of
 * several processes of one machine line up.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_CLOCK_H
#define GGMLVIZ_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "state.h"

/* Fixes the offset of the monotonic clock from the realtime clock. */
void ggmlviz__clock_init(void);

static inline uint64_t ggmlviz__monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t ggmlviz__now_ns(void)
{
	return ggmlviz__monotonic_ns() + ggmlviz__state.clock_offset;
}

#endif /* GGMLVIZ_CLOCK_H */
