/*
 * Packed times (ggmlviz(5), "Packed times"): a run's ops, or one worker's
 * shares of a graph, written as a few OP_TIMES or SHARE_TIMES records
 * whose bodies hold each one's gap and duration (8 bytes), in place of
 * two records an op (OP_COMPUTE_BEGIN and _END, about 140 bytes with their
 * labels) or one a share (OP_SHARE, 46 bytes). Once a run, off the per-node
 * path; no lock, no allocation.
 *
 * In the ring a body holds raw stamps (clock.h) as offsets from the
 * record's timestamp, shifted right by ggmlviz__clock_share_shift and
 * chained as gaps and durations; the writer makes them nanoseconds
 * (writer/span.c), converting the offsets, not the deltas, so that no
 * rounding adds up along a run.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_PACKED_H
#define GGMLVIZ_PACKED_H

#include <stdint.h>

#include "tracer/base/clock.h"

/* Entries of a body: OP_TIMES' and SHARE_TIMES REPEAT's, SHARE_TIMES DEFINE's. */
#define GGMLVIZ__TIMES_PER_RECORD 512u
#define GGMLVIZ__SHARES_DEFINED_PER_RECORD 170u

/*
 * Times given as begin and end stamps, in order: entry j is begin[at(j)]
 * and end[at(j)], where at(j) is node[j], or j when node is NULL.
 */
struct ggmlviz__times {
	const uint64_t *begin, *end;
	const uint32_t *node;
	uint32_t n;
};

/*
 * Whether the times pack: each ends at or after its begin, begins at or
 * after the one before ended, and the whole, to `until` (0: the last end),
 * fits 32 bits of shifted stamps (4.29 s at least). A run that does not is
 * written op by op.
 */
int ggmlviz__times_pack(const struct ggmlviz__times *t, uint64_t until);

/* Whether times from stamp first to stamp last fit a body's 32 bits of shifted stamps. */
static inline int ggmlviz__times_fit(uint64_t first, uint64_t last)
{
	return (last - first) >> ggmlviz__clock_share_shift <= UINT32_MAX;
}

/*
 * A run's ops of set `set` as OP_TIMES records on the calling thread's
 * ring; flags (RUN_START) go to the first record. Returns how many records
 * it wrote (a record the ring had no room for is dropped and counted).
 */
uint32_t ggmlviz__emit_op_times(uint64_t set, uint8_t method, uint8_t flags,
				const struct ggmlviz__times *t);

/* The records a graph's shares' times take at most: GGMLVIZ__SHARE_NODES of them (shares.c). */
#define GGMLVIZ__COPY_RECORDS 32u

/*
 * The bodies of a thread's SHARE_TIMES REPEAT records as written, times
 * only, in order, and each record's stamp: at one thread a node's time is
 * its one share's, so the run's OP_TIMES have these same bytes
 * (GGMLVIZ__TIMES_PER_RECORD entries a record either way, each chained
 * from its first begin) and are written from this copy at the run's end,
 * where the hand-over would have copied the stamps node by node into the
 * run for them to be packed again (nodes.c, run-records.c).
 */
struct ggmlviz__packed_copy {
	uint8_t *body;                         /* the entries, GGMLVIZ_OP_TIMES_ENTRY bytes each */
	uint64_t base[GGMLVIZ__COPY_RECORDS];  /* each record's raw stamp: its first begin */
	uint32_t n;                            /* entries, all of their records written; 0: none */
};

/*
 * OP_TIMES records of set `set` on the calling thread's ring, their times
 * c's entries (flags to the first record); how many records it wrote.
 */
uint32_t ggmlviz__emit_op_times_copy(uint64_t set, uint8_t method, uint8_t flags,
				     const struct ggmlviz__packed_copy *c);

/*
 * c's entries as raw stamps again, entry j in begin[j] and end[j]: each
 * record's stamp plus its offsets shifted back, so below the stamp's
 * own by less than 1 << ggmlviz__clock_share_shift (a packed record's
 * granularity).
 */
void ggmlviz__packed_copy_stamps(const struct ggmlviz__packed_copy *c, uint64_t *begin,
				 uint64_t *end);

/* One worker's shares of a graph, for SHARE_TIMES. */
struct ggmlviz__shares_pack {
	uint64_t set;          /* the thread's set of shares (its nodes in order) */
	uint8_t mode;          /* GGMLVIZ_DESC_SET_DEFINE: with identities; _REPEAT: times only */
	uint32_t ith, nth;     /* the worker's index, the pool's threads for the graph */
	struct ggmlviz__times times; /* node: each share's place in the graph */
	const uint64_t *tensor; /* DEFINE: each share's node and op type, by share */
	const uint32_t *op_type;
	uint64_t done;         /* the stamp where the last share's wait ends (the graph's end) */
	struct ggmlviz__packed_copy *copy; /* REPEAT: the bodies copied there (NULL: not) */
};

/*
 * The shares as SHARE_TIMES records on the calling thread's ring; how many
 * records. sp->copy gets their times (its n: 0 unless every record was written).
 */
uint32_t ggmlviz__emit_share_times(const struct ggmlviz__shares_pack *sp);

#endif /* GGMLVIZ_PACKED_H */
