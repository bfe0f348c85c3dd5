/*
 * The registry of thread rings.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "tracer/base/base.h"
#include "tracer/base/compat.h"
#include "tracer/producer/producer.h"
#include "util/leaving.h"

_Thread_local struct ggmlviz__ring *ggmlviz__tls_ring __attribute__((tls_model("initial-exec")));
_Thread_local struct ggmlviz__tls_node ggmlviz__tls_node
	__attribute__((tls_model("initial-exec"))); /* producer.h */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ggmlviz__ring *rings;
static int draining;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int exit_key_made; /* exit_key is a key, to delete as the library leaves */

void ggmlviz__registry_lock(void)
{
	ggmlviz__inner_lock(&lock);
}

int ggmlviz__registry_lock_at_exit(void)
{
	return ggmlviz__inner_lock_at_exit(&lock);
}

void ggmlviz__registry_unlock(void)
{
	ggmlviz__inner_unlock(&lock);
}

struct ggmlviz__ring *ggmlviz__registry_first(void)
{
	return rings;
}

struct ggmlviz__ring *ggmlviz__registry_first_unlocked(void)
{
	return __atomic_load_n(&rings, __ATOMIC_ACQUIRE);
}

void ggmlviz__registry_set_draining(int on)
{
	draining = on;
}

static void unlink_ring(struct ggmlviz__ring *r)
{
	struct ggmlviz__ring **p = &rings;

	while (*p && *p != r)
		p = &(*p)->next;
	if (*p)
		*p = r->next;
}

void ggmlviz__registry_release(struct ggmlviz__ring *r)
{
	unlink_ring(r);
	ggmlviz__ring_free(r);
}

void ggmlviz__registry_reap(void)
{
	struct ggmlviz__ring **p = &rings;

	while (*p) {
		struct ggmlviz__ring *r = *p;
		if (atomic_load_explicit(&r->exited, memory_order_acquire)) {
			*p = r->next;
			ggmlviz__ring_free(r);
		} else {
			p = &r->next;
		}
	}
}

/* Thread exit: the session's exit hook (THREAD_FREE), then hand the ring over. */
static void thread_exit(void *arg)
{
	struct ggmlviz__ring *r = arg;
	void (*hook)(void) = __atomic_load_n(&ggmlviz__state.thread_exit, __ATOMIC_ACQUIRE);

	if (hook)
		hook();
	ggmlviz__tls_ring = NULL;
	ggmlviz__inner_lock(&lock);
	if (draining) {
		atomic_store_explicit(&r->exited, 1, memory_order_release);
	} else {
		unlink_ring(r);
		ggmlviz__ring_free(r);
	}
	ggmlviz__inner_unlock(&lock);
}

void ggmlviz__registry_unload(void)
{
	ggmlviz__inner_lock(&lock);
	if (__atomic_load_n(&exit_key_made, __ATOMIC_ACQUIRE))
		pthread_key_delete(exit_key);
	while (rings) {
		struct ggmlviz__ring *r = rings;
		rings = r->next;
		ggmlviz__ring_free(r);
	}
	draining = 0;
	ggmlviz__inner_unlock(&lock);
	ggmlviz__tls_ring = NULL;
}

static void make_exit_key(void)
{
	if (pthread_key_create(&exit_key, thread_exit) != 0)
		exit_key = (pthread_key_t)-1; /* rings then live until the process ends */
	else
		__atomic_store_n(&exit_key_made, 1, __ATOMIC_RELEASE);
}

/*
 * A new thread's ring is mapped and faulted in outside the lock: 4 MiB take
 * about a millisecond, 64 MiB tens of milliseconds, which held up the
 * writer's every look at the rings and every other new thread. The size
 * is the session's, read under the lock; one that changed meanwhile (a
 * session started) is made again under it, as the start resizes the rings
 * it finds.
 */
struct ggmlviz__ring *ggmlviz__ring_register(void)
{
	struct ggmlviz__ring *r;
	uint64_t bytes;

	pthread_once(&exit_key_once, make_exit_key);
	ggmlviz__inner_lock(&lock);
	bytes = ggmlviz__state.ring_bytes;
	ggmlviz__inner_unlock(&lock);
	r = ggmlviz__ring_new(bytes, ggmlviz__os_gettid());
	ggmlviz__inner_lock(&lock);
	if (r && ggmlviz__state.ring_bytes != bytes) {
		if (ggmlviz__ring_resize(r, ggmlviz__state.ring_bytes) == 0) {
			ggmlviz__ring_reset(r);
		} else {
			ggmlviz__ring_free(r);
			r = NULL;
		}
	}
	if (r) {
		r->next = rings;
		__atomic_store_n(&rings, r, __ATOMIC_RELEASE); /* whole, for an unlocked reader */
	}
	ggmlviz__inner_unlock(&lock);
	if (!r) {
		atomic_fetch_add_explicit(&ggmlviz__state.lost, 1, memory_order_relaxed);
		return NULL;
	}
	if (exit_key != (pthread_key_t)-1)
		pthread_setspecific(exit_key, r);
	ggmlviz__tls_ring = r;
	ggmlviz__doorbell_ring(); /* a new ring: the writer makes room for it in its pass */
	return r;
}

static struct ggmlviz__ring *volatile forgotten; /* the parent's rings, in a child after fork */

void ggmlviz__registry_forget_all(void)
{
	struct ggmlviz__ring *r = rings;

	/*
	 * The rings' memory is left as it is, only their buffers unmapped: a
	 * child of a threaded process may call only async-signal-safe functions,
	 * and free() hangs there with an allocator that is not fork-safe
	 * (AddressSanitizer's) when another thread was allocating at the fork.
	 */
	for (; r; r = r->next)
		ggmlviz__ring_release_buffer(r);
	forgotten = rings; /* kept reachable: not a leak, a choice */
	rings = NULL;
	draining = 0;
	ggmlviz__tls_ring = NULL;
	if (exit_key != (pthread_key_t)-1)
		pthread_setspecific(exit_key, NULL);
}
