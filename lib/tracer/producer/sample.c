/*
 * Op sampling (see producer.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>

#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/producer/producer.h"

struct unit {
	uint64_t session; /* the session these counts belong to */
	uint64_t begin;   /* the outermost unit's start (a raw stamp), in rolling mode */
	uint32_t depth;   /* units open on this thread */
	uint32_t left;    /* units to leave out before the next one timed */
	int out;          /* the open unit is left out */
};

static _Thread_local struct unit unit __attribute__((tls_model("initial-exec")));

/* The calling thread's units, reset when a new session began since. */
static struct unit *unit_now(void)
{
	uint64_t session = atomic_load_explicit(&ggmlviz__state.session, memory_order_relaxed);

	if (unit.session != session)
		unit = (struct unit){ .session = session };
	return &unit;
}

void ggmlviz__unit_begin(void)
{
	struct unit *u = unit_now();
	uint32_t every = ggmlviz__op_sample();

	if (u->depth++ > 0)
		return; /* a graph inside a step: the step decides */
	u->out = u->left != 0;
	if (u->out)
		u->left--;
	else
		u->left = every > 1 ? every - 1 : 0;
	if (ggmlviz__rolling())
		u->begin = ggmlviz__stamp();
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

int ggmlviz__unit_open(void)
{
	return unit_now()->depth > 0;
}

int ggmlviz__unit_staged(void)
{
	return ggmlviz__rolling() && unit_now()->depth > 0;
}

int ggmlviz__unit_closing(void)
{
	struct unit *u = unit_now();
	uint64_t slow = ggmlviz__op_slow_stamps();

	if (!ggmlviz__rolling() || u->depth == 0)
		return 0;
	if (u->depth > 1)
		return 1; /* inside an outer unit: its END is held too */
	ggmlviz__stage_flush(!u->out || (slow && ggmlviz__stamp() - u->begin >= slow));
	return 0;
}
