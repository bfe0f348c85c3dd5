/*
 * Live tensor memory (mem, export): the allocations not freed yet, by
 * process and pointer, with the bytes live per process; and the N largest
 * of a stream of allocations. Memory grows with what is live at one time,
 * never with the number of events.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_LIVE_H
#define GGMLVIZ_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "htab.h"

struct ggmlviz__alloc {
	uint64_t pid, ptr, size, ts, offset;
	const char *label; /* borrowed from the reader: valid until it closes */
	uint32_t label_len;
};

#define GGMLVIZ__LIVE_PIDS 16

struct ggmlviz__live {
	struct ggmlviz__htab allocs;
	uint64_t bytes, count;    /* live now, all processes */
	uint64_t unknown_frees;   /* frees of a pointer not allocated in the trace */
	uint64_t reallocs;        /* allocations of a pointer still live (the old one is dropped) */
	struct {
		uint64_t pid, bytes;
	} per_pid[GGMLVIZ__LIVE_PIDS]; /* the first processes seen; the rest share the last */
	size_t npids;
};

/* Adds a live allocation (a live one at the same pointer is dropped); 0 or -ENOMEM. */
int ggmlviz__live_alloc(struct ggmlviz__live *l, const struct ggmlviz__alloc *a);
/* Frees pid's ptr: true with *size the bytes it held, false if it was not live (counted). */
bool ggmlviz__live_free(struct ggmlviz__live *l, uint64_t pid, uint64_t ptr, uint64_t *size);
/* Bytes live in process pid. */
uint64_t ggmlviz__live_bytes(const struct ggmlviz__live *l, uint64_t pid);
/* Visits the live allocations: start with *cursor = 0; NULL after the last. */
const struct ggmlviz__alloc *ggmlviz__live_next(const struct ggmlviz__live *l, size_t *cursor);
void ggmlviz__live_release(struct ggmlviz__live *l);

/* The cap largest allocations of those offered (a min-heap). */
struct ggmlviz__top {
	struct ggmlviz__alloc *items;
	size_t n, cap;
};

/* 0 or -ENOMEM. */
int ggmlviz__top_init(struct ggmlviz__top *t, size_t cap);
void ggmlviz__top_offer(struct ggmlviz__top *t, const struct ggmlviz__alloc *a);
/* Sorts the kept items, largest first (no offer after this). */
void ggmlviz__top_sort(struct ggmlviz__top *t);
void ggmlviz__top_release(struct ggmlviz__top *t);

#endif /* GGMLVIZ_LIVE_H */
