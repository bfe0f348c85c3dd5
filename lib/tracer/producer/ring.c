/*
 * The ring's slow paths: making and resizing rings, the wrap copy, and
 * what happens when the fast path cannot simply write (first event of a
 * session, a loss to report, a full ring).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "format/codec.h"
#include "format/record.h"
#include "tracer/base/base.h"
#include "tracer/base/compat.h"
#include "tracer/producer/ring.h"
#include "util/pages.h"

/* Bytes between two bells: a quarter of the ring, 1 MiB at most (the writer
 * then drains while the bytes are still in the CPU's caches: measured with
 * bench/bench_tracer, the copy to the page cache runs several times faster). */
uint64_t ggmlviz__ring_bell_step(uint64_t size)
{
	return size / 4 < (1u << 20) ? size / 4 : (1u << 20);
}

static size_t mapping_size(uint64_t size)
{
	uint64_t page = ggmlviz__os_page_size();

	return (size_t)((size + GGMLVIZ__SLACK + page - 1) & ~(page - 1));
}

/*
 * len bytes on a huge page's boundary (a mapping that much larger, its
 * ends given back); MAP_FAILED when there is no memory.
 */
static void *map_huge_aligned(size_t len)
{
	const size_t huge = GGMLVIZ__HUGE_PAGE;
	uint8_t *p = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	size_t before;

	if (p == MAP_FAILED)
		return MAP_FAILED;
	before = (huge - (uintptr_t)p % huge) % huge;
	if (before) /* a failure (the mappings' limit) leaves the end mapped, and uncounted */
		munmap(p, before);
	munmap(p + before + len, huge - before);
	return p + before;
}

/*
 * Faults in every page of [p, p + len), as MAP_POPULATE would have: asked
 * of the kernel at once where it can (Linux 5.14), else a store a page.
 */
static void populate_pages(uint8_t *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	const uint64_t page = ggmlviz__os_page_size();

	for (uint64_t at = 0; at < len; at += page)
		((volatile uint8_t *)p)[at] = 0;
}

/*
 * A ring of a huge page or more (the default's 4 MiB) is mapped on huge
 * pages where the system gives them (transparent huge pages, "madvise"
 * or "always"). Each record of a lap lands on a page that no record
 * touched for a lap: on 4 KiB pages a traced llama.cpp decode's packed
 * records waited on each page, on a virtual machine (doc/cost.md, "The
 * ring on huge pages": measured, its cause inferred), where a 4 MiB lap
 * of 2 MiB pages is two. The advice comes before any page is faulted
 * in: a page faulted in small stays small. Where memory is fragmented,
 * the kernel may compact it for the advised pages as they are faulted
 * in: at a thread's first event, or in the writer for a grown ring.
 * Huge pages of another size than 2 MiB (arm64's with 16 or 64 KiB
 * pages) are not aligned to: no gain there, and no harm.
 */
static void *map_buffer(size_t len, int populate)
{
	void *p;

	if (len < GGMLVIZ__HUGE_PAGE)
		return mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);
	p = map_huge_aligned(len);
	if (p == MAP_FAILED)
		return MAP_FAILED;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, len, MADV_HUGEPAGE); /* no huge pages here: small ones, as before */
#endif
	if (populate)
		populate_pages(p, len);
	return p;
}

/*
 * A buffer of size bytes and the slack after it; pre-faulted when asked, so
 * that the emit path never takes a page fault on the ring (grow.c faults a
 * larger one in by parts instead: writer/grow.c). NULL when there is no memory.
 */
uint8_t *ggmlviz__ring_map(uint64_t size, int populate)
{
	void *p = map_buffer(mapping_size(size), populate);
	uint64_t now, peak;

	if (p == MAP_FAILED)
		return NULL;
	now = atomic_fetch_add(&ggmlviz__state.ring_mapped, mapping_size(size)) + mapping_size(size);
	peak = atomic_load(&ggmlviz__state.ring_mapped_peak);
	while (now > peak && !atomic_compare_exchange_weak(&ggmlviz__state.ring_mapped_peak, &peak, now))
		;
	return p;
}

/* Gives back a buffer of ggmlviz__ring_map(); NULL is accepted. */
void ggmlviz__ring_unmap(uint8_t *buf, uint64_t size)
{
	if (!buf)
		return;
	munmap(buf, mapping_size(size));
	atomic_fetch_sub(&ggmlviz__state.ring_mapped, mapping_size(size));
}

