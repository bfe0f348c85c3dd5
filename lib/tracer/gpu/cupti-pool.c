/*
 * CUPTI's activity buffers (see cupti.h): a pool of 1 MiB buffers made at
 * a session's start, so that a request, which CUPTI makes on whatever
 * thread needs a buffer (a thread launching kernels, in the middle of its
 * launch), costs a scan of a few words and no allocation.
 *
 * Each buffer has a state. A new session marks its buffers free, except
 * those CUPTI still holds from an earlier one: they come back through the
 * completion callback, and only then are they free. When every buffer is
 * in CUPTI's hands, a CUPTI that survives it gets NULL and drops records
 * (it counts them, and so does the trace); an older one, which would
 * dereference NULL, gets a buffer allocated there and then, freed when it
 * comes back.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>

#include "tracer/gpu/gpu.h"

#if HAVE_CUPTI

#include <stdatomic.h>
#include <stdlib.h>

#include "tracer/gpu/cupti.h"
#include "util/pages.h"

#define MAX_BUFFERS 1024

enum state { RETIRED, FREE, HELD, HELD_RETIRING };

static uint8_t *_Atomic pool[MAX_BUFFERS]; /* made once each, kept for the next sessions */
static _Atomic int state[MAX_BUFFERS];
static _Atomic uint32_t held;
static _Atomic uint64_t beyond;

int ggmlviz__cupti_pool_make(uint64_t bytes)
{
	size_t n = (size_t)(bytes / GGMLVIZ__CUPTI_BUFFER_BYTES);

	n = n < 2 ? 2 : n > MAX_BUFFERS ? MAX_BUFFERS : n;
	for (size_t i = 0; i < MAX_BUFFERS; i++) {
		int s = atomic_load(&state[i]);

		if (i < n && !atomic_load(&pool[i])) {
			uint8_t *b = ggmlviz__pages_alloc(GGMLVIZ__CUPTI_BUFFER_BYTES);
			if (!b)
				return -1;
			atomic_store(&pool[i], b);
		}
		/* held from an earlier session: free once CUPTI hands it back, if still wanted */
		while (!atomic_compare_exchange_weak(&state[i], &s,
						     s == HELD || s == HELD_RETIRING
							     ? (i < n ? HELD : HELD_RETIRING)
							     : (i < n ? FREE : RETIRED)))
			;
	}
	return 0;
}

static uint8_t *take(void)
{
	for (size_t i = 0; i < MAX_BUFFERS && atomic_load(&pool[i]); i++) {
		int s = FREE;

		if (atomic_compare_exchange_strong(&state[i], &s, HELD))
			return atomic_load(&pool[i]);
	}
	return NULL;
}

void CUPTIAPI ggmlviz__cupti_on_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
	uint8_t *b = take();

	if (!b && !ggmlviz__cupti_null_buffer_ok() &&
	    (b = ggmlviz__pages_alloc(GGMLVIZ__CUPTI_BUFFER_BYTES)))
		atomic_fetch_add(&beyond, 1);
	if (b)
		atomic_fetch_add(&held, 1);
	*buffer = b;
	*size = b ? GGMLVIZ__CUPTI_BUFFER_BYTES : 0;
	*max_records = 0; /* as many as fit */
}

void ggmlviz__cupti_pool_give_back(uint8_t *buffer)
{
	atomic_fetch_sub(&held, 1);
	for (size_t i = 0; i < MAX_BUFFERS && atomic_load(&pool[i]); i++) {
		if (atomic_load(&pool[i]) != buffer)
			continue;
		atomic_store(&state[i], atomic_load(&state[i]) == HELD_RETIRING ? RETIRED : FREE);
		return;
	}
	ggmlviz__pages_free(buffer); /* allocated beyond the pool */
}

void ggmlviz__cupti_pool_reclaim(void)
{
	for (size_t i = 0; i < MAX_BUFFERS && atomic_load(&pool[i]); i++) {
		int s = atomic_load(&state[i]);

		if (s == HELD || s == HELD_RETIRING)
			atomic_store(&state[i], s == HELD ? FREE : RETIRED);
	}
	atomic_store(&held, 0);
}

void ggmlviz__cupti_pool_free(void)
{
	for (size_t i = 0; i < MAX_BUFFERS; i++) {
		uint8_t *b = atomic_load(&pool[i]);
		int s = atomic_load(&state[i]);

		if (b && s != HELD && s != HELD_RETIRING) {
			atomic_store(&pool[i], NULL);
			atomic_store(&state[i], RETIRED);
			ggmlviz__pages_free(b);
		}
	}
}

uint32_t ggmlviz__cupti_pool_held(void)
{
	return atomic_load(&held);
}

uint64_t ggmlviz__cupti_pool_beyond(void)
{
	return atomic_load(&beyond);
}

#endif /* HAVE_CUPTI */
