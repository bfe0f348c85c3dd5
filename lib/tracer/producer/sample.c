/*
 * Op sampling (see producer.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>

#include "tracer/base/base.h"
#include "tracer/producer/producer.h"

struct unit {
	uint64_t session; /* the session these counts belong to */
	uint32_t depth;   /* units open on this thread */
	uint32_t left;    /* units to leave out before the next one timed */
	int out;          /* the open unit is left out */
};

static _Thread_local struct unit unit __attribute__((tls_model("initial-exec")));

void ggmlviz__unit_begin(void)
{
	uint64_t session = atomic_load_explicit(&ggmlviz__state.session, memory_order_relaxed);
	uint32_t every = ggmlviz__state.op_sample;

	if (unit.session != session)
		unit = (struct unit){ .session = session };
	if (unit.depth++ > 0)
		return; /* a graph inside a step: the step decides */
	unit.out = unit.left != 0;
	if (unit.out)
		unit.left--;
	else
		unit.left = every > 1 ? every - 1 : 0;
}

void ggmlviz__unit_end(void)
{
	if (unit.depth > 0 && --unit.depth == 0)
		unit.out = 0;
}

int ggmlviz__unit_sampled(void)
{
	uint64_t session = atomic_load_explicit(&ggmlviz__state.session, memory_order_relaxed);

	return unit.session != session || !unit.out;
}