struct ggmlviz__ring *ggmlviz__ring_new(uint64_t size, uint32_t tid)
{
	struct ggmlviz__ring *r = ggmlviz__pages_alloc(sizeof *r);

	if (!r)
		return NULL;
	memset(r, 0, sizeof *r);
	r->buf = ggmlviz__ring_map(size, 1);
	if (!r->buf) {
		ggmlviz__pages_free(r);
		return NULL;
	}
	r->size = size;
	r->mask = size - 1;
	r->bell = ggmlviz__ring_bell_step(size);
	r->cbuf = r->buf;
	r->cmask = r->mask;
	r->tid = tid;
	r->announce = 1;
	ggmlviz__os_thread_name(r->name);
	return r;
}

/*
 * Every buffer of the ring: the producer's, the writer's view when it has
 * not followed yet, and a larger one offered or being faulted in. Only
 * where neither side runs (between sessions, in a child after fork, a ring
 * being freed).
 */
static void unmap_buffer(struct ggmlviz__ring *r)
{
	uint8_t *offer = atomic_load_explicit(&r->offer, memory_order_relaxed);

	if (r->cbuf != r->buf)
		ggmlviz__ring_unmap(r->cbuf, r->cmask + 1);
	if (offer && offer != r->buf)
		ggmlviz__ring_unmap(offer, r->offer_size);
	ggmlviz__ring_unmap(r->grow_buf, r->grow_size);
	ggmlviz__ring_unmap(r->buf, r->size);
	r->buf = r->cbuf = r->grow_buf = NULL;
	atomic_store_explicit(&r->offer, NULL, memory_order_relaxed);
	atomic_store_explicit(&r->moved_at, 0, memory_order_relaxed);
	r->size = r->grow_size = r->grow_done = 0;
	r->mask = r->cmask = 0;
}

int ggmlviz__ring_resize(struct ggmlviz__ring *r, uint64_t size)
{
	uint8_t *buf = ggmlviz__ring_map(size, 1); /* first: on ENOMEM the ring keeps what it has */

	if (!buf)
		return -ENOMEM;
	unmap_buffer(r);
	r->buf = r->cbuf = buf;
	r->size = size;
	r->mask = r->cmask = size - 1;
	return 0;
}

/* Between sessions the producer never reaches its buffer: give it back. */
void ggmlviz__ring_release_buffer(struct ggmlviz__ring *r)
{
	unmap_buffer(r);
	r->pos = 0;
	r->limit = 0;
}

/* For a new session; the producer is quiescent (see ggmlviz_start). */
void ggmlviz__ring_reset(struct ggmlviz__ring *r)
{
	r->pos = 0;
	r->limit = 0;
	r->bell = ggmlviz__ring_bell_step(r->size);
	atomic_store_explicit(&r->head, 0, memory_order_relaxed);
	atomic_store_explicit(&r->emitted, 0, memory_order_relaxed);
	atomic_store_explicit(&r->dropped, 0, memory_order_relaxed);
	atomic_store_explicit(&r->dropped_noted, 0, memory_order_relaxed);
	atomic_store_explicit(&r->labels_truncated, 0, memory_order_relaxed);
	r->announce = 1;
	atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
	atomic_store_explicit(&r->written, 0, memory_order_relaxed);
	atomic_store_explicit(&r->discarded, 0, memory_order_relaxed);
	r->discarded_noted = 0;
	r->unnoted = 0;
	r->named = 0;
	r->route = GGMLVIZ__ROUTE_BOTH;
	r->phase = 0;
	r->rate_pos = 0;
	r->rate_ns = 0;
}

void ggmlviz__ring_free(struct ggmlviz__ring *r)
{
	if (!r)
		return;
	unmap_buffer(r);
	ggmlviz__pages_free(r);
}

/* The part of a record written past the end goes to the start. */
void ggmlviz__ring_wrap(struct ggmlviz__ring *r, uint64_t overflow)
{
	memcpy(r->buf, r->buf + r->mask + 1, (size_t)overflow);
}

/*
 * A larger buffer offered by the writer (writer/grow.c): from this position on,
 * records go there. Taken between two records, when the writer has followed
 * the last move (moved_at read before offer: the writer clears offer first).
 */
static void take_offer(struct ggmlviz__ring *r)
{
	uint8_t *buf;

	if (atomic_load_explicit(&r->moved_at, memory_order_acquire) != 0)
		return;
	buf = atomic_load_explicit(&r->offer, memory_order_acquire);
	if (!buf)
		return;
	r->buf = buf;
	r->size = r->offer_size;
	r->mask = r->size - 1;
	r->limit = 0; /* room() sets it for the new size */
	atomic_store_explicit(&r->moved_at, r->pos + 1, memory_order_release);
}

