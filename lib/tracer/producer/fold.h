/*
 * Each node's span over a graph's workers (its shares' first begin and
 * last end: its op's time, method MEASURED), folded by the workers.
 *
 * Thread 0 alone once read every worker's stamps of every node as the
 * graph ended: 2 x nth loads a node, and each worker's stamp lines
 * brought from another core, about 3 ns more an op on the graph's thread
 * for every worker (bench_opcost). Now, from three workers on (at two
 * thread 0 reads the other's stamps, as many lines), the workers other than thread 0,
 * each in its graph_done (shares.c), fold one slice of the graph's places
 * over every worker's stamps into their own slots, and mark it; thread 0
 * reads each folded slice whose marks are this graph's: the graph's spans,
 * the same lines at every thread count, the marks, four workers a line,
 * and one line of each worker's stamps (its begin of the graph's first
 * node, which the mark must equal). A slice not marked for this graph (a
 * worker still folding, as GGML's threadpool build allows, where no
 * barrier follows graph_done) it reads from the stamps, as before.
 *
 * The stamps are read here while a worker of the pool may already store
 * the next graph's (a slow thread's fold): they are read and stored as
 * relaxed atomics, which are the plain loads and stores of the
 * processors GGML runs on; a fold that read a later graph's stamps is
 * never taken (its mark holds the worker's own begin of an earlier
 * graph's first node).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_TRACER_PRODUCER_FOLD_H
#define GGMLVIZ_TRACER_PRODUCER_FOLD_H

#include <stdint.h>

#define GGMLVIZ__FOLD_WORKERS 256u /* the most workers whose shares time an op */

/* A stamp of a slot, as another thread may read it while its own thread stores it. */
static inline uint64_t ggmlviz__stamp_load(const uint64_t *at)
{
	return __atomic_load_n(at, __ATOMIC_RELAXED);
}

static inline void ggmlviz__stamp_store(uint64_t *at, uint64_t stamp)
{
	__atomic_store_n(at, stamp, __ATOMIC_RELAXED);
}

/* A node's span: its first begin as read, and its op's begin and end. */
struct ggmlviz__span {
	uint64_t first;
	uint64_t from, to;
};

/*
 * A graph's spans as its thread reads them: slice s of its places, chunk
 * places from s * chunk, folded into first[s], last[s] and latest[s]
 * (NULL where it was not folded for this graph: read from the stamps
 * then); the k workers' stamps, worker t's of node i at begin[t][i] and
 * end[t][i] (worker 0's the calling thread's), filled where a slice was
 * not taken. Stamps at or before floor are an earlier graph's.
 */
struct ggmlviz__spans {
	const uint64_t *first[GGMLVIZ__FOLD_WORKERS], *last[GGMLVIZ__FOLD_WORKERS];
	const uint64_t *latest[GGMLVIZ__FOLD_WORKERS];
	const uint64_t *begin[GGMLVIZ__FOLD_WORKERS], *end[GGMLVIZ__FOLD_WORKERS];
	uint32_t k, slices, chunk;
	uint64_t floor;
};

/*
 * Places [from, to) of the graph folded over the k workers' stamps: each
 * place's first begin into first[] (0 where a worker's end came before
 * its begin: a share not whole), its last begin into latest[] and its
 * last end into last[].
 */
void ggmlviz__fold_slice(uint64_t *first, uint64_t *latest, uint64_t *last,
			 const uint64_t *const *begin, const uint64_t *const *end, uint32_t k,
			 uint32_t from, uint32_t to);

/* Places a slice, for n places in `slices` slices: whole cache lines of stamps each. */
uint32_t ggmlviz__fold_chunk(uint32_t n, uint32_t slices);

/*
 * Node i's span from a folded slice that holds it: from its first begin
 * (its last worker's begin, for the graph's first node: until then the
 * workers were being woken, the run's start) to its last end. Returns 0
 * where a worker has no share of it in this graph (at or before floor).
 */
static inline int ggmlviz__span_folded(const uint64_t *first, const uint64_t *latest,
				       const uint64_t *last, uint64_t floor, uint32_t i,
				       int graph_first, struct ggmlviz__span *s)
{
	if (!(first[i] > floor))
		return 0;
	s->first = first[i];
	s->from = graph_first ? latest[i] : first[i];
	s->to = last[i];
	return 1;
}

/*
 * The same from the k workers' stamps. The calling thread is the graph's
 * thread 0, past its last barrier and before the next graph: the stamps
 * are still, but for those of a worker that ended inside the graph, whose
 * slot another thread may be taking (shares.c): relaxed loads, as the
 * folds'.
 */
static inline int ggmlviz__span_stamps(const uint64_t *const *begin, const uint64_t *const *end,
				       uint32_t k, uint64_t floor, uint32_t i, int graph_first,
				       struct ggmlviz__span *s)
{
	uint64_t first = UINT64_MAX, latest = 0, last = 0;

	for (uint32_t w = 0; w < k; w++) {
		uint64_t b = ggmlviz__stamp_load(&begin[w][i]), e = ggmlviz__stamp_load(&end[w][i]);

		if (!(b > floor) || e < b)
			return 0;
		first = b < first ? b : first;
		latest = b > latest ? b : latest;
		last = e > last ? e : last;
	}
	s->first = first;
	s->from = graph_first ? latest : first;
	s->to = last;
	return 1;
}

#endif /* GGMLVIZ_TRACER_PRODUCER_FOLD_H */
