/*
 * The registry of thread rings: each thread's ring is made on its first
 * event, found through a thread-local pointer, and listed here so the
 * writer can drain it; it is freed after its thread exits.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_REGISTRY_H
#define GGMLVIZ_REGISTRY_H

#include "ring.h"

/* The calling thread's ring, or NULL before its first event. */
extern _Thread_local struct ggmlviz__ring *ggmlviz__tls_ring
	__attribute__((tls_model("initial-exec")));

/* Makes the calling thread's ring (its first event); NULL if out of memory. */
struct ggmlviz__ring *ggmlviz__ring_register(void);

/* The calling thread's ring, made on first use. */
static inline struct ggmlviz__ring *ggmlviz__thread_ring(void)
{
	struct ggmlviz__ring *r = ggmlviz__tls_ring;

	return GGMLVIZ__LIKELY(r != NULL) ? r : ggmlviz__ring_register();
}

/* The list, walked with the lock held. */
void ggmlviz__registry_lock(void);
void ggmlviz__registry_unlock(void);
struct ggmlviz__ring *ggmlviz__registry_first(void);

/*
 * The list without the lock, for a crash handler (the lock may be held by
 * the crashed thread): rings are published whole, and freed only by the
 * writer's pass, which the handler has taken over.
 */
struct ggmlviz__ring *ggmlviz__registry_first_unlocked(void);

/*
 * Whether a writer is draining: if so, a thread that exits leaves its ring
 * to the writer (marked exited); if not, the ring is freed at once.
 * Called with the lock held.
 */
void ggmlviz__registry_set_draining(int draining);

/* Removes an exited ring from the list and frees it (lock held). */
void ggmlviz__registry_release(struct ggmlviz__ring *r);

/* Frees the rings of exited threads (lock held, no writer running). */
void ggmlviz__registry_reap(void);

/*
 * In a child after fork(): forget every ring (their threads are not here),
 * unmapping their buffers but calling no free() (async-signal-safe).
 */
void ggmlviz__registry_forget_all(void);

#endif /* GGMLVIZ_REGISTRY_H */
