/*
 * A session of steps alone (op timing off), or none running (a context
 * traced before keeps the tracer's callbacks after the stop): a split
 * asked in full once is taken at once after (ggmlviz_nodes_ask_rest()).
 *
 * With op timing off no run keeps a split's nodes, so nothing took the
 * asks of a split computed again: GGML's scheduler asked the eval
 * callback about each of its nodes, token after token, and the GGML
 * adapter looked at each node's buffers where memory is tracked. That
 * cost a llama.cpp decode more than timing every op did (doc/cost.md).
 * With no session running, a context traced before (a server between
 * two traced windows) still paid for every ask, 21 ns an op at 1 thread.
 * Here each thread keeps the last splits it saw asked in full (with its
 * runs' state, run.h), by the session and its mask's ACTIVE and MEMORY
 * bits, the split's id (ggmlviz_nodes_split()), the callback's user, its
 * size and its first and last nodes, and a split seen again, whose first
 * ask went through the adapter (nodes.c), is taken
 * whole at its first ask, as a run's kept nodes are where ops are timed:
 * a split computed again has the nodes, and so the buffers, it had. A
 * split whose asks each have work to do (ggmlviz_nodes_ask_always(): a
 * chained callback, a copy into the split that memory tracking counts) is
 * not kept, and is asked in full every time.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>

#include "tracer/base/base.h"
#include "tracer/producer/producer.h"

/* the split asked now: kept at seen[tls_now - 1] (0: not), or asked in full every time */
static _Thread_local uint32_t tls_now;
static _Thread_local int tls_always;

static int same_split(const struct ggmlviz__split_seen *a, const struct ggmlviz__split_seen *b)
{
	return a->id == b->id && a->session == b->session && a->user == b->user &&
	       a->first == b->first && a->last == b->last && a->n == b->n && a->mask == b->mask;
}

void ggmlviz__steps_split(void)
{
	tls_now = 0;
	tls_always = 0;
}

void ggmlviz__steps_ask_always(struct ggmlviz__steps_seen *t)
{
	tls_always = 1;
	if (t && tls_now) /* asked in full as it was kept: not kept */
		t->seen[tls_now - 1] = (struct ggmlviz__split_seen){ 0 };
	tls_now = 0;
}

int ggmlviz__steps_ask_rest(struct ggmlviz__steps_seen *t, uint64_t id, const void *user,
			    const void *const *nodes, int from, int n)
{
	struct ggmlviz__split_seen s = {
		atomic_load_explicit(&ggmlviz__state.session, memory_order_relaxed),
		id, user, nodes[0], nodes[n - 1], (uint32_t)n,
		/* a start bumps the session before it sets the mask: a split asked in between
		 * (its buffers not looked at) is not the session's */
		ggmlviz__mask_relaxed() & (GGMLVIZ__ACTIVE | GGMLVIZ__MEMORY)
	};

	if (!t || !id || tls_always)
		return from; /* no memory, no split named, or one whose asks have work to do */
	for (uint32_t k = 0; k < GGMLVIZ__SPLITS_SEEN; k++)
		if (same_split(&t->seen[k], &s))
			return n;
	tls_now = t->next % GGMLVIZ__SPLITS_SEEN + 1;
	t->seen[tls_now - 1] = s;
	t->next++;
	return from; /* asked in full this time */
}
