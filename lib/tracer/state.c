/*
 * The session-wide state (see state.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "ring.h"
#include "state.h"

unsigned int ggmlviz__mask;

struct ggmlviz__state ggmlviz__state = {
	.ring_bytes = 65536u * GGMLVIZ__EVENT_BYTES,
	.ring_max_bytes = 65536u * GGMLVIZ__EVENT_BYTES,
	.op_sample = 1,
};

uint32_t ggmlviz__gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}
