/*
 * Bells and the writer's doorbell (see base.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdatomic.h>

#include "tracer/base/base.h"
#include "tracer/base/compat.h"

static struct ggmlviz__bell writer_bell; /* producers ring it, the writer sleeps on it */
static _Atomic uint64_t wakeups;

void ggmlviz__bell_ring(struct ggmlviz__bell *b, int n)
{
	atomic_fetch_add_explicit(&b->word, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&b->sleepers, memory_order_seq_cst))
		ggmlviz__os_futex_wake(&b->word, n);
}

uint32_t ggmlviz__bell_token(struct ggmlviz__bell *b)
{
	return atomic_load_explicit(&b->word, memory_order_seq_cst);
}

void ggmlviz__bell_wait(struct ggmlviz__bell *b, uint32_t token, uint64_t ns)
{
	atomic_fetch_add_explicit(&b->sleepers, 1, memory_order_seq_cst);
	/* a ring between the token and here changed the word: the wait returns at once */
	if (atomic_load_explicit(&b->word, memory_order_seq_cst) == token)
		ggmlviz__os_futex_wait(&b->word, token, ns);
	atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_seq_cst);
}

void ggmlviz__doorbell_ring(void)
{
	ggmlviz__bell_ring(&writer_bell, 1);
}

uint32_t ggmlviz__doorbell_token(void)
{
	return ggmlviz__bell_token(&writer_bell);
}

void ggmlviz__doorbell_wait(uint32_t token, uint64_t ns)
{
	ggmlviz__bell_wait(&writer_bell, token, ns);
	atomic_fetch_add_explicit(&wakeups, 1, memory_order_relaxed);
}

uint64_t ggmlviz__doorbell_wakeups(void)
{
	return atomic_load_explicit(&wakeups, memory_order_relaxed);
}
