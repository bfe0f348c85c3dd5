/*
 * A slice of a graph's places folded over its workers' stamps (fold.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "tracer/producer/fold.h"
#include "tracer/producer/ring.h"

/*
 * Worker by worker, each a run of loads along its own lines, rather than
 * place by place across k workers' arrays. A first of 0 stays 0: a share
 * not whole anywhere leaves its place without a span.
 */
void ggmlviz__fold_slice(uint64_t *first, uint64_t *latest, uint64_t *last,
			 const uint64_t *const *begin, const uint64_t *const *end, uint32_t k,
			 uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++) {
		first[i] = UINT64_MAX;
		latest[i] = last[i] = 0;
	}
	for (uint32_t w = 0; w < k; w++) {
		const uint64_t *b = begin[w], *e = end[w];

		for (uint32_t i = from; i < to; i++) {
			uint64_t bi = ggmlviz__stamp_load(&b[i]), ei = ggmlviz__stamp_load(&e[i]);

			first[i] = ei < bi ? 0 : bi < first[i] ? bi : first[i];
			latest[i] = bi > latest[i] ? bi : latest[i];
			last[i] = ei > last[i] ? ei : last[i];
		}
	}
}

uint32_t ggmlviz__fold_chunk(uint32_t n, uint32_t slices)
{
	const uint32_t line = GGMLVIZ__CACHE_LINE / sizeof(uint64_t);
	uint32_t each = slices ? (n + slices - 1) / slices : n;

	return each ? (each + line - 1) / line * line : line;
}
