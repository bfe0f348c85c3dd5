/*
 * One thread's ring: a single-producer single-consumer byte ring holding
 * finished GGMLVIZ records, exactly as they go to the file.
 *
 * The owning thread (producer) writes each record's bytes straight into the
 * ring and publishes it by moving `head`; the writer thread (consumer)
 * hands the bytes between `tail` and `head` to writev() and moves `tail`.
 * Positions are byte counts that only grow; the ring's size is a power of
 * two, so a position maps to its byte with a mask (no division).
 *
 * A record is always written contiguously: the buffer has `GGMLVIZ__SLACK`
 * spare bytes past its end, and a record that runs past the end is copied
 * back to the start at commit (ggmlviz__ring_wrap). The writer reads the
 * ring as two spans, [tail, end) and [start, head).
 *
 * Memory ordering (the contract of the original ggml-viz ring):
 *   producer: head relaxed (its own copy), tail acquire, head release;
 *   consumer: tail relaxed (its own copy), head acquire, tail release.
 *
 * Every ggmlviz__ring_bell_step() bytes (a quarter of the ring, 1 MiB at most) the
 * producer's slow path rings the writer's doorbell, so that the writer
 * drains a busy ring at once and sleeps while nothing happens. The other
 * way, the writer rings the ring's `room` bell as it moves tail, for a
 * producer that sleeps waiting for room (GGMLVIZ_OVERFLOW_BLOCK).
 *
 * A ring of a huge page or more is mapped on huge pages where the system
 * gives them (ring.c): the records of a lap land on pages no record
 * touched for a lap, which on small pages slowed a traced decode's graph
 * and run ends on a virtual machine (doc/cost.md, "The ring on huge
 * pages").
 *
 * A busy ring grows (writer/grow.c): the writer maps a larger buffer, faults it in
 * off the emit path and offers it; the producer takes it in its slow path,
 * between two records, and says from which position on it writes there
 * (`moved_at`). The writer reads the old buffer, its own view `cbuf`,
 * up to that position, then follows. So each side reads and writes only
 * its own copy of where the bytes are, and positions stay what they were.
 *
 * `in_emit` is set while the producer is inside an emit call; with
 * membarrier(2) on the stopping side, that lets ggmlviz_stop() wait until
 * no event is half-written without any fence on the emit path.
 *
 * Who writes which fields (tests/test-layers.py checks it where grep can):
 *   producer/  the "Producer" fields: the owning thread, and the registry
 *              (exited, next) as the thread ends;
 *   writer/    the "Consumer" fields: the writer thread, or the crash
 *              handler that took the writer over;
 *   handed over, by the protocol above: `offer` and `offer_size` (the
 *              writer sets them, the producer takes the buffer, the writer
 *              clears them as it follows), `moved_at` (the producer sets
 *              it, the writer clears it), `dropped_noted` (the producer as
 *              it records a DROPPED note; the writer for a quiescent
 *              producer: its thread gone, or the session ending);
 *   lifecycle  ring.c's new, resize, reset, release_buffer and free set
 *              every field where neither side runs (the session between
 *              two sessions, a thread's exit, a child after fork).
 * Everyone may read every field with the ordering given above.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_RING_H
#define GGMLVIZ_RING_H

#include <stdatomic.h>
#include <stdint.h>

#include <ggmlviz/format.h>

#include "tracer/base/base.h"

#define GGMLVIZ__CACHE_LINE 64
/* A huge page (x86-64's and most others' 2 MiB): a ring this large is mapped on them (ring.c). */
#define GGMLVIZ__HUGE_PAGE (2u << 20)
/* Room past the end of the buffer for the largest record. */
#define GGMLVIZ__SLACK (GGMLVIZ_LABELED_RECORD_SIZE + GGMLVIZ_LABEL_MAX)

#define GGMLVIZ__LIKELY(x) __builtin_expect(!!(x), 1)
#define GGMLVIZ__UNLIKELY(x) __builtin_expect(!!(x), 0)

struct ggmlviz__ring {
	/* Producer, hot: read and written by the owning thread on every event. */
	_Alignas(GGMLVIZ__CACHE_LINE) uint64_t pos; /* producer's copy of head */
	uint64_t limit;          /* pos may grow up to here without the slow path: min(room, bell) */
	uint64_t bell;           /* at this pos, wake the writer (the slow path rings the doorbell) */
	uint8_t *buf;
	uint64_t mask;           /* size - 1 */
	_Atomic uint64_t head;   /* published end of the committed records */
	_Atomic uint64_t emitted; /* events accepted, including dropped ones */
	_Atomic uint32_t in_emit; /* 1 while the producer is inside an emit call */
	uint32_t tid;

	/* Producer, cold: touched on drops and the first event of a session. */
	_Alignas(GGMLVIZ__CACHE_LINE) _Atomic uint64_t dropped; /* events lost to a full ring */
	_Atomic uint64_t dropped_noted; /* handed over: of those, reported by DROPPED records */
	_Atomic uint64_t labels_truncated;
	int announce;            /* THREAD_BEGIN still to be recorded this session */
	char name[16];           /* the OS thread name when the ring was made */