/* Is there room for need bytes now? Refreshes the producer's limit. */
static int room(struct ggmlviz__ring *r, uint32_t need)
{
	uint64_t end = atomic_load_explicit(&r->tail, memory_order_acquire) + r->mask + 1;

	r->limit = end < r->bell ? end : r->bell;
	return r->pos + need <= end;
}

/* Past the bell: wake the writer, once per bell step of the ring (a system call
 * only if it sleeps). */
static void ring_bell(struct ggmlviz__ring *r, uint32_t need)
{
	if (r->pos + need <= r->bell)
		return;
	ggmlviz__doorbell_ring();
	r->bell = r->pos + need + ggmlviz__ring_bell_step(r->mask + 1);
}

/*
 * GGMLVIZ_OVERFLOW_BLOCK: wake the writer and sleep until it gives this
 * ring room back or offers a larger buffer (its room bell); the timeout
 * only bounds how late a stop is seen.
 */
static int wait_room(struct ggmlviz__ring *r, uint32_t need)
{
	for (;;) {
		uint32_t token;

		take_offer(r); /* a larger buffer is room too */
		if (room(r, need))
			return 1;
		token = ggmlviz__bell_token(&r->room);
		if (!(ggmlviz__mask_now() & GGMLVIZ__ACTIVE))
			return 0;
		if (room(r, need))
			return 1; /* the tail moved between the look and the token */
		ggmlviz__doorbell_ring();
		ggmlviz__bell_wait(&r->room, token, 1000000u);
	}
}

static int make_room(struct ggmlviz__ring *r, uint32_t need)
{
	if (need > r->mask + 1)
		return 0; /* larger than the whole ring: can never fit */
	return room(r, need) || (ggmlviz__state.overflow_block && wait_room(r, need));
}

static uint8_t *drop(struct ggmlviz__ring *r)
{
	ggmlviz__ring_count(r);
	atomic_store_explicit(&r->dropped, atomic_load_explicit(&r->dropped, memory_order_relaxed) + 1,
			      memory_order_release);
	r->limit = 0; /* the next event reports the loss first */
	return NULL;
}

/* Copies a record built by the slow path into the ring, if it fits. */
static int put(struct ggmlviz__ring *r, const uint8_t *rec, uint32_t n)
{
	if (!make_room(r, n))
		return 0;
	memcpy(r->buf + (r->pos & r->mask), rec, n);
	return 1;
}

/* THREAD_BEGIN, as the first event of this thread in the session. */
static void announce(struct ggmlviz__ring *r, uint64_t ts)
{
	uint8_t rec[GGMLVIZ_LABELED_RECORD_SIZE + 16];
	uint32_t n;

	r->announce = 0;
	if (!(ggmlviz__mask_now() & GGMLVIZ__THREADS))
		return;
	n = ggmlviz__encode_plain(rec, sizeof rec, GGMLVIZ_EVENT_THREAD_BEGIN, ts, r->tid, r->name,
				  (uint32_t)strlen(r->name));
	if (put(r, rec, n))
		ggmlviz__ring_commit(r, n);
	else
		drop(r);
}

/* A DROPPED record saying how many events were lost since the last one. */
static int note_drops(struct ggmlviz__ring *r, uint64_t ts)
{
	uint64_t dropped = atomic_load_explicit(&r->dropped, memory_order_relaxed);
	uint64_t noted = atomic_load_explicit(&r->dropped_noted, memory_order_relaxed);
	uint8_t rec[GGMLVIZ_RECORD_SIZE];
	uint32_t n;

	if (dropped == noted)
		return 1;
	n = ggmlviz__encode_meta(rec, sizeof rec, ts, r->tid,
				 &(struct ggmlviz__meta){ GGMLVIZ_META_DROPPED, r->tid, dropped - noted, 0 },
				 NULL, 0);
	if (!put(r, rec, n))
		return 0;
	ggmlviz__ring_publish(r, n); /* a note, not an event */
	atomic_store_explicit(&r->dropped_noted, dropped, memory_order_relaxed);
	return 1;
}

uint8_t *ggmlviz__ring_reserve_slow(struct ggmlviz__ring *r, uint32_t need, uint64_t ts)
{
	take_offer(r);
	if (r->announce)
		announce(r, ts);
	ring_bell(r, need);
	if (!note_drops(r, ts) || !make_room(r, need))
		return drop(r);
	return r->buf + (r->pos & r->mask);
}
