/*
 * When the writer drains: every flush interval at the latest, and as soon
 * as a ring fills past its drain target, which the writer notices by
 * looking at every ring's fill level each millisecond.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "clock.h"
#include "pace.h"
#include "registry.h"

#define MIN_SLEEP_NS 100000u
/*
 * The writer looks at every ring this often (a load of head and tail each,
 * no system call but its own sleep), so a ring filling after an idle spell
 * is drained long before it is full. Producers never wake the writer: that
 * would put a system call on the emit path.
 */
#define POLL_NS GGMLVIZ__POLL_NS
/*
 * Drain when a ring holds about this much, whatever its size: the bytes
 * are then still in the CPU's caches, and the copy to the page cache runs
 * several times faster than from memory (measured: bench/bench_tracer).
 */
#define DRAIN_TARGET_BYTES (1u << 20)

/* Bytes a ring may hold before a pass is due: DRAIN_TARGET_BYTES, or a quarter of it. */
static uint64_t drain_target(const struct ggmlviz__ring *r)
{
	uint64_t quarter = (r->mask + 1) / 4;

	return quarter < DRAIN_TARGET_BYTES ? quarter : DRAIN_TARGET_BYTES;
}

int ggmlviz__pace_due(const struct ggmlviz__writer *w)
{
	int due = ggmlviz__monotonic_ns() - w->last_pass_ns >= w->flush_ns;

	ggmlviz__registry_lock();
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r && !due; r = r->next)
		due = atomic_load_explicit(&r->head, memory_order_relaxed) -
			      atomic_load_explicit(&r->tail, memory_order_relaxed) >= drain_target(r) ||
		      atomic_load_explicit(&r->exited, memory_order_relaxed);
	ggmlviz__registry_unlock();
	return due;
}

/* Sleeps until the fastest-filling ring should reach its drain target, POLL_NS at most. */
void ggmlviz__pace_plan_sleep(struct ggmlviz__writer *w)
{
	uint64_t now = ggmlviz__monotonic_ns();
	double elapsed = (double)(now - w->last_pass_ns), sleep = POLL_NS;

	for (size_t i = 0; i < w->n_pass; i++) {
		struct ggmlviz__ring *r = w->pass[i].ring;
		if (r->drained_bytes && !w->pass[i].exited) {
			double t = (double)drain_target(r) * elapsed / (double)r->drained_bytes;
			if (t < sleep)
				sleep = t;
		}
	}
	for (size_t i = 0; i < w->n_pass; i++)
		if (!w->pass[i].exited)
			w->pass[i].ring->drained_bytes = 0;
	w->last_pass_ns = now;
	w->next_sleep_ns = sleep < MIN_SLEEP_NS ? MIN_SLEEP_NS : (uint64_t)sleep;
}

