/*
 * The session-wide state (see base.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "tracer/base/base.h"

unsigned int ggmlviz__mask;
extern unsigned int ggmlviz__mask_here __attribute__((alias("ggmlviz__mask"), visibility("hidden")));

struct ggmlviz__state ggmlviz__state = {
	.ring_bytes = 65536u * GGMLVIZ__EVENT_BYTES,
	.ring_max_bytes = 65536u * GGMLVIZ__EVENT_BYTES,
	.op_sample = 1,
};
