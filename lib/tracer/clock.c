/*
 * The tracer's clock (see clock.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "clock.h"

void ggmlviz__clock_init(void)
{
	struct timespec rt;
	uint64_t mono = ggmlviz__monotonic_ns();

	clock_gettime(CLOCK_REALTIME, &rt);
	ggmlviz__state.clock_offset =
		(uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec - mono;
}
