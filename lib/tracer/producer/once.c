/*
 * ggmlviz_meta_once and ggmlviz_tensor_alloc_once: a record the first time
 * a (kind, key) or an address is seen in a session; ggmlviz_tensor_free_once:
 * the free of such an address, which is new again after it. One lock-free set per kind that names something (op types,
 * backends, threads): each slot claims a key once, for good, and keeps the
 * session that last named it; a new session names it again.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ggmlviz/tracer.h>

#include "tracer/base/base.h"

#define SLOTS 4096u /* a power of two */
#define KINDS 3u    /* OP_NAME, THREAD_NAME, BACKEND_NAME */
#define ALLOCS KINDS /* the set of ggmlviz_tensor_alloc_once() */

struct slot {
	_Atomic uint64_t key;     /* the key + 1; 0 = free */
	_Atomic uint64_t session; /* the session that last recorded it */
};

static struct slot sets[KINDS + 1][SLOTS];

/* The slot of key in the set, claimed if new and take; NULL when the set is full, or
 * (not take) when the key has no slot; *full says which. */
static struct slot *probe(struct slot *set, uint64_t key, bool take, bool *full)
{
	uint64_t tag = key + 1; /* key UINT64_MAX shares tag 0 with free slots: see below */
	uint32_t at = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 52) & (SLOTS - 1);

	*full = tag == 0; /* named every time: harmless */
	for (uint32_t probe = 0; probe < SLOTS && tag; probe++, at = (at + 1) & (SLOTS - 1)) {
		uint64_t seen = atomic_load_explicit(&set[at].key, memory_order_acquire);

		if (seen == 0 && !take)
			return NULL;
		if (seen == 0 && atomic_compare_exchange_strong(&set[at].key, &seen, tag))
			return &set[at];
		if (seen == tag)
			return &set[at];
	}
	*full = true;
	return NULL;
}

static struct slot *claim(struct slot *set, uint64_t key)
{
	bool full;

	return probe(set, key, true, &full);
}

/* Whether key is new in set (NULL: no set) this session; it is not any more. */
static int first_time(struct slot *set, uint64_t key)
{
	uint64_t session = atomic_load_explicit(&ggmlviz__state.session, memory_order_relaxed);
	struct slot *s = set ? claim(set, key) : NULL;

	/* named this session already (every op after the first): a load, no locked write */
	if (s && atomic_load_explicit(&s->session, memory_order_relaxed) == session)
		return 0;
	return !s || atomic_exchange(&s->session, session) != session;
}

int ggmlviz_meta_once(uint32_t kind, uint64_t key, const char *label)
{
	if (!(ggmlviz__mask_now() & GGMLVIZ__ACTIVE))
		return 0;
	void (*named)(const char *);

	if (!first_time(kind >= 1 && kind <= KINDS ? sets[kind - 1] : NULL, key))
		return 0;
	/* before the record: a profiler it starts (a CUDA backend's) says so after it */
	if (kind == GGMLVIZ_META_BACKEND_NAME &&
	    (named = atomic_load_explicit(&ggmlviz__state.gpu_backend_named, memory_order_acquire)))
		named(label);
	ggmlviz_meta(kind, key, 0, 0, label);
	return 1;
}

int ggmlviz_tensor_alloc_once(const void *ptr, uint64_t size, const char *label)
{
	if (!(ggmlviz__mask_now() & GGMLVIZ__MEMORY) ||
	    !first_time(sets[ALLOCS], (uint64_t)(uintptr_t)ptr))
		return 0;
	ggmlviz_tensor_alloc(ptr, size, label);
	return 1;
}

int ggmlviz_tensor_free_once(const void *ptr, uint64_t size, const char *label)
{
	uint64_t session = atomic_load_explicit(&ggmlviz__state.session, memory_order_relaxed);
	struct slot *s;
	bool full;

	if (!(ggmlviz__mask_now() & GGMLVIZ__MEMORY))
		return 0;
	s = probe(sets[ALLOCS], (uint64_t)(uintptr_t)ptr, false, &full);
	/* recorded this session (its address new again now), or past a full set, where
	 * ggmlviz_tensor_alloc_once() records every time */
	if (s ? !atomic_compare_exchange_strong(&s->session, &session, 0) : !full)
		return 0;
	ggmlviz_tensor_free(ptr, size, label);
	return 1;
}
