/*
 * What the tracer's parts share about the session: limits, the mask bits,
 * and the few settings the emit slow path reads.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_SESSION_H
#define GGMLVIZ_SESSION_H

#include <stdatomic.h>
#include <stdint.h>

#include <ggmlviz/tracer.h>

#include "log.h"

#define GGMLVIZ__MIN_BUFFER_EVENTS 16u
#define GGMLVIZ__MAX_BUFFER_EVENTS (1u << 24)
#define GGMLVIZ__MAX_FLUSH_MS 60000u

/* Mask bits beyond tracer.h's GGMLVIZ__ACTIVE, GGMLVIZ__OPS, GGMLVIZ__MEMORY. */
#define GGMLVIZ__NAMES 8u    /* keep op labels (tensor_names) */
#define GGMLVIZ__THREADS 16u /* THREAD_BEGIN / THREAD_FREE (thread_tracking) */

/* seq_cst on both sides: see ggmlviz__ring_enter(). A plain load on x86. */
static inline unsigned ggmlviz__mask_now(void)
{
	return __atomic_load_n(&ggmlviz__mask, __ATOMIC_SEQ_CST);
}

static inline void ggmlviz__mask_set(unsigned m)
{
	__atomic_store_n(&ggmlviz__mask, m, __ATOMIC_SEQ_CST);
}

/* config.c */
int ggmlviz__buffer_events_ok(uint64_t n);
int ggmlviz__flush_ms_ok(uint64_t ms);
int ggmlviz__config_check(const struct ggmlviz_config *cfg, const struct ggmlviz__log_sink *sink);

/* session.c: set by ggmlviz_start() before the mask opens. */
extern uint64_t ggmlviz__ring_bytes;  /* size of each thread's ring */
extern int ggmlviz__overflow_block;   /* GGMLVIZ_OVERFLOW_BLOCK chosen */
extern _Atomic uint64_t ggmlviz__lost; /* events lost because no ring could be made */

/* The calling thread's OS id (gettid), truncated to 32 bits. */
uint32_t ggmlviz__gettid(void);

#endif /* GGMLVIZ_SESSION_H */
