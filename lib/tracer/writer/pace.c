/*
 * When the writer drains (see internal.h). The writer sleeps until the flush
 * interval ends, unless a producer rings: a ring passing its bell does,
 * once per about a megabyte of records, from its slow path. So a session
 * where nothing happens wakes the writer once per flush interval, and a
 * busy one drains while the bytes are still in the CPU's caches. A new
 * thread rings too, so that a pass makes room for its ring.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "tracer/base/clock.h"
#include "tracer/producer/producer.h"
#include "tracer/writer/internal.h"

int ggmlviz__pace_due(const struct ggmlviz__writer *w)
{
	int due = ggmlviz__monotonic_ns() - w->last_pass_ns >= w->flush_ns;
	size_t n = 0;

	ggmlviz__registry_lock();
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r && !due; r = r->next, n++)
		due = atomic_load_explicit(&r->head, memory_order_relaxed) -
				      atomic_load_explicit(&r->tail, memory_order_relaxed) >=
			      ggmlviz__ring_bell_step(r->cmask + 1) || /* the writer's view */
		      atomic_load_explicit(&r->exited, memory_order_relaxed);
	ggmlviz__registry_unlock();
	/* more rings than a pass has room for: a crash handler, which cannot grow it, needs it */
	return due || n > w->pass_cap;
}

void ggmlviz__pace_passed(struct ggmlviz__writer *w)
{
	w->last_pass_ns = ggmlviz__monotonic_ns();
}

uint64_t ggmlviz__pace_sleep(const struct ggmlviz__writer *w)
{
	uint64_t since = ggmlviz__monotonic_ns() - w->last_pass_ns;

	return since < w->flush_ns ? w->flush_ns - since : 1;
}
