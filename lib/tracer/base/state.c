/*
 * The session-wide state (see base.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "tracer/base/base.h"

unsigned int ggmlviz__mask;

struct ggmlviz__state ggmlviz__state = {
	.ring_bytes = 65536u * GGMLVIZ__EVENT_BYTES,
	.ring_max_bytes = 65536u * GGMLVIZ__EVENT_BYTES,
	.op_sample = 1,
};