	/* Consumer: the writer thread's side. */
	_Alignas(GGMLVIZ__CACHE_LINE) _Atomic uint64_t tail;
	_Atomic uint64_t written;  /* events of this ring in the file */
	_Atomic uint64_t discarded; /* events the writer threw away (max_events, I/O error) */
	uint64_t discarded_noted;  /* of those, reported by DROPPED records */
	uint64_t unnoted;          /* losses whose DROPPED record the writer threw away */
	int named;                 /* THREAD_NAME written this session */
	uint8_t route;             /* where its records at tail go (base.h's routes; writer/route.c) */
	uint32_t phase;            /* the phase of its thread's last STEP_BEGIN written (writer/route.c) */
	struct ggmlviz__bell room; /* handed over: rung as tail moves, a producer waiting for room sleeps on it */
	uint8_t *cbuf;             /* the buffer the records before moved_at are in */
	uint64_t cmask;            /* its size - 1 */
	uint8_t *grow_buf;         /* a larger buffer being faulted in, or NULL */
	uint64_t grow_size, grow_done; /* its size, and how much of it is faulted in */
	uint64_t rate_pos, rate_ns; /* head and time when the ring's rate was last taken */

	/* Growth, handed over: the writer offers, the producer takes (writer/grow.c). */
	_Alignas(GGMLVIZ__CACHE_LINE) _Atomic(uint8_t *) offer; /* a larger buffer, faulted in */
	uint64_t offer_size;       /* its size, set before offer is */
	_Atomic uint64_t moved_at; /* 0, or 1 + the position from which the producer writes there */

	/* Producer, registry: the thread's end, and the list (registry.c). */
	_Atomic int exited;        /* the thread is gone: drain, then free */
	uint64_t size;             /* bytes of buf, a power of two (the producer's) */
	struct ggmlviz__ring *next;
};

/* Slow paths and lifecycle (ring.c). */
uint8_t *ggmlviz__ring_reserve_slow(struct ggmlviz__ring *r, uint32_t need, uint64_t ts);
void ggmlviz__ring_wrap(struct ggmlviz__ring *r, uint64_t overflow);
uint8_t *ggmlviz__ring_map(uint64_t size, int populate);
void ggmlviz__ring_unmap(uint8_t *buf, uint64_t size);
uint64_t ggmlviz__ring_bell_step(uint64_t size);
struct ggmlviz__ring *ggmlviz__ring_new(uint64_t size, uint32_t tid);
int ggmlviz__ring_resize(struct ggmlviz__ring *r, uint64_t size);
void ggmlviz__ring_release_buffer(struct ggmlviz__ring *r);
void ggmlviz__ring_reset(struct ggmlviz__ring *r);
void ggmlviz__ring_free(struct ggmlviz__ring *r);

/*
 * Marks the producer as inside an emit call, before it loads the mask
 * (seq_cst: a plain load on x86). Against ggmlviz_stop()'s seq_cst store of
 * the mask and load of in_emit, either the producer sees the mask cleared or
 * stop sees in_emit set. membarrier(2) on stop's side makes a relaxed store
 * enough here; without it, this store must be seq_cst too.
 */
static inline void ggmlviz__ring_enter(struct ggmlviz__ring *r)
{
	if (GGMLVIZ__UNLIKELY(ggmlviz__state.heavy_fence)) {
		atomic_store_explicit(&r->in_emit, 1, memory_order_seq_cst);
	} else {
		atomic_store_explicit(&r->in_emit, 1, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
	}
}

static inline void ggmlviz__ring_leave(struct ggmlviz__ring *r)
{
	atomic_store_explicit(&r->in_emit, 0, memory_order_release);
}

/*
 * Where to write a record of `need` bytes: a pointer into the ring, or
 * NULL when the event is dropped (counted). ts stamps any record the slow
 * path has to add first (THREAD_BEGIN, DROPPED).
 */
static inline uint8_t *ggmlviz__ring_reserve(struct ggmlviz__ring *r, uint32_t need, uint64_t ts)
{
	if (GGMLVIZ__UNLIKELY(r->pos + need > r->limit))
		return ggmlviz__ring_reserve_slow(r, need, ts);
	return r->buf + (r->pos & r->mask);
}

/* Publishes `need` bytes written at the reserved place. */
static inline void ggmlviz__ring_publish(struct ggmlviz__ring *r, uint32_t need)
{
	uint64_t end = (r->pos & r->mask) + need;

	if (GGMLVIZ__UNLIKELY(end > r->mask + 1))
		ggmlviz__ring_wrap(r, end - (r->mask + 1));
	r->pos += need;
	atomic_store_explicit(&r->head, r->pos, memory_order_release);
}

/* Counts one event as emitted, before it (or its loss) can be seen. */
static inline void ggmlviz__ring_count(struct ggmlviz__ring *r)
{
	atomic_store_explicit(&r->emitted, atomic_load_explicit(&r->emitted, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* Publishes an event's record; whoever sees it in the file sees it counted. */
static inline void ggmlviz__ring_commit(struct ggmlviz__ring *r, uint32_t need)
{
	ggmlviz__ring_count(r);
	ggmlviz__ring_publish(r, need);
}

#endif /* GGMLVIZ_RING_H */
