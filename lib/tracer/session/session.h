/*
 * The session's own header: what session.c (start, stop, exit and fork)
 * takes from claim.c and peak.c (its settings are settings.h's).
 * The session is the tracer's top: it calls the writer, the producer's
 * registry and the base, and nothing calls it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_SESSION_H
#define GGMLVIZ_SESSION_H

#include <stdint.h>

#include <ggmlviz/tracer.h>

#include "tracer/base/base.h"

/*
 * One tracer per process (claim.c): claims the process for this copy of
 * the library, held until the process ends. 0 when this copy holds it (or
 * nothing can be claimed here); -EBUSY when another copy does, said to
 * sink as a warning naming both copies' objects.
 */
int ggmlviz__claim(const struct ggmlviz__log_sink *sink);

/* In a child after fork(): the parent's claim is not the child's (close(2) only). */
void ggmlviz__claim_forget(void);

#define GGMLVIZ__PEAK_MAX_THREADS 1024u
/* ggmlviz_config::nvtx: 0 none, 1 steps, graphs and runs, 2 and ops. */
#define GGMLVIZ__NVTX_MAX_LEVEL 2u

/* The machine's peak, as peak.c measured it. */
struct ggmlviz__peak {
	uint32_t threads;     /* 0: not measured */
	uint64_t bytes_per_s; /* read from memory, every thread together */
	uint64_t flop_per_s;  /* f32 fused multiply-adds, every thread together */
	char how[160];        /* in words: threads, sizes, the vector width */
};

/*
 * Measures the memory's read bandwidth and the f32 FMA peak with threads
 * threads (1 to 1024), in about a quarter of a second; 0, or -ENOMEM or
 * another -errno (a thread could not be made) with *out zeroed.
 */
int ggmlviz__peak_measure(int threads, struct ggmlviz__peak *out);

#endif /* GGMLVIZ_SESSION_H */
