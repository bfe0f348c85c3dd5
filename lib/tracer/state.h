/*
 * What every part of the tracer shares about the session, in one struct
 * read through this header: the mask of what is recorded, the clock
 * offset, the ring size and overflow policy, the events lost before a ring
 * existed, and the hooks by which lower parts reach higher ones (a thread's
 * exit). The bottom of the tracer: it calls nothing above it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_STATE_H
#define GGMLVIZ_STATE_H

#include <stdatomic.h>
#include <stdint.h>

#include <ggmlviz/tracer.h>

#define GGMLVIZ__MIN_BUFFER_EVENTS 16u
#define GGMLVIZ__MAX_BUFFER_EVENTS (1u << 24)
#define GGMLVIZ__MAX_FLUSH_MS 60000u

/* Mask bits beyond tracer.h's GGMLVIZ__ACTIVE, GGMLVIZ__OPS, GGMLVIZ__MEMORY. */
#define GGMLVIZ__NAMES 8u    /* keep op labels (tensor_names) */
#define GGMLVIZ__THREADS 16u /* THREAD_BEGIN / THREAD_FREE (thread_tracking) */
#define GGMLVIZ__SYNC 32u    /* op timing by synchronizing each node (GGMLVIZ_OP_TIMING_SYNC) */

struct ggmlviz__state {
	uint64_t clock_offset;  /* realtime - monotonic, in ns, fixed once per process */
	uint64_t ring_bytes;    /* size of each thread's ring, set before the mask opens */
	uint64_t ring_max_bytes; /* the most a busy thread's ring grows to (grow.h) */
	int overflow_block;     /* GGMLVIZ_OVERFLOW_BLOCK chosen */
	int heavy_fence;        /* no membarrier(2): the emit path needs a real fence */
	int use_tsc;            /* records are stamped with the time-stamp counter (clock.h) */
	uint32_t op_sample;     /* ops timed in 1 step (or graph) in op_sample */
	int anonymize;          /* the writer replaces addresses by ids (anonymize) */
	uint64_t anon_key;      /* the session's key of that permutation */
	_Atomic uint64_t lost;  /* events lost because no ring could be made */
	_Atomic uint64_t session; /* ggmlviz_session() */
	_Atomic uint64_t mismatches; /* runs whose ticks did not match their nodes */
	_Atomic int ended;      /* recording ended on its own (max_events): not active */
	_Atomic uint64_t ring_mapped;      /* bytes of ring buffers mapped now */
	_Atomic uint64_t ring_mapped_peak; /* the most since the session started */
	/* Called on a thread that ends while its ring exists (records THREAD_FREE). */
	void (*thread_exit)(void);
};

extern struct ggmlviz__state ggmlviz__state;

/* seq_cst on both sides: see ggmlviz__ring_enter(). A plain load on x86. */
static inline unsigned ggmlviz__mask_now(void)
{
	return __atomic_load_n(&ggmlviz__mask, __ATOMIC_SEQ_CST);
}

static inline void ggmlviz__mask_set(unsigned m)
{
	__atomic_store_n(&ggmlviz__mask, m, __ATOMIC_SEQ_CST);
}

/* The calling thread's OS id (gettid), truncated to 32 bits. */
uint32_t ggmlviz__gettid(void);

#endif /* GGMLVIZ_STATE_H */
